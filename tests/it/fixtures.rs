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
//!
//! Every rule of the registry (every `rules/*/AMLnnn-*.yaml`) is shown by at least one
//! fixture expectation, but for the few listed in `NO_FIXTURE` with the reason no file on
//! disk can produce them (`every_rule_is_shown_by_a_fixture`).

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

/// The expectations of every fixture file, by file and line.
fn all_expectations() -> Expected {
    let mut files = Vec::new();
    walk(&fixtures_dir(), &mut files);
    let mut expected = Expected::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        if name.ends_with(".expect") || !amlint::discover::is_config_name(&name) {
            continue;
        }
        let display = f.to_string_lossy().replace('\\', "/");
        expectations(f, &display, &mut expected);
    }
    expected
}

#[test]
fn every_fixture_matches_its_expectations() {
    let root = fixtures_dir();
    let mut expected = all_expectations();

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

/// The rules that no file on disk can produce, each with why, and the test that shows
/// the rule instead. Nothing else belongs here: a rule that a configuration, an
/// inventory or a nested `amlint.toml` can trigger gets a fixture in its own folder.
const NO_FIXTURE: &[(&str, &str)] = &[
    // AML000 (internal-error) is what a panic inside amlint becomes (`pipeline::guarded`
    // turns it into a finding for that file alone). A file that produced it would show a
    // bug to fix, not the rule: once fixed, the fixture would stop producing it. Covered by
    // `pipeline::tests::a_panic_becomes_an_internal_error_for_its_file_alone`
    // (src/pipeline.rs), which panics on purpose.
    ("AML000", "a panic inside amlint, not a property of any file"),
];

/// The codes of the rule files under `rules/` (`AML101-unknown-key.yaml` is AML101).
fn rule_file_codes(dir: &Path, out: &mut std::collections::BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            rule_file_codes(&p, out);
        } else if let Some(code) = name
            .strip_suffix(".yaml")
            .and_then(|stem| stem.split_once('-'))
            .map(|(code, _)| code)
            .filter(|code| code.starts_with("AML") && code[3..].bytes().all(|b| b.is_ascii_digit()))
        {
            out.insert(code.to_string());
        }
    }
}

/// Every rule is shown by at least one fixture: an `# expect:` annotation (or a
/// `.expect` sidecar line) naming its code. `every_fixture_matches_its_expectations`
/// makes each annotation a finding amlint really reports there, so together they say that
/// every rule fires on a file of `fixtures/`.
#[test]
fn every_rule_is_shown_by_a_fixture() {
    let shown: std::collections::BTreeSet<String> = all_expectations()
        .into_values()
        .flatten()
        // `AML203 (warning)`: the code without the severity.
        .map(|c| c.split_whitespace().next().unwrap_or_default().to_string())
        .collect();

    // The registry is every rule file under rules/, and nothing else.
    let registry: std::collections::BTreeSet<String> = amlint::registry::builtin()
        .rules()
        .iter()
        .map(|r| r.code.to_string())
        .collect();
    let mut on_disk = std::collections::BTreeSet::new();
    rule_file_codes(&Path::new(env!("CARGO_MANIFEST_DIR")).join("rules"), &mut on_disk);
    assert_eq!(
        registry, on_disk,
        "the registry's rules are the rule files under rules/"
    );
    assert!(registry.len() > 50, "too few rules: {registry:?}");

    let exempt: std::collections::BTreeSet<String> =
        NO_FIXTURE.iter().map(|(code, _)| code.to_string()).collect();
    let missing: Vec<&String> = registry
        .iter()
        .filter(|c| !shown.contains(*c) && !exempt.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "rule(s) without a fixture under fixtures/ (add one with `# expect: CODE`, or a `.expect` sidecar for JSON): {missing:?}"
    );
    // An exemption names a rule of the registry that no fixture shows: one that a fixture
    // now shows, or that is no rule, is removed from the list.
    let stale: Vec<&String> = exempt
        .iter()
        .filter(|c| shown.contains(*c) || !registry.contains(*c))
        .collect();
    assert!(
        stale.is_empty(),
        "exemption(s) in NO_FIXTURE that no longer hold: {stale:?}"
    );
}
