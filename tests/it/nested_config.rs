//! Nested configurations (issue 20, item 2): a root `amlint.toml` with `[inventory]` and
//! a sub-folder with its own `amlint.toml`. The root's inventory is the project's: files
//! under the sub-folder see it, and checking one file (what pre-commit runs) reports what
//! the whole-project run reports for that file.

use std::path::Path;

use serde_json::Value;

use crate::common::{amlint, write};

/// (path relative to the project, code) of every finding of a run in `cwd`.
fn findings(cwd: &Path, root: &Path, args: &[&str]) -> Vec<(String, String)> {
    let out = amlint(cwd)
        .args(["check", "--format", "json", "--fail-on", "never"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: Vec<(String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let path = cwd.join(d["path"].as_str().unwrap());
            let path = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace("/./", "/");
            (
                path.trim_start_matches("./").to_string(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    write(
        d,
        "amlint.toml",
        "[[inventory.computes]]\nname = \"cpu-cluster\"\ntype = \"amlcompute\"\nsize = \"Standard_DS3_v2\"\n\n[[inventory.models]]\nname = \"credit\"\nversion = \"3\"\nsize_bytes = 2_000_000_000\n",
    );
    // The team folder's own configuration: a profile and the deployment it serves, no
    // inventory of computes or models.
    write(
        d,
        "ml/amlint.toml",
        "profile = \"production\"\n\n[[inventory.deployments]]\nconfig = \"deploy/aci.json\"\nmodel = \"credit:3\"\n",
    );
    write(
        d,
        "ml/endpoint.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/kubernetesOnlineEndpoint.schema.json\nname: credit-scoring\ncompute: azureml:cpu-cluster\nauth_mode: key\n",
    );
    write(
        d,
        "ml/deploy/aci.json",
        "{\"computeType\": \"ACI\", \"containerResourceRequirements\": {\"cpu\": 1, \"memoryInGB\": 4}}\n",
    );
    write(
        d,
        "ml/jobs/train.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\ncode: .\nenvironment: azureml:sklearn:1\ncompute: azureml:cpu-cluster\n",
    );
    dir
}

#[test]
fn a_nested_configuration_keeps_the_project_inventory() {
    let dir = project();
    let root = dir.path();
    let all = findings(root, root, &[]);
    let codes = |file: &str| -> Vec<String> {
        all.iter()
            .filter(|(p, _)| p == file)
            .map(|(_, c)| c.clone())
            .collect()
    };
    // A real-time endpoint on the root inventory's compute cluster.
    assert!(
        codes("ml/endpoint.yml").contains(&"AML302".to_string()),
        "{all:?}"
    );
    // An ACI config serving the root inventory's 2 GB model.
    assert!(
        codes("ml/deploy/aci.json").contains(&"AML401".to_string()),
        "{all:?}"
    );
    // The root inventory's compute is known: no AML203 unresolved reference.
    assert!(
        !codes("ml/jobs/train.yml").contains(&"AML203".to_string()),
        "{all:?}"
    );
}

#[test]
fn one_file_gets_the_findings_of_the_whole_project_run() {
    let dir = project();
    let root = dir.path();
    let all = findings(root, root, &[]);
    for file in ["ml/endpoint.yml", "ml/deploy/aci.json", "ml/jobs/train.yml"] {
        let whole: Vec<_> = all.iter().filter(|(p, _)| p == file).cloned().collect();
        // From the repository's root, from the team folder, and from the file's folder.
        assert_eq!(findings(root, root, &[file]), whole, "{file} from the root");
        let sub = root.join("ml");
        assert_eq!(
            findings(&sub, root, &[file.trim_start_matches("ml/")]),
            whole,
            "{file} from ml/"
        );
        let here = root.join(file).parent().unwrap().to_path_buf();
        let name = Path::new(file).file_name().unwrap().to_str().unwrap();
        assert_eq!(findings(&here, root, &[name]), whole, "{file} from its folder");
    }
}

/// The message and help of each AML203 of `amlint check --no-config ARGS` in `cwd`.
fn aml203_of(cwd: &Path, args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["--no-config", "--fail-on", "never"];
    all.extend_from_slice(args);
    let (_, report) = crate::common::json_check(cwd, &all);
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "AML203")
        .map(|d| {
            (
                d["message"].as_str().unwrap().to_string(),
                d["help"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Outside a git work tree and without an `amlint.toml`, a run of one file takes the
/// file's folder as the project (docs/configuration.md, rule 3). A compute the project
/// defines elsewhere is then not found, and AML203 must not claim that "this project"
/// lacks it: it names the folder it searched and says how to search the whole project.
/// Where the folder searched is the working directory, or a git work tree marks the
/// project, the message is as before.
#[test]
fn a_one_file_run_without_a_project_marker_names_the_folder_it_searched() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "scripts/amlcompute.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: my-aml-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\n",
    );
    write(
        root,
        "src/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:my-aml-cluster\n",
    );
    // The whole folder: the compute resolves.
    assert_eq!(aml203_of(root, &["."]), []);
    // One file, from the top: the folder searched is `src/`, and the message says so.
    let found = aml203_of(root, &["src/job.yml"]);
    assert_eq!(found.len(), 1, "{found:?}");
    let (message, help) = &found[0];
    assert!(
        message.starts_with(
            "no compute named `my-aml-cluster` is defined in `src/` (the folder taken as the project: no git work tree or amlint.toml above the checked files marks a larger one) or in the `[inventory]`"
        ),
        "{message}"
    );
    assert!(!message.contains("this project"), "{message}");
    assert!(
        help.starts_with("If the project defines it outside `src/`, check the project's top folder (`amlint check .` in it)"),
        "{help}"
    );
    // From the folder itself, the folder searched is where the run started: as before.
    let found = aml203_of(&root.join("src"), &["job.yml"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].0.contains("is defined in this project or in"),
        "{found:?}"
    );
    assert!(found[0].1.starts_with("Add the compute's YAML"), "{found:?}");
    // A git work tree marks the project: the one-file run searches all of it.
    std::fs::create_dir_all(root.join(".git")).unwrap();
    assert_eq!(aml203_of(root, &["src/job.yml"]), []);
}

/// The folder AML203 names is written as the run's input writes it (never an absolute
/// path the user did not type), and a run given the folder itself, or one above it, names
/// none: it walked all of it.
#[test]
fn the_folder_searched_is_written_as_the_input_and_only_for_part_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "a/src/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: azureml:nowhere\n",
    );
    std::fs::create_dir_all(root.join("b")).unwrap();
    let message = |cwd: &Path, arg: &str| -> String {
        let found = aml203_of(cwd, &[arg]);
        assert_eq!(found.len(), 1, "{found:?}");
        found[0].0.clone()
    };
    let named = |m: &str| m.split('`').nth(3).unwrap_or("").to_string();
    assert_eq!(named(&message(root, "a/src/job.yml")), "a/src/");
    assert_eq!(named(&message(&root.join("b"), "../a/src/job.yml")), "../a/src/");
    let absolute = root.join("a/src/job.yml");
    assert_eq!(
        named(&message(&root.join("b"), absolute.to_str().unwrap())),
        format!("{}/", root.join("a/src").display())
    );
    for (cwd, arg) in [(root, "a/src"), (root, "a"), (&root.join("b"), "../a")] {
        let m = message(cwd, arg);
        assert!(m.contains("is defined in this project or in"), "{arg}: {m}");
    }
}
