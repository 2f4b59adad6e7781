//! Which files to check: explicit files always; directories walked with the `ignore`
//! crate (honouring `.gitignore`, `.ignore` and hidden files) for `*.yml`, `*.yaml`,
//! `*.json` and `MLTable` files.

use std::collections::BTreeMap;
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

/// Whether a file name is one amlint reads when walking a directory.
pub fn is_config_name(name: &str) -> bool {
    let ends_with = |suffix: &str| {
        name.len() >= suffix.len()
            && name.as_bytes()[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
    };
    ends_with(".yml") || ends_with(".yaml") || ends_with(".json") || name == "MLTable"
}

/// `./a/b.yml` → `a/b.yml`; everything else unchanged.
fn display_of(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
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

/// Expands the given paths into the files to check, sorted and without duplicates.
pub fn discover(paths: &[PathBuf]) -> Vec<Candidate> {
    discover_filtered(paths, Arc::new(Unfiltered))
}

/// [`discover`], with `filter` deciding which directories are walked and which files
/// are kept.
pub fn discover_filtered(paths: &[PathBuf], filter: Arc<dyn Filter>) -> Vec<Candidate> {
    discover_each(paths, filter, |_| ())
        .into_iter()
        .map(|(c, ())| c)
        .collect()
}

/// [`discover_filtered`], calling `each` on every file as soon as it is found: a walked
/// file on the walking thread that found it, so that reading and parsing files overlap
/// the walk; the files named on the command line in parallel (rayon) after it. Returns
/// the files sorted and without duplicates, each with what `each` made of it (a file
/// found twice may have been worked on twice; one result is kept).
pub fn discover_each<T: Send>(
    paths: &[PathBuf],
    filter: Arc<dyn Filter>,
    each: impl Fn(&Candidate) -> T + Sync,
) -> Vec<(Candidate, T)> {
    use rayon::prelude::*;
    let mut explicit: Vec<Candidate> = Vec::new();
    let mut walked: Vec<(Candidate, T)> = Vec::new();
    for given in paths {
        let is_dir = std::fs::metadata(given).is_ok_and(|m| m.is_dir());
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
        walked.extend(walk(given, &filter, &each));
    }
    let mut found: BTreeMap<String, (Candidate, T)> = BTreeMap::new();
    for (c, t) in walked {
        found.entry(c.display.clone()).or_insert((c, t));
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
        found.insert(c.display.clone(), (c, t));
    }
    let candidates: Vec<(Candidate, T)> = found.into_values().collect();
    if paths.len() > 1 {
        same_files_once(candidates, &each)
    } else {
        candidates
    }
}

/// The files below `dir` that `filter` keeps, in no particular order, each with what
/// `each` made of it. The walk runs on as many threads as rayon's pool has (one per core,
/// or `RAYON_NUM_THREADS`), but its own (`ignore`'s parallel walker: a walk may run inside
/// a `OnceLock` that rayon jobs wait on); in a tree of thousands of directories most of its time is probing each one
/// for ignore and configuration files.
fn walk<T: Send>(
    dir: &Path,
    filter: &Arc<dyn Filter>,
    each: &(impl Fn(&Candidate) -> T + Sync),
) -> Vec<(Candidate, T)> {
    let dirs = filter.clone();
    let threads = rayon::current_num_threads().clamp(1, 8);
    let walker = ignore::WalkBuilder::new(dir)
        .standard_filters(true)
        .follow_links(false)
        .threads(threads)
        .filter_entry(move |entry| {
            entry.depth() == 0
                || !entry.file_type().is_some_and(|t| t.is_dir())
                || dirs.enter_dir(entry.path())
        })
        .build_parallel();
    let found = std::sync::Mutex::new(Vec::new());
    walker.run(|| {
        let filter = filter.clone();
        // Each thread's finds join the shared list when its visitor is dropped.
        let mut flush = Flush {
            found: &found,
            mine: Vec::new(),
        };
        Box::new(move |entry| {
            if let Ok(entry) = entry
                && let Some(file_type) = entry.file_type()
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
    found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A walking thread's results, added to the shared list once, when the thread is done.
struct Flush<'a, T> {
    found: &'a std::sync::Mutex<Vec<T>>,
    mine: Vec<T>,
}

impl<T> Drop for Flush<'_, T> {
    fn drop(&mut self) {
        let mine = std::mem::take(&mut self.mine);
        self.found
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(mine);
    }
}

/// One file named twice (`amlint check /abs/dir c.yml` from inside `dir`) is checked
/// once: under the display path that sorts first, explicit if either naming was (and
/// then worked on again as explicit, if it was found by a walk first).
fn same_files_once<T>(
    candidates: Vec<(Candidate, T)>,
    each: &impl Fn(&Candidate) -> T,
) -> Vec<(Candidate, T)> {
    let mut seen: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    let mut out: Vec<(Candidate, T)> = Vec::with_capacity(candidates.len());
    let mut upgraded: Vec<usize> = Vec::new();
    for (c, t) in candidates {
        let key = std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone());
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
        let found = discover_each(&[dir.path().to_path_buf(), named], Arc::new(Unfiltered), |c| {
            c.explicit
        });
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
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        for f in [
            "jobs/a.yml",
            "jobs/b.YAML",
            "c.json",
            "MLTable",
            "notes.txt",
            ".hidden/x.yml",
            "build/y.yml",
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
        assert_eq!(found, ["MLTable", "c.json", "jobs/a.yml", "jobs/b.YAML"]);
        // Explicit files are always checked, ignored or not.
        let explicit = discover(&[root.join("build/y.yml")]);
        assert_eq!(explicit.len(), 1);
        assert!(explicit[0].explicit);
    }

    #[test]
    fn display_paths() {
        assert_eq!(display_of(Path::new("./jobs/a.yml")), "jobs/a.yml");
        assert_eq!(display_of(Path::new("jobs/a.yml")), "jobs/a.yml");
        assert_eq!(display_of(Path::new("/abs/a.yml")), "/abs/a.yml");
    }
}
