//! The project: what other files (and the configuration's `[inventory]`) say about the
//! computes, endpoints and models a document refers to by name, and the environments
//! the project defines (for the language server: no check looks them up).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::computes::{ComputeDef, Scalar, SourceKind};
use crate::document::{Document, Value};
use crate::kinds::Kind;
use crate::source::Span;

/// A compute reference of an Azure ML document (`compute: azureml:cpu-cluster`), as the
/// checks resolved it: by a definition of the project, by the inventory, or not at all.
#[derive(Clone, Debug, PartialEq)]
pub struct ComputeRef {
    /// The name looked up (`azureml:` and versions removed, the last segment of an id).
    pub name: String,
    /// The reference's value in its file.
    pub span: Span,
    pub resolved: Resolution,
    /// Every definition of the name the project has, when it resolved to one (a run of
    /// some files lists those outside them by these: `amlint inventory FILE`).
    pub definitions: Vec<ComputeEntry>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Resolution {
    /// A definition of the project (the first of its definitions).
    Defined(Box<ComputeEntry>),
    /// The configuration's `[inventory]`.
    Inventory,
    Unresolved,
}

/// A compute known to the project: one definition of it, or — from
/// [`ProjectIndex::compute`] — what all its definitions agree on.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputeEntry {
    pub name: String,
    /// `amlcompute`, `computeinstance`, `kubernetes`, `virtualmachine`, `synapsespark`,
    /// or any target type (`aks`, `databricks`...); empty when not known (not stated, not
    /// known statically, or definitions that disagree).
    pub ctype: String,
    /// The VM size, when known (and all definitions that state one agree).
    pub size: Option<String>,
    /// The file that defines it (None: the inventory).
    pub file: Option<String>,
    /// What kind of file defines it.
    pub source: SourceKind,
    /// The definition in `file`.
    pub span: Span,
    /// The 1-based line where the definition starts in `file` (0 when not known).
    pub line: u32,
    /// How far a cluster scales and where (compute clusters and instances), for the
    /// quota a workspace's clusters share.
    pub scale: Option<Scale>,
    /// The file the definition reads its values from, as displayed (the compute YAML of
    /// `az ml compute create --file`, a module a call instantiates).
    pub reads: Option<String>,
}

/// A compute's nodes, tier and region, as its definition writes them.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    pub min_instances: Option<f64>,
    pub max_instances: Option<f64>,
    /// `dedicated` or `low_priority`, as written.
    pub tier: Option<String>,
    pub location: Option<String>,
}

impl ComputeEntry {
    /// The entry of a definition with a known name.
    pub fn of(def: &ComputeDef) -> Option<Self> {
        let ctype = def.ctype().unwrap_or_default();
        let known = |path: &str| def.get(path).and_then(|s| s.value.clone());
        // A number as written (`4`, `4.0`, `"4"`).
        let number = |path: &str| match known(path)? {
            Scalar::Int(i) => Some(i as f64),
            Scalar::Str(s) => s.trim().parse().ok(),
            Scalar::Bool(_) => None,
        };
        let text = |path: &str| match known(path)? {
            Scalar::Bool(_) => None,
            v => Some(v.display()),
        };
        let scale = matches!(ctype.as_str(), "amlcompute" | "computeinstance").then(|| Scale {
            min_instances: number("min_instances"),
            max_instances: number("max_instances"),
            tier: text("tier"),
            location: text("location"),
        });
        Some(ComputeEntry {
            name: def.known_name()?.to_string(),
            ctype,
            size: def.size().map(str::to_string),
            file: Some(def.file.clone()),
            source: def.source,
            span: def.span,
            line: 0,
            scale,
            reads: def.from_file.clone(),
        })
    }
}

/// Drops from one name's definitions those another definition reads and overrides: the
/// compute YAML of `az ml compute create --file cluster.yml --size …` (the CLI creates
/// the YAML's compute with the command's values), a module's definition a call makes
/// with other values. What is created is the reading definition; the one it reads is
/// not a second definition of the name, so no conflict (AML205) is made of the two and a
/// reference resolves to what the command creates (audit 24, case 13).
fn without_overridden(defs: &mut Vec<ComputeEntry>) {
    if defs.len() < 2 || defs.iter().all(|d| d.reads.is_none()) {
        return;
    }
    // Files compared as paths: a definition of the rest of the project read in a one-file
    // run names the file it reads from the walk's absolute path (audit 29, case 05).
    let cwd = std::env::current_dir().unwrap_or_default();
    let at = |f: &str| crate::fsio::absolute(Path::new(f), &cwd);
    // A call of a module in the module's own file (a Python helper and its call) is no
    // reader of another definition there: the definitions of its own file stand.
    let readers: Vec<(PathBuf, String, Option<String>)> = defs
        .iter()
        .filter(|d| d.reads != d.file)
        .filter_map(|d| Some((at(d.reads.as_deref()?), d.ctype.clone(), d.size.clone())))
        .collect();
    defs.retain(|e| {
        !readers.iter().any(|(file, ctype, size)| {
            e.file.as_deref().is_some_and(|f| at(f) == *file) && (*ctype != e.ctype || *size != e.size)
        })
    });
}

