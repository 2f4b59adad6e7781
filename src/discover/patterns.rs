//! The patterns of one ignore file, as git matches them: plain paths and names in hash
//! sets, the other patterns compiled by the `ignore` crate's `Gitignore`.
//!
//! The crate compiles every pattern it is given, even a plain path, into one set: a
//! generated `.gitignore` listing 70,000 files of a virtual environment one by one (2.6
//! MiB, a real repository's) took 0.3 s and 229 MB there. A plain pattern (no wildcard,
//! class, brace or escape) matches exactly one name or one path, so a lookup decides it;
//! while no pattern of the file negates (`!`), every match ignores and the order of the
//! patterns does not matter, so the sets and the crate's matcher together match as git
//! does. A file with a negation gives all its patterns to the crate, in order.

use std::collections::HashSet;
use std::path::Path;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The most bytes of patterns of one ignore file the crate compiles (about 0.5 KB of
/// memory per byte of complex patterns: 1 MiB of them took 1.4 s and 425 MB).
pub const MAX_COMPILED: usize = 256 * 1024;

/// The patterns of one ignore file.
pub struct Patterns {
    globs: Gitignore,
    plain: Option<Box<Plain>>,
    /// Everything is ignored (the file was refused: nothing below it is walked).
    all: bool,
}

/// Plain patterns without a slash (`name`, matched against every entry's name) and with
/// one (`dir/name`, `/name`: against the path below the ignore file's directory), each
/// also for directories only (written with a trailing `/`).
#[derive(Default)]
struct Plain {
    names: HashSet<Box<[u8]>>,
    dir_names: HashSet<Box<[u8]>>,
    paths: HashSet<Box<[u8]>>,
    dir_paths: HashSet<Box<[u8]>>,
}

impl Patterns {
    pub fn empty() -> Self {
        Patterns {
            globs: Gitignore::empty(),
            plain: None,
            all: false,
        }
    }

    /// Patterns that ignore every path.
    pub fn everything() -> Self {
        Patterns {
            all: true,
            ..Patterns::empty()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.globs.is_empty() && self.plain.is_none() && !self.all
    }

    /// The patterns of the ignore file `from`, whose text is `bytes`, for the paths below
    /// `dir`. `Err`: how many bytes of patterns the crate would compile, beyond
    /// [`MAX_COMPILED`]. Lines are bytes to git: a line that is not UTF-8 is read with
    /// its bad bytes replaced, and the lines after it still count. A pattern git would not
    /// understand is passed over, as git does.
    pub fn parse(dir: &Path, from: &Path, bytes: &[u8]) -> Result<Self, usize> {
        let lines = || {
            bytes
                .split_inclusive(|&b| b == b'\n')
                .enumerate()
                .map(|(i, line)| {
                    let line = line.strip_suffix(b"\n").unwrap_or(line);
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    // git passes over a byte order mark at the start of the file.
                    if i == 0 {
                        line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line)
                    } else {
                        line
                    }
                })
        };
        let negates = lines().any(|l| l.starts_with(b"!"));
        let mut builder = GitignoreBuilder::new(dir);
        let mut plain = Plain::default();
        let mut compiled = 0usize;
        for line in lines() {
            if !negates && plain.add(line) {
                continue;
            }
            compiled += line.len() + 1;
            if compiled > MAX_COMPILED {
                return Err(compiled);
            }
            let _ = builder.add_line(Some(from.to_path_buf()), &String::from_utf8_lossy(line));
        }
        let globs = builder.build().unwrap_or_else(|_| Gitignore::empty());
        let plain = (!plain.is_empty()).then(|| Box::new(plain));
        Ok(Patterns {
            globs,
            plain,
            all: false,
        })
    }

    /// Whether `path` (below the ignore file's directory, or a path through it, as the
    /// crate takes it; a directory when `is_dir`) is ignored or, by a negation, not.
    pub fn matched(&self, path: &Path, is_dir: bool) -> Match<()> {
        if self.all {
            return Match::Ignore(());
        }
        if let Some(plain) = &self.plain
            && plain.matches(self.strip(path), is_dir)
        {
            return Match::Ignore(());
        }
        self.globs.matched(path, is_dir).map(|_| ())
    }

    /// `path` relative to the ignore file's directory, as `Gitignore::matched` strips it
    /// (ignore 0.4.30, `Gitignore::strip`): a leading `./`, then the directory when the
    /// path is not a bare name, then a leading `/`.
    fn strip<'p>(&self, path: &'p Path) -> &'p Path {
        let mut path = path.strip_prefix("./").unwrap_or(path);
        let root = self.globs.path();
        let root = root.strip_prefix("./").unwrap_or(root);
        let bare_name = path.parent().is_none_or(|p| p.as_os_str().is_empty());
        if root != Path::new(".") && !root.as_os_str().is_empty() && !bare_name {
            if let Ok(p) = path.strip_prefix(root) {
                path = p;
            }
        }
        path
    }
}

impl Plain {
    fn is_empty(&self) -> bool {
        self.names.is_empty()
            && self.dir_names.is_empty()
            && self.paths.is_empty()
            && self.dir_paths.is_empty()
    }

