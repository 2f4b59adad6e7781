//! The walk of one directory tree ([`walk`]): every directory is listed once, and
//! its ignore files are found in its listing, never looked for by name (a tree of 10,962
//! directories held 65,000 failed probes of `.gitignore`, `.ignore` and `.git` when the
//! `ignore` crate's walker read them and amlint checked them first). An ignore file is
//! looked at (`fsio::check_unopened`) and read by amlint itself, bounded, and its patterns
//! are matched by the `ignore` crate's `Gitignore`, with the precedence its walker gives
//! them (`ignore::dir::Ignore::matched_ignore`, 0.4.30):
//!
//! - the deepest directory's file decides, and within one directory `.ignore` comes before
//!   `.gitignore`, which comes before git's `info/exclude`, then the user's global
//!   excludes file (`core.excludesFile`);
//! - `.gitignore`, `info/exclude` and the global file apply only inside a git (or jj)
//!   repository, and no `.gitignore` above the innermost repository's root applies;
//! - the directories above the walked one (up to `/`) contribute their ignore files too,
//!   matched against the absolute path.
//!
//! The walk runs on threads of its own (a walk may run inside a `OnceLock` that rayon
//! jobs wait on), taking directories from one shared stack: no recursion.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::model::{Candidate, Filter, Problem, ProblemKind, display_of, skipped_hidden};
use super::patterns::Patterns;
use crate::cache::Cache;
use crate::fsio::{self, Boundary, Refusal};
use crate::load::Seen;

/// The ignore rules one directory adds, linked to those of the directories above it. A
/// directory that adds none shares its parent's.
struct Rules {
    above: Option<Arc<Rules>>,
    ignore: Patterns,
    git_ignore: Patterns,
    git_exclude: Patterns,
    /// The directory is a git (or jj) work tree's root.
    has_git: bool,
    /// This directory or one above it is: git's ignore files apply at all.
    in_git: bool,
    /// A directory above the walked one: its patterns see absolute paths.
    above_root: bool,
}

/// A deep chain is unlinked one directory at a time, not by nested drops (no recursion
/// the input's depth controls).
impl Drop for Rules {
    fn drop(&mut self) {
        let mut next = self.above.take();
        while let Some(rules) = next {
            next = match Arc::try_unwrap(rules) {
                Ok(mut alone) => alone.above.take(),
                Err(_) => None,
            };
        }
    }
}

impl Rules {
    fn chain(self: &Arc<Rules>) -> impl Iterator<Item = &Rules> {
        std::iter::successors(Some(&**self), |r| r.above.as_deref())
    }
}

/// The ignore files of one directory that are read, once looked at.
#[derive(Default)]
pub(super) struct IgnoreFiles {
    ignore: Option<(PathBuf, Seen)>,
    git_ignore: Option<(PathBuf, Seen)>,
    /// git's `info/exclude`, and the boundary it was looked at within.
    exclude: Option<(PathBuf, Boundary)>,
}

/// Which names a directory's listing holds, of those the walk needs, with what the
/// listing showed of each (a regular file is opened at once, without resolving its path:
/// resolving walks every folder above it, one `lstat` each).
#[derive(Default, Clone, Copy)]
struct Listed {
    ignore: Option<Seen>,
    git_ignore: Option<Seen>,
    git: Option<Seen>,
    jj: bool,
}

impl Listed {
    fn note(&mut self, name: &[u8], seen: Seen) {
        let seen = Some(seen);
        match name {
            b".ignore" => self.ignore = seen,
            b".gitignore" => self.git_ignore = seen,
            b".git" => self.git = seen,
            b".jj" => self.jj = true,
            _ => {}
        }
    }

    fn seen(&self, name: &str) -> Option<Seen> {
        match name {
            ".ignore" => self.ignore,
            ".gitignore" => self.git_ignore,
            ".git" => self.git,
            _ => None,
        }
    }
}

/// A directory to list, with the rules of the directories above it.
struct Dir {
    path: PathBuf,
    above: Option<Arc<Rules>>,
    /// The filter's judge of the directory this one was entered from.
    parent: Option<Arc<dyn super::model::DirEntries>>,
}

