#!/usr/bin/env bash
# The benchmarks of BENCHMARKS.md, side by side in one run on the same files:
#
#   1. the azureml-examples corpus (cli/): amlint, the Azure ML SDK (one Python process
#      loading every file with the loader `az ml` uses, import included), yamllint;
#   2. a synthetic monorepo of 10,000 configuration files (bench/monorepo.py): amlint on
#      two cores and on one, and the parse-only floor (examples/parse_floor.rs: the same
#      walk and parser, nothing else); scaling over 1,250 … 10,000 files; peak memory;
#   3. one file as pre-commit calls it in that monorepo: a file that needs nothing from
#      the rest of the project, and a pipeline whose compute no file defines (so the
#      whole project is searched for it).
#
# Needs hyperfine (apt install hyperfine / cargo install hyperfine) and GNU time. The SDK
# and yamllint come from a virtualenv (default bench/.venv, created on first use from
# scripts/requirements-sdk.txt + yamllint; set AMLINT_BENCH_VENV to reuse one). Set
# AMLINT_CORPUS to the azureml-examples checkout if it is not at ../shared/corpus/...
# Results (hyperfine JSON and a summary) go to bench/results/ (not committed).
#
# Usage: bench/run.sh [--quick]     (--quick: fewer runs, for trying the script)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
runs=10
[[ "${1:-}" == "--quick" ]] && runs=3

# shellcheck source=bench/corpus.sh
source "$here/corpus.sh"
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 2; }

venv="${AMLINT_BENCH_VENV:-$here/.venv}"
if [[ ! -x "$venv/bin/yamllint" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$repo/scripts/requirements-sdk.txt" yamllint
fi

out="$here/results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

echo "== building (release)"
(cd "$repo" && cargo build --release --locked -q && cargo build --release --locked -q --example parse_floor)
amlint="$repo/target/release/amlint"
floor="$repo/target/release/examples/parse_floor"
export AMLINT_TODAY=2026-11-22

echo "== machine"
{
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "cores: $(nproc)"
  echo "memory: $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "kernel: $(uname -r)"
  echo "amlint: $("$amlint" --version) ($(cd "$repo" && git rev-parse --short HEAD))"
  echo "azure-ai-ml: $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("azure-ai-ml"))')"
  echo "yamllint: $("$venv/bin/yamllint" --version | cut -d' ' -f2)"
  echo "hyperfine: $(hyperfine --version | cut -d' ' -f2)"
} | tee "$out/machine.txt"

echo "== 1. the corpus: $(find "$corpus/cli" -type f \( -name '*.yml' -o -name '*.yaml' -o -name '*.json' \) | wc -l) configuration files"
cd "$corpus"
# amlint and the floor take tens of milliseconds on a machine whose noise is several:
# five times the runs, so that their mean is as steady as the tools' they are compared to.
hyperfine -N --warmup 5 --runs $(( runs * 5 )) -i --export-json "$out/corpus.json" \
  -n amlint "$amlint check --no-config --format json cli" \
  -n parse-floor "$floor cli"
hyperfine -N --warmup 1 --runs "$runs" -i --export-json "$out/corpus-yamllint.json" \
  -n yamllint "$venv/bin/yamllint -f parsable cli"
hyperfine --warmup 1 --runs "$(( runs < 5 ? runs : 5 ))" -i --export-json "$out/corpus-sdk.json" \
  -n azure-ai-ml "$venv/bin/python $repo/scripts/sdk_verdicts.py $work/sdk --corpus $corpus/cli"

echo "== 2. a monorepo of 10,000 files"
python3 "$here/monorepo.py" "$work/mono" --files 10000 --corpus "$corpus/cli"
cd "$work/mono"
hyperfine -N --warmup 1 --runs "$runs" -i --export-json "$out/monorepo.json" \
  -n amlint "$amlint check --format json ." \
  -n amlint-1-thread "env RAYON_NUM_THREADS=1 $amlint check --format json ." \
  -n parse-floor "$floor ."
for n in 1250 2500 5000; do
  python3 "$here/monorepo.py" "$work/mono-$n" --files "$n" --corpus "$corpus/cli" >/dev/null
done
hyperfine -N --warmup 1 --runs "$runs" -i --export-json "$out/scaling.json" \
  -n 1250 "$amlint check --format json $work/mono-1250" \
  -n 2500 "$amlint check --format json $work/mono-2500" \
  -n 5000 "$amlint check --format json $work/mono-5000" \
  -n 10000 "$amlint check --format json $work/mono"
for cmd in "$amlint check --format json ." "$floor ."; do
  /usr/bin/time -f "peak memory %M KB: $cmd" $cmd >/dev/null 2>>"$out/memory.txt" || true
done
tail -2 "$out/memory.txt"

echo "== 3. one file, as pre-commit calls it, in the 10,000-file monorepo"
self_contained="team-05/resources/compute/cluster-basic.yml"
cross_file="team-05/jobs/basics/hello-pipeline-abc.yml"
# A name no file defines is known to be undefined only once every file has been seen:
# listing the tree alone (no reading) is the floor of that case.
hyperfine -N --warmup 3 --runs $(( runs * 3 )) -i --export-json "$out/precommit.json" \
  -n self-contained "$amlint check $self_contained" \
  -n names-an-undefined-compute "$amlint check $cross_file" \
  -n list-the-tree "find . -type f"

echo "== summary"
python3 - "$out" <<'EOF'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
def means(name):
    return {r["command"]: r for r in json.loads((out / name).read_text())["results"]}
c, s, m, p = means("corpus.json"), means("corpus-sdk.json"), means("monorepo.json"), means("precommit.json")
y = means("corpus-yamllint.json")
a = c["amlint"]["mean"]
print(f"corpus: amlint {a*1000:.1f} ms (median {c['amlint']['median']*1000:.1f}); "
      f"yamllint {y['yamllint']['mean']*1000:.0f} ms ({y['yamllint']['mean']/a:.1f}x); "
      f"azure-ai-ml {s['azure-ai-ml']['mean']:.1f} s ({s['azure-ai-ml']['mean']/a:.0f}x); floor {c['parse-floor']['mean']*1000:.0f} ms")
print(f"monorepo: amlint {m['amlint']['mean']*1000:.0f} ms (one thread {m['amlint-1-thread']['mean']*1000:.0f} ms); "
      f"floor {m['parse-floor']['mean']*1000:.0f} ms; ratio {m['amlint']['mean']/m['parse-floor']['mean']:.2f}")
sc = means("scaling.json")
print("scaling: " + ", ".join(f"{k} files {v['mean']*1000:.0f} ms" for k, v in sc.items()))
print("pre-commit: " + ", ".join(f"{k} {v['mean']*1000:.1f} ms (median {v['median']*1000:.1f})" for k, v in p.items()))
EOF
