//! Helpers the integration-test modules share.

use std::path::Path;

/// `amlint` run in `dir`, with a fixed date and no colour variables from the environment.
pub fn amlint(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("amlint").unwrap();
    cmd.current_dir(dir)
        .env("AMLINT_TODAY", "2026-11-22")
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR");
    cmd
}

/// `amlint` run in `dir` as the rendering tests want it: a 100-column terminal, no
/// `NO_COLOR` from the environment, and a 60 s hang guard.
pub fn amlint_wide(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("amlint").unwrap();
    cmd.timeout(std::time::Duration::from_secs(60))
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100");
    cmd
}

/// A scratch project: a temporary directory that is its own git work tree, so that no
/// configuration above it can apply.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    dir
}

/// Writes `text` to `dir/name`, creating the directories on the way.
pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A pipeline job with one command step per compute name, each `compute: azureml:NAME`:
/// every name must resolve (no AML203) when the project defines it.
pub fn job_using(computes: &[&str]) -> String {
    use std::fmt::Write as _;
    let mut y = String::from(
        "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n",
    );
    for (i, c) in computes.iter().enumerate() {
        write!(
            y,
            "  j{i}:\n    type: command\n    command: python a.py\n    environment: azureml:sklearn:1\n    compute: azureml:{c}\n"
        )
        .unwrap();
    }
    y
}

/// `amlint check --format json ARGS` in `dir`: the exit code and the report (a panic with
/// both outputs when stdout is not JSON).
pub fn json_check(dir: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = amlint_wide(dir)
        .env("AMLINT_TODAY", "2026-11-22")
        .args(["check", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), json)
}

/// A user rule whose `set` fix writes more than it declares: setting `tags.team` to `ml`,
/// its value's text adds the key `owner` beside it (fixes are verified and this one is
/// refused: issue 34, guard 3).
pub const INJECTING_RULE: &str = "code: ORG100\nname: team-is-ml\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\nkinds: [commandJob]\nwhen: {field: tags.team, notEquals: ml}\nreport: {at: tags.team, message: \"team\"}\nfix:\n  - applicability: safe\n    what: sets the team\n    set: {field: tags.team, value: \"ml\\n  owner: someone\"}\nexample:\n  path: job.yml\n  at: /tags/team\n  bad: |\n    $schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\n    command: echo\n    environment: azureml:env:1\n    tags: {team: x}\n  good: |\n    $schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\n    command: echo\n    environment: azureml:env:1\n    tags: {team: ml}\n";

