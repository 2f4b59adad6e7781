//! The rules a configuration runs, compiled: every declarative rule of its registry (the
//! built-in rules and those of its `rules-dirs`) turned into a [`PolicyRule`] once. The
//! registry below holds rules as data (metadata and the rule files' trees), so that the
//! configuration can name them; this layer, above the rule language, compiles them.
//! A user rule whose condition does not compile is an error of the configuration that
//! names it ([`compile_errors`], which the configuration parser runs), so a run never
//! starts with one.

use std::sync::{Arc, LazyLock, Mutex, Weak};

use crate::config::Config;
use crate::data::{self, DataError};
use crate::diagnostic::RuleId;
use crate::policy::{self, PolicyRule};
use crate::registry::{self, Registry};

/// The declarative rules of a registry, compiled, in code order.
#[derive(Debug, Default)]
pub struct Ruleset {
    rules: Vec<(RuleId, Arc<PolicyRule>)>,
}

impl Ruleset {
    /// Compiles every declarative rule of `registry`; every rule that does not compile is
    /// an error at its rule file's line.
    pub fn compile(registry: &Registry) -> Result<Ruleset, Vec<DataError>> {
        let (set, errors) = compile_each(registry);
        if errors.is_empty() { Ok(set) } else { Err(errors) }
    }

    /// Each declarative rule's identity and compiled condition.
    pub fn rules(&self) -> &[(RuleId, Arc<PolicyRule>)] {
        &self.rules
    }
}

/// The rules of `registry` that compile, and an error for each that does not.
fn compile_each(registry: &Registry) -> (Ruleset, Vec<DataError>) {
    let mut set = Ruleset::default();
    let mut errors = Vec::new();
    for rule in registry.rules() {
        let Some(d) = &rule.declarative else { continue };
        match policy::compile(
            &d.doc,
            &rule.kinds,
            &d.report,
            &d.severity_by_profile,
            &rule.params,
            &rule.fixes,
        ) {
            Ok(p) => set.rules.push((rule.id(), Arc::new(p))),
            Err((span, message)) => errors.push(data::error_at(&rule.source, &d.source, span, message)),
        }
    }
    (set, errors)
}

/// The built-in rules, compiled once.
fn builtin() -> &'static Arc<Ruleset> {
    static BUILTIN: LazyLock<Arc<Ruleset>> = LazyLock::new(|| {
        Arc::new(Ruleset::compile(registry::builtin()).unwrap_or_else(|errors| {
            // The test suite compiles every built-in rule, so this only happens in a build
            // whose tests were not run; report and go on without declarative rules.
            for e in errors {
                eprintln!("amlint: internal error in built-in rule file {e}");
            }
            Ruleset::default()
        }))
    });
    &BUILTIN
}

/// Reads and compiles the built-in rules, so that the first check does not wait for them
/// (`pipeline::run` calls it on an idle thread while it walks).
pub fn warm() {
    builtin();
}

/// A registry with user rules, compiled: the rules that compile, and an error for each
/// that does not.
type Compiled = (Arc<Ruleset>, Arc<Vec<DataError>>);

/// The registries with user rules in use, each compiled once; an entry goes when its
/// registry does.
static COMPILED: LazyLock<Mutex<Cache>> = LazyLock::new(Default::default);

/// Each registry in use (held weakly) with its compiled rules.
type Cache = Vec<(Weak<Registry>, Compiled)>;

fn compiled(registry: &Arc<Registry>) -> Compiled {
    let mut cache = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = cache
        .iter()
        .find(|(r, _)| std::ptr::eq(r.as_ptr(), Arc::as_ptr(registry)))
    {
        return c.clone();
    }
    let (set, errors) = compile_each(registry);
    let c = (Arc::new(set), Arc::new(errors));
    cache.retain(|(r, _)| r.strong_count() > 0);
    cache.push((Arc::downgrade(registry), c.clone()));
    c
}

/// The compiled rules of a configuration. A rule that does not compile was reported by
/// [`compile_errors`] when the configuration was read; it is left out here.
pub fn of(config: &Config) -> Arc<Ruleset> {
    match config.rules.user_registry() {
        Some(registry) => compiled(&registry).0,
        None => builtin().clone(),
    }
}

/// The errors of the user rules of `registry` whose conditions do not compile, each at its
/// rule file's line (the built-in rules are proved by the test suite); the set that compiles
/// is kept for [`of`]. The configuration parser runs it on the rules of every configuration
/// with `rules-dirs` ([`crate::config::RuleCheck`]).
pub fn compile_errors(registry: &Arc<Registry>) -> Vec<DataError> {
    compiled(registry)
        .1
        .iter()
        .filter(|e| {
            registry
                .rules()
                .iter()
                .any(|r| r.source == e.path && !r.is_builtin())
        })
        .cloned()
        .collect()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_rule_compiles() {
        let set = Ruleset::compile(registry::builtin()).unwrap_or_else(|errors| {
            panic!(
                "{}",
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        let declarative = registry::builtin()
            .rules()
            .iter()
            .filter(|r| r.declarative.is_some())
            .count();
        assert_eq!(set.rules().len(), declarative);
        assert!(set.rules().iter().any(|(id, _)| id.code == "AML601"));
    }

    #[test]
    fn a_user_rule_that_does_not_compile_is_an_error_at_its_line() {
        let rule = "code: ACME101\nname: no-big-clusters\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\nexample_note: n\nkinds: [amlCompute]\nwhen: {field: max_instances, greater: 10}\nreport: {at: max_instances, message: too many}\n";
        let bad_condition = rule.replace("greater: 10", "greatr: 10");
        let registry = Registry::with_user_rules(&[("acme/big.yaml".to_string(), bad_condition)]).unwrap();
        let err = Ruleset::compile(&registry).unwrap_err();
        assert_eq!(
            err[0].position.map(|p| (p.line, p.column)),
            Some((9, 30)),
            "{}",
            err[0]
        );
        assert!(err[0].message.contains("did you mean `greater`"), "{}", err[0]);
        let good = Registry::with_user_rules(&[("acme/big.yaml".to_string(), rule.to_string())]).unwrap();
        let set = Ruleset::compile(&good).unwrap();
        assert!(set.rules().iter().any(|(id, _)| id.code == "ACME101"));
    }
}
