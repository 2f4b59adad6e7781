#!/bin/sh
# The edit-test loop (CONTRIBUTING: ARCHITECTURE.md, "The test loop"): one edit in src/,
# then the whole `cargo test`, timed as the build and the run. The edit is a comment line
# appended to FILE (default src/facts/vm.rs), taken back afterwards; with EDIT=code, a
# public function instead (code to compile, optimise and link, not only spans to shift).
#
#   bench/test-loop.sh [FILE]        # prints the load, then: build s, run s, total s (wall),
#                                    # and the CPU seconds (user + system) of each part
#   TIMINGS=1 bench/test-loop.sh     # also cargo's per-unit timings (target/cargo-timings/)
#   LOG=/tmp/t.log bench/test-loop.sh  # keeps the tests' output
#   EDIT=code bench/test-loop.sh     # the edit is a function, not a comment
set -eu
cd "$(dirname "$0")/.."
file=${1:-src/facts/vm.rs}
cargo test --locked --no-run -q >/dev/null 2>&1 # everything up to date first
backup=$(mktemp)
cp -p "$file" "$backup"
trap 'cp "$backup" "$file"; rm -f "$backup" "$backup.times"' EXIT
now=$(date +%s)
if [ "${EDIT:-}" = code ]; then
    printf '\npub fn test_loop_edit() -> u64 {\n    std::hint::black_box(%s)\n}\n' "$now" >>"$file"
else
    printf '\n// test-loop edit %s\n' "$now" >>"$file"
fi
echo "load: $(uptime | sed 's/.*load average: //')"
# CPU seconds (user + system) of the finished children so far: the shell's own `times`
# (written from this shell; a subshell has no children of its own yet).
cpu() { awk 'NR == 2 { gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }' "$backup.times"; }
times >"$backup.times"
c0=$(cpu)
t0=$(date +%s.%N)
if [ "${TIMINGS:-}" = 1 ]; then
    cargo test --locked --no-run -q --timings >/dev/null 2>&1
else
    cargo test --locked --no-run -q >/dev/null 2>&1
fi
t1=$(date +%s.%N)
times >"$backup.times"
c1=$(cpu)
status=0
cargo test --locked -q >"${LOG:-/dev/null}" 2>&1 || status=$?
t2=$(date +%s.%N)
times >"$backup.times"
c2=$(cpu)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "build %.1f s, run %.1f s, total %.1f s\n", b - a, c - b, c - a }'
awk -v a="$c0" -v b="$c1" -v c="$c2" 'BEGIN { printf "CPU: build %.1f s, run %.1f s, total %.1f s\n", b - a, c - b, c - a }'
[ "$status" = 0 ] || echo "cargo test failed (exit $status)"
exit "$status"
