//! The analysis state: the workspace folders' files (loaded from disk, for the project
//! index and workspace-wide diagnostics), the open documents (their text wins over the
//! disk), the configuration resolver, and the fact bases built from the index. Checks go
//! through the CLI's pipeline (`prepare_with`, `index_of`, `FactBases`, `check_and_filter`),
//! so findings, configuration and suppressions are exactly the CLI's. Files are paths;
//! what the checks find comes back as [`FileDiagnostics`] for the caller to show (what a
//! client already shows is the caller's to remember).
//!
//! The open documents' text wins for the definition readers too: the other files a
//! definition reads (`az ml compute create -f cluster.yml`, a helper module, a `.tfvars`)
//! are read through `facts::sources::Files` with the open documents as an [`Unsaved`]
//! overlay, and each parse remembers the paths its readers read. An edit of an open
//! document, its opening with other text than the disk's, its closing, or a change on
//! disk re-parses the files that read it (`Analysis::readers_changed`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::resolve::ConfigFilter;
use crate::config::{CONFIG_FILE_NAMES, ConfigError, Resolver};
use crate::diagnostic::Diagnostic;
use crate::discover::{self, Filter as _};
use crate::facts::ProjectIndex;
use crate::facts::sources::{Files, Unsaved};
use crate::fsio::Boundary;
use crate::kinds::Classification;
use crate::limits::Limits;
use crate::load::{self, Format};
use crate::pipeline::{self, FactBases, Options, Prepared};
use crate::project::Project;
use crate::registry::Registry;
use crate::results::FileReport;
use crate::source::{SourceFile, Span};

/// An open document.
pub struct OpenDoc {
    /// The file it stands for (for an unsaved buffer, a name in the first folder).
    pub path: PathBuf,
    pub version: i32,
    pub text: String,
    /// Excluded by its configuration (`exclude`): never checked, defines nothing, as
    /// with `amlint check --force-exclude`.
    excluded: bool,
    /// The parse of `text` at `parsed_version` (feeds the index; kept for actions).
    parsed: Option<(i32, Prepared)>,
    /// The files the definitions of `parsed` read (hashed paths, sorted).
    reads: Reads,
    /// A file its definitions read changed: parsed again although its text did not.
    reparse: bool,
    /// The findings of the last check.
    pub checked: Option<Checked>,
}

/// The outcome of checking one version of an open document.
pub struct Checked {
    pub version: i32,
    pub source: Arc<SourceFile>,
    /// The parsed documents (suppression edits need to know where scalars are).
    pub prepared: Prepared,
    pub diagnostics: Vec<Diagnostic>,
    /// The rules of the file's configuration (user rules included).
    pub registry: Arc<Registry>,
}

impl Checked {
    pub fn format(&self) -> Format {
        self.prepared.loaded.format
    }
}

/// What a check found in one file, for the caller to show: findings, or the errors of a
/// configuration file. No items: whatever the file showed goes.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // Findings are the common case; no boxing for each.
pub enum FileProblem {
    Finding(Diagnostic),
    /// An error of a configuration file (no rule code).
    Config {
        span: Span,
        message: String,
    },
}

/// The problems of one file, with its text (for positions) and, for an open document,
/// the version they describe.
#[derive(Debug)]
pub struct FileDiagnostics {
    pub path: PathBuf,
    pub version: Option<i32>,
    pub source: Arc<SourceFile>,
    pub problems: Vec<FileProblem>,
}

impl FileDiagnostics {
    /// Nothing to show for `path`.
    fn cleared(path: PathBuf, version: Option<i32>) -> Self {
        let source = SourceFile::new(path.to_string_lossy(), String::new());
        Self {
            path,
            version,
            source,
            problems: Vec::new(),
        }
    }

    fn of_report(path: PathBuf, version: Option<i32>, report: &FileReport) -> Self {
        Self {
            path,
            version,
            source: report.source.clone(),
            problems: report
                .diagnostics
                .iter()
                .cloned()
                .map(FileProblem::Finding)
                .collect(),
        }
    }

    /// Whether any finding has `code`.
    pub fn has(&self, code: &str) -> bool {
        self.problems
            .iter()
            .any(|p| matches!(p, FileProblem::Finding(d) if d.code == code))
    }
}

/// What closing a document did.
pub enum Closed {
    /// A workspace file: back to its state on disk, checked again as such (its
    /// diagnostics are published whatever they are).
    BackToDisk(PathBuf),
    /// Not a workspace file: its diagnostics go.
    Gone(FileDiagnostics),
    NotOpen,
}

pub struct Analysis {
    options: Options,
    folders: Vec<PathBuf>,
    /// Each folder with where links in it may lead.
    bounds: Vec<(PathBuf, Boundary)>,
    cwd: PathBuf,
    resolver: Arc<Resolver>,
    /// The workspace folders' files as on disk: what is kept of them (not their text
    /// nor their trees).
    disk: BTreeMap<PathBuf, DiskFile>,
    open: HashMap<PathBuf, OpenDoc>,
    /// Built from the index when first needed; `None` after a definition changed.
    bases: Option<Arc<FactBases>>,
    dirty_open: BTreeSet<PathBuf>,
    dirty_disk: BTreeSet<PathBuf>,
    /// The workspace's files (not open) whose last check found a missing local path
    /// (AML201), or that were closed and not checked since: checked again when a path
    /// appears.
    missing_paths: HashSet<PathBuf>,
    /// The open documents' text, which the definition readers read instead of the disk
    /// (a script's `-f cluster.yml`, a helper module, a `.tfvars` being edited).
    unsaved: Arc<Unsaved>,
}

/// The files a parse's definition readers read or looked for (a compute YAML named by
/// `-f`, a helper module, a variables template; hashed paths, sorted): when one of them
/// changes, on disk or in an editor buffer, the file is parsed again.
type Reads = Box<[u64]>;

fn path_hash(path: &Path) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(path)
}

/// Classifies a loaded file and reads its definitions as the CLI does (`pipeline::prepare`),
/// except that the other files the readers consult are the open documents' text where
/// they are open; returns the parse and what the readers read.
fn prepare_over(
    path: PathBuf,
    loaded: load::LoadedFile,
    explicit: bool,
    unsaved: &Arc<Unsaved>,
    limits: &Limits,
) -> (Prepared, Reads) {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let files = Files::around(&dir, limits).with_unsaved(unsaved.clone());
    let prepared = pipeline::prepare_with(path, loaded, explicit, &files);
    let mut reads: Vec<u64> = files.consulted().iter().map(|p| path_hash(p)).collect();
    reads.sort_unstable();
    reads.dedup();
    (prepared, reads.into())
}

