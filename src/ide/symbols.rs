//! Document symbols (top-level keys, a pipeline's `jobs:` steps, `inputs`/`outputs`
//! entries) and folding ranges (mappings, sequences and block scalars spanning lines):
//! views of the document tree, lines through `SourceFile`.

use super::analysis::Checked;
use crate::document::{Document, NodeId, Style, Value};
use crate::source::{SourceFile, Span};

/// What a symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A mapping.
    Object,
    /// A sequence.
    Array,
    /// A scalar entry.
    Property,
    /// A pipeline step.
    Step,
    /// An entry of `inputs` or `outputs`.
    Port,
}

/// A named entry of a document: its key, what its value says (a scalar's text), its
/// whole span (key to the value's end), its key's span and what it holds.
#[derive(Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub detail: Option<String>,
    pub kind: SymbolKind,
    pub span: Span,
    pub key: Span,
    pub children: Vec<Symbol>,
}

/// A fold: its first and last lines (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    pub start_line: u32,
    pub end_line: u32,
}

/// The documents of the file that are Azure ML configurations (checked as a kind).
fn azure_ml_documents(checked: &Checked) -> impl Iterator<Item = &Document> {
    let prepared = &checked.prepared;
    prepared
        .loaded
        .documents
        .iter()
        .zip(&prepared.classes)
        .filter(|(_, class)| class.is_checked())
        .map(|(doc, _)| doc)
}

/// The symbols of every Azure ML document of the file.
pub fn document_symbols(checked: &Checked) -> Vec<Symbol> {
    let mut out = Vec::new();
    for doc in azure_ml_documents(checked) {
        let Some(root) = doc.root else {
            continue;
        };
        for e in doc.entries(root).iter().filter(|e| !e.merged) {
            let key = doc.key_string(e.key);
            let children: Vec<Symbol> = match key.as_ref() {
                "jobs" => doc
                    .entries(e.value)
                    .iter()
                    .filter(|s| !s.merged)
                    .map(|s| {
                        let io = io_symbols(doc, s.value);
                        symbol(doc, s.key, s.value, SymbolKind::Step, io)
                    })
                    .collect(),
                "inputs" | "outputs" => entry_symbols(doc, e.value),
                _ => Vec::new(),
            };
            let kind = match doc.value(e.value) {
                Value::Map(_) => SymbolKind::Object,
                Value::Seq(_) => SymbolKind::Array,
                _ => SymbolKind::Property,
            };
            out.push(symbol(doc, e.key, e.value, kind, children));
        }
    }
    out
}

/// The `inputs`/`outputs` of a step, each with its entries.
fn io_symbols(doc: &Document, step: NodeId) -> Vec<Symbol> {
    doc.entries(step)
        .iter()
        .filter(|e| !e.merged)
        .filter(|e| matches!(doc.key_string(e.key).as_ref(), "inputs" | "outputs"))
        .map(|e| {
            let children = entry_symbols(doc, e.value);
            symbol(doc, e.key, e.value, SymbolKind::Object, children)
        })
        .collect()
}

fn entry_symbols(doc: &Document, map: NodeId) -> Vec<Symbol> {
    doc.entries(map)
        .iter()
        .filter(|e| !e.merged)
        .map(|e| symbol(doc, e.key, e.value, SymbolKind::Port, Vec::new()))
        .collect()
}

fn symbol(doc: &Document, key: NodeId, value: NodeId, kind: SymbolKind, children: Vec<Symbol>) -> Symbol {
    let key_span = doc.node(key).span;
    let value_span = doc.node(value).span;
    let whole = Span::new(key_span.start, key_span.end.max(value_span.end));
    let detail = match doc.value(value) {
        Value::Str(s) => Some(crate::escape::control(s).into_owned()),
        Value::Map(_) | Value::Seq(_) | Value::Alias(_) | Value::Null => None,
        other => Some(crate::document::yaml11::python_str(other)),
    };
    Symbol {
        name: {
            let name = crate::escape::control(&doc.key_string(key)).into_owned();
            if name.is_empty() { "\"\"".to_string() } else { name }
        },
        detail,
        kind,
        span: whole,
        key: key_span,
        children,
    }
}

/// The line a span's last character is on.
fn last_line(source: &SourceFile, span: Span) -> u32 {
    let end = if span.end > span.start {
        span.end - 1
    } else {
        span.end
    };
    source.position(end).line - 1
}

/// A fold for every mapping entry whose value spans lines (from the key's line), every
/// sequence item that does, and every flow collection (from its bracket).
pub fn folding_ranges(checked: &Checked) -> Vec<Fold> {
    let source = &checked.source;
    let mut folds: Vec<(u32, u32)> = Vec::new();
    for doc in azure_ml_documents(checked) {
        for node in &doc.nodes {
            match &node.value {
                Value::Map(entries) => {
                    for e in entries.iter().filter(|e| !e.merged) {
                        let value = doc.node(e.value);
                        if matches!(value.value, Value::Alias(_)) {
                            continue;
                        }
                        let start = source.position(doc.node(e.key).span.start).line - 1;
                        folds.push((start, last_line(source, value.span)));
                    }
                }
                Value::Seq(items) => {
                    for &item in items {
                        let n = doc.node(item);
                        if matches!(n.value, Value::Map(_) | Value::Seq(_)) && n.style != Style::Flow {
                            let start = source.position(n.span.start).line - 1;
                            folds.push((start, last_line(source, n.span)));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    folds.retain(|(s, e)| e > s);
    // One fold per start line: the largest.
    folds.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    folds.dedup_by_key(|f| f.0);
    folds
        .into_iter()
        .map(|(start_line, end_line)| Fold { start_line, end_line })
        .collect()
}