/// What the definitions of one name agree on: the first definition, with the type and
/// size they all state alike (unknown when two state different ones: a conflict is
/// reported, never resolved by order).
fn agreed(defs: &[ComputeEntry]) -> Option<ComputeEntry> {
    let mut out = defs.first()?.clone();
    let types: Vec<&str> = defs
        .iter()
        .map(|d| d.ctype.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    out.ctype = match types.first() {
        Some(t) if types.iter().all(|u| u == t) => t.to_string(),
        _ => String::new(),
    };
    let sizes: Vec<&str> = defs.iter().filter_map(|d| d.size.as_deref()).collect();
    out.size = match sizes.first() {
        Some(s) if sizes.iter().all(|u| u.eq_ignore_ascii_case(s)) => Some(s.to_string()),
        _ => None,
    };
    Some(out)
}

/// `defs` in project order: by their files' paths (as bytes, made absolute: a partial run
/// writes some through `..`), then by where in the file. A partial run finds the checked
/// files' definitions first and the rest of the project's after; sorted, "the first other
/// definition" an AML205 message names is the one the whole run names (audit 13, case
/// 02). The inventory's (no file) come first.
fn in_project_order(defs: &mut [ComputeEntry]) {
    if defs.len() < 2 {
        return;
    }
    let cwd = crate::fsio::start_dir().unwrap_or(Path::new(""));
    defs.sort_by_cached_key(|d| {
        let file = d.file.as_deref().map(|f| {
            crate::fsio::absolute(Path::new(f), cwd)
                .into_os_string()
                .into_encoded_bytes()
        });
        (file, d.span.start)
    });
}

/// What the definitions of one compute name state of its type and size, summarised once
/// (`FactBase::compute_agreement`) so that each definition learns in constant time
/// whether another disagrees with it: per field, each value (lower case) with how many
/// definitions state it and the first that does, in the order they were added.
#[derive(Debug, Default)]
pub struct ComputeAgreement {
    pub definitions: Vec<ComputeEntry>,
    /// What they agree on ([`ComputeAgreement::agreed`]), worked out on first use.
    agreed: std::sync::OnceLock<Option<ComputeEntry>>,
    /// The definitions of each file, by file (a definition is found by its file).
    by_file: HashMap<Option<String>, Vec<usize>>,
    fields: [Stated; 2],
}

#[derive(Debug, Default)]
struct Stated {
    /// The distinct values, in the order first stated.
    order: Vec<String>,
    /// Per value: how many state it, and the first that does.
    values: HashMap<String, (usize, usize)>,
    total: usize,
}

/// The fields definitions are compared on.
pub const AGREED_FIELDS: [&str; 2] = ["type", "size"];

fn stated(d: &ComputeEntry, field: usize) -> Option<&str> {
    match field {
        0 => Some(d.ctype.as_str()).filter(|t| !t.is_empty()),
        _ => d.size.as_deref(),
    }
}

impl ComputeAgreement {
    pub fn of(definitions: Vec<ComputeEntry>) -> Self {
        let mut a = ComputeAgreement::default();
        for (i, d) in definitions.iter().enumerate() {
            a.by_file.entry(d.file.clone()).or_default().push(i);
            for (f, stated_here) in a.fields.iter_mut().enumerate() {
                if let Some(v) = stated(d, f) {
                    let v = v.to_lowercase();
                    stated_here.total += 1;
                    let e = stated_here.values.entry(v.clone()).or_insert_with(|| (0, i));
                    if e.0 == 0 {
                        stated_here.order.push(v);
                    }
                    e.0 += 1;
                }
            }
        }
        a.definitions = definitions;
        a
    }

    /// What the definitions agree on (as [`ProjectIndex::compute`] says it), once: a
    /// project may name one compute in thousands of files, each reference a lookup.
    pub fn agreed(&self) -> Option<&ComputeEntry> {
        self.agreed.get_or_init(|| agreed(&self.definitions)).as_ref()
    }

    /// The first definition in `file` that `inside` says is the one sought.
    pub fn find(&self, file: &str, inside: impl Fn(&ComputeEntry) -> bool) -> Option<usize> {
        self.by_file
            .get(&Some(file.to_string()))?
            .iter()
            .copied()
            .find(|&i| inside(&self.definitions[i]))
    }

    /// For definition `me` and field `field` (an index of [`AGREED_FIELDS`]): its value,
    /// the first definition that states another, that one's value, and how many state
    /// another.
    pub fn disagreement(&self, me: usize, field: usize) -> Option<(&str, &ComputeEntry, &str, usize)> {
        let mine = stated(self.definitions.get(me)?, field)?;
        let s = &self.fields[field];
        let key = mine.to_lowercase();
        let same = s.values.get(&key).map_or(0, |v| v.0);
        let other = s.order.iter().find(|v| **v != key)?;
        let first = &self.definitions[s.values.get(other)?.1];
        Some((mine, first, stated(first, field)?, s.total - same))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct EndpointEntry {
    pub name: String,
    /// The endpoint's `compute:` reference (Kubernetes endpoints).
    pub compute: Option<String>,
    pub kind: String,
    pub file: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ModelEntry {
    pub name: String,
    pub version: Option<String>,
    /// The model's `path:` as written.
    pub path: Option<String>,
    /// The directory `path` is relative to.
    pub dir: Option<PathBuf>,
    /// Known size (inventory).
    pub size_bytes: Option<u64>,
    pub file: Option<String>,
}

/// An environment defined by a file of the project (`az ml environment create`).
#[derive(Debug, Clone, PartialEq)]
pub struct EnvironmentEntry {
    pub name: String,
    pub version: Option<String>,
    pub file: String,
}

/// A component file of the project and the interface it declares.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentEntry {
    /// `commandComponent`, `pipelineComponent`...
    pub kind: String,
    pub interface: super::interface::Interface,
    /// The file, as displayed.
    pub file: String,
}

/// The key of a file in [`ProjectIndex`]'s components: absolute and normalised.
pub fn component_key(path: &Path) -> PathBuf {
    static CWD: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let cwd = CWD.get_or_init(|| std::env::current_dir().unwrap_or_default());
    crate::fsio::absolute(path, cwd)
}

/// The component file at `path` (absolute), read and parsed on its own (inside the
/// project, never in its `.git`, under the default limits): `None` when it is not a
/// readable component of the project — a path leading outside is not looked at.
fn read_component(path: &Path, boundary: &crate::fsio::Boundary) -> Option<std::sync::Arc<ComponentEntry>> {
    let limits = crate::limits::Limits::default();
    let display = path.to_string_lossy();
    let bytes = crate::fsio::read_named(path, boundary, limits.max_file_size).ok()?;
    let text = crate::load::decode(bytes).ok()?;
    let loaded = crate::load::parse_text(&display, text, crate::load::Format::for_path(&display), &limits);
    let doc = loaded.documents.first().filter(|d| !d.partial)?;
    let kind = crate::kinds::classify(doc, &display).kind?;
    if !super::interface::is_component_kind(&kind.id) {
        return None;
    }
    Some(std::sync::Arc::new(ComponentEntry {
        kind: kind.id.clone(),
        interface: super::interface::Interface::read(doc, doc.root?),
        file: display.to_string(),
    }))
}

/// Names defined across the project's files: those of the checked files, and — when only
/// some files of the project are checked (pre-commit, an editor buffer) — those of the rest
/// of the project, indexed on the first lookup that needs them.
#[derive(Debug, Default)]
pub struct ProjectIndex {
    /// Every definition of each compute, by lower-case name, in the order added.
    computes: HashMap<String, Vec<ComputeEntry>>,
    endpoints: HashMap<String, EndpointEntry>,
    models: Vec<ModelEntry>,
    /// Environment files: recorded for the language server (completion and navigation
    /// of `environment: azureml:...`); no check looks them up, so they are not part of
    /// [`ProjectIndex::same_definitions`].
    environments: Vec<EnvironmentEntry>,
    /// Component files by absolute path: their interfaces, for the pipeline steps that
    /// name them (`component: ./train.yml`).
    components: HashMap<PathBuf, std::sync::Arc<ComponentEntry>>,
    /// Component files of the rest of the project read on demand (when only some files
    /// are checked), by key; `None` for a file that is not a readable component.
    rest_components: Mutex<HashMap<PathBuf, Option<std::sync::Arc<ComponentEntry>>>>,
    rest: Option<Box<LazyIndex>>,
    /// Set by [`ProjectIndex::probe`]: records whether any lookup was made.
    consulted: Option<std::sync::atomic::AtomicBool>,
}

/// `search(name, whole)`: what the files of the rest of the project whose text contains
/// `name` define — only about `name` itself, or `whole` (all they define: a search by a
/// compute type's word).
type Search = Box<dyn Fn(&str, bool) -> ProjectIndex + Send + Sync>;

/// What the rest of the project defines, searched by name on first use: a one-file run
/// (pre-commit, an editor buffer) that needs nothing from elsewhere reads nothing else, and
/// one that names a compute, endpoint or model its own files do not define parses only the
/// files whose text contains that name (a name is defined by a `name:` holding it).
pub struct LazyIndex {
    /// Indexes the files of the rest of the project whose text contains a (lower-case) name.
    search: Search,
    /// By name: what the rest defines of that name (a partial run may need thousands of
    /// names, each defined in the same files: what each keeps is its own, not all the files
    /// define — audit 23, case 04).
    found: Mutex<HashMap<String, std::sync::Arc<ProjectIndex>>>,
    /// By a compute type's word: all the files mentioning it define.
    found_whole: Mutex<HashMap<String, std::sync::Arc<ProjectIndex>>>,
    /// The project: a component file a step names is read only inside it.
    boundary: crate::fsio::Boundary,
}

impl LazyIndex {
    /// `search(name)` indexes the files whose lower-cased text contains `name`; the
    /// files named by path (components) are read inside `boundary` only.
    pub fn new(
        boundary: crate::fsio::Boundary,
        search: impl Fn(&str, bool) -> ProjectIndex + Send + Sync + 'static,
    ) -> Self {
        Self {
            search: Box::new(search),
            found: Mutex::default(),
            found_whole: Mutex::default(),
            boundary,
        }
    }

    /// What the files mentioning `key` (a lower-case name) define of that name (searched
    /// once per name).
    fn for_name(&self, key: &str) -> std::sync::Arc<ProjectIndex> {
        self.searched(&self.found, key, false)
    }

    /// All the files mentioning `key` (a lower-case word) define (searched once per word).
    fn for_word(&self, key: &str) -> std::sync::Arc<ProjectIndex> {
        self.searched(&self.found_whole, key, true)
    }

    fn searched(
        &self,
        found: &Mutex<HashMap<String, std::sync::Arc<ProjectIndex>>>,
        key: &str,
        whole: bool,
    ) -> std::sync::Arc<ProjectIndex> {
        if let Some(hit) = found.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
            return hit.clone();
        }
        let index = std::sync::Arc::new((self.search)(key, whole));
        found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.to_string())
            .or_insert(index)
            .clone()
    }

    /// How many names and words have been searched for.
    pub fn searches(&self) -> usize {
        self.found.lock().unwrap_or_else(|e| e.into_inner()).len()
            + self.found_whole.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl std::fmt::Debug for LazyIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyIndex")
            .field("searches", &self.searches())
            .finish()
    }
}

/// A compute type as a target type name, from the compute document's kind.
pub fn compute_type_of_kind(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "amlCompute" => "amlcompute",
        "computeInstance" => "computeinstance",
        "kubernetesCompute" => "kubernetes",
        "vmCompute" => "virtualmachine",
        "synapseSparkCompute" => "synapsespark",
        _ => return None,
    })
}

