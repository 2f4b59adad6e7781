//! Native (Rust) checks that run on each classified document. Each check lives in its own
//! file with its metadata in `rules/<area>/<CODE>-<name>.yaml`; registering one is one
//! line in [`DOCUMENT_CHECKS`].

mod conflicting_computes;
mod context;
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

use crate::diagnostic::{Findings, codes};
pub use context::DocContext;

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
