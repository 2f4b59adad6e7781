//! Audit 30: compute definitions outside Azure ML YAML — module parameters deciding the
//! network settings, Terraform's `try`, Bicep module loops over the caller's list,
//! `dynamic` blocks, `loadJsonContent`, and a module's `properties` object.

use crate::common::{codes_in, findings, json_check, project, write};
use serde_json::Value;

fn check(d: &std::path::Path) -> Value {
    json_check(d, &["--no-config", "--fail-on", "never", "."]).1
}

const BICEP_MODULE: &str = "param environment string\nparam subnetId string\nparam vmSize string\nresource ws 'Microsoft.MachineLearningServices/workspaces@2023-10-01' existing = {\n  name: 'ws'\n}\nresource c1 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {\n  parent: ws\n  name: '${environment}-cpu-cluster'\n  location: 'westeurope'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: vmSize\n      scaleSettings: {\n        minNodeCount: 0\n        maxNodeCount: 2\n      }\n      subnet: environment != 'dev' ? {\n        id: subnetId\n      } : null\n      enableNodePublicIp: environment == 'dev'\n    }\n  }\n}\n";

fn bicep_call(environment: &str) -> String {
    format!(
        "param environment string = '{environment}'\nmodule compute 'modules/compute.bicep' = {{\n  name: 'compute-${{environment}}'\n  params: {{\n    environment: environment\n    vmSize: 'Standard_DS3_v2'\n    subnetId: '/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s'\n  }}\n}}\n"
    )
}

const TF_MODULE: &str = "variable \"environment\" { type = string }\nvariable \"subnet_id\" { type = string }\nvariable \"vm_size\" { type = string }\nresource \"azurerm_machine_learning_compute_cluster\" \"this\" {\n  name                          = \"${var.environment}-cpu-cluster\"\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_size                       = var.vm_size\n  vm_priority                   = var.environment == \"dev\" ? \"LowPriority\" : \"Dedicated\"\n  node_public_ip_enabled        = var.environment == \"dev\"\n  subnet_resource_id            = var.environment != \"dev\" ? var.subnet_id : null\n  scale_settings {\n    min_node_count                       = 0\n    max_node_count                       = 2\n    scale_down_nodes_after_idle_duration = \"PT5M\"\n  }\n}\n";

fn tf_call(environment: &str) -> String {
    format!(
        "variable \"environment\" {{\n  type    = string\n  default = \"{environment}\"\n}}\nmodule \"cc\" {{\n  source      = \"./modules/cc\"\n  environment = var.environment\n  vm_size     = \"Standard_DS3_v2\"\n  subnet_id   = \"/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\"\n}}\n"
    )
}

/// Case 01 (defect 1): a module's network settings computed from the parameter the call
/// passes (`enableNodePublicIp: environment == 'dev'`, `subnet: environment != 'dev' ?
/// {...} : null`) are judged at the call with its value, as its name is: `dev` gets
/// AML702 (public IPs on) and AML704 (no subnet); `prod` gets neither. The module read
/// alone (the parameter has no default) stays silent: unknown.
#[test]
fn network_settings_a_module_computes_from_the_calls_parameter_are_judged_at_the_call() {
    for (env, want) in [("dev", true), ("prod", false)] {
        let dir = project();
        let d = dir.path();
        write(d, "main.bicep", &bicep_call(env));
        write(d, "modules/compute.bicep", BICEP_MODULE);
        write(d, "tf/main.tf", &tf_call(env));
        write(d, "tf/modules/cc/main.tf", TF_MODULE);
        let json = check(d);
        let expected: Vec<(String, u64)> = if want {
            vec![("AML702".into(), 2), ("AML704".into(), 2)]
        } else {
            vec![]
        };
        assert_eq!(codes_in(&json, "main.bicep"), expected, "{env}: {json:#}");
        let expected: Vec<(String, u64)> = if want {
            vec![("AML702".into(), 5), ("AML704".into(), 5)]
        } else {
            vec![]
        };
        assert_eq!(codes_in(&json, "tf/main.tf"), expected, "{env}: {json:#}");
        assert_eq!(codes_in(&json, "modules/compute.bicep"), vec![]);
        assert_eq!(codes_in(&json, "tf/modules/cc/main.tf"), vec![]);
        if want {
            let msgs: Vec<String> = findings(&json).into_iter().map(|f| f.3).collect();
            assert!(
                msgs.iter()
                    .any(|m| m.contains("`dev-cpu-cluster` is not placed in a virtual network")),
                "{msgs:?}"
            );
        }
    }
}

