#!/usr/bin/env python3
"""The SDK-verdict half of amlint's comparison harness.

For every YAML/JSON file of a corpus directory, decide its kind exactly as
amlint does (schemas/kinds.yaml, via scripts/amlkinds.py), load it with the
matching azure-ai-ml loader (the file's directory is the base path, as with
``az ml ... --file``) and write one JSON line per file to
``<out>/verdicts.jsonl``:

  {"path": <relative to the corpus dir>, "kind": ..., "loader": ...,
   "accepted": true|false|null, "error": "<first lines of the SDK message>",
   "error_class": "schema|value|local-path|yaml|other"}

``accepted`` is null when there is no SDK loader for the kind (v1 configs,
MLTable files, prompt flow files) or the file is not an Azure ML config.

With ``--mutate``, small realistic edits of accepted files (a misspelt key, a
wrong type, a bad enum value, a removed required key, a bad asset reference, a
missing local path) are written next to a copy of the corpus under
``<out>/mutants/`` (so relative paths still resolve) and the SDK verdict on
each is written to ``<out>/mutants.jsonl`` with the 1-based line the edit
touched.

The loaders never need the network; sockets are disabled while they run (an
attempt to connect is recorded as error_class "other").

Usage:
    /work/venv-sdk/bin/python scripts/sdk_verdicts.py OUT_DIR [--corpus DIR] [--mutate]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import logging
import os
import random
import re
import shutil
import socket
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

import yaml  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from amlkinds import Classifier, iter_config_files  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/shared/corpus/azureml-examples/cli")

# kind id -> loader name (functions of azure.ai.ml.entities._load_functions, or
# "load_common:<class path>" for kinds without a public loader)
LOADERS: Dict[str, str] = {
    "commandJob": "load_job", "sweepJob": "load_job", "pipelineJob": "load_job", "autoMLJob": "load_job",
    "sparkJob": "load_job", "importJob": "load_job", "finetuningJob": "load_job", "distillationJob": "load_job",
    "commandComponent": "load_component", "pipelineComponent": "load_component", "parallelComponent": "load_component",
    "sparkComponent": "load_component", "dataTransferComponent": "load_component",
    "amlCompute": "load_compute", "computeInstance": "load_compute", "kubernetesCompute": "load_compute",
    "vmCompute": "load_compute", "synapseSparkCompute": "load_compute",
    "managedOnlineEndpoint": "load_online_endpoint", "kubernetesOnlineEndpoint": "load_online_endpoint",
    "batchEndpoint": "load_batch_endpoint", "serverlessEndpoint": "load_serverless_endpoint",
    "managedOnlineDeployment": "load_online_deployment", "kubernetesOnlineDeployment": "load_online_deployment",
    "modelBatchDeployment": "load_model_batch_deployment",
    "pipelineComponentBatchDeployment": "load_pipeline_component_batch_deployment",
    "batchDeployment": "load_batch_deployment",
    "dataImport": "load_common:azure.ai.ml.entities._data_import.data_import.DataImport",
    "model": "load_model", "data": "load_data", "environment": "load_environment",
    "azureBlob": "load_datastore", "azureFile": "load_datastore", "azureDataLakeGen1": "load_datastore",
    "azureDataLakeGen2": "load_datastore", "oneLake": "load_datastore",
    "connection": "load_connection", "schedule": "load_schedule", "modelVersionPackage": "load_model_package",
    "registry": "load_registry", "workspace": "load_workspace",
    "featureStore": "load_feature_store", "featureSet": "load_feature_set",
    "featureStoreEntity": "load_feature_store_entity",
}


class NetworkBlocked(Exception):
    pass


def block_network() -> None:
    def refuse(*a, **k):
        raise NetworkBlocked("network access attempted (blocked by sdk_verdicts.py)")

    socket.socket.connect = refuse  # type: ignore[assignment]
    socket.socket.connect_ex = refuse  # type: ignore[assignment]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]


def get_loader(name: str):
    from azure.ai.ml.entities import _load_functions as lf

    if name.startswith("load_common:"):
        import importlib

        mod, cls = name.split(":", 1)[1].rsplit(".", 1)
        klass = getattr(importlib.import_module(mod), cls)
        return lambda p, **kw: lf.load_common(klass, p, kw.get("relative_origin"), None)
    return getattr(lf, name)


BOILERPLATE = ("The easiest way to author", "Visit this link", "If you are trying to configure")


def first_lines(msg: str, n: int = 6, width: int = 600) -> str:
    for b in BOILERPLATE:
        i = msg.find(b)
        if i >= 0:
            msg = msg[:i]
    lines = [ln.rstrip() for ln in str(msg).splitlines() if ln.strip()]
    text = "\n".join(lines[:n])
    return text[:width]


LOCAL_PATH_RE = re.compile(
    r"Can't find (?:directory or file|directory|file) in resolved absolute path|"
    r"No such file or directory|FileNotFoundError|can't find .* based on|"
    r"The filename, directory name, or volume label syntax is incorrect|Could not find|does not exist",
    re.I,
)
SCHEMA_RE = re.compile(
    r"Unknown field|Missing data for required field|Not a valid|passed is not in set|Field may not be null|"
    r"Invalid input type|is not a valid|Value passed is not a data binding|In order to specify|"
    r"Invalid output binding|must be greater|must be less|Length must|not a valid python identifier|"
    r"name should only contain|Either version or label|Could not parse",
    re.I,
)


def flatten_messages(m: Any, path: str = "") -> List[str]:
    out: List[str] = []
    if isinstance(m, dict):
        for k, v in m.items():
            p = path if k == "_schema" else (f"{path}.{k}" if path else str(k))
            out.extend(flatten_messages(v, p))
    elif isinstance(m, (list, tuple)):
        for v in m:
            out.extend(flatten_messages(v, path))
    else:
        out.append(f"{path}: {m}" if path else str(m))
    return out


def _validation_result_lines(text: str) -> List[str]:
    """Parse the SDK's '{"result": "Failed", "errors": [...]}' JSON embedded in a message."""
    i = text.find("{")
    while i >= 0:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[i:])
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict) and isinstance(obj.get("errors"), list):
            out = []
            for e in obj["errors"]:
                if isinstance(e, dict):
                    inner = str(e.get("message", ""))
                    sub = _validation_result_lines(inner) if "{" in inner else []
                    if sub:
                        out.extend(sub)
                    else:
                        out.append(f"{e.get('path')}: {inner}" if e.get("path") else inner)
            return out
        if isinstance(obj, dict):
            return flatten_messages(obj)
        return []
    return []


