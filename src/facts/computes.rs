//! Compute definitions, whatever file defines them: an Azure ML compute YAML, an
//! `az ml compute create` in a script or CI file, the Python SDK, Terraform, Bicep, ARM.
//!
//! A reader (`facts::sources`) turns a file into [`ComputeDef`]s, each value with its exact
//! byte span in the defining file, or recorded *dynamic* with why when it cannot be known
//! statically (never guessed). The project index merges them by name beside the Azure ML
//! YAML ones, and the declarative rules run on every definition: [`ComputeDef::document`]
//! builds a small compute document (kind `amlCompute`, `computeInstance`...) whose nodes
//! carry spans into the defining file, so each rule, output format, suppression and
//! baseline works on it unchanged, and findings land at the option or attribute itself.

use super::idiom::Idiom;
use crate::document::{Document, Entry, Node, NodeId, Style, Value};
use crate::kinds::Kind;
use crate::source::Span;

/// Where a definition is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceKind {
    /// An Azure ML compute YAML (`az ml compute create -f`).
    AmlYaml,
    /// `az ml compute create|attach` (and SDK v1's `az ml computetarget create`) in a
    /// script, a notebook or a CI file, or a template call that runs it.
    AzCli,
    /// The Python SDK (v2 `AmlCompute(...)`, v1 `provisioning_configuration`).
    PythonSdk,
    /// azuremlsdk, the SDK for R (`create_aml_compute(...)`).
    RSdk,
    Terraform,
    Bicep,
    Arm,
}

impl SourceKind {
    /// The name in JSON output and `amlint inventory`: `aml-yaml`, `az-cli`...
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::AmlYaml => "aml-yaml",
            SourceKind::AzCli => "az-cli",
            SourceKind::PythonSdk => "python-sdk",
            SourceKind::RSdk => "r-sdk",
            SourceKind::Terraform => "terraform",
            SourceKind::Bicep => "bicep",
            SourceKind::Arm => "arm",
        }
    }
}

/// A value a definition sets.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Str(String),
    Int(i64),
    Bool(bool),
}

impl Scalar {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// As messages show it.
    pub fn display(&self) -> String {
        match self {
            Scalar::Str(s) => s.clone(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Bool(b) => b.to_string(),
        }
    }
}

/// One setting of a definition: its value (or why it is not known), and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The value; `None` when it cannot be known statically (`why` says why).
    pub value: Option<Scalar>,
    /// Why the value is not known (`$NAME` is set from a command's output...).
    pub why: Option<String>,
    /// The value as written at the definition: the literal, or the expression naming it
    /// (`$SIZE`, `${{ parameters.size }}`, `var.vm_size`).
    pub written: String,
    /// Where `written` is, in the defining file: findings about the value land here.
    pub span: Span,
    /// The option, attribute, argument or key that sets it (`--size`, `vm_size`), if any:
    /// its span in the defining file.
    pub key: Option<Span>,
    /// Where the literal is, when it is not at `span`: a variable assigned a literal
    /// earlier in the same file (shown as a label on findings).
    pub origin: Option<Span>,
    /// `span` holds exactly the literal's text, so a fix may replace it in place.
    pub in_place: bool,
    /// The value comes from another file the definition names (`az ml compute create -f
    /// compute.yml`): that file reports its own findings (the definition repeats only those
    /// about the VM size), `span` is where it is named.
    pub inherited: bool,
}

impl Setting {
    /// A literal written in place: `span` holds exactly `value`'s text.
    pub fn literal(value: Scalar, span: Span, key: Option<Span>) -> Self {
        Setting {
            written: value.display(),
            value: Some(value),
            why: None,
            span,
            key,
            origin: None,
            in_place: true,
            inherited: false,
        }
    }

    /// A value that cannot be known statically, as written at `span`.
    pub fn dynamic(
        written: impl Into<String>,
        why: impl Into<String>,
        span: Span,
        key: Option<Span>,
    ) -> Self {
        Setting {
            value: None,
            why: Some(why.into()),
            written: written.into(),
            span,
            key,
            origin: None,
            in_place: false,
            inherited: false,
        }
    }

    /// The value as text (a string, or a number or boolean as written).
    pub fn text(&self) -> Option<String> {
        self.value.as_ref().map(Scalar::display)
    }
}

