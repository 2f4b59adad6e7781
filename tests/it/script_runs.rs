//! A project's Python file run by a CI step or a script with its arguments (audit 33,
//! case 03: `python src/make_cluster.py --cluster_name train-py --size Standard_NC6`, the
//! file building `AmlCompute(name=args.cluster_name, size=args.size, …)` from `argparse`
//! options): a definition at the command, each option the command gives read as the
//! file's `args.x`, a flagged value reported at the command's word.

use crate::common::{check_clean, definitions, focus_lines, inventory, write};

const MAKE: &str = "import argparse\nfrom azure.ai.ml.entities import AmlCompute\n\nparser = argparse.ArgumentParser()\nparser.add_argument(\"--cluster_name\", type=str)\nparser.add_argument(\"--size\", type=str, default=\"Standard_DS3_v2\")\nparser.add_argument(\"--max-instances\", type=int, dest=\"max_instances\")\nargs = parser.parse_args()\n\ncluster = AmlCompute(\n    name=args.cluster_name,\n    size=args.size,\n    min_instances=0,\n    max_instances=args.max_instances,\n)\n";

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml:env@latest\ncompute: azureml:train-py\n";

fn codes(json: &serde_json::Value, path: &str) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"] == path)
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// The workflow's step defines `train-py`: the job's reference resolves, the retired size
/// it passes is reported at its word in the workflow (line 12), the count it passes to
/// `--max-instances` is an integer, and the file's own definition (no name: the option
/// has no default) stays.
#[test]
fn a_workflow_running_a_python_file_with_options_defines_its_compute() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/make_cluster.py", MAKE);
    write(d, "ml/job.yml", JOB);
    write(
        d,
        ".github/workflows/train.yml",
        "name: train\non: workflow_dispatch\njobs:\n  compute:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Create cluster\n        run: |\n          python src/make_cluster.py \\\n            --cluster_name train-py \\\n            --size Standard_NC6 \\\n            --max-instances 2\n",
    );
    let json = check_clean(d);
    assert!(
        !codes(&json, "ml/job.yml").contains(&"AML203".to_string()),
        "{json:#}"
    );
    assert_eq!(
        focus_lines(&json, ".github/workflows/train.yml", "AML505"),
        [12],
        "{json:#}"
    );
    let inv = inventory(d);
    let def = &definitions(&inv, "train-py")[0];
    assert_eq!(def["path"], ".github/workflows/train.yml", "{def:#}");
    assert_eq!(def["line"], 10, "{def:#}");
    let s = def.to_string();
    assert!(
        s.contains("Standard_NC6") && s.contains("src/make_cluster.py"),
        "{s}"
    );
}

/// A shell script's run: `--size=VALUE`, an option the command does not give (the file's
/// default, `Standard_DS3_v2`: nothing flagged), a variable of the script, and a value
/// not known (the compute's size is then not known, and nothing is guessed).
#[test]
fn a_script_running_a_python_file_gives_its_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "tools/make_cluster.py", MAKE);
    write(
        d,
        "tools/setup.sh",
        "#!/bin/bash\nNAME=train-py\ncd \"$(dirname \"$0\")\"\npython3 -u make_cluster.py --cluster_name \"$NAME\" --max-instances=4\npython3 make_cluster.py --cluster_name other --size \"$(cat size.txt)\"\n",
    );
    write(d, "ml/job.yml", JOB);
    let json = check_clean(d);
    assert!(
        !codes(&json, "ml/job.yml").contains(&"AML203".to_string()),
        "{json:#}"
    );
    assert!(
        codes(&json, "tools/setup.sh")
            .iter()
            .all(|c| !c.starts_with("AML50")),
        "{json:#}"
    );
    let inv = inventory(d);
    let s = definitions(&inv, "train-py")[0].to_string();
    assert!(s.contains("Standard_DS3_v2"), "{s}");
    let other = definitions(&inv, "other")[0].to_string();
    assert!(other.contains("not known"), "{other}");
}

