//! The compute-definition readers of Terraform, Bicep, ARM JSON and the Python SDK (`.py`,
//! `.ipynb`) seen from outside: a partial run (pre-commit passes one job) finds a
//! definition whose name is only in a variable or parameter file beside it; and hostile
//! inputs: each file holds a definition (so its reader parses it)
//! and is written to blow up a parser — nesting far beyond any limit, millions of flat
//! tokens, chains of names that refer to each other, megabytes of escapes. Each runs the
//! real binary under the caps of `capped` (wall clock, 256 MiB peak memory, a 256 KiB
//! stack per thread) beside a job whose compute an ordinary definition file defines, and
//! asserts that the run ends cleanly and the ordinary definition still resolves.

use std::path::Path;

use assert_cmd::Command;

use serde_json::Value;

use crate::capped;
use crate::common::{helps, messages};

/// Near the loader's file size limit (8 MiB).
const BIG: usize = 7 << 20;

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:ordinary-cluster\n";

/// An ordinary definition of `ordinary-cluster` (a retired size: AML505 on line 3).
const ORDINARY: &str = "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name    = \"ordinary-cluster\"\n  vm_size = \"Standard_NC6\"\n  vm_priority = \"Dedicated\"\n  node_public_ip_enabled = false\n  subnet_resource_id = \"/s/n\"\n}\n";

/// Runs `amlint check` on the folder holding `files`, the job and the ordinary definition.
fn run(files: &[(&str, Vec<u8>)]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("ordinary")).unwrap();
    std::fs::write(d.join("ordinary/main.tf"), ORDINARY).unwrap();
    std::fs::write(d.join("job.yml"), JOB).unwrap();
    for (name, bytes) in files {
        std::fs::write(d.join(name), bytes).unwrap();
    }
    check(d)
}

fn check(d: &Path) -> Value {
    let out = capped::amlint(d, &["check", "--no-config", "--format", "json", "."], b"");
    assert!(
        matches!(out.code, Some(0..=1)),
        "exit {:?}: {}",
        out.code,
        out.stderr_text()
    );
    let json: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", out.stdout_text()));
    let diags = json["diagnostics"].as_array().expect("diagnostics").clone();
    assert!(!json.to_string().contains("AML000"), "no internal error: {json}");
    assert!(
        !diags
            .iter()
            .any(|x| x["path"] == "job.yml" && x["code"] == "AML203"),
        "the ordinary definition still resolves the job's compute: {json}"
    );
    assert!(
        diags.iter().any(|x| x["path"] == "ordinary/main.tf"
            && x["code"] == "AML505"
            && x["range"]["start"]["line"] == 1
            && x["focus"]["start"]["line"] == 3),
        "the ordinary definition is still checked: {json}"
    );
    json
}

/// A project (a git root) holding `job.yml`, a job that runs on the compute `compute`.
fn project_with_job(compute: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join("job.yml"),
        JOB.replace("ordinary-cluster", compute),
    )
    .unwrap();
    dir
}

