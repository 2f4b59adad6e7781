//! The pipeline as one call: configuration → discover → load and classify (parallel) →
//! index → check and filter (parallel) → report data. Each file's failure stays with
//! that file.
//!
//! [`run`] reads as its phases: `Run::start` (the configuration resolver with the rule
//! check, the project; the built-in rules warm on an idle rayon thread meanwhile),
//! `Run::load` (discovery; `load_one` loads and classifies each file on the thread that
//! found it), `Run::problems` (refused ignore files, unlisted directories), `Run::gather`
//! (the project index; buffers; when only some files are checked — pre-commit, an editor
//! buffer — the rest of the project as a `LazyIndex`), `Run::check` (every file checked
//! against its `FactBase` and filtered in parallel, AML012 of configurations, the sorted
//! report). Each file's work runs inside `catch_unwind`: a bug on one file becomes an
//! `AML000` finding for that file and the run goes on. Files come back sorted by path,
//! findings by position.
//!
//! A large run (`LargeRun::files` files, `pipeline/large_run.rs`) bounds its memory: a file whose
//! checks look nothing up in the project index (a probe index records lookups) is checked
//! and filtered as soon as it is loaded and its tree dropped (`State::Done`); the files that
//! wait for the index keep their trees (`Waiting::Parsed`) up to `LargeRun::waiting_trees_bytes` of
//! text and only their text beyond it (`Waiting::Shed`, parsed again); clean files drop their text.
//! `NeedIndex` learns during the run which kinds looked something up. The entry points
//! beside `run`: `check_paths`, `check_text` (stdin, editors), `prepare` (classify and read
//! definitions), `index_of`, `FactBases` (one `FactBase` per configuration),
//! `check_and_filter` (the checks, then `filter::file`; what `ide` calls too).

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::baseline::Baseline;
use crate::checks::{self, DocContext};
use crate::config::resolve::ConfigFilter;
use crate::config::{Config, ConfigChoice, ConfigError, Resolver};
use crate::diagnostic::{Diagnostic, Findings, Severity, codes};
use crate::discover::{self, Filter as _};
use crate::facts::computes::{ComputeDef, Synthetic};
use crate::facts::sources::Files;
use crate::facts::{DiskSizes, DocFacts, FactBase, LazyIndex, ProjectIndex};
use crate::filter;
use crate::kinds::{self, Classification};
use crate::limits::Limits;
use crate::load::{self, Format, LoadedFile};
use crate::project::Project;
use crate::results::{FileReport, Report};
use crate::source::{SourceFile, Span};

mod large_run;

pub use large_run::{LargeRun, on_large_run};
use large_run::{NeedIndex, without_text_if_clean};

/// Settings for one run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub limits: Limits,
    /// How a run of many files bounds its memory.
    pub large_run: LargeRun,
    /// Which configuration applies: each file's nearest configuration file (the
    /// default), one given file, or none.
    pub config: ConfigChoice,
    /// Apply `exclude` to files named explicitly too (pre-commit names every file).
    pub force_exclude: bool,
    /// Findings recorded in this baseline are hidden.
    pub baseline: Option<Arc<Baseline>>,
    /// The date VM retirement dates are compared with (`YYYY-MM-DD`); today when unset
    /// (`AMLINT_TODAY` also sets it). Tests pin it.
    pub today: Option<String>,
    /// Rule selection from the command line, on top of every file's configuration.
    pub selection: Option<Arc<crate::config::CliSelection>>,
    /// Show the findings that suppression comments and the baseline hide, each marked
    /// with what hides it (`--no-ignores`, for audits).
    pub no_ignores: bool,
    /// Where the project cache is kept (`crate::cache`); `None`: no cache (the default
    /// for library users; the command line sets it unless `--no-cache`).
    pub cache_dir: Option<PathBuf>,
}

impl Options {
    /// What the options say about filtering each file of the run.
    fn run_filter(&self) -> filter::RunFilter<'_> {
        filter::RunFilter {
            selection: self.selection.as_deref(),
            baseline: self.baseline.as_deref(),
            max_findings: self.limits.max_findings_per_file,
            today: self.today.as_deref(),
            no_ignores: self.no_ignores,
        }
    }
}

/// Text to check that does not come from a path: standard input, an editor buffer.
pub struct Buffer {
    /// The file it stands for (decides JSON or YAML, the kind, and the configuration).
    pub display: String,
    /// Its text, or why it could not be decoded (AML004).
    pub text: Result<String, Box<load::Refused>>,
}

/// A file loaded and classified, waiting for the project index before its checks. The
/// language server keeps one per open or indexed file.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The file on disk (relative paths inside it start from its directory).
    pub path: PathBuf,
    /// Named explicitly (reported even when it is not an Azure ML file that failed).
    pub explicit: bool,
    pub loaded: LoadedFile,
    pub classes: Vec<Classification>,
    /// The computes the file defines, whatever its format (`facts::sources`).
    pub definitions: Vec<Defined>,
    /// The comments of the file's own syntax that the definition readers found outside
    /// YAML (a script's, a notebook cell's): suppressions are read there too.
    pub comments: Vec<crate::facts::sources::Comment>,
    /// AML005 when computes the file may define were not read (a limit of the loader or
    /// of a definition reader's parser): reported whatever the file is
    /// ([`unread_definitions`]).
    pub unread: Option<Box<Diagnostic>>,
}

/// A compute definition of a file, with the compute document policies check it as (none
/// for an Azure ML compute YAML, which is checked as itself, or when its type is not
/// known).
#[derive(Debug, Clone)]
pub struct Defined {
    pub def: Arc<ComputeDef>,
    pub synthetic: Option<Synthetic>,
}

/// Classifies a loaded file and reads the computes it defines (other files it names are
/// read inside the project around it).
pub fn prepare(path: PathBuf, loaded: LoadedFile, explicit: bool) -> Prepared {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    prepare_with(path, loaded, explicit, &Files::around(&dir, &Limits::default()))
}

/// [`prepare`], with the project's files for the readers.
pub fn prepare_with(path: PathBuf, loaded: LoadedFile, explicit: bool, files: &Files) -> Prepared {
    let display = loaded.source.path.clone();
    let classes: Vec<Classification> = loaded
        .documents
        .iter()
        .map(|d| kinds::classify(d, &display))
        .collect();
    let found = if loaded.unreadable {
        Default::default()
    } else {
        let kinds: Vec<Option<&'static kinds::Kind>> = classes.iter().map(|c| c.kind).collect();
        crate::facts::sources::read(&crate::facts::sources::Input {
            path: &path,
            source: &loaded.source,
            documents: &loaded.documents,
            kinds: &kinds,
            files,
        })
    };
    let unread = unread_definitions(&path, &loaded, found.unread.as_deref(), files).map(Box::new);
    let definitions = found
        .computes
        .into_iter()
        .map(|def| Defined {
            synthetic: def.document(),
            def: Arc::new(def),
        })
        .collect();
    Prepared {
        path,
        explicit,
        loaded,
        classes,
        definitions,
        comments: found.comments,
        unread,
    }
}

/// AML005 for a file whose compute definitions were not read, so that it is reported
/// instead of passed over without a word (audit 23, cases 01 and 03): a definition
/// reader's parser gave up on it (`why`), or the loader refused it past a limit while a
/// reader that looks for its words would read it (its text holds them; a file too large
/// to be read as text is searched in chunks on disk, `facts::sources::searched_on_disk`).
/// A file of data over the size limit is still skipped without a word. A warning: the file
/// may well be right, amlint's reading of it is what falls short.
fn unread_definitions(
    path: &Path,
    loaded: &LoadedFile,
    why: Option<&str>,
    files: &Files,
) -> Option<Diagnostic> {
    const HELP: &str = "Until amlint reads them, the references to the computes this file defines are unresolved (AML203) and their sizes and settings go unchecked. Split the file, or declare its computes in the `[inventory]` of amlint.toml.";
    if let Some(why) = why {
        // A file that does not load as YAML (a CI workflow, audit 29 defect 10): at the
        // error the loader found, in its words.
        let error = loaded
            .documents
            .iter()
            .any(|d| d.partial)
            .then(|| loaded.diagnostics.iter().find(|d| d.code == codes::AML001.code))
            .flatten();
        if let Some(e) = error {
            return Some(
                Diagnostic::new(
                    codes::AML005,
                    e.span,
                    format!("the computes this file may define were not read: {why}: {}", e.message),
                )
                .with_severity(Severity::Warning)
                .with_help("Fix the YAML error: a CI service does not run a file it cannot load. Until then amlint reads none of its computes: the references to them are unresolved (AML203) and their sizes and settings go unchecked."),
            );
        }
        return Some(
            Diagnostic::new(
                codes::AML005,
                Span::at(0),
                format!("the computes this file may define were not read: {why}"),
            )
            .with_severity(Severity::Warning)
            .with_help(HELP),
        );
    }
    let limit = loaded.diagnostics.iter().find(|d| d.code == codes::AML005.code)?;
    let display = &loaded.source.path;
    let searched = if loaded.unreadable {
        crate::facts::sources::searched_on_disk(display, path, files)
    } else {
        crate::facts::sources::defined_by_words(display, loaded.source.text.as_bytes())
    };
    searched.then(|| {
        let mut d = limit.clone();
        d.message = format!("{}: the computes it may define are not known", d.message);
        d.with_severity(Severity::Warning).with_help(format!(
            "{HELP} A file over the size limit is read with `amlint check --max-file-size BYTES`."
        ))
    })
}

/// Indexes what the prepared files define (computes, endpoints, models).
pub fn index_of<'a>(prepared: impl Iterator<Item = &'a Prepared>) -> ProjectIndex {
    let mut index = ProjectIndex::default();
    for p in prepared {
        index_into(&mut index, p);
    }
    index
}

/// Adds what one prepared file defines to `index`.
fn index_into(index: &mut ProjectIndex, p: &Prepared) {
    for (doc, class) in p.loaded.documents.iter().zip(&p.classes) {
        if let Some(kind) = class.kind.filter(|_| !doc.partial) {
            index.add(&p.path, doc, kind);
        }
    }
    for d in &p.definitions {
        index.add_definition(&d.def, p.loaded.source.position(d.def.span.start).line);
    }
}

/// The fact bases of a run, one per configuration, sharing the index and disk cache.
pub struct FactBases {
    index: Arc<ProjectIndex>,
    disk: Arc<DiskSizes>,
    today: String,
    /// `Project::unmarked_root` of the run.
    unmarked_root: Option<String>,
    by_config: std::sync::Mutex<HashMap<usize, Arc<FactBase>>>,
}

impl FactBases {
    pub fn new(index: ProjectIndex, options: &Options) -> Self {
        let today = options.today.clone().unwrap_or_else(crate::facts::today);
        Self::with_parts(index, today, Arc::default(), None)
    }

    /// A run's fact bases: `today` and the disk cache shared with the checks of phase 1,
    /// and the project's root when nothing marks it.
    fn with_parts(
        index: ProjectIndex,
        today: String,
        disk: Arc<DiskSizes>,
        unmarked_root: Option<String>,
    ) -> Self {
        Self {
            index: Arc::new(index),
            disk,
            today,
            unmarked_root,
            by_config: Default::default(),
        }
    }

    /// The fact base for files under `config`.
    pub fn for_config(&self, config: &Arc<Config>) -> Arc<FactBase> {
        let key = Arc::as_ptr(config) as usize;
        let mut map = self.by_config.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(key)
            .or_insert_with(|| {
                Arc::new(FactBase {
                    index: self.index.clone(),
                    config: config.clone(),
                    today: self.today.clone(),
                    disk: self.disk.clone(),
                    similar: Default::default(),
                    clusters: Default::default(),
                    agreements: Default::default(),
                    unmarked_root: self.unmarked_root.clone(),
                })
            })
            .clone()
    }
}

/// Checks files and directories.
pub fn check_paths(paths: &[PathBuf], options: &Options) -> Report {
    run(paths, Vec::new(), options)
}

/// A file after phase 1: where it is, its configuration, what it defines, and whether it
/// is done.
struct Loaded {
    path: PathBuf,
    config: Arc<Config>,
    defines: Option<ProjectIndex>,
    state: State,
}

enum State {
    /// Checked as soon as it was loaded, because its checks looked nothing up in the
    /// project index: no definition elsewhere can change its findings. Its tree is gone.
    Done(FileReport),
    Waiting(Waiting),
}

