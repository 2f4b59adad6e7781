#!/usr/bin/env bash
# Latency of `amlint lsp`: time from a didChange to the publishDiagnostics of that
# version, for a 1,000-line Azure ML pipeline job, over many edits (release build).
# Usage: bench/lsp-latency.sh [ITERATIONS]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --bin amlint
target_dir="${CARGO_TARGET_DIR:-target}"
cargo run --release --locked --example lsp_latency -- "$target_dir/release/amlint" "${1:-200}"
