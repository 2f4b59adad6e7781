//! Terraform reading other files of the project: an
//! `azurerm_resource_group_template_deployment` (or the older `azurerm_template_deployment`)
//! deploying an ARM template that defines a compute — from `file()`, `templatefile()` or
//! written inline as `jsonencode({…})` — with the parameters its `parameters_content`
//! passes; and a configuration `yamldecode(file(…))` / `jsondecode(file(…))` in `locals`
//! whose values a compute resource reads. A value that cannot be known is unknown, with why.

use serde_json::Value;

use crate::common::{check_clean, findings_with, focused, inventory, placed, project, write};

const TEMPLATE: &str = crate::common::ARM_COMPUTE_TEMPLATE;

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: nvidia-smi\nenvironment: azureml:AzureML-ACPT-pytorch-1.13-py38-cuda11.7-gpu@latest\ncompute: azureml:gpu-cluster\n";

/// A resource deploying `template` (the `template_content` expression) with
/// `parameters` (the `parameters_content` body's lines).
fn deployment(kind: &str, template: &str, parameters: &str) -> String {
    format!(
        "variable \"size\" {{\n  default = \"Standard_DS3_v2\"\n}}\n\nresource \"{kind}\" \"compute\" {{\n  name                = \"aml-compute\"\n  resource_group_name = \"rg\"\n  deployment_mode     = \"Incremental\"\n  template_content    = {template}\n  parameters_content = jsonencode({{\n{parameters}  }})\n}}\n"
    )
}

/// Every definition of the inventory made in `path`.
fn made_in(inv: &Value, path: &str) -> Vec<Value> {
    crate::common::every_definition(inv)
        .into_iter()
        .filter(|d| d["path"] == path)
        .collect()
}

fn no_unresolved(json: &Value, job: &str) {
    assert!(
        findings_with(json, job, "AML203").is_empty(),
        "the deployed compute resolves the job's reference: {json:#}"
    );
}

/// `template_content = file("${path.module}/arm/compute.json")` with a literal size in
/// `parameters_content`: a definition at the resource with the parameters' values (the
/// job resolves), the retired size reported in the `.tf` file at the literal; the template
/// read alone keeps its defaults. `file("arm/compute.json")` from the root module, and the
/// older `azurerm_template_deployment`, are read the same way.
#[test]
fn a_template_file_is_deployed_with_the_parameters_the_resource_passes() {
    let params = "    workspaceName = { value = \"mlw\" }\n    clusterName   = { value = \"gpu-cluster\" }\n    vmSize        = { value = \"Standard_NC6\" }\n";
    for (kind, template) in [
        (
            "azurerm_resource_group_template_deployment",
            "file(\"${path.module}/arm/compute.json\")",
        ),
        (
            "azurerm_resource_group_template_deployment",
            "file(\"arm/compute.json\")",
        ),
        (
            "azurerm_template_deployment",
            "file(\"${path.module}/arm/compute.json\")",
        ),
    ] {
        let dir = project();
        let d = dir.path();
        let tf = deployment(kind, template, params);
        write(d, "infra/main.tf", &tf);
        write(d, "infra/arm/compute.json", TEMPLATE);
        write(d, "jobs/train.yml", JOB);
        let json = check_clean(d);
        no_unresolved(&json, "jobs/train.yml");
        // The size is the literal on line 13 of the `.tf` file.
        assert_eq!(
            placed(&json, "AML505", "infra/main.tf"),
            vec![(13, 32)],
            "{template}: {json:#}"
        );
        let f = findings_with(&json, "infra/main.tf", "AML505");
        assert_eq!(focused(&tf, f[0]), "Standard_NC6");
        assert_eq!(
            f[0]["range"]["start"]["line"], 5,
            "from the resource's line: {:#}",
            f[0]
        );
        let inv = inventory(d);
        let defs = made_in(&inv, "infra/main.tf");
        assert_eq!(defs.len(), 1, "{defs:#?}");
        assert_eq!(defs[0]["name"]["value"], "gpu-cluster", "{:#}", defs[0]);
        assert_eq!(defs[0]["settings"]["size"]["value"], "Standard_NC6");
        let notes = defs[0]["notes"].to_string();
        assert!(
            notes.contains("deploys the template") && notes.contains("infra/arm/compute.json:11"),
            "{notes}"
        );
        let own = made_in(&inv, "infra/arm/compute.json");
        assert_eq!(own.len(), 1, "{own:#?}");
        assert_eq!(own[0]["settings"]["size"]["value"], "Standard_DS3_v2");
        assert!(findings_with(&json, "infra/arm/compute.json", "AML505").is_empty());
    }
}

