//! Audit 32 (Bicep and ARM): a `.bicep` template deployed with a JSON parameters file
//! (`az deployment group create -f main.bicep -p @params.json`, case 04) is a definition
//! at the command with the values the file passes; an AKS compute attaching a cluster of
//! the same template (`resourceId: aksCluster.id`, ARM `resourceId(...)`, case 07) takes
//! the cluster's agent pool's size and count; an ARM `copy` loop over a known count
//! (`copyIndex()`, case 05) is one definition per index.

use serde_json::Value;

use crate::common::{
    check_clean, every_definition, findings_with, focused, inventory, placed, project, write,
};

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml://registries/azureml/environments/sklearn-1.5/labels/latest\ncompute: azureml:gpu-cluster\n";

/// Case 04's template: the name has no default, the size's default is a current size.
const MAIN_BICEP: &str = "param workspaceName string
param clusterName string
param vmSize string = 'Standard_DS3_v2'

resource ws 'Microsoft.MachineLearningServices/workspaces@2023-04-01' existing = {
  name: workspaceName
}

resource cc 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {
  parent: ws
  name: clusterName
  location: 'westeurope'
  properties: {
    computeType: 'AmlCompute'
    properties: {
      vmSize: vmSize
      scaleSettings: { minNodeCount: 0, maxNodeCount: 2 }
    }
  }
}
";

const PARAMS: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "workspaceName": { "value": "ws" },
    "ClusterName": { "value": "gpu-cluster" },
    "vmSize": { "value": "Standard_NC6" }
  }
}
"#;

/// The definitions the inventory lists in `path`: (name, size, notes joined).
fn defs_in(inv: &Value, path: &str) -> Vec<(String, String, String)> {
    every_definition(inv)
        .into_iter()
        .filter(|d| d["path"] == path)
        .map(|d| {
            let notes: Vec<&str> = (d["notes"].as_array().unwrap().iter())
                .filter_map(Value::as_str)
                .collect();
            let size = &d["settings"]["size"];
            (
                d["name"]["value"].as_str().unwrap_or("?").to_string(),
                size["value"].as_str().map_or_else(
                    || format!("? {}", size["why"].as_str().unwrap_or("absent")),
                    str::to_string,
                ),
                notes.join(" | "),
            )
        })
        .collect()
}

/// A project with case 04's template, parameters file and job, and `deployer`.
fn case04(deployer: (&str, &str)) -> tempfile::TempDir {
    let dir = project();
    let d = dir.path();
    write(d, "infra/main.bicep", MAIN_BICEP);
    write(d, "infra/main.parameters.json", PARAMS);
    write(d, "ml/job.yml", JOB);
    write(d, deployer.0, deployer.1);
    dir
}

