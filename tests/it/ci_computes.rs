//! Compute definitions in CI files as the CI service runs them (audit 29): the mlops
//! templates' `vnet_name`/`subnet_name` inputs (defect 1), a matrix on a job that calls a
//! reusable workflow (defect 5),
//! the shell chosen by `defaults` and the runner (defect 6), and a workflow that is not
//! valid YAML (defect 10).

use serde_json::Value;

use crate::common::{check_clean as check, compute, helps, inventory, messages, project, write};

fn codes(json: &Value, path: &str) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["path"] == path)
        .map(|x| x["code"].as_str().unwrap_or("").to_string())
        .collect()
}

const CALL: &str = "on: workflow_dispatch\njobs:\n  create-compute:\n    uses: Azure/mlops-templates/.github/workflows/create-compute.yml@REF\n    with:\n      cluster_name: NAME\n      size: Standard_D4s_v5\n      min_instances: 0\n      max_instances: 4\n      cluster_tier: dedicated\n      resource_group: rg\n      workspace_name: ws\nEXTRA    secrets: inherit\n";

fn call(name: &str, reference: &str, extra: &str) -> String {
    CALL.replace("NAME", name)
        .replace("REF", reference)
        .replace("EXTRA", extra)
}

/// Audit 29, defect 1 (case 04): the current GitHub `create-compute.yml` of
/// Azure/mlops-templates takes `vnet_name` and `subnet_name` and adds `--vnet-name`/
/// `--subnet` when both are given. Both literal: the compute is in that subnet (no
/// AML704); one a run-time expression (the upstream mlops-v2 project's shape): unknown,
/// no AML704; neither: AML704 whose help names the inputs; one only or an empty one: the
/// template adds nothing (AML704). A call at an older ref without them keeps the help
/// that the template has no input for it. AML702 stays (no public-IP input).
#[test]
fn the_mlops_template_places_the_compute_in_the_subnet_its_call_passes() {
    let dir = project();
    let root = dir.path();
    let w = ".github/workflows";
    write(
        root,
        &format!("{w}/both.yml"),
        &call(
            "both-cluster",
            "main",
            "      vnet_name: vnet-mlops\n      subnet_name: snet-training\n",
        ),
    );
    write(
        root,
        &format!("{w}/upstream.yml"),
        &call(
            "upstream-cluster",
            "main",
            "      vnet_name: ${{ needs.get-config.outputs.vnet_name }}\n      subnet_name: snet-training\n",
        ),
    );
    write(root, &format!("{w}/none.yml"), &call("none-cluster", "main", ""));
    write(
        root,
        &format!("{w}/one.yml"),
        &call("one-cluster", "main", "      subnet_name: snet-training\n"),
    );
    write(
        root,
        &format!("{w}/empty.yml"),
        &call(
            "empty-cluster",
            "main",
            "      vnet_name: \"\"\n      subnet_name: snet-training\n",
        ),
    );
    write(root, &format!("{w}/old.yml"), &call("old-cluster", "v0.1", ""));
    let json = check(root);
    for f in ["both", "upstream"] {
        assert_eq!(codes(&json, &format!("{w}/{f}.yml")), ["AML702"], "{f}: {json}");
    }
    let help = helps(&json, &format!("{w}/none.yml"));
    assert_eq!(
        help.iter()
            .filter(|h| h.starts_with("AML704"))
            .collect::<Vec<_>>(),
        [
            "AML704 Add `vnet_name` and `subnet_name` (the subnet to place it in) to isolate the compute's traffic, or use a workspace with a managed virtual network."
        ],
        "{json}"
    );
    assert!(
        messages(&json, &format!("{w}/none.yml")).contains(
            &"AML704 `none-cluster` is not placed in a virtual network (no `vnet_name` and `subnet_name`)"
                .to_string()
        ),
        "{json}"
    );
    for f in ["one", "empty"] {
        assert_eq!(
            codes(&json, &format!("{w}/{f}.yml")),
            ["AML702", "AML704"],
            "{f}: {json}"
        );
    }
    let old = helps(&json, &format!("{w}/old.yml"));
    assert!(
        old.iter()
            .any(|h| h.starts_with("AML704 This definition cannot place it in a virtual network")),
        "{json}"
    );
    let inv = inventory(root);
    let one = compute(&inv, "one-cluster").to_string();
    assert!(
        one.contains("only when both `vnet_name` and `subnet_name` are given"),
        "{one}"
    );
}

