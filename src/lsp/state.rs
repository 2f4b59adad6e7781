//! What the server holds beside the analysis: which URI each open document came by, and
//! what the client shows — the diagnostics last published for the workspace's files
//! that are not open and for configuration files — so that only what changed is
//! published, and pulls are answered with what was pushed.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use lsp_types::{Diagnostic, PublishDiagnosticsParams, Url};

use super::convert;
use crate::ide::analysis::Closed;
use crate::ide::{Analysis, Checked, FileDiagnostics};

pub struct State {
    pub analysis: Analysis,
    /// The URI of each open document, by the path the analysis knows it as.
    uris: HashMap<PathBuf, Url>,
    /// What the client shows for the workspace's files that are not open: the last
    /// diagnostics published (`None`: unknown, a buffer was closed — publish whatever
    /// the next check finds). No entry: nothing.
    published_disk: HashMap<PathBuf, Option<Vec<Diagnostic>>>,
    /// The configuration errors last published, by configuration file.
    published_config: BTreeMap<Url, Vec<Diagnostic>>,
}

impl State {
    pub fn new(analysis: Analysis) -> Self {
        Self {
            analysis,
            uris: HashMap::new(),
            published_disk: HashMap::new(),
            published_config: BTreeMap::new(),
        }
    }

    /// The path the analysis knows `uri` as (an unsaved buffer: its name in the first
    /// folder).
    pub fn path_for(&self, uri: &Url) -> PathBuf {
        convert::path_of(uri).unwrap_or_else(|| self.analysis.unsaved_path(&convert::name_of(uri)))
    }

    /// The URI of a path: an open document's own, else its `file:` URI.
    pub fn uri_for(&self, path: &Path) -> Option<Url> {
        self.uris.get(path).cloned().or_else(|| convert::uri_of(path))
    }

    /// The current check of an open document.
    pub fn checked(&self, uri: &Url) -> Option<&Checked> {
        self.analysis.checked(&self.path_for(uri))
    }

    pub fn open(&mut self, uri: Url, version: i32, text: String) {
        let path = self.path_for(&uri);
        self.uris.insert(path.clone(), uri);
        self.analysis.open(path, version, text);
    }

    /// Closes a document; returns what to publish.
    pub fn close(&mut self, uri: &Url) -> Vec<PublishDiagnosticsParams> {
        let path = self.path_for(uri);
        let closed = self.analysis.close(&path);
        let out = match closed {
            Closed::BackToDisk(path) => {
                // The client shows the buffer's last diagnostics: the file on disk's are
                // published whatever they are.
                self.published_disk.insert(path, None);
                Vec::new()
            }
            Closed::Gone(_) => vec![PublishDiagnosticsParams::new(uri.clone(), Vec::new(), None)],
            Closed::NotOpen => Vec::new(),
        };
        self.uris.remove(&path);
        out
    }

    /// What to publish for a check's result: an open document's always (at its
    /// version); a file on disk's when it differs from what the client shows.
    pub fn publish(&mut self, found: FileDiagnostics) -> Option<PublishDiagnosticsParams> {
        let uri = self.uri_for(&found.path)?;
        let diagnostics = convert::diagnostics(&uri, &found);
        if found.version.is_some() {
            return Some(PublishDiagnosticsParams::new(uri, diagnostics, found.version));
        }
        let shown = match self.published_disk.get(&found.path) {
            Some(Some(shown)) => Some(shown),
            Some(None) => None,
            None => Some(&Vec::new()),
        };
        if shown == Some(&diagnostics) {
            return None;
        }
        if diagnostics.is_empty() {
            self.published_disk.remove(&found.path);
        } else {
            self.published_disk.insert(found.path, Some(diagnostics.clone()));
        }
        Some(PublishDiagnosticsParams::new(uri, diagnostics, None))
    }

