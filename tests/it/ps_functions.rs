//! PowerShell functions that create a compute from their parameters (issue 35): each call
//! of the function in the same script is a definition, its parameters bound as PowerShell
//! binds them (by name in any case, `-Name:value`, a unique prefix, by position), the
//! call's words at their places in the call, the defaults of the `param(...)` block for
//! what the call does not pass; `param(...)` entries with attributes (`[Parameter(...)]`,
//! `[ValidateSet(...)]`, `[Alias(...)]`), at a script's level too.

use serde_json::Value;

use crate::common::{
    check_clean as check, definitions, every_definition, findings_with as findings, focused, inventory,
    names, placed, project, unnamed, write,
};

/// The one definition of `name`.
fn one(inv: &Value, name: &str) -> Value {
    let defs = definitions(inv, name);
    assert_eq!(defs.len(), 1, "{name}: {defs:?}");
    defs[0].clone()
}

/// Where a finding's first label is: (line, column) of its start and end.
fn label(finding: &Value) -> ((u64, u64), (u64, u64)) {
    let r = &finding["labels"][0]["range"];
    let at = |p: &Value| (p["line"].as_u64().unwrap(), p["column"].as_u64().unwrap());
    (at(&r["start"]), at(&r["end"]))
}

const CLUSTER: &str = r#"function New-AmlCluster {
    param(
        [Parameter(Mandatory = $true)]
        [string]$Name,
        [string]$Size = "Standard_DS3_v2",
        [int]$MaxNodes = 4
    )
    az ml compute create --name $Name --type AmlCompute --size $Size --max-instances $MaxNodes
}
New-AmlCluster -Name gpu-cluster -Size Standard_NC6
New-AmlCluster -Name cpu-cluster
New-AmlCluster "pos-cluster" "Standard_NC12"   # positional binding in param order
"#;

/// The parenthesised form, named arguments in any order and case, `-Name:value`, a
/// prefix; a default that a finding is about.
const PAREN: &str = "function Add-Cluster($Name, $Size = \"Standard_NC6\", [int]$Max = 2) {\n  az ml compute create --name $Name --type amlcompute --size $Size --max-instances $Max\n}\nAdd-Cluster -SIZE Standard_DS3_v2 -name order-cluster\nadd-cluster -Name:colon-cluster -Si Standard_DS4_v2 -m 3\nAdd-Cluster default-cluster\n";

#[test]
fn each_call_of_a_function_is_a_definition_with_the_calls_words() {
    let dir = project();
    let root = dir.path();
    write(root, "cluster.ps1", CLUSTER);
    write(root, "paren.ps1", PAREN);
    write(
        root,
        "jobs/train.yml",
        &crate::common::job_using(&["gpu-cluster", "cpu-cluster", "pos-cluster", "order-cluster"]),
    );
    let json = check(root);
    assert!(findings(&json, "jobs/train.yml", "AML203").is_empty(), "{json}");
    // At the call's words: `Standard_NC6` (line 10), `"Standard_NC12"` (line 12).
    assert_eq!(
        placed(&json, "AML505", "cluster.ps1"),
        [(10, 40), (12, 31)],
        "{json}"
    );
    let nc = findings(&json, "cluster.ps1", "AML505");
    let texts: Vec<String> = nc.iter().map(|f| focused(CLUSTER, f)).collect();
    assert_eq!(texts, ["Standard_NC6", "Standard_NC12"]);
    // A finding about the compute is at the call's name.
    assert_eq!(
        placed(&json, "AML702", "cluster.ps1"),
        [(10, 22), (11, 22), (12, 17)],
        "{json}"
    );
    // `Add-Cluster default-cluster`: the default `Standard_NC6`, the finding at the use in
    // the body, labelled at the default in the parameter list.
    assert_eq!(placed(&json, "AML505", "paren.ps1"), [(2, 62)], "{json}");
    let [nc6] = findings(&json, "paren.ps1", "AML505").try_into().unwrap();
    assert_eq!(focused(PAREN, nc6), "$Size");
    assert_eq!(label(nc6), ((1, 38), (1, 50)), "{nc6}");
    assert!(
        nc6["message"].as_str().unwrap().contains("`Standard_NC6`"),
        "{nc6}"
    );

    let inv = inventory(root);
    let gpu = one(&inv, "gpu-cluster");
    assert_eq!(gpu["settings"]["size"]["value"], "Standard_NC6", "{gpu}");
    assert_eq!(gpu["settings"]["max_instances"]["value"], "4", "{gpu}");
    assert!(
        gpu["notes"]
            .to_string()
            .contains("run by the call `New-AmlCluster -Name gpu-cluster -Size Standard_NC6` on line 10"),
        "{gpu}"
    );
    let cpu = one(&inv, "cpu-cluster");
    assert_eq!(
        cpu["settings"]["size"]["value"], "Standard_DS3_v2",
        "the default: {cpu}"
    );
    let pos = one(&inv, "pos-cluster");
    assert_eq!(pos["settings"]["size"]["value"], "Standard_NC12", "{pos}");
    let order = one(&inv, "order-cluster");
    assert_eq!(order["settings"]["size"]["value"], "Standard_DS3_v2", "{order}");
    assert_eq!(order["settings"]["max_instances"]["value"], "2", "{order}");
    let colon = one(&inv, "colon-cluster");
    assert_eq!(colon["settings"]["size"]["value"], "Standard_DS4_v2", "{colon}");
    assert_eq!(colon["settings"]["max_instances"]["value"], "3", "{colon}");
    assert_eq!(
        one(&inv, "default-cluster")["settings"]["size"]["value"],
        "Standard_NC6"
    );
    assert!(unnamed(&inv, "cluster.ps1").is_empty(), "{inv}");
    assert!(unnamed(&inv, "paren.ps1").is_empty(), "{inv}");
}

