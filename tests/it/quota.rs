//! Quota pre-flight and cost against the workspace snapshot (`[workspace]`,
//! docs/configuration.md): projects with snapshots in the exact formats of
//! `az ml compute list -o json`, `az ml compute list-usage -o json` and the REST API, the
//! findings' lines and numbers (AML506, AML507, AML204), no finding without a snapshot,
//! malformed and hostile snapshots (exit 2 naming the command), and the cost figures of
//! AML601, AML604 and `--statistics` against a hand computation.

use std::path::Path;

use serde_json::Value;

use crate::common::{amlint, json_check, project, write};

/// A usage list as `az ml compute list-usage --location eastus -o json` prints it (the
/// azure-ai-ml `Usage` entity dumped: snake_case keys), one entry per (name, current, limit).
fn cli_usage(lines: &[(&str, i64, i64)]) -> String {
    let items: Vec<String> = lines
        .iter()
        .map(|(name, current, limit)| {
            let kind = if name.starts_with("Total Cluster Dedicated") {
                "dedicatedCores"
            } else if name.starts_with("Total Cluster Low") {
                "lowPriorityCores"
            } else {
                "vmFamily"
            };
            format!(
                r#"  {{
    "aml_workspace_location": "eastus",
    "current_value": {current},
    "id": "/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.MachineLearningServices/locations/eastus/usages/{id}",
    "limit": {limit},
    "name": {{
      "localized_value": "{name}",
      "value": "{name}"
    }},
    "type": "Microsoft.MachineLearningServices/{kind}/usages",
    "unit": "Count"
  }}"#,
                id = name.replace(' ', "_")
            )
        })
        .collect();
    format!("[\n{}\n]\n", items.join(",\n"))
}

const DSV2: &str = "Standard DSv2 Family Cluster Dedicated vCPUs";
const DSV2_LOW: &str = "Standard DSv2 Family Cluster LowPriority vCPUs";
const REGIONAL: &str = "Total Cluster Dedicated Regional vCPUs";
const REGIONAL_LOW: &str = "Total Cluster LowPriority Regional vCPUs";

fn cluster(name: &str, size: &str, extra: &str) -> String {
    format!(
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: {name}\ntype: amlcompute\nsize: {size}\n{extra}"
    )
}

/// Writes the configuration and a usage snapshot of eastus with these lines.
fn snapshot(root: &Path, lines: &[(&str, i64, i64)]) {
    write(root, "amlint.toml", CONFIG);
    write(root, "azure/usage-eastus.json", &cli_usage(lines));
}

/// Writes a cluster file.
fn put(root: &Path, file: &str, name: &str, size: &str, extra: &str) {
    write(root, file, &cluster(name, size, extra));
}

const CONFIG: &str = "[workspace]\nlocation = \"eastus\"\nusage = \"azure/usage-eastus.json\"\n";

/// `(path, line, code, severity, message)` of a finding.
type Finding = (String, u64, String, String, String);

/// Every finding, and the exit code.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<Finding>) {
    let (code, json) = json_check(dir, args);
    let list = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (code, list)
}

fn of<'a>(list: &'a [Finding], code: &str) -> Vec<&'a Finding> {
    list.iter().filter(|f| f.2 == code).collect()
}

#[test]
fn a_cluster_past_its_family_quota_is_reported_at_max_instances_with_the_numbers() {
    let dir = project();
    let root = dir.path();
    snapshot(root, &[(DSV2, 14, 24), (REGIONAL, 14, 100), ("Clusters", 3, 200)]);
    put(
        root,
        "ml/cpu.yml",
        "cpu-cluster",
        "Standard_DS3_v2",
        "min_instances: 0\nmax_instances: 4\n",
    );
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 1, "{list:#?}");
    let (path, line, _, severity, message) = found[0];
    assert_eq!(
        (path.as_str(), *line, severity.as_str()),
        ("ml/cpu.yml", 6, "warning")
    );
    assert_eq!(
        message,
        "`max_instances: 4` × 4 vCPUs (Standard_DS3_v2) = 16 vCPUs, more than the 10 left of `Standard DSv2 Family Cluster Dedicated vCPUs` in eastus (limit 24, 14 in use; azure/usage-eastus.json)"
    );
    // Two nodes fit: 8 ≤ 10.
    put(
        root,
        "ml/cpu.yml",
        "cpu-cluster",
        "Standard_DS3_v2",
        "min_instances: 0\nmax_instances: 2\n",
    );
    let (_, list) = run(root, &[]);
    assert!(of(&list, "AML506").is_empty(), "{list:#?}");
    // Exactly what is left fits: 2 × 4 = 8 with 8 left.
    write(
        root,
        "azure/usage-eastus.json",
        &cli_usage(&[(DSV2, 16, 24), (REGIONAL, 14, 100)]),
    );
    let (_, list) = run(root, &[]);
    assert!(of(&list, "AML506").is_empty(), "{list:#?}");
    put(
        root,
        "ml/cpu.yml",
        "cpu-cluster",
        "Standard_DS3_v2",
        "max_instances: 3\n",
    );
    let (_, list) = run(root, &[]);
    assert_eq!(of(&list, "AML506").len(), 1, "{list:#?}");
}

