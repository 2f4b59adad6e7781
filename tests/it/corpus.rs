//! The reference corpus (Microsoft's azureml-examples `cli/`, outside this repository at
//! `../shared/corpus/azureml-examples`, or `$AMLINT_CORPUS`) loads without a load error on
//! every file that PyYAML loads, and every reported range points at real text.

use std::collections::HashMap;
use std::path::PathBuf;

use amlint::pipeline::{Options, check_paths};

fn corpus() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("AMLINT_CORPUS").map(PathBuf::from),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/azureml-examples")),
        Some(PathBuf::from("/work/shared/corpus/azureml-examples")),
    ];
    candidates.into_iter().flatten().find(|p| p.join("cli").is_dir())
}

/// Files PyYAML cannot load (`scripts/corpus_pyyaml.py`).
/// The corpus and the options its runs use (a fixed `today`), or `None` (said on stderr)
/// when the corpus is not there.
fn corpus_run() -> Option<(PathBuf, Options)> {
    let Some(root) = corpus() else {
        eprintln!("corpus not found (set AMLINT_CORPUS); skipping");
        return None;
    };
    let options = Options {
        today: Some("2026-11-22".to_string()),
        ..Options::default()
    };
    Some((root, options))
}

fn pyyaml_failures() -> HashMap<String, String> {
    include_str!("../data/corpus_pyyaml_failures.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(p, e)| (p.to_string(), e.to_string()))
        .collect()
}

#[test]
fn corpus_loads_like_pyyaml_and_ranges_point_at_text() {
    let Some((root, options)) = corpus_run() else {
        return;
    };
    let report = check_paths(&[root.join("cli")], &options);
    let failures = pyyaml_failures();
    let rel = |p: &str| {
        p.strip_prefix(&format!("{}/", root.display()))
            .unwrap_or(p)
            .to_string()
    };
    let mut problems = Vec::new();
    let mut with_load_error = std::collections::BTreeSet::new();
    for (file, d) in report.diagnostics() {
        let path = rel(&file.source.path);
        if matches!(d.code, "AML001" | "AML004" | "AML005") {
            with_load_error.insert(path.clone());
            if !failures.contains_key(&path) {
                problems.push(format!(
                    "{path}: {} although PyYAML loads the file: {}",
                    d.code, d.message
                ));
            }
        }
        // Recompute the position from the byte offset, independently of amlint.
        let text = &file.source.text;
        let (start, end) = (d.span.start as usize, d.span.end as usize);
        if start > end || end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            problems.push(format!(
                "{path}: {} has a span {start}..{end} outside the text",
                d.code
            ));
            continue;
        }
        let before = &text[..start];
        let line = before.matches('\n').count() as u32 + 1;
        let column = before[before.rfind('\n').map_or(0, |i| i + 1)..].chars().count() as u32 + 1;
        let pos = file.source.position(d.span.start);
        if (pos.line, pos.column) != (line, column) {
            problems.push(format!(
                "{path}: {} at {}:{} but the offset says {line}:{column}",
                d.code, pos.line, pos.column
            ));
        }
    }
    // Every Azure ML file that PyYAML rejects is rejected by amlint too.
    for (path, error) in &failures {
        let checked = report
            .files
            .iter()
            .any(|f| rel(&f.source.path) == *path && f.checked);
        if checked && !with_load_error.contains(path) {
            problems.push(format!(
                "{path}: PyYAML fails ({error}) but amlint reports no load error"
            ));
        }
    }
    let summary = report.summary();
    assert!(
        summary.files_checked > 400,
        "only {} corpus files checked",
        summary.files_checked
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A large run checks files as soon as they are loaded when their checks need nothing
/// from the project index, and parses waiting files again beyond a memory budget: the
/// corpus run that way (every file "large", no tree kept while waiting) reports exactly
/// what the ordinary run does — in every output format, the inventory and `--show-files`.
#[test]
fn a_large_run_reports_what_an_ordinary_run_does() {
    let Some((root, ordinary)) = corpus_run() else {
        return;
    };
    let mut large = ordinary.clone();
    large.large_run.files = 1;
    large.large_run.waiting_trees_bytes = 0;
    let a = check_paths(&[root.join("cli")], &ordinary);
    let b = check_paths(&[root.join("cli")], &large);
    assert!(a.diagnostics().count() > 100, "the corpus has findings");
    assert_eq!(amlint::report::json::render(&a), amlint::report::json::render(&b));
    assert_eq!(
        amlint::report::sarif::render(&a),
        amlint::report::sarif::render(&b)
    );
    let style = amlint::report::human::TerminalStyle {
        color: false,
        width: 100,
    };
    let human = |r: &amlint::results::Report| amlint::report::human::render(r, style, false);
    assert_eq!(human(&a), human(&b));
    // A clean file's text is dropped, but the computes it defines and names keep their
    // lines (they read 1:1 when placed in the empty text).
    assert_eq!(
        amlint::report::inventory::render_json(&a),
        amlint::report::inventory::render_json(&b)
    );
    assert_eq!(
        amlint::show_files::render(&a, true),
        amlint::show_files::render(&b, true)
    );
}
