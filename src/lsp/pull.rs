//! Pull diagnostics (LSP 3.17, "Pull Diagnostics": `textDocument/diagnostic` and
//! `workspace/diagnostic`), for a client that pulls ([`client_pulls`]; any other gets
//! push only). The answers are the checks the server runs anyway, with a result id per
//! document: a hash of the diagnostics, so a client that sends back the id of what it
//! shows is told `unchanged` when nothing changed. When a check changes an open
//! document's findings without an edit of its own, the client is asked to pull again
//! (`workspace/diagnostic/refresh`, [`changed_without_edit`]).
//!
//! A workspace pull the server has nothing new for is held (the spec: "the workspace
//! request can be long running and is not bound to a specific workspace or document
//! state"): it is answered when a check changes what some document shows, when the
//! client cancels it, when another workspace pull arrives, or at shutdown. Clients
//! re-issue a workspace pull as soon as (vscode-languageclient: 2 s after) the previous
//! one is answered, so answering at once with `unchanged` items would keep client and server
//! busy for nothing; a held request costs nothing while it waits.

use std::collections::{BTreeMap, HashMap};

use lsp_server::RequestId;
use lsp_types::{
    Diagnostic, FullDocumentDiagnosticReport, UnchangedDocumentDiagnosticReport, Url,
    WorkspaceDiagnosticReport, WorkspaceDocumentDiagnosticReport, WorkspaceFullDocumentDiagnosticReport,
    WorkspaceUnchangedDocumentDiagnosticReport,
};

use super::state::State;

/// The result id of a set of diagnostics: a hash of their JSON (stable within a server's
/// life, which is as long as a client keeps result ids).
pub fn result_id(diagnostics: &[Diagnostic]) -> String {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let json = serde_json::to_string(diagnostics).unwrap_or_default();
    let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(json);
    format!("{hash:016x}")
}

/// A `workspace/diagnostic` request held until something it reports changes.
pub struct Held {
    pub id: RequestId,
    /// The result ids the client knows, by document.
    previous: HashMap<Url, String>,
}

impl Held {
    pub fn new(id: RequestId, previous: Vec<lsp_types::PreviousResultId>) -> Self {
        Self {
            id,
            previous: previous.into_iter().map(|p| (p.uri, p.value)).collect(),
        }
    }

    /// The report for this request now, and whether it tells the client anything new (a
    /// `full` report: a document whose diagnostics differ from the result id it knows,
    /// or that it knows nothing of).
    pub fn report(&self, ws: &State) -> (WorkspaceDiagnosticReport, bool) {
        let mut shown: BTreeMap<Url, (Option<i64>, Vec<Diagnostic>)> = ws.shown_everywhere();
        // A document the client knows of that shows nothing now: reported (empty), so
        // the client clears it.
        for uri in self.previous.keys() {
            if !shown.contains_key(uri) {
                let version = ws.checked(uri).map(|c| i64::from(c.version));
                shown.insert(uri.clone(), (version, ws.shown(uri)));
            }
        }
        let mut news = false;
        let items = shown
            .into_iter()
            .map(|(uri, (version, items))| {
                let result_id = result_id(&items);
                if self.previous.get(&uri) == Some(&result_id) {
                    WorkspaceDocumentDiagnosticReport::Unchanged(WorkspaceUnchangedDocumentDiagnosticReport {
                        uri,
                        version,
                        unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
                    })
                } else {
                    news = true;
                    WorkspaceDocumentDiagnosticReport::Full(WorkspaceFullDocumentDiagnosticReport {
                        uri,
                        version,
                        full_document_diagnostic_report: FullDocumentDiagnosticReport {
                            result_id: Some(result_id),
                            items,
                        },
                    })
                }
            })
            .collect();
        (WorkspaceDiagnosticReport { items }, news)
    }
}

/// Whether the client pulls diagnostics: it declares document pulls
/// (`textDocument.diagnostic`) and can be asked to pull again
/// (`workspace.diagnostics.refreshSupport`, which a definition changed elsewhere needs).
/// Such a client gets `diagnosticProvider` and no `publishDiagnostics`; any other gets
/// push only. Both at once would show every finding twice: clients keep pulled and
/// pushed diagnostics apart (Neovim 0.11 in two namespaces, vscode-languageclient in
/// two collections).
pub fn client_pulls(initialize: &serde_json::Value) -> bool {
    let capabilities = &initialize["capabilities"];
    let documents = capabilities["textDocument"]["diagnostic"].is_object();
    // The specification's name is `diagnostics`; lsp-types 0.95 reads `diagnostic`.
    let workspace = &capabilities["workspace"];
    let refresh = ["diagnostics", "diagnostic"]
        .iter()
        .any(|k| workspace[*k]["refreshSupport"] == serde_json::Value::Bool(true));
    documents && refresh
}

/// Pull mode: records what a check of a document found; true when an open document's
/// findings changed at the version the client already pulled (no edit of its own: a
/// definition elsewhere changed), so the client must be asked to pull again.
pub fn changed_without_edit(
    pulled: &mut HashMap<Url, (Option<i32>, String)>,
    params: &lsp_types::PublishDiagnosticsParams,
) -> bool {
    // A file that is not open: the held workspace pull reports it.
    if params.version.is_none() {
        return false;
    }
    let now = (params.version, result_id(&params.diagnostics));
    match pulled.insert(params.uri.clone(), now.clone()) {
        Some((version, id)) => version == now.0 && id != now.1,
        // The first check of an open document: the client pulls it after opening it.
        None => false,
    }
}
