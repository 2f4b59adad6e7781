//! Path patterns of the configuration (`include`, `exclude`, `extend-exclude`,
//! `[per-file-ignores]`), with gitignore-like meaning:
//!
//! - a pattern without `/` matches a file or directory name at any depth
//!   (`node_modules`, `*.json`, `deploymentconfig*.json`);
//! - a pattern with `/` matches the path relative to the configuration file's directory
//!   (`deploy/legacy/**`, `jobs/*.yml`); a leading `./` and a trailing `/` are ignored;
//! - `*` and `?` stay inside one path component, `**` crosses directories, `{a,b}` and
//!   `[abc]` work as in shells.
//!
//! A pattern that matches a directory covers everything beneath it.

use std::path::{Component, Path};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN: usize = 1_024;
/// Deepest nesting of `{}` groups and `[]` classes accepted (the glob crate turns each
/// pattern into a regular expression, whose nesting it cannot compile beyond ~250).
pub const MAX_NESTING: usize = 8;
/// Most patterns in one list (`include`, `exclude` with `extend-exclude`,
/// `[per-file-ignores]`): they are compiled into one matcher, but its size still grows
/// with the list.
pub const MAX_PATTERNS: usize = 10_000;

/// One pattern, parsed and checked (compiled with the others of its list into a
/// [`PatternSet`]).
#[derive(Clone, Debug)]
pub struct PathPattern {
    /// As written in the configuration.
    pub text: String,
    glob: Glob,
    /// Matches names at any depth (no `/` in the pattern).
    basename: bool,
    /// The pattern, when it has no glob syntax (`node_modules`): compared, not matched.
    literal: Option<String>,
}

impl PathPattern {
    pub fn new(text: &str) -> Result<Self, String> {
        let trimmed = text.trim();
        let mut body = trimmed.strip_prefix("./").unwrap_or(trimmed);
        while let Some(stripped) = body.strip_suffix('/') {
            body = stripped;
        }
        if body.is_empty() {
            return Err("an empty path pattern matches nothing".to_string());
        }
        if body.starts_with('/') {
            return Err(
                "patterns are relative to the configuration file's directory; remove the leading `/`"
                    .to_string(),
            );
        }
        if body.len() > MAX_PATTERN {
            return Err(format!(
                "the pattern is {} bytes long; patterns are at most {MAX_PATTERN}",
                body.len()
            ));
        }
        let nesting = nesting(body);
        if nesting > MAX_NESTING {
            return Err(format!(
                "the pattern nests `{{}}` groups and `[]` classes {nesting} deep; at most {MAX_NESTING} levels are accepted"
            ));
        }
        let basename = !body.contains('/');
        let glob = GlobBuilder::new(body)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("not a valid glob: {}", e.kind()))?;
        let literal = (!body.contains(['*', '?', '[', ']', '{', '}', '\\'])).then(|| body.to_string());
        Ok(Self {
            text: text.to_string(),
            glob,
            basename,
            literal,
        })
    }
}

