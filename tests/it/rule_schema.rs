//! `rules/rule.schema.json` — the schema rule authors get completion from — agrees with the
//! rule files amlint ships: every built-in rule file validates against it, and the engine's
//! own rule-file errors (a missing `code`, an unknown key) are errors of the schema too.

use std::path::{Path, PathBuf};

use amlint::limits::Limits;
use amlint::load::{Format, parse_text};
use serde_json::Value;

fn rule_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "data") {
                rule_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
}

/// A rule file as the engine reads it (YAML 1.1, as every amlint input), as JSON.
fn as_json(name: &str, text: &str) -> Value {
    let loaded = parse_text(name, text.to_string(), Format::Yaml, &Limits::default());
    assert!(
        loaded.diagnostics.iter().all(|d| d.code != "AML001"),
        "{name} does not parse"
    );
    loaded.documents[0].to_json()
}

fn validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/rule.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::options().build(&schema).unwrap()
}

#[test]
fn every_built_in_rule_file_validates_against_the_rule_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut files = Vec::new();
    rule_files(&root, &mut files);
    assert!(files.len() >= 30, "only {} rule files", files.len());
    let v = validator();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let json = as_json(&file.to_string_lossy(), &text);
        let errors: Vec<String> = v
            .iter_errors(&json)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
    }
}

#[test]
fn what_the_engine_rejects_the_schema_rejects() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut files = Vec::new();
    rule_files(&root, &mut files);
    files.sort();
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let v = validator();
    let good = as_json("good.yaml", &text);
    assert!(v.is_valid(&good));
    // Without its code.
    let mut no_code = good.clone();
    no_code.as_object_mut().unwrap().remove("code");
    assert!(!v.is_valid(&no_code));
    assert!(amlint::registry::Registry::from_files([("r.yaml", &*strip_line(&text, "code:"))]).is_err());
    // With an unknown key.
    let mut unknown = good.clone();
    unknown
        .as_object_mut()
        .unwrap()
        .insert("severty".into(), Value::from("error"));
    assert!(!v.is_valid(&unknown));
    assert!(
        amlint::registry::Registry::from_files([("r.yaml", &*format!("{text}\nseverty: error\n"))]).is_err()
    );
    // Exactly one of `example` and `example_note`: neither, or both, is refused by both.
    let declarative = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .find(|t| t.contains("\nexample:") && t.contains("\nwhen:"))
        .unwrap();
    let with_example = as_json("good.yaml", &declarative);
    assert!(v.is_valid(&with_example));
    let mut neither = with_example.clone();
    neither.as_object_mut().unwrap().remove("example");
    assert!(!v.is_valid(&neither));
    let without_example: String = {
        let mut out = String::new();
        let mut skipping = false;
        for line in declarative.lines() {
            if line.starts_with("example:") {
                skipping = true;
                continue;
            }
            if skipping && (line.starts_with(' ') || line.is_empty()) {
                continue;
            }
            skipping = false;
            out.push_str(line);
            out.push('\n');
        }
        out
    };
    assert!(amlint::registry::Registry::from_files([("r.yaml", &*without_example)]).is_err());
    let mut both = with_example.clone();
    both.as_object_mut()
        .unwrap()
        .insert("example_note".into(), Value::from("no example"));
    assert!(!v.is_valid(&both));
    assert!(
        amlint::registry::Registry::from_files([(
            "r.yaml",
            &*format!("{declarative}\nexample_note: no example\n")
        )])
        .is_err()
    );
}

fn strip_line(text: &str, prefix: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with(prefix))
        .map(|l| format!("{l}\n"))
        .collect()
}
