#!/bin/sh
# The edit-test loop (CONTRIBUTING: ARCHITECTURE.md, "The test loop"): one edit in src/,
# then the whole `cargo test`, timed as the build and the run. The edit is a comment line
# appended to FILE (default src/facts/vm.rs), taken back afterwards.
#
#   bench/test-loop.sh [FILE]        # prints the load, then: build s, run s, total s
#   TIMINGS=1 bench/test-loop.sh     # also cargo's per-unit timings (target/cargo-timings/)
#   LOG=/tmp/t.log bench/test-loop.sh  # keeps the tests' output
set -eu
cd "$(dirname "$0")/.."
file=${1:-src/facts/vm.rs}
cargo test --locked --no-run -q >/dev/null 2>&1 # everything up to date first
backup=$(mktemp)
cp -p "$file" "$backup"
trap 'cp -p "$backup" "$file"; rm -f "$backup"' EXIT
printf '\n// test-loop edit %s\n' "$(date +%s)" >>"$file"
echo "load: $(uptime | sed 's/.*load average: //')"
t0=$(date +%s.%N)
if [ "${TIMINGS:-}" = 1 ]; then
    cargo test --locked --no-run -q --timings >/dev/null 2>&1
else
    cargo test --locked --no-run -q >/dev/null 2>&1
fi
t1=$(date +%s.%N)
status=0
cargo test --locked -q >"${LOG:-/dev/null}" 2>&1 || status=$?
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "build %.1f s, run %.1f s, total %.1f s\n", b - a, c - b, c - a }'
[ "$status" = 0 ] || echo "cargo test failed (exit $status)"
exit "$status"
