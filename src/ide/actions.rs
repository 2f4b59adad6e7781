//! Code actions on findings: a rule's own fixes (its first safe one preferred; unsafe
//! ones say so), in YAML — which has comments — a suppression on the finding's line or
//! for the whole file, written as `src/suppress.rs` reads it, and "fix all": the file's
//! safe fixes applied to their fixed point by `crate::fix`, the code `amlint check --fix`
//! runs.

use std::collections::HashSet;
use std::path::Path;

use super::analysis::{Analysis, Checked};
use crate::diagnostic::{Applicability, Diagnostic, Edit};
use crate::limits::Limits;
use crate::load::Format;
use crate::source::Span;

/// What an action is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// A fix or a suppression of one finding.
    QuickFix,
    /// Every safe fix of the file (`source.fixAll`).
    FixAll,
}

/// An edit of the file the action was asked for.
#[derive(Debug)]
pub struct Action {
    pub title: String,
    pub kind: ActionKind,
    /// The finding it fixes or suppresses.
    pub diagnostic: Option<Diagnostic>,
    pub edits: Vec<Edit>,
    /// Whether an editor may apply it without asking (the finding's preferred fix).
    pub preferred: Option<bool>,
}

/// The actions for the findings of `checked` that touch `span` (both ends included). A
/// rule's fix is offered only when applying it changes the data as it declares
/// (`crate::fix::verify_one`: what `amlint check --fix` checks before writing).
pub fn code_actions(checked: &Checked, span: Span, limits: &Limits) -> Vec<Action> {
    let source = &checked.source;
    let mut fixes = Vec::new();
    let mut line_actions = Vec::new();
    let mut file_actions = Vec::new();
    let mut seen_line: HashSet<(&str, u32)> = HashSet::new();
    let mut seen_file: HashSet<&str> = HashSet::new();
    let yaml = checked.format() == Format::Yaml;
    for d in &checked.diagnostics {
        if !(d.span.start <= span.end && span.start <= d.span.end.max(d.span.start)) {
            continue;
        }
        let preferred = d.fix_for(false);
        for fix in d.fixes() {
            if !crate::fix::applicable(&source.text, fix)
                || crate::fix::verify_one(&checked.prepared.loaded, d, fix, limits).is_err()
            {
                continue;
            }
            let title = match fix.applicability {
                Applicability::Safe => fix.title.clone(),
                Applicability::Unsafe => format!("{} (unsafe: changes behaviour)", fix.title),
            };
            fixes.push(Action {
                title,
                kind: ActionKind::QuickFix,
                diagnostic: Some(d.clone()),
                edits: fix.edits.clone(),
                preferred: Some(preferred.is_some_and(|p| std::ptr::eq(p, fix))),
            });
        }
        // AML000 is amlint's own failure, AML009 is about a suppression itself.
        if !yaml || matches!(d.code, "AML000" | crate::suppress::UNUSED) {
            continue;
        }
        let line = source.position(d.span.start).line;
        // A suppression comment changes no data: offered only when the text with it
        // reads as the same data.
        let comment_only = |e: &Edit| {
            let fix = crate::diagnostic::Fix::new(Applicability::Safe, "suppress", vec![e.clone()]);
            crate::fix::verify_one(&checked.prepared.loaded, d, &fix, limits).is_ok()
        };
        if seen_line.insert((d.code, line)) {
            let documents = &checked.prepared.loaded.documents;
            let edit = crate::suppress::line_suppression_edit(source, documents, d.span.start, d.code);
            if let Some(e) = edit.filter(|e| comment_only(e)) {
                line_actions.push(suppression(e, format!("Suppress {} on this line", d.code), d));
            }
        }
        if seen_file.insert(d.code) {
            let e = crate::suppress::file_suppression_edit(source, d.code);
            if comment_only(&e) {
                file_actions.push(suppression(e, format!("Suppress {} in this file", d.code), d));
            }
        }
    }
    fixes
        .into_iter()
        .chain(line_actions)
        .chain(file_actions)
        .collect()
}

fn suppression(e: Edit, title: String, d: &Diagnostic) -> Action {
    Action {
        title,
        kind: ActionKind::QuickFix,
        diagnostic: Some(d.clone()),
        edits: vec![e],
        preferred: Some(false),
    }
}

/// Whether a finding of the file has a safe fix (then "fix all" is offered unasked).
pub fn has_safe_fix(checked: &Checked) -> bool {
    checked.diagnostics.iter().any(|d| d.fix_for(false).is_some())
}

/// "Fix all": the open document's text replaced by what its safe fixes make of it, in
/// the rounds of `amlint check --fix`, each checked again as the document is; `None`
/// when nothing changes.
pub fn fix_all(analysis: &mut Analysis, path: &Path) -> Option<Action> {
    let checked = analysis.checked(path)?;
    let (source, diagnostics) = (checked.source.clone(), checked.diagnostics.clone());
    let limits = analysis.limits().clone();
    let fixed = crate::fix::fix_text(
        &source.path,
        source.text.clone(),
        diagnostics,
        false,
        &limits,
        &mut |text| analysis.check_text_as(path, text),
    );
    if fixed.text == source.text {
        return None;
    }
    let n = fixed.applied.len();
    Some(Action {
        title: format!("Apply {n} safe fix{} (amlint)", if n == 1 { "" } else { "es" }),
        kind: ActionKind::FixAll,
        diagnostic: None,
        edits: vec![Edit {
            span: Span::new(0, source.text.len() as u32),
            replacement: fixed.text,
        }],
        preferred: None,
    })
}
