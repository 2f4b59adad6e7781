//! AML101 at a keyword argument the Azure ML Python SDK's call does not take
//! (`AmlCompute(vm_size=...)`, `AmlCompute.provisioning_configuration(size=...)`): Python
//! raises `TypeError` when the call runs. Only for classes imported from the SDK, whose
//! whole signatures are known (`facts::sources::python_sdk::module`, `V2_SIGNATURES`,
//! `V1_SIGNATURES`).

use super::common::{code_and, json_check, messages, project, write};

/// The AML101 findings of `make.py`: each one's line, column, end column and message.
fn refused(text: &str) -> Vec<(u64, u64, u64, String)> {
    let dir = project();
    write(dir.path(), "make.py", text);
    let (_, json) = json_check(
        dir.path(),
        &["--no-config", "--no-cache", "--fail-on", "never", "."],
    );
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "AML101")
        .map(|d| {
            let focus = if d["focus"].is_object() {
                &d["focus"]
            } else {
                &d["range"]
            };
            (
                focus["start"]["line"].as_u64().unwrap(),
                focus["start"]["column"].as_u64().unwrap(),
                focus["end"]["column"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn sdk_v1_names_in_a_v2_class_are_reported_at_the_keyword_with_the_v2_name() {
    let found = refused(
        "from azure.ai.ml.entities import AmlCompute\n\
         c = AmlCompute(name=\"gpu\", vm_size=\"STANDARD_NC6\", max_nodes=3, subnet_name=\"s\")\n",
    );
    let at: Vec<(u64, u64, u64)> = found.iter().map(|f| (f.0, f.1, f.2)).collect();
    assert_eq!(at, [(2, 28, 35), (2, 52, 61), (2, 65, 76)], "{found:#?}");
    assert!(found[0].3.starts_with(
        "`vm_size` is not a keyword argument of `AmlCompute` (the v2 SDK, azure-ai-ml): Python raises `TypeError`"
    ));
    assert!(found[0].3.ends_with("did you mean `size`?"), "{}", found[0].3);
    assert!(
        found[1].3.ends_with("did you mean `max_instances`?"),
        "{}",
        found[1].3
    );
    assert!(
        found[2].3.ends_with("did you mean `network_settings`?"),
        "{}",
        found[2].3
    );
}

#[test]
fn v2_names_in_sdk_v1s_configuration_are_reported_through_the_variable() {
    let dir = project();
    write(
        dir.path(),
        "make.py",
        "from azureml.core.compute import AmlCompute, ComputeTarget\n\
         cfg = AmlCompute.provisioning_configuration(size=\"STANDARD_D2_V2\", max_instances=4)\n\
         ComputeTarget.create(ws, \"cpu\", cfg)\n",
    );
    let (_, json) = json_check(
        dir.path(),
        &["--no-config", "--no-cache", "--fail-on", "never", "."],
    );
    // Both are reported from line 3: in the order of their messages.
    let ours: Vec<String> = messages(&json, "make.py")
        .into_iter()
        .filter(|m| m.starts_with("AML101"))
        .collect();
    assert_eq!(ours.len(), 2, "{ours:#?}");
    assert!(ours[0].ends_with("did you mean `max_nodes`?"), "{ours:#?}");
    assert!(
        ours[1].contains(
            "`size` is not a parameter of `AmlCompute.provisioning_configuration` (SDK v1, azureml-core)"
        ),
        "{ours:#?}"
    );
    assert!(ours[1].ends_with("did you mean `vm_size`?"));
    let mut helps: Vec<String> = code_and(&json, "make.py", "help")
        .into_iter()
        .filter(|h| h.starts_with("AML101"))
        .collect();
    helps.sort();
    assert!(
        helps[1]
            .contains("Rename `size` to `vm_size`: `size` is the v2 SDK's (azure-ai-ml) name of the setting"),
        "{helps:#?}"
    );
    // Reported from the line that creates the compute, focused on the keyword (line 2).
    let d = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "AML101" && d["message"].as_str().unwrap().starts_with("`size`"))
        .unwrap();
    assert_eq!(d["range"]["start"]["line"], 3);
    assert_eq!(
        (&d["focus"]["start"]["line"], &d["focus"]["start"]["column"]),
        (&2.into(), &45.into())
    );
}

#[test]
fn a_misspelt_keyword_gets_the_closest_and_a_dict_key_is_reported_where_written() {
    let found = refused(
        "from azure.ai.ml.entities import ComputeInstance\n\
         extra = {\"idle_time_before_shutdown_minute\": 30}\n\
         ci = ComputeInstance(name=\"ci\", size=\"Standard_DS3_v2\", **extra)\n",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0].0, found[0].1), (2, 10), "the dict's key: {found:#?}");
    assert!(
        found[0]
            .3
            .ends_with("did you mean `idle_time_before_shutdown_minutes`?")
    );
}

#[test]
fn calls_the_sdk_does_not_make_are_not_judged() {
    // A class of the file's own, a relative import, a call with `**` not known, every
    // keyword of the signature, and positional arguments of SDK v1's configuration.
    let found = refused(
        "from azure.ai.ml.entities import ComputeInstance, NetworkSettings\n\
         from .mine import KubernetesCompute\n\
         from azureml.core.compute import AmlCompute as V1, ComputeTarget\n\
         class AmlCompute:\n    def __init__(self, **kw): pass\n\
         a = AmlCompute(name=\"own\", vm_size=\"x\")\n\
         k = KubernetesCompute(name=\"k8s\", anything=1)\n\
         opts = load()\n\
         ci = ComputeInstance(name=\"ci\", size=\"Standard_DS3_v2\", **opts)\n\
         ci2 = ComputeInstance(name=\"ci2\", size=\"Standard_DS3_v2\", enable_sso=True, enable_root_access=False,\n\
             setup_scripts=None, schedules=None, idle_time_before_shutdown=\"PT30M\", ssh_public_access_enabled=False,\n\
             network_settings=NetworkSettings(subnet=\"s\"), enable_node_public_ip=False, description=\"d\", tags={})\n\
         cfg = V1.provisioning_configuration(\"STANDARD_D2_V2\", \"dedicated\", 0, 4, 120)\n\
         ComputeTarget.create(ws, \"v1\", cfg)\n",
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_sdk_imported_under_another_name_or_by_module_is_judged() {
    let found = refused(
        "import azure.ai.ml.entities as E\n\
         from azure.ai.ml import entities\n\
         from azure.ai.ml.entities import *\n\
         a = E.AmlCompute(name=\"a\", vm_sizes=\"x\")\n\
         b = entities.AmlCompute(name=\"b\", max_node=1)\n\
         c = AmlCompute(name=\"c\", min_node=0)\n",
    );
    let lines: Vec<u64> = found.iter().map(|f| f.0).collect();
    assert_eq!(lines, [4, 5, 6], "{found:#?}");
}
