//! The command line as users and CI call it: exit codes, standard input, the JSON
//! contract, colour, and hostile inputs (each run guarded by a timeout against hangs).

use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::write;

fn amlint() -> Command {
    let mut cmd = Command::cargo_bin("amlint").unwrap();
    cmd.timeout(Duration::from_secs(60))
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100");
    cmd
}

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

const CLEAN_JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\n";

const DUPLICATE: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\ncompute: local\n";

#[test]
fn exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "clean.yml", CLEAN_JOB);
    write(dir.path(), "bad.yml", DUPLICATE);
    write(
        dir.path(),
        "warn.yml",
        &format!("{CLEAN_JOB}inputs:\n  gpu: on\n"),
    );
    amlint()
        .current_dir(dir.path())
        .args(["check", "clean.yml"])
        .assert()
        .code(0);
    amlint()
        .current_dir(dir.path())
        .args(["check", "bad.yml"])
        .assert()
        .code(1);
    // Warnings alone do not fail the run.
    amlint()
        .current_dir(dir.path())
        .args(["check", "warn.yml"])
        .assert()
        .code(0);
    amlint().args(["check", "--no-such-flag"]).assert().code(2);
    amlint().args(["check", "--format", "xml"]).assert().code(2);
    amlint().args(["rule", "AML999"]).assert().code(2);
}

#[test]
fn json_contract() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "jobs/train.yml", DUPLICATE);
    write(dir.path(), "jobs/clean.yml", CLEAN_JOB);
    write(
        dir.path(),
        "notes/conda.yml",
        "name: env\ndependencies: [python=3.10]\n",
    );
    let out = amlint()
        .current_dir(dir.path())
        .args(["check", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json = json_of(&out);
    assert_eq!(json["version"], 1);
    assert_eq!(
        json["summary"],
        serde_json::json!({"files_checked": 2, "files_skipped": 1, "errors": 1, "warnings": 0, "infos": 0})
    );
    let d = &json["diagnostics"][0];
    assert_eq!(d["code"], "AML002");
    assert_eq!(d["name"], "duplicate-key");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["path"], "jobs/train.yml");
    assert_eq!(d["kind"], "commandJob");
    assert_eq!(d["pointer"], "/compute");
    let offset = DUPLICATE.rfind("compute:").unwrap();
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 5, "column": 1, "offset": offset})
    );
    assert_eq!(
        d["range"]["end"],
        serde_json::json!({"line": 5, "column": 8, "offset": offset + 7})
    );
    assert!(d["message"].as_str().unwrap().contains("compute"));
    assert!(d["help"].is_string());
    assert_eq!(d["labels"][0]["range"]["start"]["line"], 4);
}

#[test]
fn columns_count_characters_and_offsets_count_bytes() {
    let text = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ndisplay_name: \"ünïcødé\"\ntags: {é: 1, é: 2}\n";
    let out = amlint()
        .args(["check", "-", "--stdin-filename", "job.yml", "--format", "json"])
        .write_stdin(text)
        .output()
        .unwrap();
    let json = json_of(&out);
    let d = &json["diagnostics"][0];
    assert_eq!(d["code"], "AML002");
    let offset = d["range"]["start"]["offset"].as_u64().unwrap() as usize;
    assert_eq!(&text[offset..offset + 2], "é");
    assert_eq!(d["range"]["start"]["column"], 14);
    assert_eq!(d["range"]["end"]["column"], 15);
}

#[test]
fn standard_input_uses_the_given_file_name() {
    // The name decides JSON vs YAML and appears in the report.
    let out = amlint()
        .args([
            "check",
            "-",
            "--stdin-filename",
            "deploy/deploymentconfig.json",
            "--format",
            "json",
        ])
        .write_stdin("{\"computeType\": \"ACI\", \"computeType\": \"AKS\"}")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json = json_of(&out);
    assert_eq!(json["diagnostics"][0]["path"], "deploy/deploymentconfig.json");
    assert_eq!(json["diagnostics"][0]["kind"], "v1.deploymentConfig");
    // Without a name, standard input is YAML.
    amlint()
        .args(["check", "-"])
        .write_stdin(CLEAN_JOB)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("1 file checked"));
}

#[test]
fn human_output_colour_and_quiet() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.yml", DUPLICATE);
    let plain = amlint()
        .current_dir(dir.path())
        .args(["check", "bad.yml"])
        .output()
        .unwrap();
    let text = String::from_utf8(plain.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "colour without a terminal");
    assert!(text.contains("AML002 duplicate-key"));
    assert!(text.contains("bad.yml:5:1"));
    assert!(text.contains("1 file checked, 0 skipped: 1 error, 0 warnings"));
    let coloured = amlint()
        .current_dir(dir.path())
        .args(["check", "bad.yml", "--color", "always"])
        .output()
        .unwrap();
    assert!(String::from_utf8(coloured.stdout).unwrap().contains('\u{1b}'));
    let no_color = amlint()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["check", "bad.yml", "--color", "auto"])
        .output()
        .unwrap();
    assert!(!String::from_utf8(no_color.stdout).unwrap().contains('\u{1b}'));
    let quiet = amlint()
        .current_dir(dir.path())
        .args(["check", "-q", "bad.yml"])
        .output()
        .unwrap();
    assert!(!String::from_utf8(quiet.stdout).unwrap().contains("checked"));
}

