//! Where a finding about a compute defined outside Azure ML YAML is reported: from the
//! definition's first line (where the command, the resource or the call starts) to the
//! value it is about, which is the finding's focus (labelled, underlined by editors,
//! fingerprinted by baselines). A definition on one line keeps the value's own span; a
//! suppression comment may sit above the command or on the value's line.

use serde_json::Value;

use crate::capped;
use crate::common::write;

const SCRIPT: &str = "#!/bin/sh\n\
az ml compute create --name multi --type amlcompute --min-instances 0 \\\n  --size Standard_NC6\n\
az ml compute create --name one --type amlcompute --min-instances 0 --size Standard_NC6\n\
az ml compute create --name quiet-value --type amlcompute --min-instances 0 \\\n  --size Standard_NC6  # amlint: ignore[AML505] -- checked on the value's line\n\
# amlint: ignore[AML505] -- checked above the command\n\
az ml compute create --name quiet-head --type amlcompute --min-instances 0 \\\n  --size Standard_NC6\n";

const TERRAFORM: &str = "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name    = \"tf\"\n  location = \"x\"\n  vm_size = \"Standard_NC6\"\n  scale_settings {\n    min_node_count = 1\n    max_node_count = 2\n  }\n}\n";

fn line(range: &Value) -> u64 {
    range["start"]["line"].as_u64().unwrap()
}

fn findings<'a>(json: &'a Value, path: &str, code: &str) -> Vec<&'a Value> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"] == path && d["code"] == code)
        .collect()
}

/// The lines the findings of `code` in `path` start on.
fn lines_of(json: &Value, path: &str, code: &str) -> Vec<u64> {
    findings(json, path, code)
        .iter()
        .map(|d| line(&d["range"]))
        .collect()
}

#[test]
fn a_definitions_findings_start_at_its_first_line_and_focus_on_the_value() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "make.sh", SCRIPT);
    write(dir.path(), "main.tf", TERRAFORM);
    let json = capped::check_json(dir.path());

    let retired = findings(&json, "make.sh", "AML505");
    let at: Vec<(u64, Option<u64>)> = retired
        .iter()
        .map(|d| (line(&d["range"]), d.get("focus").map(line)))
        .collect();
    // `multi` from its command's line (2) to the size (3); `one` at its size; both
    // suppressions hold (no finding of `quiet-*`, no unused suppression).
    assert_eq!(at, [(2, Some(3)), (4, None)], "{json:#}");
    let multi = retired[0];
    assert_eq!(multi["range"]["start"]["column"], 1);
    assert_eq!(multi["range"]["end"], multi["focus"]["end"]);
    assert_eq!(multi["focus"]["start"]["column"], 10);
    assert_eq!(multi["labels"][0]["message"], "`--size` is set here");
    assert_eq!(multi["labels"][0]["range"], multi["focus"]);
    assert!(findings(&json, "make.sh", "AML009").is_empty(), "{json:#}");

    // A Terraform resource: every finding from the `resource` line, each focused on its
    // value (the size, the minimum node count) or on the name (a key it lacks).
    let tf: Vec<(String, u64, u64)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"] == "main.tf")
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                line(&d["range"]),
                line(&d["focus"]),
            )
        })
        .collect();
    for (code, focus) in [("AML505", 4), ("AML601", 6), ("AML702", 2)] {
        assert!(
            tf.contains(&(code.to_string(), 1, focus)),
            "{code} from line 1 focused on line {focus}: {tf:?}"
        );
    }
}

