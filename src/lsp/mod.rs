//! `amlint lsp`: the language server, over standard input and output
//! (`docs/lsp.md`). The protocol only: the editor features are `crate::ide`'s.
//!
//! One thread reads and frames messages ([`framing`]: a malformed one is answered with
//! a JSON-RPC parse error and skipped, never fatal); the main loop handles them in order
//! and runs the checks. Changes are debounced: after a `didChange` the loop waits
//! [`DEBOUNCE`] for more before checking, and before publishing it looks at what has
//! arrived in the meantime, so a result for a document that already has a newer change
//! is dropped — only the latest version is ever published. Requests (hover, code
//! actions) run the pending checks first, so they always describe the current text.
//!
//! - [`requests`], [`notifications`]: one handler file per method.
//! - [`state`]: the analysis, the open documents' URIs, what the client shows.
//! - [`convert`]: the only file that knows both spans and LSP positions (UTF-16), both
//!   paths and URLs.
//! - [`pull`]: pull diagnostics; a `workspace/diagnostic` with nothing new is held
//!   until a check changes what it reports.

pub mod convert;
mod framing;
pub mod notifications;
pub mod pull;
pub mod requests;
pub mod state;

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability,
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, HoverProviderCapability,
    InitializeParams, InitializeResult, PublishDiagnosticsParams, Registration, RegistrationParams,
    SaveOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Url,
};

use framing::{Incoming, read_loop};
pub use notifications::did_change::DEBOUNCE;
use state::State;

/// Largest message body read by default (`amlint lsp --max-message-size`): a larger one
/// is never buffered; the server answers once with a protocol error and looks for the
/// next message's header.
pub const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// Runs the server on standard input and output; returns the process exit code (0 after
/// `shutdown` then `exit`, 1 when the client exits without `shutdown` or disappears).
pub fn run(max_message: usize) -> i32 {
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::Builder::new()
        .name("amlint-lsp-reader".to_string())
        .spawn(move || read_loop(std::io::stdin().lock(), tx, max_message))
        .map_or(2, |_| {
            let mut server = Server::new(rx, Box::new(std::io::stdout()));
            server.serve()
        })
}

/// Where the server's output goes, and what it remembers of what it sent.
struct Sink {
    out: Box<dyn Write>,
    next_id: i32,
    /// The client pulls diagnostics (see [`pull`]): nothing is pushed.
    pull: bool,
    /// Pull mode: what each open document showed when last checked (version, result
    /// id), to ask the client to pull again when a check changes it without an edit.
    pulled: HashMap<Url, (Option<i32>, String)>,
    /// Diagnostics were published since the held request was last looked at.
    published: bool,
}

impl Sink {
    fn send(&mut self, message: Message) {
        // A closed output means the client is gone; the reader will see end of input.
        let _ = message.write(&mut self.out);
    }

    /// Publishes (or, in pull mode, records and asks for a pull when needed).
    fn publish_all(&mut self, params: Vec<PublishDiagnosticsParams>) {
        self.published |= !params.is_empty();
        if self.pull {
            let refresh = params
                .iter()
                .fold(false, |r, p| pull::changed_without_edit(&mut self.pulled, p) | r);
            if refresh {
                self.request_refresh();
            }
            return;
        }
        for p in params {
            let n = Notification::new(lsp_types::notification::PublishDiagnostics::METHOD.to_string(), p);
            self.send(Message::Notification(n));
        }
    }

    /// Pull mode: asks the client to pull every document's diagnostics again
    /// (`workspace/diagnostic/refresh`), after a check changed an open document's
    /// findings without the client editing it (a definition elsewhere changed).
    fn request_refresh(&mut self) {
        self.next_id += 1;
        let request = Request::new(
            RequestId::from(format!("amlint-{}", self.next_id)),
            lsp_types::request::WorkspaceDiagnosticRefresh::METHOD.to_string(),
            serde_json::Value::Null,
        );
        self.send(Message::Request(request));
    }
}

