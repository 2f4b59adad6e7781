#!/usr/bin/env python3
"""Which keys does the Azure ML SDK require that amlint's schemas do not?

For every file of the given corpora that the SDK accepts (kind from schemas/kinds.yaml via
scripts/amlkinds.py, loader and verdict from scripts/sdk_verdicts.py), write one mutant per
mapping key (top level and one level down) with that key deleted, ask the SDK again, then
run amlint on all mutants at once. A mutant the SDK rejects and amlint passes (no
error-severity AML0xx-AML2xx finding) is a required key the schemas miss. Results are
grouped by kind and key path (pipeline step names, input names and list indices become
`*`), with the SDK's message.

The mutants live in a copy of each corpus (relative paths resolve as in the original) under
OUT; the corpora are never written. A key path already tested `--per-pattern` times
(default 3) for a kind is not tested again, which keeps the run to minutes.

Usage (with the SDK venv; an amlint binary built from this tree):
    /work/venv/bin/python scripts/required_keys.py OUT AMLINT CORPUS... [--per-pattern N]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

warnings.filterwarnings("ignore")

import yaml  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from amlkinds import Classifier, iter_config_files  # noqa: E402
import sdk_verdicts  # noqa: E402


def deletions(text: str) -> List[Tuple[Tuple[str, ...], str]]:
    """(key path, text without that key) for every key of a block mapping at depth 1 or 2
    whose entry spans whole lines; a key that is its mapping's only key is left alone."""
    try:
        root = yaml.compose(text)
    except Exception:
        return []
    lines = text.splitlines(keepends=True)
    out: List[Tuple[Tuple[str, ...], str]] = []

    def visit(node: Any, path: Tuple[str, ...], depth: int) -> None:
        if not isinstance(node, yaml.MappingNode) or node.flow_style or depth > 2:
            return
        if len(node.value) < 2 and depth > 1:
            return
        for k, v in node.value:
            if not isinstance(k, yaml.ScalarNode):
                continue
            start = k.start_mark.line
            # A key that does not start its line (`- name: x`, the first key of a list item)
            # cannot be cut by lines.
            if lines[start][: k.start_mark.column].strip():
                continue
            end = v.end_mark.line + (0 if v.end_mark.column == 0 else 1)
            out.append((path + (k.value,), "".join(lines[:start] + lines[end:])))
            if isinstance(v, yaml.MappingNode):
                visit(v, path + (k.value,), depth + 1)

    visit(root, (), 1)
    return out


def without(doc: Any, path: Tuple[str, ...]) -> Any:
    import copy

    d = copy.deepcopy(doc)
    cur = d
    for p in path[:-1]:
        cur = cur[p]
    del cur[path[-1]]
    return d


def pattern(kind: str, path: Tuple[str, ...]) -> str:
    parts = list(path)
    # Names the author chose: pipeline steps, inputs/outputs, traffic entries, ...
    for i, p in enumerate(parts[:-1]):
        if p in ("jobs", "inputs", "outputs", "traffic", "search_space", "tags", "properties",
                 "environment_variables", "mirror_traffic", "collections") and i + 1 < len(parts):
            parts[i + 1] = "*"
    return f"{kind}:/" + "/".join(parts)


def amlint_errors(binary: str, root: Path) -> Dict[str, List[str]]:
    p = subprocess.run([binary, "check", "--no-config", "--format", "json", "--fail-on", "never", "."],
                       cwd=root, capture_output=True, text=True)
    out: Dict[str, List[str]] = collections.defaultdict(list)
    for d in json.loads(p.stdout)["diagnostics"]:
        if d["severity"] == "error" and d["code"][:4] in ("AML0", "AML1", "AML2"):
            out[d["path"].removeprefix("./")].append(f"{d['code']} {d['message'][:100]}")
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("amlint")
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--per-pattern", type=int, default=3)
    args = ap.parse_args(argv)
    out = Path(args.out)
    binary = os.path.abspath(args.amlint)
    clf = Classifier()
    sdk_verdicts.block_network()
    tested: Dict[str, int] = collections.Counter()
    records: List[Dict[str, Any]] = []
    for corpus in args.corpus:
        src = Path(corpus).resolve()
        dst = out / src.name
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst, symlinks=True)
        for path in iter_config_files(dst):
            if ".mut-" in path.name or "/_build/" in path.as_posix():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            doc, err = sdk_verdicts.read_doc(path)
            if err is not None or not isinstance(doc, dict):
                continue
            kind, family, _ = clf.classify(doc, path.name)
            if kind is None or kind not in sdk_verdicts.LOADERS or clf.is_skipped_family(family):
                continue
            if not sdk_verdicts.sdk_verdict(path, kind, doc=doc)["accepted"]:
                continue
            for n, (key_path, mutant_text) in enumerate(deletions(text)):
                pat = pattern(kind, key_path)
                if tested[pat] >= args.per_pattern:
                    continue
                try:
                    if yaml.safe_load(mutant_text) != without(doc, key_path):
                        continue
                except Exception:
                    continue
                tested[pat] += 1
                mpath = path.with_name(f"{path.stem}.mut-{n}{path.suffix}")
                mpath.write_text(mutant_text, encoding="utf-8")
                mdoc = without(doc, key_path)
                v = sdk_verdicts.sdk_verdict(mpath, kind, doc=mdoc)
                records.append({"corpus": src.name, "path": mpath.relative_to(dst).as_posix(), "kind": kind,
                                "deleted": "/".join(key_path), "pattern": pat, "accepted": v["accepted"],
                                "error": v["error"], "error_class": v["error_class"]})
        errors = amlint_errors(binary, dst)
        for r in records:
            if r["corpus"] == src.name:
                r["amlint"] = errors.get(r["path"], [])
    (out / "required_keys.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    # The misses, by pattern.
    missed: Dict[str, List[Dict[str, Any]]] = collections.defaultdict(list)
    for r in records:
        if r["accepted"] is False and r["error_class"] != "local-path" and not r["amlint"]:
            missed[r["pattern"]].append(r)
    print(f"{len(records)} mutants ({len(tested)} key paths); the SDK rejects "
          f"{sum(1 for r in records if r['accepted'] is False)}; amlint passes {sum(len(v) for v in missed.values())} of those:")
    for pat, rs in sorted(missed.items()):
        msg = re.sub(r"\s+", " ", rs[0]["error"] or "")[:160]
        print(f"  {pat}  ({len(rs)}x, e.g. {rs[0]['corpus']}/{rs[0]['path']}): {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
