//! Python values a compute's settings are read from beyond literals and assignments
//! (audit 32, scripts cases 01, 07, 09, 10, 11): names imported from a module of the
//! project (`from config import VM_SIZE`, `import config as c`, `from config import *`),
//! class attributes and dataclass fields, dict literals read by key, `%` formatting,
//! argparse defaults (`args.vm_size`), and helpers that call helpers. Each value is
//! reported where the defining file uses it; a value from another file is noted with
//! where it is set.

use serde_json::Value;

use crate::common::{
    check_clean, compute, every_definition, findings_with, focused, inventory, placed, project, write,
};

fn only_definition(d: &std::path::Path) -> Value {
    let defs = every_definition(&inventory(d));
    assert_eq!(defs.len(), 1, "{defs:#?}");
    defs[0].clone()
}

const CONFIG: &str = "import os\n\nCLUSTER = \"gpu-cluster\"\nVM_SIZE = os.environ.get(\"VM_SIZE\", \"Standard_NC6\")\nCOMPUTE = {\"max\": 4}\n";

/// `from config import CLUSTER, VM_SIZE` and `import config as c`: the values the module's
/// top level gives, AML505 at the script's `VM_SIZE` (not in config.py, which defines
/// nothing), noted with where config.py sets them.
#[test]
fn names_imported_from_a_module_of_the_project_are_its_values() {
    let dir = project();
    let d = dir.path();
    write(d, "src/config.py", CONFIG);
    let script = "from azure.ai.ml.entities import AmlCompute\nfrom config import CLUSTER, VM_SIZE\nimport config as c\n\ncompute = AmlCompute(name=CLUSTER, size=VM_SIZE, max_instances=c.COMPUTE[\"max\"])\nml_client.begin_create_or_update(compute)\n";
    write(d, "src/create.py", script);
    let json = check_clean(d);
    assert_eq!(placed(&json, "AML505", "src/create.py"), [(5, 41)], "{json:#}");
    let f = findings_with(&json, "src/create.py", "AML505");
    assert_eq!(focused(script, f[0]), "VM_SIZE");
    assert!(
        findings_with(&json, "src/config.py", "AML505").is_empty(),
        "{json:#}"
    );
    let def = only_definition(d);
    assert_eq!(def["name"]["value"], "gpu-cluster", "{def:#}");
    assert_eq!(def["settings"]["size"]["value"], "Standard_NC6", "{def:#}");
    assert_eq!(def["settings"]["max_instances"]["value"], "4", "{def:#}");
    let text = def.to_string();
    assert!(text.contains("`CLUSTER` is set in src/config.py:3"), "{def:#}");
    assert!(
        text.contains(
            "the default of the environment variable `VM_SIZE`; `VM_SIZE` is set in src/config.py:4"
        ),
        "{def:#}"
    );
}

/// An instance of a class of another module (`from util.env import Env`, `e = Env()`):
/// a dataclass's field defaults and what a parameterless `__init__` assigns, read there
/// through a property, noted with where that module sets them; `os.environ.get` there is
/// not known when the file is read alone (a CI run gives it: `script_runs.rs`).
#[test]
fn instances_of_classes_of_other_modules_read_that_module() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "util/env.py",
        "import os\nfrom dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Env:\n    name: str = \"env-cluster\"\n    size: str = os.environ.get(\"SKU\")\n\n\nclass Old:\n    def __init__(self):\n        self._size = \"Standard_NC6\"\n\n    @property\n    def size(self):\n        return self._size\n",
    );
    let script = "from azureml.core.compute import AmlCompute, ComputeTarget\nfrom util.env import Env, Old\n\ne = Env()\no = Old()\ncfg = AmlCompute.provisioning_configuration(vm_size=o.size)\nComputeTarget.create(ws, e.name, cfg)\ncfg2 = AmlCompute.provisioning_configuration(vm_size=e.size)\nComputeTarget.create(ws, \"other\", cfg2)\n";
    write(d, "build.py", script);
    let json = check_clean(d);
    assert_eq!(placed(&json, "AML505", "build.py"), [(7, 34)], "{json:#}");
    let inv = inventory(d);
    let def = &compute(&inv, "env-cluster")["definitions"][0];
    assert_eq!(def["settings"]["size"]["value"], "Standard_NC6", "{def:#}");
    let text = def.to_string();
    assert!(text.contains("`Env.name` is set in util/env.py:7"), "{def:#}");
    assert!(text.contains("`Old.size` is set in util/env.py:13"), "{def:#}");
    let other = &compute(&inv, "other")["definitions"][0]["settings"]["size"];
    assert_eq!(other["value"], Value::Null, "{other:#}");
    assert!(
        other["why"]
            .as_str()
            .unwrap()
            .contains("read from the environment at run time"),
        "{other:#}"
    );
}