/// What every walking thread shares.
struct Shared<'a, F> {
    root: &'a Path,
    /// The walked directory's real path (`None` when it has none: no rules from above).
    absolute_root: Option<PathBuf>,
    global: Gitignore,
    filter: &'a Arc<dyn Filter>,
    boundary: &'a Boundary,
    /// Listings kept from earlier runs, and where this run's are recorded.
    cache: Option<&'a Cache>,
    each: &'a F,
    queue: Mutex<Queue>,
    ready: Condvar,
}

struct Queue {
    dirs: Vec<Dir>,
    /// Directories being listed: their subdirectories may still come.
    busy: usize,
    /// Threads waiting for work: woken only if there are any (waking none is still a
    /// system call, once per directory).
    waiting: usize,
}

/// The files below `root` that the filters keep, each with what `each` made of it, and
/// the problems met.
pub(super) fn walk<T: Send, F: Fn(&Candidate) -> T + Sync>(
    root: &Path,
    filter: &Arc<dyn Filter>,
    boundary: &Boundary,
    cache: Option<&Cache>,
    each: &F,
    out: &mut Vec<(Candidate, T)>,
    problems: &mut Vec<Problem>,
) {
    let absolute_root = fsio::real_path(root);
    let above = match &absolute_root {
        Some(real) => match rules_above(real, boundary) {
            Ok(rules) => rules,
            Err(problem) => {
                problems.push(problem);
                return;
            }
        },
        None => None,
    };
    let shared = Shared {
        root,
        absolute_root,
        global: global_excludes(),
        filter,
        boundary,
        cache,
        each,
        queue: Mutex::new(Queue {
            dirs: vec![Dir {
                path: root.to_path_buf(),
                above,
                parent: None,
            }],
            busy: 0,
            waiting: 0,
        }),
        ready: Condvar::new(),
    };
    let threads = rayon::current_num_threads().clamp(1, 8);
    let found: Vec<Found<T>> = if threads == 1 {
        vec![work(&shared)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(|| work(&shared))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    };
    for (files, found_problems) in found {
        out.extend(files);
        problems.extend(found_problems);
    }
}

/// What one walking thread found: files with what `each` made of them, and problems.
type Found<T> = (Vec<(Candidate, T)>, Vec<Problem>);

/// One walking thread: lists directories until none is left and none is being listed.
fn work<T, F: Fn(&Candidate) -> T + Sync>(shared: &Shared<'_, F>) -> Found<T> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    while let Some(dir) = next(shared) {
        // Marks the directory done even if checking a file panics, so that the other
        // threads do not wait for it forever.
        let mut done = Done {
            shared,
            subdirs: Vec::new(),
        };
        list(shared, dir, &mut done.subdirs, &mut files, &mut problems);
    }
    (files, problems)
}

fn next<F>(shared: &Shared<'_, F>) -> Option<Dir> {
    let mut queue = lock(&shared.queue);
    loop {
        if let Some(dir) = queue.dirs.pop() {
            queue.busy += 1;
            return Some(dir);
        }
        if queue.busy == 0 {
            if queue.waiting > 0 {
                shared.ready.notify_all();
            }
            return None;
        }
        queue.waiting += 1;
        queue = shared
            .ready
            .wait(queue)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        queue.waiting -= 1;
    }
}

struct Done<'s, 'a, F> {
    shared: &'s Shared<'a, F>,
    subdirs: Vec<Dir>,
}

impl<F> Drop for Done<'_, '_, F> {
    fn drop(&mut self) {
        let mut queue = lock(&self.shared.queue);
        let added = !self.subdirs.is_empty();
        queue.dirs.append(&mut self.subdirs);
        queue.busy -= 1;
        // Waiting threads wake for new work, or to finish when none is left.
        if queue.waiting > 0 && (added || queue.busy == 0) {
            self.shared.ready.notify_all();
        }
    }
}

