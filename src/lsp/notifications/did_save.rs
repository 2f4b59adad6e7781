//! `textDocument/didSave`: the document is checked again, and the file on disk changed
//! (a configuration may have).

use lsp_types::DidSaveTextDocumentParams;

use super::super::convert;
use super::super::state::State;
use super::After;

pub fn handle(state: &mut State, p: DidSaveTextDocumentParams) -> After {
    let path = state.path_for(&p.text_document.uri);
    state.analysis.touch(&path);
    match convert::path_of(&p.text_document.uri) {
        Some(path) => super::did_change_watched_files::changed(state, &[path]),
        None => After::default(),
    }
}
