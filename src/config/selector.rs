//! Rule selectors as configuration names rules: a code (`AML503`), a name
//! (`vm-series-requires-approval`), a code prefix (`AML5`, `AML`), or `ALL`.
//!
//! When several selectors match a rule, the most specific one decides (ruff's rule):
//! an exact code or name beats a longer prefix, which beats a shorter one, which beats
//! `ALL` (a name pattern, `org-*`, counts as a code prefix as long as the text before its
//! `*`). So `select = ["AML5"]` with `ignore = ["AML503"]` keeps every AML5xx rule but
//! AML503, and `select = ["AML503"]` with `ignore = ["AML5"]` keeps AML503 alone.

use crate::diagnostic::Diagnostic;
use crate::registry::Registry;

/// A resolved selector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Selector {
    /// Every rule.
    All,
    /// Every rule whose code starts with this (upper-case) text.
    Prefix(String),
    /// One rule, by code (names are resolved to codes).
    Code(&'static str),
    /// The rules whose names start with `prefix` (`org-*`), resolved to their codes when
    /// the configuration is read.
    Names {
        prefix: String,
        codes: Vec<&'static str>,
    },
}

impl Selector {
    /// Higher is more specific.
    pub fn specificity(&self) -> usize {
        match self {
            Selector::All => 0,
            Selector::Prefix(p) => p.len(),
            Selector::Names { prefix, .. } => prefix.len(),
            Selector::Code(_) => usize::MAX,
        }
    }

    pub fn matches_code(&self, code: &str) -> bool {
        match self {
            Selector::All => true,
            Selector::Prefix(p) => code.starts_with(p.as_str()),
            Selector::Names { codes, .. } => codes.contains(&code),
            Selector::Code(c) => *c == code,
        }
    }

    pub fn matches(&self, d: &Diagnostic) -> bool {
        self.matches_code(d.code)
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Selector::All => f.write_str("ALL"),
            Selector::Prefix(p) => f.write_str(p),
            Selector::Names { prefix, .. } => write!(f, "{prefix}*"),
            Selector::Code(c) => f.write_str(c),
        }
    }
}

/// Why a selector was refused: the message and the help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    pub message: String,
    pub help: String,
}

/// Resolves what a user wrote against the known rules.
pub fn resolve(text: &str, registry: &Registry) -> Result<Selector, SelectorError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(SelectorError {
            message: "an empty rule selector".to_string(),
            help: "Name a rule by code (`AML002`), by name (`duplicate-key`), a family by code prefix (`AML0`), or rules by name pattern (`org-*`)."
                .to_string(),
        });
    }
    if trimmed == "ALL" {
        return Ok(Selector::All);
    }
    if let Some(rule) = registry.find(trimmed) {
        return Ok(Selector::Code(rule.code));
    }
    let upper = trimmed.to_ascii_uppercase();
    if is_code_prefix(&upper, registry) {
        return Ok(Selector::Prefix(upper));
    }
    if let Some(prefix) = trimmed
        .strip_suffix('*')
        .filter(|p| !p.is_empty() && !p.contains('*'))
    {
        let codes: Vec<&'static str> = registry
            .rules()
            .iter()
            .filter(|r| r.name.starts_with(prefix))
            .map(|r| r.code)
            .collect();
        if codes.is_empty() {
            return Err(SelectorError {
                message: format!("no rule name starts with `{prefix}`"),
                help: "A name pattern selects the rules whose names start with the text before `*` (`org-*`); `amlint rules` lists every rule's name."
                    .to_string(),
            });
        }
        return Ok(Selector::Names {
            prefix: prefix.to_string(),
            codes,
        });
    }
    let names = registry.rules().iter().flat_map(|r| [r.code, r.name]);
    let all: Vec<&str> = names.collect();
    let hint = crate::suggest::closest(trimmed, all.iter().copied())
        .map(|s| format!("Did you mean `{s}`? "))
        .unwrap_or_default();
    Err(SelectorError {
        message: format!("`{trimmed}` is not a rule code, rule name or code prefix amlint knows"),
        help: format!(
            "{hint}`amlint rules` lists every rule; a prefix such as `AML5` selects a whole family."
        ),
    })
}

