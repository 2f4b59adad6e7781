#!/usr/bin/env python3
"""The differential harness between amlint's YAML loader and PyYAML's `yaml.safe_load`
(pure Python SafeLoader), what the Azure ML CLI and SDK read every YAML file with.

    python scripts/yaml_pyyaml_diff.py table
        Generates the cases (the YAML constructs where a YAML 1.2 parser and PyYAML
        disagree, crossed with indentations, line-break kinds and positions, plus a
        seeded random sample of YAML-like text), runs PyYAML on each exactly as the SDK
        opens a file (`open(path, encoding="utf-8-sig")`: a leading BOM dropped,
        universal newlines) and writes tests/data/yaml_pyyaml_cases.tsv, which
        tests/it/yaml_pyyaml_diff.rs replays against amlint's loader.

    python scripts/yaml_pyyaml_diff.py random N SEED AMLINT_YAML_CANON
        Compares amlint (the binary of `cargo build --release --example yaml_canon`) with
        PyYAML on N more random YAML-like texts of the given seed, as the test compares
        the table, and prints every disagreement (nothing is written).

    python scripts/yaml_pyyaml_diff.py mutate N SEED AMLINT_YAML_CANON
        The same with N mutants of the corpora's files (characters inserted, deleted or
        replaced, lines indented or dedented or joined, line breaks changed).

    python scripts/yaml_pyyaml_diff.py fuzzed DIR AMLINT_YAML_CANON
        The same with the YAML texts the `yaml_structured` fuzz target makes of the
        files of DIR (a corpus grown by fuzzing), up to 100 KB each.

    python scripts/yaml_pyyaml_diff.py corpus [AMLINT_YAML_CANON]
        Runs PyYAML on every .yml/.yaml file of the real corpora (../shared/corpus,
        ../shared/realworld, ../owncorpus; outside the repository) and writes the files
        it refuses to tests/data/yaml_pyyaml_corpus_failures.tsv (paths only, never the
        files), which tests/it/yaml_pyyaml_diff.rs uses to assert that amlint loads
        every other file. Given the binary of `cargo build --release --example
        yaml_canon`, it also compares amlint's values with PyYAML's on every file and
        prints each disagreement.

Needs PyYAML (any venv with it; /work/venv/bin/python here).

Table format (one case a line, tab-separated): name, the input as a JSON string,
verdict, payload.
- verdict `ok`: payload is the JSON list of the stream's documents in the canonical
  form below (what `yaml.safe_load_all` returns);
- verdict `error`: payload is a JSON object {class, problem, line, column, context}
  (line and column 1-based, PyYAML's problem mark; null when the error has none);
- verdict `recursive`: PyYAML builds a self-containing structure (an alias inside its
  own anchor), which amlint refuses by design (AML005).

Canonical values: every scalar is a string with a type prefix: `n` None, `b1`/`b0`
bools, `i<digits>` ints, `f<repr>` floats, `s<text>` strings, `t` dates and times
(their value is PyYAML's resolution of the text, checked by yaml11_cases.tsv); bytes
(`!!binary`) are the string of their base64 text, which amlint keeps. A list is a JSON array; a dict a JSON object keyed by its keys' canonical
strings (a Python dict keeps the first of equal keys, `1`, `1.0` and `True`, with the
last value); a set is an object of `n` values; the pairs of `!!omap` and `!!pairs` are
one-key objects; a lone surrogate (`"\\ud800"`) is U+FFFD.
"""
import base64
import datetime
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "tests/data/yaml_pyyaml_cases.tsv"
CORPUS_FAILURES = REPO / "tests/data/yaml_pyyaml_corpus_failures.tsv"
CORPORA = {
    "corpus": REPO.parent / "shared/corpus",
    "realworld": REPO.parent / "shared/realworld",
    "owncorpus": REPO.parent / "owncorpus",
}

BREAKS = {"lf": "\n", "crlf": "\r\n", "cr": "\r", "nel": "\x85", "ls": "\u2028", "ps": "\u2029"}


class Recursive(Exception):
    pass


def canon(v, path=()):
    if id(v) in path:
        raise Recursive()
    if v is None:
        return "n"
    if isinstance(v, bool):
        return "b1" if v else "b0"
    if isinstance(v, int):
        try:
            return f"i{v}"
        except ValueError:
            # Over 4,300 digits: Python cannot print it, and amlint keeps it as written.
            return "i<huge>"
    if isinstance(v, float):
        return f"f{v!r}"
    if isinstance(v, str):
        # A `\ud800` escape makes a lone surrogate, which no UTF-8 text (nor a Rust
        # string) holds: amlint reads it as U+FFFD.
        return "s" + "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return "t"
    if isinstance(v, bytes):
        # amlint keeps a `!!binary` value as its base64 text (checked valid).
        return "s" + base64.b64encode(v).decode("ascii")
    inner = path + (id(v),)
    if isinstance(v, tuple):
        return {canon(v[0], inner): canon(v[1], inner)}
    if isinstance(v, list):
        return [canon(x, inner) for x in v]
    if isinstance(v, dict):
        return {canon(k, inner): canon(x, inner) for k, x in v.items()}
    if isinstance(v, (set, frozenset)):
        return {canon(k, inner): "n" for k in v}
    raise TypeError(f"unexpected {type(v)}")