/// What a file defines (computes, endpoints, models): a change to it re-checks the rest.
fn contribution(p: &Prepared) -> ProjectIndex {
    pipeline::index_of(std::iter::once(p))
}

/// What the server keeps of a workspace file on disk: what it defines, whether its check
/// can report anything, and the words of its text (hashed) — never its text or trees, so
/// a workspace full of data files costs little more than their paths. A check re-reads
/// the file.
#[derive(Default)]
struct DiskFile {
    /// What it defines (`None`: nothing).
    defines: Option<Box<ProjectIndex>>,
    /// An Azure ML file, one that failed to load, or one that defines computes: checked
    /// (again) when the index changes. `false`: nothing to report, nothing else is kept.
    checked: bool,
    /// The hashes of its text's words (split where a file name ends), sorted: whether
    /// it mentions a path's name (AML201) without keeping the text.
    words: Box<[u64]>,
    /// The parse made while indexing, until the first check takes it.
    pending: Option<Box<Prepared>>,
    /// What its definition readers read.
    reads: Reads,
}

/// Characters that end a word of [`DiskFile::words`]: a file name containing none of
/// them is mentioned by a text only as a whole word.
fn word_break(c: char) -> bool {
    c.is_whitespace() || "\"'`:,/\\[]{}()#=;|&<>!?*$@%^~+".contains(c)
}

fn word_hash(word: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(word)
}

impl DiskFile {
    fn of((prepared, reads): (Prepared, Reads)) -> Self {
        let index = contribution(&prepared);
        let defines = (!index.is_empty()).then(|| Box::new(index));
        // An Azure ML file, one that failed to load, or one that defines computes outside
        // Azure ML YAML (a script, Terraform, a notebook...: its definitions have findings).
        let checked = prepared.classes.iter().any(Classification::is_checked)
            || !prepared.loaded.diagnostics.is_empty()
            || !prepared.definitions.is_empty();
        if !checked {
            return Self {
                defines,
                reads,
                ..Self::default()
            };
        }
        let mut words: Vec<u64> = prepared
            .loaded
            .source
            .text
            .split(word_break)
            .filter(|w| !w.is_empty())
            .map(word_hash)
            .collect();
        words.sort_unstable();
        words.dedup();
        Self {
            defines,
            checked,
            words: words.into(),
            pending: Some(Box::new(prepared)),
            reads,
        }
    }

    /// What it defines, as an index of its own.
    fn defines(&self) -> ProjectIndex {
        let mut index = ProjectIndex::default();
        if let Some(d) = &self.defines {
            index.merge(d);
        }
        index
    }

    /// Whether its text may mention `name` (a name with a word break in it: read again).
    fn mentions(&self, path: &Path, name: &str) -> bool {
        if name.contains(word_break) {
            // Read as any workspace file is: a regular file, bounded, without waiting.
            let read = crate::fsio::read_regular(
                path,
                load::Seen::Unknown,
                &Boundary::around(path.parent().unwrap_or(path)),
                crate::limits::Limits::default().max_file_size,
            );
            return read.map_or(true, |t| memchr::memmem::find(&t, name.as_bytes()).is_some());
        }
        self.words.binary_search(&word_hash(name)).is_ok()
    }
}

/// Loads and classifies a workspace file from disk (links held to `boundary`; a pipe or
/// device is looked at, never opened); the other files its definitions read are the open
/// documents' text where they are open.
fn load_disk(path: &Path, boundary: &Boundary, limits: &Limits, unsaved: &Arc<Unsaved>) -> (Prepared, Reads) {
    let display = path.to_string_lossy().into_owned();
    prepare_over(
        path.to_path_buf(),
        load::load_path(path, &display, load::Seen::Unknown, boundary, limits),
        false,
        unsaved,
        limits,
    )
}

/// Where the links of a file may lead: the project around the workspace folder holding
/// it (its git work tree, else the folder), else around its own directory.
fn boundary_for(bounds: &[(PathBuf, Boundary)], path: &Path) -> Boundary {
    bounds
        .iter()
        .find(|(folder, _)| path.starts_with(folder))
        .map(|(_, b)| b.clone())
        .unwrap_or_else(|| Boundary::around(path.parent().unwrap_or(path)))
}

/// Checks a prepared file as the CLI would, with the workspace's index; a panic becomes
/// an AML000 finding. Returns the report and the rules of the file's configuration.
fn check_with(
    bases: &FactBases,
    resolver: &Resolver,
    options: &Options,
    prepared: Prepared,
) -> (FileReport, Arc<Registry>) {
    let display = prepared.loaded.source.path.clone();
    let project = Project::detect(resolver, std::slice::from_ref(&prepared.path));
    let config = crate::config::WithProjectInventory::new(project.config.clone())
        .get(&resolver.for_file(&prepared.path));
    let registry = config.rules.arc();
    let base = bases.for_config(&config);
    let report = pipeline::guarded(&display, || {
        pipeline::check_and_filter(&prepared, &base, &project, options)
    })
    .unwrap_or_else(|r| *r);
    (report, registry)
}

fn is_config_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| CONFIG_FILE_NAMES.iter().any(|c| n == *c))
}

/// The configuration resolver of the workspace, as `amlint check` makes it: user rules
/// that do not compile are configuration errors (on the rule file).
fn resolver(options: &Options, cwd: &Path) -> Arc<Resolver> {
    Arc::new(Resolver::with_rule_check(
        options.config.clone(),
        cwd,
        Some(crate::ruleset::compile_errors),
    ))
}

impl Analysis {
    /// The analysis of the workspace `folders` (none: the current directory's files,
    /// as they are opened), with `amlint check`'s defaults.
    pub fn new(folders: Vec<PathBuf>) -> Self {
        Self::with_options(folders, Options::default())
    }

    pub fn with_options(folders: Vec<PathBuf>, options: Options) -> Self {
        let cwd = folders
            .first()
            .cloned()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let resolver = resolver(&options, &cwd);
        let bounds = folders.iter().map(|f| (f.clone(), Boundary::around(f))).collect();
        Self {
            options,
            folders,
            bounds,
            cwd,
            resolver,
            disk: BTreeMap::new(),
            open: HashMap::new(),
            bases: None,
            dirty_open: BTreeSet::new(),
            dirty_disk: BTreeSet::new(),
            missing_paths: HashSet::new(),
            unsaved: Arc::default(),
        }
    }

    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// Where a buffer without a file (`untitled:`) is taken to be: `name` in the first
    /// folder.
    pub fn unsaved_path(&self, name: &str) -> PathBuf {
        self.cwd.join(name)
    }