/// The same module read alone, its parameter given a default: judged at that default, in
/// the module (the call passing nothing more adds nothing at the call).
#[test]
fn a_module_read_alone_judges_network_settings_at_its_parameters_default() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "modules/compute.bicep",
        &BICEP_MODULE.replace("param environment string\n", "param environment string = 'dev'\n"),
    );
    write(
        d,
        "tf/modules/cc/main.tf",
        &TF_MODULE.replace(
            "variable \"environment\" { type = string }",
            "variable \"environment\" {\n  type    = string\n  default = \"dev\"\n}",
        ),
    );
    let json = check(d);
    let codes = |p| codes_in(&json, p).into_iter().map(|c| c.0).collect::<Vec<_>>();
    assert_eq!(codes("modules/compute.bicep"), ["AML702", "AML704"], "{json:#}");
    assert_eq!(codes("tf/modules/cc/main.tf"), ["AML702", "AML704"], "{json:#}");
}

const TRY_MODULE: &str = "variable \"settings\" {\n  type = any\n}\nvariable \"remote_objects\" {\n  type = any\n}\nresource \"azurerm_machine_learning_compute_cluster\" \"mlcc\" {\n  name                          = var.settings.name\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = var.remote_objects.workspace_id\n  vm_size                       = try(var.settings.vm_size, \"Standard_NC6\")\n  subnet_resource_id            = try(var.remote_objects.subnet_resource_id, null)\n  node_public_ip_enabled        = try(var.settings.node_public_ip_enabled, true)\n  scale_settings {\n    min_node_count                       = 0\n    max_node_count                       = 2\n    scale_down_nodes_after_idle_duration = \"PT5M\"\n  }\n}\n";

