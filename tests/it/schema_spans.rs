//! Schema and reference findings land on the exact key or value: the text under each
//! finding's span, whatever the YAML style (block, flow, quoted, aliased, non-ASCII) or
//! format (JSON).

use amlint::pipeline::{Options, check_text};

const DEPLOYMENT: &str =
    "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\n";

/// (code, text under the span, pointer) of every syntax (AML0xx), schema (AML1xx) and
/// reference (AML2xx) finding; policy findings on the same made-up values (`instance_type: x`) are not this
/// test's subject, nor AML108 (SDK v1 files past its end of support: a matter of the date).
fn findings(path: &str, text: &str) -> Vec<(String, String, String)> {
    let report = check_text(path, text.to_string(), &Options::default());
    report
        .diagnostics
        .iter()
        .filter(|d| ["AML0", "AML1", "AML2"].iter().any(|p| d.code.starts_with(p)) && d.code != "AML108")
        .map(|d| {
            (
                d.code.to_string(),
                report.source.slice(d.span).to_string(),
                d.pointer.as_ref().map(ToString::to_string).unwrap_or_default(),
            )
        })
        .collect()
}

fn one(path: &str, text: &str) -> (String, String, String) {
    let all = findings(path, text);
    assert_eq!(all.len(), 1, "expected one finding, got {all:?}");
    all.into_iter().next().unwrap_or_default()
}

fn f(code: &str, span: &str, pointer: &str) -> (String, String, String) {
    (code.to_string(), span.to_string(), pointer.to_string())
}

#[test]
fn unknown_keys_underline_the_key() {
    let doc = format!("{DEPLOYMENT}name: b\ninstance_type: x\ninstance_count: 1\ninstance_typ: y\n");
    assert_eq!(one("d.yml", &doc), f("AML101", "instance_typ", "/instance_typ"));
    // Flow mapping, nested.
    let doc = format!("{DEPLOYMENT}name: b\ninstance_type: x\nrequest_settings: {{request_timeout: 5}}\n");
    assert_eq!(
        one("d.yml", &doc),
        f("AML101", "request_timeout", "/request_settings/request_timeout")
    );
    // A quoted key: the whole scalar, quotes included.
    let doc = format!("{DEPLOYMENT}name: b\ninstance_type: x\n\"instance_cont\": 1\n");
    assert_eq!(
        one("d.yml", &doc),
        f("AML101", "\"instance_cont\"", "/instance_cont")
    );
}

#[test]
fn values_underline_the_value() {
    let doc = format!("{DEPLOYMENT}name: b\ninstance_type: x\ninstance_count: three\n");
    assert_eq!(one("d.yml", &doc), f("AML102", "three", "/instance_count"));
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\ntier: LowPriority\n";
    assert_eq!(one("c.yml", doc), f("AML103", "LowPriority", "/tier"));
    // Through an alias: the alias where it is used.
    let doc =
        format!("{DEPLOYMENT}name: b\ninstance_type: x\ntags: {{n: &cnt three}}\ninstance_count: *cnt\n");
    assert_eq!(one("d.yml", &doc), f("AML102", "*cnt", "/instance_count"));
    // Non-ASCII text before the finding does not shift it.
    let doc = format!(
        "{DEPLOYMENT}description: \"modèle pour l'été — ✓\"\nname: b\ninstance_type: x\ninstance_count: drei\n"
    );
    assert_eq!(one("d.yml", &doc), f("AML102", "drei", "/instance_count"));
    // A list item.
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/sparkComponent.schema.json\nname: s\nversion: 1\ntype: spark\nentry: {file: a.py}\npy_files:\n  - a.py\n  - a.py\n";
    assert_eq!(one("s.yml", doc), f("AML103", "a.py", "/py_files/1"));
}