/// What a call does not make known is said so: an argument from the environment, a
/// mandatory parameter not passed, a function never called (its defaults), a splat (of a
/// literal hashtable: read), a prefix naming two parameters.
#[test]
fn values_not_known_say_why() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "unknown.ps1",
        "function New-C {\n  param([Parameter(Mandatory)][string]$Name, [string]$Size = 'Standard_DS3_v2', [int]$MaxNodes, [int]$MinNodes = 0)\n  az ml compute create --name $Name --type amlcompute --size $Size --max-instances $MaxNodes --min-instances $MinNodes\n}\nNew-C -Name $env:CLUSTER\nNew-C -Size Standard_NC6\n$q = Get-Params\nNew-C @q -MinNodes 1\nNew-C -Name two -M 3\n$p = @{\n  Name = 'splat'; MaxNodes = 2\n  'Size' = \"Standard_NC6\"\n}\nNew-C @p -Si Standard_NC12\n",
    );
    write(
        root,
        "never.ps1",
        "function Never {\n  param(\n    [string]$Name,\n    [ValidateSet('Standard_DS3_v2', 'Standard_NC6')]\n    [string]$Size = 'Standard_DS3_v2'\n  )\n  if (-not $Name) { $Name = 'never-default' }\n  az ml compute create --name $Name --type amlcompute --size $Size\n}\n",
    );
    check(root);
    let inv = inventory(root);
    let found = unnamed(&inv, "unknown.ps1");
    let whys: Vec<&str> = found.iter().map(|d| d["name"]["why"].as_str().unwrap()).collect();
    assert_eq!(whys.len(), 3, "{inv}");
    assert!(
        whys[0].contains("`$Name` is the parameter `-Name` of the function `New-C`, not known at its call: `CLUSTER` is not set in this file"),
        "{whys:?}"
    );
    assert!(
        whys[1].contains("`$Name` is a mandatory parameter without a default of the function `New-C`, which its call does not pass"),
        "{whys:?}"
    );
    assert!(
        whys[2].contains(
            "the call splats `@q`, not read: `q` is set where it is assigned the output of a command"
        ),
        "{whys:?}"
    );
    // The size the call gives, the maximum not known.
    assert_eq!(
        found[1]["settings"]["size"]["value"], "Standard_NC6",
        "{}",
        found[1]
    );
    let max = &found[0]["settings"]["max_instances"];
    assert!(
        max["why"]
            .as_str()
            .unwrap()
            .contains("`$MaxNodes` is a parameter without a default of the function `New-C`, which its call does not pass"),
        "{max}"
    );
    // A literal hashtable splatted: its entries, the call's own named arguments first.
    let splat = one(&inv, "splat");
    assert_eq!(splat["settings"]["size"]["value"], "Standard_NC12", "{splat}");
    assert_eq!(splat["settings"]["max_instances"]["value"], "2", "{splat}");
    // A splat not read: what the call names is read, the rest may come from the splat.
    assert_eq!(
        found[2]["settings"]["min_instances"]["value"], "1",
        "{}",
        found[2]
    );
    assert!(found[2]["settings"]["size"]["value"].is_null(), "{}", found[2]);
    let two = one(&inv, "two");
    assert!(
        two["settings"]["max_instances"]["why"]
            .as_str()
            .unwrap()
            .contains("the call's `-M` may name several parameters of `New-C`"),
        "{two}"
    );
    // Never called: read with its defaults and its own `if (-not $Name)` default.
    let never = one(&inv, "never-default");
    assert_eq!(never["settings"]["size"]["value"], "Standard_DS3_v2", "{never}");
    assert!(
        never["notes"]
            .to_string()
            .contains("`Never` is a function this script does not call after defining it"),
        "{never}"
    );
}

