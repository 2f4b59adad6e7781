//! The shared harness of the fuzz targets (`fuzz/fuzz_targets/`) and of the replay test
//! (`tests/it/fuzz_replay.rs`): one function per target that runs an input through amlint
//! and panics when amlint panics or breaks an invariant. The fuzz targets are one-line
//! calls of these functions, so a reproducer replays the same way in `cargo test`.
//! Not a public API; see `docs/fuzzing.md`.

use std::path::Path;

use amlint::config::{self, ConfigChoice, ConfigFileKind};
use amlint::diagnostic::Diagnostic;
use amlint::document::{Document, Value};
use amlint::limits::Limits;
use amlint::load::{self, Format, LoadedFile};
use amlint::pipeline::{self, Options};
use amlint::registry::Registry;
use amlint::source::Span;

/// A directory that does not exist: fuzzed documents and configurations are "in" it,
/// so that no project, git work tree or local file around them is ever read.
pub const FUZZ_DIR: &str = "/nonexistent-amlint-fuzz/project";

/// A target's harness: runs one input, panics on a failure.
pub type Harness = fn(&[u8]);

/// The targets by name (`fuzz/fuzz_targets/<name>.rs`, `fuzz/corpus/<name>/`).
pub const TARGETS: &[(&str, Harness)] = &[
    ("loader", loader),
    ("yaml_structured", yaml_structured),
    ("check", check),
    ("rule_file", rule_file),
    ("config_file", config_file),
];

/// The stack each input runs on: far less than a real run's threads have (8 MiB for
/// the main thread, 2 MiB for rayon's), so that recursion the input controls shows as a
/// stack overflow long before it could in use.
pub const FUZZ_STACK: usize = 256 * 1024;

/// The largest input worth running: amlint reads files of up to 8 MiB, and a structure
/// has shown itself well before 1 MiB (the fuzzers run with `-max_len=1048576`).
pub const MAX_INPUT: usize = 1 << 20;