/// Lists `dir`, reads its ignore files, and sorts its entries: files kept go to `each`,
/// directories entered to `subdirs`.
fn list<T, F: Fn(&Candidate) -> T + Sync>(
    shared: &Shared<'_, F>,
    dir: Dir,
    subdirs: &mut Vec<Dir>,
    files: &mut Vec<(Candidate, T)>,
    problems: &mut Vec<Problem>,
) {
    type Entries<'d> = Box<dyn Iterator<Item = std::io::Result<fsio::Listed>> + 'd>;
    let entries: std::io::Result<Entries<'_>> = match shared.cache {
        Some(cache) => cache
            .listing(&dir.path)
            .map(|e| Box::new(e.into_iter()) as Entries<'_>),
        None => fsio::walk_listing(&dir.path).map(|e| Box::new(e) as Entries<'_>),
    };
    let entries = match entries {
        Ok(entries) => entries,
        Err(e) => {
            problems.push(unlisted(&dir.path, &e));
            return;
        }
    };
    let mut listed = Listed::default();
    let mut children = Vec::with_capacity(entries.size_hint().0);
    for entry in entries {
        match entry {
            Ok(entry) => {
                listed.note(entry.name.as_encoded_bytes(), entry.seen);
                children.push(entry);
            }
            Err(e) => problems.push(unlisted(&dir.path, &e)),
        }
    }
    let has = |name: &str| children.iter().any(|c| c.name == name);
    shared.filter.listed(&dir.path, &has);
    let rules = match rules_of(&dir.path, listed, shared.boundary, dir.above, problems) {
        Ok(rules) => rules,
        Err(problem) => {
            problems.push(problem);
            return;
        }
    };
    let judge = shared.filter.entries_of(&dir.path, dir.parent.as_deref(), &has);
    for fsio::Listed {
        path,
        name,
        is_dir,
        seen,
    } in children
    {
        if rules.as_ref().is_some_and(|r| ignored(shared, r, &path, is_dir)) {
            continue;
        }
        if skipped_hidden(&name, is_dir) {
            continue;
        }
        if is_dir {
            let enter = match &judge {
                Some(j) => j.enter_dir(&path, &name),
                None => shared.filter.enter_dir(&path),
            };
            if enter {
                subdirs.push(Dir {
                    path,
                    above: rules.clone(),
                    parent: judge.clone(),
                });
            }
        } else if match &judge {
            Some(j) => j.walked_file(&path, &name),
            None => shared.filter.walked_file(&path),
        } {
            let c = Candidate {
                display: display_of(&path),
                path,
                explicit: false,
                // Links are not followed: the listing's type is the entry's own.
                seen,
            };
            let t = (shared.each)(&c);
            files.push((c, t));
        }
    }
}

/// The rules of the walked directory `dir`, from the ignore files its listing shows,
/// above `above`; the problem of an ignore file refused (the directory is not walked).
fn rules_of(
    dir: &Path,
    listed: Listed,
    boundary: &Boundary,
    above: Option<Arc<Rules>>,
    problems: &mut Vec<Problem>,
) -> Result<Option<Arc<Rules>>, Problem> {
    let has_git = (listed.git.is_some() && fsio::exists_through_links(&dir.join(".git")))
        || (listed.jj && fsio::exists_through_links(&dir.join(".jj")));
    if listed.ignore.is_none() && listed.git_ignore.is_none() && listed.git.is_none() && !has_git {
        return Ok(above);
    }
    let files = ignore_files(dir, boundary, |name| listed.seen(name)).map_err(ignore_file_problem)?;
    Ok(read_rules(dir, &files, boundary, above, has_git, false, problems))
}

/// The rules of the directories above the walked one (its real path `real`), from `/`
/// down: their ignore files are looked for by name, and looked at first (above the
/// project, within no boundary: the machine's own directories); the problem of the first
/// one refused (nothing is walked).
fn rules_above(real: &Path, boundary: &Boundary) -> Result<Option<Arc<Rules>>, Problem> {
    // Looked at from the nearest up, as git would meet them; built from `/` down.
    let mut found = Vec::new();
    for d in real.ancestors().skip(1) {
        let b = if boundary.contains(d) {
            boundary.clone()
        } else {
            Boundary::anywhere()
        };
        let files = ignore_files(d, &b, |_| Some(Seen::Unknown)).map_err(ignore_file_problem)?;
        found.push((d, files, b));
    }
    let mut above = None;
    // One that cannot be read is passed over (outside the project, it is not the
    // project's to fix; inside, its directory's listing reports it).
    let mut unread = Vec::new();
    for (d, files, b) in found.into_iter().rev() {
        let has_git =
            fsio::exists_through_links(&d.join(".git")) || fsio::exists_through_links(&d.join(".jj"));
        above = read_rules(d, &files, &b, above, has_git, true, &mut unread);
    }
    Ok(above)
}

/// Reads the ignore files `files` of `dir` into its rules, linked to `above`; `above`
/// itself when the directory adds nothing (no pattern, not a repository's root).
fn read_rules(
    dir: &Path,
    files: &IgnoreFiles,
    boundary: &Boundary,
    above: Option<Arc<Rules>>,
    has_git: bool,
    above_root: bool,
    problems: &mut Vec<Problem>,
) -> Option<Arc<Rules>> {
    let mut read = |file: Option<(&PathBuf, Seen, &Boundary)>| match file {
        Some((path, seen, boundary)) => matcher(dir, path, seen, boundary, problems),
        None => Patterns::empty(),
    };
    let ignore = read(files.ignore.as_ref().map(|(p, seen)| (p, *seen, boundary)));
    let git_ignore = read(files.git_ignore.as_ref().map(|(p, seen)| (p, *seen, boundary)));
    let git_exclude = read(files.exclude.as_ref().map(|(p, b)| (p, Seen::Unknown, b)));
    if !has_git && ignore.is_empty() && git_ignore.is_empty() && git_exclude.is_empty() {
        return above;
    }
    let in_git = has_git || above.as_ref().is_some_and(|a| a.in_git);
    Some(Arc::new(Rules {
        in_git,
        above,
        ignore,
        git_ignore,
        git_exclude,
        has_git,
        above_root,
    }))
}

/// The patterns of the ignore file `path`, for paths below `dir` ([`Patterns::parse`]).
/// An absent file, or a directory, has none; one that cannot be read is a problem (an
/// AML004 finding: the walk goes on without its patterns, as git does with a warning).
/// One with more patterns than the `ignore` crate compiles is refused (a configuration
/// error), and its directory is not walked.
fn matcher(
    dir: &Path,
    path: &Path,
    seen: Seen,
    boundary: &Boundary,
    problems: &mut Vec<Problem>,
) -> Patterns {
    let bytes = match fsio::read_regular(path, seen, boundary, fsio::MAX_IGNORE_SIZE) {
        Ok(bytes) => bytes,
        Err(Refusal::Missing | Refusal::Dangling | Refusal::Directory) => return Patterns::empty(),
        Err(r) => {
            problems.push(ignore_problem(
                path,
                ProblemKind::UnreadIgnoreFile,
                format!(
                    "this ignore file could not be read ({}), so its patterns were not applied: the files it names were walked",
                    r.describe()
                ),
            ));
            return Patterns::empty();
        }
    };
    Patterns::parse(dir, path, &bytes).unwrap_or_else(|compiled| {
        problems.push(ignore_problem(
            path,
            ProblemKind::IgnoreFile,
            format!(
                "this ignore file is not read: its patterns other than plain paths and names (wildcards, classes, negations) are {}, more than the {} amlint compiles",
                fsio::human_size(compiled as u64),
                fsio::human_size(super::patterns::MAX_COMPILED as u64),
            ),
        ));
        Patterns::everything()
    })
}

/// The user's global excludes file (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`),
/// its patterns relative to the current directory, as the crate's walker reads it.
fn global_excludes() -> Gitignore {
    match std::env::current_dir() {
        Ok(cwd) => GitignoreBuilder::new(cwd).build_global().0,
        Err(_) => Gitignore::empty(),
    }
}

/// Whether the rules ignore `path` (as walked; a directory when `is_dir`).
fn ignored<F>(shared: &Shared<'_, F>, rules: &Arc<Rules>, path: &Path, is_dir: bool) -> bool {
    let path = strip_bytes(path, "./");
    let any_git = rules.in_git;
    let mut found = [Match::None, Match::None, Match::None];
    let mut saw_git = false;
    let mut look = |r: &Rules, path: &Path, saw_git: &mut bool| {
        if found[0].is_none() {
            found[0] = r.ignore.matched(path, is_dir).map(|_| ());
        }
        if any_git && !*saw_git && found[1].is_none() {
            found[1] = r.git_ignore.matched(path, is_dir).map(|_| ());
        }
        if any_git && !*saw_git && found[2].is_none() {
            found[2] = r.git_exclude.matched(path, is_dir).map(|_| ());
        }
        *saw_git = *saw_git || r.has_git;
    };
    for r in rules.chain().take_while(|r| !r.above_root) {
        look(r, path, &mut saw_git);
    }
    if let Some(absolute_root) = &shared.absolute_root
        && rules.chain().any(|r| r.above_root)
    {
        // The path below the walked directory, joined to its real path.
        let below = if shared.root == Path::new(".") {
            path
        } else {
            let root = strip_bytes(shared.root, "./");
            strip_bytes(strip_os(path, root.as_os_str()), "/")
        };
        let absolute = absolute_root.join(below);
        for r in rules.chain().skip_while(|r| !r.above_root) {
            look(r, &absolute, &mut saw_git);
        }
    }
    let global = if any_git {
        shared.global.matched(path, is_dir).map(|_| ())
    } else {
        Match::None
    };
    let [ignore, git_ignore, exclude] = found;
    ignore.or(git_ignore).or(exclude).or(global).is_ignore()
}

/// `path` without the bytes `prefix` at its start, if it starts with them (the crate's
/// `strip_if_is_prefix`: bytes, not components).
fn strip_bytes<'p>(path: &'p Path, prefix: &str) -> &'p Path {
    strip_os(path, std::ffi::OsStr::new(prefix))
}

