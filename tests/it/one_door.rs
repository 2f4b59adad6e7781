//! Guard 1 of docs/security.md, "one door for reading": every open, read, metadata query,
//! directory listing or write of a path goes through `src/fsio.rs`. `clippy.toml` lists
//! the standard library's file-system calls as `disallowed-methods` (CI runs clippy with
//! `-D warnings`); this test keeps that list complete and catches a direct call even where
//! clippy is not run, outside `fsio` and test modules.

use std::path::{Path, PathBuf};

/// The calls only `fsio` may make, as clippy.toml names them, with how each is spelt at a
/// call site (a method call on a path, or a path to the function).
const DOORS: &[(&str, &[&str])] = &[
    ("std::fs::read", &["fs::read("]),
    ("std::fs::read_to_string", &["fs::read_to_string("]),
    ("std::fs::read_dir", &["fs::read_dir(", ".read_dir()"]),
    ("std::fs::read_link", &["fs::read_link(", ".read_link()"]),
    ("std::fs::metadata", &["fs::metadata("]),
    (
        "std::fs::symlink_metadata",
        &["fs::symlink_metadata(", ".symlink_metadata()"],
    ),
    ("std::fs::canonicalize", &["fs::canonicalize(", ".canonicalize()"]),
    ("std::fs::write", &["fs::write("]),
    ("std::fs::copy", &["fs::copy("]),
    ("std::fs::rename", &["fs::rename("]),
    ("std::fs::hard_link", &["fs::hard_link("]),
    ("std::fs::remove_file", &["fs::remove_file("]),
    ("std::fs::remove_dir_all", &["fs::remove_dir_all("]),
    ("std::fs::create_dir", &["fs::create_dir("]),
    ("std::fs::create_dir_all", &["fs::create_dir_all("]),
    ("std::fs::File::open", &["File::open("]),
    ("std::fs::File::create", &["File::create("]),
    ("std::fs::OpenOptions::open", &["OpenOptions::new("]),
    ("std::fs::DirBuilder::create", &["DirBuilder::new("]),
    // Also methods of `FileType` and `Metadata`: found by clippy, which knows the types.
    ("std::path::Path::exists", &[".exists()"]),
    ("std::path::Path::is_file", &[]),
    ("std::path::Path::is_dir", &[]),
    ("std::path::Path::is_symlink", &[]),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The program's own text of a source file: without its test module and comments.
fn program_text(text: &str) -> String {
    let body = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    body.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn clippy_toml_names_every_door() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let toml = std::fs::read_to_string(root.join("clippy.toml")).unwrap();
    for (method, _) in DOORS {
        assert!(
            toml.contains(&format!("path = \"{method}\"")),
            "clippy.toml's disallowed-methods does not name {method}"
        );
    }
}

#[test]
fn only_fsio_touches_the_file_system() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut found = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "src/fsio.rs" {
            continue;
        }
        let text = program_text(&std::fs::read_to_string(&file).unwrap());
        for (method, spellings) in DOORS {
            for s in *spellings {
                if text.contains(s) {
                    found.push(format!("{rel}: `{s}` ({method}): go through amlint::fsio"));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The scanner finds a direct call, and passes over comments and test modules.
#[test]
fn the_scanner_sees_a_direct_call() {
    let code = "fn f(p: &Path) -> bool { p.exists() }\n";
    assert!(program_text(code).contains(".exists()"));
    let only_tests = "// p.exists()\n#[cfg(test)]\nmod tests { fn g() { std::fs::read(\"x\"); } }\n";
    assert!(!program_text(only_tests).contains("fs::read("));
}
