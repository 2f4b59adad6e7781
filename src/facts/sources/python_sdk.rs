//! The Azure ML Python SDK in `.py` files and notebooks (`.ipynb`: code cells joined in
//! order into one module, lines and spans those of the `.ipynb` file itself).
//!
//! Definitions: SDK v2 `AmlCompute(name=…)`, `ComputeInstance(…)`, `KubernetesCompute(…)`,
//! `VirtualMachineCompute(…)`, `SynapseSparkCompute(…)` (keyword arguments `name`,
//! `size`, `min_instances`, `max_instances`, `tier`, `idle_time_before_scale_down`,
//! `enable_node_public_ip`, `ssh_public_access_enabled`, `location`, `network_settings=
//! NetworkSettings(subnet=…)`); SDK v1 `ComputeTarget.create(ws, name, config)` with the
//! `<Class>.provisioning_configuration(vm_size=…, min_nodes=…, max_nodes=…, vm_priority=…)`
//! it is given (inline, or the nearest assignment of `config` before the call). SDK v1's
//! `AmlCompute(ws, name)` and `ComputeTarget(workspace=ws, name=…)` are lookups, not
//! definitions.
//!
//! Python is parsed with tree-sitter's Python grammar (after a byte scan that refuses more
//! than [`module::MAX_TOKENS`] tokens: its tree costs about 200 bytes each). Values come from
//! literals, f-strings, `+`, `str.lower()`..., the nearest assignment before the use in the
//! same function or the module (notebook cells in order), a function parameter's default,
//! `os.environ.get("X", "default")`/`os.getenv` (the default, noted), `x or "default"` and
//! `x if x else "default"` (the default, noted); anything else is unknown, with why. A
//! value through a variable is reported where the definition uses it, with the literal's
//! place as a label when it is in the same file. The statement that assigns an SDK v1
//! configuration is written before its definition (`ComputeDef::written_before`): a
//! suppression beside its values applies to the definition.

use std::sync::Arc;

use super::common::{Definitions, Input, Reader, mentions};
use super::ipynb::{self, Code};
use module::{CLASS_NEEDLES, Module, affordable, blank_magics};

mod helpers;
mod module;
mod paths;

pub const READER: Reader = Reader {
    name: "python-sdk",
    wants: |name| name.ends_with(".py") || name.ends_with(".ipynb"),
    needles: module::NEEDLES,
    defines: module::CLASS_NEEDLES,
    read,
};

/// The definitions of a `.py` file or a notebook's Python cells: the computes its calls
/// create, and its calls of helpers that create one (`helpers`).
fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = input.source.text.as_str();
    // A file that names no compute class may still create one by calling a helper that
    // does (`get_compute(ws, "cpu-cluster", "Standard_DS3_v2")`): it is parsed only if a
    // module it imports is such a helper in the project (`helpers`). One that names a
    // class and is beyond the parser's limits is reported (`Definitions::unread`).
    let defines = mentions(text.as_bytes(), CLASS_NEEDLES);
    let code = if input.file_name().ends_with(".ipynb") {
        let mut code = match ipynb::code_cells(text, &input.source.path, Some("python")) {
            None => return,
            Some(Err(why)) => {
                if defines {
                    out.unread = Some(why);
                }
                return;
            }
            Some(Ok(code)) => code,
        };
        for i in 0..code.cells.len() {
            let end = code.cells.get(i + 1).copied().unwrap_or(code.text.len());
            blank_magics(&mut code.text, code.cells[i], end);
        }
        code
    } else {
        Code::plain(text)
    };
    if let Err(why) = affordable(&code.text) {
        if defines {
            out.unread = Some(why);
        }
        return;
    }
    if !defines && !helpers::imports_a_helper(&code.text, input.files, input.path, helpers::TOP) {
        return;
    }
    let Some(tree) = module::parse(&code) else {
        return;
    };
    let mut py = Module::new(&code, tree.root_node(), text);
    py.load = Some((input.files, input.path));
    out.comments.extend(py.comments(input.source));
    out.computes
        .extend(py.with_helper_calls(input.files, input.path, &input.source.path));
}

