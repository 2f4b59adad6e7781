//! Audit 30, cases 06 and 07: a Bicep module loop over the list the caller passes (the
//! Azure Verified Modules workspace shape, `[` and `for` on lines of their own), and a
//! module call passing the compute's whole `properties` object. The settings are read
//! as if written where the caller writes them, and found there.

use crate::common::{
    check_clean, codes_in, compute, findings, findings_with, focused as focused_text, helps, inventory,
    messages, placed, project, write,
};
use serde_json::Value;

/// The AVM compute module: the compute's `properties` object is a parameter.
const COMPUTE: &str = "param machineLearningWorkspaceName string\nparam name string\nparam computeType string\nparam properties object\n\nresource ws 'Microsoft.MachineLearningServices/workspaces@2024-10-01' existing = {\n  name: machineLearningWorkspaceName\n}\n\nresource compute 'Microsoft.MachineLearningServices/workspaces/computes@2024-10-01' = {\n  name: name\n  location: 'westeurope'\n  parent: ws\n  properties: {\n    computeType: computeType\n    properties: properties\n  }\n}\n";

/// The workspace module: a loop over `computes`, which the caller passes (no default),
/// as `bicep format` writes it.
const WORKSPACE: &str = "param name string\nparam computes array\n\nresource workspace 'Microsoft.MachineLearningServices/workspaces@2024-10-01' = {\n  name: name\n  location: resourceGroup().location\n}\n\nmodule workspace_computes 'compute/main.bicep' = [\n  for compute in computes: {\n    name: '${workspace.name}-${compute.name}-compute'\n    params: {\n      machineLearningWorkspaceName: workspace.name\n      name: compute.name\n      computeType: compute.computeType\n      properties: compute.properties\n    }\n  }\n]\n";

/// A caller of the workspace module passing `items` as `computes`.
fn caller(items: &str) -> String {
    format!(
        "targetScope = 'subscription'\nmodule testDeployment '../main.bicep' = {{\n  scope: resourceGroup('rg')\n  name: 'test'\n  params: {{\n    name: 'ws1'\n    computes: [\n{items}    ]\n  }}\n}}\n"
    )
}

fn item(name: &str, size: &str, public_ip: &str) -> String {
    format!(
        "      {{\n        computeType: 'AmlCompute'\n        name: '{name}'\n        properties: {{\n          enableNodePublicIp: {public_ip}\n          scaleSettings: {{\n            maxNodeCount: 3\n            minNodeCount: 0\n          }}\n          vmSize: '{size}'\n        }}\n      }}\n"
    )
}

fn avm(d: &std::path::Path, items: &str) {
    write(d, "main.bicep", WORKSPACE);
    write(d, "compute/main.bicep", COMPUTE);
    write(d, "tests/main.test.bicep", &caller(items));
}

/// The text of `path` at the line and column of a finding's focus (or its range).
fn focused(d: &std::path::Path, json: &Value, code: &str, path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(d.join(path)).unwrap();
    findings_with(json, path, code)
        .into_iter()
        .map(|f| focused_text(&text, f))
        .collect()
}

/// Case 06: the caller's list gives one definition per item, each at the item's values in
/// the caller's file (the job's `DefaultCPU` resolves; AML505 at `Standard_NC6`, AML702 at
/// `enableNodePublicIp: true`, AML704 for the missing subnet).
#[test]
fn a_module_loop_over_the_callers_list_defines_each_item_at_its_values() {
    let dir = project();
    let d = dir.path();
    let items =
        item("DefaultCPU", "Standard_NC6", "true") + &item("DefaultGPU", "Standard_NC24ads_A100_v4", "false");
    avm(d, &items);
    write(
        d,
        "jobs/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python -c \"print(1)\"\nenvironment: azureml:AzureML-sklearn-1.0-ubuntu20.04-py38-cpu@latest\ncompute: azureml:DefaultCPU\n",
    );
    let json = check_clean(d);
    let t = "tests/main.test.bicep";
    assert_eq!(codes_in(&json, "jobs/job.yml"), vec![], "{json:#}");
    assert_eq!(focused(d, &json, "AML505", t), ["Standard_NC6"], "{json:#}");
    assert_eq!(focused(d, &json, "AML702", t), ["true"], "{json:#}");
    // Line 17 `          vmSize: 'Standard_NC6'`, line 12 `          enableNodePublicIp: true`,
    // lines 10 and 22 the items' `name:` values; the GPU size (line 29) needs a quota.
    assert_eq!(placed(&json, "AML505", t), [(17, 20)], "{json:#}");
    assert_eq!(placed(&json, "AML702", t), [(12, 31)], "{json:#}");
    assert_eq!(placed(&json, "AML704", t), [(10, 16), (22, 16)], "{json:#}");
    assert_eq!(placed(&json, "AML503", t), [(29, 20)], "{json:#}");
    let msgs = messages(&json, t);
    assert!(
        msgs.iter()
            .any(|m| m.contains("AML702") && m.contains("`enableNodePublicIp: true` turns them on")),
        "{msgs:?}"
    );
    let help = helps(&json, t);
    assert!(
        help.iter().any(|h| h.contains("Set `enableNodePublicIp: false`")),
        "{help:?}"
    );
    assert!(!help.iter().any(|h| h.contains("properties: false")), "{help:?}");
    // Each item's compute lacks a subnet: AML704 for both, decided by the caller's list.
    assert_eq!(
        codes_in(&json, t).iter().filter(|(c, _)| c == "AML704").count(),
        2,
        "{json:#}"
    );
    // The modules read alone stay silent (their parameters are the caller's).
    assert_eq!(codes_in(&json, "main.bicep"), vec![]);
    assert_eq!(codes_in(&json, "compute/main.bicep"), vec![]);
    let inv = inventory(d);
    for (name, size) in [
        ("DefaultCPU", "Standard_NC6"),
        ("DefaultGPU", "Standard_NC24ads_A100_v4"),
    ] {
        let c = compute(&inv, name);
        assert_eq!(c["size"], size, "{c:#}");
        let text = c.to_string();
        assert!(text.contains("tests/main.test.bicep"), "{c:#}");
    }
}

