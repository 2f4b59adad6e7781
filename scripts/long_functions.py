#!/usr/bin/env python3
"""List the functions of src/ longer than a bound (default 100 lines), longest first.

A function's length is the lines from its `fn` line to its closing brace, both counted
(what an editor shows). The source is scanned with a small lexer that skips comments,
string, raw-string, byte-string and char literals, so braces inside them do not count.
A function nested in another is listed on its own and also counts in its parent.

    python3 scripts/long_functions.py [--max 100] [--exclude src/lsp] [paths...]
"""
import argparse
import os
import re
import sys

FN = re.compile(rb"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")
# A char literal: one character (one UTF-8 sequence) or an escape; `'a` alone is a lifetime.
CHAR = re.compile(
    rb"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n\x80-\xff]|[\xc0-\xff][\x80-\xbf]{1,3})'"
)


def blank_literals(src: bytes) -> bytes:
    """The source with comments and literals replaced by spaces (newlines kept)."""
    out = bytearray(src)
    i, n = 0, len(src)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != 0x0A:
                out[k] = 0x20

    while i < n:
        c = src[i]
        if src.startswith(b"//", i):
            j = src.find(b"\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif src.startswith(b"/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith(b"/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith(b"*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif (m := re.compile(rb'b?r(#*)"').match(src, i)) and (
            i == 0 or not (chr(src[i - 1]).isalnum() or src[i - 1] == 0x5F)
        ):
            close = b'"' + m.group(1)
            j = src.find(close, m.end())
            j = n if j < 0 else j + len(close)
            blank(i, j)
            i = j
        elif c == 0x22 or (c == 0x62 and i + 1 < n and src[i + 1] == 0x22):  # " or b"
            j = i + (2 if c == 0x62 else 1)
            while j < n and src[j] != 0x22:
                j += 2 if src[j] == 0x5C else 1
            blank(i, j + 1)
            i = j + 1
        elif c == 0x27:  # ' : a char literal or a lifetime
            m = CHAR.match(src, i)
            if m:
                blank(i, m.end())
                i = m.end()
            else:
                i += 1
        else:
            i += 1
    return bytes(out)


def functions(path):
    src = open(path, "rb").read()
    code = blank_literals(src)
    for m in FN.finditer(code):
        # The body: the first `{` after the signature at bracket depth 0; a `;` first
        # means a declaration without a body (a trait method).
        j, depth = m.end(), 0
        while j < len(code):
            ch = code[j]
            if ch in b"([<"[0:2] and ch in (0x28, 0x5B):
                depth += 1
            elif ch in (0x29, 0x5D):
                depth -= 1
            elif ch == 0x3B and depth == 0:
                j = -1
                break
            elif ch == 0x7B and depth == 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        k, braces = j, 0
        while k < len(code):
            if code[k] == 0x7B:
                braces += 1
            elif code[k] == 0x7D:
                braces -= 1
                if braces == 0:
                    break
            k += 1
        first = code.count(b"\n", 0, m.start()) + 1
        last = code.count(b"\n", 0, k) + 1
        yield m.group(1).decode(), first, last - first + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=100)
    ap.add_argument("--exclude", action="append", default=[])
    ap.add_argument("paths", nargs="*", default=["src"])
    a = ap.parse_args()
    rows = []
    for root in a.paths:
        walk = [(root, [], [os.path.basename(root)])] if os.path.isfile(root) else os.walk(root)
        for d, _, files in walk:
            for f in files:
                p = root if os.path.isfile(root) else os.path.join(d, f)
                if not p.endswith(".rs") or any(p.startswith(e.rstrip("/") + "/") for e in a.exclude):
                    continue
                for name, line, length in functions(p):
                    if length > a.max:
                        rows.append((length, p, line, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    for length, p, line, name in rows:
        print(f"{length:5} {p}:{line} {name}")
    print(f"{len(rows)} functions over {a.max} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
