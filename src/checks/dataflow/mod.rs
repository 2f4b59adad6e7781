//! Data flow (AML8xx): every `${{...}}` binding of a job or component and every wiring of a
//! pipeline's steps, checked against what the document (and, for a step's component file,
//! the project index) declares. The model ([`FlowModel`]) is built once per document from the
//! tree already parsed; a component the project does not hold (`azureml:` registry or
//! workspace assets) has an unknown interface, and no finding depends on it.
//!
//! One file per rule family: `command.rs` (placeholders of a command: AML801, AML807),
//! `pipeline.rs` (parent and step bindings, cycles: AML802–AML804, AML808 in sweep steps),
//! `wiring.rs` (a step against its component: AML805, AML806, AML810, AML811), `sweep.rs`
//! (AML808, AML812), `roots.rs` (AML809); `scan.rs` finds the bindings and their spans.

mod command;
mod model;
mod pipeline;
mod roots;
pub mod scan;
mod sweep;
mod wiring;

use super::DocContext;
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::document::{Document, NodeId, Value};
pub use model::FlowModel;
use scan::Binding;

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

/// The string scalars under `node` (aliases not followed: their text is where the anchor
/// is), in document order; iterative, so the input's nesting cannot exhaust the stack.
pub fn strings_under(doc: &Document, node: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(id) = stack.pop() {
        match &doc.node(id).value {
            Value::Str(_) => out.push(id),
            Value::Seq(items) => stack.extend(items.iter().rev()),
            Value::Map(entries) => {
                stack.extend(entries.iter().filter(|e| !e.merged).rev().map(|e| e.value));
            }
            _ => {}
        }
    }
    out
}

/// The bindings of one string scalar, located in the file.
pub fn bindings_of(cx: &DocContext<'_>, id: NodeId) -> Vec<Binding> {
    let node = cx.doc.node(id);
    match &node.value {
        Value::Str(s) if s.contains("${{") => scan::locate(s, cx.source.slice(node.span), node.span.start),
        _ => Vec::new(),
    }
}

/// ", did you mean `x`?" for the closest of `candidates`, or nothing.
fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let all: Vec<&str> = candidates.into_iter().collect();
    crate::suggest::closest(word, all.iter().copied())
}

/// "`a`, `b` and `c`" (at most eight, then "and N more"); "none" when empty.
fn listing<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.is_empty() {
        return "none".to_string();
    }
    let shown: Vec<String> = names.iter().take(8).map(|n| format!("`{n}`")).collect();
    let mut text = shown.join(", ");
    if names.len() > 8 {
        text.push_str(&format!(" and {} more", names.len() - 8));
    }
    text
}
