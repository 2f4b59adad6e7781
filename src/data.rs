//! Reading amlint's own YAML data files (rule files, the kinds table, reference tables)
//! into typed structs, with errors that point at the offending line of the data file.

use serde::de::DeserializeOwned;

use std::sync::Arc;

use crate::document::{Document, Target};
use crate::limits::Limits;
use crate::load::{self, Format};
use crate::source::Pointer;
use crate::source::{Position, SourceFile, Span};

/// A data file that does not parse or does not have the expected shape.
#[derive(Debug, Clone)]
pub struct DataError {
    pub path: String,
    pub position: Option<Position>,
    pub message: String,
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}:{}:{}: {}", self.path, p.line, p.column, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for DataError {}

/// Parses a data file (one document) into its tree: YAML, or the JSON `build.rs` makes
/// of amlint's own YAML files (`path` still names the YAML file).
pub fn parse(path: &str, text: &str, format: Format) -> Result<(Arc<SourceFile>, Document), DataError> {
    let loaded = load::parse_text(path, text.to_string(), format, &Limits::default());
    if let Some(d) = loaded.diagnostics.first() {
        return Err(DataError {
            path: path.to_string(),
            position: Some(loaded.source.position(d.span.start)),
            message: d.message.clone(),
        });
    }
    let source = loaded.source;
    match loaded.documents.into_iter().next() {
        Some(doc) if doc.root.is_some() => Ok((source, doc)),
        _ => Err(DataError {
            path: path.to_string(),
            position: None,
            message: "the file is empty".to_string(),
        }),
    }
}

/// An error at a span of a data file.
pub fn error_at(path: &str, source: &SourceFile, span: Span, message: impl Into<String>) -> DataError {
    DataError {
        path: path.to_string(),
        position: Some(source.position(span.start)),
        message: message.into(),
    }
}

/// Deserialises a parsed data file into `T`; errors point at the offending node.
pub fn from_document<T: DeserializeOwned>(
    path: &str,
    source: &SourceFile,
    doc: &Document,
) -> Result<T, DataError> {
    serde_path_to_error::deserialize(doc.to_json()).map_err(|err| {
        let pointer = Pointer::from_segments(err.path().iter().filter_map(|seg| match seg {
            serde_path_to_error::Segment::Map { key } => Some(key.clone()),
            serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
            _ => None,
        }));
        let span = doc.span_of(&pointer, Target::Value);
        let message = if pointer.is_empty() {
            err.inner().to_string()
        } else {
            format!("{}: {}", pointer, err.inner())
        };
        error_at(path, source, span, message)
    })
}

/// Deserialises one of amlint's own data files as `build.rs` embeds it (JSON) into `T`,
/// without building a tree: the test suite checks the embedded files, so an error here
/// is an internal one, reported with the JSON path of the offending value.
pub fn from_embedded<T: DeserializeOwned>(path: &str, json: &str) -> Result<T, DataError> {
    let mut de = serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(&mut de).map_err(|err| DataError {
        path: path.to_string(),
        position: None,
        message: format!("{}: {}", err.path(), err.inner()),
    })
}