/// The definitions of the project's Python file `path` as a command runs it: `cli` are the
/// command's words after the file (each its value, or why it is not known), which give
/// the `argparse` options they name (`--size X`) instead of their defaults. `None` when
/// the file is not read (not in the project, beyond the parser's limits or what is left
/// of `budget`, in bytes) or neither names a compute class nor imports a helper that
/// creates one. Its calls of helpers are definitions too, as in [`read`]: a run of
/// `build.py` calling `get_compute(ws, os.environ.get("CLUSTER"), ...)` passes the
/// helper the run's environment.
pub(super) fn read_run(
    files: &super::common::Files,
    path: &std::path::Path,
    cli: Vec<Result<String, String>>,
    env: &module::RunEnv<'_>,
    budget: &std::cell::Cell<usize>,
) -> Option<(
    Arc<crate::source::SourceFile>,
    Vec<crate::facts::computes::ComputeDef>,
)> {
    // Shown as the project shows it (`.pipelines/../ml/build.py` is `ml/build.py`).
    let display = crate::discover::display_of(&crate::fsio::normalize(path));
    let source = files.read(path, &display)?;
    let text = source.text.as_str();
    if !mentions(text.as_bytes(), CLASS_NEEDLES)
        && !helpers::imports_a_helper(text, files, path, helpers::TOP)
    {
        return None;
    }
    // Each run parses the file again: within the reader's budget of bytes.
    budget.set(budget.get().checked_sub(text.len().max(1))?);
    let code = Code::plain(text);
    affordable(&code.text).ok()?;
    let tree = module::parse(&code)?;
    let mut py = Module::new(&code, tree.root_node(), text);
    py.load = Some((files, path));
    py.cli = Some(cli);
    py.env = Some(env);
    py.run_budget = Some(budget);
    let defs = py.with_helper_calls(files, path, &source.path);
    drop(py);
    Some((source.clone(), defs))
}

/// What a `.py` file's strings and comments are, for the `az` commands it runs from
/// strings ([`super::py_strings`]).
pub(super) struct Strings {
    /// Each string literal holding one of the needles: its content's byte range (between
    /// the quotes; an f-string's `{…}` included).
    pub regions: Vec<(usize, usize)>,
    /// Each comment's span and whether it stands on a line of its own.
    pub comments: Vec<(crate::source::Span, bool)>,
    /// Where each line of code starts.
    pub code_lines: Vec<u32>,
}

/// The string literals of the Python `text` that hold one of `needles` (at most `max`),
/// and its comments. `Err`: beyond the parser's limits (why).
pub(super) fn strings_holding(text: &str, needles: &[&str], max: usize) -> Result<Strings, String> {
    affordable(text)?;
    let code = Code::plain(text);
    let mut out = Strings {
        regions: Vec::new(),
        comments: Vec::new(),
        code_lines: Vec::new(),
    };
    let Some(tree) = module::parse(&code) else {
        return Ok(out);
    };
    // A string's own children are not visited.
    super::common::preorder(tree.root_node(), |n| match n.kind() {
        "string" => {
            let (a, z) = module::string_bounds(n);
            if out.regions.len() < max && mentions(&text.as_bytes()[a..z], needles) {
                out.regions.push((a, z));
            }
            false
        }
        "comment" => {
            let span = crate::source::Span::new(n.start_byte() as u32, n.end_byte() as u32);
            out.comments
                .push((span, super::common::own_line(text, n.start_byte())));
            true
        }
        _ => true,
    });
    out.code_lines = (super::common::hash_code_lines(text).into_iter())
        .map(|p| p as u32)
        .collect();
    Ok(out)
}

/// The words of Python that may define a compute itself (a class or call of the SDK).
pub(super) const DEFINING_WORDS: &[&str] = CLASS_NEEDLES;

