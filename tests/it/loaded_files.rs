//! Values of JSON and YAML files another file loads (audit 30, defects 7 and 8): Bicep's
//! `loadJsonContent()`/`loadYamlContent()`/`loadTextContent()`, which Bicep reads when it
//! compiles the template, and the `Azure/aml-compute@v1` GitHub Action, which creates the
//! compute its `.cloud/.azure/<parameters_file>` describes. The files are read as every
//! other file a reader consults (inside the project, regular, under the size limit); a
//! file that is not read leaves the values unknown, with the file named.

use crate::common::{amlint, check_clean, codes_in, every_definition, inventory, project, write};
use serde_json::Value;

const BICEP: &str = "var cfg = loadJsonContent('config/compute.json')\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2024-10-01' = {\n  name: 'ws/${cfg.clusterName}'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: cfg.vmSize\n      enableNodePublicIp: false\n      subnet: { id: '/s' }\n      scaleSettings: { minNodeCount: cfg.minNodes, maxNodeCount: 2 }\n    }\n  }\n}\n";

const CONFIG: &str =
    "{\n  \"clusterName\": \"json-cluster\",\n  \"vmSize\": \"Standard_NC6\",\n  \"minNodes\": 1\n}\n";

/// What a hostile case makes in the project before the run.
#[cfg(unix)]
type Setup<'a> = Box<dyn Fn(&std::path::Path) + 'a>;

fn only_definition(d: &std::path::Path) -> Value {
    let defs = every_definition(&inventory(d));
    assert_eq!(defs.len(), 1, "{defs:#?}");
    defs[0].clone()
}

/// Defect 7: `var cfg = loadJsonContent('config/compute.json')`, then `cfg.vmSize`: the
/// file is read (relative to the Bicep file), its values are the compute's, each noted
/// with where the file writes it; AML505 (the retired size) and AML601 (a minimum of 1)
/// are reported at the Bicep file's definition.
#[test]
fn bicep_load_json_content_values_are_read_from_the_file() {
    let dir = project();
    let d = dir.path();
    write(d, "infra/config/compute.json", CONFIG);
    write(d, "infra/main.bicep", BICEP);
    let json = check_clean(d);
    let codes: Vec<String> = codes_in(&json, "infra/main.bicep")
        .into_iter()
        .map(|c| c.0)
        .collect();
    assert!(codes.contains(&"AML505".to_string()), "{json:#}");
    assert!(codes.contains(&"AML601".to_string()), "{json:#}");
    assert!(
        codes_in(&json, "infra/config/compute.json").is_empty(),
        "{json:#}"
    );
    let def = only_definition(d);
    assert_eq!(def["name"]["value"], "json-cluster", "{def:#}");
    assert_eq!(def["settings"]["size"]["value"], "Standard_NC6", "{def:#}");
    let notes = def["notes"].to_string();
    assert!(
        notes.contains("`vmSize` is read from infra/config/compute.json:3:13, which `loadJsonContent()` loads when the template is compiled"),
        "{notes}"
    );
    assert!(!json.to_string().contains("Resource Manager at deployment"));
}

/// A JSONPath second argument (`'$.computes[1]'`), YAML files, a path filter amlint does
/// not read, and a path that is not a literal.
#[test]
fn bicep_load_content_path_filters_yaml_and_non_literal_paths() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "c.json",
        "{\"computes\": [{\"size\": \"Standard_DS3_v2\"}, {\"size\": \"Standard_NC12\", \"name\": \"second\"}]}",
    );
    write(
        d,
        "c.yaml",
        "cluster:\n  name: yaml-cluster\n  size: Standard_NV6\n",
    );
    let resource = |name: &str, size: &str| {
        format!(
            "resource {name} 'Microsoft.MachineLearningServices/workspaces/computes@2024-10-01' = {{\n  name: {size}.name\n  properties: {{\n    computeType: 'AmlCompute'\n    properties: {{\n      vmSize: {size}.size\n    }}\n  }}\n}}\n"
        )
    };
    let text = format!(
        "param p string = 'c.json'\nvar j = loadJsonContent('c.json', '$.computes[1]')\nvar y = loadYamlContent('c.yaml', '$.cluster')\nvar f = loadJsonContent('c.json', '$..size')\nvar n = loadJsonContent(p)\n{}{}{}{}",
        resource("a", "j"),
        resource("b", "y"),
        resource("c", "f"),
        resource("e", "n")
    );
    write(d, "main.bicep", &text);
    check_clean(d);
    let inv = inventory(d);
    let defs = every_definition(&inv);
    assert_eq!(defs.len(), 4, "{inv:#}");
    let by_line = |line: u64| {
        defs.iter()
            .find(|x| x["line"] == line)
            .unwrap_or_else(|| panic!("{inv:#}"))
    };
    let j = by_line(6);
    assert_eq!(j["name"]["value"], "second", "{j:#}");
    assert_eq!(j["settings"]["size"]["value"], "Standard_NC12", "{j:#}");
    let y = by_line(15);
    assert_eq!(y["name"]["value"], "yaml-cluster", "{y:#}");
    assert_eq!(y["settings"]["size"]["value"], "Standard_NV6", "{y:#}");
    let f = by_line(24);
    assert!(
        f["name"]["why"]
            .as_str()
            .unwrap()
            .contains("its path filter `$..size` is not one amlint reads"),
        "{f:#}"
    );
    let n = by_line(33);
    assert!(
        n["name"]["why"]
            .as_str()
            .unwrap()
            .contains("a path that is not a string literal"),
        "{n:#}"
    );
}