/// A keyword argument an Azure ML Python SDK call that defines a compute does not take
/// ([`ComputeDef::refused_keywords`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RefusedKeyword {
    /// The keyword as written (in the call, or as a key of a dict `**` passes).
    pub keyword: String,
    /// Where it is written.
    pub span: Span,
    /// What is called: `AmlCompute` (azure-ai-ml), `AmlCompute.provisioning_configuration`
    /// (azureml-core).
    pub callee: String,
    /// SDK v1's (azureml-core) call, not v2's (azure-ai-ml).
    pub v1: bool,
    /// The keyword it stands for: the other SDK's name of the setting, or a near miss.
    pub suggestion: Option<String>,
}

/// An option `az ml compute create|attach` does not have (`--sizee`): the CLI's parser
/// stops with "unrecognized arguments" and nothing is created
/// ([`ComputeDef::unknown_options`]).
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownOption {
    /// The option as written, without a value given in the same word (`--sizee`).
    pub option: String,
    /// Where it is written.
    pub span: Span,
    /// The command (`az ml compute create`).
    pub command: String,
    /// The closest option the command has, if one is close.
    pub suggestion: Option<String>,
}

/// One compute definition.
#[derive(Clone, Debug, PartialEq)]
pub struct ComputeDef {
    pub source: SourceKind,
    /// The language its settings are written in, as messages name them (`min_node_count`
    /// in Terraform, `min_nodes` in SDK v1): by default the source's.
    pub idiom: Idiom,
    /// The defining file, as displayed.
    pub file: String,
    /// The whole definition in that file: the command, the resource block, the call, the
    /// compute document.
    pub span: Span,
    /// What defines it, for people: `az ml compute create`, `create-compute.yml template`,
    /// `resource "azurerm_machine_learning_compute_cluster"`...
    pub command: String,
    /// The compute's name (dynamic when not known statically).
    pub name: Setting,
    /// The other settings, by their Azure ML YAML path (`type`, `size`, `min_instances`,
    /// `max_instances`, `tier`, `idle_time_before_scale_down`, `enable_node_public_ip`,
    /// `ssh_public_access_enabled`, `network_settings.subnet`...), in the order written.
    pub fields: Vec<(String, Setting)>,
    /// What else a reader wants said about it (a condition around it, a default used).
    pub notes: Vec<String>,
    /// The compute YAML the definition reads its values from (`-f`), as displayed.
    pub from_file: Option<String>,
    /// Text of the definition's file, before its first line, that the definition is
    /// written in: an SDK v1 `config = AmlCompute.provisioning_configuration(...)` that
    /// `ComputeTarget.create(ws, name, config)` takes its values from; an ARM resource's
    /// object up to its `type` member (the definition's line), values included when they
    /// come first. A finding about a value there is reported from the definition's first
    /// line, focused on the value, as one about a value after it; a suppression comment on
    /// one of its lines, or standing above it, covers the definition's first line too
    /// (where its findings are): users write it beside the value they accept.
    pub written_before: Vec<Span>,
    /// The module input the name is, when it is exactly one without a value (a Terraform
    /// `var.x`, a Bicep `param` without a default, in the file read alone): findings name
    /// the compute "the compute that module input `x` names".
    pub name_input: Option<String>,
    /// For a call of a local module (Terraform, Bicep): the definition of the module it
    /// instantiates, by its file (as displayed) and span there.
    pub instance_of: Option<(String, Span)>,
    /// The condition that keeps the compute from being deployed as written, when it is
    /// false (an ARM resource's `condition`, a Bicep resource's `if (...)`): its span in
    /// the definition's file, and what it means (`iac::NEVER_DEPLOYED`,
    /// `iac::FALSE_BY_DEFAULT`; at a Bicep module call's argument that makes the module's
    /// condition false, `iac::ARGUMENT_NEVER_DEPLOYED`, `iac::ARGUMENT_FALSE_BY_DEFAULT`).
    /// Every finding about the compute is labelled there.
    pub false_condition: Option<(Span, &'static str)>,
    /// What the command line of an `az ml compute create` gives that the compute's type
    /// does not have (`--min-instances` on a compute instance), by Azure ML YAML path, at
    /// the option: not a setting of the compute — the CLI builds the compute's YAML from
    /// its options and its type's schema refuses the key ("Unknown field"). Reported
    /// (AML101) at the option ([`ComputeDef::refuse_keys_the_type_lacks`]).
    pub refused: Vec<(String, Setting)>,
    /// The keyword arguments the Azure ML Python SDK's call does not take
    /// (`AmlCompute(vm_size=...)`: SDK v1's name in a v2 class): Python raises `TypeError`
    /// when the call runs. Reported (AML101) at the keyword.
    pub refused_keywords: Vec<RefusedKeyword>,
    /// The options written literally in an `az ml compute create|attach` (CLI v2) that the
    /// command does not have, not even as an unambiguous abbreviation: its parser refuses
    /// them ("unrecognized arguments"). Reported (AML101) at the option.
    pub unknown_options: Vec<UnknownOption>,
    /// The compute YAML the definition reads (`az ml compute create --file c.yml --name X`)
    /// gives no `name:`: the command names the compute, and the findings reported at the
    /// name or falling back to it (AML602; AML702, AML704 about a key neither writes) are
    /// reported at the command's name, since the YAML has none (audit 29, case 03).
    pub names_the_file: bool,
    /// The settings a module call gives through an expression of one of its arguments
    /// (the module writes `node_public_ip_enabled = !var.private_nodes`): reported at the
    /// argument, where a value proposed for the setting is not the argument's own.
    pub derived: Vec<Derived>,
    /// The settings written as an expression that is `null` here (`subnet: environment !=
    /// 'dev' ? { id: subnetId } : null` with `environment` `'dev'`): absent, by their Azure
    /// ML YAML path, with the expression. At a module call, only those the call's arguments
    /// decide: the module read alone may not know them, so the call reports their absence
    /// (audit 30, case 01).
    pub written_null: Vec<(String, String)>,
}

/// A setting a module builds from one argument of its call, and reported at that argument
/// (audit 29, case 01): what a message proposes for the setting is proposed for the
/// argument only through the module's expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// The setting, by its Azure ML YAML path (`enable_node_public_ip`).
    pub path: String,
    /// The module's expression, as written (`!var.private_nodes`).
    pub expression: String,
    /// Whether the setting is the argument's value negated (`!var.x`, `var.x == false`):
    /// `None` when that is not known (any other expression), and no value is proposed for
    /// the argument.
    pub negated: Option<bool>,
}

