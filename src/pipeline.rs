//! The pipeline as one call: discover → load → classify → check → report data.
//! Files are processed in parallel; each file's failure stays with that file.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use crate::checks::{self, DocContext};
use crate::diagnostic::{Diagnostic, Severity};
use crate::discover::{self, Candidate};
use crate::kinds::{self, Classification};
use crate::load::{self, Format, Limits, LoadedFile};
use crate::source::{SourceFile, Span};

/// Settings for one run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub limits: Limits,
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

/// Checks files and directories.
pub fn check_paths(paths: &[PathBuf], options: &Options) -> Report {
    let candidates = discover::discover(paths);
    let files = candidates
        .par_iter()
        .map(|c| check_candidate(c, options))
        .collect();
    Report { files }
}

/// Checks text held in memory (standard input, an editor buffer) as the file `display`.
pub fn check_text(display: &str, text: String, options: &Options) -> FileReport {
    guarded(display, || {
        let loaded = load::parse_text(display, text, Format::for_path(display), &options.limits);
        check_loaded(loaded, true)
    })
}

/// Checks one discovered file.
pub fn check_candidate(candidate: &Candidate, options: &Options) -> FileReport {
    guarded(&candidate.display, || {
        let loaded = load::load_path(&candidate.path, &candidate.display, &options.limits);
        check_loaded(loaded, candidate.explicit)
    })
}

/// Runs `work`; a panic becomes an AML000 finding for this file alone.
fn guarded(display: &str, work: impl FnOnce() -> FileReport) -> FileReport {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(report) => report,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            FileReport {
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
            }
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

/// Classifies and checks a loaded file.
pub fn check_loaded(loaded: LoadedFile, explicit: bool) -> FileReport {
    let path = loaded.source.path.clone();
    let classes: Vec<Classification> = loaded
        .documents
        .iter()
        .map(|d| kinds::classify(d, &path))
        .collect();
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
        let cx = DocContext {
            source: &loaded.source,
            doc,
            class,
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
