//! What a deployment passes to an ARM template (audit 29, defect 8): an Azure Pipelines
//! `AzureResourceManagerTemplateDeployment@3` task's `csmParametersFile`, an `az
//! deployment group create --parameters @file` (or a file without `@`, `-p`, `name=value`)
//! in a script, a workflow's `run:` or a pipeline's `inlineScript:`. The template deployed
//! so is a definition at the command with the values the parameters file gives; a
//! parameters file that cannot be read (outside the project, a symlink out, missing, a
//! path not known statically, not JSON) is said in a note, instead of the template's
//! defaults being reported silently as what is deployed.

use std::path::Path;

use serde_json::Value;

use crate::common::{inventory, json_check, project, write};

const TEMPLATE: &str = crate::common::ARM_COMPUTE_TEMPLATE;

const PARAMS: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "workspaceName": { "value": "mlw-prod" },
    "clusterName": { "value": "gpu-train" },
    "vmSize": { "value": "Standard_NC6" }
  }
}
"#;

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: nvidia-smi\nenvironment: azureml:AzureML-ACPT-pytorch-1.13-py38-cuda11.7-gpu@latest\ncompute: azureml:gpu-train\n";

/// A project with the template, its parameters file in another folder, a job on the
/// deployed compute, and `deployer` (its path and text).
fn case(deployer: (&str, &str)) -> tempfile::TempDir {
    let dir = project();
    let d = dir.path();
    write(d, "infra/compute.json", TEMPLATE);
    write(d, "infra/params/prod.json", PARAMS);
    write(d, "jobs/train.yml", JOB);
    write(d, deployer.0, deployer.1);
    dir
}

fn check(d: &Path) -> Value {
    let (code, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(code, Some(0), "{json}");
    json
}

/// Every definition the inventory lists in `path`: (name, size, notes joined).
fn definitions_in(inv: &Value, path: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let all = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["definitions"].as_array().unwrap().iter());
    let unnamed = inv["unnamed_definitions"].as_array().unwrap().iter();
    for d in all.chain(unnamed) {
        if d["path"] == path {
            let notes: Vec<&str> = d["notes"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            out.push((
                d["name"]["value"].as_str().unwrap_or("?").to_string(),
                d["settings"]["size"]["value"].as_str().unwrap_or("?").to_string(),
                notes.join(" | "),
            ));
        }
    }
    out
}

fn codes_at(json: &Value, path: &str) -> Vec<(String, u64, u64)> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == path)
        .map(|x| {
            (
                x["code"].as_str().unwrap().to_string(),
                x["range"]["start"]["line"].as_u64().unwrap(),
                // A value on the definition's line has no focus of its own.
                x["focus"]["start"]["line"]
                    .as_u64()
                    .unwrap_or_else(|| x["range"]["start"]["line"].as_u64().unwrap()),
            )
        })
        .collect()
}

/// The deployed compute resolves the job and is checked at the deployment, its retired
/// size (the parameters file's) reported there; the template's defaults stay its own.
fn assert_deployed(d: &Path, deployer: &str, line: u64, focus: u64) {
    let json = check(d);
    assert!(
        !codes_at(&json, "jobs/train.yml")
            .iter()
            .any(|(c, ..)| c == "AML203"),
        "`gpu-train` is deployed: {json}"
    );
    assert!(
        codes_at(&json, deployer).contains(&("AML505".to_string(), line, focus)),
        "the retired Standard_NC6 the deployment passes, at {deployer}:{line} focused on {focus}: {:?}",
        codes_at(&json, deployer)
    );
    let inv = inventory(d);
    let defs = definitions_in(&inv, deployer);
    assert_eq!(defs.len(), 1, "{defs:?}");
    assert_eq!(
        (defs[0].0.as_str(), defs[0].1.as_str()),
        ("gpu-train", "Standard_NC6"),
        "{defs:?}"
    );
    // The template as the deployment writes it, and where it defines the compute.
    assert!(defs[0].2.contains("deploys the template `"), "{defs:?}");
    assert!(
        defs[0]
            .2
            .contains("which defines the compute at infra/compute.json:11"),
        "{defs:?}"
    );
    assert!(defs[0].2.contains("is set by infra/params/prod.json"), "{defs:?}");
    // The template read alone keeps its defaults.
    let own = definitions_in(&inv, "infra/compute.json");
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(
        (own[0].0.as_str(), own[0].1.as_str()),
        ("train-cluster", "Standard_DS3_v2")
    );
}

