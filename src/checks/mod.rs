//! Native (Rust) checks that run on each classified document. Each check lives in its own
//! file with its metadata in `rules/<area>/<CODE>-<name>.yaml`; registering one is one
//! line in [`DOCUMENT_CHECKS`].

pub mod single_document;
mod unknown_schema;
mod yaml11_ambiguous;

use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::document::Document;
use crate::kinds::Classification;
use crate::source::SourceFile;

/// What a document check sees.
pub struct DocContext<'a> {
    pub source: &'a SourceFile,
    pub doc: &'a Document,
    pub class: &'a Classification,
    /// The file's configuration: profile, params, inventory (selection and severity are
    /// applied after the checks, by `filter`).
    pub config: &'a Config,
}

pub type DocCheck = fn(&DocContext<'_>, &mut Vec<Diagnostic>);

/// Every native document check, with the code it reports.
pub const DOCUMENT_CHECKS: &[(&str, DocCheck)] = &[
    ("AML003", yaml11_ambiguous::check),
    ("AML006", unknown_schema::check),
];

/// Codes reported while loading (`src/load.rs`, `src/document/`) rather than by a check.
pub const LOADER_CODES: &[&str] = &["AML001", "AML002", "AML004", "AML005"];

/// Codes reported by file-level checks and the pipeline itself (`src/pipeline.rs`):
/// internal errors, [`single_document`] (several documents in one file), and unused
/// suppressions (`src/suppress.rs`).
pub const PIPELINE_CODES: &[&str] = &["AML000", "AML001", crate::suppress::UNUSED];

pub fn run_document_checks(cx: &DocContext<'_>, out: &mut Vec<Diagnostic>) {
    for (_, check) in DOCUMENT_CHECKS {
        check(cx, out);
    }
}