fn codes_of(json: &Value, path: &str) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == path)
        .map(|x| x["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn fill(head: &str, unit: &str, tail: &str) -> Vec<u8> {
    let n = (BIG - head.len() - tail.len()) / unit.len();
    let mut s = String::with_capacity(BIG);
    s.push_str(head);
    for _ in 0..n {
        s.push_str(unit);
    }
    s.push_str(tail);
    s.into_bytes()
}

const TF_DEF: &str = "resource \"azurerm_machine_learning_compute_cluster\" \"h\" {\n  name = \"h\"\n  vm_size = \"Standard_NC6\"\n}\n";

#[test]
fn terraform_that_hcl_edit_cannot_afford_is_not_parsed() {
    // 7 MiB of traversals (about a gigabyte as hcl-edit's tree), of nesting, of list items.
    run(&[
        ("traversals.tf", fill(TF_DEF, ".b", "\n")),
        ("deep.tf", fill(&format!("{TF_DEF}x = "), "[", "\n")),
        ("items.tf", fill(&format!("{TF_DEF}x = ["), "1,", "]\n")),
    ]);
    // Files just within the scan's bounds are parsed, and their definitions checked.
    let mut wide = String::from(TF_DEF);
    wide.push_str("x = [");
    wide.push_str(&"1,".repeat(100_000));
    wide.push_str("]\n");
    let deep = format!("{TF_DEF}x = {}1{}\n", "[".repeat(23), "]".repeat(23));
    let json = run(&[("wide.tf", wide.into_bytes()), ("deep.tf", deep.into_bytes())]);
    assert!(
        codes_of(&json, "wide.tf").contains(&"AML505".to_string()),
        "{json}"
    );
    assert!(
        codes_of(&json, "deep.tf").contains(&"AML505".to_string()),
        "{json}"
    );
}

#[test]
fn bicep_nesting_unclosed_groups_and_chains_of_variables() {
    let def = "resource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  name: v0\n  properties: { computeType: 'AmlCompute', properties: { vmSize: 'Standard_NC6' } }\n}\n";
    // Within the token bound: 40,000 variables, each naming the next.
    let mut chain = String::from("var v40000 = 'b'\n");
    for i in (0..40_000).rev() {
        chain.push_str(&format!("var v{i} = v{}\n", i + 1));
    }
    run(&[
        ("nested.bicep", fill(&format!("{def}var x = "), "(", "\n")),
        ("mixed.bicep", fill(&format!("{def}var x = "), "[{'${", "\n")),
        (
            "strings.bicep",
            fill(&format!("{def}var x = '"), "\\u{41}${'", "\n"),
        ),
        ("chain.bicep", format!("{def}{chain}").into_bytes()),
    ]);
}

#[test]
fn arm_templates_with_deep_expressions_and_long_chains() {
    let head = "{\"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\", \"contentVersion\": \"1.0.0.0\", \"variables\": {\"v\": \"[";
    let tail = "]\"}, \"resources\": [{\"type\": \"Microsoft.MachineLearningServices/workspaces/computes\", \"name\": \"[variables('v')]\", \"properties\": {\"computeType\": \"AmlCompute\", \"properties\": {\"vmSize\": \"Standard_NC6\"}}}]}";
    let mut chain = String::from(
        "{\"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\", \"contentVersion\": \"1.0.0.0\", \"variables\": {\"v0\": \"x\"",
    );
    for i in 1..100_000 {
        chain.push_str(&format!(
            ", \"v{i}\": \"[concat(variables('v{0}'), variables('v{0}'))]\"",
            i - 1
        ));
    }
    chain.push_str(", \"v\": \"[variables('v99999')]\"");
    chain.push_str(&tail[2..]);
    run(&[
        ("deep.json", fill(head, "concat(", tail)),
        ("chain.json", chain.into_bytes()),
    ]);
}

#[test]
fn python_and_notebooks_beyond_the_token_bound_or_full_of_escapes() {
    let def =
        "from azure.ai.ml.entities import AmlCompute\nc = AmlCompute(name='py-h', size='Standard_NC6')\n";
    // Each name doubles the one before: evaluated once each, and not deeper than a bound.
    let mut chain = String::from("x0 = 'a'\n");
    for i in 1..25_000 {
        chain.push_str(&format!("x{i} = x{} + x{}\n", i - 1, i - 1));
    }
    chain.push_str("d = AmlCompute(name=x24999)\n");
    // A notebook cell of escapes: every byte of its code is a six-byte escape.
    let mut nb = String::from(
        "{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"AmlCompute(name='nb-h', size='Standard_NC6')\\n\", \"x = '",
    );
    let n = (BIG - nb.len() - 64) / 6;
    for _ in 0..n {
        nb.push_str("\\u0041");
    }
    nb.push_str("'\\n\"]}]}");
    run(&[
        ("flat.py", fill(def, "a,", "\n")),
        ("deep.py", fill(&format!("{def}x = "), "(", "\n")),
        ("chain.py", format!("{def}{chain}").into_bytes()),
        ("escapes.ipynb", nb.into_bytes()),
    ]);
}

#[test]
fn a_partial_run_finds_a_name_written_only_in_a_variable_or_parameter_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let write = |name: &str, text: &str| {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let job = |compute: &str| {
        format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:{compute}\n"
        )
    };
    write("jobs/tf.yml", &job("tf-from-tfvars"));
    write("jobs/tfdefault.yml", &job("tf-from-default"));
    write("jobs/bicep.yml", &job("bicep-from-param"));
    write("jobs/arm.yml", &job("arm-from-param"));
    write("jobs/none.yml", &job("defined-nowhere"));
    write("jobs/py.yml", &job("py-from-helper"));
    write("jobs/ado.yml", &job("ado-from-variables"));
    // The mlops-v2 layout: a variables template at the root, included by a pipeline in
    // another folder, which passes it to a step template that creates the compute.
    write(
        "config-infra.yml",
        "variables:\n  training_target: ado-from-variables\n  training_target_sku: STANDARD_D2_V2\n",
    );
    write(
        "mlops/devops-pipelines/train.yml",
        "variables:\n- template: ../../config-infra.yml\ntrigger:\n- none\nsteps:\n- template: /templates/create-compute.yml\n  parameters:\n    cluster_name: $(training_target)\n    size: $(training_target_sku)\n",
    );
    write(
        "templates/create-compute.yml",
        "parameters:\n- name: cluster_name\n  type: string\n- name: size\n  type: string\nsteps:\n  - task: AzureCLI@2\n    inputs:\n      scriptType: bash\n      scriptLocation: inlineScript\n      inlineScript: |\n        az ml compute create --name ${{ parameters.cluster_name }} --type amlcompute --size ${{ parameters.size }} --min-instances 0\n",
    );
    // Created by a call of a helper of another file that names no compute class.
    write(
        "ml/utils/compute.py",
        "from azure.ai.ml.entities import AmlCompute\n\ndef make(client, name, size):\n    return AmlCompute(name=name, size=size)\n",
    );
    write(
        "ml/create.py",
        "from utils.compute import make\n\nmake(None, \"py-from-helper\", \"Standard_DS3_v2\")\n",
    );
    write(
        "infra/main.tf",
        "resource \"azurerm_machine_learning_compute_cluster\" \"a\" {\n  name = var.a\n  vm_size = \"Standard_DS3_v2\"\n}\nresource \"azurerm_machine_learning_compute_cluster\" \"b\" {\n  name = var.b\n  vm_size = \"Standard_DS3_v2\"\n}\n",
    );
    write(
        "infra/variables.tf",
        "variable \"a\" {\n  default = \"x\"\n}\nvariable \"b\" {\n  default = \"tf-from-default\"\n}\n",
    );
    write("infra/terraform.tfvars", "a = \"tf-from-tfvars\"\n");
    write(
        "bicep/main.bicep",
        "param name string\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  name: 'ws/${name}'\n  properties: { computeType: 'AmlCompute' }\n}\n",
    );
    write(
        "bicep/main.bicepparam",
        "using './main.bicep'\nparam name = 'bicep-from-param'\n",
    );
    write(
        "arm/azuredeploy.json",
        "{\"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\", \"contentVersion\": \"1.0.0.0\", \"parameters\": {\"n\": {\"type\": \"string\"}}, \"resources\": [{\"type\": \"Microsoft.MachineLearningServices/workspaces/computes\", \"name\": \"[concat('ws/', parameters('n'))]\", \"properties\": {\"computeType\": \"AmlCompute\"}}]}",
    );
    write(
        "arm/azuredeploy.parameters.json",
        "{\"parameters\": {\"n\": {\"value\": \"arm-from-param\"}}}",
    );
    let out = Command::cargo_bin("amlint")
        .unwrap()
        .timeout(std::time::Duration::from_secs(60))
        .current_dir(root)
        .args(["check", "--format", "concise", "--fail-on", "never"])
        .args([
            "jobs/tf.yml",
            "jobs/tfdefault.yml",
            "jobs/bicep.yml",
            "jobs/arm.yml",
            "jobs/none.yml",
            "jobs/py.yml",
            "jobs/ado.yml",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let unresolved: Vec<&str> = text.lines().filter(|l| l.contains("AML203")).collect();
    assert_eq!(unresolved.len(), 1, "{text}");
    assert!(unresolved[0].starts_with("jobs/none.yml"), "{text}");
}

/// A partial run looks a name up in the rest of the project: the files that mention it,
/// and the definition files beside a variable or parameter file among them. Thousands of
/// files that mention the name among thousands that do not must cost time linear in their
/// number: each file that does not was once tested against every one that does (5,000 ×
/// 5,000 tests of two paths: a minute in the unoptimised build, 1.1 G of the 1.8 G
/// instructions of a one-file run in bench/monorepo.py's repository). The same for 5,000
/// variables templates that mention it, each included by a pipeline.
#[test]
fn a_partial_run_where_thousands_of_files_mention_the_name_stays_linear() {
    let dir = project_with_job("busy-cluster");
    let root = dir.path();
    for d in 0..50 {
        let sub = root.join(format!("scripts/d{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..100 {
            std::fs::write(sub.join(format!("s{f}.sh")), "echo busy-cluster\n").unwrap();
            std::fs::write(sub.join(format!("q{f}.sh")), "echo quiet\n").unwrap();
            // As many Azure Pipelines variables templates that mention the name, each
            // named by a pipeline: every template's name is searched in every file, at once.
            std::fs::write(
                sub.join(format!("vars{f}.yml")),
                "variables:\n  target: busy-cluster\n",
            )
            .unwrap();
            std::fs::write(
                sub.join(format!("pipe{f}.yml")),
                format!("variables:\n- template: vars{f}.yml\nsteps:\n- script: az ml compute create --name $(target)\n"),
            )
            .unwrap();
        }
    }
    std::fs::write(
        root.join("scripts/d7/variables.tf"),
        "variable \"n\" {\n  default = \"busy-cluster\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("scripts/d7/main.tf"),
        "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name    = var.n\n  vm_size = \"Standard_NC6\"\n}\n",
    )
    .unwrap();
    let json = capped::check_json_within(root, "job.yml", std::time::Duration::from_secs(30));
    assert!(
        codes_of(&json, "job.yml").iter().all(|c| c != "AML203"),
        "the name resolves to the Terraform definition beside its variables file: {json}"
    );
}

/// A one-file run searches the rest of the project for the compute it names and parses
/// only the files that may define it: a Kubernetes manifest that mentions the name as an
/// environment value is not parsed (4,000 of them made the subfolder row of bench/speed.sh
/// 1.5 G instructions), while a compute YAML that writes its `name:` on the next line or
/// behind a tag, and a workflow whose `az ml compute create` takes the name from its
/// `env:`, still define it.
#[test]
fn a_partial_run_parses_only_the_files_that_may_define_the_name() {
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          env:\n            - {name: COMPUTE, value: busy-cluster}\n";
    let cases: [(&str, &str, bool); 4] = [
        ("deploy/app.yaml", manifest, false),
        (
            "compute/cluster.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname:\n  busy-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\n",
            true,
        ),
        (
            "compute/tagged.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: !!str 'busy-cluster'\ntype: amlcompute\nsize: Standard_DS3_v2\n",
            true,
        ),
        (
            ".github/workflows/setup.yml",
            "on: push\njobs:\n  setup:\n    runs-on: ubuntu-latest\n    env:\n      CLUSTER: busy-cluster\n    steps:\n      - run: az ml compute create -n $CLUSTER --type amlcompute --size Standard_DS3_v2\n",
            true,
        ),
    ];
    for (path, text, defines) in cases {
        let dir = project_with_job("busy-cluster");
        let root = dir.path();
        // The manifest is beside every definition: it never hides one.
        std::fs::create_dir_all(root.join("k8s")).unwrap();
        std::fs::write(root.join("k8s/other.yaml"), manifest).unwrap();
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        let json = capped::check_json_within(root, "job.yml", std::time::Duration::from_secs(30));
        let unresolved = codes_of(&json, "job.yml").iter().any(|c| c == "AML203");
        assert_eq!(unresolved, !defines, "{path}: {json}");
    }
}

/// `amlint <args> .` in the fixture folder `fixtures/computes/<name>`, as JSON.
fn in_fixture(name: &str, args: &[&str]) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/computes")
        .join(name);
    let out = Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(&dir)
        .args(args)
        .args(["--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"))
}

/// The findings of `code` in `path`: (start line, focus line, label lines).
fn found(json: &Value, code: &str, path: &str) -> Vec<(u64, u64, Vec<u64>)> {
    let line = |v: &Value| v["start"]["line"].as_u64().unwrap_or(0);
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == code && x["path"] == path)
        .map(|x| {
            let labels = x["labels"]
                .as_array()
                .map_or(Vec::new(), |l| l.iter().map(|l| line(&l["range"])).collect());
            (line(&x["range"]), line(&x["focus"]), labels)
        })
        .collect()
}

/// Audit 10, defect 1: a compute defined in a local Terraform module or Bicep module is one
/// definition per call, named and sized by what the call passes. The job's compute
/// resolves; a size the call writes is judged at the call (from the `module` line, focused
/// on the value, labelled at a variable's default); what the module itself writes or
/// leaves out is reported once, in the module; a registry or git module is not followed.
#[test]
fn a_compute_in_a_local_module_takes_each_calls_values() {
    let tf = in_fixture("terraform_modules", &["check", "--fail-on", "never"]);
    assert!(found(&tf, "AML203", "job.yml").is_empty(), "{tf}");
    assert_eq!(
        found(&tf, "AML505", "main.tf"),
        [(10, 13, vec![13, 8]), (15, 18, vec![18])],
        "{tf}"
    );
    // The wrapper's literal: in the wrapper, and at the root's call of it (at `source`).
    assert_eq!(
        found(&tf, "AML503", "modules/wrap/main.tf"),
        [(3, 6, vec![6])],
        "{tf}"
    );
    assert_eq!(
        found(&tf, "AML503", "main.tf")
            .iter()
            .map(|f| (f.0, f.1))
            .collect::<Vec<_>>(),
        [(20, 21)],
        "{tf}"
    );
    for code in ["AML702", "AML704"] {
        assert_eq!(found(&tf, code, "modules/cc/main.tf").len(), 1, "{tf}");
        assert!(found(&tf, code, "main.tf").is_empty(), "{tf}");
    }
    // The module's name is its input, which each call sets: said so, not `var.cluster_name`.
    assert_eq!(
        messages(&tf, "modules/cc/main.tf"),
        [
            "AML702 the nodes of the compute that module input `cluster_name` names get public IP addresses: `node_public_ip_enabled = false` is not set, and public IPs are the default",
            "AML704 the compute that module input `cluster_name` names is not placed in a virtual network (no `subnet_resource_id`)",
        ],
        "{tf}"
    );
    let inv = in_fixture("terraform_modules", &["inventory"]);
    let text = inv.to_string();
    assert_eq!(inv["summary"]["unresolved"], 0, "{text}");
    // The module's resource and the wrapper's call of it are made by the root's calls
    // (the wrapper's through the root's call of the wrapper).
    let made: Vec<(&str, usize)> = inv["module_definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["path"].as_str().unwrap(), m["calls"].as_array().unwrap().len()))
        .collect();
    assert_eq!(
        made,
        [("modules/cc/main.tf", 3), ("modules/wrap/main.tf", 1)],
        "{text}"
    );
    assert_eq!(inv["unnamed_definitions"], serde_json::json!([]), "{text}");
    let gpu = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "tf-module-gpu")
        .unwrap_or_else(|| panic!("{text}"));
    let def = &gpu["definitions"][0];
    assert_eq!(
        (def["path"].as_str(), def["line"].as_u64()),
        (Some("main.tf"), Some(10))
    );
    assert_eq!(def["from_file"], "modules/cc/main.tf");
    assert_eq!(gpu["size"], "Standard_NC6");
    assert!(
        text.contains("tf-module-cpu") && text.contains("tf-module-wrapped"),
        "{text}"
    );
    assert!(!text.contains("never-read"), "{text}");

    let bicep = in_fixture("bicep_modules", &["check", "--fail-on", "never"]);
    assert!(found(&bicep, "AML203", "job.yml").is_empty(), "{bicep}");
    assert_eq!(
        found(&bicep, "AML505", "main.bicep"),
        [(4, 9, vec![9, 2]), (13, 18, vec![18])],
        "{bicep}"
    );
    for code in ["AML702", "AML704"] {
        assert_eq!(found(&bicep, code, "modules/compute.bicep").len(), 1, "{bicep}");
        assert!(found(&bicep, code, "main.bicep").is_empty(), "{bicep}");
    }
    assert_eq!(
        messages(&bicep, "modules/compute.bicep"),
        [
            "AML702 the nodes of the compute that module input `clusterName` names get public IP addresses: `enableNodePublicIp: false` is not set, and public IPs are the default",
            "AML704 the compute that module input `clusterName` names is not placed in a virtual network (no `subnet.id`)",
        ],
        "{bicep}"
    );
    let inv = in_fixture("bicep_modules", &["inventory"]);
    assert_eq!(inv["summary"]["unresolved"], 0, "{inv}");
    assert_eq!(inv["summary"]["module_definitions"], 1, "{inv}");
    assert_eq!(
        inv["module_definitions"][0]["calls"].as_array().map(Vec::len),
        Some(2),
        "{inv}"
    );
    assert!(!inv.to_string().contains("never-read"), "{inv}");
}

/// Audit 11, defect 1: a call of a CI template that is a file of the project (an Azure
/// Pipelines `- template:`, a GitHub reusable workflow `uses: ./…`) is read through that
/// file's own command with the call's values, not by the public mlops templates' names:
/// the job's compute instance resolves, its size is judged at the call's argument, and
/// what the template writes (`--enable-node-public-ip false`) or leaves out (no virtual
/// network) is not reported at the call.
#[test]
fn a_local_template_is_read_with_the_calls_values() {
    let json = in_fixture("local_templates", &["check", "--fail-on", "never"]);
    assert!(found(&json, "AML203", "mlops/pipeline.yml").is_empty(), "{json}");
    assert_eq!(
        found(&json, "AML505", "pipelines/train.yml"),
        [(4, 7, vec![7])],
        "{json}"
    );
    for code in ["AML602", "AML702", "AML704"] {
        assert!(
            found(&json, code, "pipelines/train.yml").is_empty(),
            "{code}: {json}"
        );
        assert_eq!(
            found(&json, code, "templates/create-compute.yml").len(),
            1,
            "{code}: {json}"
        );
    }
    let wf = ".github/workflows/";
    for code in ["AML702", "AML704"] {
        assert!(
            found(&json, code, &format!("{wf}train.yml")).is_empty(),
            "{code}: {json}"
        );
    }
    assert_eq!(
        found(&json, "AML704", &format!("{wf}create-compute.yml")).len(),
        1,
        "{json}"
    );
    assert!(
        found(&json, "AML702", &format!("{wf}create-compute.yml")).is_empty(),
        "{json}"
    );

    let inv = in_fixture("local_templates", &["inventory"]);
    let text = inv.to_string();
    let computes = inv["computes"].as_array().unwrap();
    let def_of = |name: &str| {
        let c = computes
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {text}"));
        (c["type"].clone(), c["size"].clone(), c["definitions"][0].clone())
    };
    let (kind, size, def) = def_of("ado-instance-tl01");
    assert_eq!(
        (kind.as_str(), size.as_str()),
        (Some("computeinstance"), Some("Standard_NC6")),
        "{text}"
    );
    assert_eq!(
        (def["path"].as_str(), def["line"].as_u64()),
        (Some("pipelines/train.yml"), Some(4))
    );
    assert_eq!(def["from_file"], "templates/create-compute.yml");
    let (_, size, def) = def_of("cpu-cluster");
    assert_eq!(size.as_str(), Some("Standard_DS3_v2"), "{text}");
    assert_eq!(
        (def["path"].as_str(), def["line"].as_u64()),
        (Some(".github/workflows/train.yml"), Some(5))
    );
    assert_eq!(def["from_file"], ".github/workflows/create-compute.yml");

    // Audit 11, defect 3: a step's local action (`uses: ./.github/actions/create-gpu`, a
    // folder whose `action.yml` runs the command) is read the same way, with `with:`.
    assert!(found(&json, "AML203", "mlops/gpu-job.yml").is_empty(), "{json}");
    // The calling workflow names no compute command: it is read for its `uses: ./`.
    assert_eq!(
        found(&json, "AML505", &format!("{wf}gpu.yml")),
        [(8, 11, vec![11])],
        "{json}"
    );
    let action = ".github/actions/create-gpu/action.yml";
    assert_eq!(found(&json, "AML704", action).len(), 1, "{json}");
    assert!(found(&json, "AML702", action).is_empty(), "{json}");
    let (kind, size, def) = def_of("tl-gpu-cluster");
    assert_eq!(
        (kind.as_str(), size.as_str()),
        (Some("amlcompute"), Some("Standard_NC6")),
        "{text}"
    );
    assert_eq!(
        (def["path"].as_str(), def["line"].as_u64()),
        (Some(".github/workflows/gpu.yml"), Some(8))
    );
    assert_eq!(def["from_file"], action);
}

/// A template named from the repository's root (`- template: /templates/x.yml`) is shown
/// as the run's other files are, relative to the directory amlint runs in, not as an
/// absolute path of the machine that ran it.
#[test]
fn a_template_from_the_root_is_shown_relative_to_the_run() {
    let dir = crate::common::project();
    let root = dir.path();
    let template = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/computes/local_templates/templates/create-compute.yml"),
    )
    .unwrap();
    crate::common::write(root, "templates/create-compute.yml", &template);
    crate::common::write(
        root,
        "pipelines/deep/train.yml",
        "steps:\n- template: /templates/create-compute.yml\n  parameters:\n    instance_name: root-tl-instance\n    size: Standard_DS3_v2\n",
    );
    let from_file = |cwd: &Path, arg: &str| {
        let out = crate::common::amlint(cwd)
            .args(["inventory", "--no-config", "--format", "json", arg])
            .output()
            .unwrap();
        let inv: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
        let c = inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "root-tl-instance")
            .cloned()
            .unwrap_or_else(|| panic!("{inv}"));
        (
            c["definitions"][0]["path"].as_str().unwrap().to_string(),
            c["definitions"][0]["from_file"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(
        from_file(root, "."),
        (
            "pipelines/deep/train.yml".into(),
            "templates/create-compute.yml".into()
        )
    );
    assert_eq!(
        from_file(&root.join("pipelines"), "."),
        ("deep/train.yml".into(), "../templates/create-compute.yml".into())
    );
    assert_eq!(
        from_file(&root.join("pipelines/deep"), "train.yml"),
        ("train.yml".into(), "../../templates/create-compute.yml".into())
    );
}

/// The findings of `code` in `path`: (line, column) of the start, and the focus's.
fn at_focus(json: &Value, code: &str, path: &str) -> Vec<((u64, u64), (u64, u64))> {
    let pos = |v: &Value| {
        (
            v["start"]["line"].as_u64().unwrap_or(0),
            v["start"]["column"].as_u64().unwrap_or(0),
        )
    };
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == code && x["path"] == path)
        .map(|x| (pos(&x["range"]), pos(&x["focus"])))
        .collect()
}

/// Audit 14, defect 1: `for_each = { for c in var.clusters : c.name => c }` over a list of
/// objects is one definition per element: the retired size of `gpu-cluster` is reported
/// from the `resource` line, focused on `each.value.vm_size`, labelled at the literal in
/// the variable's default, and the job naming `gpu-cluster` resolves.
#[test]
fn a_for_expression_over_a_list_of_objects_is_one_definition_per_element() {
    let dir = project_with_job("gpu-cluster");
    let tf = "variable \"clusters\" {\n  default = [\n    { name = \"gpu-cluster\", vm_size = \"Standard_NC6\" },\n    { name = \"cpu-cluster\", vm_size = \"Standard_DS3_v2\" },\n  ]\n}\n\nresource \"azurerm_machine_learning_compute_cluster\" \"by_name\" {\n  for_each                      = { for c in var.clusters : c.name => c }\n  name                          = each.key\n  vm_priority                   = \"Dedicated\"\n  vm_size                       = each.value.vm_size\n  node_public_ip_enabled        = false\n  subnet_resource_id            = \"/s/n\"\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 2\n  }\n}\n";
    crate::common::write(dir.path(), "main.tf", tf);
    let json = capped::check_json(dir.path());
    assert!(codes_of(&json, "job.yml").is_empty(), "{json}");
    assert_eq!(
        at_focus(&json, "AML505", "main.tf"),
        [((8, 1), (12, 35))],
        "{json}"
    );
    assert_eq!(found(&json, "AML505", "main.tf")[0].2, [12, 3], "{json}");
    assert_eq!(codes_of(&json, "main.tf"), ["AML505"], "{json}");
}

/// Audit 14, case 05: an Azure pipeline that `extends: template:` a stage template of the
/// project, with literal `parameters:`, makes the template's compute at `extends` (its
/// retired size reported from there, focused on the argument); a `${{ each c in
/// parameters.clusters }}` loop over an object parameter's default makes one compute per
/// item, reported at the loop's command (focused on `${{ c.size }}`, labelled at the
/// item's literal); the job naming the extended pipeline's `gpu-cluster` resolves; the
/// control (`- template:`) as before.
#[test]
fn extends_and_each_are_expanded_from_the_repositorys_literals() {
    let dir = project_with_job("gpu-cluster");
    let root = dir.path();
    let ap = ".azure-pipelines";
    for (file, text) in [
        (
            "templates/compute-stage.yml",
            "parameters:\n- name: clusterName\n  type: string\n- name: clusterSize\n  type: string\nstages:\n- stage: compute\n  jobs:\n  - job: create\n    steps:\n    - script: az ml compute create --name ${{ parameters.clusterName }} --type AmlCompute --size ${{ parameters.clusterSize }} --max-instances 2\n",
        ),
        (
            "infra.yml",
            "trigger: none\nextends:\n  template: templates/compute-stage.yml\n  parameters:\n    clusterName: gpu-cluster\n    clusterSize: Standard_NC6\n",
        ),
        (
            "loop.yml",
            "trigger: none\nparameters:\n- name: clusters\n  type: object\n  default:\n  - name: nc-cluster\n    size: Standard_NC12\n  - name: cpu-cluster\n    size: Standard_DS3_v2\nsteps:\n- ${{ each c in parameters.clusters }}:\n  - script: az ml compute create --name ${{ c.name }} --type AmlCompute --size ${{ c.size }} --max-instances 2\n",
        ),
        (
            "control.yml",
            "trigger: none\nstages:\n- template: templates/compute-stage.yml\n  parameters:\n    clusterName: gpu-control\n    clusterSize: Standard_NC24\n",
        ),
    ] {
        crate::common::write(root, &format!("{ap}/{file}"), text);
    }
    let json = capped::check_json(root);
    assert!(codes_of(&json, "job.yml").is_empty(), "{json}");
    assert_eq!(
        at_focus(&json, "AML505", &format!("{ap}/infra.yml")),
        [((2, 1), (6, 18))],
        "{json}"
    );
    assert_eq!(
        at_focus(&json, "AML505", &format!("{ap}/loop.yml")),
        [((12, 80), (0, 0))],
        "{json}"
    );
    assert_eq!(
        found(&json, "AML505", &format!("{ap}/loop.yml"))[0].2,
        [7],
        "{json}"
    );
    assert!(
        messages(&json, &format!("{ap}/loop.yml"))
            .iter()
            .any(|m| m.starts_with("AML505 `Standard_NC12`")),
        "{json}"
    );
    assert_eq!(
        at_focus(&json, "AML505", &format!("{ap}/control.yml")),
        [((3, 3), (6, 18))],
        "{json}"
    );
}

/// Hostile `extends:` and `${{ each }}`: pipelines that extend each other in a circle, a
/// loop over 10,000 items, loops nested twelve deep over the same list and a loop over a
/// value only known when the pipeline runs end quickly and cleanly.
#[test]
fn extends_circles_and_huge_or_deep_loops_end_quickly() {
    let mut items = String::from("parameters:\n- name: many\n  type: object\n  default:\n");
    for i in 0..10_000 {
        items.push_str(&format!("  - {{name: c{i}, size: Standard_NC6}}\n"));
    }
    items.push_str("steps:\n- ${{ each c in parameters.many }}:\n  - script: az ml compute create --name ${{ c.name }} --type AmlCompute --size ${{ c.size }}\n");
    let mut deep =
        String::from("parameters:\n- name: two\n  type: object\n  default: [a, b, c, d]\nsteps:\n");
    for depth in 0..12 {
        deep.push_str(&format!(
            "{}- ${{{{ each x{depth} in parameters.two }}}}:\n",
            "  ".repeat(depth)
        ));
    }
    deep.push_str(&format!(
        "{}- script: az ml compute create --name n-${{{{ x0 }}}} --type AmlCompute\n",
        "  ".repeat(12)
    ));
    let json = run(&[
        ("a.yml", b"extends:\n  template: b.yml\n".to_vec()),
        (
            "b.yml",
            b"extends:\n  template: a.yml\nsteps:\n- script: az ml compute create --name circle --type AmlCompute\n".to_vec(),
        ),
        ("items.yml", items.into_bytes()),
        ("deep.yml", deep.into_bytes()),
        (
            "runtime.yml",
            b"steps:\n- ${{ each c in variables.list }}:\n  - script: az ml compute create --name ${{ c }} --type AmlCompute\n".to_vec(),
        ),
    ]);
    // The first items are expanded: their retired size is reported.
    assert!(!found(&json, "AML505", "items.yml").is_empty(), "{json}");
}

/// Audit 14, defect 4: SDK v1 `provisioning_configuration(..., enable_node_public_ip=False)`
/// is read when the cluster is in a virtual network (azureml-core sends it then): no
/// AML702; without `vnet_name` azureml-core drops it, and AML702 stays, at the name the
/// `create` call gives (on one line: no focus).
#[test]
fn an_sdk_v1_cluster_in_a_virtual_network_without_public_ips() {
    let dir = project_with_job("private-cluster");
    let py = "from azureml.core.compute import AmlCompute, ComputeTarget\n\
private_config = AmlCompute.provisioning_configuration(vm_size=\"STANDARD_DS3_V2\", max_nodes=4,\n    vnet_resourcegroup_name=\"net-rg\", vnet_name=\"aml-vnet\", subnet_name=\"training\",\n    enable_node_public_ip=False)\n\
ComputeTarget.create(ws, \"private-cluster\", private_config)\n\
public_config = AmlCompute.provisioning_configuration(vm_size=\"STANDARD_DS3_V2\", max_nodes=4,\n    enable_node_public_ip=False)\n\
ComputeTarget.create(ws, \"no-vnet-cluster\", public_config)\n";
    crate::common::write(dir.path(), "create_compute.py", py);
    let json = capped::check_json(dir.path());
    assert!(codes_of(&json, "job.yml").is_empty(), "{json}");
    assert_eq!(
        at_focus(&json, "AML702", "create_compute.py"),
        [((8, 27), (0, 0))],
        "{json}"
    );
    assert_eq!(
        codes_of(&json, "create_compute.py"),
        ["AML702", "AML704"],
        "{json}"
    );
}

/// Audit 19, case 03: a compute whose name is an expression amlint cannot evaluate (a
/// Python variable read from the environment, a shell variable set nowhere) is checked,
/// and its findings say the name is the expression's, not that the expression is the
/// compute's name ("the nodes of `compute_name` ..." read as a compute named so).
#[test]
fn a_name_not_known_statically_is_said_to_be_the_expressions() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "main.py",
        "import os\nfrom azureml.core import Workspace\nfrom azureml.core.compute import AmlCompute, ComputeTarget\n\nws = Workspace.from_config()\ncompute_name = os.environ.get(\"AML_TRAIN_COMPUTE\")\ncfg = AmlCompute.provisioning_configuration(vm_size=\"Standard_DS3_v2\", max_nodes=2)\nComputeTarget.create(ws, compute_name, cfg)\n",
    );
    crate::common::write(
        root,
        "create.sh",
        "#!/bin/bash\naz ml compute create --name \"$COMPUTE_NAME\" --type amlcompute --size Standard_DS3_v2 --min-instances 0 --max-instances 2\n",
    );
    // No name at all (audit 22, case 02): said so, never quoted as ``.
    crate::common::write(
        root,
        "tips.sh",
        "#!/bin/bash\naz ml compute create --type amlcompute --size Standard_DS3_v2 --min-instances 0\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(
        messages(&json, "tips.sh"),
        [
            "AML702 the nodes of the compute this definition creates (the command gives no `--name`) get public IP addresses: `--enable-node-public-ip false` is not set, and public IPs are the default",
            "AML704 the compute this definition creates (the command gives no `--name`) is not placed in a virtual network (no `--subnet`)",
        ],
        "{json}"
    );
    assert_eq!(
        messages(&json, "main.py"),
        [
            "AML702 the nodes of the compute that `compute_name` names get public IP addresses: `enable_node_public_ip=False` is not set, and public IPs are the default",
            "AML704 the compute that `compute_name` names is not placed in a virtual network (no `subnet_name`)",
        ],
        "{json}"
    );
    assert_eq!(
        messages(&json, "create.sh"),
        [
            "AML702 the nodes of the compute that `$COMPUTE_NAME` names get public IP addresses: `--enable-node-public-ip false` is not set, and public IPs are the default",
            "AML704 the compute that `$COMPUTE_NAME` names is not placed in a virtual network (no `--subnet`)",
        ],
        "{json}"
    );
}