#[test]
fn a_pipeline_task_deploys_the_template_with_its_parameters_file() {
    let task = "steps:\n  - task: AzureResourceManagerTemplateDeployment@3\n    inputs:\n      deploymentScope: Resource Group\n      azureResourceManagerConnection: arm\n      resourceGroupName: rg-ml\n      location: westeurope\n      csmFile: infra/compute.json\n      csmParametersFile: $(System.DefaultWorkingDirectory)/infra/params/prod.json\n";
    let dir = case(("pipelines/infra.yml", task));
    assert_deployed(dir.path(), "pipelines/infra.yml", 2, 9);
}

#[test]
fn overrides_of_a_task_win_over_its_parameters_file() {
    let task = "steps:\n  - task: AzureResourceManagerTemplateDeployment@3\n    inputs:\n      csmFile: infra/compute.json\n      csmParametersFile: infra/params/prod.json\n      overrideParameters: -vmSize Standard_NC24rs_v3 -clusterName \"gpu-big\"\n";
    let dir = case(("pipelines/infra.yml", task));
    let defs = definitions_in(&inventory(dir.path()), "pipelines/infra.yml");
    assert_eq!(defs.len(), 1, "{defs:?}");
    assert_eq!(
        (defs[0].0.as_str(), defs[0].1.as_str()),
        ("gpu-big", "Standard_NC24rs_v3"),
        "{defs:?}"
    );
}

#[test]
fn az_deployment_group_create_with_a_parameters_file_in_a_script() {
    for (args, focus) in [
        (
            "--template-file infra/compute.json --parameters @infra/params/prod.json",
            2,
        ),
        (
            "--template-file infra/compute.json --parameters infra/params/prod.json",
            2,
        ),
        ("-f infra/compute.json -p @infra/params/prod.json", 2),
        (
            "--template-file=infra/compute.json \\\n  --parameters \"@infra/params/prod.json\" workspaceName=mlw",
            3,
        ),
    ] {
        let script = format!("#!/bin/bash\naz deployment group create -g rg-ml {args}\n");
        let dir = case(("scripts/deploy.sh", &script));
        assert_deployed(dir.path(), "scripts/deploy.sh", 2, focus);
    }
}

#[test]
fn a_script_run_from_its_folder_names_the_files_from_there() {
    let script = "#!/bin/bash\ncd \"$(dirname \"$0\")/../infra\"\naz deployment group create -g rg -f compute.json -p @params/prod.json\n";
    let dir = case(("scripts/deploy.sh", script));
    assert_deployed(dir.path(), "scripts/deploy.sh", 3, 3);
}

#[test]
fn a_workflow_run_and_a_pipeline_inline_script_deploy_too() {
    let workflow = "on: push\njobs:\n  infra:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          az deployment group create -g rg \\\n            --template-file infra/compute.json \\\n            --parameters @infra/params/prod.json\n";
    let dir = case((".github/workflows/infra.yml", workflow));
    assert_deployed(dir.path(), ".github/workflows/infra.yml", 7, 9);
    let pipeline = "steps:\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: x\n      scriptType: bash\n      scriptLocation: inlineScript\n      inlineScript: az deployment group create -g rg --template-file infra/compute.json --parameters infra/params/prod.json\n";
    let dir = case(("azure-pipelines.yml", pipeline));
    assert_deployed(dir.path(), "azure-pipelines.yml", 7, 7);
}

#[test]
fn inline_values_override_the_parameters_file() {
    let script = "az deployment group create -g rg --template-file infra/compute.json --parameters @infra/params/prod.json --parameters vmSize=Standard_NC24rs_v3\n";
    let dir = case(("deploy.sh", script));
    let defs = definitions_in(&inventory(dir.path()), "deploy.sh");
    assert_eq!(defs.len(), 1, "{defs:?}");
    assert_eq!(
        (defs[0].0.as_str(), defs[0].1.as_str()),
        ("gpu-train", "Standard_NC24rs_v3"),
        "{defs:?}"
    );
}

