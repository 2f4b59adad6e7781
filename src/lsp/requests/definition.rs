//! `textDocument/definition`: what a reference, a binding or a local path names.

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location};

use super::super::convert;
use super::super::state::State;

pub fn handle(state: &mut State, p: GotoDefinitionParams) -> GotoDefinitionResponse {
    let pos = &p.text_document_position_params;
    let locations: Vec<Location> = state
        .checked(&pos.text_document.uri)
        .filter(|c| crate::ide::cursor::is_azure_ml(c))
        .map(|c| {
            let offset = convert::offset(&c.source, pos.position);
            crate::ide::navigate::definition(&state.analysis, c, offset)
        })
        .unwrap_or_default()
        .iter()
        .filter_map(|place| convert::location(place, &|p| state.uri_for(p)))
        .collect();
    GotoDefinitionResponse::Array(locations)
}
