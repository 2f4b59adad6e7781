//! Inline suppressions end to end: by code and by name, on the line and on the line above,
//! file-wide, several at once, inside strings (not directives), and AML009 for those that
//! silence nothing.

use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::write;

const HEAD: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\n";

/// Runs `amlint check --format json` on one file with this text; returns the exit code and
/// `(line, column, code, message)` of each finding.
fn check_with(config: Option<&str>, name: &str, text: &str) -> (i32, Vec<(u64, u64, String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    if let Some(c) = config {
        write(dir.path(), "amlint.toml", c);
    }
    write(dir.path(), name, text);
    let out = Command::cargo_bin("amlint")
        .unwrap()
        .timeout(Duration::from_secs(60))
        .env("AMLINT_TODAY", "2026-11-22")
        .current_dir(dir.path())
        .args(["check", "--format", "json", name])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let list = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["column"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (out.status.code().unwrap(), list)
}

fn check(text: &str) -> (i32, Vec<(u64, u64, String, String)>) {
    check_with(None, "job.yml", text)
}

fn codes(list: &[(u64, u64, String, String)]) -> Vec<String> {
    list.iter().map(|(l, _, c, _)| format!("{l}:{c}")).collect()
}

#[test]
fn suppressions_by_code_and_name_on_the_line_and_above() {
    // Without suppressions: AML002 on line 5, AML003 on lines 7 and 8.
    let bare = format!("{HEAD}experiment_name: a\nexperiment_name: b\ninputs:\n  gpu: on\n  cpu: off\n");
    let (code, l) = check(&bare);
    assert_eq!(
        (code, codes(&l)),
        (1, vec!["5:AML002".into(), "7:AML003".into(), "8:AML003".into()])
    );

    let text = format!(
        "{HEAD}experiment_name: a\nexperiment_name: b  # amlint: ignore[duplicate-key] moving to the GPU cluster\ninputs:\n  # amlint: ignore[AML003]\n\n  # an unrelated comment\n  gpu: on\n  cpu: off  # amlint: ignore[yaml11-ambiguous-scalar, AML002]\n"
    );
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "job.yml", &text);
    let human = Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(dir.path())
        .args(["check", "--no-config", "--color", "never", "job.yml"])
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.ends_with("1 file checked, 0 skipped: 0 errors, 1 warning (3 suppressed by comments)\n"),
        "{human}"
    );
    let (code, l) = check(&text);
    // Line 5 and 10 silenced; on line 11, AML002 silences nothing.
    assert_eq!(code, 0);
    assert_eq!(codes(&l), ["11:AML009"]);
    assert!(
        l[0].3.contains("`AML002` in this suppression silences nothing"),
        "{l:?}"
    );
    assert!(l[0].3.contains("no AML002 finding on line 11"), "{l:?}");
    // The finding points at the unused entry itself.
    assert_eq!(l[0].1, 55);
}

#[test]
fn stacked_and_file_wide_suppressions() {
    let text = format!(
        "# amlint: ignore-file[AML003]: the CLI's booleans are what we mean\n{HEAD}experiment_name: a\n# amlint: ignore[AML002] reviewed\n# amlint: ignore[AML006]\nexperiment_name: b\ninputs:\n  gpu: on\n"
    );
    let (code, l) = check(&text);
    // The two stacked comments both apply to line 8; AML006 silences nothing there.
    assert_eq!(code, 0);
    assert_eq!(codes(&l), ["7:AML009"]);
    assert!(
        l[0].3
            .contains("this suppression silences nothing: there is no AML006 finding on line 8"),
        "{l:?}"
    );
}

#[test]
fn comments_inside_strings_are_not_suppressions() {
    let text = format!(
        "{HEAD}experiment_name: a\nexperiment_name: \"b # amlint: ignore[AML002]\"\ndescription: |\n  # amlint: ignore-file[AML002]\n"
    );
    let (code, l) = check(&text);
    assert_eq!((code, codes(&l)), (1, vec!["5:AML002".to_string()]));
}

