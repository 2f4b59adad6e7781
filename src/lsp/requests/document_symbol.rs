//! `textDocument/documentSymbol`: top-level keys, pipeline steps, inputs and outputs.

use lsp_types::{DocumentSymbolParams, DocumentSymbolResponse};

use super::super::convert;
use super::super::state::State;

pub fn handle(state: &mut State, p: DocumentSymbolParams) -> DocumentSymbolResponse {
    let symbols = state
        .checked(&p.text_document.uri)
        .filter(|c| crate::ide::cursor::is_azure_ml(c))
        .map(|c| {
            crate::ide::symbols::document_symbols(c)
                .into_iter()
                .map(|s| convert::symbol(&c.source, s))
                .collect()
        })
        .unwrap_or_default();
    DocumentSymbolResponse::Nested(symbols)
}