impl Derived {
    /// Whether the boolean expression `written` (a module's, in its idiom: `prefix` is how
    /// it writes an input: `var.` in Terraform, nothing in Bicep) is the input `input`
    /// itself (`Some(false)`), negated (`Some(true)`: `!var.x`, `var.x == false`, `var.x
    /// != true`), or else (`None`).
    pub fn polarity(written: &str, prefix: &str, input: &str) -> Option<bool> {
        let compact: String = written.chars().filter(|c| !c.is_whitespace()).collect();
        let mut e = compact.as_str();
        let mut negated = false;
        // Parentheses around the whole and `!`s before it: at most `MAX_WRAPS` of them
        // (each test of a pair of parentheses scans what they hold; more is not worked out,
        // so that an expression nested 50,000 deep costs no more than a shallow one).
        const MAX_WRAPS: usize = 32;
        let mut wraps = 0;
        loop {
            wraps += 1;
            if wraps > MAX_WRAPS {
                return None;
            }
            if let Some(inner) = e.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
                if balanced(inner) {
                    e = inner;
                    continue;
                }
            }
            if let Some(rest) = e.strip_prefix('!') {
                negated = !negated;
                e = rest;
                continue;
            }
            break;
        }
        let arg = format!("{prefix}{input}");
        if e == arg {
            return Some(negated);
        }
        let compared = |op: &str| -> Option<bool> {
            let (l, r) = e.split_once(op)?;
            let literal = if l == arg {
                r
            } else if r == arg {
                l
            } else {
                return None;
            };
            match literal {
                "true" => Some(false),
                "false" => Some(true),
                _ => None,
            }
        };
        let equal = compared("==").map(|n| n != negated);
        let differ = compared("!=").map(|n| n == negated);
        equal.or(differ)
    }
}

/// Whether the parentheses of `s` close each one they open, never below zero.
fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// The most entries of a list setting (`schedules.compute_start_stop`) a definition
/// reader reads one by one; a longer list is unknown as a whole. A compute has a few
/// schedules; each entry is a setting, and a hostile file of thousands would cost time
/// quadratic in them (settings are kept in a list and nested per path).
pub const MAX_LIST_ENTRIES: usize = 64;