/// A file waiting for the project index: with its tree, or with its text only, parsed
/// again when checked (the trees kept while waiting are bounded by
/// `LargeRun::waiting_trees_bytes`: the azureml-examples corpus never reaches the default;
/// of 10,000 files most do).
enum Waiting {
    Parsed(Prepared),
    Shed {
        path: PathBuf,
        explicit: bool,
        source: Arc<SourceFile>,
        format: Format,
    },
}

impl Waiting {
    fn display(&self) -> &str {
        match self {
            Waiting::Parsed(p) => &p.loaded.source.path,
            Waiting::Shed { source, .. } => &source.path,
        }
    }

    /// The file with its tree, parsed again if it was shed.
    fn into_prepared(self, limits: &crate::limits::Limits, files: &Files) -> Prepared {
        match self {
            Waiting::Parsed(p) => p,
            Waiting::Shed {
                path,
                explicit,
                source,
                format,
            } => prepare_with(path, load::parse_source(source, format, limits), explicit, files),
        }
    }
}

/// What one prepared file defines, if anything.
fn defines_of(prepared: &Prepared) -> Option<ProjectIndex> {
    let mut defines = ProjectIndex::default();
    index_into(&mut defines, prepared);
    (!defines.is_empty()).then_some(defines)
}

/// The whole run, in its phases: configuration ([`Run::start`]), discovery with every file
/// loaded and classified as the walk finds it ([`Run::load`], in parallel), the project
/// index from what the files define ([`Run::gather`]), then every file checked and
/// filtered ([`Run::check`], in parallel) into the report. When a configuration file (or a
/// rule file it names) is invalid, nothing is checked and the report carries the errors.
pub fn run(paths: &[PathBuf], buffers: Vec<Buffer>, options: &Options) -> Report {
    let run = Run::start(paths, &buffers, options);
    let (loaded, problems) = run.load(paths);
    // Buffers named on the command line that the configuration excludes are dropped
    // (reading a configuration may record errors: before the errors are looked at).
    let buffers: Vec<Buffer> = buffers
        .into_iter()
        .filter(|b| run.filter.explicit_file(Path::new(&b.display)))
        .collect();
    let unlisted = match run.problems(problems) {
        Ok(reports) => reports,
        Err(errors) => return Report::refused(run.project, errors),
    };
    let gathered = run.gather(paths, loaded, buffers, unlisted);
    run.check(gathered)
}

/// What every phase of a run shares: the options, the configuration of each file, the
/// project, and the large-run bookkeeping of phase 1.
struct Run<'a> {
    options: &'a Options,
    resolver: Arc<Resolver>,
    project: Project,
    /// Each file's configuration with the project root's inventory added.
    with_project: crate::config::WithProjectInventory,
    filter: Arc<ConfigFilter>,
    today: String,
    disk: Arc<DiskSizes>,
    /// The project's files, as definition readers consult them.
    files: Arc<Files>,
    need_index: NeedIndex,
    /// Source bytes of the waiting files that keep their trees.
    waiting_bytes: std::sync::atomic::AtomicUsize,
    loaded_files: std::sync::atomic::AtomicUsize,
}

/// The files phase 1 found, each loaded (or the report of its failure). Boxed: the walk
/// collects one entry per file in vectors that grow by doubling, and a `Loaded` inline
/// (hundreds of bytes) made those vectors, copied while they grew, the peak of a large
/// run (10,000 files: 41 of 86 MB of heap).
type LoadedFiles = Vec<(discover::Candidate, Result<Box<Loaded>, Box<FileReport>>)>;

/// The files of a run once the index is built: the reports already made, the files that
/// wait for the index with their configurations, and the index.
struct Gathered {
    files: Vec<FileReport>,
    waiting: Vec<(Waiting, Arc<Config>)>,
    configs: Vec<Arc<Config>>,
    index: ProjectIndex,
    /// The ignore files the search of the rest of the project refused: configuration
    /// errors like the walk's, reported once the checks are done.
    rest_refused: Arc<std::sync::Mutex<Vec<ConfigError>>>,
}

impl<'a> Run<'a> {
    /// The configuration resolver and the project. The built-in rules load on a rayon
    /// thread, idle during the walk: files are loaded and classified without them
    /// (findings take rule names from `diagnostic::codes`), and the checks, which need
    /// them, come after. The other embedded data loads beside the configuration. For a run
    /// of one file these are most of its time.
    fn start(paths: &[PathBuf], buffers: &[Buffer], options: &'a Options) -> Self {
        rayon::spawn(crate::ruleset::warm);
        let mut inputs: Vec<PathBuf> = paths.to_vec();
        inputs.extend(buffers.iter().map(|b| PathBuf::from(&b.display)));
        let (resolver, ()) = rayon::join(
            || {
                Arc::new(Resolver::for_run(
                    options.config.clone(),
                    &std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
                    &inputs,
                    Some(crate::ruleset::compile_errors),
                ))
            },
            warm_embedded_data,
        );
        let project = Project::detect(&resolver, &inputs);
        let disk = Arc::new(DiskSizes::within(project.boundary.clone()).with_limits(options.limits.clone()));
        let with_project = crate::config::WithProjectInventory::new(project.config.clone());
        let filter = Arc::new(ConfigFilter {
            resolver: resolver.clone(),
            force_exclude: options.force_exclude,
        });
        // Outside a git work tree the project's root is the checked paths' (or their
        // configuration's), not the boundary's, which may be where amlint runs from: a
        // path relative to the repository is read from there wherever amlint runs.
        let root = project.repo_root.is_none().then(|| project.root.clone());
        let files = Arc::new(Files::new(project.boundary.clone(), &options.limits).with_root(root));
        Run {
            options,
            resolver,
            project,
            with_project,
            filter,
            today: options.today.clone().unwrap_or_else(crate::facts::today),
            disk,
            files,
            need_index: NeedIndex::default(),
            waiting_bytes: std::sync::atomic::AtomicUsize::new(0),
            loaded_files: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn config_for(&self, path: &Path) -> Arc<Config> {
        self.with_project.get(&self.resolver.for_file(path))
    }

    /// Phase 1: discovery, each file loaded and classified as soon as the walk finds it
    /// ([`Run::load_one`]).
    fn load(&self, paths: &[PathBuf]) -> (LoadedFiles, Vec<discover::Problem>) {
        if paths.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let discovered = discover::discover_each(paths, self.filter.clone(), &self.project.boundary, |c| {
            self.load_one(c)
        });
        (discovered.files, discovered.problems)
    }

    /// One file of phase 1. In a large run (from the `LargeRun::files`th file on), it is
    /// also checked at once against an index that records lookups: a file whose checks
    /// looked nothing up is done, and only the files that need the project index wait for
    /// it (the peak memory of a large run was these trees). Small runs have few trees to
    /// drop; they check every file in phase 2, on rayon's threads.
    fn load_one(&self, c: &discover::Candidate) -> Result<Box<Loaded>, Box<FileReport>> {
        let options = self.options;
        let config = self.config_for(&c.path);
        let loaded = self
            .loaded_files
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        let large = options.large_run.loaded(loaded);
        guarded(&c.display, || {
            let prepared = prepare_with(
                c.path.clone(),
                load::load_path(
                    &c.path,
                    &c.display,
                    c.seen,
                    &self.project.boundary,
                    &options.limits,
                ),
                c.explicit,
                &self.files,
            );
            let defines = defines_of(&prepared);
            let kinds: Vec<Option<&'static str>> =
                prepared.classes.iter().map(Classification::kind_id).collect();
            if large && !self.need_index.any(&kinds) {
                let probe = Arc::new(ProjectIndex::probe());
                let base = FactBase {
                    index: probe.clone(),
                    config: config.clone(),
                    today: self.today.clone(),
                    disk: self.disk.clone(),
                    similar: Default::default(),
                    clusters: Default::default(),
                    agreements: Default::default(),
                    unmarked_root: self.project.unmarked_root.clone(),
                };
                let report = check_and_filter(&prepared, &base, &self.project, options);
                if !probe.was_consulted() {
                    return Box::new(Loaded {
                        path: c.path.clone(),
                        config,
                        defines,
                        state: State::Done(without_text_if_clean(report)),
                    });
                }
                self.need_index.add(&kinds);
            }
            let size = prepared.loaded.source.text.len();
            let kept = self
                .waiting_bytes
                .fetch_add(size, std::sync::atomic::Ordering::Relaxed);
            let waiting = if options.large_run.keeps_tree(kept, size) || prepared.loaded.unreadable {
                Waiting::Parsed(prepared)
            } else {
                Waiting::Shed {
                    path: prepared.path,
                    explicit: prepared.explicit,
                    source: prepared.loaded.source,
                    format: prepared.loaded.format,
                }
            };
            Box::new(Loaded {
                path: c.path.clone(),
                config,
                defines,
                state: State::Waiting(waiting),
            })
        })
    }

    /// What the walk could not do: a refused ignore file (with the resolver's errors: the
    /// run stops) or a directory it could not list (an AML004 finding of its own).
    fn problems(&self, problems: Vec<discover::Problem>) -> Result<Vec<FileReport>, Vec<ConfigError>> {
        let mut config_errors = self.resolver.errors();
        let mut unlisted: Vec<FileReport> = Vec::new();
        for problem in problems {
            match problem.kind {
                discover::ProblemKind::IgnoreFile => config_errors.push(refused_ignore_file(problem)),
                discover::ProblemKind::Unlisted | discover::ProblemKind::UnreadIgnoreFile => {
                    let help = if problem.kind == discover::ProblemKind::Unlisted {
                        "Make the directory readable by the user running amlint, or exclude it in the configuration."
                    } else {
                        "Make the ignore file readable by the user running amlint; until then the files it names are checked."
                    };
                    let mut report = FileReport {
                        source: SourceFile::new(&problem.display, String::new()),
                        checked: true,
                        kinds: Vec::new(),
                        classes: Vec::new(),
                        diagnostics: vec![
                            Diagnostic::new(codes::AML004, Span::at(0), problem.message).with_help(help),
                        ],
                        suppressed: Vec::new(),
                        omitted: Vec::new(),
                        computes: Default::default(),
                        always_on: Vec::new(),
                    };
                    let config = self.config_for(&problem.path);
                    filter::file(
                        &mut report,
                        None,
                        true,
                        &config,
                        &self.project,
                        &self.options.run_filter(),
                    );
                    unlisted.push(report);
                }
            }
        }
        if config_errors.is_empty() {
            Ok(unlisted)
        } else {
            Err(config_errors)
        }
    }

    /// The index: what the checked files define (in path order, the first definition of a
    /// name wins), and — when only some files of the project are checked (pre-commit, an
    /// editor buffer) — what the rest of it defines, read only if a lookup needs it (see
    /// `LazyIndex`). Buffers (stdin, editors) are parsed here.
    fn gather(
        &self,
        paths: &[PathBuf],
        loaded: LoadedFiles,
        buffers: Vec<Buffer>,
        unlisted: Vec<FileReport>,
    ) -> Gathered {
        let (options, project) = (self.options, &self.project);
        let mut index = ProjectIndex::default();
        let mut files: Vec<FileReport> = unlisted;
        let mut waiting: Vec<(Waiting, Arc<Config>)> = Vec::new();
        // The files already loaded, when the rest of the project may be searched (a run
        // that walked the project root has loaded all of it).
        let walked_root = paths.iter().any(|p| {
            crate::fsio::is_dir(p) && project.root.starts_with(crate::config::absolute(p, &project.cwd))
        });
        let mut seen: foldhash::HashSet<PathBuf> = foldhash::HashSet::default();
        let mut configs: Vec<Arc<Config>> = vec![project.config.clone()];
        for (_, l) in loaded {
            let loaded = match l {
                Ok(loaded) => *loaded,
                Err(report) => {
                    files.push(*report);
                    continue;
                }
            };
            if let Some(defines) = &loaded.defines {
                index.merge(defines);
            }
            if !walked_root {
                seen.insert(crate::config::absolute(&loaded.path, &project.cwd));
            }
            configs.push(loaded.config.clone());
            match loaded.state {
                State::Done(report) => files.push(report),
                State::Waiting(w) => waiting.push((w, loaded.config)),
            }
        }
        for buffer in buffers {
            let config = self.config_for(Path::new(&buffer.display));
            let display = buffer.display;
            match buffer.text {
                Ok(text) => match guarded(&display, || {
                    load::parse_text(&display, text, Format::for_path(&display), &options.limits)
                }) {
                    Ok(loaded) => {
                        let prepared = prepare_with(PathBuf::from(&display), loaded, true, &self.files);
                        index_into(&mut index, &prepared);
                        if !walked_root {
                            seen.insert(crate::config::absolute(&prepared.path, &project.cwd));
                        }
                        configs.push(config.clone());
                        waiting.push((Waiting::Parsed(prepared), config));
                    }
                    Err(report) => files.push(*report),
                },
                Err(refused) => {
                    let load::Refused { diagnostic, text } = *refused;
                    let mut report = FileReport {
                        source: SourceFile::new(&display, text),
                        checked: true,
                        kinds: Vec::new(),
                        classes: Vec::new(),
                        diagnostics: vec![diagnostic],
                        suppressed: Vec::new(),
                        omitted: Vec::new(),
                        computes: Default::default(),
                        always_on: Vec::new(),
                    };
                    filter::file(&mut report, None, true, &config, project, &options.run_filter());
                    files.push(report);
                }
            }
        }
        let rest_refused: Arc<std::sync::Mutex<Vec<ConfigError>>> = Arc::default();
        if !walked_root {
            let root = project.root.clone();
            let boundary = project.boundary.clone();
            let options = options.clone();
            let filter = self.filter.clone();
            let refused = rest_refused.clone();
            let files = std::sync::OnceLock::new();
            let project_files = self.files.clone();
            index = index.with_rest(LazyIndex::new(boundary.clone(), move |name, whole| {
                // The rest of the project, listed once, and what each of its files defines,
                // parsed at most once whatever the number of names searched (audit 23,
                // case 04: thousands of names defined in the same files).
                let (files, parsed) = files.get_or_init(|| {
                    let (files, errors) = rest_of_project(&root, &seen, filter.clone(), &boundary, &options);
                    refused.lock().unwrap_or_else(|e| e.into_inner()).extend(errors);
                    let parsed: Vec<std::sync::OnceLock<Option<Arc<ProjectIndex>>>> =
                        files.iter().map(|_| std::sync::OnceLock::new()).collect();
                    (files, parsed)
                });
                let parts: Vec<Arc<ProjectIndex>> = files_mentioning(files, name, &options, &boundary)
                    .into_par_iter()
                    .filter_map(|i| {
                        parsed[i]
                            .get_or_init(|| rest_file_index(&files[i], &options, &project_files, &boundary))
                            .clone()
                    })
                    .collect();
                let mut index = ProjectIndex::default();
                for part in &parts {
                    if whole {
                        index.merge(part);
                    } else {
                        index.merge_name(part, name);
                    }
                }
                index
            }));
        }
        Gathered {
            files,
            waiting,
            configs,
            index,
            rest_refused,
        }
    }

    /// Phase 2: the files that waited for the index, checked and filtered in parallel;
    /// then the configurations' own findings (AML012), and the report, sorted by path.
    fn check(self, gathered: Gathered) -> Report {
        let Gathered {
            mut files,
            waiting,
            configs,
            index,
            rest_refused,
        } = gathered;
        let options = self.options;
        let project = self.project;
        let large = options.large_run.is_large(self.loaded_files.into_inner());
        let bases = FactBases::with_parts(index, self.today, self.disk, project.unmarked_root.clone());
        let project_files = self.files.clone();
        let (user_rules, collisions) = user_rules(configs.iter());
        if !collisions.is_empty() {
            return Report::refused(project, collisions);
        }
        let checked: Vec<FileReport> = waiting
            .into_par_iter()
            .map(|(w, config)| {
                let display = w.display().to_string();
                let base = bases.for_config(&config);
                guarded(&display, || {
                    let report = check_and_filter(
                        &w.into_prepared(&options.limits, &project_files),
                        &base,
                        &project,
                        options,
                    );
                    if large {
                        without_text_if_clean(report)
                    } else {
                        report
                    }
                })
                .unwrap_or_else(|r| *r)
            })
            .collect();
        files.extend(checked);
        let config_errors = std::mem::take(&mut *rest_refused.lock().unwrap_or_else(|e| e.into_inner()));
        if !config_errors.is_empty() {
            return Report::refused(project, config_errors);
        }
        files.extend(enforcement_reports(&configs));
        files.sort_by(|a, b| a.source.path.cmp(&b.source.path));
        Report {
            files,
            project: Some(project),
            config_errors: Vec::new(),
            user_rules,
        }
    }
}

/// AML012 in each configuration file of the run that silences a rule it, or the project
/// root's configuration, enforces (`ignore`, `select`, `[severity]`,
/// `[per-file-ignores]`): one report per configuration file, findings at the entries.
fn enforcement_reports(configs: &[Arc<Config>]) -> Vec<FileReport> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for config in configs {
        let Some(source) = &config.source else {
            continue;
        };
        if config.enforce.is_empty() || !seen.insert(source.path.clone()) {
            continue;
        }
        let diagnostics: Vec<Diagnostic> = config
            .silencing_enforced()
            .into_iter()
            .map(|s| {
                Diagnostic::new(codes::AML012, s.span, s.message).with_help(
                    "Remove the entry for the enforced rules. An exception to an enforced rule is granted where it is enforced: change `enforce` there.",
                )
            })
            .collect();
        if diagnostics.is_empty() {
            continue;
        }
        out.push(FileReport {
            source: source.clone(),
            checked: true,
            kinds: Vec::new(),
            classes: Vec::new(),
            diagnostics,
            suppressed: Vec::new(),
            omitted: Vec::new(),
            computes: Default::default(),
            always_on: Vec::new(),
        });
    }
    out
}

/// An ignore file the walk refused, as a configuration error.
fn refused_ignore_file(problem: discover::Problem) -> ConfigError {
    ConfigError::about_file(
        &problem.display,
        problem.message,
        "amlint reads an ignore file only as a regular file inside the project, of at most 256 KiB (the walk compiles every pattern): replace it with one, shorten it, or remove it.",
    )
}

/// The user rules of these configurations (each configuration looked at once), by code,
/// and a configuration error for each code two of them define differently: a code means
/// one rule in a run (its findings, suppressions, baselines and SARIF descriptor).
fn user_rules<'a>(
    configs: impl Iterator<Item = &'a Arc<Config>>,
) -> (Vec<crate::registry::RuleMeta>, Vec<ConfigError>) {
    use crate::registry::RuleMeta;
    // One definition: the same file, or the same metadata and condition parameters.
    fn identity(r: &RuleMeta) -> impl PartialEq + '_ {
        let text = (r.summary.trim(), r.what.trim(), r.why.trim());
        (r.name, r.severity, text, &r.kinds, &r.params)
    }
    let same = |a: &RuleMeta, b: &RuleMeta| a.source == b.source || identity(a) == identity(b);
    let builtin = crate::registry::builtin();
    let mut seen: HashSet<usize> = HashSet::new();
    let mut out: Vec<RuleMeta> = Vec::new();
    let mut errors = Vec::new();
    for config in configs {
        if !seen.insert(std::ptr::from_ref::<crate::registry::Registry>(&config.rules) as usize) {
            continue;
        }
        for rule in config.rules.rules() {
            if builtin.get(rule.code).is_some() {
                continue;
            }
            match out.iter().find(|r| r.code == rule.code) {
                None => out.push(rule.clone()),
                Some(first) if same(first, rule) => {}
                Some(first) => errors.push(ConfigError::about_file(
                    &rule.source,
                    format!(
                        "user rule {} is defined here as `{}` ({}) and differently in {} as `{}` ({}): one code names one rule in a run",
                        rule.code, rule.name, rule.severity, first.source, first.name, first.severity
                    ),
                    "Give one of the two rules another code, or share one rule file between the configurations (rules-dirs).",
                )),
            }
        }
    }
    out.sort_by(|a, b| a.code.cmp(b.code));
    (out, errors)
}

