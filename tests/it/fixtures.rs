//! Every file under `fixtures/` carries its expectations inline, and this test fails on
//! any missing or unexpected diagnostic.
//!
//! The annotations (`amlint::rule_test`, which `amlint test` uses for user cases too):
//!
//! - YAML: `key: value   # expect: AML503` — the diagnostic must start on that line. Several
//!   codes: `# expect: AML101, AML103`; the same code twice: `# expect: AML002 x2`.
//!   A line that cannot carry a comment (inside a block scalar) is annotated from the
//!   line before with a comment line of its own: `# expect-next: AML003`. The severity
//!   the finding must have (after the configuration's profile and overrides) follows in
//!   parentheses: `# expect: AML203 (warning)`.
//! - JSON (no comments): a sidecar `<file>.expect` with lines `LINE: CODE[, CODE]`.
//! - A file without expectations must produce no diagnostic at all.
//!
//! The whole `fixtures/` tree is checked in one run, as a project, so that cross-file facts
//! resolve between fixtures of the same directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use amlint::pipeline::{Options, check_paths};

type Expected = BTreeMap<(String, u32), Vec<String>>;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Reads the expectations of one fixture file (the annotation format is the library's:
/// `amlint test` reads user cases the same way).
fn expectations(path: &Path, display: &str, expected: &mut Expected) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let boundary = amlint::fsio::Boundary::at(&fixtures_dir());
    let list = amlint::rule_test::expectations_of(path, &text, &boundary).unwrap_or_else(|e| panic!("{e}"));
    for (line, codes) in list {
        expected
            .entry((display.to_string(), line))
            .or_default()
            .extend(codes);
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_fixture_matches_its_expectations() {
    let root = fixtures_dir();
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut expected = Expected::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        if name.ends_with(".expect") || !amlint::discover::is_config_name(&name) {
            continue;
        }
        let display = f.to_string_lossy().replace('\\', "/");
        expectations(f, &display, &mut expected);
    }

    // A fixed date: retirement dates must not make the suite change with the calendar.
    let options = Options {
        today: Some("2026-11-22".to_string()),
        ..Options::default()
    };
    let report = check_paths(std::slice::from_ref(&root), &options);
    // Compared with its severity where the expectation names one.
    let mut actual = amlint::rule_test::found(&report, &expected);
    for codes in expected.values_mut().chain(actual.values_mut()) {
        codes.sort();
    }

    let mut problems = Vec::new();
    let keys: std::collections::BTreeSet<_> = expected.keys().chain(actual.keys()).cloned().collect();
    for key in keys {
        let want = expected.get(&key).cloned().unwrap_or_default();
        let got = actual.get(&key).cloned().unwrap_or_default();
        if want != got {
            let rel = key
                .0
                .strip_prefix(&format!("{}/", root.display()))
                .unwrap_or(&key.0);
            let messages: Vec<String> = report
                .diagnostics()
                .filter(|(f, d)| f.source.path == key.0 && f.source.position(d.span.start).line == key.1)
                .map(|(_, d)| format!("      {} ({}): {}", d.code, d.severity, d.message))
                .collect();
            problems.push(format!(
                "{rel}:{}: expected {want:?}, got {got:?}\n{}",
                key.1,
                messages.join("\n")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} fixture line(s) disagree:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(expected.len() > 5, "the fixtures carry too few expectations");
}
