//! Where the az CLI commands that create computes are read, and where the file a command
//! names is: an Azure CLI scratchpad (`.azcli`, VS Code's Azure CLI Tools) is a shell
//! script like `.sh`; a CI step that runs in a working directory (GitHub's
//! `working-directory`, its `defaults.run`, Azure Pipelines' `workingDirectory`) reads
//! `-f compute.yml` there, relative to the repository; and what a command's `--set` gives.

use serde_json::Value;

use crate::capped;
use crate::common::write;

const COMPUTE: &str = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu-cluster\ntype: amlcompute\nsize: Standard_NC6\nmin_instances: 0\nmax_instances: 2\n";

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml:AzureML-sklearn-1.0-ubuntu20.04-py38-cpu@latest\ncompute: azureml:gpu-cluster\n";

const SCRATCHPAD: &str = "# Azure CLI scratchpad (VS Code \"Azure CLI Tools\" extension, .azcli)\naz ml compute create --name gpu-cluster --size Standard_NC6 --type AmlCompute --min-instances 0 --max-instances 2\n";

/// Each finding of `path`: its code and where it starts (line, column).
fn found(json: &Value, path: &str) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"] == path)
        .map(|d| {
            let start = &d["range"]["start"];
            (
                d["code"].as_str().unwrap().to_string(),
                start["line"].as_u64().unwrap(),
                start["column"].as_u64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn has(json: &Value, path: &str, code: &str) -> bool {
    found(json, path).iter().any(|(c, _, _)| c == code)
}

/// The audit's case: the same command in `setup.azcli` and in `setup.sh` defines the same
/// compute with the same findings at the same places, and resolves the job's reference; a
/// suppression comment in a scratchpad works as in a shell script.
#[test]
fn an_azcli_scratchpad_defines_computes_as_a_shell_script_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "a/setup.azcli", SCRATCHPAD);
    write(d, "a/job.yml", JOB);
    write(d, "b/setup.sh", SCRATCHPAD);
    write(d, "b/job.yml", JOB);
    let quiet = SCRATCHPAD.replace(
        "\naz ml",
        "\n# amlint: ignore[AML505, AML702, AML704] -- a lab cluster\naz ml",
    );
    write(d, "c/setup.azcli", &quiet);
    let json = capped::check_json(d);
    let scratchpad = found(&json, "a/setup.azcli");
    assert!(scratchpad.contains(&("AML505".to_string(), 2, 48)), "{json:#}");
    assert_eq!(scratchpad, found(&json, "b/setup.sh"), "{json:#}");
    assert!(!has(&json, "a/job.yml", "AML203"), "{json:#}");
    assert_eq!(
        found(&json, "c/setup.azcli"),
        [],
        "suppressed, none unused: {json:#}"
    );
}

/// Audit 14, defect 2: a compute instance's idle shutdown given by `--set` (either key the
/// SDK sends as `idleTimeBeforeShutdown`) keeps AML602 silent, as in its YAML; the
/// instance without one still gets it, at its name.
#[test]
fn set_gives_a_compute_instance_its_idle_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let script = "#!/bin/bash\n\
az ml compute create --name alice-ci --type ComputeInstance --size Standard_DS3_v2 \\\n  --set idle_time_before_shutdown_minutes=60\n\
az ml compute create --name bob-ci --type ComputeInstance --size Standard_DS3_v2 \\\n  --set idle_time_before_shutdown=PT1H\n\
az ml compute create --name carol-ci --type ComputeInstance --size Standard_DS3_v2 \\\n  --set enable_node_public_ip=False\n";
    write(dir.path(), "setup.sh", script);
    let json = capped::check_json(dir.path());
    let idle: Vec<(String, u64, u64)> = found(&json, "setup.sh")
        .into_iter()
        .filter(|(c, ..)| c == "AML602")
        .collect();
    assert_eq!(idle, [("AML602".to_string(), 6, 29)], "{json:#}");
}

const WORKFLOW: &str = "on: workflow_dispatch\njobs:\n  create-compute:\n    runs-on: ubuntu-latest\n    defaults:\n      run:\n        working-directory: mlops/azureml\n    steps:\n      - uses: actions/checkout@v4\n      - run: az ml compute create -f compute.yml\n";