    /// The configuration errors to publish on their files (and the files that no longer
    /// have any, cleared).
    pub fn publish_config_errors(&mut self) -> Vec<PublishDiagnosticsParams> {
        let now: BTreeMap<Url, Vec<Diagnostic>> = self
            .analysis
            .config_errors()
            .into_iter()
            .filter_map(|f| {
                let uri = convert::uri_of(&f.path)?;
                let diagnostics = convert::diagnostics(&uri, &f);
                Some((uri, diagnostics))
            })
            .collect();
        if now == self.published_config {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (uri, diagnostics) in &now {
            if self.published_config.get(uri) != Some(diagnostics) {
                out.push(PublishDiagnosticsParams::new(
                    uri.clone(),
                    diagnostics.clone(),
                    None,
                ));
            }
        }
        for stale in self.published_config.keys().filter(|u| !now.contains_key(*u)) {
            out.push(PublishDiagnosticsParams::new(stale.clone(), Vec::new(), None));
        }
        self.published_config = now;
        out
    }

    /// Files changed on disk: the analysis told, the configuration read again when one
    /// of them is (or feeds) a configuration; returns what to publish.
    pub fn disk_changes(&mut self, paths: &[PathBuf]) -> Vec<PublishDiagnosticsParams> {
        let mut config = false;
        let mut cleared = Vec::new();
        for path in paths {
            if self.analysis.affects_configuration(path) {
                config = true;
            } else {
                cleared.extend(self.analysis.disk_changed(path));
            }
        }
        if config {
            cleared.extend(self.analysis.reload_config());
        }
        let mut out: Vec<PublishDiagnosticsParams> =
            cleared.into_iter().filter_map(|f| self.publish(f)).collect();
        if config {
            out.extend(self.publish_config_errors());
        }
        out
    }

    /// The diagnostics the server shows for `uri` (`textDocument/diagnostic`): an open
    /// document's from its current check, reused, never checked again; else what was
    /// last published for the file on disk or for a configuration file; else none.
    pub fn shown(&self, uri: &Url) -> Vec<Diagnostic> {
        let path = self.path_for(uri);
        if let Some(c) = self.analysis.checked(&path) {
            return c
                .diagnostics
                .iter()
                .map(|d| convert::diagnostic(uri, &c.source, d))
                .collect();
        }
        if self.analysis.doc(&path).is_some() {
            return Vec::new();
        }
        if let Some(shown) = self.published_config.get(uri) {
            return shown.clone();
        }
        convert::path_of(uri)
            .and_then(|path| self.published_disk.get(&path).cloned().flatten())
            .unwrap_or_default()
    }

    /// Every document that shows diagnostics (`workspace/diagnostic`): the open
    /// documents' current checks (with their versions), then the workspace's files on
    /// disk and the configuration files, as last published.
    pub fn shown_everywhere(&self) -> BTreeMap<Url, (Option<i64>, Vec<Diagnostic>)> {
        let mut out = BTreeMap::new();
        for (path, version) in self.analysis.open_documents() {
            let Some(uri) = self.uri_for(path) else {
                continue;
            };
            if let Some(c) = self.analysis.checked(path).filter(|c| !c.diagnostics.is_empty()) {
                let items = c
                    .diagnostics
                    .iter()
                    .map(|d| convert::diagnostic(&uri, &c.source, d))
                    .collect();
                out.insert(uri, (Some(i64::from(version)), items));
            }
        }
        for (path, shown) in &self.published_disk {
            let (Some(items), false) = (shown, self.analysis.doc(path).is_some()) else {
                continue;
            };
            if let Some(uri) = convert::uri_of(path).filter(|u| !items.is_empty() && !out.contains_key(u)) {
                out.insert(uri, (None, items.clone()));
            }
        }
        for (uri, items) in &self.published_config {
            if !items.is_empty() && !out.contains_key(uri) {
                out.insert(uri.clone(), (None, items.clone()));
            }
        }
        out
    }
}