struct Server {
    rx: Receiver<Incoming>,
    sink: Sink,
    /// Messages taken from the channel early (to see whether a result is stale), in order.
    backlog: VecDeque<Incoming>,
    state: Option<State>,
    shutdown: bool,
    /// When the pending checks run.
    deadline: Option<Instant>,
    watch_files: bool,
    /// A `workspace/diagnostic` request waiting for something new to report.
    held: Option<pull::Held>,
}

type Answer = Result<serde_json::Value, (ErrorCode, String)>;

impl Server {
    fn new(rx: Receiver<Incoming>, out: Box<dyn Write>) -> Self {
        Self {
            rx,
            sink: Sink {
                out,
                next_id: 0,
                pull: false,
                pulled: HashMap::new(),
                published: false,
            },
            backlog: VecDeque::new(),
            state: None,
            shutdown: false,
            deadline: None,
            watch_files: false,
            held: None,
        }
    }

    fn serve(&mut self) -> i32 {
        loop {
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.flush();
            }
            self.answer_held(false);
            let item = match self.backlog.pop_front() {
                Some(item) => item,
                None => match self.deadline {
                    Some(deadline) => match self.rx.recv_deadline(deadline) {
                        Ok(item) => item,
                        Err(RecvTimeoutError::Timeout) => continue,
                        Err(RecvTimeoutError::Disconnected) => return i32::from(!self.shutdown),
                    },
                    None => match self.rx.recv() {
                        Ok(item) => item,
                        Err(_) => return i32::from(!self.shutdown),
                    },
                },
            };
            match item {
                Incoming::Malformed(code, why) => {
                    let error = serde_json::json!({
                        "jsonrpc": "2.0", "id": null,
                        "error": {"code": code, "message": why},
                    });
                    let text = error.to_string();
                    let out = &mut self.sink.out;
                    let _ = write!(out, "Content-Length: {}\r\n\r\n{text}", text.len());
                    let _ = out.flush();
                }
                Incoming::Message(Message::Request(r)) => self.on_request(r),
                Incoming::Message(Message::Notification(n)) => {
                    if n.method == lsp_types::notification::Exit::METHOD {
                        return i32::from(!self.shutdown);
                    }
                    let method = n.method.clone();
                    if catch_unwind(AssertUnwindSafe(|| self.on_notification(n))).is_err() {
                        eprintln!("amlint lsp: internal error while handling {method}");
                    }
                }
                // Answers to our own requests (registerCapability): nothing to do.
                Incoming::Message(Message::Response(_)) => {}
            }
        }
    }

    /// Answers the held `workspace/diagnostic` request when something was published
    /// since it was last looked at and its report now has news (or `always`).
    fn answer_held(&mut self, always: bool) {
        if !always && !std::mem::take(&mut self.sink.published) {
            return;
        }
        let (Some(held), Some(state)) = (self.held.as_ref(), self.state.as_ref()) else {
            return;
        };
        let (report, news) = held.report(state);
        if !news && !always {
            return;
        }
        let id = held.id.clone();
        self.held = None;
        let result = serde_json::to_value(lsp_types::WorkspaceDiagnosticReportResult::Report(report))
            .map_err(|e| (ErrorCode::InternalError, e.to_string()));
        self.reply(id, result);
    }

    /// `workspace/diagnostic`: answered at once when there is something the client does
    /// not know (by its result ids), else held (see [`pull`]). A request already held
    /// is answered first, as it stands.
    fn workspace_diagnostic(&mut self, id: RequestId, params: serde_json::Value) {
        let params: lsp_types::WorkspaceDiagnosticParams = match serde_json::from_value(params) {
            Ok(p) => p,
            Err(e) => return self.reply(id, Err((ErrorCode::InvalidParams, e.to_string()))),
        };
        if self.state.as_ref().is_some_and(|s| s.analysis.is_dirty()) {
            self.flush();
        }
        self.answer_held(true);
        self.held = Some(pull::Held::new(id, params.previous_result_ids));
        self.sink.published = true;
        self.answer_held(false);
    }

    /// Runs the pending checks and publishes; drops results a newer change supersedes.
    fn flush(&mut self) {
        self.deadline = None;
        let Server {
            state,
            sink,
            backlog,
            rx,
            ..
        } = self;
        let Some(state) = state.as_mut() else {
            return;
        };
        let mut superseded = |uri: &Url| {
            while let Ok(item) = rx.try_recv() {
                backlog.push_back(item);
            }
            backlog.iter().any(|item| match item {
                Incoming::Message(Message::Notification(n)) => {
                    (n.method == lsp_types::notification::DidChangeTextDocument::METHOD
                        || n.method == lsp_types::notification::DidCloseTextDocument::METHOD)
                        && n.params
                            .pointer("/textDocument/uri")
                            .and_then(|u| u.as_str())
                            .and_then(|u| Url::parse(u).ok())
                            .is_some_and(|u| &u == uri)
                }
                _ => false,
            })
        };
        let mut published = Vec::new();
        let checked = catch_unwind(AssertUnwindSafe(|| {
            for path in state.analysis.take_dirty_open() {
                let Some(found) = state.analysis.check_open(&path) else {
                    continue;
                };
                // The result is kept for requests about this version, but a newer change
                // already waiting means it is never published.
                let Some(params) = state.publish(found) else {
                    continue;
                };
                if superseded(&params.uri) {
                    continue;
                }
                if sink.pull {
                    // Recorded with the rest: one refresh asked for at most.
                    published.push(params);
                } else {
                    // Pushed at once: the files on disk are checked after.
                    sink.publish_all(vec![params]);
                }
            }
            for found in state.analysis.check_disk() {
                published.extend(state.publish(found));
            }
            // Configuration files met for the first time during these checks.
            published.extend(state.publish_config_errors());
        }));
        if checked.is_err() {
            eprintln!("amlint lsp: internal error while checking");
        }
        sink.publish_all(published);
    }

    fn schedule(&mut self, delay: Duration) {
        let at = Instant::now() + delay;
        // A later change pushes the debounce back; an immediate check is never delayed.
        self.deadline = Some(match self.deadline {
            Some(d) if delay.is_zero() => d.min(at),
            _ => at,
        });
    }

    fn reply(&mut self, id: RequestId, result: Answer) {
        let response = match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        self.sink.send(Message::Response(response));
    }

    fn on_request(&mut self, r: Request) {
        let id = r.id.clone();
        if r.method == lsp_types::request::Initialize::METHOD {
            let result = self.initialize(r.params);
            return self.reply(id, result);
        }
        if self.state.is_none() {
            return self.reply(id, Err(not_initialized()));
        }
        if self.shutdown {
            return self.reply(
                id,
                Err((
                    ErrorCode::InvalidRequest,
                    "the server is shutting down".to_string(),
                )),
            );
        }
        if r.method == lsp_types::request::Shutdown::METHOD {
            // A held workspace pull is answered before the server stops answering.
            self.answer_held(true);
            self.shutdown = true;
            return self.reply(id, Ok(serde_json::Value::Null));
        }
        if r.method == lsp_types::request::WorkspaceDiagnosticRequest::METHOD {
            return self.workspace_diagnostic(id, r.params);
        }
        let result = catch_unwind(AssertUnwindSafe(|| self.answer(&r.method, r.params)))
            .unwrap_or_else(|_| Err((ErrorCode::InternalError, format!("amlint failed on {}", r.method))));
        self.reply(id, result);
    }

    /// A request about a document: the pending checks run first (and publish), and the
    /// document's current version is checked even if its result was not published;
    /// then its handler answers.
    fn answer(&mut self, method: &str, params: serde_json::Value) -> Answer {
        use lsp_types::request::{
            CodeActionRequest, Completion, DocumentDiagnosticRequest, DocumentSymbolRequest,
            FoldingRangeRequest, GotoDefinition, HoverRequest, References,
        };
        fn call<P: serde::de::DeserializeOwned, R: serde::Serialize>(
            state: &mut State,
            params: serde_json::Value,
            handler: fn(&mut State, P) -> R,
        ) -> Answer {
            let p = serde_json::from_value(params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
            serde_json::to_value(handler(state, p)).map_err(|e| (ErrorCode::InternalError, e.to_string()))
        }
        let uri = params
            .pointer("/textDocument/uri")
            .and_then(|u| u.as_str())
            .and_then(|u| Url::parse(u).ok());
        if let Some(uri) = &uri {
            self.flush_if_dirty(uri);
        }
        let Some(state) = self.state.as_mut() else {
            return Err(not_initialized());
        };
        match method {
            CodeActionRequest::METHOD => call(state, params, requests::code_action::handle),
            HoverRequest::METHOD => call(state, params, requests::hover::handle),
            DocumentSymbolRequest::METHOD => call(state, params, requests::document_symbol::handle),
            FoldingRangeRequest::METHOD => call(state, params, requests::folding_range::handle),
            Completion::METHOD => call(state, params, requests::completion::handle),
            GotoDefinition::METHOD => call(state, params, requests::definition::handle),
            References::METHOD => call(state, params, requests::references::handle),
            DocumentDiagnosticRequest::METHOD => call(state, params, requests::document_diagnostic::handle),
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("amlint does not handle {method}"),
            )),
        }
    }

    /// Before a request about `uri`: the pending checks run (and publish), and the
    /// document's current version is checked even if its result was not published.
    fn flush_if_dirty(&mut self, uri: &Url) {
        if self.state.as_ref().is_some_and(|s| s.analysis.is_dirty()) {
            self.flush();
        }
        if let Some(state) = self.state.as_mut() {
            let path = state.path_for(uri);
            state.analysis.ensure_checked(&path);
        }
    }

    fn initialize(&mut self, params: serde_json::Value) -> Answer {
        if self.state.is_some() {
            return Err((
                ErrorCode::InvalidRequest,
                "initialize was already received".to_string(),
            ));
        }
        self.sink.pull = pull::client_pulls(&params);
        let params: InitializeParams =
            serde_json::from_value(params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
        let mut folders: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| convert::path_of(&f.uri))
            .collect();
        #[allow(deprecated)]
        if folders.is_empty() {
            folders.extend(params.root_uri.as_ref().and_then(convert::path_of));
        }
        self.watch_files = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        self.state = Some(State::new(crate::ide::Analysis::new(folders)));
        serde_json::to_value(initialize_result(self.sink.pull))
            .map_err(|e| (ErrorCode::InternalError, e.to_string()))
    }

    /// After `initialized`: watch the files the index depends on, index the workspace,
    /// check it.
    fn initialized(&mut self) {
        if self.watch_files {
            // Every file: configurations and definitions feed the index, and any file
            // may be a local path a configuration names (AML201).
            let watchers = ["**/*"]
                .iter()
                .map(|g| FileSystemWatcher {
                    glob_pattern: GlobPattern::String(g.to_string()),
                    kind: None,
                })
                .collect();
            let options = DidChangeWatchedFilesRegistrationOptions { watchers };
            let params = RegistrationParams {
                registrations: vec![Registration {
                    id: "amlint-watched-files".to_string(),
                    method: lsp_types::notification::DidChangeWatchedFiles::METHOD.to_string(),
                    register_options: serde_json::to_value(options).ok(),
                }],
            };
            self.sink.next_id += 1;
            let request = Request::new(
                RequestId::from(format!("amlint-{}", self.sink.next_id)),
                lsp_types::request::RegisterCapability::METHOD.to_string(),
                params,
            );
            self.sink.send(Message::Request(request));
        }
        let mut published = Vec::new();
        if let Some(state) = self.state.as_mut() {
            state.analysis.index_workspace();
            published = state.publish_config_errors();
        }
        self.sink.publish_all(published);
        self.schedule(Duration::ZERO);
    }

    fn on_notification(&mut self, n: Notification) {
        use lsp_types::notification::{
            DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
            DidSaveTextDocument, Initialized,
        };
        use notifications::{After, did_change, did_change_watched_files, did_close, did_open, did_save};
        if self.shutdown {
            return;
        }
        fn call<P: serde::de::DeserializeOwned>(
            state: Option<&mut State>,
            params: serde_json::Value,
            handler: fn(&mut State, P) -> After,
        ) -> After {
            match (state, serde_json::from_value(params)) {
                (Some(state), Ok(p)) => handler(state, p),
                _ => After::default(),
            }
        }
        let state = self.state.as_mut();
        if state.is_none() {
            return;
        }
        let after = match n.method.as_str() {
            Initialized::METHOD => return self.initialized(),
            DidOpenTextDocument::METHOD => call(state, n.params, did_open::handle),
            DidChangeTextDocument::METHOD => call(state, n.params, did_change::handle),
            DidCloseTextDocument::METHOD => {
                if let Some(uri) = n
                    .params
                    .pointer("/textDocument/uri")
                    .and_then(|u| u.as_str())
                    .and_then(|u| Url::parse(u).ok())
                {
                    self.sink.pulled.remove(&uri);
                }
                call(self.state.as_mut(), n.params, did_close::handle)
            }
            DidSaveTextDocument::METHOD => call(state, n.params, did_save::handle),
            DidChangeWatchedFiles::METHOD => call(state, n.params, did_change_watched_files::handle),
            // A held workspace pull: answered with `RequestCancelled`. Other requests are
            // answered in order, at once: nothing to cancel.
            lsp_types::notification::Cancel::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp_types::CancelParams>(n.params) {
                    self.cancel(p);
                }
                After::default()
            }
            // `$/setTrace` and anything unknown: ignored, as notifications must be.
            _ => After::default(),
        };
        if let Some(delay) = after.check_in {
            self.schedule(delay);
        }
        self.sink.publish_all(after.publish);
    }

    fn cancel(&mut self, p: lsp_types::CancelParams) {
        let id = match p.id {
            lsp_types::NumberOrString::Number(n) => RequestId::from(n),
            lsp_types::NumberOrString::String(s) => RequestId::from(s),
        };
        if self.held.as_ref().is_some_and(|h| h.id == id) {
            self.held = None;
            self.reply(
                id,
                Err((ErrorCode::RequestCanceled, "cancelled by the client".to_string())),
            );
        }
    }
}

