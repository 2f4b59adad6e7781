//! Replays `tests/data/yaml11_cases.tsv` — how real PyYAML (the Azure ML CLI's YAML
//! reader) resolved ~1,500 plain scalars — through amlint's loader. Regenerate the table
//! with `scripts/yaml11_cases.py`.

use amlint::document::Value;
use amlint::document::yaml11::python_str;
use amlint::limits::Limits;
use amlint::load::{Format, parse_text};

#[test]
fn yaml11_matches_pyyaml() {
    let table = include_str!("../data/yaml11_cases.tsv");
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let mut cols = line.splitn(3, '\t');
        let (Some(scalar), Some(ty), Some(expected)) = (cols.next(), cols.next(), cols.next()) else {
            panic!("malformed line {line:?}");
        };
        let loaded = parse_text(
            "case.yml",
            format!("k: {scalar}\n"),
            Format::Yaml,
            &Limits::default(),
        );
        checked += 1;
        if ty == "error" {
            // PyYAML raises ValueError while constructing: amlint must refuse it too.
            if !loaded.diagnostics.iter().any(|d| d.code == "AML001") {
                mismatches.push(format!("{scalar:?}: PyYAML fails, amlint accepts it"));
            }
            continue;
        }
        let doc = &loaded.documents[0];
        let root = doc.root.expect("a mapping");
        let value = doc.value(doc.get(root, "k").expect("key k"));
        let (got_ty, got) = match value {
            Value::Null => ("null", String::new()),
            Value::Bool(b) => ("bool", b.to_string()),
            Value::Int(_) | Value::BigInt(_) => ("int", python_str(value)),
            Value::Float(_) => ("float", python_str(value)),
            Value::Timestamp(_) => ("timestamp", String::new()),
            Value::Str(s) => ("str", s.to_string()),
            other => ("other", format!("{other:?}")),
        };
        if (got_ty, got.as_str()) != (ty, expected) {
            mismatches.push(format!(
                "{scalar:?}: PyYAML {ty} {expected:?}, amlint {got_ty} {got:?}"
            ));
        }
    }
    assert!(checked > 1000, "only {checked} cases");
    assert!(
        mismatches.is_empty(),
        "{} of {checked} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
