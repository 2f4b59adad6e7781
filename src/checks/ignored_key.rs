//! AML107 ignored-key: a key the consuming SDK silently drops or does not read — an
//! output-only key of a v2 entity (`id`, `status`, `creation_context`, ...: the SDK's
//! dump-only fields), an SDK v1 deployment/inference configuration key that applies to
//! another `computeType` or setting, a key SDK v1 does not know at all (it reads known
//! keys by name and ignores the rest), or a look-alike of a known key where the v2 SDK
//! takes unknown keys unchecked (a component's top level, a pipeline step). The schemas
//! say which (`x-amlint-read-only`, `x-amlint-ignored`, `x-amlint-unknown-keys`, walked by
//! `crate::schema::forms`); this check reports them on the key, with "did you mean" and
//! a rename fix for a look-alike.

use std::collections::HashSet;

use super::context::DocContext;
use crate::diagnostic::{Applicability, Change, Diagnostic, Edit, Findings, Fix, codes};
use crate::document::{BlockEnds, Style, Target, Value, after_blank_lines};
use crate::schema::forms::Unused;
use crate::source::{Pointer, Span, yaml_break_len, yaml_line_end};

pub const CODE: &str = codes::AML107.code;

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let (Some(kind), Some(annotations)) = (cx.class.kind, cx.annotations()) else {
        return;
    };
    let blocks = std::cell::OnceCell::new();
    for unused in &annotations.unused {
        let Some(key) = unused.pointer.last() else {
            continue;
        };
        // `$schema` is for editors: the SDK drops it, and that is what it is for.
        if key == "$schema" {
            continue;
        }
        let span = cx.doc.span_of(&unused.pointer, Target::Key);
        let place = place(&unused.pointer, &kind.title);
        let (message, help) = match &unused.why {
            Unused::ReadOnly { note } => (
                match note {
                    Some(note) => format!(
                        "`{key}` is ignored {place}: {}",
                        lower_first(note.trim_end_matches('.'))
                    ),
                    None => format!(
                        "`{key}` is read-only {place}: Azure ML sets it, and the CLI drops the value written here without a warning"
                    ),
                },
                format!(
                    "Remove `{key}`. Files exported with `az ml ... show` carry read-only keys; strip them before committing, since the value written here never reaches Azure ML and misleads readers."
                ),
            ),
            Unused::Ignored(why) => (
                format!("`{key}` is ignored {place}: {why}"),
                format!(
                    "Remove `{key}`, or move the setting to the configuration that reads it; as written, the SDK deploys without it and says nothing."
                ),
            ),
            Unused::Unknown {
                policy,
                suggestion,
                unambiguous,
                belongs_under,
            } => {
                let who = if policy == "ignore" {
                    "SDK v1 reads the keys it knows by name and ignores any other"
                } else {
                    "the Azure ML CLI accepts unknown keys here without a check, so a misspelt key is silently dropped"
                };
                let mut message = format!("`{key}` is not a key {place}: {who}");
                let help = match (suggestion, belongs_under) {
                    (Some(s), _) => {
                        message.push_str(&format!("; did you mean `{s}`?"));
                        format!("Rename it to `{s}`; as written, the setting is lost.")
                    }
                    (None, Some(parent)) => {
                        message.push_str(&format!("; it is a key of `{parent}`"));
                        format!("Move `{key}` under `{parent}`; as written, the setting is lost.")
                    }
                    (None, None) => {
                        format!("Remove `{key}`, or correct its name; as written, it has no effect.")
                    }
                };
                let mut d = Diagnostic::new(codes::AML107, span, message)
                    .with_pointer(unused.pointer.clone())
                    .with_help(help);
                if let Some(fix) = suggestion
                    .as_deref()
                    .and_then(|s| rename_fix(cx, &unused.pointer, key, s, *unambiguous))
                {
                    d = d.with_fix(fix);
                }
                out.push(d);
                continue;
            }
        };
        let mut d = Diagnostic::new(codes::AML107, span, message)
            .with_pointer(unused.pointer.clone())
            .with_help(help);
        // Read-only and ignored keys never reach Azure ML: removing one keeps what the
        // SDK sees.
        let blocks = blocks.get_or_init(|| BlockEnds::new(&cx.source.text, [cx.doc]));
        if let Some(fix) = remove_fix(cx, blocks, &unused.pointer, key) {
            d = d.with_fix(fix);
        }
        out.push(d);
    }
}

