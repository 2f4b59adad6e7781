//! Audit 13, defect 1: a compute instance's start/stop schedules are read where ARM JSON,
//! Bicep, Terraform's `azapi_resource` and the Python SDK v2 write them, as a compute YAML's
//! `schedules.compute_start_stop` is. An enabled Stop schedule keeps AML602 ("no idle
//! shutdown and no stop schedule") silent; a disabled one, or only a Start schedule, does
//! not, and the finding stays where it was; a schedule not known statically (a parameter
//! without a value) is not taken for an absent one, and `--show-files --verbose` says why.

use std::path::Path;

use serde_json::Value;

/// One compute instance per file, in each source's syntax; `{ENTRY}` is one
/// `computeStartStop` entry's `action` and `status` (SDK: `action=`, `state=`), `{SCHEDULES}`
/// the whole `schedules` value, `{DECL}` declarations the variant needs.
struct Source {
    dir: &'static str,
    file: &'static str,
    text: &'static str,
    /// The entry: (action, status) written in the source's syntax.
    entry: fn(&str, Option<&str>) -> String,
    /// AML602's (line, column) when it fires: the definition's, as without schedules.
    at: (u64, u64),
}

const ARM: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "stopState": { "type": "string" },
    "schedules": { "type": "object" }
  },
  "resources": [
    {
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "apiVersion": "2024-04-01",
      "name": "ws/alice-ci",
      "properties": {
        "computeType": "ComputeInstance",
        "properties": {
          "vmSize": "Standard_DS3_v2",
          "schedules": {SCHEDULES}
        }
      }
    }
  ]
}
"#;

const BICEP: &str = r#"param stopState string
param schedules object
resource ci 'Microsoft.MachineLearningServices/workspaces/computes@2024-04-01' = {
  name: 'ws/bob-ci'
  properties: {
    computeType: 'ComputeInstance'
    properties: {
      vmSize: 'Standard_DS3_v2'
      schedules: {SCHEDULES}
    }
  }
}
"#;

const AZAPI: &str = r#"resource "azapi_resource" "ci" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2024-10-01-preview"
  name      = "erin-ci"
  parent_id = "/subscriptions/0/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/ws"
  body = {
    properties = {
      computeType = "ComputeInstance"
      properties = {
        vmSize    = "Standard_DS3_v2"
        schedules = {SCHEDULES}
      }
    }
  }
}
variable "stop_state" {
  type = string
}
variable "schedules" {
  type = any
}
"#;

const SDK: &str = r#"from azure.ai.ml.entities import ComputeInstance, ComputeSchedules, ComputeStartStopSchedule, CronTrigger, ComputePowerAction, ScheduleState


def create(state, schedules):
    ci = ComputeInstance(name="carol-ci", size="Standard_DS3_v2", schedules={SCHEDULES})
    return ci
"#;

fn sources() -> [Source; 4] {
    [
        Source {
            dir: "arm",
            file: "ci.json",
            text: ARM,
            entry: |a, s| {
                let status = s.map_or(String::new(), |s| format!(", \"status\": {s}"));
                format!(
                    "{{ \"computeStartStop\": [ {{ \"triggerType\": \"Cron\", \"cron\": {{ \"expression\": \"0 18 * * *\" }}, \"action\": {a}{status} }} ] }}"
                )
            },
            at: (10, 7),
        },
        Source {
            dir: "bicep",
            file: "ci.bicep",
            text: BICEP,
            entry: |a, s| {
                let status = s.map_or(String::new(), |s| format!("\n status: {s}"));
                format!(
                    "{{\n computeStartStop: [\n {{\n triggerType: 'Cron'\n cron: {{\n expression: '0 18 * * *'\n }}\n action: {a}{status}\n }}\n ]\n }}"
                )
            },
            at: (3, 1),
        },
        Source {
            dir: "azapi",
            file: "main.tf",
            text: AZAPI,
            entry: |a, s| {
                let status = s.map_or(String::new(), |s| format!(", status = {s}"));
                format!(
                    "{{ computeStartStop = [ {{ triggerType = \"Cron\", cron = {{ expression = \"0 18 * * *\" }}, action = {a}{status} }} ] }}"
                )
            },
            at: (1, 1),
        },
        Source {
            dir: "sdk",
            file: "ci.py",
            text: SDK,
            entry: |a, s| {
                let state = s.map_or(String::new(), |s| format!(", state={s}"));
                format!(
                    "ComputeSchedules(compute_start_stop=[ComputeStartStopSchedule(trigger=CronTrigger(expression=\"0 18 * * *\"), action={a}{state})])"
                )
            },
            at: (5, 32),
        },
    ]
}

/// The variants, by folder: the `schedules` value of each source, and whether AML602
/// fires.
fn variants(s: &Source) -> Vec<(&'static str, String, bool)> {
    let (q, stop, start, enabled, disabled, param_state, param_all) = match s.dir {
        "arm" => (
            '"',
            "Stop",
            "Start",
            "Enabled",
            "Disabled",
            "\"[parameters('stopState')]\"",
            "\"[parameters('schedules')]\"",
        ),
        "bicep" => (
            '\'',
            "Stop",
            "Start",
            "Enabled",
            "Disabled",
            "stopState",
            "schedules",
        ),
        "azapi" => (
            '"',
            "Stop",
            "Start",
            "Enabled",
            "Disabled",
            "var.stop_state",
            "var.schedules",
        ),
        _ => ('"', "stop", "start", "enabled", "disabled", "state", "schedules"),
    };
    let lit = |v: &str| format!("{q}{v}{q}");
    let e = |a: String, st: Option<String>| (s.entry)(&a, st.as_deref());
    let mut out = vec![
        ("enabled-stop", e(lit(stop), Some(lit(enabled))), false),
        ("stop-default-state", e(lit(stop), None), false),
        ("disabled-stop", e(lit(stop), Some(lit(disabled))), true),
        ("start-only", e(lit(start), Some(lit(enabled))), true),
        (
            "unknown-state",
            e(lit(stop), Some(param_state.to_string())),
            false,
        ),
        ("unknown-schedules", param_all.to_string(), false),
    ];
    if s.dir == "sdk" {
        // The SDK's enums stand for their values.
        out.push((
            "enum-stop",
            e(
                "ComputePowerAction.STOP".into(),
                Some("ScheduleState.ENABLED".into()),
            ),
            false,
        ));
        out.push((
            "enum-disabled",
            e(
                "ComputePowerAction.STOP".into(),
                Some("ScheduleState.DISABLED".into()),
            ),
            true,
        ));
    }
    out
}

