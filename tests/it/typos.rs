//! A typo is reported as a typo, once: a misspelt required key is not also reported as
//! missing, a misspelt key in a pipeline step is not reported as the step's other union
//! branch's missing `component`, and a misspelt compute name gets the name the project
//! defines.

use amlint::pipeline::{Options, check_paths, check_text};

use crate::common::write;

/// (code, text under the span, message) of each finding.
fn findings(path: &str, text: &str) -> Vec<(String, String, String)> {
    let report = check_text(path, text.to_string(), &Options::default());
    report
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.to_string(),
                report.source.slice(d.span).to_string(),
                d.message.clone(),
            )
        })
        .collect()
}

fn codes_and_spans(found: &[(String, String, String)]) -> Vec<(&str, &str)> {
    found.iter().map(|f| (f.0.as_str(), f.1.as_str())).collect()
}

#[test]
fn a_misspelt_required_key_is_one_finding() {
    let job = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncomand: python x.py\nenvironment: azureml:e:1\ncompute: local\n";
    let found = findings("job.yml", job);
    assert_eq!(codes_and_spans(&found), [("AML101", "comand")], "{found:?}");
    assert!(
        found[0].2.contains("did you mean `command`, which is required?"),
        "{}",
        found[0].2
    );
    // A component takes unknown top-level keys unchecked: the typo is still the finding,
    // not "missing `command`".
    let component = "$schema: https://azuremlschemas.azureedge.net/latest/commandComponent.schema.json\nname: c\nversion: 1\ntype: command\ncomand: python x.py\nenvironment: azureml:e:1\n";
    let found = findings("component.yml", component);
    assert_eq!(codes_and_spans(&found), [("AML101", "comand")], "{found:?}");
    // Without a look-alike, the missing key is reported as missing.
    let job = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\nenvironment: azureml:e:1\ncompute: local\nscript: x.py\n";
    let found = findings("job.yml", job);
    assert!(found.iter().any(|f| f.0 == "AML104"), "{found:?}");
}

#[test]
fn a_misspelt_key_in_a_pipeline_step_is_the_typo_not_a_missing_component() {
    let pipeline = "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n  train:\n    type: command\n    comand: python train.py\n    environment: azureml:env:1\n    compute: serverless\n";
    let found = findings("pipeline.yml", pipeline);
    assert_eq!(codes_and_spans(&found), [("AML101", "comand")], "{found:?}");
    assert!(found[0].2.contains("did you mean `command`"), "{}", found[0].2);
    // A step that references a component takes unknown keys unchecked: a misspelt
    // `compute` is silently dropped (AML107, a warning: the SDK accepts the file).
    let pipeline = "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n  train:\n    type: command\n    component: azureml:train:1\n    comptue: serverless\n";
    let found = findings("pipeline.yml", pipeline);
    assert_eq!(codes_and_spans(&found), [("AML107", "comptue")], "{found:?}");
}

#[test]
fn a_misspelt_compute_name_gets_the_defined_one() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu-cluster\ntype: amlcompute\nsize: Standard_NC4as_T4_v3\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: /subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v/subnets/n\n",
    );
    let job = |compute: &str| {
        format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python x.py\nenvironment: azureml:e:1\ncompute: azureml:{compute}\n"
        )
    };
    write(dir.path(), "typo.yml", &job("gpu-clustr"));
    // `cpu-cluster` is another compute, not a typo of `gpu-cluster`.
    write(dir.path(), "other.yml", &job("cpu-cluster"));
    let report = check_paths(&[dir.path().to_path_buf()], &Options::default());
    let aml203 = |file: &str| {
        report
            .diagnostics()
            .find(|(f, d)| f.source.path.ends_with(file) && d.code == "AML203")
            .map(|(f, d)| {
                (
                    f.source.slice(d.span).to_string(),
                    d.message.clone(),
                    d.help.clone(),
                )
            })
            .unwrap_or_else(|| panic!("no AML203 on {file}"))
    };
    let (span, message, help) = aml203("typo.yml");
    assert_eq!(span, "azureml:gpu-clustr");
    assert!(message.ends_with("; did you mean `gpu-cluster`?"), "{message}");
    assert!(
        help.as_deref()
            .is_some_and(|h| h.starts_with("If `gpu-cluster` is the compute meant")),
        "{help:?}"
    );
    let (_, message, help) = aml203("other.yml");
    assert!(!message.contains("did you mean"), "{message}");
    assert!(
        help.as_deref()
            .is_some_and(|h| h.starts_with("Add the compute's YAML")),
        "{help:?}"
    );
}

/// Audit 18: a pipeline job's `jobs` and `settings` in a file without `type` (a command
/// job to the CLI) say what is missing, not "remove it"; with a `type: command`, or in a
/// command job's `$schema`d file that has one, the plain unknown-key message stays.
#[test]
fn a_pipeline_without_its_type_is_told_to_add_it() {
    let pipeline = "name: p\nexperiment_name: e\nsettings:\n  default_compute: azureml:c\njobs:\n  prep:\n    type: command\n    component: azureml:prep:1\n";
    let found = findings("pipeline.yml", pipeline);
    let unknown: Vec<&(String, String, String)> = found.iter().filter(|f| f.0 == "AML101").collect();
    assert_eq!(unknown.len(), 2, "{found:?}");
    for f in unknown {
        assert!(
            f.2.contains("is this a pipeline job without `type: pipeline`?"),
            "{}",
            f.2
        );
    }
    let typed = pipeline.replacen(
        "name: p\n",
        "name: p\ntype: command\ncommand: x\nenvironment: azureml:e:1\n",
        1,
    );
    let found = findings("pipeline.yml", &typed);
    let settings = found
        .iter()
        .find(|f| f.0 == "AML101" && f.1 == "settings")
        .expect("settings is unknown");
    assert!(!settings.2.contains("type: pipeline"), "{}", settings.2);
}
