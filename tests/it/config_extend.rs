//! `extend = "path"` (issue 26, item 1): a configuration built on another one — an
//! organisation's policy in a submodule — merged key by key (docs/configuration.md,
//! "Sharing a configuration"): chains, cycles, paths relative to the file that names
//! them, the project boundary.

use std::path::Path;

use serde_json::Value;

use crate::common::{amlint, project, write};

/// A command job with an unknown key (AML101) and a v1-style typo-free body.
const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:env:1\ncompute: azureml:cpu\nfavourite_colour: blue\n";

/// (code, severity) of every finding of `amlint check` in `dir`, and the exit code.
fn findings(dir: &Path) -> (Vec<(String, String)>, Option<i32>) {
    let out = amlint(dir)
        .args(["check", "--format", "json", "--fail-on", "never", "."])
        .output()
        .unwrap();
    if out.status.code() != Some(0) {
        return (Vec::new(), out.status.code());
    }
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: Vec<(String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    (found, out.status.code())
}

fn stderr_of(dir: &Path) -> (String, Option<i32>) {
    let out = amlint(dir).args(["check", "."]).output().unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn the_extended_configuration_applies_and_the_extending_one_adds_to_it() {
    let dir = project();
    let d = dir.path();
    write(d, "jobs/train.yml", JOB);
    // Without configuration: AML101 (error) and AML203 (the compute is not defined).
    let (plain, _) = findings(d);
    assert!(
        plain.iter().any(|(c, s)| c == "AML101" && s == "error"),
        "{plain:?}"
    );
    assert!(plain.iter().any(|(c, _)| c == "AML203"), "{plain:?}");
    // The organisation's configuration ignores AML203 and lowers AML101.
    write(
        d,
        "policy/org/amlint.toml",
        "ignore = [\"AML203\"]\n\n[severity]\nAML101 = \"warning\"\n",
    );
    write(d, "amlint.toml", "extend = \"policy/org/amlint.toml\"\n");
    let (found, _) = findings(d);
    assert!(!found.iter().any(|(c, _)| c == "AML203"), "{found:?}");
    assert!(
        found.iter().any(|(c, s)| c == "AML101" && s == "warning"),
        "{found:?}"
    );
    // `[severity]` entries of the extending file come after the extended file's: they win.
    write(
        d,
        "amlint.toml",
        "extend = \"policy/org/amlint.toml\"\n\n[severity]\nAML101 = \"info\"\n",
    );
    let (found, _) = findings(d);
    assert!(
        found.iter().any(|(c, s)| c == "AML101" && s == "info"),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|(c, _)| c == "AML203"),
        "ignore is kept: {found:?}"
    );
    // `ignore` adds to the extended list; `select` replaces it.
    write(
        d,
        "amlint.toml",
        "extend = \"policy/org/amlint.toml\"\nignore = [\"AML101\"]\n",
    );
    let (found, _) = findings(d);
    assert!(
        !found.iter().any(|(c, _)| c == "AML101" || c == "AML203"),
        "{found:?}"
    );
    write(d, "policy/org/amlint.toml", "select = [\"AML2\"]\n");
    write(
        d,
        "amlint.toml",
        "extend = \"policy/org/amlint.toml\"\nselect = [\"AML1\"]\n",
    );
    let (found, _) = findings(d);
    assert!(found.iter().any(|(c, _)| c == "AML101"), "{found:?}");
    assert!(!found.iter().any(|(c, _)| c == "AML203"), "{found:?}");
}

#[test]
fn chains_merge_in_order_and_paths_stay_relative_to_the_file_that_names_them() {
    let dir = project();
    let d = dir.path();
    write(d, "jobs/train.yml", JOB);
    // The bottom of the chain holds a user rule, in a directory relative to itself, and
    // the inventory entry that makes the compute known.
    write(
        d,
        "vendor/org/base.toml",
        "rules-dirs = [\"rules\"]\n\n[[inventory.computes]]\nname = \"cpu\"\ntype = \"amlcompute\"\nsize = \"Standard_DS3_v2\"\n",
    );
    write(
        d,
        "vendor/org/rules/ACME101-no-colours.yaml",
        "code: ACME101\nname: no-colours\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\nexample_note: n\nkinds: [commandJob]\nwhen: {field: favourite_colour, exists: true}\nreport: {at: favourite_colour, message: no colours}\n",
    );
    write(
        d,
        "vendor/org/team.toml",
        "extend = \"base.toml\"\nignore = [\"AML101\"]\n",
    );
    write(d, "amlint.toml", "extend = \"vendor/org/team.toml\"\n");
    let (found, code) = findings(d);
    assert_eq!(code, Some(0));
    assert_eq!(found, vec![("ACME101".to_string(), "warning".to_string())]);
}

#[test]
fn a_cycle_is_a_configuration_error_naming_the_chain() {
    let dir = project();
    let d = dir.path();
    write(d, "jobs/train.yml", JOB);
    write(d, "amlint.toml", "extend = \"org/a.toml\"\n");
    write(d, "org/a.toml", "extend = \"b.toml\"\n");
    write(d, "org/b.toml", "extend = \"a.toml\"\n");
    let (stderr, code) = stderr_of(d);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("`extend` makes a cycle"), "{stderr}");
    assert!(
        stderr.contains("org/a.toml extends") && stderr.contains("org/b.toml extends"),
        "{stderr}"
    );
    // A file that extends itself.
    write(d, "amlint.toml", "extend = \"amlint.toml\"\n");
    let (stderr, code) = stderr_of(d);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("`extend` makes a cycle: amlint.toml extends amlint.toml"),
        "{stderr}"
    );
}

