//! Audit 29 (issue 35): compute definitions read from shell, CI files, Terraform and Bicep.

use crate::common::{codes_in, findings, json_check, project, write};
use serde_json::Value;

const CLUSTER: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 1\nmax_instances: 1\n";
const INSTANCE: &str = "$schema: https://azuremlschemas.azureedge.net/latest/computeInstance.schema.json\ntype: computeinstance\nsize: STANDARD_DS3_v2\n";

/// Case 03: `az ml compute create --file c.yml --name X` with a YAML that gives no `name:`
/// creates the YAML's compute named X: it gets the findings the same YAML with `name: X`
/// gets (AML702 and AML704, AML602 for an instance), at the command's name, and the YAML's
/// own findings name it X (not `?`). `-n` and `--set name=X` name it alike.
#[test]
fn a_nameless_compute_yaml_is_named_by_the_command() {
    for name_opt in ["--name custom-aml", "-n custom-aml", "--set name=custom-aml"] {
        let dir = project();
        let d = dir.path();
        write(d, "configuration/cluster.yml", CLUSTER);
        write(d, "configuration/instance.yml", INSTANCE);
        let make = format!(
            "cluster:\n\taz ml compute create --file configuration/cluster.yml {name_opt}-cluster\n\ninstance:\n\taz ml compute create --file configuration/instance.yml {name_opt}-instance\n"
        );
        write(d, "Makefile", &make);
        let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
        assert_eq!(
            codes_in(&json, "Makefile"),
            [
                ("AML602".into(), 5),
                ("AML702".into(), 2),
                ("AML702".into(), 5),
                ("AML704".into(), 2),
                ("AML704".into(), 5)
            ],
            "{name_opt}: {json:#}"
        );
        let all = findings(&json);
        for (code, path, line, message) in &all {
            assert!(
                !message.contains("`?`"),
                "{name_opt}: {code} {path}:{line} {message}"
            );
            if path == "Makefile" {
                let named = if *line == 2 {
                    "custom-aml-cluster"
                } else {
                    "custom-aml-instance"
                };
                assert!(message.contains(&format!("`{named}`")), "{name_opt}: {message}");
            }
        }
        let min = all.iter().find(|f| f.0 == "AML601").expect("AML601");
        assert_eq!(min.1, "configuration/cluster.yml");
        assert!(min.3.contains("of `custom-aml-cluster` running"), "{}", min.3);
    }
}

/// The control: a YAML that gives its own `name:` reports its findings itself, and the
/// command overriding it does not repeat them.
#[test]
fn a_named_compute_yaml_keeps_its_own_findings() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "cluster.yml",
        &CLUSTER.replace("type:", "name: in-yaml\ntype:"),
    );
    write(
        d,
        "Makefile",
        "cluster:\n\taz ml compute create --file cluster.yml --name custom-aml-cluster\n",
    );
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(codes_in(&json, "Makefile"), [], "{json:#}");
    assert_eq!(
        codes_in(&json, "cluster.yml"),
        [("AML601".into(), 5), ("AML702".into(), 2), ("AML704".into(), 2)],
        "{json:#}"
    );
}

/// Two commands name one nameless YAML differently: each is judged, and the YAML's
/// findings name both.
#[test]
fn a_nameless_compute_yaml_created_twice() {
    let dir = project();
    let d = dir.path();
    write(d, "cluster.yml", CLUSTER);
    write(
        d,
        "create.sh",
        "az ml compute create -f cluster.yml -n a-cluster\naz ml compute create -f cluster.yml --name \"b-cluster\"\n",
    );
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(
        codes_in(&json, "create.sh"),
        [
            ("AML702".into(), 1),
            ("AML702".into(), 2),
            ("AML704".into(), 1),
            ("AML704".into(), 2)
        ],
        "{json:#}"
    );
    let all = findings(&json);
    let min = all.iter().find(|f| f.0 == "AML601").expect("AML601");
    assert!(
        min.3.contains("of `a-cluster` or `b-cluster` running"),
        "{}",
        min.3
    );
}