    fn filter(&self) -> Arc<ConfigFilter> {
        Arc::new(ConfigFilter {
            resolver: self.resolver.clone(),
            force_exclude: false,
        })
    }

    /// Whether the configuration excludes a file even when it is named (opened).
    fn excluded(&self, path: &Path) -> bool {
        let filter = ConfigFilter {
            resolver: self.resolver.clone(),
            force_exclude: true,
        };
        !filter.explicit_file(path)
    }

    fn in_workspace(&self, path: &Path) -> bool {
        self.folders.iter().any(|f| path.starts_with(f))
    }

    /// Loads every file of the workspace folders (what `amlint check` on them would
    /// walk), in parallel, and schedules a check of each.
    pub fn index_workspace(&mut self) {
        use rayon::prelude::*;
        let filter = self.filter();
        let folders: Vec<PathBuf> = self
            .folders
            .iter()
            .filter(|f| crate::fsio::is_dir(f))
            .cloned()
            .collect();
        let candidates: Vec<discover::Candidate> = folders
            .iter()
            .flat_map(|f| {
                discover::discover_filtered(
                    std::slice::from_ref(f),
                    filter.clone(),
                    &boundary_for(&self.bounds, f),
                )
            })
            .collect();
        let limits = self.options.limits.clone();
        let unsaved = &self.unsaved;
        // Each file's trees and text are dropped as soon as it is classified and
        // indexed, except an Azure ML file's, until its first check.
        let loaded: Vec<(PathBuf, DiskFile)> = candidates
            .par_iter()
            .filter_map(|c| {
                let path = crate::config::normalize(&c.path);
                let boundary = boundary_for(&self.bounds, &path);
                std::panic::catch_unwind(|| DiskFile::of(load_disk(&path, &boundary, &limits, unsaved)))
                    .ok()
                    .map(|f| (path, f))
            })
            .collect();
        self.disk = loaded.into_iter().collect();
        self.dirty_disk.clear();
        self.invalidate_index();
    }

    /// The index changed: every file, open or not, is checked again (in parallel; the
    /// caller shows only the results that differ from what it shows).
    fn invalidate_index(&mut self) {
        self.bases = None;
        self.dirty_open.extend(self.open.keys().cloned());
        self.dirty_disk.extend(
            self.disk
                .iter()
                .filter(|(_, f)| f.checked)
                .map(|(p, _)| p.clone()),
        );
    }

    /// Whether any check is pending.
    pub fn is_dirty(&self) -> bool {
        !self.dirty_open.is_empty() || !self.dirty_disk.is_empty()
    }

    pub fn doc(&self, path: &Path) -> Option<&OpenDoc> {
        self.open.get(path)
    }

    /// Whether `path` is a file of the workspace folders as walked (not open).
    pub fn is_workspace_file(&self, path: &Path) -> bool {
        self.disk.contains_key(path)
    }

    pub fn open(&mut self, path: PathBuf, version: i32, text: String) {
        let excluded = self.excluded(&path);
        // The definitions that read the file read the buffer from now on: those of other
        // files are read again when it differs from the disk.
        let differs = self.disk_text(&path).as_deref() != Some(text.as_str());
        Arc::make_mut(&mut self.unsaved).set(&path, &text);
        self.open.insert(
            path.clone(),
            OpenDoc {
                path: path.clone(),
                version,
                text,
                excluded,
                parsed: None,
                reads: Reads::default(),
                reparse: false,
                checked: None,
            },
        );
        self.dirty_open.insert(path.clone());
        if differs {
            self.readers_changed(&path);
        }
    }

    /// The text of `path` on disk, read as a workspace file is (`None`: no such file).
    fn disk_text(&self, path: &Path) -> Option<String> {
        let bytes = crate::fsio::read_regular(
            path,
            load::Seen::Unknown,
            &boundary_for(&self.bounds, path),
            self.options.limits.max_file_size,
        )
        .ok()?;
        String::from_utf8(bytes).ok()
    }

    /// Checks an open document again (on save).
    pub fn touch(&mut self, path: &Path) {
        if self.open.contains_key(path) {
            self.dirty_open.insert(path.to_path_buf());
        }
    }

    /// Replaces `span` of an open document's text (`None`: all of it) by `text`. The
    /// span is clamped to the text and to character boundaries.
    pub fn edit(&mut self, path: &Path, span: Option<Span>, text: &str) {
        let Some(doc) = self.open.get_mut(path) else {
            return;
        };
        match span {
            None => text.clone_into(&mut doc.text),
            Some(span) => {
                let fit = |at: u32| {
                    let mut at = (at as usize).min(doc.text.len());
                    while !doc.text.is_char_boundary(at) {
                        at -= 1;
                    }
                    at
                };
                let (start, end) = (fit(span.start), fit(span.end));
                let (start, end) = (start.min(end), start.max(end));
                doc.text.replace_range(start..end, text);
            }
        }
    }

    /// An open document's edits are done: it is at `version`, to be checked, and so are
    /// the files whose definitions read it (their readers read the buffer).
    pub fn changed(&mut self, path: &Path, version: i32) {
        let Some(doc) = self.open.get_mut(path) else {
            return;
        };
        doc.version = version;
        self.dirty_open.insert(path.to_path_buf());
        if Arc::make_mut(&mut self.unsaved).set(path, &doc.text) {
            self.readers_changed(path);
        }
    }

    /// Closes a document: a workspace file goes back to its disk state (and is checked
    /// as such); anything else has its diagnostics cleared.
    pub fn close(&mut self, path: &Path) -> Closed {
        let Some(doc) = self.open.remove(path) else {
            return Closed::NotOpen;
        };
        self.dirty_open.remove(path);
        // The definitions that read the buffer read the disk again.
        Arc::make_mut(&mut self.unsaved).remove(path);
        if self.disk_text(path).as_deref() != Some(doc.text.as_str()) {
            self.readers_changed(path);
        }
        let before = doc.parsed.as_ref().map(|(_, p)| contribution(p));
        let closed = if self.disk.contains_key(&doc.path) {
            self.reload_disk(&doc.path);
            self.dirty_disk.insert(doc.path.clone());
            // What the buffer showed is unknown here: it may name a missing path.
            self.missing_paths.insert(doc.path.clone());
            Closed::BackToDisk(doc.path.clone())
        } else {
            Closed::Gone(FileDiagnostics::cleared(doc.path.clone(), None))
        };
        let after = self.disk.get(&doc.path).map(DiskFile::defines);
        if !before
            .unwrap_or_default()
            .same_definitions(&after.unwrap_or_default())
        {
            self.invalidate_index();
        }
        closed
    }

