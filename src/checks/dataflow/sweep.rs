//! AML808 unknown-search-space-parameter: `${{search_space.x}}` in a sweep whose
//! `search_space` has no parameter `x`.

use super::model::FlowModel;
use super::{did_you_mean, listing};
use crate::diagnostic::{Diagnostic, codes};

pub fn check(model: &FlowModel<'_>, out: &mut Vec<Diagnostic>) {
    for sweep in &model.sweeps {
        let Some(params) = &sweep.params else {
            continue;
        };
        for b in &sweep.bindings {
            let Some(&name) = b.segments().get(1) else {
                continue;
            };
            if params.iter().any(|p| p == name) {
                continue;
            }
            let hint = did_you_mean(name, params.iter().map(String::as_str));
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
                    listing(params.iter().map(String::as_str))
                )),
            );
        }
    }
}
