//! `amlint inventory` (issue 35, item 4) and the conflicts it shows (AML205, item 3), from
//! the outside: the computes a project defines in a compute YAML, a script and a Bicep
//! file, where each is defined, which references resolve to them, and the count that
//! `--statistics` prints too.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

const COMPUTE_YML: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 4\n";

const SETUP_SH: &str = "#!/bin/sh\nSIZE=STANDARD_D4S_V3\naz ml compute create --name CPU-Cluster --type amlcompute \\\n  --size $SIZE --min-instances 0\naz ml compute create --name \"$(cat name.txt)\" --type amlcompute --size Standard_DS3_v2\n";

const MAIN_BICEP: &str = "resource gpu 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  name: 'ws/gpu-cluster'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: 'Standard_NC4as_T4_v3'\n      scaleSettings: { minNodeCount: 0, maxNodeCount: 2 }\n    }\n  }\n}\n";

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:cpu-cluster\n";

const OTHER_JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:gpu-clustr\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("infra")).unwrap();
    std::fs::create_dir_all(d.join("jobs")).unwrap();
    for (path, text) in [
        ("compute.yml", COMPUTE_YML),
        ("infra/setup.sh", SETUP_SH),
        ("infra/main.bicep", MAIN_BICEP),
        ("jobs/train.yml", JOB),
        ("jobs/typo.yml", OTHER_JOB),
    ] {
        std::fs::write(d.join(path), text).unwrap();
    }
    dir
}