    fn reload_disk(&mut self, path: &Path) -> Option<ProjectIndex> {
        let old = self.disk.remove(path).map(|f| f.defines());
        if crate::fsio::is_file(path) {
            let display = path.to_string_lossy().into_owned();
            let limits = &self.options.limits;
            let boundary = boundary_for(&self.bounds, path);
            let unsaved = &self.unsaved;
            if let Ok(f) = pipeline::guarded(&display, || {
                DiskFile::of(load_disk(path, &boundary, limits, unsaved))
            }) {
                self.disk.insert(path.to_path_buf(), f);
            }
        }
        old
    }

    /// Whether a change of `path` on disk changes the configuration: a configuration
    /// file or a file a configuration depends on (a file its `extend` names, a user rule
    /// file, a file in error: `Resolver::affects_configuration`); then call
    /// [`Analysis::reload_config`].
    pub fn affects_configuration(&self, path: &Path) -> bool {
        let path = crate::config::normalize(path);
        is_config_file(&path) || self.resolver.affects_configuration(&path)
    }

    /// A file changed on disk (saved, or changed by another program). Returns the file
    /// cleared when it no longer counts (its diagnostics go).
    pub fn disk_changed(&mut self, path: &Path) -> Option<FileDiagnostics> {
        let path = crate::config::normalize(path);
        self.local_path_changed(&path);
        let tracked = self.disk.contains_key(&path);
        let wanted = self.in_workspace(&path)
            && crate::fsio::is_file(&path)
            && path
                .file_name()
                .is_some_and(|n| discover::is_config_name(&n.to_string_lossy()))
            && self.filter().walked_file(&path);
        if !tracked && !wanted {
            return None;
        }
        let old = self.reload_disk(&path).unwrap_or_default();
        if !wanted {
            self.disk.remove(&path);
        }
        let new = self.disk.get(&path).map(DiskFile::defines).unwrap_or_default();
        let open = self.open.contains_key(&path);
        let mut cleared = None;
        if !open {
            if self.disk.contains_key(&path) {
                self.dirty_disk.insert(path.clone());
            } else {
                self.missing_paths.remove(&path);
                cleared = Some(FileDiagnostics::cleared(path.clone(), None));
            }
            if !old.same_definitions(&new) {
                // A definition on disk changed: everything may depend on it.
                self.invalidate_index();
            }
        }
        cleared
    }