/// The audit's case: a job's `defaults.run.working-directory` is where `-f compute.yml`
/// is read, so the retired size is the command's finding (line 10, at the file's name) as
/// when the step writes `-f mlops/azureml/compute.yml`; also when the workflow itself is
/// called `compute.yml` (with a working directory or without one), and for a step's own
/// `working-directory`.
#[test]
fn a_github_steps_working_directory_is_where_az_reads_its_file() {
    let written = WORKFLOW
        .replace(
            "        working-directory: mlops/azureml\n",
            "        shell: bash\n",
        )
        .replace("-f compute.yml", "-f mlops/azureml/compute.yml");
    let step = WORKFLOW
        .replace(
            "        working-directory: mlops/azureml\n",
            "        shell: bash\n",
        )
        .replace(
            "      - run: az",
            "      - working-directory: ./mlops/azureml\n        run: az",
        );
    // No working directory: the workspace's root, where the search from the workflow's
    // folder up finds it, passing over the workflow itself.
    let root = WORKFLOW.replace(
        "        working-directory: mlops/azureml\n",
        "        shell: bash\n",
    );
    let cases = [
        ("infra.yml", WORKFLOW, "mlops/azureml", (10, 38)),
        ("compute.yml", WORKFLOW, "mlops/azureml", (10, 38)),
        ("written.yml", written.as_str(), "mlops/azureml", (10, 38)),
        ("step.yml", step.as_str(), "mlops/azureml", (11, 38)),
        ("compute.yml", root.as_str(), ".", (10, 38)),
    ];
    for (name, text, compute_dir, at) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, &format!("{compute_dir}/compute.yml"), COMPUTE);
        let path = format!(".github/workflows/{name}");
        write(d, &path, text);
        let json = capped::check_json(d);
        let retired: Vec<(u64, u64)> = found(&json, &path)
            .into_iter()
            .filter(|(c, _, _)| c == "AML505")
            .map(|(_, l, c)| (l, c))
            .collect();
        assert_eq!(retired, [at], "{name}: {json:#}");
    }
}

/// Azure Pipelines: a `script:` step's `workingDirectory:` and an `AzureCLI@2` task's
/// `workingDirectory` input, relative to the repository (not to the pipeline's folder).
#[test]
fn an_azure_pipelines_working_directory_is_where_az_reads_its_file() {
    let pipeline = "steps:\n  - script: az ml compute create -f compute.yml\n    workingDirectory: mlops/azureml\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: sub\n      scriptType: bash\n      scriptLocation: inlineScript\n      workingDirectory: mlops/azureml\n      inlineScript: az ml compute create --file compute.yml\n";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "mlops/azureml/compute.yml", COMPUTE);
    write(d, "pipelines/ci.yml", pipeline);
    let json = capped::check_json(d);
    let retired: Vec<(u64, u64)> = found(&json, "pipelines/ci.yml")
        .into_iter()
        .filter(|(c, _, _)| c == "AML505")
        .map(|(_, l, c)| (l, c))
        .collect();
    assert_eq!(retired, [(2, 37), (10, 49)], "{json:#}");
}

/// The (line, column) of the `nth` `needle` of `text` (1-based, as findings say).
fn place(text: &str, needle: &str, nth: usize) -> (u64, u64) {
    let at = text.match_indices(needle).nth(nth).unwrap().0;
    let line = text[..at].matches('\n').count() as u64 + 1;
    let col = (at - text[..at].rfind('\n').map_or(0, |p| p + 1)) as u64 + 1;
    (line, col)
}

fn retired(json: &Value, path: &str) -> Vec<(u64, u64)> {
    found(json, path)
        .into_iter()
        .filter(|(c, _, _)| c == "AML505")
        .map(|(_, l, c)| (l, c))
        .collect()
}