def describe_error(exc: BaseException) -> str:
    """The first informative lines of an SDK error: marshmallow messages flattened to 'a.b: msg'."""
    import marshmallow

    seen = set()
    e: Optional[BaseException] = exc
    lines: List[str] = []
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, marshmallow.ValidationError) and isinstance(e.messages, dict) and e.messages:
            lines = flatten_messages(e.messages)
            break
        e = e.__cause__ or e.__context__
    if not lines:
        lines = _validation_result_lines(str(exc))
    if lines:
        uniq: List[str] = []
        for ln in lines:
            ln = " ".join(ln.split())
            for b in BOILERPLATE:
                j = ln.find(b)
                if j >= 0:
                    ln = ln[:j].rstrip()
            if ln not in uniq:
                uniq.append(ln)
        return first_lines(f"{type(exc).__name__}: " + "\n".join(uniq), n=8, width=1000)
    return first_lines(f"{type(exc).__name__}: {exc}")


def classify_error(exc: BaseException) -> str:
    import marshmallow

    msg = str(exc)
    if isinstance(exc, yaml.YAMLError) or "Expect dict but get" in msg or "Target yaml file is empty" in msg:
        return "yaml"
    if isinstance(exc, NetworkBlocked) or "network access attempted" in msg:
        return "other"
    if LOCAL_PATH_RE.search(msg) or isinstance(exc, FileNotFoundError):
        return "local-path"
    if isinstance(exc, marshmallow.ValidationError) or SCHEMA_RE.search(msg):
        if SCHEMA_RE.search(msg) or isinstance(exc, marshmallow.ValidationError):
            return "schema"
    from azure.ai.ml.exceptions import ValidationException

    if isinstance(exc, (ValidationException, ValueError)):
        return "value"
    return "other"


