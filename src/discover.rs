//! Which files to check: explicit files always; directories walked with the `ignore`
//! crate (honouring `.gitignore`, `.ignore` and hidden files) for `*.yml`, `*.yaml`,
//! `*.json` and `MLTable` files, and the files that may define computes (scripts,
//! notebooks, Makefiles: `load::DEFINITION_SOURCES`).
//!
//! The walk follows no link, and reports what it could not do (`docs/security.md`): a
//! directory it could not list is a [`Problem`] the run reports as a finding; an ignore
//! file the crate would have read through a link out of the project, or that is a pipe,
//! a device or too large, is a [`Problem`] the run reports as a configuration error, and
//! the crate never opens it (its directory is not walked).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::fsio::{self, Boundary, Refusal};

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

/// The hidden directories a walk enters: those of GitHub Actions and Azure Pipelines,
/// whose workflows may create computes, and those where teams keep deployment files
/// (`.azure`, `.cloud` of the "Deploy to Azure" samples, `.devops`, `.infra`...). Every
/// other hidden file or directory (`.git`, `.venv`, `.terraform`'s downloaded modules,
/// `.ipynb_checkpoints`' copies of notebooks, `.pre-commit-config.yaml`) is skipped.
pub const WALKED_HIDDEN: &[&str] = &[
    ".github",
    ".azure-pipelines",
    ".pipelines",
    ".azure",
    ".azuredevops",
    ".ci",
    ".cloud",
    ".deploy",
    ".deployment",
    ".devops",
    ".infra",
];

fn walked_hidden(name: &std::ffi::OsStr) -> bool {
    WALKED_HIDDEN
        .iter()
        .any(|h| name.as_encoded_bytes().eq_ignore_ascii_case(h.as_bytes()))
}

/// Expands the given paths into the files to check, sorted and without duplicates
/// (links may lead anywhere; problems are left out).
pub fn discover(paths: &[PathBuf]) -> Vec<Candidate> {
    discover_filtered(paths, Arc::new(Unfiltered), &Boundary::anywhere())
}

/// [`discover`], with `filter` deciding which directories are walked and which files
/// are kept, and links held to `boundary`; the problems are left out (the language
/// server's workspace, where they have no file to be shown on).
pub fn discover_filtered(paths: &[PathBuf], filter: Arc<dyn Filter>, boundary: &Boundary) -> Vec<Candidate> {
    discover_each(paths, filter, boundary, |_| ())
        .files
        .into_iter()
        .map(|(c, ())| c)
        .collect()
}

/// [`discover_filtered`], calling `each` on every file as soon as it is found: a walked
/// file on the walking thread that found it, so that reading and parsing files overlap
/// the walk; the files named on the command line in parallel (rayon) after it. Returns
/// the files sorted and without duplicates, each with what `each` made of it (a file
/// found twice may have been worked on twice; one result is kept), and the problems.
pub fn discover_each<T: Send>(
    paths: &[PathBuf],
    filter: Arc<dyn Filter>,
    boundary: &Boundary,
    each: impl Fn(&Candidate) -> T + Sync,
) -> Discovered<T> {
    use rayon::prelude::*;
    let mut explicit: Vec<Candidate> = Vec::new();
    let mut walked: Vec<(Candidate, T)> = Vec::new();
    let mut problems: Vec<Problem> = Vec::new();
    for given in paths {
        let is_dir = matches!(fsio::look(given, &Boundary::anywhere()), Ok(fsio::Looked::Dir));
        let named_like_file = given
            .file_name()
            .is_some_and(|n| is_config_name(&n.to_string_lossy()));
        if !is_dir || named_like_file {
            // A missing path, a file, a device, or a directory named like a config file:
            // loading reports what is wrong with it.
            if filter.explicit_file(given) {
                let display = display_of(given);
                explicit.push(Candidate {
                    path: given.clone(),
                    display,
                    explicit: true,
                    seen: crate::load::Seen::Unknown,
                });
            }
            continue;
        }
        // A directory named through a link is walked where it is, if that is inside the
        // project (the walker itself would take the link for a file and yield nothing).
        let is_link = fsio::look_here(given) == Some(None);
        if boundary.root().is_some() {
            if let Err(r) = boundary.resolve(given) {
                problems.push(Problem {
                    path: given.clone(),
                    display: display_of(given),
                    kind: ProblemKind::Unlisted,
                    message: r.describe(),
                });
                continue;
            }
        }
        let start = if is_link {
            // A trailing separator makes the walker's first look resolve the link.
            let mut s = given.clone().into_os_string();
            s.push("/");
            PathBuf::from(s)
        } else {
            given.clone()
        };
        walk(&start, &filter, boundary, &each, &mut walked, &mut problems);
    }
    let mut found: BTreeMap<(String, PathBuf), (Candidate, T)> = BTreeMap::new();
    for (c, t) in walked {
        found.entry(key_of(&c)).or_insert((c, t));
    }
    // A file named on the command line is explicit even when a walk also found it.
    let explicit: Vec<(Candidate, T)> = match explicit.len() {
        0 => Vec::new(),
        _ => explicit
            .into_par_iter()
            .map(|c| {
                let t = each(&c);
                (c, t)
            })
            .collect(),
    };
    for (c, t) in explicit {
        found.insert(key_of(&c), (c, t));
    }
    let candidates: Vec<(Candidate, T)> = found.into_values().collect();
    let files = if paths.len() > 1 {
        same_files_once(candidates, &each)
    } else {
        candidates
    };
    problems.sort_by(|a, b| a.display.cmp(&b.display));
    Discovered { files, problems }
}