/// What the server can do (`initialize`'s answer).
fn initialize_result(pull: bool) -> InitializeResult {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                include_text: Some(false),
            })),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(lsp_types::CompletionOptions {
            trigger_characters: Some([":", " ", "/", "-", "."].iter().map(|c| c.to_string()).collect()),
            ..Default::default()
        }),
        definition_provider: Some(lsp_types::OneOf::Left(true)),
        references_provider: Some(lsp_types::OneOf::Left(true)),
        document_symbol_provider: Some(lsp_types::OneOf::Left(true)),
        folding_range_provider: Some(lsp_types::FoldingRangeProviderCapability::Simple(true)),
        // Pull instead of push for a client that pulls and can be told to pull again;
        // a finding may depend on other files (the index).
        diagnostic_provider: pull.then(|| {
            lsp_types::DiagnosticServerCapabilities::Options(lsp_types::DiagnosticOptions {
                identifier: Some("amlint".to_string()),
                inter_file_dependencies: true,
                workspace_diagnostics: true,
                ..Default::default()
            })
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, convert::fix_all_kind()]),
            ..Default::default()
        })),
        ..Default::default()
    };
    InitializeResult {
        capabilities,
        server_info: Some(ServerInfo {
            name: "amlint".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    }
}

/// The answer to a request that needs the workspace before `initialize` made it.
fn not_initialized() -> (ErrorCode, String) {
    (
        ErrorCode::ServerNotInitialized,
        "the server is not initialized".to_string(),
    )
}
