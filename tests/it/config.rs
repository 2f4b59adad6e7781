//! Configuration through the command line: discovery (amlint.toml, .amlint.toml,
//! pyproject.toml), --config and --no-config, every key, errors with their span and exit
//! code 2, `amlint init`, and the published JSON Schema.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{amlint_wide as amlint, json_check, project, write};

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\n";

/// A job with a duplicate key (AML002, error) and an ambiguous scalar (AML003, warning).
fn job_with_findings() -> String {
    format!("{JOB}compute: local\ninputs:\n  gpu: on\n")
}

/// `(path, code, severity)` of every finding, from the JSON output.
fn findings(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<(String, String, String)>) {
    let (code, json) = json_check(dir, args);
    let list = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (code, list)
}

fn codes_of(list: &[(String, String, String)], path: &str) -> Vec<String> {
    list.iter()
        .filter(|(p, _, _)| p == path)
        .map(|(_, c, _)| c.clone())
        .collect()
}

#[test]
fn nearest_configuration_wins_including_pyproject() {
    let dir = project();
    let root = dir.path();
    write(root, "amlint.toml", "ignore = [\"AML003\"]\n");
    write(root, "a/job.yml", &job_with_findings());
    // A pyproject.toml without [tool.amlint] is not a configuration: the root's applies.
    write(root, "b/pyproject.toml", "[project]\nname = \"ml\"\n");
    write(root, "b/job.yml", &job_with_findings());
    // One with [tool.amlint] is, and it replaces the root's (no merging).
    write(
        root,
        "c/pyproject.toml",
        "[project]\nname = \"ml\"\n\n[tool.amlint]\nignore = [\"duplicate-key\"]\n",
    );
    write(root, "c/job.yml", &job_with_findings());
    write(root, "c/deeper/job.yml", &job_with_findings());
    write(
        root,
        "d/.amlint.toml",
        "select = [\"AML0\"]\nignore = [\"AML002\", \"AML003\"]\n",
    );
    write(root, "d/job.yml", &job_with_findings());

    let (code, list) = findings(root, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(codes_of(&list, "a/job.yml"), ["AML002"]);
    assert_eq!(codes_of(&list, "b/job.yml"), ["AML002"]);
    assert_eq!(codes_of(&list, "c/job.yml"), ["AML003"]);
    assert_eq!(codes_of(&list, "c/deeper/job.yml"), ["AML003"]);
    assert!(codes_of(&list, "d/job.yml").is_empty());

    // --no-config: defaults everywhere.
    let (_, list) = findings(root, &["--no-config"]);
    assert_eq!(codes_of(&list, "c/job.yml"), ["AML002", "AML003"]);

    // --config: one file for everything, its paths relative to itself.
    write(
        root,
        "ci/strict.toml",
        "[severity]\nAML003 = \"error\"\nAML002 = \"off\"\n",
    );
    let (code, list) = findings(root, &["--config", "ci/strict.toml", "a", "c"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        list.iter()
            .filter(|(p, _, _)| p == "a/job.yml")
            .cloned()
            .collect::<Vec<_>>(),
        [("a/job.yml".to_string(), "AML003".to_string(), "error".to_string())]
    );
    assert_eq!(codes_of(&list, "c/job.yml"), ["AML003"]);

    amlint(root)
        .args(["check", "--config", "x.toml", "--no-config"])
        .assert()
        .code(2);
}

#[test]
fn standard_input_uses_the_configuration_of_the_file_it_stands_for() {
    let dir = project();
    let root = dir.path();
    write(root, "ml/amlint.toml", "ignore = [\"AML003\"]\n");
    let run = |name: &str| {
        let out = amlint(root)
            .args(["check", "--format", "json", "-", "--stdin-filename", name])
            .write_stdin(job_with_findings())
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(run("ml/jobs/train.yml"), ["AML002"]);
    assert_eq!(run("other/train.yml"), ["AML002", "AML003"]);
}

#[test]
fn selection_and_severity_keys() {
    let dir = project();
    let root = dir.path();
    write(root, "job.yml", &job_with_findings());
    let run = |config: &str| {
        write(root, "amlint.toml", config);
        findings(root, &["job.yml"])
    };
    // select by prefix, ignore by name.
    let (_, l) = run("select = [\"AML0\"]\nignore = [\"yaml11-ambiguous-scalar\"]\n");
    assert_eq!(codes_of(&l, "job.yml"), ["AML002"]);
    // select nothing, extend-select one rule.
    let (code, l) = run("select = []\nextend-select = [\"AML003\"]\n");
    assert_eq!(
        (code, codes_of(&l, "job.yml")),
        (Some(0), vec!["AML003".to_string()])
    );
    // The most specific selector wins: a code beats a prefix.
    let (_, l) = run("ignore = [\"AML0\"]\nextend-select = [\"AML002\"]\n");
    assert_eq!(codes_of(&l, "job.yml"), ["AML002"]);
    // [severity]: down to a warning (the run passes), up to an error, off.
    let (code, l) = run("[severity]\nduplicate-key = \"warning\"\nAML003 = \"info\"\n");
    assert_eq!(code, Some(0));
    assert_eq!(
        l.iter().map(|(_, c, s)| format!("{c}:{s}")).collect::<Vec<_>>(),
        ["AML002:warning", "AML003:info"]
    );
    let (code, l) = run("[severity]\nAML002 = \"off\"\nAML0 = \"error\"\n");
    assert_eq!(code, Some(1));
    assert_eq!(
        l.iter().map(|(_, c, s)| format!("{c}:{s}")).collect::<Vec<_>>(),
        ["AML003:error"]
    );
}

#[test]
fn file_selection_keys() {
    let dir = project();
    let root = dir.path();
    let bad = job_with_findings();
    write(root, "jobs/a.yml", &bad);
    write(root, "jobs/experimental/b.yml", &bad);
    write(root, "legacy/c.yml", &bad);
    write(root, "generated/d.yml", &bad);
    write(root, "web/node_modules/pkg/e.yml", &bad);
    write(root, "deploy/f.yaml", &bad);
    write(
        root,
        "amlint.toml",
        "include = [\"**/*.yml\"]\nexclude = [\"legacy\"]\nextend-exclude = [\"generated/**\"]\n\n[per-file-ignores]\n\"jobs/experimental\" = [\"AML002\"]\n\"*.yml\" = [\"AML003\"]\n",
    );
    let (_, l) = findings(root, &[]);
    let paths: std::collections::BTreeSet<&str> = l.iter().map(|(p, _, _)| p.as_str()).collect();
    // include: only *.yml (deploy/f.yaml is not walked); exclude replaced the defaults,
    // so node_modules is walked.
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        ["jobs/a.yml", "web/node_modules/pkg/e.yml"],
        "{l:?}"
    );
    assert_eq!(codes_of(&l, "jobs/a.yml"), ["AML002"]);

    // Files named explicitly are checked even when excluded, unless --force-exclude.
    let (_, l) = findings(root, &["legacy/c.yml", "jobs/experimental/b.yml"]);
    assert_eq!(codes_of(&l, "legacy/c.yml"), ["AML002"]);
    assert!(codes_of(&l, "jobs/experimental/b.yml").is_empty());
    let (code, l) = findings(root, &["--force-exclude", "legacy/c.yml", "generated/d.yml"]);
    assert_eq!((code, l.len()), (Some(0), 0), "{l:?}");

    // Without `exclude`, the default list skips node_modules.
    write(root, "amlint.toml", "extend-exclude = [\"legacy\"]\n");
    let (_, l) = findings(root, &[]);
    assert!(
        l.iter()
            .all(|(p, _, _)| !p.contains("node_modules") && !p.starts_with("legacy")),
        "{l:?}"
    );
    assert!(l.iter().any(|(p, _, _)| p == "deploy/f.yaml"));
}

#[test]
fn profile_params_inventory_and_rules_dirs_reach_the_run() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "deploy/aci/deploymentconfig.json",
        "{\"computeType\": \"ACI\"}\n",
    );
    write(
        root,
        "deploy/aci/inferenceconfig.json",
        "{\"entryScript\": \"score.py\"}\n",
    );
    std::fs::create_dir_all(root.join("policies")).unwrap();
    write(
        root,
        "amlint.toml",
        r#"profile = "dev"
rules-dirs = ["policies"]

[params]
approved_vm_series = ["NCsv3"]
require_isolated_vms = true

[[inventory.computes]]
name = "gpu-cluster"
type = "amlcompute"
size = "Standard_NC6s_v3"

[[inventory.models]]
name = "credit"
version = "3"
size_bytes = 1_500_000_000

[[inventory.endpoints]]
name = "credit-endpoint"
compute = "aks-prod"

[[inventory.deployments]]
config = "deploy/aci/deploymentconfig.json"
inference_config = "deploy/aci/inferenceconfig.json"
model = ["credit:3"]
"#,
    );
    write(root, "jobs/job.yml", JOB);
    let root = root.canonicalize().unwrap();
    let report = amlint::pipeline::check_paths(&[root.join("jobs/job.yml")], &Default::default());
    assert!(report.config_errors.is_empty(), "{:?}", report.config_errors);
    let project = report.project.expect("a project");
    // Only one file was passed, but the project is the configuration's directory.
    assert_eq!(project.root, root);
    let config = &project.config;
    assert_eq!(config.profile, amlint::config::Profile::Dev);
    assert_eq!(
        config.param("approved_vm_series"),
        Some(&serde_json::json!(["NCsv3"]))
    );
    assert_eq!(
        config.param("require_isolated_vms"),
        Some(&serde_json::json!(true))
    );
    assert_eq!(config.rules_dirs.to_vec(), [root.join("policies")]);
    let inv = &config.inventory;
    assert_eq!(
        inv.compute("GPU-CLUSTER").map(|c| c.compute_type),
        Some("amlcompute")
    );
    assert_eq!(
        inv.model("credit", "3").and_then(|m| m.size_bytes),
        Some(1_500_000_000)
    );
    assert_eq!(
        inv.endpoint("credit-endpoint").and_then(|e| e.compute.as_deref()),
        Some("aks-prod")
    );
    let d = inv
        .deployment_for(&root.join("deploy/aci/deploymentconfig.json"))
        .expect("the deployment");
    assert_eq!(d.models[0].to_string(), "credit:3");
    assert_eq!(
        d.inference_config.as_deref(),
        Some(root.join("deploy/aci/inferenceconfig.json").as_path())
    );
    // The span of an entry points into the configuration file.
    let source = config.source.as_ref().unwrap();
    assert!(
        source
            .slice(inv.computes().next().unwrap().span)
            .starts_with("[[inventory.computes]]")
    );
}

