//! Policy for platform teams (issue 26): the end of support of SDK v1 (AML108), reasons
//! and expiry dates on suppressions, `--no-ignores`, enforced rules and `amlint test`.

use serde_json::Value;

use crate::common::{amlint, project, write};

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

/// The findings of one code in a JSON report.
fn findings<'a>(json: &'a Value, code: &str) -> Vec<&'a Value> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}

const V1_DEPLOY: &str = "{\n  \"containerResourceRequirements\": {\"cpu\": 1, \"memoryInGB\": 2},\n  \"computeType\": \"ACI\"\n}\n";
const V1_INFERENCE: &str = "# SDK v1\nsourceDirectory: .\nentryScript: score.py\nruntime: python\n";

#[test]
fn sdk_v1_files_are_past_their_end_of_support_from_2026_07_01() {
    let dir = project();
    write(dir.path(), "deploy/deploymentconfig.json", V1_DEPLOY);
    write(dir.path(), "deploy/inferenceconfig.yml", V1_INFERENCE);
    write(dir.path(), "deploy/score.py", "def init(): pass\n");
    let run = |today: &str| {
        let out = amlint(dir.path())
            .env("AMLINT_TODAY", today)
            .args(["check", "--format", "json"])
            .output()
            .unwrap();
        json_of(&out)
    };
    // The last day of support: nothing.
    assert!(findings(&run("2026-06-30"), "AML108").is_empty());
    // The day after: one warning per file, on the key that makes the file v1.
    let json = run("2026-07-01");
    let found = findings(&json, "AML108");
    assert_eq!(found.len(), 2, "{json:#}");
    let deploy = found
        .iter()
        .find(|d| d["path"] == "deploy/deploymentconfig.json")
        .unwrap();
    assert_eq!(deploy["severity"], "warning");
    assert_eq!(deploy["pointer"], "/computeType");
    let at = V1_DEPLOY.find("\"computeType\"").unwrap();
    assert_eq!(deploy["range"]["start"]["offset"], at);
    assert_eq!(deploy["range"]["end"]["offset"], at + "\"computeType\"".len());
    let message = deploy["message"].as_str().unwrap();
    assert!(
        message.contains("`computeType: ACI`") && message.contains("managedOnlineDeployment"),
        "{message}"
    );
    let inference = found
        .iter()
        .find(|d| d["path"] == "deploy/inferenceconfig.yml")
        .unwrap();
    let at = V1_INFERENCE.find("entryScript").unwrap();
    assert_eq!(inference["range"]["start"]["offset"], at);
    assert_eq!(inference["range"]["end"]["offset"], at + "entryScript".len());
    assert!(inference["message"].as_str().unwrap().contains("scoring_script"));
    // A warning: the run fails only at `--fail-on warning`.
    assert_eq!(json["summary"]["errors"], 0, "{json:#}");
}

const COMPUTE_HEAD: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu-cluster\ntype: amlcompute\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: /subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/ml\n";

