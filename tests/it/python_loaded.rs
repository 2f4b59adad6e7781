//! Python scripts that take a compute's settings from a configuration file of the project
//! (audit 31, defect 3): `yaml.safe_load(f)` of `with open("config.yml") as f`,
//! `json.load(open(os.path.join(os.path.dirname(__file__), "compute.json")))`, then
//! `cfg["compute"]["vm_size"]` or `cfg.get("min_nodes", 0)`. The file is read as every
//! other file a reader consults (inside the project, regular, under the size limit); one
//! that is not read leaves the values unknown, saying which file and why.

use crate::common::{
    check_clean, codes_in, every_definition, findings_with, focus_lines, focused, inventory, project, write,
};

const CONFIG: &str =
    "workspace: ws\ncompute:\n  name: gpu-cluster\n  vm_size: Standard_NC6\n  min_nodes: 1\n";

const SCRIPT: &str = r#"import yaml
from azure.ai.ml.entities import AmlCompute

with open("config.yml") as f:
    cfg = yaml.safe_load(f)
c = cfg["compute"]
compute = AmlCompute(
    name=c["name"],
    size=c["vm_size"],
    min_instances=c.get("min_nodes", 0),
    max_instances=c.get("max_nodes", 4),
)
ml_client.compute.begin_create_or_update(compute)
"#;

/// `with open("config.yml") as f: cfg = yaml.safe_load(f)` in `src/create_compute.py`,
/// run from the repository's root: the file is found from the script's folder up, its
/// values are the compute's (each noted with where the file writes it, and that the
/// script reads it from the folder it runs in); AML505 (a retired size) and AML601 (a
/// minimum of 1) are at the script's keyword arguments; `.get()` with a default the file
/// does not override gives the default.
#[test]
fn yaml_safe_load_of_a_project_file_gives_the_computes_values() {
    let dir = project();
    let d = dir.path();
    write(d, "config.yml", CONFIG);
    write(d, "src/create_compute.py", SCRIPT);
    let json = check_clean(d);
    let script = "src/create_compute.py";
    assert_eq!(focus_lines(&json, script, "AML505"), [9], "{json:#}");
    assert_eq!(focus_lines(&json, script, "AML601"), [10], "{json:#}");
    assert!(codes_in(&json, "config.yml").is_empty(), "{json:#}");
    let defs = every_definition(&inventory(d));
    assert_eq!(defs.len(), 1, "{defs:#?}");
    let def = &defs[0];
    assert_eq!(def["name"]["value"], "gpu-cluster", "{def:#}");
    assert_eq!(def["settings"]["size"]["value"], "Standard_NC6", "{def:#}");
    assert_eq!(def["settings"]["max_instances"]["value"], "4", "{def:#}");
    let notes = def.to_string();
    assert!(
        notes.contains("`compute.vm_size` is read from config.yml:4:12, which `yaml.safe_load()` loads when the script runs from that file's folder"),
        "{def:#}"
    );
}

/// `json.load(open(os.path.join(os.path.dirname(__file__), "compute.json")))` with SDK
/// v1's `provisioning_configuration`: the file beside the script (not one of the same
/// name at the root), its values the configuration's.
#[test]
fn json_load_beside_the_script_feeds_sdk_v1() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "compute.json",
        "{\"name\": \"root-cluster\", \"size\": \"Standard_DS3_v2\"}\n",
    );
    write(
        d,
        "aml/compute.json",
        "{\n  \"name\": \"v1-cluster\",\n  \"size\": \"Standard_NC12\"\n}\n",
    );
    write(
        d,
        "aml/setup.py",
        r#"import json, os
from azureml.core.compute import AmlCompute, ComputeTarget

settings = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "compute.json")))
config = AmlCompute.provisioning_configuration(vm_size=settings["size"], max_nodes=4)
target = ComputeTarget.create(ws, settings["name"], config)
"#,
    );
    let json = check_clean(d);
    assert_eq!(focus_lines(&json, "aml/setup.py", "AML505"), [6], "{json:#}");
    let defs = every_definition(&inventory(d));
    assert_eq!(defs.len(), 1, "{defs:#?}");
    assert_eq!(defs[0]["name"]["value"], "v1-cluster", "{defs:#?}");
    assert_eq!(defs[0]["settings"]["size"]["value"], "Standard_NC12", "{defs:#?}");
    assert!(
        defs[0]
            .to_string()
            .contains("is read from aml/compute.json:3:11, which `json.load()` loads"),
        "{defs:#?}"
    );
}

