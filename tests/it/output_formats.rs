//! SARIF (validated against the official SARIF 2.1.0 schema), GitHub workflow commands,
//! JUnit XML, `--fail-on` exit codes, and baselines that survive edits.

use std::path::Path;

use serde_json::Value;

use crate::common::{amlint_wide as amlint, project, write};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

const HEAD: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\n";

/// A project exercising every part of a SARIF result: a duplicate key (labels), a
/// non-ASCII line (UTF-16 columns), a fix (AML003's quoting), an inline suppression with
/// a reason, an unused suppression, a file that cannot be read (no region), a JSON file.
fn rich_project() -> tempfile::TempDir {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "jobs/train.yml",
        &format!(
            "{HEAD}compute: local\ncompute: local\ndisplay_name: \"😀 é\"\ninputs: {{ \"😀\": on }}\nversion: 1.10\nexperiment_name: x  # amlint: ignore[AML002]\n"
        ),
    );
    write(
        root,
        "jobs/accepted.yml",
        &format!(
            "{HEAD}compute: a\ncompute: b  # amlint: ignore[duplicate-key] moving clusters, ticket 42\n"
        ),
    );
    std::fs::write(root.join("jobs/utf16.yml"), b"\xff\xfe$\x00s\x00").unwrap();
    write(
        root,
        "deploy/deploymentconfig.json",
        "{\"computeType\": \"ACI\", \"computeType\": \"AKS\"}\n",
    );
    dir
}

/// The official SARIF 2.1.0 schema, vendored in `tests/data/` (its origin and license
/// are in `tests/data/README.md`).
fn sarif_schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Asserts that `sarif` validates against the official SARIF 2.1.0 schema.
pub fn assert_valid_sarif(sarif: &Value) {
    let validator = jsonschema::draft4::options()
        .should_validate_formats(true)
        .build(&sarif_schema())
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF output fails the schema:\n{}",
        errors.join("\n")
    );
}

fn sarif_of(root: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let out = amlint(root)
        .args(["check", "--format", "sarif"])
        .args(args)
        .output()
        .unwrap();
    let text = stdout(&out);
    let sarif: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    // The log is written as it is made (results a file at a time), and reads as a
    // pretty-printed `Value` would: keys sorted, `results` among the run's other keys.
    assert_eq!(
        text,
        format!("{}\n", serde_json::to_string_pretty(&sarif).unwrap()),
        "the streamed SARIF differs from its own tree printed"
    );
    (out.status.code(), sarif)
}