/// Hostile files: missing, a link out of the project, a FIFO, larger than the size limit,
/// not JSON, a path through `..` out of the project. Each leaves the values unknown with
/// the file named, nothing hangs, nothing is read from outside.
#[cfg(unix)]
#[test]
fn bicep_load_json_content_of_files_amlint_must_not_read() {
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "secret.json",
        "{\"clusterName\": \"leaked\", \"vmSize\": \"Standard_NC6\"}",
    );
    let cases: Vec<(&str, Setup<'_>, &str)> = vec![
        ("missing", Box::new(|_| {}), "config/compute.json"),
        (
            "symlink out",
            Box::new(|d| {
                std::fs::create_dir_all(d.join("config")).unwrap();
                std::os::unix::fs::symlink(outside.path().join("secret.json"), d.join("config/compute.json"))
                    .unwrap();
            }),
            "config/compute.json",
        ),
        (
            "fifo",
            Box::new(|d| {
                std::fs::create_dir_all(d.join("config")).unwrap();
                let c = std::ffi::CString::new(d.join("config/compute.json").to_str().unwrap()).unwrap();
                // SAFETY: a valid NUL-terminated path.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }),
            "config/compute.json",
        ),
        (
            "huge",
            Box::new(|d| {
                let mut big =
                    String::from("{\"clusterName\": \"big\", \"vmSize\": \"Standard_NC6\", \"pad\": \"");
                big.push_str(&"x".repeat(9 << 20));
                big.push_str("\"}");
                write(d, "config/compute.json", &big);
            }),
            "config/compute.json",
        ),
        (
            "invalid",
            Box::new(|d| write(d, "config/compute.json", "{\"clusterName\": \"x\", ")),
            "config/compute.json",
        ),
    ];
    for (what, setup, file) in cases {
        let dir = project();
        let d = dir.path();
        setup(d);
        write(d, "main.bicep", BICEP);
        let json = check_clean(d);
        assert!(!json.to_string().contains("leaked"), "{what}: {json:#}");
        assert!(
            codes_in(&json, "main.bicep").iter().all(|c| c.0 != "AML505"),
            "{what}: {json:#}"
        );
        let def = only_definition(d);
        let why = def["settings"]["size"]["why"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            why.contains(&format!(
                "`loadJsonContent()` loads `{file}` when the template is compiled"
            )),
            "{what}: {def:#}"
        );
        assert!(!def.to_string().contains("leaked"), "{what}");
    }
    // A path through `..` out of the project.
    let dir = project();
    let d = dir.path().join("p");
    std::fs::create_dir_all(d.join(".git")).unwrap();
    write(
        dir.path(),
        "secret.json",
        "{\"clusterName\": \"leaked\", \"vmSize\": \"Standard_NC6\"}",
    );
    write(
        &d,
        "main.bicep",
        &BICEP.replace("config/compute.json", "../secret.json"),
    );
    let json = check_clean(&d);
    assert!(!json.to_string().contains("leaked"), "{json:#}");
    assert!(!inventory(&d).to_string().contains("leaked"));
}

const WORKFLOW: &str = "on: [push]\njobs:\n  train:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v2\n      - name: Create compute\n        uses: Azure/aml-compute@v1\n        with:\n          azure_credentials: ${{ secrets.AZURE_CREDENTIALS }}\n";

/// Defect 8: `uses: Azure/aml-compute@v1` creates the compute of
/// `.cloud/.azure/compute.json` (the default `parameters_file`): a definition at the step,
/// each value noted with where the file writes it, the action's defaults for the keys it
/// lacks (`max_nodes` 4, `vm_priority` dedicated); AML505 and AML601 at the step, and the
/// job's reference resolves.
#[test]
fn the_aml_compute_action_defines_the_compute_of_its_parameters_file() {
    let dir = project();
    let d = dir.path();
    write(d, ".github/workflows/train.yml", WORKFLOW);
    write(
        d,
        ".cloud/.azure/compute.json",
        "{\n  \"name\": \"gpu-cluster\",\n  \"compute_type\": \"amlcluster\",\n  \"vm_size\": \"Standard_NC6\",\n  \"min_nodes\": 1\n}\n",
    );
    write(
        d,
        "jobs/job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo\nenvironment: azureml:env@latest\ncompute: azureml:gpu-cluster\n",
    );
    let json = check_clean(d);
    let codes = codes_in(&json, ".github/workflows/train.yml");
    assert!(codes.contains(&("AML505".into(), 8)), "{json:#}");
    assert!(codes.contains(&("AML601".into(), 8)), "{json:#}");
    assert!(
        codes_in(&json, "jobs/job.yml").iter().all(|c| c.0 != "AML203"),
        "{json:#}"
    );
    let def = only_definition(d);
    assert_eq!(def["name"]["value"], "gpu-cluster", "{def:#}");
    assert_eq!(def["settings"]["type"]["value"], "amlcompute", "{def:#}");
    assert_eq!(def["settings"]["max_instances"]["value"], "4", "{def:#}");
    assert_eq!(def["settings"]["tier"]["value"], "dedicated", "{def:#}");
    let notes = def["notes"].to_string();
    assert!(
        notes.contains("`vm_size` is read from .cloud/.azure/compute.json:4:14"),
        "{notes}"
    );
    assert!(
        notes.contains("`max_nodes` is the action's default, 4"),
        "{notes}"
    );
    assert!(notes.contains("takes no `enable_node_public_ip`"), "{notes}");
    // A file without `name` or `vm_size`: the repository's name (not known), the
    // action's default size.
    write(
        d,
        ".cloud/.azure/other.json",
        "{\"compute_type\": \"amlcluster\"}",
    );
    write(
        d,
        ".github/workflows/train.yml",
        &format!("{WORKFLOW}          parameters_file: other.json\n"),
    );
    check_clean(d);
    let def = only_definition(d);
    assert!(
        def["name"]["why"]
            .as_str()
            .unwrap()
            .contains("names the compute after the repository"),
        "{def:#}"
    );
    assert_eq!(def["settings"]["size"]["value"], "Standard_DS3_v2", "{def:#}");
}

/// The action's parameters file missing, a link out, a FIFO, not JSON, through `..` out
/// of the project, or named by an expression: a definition whose values are unknown, the
/// file expected named.
#[cfg(unix)]
#[test]
fn the_aml_compute_action_with_a_parameters_file_amlint_does_not_read() {
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "secret.json",
        "{\"name\": \"leaked\", \"compute_type\": \"amlcluster\"}",
    );
    let cases: Vec<(&str, &str, Setup<'_>, &str)> = vec![
        (
            "missing",
            "",
            Box::new(|_| {}),
            "`.cloud/.azure/compute.json` (from the repository's root), which is missing",
        ),
        (
            "symlink out",
            "",
            Box::new(|d| {
                std::fs::create_dir_all(d.join(".cloud/.azure")).unwrap();
                std::os::unix::fs::symlink(
                    outside.path().join("secret.json"),
                    d.join(".cloud/.azure/compute.json"),
                )
                .unwrap();
            }),
            "which is missing or which amlint cannot read",
        ),
        (
            "fifo",
            "",
            Box::new(|d| {
                std::fs::create_dir_all(d.join(".cloud/.azure")).unwrap();
                let c =
                    std::ffi::CString::new(d.join(".cloud/.azure/compute.json").to_str().unwrap()).unwrap();
                // SAFETY: a valid NUL-terminated path.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }),
            "which is missing or which amlint cannot read",
        ),
        (
            "invalid",
            "",
            Box::new(|d| write(d, ".cloud/.azure/compute.json", "{\"name\": ")),
            "is not one valid JSON document",
        ),
        (
            "dotdot",
            "          parameters_file: ../../../secret.json\n",
            Box::new(|_| {}),
            "which is missing or which amlint cannot read",
        ),
        (
            "expression",
            "          parameters_file: ${{ inputs.file }}\n",
            Box::new(|_| {}),
            "the action's parameters file is not known",
        ),
    ];
    for (what, with, setup, why) in cases {
        let dir = project();
        let d = dir.path().join("repo");
        std::fs::create_dir_all(d.join(".git")).unwrap();
        write(
            dir.path(),
            "secret.json",
            "{\"name\": \"leaked\", \"compute_type\": \"amlcluster\"}",
        );
        setup(&d);
        write(&d, ".github/workflows/train.yml", &format!("{WORKFLOW}{with}"));
        let json = check_clean(&d);
        assert!(!json.to_string().contains("leaked"), "{what}: {json:#}");
        let def = only_definition(&d);
        assert!(!def.to_string().contains("leaked"), "{what}: {def:#}");
        let got = def["name"]["why"].as_str().unwrap_or_default();
        assert!(got.contains(why), "{what}: {def:#}");
        assert!(
            def["notes"].to_string().contains("Azure/aml-compute action"),
            "{what}: {def:#}"
        );
    }
}

/// The action's step in the human output, to see what people read.
#[test]
fn the_aml_compute_action_is_shown_in_the_inventory() {
    let dir = project();
    let d = dir.path();
    write(d, ".github/workflows/train.yml", WORKFLOW);
    let out = amlint(d)
        .args(["inventory", "--no-config", "."])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("`uses: Azure/aml-compute@v1` action"), "{text}");
}
