#!/usr/bin/env python3
"""Generate the synthetic monorepo of BENCHMARKS.md from the azureml-examples corpus.

Copies the corpus's `cli/` tree (every file, so that `code:`, `conda_file:` and other
local paths still resolve) into `OUT/team-NN/` until the tree holds exactly `--files`
configuration files (.yml, .yaml, .json), changing names on the way: every top-level
`name:` and every `azureml:<name>` reference gets the suffix `tNN` (letters and digits are valid in every kind of name), so each copy defines
and uses its own computes, endpoints and models, as teams of one monorepo would. The last
copy is partial. `OUT` becomes a git work tree (one commit is not needed: amlint only looks
for `.git`), as under pre-commit.

Usage: bench/monorepo.py OUT [--files 10000] [--corpus ../shared/corpus/azureml-examples/cli]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
from pathlib import Path

CONFIG = (".yml", ".yaml", ".json")
NAME = re.compile(r"^(name:\s*)([A-Za-z0-9_.-]+)\s*$", re.M)
REF = re.compile(r"(azureml:)([A-Za-z][A-Za-z0-9_-]*)(?=[:@\s\"']|$)", re.M)


def default_corpus() -> Path:
    env = os.environ.get("AMLINT_CORPUS")
    if env:
        return Path(env) / "cli"
    here = Path(__file__).resolve().parent.parent
    for base in (here.parent / "shared", Path("/work/shared")):
        p = base / "corpus" / "azureml-examples" / "cli"
        if p.is_dir():
            return p
    raise SystemExit("corpus not found: pass --corpus or set AMLINT_CORPUS")


def rename(text: str, suffix: str) -> str:
    text = NAME.sub(lambda m: f"{m.group(1)}{m.group(2)}{suffix}", text)
    return REF.sub(lambda m: f"{m.group(1)}{m.group(2)}{suffix}", text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--corpus", type=Path, default=None)
    args = ap.parse_args()
    corpus = args.corpus or default_corpus()
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    configs = [p for p in files if p.suffix in CONFIG]
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    written = 0
    copy = 0
    while written < args.files:
        copy += 1
        suffix = f"t{copy:02d}"
        team = args.out / f"team-{copy:02d}"
        for p in files:
            is_config = p.suffix in CONFIG
            if is_config and written >= args.files:
                continue
            dest = team / p.relative_to(corpus)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if is_config:
                try:
                    dest.write_text(rename(p.read_text(encoding="utf-8"), suffix), encoding="utf-8")
                except UnicodeDecodeError:
                    shutil.copyfile(p, dest)
                written += 1
            else:
                shutil.copyfile(p, dest)
    subprocess.run(["git", "init", "-q", str(args.out)], check=True)
    print(f"{args.out}: {written} configuration files in {copy} copies of {len(configs)}")


if __name__ == "__main__":
    main()
