//! What every reader of compute definitions shares, below the readers (the folder's
//! `mod.rs` lists them and runs them): a file's [`Input`], the [`Definitions`] and
//! [`Comment`]s it yields, the [`Reader`] record, [`Files`] (the project's other files,
//! through fsio, or an editor's [`Unsaved`] buffers), the [`Layout`] of comments and code
//! that byte scanners record, and small helpers.

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::document::Document;
use crate::facts::computes::{ComputeDef, Scalar, Setting};
use crate::kinds::Kind;
use crate::source::{SourceFile, Span};

/// What a reader is given: the file, its text, and — for YAML and JSON files — its
/// documents as the loader parsed them with their kinds.
pub struct Input<'a> {
    /// The file on disk (other files it names are found from its directory).
    pub path: &'a Path,
    /// Its text, and the name it is shown as (`source.path`).
    pub source: &'a SourceFile,
    /// Its YAML or JSON documents (none for other files: a reader parses them itself).
    pub documents: &'a [Document],
    /// The kind of each document, where it is an Azure ML kind.
    pub kinds: &'a [Option<&'static Kind>],
    /// The other files of the project.
    pub files: &'a Files,
}

impl Input<'_> {
    /// The file name, lower-cased (what [`Reader::wants`] is asked about).
    pub fn file_name(&self) -> String {
        file_name(&self.source.path)
    }
}

/// The lower-cased last component of a displayed path.
pub fn file_name(display: &str) -> String {
    display
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(display)
        .to_ascii_lowercase()
}

/// A comment of the defining file, in that file's own comment syntax (`#`, `//`, a
/// Python comment inside a notebook cell), where a suppression directive may be written.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    /// From the comment's marker (`#`, `//`, `::`, `REM`) to its end.
    pub span: Span,
    /// The comment stands on a line of its own (it then covers the next line of code).
    pub own_line: bool,
    /// The 1-based line of the defining file it covers: its own line, or — standing alone
    /// — the next line holding code (`None`: nothing follows).
    pub target_line: Option<u32>,
    /// Other lines it covers: the first line of each definition whose text, written
    /// before that line, holds the line it covers (see [`ComputeDef::written_before`]).
    pub also: Vec<u32>,
}

/// What a reader found in a file.
#[derive(Debug, Default)]
pub struct Definitions {
    pub computes: Vec<ComputeDef>,
    /// The comments around the definitions, for suppressions (readers of files that are
    /// not YAML report them; in YAML, those inside an embedded script).
    pub comments: Vec<Comment>,
    /// Why a reader that wanted the file did not read its definitions (beyond a limit of
    /// its parser), as a clause: "it has more than 250,000 tokens". The file is then
    /// reported (AML005), never passed over without a word.
    pub unread: Option<String>,
    /// The part of the unread file the reader could see defines computes: it is reported
    /// though it holds none of the reader's [`Reader::defines`] words (a workflow that is
    /// not valid YAML whose first jobs call a template).
    pub unread_defines: bool,
}

/// A reader of compute definitions.
pub struct Reader {
    /// For messages and tests.
    pub name: &'static str,
    /// Whether it reads a file of this (lower-cased) name.
    pub wants: fn(&str) -> bool,
    /// The file is read only when its bytes contain one of these (case-sensitive); empty:
    /// always.
    pub needles: &'static [&'static str],
    /// Words a file that defines a compute itself holds (fewer than `needles`, which
    /// also let the reader look at calls of templates and modules, or at `import`s): a
    /// file that amlint cannot read is reported (AML005) only when it holds one.
    pub defines: &'static [&'static str],
    pub read: fn(&Input<'_>, &mut Definitions),
}

/// The words of an `az ml compute create|attach` (or SDK v1's `az ml computetarget
/// create`) command, as a reader's [`Reader::defines`].
pub const COMMAND_WORDS: &[&str] = &[
    "ml compute create",
    "ml compute attach",
    "ml computetarget create",
];

/// Whether `text` contains one of `needles` (a vectorised byte search).
pub fn mentions(text: &[u8], needles: &[&str]) -> bool {
    needles.is_empty()
        || needles
            .iter()
            .any(|n| memchr::memmem::find(text, n.as_bytes()).is_some())
}

