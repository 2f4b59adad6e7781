//! What is under a byte offset of a checked file: the Azure ML document around it, the
//! mapping key or string value holding it. Shared by hover, completion and navigation.

use super::analysis::Checked;
use crate::document::{Document, NodeId, Value};

/// A mapping entry whose string value holds `offset`: (key, value node, the string).
pub fn value_at(doc: &Document, offset: u32) -> Option<(String, NodeId, &str)> {
    doc.nodes.iter().find_map(|n| match &n.value {
        Value::Map(entries) => entries.iter().filter(|e| !e.merged).find_map(|e| {
            let node = doc.node(e.value);
            let s = node.span;
            match &node.value {
                Value::Str(v) if s.start <= offset && offset <= s.end => {
                    Some((doc.key_string(e.key).into_owned(), e.value, &**v))
                }
                _ => None,
            }
        }),
        _ => None,
    })
}

/// The mapping holding the entry whose value is `value`.
pub fn map_of_value(doc: &Document, value: NodeId) -> Option<NodeId> {
    doc.nodes.iter().enumerate().find_map(|(i, n)| match &n.value {
        Value::Map(entries) if entries.iter().any(|e| e.value == value) => Some(NodeId(i as u32)),
        _ => None,
    })
}

/// The mapping key whose text holds `offset`.
pub fn key_at(doc: &Document, offset: u32) -> Option<NodeId> {
    doc.nodes.iter().find_map(|n| match &n.value {
        Value::Map(entries) => entries.iter().filter(|e| !e.merged).find_map(|e| {
            let s = doc.node(e.key).span;
            (s.start <= offset && offset < s.end.max(s.start + 1)).then_some(e.key)
        }),
        _ => None,
    })
}

/// The Azure ML document of a checked file around `offset`, with its kind.
pub fn doc_at(checked: &Checked, offset: u32) -> Option<(&Document, &'static str)> {
    let p = &checked.prepared;
    p.loaded
        .documents
        .iter()
        .zip(&p.classes)
        .filter(|(d, c)| c.is_checked() && d.span.start <= offset && offset <= d.span.end)
        .find_map(|(d, c)| Some((d, c.kind_id()?)))
}

/// Whether a file is one the editor features answer for: an Azure ML configuration
/// amlint checks.
pub fn is_azure_ml(checked: &Checked) -> bool {
    checked.prepared.classes.iter().any(|c| c.is_checked())
}