    /// Adds `line` if it is a plain pattern, as `GitignoreBuilder::add_line` reads one: a
    /// comment or blank line is taken (it matches nothing); trailing spaces are dropped,
    /// a leading `/` anchors, a trailing `/` means a directory.
    fn add(&mut self, line: &[u8]) -> bool {
        if line.starts_with(b"#") {
            return true;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return false;
        };
        // `str::trim_end`, as the crate's `trim_right` (Unicode white space).
        let mut p = text.trim_end().as_bytes();
        if p.is_empty() {
            return true;
        }
        if p.iter().any(|b| b"*?[]{}\\!".contains(b)) {
            return false;
        }
        let anchored_lead = p.starts_with(b"/");
        if anchored_lead {
            p = &p[1..];
        }
        let dir_only = p.ends_with(b"/");
        if dir_only {
            p = &p[..p.len() - 1];
        }
        // An empty pattern, or one with empty or dot components (`a//b`, `./a`, `a/..`),
        // is left to the crate, which matches it as a glob would.
        if p.is_empty()
            || p.split(|&b| b == b'/')
                .any(|c| c.is_empty() || c == b"." || c == b"..")
        {
            return false;
        }
        let anchored = anchored_lead || p.contains(&b'/');
        let set = match (anchored, dir_only) {
            (false, false) => &mut self.names,
            (false, true) => &mut self.dir_names,
            (true, false) => &mut self.paths,
            (true, true) => &mut self.dir_paths,
        };
        set.insert(p.into());
        true
    }

    fn matches(&self, path: &Path, is_dir: bool) -> bool {
        let whole = path.as_os_str().as_encoded_bytes();
        let name = path.file_name().map_or(whole, |n| n.as_encoded_bytes());
        self.names.contains(name)
            || self.paths.contains(whole)
            || (is_dir && (self.dir_names.contains(name) || self.dir_paths.contains(whole)))
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// Every pattern matched both ways: as plain sets (where it is plain) and by the crate
    /// alone, on the same paths, must agree.
    #[test]
    fn plain_patterns_match_as_the_crate_matches_them() {
        let text = "# comment\n\n/top.yml\nname.yml\nbuild/\n/only/dir/\ndeep/a/b.yml   \n\
                    *.log\nsub/**/x.yml\nweird//path\n./dot\nspace\\ \nnon-ascii-é.yml\n";
        let dir = Path::new("proj");
        let from = Path::new("proj/.gitignore");
        let ours = Patterns::parse(dir, from, text.as_bytes()).unwrap();
        assert!(ours.plain.is_some());
        let mut builder = GitignoreBuilder::new(dir);
        for line in text.lines() {
            builder.add_line(None, line).unwrap();
        }
        let crate_only = builder.build().unwrap();
        let paths = [
            "proj/top.yml",
            "proj/a/top.yml",
            "proj/name.yml",
            "proj/a/b/name.yml",
            "name.yml",
            "proj/build",
            "proj/a/build",
            "proj/only/dir",
            "proj/x/only/dir",
            "proj/deep/a/b.yml",
            "proj/x/deep/a/b.yml",
            "proj/e.log",
            "proj/sub/q/x.yml",
            "proj/weird//path",
            "proj/dot",
            "proj/space ",
            "proj/non-ascii-é.yml",
            "./proj/top.yml",
            "proj/other.yml",
            "other/top.yml",
        ];
        for p in paths {
            for is_dir in [false, true] {
                let want = crate_only.matched(p, is_dir).is_ignore();
                assert_eq!(
                    ours.matched(Path::new(p), is_dir).is_ignore(),
                    want,
                    "{p} dir={is_dir}"
                );
            }
        }
    }

    /// A file with a negation keeps git's order: everything goes to the crate.
    #[test]
    fn a_negation_keeps_the_order_of_the_patterns() {
        let ours = Patterns::parse(Path::new("."), Path::new(".gitignore"), b"a.yml\n!a.yml\nb/\n").unwrap();
        assert!(ours.plain.is_none());
        assert!(!ours.matched(Path::new("a.yml"), false).is_ignore());
        assert!(ours.matched(Path::new("b"), true).is_ignore());
    }

    /// A generated listing of 70,000 files is read without the crate; complex patterns
    /// past the limit are refused, whatever the plain ones.
    #[test]
    fn plain_listings_are_not_compiled_and_complex_patterns_are_bounded() {
        let listing: String = (0..70_000)
            .map(|i| format!(".venv/lib/site-packages/m{i}.py\n"))
            .collect();
        let ours = Patterns::parse(Path::new("."), Path::new(".gitignore"), listing.as_bytes()).unwrap();
        assert!(ours.globs.is_empty());
        assert!(
            ours.matched(Path::new(".venv/lib/site-packages/m69999.py"), false)
                .is_ignore()
        );
        assert!(
            !ours
                .matched(Path::new(".venv/lib/site-packages/n.py"), false)
                .is_ignore()
        );
        let complex: String = (0..20_000)
            .map(|i| format!("**/a{i}*b/**/c[0-9]*.py\n"))
            .collect();
        assert!(complex.len() > MAX_COMPILED);
        let err = Patterns::parse(Path::new("."), Path::new(".gitignore"), complex.as_bytes());
        assert!(err.is_err_and(|n| n > MAX_COMPILED));
    }
}
