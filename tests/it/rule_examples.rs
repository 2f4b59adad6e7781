//! Every rule ships its own failing and passing example (biome, cfn-guard): the bad one
//! must produce the rule's code, the good one must not. Each example runs as a small
//! project: its file, the other files it lists, and its `amlint.toml`.

use std::path::Path;

use amlint::pipeline::{Options, check_paths};
use amlint::registry::{self, Example};

/// The codes reported on the example's own file when its text is `text`.
fn codes_for(example: &Example, text: &str) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, body: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    write(&example.path, text);
    for (rel, body) in &example.files {
        write(rel, body);
    }
    if let Some(config) = &example.config {
        write("amlint.toml", config);
    }
    let options = Options {
        today: Some("2026-11-22".to_string()),
        ..Options::default()
    };
    let report = check_paths(&[dir.path().to_path_buf()], &options);
    let target = dir.path().join(&example.path);
    report
        .files
        .iter()
        .filter(|f| Path::new(&f.source.path) == target)
        .flat_map(|f| {
            f.diagnostics
                .iter()
                .map(|d| (d.code.to_string(), d.message.clone()))
        })
        .collect()
}

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
        let bad = codes_for(example, &example.bad);
        if !bad.iter().any(|(c, _)| c == rule.code) {
            problems.push(format!(
                "{}: the bad example does not trigger it (got {bad:?})",
                rule.code
            ));
        }
        let good = codes_for(example, &example.good);
        if let Some((_, m)) = good.iter().find(|(c, _)| c == rule.code) {
            problems.push(format!("{}: the good example triggers it: {m}", rule.code));
        }
    }
    assert!(checked >= 5, "only {checked} rules have examples");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_native_rule_is_implemented_and_every_code_has_metadata() {
    use amlint::checks::{ALSO_REPORTED, DOCUMENT_CHECKS, LOADER_CODES, PIPELINE_CODES};
    let implemented: Vec<&str> = DOCUMENT_CHECKS
        .iter()
        .map(|(c, _)| *c)
        .chain(ALSO_REPORTED.iter().flat_map(|(_, codes)| codes.iter().copied()))
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
    for rule in registry.rules() {
        if rule.native {
            assert!(
                implemented.contains(&rule.code),
                "{} is marked native but nothing reports it",
                rule.code
            );
        } else {
            assert!(
                rule.declarative.is_some(),
                "{} is neither native nor declarative",
                rule.code
            );
        }
    }
}
