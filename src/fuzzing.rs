//! The shared harness of the fuzz targets (`fuzz/fuzz_targets/`) and of the replay test
//! (`tests/it/fuzz_replay.rs`): one function per target that runs an input through amlint
//! and panics when amlint panics or breaks an invariant. The fuzz targets are one-line
//! calls of these functions, so a reproducer replays the same way in `cargo test`.
//! Not a public API; see `docs/fuzzing.md`.

use std::path::Path;

use crate::config::{self, ConfigChoice, ConfigFileKind};
use crate::diagnostic::Diagnostic;
use crate::document::{Document, Value};
use crate::load::{self, Format, Limits, LoadedFile};
use crate::pipeline::{self, Options};
use crate::registry::Registry;
use crate::source::Span;

/// A directory that does not exist: fuzzed documents and configurations are "in" it,
/// so that no project, git work tree or local file around them is ever read.
pub const FUZZ_DIR: &str = "/nonexistent-amlint-fuzz/project";

/// A target's harness: runs one input, panics on a failure.
pub type Harness = fn(&[u8]);

/// The targets by name (`fuzz/fuzz_targets/<name>.rs`, `fuzz/corpus/<name>/`).
pub const TARGETS: &[(&str, Harness)] = &[
    ("loader", loader),
    ("check", check),
    ("rule_file", rule_file),
    ("config_file", config_file),
];

/// The harness function of the target `name`.
pub fn target(name: &str) -> Option<Harness> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Bytes → `decode` → `parse_text` as YAML and as JSON, without `catch_unwind`; every
/// span of the trees and findings lies in the text, on character boundaries, and the
/// trees are well formed.
pub fn loader(data: &[u8]) {
    let limits = Limits::default();
    let text = match load::decode(data.to_vec()) {
        Ok(text) => text,
        Err(refused) => {
            let load::Refused { diagnostic: d, text } = *refused;
            assert_eq!(d.code, "AML004", "decode refused with {}: {}", d.code, d.message);
            check_diagnostic(&text, &d);
            return;
        }
    };
    for format in [Format::Yaml, Format::Json] {
        let loaded = load::parse_text("fuzz", text.clone(), format, &limits);
        check_loaded(&loaded, &limits);
    }
}

fn check_loaded(loaded: &LoadedFile, limits: &Limits) {
    let text = &loaded.source.text;
    for d in &loaded.diagnostics {
        check_diagnostic(text, d);
    }
    for doc in &loaded.documents {
        check_span(text, doc.span, "document");
        check_tree(text, doc);
        if !doc.alias_overflow {
            assert!(
                doc.expansion_exceeds(limits.max_alias_nodes, limits.max_depth)
                    .is_none(),
                "aliases expand beyond the limit but the document is not marked"
            );
        }
    }
}

fn check_tree(text: &str, doc: &Document) {
    let n = doc.nodes.len();
    if let Some(root) = doc.root {
        assert!(root.index() < n, "root {root:?} out of the arena ({n} nodes)");
    }
    for (i, node) in doc.nodes.iter().enumerate() {
        check_span(text, node.span, "node");
        // Children and anchors come before the nodes that refer to them
        // (`Document::expansion_exceeds` relies on it).
        let earlier = |id: crate::document::NodeId, what: &str| {
            assert!(
                id.index() < i,
                "node {i} refers to {what} {id:?}, not an earlier node"
            );
        };
        match &node.value {
            Value::Seq(items) => items.iter().for_each(|&c| earlier(c, "item")),
            Value::Map(entries) => entries.iter().for_each(|e| {
                earlier(e.key, "key");
                earlier(e.value, "value");
            }),
            Value::Alias(target) => earlier(*target, "anchor"),
            _ => {}
        }
    }
}

/// `check_text` of the bytes (lossy UTF-8) as a v2 YAML file and as a v1
/// `deploymentconfig.json`, with no configuration and a fixed date: no check panics
/// (`AML000`), and every span of every finding lies in the text, on char boundaries.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let options = Options {
        config: ConfigChoice::Disabled,
        today: Some("2026-11-22".into()),
        ..Options::default()
    };
    for name in ["x.yml", "deploymentconfig.json"] {
        let display = format!("{FUZZ_DIR}/{name}");
        let report = pipeline::check_text(&display, text.clone(), &options);
        let source = &report.source.text;
        assert_eq!(source, &text, "the report's source is not the text checked");
        let all = report
            .diagnostics
            .iter()
            .chain(report.suppressed.iter().map(|s| &s.diagnostic));
        for d in all {
            assert_ne!(d.code, "AML000", "{name}: a check panicked: {}", d.message);
            check_diagnostic(source, d);
        }
        for s in &report.suppressed {
            if let Some(span) = s.directive {
                check_span(source, span, "suppression directive");
            }
        }
    }
}

