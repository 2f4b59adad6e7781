//! What a walk finds and decides with: the files to check ([`Candidate`]), what it could
//! not do ([`Problem`]), the [`Filter`] that decides which directories and files it
//! keeps, and how paths are shown.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    /// The path as reports show it: as given, or the walked path below what was given.
    pub display: String,
    /// Named on the command line (always checked, and reported even when it turns out
    /// not to be an Azure ML file that failed to load).
    pub explicit: bool,
    /// What the walk's directory listing showed of it (a regular file, or not known).
    pub seen: crate::load::Seen,
}

/// Something the walk could not do.
#[derive(Debug)]
pub struct Problem {
    /// The directory or file concerned, as walked.
    pub path: PathBuf,
    /// The path as reports show it.
    pub display: String,
    pub kind: ProblemKind,
    /// What happened.
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// A directory (or a given path) that could not be listed or was refused: a finding
    /// (AML004) on its path.
    Unlisted,
    /// An ignore file that is not read (`.gitignore`, `.ignore`, git's `info/exclude`
    /// and the `.git` file leading to it): a configuration error. Its directory is not
    /// walked.
    IgnoreFile,
    /// An ignore file that could not be read (a permission error): a finding (AML004) on
    /// its path; the walk goes on without its patterns, as git goes on with a warning.
    UnreadIgnoreFile,
}

/// The files found, each with what `each` made of it, and the problems met.
pub struct Discovered<T> {
    pub files: Vec<(Candidate, T)>,
    pub problems: Vec<Problem>,
}

/// Whether a file name is one amlint reads when walking a directory: Azure ML files, and
/// the files that may define computes (`load::DEFINITION_SOURCES`).
pub fn is_config_name(name: &str) -> bool {
    let ends_with = |suffix: &str| {
        name.len() >= suffix.len()
            && name.as_bytes()[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
    };
    ends_with(".yml")
        || ends_with(".yaml")
        || ends_with(".json")
        || name == "MLTable"
        || crate::load::is_definition_source(name)
}

/// `./a/b.yml` → `a/b.yml`; everything else unchanged (on Windows, `\\` → `/`). A name
/// that is not UTF-8 shows its other bytes as `\xNN`, so that two such names never show
/// alike.
pub fn display_of(path: &Path) -> String {
    let s = path_text(path);
    let s = if cfg!(windows) { s.replace('\\', "/") } else { s };
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
}

/// A path as text: its UTF-8 as it is, other bytes as `\xNN`.
fn path_text(path: &Path) -> String {
    if let Some(s) = path.to_str() {
        return s.to_string();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in path.as_os_str().as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02X}"));
            }
        }
        out
    }
    #[cfg(not(unix))]
    path.to_string_lossy().into_owned()
}

/// Decides what a walk yields (the configuration's `include`/`exclude` implement it).
/// Paths are as walked: relative when the given path was.
pub trait Filter: Send + Sync {
    /// Whether to walk into `dir`, a directory below a given one.
    fn enter_dir(&self, dir: &Path) -> bool;
    /// Whether a file found by walking is checked.
    fn walked_file(&self, path: &Path) -> bool;
    /// Whether a file named on the command line is checked.
    fn explicit_file(&self, path: &Path) -> bool;
    /// The walk listed the directory `dir`; `has(name)` says whether an entry of that
    /// name is in it. Called before any of its entries is filtered, so that what a filter
    /// would look for by name in `dir` (a configuration file) it can know from here.
    fn listed(&self, _dir: &Path, _has: &dyn Fn(&str) -> bool) {}
    /// The judge of the entries of the walked directory `dir`, made once for all of them
    /// after [`Filter::listed`] (what is the same for every entry of a directory decided
    /// once: a 10,000-file project has 35,000 entries). `parent` is the judge of the
    /// directory `dir` was entered from, which may make it ([`DirEntries::child`]), and
    /// `has(name)` says whether `dir` holds an entry of that name (as for
    /// [`Filter::listed`]). `None`: each entry is judged by [`Filter::enter_dir`] and
    /// [`Filter::walked_file`], which it must agree with.
    fn entries_of(
        &self,
        _dir: &Path,
        _parent: Option<&dyn DirEntries>,
        _has: &dyn Fn(&str) -> bool,
    ) -> Option<Arc<dyn DirEntries>> {
        None
    }
}