#[test]
fn sarif_is_valid_against_the_official_schema() {
    let dir = rich_project();
    let (code, sarif) = sarif_of(dir.path(), &[]);
    assert_eq!(code, Some(1));
    assert_valid_sarif(&sarif);

    // The schema accepts a lot; check what GitHub code scanning relies on.
    let run = &sarif["runs"][0];
    assert_eq!(sarif["version"], "2.1.0");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let aml002 = rules.iter().find(|r| r["id"] == "AML002").unwrap();
    assert_eq!(aml002["name"], "duplicate-key");
    assert_eq!(aml002["defaultConfiguration"]["level"], "error");
    assert!(
        aml002["shortDescription"]["text"]
            .as_str()
            .unwrap()
            .contains("same key twice")
    );
    assert!(aml002["fullDescription"]["text"].as_str().unwrap().len() > 40);
    assert!(
        aml002["helpUri"]
            .as_str()
            .unwrap()
            .ends_with("/docs/rules/AML002-duplicate-key.md")
    );
    let results = run["results"].as_array().unwrap();
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
        assert_eq!(
            r["partialFingerprints"]["amlintFingerprint/v1"]
                .as_str()
                .unwrap()
                .len(),
            32
        );
    }
    let find = |code: &str, file: &str| -> Vec<&Value> {
        results
            .iter()
            .filter(|r| {
                r["ruleId"] == code
                    && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == file
            })
            .collect()
    };
    // Paths relative to the repository, exact regions, labels as related locations.
    let dup = find("AML002", "jobs/train.yml");
    assert_eq!(dup.len(), 1);
    let loc = &dup[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(
        loc["region"],
        serde_json::json!({"startLine": 5, "startColumn": 1, "endLine": 5, "endColumn": 8})
    );
    assert_eq!(
        dup[0]["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
    assert_eq!(
        dup[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        "/compute"
    );
    // UTF-16 columns: `inputs: { "😀": on }` — `on` starts after 15 characters, 16 code units.
    let on = find("AML003", "jobs/train.yml");
    let regions: Vec<&Value> = on
        .iter()
        .map(|r| &r["locations"][0]["physicalLocation"]["region"])
        .collect();
    assert!(
        regions.contains(
            &&serde_json::json!({"startLine": 7, "startColumn": 17, "endLine": 7, "endColumn": 19})
        ),
        "{regions:?}"
    );
    // A fix: quote the version.
    let version = on
        .iter()
        .find(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"] == 8)
        .unwrap();
    assert_eq!(
        version["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"],
        "\"1.10\""
    );
    // A suppressed finding, with the reason as justification.
    let accepted = find("AML002", "jobs/accepted.yml");
    assert_eq!(accepted.len(), 1);
    assert_eq!(accepted[0]["suppressions"][0]["kind"], "inSource");
    assert_eq!(
        accepted[0]["suppressions"][0]["justification"],
        "moving clusters, ticket 42"
    );
    // The unused suppression, and a file that could not be read: no region.
    assert_eq!(find("AML009", "jobs/train.yml").len(), 1);
    let unreadable = find("AML004", "jobs/utf16.yml");
    assert!(
        unreadable[0]["locations"][0]["physicalLocation"]
            .get("region")
            .is_none()
    );
    assert_eq!(find("AML002", "deploy/deploymentconfig.json").len(), 1);
    assert!(
        run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
            .as_str()
            .unwrap()
            .starts_with("file:///")
    );
}

/// Findings of user rules (`rules-dirs`) have a `ruleIndex` into `tool.driver.rules`,
/// which describes every rule that can appear; help Markdown links work outside the
/// repository (absolute URLs).
#[test]
fn sarif_describes_user_rules_with_absolute_links() {
    let dir = project();
    let root = dir.path();
    write(root, "amlint.toml", "rules-dirs = [\"policies\"]\n");
    write(
        root,
        "policies/big.yaml",
        "code: ACME101\nname: no-big-clusters\nseverity: warning\nsummary: Clusters of more than 10 nodes\nwhat: Reports big clusters.\nwhy: They cost.\nexample_note: none\nkinds: [amlCompute]\nwhen: {field: max_instances, greater: 10}\nreport: {at: max_instances, message: too many nodes}\n",
    );
    write(
        root,
        "cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 20\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: s\n",
    );
    let (code, sarif) = sarif_of(root, &["--fail-on", "never"]);
    assert_eq!(code, Some(0));
    assert_valid_sarif(&sarif);
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    let acme = results
        .iter()
        .find(|r| r["ruleId"] == "ACME101")
        .expect("the user rule's finding");
    let index = acme["ruleIndex"].as_u64().expect("a ruleIndex") as usize;
    let rule = &rules[index];
    assert_eq!(rule["id"], "ACME101");
    assert_eq!(rule["name"], "no-big-clusters");
    assert_eq!(rule["shortDescription"]["text"], "Clusters of more than 10 nodes");
    assert_eq!(rule["fullDescription"]["text"], "Reports big clusters.");
    assert_eq!(rule["defaultConfiguration"]["level"], "warning");
    assert!(
        rule["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("# ACME101 no-big-clusters")
    );
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
    }
    for rule in rules {
        let markdown = rule["help"]["markdown"].as_str().unwrap();
        assert!(!markdown.contains("](../"), "{}: {markdown}", rule["id"]);
    }
    let aml002 = rules.iter().find(|r| r["id"] == "AML002").unwrap();
    assert!(
        aml002["help"]["markdown"].as_str().unwrap().contains(
            "](https://github.com/amlint/amlint/blob/main/rules/document/AML002-duplicate-key.yaml)"
        )
    );
}

#[test]
fn github_annotations() {
    let dir = project();
    let root = dir.path();
    // A file name with characters GitHub escapes in properties.
    write(
        root,
        "jobs/a,b:c.yml",
        &format!("{HEAD}compute: local\ncompute: serverless\ninputs: {{ \"😀\": on }}\n"),
    );
    let out = amlint(root)
        .args(["check", "--format", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "::error file=jobs/a%2Cb%3Ac.yml,line=5,col=1,endLine=5,endColumn=8,title=AML002 duplicate-key::duplicate key `compute`: the Azure ML CLI silently keeps only this last value%0Ahelp: Remove one of the two entries, or merge them into one."
    );
    assert!(
        lines[1].starts_with(
            "::warning file=jobs/a%2Cb%3Ac.yml,line=6,col=17,endLine=6,endColumn=19,title=AML003 yaml11-ambiguous-scalar::"
        ),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "1 file checked, 0 skipped: 1 error, 1 warning");
    let quiet = amlint(root)
        .args(["check", "--format", "github", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(stdout(&quiet).lines().count(), 2);
    insta::assert_snapshot!("github", text);
}

#[test]
fn junit_has_one_case_per_checked_file() {
    let dir = project();
    let root = dir.path();
    write(root, "jobs/clean.yml", &format!("{HEAD}compute: a\n"));
    // Markup in a key: the message quotes it, and it must be escaped.
    write(
        root,
        "jobs/bad.yml",
        &format!("{HEAD}inputs:\n  \"<a & b>\": 1\n  \"<a & b>\": 2\n"),
    );
    write(root, "jobs/warn.yml", &format!("{HEAD}inputs:\n  gpu: on\n"));
    write(root, "conda.yml", "name: env\ndependencies: [python=3.10]\n");
    let run = |fail_on: &str| {
        let out = amlint(root)
            .args(["check", "--format", "junit", "--fail-on", fail_on])
            .output()
            .unwrap();
        (out.status.code(), stdout(&out))
    };
    let (code, xml) = run("error");
    assert_eq!(code, Some(1));
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("not XML ({e}):\n{xml}"));
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
    assert_eq!(suite.attribute("tests"), Some("3"));
    assert_eq!(suite.attribute("failures"), Some("1"));
    let cases: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testcase")).collect();
    let names: Vec<&str> = cases.iter().map(|c| c.attribute("name").unwrap()).collect();
    assert_eq!(names, ["jobs/bad.yml", "jobs/clean.yml", "jobs/warn.yml"]);
    let failure = cases[0].children().find(|n| n.has_tag_name("failure")).unwrap();
    assert_eq!(failure.attribute("type"), Some("AML002"));
    assert!(failure.attribute("message").unwrap().contains("`<a & b>`"));
    assert!(
        failure
            .text()
            .unwrap()
            .contains("jobs/bad.yml:6:3: error AML002 duplicate-key")
    );
    // The warning is below the fail level: output, not a failure.
    assert!(cases[2].children().all(|n| !n.has_tag_name("failure")));
    let out = cases[2]
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .unwrap();
    assert!(out.text().unwrap().contains("AML003"));
    // --fail-on warning makes it a failure; never makes nothing fail.
    let (code, xml) = run("warning");
    assert_eq!(code, Some(1));
    assert!(xml.contains("failures=\"2\""));
    let (code, xml) = run("never");
    assert_eq!(code, Some(0));
    assert!(xml.contains("failures=\"0\""));
    roxmltree::Document::parse(&xml).unwrap();
}

#[test]
fn fail_on_sets_the_exit_code() {
    let dir = project();
    let root = dir.path();
    write(root, "warn.yml", &format!("{HEAD}inputs:\n  gpu: on\n"));
    write(root, "info.yml", &format!("{HEAD}inputs:\n  gpu: on\n"));
    write(root, "amlint.toml", "[per-file-ignores]\n\"error.yml\" = []\n");
    write(root, "error.yml", &format!("{HEAD}compute: a\ncompute: b\n"));
    let code = |file: &str, fail_on: Option<&str>, extra: &[&str]| {
        let mut cmd = amlint(root);
        cmd.args(["check", file]).args(extra);
        if let Some(f) = fail_on {
            cmd.args(["--fail-on", f]);
        }
        cmd.output().unwrap().status.code()
    };
    // Default: error.
    assert_eq!(code("warn.yml", None, &[]), Some(0));
    assert_eq!(code("error.yml", None, &[]), Some(1));
    assert_eq!(code("warn.yml", Some("warning"), &[]), Some(1));
    assert_eq!(code("warn.yml", Some("info"), &[]), Some(1));
    assert_eq!(code("error.yml", Some("never"), &[]), Some(0));
    // An info finding fails only --fail-on info.
    write(root, "strict.toml", "[severity]\nAML003 = \"info\"\n");
    assert_eq!(
        code("info.yml", Some("warning"), &["--config", "strict.toml"]),
        Some(0)
    );
    assert_eq!(
        code("info.yml", Some("info"), &["--config", "strict.toml"]),
        Some(1)
    );
    amlint(root)
        .args(["check", "--fail-on", "sometimes"])
        .assert()
        .code(2);
}

#[test]
fn baseline_survives_lines_inserted_above_the_finding() {
    let dir = project();
    let root = dir.path();
    let original = format!("{HEAD}compute: local\ncompute: local\n");
    write(root, "jobs/train.yml", &original);
    write(root, "jobs/other.yml", &format!("{HEAD}inputs:\n  gpu: on\n"));

    // Record the current findings: exit 0, a sorted JSON file.
    let out = amlint(root)
        .args(["check", "--write-baseline", "amlint-baseline.json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("recorded 2 findings"));
    let baseline: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("amlint-baseline.json")).unwrap()).unwrap();
    assert_eq!(baseline["version"], 1);
    let entries = baseline["findings"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1]["path"], "jobs/train.yml");
    assert_eq!(entries[1]["code"], "AML002");

    // With the baseline, nothing is reported.
    let json = |extra: &[&str]| {
        let out = amlint(root)
            .args(["check", "--format", "json", "--fail-on", "warning"])
            .args(extra)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v["diagnostics"].as_array().unwrap().len())
    };
    assert_eq!(json(&["--baseline", "amlint-baseline.json"]), (Some(0), 0));
    assert_eq!(json(&[]), (Some(1), 2));
    let human = amlint(root)
        .args(["check", "--color", "never", "--baseline", "amlint-baseline.json"])
        .output()
        .unwrap();
    assert!(
        stdout(&human)
            .ends_with("2 files checked, 1 skipped: no problems found (2 hidden by the baseline)\n"),
        "{}",
        stdout(&human)
    );

    // Lines inserted above the finding, and the file re-indented: still hidden.
    let edited = format!(
        "# Training job\n# owned by the ML platform team\n{HEAD}display_name: nightly\ncompute:   local\ncompute:   local\n"
    );
    write(root, "jobs/train.yml", &edited);
    assert_eq!(json(&["--baseline", "amlint-baseline.json"]), (Some(0), 0));

    // A new finding is reported.
    write(
        root,
        "jobs/train.yml",
        &format!("{edited}environment: azureml:x:2\n"),
    );
    assert_eq!(json(&["--baseline", "amlint-baseline.json"]), (Some(1), 1));
    // A duplicate-key finding is about the key: another value keeps it the same finding.
    write(
        root,
        "jobs/train.yml",
        &format!("{HEAD}compute: local\ncompute: serverless\n"),
    );
    assert_eq!(json(&["--baseline", "amlint-baseline.json"]), (Some(0), 0));

    // SARIF shows baselined findings as suppressed, with the same fingerprints.
    let (_, sarif) = sarif_of(root, &["--baseline", "amlint-baseline.json"]);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let recorded: Vec<&str> = entries
        .iter()
        .map(|e| e["fingerprint"].as_str().unwrap())
        .collect();
    for r in results {
        assert_eq!(r["suppressions"][0]["kind"], "external");
        let fp = r["partialFingerprints"]["amlintFingerprint/v1"].as_str().unwrap();
        assert!(recorded.contains(&fp), "{fp} not in {recorded:?}");
    }
    assert_eq!(results.len(), 2);

    // When the offending text itself changes, it is a new finding.
    write(root, "jobs/other.yml", &format!("{HEAD}inputs:\n  gpu: yes\n"));
    assert_eq!(json(&["--baseline", "amlint-baseline.json"]), (Some(1), 1));

    // Rewriting the baseline is atomic and leaves no temporary file behind.
    amlint(root)
        .args([
            "check",
            "--baseline",
            "amlint-baseline.json",
            "--write-baseline",
            "amlint-baseline.json",
        ])
        .assert()
        .code(0);
    let names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("baseline"))
        .collect();
    assert_eq!(names, ["amlint-baseline.json"]);
}

#[test]
fn baseline_errors_exit_2() {
    let dir = project();
    let root = dir.path();
    write(root, "job.yml", HEAD);
    let out = amlint(root)
        .args(["check", "--baseline", "missing.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the baseline missing.json"));
    write(root, "bad.json", "{\"version\": 7, \"findings\": []}");
    let out = amlint(root)
        .args(["check", "--baseline", "bad.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("version 7"));
    let out = amlint(root)
        .args(["check", "--write-baseline", "no/such/dir/b.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the baseline"));
}