/// Audit 18, case 02: a compute under a false condition (an ARM resource's `condition`,
/// a Bicep resource's `if (...)`) is still checked — what the file would deploy — and
/// every finding about it is labelled at the condition, saying whether it is false
/// whatever the deployment sets or only with the parameters' defaults.
#[test]
fn a_finding_about_a_compute_under_a_false_condition_is_labelled_at_the_condition() {
    let dir = crate::common::project();
    let root = dir.path();
    let props = "\"properties\": {\"computeType\": \"AmlCompute\", \"properties\": {\"vmSize\": \"Standard_NC6\", \"enableNodePublicIp\": false, \"scaleSettings\": {\"minNodeCount\": 0, \"maxNodeCount\": 4}, \"subnet\": {\"id\": \"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/ml\"}}}";
    let resource = |condition: &str, name: &str| {
        format!(
            "    {{\n      {condition}\"type\": \"Microsoft.MachineLearningServices/workspaces/computes\",\n      \"apiVersion\": \"2023-04-01\",\n      \"name\": \"ws/{name}\",\n      {props}\n    }}"
        )
    };
    crate::common::write(
        root,
        "azuredeploy.json",
        &format!(
            "{{\n  \"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\",\n  \"contentVersion\": \"1.0.0.0\",\n  \"parameters\": {{\"deployGpu\": {{\"type\": \"bool\", \"defaultValue\": false}}}},\n  \"resources\": [\n{},\n{},\n{}\n  ]\n}}\n",
            resource("\"condition\": false,\n      ", "never"),
            resource(
                "\"condition\": \"[parameters('deployGpu')]\",\n      ",
                "optional"
            ),
            resource("", "always"),
        ),
    );
    let bicep_props = "{\n  name: 'ws/NAME'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: 'Standard_NC6'\n      enableNodePublicIp: false\n      scaleSettings: { minNodeCount: 0, maxNodeCount: 4 }\n      subnet: { id: '/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/ml' }\n    }\n  }\n}\n";
    crate::common::write(
        root,
        "compute.bicep",
        &format!(
            "param deployGpu bool = false\n\nresource never 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = if (false) {}\nresource optional 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = if (deployGpu) {}\nresource always 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {}",
            bicep_props.replace("NAME", "bicep-never"),
            bicep_props.replace("NAME", "bicep-optional"),
            bicep_props.replace("NAME", "bicep-always"),
        ),
    );
    // A compute in a nested deployment whose own condition is false: labelled there.
    crate::common::write(
        root,
        "nested.json",
        &format!(
            "{{\n  \"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\",\n  \"contentVersion\": \"1.0.0.0\",\n  \"resources\": [\n    {{\n      \"condition\": false,\n      \"type\": \"Microsoft.Resources/deployments\",\n      \"apiVersion\": \"2022-09-01\",\n      \"name\": \"computes\",\n      \"properties\": {{\"mode\": \"Incremental\", \"template\": {{\"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\", \"contentVersion\": \"1.0.0.0\", \"resources\": [\n{}\n      ]}}}}\n    }}\n  ]\n}}\n",
            resource("", "nested")
        ),
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    let nested = std::fs::read_to_string(root.join("nested.json")).unwrap();
    let at_condition: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == "nested.json" && x["code"] == "AML505")
        .flat_map(|x| x["labels"].as_array().unwrap().iter())
        .filter(|l| {
            l["message"]
                .as_str()
                .unwrap()
                .starts_with("this condition is false whatever")
        })
        .map(|l| {
            &nested[l["range"]["start"]["offset"].as_u64().unwrap() as usize
                ..l["range"]["end"]["offset"].as_u64().unwrap() as usize]
        })
        .collect();
    assert_eq!(at_condition, ["false"], "{json}");
    for (file, conditions) in [
        ("azuredeploy.json", ["false", "[parameters('deployGpu')]"]),
        ("compute.bicep", ["false", "deployGpu"]),
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        // Each AML505 (the retired NC series), in file order: the condition's label.
        let labels: Vec<Vec<(String, String)>> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["path"] == file && x["code"] == "AML505")
            .map(|x| {
                x["labels"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|l| l["message"].as_str().unwrap().starts_with("this condition"))
                    .map(|l| {
                        let (a, z) = (
                            l["range"]["start"]["offset"].as_u64().unwrap() as usize,
                            l["range"]["end"]["offset"].as_u64().unwrap() as usize,
                        );
                        (text[a..z].to_string(), l["message"].as_str().unwrap().to_string())
                    })
                    .collect()
            })
            .collect();
        assert_eq!(labels.len(), 3, "{file}: {json}");
        assert_eq!(labels[0].len(), 1, "{file}: {labels:?}");
        assert_eq!(labels[0][0].0, conditions[0], "{file}");
        assert!(
            labels[0][0].1.starts_with("this condition is false whatever the deployment sets: the compute is never deployed as written"),
            "{file}: {labels:?}"
        );
        assert_eq!(labels[1].len(), 1, "{file}: {labels:?}");
        assert_eq!(labels[1][0].0, conditions[1], "{file}");
        assert!(
            labels[1][0]
                .1
                .starts_with("this condition is false with the default parameter values"),
            "{file}: {labels:?}"
        );
        assert!(labels[2].is_empty(), "{file}: {labels:?}");
    }
}