/// Parses the embedded kinds table, VM catalogue and schema definitions (each once per
/// process; later calls return at once).
pub fn warm_embedded_data() {
    crate::kinds::table();
    crate::facts::vm::catalogue();
    crate::schema::store::store();
}

/// The project's files that are not already loaded, with their text (read once, in
/// parallel, for every name searched), and the ignore files the walk refused (as
/// configuration errors). Unreadable files and directories are left out: they are not
/// among the checked files, and only decide whether a name is found (AML203 says when it
/// is not).
fn rest_of_project(
    root: &Path,
    seen: &foldhash::HashSet<PathBuf>,
    filter: Arc<ConfigFilter>,
    boundary: &crate::fsio::Boundary,
    options: &Options,
) -> (Vec<RestFile>, Vec<ConfigError>) {
    if !crate::fsio::is_dir(root) {
        return (Vec::new(), Vec::new());
    }
    // With a cache (`crate::cache`), the listings and each file's trigrams kept from
    // earlier runs stand in for listing and reading what has not changed; a file is then
    // read only when a name searched may be in it (`RestFile::text`).
    let cache = options
        .cache_dir
        .as_deref()
        .map(|dir| crate::cache::Cache::open(dir, root));
    // The walk reads each file as it finds it (on the walking threads, not rayon's:
    // this runs inside a `OnceLock` that rayon jobs wait on, and a rayon worker helping
    // here could steal one of them and deadlock).
    // The checked files (absolute and normal, as the walk's paths are) by their bytes:
    // `Path` hashes and compares by components, and every walked file is looked up.
    let seen: foldhash::HashSet<&[u8]> = seen.iter().map(|p| p.as_os_str().as_encoded_bytes()).collect();
    let found = discover::discover_each_cached(
        &[root.to_path_buf()],
        filter,
        boundary,
        cache.as_ref(),
        discover::Order::Found,
        |c| {
            if seen.contains(c.path.as_os_str().as_encoded_bytes()) {
                return None;
            }
            let stamp = match cache.as_ref().map(|cache| cache.file(&c.path)) {
                Some(crate::cache::FileLookup::Known(summary)) => return Some(Content::Summary(summary)),
                Some(crate::cache::FileLookup::Unknown(stamp)) => stamp,
                None => None,
            };
            let read = RestText::read(c, boundary, &options.limits)?;
            if let (Some(cache), Some(stamp)) = (&cache, stamp) {
                cache.record_file(&c.path, stamp, &read.lower, || read.defines_only_at(&c.display));
            }
            Some(Content::Text(read))
        },
    );
    if let Some(cache) = &cache
        && let Err(e) = cache.save()
    {
        eprintln!(
            "amlint: warning: the project cache {} was not written: {}",
            crate::escape::control(&cache.path().display().to_string()),
            crate::escape::control(&e.to_string())
        );
    }
    // Shown as the walked files are: relative to the working directory when it is in the
    // project (the project root is absolute), through `..` for a file outside it.
    let here = std::env::current_dir()
        .ok()
        .map(|cwd| crate::fsio::WrittenFrom::new(&cwd, root));
    let mut files = Vec::with_capacity(found.files.len());
    files.extend(found.files.into_iter().filter_map(|(mut c, content)| {
        if let Some(rel) = here.as_ref().and_then(|h| h.path(&c.path)) {
            c.display = discover::display_of(&rel);
        }
        let (summary, text) = match content? {
            Content::Text(loaded) => (None, std::sync::OnceLock::from(Some(loaded))),
            Content::Summary(summary) => (Some(summary), std::sync::OnceLock::new()),
        };
        Some(RestFile {
            candidate: c,
            summary,
            text,
            sources: std::sync::OnceLock::new(),
        })
    }));
    let refused = found
        .problems
        .into_iter()
        .filter(|p| p.kind == discover::ProblemKind::IgnoreFile)
        .map(|mut p| {
            if let Some(rel) = here.as_ref().and_then(|h| h.path(&p.path)) {
                p.display = discover::display_of(&rel);
            }
            refused_ignore_file(p)
        })
        .collect();
    (files, refused)
}

/// What the walk of the rest of the project took of a file: its text, or, from the
/// cache, only its summary (trigrams).
enum Content {
    Text(RestText),
    Summary(crate::cache::FileSummary),
}

/// A file's text, and the text in ASCII lower case that names are searched in (made once
/// per file, whatever the number of names searched).
struct RestText {
    text: String,
    lower: Box<[u8]>,
    /// Whether a definition reader looks into it (`facts::sources::searched_by_words`),
    /// worked out when first asked.
    read_by_words: std::sync::OnceLock<bool>,
}

