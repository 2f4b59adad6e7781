//! The editor features at their own level (`amlint::ide`), without the protocol: each
//! fixture of `tests/data/ide/` is a small workspace — files introduced by
//! `# file: PATH` lines —, one of them holding the cursor `<|>` and, in comments, what
//! is expected there:
//!
//! - `# expect-completion: a, b` (labels offered), `# expect-no-completion: c`;
//! - `# expect-hover: a, b` (texts the hover shows);
//! - `# expect-definition: FILE@TEXT, ...` and `# expect-references: FILE@TEXT, ...`
//!   (each place as its file and the text its span covers; `FILE@` a file itself).
//!
//! The language server's stdio tests (`lsp.rs`) keep what only the protocol does.

use std::path::{Path, PathBuf};

use amlint::ide::{Analysis, FileSpan, completion, navigate};

const CURSOR: &str = "<|>";

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    analysis: Analysis,
    /// The file with the cursor, and the cursor's byte offset.
    path: PathBuf,
    offset: u32,
    /// `expect-…` lines of the file with the cursor: (what, items).
    expect: Vec<(String, Vec<String>)>,
}

fn fixture(name: &str) -> Fixture {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/ide")
            .join(name),
    )
    .expect("fixture");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("# file: ") {
            Some(file) => files.push((file.trim().to_string(), String::new())),
            None => {
                let (_, body) = files.last_mut().expect("a `# file:` line first");
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    let mut marked = None;
    for (file, body) in &files {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        if let Some(at) = body.find(CURSOR) {
            let clean = body.replacen(CURSOR, "", 1);
            let expect = clean
                .lines()
                .filter_map(|l| l.strip_prefix("# expect-"))
                .filter_map(|l| l.split_once(':'))
                .map(|(what, items)| {
                    let items = items
                        .split(", ")
                        .map(|i| i.trim().to_string())
                        .filter(|i| !i.is_empty());
                    (what.to_string(), items.collect())
                })
                .collect();
            marked = Some((path.clone(), at as u32, clean, expect));
        } else {
            std::fs::write(&path, body).expect("write");
        }
    }
    let (path, offset, clean, expect) = marked.expect("a cursor <|>");
    std::fs::write(&path, &clean).expect("write");
    let mut analysis = Analysis::new(vec![root.clone()]);
    analysis.index_workspace();
    analysis.open(path.clone(), 1, clean);
    for p in analysis.take_dirty_open() {
        analysis.check_open(&p);
    }
    analysis.check_disk();
    Fixture {
        _dir: dir,
        root,
        analysis,
        path,
        offset,
        expect,
    }
}

impl Fixture {
    fn expected(&self, what: &str) -> Vec<String> {
        self.expect
            .iter()
            .filter(|(w, _)| w == what)
            .flat_map(|(_, items)| items.clone())
            .collect()
    }

    /// A place as `FILE@TEXT` (the file relative to the workspace).
    fn place(&self, p: &FileSpan) -> String {
        let file = p.path.strip_prefix(&self.root).unwrap_or(&p.path).display();
        format!("{file}@{}", p.source.slice(p.span))
    }

    fn completions(&self) -> Vec<String> {
        let checked = self.analysis.checked(&self.path).expect("checked");
        completion::complete(&self.analysis, checked, self.offset)
            .into_iter()
            .map(|c| c.label)
            .collect()
    }

    fn places(&self, found: Vec<FileSpan>) -> Vec<String> {
        let mut out: Vec<String> = found.iter().map(|p| self.place(p)).collect();
        out.sort();
        out
    }
}

fn fixtures(prefix: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ide");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .expect("tests/data/ide")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".yml"))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no {prefix} fixtures");
    out
}

#[test]
fn completion_fixtures() {
    for name in fixtures("completion_") {
        let f = fixture(&name);
        let labels = f.completions();
        let want = f.expected("completion");
        assert!(!want.is_empty(), "{name}: no expect-completion");
        for w in &want {
            assert!(labels.contains(w), "{name}: `{w}` not offered; got {labels:?}");
        }
        for w in f.expected("no-completion") {
            assert!(!labels.contains(&w), "{name}: `{w}` offered; got {labels:?}");
        }
    }
}

#[test]
fn definition_fixtures() {
    for name in fixtures("definition_") {
        let f = fixture(&name);
        let checked = f.analysis.checked(&f.path).expect("checked");
        let found = f.places(navigate::definition(&f.analysis, checked, f.offset));
        let mut want = f.expected("definition");
        want.sort();
        assert!(!want.is_empty(), "{name}: no expect-definition");
        assert_eq!(found, want, "{name}");
    }
}

#[test]
fn references_fixtures() {
    for name in fixtures("references_") {
        let f = fixture(&name);
        let checked = f.analysis.checked(&f.path).expect("checked");
        let found = f.places(navigate::references(&f.analysis, checked, f.offset, true));
        let mut want = f.expected("references");
        want.sort();
        assert!(!want.is_empty(), "{name}: no expect-references");
        assert_eq!(found, want, "{name}");
        // Without the declarations: fewer places, all of them among these.
        let without = f.places(navigate::references(&f.analysis, checked, f.offset, false));
        assert!(without.len() < found.len(), "{name}: {without:?}");
        assert!(without.iter().all(|p| found.contains(p)), "{name}: {without:?}");
    }
}

/// Hover on a VM size shows the catalogue's facts and, with a workspace snapshot, the
/// quota line's limit and usage (issue 37 item 5), over the value.
#[test]
fn hover_fixtures() {
    for name in fixtures("hover_") {
        let mut f = fixture(&name);
        let hover = amlint::ide::hover::hover(&mut f.analysis, &f.path, f.offset).expect("a hover");
        let want = f.expected("hover");
        assert!(!want.is_empty(), "{name}: no expect-hover");
        for w in &want {
            assert!(
                hover.markdown.contains(w.as_str()),
                "{name}: no `{w}` in {}",
                hover.markdown
            );
        }
        let text = f
            .analysis
            .checked(&f.path)
            .expect("checked")
            .source
            .slice(hover.span);
        assert!(
            text.starts_with("Standard_"),
            "{name}: the hover is over `{text}`"
        );
    }
}