/// How deep `{}` groups and `[]` classes nest in a pattern (escapes skipped).
fn nesting(body: &str) -> usize {
    let (mut depth, mut deepest, mut escaped) = (0usize, 0usize, false);
    for c in body.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A list of patterns compiled together: literal names and paths in hash maps, the rest
/// in one glob set per kind (names at any depth, paths), so that matching a path costs
/// about the same for one pattern or thousands.
#[derive(Clone, Debug, Default)]
pub struct PatternSet {
    // foldhash: a walk looks every entry's name up here.
    names: foldhash::HashMap<String, Vec<usize>>,
    paths: foldhash::HashMap<String, Vec<usize>>,
    name_globs: Compiled,
    path_globs: Compiled,
}

/// Glob patterns of a [`PatternSet`] and their indices in the list.
#[derive(Clone, Debug, Default)]
struct Compiled {
    /// One set of every pattern, or — when the glob crate cannot build it as one — a set
    /// per pattern.
    sets: Vec<GlobSet>,
    indices: Vec<usize>,
}

impl Compiled {
    fn new(globs: Vec<(usize, &Glob)>) -> Self {
        let indices: Vec<usize> = globs.iter().map(|(i, _)| *i).collect();
        let mut all = GlobSetBuilder::new();
        for (_, g) in &globs {
            all.add((*g).clone());
        }
        let sets = match all.build() {
            Ok(set) => vec![set],
            // Too large to compile as one (the regular expressions' size limit): one set
            // per pattern, each small (patterns are bounded in length and nesting); a
            // pattern that still fails matches nothing.
            Err(_) => globs
                .iter()
                .map(|(_, g)| {
                    let mut one = GlobSetBuilder::new();
                    one.add((*g).clone());
                    one.build().unwrap_or_else(|_| GlobSet::empty())
                })
                .collect(),
        };
        Self { sets, indices }
    }

    fn is_match(&self, candidate: &str) -> bool {
        // An empty set still makes a candidate (a copy, its name and extension split off)
        // before finding nothing; a walk asks this of every file.
        !self.indices.is_empty() && self.sets.iter().any(|set| set.is_match(candidate))
    }

    fn matching(&self, candidate: &str, out: &mut Vec<usize>) {
        if self.indices.is_empty() {
            return;
        }
        if let [set] = self.sets.as_slice() {
            out.extend(set.matches(candidate).into_iter().map(|i| self.indices[i]));
        } else {
            for (set, &index) in self.sets.iter().zip(&self.indices) {
                if set.is_match(candidate) {
                    out.push(index);
                }
            }
        }
    }
}

impl PatternSet {
    pub fn new(patterns: &[PathPattern]) -> Self {
        let mut set = PatternSet::default();
        let (mut name_globs, mut path_globs) = (Vec::new(), Vec::new());
        for (i, p) in patterns.iter().enumerate() {
            match (&p.literal, p.basename) {
                (Some(l), true) => set.names.entry(l.clone()).or_default().push(i),
                (Some(l), false) => set.paths.entry(l.clone()).or_default().push(i),
                (None, true) => name_globs.push((i, &p.glob)),
                (None, false) => path_globs.push((i, &p.glob)),
            }
        }
        set.name_globs = Compiled::new(name_globs);
        set.path_globs = Compiled::new(path_globs);
        set
    }

    /// The indices of the patterns `rel` itself matches (a path relative to the
    /// configuration directory, `/`-separated; no parent check), unsorted.
    pub fn matching_one(&self, rel: &str, out: &mut Vec<usize>) {
        if rel.is_empty() {
            return;
        }
        let name = rel.rsplit('/').next().unwrap_or(rel);
        out.extend(self.names.get(name).into_iter().flatten());
        out.extend(self.paths.get(rel).into_iter().flatten());
        self.name_globs.matching(name, out);
        self.path_globs.matching(rel, out);
    }

    /// Whether `rel` itself matches a pattern (no parent check): the first match
    /// answers (a walk asks this of every file).
    pub fn matches_one(&self, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.matches_entry(dir, name)
    }

    /// [`PatternSet::matches_one`] of the entry `name` of the directory `dir` (relative,
    /// `""` for the configuration's own): the path `dir/name` is made only when a
    /// pattern of a path could match it (the defaults are names only).
    pub fn matches_entry(&self, dir: &str, name: &str) -> bool {
        if dir.is_empty() && name.is_empty() {
            return false;
        }
        if self.names.contains_key(name) || self.name_globs.is_match(name) {
            return true;
        }
        if self.paths.is_empty() && self.path_globs.indices.is_empty() {
            return false;
        }
        let joined;
        let rel = if dir.is_empty() {
            name
        } else {
            joined = [dir, "/", name].concat();
            &joined
        };
        self.paths.contains_key(rel) || self.path_globs.is_match(rel)
    }

    /// The indices of the patterns `rel` or one of its parent directories matches,
    /// sorted and without repeats.
    pub fn matching_path_or_parent(&self, rel: &str) -> Vec<usize> {
        let mut found = Vec::new();
        let mut end = rel.len();
        loop {
            self.matching_one(&rel[..end], &mut found);
            match rel[..end].rfind('/') {
                Some(i) => end = i,
                None => break,
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// Whether `rel` or one of its parent directories matches a pattern.
    pub fn matches_path_or_parent(&self, rel: &str) -> bool {
        !self.matching_path_or_parent(rel).is_empty()
    }
}

/// `path` relative to `base` as a `/`-separated string, when it is inside `base`.
/// Both are absolute and lexically normalised.
pub fn relative(path: &Path, base: &Path) -> Option<String> {
    // Both already normal (a walk's paths): the rest of the string after `base` and a
    // separator. `Path::strip_prefix` parses both into components, and the walk asks
    // this for every file and directory.
    if let (Some(p), Some(b)) = (path.to_str(), base.to_str())
        && crate::fsio::is_normal(path)
        && crate::fsio::is_normal(base)
    {
        let rest = p.strip_prefix(b)?;
        return match rest.strip_prefix('/') {
            Some(rest) => Some(rest.to_string()),
            None => rest.is_empty().then(String::new),
        };
    }
    let rest = path.strip_prefix(base).ok()?;
    let parts: Vec<String> = rest
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    Some(parts.join("/"))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn set(pattern: &str) -> PatternSet {
        PatternSet::new(&[PathPattern::new(pattern).unwrap()])
    }

    #[test]
    fn basename_and_anchored_patterns() {
        let p = set("node_modules");
        assert!(p.matches_path_or_parent("a/node_modules/x/y.yml"));
        assert!(!p.matches_path_or_parent("a/node_modules_x/y.yml"));
        let p = set("deploy/legacy/");
        assert!(p.matches_path_or_parent("deploy/legacy/aci.json"));
        assert!(!p.matches_path_or_parent("x/deploy/legacy/aci.json"));
        let p = set("./jobs/*.yml");
        assert!(p.matches_one("jobs/a.yml"));
        assert!(!p.matches_one("jobs/sub/a.yml"));
        let p = set("jobs/**/*.yml");
        assert!(p.matches_one("jobs/sub/deeper/a.yml"));
        let p = set("deploymentconfig*.json");
        assert!(p.matches_one("deploy/deploymentconfig.aci.json"));
        assert!(PathPattern::new("a/[b").is_err());
        assert!(PathPattern::new("/abs").is_err());
        assert!(PathPattern::new("  ").is_err());
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/r/a/b.yml"), Path::new("/r")).as_deref(),
            Some("a/b.yml")
        );
        assert_eq!(relative(Path::new("/x/b.yml"), Path::new("/r")), None);
        assert_eq!(
            relative(Path::new("/r/a/./b.yml"), Path::new("/r")).as_deref(),
            Some("a/b.yml")
        );
        // The string fast path agrees with `Path::strip_prefix` on what is inside.
        for (path, base, want) in [
            ("/rx/a.yml", "/r", None),
            ("/r", "/r", Some("")),
            ("/r/a", "/r/a/b", None),
            ("/a/b.yml", "/", Some("a/b.yml")),
            ("/r/a//b.yml", "/r", Some("a/b.yml")),
        ] {
            assert_eq!(
                relative(Path::new(path), Path::new(base)).as_deref(),
                want,
                "{path} in {base}"
            );
        }
    }

    #[test]
    fn literal_patterns_match_as_their_globs_do() {
        for (pattern, rel) in [
            ("node_modules", "a/node_modules/b.yml"),
            ("node_modules", "node_modules"),
            ("node_modules", "a/node_modules_x/b.yml"),
            ("node_modules", "x_node_modules/b.yml"),
            ("node_modules", "a/xnode_modules"),
            ("node_modules", "a/node_modules"),
            ("node_modules", "node_modulesnode_modules/b.yml"),
            ("node_modules", "a/node_modules_node_modules/node_modules/b.yml"),
            ("deploy/legacy", "deploy/legacy/a.json"),
            ("deploy/legacy", "x/deploy/legacy/a.json"),
            ("a.yml", "jobs/a.yml"),
        ] {
            let literal = PathPattern::new(pattern).unwrap();
            assert!(literal.literal.is_some(), "{pattern}");
            let as_glob = PathPattern {
                literal: None,
                ..literal.clone()
            };
            let (p, glob) = (PatternSet::new(&[literal]), PatternSet::new(&[as_glob]));
            assert_eq!(
                p.matches_path_or_parent(rel),
                glob.matches_path_or_parent(rel),
                "{pattern} {rel}"
            );
            assert_eq!(p.matches_one(rel), glob.matches_one(rel), "{pattern} {rel}");
        }
        assert!(PathPattern::new("*.yml").unwrap().literal.is_none());
    }

    #[test]
    fn hostile_patterns_are_refused_and_large_lists_stay_fast() {
        // 125 nested groups used to panic inside the glob crate (its regular expression
        // nests too deep to compile).
        let deep = format!("{}a,b{}", "{".repeat(125), "}".repeat(125));
        let why = PathPattern::new(&deep).unwrap_err();
        assert!(why.contains("125 deep"), "{why}");
        assert!(
            PathPattern::new(&"a".repeat(MAX_PATTERN + 1))
                .unwrap_err()
                .contains("bytes long")
        );
        assert!(PathPattern::new(&format!("{}a{}", "{".repeat(8), "}".repeat(8))).is_ok());
        // Thousands of patterns compile into one matcher; each path is matched once
        // against all of them, and the index of every match comes back.
        let patterns: Vec<PathPattern> = (0..MAX_PATTERNS)
            .map(|i| match i % 4 {
                0 => format!("dir{i}"),
                1 => format!("deploy/{i}/**"),
                2 => format!("*.gen{i}.yml"),
                _ => format!("jobs/{{a,b}}{i}/*.yml"),
            })
            .map(|p| PathPattern::new(&p).unwrap())
            .collect();
        let set = PatternSet::new(&patterns);
        assert_eq!(set.matching_path_or_parent("x/dir400/a.yml"), [400]);
        assert_eq!(set.matching_path_or_parent("deploy/401/k/a.yml"), [401]);
        assert_eq!(set.matching_path_or_parent("x/y.gen402.yml"), [402]);
        assert_eq!(set.matching_path_or_parent("jobs/b403/c.yml"), [403]);
        assert!(!set.matches_path_or_parent("jobs/c403/c.yml"));
    }
}