/// SDK v1 settings given through a configuration variable share the place they are used
/// at (the `config` argument of `ComputeTarget.create`): each finding is labelled at its
/// own value's literal — the node count for AML404, the size for AML505, `min_nodes` for
/// AML601 — never at another setting's.
#[test]
fn each_sdk_v1_setting_through_a_variable_is_labelled_at_its_own_literal() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "deploy.py",
        "from azureml.core import Workspace\nfrom azureml.core.compute import AksCompute, AmlCompute, ComputeTarget\n\nws = Workspace.from_config()\naks_config = AksCompute.provisioning_configuration(agent_count=2, vm_size=\"Standard_NC6\")\nComputeTarget.create(ws, \"aks-prod\", aks_config)\ncpu_config = AmlCompute.provisioning_configuration(vm_size=\"Standard_DS3_v2\", min_nodes=2)\nComputeTarget.create(ws, \"cpu\", cpu_config)\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    let labelled: Vec<(String, Vec<(u64, u64)>)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| ["AML404", "AML505", "AML601"].contains(&x["code"].as_str().unwrap_or("")))
        .map(|x| {
            let at = x["labels"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|l| l["message"] == "the value is set here")
                .map(|l| {
                    let start = &l["range"]["start"];
                    (start["line"].as_u64().unwrap(), start["column"].as_u64().unwrap())
                })
                .collect();
            (x["code"].as_str().unwrap().to_string(), at)
        })
        .collect();
    let mut labelled = labelled;
    labelled.sort();
    assert_eq!(
        labelled,
        [
            ("AML404".to_string(), vec![(5, 64)]),
            ("AML505".to_string(), vec![(5, 76)]),
            ("AML601".to_string(), vec![(7, 89)]),
        ],
        "{json}"
    );
}

/// Audit 23, case 04: a pre-commit run of one script whose thousands of compute names are
/// all defined again in another script of the project parses that script once, not once
/// per name, and keeps of it only what each name needs (before: 1,000 names took 9 s and
/// 1 GB; every conflict is still reported, as in the whole run).
#[test]
fn a_partial_run_of_thousands_of_names_defined_elsewhere_parses_each_file_once() {
    let dir = crate::common::project();
    let root = dir.path();
    let lines = |size: &str| -> String {
        (0..2000)
            .map(|i| {
                format!("az ml compute create -n c{i} --type amlcompute --size {size} --min-instances 0\n")
            })
            .collect()
    };
    crate::common::write(root, "d0/s.sh", &lines("Standard_D4s_v3"));
    crate::common::write(root, "d2/s.sh", &lines("Standard_DS3_v2"));
    let json = capped::check_json_within(root, "d0/s.sh", std::time::Duration::from_secs(60));
    let conflicts = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "AML205" && d["path"] == "d0/s.sh")
        .count();
    // Each name is defined with another size in d2/s.sh (the report shows the first 1,000
    // findings of the file: a third of them conflicts).
    assert!(conflicts >= 300, "{conflicts} conflicts: {json}");
}

/// eval7, case 01 (aztfmod/terraform-azurerm-caf, a root module of 173 files with a module
/// call each: 7.3 s): every `.tf` file of a module reads the module's other files, which
/// are listed, read and parsed once per run, not once per file (1,500 such files took 36 s
/// in a release build, 0.35 s since). The compute beside them is still read.
#[test]
fn a_terraform_module_of_a_thousand_files_is_read_once() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "infra/ml.tf",
        "resource \"azurerm_machine_learning_compute_cluster\" \"gpu\" {\n  name = \"gpu-cluster\"\n  vm_size = \"Standard_NC6\"\n  vm_priority = \"Dedicated\"\n  machine_learning_workspace_id = \"x\"\n  location = \"westeurope\"\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 1\n    scale_down_nodes_after_idle_duration = \"PT5M\"\n  }\n}\n",
    );
    for i in 0..1200 {
        crate::common::write(
            root,
            &format!("infra/f{i}.tf"),
            &format!("module \"m{i}\" {{\n  source = \"./modules/m{i}\"\n}}\n"),
        );
    }
    let json = capped::check_json(root);
    assert_eq!(
        crate::common::focus_lines(&json, "infra/ml.tf", "AML505"),
        [3],
        "{json}"
    );
    let retired = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "AML505");
    assert_eq!(retired.count(), 1, "{json}");
}

/// Audit 23, case 02: a Bicep resource's condition that is a flat chain of thousands of
/// operands is evaluated in time linear in it (an unknown is said once, not wrapped once
/// more by each operator: 4,000 `p ||` took 90 s and 264 MB).
#[test]
fn a_bicep_condition_of_thousands_of_operands_is_evaluated_once() {
    let dir = crate::common::project();
    let root = dir.path();
    let chain = vec!["p"; 8000].join(" || ");
    crate::common::write(
        root,
        "main.bicep",
        &format!(
            "param p bool = false\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = if ({chain}) {{\n  name: 'ws/c'\n  properties: {{\n    computeType: 'AmlCompute'\n    properties: {{\n      vmSize: 'Standard_NC6'\n    }}\n  }}\n}}\n"
        ),
    );
    let json = capped::check_json_within(root, "main.bicep", std::time::Duration::from_secs(60));
    let retired = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "AML505")
        .unwrap_or_else(|| panic!("{json}"));
    assert!(
        retired["labels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["message"].as_str().is_some_and(|m| m.contains("false"))),
        "labelled at the condition, false with the parameters' defaults: {retired}"
    );
}

/// Audit 27, cases 01, 02 and 09: what a network or shutdown finding says follows what
/// the definition writes and can write. Public IPs set on explicitly are said to be set
/// (not "not set, and the default"), and a subnet already given is not asked for again;
/// a call of the Azure mlops templates' `create-compute.yml`, which has no input for
/// public IPs, is told to create the compute where they can be set (and to pass its
/// `vnet_name`/`subnet_name` inputs for a subnet), and
/// another repository's `create-compute.yml` (a fork's own workflow), whose command amlint
/// does not read, is not judged on them; `az ml compute create`, which has no option for
/// a schedule, is asked only for the idle shutdown.
#[test]
fn network_and_shutdown_findings_follow_what_the_definition_writes_and_can_write() {
    let dir = crate::common::project();
    let root = dir.path();
    let subnet = "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s";
    crate::common::write(
        root,
        "compute.yml",
        &format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: yml-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nenable_node_public_ip: true\nnetwork_settings:\n  subnet: {subnet}\n"
        ),
    );
    crate::common::write(
        root,
        "main.tf",
        &format!(
            "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {{\n  name = \"tf-cluster\"\n  location = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_priority = \"Dedicated\"\n  vm_size = \"Standard_DS3_v2\"\n  subnet_resource_id = \"{subnet}\"\n  node_public_ip_enabled = true\n  scale_settings {{\n    min_node_count = 0\n    max_node_count = 2\n    scale_down_nodes_after_idle_duration = \"PT30S\"\n  }}\n}}\n"
        ),
    );
    crate::common::write(
        root,
        ".github/workflows/official.yml",
        "on: push\njobs:\n  create:\n    uses: Azure/mlops-templates/.github/workflows/create-compute.yml@main\n    with:\n      cluster_name: official-cluster\n      size: Standard_DS3_v2\n      min_instances: 0\n      max_instances: 2\n",
    );
    crate::common::write(
        root,
        ".github/workflows/fork.yml",
        "on: push\njobs:\n  create:\n    uses: my-org/my-repo/.github/workflows/create-compute.yml@main\n    with:\n      cluster_name: fork-cluster\n      size: Standard_DS3_v2\n      min_instances: 0\n      max_instances: 2\n",
    );
    crate::common::write(
        root,
        "instance.sh",
        "#!/bin/bash\naz ml compute create --name ci-dev --type computeinstance --size Standard_DS3_v2 --enable-node-public-ip false --subnet s --vnet-name v\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(
        messages(&json, "compute.yml"),
        [
            "AML702 the nodes of `yml-cluster` get public IP addresses: `enable_node_public_ip: true` turns them on"
        ],
        "{json}"
    );
    assert_eq!(
        helps(&json, "compute.yml"),
        ["AML702 Set `enable_node_public_ip: false` so that nodes are reachable only privately."],
        "{json}"
    );
    assert_eq!(
        messages(&json, "main.tf"),
        [
            "AML702 the nodes of `tf-cluster` get public IP addresses: `node_public_ip_enabled = true` turns them on"
        ],
        "{json}"
    );
    assert_eq!(
        helps(&json, "main.tf"),
        ["AML702 Set `node_public_ip_enabled = false` so that nodes are reachable only privately."],
        "{json}"
    );
    let official = helps(&json, ".github/workflows/official.yml");
    assert_eq!(official.len(), 2, "{json}");
    assert!(
        official[0].starts_with("AML702 This definition cannot turn them off")
            && official[0].contains("`az ml compute create --enable-node-public-ip false`")
            && !official[0].contains("Set `"),
        "{official:?}"
    );
    // Its GitHub reusable workflow takes `vnet_name` and `subnet_name` (audit 29, defect
    // 1): the help names them.
    assert!(
        official[1].starts_with("AML704 Add `vnet_name` and `subnet_name`"),
        "{official:?}"
    );
    assert_eq!(
        codes_of(&json, ".github/workflows/fork.yml"),
        Vec::<String>::new(),
        "{json}"
    );
    assert_eq!(
        helps(&json, "instance.sh"),
        ["AML602 Add `--idle-time-before-shutdown-minutes 60`."],
        "{json}"
    );
}

/// Audit 27, case 06: `az ml compute create --tier LowPriority` fails as `tier:
/// LowPriority` does in a compute YAML (the CLI loads its options through the type's
/// schema, which lower-cases the value and holds it to `low_priority`/`dedicated`):
/// AML103 at the value, in the CLI's words. `--tier Dedicated` passes (lower-cased), and
/// Terraform's `vm_priority = "LowPriority"` is the REST API's own value.
#[test]
fn a_cli_option_value_the_schema_refuses_is_reported_at_the_value() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "create.sh",
        "#!/bin/bash\naz ml compute create --name spot --type AmlCompute --size Standard_DS3_v2 --tier LowPriority --enable-node-public-ip false --subnet s\naz ml compute create --name plain --type amlcompute --size Standard_DS3_v2 --tier Dedicated --enable-node-public-ip false --subnet s\n",
    );
    crate::common::write(
        root,
        "main.tf",
        "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name = \"tf-spot\"\n  location = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_priority = \"LowPriority\"\n  vm_size = \"Standard_DS3_v2\"\n  subnet_resource_id = \"s\"\n  node_public_ip_enabled = false\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 2\n    scale_down_nodes_after_idle_duration = \"PT30S\"\n  }\n}\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(
        messages(&json, "create.sh"),
        [
            "AML103 `LowPriority` is not an allowed value of `--tier`: it must be one of `low_priority`, `dedicated`; the CLI refuses it, as the compute cluster's schema refuses `tier: LowPriority` in a YAML file"
        ],
        "{json}"
    );
    let text = std::fs::read_to_string(root.join("create.sh")).unwrap();
    let start = text.find("LowPriority").unwrap() as u64;
    let range = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "AML103")
        .map(|x| {
            (
                x["range"]["start"]["offset"].as_u64(),
                x["range"]["end"]["offset"].as_u64(),
            )
        })
        .unwrap();
    assert_eq!(range, (Some(start), Some(start + 11)), "at the value: {json}");
    assert_eq!(codes_of(&json, "main.tf"), Vec::<String>::new(), "{json}");
}

/// Audit 27, case 04: SDK v1 attributes set on a provisioning configuration before the
/// `create` (`config.vnet_name = ...`, Microsoft's VNet how-to) are read as its keywords
/// are, in straight text; under a condition, only the setting they name is unknown; the
/// configuration's own arguments stay known (the whole configuration was "not read").
#[test]
fn sdk_v1_attributes_set_on_a_configuration_are_its_settings() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "v1.py",
        "from azureml.core.compute import ComputeTarget, AmlCompute, AksCompute\n\
\n\
config = AmlCompute.provisioning_configuration(vm_size=\"STANDARD_NC6\", max_nodes=4)\n\
config.vnet_resourcegroup_name = \"rg\"\n\
config.vnet_name = \"vnet\"\n\
config.subnet_name = \"default\"\n\
config.enable_node_public_ip = False\n\
cluster = ComputeTarget.create(ws, \"gpu-v1\", config)\n\
\n\
aks_config = AksCompute.provisioning_configuration(location=\"eastus\")\n\
aks_config.vnet_name = \"vnet\"\n\
aks = ComputeTarget.create(workspace=ws, name=\"aks-v1\", provisioning_configuration=aks_config)\n\
\n\
sized = AmlCompute.provisioning_configuration(vm_size=\"STANDARD_DS3_V2\", max_nodes=4)\n\
sized.vm_size = \"STANDARD_NC6\"\n\
if private:\n\
    sized.subnet_name = \"default\"\n\
sized.colour = \"blue\"\n\
ComputeTarget.create(ws, \"resized\", sized)\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    let at = |code: &str| -> Vec<u64> { found(&json, code, "v1.py").into_iter().map(|(l, ..)| l).collect() };
    // The retired size of each AmlCompute, at its `create` (the second set by attribute).
    assert_eq!(at("AML505"), [8, 19], "{json:#}");
    // `gpu-v1` is in a virtual network without public IPs (its attributes read); the
    // subnet of `resized`, set under a condition, is unknown.
    assert!(at("AML702").iter().all(|&l| l != 8), "{json:#}");
    assert!(at("AML704").is_empty(), "{json:#}");
    let out = crate::common::amlint_wide(root)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let def = |name: &str| -> Value {
        inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {inv:#}"))["definitions"][0]
            .clone()
    };
    let gpu = def("gpu-v1");
    assert_eq!(gpu["settings"]["type"]["value"], "amlcompute", "{gpu:#}");
    assert_eq!(gpu["settings"]["size"]["value"], "STANDARD_NC6", "{gpu:#}");
    let aks = def("aks-v1");
    assert_eq!(aks["settings"]["type"]["value"], "aks", "{aks:#}");
    let resized = def("resized");
    assert_eq!(
        resized["settings"]["size"]["value"], "STANDARD_NC6",
        "{resized:#}"
    );
    assert!(
        resized["notes"].to_string().contains(
            "`sized.colour = ...` on line 18 is not read: `colour` is not an attribute of `AmlCompute.provisioning_configuration(...)` amlint knows"
        ),
        "{resized:#}"
    );
}