fn strip_os<'p>(path: &'p Path, prefix: &std::ffi::OsStr) -> &'p Path {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        match path.as_os_str().as_bytes().strip_prefix(prefix.as_bytes()) {
            Some(rest) => Path::new(std::ffi::OsStr::from_bytes(rest)),
            None => path,
        }
    }
    #[cfg(not(unix))]
    match (path.to_str(), prefix.to_str()) {
        (Some(p), Some(x)) => p.strip_prefix(x).map_or(path, Path::new),
        _ => path,
    }
}

/// The problem of an ignore file refused.
fn ignore_file_problem((path, r): (PathBuf, Refusal)) -> Problem {
    let message = format!("this ignore file is not read: {}", r.describe());
    ignore_problem(&path, ProblemKind::IgnoreFile, message)
}

/// A problem of the ignore file `path`.
fn ignore_problem(path: &Path, kind: ProblemKind, message: String) -> Problem {
    Problem {
        display: display_of(path),
        path: path.to_path_buf(),
        kind,
        message,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The ignore files of `dir` the walk reads, each looked at first (`fsio::check_unopened`):
/// `.gitignore`, `.ignore`, and git's `info/exclude` (in a `.git` directory, or where a
/// `.git` file leads, through the `commondir` file as git follows it). `seen(name)` says
/// whether `dir` holds an entry of that name, and what its listing showed of it
/// (`Seen::Unknown` where there is no listing: looked for by name). Returns the file
/// refused and why.
pub(super) fn ignore_files(
    dir: &Path,
    boundary: &Boundary,
    seen: impl Fn(&str) -> Option<Seen>,
) -> Result<IgnoreFiles, (PathBuf, Refusal)> {
    let check = |p: PathBuf, boundary: &Boundary| {
        fsio::check_unopened(&p, boundary, fsio::MAX_IGNORE_SIZE)
            .map(|()| p.clone())
            .map_err(|r| (p, r))
    };
    let mut files = IgnoreFiles::default();
    if let Some(listed) = seen(".gitignore") {
        files.git_ignore = Some((check(dir.join(".gitignore"), boundary)?, listed));
    }
    if let Some(listed) = seen(".ignore") {
        files.ignore = Some((check(dir.join(".ignore"), boundary)?, listed));
    }
    if seen(".git").is_none() {
        return Ok(files);
    }
    let git = dir.join(".git");
    let Some(here) = fsio::look_here(&git) else {
        return Ok(files);
    };
    if here == Some(fsio::Looked::Dir) {
        let exclude = check(git.join("info/exclude"), boundary)?;
        files.exclude = Some((exclude, boundary.clone()));
        return Ok(files);
    }
    check(git.clone(), boundary)?;
    if matches!(fsio::look(&git, boundary), Ok(fsio::Looked::Dir)) {
        // A link to a git directory inside the project.
        let exclude = check(git.join("info/exclude"), boundary)?;
        files.exclude = Some((exclude, boundary.clone()));
        return Ok(files);
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
        return Ok(files);
    };
    let commondir_file = gitdir.join("commondir");
    check(commondir_file.clone(), &Boundary::anywhere())?;
    if !fsio::exists_here(&commondir_file) {
        return Ok(files);
    }
    let Some(line) = first_line(&commondir_file)? else {
        return Ok(files);
    };
    let common = if line.starts_with('.') {
        gitdir.join(line)
    } else {
        PathBuf::from(line)
    };
    let exclude = check(common.join("info/exclude"), &Boundary::anywhere())?;
    files.exclude = Some((exclude, Boundary::anywhere()));
    Ok(files)
}

/// The problem of a directory that could not be listed (whole or in part).
pub(super) fn unlisted(dir: &Path, io: &std::io::Error) -> Problem {
    let message = match io.kind() {
        std::io::ErrorKind::PermissionDenied => {
            "permission denied: amlint cannot list this directory, so the files in it were not checked"
                .to_string()
        }
        std::io::ErrorKind::NotFound => "this directory was deleted while amlint was walking it".to_string(),
        _ => format!("cannot list this directory ({io}), so the files in it were not checked"),
    };
    Problem {
        display: display_of(dir),
        path: dir.to_path_buf(),
        kind: ProblemKind::Unlisted,
        message,
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::super::model::Unfiltered;
    use super::*;

    /// The files a walk of `given` finds, sorted.
    fn discover(given: &[PathBuf]) -> Vec<Candidate> {
        let filter: Arc<dyn Filter> = Arc::new(Unfiltered);
        let (mut out, mut problems) = (Vec::new(), Vec::new());
        walk(
            &given[0],
            &filter,
            &Boundary::anywhere(),
            None,
            &|_: &Candidate| (),
            &mut out,
            &mut problems,
        );
        let mut found: Vec<Candidate> = out.into_iter().map(|(c, ())| c).collect();
        found.sort_by(|a, b| a.display.cmp(&b.display));
        found
    }

    fn tree(root: &Path, files: &[&str], ignores: &[(&str, &[u8])]) {
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "a: 1\n").unwrap();
        }
        for (f, text) in ignores {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    /// The files a walk of `given` keeps, relative to `root`, sorted.
    fn walked(root: &Path, given: &Path) -> Vec<String> {
        discover(&[given.to_path_buf()])
            .into_iter()
            .map(|c| {
                let abs = if c.path.is_absolute() {
                    c.path
                } else {
                    root.join(c.path)
                };
                abs.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect()
    }

    /// `git check-ignore` agrees with every line (checked when the tests were written).
    #[test]
    fn ignore_files_are_matched_as_git_matches_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/info")).unwrap();
        tree(
            root,
            &[
                "a.yml",
                "build/b.yml",
                "sub/c.yml",
                "sub/keep.yml",
                "sub/drop.yml",
                "sub/deep/d.yml",
                "sub/deep/e.yaml",
                "sub/deep/f.yaml",
                "root-only.yml",
                "sub/root-only.yml",
                "logs/x.yml",
                "sub/logs/y.yml",
                "data.json",
                "over/g.yml",
                "over/h.yml",
                "enc/i.yml",
                "enc/j.yml",
                "enc/k.yml",
                "x/deep/tmp/q.yml",
                "tmp.yml",
            ],
            &[
                (".gitignore", b"build/\n/root-only.yml\nlogs\n**/tmp\n"),
                ("sub/.gitignore", b"drop.yml\n*.yaml\n!keep.yml\n"),
                ("sub/deep/.gitignore", b"!e.yaml\n"),
                (".git/info/exclude", b"data.json\n"),
                // `.ignore` comes before `.gitignore` in one directory.
                ("over/.gitignore", b"g.yml\n"),
                ("over/.ignore", b"!g.yml\nh.yml\n"),
                // A byte order mark, CRLF line ends, and a line that is not UTF-8 with a
                // pattern after it (git reads lines as bytes).
                ("enc/.gitignore", b"\xef\xbb\xbfi.yml\r\n\xff\xfe\nj.yml\n"),
            ],
        );
        assert_eq!(
            walked(root, root),
            [
                "a.yml",
                "enc/k.yml",
                "over/g.yml",
                "sub/c.yml",
                "sub/deep/d.yml",
                "sub/deep/e.yaml",
                "sub/keep.yml",
                "sub/root-only.yml",
                "tmp.yml"
            ]
        );
    }

    /// `.gitignore` applies only in a git work tree, and only up to the innermost one's
    /// root; `.ignore` applies everywhere.
    #[test]
    fn gitignore_stops_at_the_repository_it_belongs_to() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "plain/a.yml",
                "plain/b.yml",
                "repo/x.yml",
                "repo/inner/x.yml",
                "repo/inner/y.yml",
            ],
            &[
                ("plain/.gitignore", b"a.yml\n"),
                ("plain/.ignore", b"b.yml\n"),
                ("repo/.gitignore", b"x.yml\n"),
                ("repo/inner/.gitignore", b"y.yml\n"),
            ],
        );
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/inner/.git")).unwrap();
        assert_eq!(walked(root, &root.join("plain")), ["plain/a.yml"]);
        assert_eq!(walked(root, &root.join("repo")), ["repo/inner/x.yml"]);
    }

    /// Walking a folder of a repository, the ignore files of the folders above it apply,
    /// matched against the real path, however the folder is named.
    #[test]
    fn the_ignore_files_above_the_walked_folder_apply() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        tree(
            root,
            &["proj/sub/a.yml", "proj/sub/b.yml", "proj/sub/c.yml", "proj/c.yml"],
            &[
                (".gitignore", b"proj/sub/a.yml\nc.yml\n"),
                ("proj/.gitignore", b"/sub/b.yml\n"),
            ],
        );
        let expected = ["proj/sub/c.yml"; 0];
        assert_eq!(walked(root, &root.join("proj/sub")), expected);
        assert_eq!(walked(root, &root.join("proj")), expected);
        let found: Vec<String> = discover(&[root.join("proj/sub/")])
            .into_iter()
            .map(|c| c.display)
            .collect();
        assert!(found.is_empty(), "{found:?}");
        std::fs::write(root.join("proj/sub/d.yml"), "a: 1\n").unwrap();
        assert_eq!(walked(root, &root.join("proj/sub")), ["proj/sub/d.yml"]);
    }

    /// An ignore file that cannot be read is a problem of its own, and the walk goes on
    /// without its patterns.
    #[cfg(unix)]
    #[test]
    fn an_ignore_file_that_cannot_be_read_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join(".gitignore");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let mut problems = Vec::new();
        let rules = matcher(
            dir.path(),
            &fifo,
            Seen::Unknown,
            &Boundary::anywhere(),
            &mut problems,
        );
        assert!(rules.is_empty());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].kind, ProblemKind::UnreadIgnoreFile);
        assert!(
            problems[0].message.contains("could not be read"),
            "{}",
            problems[0].message
        );
    }

    /// A chain of rules as deep as a path can be is dropped without a nested drop per
    /// directory (which overflowed the stack before `Drop for Rules`).
    #[test]
    fn a_deep_chain_of_rules_is_dropped_without_recursion() {
        let mut above = None;
        for _ in 0..300_000 {
            above = Some(Arc::new(Rules {
                above,
                ignore: Patterns::empty(),
                git_ignore: Patterns::empty(),
                git_exclude: Patterns::empty(),
                has_git: false,
                in_git: false,
                above_root: false,
            }));
        }
        drop(above);
    }

    /// Each directory is listed once, and the filter hears of it before its entries.
    #[test]
    fn every_directory_is_listed_once_before_its_entries_are_filtered() {
        struct Count(Mutex<Vec<String>>);
        impl Filter for Count {
            fn enter_dir(&self, dir: &Path) -> bool {
                let parent = dir.parent().unwrap().to_string_lossy().into_owned();
                assert!(
                    lock(&self.0).contains(&parent),
                    "{dir:?} filtered before its folder was listed"
                );
                true
            }
            fn walked_file(&self, path: &Path) -> bool {
                Unfiltered.walked_file(path)
            }
            fn explicit_file(&self, _: &Path) -> bool {
                true
            }
            fn listed(&self, dir: &Path, has: &dyn Fn(&str) -> bool) {
                assert!(has("a.yml") || !dir.ends_with("d1"));
                lock(&self.0).push(dir.to_string_lossy().into_owned());
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(root, &["d1/a.yml", "d1/d2/b.yml", "d3/c.yml"], &[]);
        let count = Arc::new(Count(Mutex::new(Vec::new())));
        let filter: Arc<dyn Filter> = count.clone();
        let (mut found, mut problems) = (Vec::new(), Vec::new());
        walk(
            root,
            &filter,
            &Boundary::anywhere(),
            None,
            &|_: &Candidate| (),
            &mut found,
            &mut problems,
        );
        assert_eq!(found.len(), 3);
        let mut listed = lock(&count.0).clone();
        listed.sort();
        let expected: Vec<String> = ["", "/d1", "/d1/d2", "/d3"]
            .iter()
            .map(|d| format!("{}{d}", root.to_string_lossy()))
            .collect();
        assert_eq!(listed, expected);
    }
}
