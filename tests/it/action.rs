//! The GitHub Action: `action.yml` is valid YAML whose inputs all reach the run step, and
//! its run step (`scripts/action-run.sh`) runs amlint as the inputs say.

use std::path::Path;

use serde_json::Value;

fn action() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    let loaded = amlint::load::parse_text(
        "action.yml",
        std::fs::read_to_string(path).unwrap(),
        amlint::load::Format::Yaml,
        &Default::default(),
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    loaded.documents[0].to_json()
}

#[test]
fn every_input_reaches_the_run_step() {
    let a = action();
    assert_eq!(a["runs"]["using"], "composite");
    let steps = a["runs"]["steps"].as_array().unwrap();
    let text = serde_json::to_string(steps).unwrap();
    let inputs = a["inputs"].as_object().unwrap();
    for name in [
        "paths", "format", "fail-on", "output", "config", "baseline", "version",
    ] {
        assert!(inputs.contains_key(name), "input {name} is missing");
    }
    for name in inputs.keys() {
        assert!(
            text.contains(&format!("${{{{ inputs.{name} }}}}")),
            "input {name} is not used"
        );
    }
    assert!(text.contains("scripts/action-run.sh"));
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scripts/action-run.sh")
            .is_file()
    );
}

#[test]
fn run_step_follows_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("jobs")).unwrap();
    let job = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\n";
    std::fs::write(root.join("jobs/bad.yml"), format!("{job}compute: local\n")).unwrap();
    std::fs::write(root.join("other dir.yml"), job).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("amlint");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action-run.sh");
    let run = |envs: &[(&str, &str)]| {
        let outputs = root.join("github-output");
        let _ = std::fs::remove_file(&outputs);
        let out = std::process::Command::new("bash")
            .arg(&script)
            .current_dir(root)
            .env("PATH", &path)
            .env("GITHUB_OUTPUT", &outputs)
            .envs(envs.iter().copied())
            .output()
            .unwrap();
        let recorded = std::fs::read_to_string(&outputs).unwrap_or_default();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            recorded,
        )
    };
    let (code, stdout, outputs) = run(&[
        ("INPUT_PATHS", "jobs\nother dir.yml"),
        ("INPUT_FORMAT", "sarif"),
        ("INPUT_OUTPUT", "amlint.sarif"),
    ]);
    assert_eq!(code, Some(1), "{stdout}");
    assert_eq!(outputs, "exit-code=1\n");
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("amlint.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 1);
    // Defaults: annotations for the current directory, failing on errors.
    let (code, stdout, _) = run(&[]);
    assert_eq!(code, Some(1));
    assert!(stdout.starts_with("::error file=jobs/bad.yml,line=5"), "{stdout}");
    let (code, _, outputs) = run(&[("INPUT_FAIL_ON", "never")]);
    assert_eq!((code, outputs.as_str()), (Some(0), "exit-code=0\n"));
    let (code, _, _) = run(&[("INPUT_CONFIG", "missing.toml")]);
    assert_eq!(code, Some(2));
}