/// Case 04: the deployment is a definition at the command, its values the parameters
/// file's (its `ClusterName` matching `clusterName` as Resource Manager matches names, in
/// any case): the job's compute resolves, the retired size is reported at the command,
/// focused on the parameters file's name. The template read alone keeps its defaults.
#[test]
fn a_bicep_template_deployed_with_a_json_parameters_file_takes_its_values() {
    let script = "#!/bin/bash\naz deployment group create -g rg --template-file infra/main.bicep --parameters @infra/main.parameters.json\n";
    let workflow = "on: push\njobs:\n  infra:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          az deployment group create -g rg \\\n            -f infra/main.bicep -p infra/main.parameters.json\n";
    let pipeline = "steps:\n  - task: AzureResourceManagerTemplateDeployment@3\n    inputs:\n      deploymentScope: Resource Group\n      csmFile: infra/main.bicep\n      csmParametersFile: $(System.DefaultWorkingDirectory)/infra/main.parameters.json\n";
    for (path, text, at, focus) in [
        ("deploy.sh", script, (2, 80), "@infra/main.parameters.json"),
        (
            ".github/workflows/infra.yml",
            workflow,
            (7, 11),
            "infra/main.parameters.json",
        ),
        (
            "pipelines/infra.yml",
            pipeline,
            (2, 5),
            "$(System.DefaultWorkingDirectory)/infra/main.parameters.json",
        ),
    ] {
        let dir = case04((path, text));
        let d = dir.path();
        let json = check_clean(d);
        assert!(
            findings_with(&json, "ml/job.yml", "AML203").is_empty(),
            "{path}: {json}"
        );
        let retired = findings_with(&json, path, "AML505");
        assert_eq!(retired.len(), 1, "{path}: {json}");
        let range = &retired[0]["range"]["start"];
        assert_eq!(
            (range["line"].as_u64().unwrap(), range["column"].as_u64().unwrap()),
            at,
            "{path}: {json}"
        );
        assert_eq!(focused(text, retired[0]), focus, "{path}");
        let inv = inventory(d);
        let defs = defs_in(&inv, path);
        assert_eq!(defs.len(), 1, "{path}: {defs:?}");
        assert_eq!(
            (defs[0].0.as_str(), defs[0].1.as_str()),
            ("gpu-cluster", "Standard_NC6")
        );
        assert!(
            defs[0].2.contains(
                "deploys the template `infra/main.bicep`, which defines the compute at infra/main.bicep:9"
            ),
            "{defs:?}"
        );
        assert!(
            defs[0]
                .2
                .contains("`vmSize` is set by infra/main.parameters.json"),
            "{defs:?}"
        );
        // The template's own definition stays (its name what the deployment sets, its
        // size the default): it reports what it leaves out, not the deployed size.
        assert!(findings_with(&json, "infra/main.bicep", "AML505").is_empty());
        assert_eq!(placed(&json, "AML704", "infra/main.bicep"), [(11, 9)], "{json}");
    }
}

/// A value the command line gives after the file wins; a `.bicepparam` file passed deploys
/// its template itself (no second definition at the command); a parameters file amlint
/// cannot read is said, the template's defaults then being the values.
#[test]
fn later_values_bicepparam_files_and_unread_files() {
    let script = "#!/bin/bash\naz deployment group create -g rg -f infra/main.bicep \\\n  -p @infra/main.parameters.json vmSize=Standard_NC24rs_v3\naz deployment group create -g rg -f infra/main.bicep -p infra/prod.bicepparam\naz deployment group create -g rg -f infra/main.bicep -p @infra/missing.json clusterName=other\n";
    let dir = case04(("deploy.sh", script));
    let d = dir.path();
    write(
        d,
        "infra/prod.bicepparam",
        "using 'main.bicep'\nparam workspaceName = 'ws'\nparam clusterName = 'gpu-prod'\nparam vmSize = 'Standard_NC12'\n",
    );
    let json = check_clean(d);
    assert!(findings_with(&json, "ml/job.yml", "AML203").is_empty(), "{json}");
    let inv = inventory(d);
    let defs = defs_in(&inv, "deploy.sh");
    let got: Vec<(&str, &str)> = defs.iter().map(|(n, s, _)| (n.as_str(), s.as_str())).collect();
    assert_eq!(
        got,
        [
            ("gpu-cluster", "Standard_NC24rs_v3"),
            ("other", "Standard_DS3_v2")
        ],
        "{defs:?}"
    );
    assert!(
        defs[1]
            .2
            .contains("the deployment passes `@infra/missing.json`, which amlint did not read"),
        "{defs:?}"
    );
    // The `.bicepparam` file deploys its template itself (beside it: the template's own
    // values): the command adds no definition of its own, and the retired NC12 is
    // reported once, in the template.
    assert_eq!(placed(&json, "AML505", "infra/main.bicep"), [(16, 15)], "{json}");
}

/// Case 07's Bicep: the cluster and the compute attaching it.
const PRIVATE_AKS: &str = "param aksClusterName string = 'aks1'
param location string = 'eastus'
param workspaceName string = 'ws'
param computeName string = 'aks-compute'
param vmSizeParam string = 'Standard_NC6'

resource aksCluster 'Microsoft.ContainerService/managedClusters@2020-07-01' = {
  name: aksClusterName
  location: location
  properties: {
    dnsPrefix: '${aksClusterName}-dns'
    agentPoolProfiles: [
      {
        name: 'agentpool'
        count: 3
        vmSize: vmSizeParam
        mode: 'System'
      }
    ]
  }
}

