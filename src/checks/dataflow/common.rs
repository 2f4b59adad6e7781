//! The wording the rule files share in their messages.

/// ", did you mean `x`?" for the closest of `candidates`, or nothing.
pub(super) fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let all: Vec<&str> = candidates.into_iter().collect();
    crate::suggest::closest(word, all.iter().copied())
}

/// "`a`, `b` and `c`" (at most eight, then "and N more"); "none" when empty.
pub(super) fn listing<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.is_empty() {
        return "none".to_string();
    }
    let shown: Vec<String> = names.iter().take(8).map(|n| format!("`{n}`")).collect();
    let mut text = shown.join(", ");
    if names.len() > 8 {
        text.push_str(&format!(" and {} more", names.len() - 8));
    }
    text
}
