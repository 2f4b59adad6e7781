//! `amlint lsp`: the language server, over standard input and output
//! (`docs/lsp.md`).
//!
//! One thread reads and frames messages (a malformed one is answered with a JSON-RPC
//! parse error and skipped, never fatal); the main loop handles them in order and runs
//! the checks. Changes are debounced: after a `didChange` the loop waits [`DEBOUNCE`]
//! for more before checking, and before publishing it looks at what has arrived in the
//! meantime, so a result for a document that already has a newer change is dropped —
//! only the latest version is ever published. Requests (hover, code actions) run the
//! pending checks first, so they always describe the current text.
//!
//! - [`workspace`]: open documents, the workspace's files and index, the checks.
//! - [`convert`]: positions (UTF-16, through `SourceFile`) and diagnostics.
//! - [`actions`]: quick fixes and suppressions. [`hover`]: rule and schema help.
//! - [`pull`]: pull diagnostics; a `workspace/diagnostic` with nothing new is held
//!   until a check changes what it reports.

pub mod actions;
pub mod bindings;
pub mod complete;
pub mod convert;
pub mod hover;
pub mod navigate;
pub mod pull;
pub mod symbols;
pub mod workspace;

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidChangeWatchedFilesRegistrationOptions,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams, FileSystemWatcher,
    GlobPattern, HoverParams, HoverProviderCapability, InitializeParams, InitializeResult,
    PublishDiagnosticsParams, Registration, RegistrationParams, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
    Url,
};

use crate::pipeline::Options;
use workspace::Workspace;

/// How long after a change the server waits for more before checking.
pub const DEBOUNCE: Duration = Duration::from_millis(5);

/// Largest message body read by default (`amlint lsp --max-message-size`): a larger one
/// is never buffered; the server answers once with a protocol error and looks for the
/// next message's header.
pub const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// A longer header line is not a header (the input is resynchronised instead).
const MAX_HEADER_LINE: u64 = 64 * 1024;

/// What the reader thread hands the main loop.
enum Incoming {
    Message(Message),
    /// A body that is not a JSON-RPC message, with the JSON-RPC error code to answer.
    Malformed(i32, String),
}

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

/// Reads framed messages until end of input or `exit`.
fn read_loop(mut input: impl BufRead, tx: Sender<Incoming>, max_body: usize) {
    let mut resync = false;
    loop {
        let item = match read_frame(&mut input, &mut resync, max_body) {
            Ok(Some(body)) => parse_body(&body),
            Ok(None) => return,
            Err(Frame::Malformed(why)) => Incoming::Malformed(ErrorCode::ParseError as i32, why),
            Err(Frame::Io) => return,
        };
        let exit = matches!(&item, Incoming::Message(Message::Notification(n)) if n.method == "exit");
        if tx.send(item).is_err() || exit {
            return;
        }
    }
}

fn parse_body(body: &[u8]) -> Incoming {
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => Incoming::Message(m),
        Err(e) => {
            let code = if serde_json::from_slice::<serde_json::Value>(body).is_ok() {
                ErrorCode::InvalidRequest
            } else {
                ErrorCode::ParseError
            };
            Incoming::Malformed(code as i32, format!("cannot read this message: {e}"))
        }
    }
}

enum Frame {
    Malformed(String),
    Io,
}

/// The header every message starts with, as matched when resynchronising (lower case).
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Skips input up to and including the next `Content-Length:` (any case); false at end
/// of input. The pattern's first byte occurs in it only once, so a mismatch restarts
/// the match at the current byte.
fn skip_to_content_length(input: &mut impl BufRead) -> Result<bool, Frame> {
    let mut matched = 0;
    loop {
        let buf = match input.fill_buf() {
            Ok([]) => return Ok(false),
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Frame::Io),
        };
        let mut used = 0;
        let mut found = false;
        for &b in buf {
            used += 1;
            let b = b.to_ascii_lowercase();
            if b == CONTENT_LENGTH[matched] {
                matched += 1;
            } else {
                matched = usize::from(b == CONTENT_LENGTH[0]);
            }
            if matched == CONTENT_LENGTH.len() {
                found = true;
                break;
            }
        }
        input.consume(used);
        if found {
            return Ok(true);
        }
    }
}

