//! Hover: on a finding, the rule's summary, the finding's help and a link to the rule's
//! page; on a key, what the kind's schema says about it (description, type, values).

use std::collections::HashSet;

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use super::convert;
use super::workspace::Checked;
use crate::document::{Document, Value};
use crate::source::Span;

pub fn hover(checked: &Checked, position: Position) -> Option<Hover> {
    let source = &checked.source;
    let offset = convert::offset(source, position);
    let mut sections: Vec<String> = Vec::new();
    let mut range = None;
    for d in &checked.diagnostics {
        if !(d.span.start <= offset && offset <= d.span.end) {
            continue;
        }
        let mut s = format!("**{}** `{}` ({})", d.code, d.name, d.severity);
        if let Some(rule) = convert::rule(&checked.registry, d.code) {
            s.push_str(&format!("\n\n{}", rule.summary.trim()));
        }
        s.push_str(&format!("\n\n{}", d.message));
        if let Some(help) = &d.help {
            s.push_str(&format!("\n\n*Help:* {help}"));
        }
        if let Some(url) = convert::docs_url(d.code) {
            s.push_str(&format!("\n\n[{} documentation]({url})", d.code));
        }
        sections.push(s);
        range.get_or_insert(convert::range(source, d.span));
    }
    if let Some((key, text)) = key_doc(checked, offset) {
        sections.push(text);
        range.get_or_insert(convert::range(source, key));
    }
    if sections.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range,
    })
}

/// The key under `offset` and what the schema says about it.
fn key_doc(checked: &Checked, offset: u32) -> Option<(Span, String)> {
    let loaded = &checked.prepared.loaded;
    let (doc, class) = loaded
        .documents
        .iter()
        .zip(&checked.prepared.classes)
        .find(|(d, _)| d.span.start <= offset && offset <= d.span.end)?;
    let kind = class.kind?;
    let key = key_at(doc, offset)?;
    let span = doc.node(key).span;
    let pointer = doc.pointers_for(&HashSet::from([span])).remove(&span)?;
    let field = crate::schema::describe::describe(&kind.id, &pointer)?;
    let name = pointer.last().unwrap_or_default();
    let mut text = format!("**`{name}`**");
    if !field.types.is_empty() {
        text.push_str(&format!(" — {}", field.types.join(" | ")));
    }
    text.push_str(&format!(" (`{}`)", kind.id));
    if let Some(d) = &field.description {
        text.push_str(&format!("\n\n{d}"));
    }
    if !field.values.is_empty() {
        let values: Vec<String> = field.values.iter().map(|v| format!("`{v}`")).collect();
        text.push_str(&format!("\n\nOne of: {}", values.join(", ")));
    }
    Some((span, text))
}

/// The mapping key whose text holds `offset`.
fn key_at(doc: &Document, offset: u32) -> Option<crate::document::NodeId> {
    doc.nodes.iter().find_map(|n| match &n.value {
        Value::Map(entries) => entries.iter().filter(|e| !e.merged).find_map(|e| {
            let s = doc.node(e.key).span;
            (s.start <= offset && offset < s.end.max(s.start + 1)).then_some(e.key)
        }),
        _ => None,
    })
}