/// Why a list of `n` entries written `list` is not read one by one, if it is longer than
/// [`MAX_LIST_ENTRIES`] (every reader words it alike).
pub fn too_many_entries(list: &str, n: usize) -> Option<String> {
    (n > MAX_LIST_ENTRIES)
        .then(|| format!("`{list}` has {n} entries, more than the {MAX_LIST_ENTRIES} amlint reads"))
}

/// The settings the policies read, by their Azure ML YAML path: what readers fill in.
pub const FIELDS: &[&str] = &[
    "type",
    "size",
    "min_instances",
    "max_instances",
    "tier",
    "idle_time_before_scale_down",
    "enable_node_public_ip",
    "ssh_public_access_enabled",
    "network_settings.subnet",
    "network_settings.vnet_name",
    "location",
    // An AKS inference cluster's node count and purpose (`FastProd`, `DenseProd`,
    // `DevTest`): outside Azure ML YAML only (SDK v1, ARM, Bicep, Terraform).
    "agent_count",
    "cluster_purpose",
];

impl ComputeDef {
    pub fn new(
        source: SourceKind,
        file: impl Into<String>,
        span: Span,
        command: impl Into<String>,
        name: Setting,
    ) -> Self {
        ComputeDef {
            source,
            idiom: match source {
                SourceKind::AmlYaml => Idiom::Yaml,
                SourceKind::AzCli => Idiom::Cli,
                SourceKind::PythonSdk => Idiom::Python,
                SourceKind::RSdk => Idiom::R,
                SourceKind::Terraform => Idiom::Terraform,
                SourceKind::Bicep => Idiom::Bicep,
                SourceKind::Arm => Idiom::Arm,
            },
            file: file.into(),
            span,
            command: command.into(),
            name,
            fields: Vec::new(),
            notes: Vec::new(),
            from_file: None,
            written_before: Vec::new(),
            name_input: None,
            instance_of: None,
            false_condition: None,
            refused: Vec::new(),
            refused_keywords: Vec::new(),
            unknown_options: Vec::new(),
            names_the_file: false,
            derived: Vec::new(),
            written_null: Vec::new(),
        }
    }

    /// Whether `span` lies in text written before the definition's first line
    /// ([`ComputeDef::written_before`]).
    pub fn written_before_holds(&self, span: Span) -> bool {
        self.written_before
            .iter()
            .any(|w| w.start <= span.start && span.end <= w.end)
    }

    /// The definition's first line in `text` (its file's): from where the definition
    /// starts to the end of that line, trailing blanks left out, within the definition.
    pub fn first_line(&self, text: &str) -> Span {
        let start = self.span.start as usize;
        let rest = text.get(start..self.span.end as usize).unwrap_or_default();
        let line = rest.split(['\n', '\r']).next().unwrap_or_default();
        Span::new(self.span.start, (start + line.trim_end().len()) as u32)
    }

    /// Whether the definition is written outside Azure ML YAML (a script's or workflow's
    /// `az ml compute create`, the Python SDK, Terraform, Bicep, ARM, documentation): it
    /// is checked as its compute document ([`ComputeDef::document`]), at its spans in the
    /// defining file, where an Azure ML compute YAML is checked as itself.
    pub fn outside_yaml(&self) -> bool {
        self.source != SourceKind::AmlYaml
    }

    /// Sets `path` (replacing an earlier setting of it: the last one written wins, as
    /// with a command line's repeated option).
    pub fn set(&mut self, path: &str, setting: Setting) {
        match self.fields.iter_mut().find(|(p, _)| p == path) {
            Some((_, s)) => *s = setting,
            None => self.fields.push((path.to_string(), setting)),
        }
    }

    pub fn get(&self, path: &str) -> Option<&Setting> {
        self.fields.iter().find(|(p, _)| p == path).map(|(_, s)| s)
    }

    /// The name, when known.
    pub fn known_name(&self) -> Option<&str> {
        self.name.value.as_ref()?.as_str()
    }

    /// The compute type as a target type (`amlcompute`, `computeinstance`, `kubernetes`,
    /// `aks`...), lower-case, when known.
    pub fn ctype(&self) -> Option<String> {
        let t = self.get("type")?.value.as_ref()?.as_str()?;
        Some(normalize_type(t))
    }

    /// The VM size, when known.
    pub fn size(&self) -> Option<&str> {
        self.get("size")?.value.as_ref()?.as_str()
    }

