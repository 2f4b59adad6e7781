//! azuremlsdk for R: `create_aml_compute(...)`, `create_aks_compute(...)` and
//! `attach_aks_compute(...)` in `.R` scripts and the `{r}` chunks of R Markdown, as the
//! labelled sets record them (`source_kind: r-sdk`). Values from literals and the nearest
//! assignment before the call; arguments matched by name, then by position.

use crate::common::{
    check_clean, definitions, findings_with, focus_lines, focused, inventory, unnamed, write,
};

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml:env:1\ncompute: azureml:rcluster\n";

/// The azuremlsdk vignettes' pattern: the name and size assigned before the call (the size
/// inside `if (is.null(...))`). The job's reference resolves, the retired size is reported
/// at the call's `vm_size = vm_size` (line 10), labelled at its literal (line 8), and the
/// definition is at the call's line (9).
#[test]
fn an_r_script_defines_its_cluster_through_variables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = "library(azuremlsdk)\nws <- load_workspace_from_config()\n\n# create aml compute\ncluster_name <- \"rcluster\"\ncompute_target <- get_compute(ws, cluster_name = cluster_name)\nif (is.null(compute_target)) {\n  vm_size <- \"STANDARD_NC6\"\n  compute_target <- create_aml_compute(workspace = ws, cluster_name = cluster_name,\n                                       vm_size = vm_size, max_nodes = 1)\n}\nwait_for_provisioning_completion(compute_target)\n";
    write(d, "train.R", script);
    write(d, "job.yml", JOB);
    let json = check_clean(d);
    assert!(findings_with(&json, "job.yml", "AML203").is_empty(), "{json:#}");
    let retired = findings_with(&json, "train.R", "AML505");
    assert_eq!(retired.len(), 1, "{json:#}");
    assert_eq!(focused(script, retired[0]), "vm_size", "{json:#}");
    assert_eq!(focus_lines(&json, "train.R", "AML505"), [10]);
    let labels = retired[0]["labels"].to_string();
    assert!(labels.contains("\"line\":8"), "{labels}");
    let inv = inventory(d);
    let def = &definitions(&inv, "rcluster")[0];
    assert_eq!(def["source"], "r-sdk", "{def:#}");
    assert_eq!(def["line"], 9, "{def:#}");
    assert_eq!(def["settings"]["size"]["value"], "STANDARD_NC6", "{def:#}");
    assert_eq!(def["settings"]["max_instances"]["value"], "1", "{def:#}");
    assert_eq!(inv["computes"][0]["references"][0]["path"], "job.yml", "{inv:#}");
}

/// Positional arguments fill the parameters in order (`workspace, cluster_name, vm_size,
/// vm_priority, min_nodes, max_nodes`), also through `azuremlsdk::`; `1L` is an integer;
/// a cluster that keeps a node is reported at its `min_nodes` argument, in R's words.
#[test]
fn positional_and_namespaced_calls_are_matched_as_r_matches_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = "gpu <- azuremlsdk::create_aml_compute(ws, \"gpu-r\", \"Standard_NC6s_v3\", \"lowpriority\", 1L, 4)\nsmall <- create_aml_compute(ws, max_nodes = 2, \"cpu-r\", vm_size = \"Standard_DS3_v2\")\naks <- create_aks_compute(ws, cluster_name = \"aks-r\", agent_count = 3, vm_size = \"Standard_NC6\")\nattached <- attach_aks_compute(ws, \"my-rg\", \"attached-aks\")\n";
    write(d, "setup.r", script);
    let json = check_clean(d);
    let keeps = findings_with(&json, "setup.r", "AML601");
    assert_eq!(keeps.len(), 1, "{json:#}");
    assert_eq!(focused(script, keeps[0]), "1L");
    assert!(
        keeps[0]["message"].as_str().unwrap().contains("min_nodes = 1"),
        "{json:#}"
    );
    assert_eq!(focus_lines(&json, "setup.r", "AML505"), [1, 3], "{json:#}");
    let inv = inventory(d);
    let gpu = &definitions(&inv, "gpu-r")[0]["settings"];
    assert_eq!(gpu["tier"]["value"], "low_priority", "{gpu:#}");
    assert_eq!(gpu["min_instances"]["value"], "1", "{gpu:#}");
    assert_eq!(gpu["max_instances"]["value"], "4", "{gpu:#}");
    // The name is the first positional argument after `workspace` although `max_nodes`
    // is named before it.
    let cpu = &definitions(&inv, "cpu-r")[0]["settings"];
    assert_eq!(cpu["max_instances"]["value"], "2", "{cpu:#}");
    assert_eq!(cpu["size"]["value"], "Standard_DS3_v2", "{cpu:#}");
    let aks = &definitions(&inv, "aks-r")[0]["settings"];
    assert_eq!(aks["type"]["value"], "aks", "{aks:#}");
    assert_eq!(aks["size"]["value"], "Standard_NC6", "{aks:#}");
    let attached = &definitions(&inv, "attached-aks")[0]["settings"];
    assert_eq!(attached["type"]["value"], "aks", "{attached:#}");
}

