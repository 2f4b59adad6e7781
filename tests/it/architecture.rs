//! ARCHITECTURE.md stays a map that is true today: every repository path it names in
//! backticks (`src/...`, `tests/...`, `docs/...`, ...) exists, and the file stays under
//! [`MAX_BYTES`] (issue 36: detail belongs in the modules' `//!` docs and `docs/`).

use std::path::Path;

/// The most ARCHITECTURE.md may weigh.
const MAX_BYTES: usize = 15_000;

/// The top-level folders whose paths the map names and this test checks.
const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "docs/",
    "rules/",
    "schemas/",
    "fixtures/",
    "scripts/",
    "bench/",
    "editors/",
    "examples/",
    "fuzz/",
    "python/",
];

/// Every path under [`ROOTS`] that `text` names in backticks, placeholders (`<name>`) and
/// globs (`*`, `…`) left out: a code span may hold several words (`src/a.rs` (+ ...)).
fn named_paths(text: &str) -> Vec<String> {
    let text = text.replace("```", "");
    let mut out = Vec::new();
    for span in text.split('`').skip(1).step_by(2) {
        for word in span.split_whitespace() {
            let word = word.trim_end_matches([',', ';', ':', ')']);
            let placeholder = word.contains(['<', '*', '…']) || word.contains("...");
            if ROOTS.iter().any(|r| word.starts_with(r)) && !placeholder {
                out.push(word.to_string());
            }
        }
    }
    out
}

/// The named paths of `text` that do not exist under `root`.
fn missing(root: &Path, text: &str) -> Vec<String> {
    named_paths(text)
        .into_iter()
        .filter(|p| !root.join(p).exists())
        .collect()
}

#[test]
fn every_path_the_map_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("read ARCHITECTURE.md");
    let named = named_paths(&text);
    assert!(
        named.iter().filter(|p| p.starts_with("src/")).count() >= 30,
        "{named:?}"
    );
    let gone = missing(root, &text);
    assert!(
        gone.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {gone:?}"
    );
}

#[test]
fn the_map_stays_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::metadata(root.join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md")
        .len();
    assert!(
        bytes <= MAX_BYTES as u64,
        "ARCHITECTURE.md is {bytes} bytes, over {MAX_BYTES}: move detail into `//!` docs or docs/"
    );
}

#[test]
fn a_stale_path_is_reported() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = "`src/pipeline.rs`, `src/lsp/requests/` and `src/load/limits.rs` (+ `build.rs`);\n\
                ```\n`src/checks/<name>.rs`, `docs/*.md`\n```\n`tests/it/gone.rs`.";
    assert_eq!(
        named_paths(text),
        [
            "src/pipeline.rs",
            "src/lsp/requests/",
            "src/load/limits.rs",
            "tests/it/gone.rs"
        ]
    );
    assert_eq!(missing(root, text), ["src/load/limits.rs", "tests/it/gone.rs"]);
}
