//! AML808 unknown-search-space-parameter: `${{search_space.x}}` in a sweep whose
//! `search_space` has no parameter `x`. AML812 unused-search-space-parameter: a
//! `search_space` parameter the trial never receives (no input of that name in the trial
//! component, no `${{search_space.x}}` naming it).

use std::collections::HashSet;

use super::common::{did_you_mean, listing};
use super::model::{FlowModel, Sweep, Trial};
use crate::diagnostic::{Diagnostic, codes};

pub fn check(model: &FlowModel<'_>, out: &mut Vec<Diagnostic>) {
    for sweep in &model.sweeps {
        let Some(params) = &sweep.params else {
            continue;
        };
        let names = || params.iter().map(|(p, _)| p.as_str());
        let known: HashSet<&str> = names().collect();
        // The parameters a misspelt binding was meant for: reported there (AML808), not
        // again as unused.
        let mut meant: HashSet<&str> = HashSet::new();
        for b in &sweep.bindings {
            let Some(&name) = b.segments().get(1) else {
                continue;
            };
            if known.contains(name) {
                continue;
            }
            let hint = did_you_mean(name, names());
            meant.extend(hint);
            out.push(
                Diagnostic::new(
                    codes::AML808,
                    b.span,
                    format!(
                        "`${{{{{}}}}}` names no parameter of the `search_space` of {}{}",
                        b.expr,
                        sweep.owner,
                        hint.map_or_else(String::new, |h| format!("; did you mean `{h}`?")),
                    ),
                )
                .with_help(format!(
                    "Add `{name}` to `search_space` or name one of its parameters ({}): each trial substitutes the values the sweep samples, and a name it does not sample is never substituted.",
                    listing(names())
                )),
            );
        }
        unused(sweep, params, &meant, out);
    }
}

/// AML812: the parameters of `params` that the sweep's trial never receives.
fn unused(
    sweep: &Sweep,
    params: &[(String, crate::source::Span)],
    meant: &HashSet<&str>,
    out: &mut Vec<Diagnostic>,
) {
    let named: HashSet<&str> = sweep
        .bindings
        .iter()
        .filter_map(|b| b.expr.split('.').nth(1))
        .collect();
    for (name, span) in params {
        if named.contains(name.as_str()) || meant.contains(name.as_str()) {
            continue;
        }
        let d = match &sweep.trial {
            Trial::Unknown => return,
            Trial::Inputs { interface, .. } if interface.input(name).is_some() => continue,
            Trial::Inputs { interface, file } => {
                let inputs = interface.inputs.iter().map(|p| p.name.as_str());
                let hint = did_you_mean(name, inputs.clone());
                let trial = file
                    .as_deref()
                    .map_or_else(|| "its inline trial".to_string(), |f| format!("its trial `{f}`"));
                let mut d = Diagnostic::new(
                    codes::AML812,
                    *span,
                    format!(
                        "search-space parameter `{name}` of {} is no input of {trial}{}",
                        sweep.owner,
                        hint.map_or_else(String::new, |h| format!("; did you mean `{h}`?")),
                    ),
                )
                .with_help(format!(
                    "Each trial receives a sampled value as the trial component's input of the same name ({}); a parameter no input has is sampled and dropped, and the sweep compares trials that differ in nothing it samples. Rename the parameter after an input, or declare the input in the component.",
                    listing(inputs)
                ));
                if file.is_none()
                    && let Some(p) = hint.and_then(|h| interface.input(h))
                {
                    d = d.with_label(p.span, "declared here");
                }
                d
            }
            Trial::Placeholders => Diagnostic::new(
                codes::AML812,
                *span,
                format!(
                    "search-space parameter `{name}` of {} is never used: no `${{{{search_space.{name}}}}}` passes it to the trial",
                    sweep.owner
                ),
            )
            .with_help(format!(
                "A sweep job's trial receives a sampled value only where `${{{{search_space.{name}}}}}` stands (in `trial.command`, or in an input bound to it); otherwise the value is sampled and dropped, and the sweep compares trials that differ in nothing it samples. Pass it to the command (`--{name} ${{{{search_space.{name}}}}}`) or remove the parameter."
            )),
        };
        out.push(d);
    }
}
