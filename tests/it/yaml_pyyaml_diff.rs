//! amlint reads YAML as PyYAML's `yaml.safe_load` does (the Azure ML CLI's reader).
//!
//! `yaml_loads_as_pyyaml_does` replays `tests/data/yaml_pyyaml_cases.tsv` — what real
//! PyYAML made of some 13,000 generated inputs (`scripts/yaml_pyyaml_diff.py table`) —
//! through amlint's loader: an input PyYAML loads must load (no AML001 or AML005) with
//! the same values; an input PyYAML refuses must be an AML001 and, for the errors of
//! PyYAML's reader, scanner, parser and composer, one at PyYAML's position that says
//! PyYAML's problem.
//!
//! `corpus_files_load_as_pyyaml_does` loads every `.yml`/`.yaml` file of the real corpora
//! (outside the repository; skipped when absent) and checks that amlint refuses exactly
//! the files PyYAML refuses (`tests/data/yaml_pyyaml_corpus_failures.tsv`, written by
//! `scripts/yaml_pyyaml_diff.py corpus`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use amlint::diagnostic::Diagnostic;
use amlint::limits::Limits;
use amlint::load::{Format, LoadedFile, parse_text};
use serde_json::Value as Json;

use super::yaml_canon;

struct Case {
    name: String,
    input: String,
    verdict: String,
    payload: Json,
}

fn cases() -> Vec<Case> {
    include_str!("../data/yaml_pyyaml_cases.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let [name, input, verdict, payload] = cols[..] else {
                panic!("malformed line {line:?}");
            };
            Case {
                name: name.to_string(),
                input: serde_json::from_str(input).expect("input is a JSON string"),
                verdict: verdict.to_string(),
                payload: serde_json::from_str(payload).expect("payload is JSON"),
            }
        })
        .collect()
}

fn load(text: &str) -> LoadedFile {
    parse_text("case.yml", text.to_string(), Format::Yaml, &Limits::default())
}

/// Findings that mean the file does not load.
fn load_errors(loaded: &LoadedFile) -> Vec<&Diagnostic> {
    loaded
        .diagnostics
        .iter()
        .filter(|d| matches!(d.code, "AML001" | "AML005"))
        .collect()
}

fn describe(loaded: &LoadedFile, d: &Diagnostic) -> String {
    let (line, column) = yaml_canon::pyyaml_position(&loaded.source.text, d.span.start as usize);
    format!("{} at {line}:{column}: {}", d.code, d.message)
}

/// How amlint's loading of the case differs from PyYAML's, if it does: a kind
/// (`refused`, `accepted`, `value`, `position`) and what was seen.
fn disagreement(case: &Case) -> Option<(&'static str, String)> {
    let loaded = load(&case.input);
    let errors = load_errors(&loaded);
    match case.verdict.as_str() {
        "ok" => {
            if let Some(d) = errors.first() {
                return Some(("refused", describe(&loaded, d)));
            }
            let got = yaml_canon::documents(&loaded);
            (got != case.payload).then(|| ("value", format!("PyYAML {} amlint {got}", case.payload)))
        }
        "recursive" => (!errors.iter().any(|d| d.code == "AML005")).then(|| {
            (
                "accepted",
                "PyYAML builds a self-containing structure; amlint gives no AML005".into(),
            )
        }),
        "error" => {
            let p = &case.payload;
            let problem = p["problem"].as_str().unwrap_or_default();
            if errors.is_empty() {
                return Some(("accepted", format!("PyYAML: {} {problem}", p["class"])));
            }
            let marked = matches!(
                p["class"].as_str(),
                Some("ScannerError" | "ParserError" | "ComposerError" | "ConstructorError" | "ReaderError")
            );
            let (Some(line), Some(column)) = (p["line"].as_u64(), p["column"].as_u64()) else {
                return None;
            };
            let at = (line as u32, column as u32);
            let found = errors.iter().any(|d| {
                let (l, c) = yaml_canon::pyyaml_position(&loaded.source.text, d.span.start as usize);
                // A `{{NAME}}` placeholder (a mapping as a key) is underlined whole, from
                // the outer brace, one character before PyYAML's mark (the inner mapping).
                let template = problem == "found unhashable key"
                    && d.message.contains("template placeholder")
                    && (l, c + 1) == at;
                d.code == "AML001" && ((l, c) == at || template) && (d.message.contains(problem) || template)
            });
            (marked && !found).then(|| {
                (
                    "position",
                    format!(
                        "PyYAML {line}:{column}: {problem}; amlint {}",
                        errors
                            .iter()
                            .map(|d| describe(&loaded, d))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    ),
                )
            })
        }
        other => panic!("{}: unknown verdict {other}", case.name),
    }
}

#[test]
fn yaml_loads_as_pyyaml_does() {
    let cases = cases();
    assert!(cases.len() > 10_000, "only {} cases", cases.len());
    let found: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let (kind, detail) = disagreement(case)?;
            Some(format!("{} [{kind}] {:?}\n    {detail}", case.name, case.input))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} of {} cases disagree with PyYAML:\n{}",
        found.len(),
        cases.len(),
        found
            .iter()
            .take(200)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The corpora: (name as in the failures table, root).
fn corpora() -> Vec<(&'static str, PathBuf)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        ("corpus", "../shared/corpus", "/work/shared/corpus"),
        ("realworld", "../shared/realworld", "/work/shared/realworld"),
        ("owncorpus", "../owncorpus", "/work/owncorpus"),
    ]
    .into_iter()
    .filter_map(|(name, rel, abs)| {
        [manifest.join(rel), PathBuf::from(abs)]
            .into_iter()
            .find(|p| p.is_dir())
            .map(|p| (name, p))
    })
    .collect()
}

fn yaml_files(root: &Path, out: &mut Vec<PathBuf>) {
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(ty) = entry.file_type() else { continue };
            if ty.is_dir() && !name.starts_with('.') {
                dirs.push(entry.path());
            } else if ty.is_file() && {
                let lower = name.to_ascii_lowercase();
                lower.ends_with(".yml") || lower.ends_with(".yaml")
            } {
                out.push(entry.path());
            }
        }
    }
}

#[test]
fn corpus_files_load_as_pyyaml_does() {
    let corpora = corpora();
    if corpora.is_empty() {
        eprintln!("no corpus found; skipping");
        return;
    }
    let refused: BTreeMap<(String, String), String> = include_str!("../data/yaml_pyyaml_corpus_failures.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let cols: Vec<&str> = l.splitn(5, '\t').collect();
            ((cols[0].to_string(), cols[1].to_string()), cols[2..].join(" "))
        })
        .collect();
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, root) in &corpora {
        let mut files = Vec::new();
        yaml_files(root, &mut files);
        for path in files {
            let Ok(bytes) = std::fs::read(&path) else { continue };
            // Files that are not UTF-8 text are refused before parsing (AML004), as the
            // script skips them.
            if bytes.contains(&0) || bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
                continue;
            }
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let loaded = parse_text(&rel, text, Format::Yaml, &Limits::default());
            let errors = load_errors(&loaded);
            checked += 1;
            match (refused.get(&(name.to_string(), rel.clone())), errors.first()) {
                (None, Some(d)) => problems.push(format!(
                    "{name}/{rel}: PyYAML loads it, amlint: {}",
                    describe(&loaded, d)
                )),
                (Some(why), None) => problems.push(format!(
                    "{name}/{rel}: PyYAML refuses it ({why}), amlint loads it"
                )),
                _ => {}
            }
        }
    }
    assert!(checked > 500, "only {checked} corpus files");
    assert!(
        problems.is_empty(),
        "{} of {checked} files:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
