#!/usr/bin/env bash
# Proves the pre-commit hook with the real `pre-commit` tool (docs/pre-commit.md):
# builds a scratch git repository with Azure ML files, an amlint.toml and a
# .pre-commit-config.yaml naming this repository at REF (as users write it; pre-commit
# clones it once into PRE_COMMIT_HOME, where `try-repo` cloned it for each run), then runs
# `pre-commit run` on it and checks what the hook does:
#
#   1. a file with an error fails the hook, and the output names the rule;
#   2. a clean file passes;
#   3. a file the configuration excludes passes even though pre-commit names it;
#   4. a suppressed finding passes; an unused suppression is reported (a warning);
#   5. --all-files fails (the bad file is in the repository).
#
# Needs git and pre-commit (`python3 -m venv /tmp/venv-tools &&
# /tmp/venv-tools/bin/pip install pre-commit`, then PRE_COMMIT=/tmp/venv-tools/bin/pre-commit).
# HOOK picks the hook: `amlint` (default; pre-commit builds amlint with `cargo install` from
# the repository at REF, a release build: CARGO_TARGET_DIR is kept between runs so that
# rebuilds are incremental) or `amlint-system` (the amlint on PATH; nothing is built, no
# network: CI runs it this way through tests/it/packaging.rs). REF defaults to HEAD: commit
# first, or pass REF. tests/it/precommit.rs checks the hook definitions and runs their entry
# the way pre-commit does.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PRE_COMMIT="${PRE_COMMIT:-pre-commit}"
HOOK="${HOOK:-amlint}"
REF="${REF:-$(git -C "$REPO" rev-parse HEAD)}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/amlint-precommit-target}"
# A faster release build for the proof; users' installs keep the profile of Cargo.toml.
export CARGO_PROFILE_RELEASE_LTO="${CARGO_PROFILE_RELEASE_LTO:-false}"
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS="${CARGO_PROFILE_RELEASE_CODEGEN_UNITS:-16}"

if ! command -v "$PRE_COMMIT" >/dev/null 2>&1; then
    echo "pre-commit not found: install it (python3 -m venv /tmp/venv-tools && /tmp/venv-tools/bin/pip install pre-commit) and set PRE_COMMIT=/tmp/venv-tools/bin/pre-commit" >&2
    exit 2
fi

SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH"
git init -q .
git config user.email proof@example.com
git config user.name proof

mkdir -p jobs legacy
cat > amlint.toml <<'TOML'
extend-exclude = ["legacy"]
TOML
JOB='$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json
command: python train.py
environment: azureml:sklearn:1
compute: azureml:cpu-cluster'
printf '%s\n' "$JOB" > jobs/good.yml
printf '%s\ncompute: azureml:gpu-cluster\n' "$JOB" > jobs/bad.yml
printf '%s\ncompute: azureml:gpu-cluster\n' "$JOB" > legacy/old.yml
printf '%s\ncompute: azureml:gpu-cluster  # amlint: ignore[duplicate-key] moving clusters\n' "$JOB" > jobs/accepted.yml
printf '%s  # amlint: ignore[AML003]\n' "$JOB" > jobs/stale.yml
printf 'name: env\ndependencies: [python=3.10]\n' > conda.yml
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $REPO
    rev: $REF
    hooks:
      - id: $HOOK
YAML
git add -A

run() {
    # pre-commit prints its summary and the hook's output.
    "$PRE_COMMIT" run "$@" > out.txt 2>&1
}

fail() {
    echo "FAIL: $*" >&2
    cat out.txt >&2
    exit 1
}

if run --files jobs/bad.yml conda.yml; then fail "the hook passed on a file with a duplicate key"; fi
grep -q "AML002 duplicate-key" out.txt || fail "the output does not name AML002"
echo "ok 1: jobs/bad.yml fails with AML002"

run --files jobs/good.yml conda.yml || fail "the hook failed on a clean file"
echo "ok 2: jobs/good.yml passes"

run --files legacy/old.yml || fail "the hook failed on a file the configuration excludes"
echo "ok 3: legacy/old.yml (excluded by amlint.toml) passes"

run --verbose --files jobs/accepted.yml jobs/stale.yml || fail "a suppressed finding or a warning failed the hook"
grep -q "AML009 unused-suppression" out.txt || fail "the unused suppression is not reported"
echo "ok 4: the suppressed finding passes; the unused suppression is reported"

if run --all-files; then fail "--all-files passed"; fi
grep -q "jobs/bad.yml" out.txt || fail "--all-files does not name jobs/bad.yml"
if grep -q "legacy/old.yml" out.txt; then fail "--all-files reported an excluded file"; fi
echo "ok 5: --all-files fails on jobs/bad.yml only"

echo "pre-commit: all checks passed (hook $HOOK, amlint at $REF)"