#[test]
fn output_order_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["b.yml", "a.yml", "c/d.yml", "c/a.yml"] {
        write(dir.path(), name, DUPLICATE);
    }
    let runs: Vec<Vec<String>> = (0..3)
        .map(|_| {
            let out = amlint()
                .current_dir(dir.path())
                .args(["check", "--format", "json"])
                .output()
                .unwrap();
            json_of(&out)["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["path"].as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    assert_eq!(runs[0], ["a.yml", "b.yml", "c/a.yml", "c/d.yml"]);
    assert!(runs.iter().all(|r| r == &runs[0]));
}

#[test]
fn hostile_inputs_get_their_diagnostic_and_the_rest_is_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "good.yml", CLEAN_JOB);
    write(d, "dup.yml", DUPLICATE);
    std::fs::write(d.join("binary.yml"), b"\x7fELF\x02\x01\x01\x00\x00\x00").unwrap();
    std::fs::write(d.join("latin1.yml"), b"name: caf\xe9\n").unwrap();
    std::fs::write(d.join("utf16.yml"), b"\xff\xfen\x00a\x00m\x00e\x00").unwrap();
    write(
        d,
        "big.yml",
        &format!("{CLEAN_JOB}{}", "# padding\n".repeat(2000)),
    );
    let deep: String = (0..5000).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
    write(d, "deep.yml", &deep);
    write(d, "flow.json", &"[".repeat(200_000));
    let mut bomb = String::from(
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\na: &a [x, x, x, x, x, x, x, x, x, x]\n",
    );
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .zip(["b", "c", "d", "e", "f", "g", "h", "i"])
    {
        bomb.push_str(&format!(
            "{name}: &{name} [{}]\n",
            vec![format!("*{prev}"); 10].join(", ")
        ));
    }
    write(d, "bomb.yml", &bomb);
    std::fs::create_dir_all(d.join("dir.yml")).unwrap();
    write(d, "empty.yml", "");
    write(d, "comments.yml", "# only\n# comments\n");

    let out = amlint()
        .current_dir(d)
        .args([
            "check",
            "--format",
            "json",
            "--max-file-size",
            "10000",
            "good.yml",
            "dup.yml",
            "binary.yml",
            "latin1.yml",
            "utf16.yml",
            "big.yml",
            "deep.yml",
            "flow.json",
            "bomb.yml",
            "dir.yml",
            "empty.yml",
            "comments.yml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json = json_of(&out);
    let by_path = |p: &str| -> Vec<String> {
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["path"] == p)
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(by_path("good.yml"), Vec::<String>::new());
    assert_eq!(by_path("dup.yml"), ["AML002"]);
    for (p, code) in [
        ("binary.yml", "AML004"),
        ("latin1.yml", "AML004"),
        ("utf16.yml", "AML004"),
        ("big.yml", "AML005"),
        ("deep.yml", "AML005"),
        ("flow.json", "AML005"),
        ("bomb.yml", "AML005"),
        ("dir.yml", "AML004"),
    ] {
        assert_eq!(by_path(p), [code], "{p}");
    }
    assert_eq!(by_path("empty.yml"), Vec::<String>::new());
    assert_eq!(by_path("comments.yml"), Vec::<String>::new());
}

#[test]
fn rules_and_rule_docs() {
    let out = amlint().args(["rules"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("AML002") && text.contains("duplicate-key") && text.contains("error"));
    // Every column starts at the same place on every line, the summary too.
    let summary_at = |line: &str, summary: &str| line.find(summary).unwrap();
    let registry = amlint::registry::builtin();
    let starts: std::collections::BTreeSet<usize> = text
        .lines()
        .zip(registry.rules())
        .map(|(line, r)| summary_at(line, r.summary.trim()))
        .collect();
    assert_eq!(starts.len(), 1, "summaries start at {starts:?}:\n{text}");
    let json: Value = serde_json::from_slice(
        &amlint()
            .args(["rules", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        json.as_array()
            .unwrap()
            .iter()
            .any(|r| r["code"] == "AML003" && r["severity"] == "warning")
    );
    for query in ["AML002", "aml002", "duplicate-key"] {
        let out = amlint().args(["rule", query]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let doc = String::from_utf8(out.stdout).unwrap();
        assert!(doc.starts_with("# AML002 duplicate-key"));
        assert!(doc.contains("## What it does") && doc.contains("## Use instead"));
    }
    amlint()
        .args(["rule", "duplicate-kye"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("Did you mean `duplicate-key`?"));
}

#[test]
fn local_paths_beside_a_file_named_without_a_directory() {
    // `amlint check job.yml` (and pre-commit at the repository root) names the file
    // without a directory: `code: .` is the current directory, not an empty path.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "job.yml", &format!("{CLEAN_JOB}code: .\n"));
    write(dir.path(), "gone.yml", &format!("{CLEAN_JOB}code: ./src\n"));
    let out = amlint()
        .current_dir(dir.path())
        .args(["check", "--no-config", "--format", "json", "job.yml", "gone.yml"])
        .output()
        .unwrap();
    let json = json_of(&out);
    let found: Vec<(String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(found, [("gone.yml".to_string(), "AML201".to_string())], "{json}");
    amlint()
        .current_dir(dir.path())
        .args(["check", "--no-config", "job.yml"])
        .assert()
        .code(0);
}

/// AML301's message reads well for each target (no "a ACI").
#[test]
fn aml301_message_wording() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join("deploymentconfig.json"),
        "{\"computeType\": \"ACI\", \"gpuCores\": 1}\n",
    )
    .unwrap();
    let out = amlint()
        .current_dir(dir.path())
        .args(["check", "--format", "json", "deploymentconfig.json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "AML301")
        .expect("AML301")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!message.contains("a ACI"), "{message}");
    assert!(message.contains("`computeType` is `ACI`"), "{message}");
}