/// A size the parameters take from a variable that `terraform.tfvars` sets: reported in
/// the `.tf` file at the template's path (the literal is in the variable file), noted; the
/// template's default size when the resource passes none is reported there too.
#[test]
fn a_parameter_from_a_variable_file_and_the_templates_default() {
    let dir = project();
    let d = dir.path();
    let tf = deployment(
        "azurerm_resource_group_template_deployment",
        "file(\"${path.module}/arm/compute.json\")",
        "    workspaceName = { value = \"mlw\" }\n    clusterName   = { value = \"gpu-cluster\" }\n    vmSize        = { value = var.size }\n",
    );
    write(d, "infra/main.tf", &tf);
    write(d, "infra/terraform.tfvars", "size = \"Standard_NC6\"\n");
    write(d, "infra/arm/compute.json", TEMPLATE);
    write(d, "jobs/train.yml", JOB);
    let json = check_clean(d);
    no_unresolved(&json, "jobs/train.yml");
    let f = findings_with(&json, "infra/main.tf", "AML505");
    assert_eq!(f.len(), 1, "{json:#}");
    assert_eq!(focused(&tf, f[0]), "${path.module}/arm/compute.json");
    assert_eq!(placed(&json, "AML505", "infra/main.tf"), vec![(9, 31)]);
    let inv = inventory(d);
    let defs = made_in(&inv, "infra/main.tf");
    assert!(
        defs[0]["notes"]
            .to_string()
            .contains("`var.size` is set by terraform.tfvars"),
        "{:#}",
        defs[0]
    );
    // No size passed: the template's retired default, at the template's path.
    let retired = TEMPLATE.replace("Standard_DS3_v2", "Standard_NC12");
    write(d, "infra/arm/compute.json", &retired);
    std::fs::remove_file(d.join("infra/terraform.tfvars")).unwrap();
    let tf = deployment(
        "azurerm_resource_group_template_deployment",
        "file(\"${path.module}/arm/compute.json\")",
        "    workspaceName = { value = \"mlw\" }\n    clusterName   = { value = \"gpu-cluster\" }\n",
    );
    write(d, "infra/main.tf", &tf);
    let json = check_clean(d);
    assert_eq!(
        placed(&json, "AML505", "infra/main.tf"),
        vec![(9, 31)],
        "{json:#}"
    );
    assert_eq!(
        placed(&json, "AML505", "infra/arm/compute.json"),
        vec![(18, 22)],
        "{json:#}"
    );
}

/// `templatefile()`: the template's placeholders are what its variables make, not known:
/// the size is unknown, saying so, never reported; a literal of the template is read.
/// Parameters that are not read (a heredoc) leave every parameter unknown, not defaulted.
#[test]
fn templatefile_placeholders_and_unread_parameters_are_unknown() {
    let dir = project();
    let d = dir.path();
    let tpl = TEMPLATE
        .replace("[parameters('vmSize')]", "${size}")
        .replace("\"minNodeCount\": 0", "\"minNodeCount\": 1");
    write(d, "infra/arm/compute.json.tftpl", &tpl);
    write(d, "jobs/train.yml", JOB);
    let tf = deployment(
        "azurerm_resource_group_template_deployment",
        "templatefile(\"${path.module}/arm/compute.json.tftpl\", { size = var.size })",
        "    clusterName = { value = \"gpu-cluster\" }\n",
    );
    write(d, "infra/main.tf", &tf);
    let json = check_clean(d);
    no_unresolved(&json, "jobs/train.yml");
    assert!(
        findings_with(&json, "infra/main.tf", "AML505").is_empty(),
        "{json:#}"
    );
    assert!(
        findings_with(&json, "infra/main.tf", "AML501").is_empty(),
        "{json:#}"
    );
    let inv = inventory(d);
    let defs = made_in(&inv, "infra/main.tf");
    assert_eq!(defs.len(), 1, "{defs:#?}");
    let why = defs[0]["settings"]["size"]["why"].as_str().unwrap_or_default();
    assert!(
        why.contains("`${size}`") && why.contains("templatefile()"),
        "{:#}",
        defs[0]
    );
    assert_eq!(
        defs[0]["settings"]["min_instances"]["value"], "1",
        "{:#}",
        defs[0]
    );
    // Parameters in a heredoc: not read, so the name is unknown (not `train-cluster`).
    let tf = tf.replace(
        "jsonencode({\n    clusterName = { value = \"gpu-cluster\" }\n  })",
        "<<EOT\n{\"clusterName\": {\"value\": \"gpu-cluster\"}}\nEOT",
    );
    write(d, "infra/main.tf", &tf);
    check_clean(d);
    let inv = inventory(d);
    let defs = made_in(&inv, "infra/main.tf");
    assert_eq!(defs.len(), 1, "{defs:#?}");
    let why = defs[0]["name"]["why"].as_str().unwrap_or_default();
    assert!(why.contains("`parameters_content` is"), "{:#}", defs[0]);
    // A template file that is not there: no definition.
    std::fs::remove_file(d.join("infra/arm/compute.json.tftpl")).unwrap();
    check_clean(d);
    assert!(made_in(&inventory(d), "infra/main.tf").is_empty());
}