#[test]
fn without_a_snapshot_there_is_no_quota_finding() {
    let dir = project();
    let root = dir.path();
    let big = cluster("cpu-cluster", "Standard_DS3_v2", "max_instances: 400\n");
    write(root, "cpu.yml", &big);
    write(root, "amlint.toml", "profile = \"production\"\n");
    let (_, list) = run(root, &[]);
    assert!(
        list.iter()
            .all(|f| !["AML506", "AML507", "AML204"].contains(&f.2.as_str())),
        "{list:#?}"
    );
    // A `[workspace]` with a location but no usage file checks nothing either.
    write(root, "amlint.toml", "[workspace]\nlocation = \"eastus\"\n");
    let (_, list) = run(root, &[]);
    assert!(
        list.iter()
            .all(|f| !["AML506", "AML507", "AML204"].contains(&f.2.as_str())),
        "{list:#?}"
    );
    // Nor a usage file of another region.
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"westus\"\nusage = { eastus = \"usage.json\" }\n",
    );
    write(root, "usage.json", &cli_usage(&[(DSV2, 0, 8)]));
    let (_, list) = run(root, &[]);
    assert!(of(&list, "AML506").is_empty(), "{list:#?}");
}

#[test]
fn the_rest_api_forms_are_read_too() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"East US\"\nusage = \"usage.json\"\ncomputes = \"computes.json\"\n",
    );
    // The Machine Learning REST API's "Usages - List" response: camelCase, the workspace's
    // and compute's shares of a line listed beside the subscription's.
    write(
        root,
        "usage.json",
        r#"{"value": [
  {"id": "/subscriptions/0/usages", "type": "Microsoft.MachineLearningServices/totalCores/usages", "currentValue": 7, "limit": 100, "name": {"localizedValue": "Clusters", "value": "Clusters"}, "unit": "Count"},
  {"id": "/subscriptions/0/usages", "type": "Microsoft.MachineLearningServices/dedicatedCores/usages", "currentValue": 4, "limit": 24, "name": {"localizedValue": "Total Cluster Dedicated Regional vCPUs", "value": "Total Cluster Dedicated Regional vCPUs"}, "unit": "Count"},
  {"id": "/subscriptions/0/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/w/usages/Standard_NC_Family_Cluster_Dedicated_vCPUs", "type": "Microsoft.MachineLearningServices/workspaces/usages", "currentValue": 0, "limit": 1000, "name": {"localizedValue": "Standard NCSv3 Family Cluster Dedicated vCPUs", "value": "Standard NCSv3 Family Cluster Dedicated vCPUs"}, "unit": "Count"},
  {"id": "/subscriptions/0/usages/Standard_NCSv3_Family_Cluster_Dedicated_vCPUs", "type": "Microsoft.MachineLearningServices/vmFamily/usages", "currentValue": 0, "limit": 0, "name": {"localizedValue": "Standard NCSv3 Family Cluster Dedicated vCPUs", "value": "Standard NCSv3 Family Cluster Dedicated vCPUs"}, "unit": "Count"}
], "nextLink": null}"#,
    );
    // "Compute - List": the cluster a job uses exists, with its size.
    write(
        root,
        "computes.json",
        r#"{"value": [{"id": "/subscriptions/0/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/w/computes/gpu", "type": "Microsoft.MachineLearningServices/workspaces/computes", "name": "gpu", "location": "eastus", "properties": {"computeType": "AmlCompute", "provisioningState": "Succeeded", "properties": {"vmSize": "STANDARD_NC6S_V3", "vmPriority": "Dedicated", "scaleSettings": {"maxNodeCount": 2, "minNodeCount": 0, "nodeIdleTimeBeforeScaleDown": "PT2M"}}}}]}"#,
    );
    put(root, "gpu.yml", "gpu", "Standard_NC6s_v3", "max_instances: 2\n");
    // A job on it: the snapshot resolves the reference (no AML203), and its GPU is known.
    write(
        root,
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:pytorch:1\ncompute: azureml:gpu\n",
    );
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 1, "{list:#?}");
    assert_eq!((found[0].0.as_str(), found[0].1), ("gpu.yml", 5));
    assert!(
        found[0].4.contains("= 12 vCPUs, more than the 0 left of `Standard NCSv3 Family Cluster Dedicated vCPUs` in eastus (limit 0, 0 in use; usage.json)"),
        "{}",
        found[0].4
    );
    assert!(
        of(&list, "AML203").is_empty() && of(&list, "AML204").is_empty(),
        "{list:#?}"
    );
}

#[test]
fn low_priority_clusters_count_against_the_low_priority_lines_and_regional_totals() {
    let dir = project();
    let root = dir.path();
    snapshot(
        root,
        &[
            (DSV2, 0, 4),
            (DSV2_LOW, 0, -1),
            (REGIONAL, 0, 100),
            (REGIONAL_LOW, 10, 20),
        ],
    );
    // Low priority: the family line has no limit (-1); the regional total has 10 left.
    put(
        root,
        "low.yml",
        "low",
        "STANDARD_DS3_V2",
        "tier: low_priority\nmax_instances: 3\n",
    );
    // Dedicated, 2 × 4 = 8 > the family's 4 left, well within the regional 100.
    put(
        root,
        "dedicated.yml",
        "dedicated",
        "standard_ds3_v2",
        "max_instances: 2\n",
    );
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 2, "{list:#?}");
    assert_eq!(found[0].0, "dedicated.yml");
    assert!(
        found[0]
            .4
            .contains("more than the 4 left of `Standard DSv2 Family Cluster Dedicated vCPUs`")
    );
    assert_eq!(found[1].0, "low.yml");
    assert_eq!(
        found[1].4,
        "`max_instances: 3` × 4 vCPUs (STANDARD_DS3_V2) = 12 vCPUs, more than the 10 left of `Total Cluster LowPriority Regional vCPUs` in eastus (limit 20, 10 in use; azure/usage-eastus.json)"
    );
}

