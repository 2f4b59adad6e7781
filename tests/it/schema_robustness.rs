//! No input makes schema validation or the reference checks panic: every line of every
//! schema fixture is deleted, emptied, or has its value replaced by values of other types,
//! and every variant is checked. The fact base (the index of every fixture) is built once,
//! as a run builds it, and each variant goes through the same checks a run applies.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use amlint::facts::FactBase;
use amlint::limits::Limits;
use amlint::load::{Format, Seen, load_path, parse_text};
use amlint::pipeline::{check_prepared, index_of, prepare};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p
            .extension()
            .is_some_and(|e| e == "yml" || e == "yaml" || e == "json")
        {
            out.push(p);
        }
    }
}

const REPLACEMENTS: &[&str] = &[
    "",
    "~",
    "[]",
    "{}",
    "[1, {a: b}]",
    "-1",
    "1e400",
    ".nan",
    "\"\"",
    "azureml:",
    "azureml://",
    "azureml:/subscriptions/",
    "${{parent.inputs.x}}",
    "file:",
    "../../../../../../../../etc",
    "*undefined_alias",
    "{{PLACEHOLDER}}",
    "99999999999999999999999999",
];

#[test]
fn no_variant_of_a_fixture_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/schema");
    let mut files = Vec::new();
    walk(&root, &mut files);
    assert!(files.len() > 40, "too few fixtures under {}", root.display());
    let limits = Limits::default();
    let prepared: Vec<_> = files
        .iter()
        .map(|f| {
            prepare(
                f.clone(),
                load_path(
                    f,
                    &f.to_string_lossy(),
                    Seen::Unknown,
                    &amlint::fsio::Boundary::anywhere(),
                    &limits,
                ),
                true,
            )
        })
        .collect();
    let base = FactBase {
        index: std::sync::Arc::new(index_of(prepared.iter())),
        ..FactBase::standalone()
    };
    let mut variants = 0usize;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let display = file.to_string_lossy().to_string();
        let lines: Vec<&str> = text.lines().collect();
        for i in 0..lines.len() {
            let mut candidates = Vec::new();
            // Delete the line.
            let mut without = lines.clone();
            without.remove(i);
            candidates.push(without.join("\n"));
            // Replace its value.
            if let Some((key, _)) = lines[i].split_once(": ") {
                for r in REPLACEMENTS {
                    let mut v = lines.clone();
                    let line = format!("{key}: {r}");
                    v[i] = &line;
                    candidates.push(v.join("\n"));
                }
            }
            for candidate in candidates {
                variants += 1;
                let loaded = parse_text(&display, candidate.clone(), Format::for_path(&display), &limits);
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    check_prepared(&prepare(file.clone(), loaded, true), &base, &limits)
                }));
                assert!(
                    outcome.is_ok(),
                    "{display} line {} variant panicked:\n{candidate}",
                    i + 1
                );
            }
        }
    }
    assert!(variants > 1000, "only {variants} variants");
}