resource workspaceName_computeName 'Microsoft.MachineLearningServices/workspaces/computes@2021-01-01' = {
  name: '${workspaceName}/${computeName}'
  location: location
  properties: {
    computeType: 'AKS'
    resourceId: aksCluster.id
    properties: {
      aksNetworkingConfiguration: {
        subnetId: 'x'
      }
    }
  }
}
";

/// Case 07's compiled ARM template.
const AKS_ARM: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "aksClusterName": { "type": "string", "defaultValue": "aks1" },
    "vmSizeParam": { "type": "string", "defaultValue": "Standard_NC6" }
  },
  "resources": [
    {
      "type": "Microsoft.ContainerService/managedClusters",
      "apiVersion": "2020-07-01",
      "name": "[parameters('aksClusterName')]",
      "location": "eastus",
      "properties": {
        "dnsPrefix": "aks1-dns",
        "agentPoolProfiles": [
          { "name": "agentpool", "count": 3, "vmSize": "[parameters('vmSizeParam')]", "mode": "System" }
        ]
      }
    },
    {
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "apiVersion": "2021-01-01",
      "name": "ws/aks-compute",
      "location": "eastus",
      "dependsOn": [ "[resourceId('Microsoft.ContainerService/managedClusters', parameters('aksClusterName'))]" ],
      "properties": {
        "computeType": "AKS",
        "resourceId": "[resourceId('Microsoft.ContainerService/managedClusters', parameters('aksClusterName'))]",
        "properties": { "aksNetworkingConfiguration": { "subnetId": "x" } }
      }
    }
  ]
}
"#;