/// A [`Filter`]'s decisions for the entries of one directory (`path` is the directory
/// joined with `name`).
pub trait DirEntries: Send + Sync {
    /// [`Filter::enter_dir`] of the subdirectory `path`.
    fn enter_dir(&self, path: &Path, name: &std::ffi::OsStr) -> bool;
    /// [`Filter::walked_file`] of the file `path`.
    fn walked_file(&self, path: &Path, name: &std::ffi::OsStr) -> bool;
    /// The judge of the entered subdirectory `name`, when it follows from this one alone
    /// (the filter decides when it may: [`Filter::entries_of`]); `None` to work it out.
    fn child(&self, _name: &std::ffi::OsStr) -> Option<Arc<dyn DirEntries>> {
        None
    }
}

/// No configuration: every directory, every file with a configuration file name.
pub struct Unfiltered;

impl Filter for Unfiltered {
    fn enter_dir(&self, _: &Path) -> bool {
        true
    }

    fn walked_file(&self, path: &Path) -> bool {
        path.file_name()
            .is_some_and(|n| is_config_name(&n.to_string_lossy()))
    }

    fn explicit_file(&self, _: &Path) -> bool {
        true
    }
}

/// The hidden directories a walk skips, as ruff's default `exclude` does: version control
/// (`.git`), environments and tools' caches (`.venv`, `.tox`, `.mypy_cache`,
/// `.amlint_cache`...), editors' folders, and copies of files kept elsewhere, which would
/// define every compute twice (`.terraform`'s downloaded modules, `.ipynb_checkpoints`'
/// and Azure ML studio's `.ipynb_aml_checkpoints`' copies of notebooks, `.history`'s saved versions, DVC's cache, promptflow's generated tool lists). Every other hidden
/// directory is walked: workflows (`.github`, `.azure-pipelines`, `.pipelines`), deployment
/// folders (`.azure`, `.cloud`, `.devops`, `.infra`...) and teams' own
/// (`.pipeline-template`), and VS Code's `.vscode`, whose tasks' scripts may create
/// computes (a real project's `.vscode/create_compute.py`). Hidden files (`.pre-commit-config.yaml`: other tools' settings)
/// are skipped but GitLab CI's (`READ_HIDDEN`), which may create computes; a file named on
/// the command line is always checked.
pub const SKIPPED_HIDDEN: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".jj",
    ".git-rewrite",
    ".venv",
    ".direnv",
    ".conda",
    ".pixi",
    ".tox",
    ".nox",
    ".eggs",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".pytype",
    ".pants.d",
    ".amlint_cache",
    ".cache",
    ".ipynb_checkpoints",
    // Azure ML studio's autosaved copies of the notebooks of its file share.
    ".ipynb_aml_checkpoints",
    ".ipython",
    ".jupyter",
    ".promptflow",
    ".terraform",
    ".terragrunt-cache",
    ".history",
    ".dvc",
    ".npm",
    ".yarn",
    ".pnpm-store",
    ".gradle",
    ".m2",
    ".idea",
    ".vs",
    ".local",
    ".Trash",
];

/// Hidden files a walk reads all the same: CI files that create computes, whose names
/// their CI system fixes (GitLab CI's `.gitlab-ci.yml`).
const READ_HIDDEN: &[&str] = &[".gitlab-ci.yml", ".gitlab-ci.yaml"];

/// Whether a walk skips this entry: a hidden file (but those of [`READ_HIDDEN`]), or a
/// hidden directory of [`SKIPPED_HIDDEN`] (compared without case: file systems that ignore
/// case hold `.Git`).
pub(super) fn skipped_hidden(name: &std::ffi::OsStr, is_dir: bool) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b".")
        && if is_dir {
            SKIPPED_HIDDEN
                .iter()
                .any(|h| name.eq_ignore_ascii_case(h.as_bytes()))
        } else {
            !READ_HIDDEN.iter().any(|h| name == h.as_bytes())
        }
}
