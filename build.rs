//! Embeds the data directories (`rules/`, `schemas/`) into the binary, so a release
//! build needs no files beside it. Generates `$OUT_DIR/embedded.rs`.
//!
//! The kind schemas are embedded preprocessed and bundled (`src/schema/preprocess.rs`,
//! compiled here as well): each `<kind>.schema.json` with the shared definitions of
//! `defs/common.json` it reaches, so that a run parses only what its kinds use and never
//! the whole shared file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/schema/preprocess.rs"]
mod preprocess;

/// Writes every kind schema, preprocessed and bundled, under `out/schemas/`, and returns
/// the `KIND_SCHEMAS` table: (kind id, bundled text).
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
    let mut s = String::from("pub static KIND_SCHEMAS: &[(&str, &str)] = &[\n");
    for kind in kinds {
        let mut doc = parse(&dir.join(format!("{kind}.schema.json")));
        preprocess::preprocess(&mut doc, Some(&kind));
        let doc = preprocess::bundle(&kind, doc, &common).unwrap_or_else(|e| panic!("schemas/{e}"));
        let path = bundles.join(format!("{kind}.schema.json"));
        std::fs::write(&path, serde_json::to_string(&doc).expect("serialise")).expect("write bundle");
        writeln!(s, "    ({kind:?}, include_str!({:?})),", path.to_string_lossy()).unwrap();
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

fn table(name: &str, manifest: &Path, dir: &str, keep: impl Fn(&str) -> bool, strip: &str) -> String {
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
        let full = root.join(&n);
        writeln!(s, "    ({key:?}, include_str!({:?})),", full.to_string_lossy()).unwrap();
    }
    s.push_str("];\n");
    s
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=schemas");
    println!("cargo:rerun-if-changed=src/schema/preprocess.rs");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let mut out = String::new();
    out.push_str(&table(
        "RULE_FILES",
        &manifest,
        "rules",
        |p| (p.ends_with(".yaml") || p.ends_with(".yml")) && !p.starts_with("data/"),
        "rules/",
    ));
    out.push_str(&table(
        "DATA_FILES",
        &manifest,
        "rules/data",
        |p| p.ends_with(".yaml"),
        "",
    ));
    out.push_str(&table(
        "SCHEMA_FILES",
        &manifest,
        "schemas",
        |p| p.ends_with(".yaml"),
        "",
    ));
    out.push_str(&kind_schemas(&manifest, &out_dir));
    let dest = out_dir.join("embedded.rs");
    std::fs::write(dest, out).expect("write embedded.rs");
}