/// The list cannot be known (the caller's value is a parameter without a default, an
/// item is not an object, a value is an expression amlint does not evaluate): a
/// definition whose values are unknown, with why, and no guess.
#[test]
fn a_list_or_item_not_known_is_unknown_with_why() {
    // An item that is a string: its members are not known.
    let dir = project();
    let d = dir.path();
    avm(d, "      'DefaultCPU'\n");
    let json = check_clean(d);
    assert!(findings(&json).iter().all(|f| f.0 != "AML505"), "{json:#}");
    let inv = inventory(d);
    assert!(
        inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["name"] != "DefaultCPU"),
        "{inv:#}"
    );
    // An item whose size is an expression: the size is not known, the name is.
    let dir = project();
    let d = dir.path();
    avm(
        d,
        &item("DefaultCPU", "x", "true").replace("'x'", "loadTextContent('size.txt')"),
    );
    let json = check_clean(d);
    assert!(
        findings(&json).iter().all(|f| f.0 != "AML505" && f.0 != "AML501"),
        "{json:#}"
    );
    let inv = inventory(d);
    let c = compute(&inv, "DefaultCPU");
    assert!(c["size"].is_null(), "{c:#}");
    assert!(
        c.to_string().contains("size.txt"),
        "the why names the file: {c:#}"
    );
    // The caller's own parameter without a default: nothing is known, the loop noted.
    let dir = project();
    let d = dir.path();
    write(d, "main.bicep", WORKSPACE);
    write(d, "compute/main.bicep", COMPUTE);
    write(
        d,
        "tests/main.test.bicep",
        &caller("")
            .replace("computes: [\n    ]", "computes: list")
            .replace("targetScope = 'subscription'\n", "param list array\n"),
    );
    let json = check_clean(d);
    assert!(
        findings(&json)
            .iter()
            .all(|f| !["AML505", "AML702", "AML704"].contains(&f.0.as_str())),
        "{json:#}"
    );
    let text = inventory(d).to_string();
    assert!(text.contains("not expanded"), "{text}");
}

