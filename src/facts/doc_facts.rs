//! The facts of one document ([`DocFacts`]: its VM sizes, compute targets, workload,
//! model) over what facts consult beyond it, built once per run ([`FactBase`]); the
//! table of facts rules read (`table.rs`) resolves through them.

use std::path::Path;

use super::clusters::ProjectClusters;
use super::index::{self, DiskSizes, ProjectIndex, Reference, parse_reference};
use super::value::{Resolved, Val};
use super::vm::{self, Known, VmFacts};
use crate::document::{Document, NodeId, Value};
use crate::kinds::Kind;

/// Everything facts may consult beyond the document, built once per run and
/// configuration: the project index, the configuration (profile, params, inventory,
/// rules), the date and the cache of model sizes.
#[derive(Debug)]
pub struct FactBase {
    pub index: std::sync::Arc<ProjectIndex>,
    pub config: std::sync::Arc<crate::config::Config>,
    /// The date retirement dates are compared with (`YYYY-MM-DD`).
    pub today: String,
    pub disk: std::sync::Arc<DiskSizes>,
    /// [`FactBase::similar_compute`]'s answers by name (a project names the same
    /// unresolved compute in many files).
    pub similar: SimilarNames,
    /// The project's compute clusters grouped by the quota they share
    /// ([`FactBase::project_clusters`]), built on first use.
    pub clusters: std::sync::OnceLock<ProjectClusters>,
    /// [`FactBase::compute_agreement`]'s answers by name (lower case).
    pub agreements: Agreements,
    /// The folder taken as the project when nothing marks it (`Project::unmarked_root`):
    /// what "the project" searched was, for `$target.searched`.
    pub unmarked_root: Option<String>,
}

/// Memoised [`index::ComputeAgreement`]s, by name.
pub type Agreements =
    std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<index::ComputeAgreement>>>;

/// Memoised near-name searches, and the names they search (sorted, built once).
#[derive(Debug, Default)]
pub struct SimilarNames(
    std::sync::Mutex<std::collections::HashMap<String, Option<String>>>,
    std::sync::OnceLock<Vec<String>>,
);

/// A compute as facts see it, from a project file or the inventory.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputeInfo {
    /// Empty when not known.
    pub ctype: String,
    pub size: Option<String>,
    /// The project's definition of it (`None`: the inventory's).
    pub defined: Option<index::ComputeEntry>,
}

/// A model as facts see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    pub version: Option<String>,
    pub size_bytes: Option<u64>,
}

impl FactBase {
    /// The facts of a VM size string: the catalogue, and the sizes this configuration
    /// declares (`[[inventory.vm_sizes]]`).
    pub fn vm(&self, name: &str) -> Option<VmFacts> {
        // The declared size of this name only (looked up by name: a configuration may
        // declare thousands).
        let declared = self.config.inventory.vm_size(name);
        vm::catalogue().lookup_with(name, declared.map_or(&[][..], std::slice::from_ref))
    }

    /// Defaults: an empty index, the default configuration, today.
    pub fn standalone() -> Self {
        Self {
            index: Default::default(),
            config: std::sync::Arc::new(crate::config::Config::shared_default().clone()),
            today: today(),
            disk: Default::default(),
            similar: Default::default(),
            clusters: Default::default(),
            agreements: Default::default(),
            unmarked_root: None,
        }
    }

