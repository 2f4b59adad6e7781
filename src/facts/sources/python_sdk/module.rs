//! The Python module a file is: its assignments, functions, calls and imports (read with
//! tree-sitter), the definitions its calls make, and the evaluation of their values (see
//! the folder's `python_sdk.rs` for what is read).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use tree_sitter::Node as TsNode;

use super::super::common::{Files, type_setting};
use super::super::iac::{self, Ev, Part, V};
use super::super::ipynb::Code;
use crate::facts::computes::{ComputeDef, RefusedKeyword, Scalar, Setting, SourceKind};
use crate::source::Span;

/// The words the reader looks for: those of a file that may define a compute itself
/// ([`CLASS_NEEDLES`]), and `import` (a file that calls a helper of another file).
pub(super) const NEEDLES: &[&str] = &[
    "AmlCompute",
    "ComputeInstance",
    "KubernetesCompute",
    "VirtualMachineCompute",
    "SynapseSparkCompute",
    "provisioning_configuration",
    "ComputeTarget.create",
    "attach_configuration",
    "load_compute",
    "import",
];

/// The words of a file that may define a compute itself: all of [`NEEDLES`] but `import`.
pub(super) const CLASS_NEEDLES: &[&str] = NEEDLES.split_at(NEEDLES.len() - 1).0;

/// Tokens (punctuation and words) a module may have before tree-sitter parses it.
pub(super) const MAX_TOKENS: usize = 250_000;
/// How deep evaluation goes (nested expressions, names assigned from names).
pub(super) const MAX_DEPTH: usize = 24;
/// The most `return` statements of a function whose value is read ([`Module::returned`]).
const MAX_RETURNS: usize = 8;

/// The items of a list, tuple or dict literal evaluated (a longer one is not known): a
/// literal is evaluated each time a name that holds it is used in another expression.
const MAX_LITERAL_ITEMS: usize = 256;

/// The names of an imported module of the project evaluated (its top level's first ones).
const MAX_MODULE_NAMES: usize = 1024;

/// How many of the project's other modules one file's instances of their classes are
/// read from ([`Module::imported_class`]).
const MAX_CLASS_MODULES: usize = 8;
/// How many classes of one module are read for instances made elsewhere.
const MAX_CLASSES: usize = 64;

/// The most attributes set on an SDK v1 configuration between its assignment and its use
/// that are read (`config.vnet_name = ...`); with more, the configuration is not read.
const MAX_ATTR_SETS: usize = 64;

/// The v2 compute classes and their types.
pub(super) const V2_CLASSES: &[(&str, &str)] = &[
    ("AmlCompute", "amlcompute"),
    ("ComputeInstance", "computeinstance"),
    ("KubernetesCompute", "kubernetes"),
    ("VirtualMachineCompute", "virtualmachine"),
    ("SynapseSparkCompute", "synapsespark"),
];

/// The v1 classes whose `provisioning_configuration` makes a compute, and their types.
pub(super) const V1_CLASSES: &[(&str, &str)] = &[
    ("AmlCompute", "amlcompute"),
    ("ComputeInstance", "computeinstance"),
    ("AksCompute", "aks"),
];

/// The v1 classes whose `attach_configuration` attaches a compute, and their types.
pub(super) const V1_ATTACH_CLASSES: &[(&str, &str)] = &[
    ("KubernetesCompute", "kubernetes"),
    ("AksCompute", "aks"),
    ("RemoteCompute", "virtualmachine"),
    ("SynapseCompute", "synapsespark"),
    // The REST API's `computeType`s of these (`Databricks`, `HDInsight`,
    // `DataLakeAnalytics`, `DataFactory`), as ARM writes them (eval8, case 05).
    ("DatabricksCompute", "databricks"),
    ("HDInsightCompute", "hdinsight"),
    ("AdlaCompute", "datalakeanalytics"),
    ("DataFactoryCompute", "datafactory"),
];

/// What an SDK v1 call of a compute class does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum V1Call {
    /// `ComputeTarget.create(ws, name, provisioning_configuration)`, also through a class
    /// that inherits it (`ComputeInstance.create(...)`).
    Create,
    /// `ComputeTarget.attach(ws, name, attach_configuration)` (`KubernetesCompute.attach`).
    Attach,
}

/// The keyword arguments of a v2 class read as settings: argument, YAML path, kind.
pub(super) const V2_FIELDS: &[(&str, &str, iac::As)] = &[
    ("size", "size", iac::As::Text),
    ("min_instances", "min_instances", iac::As::Count),
    ("max_instances", "max_instances", iac::As::Count),
    ("tier", "tier", iac::As::Tier),
    (
        "idle_time_before_scale_down",
        "idle_time_before_scale_down",
        iac::As::Count,
    ),
    ("enable_node_public_ip", "enable_node_public_ip", iac::As::Bool),
    (
        "ssh_public_access_enabled",
        "ssh_public_access_enabled",
        iac::As::Bool,
    ),
    ("location", "location", iac::As::Text),
    (
        "idle_time_before_shutdown_minutes",
        "idle_time_before_shutdown_minutes",
        iac::As::Count,
    ),
    (
        "idle_time_before_shutdown",
        "idle_time_before_shutdown",
        iac::As::Text,
    ),
];

/// The members of the SDK's enums a compute schedule's `action=` and `state=` take
/// (`azure.ai.ml.entities`; `ScheduleState` is the REST client's `ScheduleStatus`): class,
/// member, value.
pub(super) const SCHEDULE_ENUMS: &[(&str, &str, &str)] = &[
    ("ComputePowerAction", "START", "Start"),
    ("ComputePowerAction", "STOP", "Stop"),
    ("ScheduleState", "ENABLED", "Enabled"),
    ("ScheduleState", "DISABLED", "Disabled"),
    ("ScheduleStatus", "ENABLED", "Enabled"),
    ("ScheduleStatus", "DISABLED", "Disabled"),
];

/// The keyword arguments of `provisioning_configuration` read as settings: argument,
/// YAML path, kind.
pub(super) const V1_FIELDS: &[(&str, &str, iac::As)] = &[
    ("vm_size", "size", iac::As::Text),
    ("agent_vm_size", "size", iac::As::Text),
    ("min_nodes", "min_instances", iac::As::Count),
    ("max_nodes", "max_instances", iac::As::Count),
    ("vm_priority", "tier", iac::As::Tier),
    (
        "idle_seconds_before_scaledown",
        "idle_time_before_scale_down",
        iac::As::Count,
    ),
    (
        "remote_login_port_public_access",
        "ssh_public_access_enabled",
        iac::As::Enabled,
    ),
    ("ssh_public_access", "ssh_public_access_enabled", iac::As::Bool),
    ("location", "location", iac::As::Text),
    ("subnet_name", "network_settings.subnet", iac::As::Text),
    ("vnet_name", "network_settings.vnet_name", iac::As::Text),
    // `AksCompute.provisioning_configuration`'s node count and purpose.
    ("agent_count", "agent_count", iac::As::Count),
    ("cluster_purpose", "cluster_purpose", iac::As::Text),
    // Sent only with a virtual network (`vnet_public_ip` below).
    ("enable_node_public_ip", "enable_node_public_ip", iac::As::Bool),
];

/// The attributes of SDK v1's `AmlComputeProvisioningConfiguration`,
/// `ComputeInstanceProvisioningConfiguration` and `AksProvisioningConfiguration` (their
/// `provisioning_configuration` keywords) not in [`V1_FIELDS`]: set on a configuration
/// (`config.vnet_resourcegroup_name = "rg"`), they change nothing amlint reads.
const V1_OTHER_ATTRIBUTES: &[&str] = &[
    "vnet_resourcegroup_name",
    "admin_username",
    "admin_user_password",
    "admin_user_ssh_key",
    "admin_user_ssh_public_key",
    "tags",
    "description",
    "identity_type",
    "identity_id",
    "assigned_user_object_id",
    "assigned_user_tenant_id",
    "ssl_cname",
    "ssl_cert_pem_file",
    "ssl_key_pem_file",
    "service_cidr",
    "dns_service_ip",
    "docker_bridge_cidr",
    "load_balancer_type",
    "load_balancer_subnet",
];

/// Whether the size `s` an SDK v1 `provisioning_configuration` is given is `""`: the SDK's
/// own default for `vm_size` (`AmlCompute.provisioning_configuration(vm_size='', ...)`),
/// which means the size is not given and the SDK's default applies (audit 26, case 02).
/// It is no size to judge: the definition has none, and the note says so.
pub(super) fn empty_size(s: &Setting, kwname: &str, notes: &mut Vec<String>) -> bool {
    let empty = s
        .value
        .as_ref()
        .and_then(Scalar::as_str)
        .is_some_and(str::is_empty);
    if empty {
        notes.push(format!(
            "`{kwname}` is `\"\"`, the SDK's \"not given\": the size is the SDK's default"
        ));
    }
    empty
}

/// The keywords of [`V2_FIELDS`] (and `network_settings`, `schedules`) a v2 class takes, by
/// its type: what a `**` argument not read may set.
fn v2_takes(ctype: &str, kw: &str) -> bool {
    match ctype {
        "amlcompute" => matches!(
            kw,
            "size"
                | "min_instances"
                | "max_instances"
                | "tier"
                | "idle_time_before_scale_down"
                | "enable_node_public_ip"
                | "ssh_public_access_enabled"
                | "location"
                | "network_settings"
        ),
        "computeinstance" => matches!(
            kw,
            "size"
                | "enable_node_public_ip"
                | "ssh_public_access_enabled"
                | "location"
                | "idle_time_before_shutdown_minutes"
                | "idle_time_before_shutdown"
                | "network_settings"
                | "schedules"
        ),
        _ => kw == "location",
    }
}

/// The keywords of [`V1_FIELDS`] a v1 class's `provisioning_configuration` takes: what a
/// `**` argument not read, or a configuration chosen at run time, may set.
fn v1_takes(class: &str, kw: &str) -> bool {
    match class {
        "AmlCompute" => matches!(
            kw,
            "vm_size"
                | "vm_priority"
                | "min_nodes"
                | "max_nodes"
                | "idle_seconds_before_scaledown"
                | "remote_login_port_public_access"
                | "location"
                | "subnet_name"
                | "vnet_name"
                | "enable_node_public_ip"
        ),
        "ComputeInstance" => matches!(kw, "vm_size" | "ssh_public_access" | "subnet_name" | "vnet_name"),
        "AksCompute" => matches!(
            kw,
            "vm_size" | "agent_count" | "cluster_purpose" | "location" | "subnet_name" | "vnet_name"
        ),
        _ => false,
    }
}

/// Whether SDK v1's `<class>.provisioning_configuration` accepts the keyword `kw` of
/// [`V1_FIELDS`]: `AmlCompute`'s and `ComputeInstance`'s whole signatures are known
/// (azureml-core 1.61, no `**kwargs`), and any other keyword raises `TypeError` — it is
/// no setting of the compute (audit 28, case 02: `ComputeInstance`'s has no
/// `enable_node_public_ip`). Another class's keywords are all read.
pub(super) fn v1_accepts(class: &str, kw: &str) -> bool {
    match class {
        "AmlCompute" | "ComputeInstance" => v1_takes(class, kw),
        _ => true,
    }
}

/// The keyword arguments every v2 compute class's constructor takes through its base
/// classes: `Compute`'s (`location`, `resource_id`, `type`, ...) and `Resource`'s (`name`,
/// `description`, `tags`, `properties`, ...), which read them from `**kwargs` before
/// passing the rest on to `object.__init__` — which raises `TypeError` for any left.
const V2_BASE: &[&str] = &[
    "name",
    "description",
    "tags",
    "location",
    "resource_id",
    "type",
    "created_on",
    "provisioning_state",
    "provisioning_errors",
    "properties",
    "id",
    "source_path",
    "base_path",
    "creation_context",
    "print_as_yaml",
];

/// Each v2 compute class's own keyword arguments (besides [`V2_BASE`]), by its type.
/// azure-ai-ml 1.35.2, each keyword confirmed by constructing the class with it; the
/// signatures of 1.0.0 and 1.5.0 are subsets.
const V2_SIGNATURES: &[(&str, &[&str])] = &[
    (
        "amlcompute",
        &[
            "size",
            "ssh_public_access_enabled",
            "ssh_settings",
            "min_instances",
            "max_instances",
            "network_settings",
            "idle_time_before_scale_down",
            "identity",
            "tier",
            "enable_node_public_ip",
        ],
    ),
    (
        "computeinstance",
        &[
            "size",
            "ssh_public_access_enabled",
            "create_on_behalf_of",
            "network_settings",
            "ssh_settings",
            "schedules",
            "identity",
            "idle_time_before_shutdown",
            "idle_time_before_shutdown_minutes",
            "setup_scripts",
            "enable_node_public_ip",
            "custom_applications",
            "enable_sso",
            "enable_root_access",
            "release_quota_on_stop",
            "enable_os_patching",
            "os_image_metadata",
            "last_operation",
            "services",
            "state",
        ],
    ),
    ("kubernetes", &["namespace", "identity"]),
    ("virtualmachine", &["ssh_settings", "public_key_data"]),
    (
        "synapsespark",
        &[
            "node_count",
            "node_family",
            "node_size",
            "spark_version",
            "identity",
            "scale_settings",
            "auto_pause_settings",
        ],
    ),
];

/// The whole signatures of SDK v1's `<class>.provisioning_configuration` (azureml-core
/// 1.61.0, no `**kwargs`; those of 1.1.5 and 1.35.0 are subsets).
const V1_SIGNATURES: &[(&str, &[&str])] = &[
    (
        "AmlCompute",
        &[
            "vm_size",
            "vm_priority",
            "min_nodes",
            "max_nodes",
            "idle_seconds_before_scaledown",
            "admin_username",
            "admin_user_password",
            "admin_user_ssh_key",
            "vnet_resourcegroup_name",
            "vnet_name",
            "subnet_name",
            "tags",
            "description",
            "remote_login_port_public_access",
            "identity_type",
            "identity_id",
            "location",
            "enable_node_public_ip",
        ],
    ),
    (
        "ComputeInstance",
        &[
            "vm_size",
            "ssh_public_access",
            "admin_user_ssh_public_key",
            "vnet_resourcegroup_name",
            "vnet_name",
            "subnet_name",
            "tags",
            "description",
            "assigned_user_object_id",
            "assigned_user_tenant_id",
        ],
    ),
];

/// One setting's keyword in SDK v1's `provisioning_configuration` and in the v2 class:
/// what a keyword of the other SDK stands for.
const COUNTERPARTS: &[(&str, &str)] = &[
    ("vm_size", "size"),
    ("min_nodes", "min_instances"),
    ("max_nodes", "max_instances"),
    ("vm_priority", "tier"),
    ("idle_seconds_before_scaledown", "idle_time_before_scale_down"),
    ("remote_login_port_public_access", "ssh_public_access_enabled"),
    ("ssh_public_access", "ssh_public_access_enabled"),
    ("vnet_name", "network_settings"),
    ("subnet_name", "network_settings"),
    ("admin_user_ssh_public_key", "ssh_settings"),
    ("admin_user_ssh_key", "ssh_settings"),
];

/// The keywords a call takes: a v2 class's (by its type), or SDK v1's
/// `<class>.provisioning_configuration` (by its class).
#[derive(Clone, Copy)]
pub(super) struct Signature {
    own: &'static [&'static str],
    base: &'static [&'static str],
}

impl Signature {
    /// The signature of a v2 class (`v1` false) or of SDK v1's configuration; `None` when
    /// the whole signature is not known.
    pub(super) fn of(v1: bool, of: &str) -> Option<Self> {
        let (table, base) = if v1 {
            (V1_SIGNATURES, &[][..])
        } else {
            (V2_SIGNATURES, V2_BASE)
        };
        table
            .iter()
            .find(|(k, _)| *k == of)
            .map(|(_, own)| Signature { own, base })
    }

    pub(super) fn takes(&self, kw: &str) -> bool {
        self.keywords().any(|k| k == kw)
    }

    fn keywords(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.own.iter().chain(self.base).copied()
    }

    /// What the keyword `kw`, which the call does not take, stands for: the other SDK's
    /// name of the same setting (`vm_size` in a v2 class is `size`), else the closest
    /// keyword.
    pub(super) fn meant(&self, kw: &str, v1: bool) -> Option<String> {
        COUNTERPARTS
            .iter()
            .filter_map(|&(old, new)| match v1 {
                true if kw == new => Some(old),
                false if kw == old => Some(new),
                _ => None,
            })
            .find(|k| self.takes(k))
            .or_else(|| crate::suggest::closest(kw, self.keywords().collect::<Vec<_>>().iter().copied()))
            .map(str::to_string)
    }
}

/// Whether the value of the expression `node` is thrown away: it is a whole expression
/// statement (in parentheses or not; a notebook's "display this" line), not assigned,
/// passed, returned or yielded. A v2 constructor there builds an object nobody can create
/// (`begin_create_or_update` never sees it): no definition (audit 28, case 06).
pub(super) fn discarded(node: TsNode<'_>) -> bool {
    let mut n = node;
    while let Some(p) = n.parent() {
        match p.kind() {
            "parenthesized_expression" => n = p,
            "expression_statement" => return true,
            _ => return false,
        }
    }
    false
}

/// A keyword argument: its keyword, the key's node, the value's node.
pub(super) type Kw<'t> = (&'t str, TsNode<'t>, TsNode<'t>);

/// A call's keyword arguments with what its `**` arguments pass ([`Module::spread`]).
pub(super) struct Spread<'t> {
    /// Those written in the call first, then the entries of the dicts `**` passes.
    pub(super) kw: Vec<Kw<'t>>,
    /// The first `*`/`**` argument whose value is not known, and why it may set a keyword.
    pub(super) unknown: Option<(TsNode<'t>, String)>,
    /// Each dict read, with its `**` argument.
    pub(super) dicts: Vec<(TsNode<'t>, TsNode<'t>)>,
}

/// azureml-core sends `enable_node_public_ip` only with a virtual network (`vnet_name`):
/// without one the flag is dropped (the service's default, public IPs, applies); with one
/// not known statically, whether it applies is not known either.
fn vnet_public_ip(def: &mut ComputeDef) {
    let Some(ip) = def.get("enable_node_public_ip") else {
        return;
    };
    let vnet = def.get("network_settings.vnet_name");
    match vnet.map(|v| (&v.value, &v.why)) {
        Some((Some(Scalar::Str(v)), _)) if !v.is_empty() => {}
        Some((None, Some(why))) => {
            let why = format!("azureml-core sends it only with a virtual network, and `vnet_name`: {why}");
            let s = Setting::dynamic(ip.written.clone(), why, ip.span, ip.key);
            def.set("enable_node_public_ip", s);
        }
        _ => {
            def.fields.retain(|(p, _)| p != "enable_node_public_ip");
            def.notes.push(
                "`enable_node_public_ip` has no effect without `vnet_name`: azureml-core drops it".into(),
            );
        }
    }
}

