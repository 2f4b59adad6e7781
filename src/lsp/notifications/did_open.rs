//! `textDocument/didOpen`: the buffer's text wins over the disk; checked at once.

use std::time::Duration;

use lsp_types::DidOpenTextDocumentParams;

use super::super::state::State;
use super::After;

pub fn handle(state: &mut State, p: DidOpenTextDocumentParams) -> After {
    let d = p.text_document;
    state.open(d.uri, d.version, d.text);
    After::check(Duration::ZERO, Vec::new())
}