/// The words a file that defines a compute of type `ctype` contains (without case), for
/// the search of the rest of the project: the type itself (compute YAML, `az ml compute
/// create --type`, the SDK's `AmlCompute(`, ARM's and Bicep's `computeType`), and the
/// Terraform resource types, which do not spell it.
fn type_needles(ctype: &str) -> Vec<String> {
    let mut out = vec![ctype.to_lowercase()];
    match ctype {
        "amlcompute" => out.push("machine_learning_compute_cluster".into()),
        "computeinstance" => out.push("machine_learning_compute_instance".into()),
        _ => {}
    }
    out
}

fn top_string(doc: &Document, key: &str) -> Option<String> {
    let id = doc.get(doc.root?, key)?;
    match doc.value(id) {
        Value::Str(s) => Some(s.to_string()),
        Value::Int(_) | Value::Float(_) | Value::BigInt(_) => {
            Some(crate::document::yaml11::python_str(doc.value(id)))
        }
        _ => None,
    }
}

impl ProjectIndex {
    /// Records a compute definition (from any source) that starts on `line` of its file;
    /// one without a known name defines nothing to look up.
    pub fn add_definition(&mut self, def: &ComputeDef, line: u32) {
        if let Some(entry) = ComputeEntry::of(def) {
            self.add_compute(ComputeEntry { line, ..entry });
        }
    }