const INLINE: &str = r#"resource "azurerm_resource_group_template_deployment" "inline" {
  name                = "aml-inline"
  resource_group_name = "rg"
  deployment_mode     = "Incremental"
  parameters_content = jsonencode({
    vmSize = { value = "Standard_NC6" }
  })
  template_content = jsonencode({
    "$schema"      = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"
    contentVersion = "1.0.0.0"
    parameters = {
      vmSize = { type = "string", defaultValue = "Standard_DS3_v2" }
      other  = { type = "string" }
    }
    resources = [
      {
        type     = "Microsoft.MachineLearningServices/workspaces/computes"
        name     = "mlw/gpu-cluster"
        location = "westeurope"
        properties = {
          computeType = "AmlCompute"
          properties = {
            vmSize             = "[parameters('vmSize')]"
            enableNodePublicIp = false
            subnet             = { id = "/subscriptions/x/subnets/s" }
            scaleSettings      = { minNodeCount = 0, maxNodeCount = 2, nodeIdleTimeBeforeScaleDown = "PT15M" }
          }
        }
      },
      {
        type     = "Microsoft.MachineLearningServices/workspaces/computes"
        name     = "[concat('mlw/', parameters('other'))]"
        location = "westeurope"
        properties = {
          computeType = "AmlCompute"
          properties = {
            vmSize             = "Standard_NV6"
            enableNodePublicIp = false
            subnet             = { id = "/subscriptions/x/subnets/s" }
            scaleSettings      = { minNodeCount = 0, maxNodeCount = 2, nodeIdleTimeBeforeScaleDown = "PT15M" }
          }
        }
      },
      {
        type = "Microsoft.Storage/storageAccounts"
        name = "st"
      }
    ]
  })
}
"#;

/// `template_content = jsonencode({…})`: each compute resource of the template is a
/// definition in the `.tf` file at its object; `[parameters('vmSize')]` is the value the
/// resource passes (labelled at its literal), another ARM expression unknown.
#[test]
fn an_inline_template_defines_its_computes_in_the_tf_file() {
    let dir = project();
    let d = dir.path();
    write(d, "infra/main.tf", INLINE);
    write(d, "jobs/train.yml", JOB);
    let json = check_clean(d);
    no_unresolved(&json, "jobs/train.yml");
    // The passed size at the template's `vmSize` (line 23), labelled at the parameter's
    // literal (line 6); the second compute's literal size at itself (line 37).
    assert_eq!(
        placed(&json, "AML505", "infra/main.tf"),
        vec![(23, 35), (37, 35)],
        "{json:#}"
    );
    let f = findings_with(&json, "infra/main.tf", "AML505");
    let first = f
        .iter()
        .find(|x| x["range"]["start"]["line"] == 16)
        .expect("from its object's line");
    assert_eq!(focused(INLINE, first), "[parameters('vmSize')]");
    let labelled: Vec<u64> = (first["labels"].as_array().into_iter().flatten())
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert!(labelled.contains(&6), "{first:#}");
    let second = f
        .iter()
        .find(|x| x["range"]["start"]["line"] == 30)
        .expect("from its object's line");
    assert_eq!(focused(INLINE, second), "Standard_NV6");
    let inv = inventory(d);
    let defs = made_in(&inv, "infra/main.tf");
    assert_eq!(defs.len(), 2, "{defs:#?}");
    let unnamed: Vec<&Value> = defs.iter().filter(|x| x["name"]["value"].is_null()).collect();
    assert_eq!(unnamed.len(), 1, "{defs:#?}");
    let why = unnamed[0]["name"]["why"].as_str().unwrap_or_default();
    assert!(why.contains("ARM template expression"), "{why}");
}