impl RestText {
    /// The walked file `c`, read (`None` if it cannot be: it is left out).
    fn read(
        c: &discover::Candidate,
        boundary: &crate::fsio::Boundary,
        limits: &crate::limits::Limits,
    ) -> Option<Self> {
        let text = load::read_text_seen(&c.path, c.seen, boundary, limits).ok()?;
        let lower = text.as_bytes().to_ascii_lowercase().into_boxed_slice();
        Some(RestText {
            text,
            lower,
            read_by_words: std::sync::OnceLock::new(),
        })
    }

    /// Whether a definition reader looks into the file displayed as `display` (this text's).
    fn read_by_words(&self, display: &str) -> bool {
        *self
            .read_by_words
            .get_or_init(|| crate::facts::sources::searched_by_words(display, self.text.as_bytes()))
    }

    /// An Azure Pipelines variables template: `variables:` at the top level.
    fn is_variables_template(&self) -> bool {
        self.lower.starts_with(b"variables:") || memchr::memmem::find(&self.lower, b"\nvariables:").is_some()
    }

    /// May be a compute YAML (its `type` or `$schema` names a compute type), which an `az
    /// ml compute create --file` elsewhere reads.
    fn may_be_a_compute_yaml(&self) -> bool {
        [
            &b"amlcompute"[..],
            b"computeinstance",
            b"kubernetes",
            b"virtualmachine",
            b"vmcompute",
            b"synapsespark",
        ]
        .iter()
        .any(|w| memchr::memmem::find(&self.lower, w).is_some())
    }

    /// For the project cache: where the file displayed as `display` (this text's) may
    /// define a name ([`name_value_lines`]), when that is all a search of a name needs of
    /// it: a YAML or JSON file that no definition reader looks into, that gives no values
    /// to the files beside it and is no variables template (a search reads those whatever
    /// they define, [`files_mentioning`]). `None`: any file the name is in is read.
    fn defines_only_at(&self, display: &str) -> Option<Vec<u8>> {
        let only_defines = Format::for_path(display) != Format::Text
            && !crate::facts::sources::GivesTo::of(display).any()
            && !self.is_variables_template()
            && !self.read_by_words(display);
        only_defines.then(|| name_value_lines(&self.lower)).flatten()
    }
}

/// A file of the rest of the project: its text, read when the walk found it or — when
/// the cache knew its summary — when a name searched may be in it and matter.
struct RestFile {
    candidate: discover::Candidate,
    summary: Option<crate::cache::FileSummary>,
    text: std::sync::OnceLock<Option<RestText>>,
    /// [`RestFile::sources_values`], worked out when first asked.
    sources: std::sync::OnceLock<bool>,
}

impl RestFile {
    /// What its path says (asked of the hits of a name, and of every file only when a
    /// hit gives values to the files beside it: a one-file run searches one name in tens
    /// of thousands of files).
    fn format(&self) -> Format {
        Format::for_path(&self.candidate.display)
    }

    fn gives(&self) -> crate::facts::sources::GivesTo {
        crate::facts::sources::GivesTo::of(&self.candidate.display)
    }

    /// The directory part of its displayed path (`facts::sources::split_dir`).
    fn dir(&self) -> &str {
        crate::facts::sources::split_dir(&self.candidate.display).0
    }

    /// The file's text, read now if it was not (`None` if it can no longer be read: it
    /// is then left out, as the walk leaves out a file it cannot read).
    fn text(&self, boundary: &crate::fsio::Boundary, limits: &crate::limits::Limits) -> Option<&RestText> {
        self.text
            .get_or_init(|| RestText::read(&self.candidate, boundary, limits))
            .as_ref()
    }

    /// Whether it is a script that runs `az ml compute` and may source another file
    /// (`source config.sh`, `. ./vars.ps1`): the values it creates a compute with may then
    /// come from a file of any name anywhere in the project, so it is read whatever name is
    /// searched (a whole run reads it; so must a partial one). The cached trigrams rule out
    /// most scripts unread (`scripts::may_use_sourced_values` is a superset: reading a
    /// script more never changes what it defines).
    fn sources_values(&self, boundary: &crate::fsio::Boundary, limits: &crate::limits::Limits) -> bool {
        *self.sources.get_or_init(|| {
            use crate::facts::sources::scripts;
            let name = crate::facts::sources::file_name(&self.candidate.display);
            scripts::follows_sources(&name)
                && self
                    .grams()
                    .is_none_or(|g| g.may_contain(scripts::NEEDLES[0].as_bytes()))
                && self
                    .text(boundary, limits)
                    .is_some_and(|t| scripts::may_use_sourced_values(t.text.as_bytes()))
        })
    }

    /// The cached trigrams of its text, if the cache gave them.
    fn grams(&self) -> Option<&crate::cache::Grams> {
        self.summary.as_ref().map(|s| &s.grams)
    }

    /// Whether the file's text holds `needle` (in lower case), as far as a search of it
    /// needs to know: not read when its cached trigrams say it cannot, nor when they say
    /// it can hold it only where it cannot define it (`cache::FileSummary::defines`, of a file
    /// whose other mentions nothing reads: [`RestText::defines_only_at`]); then `false`.
    fn mentions(
        &self,
        needle: &str,
        mentions: &Mentions,
        boundary: &crate::fsio::Boundary,
        limits: &crate::limits::Limits,
    ) -> bool {
        let ruled_out = |g: &crate::cache::Grams| !g.may_contain(needle.as_bytes());
        if let Some(summary) = &self.summary
            && (ruled_out(&summary.grams)
                || (mentions.fits_a_value && summary.defines.as_ref().is_some_and(ruled_out)))
        {
            return false;
        }
        self.text(boundary, limits)
            .is_some_and(|t| mentions.in_lower(&t.lower))
    }
}

/// A search for a lower-case name in lower-cased text: `memchr`'s substring search, in
/// time linear in the text whatever the name (a naive search of a 20,000-character name
/// in a 2 MB file of near matches took seconds: issue 34, defect 17), built once per name.
/// It replaced an ASCII-case-insensitive Aho-Corasick automaton over the original text,
/// whose prefilter took 45 % of a subfolder run beside 4,000 manifests that mention a
/// compute's name (1,323 M instructions for 30 names; see BENCHMARKS.md).
struct Mentions {
    finder: Option<memchr::memmem::Finder<'static>>,
    /// Whether the name holds none of [`VALUE_ENDS`]: then it can only be defined within a
    /// value a file's cached `defines` keeps, which can rule the file out.
    fits_a_value: bool,
}

impl Mentions {
    /// `needle` is in lower case.
    fn of(needle: &str) -> Mentions {
        Mentions {
            finder: (!needle.is_empty()).then(|| memchr::memmem::Finder::new(needle.as_bytes()).into_owned()),
            fits_a_value: !needle.bytes().any(|b| VALUE_ENDS.contains(&b)),
        }
    }

    /// Whether `lower` (text in ASCII lower case) contains the name.
    fn in_lower(&self, lower: &[u8]) -> bool {
        match &self.finder {
            // No name is in every text (the files are parsed, nothing is missed).
            None => true,
            Some(finder) => finder.find(lower).is_some(),
        }
    }
}

/// Whether a YAML or JSON file whose lower-cased text `lower` contains `needle` may define
/// something under it: Azure ML documents are defined by their `name:` (and found by
/// their `type:` in the search of a compute type), so the needle must be the value of a
/// key ending in `name` or `type` ([`name_values`]). An alias or a block scalar there might
/// hold anything: counted as a yes. Other mentions (a Kubernetes manifest's `value:
/// cpu-cluster`) cannot define it, and the file is not parsed.
fn may_name(lower: &[u8], needle: &[u8]) -> bool {
    name_values(lower, |value| {
        value.is_none_or(|p| lower.get(p..).is_some_and(|rest| rest.starts_with(needle)))
    })
}

/// The bytes that end what [`name_value_lines`] keeps of a value: a name holding none of
/// them that [`may_name`] finds at a value lies before the first of them.
const VALUE_ENDS: &[u8] = b"\n\r,]}";

/// The text of a YAML or JSON file (`lower`, in ASCII lower case) where [`may_name`] may
/// find a name: each value from where it starts up to the first of [`VALUE_ENDS`] (the end
/// of its line or of its item in a flow collection), joined by `\n`; `None` when a value
/// may hold anything. What the project cache keeps of the file (`cache::FileSummary::defines`),
/// so that a later run knows, without reading it, that it defines none of the names it
/// only mentions (`- {name: COMPUTE, value: cpu-cluster}`). Linear in the text: a stretch
/// is copied at most once per key searched, however many keys it holds.
fn name_value_lines(lower: &[u8]) -> Option<Vec<u8>> {
    let mut lines = Vec::new();
    let mut wild = false;
    // The last stretch copied, from where: a later value within it is in the copy.
    let mut copied = 0..0;
    name_values(lower, |value| {
        let Some(p) = value else {
            wild = true;
            return true;
        };
        if !copied.contains(&p) {
            let p = p.min(lower.len());
            let end = lower[p..]
                .iter()
                .position(|b| VALUE_ENDS.contains(b))
                .map_or(lower.len(), |e| p + e);
            lines.extend_from_slice(&lower[p..end]);
            lines.push(b'\n');
            copied = p..end;
        }
        false
    });
    (!wild).then_some(lines)
}

