#!/usr/bin/env python3
"""Validate rules/data/vm-sizes.yaml (the Azure VM size catalogue).

Checks:
  * the file's shape: required fields, known keys, enum values, types, ISO dates;
  * series ids and aliases are unique (case-insensitive);
  * size names are unique (case-insensitive);
  * every size name parses with the VM naming regex (azureml-facts.md section 4.1),
    and the parse satisfies its own series' `match` and no other series' `match`;
  * GPU/FPGA counts agree with the series category; constrained-vCPU sizes
    (`M8-2ms`) have vcpus equal to the active count;
  * `isolated: true` only on the sizes the Azure ML docs list as isolated.

Optionally (`--corpus DIR`) it scans a directory of configs for `Standard_*`
strings and reports, for each VM size it finds, whether the catalogue knows the
exact size, only its series, or neither (the last is an error).

Needs Python 3.8+ and PyYAML only, e.g.
    python3 -m venv /work/venv-data && /work/venv-data/bin/pip install pyyaml
    /work/venv-data/bin/python scripts/check_vm_catalogue.py [--corpus DIR]
Exit status: 0 when every check passes, 1 otherwise, 2 on usage errors.
"""

import argparse
import datetime as dt
import os
import re
import sys

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("check_vm_catalogue.py needs PyYAML (pip install pyyaml)")

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "rules", "data", "vm-sizes.yaml")

# Naming regex from azureml-facts.md section 4.1, applied case-insensitively to the
# name after the tier prefix. One change: the generic accelerator alternative is
# `[A-UW-Z]\d+[A-Z]*` instead of `[A-Z]\d+[A-Z]*`. Under IGNORECASE the original
# also matches the version token, so "D2s_v3" parsed as accelerator "v3" with no
# version. Excluding V keeps the regex free of look-around (Rust's `regex` crate
# has none); the only V accelerator, V710, is an explicit alternative.
#
# Variant tokens (the same in src/facts/vm.rs): digits glued to the feature letters (`B1ls2`,
# `ND128isrG5_GB300_v6`) and one `_`-separated token before the accelerator or version: `cc`
# (confidential child, `DC4as_cc_v5`), `xl` (`NC128ds_xl_RTXPRO6000BSE_v6`) or digits (memory
# variants `M416s_8_v2`, `M48s_1_v3`, `M896ixds_32_v3`). They take part in matching
# (`match.variant`). Accelerator tokens the generic alternative cannot spell are explicit.
NAME_RE = re.compile(
    r"^(?P<fam>[A-Z]+?)(?P<cpu>\d+)(?:-(?P<con>\d+))?(?P<feat>[a-z]*)(?P<glued>\d+)?(?:_(?P<sub>cc|xl|\d+))?"
    r"(?:_NDR)?(?:_(?P<acc>[A-UW-Z]\d+[A-Z]*|GB200|GB300|T4|A10|A100|H100|H200|MI300X|MA35D|RTXPRO6000BSE|V620|V710))?"
    r"(?:_(?P<ver>v\d+))?(?P<promo>_Promo)?$",
    re.IGNORECASE,
)
TIER_RE = re.compile(r"^(?:Standard|Basic)_", re.IGNORECASE)

# Azure ML concept-compute-target, "Compute isolation".
AML_ISOLATED = {"standard_m128ms", "standard_f72s_v2", "standard_nc24s_v3", "standard_nc24rs_v3"}

CATEGORIES = {"cpu", "gpu", "fpga", "hpc"}
SUPPORT = {"supported", "requires-approval", "unsupported"}
SUPPORT_BASIS = {"seed", "aml-2021", "aml-docs", "inferred"}
SERIES_REQUIRED = {"id", "aliases", "family", "category", "support", "support_basis", "support_note", "source", "match", "sizes"}
SERIES_OPTIONAL = {"accelerator", "retirement", "retirement_note", "retired", "quota_family", "quota_family_aliases"}
MATCH_REQUIRED = {"family", "features", "accelerator", "version"}
MATCH_OPTIONAL = {"number", "variant"}
SIZE_REQUIRED = {"name", "vcpus", "memory_gib", "gpus", "isolated"}
SIZE_OPTIONAL = {"fpgas", "note", "quota_family"}