/// Files that are not read, or loaders given what amlint does not open statically: the
/// values are unknown, each saying why, never guessed; no finding on them.
#[test]
fn configuration_files_not_read_leave_the_values_unknown() {
    let dir = project();
    let d = dir.path();
    write(d, "bad.yml", "compute: [unclosed\n");
    // Beside the script and at the root, different: which one is read is not known.
    write(d, "twice.yml", "size: Standard_NC6\n");
    write(d, "src/twice.yml", "size: Standard_NC12\n");
    let chain = format!("yaml.safe_load(open(\"bad.yml\"){})", ".read()".repeat(20_000));
    let cases: &[(&str, &str)] = &[
        (
            "yaml.safe_load(open(\"missing.yml\"))",
            "not found from the script's folder up to the project's root",
        ),
        (
            "yaml.safe_load(open(\"bad.yml\"))",
            "it is not one valid YAML document",
        ),
        (
            "yaml.safe_load(open(\"/etc/compute.yml\"))",
            "amlint reads only a file of the project by its relative path",
        ),
        (
            "yaml.safe_load(open(\"../../../../../../../../etc/passwd\"))",
            "not found from the script's folder up",
        ),
        ("yaml.safe_load(open(sys.argv[1]))", "a path not known statically"),
        (
            "yaml.safe_load(stream)",
            "reads what is not a file amlint opens statically",
        ),
        // A chain of `.read()`s (not a file's text: not followed, on a fixed stack).
        (&chain, "reads what is not a file amlint opens statically"),
        (
            "yaml.safe_load(open(\"twice.yml\"))",
            "which is both src/twice.yml and twice.yml (they differ)",
        ),
    ];
    let mut script = String::from("import sys, yaml\nfrom azure.ai.ml.entities import AmlCompute\n");
    for (i, (load, _)) in cases.iter().enumerate() {
        script.push_str(&format!(
            "cfg{i} = {load}\nml_client.compute.begin_create_or_update(AmlCompute(name=\"c{i}\", size=cfg{i}[\"size\"]))\n"
        ));
    }
    write(d, "src/s.py", &script);
    let json = check_clean(d);
    assert!(focus_lines(&json, "src/s.py", "AML505").is_empty(), "{json:#}");
    let inv = inventory(d);
    let defs = every_definition(&inv);
    assert_eq!(defs.len(), cases.len(), "{inv:#}");
    for (i, (load, why)) in cases.iter().enumerate() {
        let def = defs
            .iter()
            .find(|x| x["name"]["value"] == format!("c{i}"))
            .unwrap_or_else(|| panic!("c{i}: {inv:#}"));
        let size = &def["settings"]["size"];
        assert!(size["value"].is_null(), "{load}: {def:#}");
        assert!(
            size["why"].as_str().unwrap_or("").contains(why),
            "{load}: {def:#}"
        );
    }
}

/// A short YAML file whose aliases stand for a large tree (each level nine of the one
/// before: 9^4 leaves, within the loader's own expansion limit) is read up to a bound, at
/// once, and what lies beyond is unknown; a value reached through a small alias is read.
/// (A file over the loader's limit is not one valid document: all its values unknown.)
#[test]
fn aliases_in_a_loaded_file_are_bounded() {
    let dir = project();
    let d = dir.path();
    let mut yaml =
        String::from("size: &s Standard_NC6\nalias_size: *s\nl0: &l0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..4 {
        let p = i - 1;
        yaml.push_str(&format!(
            "l{i}: &l{i} [*l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}]\n"
        ));
    }
    yaml.push_str("last: Standard_DS3_v2\n");
    write(d, "c.yml", &yaml);
    write(
        d,
        "s.py",
        "import yaml\nfrom azure.ai.ml.entities import AmlCompute\ncfg = yaml.safe_load(open(\"c.yml\"))\nml_client.compute.begin_create_or_update(AmlCompute(name=\"a\", size=cfg[\"alias_size\"]))\nml_client.compute.begin_create_or_update(AmlCompute(name=\"b\", size=cfg[\"last\"]))\n",
    );
    let json = check_clean(d);
    assert_eq!(focus_lines(&json, "s.py", "AML505"), [4], "{json:#}");
    let inv = inventory(d);
    let defs = every_definition(&inv);
    let b = defs.iter().find(|x| x["name"]["value"] == "b").unwrap();
    assert!(b["settings"]["size"]["value"].is_null(), "{b:#}");
    assert!(
        b["settings"]["size"]["why"]
            .as_str()
            .unwrap_or("")
            .contains("holds more values than amlint reads"),
        "{b:#}"
    );
}