/// Audit 27, case 08: a Bicep module call whose argument makes the module's `if (...)`
/// false (`enableGpu: false`) labels the call's findings at that argument, in the calling
/// file, as an ARM nested deployment's are at its condition.
#[test]
fn a_bicep_module_call_that_switches_the_compute_off_is_labelled_at_its_argument() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "main.bicep",
        "module cpuOnly 'modules/cluster.bicep' = {\n  name: 'cpu-only'\n  params: {\n    clusterName: 'gpu-cluster'\n    enableGpu: false\n  }\n}\n",
    );
    crate::common::write(
        root,
        "modules/cluster.bicep",
        "param workspaceName string = 'ws'\nparam clusterName string\nparam enableGpu bool = true\nparam gpuSku string = 'Standard_NC6'\n\nresource ws 'Microsoft.MachineLearningServices/workspaces@2023-04-01' existing = {\n  name: workspaceName\n}\n\nresource gpu 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = if (enableGpu) {\n  parent: ws\n  name: clusterName\n  location: 'westeurope'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: gpuSku\n      enableNodePublicIp: false\n      subnet: {\n        id: '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/training'\n      }\n      scaleSettings: {\n        minNodeCount: 0\n        maxNodeCount: 2\n      }\n    }\n  }\n}\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    let labels: Vec<(u64, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == "AML505" && x["path"] == "main.bicep")
        .flat_map(|x| x["labels"].as_array().cloned().unwrap_or_default())
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap_or(0),
                l["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(
        labels.contains(&(
            5,
            "this argument makes the module's condition false whatever the deployment sets: the compute is never deployed as written, and the finding is about what it would deploy".into()
        )),
        "{json:#}"
    );
    // The module read alone: its own condition is not false (its default is `true`).
    assert_eq!(
        found(&json, "AML505", "modules/cluster.bicep").len(),
        1,
        "{json:#}"
    );
}

/// The inventory of the project at `root`, as JSON.
fn inventory_of(root: &Path) -> Value {
    let out = crate::common::amlint_wide(root)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// The names of the named computes of an inventory, and the (written name, why) of its
/// unnamed definitions.
fn names_and_unnamed(inv: &Value) -> (Vec<String>, Vec<(String, String)>) {
    let names = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_string())
        .collect();
    let unnamed = inv["unnamed_definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"]["written"].as_str().unwrap_or_default().to_string(),
                d["name"]["why"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (names, unnamed)
}

/// Audit 28, case 04: Bicep's and ARM's functions that depend only on their arguments
/// (`take`, `skip`, `substring`, `replace`, `join`, `length`, `padLeft`, `min`, `max`,
/// `startsWith`, `endsWith`) are evaluated as Azure Resource Manager evaluates them: the
/// names they build resolve the jobs' references, the size they build meets the VM rules;
/// an argument not known, or one ARM rejects, leaves the value unknown saying which —
/// never "evaluated by Azure Resource Manager at deployment".
#[test]
fn pure_bicep_and_arm_functions_are_evaluated_when_their_arguments_are_known() {
    let dir = crate::common::project();
    let root = dir.path();
    let res = |name: &str, expr: &str, size: &str| {
        format!(
            "resource {name} 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {{\n  parent: ws\n  name: {expr}\n  location: 'westeurope'\n  properties: {{ computeType: 'AmlCompute', properties: {{ vmSize: {size}, enableNodePublicIp: false, subnet: {{ id: 'x' }} }} }}\n}}\n"
        )
    };
    let ds3 = "'Standard_DS3_v2'";
    let mut bicep = String::from(
        "param env string = 'dev'\nparam gpuSku string = 'standard_nc6'\nparam projectNumber string\nresource ws 'Microsoft.MachineLearningServices/workspaces@2023-04-01' existing = { name: 'ws' }\n",
    );
    for (i, (expr, size)) in [
        ("take('p001-m01-weu-${env}-cpu', 16)", ds3),
        ("'a-${take('abc', 0)}-${take('abc', 99)}'", ds3),
        (
            "'b-${skip('xxcpu', 2)}-${skip('abc', -3)}-${skip('abc', 9)}'",
            ds3,
        ),
        ("substring('cpu-cluster-xyz', 0, 11)", ds3),
        ("'c-${substring('abcdef', 2)}'", ds3),
        (
            "replace('gpu_cluster_${env}', '_', '-')",
            "replace(gpuSku, 'standard', 'Standard')",
        ),
        ("join(['cpu', 'f'], '-')", ds3),
        ("'cpu-${length('abc')}-${length([1, 2])}'", ds3),
        ("'n${padLeft(7, 3, '0')}-${padLeft('long', 2, '0')}'", ds3),
        ("min(3, 4) == 3 && max([1, 5, 2]) == 5 ? 'cpu-g' : 'x'", ds3),
        (
            "startsWith('ABCdef', 'abc') && !endsWith('abc', 'x') ? 'sw-yes' : 'sw-no'",
            ds3,
        ),
        ("take(replace(toLower('ABC_DEF\\'s'), '_', '-'), 5)", ds3),
        // Out of range: the deployment fails.
        ("substring('abc', 2, 5)", ds3),
        // An argument without a value: its reason.
        ("take('p${projectNumber}-m01-weu-${env}', 16)", ds3),
    ]
    .into_iter()
    .enumerate()
    {
        bicep.push_str(&res(&format!("c{i}"), expr, size));
    }
    crate::common::write(root, "infra/main.bicep", &bicep);
    let arm_res = |name: &str, size: &str| {
        format!(
            "{{\"type\": \"Microsoft.MachineLearningServices/workspaces/computes\", \"apiVersion\": \"2023-04-01\", \"name\": \"{name}\", \"location\": \"westeurope\", \"properties\": {{\"computeType\": \"AmlCompute\", \"properties\": {{\"vmSize\": \"{size}\"}}}}}}"
        )
    };
    let ds3 = "Standard_DS3_v2";
    let resources: Vec<String> = [
        ("[format('{0}/{1}', 'ws', take(concat('arm-m01-weu-', parameters('env'), '-cpu'), 15))]", "[replace('standard_nc6', 'standard', 'Standard')]"),
        ("[concat('ws/', skip('xxarm-skip', 2))]", ds3),
        ("[concat('ws/', 'arm-', padLeft(string(length('abcd')), 3, '0'))]", ds3),
        ("[concat('ws/', join(split('arm,j', ','), '-'), string(min(3, 1, 2)), string(max(4, 9)))]", ds3),
        ("[concat('ws/', if(startsWith('ARM-x', 'arm'), 'arm-sw', 'no'), if(endsWith('x', 'y'), 'no', ''))]", ds3),
        ("[concat('ws/', replace('arm''q', '''', '-'))]", ds3),
        ("[concat('ws/', substring('arm-sub-xyz', 0, 7))]", ds3),
        ("[concat('ws/', substring('abc', 1, 5))]", ds3),
        ("[concat('ws/', take(parameters('nodefault'), 3))]", ds3),
    ]
    .iter()
    .map(|(n, s)| arm_res(n, s))
    .collect();
    crate::common::write(
        root,
        "arm/template.json",
        &format!(
            "{{\"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\", \"contentVersion\": \"1.0.0.0\", \"parameters\": {{\"env\": {{\"type\": \"string\", \"defaultValue\": \"dev\"}}, \"nodefault\": {{\"type\": \"string\"}}}}, \"resources\": [{}]}}",
            resources.join(", ")
        ),
    );
    crate::common::write(
        root,
        "job.yml",
        &crate::common::job_using(&["p001-m01-weu-dev", "gpu-cluster-dev", "arm-m01-weu-dev"]),
    );
    let inv = inventory_of(root);
    let (mut names, unnamed) = names_and_unnamed(&inv);
    names.sort();
    let mut want = vec![
        "p001-m01-weu-dev",
        "a--abc",
        "b-cpu-abc-",
        "cpu-cluster",
        "c-cdef",
        "gpu-cluster-dev",
        "cpu-f",
        "cpu-3-2",
        "n007-long",
        "cpu-g",
        "sw-yes",
        "abc-d",
        "arm-m01-weu-dev",
        "arm-skip",
        "arm-004",
        "arm-j19",
        "arm-sw",
        "arm-q",
        "arm-sub",
    ];
    want.sort();
    assert_eq!(names, want, "{inv:#}");
    let whys: Vec<&str> = unnamed.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(whys.len(), 4, "{inv:#}");
    assert!(
        whys.iter().all(|w| !w.contains("at deployment")),
        "no pure function is said to be evaluated at deployment: {whys:?}"
    );
    let said = |written: &str| -> &str {
        &unnamed
            .iter()
            .find(|(w, _)| w.contains(written))
            .unwrap_or_else(|| panic!("{written}: {unnamed:?}"))
            .1
    };
    assert!(
        said("substring('abc', 2, 5)").contains("does not lie within the string"),
        "{unnamed:?}"
    );
    assert!(
        said("substring('abc', 1, 5)").contains("does not lie within the string"),
        "{unnamed:?}"
    );
    assert!(said("projectNumber").contains("projectNumber"), "{unnamed:?}");
    assert!(
        said("parameters('nodefault')").contains("parameters('nodefault')"),
        "{unnamed:?}"
    );
    // The size built by `replace` is known (a retired NC size: AML505 at both).
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    assert!(
        codes_of(&json, "job.yml").iter().all(|c| c != "AML203"),
        "{json:#}"
    );
    assert!(
        codes_of(&json, "infra/main.bicep").iter().any(|c| c == "AML505"),
        "{json:#}"
    );
    assert!(
        codes_of(&json, "arm/template.json").iter().any(|c| c == "AML505"),
        "{json:#}"
    );
}

/// An ARM template defining one compute from the parameters `clusterName` and `vmSize`
/// (no defaults), as the Azure portal exports one.
const PORTAL_TEMPLATE: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {"workspaceName": {"type": "string", "defaultValue": "ws"}, "clusterName": {"type": "string"}, "vmSize": {"type": "string"}},
  "resources": [{
    "type": "Microsoft.MachineLearningServices/workspaces/computes",
    "apiVersion": "2023-04-01",
    "name": "[concat(parameters('workspaceName'), '/', parameters('clusterName'))]",
    "location": "westeurope",
    "properties": {"computeType": "AmlCompute", "properties": {"vmSize": "[parameters('vmSize')]"}}
  }]
}"#;

/// A deployment parameters file setting `clusterName` and `vmSize`.
fn parameters_file(cluster: &str, size: &str) -> String {
    format!(
        r#"{{"$schema": "https://schema.management.azure.com/schemas/2015-01-01/deploymentParameters.json#", "contentVersion": "1.0.0.0", "parameters": {{"clusterName": {{"value": "{cluster}"}}, "vmSize": {{"value": "{size}"}}}}}}"#
    )
}

/// Audit 28, case 03: `parameters.json` and `parameters.<env>.json` beside `template.json`
/// (the Azure portal's export layout, one file per environment) are the template's
/// parameters files when it is the one template of its folder; notes spell the parameters
/// as their files do; a one-file run finds the definition through them.
#[test]
fn parameters_json_beside_the_one_template_of_its_folder_gives_its_values() {
    let dir = crate::common::project();
    let root = dir.path();
    let w = |name: &str, text: &str| crate::common::write(root, name, text);
    w("portal/template.json", PORTAL_TEMPLATE);
    w(
        "portal/parameters.json",
        &parameters_file("portal-compute", "STANDARD_NC6"),
    );
    w("env/template.json", PORTAL_TEMPLATE);
    w(
        "env/Parameters.Dev.json",
        &parameters_file("env-compute", "STANDARD_D3_V2"),
    );
    w(
        "env/parameters.test.json",
        &parameters_file("env-compute", "STANDARD_D3_V2"),
    );
    w("documented/template.json", PORTAL_TEMPLATE);
    w(
        "documented/template.parameters.dev.json",
        &parameters_file("doc-compute", "STANDARD_D3_V2"),
    );
    w(
        "documented/template.parameters.test.json",
        &parameters_file("doc-compute", "STANDARD_D3_V2"),
    );
    // Two templates: which one `parameters.json` is for is not known.
    w("ambiguous/template.json", PORTAL_TEMPLATE);
    w(
        "ambiguous/template-vnet.json",
        &PORTAL_TEMPLATE.replace("ws'", "ws2'"),
    );
    w(
        "ambiguous/parameters.json",
        &parameters_file("amb-compute", "STANDARD_D3_V2"),
    );
    // A `parameters.json` that is not a deployment's parameters file.
    w("plain/template.json", PORTAL_TEMPLATE);
    w(
        "plain/parameters.json",
        r#"{"parameters": {"clusterName": {"value": "plain-compute"}}}"#,
    );
    let inv = inventory_of(root);
    let def = |name: &str| -> Value {
        inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {inv:#}"))["definitions"][0]
            .clone()
    };
    let portal = def("portal-compute");
    assert_eq!(portal["path"], "portal/template.json", "{portal:#}");
    assert_eq!(portal["settings"]["size"]["value"], "STANDARD_NC6", "{portal:#}");
    let env = def("env-compute");
    assert_eq!(env["settings"]["size"]["value"], "STANDARD_D3_V2", "{env:#}");
    let notes = env["notes"].to_string();
    assert!(
        notes.contains("`clusterName` is set by Parameters.Dev.json, parameters.test.json"),
        "the parameter as written, both files: {env:#}"
    );
    let doc = def("doc-compute");
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("`vmSize` is set by template.parameters.dev.json"),
        "{doc:#}"
    );
    assert!(
        !notes.contains("`vmsize`") && !notes.contains("`clustername`"),
        "{doc:#}"
    );
    let (names, unnamed) = names_and_unnamed(&inv);
    assert!(
        !names.iter().any(|n| n == "amb-compute" || n == "plain-compute"),
        "{inv:#}"
    );
    // ambiguous/template.json, ambiguous/template-vnet.json, plain/template.json.
    assert_eq!(unnamed.len(), 3, "{inv:#}");
    assert!(
        unnamed.iter().all(|(_, why)| why.contains("clusterName")),
        "{unnamed:?}"
    );

    // A one-file run: only the parameters file names the compute.
    let dir = project_with_job("portal-compute");
    let root = dir.path();
    crate::common::write(root, "infra/mlcompute/template.json", PORTAL_TEMPLATE);
    crate::common::write(
        root,
        "infra/mlcompute/parameters.dev.json",
        &parameters_file("portal-compute", "STANDARD_NC6"),
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "job.yml"]);
    assert!(
        codes_of(&json, "job.yml").iter().all(|c| c != "AML203"),
        "{json:#}"
    );
    // The same run without the parameters file: the name is not defined.
    std::fs::remove_file(root.join("infra/mlcompute/parameters.dev.json")).unwrap();
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "job.yml"]);
    assert!(
        codes_of(&json, "job.yml").iter().any(|c| c == "AML203"),
        "{json:#}"
    );
}