fn amlint(root: &Path, args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(root)
        .env("AMLINT_TODAY", "2026-11-22")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_stop_schedule_is_read_from_arm_bicep_azapi_and_the_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let mut expected: Vec<(String, bool, (u64, u64))> = Vec::new();
    for s in sources() {
        // No schedules (`null`, `None`): AML602 at the definition, as before.
        let none = if s.dir == "sdk" { "None" } else { "null" };
        let mut all = vec![("none", none.to_string(), true)];
        all.extend(variants(&s));
        for (variant, schedules, fires) in all {
            let folder = root.join(s.dir).join(variant);
            std::fs::create_dir_all(&folder).unwrap();
            let text = s.text.replace("{SCHEDULES}", &schedules);
            std::fs::write(folder.join(s.file), text).unwrap();
            expected.push((format!("{}/{variant}/{}", s.dir, s.file), fires, s.at));
        }
    }
    let out = amlint(
        root,
        &[
            "check",
            "--no-config",
            "--no-cache",
            "--format",
            "json",
            "--select",
            "AML602",
            ".",
        ],
    );
    let json: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"));
    let diags = json["diagnostics"].as_array().unwrap();
    let mut wrong = Vec::new();
    for (path, fires, (line, column)) in &expected {
        let got: Vec<(u64, u64)> = diags
            .iter()
            .filter(|d| d["path"] == path.as_str() && d["code"] == "AML602")
            .map(|d| {
                let at = &d["range"]["start"];
                (at["line"].as_u64().unwrap(), at["column"].as_u64().unwrap())
            })
            .collect();
        let want = if *fires {
            vec![(*line, *column)]
        } else {
            Vec::new()
        };
        if got != want {
            wrong.push(format!("{path}: AML602 at {got:?}, expected {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}\n{json}", wrong.join("\n"));
    assert_eq!(
        json["summary"]["files_checked"].as_u64(),
        Some(expected.len() as u64),
        "every file is checked: {json}"
    );

    // An unknown schedule is said, with why, by `--show-files --verbose`.
    let out = amlint(
        root,
        &[
            "check",
            "--no-config",
            "--no-cache",
            "--show-files",
            "--verbose",
            ".",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    for why in [
        "its schedules.compute_start_stop.0.state `computeStartStop[0].status` is not known statically: `parameters('stopState')` has no default value",
        "its schedules `[parameters('schedules')]` is not known statically: `parameters('schedules')` has no default value",
        "its schedules.compute_start_stop.0.state `state` is not known statically: `state` is a parameter of `create()`, set by its callers",
    ] {
        assert!(text.contains(why), "{why}\n{text}");
    }
}

/// A list of more schedules than amlint reads one by one (`MAX_LIST_ENTRIES`, 64) is
/// unknown as a whole, and `--show-files --verbose` says so: each entry is a setting, and
/// a file of thousands took time quadratic in them. 64 Start entries are still read (and
/// AML602 fires); 65 Stop entries are unknown (AML602 stays silent, as for any unknown).
#[test]
fn a_list_of_more_schedules_than_amlint_reads_is_unknown_as_a_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let arm_entry = |a: &str| {
        format!(
            "{{ \"triggerType\": \"Cron\", \"cron\": {{ \"expression\": \"0 18 * * *\" }}, \"action\": \"{a}\" }}"
        )
    };
    let sdk_entry = |a: &str| {
        format!("ComputeStartStopSchedule(trigger=CronTrigger(expression=\"0 18 * * *\"), action=\"{a}\")")
    };
    for (n, action, folder) in [(64, "Start", "read"), (65, "Stop", "unknown")] {
        let arm = vec![arm_entry(action); n].join(", ");
        let sdk = vec![sdk_entry(&action.to_lowercase()); n].join(", ");
        let write = |file: &str, text: String| {
            let p = root.join(folder).join(file);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "ci.json",
            ARM.replace("{SCHEDULES}", &format!("{{ \"computeStartStop\": [ {arm} ] }}")),
        );
        write(
            "ci.py",
            SDK.replace(
                "{SCHEDULES}",
                &format!("ComputeSchedules(compute_start_stop=[{sdk}])"),
            ),
        );
    }
    let out = amlint(
        root,
        &[
            "check",
            "--no-config",
            "--no-cache",
            "--format",
            "json",
            "--select",
            "AML602",
            ".",
        ],
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut fired: Vec<String> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect();
    fired.sort();
    assert_eq!(fired, ["read/ci.json", "read/ci.py"], "{json}");
    let out = amlint(
        root,
        &[
            "check",
            "--no-config",
            "--no-cache",
            "--show-files",
            "--verbose",
            "unknown",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    for why in [
        "`computeStartStop` has 65 entries, more than the 64 amlint reads",
        "`compute_start_stop` has 65 entries, more than the 64 amlint reads",
    ] {
        assert!(text.contains(why), "{why}\n{text}");
    }
}
