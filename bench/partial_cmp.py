#!/usr/bin/env python3
"""Compare one-file and subfolder runs of two amlint binaries (issue 38 output identity).
usage: bench/partial_cmp.py OLD NEW N DIR...   (each DIR is copied to /tmp/pc/<name> as a git root)
For each DIR: up to N files whose text mentions 'compute' (YAML/JSON), each run alone, plus the
folder of the first as a subfolder run. OLD runs with --no-cache; NEW runs with a cache, cold then
warm. Prints differences; exit 1 if any."""
import os, shutil, subprocess, sys, tempfile
old, new, n, dirs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
root = "/tmp/pc"; os.makedirs(root, exist_ok=True)
bad = runs = 0
def run(binary, cwd, target, cache):
    env = dict(os.environ)
    args = [binary, "check", "--format", "json", "--fail-on", "never", target]
    if cache is None: args.insert(2, "--no-cache")
    else: env["AMLINT_CACHE_DIR"] = cache; env["AMLINT_CACHE_SETTLE_MS"] = "0"
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, timeout=300)
    return p.returncode, p.stdout
for d in [x for x in dirs if os.path.isdir(x)]:
    name = os.path.basename(d.rstrip("/"))
    dst = os.path.join(root, name)
    if not os.path.exists(dst):
        shutil.copytree(d, dst, symlinks=True)
        subprocess.run(["git", "init", "-q"], cwd=dst)
    picks = []
    for base, ds, fs in os.walk(dst):
        ds[:] = sorted(x for x in ds if x != ".git")
        for f in sorted(fs):
            if f.endswith((".yml", ".yaml", ".json")):
                p = os.path.join(base, f)
                try:
                    if b"compute" in open(p, "rb").read(200000): picks.append(os.path.relpath(p, dst))
                except OSError: pass
    picks = picks[:n]
    targets = picks + ([os.path.dirname(picks[0]) or "."] if picks else [])
    cache = tempfile.mkdtemp(prefix="pcc-")
    for t in targets:
        ref = run(old, dst, t, None)
        for label in ("cold", "warm"):
            got = run(new, dst, t, cache)
            runs += 1
            if got != ref:
                bad += 1
                print(f"DIFF {name} {t} ({label}): rc {ref[0]} vs {got[0]}")
    shutil.rmtree(cache, ignore_errors=True)
print(f"{runs} runs, {bad} differ")
sys.exit(1 if bad else 0)
