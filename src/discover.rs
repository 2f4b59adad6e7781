//! Which files to check: explicit files always; directories walked (`walker`: each
//! directory listed once, honouring `.gitignore`, `.ignore`, git's `info/exclude` and
//! hidden files as git does) for `*.yml`, `*.yaml`, `*.json` and `MLTable` files, and the
//! files that may define computes (scripts, notebooks, Makefiles:
//! `load::DEFINITION_SOURCES`).
//!
//! The walk follows no link, and reports what it could not do (`docs/security.md`): a
//! directory it could not list is a [`Problem`] the run reports as a finding; an ignore
//! file that leads through a link out of the project, or that is a pipe, a device or too
//! large, is a [`Problem`] the run reports as a configuration error, and is never opened
//! (its directory is not walked).

use std::path::PathBuf;
use std::sync::Arc;

use crate::fsio::{self, Boundary};

mod model;
mod patterns;
mod walker;

pub use model::{
    Candidate, DirEntries, Discovered, Filter, Problem, ProblemKind, SKIPPED_HIDDEN, Unfiltered, display_of,
    is_config_name,
};

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
    discover_each_cached(paths, filter, boundary, None, Order::Sorted, each)
}

/// The order of [`discover_each_cached`]'s files.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Order {
    /// Sorted by [`cmp_keys`], each once.
    Sorted,
    /// As the walk found them (which varies from run to run), for the walk of one
    /// directory, which finds each file once: the rest of a project that a one-file run
    /// searches, of which it needs the few files that name what it looks for, and sorts
    /// those (sorting 20,000 paths cost that run more than a tenth of its time).
    Found,
}

/// [`discover_each`], with the directories' listings taken from `cache` while they are
/// unchanged, and recorded in it (`crate::cache`: the rest of a project that a one-file
/// run searches), the files in `order`.
pub fn discover_each_cached<T: Send>(
    paths: &[PathBuf],
    filter: Arc<dyn Filter>,
    boundary: &Boundary,
    cache: Option<&crate::cache::Cache>,
    order: Order,
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
        walker::walk(
            &start,
            &filter,
            boundary,
            cache,
            &each,
            &mut walked,
            &mut problems,
        );
    }
    // A file named on the command line is explicit even when a walk also found it: the
    // named files go first, so that the stable sort keeps them before a walk's of the
    // same key, and of a walk's alike the first found.
    let mut files: Vec<(Candidate, T)> = explicit
        .into_par_iter()
        .map(|c| {
            let t = each(&c);
            (c, t)
        })
        .collect();
    files.append(&mut walked);
    problems.sort_by(|a, b| a.display.cmp(&b.display));
    if order == Order::Found && paths.len() == 1 {
        return Discovered { files, problems };
    }
    // Sorted, then each kept once, in a vector: a walk yields tens of thousands, and a
    // map would clone every key.
    let mut files = sorted_by_key(files);
    files.dedup_by(|(later, _), (first, _)| cmp_keys(first, later).is_eq());
    let files = if paths.len() > 1 {
        same_files_once(files, &each)
    } else {
        files
    };
    Discovered { files, problems }
}

/// `files` in [`cmp_keys`] order, stably (alike keys keep their order). Their positions
/// are sorted and each file then moved once: a file and what the walk made of it are
/// over a hundred bytes, and sorting them in place moved each about log2(n) times (a
/// tenth of a one-file run's instructions in a 20,000-file project).
fn sorted_by_key<T>(files: Vec<(Candidate, T)>) -> Vec<(Candidate, T)> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| cmp_keys(&files[a].0, &files[b].0));
    let mut slots: Vec<Option<(Candidate, T)>> = files.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The path by which [`cmp_keys`] tells apart files whose display paths are alike (two
/// files whose names show alike are two). `Path` compares by components, which skip every
/// `.` but a leading one: only that one is taken off (splitting each path into components
/// cost more than the walk's sorting itself).
fn key_path(c: &Candidate) -> &std::path::Path {
    c.path.strip_prefix(".").unwrap_or(&c.path)
}

/// Where a candidate sorts, and what makes it the same as another: its display path,
/// then its path ([`key_path`]), compared only between files whose display paths are
/// alike.
fn cmp_keys(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    a.display
        .cmp(&b.display)
        .then_with(|| key_path(a).cmp(key_path(b)))
}

/// Where a walked file sorts among a walk's others ([`Order::Sorted`], by [`cmp_keys`]),
/// from its path alone (a walk shows a file as [`display_of`] its path).
pub fn walk_key(path: &std::path::Path) -> (String, PathBuf) {
    (
        display_of(path),
        path.strip_prefix(".").unwrap_or(path).to_path_buf(),
    )
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
    use std::path::Path;

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
        std::fs::create_dir_all(root.join("notebooks/.ipynb_aml_checkpoints")).unwrap();
        std::fs::create_dir_all(root.join(".Venv/lib")).unwrap();
        std::fs::create_dir_all(root.join(".pipeline-template/jobs")).unwrap();
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
            "notebooks/.ipynb_aml_checkpoints/train-checkpoint2024-1-1-10-0-0.ipynb",
            "notebooks/train.ipynb",
            ".Venv/lib/x.yml",
            ".pipeline-template/jobs/train.yml",
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
                ".hidden/x.yml",
                ".pipeline-template/jobs/train.yml",
                ".pipelines/deploy.yml",
                "MLTable",
                "c.json",
                "jobs/a.yml",
                "jobs/b.YAML",
                "notebooks/train.ipynb"
            ]
        );
        // Explicit files are always checked, ignored or not.
        let explicit = discover(&[root.join("build/y.yml")]);
        assert_eq!(explicit.len(), 1);
        assert!(explicit[0].explicit);
    }

    /// A directory that cannot be listed is the problem of its path, worded by why.
    #[test]
    fn walker_errors_are_problems_of_their_directories() {
        let io = |kind: std::io::ErrorKind| std::io::Error::from(kind);
        let p = walker::unlisted(Path::new("./a/gone"), &io(std::io::ErrorKind::NotFound));
        assert_eq!((p.display.as_str(), p.kind), ("a/gone", ProblemKind::Unlisted));
        assert!(p.message.contains("deleted"), "{}", p.message);
        let p = walker::unlisted(Path::new("a"), &io(std::io::ErrorKind::PermissionDenied));
        assert!(p.message.contains("permission denied"), "{}", p.message);
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