#[test]
fn each_exceeded_line_is_one_finding_and_production_makes_them_errors() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "amlint.toml",
        &format!("profile = \"production\"\n{CONFIG}"),
    );
    write(
        root,
        "azure/usage-eastus.json",
        &cli_usage(&[(DSV2, 0, 24), (REGIONAL, 20, 30)]),
    );
    put(root, "cpu.yml", "cpu", "Standard_DS4_v2", "max_instances: 4\n");
    let (code, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 2, "{list:#?}");
    assert!(found.iter().all(|f| f.3 == "error" && f.1 == 5));
    assert!(
        found
            .iter()
            .any(|f| f.4.contains("32 vCPUs, more than the 24 left of `Standard DSv2"))
    );
    assert!(found.iter().any(|f| {
        f.4.contains("32 vCPUs, more than the 10 left of `Total Cluster Dedicated Regional vCPUs`")
    }));
    assert_eq!(code, Some(1));
}

#[test]
fn instances_and_managed_deployments_are_checked_too() {
    let dir = project();
    let root = dir.path();
    snapshot(
        root,
        &[
            ("Standard NCASv3_T4 Family Cluster Dedicated vCPUs", 0, 4),
            (DSV2, 0, 10),
        ],
    );
    write(
        root,
        "instance.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/computeInstance.schema.json\nname: ci\ntype: computeinstance\nsize: Standard_NC8as_T4_v3\nidle_time_before_shutdown_minutes: 30\n",
    );
    write(
        root,
        "blue.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\nname: blue\nendpoint_name: credit\nmodel: azureml:credit:3\ninstance_type: Standard_DS3_v2\ninstance_count: 3\n",
    );
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 2, "{list:#?}");
    assert_eq!((found[0].0.as_str(), found[0].1), ("blue.yml", 6));
    assert!(
        found[0]
            .4
            .starts_with("`instance_count: 3` × 4 vCPUs (Standard_DS3_v2) = 12 vCPUs, more than the 10 left"),
        "{}",
        found[0].4
    );
    assert_eq!((found[1].0.as_str(), found[1].1), ("instance.yml", 4));
    assert!(found[1].4.starts_with("one compute instance × 8 vCPUs (Standard_NC8as_T4_v3) = 8 vCPUs, more than the 4 left of `Standard NCASv3_T4 Family Cluster Dedicated vCPUs`"), "{}", found[1].4);
}

#[test]
fn clusters_of_one_family_together_past_its_limit_are_each_reported_naming_the_others() {
    let dir = project();
    let root = dir.path();
    snapshot(root, &[(DSV2, 2, 14)]);
    put(root, "a.yml", "train-a", "Standard_DS3_v2", "max_instances: 2\n");
    put(root, "b.yml", "train-b", "Standard_DS4_v2", "max_instances: 1\n");
    // Another family: not counted.
    put(root, "c.yml", "train-c", "Standard_F4s_v2", "max_instances: 8\n");
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML507");
    assert_eq!(found.len(), 2, "{list:#?}");
    assert_eq!((found[0].0.as_str(), found[0].1), ("a.yml", 5));
    assert_eq!(
        found[0].4,
        "`train-a` (`max_instances: 2` × 4 vCPUs = 8) and `train-b` (1 × 8 = 8 vCPUs, b.yml) share `Standard DSv2 Family Cluster Dedicated vCPUs`: together they can scale to 16 vCPUs, more than the 12 left in eastus (limit 14, 2 in use; azure/usage-eastus.json)"
    );
    assert_eq!((found[1].0.as_str(), found[1].1), ("b.yml", 5));
    assert!(
        found[1]
            .4
            .contains("and `train-a` (2 × 4 = 8 vCPUs, a.yml) share"),
        "{}",
        found[1].4
    );
    assert!(of(&list, "AML506").is_empty(), "{list:#?}");
    // Checking one file alone (pre-commit) reports what the whole run reports for it.
    let (_, one) = run(root, &["b.yml"]);
    assert_eq!(of(&one, "AML507"), vec![found[1]]);
}

/// A pre-commit run of one cluster finds the others of the project wherever they are
/// defined: a Terraform resource does not spell `amlcompute`, and was not searched.
#[test]
fn a_partial_run_counts_the_clusters_terraform_defines() {
    let dir = project();
    let root = dir.path();
    snapshot(root, &[(DSV2, 2, 14)]);
    put(root, "a.yml", "train-a", "Standard_DS3_v2", "max_instances: 2\n");
    write(
        root,
        "infra/main.tf",
        "resource \"azurerm_machine_learning_compute_cluster\" \"b\" {\n  name    = \"train-tf\"\n  vm_size = \"Standard_DS4_v2\"\n  scale_settings {\n    min_node_count = 0\n    max_node_count = 1\n  }\n}\n",
    );
    let (_, whole) = run(root, &[]);
    let (_, one) = run(root, &["a.yml"]);
    let in_a = |list: &[Finding]| -> Vec<Finding> {
        of(list, "AML507")
            .into_iter()
            .filter(|f| f.0 == "a.yml")
            .cloned()
            .collect()
    };
    assert_eq!(in_a(&whole).len(), 1, "{whole:#?}");
    assert!(in_a(&whole)[0].4.contains("`train-tf`"), "{whole:#?}");
    assert_eq!(
        in_a(&one),
        in_a(&whole),
        "the one-file run reports what the whole run does"
    );
}