/// Bytes (lossy UTF-8) → the rule-file parser, alone and as a user rule: `Ok` or errors
/// whose positions lie in the text.
pub fn rule_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let path = "fuzz/ACME001-fuzz.yaml";
    let errors = match Registry::from_files([(path, text.as_str())]) {
        Ok(_) => Vec::new(),
        Err(errors) => errors,
    };
    let user = match Registry::with_user_rules(&[(path.to_string(), text.clone())]) {
        Ok(_) => Vec::new(),
        Err(errors) => errors,
    };
    for e in errors.iter().chain(&user) {
        if let Some(pos) = e.position {
            assert!(
                pos.offset as usize <= text.len() && text.is_char_boundary(pos.offset as usize),
                "error position {} outside the text or inside a character: {}",
                pos.offset,
                e.message
            );
        }
    }
}

/// Bytes (lossy UTF-8) → the configuration parser, as `amlint.toml` and as
/// `pyproject.toml`: a configuration, or errors at spans inside the text.
///
/// Inputs whose `rules-dirs` could leave [`FUZZ_DIR`] (absolute paths, `..`) are
/// skipped: they would make the parser read the machine's directories.
pub fn config_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    if escapes_fuzz_dir(&text) {
        return;
    }
    let dir = Path::new(FUZZ_DIR);
    let registry = crate::registry::builtin();
    for (name, kind) in [
        ("amlint.toml", ConfigFileKind::Amlint),
        ("pyproject.toml", ConfigFileKind::Pyproject),
    ] {
        let display = format!("{FUZZ_DIR}/{name}");
        if let Err(errors) = config::parse(&display, dir, text.clone(), kind, registry) {
            assert!(!errors.is_empty(), "{name}: an error result without errors");
            for e in errors {
                // Errors about other files (rule files) carry their own text.
                if e.source.path == display {
                    check_span(&e.source.text, e.span, "configuration error");
                }
            }
        }
    }
}

/// Whether a `rules-dirs` anywhere in the TOML names an absolute path or `..`.
fn escapes_fuzz_dir(text: &str) -> bool {
    use toml::de::{DeTable, DeValue};
    fn strings<'a>(v: &'a DeValue<'_>, out: &mut Vec<&'a str>) {
        match v {
            DeValue::String(s) => out.push(s),
            DeValue::Array(items) => items.iter().for_each(|i| strings(i.get_ref(), out)),
            DeValue::Table(t) => t.values().for_each(|i| strings(i.get_ref(), out)),
            _ => {}
        }
    }
    fn walk(table: &DeTable<'_>) -> bool {
        table.iter().any(|(key, value)| {
            let value = value.get_ref();
            if key.get_ref() == "rules-dirs" {
                let mut found = Vec::new();
                strings(value, &mut found);
                if found.iter().any(|s| {
                    let p = Path::new(s);
                    p.is_absolute()
                        || s.starts_with('~')
                        || p.components()
                            .any(|c| matches!(c, std::path::Component::ParentDir))
                }) {
                    return true;
                }
            }
            match value {
                DeValue::Table(t) => walk(t),
                DeValue::Array(items) => items.iter().any(|i| match i.get_ref() {
                    DeValue::Table(t) => walk(t),
                    _ => false,
                }),
                _ => false,
            }
        })
    }
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    match DeTable::parse(body) {
        Ok(root) => walk(root.get_ref()),
        Err(_) => false,
    }
}

fn check_diagnostic(text: &str, d: &Diagnostic) {
    let what = d.code;
    check_span(text, d.span, what);
    for label in &d.labels {
        check_span(text, label.span, what);
    }
    if let Some(fix) = &d.fix {
        for edit in &fix.edits {
            check_span(text, edit.span, what);
        }
    }
}

/// A span lies within `text`, starts no later than it ends, and both ends are on
/// character boundaries.
pub fn check_span(text: &str, span: Span, what: &str) {
    assert!(
        span.start <= span.end && (span.end as usize) <= text.len(),
        "{what}: span {}..{} outside the text ({} bytes)",
        span.start,
        span.end,
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start as usize) && text.is_char_boundary(span.end as usize),
        "{what}: span {}..{} splits a character",
        span.start,
        span.end
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_dirs_that_leave_the_fuzz_dir_are_seen() {
        assert!(escapes_fuzz_dir("rules-dirs = [\"/\"]"));
        assert!(escapes_fuzz_dir("tool.amlint.rules-dirs = [\"a/../..\"]"));
        assert!(escapes_fuzz_dir(
            "[tool.amlint]\n\"rules\\u002ddirs\" = [\"/etc\"]"
        ));
        assert!(escapes_fuzz_dir("x = [{rules-dirs = \"~/r\"}]"));
        assert!(!escapes_fuzz_dir("rules-dirs = [\"policies/amlint\"]"));
        assert!(!escapes_fuzz_dir("rules-dirs = [\"/\"")); // not TOML: never read
    }
}