/// Case 05: a one-file run (pre-commit) of a deployment that names a compute written only
/// in a compute YAML reads, with the YAML, the files that create the compute from it by
/// its file name (`az ml compute create --file compute/ci.yml --size ...`, also a
/// notebook's `!az ...`), as a whole run does: the command's size wins, and the GPU batch
/// deployment on a compute instance is the same error.
#[test]
fn a_one_file_run_reads_the_commands_that_create_a_compute_yaml() {
    let ci = "$schema: https://azuremlschemas.azureedge.net/latest/computeInstance.schema.json\nname: scoring-ci\ntype: computeinstance\nsize: Standard_DS3_v2\nidle_time_before_shutdown_minutes: 30\nnetwork_settings:\n  subnet: /subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\nenable_node_public_ip: false\n";
    let deployment = "$schema: https://azuremlschemas.azureedge.net/latest/batchDeployment.schema.json\nname: blue\nendpoint_name: scoring-endpoint\nmodel: azureml:my-model:1\ncode_configuration:\n  code: ../src\n  scoring_script: score.py\nenvironment: azureml:scoring-env:1\ncompute: azureml:scoring-ci\nresources:\n  instance_count: 1\nmini_batch_size: 10\n";
    let notebook = "{\"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [], \"execution_count\": null, \"source\": [\"!az ml compute create --file ../compute/ci.yml --size Standard_NC4as_T4_v3\\n\"]}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}";
    let creators = [
        (
            "scripts/setup.sh",
            "#!/bin/bash\naz ml compute create --file compute/ci.yml --size Standard_NC4as_T4_v3\n"
                .to_string(),
        ),
        ("notebooks/setup.ipynb", notebook.to_string()),
    ];
    for (path, text) in &creators {
        let dir = project();
        let d = dir.path();
        write(d, "compute/ci.yml", ci);
        write(d, "deploy/batch-deployment.yml", deployment);
        write(d, "src/score.py", "def run(x):\n    return x\n");
        write(d, path, text);
        let (_, whole) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
        let (_, one) = json_check(
            d,
            &["--no-config", "--fail-on", "never", "deploy/batch-deployment.yml"],
        );
        let error = |json: &Value| codes_in(json, "deploy/batch-deployment.yml");
        assert_eq!(error(&whole), [("AML303".into(), 9)], "{path}: {whole:#}");
        assert_eq!(error(&one), error(&whole), "{path}: {one:#}");
    }
}