/// The project's other files, as readers consult them (a compute YAML named by `-f`, a
/// variables template, a Terraform variable file): read through `fsio` inside the
/// project's boundary, under the size limit, each once. In the language server an
/// [`Unsaved`] overlay of the open documents' text is read instead of the disk.
pub struct Files {
    boundary: std::sync::OnceLock<crate::fsio::Boundary>,
    /// The editor's open documents, read instead of the disk (`None`: the disk only, as
    /// for the command line).
    unsaved: Option<Arc<Unsaved>>,
    /// Where the boundary is found when it is not given: the file's directory.
    around: PathBuf,
    limits: crate::limits::Limits,
    cache: std::sync::Mutex<std::collections::HashMap<PathBuf, Option<Arc<SourceFile>>>>,
    /// What readers derive from a file once per run (`Files::derived`).
    derived: std::sync::Mutex<std::collections::HashMap<(PathBuf, &'static str), Derived>>,
    /// Bytes [`Files::scan`] may still read in this run ([`SCAN_BUDGET`] at first).
    scan_left: std::sync::atomic::AtomicU64,
    /// The project's root when it is not the boundary's (outside a git work tree: the
    /// checked paths' common ancestor, or their configuration's directory, wherever
    /// amlint runs from — the boundary may be the current directory; audit 29, case 02).
    project_root: Option<PathBuf>,
}

/// Most bytes of files too large to be read as text that one run searches for a
/// reader's words (`Files::scan`): 16 such files read to `fsio::MAX_SCAN`, a fraction of
/// a second (40 files of 1 GiB read to 64 MiB each took 5.9 s: audit 25, D2); past the
/// budget, such files are not reported.
pub const SCAN_BUDGET: u64 = 16 * crate::fsio::MAX_SCAN;

impl Files {
    /// Files inside `boundary`.
    pub fn new(boundary: crate::fsio::Boundary, limits: &crate::limits::Limits) -> Self {
        let files = Self::around(Path::new(""), limits);
        let _ = files.boundary.set(boundary);
        files
    }

    /// Files inside the project around `dir` (its git work tree, else `dir`), found on
    /// the first read.
    pub fn around(dir: &Path, limits: &crate::limits::Limits) -> Self {
        Files {
            boundary: std::sync::OnceLock::new(),
            around: dir.to_path_buf(),
            limits: limits.clone(),
            cache: Default::default(),
            derived: Default::default(),
            unsaved: None,
            scan_left: std::sync::atomic::AtomicU64::new(SCAN_BUDGET),
            project_root: None,
        }
    }

    /// These files, in a project whose root is `root` (inside the boundary) rather than
    /// the boundary's: what a repository-relative path (an Azure Pipelines
    /// `workingDirectory`) and a file's folders up to the project's root are read from.
    pub fn with_root(mut self, root: Option<PathBuf>) -> Self {
        self.project_root = root.filter(|r| self.boundary().contains(r));
        self
    }

    /// These files, with the open documents of an editor read instead of the disk.
    pub fn with_unsaved(mut self, unsaved: Arc<Unsaved>) -> Self {
        self.unsaved = Some(unsaved);
        self
    }

    pub(super) fn boundary(&self) -> &crate::fsio::Boundary {
        self.boundary
            .get_or_init(|| crate::fsio::Boundary::around(&self.around))
    }

    /// The project's directory, when it has one.
    pub fn root(&self) -> Option<&Path> {
        self.project_root.as_deref().or_else(|| self.boundary().root())
    }

    /// The file `rel` below the project's root, written as the files beside `beside` are:
    /// relative (through `..`) when `beside` is, so that it is shown as the other files
    /// of the run; `None` without a project root.
    pub fn from_root(&self, beside: &Path, rel: &str) -> Option<PathBuf> {
        let root = self.root()?;
        let path = crate::fsio::normalize(&root.join(rel));
        let cwd = std::env::current_dir().unwrap_or_default();
        Some(
            beside
                .is_relative()
                .then(|| crate::fsio::relative_within(&path, &cwd, root))
                .flatten()
                .unwrap_or(path),
        )
    }