def json_safe(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): json_safe(v) for k, v in x.items()}
    if isinstance(x, list):
        return [json_safe(v) for v in x]
    if isinstance(x, (datetime.date, datetime.datetime)):
        return x.isoformat()
    return x


def read_doc(path: Path) -> Tuple[Any, Optional[BaseException]]:
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f), None
    except Exception as e:  # YAML error, bad encoding
        return None, e


# Deployment kinds whose `endpoint_name` `az ml online-deployment|batch-deployment create`
# takes from `--endpoint-name` when the file has none.
ENDPOINT_NAME_FROM_CLI = {
    "managedOnlineDeployment", "kubernetesOnlineDeployment", "batchDeployment",
    "modelBatchDeployment", "pipelineComponentBatchDeployment",
}
CLI_ENDPOINT_NAME = "amlint-endpoint-from-cli"


def sdk_verdict(path: Path, kind: str, relative_origin: Optional[Path] = None,
                doc: Any = None) -> Dict[str, Any]:
    """Load `path` with the loader of `kind`; base path = directory of relative_origin or path.

    A deployment without `endpoint_name` is loaded as `az ml ... create --endpoint-name X`
    loads it (`params_override`), and the record says so (`endpoint_name_from_cli`)."""
    ldr = LOADERS.get(kind)
    if ldr is None:
        return {"loader": None, "accepted": None, "error": None, "error_class": None}
    fn = get_loader(ldr)
    kwargs: Dict[str, Any] = {}
    extra: Dict[str, Any] = {}
    if kind in ENDPOINT_NAME_FROM_CLI and isinstance(doc, dict) and "endpoint_name" not in doc:
        kwargs["params_override"] = [{"endpoint_name": CLI_ENDPOINT_NAME}]
        extra["endpoint_name_from_cli"] = True
    origin = relative_origin or path
    cwd = os.getcwd()
    sink = io.StringIO()
    try:
        os.chdir(origin.parent)
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            if relative_origin is not None:
                fn(str(path), relative_origin=str(relative_origin), **kwargs)
            else:
                fn(str(path), **kwargs)
        return {"loader": ldr, "accepted": True, "error": None, "error_class": None, **extra}
    except BaseException as e:  # noqa: BLE001 - any failure is a verdict
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return {"loader": ldr, "accepted": False, "error": describe_error(e),
                "error_class": classify_error(e), **extra}
    finally:
        os.chdir(cwd)


def verdict_for_file(clf: Classifier, root: Path, path: Path, relative_origin: Optional[Path] = None,
                     kind: Optional[str] = None) -> Dict[str, Any]:
    rel = path.relative_to(root).as_posix()
    doc, err = read_doc(path)
    if kind is None:
        kind, family, how = clf.classify(doc if err is None else None, path.name)
    rec: Dict[str, Any] = {"path": rel, "kind": kind}
    if err is not None:
        # the CLI would fail on the YAML itself, whatever the kind
        rec.update({"loader": LOADERS.get(kind) if kind else None, "accepted": False,
                    "error": first_lines(f"{type(err).__name__}: {err}"), "error_class": "yaml"})
        return rec
    if kind is None:
        rec.update({"loader": None, "accepted": None, "error": None, "error_class": None})
        return rec
    rec.update(sdk_verdict(path, kind, relative_origin, doc))
    return rec


# --------------------------------------------------------------------------------------
# mutations
# --------------------------------------------------------------------------------------


def load_kind_schema(kind: str) -> Optional[Dict[str, Any]]:
    p = REPO / "schemas" / f"{kind}.schema.json"
    if not p.exists():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


