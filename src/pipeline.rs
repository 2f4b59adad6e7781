//! The pipeline as one call: discover → load → classify → check → report data.
//! Files are processed in parallel; each file's failure stays with that file.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use crate::checks::{self, DocContext};
use crate::diagnostic::{Diagnostic, Severity};
use crate::discover;
use crate::facts::{DocFacts, Inventory, Project, ProjectIndex};
use crate::kinds::{self, Classification};
use crate::load::{self, Format, Limits, LoadedFile};
use crate::source::{SourceFile, Span};

/// Settings for one run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub limits: Limits,
    pub project: ProjectSettings,
}

/// What the configuration says about the project (profile, rule parameters, inventory).
#[derive(Clone, Debug, Default)]
pub struct ProjectSettings {
    /// `dev` when unset.
    pub profile: Option<String>,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub inventory: Inventory,
    /// The project root (relative paths of the inventory start there); the current
    /// directory when unset.
    pub root: Option<PathBuf>,
    /// The date retirement dates are compared with (`YYYY-MM-DD`); today when unset.
    pub today: Option<String>,
    /// The rules to run: built-in plus user rules (`rules-dirs`); built-in when unset.
    pub rules: Option<std::sync::Arc<crate::registry::Registry>>,
}

impl ProjectSettings {
    /// The project for a run: the index of its files plus the settings.
    pub fn project(&self, index: ProjectIndex) -> Project {
        let mut index = index;
        index.add_inventory(&self.inventory);
        let defaults = Project::default();
        Project {
            index,
            inventory: self.inventory.clone(),
            params: self.params.clone(),
            profile: self.profile.clone().unwrap_or(defaults.profile.clone()),
            root: self.root.clone().unwrap_or(defaults.root.clone()),
            today: self.today.clone().unwrap_or(defaults.today.clone()),
            rules: self.rules.clone().unwrap_or_else(crate::registry::builtin_arc),
            ..defaults
        }
    }
}

/// A file loaded and classified, waiting for the project index before its checks. The
/// language server keeps one per open or indexed file.
#[derive(Debug)]
pub struct Prepared {
    /// The file on disk (relative paths inside it start from its directory).
    pub path: PathBuf,
    /// Named explicitly (reported even when it is not an Azure ML file that failed).
    pub explicit: bool,
    pub loaded: LoadedFile,
    pub classes: Vec<Classification>,
}

/// Classifies a loaded file.
pub fn prepare(path: PathBuf, loaded: LoadedFile, explicit: bool) -> Prepared {
    let display = loaded.source.path.clone();
    let classes = loaded
        .documents
        .iter()
        .map(|d| kinds::classify(d, &display))
        .collect();
    Prepared {
        path,
        explicit,
        loaded,
        classes,
    }
}

/// Indexes what the prepared files define (computes, endpoints, models).
pub fn index_of<'a>(prepared: impl Iterator<Item = &'a Prepared>) -> ProjectIndex {
    let mut index = ProjectIndex::default();
    for p in prepared {
        for (doc, class) in p.loaded.documents.iter().zip(&p.classes) {
            if let Some(kind) = class.kind {
                if !doc.partial {
                    index.add(&p.path, doc, kind);
                }
            }
        }
    }
    index
}

/// The outcome for one file.
#[derive(Debug)]
pub struct FileReport {
    pub source: Arc<SourceFile>,
    /// `false` when the file is not an Azure ML configuration (skipped silently).
    pub checked: bool,
    /// The kind of each document of the file (`None` where unknown).
    pub kinds: Vec<Option<&'static str>>,
    /// Sorted by position, then code.
    pub diagnostics: Vec<Diagnostic>,
}

/// The outcome of a run, files sorted by path.
#[derive(Debug, Default)]
pub struct Report {
    pub files: Vec<FileReport>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub files_checked: usize,
    pub files_skipped: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Report {
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for f in &self.files {
            if f.checked {
                s.files_checked += 1;
            } else {
                s.files_skipped += 1;
            }
            for d in &f.diagnostics {
                match d.severity {
                    Severity::Error => s.errors += 1,
                    Severity::Warning => s.warnings += 1,
                    Severity::Info => s.infos += 1,
                }
            }
        }
        s
    }

    /// Every diagnostic with its file, in report order.
    pub fn diagnostics(&self) -> impl Iterator<Item = (&FileReport, &Diagnostic)> {
        self.files
            .iter()
            .flat_map(|f| f.diagnostics.iter().map(move |d| (f, d)))
    }
}

