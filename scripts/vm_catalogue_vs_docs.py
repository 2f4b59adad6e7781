#!/usr/bin/env python3
"""Compare rules/data/vm-sizes.yaml with the Azure VM size pages of a local checkout of
MicrosoftDocs/azure-compute-docs, and report what the catalogue lacks or gets wrong.

    python3 scripts/vm_catalogue_vs_docs.py CHECKOUT [CHECKOUT ...] [--catalogue FILE] [--json]
    python3 scripts/vm_catalogue_vs_docs.py [CHECKOUT ...] --sku-families FILE [--usage-example FILE]
    python3 scripts/vm_catalogue_vs_docs.py --self-test

CHECKOUT is a folder holding `articles/virtual-machines/sizes/` of that repository (a git
clone, or a partial copy of the size pages), or `articles/virtual-machines/sizes-previous-gen.md`
of MicrosoftDocs/azure-docs (the previous-generation sizes: A, D, DS, F, Fs, G, GS, Ls, NC, ND,
NV, NVv2); several may be given. No network: the script reads only those folders and the
catalogue. The commit the pages come from is read from each checkout (`git rev-parse HEAD`),
else from a `SOURCE` file at its top ("<path> <commit>" per line, for a partial copy made file
by file), and printed with the report: say it when you update the catalogue.

What it reads, per series page (`sizes/<category>/<series>-series*.md`, not `includes/`,
family pages or lifecycle pages; and the previous-generation page): every markdown table whose
first column holds size names (`Standard_...`, after footnote marks, `&nbsp;`, bold and a
trailing `*` are removed): vCPUs ("vCPU"/"Cores" column) and memory ("Memory"/"RAM") from the
first table with a vCPU column, the accelerator count from a table with a "GPU"/"Accelerators
(Qty.)" column (compared with the catalogue's `gpus`, or `fpgas` for FPGA series). A few names
the docs misprint are read as the size they name (`DOC_MISPRINTS`, each with its reason).
What it reports:

  missing size     listed by the docs, not in the catalogue (with the docs' numbers)
  mismatch         in both, but vCPUs, memory or GPUs differ
  missing series   a page none of whose sizes the catalogue's series accept (`match`)
  unpaged series   a catalogue series with no size on any page of the checkout (retired
                   series whose pages left the docs, or pages the checkout lacks)

Quota families (`quota_family`, `quota_family_aliases`, a size's own `quota_family`): with
`--sku-families FILE`, each listed size's family is compared with the `family` the
Microsoft.Compute SKUs API gives it. FILE is either `az vm list-skus --resource-type
virtualMachines -o json` saved as JSON (a list of objects with `name` and `family`), or
microsoft/aspire's `src/Aspire.Hosting.Azure.Kubernetes/AksNodeVmSizes.Generated.cs`, which
groups every size of that API by family ("VM sizes in the standardDSv2Family."). With
`--usage-example FILE` (the Machine Learning REST API's "Usages - List" example, or any
`az ml compute list-usage -o json` output), each family line of the usage list must name a
family of the catalogue. Families are compared by `check_vm_catalogue.quota_key` (case,
spaces, `_`, `standard` and `Family` ignored), as amlint compares a usage line with a size.

  family mismatch  a size's family in the catalogue differs from the SKUs API's
  family missing   a series without `quota_family` whose sizes the SKUs API knows
  usage family     a family line of the usage example that no catalogue family names

Exit status: 0 when nothing is missing or mismatched, 1 otherwise, 2 on usage errors.
Needs Python 3.8+ and PyYAML (the same as scripts/check_vm_catalogue.py, whose naming
regex and series matching it reuses).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_vm_catalogue as cvc  # noqa: E402  (the naming regex and `match` semantics)

import yaml  # noqa: E402

DEFAULT_CATALOGUE = cvc.DEFAULT_PATH
SIZES_DIR = os.path.join("articles", "virtual-machines", "sizes")
SKIP_DIRS = {"includes", "lifecycle", "retirement", "media"}
PREVIOUS_GEN = os.path.join("articles", "virtual-machines", "sizes-previous-gen.md")
SIZE_CELL = re.compile(r"^(?:Standard|Basic)_[A-Za-z0-9_-]+$", re.IGNORECASE)
# Size names the docs print wrongly, read as the size they name.
DOC_MISPRINTS = {
    # Edv5 page: the footnote mark 2 of `Standard_E104id_v5<sup>2</sup>` lost its tags.
    "Standard_E104id_v52": "Standard_E104id_v5",
    # Dav4 page: likewise for `Standard_D2a_v4<sup>1</sup>`.
    "Standard_D2a_v41": "Standard_D2a_v4",
    # Lsv2 page: likewise for `Standard_L80s_v2<sup>6</sup>` (Basics and Network tables).
    "Standard_L80s_v26": "Standard_L80s_v2",
}
NUMBER = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)")
FRACTION = re.compile(r"^\s*([0-9]+)\s*/\s*([0-9]+)")


def checkout_commit(root):
    try:
        out = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
        if out.returncode == 0:
            return {"*": out.stdout.strip()}
    except (OSError, subprocess.SubprocessError):
        pass
    source = os.path.join(root, "SOURCE")
    commits = {}
    if os.path.exists(source):
        for line in open(source, encoding="utf-8"):
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#"):
                commits[parts[0]] = parts[1]
    return commits


def series_pages(root):
    previous_gen = os.path.join(root, PREVIOUS_GEN)
    if os.path.exists(previous_gen):
        yield previous_gen
    base = os.path.join(root, SIZES_DIR)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for f in sorted(filenames):
            if f.endswith(".md") and "series" in f and "retirement" not in f and "overview" not in f:
                yield os.path.join(dirpath, f)


def cells(line):
    line = line.strip()
    if not (line.startswith("|") and line.endswith("|")):
        return None
    return [c.strip() for c in line.strip("|").split("|")]


def size_name(cell):
    """The size name in a table's first cell: footnote marks, `&nbsp;`, bold, escapes and a
    trailing `*` (RDMA mark) removed; misprints corrected."""
    name = re.sub(r"<sup>.*?</sup>", "", cell)
    name = name.replace("&nbsp;", "").replace("**", "").replace("\\", "").strip().rstrip("*").strip()
    return DOC_MISPRINTS.get(name, name)


def number(text):
    text = re.sub(r"<sup>.*?</sup>", "", text)  # footnote marks
    text = re.sub(r"<[^>]+>", "", text).replace(",", "")
    m = FRACTION.match(text)
    if m:
        return round(int(m.group(1)) / int(m.group(2)), 4)
    m = NUMBER.match(text)
    return float(m.group(1)) if m else None


def tables(text):
    """Markdown tables as (header cells, rows of cells)."""
    out, header, rows = [], None, []
    for line in text.splitlines():
        c = cells(line)
        if c is None:
            if header:
                out.append((header, rows))
            header, rows = None, []
        elif header is None:
            header = c
        elif all(set(x) <= set("-: ") for x in c):
            continue
        else:
            rows.append(c)
    if header:
        out.append((header, rows))
    return out


def column(header, *words):
    for i, h in enumerate(header):
        hl = h.lower()
        if all(w in hl for w in words):
            return i
    return None


def parse_page(path):
    """{size name: {"vcpus", "memory_gib", "gpus"}} of one series page."""
    text = open(path, encoding="utf-8", errors="replace").read()
    sizes = {}
    for header, rows in tables(text):
        if not rows or not all(r and SIZE_CELL.match(size_name(r[0])) for r in rows):
            continue
        header = [h.replace("*", "") for h in header]
        vcpu = column(header, "vcpu")
        if vcpu is None:
            vcpu = column(header, "cores")
        mem = column(header, "memory")
        if mem is None:
            mem = column(header, "ram")
        gpu = column(header, "gpu") if column(header, "gpu", "memory") is None else None
        if gpu is None:
            gpu = column(header, "accelerators (qty")
        if gpu is None:
            gpu = next((i for i, h in enumerate(header) if h.lower().startswith("gpu")), None)
        for r in rows:
            name = size_name(r[0])
            entry = sizes.setdefault(name, {})
            if vcpu is not None and vcpu < len(r) and "vcpus" not in entry:
                entry["vcpus"] = number(r[vcpu])
                if mem is not None and mem < len(r):
                    entry["memory_gib"] = number(r[mem])
            if gpu is not None and gpu < len(r) and "gpus" not in entry:
                entry["gpus"] = number(r[gpu])
    return sizes


def catalogue_index(doc):
    sizes, series = {}, doc.get("series") or []
    for s in series:
        for z in s.get("sizes") or []:
            sizes[z["name"].lower()] = (s["id"], z)
    return sizes, series


def series_for(series, name):
    p = cvc.parse_size(name)
    if not p:
        return None
    hits = [s["id"] for s in series if cvc.matches(p, s["match"])]
    return hits[0] if len(hits) == 1 else None


def compare(roots, catalogue_path):
    if isinstance(roots, str):
        roots = [roots]
    doc = yaml.safe_load(open(catalogue_path, encoding="utf-8"))
    by_name, series = catalogue_index(doc)
    commits = {}
    for root in roots:
        for path, commit in checkout_commit(root).items():
            commits[path if path != "*" or len(roots) == 1 else root] = commit
    report = {"commits": commits, "pages": 0, "missing_sizes": [], "mismatches": [],
              "missing_series": [], "unpaged_series": []}
    paged = set()
    for root, path in ((r, p) for r in roots for p in series_pages(r)):
        sizes = parse_page(path)
        if not sizes:
            continue
        rel = os.path.relpath(path, root)
        report["pages"] += 1
        page_series = set()
        for name, got in sorted(sizes.items()):
            known = by_name.get(name.lower())
            sid = known[0] if known else series_for(series, name)
            if sid:
                page_series.add(sid)
                paged.add(sid)
            if not known:
                report["missing_sizes"].append({"page": rel, "name": name, "series": sid, **got})
                continue
            z = known[1]
            for key in ("vcpus", "memory_gib", "gpus"):
                # The docs' accelerator column counts GPUs or FPGAs alike.
                have = float(z.get(key, 0)) + (float(z.get("fpgas", 0)) if key == "gpus" else 0)
                if got.get(key) is not None and abs(have - got[key]) > 0.01:
                    report["mismatches"].append({"page": rel, "name": name, "field": key,
                                                 "catalogue": have, "docs": got[key]})
        if not page_series:
            report["missing_series"].append({"page": rel, "sizes": sorted(sizes)})
    for s in series:
        if s["id"] not in paged:
            report["unpaged_series"].append(s["id"])
    return report


def read_sku_families(path):
    """{size name (lower case): family} from an `az vm list-skus -o json` dump or Aspire's
    generated C# file."""
    text = open(path, encoding="utf-8").read()
    out = {}
    if path.endswith(".cs"):
        family = None
        for line in text.splitlines():
            m = re.search(r"/// VM sizes in the (.+)\.\s*$", line)
            if m:
                family = m.group(1).strip()
                continue
            m = re.search(r'= "((?:Standard|Basic)_[^"]+)";', line)
            if m and family:
                out[m.group(1).lower()] = family
        return out
    for sku in json.loads(text):
        if isinstance(sku, dict) and isinstance(sku.get("name"), str) and isinstance(sku.get("family"), str):
            if sku.get("resourceType", "virtualMachines") == "virtualMachines":
                out[sku["name"].lower()] = sku["family"]
    return out


