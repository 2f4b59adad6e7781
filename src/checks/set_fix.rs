//! The fixes of declarative rules, from their rule file (`fix: [{set: {field, value}}]`):
//! the value at `field` replaced by `value`, or `field: value` added to its block mapping
//! when it is absent. Edits are minimal: the value's own text, or one new line indented
//! like the mapping's keys, in the file's line ending, after the mapping's last entry.

use super::context::DocContext;
use crate::diagnostic::{Change, Diagnostic, Edit, Fix, NewValue};
use crate::document::{BlockEnds, Style, Value};
use crate::load::Format;
use crate::registry::{FixDoc, SetField};
use crate::source::{Pointer, Span};

/// Adds to each finding of a declarative rule the fixes its rule file declares.
pub fn attach(cx: &DocContext<'_>, fixes: &[FixDoc], findings: &mut [Diagnostic]) {
    for doc in fixes {
        let Some(set) = &doc.set else {
            continue;
        };
        let Some(fix) = set_field(cx, set, doc.applicability) else {
            continue;
        };
        for d in findings.iter_mut() {
            if d.fixes().all(|f| f.edits != fix.edits) {
                match d.fix {
                    None => d.fix = Some(fix.clone()),
                    Some(_) => d.other_fixes.push(fix.clone()),
                }
            }
        }
    }
}

/// The fix writing `set.value` at `set.field` of the document, if one can be made: a
/// scalar there is replaced; an absent key is added to a block mapping of a YAML file.
pub fn set_field(
    cx: &DocContext<'_>,
    set: &SetField,
    applicability: crate::diagnostic::Applicability,
) -> Option<Fix> {
    let doc = cx.doc;
    let pointer = Pointer::from_segments(set.field.split('.').map(str::to_string));
    let title = format!("Set `{}: {}`", set.field, set.value);
    let change = Change::Set {
        at: pointer.clone(),
        to: NewValue::Source(set.value.clone()),
    };
    let mut parent = pointer.clone();
    let key = parent.last()?.to_string();
    parent.pop();
    // A key a `<<` merge key brings in is set by writing it in the mapping itself, which
    // then overrides it (the merged mapping stays as it is).
    let merged = doc
        .lookup_own(&parent)
        .and_then(|p| doc.get_entry(p.value, &key))
        .is_some_and(|e| e.merged);
    if doc.lookup(&pointer).is_some() && !merged {
        // A value an alias repeats is written elsewhere.
        let found = doc.lookup_own(&pointer)?;
        let node = doc.node(found.value);
        let writable = matches!(node.value, Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_))
            && matches!(node.style, Style::Plain | Style::SingleQuoted | Style::DoubleQuoted | Style::Json)
            && found.key.is_some()
            // An alias or a merged value is written elsewhere.
            && !node.span.is_empty();
        if !writable || cx.source.slice(node.span) == set.value {
            return None;
        }
        if node.style == Style::Json && cx.source.slice(node.span).starts_with('"') {
            return None;
        }
        return Some(Fix::set_value(
            applicability,
            title,
            node.span,
            set.value.clone(),
            pointer,
        ));
    }
    if Format::for_path(&cx.source.path) != Format::Yaml {
        return None;
    }
    let map = doc.lookup_own(&parent)?.value;
    if doc.node(map).style != Style::Block {
        return None;
    }
    let Value::Map(_) = doc.value(map) else {
        return None;
    };
    let entries = doc.entries(map);
    let first = entries.iter().find(|e| !e.merged)?;
    let last = entries.iter().rev().find(|e| !e.merged)?;
    let text = cx.source.text.as_str();
    // The keys' indentation: the first key must start its line after spaces only.
    let key_start = doc.node(first.key).span.start as usize;
    let line_start = text[..key_start].rfind('\n').map_or(0, |i| i + 1);
    // A byte-order mark before the first line is not indentation.
    let indent = text[line_start..key_start].trim_start_matches('\u{feff}');
    if !indent.bytes().all(|b| b == b' ') || !is_plain_key(&key) {
        return None;
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let end = doc.node(last.value).span.end.max(doc.node(last.key).span.end) as usize;
    let line = format!("{indent}{key}: {}", set.value);
    let edit = if BlockEnds::new(text, [doc]).changed_by_line_after(text, end) {
        // The mapping ends with a block scalar whose value a line after it would change
        // (`|+` keeps the blank lines after it; a `|` that ends the file gains a line
        // break): the new entry goes before the first one instead.
        Edit {
            span: Span::at((key_start - indent.len()) as u32),
            replacement: format!("{line}{eol}"),
        }
    } else if text[..end].ends_with('\n') {
        // A block scalar ends with its line break: the new entry starts the next line.
        Edit {
            span: Span::at(end as u32),
            replacement: format!("{line}{eol}"),
        }
    } else {
        // After the rest of the last entry's line (a comment stays where it is), which
        // ends at the first line break YAML reads (a NEL, LS or PS too).
        let at = crate::source::yaml_line_end(text, end);
        Edit {
            span: Span::at(at as u32),
            replacement: format!("{eol}{line}"),
        }
    };
    Some(Fix::new(applicability, title, vec![edit]).changing(change))
}

/// A key written plain in YAML without quoting or escaping.
fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'$'))
        && !key.starts_with('-')
}
