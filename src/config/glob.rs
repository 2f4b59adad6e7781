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

use globset::{GlobBuilder, GlobMatcher};

/// One compiled pattern.
#[derive(Clone, Debug)]
pub struct PathPattern {
    /// As written in the configuration.
    pub text: String,
    matcher: GlobMatcher,
    /// Matches names at any depth (no `/` in the pattern).
    basename: bool,
    /// The pattern, when it has no glob syntax (`node_modules`): compared, not matched.
    literal: Option<String>,
    /// A searcher for `literal`, built once (a walk searches each entry's path for it).
    finder: Option<memchr::memmem::Finder<'static>>,
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
        let basename = !body.contains('/');
        let glob = GlobBuilder::new(body)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("not a valid glob: {}", e.kind()))?;
        let literal = (!body.contains(['*', '?', '[', ']', '{', '}', '\\'])).then(|| body.to_string());
        let finder = literal
            .as_ref()
            .map(|l| memchr::memmem::Finder::new(l.as_bytes()).into_owned());
        Ok(Self {
            text: text.to_string(),
            matcher: glob.compile_matcher(),
            basename,
            literal,
            finder,
        })
    }

    /// Whether `rel` (a path relative to the configuration directory, `/`-separated) or
    /// one of its parent directories matches.
    pub fn matches_path_or_parent(&self, rel: &str) -> bool {
        if let (true, Some(finder)) = (self.basename, &self.finder) {
            // A whole name of the path: an occurrence between separators (or the ends).
            // Searched for, rather than comparing every name: a walk asks for each entry.
            let (rel, len) = (rel.as_bytes(), finder.needle().len());
            return finder
                .find_iter(rel)
                .any(|i| (i == 0 || rel[i - 1] == b'/') && rel.get(i + len).is_none_or(|&b| b == b'/'));
        }
        let mut end = rel.len();
        loop {
            let prefix = &rel[..end];
            if self.matches_one(prefix) {
                return true;
            }
            match prefix.rfind('/') {
                Some(i) => end = i,
                None => return false,
            }
        }
    }

    /// Whether `rel` itself matches (no parent check).
    pub fn matches_one(&self, rel: &str) -> bool {
        if rel.is_empty() {
            return false;
        }
        let target = if self.basename {
            rel.rsplit('/').next().unwrap_or(rel)
        } else {
            rel
        };
        match &self.literal {
            Some(literal) => target == literal,
            None => self.matcher.is_match(target),
        }
    }
}

/// `path` relative to `base` as a `/`-separated string, when it is inside `base`.
/// Both are absolute and lexically normalised.
pub fn relative(path: &Path, base: &Path) -> Option<String> {
    // Both already normal (a walk's paths): the rest of the string after `base` and a
    // separator. `Path::strip_prefix` parses both into components, and the walk asks
    // this for every file and directory.
    if let (Some(p), Some(b)) = (path.to_str(), base.to_str())
        && super::is_normal(path)
        && super::is_normal(base)
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
mod tests {
    use super::*;

    #[test]
    fn basename_and_anchored_patterns() {
        let p = PathPattern::new("node_modules").unwrap();
        assert!(p.matches_path_or_parent("a/node_modules/x/y.yml"));
        assert!(!p.matches_path_or_parent("a/node_modules_x/y.yml"));
        let p = PathPattern::new("deploy/legacy/").unwrap();
        assert!(p.matches_path_or_parent("deploy/legacy/aci.json"));
        assert!(!p.matches_path_or_parent("x/deploy/legacy/aci.json"));
        let p = PathPattern::new("./jobs/*.yml").unwrap();
        assert!(p.matches_one("jobs/a.yml"));
        assert!(!p.matches_one("jobs/sub/a.yml"));
        let p = PathPattern::new("jobs/**/*.yml").unwrap();
        assert!(p.matches_one("jobs/sub/deeper/a.yml"));
        let p = PathPattern::new("deploymentconfig*.json").unwrap();
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
            let p = PathPattern::new(pattern).unwrap();
            assert!(p.literal.is_some(), "{pattern}");
            let glob = PathPattern {
                literal: None,
                finder: None,
                ..p.clone()
            };
            assert_eq!(
                p.matches_path_or_parent(rel),
                glob.matches_path_or_parent(rel),
                "{pattern} {rel}"
            );
            assert_eq!(p.matches_one(rel), glob.matches_one(rel), "{pattern} {rel}");
        }
        assert!(PathPattern::new("*.yml").unwrap().literal.is_none());
    }
}