def quota_key(family):
    """The key a quota family is matched by, in the catalogue and in an Azure ML usage list:
    lower-case letters and digits, without the leading `standard` and the trailing `family`
    (`standardNCASv3_T4Family`, `Standard NCASv3_T4 Family` and the usage line `Standard
    NCASv3_T4 Family Cluster Dedicated vCPUs`, once its suffix is cut, all give `ncasv3t4`).
    The same normalisation as `config::workspace::family_key` in the Rust code."""
    k = re.sub(r"[^a-z0-9]", "", family.lower())
    if k.startswith("standard"):
        k = k[len("standard"):]
    if k.endswith("family"):
        k = k[: -len("family")]
    return k


def check_quota_family(value, where, err):
    if not (isinstance(value, str) and value.strip() and quota_key(value)):
        err(f"{where}: `quota_family` must be a family name such as standardDSv2Family")
        return False
    return True


def parse_size(name):
    """Parse a VM size string. Returns a dict or None if it is not a VM size name."""
    m = TIER_RE.match(name)
    if not m:
        return None
    m = NAME_RE.match(name[m.end():])
    if not m:
        return None
    return {
        "family": m.group("fam").upper(),
        "cpu": int(m.group("cpu")),
        "constrained": int(m.group("con")) if m.group("con") else None,
        "features": m.group("feat").lower(),
        "accelerator": m.group("acc").upper() if m.group("acc") else None,
        "version": m.group("ver").lower() if m.group("ver") else None,
        "variant": "_".join(g.lower() for g in (m.group("glued"), m.group("sub")) if g),
        "promo": bool(m.group("promo")),
    }


def normalize_features(feat):
    """Feature letters as compared with `match.features`: lower-case, RDMA `r` removed."""
    return feat.lower().replace("r", "")


def feature_set(match):
    f = match.get("features")
    return {f} if isinstance(f, str) else set(f or [])


def variant_set(match):
    """`match.variant` as a set of lower-case tokens; absent means no variant (`""`)."""
    v = match.get("variant", "")
    return {str(x).lower() for x in ([v] if isinstance(v, (str, int)) else v or [])}


def matches(parsed, match):
    if parsed["family"] != str(match["family"]).upper():
        return False
    if normalize_features(parsed["features"]) not in feature_set(match):
        return False
    acc = match.get("accelerator")
    if (acc.upper() if acc else None) != parsed["accelerator"]:
        return False
    ver = match.get("version")
    if (ver.lower() if ver else None) != parsed["version"]:
        return False
    if "number" in match and parsed["cpu"] not in match["number"]:
        return False
    if parsed["variant"] not in variant_set(match):
        return False
    return True


def self_test():
    cases = {
        "Standard_D2s_v3": ("D", 2, None, "s", None, "v3"),
        "STANDARD_DS3_v2": ("DS", 3, None, "", None, "v2"),
        "STANDARD_NC4AS_T4_V3": ("NC", 4, None, "as", "T4", "v3"),
        "Standard_NC80adis_H100_v5": ("NC", 80, None, "adis", "H100", "v5"),
        "Standard_HB120-16rs_v3": ("HB", 120, 16, "rs", None, "v3"),
        "Standard_NC6_Promo": ("NC", 6, None, "", None, None),
        "Standard_FX4mds": ("FX", 4, None, "mds", None, None),
        "standard_e4s_v3": ("E", 4, None, "s", None, "v3"),
        "Standard_NV28adms_V710_v5": ("NV", 28, None, "adms", "V710", "v5"),
        "STANDARD_D2_V3": ("D", 2, None, "", None, "v3"),
        "Standard_NG8ads_V620_v1": ("NG", 8, None, "ads", "V620", "v1"),
        "Standard_NM16ads_MA35D": ("NM", 16, None, "ads", "MA35D", None),
    }
    for name, want in cases.items():
        p = parse_size(name)
        got = p and (p["family"], p["cpu"], p["constrained"], p["features"], p["accelerator"], p["version"])
        assert got == want, f"naming regex self-test: {name} -> {got}, want {want}"
    variants = {
        "Standard_M416s_8_v2": ("s", "8", None, "v2"),
        "Standard_M48ds_1_v3": ("ds", "1", None, "v3"),
        "Standard_DC4as_cc_v5": ("as", "cc", None, "v5"),
        "Standard_B1ls2": ("ls", "2", None, None),
        "Standard_ND128isrG5_GB300_v6": ("isrg", "5", "GB300", "v6"),
        "Standard_NC128ds_xl_RTXPRO6000BSE_v6": ("ds", "xl", "RTXPRO6000BSE", "v6"),
        "Standard_D2s_v3": ("s", "", None, "v3"),
    }
    for name, want in variants.items():
        p = parse_size(name)
        got = p and (p["features"], p["variant"], p["accelerator"], p["version"])
        assert got == want, f"naming regex self-test: {name} -> {got}, want {want}"
    for not_a_size in ("Standard_LRS", "defaultinstancetype", "Standard_D2s_v3_x"):
        assert parse_size(not_a_size) is None, f"naming regex self-test: {not_a_size} should not parse"


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_date(value):
    if isinstance(value, dt.date):
        return True
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            dt.date.fromisoformat(value)
            return True
        except ValueError:
            return False
    return False


