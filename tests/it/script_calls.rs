//! Commands a script builds in a variable and runs with `eval` (audit 29, defect 9): the
//! command the variable holds is read, each value where the assignment writes it; what an
//! append under a condition adds is not known; a text not known is said.

use serde_json::Value;

use crate::common::{
    check_clean as check, compute, findings_with as findings, focused, inventory, project, write,
};

/// The one definition of `name` in the inventory.
fn definition<'a>(inv: &'a Value, name: &str) -> &'a Value {
    let defs = compute(inv, name)["definitions"].as_array().unwrap();
    assert_eq!(defs.len(), 1, "{defs:?}");
    &defs[0]
}

/// The upstream step of Azure/mlops-templates' `create-compute.yml` (21c5eda), trimmed to
/// its tier branch (audit 29, case 10).
const TEMPLATE: &str = r#"name: create-compute
on:
  workflow_call:
    inputs:
      cluster_name:
        required: true
        type: string
      size:
        required: true
        type: string
      min_instances:
        required: true
        type: number
      max_instances:
        required: true
        type: number
      resource_group:
        required: true
        type: string
      workspace_name:
        required: true
        type: string
      cluster_tier:
        required: false
        type: string
      vnet_name:
        required: false
        type: string
      subnet_name:
        required: false
        type: string
jobs:
  create-compute:
    runs-on: ubuntu-latest
    steps:
      - name: create-compute-using-tier
        if: ${{ inputs.cluster_tier != ''}}
        run: |
          # Check if compute already exists
          compute_name=$(az ml compute show --name ${{ inputs.cluster_name }} --resource-group ${{ inputs.resource_group }} --workspace-name ${{ inputs.workspace_name }} --query name -o tsv 2>/dev/null || echo "")

          if [[ -z "$compute_name" ]]; then
            echo "Compute does not exist. Creating the cluster..."
            UAI_ID=$(az ml workspace show --name ${{ inputs.workspace_name }} --resource-group ${{ inputs.resource_group }} --query identity.user_assigned_identities -o json | jq -r 'keys[0]')

            # Build compute create command with conditional VNet parameters
            COMPUTE_CMD="az ml compute create --name ${{ inputs.cluster_name }} \
                                    --type AmlCompute \
                                    --tier ${{ inputs.cluster_tier }} \
                                    --size ${{ inputs.size }} \
                                    --min-instances ${{ inputs.min_instances }} \
                                    --max-instances ${{ inputs.max_instances }} \
                                    --identity-type UserAssigned \
                                    --user-assigned-identities $UAI_ID \
                                    --resource-group ${{ inputs.resource_group }} \
                                    --workspace-name ${{ inputs.workspace_name }}"

            # Add VNet parameters if provided
            if [[ -n "${{ inputs.vnet_name }}" && -n "${{ inputs.subnet_name }}" ]]; then
              COMPUTE_CMD="$COMPUTE_CMD --vnet-name ${{ inputs.vnet_name }} --subnet ${{ inputs.subnet_name }}"
            fi

            # Execute the command
            eval $COMPUTE_CMD
          else
            echo "Compute cluster '${{ inputs.cluster_name }}' already exists. Skipping creation."
          fi
"#;

const CALLER: &str = "on: workflow_dispatch\njobs:\n  create-compute:\n    uses: ./.github/workflows/create-compute.yml\n    with:\n      cluster_name: gpu-cluster\n      size: Standard_NC6\n      min_instances: 0\n      max_instances: 4\n      cluster_tier: dedicated\n      resource_group: rg\n      workspace_name: ws\n    secrets: inherit\n";

