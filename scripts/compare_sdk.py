#!/usr/bin/env python3
"""How far amlint agrees with the Azure ML SDK (issue 3's acceptance figures).

Runs the amlint binary (`--format json`) over the corpus and over the mutants written by
`scripts/sdk_verdicts.py --mutate`, and compares with the SDK verdicts recorded there:

  1. SDK-accepted corpus files (with a schema): amlint must report no error-severity
     diagnostic on any of them. Every exception is listed.
  2. SDK-rejected files (corpus and mutants) whose SDK error class is schema, value or
     local-path: the share on which amlint reports an error (goal >= 95 %), and for mutants
     the share with an error at the edit (goal >= 90 %). "At the edit" is the edited line
     (the line of the mutated key or value); for a removed required key, whose line no
     longer exists, it is the AML104 finding that names that key on the mapping that lost
     it (its pointer). The strict line-only figure is printed too.
  3. SDK-accepted mutants (the SDK ignores some edits): amlint should not report an error.

Needs only the Python standard library and a built amlint (`cargo build --release`);
neither CI nor users run it.

Usage:
    /work/venv-sdk/bin/python scripts/sdk_verdicts.py /tmp/sdk-verdicts --mutate
    cargo build --release
    python3 scripts/compare_sdk.py /tmp/sdk-verdicts [--binary target/release/amlint]
        [--corpus /work/shared/corpus/azureml-examples/cli] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/shared/corpus/azureml-examples/cli")
JUDGED_CLASSES = {"schema", "value", "local-path"}


def run_amlint(binary: Path, root: Path) -> Dict[str, List[Dict[str, Any]]]:
    """Diagnostics by path relative to `root`."""
    proc = subprocess.run(
        [str(binary), "check", "--format", "json", "--quiet", "."],
        cwd=root, capture_output=True, text=True, check=False,
    )
    if proc.returncode not in (0, 1):
        sys.exit(f"amlint failed on {root} (exit {proc.returncode}):\n{proc.stderr[:2000]}")
    out: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
    for d in json.loads(proc.stdout).get("diagnostics", []):
        p = d["path"]
        out[p[2:] if p.startswith("./") else p].append(d)
    return out


def has_schema(kind: str) -> bool:
    return bool(kind) and (REPO / "schemas" / f"{kind}.schema.json").exists()


def errors(diags: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [d for d in diags if d["severity"] == "error"]


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.1f} %)" if b else f"{a}/0"


def at_edit(m: Dict[str, Any], errs: List[Dict[str, Any]]) -> bool:
    if any(d["range"]["start"]["line"] == m["line"] for d in errs):
        return True
    if m["mutation"] == "removed-required":
        # The removed line no longer exists: the finding belongs on the mapping that lost
        # the key (AML104 naming it, or AML102 when the mapping became empty, i.e. null).
        parent = m["json_pointer"].rpartition("/")[0]
        return any(d.get("pointer", None) == parent for d in errs)
    return False


def main(argv: List[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("verdicts", help="directory written by sdk_verdicts.py (verdicts.jsonl, mutants.jsonl, mutants/)")
    ap.add_argument("--binary", default=str(REPO / "target" / "release" / "amlint"))
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    ap.add_argument("--verbose", "-v", action="store_true", help="list every miss")
    args = ap.parse_args(argv)
    vdir, binary, corpus = Path(args.verdicts), Path(args.binary).resolve(), Path(args.corpus)
    if not binary.exists():
        sys.exit(f"{binary} does not exist: cargo build --release")

    verdicts = [json.loads(x) for x in (vdir / "verdicts.jsonl").read_text().splitlines() if x.strip()]
    ours = run_amlint(binary, corpus)

    # 1. corpus, SDK-accepted
    accepted = [r for r in verdicts if r.get("accepted") and has_schema(r.get("kind"))]
    false_pos = [r for r in accepted if errors(ours.get(r["path"], []))]
    print("== corpus: SDK-accepted files with a schema")
    cli_ep = sum(1 for r in accepted if r.get("endpoint_name_from_cli"))
    print(f"   {len(accepted)} files ({cli_ep} of them deployments loaded with --endpoint-name, as the CLI does)")
    print(f"   amlint reports an error on {len(false_pos)}")
    for r in false_pos:
        for d in errors(ours[r["path"]]):
            print(f"   - {r['path']}:{d['range']['start']['line']}: {d['code']} {d['message']}")

    # 2a. corpus, SDK-rejected
    rejected = [r for r in verdicts if r.get("accepted") is False and has_schema(r.get("kind"))
                and r.get("error_class") in JUDGED_CLASSES]
    caught = [r for r in rejected if errors(ours.get(r["path"], []))]
    print("== corpus: SDK-rejected files (schema, value, local-path)")
    print(f"   amlint reports an error on {pct(len(caught), len(rejected))}")
    for r in rejected:
        if r not in caught:
            print(f"   - missed {r['path']} [{r['kind']}, {r['error_class']}]: {(r.get('error') or '')[:200]!r}")

    # 2b/3. mutants
    mpath = vdir / "mutants.jsonl"
    if not mpath.exists():
        print("(no mutants.jsonl: run sdk_verdicts.py --mutate)")
        return 0 if not false_pos else 1
    mutants = [json.loads(x) for x in mpath.read_text().splitlines() if x.strip()]
    mours = run_amlint(binary, vdir / "mutants")
    judged = [m for m in mutants if m.get("accepted") is False and m.get("error_class") in JUDGED_CLASSES]
    hit = [m for m in judged if errors(mours.get(m["path"], []))]
    on_line = [m for m in judged if any(d["range"]["start"]["line"] == m["line"] for d in errors(mours.get(m["path"], [])))]
    at = [m for m in judged if at_edit(m, errors(mours.get(m["path"], [])))]
    print("== mutants the SDK rejects (schema, value, local-path)")
    print(f"   amlint reports an error on {pct(len(hit), len(judged))}")
    print(f"   ... at the edit on {pct(len(at), len(judged))} (strictly on the edited line: {pct(len(on_line), len(judged))})")
    by = defaultdict(Counter)
    for m in judged:
        c = by[m["mutation"]]
        c["n"] += 1
        es = errors(mours.get(m["path"], []))
        c["error"] += bool(es)
        c["at_edit"] += at_edit(m, es)
    for mut, c in sorted(by.items()):
        print(f"   {mut:22s} {c['n']:5d}  error {pct(c['error'], c['n']):>20s}  at the edit {pct(c['at_edit'], c['n']):>20s}")
    misses = [m for m in judged if not at_edit(m, errors(mours.get(m["path"], [])))]
    shown = misses if args.verbose else misses[:25]
    for m in shown:
        got = [f"{d['range']['start']['line']}:{d['code']}" for d in errors(mours.get(m["path"], []))]
        print(f"   - {m['path']}:{m['line']} [{m['mutation']}, {m['error_class']}] {m['description']} -> amlint {got or 'nothing'}")
    if len(misses) > len(shown):
        print(f"   ... {len(misses) - len(shown)} more (--verbose)")

    acc = [m for m in mutants if m.get("accepted")]
    acc_fp = [m for m in acc if errors(mours.get(m["path"], []))]
    print("== mutants the SDK accepts")
    print(f"   {len(acc)} mutants; amlint reports an error on {len(acc_fp)}")
    for m in acc_fp:
        for d in errors(mours[m["path"]]):
            print(f"   - {m['path']}:{d['range']['start']['line']}: {d['code']} {d['message']} ({m['description']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