/// One `Content-Length`-framed body (`None` at end of input). After a header block
/// without a valid `Content-Length` the body's extent is unknown: the frame is
/// reported malformed and `resync` set, and the next call skips everything up to the
/// next `Content-Length:` header, where a well-framed message can start again.
fn read_frame(
    input: &mut impl BufRead,
    resync: &mut bool,
    max_body: usize,
) -> Result<Option<Vec<u8>>, Frame> {
    let mut length: Option<usize> = None;
    let mut saw_header = false;
    let mut resumed = std::mem::take(resync);
    if resumed && !skip_to_content_length(input)? {
        return Ok(None);
    }
    let mut line = Vec::new();
    loop {
        line.clear();
        if std::mem::take(&mut resumed) {
            line.extend_from_slice(b"Content-Length:");
        }
        let start = line.len();
        match input.by_ref().take(MAX_HEADER_LINE).read_until(b'\n', &mut line) {
            Ok(0) if start == 0 => return Ok(None),
            Ok(_) => {}
            Err(_) => return Err(Frame::Io),
        }
        if line.len() - start >= MAX_HEADER_LINE as usize && !line.ends_with(b"\n") {
            // Not a header: the rest is skipped up to the next message.
            *resync = true;
            return Err(Frame::Malformed("a message header is too long".to_string()));
        }
        let line = String::from_utf8_lossy(&line);
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok();
            }
        }
    }
    let Some(length) = length else {
        *resync = true;
        return Err(Frame::Malformed(
            "a message header has no valid Content-Length".to_string(),
        ));
    };
    if length > max_body {
        // Neither buffered nor skipped by its declared length (which may be absurd, and
        // the client may never send that much): the next message is found by its header.
        *resync = true;
        return Err(Frame::Malformed(format!(
            "a message of {length} bytes is larger than the {max_body} bytes amlint reads (amlint lsp --max-message-size)"
        )));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body).map_err(|_| Frame::Io)?;
    Ok(Some(body))
}

struct Server {
    rx: Receiver<Incoming>,
    out: Box<dyn Write>,
    /// Messages taken from the channel early (to see whether a result is stale), in order.
    backlog: VecDeque<Incoming>,
    ws: Option<Workspace>,
    shutdown: bool,
    /// When the pending checks run.
    deadline: Option<Instant>,
    next_id: i32,
    watch_files: bool,
    /// The client pulls diagnostics (see [`pull::Mode`]): nothing is pushed.
    pull: bool,
    /// Pull mode: what each open document showed when last checked (version, result
    /// id), to ask the client to pull again when a check changes it without an edit.
    pulled: std::collections::HashMap<Url, (Option<i32>, String)>,
    /// A `workspace/diagnostic` request waiting for something new to report.
    held: Option<pull::Held>,
    /// Diagnostics were published since the held request was last looked at.
    published: bool,
}

impl Server {
    fn new(rx: Receiver<Incoming>, out: Box<dyn Write>) -> Self {
        Self {
            rx,
            out,
            backlog: VecDeque::new(),
            ws: None,
            shutdown: false,
            deadline: None,
            next_id: 0,
            watch_files: false,
            pull: false,
            pulled: Default::default(),
            held: None,
            published: false,
        }
    }

    fn send(&mut self, message: Message) {
        // A closed output means the client is gone; the reader will see end of input.
        let _ = message.write(&mut self.out);
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
                    let _ = write!(self.out, "Content-Length: {}\r\n\r\n{text}", text.len());
                    let _ = self.out.flush();
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
        if !always && !std::mem::take(&mut self.published) {
            return;
        }
        let (Some(held), Some(ws)) = (self.held.as_ref(), self.ws.as_ref()) else {
            return;
        };
        let (report, news) = held.report(ws);
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
        if self.ws.as_ref().is_some_and(Workspace::is_dirty) {
            self.flush();
        }
        self.answer_held(true);
        self.held = Some(pull::Held::new(id, params.previous_result_ids));
        self.published = true;
        self.answer_held(false);
    }