/// Nested loops: the caller builds the list with its own `for` over a literal list, and
/// calls the workspace module in a loop; a module looping over its own parameter is
/// called by two callers with different lists: each call's items are at that caller.
#[test]
fn nested_loops_and_two_callers_each_define_their_items() {
    let dir = project();
    let d = dir.path();
    write(d, "main.bicep", WORKSPACE);
    write(d, "compute/main.bicep", COMPUTE);
    write(
        d,
        "tests/main.test.bicep",
        &caller(&item("CpuA", "Standard_NC6", "true")),
    );
    write(
        d,
        "tests/other.test.bicep",
        &caller(&item("CpuB", "Standard_NV6", "false")),
    );
    write(
        d,
        "deploy/loop.bicep",
        "param envs array = [\n  'dev'\n  'prod'\n]\nmodule ws '../main.bicep' = [\n  for e in envs: {\n    name: 'ws-${e}'\n    params: {\n      name: 'ws-${e}'\n      computes: [\n        {\n          name: 'cpu-${e}'\n          computeType: 'AmlCompute'\n          properties: {\n            vmSize: 'Standard_NC12'\n            enableNodePublicIp: false\n            subnet: {\n              id: 'x'\n            }\n          }\n        }\n      ]\n    }\n  }\n]\n",
    );
    let json = check_clean(d);
    assert_eq!(
        focused(d, &json, "AML505", "tests/main.test.bicep"),
        ["Standard_NC6"],
        "{json:#}"
    );
    assert_eq!(
        focused(d, &json, "AML505", "tests/other.test.bicep"),
        ["Standard_NV6"],
        "{json:#}"
    );
    assert_eq!(
        focused(d, &json, "AML702", "tests/main.test.bicep"),
        ["true"],
        "{json:#}"
    );
    assert!(
        focused(d, &json, "AML702", "tests/other.test.bicep").is_empty(),
        "{json:#}"
    );
    // One per `envs` item, each at the caller's literal size (the same place: reported once).
    assert_eq!(
        focused(d, &json, "AML505", "deploy/loop.bicep"),
        ["Standard_NC12"],
        "{json:#}"
    );
    assert_eq!(
        placed(&json, "AML505", "deploy/loop.bicep"),
        [(15, 22)],
        "{json:#}"
    );
    assert_eq!(
        placed(&json, "AML505", "tests/main.test.bicep"),
        [(17, 20)],
        "{json:#}"
    );
    assert_eq!(
        placed(&json, "AML505", "tests/other.test.bicep"),
        [(17, 20)],
        "{json:#}"
    );
    assert_eq!(
        placed(&json, "AML702", "tests/main.test.bicep"),
        [(12, 31)],
        "{json:#}"
    );
    assert!(
        focused(d, &json, "AML704", "deploy/loop.bicep").is_empty(),
        "{json:#}"
    );
    let inv = inventory(d);
    for name in ["CpuA", "CpuB", "cpu-dev", "cpu-prod"] {
        compute(&inv, name);
    }
}

/// Case 07: a call passing the compute's `properties` object: the settings inside it are
/// found where the call writes them — AML702 at `enableNodePublicIp: true` (named so, its
/// help proposing `enableNodePublicIp: false`), AML704 for the subnet it lacks, the size at
/// its value; also through two module levels passing the object on.
#[test]
fn a_properties_object_passed_to_a_module_is_read_in_place() {
    const CALL: &str = "module one 'compute/main.bicep' = {\n  name: 'one'\n  params: {\n    machineLearningWorkspaceName: 'ws1'\n    name: 'DefaultCPU'\n    computeType: 'AmlCompute'\n    properties: {\n      enableNodePublicIp: true\n      vmSize: 'Standard_NC6'\n      scaleSettings: {\n        minNodeCount: 0\n        maxNodeCount: 2\n      }\n    }\n  }\n}\n";
    let dir = project();
    let d = dir.path();
    write(d, "main.bicep", CALL);
    write(d, "compute/main.bicep", COMPUTE);
    // Two levels: a module passing its `props` parameter on to the compute module.
    write(
        d,
        "two/main.bicep",
        "module mid 'mid.bicep' = {\n  name: 'mid'\n  params: {\n    props: {\n      'enableNodePublicIp': true\n      vmSize: 'Standard_NC6'\n    }\n  }\n}\n",
    );
    write(
        d,
        "two/mid.bicep",
        "param props object\nmodule c '../compute/main.bicep' = {\n  name: 'c'\n  params: {\n    machineLearningWorkspaceName: 'ws1'\n    name: 'TwoLevels'\n    computeType: 'AmlCompute'\n    properties: props\n  }\n}\n",
    );
    let json = check_clean(d);
    for path in ["main.bicep", "two/main.bicep"] {
        assert_eq!(focused(d, &json, "AML702", path), ["true"], "{path}: {json:#}");
        assert_eq!(
            focused(d, &json, "AML505", path),
            ["Standard_NC6"],
            "{path}: {json:#}"
        );
        assert_eq!(
            codes_in(&json, path)
                .iter()
                .filter(|(c, _)| c == "AML704")
                .count(),
            1,
            "{path}: {json:#}"
        );
        let msgs = messages(&json, path);
        assert!(
            msgs.iter()
                .any(|m| m.contains("`enableNodePublicIp: true` turns them on")),
            "{msgs:?}"
        );
        let help = helps(&json, path);
        assert!(
            help.iter().any(|h| h.contains("Set `enableNodePublicIp: false`")),
            "{help:?}"
        );
        assert!(
            !help.iter().any(|h| h.contains("`properties: false`")),
            "{help:?}"
        );
    }
    // `main.bicep`: line 8 `      enableNodePublicIp: true`, line 9 `      vmSize:
    // 'Standard_NC6'`, AML704 at the call's `name: 'DefaultCPU'` (line 5); through two
    // levels, `two/main.bicep` lines 5 and 6, AML704 at the call's path (`'mid.bicep'`).
    assert_eq!(placed(&json, "AML702", "main.bicep"), [(8, 27)], "{json:#}");
    assert_eq!(placed(&json, "AML505", "main.bicep"), [(9, 16)], "{json:#}");
    assert_eq!(placed(&json, "AML704", "main.bicep"), [(5, 12)], "{json:#}");
    assert_eq!(placed(&json, "AML702", "two/main.bicep"), [(5, 29)], "{json:#}");
    assert_eq!(placed(&json, "AML505", "two/main.bicep"), [(6, 16)], "{json:#}");
    assert_eq!(placed(&json, "AML704", "two/main.bicep"), [(1, 13)], "{json:#}");
    assert_eq!(
        codes_in(&json, "main.bicep")
            .iter()
            .find(|c| c.0 == "AML702")
            .unwrap()
            .1,
        1
    );
    assert_eq!(codes_in(&json, "two/mid.bicep"), vec![]);
    assert_eq!(codes_in(&json, "compute/main.bicep"), vec![]);
}

