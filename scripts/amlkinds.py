"""Document classification shared by the amlint Python tooling.

Reads schemas/kinds.yaml and applies the classification it describes (see the
comment at the top of that file):

  1. ``$schema``: its file name (case-insensitive, ``.schema.json``/``.json``
     stripped) is looked up in every kind's ``schemas``;
  2. otherwise the first family whose ``detect`` alternative matches the shape;
  3. otherwise the first family whose ``files`` glob matches the file name and,
     when the family has ``files_when``, whose keys match that shape (a document
     that is not a mapping has no keys: its name decides).

Within the family, the first kind whose ``match`` alternative matches wins (a
kind without ``match`` matches everything); if none matches, the family's
first kind.

This mirrors what src/kinds.rs does; it is used by scripts/sdk_verdicts.py and
scripts/validate_with_schemas.py so that both halves of the comparison harness
agree on the kind of every file.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import yaml

REPO = Path(__file__).resolve().parent.parent
KINDS_YAML = REPO / "schemas" / "kinds.yaml"

_NO_TYPE = object()


def load_kinds(path: Path = KINDS_YAML) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def _schema_name(url: str) -> str:
    name = url.strip().rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    low = name.lower()
    for suffix in (".schema.json", ".json"):
        if low.endswith(suffix):
            return low[: -len(suffix)]
    return low


def schema_host(url: str) -> Optional[str]:
    m = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://([^/]+)", url.strip())
    return m.group(1).lower() if m else None


def _type_matches(doc: Dict[str, Any], values: List[Any]) -> bool:
    if "type" not in doc:
        return None in values
    t = doc["type"]
    if not isinstance(t, str):
        return False
    low = t.lower()
    return any(isinstance(v, str) and v.lower() == low for v in values)


def _entry_matches(value: Any, shape: Dict[str, Any]) -> bool:
    if not isinstance(value, dict):
        return bool(shape.get("scalar")) and not isinstance(value, list)
    if shape.get("scalar"):
        return False
    if "type" in shape:
        t = value.get("type")
        if not isinstance(t, str) or t.lower() not in [v.lower() for v in shape["type"]]:
            return False
    if shape.get("any_keys") and not any(k in value for k in shape["any_keys"]):
        return False
    return not any(k in value for k in shape.get("not_keys", []))


def shape_matches(doc: Dict[str, Any], alt: Dict[str, Any]) -> bool:
    if "type" in alt and not _type_matches(doc, alt["type"]):
        return False
    # A key that is not a string is named as Python prints it (YAML 1.1 `on:` is `True`).
    keys = {k if isinstance(k, str) else str(k) for k in doc}
    if any(k not in keys for k in alt.get("keys", [])):
        return False
    if alt.get("any_keys") and not any(k in keys for k in alt["any_keys"]):
        return False
    if any(k in keys for k in alt.get("not_keys", [])):
        return False
    entries = alt.get("entries")
    if entries:
        maps = [doc.get(m) for m in entries["of"]]
        if not any(isinstance(m, dict) and any(_entry_matches(v, e) for v in m.values() for e in entries["any"])
                   for m in maps):
            return False
    return True


class Classifier:
    def __init__(self, table: Optional[Dict[str, Any]] = None):
        self.table = table or load_kinds()
        self.families = self.table["families"]
        self.by_schema: Dict[str, Tuple[dict, dict]] = {}
        self.by_preview: Dict[str, Tuple[dict, dict]] = {}
        for fam in self.families:
            for kind in fam["kinds"]:
                for s in kind.get("schemas", []) or []:
                    self.by_schema.setdefault(s.lower(), (fam, kind))
                for s in kind.get("preview_schemas", []) or []:
                    self.by_preview.setdefault(s.lower(), (fam, kind))
        self.hosts = [h.lower() for h in self.table.get("schema_hosts", [])]

    def _pick_kind(self, fam: dict, doc: Dict[str, Any], declared: Optional[dict] = None) -> dict:
        for kind in fam["kinds"]:
            if any(shape_matches(doc, a) for a in kind.get("match") or []):
                return kind
        if declared is not None and declared in fam["kinds"]:
            return declared
        for kind in fam["kinds"]:
            if not kind.get("match"):
                return kind
        return fam["kinds"][0]

    def classify(self, doc: Any, file_name: str) -> Tuple[Optional[str], Optional[str], str]:
        """Return (kind id, family name, how) for a parsed document.

        ``how`` is one of ``$schema``, ``detect``, ``files`` or ``none``.
        Families marked ``skip`` still classify (their kind id is returned).
        """
        if isinstance(doc, dict):
            s = doc.get("$schema")
            if isinstance(s, str) and s.strip():
                url = s.strip().lower()
                for fam in self.families:
                    if any(fnmatch.fnmatchcase(url, g.lower()) for g in fam.get("schema_urls", []) or []):
                        return self._pick_kind(fam, doc)["id"], fam["family"], "$schema"
                hit = self.by_schema.get(_schema_name(s)) or self.by_preview.get(_schema_name(s))
                if hit:
                    fam, kind = hit
                    return self._pick_kind(fam, doc, kind)["id"], fam["family"], "$schema"
            for fam in self.families:
                for alt in fam.get("detect", []) or []:
                    if shape_matches(doc, alt):
                        return self._pick_kind(fam, doc)["id"], fam["family"], "detect"
        base = os.path.basename(file_name)
        for fam in self.families:
            when = fam.get("files_when")
            if when and isinstance(doc, dict) and not shape_matches(doc, when):
                continue
            for glob in fam.get("files", []) or []:
                if fnmatch.fnmatchcase(base.lower(), glob.lower()):
                    d = doc if isinstance(doc, dict) else {}
                    return self._pick_kind(fam, d)["id"], fam["family"], "files"
        return None, None, "none"

    def is_skipped_family(self, family: Optional[str]) -> bool:
        for fam in self.families:
            if fam["family"] == family:
                return bool(fam.get("skip"))
        return False


CONFIG_SUFFIXES = (".yml", ".yaml", ".json")


def iter_config_files(root: Path, table: Optional[Dict[str, Any]] = None):
    """Yield every YAML/JSON file under root (plus files named like a kinds.yaml
    ``files`` glob without such a suffix, e.g. ``MLTable``), sorted."""
    table = table or load_kinds()
    extra_globs = []
    for fam in table["families"]:
        for g in fam.get("files", []) or []:
            if not g.lower().endswith(CONFIG_SUFFIXES):
                extra_globs.append(g.lower())
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".git"))
        for fn in filenames:
            low = fn.lower()
            if low.endswith(CONFIG_SUFFIXES) or any(fnmatch.fnmatchcase(low, g) for g in extra_globs):
                out.append(Path(dirpath) / fn)
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())