/// Audit 29, defect 5 (case 07): a matrix on a job that calls a reusable workflow (the
/// mlops template, or one of the project) is expanded per leg, as on a `run:` job: each
/// leg is a definition, the retired size of one is reported, and a job using a leg's name
/// resolves. A matrix past the bound is read once, unknown.
#[test]
fn a_matrix_on_a_job_that_calls_a_reusable_workflow_is_one_call_per_leg() {
    let dir = project();
    let root = dir.path();
    let w = ".github/workflows";
    let matrix = "    strategy:\n      matrix:\n        include:\n          - name: P-cpu\n            size: Standard_DS3_v2\n          - name: P-gpu\n            size: Standard_NC12\n";
    write(
        root,
        &format!("{w}/m.yml"),
        &format!(
            "on: workflow_dispatch\njobs:\n  create:\n{}    uses: Azure/mlops-templates/.github/workflows/create-compute.yml@main\n    with:\n      cluster_name: ${{{{ matrix.name }}}}\n      size: ${{{{ matrix.size }}}}\n      min_instances: 0\n      max_instances: 2\n",
            matrix.replace('P', "gha")
        ),
    );
    write(
        root,
        &format!("{w}/local-cc.yml"),
        "on:\n  workflow_call:\n    inputs:\n      cluster_name: {type: string, required: true}\n      size: {type: string, required: true}\njobs:\n  c:\n    runs-on: ubuntu-latest\n    steps:\n      - run: az ml compute create --name ${{ inputs.cluster_name }} --type amlcompute --size ${{ inputs.size }} --max-instances 2 --enable-node-public-ip false --subnet snet\n",
    );
    write(
        root,
        &format!("{w}/m3.yml"),
        &format!(
            "on: workflow_dispatch\njobs:\n  create:\n{}    uses: ./.github/workflows/local-cc.yml\n    with:\n      cluster_name: ${{{{ matrix.name }}}}\n      size: ${{{{ matrix.size }}}}\n",
            matrix.replace('P', "m3")
        ),
    );
    // 9 x 9 x 9 = 729 combinations: beyond the 64 calls, read once.
    let list = (0..9).map(|i| format!("v{i}")).collect::<Vec<_>>().join(", ");
    write(
        root,
        &format!("{w}/huge.yml"),
        &format!(
            "on: workflow_dispatch\njobs:\n  create:\n    strategy:\n      matrix:\n        a: [{list}]\n        b: [{list}]\n        c: [{list}]\n    uses: Azure/mlops-templates/.github/workflows/create-compute.yml@main\n    with:\n      cluster_name: huge-${{{{ matrix.a }}}}\n      size: Standard_DS3_v2\n"
        ),
    );
    write(
        root,
        "jobs/train.yml",
        &crate::common::job_using(&["gha-gpu", "m3-gpu"]),
    );
    let json = check(root);
    assert!(codes(&json, "jobs/train.yml").is_empty(), "{json}");
    for f in ["m", "m3"] {
        let aml505: Vec<String> = messages(&json, &format!("{w}/{f}.yml"))
            .into_iter()
            .filter(|m| m.starts_with("AML505"))
            .collect();
        assert_eq!(aml505.len(), 1, "{f}: {json}");
        assert!(aml505[0].contains("Standard_NC12"), "{aml505:?}");
    }
    let inv = inventory(root);
    for name in ["gha-cpu", "gha-gpu", "m3-cpu", "m3-gpu"] {
        let c = compute(&inv, name).to_string();
        assert!(c.contains("of the job's `strategy: matrix`"), "{c}");
    }
    let unnamed = inv["unnamed_definitions"].to_string();
    assert!(
        unnamed.contains("matrix.a"),
        "the huge matrix is read once, unknown: {unnamed}"
    );
}

