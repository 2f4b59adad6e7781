//! Every rule ships its own failing and passing example (biome, cfn-guard): the bad one
//! must produce the rule's code, the good one must not.

use amlint::pipeline::{Options, check_text};
use amlint::registry;

#[test]
fn every_rule_example_behaves() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for rule in registry::builtin().rules() {
        let Some(example) = &rule.example else {
            assert!(
                rule.example_note.is_some(),
                "{} has neither example nor example_note",
                rule.code
            );
            continue;
        };
        checked += 1;
        let bad = check_text(&example.path, example.bad.clone(), &Options::default());
        if !bad.diagnostics.iter().any(|d| d.code == rule.code) {
            let got: Vec<_> = bad.diagnostics.iter().map(|d| d.code).collect();
            problems.push(format!(
                "{}: the bad example does not trigger it (got {got:?})",
                rule.code
            ));
        }
        let good = check_text(&example.path, example.good.clone(), &Options::default());
        if let Some(d) = good.diagnostics.iter().find(|d| d.code == rule.code) {
            problems.push(format!(
                "{}: the good example triggers it: {}",
                rule.code, d.message
            ));
        }
    }
    assert!(checked >= 5, "only {checked} rules have examples");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_native_rule_is_implemented_and_every_code_has_metadata() {
    use amlint::checks::{DOCUMENT_CHECKS, LOADER_CODES, PIPELINE_CODES};
    let implemented: Vec<&str> = DOCUMENT_CHECKS
        .iter()
        .map(|(c, _)| *c)
        .chain(LOADER_CODES.iter().copied())
        .chain(PIPELINE_CODES.iter().copied())
        .collect();
    let registry = registry::builtin();
    for code in &implemented {
        assert!(
            registry.get(code).is_some(),
            "{code} is reported by Rust code but has no rules/ file"
        );
    }
    for rule in registry.rules().iter().filter(|r| r.native) {
        assert!(
            implemented.contains(&rule.code),
            "{} is marked native but nothing reports it",
            rule.code
        );
    }
}