/// Calls `each` for the value of every key ending in `name` or `type` in `lower` (a YAML
/// or JSON text in ASCII lower case) — where it starts after the key's closing quote,
/// spaces, the colon, spaces or line breaks, at most two node properties (an anchor, a
/// tag) and an opening quote — or `None` for a value that may hold anything (an alias, a
/// block scalar), all keys `name` first, in order; stops when `each` says so, and says
/// whether it did. Linear in the text: each scan starts at one key and skips at most two
/// property tokens.
fn name_values(lower: &[u8], mut each: impl FnMut(Option<usize>) -> bool) -> bool {
    let is_ws = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let at = |p: usize| lower.get(p).copied();
    // `Some(Some(p))`: a value at `p`; `Some(None)`: one that may hold anything.
    let value_at = |mut p: usize| -> Option<Option<usize>> {
        if matches!(at(p), Some(b'"' | b'\'')) {
            p += 1;
        }
        while at(p).is_some_and(|b| b == b' ' || b == b'\t') {
            p += 1;
        }
        if at(p) != Some(b':') {
            return None;
        }
        p += 1;
        for _ in 0..=2 {
            while at(p).is_some_and(is_ws) {
                p += 1;
            }
            match at(p) {
                Some(b'&' | b'!') => {
                    while at(p).is_some_and(|b| !is_ws(b)) {
                        p += 1;
                    }
                }
                Some(b'*' | b'|' | b'>') => return Some(None),
                _ => break,
            }
        }
        if matches!(at(p), Some(b'"' | b'\'')) {
            p += 1;
        }
        Some(Some(p))
    };
    [&b"name"[..], b"type"].iter().any(|key| {
        memchr::memmem::find_iter(lower, key)
            .filter_map(|k| value_at(k + key.len()))
            .any(&mut each)
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod may_name_tests {
    use super::{Mentions, RestFile, RestText, may_name, name_value_lines};
    use crate::cache::{FileSummary, Grams};
    use proptest::prelude::*;

    /// What the cache keeps of `text` at `path` and a file of the rest of the project
    /// known only by it (not read).
    fn cached(path: &std::path::Path, text: &str) -> RestFile {
        let lower = text.to_ascii_lowercase().into_bytes();
        let read = RestText {
            text: text.into(),
            lower: lower.clone().into(),
            read_by_words: std::sync::OnceLock::new(),
        };
        let display = path.to_string_lossy().into_owned();
        let summary = FileSummary {
            grams: Grams::of(&lower),
            defines: read.defines_only_at(&display).map(|d| Grams::of(&d)),
        };
        RestFile {
            candidate: crate::discover::Candidate {
                path: path.to_path_buf(),
                display,
                explicit: false,
                seen: crate::load::Seen::Listed,
            },
            summary: Some(summary),
            text: std::sync::OnceLock::new(),
            sources: std::sync::OnceLock::new(),
        }
    }

    /// A cached YAML file that mentions a name only where it cannot define it is not read
    /// (a Kubernetes manifest's `value: cpu-cluster`, issue 38 row 5); one that may define
    /// it, or that a definition reader looks into, or that gives values to its neighbours,
    /// is read and searched as without the cache.
    #[test]
    fn a_cached_file_is_read_only_if_it_may_define_the_name() {
        let dir = tempfile::tempdir().unwrap();
        let (boundary, limits) = (
            crate::fsio::Boundary::anywhere(),
            crate::limits::Limits::default(),
        );
        let search = |path: &str, text: &str, name: &str| {
            let path = dir.path().join(path);
            std::fs::write(&path, text).unwrap();
            let file = cached(&path, text);
            let found = file.mentions(name, &Mentions::of(name), &boundary, &limits);
            (found, file.text.get().is_some())
        };
        let manifest = "kind: Deployment\nmetadata:\n  name: svc-1\nspec:\n  env:\n    - {name: COMPUTE, value: cpu-cluster}\n";
        assert_eq!(search("deploy.yaml", manifest, "cpu-cluster"), (false, false));
        assert_eq!(
            search(
                "compute.yml",
                "name: cpu-cluster\ntype: amlcompute\n",
                "cpu-cluster"
            ),
            (true, true)
        );
        // An alias may be anything: read.
        assert_eq!(
            search("anchored.yml", "x: &n cpu-cluster\nname: *n\n", "cpu-cluster"),
            (true, true)
        );
        // A workflow (`az ml compute create`), a variables template and an ARM parameter
        // file are read by others whatever they define.
        for (path, text) in [
            (
                "deploy.yml",
                "steps:\n  - run: az ml compute create -n $C\nenv: {C: cpu-cluster}\n",
            ),
            ("vars.yml", "variables:\n  compute: cpu-cluster\n"),
            (
                "main.parameters.json",
                "{\"parameters\": {\"c\": {\"value\": \"cpu-cluster\"}}}",
            ),
        ] {
            assert_eq!(search(path, text, "cpu-cluster"), (true, true), "{path}");
        }
    }

    proptest! {
        /// Where the cache says a file may define a name holds every name `may_name`
        /// finds in it: never a file left unread that would have been parsed.
        #[test]
        fn the_cached_values_hold_every_name_may_name_finds(
            text in "([a-z_]{0,6}(name|type)?[\"']?[ ]?:[ \n]{0,2}[&!]?[a-z]{0,2}[ ]?[\"']?[a-z0-9 -]{0,12}[\n,{}]?){0,12}",
            start in 0usize..200,
            len in 3usize..16,
        ) {
            let lower = text.as_bytes();
            let start = start.min(lower.len());
            let needle = &lower[start..(start + len).min(lower.len())];
            if needle.len() >= 3 && !needle.iter().any(|b| super::VALUE_ENDS.contains(b)) && may_name(lower, needle) {
                if let Some(lines) = name_value_lines(lower) {
                    prop_assert!(Grams::of(&lines).may_contain(needle));
                }
            }
        }
    }

    #[test]
    fn the_cached_values_of_a_long_line_of_keys_are_linear() {
        // 100,000 keys on one line: it is copied once, not once per key.
        let text = "name: x ".repeat(100_000);
        let lines = name_value_lines(text.as_bytes()).unwrap();
        assert!(lines.len() <= text.len() + 1, "{}", lines.len());
    }

    #[test]
    fn a_name_is_found_as_the_value_of_a_name_or_type_key_however_it_is_written() {
        let yes = [
            "name: cpu-cluster\n",
            "$schema: x\nname:   'cpu-cluster'\n",
            "{\"name\": \"cpu-cluster\"}",
            "compute_name : \"cpu-cluster-2\"",
            "name:\n  cpu-cluster\n",
            "name: &n !!str cpu-cluster\n",
            "name: *alias\n",
            "name: >-\n  cpu-\n  cluster\n",
            "- {name: cpu-cluster, size: x}",
            "type: cpu-cluster",
        ];
        for text in yes {
            assert!(may_name(text.as_bytes(), b"cpu-cluster"), "{text}");
        }
        let no = [
            "env:\n  - {name: COMPUTE, value: cpu-cluster}\n".to_ascii_lowercase(),
            "command: echo cpu-cluster\nname: job\n".into(),
            "name: gpu-cluster # not cpu-cluster\n".into(),
            "name\n: cpu-cluster".into(),
            "name: !a !b !c cpu-cluster".into(),
            String::new(),
        ];
        for text in no {
            assert!(!may_name(text.as_bytes(), b"cpu-cluster"), "{text}");
        }
    }

    #[test]
    fn many_keys_and_properties_are_scanned_in_linear_time() {
        // Every scan starts at one key and skips at most two property tokens: 200,000
        // keys whose tags hold the next key take one pass, not one per key.
        let text = "name: !name: ".repeat(200_000);
        assert!(!may_name(text.as_bytes(), b"cpu-cluster"));
        let text = format!("{}name: cpu-cluster", "name: ".repeat(200_000));
        assert!(may_name(text.as_bytes(), b"cpu-cluster"));
    }
}

/// Loads and classifies, to index them, the files whose text contains `name` (lower case):
/// only they can define it. Nothing is reported for them.
fn files_mentioning(
    files: &[RestFile],
    name: &str,
    options: &Options,
    boundary: &crate::fsio::Boundary,
) -> Vec<usize> {
    use crate::facts::sources::GivesTo;
    let limits = &options.limits;
    let needle = name.to_ascii_lowercase();
    let mentions = Mentions::of(&needle);
    // Which files mention the name, by position in `files` (a file's path is hashed
    // nowhere: a subfolder run searches every file of the project once per name).
    let hits: Vec<bool> = files
        .par_iter()
        .map(|f| f.mentions(&needle, &mentions, boundary, limits))
        .collect();
    let hit_files = || files.iter().zip(&hits).filter(|(_, hit)| **hit).map(|(f, _)| f);
    // A name written in a variable or parameter file (`variables.tf`, `*.bicepparam`,
    // `*.parameters.json`) is defined by the files beside it that use it: what the hits
    // of each directory give, together (`facts::sources::companion_of`, in time linear in
    // the files whatever the number of hits).
    let mut gives: HashMap<&str, GivesTo> = HashMap::new();
    for f in hit_files() {
        let g = f.gives();
        if g.any() {
            let dir = gives.entry(f.dir()).or_default();
            *dir = dir.with(g);
        }
    }
    // An Azure Pipelines variables template among the hits (`variables:` at the top,
    // `training_target: cpu-cluster`) gives its values to the pipelines that include it
    // (`- template: ../config-infra.yml`), wherever they are: the files that name it and
    // that a definition reader looks into are read too (the mlops-v2 layout; audit 8).
    // So is a compute YAML among the hits that defines the name (`name: scoring-ci`): the
    // files that create it with `az ml compute create --file compute/ci.yml` (and may
    // override its values: `--size ...`) need not name it (audit 29, case 05).
    let includers: Vec<bool> = {
        let templates: HashSet<String> = hit_files()
            .filter(|f| f.format() == Format::Yaml)
            .filter(|f| {
                f.text(boundary, limits).is_some_and(|t| {
                    t.is_variables_template()
                        || (t.may_be_a_compute_yaml() && may_name(&t.lower, needle.as_bytes()))
                })
            })
            .filter_map(|f| f.candidate.path.file_name())
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .collect();
        // All the templates' names searched at once (a repository may hold thousands of
        // files with `variables:` that mention the name: one pass over each file, not one
        // per template); the cached trigrams rule files out only for a few names.
        let names: Vec<&String> = templates.iter().collect();
        let search = (!names.is_empty())
            .then(|| aho_corasick::AhoCorasick::new(&names).ok())
            .flatten();
        match search {
            None => Vec::new(),
            Some(search) => files
                .par_iter()
                .zip(&hits)
                .map(|(f, hit)| {
                    !hit && (names.len() > 16
                        || f.grams()
                            .is_none_or(|g| names.iter().any(|n| g.may_contain(n.as_bytes()))))
                        // One no reader looks into cannot include them (cached: not read).
                        && f.summary.as_ref().is_none_or(|s| s.defines.is_none())
                        && f.text(boundary, limits).is_some_and(|t| {
                            search.is_match(&t.lower[..]) && t.read_by_words(&f.candidate.display)
                        })
                })
                .collect(),
        }
    };
    // A file among them that others may call — a Terraform or Bicep module, a Python
    // helper's module, a workflow or pipeline template — is also defined by each call of
    // it, in files that need not name it (`module x 'modules/ci.bicep' = { params: {
    // vmSize: ... } }`, `create_ci(ml_client, size=...)` after `from compute_utils import
    // create_ci`, `- template: create-ci.yml` with `parameters:`): the files that may call
    // one are read too, and those that may call them, as a whole run reads them.
    let callers = callers_of(files, &hits, &includers, &gives, boundary, limits);
    // A YAML or JSON hit is parsed only if it may define the name (`may_name`) or a
    // definition reader looks into it (a workflow's `az ml compute create`, an ARM
    // template); scripts and the other definition sources are read by their readers.
    let may_define = |f: &RestFile, t: &RestText| {
        f.format() == Format::Text
            || may_name(&t.lower, needle.as_bytes())
            || t.read_by_words(&f.candidate.display)
    };
    let mut chosen: Vec<usize> = files
        .par_iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let takes = includers.get(i).copied().unwrap_or(false)
                || callers.get(i).copied().unwrap_or(false)
                || takes_values(&gives, f)
                || f.sources_values(boundary, limits);
            if !hits[i] && !takes {
                return None;
            }
            let t = f.text(boundary, limits)?;
            (takes || may_define(f, t)).then_some(i)
        })
        .collect();
    // In the order of a sorted walk (the first definition of a name wins): the rest of
    // the project is kept as its walk found it (`discover::Order::Found`).
    chosen.sort_by_cached_key(|&i| discover::walk_key(&files[i].candidate.path));
    chosen
}

/// Whether a hit beside `f` gives it values (`facts::sources::GivesTo`: a variable or
/// parameter file and the definition files of its folder).
fn takes_values(gives: &HashMap<&str, crate::facts::sources::GivesTo>, f: &RestFile) -> bool {
    !gives.is_empty() && gives.get(f.dir()).is_some_and(|g| g.takes(&f.candidate.display))
}

/// The files that may call one of those [`files_mentioning`] chose (its hits, the files
/// that take values from them, the pipelines that include them), by position in `files`:
/// then those that may call them, round after round to the depth the readers follow calls
/// (`facts::sources::callers`). Each round is one pass over the files, searching the names
/// of all the files called at once (one file of a thousand modules is not tested against
/// each of them); the cached trigrams rule most files out unread.
fn callers_of(
    files: &[RestFile],
    hits: &[bool],
    includers: &[bool],
    gives: &HashMap<&str, crate::facts::sources::GivesTo>,
    boundary: &crate::fsio::Boundary,
    limits: &crate::limits::Limits,
) -> Vec<bool> {
    use crate::facts::sources::callers::{Callees, MAX_ROUNDS};
    let chosen_already = |i: usize, f: &RestFile| {
        hits[i] || includers.get(i).copied().unwrap_or(false) || takes_values(gives, f)
    };
    let mut callees = Callees::default();
    for (i, f) in files.iter().enumerate() {
        if chosen_already(i, f)
            && Callees::may_be_called(&f.candidate.path)
            && let Some(t) = f.text(boundary, limits)
        {
            callees.add(&f.candidate.path, &t.text, false);
        }
    }
    if callees.is_empty() {
        return Vec::new();
    }
    let mut chosen: Vec<bool> = files
        .par_iter()
        .enumerate()
        .map(|(i, f)| chosen_already(i, f))
        .collect();
    let mut callers = Vec::new();
    for _ in 0..MAX_ROUNDS {
        if callees.is_empty() {
            break;
        }
        let search = callees.callers();
        let found: Vec<bool> = files
            .par_iter()
            .zip(&chosen)
            .map(|(f, chosen)| {
                !chosen
                    && search.via(&f.candidate.path).is_some_and(|via| {
                        f.grams().is_none_or(|g| search.may_hold(via, |n| g.may_contain(n)))
                            // One no reader looks into calls nothing (cached: not read).
                            && f.summary.as_ref().is_none_or(|s| s.defines.is_none())
                            && f.text(boundary, limits).is_some_and(|t| {
                                search.calls(via, &t.lower) && t.read_by_words(&f.candidate.display)
                            })
                    })
            })
            .collect();
        callees = Callees::default();
        for (i, _) in found.iter().enumerate().filter(|(_, f)| **f) {
            if callers.is_empty() {
                callers = vec![false; files.len()];
            }
            callers[i] = true;
            chosen[i] = true;
            if let Some(t) = files[i].text(boundary, limits) {
                callees.add(&files[i].candidate.path, &t.text, true);
            }
        }
    }
    callers
}

/// What a file of the rest of the project defines ([`files_mentioning`] chose it), parsed
/// once; `None` when it cannot be read or its reading fails.
fn rest_file_index(
    f: &RestFile,
    options: &Options,
    project: &Files,
    boundary: &crate::fsio::Boundary,
) -> Option<Arc<ProjectIndex>> {
    let text = &f.text(boundary, &options.limits)?.text;
    let c = &f.candidate;
    catch_unwind(AssertUnwindSafe(|| {
        let prepared = prepare_with(
            c.path.clone(),
            load::parse_text(&c.display, text.clone(), f.format(), &options.limits),
            false,
            project,
        );
        Arc::new(index_of(std::iter::once(&prepared)))
    }))
    .ok()
}

/// Checks text held in memory (standard input, an editor buffer) as the file `display`,
/// with the configuration `options` choose. Configuration errors are reported by [`run`];
/// here, if the configuration is invalid, the text is checked with the defaults.
pub fn check_text(display: &str, text: String, options: &Options) -> FileReport {
    let buffer = |text: String| Buffer {
        display: display.to_string(),
        text: Ok(text),
    };
    let mut report = run(&[], vec![buffer(text.clone())], options);
    if !report.config_errors.is_empty() {
        let defaults = Options {
            config: ConfigChoice::Disabled,
            ..options.clone()
        };
        report = run(&[], vec![buffer(text)], &defaults);
    }
    report.files.pop().unwrap_or_else(|| FileReport {
        source: SourceFile::new(display, String::new()),
        checked: false,
        kinds: Vec::new(),
        classes: Vec::new(),
        diagnostics: Vec::new(),
        suppressed: Vec::new(),
        omitted: Vec::new(),
        computes: Default::default(),
        always_on: Vec::new(),
    })
}

/// Checks a classified file against its fact base, then applies its configuration,
/// suppressions and the baseline.
pub fn check_and_filter(
    prepared: &Prepared,
    base: &FactBase,
    project: &Project,
    options: &Options,
) -> FileReport {
    let loaded = &prepared.loaded;
    let rules = &base.config.rules;
    let mut suppressions = (loaded.format == Format::Yaml)
        .then(|| crate::suppress::scan(&loaded.source, &loaded.documents, rules));
    if !prepared.comments.is_empty() {
        // Comments of the file's own syntax outside YAML (a script's, one inside a
        // workflow's `run:`), where a definition reader found them.
        let more = crate::suppress::scan_comments(&loaded.source, &prepared.comments, rules);
        match &mut suppressions {
            Some(s) => {
                s.directives.extend(more.directives);
                s.directives.sort_by_key(|d| d.span.start);
            }
            None => suppressions = Some(more),
        }
    }
    // An ARM template with `//` or `/* */` comments is not JSON to the loader, but its
    // reader parsed all of it (comments blanked): its findings are all there.
    let arm_read_whole = loaded.format == Format::Json
        && !prepared.definitions.is_empty()
        && prepared
            .definitions
            .iter()
            .all(|d| d.def.source == crate::facts::computes::SourceKind::Arm);
    let complete = !loaded.unreadable && (loaded.documents.iter().all(|d| !d.partial) || arm_read_whole);
    let config = base.config.clone();
    let mut report = check_prepared(prepared, base, &options.limits);
    // The run's date, looked up once (not per file).
    let run = filter::RunFilter {
        today: Some(options.today.as_deref().unwrap_or(&base.today)),
        ..options.run_filter()
    };
    filter::file(
        &mut report,
        suppressions.as_ref(),
        complete,
        &config,
        project,
        &run,
    );
    report
}

/// Runs `work`; a panic becomes an AML000 finding for this file alone.
pub fn guarded<T>(display: &str, work: impl FnOnce() -> T) -> Result<T, Box<FileReport>> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(value) => Ok(value),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Box::new(FileReport {
                source: SourceFile::new(display, String::new()),
                checked: true,
                kinds: Vec::new(),
                classes: Vec::new(),
                suppressed: Vec::new(),
                omitted: Vec::new(),
                computes: Default::default(),
                diagnostics: vec![
                    Diagnostic::new(
                        codes::AML000,
                        Span::at(0),
                        format!("amlint failed while checking this file ({what}); the file was not checked"),
                    )
                    .with_help(
                        "This is a bug in amlint. Please report it with the file, or a reduced copy of it.",
                    ),
                ],
                always_on: Vec::new(),
            }))
        }
    }
}