/// Audit 29, defect 6 (case 11): a `run:` without `shell:` runs in the job's, else the
/// workflow's `defaults: run: shell:`, else pwsh on a Windows runner; an Azure Pipelines
/// `script:` runs with cmd.exe on a Windows agent. Each script below is then read in its
/// shell: the retired `Standard_NC6` is reported for every one. A `runs-on` given as an
/// expression, or a Linux runner, stays bash.
#[test]
fn a_script_is_read_in_the_shell_the_runner_picks() {
    let dir = project();
    let root = dir.path();
    let pwsh = |name: &str| {
        format!(
            "      - run: |\n          az ml compute create --name {name} `\n            --type amlcompute `\n            --size $env:VM_SIZE `\n            --max-instances 2\n"
        )
    };
    write(
        root,
        ".github/workflows/workflow-defaults.yml",
        &format!(
            "on: push\ndefaults:\n  run:\n    shell: pwsh\nenv:\n  VM_SIZE: Standard_NC6\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n{}      - shell: bash\n        run: az ml compute create --name bash-gpu --type amlcompute --size \"${{VM_SIZE}}\" --max-instances 2\n",
            pwsh("wf-pwsh")
        ),
    );
    write(
        root,
        ".github/workflows/jobs.yml",
        &format!(
            "on: push\nenv:\n  VM_SIZE: Standard_NC6\njobs:\n  b:\n    runs-on: ubuntu-latest\n    defaults:\n      run:\n        shell: pwsh\n    steps:\n{}  c:\n    runs-on: windows-latest\n    steps:\n{}  d:\n    runs-on: [self-hosted, windows, x64]\n    steps:\n{}  e:\n    runs-on: ubuntu-latest\n    steps:\n      - run: az ml compute create --name linux-bash --type amlcompute --size $VM_SIZE --max-instances 2\n  f:\n    runs-on: ${{{{ matrix.os }}}}\n    steps:\n      - run: az ml compute create --name expr-bash --type amlcompute --size $VM_SIZE --max-instances 2\n",
            pwsh("job-pwsh"),
            pwsh("win-default"),
            pwsh("self-hosted-win")
        ),
    );
    write(
        root,
        "pipelines/windows-agent.yml",
        "pool:\n  vmImage: windows-latest\nvariables:\n  VM_SIZE: Standard_NC6\nsteps:\n  - script: |\n      az ml compute create --name ado-win ^\n        --type amlcompute ^\n        --size %VM_SIZE% ^\n        --max-instances 2\n  - bash: az ml compute create --name ado-bash --type amlcompute --size $VM_SIZE --max-instances 2\n",
    );
    write(
        root,
        "pipelines/linux-agent.yml",
        "pool:\n  vmImage: ubuntu-latest\nvariables:\n  VM_SIZE: Standard_NC6\nsteps:\n  - script: az ml compute create --name ado-linux --type amlcompute --size $VM_SIZE --max-instances 2\n",
    );
    let inv = inventory(root);
    for name in [
        "wf-pwsh",
        "bash-gpu",
        "job-pwsh",
        "win-default",
        "self-hosted-win",
        "linux-bash",
        "expr-bash",
        "ado-win",
        "ado-bash",
        "ado-linux",
    ] {
        let c = compute(&inv, name);
        assert!(c.to_string().contains("Standard_NC6"), "{name}: {c}");
    }
    let json = check(root);
    let count = |path: &str| codes(&json, path).iter().filter(|c| *c == "AML505").count();
    assert_eq!(count(".github/workflows/workflow-defaults.yml"), 2, "{json}");
    assert_eq!(count(".github/workflows/jobs.yml"), 5, "{json}");
    assert_eq!(count("pipelines/windows-agent.yml"), 2, "{json}");
}

