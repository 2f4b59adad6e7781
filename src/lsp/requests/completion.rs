//! `textDocument/completion`: keys, values, VM sizes, names and bindings at the cursor.

use lsp_types::{CompletionList, CompletionParams, CompletionResponse};

use super::super::convert;
use super::super::state::State;

pub fn handle(state: &mut State, p: CompletionParams) -> CompletionResponse {
    let pos = &p.text_document_position;
    let items = state
        .checked(&pos.text_document.uri)
        .map(|c| {
            let offset = convert::offset(&c.source, pos.position);
            crate::ide::completion::complete(&state.analysis, c, offset)
                .into_iter()
                .map(|item| convert::completion(&c.source, item))
                .collect()
        })
        .unwrap_or_default();
    CompletionResponse::List(CompletionList {
        is_incomplete: false,
        items,
    })
}
