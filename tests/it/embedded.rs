//! What `build.rs` embeds is what the repository's files say: every YAML data file
//! (rules, the VM catalogue, the kinds table) converted to JSON reads exactly as
//! amlint's own YAML 1.1 loader reads the source, and every kind schema is a
//! self-contained bundle whose references all resolve inside it.

use std::path::{Path, PathBuf};

use std::collections::HashMap;

use amlint::diagnostic::{RuleId, codes};
use amlint::embedded::{DATA_FILES, KIND_SCHEMAS, RULE_FILES, SCHEMA_FILES, SHARED_SCHEMAS};
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source file's tree, read by the loader that reads user files, as JSON.
fn source_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (_, doc) = amlint::data::parse(&path.display().to_string(), &text, amlint::load::Format::Yaml)
        .unwrap_or_else(|e| panic!("{e}"));
    doc.to_json()
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
}

#[test]
fn embedded_data_reads_as_its_yaml_source() {
    let tables: [(&str, &[(&str, &str)]); 3] = [
        ("", RULE_FILES),
        ("rules/data/", DATA_FILES),
        ("schemas/", SCHEMA_FILES),
    ];
    let mut compared = 0;
    for (dir, table) in tables {
        for (name, json) in table {
            let source = repo().join(format!("{dir}{name}"));
            let embedded: Value = serde_json::from_str(json).unwrap();
            assert_eq!(
                embedded,
                source_json(&source),
                "{} differs once embedded",
                source.display()
            );
            compared += 1;
        }
    }
    // Every rule file and data file is embedded.
    let mut on_disk = Vec::new();
    yaml_files(&repo().join("rules"), &mut on_disk);
    yaml_files(&repo().join("schemas"), &mut on_disk);
    assert_eq!(
        compared,
        on_disk.len(),
        "embedded {compared} of {} YAML files",
        on_disk.len()
    );
    assert!(compared > 35, "{compared} files");
}

/// Every reference of a bundle resolves in it, or in a document of shared definitions:
/// each `x-amlint-lazy` (a definition: `<name>` of the bundle, `<document>#<name>` of a
/// shared document; every reference to a whole definition is embedded in this form) and
/// each `$ref` left.
fn check_refs(root: &Value, shared: &HashMap<String, Value>, schema: &Value, kind: &str, count: &mut usize) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map {
                if let ("x-amlint-lazy", Value::String(r)) = (k.as_str(), v) {
                    let (doc, name) = match r.split_once('#') {
                        None => (root, r.as_str()),
                        Some((file, name)) => (
                            shared
                                .get(&format!("{file}.schema.json"))
                                .unwrap_or_else(|| panic!("{kind}: `{r}` leaves the bundle")),
                            name,
                        ),
                    };
                    assert!(doc["$defs"].get(name).is_some(), "{kind}: `{r}` does not resolve");
                    *count += 1;
                } else if let ("$ref", Value::String(r)) = (k.as_str(), v) {
                    let (doc, fragment) = match r.split_once('#') {
                        Some(("", fragment)) => (root, fragment),
                        Some((file, fragment)) if shared.contains_key(file) => (&shared[file], fragment),
                        _ => panic!("{kind}: `{r}` leaves the bundle"),
                    };
                    assert!(doc.pointer(fragment).is_some(), "{kind}: `{r}` does not resolve");
                    *count += 1;
                } else {
                    check_refs(root, shared, v, kind, count);
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| check_refs(root, shared, v, kind, count)),
        _ => {}
    }
}

#[test]
fn kind_schemas_are_self_contained_bundles() {
    let mut refs = 0;
    let shared: HashMap<String, Value> = SHARED_SCHEMAS
        .iter()
        .map(|(id, text)| (format!("{id}.schema.json"), serde_json::from_str(text).unwrap()))
        .collect();
    for (id, _) in SHARED_SCHEMAS {
        let doc = &shared[&format!("{id}.schema.json")];
        assert_eq!(doc["$id"], format!("json-schema:///{id}.schema.json"));
        check_refs(doc, &shared, doc, id, &mut refs);
    }
    let moved: usize = shared
        .values()
        .map(|d| d["$defs"].as_object().unwrap().len())
        .sum();
    assert!(moved > 50, "only {moved} shared definitions");
    for (kind, text) in KIND_SCHEMAS {
        let doc: Value = serde_json::from_str(text).unwrap();
        assert_eq!(doc["$id"], format!("json-schema:///{kind}.schema.json"));
        check_refs(&doc, &shared, &doc, kind, &mut refs);
        // Preprocessed: no `oneOf` is left for the validator (it becomes `anyOf`).
        assert!(!text.contains("\"oneOf\""), "{kind} was not preprocessed");
    }
    assert!(refs > 1000, "only {refs} references checked");
    // One bundle per schema file of the repository.
    let files = std::fs::read_dir(repo().join("schemas"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".schema.json"))
        .count();
    assert_eq!(KIND_SCHEMAS.len(), files);
}

/// Findings name their rule by a constant `build.rs` makes from the rule files
/// (`diagnostic::codes`), not through the registry: the constants must be the registry's
/// rules, rule for rule, sorted by code.
#[test]
fn rule_codes_are_the_registry_s_rules() {
    let registry = amlint::registry::builtin();
    let from_registry: Vec<RuleId> = registry.rules().iter().map(|r| r.id()).collect();
    assert_eq!(codes::ALL.to_vec(), from_registry);
    assert!(
        codes::ALL.windows(2).all(|w| w[0].code < w[1].code),
        "sorted by code"
    );
    let d = amlint::diagnostic::Diagnostic::new(codes::AML101, amlint::source::Span::at(0), "x");
    let rule = registry.get("AML101").unwrap();
    assert_eq!(
        (d.code, d.name, d.severity),
        (rule.code, rule.name, rule.severity)
    );
}
