#!/usr/bin/env bash
# Proves the PyPI wheel (docs/install.md): builds it with maturin from this checkout,
# installs it into a fresh virtual environment without the network (--no-index), and
# checks that
#
#   1. the wheel holds the amlint executable, the `amlint` Python package and LICENSE;
#   2. `amlint --version` and `python -m amlint --version` start with Cargo.toml's version;
#   3. `amlint check fixtures --format json` (the installed executable, and through
#      `python -m amlint`) exits 1 and prints the same JSON as the cargo-built binary;
#   4. the source distribution holds what a build from it needs (pyproject.toml,
#      Cargo.toml, Cargo.lock, src/, rules/, schemas/, python/amlint/, LICENSE).
#
# Environment:
#   PROFILE   the Cargo profile to build (default dev: reuses the test build, so the
#             wheel costs seconds; dist is what is shipped and costs a release build)
#   MATURIN   a maturin executable; default: one installed from PyPI into
#             $AMLINT_TOOLS (default ~/.cache/amlint-tools, a venv) when missing
#   PYTHON    the Python 3 for the fresh venv (default python3)
#   KEEP      a directory to copy the built wheel and sdist to (optional)
#   REUSE=1   fail if maturin compiled amlint (the test build must already be there)
# CARGO_TARGET_DIR is honoured. tests/it/packaging.rs runs this script.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROFILE="${PROFILE:-dev}"
PYTHON="${PYTHON:-python3}"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}"
case "$PROFILE" in
    dev | test) PROFILE_DIR=debug ;;
    *) PROFILE_DIR="$PROFILE" ;;
esac

if ! command -v "$PYTHON" > /dev/null 2>&1; then
    echo "wheel-smoke: $PYTHON not found; the wheel needs Python 3.8 or newer" >&2
    exit 2
fi
if [ -z "${MATURIN:-}" ]; then
    TOOLS="${AMLINT_TOOLS:-$HOME/.cache/amlint-tools}"
    if [ ! -x "$TOOLS/bin/maturin" ]; then
        "$PYTHON" -m venv "$TOOLS"
        "$TOOLS/bin/pip" install --quiet "maturin>=1.5,<2"
    fi
    MATURIN="$TOOLS/bin/maturin"
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
passed=0
ok() {
    passed=$((passed + 1))
    echo "ok $passed: $*"
}
fail() {
    echo "FAIL: $*" >&2
    echo "wheel-smoke: $passed passed, 1 failed"
    exit 1
}

cd "$REPO"
start=$(date +%s)
"$MATURIN" build --locked --profile "$PROFILE" --out "$WORK/dist" > "$WORK/build.log" 2>&1 ||
    { cat "$WORK/build.log" >&2; fail "maturin build"; }
"$MATURIN" sdist --out "$WORK/dist" > "$WORK/sdist.log" 2>&1 ||
    { cat "$WORK/sdist.log" >&2; fail "maturin sdist"; }
if [ "${REUSE:-}" = 1 ] && grep -q "Compiling amlint " "$WORK/build.log"; then
    cat "$WORK/build.log" >&2
    fail "maturin rebuilt amlint instead of reusing the $PROFILE build"
fi
wheel="$(ls "$WORK"/dist/amlint-*.whl)"
sdist="$(ls "$WORK"/dist/amlint-*.tar.gz)"
echo "built $(basename "$wheel") ($(wc -c < "$wheel") bytes) and $(basename "$sdist") ($(wc -c < "$sdist") bytes) in $(($(date +%s) - start)) s"
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    cp "$wheel" "$sdist" "$KEEP/"
fi

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
"$PYTHON" - "$wheel" "$version" << 'PY' || fail "the wheel's contents"
import sys, zipfile
wheel, version = sys.argv[1], sys.argv[2]
names = set(zipfile.ZipFile(wheel).namelist())
want = {
    f"amlint-{version}.data/scripts/amlint",
    "amlint/__init__.py",
    "amlint/__main__.py",
    f"amlint-{version}.dist-info/licenses/LICENSE",
}
missing = want - names
if missing:
    sys.exit(f"missing from the wheel: {sorted(missing)}; it has {sorted(names)}")
PY
ok "the wheel holds the executable, the amlint package and LICENSE"

"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --no-index --no-deps "$wheel" || fail "pip install of the wheel"
amlint="$WORK/venv/bin/amlint"
[ -x "$amlint" ] || fail "pip did not install $amlint"
# The first line of `amlint --version` starts "amlint <version>" (then the data it carries);
# the rest is the same both ways.
[ "$("$amlint" --version | head -n 1 | cut -d " " -f 1,2)" = "amlint $version" ] || fail "amlint --version: $("$amlint" --version)"
[ "$("$WORK/venv/bin/python" -m amlint --version 2> "$WORK/module.err")" = "$("$amlint" --version)" ] ||
    fail "python -m amlint --version"
[ ! -s "$WORK/module.err" ] || fail "python -m amlint wrote to stderr: $(cat "$WORK/module.err")"
ok "amlint --version and python -m amlint --version print amlint $version"

set +e
"$TARGET_DIR/$PROFILE_DIR/amlint" check fixtures --format json > "$WORK/cargo.json"
cargo_code=$?
"$amlint" check fixtures --format json > "$WORK/wheel.json"
wheel_code=$?
"$WORK/venv/bin/python" -m amlint check fixtures --format json > "$WORK/module.json"
module_code=$?
set -e
[ "$cargo_code" = 1 ] || fail "the cargo-built amlint exited $cargo_code on fixtures (expected 1)"
[ "$wheel_code" = 1 ] || fail "the wheel's amlint exited $wheel_code on fixtures (expected 1)"
[ "$module_code" = 1 ] || fail "python -m amlint exited $module_code on fixtures (expected 1)"
cmp -s "$WORK/cargo.json" "$WORK/wheel.json" || fail "the wheel's JSON differs from the cargo-built binary's"
cmp -s "$WORK/cargo.json" "$WORK/module.json" || fail "python -m amlint's JSON differs"
ok "amlint check fixtures: exit 1 and the cargo-built binary's JSON ($(wc -c < "$WORK/wheel.json") bytes), installed and through python -m amlint"

"$PYTHON" - "$sdist" "$version" << 'PY' || fail "the sdist's contents"
import sys, tarfile
sdist, version = sys.argv[1], sys.argv[2]
root = f"amlint-{version}/"
names = {n[len(root):] for n in tarfile.open(sdist).getnames() if n.startswith(root)}
want = ["pyproject.toml", "Cargo.toml", "Cargo.lock", "build.rs", "LICENSE", "README.md",
        "python/amlint/__main__.py", "src/main.rs", "rules/", "schemas/kinds.yaml"]
missing = [w for w in want if not any(n == w or (w.endswith("/") and n.startswith(w)) for n in names)]
if missing:
    sys.exit(f"missing from the sdist: {missing}")
extra = [n for n in names if n.split("/")[0] in ("fuzz", "fixtures", "tests", "bench", "editors")]
if extra:
    sys.exit(f"the sdist holds files a build does not need: {extra[:10]}")
PY
ok "the sdist holds what a build needs and no tests, fixtures, fuzz corpora or editors"

echo "wheel-smoke: $passed passed, 0 failed"