/// A parameters file the deployment names that cannot be read: the deployment's
/// definition takes the template's defaults and says so.
fn assert_noted(d: &Path, deployer: &str, why: &str) {
    let defs = definitions_in(&inventory(d), deployer);
    assert_eq!(defs.len(), 1, "{defs:?}");
    assert_eq!(
        (defs[0].0.as_str(), defs[0].1.as_str()),
        ("train-cluster", "Standard_DS3_v2"),
        "{defs:?}"
    );
    assert!(
        defs[0].2.contains("which amlint did not read") && defs[0].2.contains(why),
        "the note says the parameters file was not read, {why:?}: {defs:?}"
    );
    let json = check(d);
    assert!(!json.to_string().contains("AML000"), "{json}");
}

#[test]
fn a_parameters_file_not_read_is_noted() {
    // Missing.
    let script = "az deployment group create -g rg --template-file infra/compute.json --parameters @infra/params/missing.json\n";
    let dir = case(("deploy.sh", script));
    assert_noted(dir.path(), "deploy.sh", "not a file of the project");
    // Named through a variable not known statically.
    let script = "az deployment group create -g rg --template-file infra/compute.json --parameters \"@infra/params/$ENV.json\"\n";
    let dir = case(("deploy.sh", script));
    assert_noted(dir.path(), "deploy.sh", "not known statically");
    // A pipeline variable in the task's input.
    let task = "steps:\n  - task: AzureResourceManagerTemplateDeployment@3\n    inputs:\n      csmFile: infra/compute.json\n      csmParametersFile: infra/params/$(env).json\n";
    let dir = case(("azure-pipelines.yml", task));
    assert_noted(dir.path(), "azure-pipelines.yml", "pipeline variable");
    // Not JSON.
    let script = "az deployment group create -g rg --template-file infra/compute.json --parameters @infra/params/prod.txt\n";
    let dir = case(("deploy.sh", script));
    write(dir.path(), "infra/params/prod.txt", "vmSize: Standard_NC6\n{{{\n");
    assert_noted(dir.path(), "deploy.sh", "is not valid JSON");
    // JSON, but not a parameters file.
    write(dir.path(), "infra/params/prod.txt", "[1, 2]\n");
    assert_noted(dir.path(), "deploy.sh", "has no `parameters` object");
    // Inline JSON.
    let script = "az deployment group create -g rg --template-file infra/compute.json --parameters '{\"vmSize\": {\"value\": \"Standard_NC6\"}}'\n";
    let dir = case(("deploy.sh", script));
    assert_noted(dir.path(), "deploy.sh", "inline JSON");
}

#[test]
fn a_parameters_file_outside_the_project_is_not_read() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("prod.json"), PARAMS).unwrap();
    let root = outer.path().join("p");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    write(&root, "infra/compute.json", TEMPLATE);
    write(&root, "jobs/train.yml", JOB);
    write(
        &root,
        "deploy.sh",
        "az deployment group create -g rg --template-file infra/compute.json --parameters @../prod.json\n",
    );
    assert_noted(&root, "deploy.sh", "outside the project");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outer.path().join("prod.json"), root.join("infra/link.json")).unwrap();
        write(
            &root,
            "deploy.sh",
            "az deployment group create -g rg --template-file infra/compute.json --parameters @infra/link.json\n",
        );
        assert_noted(&root, "deploy.sh", "outside the project");
    }
}

#[test]
fn what_is_not_a_deployment_of_a_local_template_defines_nothing_more() {
    for script in [
        // A linked template, a template not known, no template.
        "az deployment group create -g rg --template-uri https://x/compute.json --parameters @infra/params/prod.json\n",
        "az deployment group create -g rg --template-file \"$T\" --parameters @infra/params/prod.json\n",
        "az deployment group create -g rg --parameters @infra/params/prod.json\n",
        "az deployment group what-if -g rg --template-file infra/compute.json\n",
        "echo az deployment group create --template-file infra/compute.json\n",
    ] {
        let dir = case(("deploy.sh", script));
        let defs = definitions_in(&inventory(dir.path()), "deploy.sh");
        assert!(defs.is_empty(), "{script}: {defs:?}");
    }
}