USAGE_LINE = re.compile(r"^(?P<family>.+?)\s+Cluster\s+(?:Dedicated|Low\s*Priority)\s+vCPUs$", re.IGNORECASE)


def usage_families(path):
    """The family of each `<family> Cluster Dedicated|LowPriority vCPUs` line of a usage list:
    the REST example (`responses.200.body.value`), a REST page (`value`) or the CLI's list."""
    doc = json.load(open(path, encoding="utf-8"))
    if isinstance(doc, dict) and "responses" in doc:
        doc = doc["responses"]["200"]["body"]
    items = doc.get("value") if isinstance(doc, dict) else doc
    out = set()
    for item in items or []:
        name = item.get("name") if isinstance(item, dict) else None
        texts = [name.get(k) for k in ("value", "localizedValue", "localized_value")] if isinstance(name, dict) else []
        for t in texts:
            m = USAGE_LINE.match(t.strip()) if isinstance(t, str) else None
            if m and not m.group("family").lower().startswith("total"):
                out.add(m.group("family"))
                break
    return out


def compare_families(doc, sku_path, usage_path):
    report = {"family_mismatches": [], "family_missing": [], "usage_unknown": []}
    known = set()
    for s in doc.get("series") or []:
        for f in [s.get("quota_family")] + list(s.get("quota_family_aliases") or []):
            if f:
                known.add(cvc.quota_key(f))
        for z in s.get("sizes") or []:
            if z.get("quota_family"):
                known.add(cvc.quota_key(z["quota_family"]))
    if sku_path:
        skus = read_sku_families(sku_path)
        for s in doc.get("series") or []:
            listed = [(z, skus[z["name"].lower()]) for z in s.get("sizes") or [] if z["name"].lower() in skus]
            if not s.get("quota_family"):
                if listed:
                    report["family_missing"].append({"series": s["id"], "skus": sorted({f for _, f in listed})})
                continue
            for z, family in listed:
                have = z.get("quota_family") or s["quota_family"]
                if cvc.quota_key(have) != cvc.quota_key(family):
                    report["family_mismatches"].append({"name": z["name"], "catalogue": have, "skus": family})
    if usage_path:
        for f in sorted(usage_families(usage_path)):
            if cvc.quota_key(f) not in known:
                report["usage_unknown"].append(f)
    return report