    /// The text of `path`, shown as `display`, if it is a readable regular text file
    /// inside the project.
    pub fn read(&self, path: &Path, display: &str) -> Option<Arc<SourceFile>> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = match self.unsaved_text(path) {
                    Some(text) => text.to_string(),
                    None => crate::load::read_text(path, self.boundary(), &self.limits).ok()?,
                };
                Some(SourceFile::new(display, text))
            })
            .clone()
    }

    /// Whether the file at `path`, too large to be read as text, holds one of `needles` in
    /// its first bytes (`fsio::scan_regular`, read in chunks inside the project); an
    /// open document's text is searched instead.
    pub fn scan(&self, path: &Path, needles: &[&str]) -> bool {
        if let Some(unsaved) = &self.unsaved
            && let Some(text) = unsaved.0.get(&crate::fsio::normalize(path))
        {
            return mentions(text.as_bytes(), needles);
        }
        use std::sync::atomic::Ordering;
        // The run's budget, taken before reading (a file reads at most `MAX_SCAN`).
        let take = |left: u64| Some(left.saturating_sub(crate::fsio::MAX_SCAN));
        let left = (self.scan_left)
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, take)
            .unwrap_or_else(|left| left);
        let max = left.min(crate::fsio::MAX_SCAN);
        let seen = crate::fsio::Seen::Unknown;
        max > 0 && crate::fsio::scan_regular(path, seen, self.boundary(), needles, max).unwrap_or(false)
    }

    /// Every file read or looked for so far (normalised): what the definitions read from
    /// depends on, for the language server to read them again when one changes.
    pub fn consulted(&self) -> Vec<PathBuf> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.keys().map(|p| crate::fsio::normalize(p)).collect()
    }

    /// The open document's text for `path`, when `path` is open and the disk's text would
    /// be read: inside the project (a link leading out is refused as on disk; a buffer not
    /// saved yet, by where it is written), not git data, under the size limit.
    fn unsaved_text(&self, path: &Path) -> Option<&Arc<str>> {
        let (key, text) = self
            .unsaved
            .as_ref()?
            .0
            .get_key_value(&crate::fsio::normalize(path))?;
        if text.len() as u64 > self.limits.max_file_size {
            return None;
        }
        let boundary = self.boundary();
        let readable = match boundary.resolve_named(key) {
            Ok(_) => true,
            Err(crate::fsio::Refusal::Missing) => {
                let rest = boundary
                    .root()
                    .map_or(Some(key.as_path()), |r| key.strip_prefix(r).ok());
                rest.is_some_and(|rest| !rest.components().any(|c| c.as_os_str() == ".git"))
            }
            Err(_) => false,
        };
        readable.then_some(text)
    }

    /// The names of the open documents in `dir` (as [`Files::read`] finds them there),
    /// for a listing of the directory to include the buffers not saved yet.
    pub(super) fn unsaved_in(&self, dir: &Path) -> Vec<String> {
        let Some(unsaved) = &self.unsaved else {
            return Vec::new();
        };
        let dir = crate::fsio::normalize(dir);
        unsaved
            .0
            .keys()
            .filter(|p| p.parent() == Some(dir.as_path()))
            .filter(|p| self.unsaved_text(p).is_some())
            .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
            .collect()
    }
}

/// The text of the documents open in an editor, by absolute path: what [`Files`] reads
/// instead of the disk in the language server, so a definition that reads another file
/// (`az ml compute create -f cluster.yml`, a helper module, a `.tfvars`) sees its unsaved
/// edits. Only the open documents: it is as large as they are.
#[derive(Clone, Debug, Default)]
pub struct Unsaved(std::collections::HashMap<PathBuf, Arc<str>>);

impl Unsaved {
    /// `path` (absolute, normalised) now reads `text`; whether that changed anything.
    pub fn set(&mut self, path: &Path, text: &str) -> bool {
        if self.0.get(path).is_some_and(|t| **t == *text) {
            return false;
        }
        self.0.insert(path.to_path_buf(), text.into());
        true
    }

    /// `path` is read from disk again; whether it was open.
    pub fn remove(&mut self, path: &Path) -> bool {
        self.0.remove(path).is_some()
    }
}

