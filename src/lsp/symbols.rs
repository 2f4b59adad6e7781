//! Document symbols (top-level keys, a pipeline's `jobs:` steps, `inputs`/`outputs`
//! entries) and folding ranges (mappings, sequences and block scalars spanning lines):
//! views of the document tree, positions through `SourceFile`.

use lsp_types::{DocumentSymbol, FoldingRange, SymbolKind};

use super::convert;
use super::workspace::Checked;
use crate::document::{Document, NodeId, Style, Value};
use crate::source::{SourceFile, Span};

/// Whether a file is one the server answers for: an Azure ML configuration amlint checks.
pub fn is_azure_ml(checked: &Checked) -> bool {
    checked.prepared.classes.iter().any(|c| c.is_checked())
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
pub fn document_symbols(checked: &Checked) -> Vec<DocumentSymbol> {
    let source = &checked.source;
    let mut out = Vec::new();
    for doc in azure_ml_documents(checked) {
        let Some(root) = doc.root else {
            continue;
        };
        for e in doc.entries(root).iter().filter(|e| !e.merged) {
            let key = doc.key_string(e.key);
            let children: Vec<DocumentSymbol> = match key.as_ref() {
                "jobs" => doc
                    .entries(e.value)
                    .iter()
                    .filter(|s| !s.merged)
                    .map(|s| {
                        let io = io_symbols(source, doc, s.value);
                        symbol(source, doc, s.key, s.value, SymbolKind::FUNCTION, io)
                    })
                    .collect(),
                "inputs" | "outputs" => entry_symbols(source, doc, e.value),
                _ => Vec::new(),
            };
            let kind = match doc.value(e.value) {
                Value::Map(_) => SymbolKind::OBJECT,
                Value::Seq(_) => SymbolKind::ARRAY,
                _ => SymbolKind::PROPERTY,
            };
            out.push(symbol(source, doc, e.key, e.value, kind, children));
        }
    }
    out
}

/// The `inputs`/`outputs` of a step, each with its entries.
fn io_symbols(source: &SourceFile, doc: &Document, step: NodeId) -> Vec<DocumentSymbol> {
    doc.entries(step)
        .iter()
        .filter(|e| !e.merged)
        .filter(|e| matches!(doc.key_string(e.key).as_ref(), "inputs" | "outputs"))
        .map(|e| {
            let children = entry_symbols(source, doc, e.value);
            symbol(source, doc, e.key, e.value, SymbolKind::OBJECT, children)
        })
        .collect()
}

fn entry_symbols(source: &SourceFile, doc: &Document, map: NodeId) -> Vec<DocumentSymbol> {
    doc.entries(map)
        .iter()
        .filter(|e| !e.merged)
        .map(|e| symbol(source, doc, e.key, e.value, SymbolKind::VARIABLE, Vec::new()))
        .collect()
}

fn symbol(
    source: &SourceFile,
    doc: &Document,
    key: NodeId,
    value: NodeId,
    kind: SymbolKind,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    let key_span = doc.node(key).span;
    let value_span = doc.node(value).span;
    let whole = Span::new(key_span.start, key_span.end.max(value_span.end));
    let detail = match doc.value(value) {
        Value::Str(s) => Some(crate::escape::control(s).into_owned()),
        Value::Map(_) | Value::Seq(_) | Value::Alias(_) | Value::Null => None,
        other => Some(crate::document::yaml11::python_str(other)),
    };
    #[allow(deprecated)]
    DocumentSymbol {
        name: {
            let name = crate::escape::control(&doc.key_string(key)).into_owned();
            if name.is_empty() { "\"\"".to_string() } else { name }
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: convert::range(source, whole),
        selection_range: convert::range(source, key_span),
        children: (!children.is_empty()).then_some(children),
    }
}

/// The line a span's last character is on.
fn last_line(source: &SourceFile, span: Span) -> u32 {
    let end = if span.end > span.start {
        span.end - 1
    } else {
        span.end
    };
    source.utf16_position(end).line
}

/// A fold for every mapping entry whose value spans lines (from the key's line), every
/// sequence item that does, and every flow collection (from its bracket).
pub fn folding_ranges(checked: &Checked) -> Vec<FoldingRange> {
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
                        let start = source.utf16_position(doc.node(e.key).span.start).line;
                        folds.push((start, last_line(source, value.span)));
                    }
                }
                Value::Seq(items) => {
                    for &item in items {
                        let n = doc.node(item);
                        if matches!(n.value, Value::Map(_) | Value::Seq(_)) && n.style != Style::Flow {
                            let start = source.utf16_position(n.span.start).line;
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
        .map(|(start, end)| FoldingRange {
            start_line: start,
            start_character: None,
            end_line: end,
            end_character: None,
            kind: None,
            collapsed_text: None,
        })
        .collect()
}