/// The SARIF result of AML505 in `dir`: its region's first and last lines, and its related
/// location's line.
fn sarif_aml505(dir: &std::path::Path) -> (u64, u64, u64) {
    let run = capped::amlint(
        dir,
        &[
            "check",
            "--no-config",
            "--format",
            "sarif",
            "--fail-on",
            "never",
            ".",
        ],
        b"",
    );
    let sarif: Value = serde_json::from_slice(&run.stdout).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "AML505")
        .unwrap()
        .clone();
    let region = &result["locations"][0]["physicalLocation"]["region"];
    let related = &result["relatedLocations"][0]["physicalLocation"]["region"];
    let n = |v: &Value| v.as_u64().unwrap();
    (
        n(&region["startLine"]),
        n(&region["endLine"]),
        n(&related["startLine"]),
    )
}

/// The human output of `file` in `dir`.
fn human(dir: &std::path::Path, file: &str) -> String {
    let run = capped::amlint(
        dir,
        &[
            "check",
            "--no-config",
            "--color",
            "never",
            "--fail-on",
            "never",
            file,
        ],
        b"",
    );
    run.stdout_text().to_string()
}

/// The other outputs: SARIF's region spans the definition and its related location is
/// the value; the human output draws the first line and the labelled value; a baseline
/// entry made before a line is added above the value still matches.
#[test]
fn every_output_shows_the_definitions_line_and_the_value() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.tf", TERRAFORM);
    assert_eq!(sarif_aml505(dir.path()), (1, 4, 4));
    let text = human(dir.path(), "main.tf");
    assert!(text.contains("[main.tf:1:1]"), "{text}");
    assert!(text.contains("`vm_size` is set here"), "{text}");
    assert!(
        !text.contains("3 │ │"),
        "the first line is drawn, not the whole resource: {text}"
    );

    // A baseline fingerprints the value, not the definition's first line: a line added
    // above the value changes nothing, another retired size is a new finding.
    let run = capped::amlint(
        dir.path(),
        &["check", "--no-config", "--write-baseline", "b.json", "."],
        b"",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr_text());
    let again = |text: &str| -> Vec<String> {
        write(dir.path(), "main.tf", text);
        let run = capped::amlint(
            dir.path(),
            &[
                "check",
                "--no-config",
                "--baseline",
                "b.json",
                "--format",
                "json",
                ".",
            ],
            b"",
        );
        let json: Value = serde_json::from_slice(&run.stdout).unwrap();
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect()
    };
    let moved = TERRAFORM.replace("  location", "  # a comment\n  location");
    assert_eq!(again(&moved), Vec::<String>::new());
    let other = again(&moved.replace("Standard_NC6", "Standard_NC12"));
    assert_eq!(other.len(), 1, "{other:?}");
    assert!(other[0].contains("Standard_NC12"), "{other:?}");
}

/// An ARM template with comments (Azure Resource Manager accepts them, JSON does not):
/// a resource whose `type` comes last is a definition from its `type` line, a
/// suppression above the object applies, and one that silences nothing is reported
/// (the template was read whole) with a fix that removes its line.
#[test]
fn an_arm_template_with_comments_reports_its_unused_suppressions() {
    let dir = tempfile::tempdir().unwrap();
    let template = "{\n  \"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\",\n  \"resources\": [\n    // amlint: ignore[AML505] -- a lab cluster\n    {\n      \"name\": \"ws/gpu-a\",\n      \"properties\": {\"computeType\": \"AmlCompute\", \"properties\": {\"vmSize\": \"Standard_NC6\"}},\n      \"type\": \"Microsoft.MachineLearningServices/workspaces/computes\"\n    },\n    {\n      \"name\": \"ws/gpu-b\",\n      \"properties\": {\"computeType\": \"AmlCompute\", \"properties\": {\"vmSize\": \"Standard_DS3_v2\"}},\n      // amlint: ignore[AML505]\n      \"type\": \"Microsoft.MachineLearningServices/workspaces/computes\"\n    }\n  ]\n}\n";
    write(dir.path(), "azuredeploy.json", template);
    let json = capped::check_json(dir.path());
    let at = |code: &str| lines_of(&json, "azuredeploy.json", code);
    assert_eq!(at("AML505"), Vec::<u64>::new(), "{json:#}");
    assert_eq!(at("AML702"), [8, 14]);
    assert_eq!(at("AML009"), [13]);
    let diff = capped::amlint(
        dir.path(),
        &["check", "--no-config", "--fail-on", "never", "--diff", "."],
        b"",
    );
    assert!(
        diff.stdout_text()
            .contains("-      // amlint: ignore[AML505]\n       \"type\""),
        "{}",
        diff.stdout_text()
    );
}