/// The configuration returned by a function (eval6 case 01, BharathiVetukuri/RetailGenie
/// `mlops/setup_azure_ml.py`: `config = load_config()`, `def load_config(): with
/// open("azure_config.yaml") as file: return yaml.safe_load(file)["azure"]`), in the same
/// file or imported from a module of the project (lorenzo314/azure-ml-iris-pipeline:
/// `from src.utils.config import load_config`, the file found from `__file__` with
/// pathlib, `Path(path) if path else DEFAULT` with `path=None`): the call without
/// arguments is what the function returns. A function that calls itself, a generator,
/// returns that differ, a parameter without a default, or a name assigned over the
/// function leave the value unknown, saying why.
#[test]
fn a_configuration_a_function_returns_gives_the_computes_values() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "azure_config.yaml",
        "azure:\n  compute:\n    name: cfg-cluster\n    size: Standard_NC6\n",
    );
    write(
        d,
        "mlops/setup.py",
        r#"import yaml
from azure.ai.ml.entities import AmlCompute


def load_config():
    with open("azure_config.yaml", "r") as file:
        return yaml.safe_load(file)["azure"]


def main():
    config = load_config()
    compute = AmlCompute(
        name=config["compute"]["name"],
        size=config["compute"]["size"],
    )
"#,
    );
    write(
        d,
        "configs/config.yaml",
        "cluster: lib-cluster\nsize: Standard_NC12\n",
    );
    write(d, "src/__init__.py", "");
    write(d, "src/utils/__init__.py", "");
    write(
        d,
        "src/utils/config.py",
        r#"from pathlib import Path
import yaml

_ROOT = Path(__file__).resolve().parents[2]
_DEFAULT = _ROOT / "configs" / "config.yaml"


def load_config(path=None):
    config_path = Path(path) if path else _DEFAULT
    with open(config_path) as f:
        return yaml.safe_load(f)


def again():
    return again()


def numbers():
    yield "n"


def either(x=1):
    if x:
        return "a"
    return "b"


def needs(x):
    return x
"#,
    );
    write(
        d,
        "setup/compute.py",
        r#"from azure.ai.ml.entities import AmlCompute
from src.utils.config import load_config, again, numbers, either, needs

cfg = load_config()
c1 = AmlCompute(name=cfg["cluster"], size=cfg["size"])
c2 = AmlCompute(name=again(), size="Standard_DS3_v2")
c3 = AmlCompute(name=numbers(), size="Standard_DS3_v2")
c4 = AmlCompute(name=either(), size="Standard_DS3_v2")
c5 = AmlCompute(name=needs(), size="Standard_DS3_v2")
load_config = lambda: {"cluster": "shadow"}
c6 = AmlCompute(name=load_config()["cluster"], size="Standard_DS3_v2")
"#,
    );
    let json = check_clean(d);
    assert_eq!(focus_lines(&json, "mlops/setup.py", "AML505"), [14], "{json:#}");
    assert_eq!(focus_lines(&json, "setup/compute.py", "AML505"), [5], "{json:#}");
    let defs = every_definition(&inventory(d));
    let named: Vec<(String, String)> = (defs.iter())
        .map(|x| {
            let why = x["name"]["why"].as_str().unwrap_or_default();
            let name = x["name"]["value"].as_str().unwrap_or(why);
            (x["line"].to_string(), name.to_string())
        })
        .collect();
    let has = |line: &str, text: &str| named.iter().any(|(l, n)| l == line && n.contains(text));
    assert!(has("12", "cfg-cluster"), "{named:#?}");
    assert!(has("5", "lib-cluster"), "{named:#?}");
    assert!(has("6", "`again()` calls itself"), "{named:#?}");
    assert!(has("7", "`numbers()` is a generator"), "{named:#?}");
    assert!(has("8", "`either()` returns different values"), "{named:#?}");
    assert!(has("9", "`needs()` needs its parameter `x`"), "{named:#?}");
    // The name is the lambda's now, not the function's.
    assert!(!has("11", "lib-cluster") && !has("11", "shadow"), "{named:#?}");
    let lib = defs.iter().find(|x| x["line"] == 5).unwrap();
    assert!(
        lib.to_string()
            .contains("`load_config()` returns it (src/utils/config.py:8)"),
        "{lib:#}"
    );
}

/// SDK v2's `load_compute(source, params_override=[...])` defines a compute at the call:
/// the overrides' name, type and settings (each finding at its literal in the script),
/// else the loaded YAML file's name and type. What the overrides leave to the file is
/// checked in the file, not again at the call (no AML702/AML704 there); overrides that are
/// not a list of dict literals leave the name unknown, saying why; the list is read
/// through the name it is assigned to, and one changed afterwards (`.append`) is not.
#[test]
fn load_compute_defines_a_compute_with_its_overrides_or_its_files_name() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "cfg/cluster.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: base-cluster\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 0\nmax_instances: 2\nenable_node_public_ip: false\nnetwork_settings:\n  subnet: /subscriptions/x/subnets/s\n",
    );
    let script = r#"from azure.ai.ml import load_compute

