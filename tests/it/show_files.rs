//! `amlint check --show-files` (each file: the kind it is checked as, or why it is
//! skipped; exit 0) and `--verbose` (how each kind was decided, and when it was
//! uncertain).

use std::time::Duration;

use assert_cmd::Command;

use crate::common::write;

fn amlint() -> Command {
    let mut cmd = Command::cargo_bin("amlint").unwrap();
    cmd.timeout(Duration::from_secs(60)).env("NO_COLOR", "1");
    cmd
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An invalid job: --show-files still exits 0.
    write(
        d,
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python x.py\nenvironment: azureml:e:1\ncompute: local\ninstance_count: 2\n",
    );
    write(
        d,
        "endpoint.yml",
        "$schema: https://azuremlsdk2.blob.core.windows.net/latest/onlineEndpoint.schema.json\nname: e\nauth_mode: key\n",
    );
    write(d, "conda.yml", "name: env\ndependencies: [python=3.10]\n");
    write(d, "flow.dag.yaml", "inputs: {}\nnodes: []\n");
    write(
        d,
        "either.yml",
        "type: command\ncommand: python x.py\nenvironment: azureml:e:1\n",
    );
    write(d, "notes.yml", "title: hello\n");
    dir
}

#[test]
fn show_files_lists_each_file_and_exits_0() {
    let dir = project();
    let out = amlint()
        .current_dir(dir.path())
        .args(["check", "--no-config", "--show-files", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "conda.yml: skipped: a conda environment specification (an Azure ML environment's `conda_file`), not an Azure ML configuration",
            "either.yml: checked as commandJob (uncertain)",
            "endpoint.yml: checked as managedOnlineEndpoint",
            "flow.dag.yaml: skipped: a prompt flow file (flow, run or connection definition, read by the `pf` CLI and prompt flow in Azure AI); amlint does not check prompt flow files",
            "job.yml: checked as commandJob",
            "notes.yml: skipped: not an Azure ML configuration: no `$schema` names a kind, and neither its keys nor its file name match one",
            "6 files: 3 checked, 3 skipped",
        ],
        "{text}"
    );
}

#[test]
fn verbose_says_how_each_kind_was_decided() {
    let dir = project();
    let out = amlint()
        .current_dir(dir.path())
        .args(["check", "--no-config", "--show-files", "--verbose", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let block = |file: &str| -> Vec<String> {
        let mut lines = text.lines().skip_while(|l| !l.starts_with(&format!("{file}:")));
        let mut out = vec![lines.next().unwrap_or_default().to_string()];
        out.extend(lines.take_while(|l| l.starts_with("  ")).map(str::to_string));
        out
    };
    assert_eq!(
        block("endpoint.yml"),
        [
            "endpoint.yml: checked as managedOnlineEndpoint",
            "  - its `$schema` names `onlineEndpoint`, the 2021 preview name of a managed online endpoint (az ml online-endpoint create)",
            "  - `az ml online-endpoint create` takes it as a managed online endpoint (has none of `compute`)",
        ],
        "{text}"
    );
    let either = block("either.yml").join("\n");
    assert!(either.contains("its keys match the `job` files"), "{either}");
    assert!(
        either.contains("  - uncertain: a `type: command|pipeline|spark` file without `version`"),
        "{either}"
    );
    assert!(
        either
            .contains("checked as a command job, with no schema finding if it is a valid command component"),
        "{either}"
    );
    assert!(
        block("job.yml")
            .join("\n")
            .contains("its `$schema` names `commandJob` (az ml job create)")
    );
}

#[test]
fn verbose_alone_keeps_the_findings_on_stdout() {
    let dir = project();
    let out = amlint()
        .current_dir(dir.path())
        .args(["check", "--no-config", "--format", "json", "-v", "job.yml"])
        .output()
        .unwrap();
    // The findings as without --verbose (an unknown key: exit 1), the explanation on stderr.
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["code"], "AML101");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("job.yml: checked as commandJob\n  - its `$schema` names `commandJob`"),
        "{err}"
    );
}

/// A script or a Terraform file that defines computes is checked for its definitions;
/// `--verbose` names each, where, and every value not known statically with why (issue
/// 35: a dynamic value is never guessed, and `--show-files --verbose` says why).
#[test]
fn files_that_define_computes_say_what_they_define_and_what_is_not_known() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "setup.sh",
        "SIZE=Standard_DS3_v2\naz ml compute create --name cpu --type amlcompute --size $SIZE\naz ml compute create --name \"$1\" --type amlcompute \\\n  --size \"$(cat size.txt)\"\n",
    );
    write(d, "notes.sh", "echo hello\n");
    let out = amlint()
        .current_dir(d)
        .args(["check", "--no-config", "--show-files", "--verbose", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "notes.sh: skipped: not an Azure ML configuration\n\
         setup.sh: checked for its compute definitions (cpu, `$1`)\n\
         \x20 - line 2: az ml compute create defines `cpu` (az-cli)\n\
         \x20 - line 3: az ml compute create defines a compute named `$1` (az-cli)\n\
         \x20   - its name `$1` is not known statically: the script's argument 1 is given when it runs; no reference resolves to it\n\
         \x20   - its size `$(cat size.txt)` is not known statically: it is the output of a command; no rule judges it\n\
         2 files: 1 checked, 1 skipped\n",
        "{text}"
    );
}

