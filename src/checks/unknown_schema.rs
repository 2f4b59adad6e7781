//! AML006 unknown-schema: a `$schema` under an Azure ML host that names no known kind.

use super::context::DocContext;
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::kinds;
use crate::source::Pointer;

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let Some(unknown) = &cx.class.unknown_schema else {
        return;
    };
    let table = kinds::table();
    let names = table.kinds.iter().flat_map(|k| k.schema_names.iter());
    let closest = crate::suggest::closest(&unknown.name, names);
    let mut help = match closest {
        Some(name) => format!("Did you mean `{name}`? "),
        None => String::new(),
    };
    match cx.class.kind {
        Some(kind) => help.push_str(&format!(
            "amlint checks this file as a {} (from its `type:` and keys).",
            kind.title
        )),
        None => help
            .push_str("amlint cannot tell what kind of configuration this is, so it checks only its syntax."),
    }
    out.push(
        Diagnostic::new(
            codes::AML006,
            unknown.span,
            format!(
                "`$schema` names `{}`, which is not an Azure ML configuration schema amlint knows",
                unknown.name
            ),
        )
        .with_pointer(Pointer::parse("/$schema"))
        .with_help(help),
    );
}