    /// The document kind policies check it as (`amlCompute`...), from its type.
    pub fn kind(&self) -> Option<&'static Kind> {
        let id = match self.ctype()?.as_str() {
            "amlcompute" => "amlCompute",
            "computeinstance" => "computeInstance",
            // An AKS inference cluster (SDK v1 `AksCompute`, ARM `AKS`, Terraform's
            // `azurerm_machine_learning_inference_cluster`) is a Kubernetes compute to the
            // CLI v2: its node size is judged like any VM size.
            "kubernetes" | "aks" => "kubernetesCompute",
            "virtualmachine" => "vmCompute",
            "synapsespark" => "synapseSparkCompute",
            _ => return None,
        };
        crate::kinds::table().get(id)
    }

    /// For `az ml compute create`, which turns its options into the keys of the compute's
    /// YAML and loads that with its type's schema: moves each setting the command line
    /// gives (not one read from its `--file`) whose path the type's schema does not have
    /// (`min_instances` on a compute instance) to [`ComputeDef::refused`]; a setting an
    /// expansion not known may give (no option written) is dropped — the compute has no
    /// such key. Nothing when the type is not known statically. Data: the schemas under
    /// `schemas/` say which keys each type has.
    pub fn refuse_keys_the_type_lacks(&mut self) {
        let Some(kind) = self.kind() else {
            return;
        };
        let (keep, lacks): (Vec<_>, Vec<_>) = std::mem::take(&mut self.fields)
            .into_iter()
            .partition(|(p, s)| s.inherited || has_key(&kind.id, p));
        self.fields = keep;
        self.refused = lacks.into_iter().filter(|(_, s)| s.key.is_some()).collect();
    }

    /// For `az ml compute create` without `--size`, `--file` or an expansion not known that
    /// may give either: the size the CLI creates the compute with, when its type's schema
    /// gives one (`default`: the SDK's `STANDARD_DS3_V2`), at `at` (the command's words),
    /// written as nothing and noted. Without it the size would be taken as not known
    /// statically, which agrees with any other definition's.
    pub fn default_size(&mut self, at: Span) {
        if self.get("size").is_some() {
            return;
        }
        let Some(kind) = self.kind() else {
            return;
        };
        let size = crate::schema::describe::describe(&kind.id, &crate::source::Pointer::root().child("size"))
            .and_then(|f| f.default);
        let Some(size) = size else {
            return;
        };
        let mut s = Setting::literal(Scalar::Str(size.clone()), at, None);
        s.written = String::new();
        s.in_place = false;
        self.fields.push(("size".into(), s));
        self.notes.push(format!(
            "no `--size`: the CLI creates it with the default size of {} {}, `{size}`",
            article(&kind.title),
            kind.title
        ));
    }

    /// The compute document policies run on, for a definition outside Azure ML YAML (an
    /// Azure ML compute YAML is its own document) whose type is known. Every node's span
    /// is in the defining file: keys span the option or attribute, values the value as
    /// written. `None` when its kind is not known.
    pub fn document(&self) -> Option<Synthetic> {
        if !self.outside_yaml() {
            return None;
        }
        let kind = self.kind()?;
        let mut b = Builder::default();
        let mut root: Vec<(String, Setting)> = vec![("name".to_string(), self.name.clone())];
        root.extend(self.fields.iter().cloned());
        let root = b.map(&root, self.span);
        let mut doc = Document::default();
        doc.nodes = b.nodes;
        doc.root = Some(root);
        doc.span = self.span;
        let overrides = self.from_file.is_some().then(|| {
            self.fields
                .iter()
                .filter(|(_, s)| !s.inherited)
                .map(|(_, s)| s.span)
                .collect()
        });
        Some(Synthetic {
            doc,
            kind,
            unknown: b.unknown,
            labels: b.labels,
            overrides,
        })
    }
}

/// Whether the schema of `kind` has the key at `path` (dotted; index segments pass): each
/// segment among the keys the schema allows where it is, when the schema says which.
fn has_key(kind: &str, path: &str) -> bool {
    let mut at = crate::source::Pointer::root();
    for segment in path.split('.') {
        if segment.parse::<usize>().is_err() {
            let keys = crate::schema::describe::keys_at(kind, &at, None);
            if !keys.is_empty() && !keys.iter().any(|(k, _)| k == segment) {
                return false;
            }
        }
        at = at.child(segment);
    }
    true
}

/// "a" or "an", for a kind's title.
pub fn article(title: &str) -> &'static str {
    match title.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