#[test]
fn a_compute_the_snapshot_does_not_know_is_reported_once_per_name() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "amlint.toml",
        "[workspace]\ncomputes = \"azure/computes.json\"\n\n[[inventory.computes]]\nname = \"old-cluster\"\ntype = \"amlcompute\"\n",
    );
    write(
        root,
        "azure/computes.json",
        r#"[
  {"id": "/subscriptions/0/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/ws/computes/cpu", "location": "eastus", "max_instances": 4, "min_instances": 0, "name": "cpu", "provisioning_state": "Succeeded", "size": "STANDARD_DS3_V2", "tier": "dedicated", "type": "amlcompute"},
  {"id": "/subscriptions/0/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/ws/computes/aks1", "location": "eastus", "name": "aks1", "provisioning_state": "Succeeded", "resource_id": "/subscriptions/0/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/aks1", "type": "*** unsupported compute type ***"},
  {"id": "x", "name": "lake", "type": "datalake-of-the-future"}
]"#,
    );
    put(
        root,
        "new.yml",
        "new-cluster",
        "Standard_DS3_v2",
        "max_instances: 1\n",
    );
    let job = |compute: &str| {
        format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python x.py\nenvironment: azureml:e:1\ncompute: {compute}\n"
        )
    };
    write(root, "on-new.yml", &job("azureml:new-cluster"));
    write(root, "on-old.yml", &job("azureml:old-cluster"));
    write(root, "on-cpu.yml", &job("azureml:cpu"));
    write(root, "on-lake.yml", &job("azureml:lake"));
    write(
        root,
        "pipeline.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\nsettings:\n  default_compute: azureml:old-cluster\njobs:\n  a:\n    type: command\n    command: echo\n    environment: azureml:e:1\n    compute: azureml:old-cluster\n",
    );
    let (_, list) = run(root, &[]);
    let found: Vec<(&str, u64)> = of(&list, "AML204").iter().map(|f| (f.0.as_str(), f.1)).collect();
    assert_eq!(
        found,
        [("new.yml", 2), ("on-old.yml", 4), ("pipeline.yml", 4)],
        "{list:#?}"
    );
    assert!(of(&list, "AML204").iter().all(|f| f.3 == "info"));
    // The snapshot's computes resolve references: no AML203 for `cpu` or the unknown type.
    assert!(of(&list, "AML203").is_empty(), "{list:#?}");
}

/// A run that must stop with exit 2, its configuration error saying (message and help,
/// from the JSON output: the human one wraps lines) which command makes the file.
fn refused(root: &Path, says: &[&str]) {
    let out = amlint(root)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = json["configuration_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let field = |k: &str| e[k].as_str().unwrap_or("").to_string();
            format!("{} | {} | {}", field("path"), field("message"), field("help"))
        })
        .collect();
    let text = errors.join("\n");
    for s in says {
        assert!(text.contains(s), "{s:?} not in {text}");
    }
}

#[test]
fn a_malformed_snapshot_is_a_configuration_error_naming_the_command() {
    let dir = project();
    let root = dir.path();
    put(root, "cpu.yml", "cpu", "Standard_DS3_v2", "max_instances: 1\n");
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"eastus\"\nusage = \"usage.json\"\ncomputes = \"computes.json\"\nprices = \"prices.json\"\n",
    );
    write(root, "computes.json", "[]");
    write(root, "prices.json", "{\"Items\": []}");
    let usage_cmd = "az ml compute list-usage --location eastus -o json";
    for (text, says) in [
        ("", "it is empty"),
        ("not json", "usage.json"),
        ("{\"value\": 3}", "its `value` is the number 3"),
        (&cli_usage(&[(DSV2, 0, -5)]), "`limit` is the number -5"),
        (
            &cli_usage(&[(DSV2, 0, 24)]).replace("\"limit\": 24,", ""),
            "has no `limit`",
        ),
        (
            &cli_usage(&[(DSV2, 0, 24)]).replace("\"limit\": 24", "\"limit\": \"24\""),
            "`limit` is the string \"24\"",
        ),
        (
            &cli_usage(&[(DSV2, 0, 24)]).replace("\"current_value\": 0", "\"current_value\": [0]"),
            "`current_value` is a list",
        ),
        (&format!("{}{}", "[".repeat(200), "]".repeat(200)), "nest"),
        (
            "[{\"name\": {\"value\": 7}, \"limit\": 1}]",
            "`value` is the number 7",
        ),
        (
            "[{\"currentValue\": 4, \"limit\": 10, \"name\": {\"localizedValue\": \"Standard DSv2 Family vCPUs\", \"value\": \"standardDSv2Family\"}}]",
            "`az vm list-usage`",
        ),
    ] {
        write(root, "usage.json", text);
        refused(root, &[usage_cmd, "usage.json", says]);
    }
    write(root, "usage.json", &cli_usage(&[(DSV2, 0, 24)]));
    for (text, says) in [
        ("{\"computes\": []}", "without `value`"),
        (
            "[{\"name\": \"a\", \"type\": \"amlcompute\", \"max_instances\": \"four\"}]",
            "`max_instances` is the string \"four\"",
        ),
        (
            "[{\"name\": \"a\", \"type\": \"amlcompute\", \"tier\": \"cheap\"}]",
            "neither `dedicated` nor `low_priority`",
        ),
        ("[{\"name\": \"a\", \"type\": 3}]", "`type` is the number 3"),
    ] {
        write(root, "computes.json", text);
        refused(root, &["az ml compute list -o json", "computes.json", says]);
    }
    write(root, "computes.json", "[]");
    write(
        root,
        "prices.json",
        "{\"Items\": [{\"armSkuName\": \"Standard_DS3_v2\", \"retailPrice\": \"cheap\"}]}",
    );
    refused(
        root,
        &[
            "Azure Retail Prices API",
            "prices.json",
            "invalid type: string \"cheap\"",
        ],
    );
    // A file that does not exist says how to make it.
    std::fs::remove_file(root.join("prices.json")).unwrap();
    refused(
        root,
        &[
            "`prices.json`, which `[workspace] prices` names, does not exist",
            "prices.azure.com",
        ],
    );
}