def render(report):
    lines = []
    commits = report["commits"]
    if "*" in commits:
        lines.append(f"azure-compute-docs commit: {commits['*']}")
    elif commits:
        lines.append(f"docs: partial copies, {len(commits)} files (commits in their SOURCE files)")
    else:
        lines.append("azure-compute-docs: commit unknown (no git and no SOURCE file)")
    lines.append(f"series pages read: {report['pages']}")
    for m in report["missing_series"]:
        lines.append(f"missing series  {m['page']}: {', '.join(m['sizes'])}")
    for m in report["missing_sizes"]:
        nums = ", ".join(f"{k} {m[k]}" for k in ("vcpus", "memory_gib", "gpus") if m.get(k) is not None)
        lines.append(f"missing size    {m['name']} ({m['series'] or 'no series'}; {nums}) from {m['page']}")
    for m in report["mismatches"]:
        lines.append(f"mismatch        {m['name']} {m['field']}: catalogue {m['catalogue']}, docs {m['docs']} ({m['page']})")
    for s in report["unpaged_series"]:
        lines.append(f"unpaged series  {s}")
    for m in report.get("family_mismatches", []):
        lines.append(f"family mismatch {m['name']}: catalogue {m['catalogue']}, SKUs API {m['skus']}")
    for m in report.get("family_missing", []):
        lines.append(f"family missing  {m['series']}: the SKUs API says {', '.join(m['skus'])}")
    for f in report.get("usage_unknown", []):
        lines.append(f"usage family    {f!r}: no catalogue family")
    if "family_mismatches" in report:
        lines.append(
            f"{len(report['family_mismatches'])} family mismatches, {len(report['family_missing'])} series without a family, "
            f"{len(report['usage_unknown'])} usage families unknown"
        )
    lines.append(
        f"{len(report['missing_series'])} missing series, {len(report['missing_sizes'])} missing sizes, "
        f"{len(report['mismatches'])} mismatches, {len(report['unpaged_series'])} catalogue series without a page"
    )
    return "\n".join(lines)