/// A script's own `param(...)` entries with attributes (on the entry's line, on lines
/// before it, several, with commas and brackets in their strings): the defaults are read;
/// a mandatory parameter without one is a parameter of the script, not known.
#[test]
fn script_parameters_with_attributes_are_read() {
    let dir = project();
    let root = dir.path();
    let text = "[CmdletBinding()]\nparam(\n    [Parameter(Mandatory)][string]$ComputeName = \"ps-attr\",\n    [Parameter(Mandatory=$true, HelpMessage=\"The size, e.g. [NC6]\")]\n    [ValidateSet(\"Standard_NC6\", \"Standard_DS3_v2\")]\n    [ValidateNotNullOrEmpty()]\n    [Alias(\"s\")]\n    [string]$Size = \"Standard_NC6\",\n    [Parameter(Mandatory)]\n    [int]$MaxNodes\n)\naz ml compute create --name $ComputeName --type AmlCompute --size $Size --max-instances $MaxNodes\n";
    write(root, "attrs.ps1", text);
    let json = check(root);
    assert_eq!(placed(&json, "AML505", "attrs.ps1"), [(12, 67)], "{json}");
    let [nc6] = findings(&json, "attrs.ps1", "AML505").try_into().unwrap();
    assert_eq!(focused(text, nc6), "$Size");
    assert_eq!(label(nc6), ((8, 22), (8, 34)), "at the default: {nc6}");
    let inv = inventory(root);
    let d = one(&inv, "ps-attr");
    assert_eq!(d["settings"]["size"]["value"], "Standard_NC6", "{d}");
    assert_eq!(
        d["settings"]["max_instances"]["why"],
        "`$MaxNodes` is a parameter of the script without a default: it is given when the script runs",
        "{d}"
    );
}

/// Hostile input: a function calling itself, two calling each other, 5,000 functions,
/// 10,000 calls, lists and bodies never closed: bounded definitions and time, no
/// internal error.
#[test]
fn hostile_functions_and_calls_are_bounded() {
    use std::fmt::Write as _;
    let dir = project();
    let root = dir.path();
    write(
        root,
        "rec.ps1",
        "function Rec {\n  param($Name, $Size = 'Standard_DS3_v2')\n  az ml compute create --name $Name --type amlcompute --size $Size\n  Rec \"$Name-again\" $Size\n}\nfunction A($Name) { B $Name; az ml compute create --name \"a-$Name\" --type amlcompute }\nfunction B($Name) { A $Name }\nRec rec-a\nA mutual\n",
    );
    let mut text = String::from(
        "function M([string]$Name) {\n  az ml compute create --name $Name --type amlcompute --size Standard_DS3_v2\n}\n",
    );
    for i in 0..10_000 {
        writeln!(text, "M -Name \"c{i}\"").unwrap();
    }
    write(root, "many.ps1", &text);
    let mut text = String::new();
    for i in 0..5_000 {
        writeln!(
            text,
            "function F{i} {{ param([Parameter(Mandatory)][string]$N) az ml compute create --name $N --type amlcompute }}\nF{i} -N n{i}"
        )
        .unwrap();
    }
    write(root, "functions.ps1", &text);
    let mut text = String::new();
    for _ in 0..5_000 {
        text.push_str(
            "function U(\n param([Parameter(Mandatory = $true, HelpMessage = \"x\" [string]$a = 'b',\n",
        );
    }
    text.push_str("function Open {\n  param([string]$Name = 'open-default'\n  az ml compute create --name $Name --type amlcompute\n");
    write(root, "open.ps1", &text);
    check(root);
    let inv = inventory(root);
    let names = names(&inv);
    assert!(names.contains(&"rec-a".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("again")), "{names:?}");
    assert!(names.iter().any(|n| n == "a-mutual"), "{names:?}");
    // 64 calls of `M` read, one more definition saying the others are not.
    assert_eq!(
        names.iter().filter(|n| n.starts_with('c')).count(),
        64,
        "{names:?}"
    );
    let found = unnamed(&inv, "many.ps1");
    let [rest] = found.as_slice() else { panic!("{inv}") };
    assert!(
        rest["name"]["why"]
            .as_str()
            .unwrap()
            .contains("`M` is called 10000 times"),
        "{rest}"
    );
    // 5,000 functions: the script's first 1,024 calls read.
    assert!(names.contains(&"n1023".to_string()), "{names:?}");
    assert!(!names.contains(&"n1024".to_string()), "{names:?}");
    assert_eq!(unnamed(&inv, "functions.ps1").len(), 5_000 - 1_024);
    assert!(every_definition(&inv).len() < 7_000);
}
