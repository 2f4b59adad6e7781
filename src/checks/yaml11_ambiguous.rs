//! AML003 yaml11-ambiguous-scalar: plain scalars that YAML 1.1 (the Azure ML CLI) and
//! YAML 1.2 read differently, and numbers that lose their text under version keys. The
//! loader records the candidates while resolving scalars; this turns them into findings.

use std::collections::{HashMap, HashSet};

use super::context::DocContext;
use crate::diagnostic::{Applicability, Diagnostic, Findings, Fix, codes};
use crate::document::yaml11::{NoteKind, describe, python_str, yaml_float_literal};
use crate::document::{NodeId, Value};
use crate::source::{Pointer, Span};

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    if cx.doc.yaml11_notes.is_empty() {
        return;
    }
    let dates = string_fields_holding_dates(cx);
    // Where each scalar is, for the fixes that change its value (found in one walk); a
    // scalar an alias repeats or a merge brings in has none of those fixes.
    let spans: HashSet<Span> = cx
        .doc
        .yaml11_notes
        .iter()
        .map(|n| cx.doc.node(n.node).span)
        .collect();
    let pointers = cx.doc.pointers_for(&spans);
    for note in &cx.doc.yaml11_notes {
        let node = cx.doc.node(note.node);
        let own = pointers
            .get(&node.span)
            .filter(|p| cx.doc.lookup_own(p).is_some_and(|f| f.value == note.node));
        // A fix that writes a value of another type: declared, and only for a scalar of
        // the document's own.
        let changing = |fix: Fix| -> Option<Fix> {
            let Fix {
                applicability,
                title,
                edits,
                ..
            } = fix;
            let edit = edits.into_iter().next()?;
            own.map(|at| Fix::set_value(applicability, title, edit.span, edit.replacement, at.clone()))
        };
        let raw = cx.source.slice(node.span);
        let quoted = format!("\"{}\"", raw.replace('\\', "\\\\").replace('"', "\\\""));
        if let Some((pointer, sdk)) = dates.get(&note.node) {
            // Not merely ambiguous: the CLI loads a date where its schema wants text.
            let field = pointer.last().unwrap_or_default();
            out.push(
                Diagnostic::new(
                    codes::AML102,
                    node.span,
                    format!(
                        "`{raw}` is a date to the Azure ML CLI (PyYAML reads an unquoted date as a datetime), but `{field}` does not take a date: the CLI rejects the file (\"{sdk}\")"
                    ),
                )
                .with_pointer(pointer.clone())
                .with_help(format!("Quote it: {quoted}."))
                // The CLI rejects the date; the text is the only reading it accepts.
                .with_fixes(changing(quote_fix(Applicability::Safe, raw, node.span, &quoted))),
            );
            continue;
        }
        let diag = match &note.kind {
            NoteKind::Differs { yaml11, yaml12 } => {
                let alternative = alternative(yaml11, yaml12);
                Diagnostic::new(
                    codes::AML003,
                    node.span,
                    format!(
                        "`{raw}` is read as {} by the Azure ML CLI (YAML 1.1), but as {} by YAML 1.2 tools and editors",
                        describe(yaml11),
                        describe(yaml12)
                    ),
                )
                .with_help(format!("Quote it ({quoted}) if you mean the text{alternative}."))
                .with_fixes(
                    differs_fixes(raw, node.span, &quoted, yaml11, yaml12)
                        .into_iter()
                        // The safe one writes the value the CLI reads: nothing changes.
                        .filter_map(|f| if f.is_safe() { Some(f) } else { changing(f) }),
                )
            }
            NoteKind::VersionText { key, value } => {
                version_text(raw, key, value, &quoted, node.span, &changing)
            }
        };
        out.push(diag);
    }
}

