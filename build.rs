//! Embeds the data directories (`rules/`, `schemas/`) into the binary, so a release
//! build needs no files beside it. Generates `$OUT_DIR/embedded.rs`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
        |p| p.ends_with(".json") || p.ends_with(".yaml"),
        "",
    ));
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded.rs");
    std::fs::write(dest, out).expect("write embedded.rs");
}