def validate(doc):
    errors = []
    err = errors.append
    if not isinstance(doc, dict):
        return ["top level must be a mapping"]
    if doc.get("version") != 1:
        err("top-level `version` must be 1")
    unknown = set(doc) - {"version", "updated", "series"}
    if unknown:
        err(f"unknown top-level keys: {sorted(unknown)}")
    if "updated" in doc and not check_date(doc["updated"]):
        err(f"top-level `updated` {doc['updated']!r} is not a valid YYYY-MM-DD date")
    series = doc.get("series")
    if not isinstance(series, list) or not series:
        return errors + ["`series` must be a non-empty list"]

    labels = {}
    size_names = {}
    for i, s in enumerate(series):
        where = f"series[{i}]"
        if not isinstance(s, dict):
            err(f"{where}: must be a mapping")
            continue
        sid = s.get("id")
        where = f"series {sid!r}" if sid else where
        missing = SERIES_REQUIRED - set(s)
        if missing:
            err(f"{where}: missing {sorted(missing)}")
        unknown = set(s) - SERIES_REQUIRED - SERIES_OPTIONAL
        if unknown:
            err(f"{where}: unknown keys {sorted(unknown)}")
        for key in ("id", "family", "support_note", "source"):
            if key in s and (not isinstance(s[key], str) or not s[key].strip()):
                err(f"{where}: `{key}` must be a non-empty string")
        if not isinstance(s.get("aliases"), list) or not all(isinstance(a, str) and a for a in s.get("aliases") or []):
            err(f"{where}: `aliases` must be a list of strings")
        for label in [sid] + list(s.get("aliases") or []):
            if isinstance(label, str):
                key = label.lower()
                if key in labels:
                    err(f"{where}: label {label!r} already used by series {labels[key]!r}")
                labels[key] = sid
        cat = s.get("category")
        if cat not in CATEGORIES:
            err(f"{where}: `category` {cat!r} not in {sorted(CATEGORIES)}")
        if s.get("support") not in SUPPORT:
            err(f"{where}: `support` {s.get('support')!r} not in {sorted(SUPPORT)}")
        if s.get("support_basis") not in SUPPORT_BASIS:
            err(f"{where}: `support_basis` {s.get('support_basis')!r} not in {sorted(SUPPORT_BASIS)}")
        if cat in ("gpu", "fpga") and not s.get("accelerator"):
            err(f"{where}: {cat} series needs `accelerator`")
        if cat in ("cpu", "hpc") and "accelerator" in s:
            err(f"{where}: {cat} series must not have `accelerator`")
        if "retirement" in s and not check_date(s["retirement"]):
            err(f"{where}: `retirement` {s['retirement']!r} is not a valid YYYY-MM-DD date")
        if "retired" in s and s["retired"] is not True:
            err(f"{where}: `retired` may only be `true` (omit it otherwise)")
        if "retired" in s and "retirement" in s:
            err(f"{where}: give either `retirement` (a date) or `retired: true` (date unknown), not both")
        if ("retirement" in s or "retired" in s) != ("retirement_note" in s):
            err(f"{where}: `retirement_note` goes with `retirement` / `retired` (both or neither)")
        if "quota_family" in s:
            check_quota_family(s["quota_family"], where, err)
        if "quota_family_aliases" in s:
            aliases = s["quota_family_aliases"]
            if "quota_family" not in s:
                err(f"{where}: `quota_family_aliases` needs a `quota_family`")
            if not (isinstance(aliases, list) and aliases and all(isinstance(a, str) and quota_key(a) for a in aliases)):
                err(f"{where}: `quota_family_aliases` must be a non-empty list of family names")
            elif isinstance(s.get("quota_family"), str) and any(quota_key(a) == quota_key(s["quota_family"]) for a in aliases):
                err(f"{where}: a `quota_family_aliases` entry is the `quota_family` itself")

        match = s.get("match")
        if not isinstance(match, dict):
            err(f"{where}: `match` must be a mapping")
            match = None
        else:
            missing = MATCH_REQUIRED - set(match)
            if missing:
                err(f"{where}: match missing {sorted(missing)} (write null explicitly)")
            unknown = set(match) - MATCH_REQUIRED - MATCH_OPTIONAL
            if unknown:
                err(f"{where}: match has unknown keys {sorted(unknown)}")
            if not isinstance(match.get("family"), str) or not re.fullmatch(r"[A-Z]+", match.get("family") or ""):
                err(f"{where}: match.family must be upper-case letters")
            feats = match.get("features")
            flist = [feats] if isinstance(feats, str) else feats
            if not isinstance(flist, list) or not flist or not all(isinstance(f, str) for f in flist):
                err(f"{where}: match.features must be a string or a non-empty list of strings")
            else:
                for f in flist:
                    if not re.fullmatch(r"[a-qs-z]*", f):
                        err(f"{where}: match.features {f!r} must be lower-case letters without `r`")
            acc = match.get("accelerator")
            if acc is not None and not (isinstance(acc, str) and re.fullmatch(r"[A-Z0-9]+", acc)):
                err(f"{where}: match.accelerator must be null or an upper-case token like A100")
            ver = match.get("version")
            if ver is not None and not (isinstance(ver, str) and re.fullmatch(r"v\d+", ver)):
                err(f"{where}: match.version must be null or v<N>")
            if "number" in match and not (isinstance(match["number"], list) and all(isinstance(n, int) for n in match["number"])):
                err(f"{where}: match.number must be a list of integers")
            if "variant" in match:
                v = match["variant"]
                vlist = [v] if isinstance(v, str) else v
                if not (isinstance(vlist, list) and vlist and all(isinstance(x, str) and re.fullmatch(r"[a-z0-9_]*", x) for x in vlist)):
                    err(f"{where}: match.variant must be a string or a non-empty list of lower-case tokens (\"\" = none)")

        sizes = s.get("sizes")
        if not isinstance(sizes, list) or not sizes:
            err(f"{where}: `sizes` must be a non-empty list")
            continue
        for z in sizes:
            if not isinstance(z, dict):
                err(f"{where}: size entries must be mappings")
                continue
            name = z.get("name")
            zw = f"{where} / {name!r}"
            missing = SIZE_REQUIRED - set(z)
            if missing:
                err(f"{zw}: missing {sorted(missing)}")
            unknown = set(z) - SIZE_REQUIRED - SIZE_OPTIONAL
            if unknown:
                err(f"{zw}: unknown keys {sorted(unknown)}")
            if not isinstance(name, str):
                err(f"{zw}: `name` must be a string")
                continue
            if not name.startswith("Standard_"):
                err(f"{zw}: name must use the canonical `Standard_` prefix")
            key = name.lower()
            if key in size_names:
                err(f"{zw}: duplicate size name (also in series {size_names[key]!r})")
            size_names[key] = sid
            if "quota_family" in z:
                if "quota_family" not in s:
                    err(f"{zw}: a size's `quota_family` overrides its series' one, which is missing")
                elif check_quota_family(z["quota_family"], zw, err) and isinstance(s.get("quota_family"), str) and quota_key(z["quota_family"]) == quota_key(s["quota_family"]):
                    err(f"{zw}: `quota_family` repeats the series' one (omit it)")
            if not (isinstance(z.get("vcpus"), int) and not isinstance(z.get("vcpus"), bool) and z["vcpus"] > 0):
                err(f"{zw}: `vcpus` must be a positive integer")
            if not (is_number(z.get("memory_gib")) and z["memory_gib"] > 0):
                err(f"{zw}: `memory_gib` must be a positive number")
            gpus = z.get("gpus")
            if not (is_number(gpus) and gpus >= 0):
                err(f"{zw}: `gpus` must be a number >= 0")
            elif (cat == "gpu") != (gpus > 0):
                err(f"{zw}: gpus={gpus} does not fit category {cat!r}")
            fpgas = z.get("fpgas", 0)
            if not (isinstance(fpgas, int) and fpgas >= 0) or ("fpgas" in z and fpgas == 0):
                err(f"{zw}: `fpgas` must be a positive integer (omit it when 0)")
            elif (cat == "fpga") != (fpgas > 0):
                err(f"{zw}: fpgas={fpgas} does not fit category {cat!r}")
            if not isinstance(z.get("isolated"), bool):
                err(f"{zw}: `isolated` must be true or false")
            elif z["isolated"] != (key in AML_ISOLATED):
                err(f"{zw}: isolated={z['isolated']} but the Azure ML isolated list says {key in AML_ISOLATED}")
            if "note" in z and not (isinstance(z["note"], str) and z["note"].strip()):
                err(f"{zw}: `note` must be a non-empty string")

            parsed = parse_size(name)
            if parsed is None:
                err(f"{zw}: does not parse with the VM naming regex")
                continue
            if parsed["constrained"] is not None and z.get("vcpus") != parsed["constrained"]:
                err(f"{zw}: constrained-vCPU size should have vcpus={parsed['constrained']}")
            if match is not None and not matches(parsed, match):
                err(f"{zw}: parse {parsed} does not satisfy its series match {match}")
            others = [o.get("id") for o in series
                      if o is not s and isinstance(o, dict) and isinstance(o.get("match"), dict)
                      and MATCH_REQUIRED <= set(o["match"]) and matches(parsed, o["match"])]
            if others:
                err(f"{zw}: also matches series {others}")
    return errors


