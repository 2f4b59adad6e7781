//! Audit 32 (Terraform): a module's `try(var.x.attr, null)` over a default that lacks the
//! attribute is what the caller passes, not the fallback (case 08); `terraform plan|apply`
//! with `-var-file`/`-var` on a command line is a definition of the root module's
//! computes with those values (case 03).

use crate::common::{check_clean, findings_with, focused, inventory, placed, project, write};

/// The definitions of the inventory made in `file` (named, unnamed, or a module's), each
/// as its JSON text.
fn made_in(inv: &serde_json::Value, file: &str) -> Vec<String> {
    let mut all = crate::common::every_definition(inv);
    if let Some(m) = inv["module_definitions"].as_array() {
        all.extend(m.iter().cloned());
    }
    let mut out: Vec<String> = all
        .iter()
        .filter(|d| d["path"] == file || d["definition"]["path"] == file)
        .map(|d| d.to_string())
        .collect();
    out.sort();
    out
}

const CI_MODULE: &str = r#"variable "settings" {}
variable "remote_objects" {
  default = {}
}

resource "azurerm_machine_learning_compute_instance" "mlci" {
  name                          = var.settings.name
  location                      = "westeurope"
  machine_learning_workspace_id = "x"
  virtual_machine_size          = var.settings.virtual_machine_size
  node_public_ip_enabled        = false
  subnet_resource_id            = try(var.remote_objects.subnet_resource_id, null)
}
"#;