/// `from settings import *` gives the names the module assigns; a name it does not
/// assign, a package that is not a file of the project and a module outside it stay not
/// known, saying so.
#[test]
fn star_imports_and_modules_that_are_not_read() {
    let dir = project();
    let d = dir.path();
    write(d, "settings.py", "NAME = \"star-cluster\"\n");
    write(
        d,
        "create.py",
        "from azure.ai.ml.entities import AmlCompute\nfrom settings import *\nfrom azure_settings import SIZE\n\nml_client.begin_create_or_update(AmlCompute(name=NAME, size=SIZE, max_instances=OTHER))\n",
    );
    let def = only_definition(d);
    assert_eq!(def["name"]["value"], "star-cluster", "{def:#}");
    assert_eq!(def["settings"]["size"]["why"], "`SIZE` is imported", "{def:#}");
    assert_eq!(
        def["settings"]["max_instances"]["why"], "`OTHER` is not assigned in this file",
        "{def:#}"
    );
}

/// Class attributes (`Settings.SIZE`), a dataclass's fields with the keywords its
/// construction passes, what an `__init__` without parameters assigns (read through a
/// `@property` that returns it: MLOpsPython's `Env`), a dict literal read by key and
/// `.get`, `dict(...)`, and `%` formatting; an `__init__` with parameters stays not known.
/// A class body's assignments are not the module's names.
#[test]
fn classes_dicts_and_percent_formatting() {
    let dir = project();
    let d = dir.path();
    let script = r#"from dataclasses import dataclass
from azureml.core.compute import AmlCompute, ComputeTarget

SIZE = "Standard_DS3_v2"

class Settings:
    SIZE = "Standard_NV6"
    NAME = "class-cluster"

@dataclass
class Cfg:
    name: str = "data-cluster"
    size: str = "Standard_DS3_v2"

class WithInit:
    def __init__(self):
        self._size = "Standard_NC6"

    @property
    def size(self):
        \"\"\"The size.\"\"\"
        return self._size

class WithArgs:
    def __init__(self, size):
        self.size = size

cfg = Cfg(size="Standard_ND6s")
w = WithInit()
a = WithArgs("Standard_NC6")
conf = {"name": "dict-cluster", "vm": {"size": "Standard_NC12"}}
opts = dict(prefix="pct")
c1 = AmlCompute.provisioning_configuration(vm_size=Settings.SIZE)
ComputeTarget.create(ws, Settings.NAME, c1)
c2 = AmlCompute.provisioning_configuration(vm_size=cfg.size)
ComputeTarget.create(ws, cfg.name, c2)
c3 = AmlCompute.provisioning_configuration(vm_size=conf["vm"].get("size"))
ComputeTarget.create(ws, conf["name"], c3)
c4 = AmlCompute.provisioning_configuration(vm_size=SIZE)
ComputeTarget.create(ws, "%s-%d" % (opts["prefix"], 2), c4)
c5 = AmlCompute.provisioning_configuration(vm_size=w.size)
ComputeTarget.create(ws, "init-cluster", c5)
c6 = AmlCompute.provisioning_configuration(vm_size=a.size)
ComputeTarget.create(ws, "args-cluster", c6)
"#;
    write(d, "create.py", script);
    let json = check_clean(d);
    // Each retired size at the configuration each `ComputeTarget.create` is given (SDK
    // v1's definitions are judged there, the literal labelled).
    assert_eq!(
        placed(&json, "AML505", "create.py"),
        [(34, 41), (36, 36), (38, 40), (42, 42)],
        "{json:#}"
    );
    let inv = inventory(d);
    let size = |name: &str| compute(&inv, name)["definitions"][0]["settings"]["size"]["value"].clone();
    assert_eq!(size("class-cluster"), "Standard_NV6");
    assert_eq!(size("data-cluster"), "Standard_ND6s");
    assert_eq!(size("dict-cluster"), "Standard_NC12");
    // The module's `SIZE`, not the class's.
    assert_eq!(size("pct-2"), "Standard_DS3_v2");
    assert_eq!(size("init-cluster"), "Standard_NC6");
    let args = &compute(&inv, "args-cluster")["definitions"][0]["settings"]["size"];
    assert_eq!(args["value"], Value::Null, "{args:#}");
    assert_eq!(
        args["why"], "`a.size` is set when `WithArgs(\"Standard_NC6\")` is made",
        "{args:#}"
    );
}