    /// Runs the pending checks and publishes; drops results a newer change supersedes.
    fn flush(&mut self) {
        self.deadline = None;
        let Server {
            ws, out, backlog, rx, ..
        } = self;
        let Some(ws) = ws.as_mut() else {
            return;
        };
        let mut published = false;
        let mut refresh = false;
        let (pull, pulled) = (self.pull, &mut self.pulled);
        let mut publish = |params: PublishDiagnosticsParams| {
            published = true;
            if pull {
                refresh |= pull::changed_without_edit(pulled, &params);
                return;
            }
            let n = Notification::new(
                lsp_types::notification::PublishDiagnostics::METHOD.to_string(),
                params,
            );
            let _ = Message::Notification(n).write(out);
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
        if catch_unwind(AssertUnwindSafe(|| ws.flush(&mut publish, &mut superseded))).is_err() {
            eprintln!("amlint lsp: internal error while checking");
        }
        self.published |= published;
        if refresh {
            self.request_refresh();
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

    fn schedule(&mut self, delay: Duration) {
        let at = Instant::now() + delay;
        // A later change pushes the debounce back; an immediate check is never delayed.
        self.deadline = Some(match self.deadline {
            Some(d) if delay.is_zero() => d.min(at),
            _ => at,
        });
    }

    fn reply(&mut self, id: RequestId, result: Result<serde_json::Value, (ErrorCode, String)>) {
        let response = match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        self.send(Message::Response(response));
    }

    fn on_request(&mut self, r: Request) {
        let id = r.id.clone();
        if r.method == lsp_types::request::Initialize::METHOD {
            let result = self.initialize(r.params);
            return self.reply(id, result);
        }
        if self.ws.is_none() {
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

    fn answer(
        &mut self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, (ErrorCode, String)> {
        fn parse<T: serde::de::DeserializeOwned>(
            params: serde_json::Value,
        ) -> Result<T, (ErrorCode, String)> {
            serde_json::from_value(params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
        }
        fn to_json(v: impl serde::Serialize) -> Result<serde_json::Value, (ErrorCode, String)> {
            serde_json::to_value(v).map_err(|e| (ErrorCode::InternalError, e.to_string()))
        }
        match method {
            lsp_types::request::CodeActionRequest::METHOD => {
                let p: CodeActionParams = parse(params)?;
                self.flush_if_dirty(&p.text_document.uri);
                let Some(ws) = self.ws.as_mut() else {
                    return Err(not_initialized());
                };
                let uri = &p.text_document.uri;
                let limits = ws.limits().clone();
                let mut actions = ws
                    .checked(uri)
                    .map(|c| actions::code_actions(uri, c, &p.range, &limits))
                    .unwrap_or_default();
                // "Fix all": the same rounds as `amlint check --fix`, each checked again
                // as this document is; only when asked for, or when a safe fix exists.
                let pending = ws.checked(uri).and_then(|c| {
                    let any_safe = c.diagnostics.iter().any(|d| d.fix_for(false).is_some());
                    let asked = p.context.only.is_some();
                    (actions::wants_fix_all(p.context.only.as_deref()) && (asked || any_safe))
                        .then(|| (c.source.clone(), c.diagnostics.clone()))
                });
                if let Some((source, diagnostics)) = pending {
                    let fixed = crate::fix::fix_text(
                        &source.path,
                        source.text.clone(),
                        diagnostics,
                        false,
                        &limits,
                        &mut |text| ws.check_text_as(uri, text),
                    );
                    actions.extend(actions::fix_all(uri, &source, &fixed));
                }
                to_json(actions)
            }
            lsp_types::request::HoverRequest::METHOD => {
                let p: HoverParams = parse(params)?;
                self.flush_if_dirty(&p.text_document_position_params.text_document.uri);
                let Some(ws) = self.ws.as_ref() else {
                    return Err(not_initialized());
                };
                let pos = &p.text_document_position_params;
                let hover = ws
                    .checked(&pos.text_document.uri)
                    .and_then(|c| hover::hover(c, pos.position));
                to_json(hover)
            }
            lsp_types::request::DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = parse(params)?;
                let symbols = self
                    .azure_ml(&p.text_document.uri)
                    .map(symbols::document_symbols)
                    .unwrap_or_default();
                to_json(lsp_types::DocumentSymbolResponse::Nested(symbols))
            }
            lsp_types::request::FoldingRangeRequest::METHOD => {
                let p: lsp_types::FoldingRangeParams = parse(params)?;
                let folds = self
                    .azure_ml(&p.text_document.uri)
                    .map(symbols::folding_ranges)
                    .unwrap_or_default();
                to_json(folds)
            }
            lsp_types::request::Completion::METHOD => {
                let p: lsp_types::CompletionParams = parse(params)?;
                let pos = &p.text_document_position;
                self.flush_if_dirty(&pos.text_document.uri);
                let Some(ws) = self.ws.as_ref() else {
                    return Err(not_initialized());
                };
                let items = ws
                    .checked(&pos.text_document.uri)
                    .map(|c| complete::complete(ws, c, pos.position))
                    .unwrap_or_default();
                to_json(lsp_types::CompletionResponse::List(lsp_types::CompletionList {
                    is_incomplete: false,
                    items,
                }))
            }
            lsp_types::request::GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = parse(params)?;
                let pos = &p.text_document_position_params;
                let azure_ml = self.azure_ml(&pos.text_document.uri).is_some();
                let Some(ws) = self.ws.as_ref() else {
                    return Err(not_initialized());
                };
                let locations = ws
                    .checked(&pos.text_document.uri)
                    .filter(|_| azure_ml)
                    .map(|c| navigate::definition(ws, c, pos.position))
                    .unwrap_or_default();
                to_json(lsp_types::GotoDefinitionResponse::Array(locations))
            }
            lsp_types::request::References::METHOD => {
                let p: lsp_types::ReferenceParams = parse(params)?;
                let pos = &p.text_document_position;
                let azure_ml = self.azure_ml(&pos.text_document.uri).is_some();
                let Some(ws) = self.ws.as_ref() else {
                    return Err(not_initialized());
                };
                let uri = &pos.text_document.uri;
                let locations = ws
                    .checked(uri)
                    .filter(|_| azure_ml)
                    .map(|c| navigate::references(ws, c, uri, pos.position, p.context.include_declaration))
                    .unwrap_or_default();
                to_json(locations)
            }
            lsp_types::request::DocumentDiagnosticRequest::METHOD => {
                // The findings pushed for this document, as last checked (the pending
                // checks run first, as for every request): never a second check.
                let p: lsp_types::DocumentDiagnosticParams = parse(params)?;
                let uri = &p.text_document.uri;
                self.flush_if_dirty(uri);
                let Some(ws) = self.ws.as_ref() else {
                    return Err(not_initialized());
                };
                let items = ws.shown(uri);
                let result_id = pull::result_id(&items);
                let report = if p.previous_result_id.as_ref() == Some(&result_id) {
                    lsp_types::DocumentDiagnosticReport::Unchanged(
                        lsp_types::RelatedUnchangedDocumentDiagnosticReport {
                            related_documents: None,
                            unchanged_document_diagnostic_report:
                                lsp_types::UnchangedDocumentDiagnosticReport { result_id },
                        },
                    )
                } else {
                    lsp_types::DocumentDiagnosticReport::Full(
                        lsp_types::RelatedFullDocumentDiagnosticReport {
                            related_documents: None,
                            full_document_diagnostic_report: lsp_types::FullDocumentDiagnosticReport {
                                result_id: Some(result_id),
                                items,
                            },
                        },
                    )
                };
                to_json(lsp_types::DocumentDiagnosticReportResult::Report(report))
            }
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("amlint does not handle {method}"),
            )),
        }
    }

    /// The current check of `uri` when it is an Azure ML configuration (other files get
    /// nothing from the server), after the pending checks.
    fn azure_ml(&mut self, uri: &Url) -> Option<&workspace::Checked> {
        self.flush_if_dirty(uri);
        self.ws.as_ref()?.checked(uri).filter(|c| symbols::is_azure_ml(c))
    }

    /// Before a request about `uri`: the pending checks run (and publish), and the
    /// document's current version is checked even if its result was not published.
    fn flush_if_dirty(&mut self, uri: &Url) {
        if self.ws.as_ref().is_some_and(Workspace::is_dirty) {
            self.flush();
        }
        self.ws_mut().ensure_checked(uri);
    }

    fn initialize(&mut self, params: serde_json::Value) -> Result<serde_json::Value, (ErrorCode, String)> {
        if self.ws.is_some() {
            return Err((
                ErrorCode::InvalidRequest,
                "initialize was already received".to_string(),
            ));
        }
        self.pull = pull::client_pulls(&params);
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
        self.ws = Some(Workspace::new(folders, Options::default()));
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
            diagnostic_provider: self.pull.then(|| {
                lsp_types::DiagnosticServerCapabilities::Options(lsp_types::DiagnosticOptions {
                    identifier: Some("amlint".to_string()),
                    inter_file_dependencies: true,
                    workspace_diagnostics: true,
                    ..Default::default()
                })
            }),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, actions::fix_all_kind()]),
                ..Default::default()
            })),
            ..Default::default()
        };
        let result = InitializeResult {
            capabilities,
            server_info: Some(ServerInfo {
                name: "amlint".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
        };
        serde_json::to_value(result).map_err(|e| (ErrorCode::InternalError, e.to_string()))
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
            self.next_id += 1;
            let request = Request::new(
                RequestId::from(format!("amlint-{}", self.next_id)),
                lsp_types::request::RegisterCapability::METHOD.to_string(),
                params,
            );
            self.send(Message::Request(request));
        }
        let mut published = Vec::new();
        if let Some(ws) = self.ws.as_mut() {
            ws.index_workspace();
            ws.publish_config_errors(&mut |p| published.push(p));
        }
        self.publish_all(published);
        self.schedule(Duration::ZERO);
    }

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

    fn on_notification(&mut self, n: Notification) {
        use lsp_types::notification::{
            DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
            DidSaveTextDocument, Initialized,
        };
        if self.ws.is_none() || self.shutdown {
            return;
        }
        fn parse<T: serde::de::DeserializeOwned>(n: Notification) -> Option<T> {
            serde_json::from_value(n.params).ok()
        }
        let mut published = Vec::new();
        let mut publish = |p| published.push(p);
        match n.method.as_str() {
            Initialized::METHOD => self.initialized(),
            DidOpenTextDocument::METHOD => {
                if let Some(p) = parse::<DidOpenTextDocumentParams>(n) {
                    let d = p.text_document;
                    self.ws_mut().open(d.uri, d.version, d.text);
                    self.schedule(Duration::ZERO);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Some(p) = parse::<DidChangeTextDocumentParams>(n) {
                    let d = p.text_document;
                    self.ws_mut().change(&d.uri, d.version, p.content_changes);
                    self.schedule(DEBOUNCE);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Some(p) = parse::<DidCloseTextDocumentParams>(n) {
                    self.pulled.remove(&p.text_document.uri);
                    self.ws_mut().close(&p.text_document.uri, &mut publish);
                    self.schedule(Duration::ZERO);
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Some(p) = parse::<DidSaveTextDocumentParams>(n) {
                    self.ws_mut().touch(&p.text_document.uri);
                    if let Some(path) = convert::path_of(&p.text_document.uri) {
                        self.disk_changes(&[path], &mut publish);
                    }
                }
            }
            DidChangeWatchedFiles::METHOD => {
                if let Some(p) = parse::<DidChangeWatchedFilesParams>(n) {
                    let paths: Vec<PathBuf> = p
                        .changes
                        .iter()
                        .filter_map(|c| convert::path_of(&c.uri))
                        .collect();
                    self.disk_changes(&paths, &mut publish);
                }
            }
            // A held workspace pull: answered with `RequestCancelled`. Other requests are
            // answered in order, at once: nothing to cancel.
            lsp_types::notification::Cancel::METHOD => {
                if let Some(p) = parse::<lsp_types::CancelParams>(n) {
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
            // `$/setTrace` and anything unknown: ignored, as notifications must be.
            _ => {}
        }
        self.publish_all(published);
    }

    fn disk_changes(&mut self, paths: &[PathBuf], publish: &mut dyn FnMut(PublishDiagnosticsParams)) {
        let ws = self.ws_mut();
        let mut config = false;
        for path in paths {
            config |= ws.disk_changed(path, publish);
        }
        if config {
            ws.reload_config(publish);
        }
        self.schedule(Duration::ZERO);
    }

    fn ws_mut(&mut self) -> &mut Workspace {
        self.ws.as_mut().expect("initialized")
    }
}

/// The answer to a request that needs the workspace before `initialize` made it.
fn not_initialized() -> (ErrorCode, String) {
    (
        ErrorCode::ServerNotInitialized,
        "the server is not initialized".to_string(),
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_and_bad_headers_skipped() {
        let input = b"Content-Length: 2\r\n\r\n{}X-Other: 1\r\n\r\ncontent-length: 3\r\n\r\n[1]";
        let mut r = &input[..];
        let mut resync = false;
        let mut frame = |r: &mut &[u8]| read_frame(r, &mut resync, MAX_MESSAGE);
        assert_eq!(frame(&mut r).ok().flatten().as_deref(), Some(&b"{}"[..]));
        assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))));
        assert_eq!(frame(&mut r).ok().flatten().as_deref(), Some(&b"[1]"[..]));
        assert!(matches!(frame(&mut r), Ok(None)));

        // A bad length leaves its body unread: the next message is found by its header,
        // even right after the body on the same line.
        for bad in [&b"Content-Length: abc"[..], b"Content-Length: -5", b"X-Other: 1"] {
            let input = [bad, b"\r\n\r\n{\"a\":1}cOnTeNt-LeNgTh: 2\r\n\r\n{}"].concat();
            let mut r = &input[..];
            assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))));
            assert_eq!(frame(&mut r).ok().flatten().as_deref(), Some(&b"{}"[..]));
            assert!(matches!(frame(&mut r), Ok(None)));
        }
        // Garbage to the end of input is the end of input.
        let mut r = &b"Content-Length: x\r\n\r\ncontent-len"[..];
        assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))));
        assert!(matches!(frame(&mut r), Ok(None)));
        // A body over the limit, or a length that does not fit, is refused without reading
        // (or waiting for) that much; the next message is found by its header.
        for huge in [
            "Content-Length: 18446744073709551615",
            "Content-Length: 99999999999999999999999",
            "Content-Length: 67108865",
        ] {
            let input = format!("{huge}\r\n\r\n{{\"a\":1}}Content-Length: 2\r\n\r\n{{}}");
            let mut r = input.as_bytes();
            assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))), "{huge}");
            assert_eq!(
                frame(&mut r).ok().flatten().as_deref(),
                Some(&b"{}"[..]),
                "{huge}"
            );
        }
        assert!(matches!(parse_body(b"{not json"), Incoming::Malformed(-32700, _)));
        assert!(matches!(parse_body(b"[1]"), Incoming::Malformed(-32600, _)));
    }
}