const CONFIG: &str = "compute:\n  name: yaml-cluster\n  vm_size: Standard_NC6\n  max_nodes: 2\n";

fn cluster(name: &str, size: &str) -> String {
    format!(
        "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {{\n  name                          = {name}\n  location                      = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_priority                   = \"Dedicated\"\n  vm_size                       = {size}\n  node_public_ip_enabled        = false\n  subnet_resource_id            = \"/subscriptions/s/subnets/a\"\n  scale_settings {{\n    min_node_count                       = 0\n    max_node_count                       = local.cfg.compute.max_nodes\n    scale_down_nodes_after_idle_duration = \"PT15M\"\n  }}\n}}\n"
    )
}

/// `locals { cfg = yamldecode(file("${path.module}/config/compute.yaml")) }`: the compute
/// reads its values from the YAML file (`local.cfg.compute.vm_size`, `local.cfg["compute"]
/// ["vm_size"]`), each noted with where the file writes it; the retired size is reported
/// at the attribute that reads it, the note naming the file's line. `jsondecode(file(…))`
/// of a JSON file, through a local holding its path, the same.
#[test]
fn a_decoded_configuration_file_gives_the_values() {
    let dir = project();
    let d = dir.path();
    write(d, "infra/config/compute.yaml", CONFIG);
    write(d, "jobs/train.yml", &JOB.replace("gpu-cluster", "yaml-cluster"));
    for (locals, size) in [
        (
            "locals {\n  cfg = yamldecode(file(\"${path.module}/config/compute.yaml\"))\n}\n\n",
            "local.cfg.compute.vm_size",
        ),
        (
            "locals {\n  path = \"${path.module}/config/compute.yaml\"\n  cfg  = yamldecode(file(local.path))\n}\n\n",
            "local.cfg[\"compute\"][\"vm_size\"]",
        ),
    ] {
        let tf = format!("{locals}{}", cluster("local.cfg.compute.name", size));
        write(d, "infra/main.tf", &tf);
        let json = check_clean(d);
        no_unresolved(&json, "jobs/train.yml");
        let line = tf.lines().position(|l| l.contains("vm_size ")).unwrap() as u64 + 1;
        assert_eq!(
            placed(&json, "AML505", "infra/main.tf"),
            vec![(line, 35)],
            "{json:#}"
        );
        let f = findings_with(&json, "infra/main.tf", "AML505");
        assert_eq!(focused(&tf, f[0]), size);
        let inv = inventory(d);
        let defs = made_in(&inv, "infra/main.tf");
        assert_eq!(defs.len(), 1, "{defs:#?}");
        assert_eq!(defs[0]["name"]["value"], "yaml-cluster");
        assert_eq!(defs[0]["settings"]["max_instances"]["value"], "2");
        let notes = defs[0]["notes"].to_string();
        assert!(
            notes.contains("`compute.vm_size` is read from infra/config/compute.yaml:3:12"),
            "{notes}"
        );
    }
    // JSON, by a path from the root module's directory.
    write(
        d,
        "infra/settings.json",
        "{\n  \"compute\": {\"name\": \"yaml-cluster\", \"vm_size\": \"Standard_NC6\", \"max_nodes\": 2}\n}\n",
    );
    let tf = format!(
        "locals {{\n  cfg = jsondecode(file(\"settings.json\"))\n}}\n\n{}",
        cluster("local.cfg.compute.name", "local.cfg.compute.vm_size")
    );
    write(d, "infra/main.tf", &tf);
    let json = check_clean(d);
    assert_eq!(
        placed(&json, "AML505", "infra/main.tf"),
        vec![(10, 35)],
        "{json:#}"
    );
    let defs = made_in(&inventory(d), "infra/main.tf");
    assert!(
        defs[0]["notes"]
            .to_string()
            .contains("read from infra/settings.json:2:"),
        "{:#}",
        defs[0]
    );
}

