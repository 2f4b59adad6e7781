//! AML007 preview-schema: `$schema` names the kind by its 2021 preview name
//! (`onlineEndpoint`, `onlineDeployment`, `asset`, `codeAsset`, `k8sOnlineEndpoint`, ...).
//! The file was written for the CLI v2 preview; today's CLI loads it as the kind the name
//! stands for (`schemas/kinds.yaml`: `preview_schemas`), which is how amlint checks it.

use super::context::DocContext;
use crate::diagnostic::{Applicability, Diagnostic, Findings, Fix, codes};
use crate::document::Style;
use crate::source::Pointer;

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let (Some(preview), Some(kind)) = (&cx.class.preview, cx.class.kind) else {
        return;
    };
    let current = kind.schema_names.first().map_or(kind.id.as_str(), String::as_str);
    let url = format!("https://azuremlschemas.azureedge.net/latest/{current}.schema.json");
    let command = &crate::kinds::table().families[kind.family].command;
    let mut d = Diagnostic::new(
        codes::AML007,
        preview.span,
        format!(
            "`$schema` names `{}`, a schema of the 2021 Azure ML CLI v2 preview: the file is preview syntax, and today's CLI reads it as a {}",
            preview.name, kind.title
        ),
    )
    .with_pointer(Pointer::parse("/$schema"))
    .with_help(format!(
        "`{command}` rejects the keys the preview had and today's schema does not (amlint checks the file as a {}); rewrite it in the current syntax and point `$schema` at `{url}`.",
        kind.title
    ));
    let at = Pointer::parse("/$schema");
    let replacement = cx
        .doc
        .lookup_own(&at)
        .map(|found| found.value)
        .filter(|v| cx.doc.node(*v).span == preview.span)
        .and_then(|v| match cx.doc.node(v).style {
            Style::Plain => Some(url.clone()),
            Style::DoubleQuoted | Style::Json => serde_json::to_string(&url).ok(),
            Style::SingleQuoted => Some(format!("'{url}'")),
            _ => None,
        });
    if let Some(replacement) = replacement {
        // `$schema` is for editors: the CLI reads the file as today's kind either way.
        d = d.with_fix(Fix::set_value(
            Applicability::Safe,
            format!("Point `$schema` at `{current}.schema.json`"),
            preview.span,
            replacement,
            at,
        ));
    }
    out.push(d);
}