impl Files {
    /// `dir`, then each directory above it inside the project (at most 32: a project is not
    /// deeper), each written as `dir` joined with `..`s so that a file found there is shown
    /// the way the file that names it is. Outside a project: `dir` alone.
    pub fn dirs_up(&self, dir: &Path) -> Vec<PathBuf> {
        let abs = crate::fsio::absolute(dir, &std::env::current_dir().unwrap_or_default());
        let root = self.root();
        let mut out = Vec::new();
        let mut written = dir.to_path_buf();
        for real in abs.ancestors().take(32) {
            if real != abs && root.is_none_or(|r| !real.starts_with(r)) {
                break;
            }
            out.push(written.clone());
            written.push("..");
        }
        out
    }

    /// The project's directory written from `dir` (`dir` joined with a `..` for each level
    /// it is below the root), when `dir` is inside it: a file found from there is shown the
    /// way the file in `dir` is.
    pub fn root_from(&self, dir: &Path) -> Option<PathBuf> {
        let abs = crate::fsio::absolute(dir, &std::env::current_dir().unwrap_or_default());
        let depth = abs.strip_prefix(self.root()?).ok()?.components().count();
        let mut written = dir.to_path_buf();
        for _ in 0..depth {
            written.push("..");
        }
        Some(written)
    }

    /// The first of `candidates` that is a readable file of the project: its path
    /// (normalised), display and text.
    pub fn first_of(
        &self,
        candidates: impl IntoIterator<Item = PathBuf>,
    ) -> Option<(PathBuf, String, Arc<SourceFile>)> {
        candidates.into_iter().find_map(|c| {
            let c = crate::fsio::normalize(&c);
            let display = crate::discover::display_of(&c);
            let source = self.read(&c, &display)?;
            Some((c, display, source))
        })
    }
}

/// What a reader derived from a file (`Files::derived`).
type Derived = Arc<dyn Any + Send + Sync>;

impl Files {
    /// What `make` derives from the file `path` (`what` names the derivation), made once
    /// per run however many files ask: a file many others import is parsed once.
    pub fn derived<T: Any + Send + Sync>(
        &self,
        path: &Path,
        what: &'static str,
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        let key = (path.to_path_buf(), what);
        let known = self
            .derived
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        if let Some(t) = known.and_then(|a| a.downcast::<T>().ok()) {
            return t;
        }
        let made = Arc::new(make());
        self.derived
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, made.clone());
        made
    }
}

/// At most this many lines are added to the comments of one file by
/// [`cover_written_before`]: a configuration many definitions use, with many directives on
/// its lines, costs no more.
const MAX_ALSO: usize = 10_000;

/// A definition's name that no compute can have is not known: the empty string (`NAME=""`
/// before an argument parser sets it, a template's `$X = ''` to fill in) or a placeholder
/// (`"<COMPUTE_NAME>"`, `{azure_ml_compute_name}`, `__NAME__`). Taken as names, they made
/// one compute of unrelated scripts and samples, with conflicts between them (eval8,
/// cases 01 and 02). References to such names are not checked either
/// ([`crate::facts::index::is_template_name`]).
pub fn unknown_if_no_name(def: &mut ComputeDef) {
    let Some(Scalar::Str(name)) = &def.name.value else {
        return;
    };
    let written = if def.name.written.trim().is_empty() {
        format!("{name:?}")
    } else {
        def.name.written.clone()
    };
    let why = if name.trim().is_empty() {
        format!(
            "`{written}` is empty here: the name is given when this runs (as an argument, or by whoever fills in the template)"
        )
    } else if crate::facts::index::is_template_name(name) {
        format!("`{name}` is a placeholder, for its reader to fill in: no compute is named so")
    } else {
        return;
    };
    def.name = Setting::dynamic(written, why, def.name.span, def.name.key);
}