/// A workflow-level `defaults.run.working-directory` (a job's wins over it), and the
/// `AzureCLI` task's `cwd` input (its other name for `workingDirectory`).
#[test]
fn workflow_defaults_and_the_cwd_input() {
    let workflow = "on: workflow_dispatch\ndefaults:\n  run:\n    working-directory: mlops/azureml\njobs:\n  create-compute:\n    runs-on: ubuntu-latest\n    steps:\n      - run: az ml compute create -f compute.yml\n  other:\n    runs-on: ubuntu-latest\n    defaults:\n      run:\n        working-directory: mlops\n    steps:\n      - run: az ml compute create -f azureml/compute.yml\n";
    let pipeline = "steps:\n  - task: AzureCLI@2\n    inputs:\n      azureSubscription: sub\n      scriptType: bash\n      scriptLocation: inlineScript\n      cwd: mlops/azureml\n      inlineScript: az ml compute create --file compute.yml\n";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "mlops/azureml/compute.yml", COMPUTE);
    write(d, ".github/workflows/ci.yml", workflow);
    write(d, "pipelines/ci.yml", pipeline);
    let json = capped::check_json(d);
    assert_eq!(
        retired(&json, ".github/workflows/ci.yml"),
        [
            place(workflow, "compute.yml", 0),
            place(workflow, "azureml/compute.yml", 0)
        ],
        "{json:#}"
    );
    assert_eq!(retired(&json, "pipelines/ci.yml"), [(8, 49)], "{json:#}");
}

/// The retired-size findings of `path` (holding `text`) in a project with the retired
/// compute in `mlops/azureml/compute.yml` and a current one in the root's `compute.yml`.
fn retired_beside_root(path: &str, text: &str) -> Vec<(u64, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "mlops/azureml/compute.yml", COMPUTE);
    write(
        d,
        "compute.yml",
        &COMPUTE.replace("Standard_NC6", "Standard_DS3_v2"),
    );
    write(d, path, text);
    let json = capped::check_json(d);
    retired(&json, path)
}

/// A `cd` in a step's script moves its `-f` from the step's working directory; a `cd` to
/// the script's own directory in a step (a temporary file) is not known, and the file is
/// read nowhere (not the root's `compute.yml`).
#[test]
fn a_cd_in_a_step_moves_its_file() {
    let workflow = "on: workflow_dispatch\njobs:\n  create-compute:\n    runs-on: ubuntu-latest\n    steps:\n      - working-directory: mlops\n        run: |\n          cd azureml\n          az ml compute create -f compute.yml\n      - run: cd \"$(dirname \"$0\")\" && az ml compute create -f compute.yml\n      - run: (cd mlops/azureml; az ml compute create -f compute.yml)\n";
    assert_eq!(
        retired_beside_root(".github/workflows/ci.yml", workflow),
        [
            place(workflow, "compute.yml", 0),
            place(workflow, "compute.yml", 2)
        ]
    );
}

/// Jenkins: `dir('…') { }` runs its steps there, relative to the workspace (the
/// repository's root); nested blocks compose, a `cd` in the step moves on from there, and
/// a `dir` given an expression is not known (the root's `compute.yml` is not read).
#[test]
fn jenkins_dir_blocks() {
    let jenkinsfile = "pipeline {\n  agent any\n  stages {\n    stage('compute') {\n      steps {\n        dir('mlops') {\n          dir('azureml') {\n            sh 'az ml compute create -f compute.yml'\n          }\n          sh 'cd azureml && az ml compute create -f compute.yml'\n        }\n        dir(params.DIR) {\n          sh 'az ml compute create -f compute.yml'\n        }\n        dir(path: 'mlops/azureml') {\n          sh 'az ml compute create -f compute.yml'\n        }\n      }\n    }\n  }\n}\n";
    assert_eq!(
        retired_beside_root("Jenkinsfile", jenkinsfile),
        [
            place(jenkinsfile, "compute.yml", 0),
            place(jenkinsfile, "compute.yml", 1),
            place(jenkinsfile, "compute.yml", 3)
        ]
    );
}