params = [
    {"name": "k8s-compute"},
    {"type": "kubernetes"},
]
k8s = load_compute(source=None, params_override=params)
ml_client.begin_create_or_update(k8s)
gpu = load_compute("cfg/cluster.yml", params_override=[{"name": "gpu-cluster"}, {"size": "Standard_NC6"}])
ml_client.begin_create_or_update(gpu)
same = load_compute(source="cfg/cluster.yml")
ml_client.compute.begin_create_or_update(same)
lc2 = load_compute(source=None, params_override=[{"name": "lc2", "type": "amlcompute", "min_instances": 1}])
ml_client.begin_create_or_update(lc2)
more = [{"name": "first"}]
more.append({"name": "second"})
changed = load_compute("cfg/cluster.yml", params_override=more)
ml_client.begin_create_or_update(changed)
"#;
    write(d, "setup.py", script);
    write(
        d,
        "job.yml",
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: echo hi\nenvironment: azureml:env@latest\ncompute: azureml:gpu-cluster\n",
    );
    let json = check_clean(d);
    let at = |code: &str| -> Vec<String> {
        findings_with(&json, "setup.py", code)
            .into_iter()
            .map(|f| focused(script, f))
            .collect()
    };
    assert_eq!(at("AML505"), ["Standard_NC6"], "{json:#}");
    assert_eq!(at("AML601"), ["1"], "{json:#}");
    // Only `lc2`, whose overrides are all it has, lacks a virtual network.
    assert_eq!(at("AML704"), ["lc2"], "{json:#}");
    assert!(
        codes_in(&json, "job.yml").is_empty(),
        "gpu-cluster resolves: {json:#}"
    );
    let inv = inventory(d);
    let defs: Vec<serde_json::Value> = every_definition(&inv)
        .into_iter()
        .filter(|x| x["path"] == "setup.py")
        .collect();
    let by_line = |line: u64| {
        defs.iter()
            .find(|x| x["line"] == line)
            .unwrap_or_else(|| panic!("{defs:#?}"))
    };
    assert_eq!(by_line(7)["name"]["value"], "k8s-compute");
    assert_eq!(by_line(7)["settings"]["type"]["value"], "kubernetes");
    assert_eq!(by_line(9)["name"]["value"], "gpu-cluster");
    assert_eq!(by_line(9)["settings"]["type"]["value"], "amlcompute");
    assert_eq!(by_line(11)["name"]["value"], "base-cluster");
    assert!(
        by_line(11).to_string().contains("read from cfg/cluster.yml:2:7"),
        "{defs:#?}"
    );
    assert!(by_line(17)["name"]["value"].is_null(), "{defs:#?}");
    assert!(
        by_line(17)["name"]["why"]
            .as_str()
            .unwrap()
            .contains("`more` is changed by `more.append("),
        "{defs:#?}"
    );
    assert_eq!(defs.len(), 5, "{defs:#?}");
}

/// A file many calls load (`load_compute("big.yml", ...)` 300 times, `yaml.safe_load` of
/// the same file alike) is parsed, and its value taken, once per run, not once per call
/// (300 calls of a 0.6 MB file: 11.8 s in a release build before, 0.2 s since).
#[test]
fn a_file_many_calls_load_is_parsed_once() {
    let dir = project();
    let d = dir.path();
    let big: String = (0..30_000).map(|i| format!("  k{i}: value{i}\n")).collect();
    write(
        d,
        "big.yml",
        &format!("name: base\ntype: amlcompute\ntags:\n{big}"),
    );
    let mut script = String::from("from azure.ai.ml import load_compute\n");
    for i in 0..300 {
        script.push_str(&format!(
            "c{i} = load_compute(\"big.yml\", params_override=[{{\"name\": \"n{i}\"}}])\nml_client.begin_create_or_update(c{i})\n"
        ));
    }
    write(d, "setup.py", &script);
    let json = crate::capped::check_json(d);
    assert!(!json.to_string().contains("AML000"), "{json}");
    let inv = inventory(d);
    let defs: Vec<serde_json::Value> = every_definition(&inv)
        .into_iter()
        .filter(|x| x["path"] == "setup.py")
        .collect();
    assert_eq!(defs.len(), 300, "one definition per call");
    assert!(
        defs.iter()
            .all(|x| x["settings"]["type"]["value"] == "amlcompute")
    );
}