#[test]
fn a_long_chain_ends_with_an_error() {
    let dir = project();
    let d = dir.path();
    write(d, "jobs/train.yml", JOB);
    write(d, "amlint.toml", "extend = \"c/0.toml\"\n");
    for n in 0..40 {
        write(
            d,
            &format!("c/{n}.toml"),
            &format!("extend = \"{}.toml\"\n", n + 1),
        );
    }
    write(d, "c/40.toml", "ignore = [\"AML101\"]\n");
    let (stderr, code) = stderr_of(d);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("at most 16 files deep"), "{stderr}");
}

#[test]
fn what_extend_names_must_exist_stay_in_the_project_and_be_valid() {
    let dir = project();
    let d = dir.path().join("repo");
    std::fs::create_dir_all(d.join(".git")).unwrap();
    write(&d, "jobs/train.yml", JOB);
    write(&d, "amlint.toml", "extend = \"org.toml\"\n");
    let (stderr, code) = stderr_of(&d);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("`extend` names `org.toml`, which does not exist"),
        "{stderr}"
    );
    // Outside the project (the git work tree): refused, whatever it holds.
    write(dir.path(), "secret.toml", "ignore = [\"AML101\"]\n");
    write(&d, "amlint.toml", "extend = \"../secret.toml\"\n");
    let (stderr, code) = stderr_of(&d);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("outside"), "{stderr}");
    assert!(
        !stderr.contains("AML101"),
        "nothing of the file is shown: {stderr}"
    );
    // An error inside the extended file is reported there, at its line.
    write(&d, "org.toml", "ignore = [\"AML1O1\"]\n");
    write(&d, "amlint.toml", "extend = \"org.toml\"\n");
    let (stderr, code) = stderr_of(&d);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("org.toml:1:"), "{stderr}");
    assert!(stderr.contains("AML1O1"), "{stderr}");
    // A pyproject.toml without [tool.amlint].
    write(&d, "pyproject.toml", "[project]\nname = \"x\"\n");
    write(&d, "amlint.toml", "extend = \"pyproject.toml\"\n");
    let (stderr, code) = stderr_of(&d);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("has no [tool.amlint] table"), "{stderr}");
}

#[test]
fn origins_record_which_file_set_each_key() {
    let dir = project();
    let d = dir.path();
    write(d, "org/amlint.toml", "ignore = [\"AML203\"]\nprofile = \"dev\"\n");
    let text = "extend = \"org/amlint.toml\"\nignore = [\"AML101\"]\nprofile = \"production\"\n";
    write(d, "amlint.toml", text);
    let config = amlint::config::parse_file(
        "amlint.toml",
        Some(&d.join("amlint.toml")),
        d,
        text.to_string(),
        amlint::config::ConfigFileKind::Amlint,
        None,
    )
    .unwrap()
    .unwrap();
    let origin = |k: &str| config.origins.get(k).cloned().unwrap_or_default();
    let org = "org/amlint.toml".to_string();
    assert_eq!(origin("ignore"), vec![org.clone(), "amlint.toml".to_string()]);
    assert_eq!(origin("profile"), vec!["amlint.toml".to_string()]);
    assert_eq!(config.ignore.len(), 2);
    assert_eq!(config.profile, amlint::config::Profile::Production);
}

#[test]
fn an_enforced_rule_of_the_extended_configuration_cannot_be_ignored_by_the_extending_one() {
    let dir = project();
    let d = dir.path();
    write(d, "jobs/train.yml", JOB);
    write(d, "org/amlint.toml", "enforce = [\"AML1\"]\n");
    write(
        d,
        "amlint.toml",
        "extend = \"org/amlint.toml\"\nignore = [\"AML101\"]\n",
    );
    let (found, code) = findings(d);
    assert_eq!(code, Some(0));
    assert!(
        found.iter().any(|(c, _)| c == "AML101"),
        "the finding stays: {found:?}"
    );
    assert!(
        found.iter().any(|(c, s)| c == "AML012" && s == "error"),
        "{found:?}"
    );
    // Without the org's enforcement, the ignore works.
    write(d, "org/amlint.toml", "profile = \"dev\"\n");
    let (found, _) = findings(d);
    assert!(
        !found.iter().any(|(c, _)| c == "AML101" || c == "AML012"),
        "{found:?}"
    );
}
