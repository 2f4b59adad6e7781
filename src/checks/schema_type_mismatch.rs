//! AML008 schema-type-mismatch: `$schema` names one kind, but `type:` (what the Azure ML
//! CLI actually dispatches on) makes it another.

use super::context::DocContext;
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::source::Pointer;

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let (Some(declared), Some(kind), Some(root)) = (cx.class.declared, cx.class.kind, cx.doc.root) else {
        return;
    };
    let Some(schema) = cx.doc.get(root, "$schema") else {
        return;
    };
    let decided_by = match cx.doc.get_entry(root, "type") {
        Some(e) => cx.doc.node(e.value).span,
        None => cx.doc.node(schema).span,
    };
    let type_text = cx
        .doc
        .top_str("type")
        .map_or_else(String::new, |t| format!("`type: {t}`"));
    out.push(
        Diagnostic::new(
            codes::AML008,
            cx.doc.node(schema).span,
            format!(
                "`$schema` says this is a {}, but the Azure ML CLI reads it as a {}{}",
                declared.title,
                kind.title,
                if type_text.is_empty() { String::new() } else { format!(" because of {type_text}") }
            ),
        )
        .with_label(decided_by, "the CLI dispatches on this")
        .with_pointer(Pointer::parse("/$schema"))
        .with_help(format!(
            "Point `$schema` at the {} schema (`{}.schema.json`) so that editors validate what the CLI will run, or fix `type:` if the schema is right.",
            kind.title,
            kind.schema_names.first().map_or(kind.id.as_str(), String::as_str)
        )),
    );
}