/// argparse: `args.x` is the default of the option whose destination is `x` (`--vm-size`
/// → `vm_size`, `dest=`), a string default given to `type=int`, `store_true`; an option
/// without a default, or added twice with different defaults, is not known.
#[test]
fn argparse_defaults_are_the_values_when_the_command_line_does_not_give_them() {
    let dir = project();
    let d = dir.path();
    let script = r#"import argparse
from azure.ai.ml.entities import AmlCompute

def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--cluster-name", default="arg-cluster")
    p.add_argument("-s", "--vm-size", dest="size", default="Standard_NC6")
    p.add_argument("--max-nodes", type=int, default="3")
    p.add_argument("--tier")
    p.add_argument("--idle", default=120)
    p.add_argument("--idle", default=300)
    return p.parse_args()

args = get_args()
c = AmlCompute(name=args.cluster_name, size=args.size, max_instances=args.max_nodes,
               tier=args.tier, min_instances=args.idle)
ml_client.begin_create_or_update(c)
"#;
    write(d, "train/create.py", script);
    let json = check_clean(d);
    assert_eq!(placed(&json, "AML505", "train/create.py"), [(15, 45)], "{json:#}");
    let def = only_definition(d);
    assert_eq!(def["name"]["value"], "arg-cluster", "{def:#}");
    assert_eq!(def["settings"]["max_instances"]["value"], "3", "{def:#}");
    assert_eq!(
        def["settings"]["tier"]["why"],
        "`args.tier` is the command-line option `--tier` (line 9), which has no default",
        "{def:#}"
    );
    assert_eq!(
        def["settings"]["min_instances"]["why"],
        "`args.idle` is an option this file adds more than once, with different defaults",
        "{def:#}"
    );
    assert!(
        def.to_string()
            .contains("the default of the command-line option `--vm-size` (line 7)"),
        "{def:#}"
    );
}

/// Helpers that call helpers (microsoft/mlops-template-for-azureml-sdk-v2's shape, three
/// files): `start.py` calls `prepare(name, size)` of `pipeline.py`, which calls
/// `get_compute(name, size, min, max)` of `common/compute.py`: a definition at the start
/// call with its literals, AML505 there; the middle and inner ones stay "set by its
/// callers".
#[test]
fn a_helper_that_calls_a_helper_is_followed_to_the_literals() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        "common/compute.py",
        "from azure.ai.ml.entities import AmlCompute\n\ndef get_compute(ml_client, name, size, min_instances, max_instances):\n    c = AmlCompute(name=name, size=size, min_instances=min_instances, max_instances=max_instances)\n    return ml_client.begin_create_or_update(c).result()\n",
    );
    write(
        d,
        "pipeline.py",
        "from common.compute import get_compute\n\ndef prepare(client, cluster_name, cluster_size):\n    get_compute(client, cluster_name, cluster_size, 0, 4)\n\ndef run(client, size):\n    prepare(client, \"run-cluster\", size)\n",
    );
    let start = "from pipeline import prepare, run\n\nprepare(ml_client, \"start-cluster\", \"Standard_NC6\")\nrun(ml_client, \"Standard_NC12\")\n";
    write(d, "start.py", start);
    let json = check_clean(d);
    assert_eq!(
        placed(&json, "AML505", "start.py"),
        [(3, 38), (4, 17)],
        "{json:#}"
    );
    let inv = inventory(d);
    let s = &compute(&inv, "start-cluster")["definitions"][0];
    assert_eq!(s["path"], "start.py", "{s:#}");
    assert_eq!(s["settings"]["size"]["value"], "Standard_NC6", "{s:#}");
    assert_eq!(s["settings"]["max_instances"]["value"], "4", "{s:#}");
    // Three levels: run → prepare → get_compute.
    let r = &compute(&inv, "run-cluster")["definitions"];
    assert!(
        r.as_array()
            .unwrap()
            .iter()
            .any(|x| x["path"] == "start.py" && x["settings"]["size"]["value"] == "Standard_NC12"),
        "{r:#}"
    );
}

