#!/usr/bin/env bash
# Every row of the speed table of BENCHMARKS.md ("Goals"), measured in one run on one
# machine, side by side (issue 38):
#
#   1. the corpus (azureml-examples cli/) vs azure-ai-ml loading the same files;
#   2. the same vs yamllint -d relaxed;
#   3. instructions on the corpus, one thread (callgrind; repeatable whatever the load);
#   4. one job file of the 10,000-file monorepo (bench/monorepo.py) that names a compute
#      no file defines, as pre-commit runs it;
#   5. the corpus checked as a subfolder of a repository that also holds 4,000
#      Kubernetes manifests, against the corpus alone;
#   6. the 10,000-file monorepo, whole run: time and peak memory.
#
# Medians of paired runs (hyperfine runs the commands of a row alternately). No timed
# assertion anywhere: this prints figures; BENCHMARKS.md records them with the goals.
#
# Needs hyperfine, valgrind and GNU time (apt install hyperfine valgrind time). azure-ai-ml
# and yamllint come from a virtualenv: AMLINT_BENCH_VENV (default bench/.venv, created on
# first use from scripts/requirements-sdk.txt + yamllint). AMLINT=path measures a given
# binary instead of building this checkout. Results: bench/results/speed-*.json.
#
# Usage: bench/speed.sh [--quick]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
runs=15
[[ "${1:-}" == "--quick" ]] && runs=3

# shellcheck source=bench/corpus.sh
source "$here/corpus.sh"
for tool in hyperfine valgrind /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 2; }
done