#[test]
fn missing_keys_underline_the_mapping_key_or_the_first_key() {
    let doc = format!("{DEPLOYMENT}name: b\ninstance_count: 1\n");
    assert_eq!(one("d.yml", &doc), f("AML104", "$schema", ""));
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\nenvironment: azureml:e:1\ndistribution:\n  process_count_per_instance: 2\n";
    assert_eq!(one("j.yml", doc), f("AML104", "distribution", "/distribution"));
}

#[test]
fn ranges_and_cross_field_constraints() {
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nmin_instances: 5\nmax_instances: 2\n";
    let report = check_text("c.yml", doc.to_string(), &Options::default());
    let d = report
        .diagnostics
        .iter()
        .find(|d| d.code == "AML105")
        .expect("AML105 on min_instances");
    assert_eq!((d.code, report.source.slice(d.span)), ("AML105", "5"));
    assert_eq!(report.source.slice(d.labels[0].span), "2");
    // JSON (SDK v1): the number itself.
    let json = "{\n  \"computeType\": \"ACI\",\n  \"containerResourceRequirements\": {\"cpu\": -1, \"memoryInGB\": 1}\n}\n";
    assert_eq!(
        one("deploymentconfig.json", json),
        f("AML105", "-1", "/containerResourceRequirements/cpu")
    );
}

#[test]
fn references_underline_the_value() {
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\nenvironment: azureml:e:1\ncode: ./no-such-directory-here\n";
    assert_eq!(
        one("/nonexistent-amlint-dir/j.yml", doc),
        f("AML201", "./no-such-directory-here", "/code")
    );
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\nenvironment: 'azureml:e:1:2'\n";
    assert_eq!(one("j.yml", doc), f("AML202", "'azureml:e:1:2'", "/environment"));
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\nenvironment: e:1\n";
    assert_eq!(one("j.yml", doc), f("AML202", "e:1", "/environment"));
}

#[test]
fn unions_report_only_the_meant_branch() {
    // `type: mpi` selects the MPI branch: one finding, not one per distribution type.
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\nenvironment: azureml:e:1\ndistribution:\n  type: mpi\n  process_count: 2\n";
    assert_eq!(
        one("j.yml", doc),
        f("AML101", "process_count", "/distribution/process_count")
    );
    // A bad discriminator value: one finding on it.
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\nenvironment: azureml:e:1\ndistribution:\n  type: horovod\n";
    assert_eq!(one("j.yml", doc), f("AML103", "horovod", "/distribution/type"));
    // A misspelt discriminator key is the finding.
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\nenvironment: azureml:e:1\ndistribution:\n  tpye: mpi\n";
    assert_eq!(one("j.yml", doc), f("AML101", "tpye", "/distribution/tpye"));
    // A binding expression satisfies any field that accepts one.
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\ninputs: {n: 2}\njobs:\n  a:\n    type: command\n    component: azureml:train:1\n    resources:\n      instance_count: ${{parent.inputs.n}}\n";
    assert_eq!(findings("p.yml", doc), vec![]);
}

#[test]
fn unloadable_documents_are_not_validated() {
    // PyYAML cannot construct it (AML001): no schema finding on top of that.
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineEndpoint.schema.json\nname: {{ENDPOINT_NAME}}\nauth_mode: kee\n";
    let codes: Vec<String> = findings("e.yml", doc).into_iter().map(|c| c.0).collect();
    assert_eq!(codes, ["AML001"]);
}

#[test]
fn no_rename_into_a_key_that_is_already_set() {
    // `instance_typ` resembles `instance_type`, which the mapping already has: renaming
    // would make a duplicate key (AML002), so the finding says so and offers no fix.
    let aml101 = |body: &str| {
        let report = check_text("d.yml", format!("{DEPLOYMENT}{body}"), &Options::default());
        report
            .diagnostics
            .into_iter()
            .find(|d| d.code == "AML101")
            .expect("AML101")
    };
    let d = aml101("name: b\ninstance_type: x\ninstance_typ: y\n");
    assert!(
        d.message
            .contains("`instance_type`, which it resembles, is already set"),
        "{}",
        d.message
    );
    assert!(!d.message.contains("did you mean"), "{}", d.message);
    assert!(d.fix.is_none(), "{:?}", d.fix);
    // Without `instance_type`, the rename is offered.
    let d = aml101("name: b\ninstance_typ: y\n");
    assert!(
        d.message
            .contains("did you mean `instance_type`, which is required?"),
        "{}",
        d.message
    );
    assert!(d.fix.is_some());
}