/// Hostile inputs: modules importing each other's constants, helpers calling each other
/// in a circle, thousands of constants and options, a dict nested thousands deep. Each
/// run ends, and what is not followed is not known.
#[test]
fn hostile_imports_helpers_and_literals_end() {
    let dir = project();
    let d = dir.path();
    write(d, "a.py", "from b import Y\nX = Y\n");
    write(d, "b.py", "from a import X\nY = X\n");
    // The first 1,024 names of a module are evaluated: `C4999` is only "imported".
    let mut many = String::from("SIZE = \"Standard_NC6\"\n");
    for i in 0..5_000 {
        many.push_str(&format!("C{i} = \"v{i}\"\n"));
    }
    write(d, "many.py", &many);
    let deep = format!("D = {}\"x\"{}\n", "{\"k\": ".repeat(3_000), "}".repeat(3_000));
    write(d, "deep.py", &deep);
    let mut opts = String::from("import argparse\np = argparse.ArgumentParser()\n");
    for i in 0..2_000 {
        opts.push_str(&format!("p.add_argument(\"--o{i}\", default=\"{i}\")\n"));
    }
    opts.push_str("args = p.parse_args()\n");
    write(
        d,
        "helpers.py",
        "from azure.ai.ml.entities import AmlCompute\n\ndef f(n, s):\n    g(n, s)\n\ndef g(n, s):\n    f(n, s)\n    AmlCompute(name=n, size=s)\n",
    );
    write(
        d,
        "create.py",
        &format!(
            "{opts}from azure.ai.ml.entities import AmlCompute\nfrom a import X\nfrom many import SIZE, C4999\nfrom deep import D\nfrom helpers import f\nml_client.begin_create_or_update(AmlCompute(name=X, size=SIZE, max_instances=args.o1999, tier=D[\"k\"], location=C4999))\nf(\"circle\", \"Standard_NC6\")\n"
        ),
    );
    let json = check_clean(d);
    assert!(
        !findings_with(&json, "create.py", "AML505").is_empty(),
        "{json:#}"
    );
    let inv = inventory(d);
    let defs = every_definition(&inv);
    let made = defs
        .iter()
        .find(|x| x["path"] == "create.py" && x["settings"]["size"]["value"] == "Standard_NC6")
        .unwrap_or_else(|| panic!("{defs:#?}"));
    // `X` of a.py is `Y` imported there, not followed a second file deep.
    assert_eq!(made["name"]["value"], Value::Null, "{made:#}");
    assert_eq!(made["settings"]["max_instances"]["value"], "1999", "{made:#}");
    assert_eq!(made["settings"]["tier"]["value"], Value::Null, "{made:#}");
}

