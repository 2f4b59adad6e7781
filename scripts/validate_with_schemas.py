#!/usr/bin/env python3
"""Reference validator for amlint's JSON Schemas, including the x-amlint-* keywords.

This is the executable specification of what the Rust validator must do with
the schemas in schemas/ (see docs/schemas.md).  It implements the subset of
JSON Schema 2020-12 the generated schemas use -- type, properties, required,
additionalProperties, items, prefixItems, propertyNames, anyOf, oneOf, allOf,
not, if/then/else, const, enum, pattern, min/max*, $ref (local and relative to
another file under schemas/; never the network) -- plus:

  x-amlint-type         integer | number | boolean, with marshmallow's coercions
  x-amlint-enum         {values, normalize}: string compared after normalisation
  x-amlint-binding      a string containing ${{...}} satisfies the whole subschema
  x-amlint-discriminator  branch selection for anyOf/oneOf over objects
  x-amlint-read-only / x-amlint-ignored / x-amlint-forms / x-amlint-unknown-keys
                        annotations (no validation)

Errors are (json pointer, message) pairs, one per problem, never a dump of
every union branch.

Usage:
    python scripts/validate_with_schemas.py FILE...               validate files (kind from kinds.yaml)
    python scripts/validate_with_schemas.py --compare VERDICTS.jsonl [--corpus DIR]
        compare with scripts/sdk_verdicts.py output: how many SDK-accepted files
        the schemas accept, and every disagreement
    python scripts/validate_with_schemas.py --check-schemas      Draft 2020-12 meta-validation
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from amlkinds import Classifier  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "schemas"
ID_BASE = "https://schemas.amlint.dev/"

BINDING_RE = re.compile(r"\$\{\{\s*(\S*?)\s*\}\}")

# marshmallow 3 fields.Boolean
TRUTHY = {"t", "T", "true", "True", "TRUE", "on", "On", "ON", "y", "Y", "yes", "Yes", "YES", "1"}
FALSY = {"f", "F", "false", "False", "FALSE", "off", "Off", "OFF", "n", "N", "no", "No", "NO", "0"}


# ------------------------------------------------------------------ normalisers


def _csv(text: str, conv) -> Optional[str]:
    if not text:
        return None
    if "," in text:
        return ",".join(conv(t.strip()) for t in text.split(","))
    return conv(text)


def _camel_to_snake(t: str) -> str:
    t = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", t)
    return re.sub("([a-z0-9])([A-Z])", r"\1_\2", t).lower()


def _snake_to_pascal(t: str) -> str:
    # string.capwords(t.replace("_", " ")).replace(" ", "")
    return "".join(w.capitalize() for w in t.replace("_", " ").split())


NORMALIZE = {
    "exact": lambda s: s,
    "lower": lambda s: s.lower(),
    "upper": lambda s: s.upper(),
    "camel_to_snake": lambda s: _csv(s, _camel_to_snake),
    "snake_to_pascal": lambda s: _csv(s, _snake_to_pascal),
    "snake_to_camel": lambda s: re.sub("_([a-zA-Z0-9])", lambda m: m.group(1).upper(), s) if s else None,
}


# ------------------------------------------------------------------ coercions


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def coerce(kind: str, x: Any) -> Tuple[bool, Any]:
    """marshmallow (non-strict) Integer / Float / Boolean deserialisation."""
    if kind == "boolean":
        if isinstance(x, bool):
            return True, x
        if isinstance(x, str):
            if x in TRUTHY:
                return True, True
            if x in FALSY:
                return True, False
            return False, None
        if is_number(x) and x in (0, 1):
            return True, bool(x)
        return False, None
    if isinstance(x, bool) or x is None:
        return False, None
    if kind == "integer":
        try:
            if isinstance(x, float) and not math.isfinite(x):
                return False, None
            return True, int(x) if not isinstance(x, str) else int(x)
        except (TypeError, ValueError):
            return False, None
    if kind == "number":
        try:
            v = float(x)
        except (TypeError, ValueError):
            return False, None
        if not math.isfinite(v):
            return False, None
        return True, v
    raise ValueError(kind)


def json_type(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "boolean"
    if isinstance(x, int):
        return "integer"
    if isinstance(x, float):
        return "integer" if x.is_integer() else "number"
    if isinstance(x, str):
        return "string"
    if isinstance(x, list):
        return "array"
    if isinstance(x, dict):
        return "object"
    return type(x).__name__


def type_ok(t: str, x: Any) -> bool:
    jt = json_type(x)
    if t == "number":
        return jt in ("integer", "number")
    return jt == t


def ptr(path: Tuple) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path) if path else ""


# ------------------------------------------------------------------ the validator


class Validator:
    def __init__(self, schema_dir: Path = SCHEMAS) -> None:
        self.dir = schema_dir
        self.docs: Dict[str, Any] = {}

    def doc(self, uri: str) -> Any:
        if uri not in self.docs:
            if not uri.startswith(ID_BASE):
                raise ValueError(f"refusing non-local $ref {uri}")
            p = self.dir / uri[len(ID_BASE):]
            self.docs[uri] = json.loads(p.read_text(encoding="utf-8"))
        return self.docs[uri]

    def resolve(self, ref: str, base: str) -> Tuple[Any, str]:
        file_part, _, frag = ref.partition("#")
        if file_part:
            uri = base.rsplit("/", 1)[0] + "/" + file_part if not re.match(r"^[a-z]+:", file_part) else file_part
            # normalise "a/b/../c"
            parts = []
            for seg in uri[len("https://"):].split("/"):
                if seg == "..":
                    parts.pop()
                elif seg != ".":
                    parts.append(seg)
            uri = "https://" + "/".join(parts)
        else:
            uri = base
        node = self.doc(uri)
        for part in [p for p in frag.split("/") if p]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node, uri

    def deref(self, s: Any, base: str) -> Tuple[Any, str]:
        n = 0
        while isinstance(s, dict) and "$ref" in s and n < 50:
            extra = {k: v for k, v in s.items() if k != "$ref"}
            t, base = self.resolve(s["$ref"], base)
            s = dict(t, **extra) if extra else t
            n += 1
        return s, base

    def validate_file_doc(self, instance: Any, kind: str) -> List[Tuple[str, str]]:
        uri = ID_BASE + f"{kind}.schema.json"
        root = self.doc(uri)
        return self.v(instance, root, uri, ())

    # admits: does a branch accept the instance's JSON type? (for union branch selection)
    def admits(self, s: Any, base: str, x: Any) -> bool:
        if s is True or s == {}:
            return True
        if s is False:
            return False
        s, base = self.deref(s, base)
        if s.get("x-amlint-binding") and isinstance(x, str) and BINDING_RE.search(x):
            return True
        if "type" in s:
            ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(type_ok(t, x) for t in ts):
                return False
        if "x-amlint-type" in s:
            ok, _ = coerce(s["x-amlint-type"], x)
            if not ok:
                return False
        if "x-amlint-enum" in s and not isinstance(x, str):
            return False
        for key in ("anyOf", "oneOf"):
            if key in s:
                return any(self.admits(b, base, x) for b in s[key])
        return True

    def v(self, x: Any, s: Any, base: str, path: Tuple) -> List[Tuple[str, str]]:
        if s is True:
            return []
        if s is False:
            return [(ptr(path), "no value is allowed here")]
        if "$ref" in s:
            extra = {k: v for k, v in s.items() if k != "$ref"}
            t, b2 = self.resolve(s["$ref"], base)
            errs = self.v(x, t, b2, path)
            if extra:
                errs += self.v(x, extra, base, path)
            return errs
        # x-amlint-binding short-circuits everything else at this schema object
        if s.get("x-amlint-binding") and isinstance(x, str) and BINDING_RE.search(x):
            return []
        errs: List[Tuple[str, str]] = []
        p = ptr(path)
        if "type" in s:
            ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(type_ok(t, x) for t in ts):
                return [(p, f"expected {' or '.join(ts)}, got {json_type(x)}")]
        num = x
        if "x-amlint-type" in s:
            ok, num = coerce(s["x-amlint-type"], x)
            if not ok:
                return [(p, f"not a valid {s['x-amlint-type']}: {x!r}")]
        if "x-amlint-enum" in s:
            e = s["x-amlint-enum"]
            if not isinstance(x, str):
                return [(p, f"expected one of {e['values']}, got {json_type(x)}")]
            n = NORMALIZE[e["normalize"]](x)
            if n not in e["values"]:
                return [(p, f"{x!r} is not one of {e['values']} (compared {e['normalize']})")]
        if "const" in s and x != s["const"]:
            errs.append((p, f"must be {s['const']!r}"))
        if "enum" in s and x not in s["enum"]:
            errs.append((p, f"{x!r} is not one of {s['enum']}"))
        if is_number(num) and not isinstance(num, bool):
            if "minimum" in s and num < s["minimum"]:
                errs.append((p, f"{x!r} is less than {s['minimum']}"))
            if "maximum" in s and num > s["maximum"]:
                errs.append((p, f"{x!r} is greater than {s['maximum']}"))
            if "exclusiveMinimum" in s and num <= s["exclusiveMinimum"]:
                errs.append((p, f"{x!r} must be greater than {s['exclusiveMinimum']}"))
            if "exclusiveMaximum" in s and num >= s["exclusiveMaximum"]:
                errs.append((p, f"{x!r} must be less than {s['exclusiveMaximum']}"))
        if isinstance(x, str):
            if "pattern" in s and not re.search(s["pattern"], x):
                errs.append((p, f"{x!r} does not match {s['pattern']}"))
            if "minLength" in s and len(x) < s["minLength"]:
                errs.append((p, f"shorter than {s['minLength']}"))
            if "maxLength" in s and len(x) > s["maxLength"]:
                errs.append((p, f"longer than {s['maxLength']}"))
        if isinstance(x, list):
            if "minItems" in s and len(x) < s["minItems"]:
                errs.append((p, f"fewer than {s['minItems']} items"))
            if "maxItems" in s and len(x) > s["maxItems"]:
                errs.append((p, f"more than {s['maxItems']} items"))
            if s.get("uniqueItems"):
                seen_items = []
                for item in x:
                    if item in seen_items:
                        errs.append((p, f"duplicate item {item!r}"))
                        break
                    seen_items.append(item)
            pre = s.get("prefixItems", [])
            for i, item in enumerate(x):
                if i < len(pre):
                    errs += self.v(item, pre[i], base, path + (i,))
                elif "items" in s:
                    errs += self.v(item, s["items"], base, path + (i,))
        if isinstance(x, dict):
            props = s.get("properties", {})
            for r in s.get("required", []):
                if r not in x:
                    errs.append((p, f"missing required key '{r}'"))
            for k, val in x.items():
                if "propertyNames" in s:
                    errs += [(ptr(path + (k,)), m) for _, m in self.v(k, s["propertyNames"], base, path + (k,))]
                if k in props:
                    errs += self.v(val, props[k], base, path + (k,))
                elif "additionalProperties" in s:
                    ap = s["additionalProperties"]
                    if ap is False:
                        errs.append((ptr(path + (k,)), f"unknown key '{k}'"))
                    elif ap is not True:
                        errs += self.v(val, ap, base, path + (k,))
        for k in ("allOf",):
            for sub in s.get(k, []):
                errs += self.v(x, sub, base, path)
        if "not" in s:
            if not self.v(x, s["not"], base, path):
                errs.append((p, "matches a forbidden shape" + (f" ({s['not']})" if s["not"] != {} else "")))
        if "if" in s:
            if not self.v(x, s["if"], base, path):
                if "then" in s:
                    errs += self.v(x, s["then"], base, path)
            elif "else" in s:
                errs += self.v(x, s["else"], base, path)
        for key in ("anyOf", "oneOf"):
            if key in s:
                errs += self.union(x, s, s[key], base, path)
        return errs

    def union(self, x: Any, s: Dict[str, Any], branches: List[Any], base: str, path: Tuple) -> List[Tuple[str, str]]:
        p = ptr(path)
        disc = s.get("x-amlint-discriminator")
        if disc and isinstance(x, dict):
            cands = []
            if disc in x:
                val = x[disc]
                for b in branches:
                    c = (b.get("properties") or {}).get(disc) if isinstance(b, dict) else None
                    if c is False:
                        continue
                    if c is None or not self.v(val, c, base, path + (disc,)):
                        cands.append(b)
                if not cands:
                    allowed = []
                    for b in branches:
                        c = (b.get("properties") or {}).get(disc) if isinstance(b, dict) else None
                        if isinstance(c, dict) and "x-amlint-enum" in c:
                            allowed += [v for v in c["x-amlint-enum"]["values"] if v not in allowed]
                        elif isinstance(c, dict) and "const" in c:
                            allowed.append(c["const"])
                    return [(ptr(path + (disc,)), f"{val!r} is not one of {allowed}")]
            else:
                cands = [b for b in branches if disc not in (b.get("required") or [])]
                if not cands:
                    return [(p, f"missing required key '{disc}'")]
            first = None
            for b in cands:
                e = self.v(x, b, base, path)
                if not e:
                    return []
                if first is None:
                    first = e
            return first or []
        cands = [b for b in branches if self.admits(b, base, x)]
        if not cands:
            want = []
            for b in branches:
                bd, _ = self.deref(b, base)
                t = bd.get("type") or bd.get("x-amlint-type") or ("string" if "x-amlint-enum" in bd else None)
                for tt in (t if isinstance(t, list) else [t]):
                    if tt and tt not in want:
                        want.append(tt)
            return [(p, f"expected {' or '.join(want) or 'a different value'}, got {json_type(x)}")]
        first = None
        for b in cands:
            e = self.v(x, b, base, path)
            if not e:
                return []
            if first is None:
                first = e
        return first or []


# ------------------------------------------------------------------ loading files


def json_view(x: Any) -> Any:
    """The JSON view of a PyYAML document (timestamps become ISO strings)."""
    if isinstance(x, dict):
        return {str(k): json_view(v) for k, v in x.items()}
    if isinstance(x, list):
        return [json_view(v) for v in x]
    if isinstance(x, (datetime.datetime, datetime.date)):
        return x.isoformat()
    return x


def load_doc(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json_view(yaml.safe_load(f))


def check_schemas() -> int:
    from jsonschema import Draft202012Validator

    bad = 0
    files = sorted(SCHEMAS.glob("*.schema.json")) + sorted((SCHEMAS / "defs").glob("*.json"))
    for p in files:
        doc = json.loads(p.read_text(encoding="utf-8"))
        try:
            Draft202012Validator.check_schema(doc)
        except Exception as e:  # noqa: BLE001
            bad += 1
            print(f"{p.relative_to(REPO)}: {str(e).splitlines()[0]}")
        if doc.get("$id") != ID_BASE + p.relative_to(SCHEMAS).as_posix():
            bad += 1
            print(f"{p.relative_to(REPO)}: $id is {doc.get('$id')}")
    # every $ref resolves locally
    v = Validator()
    for p in files:
        uri = ID_BASE + p.relative_to(SCHEMAS).as_posix()
        doc = v.doc(uri)

        def walk(n):
            nonlocal bad
            if isinstance(n, dict):
                if "$ref" in n:
                    try:
                        v.resolve(n["$ref"], uri)
                    except Exception as e:  # noqa: BLE001
                        bad += 1
                        print(f"{p.relative_to(REPO)}: unresolvable $ref {n['$ref']}: {e}")
                for val in n.values():
                    walk(val)
            elif isinstance(n, list):
                for val in n:
                    walk(val)

        walk(doc)
    print(f"{len(files)} schema files checked against the draft 2020-12 meta-schema, {bad} problem(s)")
    return 1 if bad else 0


def compare(verdicts: Path, corpus: Path, out: Optional[Path]) -> int:
    v = Validator()
    recs = [json.loads(line) for line in verdicts.read_text(encoding="utf-8").splitlines() if line.strip()]
    stats: Dict[str, Dict[str, int]] = {}
    disagreements = []
    for r in recs:
        kind = r.get("kind")
        if not kind or r.get("accepted") is None:
            continue
        sp = SCHEMAS / f"{kind}.schema.json"
        if not sp.exists():
            continue
        path = corpus / r["path"]
        try:
            doc = load_doc(path)
        except Exception as e:  # noqa: BLE001
            ours = [("", f"YAML error: {e}")]
        else:
            ours = v.validate_file_doc(doc, kind)
        st = stats.setdefault(kind, {"sdk_accepted": 0, "both_accept": 0, "sdk_rejected": 0, "both_reject": 0})
        sdk_ok = bool(r["accepted"])
        if sdk_ok:
            st["sdk_accepted"] += 1
            if not ours:
                st["both_accept"] += 1
        else:
            st["sdk_rejected"] += 1
            if ours:
                st["both_reject"] += 1
        if sdk_ok == bool(ours):
            disagreements.append({"path": r["path"], "kind": kind, "sdk_accepted": sdk_ok,
                                  "sdk_error_class": r.get("error_class"), "sdk_error": r.get("error"),
                                  "schema_errors": [f"{a}: {b}" for a, b in ours[:5]]})
    tot = {k: sum(s[k] for s in stats.values()) for k in ("sdk_accepted", "both_accept", "sdk_rejected", "both_reject")}
    for kind, st in sorted(stats.items()):
        print(f"{kind:34s} schemas accept {st['both_accept']:3d}/{st['sdk_accepted']:3d} SDK-accepted; "
              f"reject {st['both_reject']:3d}/{st['sdk_rejected']:3d} SDK-rejected")
    print(f"TOTAL: schemas accept {tot['both_accept']} of {tot['sdk_accepted']} SDK-accepted files; "
          f"reject {tot['both_reject']} of {tot['sdk_rejected']} SDK-rejected files")
    for d in disagreements:
        print(f"- {d['path']} [{d['kind']}] SDK {'accepts' if d['sdk_accepted'] else 'rejects (' + str(d['sdk_error_class']) + ')'}; "
              f"schemas {'reject: ' + ' | '.join(d['schema_errors']) if d['schema_errors'] else 'accept'}")
        if not d["sdk_accepted"]:
            print("    SDK: " + (d["sdk_error"] or "").replace("\n", " | ")[:300])
    if out:
        out.write_text(json.dumps({"totals": tot, "per_kind": stats, "disagreements": disagreements}, indent=2, sort_keys=True) + "\n")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--kind", help="kind id (default: classify with schemas/kinds.yaml)")
    ap.add_argument("--compare", help="verdicts.jsonl (or mutants.jsonl) written by sdk_verdicts.py")
    ap.add_argument("--corpus", default="/work/shared/corpus/azureml-examples/cli",
                    help="directory the verdict paths are relative to")
    ap.add_argument("--out", help="write the comparison as JSON here")
    ap.add_argument("--check-schemas", action="store_true")
    args = ap.parse_args(argv)
    if args.check_schemas:
        return check_schemas()
    if args.compare:
        return compare(Path(args.compare), Path(args.corpus), Path(args.out) if args.out else None)
    clf = Classifier()
    v = Validator()
    rc = 0
    for f in args.files:
        p = Path(f)
        doc = load_doc(p)
        kind = args.kind or clf.classify(doc, p.name)[0]
        if not kind or not (SCHEMAS / f"{kind}.schema.json").exists():
            print(f"{f}: no schema (kind {kind})")
            continue
        errs = v.validate_file_doc(doc, kind)
        for a, b in errs:
            print(f"{f}: {kind} {a or '/'}: {b}")
            rc = 1
        if not errs:
            print(f"{f}: {kind} ok")
    return rc


if __name__ == "__main__":
    sys.exit(main())