/// `AML`, `AML5`, `AML50`: the letters of a known family followed by fewer digits than a
/// full code has. Families are documented (`AML0xx` syntax ... `AML7xx` security), so a
/// prefix is valid even before any rule of it exists; a full-length code is not a prefix
/// (an unknown full code is an unknown rule).
fn is_code_prefix(upper: &str, registry: &Registry) -> bool {
    let letters = upper.bytes().take_while(u8::is_ascii_uppercase).count();
    if letters == 0 || !upper.bytes().skip(letters).all(|b| b.is_ascii_digit()) {
        return false;
    }
    let (family, digits) = upper.split_at(letters);
    registry.rules().iter().any(|r| {
        let code_letters = r.code.bytes().take_while(u8::is_ascii_uppercase).count();
        let (f, d) = r.code.split_at(code_letters);
        f == family && digits.len() < d.len()
    })
}

/// The most specific of `selectors` matching `code`, with its index.
pub fn best_match<'a, T>(
    code: &str,
    selectors: impl IntoIterator<Item = (&'a Selector, T)>,
) -> Option<(usize, T)> {
    let mut best: Option<(usize, T)> = None;
    for (s, payload) in selectors {
        if s.matches_code(code) {
            let spec = s.specificity();
            // Later entries win ties, so that `ignore` (listed after `select`) wins them.
            if best.as_ref().is_none_or(|(b, _)| spec >= *b) {
                best = Some((spec, payload));
            }
        }
    }
    best
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::registry;

    #[test]
    fn resolves_codes_names_prefixes() {
        let r = registry::builtin();
        assert_eq!(resolve("AML002", r), Ok(Selector::Code("AML002")));
        assert_eq!(resolve("aml002", r), Ok(Selector::Code("AML002")));
        assert_eq!(resolve("duplicate-key", r), Ok(Selector::Code("AML002")));
        assert_eq!(resolve("AML0", r), Ok(Selector::Prefix("AML0".into())));
        assert_eq!(resolve("AML5", r), Ok(Selector::Prefix("AML5".into())));
        assert_eq!(resolve("AML", r), Ok(Selector::Prefix("AML".into())));
        assert_eq!(resolve("ALL", r), Ok(Selector::All));
        let e = resolve("duplicate-keys", r).unwrap_err();
        assert!(e.help.contains("duplicate-key"), "{e:?}");
        assert!(resolve("AML999", r).is_err());
        assert!(resolve("XYZ1", r).is_err());
        assert!(resolve("", r).is_err());
    }

    #[test]
    fn name_patterns_select_the_rules_whose_names_start_so() {
        let r = registry::builtin();
        let Ok(Selector::Names { prefix, codes }) = resolve("duplicate-*", r) else {
            panic!("not a name pattern");
        };
        assert_eq!(
            (prefix.as_str(), codes.as_slice()),
            ("duplicate-", ["AML002"].as_slice())
        );
        let vm = resolve("vm-*", r).unwrap();
        assert!(vm.matches_code("AML503") && !vm.matches_code("AML002"), "{vm:?}");
        assert_eq!(vm.to_string(), "vm-*");
        // As specific as a code prefix of the same length; less than one rule.
        assert_eq!(vm.specificity(), Selector::Prefix("AML".into()).specificity());
        assert!(vm.specificity() < Selector::Code("AML503").specificity());
        let e = resolve("nothing-like-this-*", r).unwrap_err();
        assert!(
            e.message
                .contains("no rule name starts with `nothing-like-this-`"),
            "{e:?}"
        );
        assert!(resolve("*", r).is_err() && resolve("a*b*", r).is_err());
    }

    #[test]
    fn most_specific_wins_and_ties_go_to_the_last() {
        let sels = [
            (Selector::Prefix("AML0".into()), "select"),
            (Selector::Code("AML002"), "ignore"),
            (Selector::All, "ignore"),
        ];
        let pick = |code| best_match(code, sels.iter().map(|(s, p)| (s, *p))).map(|(_, p)| p);
        assert_eq!(pick("AML002"), Some("ignore"));
        assert_eq!(pick("AML003"), Some("select"));
        assert_eq!(pick("AML503"), Some("ignore"));
        let tie = [
            (Selector::Prefix("AML".into()), "select"),
            (Selector::Prefix("AML".into()), "ignore"),
        ];
        assert_eq!(
            best_match("AML1", tie.iter().map(|(s, p)| (s, *p))).map(|(_, p)| p),
            Some("ignore")
        );
    }
}