#[cfg(unix)]
#[test]
fn snapshots_are_read_only_as_regular_files_inside_the_project() {
    let dir = project();
    let root = dir.path();
    put(root, "cpu.yml", "cpu", "Standard_DS3_v2", "max_instances: 1\n");
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "secret.json",
        "[{\"name\": {\"value\": \"TOP SECRET\"}, \"limit\": 1}]",
    );
    std::os::unix::fs::symlink(outside.path().join("secret.json"), root.join("usage.json")).unwrap();
    write(root, "amlint.toml", "[workspace]\nusage = \"usage.json\"\n");
    let out = amlint(root).args(["check", "."]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("outside the project") && !stderr.contains("TOP SECRET"),
        "{stderr}"
    );
    // A named pipe is refused without being opened (opening it would wait for a writer).
    let fifo = root.join("fifo.json");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    write(root, "amlint.toml", "[workspace]\ncomputes = \"fifo.json\"\n");
    let out = amlint(root)
        .args(["check", "."])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("named pipe"));
    // /dev/zero through a link: a device, refused before reading.
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.json")).unwrap();
    write(root, "amlint.toml", "[workspace]\nprices = \"zero.json\"\n");
    let out = amlint(root)
        .args(["check", "."])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn large_snapshots_are_bounded() {
    let dir = project();
    let root = dir.path();
    put(root, "cpu.yml", "cpu", "Standard_DS3_v2", "max_instances: 1\n");
    // 9 MB of computes: over the 8 MiB bound of a snapshot, refused unread.
    let entry = "{\"name\": \"c\", \"type\": \"amlcompute\", \"size\": \"Standard_DS3_v2\"},";
    let big = format!("[{}{{}}]", entry.repeat(9_000_000 / entry.len()));
    write(root, "computes.json", &big);
    write(root, "amlint.toml", "[workspace]\ncomputes = \"computes.json\"\n");
    refused(root, &["computes.json", "MiB"]);
    // Under the size bound, over the node bound: a configuration error too, not a slow run.
    let many = format!("[{}{{}}]", entry.repeat(60_000));
    write(root, "computes.json", &many);
    refused(root, &["az ml compute list -o json", "node"]);
}

#[test]
fn sizes_and_families_amlint_does_not_know_are_not_checked() {
    let dir = project();
    let root = dir.path();
    snapshot(
        root,
        &[
            ("Standard QZv9 Family Cluster Dedicated vCPUs", 0, 0),
            (REGIONAL, 0, 1000),
        ],
    );
    // Not in the catalogue (vCPUs unknown), a series without a listed size, a size of a
    // family the usage list does not print.
    put(root, "a.yml", "a", "Standard_QZ16_v9", "max_instances: 100\n");
    put(
        root,
        "b.yml",
        "b",
        "Standard_DS3_v2_Promo",
        "max_instances: 100\n",
    );
    put(root, "c.yml", "c", "Standard_F4s_v2", "max_instances: 100\n");
    let (code, list) = run(root, &[]);
    assert_ne!(code, Some(2));
    assert!(of(&list, "AML506").is_empty(), "{list:#?}");
    // A size the configuration declares has vCPUs: the regional total applies.
    write(
        root,
        "amlint.toml",
        &format!(
            "{CONFIG}\n[[inventory.vm_sizes]]\nname = \"Standard_QZ16_v9\"\nvcpus = 16\nmemory_gib = 64\n"
        ),
    );
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 1, "{list:#?}");
    assert!(
        found[0]
            .4
            .contains("= 1600 vCPUs, more than the 1000 left of `Total Cluster Dedicated Regional vCPUs`")
    );
}