/// Issue 35, gap 3: a folder of several templates pairs each with the parameters files
/// named by its stem — `parameters-vnet.dev.json` with `template-vnet.json` (and
/// `vnet.json`), `other.parameters.prod.json` with `other.json` — whatever the other
/// templates beside it; a one-file run finds the definition through such a file.
#[test]
fn parameters_files_pair_with_their_template_by_stem_in_a_folder_of_templates() {
    let dir = crate::common::project();
    let root = dir.path();
    let w = |name: &str, text: &str| crate::common::write(root, name, text);
    w("infra/template-vnet.json", PORTAL_TEMPLATE);
    w("infra/template-ws.json", PORTAL_TEMPLATE);
    w("infra/other.json", PORTAL_TEMPLATE);
    w(
        "infra/parameters-vnet.dev.json",
        &parameters_file("vnet-compute", "STANDARD_NC6"),
    );
    w(
        "infra/parameters-vnet.test.json",
        &parameters_file("vnet-compute", "STANDARD_NC6"),
    );
    w(
        "infra/parameters_ws.json",
        &parameters_file("ws-compute", "STANDARD_D3_V2"),
    );
    w(
        "infra/other.parameters.prod.json",
        &parameters_file("other-compute", "STANDARD_D3_V2"),
    );
    let inv = inventory_of(root);
    let def = |name: &str| -> Value {
        inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {inv:#}"))["definitions"]
            .clone()
    };
    let vnet = def("vnet-compute");
    assert_eq!(vnet.as_array().unwrap().len(), 1, "{vnet:#}");
    assert_eq!(vnet[0]["path"], "infra/template-vnet.json", "{vnet:#}");
    assert_eq!(vnet[0]["settings"]["size"]["value"], "STANDARD_NC6", "{vnet:#}");
    assert!(
        vnet[0]["notes"]
            .to_string()
            .contains("set by parameters-vnet.dev.json, parameters-vnet.test.json"),
        "{vnet:#}"
    );
    assert_eq!(def("ws-compute")[0]["path"], "infra/template-ws.json");
    assert_eq!(def("other-compute")[0]["path"], "infra/other.json");
    let (_, unnamed) = names_and_unnamed(&inv);
    assert!(unnamed.is_empty(), "{unnamed:?}");

    // A one-file run: only the parameters file names the compute.
    let dir = project_with_job("vnet-compute");
    let root = dir.path();
    crate::common::write(root, "infra/template-vnet.json", PORTAL_TEMPLATE);
    crate::common::write(root, "infra/template-ws.json", PORTAL_TEMPLATE);
    crate::common::write(
        root,
        "infra/parameters-vnet.dev.json",
        &parameters_file("vnet-compute", "STANDARD_NC6"),
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "job.yml"]);
    assert!(
        codes_of(&json, "job.yml").iter().all(|c| c != "AML203"),
        "{json:#}"
    );
}

/// Audit 28, case 02: SDK v1's `ComputeInstance.provisioning_configuration` takes no
/// `enable_node_public_ip` (azureml-core 1.61: no `**kwargs`; the keyword raises
/// `TypeError`). AML702 says this definition cannot turn public IPs off and names where
/// it can, keeping the virtual-network part; the keyword written anyway is no setting (it
/// silenced AML702), noted; AML703 names `ssh_public_access=True` as the file writes it.
/// `AmlCompute`'s configuration keeps its `enable_node_public_ip`.
#[test]
fn an_sdk_v1_compute_instance_cannot_turn_public_ips_off() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "plain.py",
        "from azureml.core.compute import ComputeTarget, ComputeInstance\n\
config = ComputeInstance.provisioning_configuration(\n    vm_size=\"Standard_DS3_v2\",\n    ssh_public_access=False,\n)\n\
instance = ComputeTarget.create(ws, \"ci-plain\", config)\n",
    );
    crate::common::write(
        root,
        "followed.py",
        "from azureml.core.compute import ComputeTarget, ComputeInstance\n\
config = ComputeInstance.provisioning_configuration(\n    vm_size=\"Standard_DS3_v2\",\n    vnet_resourcegroup_name=\"rg\",\n    vnet_name=\"vnet\",\n    subnet_name=\"default\",\n    enable_node_public_ip=False,\n)\n\
instance = ComputeTarget.create(ws, \"ci-vnet\", config)\n",
    );
    crate::common::write(
        root,
        "ssh.py",
        "from azureml.core.compute import ComputeTarget, ComputeInstance\n\
config = ComputeInstance.provisioning_configuration(vm_size=\"Standard_DS3_v2\", ssh_public_access=True,\n    admin_user_ssh_public_key=\"ssh-rsa AAAA\")\n\
instance = ComputeTarget.create(ws, \"ci-ssh\", config)\n\
inline = ComputeTarget.create(ws, \"ci-inline\", ComputeInstance.provisioning_configuration(vm_size=\"Standard_DS3_v2\", ssh_public_access=True))\n",
    );
    crate::common::write(
        root,
        "cluster.py",
        "from azureml.core.compute import ComputeTarget, AmlCompute\n\
config = AmlCompute.provisioning_configuration(vm_size=\"Standard_DS3_v2\", max_nodes=2,\n    vnet_resourcegroup_name=\"rg\", vnet_name=\"vnet\", subnet_name=\"default\", enable_node_public_ip=False)\n\
cluster = ComputeTarget.create(ws, \"cpu-private\", config)\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    let cannot = "AML702 the nodes of `ci-plain` get public IP addresses: public IPs are the default, and this definition cannot turn them off";
    assert!(
        messages(&json, "plain.py").iter().any(|m| m == cannot),
        "{json:#}"
    );
    let help = helps(&json, "plain.py")
        .into_iter()
        .find(|h| h.starts_with("AML702"))
        .unwrap_or_default();
    assert_eq!(
        help,
        "AML702 This definition cannot turn them off (SDK v1's `ComputeInstance.provisioning_configuration` has no parameter for it): create the compute where they can be turned off (`az ml compute create --enable-node-public-ip false`, a compute YAML's `enable_node_public_ip: false`, the SDK v2's `enable_node_public_ip=False`, the REST property `enableNodePublicIp: false` in ARM, Bicep or `azapi_resource`, or Terraform's `node_public_ip_enabled = false`) and place it in a virtual network (`subnet_name`) so that nodes are reachable only privately.",
        "{json:#}"
    );
    // The help followed: the keyword is no setting, AML702 stays (at the `create`), and
    // its help no longer asks for the subnet the file gives.
    assert_eq!(
        found(&json, "AML702", "followed.py"),
        [(9, 0, vec![])],
        "{json:#}"
    );
    assert!(
        messages(&json, "followed.py")
            .iter()
            .any(|m| m.starts_with("AML702 the nodes of `ci-vnet` get public IP addresses: public IPs are the default, and this definition cannot")),
        "{json:#}"
    );
    assert!(
        helps(&json, "followed.py")
            .iter()
            .any(|h| h.starts_with("AML702 This definition cannot turn them off")
                && !h.contains("subnet_name")),
        "{json:#}"
    );
    assert!(
        codes_of(&json, "followed.py").iter().all(|c| c != "AML704"),
        "{json:#}"
    );
    // SSH access as the file writes it, through the variable and in place.
    let ssh: Vec<String> = messages(&json, "ssh.py")
        .into_iter()
        .filter(|m| m.starts_with("AML703"))
        .collect();
    assert_eq!(
        ssh,
        [
            "AML703 `ssh_public_access=True` opens the SSH port of `ci-ssh` to the internet",
            "AML703 `ssh_public_access=True` opens the SSH port of `ci-inline` to the internet",
        ],
        "{json:#}"
    );
    assert_eq!(found(&json, "AML703", "ssh.py")[0].0, 4, "{json:#}");
    // In place, on the definition's line: the value's own span.
    assert_eq!(found(&json, "AML703", "ssh.py")[1], (5, 0, vec![]), "{json:#}");
    let inline = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "AML703" && x["range"]["start"]["line"] == 5)
        .unwrap();
    let line5 = "inline = ComputeTarget.create(ws, \"ci-inline\", ComputeInstance.provisioning_configuration(vm_size=\"Standard_DS3_v2\", ssh_public_access=True))";
    let col = line5.find("True").unwrap() as u64 + 1;
    assert_eq!(inline["range"]["start"]["column"], col, "{inline:#}");
    // `AmlCompute` takes the keyword: a private cluster in a virtual network.
    assert!(
        codes_of(&json, "cluster.py")
            .iter()
            .all(|c| c != "AML702" && c != "AML704"),
        "{json:#}"
    );
    let out = crate::common::amlint_wide(root)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let vnet = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "ci-vnet")
        .unwrap_or_else(|| panic!("{inv:#}"))["definitions"][0]
        .clone();
    assert!(
        vnet["notes"].to_string().contains(
            "`enable_node_public_ip` is not read: `ComputeInstance.provisioning_configuration` has no such parameter"
        ),
        "{vnet:#}"
    );
    assert!(
        !vnet["notes"].to_string().contains("azureml-core drops it"),
        "{vnet:#}"
    );
}

/// Audit 28, case 06: an SDK v2 constructor whose value is thrown away (a whole expression
/// statement, a notebook's "display this" line) builds an object nothing creates: no
/// definition, no findings. Created, assigned, returned, in a list or passed, it still is.
#[test]
fn an_sdk_v2_constructor_whose_value_is_discarded_defines_nothing() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "ci.py",
        "from azure.ai.ml.entities import AmlCompute, ComputeInstance, NetworkSettings\n\
\n\
nw = NetworkSettings(vnet_name=\"vnet\", subnet=\"default\")\n\
ci = ComputeInstance(name=\"ci-secure\", size=\"Standard_DS3_v2\", enable_node_public_ip=False,\n                     network_settings=nw, idle_time_before_shutdown_minutes=30)\n\
ml_client.begin_create_or_update(ci).result()\n\
\n\
# Note that idle_time_before_shutdown has been deprecated.\n\
ComputeInstance(name=\"ci-secure\", size=\"Standard_DS3_v2\", idle_time_before_shutdown_minutes=30)\n\
(ComputeInstance(name=\"ci-paren\", size=\"Standard_NC6\"))\n\
ml_client.begin_create_or_update(ComputeInstance(name=\"ci-passed\", size=\"Standard_NC6\"))\n\
clusters = [AmlCompute(name=\"in-list\", size=\"Standard_NC6\", max_instances=1)]\n\
\n\
def make():\n\
    return AmlCompute(name=\"returned\", size=\"Standard_NC6\", max_instances=1)\n\
\n\
def shown():\n\
    AmlCompute(name=\"shown-only\", size=\"Standard_NC6\", max_instances=1)\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    // The discarded lines (9, 10, 18) have no findings; the retired NC6 of each kept one does.
    let lines =
        |code: &str| -> Vec<u64> { found(&json, code, "ci.py").into_iter().map(|(l, ..)| l).collect() };
    assert_eq!(lines("AML505"), [11, 12, 15], "{json:#}");
    assert!(
        lines("AML702").iter().all(|l| ![4, 9, 10, 18].contains(l)),
        "{json:#}"
    );
    assert!(
        lines("AML704").iter().all(|l| ![4, 9, 10, 18].contains(l)),
        "{json:#}"
    );
    let out = crate::common::amlint_wide(root)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines_of = |name: &str| -> Vec<u64> {
        inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["name"] == name)
            .flat_map(|c| c["definitions"].as_array().unwrap().clone())
            .map(|d| d["line"].as_u64().unwrap_or(0))
            .collect()
    };
    assert_eq!(lines_of("ci-secure"), [4], "{inv:#}");
    assert_eq!(lines_of("ci-paren"), Vec::<u64>::new(), "{inv:#}");
    assert_eq!(lines_of("shown-only"), Vec::<u64>::new(), "{inv:#}");
    assert_eq!(lines_of("ci-passed"), [11], "{inv:#}");
    assert_eq!(lines_of("in-list"), [12], "{inv:#}");
    assert_eq!(lines_of("returned"), [15], "{inv:#}");
}

