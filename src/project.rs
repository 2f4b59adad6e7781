//! Where a run's files live: the project root (what cross-file facts are indexed from,
//! even when only a few files are checked, as under pre-commit), the git work tree, and
//! the paths reports use for a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{Config, Resolver, glob};

#[derive(Debug, Clone)]
pub struct Project {
    /// The directory of the outermost configuration file (inside a git work tree; else
    /// the nearest) above the checked paths' common ancestor, else the git work tree
    /// containing it, else that ancestor ([`Resolver::project_root`]). The cross-file
    /// index covers this directory.
    pub root: PathBuf,
    /// The git work tree containing the root, if any.
    pub repo_root: Option<PathBuf>,
    /// The configuration governing the root: its inventory, params and profile are the
    /// project's.
    pub config: Arc<Config>,
    /// The directory relative paths were given from.
    pub cwd: PathBuf,
    /// The run's project boundary (`config::project_boundary`, `docs/security.md`), with
    /// the links in its own path resolved: every file the run reads, and every path a
    /// checked file, a configuration or a test names, is held to it.
    pub boundary: crate::fsio::Boundary,
    /// The root as shown, when nothing marks it (no configuration file, no git work
    /// tree: the checked paths' common ancestor was taken) and the run checks only part
    /// of it: a one-file run outside a git work tree and without amlint.toml searches
    /// that file's folder (docs/configuration.md, rule 3), and the project the user means
    /// may be larger. Messages that say what the project lacks name this folder.
    pub unmarked_root: Option<String>,
}

/// [`Project::unmarked_root`]: `root` as the first input writes it (`src/` for
/// `src/job.yml`, `/abs/src/` for `/abs/src/job.yml`), or `None` when the run walks all of
/// it (a directory given at or above it) or it is the working directory.
fn unmarked_root_shown(root: &Path, cwd: &Path, inputs: &[PathBuf]) -> Option<String> {
    if root == cwd {
        return None;
    }
    let walked = inputs.iter().any(|p| {
        let abs = crate::config::absolute(p, cwd);
        crate::fsio::is_dir(&abs) && root.starts_with(&abs)
    });
    if walked {
        return None;
    }
    let given = inputs.first()?;
    let below = crate::config::absolute(given, cwd)
        .strip_prefix(root)
        .ok()?
        .components()
        .count();
    let mut shown = given.as_path();
    for _ in 0..below {
        shown = shown.parent()?;
    }
    let text = crate::discover::display_of(shown);
    Some(match text.as_str() {
        "" | "." => return None,
        t if t.ends_with('/') => t.to_string(),
        t => format!("{t}/"),
    })
}

impl Project {
    /// The project of a run over `inputs` (files and directories, as given).
    pub fn detect(resolver: &Resolver, inputs: &[PathBuf]) -> Project {
        let (root, marked) = resolver.project_root(inputs);
        let repo_root = resolver.git_root(&root);
        Project {
            boundary: resolver.boundary().clone(),
            unmarked_root: if marked {
                None
            } else {
                unmarked_root_shown(&root, resolver.cwd(), inputs)
            },
            repo_root,
            config: resolver.for_dir(&root),
            cwd: resolver.cwd().to_path_buf(),
            root,
        }
    }

    /// The absolute, normalised path of a file shown as `display`.
    pub fn absolute(&self, display: &str) -> PathBuf {
        crate::config::absolute(Path::new(display), &self.cwd)
    }

    /// The path fingerprints, SARIF and GitHub annotations use for a file shown as
    /// `display`: relative to the git work tree (what code scanning and annotations
    /// expect), else to the project root; as shown when it is outside both.
    pub fn relative_path(&self, display: &str) -> String {
        let abs = self.absolute(display);
        let base = self.repo_root.as_ref().unwrap_or(&self.root);
        match glob::relative(&abs, base) {
            Some(rel) if !rel.is_empty() => rel,
            _ => display.replace('\\', "/"),
        }
    }

    /// The `file://` URI of the base [`Project::relative_path`] is relative to, with a
    /// trailing slash (SARIF `originalUriBaseIds`).
    pub fn base_uri(&self) -> String {
        let base = self.repo_root.as_ref().unwrap_or(&self.root);
        let mut s = String::from("file://");
        for c in base.components() {
            if let std::path::Component::Normal(part) = c {
                s.push('/');
                s.push_str(&percent_encode_path(&part.to_string_lossy()));
            }
        }
        s.push('/');
        s
    }
}

/// Percent-encodes a path segment for a URI (RFC 3986 unreserved characters and
/// sub-delimiters that are safe in paths stay).
pub fn percent_encode_path(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        let keep = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/' | b'+' | b'@');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::config::ConfigChoice;

    #[test]
    fn relative_paths_prefer_the_git_work_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("ml/jobs")).unwrap();
        std::fs::write(root.join("ml/amlint.toml"), "").unwrap();
        let resolver = Resolver::with_cwd(ConfigChoice::Discover, &root.join("ml"));
        let p = Project::detect(&resolver, &[PathBuf::from("jobs")]);
        assert_eq!(p.root, root.join("ml"));
        assert_eq!(p.repo_root.as_deref(), Some(root.as_path()));
        assert_eq!(p.relative_path("jobs/a.yml"), "ml/jobs/a.yml");
        assert_eq!(p.relative_path("/elsewhere/a.yml"), "/elsewhere/a.yml");
        assert!(p.base_uri().starts_with("file:///") && p.base_uri().ends_with('/'));
        assert_eq!(percent_encode_path("a b%"), "a%20b%25");
    }
}