def self_test():
    page = """---
title: Zsv9 size series
---
### [Basics](#tab/sizebasic)

| Size Name | vCPUs (Qty.) | Memory (GB) |
| --- | --- | --- |
| Standard_D2s_v3 | 2 | 8 |
| Standard_D4s_v3 | 4 | 99 |
| Standard_D6s_v3 | 6 | 24 |

### [Accelerators](#tab/sizeaccelerators)

| Size Name | Accelerators (Qty.) | Accelerator-Memory (GB) |
| --- | --- | --- |
| Standard_NC4as_T4_v3 | 1 | 16 |
"""
    other = page.replace("Standard_D", "Standard_Q").replace("Standard_NC4as_T4_v3", "Standard_QN4_v9")
    with tempfile.TemporaryDirectory() as root:
        d = os.path.join(root, SIZES_DIR, "general-purpose")
        os.makedirs(os.path.join(d, "includes"))
        open(os.path.join(d, "dsv3-series.md"), "w").write(page)
        open(os.path.join(d, "qsv9-series.md"), "w").write(other)
        open(os.path.join(d, "includes", "dsv3-series-specs.md"), "w").write(page.replace("D2s", "D3s"))
        open(os.path.join(root, "SOURCE"), "w").write("articles/x.md 0123abcd\n")
        r = compare(root, DEFAULT_CATALOGUE)
    missing = {m["name"] for m in r["missing_sizes"]}
    assert "Standard_D6s_v3" in missing and "Standard_Q2s_v3" in missing, r
    assert "Standard_D3s_v3" not in missing, "includes/ must not be read"
    assert {(m["name"], m["field"]) for m in r["mismatches"]} >= {("Standard_D4s_v3", "memory_gib")}, r
    assert [m["page"].endswith("qsv9-series.md") for m in r["missing_series"]] == [True], r
    assert "Dsv3" not in r["unpaged_series"] and "NCv3" in r["unpaged_series"], r
    assert r["commits"] == {"articles/x.md": "0123abcd"}, r
    assert size_name("**Standard_NM16ads_MA35D**") == "Standard_NM16ads_MA35D"
    assert size_name("Standard_A0&nbsp;<sup>1</sup>") == "Standard_A0" and size_name("Standard_NC24r*") == "Standard_NC24r"
    assert size_name("Standard_E104id_v52") == "Standard_E104id_v5"
    with tempfile.TemporaryDirectory() as root:
        skus = os.path.join(root, "skus.json")
        json.dump([{"name": "Standard_DS3_v2", "family": "standardDSv2Family", "resourceType": "virtualMachines"},
                   {"name": "Standard_NC6s_v3", "family": "standardNCv3Family"},
                   {"name": "Standard_D2s_v3", "family": "standardDSv3Family"}], open(skus, "w"))
        usage = os.path.join(root, "usage.json")
        json.dump({"value": [{"name": {"value": "Standard DSv2 Family Cluster Dedicated vCPUs"}},
                             {"name": {"value": "Total Cluster Dedicated Regional vCPUs"}},
                             {"name": {"localizedValue": "Standard QZv9 Family Cluster LowPriority vCPUs"}}]}, open(usage, "w"))
        doc = yaml.safe_load(open(DEFAULT_CATALOGUE, encoding="utf-8"))
        f = compare_families(doc, skus, usage)
        cs = os.path.join(root, "AksNodeVmSizes.Generated.cs")
        open(cs, "w").write('/// VM sizes in the Standard NCASv3_T4 Family.\n    public const string X = "Standard_NC4as_T4_v3";\n')
        assert read_sku_families(cs) == {"standard_nc4as_t4_v3": "Standard NCASv3_T4 Family"}
    assert [m["name"] for m in f["family_mismatches"]] == ["Standard_NC6s_v3"], f
    assert f["usage_unknown"] == ["Standard QZv9 Family"], f
    assert cvc.quota_key("Standard NCASv3_T4 Family") == cvc.quota_key("standardNCASv3_T4Family") == "ncasv3t4"
    assert number("1/6") == 0.1667 and number("1,850") == 1850.0 and number("16<sup>1</sup>") == 16.0 and number("N/A") is None
    print("self-test passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", nargs="*", help="local checkout(s): MicrosoftDocs/azure-compute-docs, azure-docs")
    ap.add_argument("--catalogue", default=DEFAULT_CATALOGUE)
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--sku-families", metavar="FILE", help="az vm list-skus -o json, or Aspire's AksNodeVmSizes.Generated.cs")
    ap.add_argument("--usage-example", metavar="FILE", help="an Azure ML usage list (REST example or az ml compute list-usage -o json)")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return 0
    families = args.sku_families or args.usage_example
    for c in args.checkout or ([] if families else [None]):
        if not c or not (os.path.isdir(os.path.join(c, SIZES_DIR)) or os.path.exists(os.path.join(c, PREVIOUS_GEN))):
            ap.error(f"each CHECKOUT must hold {SIZES_DIR}/ or {PREVIOUS_GEN}")
    report = compare(args.checkout, args.catalogue) if args.checkout else {
        "commits": {}, "pages": 0, "missing_sizes": [], "mismatches": [], "missing_series": [], "unpaged_series": []}
    if families:
        doc = yaml.safe_load(open(args.catalogue, encoding="utf-8"))
        report.update(compare_families(doc, args.sku_families, args.usage_example))
    print(json.dumps(report, indent=2) if args.json else render(report))
    bad = report["missing_sizes"] or report["mismatches"] or report["missing_series"]
    bad = bad or report.get("family_mismatches") or report.get("family_missing") or report.get("usage_unknown")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