/// The labels of a finding: (line, message) of each.
fn labels(f: &Value) -> Vec<(u64, String)> {
    (f["labels"].as_array().into_iter().flatten())
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap_or(0),
                l["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Case 07: the attached compute's nodes are the cluster's agent pool's: the retired
/// NC6 is reported at the compute's definition, focused on `resourceId`'s value and
/// labelled at the literal; its count read too. With the real sample's
/// `Standard_DS2_v2` × 3 (6 vCPUs), AML404 (a FastProd cluster needs 12).
#[test]
fn an_aks_compute_takes_the_agent_pool_of_the_cluster_it_attaches() {
    let dir = project();
    let d = dir.path();
    write(d, "bicep/privateaks.bicep", PRIVATE_AKS);
    write(d, "arm/azuredeploy.json", AKS_ARM);
    let json = check_clean(d);
    assert_eq!(
        placed(&json, "AML505", "bicep/privateaks.bicep"),
        [(28, 17)],
        "{json}"
    );
    assert_eq!(
        placed(&json, "AML505", "arm/azuredeploy.json"),
        [(29, 24)],
        "{json}"
    );
    let bicep = &findings_with(&json, "bicep/privateaks.bicep", "AML505")[0];
    assert_eq!(bicep["range"]["start"]["line"], 23);
    assert_eq!(focused(PRIVATE_AKS, bicep), "aksCluster.id");
    assert!(labels(bicep).iter().any(|(l, _)| *l == 5), "{bicep}");
    let arm = &findings_with(&json, "arm/azuredeploy.json", "AML505")[0];
    assert_eq!(arm["range"]["start"]["line"], 22);
    assert!(labels(arm).iter().any(|(l, _)| *l == 6), "{arm}");
    let inv = inventory(d);
    for path in ["bicep/privateaks.bicep", "arm/azuredeploy.json"] {
        let defs: Vec<Value> = every_definition(&inv)
            .into_iter()
            .filter(|x| x["path"] == path)
            .collect();
        assert_eq!(defs.len(), 1, "{path}");
        assert_eq!(
            defs[0]["settings"]["size"]["value"], "Standard_NC6",
            "{path}: {}",
            defs[0]
        );
        // (The inventory shows no node count: AML404 below reads it.)
    }
    // The real sample's default: 3 × Standard_DS2_v2 is 6 vCPUs, too few for FastProd.
    let ds2 = PRIVATE_AKS.replace("'Standard_NC6'", "'Standard_DS2_v2'");
    write(d, "bicep/privateaks.bicep", &ds2);
    write(
        d,
        "arm/azuredeploy.json",
        &AKS_ARM.replace("\"Standard_NC6\"", "\"Standard_DS2_v2\""),
    );
    let json = check_clean(d);
    assert!(findings_with(&json, "bicep/privateaks.bicep", "AML505").is_empty());
    assert_eq!(
        placed(&json, "AML404", "bicep/privateaks.bicep"),
        [(28, 17)],
        "{json}"
    );
    assert_eq!(
        placed(&json, "AML404", "arm/azuredeploy.json"),
        [(29, 24)],
        "{json}"
    );
    // Six such nodes are 12 vCPUs: the count is the pool's.
    write(d, "bicep/privateaks.bicep", &ds2.replace("count: 3", "count: 6"));
    let json = check_clean(d);
    assert!(
        findings_with(&json, "bicep/privateaks.bicep", "AML404").is_empty(),
        "{json}"
    );
}

/// A cluster the template does not define (a parameter's id, an `existing` cluster, a
/// name no cluster of the template has, a pool list that is not known): the size and
/// count are unknown, with why — never absent.
#[test]
fn a_cluster_not_defined_here_leaves_size_and_count_unknown_with_why() {
    let dir = project();
    let d = dir.path();
    let compute = |n: &str, id: &str| {
        format!(
            "resource c{n} 'Microsoft.MachineLearningServices/workspaces/computes@2021-01-01' = {{\n  name: 'ws/aks-{n}'\n  properties: {{\n    computeType: 'AKS'\n    resourceId: {id}\n  }}\n}}\n"
        )
    };
    let mut t = String::from(
        "param aksId string\nparam pools array\nresource old 'Microsoft.ContainerService/managedClusters@2023-01-01' existing = {\n  name: 'old'\n}\nresource vague 'Microsoft.ContainerService/managedClusters@2023-01-01' = {\n  name: 'vague'\n  properties: {\n    agentPoolProfiles: pools\n  }\n}\n",
    );
    for (n, id) in [
        ("1", "aksId"),
        ("2", "old.id"),
        ("3", "vague.id"),
        ("4", "nothing.id"),
    ] {
        t.push_str(&compute(n, id));
    }
    write(d, "main.bicep", &t);
    let inv = inventory(d);
    let why = |name: &str| -> String {
        let c = &crate::common::compute(&inv, name)["definitions"][0]["settings"];
        c["size"]["why"].as_str().unwrap_or("absent").to_string()
    };
    let expect = [
        (
            "aks-1",
            "`resourceId: aksId` is not the `.id` of a cluster this file declares",
        ),
        ("aks-2", "is an `existing` one, deployed elsewhere"),
        (
            "aks-3",
            "`agentPoolProfiles`) of the AKS cluster `vague` are not known",
        ),
        ("aks-4", "`nothing` is not a resource this file declares"),
    ];
    for (name, said) in expect {
        let size = why(name);
        assert!(size.contains(said), "{name}: {size}");
    }
}

/// Case 05's template: two clusters from an array parameter's default.
const COPY: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "workspaceName": { "type": "string", "defaultValue": "ws" },
    "clusters": {
      "type": "array",
      "defaultValue": [
        { "name": "cpu-cluster", "vmSize": "Standard_DS3_v2" },
        { "name": "gpu-cluster", "vmSize": "Standard_NC6" }
      ]
    }
  },
  "resources": [
    {
      "copy": { "name": "computeLoop", "count": "[length(parameters('clusters'))]" },
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "apiVersion": "2023-04-01",
      "name": "[concat(parameters('workspaceName'), '/', parameters('clusters')[copyIndex()].name)]",
      "location": "westeurope",
      "properties": {
        "computeType": "AmlCompute",
        "properties": {
          "vmSize": "[parameters('clusters')[copyIndex()].vmSize]",
          "scaleSettings": { "minNodeCount": 0, "maxNodeCount": 2 }
        }
      }
    }
  ]
}
"#;