/// The lower-case compute type, with the CLI's and ARM's spellings as Azure ML YAML's
/// (`AmlCompute` → `amlcompute`, `ComputeInstance` → `computeinstance`, `Kubernetes` →
/// `kubernetes`, `VirtualMachine` → `virtualmachine`, `SynapseSpark` → `synapsespark`).
/// A VM priority as Azure ML YAML writes it (`dedicated`, `low_priority`), from any of the
/// spellings the SDKs, the REST API and CLI v1 take (`Dedicated`, `LowPriority`,
/// `lowpriority`, `low-priority`); `None` for anything else.
pub fn normalize_tier(t: &str) -> Option<&'static str> {
    match t.to_ascii_lowercase().replace(['_', '-'], "").as_str() {
        "dedicated" => Some("dedicated"),
        "lowpriority" => Some("low_priority"),
        _ => None,
    }
}

pub fn normalize_type(t: &str) -> String {
    let lower = t.trim().to_ascii_lowercase();
    match lower.as_str() {
        "aml_compute" | "amlcompute" => "amlcompute".into(),
        "compute_instance" | "computeinstance" => "computeinstance".into(),
        "virtual_machine" | "virtualmachine" => "virtualmachine".into(),
        "synapse_spark" | "synapsespark" => "synapsespark".into(),
        _ => lower,
    }
}

/// A definition's compute document, and what the checks must know of it.
#[derive(Debug, Clone)]
pub struct Synthetic {
    pub doc: Document,
    pub kind: &'static Kind,
    /// Nodes whose value is not known statically: a condition reading one is unknown
    /// (never a finding), and a VM size there is not judged.
    pub unknown: Vec<NodeId>,
    /// (value node, its span, where the literal is): a finding on a value that came from a
    /// variable gets a label on the literal — only that value's, when settings share the
    /// place they are used at (SDK v1's `config` argument).
    pub labels: Vec<(NodeId, Span, Span)>,
    /// When the definition reads a compute YAML (`-f`): the spans written on the command
    /// line. Findings there are this definition's, and those about the VM size it reads
    /// from the file (where the creation fails); the rest are the YAML's own.
    pub overrides: Option<Vec<Span>>,
}

#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    unknown: Vec<NodeId>,
    labels: Vec<(NodeId, Span, Span)>,
}

impl Builder {
    fn push(&mut self, value: Value, span: Span, style: Style) -> NodeId {
        self.nodes.push(Node { value, span, style });
        NodeId((self.nodes.len() - 1) as u32)
    }

    fn key(&mut self, name: &str, span: Span) -> NodeId {
        self.push(Value::Str(name.into()), span, Style::Literal)
    }

    fn scalar(&mut self, s: &Setting) -> NodeId {
        let (value, style) = match &s.value {
            Some(Scalar::Str(v)) => (Value::Str(v.as_str().into()), Style::Plain),
            Some(Scalar::Int(i)) => (Value::Int(*i), Style::Plain),
            Some(Scalar::Bool(b)) => (Value::Bool(*b), Style::Plain),
            None => (Value::Str(s.written.as_str().into()), Style::Literal),
        };
        // Only a literal written in place may be replaced by a fix; `Literal` style (a
        // block scalar to the fixes) keeps them off anything else.
        let style = if s.in_place && !s.inherited {
            style
        } else {
            Style::Literal
        };
        let id = self.push(value, s.span, style);
        if s.value.is_none() {
            self.unknown.push(id);
        }
        if let Some(origin) = s.origin {
            self.labels.push((id, s.span, origin));
        }
        id
    }