/// Case 08 (aztfmod/terraform-azurerm-caf's compute instance module, trimmed): the module
/// read alone does not report AML704 from the default `{}` its `try` falls back over — the
/// caller passes `remote_objects` — and the call's messages name `each.value.name`, the
/// member of the argument the module's `var.settings.name` is.
#[test]
fn a_try_over_a_default_is_what_the_caller_passes() {
    let dir = project();
    let d = dir.path();
    write(d, "modules/ci/main.tf", CI_MODULE);
    let main = r#"variable "compute_instances" {}

module "machine_learning_compute_instance" {
  source   = "./modules/ci"
  for_each = var.compute_instances

  settings = each.value
  remote_objects = {
    subnet_resource_id = each.value.subnet_id
  }
}
"#;
    write(d, "main.tf", main);
    let json = check_clean(d);
    assert!(
        findings_with(&json, "modules/ci/main.tf", "AML704").is_empty(),
        "{json}"
    );
    assert!(findings_with(&json, "main.tf", "AML704").is_empty(), "{json}");
    // AML602 (no idle shutdown) stays at both, the call's naming the argument's member.
    let at_call = findings_with(&json, "main.tf", "AML602");
    assert_eq!(at_call.len(), 1, "{json}");
    let msg = at_call[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("the compute instance that `each.value.name` names"),
        "{msg}"
    );
    // Each at the name: the call's argument, the module's attribute.
    assert_eq!(placed(&json, "AML602", "main.tf"), vec![(7, 14)]);
    assert_eq!(focused(main, at_call[0]), "each.value");
    assert_eq!(placed(&json, "AML602", "modules/ci/main.tf"), vec![(7, 35)]);
    // The module's own definition: the subnet unknown, saying why.
    let out = crate::common::amlint(d)
        .args([
            "check",
            "--no-config",
            "--show-files",
            "--verbose",
            "modules/ci/main.tf",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("its network_settings.subnet `try(var.remote_objects.subnet_resource_id, null)` is not known statically: `var.remote_objects.subnet_resource_id` is not in `var.remote_objects`'s default `{}`, and the module's caller or the command line sets `var.remote_objects`"),
        "{text}"
    );
}

/// Case 08's rule is about the module read alone only: a root module's variable file
/// that sets `remote_objects = {}` is the value (the `try` falls back: AML704).
#[test]
fn a_variable_file_or_a_call_without_the_argument_is_the_value() {
    let dir = project();
    let d = dir.path();
    let root = CI_MODULE.replace("variable \"settings\" {}", "variable \"settings\" {\n  default = { name = \"ci-a\", virtual_machine_size = \"Standard_DS3_v2\" }\n}");
    write(d, "root/main.tf", &root);
    write(d, "root/terraform.tfvars", "remote_objects = {}\n");
    let json = check_clean(d);
    // The subnet is absent, reported at the compute's name (line 9 after the longer
    // `settings`).
    assert_eq!(placed(&json, "AML704", "root/main.tf"), vec![(9, 35)], "{json}");
    let f = findings_with(&json, "root/main.tf", "AML704");
    assert_eq!(focused(&root, f[0]), "var.settings.name");
    // Without the variable file, the default is not the value: nothing reported.
    std::fs::remove_file(d.join("root/terraform.tfvars")).unwrap();
    let json = check_clean(d);
    assert!(
        findings_with(&json, "root/main.tf", "AML704").is_empty(),
        "{json}"
    );
}

const ROOT_MODULE: &str = r#"variable "cluster_name" { type = string }
variable "vm_size" {
  type    = string
  default = "Standard_DS3_v2"
}
resource "azurerm_machine_learning_compute_cluster" "c" {
  name                          = var.cluster_name
  location                      = "westeurope"
  machine_learning_workspace_id = "x"
  vm_priority                   = "Dedicated"
  vm_size                       = var.vm_size
  node_public_ip_enabled        = false
  subnet_resource_id            = "/subscriptions/s/subnets/a"
  scale_settings {
    min_node_count                       = 0
    max_node_count                       = 2
    scale_down_nodes_after_idle_duration = "PT15M"
  }
}
"#;

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml:sklearn:1\ncompute: azureml:gpu-cluster\n";

/// Case 03: a GitHub workflow's `terraform apply -var-file=environments/prod.tfvars` in
/// the working directory `infra` is a definition of the root module's compute with the
/// file's values, at the command: the job's `gpu-cluster` resolves, and the retired size
/// the file gives is reported at the `-var-file` value, labelled. The module's own
/// definition (its defaults; the name unknown) stays.
#[test]
fn a_var_file_on_a_workflow_command_defines_the_root_module_computes() {
    let dir = project();
    let d = dir.path();
    write(d, "infra/main.tf", ROOT_MODULE);
    write(d, "infra/terraform.tfvars", "vm_size = \"Standard_DS2_v2\"\n");
    write(
        d,
        "infra/environments/prod.tfvars",
        "cluster_name = \"gpu-cluster\"\nvm_size      = \"Standard_NC6\"\n",
    );
    write(d, "ml/job.yml", JOB);
    let wf = "name: infra\non: push\njobs:\n  tf:\n    runs-on: ubuntu-latest\n    defaults:\n      run:\n        working-directory: infra\n    steps:\n      - uses: actions/checkout@v4\n      - run: terraform init\n      - run: terraform apply -auto-approve -var-file=environments/prod.tfvars\n";
    write(d, ".github/workflows/infra.yml", wf);
    let json = check_clean(d);
    assert!(findings_with(&json, "ml/job.yml", "AML203").is_empty(), "{json}");
    let inv = inventory(d);
    let c = crate::common::compute(&inv, "gpu-cluster");
    let text = c.to_string();
    assert!(text.contains("Standard_NC6"), "{text}");
    assert!(text.contains(".github/workflows/infra.yml"), "{text}");
    // The size's finding at the workflow, focused on the `-var-file` value.
    let size_codes: Vec<&serde_json::Value> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == ".github/workflows/infra.yml")
        .collect();
    assert!(!size_codes.is_empty(), "{json}");
    for f in &size_codes {
        assert_eq!(focused(wf, f), "environments/prod.tfvars", "{f}");
    }
    let code = size_codes[0]["code"].as_str().unwrap();
    assert_eq!(placed(&json, code, ".github/workflows/infra.yml"), vec![(12, 54)]);
    // The module's own definition keeps its defaults: the directory's terraform.tfvars
    // size, and no name.
    let own = made_in(&inv, "infra/main.tf");
    assert_eq!(own.len(), 1, "{own:?}");
    assert!(own[0].contains("Standard_DS2_v2"), "{}", own[0]);
}