/// A VM size newer than the catalogue is AML501 until the configuration declares it
/// (`[[inventory.vm_sizes]]`); then it is a known size, and a near misspelling of it gets it
/// as its "did you mean". AML501's help names the configuration, not a file in the binary.
#[test]
fn inventory_vm_sizes_extend_the_catalogue() {
    let dir = project();
    let root = dir.path();
    let compute = |size: &str| {
        format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: {size}\nmin_instances: 0\n"
        )
    };
    write(root, "new.yml", &compute("Standard_Q16ds_v9"));
    write(root, "typo.yml", &compute("Standard_Q16sd_v9"));
    let messages = |root: &Path| -> Vec<(String, String, String)> {
        let out = amlint(root)
            .args(["check", "--format", "json", "."])
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "AML501")
            .map(|d| {
                (
                    d["path"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                    d["help"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    };
    let before = messages(root);
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(before[0].2.contains("[[inventory.vm_sizes]]"), "{before:?}");
    assert!(!before[0].2.contains("rules/data"), "{before:?}");
    write(
        root,
        "amlint.toml",
        "[[inventory.vm_sizes]]\nname = \"Standard_Q16ds_v9\"\nvcpus = 16\nmemory_gib = 64\ngpus = 0\n",
    );
    let after = messages(root);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(after[0].0, "typo.yml");
    assert!(
        after[0].2.starts_with("Did you mean `Standard_Q16ds_v9`?"),
        "{after:?}"
    );
}

/// A configuration error found from a subfolder names the file through `..` (audit 12,
/// case 02), as every other path of the run is written, not as the machine's path.
#[test]
fn a_configuration_error_from_a_subfolder_names_the_file_relative_to_it() {
    let dir = project();
    let root = dir.path();
    write(root, "ml/job.yml", JOB);
    write(root, "amlint.toml", "bogus_key = 1\n");
    let out = amlint(&root.join("ml"))
        .args(["check", "--no-cache", "--format", "json", "job.yml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["configuration_errors"][0]["path"], "../amlint.toml",
        "{json}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("[../amlint.toml:1:1]"), "{err}");
    assert!(!err.contains(&*root.to_string_lossy()), "{err}");
}

#[test]
fn configuration_errors_point_at_the_file_and_exit_2() {
    let dir = project();
    let root = dir.path();
    write(root, "job.yml", JOB);
    write(
        root,
        "amlint.toml",
        "selct = [\"AML0\"]\nignore = [\"duplicate-keys\"]\n\n[severity]\nAML003 = \"warn\"\n\n[[inventory.computes]]\nname = \"gpu\"\ntype = \"amlcomptue\"\n",
    );
    for format in ["human", "json", "sarif"] {
        let out = amlint(root)
            .args(["check", "--color", "never", "--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{format}");
        // People read the errors on standard error; a machine format also gets a
        // document of its format carrying them (cli_edges.rs checks each format).
        if format == "human" {
            assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
        } else {
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(doc.to_string().contains("amlcomptue"), "{format}: {doc}");
        }
        let err = String::from_utf8_lossy(&out.stderr);
        for needle in [
            "[amlint.toml:1:1]",
            "unknown key `selct`",
            "Did you mean `select`?",
            "[amlint.toml:2:11]",
            "`duplicate-keys` is not a rule",
            "Did you mean `duplicate-key`?",
            "[amlint.toml:5:10]",
            "Did you mean `warning`?",
            "[amlint.toml:9:8]",
            "`amlcomptue` is not an Azure ML compute type",
            "4 configuration errors; nothing was checked",
        ] {
            assert!(err.contains(needle), "{format}: missing {needle:?} in\n{err}");
        }
    }
    let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
    insta::assert_snapshot!("config_errors", String::from_utf8_lossy(&out.stderr));

    // TOML syntax errors, an invalid pyproject section, a missing --config file.
    write(root, "amlint.toml", "select = [\"AML0\"\n");
    let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid TOML"));
    std::fs::remove_file(root.join("amlint.toml")).unwrap();
    write(root, "pyproject.toml", "[tool.amlint]\nprofile = \"staging\"\n");
    let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[pyproject.toml:2:11]") && err.contains("\"staging\""),
        "{err}"
    );
    let out = amlint(root)
        .args(["check", "--color", "never", "--config", "nope.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    // Two configuration files in one directory.
    write(root, "amlint.toml", "");
    write(root, ".amlint.toml", "");
    let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("two configuration files in one directory"));
}

#[test]
fn init_writes_a_valid_starter_once() {
    let dir = project();
    let root = dir.path();
    write(root, "job.yml", JOB);
    amlint(root).arg("init").assert().code(0);
    let text = std::fs::read_to_string(root.join("amlint.toml")).unwrap();
    assert!(text.starts_with("# amlint configuration"));
    // The starter keeps the default profile (dev), as it says, and includes MLTable files.
    let starter = amlint::config::parse(
        "amlint.toml",
        root,
        text.clone(),
        amlint::config::ConfigFileKind::Amlint,
        amlint::registry::builtin(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(starter.profile, amlint::config::Profile::Dev);
    assert!(
        text.contains("# include = [") && text.contains("\"**/MLTable\"]"),
        "{text}"
    );
    amlint(root).args(["check", "job.yml"]).assert().code(0);
    // Never overwritten.
    std::fs::write(root.join("amlint.toml"), "profile = \"dev\"\n").unwrap();
    let out = amlint(root).arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never overwrites"));
    assert_eq!(
        std::fs::read_to_string(root.join("amlint.toml")).unwrap(),
        "profile = \"dev\"\n"
    );
    // A pyproject.toml with [tool.amlint] counts too.
    let other = project();
    write(other.path(), "pyproject.toml", "[tool.amlint]\n");
    amlint(other.path()).arg("init").assert().code(2);
}

// ---- The published JSON Schema and the documented example ----

fn toml_to_json(v: &toml::de::DeValue<'_>) -> Value {
    use toml::de::DeValue;
    match v {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(i) => Value::from(i64::from_str_radix(i.as_str(), i.radix()).unwrap()),
        DeValue::Float(f) => serde_json::json!(f.as_str().parse::<f64>().unwrap()),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::String(d.to_string()),
        DeValue::Array(a) => Value::Array(a.iter().map(|x| toml_to_json(x.get_ref())).collect()),
        DeValue::Table(t) => Value::Object(
            t.iter()
                .map(|(k, x)| (k.get_ref().to_string(), toml_to_json(x.get_ref())))
                .collect(),
        ),
    }
}

fn toml_text_to_json(text: &str) -> Value {
    let table = toml::de::DeTable::parse(text).unwrap();
    toml_to_json(&toml::de::DeValue::Table(table.into_inner()))
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/amlint-config.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

/// The annotated example of docs/configuration.md (its first ```toml block).
fn documented_example() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md")).unwrap();
    let start = doc
        .find("```toml\n")
        .expect("docs/configuration.md has a ```toml example")
        + 8;
    let end = start + doc[start..].find("```").unwrap();
    doc[start..end].to_string()
}

#[test]
fn documented_example_and_starter_are_valid_for_amlint_and_the_schema() {
    let validator = schema();
    let dir = project();
    let root: PathBuf = dir.path().to_path_buf();
    // The files the example's inventory and rules-dirs name.
    write(
        &root,
        "deploy/aci/deploymentconfig.json",
        "{\"computeType\": \"ACI\"}\n",
    );
    write(&root, "deploy/aci/inferenceconfig.json", "{}\n");
    std::fs::create_dir_all(root.join("policies/amlint")).unwrap();
    write(&root, "job.yml", JOB);
    for (name, text) in [
        ("docs/configuration.md example", documented_example()),
        ("amlint init starter", amlint::config::STARTER.to_string()),
    ] {
        write(&root, "amlint.toml", &text);
        let out = amlint(&root)
            .args(["check", "--color", "never", "job.yml"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name} is refused: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json = toml_text_to_json(&text);
        let errors: Vec<String> = validator.iter_errors(&json).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name} fails the schema: {errors:#?}");
    }
    // The schema refuses what amlint refuses.
    for bad in [
        "selct = []\n",
        "profile = \"prod\"\n",
        "[severity]\nAML003 = \"warn\"\n",
        "[[inventory.computes]]\nname = \"x\"\ntype = \"nope\"\n",
        "[[inventory.models]]\nname = \"x\"\n",
        "[[inventory.deployments]]\nconfig = \"a.json\"\nmodel = \"credit\"\n",
        "[[inventory.vm_sizes]]\nname = \"Standard_Q16ds_v9\"\nvcpus = 16\n",
        "[[inventory.vm_sizes]]\nname = \"Q16\"\nvcpus = 16\nmemory_gib = 64\n",
        "[workspace]\nusgae = \"u.json\"\n",
        "[workspace]\nusage = 3\n",
        "[workspace]\ncomputes = { eastus = \"c.json\" }\n",
        "[workspace]\nlocation = \"east-us\"\n",
    ] {
        assert!(
            !validator.is_valid(&toml_text_to_json(bad)),
            "the schema accepts {bad:?}"
        );
    }
}

/// docs/configuration.md states the real default profile.
#[test]
fn documented_profile_default_is_the_real_one() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md")).unwrap();
    let row = docs
        .lines()
        .find(|l| l.starts_with("| `profile` |"))
        .expect("the profile row");
    let default = amlint::config::Config::shared_default().profile;
    assert_eq!(default, amlint::config::Profile::Dev);
    assert!(row.contains("| `\"dev\"` | rules"), "{row}");
}

#[test]
fn schema_names_exactly_the_keys_amlint_reads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/amlint-config.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut in_schema: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    in_schema.sort_unstable();
    let mut known = amlint::config::KEYS.to_vec();
    known.sort_unstable();
    assert_eq!(in_schema, known);
    // It is documentation, not a kind: nothing under schemas/ or in the binary.
    assert!(
        amlint::embedded::SCHEMA_FILES
            .iter()
            .all(|(name, _)| !name.contains("amlint-config"))
    );
    assert!(
        amlint::kinds::table()
            .kinds
            .iter()
            .all(|k| !k.id.contains("amlint"))
    );
}

/// A user rule whose condition or message names a fact field that does not exist is a
/// rule-file error at the typo (exit 2), listing the fields the fact has.
#[test]
fn user_rule_fact_typos_are_errors_at_their_span() {
    let rule = |when: &str, message: &str| {
        format!(
            "code: ACME101\nname: acme-gpu\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\nexample_note: n\nkinds: [amlCompute]\nwhen:\n  field: {when}\n  greater: 0\nreport:\n  at: size\n  message: \"{message}\"\n"
        )
    };
    let cases = [
        // (when, message, where the error is, what it says)
        (
            "$vm.gpuz",
            "ok",
            "policies/rule.yaml:10:10]",
            "did you mean `$vm.gpus`?",
        ),
        (
            "$target.typo",
            "ok",
            "policies/rule.yaml:10:10]",
            "fields: type, name, resolved, similar, searched, vm",
        ),
        (
            "$target.vm.gpuz",
            "ok",
            "policies/rule.yaml:10:10]",
            "not a field of `$target.vm`",
        ),
        ("$vm", "ok", "policies/rule.yaml:10:10]", "name a field of `$vm`"),
        (
            "$workload.x",
            "ok",
            "policies/rule.yaml:10:10]",
            "`$workload` has no fields",
        ),
        (
            "$vm.gpus",
            "{$vm.nosuch}",
            "policies/rule.yaml:14:12]",
            "`nosuch` is not a field of `$vm`",
        ),
        (
            "$vm.gpus",
            "{$bogus.x}",
            "policies/rule.yaml:14:12]",
            "`$bogus` is not a fact",
        ),
    ];
    for (when, message, at, needle) in cases {
        let dir = project();
        let root = dir.path();
        write(root, "amlint.toml", "rules-dirs = [\"policies\"]\n");
        write(root, "policies/rule.yaml", &rule(when, message));
        write(root, "job.yml", JOB);
        let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{when} {message}: {err}");
        assert!(err.contains(at), "{when} {message}: missing {at:?} in\n{err}");
        assert!(
            err.contains(needle),
            "{when} {message}: missing {needle:?} in\n{err}"
        );
    }
    // Valid facts and plain field placeholders (a document field may be absent) load.
    let dir = project();
    let root = dir.path();
    write(root, "amlint.toml", "rules-dirs = [\"policies\"]\n");
    write(
        root,
        "policies/rule.yaml",
        &rule(
            "$target.vm.gpus",
            "{$vm.series|?} on {$target.type} in {nosuchfield|none}",
        ),
    );
    write(root, "job.yml", JOB);
    amlint(root).args(["check", "job.yml"]).assert().code(0);
}

/// `[params]` names must be parameters some rule declares (built-in or user), with the
/// type of the declared default; otherwise a configuration error at its span, exit 2.
#[test]
fn params_are_checked_against_the_rules_that_declare_them() {
    let dir = project();
    let root = dir.path();
    write(root, "job.yml", JOB);
    write(
        root,
        "amlint.toml",
        "[params]\naproved_vm_series = [\"NCsv3\"]\nrequire_isolated_vms = \"yes\"\n",
    );
    let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for needle in [
        "[amlint.toml:2:1]",
        "no rule takes a parameter `aproved_vm_series`",
        "Did you mean `approved_vm_series`?",
        "[amlint.toml:3:24]",
        "`require_isolated_vms` takes a boolean",
        "2 configuration errors; nothing was checked",
    ] {
        assert!(err.contains(needle), "missing {needle:?} in\n{err}");
    }
    // A user rule declares its own parameter: the configuration may set it, and the rule
    // reads it; a rule reading a parameter it does not declare does not load.
    let rule = "code: ACME101\nname: acme-max-nodes\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\nexample_note: n\nkinds: [amlCompute]\nparams:\n  max_nodes: 10\nwhen:\n  field: max_instances\n  greater: $params.max_nodes\nreport:\n  at: max_instances\n  message: \"more than {$params.max_nodes} nodes\"\n";
    write(root, "policies/rule.yaml", rule);
    write(
        root,
        "cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 8\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: s\n",
    );
    write(
        root,
        "amlint.toml",
        "rules-dirs = [\"policies\"]\n\n[params]\nmax_nodes = 4\n",
    );
    let (code, list) = findings(root, &["cluster.yml"]);
    assert_eq!(code, Some(0), "{list:?}");
    assert_eq!(codes_of(&list, "cluster.yml"), ["ACME101"], "{list:?}");
    write(
        root,
        "amlint.toml",
        "rules-dirs = [\"policies\"]\n\n[params]\nmax_nodes = \"4\"\n",
    );
    let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`max_nodes` takes a number"));
    write(
        root,
        "policies/rule.yaml",
        &rule.replace("greater: $params.max_nodes", "greater: $params.max_node"),
    );
    let out = amlint(root).args(["check", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("policies/rule.yaml:13:12]") && err.contains("does not declare"),
        "{err}"
    );
}

/// The README's integration sections: a configuration snippet amlint accepts, the exit
/// codes with `--fail-on`, links to the docs, and the test command unchanged.
#[test]
fn readme_integrations_are_documented_and_valid() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(manifest.join("README.md")).unwrap();
    for heading in [
        "### pre-commit",
        "### GitHub Actions",
        "### Azure Pipelines",
        "### Suppressions",
        "### Configuration",
    ] {
        assert!(readme.contains(heading), "README lacks {heading:?}");
    }
    for link in [
        "(docs/pre-commit.md)",
        "(docs/integrations.md#github-actions)",
        "(docs/integrations.md#azure-pipelines)",
        "(docs/suppressions.md)",
        "(docs/configuration.md)",
        "upload-sarif",
        "--format junit",
    ] {
        assert!(readme.contains(link), "README lacks {link:?}");
    }
    assert!(readme.contains("Exit codes:") && readme.contains("`--fail-on`"));
    assert!(readme.contains("\ncargo test --locked\n"));
    let mut blocks = 0;
    for block in readme.split("```toml\n").skip(1) {
        let text = block.split("```").next().unwrap();
        let dir = tempfile::tempdir().unwrap();
        amlint::config::parse(
            "amlint.toml",
            dir.path(),
            text.to_string(),
            amlint::config::ConfigFileKind::Amlint,
            amlint::registry::builtin(),
        )
        .unwrap_or_else(|e| panic!("README's configuration snippet is refused: {e:?}\n{text}"));
        blocks += 1;
    }
    assert!(blocks >= 1);
}

/// `[workspace]`: each problem of the table at its span (exit 2), in `amlint.toml` and in
/// `pyproject.toml`, and what the schema says of a valid one.
#[test]
fn workspace_table_errors_are_at_their_span() {
    let dir = project();
    let root = dir.path();
    write(root, "job.yml", JOB);
    write(root, "azure/usage.json", "[]\n");
    write(
        root,
        "amlint.toml",
        "[workspace]\nlocation = \"east-us\"\nusgae = \"azure/usage.json\"\ncomputes = 3\nusage = { \"west us!\" = \"azure/usage.json\" }\nprices = [\"azure/none.json\"]\n",
    );
    let out = amlint(root)
        .args(["check", "--format", "json", "job.yml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<(u64, String)> = json["configuration_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["range"]["start"]["line"].as_u64().unwrap(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let lines: Vec<u64> = errors.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [2, 3, 4, 5, 6], "{errors:#?}");
    assert!(errors[0].1.contains("`east-us` is not an Azure region"));
    assert!(errors[1].1.contains("unknown key `usgae` in `[workspace]`"));
    assert!(
        errors[2]
            .1
            .contains("`workspace.computes` must be a file or a list of files, not an integer")
    );
    assert!(errors[3].1.contains("`west us!` is not an Azure region"));
    assert!(
        errors[4]
            .1
            .contains("`azure/none.json`, which `[workspace] prices` names, does not exist")
    );
    // In pyproject.toml the table is `[tool.amlint.workspace]`.
    std::fs::remove_file(root.join("amlint.toml")).unwrap();
    write(
        root,
        "pyproject.toml",
        "[tool.amlint.workspace]\nlocation = \"eastus\"\nusage = \"azure/usage.json\"\ncomputes = \"azure/missing.json\"\n",
    );
    let out = amlint(root).args(["check", "job.yml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("which `[tool.amlint.workspace] computes` names, does not exist"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A valid table passes amlint and the schema.
    let valid = "[workspace]\nlocation = \"eastus\"\nusage = { eastus = \"azure/usage.json\" }\ncomputes = [\"azure/usage.json\"]\nprices = \"azure/usage.json\"\n";
    std::fs::remove_file(root.join("pyproject.toml")).unwrap();
    write(root, "amlint.toml", valid);
    let out = amlint(root).args(["check", "job.yml"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(schema().is_valid(&toml_text_to_json(valid)));
}
