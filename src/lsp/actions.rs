//! Code actions on findings: a rule's own fixes (its first safe one preferred; unsafe
//! ones say so), in YAML — which has comments — a suppression on the finding's line or
//! for the whole file, written as `src/suppress.rs` reads it, and "fix all": the file's
//! safe fixes applied to their fixed point by `crate::fix`, the code `amlint check --fix`
//! runs.

use std::collections::{HashMap, HashSet};

use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Url, WorkspaceEdit};

use super::convert;
use super::workspace::Checked;
use crate::diagnostic::{Applicability, Edit};
use crate::limits::Limits;
use crate::load::Format;

fn overlaps(a: &Range, b: &Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

fn edit(uri: &Url, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    }
}

/// The actions for the findings of `checked` that touch `range`. A rule's fix is offered
/// only when applying it changes the data as it declares (`crate::fix::verify_one`: what
/// `amlint check --fix` checks before writing).
pub fn code_actions(
    uri: &Url,
    checked: &Checked,
    range: &Range,
    limits: &Limits,
) -> Vec<CodeActionOrCommand> {
    let source = &checked.source;
    let mut fixes = Vec::new();
    let mut line_actions = Vec::new();
    let mut file_actions = Vec::new();
    let mut seen_line: HashSet<(&str, u32)> = HashSet::new();
    let mut seen_file: HashSet<&str> = HashSet::new();
    let yaml = checked.format() == Format::Yaml;
    for d in &checked.diagnostics {
        let lsp = convert::diagnostic(uri, source, d);
        if !overlaps(&lsp.range, range) {
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
            fixes.push(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![lsp.clone()]),
                edit: Some(edit(
                    uri,
                    fix.edits.iter().map(|e| convert::text_edit(source, e)).collect(),
                )),
                is_preferred: Some(preferred.is_some_and(|p| std::ptr::eq(p, fix))),
                ..Default::default()
            });
        }
        // AML000 is amlint's own failure, AML009 is about a suppression itself.
        if !yaml || matches!(d.code, "AML000" | crate::suppress::UNUSED) {
            continue;
        }
        let line = lsp.range.start.line;
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
                line_actions.push(suppression(
                    uri,
                    source,
                    &e,
                    format!("Suppress {} on this line", d.code),
                    &lsp,
                ));
            }
        }
        if seen_file.insert(d.code) {
            let e = crate::suppress::file_suppression_edit(source, d.code);
            if !comment_only(&e) {
                continue;
            }
            file_actions.push(suppression(
                uri,
                source,
                &e,
                format!("Suppress {} in this file", d.code),
                &lsp,
            ));
        }
    }
    fixes
        .into_iter()
        .chain(line_actions)
        .chain(file_actions)
        .map(CodeActionOrCommand::CodeAction)
        .collect()
}

fn suppression(
    uri: &Url,
    source: &crate::source::SourceFile,
    e: &Edit,
    title: String,
    diagnostic: &lsp_types::Diagnostic,
) -> CodeAction {
    CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic.clone()]),
        edit: Some(edit(uri, vec![convert::text_edit(source, e)])),
        is_preferred: Some(false),
        ..Default::default()
    }
}

/// The kind of the "fix all" action (`editor.codeActionsOnSave: {"source.fixAll": ...}`).
pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.amlint")
}

/// Whether a request for `only` these kinds (`None`: any) wants the "fix all" action.
pub fn wants_fix_all(only: Option<&[CodeActionKind]>) -> bool {
    only.is_none_or(|kinds| {
        kinds
            .iter()
            .any(|k| fix_all_kind().as_str().starts_with(k.as_str()))
    })
}

/// "Fix all": the document's text replaced by `fixed` (what [`crate::fix::fix_text`]
/// made of it with its safe fixes), when it differs.
pub fn fix_all(
    uri: &Url,
    source: &crate::source::SourceFile,
    fixed: &crate::fix::Fixed,
) -> Option<CodeActionOrCommand> {
    if fixed.text == source.text {
        return None;
    }
    let end = source.utf16_position(source.text.len() as u32);
    let range = Range {
        start: lsp_types::Position::new(0, 0),
        end: lsp_types::Position::new(end.line, end.character),
    };
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title: format!(
            "Apply {} safe fix{} (amlint)",
            fixed.applied.len(),
            if fixed.applied.len() == 1 { "" } else { "es" }
        ),
        kind: Some(fix_all_kind()),
        edit: Some(edit(
            uri,
            vec![TextEdit {
                range,
                new_text: fixed.text.clone(),
            }],
        )),
        ..Default::default()
    }))
}
