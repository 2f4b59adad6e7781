//! Audit 29 (issue 35): compute definitions read from shell, CI files, Terraform and Bicep.

use crate::common::{json_check, project, write};
use serde_json::Value;

/// (code, path, line, message) of every finding, sorted.
fn findings(json: &Value) -> Vec<(String, String, u64, String)> {
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

/// The codes and lines of the findings in `path`.
fn codes_in(json: &Value, path: &str) -> Vec<(String, u64)> {
    findings(json)
        .into_iter()
        .filter(|f| f.1 == path)
        .map(|f| (f.0, f.2))
        .collect()
}

const CLUSTER: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 1\nmax_instances: 1\n";
const INSTANCE: &str = "$schema: https://azuremlschemas.azureedge.net/latest/computeInstance.schema.json\ntype: computeinstance\nsize: STANDARD_DS3_v2\n";

/// Case 03: `az ml compute create --file c.yml --name X` with a YAML that gives no `name:`
/// creates the YAML's compute named X: it gets the findings the same YAML with `name: X`
/// gets (AML702 and AML704, AML602 for an instance), at the command's name, and the YAML's
/// own findings name it X (not `?`). `-n` and `--set name=X` name it alike.
#[test]
fn a_nameless_compute_yaml_is_named_by_the_command() {
    for name_opt in ["--name custom-aml", "-n custom-aml", "--set name=custom-aml"] {
        let dir = project();
        let d = dir.path();
        write(d, "configuration/cluster.yml", CLUSTER);
        write(d, "configuration/instance.yml", INSTANCE);
        let make = format!(
            "cluster:\n\taz ml compute create --file configuration/cluster.yml {name_opt}-cluster\n\ninstance:\n\taz ml compute create --file configuration/instance.yml {name_opt}-instance\n"
        );
        write(d, "Makefile", &make);
        let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
        assert_eq!(
            codes_in(&json, "Makefile"),
            [
                ("AML602".into(), 5),
                ("AML702".into(), 2),
                ("AML702".into(), 5),
                ("AML704".into(), 2),
                ("AML704".into(), 5)
            ],
            "{name_opt}: {json:#}"
        );
        let all = findings(&json);
        for (code, path, line, message) in &all {
            assert!(
                !message.contains("`?`"),
                "{name_opt}: {code} {path}:{line} {message}"
            );
            if path == "Makefile" {
                let named = if *line == 2 {
                    "custom-aml-cluster"
                } else {
                    "custom-aml-instance"
                };
                assert!(message.contains(&format!("`{named}`")), "{name_opt}: {message}");
            }
        }
        let min = all.iter().find(|f| f.0 == "AML601").expect("AML601");
        assert_eq!(min.1, "configuration/cluster.yml");
        assert!(min.3.contains("of `custom-aml-cluster` running"), "{}", min.3);
    }
}

/// The control: a YAML that gives its own `name:` reports its findings itself, and the
/// command overriding it does not repeat them.
#[test]
fn a_named_compute_yaml_keeps_its_own_findings() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "cluster.yml",
        &CLUSTER.replace("type:", "name: in-yaml\ntype:"),
    );
    write(
        d,
        "Makefile",
        "cluster:\n\taz ml compute create --file cluster.yml --name custom-aml-cluster\n",
    );
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(codes_in(&json, "Makefile"), [], "{json:#}");
    assert_eq!(
        codes_in(&json, "cluster.yml"),
        [("AML601".into(), 5), ("AML702".into(), 2), ("AML704".into(), 2)],
        "{json:#}"
    );
}

/// Two commands name one nameless YAML differently: each is judged, and the YAML's
/// findings name both.
#[test]
fn a_nameless_compute_yaml_created_twice() {
    let dir = project();
    let d = dir.path();
    write(d, "cluster.yml", CLUSTER);
    write(
        d,
        "create.sh",
        "az ml compute create -f cluster.yml -n a-cluster\naz ml compute create -f cluster.yml --name \"b-cluster\"\n",
    );
    let (_, json) = json_check(d, &["--no-config", "--fail-on", "never", "."]);
    assert_eq!(
        codes_in(&json, "create.sh"),
        [
            ("AML702".into(), 1),
            ("AML702".into(), 2),
            ("AML704".into(), 1),
            ("AML704".into(), 2)
        ],
        "{json:#}"
    );
    let all = findings(&json);
    let min = all.iter().find(|f| f.0 == "AML601").expect("AML601");
    assert!(
        min.3.contains("of `a-cluster` or `b-cluster` running"),
        "{}",
        min.3
    );
}

