//! Hover: on a finding, the rule's summary, the finding's help and a link to the rule's
//! page; on a key, what the kind's schema says about it (description, type, values); on
//! a VM size, its vCPUs, GPUs and series and, with a workspace snapshot, the quota it
//! counts against (`facts::workspace::vm_size_hover`).

use std::collections::HashSet;
use std::path::Path;

use super::analysis::{Analysis, Checked};
use super::cursor::{key_at, map_of_value, value_at};
use crate::document::Value;
use crate::source::Span;

/// What a hover shows: Markdown, and the span it is about.
#[derive(Debug, PartialEq)]
pub struct HoverText {
    pub markdown: String,
    pub span: Span,
}

/// The hover at byte `offset` of the open document `path` (checked).
pub fn hover(analysis: &mut Analysis, path: &Path, offset: u32) -> Option<HoverText> {
    let size = analysis.checked(path).and_then(|c| size_at(c, offset));
    let size_text = size.and_then(|(span, name, location, low)| {
        let base = analysis.fact_base(path);
        let text = crate::facts::workspace::vm_size_hover(&base, &name, location.as_deref(), low)?;
        Some((span, text))
    });
    let checked = analysis.checked(path)?;
    let mut sections: Vec<String> = Vec::new();
    let mut span = None;
    for d in &checked.diagnostics {
        if !(d.span.start <= offset && offset <= d.span.end) {
            continue;
        }
        let mut s = format!("**{}** `{}` ({})", d.code, d.name, d.severity);
        let rule = checked
            .registry
            .get(d.code)
            .or_else(|| crate::registry::builtin().get(d.code));
        if let Some(rule) = rule {
            s.push_str(&format!("\n\n{}", rule.summary.trim()));
        }
        s.push_str(&format!("\n\n{}", d.message));
        if let Some(help) = &d.help {
            s.push_str(&format!("\n\n*Help:* {help}"));
        }
        if let Some(url) = super::docs_url(d.code) {
            s.push_str(&format!("\n\n[{} documentation]({url})", d.code));
        }
        sections.push(s);
        span.get_or_insert(d.span);
    }
    if let Some((key, text)) = key_doc(checked, offset) {
        sections.push(text);
        span.get_or_insert(key);
    }
    if let Some((value, text)) = size_text {
        sections.push(text);
        span.get_or_insert(value);
    }
    Some(HoverText {
        markdown: (!sections.is_empty()).then(|| sections.join("\n\n---\n\n"))?,
        span: span?,
    })
}

/// The VM size under `offset` (a `size:` or `instance_type:` value): its span, the name,
/// the `location:` beside it and whether its `tier:` is low priority.
fn size_at(checked: &Checked, offset: u32) -> Option<(Span, String, Option<String>, bool)> {
    let (doc, _) = super::cursor::doc_at(checked, offset)?;
    let (key, node, value) = value_at(doc, offset)?;
    if !matches!(key.as_str(), "size" | "instance_type") {
        return None;
    }
    let map = map_of_value(doc, node)?;
    let text = |k: &str| match doc.get(map, k).map(|n| doc.value(n)) {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    let low = text("tier").is_some_and(|t| t.eq_ignore_ascii_case("low_priority"));
    Some((doc.node(node).span, value.to_string(), text("location"), low))
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