/// Runs `f` on a thread of its own with a [`FUZZ_STACK`]-byte stack; a panic there is
/// raised again here.
fn on_small_stack(f: impl FnOnce() + Send) {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("fuzz-input".into())
            .stack_size(FUZZ_STACK)
            .spawn_scoped(scope, f)
            .expect("spawn the fuzzing thread");
        if let Err(panic) = thread.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

/// The harness function of the target `name`.
pub fn target(name: &str) -> Option<Harness> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Bytes → `decode` → `parse_text` as YAML and as JSON, without `catch_unwind`; every
/// span of the trees and findings lies in the text, on character boundaries, and the
/// trees are well formed.
pub fn loader(data: &[u8]) {
    on_small_stack(|| load_bytes(data));
}

fn load_bytes(data: &[u8]) {
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

/// Bytes → a YAML text generated from them ([`generate_yaml`]: anchors and aliases,
/// merge keys, deep block and flow nesting, long lines and long scalars, block scalars,
/// quoted scalars over several lines, tags, directives and document markers, tabs and
/// every kind of line break, mixed), then the checks of [`loader`] on that text. Reaches
/// the deep and long structures that random bytes rarely build.
pub fn yaml_structured(data: &[u8]) {
    let text = generate_yaml(data);
    on_small_stack(|| load_bytes(text.as_bytes()));
}

/// A YAML text driven by `data`: each byte (or two) picks the next line's indentation
/// and content. The output is often valid YAML and often nearly so, never longer than
/// [`MAX_INPUT`] bytes.
pub fn generate_yaml(data: &[u8]) -> String {
    struct Source<'d> {
        data: &'d [u8],
        pos: usize,
    }
    impl Source<'_> {
        fn byte(&mut self) -> u8 {
            let b = self.data.get(self.pos).copied().unwrap_or(0);
            self.pos += 1;
            b
        }
        fn pick<'s>(&mut self, options: &[&'s str]) -> &'s str {
            options[usize::from(self.byte()) % options.len()]
        }
        fn done(&self) -> bool {
            self.pos >= self.data.len()
        }
    }
    const BREAKS: &[&str] = &[
        "\n", "\n", "\n", "\n", "\r\n", "\r", "\u{85}", "\u{2028}", "\u{2029}",
    ];
    const KEYS: &[&str] = &[
        "name",
        "type",
        "command",
        "inputs",
        "outputs",
        "jobs",
        "environment",
        "compute",
        "k",
        "a b",
        "\"q\"",
        "'s'",
        "<<",
        "=",
        "? c",
        "1",
        "on",
        "é",
        "x\ty",
        "${{x}}",
        "{{t}}",
        "-",
        "[a]",
        "{b: c}",
        "&x k",
        "!!str k",
    ];
    const SCALARS: &[&str] = &[
        "v",
        "1",
        "1.10",
        "on",
        "~",
        "2021-01-01",
        "azureml:x:1",
        "a: b",
        "a #c",
        "'q'",
        "\"d\\\"q\"",
        "\"\\x41\\u00e9\"",
        "'it''s'",
        "|",
        ">-",
        "|2+",
        "[]",
        "{}",
        "[a, b]",
        "{a: 1, b: [2, 3]}",
        "!!int 3",
        "!x y",
        "&",
        "*",
        "=",
        "- x",
        "? y",
        ": z",
        "%",
        "@",
        "`",
        "\t",
        "\u{feff}",
        "…",
        "\"a\\\n  b\"",
        "'a\n\n  b'",
    ];
    let mut src = Source { data, pos: 0 };
    let mut out = String::new();
    // Indentation of the open block levels; anchors defined so far.
    let mut indents: Vec<usize> = vec![0];
    let mut anchors = 0u32;
    let brk = src.pick(BREAKS);
    while !src.done() && out.len() < MAX_INPUT {
        let indent = *indents.last().unwrap_or(&0);
        let op = src.byte() % 20;
        let pad = " ".repeat(indent);
        match op {
            // A key with a scalar, then maybe a comment.
            0..=3 => {
                out.push_str(&pad);
                out.push_str(src.pick(KEYS));
                out.push_str(src.pick(&[": ", ":", ": ", " : ", ":\t"]));
                out.push_str(src.pick(SCALARS));
                out.push_str(src.pick(&["", "", " # c", "#c", " ", "\t"]));
            }
            // A key opening a deeper block mapping or sequence.
            4 | 5 => {
                out.push_str(&pad);
                out.push_str(src.pick(KEYS));
                out.push(':');
                let deeper = indent + 1 + usize::from(src.byte() % 4);
                indents.push(if indents.len() < 4096 { deeper } else { indent });
            }
            6 => {
                out.push_str(&pad);
                out.push_str(src.pick(&["- ", "-", "- - ", "-\t", "? ", ": "]));
                out.push_str(src.pick(SCALARS));
            }
            7 => {
                // Close levels.
                for _ in 0..=src.byte() % 3 {
                    if indents.len() > 1 {
                        indents.pop();
                    }
                }
                continue;
            }
            // Anchors and aliases of anchors already defined; merge keys.
            8 => {
                anchors += 1;
                out.push_str(&format!("{pad}a{anchors}: &a{anchors} "));
                out.push_str(src.pick(&["v", "{m: 1, n: 2}", "[1, 2]", "", "&b{anchors} w"]));
            }
            9 if anchors > 0 => {
                let n = 1 + u32::from(src.byte()) % anchors;
                out.push_str(&pad);
                out.push_str(src.pick(&["<<: ", "r: ", "- ", "<<: [", "? "]));
                out.push_str(&format!("*a{n}"));
                out.push_str(src.pick(&["", "]", ", *a1]", " : x"]));
            }
            // Flow collections nested as deep as the next byte says, on one line or
            // several.
            10 => {
                let depth = 1 + usize::from(src.byte()) * usize::from(src.byte() % 8 + 1);
                let open = src.pick(&["[", "{a: ", "[{b: ", "{? "]);
                let sep = src.pick(&["", "\n", "\n ", " "]);
                out.push_str(&pad);
                out.push_str("f: ");
                let mut closers = Vec::with_capacity(depth);
                for _ in 0..depth {
                    out.push_str(open);
                    out.push_str(sep);
                    closers.push(match open {
                        "[" => "]",
                        "{a: " | "{? " => "}",
                        _ => "}]",
                    });
                }
                out.push_str(src.pick(SCALARS));
                if src.byte() % 8 != 0 {
                    for c in closers.iter().rev() {
                        out.push_str(c);
                    }
                }
            }
            // A long line or a long scalar.
            11 => {
                let len = usize::from(src.byte()) * 1024 + usize::from(src.byte()) * 4;
                let unit = src.pick(&["x", "é", " ", "[", "a: ", "\\", "'", "#"]);
                out.push_str(&pad);
                out.push_str(src.pick(&["long: ", "", "- ", "\"", "'"]));
                out.push_str(&unit.repeat(len.min(MAX_INPUT / unit.len().max(1))));
            }
            // A block scalar with lines at various indentations.
            12 => {
                out.push_str(&pad);
                out.push_str("b: ");
                out.push_str(src.pick(&["|", ">", "|-", ">+", "|1", "|9", "|+2", "| # c"]));
                for _ in 0..src.byte() % 6 {
                    out.push_str(brk);
                    out.push_str(&" ".repeat(indent + usize::from(src.byte() % 6)));
                    out.push_str(src.pick(SCALARS));
                }
            }
            // A quoted scalar over several lines, continued at any indentation.
            13 => {
                let q = src.pick(&["\"", "'"]);
                out.push_str(&pad);
                out.push_str("q: ");
                out.push_str(q);
                for _ in 0..src.byte() % 5 {
                    out.push_str(src.pick(&["text", "\\", "\\n", "#x", "- y", "z: w", ""]));
                    out.push_str(brk);
                    out.push_str(&" ".repeat(usize::from(src.byte() % 8)));
                }
                out.push_str(src.pick(&[q, q, ""]));
            }
            // Deep block nesting in one go.
            14 => {
                let depth = usize::from(src.byte()) * 4;
                let step = 1 + usize::from(src.byte() % 3);
                let form = src.pick(&["k:", "- ", "- k:"]);
                for i in 0..depth {
                    out.push_str(&" ".repeat(indent + i * step));
                    out.push_str(form);
                    out.push_str(brk);
                }
                continue;
            }
            15 => out.push_str(src.pick(&[
                "---",
                "...",
                "--- |",
                "--- &r",
                "%YAML 1.1",
                "%TAG !e! tag:e,2000:",
                "# c",
                "",
            ])),
            16 => {
                out.push_str(&pad);
                out.push_str(src.pick(&[
                    "t: !!str ",
                    "t: !e!x ",
                    "t: !<tag:yaml.org,2002:int> ",
                    "t: ! ",
                    "t: !!binary ",
                    "t: !!set ",
                ]));
                out.push_str(src.pick(SCALARS));
            }
            // A plain scalar continued on following lines.
            17 => {
                out.push_str(&pad);
                out.push_str("p: word");
                for _ in 0..src.byte() % 4 {
                    out.push_str(brk);
                    out.push_str(&" ".repeat(usize::from(src.byte() % 8)));
                    out.push_str(src.pick(&["more", "- x", "k: v", "# c", "", "---"]));
                }
            }
            _ => out.push_str(src.pick(&["", "\t", " ", "#", "\u{feff}"])),
        }
        out.push_str(if src.byte() % 16 == 0 {
            src.pick(BREAKS)
        } else {
            brk
        });
    }
    if out.len() > MAX_INPUT {
        let mut cut = MAX_INPUT;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    out
}

