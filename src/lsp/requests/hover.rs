//! `textDocument/hover`: rule help on a finding, schema help on a key, a VM size's facts.

use lsp_types::{Hover, HoverParams};

use super::super::convert;
use super::super::state::State;

pub fn handle(state: &mut State, p: HoverParams) -> Option<Hover> {
    let pos = &p.text_document_position_params;
    let path = state.path_for(&pos.text_document.uri);
    let source = state.analysis.checked(&path)?.source.clone();
    let offset = convert::offset(&source, pos.position);
    let hover = crate::ide::hover::hover(&mut state.analysis, &path, offset)?;
    Some(convert::hover(&source, hover))
}
