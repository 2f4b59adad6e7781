//! Embeds the data directories (`rules/`, `schemas/`) into the binary, so a release
//! build needs no files beside it. Generates `$OUT_DIR/embedded.rs`.
//!
//! The kind schemas are embedded preprocessed and bundled (`src/schema/preprocess.rs`,
//! compiled here as well): each `<kind>.schema.json` with the shared definitions of
//! `defs/common.json` it reaches, so that a run parses only what its kinds use and never
//! the whole shared file.
// Reads the repository's own rules/ and schemas/ at build time: not a path a checked
// file names, so outside `fsio` (clippy.toml).
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/schema/preprocess.rs"]
mod preprocess;

// amlint's own YAML reader (PyYAML's scanner and parser), for the data files.
#[allow(dead_code)]
#[path = "src/document/yaml/parser.rs"]
mod parser;
#[allow(dead_code)]
#[path = "src/document/yaml/scanner.rs"]
mod scanner;

/// Writes every kind schema, preprocessed and bundled, under `out/schemas/` with the
/// document of the definitions several kinds share, and returns the `SHARED_SCHEMA` text
/// and the `KIND_SCHEMAS` table: (kind id, bundled text).
fn kind_schemas(manifest: &Path, out: &Path) -> String {
    let dir = manifest.join("schemas");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let parse = |p: &Path| -> serde_json::Value {
        serde_json::from_str(&read(p)).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let mut common = parse(&dir.join("defs/common.json"));
    preprocess::preprocess(&mut common, None);
    let mut kinds: Vec<String> = std::fs::read_dir(&dir)
        .expect("schemas/")
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".schema.json")
                .map(str::to_string)
        })
        .collect();
    kinds.sort();
    let bundles = out.join("schemas");
    std::fs::create_dir_all(&bundles).expect("create $OUT_DIR/schemas");
    let mut docs: Vec<(String, serde_json::Value)> = kinds
        .into_iter()
        .map(|kind| {
            let mut doc = parse(&dir.join(format!("{kind}.schema.json")));
            preprocess::preprocess(&mut doc, Some(&kind));
            let mut doc = preprocess::bundle(&kind, doc, &common).unwrap_or_else(|e| panic!("schemas/{e}"));
            doc["$id"] = format!("{}{kind}.schema.json", preprocess::EMBEDDED_ID_BASE).into();
            (kind, doc)
        })
        .collect();
    // Shared across kinds first (the same definition is the same text in every bundle),
    // then what each document repeats within itself.
    let shared = preprocess::split_shared(&mut docs, preprocess::EMBEDDED_ID_BASE);
    let write = |name: &str, doc: &serde_json::Value| {
        let path = bundles.join(format!("{name}.schema.json"));
        std::fs::write(&path, serde_json::to_string(doc).expect("serialise")).expect("write bundle");
        format!("include_str!({:?})", path.to_string_lossy())
    };
    let mut s = String::from("pub static SHARED_SCHEMAS: &[(&str, &str)] = &[\n");
    for (id, mut doc) in shared {
        preprocess::share_repeats(&mut doc);
        preprocess::make_lazy(&mut doc);
        writeln!(s, "    ({id:?}, {}),", write(&id, &doc)).unwrap();
    }
    s.push_str("];\n");
    for (_, doc) in &mut docs {
        preprocess::share_repeats(doc);
        preprocess::make_lazy(doc);
    }
    s.push_str("pub static KIND_SCHEMAS: &[(&str, &str)] = &[\n");
    for (kind, doc) in &docs {
        let text = write(kind, doc);
        writeln!(s, "    ({kind:?}, {text}),").unwrap();
    }
    s.push_str("];\n");
    s
}

fn collect(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, root, out);
        } else {
            out.push(path.strip_prefix(root).expect("under root").to_path_buf());
        }
    }
}

/// A table of the YAML files under `dir`, each converted to JSON (`yaml_to_json`) under
/// `out/<dir>/`: (path as shown in messages, JSON text).
fn table(
    name: &str,
    manifest: &Path,
    out: &Path,
    dir: &str,
    keep: impl Fn(&str) -> bool,
    strip: &str,
) -> String {
    let root = manifest.join(dir);
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut names: Vec<String> = files
        .iter()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .filter(|p| keep(p))
        .collect();
    names.sort();
    let mut s = format!("pub static {name}: &[(&str, &str)] = &[\n");
    for n in names {
        let key = format!("{strip}{n}");
        let source = root.join(&n);
        let text = std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        let json = yaml_to_json(&text).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        let dest = out.join(dir).join(format!("{n}.json"));
        std::fs::create_dir_all(dest.parent().expect("has a parent"))
            .expect("create a directory under $OUT_DIR");
        std::fs::write(&dest, serde_json::to_string(&json).expect("serialise")).expect("write JSON");
        writeln!(s, "    ({key:?}, include_str!({:?})),", dest.to_string_lossy()).unwrap();
    }
    s.push_str("];\n");
    s
}

