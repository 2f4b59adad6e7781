//! amlint's reading of YAML files in the canonical form of `scripts/yaml_pyyaml_diff.py`,
//! for its comparison with PyYAML on the real corpora: one path per line on standard
//! input, one JSON object per file on standard output (`path`, `verdict` — `ok` or
//! `error` —, `docs`, the first load `error`).
//!
//! With `--cases`, each line of standard input is a YAML text as a JSON string instead,
//! and each output line also lists every load error with PyYAML's line and column
//! (`scripts/yaml_pyyaml_diff.py random`). With `--generate FILE...`, it prints the YAML
//! text the `yaml_structured` fuzz target makes of each file, as a JSON string per line
//! (`scripts/yaml_pyyaml_diff.py fuzzed`).
//!
//!     cargo build --release --example yaml_canon
//!     python scripts/yaml_pyyaml_diff.py corpus target/release/examples/yaml_canon
// A maintainer tool reading the repository's own files, not a path a checked file names.
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
#[path = "../tests/it/fuzzing.rs"]
mod fuzzing;
#[path = "../tests/it/yaml_canon.rs"]
mod yaml_canon;

use std::io::BufRead;

fn main() {
    let limits = amlint::limits::Limits::default();
    if std::env::args().any(|a| a == "--cases") {
        return cases(&limits);
    }
    if std::env::args().nth(1).as_deref() == Some("--generate") {
        for path in std::env::args().skip(2) {
            let data = std::fs::read(&path).expect("a readable file");
            println!("{}", serde_json::Value::String(fuzzing::generate_yaml(&data)));
        }
        return;
    }
    for line in std::io::stdin().lock().lines() {
        let path = line.expect("a line of standard input");
        let text = match std::fs::read(&path).map(amlint::load::decode) {
            Ok(Ok(text)) => text,
            _ => {
                println!("{}", serde_json::json!({"path": path, "verdict": "unreadable"}));
                continue;
            }
        };
        let loaded = amlint::load::parse_text(&path, text, amlint::load::Format::Yaml, &limits);
        let error = loaded
            .diagnostics
            .iter()
            .find(|d| matches!(d.code, "AML001" | "AML005"))
            .map(|d| {
                let (line, column) = yaml_canon::pyyaml_position(&loaded.source.text, d.span.start as usize);
                format!("{} at {line}:{column}: {}", d.code, d.message)
            });
        let record = match error {
            Some(error) => serde_json::json!({"path": path, "verdict": "error", "error": error}),
            None => {
                serde_json::json!({"path": path, "verdict": "ok", "docs": yaml_canon::documents(&loaded)})
            }
        };
        println!("{record}");
    }
}

fn cases(limits: &amlint::limits::Limits) {
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("a line of standard input");
        let text: String = serde_json::from_str(&line).expect("a JSON string");
        let loaded = amlint::load::parse_text("case.yml", text, amlint::load::Format::Yaml, limits);
        let errors: Vec<_> = loaded
            .diagnostics
            .iter()
            .filter(|d| matches!(d.code, "AML001" | "AML005"))
            .map(|d| {
                let (line, column) = yaml_canon::pyyaml_position(&loaded.source.text, d.span.start as usize);
                serde_json::json!({"code": d.code, "line": line, "column": column, "message": d.message})
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({"docs": yaml_canon::documents(&loaded), "errors": errors})
        );
    }
}
