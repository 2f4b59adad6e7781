//! Evaluates the declarative rules (those with a `when` condition) on a document.

use super::context::DocContext;
use crate::diagnostic::Findings;

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let Some(facts) = cx.facts else {
        return;
    };
    if cx.doc.partial || cx.doc.alias_overflow {
        // Conditions on a tree cut short would judge what is not there.
        return;
    }
    let rules = &facts.base.config.rules;
    for (id, policy) in crate::ruleset::of(&facts.base.config).rules() {
        let before = out.len();
        policy.evaluate(*id, facts, out);
        if out.len() > before
            && let Some(meta) = rules.get(id.code)
            && meta.fixes.iter().any(|f| f.set.is_some())
        {
            super::set_fix::attach(cx, &meta.fixes, &mut out.kept_mut()[before..]);
        }
    }
}
