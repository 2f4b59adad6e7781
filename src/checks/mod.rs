//! Native (Rust) checks that run on each classified document. Each check lives in its own
//! file with its metadata in `rules/<area>/<CODE>-<name>.yaml`; registering one is one
//! line in [`DOCUMENT_CHECKS`].

mod policy;
pub mod references;
pub mod schema;
mod schema_type_mismatch;
pub mod single_document;
mod unknown_schema;
mod yaml11_ambiguous;

use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::document::Document;
use crate::facts::DocFacts;
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
    /// Facts of the document (None when its kind is unknown).
    pub facts: Option<&'a DocFacts<'a>>,
}

pub type DocCheck = fn(&DocContext<'_>, &mut Vec<Diagnostic>);

/// Every native document check, with the code it reports.
pub const DOCUMENT_CHECKS: &[(&str, DocCheck)] = &[
    ("AML003", yaml11_ambiguous::check),
    ("AML006", unknown_schema::check),
    ("AML008", schema_type_mismatch::check),
    ("AML101", schema::check),
    ("AML201", references::check),
];

/// Codes reported by a check of [`DOCUMENT_CHECKS`] besides the one it is registered
/// under (one validation pass yields every schema code).
pub const ALSO_REPORTED: &[(&str, &[&str])] = &[("AML101", schema::CODES), ("AML201", references::CODES)];

/// Runs every declarative rule (`rules/**` with `when`) on the document. Not a native
/// check: the rules are data.
pub const POLICY_CHECK: DocCheck = policy::check;

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
    POLICY_CHECK(cx, out);
}