/// Hostile: a 300 KB file run by 50 steps is parsed for at most 1 MiB of runs in one
/// workflow (three runs: each parses the file again), the others not read; a run of a
/// file outside the project, or of one that is not there, is not read; nothing crashes.
#[test]
fn runs_of_a_large_file_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let filler = "# padding line of a large generated module, not code that matters\n".repeat(300_000 / 66);
    write(d, "big.py", &format!("{MAKE}{filler}"));
    let mut wf = String::from("on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n");
    for i in 0..50 {
        wf.push_str(&format!(
            "      - run: python big.py --cluster_name c{i} --size Standard_NC6\n"
        ));
    }
    wf.push_str("      - run: python ../outside.py --cluster_name out\n      - run: python missing.py --cluster_name gone\n");
    write(d, ".github/workflows/make.yml", &wf);
    let inv = inventory(d);
    let named: Vec<String> = crate::common::names(&inv);
    assert_eq!(named, ["c0", "c1", "c2"], "{inv:#}");
}

/// A project's shell script run with arguments (`bash scripts/create.sh NAME SIZE` in a
/// workflow step, `./scripts/create.sh NAME` in a script): a definition at the command,
/// the script's `$1`, `$2`... (through its own variables and `${3:-default}`) the
/// command's words; a flagged size reported at the word that passes it. An argument not
/// known leaves its setting not known; `bash -c TEXT`, a missing script and a script
/// running itself define nothing more, and the script's own definition stays (made by
/// its calls).
#[test]
fn a_shell_script_run_with_arguments_defines_its_compute_at_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let create = "#!/bin/bash\nset -e\nNAME=$1\nSIZE=${2:-Standard_DS3_v2}\naz ml compute create --name \"$NAME\" --type amlcompute --size \"$SIZE\" --max-instances ${3:-4} --min-instances 0\n";
    write(d, "scripts/create.sh", create);
    write(
        d,
        "scripts/all.sh",
        "#!/bin/bash\n./scripts/create.sh cpu-a\nbash scripts/create.sh \"gpu-b\" Standard_NC6 2\nsh ./scripts/create.sh $UNKNOWN\nbash -c \"scripts/create.sh nope\"\n./scripts/missing.sh x\n./scripts/all.sh loop\n",
    );
    write(
        d,
        ".github/workflows/ci.yml",
        "on: push\nenv:\n  CL: train-py\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: bash scripts/create.sh $CL Standard_NC6\n",
    );
    write(d, "ml/job.yml", JOB);
    let json = check_clean(d);
    assert!(
        !codes(&json, "ml/job.yml").contains(&"AML203".to_string()),
        "{json:#}"
    );
    assert_eq!(
        focus_lines(&json, ".github/workflows/ci.yml", "AML505"),
        [8],
        "{json:#}"
    );
    assert_eq!(focus_lines(&json, "scripts/all.sh", "AML505"), [3], "{json:#}");
    let inv = inventory(d);
    let mut names = crate::common::names(&inv);
    names.sort();
    assert_eq!(names, ["cpu-a", "gpu-b", "train-py"], "{inv:#}");
    let gpu = &definitions(&inv, "gpu-b")[0];
    assert_eq!(
        (gpu["path"].as_str(), gpu["line"].as_u64()),
        (Some("scripts/all.sh"), Some(3))
    );
    assert_eq!(gpu["settings"]["max_instances"]["value"], "2", "{gpu:#}");
    let cpu = &definitions(&inv, "cpu-a")[0]["settings"];
    assert_eq!(cpu["size"]["value"], "Standard_DS3_v2", "{cpu:#}");
    assert_eq!(cpu["max_instances"]["value"], "4", "{cpu:#}");
    // `$UNKNOWN`: the run's definition has no known name; nothing else is made.
    let unnamed = crate::common::unnamed(&inv, "scripts/all.sh");
    assert_eq!(unnamed.len(), 1, "{inv:#}");
    assert!(
        unnamed[0]["name"]["why"].to_string().contains("UNKNOWN"),
        "{inv:#}"
    );
}