/// Audit 29, defect 10 (case 09): a workflow that is not valid YAML (a job indented one
/// space more) is not run by GitHub; amlint reads none of its definitions (not the jobs
/// before the error only) and says so at the error (AML005), with the loader's words.
#[test]
fn a_workflow_that_is_not_valid_yaml_is_reported_not_half_read() {
    let dir = project();
    let root = dir.path();
    let job = |id: &str, indent: &str, name: &str, size: &str| {
        format!(
            "{indent}{id}:\n      uses: Azure/mlops-templates/.github/workflows/create-compute.yml@main\n      with:\n        cluster_name: {name}\n        size: {size}\n        min_instances: 0\n        max_instances: 1\n"
        )
    };
    write(
        root,
        ".github/workflows/train.yml",
        &format!(
            "on:\n  workflow_dispatch:\njobs:\n{}{}",
            job("create-compute-standard", "  ", "cpu-cluster", "Standard_DS3_v2"),
            job("create-compute-gpu", "   ", "gpu-cluster", "Standard_NC6")
        ),
    );
    // The same with valid indentation: both are read.
    write(
        root,
        ".github/workflows/ok.yml",
        &format!(
            "on:\n  workflow_dispatch:\njobs:\n{}{}",
            job("a", "  ", "ok-cpu", "Standard_DS3_v2"),
            job("b", "  ", "ok-gpu", "Standard_NC6")
        ),
    );
    let json = check(root);
    let bad = messages(&json, ".github/workflows/train.yml");
    assert_eq!(bad.len(), 1, "{json}");
    assert!(
        bad[0].starts_with(
            "AML005 the computes this file may define were not read: it is not valid YAML: YAML syntax error"
        ),
        "{bad:?}"
    );
    let line = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["path"] == ".github/workflows/train.yml")
        .map(|x| x["range"]["start"]["line"].as_u64())
        .unwrap();
    assert!(line > Some(3), "at the error, not the file's start: {line:?}");
    assert!(
        codes(&json, ".github/workflows/ok.yml").contains(&"AML505".to_string()),
        "{json}"
    );
    let inv = inventory(root);
    let names: Vec<&str> = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        !names.contains(&"cpu-cluster") && names.contains(&"ok-gpu"),
        "{names:?}"
    );
}

/// Audit 34, case 01: the SDK v1 mlops template `get-compute.yml@mlops-templates` with
/// `compute_type: training` creates the compute of the pipeline's `training_target*`
/// variables (here from its variables template): the job's reference resolves, and the
/// retired size and the cluster that never scales to zero are reported at the call.
#[test]
fn the_sdk_v1_get_compute_template_defines_the_training_target() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::common::write(
        d,
        "config-aml.yml",
        "variables:\n  training_target: gpu-train\n  training_target_sku: Standard_NC6\n  training_target_min_nodes: 1\n  training_target_max_nodes: 2\n  batch_target: batch-cluster\n",
    );
    crate::common::write(
        d,
        "mlops/devops-pipelines/train.yml",
        "variables:\n  - template: ../../config-aml.yml\n  - name: version\n    value: python-sdk-v1\ntrigger: none\nsteps:\n  - checkout: self\n  - template: templates/${{ variables.version }}/get-compute.yml@mlops-templates\n    parameters:\n      compute_type: training\n  - template: templates/${{ variables.version }}/get-compute.yml@mlops-templates\n    parameters:\n      compute_type: batch\n  - template: templates/${{ variables.version }}/get-compute.yml@mlops-templates\n    parameters:\n      compute_type: other\n",
    );
    crate::common::write(
        d,
        "mlops/azureml/train/job.yml",
        &crate::common::job_using(&["gpu-train"]),
    );
    let json = crate::common::check_clean(d);
    let pipeline = "mlops/devops-pipelines/train.yml";
    assert!(
        crate::common::codes_in(&json, "mlops/azureml/train/job.yml")
            .iter()
            .all(|(c, _)| c != "AML203"),
        "{json:#}"
    );
    assert_eq!(
        crate::common::focus_lines(&json, pipeline, "AML505"),
        [8],
        "{json:#}"
    );
    assert_eq!(
        crate::common::focus_lines(&json, pipeline, "AML601"),
        [8],
        "{json:#}"
    );
    let inv = crate::common::inventory(d);
    let batch = crate::common::definitions(&inv, "batch-cluster")[0].to_string();
    assert!(batch.contains("batch_target_sku"), "{batch}");
    assert_eq!(crate::common::names(&inv).len(), 2, "{inv:#}");
}