/// Removes the entry at `pointer`: in block style its whole lines (key, value, a comment
/// after it, up to the line break YAML ends the line at: a NEL, LS or PS too), in JSON
/// and flow style with the comma that separates it. After a block scalar that keeps its
/// final line breaks (`|+`), the blank lines that follow go too: they would join its
/// value. `None` when the entry is its mapping's only one (an emptied mapping reads as
/// `null`), when its line holds more than the entry, when it holds an anchor (an alias
/// elsewhere would lose its target), or when the text around it is not laid out as
/// expected. Also the fix of a key the SDK refuses beside another (`checks::schema`).
pub(super) fn remove_fix(
    cx: &DocContext<'_>,
    blocks: &BlockEnds,
    pointer: &Pointer,
    key: &str,
) -> Option<Fix> {
    // Not an entry a `<<` merge key brings in, nor one inside a node an alias repeats:
    // removing it would edit the mapping it comes from.
    // A key written twice (AML002) is removed where it is written each time: removing
    // only the last would bring the first back.
    let written = cx.doc.written_keys(pointer)?;
    let mut parent = pointer.clone();
    parent.pop();
    let parent_id = cx.doc.lookup_own(&parent)?.value;
    let Value::Map(entries) = cx.doc.value(parent_id) else {
        return None;
    };
    if cx.doc.kept_entries(parent_id).len() < 2 {
        return None;
    }
    let style = cx.doc.node(parent_id).style;
    if written.len() > 1 && style != Style::Block {
        return None;
    }
    let mut edits = Vec::with_capacity(written.len());
    for e in entries.iter().filter(|e| !e.merged && written.contains(&e.key)) {
        let key_span = cx.doc.node(e.key).span;
        let value_span = cx.doc.node(e.value).span;
        let span = entry_removal(cx.source.text.as_str(), blocks, style, key_span, value_span)?;
        edits.push(Edit {
            span,
            replacement: String::new(),
        });
    }
    let fix = Fix::new(Applicability::Safe, format!("Remove `{key}`"), edits);
    Some(fix.changing(Change::Remove { at: pointer.clone() }))
}

/// The text that removing one entry of a mapping of `style` removes: in block style its
/// whole lines, in flow style the entry and a comma beside it.
fn entry_removal(
    text: &str,
    blocks: &BlockEnds,
    style: Style,
    key_span: Span,
    value_span: Span,
) -> Option<Span> {
    let (start, end) = (key_span.start as usize, value_span.end.max(key_span.end) as usize);
    if end > text.len() || text[start..end].contains('&') {
        return None;
    }
    let span = match style {
        Style::Block => {
            let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
            if !text[line_start..start].bytes().all(|b| b == b' ') {
                return None;
            }
            let yaml_end = yaml_line_end(text, end);
            let rest = text[end..yaml_end].trim_matches([' ', '\t']);
            if !(rest.is_empty() || rest.starts_with('#')) {
                return None;
            }
            let mut line_end = yaml_end + yaml_break_len(text, yaml_end);
            if blocks.keeps_before(text, line_start) {
                line_end = after_blank_lines(text, line_end);
            }
            Span::new(line_start as u32, line_end as u32)
        }
        Style::Flow => {
            let after = end + text[end..].len() - text[end..].trim_start().len();
            if text[after..].starts_with(',') {
                let next = after + 1;
                let next = next + text[next..].len() - text[next..].trim_start().len();
                Span::new(start as u32, next as u32)
            } else {
                let before = text[..start].trim_end();
                if !before.ends_with(',') {
                    return None;
                }
                Span::new((before.len() - 1) as u32, end as u32)
            }
        }
        _ => return None,
    };
    Some(span)
}

/// Renames the key at `pointer` to `to`, in the key's own quoting (a plain YAML key, a
/// double-quoted YAML or JSON key); `None` for other styles.
/// Safe when the rename is an unambiguous one-edit typo, else unsafe (a guess).
fn rename_fix(cx: &DocContext<'_>, pointer: &Pointer, key: &str, to: &str, unambiguous: bool) -> Option<Fix> {
    // Every place the key is written (a repeated key renamed only where the CLI reads
    // it would bring the earlier value back).
    let mut edits = Vec::new();
    for k in cx.doc.written_keys(pointer)? {
        let node = cx.doc.node(k);
        let replacement = match node.style {
            Style::Plain => to.to_string(),
            Style::DoubleQuoted | Style::Json => serde_json::to_string(to).ok()?,
            _ => return None,
        };
        edits.push(Edit {
            span: node.span,
            replacement,
        });
    }
    let applicability = if unambiguous {
        Applicability::Safe
    } else {
        Applicability::Unsafe
    };
    let fix = Fix::new(applicability, format!("Rename `{key}` to `{to}`"), edits);
    Some(fix.changing(Change::Rename {
        at: pointer.clone(),
        to: to.to_string(),
    }))
}

/// "in a managed online deployment" for a top-level key, "under `environment`" below it.
fn place(pointer: &Pointer, title: &str) -> String {
    let mut parent = pointer.clone();
    parent.pop();
    if parent.is_empty() {
        let vowel = title.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
        let article = if vowel || title.starts_with("SDK") || title.starts_with("ML") {
            "an"
        } else {
            "a"
        };
        format!("in {article} {title}")
    } else {
        format!("under `{}`", parent.segments().collect::<Vec<_>>().join("."))
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// An AML107 finding yields to any other finding on the same key: a rule that says what
/// the ignored key fails to do (`AML301`: GPUs on ACI) says more than "ignored".
pub fn yield_to_specific(out: &mut Findings, first: usize) {
    let kept = out.kept_mut();
    let mut tail = kept.split_off(first.min(kept.len()));
    let others: HashSet<Pointer> = tail
        .iter()
        .filter(|d| d.code != CODE)
        .filter_map(|d| d.pointer.clone())
        .collect();
    if !others.is_empty() {
        tail.retain(|d| d.code != CODE || d.pointer.as_ref().is_none_or(|p| !others.contains(p)));
    }
    kept.append(&mut tail);
}