/// Case 05: one definition per index, each with its item's name and size; the retired
/// NC6 of the second reported at the resource's `type` line, focused on the size.
#[test]
fn an_arm_copy_loop_over_a_known_count_is_one_definition_per_index() {
    let dir = project();
    let d = dir.path();
    write(d, "azuredeploy.json", COPY);
    write(d, "ml/job.yml", JOB);
    let json = check_clean(d);
    assert!(findings_with(&json, "ml/job.yml", "AML203").is_empty(), "{json}");
    assert_eq!(placed(&json, "AML505", "azuredeploy.json"), [(24, 22)], "{json}");
    let f = &findings_with(&json, "azuredeploy.json", "AML505")[0];
    assert_eq!(f["range"]["start"]["line"], 17);
    assert_eq!(focused(COPY, f), "[parameters('clusters')[copyIndex()].vmSize]");
    let inv = inventory(d);
    let defs = defs_in(&inv, "azuredeploy.json");
    let got: Vec<(&str, &str)> = defs.iter().map(|(n, s, _)| (n.as_str(), s.as_str())).collect();
    assert_eq!(
        got,
        [
            ("cpu-cluster", "Standard_DS3_v2"),
            ("gpu-cluster", "Standard_NC6")
        ]
    );
    assert!(
        defs[1]
            .2
            .contains("in the copy loop `computeLoop`, `copyIndex()` = 1"),
        "{defs:?}"
    );
    // `copyIndex(1)` is offset; a loop named otherwise (a property loop's) is not this one.
    let offset = COPY
        .replace("[copyIndex()].name", "[copyIndex(1)].name")
        .replace("[copyIndex()].vmSize", "[copyIndex('other')].vmSize")
        .replace("\"[length(parameters('clusters'))]\"", "1");
    write(d, "azuredeploy.json", &offset);
    let defs = defs_in(&inventory(d), "azuredeploy.json");
    assert_eq!(defs.len(), 1, "{defs:?}");
    assert_eq!(defs[0].0, "gpu-cluster");
    assert!(
        defs[0]
            .1
            .contains("`copyIndex('other')` is the index of a copy loop amlint does not expand"),
        "{defs:?}"
    );
}

/// A count not known (a parameter without a default), 0, or beyond the bound: one
/// definition, its index unknown, noted why.
#[test]
fn a_copy_loop_not_expanded_says_why() {
    let dir = project();
    let d = dir.path();
    for (count, why) in [
        (
            "\"[parameters('n')]\"",
            "not expanded: its count is not known: `parameters('n')` has no default value",
        ),
        ("0", "not expanded: its count is 0"),
        ("100000", "not expanded: its count, 100000, is more than 256"),
    ] {
        let t = COPY
            .replace(
                "\"workspaceName\": {",
                "\"n\": { \"type\": \"int\" },\n    \"workspaceName\": {",
            )
            .replace("\"[length(parameters('clusters'))]\"", count);
        write(d, "azuredeploy.json", &t);
        let defs = defs_in(&inventory(d), "azuredeploy.json");
        assert_eq!(defs.len(), 1, "{count}: {defs:?}");
        assert!(defs[0].2.contains(why), "{count}: {defs:?}");
        assert!(
            defs[0].1.contains("`copyIndex()` is the copy loop's index"),
            "{count}: {defs:?}"
        );
    }
}