def lookup(doc, name):
    """Mimic the engine: exact name first, then the series whose match fits."""
    key = name.lower()
    for s in doc["series"]:
        for z in s["sizes"]:
            if z["name"].lower() == key:
                return "size", s["id"]
    parsed = parse_size(name)
    if parsed is None:
        return "not-a-size", None
    hits = [s["id"] for s in doc["series"] if matches(parsed, s["match"])]
    return ("series", hits[0]) if len(hits) == 1 else ("unknown", None)


def scan_corpus(doc, root):
    token = re.compile(r"\b(?:Standard|Basic)_[A-Za-z0-9_-]+", re.IGNORECASE)
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for fn in filenames:
            path = os.path.join(dirpath, fn)
            try:
                with open(path, encoding="utf-8", errors="ignore") as fh:
                    text = fh.read()
            except OSError:
                continue
            for t in token.findall(text):
                found.setdefault(t, set()).add(os.path.relpath(path, root))
    problems = 0
    for t in sorted(found, key=str.lower):
        kind, sid = lookup(doc, t)
        if kind == "unknown":
            problems += 1
        label = {"size": f"size in series {sid}", "series": f"series {sid} only (size not listed)",
                 "not-a-size": "not a VM size name", "unknown": "UNKNOWN VM size"}[kind]
        print(f"  {t:32} {len(found[t]):3} file(s)  {label}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", default=DEFAULT_PATH, help="catalogue file (default: rules/data/vm-sizes.yaml)")
    ap.add_argument("--corpus", help="directory of configs to scan for Standard_* VM size strings")
    args = ap.parse_args()
    self_test()
    try:
        with open(args.path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
    except (OSError, yaml.YAMLError) as e:
        print(f"cannot load {args.path}: {e}", file=sys.stderr)
        return 2
    errors = validate(doc)
    for e in errors:
        print(f"error: {e}")
    if errors:
        print(f"{len(errors)} error(s)")
        return 1
    n_sizes = sum(len(s["sizes"]) for s in doc["series"])
    print(f"ok: {len(doc['series'])} series, {n_sizes} sizes")
    if args.corpus:
        print(f"corpus {args.corpus}:")
        if scan_corpus(doc, args.corpus):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