    /// A mapping of `path → setting` (dotted paths nest; a level whose segments are all
    /// indices, `schedules.compute_start_stop.0.action`, is a sequence in that order),
    /// children before parents as the YAML reader builds them. Flow style: no fix adds a
    /// line to it.
    fn map(&mut self, settings: &[(String, Setting)], span: Span) -> NodeId {
        let head = |p: &str| p.split_once('.').map_or(p, |(h, _)| h).to_string();
        let seq = !settings.is_empty() && settings.iter().all(|(p, _)| head(p).parse::<usize>().is_ok());
        let mut entries = Vec::new();
        let mut items = Vec::new();
        let mut done: Vec<String> = Vec::new();
        for (path, setting) in settings {
            let h = head(path);
            let nested = h.len() < path.len();
            if nested && done.contains(&h) {
                continue;
            }
            // The key spans the option or attribute of the first setting under it.
            let key = (!seq).then(|| self.key(&h, setting.key.unwrap_or(setting.span)));
            let value = if nested {
                done.push(h.clone());
                let inner: Vec<(String, Setting)> = settings
                    .iter()
                    .filter_map(|(p, s)| {
                        let (ph, rest) = p.split_once('.')?;
                        (ph == h).then(|| (rest.to_string(), s.clone()))
                    })
                    .collect();
                let covered = inner.iter().map(|(_, s)| s.span).fold(setting.span, Span::cover);
                self.map(&inner, covered)
            } else {
                self.scalar(setting)
            };
            match key {
                Some(key) => entries.push(Entry {
                    key,
                    value,
                    merged: false,
                }),
                None => items.push(value),
            }
        }
        if seq {
            self.push(Value::Seq(items), span, Style::Flow)
        } else {
            self.push(Value::Map(entries), span, Style::Flow)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settings_polarity_is_read_through_a_few_parentheses_and_negations() {
        let p = |w: &str| Derived::polarity(w, "var.", "x");
        assert_eq!(p("var.x"), Some(false));
        assert_eq!(p("!var.x"), Some(true));
        assert_eq!(p("!(!var.x)"), Some(false));
        assert_eq!(p("( ( !var.x ) )"), Some(true));
        assert_eq!(p("var.x == false"), Some(true));
        assert_eq!(p("var.x != true"), Some(true));
        assert_eq!(p("var.x ? false : true"), None);
        assert_eq!(p("(var.x) && (var.y)"), None);
        // Nested beyond what is worked out (each level would scan the rest again): not
        // known, whatever it holds.
        let deep = format!("{}!var.x{}", "(".repeat(50_000), ")".repeat(50_000));
        assert_eq!(p(&deep), None);
        let shallow = format!("{}!var.x{}", "(".repeat(20), ")".repeat(20));
        assert_eq!(p(&shallow), Some(true));
    }

    fn def() -> ComputeDef {
        let mut d = ComputeDef::new(
            SourceKind::AzCli,
            "setup.sh",
            Span::new(0, 90),
            "az ml compute create",
            Setting::literal(
                Scalar::Str("gpu".into()),
                Span::new(28, 31),
                Some(Span::new(21, 27)),
            ),
        );
        d.set(
            "type",
            Setting::literal(
                Scalar::Str("AmlCompute".into()),
                Span::new(39, 49),
                Some(Span::new(32, 38)),
            ),
        );
        d.set(
            "size",
            Setting::dynamic(
                "$SIZE",
                "`SIZE` is the script's first argument",
                Span::new(57, 62),
                Some(Span::new(50, 56)),
            ),
        );
        d.set(
            "min_instances",
            Setting::literal(Scalar::Int(1), Span::new(79, 80), Some(Span::new(63, 78))),
        );
        d.set(
            "network_settings.subnet",
            Setting::literal(
                Scalar::Str("/s/n".into()),
                Span::new(85, 89),
                Some(Span::new(81, 84)),
            ),
        );
        d
    }

    #[test]
    fn a_definition_becomes_a_compute_document_with_spans_in_its_file() {
        let d = def();
        assert_eq!(d.ctype().as_deref(), Some("amlcompute"));
        assert_eq!(d.known_name(), Some("gpu"));
        assert_eq!(d.size(), None, "a dynamic size is not known");
        let s = d.document().unwrap();
        assert_eq!(s.kind.id, "amlCompute");
        let doc = &s.doc;
        let root = doc.root.unwrap();
        let min = doc.get_entry(root, "min_instances").unwrap();
        assert_eq!(
            doc.node(min.key).span,
            Span::new(63, 78),
            "the key spans the option"
        );
        assert_eq!(
            doc.node(min.value).span,
            Span::new(79, 80),
            "the value spans the literal"
        );
        assert_eq!(doc.value(min.value), &Value::Int(1));
        let size = doc.get(root, "size").unwrap();
        assert_eq!(s.unknown, vec![size], "the dynamic size is unknown to the rules");
        assert_eq!(
            doc.node(size).style,
            Style::Literal,
            "no fix replaces an expression"
        );
        let net = doc.get(root, "network_settings").unwrap();
        let subnet = doc.get(net, "subnet").unwrap();
        assert_eq!(doc.value(subnet), &Value::Str("/s/n".into()));
        assert!(s.overrides.is_none());
        assert_eq!(doc.to_json()["type"], "AmlCompute");
    }

    #[test]
    fn a_yaml_definition_or_an_unknown_type_has_no_document() {
        let mut d = def();
        d.source = SourceKind::AmlYaml;
        assert!(d.document().is_none(), "an Azure ML YAML is its own document");
        let mut d = def();
        d.set(
            "type",
            Setting::literal(Scalar::Str("databricks".into()), Span::new(39, 49), None),
        );
        assert_eq!(d.ctype().as_deref(), Some("databricks"));
        assert!(d.document().is_none());
        d.fields.retain(|(p, _)| p != "type");
        assert!(d.ctype().is_none() && d.document().is_none());
    }

    /// What the type's schema lacks: an option written on the command line is refused, one
    /// read from the `--file` YAML stays (the YAML reports it), one no option writes (what
    /// an expansion not known may give) is dropped; nested paths are looked up too.
    #[test]
    fn keys_the_type_lacks_are_refused() {
        let mut d = def();
        d.set(
            "type",
            Setting::literal(
                Scalar::Str("ComputeInstance".into()),
                Span::new(39, 49),
                Some(Span::new(32, 38)),
            ),
        );
        let mut inherited = Setting::literal(Scalar::Str("dedicated".into()), Span::new(1, 2), None);
        inherited.inherited = true;
        d.set("tier", inherited);
        d.set(
            "max_instances",
            Setting::dynamic("$ARGS", "why", Span::new(3, 8), None),
        );
        d.set(
            "network_settings.vnet_name",
            Setting::literal(Scalar::Str("v".into()), Span::new(9, 10), Some(Span::new(11, 12))),
        );
        d.refuse_keys_the_type_lacks();
        let paths: Vec<&str> = d.fields.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "type",
                "size",
                "network_settings.subnet",
                "tier",
                "network_settings.vnet_name"
            ]
        );
        let refused: Vec<&str> = d.refused.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(refused, ["min_instances"]);
        // A cluster has them all; a type not known says nothing.
        let mut d = def();
        d.refuse_keys_the_type_lacks();
        assert!(d.refused.is_empty() && d.get("min_instances").is_some());
        d.fields.retain(|(p, _)| p != "type");
        d.set(
            "idle_time_before_shutdown",
            Setting::literal(Scalar::Str("PT1H".into()), Span::new(1, 2), Some(Span::new(0, 1))),
        );
        d.refuse_keys_the_type_lacks();
        assert!(d.refused.is_empty());
    }