/// Audit 28, case 07: an empty subnet (`subnet: ""`, `NetworkSettings(subnet="")`,
/// `--subnet "$SUBNET"` with `SUBNET=""`, Terraform's `subnet_resource_id = ""`) places
/// the compute in no virtual network: the SDK sends a subnet only when it is not empty.
/// AML704 fires as without one, at the empty setting, saying it is empty; a subnet not
/// known statically still fires nothing.
#[test]
fn an_empty_subnet_places_the_compute_in_no_virtual_network() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "compute.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-yaml\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 2\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: \"\"\n",
    );
    crate::common::write(
        root,
        "create.py",
        "from azure.ai.ml.entities import AmlCompute, NetworkSettings\n\
\n\
SUBNET = \"\"  # fill in to place the cluster in a virtual network\n\
cluster = AmlCompute(name=\"cpu-sdk\", size=\"Standard_DS3_v2\", min_instances=0, max_instances=2,\n                     enable_node_public_ip=False, network_settings=NetworkSettings(subnet=SUBNET))\n\
ml_client.compute.begin_create_or_update(cluster)\n",
    );
    crate::common::write(
        root,
        "create.sh",
        "#!/bin/bash\nSUBNET=\"\"   # fill in\naz ml compute create --name cpu-cli --type amlcompute --size Standard_DS3_v2 \\\n  --min-instances 0 --max-instances 2 --enable-node-public-ip false --subnet \"$SUBNET\"\n\
az ml compute create --name cpu-cli-control --type amlcompute --size Standard_DS3_v2 \\\n  --min-instances 0 --max-instances 2 --enable-node-public-ip false\n\
az ml compute create --name cpu-cli-env --type amlcompute --size Standard_DS3_v2 \\\n  --min-instances 0 --max-instances 2 --enable-node-public-ip false --subnet \"$FROM_ENV\"\n",
    );
    crate::common::write(
        root,
        "main.tf",
        "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name = \"cpu-tf\"\n  location = \"westeurope\"\n  machine_learning_workspace_id = \"x\"\n  vm_priority = \"Dedicated\"\n  vm_size = \"Standard_DS3_v2\"\n  node_public_ip_enabled = false\n  subnet_resource_id = \"\"\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 2\n    scale_down_nodes_after_idle_duration = \"PT30S\"\n  }\n}\n",
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(
        messages(&json, "compute.yml"),
        [
            "AML704 `cpu-yaml` is not placed in a virtual network (`network_settings.subnet` is empty, and an empty subnet places it in none)"
        ],
        "{json:#}"
    );
    // At the empty value.
    assert_eq!(
        found(&json, "AML704", "compute.yml"),
        [(9, 0, vec![])],
        "{json:#}"
    );
    assert_eq!(
        messages(&json, "create.py"),
        [
            "AML704 `cpu-sdk` is not placed in a virtual network (`subnet` is empty, and an empty subnet places it in none)"
        ],
        "{json:#}"
    );
    // From the definition's line, focused on the `subnet=` value, the literal labelled.
    assert_eq!(
        found(&json, "AML704", "create.py"),
        [(4, 5, vec![5, 3])],
        "{json:#}"
    );
    assert_eq!(
        messages(&json, "create.sh"),
        [
            "AML704 `cpu-cli` is not placed in a virtual network (`--subnet` is empty, and an empty subnet places it in none)",
            "AML704 `cpu-cli-control` is not placed in a virtual network (no `--subnet`)",
        ],
        "{json:#}"
    );
    assert_eq!(
        found(&json, "AML704", "create.sh"),
        [(3, 4, vec![4]), (5, 0, vec![])],
        "{json:#}"
    );
    assert_eq!(
        messages(&json, "main.tf"),
        [
            "AML704 `cpu-tf` is not placed in a virtual network (`subnet_resource_id` is empty, and an empty subnet places it in none)"
        ],
        "{json:#}"
    );
    assert_eq!(found(&json, "AML704", "main.tf"), [(1, 8, vec![8])], "{json:#}");
}

