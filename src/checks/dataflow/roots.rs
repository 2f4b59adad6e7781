//! AML809 unknown-binding-root: a binding whose first names are a misspelling of the
//! roots Azure ML knows (`${{input.x}}`, `${{parent.job.x.outputs.y}}`), with the right
//! spelling suggested. Other roots are runtime expressions (`${{name}}`,
//! `${{default_datastore}}`) or another tool's templates, and are left alone.

use std::collections::HashSet;

use super::model::FlowModel;
use crate::diagnostic::{Applicability, Change, Diagnostic, Fix, NewValue, codes};
use crate::source::Span;

/// The roots a near miss is compared with.
const ROOTS: &[&str] = &["inputs", "outputs", "parent", "search_space"];
/// What may follow `parent.`.
const PARENT: &[&str] = &["inputs", "outputs", "jobs"];
/// What may follow `parent.jobs.<step>.`.
const STEP: &[&str] = &["inputs", "outputs"];

pub fn check(model: &FlowModel<'_>, out: &mut Vec<Diagnostic>) {
    // Findings with a fix, and the string scalar it rewrites: its pointer, found for all
    // of them in one walk, is what the fix declares it changes.
    let scalars = model.scalars();
    let mut fixed: Vec<(Diagnostic, Fix, crate::document::NodeId)> = Vec::new();
    for (i, b) in model.all.iter().enumerate() {
        let segments = b.segments();
        let Some(&first) = segments.first() else {
            continue;
        };
        // (index of the wrong segment, its right spelling, the spellings allowed there)
        let wrong: Option<(usize, Option<&str>, &[&str])> = if ROOTS.contains(&first) {
            if first == "parent" {
                match segments.get(1) {
                    Some(&s) if !PARENT.contains(&s) => Some((1, near(s, PARENT, false), PARENT)),
                    Some(&"jobs") => match segments.get(3) {
                        Some(&s) if !STEP.contains(&s) => Some((3, near(s, STEP, false), STEP)),
                        _ => None,
                    },
                    _ => None,
                }
            } else {
                None
            }
        } else {
            near(first, ROOTS, true).map(|r| (0, Some(r), ROOTS))
        };
        let Some((at, right, allowed)) = wrong else {
            continue;
        };
        let written = segments[at];
        let prefix: String = segments[..at].iter().map(|s| format!("{s}.")).collect();
        let message = match right {
            Some(r) => format!(
                "`${{{{{}}}}}`: `{prefix}{written}` is not a binding root Azure ML knows; did you mean `{prefix}{r}`?",
                b.expr
            ),
            None => format!(
                "`${{{{{}}}}}`: `{prefix}{written}` is not a binding root Azure ML knows; after `{prefix}` come {}",
                b.expr,
                allowed
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let d = Diagnostic::new(codes::AML809, b.span, message).with_help(
            "Azure ML resolves `${{inputs.x}}`, `${{outputs.x}}`, `${{search_space.x}}` and, in a pipeline, `${{parent.inputs.x}}`, `${{parent.outputs.x}}` and `${{parent.jobs.<step>.outputs.<name>}}`; any other spelling is passed on as text, and the job fails or runs with the literal string.",
        );
        if let (Some(r), true, Some(scalar)) = (right, b.exact, scalars[i]) {
            // The segment's place in the `${{...}}` text: after `${{`, spaces and the prefix.
            let source = model.cx.source.slice(b.span);
            if let Some(off) = source.find(&format!("{prefix}{written}")) {
                let start = b.span.start + (off + prefix.len()) as u32;
                let span = Span::new(start, start + written.len() as u32);
                let fix = Fix::replace(
                    Applicability::Safe,
                    format!("Replace `{written}` with `{r}`"),
                    span,
                    r,
                );
                fixed.push((d, fix, scalar));
                continue;
            }
        }
        out.push(d);
    }
    if fixed.is_empty() {
        return;
    }
    let doc = model.cx.doc;
    let spans: HashSet<Span> = fixed.iter().map(|(_, _, id)| doc.node(*id).span).collect();
    let pointers = doc.pointers_for(&spans);
    for (d, fix, scalar) in fixed {
        // A string an alias repeats, or a merge brings in, is not rewritten.
        let at = pointers
            .get(&doc.node(scalar).span)
            .filter(|p| doc.lookup_own(p).is_some_and(|f| f.value == scalar));
        out.push(match at {
            Some(at) => d.with_fix(fix.changing(Change::Set {
                at: at.clone(),
                to: NewValue::AnyString,
            })),
            None => d,
        });
    }
}

/// The allowed name `word` is a misspelling of (at most two edits; for a root, of a word
/// of four letters or more, so that short runtime names are not taken for one).
fn near<'a>(word: &str, allowed: &'a [&'a str], root: bool) -> Option<&'a str> {
    if root && (word.chars().count() < 4 || allowed.contains(&word)) {
        return None;
    }
    crate::suggest::closest_within(word, allowed.iter().copied(), 2)
}
