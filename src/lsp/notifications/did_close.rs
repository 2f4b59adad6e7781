//! `textDocument/didClose`: a workspace file goes back to its state on disk; anything
//! else has its diagnostics cleared.

use std::time::Duration;

use lsp_types::DidCloseTextDocumentParams;

use super::super::state::State;
use super::After;

pub fn handle(state: &mut State, p: DidCloseTextDocumentParams) -> After {
    let publish = state.close(&p.text_document.uri);
    After::check(Duration::ZERO, publish)
}