/// An Azure Pipelines `AzureCLI` task that runs a bash script file of the project with
/// `arguments` (`scriptLocation: scriptPath`): a definition at the task, the script's `$1`
/// and `$2` (through `NAME=$1`) the arguments' words, the retired size reported at its
/// word in `arguments:`; a `ps` script type is not read as bash.
#[test]
fn an_azure_cli_task_running_a_script_file_defines_its_compute() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "scripts/create.sh",
        "#!/bin/bash\nNAME=$1\nSIZE=$2\naz ml compute create --name $NAME --type amlcompute --size $SIZE\n",
    );
    let pipeline = "steps:\n- task: AzureCLI@2\n  inputs:\n    azureSubscription: x\n    scriptType: bash\n    scriptLocation: scriptPath\n    scriptPath: scripts/create.sh\n    arguments: train-py Standard_NC6\n- task: AzureCLI@2\n  inputs:\n    azureSubscription: x\n    scriptType: ps\n    scriptLocation: scriptPath\n    scriptPath: scripts/create.sh\n    arguments: ps-cluster Standard_NC6\n";
    write(d, "azure-pipelines.yml", pipeline);
    write(d, "ml/job.yml", JOB);
    let json = check_clean(d);
    assert!(
        !codes(&json, "ml/job.yml").contains(&"AML203".to_string()),
        "{json:#}"
    );
    let retired = crate::common::findings_with(&json, "azure-pipelines.yml", "AML505");
    assert_eq!(retired.len(), 1, "{json:#}");
    assert_eq!(crate::common::focused(pipeline, retired[0]), "Standard_NC6");
    assert_eq!(focus_lines(&json, "azure-pipelines.yml", "AML505"), [8]);
    let inv = inventory(d);
    assert_eq!(crate::common::names(&inv), ["train-py"], "{inv:#}");
}

/// A file named from where the CI system checks the repository out
/// (`$(Build.SourcesDirectory)/…`, `${{ github.workspace }}/…`, `$GITHUB_WORKSPACE/…`:
/// the repository's root), or a module run with `python -m` (audit of session 31, cases
/// 02 and 03: the MLOpsPython template's `python -m ml_service.pipelines.build_train`):
/// each is the project's file, read as `python src/make_cluster.py` is, shown as the
/// project writes it (not as a path of the machine).
#[test]
fn files_named_from_the_checkout_or_as_modules_are_run() {
    let runs = [
        (
            "azure-pipelines.yml",
            "trigger: none\nsteps:\n- script: python3 $(Build.SourcesDirectory)/src/make_cluster.py --cluster_name train-py --size Standard_NC6\n  workingDirectory: ml\n",
        ),
        (
            ".github/workflows/a.yml",
            "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: python ${{ github.workspace }}/src/make_cluster.py --cluster_name train-py --size Standard_NC6\n",
        ),
        (
            ".github/workflows/b.yml",
            "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: python \"$GITHUB_WORKSPACE/src/make_cluster.py\" --cluster_name train-py --size Standard_NC6\n",
        ),
        (
            "azure-pipelines.yml",
            "trigger: none\nsteps:\n- script: python -m src.make_cluster --cluster_name train-py --size Standard_NC6\n",
        ),
        (
            "run.sh",
            "#!/bin/bash\npython3 -m src.make_cluster --cluster_name train-py --size Standard_NC6\n",
        ),
        // The file's name a variable's value (eval5 case 03, algattik/azure-mlops-terraform:
        // `python3 $(Build.SourcesDirectory)/ml_pipelines/${{ variables.BUILD_TRAIN_SCRIPT }}`).
        (
            "azure-pipelines.yml",
            "trigger: none\nvariables:\n  SCRIPT: make_cluster.py\nsteps:\n- script: python3 $(Build.SourcesDirectory)/src/${{ variables.SCRIPT }} --cluster_name train-py --size Standard_NC6\n",
        ),
        (
            "azure-pipelines.yml",
            "trigger: none\nvariables:\n  SCRIPT: src/make_cluster.py\nsteps:\n- script: python3 $(SCRIPT) --cluster_name train-py --size Standard_NC6\n",
        ),
        (
            ".github/workflows/c.yml",
            "on: push\nenv:\n  SCRIPT: src/make_cluster.py\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: python $SCRIPT --cluster_name train-py --size Standard_NC6\n",
        ),
    ];
    for (path, text) in runs {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "src/make_cluster.py", MAKE);
        write(d, "src/__init__.py", "");
        let inv = run_defines_train_py(d, path, text);
        let s = definitions(&inv, "train-py")[0].to_string();
        assert!(s.contains("`src/make_cluster.py`"), "{path}: {s}");
        assert!(
            !s.contains(&d.display().to_string()),
            "{path}: a machine's path in {s}"
        );
    }
}