/// Each suppression comment that covers a line of text a definition is written in before
/// its first line ([`ComputeDef::written_before`]) covers that first line too: the
/// definition's findings are there.
pub fn cover_written_before(source: &SourceFile, computes: &[ComputeDef], comments: &mut [Comment]) {
    if computes.iter().all(|d| d.written_before.is_empty()) {
        return;
    }
    let directive = |c: &Comment| {
        source
            .text
            .get(c.span.range())
            .is_some_and(|t| t.to_ascii_lowercase().contains("amlint:"))
    };
    let mut order: Vec<(u32, usize)> = comments
        .iter()
        .enumerate()
        .filter(|(_, c)| directive(c))
        .filter_map(|(i, c)| Some((c.target_line?, i)))
        .collect();
    order.sort_unstable();
    let mut budget = MAX_ALSO;
    for def in computes {
        let head = line_of(source, def.span.start);
        for span in &def.written_before {
            let from = line_of(source, span.start);
            let to = line_of(source, span.end.max(span.start + 1) - 1);
            let first = order.partition_point(|&(t, _)| t < from);
            for &(target, i) in order[first..].iter().take_while(|(t, _)| *t <= to) {
                let also = &mut comments[i].also;
                if target == head || also.last() == Some(&head) {
                    continue;
                }
                if budget == 0 {
                    return;
                }
                budget -= 1;
                also.push(head);
            }
        }
    }
}

/// The 1-based line of `offset` in `source`.
pub fn line_of(source: &SourceFile, offset: u32) -> u32 {
    source.position(offset).line
}

/// The end of the line holding offset `i` of `b`: its newline, or the end of the text.
pub fn line_end(b: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |j| i + j)
}

/// The end of the `/* … */` comment starting at offset `i` of `b`: after its `*/`, or the
/// end of the text when it is never closed.
pub fn block_comment_end(b: &[u8], i: usize) -> usize {
    memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |j| i + 2 + j + 2)
}

/// What a byte scanner of a file with `//`-style comments records for suppressions: each
/// comment's span and whether it stands alone on its line, and where code starts on each
/// line that has some (what `iac::comments` turns into [`Comment`]s).
#[derive(Default)]
pub struct Layout {
    pub comments: Vec<(Span, bool)>,
    pub code: Vec<u32>,
    /// The line being scanned has code before the scan's position.
    line_has_code: bool,
}

impl Layout {
    /// A new line starts: nothing is on it yet.
    pub fn newline(&mut self) {
        self.line_has_code = false;
    }

    /// Code at `at` (the line's code starts there when it is the first).
    pub fn code(&mut self, at: usize) {
        if !self.line_has_code {
            self.code.push(at as u32);
            self.line_has_code = true;
        }
    }

    /// A comment from `start` to `end`.
    pub fn comment(&mut self, start: usize, end: usize) {
        self.comments
            .push((Span::new(start as u32, end as u32), !self.line_has_code));
    }

    /// The comment `#` or `//` starting at offset `i` of `b`, to the end of its line:
    /// recorded, and where the scan goes on.
    pub fn line_comment(&mut self, b: &[u8], i: usize) -> usize {
        let end = line_end(b, i);
        self.comment(i, end);
        end
    }

    /// The comment `/* … */` starting at offset `i` of `b`: recorded, and where the scan
    /// goes on.
    pub fn block_comment(&mut self, b: &[u8], i: usize) -> usize {
        let end = block_comment_end(b, i);
        self.comment(i, end);
        end
    }
}

/// The `type` setting a definition's class or resource type implies (`AmlCompute(...)` is
/// `amlcompute`), shown at `span` as `written`: not the value as written, so never edited
/// in place.
/// Visits a tree-sitter tree in pre-order with a cursor (no recursion the input
/// controls); `visit` says whether to descend into the node's children.
pub fn preorder<'t>(root: tree_sitter::Node<'t>, mut visit: impl FnMut(tree_sitter::Node<'t>) -> bool) {
    let mut cursor = root.walk();
    'walk: loop {
        if visit(cursor.node()) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
}

/// Whether the comment starting at `start` of `text` stands on a line of its own.
pub fn own_line(text: &str, start: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..start].trim().is_empty()
}

/// Where each line of `text` holding code starts (not blank, not a `#` comment line): the
/// lines a comment standing alone may cover.
pub fn hash_code_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if !t.is_empty() && !t.starts_with('#') {
            out.push(pos + line.len() - t.len());
        }
        pos += line.len();
    }
    out
}