/// Case 03 in a script and a pipeline: `-chdir`, `-var` after `-var-file` (the later
/// wins), a missing var file said on the definition, a saved plan's `apply` and a `plan
/// -destroy` define nothing; a `TerraformTaskV4@4` task's `workingDirectory` and
/// `commandOptions`.
#[test]
fn scripts_and_terraform_tasks_pass_their_variables() {
    let dir = project();
    let d = dir.path();
    write(d, "infra/main.tf", ROOT_MODULE);
    write(
        d,
        "infra/env/dev.tfvars",
        "cluster_name = \"dev-cluster\"\nvm_size = \"Standard_DS3_v2\"\n",
    );
    let script = "#!/bin/bash\nset -e\nterraform -chdir=infra plan -var-file=env/dev.tfvars -var 'vm_size=Standard_NC6' -out tfplan\nterraform -chdir=infra apply tfplan\nterraform -chdir=infra plan -destroy -var-file=env/dev.tfvars\nterraform -chdir=infra plan -var cluster_name=other-cluster -var-file=env/missing.tfvars\n";
    write(d, "deploy.sh", script);
    let pipe = "trigger: none\nsteps:\n  - task: TerraformTaskV4@4\n    inputs:\n      provider: azurerm\n      command: apply\n      workingDirectory: $(System.DefaultWorkingDirectory)/infra\n      commandOptions: -var-file=env/dev.tfvars -var=cluster_name=task-cluster\n";
    write(d, "pipelines/tf.yml", pipe);
    check_clean(d);
    let inv = inventory(d);
    // The script's first command: dev-cluster, the `-var`'s size winning over the file's.
    let dev = crate::common::compute(&inv, "dev-cluster").to_string();
    assert!(dev.contains("deploy.sh") && dev.contains("Standard_NC6"), "{dev}");
    // The last: the `-var` name, and the missing file said.
    let other = crate::common::compute(&inv, "other-cluster").to_string();
    assert!(
        other.contains("env/missing.tfvars") && other.contains("which amlint did not read"),
        "{other}"
    );
    // The task: its own `-var`, the dev file's size.
    let task = crate::common::compute(&inv, "task-cluster").to_string();
    assert!(
        task.contains("pipelines/tf.yml") && task.contains("Standard_DS3_v2"),
        "{task}"
    );
    // Two definitions from the script (the saved plan's apply and the destroy plan make
    // none), one from the task.
    assert_eq!(made_in(&inv, "deploy.sh").len(), 2, "{inv}");
    assert_eq!(made_in(&inv, "pipelines/tf.yml").len(), 1, "{inv}");
}

/// Hostile: thousands of `terraform apply` lines, each with many `-var-file`s, and an
/// unterminated quote: the commands read are bounded, every run finishes, no crash.
#[test]
fn many_terraform_commands_are_bounded() {
    let dir = project();
    let d = dir.path();
    write(d, "infra/main.tf", ROOT_MODULE);
    write(d, "infra/a.tfvars", "cluster_name = \"a\"\n");
    let line = format!(
        "terraform -chdir=infra apply{}\n",
        " -var-file=a.tfvars".repeat(40)
    );
    let mut script = line.repeat(3_000);
    script.push_str("terraform apply -var-file='unterminated\n");
    write(d, "many.sh", &script);
    check_clean(d);
    let inv = inventory(d);
    let defs = made_in(&inv, "many.sh");
    assert!(!defs.is_empty() && defs.len() <= 64, "{}", defs.len());
}