class SchemaIndex:
    """Just enough of the generated schemas to choose mutation targets."""

    def __init__(self) -> None:
        self.docs: Dict[str, Any] = {}
        for p in (REPO / "schemas").glob("*.schema.json"):
            self.docs[p.name] = json.loads(p.read_text(encoding="utf-8"))
        common = REPO / "schemas" / "defs" / "common.json"
        if common.exists():
            self.docs["defs/common.json"] = json.loads(common.read_text(encoding="utf-8"))

    def resolve(self, s: Dict[str, Any], base: str) -> Tuple[Dict[str, Any], str]:
        seen = 0
        while isinstance(s, dict) and "$ref" in s and seen < 20:
            r = s["$ref"]
            f, _, frag = r.partition("#")
            fname = f or base
            doc = self.docs.get(fname)
            if doc is None:
                break
            node = doc
            for part in [p for p in frag.split("/") if p]:
                node = node[part]
            merged = {k: v for k, v in s.items() if k != "$ref"}
            s = dict(node, **merged) if merged else node
            base = fname
            seen += 1
        return s, base

    def object_props(self, s: Dict[str, Any], base: str, value: Any) -> Tuple[Dict[str, Any], List[str], Any, str]:
        s, base = self.resolve(s, base)
        for key in ("anyOf", "oneOf"):
            if key in s and isinstance(value, dict):
                disc = s.get("x-amlint-discriminator")
                for br in s[key]:
                    brr, bb = self.resolve(br, base)
                    if brr.get("type") not in (None, "object"):
                        continue
                    if disc:
                        c = (br.get("properties") or {}).get(disc)
                        v = value.get(disc)
                        if isinstance(c, dict) and "x-amlint-enum" in c and isinstance(v, str):
                            if v.lower() not in [str(x).lower() for x in c["x-amlint-enum"]["values"]]:
                                continue
                    props = dict(brr.get("properties") or {})
                    if props:
                        return props, list(brr.get("required") or []), brr.get("additionalProperties", True), bb
        props = dict(s.get("properties") or {})
        return props, list(s.get("required") or []), s.get("additionalProperties", True), base


def yaml_positions(text: str) -> Dict[Tuple, Tuple[int, int]]:
    """Map key paths to (key line, value line), 1-based, for block mappings."""
    out: Dict[Tuple, Tuple[int, int]] = {}
    try:
        node = yaml.compose(text)
    except Exception:
        return out

    def walk(n, path):
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                if isinstance(k, yaml.ScalarNode):
                    p = path + (k.value,)
                    out[p] = (k.start_mark.line + 1, v.start_mark.line + 1)
                    walk(v, p)
        elif isinstance(n, yaml.SequenceNode):
            for i, v in enumerate(n.value):
                walk(v, path + (i,))

    walk(node, ())
    return out


def misspell(key: str, rng: random.Random) -> str:
    if len(key) >= 4:
        i = rng.randrange(1, len(key) - 2)
        return key[:i] + key[i + 1] + key[i] + key[i + 2:] if key[i] != key[i + 1] else key[:i] + key[i + 1:]
    return key + key[-1]


def line_replace(lines: List[str], ln: int, old: str, new: str) -> bool:
    i = ln - 1
    if 0 <= i < len(lines) and old in lines[i]:
        lines[i] = lines[i].replace(old, new, 1)
        return True
    return False