/// A key assigned after the dict is made (`cfg = {}; cfg["name"] = "gpu-sub"`; the
/// labelled sets' `config["compute"] = "x"`): `cfg["name"]` reads it back, another key's
/// assignment since changes nothing for it, and anything else that changes `cfg` since
/// (`cfg.update(...)`, a new `cfg = ...`, a branch) makes it not known — as does `**cfg`,
/// whose other keys are not all known.
#[test]
fn a_key_assigned_into_a_dict_is_read_back() {
    let dir = project();
    let d = dir.path();
    let script = "from azure.ai.ml.entities import AmlCompute\ncfg = {}\ncfg[\"name\"] = \"gpu-sub\"\ncfg['size'] = \"Standard_NC6\"\nc = AmlCompute(name=cfg[\"name\"], size=cfg[\"size\"], min_instances=0)\nupd = {}\nupd[\"name\"] = \"first\"\nupd.update(name=\"second\")\nc = AmlCompute(name=upd[\"name\"], size=\"Standard_DS3_v2\")\nnew = {}\nnew[\"name\"] = \"old\"\nnew = load()\nc = AmlCompute(name=new[\"name\"], size=\"Standard_DS3_v2\")\nbr = {}\nif flag:\n    br[\"name\"] = \"a\"\nelse:\n    br[\"name\"] = \"b\"\nc = AmlCompute(name=br[\"name\"], size=\"Standard_DS3_v2\")\nsp = {\"size\": \"Standard_NC12\"}\nsp[\"name\"] = \"spread\"\nc = AmlCompute(name=\"spread\", **sp)\n";
    write(d, "src/create.py", script);
    let json = check_clean(d);
    let f = findings_with(&json, "src/create.py", "AML505");
    assert_eq!(f.len(), 1, "{json:#}");
    assert_eq!(focused(script, f[0]), "cfg[\"size\"]", "{json:#}");
    let inv = inventory(d);
    assert_eq!(compute(&inv, "gpu-sub")["size"], "Standard_NC6", "{inv:#}");
    let names: Vec<String> = (inv["computes"].as_array().unwrap().iter())
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["gpu-sub", "spread"], "{inv:#}");
    assert!(compute(&inv, "spread")["size"].is_null(), "{inv:#}");
    assert_eq!(inv["unnamed_definitions"].as_array().unwrap().len(), 3, "{inv:#}");
}

/// Modules found through the directories a script adds to its import path (eval5 case
/// 01, the MLOpsPython layout): `sys.path.append(os.path.abspath("./ml_service/util"))`
/// from the working directory (the project's root), `sys.path.insert(0, …)` of a path
/// made from `__file__` with `os.path` or `pathlib`, and a name assigned one. The helper's
/// call is a definition at the call; a constant is read from the module.
#[test]
fn modules_on_the_import_path_a_script_adds_are_followed() {
    let dir = project();
    let d = dir.path();
    let helper = "from azureml.core.compute import AmlCompute, ComputeTarget\n\ndef get_compute(ws, compute_name, vm_size):\n    config = AmlCompute.provisioning_configuration(vm_size=vm_size, max_nodes=4)\n    return ComputeTarget.create(ws, compute_name, config)\n";
    write(d, "ml_service/util/attach_compute.py", helper);
    write(d, "shared/lib/sizes.py", "GPU = \"Standard_NC6\"\n");
    let a = "import os, sys\nsys.path.append(os.path.abspath(\"./ml_service/util\"))  # noqa: E402\nfrom attach_compute import get_compute\nget_compute(ws, \"from-cwd\", \"Standard_NC6\")\n";
    write(d, "ml_pipelines/a.py", a);
    let b = "import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).resolve().parents[1] / \"ml_service\" / \"util\"))\nimport attach_compute\nattach_compute.get_compute(ws, \"from-pathlib\", \"Standard_NC6\")\n";
    write(d, "ml_pipelines/b.py", b);
    let c = "import os\nimport sys\nROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nsys.path.insert(0, os.path.join(ROOT, 'shared', 'lib'))\nfrom azure.ai.ml.entities import AmlCompute\nfrom sizes import GPU\nml_client.begin_create_or_update(AmlCompute(name=\"from-a-name\", size=GPU))\n";
    write(d, "jobs/c.py", c);
    // A path the script adds outside the project is not followed.
    write(
        d,
        "jobs/d.py",
        "import sys\nsys.path.append('/opt/lib')\nsys.path.append('../../../../outside')\nfrom attach_compute import get_compute\nget_compute(ws, \"not-found\", \"Standard_NC6\")\n",
    );
    let json = check_clean(d);
    assert_eq!(
        placed(&json, "AML505", "ml_pipelines/a.py"),
        [(4, 30)],
        "{json:#}"
    );
    assert_eq!(
        placed(&json, "AML505", "ml_pipelines/b.py"),
        [(5, 49)],
        "{json:#}"
    );
    assert_eq!(placed(&json, "AML505", "jobs/c.py"), [(7, 70)], "{json:#}");
    assert!(placed(&json, "AML505", "jobs/d.py").is_empty(), "{json:#}");
    let names: Vec<String> = every_definition(&inventory(d))
        .iter()
        .filter_map(|d| d["name"]["value"].as_str().map(str::to_string))
        .collect();
    assert_eq!(names, ["from-a-name", "from-cwd", "from-pathlib"], "{names:?}");
}
