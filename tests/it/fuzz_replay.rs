//! Replays the fuzz corpus (`fuzz/corpus/<target>/`) and the reproducers of fixed bugs
//! (`fuzz/regressions/<target>/`) through the harness the fuzz targets call
//! (`fuzzing.rs`), so that `cargo test` keeps every past crash fixed without the
//! nightly toolchain. See docs/fuzzing.md.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let run = crate::fuzzing::target(target).expect("a target of fuzzing::TARGETS");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let corpus = files(&root.join("corpus").join(target));
    assert!(
        !corpus.is_empty(),
        "no seeds in fuzz/corpus/{target}/: the replay would prove nothing"
    );
    let regressions = files(&root.join("regressions").join(target));
    let mut failures = Vec::new();
    for file in corpus.iter().chain(&regressions) {
        let data = std::fs::read(file).unwrap();
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| run(&data))) {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            failures.push(format!("{}: {message}", file.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs of `{target}` fail:\n{}",
        failures.len(),
        corpus.len() + regressions.len(),
        failures.join("\n")
    );
}

#[test]
fn loader() {
    replay("loader");
}

#[test]
fn yaml_structured() {
    replay("yaml_structured");
}

#[test]
fn check() {
    replay("check");
}

#[test]
fn rule_file() {
    replay("rule_file");
}

#[test]
fn config_file() {
    replay("config_file");
}

#[test]
fn every_target_is_replayed() {
    let names: Vec<&str> = crate::fuzzing::TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        ["loader", "yaml_structured", "check", "rule_file", "config_file"]
    );
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    for name in names {
        assert!(
            targets.join(format!("{name}.rs")).is_file(),
            "fuzz/fuzz_targets/{name}.rs is missing"
        );
    }
}

/// No seed is named as a configuration file: amlint's configuration discovery would read
/// it when this repository is checked (`amlint check .`), and a seed that is meant to be
/// invalid would stop the run with a configuration error.
#[test]
fn no_seed_is_a_configuration_file_of_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    for target in crate::fuzzing::TARGETS.iter().map(|(n, _)| *n) {
        for dir in [
            root.join("corpus").join(target),
            root.join("regressions").join(target),
        ] {
            for file in files(&dir) {
                let name = file.file_name().unwrap().to_str().unwrap();
                assert!(
                    !amlint::config::CONFIG_FILE_NAMES.contains(&name),
                    "{}: rename it (configuration discovery reads files of this name)",
                    file.display()
                );
            }
        }
    }
}

/// The structure-aware generator builds what its seeds ask for (a change that made it
/// emit nothing, or only one kind of line, would leave the target fuzzing very little).
#[test]
fn the_yaml_generator_builds_structures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/yaml_structured");
    let text = |seed: &str| crate::fuzzing::generate_yaml(&std::fs::read(root.join(seed)).unwrap());
    let anchors = text("anchors-merges");
    assert!(anchors.contains("<<: *a") && anchors.contains("&a"), "{anchors}");
    assert!(text("deep-flow").matches('[').count() > 200);
    assert!(text("deep-block").lines().count() > 500);
    assert!(text("long-lines").lines().any(|l| l.len() > 60_000));
    assert!(text("quoted-continued").contains("q: \""));
    let block = text("block-scalars");
    assert!(block.contains("b: |") && block.contains("b: >"), "{block}");
    let line_breaks = text("line-breaks");
    assert!(line_breaks.contains('\u{85}') || line_breaks.contains('\u{2028}'));
    for seed in files(&root) {
        let data = std::fs::read(&seed).unwrap();
        assert!(crate::fuzzing::generate_yaml(&data).len() <= crate::fuzzing::MAX_INPUT);
    }
}
