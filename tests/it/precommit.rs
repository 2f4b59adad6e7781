//! The pre-commit hook without Python: `.pre-commit-hooks.yaml` is well formed, its
//! `files` pattern picks the right files, and its entry, run the way pre-commit runs it
//! (from the repository root, with only the changed files), applies the configuration and
//! sees the whole project. The real `pre-commit` run is
//! `scripts/precommit-try-repo.sh` (docs/pre-commit.md).

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

fn hooks() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let loaded = amlint::load::parse_text(
        ".pre-commit-hooks.yaml",
        text,
        amlint::load::Format::Yaml,
        &Default::default(),
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    loaded.documents[0].to_json()
}

fn hook() -> Value {
    let all = hooks();
    let list = all.as_array().expect("a list of hooks");
    list.iter()
        .find(|h| h["id"] == "amlint")
        .cloned()
        .expect("a hook with id amlint")
}

#[test]
fn hook_definition() {
    let h = hook();
    assert_eq!(h["name"], "amlint");
    assert_eq!(h["language"], "rust");
    assert_eq!(h["require_serial"], true);
    let entry = h["entry"].as_str().unwrap();
    assert!(entry.starts_with("amlint check"), "{entry}");
    // pre-commit's `files` is a Python regex; this one uses nothing Rust's regex lacks.
    let files = regex::Regex::new(h["files"].as_str().unwrap()).unwrap();
    for yes in [
        "a.yml",
        "jobs/b.YAML",
        "deploy/deploymentconfig.json",
        "MLTable",
        "data/MLTable",
    ] {
        assert!(files.is_match(yes), "{yes} should be checked");
    }
    for no in ["train.py", "README.md", "a.yml.bak", "notMLTable2"] {
        assert!(!files.is_match(no), "{no} should not be checked");
    }
    // Every key is one pre-commit knows.
    let known = [
        "id",
        "name",
        "description",
        "entry",
        "language",
        "files",
        "exclude",
        "types",
        "types_or",
        "exclude_types",
        "args",
        "require_serial",
        "minimum_pre_commit_version",
        "pass_filenames",
        "always_run",
        "stages",
        "verbose",
    ];
    for key in h.as_object().unwrap().keys() {
        assert!(known.contains(&key.as_str()), "unknown hook key {key}");
    }
}

/// The second hook runs the installed amlint (`pip install amlint`): the same entry, files
/// and serial run as the hook pre-commit builds, with nothing to build.
#[test]
fn system_hook_is_the_same_hook_with_the_installed_amlint() {
    let all = hooks();
    let system = all
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "amlint-system")
        .cloned()
        .expect("a hook with id amlint-system");
    assert_eq!(system["language"], "system");
    let built = hook();
    for key in ["entry", "files", "require_serial", "minimum_pre_commit_version"] {
        assert_eq!(system[key], built[key], "{key}");
    }
}

#[test]
fn entry_runs_like_pre_commit_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let write = |name: &str, text: &str| {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let job = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:cpu-cluster\n";
    write("amlint.toml", "extend-exclude = [\"legacy\"]\n");
    write("jobs/good.yml", job);
    write("jobs/bad.yml", &format!("{job}compute: azureml:gpu\n"));
    write("legacy/old.yml", &format!("{job}compute: azureml:gpu\n"));
    write("conda.yml", "name: env\n");
    // The compute the jobs run on is defined in a file pre-commit does not pass.
    write(
        "compute/cpu.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: cpu-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: /subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s\n",
    );

    let entry = hook()["entry"].as_str().unwrap().to_string();
    let mut words = entry.split_whitespace();
    assert_eq!(words.next(), Some("amlint"));
    let args: Vec<String> = words.map(str::to_string).collect();
    let run = |files: &[&str]| {
        Command::cargo_bin("amlint")
            .unwrap()
            .timeout(Duration::from_secs(60))
            .current_dir(root)
            .env_remove("NO_COLOR")
            .args(&args)
            .args(files)
            .output()
            .unwrap()
    };
    let out = run(&["jobs/good.yml", "conda.yml"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Cross-file facts come from the whole project: `cpu-cluster` resolves (no AML203)
    // although only the job was passed, and only the job is reported.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("AML203") && !text.contains("compute/cpu.yml"),
        "{text}"
    );
    assert!(text.contains("1 file checked, 1 skipped"), "{text}");
    let out = run(&["jobs/bad.yml", "legacy/old.yml"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("jobs/bad.yml") && !text.contains("legacy/old.yml"),
        "{text}"
    );
    // The excluded file alone passes: pre-commit names it, the configuration excludes it.
    assert_eq!(run(&["legacy/old.yml"]).status.code(), Some(0));

    // One changed file deep in the tree: the project is still the whole repository.
    let report = amlint::pipeline::check_paths(
        &[root.join("jobs/good.yml")],
        &amlint::pipeline::Options {
            force_exclude: true,
            ..Default::default()
        },
    );
    let project = report.project.unwrap();
    assert_eq!(project.root, amlint::config::normalize(root));
    assert_eq!(report.files.len(), 1);
}
