#!/usr/bin/env bash
# The run step of the GitHub Action (action.yml): turns the action's inputs (INPUT_*
# environment variables) into an `amlint check` command line, runs it, records the exit
# code as the step output `exit-code`, and exits with it. tests/it/action.rs runs it too.
set -uo pipefail

args=(check --format "${INPUT_FORMAT:-github}" --fail-on "${INPUT_FAIL_ON:-error}")
if [ -n "${INPUT_CONFIG:-}" ]; then
    args+=(--config "$INPUT_CONFIG")
fi
if [ -n "${INPUT_BASELINE:-}" ]; then
    args+=(--baseline "$INPUT_BASELINE")
fi
# Paths: one per line (spaces allowed), or all on one line separated by spaces. No glob
# expansion either way.
paths=()
input="${INPUT_PATHS:-.}"
if [[ "$input" == *$'\n'* ]]; then
    while IFS= read -r line; do
        line="${line#"${line%%[![:space:]]*}"}"
        line="${line%"${line##*[![:space:]]}"}"
        if [ -n "$line" ]; then
            paths+=("$line")
        fi
    done <<< "$input"
else
    set -f
    read -r -a paths <<< "$input"
    set +f
fi
if [ "${#paths[@]}" -eq 0 ]; then
    paths=(.)
fi
args+=(--)
args+=("${paths[@]}")

if [ -n "${INPUT_OUTPUT:-}" ]; then
    amlint "${args[@]}" > "$INPUT_OUTPUT"
    code=$?
    echo "amlint: report written to $INPUT_OUTPUT (exit code $code)"
else
    amlint "${args[@]}"
    code=$?
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "exit-code=$code" >> "$GITHUB_OUTPUT"
fi
exit "$code"