/// (text under the span, pointer, message, the fix's replacement) of each AML107 finding.
fn ignored(path: &str, text: &str) -> Vec<(String, String, String, Option<String>)> {
    let report = check_text(path, text.to_string(), &Options::default());
    report
        .diagnostics
        .iter()
        .filter(|d| d.code == "AML107")
        .map(|d| {
            (
                report.source.slice(d.span).to_string(),
                d.pointer.as_ref().map(ToString::to_string).unwrap_or_default(),
                d.message.clone(),
                d.fix.as_ref().map(|f| f.edits[0].replacement.clone()),
            )
        })
        .collect()
}

#[test]
fn keys_sdk_v1_does_not_know_underline_the_key() {
    // SDK v1 reads known keys by name: a misspelt key is silently lost. The finding sits
    // on the key (quotes included in JSON), suggests the key, and renames it in kind.
    let json = "{\"computeType\": \"AKS\",\n \"autoScalar\": {\"minReplicas\": 1},\n \"containerResourceRequirments\": {\"cpu\": 1},\n \"memoryInGB\": 2,\n \"frobnicate\": 1,\n \"numReplicaz\": null}\n";
    let found = ignored("deploymentconfig.json", json);
    let spans: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.1.as_str())).collect();
    assert_eq!(
        spans,
        [
            ("\"autoScalar\"", "/autoScalar"),
            (
                "\"containerResourceRequirments\"",
                "/containerResourceRequirments"
            ),
            ("\"memoryInGB\"", "/memoryInGB"),
            ("\"frobnicate\"", "/frobnicate"),
        ],
        "{found:?}"
    );
    assert!(
        found[0].2.contains("did you mean `autoScaler`?"),
        "{}",
        found[0].2
    );
    assert_eq!(found[0].3.as_deref(), Some("\"autoScaler\""));
    assert!(
        found[2]
            .2
            .contains("it is a key of `containerResourceRequirements`"),
        "{}",
        found[2].2
    );
    assert_eq!(found[2].3, None);
    assert!(!found[3].2.contains("did you mean"), "{}", found[3].2);
    // YAML: the plain key is renamed as written.
    let yaml = "entryScript: score.py\ncondaFlie: env.yml\nschemaFile:\n";
    let found = ignored("inferenceconfig.yml", yaml);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str()),
        ("condaFlie", "/condaFlie")
    );
    assert_eq!(found[0].3.as_deref(), Some("condaFile"));
    // The key it resembles is already set: no rename into a duplicate.
    let json = "{\"computeType\": \"AKS\", \"autoScaler\": {}, \"autoScalar\": {}}";
    let found = ignored("deploymentconfig.json", json);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(!found[0].2.contains("did you mean"), "{}", found[0].2);
    assert_eq!(found[0].3, None);
}

#[test]
fn lookalikes_of_keys_the_v2_sdk_takes_unchecked() {
    // A pipeline step includes unknown keys without a check: `comptue` is a typo whose
    // compute is silently dropped; a key resembling nothing is left alone.
    let doc = "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n  train:\n    type: command\n    component: azureml:c:1\n    comptue: azureml:gpu\n    my_note: x\n";
    let found = ignored("p.yml", doc);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str()),
        ("comptue", "/jobs/train/comptue")
    );
    assert!(found[0].2.contains("did you mean `compute`?"), "{}", found[0].2);
    assert_eq!(found[0].3.as_deref(), Some("compute"));
}