#[test]
fn unused_unknown_and_malformed_suppressions() {
    let text = format!(
        "{HEAD}experiment_name: a  # amlint: ignore[AML002]\nname: x  # amlint: ignore[duplicate-keys]\ninputs:\n  a: 1  # amlint: ignore AML003\n  b: 2  # amlint: disable[AML003]\n# amlint: ignore-file[AML005]\n"
    );
    let (code, l) = check(&text);
    // AML009 is a warning: the run passes.
    assert_eq!(code, 0);
    assert_eq!(
        codes(&l),
        ["4:AML009", "5:AML009", "7:AML009", "8:AML009", "9:AML009"]
    );
    assert!(l[0].3.contains("there is no AML002 finding on line 4"));
    assert!(
        l[1].3
            .contains("`duplicate-keys` is not a rule amlint knows; did you mean `duplicate-key`?"),
        "{}",
        l[1].3
    );
    assert!(
        l[2].3.contains("needs the rules it silences in brackets"),
        "{}",
        l[2].3
    );
    assert!(
        l[3].3.contains("`disable` is not a suppression keyword"),
        "{}",
        l[3].3
    );
    assert!(l[4].3.contains("no AML005 finding in this file"), "{}", l[4].3);
}

#[test]
fn suppressions_of_disabled_rules_and_of_aml009_itself() {
    let text = format!("{HEAD}inputs:\n  gpu: on  # amlint: ignore[AML003]\n");
    let (_, l) = check_with(Some("ignore = [\"AML003\"]\n"), "job.yml", &text);
    assert_eq!(codes(&l), ["5:AML009"]);
    assert!(
        l[0].3
            .contains("AML003 is turned off for this file by the configuration"),
        "{l:?}"
    );

    // Naming AML009 keeps a suppression that may be unused on purpose.
    let text =
        format!("{HEAD}inputs:\n  gpu: 'on'  # amlint: ignore[AML003, AML009] only on some branches\n");
    let (_, l) = check(&text);
    assert!(l.is_empty(), "{l:?}");
    // ... but AML009 alone, where everything else is used, is itself unused.
    let text = format!("{HEAD}inputs:\n  gpu: on  # amlint: ignore[AML003, AML009]\n");
    let (_, l) = check(&text);
    assert_eq!(codes(&l), ["5:AML009"]);
    // ignore-file[AML009] silences every unused-suppression report of the file.
    let text =
        format!("# amlint: ignore-file[AML009]\n{HEAD}inputs:\n  gpu: 'on'  # amlint: ignore[AML003]\n");
    let (_, l) = check(&text);
    assert!(l.is_empty(), "{l:?}");
    // The configuration can turn AML009 off or change its severity.
    let text = format!("{HEAD}inputs:\n  gpu: 'on'  # amlint: ignore[AML003]\n");
    let (_, l) = check_with(Some("ignore = [\"unused-suppression\"]\n"), "job.yml", &text);
    assert!(l.is_empty(), "{l:?}");
    let (code, l) = check_with(Some("[severity]\nAML009 = \"error\"\n"), "job.yml", &text);
    assert_eq!((code, codes(&l)), (1, vec!["5:AML009".to_string()]));
}

#[test]
fn no_unused_reports_when_a_syntax_error_cuts_the_file_short() {
    let text = format!("{HEAD}inputs:  # amlint: ignore[AML003]\n  gpu: [on\n");
    let (_, l) = check(&text);
    assert!(l.iter().all(|(_, _, c, _)| c != "AML009"), "{l:?}");
    assert!(l.iter().any(|(_, _, c, _)| c == "AML001"), "{l:?}");
}

#[test]
fn json_files_have_no_comments_and_use_per_file_ignores() {
    let json = "{\"computeType\": \"ACI\", \"computeType\": \"AKS\"}\n";
    let (code, l) = check_with(None, "deploymentconfig.json", json);
    // AML108: the fixed date is past the end of support of SDK v1.
    assert_eq!(
        (code, codes(&l)),
        (1, vec!["1:AML002".to_string(), "1:AML108".to_string()])
    );
    let (code, l) = check_with(
        Some("[per-file-ignores]\n\"deploymentconfig.json\" = [\"AML002\", \"AML108\"]\n"),
        "deploymentconfig.json",
        json,
    );
    assert_eq!((code, l.len()), (0, 0));
}