/// Where a candidate sorts, and what makes it the same as another: its display path,
/// then its path without `./` components (two files whose names show alike are two).
fn key_of(c: &Candidate) -> (String, PathBuf) {
    // `Path` compares by components, which skip every `.` but a leading one: only that
    // one is taken off (splitting each path into components cost more than the walk's
    // sorting itself).
    let path = c.path.strip_prefix(".").unwrap_or(&c.path);
    (c.display.clone(), path.to_path_buf())
}

/// Whether the ignore files the walker would read in `dir` are safe to open (`fsio::
/// check_unopened`): `.gitignore`, `.ignore`, and git's `info/exclude` (in a `.git`
/// directory, or where a `.git` file leads, through the `commondir` file as the crate
/// follows it). Returns the file refused and why.
fn check_ignore_files(dir: &Path, boundary: &Boundary) -> Result<(), (PathBuf, Refusal)> {
    let check = |p: PathBuf, boundary: &Boundary| {
        fsio::check_unopened(&p, boundary, fsio::MAX_IGNORE_SIZE).map_err(|r| (p, r))
    };
    check(dir.join(".gitignore"), boundary)?;
    check(dir.join(".ignore"), boundary)?;
    let git = dir.join(".git");
    let Some(here) = fsio::look_here(&git) else {
        return Ok(());
    };
    if here == Some(fsio::Looked::Dir) {
        return check(git.join("info/exclude"), boundary);
    }
    check(git.clone(), boundary)?;
    if matches!(fsio::look(&git, boundary), Ok(fsio::Looked::Dir)) {
        // A link to a git directory inside the project.
        return check(git.join("info/exclude"), boundary);
    }
    // A `.git` file (a linked work tree, a submodule) names the git directory, which may
    // be outside the work tree (a linked work tree's is in the main one's): its files
    // are held to being regular and small, not to the boundary.
    let first_line = |p: &Path| -> Result<Option<String>, (PathBuf, Refusal)> {
        let bytes = fsio::read_regular(p, crate::load::Seen::Unknown, &Boundary::anywhere(), 64 * 1024)
            .map_err(|r| (p.to_path_buf(), r))?;
        Ok(String::from_utf8_lossy(&bytes).lines().next().map(str::to_string))
    };
    let Some(gitdir) = first_line(&git)?.and_then(|l| l.strip_prefix("gitdir: ").map(PathBuf::from)) else {
        return Ok(());
    };
    let commondir_file = gitdir.join("commondir");
    check(commondir_file.clone(), &Boundary::anywhere())?;
    if !fsio::exists_here(&commondir_file) {
        return Ok(());
    }
    let Some(line) = first_line(&commondir_file)? else {
        return Ok(());
    };
    let common = if line.starts_with('.') {
        gitdir.join(line)
    } else {
        PathBuf::from(line)
    };
    check(common.join("info/exclude"), &Boundary::anywhere())
}

/// The problem of an ignore file refused.
fn ignore_file_problem((path, r): (PathBuf, Refusal)) -> Problem {
    Problem {
        display: display_of(&path),
        path,
        kind: ProblemKind::IgnoreFile,
        message: format!("this ignore file is not read: {}", r.describe()),
    }
}