/// `codes.rs`: one constant per built-in rule (`AML001: RuleId`, with its name and default
/// severity), sorted by code, from the rule files under `dir` (those `RULE_FILES` embeds),
/// and `ALL`, every one of them. `diagnostic::codes` includes it: a finding names its rule
/// by constant (`Diagnostic::new(codes::AML001, ..)`), so a misspelt code does not build,
/// and nothing made while files load waits for the rule registry.
fn rule_codes(dir: &Path) -> String {
    let mut files = Vec::new();
    collect(dir, dir, &mut files);
    let mut ids: Vec<(String, String, String)> = files
        .iter()
        .filter(|p| {
            let p = p.to_string_lossy().replace('\\', "/");
            (p.ends_with(".yaml") || p.ends_with(".yml")) && !p.starts_with("data/")
        })
        .map(|p| {
            let path = dir.join(p);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let rule = yaml_to_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let field = |k: &str| {
                rule[k]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: no `{k}`", path.display()))
                    .to_string()
            };
            (field("code"), field("name"), field("severity"))
        })
        .collect();
    ids.sort();
    let mut s = String::from("// Generated by build.rs from rules/**/*.yaml.\n");
    for (code, name, severity) in &ids {
        let variant = match severity.as_str() {
            "error" => "Error",
            "warning" => "Warning",
            "info" => "Info",
            other => panic!("rule {code}: unknown severity `{other}`"),
        };
        writeln!(
            s,
            "/// `{name}`\npub const {code}: RuleId = RuleId {{ code: {code:?}, name: {name:?}, severity: Severity::{variant} }};"
        )
        .unwrap();
    }
    s.push_str("/// Every built-in rule, sorted by code.\npub const ALL: &[RuleId] = &[");
    for (code, ..) in &ids {
        write!(s, "{code}, ").unwrap();
    }
    s.push_str("];\n");
    s
}