/// In R Markdown only the `{r}` chunks are code: a call in the prose defines nothing; a
/// `#` comment in a chunk suppresses a finding on the next line.
#[test]
fn r_markdown_chunks_are_read_and_prose_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "vignettes/train.Rmd",
        "---\ntitle: \"Train\"\n---\nCall create_aml_compute(ws, \"prose-cluster\", \"Standard_NC6\") to make one.\n\n```{r setup, eval=FALSE}\ncreate_aml_compute(ws, \"rmd-cluster\", \"Standard_NC12\")\n# amlint: ignore[AML505]\ncreate_aml_compute(ws, \"quiet-cluster\", \"Standard_NC6\")\n```\n\n```python\ncreate_aml_compute(ws, \"python-block\", \"Standard_NC6\")\n```\n",
    );
    let json = check_clean(d);
    assert_eq!(
        focus_lines(&json, "vignettes/train.Rmd", "AML505"),
        [7],
        "{json:#}"
    );
    let inv = inventory(d);
    let names = crate::common::names(&inv);
    assert_eq!(names, ["quiet-cluster", "rmd-cluster"], "{inv:#}");
}

/// What cannot be known statically is not guessed: a parameter of the function around
/// the call, a value computed at run time (`paste0`, `Sys.getenv`), a name assigned only
/// after the call. `NULL` is an argument not given.
#[test]
fn values_not_known_statically_are_recorded_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "helpers.R",
        "make <- function(name, size = \"Standard_NC6\") {\n  create_aml_compute(ws, name, vm_size = size)\n}\nsize <- paste0(\"Standard_\", \"NC6\")\ncreate_aml_compute(ws, Sys.getenv(\"CLUSTER\"), size, max_nodes = NULL)\ncreate_aml_compute(ws, later, \"Standard_DS3_v2\")\nlater <- \"too-late\"\n",
    );
    let json = check_clean(d);
    assert!(findings_with(&json, "helpers.R", "AML505").is_empty(), "{json:#}");
    let inv = inventory(d);
    let defs = unnamed(&inv, "helpers.R");
    assert_eq!(defs.len(), 3, "{inv:#}");
    let s = inv.to_string();
    for why in [
        "`name` is a parameter of the function around the call",
        "is read from the environment at run time",
        "is computed at run time",
        "`later` is not assigned a value before the call",
    ] {
        assert!(s.contains(why), "{why}: {s}");
    }
    assert!(defs[1]["settings"].get("max_instances").is_none(), "{inv:#}");
}

/// `Sys.getenv("X", unset = "d")` (by name or position) is its default, as `os.getenv("X",
/// "d")` is in Python (azuremlsdk's own test helpers name their cluster so); without a
/// default the name is read from the environment at run time (unknown, never guessed).
#[test]
fn a_sys_getenv_default_is_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = "cluster_name <- Sys.getenv(\"TEST_CLUSTER\", unset = \"rcluster\")\nc1 <- create_aml_compute(ws, cluster_name, \"STANDARD_D2_V2\", max_nodes = 1)\nsize <- Sys.getenv(unset = \"Standard_NC6\", \"SIZE\")\nc2 <- create_aml_compute(ws, \"r-size\", size, max_nodes = 1)\nc3 <- create_aml_compute(ws, Sys.getenv(\"ONLY_ENV\"), \"STANDARD_D2_V2\", max_nodes = 1)\n";
    write(d, "helper.R", script);
    write(d, "job.yml", JOB);
    let json = check_clean(d);
    assert!(findings_with(&json, "job.yml", "AML203").is_empty(), "{json:#}");
    let retired = findings_with(&json, "helper.R", "AML505");
    assert_eq!(retired.len(), 1, "{json:#}");
    assert_eq!(focused(script, retired[0]), "size");
    let inv = inventory(d);
    let why = unnamed(&inv, "helper.R")[0]["name"]["why"].to_string();
    assert!(why.contains("read from the environment at run time"), "{why}");
}