/// The path and I/O error of a walker error, if it has them.
fn walk_error_parts(e: &ignore::Error) -> (Option<&Path>, Option<&std::io::Error>) {
    let mut e = e;
    let mut path = None;
    // The crate nests a path and a depth around the error (a few levels).
    for _ in 0..8 {
        match e {
            ignore::Error::WithPath { path: p, err } => {
                path = path.or(Some(p.as_path()));
                e = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => e = err,
            ignore::Error::Partial(errs) if errs.len() == 1 => e = &errs[0],
            ignore::Error::Io(io) => return (path, Some(io)),
            _ => break,
        }
    }
    (path, None)
}

/// The files below `dir` that `filter` keeps, in no particular order, each with what
/// `each` made of it, added to `out`; what went wrong, to `problems`. The walk runs on
/// as many threads as rayon's pool has (one per core, or `RAYON_NUM_THREADS`), but its
/// own (`ignore`'s parallel walker: a walk may run inside a `OnceLock` that rayon jobs
/// wait on); in a tree of thousands of directories most of its time is probing each one
/// for ignore and configuration files.
fn walk<T: Send>(
    dir: &Path,
    filter: &Arc<dyn Filter>,
    boundary: &Boundary,
    each: &(impl Fn(&Candidate) -> T + Sync),
    out: &mut Vec<(Candidate, T)>,
    problems: &mut Vec<Problem>,
) {
    if let Err(problem) = ignore_files_above(dir, boundary) {
        problems.push(problem);
        return;
    }
    let dirs = filter.clone();
    let found_problems: Arc<Mutex<Vec<Problem>>> = Arc::default();
    let refused = found_problems.clone();
    let ignore_boundary = boundary.clone();
    let threads = rayon::current_num_threads().clamp(1, 8);
    let walker = ignore::WalkBuilder::new(dir)
        .standard_filters(true)
        .follow_links(false)
        .threads(threads)
        // Hidden entries are skipped but for the CI folders, where workflows and
        // pipelines create computes (`WALKED_HIDDEN`).
        .hidden(false)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if entry.file_name().as_encoded_bytes().starts_with(b".")
                && !(is_dir && walked_hidden(entry.file_name()))
            {
                return false;
            }
            if !is_dir {
                return true;
            }
            if !dirs.enter_dir(entry.path()) {
                return false;
            }
            // The crate reads the directory's ignore files when it lists it, next.
            match check_ignore_files(entry.path(), &ignore_boundary) {
                Ok(()) => true,
                Err(r) => {
                    lock(&refused).push(ignore_file_problem(r));
                    false
                }
            }
        })
        .build_parallel();
    let found = Mutex::new(Vec::new());
    walker.run(|| {
        let filter = filter.clone();
        // Each thread's finds join the shared lists when its visitor is dropped.
        let mut flush = Flush {
            found: &found,
            mine: Vec::new(),
            problems: &found_problems,
            my_problems: Vec::new(),
        };
        Box::new(move |entry| {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    flush.my_problems.extend(unlisted(&e));
                    return ignore::WalkState::Continue;
                }
            };
            flush.my_problems.extend(unread_ignore_file(&entry));
            if let Some(file_type) = entry.file_type()
                && !file_type.is_dir()
                && filter.walked_file(entry.path())
            {
                let c = Candidate {
                    path: entry.path().to_path_buf(),
                    display: display_of(entry.path()),
                    explicit: false,
                    // Links are not followed: the listing's type is the entry's own.
                    seen: crate::load::Seen::from_listing(file_type),
                };
                let t = each(&c);
                flush.mine.push((c, t));
            }
            ignore::WalkState::Continue
        })
    });
    out.extend(
        found
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    problems.extend(std::mem::take(&mut *lock(&found_problems)));
}

/// The ignore files of `dir` and of every directory above it, which the walker reads
/// before the walk: looked at first (above the project, links may lead anywhere: the
/// machine's own directories); the problem of the first one refused.
fn ignore_files_above(dir: &Path, boundary: &Boundary) -> Result<(), Problem> {
    check_ignore_files(dir, boundary).map_err(ignore_file_problem)?;
    let real = fsio::real_path(dir).unwrap_or_else(|| dir.to_path_buf());
    for d in real.ancestors().skip(1) {
        let b = if boundary.contains(d) {
            boundary.clone()
        } else {
            Boundary::anywhere()
        };
        check_ignore_files(d, &b).map_err(ignore_file_problem)?;
    }
    Ok(())
}

