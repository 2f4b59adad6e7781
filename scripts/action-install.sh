#!/usr/bin/env bash
# The install steps of the GitHub Action (action.yml, docs/integrations.md). Three
# subcommands, one per step:
#
#   plan     which release binary fits this runner (RUNNER_OS, RUNNER_ARCH) and where it is
#            kept (the directory the action caches): outputs version, target, asset, dir,
#            lock-hash
#   install  puts amlint on PATH: the cached binary if there is one, else the release
#            asset, downloaded with its .sha256 and verified (a mismatch or a missing
#            checksum fails the step; nothing unverified is installed). Output build=true
#            when the release has no binary for this runner (HTTP 404) or the runner has
#            no release target: the next step builds from source.
#   build    `cargo install --locked` of the action's own source (its Cargo.lock), with
#            CARGO_TARGET_DIR in the directory the action caches.
#
# Environment: AMLINT_VERSION (a release version such as 0.1.0 or v0.1.0; `source` builds
# the action's own source), AMLINT_RELEASE_URL (default
# https://github.com/amlint/amlint/releases/download; the asset is
# $AMLINT_RELEASE_URL/v<version>/<asset>), RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE (else
# RUNNER_TEMP), GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ACTION_PATH. The archives are those of
# scripts/release-archive.sh. tests/it/action.rs runs every path of this script against a
# fake release served on loopback.
set -euo pipefail

RELEASE_URL="${AMLINT_RELEASE_URL:-https://github.com/amlint/amlint/releases/download}"
ACTION_PATH="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

output() {
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        echo "$1=$2" >> "$GITHUB_OUTPUT"
    fi
}

sha256() {
    if command -v sha256sum > /dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

version="${AMLINT_VERSION:-}"
version="${version#v}"
if [ -z "$version" ]; then
    echo "::error::amlint: the version input is empty (a release such as 0.1.0, or source)" >&2
    exit 2
fi
if [ "$version" != source ] && ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
    echo "::error::amlint: version '$version' is not a release version (such as 0.1.0) nor 'source'" >&2
    exit 2
fi

# The release target built for this runner (.github/workflows/release.yml), if any.
target=""
case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) target=x86_64-unknown-linux-musl ;;
    Linux/ARM64) target=aarch64-unknown-linux-musl ;;
    macOS/X64) target=x86_64-apple-darwin ;;
    macOS/ARM64) target=aarch64-apple-darwin ;;
    Windows/X64) target=x86_64-pc-windows-msvc ;;
esac
exe=amlint
ext=tar.gz
if [ "${RUNNER_OS:-}" = Windows ]; then
    exe=amlint.exe
    ext=zip
fi
lock_hash="$(sha256 "$ACTION_PATH/Cargo.lock" | cut -c1-16)"
base="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}/amlint"
if [ "$version" = source ]; then
    target=""
    dir="$base/source-$lock_hash"
else
    dir="$base/$version/${target:-source-$lock_hash}"
fi
asset=""
if [ -n "$target" ]; then
    asset="amlint-$version-$target.$ext"
fi

case "${1:-}" in
    plan)
        output version "$version"
        output target "$target"
        output asset "$asset"
        output dir "$dir"
        output lock-hash "$lock_hash"
        echo "amlint $version for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}: ${asset:-no release binary, built from source} (kept in $dir)"
        ;;
    install)
        # The first line of `amlint --version` starts "amlint <version>" (then the data it carries).
        if [ -x "$dir/bin/$exe" ] && [ "$("$dir/bin/$exe" --version 2> /dev/null | head -n 1 | cut -d " " -f 1,2)" = "amlint $version" ]; then
            echo "amlint $version: cached in $dir/bin"
            echo "$dir/bin" >> "${GITHUB_PATH:-/dev/null}"
            output build false
            exit 0
        fi
        if [ -z "$asset" ]; then
            echo "::notice::amlint: no release binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}; building the action's source with cargo"
            output build true
            exit 0
        fi
        tmp="$(mktemp -d)"
        trap 'rm -rf "$tmp"' EXIT
        url="$RELEASE_URL/v$version/$asset"
        fetch() { # URL FILE → the HTTP status (000 on a connection failure)
            curl --silent --show-error --location --retry 3 --retry-connrefused \
                --output "$2" --write-out '%{http_code}' "$1" || true
        }
        status="$(fetch "$url" "$tmp/$asset")"
        if [ "$status" = 404 ]; then
            echo "::notice::amlint: release v$version has no $asset ($url: 404); building the action's source with cargo"
            output build true
            exit 0
        fi
        if [ "$status" != 200 ]; then
            echo "::error::amlint: could not download $url (HTTP status $status)" >&2
            exit 1
        fi
        status="$(fetch "$url.sha256" "$tmp/$asset.sha256")"
        if [ "$status" != 200 ]; then
            echo "::error::amlint: no checksum for $asset ($url.sha256: HTTP status $status); refusing to install an unverified binary" >&2
            exit 1
        fi
        expected="$(cut -d' ' -f1 < "$tmp/$asset.sha256" | tr 'A-F' 'a-f')"
        actual="$(sha256 "$tmp/$asset")"
        if [ "$expected" != "$actual" ]; then
            echo "::error::amlint: checksum mismatch for $asset: the release says $expected, the download is $actual; not installed" >&2
            exit 1
        fi
        echo "amlint: $asset verified (sha256 $actual)"
        mkdir -p "$tmp/x"
        if [ "$ext" = zip ]; then
            unzip -q "$tmp/$asset" -d "$tmp/x"
        else
            tar -xzf "$tmp/$asset" -C "$tmp/x"
        fi
        found="$tmp/x/amlint-$version-$target/$exe"
        if [ ! -f "$found" ]; then
            echo "::error::amlint: $asset has no amlint-$version-$target/$exe" >&2
            exit 1
        fi
        chmod 755 "$found"
        said="$("$found" --version 2>&1 | head -n 1 | cut -d " " -f 1,2 || true)"
        if [ "$said" != "amlint $version" ]; then
            echo "::error::amlint: the binary in $asset says '$said', not 'amlint $version'" >&2
            exit 1
        fi
        mkdir -p "$dir/bin"
        mv "$found" "$dir/bin/$exe"
        echo "amlint $version installed in $dir/bin"
        echo "$dir/bin" >> "${GITHUB_PATH:-/dev/null}"
        output build false
        ;;
    build)
        # The action's own source, with its Cargo.lock; the target directory is kept with
        # the binary's directory (the action caches it with the cargo registry).
        export CARGO_TARGET_DIR="$dir-target"
        cargo install --locked --root "$dir" --path "$ACTION_PATH"
        echo "$dir/bin" >> "${GITHUB_PATH:-/dev/null}"
        ;;
    *)
        echo "usage: $0 plan|install|build" >&2
        exit 2
        ;;
esac