fn amlint(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(dir)
        .env_remove("AMLINT_CONFIG")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_inventory_lists_every_definition_its_references_and_what_did_not_resolve() {
    let dir = project();
    let out = amlint(dir.path(), &["inventory", "--no-config", "."]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!(String::from_utf8(out.stdout).unwrap(), @r"
    cpu-cluster  amlcompute
      defined at compute.yml:1:1 (aml-yaml: compute YAML): type amlcompute, size Standard_DS3_v2, min_instances 0, max_instances 4
      defined at infra/setup.sh:3:1 (az-cli: az ml compute create): type amlcompute, size STANDARD_D4S_V3 (from `$SIZE`), min_instances 0
      its definitions disagree on size
      referenced at jobs/train.yml:4:10
    gpu-cluster  amlcompute  Standard_NC4as_T4_v3
      defined at infra/main.bicep:1:1 (bicep: resource 'Microsoft.MachineLearningServices/workspaces/computes'): type AmlCompute, size Standard_NC4as_T4_v3, min_instances 0, max_instances 2
      no reference in the checked files
    definitions whose name is not known statically
      defined at infra/setup.sh:5:1 (az-cli: az ml compute create): name `$(cat name.txt)` (not known: it is the output of a command), type amlcompute, size Standard_DS3_v2
    references that resolve to no definition
      gpu-clustr at jobs/typo.yml:4:10
    2 computes defined in 4 definitions (1 with a name not known statically); 2 compute references: 1 to a definition of the project, 0 to [inventory], 1 unresolved
    ");
}

#[test]
fn the_inventory_as_json_and_the_count_in_statistics() {
    let dir = project();
    let out = amlint(dir.path(), &["inventory", "--no-config", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cpu = &json["computes"][0];
    assert_eq!(cpu["name"], "cpu-cluster");
    assert_eq!(cpu["type"], "amlcompute");
    assert_eq!(
        cpu["size"],
        Value::Null,
        "the definitions disagree: no size is picked"
    );
    assert_eq!(cpu["disagree"], serde_json::json!(["size"]));
    let sh = &cpu["definitions"][1];
    assert_eq!(
        (&sh["path"], &sh["line"], &sh["source"]),
        (
            &Value::from("infra/setup.sh"),
            &Value::from(3),
            &Value::from("az-cli")
        )
    );
    assert_eq!(sh["settings"]["size"]["value"], "STANDARD_D4S_V3");
    assert_eq!(sh["settings"]["size"]["written"], "$SIZE");
    assert_eq!(json["unnamed_definitions"][0]["name"]["value"], Value::Null);
    assert_eq!(json["unresolved_references"][0]["name"], "gpu-clustr");
    assert_eq!(
        json["summary"],
        serde_json::json!({"computes": 2, "definitions": 4, "unnamed_definitions": 1, "module_definitions": 0, "references": 2,
            "resolved_to_definitions": 1, "resolved_to_inventory": 0, "unresolved": 1})
    );

    let out = amlint(
        dir.path(),
        &["check", "--no-config", "--statistics", "--fail-on", "never", "."],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("2 computes defined in 4 definitions (1 with a name not known statically); 2 compute references: 1 to a definition of the project, 0 to [inventory], 1 unresolved\n"),
        "{text}"
    );
}

/// `amlint check --select AML205 --format concise ARGS` in `dir`: its standard output.
fn aml205(dir: &Path, args: &[&str]) -> String {
    let mut all = vec![
        "check",
        "--select",
        "AML205",
        "--format",
        "concise",
        "--fail-on",
        "never",
    ];
    all.extend_from_slice(args);
    String::from_utf8(amlint(dir, &all).stdout).unwrap()
}

/// The compute YAML's at its size; the script's from the command's first line, the line
/// the other finding names (`at infra/setup.sh:3`).
#[test]
fn conflicting_definitions_are_reported_at_each_definition_that_disagrees() {
    let dir = project();
    let text = aml205(dir.path(), &["--no-config", "."]);
    assert_eq!(
        text,
        "compute.yml:4:7: AML205 [info] `cpu-cluster` is defined here with size `Standard_DS3_v2`, but with size `STANDARD_D4S_V3` at infra/setup.sh:3 (az-cli): jobs and deployments that name it cannot be checked against either\n\
         infra/setup.sh:3:1: AML205 [info] `CPU-Cluster` is defined here with size `STANDARD_D4S_V3`, but with size `Standard_DS3_v2` at compute.yml:1 (aml-yaml): jobs and deployments that name it cannot be checked against either\n\
         5 files checked, 0 skipped: no errors or warnings; 2 infos\n"
    );
    // A partial run (pre-commit names one file) finds the other definition in the rest
    // of the project, named relative to the working directory.
    let text = aml205(dir.path(), &["--no-config", "compute.yml"]);
    assert!(text.starts_with("compute.yml:4:7: AML205 [info] `cpu-cluster` is defined here with size `Standard_DS3_v2`, but with size `STANDARD_D4S_V3` at infra/setup.sh:3 (az-cli)"), "{text}");
    // A warning in production.
    std::fs::write(dir.path().join("amlint.toml"), "profile = \"production\"\n").unwrap();
    let text = aml205(dir.path(), &["."]);
    assert!(text.contains("compute.yml:4:7: AML205 [warning]"), "{text}");
}

/// Audit 12, case 01: outside a git work tree a one-file run's project is the file's
/// folder, below the directory the run starts in; the other definition it names is
/// written from there too (`ml/jobs/compute.yml`), never as the machine's absolute path.
#[test]
fn a_partial_run_outside_git_names_the_other_definition_relative_to_the_working_directory() {
    use crate::common::write;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "ml/jobs/create.sh",
        "#!/bin/sh\naz ml compute create --name cpu-cluster --type amlcompute --size Standard_D2_v2\n",
    );
    write(
        d,
        "ml/jobs/compute.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\n",
    );
    let text = aml205(d, &["--no-config", "--no-cache", "ml/jobs/create.sh"]);
    assert!(
        text.starts_with("ml/jobs/create.sh:2:66: AML205 [info] `cpu-cluster` is defined here with size `Standard_D2_v2`, but with size `Standard_DS3_v2` at ml/jobs/compute.yml:1 (aml-yaml)"),
        "{text}"
    );
    let (_, json) = crate::common::json_check(
        d,
        &[
            "--no-config",
            "--no-cache",
            "--select",
            "AML205",
            "ml/jobs/create.sh",
        ],
    );
    let message = json["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("at ml/jobs/compute.yml:1 "), "{message}");
    assert!(!message.contains(&*d.to_string_lossy()), "{message}");
}

/// A partial run's AML205 on a file is the whole run's, line for line:
/// - audit 13, case 02: the other definition named is the first in project order, not the
///   checked file's own next one (`a/one.py` before `z/two.py`);
/// - audit 12, case 04: a Terraform module that names the compute is also defined by the
///   call of it in a file that does not name it (`infra/main.tf`), which a partial run
///   reads too.
#[test]
fn a_partial_run_reports_the_conflicts_of_a_file_as_the_whole_run_does() {
    use crate::common::write;
    let dir = crate::common::project();
    let d = dir.path();
    let cluster =
        |size: &str| format!("c = AmlCompute(name=\"cpu-cluster\", size=\"{size}\", max_instances=4)\n");
    let sdk = "from azure.ai.ml.entities import AmlCompute\n";
    write(d, "a/one.py", &format!("{sdk}{}", cluster("Standard_DS12_v2")));
    write(
        d,
        "z/two.py",
        &format!("{sdk}{}{}", cluster("Standard_DS3_v2"), cluster("Standard_D2_v2")),
    );
    write(
        d,
        "infra/modules/ws/main.tf",
        "variable \"size\" {\n  type = string\n}\nresource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name                          = \"gpu-cluster\"\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"ws\"\n  vm_priority                   = \"Dedicated\"\n  vm_size                       = var.size\n  scale_settings {\n    min_node_count                       = 0\n    max_node_count                       = 4\n    scale_down_nodes_after_idle_duration = \"PT120S\"\n  }\n}\n",
    );
    write(
        d,
        "infra/main.tf",
        "module \"ws\" {\n  source = \"./modules/ws\"\n  size   = \"Standard_NC6s_v3\"\n}\n",
    );
    write(
        d,
        "scripts/gpu.sh",
        "az ml compute create --name gpu-cluster --type amlcompute --size Standard_DS3_v2\n",
    );
    let whole = aml205(d, &["--no-config", "--no-cache", "."]);
    let of = |text: &str, file: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with(file))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(of(&whole, "z/two.py").len(), 2, "{whole}");
    assert!(
        whole.contains("but with size `Standard_NC6s_v3` at infra/main.tf:1 (terraform)"),
        "{whole}"
    );
    for (file, cwd, args) in [
        ("z/two.py", ".", vec!["z/two.py"]),
        ("z/two.py", ".", vec!["z"]),
        ("scripts/gpu.sh", ".", vec!["scripts/gpu.sh"]),
    ] {
        let mut all = vec!["--no-config", "--no-cache"];
        all.extend(args.iter().copied());
        let partial = aml205(&d.join(cwd), &all);
        assert_eq!(of(&partial, file), of(&whole, file), "{args:?}:\n{partial}");
    }
}

#[test]
fn the_inventory_refuses_formats_it_has_not_and_standard_input() {
    let dir = project();
    let out = amlint(
        dir.path(),
        &["inventory", "--no-config", "--format", "sarif", "."],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("`--format human` or `--format json`, not `--format sarif`")
    );
    let out = amlint(dir.path(), &["inventory", "--no-config", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not standard input"));
    for flag in ["--fix", "--diff", "--statistics", "--show-files"] {
        let out = amlint(dir.path(), &["inventory", "--no-config", flag, "."]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let says = format!("{flag} is an option of `amlint check`");
        assert!(String::from_utf8_lossy(&out.stderr).contains(&says), "{flag}");
    }
}

/// Names, sizes and references come from the checked files: a line feed or a terminal
/// escape in one is written as an escape, so no file can forge a line of the listing.
#[test]
fn text_from_files_cannot_forge_lines_of_the_listing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("c.yml"),
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: \"evil\\n  defined at forged.yml:1:1 (\\u001b[31mred)\"\ntype: amlcompute\nsize: \"Standard_DS3_v2\\r\\nX\"\n",
    )
    .unwrap();
    std::fs::write(
        d.join("j.yml"),
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python x.py\nenvironment: azureml:e:1\ncompute: \"azureml:a\\nreferences that resolve\"\n",
    )
    .unwrap();
    let out = amlint(d, &["inventory", "--no-config", "."]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "evil\\n  defined at forged.yml:1:1 (\\u{1b}[31mred)  amlcompute  Standard_DS3_v2\\r\\nX\n\
         \x20 defined at c.yml:1:1 (aml-yaml: compute YAML): type amlcompute, size Standard_DS3_v2\\r\\nX\n\
         \x20 no reference in the checked files\n\
         references that resolve to no definition\n\
         \x20 a\\nreferences that resolve at j.yml:4:10\n\
         1 compute defined in 1 definition; 1 compute reference: 0 to a definition of the project, 0 to [inventory], 1 unresolved\n"
    );
}

/// Audit 10, defect 4: a compute reference that a template fills in (`<K8S_COMPUTE_NAME>`,
/// `{{compute}}`, `$(COMPUTE)`, `__COMPUTE__`) names no compute yet: it is neither
/// resolved nor unresolved (no AML203, not listed), as a placeholder in a definition is
/// not a name; a real name beside them still is.
#[test]
fn a_template_placeholder_is_no_compute_reference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join(".git")).unwrap();
    let job = |compute: &str| {
        format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml:sklearn:1\ncompute: {compute}\n"
        )
    };
    for (i, c) in [
        "azureml:<K8S_COMPUTE_NAME>",
        "\"{{compute}}\"",
        "azureml:$(COMPUTE)",
        "azureml:__COMPUTE__",
        "azureml:gpu-clustr",
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(d.join(format!("job{i}.yml")), job(c)).unwrap();
    }
    let out = amlint(d, &["inventory", "--no-config", "--format", "json", "."]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["unresolved_references"],
        serde_json::json!([{"name": "gpu-clustr", "path": "job4.yml", "line": 4, "column": 10}]),
        "{json}"
    );
    let out = amlint(
        d,
        &[
            "check",
            "--no-config",
            "--select",
            "AML203",
            "--format",
            "concise",
            "--fail-on",
            "never",
            ".",
        ],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("AML203").count(), 1, "{text}");
    assert!(text.contains("job4.yml:4:10"), "{text}");
}

/// A project of `files` (path, text) in a temporary directory.
fn files(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

const TF_MODULE: &str = "variable \"cluster_name\" { type = string }\nvariable \"vm_size\" { type = string }\nresource \"azurerm_machine_learning_compute_cluster\" \"cc\" {\n  name                          = var.cluster_name\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_size                       = var.vm_size\n  vm_priority                   = \"LowPriority\"\n  scale_settings {\n    min_node_count                       = 0\n    max_node_count                       = 1\n    scale_down_nodes_after_idle_duration = \"PT30M\"\n  }\n}\n";

const TF_MAIN: &str = "module \"a\" {\n  source       = \"./modules/cc\"\n  cluster_name = \"gpu-cluster\"\n  vm_size      = \"Standard_NC4as_T4_v3\"\n}\nmodule \"b\" {\n  source       = \"./modules/cc\"\n  cluster_name = \"cpu-cluster\"\n  vm_size      = \"Standard_D2_v3\"\n}\n";

const BICEP_MODULE: &str = "param clusterName string\nparam vmSize string\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {\n  name: clusterName\n  location: 'westeurope'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: vmSize\n      scaleSettings: { minNodeCount: 0, maxNodeCount: 2 }\n    }\n  }\n}\n";

const BICEP_MAIN: &str = "module compute 'modules/compute.bicep' = {\n  name: 'compute'\n  params: {\n    clusterName: 'bicep-cluster'\n    vmSize: 'Standard_D2_v3'\n  }\n}\n";

/// A local module's own definition, when every value it lacks (its name, its size) is
/// given by each of the project's calls of it, is no definition "whose name is not known
/// statically": it is listed with the calls that make it (Terraform and Bicep alike), and
/// counted apart. A module nobody calls, or one a call gives a value not known, stays.
#[test]
fn a_module_definition_its_calls_make_is_listed_with_them() {
    let dir = files(&[
        ("tf/modules/cc/main.tf", TF_MODULE),
        ("tf/main.tf", TF_MAIN),
        ("bicep/modules/compute.bicep", BICEP_MODULE),
        ("bicep/main.bicep", BICEP_MAIN),
    ]);
    let out = amlint(dir.path(), &["inventory", "--no-config", "."]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("definitions in modules, made by the project's calls of them\n  defined at bicep/modules/compute.bicep:3:1 (bicep: resource 'Microsoft.MachineLearningServices/workspaces/computes'): name `clusterName` (not known: the parameter `clusterName` has no default (the deployment or the module's caller sets it))"),
        "{text}"
    );
    assert!(
        text.contains("    made by the call at bicep/main.bicep:1:1 (bicep-cluster)\n  defined at tf/modules/cc/main.tf:3:1 (terraform: "),
        "{text}"
    );
    assert!(
        text.contains("\n    made by the call at tf/main.tf:1:1 (gpu-cluster)\n    made by the call at tf/main.tf:6:1 (cpu-cluster)\n"),
        "{text}"
    );
    assert!(!text.contains("whose name is not known statically"), "{text}");
    assert!(
        text.ends_with("3 computes defined in 5 definitions (2 in a module, made by its calls); 0 compute references: 0 to a definition of the project, 0 to [inventory], 0 unresolved\n"),
        "{text}"
    );
    let out = amlint(dir.path(), &["inventory", "--no-config", "--format", "json", "."]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["unnamed_definitions"], serde_json::json!([]));
    let tf = &json["module_definitions"][1];
    assert_eq!(
        (&tf["path"], &tf["line"]),
        (&Value::from("tf/modules/cc/main.tf"), &Value::from(3))
    );
    assert_eq!(tf["name"]["written"], "var.cluster_name");
    assert_eq!(
        tf["calls"],
        serde_json::json!([
            {"path": "tf/main.tf", "line": 1, "column": 1, "name": "gpu-cluster"},
            {"path": "tf/main.tf", "line": 6, "column": 1, "name": "cpu-cluster"}
        ])
    );
    assert_eq!(json["summary"]["unnamed_definitions"], 0);
    assert_eq!(json["summary"]["module_definitions"], 2);

    // A call that gives the size from a variable without a value; a module nobody calls.
    let unknown_size = TF_MAIN.replace("\"Standard_D2_v3\"", "var.size");
    let dir = files(&[
        ("tf/modules/cc/main.tf", TF_MODULE),
        ("tf/main.tf", &format!("variable \"size\" {{}}\n{unknown_size}")),
        ("bicep/modules/compute.bicep", BICEP_MODULE),
    ]);
    let out = amlint(dir.path(), &["inventory", "--no-config", "--format", "json", "."]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unnamed: Vec<&Value> = json["unnamed_definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["path"])
        .collect();
    assert_eq!(unnamed, ["bicep/modules/compute.bicep", "tf/modules/cc/main.tf"]);
    assert_eq!(json["module_definitions"], serde_json::json!([]));
    assert_eq!(json["summary"]["unnamed_definitions"], 2);
}

/// Audit 27, case 07: `amlint inventory FILE` (a partial run) lists every definition of a
/// name the file references, each by its file and line with the type, size and scale the
/// project's index knows, and says when they disagree, as the whole run does (it listed
/// the first definition only, with no type or size).
#[test]
fn a_partial_inventory_lists_every_definition_outside_the_checked_file() {
    let dir = files(&[
        (
            "infra/main.tf",
            "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name = \"train-cluster\"\n  location = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_priority = \"Dedicated\"\n  vm_size = \"Standard_DS3_v2\"\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 2\n    scale_down_nodes_after_idle_duration = \"PT30S\"\n  }\n}\n",
        ),
        (
            "scripts/setup.sh",
            "#!/bin/bash\n\naz ml compute create -n train-cluster --type amlcompute --size Standard_DS4_v2\n",
        ),
        ("jobs/train.yml", &JOB.replace("cpu-cluster", "train-cluster")),
    ]);
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    let out = amlint(
        d,
        &[
            "inventory",
            "--no-config",
            "--no-cache",
            "--format",
            "json",
            "jobs/train.yml",
        ],
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let compute = &json["computes"][0];
    assert_eq!(compute["name"], "train-cluster", "{json}");
    let listed: Vec<(String, u64, String, String)> = compute["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["path"].as_str().unwrap().to_string(),
                x["line"].as_u64().unwrap_or(0),
                x["settings"]["type"]["value"].as_str().unwrap_or("").to_string(),
                x["settings"]["size"]["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (
                "infra/main.tf".to_string(),
                1,
                "amlcompute".to_string(),
                "Standard_DS3_v2".to_string()
            ),
            (
                "scripts/setup.sh".to_string(),
                3,
                "amlcompute".to_string(),
                "Standard_DS4_v2".to_string()
            ),
        ],
        "{json}"
    );
    assert_eq!(compute["disagree"], serde_json::json!(["size"]), "{json}");
    let human = amlint(d, &["inventory", "--no-config", "--no-cache", "jobs/train.yml"]);
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("defined at scripts/setup.sh:3 (az-cli)"), "{text}");
}

/// eval8, cases 01, 02 and 04: an empty name (`NAME=""` before an argument parser sets it,
/// PowerShell's `$X = ""` to fill in) and a placeholder (`"<COMPUTE_NAME>"`, ARM's
/// `{azure_ml_compute_name}`) name no compute: such definitions are listed as not known,
/// never one compute made of unrelated scripts that then "conflict" (AML205). A compute a
/// Python helper function creates has the type and size of the helper's call, and
/// disagrees with a script that creates it otherwise.
#[test]
fn empty_and_placeholder_names_are_not_known_and_helper_calls_count_in_the_listing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (path, text) in [
        (
            "args.sh",
            "NAME=\"\"\nwhile [[ $# -gt 0 ]]; do\n  case \"$1\" in\n    --name) NAME=\"$2\"; shift 2 ;;\n  esac\ndone\naz ml compute create --name \"$NAME\" --type amlcompute --size Standard_DS3_v2\n",
        ),
        (
            "other.sh",
            "NAME=\"\"\nif [ -n \"$1\" ]; then NAME=\"$1\"; fi\naz ml compute create --name \"$NAME\" --type amlcompute --size Standard_NC6\n",
        ),
        (
            "template.ps1",
            "$CLUSTER_NAME = \"\" # Set your compute cluster's name\naz ml compute create --name $CLUSTER_NAME --type amlcompute --size Standard_DS11_v2\n",
        ),
        (
            "sample.py",
            "from azure.ai.ml.entities import AmlCompute\ncluster_name = \"<COMPUTE_CLUSTER_NAME>\"  # replace\nml_client.begin_create_or_update(AmlCompute(name=cluster_name, size=\"Standard_DS3_v2\"))\n",
        ),
        (
            "setup.sh",
            "az ml compute create -n cpu-cluster --type amlcompute --min-instances 0 --max-instances 2\n",
        ),
        (
            "sdk/setup.py",
            "from azure.ai.ml.entities import AmlCompute\n\n\ndef create_compute(name):\n    ml_client.begin_create_or_update(AmlCompute(name=name, size=\"STANDARD_DS11_V2\", max_instances=2))\n\n\ndef create_gpu(name):\n    ml_client.begin_create_or_update(AmlCompute(name=name, size=\"Standard_NC4as_T4_v3\", max_instances=1))\n\n\ncreate_compute(\"cpu-cluster\")\ncreate_gpu(\"gpu-cluster\")\n",
        ),
    ] {
        std::fs::create_dir_all(d.join(path).parent().unwrap()).unwrap();
        std::fs::write(d.join(path), text).unwrap();
    }
    let out = amlint(
        d,
        &["inventory", "--no-config", "--no-cache", "--format", "json", "."],
    );
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let computes: Vec<(&str, &Value, &Value, &Value)> = json["computes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap(),
                &c["type"],
                &c["size"],
                &c["disagree"],
            )
        })
        .collect();
    assert_eq!(
        computes,
        [
            (
                "cpu-cluster",
                &Value::from("amlcompute"),
                &Value::Null,
                &serde_json::json!(["size"])
            ),
            (
                "gpu-cluster",
                &Value::from("amlcompute"),
                &Value::from("Standard_NC4as_T4_v3"),
                &serde_json::json!([])
            ),
        ],
        "{json:#}"
    );
    let unnamed: Vec<(String, String)> = json["unnamed_definitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| !u["path"].as_str().unwrap().starts_with("sdk/"))
        .map(|u| {
            (
                u["path"].as_str().unwrap().to_string(),
                u["name"]["why"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(unnamed.len(), 4, "{json:#}");
    for (path, why) in &unnamed {
        let expected = if path == "sample.py" {
            "`<COMPUTE_CLUSTER_NAME>` is a placeholder, for its reader to fill in"
        } else {
            "is empty here: the name is given when this runs"
        };
        assert!(why.contains(expected), "{path}: {why}");
    }
    // No conflict between scripts that name no compute; the helper's call and the script
    // that create `cpu-cluster` do conflict.
    let check = amlint(
        d,
        &["check", "--no-config", "--no-cache", "--format", "json", "."],
    );
    let json: Value = serde_json::from_slice(&check.stdout).unwrap();
    let conflicts: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == "AML205")
        .map(|x| x["path"].as_str().unwrap())
        .collect();
    assert_eq!(conflicts, ["setup.sh"], "{json:#}");
}