/// A GitHub Actions workflow has the `name` and `defaults` a batch endpoint is detected by;
/// an MLflow `deploy-config-file` is named like an SDK v1 deployment configuration. Neither
/// is an Azure ML file — in `.github/workflows`, in a nested `.github`, or named on the
/// command line — and `--verbose` says what each is; a real batch endpoint and a v1
/// configuration without `computeType` still are.
#[test]
fn workflows_and_mlflow_deploy_configs_are_not_azure_ml_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let workflow = "name: CI - API Gateway\non: push\ndefaults:\n  run:\n    working-directory: app\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n";
    write(d, ".github/workflows/ci.yml", workflow);
    write(d, "v4/.github/workflows/ci.yml", workflow);
    write(
        d,
        "serving/deployment_config.json",
        "{\"instance_type\": \"Standard_DS3_v2\", \"instance_count\": 1}\n",
    );
    write(
        d,
        "v1/deployment_config.json",
        "{\"containerResourceRequirements\": {\"cpu\": 1, \"memoryInGB\": 1}}\n",
    );
    write(
        d,
        "batch/endpoint.yml",
        "name: nightly\ndefaults:\n  deployment_name: blue\n",
    );
    // `amlint check --no-config ARGS` in the project: its exit code and output.
    let check = |args: &[&str]| {
        let out = amlint()
            .current_dir(d)
            .args(["check", "--no-config"])
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (_, text) = check(&["--show-files", "--verbose", "."]);
    let ci = "skipped: a CI/CD pipeline definition (GitHub Actions, Azure Pipelines or GitLab CI), not an Azure ML configuration";
    for expected in [
        format!(".github/workflows/ci.yml: {ci}"),
        format!("v4/.github/workflows/ci.yml: {ci}"),
        "batch/endpoint.yml: checked as batchEndpoint".to_string(),
        "serving/deployment_config.json: skipped: not an Azure ML configuration: its file name matches `*deployment_config*.json` (az ml model deploy --deploy-config-file (SDK v1)), but it has none of the keys of one (`computeType`, `containerResourceRequirements`, `gpuCores` and 27 more)".to_string(),
        "v1/deployment_config.json: checked as v1.deploymentConfig".to_string(),
        "  - its file name matches `*deployment_config*.json` (az ml model deploy --deploy-config-file (SDK v1)), and it has `containerResourceRequirements`, a key of one".to_string(),
    ] {
        assert!(text.lines().any(|l| l == expected), "{expected}\n{text}");
    }

    // The findings: AML104 on the v1 configuration alone.
    let (_, text) = check(&["--format", "concise", "--fail-on", "never", "."]);
    let findings: Vec<&str> = text.lines().filter(|l| l.contains(": AML")).collect();
    assert_eq!(findings.len(), 1, "{text}");
    assert!(
        findings[0].starts_with("v1/deployment_config.json:1:2: AML104"),
        "{text}"
    );

    // Named on the command line: not an Azure ML file either, no finding, exit 0.
    let (code, text) = check(&[
        "--format",
        "concise",
        ".github/workflows/ci.yml",
        "v4/.github/workflows/ci.yml",
        "serving/deployment_config.json",
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("AML"), "{text}");
}

/// Audit 10, defect 6: a dev container's `devcontainer.json` (`name`, `image`, and keys of
/// its own) is not an Azure ML environment, with or without the comments JSONC allows.
#[test]
fn a_dev_container_definition_is_skipped_as_what_it_is() {
    let dir = crate::common::project();
    let d = dir.path();
    let plain = "{\n  \"name\": \"Python 3\",\n  \"image\": \"mcr.microsoft.com/devcontainers/python:3.11\",\n  \"features\": { \"ghcr.io/devcontainers/features/azure-cli:1\": {} },\n  \"postCreateCommand\": \"pip install -r requirements.txt\"\n}\n";
    write(d, ".devcontainer/devcontainer.json", plain);
    write(
        d,
        "tools/devcontainer.json",
        &format!("// made by VS Code\n{plain}"),
    );
    write(
        d,
        "other/devcontainer.json",
        "{\"build\": {\"dockerfile\": \"Dockerfile\"}, \"customizations\": {}, \"name\": \"x y\"}\n",
    );
    let out = amlint()
        .current_dir(d)
        .args(["check", "--show-files", "--no-config", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    for f in [
        ".devcontainer/devcontainer.json",
        "tools/devcontainer.json",
        "other/devcontainer.json",
    ] {
        assert!(
            stdout.contains(&format!("{f}: skipped: a dev container definition")),
            "{f}: {stdout}"
        );
    }
    let out = amlint()
        .current_dir(d)
        .args([
            "check",
            "--no-config",
            "--format",
            "json",
            "--fail-on",
            "info",
            ".",
        ])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["diagnostics"].as_array().unwrap().len(), 0, "{json}");
    assert_eq!(out.status.code(), Some(0));
}
