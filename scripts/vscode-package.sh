#!/usr/bin/env bash
# Builds the VS Code extension's .vsix (editors/vscode, docs/install.md) and checks it:
# `npm ci` (exact versions from package-lock.json, no install scripts), the node tests
# (which executable is run; the bundle loads), the esbuild bundle, `vsce package`, then
# the package holds only the bundle, package.json, README, LICENSE and icon, and amlint.path
# is machine-scoped. Prints the .vsix's size and file count. Needs node and npm (the npm
# registry for `npm ci`). OUT: where to copy the .vsix (optional).
# tests/it/packaging.rs runs this script.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../editors/vscode"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
fi
rm -rf dist amlint.vsix
npm run --silent bundle > /dev/null
node --test test/ > test.log 2>&1 || { cat test.log >&2; rm -f test.log; exit 1; }
rm -f test.log
npx --no-install vsce package --out amlint.vsix > vsce.log 2>&1 || { cat vsce.log >&2; rm -f vsce.log; exit 1; }
rm -f vsce.log
files="$(unzip -Z1 amlint.vsix | sort)"
expected="$(printf '%s\n' '[Content_Types].xml' extension.vsixmanifest extension/LICENSE.txt \
    extension/dist/extension.js extension/icon.png extension/package.json extension/readme.md | sort)"
if [ "$files" != "$expected" ]; then
    echo "vscode-package: unexpected files in amlint.vsix:" >&2
    diff <(echo "$expected") <(echo "$files") >&2 || true
    exit 1
fi
scope="$(node -p 'require("./package.json").contributes.configuration.properties["amlint.path"].scope')"
if [ "$scope" != machine ]; then
    echo "vscode-package: amlint.path has scope '$scope', not machine" >&2
    exit 1
fi
echo "vscode-package: amlint.vsix $(wc -c < amlint.vsix) bytes, $(echo "$files" | wc -l) files (bundle $(wc -c < dist/extension.js) bytes)"
if [ -n "${OUT:-}" ]; then
    cp amlint.vsix "$OUT"
fi
