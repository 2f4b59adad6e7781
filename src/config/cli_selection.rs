//! Rule selection from the command line (`--select`, `--extend-select`, `--ignore`): the
//! same selectors as the configuration's keys ([`super::selector`]), as one more layer
//! on top of every file's configuration. The command line wins: a rule it decides is on
//! or off whatever the configuration says; the rules it does not name keep the
//! configuration's choice. Within the layer the most specific selector decides, and
//! `--ignore` wins a tie (as in a configuration file).
//!
//! `--select` replaces the configuration's selection: the rules it does not match (and
//! no `--extend-select` adds) are off. A rule the command line turns on keeps the
//! configuration's `[severity]`, except `off`, which it overrides (the rule then has its
//! default severity). `[per-file-ignores]` still apply: they are about files, not the
//! selection.

use super::selector::{self, Selector, SelectorError};
use crate::diagnostic::Severity;
use crate::registry::Registry;

/// The command line's selectors, resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CliSelection {
    /// `--select`: `None` when not given.
    pub select: Option<Vec<Selector>>,
    pub extend_select: Vec<Selector>,
    pub ignore: Vec<Selector>,
}

/// What the command line says about one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// On, whatever the configuration selects.
    On,
    /// Off.
    Off,
    /// The command line does not name the rule: the configuration decides.
    Configured,
}

impl CliSelection {
    /// Resolves the selectors as written (`AML503`, `duplicate-key`, `AML5`, `ALL`);
    /// the first one that is not a rule, name or prefix is an error, with the option it
    /// came from.
    pub fn resolve(
        select: Option<&[String]>,
        extend_select: &[String],
        ignore: &[String],
        registry: &Registry,
    ) -> Result<Self, (&'static str, SelectorError)> {
        let all = |option: &'static str, texts: &[String]| {
            texts
                .iter()
                .map(|t| selector::resolve(t, registry).map_err(|e| (option, e)))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(CliSelection {
            select: select.map(|s| all("--select", s)).transpose()?,
            extend_select: all("--extend-select", extend_select)?,
            ignore: all("--ignore", ignore)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.select.is_none() && self.extend_select.is_empty() && self.ignore.is_empty()
    }

    /// The command line's decision on rule `code`.
    pub fn decide(&self, code: &str) -> Decision {
        let candidates = self
            .select
            .iter()
            .flatten()
            .chain(&self.extend_select)
            .map(|s| (s, true))
            .chain(self.ignore.iter().map(|s| (s, false)));
        match selector::best_match(code, candidates) {
            Some((_, true)) => Decision::On,
            Some((_, false)) => Decision::Off,
            None if self.select.is_some() => Decision::Off,
            None => Decision::Configured,
        }
    }

    /// The severity a finding of rule `code` (at `default`) gets under `config` with the
    /// command line on top, or `None` when it is dropped.
    pub fn severity(&self, config: &super::model::Config, code: &str, default: Severity) -> Option<Severity> {
        match self.decide(code) {
            Decision::Off => None,
            Decision::Configured => config.rule_severity(code, default),
            Decision::On => Some(
                selector::best_match(code, config.severity.iter().map(|(s, l, _)| (s, *l)))
                    .and_then(|(_, level)| level.severity())
                    .unwrap_or(default),
            ),
        }
    }

    /// The selector that decided `code`, as the user wrote it (`--show-settings`).
    pub fn deciding(&self, code: &str) -> Option<(&'static str, &Selector)> {
        let candidates = self
            .select
            .iter()
            .flatten()
            .map(|s| (s, ("--select", s)))
            .chain(self.extend_select.iter().map(|s| (s, ("--extend-select", s))))
            .chain(self.ignore.iter().map(|s| (s, ("--ignore", s))));
        selector::best_match(code, candidates).map(|(_, found)| found)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::registry;

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_most_specific_selector_decides_and_ignore_wins_ties() {
        let r = registry::builtin();
        let s = CliSelection::resolve(Some(&strings(&["AML5"])), &[], &strings(&["AML503"]), r).unwrap();
        assert_eq!(s.decide("AML501"), Decision::On);
        assert_eq!(s.decide("AML503"), Decision::Off);
        // --select replaces the configuration's selection: the rest is off.
        assert_eq!(s.decide("AML002"), Decision::Off);
        let s = CliSelection::resolve(None, &strings(&["duplicate-key"]), &strings(&["AML0"]), r).unwrap();
        assert_eq!(s.decide("AML002"), Decision::On);
        assert_eq!(s.decide("AML003"), Decision::Off);
        assert_eq!(s.decide("AML101"), Decision::Configured);
        let s = CliSelection::resolve(None, &strings(&["AML002"]), &strings(&["AML002"]), r).unwrap();
        assert_eq!(s.decide("AML002"), Decision::Off);
        assert_eq!(s.deciding("AML002").map(|(o, _)| o), Some("--ignore"));
    }

    #[test]
    fn an_unknown_selector_names_its_option() {
        let r = registry::builtin();
        let (option, e) = CliSelection::resolve(None, &[], &strings(&["duplicate-keys"]), r).unwrap_err();
        assert_eq!(option, "--ignore");
        assert!(e.help.contains("duplicate-key"), "{e:?}");
    }
}
