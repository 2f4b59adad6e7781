#!/usr/bin/env bash
# How amlint's time grows with each dimension of a hostile input (docs/security.md): for
# each, an input of size n and one of 10n, timed with hyperfine on the release binary.
# A linear step makes the larger input take about 10x as long (less, where start-up
# counts); a quadratic one, about 100x.
#
#   findings     a file with n repeated keys (an AML002 each; 1,000 reported per file)
#   documents    a file of n YAML documents, each with a finding
#   suppressions n unused suppression comments before 1,000 findings
#   files        n files of 100 findings each (human output: 100n findings printed)
#   line         n duplicate keys on one line beside an n x 1,000-byte line
#   globs        n exclude patterns (and n per-file ignores) over 200 files
#   tfmodule     a Terraform directory of n files, each a module call, beside a compute
#                cluster (every file of a module reads the others: eval7 case 01)
#   keys         a compute file of n keys it does not allow, each written twice (an
#                AML002 and an unknown-key error each; each finding's rename and removal
#                edits look up where the key is written)
#
# Usage: bench/scaling.sh [--quick]   (results in bench/results/scaling.md)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
runs=5
[[ "${1:-}" == "--quick" ]] && runs=2
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 2; }
(cd "$repo" && cargo build --release --locked -q)
bin="$repo/target/release/amlint"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/results"
out="$here/results/scaling.md"

python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
JOB = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:e:1\ncompute: local\n"
def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
for label, n in (("small", 1), ("large", 10)):
    base = os.path.join(work, label)
    write(f"{base}/findings/a.yml", JOB + "tags: {}\n" * (20_000 * n))
    write(f"{base}/documents/a.yml", JOB + "---\nname: x\nname: y\n" * (2_000 * n))
    write(f"{base}/suppressions/a.yml", JOB + "# amlint: ignore[AML003]\n" * (10_000 * n) + "tags: {}\n" * 1_000)
    for i in range(20 * n):
        write(f"{base}/files/f{i}.yml", JOB + "tags: {}\n" * 101)
    keys = "a: 1, " * (100 * n)
    write(f"{base}/line/a.yml", JOB + "description: " + "x" * (100_000 * n) + "\ntags: {" + keys + "b: 2}\n")
    g = os.path.join(base, "globs")
    pats = ", ".join(f'"dir{i}/**"' for i in range(900 * n))
    ignores = "".join(f'"jobs{i}/*.yml" = ["AML003"]\n' for i in range(900 * n))
    write(f"{g}/amlint.toml", f"exclude = [{pats}]\n[per-file-ignores]\n{ignores}")
    for i in range(200):
        write(f"{g}/job{i}.yml", JOB + "compute: local\n")
    t = os.path.join(base, "tfmodule")
    write(f"{t}/ml.tf", 'resource "azurerm_machine_learning_compute_cluster" "gpu" {\n  name = "gpu-cluster"\n  vm_size = "Standard_NC6"\n  vm_priority = "Dedicated"\n  machine_learning_workspace_id = "x"\n  location = "westeurope"\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 1\n    scale_down_nodes_after_idle_duration = "PT5M"\n  }\n}\n')
    for i in range(150 * n):
        write(f"{t}/f{i}.tf", f'module "m{i}" {{\n  source = "./modules/m{i}"\n}}\n')
    compute = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\n"
    write(f"{base}/keys/compute.yml", compute + "".join(f"key_{i % (3_000 * n)}: {i}\n" for i in range(6_000 * n)))
PY

{
  echo "# Scaling of hostile inputs ($(date -u +%Y-%m-%d), $(nproc) cores, $(git -C "$repo" rev-parse --short HEAD))"
  echo
  echo "| dimension | n | 10n | ratio |"
  echo "|---|---|---|---|"
} > "$out"
for dim in findings documents suppressions files line globs tfmodule keys; do
  args=(--no-config --fail-on never --max-file-size 100000000)
  [[ "$dim" == globs ]] && args=(--fail-on never)
  hyperfine -N -w 1 -r "$runs" --export-json "$work/$dim.json" \
    "$bin check ${args[*]} $work/small/$dim" "$bin check ${args[*]} $work/large/$dim" >/dev/null
  python3 - "$work/$dim.json" "$dim" >> "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["median"], r[1]["median"]
print(f"| {sys.argv[2]} | {a*1000:.0f} ms | {b*1000:.0f} ms | {b/a:.1f}x |")
PY
done
cat "$out"