/// Reading the ignore files of the directory of `entry` failed (a glob the crate does not
/// understand is not reported: git ignores it too).
fn unread_ignore_file(entry: &ignore::DirEntry) -> Option<Problem> {
    let (path, Some(io)) = walk_error_parts(entry.error()?) else {
        return None;
    };
    if io.kind() == std::io::ErrorKind::IsADirectory {
        return None;
    }
    let path = path.unwrap_or(entry.path()).to_path_buf();
    Some(Problem {
        display: display_of(&path),
        path,
        kind: ProblemKind::IgnoreFile,
        message: format!(
            "this ignore file could not be read: {}",
            fsio::Refusal::Io(io.kind().into()).describe()
        ),
    })
}

/// A walker error as the problem of the directory it could not list.
fn unlisted(e: &ignore::Error) -> Option<Problem> {
    let (path, io) = walk_error_parts(e);
    let path = path?.to_path_buf();
    let message = match io {
        Some(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            "permission denied: amlint cannot list this directory, so the files in it were not checked"
                .to_string()
        }
        Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
            "this directory was deleted while amlint was walking it".to_string()
        }
        Some(io) => format!("cannot list this directory ({io}), so the files in it were not checked"),
        None => format!("cannot walk this path: {e}"),
    };
    Some(Problem {
        display: display_of(&path),
        path,
        kind: ProblemKind::Unlisted,
        message,
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A walking thread's results, added to the shared list once, when the thread is done.
struct Flush<'a, T> {
    found: &'a Mutex<Vec<T>>,
    mine: Vec<T>,
    problems: &'a Mutex<Vec<Problem>>,
    my_problems: Vec<Problem>,
}

impl<T> Drop for Flush<'_, T> {
    fn drop(&mut self) {
        let mine = std::mem::take(&mut self.mine);
        lock(self.found).extend(mine);
        let problems = std::mem::take(&mut self.my_problems);
        lock(self.problems).extend(problems);
    }
}