#[test]
fn usage_files_per_region() {
    let dir = project();
    let root = dir.path();
    let west = cli_usage(&[(DSV2, 0, 4)]).replace("eastus", "westus2");
    write(root, "azure/usage-eastus.json", &cli_usage(&[(DSV2, 0, 100)]));
    write(root, "azure/usage-westus2.json", &west);
    put(root, "east.yml", "east", "Standard_DS3_v2", "max_instances: 4\n");
    put(
        root,
        "west.yml",
        "west",
        "Standard_DS3_v2",
        "location: westus2\nmax_instances: 4\n",
    );
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"eastus\"\nusage = [\"azure/usage-eastus.json\", \"azure/usage-westus2.json\"]\n",
    );
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 1, "{list:#?}");
    assert_eq!(found[0].0, "west.yml");
    assert!(
        found[0]
            .4
            .contains("left of `Standard DSv2 Family Cluster Dedicated vCPUs` in westus2")
    );
    // Files that do not say their region: the name does, or a table.
    write(
        root,
        "azure/a.json",
        &cli_usage(&[(DSV2, 0, 100)])
            .replace("\"aml_workspace_location\": \"eastus\",", "")
            .replace("/locations/eastus", ""),
    );
    write(
        root,
        "azure/b.json",
        &west
            .replace("\"aml_workspace_location\": \"westus2\",", "")
            .replace("/locations/westus2", ""),
    );
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"eastus\"\nusage = [\"azure/a.json\", \"azure/b.json\"]\n",
    );
    refused(root, &["cannot tell which region `azure/a.json` is the usage of"]);
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"eastus\"\nusage = { eastus = \"azure/a.json\", westus2 = \"azure/b.json\" }\n",
    );
    let (_, again) = run(root, &[]);
    assert_eq!(of(&again, "AML506").len(), 1, "{again:#?}");
    assert_eq!(of(&again, "AML506")[0].0, "west.yml");
    // A table entry its items contradict is an error.
    write(
        root,
        "amlint.toml",
        "[workspace]\nusage = { westus2 = \"azure/usage-eastus.json\" }\n",
    );
    refused(root, &["is the usage of eastus, not of westus2"]);
}

/// A price file as the Retail Prices API returns it (one page).
fn prices() -> String {
    let item = |price: f64, sku: &str, meter: &str, product: &str, kind: &str| {
        format!(
            r#"    {{
      "currencyCode": "USD",
      "tierMinimumUnits": 0.0,
      "retailPrice": {price},
      "unitPrice": {price},
      "armRegionName": "eastus",
      "location": "US East",
      "effectiveStartDate": "2024-05-01T00:00:00Z",
      "meterId": "00000000-0000-0000-0000-000000000000",
      "meterName": "{meter}",
      "productId": "DZH318Z0BQ4L",
      "skuId": "DZH318Z0BQ4L/00D1",
      "productName": "{product}",
      "skuName": "{meter}",
      "serviceName": "Virtual Machines",
      "serviceId": "DZH313Z7MMC8",
      "serviceFamily": "Compute",
      "unitOfMeasure": "1 Hour",
      "type": "{kind}",
      "isPrimaryMeterRegion": true,
      "armSkuName": "{sku}"
    }}"#
        )
    };
    let items = [
        item(
            0.266,
            "Standard_DS3_v2",
            "DS3 v2",
            "Virtual Machines DSv2 Series",
            "Consumption",
        ),
        item(
            0.0532,
            "Standard_DS3_v2",
            "DS3 v2 Low Priority",
            "Virtual Machines DSv2 Series",
            "Consumption",
        ),
        item(
            0.53,
            "Standard_DS3_v2",
            "DS3 v2",
            "Virtual Machines DSv2 Series Windows",
            "Consumption",
        ),
        item(
            0.133,
            "Standard_DS3_v2",
            "DS3 v2",
            "Virtual Machines DSv2 Series",
            "DevTestConsumption",
        ),
        item(
            3.06,
            "Standard_NC6s_v3",
            "NC6s v3",
            "Virtual Machines NCSv3 Series",
            "Consumption",
        ),
    ];
    format!(
        "{{\n  \"BillingCurrency\": \"USD\",\n  \"CustomerEntityId\": \"Default\",\n  \"CustomerEntityType\": \"Retail\",\n  \"Items\": [\n{}\n  ],\n  \"NextPageLink\": null,\n  \"Count\": 5\n}}\n",
        items.join(",\n")
    )
}