/// `amlint check --format json` in `dir` on `today`, with extra arguments.
fn check_json(dir: &std::path::Path, today: &str, args: &[&str]) -> (Option<i32>, Value) {
    let out = amlint(dir)
        .env("AMLINT_TODAY", today)
        .args(["check", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    (out.status.code(), json_of(&out))
}

#[test]
fn a_suppression_expires_after_its_until_date_and_says_so() {
    let dir = project();
    let text = format!(
        "{COMPUTE_HEAD}size: Standard_NC24ads_A100_v4  # amlint: ignore[AML503] until 2027-01-31 quota ticket 4711\n"
    );
    write(dir.path(), "compute.yml", &text);
    // On the last day it silences, quietly.
    let (code, json) = check_json(dir.path(), "2027-01-31", &[]);
    assert_eq!(code, Some(0));
    assert!(json["diagnostics"].as_array().unwrap().is_empty(), "{json:#}");
    // The day after, the finding is back and AML010 points at the date.
    let (_, json) = check_json(dir.path(), "2027-02-01", &[]);
    assert_eq!(findings(&json, "AML503").len(), 1, "{json:#}");
    let expired = findings(&json, "AML010");
    assert_eq!(expired.len(), 1, "{json:#}");
    let at = text.find("2027-01-31").unwrap();
    assert_eq!(expired[0]["range"]["start"]["offset"], at);
    assert_eq!(expired[0]["range"]["end"]["offset"], at + 10);
    assert_eq!(expired[0]["severity"], "warning");
    assert!(
        expired[0]["message"]
            .as_str()
            .unwrap()
            .contains("expired on 2027-01-31")
    );
    // Not reported as unused as well.
    assert!(findings(&json, "AML009").is_empty(), "{json:#}");
    // A date that is not one makes the directive unreadable: AML009, and it silences nothing.
    write(
        dir.path(),
        "compute.yml",
        &format!(
            "{COMPUTE_HEAD}size: Standard_NC24ads_A100_v4  # amlint: ignore[AML503] until 2027-02-30 ticket\n"
        ),
    );
    let (_, json) = check_json(dir.path(), "2026-11-22", &[]);
    assert_eq!(findings(&json, "AML503").len(), 1, "{json:#}");
    let unreadable = findings(&json, "AML009");
    assert!(
        unreadable[0]["message"]
            .as_str()
            .unwrap()
            .contains("`until 2027-02-30` is not a date"),
        "{json:#}"
    );
}

#[test]
fn require_reason_reports_a_suppression_without_one() {
    let dir = project();
    let bare = format!("{COMPUTE_HEAD}size: Standard_NC24ads_A100_v4  # amlint: ignore[AML503]\n");
    write(dir.path(), "compute.yml", &bare);
    // Without `require-reason`, a bare suppression is fine.
    let (code, json) = check_json(dir.path(), "2026-11-22", &[]);
    assert_eq!(code, Some(0), "{json:#}");
    write(dir.path(), "amlint.toml", "require-reason = true\n");
    let (code, json) = check_json(dir.path(), "2026-11-22", &[]);
    assert_eq!(code, Some(1), "{json:#}");
    let found = findings(&json, "AML011");
    assert_eq!(found.len(), 1, "{json:#}");
    assert_eq!(found[0]["severity"], "error");
    let at = bare.find("# amlint").unwrap();
    assert_eq!(found[0]["range"]["start"]["offset"], at);
    assert_eq!(found[0]["range"]["end"]["offset"], bare.len() - 1);
    // It still silences what it names.
    assert!(findings(&json, "AML503").is_empty());
    // A date alone is no reason; a reason is.
    for (comment, expected) in [
        ("# amlint: ignore[AML503] until 2027-01-31", 1),
        ("# amlint: ignore[AML503] until 2027-01-31 quota ticket 4711", 0),
        ("# amlint: ignore[AML503] quota ticket 4711", 0),
    ] {
        write(
            dir.path(),
            "compute.yml",
            &format!("{COMPUTE_HEAD}size: Standard_NC24ads_A100_v4  {comment}\n"),
        );
        let (_, json) = check_json(dir.path(), "2026-11-22", &[]);
        assert_eq!(findings(&json, "AML011").len(), expected, "{comment}: {json:#}");
    }
    // `require-reason` must be a boolean.
    write(dir.path(), "amlint.toml", "require-reason = \"yes\"\n");
    let out = amlint(dir.path()).args(["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("require-reason"));
}

#[test]
fn no_ignores_shows_what_comments_and_the_baseline_hide() {
    let dir = project();
    let text = format!(
        "{COMPUTE_HEAD}size: Standard_NC24ads_A100_v4  # amlint: ignore[AML503] until 2027-01-31 quota ticket 4711\nmin_instances: 1\n"
    );
    write(dir.path(), "compute.yml", &text);
    // AML601 (min_instances above zero) goes to a baseline.
    let out = amlint(dir.path())
        .args(["check", "--write-baseline", "baseline.json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, json) = check_json(dir.path(), "2026-11-22", &["--baseline", "baseline.json"]);
    assert_eq!(code, Some(0));
    assert!(json["diagnostics"].as_array().unwrap().is_empty(), "{json:#}");

    let (_, json) = check_json(
        dir.path(),
        "2026-11-22",
        &[
            "--baseline",
            "baseline.json",
            "--no-ignores",
            "--fail-on",
            "never",
        ],
    );
    let by_comment = findings(&json, "AML503");
    assert_eq!(by_comment.len(), 1, "{json:#}");
    assert_eq!(
        by_comment[0]["suppressed"],
        serde_json::json!({"by": "comment", "justification": "quota ticket 4711", "until": "2027-01-31"})
    );
    assert!(
        by_comment[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("[suppressed by a comment until 2027-01-31: quota ticket 4711]")
    );
    let by_baseline = findings(&json, "AML601");
    assert_eq!(by_baseline.len(), 1, "{json:#}");
    assert_eq!(by_baseline[0]["suppressed"]["by"], "baseline");
    assert_eq!(json["summary"]["warnings"], 2, "{json:#}");
    // Ordinary findings carry no `suppressed` field.
    let (_, json) = check_json(dir.path(), "2026-11-22", &["--no-ignores"]);
    assert!(findings(&json, "AML601")[0].get("suppressed").is_none());
    // Not with --write-baseline: that would record what comments accept.
    let out = amlint(dir.path())
        .args(["check", "--no-ignores", "--write-baseline", "b2.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn sarif_carries_the_reason_and_the_expiry_of_a_suppression() {
    let dir = project();
    write(
        dir.path(),
        "compute.yml",
        &format!(
            "{COMPUTE_HEAD}size: Standard_NC24ads_A100_v4  # amlint: ignore[AML503] until 2027-01-31 quota ticket 4711\n"
        ),
    );
    for extra in [&[][..], &["--no-ignores"][..]] {
        let out = amlint(dir.path())
            .args(["check", "--format", "sarif"])
            .args(extra)
            .output()
            .unwrap();
        let sarif = json_of(&out);
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        let r = results
            .iter()
            .find(|r| r["ruleId"] == "AML503")
            .expect("the suppressed result");
        let s = &r["suppressions"][0];
        assert_eq!(s["kind"], "inSource", "{extra:?}");
        assert_eq!(s["justification"], "quota ticket 4711");
        assert_eq!(s["properties"]["until"], "2027-01-31");
    }
}

/// A compute whose nodes get public IPs (AML702, a warning) on line 7.
const PUBLIC_IP: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nnetwork_settings:\n  subnet: /subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/ml\nenable_node_public_ip: true\n";

/// `(path, code, severity, start offset, end offset)` of every finding.
fn located(json: &Value) -> Vec<(String, String, String, u64, u64)> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["range"]["start"]["offset"].as_u64().unwrap(),
                d["range"]["end"]["offset"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn span_of(text: &str, needle: &str) -> (u64, u64) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} in {text:?}")) as u64;
    (at, at + needle.len() as u64)
}

#[test]
fn each_way_of_silencing_an_enforced_rule_is_reported_and_the_finding_stays() {
    let value_at = span_of(PUBLIC_IP, "true");
    let finding = |severity: &str| {
        (
            "compute.yml".to_string(),
            "AML702".to_string(),
            severity.to_string(),
            value_at.0,
            value_at.1,
        )
    };
    // Each configuration silences AML702 one way (the entry that does it is the last
    // occurrence of the needle); `enforce` keeps the finding at its default severity.
    for (config, needle) in [
        ("enforce = [\"AML7\"]\nignore = [\"AML702\"]\n", "\"AML702\""),
        ("enforce = [\"AML7\"]\nignore = [\"AML70\"]\n", "\"AML70\""),
        ("enforce = [\"AML7\"]\nselect = [\"AML5\"]\n", "\"AML5\""),
        (
            "enforce = [\"AML7\"]\n[severity]\nnode-public-ip-enabled = \"info\"\n",
            "node-public-ip-enabled",
        ),
        ("enforce = [\"AML7\"]\n[severity]\nAML702 = \"off\"\n", "AML702"),
        (
            "enforce = [\"AML702\"]\n[per-file-ignores]\n\"*.yml\" = [\"AML702\"]\n",
            "\"AML702\"",
        ),
    ] {
        let dir = project();
        write(dir.path(), "amlint.toml", config);
        write(dir.path(), "compute.yml", PUBLIC_IP);
        let (code, json) = check_json(dir.path(), "2026-11-22", &[]);
        let got = located(&json);
        assert_eq!(code, Some(1), "{config}: {got:?}");
        assert_eq!(got.len(), 2, "{config}: {got:?}");
        assert!(got.contains(&finding("warning")), "{config}: {got:?}");
        let at = config.rfind(needle).unwrap() as u64;
        let expected = (
            "amlint.toml".to_string(),
            "AML012".to_string(),
            "error".to_string(),
            at,
            at + needle.len() as u64,
        );
        assert!(
            got.contains(&expected),
            "{config}: {got:?}, expected {expected:?}"
        );
        let message = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == "AML012")
            .unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            message.contains("AML702") && message.contains("amlint.toml, line 1"),
            "{message}"
        );
    }
    // Raising an enforced rule is no silencing.
    let dir = project();
    write(
        dir.path(),
        "amlint.toml",
        "enforce = [\"AML7\"]\n[severity]\nAML702 = \"error\"\n",
    );
    write(dir.path(), "compute.yml", PUBLIC_IP);
    let (_, json) = check_json(dir.path(), "2026-11-22", &[]);
    assert_eq!(located(&json), vec![finding("error")]);
}

#[test]
fn an_inline_suppression_of_an_enforced_rule_silences_nothing() {
    let dir = project();
    write(dir.path(), "amlint.toml", "enforce = [\"AML7\"]\n");
    let text = format!("# amlint: ignore-file[AML702, AML601] we need SSH\n{PUBLIC_IP}min_instances: 1\n");
    write(dir.path(), "compute.yml", &text);
    let (code, json) = check_json(dir.path(), "2026-11-22", &[]);
    assert_eq!(code, Some(1));
    let got = located(&json);
    let (s, e) = span_of(&text, "AML702");
    assert!(
        got.contains(&("compute.yml".into(), "AML012".into(), "error".into(), s, e)),
        "{got:?}"
    );
    let (s, e) = span_of(&text, "true");
    assert!(
        got.contains(&("compute.yml".into(), "AML702".into(), "warning".into(), s, e)),
        "{got:?}"
    );
    // The other rule of the list is silenced as usual; nothing is "unused".
    assert!(
        findings(&json, "AML601").is_empty() && findings(&json, "AML009").is_empty(),
        "{got:?}"
    );
    // AML012 cannot be silenced: not by a comment, not by the configuration.
    write(
        dir.path(),
        "amlint.toml",
        "enforce = [\"AML7\"]\nignore = [\"AML012\"]\n",
    );
    write(
        dir.path(),
        "compute.yml",
        &text.replace("AML601]", "AML601, AML012]"),
    );
    let (_, json) = check_json(dir.path(), "2026-11-22", &[]);
    assert_eq!(findings(&json, "AML012").len(), 2, "{json:#}");
}

#[test]
fn the_project_root_enforces_rules_in_nested_configurations() {
    let dir = project();
    write(dir.path(), "amlint.toml", "enforce = [\"AML7\"]\n");
    let team = "# The team's own configuration.\nignore = [\"AML702\"]\n";
    write(dir.path(), "team/amlint.toml", team);
    write(dir.path(), "team/compute.yml", PUBLIC_IP);
    for args in [&[][..], &["team/compute.yml"][..]] {
        let (code, json) = check_json(dir.path(), "2026-11-22", args);
        assert_eq!(code, Some(1), "{args:?}");
        let got = located(&json);
        let (s, e) = span_of(team, "\"AML702\"");
        assert!(
            got.contains(&("team/amlint.toml".into(), "AML012".into(), "error".into(), s, e)),
            "{args:?}: {got:?}"
        );
        assert_eq!(findings(&json, "AML702").len(), 1, "{args:?}: {got:?}");
    }
    // Without the root's `enforce`, the team may turn it off.
    write(dir.path(), "amlint.toml", "profile = \"dev\"\n");
    let (code, json) = check_json(dir.path(), "2026-11-22", &[]);
    assert_eq!(code, Some(0), "{json:#}");
}

/// `amlint test` in `dir`: exit code and standard output.
fn amlint_test(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = amlint(dir).arg("test").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The project's own rules pass their examples, and its fixtures their annotations,
/// through `amlint test` (what CI runs).
#[test]
fn amlint_test_passes_on_the_projects_own_rules_and_fixtures() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, out) = amlint_test(repo, &["fixtures"]);
    assert_eq!(code, Some(0), "{out}");
    let examples = amlint::registry::builtin()
        .rules()
        .iter()
        .filter(|r| r.example.is_some())
        .count();
    assert_eq!(
        out.lines().filter(|l| l.starts_with("example ")).count(),
        2 * examples,
        "{out}"
    );
    assert!(
        out.contains("example AML301 gpu-realtime-requires-kubernetes (bad) ... ok\n"),
        "{out}"
    );
    assert!(
        out.contains("case fixtures/document/suppression-expiry.yml ... ok\n"),
        "{out}"
    );
    assert!(
        out.lines().filter(|l| l.starts_with("case ")).count() > 100,
        "{out}"
    );
    assert!(
        out.ends_with(" failed\n") && out.contains("\ntest result: ok. "),
        "{out}"
    );
}

const USER_RULE: &str = "code: ACME101\nname: no-big-clusters\nseverity: error\nsummary: Clusters of more than 10 nodes\nwhat: Reports big clusters.\nwhy: They cost.\nkinds: [amlCompute]\nwhen: {field: max_instances, greater: 10}\nreport: {at: max_instances, message: \"{value} nodes: at most 10\"}\nexample:\n  path: compute.yml\n  at: /max_instances\n  bad: |\n    $schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\n    name: c\n    type: amlcompute\n    size: Standard_DS3_v2\n    max_instances: 20  # expect: ACME101\n  good: |\n    $schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\n    name: c\n    type: amlcompute\n    size: Standard_DS3_v2\n    max_instances: 4\n";

const CASE: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: s\nmax_instances: 40  # expect: ACME101\n";

#[test]
fn amlint_test_runs_user_rule_examples_and_cases_and_fails_on_a_broken_one() {
    let dir = project();
    write(dir.path(), "amlint.toml", "rules-dirs = [\"policies\"]\n");
    write(dir.path(), "policies/big.yaml", USER_RULE);
    write(dir.path(), "policy-tests/big.yml", CASE);
    let (code, out) = amlint_test(dir.path(), &["--user-only", "policy-tests"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out,
        "example ACME101 no-big-clusters (bad) ... ok\nexample ACME101 no-big-clusters (good) ... ok\ncase policy-tests/big.yml ... ok\n\ntest result: ok. 3 passed; 0 failed\n"
    );
    // Without --user-only the built-in rules' examples run too.
    let (code, out) = amlint_test(dir.path(), &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("example AML503 ") && out.contains("example ACME101 "),
        "{out}"
    );

    // A bad example that does not fire.
    write(
        dir.path(),
        "policies/big.yaml",
        &USER_RULE.replace("max_instances: 20", "max_instances: 2"),
    );
    let (code, out) = amlint_test(dir.path(), &["--user-only"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(
            "example ACME101 no-big-clusters (bad) ... FAILED\n    the bad input does not produce ACME101"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("test result: FAILED. 1 passed; 1 failed\n"),
        "{out}"
    );
    // A finding elsewhere than `at:` marks it.
    write(
        dir.path(),
        "policies/big.yaml",
        &USER_RULE.replace("at: /max_instances", "at: /size"),
    );
    let (code, out) = amlint_test(dir.path(), &["--user-only"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("produces ACME101 at /max_instances, not at `/size`"),
        "{out}"
    );
    // ... or elsewhere than the `# expect:` line.
    write(
        dir.path(),
        "policies/big.yaml",
        &USER_RULE.replace(
            "    size: Standard_DS3_v2\n    max_instances: 20  # expect: ACME101",
            "    size: Standard_DS3_v2  # expect: ACME101\n    max_instances: 20",
        ),
    );
    let (code, out) = amlint_test(dir.path(), &["--user-only"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("on line(s) {5}, but `# expect: ACME101` marks line(s) {4}"),
        "{out}"
    );
    // A good example that fires.
    write(
        dir.path(),
        "policies/big.yaml",
        &USER_RULE.replace("max_instances: 4", "max_instances: 40"),
    );
    let (code, out) = amlint_test(dir.path(), &["--user-only"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("(good) ... FAILED\n    the good input produces ACME101 on line 5"),
        "{out}"
    );
    // A case whose annotation is wrong.
    write(dir.path(), "policies/big.yaml", USER_RULE);
    write(
        dir.path(),
        "policy-tests/big.yml",
        &CASE.replace("max_instances: 40", "max_instances: 4"),
    );
    let (code, out) = amlint_test(dir.path(), &["--user-only", "policy-tests"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("case policy-tests/big.yml ... FAILED\n    line 8: expected [\"ACME101\"], got []"),
        "{out}"
    );
    // A path that does not exist is a usage error.
    let (code, _) = amlint_test(dir.path(), &["nowhere"]);
    assert_eq!(code, Some(2));
}

/// A user rule whose condition does not compile is a configuration error of `amlint test`
/// too (exit 2, at the rule file's line), not a failing example.
#[test]
fn amlint_test_reports_a_user_rule_that_does_not_compile_as_a_configuration_error() {
    let dir = project();
    write(dir.path(), "amlint.toml", "rules-dirs = [\"policies\"]\n");
    write(
        dir.path(),
        "policies/big.yaml",
        &USER_RULE.replacen("greater:", "greatr:", 1),
    );
    let out = amlint(dir.path()).args(["test", "--user-only"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("policies/big.yaml") && stderr.contains("did you mean `greater`"),
        "{stderr}"
    );
}

/// `enforce` (like every selector) takes a name pattern: `no-big-*` covers the rules whose
/// names start so, here a user rule, which a repository's `ignore` then cannot silence.
#[test]
fn a_name_pattern_enforces_the_rules_whose_names_start_so() {
    let dir = project();
    write(dir.path(), "policies/big.yaml", USER_RULE);
    write(dir.path(), "big.yml", CASE);
    write(
        dir.path(),
        "amlint.toml",
        "rules-dirs = [\"policies\"]\nenforce = [\"no-big-*\"]\nignore = [\"ACME101\"]\n",
    );
    let out = amlint(dir.path())
        .args(["check", "--format", "json", "--fail-on", "never", "."])
        .output()
        .unwrap();
    let json = json_of(&out);
    assert_eq!(findings(&json, "ACME101").len(), 1, "{json}");
    assert_eq!(findings(&json, "AML012").len(), 1, "{json}");
    write(
        dir.path(),
        "amlint.toml",
        "rules-dirs = [\"policies\"]\nenforce = [\"no-such-*\"]\n",
    );
    let out = amlint(dir.path()).args(["check", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no rule name starts with `no-such-`"));
}