/// Case 03 (defect 3): `try(var.settings.vm_size, "Standard_NC6")` in a module whose
/// `var.settings` has no default is not known (what the caller passes), not the fallback:
/// no AML505/AML702/AML704 in the module read alone, the reason said. A call that passes
/// the attributes gets nothing; one whose object lacks them gets the fallbacks (Terraform's
/// `try` catches the error of an attribute a known object lacks). A known list's index
/// beyond its end falls back too.
#[test]
fn terraform_try_over_an_unknown_value_is_unknown_and_over_a_missing_attribute_falls_back() {
    let dir = project();
    let d = dir.path();
    write(d, "modules/ci/main.tf", TRY_MODULE);
    write(
        d,
        "main.tf",
        "module \"cluster\" {\n  source = \"./modules/ci\"\n  settings = {\n    name                   = \"private-cluster\"\n    vm_size                = \"Standard_DS3_v2\"\n    node_public_ip_enabled = false\n  }\n  remote_objects = {\n    workspace_id       = \"w\"\n    subnet_resource_id = \"/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\"\n  }\n}\nmodule \"bare\" {\n  source = \"./modules/ci\"\n  settings = {\n    name = \"fallback-cluster\"\n  }\n  remote_objects = {\n    workspace_id = \"w\"\n  }\n}\n",
    );
    write(
        d,
        "local/main.tf",
        "locals {\n  obj = { a = 1 }\n  lst = [1]\n}\nresource \"azurerm_machine_learning_compute_cluster\" \"x\" {\n  name                          = \"idx-cluster\"\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_size                       = try(local.lst[3], \"Standard_NC6\")\n  subnet_resource_id            = try(local.obj.subnet, \"/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\")\n  node_public_ip_enabled        = try(local.obj[\"pip\"], try(var.nope.x, true))\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 2\n  }\n}\n",
    );
    let json = check(d);
    assert_eq!(codes_in(&json, "modules/ci/main.tf"), vec![], "{json:#}");
    assert_eq!(
        codes_in(&json, "main.tf"),
        [
            ("AML505".into(), 13),
            ("AML702".into(), 13),
            ("AML704".into(), 13)
        ],
        "{json:#}"
    );
    // The index beyond the list falls back; `var.nope` (not declared) is not known.
    assert_eq!(
        codes_in(&json, "local/main.tf"),
        [("AML505".to_string(), 5)],
        "{json:#}"
    );
    let out = crate::common::amlint(d)
        .args([
            "check",
            ".",
            "--no-config",
            "--fail-on",
            "never",
            "--show-files",
            "--verbose",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("its size `try(var.settings.vm_size, \"Standard_NC6\")` is not known statically: `var.settings` has no default"),
        "{text}"
    );
}

/// Case 08 (defect 9): `dynamic "scale_settings"` over a known collection is read from its
/// `content` (2 nodes always on: AML601), the iterator's `value` too; over a collection not
/// known statically its settings are unknown with why (no AML601, and not absent: the
/// inventory shows them); over an empty one, absent.
#[test]
fn a_dynamic_scale_settings_block_is_read_from_its_content_or_unknown() {
    let dir = project();
    let d = dir.path();
    let cluster = |name: &str, block: &str| {
        format!(
            "resource \"azurerm_machine_learning_compute_cluster\" \"{name}\" {{\n  name                          = \"{name}\"\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_size                       = \"Standard_DS3_v2\"\n  node_public_ip_enabled        = false\n  subnet_resource_id            = \"/s\"\n{block}}}\n"
        )
    };
    let mut tf = String::from("variable \"scale\" {\n  type = any\n}\n");
    tf += &cluster(
        "literal",
        "  dynamic \"scale_settings\" {\n    for_each = [1]\n    content {\n      min_node_count                       = 2\n      max_node_count                       = 4\n      scale_down_nodes_after_idle_duration = \"PT5M\"\n    }\n  }\n",
    );
    tf += &cluster(
        "iterated",
        "  dynamic \"scale_settings\" {\n    for_each = [{ min = 3, max = 5 }]\n    iterator = s\n    content {\n      min_node_count = s.value.min\n      max_node_count = s.value.max\n    }\n  }\n",
    );
    tf += &cluster(
        "unknown",
        "  dynamic \"scale_settings\" {\n    for_each = var.scale\n    content {\n      min_node_count = scale_settings.value.min\n      max_node_count = 4\n    }\n  }\n",
    );
    write(d, "main.tf", &tf);
    let json = check(d);
    let codes: Vec<(String, u64)> = codes_in(&json, "main.tf")
        .into_iter()
        .filter(|c| c.0 == "AML601")
        .collect();
    assert_eq!(
        codes,
        [("AML601".to_string(), 4), ("AML601".to_string(), 20)],
        "{json:#}"
    );
    let out = crate::common::amlint(d)
        .args(["inventory", "."])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("min_instances 3 (from `s.value.min`), max_instances 5"),
        "{text}"
    );
    assert!(
        text.contains("min_instances `scale_settings.value.min` (not known: the `dynamic \"scale_settings\"` block is written once per item of `for_each = var.scale`, and `var.scale` has no default"),
        "{text}"
    );
}

/// Case 09 (defect 7): `loadJsonContent('config/compute.json')` is loaded when Bicep
/// compiles the template, not by Resource Manager at deployment: when the file is not
/// there, the values it gives are unknown with that said, never the false reason (the file
/// read: `loaded_files.rs`).
#[test]
fn bicep_load_json_content_is_unknown_with_a_true_reason() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "main.bicep",
        "var cfg = loadJsonContent('config/compute.json')\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {\n  name: 'ws/${cfg.clusterName}'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: cfg.vmSize\n    }\n  }\n}\n",
    );
    let out = crate::common::amlint(d)
        .args([
            "check",
            ".",
            "--no-config",
            "--fail-on",
            "never",
            "--show-files",
            "--verbose",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`loadJsonContent()` loads `config/compute.json` when the template is compiled, and amlint cannot read it: it is missing"),
        "{text}"
    );
    assert!(!text.contains("evaluated by Azure Resource Manager"), "{text}");
}