/// Checks files and directories: load and classify every file (in parallel), index what
/// they define, then check each against that index (in parallel).
pub fn check_paths(paths: &[PathBuf], options: &Options) -> Report {
    let candidates = discover::discover(paths);
    let prepared: Vec<Result<Prepared, FileReport>> = candidates
        .par_iter()
        .map(|c| {
            guarded(&c.display, || {
                let loaded = load::load_path(&c.path, &c.display, &options.limits);
                prepare(c.path.clone(), loaded, c.explicit)
            })
        })
        .collect();
    let project = options.project.project(index_of(prepared.iter().flatten()));
    let files = prepared
        .into_par_iter()
        .map(|p| match p {
            Ok(p) => {
                let display = p.loaded.source.path.clone();
                guarded(&display, || check_prepared(p, &project)).unwrap_or_else(|r| r)
            }
            Err(report) => report,
        })
        .collect();
    Report { files }
}

/// Checks text held in memory (standard input, an editor buffer) as the file `display`.
pub fn check_text(display: &str, text: String, options: &Options) -> FileReport {
    guarded(display, || {
        let loaded = load::parse_text(display, text, Format::for_path(display), &options.limits);
        let prepared = prepare(PathBuf::from(display), loaded, true);
        let project = options.project.project(index_of(std::iter::once(&prepared)));
        check_prepared(prepared, &project)
    })
    .unwrap_or_else(|r| r)
}

/// Runs `work`; a panic becomes an AML000 finding for this file alone.
fn guarded<T>(display: &str, work: impl FnOnce() -> T) -> Result<T, FileReport> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(value) => Ok(value),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(FileReport {
                source: SourceFile::new(display, String::new()),
                checked: true,
                kinds: Vec::new(),
                diagnostics: vec![
                    Diagnostic::new(
                        "AML000",
                        Span::at(0),
                        format!("amlint failed while checking this file ({what}); the file was not checked"),
                    )
                    .with_help(
                        "This is a bug in amlint. Please report it with the file, or a reduced copy of it.",
                    ),
                ],
            })
        }
    }
}

/// The loader's own findings that matter even when the file cannot be classified.
fn is_load_failure(d: &Diagnostic) -> bool {
    matches!(d.code, "AML001" | "AML004" | "AML005")
}

/// Whether a file that could not be classified should still be reported: when it was
/// named explicitly, when it is a YAML file that could not be read at all, or when its
/// name says what kind it is (`deploymentconfig.json`).
fn report_unclassified(loaded: &LoadedFile, explicit: bool) -> bool {
    if explicit {
        return true;
    }
    let path = &loaded.source.path;
    let by_name = kinds::classify(&Default::default(), path).kind.is_some();
    by_name || (loaded.unreadable && loaded.format == Format::Yaml)
}

/// Runs the checks of a classified file against a project.
pub fn check_prepared(prepared: Prepared, project: &Project) -> FileReport {
    let Prepared {
        path,
        explicit,
        loaded,
        classes,
    } = prepared;
    let kinds: Vec<Option<&'static str>> = classes.iter().map(Classification::kind_id).collect();
    let azure = classes.iter().any(Classification::is_checked);

    if !azure {
        let report = report_unclassified(&loaded, explicit);
        let failures: Vec<Diagnostic> = loaded.diagnostics.into_iter().filter(is_load_failure).collect();
        let report = report && !failures.is_empty();
        return FileReport {
            source: loaded.source,
            checked: report,
            kinds,
            diagnostics: if report { sorted(failures) } else { Vec::new() },
        };
    }

    let mut diagnostics = loaded.diagnostics;
    checks::single_document::check(&loaded.source, &loaded.documents, &mut diagnostics);
    for (doc, class) in loaded.documents.iter().zip(&classes) {
        if !class.is_checked() {
            continue;
        }
        let facts = class.kind.map(|kind| DocFacts::new(doc, kind, &path, project));
        let cx = DocContext {
            source: &loaded.source,
            doc,
            class,
            facts: facts.as_ref(),
        };
        checks::run_document_checks(&cx, &mut diagnostics);
    }

    // Attach each finding to its document: kind and, where missing, pointer.
    for (doc, class) in loaded.documents.iter().zip(&classes) {
        let inside = |d: &Diagnostic| {
            d.span.start >= doc.span.start && d.span.start <= doc.span.end.max(doc.span.start)
        };
        let wanted: HashSet<Span> = diagnostics
            .iter()
            .filter(|d| d.pointer.is_none() && inside(d))
            .map(|d| d.span)
            .collect();
        let pointers = if wanted.is_empty() {
            Default::default()
        } else {
            doc.pointers_for(&wanted)
        };
        for d in diagnostics.iter_mut().filter(|d| inside(d)) {
            if d.kind.is_none() {
                d.kind = class.kind_id();
            }
            if d.pointer.is_none() {
                d.pointer = pointers.get(&d.span).cloned();
            }
        }
    }

    FileReport {
        source: loaded.source,
        checked: true,
        kinds,
        diagnostics: sorted(diagnostics),
    }
}

fn sorted(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by(|a, b| {
        (a.span.start, a.span.end, a.code, &a.message).cmp(&(b.span.start, b.span.end, b.code, &b.message))
    });
    diagnostics.dedup();
    diagnostics
}