/// Hostile input: many copy loops at the bound, a `resourceId(` nested thousands deep and
/// one unterminated, a Bicep `resourceId` chain of thousands of members, and a script of
/// many deployments of a Bicep template: all read, bounded.
#[test]
fn hostile_copy_loops_resource_ids_and_deployments_stay_bounded() {
    let dir = project();
    let d = dir.path();
    let mut resources = Vec::new();
    for i in 0..40 {
        resources.push(format!(
            "{{ \"copy\": {{ \"name\": \"l{i}\", \"count\": 256 }}, \"type\": \"Microsoft.MachineLearningServices/workspaces/computes\", \"name\": \"[concat('ws/c{i}-', copyIndex())]\", \"properties\": {{ \"computeType\": \"AmlCompute\", \"properties\": {{ \"vmSize\": \"Standard_DS3_v2\" }} }} }}"
        ));
    }
    let deep = format!("[{}'x'{}]", "resourceId(".repeat(5_000), ")".repeat(5_000));
    for id in [
        deep.as_str(),
        "[resourceId('Microsoft.ContainerService/managedClusters', 'unterminated)]",
    ] {
        resources.push(format!(
            "{{ \"type\": \"Microsoft.MachineLearningServices/workspaces/computes\", \"name\": \"ws/aks\", \"properties\": {{ \"computeType\": \"AKS\", \"resourceId\": \"{id}\" }} }}"
        ));
    }
    write(
        d,
        "arm/many.json",
        &format!(
            "{{\"contentVersion\": \"1.0.0.0\", \"resources\": [{}]}}",
            resources.join(",\n")
        ),
    );
    let chain = format!(
        "resource c 'Microsoft.MachineLearningServices/workspaces/computes@2021-01-01' = {{\n  name: 'ws/aks'\n  properties: {{\n    computeType: 'AKS'\n    resourceId: a{}.id\n  }}\n}}\n",
        ".b".repeat(20_000)
    );
    write(d, "bicep/chain.bicep", &chain);
    write(d, "infra/main.bicep", MAIN_BICEP);
    write(d, "infra/main.parameters.json", PARAMS);
    let script: String = (0..300)
        .map(|_| "az deployment group create -f infra/main.bicep -p @infra/main.parameters.json\n")
        .collect();
    write(d, "deploy.sh", &script);
    let json = check_clean(d);
    assert!(json["diagnostics"].is_array());
    let inv = inventory(d);
    let all = every_definition(&inv);
    let in_path = |p: &str| all.iter().filter(|x| x["path"] == p).count();
    assert_eq!(in_path("arm/many.json"), 40 * 256 + 2);
    assert_eq!(in_path("deploy.sh"), 300);
    assert_eq!(in_path("bicep/chain.bicep"), 1);
}

/// Case 04, azd: an `azure.yaml` whose infrastructure is `infra/main.bicep` (azd's
/// defaults, or `infra.path`/`infra.module` naming it) makes `infra/main.parameters.json`
/// the template's values, as `azd provision` passes them; a `${AZURE_ENV_NAME}` azd fills
/// from the environment is unknown, saying so. Without `azure.yaml`, the file is not read.
#[test]
fn an_azd_project_passes_its_parameters_file_to_its_bicep_template() {
    let azd_params = PARAMS.replace("\"ws\"", "\"${AZURE_ENV_NAME}-ws\"");
    for (azure_yaml, template) in [
        (Some("name: app\n"), "infra/main.bicep"),
        (
            Some("name: app\ninfra:\n  provider: bicep\n  path: deploy\n  module: compute\n"),
            "deploy/compute.bicep",
        ),
        (None, "infra/main.bicep"),
        (
            Some("name: app\ninfra:\n  provider: terraform\n"),
            "infra/main.bicep",
        ),
    ] {
        let dir = project();
        let d = dir.path();
        write(d, template, MAIN_BICEP);
        let params = template.replace(".bicep", ".parameters.json");
        write(d, &params, &azd_params);
        write(d, "ml/job.yml", JOB);
        if let Some(y) = azure_yaml {
            write(d, "azure.yaml", y);
        }
        let read = azure_yaml.is_some_and(|y| !y.contains("terraform"));
        let json = check_clean(d);
        assert_eq!(
            findings_with(&json, "ml/job.yml", "AML203").is_empty(),
            read,
            "{azure_yaml:?}: {json}"
        );
        let defs = defs_in(&inventory(d), template);
        assert_eq!(defs.len(), 1, "{defs:?}");
        if read {
            assert_eq!(
                (defs[0].0.as_str(), defs[0].1.as_str()),
                ("gpu-cluster", "Standard_NC6")
            );
            assert!(
                defs[0]
                    .2
                    .contains(&format!("`vmSize` is set by {params}, which azd passes")),
                "{defs:?}"
            );
            // The retired size at the template's `vmSize: vmSize`, line 16.
            assert_eq!(placed(&json, "AML505", template), [(16, 15)], "{json}");
        } else {
            assert_eq!((defs[0].0.as_str(), defs[0].1.as_str()), ("?", "Standard_DS3_v2"));
        }
    }
    // A name azd fills from the environment is not known, and says so.
    let dir = project();
    let d = dir.path();
    write(d, "azure.yaml", "name: app\n");
    write(d, "infra/main.bicep", MAIN_BICEP);
    write(
        d,
        "infra/main.parameters.json",
        &PARAMS.replace("\"gpu-cluster\"", "\"${AZURE_ENV_NAME}-gpu\""),
    );
    let all = every_definition(&inventory(d));
    let why = all[0]["name"]["why"].as_str().unwrap_or_default();
    assert_eq!(
        why,
        "`clusterName` is `${AZURE_ENV_NAME}-gpu` in infra/main.parameters.json, which azd fills from the environment when it provisions",
        "{all:?}"
    );
}

