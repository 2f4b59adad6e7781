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
    for (id, policy) in crate::ruleset::of(&facts.base.config).rules() {
        policy.evaluate(*id, facts, out);
    }
}