/// Audit 29, defect 9 (case 10): a vendored copy of the current mlops template, which
/// builds the command in `COMPUTE_CMD`, appends the VNet options under a condition and
/// runs `eval $COMPUTE_CMD`, defines the compute its local call names: the job's
/// reference resolves (no AML203), the retired size is reported at the call's argument
/// (AML505), the subnet the conditional append gives is not known (no AML704), and the
/// definition says it is the text of `$COMPUTE_CMD`.
#[test]
fn a_vendored_template_that_runs_its_command_with_eval_defines_what_its_call_passes() {
    let dir = project();
    let root = dir.path();
    write(root, ".github/workflows/create-compute.yml", TEMPLATE);
    write(root, ".github/workflows/train.yml", CALLER);
    write(
        root,
        "jobs/train.yml",
        &crate::common::job_using(&["gpu-cluster"]),
    );
    let json = check(root);
    assert!(findings(&json, "jobs/train.yml", "AML203").is_empty(), "{json}");
    let nc6 = findings(&json, ".github/workflows/train.yml", "AML505");
    let [nc6] = nc6.as_slice() else {
        panic!("one AML505 at the call: {json}")
    };
    assert_eq!(focused(CALLER, nc6), "Standard_NC6", "{nc6}");
    for path in [
        ".github/workflows/train.yml",
        ".github/workflows/create-compute.yml",
    ] {
        assert!(findings(&json, path, "AML704").is_empty(), "{json}");
    }
    let inv = inventory(root);
    let def = definition(&inv, "gpu-cluster");
    let settings = &def["settings"];
    assert_eq!(settings["size"]["value"], "Standard_NC6", "{def}");
    assert_eq!(settings["max_instances"]["value"], "4", "{def}");
    assert_eq!(settings["tier"]["value"], "dedicated", "{def}");
    let shown = verbose(root);
    let append = 1 + TEMPLATE
        .lines()
        .position(|l| l.contains("COMPUTE_CMD=\"$COMPUTE_CMD"))
        .unwrap();
    assert!(
        shown.contains(&format!("its network_settings.subnet `${{{{ inputs.subnet_name }}}}` is not known statically: it is added to `$COMPUTE_CMD` under a condition (line {append})")),
        "{shown}"
    );
    assert!(
        def["notes"]
            .to_string()
            .contains("the text of `$COMPUTE_CMD`, run by `eval $COMPUTE_CMD`"),
        "{def}"
    );
}

/// A script of its own: the command built over several assignments (`"$CMD …"`, `+=`),
/// run by `eval "$CMD"`. Each value is reported where the assignment writes it (the size
/// at `$SIZE`, labelled at its literal; the name inside escaped quotes); the append under
/// an `if` leaves its subnet unknown; the later unconditional `+=` counts.
#[test]
fn a_script_that_builds_its_command_in_a_variable_is_read_where_it_writes_it() {
    let dir = project();
    let root = dir.path();
    let script = "#!/bin/bash\nSIZE=Standard_NC6\nCMD=\"az ml compute create --name \\\"ev-cluster\\\" \\\n  --type amlcompute --size $SIZE --description 'a b  c'\"\nif [ -n \"$VNET\" ]; then\n  CMD=\"$CMD --subnet snet\"\nfi\nCMD+=\" --max-instances 4\"\neval \"$CMD\"\n";
    write(root, "create.sh", script);
    let json = check(root);
    let nc6 = findings(&json, "create.sh", "AML505");
    let [nc6] = nc6.as_slice() else {
        panic!("one AML505: {json}")
    };
    assert_eq!(focused(script, nc6), "$SIZE", "{nc6}");
    assert_eq!(nc6["range"]["start"]["line"], 3, "the command's line: {nc6}");
    assert!(findings(&json, "create.sh", "AML704").is_empty(), "{json}");
    let inv = inventory(root);
    let def = definition(&inv, "ev-cluster");
    assert_eq!(def["line"], 3, "{def}");
    assert_eq!(def["settings"]["max_instances"]["value"], "4", "{def}");
    // The name is inside the escaped quotes, written as it is.
    let public = findings(&json, "create.sh", "AML702");
    let [public] = public.as_slice() else {
        panic!("one AML702: {json}")
    };
    assert_eq!(focused(script, public), "ev-cluster", "{public}");
    let shown = verbose(root);
    assert!(
        shown.contains("its network_settings.subnet `snet` is not known statically: it is added to `$CMD` under a condition (line 6)"),
        "{shown}"
    );
    assert!(shown.contains("run by `eval \"$CMD\"` on line 9"), "{shown}");
}