/// The environment a CI step gives the file it runs (the workflow's, job's and step's
/// `env:`, an Azure pipeline's variables): `os.environ.get("X")` in a Python file and
/// `$X` in a shell script are its values (audit of session 31, case 01: the MLOpsPython
/// template's `AML_COMPUTE_CLUSTER_NAME` set by the pipeline's variables), a flagged
/// size reported at its literal in the CI file; the file read alone still says the value
/// is read at run time.
#[test]
fn the_environment_of_a_ci_step_reaches_the_file_it_runs() {
    let py = "import os\nfrom azureml.core.compute import AmlCompute, ComputeTarget\nname = os.environ.get(\"CLUSTER\")\nsize = os.environ[\"SKU\"]\ncfg = AmlCompute.provisioning_configuration(vm_size=size, max_nodes=4)\nComputeTarget.create(ws, name, cfg)\n";
    let sh = "#!/bin/bash\naz ml compute create --name \"$CLUSTER\" --type amlcompute --size \"${SKU}\"\n";
    let runs = [
        (
            ".github/workflows/a.yml",
            "on: push\nenv:\n  CLUSTER: train-py\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: python build.py\n        env:\n          SKU: Standard_NC6\n",
        ),
        (
            ".github/workflows/a.yml",
            "on: push\nenv:\n  CLUSTER: train-py\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env:\n      SKU: Standard_NC6\n    steps:\n      - run: bash create.sh\n",
        ),
        (
            "azure-pipelines.yml",
            "trigger: none\nvariables:\n  CLUSTER: train-py\n  SKU: Standard_NC6\nsteps:\n- script: python3 $(Build.SourcesDirectory)/build.py\n",
        ),
    ];
    for (path, text) in runs {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "build.py", py);
        write(d, "create.sh", sh);
        let inv = run_defines_train_py(d, path, text);
        // The files' own definitions (read alone) know neither value.
        let unnamed = inv["unnamed_definitions"].as_array().unwrap();
        assert!(
            unnamed.iter().any(|u| u.to_string().contains("environment")),
            "{path}: {inv:#}"
        );
    }
}

/// Writes the CI file or script `path` (and the job naming `train-py`) in `d`, checks
/// that its run defines `train-py` (the job's reference resolves) with the retired size
/// reported on the line of `text` that writes it; returns the inventory.
fn run_defines_train_py(d: &std::path::Path, path: &str, text: &str) -> serde_json::Value {
    write(d, path, text);
    let line = text.lines().position(|l| l.contains("Standard_NC6")).unwrap() as u64 + 1;
    defines_train_py_at(d, path, line)
}

/// Writes the job naming `train-py` in `d`, checks that the CI file or script `path`
/// defines it (the job's reference resolves) with the retired size reported on `line`;
/// returns the inventory.
fn defines_train_py_at(d: &std::path::Path, path: &str, line: u64) -> serde_json::Value {
    write(d, "ml/job.yml", JOB);
    let json = check_clean(d);
    assert!(
        !codes(&json, "ml/job.yml").contains(&"AML203".to_string()),
        "{path}: {json:#}"
    );
    assert_eq!(focus_lines(&json, path, "AML505"), [line], "{path}: {json:#}");
    inventory(d)
}