/// Hostile input: a caller's list of 5,000 items (the calls followed stay bounded, each
/// defined item at its own values), a list built by a `for` expression inside the call
/// (not evaluated: unknown, with why), loops nested in the list, and `[for` left
/// unterminated: no internal error, no hang, nothing guessed; the calls not followed are
/// reported (AML005).
#[test]
fn hostile_module_lists() {
    let dir = project();
    let d = dir.path();
    let many: String = (0..5000)
        .map(|i| item(&format!("c{i}"), "Standard_NC6", "true"))
        .collect();
    avm(d, &many);
    // A list built by a loop expression, its items loops again.
    write(
        d,
        "deploy/for.bicep",
        "module ws '../main.bicep' = {\n  name: 'ws'\n  params: {\n    name: 'ws'\n    computes: [for s in ['Standard_NC6', 'Standard_DS3_v2']: {\n      name: 'f-${s}'\n      computeType: 'AmlCompute'\n      properties: {\n        vmSize: s\n        tags: [for t in [for u in [1, 2]: u]: t]\n      }\n    }]\n  }\n}\n",
    );
    // `[for` unterminated, as the module's statement and inside a call's list.
    write(
        d,
        "deploy/open.bicep",
        "module m '../compute/main.bicep' = [\n  for c in [\n    {\n      name: 'x'\n",
    );
    write(
        d,
        "deploy/open2.bicep",
        "module m '../main.bicep' = {\n  name: 'x'\n  params: {\n    computes: [\n  for\n",
    );
    // Lists nested deep in an item.
    let deep = format!("{}{}", "[".repeat(2000), "]".repeat(2000));
    write(
        d,
        "deploy/deep.bicep",
        &format!(
            "module ws '../main.bicep' = {{\n  name: 'ws'\n  params: {{\n    name: 'ws'\n    computes: [\n      {{\n        name: 'deep'\n        computeType: 'AmlCompute'\n        properties: {{\n          vmSize: {deep}\n        }}\n      }}\n    ]\n  }}\n}}\n"
        ),
    );
    let json = check_clean(d);
    let t = "tests/main.test.bicep";
    // The calls beyond those followed are said not to be (AML005 on the calling file),
    // not passed over in silence.
    let skipped: Vec<String> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == t && f["code"] == "AML005")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(skipped.len(), 1, "{json:#}");
    assert!(
        skipped[0].contains("beyond its first 64 module calls"),
        "{skipped:?}"
    );
    // The first item at its values (line 17 `vmSize`, line 12 `enableNodePublicIp`).
    let sizes = placed(&json, "AML505", t);
    assert!(sizes.len() > 1 && sizes.len() <= 64, "{}", sizes.len());
    assert_eq!(sizes[0], (17, 20));
    assert_eq!(placed(&json, "AML702", t)[0], (12, 31));
    // Nothing guessed for the loop expression's items, the open statements, the deep list.
    for path in [
        "deploy/for.bicep",
        "deploy/open.bicep",
        "deploy/open2.bicep",
        "deploy/deep.bicep",
    ] {
        assert!(
            codes_in(&json, path)
                .iter()
                .all(|(c, _)| !["AML505", "AML702"].contains(&c.as_str())),
            "{path}: {json:#}"
        );
    }
    let inv = inventory(d);
    compute(&inv, "c0");
    compute(&inv, "deep");
    assert!(
        inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c["name"].as_str().unwrap_or("").starts_with("f-")),
        "{inv:#}"
    );
}