/// `amlint check --show-files --verbose .` in `root`.
fn verbose(root: &std::path::Path) -> String {
    let out = crate::common::amlint_wide(root)
        .args(["check", "--no-config", "--show-files", "--verbose", "."])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Hostile shapes: an `eval` of a variable never assigned, of a command's output, of a
/// text with a command's output in it, of a variable set differently under conditions,
/// a text with quotes run as `$CMD` (not read again), and a command built from Azure
/// Pipelines variables (`$(name)` macros). None crashes; a text not known that names
/// `az ml compute create` is a definition not known, said in `--show-files --verbose`.
#[test]
fn hostile_evals_are_read_or_said_not_known() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "odd.sh",
        "#!/bin/bash\neval $NEVER_SET\neval \"$(echo az ml compute create --name sub1 --type amlcompute)\"\nOUT=\"az ml compute create --name $(hostname) --type amlcompute --size Standard_DS3_v2\"\neval $OUT\nif [ -n \"$A\" ]; then\n  TWO=\"az ml compute create --name two-a --type amlcompute\"\nelse\n  TWO=\"az ml compute create --name two-b --type amlcompute\"\nfi\neval $TWO\nQ=\"az ml compute create --name 'q cluster' --type amlcompute\"\n$Q\n",
    );
    write(
        root,
        "azure-pipelines.yml",
        "variables:\n  clusterName: macro-cluster\n  vmSize: Standard_NC6\nsteps:\n  - bash: |\n      CMD=\"az ml compute create --name $(clusterName) --type amlcompute --size $(vmSize)\"\n      eval $CMD\n",
    );
    let json = check(root);
    let inv = inventory(root);
    let text = inv.to_string();
    assert!(
        !text.contains("sub1") && !text.contains("two-a") && !text.contains("two-b"),
        "{inv}"
    );
    let macro_def = definition(&inv, "macro-cluster");
    assert_eq!(
        macro_def["settings"]["size"]["value"], "Standard_NC6",
        "{macro_def}"
    );
    assert_eq!(
        findings(&json, "azure-pipelines.yml", "AML505").len(),
        1,
        "{json}"
    );
    let unnamed = inv["unnamed_definitions"].to_string();
    assert!(unnamed.contains("output of a command"), "{unnamed}");
    assert!(
        unnamed.contains("set again under a condition (line 9)"),
        "{unnamed}"
    );
    assert!(
        unnamed.contains("split on blanks, which holds quotes"),
        "{unnamed}"
    );
    let shown = verbose(root);
    assert!(
        shown.contains("runs the text of `$TWO`") && shown.contains("set again under a condition"),
        "{shown}"
    );
}

/// A variable appended to 10,000 times (`CMD="$CMD …"` and `CMD+=…`) then run by `eval`
/// 40 times: read in linear time, to the text amlint reads (the rest may add any option,
/// so no rule judges a setting absent), the size written first known.
#[test]
fn a_command_appended_to_thousands_of_times_is_read_in_bounded_time() {
    let dir = project();
    let root = dir.path();
    let mut big = String::from(
        "#!/bin/bash\nCMD=\"az ml compute create --name huge --type amlcompute --size Standard_NC6\"\n",
    );
    for i in 0..5_000 {
        big.push_str(&format!(
            "CMD=\"$CMD --set tags.t{i}=x\"\nCMD+=\" --tags k{i}=v\"\n"
        ));
    }
    for _ in 0..40 {
        big.push_str("eval $CMD\n");
    }
    write(root, "huge.sh", &big);
    let json = check(root);
    assert!(findings(&json, "huge.sh", "AML704").is_empty(), "{json}");
    assert!(findings(&json, "huge.sh", "AML702").is_empty(), "{json}");
    assert!(!findings(&json, "huge.sh", "AML505").is_empty(), "{json}");
    let inv = inventory(root);
    let c = compute(&inv, "huge");
    assert_eq!(c["size"], "Standard_NC6", "{c}");
}
