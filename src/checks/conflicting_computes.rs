//! AML205 conflicting-compute-definitions: a compute definition whose type or VM size
//! differs from another definition of the same name in the project (any source: Azure
//! ML YAML, `az ml compute create`, the Python SDK, Terraform, Bicep, ARM). The project
//! index resolves such a name to what its definitions agree on (`facts::index::agreed`),
//! never to one of them by order; this check says why the rules went quiet.

use super::context::DocContext;
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::document::Value;
use crate::escape::control;
use crate::facts::index::{AGREED_FIELDS, ComputeEntry, compute_type_of_kind};

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let Some(facts) = cx.facts else {
        return;
    };
    if compute_type_of_kind(&facts.kind.id).is_none() {
        return;
    }
    let doc = cx.doc;
    let Some(root) = doc.root else {
        return;
    };
    let Some(Value::Str(name)) = doc.get(root, "name").map(|n| doc.value(n)) else {
        return;
    };
    let agreement = facts.base.compute_agreement(name);
    // This document's own definition: in this file, within this document.
    let Some(me) = agreement.find(&cx.source.path, |d| {
        doc.span.start <= d.span.start && d.span.end <= doc.span.end.max(doc.span.start)
    }) else {
        return;
    };
    for (f, field) in AGREED_FIELDS.into_iter().enumerate() {
        let Some((mine, first, theirs, differ)) = agreement.disagreement(me, f) else {
            continue;
        };
        let Some(node) = doc.get(root, field) else {
            continue;
        };
        let more = match differ - 1 {
            0 => String::new(),
            1 => " and 1 more definition".to_string(),
            n => format!(" and {n} more definitions"),
        };
        out.push(
            Diagnostic::new(
                codes::AML205,
                doc.node(node).span,
                format!(
                    "`{}` is defined here with {field} `{}`, but with {field} `{}` at {}{more}: jobs and deployments that name it cannot be checked against either",
                    control(name),
                    control(mine),
                    control(theirs),
                    control(&place(first)),
                ),
            )
            .with_severity(cx.severity_of(codes::AML205))
            .with_help(format!(
                "Make every definition of `{}` agree on its {field}, or give computes that differ different names (`{}-dev`, `{}-large`); `amlint inventory` lists them all.",
                control(name),
                control(name),
                control(name)
            )),
        );
    }
}

/// `infra/main.bicep:12 (bicep)`.
fn place(d: &ComputeEntry) -> String {
    let file = d.file.as_deref().unwrap_or("[inventory]");
    match d.line {
        0 => format!("{file} ({})", d.source.as_str()),
        line => format!("{file}:{line} ({})", d.source.as_str()),
    }
}