    #[test]
    fn types_are_normalised() {
        for (written, want) in [
            ("AmlCompute", "amlcompute"),
            ("ComputeInstance", "computeinstance"),
            ("compute_instance", "computeinstance"),
            ("Kubernetes", "kubernetes"),
            ("VirtualMachine", "virtualmachine"),
            ("AKS", "aks"),
        ] {
            assert_eq!(normalize_type(written), want);
        }
    }

    /// Indexed paths (`schedules.compute_start_stop.0.action`) are a sequence of mappings in
    /// the compute document; a value not known there is unknown to the rules.
    #[test]
    fn indexed_paths_are_a_sequence() {
        let mut d = def();
        d.set(
            "type",
            Setting::literal(Scalar::Str("ComputeInstance".into()), Span::new(39, 49), None),
        );
        let at = |a: u32| Span::new(a, a + 1);
        d.set(
            "schedules.compute_start_stop.0.action",
            Setting::literal(Scalar::Str("start".into()), at(1), None),
        );
        d.set(
            "schedules.compute_start_stop.1.action",
            Setting::literal(Scalar::Str("stop".into()), at(2), None),
        );
        d.set(
            "schedules.compute_start_stop.1.state",
            Setting::dynamic("$S", "why", at(3), None),
        );
        let s = d.document().unwrap();
        let doc = &s.doc;
        assert_eq!(
            doc.to_json()["schedules"],
            serde_json::json!({"compute_start_stop": [{"action": "start"}, {"action": "stop", "state": "$S"}]})
        );
        let list = doc
            .get(
                doc.get(doc.root.unwrap(), "schedules").unwrap(),
                "compute_start_stop",
            )
            .unwrap();
        let Value::Seq(items) = doc.value(list) else {
            panic!("not a sequence")
        };
        let state = doc.get(items[1], "state").unwrap();
        assert!(s.unknown.contains(&state));
    }
}