/// SDK v1's `AksCompute.ClusterPurpose.FAST_PROD` / `.DEV_TEST` (an attribute of the class
/// `ClusterPurpose`, however it is reached) as the value it stands for.
fn cluster_purpose_constant(attribute: &str) -> Option<&'static str> {
    let compact: String = attribute.chars().filter(|c| !c.is_whitespace()).collect();
    let (owner, member) = compact.rsplit_once('.')?;
    if owner != "ClusterPurpose" && !owner.ends_with(".ClusterPurpose") {
        return None;
    }
    match member {
        "FAST_PROD" => Some("FastProd"),
        "DEV_TEST" => Some("DevTest"),
        _ => None,
    }
}

/// `code` parsed by tree-sitter's Python grammar (`None` when the grammar fails to load).
pub(super) fn parse(code: &Code) -> Option<tree_sitter::Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    parser.parse(&code.text, None)
}

/// Whether tree-sitter may parse `text` within the memory the scan allows; if not, why
/// (as a clause).
pub(super) fn affordable(text: &str) -> Result<(), String> {
    let mut tokens = 0usize;
    let mut word = false;
    for &c in text.as_bytes() {
        let w = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        // A word's first byte, a punctuation byte, a newline: one token each.
        let starts_word = w && !word;
        let punct = !w && (!c.is_ascii_whitespace() || c == b'\n');
        if starts_word || punct {
            tokens += 1;
        }
        word = w;
        if tokens > MAX_TOKENS {
            return Err(format!(
                "its Python has more than {MAX_TOKENS} tokens, the most the Python SDK reader parses"
            ));
        }
    }
    Ok(())
}

/// Blanks (with spaces: offsets stay) what is not Python in the cell starting at `from`:
/// a cell magic's whole cell when it runs another language (`%%bash`, `%%writefile`...),
/// else its first line; line magics and shell escapes (`%pip`, `!az …`, with their `\`
/// continuation lines); a `?` help line.
pub(super) fn blank_magics(text: &mut String, from: usize, to: usize) {
    const OTHER_LANGUAGES: &[&str] = &[
        "%%bash",
        "%%sh",
        "%%script",
        "%%writefile",
        "%%html",
        "%%javascript",
        "%%js",
        "%%latex",
        "%%markdown",
        "%%perl",
        "%%ruby",
        "%%sql",
        "%%svg",
        "%%file",
        "%%powershell",
        "%%cmd",
    ];
    let cell = &text[from..to];
    let first = cell.trim_start();
    let other_language = OTHER_LANGUAGES.iter().any(|m| {
        first
            .strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    });
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    if other_language {
        ranges.push((from, to));
    } else {
        let mut pos = from;
        let mut continued = false;
        for line in cell.split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            let t = body.trim_start();
            // `!cmd`, `%magic`, `%%magic` (its first line), `obj?` help.
            let magic = t.starts_with('!')
                || t.starts_with('%')
                || t.starts_with('?')
                || (t.ends_with('?') && !t.contains(char::is_whitespace));
            if magic || continued {
                ranges.push((pos, pos + body.len()));
                continued = body.ends_with('\\');
            }
            pos += line.len();
        }
    }
    // Each byte becomes a space: offsets stay (a multi-byte character becomes several).
    let mut bytes = std::mem::take(text).into_bytes();
    for (a, z) in ranges {
        for b in &mut bytes[a..z] {
            *b = b' ';
        }
    }
    *text = String::from_utf8(bytes).unwrap_or_default();
}

// ---------------------------------------------------------------------------------------
// The module: assignments, functions, calls

/// An assignment of a name, or something else that binds it (a loop, an import).
pub(super) struct Binding<'t> {
    /// Where it takes effect (the statement's start).
    pub(super) pos: usize,
    /// The function it is in (`None`: the module).
    pub(super) scope: Option<usize>,
    pub(super) value: Bound<'t>,
}

pub(super) enum Bound<'t> {
    Expr(TsNode<'t>),
    /// Bound by something that is not an expression amlint evaluates, and why.
    Other(String),
}

/// `name.attr = value` in straight text: an attribute set on the object `name` holds (its
/// binding, [`Bound::Other`], at `pos` says `name` is changed). An SDK v1 configuration
/// reads it as the setting of that name (`config.vnet_name = "vnet"`).
pub(super) struct AttrSet<'t> {
    pub(super) name: &'t str,
    pub(super) pos: usize,
    pub(super) scope: Option<usize>,
    /// `name.attr`, the assignment's left side, and its `attr`.
    pub(super) left: TsNode<'t>,
    pub(super) attr: TsNode<'t>,
    pub(super) value: TsNode<'t>,
    /// The assignment.
    pub(super) stmt: TsNode<'t>,
}

pub(super) struct Func<'t> {
    pub(super) name: String,
    pub(super) start: usize,
    pub(super) end: usize,
    /// Parameters, with their defaults.
    pub(super) params: Vec<(String, Option<TsNode<'t>>)>,
    pub(super) parent: Option<usize>,
    /// The class it is a method of (in the class's body itself), and how it binds.
    pub(super) method: Option<(&'t str, Method)>,
    /// The `function_definition`.
    pub(super) node: TsNode<'t>,
}

/// How a method binds its first parameter: an instance's method (`self`), a
/// `@classmethod` (`cls`), a `@staticmethod` (nothing).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Method {
    Instance,
    Class,
    Static,
}

impl Method {
    /// How many parameters a call on an instance (`obj.m(…)`, `self.m(…)`) or, with
    /// `on_class`, on the class (`C.m(…)`) does not pass: `None` when such a call does
    /// not reach the method as written (an instance's method called on its class takes
    /// the instance as its first argument).
    pub(super) fn bound(self, on_class: bool) -> Option<usize> {
        match (self, on_class) {
            (Method::Static, _) => Some(0),
            (Method::Class, _) | (Method::Instance, false) => Some(1),
            (Method::Instance, true) => None,
        }
    }
}

/// The value the command line `words` gives the option of `flags` (`--size X`,
/// `--size=X`; a `store_true`/`store_false` option by its flag alone), the last one given
/// as argparse takes it: `None` when it does not give it; `Err` when a word it may be is
/// not known (then it may be any option).
fn given_option(
    words: &[Result<String, String>],
    flags: &[String],
    action: Option<&str>,
) -> Option<Result<Ev, String>> {
    let mut found = None;
    let mut i = 0;
    while i < words.len() {
        match &words[i] {
            Err(why) => {
                found = Some(Err(why.clone()));
                i += 1;
            }
            Ok(w) => {
                if flags.iter().any(|f| f == w) {
                    found = Some(match action {
                        Some("store_true") => Ok(Ev::boolean(true)),
                        Some("store_false") => Ok(Ev::boolean(false)),
                        _ => match words.get(i + 1) {
                            Some(Ok(v)) => {
                                i += 1;
                                Ok(Ev::text(v.clone()))
                            }
                            Some(Err(why)) => {
                                i += 1;
                                Err(why.clone())
                            }
                            None => Err(format!("`{w}` is the last word, given no value")),
                        },
                    });
                } else if let Some(v) = flags
                    .iter()
                    .filter(|f| f.starts_with("--"))
                    .find_map(|f| w.strip_prefix(f.as_str()).and_then(|r| r.strip_prefix('=')))
                {
                    found = Some(Ok(Ev::text(v.to_string())));
                } else if w.starts_with('-') && !w.contains('=') && matches!(words.get(i + 1), Some(Err(_))) {
                    // Another option's value, not known: not this option.
                    i += 1;
                }
                i += 1;
            }
        }
    }
    // A word not known that is no flag's value may be this option: not known, unless a
    // later word gives it.
    found
}

pub(super) struct Module<'t> {
    pub(super) code: &'t Code,
    pub(super) src: &'t str,
    pub(super) file: &'t str,
    pub(super) bindings: HashMap<String, Vec<Binding<'t>>>,
    pub(super) funcs: Vec<Func<'t>>,
    pub(super) calls: Vec<TsNode<'t>>,
    pub(super) comments: Vec<TsNode<'t>>,
    /// `import X as Y`, `from m import X as Y`: `Y` → `X`'s last segment.
    pub(super) aliases: HashMap<&'t str, &'t str>,
    /// What the file imports, for calls of helpers in other files: each name bound, the
    /// module as written (`.utils`, `ml_service.util.attach_compute`), and the name taken
    /// from it (`None`: the name is the module itself).
    pub(super) imported: Vec<(String, String, Option<String>)>,
    /// The modules of `from m import *`.
    pub(super) star: Vec<String>,
    /// The project's files and this file's path, for the configuration files it loads
    /// (`yaml.safe_load(open("config.yml"))`); `None`: such files are not read.
    pub(super) load: Option<(&'t Files, &'t Path)>,
    /// What each assignment's value evaluates to (by its node), once.
    pub(super) memo: std::cell::RefCell<HashMap<usize, Ev>>,
    /// The functions whose return value is being evaluated ([`Module::returned`]): a call
    /// of one of them within is recursion, not evaluated.
    pub(super) returning: std::cell::RefCell<Vec<usize>>,
    /// The last top-level function of each name, made once ([`Module::top_functions`]).
    pub(super) top_funcs: std::cell::OnceCell<HashMap<String, usize>>,
    /// Each `name.attr = value`, in document order.
    pub(super) attr_sets: Vec<AttrSet<'t>>,
    /// Where a `d["k"] = v` binds `d["k"]` (and changes `d`): other keys' values stay.
    pub(super) keyed_sets: Vec<usize>,
    /// Where each import statement starts: a name bound there is imported.
    pub(super) import_stmts: std::collections::HashSet<usize>,
    /// The classes the module defines at its top level, by name (the last one wins).
    pub(super) classes: HashMap<&'t str, Class<'t>>,
    /// Whether names imported from the project's modules are evaluated in those modules
    /// (`from config import VM_SIZE`): not for such a module itself, so that following
    /// imports goes one file deep.
    pub(super) follow_imports: bool,
    /// The command-line options the file adds, once ([`Module::options`]), and whether
    /// they are being read.
    pub(super) options: std::cell::RefCell<Option<Options<'t>>>,
    pub(super) reading_options: std::cell::Cell<bool>,
    /// The words of the command line that runs the file (`python make.py --size X`: the
    /// words after the file), each its value or why it is not known: an option it gives
    /// is its value instead of the default ([`Module::option_default`]). `None`: the file
    /// read alone.
    pub(super) cli: Option<Vec<Result<String, String>>>,
    /// The environment the command that runs the file gives it (a CI step's `env:`):
    /// `os.environ.get("X")` is its value of `X` when it has one. `None`: read alone.
    pub(super) env: Option<&'t RunEnv<'t>>,
    /// The classes of the project's other modules this file makes instances of, by
    /// module, each module read once ([`Module::imported_class`]; `None`: not read).
    pub(super) class_modules: std::cell::RefCell<Vec<(String, Option<Arc<Classes>>)>>,
    /// The bytes of Python the run reading this file may still read ([`Module::env`]'s
    /// run: `deploy::PY_RUN_BYTES`): the modules whose classes it reads with the run's
    /// environment count too.
    pub(super) run_budget: Option<&'t std::cell::Cell<usize>>,
    /// The directories the file adds to `sys.path` (`paths::sys_path_dirs`), read once.
    pub(super) sys_path: std::cell::OnceCell<Vec<std::path::PathBuf>>,
}

/// The classes of a module of the project, by name ([`ClassTable`]).
pub(super) type Classes = HashMap<String, ClassTable>;

/// A class of another module of the project, as an instance of it made here reads it
/// (`from ml_service.util.env_variables import Env`, then `e = Env()`).
pub(super) struct ClassTable {
    dataclass: bool,
    /// It defines `__init__`, and whether that takes no parameter but `self`.
    init: bool,
    init_bare: bool,
    /// Its body's assignments in order (a dataclass's fields).
    fields: Vec<String>,
    /// Each attribute of an instance made without arguments, as that module values it:
    /// without its spans but those of the environment the run gives (they are in the
    /// running file), noted where it is set.
    values: HashMap<String, Ev>,
}

/// A variable of the environment a run gives a file, valued where the run is, its literal
/// marked one call up (`iac::raise_span`); `None` when the run says nothing of it.
pub(crate) type RunEnv<'a> = dyn Fn(&str) -> Option<Ev> + 'a;

/// The command-line options a file adds: each one's destination, its flag as shown, and
/// the `add_argument` call.
pub(super) type Options<'t> = std::rc::Rc<Vec<(String, String, TsNode<'t>)>>;

/// A class of the module's top level: what its body assigns (`VM_SIZE = "x"`,
/// `vm_size: str = "x"`), whether it is a dataclass and whether it defines `__init__`;
/// what an `__init__` without parameters assigns (`self.vm_size = "x"`, statements of its
/// body itself), and its properties that return one attribute (`@property def
/// vm_size(self): return self._vm_size`).
pub(super) struct Class<'t> {
    pub(super) pos: usize,
    pub(super) attrs: Vec<(&'t str, TsNode<'t>)>,
    pub(super) dataclass: bool,
    pub(super) init: bool,
    pub(super) init_bare: bool,
    pub(super) init_attrs: Vec<(&'t str, TsNode<'t>)>,
    pub(super) properties: Vec<(&'t str, &'t str)>,
}

impl<'t> Module<'t> {
    pub(super) fn new(code: &'t Code, root: TsNode<'t>, file: &'t str) -> Self {
        let mut m = Module {
            code,
            src: &code.text,
            file,
            bindings: HashMap::new(),
            funcs: Vec::new(),
            calls: Vec::new(),
            comments: Vec::new(),
            aliases: HashMap::new(),
            imported: Vec::new(),
            star: Vec::new(),
            memo: Default::default(),
            returning: Default::default(),
            top_funcs: Default::default(),
            attr_sets: Vec::new(),
            keyed_sets: Vec::new(),
            load: None,
            import_stmts: Default::default(),
            classes: HashMap::new(),
            follow_imports: true,
            options: Default::default(),
            reading_options: Default::default(),
            cli: None,
            env: None,
            class_modules: Default::default(),
            run_budget: None,
            sys_path: Default::default(),
        };
        // An iterative walk in document order, with the functions around each node.
        let mut cursor = root.walk();
        let mut fstack: Vec<usize> = Vec::new();
        loop {
            let node = cursor.node();
            while fstack
                .last()
                .is_some_and(|&f| m.funcs[f].end <= node.start_byte())
            {
                fstack.pop();
            }
            if let Some(f) = m.visit(node, fstack.last().copied()) {
                fstack.push(f);
            }
            if !next_in_order(&mut cursor) {
                return m;
            }
        }
    }

