//! `textDocument/codeAction`: fixes and suppressions of the findings in the range, and
//! "fix all" (the rounds of `amlint check --fix`) when asked for or when a safe fix
//! exists.

use lsp_types::{CodeActionKind, CodeActionOrCommand, CodeActionParams};

use super::super::convert;
use super::super::state::State;
use crate::ide::actions;

/// Whether a request for `only` these kinds (`None`: any) wants the "fix all" action.
pub fn wants_fix_all(only: Option<&[CodeActionKind]>) -> bool {
    only.is_none_or(|kinds| {
        kinds
            .iter()
            .any(|k| convert::fix_all_kind().as_str().starts_with(k.as_str()))
    })
}

pub fn handle(state: &mut State, p: CodeActionParams) -> Vec<CodeActionOrCommand> {
    let uri = &p.text_document.uri;
    let path = state.path_for(uri);
    let Some(checked) = state.analysis.checked(&path) else {
        return Vec::new();
    };
    let source = checked.source.clone();
    let span = convert::span(&source, p.range);
    let limits = state.analysis.limits();
    let mut out: Vec<CodeActionOrCommand> = actions::code_actions(checked, span, limits)
        .into_iter()
        .map(|a| convert::action(uri, &source, a))
        .collect();
    let asked = p.context.only.is_some();
    if wants_fix_all(p.context.only.as_deref()) && (asked || actions::has_safe_fix(checked)) {
        if let Some(a) = actions::fix_all(&mut state.analysis, &path) {
            out.push(convert::action(uri, &source, a));
        }
    }
    out
}