/// MLOpsPython's layout (eval4 cases 04 and 05; microsoft/MLOpsPython and its forks): an
/// Azure pipeline in `.pipelines/` includes a variables template and runs `python -m
/// ml_service.pipelines.build` from the checkout's root; the module calls the helper
/// `get_compute(ws, e.compute_name, e.vm_size)` with the fields of the dataclass `Env` of
/// another module, each `os.environ.get(...)`. The run passes its environment through
/// both: the compute is defined at the run, the file shown as the project writes it. A
/// GitHub workflow's `env:` does the same, its size reported at its literal.
#[test]
fn a_run_passes_its_environment_to_helpers_and_to_classes_of_other_modules() {
    let env = "import os\nfrom dataclasses import dataclass\nfrom typing import Optional\n\n\n@dataclass(frozen=True)\nclass Env:\n    vm_size: Optional[str] = os.environ.get(\"AML_COMPUTE_CLUSTER_CPU_SKU\")\n    compute_name: Optional[str] = os.environ.get(\"AML_COMPUTE_CLUSTER_NAME\")\n";
    let attach = "from azureml.core.compute import AmlCompute, ComputeTarget\n\n\ndef get_compute(workspace, compute_name, vm_size):\n    config = AmlCompute.provisioning_configuration(vm_size=vm_size, max_nodes=4)\n    return ComputeTarget.create(workspace, compute_name, config)\n";
    let build = "from ml_service.util.attach_compute import get_compute\nfrom ml_service.util.env_variables import Env\n\n\ndef main():\n    e = Env()\n    get_compute(None, e.compute_name, e.vm_size)\n\n\nif __name__ == \"__main__\":\n    main()\n";
    let pipeline = "trigger: none\nvariables:\n- template: vars.yml\n- group: secrets\nsteps:\n- task: AzureCLI@2\n  inputs:\n    azureSubscription: x\n    scriptType: bash\n    scriptLocation: inlineScript\n    workingDirectory: $(Build.SourcesDirectory)\n    inlineScript: |\n      python -m ml_service.pipelines.build\n";
    let workflow = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env:\n      AML_COMPUTE_CLUSTER_NAME: train-py\n      AML_COMPUTE_CLUSTER_CPU_SKU: Standard_NC6\n    steps:\n      - run: python -m ml_service.pipelines.build\n";
    for (path, text, line) in [
        (".pipelines/ci.yml", pipeline, 13),
        (".github/workflows/ci.yml", workflow, 7),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for package in ["ml_service", "ml_service/util", "ml_service/pipelines"] {
            write(d, &format!("{package}/__init__.py"), "");
        }
        write(d, "ml_service/util/env_variables.py", env);
        write(d, "ml_service/util/attach_compute.py", attach);
        write(d, "ml_service/pipelines/build.py", build);
        write(
            d,
            ".pipelines/vars.yml",
            "variables:\n- name: AML_COMPUTE_CLUSTER_NAME\n  value: train-py\n- name: AML_COMPUTE_CLUSTER_CPU_SKU\n  value: Standard_NC6\n",
        );
        write(d, path, text);
        let inv = defines_train_py_at(d, path, line);
        let def = &definitions(&inv, "train-py")[0];
        assert_eq!(def["path"], path, "{def:#}");
        let s = def.to_string();
        assert!(
            s.contains("runs the file `ml_service/pipelines/build.py`") && !s.contains("/../"),
            "{s}"
        );
        assert!(
            s.contains("`Env.vm_size` is set in ml_service/util/env_variables.py:8"),
            "{s}"
        );
    }
}

/// A script that runs its arguments at its top level (`"$@"`: Azure/AML-Kubernetes's
/// `amlarc-tool.sh`, eval4 case 02) runs only the function a step names: of three steps
/// running `bash tool.sh NAME`, only the one naming `setup_compute` creates the compute
/// (before, each step was a definition, and each repeated the size's finding). A script
/// without such a line, or a first argument that names no function, still runs all.
#[test]
fn a_script_that_dispatches_on_its_first_argument_runs_only_that_function() {
    let tool = "#!/bin/bash\nCOMPUTE=\"${COMPUTE:-train-py}\"\n\ninstall_tools(){\n    pip install azure-ai-ml\n}\n\nsetup_compute(){\n    az ml compute create --name \"$COMPUTE\" --type amlcompute --size Standard_NC6 --max-instances 2\n}\n\nrun_job(){\n    az ml job create --file \"$1\"\n}\n\nif [ \"$0\" = \"$BASH_SOURCE\" ]; then\n    \"$@\"\nfi\n";
    let workflow = "on: push\njobs:\n  e2e:\n    runs-on: ubuntu-latest\n    steps:\n      - run: bash tool.sh install_tools\n      - run: bash tool.sh setup_compute\n      - run: bash tool.sh run_job ml/job.yml\n";
    let runs = |d: &std::path::Path| {
        let inv = inventory(d);
        let mut lines: Vec<u64> = definitions(&inv, "train-py")
            .iter()
            .filter(|x| x["path"] == ".github/workflows/ci.yml")
            .map(|x| x["line"].as_u64().unwrap())
            .collect();
        lines.sort_unstable();
        lines
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "ml/job.yml", JOB);
    write(d, "tool.sh", tool);
    write(d, ".github/workflows/ci.yml", workflow);
    assert_eq!(runs(d), [7]);
    let json = check_clean(d);
    assert_eq!(
        focus_lines(&json, ".github/workflows/ci.yml", "AML505"),
        [7],
        "{json:#}"
    );
    assert_eq!(focus_lines(&json, "tool.sh", "AML505"), [9], "{json:#}");
    // Without the dispatch, every run runs the whole script.
    write(d, "tool.sh", &tool.replace("    \"$@\"\n", "    setup_compute\n"));
    assert_eq!(runs(d), [6, 7, 8]);
}