/// Audit 12, case 3 (mreyesgomez/NVIDIA_AzureML_Components_and_Pipelines): a script's
/// `source scripts/config_files/config.sh` sets `vmsize`, which names the compute YAML
/// `-f compute_clusters/${vmsize}/create-cluster.yml` reads: its retired size is the
/// command's finding (at the `-f` value), and the command defines the compute. A
/// `source` of a missing file, a loop of `source`s, a path or link out of the project and
/// a FIFO are not read (no hang) and leave the name unknown, saying why.
#[test]
fn a_sourced_files_variables_name_the_compute_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("project");
    write(
        &d,
        "compute_clusters/standard-nc6s-v3/create-cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu-cluster-standard-nc6s-v3\ntype: amlcompute\nsize: Standard_NC6s_v3\nmin_instances: 0\nmax_instances: 1\nenable_node_public_ip: false\n",
    );
    write(
        &d,
        "scripts/config_files/config.sh",
        "#!/bin/bash\nworkspace=\"NVIDIA_COMPONENTS_TEST7\"\nvmsize=\"standard-nc6s-v3\"\n",
    );
    write(
        &d,
        "scripts/set_compute_cluster.sh",
        "#!/bin/bash\n\nsource scripts/config_files/config.sh\n\naz ml compute create -f compute_clusters/${vmsize}/create-cluster.yml\n",
    );
    let create = "az ml compute create -f compute_clusters/${vmsize}/create-cluster.yml\n";
    write(
        &d,
        "other/missing.sh",
        &format!("source scripts/config_files/none.sh\n{create}"),
    );
    write(&d, "loop/a.sh", &format!(". loop/b.sh\n{create}"));
    write(&d, "loop/b.sh", "source loop/a.sh\n");
    write(&d, "out/up.sh", &format!("source ../../etc/x\n{create}"));
    write(dir.path(), "outside.sh", "vmsize=\"standard-nc6s-v3\"\n");
    std::os::unix::fs::symlink(dir.path().join("outside.sh"), d.join("out/link.cfg")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", d.join("out/passwd.cfg")).unwrap();
    write(
        &d,
        "out/link.sh",
        &format!("source out/link.cfg\nsource out/passwd.cfg\n{create}"),
    );
    let fifo = std::ffi::CString::new(d.join("out/fifo.cfg").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    write(&d, "out/fifo.sh", &format!("source out/fifo.cfg\n{create}"));

    let json = capped::check_json(&d);
    assert_eq!(
        found(&json, "scripts/set_compute_cluster.sh"),
        [("AML505".to_string(), 5, 25)],
        "{json:#}"
    );
    let yaml = found(&json, "compute_clusters/standard-nc6s-v3/create-cluster.yml");
    assert!(yaml.contains(&("AML505".to_string(), 4, 7)), "{json:#}");
    for script in [
        "other/missing.sh",
        "loop/a.sh",
        "out/up.sh",
        "out/link.sh",
        "out/fifo.sh",
    ] {
        assert!(!has(&json, script, "AML505"), "{script}: {json:#}");
    }

    let out = capped::amlint(&d, &["inventory", "--no-cache", "--format", "json"], b"");
    assert_eq!(out.code, Some(0), "{}", out.stderr_text());
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let computes = inv["computes"].as_array().unwrap();
    let gpu = computes
        .iter()
        .find(|c| c["name"] == "gpu-cluster-standard-nc6s-v3")
        .unwrap_or_else(|| panic!("{inv:#}"));
    let places: Vec<(&str, u64)> = gpu["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["path"].as_str().unwrap(), x["line"].as_u64().unwrap()))
        .collect();
    assert!(
        places.contains(&("scripts/set_compute_cluster.sh", 5)),
        "{places:?}"
    );
    let why = |path: &str| -> String {
        let u = inv["unnamed_definitions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["path"] == path)
            .unwrap_or_else(|| panic!("{path}: {inv:#}"));
        u["name"]["why"].as_str().unwrap().to_string()
    };
    assert_eq!(
        why("other/missing.sh"),
        "`vmsize` is not set in this file; `source scripts/config_files/none.sh` on line 1 names a file not found in the project"
    );
    assert_eq!(
        why("loop/a.sh"),
        "`vmsize` is not set in this file nor in `loop/b.sh` it sources (it comes from the environment)"
    );
    assert!(
        why("out/up.sh").contains("`source ../../etc/x` on line 1 names `"),
        "{}",
        why("out/up.sh")
    );
    assert!(why("out/up.sh").ends_with("which is not read: it is outside the project"));
    let link = why("out/link.sh");
    assert!(
        link.contains("`source out/link.cfg` on line 1 names `out/link.cfg`, which is not read: it is a link out of the project")
            && link.contains("`source out/passwd.cfg` on line 2 names `out/passwd.cfg`, which is not read: it is a link out of the project"),
        "{link}"
    );
    assert!(
        why("out/fifo.sh").ends_with("names `out/fifo.cfg`, which is not read: it is not a regular text file of the project under the size limit"),
        "{}",
        why("out/fifo.sh")
    );
}

/// A partial run (pre-commit names the job alone) finds the compute as the whole run
/// does when a script creates it with a name from a file it sources: the script does not
/// mention the name, the sourced file does, so the search of the rest of the project
/// reads every script that runs `az ml compute` and sources a file. With the project
/// cache too (cold, then warm).
#[test]
fn a_partial_run_finds_a_compute_named_in_a_sourced_file() {
    let dir = crate::common::project();
    let d = dir.path();
    write(d, "scripts/vars.env", "CLUSTER=gpu-src\nSIZE=Standard_NC6s_v3\n");
    write(
        d,
        "scripts/make.sh",
        "#!/bin/bash\nsource scripts/vars.env\naz ml compute create --name $CLUSTER --type amlcompute --size $SIZE --min-instances 0 --max-instances 1\n",
    );
    write(
        d,
        "jobs/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python a.py\nenvironment: azureml:e:1\ncompute: azureml:gpu-src\n",
    );
    let codes = |args: &[&str], cache: Option<&std::path::Path>| {
        let mut cmd = crate::common::amlint(d);
        cmd.args(["check", "--no-config", "--format", "json", "--fail-on", "never"])
            .args(args);
        match cache {
            Some(c) => {
                cmd.env("AMLINT_CACHE_DIR", c).env("AMLINT_CACHE_SETTLE_MS", "0");
            }
            None => {
                cmd.arg("--no-cache");
            }
        }
        let json: Value = serde_json::from_slice(&cmd.output().unwrap().stdout).unwrap();
        found(&json, "jobs/job.yml")
    };
    // The whole run resolves the name: the job has nothing to say.
    assert_eq!(codes(&["."], None), []);
    let store = tempfile::tempdir().unwrap();
    for cache in [None, Some(store.path()), Some(store.path())] {
        assert_eq!(codes(&["jobs/job.yml"], cache), [], "cache {cache:?}");
    }
    // Without the `source`, the name is defined nowhere: AML203 in both runs.
    write(
        d,
        "scripts/make.sh",
        "#!/bin/bash\naz ml compute create --name $CLUSTER --type amlcompute --size $SIZE\n",
    );
    assert_eq!(codes(&["jobs/job.yml"], None), [("AML203".to_string(), 4, 10)]);
}

/// PowerShell's dot-sourcing (`. ./cfg/vars.ps1`) is followed as bash's `source` is: the
/// size set in the sourced file is checked at the command that uses it.
#[test]
fn a_powershell_script_dot_sources_its_variables() {
    let dir = crate::common::project();
    let d = dir.path();
    write(
        d,
        "cfg/vars.ps1",
        "$cluster = \"ps-sourced\"\n$size = \"Standard_NC6s_v3\"\n",
    );
    let script = ". ./cfg/vars.ps1\naz ml compute create --name $cluster --type amlcompute --size $size --min-instances 0 --max-instances 1\n";
    write(d, "deploy.ps1", script);
    let json = capped::check_json(d);
    let at = place(script, "$size", 0);
    assert!(
        found(&json, "deploy.ps1").contains(&("AML505".to_string(), at.0, at.1)),
        "{json:#}"
    );
    // Without the dot-sourcing, the size is not known: no AML505 at the command.
    write(d, "deploy.ps1", &script[script.find('\n').unwrap() + 1..]);
    let json = capped::check_json(d);
    assert!(!has(&json, "deploy.ps1", "AML505"), "{json:#}");
}

/// `--file` given from the script's own directory (audit 15, case 03: `script_dir="$(cd
/// "$(dirname "$0")" && pwd)"`, then `--file $script_dir/x.yml`) names the file beside the
/// script, as `cd "$script_dir"` would: its type and size are read, and a `--set size=`
/// over it gets the retired-size finding. In a workflow step (a temporary file) that
/// directory is not known, nor after a `cd`, and no file is read (not the root's
/// `compute.yml`).
#[test]
fn a_file_named_from_the_scripts_own_directory_is_read_there() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let beside = COMPUTE.replace("gpu-cluster", "cpu-dev-cluster");
    write(d, "infra/clusters/cpu-dev-cluster.yml", &beside);
    write(
        d,
        "cpu-dev-cluster.yml",
        &beside.replace("Standard_NC6", "Standard_DS3_v2"),
    );
    let by_variable = "#!/bin/bash\nscript_dir=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\naz ml compute create --file $script_dir/cpu-dev-cluster.yml --set size=Standard_NC12\n";
    write(d, "infra/clusters/create.sh", by_variable);
    let in_place =
        "az ml compute create -f \"$(dirname \"${BASH_SOURCE[0]}\")/cpu-dev-cluster.yml\" -n other-cluster\n";
    write(d, "infra/clusters/direct.sh", in_place);
    let workflow = "on: workflow_dispatch\njobs:\n  c:\n    runs-on: ubuntu-latest\n    steps:\n      - run: az ml compute create -f \"$(dirname \"$0\")/cpu-dev-cluster.yml\" -n step-cluster\n";
    write(d, ".github/workflows/ci.yml", workflow);
    // After a `cd`, `dirname "$0"` is relative to another directory: not read.
    let moved =
        "cd ../..\naz ml compute create -f \"$(dirname \"$0\")/cpu-dev-cluster.yml\" -n moved-cluster\n";
    write(d, "infra/clusters/moved.sh", moved);
    let json = capped::check_json(d);
    assert_eq!(
        retired(&json, "infra/clusters/create.sh"),
        [place(by_variable, "Standard_NC12", 0)],
        "{json:#}"
    );
    assert_eq!(
        retired(&json, "infra/clusters/direct.sh"),
        [place(in_place, "$(dirname", 0)],
        "{json:#}"
    );
    assert_eq!(retired(&json, ".github/workflows/ci.yml"), [], "{json:#}");
    assert_eq!(retired(&json, "infra/clusters/moved.sh"), [], "{json:#}");
}

/// Audit 16, case 01: `az ml compute create` run as the arguments of a function whose body
/// runs `"$@"` (a retry loop), of `timeout`/`env`/`nohup`, in `$(...)`, as an `if`'s
/// condition — in a script and in a GitHub Actions `run:` — and kept or dropped by a
/// PowerShell assignment, defines the compute at the `az` word: its findings are there
/// and the job's references resolve. A function that echoes its arguments runs nothing.
#[test]
fn a_command_run_through_a_wrapper_defines_its_compute() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = "#!/bin/bash\nretry_aml_command() {\n  local attempts=$1 sleep_seconds=$2\n  shift 2\n  for attempt in $(seq 1 \"$attempts\"); do\n    if \"$@\"; then return 0; fi\n    sleep \"$sleep_seconds\"\n  done\n}\nshow() { echo \"$@\"; }\nretry_aml_command 5 15 az ml compute create \\\n  --name cpu-cluster --type amlcompute --min-instances 0 --max-instances 4 \\\n  --size Standard_NC6 1>/dev/null\ntimeout 600 az ml compute create --name c-timeout --type amlcompute --size Standard_NC6\nOUT=$(az ml compute create --name c-subst --type amlcompute --size Standard_NC6)\nif env X=1 nohup az ml compute create --name c-if --type amlcompute --size Standard_NC6; then :; fi\nshow az ml compute create --name c-echoed --type amlcompute --size Standard_NC6\n";
    write(d, "scripts/bootstrap-aml.sh", script);
    let ps = "$out = az ml compute create --name p-assign --type amlcompute --size Standard_NC6 | ConvertFrom-Json\n$null = az ml compute create --name p-null --type amlcompute --size Standard_NC6\n";
    write(d, "scripts/setup.ps1", ps);
    let wf = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          retry() { for i in 1 2 3; do \"$@\" && return 0; done; return 1; }\n          retry az ml compute create --name c-ghretry --type amlcompute --size Standard_NC6\n";
    write(d, ".github/workflows/ci.yml", wf);
    let mut job = String::from(
        "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n",
    );
    for (i, name) in [
        "cpu-cluster",
        "c-timeout",
        "c-subst",
        "c-if",
        "p-assign",
        "p-null",
        "c-ghretry",
        "c-echoed",
    ]
    .iter()
    .enumerate()
    {
        job.push_str(&format!("  j{i}:\n    type: command\n    command: echo\n    environment: azureml:e@latest\n    compute: azureml:{name}\n"));
    }
    write(d, "ml/pipeline.yml", &job);
    let json = capped::check_json(d);
    let retired = |path: &str| -> Vec<(u64, u64)> {
        found(&json, path)
            .into_iter()
            .filter(|(c, _, _)| c == "AML505")
            .map(|(_, l, c)| (l, c))
            .collect()
    };
    // At the command's `az` when the size is on another line (the wrapped one: line 11,
    // after `retry_aml_command 5 15 `), else at the size.
    assert_eq!(
        retired("scripts/bootstrap-aml.sh"),
        [(11, 24), (14, 76), (15, 68), (16, 76)],
        "{json:#}"
    );
    assert_eq!(retired("scripts/setup.ps1"), [(1, 70), (2, 69)], "{json:#}");
    assert_eq!(retired(".github/workflows/ci.yml"), [(8, 80)], "{json:#}");
    // Only the echoed one is unresolved (the eighth job's `compute`).
    let unresolved: Vec<u64> = found(&json, "ml/pipeline.yml")
        .into_iter()
        .filter(|(c, _, _)| c == "AML203")
        .map(|(_, l, _)| l)
        .collect();
    assert_eq!(unresolved, [43], "{json:#}");

    let out = capped::amlint(d, &["inventory", "--no-cache", "--format", "json"], b"");
    assert_eq!(out.code, Some(0), "{}", out.stderr_text());
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cpu = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "cpu-cluster")
        .unwrap_or_else(|| panic!("{inv:#}"));
    let def = &cpu["definitions"][0];
    assert_eq!(
        (def["path"].as_str(), def["line"].as_u64(), def["column"].as_u64()),
        (Some("scripts/bootstrap-aml.sh"), Some(11), Some(24)),
        "{inv:#}"
    );
    assert_eq!(cpu["size"], "Standard_NC6");
    assert_eq!(cpu["type"], "amlcompute");
    assert_eq!(def["settings"]["max_instances"]["value"], "4");
}

/// Audit 27, case 05, revised by audit 32, case 04: a variable given a literal and then,
/// under a condition, only one of the script's arguments (the usual `while/case` option
/// parsing, `NAME="$2"`) is its literal, the value of every run that does not pass the
/// option — as `${1:-default}`, PowerShell's `param()` defaults and argparse defaults are
/// read, and as the labelled real-world sets count it. A value from anything else under a
/// condition (a command's output) stays not known.
#[test]
fn a_default_overridden_by_an_argument_under_a_condition_is_the_default() {
    let dir = crate::common::project();
    let d = dir.path();
    write(
        d,
        "setup.sh",
        "#!/bin/bash\nCOMPUTE_CLUSTER=\"cpu-cluster\"\nSIZE=\"Standard_NC6\"\nwhile [[ $# -gt 0 ]]; do\n  case $1 in\n    --compute-cluster) COMPUTE_CLUSTER=\"$2\"; shift 2 ;;\n    --size) SIZE=\"$2\"; shift 2 ;;\n    *) shift ;;\n  esac\ndone\naz ml compute create --name \"$COMPUTE_CLUSTER\" --type amlcompute --size \"$SIZE\" --min-instances 0 --max-instances 2\n",
    );
    // An unconditional assignment after the branch is the value again.
    write(
        d,
        "after.sh",
        "#!/bin/bash\nN=cpu-a\nif [ -n \"$1\" ]; then N=\"$1\"; fi\nN=cpu-b\naz ml compute create --name \"$N\" --type amlcompute --size Standard_NC6 --min-instances 0 --max-instances 2\n",
    );
    // A command's output under a condition: not known.
    write(
        d,
        "output.sh",
        "#!/bin/bash\nS=Standard_NC6\nif [ -n \"$1\" ]; then S=$(pick_size); fi\naz ml compute create --name out-c --type amlcompute --size \"$S\" --min-instances 0 --max-instances 2\n",
    );
    let json = capped::check_json(d);
    assert!(has(&json, "setup.sh", "AML505"), "{json:#}");
    assert!(has(&json, "after.sh", "AML505"), "{json:#}");
    assert!(!has(&json, "output.sh", "AML505"), "{json:#}");
    let out = capped::amlint(d, &["inventory", "--no-cache", "--format", "json"], b"");
    assert_eq!(out.code, Some(0), "{}", out.stderr_text());
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cpu = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "cpu-cluster")
        .unwrap_or_else(|| panic!("{inv:#}"));
    assert_eq!(cpu["size"], "Standard_NC6", "{inv:#}");
    let out_c = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "out-c")
        .unwrap_or_else(|| panic!("{inv:#}"));
    assert_eq!(
        out_c["definitions"][0]["settings"]["size"]["value"],
        Value::Null,
        "{inv:#}"
    );
    assert!(
        inv["computes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "cpu-b"),
        "{inv:#}"
    );
}
