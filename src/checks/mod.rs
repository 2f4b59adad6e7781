//! Native (Rust) checks that run on each classified document. Each check lives in its own
//! file with its metadata in `rules/<area>/<CODE>-<name>.yaml`; registering one is one
//! line in [`DOCUMENT_CHECKS`].

pub mod dataflow;
mod ignored_key;
mod policy;
mod preview_schema;
mod quota;
pub mod references;
pub mod schema;
mod schema_type_mismatch;
mod set_fix;
pub mod single_document;
mod unknown_schema;
mod yaml11_ambiguous;

use std::cell::OnceCell;

use crate::config::Config;
use crate::diagnostic::Findings;
use crate::document::Document;
use crate::facts::DocFacts;
use crate::kinds::Classification;
use crate::schema::forms::Annotations;
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
    /// The run's project boundary: local paths the document names are looked at inside
    /// it only (`docs/security.md`).
    pub boundary: &'a crate::fsio::Boundary,
    /// Built on first use and shared by the checks: the JSON view and what the kind's
    /// schema annotations say about it.
    json: OnceCell<Option<serde_json::Value>>,
    annotations: OnceCell<Option<Annotations>>,
}

impl<'a> DocContext<'a> {
    pub fn new(
        source: &'a SourceFile,
        doc: &'a Document,
        class: &'a Classification,
        config: &'a Config,
        facts: Option<&'a DocFacts<'a>>,
        boundary: &'a crate::fsio::Boundary,
    ) -> Self {
        Self {
            boundary,
            source,
            doc,
            class,
            config,
            facts,
            json: OnceCell::new(),
            annotations: OnceCell::new(),
        }
    }

    /// The JSON view schema checks see: None when the document has no kind or cannot be
    /// validated (a partial tree, an alias overflow: see [`schema::checkable`]).
    pub fn json(&self) -> Option<&serde_json::Value> {
        self.json
            .get_or_init(|| {
                (self.class.kind.is_some() && schema::checkable(self.doc)).then(|| self.doc.to_json())
            })
            .as_ref()
    }

    /// The reference fields and unused keys of the document, from its kind's schema
    /// (`crate::schema::forms`); None when [`Self::json`] is None or the kind has no schema.
    pub fn annotations(&self) -> Option<&Annotations> {
        self.annotations
            .get_or_init(|| {
                let kind = self.class.kind?;
                let store = crate::schema::store();
                if !store.has_kind(&kind.id) {
                    return None;
                }
                Some(crate::schema::forms::annotate(store, &kind.id, self.json()?))
            })
            .as_ref()
    }
}

pub type DocCheck = fn(&DocContext<'_>, &mut Findings);

/// Every native document check, with the code it reports.
pub const DOCUMENT_CHECKS: &[(&str, DocCheck)] = &[
    ("AML003", yaml11_ambiguous::check),
    ("AML006", unknown_schema::check),
    ("AML007", preview_schema::check),
    ("AML008", schema_type_mismatch::check),
    ("AML101", schema::check),
    ("AML107", ignored_key::check),
    ("AML201", references::check),
    ("AML506", quota::check),
    ("AML801", dataflow::check),
];

/// Codes reported by a check of [`DOCUMENT_CHECKS`] besides the one it is registered
/// under (one validation pass yields every schema code).
pub const ALSO_REPORTED: &[(&str, &[&str])] = &[
    ("AML101", schema::CODES),
    ("AML201", references::CODES),
    ("AML506", quota::CODES),
    ("AML801", dataflow::CODES),
];

/// Runs every declarative rule (`rules/**` with `when`) on the document. Not a native
/// check: the rules are data.
pub const POLICY_CHECK: DocCheck = policy::check;

/// Codes reported while loading (`src/load.rs`, `src/document/`) rather than by a check.
pub const LOADER_CODES: &[&str] = &["AML001", "AML002", "AML004", "AML005"];

/// Codes reported by file-level checks and the pipeline itself (`src/pipeline.rs`):
/// internal errors, [`single_document`] (several documents in one file), and the findings
/// about suppressions and enforcement (`src/suppress.rs`: unused, expired, without a
/// reason, silencing an enforced rule).
pub const PIPELINE_CODES: &[&str] = &[
    "AML000",
    "AML001",
    crate::suppress::UNUSED,
    crate::suppress::EXPIRED,
    crate::suppress::NO_REASON,
    crate::suppress::ENFORCED,
];

pub fn run_document_checks(cx: &DocContext<'_>, out: &mut Findings) {
    let first = out.len();
    for (_, check) in DOCUMENT_CHECKS {
        check(cx, out);
    }
    POLICY_CHECK(cx, out);
    ignored_key::yield_to_specific(out, first);
}
