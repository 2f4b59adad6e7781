//! Evaluates the declarative rules (those with a `when` condition) on a document.

use super::DocContext;
use crate::diagnostic::Findings;

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let Some(facts) = cx.facts else {
        return;
    };
    if cx.doc.partial || cx.doc.alias_overflow {
        // Conditions on a tree cut short would judge what is not there.
        return;
    }
    for rule in facts.base.config.rules.rules() {
        if let Some(policy) = &rule.policy {
            let before = out.len();
            policy.evaluate(rule.id(), facts, out);
            if rule.fixes.iter().any(|f| f.set.is_some()) && out.len() > before {
                super::set_fix::attach(cx, &rule.fixes, &mut out.kept_mut()[before..]);
            }
        }
    }
}