/// `amlint check --statistics .` in `root`: what it prints.
fn statistics(root: &Path) -> String {
    let out = amlint(root)
        .args(["check", "--statistics", "."])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A project whose configuration prices its computes in East US ([`prices`]).
fn priced_project() -> tempfile::TempDir {
    let dir = project();
    write(
        dir.path(),
        "amlint.toml",
        "[workspace]\nlocation = \"eastus\"\nprices = \"azure/prices-eastus.json\"\n",
    );
    write(dir.path(), "azure/prices-eastus.json", &prices());
    dir
}

#[test]
fn cost_figures_match_a_hand_computation() {
    let dir = priced_project();
    let root = dir.path();
    put(
        root,
        "cpu.yml",
        "cpu",
        "Standard_DS3_v2",
        "min_instances: 2\nmax_instances: 4\n",
    );
    put(
        root,
        "low.yml",
        "low",
        "Standard_DS3_v2",
        "tier: low_priority\nmin_instances: 3\nmax_instances: 4\n",
    );
    write(
        root,
        "blue.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\nname: blue\nendpoint_name: credit\nmodel: azureml:credit:3\ninstance_type: Standard_NC6s_v3\ninstance_count: 2\n",
    );
    let (_, list) = run(root, &[]);
    let cost = |path: &str, code: &str| {
        list.iter()
            .find(|f| f.0 == path && f.2 == code)
            .unwrap_or_else(|| panic!("no {code} in {path}: {list:#?}"))
            .4
            .clone()
    };
    // 2 × 0.266 × 730 = 388.36
    assert!(
        cost("cpu.yml", "AML601").ends_with(": 2 × 0.266 USD an hour × 730 hours = 388.36 USD a month (Standard_DS3_v2 in eastus, azure/prices-eastus.json)"),
        "{}",
        cost("cpu.yml", "AML601")
    );
    // Low priority: 3 × 0.0532 × 730 = 116.508
    assert!(
        cost("low.yml", "AML601")
            .contains("3 × 0.0532 USD an hour (low priority) × 730 hours = 116.51 USD a month")
    );
    // 2 × 3.06 × 730 = 4467.6
    assert!(cost("blue.yml", "AML604").ends_with(": 2 × 3.06 USD an hour × 730 hours = 4467.60 USD a month (Standard_NC6s_v3 in eastus, azure/prices-eastus.json)"));
    let text = statistics(root);
    // 388.36 + 116.508 + 4467.6 = 4972.468
    assert!(
        text.contains("always-on cost: 4972.47 USD a month (2 clusters that never scale to zero and 1 managed online deployment"),
        "{text}"
    );
}

/// Clusters defined outside Azure ML YAML cost too, and a cluster defined in several
/// files (its compute YAML and a script; Terraform) costs once, by its name.
#[test]
fn the_always_on_cost_counts_each_compute_once_wherever_it_is_defined() {
    let dir = priced_project();
    let root = dir.path();
    put(
        root,
        "cpu.yml",
        "cpu",
        "Standard_DS3_v2",
        "min_instances: 2\nmax_instances: 4\n",
    );
    // The same cluster again (its name in another case), and one only Terraform defines.
    write(
        root,
        "infra/setup.sh",
        "az ml compute create --name CPU --type amlcompute --size Standard_DS3_v2 \\\n  --min-instances 2 --max-instances 4\n",
    );
    write(
        root,
        "infra/main.tf",
        "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name = \"tf-cpu\"\n  vm_size = \"Standard_DS3_v2\"\n  vm_priority = \"Dedicated\"\n  scale_settings {\n    min_node_count = 1\n    max_node_count = 2\n  }\n}\n",
    );
    let text = statistics(root);
    // 2 × 0.266 × 730 = 388.36 (once) + 1 × 0.266 × 730 = 194.18
    assert!(
        text.contains("always-on cost: 582.54 USD a month (2 clusters that never scale to zero:"),
        "{text}"
    );
}

#[test]
fn without_a_price_file_nothing_changes() {
    let dir = project();
    let root = dir.path();
    put(
        root,
        "cpu.yml",
        "cpu",
        "Standard_DS3_v2",
        "min_instances: 2\nmax_instances: 4\n",
    );
    write(
        root,
        "blue.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\nname: blue\nendpoint_name: credit\nmodel: azureml:credit:3\ninstance_type: Standard_DS3_v2\ninstance_count: 2\n",
    );
    // The price file is in the project from the start: only the configuration changes.
    write(
        root,
        "p.json",
        &prices().replace("Standard_DS3_v2", "Standard_QZ3_v9"),
    );
    let outputs = |args: &[&str]| {
        let human = amlint(root).args(["check", "."]).args(args).output().unwrap();
        let stats = amlint(root)
            .args(["check", "--statistics", "."])
            .args(args)
            .output()
            .unwrap();
        (human.stdout, stats.stdout, human.status.code())
    };
    let without = outputs(&[]);
    // A workspace with a location and no prices: the same bytes.
    write(root, "amlint.toml", "[workspace]\nlocation = \"eastus\"\n");
    assert_eq!(outputs(&[]), without);
    // Prices for other sizes only: the same bytes too.
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"eastus\"\nprices = \"p.json\"\n",
    );
    assert_eq!(outputs(&[]), without);
    assert!(!String::from_utf8_lossy(&without.1).contains("always-on"));
}

#[test]
fn the_project_roots_workspace_applies_in_folders_without_their_own() {
    let dir = project();
    let root = dir.path();
    snapshot(root, &[(DSV2, 14, 24)]);
    write(root, "team/amlint.toml", "profile = \"production\"\n");
    put(
        root,
        "team/cpu.yml",
        "cpu",
        "Standard_DS3_v2",
        "max_instances: 4\n",
    );
    // A folder with a `[workspace]` of its own uses that one.
    write(root, "other/amlint.toml", "[workspace]\nusage = \"usage.json\"\n");
    write(root, "other/usage.json", &cli_usage(&[(DSV2, 0, 100)]));
    put(
        root,
        "other/cpu.yml",
        "cpu2",
        "Standard_DS3_v2",
        "max_instances: 4\n",
    );
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 1, "{list:#?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].3.as_str()),
        ("team/cpu.yml", "error")
    );
    // Checked alone, the file gets the same finding.
    let (_, one) = run(root, &["team/cpu.yml"]);
    assert_eq!(of(&one, "AML506"), found);
}

