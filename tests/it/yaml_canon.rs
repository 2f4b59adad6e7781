//! The canonical form of loaded YAML that `scripts/yaml_pyyaml_diff.py` writes for
//! PyYAML's values, computed from amlint's trees: every scalar a string with a type
//! prefix (`n`, `b1`/`b0`, `i<int>`, `f<Python repr>`, `s<text>`, `t` for dates and
//! times), lists as arrays, mappings as objects keyed by their keys' canonical strings,
//! as a Python `dict` keeps them (the first of equal keys — `1`, `1.0`, `True` — with the
//! last value). Shared by `tests/it/yaml_pyyaml_diff.rs` and `examples/yaml_canon.rs`.

use amlint::document::yaml11::python_float_repr;
use amlint::document::{Document, NodeId, Value};
use amlint::load::LoadedFile;
use std::collections::HashMap;

use serde_json::Value as Json;

/// Aliases nest at most this deep in the test inputs; deeper means a loop.
const MAX_DEPTH: usize = 256;

/// The canonical value of every document of a loaded file.
pub fn documents(loaded: &LoadedFile) -> Json {
    Json::Array(
        loaded
            .documents
            .iter()
            .map(|d| d.root.map_or_else(|| Json::String("n".into()), |r| node(d, r, 0)))
            .collect(),
    )
}

fn scalar(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => "n".into(),
        Value::Bool(b) => if *b { "b1" } else { "b0" }.into(),
        Value::Int(i) => format!("i{i}"),
        // Over 4,300 digits Python prints no integer (ValueError), and amlint keeps it as
        // written.
        Value::BigInt(s) if s.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()) => format!("i{s}"),
        Value::BigInt(_) => "i<huge>".into(),
        Value::Float(f) => format!("f{}", python_float_repr(*f)),
        Value::Str(s) => format!("s{s}"),
        Value::Timestamp(_) => "t".into(),
        Value::Seq(_) | Value::Map(_) | Value::Alias(_) => return None,
    })
}

/// What a Python `dict` compares a key by: numbers (and bools) by value, the rest by
/// their canonical string.
fn key_identity(value: &Value, canonical: &str) -> String {
    match value {
        Value::Bool(b) => format!("#{}", i64::from(*b)),
        Value::Int(i) => format!("#{i}"),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("#{}", *f as i64),
        _ => canonical.to_string(),
    }
}

fn node(doc: &Document, id: NodeId, depth: usize) -> Json {
    if depth > MAX_DEPTH {
        return Json::String("<too deep>".into());
    }
    let value = doc.value(id);
    if let Some(s) = scalar(value) {
        return Json::String(s);
    }
    match value {
        Value::Seq(items) => Json::Array(items.iter().map(|&i| node(doc, i, depth + 1)).collect()),
        Value::Map(entries) => {
            // (canonical key, value) in first-insertion order, found by identity.
            let mut kept: Vec<(String, Json)> = Vec::new();
            let mut index: HashMap<String, usize> = HashMap::new();
            for e in entries {
                let key = doc.value(e.key);
                let canonical = scalar(key).unwrap_or_else(|| "<unhashable>".into());
                let identity = key_identity(key, &canonical);
                let v = node(doc, e.value, depth + 1);
                match index.get(&identity) {
                    Some(&i) => kept[i].1 = v,
                    None => {
                        index.insert(identity, kept.len());
                        kept.push((canonical, v));
                    }
                }
            }
            Json::Object(kept.into_iter().collect())
        }
        _ => unreachable!("scalars are handled above"),
    }
}

/// PyYAML's 1-based line and column of byte `offset` of `text` (a leading BOM is not
/// part of the stream PyYAML reads): line breaks are LF, CR, CRLF, NEL, LS and PS, and a
/// BOM inside the text takes no column.
pub fn pyyaml_position(text: &str, offset: usize) -> (u32, u32) {
    let body_start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let offset = offset.clamp(body_start, text.len());
    let (mut line, mut column) = (1, 1);
    let bytes = text.as_bytes();
    for (i, c) in text[body_start..offset].char_indices() {
        match c {
            // The SDK reads files with universal newlines: CRLF is one LF.
            '\r' if bytes.get(body_start + i + 1) == Some(&b'\n') => {}
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                line += 1;
                column = 1;
            }
            '\u{feff}' => {}
            _ => column += 1,
        }
    }
    (line, column)
}