    /// A path was created, changed or removed on disk: the files whose local paths
    /// (AML201) may name it are checked again — those with AML201 findings (it may now
    /// exist) and those whose text mentions its name (it may now be gone) — and, unless it
    /// is open (its buffer is what they read), the files whose compute definitions read it
    /// ([`Analysis::readers_changed`]).
    fn local_path_changed(&mut self, path: &Path) {
        let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            return;
        };
        for (open, doc) in &self.open {
            let found = doc
                .checked
                .as_ref()
                .is_some_and(|c| c.diagnostics.iter().any(|d| d.code == "AML201"));
            if !doc.excluded && (found || doc.text.contains(&name)) {
                self.dirty_open.insert(open.clone());
            }
        }
        for (file, f) in self.disk.iter().filter(|(_, f)| f.checked) {
            if self.missing_paths.contains(file) || f.mentions(file, &name) {
                self.dirty_disk.insert(file.clone());
            }
        }
        if !self.open.contains_key(path) {
            self.readers_changed(path);
        }
    }

    /// The text the definition readers see of `path` changed (on disk, in its open
    /// buffer, or its buffer closed): the files whose definitions read it are parsed
    /// again, open or not, and checked — those that read it or looked for it when they
    /// were last parsed (a script's `az ml compute create -f cluster.yml`, a Python call
    /// of a helper in `utils.py`, an Azure Pipelines variables template), and the
    /// Terraform, Bicep and ARM files beside it that take values from it (a `.tfvars`,
    /// a `.bicepparam`, a parameters file, a new one included). A definition that changed
    /// re-checks everything (the index changed).
    fn readers_changed(&mut self, path: &Path) {
        let hash = path_hash(path);
        let gives = crate::facts::sources::GivesTo::of(&path.to_string_lossy());
        let reads = |file: &Path, reads: &Reads| {
            file != path
                && (reads.binary_search(&hash).is_ok()
                    || (gives.any()
                        && file.parent() == path.parent()
                        && gives.takes(&file.to_string_lossy())))
        };
        for (file, doc) in &mut self.open {
            if !doc.excluded && reads(file, &doc.reads) {
                doc.reparse = true;
                self.dirty_open.insert(file.clone());
            }
        }
        let readers: Vec<PathBuf> = self
            .disk
            .iter()
            .filter(|(file, f)| !self.open.contains_key(*file) && reads(file, &f.reads))
            .map(|(file, _)| file.clone())
            .collect();
        let mut changed = false;
        for file in readers {
            // One that is gone is cleared by its own change.
            if !crate::fsio::is_file(&file) {
                continue;
            }
            let was_checked = self.disk.get(&file).is_some_and(|f| f.checked);
            let old = self.reload_disk(&file).unwrap_or_default();
            let Some(f) = self.disk.get(&file) else {
                continue;
            };
            // Checked again (or cleared, when it has nothing left to report).
            if f.checked || was_checked {
                self.dirty_disk.insert(file.clone());
            }
            changed |= !old.same_definitions(&f.defines());
        }
        if changed {
            self.invalidate_index();
        }
    }

    /// Reads the configuration again (an `amlint.toml` changed): a new resolver, the
    /// workspace walked again, everything checked again. Returns the files to clear:
    /// open documents the configuration now excludes, workspace files no longer walked.
    /// Then show [`Analysis::config_errors`].
    pub fn reload_config(&mut self) -> Vec<FileDiagnostics> {
        self.resolver = resolver(&self.options, &self.cwd);
        let mut cleared = Vec::new();
        // Open documents the configuration now excludes lose their diagnostics; those
        // it no longer excludes are parsed and checked with everything else.
        let excluded: Vec<(PathBuf, bool)> = self
            .open
            .keys()
            .map(|path| (path.clone(), self.excluded(path)))
            .collect();
        for (path, excluded) in excluded {
            let Some(doc) = self.open.get_mut(&path) else {
                continue;
            };
            if excluded && !doc.excluded {
                doc.parsed = None;
                doc.checked = None;
                cleared.push(FileDiagnostics::cleared(path, Some(doc.version)));
            }
            doc.excluded = excluded;
        }
        let before: HashSet<PathBuf> = self.disk.keys().cloned().collect();
        self.index_workspace();
        let mut gone: Vec<PathBuf> = before
            .into_iter()
            .filter(|p| !self.disk.contains_key(p))
            .collect();
        gone.sort();
        for path in gone {
            self.missing_paths.remove(&path);
            cleared.push(FileDiagnostics::cleared(path, None));
        }
        cleared
    }

    /// The resolver's configuration errors, by configuration file (sorted by path).
    pub fn config_errors(&self) -> Vec<FileDiagnostics> {
        let mut by_file: BTreeMap<String, FileDiagnostics> = BTreeMap::new();
        for e in self.resolver.errors() {
            let ConfigError {
                source,
                span,
                message,
                help,
            } = e;
            let path = self.resolver.absolute(Path::new(&source.path));
            let key = path.to_string_lossy().into_owned();
            let message = match help {
                Some(h) => format!("{message}\n{h}"),
                None => message,
            };
            by_file
                .entry(key)
                .or_insert_with(|| FileDiagnostics {
                    path,
                    version: None,
                    source: source.clone(),
                    problems: Vec::new(),
                })
                .problems
                .push(FileProblem::Config { span, message });
        }
        by_file.into_values().collect()
    }

    fn bases(&mut self) -> Arc<FactBases> {
        if let Some(b) = &self.bases {
            return b.clone();
        }
        let open_paths: HashSet<&PathBuf> = self
            .open
            .values()
            .filter(|d| d.parsed.is_some())
            .map(|d| &d.path)
            .collect();
        let mut index = pipeline::index_of(
            self.open
                .values()
                .filter_map(|d| d.parsed.as_ref().map(|(_, p)| p)),
        );
        for (_, f) in self.disk.iter().filter(|(path, _)| !open_paths.contains(path)) {
            if let Some(defines) = &f.defines {
                index.merge(defines);
            }
        }
        let bases = Arc::new(FactBases::new(index, &self.options));
        self.bases = Some(bases.clone());
        bases
    }

    /// Checks a prepared file as the CLI would, with the workspace's index; a panic
    /// becomes an AML000 finding.
    fn check(&mut self, prepared: Prepared) -> (FileReport, Arc<Registry>) {
        let bases = self.bases();
        check_with(&bases, &self.resolver, &self.options, prepared)
    }

    /// The facts a check of `path` sees (its configuration's: inventory, workspace
    /// snapshot), for hovers that show them.
    pub fn fact_base(&mut self, path: &Path) -> Arc<crate::facts::FactBase> {
        let bases = self.bases();
        let project = Project::detect(&self.resolver, &[path.to_path_buf()]);
        let config = crate::config::WithProjectInventory::new(project.config.clone())
            .get(&self.resolver.for_file(path));
        bases.for_config(&config)
    }

    /// Parses the open documents whose text changed; a changed definition invalidates
    /// the index (and so re-checks every open document).
    fn parse_dirty(&mut self) {
        let dirty: Vec<PathBuf> = self.dirty_open.iter().cloned().collect();
        let mut changed = false;
        for path in dirty {
            let disk_before = self.disk.get(&path).map(DiskFile::defines);
            let limits = self.options.limits.clone();
            let Some(doc) = self.open.get_mut(&path) else {
                continue;
            };
            if doc.excluded || (!doc.reparse && doc.parsed.as_ref().is_some_and(|(v, _)| *v == doc.version)) {
                continue;
            }
            let display = doc.path.to_string_lossy().into_owned();
            let text = doc.text.clone();
            let unsaved = &self.unsaved;
            // An open document is judged as a walked file is: one that is not an Azure ML
            // configuration gets nothing from the server (a large data file no AML005).
            let (parsed, reads) = pipeline::guarded(&display, || {
                prepare_over(
                    path.clone(),
                    load::load_text(&display, text, &limits),
                    false,
                    unsaved,
                    &limits,
                )
            })
            .unwrap_or_else(|report| {
                // The parser itself failed: check an empty file that carries the AML000.
                let mut loaded = load::load_text(&display, String::new(), &limits);
                loaded.diagnostics = report.diagnostics;
                (pipeline::prepare(path.clone(), loaded, true), Reads::default())
            });
            let before = match &doc.parsed {
                Some((_, p)) => contribution(p),
                None => disk_before.unwrap_or_default(),
            };
            if !contribution(&parsed).same_definitions(&before) {
                changed = true;
            }
            doc.parsed = Some((doc.version, parsed));
            doc.reads = reads;
            doc.reparse = false;
        }
        if changed {
            self.invalidate_index();
        }
    }

    /// The open documents to check (parsed first: a definition edited in one rebuilds
    /// the index before any check), in order; check each with
    /// [`Analysis::check_open`]. The pending checks of files on disk stay for
    /// [`Analysis::check_disk`].
    pub fn take_dirty_open(&mut self) -> Vec<PathBuf> {
        self.parse_dirty();
        std::mem::take(&mut self.dirty_open).into_iter().collect()
    }

    /// Checks the workspace's files on disk whose check is pending, in parallel (on
    /// start, after a configuration change, or when a definition on disk changed); a
    /// file is read from disk again unless its parse from indexing is still there.
    /// Returns each file's findings (none for a file classification now skips: what it
    /// showed goes).
    pub fn check_disk(&mut self) -> Vec<FileDiagnostics> {
        let mut out = Vec::new();
        let mut disk: Vec<(PathBuf, Option<Prepared>)> = Vec::new();
        for path in std::mem::take(&mut self.dirty_disk) {
            if self.open.contains_key(&path) {
                continue;
            }
            match self.disk.get_mut(&path) {
                Some(f) if f.checked => {
                    let pending = f.pending.take().map(|p| *p);
                    disk.push((path, pending));
                }
                Some(_) => {
                    self.missing_paths.remove(&path);
                    out.push(FileDiagnostics::cleared(path, None));
                }
                None => {}
            }
        }
        if disk.is_empty() {
            return out;
        }
        use rayon::prelude::*;
        let bases = self.bases();
        let (resolver, options, bounds) = (&self.resolver, &self.options, &self.bounds);
        let unsaved = &self.unsaved;
        let reports: Vec<(PathBuf, FileReport)> = disk
            .into_par_iter()
            .map(|(path, pending)| {
                let display = path.to_string_lossy().into_owned();
                let prepared = pipeline::guarded(&display, || {
                    pending.unwrap_or_else(|| {
                        load_disk(&path, &boundary_for(bounds, &path), &options.limits, unsaved).0
                    })
                });
                let report = match prepared {
                    Ok(prepared) => check_with(&bases, resolver, options, prepared).0,
                    Err(report) => *report,
                };
                (path, report)
            })
            .collect();
        for (path, report) in reports {
            let found = FileDiagnostics::of_report(path.clone(), None, &report);
            if found.has("AML201") {
                self.missing_paths.insert(path);
            } else {
                self.missing_paths.remove(&path);
            }
            out.push(found);
        }
        out
    }

    /// Checks the parsed current version of an open document and keeps the result for
    /// requests; returns its findings at its version.
    pub fn check_open(&mut self, path: &Path) -> Option<FileDiagnostics> {
        let (version, prepared) = self
            .open
            .get(path)
            .and_then(|d| d.parsed.as_ref().filter(|(v, _)| *v == d.version).cloned())?;
        let (report, registry) = self.check(prepared.clone());
        let found = FileDiagnostics::of_report(path.to_path_buf(), Some(version), &report);
        let doc = self.open.get_mut(path)?;
        doc.checked = Some(Checked {
            version,
            source: report.source.clone(),
            prepared,
            diagnostics: report.diagnostics,
            registry,
        });
        Some(found)
    }

    /// Makes sure the current version of an open document has been checked (a request
    /// about it is answered against the text it was sent after, even when the pending
    /// checks' result was dropped for a newer change already waiting).
    pub fn ensure_checked(&mut self, path: &Path) {
        let Some(doc) = self.open.get(path) else {
            return;
        };
        if doc.excluded || (!doc.reparse && doc.checked.as_ref().is_some_and(|c| c.version == doc.version)) {
            return;
        }
        if doc.reparse || doc.parsed.as_ref().is_none_or(|(v, _)| *v != doc.version) {
            // Stays dirty: the next flush publishes this version's result.
            self.dirty_open.insert(path.to_path_buf());
            self.parse_dirty();
        }
        self.check_open(path);
    }

    /// The findings `text` would have as the open document `path` (its fixes applied,
    /// say), checked as the document is; nothing is kept. `None` for a document that is
    /// not open or is excluded.
    pub fn check_text_as(&mut self, path: &Path, text: &str) -> Option<Vec<Diagnostic>> {
        let doc = self.open.get(path).filter(|d| !d.excluded)?;
        let display = doc.path.to_string_lossy().into_owned();
        let path = doc.path.clone();
        let limits = self.options.limits.clone();
        let text = text.to_string();
        let unsaved = &self.unsaved;
        let (prepared, _) = pipeline::guarded(&display, || {
            prepare_over(
                path.clone(),
                load::load_text(&display, text, &limits),
                false,
                unsaved,
                &limits,
            )
        })
        .ok()?;
        let (report, _) = self.check(prepared);
        Some(report.diagnostics)
    }

    /// What the workspace defines (computes, endpoints, models): open documents as
    /// last parsed, then the files on disk that are not open.
    pub fn definitions(&self) -> ProjectIndex {
        let mut index = ProjectIndex::default();
        for doc in self.open.values().filter(|d| !d.excluded) {
            if let Some((_, p)) = &doc.parsed {
                index.merge(&contribution(p));
            }
        }
        for (path, f) in &self.disk {
            if !self.open.contains_key(path) {
                if let Some(d) = &f.defines {
                    index.merge(d);
                }
            }
        }
        index
    }

    /// The text of a workspace file: the open document's, else the file's on disk (read
    /// as every workspace file is: regular, inside its folder's boundary, bounded).
    pub fn text_of(&self, path: &Path) -> Option<String> {
        if let Some(doc) = self.open.get(path) {
            return Some(doc.text.clone());
        }
        self.disk_text(path)
    }

    /// A workspace file parsed and classified as the checks see it (an open document's
    /// current text wins over the disk), through the loading path of the checks.
    pub fn parse_file(&self, path: &Path) -> Option<Prepared> {
        let text = self.text_of(path)?;
        let display = path.to_string_lossy().into_owned();
        let loaded = load::load_text(&display, text, &self.options.limits);
        let limits = &self.options.limits;
        Some(prepare_over(path.to_path_buf(), loaded, false, &self.unsaved, limits).0)
    }

    /// The Azure ML files of the workspace whose text may contain `name` (open ones by
    /// their text, others by their words), sorted.
    pub fn files_mentioning(&self, name: &str) -> Vec<PathBuf> {
        let mut files: BTreeSet<PathBuf> = self
            .open
            .values()
            .filter(|d| !d.excluded && d.text.contains(name))
            .map(|d| d.path.clone())
            .collect();
        for (path, f) in self.disk.iter().filter(|(_, f)| f.checked) {
            if !self.open.contains_key(path) && f.mentions(path, name) {
                files.insert(path.clone());
            }
        }
        files.into_iter().collect()
    }

    /// The open documents, with their versions.
    pub fn open_documents(&self) -> impl Iterator<Item = (&Path, i32)> {
        self.open.iter().map(|(p, d)| (p.as_path(), d.version))
    }

    /// The limits files are parsed under.
    pub fn limits(&self) -> &Limits {
        &self.options.limits
    }

    /// The check of the current version of an open document (`None` when it has not
    /// been checked: see [`Analysis::ensure_checked`]).
    pub fn checked(&self, path: &Path) -> Option<&Checked> {
        let doc = self.open.get(path)?;
        doc.checked.as_ref().filter(|c| c.version == doc.version)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    const JOB: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json
command: python train.py
environment: azureml:sklearn:1
compute: azureml:gpu-cluster
";

    const COMPUTE: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json
name: gpu-cluster
type: amlcompute
size: Standard_DS3_v2
";

    /// Checks what is dirty and returns what each published file shows, as `show` puts it.
    fn flush_as<T>(ws: &mut Analysis, show: impl Fn(&FileDiagnostics) -> T) -> BTreeMap<PathBuf, T> {
        let mut published = BTreeMap::new();
        for path in ws.take_dirty_open() {
            if let Some(f) = ws.check_open(&path) {
                published.insert(f.path.clone(), show(&f));
            }
        }
        for f in ws.check_disk() {
            published.insert(f.path.clone(), show(&f));
        }
        published
    }

    fn flush(ws: &mut Analysis) -> BTreeMap<PathBuf, Vec<String>> {
        flush_as(ws, |f| {
            f.problems
                .iter()
                .map(|p| match p {
                    FileProblem::Finding(d) => d.code.to_string(),
                    FileProblem::Config { .. } => String::new(),
                })
                .collect()
        })
    }

    /// Files that are not open keep no text and no tree once checked; data files keep
    /// nothing but their path; a re-check reads the file again.
    #[test]
    fn files_not_open_keep_no_text_or_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let write = |name: &str, text: &str| {
            let p = root.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p
        };
        let data = write(
            "data/rows.json",
            &format!("{{\"rows\": [{}0]}}", "1, ".repeat(1000)),
        );
        let plain = write("data/plain.yaml", "a: 1\nb: [x, y]\n");
        let job = write("jobs/train.yml", JOB);
        let mut ws = Analysis::new(vec![root.clone()]);
        ws.index_workspace();
        for skipped in [&data, &plain] {
            let f = &ws.disk[skipped];
            assert!(!f.checked && f.defines.is_none() && f.words.is_empty() && f.pending.is_none());
        }
        assert!(
            ws.disk[&job].pending.is_some(),
            "the indexing parse waits for the first check"
        );
        let published = flush(&mut ws);
        assert_eq!(published.get(&job), Some(&vec!["AML203".to_string()]));
        assert!(!published.contains_key(&data) && !published.contains_key(&plain));
        assert!(
            ws.disk.values().all(|f| f.pending.is_none()),
            "checked: nothing parsed is kept"
        );
        assert!(ws.disk[&job].mentions(&job, "sklearn") && !ws.disk[&job].mentions(&job, "src"));

        // The job changes on disk unannounced, then a compute it names appears: the job
        // is checked again from the disk's text.
        std::fs::write(&job, format!("{JOB}foo: 1\n")).unwrap();
        let compute = write("compute/gpu.yml", COMPUTE);
        assert!(!ws.affects_configuration(&compute));
        assert!(ws.disk_changed(&compute).is_none());
        assert!(ws.disk[&compute].defines.is_some());
        let published = flush(&mut ws);
        assert_eq!(published.get(&job), Some(&vec!["AML101".to_string()]));
        assert!(ws.disk.values().all(|f| f.pending.is_none()));
        assert!(ws.disk[&data].words.is_empty() && ws.disk[&data].pending.is_none());

        // The job becomes a plain YAML file: its diagnostics go, only its path stays.
        std::fs::write(&job, "a: 1\n").unwrap();
        assert!(ws.disk_changed(&job).is_none());
        let published = flush(&mut ws);
        assert_eq!(published.get(&job), Some(&Vec::new()));
        let f = &ws.disk[&job];
        assert!(!f.checked && f.words.is_empty() && f.pending.is_none());
    }

    /// Each published file's findings about a VM size (AML50x, and the user rule ORG100)
    /// as (code, line, column), 1-based.
    fn positions(ws: &mut Analysis) -> BTreeMap<PathBuf, Vec<(String, u32, u32)>> {
        flush_as(ws, |f| {
            f.problems
                .iter()
                .filter_map(|p| match p {
                    FileProblem::Finding(d) if d.code.starts_with("AML50") || d.code == "ORG100" => {
                        let p = f.source.position(d.span.start);
                        Some((d.code.to_string(), p.line, p.column))
                    }
                    _ => None,
                })
                .collect()
        })
    }

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (name, text) in files {
            let p = root.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        (dir, root)
    }

    /// A user rule: a job on a compute of a retired VM series (the job sees the size of
    /// the compute it names through the index).
    const JOB_ON_RETIRED: &str = "\
code: ORG100
name: job-on-retired-series
severity: warning
summary: A job on a compute of a retired VM series
kinds: [commandJob]
when:
  field: $target.vm.retired
  equals: true