/// Many clusters of one family: each finding names ten of the others and counts the rest,
/// and the run stays within the hostile suite's caps (each check looks its line's clusters
/// up, added up once per run).
#[test]
fn many_clusters_of_one_family_are_added_up_once() {
    let dir = project();
    let root = dir.path();
    snapshot(root, &[(DSV2, 0, 100)]);
    let n = 3000;
    for i in 0..n {
        put(
            root,
            &format!("c/{i:04}.yml"),
            &format!("c{i:04}"),
            "Standard_DS1_v2",
            "max_instances: 1\n",
        );
    }
    let out = crate::capped::amlint(
        root,
        &["check", "--format", "json", "--select", "AML507", "."],
        b"",
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = json["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), n);
    let first = found[0]["message"].as_str().unwrap();
    assert!(
        first.starts_with("`c0000` (`max_instances: 1` × 1 vCPUs = 1) and `c0001` (1 × 1 = 1 vCPUs, c/0001.yml), ")
            && first.contains(" and 2989 more share `Standard DSv2 Family Cluster Dedicated vCPUs`: together they can scale to 3000 vCPUs, more than the 100 left"),
        "{first}"
    );
}

/// What `az ml compute list-usage -o json` prints with azure-ai-ml 1.35.2 (its `Usage`
/// entity reads the REST model's camelCase dict into snake_case attributes, so
/// `current_value` and `name.localized_value` come out empty and are left out): the whole
/// limit is taken as left, and the message says the usage is unknown.
#[test]
fn a_usage_list_without_current_values_is_checked_against_the_limits() {
    let dir = project();
    let root = dir.path();
    write(root, "amlint.toml", CONFIG);
    write(
        root,
        "azure/usage-eastus.json",
        r#"[
  {
    "id": "/subscriptions/00000000-0000-0000-0000-000000000000/usages",
    "limit": 100,
    "name": {
      "value": "Clusters"
    },
    "type": "Microsoft.MachineLearningServices/totalCores/usages",
    "unit": "Count"
  },
  {
    "id": "/subscriptions/00000000-0000-0000-0000-000000000000/usages/Standard_DSv2_Family_Cluster_Dedicated_vCPUs",
    "limit": 24,
    "name": {
      "value": "Standard DSv2 Family Cluster Dedicated vCPUs"
    },
    "type": "Microsoft.MachineLearningServices/vmFamily/usages",
    "unit": "Count"
  }
]
"#,
    );
    put(root, "cpu.yml", "cpu", "Standard_DS3_v2", "max_instances: 8\n");
    let (_, list) = run(root, &[]);
    let found = of(&list, "AML506");
    assert_eq!(found.len(), 1, "{list:#?}");
    assert_eq!(
        found[0].4,
        "`max_instances: 8` × 4 vCPUs (Standard_DS3_v2) = 32 vCPUs, more than the 24 left of `Standard DSv2 Family Cluster Dedicated vCPUs` in eastus (limit 24; the snapshot does not say how many are in use; azure/usage-eastus.json)"
    );
}

/// A `[workspace]` that comes from an extended configuration keeps its files where that
/// configuration names them, and covers the clusters below the extending one.
#[test]
fn an_extended_workspace_covers_the_extending_configurations_clusters() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "org/amlint.toml",
        "[workspace]\nlocation = \"eastus\"\nusage = \"usage.json\"\n",
    );
    write(root, "org/usage.json", &cli_usage(&[(DSV2, 0, 12)]));
    write(root, "ml/amlint.toml", "extend = \"../org/amlint.toml\"\n");
    put(root, "ml/a.yml", "a", "Standard_DS3_v2", "max_instances: 2\n");
    put(root, "ml/b.yml", "b", "Standard_DS3_v2", "max_instances: 2\n");
    let (_, list) = run(root, &["ml"]);
    let found: Vec<&str> = of(&list, "AML507").iter().map(|f| f.0.as_str()).collect();
    assert_eq!(found, ["ml/a.yml", "ml/b.yml"], "{list:#?}");
    assert!(
        of(&list, "AML507")[0]
            .4
            .contains("(limit 12, 0 in use; org/usage.json)")
    );
}

/// A price file near its 32 MiB bound (55,000 VM prices: the whole API for a region, and
/// more) is read as a stream within the hostile suite's memory cap.
#[test]
fn a_large_price_file_is_read_within_the_caps() {
    let dir = project();
    let root = dir.path();
    let item = |i: usize| {
        format!(
            r#"{{"currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": 0.5, "unitPrice": 0.5, "armRegionName": "eastus", "location": "US East", "effectiveStartDate": "2024-05-01T00:00:00Z", "meterId": "00000000-0000-0000-0000-000000000000", "meterName": "D{i} v9", "productId": "DZH318Z0BQ4L", "skuId": "DZH318Z0BQ4L/00D1", "productName": "Virtual Machines Dv9 Series", "skuName": "D{i} v9", "serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": "1 Hour", "type": "Consumption", "isPrimaryMeterRegion": true, "armSkuName": "Standard_D{i}_v9"}}"#
        )
    };
    let items: Vec<String> = (0..55_000).map(item).collect();
    write(root, "p.json", &format!("{{\"Items\": [{}]}}", items.join(",")));
    put(root, "c.yml", "c", "Standard_D7_v9", "min_instances: 2\n");
    write(
        root,
        "amlint.toml",
        "[workspace]\nprices = \"p.json\"\n\n[[inventory.vm_sizes]]\nname = \"Standard_D7_v9\"\nvcpus = 8\nmemory_gib = 32\n",
    );
    let out = crate::capped::amlint(root, &["check", "--statistics", "."], b"");
    assert!(
        out.stdout_text()
            .contains("always-on cost: 730.00 USD a month (1 cluster that never scales to zero"),
        "{}\n{}",
        out.stdout_text(),
        out.stderr_text()
    );
}