    fn add_compute(&mut self, entry: ComputeEntry) {
        let defs = self.computes.entry(entry.name.to_lowercase()).or_default();
        if !defs.iter().any(|d| d.file == entry.file && d.span == entry.span) {
            defs.push(entry);
        }
    }

    /// Records what a classified document defines (endpoints, models, environments,
    /// component interfaces; computes come from `add_definition`). `file` is its path
    /// on disk.
    pub fn add(&mut self, file: &Path, doc: &Document, kind: &Kind) {
        let display = file.to_string_lossy().to_string();
        if super::interface::is_component_kind(&kind.id)
            && let Some(root) = doc.root
        {
            self.components.entry(component_key(file)).or_insert_with(|| {
                std::sync::Arc::new(ComponentEntry {
                    kind: kind.id.clone(),
                    interface: super::interface::Interface::read(doc, root),
                    file: display.clone(),
                })
            });
        }
        // Computes are added from their definitions (`add_definition`), whatever file
        // defines them.
        let Some(name) = top_string(doc, "name") else {
            return;
        };
        match kind.id.as_str() {
            "managedOnlineEndpoint" | "kubernetesOnlineEndpoint" | "batchEndpoint" => {
                self.endpoints
                    .entry(name.to_lowercase())
                    .or_insert(EndpointEntry {
                        name,
                        compute: top_string(doc, "compute"),
                        kind: kind.id.clone(),
                        file: Some(display),
                    });
            }
            "model" => self.models.push(ModelEntry {
                name,
                version: top_string(doc, "version"),
                path: top_string(doc, "path"),
                dir: file.parent().map(Path::to_path_buf),
                size_bytes: None,
                file: Some(display),
            }),
            "environment" => self.environments.push(EnvironmentEntry {
                name,
                version: top_string(doc, "version"),
                file: display,
            }),
            _ => {}
        }
    }

    /// Adds what `other` defines: a compute's definitions come after those already known;
    /// an endpoint already known keeps its definition (as when both were built by one
    /// [`ProjectIndex::add`] sequence, `self`'s files first).
    pub fn merge(&mut self, other: &ProjectIndex) {
        for defs in other.computes.values() {
            for c in defs {
                self.add_compute(c.clone());
            }
        }
        for (k, e) in &other.endpoints {
            self.endpoints.entry(k.clone()).or_insert_with(|| e.clone());
        }
        self.models.extend(other.models.iter().cloned());
        self.environments.extend(other.environments.iter().cloned());
        for (k, c) in &other.components {
            self.components.entry(k.clone()).or_insert_with(|| c.clone());
        }
    }

    /// Adds what `other` defines of the name `key` (lower-case) alone, as [`merge`] would:
    /// its computes and endpoint of that name, its models of that name; and its components
    /// (looked up by path, not by name).
    ///
    /// [`merge`]: ProjectIndex::merge
    pub fn merge_name(&mut self, other: &ProjectIndex, key: &str) {
        for c in other.computes.get(key).into_iter().flatten() {
            self.add_compute(c.clone());
        }
        if let Some(e) = other.endpoints.get(key) {
            self.endpoints.entry(key.to_string()).or_insert_with(|| e.clone());
        }
        self.models.extend(
            other
                .models
                .iter()
                .filter(|m| m.name.eq_ignore_ascii_case(key))
                .cloned(),
        );
        self.environments.extend(
            other
                .environments
                .iter()
                .filter(|e| e.name.eq_ignore_ascii_case(key))
                .cloned(),
        );
        for (k, c) in &other.components {
            self.components.entry(k.clone()).or_insert_with(|| c.clone());
        }
    }

    /// Whether it defines nothing (the rest of the project aside).
    pub fn is_empty(&self) -> bool {
        self.computes.is_empty()
            && self.endpoints.is_empty()
            && self.models.is_empty()
            && self.environments.is_empty()
            && self.components.is_empty()
    }

    /// Sets what the rest of the project defines, consulted for names the index's own
    /// files do not define (their definitions take precedence).
    pub fn with_rest(mut self, rest: LazyIndex) -> Self {
        self.rest = Some(Box::new(rest));
        self
    }

    /// How many names the rest of the project has been searched for.
    pub fn rest_searches(&self) -> usize {
        self.rest.as_ref().map_or(0, |r| r.searches())
    }

    /// Whether both define the same computes, endpoints, models and components (the
    /// rest of the project aside): the language server re-checks open files when a
    /// file's definitions change. Environments are left out: no check reads them, so a
    /// change to one changes no finding.
    pub fn same_definitions(&self, other: &ProjectIndex) -> bool {
        self.computes == other.computes
            && self.endpoints == other.endpoints
            && self.models == other.models
            && self.components == other.components
    }

    /// An empty index that records whether it is consulted: a file checked against it
    /// whose checks made no lookup has findings that no definition elsewhere can change
    /// (`pipeline::run` checks such files as soon as they are loaded).
    pub fn probe() -> Self {
        Self {
            consulted: Some(std::sync::atomic::AtomicBool::new(false)),
            ..Self::default()
        }
    }

