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
