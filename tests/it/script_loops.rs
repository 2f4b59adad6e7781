//! A bash `for` loop over known words (audit 32, case 05): the command inside is read once
//! per item, the loop's variable that item, so each compute it creates is defined by name,
//! references resolve, and a flagged size from the loop is reported at the command with
//! the item's literal as its origin. A loop whose items are not known (a command's output,
//! a file pattern) or too many leaves its definition not known, and says why.

use crate::common::{check_clean, definitions, focus_lines, inventory, job_using, names, unnamed, write};

fn has_203(json: &serde_json::Value) -> bool {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "AML203")
}

/// Both names of a literal list are computes of the project; the job's reference to the
/// second resolves; each definition says which item made it.
#[test]
fn a_loop_over_literal_names_defines_each() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "infra/setup.sh",
        "#!/bin/bash\nset -e\nfor c in cpu-cluster gpu-cluster; do\n  az ml compute create --name \"$c\" --type amlcompute --size Standard_DS3_v2 --min-instances 0\ndone\n",
    );
    write(d, "jobs/train.yml", &job_using(&["gpu-cluster"]));
    let json = check_clean(d);
    assert!(!has_203(&json), "{json:#}");
    let inv = inventory(d);
    let n = names(&inv);
    assert!(
        n.contains(&"cpu-cluster".to_string()) && n.contains(&"gpu-cluster".to_string()),
        "{inv:#}"
    );
    let def = &definitions(&inv, "gpu-cluster")[0];
    assert_eq!(def["line"], 4, "{def:#}");
    let notes = def["notes"].to_string();
    assert!(notes.contains("item 2 of 2 (`gpu-cluster`)"), "{notes}");
    assert!(unnamed(&inv, "infra/setup.sh").is_empty(), "{inv:#}");
}

/// A size from the loop's variable: the retired one is reported once, at the command's
/// line, and the name built from the item (`"gpu-$s"` through an assignment in the body)
/// is known.
#[test]
fn a_size_from_a_loop_is_checked_per_item() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = "#!/bin/bash\nSIZES=\"Standard_NC6 Standard_DS3_v2\"\nfor s in $SIZES\ndo\n  name=\"c-${s}\"\n  az ml compute create -n \"$name\" --type amlcompute \\\n    --size \"$s\" --min-instances 0\ndone\n";
    write(d, "setup.sh", script);
    write(d, "job.yml", &job_using(&["c-Standard_NC6"]));
    let json = check_clean(d);
    assert!(!has_203(&json), "{json:#}");
    assert_eq!(focus_lines(&json, "setup.sh", "AML505"), [7], "{json:#}");
    let inv = inventory(d);
    assert_eq!(definitions(&inv, "c-Standard_DS3_v2").len(), 1, "{inv:#}");
}

/// An array's elements (`"${arr[@]}"`) and nested loops (each combination).
#[test]
fn arrays_and_nested_loops() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = "#!/bin/bash\nclusters=(\"cpu\" 'gpu')\nfor env in dev prod; do\n  for c in \"${clusters[@]}\"; do\n    az ml compute create --name \"$c-$env\" --type amlcompute --size Standard_DS3_v2\n  done\ndone\n";
    write(d, "setup.sh", script);
    let inv = inventory(d);
    let mut n = names(&inv);
    n.sort();
    assert_eq!(n, ["cpu-dev", "cpu-prod", "gpu-dev", "gpu-prod"], "{inv:#}");
}

/// Loops whose items are not known: a command's output, a pattern of file names, and a
/// list longer than amlint reads. Each definition stays not known and says it is the
/// loop's variable; none is guessed.
#[test]
fn loops_not_known_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let many: Vec<String> = (0..100).map(|i| format!("c{i}")).collect();
    let script = format!(
        "#!/bin/bash\nfor c in $(cat names.txt); do\n  az ml compute create --name \"$c\" --type amlcompute\ndone\nfor f in computes/*.yml; do\n  az ml compute create --name \"$f\" --type amlcompute\ndone\nfor c in {}; do\n  az ml compute create --name \"$c\" --type amlcompute\ndone\n",
        many.join(" ")
    );
    write(d, "setup.sh", &script);
    // A C-style loop's counter is not its header's `i=0` (no `c0`).
    write(
        d,
        "counted.sh",
        "#!/bin/bash
for ((i=0; i<3; i++)); do
  az ml compute create --name \"c$i\" --type amlcompute
done
",
    );
    let inv = inventory(d);
    assert!(names(&inv).is_empty(), "{inv:#}");
    let un = unnamed(&inv, "setup.sh");
    assert_eq!(un.len(), 3, "{inv:#}");
    for u in un {
        assert!(u.to_string().contains("loop's variable"), "{u:#}");
    }
    assert_eq!(unnamed(&inv, "counted.sh").len(), 1, "{inv:#}");
}

/// Hostile: a script of 5,000 assignments with a loop of 60 items: reading each item
/// copies the script's assignments, so beyond 200,000 copies the loop is not expanded
/// and its definition says it is the loop's variable.
#[test]
fn a_loop_in_a_large_script_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut script = String::from("#!/bin/bash\n");
    for i in 0..5_000 {
        script.push_str(&format!("V{i}=value{i}\n"));
    }
    let items: Vec<String> = (0..60).map(|i| format!("c{i}")).collect();
    script.push_str(&format!(
        "for c in {}; do\n  az ml compute create --name \"$c\" --type amlcompute\ndone\nfor c in small-a small-b; do\n  az ml compute create --name \"$c\" --type amlcompute\ndone\n",
        items.join(" ")
    ));
    write(d, "setup.sh", &script);
    let inv = inventory(d);
    assert_eq!(names(&inv), ["small-a", "small-b"], "{inv:#}");
    let un = unnamed(&inv, "setup.sh");
    assert_eq!(un.len(), 1, "{inv:#}");
    assert!(un[0].to_string().contains("loop's variable"), "{:#}", un[0]);
}