/// One path named twice (`amlint check /abs/dir c.yml` from inside `dir`: the same path
/// once made absolute and normalised, without looking at links) is checked once: under
/// the display path that sorts first, explicit if either naming was (and then worked on
/// again as explicit, if it was found by a walk first). Two paths to one file through a
/// link are two paths, each checked and reported, as a walk reports them.
fn same_files_once<T>(
    candidates: Vec<(Candidate, T)>,
    each: &impl Fn(&Candidate) -> T,
) -> Vec<(Candidate, T)> {
    let mut seen: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    let mut out: Vec<(Candidate, T)> = Vec::with_capacity(candidates.len());
    let mut upgraded: Vec<usize> = Vec::new();
    let cwd = std::env::current_dir().unwrap_or_default();
    for (c, t) in candidates {
        let key = fsio::absolute(&c.path, &cwd);
        match seen.get(&key) {
            Some(&i) => {
                if c.explicit && !out[i].0.explicit {
                    out[i].0.explicit = true;
                    upgraded.push(i);
                }
            }
            None => {
                seen.insert(key, out.len());
                out.push((c, t));
            }
        }
    }
    for i in upgraded {
        out[i].1 = each(&out[i].0);
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// A walked regular file is opened without a prior `stat`; a link, and a file named
    /// on the command line, are looked at first (`load::Seen`).
    #[cfg(unix)]
    #[test]
    fn what_the_listing_showed_of_each_file() {
        use crate::load::Seen;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yml"), "a: 1\n").unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("t.yml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join("t.yml"), dir.path().join("b.yml")).unwrap();
        std::fs::write(dir.path().join("c.yml"), "a: 1\n").unwrap();
        let found = discover(&[dir.path().to_path_buf(), dir.path().join("c.yml")]);
        let seen: Vec<(String, Seen)> = found
            .iter()
            .map(|c| (c.path.file_name().unwrap().to_string_lossy().into_owned(), c.seen))
            .collect();
        assert_eq!(
            seen,
            [
                ("a.yml".to_string(), Seen::Listed),
                ("b.yml".to_string(), Seen::Unknown),
                ("c.yml".to_string(), Seen::Unknown),
            ]
        );
    }

    #[test]
    fn a_file_named_twice_is_checked_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.yml"), "a: 1\n").unwrap();
        std::fs::write(dir.path().join("d.yml"), "a: 1\n").unwrap();
        let found = discover(&[
            dir.path().to_path_buf(),
            dir.path().join("c.yml"),
            dir.path().join(".").join("c.yml"),
        ]);
        let names: Vec<String> = found
            .iter()
            .map(|c| c.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["c.yml", "d.yml"], "{found:?}");
        assert!(found[0].explicit, "named on the command line: {found:?}");
        assert!(!found[1].explicit);
    }

    #[test]
    fn a_walked_file_also_named_is_worked_on_as_named() {
        // The walk finds `d/c.yml` first (it sorts before `d/sub/../c.yml`); the same file
        // is also named: it is kept once, explicit, and `each` sees it as explicit.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("c.yml"), "a: 1\n").unwrap();
        let named = dir.path().join("sub").join("..").join("c.yml");
        let found = discover_each(
            &[dir.path().to_path_buf(), named],
            Arc::new(Unfiltered),
            &Boundary::anywhere(),
            |c| c.explicit,
        )
        .files;
        assert_eq!(found.len(), 1, "{found:?}");
        let (c, seen_as_explicit) = &found[0];
        assert!(c.explicit && *seen_as_explicit, "{found:?}");
        assert!(
            c.display.ends_with("/c.yml") && !c.display.contains(".."),
            "{found:?}"
        );
    }

    #[test]
    fn walks_and_honours_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("jobs")).unwrap();
        std::fs::create_dir_all(root.join(".hidden")).unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::create_dir_all(root.join(".github/workflows")).unwrap();
        std::fs::create_dir_all(root.join(".pipelines")).unwrap();
        std::fs::create_dir_all(root.join(".cloud")).unwrap();
        std::fs::create_dir_all(root.join(".terraform/modules")).unwrap();
        std::fs::create_dir_all(root.join(".ipynb_checkpoints")).unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        for f in [
            "jobs/a.yml",
            "jobs/b.YAML",
            "c.json",
            "MLTable",
            "notes.csv",
            ".hidden/x.yml",
            "build/y.yml",
            ".github/workflows/ci.yml",
            ".pipelines/deploy.yml",
            ".cloud/azuredeploy.json",
            ".terraform/modules/main.json",
            ".ipynb_checkpoints/x.json",
            ".github/.hidden.yml",
            ".git/config.yml",
            ".x.yml",
        ] {
            std::fs::write(root.join(f), "a: 1\n").unwrap();
        }
        let found: Vec<String> = discover(&[root.to_path_buf()])
            .into_iter()
            .map(|c| {
                c.path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        assert_eq!(
            found,
            [
                ".cloud/azuredeploy.json",
                ".github/workflows/ci.yml",
                ".pipelines/deploy.yml",
                "MLTable",
                "c.json",
                "jobs/a.yml",
                "jobs/b.YAML"
            ]
        );
        // Explicit files are always checked, ignored or not.
        let explicit = discover(&[root.join("build/y.yml")]);
        assert_eq!(explicit.len(), 1);
        assert!(explicit[0].explicit);
    }

    /// The walker's errors as the problems of the directories they are about (injected:
    /// a directory deleted while walked, one that cannot be listed); an error without a
    /// path is not a directory's.
    #[test]
    fn walker_errors_are_problems_of_their_directories() {
        let io = |kind: std::io::ErrorKind| ignore::Error::WithDepth {
            depth: 2,
            err: Box::new(ignore::Error::WithPath {
                path: PathBuf::from("./a/gone"),
                err: Box::new(ignore::Error::Io(kind.into())),
            }),
        };
        let p = unlisted(&io(std::io::ErrorKind::NotFound)).unwrap();
        assert_eq!((p.display.as_str(), p.kind), ("a/gone", ProblemKind::Unlisted));
        assert!(p.message.contains("deleted"), "{}", p.message);
        let p = unlisted(&io(std::io::ErrorKind::PermissionDenied)).unwrap();
        assert!(p.message.contains("permission denied"), "{}", p.message);
        assert!(unlisted(&ignore::Error::Io(std::io::ErrorKind::Other.into())).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_show_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"./caf\xe9.yml");
        assert_eq!(display_of(Path::new(name)), "caf\\xE9.yml");
        assert_eq!(display_of(Path::new("a\\b.yml")), "a\\b.yml");
    }

    #[test]
    fn display_paths() {
        assert_eq!(display_of(Path::new("./jobs/a.yml")), "jobs/a.yml");
        assert_eq!(display_of(Path::new("jobs/a.yml")), "jobs/a.yml");
        assert_eq!(display_of(Path::new("/abs/a.yml")), "/abs/a.yml");
    }
}