/// The loader's own findings that matter even when the file cannot be classified.
fn is_load_failure(d: &Diagnostic) -> bool {
    [codes::AML001.code, codes::AML004.code, codes::AML005.code].contains(&d.code)
}

/// Whether a file that could not be classified should still be reported: when it was
/// named explicitly (but for a file of another language that only fails to parse as
/// YAML), when its name says it is of a kind amlint checks
/// (`deploymentconfig.json`; not `devcontainer.json` nor `flow.dag.yaml`), or
/// when it is a YAML file that could not be read at all — except for its size: a walked
/// file over the size limit is data, not a configuration, and the CLI skips it silently
/// (Azure ML configurations are a few kilobytes).
fn report_unclassified(loaded: &LoadedFile, explicit: bool) -> bool {
    let path = &loaded.source.path;
    let broken = loaded.diagnostics.iter().any(|d| d.code == codes::AML001.code);
    if explicit {
        // Named on the command line, it is reported — unless it is a file of another
        // language (an `.R` script, `setup.cfg`) that only fails to parse as YAML: the
        // walk does not read such a name, and a YAML syntax error there says nothing
        // (audit 20, case 02). One that reads as Azure ML is reported whatever its name.
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        return !broken || crate::discover::is_config_name(name) || looks_like_azure_ml(loaded);
    }
    let by_name = kinds::classify(&Default::default(), path).is_checked();
    let too_large = loaded.diagnostics.iter().any(|d| d.code == codes::AML005.code);
    // A file a definition reader would read (its name, and its text — with the bytes that
    // are not UTF-8 replaced — holding the words of a definition: a `deploy.sh` that runs
    // `az ml compute create`, not a `.py` that only imports) is reported when it cannot be
    // read, never dropped: the computes it defines would be lost without a word (audit 23,
    // case 07), as `unread_definitions` reports one beyond a limit.
    let unread = loaded.unreadable && !too_large;
    by_name
        || (unread
            && (loaded.format == Format::Yaml
                || crate::facts::sources::defined_by_words(path, loaded.source.text.as_bytes())))
        || (broken && looks_like_azure_ml(loaded))
}

/// Whether a file that does not parse is an Azure ML configuration all the same: its text
/// names an Azure ML schema, or its top-level keys — the `key: value` lines at column 0,
/// read on their own — make a document that classifies as an Azure ML kind that is
/// checked. Such a file is reported (its syntax errors), never skipped: a `$schema:` with a
/// tab after the colon, a leading tab or an unclosed quote must not pass a CI gate as "1
/// skipped" (issue 34, defect 3).
fn looks_like_azure_ml(loaded: &LoadedFile) -> bool {
    let text = &loaded.source.text;
    if kinds::names_azure_ml_schema(text) {
        return true;
    }
    if loaded.format != Format::Yaml {
        return false;
    }
    let top: String = text
        .lines()
        .filter_map(top_level_line)
        .take(200)
        .collect::<Vec<_>>()
        .join("\n");
    if top.is_empty() {
        return false;
    }
    let reread = crate::load::parse_text(&loaded.source.path, top, Format::Yaml, &Limits::default());
    reread
        .documents
        .first()
        .is_some_and(|doc| kinds::classify(doc, &loaded.source.path).is_checked())
}

/// A line of the shape `key: scalar` (or `key:`) at column 0 (after tabs, which YAML
/// refuses there) with a plain key, as it would read alone: the value kept when it is a
/// plain word, else a placeholder string (a quoted or multi-word value is still a string).
fn top_level_line(line: &str) -> Option<String> {
    let line = line.trim_start_matches('\t').trim_end_matches(['\r', ' ', '\t']);
    let (key, value) = line.split_once(':')?;
    let plain_key = !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$' | '.'))
        && !key.starts_with(['-', '.']);
    if !plain_key {
        return None;
    }
    let value = value.trim_matches([' ', '\t', '\u{a0}']);
    let word = !value.is_empty()
        && value.len() <= 256
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':'));
    Some(if word {
        format!("{key}: {value}")
    } else if value.is_empty() {
        format!("{key}:")
    } else {
        format!("{key}: placeholder")
    })
}

/// Runs the checks of a classified file against a fact base (before filtering): its Azure
/// ML documents, and the compute documents of the definitions it holds in another format.
pub fn check_prepared(prepared: &Prepared, base: &FactBase, limits: &Limits) -> FileReport {
    let Prepared {
        path: _,
        explicit,
        loaded,
        classes,
        definitions,
        comments: _,
        unread,
    } = prepared;
    let azure = classes.iter().any(Classification::is_checked);
    let mut computes = crate::results::ComputeFacts {
        definitions: definitions.iter().map(|d| d.def.clone()).collect(),
        references: Vec::new(),
    };
    // A file that defines a compute outside Azure ML YAML (a script, a workflow) is
    // checked for its definitions only.
    let defines = definitions.iter().any(|d| d.def.outside_yaml());
    if !azure && !defines {
        return unchecked(loaded, classes, *explicit, computes, unread.as_deref());
    }

    let mut findings = if azure {
        Findings::from_parts(
            loaded.diagnostics.clone(),
            loaded.omitted.clone(),
            limits.findings_kept(),
        )
    } else {
        // What the loader says of a workflow or a script is not amlint's to report.
        Findings::new(limits.findings_kept())
    };
    if azure {
        checks::single_document::check(&loaded.source, &loaded.documents, &mut findings);
    }
    let mut always_on = check_documents(prepared, base, &mut findings, &mut computes.references);
    let (diagnostics, omitted) = findings.into_parts();
    let mut diagnostics = sorted(diagnostics);
    attach_to_documents(&mut diagnostics, loaded, classes);
    if defines {
        diagnostics.extend(check_definitions(prepared, base, limits, &mut always_on));
    }
    // An Azure ML file's own load failures are already among its findings.
    diagnostics.extend(unread.as_deref().filter(|_| !azure).cloned());
    if defines || unread.is_some() {
        diagnostics = sorted(diagnostics);
    }

    // Findings that differed only by what was just attached are one finding.
    diagnostics.dedup();
    FileReport {
        source: loaded.source.clone(),
        checked: true,
        kinds: kind_ids(classes),
        classes: classes.clone(),
        diagnostics,
        suppressed: Vec::new(),
        omitted,
        computes,
        always_on,
    }
}

fn kind_ids(classes: &[Classification]) -> Vec<Option<&'static str>> {
    classes.iter().map(Classification::kind_id).collect()
}

/// The report of a file that is not checked (neither Azure ML nor defining a compute):
/// its load failures when it should be reported all the same ([`report_unclassified`]).
fn unchecked(
    loaded: &LoadedFile,
    classes: &[Classification],
    explicit: bool,
    computes: crate::results::ComputeFacts,
    unread: Option<&Diagnostic>,
) -> FileReport {
    let mut failures: Vec<Diagnostic> = loaded
        .diagnostics
        .iter()
        .filter(|d| is_load_failure(d))
        .cloned()
        .collect();
    // Only a failure to load is reported: without one, the classification by name of
    // `report_unclassified`, costly for every skipped file, is not needed. Computes not
    // read are reported whatever the file is, unless the failure they amend already is.
    let reported = !failures.is_empty() && report_unclassified(loaded, explicit);
    if !reported {
        failures.clear();
    }
    if let Some(unread) = unread
        && !failures
            .iter()
            .any(|d| d.code == unread.code && d.span == unread.span)
    {
        failures.push(unread.clone());
    }
    let report = !failures.is_empty();
    FileReport {
        source: loaded.source.clone(),
        checked: report,
        kinds: kind_ids(classes),
        classes: classes.to_vec(),
        diagnostics: sorted(failures),
        suppressed: Vec::new(),
        omitted: Vec::new(),
        computes,
        always_on: Vec::new(),
    }
}

