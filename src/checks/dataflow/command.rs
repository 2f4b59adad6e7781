//! AML801 undeclared-io-reference: a command's `${{inputs.x}}` / `${{outputs.x}}` naming an
//! input or output its job or component does not declare. AML807
//! optional-block-required-input: a `$[[...]]` block whose input is not optional.

use super::common::{did_you_mean, listing};
use super::model::FlowModel;
use crate::diagnostic::{Diagnostic, codes};

pub fn check(model: &FlowModel<'_>, out: &mut Vec<Diagnostic>) {
    for command in &model.commands {
        if !command.interface.known {
            continue;
        }
        for b in &command.bindings {
            let segments = b.segments();
            let (ports, what) = match segments.first() {
                Some(&"inputs") => (&command.interface.inputs, "input"),
                Some(&"outputs") => (&command.interface.outputs, "output"),
                _ => continue,
            };
            let Some(&name) = segments.get(1) else {
                continue;
            };
            match ports.iter().find(|p| p.name == name) {
                None => {
                    let names = ports.iter().map(|p| p.name.as_str());
                    let hint = did_you_mean(name, names.clone());
                    let mut d = Diagnostic::new(
                        codes::AML801,
                        b.span,
                        format!(
                            "`${{{{{}}}}}` names no {what} of {}{}",
                            b.expr,
                            command.owner,
                            hint.map_or_else(String::new, |h| format!("; did you mean `{h}`?")),
                        ),
                    )
                    .with_help(format!(
                        "Declare `{name}` under `{what}s:` or use one that is declared ({}). Azure ML substitutes only declared {what}s: the job fails when the command runs, after queueing.",
                        listing(names)
                    ));
                    if let Some(p) = hint.and_then(|h| ports.iter().find(|p| p.name == h)) {
                        d = d.with_label(p.span, "declared here");
                    }
                    out.push(d);
                }
                Some(port)
                    if b.optional_block && what == "input" && command.declares_optional && !port.optional =>
                {
                    out.push(
                        Diagnostic::new(
                            codes::AML807,
                            b.span,
                            format!(
                                "input `{name}` is inside an optional `$[[...]]` block but is not declared `optional: true`"
                            ),
                        )
                        .with_label(port.span, "declared here without `optional: true`")
                        .with_help("A `$[[...]]` block is dropped when its optional input is not given; a required input is always given, so the block is never dropped. Declare the input `optional: true`, or remove the `$[[` `]]` around it."),
                    );
                }
                Some(_) => {}
            }
        }
    }
}
