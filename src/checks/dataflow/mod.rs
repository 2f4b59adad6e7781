//! Data flow (AML8xx): every `${{...}}` binding of a job or component and every wiring of a
//! pipeline's steps, checked against what the document (and, for a step's component file,
//! the project index) declares. The model ([`FlowModel`]) is built once per document from the
//! tree already parsed; a component the project does not hold (`azureml:` registry or
//! workspace assets) has an unknown interface, and no finding depends on it.
//!
//! One file per rule family: `command.rs` (placeholders of a command: AML801, AML807),
//! `pipeline.rs` (parent and step bindings, cycles: AML802–AML804, AML808 in sweep steps),
//! `wiring.rs` (a step against its component: AML805, AML806, AML810, AML811), `sweep.rs`
//! (AML808, AML812), `roots.rs` (AML809); `scan.rs` finds the bindings and their spans,
//! `model.rs` builds the model, and the leaf `common.rs` holds the wording the rule files
//! share.

mod command;
mod common;
mod model;
mod pipeline;
mod roots;
pub mod scan;
mod sweep;
mod wiring;

use super::context::DocContext;
use crate::diagnostic::{Diagnostic, Findings, codes};
pub use model::FlowModel;

/// Every code this check reports.
pub const CODES: &[&str] = &[
    codes::AML801.code,
    codes::AML802.code,
    codes::AML803.code,
    codes::AML804.code,
    codes::AML805.code,
    codes::AML806.code,
    codes::AML807.code,
    codes::AML808.code,
    codes::AML809.code,
    codes::AML810.code,
    codes::AML811.code,
    codes::AML812.code,
];

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let Some(model) = FlowModel::build(cx) else {
        return;
    };
    let mut found: Vec<Diagnostic> = Vec::new();
    roots::check(&model, &mut found);
    command::check(&model, &mut found);
    sweep::check(&model, &mut found);
    pipeline::check(&model, &mut found);
    wiring::check(&model, &mut found);
    for d in found {
        out.push(d);
    }
}