/// One YAML document of amlint's own data → JSON, with the scalars read as amlint's YAML
/// 1.1 loader reads them. Only what the data files use is supported (no anchors, aliases,
/// tags or several documents); anything else, and any plain scalar whose YAML 1.1
/// reading this function does not know for sure (`010`, `1_000`, `1:30`, `.inf`, ...),
/// fails the build, so the embedded JSON always means what the YAML says. The test
/// suite compares every embedded file with its source read by the real loader.
fn yaml_to_json(text: &str) -> Result<serde_json::Value, String> {
    use parser::{EventKind, Parser};
    use scanner::ScalarStyle;
    use serde_json::{Map, Value};

    enum Open {
        Seq(Vec<Value>),
        Map(Map<String, Value>, Option<String>),
    }
    fn attach(stack: &mut [Open], root: &mut Option<Value>, v: Value) -> Result<(), String> {
        match stack.last_mut() {
            None => *root = Some(v),
            Some(Open::Seq(items)) => items.push(v),
            Some(Open::Map(map, key)) => match key.take() {
                None => match v {
                    Value::String(k) => *key = Some(k),
                    other => return Err(format!("a non-string key: {other}")),
                },
                Some(k) => {
                    if map.insert(k.clone(), v).is_some() {
                        return Err(format!("duplicate key `{k}`"));
                    }
                }
            },
        }
        Ok(())
    }
    fn plain(s: &str) -> Result<Value, String> {
        Ok(match s {
            "" | "~" | "null" | "Null" | "NULL" => Value::Null,
            "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Value::Bool(true),
            "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Value::Bool(false),
            _ => {
                let body = s.strip_prefix(['-', '+']).unwrap_or(s);
                let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
                let starts_numeric = body.starts_with(|c: char| c.is_ascii_digit() || c == '.');
                if digits(body) && (body == "0" || !body.starts_with('0')) {
                    Value::from(s.parse::<i64>().map_err(|e| format!("`{s}`: {e}"))?)
                } else if let Some((int, frac)) = body.split_once('.')
                    && digits(int)
                    && digits(frac)
                    && (int == "0" || !int.starts_with('0'))
                {
                    let f: f64 = s.parse().map_err(|e| format!("`{s}`: {e}"))?;
                    serde_json::Number::from_f64(f)
                        .map(Value::Number)
                        .ok_or(format!("`{s}`"))?
                } else if starts_numeric
                    && body
                        .bytes()
                        .all(|b| b.is_ascii_digit() || b"._:eE+-xXoObB".contains(&b))
                {
                    return Err(format!(
                        "the plain scalar `{s}` may be a YAML 1.1 number: quote it, or write a plain integer or decimal"
                    ));
                } else if s.starts_with('.') && matches!(&s.to_ascii_lowercase()[1..], "inf" | "nan") {
                    return Err(format!("the plain scalar `{s}` is a YAML 1.1 float: quote it"));
                } else {
                    Value::String(s.to_string())
                }
            }
        })
    }

    let mut parser = Parser::new(text, 0);
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let mut documents = 0;
    while let Some(next) = parser.next_event() {
        let event = next.map_err(|e| format!("YAML error: {e}"))?;
        match event.kind {
            EventKind::StreamStart | EventKind::StreamEnd | EventKind::DocumentEnd => {}
            EventKind::DocumentStart { .. } => {
                documents += 1;
                if documents > 1 {
                    return Err("several documents".into());
                }
            }
            EventKind::Alias(_) => return Err("aliases are not supported in embedded data".into()),
            EventKind::Scalar {
                anchor,
                tag,
                value,
                style,
                ..
            } => {
                if anchor.is_some() || tag.is_some() {
                    return Err(format!(
                        "`{value}`: anchors and tags are not supported in embedded data"
                    ));
                }
                let v = if style == ScalarStyle::Plain {
                    plain(&value)?
                } else {
                    Value::String(value.into_owned())
                };
                attach(&mut stack, &mut root, v)?;
            }
            EventKind::SequenceStart { anchor, tag, .. } | EventKind::MappingStart { anchor, tag, .. }
                if anchor.is_some() || tag.is_some() =>
            {
                return Err("anchors and tags are not supported in embedded data".into());
            }
            EventKind::SequenceStart { .. } => stack.push(Open::Seq(Vec::new())),
            EventKind::MappingStart { .. } => stack.push(Open::Map(Map::new(), None)),
            EventKind::SequenceEnd | EventKind::MappingEnd => {
                let v = match stack.pop() {
                    Some(Open::Seq(items)) => Value::Array(items),
                    Some(Open::Map(map, None)) => Value::Object(map),
                    _ => return Err("unbalanced collection".into()),
                };
                attach(&mut stack, &mut root, v)?;
            }
        }
    }
    root.ok_or_else(|| "empty document".to_string())
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=schemas");
    println!("cargo:rerun-if-changed=src/schema/preprocess.rs");
    println!("cargo:rerun-if-changed=src/document/yaml/scanner.rs");
    println!("cargo:rerun-if-changed=src/document/yaml/parser.rs");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    // What `amlint --version` and the JSON/SARIF outputs say the data comes from: the SDK
    // release the schemas were generated from, and the VM catalogue's date.
    let schema =
        std::fs::read_to_string(manifest.join("schemas/amlCompute.schema.json")).expect("read a kind schema");
    let source = schema
        .split("Source: ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .expect("the schemas' $comment names their source (scripts/gen_schemas.py)");
    println!("cargo:rustc-env=AMLINT_SCHEMA_SOURCE={source}");
    let catalogue =
        std::fs::read_to_string(manifest.join("rules/data/vm-sizes.yaml")).expect("read the VM catalogue");
    let updated = catalogue
        .lines()
        .find_map(|l| l.strip_prefix("updated: "))
        .map(|d| d.trim().trim_matches('"').to_string())
        .expect("rules/data/vm-sizes.yaml has `updated: \"YYYY-MM-DD\"`");
    println!("cargo:rustc-env=AMLINT_VM_CATALOGUE_DATE={updated}");
    let mut out = String::new();
    out.push_str(&table(
        "RULE_FILES",
        &manifest,
        &out_dir,
        "rules",
        |p| (p.ends_with(".yaml") || p.ends_with(".yml")) && !p.starts_with("data/"),
        "rules/",
    ));
    std::fs::write(out_dir.join("codes.rs"), rule_codes(&manifest.join("rules"))).expect("write codes.rs");
    out.push_str(&table(
        "DATA_FILES",
        &manifest,
        &out_dir,
        "rules/data",
        |p| p.ends_with(".yaml"),
        "",
    ));
    out.push_str(&table(
        "SCHEMA_FILES",
        &manifest,
        &out_dir,
        "schemas",
        |p| p.ends_with(".yaml"),
        "",
    ));
    out.push_str(&kind_schemas(&manifest, &out_dir));
    let dest = out_dir.join("embedded.rs");
    std::fs::write(dest, out).expect("write embedded.rs");
}