report:
  at: $target
  message: \"`{$target.name}` is of a retired series\"
what: A job on a retired series.
why: It cannot run.
example_note: The compute is defined in another file.
";

    const CLUSTER_YML: &str = "\
$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json
name: cpu-cluster
type: amlcompute
size: Standard_DS3_v2
";

    /// The whole text of an open document replaced, as an editor's full-text change.
    fn replace(ws: &mut Analysis, path: &Path, version: i32, text: &str) {
        ws.edit(path, None, text);
        ws.changed(path, version);
    }

    /// `az ml compute create -f cluster.yml`: an unsaved edit of `cluster.yml` is what the
    /// script's definition reads — its AML505 and the job that runs on it (through the
    /// index) change at once, whether the script is open or not; closing the buffer
    /// without saving goes back to the disk's text.
    #[test]
    fn an_unsaved_compute_yaml_is_what_a_script_reads_with_f() {
        let (_dir, root) = workspace(&[
            ("amlint.toml", "rules-dirs = [\"policies\"]\n"),
            ("policies/ORG100-job-on-retired-series.yaml", JOB_ON_RETIRED),
            (
                "infra/create.sh",
                "#!/bin/bash\naz ml compute create -f cluster.yml --name train-cluster\n",
            ),
            ("infra/cluster.yml", CLUSTER_YML),
            ("jobs/train.yml", &JOB.replace("gpu-cluster", "train-cluster")),
        ]);
        let (script, cluster, job) = (
            root.join("infra/create.sh"),
            root.join("infra/cluster.yml"),
            root.join("jobs/train.yml"),
        );
        let mut ws = Analysis::new(vec![root.clone()]);
        ws.index_workspace();
        let published = positions(&mut ws);
        assert_eq!(published[&script], Vec::new(), "nothing to report: {published:?}");
        assert_eq!(published[&job], Vec::new(), "{published:?}");

        // The script is not open: it is read again, with the buffer's size.
        ws.open(cluster.clone(), 1, CLUSTER_YML.to_string());
        assert!(
            !positions(&mut ws).contains_key(&script),
            "the same text as on disk"
        );
        let retired = CLUSTER_YML.replace("Standard_DS3_v2", "Standard_NC6");
        replace(&mut ws, &cluster, 2, &retired);
        let published = positions(&mut ws);
        assert_eq!(published[&cluster], vec![("AML505".to_string(), 4, 7)]);
        assert_eq!(published[&script], vec![("AML505".to_string(), 2, 25)]);
        assert_eq!(published[&job], vec![("ORG100".to_string(), 4, 10)]);
        assert_eq!(
            std::fs::read_to_string(&cluster).unwrap(),
            CLUSTER_YML,
            "not saved"
        );

        // Closed without saving: the disk's size again.
        assert!(matches!(ws.close(&cluster), Closed::BackToDisk(_)));
        let published = positions(&mut ws);
        assert_eq!(published[&script], Vec::new());
        assert_eq!(published[&job], Vec::new());
        assert_eq!(published[&cluster], Vec::new());

        // The script open too: its buffer's definitions read the other buffer.
        let text = std::fs::read_to_string(&script).unwrap();
        ws.open(script.clone(), 1, text);
        ws.open(cluster.clone(), 1, CLUSTER_YML.to_string());
        positions(&mut ws);
        replace(&mut ws, &cluster, 2, &retired);
        let published = positions(&mut ws);
        assert_eq!(published[&script], vec![("AML505".to_string(), 2, 25)]);
        assert_eq!(published[&job], vec![("ORG100".to_string(), 4, 10)]);
        assert_eq!(ws.checked(&script).unwrap().diagnostics.len(), 1);
        // Edited back: gone at once.
        replace(&mut ws, &cluster, 3, CLUSTER_YML);
        let published = positions(&mut ws);
        assert_eq!(published[&script], Vec::new());
        assert_eq!(published[&job], Vec::new());
    }

    /// A Python call of a helper function in `utils.py`: the helper module's unsaved
    /// size is what the call's definition inherits.
    #[test]
    fn an_unsaved_helper_module_is_what_a_call_reads() {
        let utils = "\
from azure.ai.ml.entities import AmlCompute


def make_cluster(name):
    return AmlCompute(name=name, size=\"Standard_DS3_v2\", max_instances=2)
";
        let (_dir, root) = workspace(&[
            ("amlint.toml", "rules-dirs = [\"policies\"]\n"),
            ("policies/ORG100-job-on-retired-series.yaml", JOB_ON_RETIRED),
            ("src/utils.py", utils),
            (
                "src/setup_compute.py",
                "from utils import make_cluster\n\ncluster = make_cluster(\"helper-cluster\")\n",
            ),
            ("jobs/train.yml", &JOB.replace("gpu-cluster", "helper-cluster")),
        ]);
        let (module, caller, job) = (
            root.join("src/utils.py"),
            root.join("src/setup_compute.py"),
            root.join("jobs/train.yml"),
        );
        let mut ws = Analysis::new(vec![root.clone()]);
        ws.index_workspace();
        let published = positions(&mut ws);
        assert_eq!(published[&job], Vec::new(), "{published:?}");
        ws.open(module.clone(), 1, utils.to_string());
        positions(&mut ws);
        replace(
            &mut ws,
            &module,
            2,
            &utils.replace("Standard_DS3_v2", "Standard_NC6"),
        );
        let published = positions(&mut ws);
        assert_eq!(
            published[&job],
            vec![("ORG100".to_string(), 4, 10)],
            "{published:?}"
        );
        assert_eq!(published[&module], vec![("AML505".to_string(), 5, 40)]);
        // The call, which creates the compute with the helper's size (not open).
        assert_eq!(published[&caller], vec![("AML505".to_string(), 3, 11)]);
        assert!(matches!(ws.close(&module), Closed::BackToDisk(_)));
        let published = positions(&mut ws);
        assert_eq!(published[&job], Vec::new());
        assert_eq!(published[&caller], Vec::new());
    }

    /// Terraform: a `terraform.tfvars` being edited gives the module's `.tf` file its
    /// unsaved value (open or not); a new `.auto.tfvars` buffer not saved yet too.
    #[test]
    fn an_unsaved_tfvars_is_what_terraform_reads() {
        let main = "\
variable \"size\" {
  type = string
}

resource \"azurerm_machine_learning_compute_cluster\" \"c\" {
  name                          = \"tf-cluster\"
  location                      = \"westeurope\"
  machine_learning_workspace_id = \"x\"
  vm_priority                   = \"Dedicated\"
  vm_size                       = var.size
  scale_settings {
    min_node_count                       = 0
    max_node_count                       = 2
    scale_down_nodes_after_idle_duration = \"PT30S\"
  }
  identity {
    type = \"SystemAssigned\"
  }
}
";
        let (_dir, root) = workspace(&[
            ("infra/main.tf", main),
            ("infra/terraform.tfvars", "size = \"Standard_DS3_v2\"\n"),
        ]);
        let (tf, tfvars) = (root.join("infra/main.tf"), root.join("infra/terraform.tfvars"));
        let mut ws = Analysis::new(vec![root.clone()]);
        ws.index_workspace();
        let published = positions(&mut ws);
        assert!(published.get(&tf).is_none_or(Vec::is_empty), "{published:?}");
        ws.open(tfvars.clone(), 1, "size = \"Standard_DS3_v2\"\n".into());
        positions(&mut ws);
        replace(&mut ws, &tfvars, 2, "size = \"Standard_NC6\"\n");
        let published = positions(&mut ws);
        assert_eq!(
            published[&tf],
            vec![("AML505".to_string(), 5, 1)],
            "{published:?}"
        );
        let size = ws.definitions().compute("tf-cluster").and_then(|c| c.size);
        assert_eq!(size.as_deref(), Some("Standard_NC6"));
        assert!(matches!(ws.close(&tfvars), Closed::BackToDisk(_)));
        let published = positions(&mut ws);
        assert_eq!(published[&tf], Vec::new());

        // A variables file that exists only in the editor (`new.auto.tfvars`, later in
        // Terraform's order: it wins), with main.tf open.
        ws.open(tf.clone(), 1, main.to_string());
        positions(&mut ws);
        let new = root.join("infra/new.auto.tfvars");
        ws.open(new.clone(), 1, "size = \"Standard_NC6\"\n".into());
        let published = positions(&mut ws);
        assert_eq!(
            published[&tf],
            vec![("AML505".to_string(), 5, 1)],
            "{published:?}"
        );
        ws.close(&new);
        let published = positions(&mut ws);
        assert_eq!(published[&tf], Vec::new());
    }
}