venv="${AMLINT_BENCH_VENV:-$here/.venv}"
if [[ ! -x "$venv/bin/yamllint" || ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$repo/scripts/requirements-sdk.txt" yamllint
fi
have_sdk=1
"$venv/bin/python" -c 'import azure.ai.ml' 2>/dev/null || have_sdk=0

if [[ -n "${AMLINT:-}" ]]; then
  amlint="$(readlink -f "$AMLINT")"
else
  (cd "$repo" && cargo build --release --locked -q)
  amlint="$repo/target/release/amlint"
fi
out="$here/results"
work="$(mktemp -d)"
# The project cache of the runs measured here, apart from the user's own.
export AMLINT_CACHE_DIR="$work/cache"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
export AMLINT_TODAY=2026-11-22

median() { # FILE NAME -> median seconds of that command
  python3 -c 'import json,sys; r={x["command"]:x for x in json.load(open(sys.argv[1]))["results"]}; print(r[sys.argv[2]]["median"])' "$1" "$2"
}
ms() { python3 -c "print(f'{float(\"$1\")*1000:.1f}')"; }
ratio() { python3 -c "print(f'{float(\"$1\")/float(\"$2\"):.1f}')"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); amlint $("$amlint" --version | head -1)"

# Rows 1 and 2: the corpus.
cd "$corpus"
cmds=(-n amlint "$amlint check --no-config --format json --fail-on never cli"
      -n yamllint "$venv/bin/yamllint -f parsable -d relaxed cli")
hyperfine -N --warmup 2 --runs "$runs" -i --export-json "$out/speed-corpus.json" "${cmds[@]}" >/dev/null
a=$(median "$out/speed-corpus.json" amlint)
y=$(median "$out/speed-corpus.json" yamllint)
if [[ $have_sdk == 1 ]]; then
  hyperfine --warmup 1 --runs "$(( runs < 5 ? runs : 5 ))" -i --export-json "$out/speed-sdk.json" \
    -n azure-ai-ml "$venv/bin/python $repo/scripts/sdk_verdicts.py $work/sdk --corpus $corpus/cli" >/dev/null
  s=$(median "$out/speed-sdk.json" azure-ai-ml)
  echo "1. corpus vs azure-ai-ml: amlint $(ms "$a") ms, azure-ai-ml $(ms "$s") ms: $(ratio "$s" "$a")x (goal >= 200x)"
else
  echo "1. corpus vs azure-ai-ml: azure-ai-ml not installed in $venv: skipped"
fi
echo "2. corpus vs yamllint -d relaxed: amlint $(ms "$a") ms, yamllint $(ms "$y") ms: $(ratio "$y" "$a")x (goal >= 45x)"

# Row 3: instructions, one thread.
RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
  "$amlint" check --no-config --format json --fail-on never cli >/dev/null 2>"$work/cg.err" || true
ir=$(grep -o 'Collected : [0-9]*' "$work/cg.err" | grep -o '[0-9]*$')
echo "3. instructions, one thread: $(python3 -c "print(f'{$ir/1e6:.1f}')") M (goal <= 270 M)"

# Rows 4 and 6: the 10,000-file monorepo.
python3 "$here/monorepo.py" "$work/mono" --files 10000 --corpus "$corpus/cli" >/dev/null
cd "$work/mono"
cross_file="team-05/jobs/basics/hello-pipeline-abc.yml"
# The project cache (docs/cache.md) records only what has not changed for two seconds: a
# repository just generated would never be cached, one in use is. The first warm-up run
# writes the cache; the runs measured use it. The same run without a cache beside it.
sleep 2
hyperfine -N --warmup 3 --runs "$(( runs * 2 ))" -i --export-json "$out/speed-precommit.json" \
  -n one-file "$amlint check --fail-on never $cross_file" \
  -n one-file-no-cache "$amlint check --no-cache --fail-on never $cross_file" >/dev/null
p=$(median "$out/speed-precommit.json" one-file)
pn=$(median "$out/speed-precommit.json" one-file-no-cache)
echo "4. one file naming an undefined compute, 10,000-file repository: $(ms "$p") ms with the project cache, $(ms "$pn") ms without (goal < 50 ms)"
hyperfine -N --warmup 1 --runs "$runs" -i --export-json "$out/speed-monorepo.json" \
  -n whole "$amlint check --format json --fail-on never ." >/dev/null
w=$(median "$out/speed-monorepo.json" whole)
peak=$(/usr/bin/time -f '%M' "$amlint" check --format json --fail-on never . 2>&1 >/dev/null | tail -1)
echo "6. 10,000 files, whole run: $(ms "$w") ms, peak $(( peak / 1024 )) MB (goal <= 600 ms, < 100 MB)"

# Row 5: the corpus as a subfolder of a repository with 4,000 Kubernetes manifests.
mkdir -p "$work/alone" "$work/k8s"
cp -r "$corpus/cli" "$work/alone/cli" && git -C "$work/alone" init -q
cp -r "$corpus/cli" "$work/k8s/cli" && git -C "$work/k8s" init -q
python3 - "$work/k8s/deploy" <<'EOF'
import os, sys
root = sys.argv[1]
for i in range(4000):
    d = os.path.join(root, f"service-{i // 50:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"deployment-{i}.yaml"), "w") as f:
        f.write(f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: svc-{i}
  labels: {{app: svc-{i}, tier: backend}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: svc-{i}}}
  template:
    metadata:
      labels: {{app: svc-{i}}}
    spec:
      containers:
        - name: app
          image: registry.example.com/svc-{i}:1.{i % 17}.0
          resources:
            requests: {{cpu: 250m, memory: 256Mi}}
            limits: {{cpu: "1", memory: 512Mi}}
          env:
            - {{name: COMPUTE, value: cpu-cluster}}
            - {{name: MODE, value: production}}
---
apiVersion: v1
kind: Service
metadata:
  name: svc-{i}
spec:
  selector: {{app: svc-{i}}}
  ports: [{{port: 80, targetPort: 8080}}]
""")
EOF
sleep 2 # settled, so that the project cache records it (row 4)
hyperfine -N --warmup 2 --runs "$runs" -i --export-json "$out/speed-subfolder.json" \
  -n alone "$amlint check --no-config --format json --fail-on never $work/alone/cli" \
  -n with-k8s "$amlint check --no-config --format json --fail-on never $work/k8s/cli" >/dev/null
al=$(median "$out/speed-subfolder.json" alone)
k=$(median "$out/speed-subfolder.json" with-k8s)
echo "5. corpus as a subfolder beside 4,000 Kubernetes manifests: $(ms "$k") ms vs $(ms "$al") ms alone: $(ratio "$k" "$al")x (goal <= 1.2x)"
