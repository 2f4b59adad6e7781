//! `textDocument/didChange`: full replacements and UTF-16 ranged edits, in order; the
//! check waits [`DEBOUNCE`] for more.

use std::time::Duration;

use lsp_types::DidChangeTextDocumentParams;

use super::super::convert;
use super::super::state::State;
use super::After;

/// How long after a change the server waits for more before checking.
pub const DEBOUNCE: Duration = Duration::from_millis(5);

pub fn handle(state: &mut State, p: DidChangeTextDocumentParams) -> After {
    let d = p.text_document;
    let path = state.path_for(&d.uri);
    if state.analysis.doc(&path).is_none() {
        return After::check(DEBOUNCE, Vec::new());
    }
    for change in p.content_changes {
        let span = change.range.map(|range| {
            let text = state.analysis.doc(&path).map_or("", |doc| doc.text.as_str());
            convert::span_in_text(text, range)
        });
        state.analysis.edit(&path, span, &change.text);
    }
    state.analysis.changed(&path, d.version);
    After::check(DEBOUNCE, Vec::new())
}
