//! `textDocument/references`: every place of the workspace naming what is under the
//! cursor.

use lsp_types::{Location, ReferenceParams};

use super::super::convert;
use super::super::state::State;

pub fn handle(state: &mut State, p: ReferenceParams) -> Vec<Location> {
    let pos = &p.text_document_position;
    state
        .checked(&pos.text_document.uri)
        .filter(|c| crate::ide::cursor::is_azure_ml(c))
        .map(|c| {
            let offset = convert::offset(&c.source, pos.position);
            crate::ide::navigate::references(&state.analysis, c, offset, p.context.include_declaration)
        })
        .unwrap_or_default()
        .iter()
        .filter_map(|place| convert::location(place, &|p| state.uri_for(p)))
        .collect()
}