    /// Whether a compute, endpoint or model was looked up in this (probe) index.
    pub fn was_consulted(&self) -> bool {
        self.consulted
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn note_lookup(&self) {
        if let Some(c) = &self.consulted {
            c.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// A compute by name: what its definitions agree on, those of the checked files and of
    /// the rest of the project together, as a whole run sees them (a partial run that
    /// took only the checked files' would resolve a name the whole run finds in conflict).
    pub fn compute(&self, name: &str) -> Option<ComputeEntry> {
        self.note_lookup();
        agreed(&self.compute_definitions(name))
    }

    /// Every definition of a compute, in the checked files and in the rest of the project.
    pub fn compute_definitions(&self, name: &str) -> Vec<ComputeEntry> {
        self.note_lookup();
        let key = name.to_lowercase();
        let mut out = self.computes.get(&key).cloned().unwrap_or_default();
        if let Some(rest) = &self.rest {
            for c in rest.for_name(&key).computes.get(&key).into_iter().flatten() {
                if !out.iter().any(|d| d.file == c.file && d.span == c.span) {
                    out.push(c.clone());
                }
            }
        }
        in_project_order(&mut out);
        without_overridden(&mut out);
        out
    }

    /// The component file at `path` (any form; made absolute), when the project holds it.
    pub fn component(&self, path: &Path) -> Option<std::sync::Arc<ComponentEntry>> {
        self.note_lookup();
        let key = component_key(path);
        if let Some(c) = self.components.get(&key) {
            return Some(c.clone());
        }
        // Only some files of the project are checked (pre-commit, an editor buffer): the
        // component file named is read once, as the rest of the project is for names.
        let boundary = &self.rest.as_ref()?.boundary;
        let mut cache = self.rest_components.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(key)
            .or_insert_with_key(|key| read_component(key, boundary))
            .clone()
    }

    /// Every compute of type `ctype` (`amlcompute`) the project defines: those of this
    /// index, and those of the rest of the project (the files that mention the type: a
    /// cluster's file names it in `type:` or its `$schema`), sorted by name.
    pub fn computes_of_type(&self, ctype: &str) -> Vec<ComputeEntry> {
        self.note_lookup();
        let mut found: HashMap<String, ComputeEntry> = self
            .computes
            .iter()
            .filter_map(|(k, defs)| Some((k.clone(), agreed(defs)?)))
            .filter(|(_, c)| c.ctype == ctype)
            .collect();
        if let Some(rest) = &self.rest {
            for needle in type_needles(ctype) {
                for (k, defs) in &rest.for_word(&needle).computes {
                    if self.computes.contains_key(k) {
                        continue;
                    }
                    if let Some(c) = agreed(defs).filter(|c| c.ctype == ctype) {
                        found.entry(k.clone()).or_insert(c);
                    }
                }
            }
        }
        let mut out: Vec<ComputeEntry> = found.into_values().collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The names of the computes this index holds (not the lazily searched rest).
    pub fn compute_names(&self) -> Vec<&str> {
        self.note_lookup();
        self.computes
            .values()
            .filter_map(|c| c.first())
            .map(|c| c.name.as_str())
            .collect()
    }

    /// The names (as written, without repeats, sorted) of the computes this index holds
    /// (not the lazily searched rest) whose definitions read the compute YAML `file` (as
    /// displayed): `az ml compute create --file file --name X` names a YAML that gives no
    /// `name:` (audit 29, case 03).
    pub fn names_reading(&self, file: &str) -> Vec<&str> {
        self.note_lookup();
        let mut out: Vec<&str> = self
            .computes
            .values()
            .flatten()
            .filter(|c| c.reads.as_deref() == Some(file))
            .map(|c| c.name.as_str())
            .collect();
        out.sort_unstable();
        out.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        out
    }

    /// The names of the endpoints this index holds (not the lazily searched rest).
    pub fn endpoint_names(&self) -> Vec<&str> {
        self.note_lookup();
        self.endpoints.values().map(|e| e.name.as_str()).collect()
    }

    /// The models this index holds (not the lazily searched rest).
    pub fn models(&self) -> &[ModelEntry] {
        self.note_lookup();
        &self.models
    }

    /// The environments this index holds (not the lazily searched rest; no probe
    /// records this: no check asks).
    pub fn environments(&self) -> &[EnvironmentEntry] {
        &self.environments
    }

    /// An environment by name and version (`None`: the highest version).
    pub fn environment(&self, name: &str, version: Option<&str>) -> Option<&EnvironmentEntry> {
        let mut candidates = self
            .environments
            .iter()
            .filter(|e| e.name.eq_ignore_ascii_case(name));
        match version {
            Some(v) => candidates.find(|e| e.version.as_deref() == Some(v)),
            None => candidates.max_by(|a, b| version_order(a.version.as_deref(), b.version.as_deref())),
        }
    }

    pub fn endpoint(&self, name: &str) -> Option<EndpointEntry> {
        self.note_lookup();
        let key = name.to_lowercase();
        if let Some(e) = self.endpoints.get(&key) {
            return Some(e.clone());
        }
        self.rest.as_ref()?.for_name(&key).endpoints.get(&key).cloned()
    }

    /// A model by name and version (`None`: the highest version known anywhere in the
    /// project).
    pub fn model(&self, name: &str, version: Option<&str>) -> Option<ModelEntry> {
        self.note_lookup();
        let rest = self.rest.as_ref().map(|r| r.for_name(&name.to_lowercase()));
        let rest_models = rest.iter().flat_map(|r| r.models.iter());
        let mut candidates = self
            .models
            .iter()
            .chain(rest_models)
            .filter(|m| m.name.eq_ignore_ascii_case(name));
        let found = match version {
            Some(v) => candidates.find(|m| m.version.as_deref() == Some(v)),
            None => candidates.max_by(|a, b| version_order(a.version.as_deref(), b.version.as_deref())),
        };
        found.cloned()
    }
}

/// Orders versions numerically where they are numbers ("10" > "9").
fn version_order(a: Option<&str>, b: Option<&str>) -> std::cmp::Ordering {
    let key = |v: Option<&str>| v.map(|s| (s.parse::<u64>().ok(), s.to_string()));
    key(a).cmp(&key(b))
}

/// A reference to an asset or compute, as the CLI accepts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// `local`: run on the submitting machine.
    Local,
    /// `serverless` or `azureml:serverless`.
    Serverless,
    /// A `${{...}}` binding: resolved only at run time.
    Binding,
    /// A named asset or compute: `azureml:name`, `azureml:name:version`, `name@label`,
    /// an ARM id, or a bare name.
    Named { name: String, version: Option<String> },
    /// A registry or other URI whose target amlint cannot know.
    Remote,
}

/// A name that a template fills in before the file is used (`<K8S_COMPUTE_NAME>`,
/// `{{compute}}`, `#{compute}#`, `$(COMPUTE)`, `${COMPUTE}`, `__COMPUTE__`): no Azure ML
/// name holds `<>{}$` or starts with `_`, so it is never a compute's own name, and what it
/// will be is not known.
pub fn is_template_name(name: &str) -> bool {
    name.contains(['<', '>', '{', '}', '$'])
        || (name.len() > 4 && name.starts_with("__") && name.ends_with("__"))
}

/// Parses a compute or asset reference.
pub fn parse_reference(s: &str) -> Reference {
    let s = s.trim();
    if s.contains("${{") {
        return Reference::Binding;
    }
    if s.eq_ignore_ascii_case("local") {
        return Reference::Local;
    }
    let body = s.strip_prefix("azureml:").unwrap_or(s);
    if body.eq_ignore_ascii_case("serverless") {
        return Reference::Serverless;
    }
    if body.starts_with("//") || s.contains("://") {
        return Reference::Remote;
    }
    if body.starts_with('/') {
        // ARM id: .../computes/<name> or .../models/<name>/versions/<v>
        let parts: Vec<&str> = body.split('/').filter(|p| !p.is_empty()).collect();
        if let Some(i) = parts.iter().rposition(|p| p.eq_ignore_ascii_case("versions")) {
            if i >= 1 {
                return Reference::Named {
                    name: parts[i - 1].to_string(),
                    version: parts.get(i + 1).map(|v| v.to_string()),
                };
            }
        }
        return match parts.last() {
            Some(name) => Reference::Named {
                name: name.to_string(),
                version: None,
            },
            None => Reference::Remote,
        };
    }
    if let Some((name, _label)) = body.split_once('@') {
        return Reference::Named {
            name: name.to_string(),
            version: None,
        };
    }
    match body.split_once(':') {
        Some((name, version)) => Reference::Named {
            name: name.to_string(),
            version: Some(version.to_string()),
        },
        None => Reference::Named {
            name: body.to_string(),
            version: None,
        },
    }
}

/// What the run learns from the files the project's configurations name, once per path:
/// the sizes of model files and folders (only metadata is read; symbolic links are not
/// followed; special files count as unknown), and whether a conda file reads as YAML
/// ([`DiskSizes::conda_problem`]).
#[derive(Debug, Default)]
pub struct DiskSizes {
    cache: Mutex<HashMap<PathBuf, Option<u64>>>,
    /// The project: a model path leading outside it is not measured (unknown).
    boundary: crate::fsio::Boundary,
    /// [`DiskSizes::conda_problem`]'s answers, by real path.
    conda: Mutex<HashMap<PathBuf, Option<std::sync::Arc<CondaProblem>>>>,
    /// The run's bounds on what a file read may take.
    limits: crate::limits::Limits,
}

/// What is wrong with a conda environment file that a configuration names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondaProblem {
    /// Not YAML (PyYAML, which the CLI reads it with, refuses it): the parser's reason, at
    /// a line (1-based) and column (1-based) of the conda file.
    NotYaml { line: u32, column: u32, reason: String },
    /// YAML, but not a mapping: what it is instead (`a list`, `a single value`).
    NotMapping { what: &'static str },
}

impl CondaProblem {
    /// The problem of a conda file's text, read with amlint's YAML loader (PyYAML's
    /// reading): `None` when it is one mapping.
    pub fn of_text(name: &str, text: String, limits: &crate::limits::Limits) -> Option<CondaProblem> {
        let loaded = crate::load::parse_text(name, text, crate::load::Format::Yaml, limits);
        let at = |span: Span, reason: String| {
            let p = loaded.source.position(span.start);
            Some(CondaProblem::NotYaml {
                line: p.line,
                column: p.column,
                reason,
            })
        };
        if let Some(d) = loaded
            .diagnostics
            .iter()
            .find(|d| d.code == crate::diagnostic::codes::AML001.code)
        {
            let reason = d
                .message
                .strip_prefix("YAML syntax error: ")
                .unwrap_or(&d.message);
            return at(d.span, reason.to_string());
        }
        // `yaml.safe_load` takes one document.
        if let Some(second) = loaded.documents.get(1) {
            return at(
                second.span,
                "expected a single document in the stream, but found another document".to_string(),
            );
        }
        let what = match loaded.documents.first().and_then(Document::root_value) {
            // Read as `None`: the environment has no conda specification, as without the key.
            None | Some(Value::Null) | Some(Value::Map(_)) => return None,
            Some(Value::Seq(_)) => "a list",
            Some(Value::Alias(_)) => return None,
            Some(_) => "a single value",
        };
        Some(CondaProblem::NotMapping { what })
    }
}

/// At most this many entries are visited under one model folder.
const MAX_ENTRIES: usize = 200_000;

impl DiskSizes {
    /// Sizes measured inside `boundary` only.
    pub fn within(boundary: crate::fsio::Boundary) -> Self {
        Self {
            cache: Mutex::default(),
            boundary,
            conda: Mutex::default(),
            limits: crate::limits::Limits::default(),
        }
    }

    /// Files read within `limits` (the run's), not the default ones.
    pub fn with_limits(mut self, limits: crate::limits::Limits) -> Self {
        self.limits = limits;
        self
    }

    /// What is wrong with the conda file at `path` (an existing file of the project, as
    /// `boundary` says), read through `fsio` within the run's limits and parsed once per
    /// run however many configurations name it; `None` when it is one YAML mapping, or when
    /// it cannot be read as text (too large, not UTF-8, a link out: no judgement).
    pub fn conda_problem(
        &self,
        path: &Path,
        boundary: &crate::fsio::Boundary,
    ) -> Option<std::sync::Arc<CondaProblem>> {
        let limits = &self.limits;
        let real = boundary.resolve_named(path).ok()?;
        if let Some(hit) = self.conda.lock().unwrap_or_else(|e| e.into_inner()).get(&real) {
            return hit.clone();
        }
        let problem = crate::load::read_text(path, boundary, limits)
            .ok()
            .and_then(|text| CondaProblem::of_text(&path.to_string_lossy(), text, limits))
            .map(std::sync::Arc::new);
        self.conda
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(real)
            .or_insert(problem)
            .clone()
    }

    /// The project these sizes are measured in: the run's boundary.
    pub fn boundary(&self) -> &crate::fsio::Boundary {
        &self.boundary
    }

    pub fn size_of(&self, path: &Path) -> Option<u64> {
        if let Some(hit) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
            return *hit;
        }
        let size = measure(path, &self.boundary);
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_path_buf(), size);
        size
    }
}

fn measure(path: &Path, boundary: &crate::fsio::Boundary) -> Option<u64> {
    use crate::fsio::Looked;
    let real = boundary.resolve_named(path).ok()?;
    match crate::fsio::look_here(&real)?? {
        Looked::File { len } => return Some(len),
        Looked::Dir => {}
        Looked::Special(_) => return None,
    }
    let mut total = 0u64;
    let mut stack = vec![real];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        // Listed as it is: links inside the folder are not followed.
        let entries = crate::fsio::list_dir(&dir, boundary, MAX_ENTRIES - seen).ok()?;
        seen += entries.len();
        for (name, kind) in entries {
            match kind {
                Some(Looked::Dir) => stack.push(dir.join(name)),
                Some(Looked::File { len }) => total += len,
                _ => {}
            }
        }
    }
    Some(total)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {

    #[test]
    fn a_probe_records_any_lookup() {
        for lookup in [
            (|i: &ProjectIndex| drop(i.compute("cpu-cluster"))) as fn(&ProjectIndex),
            |i| drop(i.endpoint("my-endpoint")),
            |i| drop(i.model("m", Some("1"))),
        ] {
            let probe = ProjectIndex::probe();
            assert!(!probe.was_consulted());
            lookup(&probe);
            assert!(probe.was_consulted());
        }
        let plain = ProjectIndex::default();
        plain.compute("cpu-cluster");
        assert!(!plain.was_consulted(), "only a probe records");
    }

    use super::*;

    #[test]
    fn references() {
        assert_eq!(parse_reference("local"), Reference::Local);
        assert_eq!(parse_reference("azureml:serverless"), Reference::Serverless);
        assert_eq!(parse_reference("${{parent.inputs.compute}}"), Reference::Binding);
        assert_eq!(
            parse_reference("azureml:gpu-cluster"),
            Reference::Named {
                name: "gpu-cluster".into(),
                version: None
            }
        );
        assert_eq!(
            parse_reference("cpu-cluster"),
            Reference::Named {
                name: "cpu-cluster".into(),
                version: None
            }
        );
        assert_eq!(
            parse_reference("azureml:credit:3"),
            Reference::Named {
                name: "credit".into(),
                version: Some("3".into())
            }
        );
        assert_eq!(
            parse_reference("azureml:credit@latest"),
            Reference::Named {
                name: "credit".into(),
                version: None
            }
        );
        assert_eq!(
            parse_reference(
                "azureml:/subscriptions/s/resourceGroups/r/providers/Microsoft.MachineLearningServices/workspaces/w/computes/k8s"
            ),
            Reference::Named {
                name: "k8s".into(),
                version: None
            }
        );
        assert_eq!(
            parse_reference("azureml://registries/azureml/models/phi/versions/3"),
            Reference::Remote
        );
    }

    /// Environments are indexed (by name, highest version for none), yet a change to one
    /// is not a change of definitions: no check reads them.
    #[test]
    fn environments_are_indexed_outside_the_definitions_checks_read() {
        let env = |name: &str, version: Option<&str>| EnvironmentEntry {
            name: name.into(),
            version: version.map(Into::into),
            file: format!("{name}.yml"),
        };
        let mut index = ProjectIndex::default();
        assert!(index.is_empty());
        index.environments = vec![env("sk", Some("9")), env("sk", Some("10")), env("torch", None)];
        assert!(!index.is_empty(), "a file defining an environment is kept");
        assert_eq!(
            index.environment("SK", None).and_then(|e| e.version.as_deref()),
            Some("10")
        );
        assert_eq!(
            index.environment("sk", Some("9")).map(|e| e.file.as_str()),
            Some("sk.yml")
        );
        assert!(index.environment("sk", Some("1")).is_none());
        assert!(index.environment("torch", None).is_some());
        assert!(index.same_definitions(&ProjectIndex::default()));
        let mut merged = ProjectIndex::default();
        merged.merge(&index);
        assert_eq!(merged.environments().len(), 3);
    }

    #[test]
    fn measures_files_and_folders_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("m/sub")).unwrap();
        std::fs::write(dir.path().join("m/a.bin"), vec![0u8; 1000]).unwrap();
        std::fs::write(dir.path().join("m/sub/b.bin"), vec![0u8; 24]).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("m/zero")).unwrap();
        let sizes = DiskSizes::default();
        assert_eq!(sizes.size_of(&dir.path().join("m")), Some(1024));
        assert_eq!(sizes.size_of(&dir.path().join("m/a.bin")), Some(1000));
        assert_eq!(sizes.size_of(&dir.path().join("nope")), None);
        assert_eq!(sizes.size_of(Path::new("/dev/zero")), None);
    }

    /// Several definitions of one name: what they agree on; a type or size two of them
    /// state differently is not known (a conflict is reported, never resolved by order).
    #[test]
    fn definitions_of_one_name_resolve_to_what_they_agree_on() {
        let entry = |file: &str, ctype: &str, size: Option<&str>| ComputeEntry {
            name: "GPU".into(),
            ctype: ctype.into(),
            size: size.map(Into::into),
            file: Some(file.into()),
            source: SourceKind::AzCli,
            span: Span::new(0, 1),
            line: 1,
            scale: None,
            reads: None,
        };
        let mut index = ProjectIndex::default();
        index.add_compute(entry("a.sh", "amlcompute", Some("Standard_NC6")));
        index.add_compute(entry("a.sh", "amlcompute", Some("Standard_NC6")));
        assert_eq!(
            index.compute_definitions("gpu").len(),
            1,
            "one definition added twice"
        );
        index.add_compute(entry("b.sh", "", Some("standard_nc6")));
        let c = index.compute("gpu").unwrap();
        assert_eq!(
            (c.ctype.as_str(), c.size.as_deref()),
            ("amlcompute", Some("Standard_NC6"))
        );
        assert_eq!(c.file.as_deref(), Some("a.sh"));
        index.add_compute(entry("c.tf", "computeinstance", Some("Standard_DS3_v2")));
        let c = index.compute("gpu").unwrap();
        assert_eq!((c.ctype.as_str(), c.size), ("", None));
        assert_eq!(index.compute_definitions("GPU").len(), 3);
        assert_eq!(index.compute_names(), ["GPU"]);
    }

    #[test]
    fn the_rest_of_the_project_is_searched_only_when_a_lookup_misses() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let builds = std::sync::Arc::new(AtomicUsize::new(0));
        let counter = builds.clone();
        let entry = |name: &str, ctype: &str| ComputeEntry {
            name: name.into(),
            ctype: ctype.into(),
            size: None,
            file: None,
            source: SourceKind::AmlYaml,
            span: Span::default(),
            line: 0,
            scale: None,
            reads: None,
        };
        let mut own = ProjectIndex::default();
        own.add_compute(entry("cpu", "amlcompute"));
        let gpu = entry("gpu", "kubernetes");
        let index = own.with_rest(LazyIndex::new(
            crate::fsio::Boundary::anywhere(),
            move |name, _| {
                counter.fetch_add(1, Ordering::SeqCst);
                let mut rest = ProjectIndex::default();
                if name == "gpu" {
                    rest.add_compute(gpu.clone());
                }
                rest
            },
        ));
        // Nothing is searched before a lookup; each name (lower-cased) is searched once,
        // a name the checked files define too (another definition would make it a
        // conflict, as in the whole run).
        assert_eq!(builds.load(Ordering::SeqCst), 0);
        assert_eq!(index.compute("CPU").map(|c| c.ctype), Some("amlcompute".into()));
        assert_eq!(index.rest_searches(), 1);
        assert_eq!(index.compute("GPU").map(|c| c.ctype), Some("kubernetes".into()));
        assert_eq!(index.compute("gpu").map(|c| c.ctype), Some("kubernetes".into()));
        assert_eq!(builds.load(Ordering::SeqCst), 2);
        assert_eq!(index.compute("none"), None);
        assert!(index.endpoint("none").is_none());
        assert_eq!(index.rest_searches(), 3);
        assert_eq!(builds.load(Ordering::SeqCst), 3);
    }

    /// Audit 13, case 02: a partial run finds the checked files' definitions first and the
    /// rest of the project's after; what a lookup gives is the whole run's answer: every
    /// definition in project order (the first other one is what AML205 names), and a name
    /// defined differently elsewhere resolved to no size.
    #[test]
    fn a_partial_run_sees_the_definitions_of_a_name_as_the_whole_run_does() {
        let entry = |file: &str, at: u32, size: &str| ComputeEntry {
            name: "cpu".into(),
            ctype: "amlcompute".into(),
            size: Some(size.into()),
            file: Some(file.into()),
            source: SourceKind::PythonSdk,
            span: Span::new(at, at + 1),
            line: 1,
            scale: None,
            reads: None,
        };
        let mut own = ProjectIndex::default();
        own.add_compute(entry("z/two.py", 40, "Standard_D2_v2"));
        own.add_compute(entry("z/two.py", 10, "Standard_DS3_v2"));
        let index = own.with_rest(LazyIndex::new(
            crate::fsio::Boundary::anywhere(),
            move |name, _| {
                let mut rest = ProjectIndex::default();
                if name == "cpu" {
                    rest.add_compute(entry("a/one.py", 5, "Standard_DS12_v2"));
                    rest.add_compute(entry("z-x/three.py", 5, "Standard_DS12_v2"));
                }
                rest
            },
        ));
        let order: Vec<(String, u32)> = index
            .compute_definitions("CPU")
            .into_iter()
            .map(|d| (d.file.unwrap(), d.span.start))
            .collect();

        assert_eq!(
            order,
            [
                ("a/one.py".to_string(), 5),
                ("z-x/three.py".to_string(), 5),
                ("z/two.py".to_string(), 10),
                ("z/two.py".to_string(), 40),
            ]
        );
        let c = index.compute("cpu").unwrap();
        assert_eq!((c.size, c.file.as_deref()), (None, Some("a/one.py")));
    }
}
