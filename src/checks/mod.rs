//! Native (Rust) checks that run on each classified document. Each check lives in its own
//! file with its metadata in `rules/<area>/<CODE>-<name>.yaml`; registering one is one
//! line in [`DOCUMENT_CHECKS`].

mod conflicting_computes;
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
use crate::diagnostic::{Findings, codes};
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

    /// A native rule's severity under the configuration's profile (`severity_by_profile`
    /// in its rule file); declarative rules get theirs from the policy engine.
    pub fn severity_of(&self, rule: crate::diagnostic::RuleId) -> crate::diagnostic::Severity {
        self.config
            .rules
            .get(rule.code)
            .map_or(rule.severity, |m| m.severity_under(self.config.profile.as_str()))
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
    (codes::AML003.code, yaml11_ambiguous::check),
    (codes::AML006.code, unknown_schema::check),
    (codes::AML007.code, preview_schema::check),
    (codes::AML008.code, schema_type_mismatch::check),
    (codes::AML101.code, schema::check),
    (codes::AML107.code, ignored_key::check),
    (codes::AML201.code, references::check),
    (codes::AML205.code, conflicting_computes::check),
    (codes::AML506.code, quota::check),
    (codes::AML801.code, dataflow::check),
];

/// Codes reported by a check of [`DOCUMENT_CHECKS`] besides the one it is registered
/// under (one validation pass yields every schema code).
pub const ALSO_REPORTED: &[(&str, &[&str])] = &[
    (codes::AML101.code, schema::CODES),
    (codes::AML201.code, references::CODES),
    (codes::AML506.code, quota::CODES),
    (codes::AML801.code, dataflow::CODES),
];

/// Runs every declarative rule (`rules/**` with `when`) on the document. Not a native
/// check: the rules are data.
pub const POLICY_CHECK: DocCheck = policy::check;

/// Codes reported while loading (`src/load.rs`, `src/document/`) rather than by a check.
pub const LOADER_CODES: &[&str] = &[
    codes::AML001.code,
    codes::AML002.code,
    codes::AML004.code,
    codes::AML005.code,
];

/// Codes reported by file-level checks and the pipeline itself (`src/pipeline.rs`):
/// internal errors, [`single_document`] (several documents in one file), and the findings
/// about suppressions and enforcement (`src/suppress.rs`: unused, expired, without a
/// reason, silencing an enforced rule).
pub const PIPELINE_CODES: &[&str] = &[
    codes::AML000.code,
    codes::AML001.code,
    crate::suppress::UNUSED,
    crate::suppress::EXPIRED,
    crate::suppress::NO_REASON,
    crate::suppress::ENFORCED,
];

/// The checks of a compute definition written outside Azure ML YAML (a script's `az ml
/// compute create`, a Terraform resource), on the compute document it becomes
/// (`facts::computes::ComputeDef::document`): the declarative rules and the definitions'
/// agreement (AML205) — the schema describes YAML files, not these.
pub fn run_definition_checks(cx: &DocContext<'_>, out: &mut Findings) {
    conflicting_computes::check(cx, out);
    POLICY_CHECK(cx, out);
}

pub fn run_document_checks(cx: &DocContext<'_>, out: &mut Findings) {
    let first = out.len();
    for (_, check) in DOCUMENT_CHECKS {
        check(cx, out);
    }
    POLICY_CHECK(cx, out);
    ignored_key::yield_to_specific(out, first);
}
