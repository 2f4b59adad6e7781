#!/usr/bin/env python3
"""Compare amlint with the Azure ML SDK on a labelled corpus of real repositories.

A corpus is a folder of `<owner>+<repo>/` folders (each repository's files at their
original paths) and an `oracle.jsonl` of the SDK's verdict on each file, as
`../shared/realworld` is laid out (its README; `../shared/oracle/aml_oracle.py` labels any
folder). This script runs amlint as a user would — `amlint check --no-config --format json
--fail-on never .` in a copy of each repository outside any git work tree — and prints per
file what `tests/it/realworld.rs` asserts for `../shared/realworld`:

  false error  an error-severity AML0xx-AML2xx finding on a file the SDK accepts, or an
               error finding on a file that is not an Azure ML entity (verdict unknown-kind)
  miss         a file the SDK rejects (not only for a `name` the CLI takes as a flag) with
               no such finding; unrendered templates (`{{...}}`) and kinds amlint does not
               check by design (prompt flow) are counted apart
  skip         a file the SDK loads that amlint does not check (--show-files)
  crash        an AML000

Disagreements judged by hand in the corpus's `adjudication.json` are shown as such.

Usage: scripts/realworld_compare.py CORPUS [--amlint PATH] [--show]
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import tempfile

NOT_CHECKED = ("promptflowFlow", "promptflowRun")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--amlint", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "amlint"))
    ap.add_argument("--show", action="store_true", help="list every disagreement")
    args = ap.parse_args()
    args.amlint = os.path.abspath(args.amlint)
    oracle = [json.loads(l) for l in open(os.path.join(args.corpus, "oracle.jsonl"))]
    adjudicated = collections.defaultdict(list)
    adj_path = os.path.join(args.corpus, "adjudication.json")
    if os.path.exists(adj_path):
        for a in json.load(open(adj_path)):
            adjudicated[a["path"]].append(a)
    findings = collections.defaultdict(list)
    status = {}
    with tempfile.TemporaryDirectory() as tmp:
        for repo in sorted(os.listdir(args.corpus)):
            src = os.path.join(args.corpus, repo)
            if not os.path.isdir(src) or repo.startswith("_"):
                continue
            dst = os.path.join(tmp, repo)
            shutil.copytree(src, dst, symlinks=True)
            env = dict(os.environ, AMLINT_TODAY="2026-11-25")
            out = subprocess.run([args.amlint, "check", "--no-config", "--format", "json", "--fail-on", "never", "."],
                                 cwd=dst, capture_output=True, text=True, env=env)
            if out.returncode != 0:
                print(f"EXIT {out.returncode} in {repo}: {out.stderr[:300]}")
                continue
            for d in json.loads(out.stdout)["diagnostics"]:
                findings[f"{repo}/{d['path'].removeprefix('./')}"].append(d)
            out = subprocess.run([args.amlint, "check", "--no-config", "--show-files", "."],
                                 cwd=dst, capture_output=True, text=True, env=env)
            for line in out.stdout.splitlines():
                path, _, what = line.partition(": ")
                status[f"{repo}/{path.removeprefix('./')}"] = what

    def errors(path):
        return [d for d in findings.get(path, []) if d["severity"] == "error" and d["code"][:4] in ("AML0", "AML1", "AML2")]

    rows = collections.defaultdict(list)
    counts = collections.Counter()
    for r in oracle:
        path, verdict = r["path"], r["verdict"]
        counts[verdict] += 1
        if any(d["code"] == "AML000" for d in findings.get(path, [])):
            rows["crash"].append(path)
        adj = " (adjudicated: " + "; ".join(a["right"] for a in adjudicated[path]) + ")" if adjudicated.get(path) else ""
        if verdict == "ok":
            if not status.get(path, "").startswith("checked as "):
                rows["skip"].append(f"{path}: {status.get(path, 'not listed')}")
            e = errors(path)
            if e:
                rows["false error"].append(f"{path}{adj}: " + "; ".join(f"{d['code']} line {d['range']['start']['line']}: {d['message'][:140]}" for d in e))
        elif verdict == "unknown-kind":
            e = [d for d in findings.get(path, []) if d["severity"] == "error"]
            if e:
                rows["false error"].append(f"{path} (not an Azure ML entity){adj}: " + "; ".join(f"{d['code']}: {d['message'][:140]}" for d in e))
        elif verdict in ("error", "yaml-error") and not r.get("ok_with_cli_args"):
            counts["rejected"] += 1
            if errors(path):
                continue
            text = open(os.path.join(args.corpus, path), errors="replace").read()
            message = (r.get("message") or "")[:160].replace("\n", " ")
            if "{{" in text:
                rows["template"].append(path)
            elif r["kind"] in NOT_CHECKED:
                rows["not checked by design"].append(f"{path} ({r['kind']}): {status.get(path, '')}")
            else:
                rows["miss"].append(f"{path} ({r['kind']}){adj}: the SDK says {message}")
    print(f"{len(oracle)} files: {counts['ok']} accepted, {counts['rejected']} rejected, "
          f"{counts['unknown-kind']} not Azure ML entities")
    for kind in ("false error", "miss", "template", "not checked by design", "skip", "crash"):
        print(f"  {kind}: {len(rows[kind])}")
    if args.show:
        for kind in ("false error", "miss", "not checked by design", "skip", "crash"):
            for row in rows[kind]:
                print(f"{kind.upper()}: {row}")


if __name__ == "__main__":
    main()
