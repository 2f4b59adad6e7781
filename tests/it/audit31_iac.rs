//! Audit 31: repetitions whose count is known but not a literal (Terraform `count =
//! var.n`, `length(local.x)`; Bicep `range()`), and the placeholders of the Azure
//! quickstart templates' parameters files (`GEN-UNIQUE-8`, `GEN-PASSWORD`,
//! `GET-PREREQ-workspaceName`), which their test pipeline replaces at each deployment.

use crate::common::{check_clean, codes_in, focus_lines, inventory, project, write};

/// The names of the computes the inventory lists.
fn names(inv: &serde_json::Value) -> Vec<String> {
    inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

/// Case 02: `count = var.n` (default 2) and `count = length(local.users)` are one
/// definition per index, as a `for_each` over a variable's default is; Bicep's `range(1,
/// n)` is evaluated (it depends only on its arguments). A count a variable decides to be
/// 0 (`var.enabled ? 1 : 0`, default `false`) still describes the compute a caller may
/// enable: one definition, its index unknown.
#[test]
fn known_counts_and_ranges_are_expanded() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "tf/main.tf",
        r#"variable "n" {
  default = 2
}
variable "enabled" {
  default = false
}
locals {
  users = ["alice", "bob"]
}
resource "azurerm_machine_learning_compute_cluster" "cc" {
  count                         = var.n
  name                          = "cc-${count.index}"
  location                      = "westeurope"
  machine_learning_workspace_id = "x"
  vm_size                       = "Standard_NC6"
  vm_priority                   = "Dedicated"
  scale_settings {
    min_node_count                       = 0
    max_node_count                       = 2
    scale_down_nodes_after_idle_duration = "PT5M"
  }
}
resource "azurerm_machine_learning_compute_instance" "ci" {
  count                         = length(local.users)
  name                          = "ci-${local.users[count.index]}"
  machine_learning_workspace_id = "x"
  virtual_machine_size          = "STANDARD_DS3_V2"
}
resource "azurerm_machine_learning_compute_instance" "maybe" {
  count                         = var.enabled ? 1 : 0
  name                          = "maybe-${count.index}"
  machine_learning_workspace_id = "x"
  virtual_machine_size          = "STANDARD_DS3_V2"
}
"#,
    );
    write(
        d,
        "bicep/main.bicep",
        "param n int = 2
module dev 'dev.bicep' = [for x in range(1, n): {
  name: 'dev-${x}'
  params: {
    computeName: 'proj-${x}-dev'
  }
}]
",
    );
    write(
        d,
        "bicep/dev.bicep",
        "param computeName string
resource ws 'Microsoft.MachineLearningServices/workspaces@2023-10-01' existing = {
  name: 'ws'
}
resource ci 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {
  parent: ws
  name: computeName
  location: 'westeurope'
  properties: {
    computeType: 'ComputeInstance'
    properties: {
      vmSize: 'Standard_DS3_v2'
    }
  }
}
",
    );
    let inv = inventory(d);
    let names = names(&inv);
    for name in ["cc-0", "cc-1", "ci-alice", "ci-bob", "proj-1-dev", "proj-2-dev"] {
        assert!(names.iter().any(|n| n == name), "{name}: {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n == "cc-2" || n == "proj-3-dev" || n.starts_with("maybe")),
        "{names:?}"
    );
    assert!(inv.to_string().contains("count = var.enabled ? 1 : 0"), "{inv:#}");
    // The retired size is judged for each instance, at the one place it is written: the
    // two instances' findings are the same finding, reported once.
    let json = check_clean(d);
    assert_eq!(focus_lines(&json, "tf/main.tf", "AML505"), [15], "{json:#}");
    // Both instances of each repeated resource are judged (AML602: a compute instance
    // with no idle shutdown).
    let messages = json.to_string();
    for name in ["ci-alice", "ci-bob"] {
        assert!(
            messages.contains(&format!("compute instance `{name}` has no idle shutdown")),
            "{json:#}"
        );
    }
}

/// A quickstart sample: a template making a compute named by `clusterName` on a retired
/// size, and its parameters file giving `name` to `clusterName`.
fn sample(d: &std::path::Path, folder: &str, compute_type: &str, name: &str) {
    write(
        d,
        &format!("{folder}/azuredeploy.json"),
        &format!(
            r#"{{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {{
    "workspaceName": {{"type": "string"}},
    "clusterName": {{"type": "string"}},
    "vmSize": {{"type": "string", "defaultValue": "Standard_NC6"}}
  }},
  "resources": [
    {{
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "apiVersion": "2021-07-01",
      "name": "[concat(parameters('workspaceName'), '/', parameters('clusterName'))]",
      "location": "westeurope",
      "properties": {{
        "computeType": "{compute_type}",
        "properties": {{"vmSize": "[parameters('vmSize')]"}}
      }}
    }}
  ]
}}
"#
        ),
    );
    write(
        d,
        &format!("{folder}/azuredeploy.parameters.json"),
        &format!(
            r#"{{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {{
    "workspaceName": {{"value": "GET-PREREQ-workspaceName"}},
    "clusterName": {{"value": "{name}"}}
  }}
}}
"#
        ),
    );
}

/// Two independent samples whose parameters files both name their compute `GEN-UNIQUE-8`
/// define two computes of unknown name (not one compute defined twice with different
/// types: no AML205), each still judged on its size (AML505 at the template's default);
/// the inventory says why the name is not known. A real name in the same place is read.
/// (AML505 is at the template's `vmSize`, line 17, labelled at the default on line 7.)
#[test]
fn quickstart_placeholders_are_not_names() {
    let dir = project();
    let d = dir.path();
    sample(d, "101-amlcompute", "AmlCompute", "GEN-UNIQUE-8");
    sample(d, "101-computeinstance", "ComputeInstance", "GEN-UNIQUE-8");
    sample(d, "102-named", "AmlCompute", "gpu-cluster");
    let json = check_clean(d);
    for file in ["101-amlcompute", "101-computeinstance", "102-named"] {
        let codes = codes_in(&json, &format!("{file}/azuredeploy.json"));
        assert!(!codes.iter().any(|(c, _)| c == "AML205"), "{file}: {json:#}");
        let path = format!("{file}/azuredeploy.json");
        assert_eq!(focus_lines(&json, &path, "AML505"), [17], "{file}: {json:#}");
    }
    let inv = inventory(d);
    let names = names(&inv);
    assert!(!names.iter().any(|n| n == "GEN-UNIQUE-8"), "{inv:#}");
    assert!(names.iter().any(|n| n == "gpu-cluster"), "{inv:#}");
    let text = inv.to_string();
    assert_eq!(
        text.matches("`GEN-UNIQUE-8` in a parameters file is a placeholder that the Azure quickstart templates' test pipeline replaces at each deployment").count(),
        2,
        "{inv:#}"
    );
}

/// Only the quickstart pipeline's own words are placeholders: a compute really named
/// `GEN-cluster` or `gen-unique-8`, or a value that merely contains `GEN-UNIQUE`, is read.
#[test]
fn names_like_placeholders_are_still_read() {
    for name in ["GEN-cluster", "gen-unique-8", "my-GEN-UNIQUE"] {
        let dir = project();
        let d = dir.path();
        sample(d, "s", "AmlCompute", name);
        let inv = inventory(d);
        assert!(
            inv["computes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["name"] == name),
            "{name}: {inv:#}"
        );
    }
}
