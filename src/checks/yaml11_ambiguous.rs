//! AML003 yaml11-ambiguous-scalar: plain scalars that YAML 1.1 (the Azure ML CLI) and
//! YAML 1.2 read differently, and numbers that lose their text under version keys. The
//! loader records the candidates while resolving scalars; this turns them into findings.

use super::DocContext;
use crate::diagnostic::{Diagnostic, Edit, Fix};
use crate::document::Value;
use crate::document::yaml11::{NoteKind, describe, python_str, yaml_float_literal};

pub fn check(cx: &DocContext<'_>, out: &mut Vec<Diagnostic>) {
    for note in &cx.doc.yaml11_notes {
        let node = cx.doc.node(note.node);
        let raw = cx.source.slice(node.span);
        let quoted = format!("\"{}\"", raw.replace('\\', "\\\\").replace('"', "\\\""));
        let diag = match &note.kind {
            NoteKind::Differs { yaml11, yaml12 } => {
                let alternative = match yaml11 {
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
                };
                Diagnostic::new(
                    "AML003",
                    node.span,
                    format!(
                        "`{raw}` is read as {} by the Azure ML CLI (YAML 1.1), but as {} by YAML 1.2 tools and editors",
                        describe(yaml11),
                        describe(yaml12)
                    ),
                )
                .with_help(format!("Quote it ({quoted}) if you mean the text{alternative}."))
            }
            NoteKind::VersionText { key, value } => Diagnostic::new(
                "AML003",
                node.span,
                format!(
                    "`{key}: {raw}` is read as the number {}, so the version becomes \"{}\", not \"{raw}\"",
                    python_str(value),
                    python_str(value)
                ),
            )
            .with_help(format!("Quote it: `{key}: {quoted}`."))
            .with_fix(Fix {
                title: format!("Quote `{raw}`"),
                edits: vec![Edit {
                    span: node.span,
                    replacement: quoted.clone(),
                }],
            }),
        };
        out.push(diag);
    }
}
