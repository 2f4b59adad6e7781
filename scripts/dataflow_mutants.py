#!/usr/bin/env python3
"""Wiring mutants of a corpus's pipelines, sweeps and command jobs, labelled by the Azure ML
SDK, against amlint's data-flow findings (docs/dataflow.md).

    python scripts/dataflow_mutants.py CORPUS_DIR AMLINT_BINARY [--max N] [--keep] [--json OUT]

Run it with the interpreter that has azure-ai-ml installed (the oracle). CORPUS_DIR is
copied to a temporary directory (never written); each mutant is written beside the file it
is made from (so relative `code:` and `component:` paths resolve as in the original), and:

- labelled by the SDK: `load_job(path)`, then `job._validate()` where the job has it (the
  SDK's local checks: what `az ml job create` refuses before sending the job); rejected =
  an exception or a failed validation;
- checked by amlint (one run over the copy, `--format json`): *flagged* when the mutant has
  an error- or warning-severity finding its original does not have (compared by code and
  message); *on the span* when such a finding covers the mutated text exactly (the
  `${{...}}` of a binding mutant; the step's `inputs:` key for a removed input).

Only files the SDK accepts unmutated are mutated. Operators: a misspelt step
(`parent.jobs.<step>`), a misspelt step output, a misspelt pipeline input or output
(`parent.inputs.x`), a misspelt placeholder of a command (`${{inputs.x}}`), a misspelt
search-space parameter, a misspelt binding root (`parent.job`, `input`), a removed step
input (missing required input when the component requires it), a literal of the wrong type
for a step input (`not-a-number` for a number; `10` for a step output binding, which a data
or model input refuses), and a step input fed by a literal pipeline input rewired to another
step's output (one that does not read from the step) (a value input fed a path). Deterministic: the same corpus gives the
same mutants.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

BINDING = re.compile(r"\$\{\{\s*([^\s}]*)\s*\}\}")
KINDS = ("pipelinejob", "sweepjob", "commandjob")


def kind_of(text: str) -> str | None:
    m = re.search(r"^\$schema:\s*\S*/(\w+)\.schema\.json", text, re.M)
    if m and m.group(1).lower() in KINDS:
        return m.group(1).lower()
    return None


def typo(name: str) -> str:
    """A deterministic misspelling: a middle letter dropped, or `x` appended to short names."""
    if len(name) > 4:
        i = len(name) // 2
        return name[:i] + name[i + 1:]
    return name + "x"


def mutants(text: str, kind: str):
    """(operator, mutant text, (start, end) of the mutated text in the mutant)."""
    found = list(BINDING.finditer(text))

    def replace_binding(m, new_expr, op):
        new = "${{" + new_expr + "}}"
        s, e = m.start(), m.end()
        return op, text[:s] + new + text[e:], (s, s + len(new))

    seen_ops = collections.Counter()

    def take(op):
        # At most two mutants of one operator per file.
        seen_ops[op] += 1
        return seen_ops[op] <= 2

    for m in found:
        parts = m.group(1).split(".")
        if parts[:2] == ["parent", "jobs"] and len(parts) >= 5 and parts[3] == "outputs":
            if take("misspelt-step"):
                yield replace_binding(m, ".".join(parts[:2] + [typo(parts[2])] + parts[3:]), "misspelt-step")
            if take("misspelt-output"):
                yield replace_binding(m, ".".join(parts[:4] + [typo(parts[4])] + parts[5:]), "misspelt-output")
            if take("misspelt-root"):
                yield replace_binding(m, ".".join(["parent", "job"] + parts[2:]), "misspelt-root")
        elif parts[:2] in (["parent", "inputs"], ["parent", "outputs"]) and len(parts) >= 3:
            if take("misspelt-parent-io"):
                yield replace_binding(m, ".".join(parts[:2] + [typo(parts[2])] + parts[3:]), "misspelt-parent-io")
        elif parts[0] in ("inputs", "outputs") and len(parts) >= 2:
            if take("undeclared-placeholder"):
                yield replace_binding(m, ".".join([parts[0], typo(parts[1])] + parts[2:]), "undeclared-placeholder")
            if take("misspelt-root"):
                yield replace_binding(m, ".".join([parts[0][:-1]] + parts[1:]), "misspelt-root")
        elif parts[0] == "search_space" and len(parts) >= 2:
            if take("misspelt-search-space"):
                yield replace_binding(m, ".".join([parts[0], typo(parts[1])] + parts[2:]), "misspelt-search-space")

    if kind != "pipelinejob":
        return
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    literal_inputs = literal_pipeline_inputs(lines)
    # The step each line belongs to (the keys under `jobs:`), the steps each step reads
    # (`${{parent.jobs.S.outputs.O}}` in it) and every such binding.
    step_of, reads, sources = [None] * len(lines), collections.defaultdict(set), []
    step, in_jobs = None, False
    for i, line in enumerate(lines):
        if re.match(r"^\S", line):
            in_jobs, step = line.startswith("jobs:"), None
        sm = re.match(r"^  ([A-Za-z_][\w-]*):\s*(#.*)?$", line)
        if in_jobs and sm:
            step = sm.group(1)
        step_of[i] = step
        if line.lstrip().startswith("#"):
            continue
        for b in BINDING.finditer(line):
            parts = b.group(1).split(".")
            if step and parts[:2] == ["parent", "jobs"] and len(parts) == 5 and parts[3] == "outputs":
                reads[step].add(parts[2])
                if b.group(0) not in sources:
                    sources.append(b.group(0))

    def depends(a, b):
        """Whether step `a` reads, directly or not, from step `b`."""
        seen, todo = set(), [a]
        while todo:
            s = todo.pop()
            if s == b:
                return True
            if s not in seen:
                seen.add(s)
                todo.extend(reads[s])
        return False

    for i, line in enumerate(lines):
        step = step_of[i]
        # A step input line: `      name: value` under an `inputs:` of a step (indent > 4).
        m = re.match(r"^(\s+)([A-Za-z_][\w-]*):\s*(\S.*)?$", line)
        if not m or len(m.group(1)) < 6:
            continue
        j = i - 1
        while j >= 0 and (not lines[j].strip() or lines[j].lstrip().startswith("#") or
                          len(re.match(r"^\s*", lines[j]).group(0)) >= len(m.group(1))):
            j -= 1
        if j < 0 or not re.match(r"^\s+inputs:\s*(#.*)?$", lines[j]):
            continue
        key = re.match(r"^(\s+)inputs", lines[j])
        key_span = (offsets[j] + len(key.group(1)), offsets[j] + len(key.group(1)) + len("inputs"))
        # Only single-line values (removing the line removes the whole input), and only
        # where another input stays (an empty `inputs:` is a schema error, not data flow).
        indent = lambda line: len(line) - len(line.lstrip())  # noqa: E731
        siblings, k = 0, j + 1
        while k < len(lines) and (not lines[k].strip() or indent(lines[k]) > indent(lines[j])):
            siblings += lines[k].strip() != "" and indent(lines[k]) == len(m.group(1))
            k += 1
        if (m.group(3) and not m.group(3).rstrip().endswith(":") and siblings >= 2
                and take("removed-input")):
            mutant = "".join(lines[:i] + lines[i + 1:])
            yield "removed-input", mutant, key_span
        value = (m.group(3) or "").split("#")[0].strip()
        start = offsets[i] + line.index(value, len(m.group(1)) + len(m.group(2)) + 1) if value else 0
        if re.fullmatch(r"-?\d+(\.\d+)?", value) and take("wrong-type"):
            new = "not-a-number"
            yield "wrong-type", text[:start] + new + text[start + len(value):], (start, start + len(new))
        whole = BINDING.fullmatch(value)
        parts = whole.group(1).split(".") if whole else []
        if parts[:2] == ["parent", "jobs"] and take("literal-into-data"):
            # A number where a step output (a path) was: refused for a data or model input.
            new = "10"
            yield "literal-into-data", text[:start] + new + text[start + len(value):], (start, start + len(new))
        if parts[:2] == ["parent", "inputs"] and len(parts) == 3 and parts[2] in literal_inputs:
            # A value input (fed a literal pipeline input) wired to the output of a step
            # that does not read from this one (no cycle).
            other = [b for b in sources if step and not depends(b.split(".")[2], step)]
            if other and take("output-into-value"):
                new = other[0]
                yield "output-into-value", text[:start] + new + text[start + len(value):], (start, start + len(new))


def literal_pipeline_inputs(lines):
    """The pipeline inputs given a literal value (`epochs: 10`) under the top-level `inputs:`."""
    names, inside = set(), False
    for k, line in enumerate(lines):
        if re.match(r"^\S", line):
            inside = line.startswith("inputs:")
            continue
        m = re.match(r"^  ([A-Za-z_][\w-]*):\s*([^\s#{\[&*|>][^#]*)?(#.*)?$", line)
        if inside and m and m.group(2) and not m.group(2).strip().startswith("${{"):
            names.add(m.group(1))
    return names


def sdk_verdicts(paths):
    """{path: (rejected, message)} from load_job + _validate."""
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")
    from azure.ai.ml import load_job  # noqa: PLC0415

    out = {}
    for p in paths:
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                job = load_job(str(p))
                validate = getattr(job, "_validate", None)
                result = validate() if validate else None
            if result is not None and not result.passed:
                out[p] = (True, str(result.error_messages)[:300])
            else:
                out[p] = (False, "")
        except Exception as e:  # noqa: BLE001 - any failure is a rejection
            out[p] = (True, f"{type(e).__name__}: {e}"[:300])
    return out


def amlint_findings(binary: str, root: Path):
    p = subprocess.run([binary, "check", "--no-config", "--format", "json", "--fail-on", "never", "."],
                       cwd=root, capture_output=True, text=True, check=False)
    if p.returncode not in (0, 1):
        sys.exit(f"amlint failed: {p.stderr[:500]}")
    by_file = collections.defaultdict(list)
    for d in json.loads(p.stdout)["diagnostics"]:
        by_file[str(root / d["path"].removeprefix("./"))].append(d)
    return by_file


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("binary")
    ap.add_argument("--max", type=int, default=2000, help="at most this many mutants")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy")
    ap.add_argument("--json", help="write every mutant's record here")
    args = ap.parse_args()
    binary = str(Path(args.binary).resolve())

    tmp = Path(tempfile.mkdtemp(prefix="amlint-mutants-"))
    root = tmp / "corpus"
    shutil.copytree(args.corpus, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    try:
        sources = []
        for p in sorted(root.rglob("*.y*ml")):
            if p.is_symlink() or not p.is_file():
                continue
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            kind = kind_of(text)
            if kind and "${{" in text or kind == "pipelinejob":
                sources.append((p, text, kind))
        originals = sdk_verdicts([p for p, _, _ in sources])
        records = []
        for p, text, kind in sources:
            if originals[p][0]:
                continue  # the SDK rejects the original: its mutants say nothing
            for n, (op, mutant, span) in enumerate(mutants(text, kind)):
                if len(records) >= args.max:
                    break
                path = p.with_name(f"{p.stem}__mut{n}{p.suffix}")
                path.write_text(mutant, encoding="utf-8")
                # amlint's offsets are bytes of UTF-8; the operators' are characters.
                start = len(mutant[:span[0]].encode("utf-8"))
                span = (start, start + len(mutant[span[0]:span[1]].encode("utf-8")))
                records.append({"path": path, "source": p, "op": op, "span": span})
        verdicts = sdk_verdicts([r["path"] for r in records])
        found = amlint_findings(binary, root)

        def key(d):
            return (d["code"], d["message"])

        stats = collections.defaultdict(collections.Counter)
        for r in records:
            rejected, message = verdicts[r["path"]]
            before = collections.Counter(key(d) for d in found.get(str(r["source"]), [])
                                         if d["severity"] in ("error", "warning"))
            new = []
            remaining = before.copy()
            for d in found.get(str(r["path"]), []):
                if d["severity"] not in ("error", "warning"):
                    continue
                if remaining[key(d)] > 0:
                    remaining[key(d)] -= 1
                else:
                    new.append(d)
            flagged = bool(new)
            on_span = any((d["range"]["start"]["offset"], d["range"]["end"]["offset"]) == tuple(r["span"]) for d in new)
            r.update(rejected=rejected, sdk=message, flagged=flagged, on_span=on_span,
                     codes=sorted({d["code"] for d in new}))
            label = "rejected" if rejected else "accepted"
            stats[(label, r["op"])].update(total=1, flagged=flagged, on_span=on_span)
            stats[(label, "all")].update(total=1, flagged=flagged, on_span=on_span)

        def pct(a, b):
            return f"{100 * a / b:.1f} %" if b else "-"

        accepted = [p for p, _, _ in sources if not originals[p][0]]
        false_errors = [(p, d) for p in accepted for d in found.get(str(p), [])
                        if d["code"].startswith("AML8") and d["severity"] == "error"]
        print(f"unmutated files the SDK accepts: {len(accepted)}; AML8xx errors on them: {len(false_errors)}")
        for p, d in false_errors:
            print("FALSE-ERROR", p.relative_to(root), d["code"], d["message"][:160])
        print(f"{len(records)} mutants of {len({r['source'] for r in records})} files")
        print(f"{'SDK':9} {'operator':24} {'mutants':>8} {'flagged':>9} {'on span':>9}")
        for (label, op), c in sorted(stats.items()):
            print(f"{label:9} {op:24} {c['total']:8} {pct(c['flagged'], c['total']):>9} {pct(c['on_span'], c['total']):>9}")
        for r in records:
            if r["rejected"] and not (r["flagged"] and r["on_span"]):
                print("MISSED" if not r["flagged"] else "OFF-SPAN", r["op"], r["path"].relative_to(root), r["codes"],
                      " ".join(r["sdk"].split())[:160])
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                for r in records:
                    f.write(json.dumps({**r, "path": str(r["path"].relative_to(root)),
                                        "source": str(r["source"].relative_to(root))}) + "\n")
    finally:
        if args.keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