/// Runs the document checks on each Azure ML document of the file, collecting the compute
/// references they resolved into `references`; the monthly floors of the documents that
/// have one.
fn check_documents(
    prepared: &Prepared,
    base: &FactBase,
    findings: &mut Findings,
    references: &mut Vec<crate::facts::index::ComputeRef>,
) -> Vec<crate::results::AlwaysOnCost> {
    let loaded = &prepared.loaded;
    let mut always_on = Vec::new();
    for (doc, class) in loaded.documents.iter().zip(&prepared.classes) {
        // A document whose aliases expand beyond the limit (AML005) is not checked
        // further: walking it would take the time and memory the limit is there to bound.
        if !class.is_checked() || doc.alias_overflow {
            continue;
        }
        let facts = class
            .kind
            .map(|kind| DocFacts::new(doc, kind, &prepared.path, base));
        let cx = DocContext::new(
            &loaded.source,
            doc,
            class,
            &base.config,
            facts.as_ref(),
            base.disk.boundary(),
        );
        let before = findings.len();
        checks::run_document_checks(&cx, findings);
        let Some(facts) = &facts else {
            continue;
        };
        if doc.top_str("name").is_none() {
            named_by_readers(
                &mut findings.kept_mut()[before..],
                facts,
                base,
                &loaded.source.path,
            );
        }
        references.extend(facts.compute_refs());
        always_on.extend(always_on_cost(facts, doc.top_str("name")));
    }
    always_on
}