/// What to write instead of a scalar YAML 1.1 reads as `yaml11` and YAML 1.2 as `yaml12`,
/// to mean the value rather than the text: "; write `true` if you mean the boolean".
fn alternative(yaml11: &Value, yaml12: &Value) -> String {
    match yaml11 {
        Value::Bool(b) => format!("; write `{b}` if you mean the boolean"),
        Value::Int(_) | Value::BigInt(_) => {
            format!(
                "; write `{}` if you mean {}",
                python_str(yaml11),
                describe(yaml11)
            )
        }
        Value::Float(f) => {
            format!(
                "; write `{}` if you mean {}",
                yaml_float_literal(*f),
                describe(yaml11)
            )
        }
        Value::Str(_) => match yaml12 {
            Value::Float(f) => {
                format!("; write `{}` if you mean the number", yaml_float_literal(*f))
            }
            Value::Int(_) => format!("; write `{}` if you mean the number", python_str(yaml12)),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// `version: 1.10`: the number the CLI reads loses the version's text. Two fixes: the text
/// written, the version meant (unsafe: the CLI uses another one today); the text the CLI
/// reads, which keeps today's version (safe). `changing` declares a fix's change.
fn version_text(
    raw: &str,
    key: &str,
    value: &Value,
    quoted: &str,
    span: Span,
    changing: &dyn Fn(Fix) -> Option<Fix>,
) -> Diagnostic {
    Diagnostic::new(
        codes::AML003,
        span,
        format!(
            "`{key}: {raw}` is read as the number {}, so the version becomes \"{}\", not \"{raw}\"",
            python_str(value),
            python_str(value)
        ),
    )
    .with_help(format!("Quote it: `{key}: {quoted}`."))
    // The text written is the version meant (unsafe: the CLI uses another one
    // today); the text the CLI reads keeps today's version (safe).
    .with_fixes(changing(quote_fix(Applicability::Unsafe, raw, span, quoted)))
    .with_fixes(changing(Fix::replace(
        Applicability::Safe,
        format!(
            "Quote `{raw}` as the Azure ML CLI reads it: \"{}\"",
            python_str(value)
        ),
        span,
        format!("\"{}\"", python_str(value)),
    )))
}

fn quote_fix(applicability: Applicability, raw: &str, span: crate::source::Span, quoted: &str) -> Fix {
    Fix::replace(applicability, format!("Quote `{raw}`"), span, quoted)
}

/// A scalar YAML 1.1 and 1.2 read differently: written as the value the CLI reads
/// (safe: a literal both read alike), or as the YAML 1.2 reading (unsafe). Dates have no
/// YAML 1.2 literal; they get no fix.
fn differs_fixes(
    raw: &str,
    span: crate::source::Span,
    quoted: &str,
    yaml11: &Value,
    yaml12: &Value,
) -> Vec<Fix> {
    let literal = |v: &Value| match v {
        Value::Bool(b) => Some(b.to_string()),
        Value::Int(_) | Value::BigInt(_) => Some(python_str(v)),
        Value::Float(f) if f.is_finite() => Some(yaml_float_literal(*f)),
        Value::Str(_) => Some(quoted.to_string()),
        _ => None,
    };
    let mut fixes = Vec::new();
    if let Some(safe) = literal(yaml11) {
        let title = if safe == quoted {
            format!("Quote `{raw}` (the Azure ML CLI reads text)")
        } else {
            format!("Write `{safe}`, as the Azure ML CLI reads `{raw}`")
        };
        fixes.push(Fix::replace(Applicability::Safe, title, span, safe));
    }
    if let Some(other) = literal(yaml12).filter(|o| fixes.iter().all(|f: &Fix| f.edits[0].replacement != *o))
    {
        let title = if other == quoted {
            format!("Quote `{raw}` (the text YAML 1.2 reads)")
        } else {
            format!("Write `{other}`, as YAML 1.2 reads `{raw}`")
        };
        fixes.push(Fix::replace(Applicability::Unsafe, title, span, other));
    }
    fixes
}

/// The unquoted dates and timestamps (YAML 1.1 `datetime`s) that are values of fields
/// whose schema takes only a string (`name`, `display_name`, `command`, ...) or is a
/// version (number or string): marshmallow's `String` field refuses a `datetime` ("Not a
/// valid string"), and so does the SDK's `VersionField`. Fields that take anything (tags)
/// and a component's `version` (str()-ed by the SDK) are left to AML003.
fn string_fields_holding_dates(cx: &DocContext<'_>) -> HashMap<NodeId, (Pointer, &'static str)> {
    let mut found = HashMap::new();
    let Some(kind) = cx.class.kind else {
        return found;
    };
    if !super::context::checkable(cx.doc) {
        return found;
    }
    let dates: Vec<NodeId> = cx
        .doc
        .yaml11_notes
        .iter()
        .filter(|n| {
            matches!(
                &n.kind,
                NoteKind::Differs {
                    yaml11: Value::Timestamp(_),
                    ..
                }
            )
        })
        .map(|n| n.node)
        .collect();
    if dates.is_empty() {
        return found;
    }
    let spans: HashSet<_> = dates.iter().map(|&n| cx.doc.node(n).span).collect();
    let pointers = cx.doc.pointers_for(&spans);
    for node in dates {
        let Some(pointer) = pointers.get(&cx.doc.node(node).span) else {
            continue;
        };
        // A value, not a key (a key's span maps to its entry's pointer too).
        let is_value = cx.doc.lookup(pointer).is_some_and(|l| l.value == node);
        if !is_value {
            continue;
        }
        // A version field (`VersionField`: number or string) refuses a datetime too
        // ("Type datetime.date is not supported for version"), except a component's
        // `version`, which the SDK str()s before loading.
        let component_version = kind.id.ends_with("Component") && pointer.len() == 1;
        let refused = crate::schema::describe::describe(&kind.id, pointer).and_then(|f| {
            if !f.values.is_empty() {
                None
            } else if f.types == ["string"] {
                Some("Not a valid string.")
            } else if f.types == ["number", "string"] && !component_version {
                Some("Type datetime.date is not supported for version.")
            } else {
                None
            }
        });
        if let Some(sdk) = refused {
            found.insert(node, (pointer.clone(), sdk));
        }
    }
    found
}