#[test]
fn a_bicepparam_in_another_folder_deploys_its_template() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "bicep/main.bicep",
        "param vmSize string\nparam clusterName string = 'train-cluster'\nresource cc 'Microsoft.MachineLearningServices/workspaces/computes@2024-04-01' = {\n  name: 'mlw/${clusterName}'\n  location: 'westeurope'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: vmSize\n    }\n  }\n}\n",
    );
    write(
        d,
        "bicep/params/prod.bicepparam",
        "using '../main.bicep'\nparam vmSize = 'Standard_NC6'\nparam clusterName = 'gpu-train'\n",
    );
    write(d, "jobs/train.yml", JOB);
    write(
        d,
        "deploy.sh",
        "az deployment group create -g rg --template-file bicep/main.bicep --parameters bicep/params/prod.bicepparam\n",
    );
    let inv = inventory(d);
    let defs = definitions_in(&inv, "bicep/params/prod.bicepparam");
    assert_eq!(defs.len(), 1, "{defs:?}");
    assert_eq!(
        (defs[0].0.as_str(), defs[0].1.as_str()),
        ("gpu-train", "Standard_NC6")
    );
    // The command adds no second definition of its own.
    assert!(definitions_in(&inv, "deploy.sh").is_empty());
}

/// A deployment that sets a parameter making the compute's condition false deploys no
/// compute (eval5 case 02, galafis/azure-ml-cicd-pipeline: `--parameters environment=dev`
/// of a template whose GPU cluster is `if (environment == 'prod')`): no definition at
/// that command and no finding there; the one that sets `prod` defines it, and the
/// template's own definition keeps its findings.
#[test]
fn a_deployment_whose_values_switch_the_compute_off_defines_nothing() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "main.bicep",
        "param environment string = 'dev'\n\nresource gpu 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = if (environment == 'prod') {\n  name: 'ws/prod-gpu'\n  location: 'westeurope'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: 'Standard_NC6s_v3'\n      enableNodePublicIp: false\n      scaleSettings: {\n        minNodeCount: 0\n        maxNodeCount: 4\n      }\n    }\n  }\n}\n",
    );
    write(
        d,
        "deploy.sh",
        "#!/bin/bash\naz deployment group create -g rg-dev --template-file main.bicep --parameters environment=dev\naz deployment group create -g rg-prod --template-file main.bicep --parameters environment=prod\naz deployment group create -g rg --template-file main.bicep\n",
    );
    let json = check(d);
    assert_eq!(at_of(&json, "deploy.sh"), [3], "{json:#}");
    assert_eq!(at_of(&json, "main.bicep"), [3], "{json:#}");
    let inv = inventory(d);
    let lines: Vec<u64> = crate::common::every_definition(&inv)
        .iter()
        .filter(|x| x["path"] == "deploy.sh")
        .map(|x| x["line"].as_u64().unwrap())
        .collect();
    // The third deploys with the default `dev`: nothing either.
    assert_eq!(lines, [3], "{inv:#}");
    // A deployment whose values cannot all be read may set it: it stays.
    write(
        d,
        "deploy.sh",
        "#!/bin/bash\naz deployment group create -g rg --template-file main.bicep --parameters @/etc/params.json\n",
    );
    assert_eq!(at_of(&check(d), "deploy.sh"), [2]);
}

fn at_of(json: &Value, path: &str) -> Vec<u64> {
    codes_at(json, path)
        .into_iter()
        .filter(|(c, ..)| c == "AML505")
        .map(|(_, l, _)| l)
        .collect()
}