/// The findings of a compute YAML that gives no `name:` (`findings`, whose messages say
/// "`?`" where the name goes): the commands that create a compute from it with `--name`
/// (`az ml compute create --file file --name X`) name it (audit 29, case 03).
fn named_by_readers(findings: &mut [Diagnostic], facts: &DocFacts, base: &FactBase, file: &str) {
    if findings.is_empty() || !matches!(facts.kind.id.as_str(), "amlCompute" | "computeInstance") {
        return;
    }
    let names = base.index.names_reading(file);
    let named = match names.as_slice() {
        [] => return,
        [one] => format!("`{one}`"),
        [first @ .., last] => format!(
            "{} or `{last}`",
            first
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    for x in findings {
        x.message = x.message.replacen("`?`", &named, 1);
    }
}

/// What a compute document (of a file, or of a definition outside YAML) costs when
/// idle, when the configuration prices it; `name` is the compute's, when known.
fn always_on_cost(facts: &DocFacts, name: Option<&str>) -> Option<crate::results::AlwaysOnCost> {
    let cost = facts.always_on().filter(|c| c.monthly() > 0.0)?;
    let kind = facts.kind.id.as_str();
    Some(crate::results::AlwaysOnCost {
        kind,
        monthly: cost.monthly(),
        currency: cost.currency,
        source: cost.file,
        // Lower-cased as the project index keys compute names.
        compute: name.filter(|_| kind == "amlCompute").map(str::to_lowercase),
    })
}

/// Attaches each finding to its document: kind and, where missing, pointer. Findings
/// (sorted) and documents are both in text order, so one pass over each pairs them.
fn attach_to_documents(diagnostics: &mut [Diagnostic], loaded: &LoadedFile, classes: &[Classification]) {
    let mut rest = diagnostics;
    for (doc, class) in loaded.documents.iter().zip(classes) {
        let end = doc.span.end.max(doc.span.start);
        let before = rest.partition_point(|d| d.span.start < doc.span.start);
        rest = &mut rest[before..];
        let inside = rest.partition_point(|d| d.span.start <= end);
        let (these, after) = std::mem::take(&mut rest).split_at_mut(inside);
        // Documents share no text but a `---` line may end one and start the next: a
        // finding there belongs to the first, as before.
        rest = after;
        let wanted: HashSet<Span> = these
            .iter()
            .filter(|d| d.pointer.is_none())
            .map(|d| d.span)
            .collect();
        let pointers = if wanted.is_empty() {
            Default::default()
        } else {
            doc.pointers_for(&wanted)
        };
        for d in these.iter_mut() {
            if d.kind.is_none() {
                d.kind = class.kind_id();
            }
            if d.pointer.is_none() {
                d.pointer = pointers.get(&d.span).cloned();
            }
        }
    }
}

/// A definition's fixes declare their changes in its compute document; the file holds
/// other data, or none. In a file of data (an ARM template) a fix that sets one value
/// declares that value's place in the file, found at the literal its edit replaces, and a
/// fix whose place is not found there (a key renamed or removed, a value inside a string)
/// is not offered: the verifier could only refuse it. A script or template of no data
/// (Terraform, Bicep, Python, shell) has nothing to compare: its fixes, each replacing the
/// literal written in place, declare nothing.
fn definition_fixes(x: &mut Diagnostic, loaded: &LoadedFile) {
    let fixed = |mut fix: crate::diagnostic::Fix| -> Option<crate::diagnostic::Fix> {
        if loaded.documents.is_empty() {
            fix.changes.clear();
            return Some(fix);
        }
        if fix.changes.is_empty() {
            return Some(fix);
        }
        let ([edit], [crate::diagnostic::Change::Set { to, .. }]) =
            (fix.edits.as_slice(), fix.changes.as_slice())
        else {
            return None;
        };
        let doc = loaded
            .documents
            .iter()
            .find(|d| d.span.start <= edit.span.start && edit.span.end <= d.span.end)?;
        let at = doc.pointers_for(&HashSet::from([edit.span])).remove(&edit.span)?;
        let to = to.clone();
        fix.changes = vec![crate::diagnostic::Change::Set { at, to }];
        Some(fix)
    };
    x.fix = x.fix.take().and_then(fixed);
    x.other_fixes = std::mem::take(&mut x.other_fixes)
        .into_iter()
        .filter_map(fixed)
        .collect();
}

/// The findings of the compute documents of a file's definitions outside Azure ML YAML:
/// the declarative rules and the definition checks, each finding at its span in the file,
/// with its kind and pointer (in the compute document), and a label on the literal when the
/// value came from a variable. A definition that reads a compute YAML (`-f`) keeps the
/// findings on what its command line sets and those about the VM size it creates the
/// compute with; the YAML reports the rest itself.
fn check_definitions(
    prepared: &Prepared,
    base: &FactBase,
    limits: &Limits,
    always_on: &mut Vec<crate::results::AlwaysOnCost>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for d in &prepared.definitions {
        let Some(syn) = &d.synthetic else {
            continue;
        };
        let class = Classification {
            kind: Some(syn.kind),
            ..Classification::default()
        };
        let mut facts = DocFacts::with_unknown(&syn.doc, syn.kind, &prepared.path, base, syn.unknown.clone());
        // Messages name the settings as the definition's file writes them.
        facts.idiom = d.def.idiom;
        facts.text = Some(&prepared.loaded.source.text);
        facts.derived = &d.def.derived;
        let cx = DocContext::new(
            &prepared.loaded.source,
            &syn.doc,
            &class,
            &base.config,
            Some(&facts),
            base.disk.boundary(),
        );
        let mut own = Findings::new(limits.findings_kept());
        checks::run_definition_checks(&cx, &mut own);
        // A definition that reads its values from a compute YAML (`-f`): the YAML costs.
        if syn.overrides.is_none() {
            always_on.extend(always_on_cost(&facts, d.def.known_name()));
        }
        let (mut diagnostics, _) = own.into_parts();
        let inherited_size = d.def.get("size").filter(|s| s.inherited).map(|s| s.span);
        if let Some(overrides) = &syn.overrides {
            // Read from a compute YAML (`-f`): the YAML reports its own findings, and this
            // definition those of what its command line sets — and those about the VM
            // size it creates the compute with (`rules/vm/`: an unknown, unsupported,
            // retired or unapproved series, or quota), since that is where the creation
            // fails: at the file's name, labelled.
            // A finding about a key neither writes lands on the rule's fallback, the name:
            // the file that holds the rest of the values reports it.
            diagnostics.retain(|x| {
                let own = overrides
                    .iter()
                    .any(|s| s.start <= x.span.start && x.span.end <= s.end)
                    && !(x.span == d.def.name.span && falls_back_to_the_name(x.code));
                // A YAML without a `name:` cannot report what is reported at the name (or
                // falls back to it): the command that names it does (audit 29, case 03).
                let named_here = d.def.names_the_file && x.span == d.def.name.span;
                // The setting the rule is about, when this definition gives it (not
                // inherited) at the finding: its own, even where the name is too (a
                // module's name and `enableNodePublicIp` both built of the call's
                // `environment`); and its absence when the call's arguments decide it
                // (`subnet: environment != 'dev' ? {...} : null`; audit 30, case 01).
                let about = reported_field(x.code);
                let at_its_setting = about
                    .and_then(|f| d.def.get(f))
                    .is_some_and(|s| !s.inherited && s.span == x.span);
                let decided = about.is_some_and(|f| d.def.written_null.iter().any(|(p, _)| p == f));
                own || at_its_setting
                    || decided
                    || named_here
                    || (Some(x.span) == inherited_size && about_vm_size(x.code))
            });
        }
        // The options the compute's type does not have, which the CLI refuses: at the
        // option (also beside a `--file`, whose YAML the command line overrides).
        diagnostics.extend(
            checks::schema::refused_options(&d.def, &syn.kind.title, &prepared.loaded.source)
                .into_iter()
                .map(|x| refused_label(x, &d.def, &prepared.loaded.source, "the option is written here")),
        );
        // The keywords the Python SDK's call does not take (`AmlCompute(vm_size=...)`).
        diagnostics.extend(
            checks::schema::refused_keywords(&d.def)
                .into_iter()
                .map(|x| refused_label(x, &d.def, &prepared.loaded.source, "the keyword is written here")),
        );
        // The values the type's schema refuses (`--tier LowPriority`): at the value.
        diagnostics.extend(checks::schema::refused_values(
            &d.def,
            syn.kind,
            &prepared.loaded.source,
        ));
        // The options the command does not have (`--sizee`), which its parser refuses.
        diagnostics.extend(
            checks::schema::unknown_options(&d.def)
                .into_iter()
                .map(|x| refused_label(x, &d.def, &prepared.loaded.source, "the option is written here")),
        );
        // The values of its options the type's schema refuses (`--max-instances abc`,
        // `--min-instances` above `--max-instances`): at the value.
        diagnostics.extend(checks::schema::refused_option_values(
            &d.def,
            syn.kind,
            &prepared.loaded.source,
        ));
        let wanted: HashSet<Span> = diagnostics.iter().map(|x| x.span).collect();
        let pointers = syn.doc.pointers_for(&wanted);
        let unnamed = unnamed_phrase(&d.def);
        for mut x in diagnostics {
            x.kind = Some(syn.kind.id.as_str());
            if x.pointer.is_none() {
                x.pointer = pointers.get(&x.span).cloned();
            }
            // The node the finding is about, when its pointer says: a label only for it.
            let about = x
                .pointer
                .as_ref()
                .and_then(|p| syn.doc.lookup(p))
                .map(|l| l.value);
            for (node, at, origin) in &syn.labels {
                if *at == x.span && about.is_none_or(|n| n == *node) {
                    x = x.with_label(*origin, "the value is set here");
                }
            }
            if let (Some(at), Some(file)) = (inherited_size, &d.def.from_file) {
                if x.span == at {
                    x = x.with_label(at, format!("the size is read from `{file}`"));
                }
            }
            // A compute under a false condition is still checked (what the file would
            // deploy): each finding says where, and why it may never apply.
            if let Some((at, note)) = d.def.false_condition {
                x = x.with_label(at, crate::facts::sources::iac::condition_label(note));
            }
            if let Some(phrase) = &unnamed {
                x.message = named_by(&x.message, &d.def.name.written, phrase);
            }
            definition_fixes(&mut x, &prepared.loaded);
            from_the_definitions_line(&mut x, &d.def, &prepared.loaded.source);
            out.push(x);
        }
    }
    out
}

/// An option the CLI refuses (a keyword the Python SDK refuses), written on another line
/// than the definition's first, labelled (`label`) as one (the finding is then reported from that line, focused on the option).
fn refused_label(x: Diagnostic, def: &ComputeDef, source: &SourceFile, label: &str) -> Diagnostic {
    if source.position(def.span.start).line == source.position(x.span.start).line {
        return x;
    }
    let span = x.span;
    x.with_label(span, label)
}

/// What a definition's findings call a compute whose name is not known where it is
/// defined, instead of quoting the name as written: a module input without a value (a
/// Terraform `var.cluster_name`, a Bicep `param clusterName string`: each call gives its
/// own), an expression amlint cannot evaluate (a Python variable read from the
/// environment, an ARM expression), or nothing at all (`az ml compute create` without
/// `--name`, audit 22 case 02). `None`: the name is known.
fn unnamed_phrase(def: &ComputeDef) -> Option<String> {
    let written = def.name.written.trim();
    if let Some(input) = &def.name_input {
        Some(format!("the compute that module input `{input}` names"))
    } else if def.name.value.is_some() {
        None
    } else if !written.is_empty() {
        Some(format!("the compute that `{written}` names"))
    } else {
        let why = def.name.why.as_deref().unwrap_or("it gives no name");
        Some(format!("the compute this definition creates ({why})"))
    }
}

/// A finding's message about a compute whose name is not known where it is defined: the
/// name as written (`` `var.cluster_name` ``, `` `compute_name` ``) becomes `phrase`, which
/// says what the name is: "the compute that module input `cluster_name` names" for a module
/// input without a value (a Terraform `var.cluster_name`, a Bicep `param clusterName
/// string`: each call of the module gives its own), "the compute that `compute_name`
/// names" for an expression amlint cannot evaluate.
fn named_by(message: &str, written: &str, phrase: &str) -> String {
    let quoted = format!("`{}`", written.trim());
    // "compute instance `X` has ..." (AML602) reads "the compute instance that `X` names".
    let instance = format!("compute instance {quoted}");
    let parts = message
        .split(instance.as_str())
        .map(|part| part.replace(&quoted, phrase));
    match phrase.strip_prefix("the compute ") {
        Some(rest) => parts
            .collect::<Vec<_>>()
            .join(&format!("the compute instance {rest}")),
        None => parts
            .collect::<Vec<_>>()
            .join(&format!("compute instance {phrase}")),
    }
}

/// Reports a finding of a compute defined outside Azure ML YAML from the definition's
/// first line (where the command, the resource or the call starts: where a reader of the
/// file, and a list of the project's computes, place the definition) to the value it is
/// about — a value written before that line (an ARM resource's members before its `type`,
/// `ComputeDef::written_before`) from the definition's first line to that line's end. The
/// value stays its focus: labelled, underlined by editors, fingerprinted by baselines,
/// and a suppression comment on its line applies. A value on the first line keeps its own
/// span, as does one outside the definition.
fn from_the_definitions_line(x: &mut Diagnostic, def: &ComputeDef, source: &SourceFile) {
    let at = x.span;
    let head = def.span.start;
    let after = head < at.start && at.end <= def.span.end;
    let before = def.written_before_holds(at);
    if !(after || before) || source.position(head).line == source.position(at.start).line {
        return;
    }
    if !x.labels.iter().any(|l| l.span == at) {
        let key = x.pointer.as_ref().map(ToString::to_string);
        // The key as the file writes it (`min_node_count`, `--min-instances`), else as the
        // definition's language spells the setting.
        let field = key
            .as_deref()
            .map(|p| p.trim_start_matches('/').replace('/', "."));
        let called = field.as_deref().filter(|f| !f.is_empty()).map(|f| {
            let written = def
                .get(f)
                .and_then(|s| s.key)
                .and_then(|k| source.text.get(k.range()));
            match crate::facts::idiom::called(def.idiom, f, written) {
                // A path the language spells as Azure ML YAML: its last name.
                same if same == f => f.rsplit('.').next().unwrap_or(f).to_string(),
                other => other.to_string(),
            }
        });
        let message = match called {
            _ if at == def.name.span => "the compute's name".to_string(),
            Some(key) => format!("`{key}` is set here"),
            None => "the value it is about".to_string(),
        };
        x.labels.insert(0, crate::diagnostic::Label { span: at, message });
    }
    x.focus = Some(at);
    x.span = if after {
        Span::new(head, at.end)
    } else {
        def.first_line(&source.text)
    };
}

/// Whether the rule `code` reports a key that is absent at the compute's name (its
/// `report.fallback`).
fn falls_back_to_the_name(code: &str) -> bool {
    crate::registry::builtin()
        .get(code)
        .and_then(|r| r.declarative.as_ref())
        .is_some_and(|d| {
            d.report
                .fallback
                .as_ref()
                .is_some_and(|f| f.items().contains(&"name"))
        })
}

/// The setting a declarative rule reports at (its first `report.at`), by Azure ML YAML path.
fn reported_field(code: &str) -> Option<&'static str> {
    crate::registry::builtin()
        .get(code)
        .and_then(|r| r.declarative.as_ref())
        .and_then(|d| d.report.at.items().first().copied())
}

/// Whether the rule `code` judges a VM size (its file is under `rules/vm/`).
fn about_vm_size(code: &str) -> bool {
    crate::registry::builtin()
        .get(code)
        .is_some_and(|r| r.source.starts_with("rules/vm/"))
}

fn sorted(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by(|a, b| {
        (a.span.start, a.span.end, a.code, &a.message).cmp(&(b.span.start, b.span.end, b.code, &b.message))
    });
    diagnostics.dedup();
    diagnostics
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// A compute not named where it is defined is said to be what names it, a compute
    /// instance too (audit 24, case 05: "compute instance the compute that `X` names").
    #[test]
    fn a_compute_not_named_is_said_to_be_what_names_it() {
        let m = "compute instance `${random_string.p.result}ci` has no idle shutdown and no stop schedule";
        assert_eq!(
            named_by(
                m,
                "${random_string.p.result}ci",
                "the compute that `${random_string.p.result}ci` names"
            ),
            "the compute instance that `${random_string.p.result}ci` names has no idle shutdown and no stop schedule"
        );
        assert_eq!(
            named_by(
                "the nodes of `var.n` get public IP addresses",
                "var.n",
                "the compute that module input `n` names"
            ),
            "the nodes of the compute that module input `n` names get public IP addresses"
        );
        assert_eq!(
            named_by(
                "compute instance `` has no idle shutdown",
                "",
                "the compute this definition creates (no name)"
            ),
            "the compute instance this definition creates (no name) has no idle shutdown"
        );
    }

    /// The script of the definition tests: a size from a variable, a tier not known
    /// statically.
    const SCRIPT: &str = "S=Standard_NC6\naz ml compute create -n gpu --type amlcompute --size $S --min-instances 2 --tier $T\n";

    /// The span of `needle` in [`SCRIPT`].
    fn at(needle: &str) -> Span {
        let i = SCRIPT.find(needle).unwrap() as u32;
        Span::new(i, i + needle.len() as u32)
    }

    /// The definition [`SCRIPT`]'s `az ml compute create` makes, as the az CLI reader
    /// reads it.
    fn script_definition() -> ComputeDef {
        use crate::facts::computes::{Scalar, Setting, SourceKind};
        let lit = |v: Scalar, needle: &str, key: &str| Setting::literal(v, at(needle), Some(at(key)));
        let mut def = ComputeDef::new(
            SourceKind::AzCli,
            "make.sh",
            Span::new(15, SCRIPT.len() as u32 - 1),
            "az ml compute create",
            lit(Scalar::Str("gpu".into()), "gpu", "-n"),
        );
        def.set(
            "type",
            lit(Scalar::Str("amlcompute".into()), "amlcompute", "--type"),
        );
        let mut size = lit(Scalar::Str("Standard_NC6".into()), "$S", "--size");
        size.written = "$S".into();
        size.in_place = false;
        size.origin = Some(at("Standard_NC6"));
        def.set("size", size);
        def.set("min_instances", lit(Scalar::Int(2), "2", "--min-instances"));
        def.set(
            "tier",
            Setting::dynamic("$T", "`T` is not set in this file", at("$T"), Some(at("--tier"))),
        );
        def
    }

    /// [`SCRIPT`] checked as the file that holds `def`.
    fn check_script(def: &ComputeDef) -> FileReport {
        let prepared = Prepared {
            path: PathBuf::from("make.sh"),
            explicit: false,
            loaded: load::parse_text("make.sh", SCRIPT.into(), Format::Text, &Limits::default()),
            classes: Vec::new(),
            definitions: vec![Defined {
                synthetic: def.document(),
                def: Arc::new(def.clone()),
            }],
            comments: Vec::new(),
            unread: None,
        };
        let base = FactBase {
            today: "2026-11-25".into(),
            ..FactBase::standalone()
        };
        check_prepared(&prepared, &base, &Limits::default())
    }

    /// A definition outside Azure ML YAML is checked as its compute document: the rules'
    /// findings land at the spans of the defining file, with the document's kind and
    /// pointer; a value from a variable gets a label on its literal.
    #[test]
    fn definitions_are_checked_as_compute_documents_at_their_spans() {
        let report = check_script(&script_definition());
        assert!(report.checked);
        assert_eq!(report.computes.definitions.len(), 1);
        let find = |code: &str| {
            report
                .diagnostics
                .iter()
                .find(|d| d.code == code)
                .unwrap_or_else(|| panic!("{code}: {:#?}", report.diagnostics))
        };
        let retired = find("AML505");
        assert_eq!(retired.span, at("$S"), "at the option's value in the command");
        assert_eq!(retired.kind, Some("amlCompute"));
        assert_eq!(
            retired.pointer.as_ref().map(|p| p.to_string()).as_deref(),
            Some("/size")
        );
        assert_eq!(
            retired.labels[0].span,
            at("Standard_NC6"),
            "the literal is labelled"
        );
        assert!(retired.fix.is_none(), "no fix rewrites a variable");
        let min = find("AML601");
        assert_eq!(min.span, at("2"));
        let fix = min.fix.as_ref().expect("the literal is replaced in place");
        assert_eq!(fix.edits[0].span, at("2"));
        assert_eq!(find("AML702").span, at("gpu"), "absent: at the name");
        assert!(
            report
                .diagnostics
                .iter()
                .all(|d| d.code != "AML101" && d.code != "AML104"),
            "no schema check"
        );
    }

    /// A public-IP setting not known statically fires nothing (absent, it would: AML702
    /// in the test above).
    #[test]
    fn a_definitions_value_not_known_statically_fires_nothing() {
        use crate::facts::computes::Setting;
        let mut dynamic = script_definition();
        dynamic.set(
            "enable_node_public_ip",
            Setting::dynamic("$T", "`T` is not set", at("$T"), None),
        );
        assert!(
            check_script(&dynamic)
                .diagnostics
                .iter()
                .all(|d| d.code != "AML702")
        );
    }

    /// Read from a compute YAML (`-f`): what the command line sets is this file's, and so
    /// are the findings about the VM size it creates the compute with (at the file's name,
    /// labelled); the YAML's other findings (its name's public IP) stay the YAML's.
    #[test]
    fn a_definition_read_from_a_compute_yaml_keeps_what_its_command_line_sets() {
        let mut from_file = script_definition();
        from_file.from_file = Some("c.yml".into());
        // As `read_compute_yaml` does: each value from the file is at the file's name.
        let named = at("gpu");
        for (path, s) in from_file.fields.iter_mut() {
            if path != "min_instances" {
                s.inherited = true;
                s.span = named;
                s.origin = None;
            }
        }
        from_file.name.inherited = true;
        from_file.name.span = named;
        let report = check_script(&from_file);
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["AML505", "AML601"], "{:#?}", report.diagnostics);
        let retired = &report.diagnostics[0];
        assert_eq!(retired.span, named);
        assert_eq!(
            retired
                .labels
                .iter()
                .map(|l| l.message.as_str())
                .collect::<Vec<_>>(),
            ["the size is read from `c.yml`"]
        );
        // A size the file does not give (`--size` on the command line) is the command's own.
        let mut sized = from_file.clone();
        let mut size = sized.get("size").unwrap().clone();
        (size.inherited, size.span) = (false, at("$S"));
        sized.set("size", size);
        let report = check_script(&sized);
        let retired: Vec<Span> = report
            .diagnostics
            .iter()
            .filter(|d| d.code == "AML505")
            .map(|d| d.span)
            .collect();
        assert_eq!(retired, [at("$S")]);
        assert!(
            report
                .diagnostics
                .iter()
                .all(|d| d.labels.iter().all(|l| !l.message.contains("c.yml")))
        );
    }

    #[test]
    fn a_panic_becomes_an_internal_error_for_its_file_alone() {
        assert_eq!(guarded("ok.yml", || 7).ok(), Some(7));
        let report = guarded("bad.yml", || -> u8 { panic!("index out of bounds") }).unwrap_err();
        assert_eq!(report.source.path, "bad.yml");
        assert!(report.checked);
        let [d] = report.diagnostics.as_slice() else {
            panic!("one finding expected: {:?}", report.diagnostics)
        };
        assert_eq!(
            (d.code, d.severity),
            ("AML000", crate::diagnostic::Severity::Error)
        );
        assert!(d.message.contains("index out of bounds"), "{}", d.message);
        let owned = guarded("bad.yml", || -> u8 {
            panic!("{}", String::from("owned message"))
        });
        assert!(
            owned.unwrap_err().diagnostics[0]
                .message
                .contains("owned message")
        );
    }
}