/// SDK v1 creates a compute with `ComputeTarget.create(ws, name, config)`, the values in
/// the `provisioning_configuration(...)` assigned to `config` before it. A suppression
/// beside those values — on the value's line, or standing above the statement — applies
/// to the definition's findings at the `create` line; in a notebook too, the comment in the
/// configuration's cell and the `create` in another.
#[test]
fn an_sdk_v1_suppression_beside_the_configurations_values_applies() {
    const SETUP: &str = "from azureml.core.compute import AmlCompute, ComputeTarget\n\
\n\
# amlint: ignore[AML505] -- the lab's quota\n\
above = AmlCompute.provisioning_configuration(min_nodes=0,\n\
                                              vm_size=\"Standard_NC6\", max_nodes=4)\n\
ComputeTarget.create(ws, \"above\", above)\n\
inline = AmlCompute.provisioning_configuration(vm_size=\"Standard_NC6\")  # amlint: ignore[AML505]\n\
ComputeTarget.create(ws, \"inline\", inline)\n\
plain = AmlCompute.provisioning_configuration(vm_size=\"Standard_NC6\", max_nodes=4)\n\
ComputeTarget.create(ws, \"plain\", plain)\n";
    let cell = |lines: &[&str]| serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [], "source": lines});
    let notebook = serde_json::json!({
        "cells": [
            cell(&[
                "from azureml.core.compute import AmlCompute, ComputeTarget\n",
                "config = AmlCompute.provisioning_configuration(\n",
                "    vm_size=\"Standard_NC6\",  # amlint: ignore[AML505] -- the workshop's\n",
                "    max_nodes=4)\n",
            ]),
            {"cell_type": "markdown", "metadata": {}, "source": ["Create it"]},
            cell(&["cluster = ComputeTarget.create(ws, \"nb-gpu\", config)\n"]),
        ],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5
    });
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "setup.py", SETUP);
    write(
        dir.path(),
        "setup.ipynb",
        &serde_json::to_string_pretty(&notebook).unwrap(),
    );
    let json = capped::check_json(dir.path());
    let at = |path: &str, code: &str| lines_of(&json, path, code);
    // Only `plain`, unsuppressed, keeps its finding; every suppression silenced one.
    assert_eq!(at("setup.py", "AML505"), [10], "{json:#}");
    assert_eq!(at("setup.py", "AML702"), [6, 8, 10], "the other findings stay");
    assert_eq!(at("setup.py", "AML009"), Vec::<u64>::new(), "{json:#}");
    assert_eq!(at("setup.ipynb", "AML505"), Vec::<u64>::new(), "{json:#}");
    assert_eq!(at("setup.ipynb", "AML009"), Vec::<u64>::new(), "{json:#}");
    assert_eq!(at("setup.ipynb", "AML702").len(), 1, "{json:#}");

    // A finding about the configuration's class (its type: another definition says
    // `computeinstance`) is reported at the `create` line too, focused on the class.
    write(
        dir.path(),
        "compute.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/computeInstance.schema.json\nname: plain\ntype: computeinstance\nsize: Standard_DS3_v2\n",
    );
    let json = capped::check_json(dir.path());
    let conflict = findings(&json, "setup.py", "AML205");
    let Some(d) = conflict.iter().find(|d| d["pointer"] == "/type") else {
        panic!("{json:#}")
    };
    assert_eq!((line(&d["range"]), line(&d["focus"])), (10, 9), "{d:#}");
    assert_eq!(d["focus"]["start"]["column"], 9);
}