/// Case 01: a module that negates the argument it builds a setting from
/// (`node_public_ip_enabled = !var.private_nodes`, Bicep `enableNodePublicIp:
/// !privateNodes`, `var.x == false`): the help at the call proposes the argument's value
/// that turns public IPs off (`true`), and for an expression it cannot invert, none.
#[test]
fn a_negated_module_argument_gets_the_value_that_reaches_the_setting() {
    let module = |expr: &str| {
        format!(
            "variable \"private_nodes\" {{\n  type    = bool\n  default = false\n}}\n\nresource \"azurerm_machine_learning_compute_cluster\" \"this\" {{\n  name                          = \"train-cluster\"\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"/subscriptions/x/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/ws\"\n  vm_size                       = \"Standard_DS3_v2\"\n  vm_priority                   = \"Dedicated\"\n  subnet_resource_id            = \"/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\"\n  node_public_ip_enabled        = {expr}\n\n  scale_settings {{\n    min_node_count                       = 0\n    max_node_count                       = 2\n    scale_down_nodes_after_idle_duration = \"PT15M\"\n  }}\n\n  identity {{\n    type = \"SystemAssigned\"\n  }}\n}}\n"
        )
    };
    let root = "variable \"enable_private_endpoints\" {\n  type    = bool\n  default = false\n}\n\nmodule \"cc\" {\n  source        = \"./modules/cc\"\n  private_nodes = var.enable_private_endpoints\n}\n";
    let cases = [
        ("!var.private_nodes", Some("Set `private_nodes = true`")),
        ("!(var.private_nodes)", Some("Set `private_nodes = true`")),
        ("var.private_nodes == false", Some("Set `private_nodes = true`")),
        ("var.private_nodes != true", Some("Set `private_nodes = true`")),
        ("var.private_nodes ? false : true", None),
    ];
    for (expr, help) in cases {
        let dir = project();
        let d = dir.path();
        write(d, "main.tf", root);
        write(d, "modules/cc/main.tf", &module(expr));
        let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
        let at_call: Vec<&Value> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["code"] == "AML702" && x["path"] == "main.tf")
            .collect();
        assert_eq!(at_call.len(), 1, "{expr}: {json:#}");
        let text = at_call[0]["help"].as_str().unwrap_or_default().to_string();
        assert!(!text.contains("= false`"), "{expr}: {text}");
        match help {
            Some(h) => assert!(text.starts_with(h), "{expr}: {text}"),
            None => assert!(
                text.starts_with(&format!(
                    "Set `private_nodes` to what makes the module's `node_public_ip_enabled = {expr}` `false`"
                )),
                "{expr}: {text}"
            ),
        }
    }
    // Bicep.
    let dir = project();
    let d = dir.path();
    write(
        d,
        "main.bicep",
        "param usePrivateEndpoints bool = false\nmodule cc 'modules/cc.bicep' = {\n  name: 'cc'\n  params: {\n    privateNodes: usePrivateEndpoints\n  }\n}\n",
    );
    write(
        d,
        "modules/cc.bicep",
        "param privateNodes bool = false\nresource cc 'Microsoft.MachineLearningServices/workspaces/computes@2024-04-01' = {\n  name: 'ws/train-cluster'\n  location: 'westeurope'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: 'Standard_DS3_v2'\n      enableNodePublicIp: !privateNodes\n      subnet: { id: '/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s' }\n      scaleSettings: { minNodeCount: 0, maxNodeCount: 2 }\n    }\n  }\n}\n",
    );
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    let helps: Vec<(String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == "AML702")
        .map(|x| {
            (
                x["path"].as_str().unwrap().to_string(),
                x["help"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let at_call: Vec<_> = helps.iter().filter(|(p, _)| p == "main.bicep").collect();
    assert_eq!(at_call.len(), 1, "{json:#}");
    assert!(
        at_call[0].1.starts_with("Set `privateNodes: true`"),
        "{}",
        at_call[0].1
    );
    let in_module: Vec<_> = helps.iter().filter(|(p, _)| p == "modules/cc.bicep").collect();
    assert!(
        in_module[0].1.starts_with("Set `enableNodePublicIp: false`"),
        "{}",
        in_module[0].1
    );
}

/// Case 12: an attribute an object value leaves out (or sets `null`) that the variable's
/// type declares `optional(type, default)` takes the default (Terraform 1.3 and later), in
/// a `map(object(...))` a `for_each` goes through: `opt-a`'s size is `Standard_NC6`.
#[test]
fn terraform_optional_attributes_take_their_default() {
    let tf = "variable \"clusters\" {\n  type = map(object({\n    vm_size   = optional(string, \"Standard_NC6\")\n    max_nodes = optional(number, 2)\n    public_ip = optional(bool, false)\n  }))\n  default = {\n    \"opt-a\" = {}\n    \"opt-b\" = { vm_size = \"Standard_DS3_v2\" }\n    \"opt-c\" = { vm_size = null, public_ip = true }\n  }\n}\nresource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  for_each                      = var.clusters\n  name                          = each.key\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_size                       = each.value.vm_size\n  vm_priority                   = \"Dedicated\"\n  node_public_ip_enabled        = each.value.public_ip\n  subnet_resource_id            = \"/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\"\n  scale_settings {\n    min_node_count                       = 0\n    max_node_count                       = each.value.max_nodes\n    scale_down_nodes_after_idle_duration = \"PT15M\"\n  }\n}\n";
    let dir = project();
    let d = dir.path();
    write(d, "main.tf", tf);
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    let all = findings(&json);
    // `opt-a`'s and `opt-c`'s retired size: one finding at `each.value.vm_size`.
    let retired: Vec<&String> = all.iter().filter(|f| f.0 == "AML505").map(|f| &f.3).collect();
    assert_eq!(retired.len(), 1, "{json:#}");
    assert!(retired[0].contains("`Standard_NC6`"), "{retired:?}");
    let public: Vec<&String> = all.iter().filter(|f| f.0 == "AML702").map(|f| &f.3).collect();
    assert_eq!(public.len(), 1, "{json:#}");
    assert!(public[0].contains("`opt-c`"), "{public:?}");
    let out = crate::common::amlint(d)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = inv.to_string();
    assert!(!text.contains("is not known statically"), "{inv:#}");
    let got: Vec<(String, Value, Value)> = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = &c["definitions"][0]["settings"];
            (
                c["name"].as_str().unwrap().to_string(),
                s["size"]["value"].clone(),
                s["max_instances"]["value"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("opt-a".to_string(), Value::from("Standard_NC6"), Value::from("2")),
            (
                "opt-b".to_string(),
                Value::from("Standard_DS3_v2"),
                Value::from("2")
            ),
            ("opt-c".to_string(), Value::from("Standard_NC6"), Value::from("2")),
        ],
        "{inv:#}"
    );
}

/// The size (value, why) of each compute of `amlint inventory` in `dir`, by name.
fn sizes(dir: &std::path::Path) -> Vec<(String, Value, Value)> {
    let out = crate::common::amlint(dir)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut v: Vec<_> = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["definitions"].as_array().unwrap().iter().map(move |d| (c, d)))
        .map(|(c, d)| {
            let s = &d["settings"]["size"];
            (
                c["name"].as_str().unwrap().to_string(),
                s["value"].clone(),
                s["why"].clone(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Case 06: a Makefile's target-specific variable (`gpu-cluster: SIZE = Standard_NC6`,
/// also `export`, `override`, `:=`) is what that target's recipe sees; the other targets
/// see the global value; one that another target's value may reach (a prerequisite, a
/// pattern) is not known, with why.
#[test]
fn makefile_target_specific_variables() {
    let recipe = |t: &str| {
        format!(
            "{t}:\n\taz ml compute create --name {t} --type amlcompute --size $(SIZE) --max-instances 2\n"
        )
    };
    for assign in [
        "gpu-cluster: SIZE = Standard_NC6\n",
        "gpu-cluster: export SIZE = Standard_NC6\n",
        "gpu-cluster: override SIZE := Standard_NC6\n",
    ] {
        let dir = project();
        let d = dir.path();
        let make = format!(
            "SIZE = Standard_DS3_v2\n\n{}\n{assign}{}",
            recipe("cpu-cluster"),
            recipe("gpu-cluster")
        );
        write(d, "Makefile", &make);
        let s = sizes(d);
        assert_eq!(s[0].1, "Standard_DS3_v2", "{assign}: {s:?}");
        assert_eq!(s[1].1, "Standard_NC6", "{assign}: {s:?}");
        let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
        let retired: Vec<u64> = codes_in(&json, "Makefile")
            .into_iter()
            .filter(|c| c.0 == "AML505")
            .map(|c| c.1)
            .collect();
        assert_eq!(retired, [8], "{assign}: {json:#}");
    }
    // A prerequisite built for a target that sets the variable, and a pattern's value.
    for (make, why) in [
        (
            format!(
                "SIZE = Standard_DS3_v2\nall: SIZE = Standard_NC6\nall: gpu-cluster\n{}",
                recipe("gpu-cluster")
            ),
            "`SIZE` is set for `all`, which builds this target with that value",
        ),
        (
            format!(
                "SIZE = Standard_DS3_v2\n%-cluster: SIZE = Standard_NC6\n{}",
                recipe("gpu-cluster")
            ),
            "`SIZE` is set for the targets matching `%-cluster`",
        ),
    ] {
        let dir = project();
        let d = dir.path();
        write(d, "Makefile", &make);
        let s = sizes(d);
        assert_eq!(s[0].1, Value::Null, "{make}: {s:?}");
        assert!(s[0].2.as_str().unwrap_or_default().contains(why), "{make}: {s:?}");
    }
}

/// Case 02: outside a git work tree, an Azure Pipelines `workingDirectory` (a task's input,
/// a `script:` step's key, from `$(System.DefaultWorkingDirectory)`) is relative to the
/// project's root, wherever amlint runs from: `amlint inventory proj` from the folder
/// above and `amlint inventory .` inside it agree.
#[test]
fn an_azure_pipelines_working_directory_outside_git_is_from_the_project_root() {
    let top = tempfile::tempdir().unwrap();
    let d = top.path().join("proj");
    write(
        &d,
        "ml/train/compute.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-cluster\ntype: amlcompute\nsize: STANDARD_DS3_v2\nmin_instances: 0\nmax_instances: 4\n",
    );
    write(
        &d,
        "pipelines/train.yml",
        "steps:\n  - checkout: self\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: aml-connection\n      scriptType: bash\n      scriptLocation: inlineScript\n      inlineScript: az ml compute create --file train/compute.yml\n      workingDirectory: ml\n  - script: az ml compute create --file train/compute.yml\n    workingDirectory: $(System.DefaultWorkingDirectory)/ml\n",
    );
    let definitions = |cwd: &std::path::Path, arg: &str| -> Vec<(String, u64, Value, Value)> {
        let out = crate::common::amlint(cwd)
            .args(["inventory", "--format", "json", arg])
            .output()
            .unwrap();
        let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut v: Vec<_> = inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["definitions"].as_array().unwrap().iter())
            .map(|d| {
                let path = d["path"].as_str().unwrap();
                let path = path.strip_prefix("proj/").unwrap_or(path).to_string();
                (
                    path,
                    d["line"].as_u64().unwrap(),
                    d["name"]["value"].clone(),
                    d["from_file"].clone(),
                )
            })
            .collect();
        v.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        v
    };
    let inside = definitions(&d, ".");
    let above = definitions(top.path(), "proj");
    let created: Vec<_> = inside.iter().filter(|x| x.0 == "pipelines/train.yml").collect();
    assert_eq!(created.len(), 2, "{inside:?}");
    assert!(created.iter().all(|x| x.2 == "cpu-cluster"), "{inside:?}");
    assert_eq!(above.len(), inside.len(), "{above:?}\n{inside:?}");
    for (a, i) in above.iter().zip(&inside) {
        assert_eq!((&a.0, a.1, &a.2), (&i.0, i.1, &i.2));
    }
}