    pub fn profile(&self) -> &'static str {
        self.config.profile.as_str()
    }

    pub fn param(&self, name: &str) -> Option<&serde_json::Value> {
        self.config.params.get(name).map(|p| &p.value)
    }

    /// A compute by name: the project's files first, then the inventory.
    pub fn compute(&self, name: &str) -> Option<ComputeInfo> {
        if let Some(c) = self.compute_agreement(name).agreed() {
            return Some(ComputeInfo {
                ctype: c.ctype.clone(),
                size: c.size.clone(),
                defined: Some(c.clone()),
            });
        }
        if let Some(c) = self.config.inventory.compute(name) {
            return Some(ComputeInfo {
                ctype: c.compute_type.to_ascii_lowercase(),
                size: c.size.clone(),
                defined: None,
            });
        }
        // The workspace snapshot (`[workspace] computes`), as the inventory: a compute of
        // a type amlint does not know resolves the name without a type.
        let c = self.config.workspace.as_ref()?.compute(name)?;
        Some(ComputeInfo {
            ctype: c.compute_type?.to_string(),
            size: c.size.clone(),
            defined: None,
        })
    }

    /// A compute of the workspace snapshot (`[workspace] computes`), by name.
    pub fn snapshot_compute(&self, name: &str) -> Option<&crate::config::workspace::SnapshotCompute> {
        self.config.workspace.as_ref()?.compute(name)
    }

    /// The defined compute (project files, then inventory) whose name `name` resembles,
    /// for a name neither defines. Only the project files already indexed are searched:
    /// in a run of a few files the rest of the project is searched by exact name only.
    pub fn similar_compute(&self, name: &str) -> Option<String> {
        // A template placeholder (`<gpu-cluster>`, `{{COMPUTE}}`) is meant to be replaced.
        if index::is_template_name(name) {
            return None;
        }
        let names = self.similar.1.get_or_init(|| {
            let mut names: Vec<String> = self
                .index
                .compute_names()
                .into_iter()
                .map(str::to_string)
                .collect();
            names.extend(self.config.inventory.computes().map(|c| c.name.clone()));
            if let Some(ws) = &self.config.workspace {
                names.extend(ws.computes.iter().map(|c| c.name.clone()));
            }
            // In a fixed order: the first of equally close names wins.
            names.sort_unstable();
            names
        });
        // More names than a suggestion compares: none, at once (not per reference).
        if names.len() > crate::suggest::MAX_CANDIDATES {
            return None;
        }
        let mut memo = self.similar.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = memo.get(name) {
            return known.clone();
        }
        let found = crate::suggest::closest_name(name, names.iter()).map(str::to_string);
        memo.insert(name.to_string(), found.clone());
        found
    }

    /// What every definition of compute `name` states of its type and size, built once per
    /// name: each of its definitions asks (AML205), so that n definitions of one name cost
    /// time linear in n, not n².
    pub fn compute_agreement(&self, name: &str) -> std::sync::Arc<index::ComputeAgreement> {
        let key = name.to_lowercase();
        if let Some(a) = self
            .agreements
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return a.clone();
        }
        let a = std::sync::Arc::new(index::ComputeAgreement::of(self.index.compute_definitions(name)));
        self.agreements
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_insert(a)
            .clone()
    }

    /// The compute an endpoint runs on (Kubernetes endpoints).
    pub fn endpoint_compute(&self, name: &str) -> Option<String> {
        match self.index.endpoint(name) {
            Some(e) => e.compute.clone(),
            None => self
                .config
                .inventory
                .endpoint(name)
                .and_then(|e| e.compute.clone()),
        }
    }

    /// A model by name and version (`None`: the highest version the project defines), its
    /// size measured on disk or declared in the inventory.
    pub fn model(&self, name: &str, version: Option<&str>) -> Option<ModelInfo> {
        if let Some(m) = self.index.model(name, version) {
            let size_bytes = m.size_bytes.or_else(|| {
                let p = m.path.as_deref().filter(|p| is_local_path(p))?;
                let dir = m.dir.as_deref()?;
                self.disk.size_of(&dir.join(p.trim_start_matches("file:")))
            });
            return Some(ModelInfo {
                version: m.version.clone(),
                size_bytes,
            });
        }
        let inv = &self.config.inventory;
        let found = match version {
            Some(v) => inv.model(name, v),
            None => inv
                .model_versions(name)
                .into_iter()
                .max_by(|a, b| a.version.cmp(&b.version)),
        };
        found.map(|m| ModelInfo {
            version: Some(m.version.clone()),
            size_bytes: m.size_bytes,
        })
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`; a valid `AMLINT_TODAY` overrides it (tests,
/// reproducible CI; the command line refuses an invalid one, see [`today_override`]).
pub fn today() -> String {
    if let Ok(Some(date)) = today_override() {
        return date;
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    civil_from_days(secs.div_euclid(86_400))
}

/// `AMLINT_TODAY` when it is set: a calendar date written `YYYY-MM-DD` (retirement
/// dates are compared with it as text, so `2027-1-15` would compare wrongly), or why
/// not. An empty value is refused rather than read as "not set".
pub fn today_override() -> Result<Option<String>, String> {
    match std::env::var("AMLINT_TODAY") {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err("AMLINT_TODAY is not text; set it to a date such as 2027-01-15, or unset it".to_string()),
        Ok(value) => parse_date(&value).map(Some).ok_or_else(|| {
            format!("AMLINT_TODAY is `{}`, not a date written YYYY-MM-DD (such as 2027-01-15); set it to one, or unset it", crate::escape::control(&value))
        }),
    }
}

/// A `YYYY-MM-DD` calendar date (months and days that exist, leap years included).
pub fn parse_date(text: &str) -> Option<String> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        text.get(r)
            .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))?
            .parse()
            .ok()
    };
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&d).then(|| text.to_string())
}

/// Days since 1970-01-01 → `YYYY-MM-DD` (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> String {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A VM size written in the document.
#[derive(Debug, Clone)]
pub struct VmNode {
    pub node: NodeId,
    /// The pipeline step (or the document root) the size belongs to.
    pub scope: NodeId,
    pub facts: VmFacts,
}

/// Where a workload runs.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    /// `local`, `aci`, `aks`, `kubernetes`, `managed`, `amlcompute`, ... (`None`: unknown).
    pub ttype: Option<String>,
    pub name: Option<String>,
    /// A named compute was referenced; whether the project or inventory defines it.
    pub resolved: Option<bool>,
    /// The node of this document that names the target.
    pub source: Option<NodeId>,
    pub vm: Option<VmFacts>,
}

impl Placement {
    /// A workload that runs on a type of compute its kind fixes (`managed`, `serverless`).
    fn of_type(ttype: &str) -> Self {
        Placement {
            ttype: Some(ttype.to_string()),
            ..Placement::default()
        }
    }
}

/// The model a deployment serves.
#[derive(Debug, Clone, Default)]
pub struct ModelFacts {
    pub name: Option<String>,
    pub version: Option<String>,
    pub size_bytes: Option<u64>,
    pub source: Option<NodeId>,
}

/// An AKS inference cluster's capacity: a compute definition of type `aks` (SDK v1
/// `AksCompute`, `az ml computetarget create aks`, ARM and Bicep `AKS`, Terraform's
/// `azurerm_machine_learning_inference_cluster`). Each part is `None` when not known, with
/// whether it is the service's default (the file does not set it).
#[derive(Debug, Clone, Default)]
pub struct AksCapacity {
    /// `FastProd`, `DenseProd` or `DevTest` (`FastProd` by default).
    pub purpose: Option<(&'static str, bool)>,
    /// The node count ([`AKS_DEFAULT_NODES`] by default).
    pub nodes: Option<(i64, bool)>,
    /// The node size as written ([`AKS_DEFAULT_SIZE`] by default), and its vCPUs.
    pub size: Option<(String, bool)>,
    pub size_vcpus: Option<f64>,
    /// Where the count is written, else the size.
    pub node: Option<NodeId>,
}

impl AksCapacity {
    /// The node count × the size's vCPUs, when both are known.
    pub fn vcpus(&self) -> Option<f64> {
        self.nodes.zip(self.size_vcpus).map(|((n, _), v)| n as f64 * v)
    }
}

/// What Azure ML gives an AKS cluster it creates without `agentCount` and `agentVmSize`
/// (SDK v1's `AksCompute.provisioning_configuration` documents both defaults; it sends
/// neither, and the service applies them).
pub const AKS_DEFAULT_NODES: i64 = 3;
pub const AKS_DEFAULT_SIZE: &str = "Standard_D3_v2";

/// The cluster purposes Azure ML knows, as the service spells them.
const AKS_PURPOSES: [&str; 3] = ["FastProd", "DenseProd", "DevTest"];

/// Keys whose values are VM sizes.
const VM_KEYS: &[&str] = &[
    "size",
    "instance_type",
    "vmSize",
    "vm_size",
    "agentVmSize",
    "virtualMachineSize",
];
/// Free-form subtrees where such keys mean something else.
const FREE_FORM: &[&str] = &[
    "tags",
    "properties",
    "environment_variables",
    "inputs",
    "outputs",
    "conf",
    "search_space",
    "credentials",
    "data_collector",
    "identity",
];

/// The facts of one document.
pub struct DocFacts<'a> {
    pub doc: &'a Document,
    pub kind: &'static Kind,
    /// The file on disk (its directory anchors relative paths).
    pub file: &'a Path,
    pub base: &'a FactBase,
    vm_nodes: Vec<VmNode>,
    /// The named compute references resolved so far, by node (`compute_refs`).
    refs: std::cell::RefCell<Vec<(NodeId, index::ComputeRef)>>,
    /// [`DocFacts::aks`], made on first use (a rule and its message read it field by field).
    aks: std::cell::OnceCell<Option<AksCapacity>>,
    /// Nodes whose value is not known statically (a compute definition's `$SIZE`):
    /// conditions reading one are unknown, and no VM size is judged there.
    unknown: Vec<NodeId>,
    /// The language the document's settings are written in: messages name them so
    /// (`{key:...}`, `{set:...}`); Azure ML YAML but for a definition outside it.
    pub idiom: super::idiom::Idiom,
    /// The text of the file a definition outside Azure ML YAML is written in (its
    /// document's spans are there): messages quote a setting as written.
    pub text: Option<&'a str>,
    /// The settings a module call gives through an expression of an argument (a
    /// definition's [`super::computes::ComputeDef::derived`]): a value a message proposes
    /// for one is proposed for the argument through that expression.
    pub derived: &'a [super::computes::Derived],
}

pub(super) fn string_at(doc: &Document, id: NodeId) -> Option<&str> {
    match doc.value(id) {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

pub(super) fn number_at(doc: &Document, id: NodeId) -> Option<f64> {
    match doc.value(id) {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A Kubernetes quantity (`2Gi`, `1024Mi`, `1G`, `500M`, `1073741824`) in GiB.
pub fn quantity_gib(s: &str) -> Option<f64> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num.trim().parse().ok()?;
    let factor = match unit {
        "" => 1.0,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => return None,
    };
    Some(n * factor / 1024f64.powi(3))
}

impl<'a> DocFacts<'a> {
    pub fn new(doc: &'a Document, kind: &'static Kind, file: &'a Path, base: &'a FactBase) -> Self {
        Self::with_unknown(doc, kind, file, base, Vec::new())
    }

    /// The facts of a document some of whose nodes hold values not known statically (a
    /// compute definition outside Azure ML YAML: `computes::Synthetic::unknown`).
    pub fn with_unknown(
        doc: &'a Document,
        kind: &'static Kind,
        file: &'a Path,
        base: &'a FactBase,
        unknown: Vec<NodeId>,
    ) -> Self {
        let mut facts = Self {
            doc,
            kind,
            file,
            base,
            vm_nodes: Vec::new(),
            refs: Default::default(),
            aks: std::cell::OnceCell::new(),
            unknown,
            idiom: super::idiom::Idiom::Yaml,
            text: None,
            derived: &[],
        };
        facts.vm_nodes = facts.find_vm_nodes();
        facts
    }

    /// Whether the value of `node` is not known statically.
    pub fn is_unknown(&self, node: NodeId) -> bool {
        !self.unknown.is_empty() && self.unknown.contains(&self.doc.resolve(node))
    }

    pub fn is_pipeline(&self) -> bool {
        matches!(self.kind.id.as_str(), "pipelineJob" | "pipelineComponent")
    }

    /// The scope of a node given the path to it: the pipeline step it is in, or the root.
    pub fn scope_of(&self, segments: &[String]) -> Option<NodeId> {
        let root = self.doc.root?;
        if self.is_pipeline() && segments.len() >= 2 && segments[0] == "jobs" {
            let jobs = self.doc.get(root, "jobs")?;
            return self.doc.get(jobs, &segments[1]).or(Some(root));
        }
        Some(root)
    }

    fn find_vm_nodes(&self) -> Vec<VmNode> {
        let Some(root) = self.doc.root else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // (node, depth, whether it is the root's `jobs`, scope): what the rules below
        // ask of a node's place, without building its path.
        let mut stack: Vec<(NodeId, usize, bool, NodeId)> = vec![(root, 0, false, root)];
        while let Some((id, depth, is_jobs, scope)) = stack.pop() {
            for e in self.doc.entries(id).iter().rev() {
                let key = self.doc.key_string(e.key);
                let key = key.as_ref();
                if FREE_FORM.contains(&key) {
                    continue;
                }
                let child_scope = if self.is_pipeline() && is_jobs {
                    e.value
                } else {
                    scope
                };
                let definite = (depth == 0
                    && ((key == "size"
                        && matches!(self.kind.id.as_str(), "amlCompute" | "computeInstance"))
                        || (key == "instance_type" && self.kind.id == "managedOnlineDeployment")))
                    || matches!(key, "vmSize" | "vm_size" | "agentVmSize" | "virtualMachineSize");
                if VM_KEYS.contains(&key) || key == "instance_types" {
                    let values: Vec<NodeId> = match self.doc.value(e.value) {
                        Value::Seq(items) if key == "instance_types" => items.clone(),
                        _ if key == "instance_types" => Vec::new(),
                        _ => vec![e.value],
                    };
                    for v in values {
                        let Some(text) = string_at(self.doc, v).filter(|_| !self.is_unknown(v)) else {
                            continue;
                        };
                        // A binding, or a value a template fills in (`<K8S_INSTANCE_TYPE>`).
                        if text.contains("${{") || index::is_template_name(text) {
                            continue;
                        }
                        let facts = self.base.vm(text).or_else(|| {
                            definite.then(|| VmFacts {
                                written: text.to_string(),
                                known: Known::Unknown,
                                size: None,
                                series: None,
                            })
                        });
                        if let Some(facts) = facts {
                            out.push(VmNode {
                                node: v,
                                scope: child_scope,
                                facts,
                            });
                        }
                    }
                    continue;
                }
                if matches!(self.doc.value(e.value), Value::Map(_)) {
                    stack.push((e.value, depth + 1, depth == 0 && key == "jobs", child_scope));
                }
            }
        }
        out.sort_by_key(|v| self.doc.node(v.node).span.start);
        out
    }

    /// Every VM size written in the document.
    pub fn vm_nodes(&self) -> &[VmNode] {
        &self.vm_nodes
    }

    /// The VM a fact refers to: the subject itself when it is a VM size, else the first
    /// VM size of the scope.
    pub fn vm_for(&self, subject: Option<NodeId>, scope: Option<NodeId>) -> Option<&VmNode> {
        if let Some(s) = subject {
            if let Some(v) = self.vm_nodes.iter().find(|v| v.node == s) {
                return Some(v);
            }
        }
        self.vm_nodes.iter().find(|v| Some(v.scope) == scope)
    }

    fn resolve_compute(&self, reference: &str, source: NodeId) -> Placement {
        let mut t = Placement {
            source: Some(source),
            ..Placement::default()
        };
        match parse_reference(reference) {
            Reference::Local => t.ttype = Some("local".into()),
            Reference::Serverless => t.ttype = Some("serverless".into()),
            Reference::Binding | Reference::Remote => {}
            // Filled in by a template: neither resolved nor unresolved.
            Reference::Named { name, .. } if index::is_template_name(&name) => {}
            Reference::Named { name, .. } => {
                let found = self.base.compute(&name);
                self.note_ref(source, &name, found.as_ref());
                match found {
                    Some(c) => {
                        // Empty: definitions that do not say, or disagree.
                        t.ttype = (!c.ctype.is_empty()).then_some(c.ctype);
                        t.vm = c.size.as_deref().and_then(|s| self.base.vm(s));
                        t.resolved = Some(true);
                    }
                    // A compute of the workspace snapshot of a type amlint does not know:
                    // it exists, but nothing is known of it.
                    None => t.resolved = Some(self.base.snapshot_compute(&name).is_some()),
                }
                t.name = Some(name);
            }
        }
        t
    }

    /// Records a named compute reference and what resolved it, once per node.
    fn note_ref(&self, node: NodeId, name: &str, found: Option<&ComputeInfo>) {
        let mut refs = self.refs.borrow_mut();
        if refs.iter().any(|(n, _)| *n == node) {
            return;
        }
        let (resolved, definitions) = match found {
            Some(ComputeInfo { defined: Some(d), .. }) => (
                index::Resolution::Defined(Box::new(d.clone())),
                self.base.compute_agreement(name).definitions.clone(),
            ),
            Some(_) => (index::Resolution::Inventory, Vec::new()),
            None => (index::Resolution::Unresolved, Vec::new()),
        };
        refs.push((
            node,
            index::ComputeRef {
                name: name.to_string(),
                span: self.doc.node(node).span,
                resolved,
                definitions,
            },
        ));
    }

    /// The named compute references the checks resolved (`compute:`, a step's compute,
    /// `settings.default_compute`, an AKS `computeTargetName`), in text order.
    pub fn compute_refs(&self) -> Vec<index::ComputeRef> {
        let mut refs: Vec<index::ComputeRef> = self.refs.borrow().iter().map(|(_, r)| r.clone()).collect();
        refs.sort_by_key(|r| r.span.start);
        refs
    }

    fn compute_field(&self, node: NodeId) -> Option<(NodeId, &str)> {
        let c = self.doc.get(node, "compute")?;
        string_at(self.doc, c).map(|s| (c, s))
    }

    /// Where the workload of `scope` runs.
    pub fn target(&self, scope: Option<NodeId>) -> Placement {
        let Some(root) = self.doc.root else {
            return Placement::default();
        };
        let scope = scope.unwrap_or(root);
        match self.kind.id.as_str() {
            "v1.deploymentConfig" => self.deployment_config_target(root),
            "managedOnlineDeployment" | "managedOnlineEndpoint" => Placement::of_type("managed"),
            "serverlessEndpoint" => Placement::of_type("serverless"),
            "kubernetesOnlineEndpoint" => match self.compute_field(root) {
                Some((node, r)) => self.resolve_compute(r, node),
                None => Placement::of_type("kubernetes"),
            },
            "kubernetesOnlineDeployment" => {
                let endpoint = self.doc.get(root, "endpoint_name");
                let compute = endpoint
                    .and_then(|e| string_at(self.doc, e))
                    .and_then(|name| self.base.endpoint_compute(name));
                match (compute, endpoint) {
                    (Some(c), Some(node)) => self.resolve_compute(&c, node),
                    _ => Placement {
                        source: endpoint,
                        ..Placement::of_type("kubernetes")
                    },
                }
            }
            "batchDeployment" | "modelBatchDeployment" => match self.compute_field(root) {
                Some((node, r)) => self.resolve_compute(r, node),
                None => Placement::default(),
            },
            "pipelineComponentBatchDeployment" => {
                let settings = self.doc.get(root, "settings");
                match settings.and_then(|s| self.doc.get(s, "default_compute")) {
                    Some(node) => string_at(self.doc, node)
                        .map_or_else(Placement::default, |r| self.resolve_compute(r, node)),
                    None => Placement::default(),
                }
            }
            id if id.ends_with("Job") || id == "pipelineComponent" => self.job_target(root, scope),
            id => match index::compute_type_of_kind(id) {
                Some(t) => Placement {
                    ttype: Some(t.to_string()),
                    vm: self.vm_for(None, Some(root)).map(|v| v.facts.clone()),
                    ..Placement::default()
                },
                None => Placement::default(),
            },
        }
    }

    /// Where a v1 deployment configuration runs: its `computeType`, and for AKS the
    /// target it names.
    fn deployment_config_target(&self, root: NodeId) -> Placement {
        let Some(node) = self.doc.get(root, "computeType") else {
            return Placement::default();
        };
        let raw = string_at(self.doc, node).map(str::to_ascii_lowercase);
        let ttype = raw.as_deref().map(|s| match s {
            "aks" | "aksendpoint" => "aks".to_string(),
            other => other.to_string(),
        });
        // Only AKS reads `computeTargetName` (AML107 reports it elsewhere).
        if raw.as_deref() != Some("aks") {
            return Placement {
                ttype,
                source: Some(node),
                ..Placement::default()
            };
        }
        let name_node = self.doc.get(root, "computeTargetName");
        // The AKS target: in the file, or named by the inventory's deployment entry
        // for this file (`az ml model deploy --ct`).
        let name = name_node
            .and_then(|n| string_at(self.doc, n))
            .map(str::to_string)
            .or_else(|| self.inventory_deployment().and_then(|d| d.compute.clone()));
        // A name a template fills in is not known: nothing to resolve.
        let name = name.filter(|n| !index::is_template_name(n));
        let entry = name.as_deref().and_then(|n| self.base.compute(n));
        if let (Some(n), Some(node)) = (&name, name_node) {
            self.note_ref(node, n, entry.as_ref());
        }
        Placement {
            resolved: name
                .as_deref()
                .map(|n| entry.is_some() || self.base.snapshot_compute(n).is_some()),
            vm: entry
                .as_ref()
                .and_then(|e| e.size.as_deref())
                .and_then(|s| self.base.vm(s)),
            // An AKS deployment whose target turns out to be something else
            // (a compute cluster) takes that type.
            ttype: match entry {
                Some(e) if ttype.as_deref() == Some("aks") && !e.ctype.is_empty() => Some(e.ctype),
                _ => ttype,
            },
            name,
            source: Some(name_node.unwrap_or(node)),
        }
    }

    /// Where a job or a pipeline component's `scope` (the root, or a step) runs: its
    /// `compute`, else a pipeline's default, else serverless compute.
    fn job_target(&self, root: NodeId, scope: NodeId) -> Placement {
        if let Some((node, r)) = self.compute_field(scope) {
            return self.resolve_compute(r, node);
        }
        if self.is_pipeline() {
            // A step without compute runs on the pipeline's default.
            let settings = self.doc.get(root, "settings");
            if let Some(node) = settings.and_then(|s| self.doc.get(s, "default_compute")) {
                if let Some(r) = string_at(self.doc, node) {
                    return self.resolve_compute(r, node);
                }
            }
            if scope != root {
                if let Some((node, r)) = self.compute_field(root) {
                    return self.resolve_compute(r, node);
                }
            }
            if self.kind.id == "pipelineComponent" {
                return Placement::default();
            }
        }
        // No compute anywhere: recent CLIs submit to serverless compute.
        Placement::of_type("serverless")
    }

    /// Where the workload runs, seen from a reported node: when the node is itself a
    /// compute reference of the scope (`compute`, `settings.default_compute`), that
    /// reference; otherwise the scope's target.
    pub fn target_for(&self, subject: Option<NodeId>, scope: Option<NodeId>) -> Placement {
        if let (Some(s), Some(root)) = (subject, self.doc.root) {
            let settings = self.doc.get(root, "settings");
            let references = [
                scope.and_then(|sc| self.doc.get(sc, "compute")),
                self.doc.get(root, "compute"),
                settings.and_then(|st| self.doc.get(st, "default_compute")),
            ];
            if references.contains(&Some(s))
                && !self.kind.id.starts_with("v1.")
                && self.kind.id != "kubernetesOnlineDeployment"
            {
                if let Some(r) = string_at(self.doc, s) {
                    return self.resolve_compute(r, s);
                }
            }
        }
        self.target(scope)
    }

    /// The kind of work of `scope`: realtime, batch, training, pipeline, automl.
    pub fn workload(&self, scope: Option<NodeId>) -> Option<&'static str> {
        let root = self.doc.root?;
        if self.is_pipeline() && scope.is_some_and(|s| s != root) {
            let step_type = scope
                .and_then(|s| self.doc.get(s, "type"))
                .and_then(|t| string_at(self.doc, t))
                .map(str::to_ascii_lowercase);
            return Some(match step_type.as_deref() {
                Some("automl") => "automl",
                Some("parallel") => "batch",
                Some("pipeline") => "pipeline",
                _ => "training",
            });
        }
        Some(match self.kind.id.as_str() {
            "managedOnlineDeployment"
            | "kubernetesOnlineDeployment"
            | "managedOnlineEndpoint"
            | "kubernetesOnlineEndpoint"
            | "v1.deploymentConfig"
            | "serverlessEndpoint" => "realtime",
            "batchDeployment"
            | "modelBatchDeployment"
            | "pipelineComponentBatchDeployment"
            | "batchEndpoint" => "batch",
            "autoMLJob" => "automl",
            "pipelineJob" | "pipelineComponent" => "pipeline",
            id if id.ends_with("Job") => "training",
            _ => return None,
        })
    }

    /// GPUs requested by the workload of `scope`.
    pub fn gpus_requested(&self, scope: Option<NodeId>) -> Option<f64> {
        let root = self.doc.root?;
        match self.kind.id.as_str() {
            "v1.deploymentConfig" => Some(
                self.doc
                    .get(root, "gpuCores")
                    .and_then(|n| number_at(self.doc, n))
                    .unwrap_or(0.0),
            ),
            "kubernetesOnlineDeployment" => {
                let resources = self.doc.get(root, "resources");
                let mut best: Option<f64> = None;
                for part in ["requests", "limits"] {
                    let section = resources.and_then(|r| self.doc.get(r, part));
                    for key in ["nvidia.com/gpu", "gpu"] {
                        if let Some(n) = section
                            .and_then(|s| self.doc.get(s, key))
                            .and_then(|n| number_at(self.doc, n))
                        {
                            best = Some(best.map_or(n, |b: f64| b.max(n)));
                        }
                    }
                }
                // Without an explicit request the instance type decides, which is
                // defined on the cluster: unknown here.
                best
            }
            _ => {
                let own = self
                    .vm_for(None, scope.or(Some(root)))
                    .and_then(|v| v.facts.size.as_ref().map(|s| s.gpus));
                // A pipeline step or job on a compute: that compute's GPUs.
                own.or_else(|| self.target(scope).vm.and_then(|v| v.size.map(|s| s.gpus)))
            }
        }
    }

    /// Memory available to the workload, in GiB, and the node that sets it.
    pub fn memory_gib(&self, scope: Option<NodeId>) -> Option<(f64, Option<NodeId>)> {
        let root = self.doc.root?;
        match self.kind.id.as_str() {
            "v1.deploymentConfig" => {
                let crr = self.doc.get(root, "containerResourceRequirements");
                match crr.and_then(|c| self.doc.get(c, "memoryInGB")) {
                    Some(n) => number_at(self.doc, n).map(|g| (g, Some(n))),
                    // The SDK's default request.
                    None => Some((0.5, self.doc.get(root, "computeType"))),
                }
            }
            "kubernetesOnlineDeployment" => {
                let resources = self.doc.get(root, "resources")?;
                let requests = self.doc.get(resources, "requests")?;
                let memory = self.doc.get(requests, "memory")?;
                let gib = match self.doc.value(memory) {
                    Value::Str(s) => quantity_gib(s),
                    _ => number_at(self.doc, memory).map(|b| b / 1024f64.powi(3)),
                };
                gib.map(|g| (g, Some(memory)))
            }
            _ => self
                .vm_for(None, scope.or(Some(root)))
                .and_then(|v| v.facts.size.as_ref().map(|s| (s.memory_gib, Some(v.node)))),
        }
    }

    /// The inventory's entry for this SDK v1 deployment config, if any.
    fn inventory_deployment(&self) -> Option<&crate::config::inventory::Deployment> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let me = crate::config::absolute(self.file, &cwd);
        self.base.config.inventory.deployment_for(&me)
    }

    /// The capacity of the AKS cluster a compute definition of type `aks` creates; `None`
    /// for any other document (a CLI v2 `type: kubernetes` attaches a cluster amlint does
    /// not see).
    pub fn aks(&self) -> Option<&AksCapacity> {
        self.aks.get_or_init(|| self.read_aks()).as_ref()
    }

    fn read_aks(&self) -> Option<AksCapacity> {
        if self.kind.id != "kubernetesCompute" {
            return None;
        }
        let root = self.doc.root?;
        let ctype = self.doc.get(root, "type")?;
        if self.is_unknown(ctype) || !string_at(self.doc, ctype)?.trim().eq_ignore_ascii_case("aks") {
            return None;
        }
        // A key: absent (`None`), or its node when its value is known (`Some(None)`: not).
        let known = |key: &str| {
            self.doc
                .get(root, key)
                .map(|n| (!self.is_unknown(n)).then_some(n))
        };
        let purpose = match known("cluster_purpose") {
            None => Some(("FastProd", true)),
            Some(n) => n
                .and_then(|n| string_at(self.doc, n))
                .and_then(|p| {
                    AKS_PURPOSES
                        .into_iter()
                        .find(|k| k.eq_ignore_ascii_case(p.trim()))
                })
                .map(|p| (p, false)),
        };
        let count = known("agent_count");
        let nodes = match count {
            None => Some((AKS_DEFAULT_NODES, true)),
            Some(n) => n
                .and_then(|n| number_at(self.doc, n))
                .filter(|f| f.fract() == 0.0 && (0.0..=1e6).contains(f))
                .map(|f| (f as i64, false)),
        };
        let size_node = known("size");
        let (size, size_vcpus) = match size_node {
            None => (
                Some((AKS_DEFAULT_SIZE.to_string(), true)),
                self.base
                    .vm(AKS_DEFAULT_SIZE)
                    .and_then(|v| v.size)
                    .map(|s| s.vcpus),
            ),
            Some(n) => (
                n.and_then(|n| string_at(self.doc, n))
                    .map(|s| (s.to_string(), false)),
                n.and_then(|n| self.vm_nodes.iter().find(|v| v.node == n))
                    .and_then(|v| v.facts.size.as_ref())
                    .map(|s| s.vcpus),
            ),
        };
        Some(AksCapacity {
            purpose,
            nodes,
            size,
            size_vcpus,
            node: count.flatten().or(size_node.flatten()),
        })
    }

    /// The model the document deploys and its size.
    pub fn model(&self) -> ModelFacts {
        let Some(root) = self.doc.root else {
            return ModelFacts::default();
        };
        let dir = self.file.parent().unwrap_or(Path::new("."));
        if self.kind.id == "v1.deploymentConfig" {
            // v1 files never name their model: the inventory says which ones they serve
            // (`az ml model deploy -m`, possibly several; their sizes add up).
            let Some(d) = self.inventory_deployment() else {
                return ModelFacts::default();
            };
            let infos: Vec<Option<ModelInfo>> = d
                .models
                .iter()
                .map(|m| self.base.model(&m.name, Some(&m.version)))
                .collect();
            let size_bytes = infos
                .iter()
                .map(|i| i.as_ref().and_then(|i| i.size_bytes))
                .sum::<Option<u64>>();
            return ModelFacts {
                name: Some(
                    d.models
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                version: None,
                size_bytes,
                source: None,
            };
        }
        let Some(node) = self.doc.get(root, "model") else {
            return ModelFacts::default();
        };
        match self.doc.value(node) {
            Value::Str(s) => match parse_reference(s) {
                Reference::Named { name, version } if s.starts_with("azureml:") => {
                    let info = self.base.model(&name, version.as_deref());
                    ModelFacts {
                        version: version.or_else(|| info.as_ref().and_then(|i| i.version.clone())),
                        size_bytes: info.and_then(|i| i.size_bytes),
                        name: Some(name),
                        source: Some(node),
                    }
                }
                _ => ModelFacts {
                    source: Some(node),
                    ..ModelFacts::default()
                },
            },
            Value::Map(_) => {
                let name = self
                    .doc
                    .get(node, "name")
                    .and_then(|n| string_at(self.doc, n))
                    .map(str::to_string);
                let version = self
                    .doc
                    .get(node, "version")
                    .map(|v| crate::document::yaml11::python_str(self.doc.value(v)));
                let path = self.doc.get(node, "path");
                let local = path
                    .and_then(|p| string_at(self.doc, p))
                    .filter(|p| is_local_path(p));
                let size_bytes =
                    local.and_then(|p| self.base.disk.size_of(&dir.join(p.trim_start_matches("file:"))));
                ModelFacts {
                    name,
                    version,
                    size_bytes,
                    source: Some(path.unwrap_or(node)),
                }
            }
            _ => ModelFacts::default(),
        }
    }
}

/// `1.4 GiB`, `512.0 MiB`, `900 bytes`.
pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1024f64.powi(3) {
        format!("{:.2} GiB", b / 1024f64.powi(3))
    } else if b >= 1024f64.powi(2) {
        format!("{:.1} MiB", b / 1024f64.powi(2))
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{b} bytes")
    }
}

/// A path written to a local file or folder (not a URI, not an asset reference).
pub fn is_local_path(p: &str) -> bool {
    let p = p.trim();
    !(p.is_empty() || p.starts_with("azureml:") || p.contains("://") || p.starts_with("${{"))
}

pub(super) fn vm_field(v: &VmFacts, field: &str, base: &FactBase) -> Resolved {
    let today = base.today.as_str();
    let one = |x: Val| Resolved::Values(vec![x]);
    let size = v.size.as_ref();
    let series = v.series;
    let opt = |x: Option<Val>| x.map_or(Resolved::Unknown, one);
    match field {
        "name" | "written" => one(Val::Str(v.written.clone())),
        "known" => one(Val::Str(
            match v.known {
                Known::Size => "size",
                Known::Series => "series",
                Known::Unknown => "unknown",
            }
            .to_string(),
        )),
        "series" => opt(series.map(|s| Val::Str(s.id.clone()))),
        "series_names" => match series {
            Some(_) => Resolved::Values(
                v.series_names()
                    .into_iter()
                    .map(|n| Val::Str(n.to_string()))
                    .collect(),
            ),
            None => Resolved::Unknown,
        },
        "family" => opt(series.map(|s| Val::Str(s.family.clone()))),
        "category" => opt(series.map(|s| Val::Str(s.category.clone()))),
        "accelerator" => opt(series.and_then(|s| s.accelerator.clone()).map(Val::Str)),
        "support" => opt(series.map(|s| Val::Str(s.support.clone()))),
        "support_basis" => opt(series.and_then(|s| s.support_basis.clone()).map(Val::Str)),
        "retirement" => opt(series.and_then(|s| s.retirement.clone()).map(Val::Str)),
        "retired" => opt(v.retired(today).map(Val::Bool)),
        "vcpus" => opt(size.map(|s| Val::Num(s.vcpus))),
        "memory_gib" => opt(size.map(|s| Val::Num(s.memory_gib))),
        "gpus" => opt(size
            .map(|s| Val::Num(s.gpus))
            .or_else(|| series.filter(|s| s.category != "gpu").map(|_| Val::Num(0.0)))),
        "fpgas" => opt(size
            .map(|s| Val::Num(s.fpgas))
            .or_else(|| series.map(|s| Val::Num(if s.category == "fpga" { 1.0 } else { 0.0 })))),
        "isolated" => opt(size
            .map(|s| Val::Bool(s.isolated))
            .or_else(|| series.map(|_| Val::Bool(false)))),
        "closest" => Resolved::Values(
            vm::catalogue()
                .closest_with(&v.written, &base.config.inventory.vm_sizes())
                .map(|c| Val::Str(c.to_string()))
                .into_iter()
                .collect(),
        ),
        _ => Resolved::Unknown,
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn quantities() {
        assert_eq!(quantity_gib("2Gi"), Some(2.0));
        assert_eq!(quantity_gib("1024Mi"), Some(1.0));
        assert!((quantity_gib("1G").unwrap() - 0.931).abs() < 0.001);
        assert_eq!(quantity_gib("1073741824"), Some(1.0));
        assert_eq!(quantity_gib("lots"), None);
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), "1970-01-01");
        assert_eq!(civil_from_days(20_414), "2025-11-22");
        assert_eq!(civil_from_days(11_016), "2000-02-29");
    }

    #[test]
    fn dates_are_parsed_strictly() {
        assert_eq!(parse_date("2027-01-15").as_deref(), Some("2027-01-15"));
        assert_eq!(parse_date("2028-02-29").as_deref(), Some("2028-02-29"));
        for bad in [
            "2027-1-15",
            "",
            "2027-02-29",
            "2027-13-01",
            "2027-00-10",
            "2027-01-32",
            "27-01-15x",
            "2027/01/15",
            "２０２７-01-15",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