/// A GitHub Actions step that writes `NAME=value` to `$GITHUB_ENV` sets `$NAME` and
/// `${{ env.NAME }}` for the job's later steps, and one that writes to `$GITHUB_OUTPUT`
/// sets `${{ steps.<id>.outputs.NAME }}`: the compute a later step creates is named and
/// sized by them, its VM finding labelled at the written value, and the job that names it
/// resolves. A step's own `env:` wins; a write by a step with an `if:` or inside a block of
/// its script may not happen (unknown); another job, or a step before the write, does not
/// see it; PowerShell's form is not read (unknown, never guessed).
#[test]
fn values_written_to_github_env_and_outputs_reach_later_steps() {
    let dir = project();
    let root = dir.path();
    let wf = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: az ml compute create --name $CLUSTER --type amlcompute --size Standard_DS3_v2\n      - run: |\n          echo \"CLUSTER=gpu-cl\" >> $GITHUB_ENV\n          echo \"SIZE=Standard_NC6\" >> \"$GITHUB_ENV\"\n      - run: az ml compute create --name ${{ env.CLUSTER }} --type amlcompute --size $SIZE --min-instances 0\n      - run: az ml compute create --name $CLUSTER-own --type amlcompute --size Standard_DS3_v2\n        env:\n          CLUSTER: step\n      - id: cfg\n        run: echo \"cluster=out-cl\" >> \"$GITHUB_OUTPUT\"\n      - run: az ml compute create --name ${{ steps.cfg.outputs.cluster }} --type amlcompute --size Standard_DS3_v2 --min-instances 0\n      - if: github.ref == 'refs/heads/main'\n        run: echo \"MAYBE=m\" >> $GITHUB_ENV\n      - run: |\n          if [ -n \"$X\" ]; then echo \"BLOCK=b\" >> $GITHUB_ENV; fi\n      - shell: pwsh\n        run: echo \"PS=p\" >> $env:GITHUB_ENV\n      - run: |\n          az ml compute create --name $MAYBE --type amlcompute --size Standard_DS3_v2\n          az ml compute create --name $BLOCK --type amlcompute --size Standard_DS3_v2\n          az ml compute create --name $PS --type amlcompute --size Standard_DS3_v2\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: az ml compute create --name $CLUSTER --type amlcompute --size Standard_DS3_v2\n";
    write(root, ".github/workflows/ci.yml", wf);
    write(
        root,
        "jobs/job.yml",
        &crate::common::job_using(&["gpu-cl", "out-cl"]),
    );
    let inv = inventory(root);
    let mut named = crate::common::names(&inv);
    named.sort();
    assert_eq!(named, ["gpu-cl", "out-cl", "step-own"], "{inv:#}");
    let def = &compute(&inv, "gpu-cl")["definitions"][0];
    assert_eq!(def["line"], 10, "{def:#}");
    let unnamed = crate::common::unnamed(&inv, ".github/workflows/ci.yml");
    let whys: Vec<String> = unnamed
        .iter()
        .map(|d| d["name"]["why"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(whys.len(), 5, "{whys:#?}");
    assert!(
        whys.iter()
            .any(|w| w.contains("runs only if `github.ref == 'refs/heads/main'`")),
        "{whys:#?}"
    );
    assert!(whys.iter().any(|w| w.contains("inside a block")), "{whys:#?}");
    assert_eq!(
        whys.iter()
            .filter(|w| w.contains("comes from the environment"))
            .count(),
        3,
        "{whys:#?}"
    );
    // The retired NC size: at the `--size $SIZE` of line 10, labelled at its literal.
    let json = check(root);
    let text = std::fs::read_to_string(root.join(".github/workflows/ci.yml")).unwrap();
    let retired = crate::common::findings_with(&json, ".github/workflows/ci.yml", "AML505");
    assert_eq!(retired.len(), 1, "{json:#}");
    assert_eq!(crate::common::focused(&text, retired[0]), "$SIZE");
    assert!(
        serde_json::to_string(retired[0]).unwrap().contains("\"line\":9"),
        "labelled at the written value: {:#}",
        retired[0]
    );
    assert!(
        codes(&json, "jobs/job.yml").iter().all(|c| c != "AML203"),
        "{json:#}"
    );
}

/// eval7, case 02 (rboaro/greatlearningProject3): a job or step of a reusable workflow
/// whose `if:` is false for a call is not read for that call. The called workflow creates
/// its cluster in one of two steps, `if: ${{ !inputs.cluster_tier }}` (a default tier) and
/// `if: ${{ inputs.cluster_tier }}` (the tier passed): a call that passes no tier (nor has
/// the input a default) defines it once, with the default step's tier; one that passes
/// `low_priority` once, with it. A step under `inputs.size == 'gpu'` (compared without
/// regard to case, as GitHub does) runs only for the call passing `GPU`; one under a
/// condition amlint does not read (`always()`) runs for every call.
#[test]
fn steps_of_a_reusable_workflow_whose_if_is_false_for_the_call_are_not_read() {
    let dir = project();
    let root = dir.path();
    let w = ".github/workflows";
    write(
        root,
        &format!("{w}/create-compute.yml"),
        "on:\n  workflow_call:\n    inputs:\n      cluster_name: {type: string, required: true}\n      cluster_tier: {type: string, required: false}\n      kind: {type: string, default: cpu}\njobs:\n  create:\n    runs-on: ubuntu-latest\n    steps:\n      - if: ${{ !inputs.cluster_tier }}\n        run: az ml compute create --name ${{ inputs.cluster_name }} --type AmlCompute --tier dedicated --size Standard_DS3_v2 --max-instances 2\n      - if: ${{ inputs.cluster_tier }}\n        run: az ml compute create --name ${{ inputs.cluster_name }} --type AmlCompute --tier ${{ inputs.cluster_tier }} --size Standard_DS3_v2 --max-instances 2\n      - if: inputs.kind == 'gpu'\n        run: az ml compute create --name ${{ inputs.cluster_name }}-gpu --type AmlCompute --size Standard_NC6 --max-instances 2\n      - if: always()\n        run: az ml compute create --name ${{ inputs.cluster_name }}-always --type AmlCompute --size Standard_DS3_v2 --max-instances 2\n",
    );
    write(
        root,
        &format!("{w}/run.yml"),
        "on: workflow_dispatch\njobs:\n  plain:\n    uses: ./.github/workflows/create-compute.yml\n    with:\n      cluster_name: plain\n  low:\n    uses: ./.github/workflows/create-compute.yml\n    with:\n      cluster_name: low\n      cluster_tier: low_priority\n      kind: GPU\n",
    );
    let inv = inventory(root);
    let tiers = |name: &str| -> Vec<String> {
        compute(&inv, name)["definitions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["path"] == format!("{w}/run.yml"))
            .map(|d| d["settings"]["tier"]["value"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    assert_eq!(tiers("plain"), ["dedicated"], "{inv:#}");
    assert_eq!(tiers("low"), ["low_priority"], "{inv:#}");
    let names: Vec<&str> = inv["computes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&"low-gpu") && !names.contains(&"plain-gpu"),
        "{names:?}"
    );
    assert!(
        names.contains(&"low-always") && names.contains(&"plain-always"),
        "{names:?}"
    );
}