fn check_loaded(loaded: &LoadedFile, limits: &Limits) {
    let text = &loaded.source.text;
    for d in &loaded.diagnostics {
        check_diagnostic(text, d);
    }
    // The expansion limits bound the file's documents together.
    let (mut nodes, mut bytes) = (0u64, 0u64);
    let max_nodes = limits.max_alias_nodes.max(limits.max_nodes);
    let max_bytes = limits.max_alias_bytes.max(text.len() as u64);
    for doc in &loaded.documents {
        check_span(text, doc.span, "document");
        check_tree(text, doc);
        if !doc.alias_overflow {
            let expanded = doc.expansion(max_nodes, max_bytes, limits.max_depth);
            let (n, b) = expanded.expect("aliases expand beyond the limit but the document is not marked");
            (nodes, bytes) = (nodes + n, bytes + b);
        }
    }
    assert!(
        nodes <= max_nodes && bytes <= max_bytes,
        "the documents expand beyond the file's limits together ({nodes} nodes, {bytes} bytes)"
    );
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
        let earlier = |id: amlint::document::NodeId, what: &str| {
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
    on_small_stack(|| check_bytes(data));
}

fn check_bytes(data: &[u8]) {
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
    on_small_stack(|| rule_file_bytes(data));
}

fn rule_file_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let path = "fuzz/ACME001-fuzz.yaml";
    // Read, then compiled (the rule language), alone and as a user rule.
    let errors = match Registry::from_files([(path, text.as_str())]) {
        Ok(registry) => amlint::ruleset::Ruleset::compile(&registry)
            .err()
            .unwrap_or_default(),
        Err(errors) => errors,
    };
    let user = match Registry::with_user_rules(&[(path.to_string(), text.clone())]) {
        Ok(registry) => amlint::ruleset::Ruleset::compile(&registry)
            .err()
            .unwrap_or_default(),
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
    on_small_stack(|| config_file_bytes(data));
}

fn config_file_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    if escapes_fuzz_dir(&text) {
        return;
    }
    let dir = Path::new(FUZZ_DIR);
    let registry = amlint::registry::builtin();
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
    for fix in d.fixes() {
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