/// What a deployment passes as text (`--parameters gpu=false`, `overrideParameters:
/// -gpu false`) is read as the parameter's declared type, as Azure reads it: a `bool`
/// parameter set to `false` (any case) switches the compute of `if (gpu)` off, so that
/// deployment defines nothing. A value written as is on the command line (or in the
/// task's input, plain or quoted) is where its findings are: AML601 at the `2` of
/// `minNodes=2`, AML505 at the size's word.
#[test]
fn values_passed_as_text_take_the_parameters_type_and_are_reported_where_written() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "main.bicep",
        "param gpu bool = true\nparam minNodes int = 0\nparam vmSize string = 'Standard_DS3_v2'\n\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = if (gpu) {\n  name: 'ws/gpu-cluster'\n  location: 'westeurope'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: vmSize\n      enableNodePublicIp: false\n      subnet: { id: 'x' }\n      scaleSettings: { minNodeCount: minNodes, maxNodeCount: 4 }\n    }\n  }\n}\n",
    );
    write(
        d,
        "deploy.sh",
        "#!/bin/bash\naz deployment group create -g a -f main.bicep --parameters gpu=false minNodes=2\naz deployment group create -g b -f main.bicep -p gpu=False vmSize=Standard_NC6\naz deployment group create -g c -f main.bicep -p gpu=true minNodes=2 \"vmSize=Standard_NC6\"\n",
    );
    write(
        d,
        "infra/t.json",
        r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {"gpu": {"type": "Bool", "defaultValue": true}, "minNodes": {"type": "int", "defaultValue": 0}},
  "resources": [
    {
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "apiVersion": "2023-10-01",
      "name": "ws/arm-cluster",
      "condition": "[parameters('gpu')]",
      "location": "westeurope",
      "properties": {"computeType": "AmlCompute", "properties": {"vmSize": "Standard_DS3_v2", "enableNodePublicIp": false, "subnet": {"id": "x"}, "scaleSettings": {"minNodeCount": "[parameters('minNodes')]", "maxNodeCount": 2}}}
    }
  ]
}
"#,
    );
    write(
        d,
        "azure-pipelines.yml",
        "steps:\n- task: AzureResourceManagerTemplateDeployment@3\n  inputs:\n    csmFile: infra/t.json\n    overrideParameters: -gpu FALSE -minNodes 1\n- task: AzureResourceManagerTemplateDeployment@3\n  inputs:\n    csmFile: infra/t.json\n    overrideParameters: -gpu true -minNodes 1\n- task: AzureResourceManagerTemplateDeployment@3\n  inputs:\n    csmFile: infra/t.json\n    overrideParameters: '-gpu true -minNodes 3'\n",
    );
    let json = check(d);
    // (code, line, column) of each finding's focus in `path`.
    let focus = |path: &str| -> Vec<(String, u64, u64)> {
        let mut v: Vec<_> = (json["diagnostics"].as_array().unwrap().iter())
            .filter(|x| x["path"] == path)
            .map(|x| {
                let at = &x["focus"]["start"];
                let at = if at.is_null() { &x["range"]["start"] } else { at };
                let code = x["code"].as_str().unwrap().to_string();
                (code, at["line"].as_u64().unwrap(), at["column"].as_u64().unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let owned = |v: &[(&str, u64, u64)]| -> Vec<(String, u64, u64)> {
        v.iter().map(|(c, l, k)| (c.to_string(), *l, *k)).collect()
    };
    // Lines 2 and 3 switch the compute off; line 4's values are at their literals.
    assert_eq!(
        focus("deploy.sh"),
        owned(&[("AML505", 4, 78), ("AML601", 4, 68)]),
        "{json:#}"
    );
    // The first task switches it off; the others' `-minNodes` values, plain and quoted.
    assert_eq!(
        focus("azure-pipelines.yml"),
        owned(&[("AML601", 9, 45), ("AML601", 13, 46)]),
        "{json:#}"
    );
    assert!(
        focus("main.bicep").is_empty() && focus("infra/t.json").is_empty(),
        "{json:#}"
    );
    let inv = inventory(d);
    let lines = |path: &str| -> Vec<u64> {
        (crate::common::every_definition(&inv).iter())
            .filter(|x| x["path"] == path)
            .map(|x| x["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(lines("deploy.sh"), [4], "{inv:#}");
    assert_eq!(lines("azure-pipelines.yml"), [6, 10], "{inv:#}");
}