/// The definitions of the Python a document shows (`code`: its Python code blocks joined
/// in document order as one program, as a notebook's cells are, mapped to the document's
/// own bytes), each noted `note`; a string value that `placeholder` says is for the
/// reader to fill in (`"<compute-name>"`) is not known. Helper calls are not followed: a
/// document imports nothing of the project.
pub(super) fn read_shown(
    input: &Input<'_>,
    mut code: Code,
    note: &str,
    placeholder: &dyn Fn(&str) -> Option<String>,
    out: &mut Definitions,
) {
    for i in 0..code.cells.len() {
        let end = code.cells.get(i + 1).copied().unwrap_or(code.text.len());
        blank_magics(&mut code.text, code.cells[i], end);
    }
    if let Err(why) = affordable(&code.text) {
        out.unread = Some(format!("{why} (its Python code blocks together)"));
        return;
    }
    let Some(tree) = module::parse(&code) else {
        return;
    };
    let py = Module::new(&code, tree.root_node(), &input.source.text);
    out.comments.extend(py.comments(input.source));
    let made = py.made(input.source.path.as_str());
    for mut def in Module::definitions(&made) {
        let settings = std::iter::once(&mut def.name).chain(def.fields.iter_mut().map(|(_, s)| s));
        for s in settings {
            if let Some(crate::facts::computes::Scalar::Str(v)) = &s.value
                && let Some(why) = placeholder(v)
            {
                s.value = None;
                s.why = Some(why);
                s.in_place = false;
            }
        }
        def.notes.push(note.to_string());
        out.computes.push(def);
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::super::iac;
    use super::module::MAX_TOKENS;
    use super::*;
    use crate::facts::computes::{ComputeDef, Scalar, SourceKind};

    fn read_named(name: &str, text: &str) -> Definitions {
        let dir = tempfile::tempdir().unwrap();
        iac::read_for_test(read, dir.path(), name, text)
    }

    #[test]
    fn the_reader_looks_for_imports_besides_the_classes() {
        assert_eq!(module::NEEDLES.last(), Some(&"import"));
        assert!(CLASS_NEEDLES.contains(&"provisioning_configuration"));
        assert!(!CLASS_NEEDLES.contains(&"import"));
        // A file that imports no helper and names no class is not parsed.
        assert!(defs("import os\nmake(None, \"x\")\n").is_empty());
    }

    /// `ComputeTarget.attach(ws, name, X.attach_configuration(...))` is a definition of
    /// X's type (eval8, case 05: Databricks, HDInsight and ADLA targets were untyped, so
    /// an AutoML job on one got no AML305).
    #[test]
    fn v1_attach_configurations_give_their_class_type() {
        let t = "from azureml.core.compute import ComputeTarget, DatabricksCompute, HDInsightCompute, AdlaCompute, RemoteCompute
                 ComputeTarget.attach(ws, \"my-databricks\", DatabricksCompute.attach_configuration(resource_group=rg, workspace_name=w, access_token=t))
                 c = HDInsightCompute.attach_configuration(address=\"h.azurehdinsight.net\", ssh_port=22, username=u, password=p)
                 ComputeTarget.attach(ws, \"my-hdi\", c)
                 AdlaCompute.attach(ws, \"my-adla\", AdlaCompute.attach_configuration(resource_group=rg, account_name=a))
                 ComputeTarget.attach(ws, \"my-vm\", RemoteCompute.attach_configuration(address=\"1.2.3.4\", ssh_port=22))
";
        let types: Vec<(Option<String>, Option<String>)> = defs(t)
            .iter()
            .map(|d| (d.known_name().map(str::to_string), d.ctype()))
            .collect();
        let named = |n: &str, t: &str| (Some(n.to_string()), Some(t.to_string()));
        assert_eq!(
            types,
            [
                named("my-databricks", "databricks"),
                named("my-hdi", "hdinsight"),
                named("my-adla", "datalakeanalytics"),
                named("my-vm", "virtualmachine"),
            ]
        );
    }

    /// `provisioning_configuration`'s positional arguments are read by SDK v1's order:
    /// `AmlCompute`'s and `ComputeInstance`'s first is the size, `AksCompute`'s second.
    #[test]
    fn v1_positional_provisioning_arguments_are_read_by_their_names() {
        let t = "from azureml.core.compute import AmlCompute, AksCompute, ComputeTarget\n\
                 a = AmlCompute.provisioning_configuration(\"Standard_NC6\", \"lowpriority\", 1, 4)\n\
                 ComputeTarget.create(ws, \"pos-aml\", a)\n\
                 k = AksCompute.provisioning_configuration(3, \"Standard_A3\")\n\
                 ComputeTarget.create(ws, \"pos-aks\", k)\n";
        let d = defs(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].size(), Some("Standard_NC6"));
        assert_eq!(
            d[0].get("min_instances").and_then(|s| s.value.clone()),
            Some(Scalar::Int(1))
        );
        assert_eq!(
            d[0].get("max_instances").and_then(|s| s.value.clone()),
            Some(Scalar::Int(4))
        );
        assert_eq!(
            d[0].get("tier").and_then(|s| s.text()).as_deref(),
            Some("low_priority")
        );
        assert_eq!(d[1].size(), Some("Standard_A3"));
        assert!(d[1].get("min_instances").is_none(), "3 is AKS's agent count");
    }

    /// A name assigned in several branches is not known (which branch runs is decided at
    /// run time); one assigned under a condition and nowhere else is.
    #[test]
    fn a_name_assigned_in_several_branches_is_not_known() {
        let t = r#"from azure.ai.ml.entities import AmlCompute
if a:
    n = "one"
elif b:
    n = "two"
else:
    n = "three"
_ = AmlCompute(name=n)
c = "x"
if a:
    c = "y"
_ = AmlCompute(name=c)
if a:
    only = "solo"
_ = AmlCompute(name=only)
try:
    t = "t1"
    _ = AmlCompute(name=t)
except E:
    pass
with open(f) as fh:
    w = "w1"
_ = AmlCompute(name=w)
def f(k):
    if k:
        v = "in-f"
        return AmlCompute(name=v)
"#;
        let d = defs(t);
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            [None, None, Some("solo"), Some("t1"), Some("w1"), Some("in-f")]
        );
        let why = d[0].name.why.as_deref().unwrap();
        assert!(
            why.contains("`n` is assigned in a branch") && why.contains("run time"),
            "{why}"
        );
    }

    /// Audit 25, D5 and D11: a dict changed before the call (`d[k] = v`, `d.update(…)`,
    /// `del d[k]`; an object's attribute set, `cfg.vm_size = …`) is not read as its
    /// literal: what it passes is unknown; a key written twice passes its last value, as
    /// Python keeps it.
    #[test]
    fn a_dict_changed_before_the_call_is_not_known_and_its_last_key_wins() {
        let t = r#"from azure.ai.ml.entities import AmlCompute
from azureml.core.compute import AmlCompute as V1, ComputeTarget
cfg = {"vm_size": "STANDARD_D2_V2"}
cfg["vm_size"] = "Standard_NC6"
ComputeTarget.create(ws, "sub", V1.provisioning_configuration(**cfg))
opts = {"size": "Standard_DS3_v2", "enable_node_public_ip": True}
opts.update(enable_node_public_ip=False)
_ = AmlCompute(name="upd", **opts)
dup = {"enable_node_public_ip": True, "size": "Standard_DS3_v2", "enable_node_public_ip": False}
_ = AmlCompute(name="dup", **dup)
kept = {"size": "Standard_NC6"}
def later(): kept["size"] = "Standard_DS3_v2"
_ = AmlCompute(name="kept", **kept)
"#;
        let d = defs(t);
        let get = |name: &str, p: &str| {
            let def = d.iter().find(|x| x.known_name() == Some(name)).unwrap();
            def.get(p).map(|s| (s.value.clone(), s.why.clone()))
        };
        let (v, why) = get("sub", "size").unwrap();
        assert_eq!(v, None);
        assert!(
            why.unwrap()
                .contains("is changed by `cfg[\"vm_size\"] = \"Standard_NC6\"`")
        );
        assert_eq!(get("upd", "enable_node_public_ip").unwrap().0, None);
        assert_eq!(
            get("dup", "enable_node_public_ip").unwrap().0,
            Some(Scalar::Bool(false))
        );
        // A change in a function not called before: the literal stands.
        assert_eq!(
            get("kept", "size").unwrap().0,
            Some(Scalar::Str("Standard_NC6".into()))
        );
    }

    /// Audit 27, case 04: attributes set on an SDK v1 configuration before the `create`
    /// (`config.vnet_name = ...`) are its settings: read in straight text, unknown (that
    /// setting alone) under a condition or in a loop, noted when amlint does not know the
    /// attribute; any other change (`config.x.y = ...`) still leaves it not read.
    #[test]
    fn attributes_set_on_a_v1_configuration_are_its_settings() {
        let t = r#"from azureml.core.compute import AmlCompute, ComputeTarget
config = AmlCompute.provisioning_configuration(vm_size="STANDARD_D2_V2", max_nodes=4)
config.vm_size = "Standard_NC6"
config.vnet_resourcegroup_name = "rg"
config.vnet_name = "vnet"
if private:
    config.subnet_name = "default"
for n in range(2):
    config.max_nodes = n
config.colour = "blue"
ComputeTarget.create(ws, "c", config)
deep = AmlCompute.provisioning_configuration(vm_size="Standard_NC6")
deep.vnet.name = "vnet"
ComputeTarget.create(ws, "deep", deep)
"#;
        let d = defs(t);
        let c = d.iter().find(|x| x.known_name() == Some("c")).unwrap();
        assert_eq!(c.size(), Some("Standard_NC6"));
        let size = c.get("size").unwrap();
        assert_eq!(&t[size.span.range()], "config");
        assert_eq!(&t[size.origin.unwrap().range()], "Standard_NC6");
        assert_eq!(
            c.get("network_settings.vnet_name").unwrap().value,
            Some(Scalar::Str("vnet".into()))
        );
        let why = |p: &str| c.get(p).unwrap().why.clone().unwrap_or_default();
        assert_eq!(
            why("network_settings.subnet"),
            "`config.subnet_name` is set under a condition or in a loop (line 7)"
        );
        assert_eq!(
            why("max_instances"),
            "`config.max_nodes` is set under a condition or in a loop (line 9)"
        );
        assert_eq!(
            c.notes
                .iter()
                .filter(|n| n.contains("is not read"))
                .collect::<Vec<_>>(),
            [
                "`config.colour = ...` on line 10 is not read: `colour` is not an attribute of `AmlCompute.provisioning_configuration(...)` amlint knows"
            ]
        );
        let deep = d.iter().find(|x| x.known_name() == Some("deep")).unwrap();
        assert_eq!(deep.ctype(), None);
        assert!(
            deep.notes
                .contains(&"the provisioning configuration `deep` is not read".to_string()),
            "{:?}",
            deep.notes
        );
    }

    /// `**` arguments (audit 24, case 09): a dict literal's or `dict(...)`'s entries are
    /// read as keywords, at the `**` argument; what another `**` may set is unknown (no
    /// rule fires on its absence), the keywords written in the call kept.
    #[test]
    fn keyword_arguments_passed_with_stars() {
        let t = r#"from azure.ai.ml.entities import AmlCompute, ComputeInstance, NetworkSettings
from azureml.core.compute import AmlCompute as V1, ComputeTarget
private = dict(enable_node_public_ip=False, network_settings=NetworkSettings(subnet="training"))
a = AmlCompute(name="a", size="Standard_DS3_v2", **private)
ci_settings = {"idle_time_before_shutdown_minutes": 30, "enable_node_public_ip": False}
b = ComputeInstance(name="b", size="Standard_DS3_v2", **ci_settings)
opts = load()
c = ComputeInstance(name="c", size="Standard_DS3_v2", **opts)
params = {"vm_size": "Standard_NC6", "min_nodes": 2, "vnet_name": "v", "subnet_name": "s", "enable_node_public_ip": False}
cfg = V1.provisioning_configuration(**params)
ComputeTarget.create(ws, "d", cfg)
ComputeTarget.create(ws, "e", V1.provisioning_configuration(vm_size="Standard_D2_v3", **opts))
"#;
        let d = defs(t);
        assert_eq!(d.len(), 5);
        let value = |i: usize, p: &str| d[i].get(p).and_then(|s| s.value.clone());
        assert_eq!(value(0, "enable_node_public_ip"), Some(Scalar::Bool(false)));
        assert_eq!(
            value(0, "network_settings.subnet"),
            Some(Scalar::Str("training".into()))
        );
        let ip = d[0].get("enable_node_public_ip").unwrap();
        assert_eq!(&t[ip.span.range()], "**private", "where the definition uses it");
        assert_eq!(&t[ip.origin.unwrap().range()], "False");
        assert!(d[0].get("min_instances").is_none(), "the dict does not set it");
        assert_eq!(
            value(1, "idle_time_before_shutdown_minutes"),
            Some(Scalar::Int(30))
        );
        assert!(d[1].notes.iter().all(|n| !n.contains("`**`")), "{:?}", d[1].notes);
        // Not known: what `**opts` may set; the size written in the call stays.
        assert_eq!(d[2].size(), Some("Standard_DS3_v2"));
        for p in [
            "enable_node_public_ip",
            "network_settings.subnet",
            "idle_time_before_shutdown_minutes",
            "idle_time_before_shutdown",
            "schedules",
        ] {
            let s = d[2].get(p).unwrap_or_else(|| panic!("{p}"));
            assert_eq!(s.value, None);
            assert_eq!(s.written, "**opts");
            let why = s.why.as_deref().unwrap();
            assert!(why.starts_with("`**opts` may set it: "), "{why}");
        }
        assert!(
            d[2].get("min_instances").is_none(),
            "not a keyword of ComputeInstance"
        );
        assert!(d[2].notes.iter().any(|n| n.contains("passed with `**`")));
        // SDK v1: the dict through the configuration's variable.
        assert_eq!(d[3].size(), Some("Standard_NC6"));
        assert_eq!(value(3, "min_instances"), Some(Scalar::Int(2)));
        assert_eq!(value(3, "enable_node_public_ip"), Some(Scalar::Bool(false)));
        let size = d[3].get("size").unwrap();
        assert_eq!(&t[size.span.range()], "cfg");
        assert_eq!(&t[size.origin.unwrap().range()], "Standard_NC6");
        assert_eq!(d[4].size(), Some("Standard_D2_v3"));
        for p in [
            "enable_node_public_ip",
            "network_settings.subnet",
            "min_instances",
        ] {
            let s = d[4].get(p).unwrap_or_else(|| panic!("{p}"));
            assert!(s.value.is_none() && s.why.is_some(), "{p}: {s:?}");
        }
        assert!(d[4].notes.iter().any(|n| n.contains("passed with `**`")));
    }

    /// An SDK v1 configuration assigned in a branch, with another reaching the `create`
    /// call (audit 24, case 07): its settings are not known; its type is when every
    /// configuration is of one class.
    #[test]
    fn a_v1_configuration_assigned_in_branches_is_not_known() {
        let t = r#"from azureml.core.compute import AmlCompute, ComputeTarget
if use_gpu:
    compute_config = AmlCompute.provisioning_configuration(vm_size="Standard_NC6", max_nodes=4)
else:
    compute_config = AmlCompute.provisioning_configuration(vm_size="STANDARD_D2_V2", max_nodes=4)
ComputeTarget.create(ws, "a", compute_config)
cfg = AmlCompute.provisioning_configuration(vm_size="Standard_NC6", max_nodes=4)
if small:
    cfg = AmlCompute.provisioning_configuration(vm_size="STANDARD_D2_V2", max_nodes=2)
ComputeTarget.create(ws, "b", cfg)
if a:
    vm_size = "Standard_NC6"
else:
    vm_size = "STANDARD_D2_V2"
one = AmlCompute.provisioning_configuration(vm_size=vm_size, max_nodes=4)
ComputeTarget.create(ws, "c", one)
"#;
        let d = defs(t);
        assert_eq!(d.len(), 3);
        for c in &d[..2] {
            assert_eq!(c.ctype().as_deref(), Some("amlcompute"));
            for p in ["size", "max_instances", "enable_node_public_ip"] {
                let s = c.get(p).unwrap_or_else(|| panic!("{p}"));
                assert_eq!(s.value, None, "{p}");
                let why = s.why.as_deref().unwrap();
                assert!(why.contains("is assigned in a branch"), "{why}");
            }
            assert!(
                c.notes
                    .iter()
                    .any(|n| n.starts_with("its settings are not known")),
                "{:?}",
                c.notes
            );
        }
        // One configuration, a size assigned in branches: written as `vm_size`.
        let size = d[2].get("size").unwrap();
        assert_eq!((size.value.clone(), size.written.as_str()), (None, "vm_size"));
        assert_eq!(d[2].get("max_instances").unwrap().value, Some(Scalar::Int(4)));
    }

    fn defs(text: &str) -> Vec<ComputeDef> {
        read_named("setup.py", text).computes
    }

    const V2: &str = r#"import os
from azure.ai.ml.entities import AmlCompute, ComputeInstance, NetworkSettings

prefix = "team"
size = "Standard_NC6"
cluster = AmlCompute(
    name=f"{prefix}-gpu",
    size=size,
    min_instances=1,
    max_instances=4,
    tier="low_priority",
    idle_time_before_scale_down=120,
    enable_node_public_ip=False,
    network_settings=NetworkSettings(subnet="/subscriptions/0/subnets/ml"),
)
ci_name = os.environ.get("CI_NAME", "dev-box")
ci = ComputeInstance(name=ci_name, size="Standard_DS3_v2")  # amlint: ignore[AML602]
existing = AmlCompute(ws, "old-cluster")
"#;

    #[test]
    fn v2_constructors_are_definitions_with_their_values_and_spans() {
        let d = defs(V2);
        assert_eq!(d.len(), 2, "AmlCompute(ws, name) is a lookup");
        let c = &d[0];
        assert_eq!(c.source, SourceKind::PythonSdk);
        assert_eq!(c.known_name(), Some("team-gpu"));
        assert_eq!(&V2[c.name.span.range()], "{prefix}-gpu");
        assert_eq!(&V2[c.name.key.unwrap().range()], "name");
        assert_eq!(c.ctype().as_deref(), Some("amlcompute"));
        let size = c.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&V2[size.span.range()], "size");
        assert_eq!(&V2[size.origin.unwrap().range()], "Standard_NC6");
        let min = c.get("min_instances").unwrap();
        assert!(min.in_place && &V2[min.span.range()] == "1");
        assert_eq!(
            c.get("tier").unwrap().value,
            Some(Scalar::Str("low_priority".into()))
        );
        assert!(c.get("tier").unwrap().in_place);
        assert_eq!(
            c.get("enable_node_public_ip").unwrap().value,
            Some(Scalar::Bool(false))
        );
        assert_eq!(
            c.get("network_settings.subnet").unwrap().value,
            Some(Scalar::Str("/subscriptions/0/subnets/ml".into()))
        );
        assert!(V2[c.span.range()].starts_with("AmlCompute("));
        let ci = &d[1];
        assert_eq!(ci.known_name(), Some("dev-box"));
        assert_eq!(ci.ctype().as_deref(), Some("computeinstance"));
        assert!(
            ci.notes
                .iter()
                .any(|n| n.contains("environment variable `CI_NAME`")),
            "{:?}",
            ci.notes
        );
    }

    #[test]
    fn v1_provisioning_configurations_are_read_through_their_variable() {
        let t = r#"from azureml.core.compute import AmlCompute, ComputeTarget
cluster_name = "cpu-cluster"
try:
    cluster = ComputeTarget(workspace=ws, name=cluster_name)
except Exception:
    compute_config = AmlCompute.provisioning_configuration(vm_size='STANDARD_NC6',
                                                           vm_priority='lowpriority',
                                                           min_nodes=1,
                                                           max_nodes=4)
    cluster = ComputeTarget.create(ws, cluster_name, compute_config)
inline = ComputeTarget.create(workspace=ws, name="inline", provisioning_configuration=AmlCompute.provisioning_configuration(vm_size="Standard_D2_v3"))
"#;
        let d = defs(t);
        assert_eq!(d.len(), 2);
        let c = &d[0];
        assert_eq!(c.known_name(), Some("cpu-cluster"));
        assert_eq!(&t[c.name.span.range()], "cluster_name");
        assert_eq!(c.ctype().as_deref(), Some("amlcompute"));
        let size = c.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("STANDARD_NC6".into())));
        assert_eq!(
            &t[size.span.range()],
            "compute_config",
            "where the definition uses it"
        );
        assert_eq!(&t[size.origin.unwrap().range()], "STANDARD_NC6");
        // Every setting keeps its own literal (findings about it are labelled there).
        let min = c.get("min_instances").unwrap();
        assert_eq!((min.value.clone(), min.in_place), (Some(Scalar::Int(1)), false));
        assert_eq!(&t[min.origin.unwrap().range()], "1");
        assert_eq!(&t[min.span.range()], "compute_config");
        assert_eq!(
            c.get("tier").unwrap().value,
            Some(Scalar::Str("low_priority".into()))
        );
        assert!(c.notes.iter().any(|n| n.contains("on line 6")), "{:?}", c.notes);
        assert!(t[c.span.range()].starts_with("ComputeTarget.create("));
        // The statement that assigns the configuration is written before the definition:
        // a suppression beside its values applies to it.
        let [before] = c.written_before.as_slice() else {
            panic!("{:?}", c.written_before)
        };
        assert!(t[before.range()].starts_with("compute_config = AmlCompute."));
        assert!(t[before.range()].ends_with("max_nodes=4)"));
        let i = &d[1];
        assert_eq!(i.known_name(), Some("inline"));
        let size = i.get("size").unwrap();
        assert!(size.in_place && &t[size.span.range()] == "Standard_D2_v3");
        assert!(i.written_before.is_empty(), "inline: its values are in place");
    }

    #[test]
    fn v1_enable_node_public_ip_is_read_with_a_virtual_network_only() {
        let t = r#"import os
from azureml.core.compute import AmlCompute, ComputeTarget
private = AmlCompute.provisioning_configuration(vm_size="STANDARD_DS3_V2", max_nodes=4,
    vnet_resourcegroup_name="rg", vnet_name="vnet", subnet_name="s", enable_node_public_ip=False)
ComputeTarget.create(ws, "private", private)
ComputeTarget.create(ws, "public", AmlCompute.provisioning_configuration(max_nodes=4, enable_node_public_ip=False))
vnet = os.environ["VNET"]
ComputeTarget.create(ws, "maybe", AmlCompute.provisioning_configuration(max_nodes=4, vnet_name=vnet, subnet_name="s", enable_node_public_ip=False))
"#;
        let d = defs(t);
        let ip = |i: usize| d[i].get("enable_node_public_ip");
        let private = ip(0).unwrap();
        assert_eq!(private.value, Some(Scalar::Bool(false)));
        assert_eq!(
            &t[private.span.range()],
            "private",
            "where the definition uses it"
        );
        // Without a virtual network azureml-core drops the flag: the service's default.
        assert!(ip(1).is_none(), "{:?}", ip(1));
        assert!(
            d[1].notes
                .iter()
                .any(|n| n.contains("no effect without `vnet_name`"))
        );
        let maybe = ip(2).unwrap();
        assert_eq!(maybe.value, None);
        assert_eq!(&t[maybe.span.range()], "False");
        let why = maybe.why.as_deref().unwrap();
        assert!(
            why.contains("only with a virtual network") && why.contains("VNET"),
            "{why}"
        );
    }

    #[test]
    fn names_from_defaults_parameters_and_expressions() {
        let t = r#"import os
def make(ml_client, name="param-default", size=None):
    return AmlCompute(name=name, size=size or "Standard_DS3_v2")

def helper(ml_client, compute_name):
    return AmlCompute(name=compute_name, size="Standard_DS3_v2")

base = os.getenv("BASE") or "fallback"
c1 = AmlCompute(name=base + "-" + str(2), size="Standard_DS3_v2")
arg = args.compute if args.compute else "from-args"
c2 = AmlCompute(name=arg)
c3 = AmlCompute(name=os.environ["NAME"])
for n in ["a", "b"]:
    _ = AmlCompute(name=n)
c5 = AmlCompute(name="{}-{}".format("x", 1).upper())
"#;
        let d = defs(t);
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            vec![
                Some("param-default"),
                None,
                Some("fallback-2"),
                Some("from-args"),
                None,
                None,
                Some("X-1")
            ]
        );
        assert_eq!(d[0].size(), Some("Standard_DS3_v2"));
        assert!(
            d[0].notes.iter().any(|n| n.contains("default of `make()`")),
            "{:?}",
            d[0].notes
        );
        assert!(
            d[1].name
                .why
                .as_deref()
                .unwrap()
                .contains("parameter of `helper()`")
        );
        assert!(d[2].notes.iter().any(|n| n.contains("the default")));
        assert!(d[4].name.why.as_deref().unwrap().contains("environment"));
        assert!(d[5].name.why.as_deref().unwrap().contains("loop variable"));
    }

    #[test]
    fn a_notebook_is_its_code_cells_with_the_files_own_spans() {
        let nb = r##"{
 "cells": [
  {"cell_type": "markdown", "source": ["AmlCompute(name=\"not-code\")"]},
  {"cell_type": "code", "source": [
    "!pip install azure-ai-ml \\\n",
    "    --upgrade\n",
    "%matplotlib inline\n",
    "name = \"nb-gpu\"\n"
  ]},
  {"cell_type": "code", "source": "%%bash\naz ml compute create --name x\n"},
  {"cell_type": "code", "source": [
    "# amlint: ignore[AML601]\n",
    "c = AmlCompute(name=name, size=\"Standard_NC6\", min_instances=1, description=\"a \\\"quoted\\\" \\u00e9t\u00e9\")\n"
  ]}
 ],
 "metadata": {"kernelspec": {"language": "python"}}
}"##;
        let out = read_named("setup.ipynb", nb);
        assert_eq!(out.computes.len(), 1);
        let d = &out.computes[0];
        assert_eq!(d.known_name(), Some("nb-gpu"));
        assert_eq!(&nb[d.name.span.range()], "name");
        assert_eq!(&nb[d.name.origin.unwrap().range()], "nb-gpu");
        let size = d.get("size").unwrap();
        assert_eq!(&nb[size.span.range()], "Standard_NC6");
        assert!(size.in_place);
        let line = |off: u32| nb[..off as usize].lines().count();
        assert_eq!(
            line(d.span.start),
            13,
            "the definition's line is the notebook file's"
        );
        assert!(nb[d.span.range()].starts_with("AmlCompute(name=name"));
        let c: Vec<(&str, Option<u32>)> = out
            .comments
            .iter()
            .map(|c| (&nb[c.span.range()], c.target_line))
            .collect();
        assert_eq!(c, vec![("# amlint: ignore[AML601]", Some(13))]);
    }

    #[test]
    fn other_languages_and_unaffordable_files_are_not_read() {
        let r = r#"{"cells": [{"cell_type": "code", "source": "AmlCompute(name='x')"}], "metadata": {"kernelspec": {"language": "R"}}}"#;
        assert!(read_named("r.ipynb", r).computes.is_empty());
        let big = format!("AmlCompute(name='x')\nx = [{}]\n", "a,".repeat(MAX_TOKENS));
        assert!(defs(&big).is_empty());
    }

    #[test]
    fn hostile_input_stays_bounded_on_a_small_stack() {
        let mut t = String::from("x0 = 'gpu'\n");
        for i in 1..5_000 {
            t.push_str(&format!("x{i} = x{}\n", i - 1));
        }
        t.push_str(&format!(
            "c = AmlCompute(name=x4999, size={}'a'{})\n",
            "(".repeat(10_000),
            ")".repeat(10_000)
        ));
        t.push_str(&format!("d = AmlCompute(name={}'y')\n", "'a' + ".repeat(10_000)));
        let d = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || defs(&t))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(d.len(), 2);
        assert!(d[0].name.why.as_deref().unwrap().contains("too deeply"));
        assert!(d[1].name.why.as_deref().unwrap().contains("too deeply"));
    }

    /// `schedules=ComputeSchedules(compute_start_stop=[ComputeStartStopSchedule(...)])`,
    /// in place or through names, as YAML's `schedules.compute_start_stop`; the SDK's enums
    /// as their values; what is not read is unknown, with why.
    #[test]
    fn v2_start_stop_schedules_are_read_as_yamls() {
        let text = r#"from azure.ai.ml.entities import ComputeInstance, ComputeSchedules, ComputeStartStopSchedule, ComputePowerAction, ScheduleState

stop = ComputeStartStopSchedule(action="stop", state="enabled")
stops = [ComputeStartStopSchedule(action=ComputePowerAction.START), stop]
a = ComputeInstance(name="a", schedules=ComputeSchedules(compute_start_stop=stops))
b = ComputeInstance(name="b", schedules=ComputeSchedules(compute_start_stop=[ComputeStartStopSchedule(action="stop", state=ScheduleState.DISABLED)]))


def make(state, schedules):
    c = ComputeInstance(name="c", schedules=ComputeSchedules(compute_start_stop=[ComputeStartStopSchedule(action="stop", state=state)]))
    d = ComputeInstance(name="d", schedules=schedules)
    e = ComputeInstance(name="e", schedules=load_schedules())
"#;
        let d = defs(text);
        let of = |i: usize| iac::schedules_for_test(&d[i], text);
        assert_eq!(
            of(0),
            [
                "schedules.compute_start_stop.0.action = Start at `ComputePowerAction.START`",
                "schedules.compute_start_stop.1.action = stop at `stop`",
                "schedules.compute_start_stop.1.state = enabled at `enabled`",
            ]
        );
        assert_eq!(
            of(1),
            [
                "schedules.compute_start_stop.0.action = stop at `stop`",
                "schedules.compute_start_stop.0.state = Disabled at `ScheduleState.DISABLED`",
            ]
        );
        assert_eq!(
            of(2)[1],
            "schedules.compute_start_stop.0.state ? `state` is a parameter of `make()`, set by its callers"
        );
        assert_eq!(
            of(3),
            ["schedules ? `schedules` is a parameter of `make()`, set by its callers"]
        );
        assert_eq!(
            of(4),
            ["schedules ? `load_schedules()` is not a `ComputeSchedules(...)` call"]
        );
    }
}