/// An ARM resource whose values come before its `type`: its findings are reported from
/// the `type` line (the definition's line, as when `type` comes first), focused on the
/// value — in JSON, SARIF and the human output alike — and a suppression comment above
/// the `type`, on the value's line or above the object applies.
#[test]
fn an_arm_resource_with_its_type_last_is_reported_at_its_type() {
    let resource = |name: &str, size: &str, comment: [&str; 3]| {
        format!(
            "    {}{{\n      \"name\": \"ws/{name}\",\n      \"properties\": {{\"computeType\": \"AmlCompute\", \"properties\": {{\n        \"vmSize\": \"{size}\"{}\n      }}}},\n      {}\"type\": \"Microsoft.MachineLearningServices/workspaces/computes\"\n    }}",
            comment[0], comment[1], comment[2]
        )
    };
    let template = |resources: &[String]| {
        format!(
            "{{\n  \"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\",\n  \"resources\": [\n{}\n  ]\n}}\n",
            resources.join(",\n")
        )
    };
    let dir = tempfile::tempdir().unwrap();
    // Lines: 4 `{`, 5 name, 6 properties, 7 vmSize, 8 `}}`, 9 type.
    write(
        dir.path(),
        "azuredeploy.json",
        &template(&[resource("late", "Standard_NC6", ["", "", ""])]),
    );
    let json = capped::check_json(dir.path());
    let late = findings(&json, "azuredeploy.json", "AML505");
    let [d] = late.as_slice() else { panic!("{json:#}") };
    assert_eq!(line(&d["range"]), 9, "{d:#}");
    assert_eq!(d["range"]["start"]["column"], 7);
    assert_eq!(d["range"]["end"]["line"], 9);
    assert_eq!(line(&d["focus"]), 7);
    assert_eq!(d["labels"][0]["message"], "`vmSize` is set here");
    assert_eq!(d["labels"][0]["range"], d["focus"]);
    // A key it lacks (no virtual network): at the `type` line, focused on the name.
    let vnet = findings(&json, "azuredeploy.json", "AML704");
    assert_eq!(
        (line(&vnet[0]["range"]), line(&vnet[0]["focus"])),
        (9, 5),
        "{json:#}"
    );

    assert_eq!(sarif_aml505(dir.path()), (9, 9, 7));
    let text = human(dir.path(), "azuredeploy.json");
    assert!(text.contains("[azuredeploy.json:9:7]"), "{text}");
    assert!(text.contains("`vmSize` is set here"), "{text}");

    // Suppressions (the template then has comments): above the `type`, on the value's
    // line, above the object; none is unused, the unsuppressed one stays.
    let commented = template(&[
        resource(
            "above-type",
            "Standard_NC6",
            ["", "", "// amlint: ignore[AML505]\n      "],
        ),
        resource("on-value", "Standard_NC6", ["", " // amlint: ignore[AML505]", ""]),
        resource(
            "above-object",
            "Standard_NC6",
            ["// amlint: ignore[AML505]\n    ", "", ""],
        ),
        resource("kept", "Standard_NC6", ["", "", ""]),
    ]);
    write(dir.path(), "azuredeploy.json", &commented);
    let type_lines: Vec<u64> = (1..)
        .zip(commented.lines())
        .filter(|(_, l)| l.trim_start().starts_with("\"type\""))
        .map(|(n, _)| n)
        .collect();
    let json = capped::check_json(dir.path());
    let at = |code: &str| lines_of(&json, "azuredeploy.json", code);
    assert_eq!(at("AML009"), Vec::<u64>::new(), "{json:#}");
    assert_eq!(type_lines, [10, 17, 25, 32]);
    assert_eq!(at("AML505"), [32], "{json:#}");
    assert_eq!(at("AML704"), type_lines, "{json:#}");
}