def pyyaml(data: bytes):
    """(verdict, payload) of PyYAML on `data`, read as the SDK reads a file."""
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig")
    try:
        docs = list(yaml.load_all(stream, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        return "error", {
            "class": type(e).__name__,
            "problem": e.problem,
            "line": mark.line + 1 if mark else None,
            "column": mark.column + 1 if mark else None,
            "context": e.context,
        }
    except yaml.reader.ReaderError as e:
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig").read()
        line, column = position(text, e.position)
        return "error", {
            "class": "ReaderError",
            "problem": f"unacceptable character #x{e.character:04x}: {e.reason}",
            "line": line,
            "column": column,
            "context": None,
        }
    except Exception as e:  # noqa: BLE001 - ValueError, AttributeError...: the CLI fails too
        return "error", {"class": type(e).__name__, "problem": str(e), "line": None, "column": None, "context": None}
    try:
        return "ok", [canon(d) for d in docs]
    except Recursive:
        return "recursive", None


def position(text, index):
    """PyYAML's 1-based line and column of the character `index` of `text`."""
    line, column = 0, 0
    for i, ch in enumerate(text[:index]):
        if ch in "\n\x85\u2028\u2029" or (ch == "\r" and text[i + 1 : i + 2] != "\n"):
            line, column = line + 1, 0
        elif ch != "\ufeff":
            column += 1
    return line + 1, column + 1


# --- Generated cases -------------------------------------------------------------------

# Multi-line values: `¶` separates lines; every line after the first is indented by the
# case's continuation indentation. The first line follows `key: `.
MULTILINE = {
    # The reported defect (issue 20) and its relatives.
    "dq-escaped-breaks": '"\\nGoal: {{goal}}\\n\\¶Answer options:\\n\\¶done"',
    "dq-fold": '"a¶b"',
    "dq-escape-break": '"a\\¶b"',
    "dq-escape-break-spaces": '"a \\¶  b"',
    "dq-blank-line": '"a¶¶b"',
    "dq-two-blank-lines": '"a¶¶¶b"',
    "dq-trailing-spaces": '"a  ¶  b  "',
    "dq-close-next-line": '"a¶"',
    "dq-hash": '"a¶#b"',
    "dq-dash": '"a¶- b"',
    "dq-colon": '"a¶b: c"',
    "dq-tab-indent": '"a¶\tb"',
    "sq-fold": "'a¶b'",
    "sq-blank-line": "'a¶¶b'",
    "sq-quote": "'it''s¶x'",
    "sq-close-next-line": "'a¶'",
    "sq-hash": "'a¶# b'",
    "plain-fold": 'a¶b',
    "plain-blank-line": 'a¶¶b',
    "plain-three": 'a¶b¶c',
    "plain-colon": 'a¶b: c',
    "plain-dash": 'a¶- b',
    "plain-comment-line": 'a¶# c¶b',
    "plain-comment-after": 'a #c¶b',
    "plain-comment-end": 'a¶b #c',
    "plain-colon-start": 'a¶:b',
    "plain-question": 'a¶? b',
    "plain-url": 'http://x¶y',
    "flow-seq-after-comma": '[a,¶b]',
    "flow-seq-comma-next": '[a¶, b]',
    "flow-seq-open": '[¶a]',
    "flow-seq-close": '[a,¶]',
    "flow-seq-nested": '[[a,¶b]]',
    "flow-seq-plain-fold": '[a¶b]',
    "flow-seq-comment": '[a, # c¶b]',
    "flow-map-after-comma": '{x: 1,¶y: 2}',
    "flow-map-open": '{¶x: 1}',
    "flow-map-colon-next": '{x¶: 1}',
    "flow-map-value-next": '{x:¶1}',
    "flow-map-in-seq": '[{x: 1,¶y: 2}]',
    "flow-map-seq": '{x: [1,¶2]}',
    "flow-seq-pair": '[x:¶1]',
    "flow-dq-key": '{"x"¶: 1}',
    "flow-seq-key-value": '[? a¶: b]',
    "literal": '|¶a¶b',
    "literal-keep": '|+¶a¶¶',
    "literal-strip": '|-¶a¶b',
    "literal-indicator": '|2¶a¶b',
    "folded": '>¶a¶b¶¶c',
    "folded-more": '>¶a¶  b¶c',
    "anchor-then-value": '&x¶a',
    "tag-then-value": '!!str¶a',
    "empty-then-seq": '¶- a¶- b',
    "empty-then-map": '¶x: 1¶y: 2',
    "empty-then-comment": '¶# c¶x: 1',
}

# How a value sits in its document. {V} is the value's first line; continuation lines
# are appended with their own indentation. `col` is the key's column.
WRAPPERS = {
    "root": ("{V}", "", -1),
    "map0": ("k: {V}", "next: 1", 0),
    "map2": ("a:\n  k: {V}", "  next: 1\nz: 2", 2),
    "seq0": ("- {V}", "- next", 0),
    "seqmap": ("a:\n  - k: {V}", "    next: 1", 4),
    "indentless": ("a:\n- k: {V}", "  next: 1", 2),
    "flowmap": ("a: {k: {V}", "  , next: 1}", 0),
    "flowseq": ("a: [{V}", "  , next]", 0),
}


def multiline_cases():
    out = {}
    for wname, (head, tail, col) in WRAPPERS.items():
        for tname, template in MULTILINE.items():
            first, *rest = template.split("¶")
            for d in range(-4, 5):
                indent = max(0, col + d)
                lines = [head.replace("{V}", first)]
                lines += [(" " * indent + r) if r else "" for r in rest]
                if tail:
                    lines.append(tail)
                text = "\n".join(lines) + "\n"
                name = f"ml/{wname}/{tname}/ind{indent}"
                out.setdefault(text, name)
                if d in (0, 2):
                    for bname, br in BREAKS.items():
                        if bname == "lf":
                            continue
                        out.setdefault(text.replace("\n", br), f"{name}/{bname}")
    return out


TABS = [
    "a:\tb\n", "a:\t\tb\n", "a: \tb\n", "a\t: b\n", "a:\t\n  b: 1\n", "a:\n\tb: 1\n", "a:\n \tb: 1\n",
    "a:\n  b: 1\n\t\n", "-\ta\n", "- \ta\n", "-\t- a\n", "a: [b,\tc]\n", "a: [\tb]\n", "a: {\tb: 1}\n",
    "a: {b:\t1}\n", "a: {b\t: 1}\n", "a: b\tc\n", "a: b \t c\n", "a: b\t\n", "a: b\t# c\n", "a: b #\tc\n",
    "a: 'b\tc'\n", "a: \"b\tc\"\n", "a: \"b\\\tc\"\n", "a: |\n\tb\n", "a: |\n  b\n\tc\n", "a: |\n  \tb\n",
    "a: >\n  b\n  \tc\n", "\ta: 1\n", "a: 1\n\tb: 2\n", "a:\n  - b\n\t- c\n", "? a\n:\tb\n", "?\ta\n: b\n",
    "a: &x\tb\n", "a: !!str\tb\n", "a: *x\t\n", "a:\n  b\n\t c\n", "a:\n  b\n \tc\n", "a: b\n  \tc\n",
    "\t\na: 1\n", "a: 1\n\t# c\n", "---\t\na: 1\n", "--- \ta\n", "a: [b,\n\tc]\n", "a: {b: 1,\n\tc: 2}\n",
    "a: 'b\n\tc'\n", "a: \"b\n\tc\"\n", "a: 'b\n \tc'\n", "[\ta, b]\n", "{a: 1}\t\n", "a:\t[b]\n", "a:\t{b: 1}\n",
    "a:\t|\n  b\n", "a: |\t\n  b\n", "a: |-\t# c\n  b\n", "a: b\t: c\n", "- a\t- b\n", "-\t-\ta\n",
    "a:\t*x\n", "x: &a 1\ny:\t*a\n", "a:\n\t- b\n", "%YAML\t1.1\n---\na\n", "a\t\n", "\ta\n", "a\n\tb\n",
]

COMMENTS = [
    "a: b#c\n", "a: b #c\n", "a:#c\n", "a: #c\n", "#c\na: 1\n", "a: 1 #c\nb: 2\n", "a: # c\n  b: 1\n",
    "a:\n  # c\n  b: 1\n", "a:\n# c\n  b: 1\n", "a:\n    # c\n  b: 1\n", "a: [b, #c\n  c]\n", "a: [b #c\n  , c]\n",
    "a: [b,#c\n  c]\n", "a: {b: 1 #c\n  }\n", "a: |  # c\n  b\n", "a: | #c\n  b\n", "a: |#c\n  b\n",
    "a: >- # c\n  b\n", "a: |\n  b\n  # not a comment\n", "a: |\n  b\n# c\n", "a: |\n  b\n\n# c\nc: 1\n",
    "a: 'b' #c\n", "a: 'b'#c\n", "a: \"b\"#c\n", "a: \"b\" #c\n", "a: *x #c\n", "x: &a 1 #c\ny: *a\n",
    "- #c\n  a\n", "- a #c\n- b\n", "? a #c\n: b #c\n", "a: b\n  #c\n  d\n", "a: b\n#c\n  d\n",
    "--- #c\na: 1\n", "a: 1\n... #c\n", "%YAML 1.1 #c\n---\na\n", "# c\n---\n# d\n", "a: &x #c\n  b: 1\n",
    "a: !!map #c\n  b: 1\n", "[a, b] #c\n", "{a: 1} #c\n", "a: [b] #c\nc: 1\n", "a: b # c # d\n",
    "a: 'b\n  #c'\n", "a: \"b #c\"\n", "a: b#c #d\n", "a: b\n  c #d\n  e\n", "#\n", "#c", "a: 1 #c", "#c\r\na: 1\r\n",
    "a: b \x85#c\n", "a: b\u2028#c\n",
]

MARKERS = [
    "a: b\n---\nc: d\n", "a: b\n...\n", "a: b\n...\n---\nc: d\n", "---\na: b\n", "--- a\n", "---a\n",
    " ---\n", "a: ---\n", "a: ...\n", "--- |\n  a\n---\n", "--- |\na\n---\nb: 2\n", "a: |\n  b\n---\nc: 1\n",
    "a: |\n  b\n  ---\n", "a: |\n  ---\n  b\n", "a: >\n  b\n...\n", "a: b\n  ---\n", "a: b\n---x\n",
    "a: b\n--- x\n", "a: 'b\n---\nc'\n", "a: 'b\n ---\n c'\n", "a: \"b\n...\nc\"\n", "a: \"b\n ...\n c\"\n",
    "a: b\n...x\n", "a: b\n... x\n", "a\n---\n", "a\n...\nb\n", "...\n", "---\n", "---\n...\n",
    "--- ...\n", "---\n---\n", "...\n...\n", "--- # c\n", "---\n\n", "---\t\n", "--- a\n...\n--- b\n",
    "- a\n---\n- b\n", "- a\n...\n", "a:\n---\n", "[a,\n---\nb]\n", "[a,\n...\nb]\n", "{a: 1,\n---\n}\n",
    "a\n---\nb\n...\n", "a: b\n----\n", "a: b\n--\n", "a: b\n.. .\n", "a: b\n---\x85c: d\n",
    "a: b\n---\u2028c: d\n", "a: b\r\n---\r\nc: d\r\n", "plain\n---\n", "plain\n  ---\n", "plain\n ...\n",
    "a: b\n---", "a: b\n...", "---", "...", "--- !!str\n", "--- &a\n", "--- &a a\n--- *a\n",
    "? a\n---\n", "a: [b]\n--- ]\n",
]

ANCHOR_CHARS = ".:/éÄ[]{},?%@`!*&'\"#|>=+~$^();<-_\\Z9"
ANCHORS = []
for c in ANCHOR_CHARS:
    ANCHORS += [
        f"a: &x{c}y 1\nb: *x{c}y\n",
        f"a: &x{c} 1\nb: *x{c}\n",
        f"a: &x 1\nb: *x{c}\n",
        f"[&x{c}y 1, *x{c}y]\n",
        f"{{a: &x{c}y 1, b: *x{c}y}}\n",
        f"&x{c}y a: 1\n",
        f"- &{c}x 1\n",
    ]
ANCHORS += [
    "a: &x 1\nb: &x 2\nc: *x\n", "a: *x\n", "a: &x\nb: *x\n", "a: &x\n  b: 1\nc: *x\n", "a: &x [1, *x]\n",
    "a: &x {b: *x}\n", "&a a: &b b\n*a : *b\n", "a: & x\n", "a: &\n", "a: * x\n", "a: *\n", "a: &x !!str 1\n",
    "a: !!str &x 1\nb: *x\n", "a: &x &y 1\n", "a: *x y\n", "a: &x y\n---\nb: *x\n", "[*x]\n", "{*x : 1}\n",
    "a: &x 1\n*x : 2\n", "? *x\n", "a: &x 1\n? *x\n: 2\n", "&x [a]\n", "&x\n- a\n", "a: &x\n  - b\nc: *x\n",
    "- &x a\n- *x\n", "- *x\n", "a: &x-y 1\nb: *x-y\n", "a: &x_y 1\nb: *x_y\n", "a: &123 1\nb: *123\n",
    "x: &a {k: 1}\ny:\n  <<: *a\n  j: 2\n", "x: &a 1\ny:\n  <<: *a\n", "y:\n  <<: [{k: 1}, 1]\n",
    "x: &a {k: 1}\ny: &b {k: 2}\nz:\n  <<: [*a, *b]\n", "y:\n  <<: {k: 1}\n  k: 2\n", "y: {<<: {k: 1}, k: 2}\n",
    "y:\n  '<<': {k: 1}\n", "y:\n  <<: !!map {k: 1}\n", "y:\n  <<: []\n",
    # PyYAML does not construct what is only merged: tags there are not checked.
    "y:\n  <<: !x {k: 1}\n", "y:\n  <<: !x [{k: 1}]\n", "y:\n  <<: [!x {k: 1}]\n", "y:\n  <<: !!seq {k: 1}\n",
    "x: &a !x {k: 1}\ny:\n  <<: *a\n", "x: &a !x {k: 1}\ny:\n  <<: *a\nz: *a\n",
    "y:\n  <<: !!omap [{k: 1}, {j: 2, l: 3}]\n", "y:\n  <<: {k: !x 1}\n", "y: !x\n  <<: {k: 1}\n",
]

ESCAPES = []
for c in [chr(i) for i in range(0x20, 0x7F)] + ["\t", "é", "\x85", "\u2028", "\xa0"]:
    ESCAPES.append(f'a: "\\{c}"\n')
ESCAPES += [
    'a: "\\x41"\n', 'a: "\\x4"\n', 'a: "\\x4g"\n', 'a: "\\u00e9"\n', 'a: "\\u00E9"\n', 'a: "\\u00e"\n',
    'a: "\\U0001F600"\n', 'a: "\\U0001F60"\n', 'a: "\\U00110000"\n', 'a: "\\ud800"\n', 'a: "\\x00"\n',
    'a: "\\x85"\n', 'a: "\\u2028"\n', 'a: "\\\n  b"\n', 'a: "\\\r\n  b"\n', 'a: "\\\rb"\n', 'a: "\\\x85b"\n',
    'a: "\\\u2028b"\n', 'a: "\\\u2029b"\n', 'a: "\\"\n', 'a: "\\\\"\n', 'a: "a\\', 'a: "\\ "\n', 'a: "\\\t"\n',
    "a: '\\n'\n", "a: '\\'\n", 'a: "\\/"\n', 'a: "\\N\\_\\L\\P"\n', 'a: "\\e\\0\\a\\b\\v\\f\\r"\n',
]

LONG_KEYS = []
for n in (1000, 1019, 1020, 1021, 1022, 1023, 1024, 1025, 1030):
    k = "k" * n
    LONG_KEYS += [
        f"{k}: 1\n", f"'{k[:-2]}': 1\n", f'"{k[:-2]}": 1\n', f"a:\n  {k}: 1\n", f"{{{k}: 1}}\n", f"[{k}: 1]\n",
        f"- {k}: 1\n", f"&a{k[:-3]} x: 1\n", f"{k} : 1\n",
    ]
LONG_KEYS += [
    '"a\n b": 1\n', "'a\n b': 1\n", "a\n b: 1\n", "a b: 1\n", "a\nb: 1\n", "[a\n b]: 1\n", "{a: 1\n }: 2\n",
    '{"a\n b": 1}\n', "{a\n b: 1}\n", "[a\n b: 1]\n", "? a\n  b\n: 1\n", '"a" : 1\n', "a : 1\n",
    "a  : 1\n", "[a]: 1\n", "{a: 1}: 2\n", "[a, b]: c\n", "? [a, b]\n: c\n", "? {a: 1}\n: c\n",
    "{[a]: 1}\n", "[[a]: 1]\n", "!!str a: 1\n", "&x a: 1\n", "*x : 1\n", "a: 1\n? b\n", "? a\n? b\n",
]

DIRECTIVES = [
    "%YAML 1.1\n---\na: 1\n", "%YAML 1.2\n---\na: 1\n", "%YAML 1.3\n---\na\n", "%YAML 2.0\n---\na\n",
    "%YAML 1.1\n%YAML 1.1\n---\na\n", "%YAML 1\n---\na\n", "%YAML 1.x\n---\na\n", "%YAML\n---\na\n",
    "%YAML 1.1 x\n---\na\n", "%YAML  1.1\n---\na\n", "%YAML 1.1\na: 1\n", "%TAG ! tag:x,2000:\n---\na\n",
    "%TAG !e! tag:x,2000:\n---\n!e!foo a\n", "%TAG !e! tag:yaml.org,2002:\n---\n!e!str 1\n",
    "%TAG !! tag:x,2000:\n---\n!!str 1\n", "%TAG !e! tag:x:\n%TAG !e! tag:y:\n---\na\n", "%TAG e tag:x:\n---\na\n",
    "%TAG !e!\n---\na\n", "%FOO bar baz\n---\na\n", "%FOO\n---\na\n", "%\n---\na\n", " %YAML 1.1\n---\na\n",
    "a: 1\n%YAML 1.1\n---\nb\n", "a: 1\n...\n%YAML 1.1\n---\nb\n", "%YAML 1.1\n...\n", "%YAML 1.1\n",
    "--- !e!foo a\n", "a: %x\n", "a: b %x\n", "%YAML 1.1 # c\n---\na\n", "%YAML 1.1#c\n---\na\n",
    "%TAG !e! tag:x%2C:\n---\n!e!y a\n", "%TAG !e! tag:x%ZZ:\n---\na\n", "%TAG !e! !x-\n---\n!e!y a\n",
    "%YAML 1.1\n---\n%YAML 1.1\n---\na\n", "%YAML 1.1\r\n---\r\na\r\n", "%YAML 1.1\x85---\x85a\x85",
    "a: !<tag:yaml.org,2002:str> 1\n", "a: !<tag:x> 1\n", "a: !<> 1\n", "a: !<x 1\n", "a: ! 1\n", "a: ! '1'\n",
    "a: !\n", "a: !!\n", "a: !! 1\n", "a: !!str\n", "a: !!int 1\n", "a: !!int x\n", "a: !!float 1\n",
    "a: !!bool yes\n", "a: !!null ''\n", "a: !!null x\n", "a: !!binary aGk=\n", "a: !!binary x\n",
    "a: !!timestamp 2001-01-01\n", "a: !!timestamp x\n", "a: !!str [1]\n", "a: !!seq {b: 1}\n", "a: !!map [1]\n",
    "a: !!set {b, c}\n", "a: !!set [b]\n", "a: !!omap [a: 1, b: 2]\n", "a: !!omap [a]\n", "a: !!pairs [a: 1, a: 2]\n",
    "a: !x 1\n", "a: !x [1]\n", "a: !e!x 1\n", "a: !%41 1\n", "a: !a%zz 1\n", "a: !!str%41 1\n", "a: !x!y 1\n",
    "a: !!python/str x\n", "a: !!value x\n", "a: !!merge x\n", "a: =\n", "a: !!str =\n", "a: !x,y 1\n",
    "[!!str , a]\n", "{!!str : a}\n", "a: !!str\n  b\n", "a: !<!> 1\n", "a: !!int '1'\n", "a: ! [1]\n",
]

COMPLEX_KEYS = [
    "? a\n: b\n", "? a\n", "?\n: b\n", "? a\n:\n", ": b\n", "? - a\n  - b\n: c\n", "? a: 1\n: c\n", "? |\n  a\n: b\n",
    "? a\n? b\n: c\n", "a: 1\n? b\n: 2\n", "? a\n  : b\n", "?a: 1\n", "? a : b\n", "[? a : b]\n", "{? a : b}\n",
    "{? a}\n", "[? a]\n", "{? : b}\n", "[? : b]\n", "[: b]\n", "{: b}\n", "[a: b, c]\n", "{a, b: c}\n",
    "- ? a\n  : b\n", "- ? a\n: b\n", "? a\n:  - b\n", "? a\n:\n- b\n", "?\n", "? \n", ":\n", "? ? a\n",
    "? a\n: : b\n", "? a\n:\n  : b\n", "a:\n  ? b\n  : c\n", "- a\n? b\n", "? a\n- b\n", "?\t\n",
    "{a: b, ? c}\n", "{a: b, : c}\n", "[a, ? b: c]\n", "{a:b}\n", "{a: b:c}\n", "[a:b]\n", "{\"a\":b}\n",
    "{'a':b}\n", "[\"a\":b]\n", "a:b: c\n", "a: b: c\n", "a :b\n", "{a :b}\n", "- a: b: c\n",
    "{a: 1, a: 2}\n", "a: 1\na: 2\n", "{1: a, 1.0: b, true: c}\n", "{null: a, ~: b}\n", "? [a]\n", "? {a: b}\n",
]

SEQUENCES = [
    "- - a\n", "- - a\n  - b\n", "- - - a\n", "- - a\n- b\n", "-   - a\n    - b\n", "- a\n - b\n", "- a\n  - b\n",
    "- a\n-b\n", "-a\n", "- \n- a\n", "-\n- a\n", "-\n  a\n", "-\n a\n", "-\na\n", "- a:\n  - b\n", "- a:\n  b\n",
    "- a: 1\n  b: 2\n", "- a: 1\n b: 2\n", "- a: 1\n   b: 2\n", "a:\n- b\n- c\nd: 1\n", "a:\n- b\n  - c\n",
    "a:\n  - b\n - c\n", "a:\n  - b\n- c\n", "a:\n - b\n  c: 1\n", "a: - b\n", "a:\n  b\n  - c\n",
    "- [a, b]\n- {c: d}\n", "- - - - - a\n", "- |\n  a\n- b\n", "- >\n a\n", "-   a\n    b\n", "-   a\n   b\n",
    "- a\n  # c\n- b\n", "- a\n# c\n- b\n", "a:\n  -\n  - b\n", "a:\n- \n", "- &x a\n- *x\n", "- !!str\n- a\n",
    "- ? a\n  : b\n", "-\t- a\n", "- -\ta\n", "[- a]\n", "[a, - b]\n", "[-a]\n", "{-a: b}\n", "- -\n", "- - \n",
]

BLOCK_SCALARS = []
for style in "|>":
    for header in ["", "-", "+", "1", "2", "9", "0", "10", "1-", "-1", "2+", "+2", "0-", "-0", "--", "++", "1 ", " #c", "x", "-x", "1x", " x", "#c", "\t", "-\t"]:
        for body in ["  a\n  b\n", "  a\n\n  b\n\n", "   a\n  b\n", "  a\n   b\n", "\n\n  a\n", "    \n  a\n",
                     "  a\n ", " a\n", "a\n", "  a\n\n\n", "", "  \ta\n", "  a\n  \n   \n"]:
            BLOCK_SCALARS.append(f"k: {style}{header}\n{body}next: 1\n")
            if header in ("", "2", "-"):
                BLOCK_SCALARS.append(f"- {style}{header}\n{body}")
                BLOCK_SCALARS.append(f"{style}{header}\n{body}")
BLOCK_SCALARS += [
    "a:\n  b: |\n    x\n   y\n", "a:\n  b: |1\n    x\n", "a:\n  b: |1\n   x\n", "a:\n  b: |1\n  x\n", "- |1\n  x\n",
    "- |1\n x\n", "a: |\n\n  x\n\n", "a: >\n  x\n\n  y\n   z\n  w\n", "a: >\n   x\n  y\n", "a: |\n  x\r\n  y\r\n",
    "a: >\n  x\x85  y\n", "a: >\n  x\u2028  y\n", "a: |\n  x\u2029  y\n", "a: >\n  x\n\u2028  y\n", "a: |", "a: |\n",
    "a: |-\n", "a: |+\n", "a: |+\n\n", "a: >+\n  x\n\n\n", "--- >\n  a\n  b\n", "--- |\n a\n", "|\n a\n b\n",
    "a: |\n  x\nb: |\n  y\n", "a: >\n  x\n  # y\n", "a: |\n\ty\n", "a: |2\n   x\n  y\n", "a: |2\n x\n",
]

EMPTY = [
    "", "\n", " ", "\n\n\n", "#c\n", "# c", "---", "---\n", "...", "...\n", "--- ...", "---\n...\n---\n...\n", "~\n", "''\n",
    "\"\"\n", "a:\n", "a:", "- \n", "-", "[]\n", "{}\n", "[\n]\n", "{\n}\n", " \n \n", "\t", "\t\n", "\r\n", "\r",
    "\x85", "\u2028", "\u2029", "\x85a: 1\n", "\u2028a: 1\n", "a: 1\u2029b: 2\u2029", "a: 1\x85b: 2\x85",
    "a: 1\rb: 2\r", "a: 1\r\nb: 2\r\n", "a: 1\n\rb: 2\n", "a: 1\r\n\r\nb: 2\n",
]

BOMS = [
    "\ufeffa: 1\n", "\ufeff\ufeffa: 1\n", "\ufeff", "\ufeff\n", "\ufeff---\na: 1\n", "\ufeff# c\na: 1\n",
    "a: \ufeff1\n", "a: 1\n\ufeffb: 2\n", "a:\n  \ufeffb: 1\n", "a: [\ufeffb]\n", "a: \"\ufeff\"\n", "\ufeff\ufeff",
    "a: 1\n---\n\ufeffb: 2\n", "- \ufeffa\n", "\ufeff - a\n", "\ufeff  a: 1\n  b: 2\n", "a: b\ufeff\n",
]

NEL = []
for bname, br in BREAKS.items():
    if bname == "lf":
        continue
    NEL += [
        f"a: 1{br}b: 2{br}", f"a: b{br}  c{br}", f"a: 'b{br}  c'{br}", f'a: "b{br}  c"{br}', f"a: |{br}  b{br}  c{br}",
        f"a: >{br}  b{br}  c{br}", f"a: [b,{br} c]{br}", f"- a{br}- b{br}", f"a: b{br}{br}  c{br}", f"a: b #c{br}d: e{br}",
        f"a:{br}  b: 1{br}", f"a: b{br}", f"a: x{br}b{br}", f"k: v{br}---{br}k: w{br}", f'a: "x\\{br}  y"{br}',
        f"a: b{br}c", f"{br}a: 1", f"a: 'x{br}{br}y'{br}", f"a: x y{br} z{br}",
    ]
# A character that is a line break for PyYAML only in the middle of ordinary text.
NEL += ["a: x\x85y\n", "a: x\u2028y\n", "a: x\u2029y\n", "a: 'x\x85y'\n", 'a: "x\u2028y"\n', "a\x85b: 1\n",
        "[a\u2028b]\n", "a: x\xa0y\n", "a:\xa0b\n", "a: \xa0\n", "- a\u2028- b\n"]

# Characters PyYAML's reader refuses (and the last ones it accepts), anywhere.
CONTROL = []
for c in ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x80", "\x84", "\x86", "\x9f", "\ud7ff", "\ue000", "\ufffd", "\ufffe", "\uffff", "\U0001f600"]:
    CONTROL += [f"a: x{c}y\n", f"{c}a: 1\n", f"a: '{c}'\n", f'a: "{c}"\n', f"# {c}\na: 1\n", f"a: 1\nb: [{c}]\n"]

PLAIN = [
    "a: b:c\n", "a: b: c\n", "a: b :c\n", "a: :b\n", "a: ::\n", "a: b,c\n", "a: [b,c]\n", "a: [b:c]\n", "a: [b: c]\n",
    "a: {b:c}\n", "a: {b: c:d}\n", "a: -b\n", "a: - b\n", "a: ?b\n", "a: ? b\n", "a: @b\n", "a: `b\n", "a: %b\n",
    "a: |b\n", "a: >b\n", "a: !b\n", "a: &b\n", "a: *b\n", "a: #b\n", "a: 'b'c\n", "a: \"b\"c\n", "a: b'c\n",
    "a: b\"c\n", "a: b#c\n", "a: b #c\n", "a: b]\n", "a: b}\n", "a: [b]c\n", "a: {b}c\n", "a: b[c]\n", "a: b{c}\n",
    "a: http://x.y/z?q=1#f\n", "a: c:\\path\n", "a: ${{inputs.x}}\n", "a: {{x}}\n", "a: \"{{x}}\"\n", "a: x{{y}}\n",
    "a: [{{x}}]\n", "a: b  \n", "a: b\n  c:d\n", "a: b\n  c :d\n", "a: 1\n b: 2\n", "a: 1\n  b: 2\n", "a:\n  b\n  c: d\n",
    "a: b\n c\n", "a:\n b\nc: d\n", "a:\n  b\n c\n", "- a\n b\n", "- a\n  b\n", "a: -\n", "a: - \n", "a: ?\n", "a: :\n",
    "-a: 1\n", "?a: 1\n", ":a: 1\n", "a?: 1\n", "a:: 1\n", "a:b\n", "a :\n", "'a':b\n", "\"a\":b\n", "a: [a, b]]\n",
    "a: [a, b\n", "a: {a: b\n", "a: [a, b}\n", "a: {a: b]\n", "]\n", "}\n", "a: ,\n", "a: [,]\n", "a: [a,,b]\n",
    "a: {,}\n", "a: [a b]\n", "a: {a b: c}\n", "a: {a: b c}\n", "a: [a #b]\n", "a: [a#b]\n", "a: {a: b #c}\n",
    "a: 'b\n", "a: \"b\n", "a: 'b", "a: \"b", "a: '\n", "a: \"\n", "'a\n", "\"a\n", "a: b'\n", "a: ''''\n", "a: ''\n",
    "a: ' '\n", "a: '  a  '\n", "a: \" a \"\n", "a: 'a\n\n\n  b'\n", "a: '\n  b'\n", "a: 'b\n  '\n", "a: \"\n\"\n",
    "a: [a\n  b, c]\n", "a: {a: b\n  c}\n", "a: [\"a\"\n  , b]\n", "a: ['a'b]\n", "a: [\"a\"b]\n", "a: ['a':b]\n",
    "a: [\"a\":b]\n", "a: {\"a\":b}\n", "a: {'a':b}\n", "a: {a:'b'}\n", "a: [a:'b']\n", "a: [-]\n", "a: [- a]\n",
    "a: [?]\n", "a: [:]\n", "a: [a:]\n", "a: {a:}\n", "a: {a: }\n", "a: {:a}\n", "a: [:a]\n", "a: [a:b:c]\n",
]

INDENTATION = [
    "a:\n  b: 1\n c: 2\n", "a:\n  b: 1\n   c: 2\n", "a:\n    b: 1\n  c: 2\n", "a: 1\n  b: 2\n", " a: 1\nb: 2\n",
    "  a: 1\n  b: 2\n", "  a: 1\n b: 2\n", "a:\n b:\n  c: 1\n", "a:\n  b:\n    c:\n      d: 1\n", "a:\nb: 1\n",
    "a:\n  b: 1\n  - c\n", "a:\n  - b\n  c: 1\n", "a:\n  - b\nc: 1\n", "- a: 1\n- b: 2\n", "- a\nb: 1\n", "a: 1\n- b\n",
    "a: {b: 1,\nc: 2}\n", "a:\n  b: {c: 1,\n  d: 2}\n", "a:\n  b: [1,\n2]\n", "a:\n  b: [1,\n 2]\n", "a:\n  b: [1,\n   2]\n",
    "a:\n  b: {c: [1,\n2], d: 3}\n", "a:\n  - [1,\n2]\n", "- [1,\n2]\n", "- {a: 1,\nb: 2}\n", "a:\n  b: [\n]\n",
    "a:\n  b: [\n  ]\n", "a:\n  b: {\n}\n", "a:\n  b: [1, 2\n]\nc: 3\n", "a:\n  b: [1, 2\n  ]\n  c: 3\n",
    "a: [1,\n  2]\nb: 3\n", "a: [1,\n b: 2]\n", "a:\n  b: 1\n\n\n  c: 2\n", "a:\n  b: 1\n  \n  c: 2\n",
]

FLOW = [
    "[a, b]\n", "[a, b, ]\n", "[a, , b]\n", "[, a]\n", "{a: 1, }\n", "{a: 1, , b: 2}\n", "{, a: 1}\n", "[a: 1, b: 2]\n",
    "[a: 1: 2]\n", "{a: 1: 2}\n", "[[a], [b]]\n", "[{a: 1}, {b: 2}]\n", "{a: [1], b: {c: 2}}\n", "[a]\n[b]\n",
    "[a] b\n", "[a], b\n", "{a: 1}\nb: 2\n", "[a]: 1\n[b]: 2\n", "[\"a\", 'b', c]\n", "['a', \"b\"]: 1\n",
    "{\"a\": 1, \"b\": [true, null, 1.5]}\n", "{a: {b: {c: {d: [1, [2, [3]]]}}}}\n", "[&x a, *x]\n",
    "[!!str a, !!int 1]\n", "{a: !!str}\n", "[!!str]\n", "{a: &x}\n", "[a, {b: c, d: [e, f]}, g]\n",
    "{a: b, c: d}: e\n", "[a\n,b]\n", "[a,\nb,\nc]\n", "{a\n: b}\n", "{\na\n:\nb\n}\n", "[\n[\n]\n]\n",
    "[a,\n\n b]\n", "[a, # c\n # d\n b]\n", "{a: |\n  b\n}\n", "[|\n  b\n]\n", "[>]\n", "[a, |]\n", "{a: >}\n",
    "[a, 'b\n  c']\n", "[a, \"b\n  c\"]\n", "[a b\n  c]\n", "{? a b\n  c : d}\n", "- [a,\n  b]\n- c\n",
    "[a]]\n", "{a: 1}}\n", "[a}\n", "{a]\n", "[\n", "{\n", "[a\n", "{a: 1\n", "[a,\n", "{a,\n",
]

TEMPLATES = [
    "inputs:\n  prompt: {{prompt}}\n", "inputs:\n  prompt: \"{{prompt}}\"\n", "a: {{ b }}\n", "a: {{b}}: c\n",
    "a: ${{parent.inputs.x}}\n", "a: ${{ parent.inputs.x }}\n", "command: python x.py --a ${{inputs.a}} --b ${{outputs.b}}\n",
    "command: >-\n  python x.py\n  --a ${{inputs.a}}\n", "a: '{{b}}'\n", "a: [{{b}}]\n", "{{a}}: 1\n", "- {{a}}\n",
]

SCALARS_1_1 = [
    "a: yes\n", "a: Yes\n", "a: y\n", "a: on\n", "a: 010\n", "a: 0o10\n", "a: 0x1F\n", "a: 1:30\n", "a: 1e3\n",
    "a: 1.0e+3\n", "a: .inf\n", "a: .nan\n", "a: 2021-01-01\n", "a: 2021-13-01\n", "a: ~\n", "a: null\n", "a: 1_000\n",
    "a: 123456789012345678901234567890\n", "a: 0b101\n", "a: +1\n", "a: -0\n", "a: 1.10\n", "yes: 1\nno: 2\non: 3\n",
    "1: a\n1.0: b\n", "true: a\n1: b\n", "~: a\nnull: b\n", "a: 2001-12-14t21:59:43.10-05:00\n",
]

# Scalars PyYAML's SafeConstructor builds with Python's int(), float(), datetime and base64
# (issue 34): explicit tags with odd texts, every quoting style; integers beyond 64 bits
# and beyond Python's 4,300-digit limit; timestamps with odd fields; `<<` and `=` outside
# keys; `!` and `$` matching before a final line break.
def dq(text):
    """`text` as a YAML double-quoted scalar (escapes for what is not printable)."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029\ufeff":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


INT_TEXTS = [
    "", "_", "0", "-0", "+0", "00", "0_0", " 1 ", "1 ", " 1", "\t1", "--5", "+-5", "-+5", "- 5", "0b-1", "0b0b11",
    "0b0B11", "0B11", "0b", "0b2", "0b 1", "0x0xff", "0x-ff", "0x+ff", "0X1F", "0x", "0xg", "0x 1f ", "0o17", "0O17",
    "0o", "0o8", "00o17", "017 ", "0 17", " 012", "012", "08", "09", "1:30", "1 : 30", "1:-30", "-1:30", "1:+30",
    "1::30", "1:", ":1", "01:30", "1:60", "1:99", "1:030", "1.5", "1e3", "one", "1_000", "_1_", "1__0", "1_", "0b_",
    "-0b_", "0x_", "-", "+", "\uff11\uff12", "\u0661\u0662", "0\u0661\u0662", "0x\u0661f", "0x\uff26", "\u0967:\u0969\u0966",
    "\u00a01\u00a0", "\u30001\u3000", "\u20281", "1\u2028", "1\u0085", "\x1c1", "1\x1f", "\x0b1\x0c", "1\r", "1\n",
    "1\n\n", "\u00b2", "\u2460", "1\u0300", "12\u066b5", "\U0001d7ce", "\U0001d7d9\U0001d7e2",
    "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "9223372036854775808", "-9223372036854775809",
]
FLOAT_TEXTS = [
    "", "_", ".", "-", "+", ".e5", "1e", "1e5", "1E5", "1.e5", ".5", "5.", "-.5", "+.5", "1_000.5", "1__0.5", "nan", "NaN",
    "-nan", "+nan", ".nan", ".NaN", "-.nan", "inf", "Inf", "Infinity", "-infinity", "+inf", "infinit", "in", ".inf",
    "-.inf", "+.inf", " .inf", ".inf ", "1e500", "-1e500", "1e-500", "0x10", "0b1", "1:30", "1:30.5", "1:inf", "1:nan",
    "1:.", "1::2", "-1:30", "1:-30", "1: 30", "\u0661.\u0665", "\uff11.\uff15", "\uff11\uff0e\uff15", " 1.5 ", "1.5\n",
    "\u30001.5", "1.5\x1c", "1e+", "1e-5", "--1", "-+1", "+-1", "1.5.5", "nan(1)", "1,5", "1_", "1e1_0", "0.1e-1",
    "1" + ":30" * 173 + ".5", "1" + ":30" * 174 + ".5", "1" + ":0" * 180, "9" * 400 + ".5", "1" * 5000,
]
BOOL_TEXTS = [
    "yes", "Yes", "YES", "yEs", "y", "Y", "n", "on", "ON", "oN", "off", "OfF", "true", "TRUE", "tRuE", "false", "no", "nO",
    "1", "0", "", " yes", "yes ", "yes\n", "\uff39\uff25\uff33", "None", "null",
]
NULL_TEXTS = ["", "x", "null", "~", "0", "no", " "]
STAMPS = [
    "2001-01-01", "2001-1-1", "2001-1-01", "2001-01-1", "0000-01-01", "0001-01-01", "9999-12-31", "2001-13-01",
    "2001-00-01", "2001-02-29", "2000-02-29", "1900-02-29", "2001-04-31", "2001-01-00", "2001-01-32",
    "2001-01-01T00:00:00", "2001-01-01t00:00:00", "2001-01-01 00:00:00", "2001-01-01  \t 00:00:00",
    "2001-01-01T24:00:00", "2001-01-01T23:60:00", "2001-01-01T23:59:60", "2001-01-01T99:00:00", "2001-1-1T1:00:00",
    "2001-01-01T1:00:00", "2001-01-01T01:00:00.", "2001-01-01T01:00:00.123456789", "2001-01-01T01:00:00Z",
    "2001-01-01T01:00:00 Z", "2001-01-01T01:00:00z", "2001-01-01T10:00:00+24:00", "2026-01-01T10:00:00+24:00",
    "2001-01-01T10:00:00+23:59", "2001-01-01T10:00:00-24:00", "2001-01-01T10:00:00-23:59", "2001-01-01T10:00:00+5",
    "2001-01-01T10:00:00+05", "2001-01-01T10:00:00+99", "2001-01-01T10:00:00-99", "2001-01-01T10:00:00+23:60",
    "2001-01-01T10:00:00+23:99", "2001-01-01T10:00:00+00:99", "2001-01-01T10:00:00+1:30", "2001-01-01T10:00:00+01:3",
    "2001-01-01T10:00:00 +05:00", "2001-01-01T10:00:00\t-05:00", "2001-01-01T10:00:00+05:00:00", " 2001-01-01",
    "2001-01-01 ", "2001-01-01\n", "2001-01-01\n\n", "20010101", "2001-01-01T01:00", "\uff12\uff10\uff10\uff11-01-01",
    "2001/01/01", "99999-01-01", "2001-02-29T10:00:00", "0000-01-01T00:00:00", "2001-01-01T00:00:00.5+24:00",
]
BINARY_TEXTS = [
    "", "aGk=", "aGk", "aGkh", "aG=k", "aGk=xyz", "a", "ab", "abc", "abcd", "ab==", "ab=", "a===", "====", "a=bc",
    "aGk=\u00e9", "\u00e9", "a G k =", "-/=/+=+./=", "aGk\n=", "YWJj\nZGVm\n", "!!!", "aGk==", "aG==k=", "aGkhaGk",
]
TAGGED = []
for tag, texts in [("int", INT_TEXTS), ("float", FLOAT_TEXTS), ("bool", BOOL_TEXTS), ("null", NULL_TEXTS),
                   ("str", NULL_TEXTS), ("timestamp", STAMPS), ("binary", BINARY_TEXTS)]:
    for text in texts:
        TAGGED.append(f"a: !!{tag} {dq(text)}\n")
        TAGGED.append(f"a: ! {dq(text)}\n")
        if text and text.strip() == text and all(c.isprintable() for c in text) and text[0] not in "-?:,[]{}#&*!|>'\"%@`":
            TAGGED.append(f"a: !!{tag} {text}\n")
            TAGGED.append(f"a: {text}\n")
            TAGGED.append(f"{text}: a\n")
TAGGED += [
    "a: !!int |\n  12\n", "a: !!int |-\n  12\n", "a: !!int |+\n  12\n\n", "a: !!float >\n  1.5\n", "a: !!bool |\n  yes\n",
    "a: !!timestamp |\n  2001-01-01\n", "a: !!binary |\n  aGk=\n", "a: !!binary |\n  YWJj\n  ZGVm\n", "a: ! |\n  1\n",
    "a: ! |\n  yes\n", "a: ! |-\n  1\n", "a: ! |\n  ~\n", "a: ! |\n  <<\n", "a: ! >\n  1.5\n", "a: ! |+\n  1\n\n",
    "a: ! '1'\n", "a: ! 'yes'\n", "a: !!int '1'\n", "a: !<tag:yaml.org,2002:int> 0o17\n", "- !!int 0o17\n- !!int 0x-1\n",
    "!!int 1: a\n1: b\n", "!!int 0x10: a\n16: b\n", "!!float 1: a\n", "!!bool yes: a\n1: b\n", "!!null x: a\n~: b\n",
    "[!!int ' 1 ', !!float ' 2 ']\n", "{!!int 0o17: a}\n", "a: &x !!int 0o17\nb: *x\n", "a: !!int &x 0o17\nb: *x\n",
]
BIG_NUMBERS = [
    "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "-0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
    "+0x742D35CC6634C0532925A3B844BC454E4438F44E", "0x_742d_35cc", "0b" + "1" * 100, "-0b" + "10" * 60, "0" + "7" * 60,
    "-0" + "7" * 60, "0" + "7_" * 30 + "7", "1" + ":59" * 20, "-1" + ":59" * 20, "59" + ":00" * 15, "9" * 30, "-" + "9" * 30,
    "+" + "9" * 30, "1" * 4300, "1" * 4301, "-" + "1" * 4301, "+" + "1" * 4300, "1" + "_1" * 4299, "1" + "_1" * 4300,
    "1" + "0" * 400, "-1" + "0" * 400, "0x" + "f" * 3570, "0x" + "f" * 3575, "0x" + "f" * 5000, "-0x" + "f" * 5000,
    "0b" + "1" * 14500, "0" + "7" * 5000, "1" + ":59" * 2500, "-1" + ":59" * 2500, "1" + ":30" * 173 + ".5",
    "1" + ":30" * 174 + ".5", "-1" + ":30" * 175 + ".5", "1" + ":0" * 173 + ".0", "9" * 5000 + ".5", "1_" * 3000 + "1.5",
    "0" * 4301, "0" * 4301 + "8", "1" + "0" * 4299, "1" + "0" * 4300,
]
for n in BIG_NUMBERS:
    TAGGED += [f"a: {n}\n", f"- {n}\n"]
TAGGED += [
    "0x742d35Cc6634C0532925a3b844Bc454e4438f44e: a\n663251149454111653834953623422353210259843642446: b\n",
    "0x10: a\n16: b\n020: c\n0b10000: d\n",
]
MERGE_TAGS = [
    "description: <<\n", "a: [<<]\n", "- <<\n", "<<\n", "<<: <<\n", "<<: [<<]\n", "<<: {a: <<}\n", "a: ! <<\n",
    "a: ! '<<'\n", "? ! '<<'\n: {b: 1}\n", "a: !!merge x\n", "? !!merge x\n: {a: 1}\n", "!!merge <<: {a: 1}\n",
    "!!merge x: {a: 1}\n", "!!value x: 1\n", "a: !!value x\n", "!!value : 1\n", "<<: {a: 1}\n---\nx: 1\n",
    "<<: {a: 1}\n---\n<<: {b: 1}\nx: 1\n", "=: 1\n---\nx: =\n", "=: 1\n---\nx: 1\n", "x: 1\n---\n<<: {a: 1}\n",
    "- <<: {a: 1}\n---\n- x\n", "a: <<\n---\nb: 1\n", "<<: &m {a: 1}\n---\nx: 1\ny: 2\n", "<<: {a: 1}\n---\n- x\n",
    "<<: {a: 1}\n...\n---\nx: 1\n", "k:\n  <<: {a: 1}\n---\nx: [1]\n", "<<: {a: 1}\n---\nx\n", "<<: {a: 1}\n--- x\n",
    "a: ! \"<<\\n\"\n", "? ! \"<<\\n\"\n: {b: 1}\n", "{<<: {a: 1}, b: <<}\n", "[<<: {a: 1}]\n", "<<\n...\n", "a: <<x\n",
    "a: <<<\n", "a: \"<<\"\n", "a: '<<'\n", "a: !!str <<\n", "<<: =\n", "a: {<<}\n", "{<<}\n", "- {<<: [<<]}\n",
    "x: &a <<\ny: 1\n", "x: &a 1\ny:\n  <<: *a\n", "x: &a [1]\ny:\n  <<: *a\n", "x: &a [{k: 1}, 2]\ny:\n  <<: *a\n",
    "? &k [a]\n: 1\n? *k\n: 2\n", "x: &k {a: 1}\n*k : 2\n",
]


def random_cases(n, seed=20):
    """YAML-like text from a token alphabet (seeded): where parsers disagree in ways no
    list above thought of."""
    rng = random.Random(seed)
    tokens = [
        "a", "b", "k", "1", "x y", ":", ": ", "- ", "-", "? ", "?", ",", "[", "]", "{", "}", "#", " #c", "&a ", "*a", "!!str ",
        "!x ", "|", ">", "|-", ">+", "'", "\"", "''", "\\", "\\n", " ", "  ", "\t", "\n", "\n", "\n", "\n  ", "\n    ",
        "\n- ", "\n  - ", "---", "...", "%YAML 1.1", "é", "\r\n", "\x85", "\u2028", "{{x}}", "${{a}}", "<<: ", "~", "=",
        "@", "`", "%",
    ]
    out = []
    while len(out) < n:
        k = rng.randint(1, 24)
        out.append("".join(rng.choice(tokens) for _ in range(k)))
    return out


def gather():
    cases = {}

    def add(prefix, texts):
        for i, t in enumerate(texts):
            cases.setdefault(t, f"{prefix}/{i}")

    for text, name in multiline_cases().items():
        cases.setdefault(text, name)
    add("tab", TABS)
    add("comment", COMMENTS)
    add("marker", MARKERS)
    add("anchor", ANCHORS)
    add("escape", ESCAPES)
    add("key", LONG_KEYS)
    add("directive", DIRECTIVES)
    add("complex", COMPLEX_KEYS)
    add("seq", SEQUENCES)
    add("block", BLOCK_SCALARS)
    add("empty", EMPTY)
    add("bom", BOMS)
    add("break", NEL)
    add("plain", PLAIN)
    add("control", CONTROL)
    add("indent", INDENTATION)
    add("flow", FLOW)
    add("template", TEMPLATES)
    add("scalar", SCALARS_1_1)
    add("tagged", TAGGED)
    add("merge-tag", MERGE_TAGS)
    # Every short case again at the second level of a mapping and as a list item (the
    # same constructs under a parent's indentation).
    for prefix, texts in [("tab", TABS), ("comment", COMMENTS), ("plain", PLAIN), ("complex", COMPLEX_KEYS),
                          ("seq", SEQUENCES), ("flow", FLOW), ("anchor", ANCHORS[-60:])]:
        for i, t in enumerate(texts):
            if "\r" in t or "---" in t or "..." in t or "%" in t:
                continue
            nested = "top:\n" + "".join("  " + line if line.strip() else line for line in t.splitlines(True))
            cases.setdefault(nested, f"{prefix}/{i}/nested")
            item = "- " + "".join(("  " + line if j else line) for j, line in enumerate(t.splitlines(True)))
            cases.setdefault(item, f"{prefix}/{i}/item")
    add("random", random_cases(3000))
    return cases


def write_table():
    cases = gather()
    rows = []
    counts = {}
    for text, name in cases.items():
        verdict, payload = pyyaml(text.encode("utf-8"))
        counts[verdict] = counts.get(verdict, 0) + 1
        rows.append((name, json.dumps(text), verdict, json.dumps(payload, sort_keys=True)))
    rows.sort(key=lambda r: natural(r[0]))
    with TABLE.open("w", encoding="utf-8") as f:
        f.write(f"# generated by scripts/yaml_pyyaml_diff.py with PyYAML {yaml.__version__} (pure-Python SafeLoader); do not edit\n")
        f.write("# name\tinput (JSON)\tverdict\tpayload (JSON)\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{len(rows)} cases written to {TABLE.relative_to(REPO)}: {counts}", file=sys.stderr)


def natural(name):
    return [int(p) if p.isdigit() else p for p in name.replace("/", " / ").split()]


# --- Real corpora ----------------------------------------------------------------------


def corpus_files():
    for corpus, root in CORPORA.items():
        if not root.is_dir():
            print(f"{root} not found; skipped", file=sys.stderr)
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.lower().endswith((".yml", ".yaml")):
                    path = Path(dirpath) / name
                    yield corpus, root, path


def first_difference(a, b, path="$"):
    """The first place where two canonical values differ, and what each holds there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f"{path}/{k[1:]}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}/{i}")
    return path, a, b


def corpus(canon_bin=None):
    files = list(corpus_files())
    results = {}
    for corpus_name, root, path in files:
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # AML004 for amlint, a decode error for the SDK: not the parser's business
        if b"\0" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
            continue
        results[(corpus_name, path.relative_to(root).as_posix())] = (path, pyyaml(data))
    failures = sorted((k, v[1]) for k, v in results.items() if v[1][0] == "error")
    with CORPUS_FAILURES.open("w", encoding="utf-8") as f:
        f.write(f"# generated by scripts/yaml_pyyaml_diff.py corpus with PyYAML {yaml.__version__}: the .yml/.yaml files of the\n")
        f.write("# corpora (../shared/corpus, ../shared/realworld, ../owncorpus) that yaml.safe_load_all refuses\n")
        f.write("# corpus\tpath\tclass\tline:column\tproblem\n")
        for (c, p), (_, e) in failures:
            f.write(f"{c}\t{p}\t{e['class']}\t{e['line']}:{e['column']}\t{e['problem']}\n")
    print(f"{len(results)} files, {len(failures)} refused by PyYAML", file=sys.stderr)
    if not canon_bin:
        return
    paths = [str(v[0]) for v in results.values()]
    out = subprocess.run([canon_bin], input="\n".join(paths), capture_output=True, text=True, check=True).stdout
    amlint = {}
    for line in out.split("\n")[:-1]:
        rec = json.loads(line)
        amlint[rec["path"]] = rec
    differ = 0
    for key, (path, (verdict, payload)) in sorted(results.items()):
        got = amlint[str(path)]
        if verdict == "ok" and (got["verdict"] != "ok" or got["docs"] != payload):
            differ += 1
            print(f"DIFFER {key[0]}/{key[1]}: PyYAML loads it; amlint {got['verdict']} {got.get('error', '')}")
            if got["verdict"] == "ok":
                where, a, b = first_difference(payload, got["docs"])
                print(f"  at {where}: PyYAML {json.dumps(a)[:200]}\n  {' ' * len(where)}   amlint {json.dumps(b)[:200]}")
        elif verdict == "error" and got["verdict"] == "ok":
            differ += 1
            print(f"DIFFER {key[0]}/{key[1]}: PyYAML refuses it ({payload['problem']} at {payload['line']}:{payload['column']}); amlint loads it")
    print(f"{differ} of {len(results)} files differ", file=sys.stderr)


def disagreement(verdict, payload, got):
    """How amlint's answer (`yaml_canon --cases`) differs from PyYAML's; the rules of
    tests/it/yaml_pyyaml_diff.rs."""
    errors = got["errors"]
    if any(e["code"] == "AML005" for e in errors) and verdict != "recursive":
        # A limit of amlint's (nesting depth, alias expansion): a deliberate difference.
        return None
    if verdict == "ok":
        if errors:
            return f"refused: {errors[0]}"
        return None if got["docs"] == payload else f"value: PyYAML {payload} amlint {got['docs']}"
    if verdict == "recursive":
        return None if any(e["code"] == "AML005" for e in errors) else "accepted (recursive)"
    if not errors:
        return f"accepted: PyYAML {payload['class']} {payload['problem']}"
    marked = payload["class"] in ("ScannerError", "ParserError", "ComposerError", "ConstructorError", "ReaderError")
    if not marked or payload["line"] is None:
        return None
    for e in errors:
        if e["code"] == "AML001" and (e["line"], e["column"]) == (payload["line"], payload["column"]) and payload["problem"] in e["message"]:
            return None
        # A `{{NAME}}` placeholder is underlined from its outer brace, one before PyYAML's mark.
        if (payload["problem"] == "found unhashable key" and "template placeholder" in e["message"]
                and (e["line"], e["column"] + 1) == (payload["line"], payload["column"])):
            return None
    return f"position: PyYAML {payload['line']}:{payload['column']} {payload['problem']}; amlint {errors}"


def mutants(n, seed):
    """`n` texts made from the corpora's files by a few random edits each (seeded)."""
    rng = random.Random(seed)
    sources = []
    for _, _, path in corpus_files():
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\0" not in text and len(text) < 20000:
            sources.append(text)
    alphabet = list(" \t\n-:?,[]{}#&*!|>'\"%@`\\") + ["\r\n", "\x85", "\u2028", "\ufeff", "é", "---", "...", "  ", "- ", ": "]
    out = []
    while len(out) < n and sources:
        text = rng.choice(sources)
        for _ in range(rng.randint(1, 4)):
            if not text:
                break
            i = rng.randrange(len(text))
            op = rng.randrange(6)
            if op == 0:
                text = text[:i] + rng.choice(alphabet) + text[i:]
            elif op == 1:
                text = text[:i] + text[i + 1 :]
            elif op == 2:
                text = text[:i] + rng.choice(alphabet) + text[i + 1 :]
            else:
                lines = text.split("\n")
                j = rng.randrange(len(lines))
                if op == 3:
                    lines[j] = " " * rng.randint(1, 3) + lines[j]
                elif op == 4:
                    lines[j] = lines[j][rng.randint(1, 3) :] if lines[j].startswith(" ") else lines[j]
                elif j + 1 < len(lines):
                    lines[j : j + 2] = [lines[j] + rng.choice([" ", "", "\t"]) + lines[j + 1].lstrip()]
                text = "\n".join(lines)
        out.append(text)
    return out


def random_compare(n, seed, canon_bin, texts=None):
    texts = random_cases(n, seed) if texts is None else texts
    out = subprocess.run([canon_bin, "--cases"], input="\n".join(json.dumps(t) for t in texts) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    differ = 0
    for text, line in zip(texts, out):
        verdict, payload = pyyaml(text.encode("utf-8"))
        why = disagreement(verdict, payload, json.loads(line))
        if why:
            differ += 1
            print(f"{json.dumps(text)}\n    {why}")
    print(f"{differ} of {len(texts)} cases differ", file=sys.stderr)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "table"
    if mode == "table":
        write_table()
    elif mode == "random":
        random_compare(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif mode == "mutate":
        random_compare(0, 0, sys.argv[4], mutants(int(sys.argv[2]), int(sys.argv[3])))
    elif mode == "fuzzed":
        files = sorted(str(p) for p in Path(sys.argv[2]).iterdir() if p.is_file())
        out = subprocess.run([sys.argv[3], "--generate", *files], capture_output=True, text=True, check=True).stdout
        texts = [t for t in (json.loads(line) for line in out.split("\n")[:-1]) if len(t) <= 100_000]
        random_compare(0, 0, sys.argv[3], texts)
    elif mode == "corpus":
        corpus(sys.argv[2] if len(sys.argv) > 2 else None)
    else:
        sys.exit(__doc__)