/// Each finding in `path`: its code and `field` (`message`, `help`).
pub fn code_and(json: &serde_json::Value, path: &str, field: &str) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == path)
        .map(|x| {
            format!(
                "{} {}",
                x["code"].as_str().unwrap_or(""),
                x[field].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// Each finding in `path`: its code and message.
pub fn messages(json: &serde_json::Value, path: &str) -> Vec<String> {
    code_and(json, path, "message")
}

/// Each finding in `path`: its code and help.
pub fn helps(json: &serde_json::Value, path: &str) -> Vec<String> {
    code_and(json, path, "help")
}

/// (code, path, line, message) of every finding, sorted.
pub fn findings(json: &serde_json::Value) -> Vec<(String, String, u64, String)> {
    let mut out: Vec<_> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["path"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The codes and lines of the findings in `path`, sorted.
pub fn codes_in(json: &serde_json::Value, path: &str) -> Vec<(String, u64)> {
    findings(json)
        .into_iter()
        .filter(|f| f.1 == path)
        .map(|f| (f.0, f.2))
        .collect()
}

/// `amlint check --no-config --fail-on never --format json .` in `root`, asserting that
/// no internal error (AML000) was reported.
pub fn check_clean(root: &Path) -> serde_json::Value {
    let (_, json) = json_check(root, &["--no-config", "--fail-on", "never", "."]);
    assert!(!json.to_string().contains("AML000"), "no internal error: {json}");
    json
}

/// `amlint inventory --no-config --format json .` in `root`.
pub fn inventory(root: &Path) -> serde_json::Value {
    let out = amlint_wide(root)
        .args(["inventory", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// The inventory's compute named `name`.
pub fn compute<'a>(inv: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no compute `{name}`: {inv}"))
}

/// The findings `code` in `path`.
pub fn findings_with<'a>(json: &'a serde_json::Value, path: &str, code: &str) -> Vec<&'a serde_json::Value> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == path && x["code"] == code)
        .collect()
}

/// Where a finding points: its focus (the exact key or value) when its range is a whole
/// block, else its range.
fn pointed(finding: &serde_json::Value) -> &serde_json::Value {
    if finding["focus"].is_object() {
        &finding["focus"]
    } else {
        &finding["range"]
    }
}

/// The text of `text` a finding points at ([`pointed`]).
pub fn focused(text: &str, finding: &serde_json::Value) -> String {
    let at = pointed(finding);
    let (s, e) = (
        at["start"]["offset"].as_u64().unwrap() as usize,
        at["end"]["offset"].as_u64().unwrap() as usize,
    );
    text[s..e].to_string()
}

/// The (line, column) each finding `code` in `path` points at ([`pointed`]), sorted.
pub fn placed(json: &serde_json::Value, code: &str, path: &str) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = findings_with(json, path, code)
        .into_iter()
        .map(|f| {
            let at = &pointed(f)["start"];
            (at["line"].as_u64().unwrap(), at["column"].as_u64().unwrap())
        })
        .collect();
    out.sort_unstable();
    out
}

/// The lines each finding `code` in `path` points at ([`pointed`]), sorted.
pub fn focus_lines(json: &serde_json::Value, path: &str, code: &str) -> Vec<u64> {
    placed(json, code, path).into_iter().map(|p| p.0).collect()
}

/// Every definition of the inventory, named or not.
pub fn every_definition(inv: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for c in inv["computes"].as_array().unwrap() {
        out.extend(c["definitions"].as_array().unwrap().iter().cloned());
    }
    out.extend(inv["unnamed_definitions"].as_array().unwrap().iter().cloned());
    out
}

/// The definitions of the compute `name` in the inventory.
pub fn definitions<'a>(inv: &'a serde_json::Value, name: &str) -> &'a Vec<serde_json::Value> {
    compute(inv, name)["definitions"].as_array().unwrap()
}

/// The inventory's definitions whose name is not known, in `path`.
pub fn unnamed<'a>(inv: &'a serde_json::Value, path: &str) -> Vec<&'a serde_json::Value> {
    inv["unnamed_definitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"] == path)
        .collect()
}

/// The names of the inventory's computes.
pub fn names(inv: &serde_json::Value) -> Vec<String> {
    inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

/// An ARM template defining one compute of its parameters `clusterName` (default
/// `train-cluster`) and `vmSize` (default `Standard_DS3_v2`) in `workspaceName`.
pub const ARM_COMPUTE_TEMPLATE: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "workspaceName": { "type": "string" },
    "clusterName": { "type": "string", "defaultValue": "train-cluster" },
    "vmSize": { "type": "string", "defaultValue": "Standard_DS3_v2" }
  },
  "resources": [
    {
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "apiVersion": "2024-04-01",
      "name": "[format('{0}/{1}', parameters('workspaceName'), parameters('clusterName'))]",
      "location": "westeurope",
      "properties": {
        "computeType": "AmlCompute",
        "properties": {
          "vmSize": "[parameters('vmSize')]",
          "enableNodePublicIp": false,
          "subnet": { "id": "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s" },
          "scaleSettings": { "minNodeCount": 0, "maxNodeCount": 2, "nodeIdleTimeBeforeScaleDown": "PT15M" }
        }
      }
    }
  ]
}
"#;
