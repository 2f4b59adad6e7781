//! Edges of the command line (issue 20, item 8): paths that do not exist, configuration
//! errors in every machine format, `AMLINT_TODAY`, `FORCE_COLOR`, user rules in
//! `amlint rules` and `amlint rule`.

use serde_json::Value;

use crate::common::{amlint, write};

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\ncompute: local\n";

const RULE: &str = "code: ORG101\nname: org-no-local\nseverity: warning\nsummary: Jobs run on a named compute\nwhat: w\nwhy: y\nexample_note: n\nkinds: [commandJob]\nwhen:\n  field: compute\n  equals: local\nreport:\n  at: compute\n  message: \"local compute\"\n";

#[test]
fn a_path_that_does_not_exist_is_a_usage_error_whatever_fail_on_says() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "job.yml", JOB);
    for fail_on in ["error", "never"] {
        let out = amlint(dir.path())
            .args(["check", "--fail-on", fail_on, "job.yml", "nosuchdir/"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--fail-on {fail_on}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("nosuchdir/: no such file or directory"), "{err}");
        assert!(out.stdout.is_empty(), "nothing is checked");
    }
}

#[test]
fn a_configuration_error_is_a_document_of_every_machine_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "job.yml", JOB);
    write(d, "amlint.toml", "select = [\"AML002\"]\nseverity = 3\n");
    let run = |format: &str| {
        let out = amlint(d)
            .args(["check", "--format", format, "."])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("invalid configuration"),
            "{format}: people still read it on stderr"
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let json: Value = serde_json::from_str(&run("json")).unwrap();
    let errors = json["configuration_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{json}");
    assert!(errors[0]["path"].as_str().unwrap().ends_with("amlint.toml"));
    assert_eq!(errors[0]["range"]["start"]["line"], 2);
    assert_eq!(json["diagnostics"], Value::Array(Vec::new()));

    let sarif: Value = serde_json::from_str(&run("sarif")).unwrap();
    crate::output_formats::assert_valid_sarif(&sarif);
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notification = &invocation["toolConfigurationNotifications"][0];
    assert_eq!(notification["level"], "error");
    assert_eq!(
        notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "amlint.toml"
    );
    assert_eq!(
        notification["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );

    let github = run("github");
    assert!(github.starts_with("::error file=amlint.toml,line=2,col=12,title=amlint configuration error::`severity` must be a table"), "{github}");

    let junit = run("junit");
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
    assert_eq!(suite.attribute("errors"), Some("1"));
    assert!(doc.descendants().any(|n| n.has_tag_name("error")), "{junit}");
}

#[test]
fn amlint_today_is_a_date_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "job.yml", JOB);
    for bad in ["2027-1-15", "", "2027-02-30", "tomorrow"] {
        let out = amlint(dir.path())
            .env("AMLINT_TODAY", bad)
            .args(["check", "job.yml"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("AMLINT_TODAY"),
            "{bad:?}"
        );
    }
    let out = amlint(dir.path())
        .env("AMLINT_TODAY", "2027-01-15")
        .args(["check", "job.yml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn force_color_colours_a_pipe_and_no_color_wins() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "job.yml", JOB);
    let colour = |envs: &[(&str, &str)]| {
        let mut cmd = amlint(dir.path());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = cmd.args(["check", "job.yml"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).contains('\u{1b}')
    };
    assert!(!colour(&[]), "a pipe is not a terminal");
    assert!(colour(&[("FORCE_COLOR", "1")]));
    assert!(!colour(&[("FORCE_COLOR", "")]), "an empty value is not set");
    assert!(!colour(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]));
}

#[test]
fn user_rules_are_listed_and_documented() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "amlint.toml", "rules-dirs = [\"policies\"]\n");
    write(d, "policies/ORG101-org-no-local.yaml", RULE);
    let out = amlint(d).args(["rules"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.lines()
            .any(|l| l.starts_with("ORG101") && l.contains("org-no-local")),
        "{list}"
    );
    assert!(list.contains("AML002"), "the built-in rules too");
    let out = amlint(d).args(["rules", "--format", "json"]).output().unwrap();
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(rows.as_array().unwrap().iter().any(|r| r["code"] == "ORG101"));
    for key in ["ORG101", "org-no-local"] {
        let out = amlint(d).args(["rule", key]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{key}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Jobs run on a named compute"),
            "{key}"
        );
    }
    // Elsewhere, only the built-in rules.
    let other = tempfile::tempdir().unwrap();
    let out = amlint(other.path()).args(["rule", "ORG101"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn two_configurations_defining_one_code_differently_are_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (team, severity) in [("a", "warning"), ("b", "error")] {
        write(d, &format!("{team}/amlint.toml"), "rules-dirs = [\"policies\"]\n");
        write(
            d,
            &format!("{team}/policies/ORG101.yaml"),
            &RULE.replace("severity: warning", &format!("severity: {severity}")),
        );
        write(d, &format!("{team}/job.yml"), JOB);
    }
    let out = amlint(d)
        .args(["check", "--format", "sarif", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("user rule ORG101 is defined here"), "{err}");
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    crate::output_formats::assert_valid_sarif(&sarif);
    // The same rule file shared by both configurations is one rule.
    write(d, "b/policies/ORG101.yaml", RULE);
    let out = amlint(d)
        .args(["check", "--format", "sarif", "."])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.iter().filter(|r| r["id"] == "ORG101").count(), 1);
}

#[test]
fn a_missing_local_path_is_shown_without_dot_dot_segments() {
    // Issue 20, item 11: the message showed `/abs/jobs/../nope/src`.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "jobs/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\ncode: ../nope/./src\nenvironment: azureml:sklearn:1\ncompute: local\n",
    );
    let out = amlint(d)
        .args(["check", "--format", "json", "jobs/job.yml"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = json["diagnostics"][0]["message"].as_str().unwrap().to_string();
    assert_eq!(json["diagnostics"][0]["code"], "AML201", "{json}");
    let looked = message.split("looked for").nth(1).unwrap_or_default();
    assert_eq!(looked, " `nope/src`)", "{message}");
}

/// Audit 13, case 03: an SDK v1 inference configuration whose paths resolve from a folder
/// above it (`az ml model deploy` run from `deploy/`) is silent from every working
/// directory, its own folder included; a path no folder of the project has is reported
/// from each of them, the folders tried written from where amlint runs (`..`, no machine
/// path).
#[test]
fn a_v1_path_is_looked_for_up_to_the_repository_root_wherever_amlint_runs() {
    let dir = crate::common::project();
    let d = dir.path();
    write(d, "deploy/score.py", "def run(x):\n    return x\n");
    write(d, "deploy/config/conda.yml", "dependencies:\n  - python=3.10\n");
    write(
        d,
        "deploy/config/inference-config.yml",
        "entryScript: score.py\nruntime: python\ncondaFile: config/conda.yml\nsourceDirectory: ./\n",
    );
    write(
        d,
        "deploy/config/broken/inference-config.yml",
        "entryScript: nowhere.py\nruntime: python\n",
    );
    let aml201 = |cwd: &str, target: &str| -> Vec<(String, String)> {
        let out = amlint(&d.join(cwd))
            .args([
                "check",
                "--no-cache",
                "--format",
                "json",
                "--select",
                "AML201",
                target,
            ])
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    format!(
                        "{} {}",
                        d["path"].as_str().unwrap(),
                        d["message"].as_str().unwrap()
                    ),
                    d["help"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    };
    for (cwd, target) in [
        (".", "."),
        (".", "deploy/config/inference-config.yml"),
        ("deploy", "config/inference-config.yml"),
        ("deploy/config", "inference-config.yml"),
        ("deploy/config", "."),
    ] {
        let found = aml201(cwd, target);
        assert!(
            found.iter().all(|(path, _)| path.contains("broken")),
            "from {cwd}, {target}: {found:?}"
        );
    }
    // From the file's folder: the three folders above it are tried too, and no finding
    // names them by a machine path (a near name in one of them would be suggested).
    write(d, "deploy/nowhere.pyy", "");
    let found = aml201("deploy/config/broken", ".");
    assert_eq!(found.len(), 1, "{found:?}");
    let (message, help) = (&found[0].0, &found[0].1);
    assert!(
        help.contains("this file's folder `.` and the 3 folders above it"),
        "{help}"
    );
    assert!(help.ends_with("Did you mean `nowhere.pyy`?"), "{help}");
    assert!(message.ends_with("(looked for `../../nowhere.py`)"), "{message}");
    let root = d.canonicalize().unwrap();
    assert!(
        !format!("{found:?}").contains(&*root.to_string_lossy()),
        "{message} {help}"
    );
}
#[test]
fn a_large_data_file_met_in_a_walk_is_skipped_and_reported_when_named() {
    // Issue 20, item 11: a YAML data file over the size limit is not an Azure ML
    // configuration; walked, it is skipped silently like any other non-configuration.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data/rows.yaml", &"- {a: 1, b: x}\n".repeat(700_000));
    let out = amlint(d)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = amlint(d)
        .args(["check", "--format", "json", "data/rows.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["code"], "AML005");
}

/// `--version`, the JSON `tool` object and SARIF's driver properties name the same release,
/// schema source and VM catalogue date (issue 23, item 7).
#[test]
fn the_version_names_the_schema_source_and_the_catalogue_date() {
    let dir = crate::common::project();
    crate::common::write(
        dir.path(),
        "c.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\n",
    );
    let out = crate::common::amlint(dir.path())
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&out.stdout).into_owned();
    let catalogue = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/data/vm-sizes.yaml"),
    )
    .unwrap();
    let date = catalogue
        .lines()
        .find_map(|l| l.strip_prefix("updated: "))
        .unwrap()
        .trim_matches('"');
    assert_eq!(
        version.trim_end(),
        format!(
            "amlint {} (schemas: azure-ai-ml 1.35.2; VM catalogue: {date})",
            env!("CARGO_PKG_VERSION")
        )
    );
    let json = crate::common::amlint(dir.path())
        .args(["check", "--format", "json", "--fail-on", "never", "c.yml"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["tool"]["schemas"], "azure-ai-ml 1.35.2");
    assert_eq!(json["tool"]["vm_catalogue"], date);
    assert_eq!(json["tool"]["version"], env!("CARGO_PKG_VERSION"));
    let sarif = crate::common::amlint(dir.path())
        .args(["check", "--format", "sarif", "--fail-on", "never", "c.yml"])
        .output()
        .unwrap();
    let sarif: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let driver = &sarif["runs"][0]["tool"]["driver"];
    assert_eq!(driver["properties"]["schemas"], "azure-ai-ml 1.35.2");
    assert_eq!(driver["properties"]["vmCatalogue"], date);
}

/// Audit 20, case 02: a file of another language named on the command line (an R script,
/// `setup.cfg`) is skipped, as the walk skips it, not reported as a YAML syntax error. A
/// named file whose text reads as Azure ML is checked whatever its name, and a named file
/// that cannot be read is still reported.
#[test]
fn a_named_file_of_another_language_is_skipped_not_a_yaml_error() {
    let dir = crate::common::project();
    let root = dir.path();
    // Each fails to parse as YAML (`: ` inside a line; `[metadata]` then a scalar).
    write(
        root,
        "train.R",
        "library(dplyr)\nfor (i in 1:3) {\n  cat(\"step: \", i)\n}\n",
    );
    write(
        root,
        "setup.cfg",
        "[metadata]\nname = trainer\n[options]\npackages = find:\n",
    );
    write(
        root,
        "job.cfg",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: \"python train.py\ncompute: azureml:cpu\n",
    );
    let run = |args: &[&str]| -> Value {
        let out = amlint(root)
            .args(["check", "--no-config", "--format", "json", "--fail-on", "never"])
            .args(args)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let codes = |report: &Value| -> Vec<String> {
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
    let report = run(&["train.R", "setup.cfg"]);
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report}");
    assert_eq!(report["summary"]["files_checked"], 0, "{report}");
    assert_eq!(report["summary"]["files_skipped"], 2, "{report}");
    let report = run(&["job.cfg"]);
    assert_eq!(codes(&report), ["AML001"], "{report}");
    // A FIFO named on the command line is refused (AML004), whatever its name.
    #[cfg(unix)]
    {
        let fifo = root.join("pipe.R");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let report = run(&["pipe.R"]);
        assert_eq!(codes(&report), ["AML004"], "{report}");
    }
}
