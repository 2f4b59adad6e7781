#!/usr/bin/env bash
# Packs one release binary the way the release workflow publishes it
# (.github/workflows/release.yml, docs/install.md):
#
#   amlint-<version>-<target>.tar.gz   (.zip for Windows targets), holding
#   amlint-<version>-<target>/{amlint[.exe], LICENSE, README.md, THIRD-PARTY-NOTICES.md}
#   amlint-<version>-<target>.tar.gz.sha256   (`sha256sum` format: "<hex>  <file name>")
#
# Usage: scripts/release-archive.sh BINARY TARGET OUT_DIR
# The version is Cargo.toml's. Prints the archive's path. The action's install step
# (scripts/action-install.sh) reads exactly this layout; tests/it/action.rs serves archives
# made by this script as a fake release.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="$1"
target="$2"
out="$3"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$REPO/Cargo.toml" | head -n 1)"
name="amlint-$version-$target"
exe=amlint
case "$target" in
    *windows*) exe=amlint.exe ;;
esac

mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$binary" "$stage/$name/$exe"
chmod 755 "$stage/$name/$exe"
cp "$REPO/LICENSE" "$REPO/README.md" "$REPO/THIRD-PARTY-NOTICES.md" "$stage/$name/"
case "$target" in
    *windows*)
        archive="$name.zip"
        if command -v 7z > /dev/null 2>&1; then
            (cd "$stage" && 7z a -tzip -bd "$out/$archive" "$name" > /dev/null)
        else
            (cd "$stage" && zip -qr "$out/$archive" "$name")
        fi
        ;;
    *)
        archive="$name.tar.gz"
        tar -C "$stage" -czf "$out/$archive" "$name"
        ;;
esac
if command -v sha256sum > /dev/null 2>&1; then
    (cd "$out" && sha256sum "$archive" > "$archive.sha256")
else
    (cd "$out" && shasum -a 256 "$archive" > "$archive.sha256")
fi
echo "$out/$archive"
