//! The editor features without the protocol: diagnostics, hover, completion,
//! go-to-definition, references, symbols, folding and code actions as plain functions
//! over one analysis state ([`Analysis`]). Files are paths, places are byte spans into a
//! [`SourceFile`], edits are [`Edit`]s; nothing here knows URLs, UTF-16 positions or
//! JSON-RPC (`lsp/` does, in `lsp/convert.rs`), and nothing does I/O for a caller.
//!
//! - [`analysis`]: open documents, the workspace's files and index, the checks (through
//!   the CLI's pipeline: `prepare`, `index_of`, `FactBases`, `check_and_filter`).
//! - [`cursor`]: what is under a byte offset (the document, the key, the value).
//! - [`hover`], [`completion`], [`navigate`] (definition, references; [`bindings`] for
//!   `${{...}}`), [`symbols`] (symbols, folding), [`actions`] (fixes, suppressions, fix all).

pub mod actions;
pub mod analysis;
mod bindings;
pub mod completion;
pub mod cursor;
pub mod hover;
pub mod navigate;
pub mod symbols;

use std::path::PathBuf;
use std::sync::Arc;

pub use crate::diagnostic::{Diagnostic, Edit, Severity};
pub use crate::source::{SourceFile, Span};
pub use analysis::{Analysis, Checked, FileDiagnostics, FileProblem};

/// A place in a file: its path, its text (to turn the span into positions), the span.
#[derive(Clone, Debug)]
pub struct FileSpan {
    pub path: PathBuf,
    pub source: Arc<SourceFile>,
    pub span: Span,
}

impl PartialEq for FileSpan {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.span == other.span
    }
}

impl FileSpan {
    /// The start of a file (a local path's target: no text read).
    pub fn start_of(path: PathBuf) -> Self {
        let source = SourceFile::new(path.to_string_lossy(), String::new());
        Self {
            path,
            source,
            span: Span::at(0),
        }
    }
}

/// What a completion item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A key of the schema.
    Property,
    /// A value the schema enumerates.
    EnumMember,
    /// A VM size, a boolean.
    Value,
    /// A `$schema` URL.
    File,
    /// A new file's skeleton.
    Snippet,
    /// A name the workspace defines.
    Reference,
    /// An input or output a binding may name.
    Field,
    /// A pipeline step a binding may name.
    Module,
    /// A word of a binding (`parent`, `jobs`, `inputs`...).
    Keyword,
}

/// One completion: what it shows and the edit it makes.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    /// Markdown.
    pub documentation: Option<String>,
    /// Replaces the word being typed.
    pub edit: Edit,
    pub filter_text: Option<String>,
    /// The edit's text is a snippet (`$1`, `$0` tab stops; `\$` a dollar).
    pub snippet: bool,
    /// A retired VM series.
    pub deprecated: bool,
}

impl Completion {
    pub(crate) fn new(label: String, kind: CompletionKind, span: Span, insert: String) -> Self {
        Self {
            label,
            kind,
            detail: None,
            documentation: None,
            edit: Edit {
                span,
                replacement: insert,
            },
            filter_text: None,
            snippet: false,
            deprecated: false,
        }
    }
}

/// A path as the rest of amlint compares paths (`.` and `..` resolved, no file system).
pub fn normalize(path: &std::path::Path) -> PathBuf {
    crate::config::normalize(path)
}

/// The published documentation page of a built-in rule (user rules have none).
pub fn docs_url(code: &str) -> Option<String> {
    crate::registry::builtin().get(code).map(|r| r.docs_url())
}