/// A file that is not read — missing, outside the project, a path not known statically, a
/// value decoded that is not a file, not one YAML document, a called module's path from
/// where Terraform runs — leaves the values unknown, with why: nothing is reported about
/// the size, nothing guessed.
#[test]
fn a_configuration_not_read_leaves_the_values_unknown() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("compute.yaml"), CONFIG).unwrap();
    let root = outer.path().join("p");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let d = root.as_path();
    write(d, "infra/bad.yaml", "a: 1\n---\nb: 2\n");
    for (decode, why) in [
        (
            "yamldecode(file(\"${path.module}/missing.yaml\"))",
            "which amlint cannot read",
        ),
        (
            "yamldecode(file(\"../../compute.yaml\"))",
            "which amlint cannot read",
        ),
        (
            "yamldecode(file(\"/etc/compute.yaml\"))",
            "only a file of the project by its relative path",
        ),
        ("yamldecode(file(\"${var.dir}/c.yaml\"))", "not known statically"),
        ("yamldecode(var.text)", "of a value other than a file"),
        ("yamldecode(file(\"bad.yaml\"))", "not one valid YAML document"),
    ] {
        let tf = format!(
            "variable \"dir\" {{}}\nvariable \"text\" {{}}\nlocals {{\n  cfg = {decode}\n}}\n\n{}",
            cluster("\"cpu\"", "local.cfg.compute.vm_size")
        );
        write(d, "infra/main.tf", &tf);
        let json = check_clean(d);
        assert!(
            findings_with(&json, "infra/main.tf", "AML505").is_empty(),
            "{json:#}"
        );
        let defs = made_in(&inventory(d), "infra/main.tf");
        assert_eq!(defs.len(), 1, "{defs:#?}");
        let got = defs[0]["settings"]["size"]["why"].as_str().unwrap_or_default();
        assert!(got.contains(why), "{decode}: {got}");
    }
    // A called module reads a path from where Terraform runs: not known there.
    write(
        d,
        "infra/modules/cc/main.tf",
        &format!(
            "locals {{\n  cfg = yamldecode(file(\"compute.yaml\"))\n}}\n\n{}",
            cluster("\"cpu\"", "local.cfg.compute.vm_size")
        ),
    );
    write(d, "infra/modules/cc/compute.yaml", CONFIG);
    write(
        d,
        "infra/main.tf",
        "module \"cc\" {\n  source = \"./modules/cc\"\n}\n",
    );
    let json = check_clean(d);
    assert!(
        findings_with(&json, "infra/main.tf", "AML505").is_empty(),
        "{json:#}"
    );
    let defs = made_in(&inventory(d), "infra/main.tf");
    assert_eq!(defs.len(), 1, "{defs:#?}");
    let got = defs[0]["settings"]["size"]["why"].as_str().unwrap_or_default();
    assert!(got.contains("a called module does not know"), "{got}");
}

/// Hostile: many template deployments of one file (each instance of a `for_each` read
/// too): the templates read count as module calls, at most 64 from one file, and the file
/// says the rest were not read (AML005); the run finishes.
#[test]
fn template_deployments_read_are_bounded() {
    let dir = project();
    let d = dir.path();
    write(d, "infra/arm/compute.json", TEMPLATE);
    let one = |i: usize| {
        format!(
            "resource \"azurerm_resource_group_template_deployment\" \"c{i}\" {{\n  for_each = toset([\"a\", \"b\", \"c\"])\n  name = \"d\"\n  resource_group_name = \"rg\"\n  deployment_mode = \"Incremental\"\n  template_content = file(\"arm/compute.json\")\n  parameters_content = jsonencode({{\n    clusterName = {{ value = \"c{i}-${{each.key}}\" }}\n  }})\n}}\n"
        )
    };
    let tf: String = (0..40).map(one).collect();
    write(d, "infra/main.tf", &tf);
    let json = check_clean(d);
    assert_eq!(
        findings_with(&json, "infra/main.tf", "AML005").len(),
        1,
        "{json:#}"
    );
    let defs = made_in(&inventory(d), "infra/main.tf");
    assert_eq!(defs.len(), 64, "{}", defs.len());
    // Below the bound, each instance is a definition and nothing is said.
    let tf: String = (0..4).map(one).collect();
    write(d, "infra/main.tf", &tf);
    let json = check_clean(d);
    assert!(
        findings_with(&json, "infra/main.tf", "AML005").is_empty(),
        "{json:#}"
    );
    assert_eq!(made_in(&inventory(d), "infra/main.tf").len(), 12);
}
