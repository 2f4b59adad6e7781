#!/usr/bin/env python3
"""Writes docs/corpus-findings.md: every policy finding (AML008, AML107, AML2xx-AML7xx) amlint
reports on the reference corpus, grouped by rule, with the reason each group is right.

Usage: python scripts/corpus_findings.py [CORPUS_DIR]   (stdlib only; builds nothing:
run `cargo build --release` first)
"""
import collections
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(sys.argv[1] if len(sys.argv) > 1 else REPO.parent / "shared/corpus/azureml-examples")
TODAY = "2026-11-22"

REASONS = {
    "AML008": "The file's `$schema` names another kind than the one its `type:` makes the CLI load.",
    "AML107": (
        "These components and pipeline steps give an inline (anonymous) environment a `name` (and "
        "`version`). The SDK drops both: `load_component`/`load_job` turn the environment into "
        "`CliV2AnonymousEnvironment` with a content-hash version, so the name the author wrote never "
        "appears in the workspace. Registering the environment (an `environment.yml` plus "
        "`environment: azureml:<name>:<version>`) or deleting the two keys says what really happens. "
        "One pipeline's `settings` has `default_datestore`, a misspelling of `default_datastore`: pipeline "
        "settings take unknown keys without a check, so the default datastore the author meant is never set."
    ),
    "AML201": (
        "The paths do not exist in the examples repository: the data-collector deployments name "
        "`model/conda.yaml` and `scripts` beside them, but their folders hold only the YAML files and a "
        "README; the prompt-flow deployment names `./basic-chat` in its own folder while the flow is "
        "`../basic-chat` (as `model.yaml` beside it says); the Java job template names "
        "`../aml-mlfow-java-example`, a misspelt folder that is not there. `az ml ... create` fails on each "
        "when it resolves or uploads the path (errors). The warnings are job input and data asset paths "
        "that the examples create before submitting: the AutoML and fine-tuning samples download their "
        "data (`data/training-mltable-folder`, `emotion-dataset/small_train.jsonl`) with a "
        "`prepare_data.py` or notebook beside them, and the evaluation pipelines point at configs of the "
        "SDK samples (`../../../../../sdk/python/...`) that the corpus does not hold. The CLI loads those "
        "files without the paths and fails only if they are still missing when it uploads them; hence "
        "warnings."
    ),
    "AML202": (
        "`< your environment name >` is a template placeholder left in `environment:`; the SDK rejects it "
        "because it is neither an `azureml:` reference nor an inline environment."
    ),
    "AML203": (
        "These jobs and deployments name computes (`azureml:cpu-cluster`, `gpu-cluster`, ...) that no YAML "
        "file of the corpus defines (its compute files create `basic-example`, `ssh-example`, ...; the examples "
        "expect the workspace to have the others already). The finding is informational: placement rules cannot check these "
        "targets until the computes are declared in `[inventory]`. The placeholder `< your compute name >` is "
        "a template value."
    ),
    "AML503": (
        "NCasT4_v3 and NC A100 v4 are GPU series that need a quota request before Azure ML can allocate them "
        "(new subscriptions have zero quota for them; Azure ML's supported-series table marks NCasT4_v3 as "
        "requiring approval). The examples that use them are exactly those whose README asks the reader to "
        "check quota first. A team that holds the quota lists the series in `approved_vm_series`."
    ),
    "AML602": (
        "`instance-basic.yml` and `instance-minimal.yml` create compute instances with neither idle shutdown "
        "nor a stop schedule (`instance-schedule.yml`, in the same folder, has one and is not reported): "
        "such an instance bills until stopped by hand."
    ),
    "AML701": (
        "`cluster-ssh-password.yml` writes the admin password `example-password` in clear text. It is an "
        "example value, but the pattern it teaches — a password in a committed YAML file — is what the rule "
        "exists for; `vm-attach.yml`, which uses the placeholder `<admin_password>`, is not reported."
    ),
    "AML702": (
        "None of the cluster and instance examples sets `enable_node_public_ip: false`, and the SDK's "
        "default is `true`: their nodes get public IP addresses. Correct for a quick start, against "
        "Microsoft's own network-isolation guidance for anything else."
    ),
    "AML704": (
        "Informational: the same computes have no `network_settings.subnet`. Workspaces with a managed "
        "virtual network isolate computes without it, which amlint cannot see from the file."
    ),
}


def main():
    binary = REPO / "target/release/amlint"
    env = dict(os.environ, AMLINT_TODAY=TODAY)
    out = subprocess.run(
        [str(binary), "check", "cli", "--format", "json"], cwd=CORPUS, env=env, capture_output=True, text=True
    )
    report = json.loads(out.stdout)
    policy = [d for d in report["diagnostics"] if d["code"] in ("AML008", "AML107") or d["code"][3] in "234567"]
    by_code = collections.defaultdict(list)
    for d in policy:
        by_code[d["code"]].append(d)
    lines = [
        "# Policy findings on the reference corpus",
        "",
        f"Generated by `scripts/corpus_findings.py` (amlint at date {TODAY}) from `amlint check cli` on",
        "Microsoft's azureml-examples corpus (`../shared/corpus/azureml-examples`). Every policy finding",
        "(AML008, AML107, AML2xx–AML7xx) is listed with the reason it is right. Syntax findings (AML001: the 11",
        "template files PyYAML cannot read either; AML003: YAML 1.1 traps such as `learning_rate: 2e-5`)",
        "are covered by `tests/it/corpus.rs`.",
        "",
        "| Rule | Findings | Severity |",
        "|---|---|---|",
    ]
    for code in sorted(by_code):
        ds = by_code[code]
        counts = collections.Counter(d["severity"] for d in ds)
        severity = ds[0]["severity"] if len(counts) == 1 else ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        lines.append(f"| [{code} {ds[0]['name']}](rules/{code}-{ds[0]['name']}.md) | {len(ds)} | {severity} |")
    lines.append("")
    lines.append("No placement (AML3xx), sizing (AML4xx) or unsupported/retired VM (AML502, AML505) rule fires: the")
    lines.append("examples deploy where Azure ML supports it, on current VM series.")
    for code in sorted(by_code):
        ds = by_code[code]
        lines += ["", f"## {code} {ds[0]['name']} ({len(ds)})", "", REASONS.get(code, "(no reason recorded: investigate)"), ""]
        if code == "AML203":
            names = collections.Counter(d["message"].split("`")[1] for d in ds)
            lines += ["| Compute | References |", "|---|---|"]
            lines += [f"| `{n}` | {c} |" for n, c in names.most_common()]
            lines += ["", "<details><summary>Every finding</summary>", ""]
        for d in ds:
            s = d["range"]["start"]
            lines.append(f"- `{d['path'].removeprefix('cli/')}:{s['line']}:{s['column']}` — {d['message']}")
        if code == "AML203":
            lines += ["", "</details>"]
    missing = sorted(set(by_code) - set(REASONS))
    if missing:
        print(f"no reason recorded for {missing}", file=sys.stderr)
        sys.exit(1)
    (REPO / "docs/corpus-findings.md").write_text("\n".join(lines) + "\n")
    print(f"{len(policy)} findings written", file=sys.stderr)


if __name__ == "__main__":
    main()
