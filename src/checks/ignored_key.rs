//! AML107 ignored-key: a key the consuming SDK silently drops or does not read — an
//! output-only key of a v2 entity (`id`, `status`, `creation_context`, ...: the SDK's
//! dump-only fields) or an SDK v1 deployment/inference configuration key that applies to
//! another `computeType` or setting. The schemas say which (`x-amlint-read-only`,
//! `x-amlint-ignored`, walked by `crate::schema::forms`); this check reports them on the
//! key.

use std::collections::HashSet;

use super::DocContext;
use crate::diagnostic::{Diagnostic, Findings};
use crate::document::{Pointer, Target};
use crate::schema::forms::Unused;

pub const CODE: &str = "AML107";

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let (Some(kind), Some(annotations)) = (cx.class.kind, cx.annotations()) else {
        return;
    };
    for unused in &annotations.unused {
        let Some(key) = unused.pointer.last() else {
            continue;
        };
        // `$schema` is for editors: the SDK drops it, and that is what it is for.
        if key == "$schema" {
            continue;
        }
        let span = cx.doc.span_of(&unused.pointer, Target::Key);
        let place = place(&unused.pointer, &kind.title);
        let (message, help) = match &unused.why {
            Unused::ReadOnly { note } => (
                match note {
                    Some(note) => format!(
                        "`{key}` is ignored {place}: {}",
                        lower_first(note.trim_end_matches('.'))
                    ),
                    None => format!(
                        "`{key}` is read-only {place}: Azure ML sets it, and the CLI drops the value written here without a warning"
                    ),
                },
                format!(
                    "Remove `{key}`. Files exported with `az ml ... show` carry read-only keys; strip them before committing, since the value written here never reaches Azure ML and misleads readers."
                ),
            ),
            Unused::Ignored(why) => (
                format!("`{key}` is ignored {place}: {why}"),
                format!(
                    "Remove `{key}`, or move the setting to the configuration that reads it; as written, the SDK deploys without it and says nothing."
                ),
            ),
        };
        out.push(
            Diagnostic::new(CODE, span, message)
                .with_pointer(unused.pointer.clone())
                .with_help(help),
        );
    }
}

/// "in a managed online deployment" for a top-level key, "under `environment`" below it.
fn place(pointer: &Pointer, title: &str) -> String {
    let mut parent = pointer.clone();
    parent.pop();
    if parent.is_empty() {
        format!("in a {title}")
    } else {
        format!("under `{}`", parent.segments().collect::<Vec<_>>().join("."))
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// An AML107 finding yields to any other finding on the same key: a rule that says what
/// the ignored key fails to do (`AML301`: GPUs on ACI) says more than "ignored".
pub fn yield_to_specific(out: &mut Findings, first: usize) {
    let kept = out.kept_mut();
    let mut tail = kept.split_off(first.min(kept.len()));
    let others: HashSet<Pointer> = tail
        .iter()
        .filter(|d| d.code != CODE)
        .filter_map(|d| d.pointer.clone())
        .collect();
    if !others.is_empty() {
        tail.retain(|d| d.code != CODE || d.pointer.as_ref().is_none_or(|p| !others.contains(p)));
    }
    kept.append(&mut tail);
}
