//! The server's state: the workspace folders' files (loaded from disk, for the project
//! index and workspace-wide diagnostics), the open documents (their text wins over the
//! disk), the configuration resolver, and the fact bases built from the index. Checks go
//! through the CLI's pipeline (`prepare`, `index_of`, `FactBases`, `check_and_filter`),
//! so findings, configuration and suppressions are exactly the CLI's.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::{PublishDiagnosticsParams, Url};

use crate::config::resolve::ConfigFilter;
use crate::config::{CONFIG_FILE_NAMES, ConfigError, Resolver};
use crate::diagnostic::Diagnostic;
use crate::discover::{self, Filter as _};
use crate::facts::ProjectIndex;
use crate::fsio::Boundary;
use crate::kinds::Classification;
use crate::limits::Limits;
use crate::load::{self, Format};
use crate::pipeline::{self, FactBases, Options, Prepared};
use crate::project::Project;
use crate::registry::Registry;
use crate::results::FileReport;
use crate::source::SourceFile;

use super::convert;

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

pub struct Workspace {
    options: Options,
    folders: Vec<PathBuf>,
    /// Each folder with where links in it may lead.
    bounds: Vec<(PathBuf, Boundary)>,
    cwd: PathBuf,
    resolver: Arc<Resolver>,
    /// The workspace folders' files as on disk: what is kept of them (not their text
    /// nor their trees).
    disk: BTreeMap<PathBuf, DiskFile>,
    open: HashMap<Url, OpenDoc>,
    /// Built from the index when first needed; `None` after a definition changed.
    bases: Option<Arc<FactBases>>,
    dirty_open: BTreeSet<Url>,
    dirty_disk: BTreeSet<PathBuf>,
    /// What the client shows for the workspace's files that are not open: the last
    /// diagnostics published (`None`: unknown, a buffer was closed — publish whatever
    /// the next check finds). No entry: nothing.
    published_disk: HashMap<PathBuf, Option<Vec<lsp_types::Diagnostic>>>,
    /// The configuration errors last published, by configuration file.
    published_config: BTreeMap<Url, Vec<lsp_types::Diagnostic>>,
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
    /// An Azure ML file, or one that failed to load: checked (again) when the index
    /// changes. `false`: classification skipped it, nothing else is kept.
    checked: bool,
    /// The hashes of its text's words (split where a file name ends), sorted: whether
    /// it mentions a path's name (AML201) without keeping the text.
    words: Box<[u64]>,
    /// The parse made while indexing, until the first check takes it.
    pending: Option<Box<Prepared>>,
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
    fn of(prepared: Prepared) -> Self {
        let index = contribution(&prepared);
        let defines = (!index.is_empty()).then(|| Box::new(index));
        let checked = prepared.classes.iter().any(Classification::is_checked)
            || !prepared.loaded.diagnostics.is_empty();
        if !checked {
            return Self {
                defines,
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
/// device is looked at, never opened).
fn load_disk(path: &Path, boundary: &Boundary, limits: &Limits) -> Prepared {
    let display = path.to_string_lossy().into_owned();
    pipeline::prepare(
        path.to_path_buf(),
        load::load_path(path, &display, load::Seen::Unknown, boundary, limits),
        false,
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

impl Workspace {
    pub fn new(folders: Vec<PathBuf>, options: Options) -> Self {
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
            published_disk: HashMap::new(),
            published_config: BTreeMap::new(),
        }
    }

    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
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
        // Each file's trees and text are dropped as soon as it is classified and
        // indexed, except an Azure ML file's, until its first check.
        let loaded: Vec<(PathBuf, DiskFile)> = candidates
            .par_iter()
            .filter_map(|c| {
                let path = crate::config::normalize(&c.path);
                let boundary = boundary_for(&self.bounds, &path);
                std::panic::catch_unwind(|| DiskFile::of(load_disk(&path, &boundary, &limits)))
                    .ok()
                    .map(|f| (path, f))
            })
            .collect();
        self.disk = loaded.into_iter().collect();
        self.dirty_disk.clear();
        self.invalidate_index();
    }

    /// The index changed: every file, open or not, is checked again (in parallel; only
    /// the results that differ from what was published are published).
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

    pub fn doc(&self, uri: &Url) -> Option<&OpenDoc> {
        self.open.get(uri)
    }

    fn path_for(&self, uri: &Url) -> PathBuf {
        convert::path_of(uri).unwrap_or_else(|| {
            let name = uri
                .path_segments()
                .and_then(|mut s| s.next_back().map(str::to_string))
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "untitled.yml".to_string());
            self.cwd.join(name)
        })
    }

    pub fn open(&mut self, uri: Url, version: i32, text: String) {
        let path = self.path_for(&uri);
        let excluded = self.excluded(&path);
        self.open.insert(
            uri.clone(),
            OpenDoc {
                path,
                version,
                text,
                excluded,
                parsed: None,
                checked: None,
            },
        );
        self.dirty_open.insert(uri);
    }

    /// Checks an open document again (on save).
    pub fn touch(&mut self, uri: &Url) {
        if self.open.contains_key(uri) {
            self.dirty_open.insert(uri.clone());
        }
    }

    /// Applies a didChange: full replacements and UTF-16 ranged edits, in order.
    pub fn change(
        &mut self,
        uri: &Url,
        version: i32,
        changes: Vec<lsp_types::TextDocumentContentChangeEvent>,
    ) {
        let Some(doc) = self.open.get_mut(uri) else {
            return;
        };
        for change in changes {
            match change.range {
                None => doc.text = change.text,
                Some(range) => {
                    let lines = crate::source::LineIndex::new(&doc.text);
                    let at = |p: lsp_types::Position| {
                        lines.offset_of_utf16(
                            &doc.text,
                            crate::source::Utf16Position {
                                line: p.line,
                                character: p.character,
                            },
                        ) as usize
                    };
                    let (start, end) = (at(range.start), at(range.end));
                    let (start, end) = (start.min(end), start.max(end));
                    doc.text.replace_range(start..end, &change.text);
                }
            }
        }
        doc.version = version;
        self.dirty_open.insert(uri.clone());
    }

    /// Closes a document: a workspace file goes back to its disk state (and is checked
    /// as such); anything else has its diagnostics cleared.
    pub fn close(&mut self, uri: &Url, publish: &mut dyn FnMut(PublishDiagnosticsParams)) {
        let Some(doc) = self.open.remove(uri) else {
            return;
        };
        self.dirty_open.remove(uri);
        let before = doc.parsed.as_ref().map(|(_, p)| contribution(p));
        if self.disk.contains_key(&doc.path) {
            self.reload_disk(&doc.path);
            self.dirty_disk.insert(doc.path.clone());
            // The client shows the buffer's last diagnostics: the file on disk's are
            // published whatever they are.
            self.published_disk.insert(doc.path.clone(), None);
        } else {
            publish(PublishDiagnosticsParams::new(uri.clone(), Vec::new(), None));
        }
        let after = self.disk.get(&doc.path).map(DiskFile::defines);
        if !before
            .unwrap_or_default()
            .same_definitions(&after.unwrap_or_default())
        {
            self.invalidate_index();
        }
    }

    fn reload_disk(&mut self, path: &Path) -> Option<ProjectIndex> {
        let old = self.disk.remove(path).map(|f| f.defines());
        if crate::fsio::is_file(path) {
            let display = path.to_string_lossy().into_owned();
            let limits = &self.options.limits;
            let boundary = boundary_for(&self.bounds, path);
            if let Ok(f) = pipeline::guarded(&display, || DiskFile::of(load_disk(path, &boundary, limits))) {
                self.disk.insert(path.to_path_buf(), f);
            }
        }
        old
    }

    /// A file changed on disk (saved, or changed by another program). Returns true when
    /// it is a configuration file or a file a configuration depends on (a file its
    /// `extend` names, a user rule file, a file in error: `Resolver::affects_configuration`);
    /// the caller reloads the configuration.
    pub fn disk_changed(&mut self, path: &Path, publish: &mut dyn FnMut(PublishDiagnosticsParams)) -> bool {
        let path = crate::config::normalize(path);
        if is_config_file(&path) || self.resolver.affects_configuration(&path) {
            return true;
        }
        self.local_path_changed(&path);
        let tracked = self.disk.contains_key(&path);
        let wanted = self.in_workspace(&path)
            && crate::fsio::is_file(&path)
            && path
                .file_name()
                .is_some_and(|n| discover::is_config_name(&n.to_string_lossy()))
            && self.filter().walked_file(&path);
        if !tracked && !wanted {
            return false;
        }
        let old = self.reload_disk(&path).unwrap_or_default();
        if !wanted {
            self.disk.remove(&path);
        }
        let new = self.disk.get(&path).map(DiskFile::defines).unwrap_or_default();
        let open = self.open.values().any(|d| d.path == path);
        if !open {
            if self.disk.contains_key(&path) {
                self.dirty_disk.insert(path.clone());
            } else if self.published_disk.remove(&path).is_some() {
                if let Some(uri) = convert::uri_of(&path) {
                    publish(PublishDiagnosticsParams::new(uri, Vec::new(), None));
                }
            }
            if !old.same_definitions(&new) {
                // A definition on disk changed: everything may depend on it.
                self.invalidate_index();
            }
        }
        false
    }

    /// A path was created, changed or removed on disk: the files whose local paths
    /// (AML201) may name it are checked again — those with AML201 findings (it may now
    /// exist) and those whose text mentions its name (it may now be gone).
    fn local_path_changed(&mut self, path: &Path) {
        let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            return;
        };
        let aml201 = lsp_types::NumberOrString::String("AML201".to_string());
        for (uri, doc) in &self.open {
            let found = doc
                .checked
                .as_ref()
                .is_some_and(|c| c.diagnostics.iter().any(|d| d.code == "AML201"));
            if !doc.excluded && (found || doc.text.contains(&name)) {
                self.dirty_open.insert(uri.clone());
            }
        }
        for (file, f) in self.disk.iter().filter(|(_, f)| f.checked) {
            let found = match self.published_disk.get(file) {
                Some(Some(shown)) => shown.iter().any(|d| d.code.as_ref() == Some(&aml201)),
                Some(None) => true,
                None => false,
            };
            if found || f.mentions(file, &name) {
                self.dirty_disk.insert(file.clone());
            }
        }
    }

    /// Reads the configuration again (an `amlint.toml` changed): a new resolver, the
    /// workspace walked again, everything checked again. Configuration errors are
    /// published on the configuration files.
    pub fn reload_config(&mut self, publish: &mut dyn FnMut(PublishDiagnosticsParams)) {
        self.resolver = resolver(&self.options, &self.cwd);
        // Open documents the configuration now excludes lose their diagnostics; those
        // it no longer excludes are parsed and checked with everything else.
        let excluded: Vec<(Url, bool)> = self
            .open
            .iter()
            .map(|(uri, d)| (uri.clone(), self.excluded(&d.path)))
            .collect();
        for (uri, excluded) in excluded {
            let Some(doc) = self.open.get_mut(&uri) else {
                continue;
            };
            if excluded && !doc.excluded {
                doc.parsed = None;
                doc.checked = None;
                publish(PublishDiagnosticsParams::new(uri, Vec::new(), Some(doc.version)));
            }
            doc.excluded = excluded;
        }
        let before: HashSet<PathBuf> = self.disk.keys().cloned().collect();
        self.index_workspace();
        for gone in before.difference(&self.disk.keys().cloned().collect()) {
            if self.published_disk.remove(gone).is_some() {
                if let Some(uri) = convert::uri_of(gone) {
                    publish(PublishDiagnosticsParams::new(uri, Vec::new(), None));
                }
            }
        }
        self.publish_config_errors(publish);
    }

    /// Publishes the resolver's configuration errors on their files (and clears the
    /// files that no longer have any).
    pub fn publish_config_errors(&mut self, publish: &mut dyn FnMut(PublishDiagnosticsParams)) {
        let mut by_file: BTreeMap<String, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
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
                .entry(key.clone())
                .or_default()
                .push(lsp_types::Diagnostic {
                    range: convert::range(&source, span),
                    severity: Some(lsp_types::DiagnosticSeverity::ERROR),
                    source: Some("amlint".to_string()),
                    message,
                    ..Default::default()
                });
        }
        let now: BTreeMap<Url, Vec<lsp_types::Diagnostic>> = by_file
            .into_iter()
            .filter_map(|(file, diagnostics)| convert::uri_of(Path::new(&file)).map(|u| (u, diagnostics)))
            .collect();
        if now == self.published_config {
            return;
        }
        for (uri, diagnostics) in &now {
            if self.published_config.get(uri) != Some(diagnostics) {
                publish(PublishDiagnosticsParams::new(
                    uri.clone(),
                    diagnostics.clone(),
                    None,
                ));
            }
        }
        for stale in self.published_config.keys().filter(|u| !now.contains_key(*u)) {
            publish(PublishDiagnosticsParams::new(stale.clone(), Vec::new(), None));
        }
        self.published_config = now;
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

    /// Parses the open documents whose text changed; a changed definition invalidates
    /// the index (and so re-checks every open document).
    fn parse_dirty(&mut self) {
        let dirty: Vec<Url> = self.dirty_open.iter().cloned().collect();
        let mut changed = false;
        for uri in dirty {
            let disk_before = self
                .open
                .get(&uri)
                .and_then(|d| self.disk.get(&d.path))
                .map(DiskFile::defines);
            let limits = self.options.limits.clone();
            let Some(doc) = self.open.get_mut(&uri) else {
                continue;
            };
            if doc.excluded || doc.parsed.as_ref().is_some_and(|(v, _)| *v == doc.version) {
                continue;
            }
            let display = doc.path.to_string_lossy().into_owned();
            let text = doc.text.clone();
            let path = doc.path.clone();
            // An open document is judged as a walked file is: one that is not an Azure ML
            // configuration gets nothing from the server (a large data file no AML005).
            let parsed = pipeline::guarded(&display, || {
                pipeline::prepare(path.clone(), load::load_text(&display, text, &limits), false)
            })
            .unwrap_or_else(|report| {
                // The parser itself failed: check an empty file that carries the AML000.
                let mut loaded =
                    load::parse_text(&display, String::new(), Format::for_path(&display), &limits);
                loaded.diagnostics = report.diagnostics;
                pipeline::prepare(path.clone(), loaded, true)
            });
            let before = match &doc.parsed {
                Some((_, p)) => contribution(p),
                None => disk_before.unwrap_or_default(),
            };
            if !contribution(&parsed).same_definitions(&before) {
                changed = true;
            }
            doc.parsed = Some((doc.version, parsed));
        }
        if changed {
            self.invalidate_index();
        }
    }

    /// Runs every pending check and publishes the results. `superseded(uri)` says that a
    /// newer change of the document is already waiting: its result is then dropped
    /// (never published for a stale version).
    pub fn flush(
        &mut self,
        publish: &mut dyn FnMut(PublishDiagnosticsParams),
        superseded: &mut dyn FnMut(&Url) -> bool,
    ) {
        self.parse_dirty();
        // A definition edited in an open document re-parses nothing else, but the index
        // must be rebuilt before any check.
        let dirty: Vec<Url> = std::mem::take(&mut self.dirty_open).into_iter().collect();
        for uri in dirty {
            let Some((version, diagnostics)) = self.check_open(&uri) else {
                continue;
            };
            // The result is kept for requests about this version, but a newer change
            // already waiting means it is never published.
            if superseded(&uri) {
                continue;
            }
            publish(PublishDiagnosticsParams::new(uri, diagnostics, Some(version)));
        }
        // The workspace's files on disk, in parallel (on start, after a configuration
        // change, or when a definition on disk changed).
        // A file is read from disk again unless its parse from indexing is still there.
        let open_paths: HashSet<PathBuf> = self.open.values().map(|d| d.path.clone()).collect();
        let mut disk: Vec<(PathBuf, Option<Prepared>)> = Vec::new();
        for path in std::mem::take(&mut self.dirty_disk) {
            if open_paths.contains(&path) {
                continue;
            }
            match self.disk.get_mut(&path) {
                Some(f) if f.checked => {
                    let pending = f.pending.take().map(|p| *p);
                    disk.push((path, pending));
                }
                // Skipped by classification: nothing to report, whatever was shown goes.
                Some(_) if self.published_disk.contains_key(&path) => {
                    self.published_disk.remove(&path);
                    if let Some(uri) = convert::uri_of(&path) {
                        publish(PublishDiagnosticsParams::new(uri, Vec::new(), None));
                    }
                }
                Some(_) | None => {}
            }
        }
        if !disk.is_empty() {
            use rayon::prelude::*;
            let bases = self.bases();
            let (resolver, options, bounds) = (&self.resolver, &self.options, &self.bounds);
            let reports: Vec<(PathBuf, FileReport)> = disk
                .into_par_iter()
                .map(|(path, pending)| {
                    let display = path.to_string_lossy().into_owned();
                    let prepared = pipeline::guarded(&display, || {
                        pending.unwrap_or_else(|| {
                            load_disk(&path, &boundary_for(bounds, &path), &options.limits)
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
                let Some(uri) = convert::uri_of(&path) else {
                    continue;
                };
                let diagnostics: Vec<lsp_types::Diagnostic> = report
                    .diagnostics
                    .iter()
                    .map(|d| convert::diagnostic(&uri, &report.source, d))
                    .collect();
                let shown = match self.published_disk.get(&path) {
                    Some(Some(shown)) => Some(shown),
                    Some(None) => None,
                    None => Some(&Vec::new()),
                };
                if shown == Some(&diagnostics) {
                    continue;
                }
                if diagnostics.is_empty() {
                    self.published_disk.remove(&path);
                } else {
                    self.published_disk.insert(path, Some(diagnostics.clone()));
                }
                publish(PublishDiagnosticsParams::new(uri, diagnostics, None));
            }
        }
        // Configuration files met for the first time during these checks.
        self.publish_config_errors(publish);
    }

    /// Checks the parsed current version of an open document and keeps the result for
    /// requests; returns its version and its diagnostics for publishing.
    fn check_open(&mut self, uri: &Url) -> Option<(i32, Vec<lsp_types::Diagnostic>)> {
        let (version, prepared) = self
            .open
            .get(uri)
            .and_then(|d| d.parsed.as_ref().filter(|(v, _)| *v == d.version).cloned())?;
        let (report, registry) = self.check(prepared.clone());
        let diagnostics = report
            .diagnostics
            .iter()
            .map(|d| convert::diagnostic(uri, &report.source, d))
            .collect();
        let doc = self.open.get_mut(uri)?;
        doc.checked = Some(Checked {
            version,
            source: report.source.clone(),
            prepared,
            diagnostics: report.diagnostics,
            registry,
        });
        Some((version, diagnostics))
    }

    /// Makes sure the current version of an open document has been checked (a request
    /// about it is answered against the text it was sent after, even when the pending
    /// checks' result was dropped for a newer change already waiting).
    pub fn ensure_checked(&mut self, uri: &Url) {
        let Some(doc) = self.open.get(uri) else {
            return;
        };
        if doc.excluded || doc.checked.as_ref().is_some_and(|c| c.version == doc.version) {
            return;
        }
        if doc.parsed.as_ref().is_none_or(|(v, _)| *v != doc.version) {
            // Stays dirty: the next flush publishes this version's result.
            self.dirty_open.insert(uri.clone());
            self.parse_dirty();
        }
        self.check_open(uri);
    }

    /// The findings `text` would have as the open document `uri` (its fixes applied,
    /// say), checked as the document is; nothing is kept. `None` for a document that is
    /// not open or is excluded.
    pub fn check_text_as(&mut self, uri: &Url, text: &str) -> Option<Vec<Diagnostic>> {
        let doc = self.open.get(uri).filter(|d| !d.excluded)?;
        let display = doc.path.to_string_lossy().into_owned();
        let path = doc.path.clone();
        let limits = self.options.limits.clone();
        let text = text.to_string();
        let prepared = pipeline::guarded(&display, || {
            pipeline::prepare(path.clone(), load::load_text(&display, text, &limits), false)
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
        let open: HashSet<&Path> = self.open.values().map(|d| d.path.as_path()).collect();
        for (path, f) in &self.disk {
            if !open.contains(path.as_path()) {
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
        if let Some(doc) = self.open.values().find(|d| d.path == path) {
            return Some(doc.text.clone());
        }
        let bytes = crate::fsio::read_regular(
            path,
            load::Seen::Unknown,
            &boundary_for(&self.bounds, path),
            self.options.limits.max_file_size,
        )
        .ok()?;
        String::from_utf8(bytes).ok()
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
        let open: HashSet<&Path> = self.open.values().map(|d| d.path.as_path()).collect();
        for (path, f) in self.disk.iter().filter(|(_, f)| f.checked) {
            if !open.contains(path.as_path()) && f.mentions(path, name) {
                files.insert(path.clone());
            }
        }
        files.into_iter().collect()
    }

    /// The diagnostics the server shows for `uri` (`textDocument/diagnostic`): an open
    /// document's from its current check, reused, never checked again; else what was
    /// last published for the file on disk or for a configuration file; else none.
    pub fn shown(&self, uri: &Url) -> Vec<lsp_types::Diagnostic> {
        if let Some(c) = self.checked(uri) {
            return c
                .diagnostics
                .iter()
                .map(|d| convert::diagnostic(uri, &c.source, d))
                .collect();
        }
        if self.open.contains_key(uri) {
            return Vec::new();
        }
        if let Some(shown) = self.published_config.get(uri) {
            return shown.clone();
        }
        convert::path_of(uri)
            .and_then(|path| self.published_disk.get(&path).cloned().flatten())
            .unwrap_or_default()
    }

    /// Every document that shows diagnostics (`workspace/diagnostic`): the open
    /// documents' current checks (with their versions), then the workspace's files on
    /// disk and the configuration files, as last published.
    pub fn shown_everywhere(&self) -> BTreeMap<Url, (Option<i64>, Vec<lsp_types::Diagnostic>)> {
        let mut out = BTreeMap::new();
        for (uri, doc) in &self.open {
            if let Some(c) = self.checked(uri).filter(|c| !c.diagnostics.is_empty()) {
                let items = c
                    .diagnostics
                    .iter()
                    .map(|d| convert::diagnostic(uri, &c.source, d))
                    .collect();
                out.insert(uri.clone(), (Some(i64::from(doc.version)), items));
            }
        }
        let open: HashSet<&Path> = self.open.values().map(|d| d.path.as_path()).collect();
        for (path, shown) in &self.published_disk {
            let (Some(items), false) = (shown, open.contains(path.as_path())) else {
                continue;
            };
            if let Some(uri) = convert::uri_of(path).filter(|u| !items.is_empty() && !out.contains_key(u)) {
                out.insert(uri, (None, items.clone()));
            }
        }
        for (uri, items) in &self.published_config {
            if !items.is_empty() && !out.contains_key(uri) {
                out.insert(uri.clone(), (None, items.clone()));
            }
        }
        out
    }

    /// The limits files are parsed under.
    pub fn limits(&self) -> &Limits {
        &self.options.limits
    }

    /// The check of the current version of an open document (`None` when it has not
    /// been checked: see [`Workspace::ensure_checked`]).
    pub fn checked(&self, uri: &Url) -> Option<&Checked> {
        let doc = self.open.get(uri)?;
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

    fn flush(ws: &mut Workspace) -> BTreeMap<PathBuf, Vec<String>> {
        let mut published = BTreeMap::new();
        ws.flush(
            &mut |p| {
                let codes = p
                    .diagnostics
                    .iter()
                    .map(|d| match &d.code {
                        Some(lsp_types::NumberOrString::String(c)) => c.clone(),
                        _ => String::new(),
                    })
                    .collect();
                published.insert(convert::path_of(&p.uri).unwrap(), codes);
            },
            &mut |_| false,
        );
        published
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
        let mut ws = Workspace::new(vec![root.clone()], Options::default());
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
        assert!(!ws.disk_changed(&compute, &mut |_| {}));
        assert!(ws.disk[&compute].defines.is_some());
        let published = flush(&mut ws);
        assert_eq!(published.get(&job), Some(&vec!["AML101".to_string()]));
        assert!(ws.disk.values().all(|f| f.pending.is_none()));
        assert!(ws.disk[&data].words.is_empty() && ws.disk[&data].pending.is_none());

        // The job becomes a plain YAML file: its diagnostics go, only its path stays.
        std::fs::write(&job, "a: 1\n").unwrap();
        assert!(!ws.disk_changed(&job, &mut |_| {}));
        let published = flush(&mut ws);
        assert_eq!(published.get(&job), Some(&Vec::new()));
        let f = &ws.disk[&job];
        assert!(!f.checked && f.words.is_empty() && f.pending.is_none());
    }
}