    /// Records what `node` (in the function `scope`) binds, or that it is a call or a
    /// comment; the index of the function it defines, if it is a function definition.
    pub(super) fn visit(&mut self, node: TsNode<'t>, scope: Option<usize>) -> Option<usize> {
        match node.kind() {
            "function_definition" => return Some(self.function(node, scope)),
            "assignment" => self.assignment(node, scope),
            "augmented_assignment" => {
                if let Some(left) = node
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
                {
                    let why = format!("`{}` is changed by `{}`", self.text(left), self.text(node));
                    self.bind(self.text(left), node.end_byte(), scope, Bound::Other(why));
                }
            }
            "for_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    let right = node
                        .child_by_field_name("right")
                        .map(|r| self.text(r))
                        .unwrap_or_default();
                    self.bind_pattern(left, node, scope, |n| {
                        format!("`{n}` is a loop variable over `{right}`")
                    });
                }
            }
            "import_from_statement" | "import_statement" => {
                self.import_stmts.insert(node.start_byte());
                self.imports(node, scope)
            }
            "class_definition" if scope.is_none() => self.class(node),
            "as_pattern" | "with_item" => {
                if let Some(alias) = node.child_by_field_name("alias") {
                    // `with open("config.yml") as f`: `f` is the file opened, for a loader
                    // that reads it (`yaml.safe_load(f)`).
                    let opened = node
                        .named_child(0)
                        .filter(|v| *v != alias && self.opens_a_file(*v));
                    // The alias is one name (its node is the grammar's `as_pattern_target`).
                    let name = self.text(alias);
                    let one_name = !name.is_empty()
                        && !name.starts_with(|c: char| c.is_ascii_digit())
                        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                    match opened.filter(|_| one_name) {
                        Some(v) => self.bind(name, node.start_byte(), scope, Bound::Expr(v)),
                        _ => {
                            let by = self.text(node);
                            self.bind_pattern(alias, node, scope, |n| format!("`{n}` is bound by `{by}`"));
                        }
                    }
                }
            }
            "call" => {
                // `d.update(…)`, `d.setdefault(…)`, `d.pop(…)`…: `d` is changed.
                if let Some(f) = node
                    .child_by_field_name("function")
                    .filter(|f| f.kind() == "attribute")
                    && f.child_by_field_name("attribute").is_some_and(|a| {
                        matches!(
                            self.text(a),
                            "update"
                                | "append"
                                | "extend"
                                | "insert"
                                | "remove"
                                | "setdefault"
                                | "pop"
                                | "popitem"
                                | "clear"
                                | "__setitem__"
                                | "__delitem__"
                        )
                    })
                {
                    self.changed(f, node, scope);
                }
                self.calls.push(node)
            }
            "delete_statement" => {
                let mut c = node.walk();
                let targets: Vec<TsNode<'t>> = node.named_children(&mut c).collect();
                for t in targets {
                    self.changed(t, node, scope);
                }
            }
            "comment" => self.comments.push(node),
            _ => {}
        }
        None
    }

    /// `target` (`d[k]`, `d.x`, `d.update`) changes the object the name at its root holds,
    /// in `by`: that name is not known after it.
    fn changed(&mut self, target: TsNode<'t>, by: TsNode<'t>, scope: Option<usize>) {
        let mut root = target;
        for _ in 0..MAX_DEPTH {
            let inner = match root.kind() {
                "subscript" => root.child_by_field_name("value"),
                "attribute" => root.child_by_field_name("object"),
                _ => None,
            };
            match inner {
                Some(i) => root = i,
                None => break,
            }
        }
        if root.kind() == "identifier" && root != target {
            let why = format!("`{}` is changed by `{}`", self.text(root), self.text(by));
            self.bind(self.text(root), by.end_byte(), scope, Bound::Other(why));
        }
    }

    /// A function definition: its name bound (not a value amlint evaluates) and the
    /// function recorded; its index.
    pub(super) fn function(&mut self, node: TsNode<'t>, scope: Option<usize>) -> usize {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_default();
        let params = node
            .child_by_field_name("parameters")
            .map(|p| self.params(p))
            .unwrap_or_default();
        self.bind(
            &name,
            node.start_byte(),
            scope,
            Bound::Other(format!("`{name}` is a function")),
        );
        let method = self.method_of(node);
        self.funcs.push(Func {
            name,
            start: node.start_byte(),
            end: node.end_byte(),
            params,
            parent: scope,
            method,
            node,
        });
        self.funcs.len() - 1
    }

    /// The class whose body defines the function `node` itself, and how the method binds
    /// (its decorators `@staticmethod`, `@classmethod`).
    fn method_of(&self, node: TsNode<'t>) -> Option<(&'t str, Method)> {
        let decorated = node.parent().filter(|p| p.kind() == "decorated_definition");
        let block = decorated
            .unwrap_or(node)
            .parent()
            .filter(|b| b.kind() == "block")?;
        let class = block.parent().filter(|c| c.kind() == "class_definition")?;
        let name = self.text(class.child_by_field_name("name")?);
        let mut how = Method::Instance;
        if let Some(d) = decorated {
            let mut c = d.walk();
            for dec in d.children(&mut c).filter(|x| x.kind() == "decorator") {
                match self.text(dec).trim_start_matches('@').trim() {
                    "staticmethod" => how = Method::Static,
                    "classmethod" => how = Method::Class,
                    _ => {}
                }
            }
        }
        Some((name, how))
    }

    /// A class of the module's top level: its body's assignments (the last of a name
    /// wins), `@dataclass` (also `@dataclasses.dataclass(...)`), and whether it has an
    /// `__init__`.
    fn class(&mut self, node: TsNode<'t>) {
        let (Some(name), Some(body)) = (node.child_by_field_name("name"), node.child_by_field_name("body"))
        else {
            return;
        };
        let dataclass = node.parent().is_some_and(|p| {
            let mut c = p.walk();
            p.kind() == "decorated_definition"
                && p.children(&mut c)
                    .any(|d| d.kind() == "decorator" && self.text(d).contains("dataclass"))
        });
        let mut class = Class {
            pos: node.start_byte(),
            attrs: Vec::new(),
            dataclass,
            init: false,
            init_bare: false,
            init_attrs: Vec::new(),
            properties: Vec::new(),
        };
        let mut c = body.walk();
        for stmt in body.named_children(&mut c) {
            let def = match stmt.kind() {
                "decorated_definition" => stmt.child_by_field_name("definition"),
                _ => Some(stmt),
            };
            if let Some(f) = def.filter(|d| d.kind() == "function_definition") {
                let fname = f.child_by_field_name("name").map(|n| self.text(n));
                if fname == Some("__init__") {
                    class.init = true;
                    class.init_bare = f
                        .child_by_field_name("parameters")
                        .is_some_and(|p| p.named_child_count() == 1);
                    class.init_attrs = self.self_assignments(f);
                } else if let Some(fname) = fname
                    && stmt.kind() == "decorated_definition"
                    && self.text(stmt).starts_with("@property")
                    && let Some(attr) = self.returned_self_attribute(f)
                {
                    class.properties.push((fname, attr));
                }
                continue;
            }
            let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") else {
                continue;
            };
            if let (Some(left), Some(right)) = (a.child_by_field_name("left"), a.child_by_field_name("right"))
                && left.kind() == "identifier"
            {
                class.attrs.push((self.text(left), innermost_right(right)));
            }
        }
        self.classes.insert(self.text(name), class);
    }

    /// The statements of the method `f`'s body itself (not nested) that assign an
    /// attribute of `self`: `self.x = v` (also annotated), by attribute, in order.
    fn self_assignments(&self, f: TsNode<'t>) -> Vec<(&'t str, TsNode<'t>)> {
        let mut out = Vec::new();
        let Some(body) = f.child_by_field_name("body") else {
            return out;
        };
        let mut c = body.walk();
        for stmt in body.named_children(&mut c) {
            let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") else {
                continue;
            };
            if let (Some(left), Some(right)) = (a.child_by_field_name("left"), a.child_by_field_name("right"))
                && let Some(attr) = self.self_attribute(left)
            {
                out.push((attr, innermost_right(right)));
            }
        }
        out
    }

    /// `x` when the method `f`'s body is `return self.x` (after a docstring).
    fn returned_self_attribute(&self, f: TsNode<'t>) -> Option<&'t str> {
        let body = f.child_by_field_name("body")?;
        let mut c = body.walk();
        let stmts: Vec<TsNode<'t>> = (body.named_children(&mut c))
            .filter(|s| s.kind() != "comment")
            .filter(|s| {
                !(s.kind() == "expression_statement"
                    && s.named_child(0).is_some_and(|e| e.kind() == "string"))
            })
            .collect();
        match stmts.as_slice() {
            [r] if r.kind() == "return_statement" => self.self_attribute(r.named_child(0)?),
            _ => None,
        }
    }

    /// `x` of the expression `self.x`.
    fn self_attribute(&self, n: TsNode<'t>) -> Option<&'t str> {
        let obj = n
            .child_by_field_name("object")
            .filter(|_| n.kind() == "attribute")?;
        let attr = n.child_by_field_name("attribute")?;
        (obj.kind() == "identifier" && self.text(obj) == "self").then(|| self.text(attr))
    }

    /// `a = x` binds `a` to `x` after the statement; `a, b = x` unpacks (not evaluated).
    pub(super) fn assignment(&mut self, node: TsNode<'t>, scope: Option<usize>) {
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return;
        };
        // A class body's assignments are the class's attributes, not the module's names.
        if in_class_body(node) {
            return;
        }
        // `a = b = x`: the right side is an assignment; its own visit binds `b`.
        let value = if right.kind() == "assignment" {
            innermost_right(right)
        } else {
            right
        };
        let pos = node.end_byte();
        match left.kind() {
            "identifier" => self.bind(self.text(left), pos, scope, Bound::Expr(value)),
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let mut c = left.walk();
                let names = left
                    .named_children(&mut c)
                    .filter(|n| n.kind() == "identifier")
                    .collect();
                let from = self.text(value);
                self.bind_each(names, pos, scope, |n| format!("`{n}` is unpacked from `{from}`"));
            }
            // `d[k] = v`, `cfg.vm_size = v`: the object `d` names is changed, so what it
            // held is not known from here on (audit 25, D5; audit 24, case 08) — but for
            // `d["k"]` itself, which holds `v` (`cfg = {}; cfg["name"] = "gpu"`;
            // `subscript` reads it back).
            "subscript" | "attribute" => {
                if let Some(key) = self.keyed(left) {
                    self.bind(&key, pos, scope, Bound::Expr(value));
                    self.keyed_sets.push(pos);
                }
                self.changed(left, node, scope);
                if let (Some(obj), Some(attr)) = (
                    left.child_by_field_name("object")
                        .filter(|o| o.kind() == "identifier"),
                    left.child_by_field_name("attribute"),
                ) {
                    self.attr_sets.push(AttrSet {
                        name: self.text(obj),
                        pos,
                        scope,
                        left,
                        attr,
                        value,
                        stmt: node,
                    });
                }
            }
            _ => {}
        }
    }

    /// `import a.b`, `from m import X as Y`: the names bound (not evaluated), an alias
    /// remembered for the class it names.
    pub(super) fn imports(&mut self, node: TsNode<'t>, scope: Option<usize>) {
        let mut names = Vec::new();
        let from = node
            .child_by_field_name("module_name")
            .map(|m| self.text(m).split_whitespace().collect::<String>());
        let mut c = node.walk();
        if let Some(m) = &from {
            if node.children(&mut c).any(|n| n.kind() == "wildcard_import") {
                self.star.push(m.clone());
            }
        }
        for child in node.children_by_field_name("name", &mut c) {
            let (local, taken) = match child.kind() {
                "aliased_import" => (
                    child.child_by_field_name("alias"),
                    child.child_by_field_name("name"),
                ),
                _ => (Some(child), Some(child)),
            };
            if let (Some(local), Some(taken)) = (local, taken) {
                let (local, taken) = (self.text(local).to_string(), self.text(taken).to_string());
                self.imported.push(match &from {
                    Some(m) => (local, m.clone(), Some(taken)),
                    None => (local, taken, None),
                });
            }
            match child.kind() {
                "aliased_import" => {
                    if let Some(a) = child.child_by_field_name("alias") {
                        names.push(a);
                        if let Some(orig) = child.child_by_field_name("name") {
                            let o = self.text(orig);
                            self.aliases
                                .insert(self.text(a), o.rsplit('.').next().unwrap_or(o));
                        }
                    }
                }
                "dotted_name" => {
                    if let Some(last) = child.named_child(child.named_child_count().saturating_sub(1)) {
                        names.push(last);
                    }
                }
                _ => {}
            }
        }
        self.bind_each(names, node.start_byte(), scope, |n| format!("`{n}` is imported"));
    }

    /// Binds the identifiers of the pattern `target` where `statement` starts, each to
    /// something amlint does not evaluate: `why(name)`.
    pub(super) fn bind_pattern(
        &mut self,
        target: TsNode<'t>,
        statement: TsNode<'t>,
        scope: Option<usize>,
        why: impl Fn(&str) -> String,
    ) {
        let mut names = Vec::new();
        collect_identifiers(target, &mut names);
        self.bind_each(names, statement.start_byte(), scope, why);
    }

    /// Binds each of `names` at `pos` to something amlint does not evaluate: `why(name)`.
    pub(super) fn bind_each(
        &mut self,
        names: Vec<TsNode<'t>>,
        pos: usize,
        scope: Option<usize>,
        why: impl Fn(&str) -> String,
    ) {
        for n in names {
            let name = self.text(n);
            self.bind(name, pos, scope, Bound::Other(why(name)));
        }
    }

    pub(super) fn bind(&mut self, name: &str, pos: usize, scope: Option<usize>, value: Bound<'t>) {
        self.bindings
            .entry(name.to_string())
            .or_default()
            .push(Binding { pos, scope, value });
    }

    pub(super) fn text(&self, n: TsNode<'_>) -> &'t str {
        self.src.get(n.start_byte()..n.end_byte()).unwrap_or("")
    }

    pub(super) fn params(&self, p: TsNode<'t>) -> Vec<(String, Option<TsNode<'t>>)> {
        let mut out = Vec::new();
        let mut c = p.walk();
        for n in p.named_children(&mut c) {
            match n.kind() {
                "identifier" => out.push((self.text(n).to_string(), None)),
                "typed_parameter" => {
                    if let Some(id) = n.named_child(0).filter(|x| x.kind() == "identifier") {
                        out.push((self.text(id).to_string(), None));
                    }
                }
                "default_parameter" | "typed_default_parameter" => {
                    if let Some(name) = n.child_by_field_name("name").filter(|x| x.kind() == "identifier") {
                        out.push((self.text(name).to_string(), n.child_by_field_name("value")));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// A class's name through an import alias (`AmlCompute as V1AmlCompute`).
    pub(super) fn class_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.aliases.get(name).copied().unwrap_or(name)
    }

    /// Whether `callee` (as written: `AmlCompute`, `entities.AmlCompute`, an alias, a
    /// whole dotted path) is imported from `package` (`azure.ai.ml`, `azureml.core`) or a
    /// module under it. A name defined in the file, or imported relatively, is not.
    pub(super) fn imported_from(&self, callee: &str, package: &str) -> bool {
        let under = |m: &str| {
            m.strip_prefix(package)
                .is_some_and(|r| r.is_empty() || r.starts_with('.'))
        };
        if under(callee) {
            return true;
        }
        let first = callee.split('.').next().unwrap_or(callee);
        self.imported
            .iter()
            .any(|(local, module, _)| local == first && under(module))
            || (!callee.contains('.') && self.star.iter().any(|m| under(m)))
    }

    /// The keywords of a call of `callee` (shown as it is named) that it does not take
    /// (`takes`), each with what it stands for.
    pub(super) fn refused_keywords(
        &self,
        kw: &[Kw<'t>],
        callee: &str,
        v1: bool,
        takes: Signature,
    ) -> Vec<RefusedKeyword> {
        kw.iter()
            .filter(|(k, ..)| *k != "**" && !takes.takes(k))
            .map(|(k, key, _)| RefusedKeyword {
                keyword: k.to_string(),
                span: self.code.span(key.start_byte(), key.end_byte()),
                callee: callee.to_string(),
                v1,
                suggestion: takes.meant(k, v1),
            })
            .collect()
    }

    /// The directories this file (at `path`) adds to `sys.path`, read once.
    fn sys_path(&self, files: &Files, path: &Path) -> &[std::path::PathBuf] {
        self.sys_path
            .get_or_init(|| super::paths::sys_path_dirs(self.src, path, files))
    }

    /// The function around a code offset: the innermost. The functions are in document
    /// order and nested as the tree is, so it is the last one starting at or before `pos`
    /// if that one is still open there, else the nearest of its enclosing functions that
    /// is (a binary search and a walk up, not a scan of every function per lookup).
    pub(super) fn scope_at(&self, pos: usize) -> Option<usize> {
        let mut f = self.funcs.partition_point(|f| f.start <= pos).checked_sub(1)?;
        loop {
            if pos < self.funcs[f].end {
                return Some(f);
            }
            // Each parent comes before its function: the walk ends.
            f = self.funcs[f].parent?;
        }
    }

    /// The comments, each with the line it covers (in the file).
    pub(super) fn comments(&self, source: &crate::source::SourceFile) -> Vec<super::super::common::Comment> {
        let raw: Vec<(Span, bool)> = (self.comments.iter())
            .map(|c| {
                let own = super::super::common::own_line(self.src, c.start_byte());
                (self.code.span(c.start_byte(), c.end_byte()), own)
            })
            .collect();
        let code: Vec<u32> = (super::super::common::hash_code_lines(self.src).into_iter())
            .map(|p| self.code.file_offset(p, false) as u32)
            .collect();
        iac::comments(source, &raw, &code)
    }

    // -----------------------------------------------------------------------------------
    // Definitions

    pub(super) fn definitions(made: &[(TsNode<'t>, ComputeDef)]) -> Vec<ComputeDef> {
        let mut out: Vec<ComputeDef> = made.iter().map(|(_, d)| d.clone()).collect();
        out.sort_by_key(|d| d.span.start);
        out
    }

    /// Each call that makes a definition, with the definition (evaluated once: the file's
    /// definitions and its templates are both read from it).
    pub(super) fn made(&self, display: &str) -> Vec<(TsNode<'t>, ComputeDef)> {
        self.calls
            .iter()
            .filter_map(|call| Some((*call, self.definition_of(*call, display)?)))
            .collect()
    }

    /// The definition a call makes: a v2 constructor, or v1's `ComputeTarget.create` or
    /// `ComputeTarget.attach` (through `ComputeTarget` or a class that inherits them).
    pub(super) fn definition_of(&self, call: TsNode<'t>, display: &str) -> Option<ComputeDef> {
        let callee = self.text(call.child_by_field_name("function")?);
        let last = self.class_name(callee.rsplit('.').next().unwrap_or(callee));
        if let Some((_, ctype)) = V2_CLASSES.iter().find(|(c, _)| *c == last) {
            self.v2(call, callee, ctype, display)
        } else if last == "load_compute" {
            self.load_compute(call, callee, display)
        } else {
            match self.v1_call(callee)? {
                V1Call::Create => self.v1(call, callee, display),
                V1Call::Attach => self.v1_attach(call, callee, display),
            }
        }
    }

    /// Whether `callee` is SDK v1's `create` or `attach` of a compute class:
    /// `ComputeTarget.create`, `azureml.core.compute.ComputeTarget.attach`,
    /// `ComputeInstance.create` (inherited), an imported alias of one of them.
    pub(super) fn v1_call(&self, callee: &str) -> Option<V1Call> {
        let (receiver, method) = callee.rsplit_once('.')?;
        let class = self.class_name(receiver.rsplit('.').next().unwrap_or(receiver));
        let of =
            |classes: &[(&str, &str)]| class == "ComputeTarget" || classes.iter().any(|(c, _)| *c == class);
        match method {
            "create" if of(V1_CLASSES) => Some(V1Call::Create),
            "attach" if of(V1_ATTACH_CLASSES) => Some(V1Call::Attach),
            _ => None,
        }
    }

    /// The arguments of a call: positional ones, and keyword ones with their key nodes.
    pub(super) fn args(&self, call: TsNode<'t>) -> (Vec<TsNode<'t>>, Vec<(&'t str, TsNode<'t>, TsNode<'t>)>) {
        let mut pos = Vec::new();
        let mut kw = Vec::new();
        if let Some(args) = call.child_by_field_name("arguments") {
            let mut c = args.walk();
            for a in args.named_children(&mut c) {
                match a.kind() {
                    "keyword_argument" => {
                        if let (Some(k), Some(v)) =
                            (a.child_by_field_name("name"), a.child_by_field_name("value"))
                        {
                            kw.push((self.text(k), k, v));
                        }
                    }
                    "comment" => {}
                    "list_splat" | "dictionary_splat" => kw.push(("**", a, a)),
                    _ => pos.push(a),
                }
            }
        }
        (pos, kw)
    }

    /// The keyword arguments `kw` of a call at `at` with what its `**` arguments pass: the
    /// entries of a dict literal `{"k": v}` or `dict(k=v)` (in place, or the value of a name
    /// as [`Module::expression`] follows it), after the keywords written in the call (looked
    /// up first: Python refuses a keyword given twice). When a `*`/`**` argument is not such
    /// a dict, the first one and why what it sets is not known.
    pub(super) fn spread(&self, kw: Vec<Kw<'t>>, at: usize) -> Spread<'t> {
        let mut own = Vec::with_capacity(kw.len());
        let mut passed = Vec::new();
        let mut unknown = None;
        let mut dicts = Vec::new();
        for (k, key, v) in kw {
            if k != "**" {
                own.push((k, key, v));
                continue;
            }
            match self.dict_entries(v, at) {
                Ok((dict, entries)) => {
                    passed.extend(entries);
                    dicts.push((dict, v));
                }
                Err(why) => {
                    if unknown.is_none() {
                        unknown = Some((v, format!("`{}` may set it: {why}", self.text(v))));
                    }
                }
            }
        }
        own.extend(passed);
        Spread {
            kw: own,
            unknown,
            dicts,
        }
    }

    /// Moves the settings `def` takes from the dicts `**` passes (`dicts`: each dict with
    /// its `**` argument) to that argument: a finding lands where the definition uses the
    /// dict, labelled at the value's literal.
    fn moved_to_splat(&self, def: &mut ComputeDef, dicts: &[(TsNode<'t>, TsNode<'t>)]) {
        let moved = |s: &mut Setting| {
            let Some((_, splat)) = dicts.iter().find(|(d, _)| {
                let d = self.code.span(d.start_byte(), d.end_byte());
                d.start <= s.span.start && s.span.end <= d.end
            }) else {
                return;
            };
            s.origin = s.in_place.then_some(s.span).or(s.origin);
            s.span = self.code.span(splat.start_byte(), splat.end_byte());
            if s.value.is_some() {
                s.written = self.text(*splat).to_string();
            }
            s.in_place = false;
        };
        moved(&mut def.name);
        for (_, s) in &mut def.fields {
            moved(s);
        }
    }

    /// The entries of the dict a `**` argument passes, as keyword arguments; why not when
    /// it is not a dict literal or `dict(k=v, ...)` with keywords amlint reads.
    fn dict_entries(&self, splat: TsNode<'t>, at: usize) -> Result<(TsNode<'t>, Vec<Kw<'t>>), String> {
        let not_known = || "its value is not known".to_string();
        let inner = match (splat.kind(), splat.named_child(0)) {
            ("dictionary_splat", Some(inner)) => inner,
            _ => return Err(not_known()),
        };
        self.dict_of(inner, at)
    }

    /// The entries of the dict `n` is (a literal or `dict(k=v, ...)`, written there or
    /// assigned to the name `n` is), each with its key's node and its value's, and the
    /// dict's node.
    fn dict_of(&self, n: TsNode<'t>, at: usize) -> Result<(TsNode<'t>, Vec<Kw<'t>>), String> {
        let not_known = || "its value is not known".to_string();
        let (n, _) = self.expression(n, at)?;
        match n.kind() {
            "dictionary" => {
                let mut out: Vec<Kw<'t>> = Vec::new();
                let mut c = n.walk();
                for entry in n.named_children(&mut c) {
                    match entry.kind() {
                        "comment" => {}
                        "pair" => {
                            let (Some(k), Some(v)) = (
                                entry.child_by_field_name("key"),
                                entry.child_by_field_name("value"),
                            ) else {
                                return Err(not_known());
                            };
                            if self.plain_literal(k).is_none() {
                                return Err(format!("`{}` is not a key amlint reads", self.text(k)));
                            }
                            let (a, z) = string_bounds(k);
                            // A key written twice: Python keeps the last value.
                            out.retain(|(name, ..)| *name != &self.src[a..z]);
                            out.push((&self.src[a..z], k, v));
                        }
                        _ => return Err(format!("`{}` is not read", self.text(entry))),
                    }
                }
                Ok((n, out))
            }
            "call"
                if n.child_by_field_name("function")
                    .is_some_and(|f| self.text(f) == "dict") =>
            {
                let (pos, kw) = self.args(n);
                if !pos.is_empty() || kw.iter().any(|(k, ..)| *k == "**") {
                    return Err(format!("`{}` is not read", self.text(n)));
                }
                Ok((n, kw))
            }
            _ => Err(format!("`{}` is not a dict amlint reads", self.text(n))),
        }
    }

    /// Sets each of `paths` `def` does not set to unknown: what `node` passes may set it.
    fn unknown_unless_set<'p>(
        &self,
        def: &mut ComputeDef,
        paths: impl IntoIterator<Item = &'p str>,
        node: TsNode<'t>,
        why: &str,
    ) {
        let span = self.code.span(node.start_byte(), node.end_byte());
        for path in paths {
            if def.get(path).is_none() {
                def.set(path, Setting::dynamic(self.text(node), why, span, Some(span)));
            }
        }
    }

    /// `AmlCompute(name=…, size=…, …)` (a v2 definition; positional arguments or a
    /// `workspace=` make it v1's lookup of an existing compute).
    pub(super) fn v2(
        &self,
        call: TsNode<'t>,
        callee: &str,
        ctype: &str,
        display: &str,
    ) -> Option<ComputeDef> {
        let (pos, kw) = self.args(call);
        let at = call.start_byte();
        let Spread {
            kw,
            unknown: splat,
            dicts,
        } = self.spread(kw, at);
        if !pos.is_empty() || kw.iter().any(|(k, ..)| *k == "workspace") {
            return None;
        }
        if discarded(call) {
            return None;
        }
        let (_, key, value) = kw.iter().find(|(k, ..)| *k == "name")?;
        let mut notes = Vec::new();
        let name = self.name_setting(*value, *key, at, &mut notes);
        let span = self.code.span(call.start_byte(), call.end_byte());
        let short = callee.rsplit('.').next().unwrap_or(callee);
        let mut def = ComputeDef::new(
            SourceKind::PythonSdk,
            display,
            span,
            format!("{short}(...)"),
            name,
        );
        def.notes = notes;
        let named = self
            .code
            .span(call.start_byte(), call.start_byte() + callee.len());
        def.set("type", type_setting(ctype, named, short));

        for (kwname, path, as_) in V2_FIELDS {
            if let Some((_, k, v)) = kw.iter().find(|(n, ..)| n == kwname) {
                if let Some(s) = self.setting(*v, *k, at, *as_, &mut def.notes) {
                    def.set(path, s);
                }
            }
        }
        if let Some((_, k, v)) = kw.iter().find(|(n, ..)| *n == "schedules") {
            self.schedules(*v, *k, at, &mut def);
        }
        if let Some((_, k, v)) = kw.iter().find(|(n, ..)| *n == "network_settings") {
            self.network_settings(*v, *k, at, &mut def);
        }
        if let Some((node, why)) = &splat {
            // What the call does not set, `**` may: not known (no rule about its absence).
            let given = |arg: &str| kw.iter().any(|(k, ..)| *k == arg);
            let takes = |arg: &str| v2_takes(ctype, arg) && !given(arg);
            let mut paths: Vec<&str> = V2_FIELDS
                .iter()
                .filter(|(arg, ..)| takes(arg))
                .map(|(_, path, _)| *path)
                .collect();
            if takes("network_settings") {
                paths.extend(["network_settings.subnet", "network_settings.vnet_name"]);
            }
            if takes("schedules") {
                paths.push("schedules");
            }
            self.unknown_unless_set(&mut def, paths, *node, why);
            def.notes
                .push("some arguments are passed with `**`: they are not read".into());
        }
        let class = self.class_name(short);
        if let Some(takes) = Signature::of(false, ctype)
            && self.imported_from(callee, "azure.ai.ml")
        {
            def.refused_keywords = self.refused_keywords(&kw, class, false, takes);
        }
        self.moved_to_splat(&mut def, &dicts);
        Some(def)
    }

    /// SDK v2's `load_compute(source, params_override=[{"name": …}, {"type": …}, …])`: a
    /// definition at the call. Its name and type are those the overrides give (later
    /// entries win, as the SDK applies them in order), else those of the YAML file `source`
    /// names (found as `yaml.safe_load(open(…))`'s file is; its own settings are that
    /// file's, checked there); the overrides' other keys (`size`, `min_instances`, …) are
    /// its settings, at their places in this file. `params_override` is a list literal of
    /// dict literals, written in the call or assigned to a name before it; anything else
    /// leaves the name unknown (an override may set it), with why. `None` for a
    /// `load_compute` that is not the SDK's (a function of the file, a method of another
    /// object) or whose result is thrown away.
    pub(super) fn load_compute(&self, call: TsNode<'t>, callee: &str, display: &str) -> Option<ComputeDef> {
        let receiver = callee.rsplit_once('.').map(|(r, _)| r);
        let first = callee.split('.').next().unwrap_or(callee);
        // Imported from elsewhere (`from mylib import load_compute`), or the file's own.
        let other = self.imported.iter().any(|(local, ..)| local == first)
            && !self.imported_from(callee, "azure.ai.ml");
        if !matches!(receiver, None | Some("ml" | "azure.ai.ml"))
            || other
            || (receiver.is_none() && self.top_functions().contains_key(callee))
            || discarded(call)
        {
            return None;
        }
        let (pos, kw) = self.args(call);
        let at = call.start_byte();
        let arg = |name: &str| kw.iter().find(|(k, ..)| *k == name).map(|(_, _, v)| *v);
        let source = pos.first().copied().or_else(|| arg("source"));
        let overrides: Result<Vec<Kw<'t>>, String> = match arg("params_override") {
            None => Ok(Vec::new()),
            Some(v) => self.overrides(v, at),
        };
        let mut notes = Vec::new();
        let call_span = self.code.span(call.start_byte(), call.end_byte());
        // The file's `name` and `type`, when it has them.
        let file = source.filter(|s| s.kind() != "none").map(|s| {
            (
                s,
                self.loaded_path("load_compute", crate::load::Format::Yaml, s, at, 0),
            )
        });
        let from_file = |key: &str, notes: &mut Vec<String>| -> Option<Setting> {
            let (s, ev) = file.as_ref()?;
            let span = self.code.span(s.start_byte(), s.end_byte());
            let written = self.text(*s);
            let val = match &ev.v {
                V::Map(entries) => entries.iter().rev().find(|(k, _)| k == key)?.1.clone(),
                V::Unknown(why) => return Some(Setting::dynamic(written, why.clone(), span, None)),
                _ => {
                    let why = format!(
                        "`load_compute()` reads `{}`, which is not a mapping",
                        iac::one_line(written)
                    );
                    return Some(Setting::dynamic(written, why, span, None));
                }
            };
            if let Some(n) = val.note.as_ref().filter(|n| !notes.contains(n)) {
                notes.push(n.clone());
            }
            let leaf = iac::Leaf {
                span,
                written: written.to_string(),
                val,
                literal: None,
            };
            iac::setting_of(&leaf, None, iac::As::Text)
        };
        let given = |key: &str| match &overrides {
            Ok(o) => o.iter().rev().find(|(k, ..)| *k == key).map(|(_, k, v)| (*k, *v)),
            Err(_) => None,
        };
        let name = match (given("name"), &overrides) {
            (Some((k, v)), _) => self.name_setting(v, k, at, &mut notes),
            (None, Err(why)) => Setting::dynamic(
                self.text(call),
                format!("`params_override` may set the name, and {why}"),
                call_span,
                None,
            ),
            (None, Ok(_)) => from_file("name", &mut notes).unwrap_or_else(|| {
                let why = match &file {
                    Some((s, _)) => format!(
                        "`{}` gives no `name`, nor does `params_override`",
                        iac::one_line(self.text(*s))
                    ),
                    None => {
                        "`load_compute()` is given neither a file nor a `name` in `params_override`".into()
                    }
                };
                Setting::dynamic(self.text(call), why, call_span, None)
            }),
        };
        let mut def = ComputeDef::new(
            SourceKind::PythonSdk,
            display,
            call_span,
            "load_compute(...)",
            name,
        );
        def.idiom = crate::facts::idiom::Idiom::PythonOverride;
        let ctype = match given("type") {
            Some((k, v)) => self.setting(v, k, at, iac::As::Text, &mut notes),
            None if overrides.is_ok() => from_file("type", &mut notes),
            None => None,
        };
        if let Some(t) = ctype {
            def.set("type", t);
        }
        for (kwname, path, as_) in V2_FIELDS {
            if let Some((k, v)) = given(kwname)
                && let Some(s) = self.setting(v, k, at, *as_, &mut notes)
            {
                def.set(path, s);
            }
        }
        if let Err(why) = &overrides {
            notes.push(format!("`params_override` is not read: {why}"));
        }
        // What the overrides do not set is the file's (checked there), or unknown.
        let unset = match (&file, &overrides) {
            (Some((s, _)), Ok(_)) => Some((
                *s,
                format!(
                    "`load_compute()` takes it from `{}`",
                    iac::one_line(self.text(*s))
                ),
            )),
            (_, Err(why)) => Some((call, format!("`params_override` may set it, and {why}"))),
            (None, Ok(_)) => None,
        };
        if let Some((node, why)) = unset {
            let paths = V2_FIELDS.iter().map(|(_, path, _)| *path).chain([
                "network_settings.subnet",
                "network_settings.vnet_name",
                "schedules",
            ]);
            self.unknown_unless_set(&mut def, paths, node, &why);
        }
        def.notes = notes;
        Some(def)
    }

    /// The entries of `load_compute`'s `params_override` (a list of dicts), in order.
    fn overrides(&self, v: TsNode<'t>, at: usize) -> Result<Vec<Kw<'t>>, String> {
        let (list, at) = self.expression(v, at)?;
        if list.kind() != "list" {
            return Err(format!(
                "`{}` is not a list amlint reads",
                iac::one_line(self.text(v))
            ));
        }
        let mut out = Vec::new();
        let mut c = list.walk();
        for item in list.named_children(&mut c) {
            if item.kind() == "comment" {
                continue;
            }
            out.extend(self.dict_of(item, at)?.1);
            if out.len() > MAX_LITERAL_ITEMS {
                return Err("it has too many entries".into());
            }
        }
        Ok(out)
    }

    /// `schedules=ComputeSchedules(compute_start_stop=[ComputeStartStopSchedule(action=…,
    /// state=…), …])`, each object written in place or assigned to a name before: each
    /// entry's `action` and `state` (the SDK's defaults: no action, `state` enabled) as
    /// YAML's `schedules.compute_start_stop.<i>.action` / `.state`. What is not known
    /// statically (the schedules, the list or an entry from a parameter, another call) is
    /// set unknown where it stops being known, with why.
    pub(super) fn schedules(&self, v: TsNode<'t>, key: TsNode<'t>, at: usize, def: &mut ComputeDef) {
        let key = Some(self.code.span(key.start_byte(), key.end_byte()));
        let unknown = |def: &mut ComputeDef, path: &str, n: TsNode<'t>, why: String| {
            let span = self.code.span(n.start_byte(), n.end_byte());
            def.set(path, Setting::dynamic(self.text(n), why, span, key));
        };
        let kw = match self.expression(v, at) {
            Ok((n, _)) if n.kind() == "none" => return,
            Ok((n, at)) => self.keywords_of(n, "ComputeSchedules").map(|kw| (kw, at)),
            Err(why) => Err(why),
        };
        let (kw, at) = match kw {
            Ok(found) => found,
            Err(why) => return unknown(def, "schedules", v, why),
        };
        let Some((_, _, list)) = kw.iter().find(|(k, ..)| *k == "compute_start_stop") else {
            return;
        };
        let path = "schedules.compute_start_stop";
        let (list, at) = match self.expression(*list, at) {
            Ok((n, _)) if n.kind() == "none" => return,
            Ok((n, at)) if matches!(n.kind(), "list" | "tuple") => (n, at),
            Ok((n, _)) => return unknown(def, path, *list, format!("`{}` is not a list", self.text(n))),
            Err(why) => return unknown(def, path, *list, why),
        };
        let mut c = list.walk();
        let items: Vec<TsNode<'t>> = list
            .named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect();
        if let Some(why) = crate::facts::computes::too_many_entries("compute_start_stop", items.len()) {
            return unknown(def, path, list, why);
        }
        for (i, item) in items.into_iter().enumerate() {
            let path = format!("{path}.{i}");
            let entry = self
                .expression(item, at)
                .and_then(|(n, at)| Ok((self.keywords_of(n, "ComputeStartStopSchedule")?, at)));
            let (ekw, at) = match entry {
                Ok(found) => found,
                Err(why) => {
                    unknown(def, &path, item, why);
                    continue;
                }
            };
            for (arg, yaml) in [("action", "action"), ("state", "state")] {
                let Some((_, k, val)) = ekw.iter().find(|(n, ..)| *n == arg) else {
                    continue;
                };
                let s = self
                    .enum_member(*val, *k)
                    .or_else(|| self.setting(*val, *k, at, iac::As::Text, &mut def.notes));
                if let Some(s) = s {
                    def.set(&format!("{path}.{yaml}"), s);
                }
            }
        }
    }

    /// The expression `n`, used at `at`, stands for: itself, or — a name — the expression
    /// of its nearest assignment (followed through names), with where that is evaluated;
    /// why not, when the name is not assigned an expression (a parameter, a loop variable,
    /// an import) or its value depends on a branch.
    pub(super) fn expression(&self, mut n: TsNode<'t>, mut at: usize) -> Result<(TsNode<'t>, usize), String> {
        for _ in 0..MAX_DEPTH {
            match n.kind() {
                "parenthesized_expression" => match n.named_child(0) {
                    Some(inner) => n = inner,
                    None => return Ok((n, at)),
                },
                "identifier" => {
                    let name = self.text(n);
                    let binding = match self.resolve(name, at) {
                        Some(b) if !self.is_parameter(name, at) => b,
                        _ => {
                            let why = self.eval(n, at, 0).why();
                            return Err(
                                why.unwrap_or_else(|| format!("`{name}` is not an object amlint reads"))
                            );
                        }
                    };
                    let Bound::Expr(e) = &binding.value else {
                        return Err(self.eval(n, at, 0).why().unwrap_or_default());
                    };
                    if let Some(why) = self.branch_dependent(name, *e, binding.pos, binding.scope, at) {
                        return Err(why);
                    }
                    at = binding.pos.min(e.start_byte());
                    n = *e;
                }
                _ => return Ok((n, at)),
            }
        }
        Err("the expression is nested too deeply".into())
    }

    /// Whether `name`, used at `at`, is a parameter of the function around it not assigned
    /// there before the use.
    fn is_parameter(&self, name: &str, at: usize) -> bool {
        let Some(f) = self.scope_at(at) else {
            return false;
        };
        let assigned = self
            .bindings
            .get(name)
            .is_some_and(|l| l.iter().any(|b| b.scope == Some(f) && b.pos <= at));
        !assigned && self.funcs[f].params.iter().any(|(p, _)| p == name)
    }

    /// The keyword arguments of `n` when it is a call of the SDK class `class`; why not
    /// otherwise (another expression, or arguments passed with `**`, which are not read).
    fn keywords_of(
        &self,
        n: TsNode<'t>,
        class: &str,
    ) -> Result<Vec<(&'t str, TsNode<'t>, TsNode<'t>)>, String> {
        if !self.is_call_of(n, class) {
            return Err(format!("`{}` is not a `{class}(...)` call", self.text(n)));
        }
        let (_, kw) = self.args(n);
        if kw.iter().any(|(k, ..)| *k == "**") {
            return Err("its arguments are passed with `**`".into());
        }
        Ok(kw)
    }

    /// Whether `n` is a call of the SDK class `class` (also through a module or an alias).
    fn is_call_of(&self, n: TsNode<'t>, class: &str) -> bool {
        n.kind() == "call"
            && n.child_by_field_name("function").is_some_and(|f| {
                let callee = self.text(f);
                self.class_name(callee.rsplit('.').next().unwrap_or(callee)) == class
            })
    }

    /// A member of the SDK's enums a schedule takes (`ComputePowerAction.STOP`,
    /// `ScheduleState.DISABLED`: [`SCHEDULE_ENUMS`]) as the value it stands for.
    fn enum_member(&self, v: TsNode<'t>, key: TsNode<'t>) -> Option<Setting> {
        let (object, member) = (v.kind() == "attribute").then(|| {
            let o = self.text(v.child_by_field_name("object")?);
            Some((
                o.rsplit('.').next().unwrap_or(o),
                self.text(v.child_by_field_name("attribute")?),
            ))
        })??;
        let class = self.class_name(object);
        let (.., value) = SCHEDULE_ENUMS
            .iter()
            .find(|(c, m, _)| *c == class && *m == member)?;
        let span = self.code.span(v.start_byte(), v.end_byte());
        let mut s = Setting::literal(
            Scalar::Str((*value).into()),
            span,
            Some(self.code.span(key.start_byte(), key.end_byte())),
        );
        s.written = self.text(v).to_string();
        s.in_place = false;
        Some(s)
    }

    /// `network_settings=NetworkSettings(subnet=…, vnet_name=…)`.
    pub(super) fn network_settings(&self, v: TsNode<'t>, key: TsNode<'t>, at: usize, def: &mut ComputeDef) {
        if v.kind() == "call"
            && v.child_by_field_name("function")
                .is_some_and(|f| self.text(f).ends_with("NetworkSettings"))
        {
            let (_, kw) = self.args(v);
            for (name, path) in [
                ("subnet", "network_settings.subnet"),
                ("vnet_name", "network_settings.vnet_name"),
            ] {
                if let Some((_, k, val)) = kw.iter().find(|(n, ..)| *n == name) {
                    if let Some(s) = self.setting(*val, *k, at, iac::As::Text, &mut def.notes) {
                        def.set(path, s);
                    }
                }
            }
        } else {
            let span = self.code.span(v.start_byte(), v.end_byte());
            let k = Some(self.code.span(key.start_byte(), key.end_byte()));
            def.set(
                "network_settings.subnet",
                Setting::dynamic(
                    self.text(v),
                    format!("`{}` is not a `NetworkSettings(...)` call", self.text(v)),
                    span,
                    k,
                ),
            );
        }
    }

    /// `ComputeTarget.create(ws, name, config)` with the provisioning configuration it is
    /// given.
    pub(super) fn v1(&self, call: TsNode<'t>, callee: &str, display: &str) -> Option<ComputeDef> {
        let (mut def, config, _) = self.v1_named(call, callee, V1Call::Create, display)?;
        let at = call.start_byte();
        if let Some((prov, through)) = self.provisioning(config, at, &mut def.notes) {
            self.provisioned(prov, through, at, &mut def);
        }
        Some(def)
    }

    /// The definition an SDK v1 `create`/`attach` call makes, named by its second argument
    /// (`name=`), the configuration it passes third (`provisioning_configuration=`,
    /// `attach_configuration=`), and the class it is called through (`ComputeTarget`).
    fn v1_named<'c>(
        &self,
        call: TsNode<'t>,
        callee: &'c str,
        what: V1Call,
        display: &str,
    ) -> Option<(ComputeDef, TsNode<'t>, &'c str)> {
        let (pos, kw) = self.args(call);
        let arg = |i: usize, name: &str| -> Option<(Option<TsNode<'t>>, TsNode<'t>)> {
            kw.iter()
                .find(|(k, ..)| *k == name)
                .map(|(_, k, v)| (Some(*k), *v))
                .or_else(|| pos.get(i).map(|v| (None, *v)))
        };
        let (method, config_kw) = match what {
            V1Call::Create => ("create", "provisioning_configuration"),
            V1Call::Attach => ("attach", "attach_configuration"),
        };
        let (name_key, name_node) = arg(1, "name")?;
        let (_, config) = arg(2, config_kw)?;
        let mut notes = Vec::new();
        let name = self.name_setting_at(name_node, name_key, call.start_byte(), &mut notes);
        let span = self.code.span(call.start_byte(), call.end_byte());
        let short = callee.rsplit('.').nth(1).unwrap_or("ComputeTarget");
        let mut def = ComputeDef::new(
            SourceKind::PythonSdk,
            display,
            span,
            format!("{short}.{method}(...)"),
            name,
        );
        def.idiom = crate::facts::idiom::Idiom::PythonV1;
        def.notes = notes;
        Some((def, config, short))
    }

    /// `ComputeTarget.attach(ws, name, <Class>.attach_configuration(...))`: a compute of
    /// the class's type, named by the call (an attached compute has no size or scale of
    /// its own to read).
    pub(super) fn v1_attach(&self, call: TsNode<'t>, callee: &str, display: &str) -> Option<ComputeDef> {
        let (mut def, config, short) = self.v1_named(call, callee, V1Call::Attach, display)?;
        let at = call.start_byte();
        let Some((conf, _)) = self.provisioning(config, at, &mut def.notes) else {
            return Some(def);
        };
        let conf_callee = conf
            .child_by_field_name("function")
            .map(|f| self.text(f))
            .unwrap_or_default();
        let class = conf_callee
            .strip_suffix(".attach_configuration")
            .map(|c| self.class_name(c.rsplit('.').next().unwrap_or(c)));
        match class.and_then(|class| V1_ATTACH_CLASSES.iter().find(|(c, _)| *c == class)) {
            Some((class, ctype)) => {
                let named = self
                    .code
                    .span(conf.start_byte(), conf.start_byte() + conf_callee.len());
                def.set("type", type_setting(ctype, named, class));
                def.command = format!("{short}.attach + {class}.attach_configuration");
            }
            None => {
                let classes: Vec<String> = V1_ATTACH_CLASSES.iter().map(|(c, _)| format!("`{c}`")).collect();
                if let [init @ .., last] = classes.as_slice() {
                    def.notes.push(format!(
                        "its type is not read: `{conf_callee}(...)` is not the `attach_configuration` of {} or {last}",
                        init.join(", ")
                    ));
                }
            }
        }
        Some(def)
    }

    /// The `provisioning_configuration(...)` call `config` is: itself, or the nearest
    /// assignment of the variable before the call at `at` (with the variable). `None`,
    /// noted when it is a variable: it is neither.
    pub(super) fn provisioning(
        &self,
        config: TsNode<'t>,
        at: usize,
        notes: &mut Vec<String>,
    ) -> Option<(TsNode<'t>, Option<TsNode<'t>>)> {
        match config.kind() {
            "call" => Some((config, None)),
            "identifier" => match self.configured(self.text(config), at).0 {
                Some(Binding {
                    value: Bound::Expr(e),
                    ..
                }) if e.kind() == "call" => Some((*e, Some(config))),
                _ => {
                    notes.push(format!(
                        "the provisioning configuration `{}` is not read",
                        self.text(config)
                    ));
                    None
                }
            },
            _ => None,
        }
    }

    /// The binding of the configuration `name` a use at `at` sees, past the attributes set
    /// on it in between (`config.vnet_name = "vnet"`, in document order): those are read
    /// as its settings (audit 27, case 04). Any other change (`config[k] = v`,
    /// `config.x.y = v`, `config.update(...)`) is the binding, not known.
    pub(super) fn configured(&self, name: &str, at: usize) -> (Option<&Binding<'t>>, Vec<&AttrSet<'t>>) {
        let mut sets = Vec::new();
        let mut pos = at;
        for _ in 0..MAX_ATTR_SETS {
            let b = self.resolve(name, pos);
            let set = b.and_then(|b| {
                matches!(b.value, Bound::Other(_))
                    .then(|| {
                        // In document order, so by position.
                        let from = self.attr_sets.partition_point(|s| s.pos < b.pos);
                        self.attr_sets[from..]
                            .iter()
                            .take_while(|s| s.pos == b.pos)
                            .find(|s| s.name == name && s.scope == b.scope)
                    })
                    .flatten()
            });
            match set {
                Some(set) => {
                    pos = set.stmt.start_byte();
                    sets.push(set);
                }
                None => {
                    sets.reverse();
                    return (b, sets);
                }
            }
        }
        (None, Vec::new())
    }

    /// The arguments of `<class>.provisioning_configuration(...)` by keyword, the positional
    /// ones under the names SDK v1 gives them (`AmlCompute`'s first is `vm_size`,
    /// `AksCompute`'s `agent_count`); a positional argument is its own key.
    pub(super) fn provisioning_args(
        &self,
        prov: TsNode<'t>,
        class: &str,
    ) -> Vec<(&'t str, TsNode<'t>, TsNode<'t>)> {
        let (pos, mut kw) = self.args(prov);
        let names: &[&'t str] = match class {
            "AmlCompute" => &[
                "vm_size",
                "vm_priority",
                "min_nodes",
                "max_nodes",
                "idle_seconds_before_scaledown",
            ],
            "ComputeInstance" => &["vm_size", "ssh_public_access"],
            "AksCompute" => &["agent_count", "vm_size"],
            _ => &[],
        };
        kw.extend(pos.iter().zip(names).map(|(v, n)| (*n, *v, *v)));
        kw
    }

    /// The type and settings of `<Class>.provisioning_configuration(...)` (`prov`, reached
    /// `through` a variable or written in the call at `at`).
    pub(super) fn provisioned(
        &self,
        prov: TsNode<'t>,
        through: Option<TsNode<'t>>,
        at: usize,
        def: &mut ComputeDef,
    ) {
        let callee = prov
            .child_by_field_name("function")
            .map(|f| self.text(f))
            .unwrap_or_default();
        let Some(class) = callee.strip_suffix(".provisioning_configuration") else {
            def.notes.push(format!(
                "`{}` is not a `provisioning_configuration(...)` call",
                self.text(prov)
            ));
            return;
        };
        let class = self.class_name(class.rsplit('.').next().unwrap_or(class));
        let Some((_, ctype)) = V1_CLASSES.iter().find(|(c, _)| *c == class) else {
            return;
        };
        let named = self
            .code
            .span(prov.start_byte(), prov.start_byte() + callee.len());
        def.set("type", type_setting(ctype, named, class));
        def.command = format!("ComputeTarget.create + {class}.provisioning_configuration");
        if class == "ComputeInstance" {
            def.idiom = crate::facts::idiom::Idiom::PythonV1Instance;
        }
        let Spread {
            kw: pkw,
            unknown: splat,
            dicts,
        } = self.spread(self.provisioning_args(prov, class), at);
        // A configuration assigned in a branch with another reaching the call: which one
        // the run takes is decided at run time, every setting is unknown.
        // Attributes set on it before the call (`config.vnet_name = ...`): the
        // configuration's value is judged where the first is set.
        let sets = through
            .map(|v| self.configured(self.text(v), at).1)
            .unwrap_or_default();
        let branch = through.and_then(|v| {
            let name = self.text(v);
            let seen = sets.first().map_or(at, |s| s.stmt.start_byte());
            let b = self.resolve(name, seen)?;
            self.branch_dependent(name, prov, b.pos, b.scope, seen)
        });
        let unknown = match (&branch, through) {
            (Some(why), Some(v)) => Some((v, why.clone())),
            _ => splat,
        };
        if let Some(takes) = Signature::of(true, class)
            && self.imported_from(callee.rsplit_once('.').map_or(callee, |(c, _)| c), "azureml.core")
        {
            let named = format!("{class}.provisioning_configuration");
            def.refused_keywords = self.refused_keywords(&pkw, &named, true, takes);
        }
        for (kwname, path, as_) in V1_FIELDS {
            let given = pkw
                .iter()
                .find(|(n, ..)| n == kwname)
                .filter(|_| branch.is_none());
            if given.is_some() && !v1_accepts(class, kwname) {
                def.notes.push(format!(
                    "`{kwname}` is not read: `{class}.provisioning_configuration` has no such parameter (azureml-core raises `TypeError: ... unexpected keyword argument '{kwname}'`)"
                ));
                continue;
            }
            let mut s = match (given, &unknown) {
                (Some((_, k, v)), _) => {
                    let mut notes = Vec::new();
                    let Some(s) = self.setting(*v, *k, at, *as_, &mut notes) else {
                        def.notes.append(&mut notes);
                        continue;
                    };
                    if *path == "size" && empty_size(&s, kwname, &mut def.notes) {
                        continue;
                    }
                    def.notes.append(&mut notes);
                    s
                }
                (None, Some((node, why))) if v1_takes(class, kwname) && def.get(path).is_none() => {
                    let span = self.code.span(node.start_byte(), node.end_byte());
                    Setting::dynamic(self.text(*node), why.as_str(), span, Some(span))
                }
                _ => continue,
            };
            if let Some(use_site) = through {
                // Through a variable: the finding lands where the definition uses it, each
                // setting's literal labelled for the findings about it (an unknown one keeps
                // what was written for it: `vm_size`, `**params`). A known value read from
                // a literal that is not its text (`"Enabled"` as `true`) is labelled there.
                let origin = s
                    .in_place
                    .then_some(s.span)
                    .or(s.origin)
                    .or(s.value.is_some().then_some(s.span));
                s.span = self.code.span(use_site.start_byte(), use_site.end_byte());
                if s.value.is_some() {
                    s.written = self.text(use_site).to_string();
                }
                s.in_place = false;
                s.origin = origin;
            }
            def.set(path, s);
        }
        if let (None, Some(use_site)) = (&branch, through) {
            for set in &sets {
                self.attr_set(set, class, prov, use_site, at, def);
            }
        }
        if through.is_none() {
            self.moved_to_splat(def, &dicts);
        }
        vnet_public_ip(def);
        if unknown.is_some() && branch.is_none() {
            def.notes
                .push("some arguments are passed with `**`: they are not read".into());
        }
        if let (Some(why), Some(v)) = (&branch, through) {
            def.notes.push(format!("its settings are not known: {why}"));
            // The type stays known when every configuration reaching the call is one of
            // the same class.
            let scope = self.resolve(self.text(v), at).map(|b| b.scope);
            let other_class = self.bindings.get(self.text(v)).is_some_and(|list| {
                list.iter()
                    .filter(|b| Some(b.scope) == scope && b.pos <= at)
                    .any(|b| match &b.value {
                        Bound::Expr(e) => self.text(*e).split('(').next() != Some(callee),
                        // An attribute set on it (`config.vnet_name = ...`) keeps its class.
                        Bound::Other(_) => !self
                            .attr_sets
                            .iter()
                            .any(|s| s.pos == b.pos && s.scope == b.scope && s.name == self.text(v)),
                    })
            });
            if other_class {
                let span = self.code.span(v.start_byte(), v.end_byte());
                def.set(
                    "type",
                    Setting::dynamic(self.text(v), why.as_str(), span, Some(span)),
                );
            }
        } else if let Some(v) = through {
            // The statement that assigns the configuration is part of the definition: a
            // suppression beside its values applies (`common::cover_written_before`).
            let mut statement = prov;
            while let Some(p) = statement.parent().filter(|p| {
                matches!(
                    p.kind(),
                    "assignment" | "expression_statement" | "parenthesized_expression"
                )
            }) {
                statement = p;
            }
            def.written_before
                .push(self.code.span(statement.start_byte(), statement.end_byte()));
            let line = self.line_of(prov.start_byte());
            def.notes.push(format!(
                "its settings are those of `{} = {class}.provisioning_configuration(...)` on line {line}",
                self.text(v)
            ));
        }
    }

    /// An attribute set on the SDK v1 configuration `prov` (of `class`) before the call at
    /// `at` that uses it through `use_site` (audit 27, case 04): one of the
    /// `provisioning_configuration` keywords amlint reads is that setting — its value read
    /// when the assignment is in the block of the configuration and the call (straight
    /// text), else unknown (under a condition or in a loop); one of the class's other
    /// attributes changes nothing amlint reads; any other attribute is noted.
    fn attr_set(
        &self,
        set: &AttrSet<'t>,
        class: &str,
        prov: TsNode<'t>,
        use_site: TsNode<'t>,
        at: usize,
        def: &mut ComputeDef,
    ) {
        let (left, attr) = (self.text(set.left), self.text(set.attr));
        let line = self.line_of(set.stmt.start_byte());
        let Some((kwname, path, as_)) = V1_FIELDS.iter().find(|(k, ..)| *k == attr && v1_takes(class, k))
        else {
            if !V1_OTHER_ATTRIBUTES.contains(&attr) {
                def.notes.push(format!(
                    "`{left} = ...` on line {line} is not read: `{attr}` is not an attribute of `{class}.provisioning_configuration(...)` amlint knows"
                ));
            }
            return;
        };
        let use_span = self.code.span(use_site.start_byte(), use_site.end_byte());
        let block = |n: TsNode<'t>| {
            let mut n = n;
            while let Some(p) = n.parent() {
                if matches!(p.kind(), "block" | "module") {
                    return Some(p);
                }
                n = p;
            }
            None
        };
        let straight =
            block(set.stmt).is_some_and(|b| b.start_byte() <= prov.start_byte() && at < b.end_byte());
        if !straight {
            let key = Some(self.code.span(set.attr.start_byte(), set.attr.end_byte()));
            def.set(
                path,
                Setting::dynamic(
                    self.text(set.value),
                    format!("`{left}` is set under a condition or in a loop (line {line})"),
                    use_span,
                    key,
                ),
            );
            return;
        }
        let mut notes = Vec::new();
        let Some(mut s) = self.setting(set.value, set.attr, set.stmt.start_byte(), *as_, &mut notes) else {
            def.notes.append(&mut notes);
            return;
        };
        def.notes.append(&mut notes);
        if *path == "size" && empty_size(&s, kwname, &mut def.notes) {
            def.fields.retain(|(p, _)| p != "size");
            return;
        }
        let origin = s
            .in_place
            .then_some(s.span)
            .or(s.origin)
            .or(s.value.is_some().then_some(s.span));
        s.span = use_span;
        if s.value.is_some() {
            s.written = self.text(use_site).to_string();
        }
        s.in_place = false;
        s.origin = origin;
        def.set(path, s);
        let statement = set.stmt.parent().filter(|p| p.kind() == "expression_statement");
        let statement = statement.unwrap_or(set.stmt);
        def.written_before
            .push(self.code.span(statement.start_byte(), statement.end_byte()));
    }

    pub(super) fn line_of(&self, pos: usize) -> usize {
        let off = self.code.file_offset(pos, false);
        self.file[..off.min(self.file.len())]
            .bytes()
            .filter(|&c| c == b'\n')
            .count()
            + 1
    }

    /// The binding of `name` a use at `pos` sees: the nearest assignment before it in its
    /// function (then the enclosing functions' and the module's).
    pub(super) fn resolve(&self, name: &str, pos: usize) -> Option<&Binding<'t>> {
        let list = self.bindings.get(name)?;
        let mut scope = self.scope_at(pos);
        loop {
            if let Some(b) = list.iter().rev().find(|b| b.scope == scope && b.pos <= pos) {
                return Some(b);
            }
            match scope {
                Some(f) => scope = self.funcs[f].parent,
                None => return None,
            }
        }
    }

    // -----------------------------------------------------------------------------------
    // Settings and evaluation

    pub(super) fn name_setting(
        &self,
        value: TsNode<'t>,
        key: TsNode<'t>,
        at: usize,
        notes: &mut Vec<String>,
    ) -> Setting {
        self.name_setting_at(value, Some(key), at, notes)
    }

    pub(super) fn name_setting_at(
        &self,
        value: TsNode<'t>,
        key: Option<TsNode<'t>>,
        at: usize,
        notes: &mut Vec<String>,
    ) -> Setting {
        let key_span = key.map(|k| self.code.span(k.start_byte(), k.end_byte()));
        let s = self.setting(value, key.unwrap_or(value), at, iac::As::Text, notes);
        let mut s = s.unwrap_or_else(|| {
            Setting::dynamic(
                self.text(value),
                "the name is `None`",
                self.code.span(value.start_byte(), value.end_byte()),
                key_span,
            )
        });
        s.key = key_span;
        if s.value
            .as_ref()
            .and_then(Scalar::as_str)
            .is_some_and(str::is_empty)
        {
            s = Setting::dynamic(&s.written, "the name is empty", s.span, key_span);
        }
        s
    }

    /// The setting a keyword argument makes (`None` when its value is `None`).
    pub(super) fn setting(
        &self,
        v: TsNode<'t>,
        key: TsNode<'t>,
        at: usize,
        as_: iac::As,
        notes: &mut Vec<String>,
    ) -> Option<Setting> {
        let val = self.eval(v, at, 0);
        if let Some(n) = val.note.as_ref().filter(|n| !notes.contains(n)) {
            notes.push(n.clone());
        }
        let span = self.code.span(v.start_byte(), v.end_byte());
        let key = Some(self.code.span(key.start_byte(), key.end_byte()));
        let (span, literal) = match self.plain_literal(v) {
            Some(inner) => (inner, Some(inner)),
            None if v.kind() == "string" => (self.string_inner(v), None),
            None if matches!(v.kind(), "integer" | "true" | "false") => (span, self.exact(v)),
            None => (span, None),
        };
        let leaf = iac::Leaf {
            span,
            written: self
                .file
                .get(span.range())
                .unwrap_or_else(|| self.text(v))
                .to_string(),
            val,
            literal,
        };
        iac::setting_of(&leaf, key, as_)
    }

    /// The span in the file of a node whose file text is exactly its code text.
    pub(super) fn exact(&self, n: TsNode<'t>) -> Option<Span> {
        let s = self.code.span(n.start_byte(), n.end_byte());
        (self.file.get(s.range()) == Some(self.text(n))).then_some(s)
    }

    /// A string's text between its quotes, in the file.
    pub(super) fn string_inner(&self, n: TsNode<'t>) -> Span {
        let (a, z) = string_bounds(n);
        self.code.span(a, z)
    }

    /// For a plain string literal (no prefix, escape or interpolation) whose text in the
    /// file is its value: the span of that text.
    pub(super) fn plain_literal(&self, n: TsNode<'t>) -> Option<Span> {
        if n.kind() != "string" {
            return None;
        }
        let start = n.child(0)?;
        let prefix = self.text(start).trim_end_matches(['\'', '"']);
        if !prefix.is_empty() {
            return None;
        }
        let (a, z) = string_bounds(n);
        let inner = &self.src[a..z];
        if inner.contains('\\') {
            return None;
        }
        let span = self.code.span(a, z);
        (self.file.get(span.range()) == Some(inner)).then_some(span)
    }

    /// The value of an expression used at `at`.
    pub(super) fn eval(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        if depth > MAX_DEPTH {
            return Ev::unknown("the expression is nested too deeply");
        }
        match n.kind() {
            "string" => self.string(n, at, depth),
            "concatenated_string" => {
                let mut pieces = Vec::new();
                let mut parts = Vec::new();
                let mut c = n.walk();
                for s in n.named_children(&mut c) {
                    let v = self.eval(s, at, depth + 1);
                    pieces.extend(v.pieces());
                    parts.push(v);
                }
                iac::carry(iac::join(pieces), &parts)
            }
            "integer" => match self.text(n).replace('_', "").parse::<i64>() {
                Ok(i) => Ev::int(i).with_origin(self.exact(n)),
                Err(_) => Ev::unknown(format!("`{}` is not an integer amlint reads", self.text(n))),
            },
            "true" => Ev::boolean(true).with_origin(self.exact(n)),
            "false" => Ev::boolean(false).with_origin(self.exact(n)),
            "none" => Ev::new(V::Null),
            "parenthesized_expression" => match n.named_child(0) {
                Some(inner) => self.eval(inner, at, depth + 1),
                None => Ev::unknown("empty parentheses"),
            },
            "identifier" => self.identifier(self.text(n), at, depth),
            "binary_operator" => self.binary(n, at, depth),
            "boolean_operator" => self.or_default(n, at, depth),
            "conditional_expression" => self.conditional(n, at, depth),
            "call" => self.call(n, at, depth),
            "attribute" => match cluster_purpose_constant(self.text(n)) {
                Some(purpose) => Ev::text(purpose),
                None => self.attribute(n, at, depth),
            },
            "subscript" => self.subscript(n, at, depth),
            "dictionary" => self.dictionary(n, at, depth),
            "list" | "tuple" => {
                let mut c = n.walk();
                let items: Vec<TsNode<'t>> = n
                    .named_children(&mut c)
                    .filter(|i| i.kind() != "comment")
                    .collect();
                if items.len() > MAX_LITERAL_ITEMS || items.iter().any(|i| i.kind().ends_with("splat")) {
                    return self.unread(n);
                }
                Ev::new(V::List(
                    items.iter().map(|i| self.eval(*i, at, depth + 1)).collect(),
                ))
            }
            "unary_operator" => match (
                n.child(0).map(|o| self.text(o)),
                n.named_child(0).map(|x| self.eval(x, at, depth + 1).v),
            ) {
                (Some("-"), Some(V::Int(i))) => Ev::int(i.saturating_neg()),
                _ => self.unread(n),
            },
            _ => self.unread(n),
        }
    }

    #[inline(never)]
    pub(super) fn unread(&self, n: TsNode<'t>) -> Ev {
        Ev::unknown(format!("`{}` is not evaluated statically", self.text(n)))
    }

    /// A string literal (escapes decoded; an f-string's fields evaluated).
    pub(super) fn string(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let Some(start) = n.child(0) else {
            return self.unread(n);
        };
        let prefix = self
            .text(start)
            .trim_end_matches(['\'', '"'])
            .to_ascii_lowercase();
        let raw = prefix.contains('r');
        if prefix.contains('b') {
            return Ev::unknown(format!("`{}` is bytes, not a string", self.text(n)));
        }
        let fstring = prefix.contains('f');
        let mut pieces = Vec::new();
        let mut fields = Vec::new();
        let mut c = n.walk();
        for child in n.children(&mut c) {
            match child.kind() {
                "string_content" => {
                    let t = self.text(child);
                    let t = if raw { t.to_string() } else { unescape(t) };
                    let t = if fstring {
                        t.replace("{{", "{").replace("}}", "}")
                    } else {
                        t
                    };
                    pieces.push(Part::Text(t));
                }
                "interpolation" => {
                    if child.child_by_field_name("format_specifier").is_some()
                        || child.child_by_field_name("type_conversion").is_some()
                    {
                        pieces.push(Part::Unknown(format!(
                            "`{}` has a format specification",
                            self.text(child)
                        )));
                        continue;
                    }
                    match child.child_by_field_name("expression") {
                        Some(e) => {
                            let v = self.eval(e, at, depth + 1);
                            pieces.extend(v.pieces());
                            fields.push(v);
                        }
                        None => pieces.push(Part::Unknown("an empty f-string field".into())),
                    }
                }
                _ => {}
            }
        }
        let v = iac::carry(iac::join(pieces), &fields);
        v.with_origin(self.plain_literal(n))
    }

    /// A name at `at`: its nearest assignment, a parameter's default, or unknown.
    pub(super) fn identifier(&self, name: &str, at: usize, depth: usize) -> Ev {
        let scope = self.scope_at(at);
        // A parameter of the function around the use, not assigned before it there.
        if let Some(f) = scope {
            let assigned = self
                .bindings
                .get(name)
                .is_some_and(|l| l.iter().any(|b| b.scope == Some(f) && b.pos <= at));
            if !assigned {
                if let Some((_, default)) = self.funcs[f].params.iter().find(|(p, _)| p == name) {
                    let fname = &self.funcs[f].name;
                    return match default {
                        Some(d) => {
                            let v = self.eval(*d, d.start_byte(), depth + 1);
                            v.with_note(Some(format!(
                                "`{name}` is the default of `{fname}()`'s parameter"
                            )))
                        }
                        None => Ev::unknown(format!(
                            "`{name}` is a parameter of `{fname}()`, set by its callers"
                        )),
                    };
                }
            }
        }
        match self.resolve(name, at) {
            Some(Binding {
                value: Bound::Expr(e),
                pos,
                scope,
            }) => {
                if depth > MAX_DEPTH {
                    return Ev::unknown("the expression is nested too deeply");
                }
                if let Some(why) = self.branch_dependent(name, *e, *pos, *scope, at) {
                    return Ev::unknown(why);
                }
                // The value as of the assignment (names it uses resolve before it), once.
                if let Some(v) = self.memo.borrow().get(&e.id()) {
                    return v.clone();
                }
                let v = self.eval(*e, (*pos).min(e.start_byte()), depth + 1);
                self.memo.borrow_mut().insert(e.id(), v.clone());
                v
            }
            Some(Binding {
                value: Bound::Other(why),
                pos,
                ..
            }) => match self
                .import_stmts
                .contains(pos)
                .then(|| self.imported_name(name))
                .flatten()
            {
                Some(v) => v,
                None => Ev::unknown(why.clone()),
            },
            None => match name {
                "True" => Ev::boolean(true),
                "False" => Ev::boolean(false),
                "None" => Ev::new(V::Null),
                _ => self
                    .star_imported(name)
                    .unwrap_or_else(|| Ev::unknown(format!("`{name}` is not assigned in this file"))),
            },
        }
    }

    /// The value of `name` that `from m import name` (or `... as name`) takes from a
    /// module of the project: the value its top level gives it ([`Constants`]), noted with
    /// where. `None` when the module is not a file of the project (a package), or the
    /// name is not one it assigns.
    fn imported_name(&self, name: &str) -> Option<Ev> {
        self.imported_entry(name, "")
    }

    /// [`Module::imported_name`] of the module's table entry for the name taken, followed
    /// by `suffix` (`()`: what the function returns, [`constants_of`]).
    fn imported_entry(&self, name: &str, suffix: &str) -> Option<Ev> {
        let (_, module, taken) = self.imported.iter().rev().find(|(local, ..)| local == name)?;
        let taken = taken.as_deref()?;
        self.module_value(module, &format!("{taken}{suffix}"), &format!("{name}{suffix}"))
    }

    /// What calling `name`, a function this file defines at its top level (not a name
    /// bound otherwise where it is called), without arguments returns
    /// ([`Module::returned`]); `None` when it is not such a function.
    fn own_function_returns(&self, name: &str, at: usize, depth: usize) -> Option<Ev> {
        // A name assigned or imported where it is called is not the function (functions
        // are in the order they start).
        if self
            .resolve(name, at)
            .is_some_and(|b| self.funcs.binary_search_by_key(&b.pos, |f| f.start).is_err())
        {
            return None;
        }
        Some(self.returned(*self.top_functions().get(name)?, depth))
    }

    /// The last function of each name the module defines at its top level (not a
    /// method): the one a call sees once the module has run.
    pub(super) fn top_functions(&self) -> &HashMap<String, usize> {
        self.top_funcs.get_or_init(|| {
            (self.funcs.iter().enumerate())
                .filter(|(_, f)| f.parent.is_none() && f.method.is_none())
                .map(|(i, f)| (f.name.clone(), i))
                .collect()
        })
    }

    /// What the function `f` returns when called without arguments (its parameters
    /// their defaults): the value of its one `return` (or of each, when they all agree),
    /// evaluated where it is written. Unknown, with why, for a generator, a function
    /// without a `return` of a value, returns that differ or are not known, and a
    /// recursive call.
    pub(super) fn returned(&self, f: usize, depth: usize) -> Ev {
        let func = &self.funcs[f];
        let name = &func.name;
        if depth > MAX_DEPTH {
            return Ev::unknown("the expression is nested too deeply");
        }
        if let Some((p, _)) = func
            .params
            .iter()
            .find(|(p, d)| d.is_none() && !p.starts_with('*'))
        {
            return Ev::unknown(format!("`{name}()` needs its parameter `{p}`"));
        }
        if self.returning.borrow().contains(&f) {
            return Ev::unknown(format!("`{name}()` calls itself"));
        }
        if let Some(v) = self.memo.borrow().get(&func.node.id()) {
            return v.clone();
        }
        let v = match self.returns_of(func.node) {
            Err(why) => Ev::unknown(format!("`{name}()` {why}")),
            Ok(returns) => {
                self.returning.borrow_mut().push(f);
                let mut values = returns.iter().map(|r| self.eval(*r, r.start_byte(), depth + 1));
                let first = values.next().unwrap_or_else(|| Ev::new(V::Null));
                let agree = values.all(|v| v.v == first.v);
                self.returning.borrow_mut().retain(|g| *g != f);
                if agree {
                    first
                } else {
                    Ev::unknown(format!("`{name}()` returns different values"))
                }
            }
        };
        self.memo.borrow_mut().insert(func.node.id(), v.clone());
        v
    }

    /// The expressions the `return` statements of the function `def` give (not those of
    /// the functions, classes and lambdas it holds); `Err` says why it returns nothing
    /// amlint reads: a `yield` (a generator), no `return` of a value, or more than
    /// [`MAX_RETURNS`].
    fn returns_of(&self, def: TsNode<'t>) -> Result<Vec<TsNode<'t>>, &'static str> {
        let body = def.child_by_field_name("body").ok_or("has no body")?;
        let mut out = Vec::new();
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "function_definition" | "class_definition" | "lambda" => continue,
                "yield" => return Err("is a generator"),
                "return_statement" => {
                    if out.len() == MAX_RETURNS {
                        return Err("has too many `return` statements");
                    }
                    match n.named_child(0) {
                        Some(e) => out.push(e),
                        None => return Err("returns `None` (a bare `return`)"),
                    }
                    continue;
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        if out.is_empty() {
            return Err("returns no value");
        }
        Ok(out)
    }

    /// A name no statement of the file binds, which a `from m import *` of a module of the
    /// project may (the last such module that assigns it).
    fn star_imported(&self, name: &str) -> Option<Ev> {
        self.star
            .iter()
            .rev()
            .find_map(|m| self.module_value(m, name, name))
    }

    /// The value the top level of the project's module `module` gives `taken` (written
    /// `shown` here), detached from that file's spans and noted with where it is set.
    fn module_value(&self, module: &str, taken: &str, shown: &str) -> Option<Ev> {
        let (files, path) = self.load.filter(|_| self.follow_imports)?;
        let (file, display) = super::paths::find_module(module, path, self.sys_path(files, path), files)?;
        let table = constants_of(files, &file, &display);
        let (v, line) = table.get(taken)?;
        let whence = if !taken.ends_with("()") {
            format!("`{shown}` is set in {display}:{line}")
        } else if v.why().is_none() {
            format!("`{shown}` returns it ({display}:{line})")
        } else {
            return Some(v.clone());
        };
        Some(detached(v.clone(), &whence))
    }

    /// `X.attr`: an attribute of a class of this file (`Settings.VM_SIZE`), of an
    /// instance of one made without `__init__` (a dataclass's keyword or field default),
    /// or a name of an imported module of the project (`config.VM_SIZE`, `import config
    /// as c`); anything else is read at run time.
    fn attribute(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let run_time = || Ev::unknown(format!("`{}` is read at run time", self.text(n)));
        let (Some(obj), Some(attr)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("attribute"),
        ) else {
            return run_time();
        };
        if obj.kind() != "identifier" {
            return run_time();
        }
        let (o, a) = (self.text(obj), self.text(attr));
        match self.resolve(o, at) {
            // A class of the module (classes bind no name here).
            None => {
                if let Some(c) = self.classes.get(o).filter(|c| c.pos <= at) {
                    return self.class_attribute(c, o, a, depth);
                }
                run_time()
            }
            Some(Binding {
                value: Bound::Expr(e),
                ..
            }) => {
                let e = *e;
                if self.parses_arguments(e) {
                    return self.option_default(a, self.text(n), depth);
                }
                let Some(f) = (e.kind() == "call")
                    .then(|| e.child_by_field_name("function"))
                    .flatten()
                    .filter(|f| f.kind() == "identifier")
                else {
                    return run_time();
                };
                let cname = self.text(f);
                let (pos, kw) = self.args(e);
                let bare = pos.is_empty() && kw.is_empty();
                let made = |dataclass: bool, init: bool, init_bare: bool, fields: &[&str]| -> Option<Ev> {
                    if (init && !(bare && init_bare)) || !(init || dataclass || bare) {
                        return Some(Ev::unknown(format!(
                            "`{}` is set when `{}` is made",
                            self.text(n),
                            self.text(e)
                        )));
                    }
                    if dataclass {
                        if let Some((_, _, v)) = kw.iter().find(|(k, ..)| *k == a) {
                            return Some(self.eval(*v, e.start_byte(), depth + 1));
                        }
                        if let Some(p) = fields.iter().position(|k| *k == a).and_then(|i| pos.get(i)) {
                            return Some(self.eval(*p, e.start_byte(), depth + 1));
                        }
                    }
                    None
                };
                if let Some(c) = self.classes.get(cname) {
                    let fields: Vec<&str> = c.attrs.iter().map(|(k, _)| *k).collect();
                    return made(c.dataclass, c.init, c.init_bare, &fields)
                        .unwrap_or_else(|| self.made_attribute(c, cname, a, depth));
                }
                if let Some((classes, class)) = self.imported_class(cname, e.start_byte())
                    && let Some(t) = classes.get(class)
                {
                    let fields: Vec<&str> = t.fields.iter().map(String::as_str).collect();
                    return made(t.dataclass, t.init, t.init_bare, &fields).unwrap_or_else(|| {
                        t.values.get(a).cloned().unwrap_or_else(|| {
                            Ev::unknown(format!(
                                "an instance of the class `{cname}` has no `{a}` set when made"
                            ))
                        })
                    });
                }
                run_time()
            }
            Some(Binding {
                value: Bound::Other(why),
                pos,
                ..
            }) => {
                if self.import_stmts.contains(pos) {
                    // `import config`, `import pkg.config as c`, `from pkg import config`.
                    if let Some((_, module, taken)) =
                        self.imported.iter().rev().find(|(local, ..)| local == o)
                    {
                        let module = match taken {
                            Some(t) => format!("{module}.{t}"),
                            None => module.clone(),
                        };
                        if let Some(v) = self.module_value(&module, a, self.text(n)) {
                            return v;
                        }
                    }
                }
                Ev::unknown(format!("`{}` is read at run time: {why}", self.text(n)))
            }
        }
    }

    /// Whether `e` is what argparse's `parse_args()` returns: `parser.parse_args()`, or a
    /// call of a function of this file that returns it (`args = get_args()`).
    fn parses_arguments(&self, e: TsNode<'t>) -> bool {
        let Some(f) = (e.kind() == "call")
            .then(|| e.child_by_field_name("function"))
            .flatten()
        else {
            return false;
        };
        match f.kind() {
            "attribute" => f
                .child_by_field_name("attribute")
                .is_some_and(|a| self.text(a) == "parse_args"),
            "identifier" => {
                let name = self.text(f);
                self.funcs.iter().any(|g| {
                    g.name == name
                        && g.parent.is_none()
                        && self
                            .src
                            .get(g.start..g.end)
                            .is_some_and(|body| body.contains(".parse_args("))
                })
            }
            _ => false,
        }
    }

    /// The default of the command-line option whose destination is `dest`
    /// (`parser.add_argument("--vm-size", default="Standard_NC6")` for `args.vm_size`),
    /// noted: the value when the script's command line does not give it. Not known when
    /// the file adds no such option, adds it twice with different defaults, or it has none.
    fn option_default(&self, dest: &str, shown: &str, depth: usize) -> Ev {
        let mut values: Vec<Ev> = Vec::new();
        for (_, flag, call) in self.options().iter().filter(|(d, ..)| d == dest) {
            let (call, flag) = (*call, flag.as_str());
            let (pos, kw) = self.args(call);
            let word = |k: &str| kw.iter().find(|(n, ..)| *n == k).map(|(_, _, v)| *v);
            let text_of = |k: &str| word(k).and_then(|v| self.eval(v, v.start_byte(), depth + 1).known_str());
            let line = self.line_of(call.start_byte());
            let typed = |v: Ev| {
                // argparse gives a string to the option's `type`.
                let int = word("type").is_some_and(|t| self.text(t) == "int");
                match v.known_str().and_then(|s| s.trim().parse::<i64>().ok()) {
                    Some(i) if int => Ev::int(i),
                    _ => v,
                }
            };
            // The value the command line running the file gives the option.
            if let Some(words) = &self.cli {
                let flags: Vec<String> = pos
                    .iter()
                    .filter_map(|p| self.eval(*p, p.start_byte(), depth + 1).known_str())
                    .filter(|f| f.starts_with('-'))
                    .collect();
                if let Some(v) = given_option(words, &flags, text_of("action").as_deref()) {
                    let v = match v {
                        Ok(v) => typed(v).with_note(Some(format!(
                            "given to the command-line option `{flag}` (line {line}) by the command that runs the file"
                        ))),
                        Err(why) => Ev::unknown(format!(
                            "`{shown}` is the command-line option `{flag}` (line {line}), which the command that runs the file gives a value not known: {why}"
                        )),
                    };
                    values.push(v);
                    continue;
                }
            }
            let v = match (word("default"), text_of("action").as_deref()) {
                (Some(d), _) => typed(self.eval(d, d.start_byte(), depth + 1)),
                (None, Some("store_true")) => Ev::boolean(false),
                (None, Some("store_false")) => Ev::boolean(true),
                _ => Ev::unknown(format!(
                    "`{shown}` is the command-line option `{flag}` (line {line}), which has no default"
                )),
            };
            values.push(if v.why().is_some() {
                v
            } else {
                v.with_note(Some(format!(
                    "the default of the command-line option `{flag}` (line {line})"
                )))
            });
        }
        match values.as_slice() {
            [] => Ev::unknown(format!(
                "`{shown}` is read from the command line, and this file adds no option for it"
            )),
            [v] => v.clone(),
            [first, rest @ ..] if rest.iter().all(|v| v.v == first.v) => first.clone(),
            _ => Ev::unknown(format!(
                "`{shown}` is an option this file adds more than once, with different defaults"
            )),
        }
    }

    /// The command-line options the file adds (`x.add_argument(...)`), each with its
    /// destination, its flag as shown and the call: found once per file, however many
    /// `args.x` it reads. An option whose flags are being read reads none (a flag written
    /// as `args.x` of another option).
    fn options(&self) -> Options<'t> {
        if let Some(known) = self.options.borrow().as_ref() {
            return known.clone();
        }
        if self.reading_options.replace(true) {
            return Default::default();
        }
        let mut out = Vec::new();
        for &call in &self.calls {
            let adds = call
                .child_by_field_name("function")
                .filter(|f| f.kind() == "attribute")
                .and_then(|f| f.child_by_field_name("attribute"))
                .is_some_and(|a| self.text(a) == "add_argument");
            if !adds {
                continue;
            }
            let (pos, kw) = self.args(call);
            let known = |v: TsNode<'t>| self.eval(v, v.start_byte(), 1).known_str();
            let flags: Vec<String> = pos.iter().filter_map(|p| known(*p)).collect();
            // argparse's destination: `dest=`, else the first long option, else the first
            // one, its leading dashes dropped and the others made `_`.
            let flag = flags.iter().find(|f| f.starts_with("--")).or(flags.first());
            let derived = flag.map(|f| f.trim_start_matches('-').replace('-', "_"));
            let explicit = kw
                .iter()
                .find(|(n, ..)| *n == "dest")
                .and_then(|(_, _, v)| known(*v));
            if let Some(dest) = explicit.or(derived) {
                let shown = flag.cloned().unwrap_or_else(|| dest.clone());
                out.push((dest, shown, call));
            }
        }
        let out = std::rc::Rc::new(out);
        *self.options.borrow_mut() = Some(out.clone());
        out
    }

    /// `attr` of an instance of the class `c` made without arguments: a property that
    /// returns `self.x` reads `x`; then what `__init__` assigns it, then the class body.
    fn made_attribute(&self, c: &Class<'t>, cname: &str, attr: &str, depth: usize) -> Ev {
        match self.made_value(c, attr) {
            Some(v) => self.eval(v, v.start_byte(), depth + 1),
            None => Ev::unknown(format!(
                "the class `{cname}` sets no `{attr}` in its body or `__init__`"
            )),
        }
    }

    /// The expression [`Module::made_attribute`] evaluates.
    fn made_value(&self, c: &Class<'t>, attr: &str) -> Option<TsNode<'t>> {
        let attr = (c.properties.iter().rev())
            .find(|(p, _)| *p == attr)
            .map_or(attr, |(_, x)| *x);
        (c.init_attrs.iter().rev().chain(c.attrs.iter().rev()))
            .find(|(k, _)| *k == attr)
            .map(|(_, v)| *v)
    }

    /// The class `local` names at `at` when it is imported from a module of the project
    /// (`from ml_service.util.env_variables import Env`), as that module defines it
    /// ([`Module::class_module`]).
    fn imported_class(&self, local: &str, at: usize) -> Option<(Arc<Classes>, &str)> {
        let b = self.resolve(local, at)?;
        if !self.import_stmts.contains(&b.pos) {
            return None;
        }
        let (_, module, taken) = self.imported.iter().rev().find(|(l, ..)| l == local)?;
        Some((self.class_module(module)?, taken.as_deref()?))
    }

    /// The classes of the project's module `module`, read once per file. Read alone, a
    /// file shares them with every other file (`Files::derived`); read as a run gives it
    /// an environment (`os.environ.get` in the class), this file reads them itself,
    /// within its run's budget of bytes. At most [`MAX_CLASS_MODULES`] modules.
    fn class_module(&self, module: &str) -> Option<Arc<Classes>> {
        if let Some((_, c)) = self.class_modules.borrow().iter().find(|(m, _)| m == module) {
            return c.clone();
        }
        if self.class_modules.borrow().len() >= MAX_CLASS_MODULES {
            return None;
        }
        let read = || {
            let (files, path) = self.load.filter(|_| self.follow_imports)?;
            let (file, display) = super::paths::find_module(module, path, self.sys_path(files, path), files)?;
            match self.env {
                None => Some(files.derived(&file, "python-classes", || {
                    classes_of(files, &file, &display, None)
                })),
                Some(env) => {
                    let budget = self.run_budget?;
                    let len = files.read(&file, &display)?.text.len();
                    budget.set(budget.get().checked_sub(len.max(1))?);
                    Some(Arc::new(classes_of(files, &file, &display, Some(env))))
                }
            }
        };
        let classes = read();
        (self.class_modules.borrow_mut()).push((module.to_string(), classes.clone()));
        classes
    }

    /// The value the body of the class `c` (named `cname`) assigns `attr`.
    fn class_attribute(&self, c: &Class<'t>, cname: &str, attr: &str, depth: usize) -> Ev {
        match c.attrs.iter().rev().find(|(k, _)| *k == attr) {
            Some((_, v)) => self.eval(*v, v.start_byte(), depth + 1),
            None => Ev::unknown(format!("the class `{cname}` assigns no `{attr}` in its body")),
        }
    }

    /// A dict literal whose keys are known strings (a `**` inside, or a key not known,
    /// makes it not known).
    fn dictionary(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let mut c = n.walk();
        let items: Vec<TsNode<'t>> = n
            .named_children(&mut c)
            .filter(|i| i.kind() != "comment")
            .collect();
        if items.len() > MAX_LITERAL_ITEMS {
            return self.unread(n);
        }
        let mut entries = Vec::with_capacity(items.len());
        for pair in items {
            let (Some(k), Some(v)) = (pair.child_by_field_name("key"), pair.child_by_field_name("value"))
            else {
                return self.unread(n);
            };
            match self.eval(k, at, depth + 1).known_str() {
                Some(key) => entries.push((key, self.eval(v, at, depth + 1))),
                None => return self.unread(n),
            }
        }
        Ev::new(V::Map(entries))
    }

    /// Why the value of `name` at `at` depends on which branch ran: its nearest assignment
    /// (`value`, taking effect at `pos`) is inside a block the use is outside of (an `if`,
    /// `elif`, `else`, `try`, `except` or loop body), and another assignment in the same
    /// scope reaches the use too (`if …: x = "a" else: x = "b"`, or a value before the `if`).
    /// An assignment made under a condition with no other is taken as the value.
    pub(super) fn branch_dependent(
        &self,
        name: &str,
        value: TsNode<'t>,
        pos: usize,
        scope: Option<usize>,
        at: usize,
    ) -> Option<String> {
        let mut n = value;
        let block = loop {
            let p = n.parent()?;
            match p.kind() {
                "function_definition" | "class_definition" | "module" | "lambda" => return None,
                "block"
                    if !(p.start_byte() <= at && at < p.end_byte())
                        && p.parent().is_some_and(|g| g.kind() != "with_statement") =>
                {
                    break p;
                }
                _ => n = p,
            }
        };
        let others: Vec<usize> = self
            .bindings
            .get(name)?
            .iter()
            .filter(|b| b.scope == scope && b.pos <= at && b.pos != pos)
            .map(|b| self.line_of(b.pos))
            .collect();
        let last = others.last()?;
        let line = self.line_of(block.start_byte());
        Some(format!(
            "`{name}` is assigned in a branch (line {line}) and also on line {last}: which one the run takes is decided at run time"
        ))
    }

    pub(super) fn binary(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let (Some(l), Some(op), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("operator"),
            n.child_by_field_name("right"),
        ) else {
            return self.unread(n);
        };
        let (lv, rv) = (self.eval(l, at, depth + 1), self.eval(r, at, depth + 1));
        let v = match (self.text(op), &lv.v, &rv.v) {
            ("+", V::Int(a), V::Int(b)) => Ev::int(a.saturating_add(*b)),
            ("-", V::Int(a), V::Int(b)) => Ev::int(a.saturating_sub(*b)),
            ("*", V::Int(a), V::Int(b)) => Ev::int(a.saturating_mul(*b)),
            ("+", V::Str(_), V::Str(_)) => iac::join(lv.pieces().into_iter().chain(rv.pieces())),
            ("%", V::Str(_), _) if lv.why().is_none() && rv.why().is_none() => {
                let args = match &rv.v {
                    V::List(items) if r.kind() == "tuple" => items.clone(),
                    _ => vec![rv.clone()],
                };
                match lv.known_str().and_then(|f| percent_format(&f, &args)) {
                    Some(s) => Ev::text(s),
                    None => self.unread(n),
                }
            }
            _ => match lv.why().or_else(|| rv.why()) {
                Some(w) => Ev::unknown(w),
                None => self.unread(n),
            },
        };
        iac::carry(v, [&lv, &rv])
    }

    /// `x or "default"`: `x` when known to be truthy, else the default (noted).
    pub(super) fn or_default(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let (Some(l), Some(op), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("operator"),
            n.child_by_field_name("right"),
        ) else {
            return self.unread(n);
        };
        if self.text(op) != "or" {
            return self.unread(n);
        }
        let lv = self.eval(l, at, depth + 1);
        match truthy(&lv) {
            Some(true) => lv,
            Some(false) => self.eval(r, at, depth + 1),
            None => {
                let rv = self.eval(r, at, depth + 1);
                let note = format!(
                    "`{}`: the default, as `{}` is not known statically",
                    self.text(n),
                    self.text(l)
                );
                if rv.why().is_some() {
                    rv
                } else {
                    rv.with_note(Some(note))
                }
            }
        }
    }

    /// `a if cond else b`: by the condition when known; `x if x else "default"` is the
    /// default (noted) when `x` is not known.
    pub(super) fn conditional(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let Some([body, cond, alt]) = conditional_parts(n) else {
            return self.unread(n);
        };
        let cv = self.eval(cond, at, depth + 1);
        match truthy(&cv) {
            Some(true) => self.eval(body, at, depth + 1),
            Some(false) => self.eval(alt, at, depth + 1),
            None if self.text(body) == self.text(cond) => {
                let rv = self.eval(alt, at, depth + 1);
                let note = format!(
                    "`{}`: the default, as `{}` is not known statically",
                    self.text(n),
                    self.text(cond)
                );
                if rv.why().is_some() {
                    rv
                } else {
                    rv.with_note(Some(note))
                }
            }
            None => Ev::unknown(format!(
                "`{}` depends on `{}`{}",
                self.text(n),
                self.text(cond),
                cv.why().map(|w| format!(", and {w}")).unwrap_or_default()
            )),
        }
    }

    /// The environment variable `var` as the command running the file sets it (noted so),
    /// when it does ([`Module::env`]).
    fn run_env(&self, var: &str) -> Option<Ev> {
        let v = (self.env?)(var)?;
        Some(v.with_note(Some(format!(
            "the environment variable `{var}` the command running the file sets"
        ))))
    }

    /// `os.environ.get("X", "d")`, `os.getenv("X", "d")`, `str(x)`, `x.lower()`...
    pub(super) fn call(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let Some(f) = n.child_by_field_name("function") else {
            return self.unread(n);
        };
        let callee = self.text(f);
        let (pos, kw) = self.args(n);
        if matches!(callee, "os.environ.get" | "os.getenv" | "environ.get" | "getenv") {
            let var = pos.first().map(|v| {
                self.eval(*v, at, depth + 1)
                    .known_str()
                    .unwrap_or_else(|| self.text(*v).to_string())
            });
            let var = var.unwrap_or_default();
            if let Some(v) = self.run_env(&var) {
                return v;
            }
            let default = pos
                .get(1)
                .copied()
                .or_else(|| kw.iter().find(|(k, ..)| *k == "default").map(|(_, _, v)| *v));
            return match default {
                Some(d) => {
                    let v = self.eval(d, at, depth + 1);
                    if v.why().is_some() || v.is_null() {
                        Ev::unknown(format!(
                            "`{callee}(\"{var}\")` is read from the environment at run time"
                        ))
                    } else {
                        v.with_note(Some(format!("the default of the environment variable `{var}`")))
                    }
                }
                None => Ev::unknown(format!(
                    "`{callee}(\"{var}\")` is read from the environment at run time"
                )),
            };
        }
        if callee == "dict" && pos.is_empty() && self.resolve("dict", at).is_none() {
            if kw.len() > MAX_LITERAL_ITEMS {
                return self.unread(n);
            }
            let entries = kw
                .iter()
                .map(|(k, _, v)| (k.to_string(), self.eval(*v, at, depth + 1)))
                .collect();
            return Ev::new(V::Map(entries));
        }
        if callee == "str" && pos.len() == 1 {
            let v = self.eval(pos[0], at, depth + 1);
            return match v.v {
                V::Str(_) | V::Int(_) => iac::carry(iac::join(v.pieces()), [&v]),
                _ => Ev::unknown(
                    v.why()
                        .unwrap_or_else(|| format!("`{}` is not evaluated", self.text(n))),
                ),
            };
        }
        if callee == "int" && pos.len() == 1 {
            let v = self.eval(pos[0], at, depth + 1);
            return match (&v.v, v.known_str().and_then(|s| s.trim().parse::<i64>().ok())) {
                (V::Int(i), _) => Ev::int(*i),
                (_, Some(i)) => Ev::int(i),
                _ => Ev::unknown(
                    v.why()
                        .unwrap_or_else(|| format!("`{}` is not evaluated", self.text(n))),
                ),
            };
        }
        if f.kind() == "attribute" {
            if let (Some(obj), Some(method)) = (
                f.child_by_field_name("object"),
                f.child_by_field_name("attribute"),
            ) {
                let m = self.text(method);
                if matches!(m, "lower" | "upper" | "strip") && pos.is_empty() {
                    let v = self.eval(obj, at, depth + 1);
                    let g: fn(&str) -> String = match m {
                        "lower" => |s| s.to_lowercase(),
                        "upper" => |s| s.to_uppercase(),
                        _ => |s| s.trim().to_string(),
                    };
                    return match v.known_str() {
                        Some(s) => iac::carry(Ev::text(g(&s)), [&v]),
                        None => Ev::unknown(
                            v.why()
                                .unwrap_or_else(|| format!("`{}` is not evaluated", self.text(n))),
                        ),
                    };
                }
                // `cfg.get("vm_size", "Standard_DS3_v2")` of a mapping known (a loaded
                // configuration file): its value, else the default given, else `None`.
                if m == "get" && kw.is_empty() && matches!(pos.len(), 1 | 2) {
                    let v = self.eval(obj, at, depth + 1);
                    if let V::Map(_) = v.v {
                        let key = self.eval(pos[0], at, depth + 1);
                        return match key.known_str() {
                            Some(k) => match v.member(&k, false) {
                                Some(found) => found.clone(),
                                None => match pos.get(1) {
                                    Some(d) => self.eval(*d, at, depth + 1),
                                    None => Ev::new(V::Null),
                                },
                            },
                            None => Ev::unknown(
                                key.why()
                                    .unwrap_or_else(|| format!("`{}` is not evaluated", self.text(n))),
                            ),
                        };
                    }
                }
                if m == "format" && kw.is_empty() {
                    let fmt = self.eval(obj, at, depth + 1);
                    let args: Vec<Ev> = pos.iter().map(|a| self.eval(*a, at, depth + 1)).collect();
                    return match fmt.known_str() {
                        Some(s) => iac::carry(iac::format_pieces(&s, &args), &args),
                        None => Ev::unknown(
                            fmt.why()
                                .unwrap_or_else(|| format!("`{}` is not evaluated", self.text(n))),
                        ),
                    };
                }
            }
        }
        // `config = load_config()`: a function of this file, or one a `from m import f`
        // takes from a module of the project, called without arguments.
        if f.kind() == "identifier" && pos.is_empty() && kw.is_empty() {
            if let Some(v) = self.own_function_returns(callee, at, depth) {
                return v;
            }
            // Imported where it is called (not assigned since).
            let imported = self
                .resolve(callee, at)
                .is_some_and(|b| self.import_stmts.contains(&b.pos));
            if let Some(v) = imported.then(|| self.imported_entry(callee, "()")).flatten() {
                return v;
            }
        }
        if let Some(format) = loader(callee) {
            return match pos.first() {
                Some(arg) if pos.len() == 1 || callee.ends_with(".load") => {
                    self.loaded(callee, format, *arg, at, depth)
                }
                _ => Ev::unknown(format!("`{}` is computed at run time", self.text(n))),
            };
        }
        Ev::unknown(format!("`{}` is computed at run time", self.text(n)))
    }

    /// Whether `n` is `open(…)`, `Path(…).open()`, or their text read (`.read()`,
    /// `Path(…).read_text()`): a file a loader may be given.
    fn opens_a_file(&self, n: TsNode<'t>) -> bool {
        self.opened(n).is_some()
    }

    /// The path expression of the file `n` opens or reads ([`Self::opens_a_file`]).
    fn opened(&self, n: TsNode<'t>) -> Option<TsNode<'t>> {
        // `open(p).read()`: the call `.read()` is made on (one level: a chain of
        // `.read()`s reads nothing more, and is not followed).
        let mut n = n;
        for _ in 0..2 {
            if n.kind() != "call" {
                return None;
            }
            let f = n.child_by_field_name("function")?;
            let (pos, kw) = self.args(n);
            if matches!(self.text(f), "open" | "io.open" | "codecs.open") {
                return pos
                    .first()
                    .copied()
                    .or_else(|| kw.iter().find(|(k, ..)| *k == "file").map(|(_, _, v)| *v));
            }
            if f.kind() != "attribute" || !pos.is_empty() {
                return None;
            }
            let obj = f.child_by_field_name("object")?;
            match self.text(f.child_by_field_name("attribute")?) {
                "read" => n = obj,
                // `Path(p).open()`, `Path(p).read_text()`.
                "open" | "read_text" if obj.kind() == "call" => {
                    let class = obj.child_by_field_name("function").map(|c| self.text(c))?;
                    let (p, k) = self.args(obj);
                    return (matches!(class, "Path" | "pathlib.Path") && p.len() == 1 && k.is_empty())
                        .then(|| p[0]);
                }
                _ => return None,
            }
        }
        None
    }

    /// What a loader (`yaml.safe_load`, `json.load`; `callee`) returns for the file `arg`
    /// opens: the file of the project it names, parsed, each value noted with where the
    /// file writes it; else unknown, with why. A relative path is one from the directory
    /// Python runs in: the file is looked for from the script's folder up to the project's
    /// root, as a script's files are, and the one found is named in each value's note. A
    /// path made from `__file__` (`os.path.join(os.path.dirname(__file__), "c.yml")`) is
    /// from the script's folder only.
    fn loaded(
        &self,
        callee: &str,
        format: crate::load::Format,
        arg: TsNode<'t>,
        at: usize,
        depth: usize,
    ) -> Ev {
        let mut file = arg;
        // `f` bound by `with open(…) as f` or `f = open(…)`.
        if arg.kind() == "identifier" {
            match self.resolve(self.text(arg), at).map(|b| &b.value) {
                Some(Bound::Expr(e)) if self.opens_a_file(*e) => file = *e,
                Some(Bound::Other(why)) => {
                    return Ev::unknown(format!(
                        "`{callee}()` reads `{}`, and {why}",
                        iac::one_line(self.text(arg))
                    ));
                }
                _ => {}
            }
        }
        let Some(path) = self.opened(file) else {
            return Ev::unknown(format!(
                "`{callee}({})` reads what is not a file amlint opens statically",
                iac::one_line(self.text(arg))
            ));
        };
        self.loaded_path(callee, format, path, at, depth)
    }

    /// What `callee` returns for the file of the project the path expression `path`
    /// names (see [`Self::loaded`]).
    fn loaded_path(
        &self,
        callee: &str,
        format: crate::load::Format,
        path: TsNode<'t>,
        at: usize,
        depth: usize,
    ) -> Ev {
        let from_file = || self.file_relative(path, at, depth);
        let (written, from_script) = match self.script_relative(path, at, depth).or_else(from_file) {
            Some(rest) => (rest, true),
            None => match self.eval(path, at, depth + 1).known_str() {
                Some(p) => (p, false),
                None => {
                    return Ev::unknown(format!(
                        "`{callee}()` reads `{}`, a path not known statically",
                        iac::one_line(self.text(path))
                    ));
                }
            },
        };
        let shown = iac::one_line(&written);
        let unread = |what: &str| Ev::unknown(format!("`{callee}()` reads `{shown}`, {what}"));
        let Some((files, script)) = self.load else {
            return unread("which amlint does not read here");
        };
        let rel = Path::new(&written);
        let drive = written.as_bytes().get(1) == Some(&b':');
        if written.is_empty()
            || rel.is_absolute()
            || drive
            || written.starts_with('~')
            || written.contains('\\')
        {
            return unread("and amlint reads only a file of the project by its relative path");
        }
        let dir = script.parent().unwrap_or(Path::new(""));
        let starts = if from_script {
            vec![dir.to_path_buf()]
        } else {
            files.dirs_up(dir)
        };
        let mut found = starts.iter().filter_map(|s| {
            let c = crate::fsio::normalize(&s.join(rel));
            let display = crate::discover::display_of(&c);
            files.read(&c, &display)
        });
        let first = found.next();
        // Two files of that name along the way, which differ: which one is read depends
        // on the folder Python runs in, which the script does not say.
        if let (Some(a), Some(b)) = (
            &first,
            found.find(|b| first.as_ref().is_some_and(|a| a.text != b.text)),
        ) {
            return unread(&format!(
                "which is both {} and {} (they differ), as Python runs from one folder or another",
                a.path, b.path
            ));
        }
        let Some(src) = first else {
            return unread(if from_script {
                "not found in the script's folder (or not a regular text file of the project under the size limit)"
            } else {
                "not found from the script's folder up to the project's root (or not a regular text file of the project under the size limit)"
            });
        };
        let how = if from_script {
            format!("which `{callee}()` loads")
        } else {
            format!("which `{callee}()` loads when the script runs from that file's folder")
        };
        iac::structured_file(files, &src, format, &how).unwrap_or_else(|why| unread(&why))
    }

    /// The rest of a path made from the script's own folder: `os.path.join(
    /// os.path.dirname(__file__), "a", "b.yml")` (also with `os.path.abspath`,
    /// `os.path.realpath` around `__file__`) is `a/b.yml`.
    fn script_relative(&self, path: TsNode<'t>, at: usize, depth: usize) -> Option<String> {
        if path.kind() != "call" || self.text(path.child_by_field_name("function")?) != "os.path.join" {
            return None;
        }
        let (pos, kw) = self.args(path);
        let (first, rest) = pos.split_first()?;
        let squashed: String = self.text(*first).split_whitespace().collect();
        let here = [
            "__file__",
            "os.path.abspath(__file__)",
            "os.path.realpath(__file__)",
        ]
        .iter()
        .any(|f| squashed == format!("os.path.dirname({f})"));
        if !here || !kw.is_empty() || rest.is_empty() {
            return None;
        }
        let parts: Option<Vec<String>> = rest
            .iter()
            .map(|p| self.eval(*p, at, depth + 1).known_str())
            .collect();
        Some(parts?.join("/"))
    }

    /// The path from the script's folder that `n` builds from `__file__` with pathlib or
    /// `os.path` (`Path(__file__).resolve().parents[2] / "configs" / "config.yaml"`),
    /// through the names it is assigned to and conditional expressions whose condition is
    /// known (`Path(path) if path else DEFAULT` with `path=None`): [`paths::from_file_dir`].
    fn file_relative(&self, mut n: TsNode<'t>, mut at: usize, depth: usize) -> Option<String> {
        for _ in 0..MAX_DEPTH {
            match n.kind() {
                "identifier" => match self.resolve(self.text(n), at)?.value {
                    Bound::Expr(e) => (n, at) = (e, e.start_byte()),
                    Bound::Other(_) => return None,
                },
                "parenthesized_expression" => n = n.named_child(0)?,
                "conditional_expression" => {
                    let [body, cond, alt] = conditional_parts(n)?;
                    n = if truthy(&self.eval(cond, at, depth + 1))? {
                        body
                    } else {
                        alt
                    };
                }
                _ => break,
            }
        }
        let assigned = |name: &str| -> Option<&'t str> {
            match self.resolve(name, at)?.value {
                Bound::Expr(e) => Some(self.text(e)),
                Bound::Other(_) => None,
            }
        };
        super::paths::from_file_dir(self.text(n), &assigned)
    }

    /// The binding name of `d["k"]` (a name indexed by a plain string literal): not a
    /// Python name, so it never meets one.
    fn keyed(&self, n: TsNode<'t>) -> Option<String> {
        let value = n
            .child_by_field_name("value")
            .filter(|v| v.kind() == "identifier")?;
        let index = n
            .child_by_field_name("subscript")
            .filter(|i| i.kind() == "string")?;
        let key = self.plain_literal(index)?;
        Some(format!("{}[{:?}]", self.text(value), self.file.get(key.range())?))
    }

    pub(super) fn subscript(&self, n: TsNode<'t>, at: usize, depth: usize) -> Ev {
        let (Some(value), Some(index)) = (n.child_by_field_name("value"), n.child_by_field_name("subscript"))
        else {
            return self.unread(n);
        };
        if matches!(self.text(value), "os.environ" | "environ") {
            let var = self.eval(index, at, depth + 1).known_str();
            if let Some(v) = var.and_then(|var| self.run_env(&var)) {
                return v;
            }
            return Ev::unknown(format!(
                "`{}` is read from the environment at run time",
                self.text(n)
            ));
        }
        // `d["k"]` after `d["k"] = v`, when nothing but other keys' assignments changed `d`
        // since.
        if let Some(key) = self.keyed(n)
            && let Some(set) = self.resolve(&key, at)
        {
            let since = (self.bindings.get(self.text(value)).into_iter().flatten())
                .filter(|b| b.pos > set.pos && b.pos <= at);
            if since.clone().all(|b| self.keyed_sets.contains(&b.pos)) {
                return self.identifier(&key, at, depth + 1);
            }
        }
        let v = self.eval(value, at, depth + 1);
        let i = self.eval(index, at, depth + 1);
        match v.v {
            // Why what is indexed is not known (a configuration file not read...).
            V::Unknown(_) => Ev::unknown(match v.why() {
                Some(why) => format!("`{}` is not known statically: {why}", self.text(n)),
                None => format!("`{}` is not known statically", self.text(n)),
            }),
            _ => iac::index_of(&v, &i, false),
        }
    }
}

/// The format a loader of configuration files reads (`yaml.safe_load`, `json.load`;
/// `from yaml import safe_load` too).
fn loader(callee: &str) -> Option<crate::load::Format> {
    match callee {
        "yaml.safe_load" | "yaml.load" | "yaml.full_load" | "safe_load" | "full_load" => {
            Some(crate::load::Format::Yaml)
        }
        "json.load" | "json.loads" => Some(crate::load::Format::Json),
        _ => None,
    }
}

/// Whether the assignment `node` is a statement of a class's body (an attribute of the
/// class, not a name of the module or function around it).
fn in_class_body(node: TsNode<'_>) -> bool {
    node.parent()
        .filter(|s| s.kind() == "expression_statement")
        .and_then(|s| s.parent())
        .filter(|b| b.kind() == "block")
        .and_then(|b| b.parent())
        .is_some_and(|c| c.kind() == "class_definition")
}

/// What the top level of a module of the project assigns: each name's value as of the
/// end of the module, with the line of the assignment, computed once per run. The module
/// is read as the checked file is, except that its own imports are not followed.
type Constants = HashMap<String, (Ev, usize)>;

/// The classes of the module `path` (shown as `display`), as instances made elsewhere read
/// them ([`ClassTable`]), with the environment of the run reading them, if any: each
/// attribute of an instance made without arguments, without this file's spans (but those
/// of the environment, in the running file) and noted where it is set. At most
/// [`MAX_CLASSES`] classes and [`MAX_MODULE_NAMES`] attributes in all.
fn classes_of(files: &Files, path: &Path, display: &str, env: Option<&RunEnv<'_>>) -> Classes {
    // The places of the values the run's environment gives: in the running file, kept.
    let given: std::cell::RefCell<Vec<Span>> = Default::default();
    let recorded = |name: &str| {
        let v = env?(name)?;
        given.borrow_mut().extend(v.origin);
        Some(v)
    };
    let env: Option<&RunEnv<'_>> = env.map(|_| &recorded as &RunEnv<'_>);
    read_alone(files, path, display, env, |m, source| {
        let mut out = Classes::new();
        let mut classes: Vec<(&str, &Class<'_>)> = m.classes.iter().map(|(k, c)| (*k, c)).collect();
        classes.sort_by_key(|(_, c)| c.pos);
        let mut budget = MAX_MODULE_NAMES;
        for (class, c) in classes.into_iter().take(MAX_CLASSES) {
            let mut names: Vec<&str> = (c.attrs.iter().chain(&c.init_attrs).map(|(k, _)| *k))
                .chain(c.properties.iter().map(|(p, _)| *p))
                .collect();
            names.sort_unstable();
            names.dedup();
            names.truncate(budget);
            budget -= names.len();
            let mut values = HashMap::new();
            for name in names {
                let Some(node) = m.made_value(c, name) else {
                    continue;
                };
                let v = m.eval(node, node.start_byte(), 0);
                let line = source
                    .position(u32::try_from(node.start_byte()).unwrap_or(u32::MAX))
                    .line;
                let whence = format!("`{class}.{name}` is set in {display}:{line}");
                values.insert(name.to_string(), detached_keeping(v, &whence, &given.borrow()));
            }
            let table = ClassTable {
                dataclass: c.dataclass,
                init: c.init,
                init_bare: c.init_bare,
                fields: c.attrs.iter().map(|(k, _)| k.to_string()).collect(),
                values,
            };
            out.insert(class.to_string(), table);
        }
        out
    })
    .unwrap_or_default()
}

/// The project's module `path` (shown as `display`) parsed alone, its own imports not
/// followed (one file deep), with the environment `env` of a run: what `f` makes of it;
/// `None` when it is not read (not a readable file, beyond the parser's limits).
fn read_alone<T>(
    files: &Files,
    path: &Path,
    display: &str,
    env: Option<&RunEnv<'_>>,
    f: impl FnOnce(&Module<'_>, &crate::source::SourceFile) -> T,
) -> Option<T> {
    let source = files.read(path, display)?;
    let text = source.text.as_str();
    affordable(text).ok()?;
    let code = Code::plain(text);
    let tree = parse(&code)?;
    let mut m = Module::new(&code, tree.root_node(), text);
    m.load = Some((files, path));
    m.follow_imports = false;
    m.env = env;
    Some(f(&m, &source))
}

fn constants_of(files: &Files, path: &Path, display: &str) -> std::sync::Arc<Constants> {
    files.derived(path, "python-constants", || {
        read_alone(files, path, display, None, |m, source| {
            let mut table = Constants::new();
            let end = source.text.len();
            let mut names: Vec<(&String, usize)> = m
                .bindings
                .iter()
                .filter_map(
                    |(name, list)| match list.iter().rev().find(|b| b.scope.is_none())?.value {
                        Bound::Expr(e) => Some((name, e.start_byte())),
                        Bound::Other(_) => None,
                    },
                )
                .collect();
            names.sort_by_key(|(_, pos)| *pos);
            for (name, pos) in names.into_iter().take(MAX_MODULE_NAMES) {
                let v = m.identifier(name, end, 0);
                let line = source.position(u32::try_from(pos).unwrap_or(u32::MAX)).line;
                table.insert(name.clone(), (v, line as usize));
            }
            // What each top-level function returns when called without arguments, as
            // `f()` (`from m import f` … `f()`): the last definition of each name.
            let mut top: Vec<usize> = m.top_functions().values().copied().collect();
            top.sort_unstable();
            for f in top.into_iter().rev().take(MAX_MODULE_NAMES) {
                let func = &m.funcs[f];
                let v = m.returned(f, 0);
                let line = source
                    .position(u32::try_from(func.start).unwrap_or(u32::MAX))
                    .line;
                table.insert(format!("{}()", func.name), (v, line as usize));
            }
            table
        })
        .unwrap_or_default()
    })
}

/// `a if cond else b`'s `[a, cond, b]` (`None`: not of that shape).
fn conditional_parts(n: TsNode<'_>) -> Option<[TsNode<'_>; 3]> {
    let mut c = n.walk();
    let parts: Vec<TsNode<'_>> = (n.named_children(&mut c))
        .filter(|x| x.kind() != "comment")
        .collect();
    parts.try_into().ok()
}

/// A value of another file, without that file's spans (its literals are not in the file
/// that uses it: its findings are where that file uses it), each part noted `whence`
/// (after the note it had: the default of an environment variable...).
fn detached(ev: Ev, whence: &str) -> Ev {
    detached_keeping(ev, whence, &[])
}

/// [`detached`], keeping the places in `kept` (those of the running file).
fn detached_keeping(mut ev: Ev, whence: &str, kept: &[Span]) -> Ev {
    let mut stack: Vec<&mut Ev> = vec![&mut ev];
    while let Some(e) = stack.pop() {
        e.origin = e.origin.filter(|o| kept.contains(o));
        e.note = Some(match e.note.take() {
            Some(n) => format!("{n}; {whence}"),
            None => whence.to_string(),
        });
        match &mut e.v {
            V::List(items) => stack.extend(items.iter_mut()),
            V::Map(entries) => stack.extend(entries.iter_mut().map(|(_, v)| v)),
            _ => {}
        }
    }
    ev
}

/// `format % args` for the conversions `%s`, `%d`, `%i` and `%%` of known strings and
/// integers, each argument used once; `None` for anything else (a mapping key, a width...).
fn percent_format(format: &str, args: &[Ev]) -> Option<String> {
    let mut out = String::new();
    let mut next = args.iter();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '%' => out.push('%'),
            's' => {
                let a = next.next()?;
                match &a.v {
                    V::Int(i) => out.push_str(&i.to_string()),
                    _ => out.push_str(&a.known_str()?),
                }
            }
            'd' | 'i' => match &next.next()?.v {
                V::Int(i) => out.push_str(&i.to_string()),
                _ => return None,
            },
            _ => return None,
        }
    }
    next.next().is_none().then_some(out)
}

/// The rightmost value of `a = b = x`.
pub(super) fn innermost_right(mut n: TsNode<'_>) -> TsNode<'_> {
    while n.kind() == "assignment" {
        match n.child_by_field_name("right") {
            Some(r) => n = r,
            None => break,
        }
    }
    n
}

/// Moves `cursor` to the next node in document order (a node's children before its next
/// sibling); `false` past the last node.
pub(super) fn next_in_order(cursor: &mut tree_sitter::TreeCursor<'_>) -> bool {
    if cursor.goto_first_child() {
        return true;
    }
    loop {
        if cursor.goto_next_sibling() {
            return true;
        }
        if !cursor.goto_parent() {
            return false;
        }
    }
}

/// The identifiers of a pattern (`a`, `a, b`, `(a, [b, c])`).
pub(super) fn collect_identifiers<'t>(n: TsNode<'t>, out: &mut Vec<TsNode<'t>>) {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "identifier" {
            out.push(x);
            continue;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
}

/// A string node's text between its quotes (code offsets).
pub(super) fn string_bounds(n: TsNode<'_>) -> (usize, usize) {
    let count = n.child_count();
    let a = n.child(0).map_or(n.start_byte(), |s| s.end_byte());
    let z = n
        .child(count.saturating_sub(1))
        .filter(|e| e.kind() == "string_end")
        .map_or(n.end_byte(), |e| e.start_byte());
    (a, z.max(a))
}

/// Python's truth of a known value (`None`: not known).
pub(super) fn truthy(v: &Ev) -> Option<bool> {
    if v.why().is_some() {
        return None;
    }
    Some(match &v.v {
        V::Null => false,
        V::Bool(b) => *b,
        V::Int(i) => *i != 0,
        V::Str(_) => !v.known_str().unwrap_or_default().is_empty(),
        V::List(l) => !l.is_empty(),
        V::Map(m) => !m.is_empty(),
        V::Unknown(_) => return None,
    })
}

/// Python's string escapes (`\n`, `\\`, `\'`, `\xHH`, `\uXXXX`...; a line continuation is
/// nothing; an unknown escape stays as written).
pub(super) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('\n') => {}
            Some(k @ ('x' | 'u' | 'U')) => {
                let n = match k {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push('\\');
                        out.push(k);
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}