def plan_mutations(doc: Dict[str, Any], text: str, kind: str, idx: SchemaIndex, src_dir: Path,
                   rng: random.Random) -> List[Dict[str, Any]]:
    """Return a list of {mutation, line, description, text} for one accepted file."""
    root = idx.docs.get(f"{kind}.schema.json")
    if root is None or not isinstance(doc, dict):
        return []
    pos = yaml_positions(text)
    lines = text.splitlines(keepends=True)
    cands: Dict[str, List[Dict[str, Any]]] = {k: [] for k in (
        "misspelt-key", "wrong-type", "bad-enum", "removed-required", "bad-asset-reference", "missing-local-path")}

    def visit(value: Any, schema: Dict[str, Any], base: str, path: Tuple, depth: int) -> None:
        if depth > 4 or not isinstance(value, dict):
            return
        props, required, addl, b2 = idx.object_props(schema, base, value)
        if not props:
            return
        for k, v in value.items():
            if not isinstance(k, str) or (path + (k,)) not in pos:
                continue
            kline, vline = pos[path + (k,)]
            ps = props.get(k)
            if ps is None:
                continue
            psr, pb = idx.resolve(ps, b2)
            if addl is False and k != "$schema" and not psr.get("x-amlint-read-only"):
                cands["misspelt-key"].append({"path": path + (k,), "line": kline, "key": k})
            if k in required and kline == vline and not isinstance(v, (dict, list)):
                cands["removed-required"].append({"path": path + (k,), "line": kline, "key": k})
            if isinstance(v, (dict, list)):
                if isinstance(v, dict):
                    visit(v, ps, b2, path + (k,), depth + 1)
                    ap = psr.get("additionalProperties")
                    if isinstance(ap, dict):
                        for k2, v2 in v.items():
                            if isinstance(v2, dict) and (path + (k, k2)) in pos:
                                visit(v2, ap, pb, path + (k, k2), depth + 2)
                continue
            if kline != vline or isinstance(v, bool) and False:
                continue
            raw = lines[vline - 1]
            xt = psr.get("x-amlint-type")
            if xt in ("integer", "number") and isinstance(v, (int, float)) and not isinstance(v, bool):
                cands["wrong-type"].append({"path": path + (k,), "line": vline, "old": str(v) if str(v) in raw else None, "new": "many" if xt == "integer" else "lots", "key": k})
            elif psr.get("type") == "string" and isinstance(v, str) and "x-amlint-forms" not in psr and k not in ("description", "$schema") and v in raw:
                cands["wrong-type"].append({"path": path + (k,), "line": vline, "old": None, "new": "[" + json.dumps(v) + "]", "key": k, "list": True})
            if "x-amlint-enum" in psr and isinstance(v, str) and v in raw and len(v) > 2:
                bad = v[:-1] if len(v) > 3 else v + "x"
                vals = psr["x-amlint-enum"]["values"]
                if bad not in vals:
                    cands["bad-enum"].append({"path": path + (k,), "line": vline, "old": v, "new": bad, "key": k})
            forms = []
            for br in [psr] + list(psr.get("anyOf", []) or []):
                brr, _ = idx.resolve(br, pb)
                forms += [f.get("form") for f in brr.get("x-amlint-forms", []) or []]
            if isinstance(v, str) and v.startswith("azureml:") and not v.startswith("azureml://") and ("arm-versioned" in forms) and v in raw:
                name = v[len("azureml:"):]
                if (":" in name or "@" in name) and "arm-versioned" in forms:
                    cands["bad-asset-reference"].append({"path": path + (k,), "line": vline, "old": v, "new": name, "key": k})
            checked = "local-path" in forms and "string" not in forms[: forms.index("local-path")]
            if isinstance(v, str) and checked and not re.match(r"^[a-z]+:", v) and v in raw and (src_dir / v).exists():
                cands["missing-local-path"].append({"path": path + (k,), "line": vline, "old": v, "new": v.rstrip("/") + "-missing", "key": k})

    visit(doc, root, f"{kind}.schema.json", (), 0)
    out = []
    for mut, cl in cands.items():
        if not cl:
            continue
        c = rng.choice(cl)
        new_lines = list(lines)
        ln = c["line"]
        if mut == "misspelt-key":
            bad = misspell(c["key"], rng)
            if not line_replace(new_lines, ln, c["key"] + ":", bad + ":"):
                continue
            desc = f"key '{c['key']}' misspelt as '{bad}'"
        elif mut == "removed-required":
            del new_lines[ln - 1]
            desc = f"required key '{c['key']}' removed"
        elif mut == "wrong-type":
            raw = new_lines[ln - 1]
            m = re.match(r"^(\s*(?:-\s+)?" + re.escape(c["key"]) + r"\s*:\s*)(.*?)(\s*(#.*)?)$", raw.rstrip("\n"))
            if not m:
                continue
            new_lines[ln - 1] = m.group(1) + c["new"] + (m.group(3) or "") + "\n"
            desc = f"'{c['key']}' given {'a list' if c.get('list') else 'a non-numeric string'} ({c['new']})"
        else:
            if not line_replace(new_lines, ln, c["old"], c["new"]):
                continue
            desc = {"bad-enum": "enum value", "bad-asset-reference": "asset reference without the azureml: prefix",
                    "missing-local-path": "local path that does not exist"}[mut] + f": '{c['old']}' -> '{c['new']}'"
        try:
            if not isinstance(yaml.safe_load("".join(new_lines)), dict):
                continue
        except yaml.YAMLError:
            continue  # the edit broke the YAML itself: not the mutation we meant
        out.append({"mutation": mut, "line": ln, "description": desc, "text": "".join(new_lines),
                    "json_pointer": "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in c["path"])})
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output directory (created); never inside the repository")
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="corpus directory (default: %(default)s)")
    ap.add_argument("--mutate", action="store_true", help="also generate and judge mutants of accepted files")
    ap.add_argument("--seed", type=int, default=1, help="random seed for --mutate (default 1)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files (debugging)")
    args = ap.parse_args(argv)

    root = Path(args.corpus).resolve()
    out = Path(args.out).resolve()
    if REPO in out.parents or out == REPO:
        print("refusing to write inside the repository", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    block_network()
    import azure.ai.ml  # noqa: F401  (import once, before timing-sensitive work)

    clf = Classifier()
    files = iter_config_files(root)
    if args.limit:
        files = files[: args.limit]
    records = []
    with open(out / "verdicts.jsonl", "w", encoding="utf-8") as fh:
        for p in files:
            rec = verdict_for_file(clf, root, p)
            records.append(rec)
            fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
    summarize(records, out / "summary.json")

    if args.mutate:
        mroot = out / "mutants"
        if mroot.exists():
            shutil.rmtree(mroot)
        shutil.copytree(root, mroot, symlinks=True)
        idx = SchemaIndex()
        rng = random.Random(args.seed)
        mrecs = []
        with open(out / "mutants.jsonl", "w", encoding="utf-8") as fh:
            for rec in records:
                if not rec.get("accepted"):
                    continue
                src = root / rec["path"]
                text = src.read_text(encoding="utf-8")
                doc, _ = read_doc(src)
                for i, m in enumerate(plan_mutations(doc, text, rec["kind"], idx, src.parent, rng)):
                    stem, dot, ext = src.name.rpartition(".")
                    name = f"{stem}.mut{i + 1}-{m['mutation']}.{ext}" if dot else f"{src.name}.mut{i + 1}-{m['mutation']}"
                    mpath = mroot / Path(rec["path"]).parent / name
                    mpath.write_text(m["text"], encoding="utf-8")
                    # judged with the same kind as its source (a mutation of `type:` must not re-classify it)
                    v = verdict_for_file(clf, mroot, mpath, kind=rec["kind"])
                    mrec = {"path": v["path"], "source": rec["path"], "mutation": m["mutation"], "line": m["line"],
                            "json_pointer": m["json_pointer"], "description": m["description"], "kind": rec["kind"],
                            "loader": v["loader"], "accepted": v["accepted"], "error": v["error"],
                            "error_class": v["error_class"]}
                    mrecs.append(mrec)
                    fh.write(json.dumps(mrec, ensure_ascii=False, sort_keys=True) + "\n")
        summarize(mrecs, out / "mutants-summary.json", by="mutation")
    return 0


def summarize(records: List[Dict[str, Any]], path: Path, by: str = "kind") -> None:
    from collections import Counter, defaultdict

    table: Dict[str, Counter] = defaultdict(Counter)
    for r in records:
        k = str(r.get(by))
        a = r.get("accepted")
        table[k]["files"] += 1
        table[k]["accepted" if a else ("rejected" if a is False else "not-loaded")] += 1
        if a is False:
            table[k]["error:" + str(r.get("error_class"))] += 1
    data = {k: dict(sorted(v.items())) for k, v in sorted(table.items())}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tot = Counter()
    for v in table.values():
        tot.update(v)
    print(f"{path.name}: " + ", ".join(f"{k}={v}" for k, v in sorted(tot.items())), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
