//! `textDocument/foldingRange`: mappings, sequences and block scalars spanning lines.

use lsp_types::{FoldingRange, FoldingRangeParams};

use super::super::convert;
use super::super::state::State;

pub fn handle(state: &mut State, p: FoldingRangeParams) -> Vec<FoldingRange> {
    state
        .checked(&p.text_document.uri)
        .filter(|c| crate::ide::cursor::is_azure_ml(c))
        .map(|c| {
            crate::ide::symbols::folding_ranges(c)
                .into_iter()
                .map(convert::fold)
                .collect()
        })
        .unwrap_or_default()
}
