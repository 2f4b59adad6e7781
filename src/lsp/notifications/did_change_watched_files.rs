//! `workspace/didChangeWatchedFiles`: files created, changed or removed on disk.

use std::path::PathBuf;
use std::time::Duration;

use lsp_types::DidChangeWatchedFilesParams;

use super::super::convert;
use super::super::state::State;
use super::After;

pub fn handle(state: &mut State, p: DidChangeWatchedFilesParams) -> After {
    let paths: Vec<PathBuf> = p
        .changes
        .iter()
        .filter_map(|c| convert::path_of(&c.uri))
        .collect();
    changed(state, &paths)
}

/// Files changed on disk: the analysis is told, and checks what depends on them.
pub fn changed(state: &mut State, paths: &[PathBuf]) -> After {
    let publish = state.disk_changes(paths);
    After::check(Duration::ZERO, publish)
}