/// Audit 28, case 05: a command whose option is given no value — the CLI reference's
/// synopsis (one option per line, no `\`), an option named in prose, `--name` last, or an
/// option followed by another — is refused by the CLI ("expected one argument") and
/// creates nothing: no definition. A command continued with `\` whose options all have
/// values, one ending with a flag or an option amlint does not know (it may be a flag),
/// and one whose value is an expansion not known still are.
#[test]
fn a_command_whose_option_has_no_value_defines_nothing() {
    let dir = crate::common::project();
    let root = dir.path();
    crate::common::write(
        root,
        "attach-compute.md",
        "# Attach a Kubernetes cluster\n\
\n\
```azurecli\n\
az ml compute attach --resource-group\n\
                     --workspace-name\n\
                     --name\n\
                     --resource-id\n\
                     --type\n\
                     [--namespace]\n\
```\n\
\n\
The namespace is the one given with ```az ml compute attach --namespace``` when the compute was attached.\n\
\n\
```bash\n\
az ml compute create --type amlcompute --name\n\
az ml compute create --name --type amlcompute --size Standard_NC6\n\
az ml compute create --name doc-cluster --type amlcompute \\\n  --size Standard_NC6 --max-instances 2\n\
```\n",
    );
    crate::common::write(
        root,
        "create.sh",
        "#!/bin/bash\n\
az ml compute create --name sh-flag --type amlcompute --size Standard_NC6 --no-wait\n\
az ml compute create --name sh-unknown --type amlcompute --size Standard_NC6 --enable-something\n\
az ml compute create --type amlcompute --size Standard_NC6 --name \"$FROM_ENV\"\n\
az ml compute create --type amlcompute --size Standard_NC6 -g\n\
az ml compute create --type amlcompute --min-instances -1 --name sh-negative --size Standard_NC6\n",
    );
    let out = crate::common::amlint_wide(root)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut defs: Vec<(String, u64, String)> = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["definitions"].as_array().unwrap().clone())
        .chain(inv["unnamed_definitions"].as_array().unwrap().clone())
        .map(|d| {
            (
                d["path"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["name"]["value"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    defs.sort();
    assert_eq!(
        defs,
        [
            ("attach-compute.md".to_string(), 17, "doc-cluster".to_string()),
            ("create.sh".to_string(), 2, "sh-flag".to_string()),
            ("create.sh".to_string(), 3, "sh-unknown".to_string()),
            ("create.sh".to_string(), 4, String::new()),
            ("create.sh".to_string(), 6, "sh-negative".to_string()),
        ],
        "{inv:#}"
    );
    let (_, json) = crate::common::json_check(root, &["--no-config", "--fail-on", "never", "."]);
    let lines: Vec<u64> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == "attach-compute.md")
        .map(|x| x["range"]["start"]["line"].as_u64().unwrap_or(0))
        .collect();
    assert!(lines.iter().all(|&l| l == 17), "{json:#}");
    assert!(!lines.is_empty(), "{json:#}");
}

/// Audit 28, case 01: the batch deployment of GPU batch scoring on `azureml:scoring-ci`
/// (AML303 when the compute is a GPU compute instance).
const BATCH_ON_CI: &str = "$schema: https://azuremlschemas.azureedge.net/latest/batchDeployment.schema.json\nname: blue\nendpoint_name: scoring-endpoint\nmodel: azureml:my-model:1\ncode_configuration:\n  code: ../src\n  scoring_script: score.py\nenvironment: azureml:scoring-env:1\ncompute: azureml:scoring-ci\nresources:\n  instance_count: 1\nmini_batch_size: 10\n";

/// A Bicep module that names `scoring-ci` and leaves its size to its caller.
const CI_BICEP: &str = "param workspaceName string\nparam vmSize string\nresource ws 'Microsoft.MachineLearningServices/workspaces@2023-04-01' existing = {\n  name: workspaceName\n}\nresource ci 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  parent: ws\n  name: 'scoring-ci'\n  location: 'westeurope'\n  properties: {\n    computeType: 'ComputeInstance'\n    properties: {\n      vmSize: vmSize\n      enableNodePublicIp: false\n      subnet: { id: '/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s' }\n      idleTimeBeforeShutdown: 'PT30M'\n    }\n  }\n}\n";

/// A Python helper that creates `scoring-ci` with the size it is given.
const CI_HELPER: &str = "from azure.ai.ml.entities import ComputeInstance\n\ndef create_scoring_ci(ml_client, size):\n    ci = ComputeInstance(name=\"scoring-ci\", size=size, enable_node_public_ip=False, idle_time_before_shutdown_minutes=30)\n    return ml_client.begin_create_or_update(ci)\n";

/// A command creating `scoring-ci` with the size a template or workflow is given.
fn ci_command(size: &str) -> String {
    format!(
        "az ml compute create --name scoring-ci --type ComputeInstance --size {size} --enable-node-public-ip false --idle-time-before-shutdown-minutes 30"
    )
}

const TF_CI: &str = "variable \"vm_size\" { type = string }\nresource \"azurerm_machine_learning_compute_instance\" \"ci\" {\n  name                          = \"scoring-ci\"\n  machine_learning_workspace_id = \"ws-id\"\n  virtual_machine_size          = var.vm_size\n  node_public_ip_enabled        = false\n  subnet_resource_id            = \"/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\"\n}\n";

/// `amlint args` in `root`: with the project cache in `store` (recording at once), or
/// with none; its JSON output.
fn json_of(root: &Path, args: &[&str], store: Option<&Path>) -> Value {
    let mut cmd = Command::cargo_bin("amlint").unwrap();
    cmd.timeout(std::time::Duration::from_secs(60))
        .current_dir(root)
        .env("AMLINT_CACHE_SETTLE_MS", "0")
        .env_remove("AMLINT_NO_CACHE")
        .args(args)
        .args(["--no-config", "--format", "json"]);
    match store {
        Some(store) => cmd.env("AMLINT_CACHE_DIR", store),
        None => cmd.arg("--no-cache"),
    };
    let out = cmd.output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"))
}

/// Each finding in `path`: code, line and message.
fn findings_in(json: &Value, path: &str) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == path)
        .map(|x| format!("{} {} {}", x["code"], x["range"]["start"]["line"], x["message"]))
        .collect()
}

/// What an inventory knows of `scoring-ci`: its size and where each definition is.
fn scoring_ci(inventory: &Value) -> (Value, Vec<String>) {
    let compute = inventory["computes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "scoring-ci")
        .unwrap_or_else(|| panic!("scoring-ci listed: {inventory}"));
    let defs = compute["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{}:{}", d["path"].as_str().unwrap_or(""), d["line"]))
        .collect();
    (compute["size"].clone(), defs)
}

/// A layout of files calling the one that names `scoring-ci`: its name, its files, the size
/// the whole run knows, and the call's definition (`path:line`).
type CallCase = (
    &'static str,
    Vec<(&'static str, String)>,
    Option<&'static str>,
    &'static str,
);

/// Audit 28, case 01: a one-file run (pre-commit) reads the files that call the file naming
/// the compute — a Bicep module call, a Python helper's call, a reusable workflow's or a
/// local action's `uses:` with `with:`, an Azure Pipelines template call with
/// `parameters:`, a Terraform module block — and the files calling those, so that the
/// size a call passes is known and the batch deployment's findings are the whole run's
/// (it reported none: AML303, an error, was lost). With and without the project cache
/// (whose trigrams rule callers out unread), the inventory of the one file lists the
/// whole run's definitions of `scoring-ci` and its size.
#[test]
fn a_one_file_run_reads_the_callers_of_a_module_helper_or_template_naming_the_compute() {
    let nc4 = Some("Standard_NC4as_T4_v3");
    let stage = "parameters:\n- name: size\n  type: string\nsteps:\n- template: create-ci.yml\n  parameters:\n    size: ${{ parameters.size }}\n";
    // Each case: its files, the size the whole run knows, and the call's definition.
    let cases: Vec<CallCase> = vec![
        (
            "bicep",
            vec![
                ("infra/modules/ci.bicep", CI_BICEP.to_string()),
                (
                    "infra/main.bicep",
                    "module scoring 'modules/ci.bicep' = {\n  name: 'scoring'\n  params: {\n    workspaceName: 'mlw-demo'\n    vmSize: 'Standard_NC4as_T4_v3'\n  }\n}\n".into(),
                ),
            ],
            nc4,
            "infra/main.bicep:1",
        ),
        (
            "bicep, a module calling the module",
            vec![
                ("infra/modules/ci.bicep", CI_BICEP.to_string()),
                (
                    "infra/stages/scoring.bicep",
                    "param size string\nmodule ci '../modules/ci.bicep' = {\n  name: 'ci'\n  params: {\n    workspaceName: 'mlw-demo'\n    vmSize: size\n  }\n}\n".into(),
                ),
                (
                    "main.bicep",
                    "module scoring './infra/stages/scoring.bicep' = {\n  name: 'scoring'\n  params: { size: 'Standard_NC4as_T4_v3' }\n}\n".into(),
                ),
            ],
            nc4,
            "main.bicep:1",
        ),
        (
            "bicep, a size not known statically",
            vec![
                ("infra/modules/ci.bicep", CI_BICEP.to_string()),
                (
                    "infra/main.bicep",
                    "param size string\nmodule scoring 'modules/ci.bicep' = {\n  name: 'scoring'\n  params: {\n    workspaceName: 'mlw-demo'\n    vmSize: size\n  }\n}\n".into(),
                ),
            ],
            None,
            "infra/main.bicep:2",
        ),
        (
            "python helper",
            vec![
                ("compute_utils.py", CI_HELPER.to_string()),
                (
                    "setup.py",
                    "from compute_utils import create_scoring_ci\ncreate_scoring_ci(ml_client, size=\"Standard_NC4as_T4_v3\")\n".into(),
                ),
            ],
            nc4,
            "setup.py:2",
        ),
        (
            "python package, called from another folder",
            vec![
                ("helpers/__init__.py", CI_HELPER.to_string()),
                (
                    "scripts/setup.py",
                    "import helpers\nhelpers.create_scoring_ci(ml_client, size='Standard_NC4as_T4_v3')\n".into(),
                ),
            ],
            nc4,
            "scripts/setup.py:2",
        ),
        (
            "reusable workflow",
            vec![
                (
                    ".github/workflows/create-ci.yml",
                    format!(
                        "on:\n  workflow_call:\n    inputs:\n      size:\n        type: string\n        required: true\njobs:\n  create:\n    runs-on: ubuntu-latest\n    steps:\n      - run: {}\n",
                        ci_command("${{ inputs.size }}")
                    ),
                ),
                (
                    ".github/workflows/setup.yml",
                    "on: workflow_dispatch\njobs:\n  ci:\n    uses: ./.github/workflows/create-ci.yml\n    with:\n      size: Standard_NC4as_T4_v3\n".into(),
                ),
            ],
            nc4,
            ".github/workflows/setup.yml:4",
        ),
        (
            "pipeline template",
            vec![
                (
                    "pipelines/create-ci.yml",
                    format!(
                        "parameters:\n- name: size\n  type: string\nsteps:\n- task: AzureCLI@2\n  inputs:\n    azureSubscription: sc\n    scriptType: bash\n    scriptLocation: inlineScript\n    inlineScript: {}\n",
                        ci_command("${{ parameters.size }}")
                    ),
                ),
                (
                    "azure-pipelines.yml",
                    "trigger: none\nsteps:\n- template: pipelines/create-ci.yml\n  parameters:\n    size: 'Standard_NC4as_T4_v3'\n".into(),
                ),
            ],
            nc4,
            "azure-pipelines.yml:3",
        ),
        (
            "pipeline template calling the template",
            vec![
                (
                    "pipelines/create-ci.yml",
                    format!(
                        "parameters:\n- name: size\n  type: string\nsteps:\n- bash: {}\n",
                        ci_command("${{ parameters.size }}")
                    ),
                ),
                ("pipelines/stage.yml", stage.into()),
                (
                    "ci/azure-pipelines.yml",
                    "trigger: none\nsteps:\n- template: ../pipelines/stage.yml\n  parameters:\n    size: Standard_NC4as_T4_v3\n".into(),
                ),
            ],
            nc4,
            "ci/azure-pipelines.yml:3",
        ),
        (
            "python helper called from a notebook",
            vec![
                ("compute_utils.py", CI_HELPER.to_string()),
                (
                    "nb/setup.ipynb",
                    "{\"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"source\": [\"from compute_utils import create_scoring_ci\\n\", \"create_scoring_ci(ml_client, size=\\\"Standard_NC4as_T4_v3\\\")\\n\"]}], \"metadata\": {\"kernelspec\": {\"language\": \"python\"}}, \"nbformat\": 4, \"nbformat_minor\": 5}".into(),
                ),
            ],
            nc4,
            "nb/setup.ipynb:1",
        ),
        (
            "local action",
            vec![
                (
                    ".github/actions/create-ci/action.yml",
                    format!(
                        "name: create\ninputs:\n  size:\n    required: true\nruns:\n  using: composite\n  steps:\n    - shell: bash\n      run: {}\n",
                        ci_command("${{ inputs.size }}")
                    ),
                ),
                (
                    ".github/workflows/setup.yml",
                    "on: workflow_dispatch\njobs:\n  ci:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./.github/actions/create-ci\n        with:\n          size: Standard_NC4as_T4_v3\n".into(),
                ),
            ],
            nc4,
            ".github/workflows/setup.yml:6",
        ),
        // Audit 35: a quoted `uses:` and a template `@self` are the same calls.
        (
            "reusable workflow, quoted",
            vec![
                (
                    ".github/workflows/create-ci.yml",
                    format!(
                        "on:\n  workflow_call:\n    inputs:\n      size:\n        type: string\n        required: true\njobs:\n  create:\n    runs-on: ubuntu-latest\n    steps:\n      - run: {}\n",
                        ci_command("${{ inputs.size }}")
                    ),
                ),
                (
                    ".github/workflows/setup.yml",
                    "on: workflow_dispatch\njobs:\n  ci:\n    uses: './.github/workflows/create-ci.yml'\n    with:\n      size: Standard_NC4as_T4_v3\n".into(),
                ),
            ],
            nc4,
            ".github/workflows/setup.yml:4",
        ),
        (
            "local action, double-quoted",
            vec![
                (
                    ".github/actions/create-ci/action.yml",
                    format!(
                        "name: create\ninputs:\n  size:\n    required: true\nruns:\n  using: composite\n  steps:\n    - shell: bash\n      run: {}\n",
                        ci_command("${{ inputs.size }}")
                    ),
                ),
                (
                    ".github/workflows/setup.yml",
                    "on: workflow_dispatch\njobs:\n  ci:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: \"./.github/actions/create-ci\"\n        with:\n          size: Standard_NC4as_T4_v3\n".into(),
                ),
            ],
            nc4,
            ".github/workflows/setup.yml:6",
        ),
        (
            "pipeline template @self",
            vec![
                (
                    "pipelines/create-ci.yml",
                    format!(
                        "parameters:\n- name: size\n  type: string\nsteps:\n- bash: {}\n",
                        ci_command("${{ parameters.size }}")
                    ),
                ),
                (
                    "azure-pipelines.yml",
                    "trigger: none\nsteps:\n- template: pipelines/create-ci.yml@self\n  parameters:\n    size: 'Standard_NC4as_T4_v3'\n".into(),
                ),
            ],
            nc4,
            "azure-pipelines.yml:3",
        ),
        (
            "terraform, a module calling the module",
            vec![
                ("infra/modules/ci/main.tf", TF_CI.to_string()),
                (
                    "infra/modules/scoring/main.tf",
                    "variable \"size\" { type = string }\nmodule \"ci\" {\n  source  = \"../ci\"\n  vm_size = var.size\n}\n".into(),
                ),
                (
                    "infra/main.tf",
                    "module \"scoring\" {\n  source = \"./modules/scoring\"\n  size   = \"Standard_NC4as_T4_v3\"\n}\n".into(),
                ),
            ],
            nc4,
            "infra/main.tf:1",
        ),
    ];
    for (case, files, size, call) in cases {
        let dir = crate::common::project();
        let root = dir.path();
        let write = |name: &str, text: &str| crate::common::write(root, name, text);
        write("deploy/batch-deployment.yml", BATCH_ON_CI);
        write("src/score.py", "def init(): pass\n");
        for (name, text) in &files {
            write(name, text);
        }
        let deploy = "deploy/batch-deployment.yml";
        let whole = json_of(root, &["check", "--fail-on", "never", "."], None);
        let expected = findings_in(&whole, deploy);
        assert_eq!(
            expected.iter().any(|f| f.starts_with("\"AML303\" 9 ")),
            size.is_some(),
            "{case}: the whole run: {whole}"
        );
        let (whole_size, whole_defs) = scoring_ci(&json_of(root, &["inventory", "."], None));
        assert_eq!(whole_size.as_str(), size, "{case}");
        assert!(
            whole_defs.len() >= 2,
            "{case}: the callee's and the call's: {whole_defs:?}"
        );
        let store = tempfile::tempdir().unwrap();
        // Without the cache, then with it: written by the first run, read by the second.
        for store in [None, Some(store.path()), Some(store.path())] {
            let one = json_of(root, &["check", "--fail-on", "never", deploy], store);
            assert_eq!(
                findings_in(&one, deploy),
                expected,
                "{case} (cache: {store:?}): {one}"
            );
            // The definitions a call overrides (a module's own, read with the call's
            // values) are not listed as the name's in a partial run (`facts::index`,
            // `without_overridden`); every other is the whole run's.
            let inventory = json_of(root, &["inventory", deploy], store);
            let (one_size, one_defs) = scoring_ci(&inventory);
            assert_eq!(one_size, whole_size, "{case} (cache: {store:?}): {inventory}");
            assert!(
                one_defs.iter().any(|d| d == call),
                "{case} (cache: {store:?}): {inventory}"
            );
            assert!(
                one_defs.iter().all(|d| whole_defs.contains(d)),
                "{case} (cache: {store:?}): {one_defs:?} of {whole_defs:?}"
            );
        }
    }
}

/// The callers of the files that name a compute are searched once per round over the
/// project, all the called files' names at once: 2,000 files that call other modules and
/// import other modules (so a call's keyword alone does not rule them out), beside 100
/// Bicep modules and 100 Python helpers that name the compute, each called from its own
/// file, cost a pass over each file, not one per file called (a test of every file
/// against every module is the quadratic search of audit 23). Every call is found.
#[test]
fn the_callers_of_many_modules_and_helpers_are_found_in_one_pass_over_the_files() {
    let dir = project_with_job("busy-ci");
    let root = dir.path();
    for d in ["other", "mods", "calls", "py", "pycalls"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let module = "param vmSize string\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  name: 'ws/busy-ci'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: { vmSize: vmSize }\n  }\n}\n";
    let write = |path: String, text: String| std::fs::write(root.join(path), text).unwrap();
    for i in 0..1000 {
        write(
            format!("other/o{i}.bicep"),
            format!("module x './x{i}.bicep' = {{\n  name: 'x'\n}}\n"),
        );
        write(
            format!("other/o{i}.py"),
            format!("import os\nfrom lib{i} import thing\n"),
        );
    }
    for i in 0..100 {
        write(format!("mods/m{i}.bicep"), module.to_string());
        write(
            format!("calls/c{i}.bicep"),
            format!(
                "module m '../mods/m{i}.bicep' = {{\n  name: 'm'\n  params: {{ vmSize: 'Standard_DS3_v2' }}\n}}\n"
            ),
        );
        write(
            format!("py/helper_{i}.py"),
            format!(
                "from azure.ai.ml.entities import AmlCompute\n\ndef make_{i}(client, size):\n    return AmlCompute(name='busy-ci', size=size)\n"
            ),
        );
        write(
            format!("pycalls/s{i}.py"),
            format!("from py.helper_{i} import make_{i}\nmake_{i}(None, size='Standard_DS3_v2')\n"),
        );
    }
    let out = capped::amlint_within(
        root,
        &[
            "inventory",
            "--no-config",
            "--no-cache",
            "--format",
            "json",
            "job.yml",
        ],
        b"",
        std::time::Duration::from_secs(30),
    );
    let json: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", out.stderr_text()));
    let compute = &json["computes"][0];
    assert_eq!(compute["name"], "busy-ci", "{json}");
    assert_eq!(compute["size"], "Standard_DS3_v2", "{json}");
    let in_folder = |folder: &str| {
        compute["definitions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["path"].as_str().unwrap_or("").starts_with(folder))
            .count()
    };
    assert_eq!((in_folder("calls/"), in_folder("pycalls/")), (100, 100), "{json}");
    assert_eq!(in_folder("other/"), 0, "{json}");
}

/// Audit 29, case 08 (Bicep): a `.bicepparam` file kept in a folder of its own
/// (`params/prod.bicepparam`, `using '../main.bicep'`) deploys the template with its
/// values, as one beside the template does. The compute is the one it names and sizes,
/// judged at its `param` line; a job using that name resolves, in a whole run and in a
/// one-file run; a parameters file naming another `main.bicep` gives this one nothing.
#[test]
fn a_bicepparam_file_in_another_folder_deploys_the_template_it_names() {
    let dir = project_with_job("gpu-train");
    let root = dir.path();
    let write = |name: &str, text: &str| crate::common::write(root, name, text);
    write(
        "bicep/main.bicep",
        "param clusterName string = 'train-cluster'\nparam vmSize string = 'Standard_DS3_v2'\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  name: 'ws/${clusterName}'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: vmSize\n      enableNodePublicIp: false\n      subnet: { id: '/s/n' }\n    }\n  }\n}\n",
    );
    write(
        "bicep/params/prod.bicepparam",
        "using '../main.bicep'\n\nparam clusterName = 'gpu-train'\nparam vmSize = 'Standard_NC6'\n",
    );
    // Names a `main.bicep` of another folder: not this template's values.
    write(
        "bicep/params/other.bicepparam",
        "using '../../elsewhere/main.bicep'\nparam clusterName = 'not-this-one'\n",
    );
    write(
        "other/main.bicepparam",
        "using '../elsewhere/main.bicep'\nparam vmSize = 'Standard_NC12'\n",
    );
    write(
        "other/main.bicep",
        "param vmSize string = 'Standard_D2_v3'\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {\n  name: 'ws/other-cluster'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: vmSize\n      enableNodePublicIp: false\n      subnet: { id: '/s/n' }\n    }\n  }\n}\n",
    );
    let whole = Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(root)
        .args([
            "check",
            "--no-config",
            "--no-cache",
            "--format",
            "json",
            "--fail-on",
            "never",
            ".",
        ])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&whole.stdout).unwrap();
    assert!(codes_of(&json, "job.yml").is_empty(), "{json}");
    // The retired size the parameters file deploys, at its value there.
    let nc6: Vec<&Value> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == "AML505" && x["path"] == "bicep/params/prod.bicepparam")
        .collect();
    assert_eq!(nc6.len(), 1, "{json}");
    assert_eq!(nc6[0]["range"]["start"]["line"], 4, "{json}");
    assert_eq!(nc6[0]["range"]["start"]["column"], 17, "{json}");
    assert_eq!(nc6[0]["range"]["end"]["column"], 29, "{json}");
    assert!(codes_of(&json, "other/main.bicepparam").is_empty(), "{json}");
    assert!(codes_of(&json, "other/main.bicep").is_empty(), "{json}");
    let inventory = Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(root)
        .args(["inventory", "--no-config", "--no-cache", "--format", "json", "."])
        .output()
        .unwrap();
    let inv: Value = serde_json::from_slice(&inventory.stdout).unwrap();
    let names: Vec<(&str, &str)> = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap_or(""), c["size"].as_str().unwrap_or("")))
        .collect();
    assert!(names.contains(&("gpu-train", "Standard_NC6")), "{inv}");
    assert!(names.contains(&("other-cluster", "Standard_D2_v3")), "{inv}");
    assert!(!names.iter().any(|(n, _)| *n == "not-this-one"), "{inv}");
    // Pre-commit passes the job alone: the parameters file is found by the name it writes.
    let one = Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(root)
        .args([
            "check",
            "--no-config",
            "--no-cache",
            "--format",
            "json",
            "--fail-on",
            "never",
            "job.yml",
        ])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&one.stdout).unwrap();
    assert!(codes_of(&json, "job.yml").is_empty(), "{json}");
}