/// Case 11: a variable imported from another Bicep file (`import { gpuCluster } from
/// 'config.bicep'` of an `@export() var`) is that file's value, noted; one amlint cannot
/// read says it is imported (not "not declared"). An import cycle stays bounded.
#[test]
fn an_imported_variable_is_the_exporting_files_value() {
    let main = "import { gpuCluster, other as renamed } from 'config.bicep'
import * as shared from 'shared.bicep'

resource ws 'Microsoft.MachineLearningServices/workspaces@2023-04-01' existing = {
  name: 'ws'
}

resource gpu 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {
  parent: ws
  name: gpuCluster.name
  location: renamed
  properties: {
    computeType: 'AmlCompute'
    properties: {
      vmSize: gpuCluster.vmSize
      scaleSettings: { minNodeCount: 0, maxNodeCount: shared.max }
    }
  }
}
";
    let config = "import { loop } from 'main.bicep'\n@export()\nvar gpuCluster = {\n  name: 'gpu-cluster'\n  vmSize: 'Standard_NC6'\n}\n@export()\nvar other = 'westeurope'\n@export()\nvar cycle = loop\n";
    let dir = project();
    let d = dir.path();
    write(d, "infra/main.bicep", main);
    write(d, "infra/config.bicep", config);
    write(d, "ml/job.yml", JOB);
    let json = check_clean(d);
    assert!(findings_with(&json, "ml/job.yml", "AML203").is_empty(), "{json}");
    assert_eq!(placed(&json, "AML505", "infra/main.bicep"), [(15, 15)], "{json}");
    let f = &findings_with(&json, "infra/main.bicep", "AML505")[0];
    assert_eq!(f["range"]["start"]["line"], 8);
    let inv = inventory(d);
    let all = every_definition(&inv);
    let gpu = all.iter().find(|x| x["path"] == "infra/main.bicep").unwrap();
    let max = &gpu["settings"]["max_instances"];
    assert_eq!(
        max["why"], "`shared` is imported from `shared.bicep`, as a namespace, which amlint does not read",
        "{gpu}"
    );
    // A file amlint cannot read: the reason says where the name comes from.
    write(
        d,
        "infra/main.bicep",
        &main.replace("'config.bicep'", "'missing.bicep'"),
    );
    let inv = inventory(d);
    let all = every_definition(&inv);
    let gpu = all.iter().find(|x| x["path"] == "infra/main.bicep").unwrap();
    assert!(
        gpu["name"]["why"]
            .as_str()
            .unwrap_or_default()
            .starts_with("`gpuCluster` is imported from `missing.bicep`, which amlint cannot read"),
        "{gpu}"
    );
    // A cycle of imports (`config.bicep` imports `loop` from `main.bicep`, which imports
    // `cycle` from it) is bounded.
    write(
        d,
        "infra/main.bicep",
        &format!(
            "import {{ cycle }} from 'config.bicep'\n@export()\nvar loop = cycle\n{}",
            main.replace("gpuCluster.name", "cycle")
        ),
    );
    let inv = inventory(d);
    let all = every_definition(&inv);
    assert!(all.iter().any(|x| x["path"] == "infra/main.bicep"), "{all:?}");
}