/// The message, help and labels of a finding, as one text.
fn said(d: &Value) -> String {
    let labels: Vec<&str> = d["labels"]
        .as_array()
        .map(|ls| ls.iter().filter_map(|l| l["message"].as_str()).collect())
        .unwrap_or_default();
    format!(
        "{} | {} | {}",
        d["message"].as_str().unwrap_or_default(),
        d["help"].as_str().unwrap_or_default(),
        labels.join(" | ")
    )
}

/// What amlint says of `code` in `path`: one finding's message, help and labels.
fn said_of(json: &Value, path: &str, code: &str) -> String {
    let found = findings(json, path, code);
    assert_eq!(found.len(), 1, "one {code} in {path}: {json:#}");
    said(found[0])
}

/// A finding about a definition outside Azure ML YAML names each setting as that file
/// writes it (`rules/data/idioms.yaml`): the key and value it writes, or the spelling of
/// its language for a setting it leaves out; the help of a setting the language cannot
/// write says so instead of asking for it. Azure ML YAML keeps its own words.
#[test]
fn a_definitions_findings_name_its_settings_in_its_own_language() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let tf = "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name     = \"tf-words\"\n  location = \"x\"\n  vm_size  = \"Standard_DS3_v2\"\n  scale_settings {\n    min_node_count = var.min\n    max_node_count = 2\n  }\n}\nvariable \"min\" {\n  default = 1\n}\nresource \"azurerm_machine_learning_compute_instance\" \"i\" {\n  name     = \"tf-words-ci\"\n  location = \"x\"\n  virtual_machine_size = \"Standard_DS3_v2\"\n  node_public_ip_enabled = false\n  subnet_resource_id = \"/s/subnets/a\"\n}\n";
    write(dir.path(), "main.tf", tf);
    let bicep = "resource cc 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  name: 'ws/bicep-words'\n  location: 'x'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: 'Standard_DS3_v2'\n      remoteLoginPortPublicAccess: 'Enabled'\n      scaleSettings: { minNodeCount: 1, maxNodeCount: 2 }\n    }\n  }\n}\n";
    write(dir.path(), "compute.bicep", bicep);
    let v1 = "from azureml.core.compute import ComputeTarget, AmlCompute\ncfg = AmlCompute.provisioning_configuration(vm_size=\"STANDARD_D2_V2\", min_nodes=1, max_nodes=4,\n    remote_login_port_public_access=\"Enabled\")\ncluster = ComputeTarget.create(ws, \"v1-words\", cfg)\n";
    write(dir.path(), "v1.py", v1);
    let sh = "az ml compute create --name cli-words --type amlcompute --size Standard_DS3_v2 \\\n  --min-instances 1\naz ml compute create --name cli-words-ci --type computeinstance --size Standard_DS3_v2 --enable-node-public-ip false --subnet /s/subnets/a\n";
    write(dir.path(), "make.sh", sh);
    // CLI v1 (`az ml computetarget create`): its own options; `lowpriority` is its value.
    let v1_cli = "az ml computetarget create amlcompute -n v1-cli --vm-size STANDARD_D2_V2 \\\n  --min-nodes 1 --max-nodes 4 --vm-priority lowpriority\n";
    write(dir.path(), "v1.sh", v1_cli);
    let yaml = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: yaml-words\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 2\nssh_public_access_enabled: true\n";
    write(dir.path(), "compute.yml", yaml);
    let json = capped::check_json(dir.path());

    // Terraform: the key and the value as written (a variable), the absent ones spelled.
    let s = said_of(&json, "main.tf", "AML601");
    assert!(s.contains("`min_node_count = var.min` keeps 1 node(s)"), "{s}");
    assert!(s.contains("Set `min_node_count = 0`"), "{s}");
    assert!(s.contains("`scale_down_nodes_after_idle_duration`"), "{s}");
    let s = findings(&json, "main.tf", "AML702")
        .iter()
        .map(|d| said(d))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(s.contains("`node_public_ip_enabled = false` is not set"), "{s}");
    assert!(s.contains("(`subnet_resource_id`)"), "{s}");
    let s = said_of(&json, "main.tf", "AML602");
    assert!(s.contains("This definition cannot set an idle shutdown"), "{s}");
    assert!(!s.contains("Add `"), "{s}");
    // Bicep: its value with its quotes; SDK v1: the keyword's name, the literal labelled.
    let s = said_of(&json, "compute.bicep", "AML703");
    assert!(
        s.contains("`remoteLoginPortPublicAccess: 'Enabled'` opens the SSH port"),
        "{s}"
    );
    let s = said_of(&json, "compute.bicep", "AML704");
    assert!(s.contains("(no `subnet.id`)"), "{s}");
    let s = said_of(&json, "v1.py", "AML601");
    assert!(
        s.contains("`min_nodes=1` keeps") && s.contains("Set `min_nodes=0`"),
        "{s}"
    );
    let s = said_of(&json, "v1.py", "AML703");
    assert!(
        s.contains("`remote_login_port_public_access=\"Enabled\"` opens"),
        "{s}"
    );
    assert!(
        s.contains("the value is set here"),
        "the literal is labelled: {s}"
    );
    let s = said_of(&json, "v1.py", "AML702");
    assert!(s.contains("`enable_node_public_ip=False` is not set"), "{s}");
    // The CLI: options, the label at the option on the next line.
    let s = said_of(&json, "make.sh", "AML601");
    assert!(
        s.contains("`--min-instances 1` keeps") && s.contains("`--min-instances` is set here"),
        "{s}"
    );
    let s = said_of(&json, "make.sh", "AML602");
    assert!(s.contains("Add `--idle-time-before-shutdown-minutes 60`"), "{s}");
    // CLI v1: its options, never CLI v2's; it has none for node public IPs.
    let s = said_of(&json, "v1.sh", "AML601");
    assert!(
        s.contains("`--min-nodes 1` keeps") && s.contains("Set `--min-nodes 0`"),
        "{s}"
    );
    assert!(s.contains("`--idle-seconds-before-scaledown`"), "{s}");
    let s = said_of(&json, "v1.sh", "AML702");
    assert!(
        s.contains("This definition cannot turn them off (SDK v1's `az ml computetarget create` has no option for it)"),
        "{s}"
    );
    let s = said_of(&json, "v1.sh", "AML704");
    assert!(s.contains("`--vnet-name` and `--subnet-name`"), "{s}");
    for d in json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"] == "v1.sh")
    {
        let s = said(d);
        for v2_option in ["`--min-instances", "`--idle-time-before", "`--subnet`", "`--tier"] {
            assert!(!s.contains(v2_option), "{s}");
        }
    }
    assert!(
        findings(&json, "v1.sh", "AML103").is_empty(),
        "`--vm-priority lowpriority` is CLI v1's own value: {json:#}"
    );
    // None of them quotes an Azure ML YAML key that its language does not have.
    for file in ["main.tf", "compute.bicep", "v1.py", "make.sh"] {
        for d in json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["path"] == file)
        {
            let s = said(d);
            for yaml_key in [
                "`min_instances",
                "`enable_node_public_ip:",
                "`network_settings",
                "`ssh_public_access_enabled",
            ] {
                assert!(!s.contains(yaml_key), "{file}: {s}");
            }
        }
    }
    // Azure ML YAML keeps its words.
    let s = said_of(&json, "compute.yml", "AML601");
    assert!(
        s.contains("`min_instances: 2` keeps 2 node(s)") && s.contains("Set `min_instances: 0`"),
        "{s}"
    );
    let s = said_of(&json, "compute.yml", "AML703");
    assert!(s.contains("`ssh_public_access_enabled: true` opens"), "{s}");
}