pub fn type_setting(ctype: &str, span: Span, written: &str) -> Setting {
    let mut t = Setting::literal(Scalar::Str(ctype.to_string()), span, None);
    t.written = written.to_string();
    t.in_place = false;
    t
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::facts::computes::SourceKind;

    /// Files too large to read are searched within one run's budget: each search takes
    /// `fsio::MAX_SCAN` of it, however early the words are; past it, none is searched.
    #[test]
    fn large_files_are_searched_within_the_runs_budget() {
        let dir = tempfile::tempdir().unwrap();
        let files = Files::new(crate::fsio::Boundary::at(dir.path()), &Default::default());
        let searches = (SCAN_BUDGET / crate::fsio::MAX_SCAN) as usize;
        for i in 0..=searches {
            let path = dir.path().join(format!("{i}.sh"));
            std::fs::write(&path, "az ml compute create -n x\n").unwrap();
            assert_eq!(
                files.scan(&path, &["ml compute create"]),
                i < searches,
                "search {i}"
            );
        }
    }

    /// A definition of `text` from `head` (a needle) to the end, written before it from
    /// `before` to the end of `until`.
    fn def_at(text: &str, head: &str, before: &str, until: &str) -> ComputeDef {
        let (h, b) = (text.find(head).unwrap() as u32, text.find(before).unwrap() as u32);
        let e = (text.find(until).unwrap() + until.len()) as u32;
        let mut d = ComputeDef::new(
            SourceKind::PythonSdk,
            "x.py",
            Span::new(h, text.len() as u32),
            "ComputeTarget.create(...)",
            Setting::dynamic("n", "test", Span::new(h, h + 1), None),
        );
        d.written_before.push(Span::new(b, e));
        d
    }

    fn comment(text: &str, needle: &str, target_line: Option<u32>) -> Comment {
        let at = text.find(needle).unwrap() as u32;
        Comment {
            span: Span::new(at, at + needle.len() as u32),
            own_line: true,
            target_line,
            also: Vec::new(),
        }
    }

    /// A directive that covers a line of the text written before a definition covers the
    /// definition's first line too; other comments, and those outside it, do not.
    #[test]
    fn a_directive_beside_what_a_definition_takes_covers_its_first_line() {
        let text = "# amlint: ignore[AML505]\nc = P(size=1,\n  n=2)  # amlint: ignore[AML601]\n# just words\nx = 1  # amlint: ignore[AML505]\nC(c)\n";
        let source = SourceFile::new("x.py", text.to_string());
        let def = def_at(text, "C(c)", "c = P", "n=2)");
        let mut comments = vec![
            comment(text, "# amlint: ignore[AML505]\nc", Some(2)),
            comment(text, "# amlint: ignore[AML601]", Some(3)),
            comment(text, "# just words", Some(5)),
            comment(text, "# amlint: ignore[AML505]\nC", Some(5)),
        ];
        comments[0].span.end -= 2;
        comments[3].span.end -= 2;
        cover_written_before(&source, &[def], &mut comments);
        let also: Vec<&[u32]> = comments.iter().map(|c| c.also.as_slice()).collect();
        assert_eq!(also, [&[6][..], &[6], &[], &[]]);
    }

    /// A configuration many definitions use, with many directives on its lines, adds a
    /// bounded number of lines.
    #[test]
    fn the_lines_added_are_bounded() {
        let mut text = String::from("c = P(\n");
        text.push_str(&"  # amlint: ignore[AML505]\n".repeat(200));
        text.push_str(")\n");
        text.push_str(&"C(c)\n".repeat(200));
        let source = SourceFile::new("x.py", text.clone());
        let heads: Vec<usize> = text.match_indices("C(c)").map(|(i, _)| i).collect();
        let defs: Vec<ComputeDef> = heads
            .iter()
            .map(|&h| {
                let mut d = def_at(&text[..h + 4], "C(c)", "c = P", "\n)");
                d.span = Span::new(h as u32, h as u32 + 4);
                d
            })
            .collect();
        let mut comments: Vec<Comment> = text
            .match_indices("# amlint")
            .enumerate()
            .map(|(i, (at, _))| Comment {
                span: Span::new(at as u32, at as u32 + 25),
                own_line: true,
                target_line: Some(i as u32 + 3),
                also: Vec::new(),
            })
            .collect();
        cover_written_before(&source, &defs, &mut comments);
        let added: usize = comments.iter().map(|c| c.also.len()).sum();
        assert_eq!(added, MAX_ALSO);
        assert_eq!(comments[0].also[..2], [203, 204]);
    }
}
