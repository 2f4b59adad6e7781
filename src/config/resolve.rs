//! Which configuration applies where, and where the project is.
//!
//! - **Discovery** (the default): for each checked file, the nearest `.amlint.toml`,
//!   `amlint.toml` or `pyproject.toml` with `[tool.amlint]`, walking up from the file's
//!   directory. Lookups are cached per directory, so each directory is probed once per run.
//!   Two configuration files in one directory are an error (amlint would read only one).
//! - `--config FILE` applies one file to everything; `--no-config` applies the defaults.
//! - The **project root** (what cross-file facts are indexed from, even when only a few
//!   files are checked): the directory of the configuration file nearest to the common
//!   ancestor of the checked paths, else the enclosing git work tree, else that common
//!   ancestor.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::model::{CONFIG_FILE_NAMES, Config, ConfigError};
use super::parse::{ConfigFileKind, RuleCheck};
use crate::fsio::absolute;
use crate::fsio::{self, Boundary, MAX_CONFIG_SIZE};

/// Which configuration a run uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigChoice {
    /// The nearest configuration file of each checked file.
    #[default]
    Discover,
    /// This file for every checked file (`--config`).
    File(PathBuf),
    /// The defaults (`--no-config`).
    Disabled,
}

/// Resolves configurations for one run; shared by the walk and the parallel checks.
pub struct Resolver {
    choice: ConfigChoice,
    cwd: PathBuf,
    defaults: Arc<Config>,
    explicit: Option<Arc<Config>>,
    /// Directory → the configuration found at or above it.
    /// Keyed by the path's bytes: hashing a `Path` hashes its components one by one, and
    /// the walk asks for every directory.
    dirs: Mutex<foldhash::HashMap<std::ffi::OsString, Option<Arc<Config>>>>,
    /// Directories the walk listed without a configuration file name in them: not looked
    /// in again (a tree of 10,962 directories held 32,886 failed looks for the three names).
    unconfigured: Mutex<foldhash::HashSet<std::ffi::OsString>>,
    /// Directory → its git work tree.
    git: Mutex<foldhash::HashMap<std::ffi::OsString, Option<PathBuf>>>,
    errors: Mutex<Vec<ConfigError>>,
    /// What identifies each recorded error (file, span, message): each is recorded once.
    error_keys: Mutex<std::collections::HashSet<(String, u32, u32, String)>>,
    /// (a configuration, an absolute directory) → whether that configuration excludes the
    /// directory or a folder above it (`Config::is_dir_excluded`), for the walk: each
    /// directory is matched against the patterns once, its parents' answers reused. The
    /// configuration is kept alive with its answer, so its address names it.
    excluded_dirs: Mutex<ExcludedDirs>,
    /// Every file an `extend` of a configuration read so far named (absolute).
    extended: Mutex<std::collections::BTreeSet<PathBuf>>,
    /// Every `rules-dirs` directory of a configuration read so far (absolute).
    rule_dirs: Mutex<std::collections::BTreeSet<PathBuf>>,
    /// Run on the rules of every configuration with `rules-dirs` ([`Resolver::with_rule_check`]).
    check: Option<RuleCheck>,
    /// The run's project boundary ([`project_boundary`]): configuration files are looked
    /// for inside it only, and every file they name is held to it.
    boundary: Boundary,
    /// Every file an `extend` names, parsed once for the run.
    extends: Arc<super::parse::ExtendCache>,
}

/// The project boundary of a run over `inputs` (files and directories, as given, relative
/// to `cwd`; none: `cwd`), computed once (docs/security.md, "One project boundary"): the
/// git work tree containing their common ancestor; else the directory of the topmost
/// configuration file at or above it (`--config`: that file's directory, when it contains
/// them); else the directory amlint was started in, when it contains them; else their
/// common ancestor. Never a nested configuration's own directory: a configuration found
/// below the start does not narrow it. Every file a run reads, and every path a checked
/// file, a configuration or a test names, is held to it.
pub fn project_boundary(choice: &ConfigChoice, cwd: &Path, inputs: &[PathBuf]) -> Boundary {
    let cwd = crate::fsio::normalize(cwd);
    let dirs: Vec<PathBuf> = inputs
        .iter()
        .map(|p| {
            let abs = absolute(p, &cwd);
            if matches!(fsio::look(&abs, &Boundary::anywhere()), Ok(fsio::Looked::Dir)) {
                abs
            } else {
                abs.parent().map(Path::to_path_buf).unwrap_or(abs)
            }
        })
        .collect();
    let start = common_ancestor(&dirs).unwrap_or_else(|| cwd.clone());
    if let Some(tree) = fsio::git_work_tree(&start) {
        return Boundary::at(&tree);
    }
    let by_config = match choice {
        ConfigChoice::Discover => start
            .ancestors()
            .filter(|d| holds_configuration(d))
            .last()
            .map(Path::to_path_buf),
        ConfigChoice::File(path) => absolute(path, &cwd)
            .parent()
            .filter(|d| start.starts_with(d))
            .map(Path::to_path_buf),
        ConfigChoice::Disabled => None,
    };
    match by_config {
        Some(dir) => Boundary::at(&dir),
        None if start.starts_with(&cwd) => Boundary::at(&cwd),
        None => Boundary::at(&start),
    }
}

/// Whether `dir` holds a configuration file (an `amlint.toml`, an `.amlint.toml`, or a
/// `pyproject.toml` that mentions amlint), by name, before any boundary is known: a
/// `pyproject.toml` is read only as a small regular file of that directory.
fn holds_configuration(dir: &Path) -> bool {
    CONFIG_FILE_NAMES.iter().any(|name| {
        let path = dir.join(name);
        if !fsio::exists_here(&path) {
            return false;
        }
        if *name != "pyproject.toml" {
            return true;
        }
        fsio::read_regular(&path, fsio::Seen::Unknown, &Boundary::at(dir), MAX_CONFIG_SIZE)
            .is_ok_and(|bytes| memchr::memmem::find(&bytes, b"amlint").is_some())
    })
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("choice", &self.choice)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Resolver {
    /// A resolver relative to the process's current directory.
    pub fn new(choice: ConfigChoice) -> Self {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        Self::with_cwd(choice, &cwd)
    }

    pub fn with_cwd(choice: ConfigChoice, cwd: &Path) -> Self {
        Self::with_rule_check(choice, cwd, None)
    }

    /// A resolver relative to `cwd` that runs `check` on the rules of every configuration
    /// with `rules-dirs` it reads (the layer that compiles rules passes its compiler, so
    /// that a user rule that does not compile is an error of its configuration).
    pub fn with_rule_check(choice: ConfigChoice, cwd: &Path, check: Option<RuleCheck>) -> Self {
        Self::for_run(choice, cwd, &[], check)
    }

    /// A resolver for a run over `inputs` (relative to `cwd`): its boundary is
    /// [`project_boundary`] of them.
    pub fn for_run(choice: ConfigChoice, cwd: &Path, inputs: &[PathBuf], check: Option<RuleCheck>) -> Self {
        let boundary = project_boundary(&choice, cwd, inputs);
        let cwd = crate::fsio::normalize(cwd);
        let mut resolver = Self {
            boundary,
            extends: Arc::default(),
            choice: choice.clone(),
            defaults: Arc::new(Config::defaults(&cwd)),
            cwd,
            explicit: None,
            dirs: Mutex::default(),
            unconfigured: Mutex::default(),
            git: Mutex::default(),
            errors: Mutex::new(Vec::new()),
            error_keys: Mutex::default(),
            excluded_dirs: Mutex::default(),
            extended: Mutex::default(),
            rule_dirs: Mutex::default(),
            check,
        };
        if let ConfigChoice::File(path) = &choice {
            let abs = absolute(path, &resolver.cwd);
            resolver.explicit = resolver.load_explicit(path, &abs);
        }
        resolver
    }

    /// The run's project boundary ([`project_boundary`]).
    pub fn boundary(&self) -> &Boundary {
        &self.boundary
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn choice(&self) -> &ConfigChoice {
        &self.choice
    }

    /// `path` made absolute against the current directory, normalised.
    pub fn absolute(&self, path: &Path) -> PathBuf {
        absolute(path, &self.cwd)
    }

    /// Every configuration error met so far, in a stable order.
    pub fn errors(&self) -> Vec<ConfigError> {
        let mut errors = lock(&self.errors).clone();
        errors.sort_by(|a, b| (&a.source.path, a.span.start).cmp(&(&b.source.path, b.span.start)));
        errors
    }

    /// Records errors, each once: a base that many files `extend` has its errors reported
    /// once, not once per file.
    fn record(&self, errors: Vec<ConfigError>) {
        let mut all = lock(&self.errors);
        let mut seen = lock(&self.error_keys);
        for e in errors {
            if seen.insert((e.source.path.clone(), e.span.start, e.span.end, e.message.clone())) {
                all.push(e);
            }
        }
    }

    /// Whether a change to `path` (absolute) can change a configuration read so far: a
    /// file an `extend` chain names, a `[workspace]` snapshot file, a file under a
    /// `rules-dirs` directory, or a file a
    /// configuration error is in (a user rule that did not compile, say). Configuration
    /// files themselves are found by their names.
    pub fn affects_configuration(&self, path: &Path) -> bool {
        let path = crate::fsio::normalize(path);
        lock(&self.extended).contains(&path)
            || lock(&self.rule_dirs).iter().any(|d| path.starts_with(d))
            || lock(&self.errors)
                .iter()
                .any(|e| !e.source.path.is_empty() && self.absolute(Path::new(&e.source.path)) == path)
    }

    /// Parses a configuration file, recording the files its `extend` chain names and its
    /// rule directories.
    fn parse(
        &self,
        display: &str,
        abs: &Path,
        dir: &Path,
        text: String,
        kind: ConfigFileKind,
        boundary: &Boundary,
    ) -> Result<Option<Config>, Vec<ConfigError>> {
        let within = super::parse::Within {
            boundary: boundary.clone(),
            cache: Some(self.extends.clone()),
            check: self.check,
        };
        let (parsed, named) =
            super::parse::parse_file_extending(display, Some(abs), dir, text, kind, &within);
        lock(&self.extended).extend(named.iter().map(|p| crate::fsio::normalize(p)));
        if let Ok(Some(config)) = &parsed {
            lock(&self.rule_dirs).extend(config.rules_dirs.iter().map(|d| crate::fsio::normalize(d)));
        }
        parsed
    }

    /// The configuration for a file (absolute or relative to the current directory).
    pub fn for_file(&self, path: &Path) -> Arc<Config> {
        if !matches!(self.choice, ConfigChoice::Discover) {
            // One configuration for every file: no need to place the file.
            return self.for_dir(path);
        }
        let abs = self.absolute(path);
        match abs.parent() {
            Some(dir) => self.for_dir(dir),
            None => self.for_dir(&abs),
        }
    }

    /// The walk listed the directory `dir` (absolute) and saw no configuration file name
    /// in it: [`Resolver::for_dir`] does not look in it for one.
    pub fn listed_without_config(&self, dir: PathBuf) {
        lock(&self.unconfigured).insert(dir.into_os_string());
    }

    /// The configuration for the files of a directory (absolute).
    pub fn for_dir(&self, dir: &Path) -> Arc<Config> {
        match &self.choice {
            ConfigChoice::Disabled => self.defaults.clone(),
            ConfigChoice::File(_) => self.explicit.clone().unwrap_or_else(|| self.defaults.clone()),
            ConfigChoice::Discover => self.nearest(dir).unwrap_or_else(|| self.defaults.clone()),
        }
    }

    /// The configuration file at or above `dir`, cached for every directory visited.
    fn nearest(&self, dir: &Path) -> Option<Arc<Config>> {
        let mut cache = lock(&self.dirs);
        let mut visited = Vec::new();
        let mut current = Some(dir);
        let found = loop {
            let Some(d) = current else {
                break None;
            };
            if let Some(hit) = cache.get(d.as_os_str()) {
                break hit.clone();
            }
            // Nothing above the project is its configuration: the directories there are
            // the machine's, not the repository's.
            if !self.boundary.contains_dir(d) {
                break None;
            }
            visited.push(d.to_path_buf());
            if let Some(config) = self.load_in(d) {
                break Some(config);
            }
            current = d.parent();
        };
        for d in visited {
            cache.insert(d.into_os_string(), found.clone());
        }
        found
    }

    /// How a configuration file is shown: relative to the current directory when inside
    /// it, or through `..` when both are in the project (`../amlint.toml` from a
    /// subfolder); otherwise as it is.
    fn display(&self, abs: &Path) -> String {
        let root = self.boundary.root().unwrap_or(&self.cwd);
        match crate::fsio::relative_within(abs, &self.cwd, root) {
            Some(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
            _ => abs.to_string_lossy().into_owned(),
        }
    }

    /// Reads a configuration file: a regular file (never a pipe or device: looked at
    /// before it is opened), within [`MAX_CONFIG_SIZE`], whose real location is inside
    /// its project (the git work tree containing its directory, else its directory), so
    /// that a link cannot make amlint show another file's text in an error.
    fn read(&self, abs: &Path, display: &str, boundary: &Boundary) -> Result<String, ConfigError> {
        let bytes = fsio::read_named(abs, boundary, MAX_CONFIG_SIZE).map_err(|r| {
            let help = match r {
                fsio::Refusal::Outside { .. } => {
                    "Keep the configuration in the project as a regular file (not a link to a file elsewhere), or pass it with `--config` from where it is."
                }
                fsio::Refusal::TooLarge { .. } => "Configuration files are small; check that this is the file you mean.",
                _ => "Make it a readable regular file, or run with `--no-config` to ignore configuration files.",
            };
            ConfigError::about_file(display, format!("cannot read this configuration file: {}", r.describe()), help)
        })?;
        String::from_utf8(bytes).map_err(|_| {
            ConfigError::about_file(
                display,
                "this configuration file is not valid UTF-8",
                "TOML files are UTF-8; save it as UTF-8.",
            )
        })
    }

    fn load_explicit(&self, given: &Path, abs: &Path) -> Option<Arc<Config>> {
        let display = given.to_string_lossy().into_owned();
        if !fsio::exists_here(abs) {
            self.record(vec![ConfigError::about_file(
                &display,
                "`--config` names a file that does not exist",
                "Pass the path of an amlint.toml (or a pyproject.toml with [tool.amlint]).",
            )]);
            return None;
        }
        if matches!(fsio::look(abs, &Boundary::anywhere()), Ok(fsio::Looked::Dir)) {
            self.record(vec![ConfigError::about_file(
                &display,
                "`--config` names something that is not a file",
                "Pass the path of an amlint.toml (or a pyproject.toml with [tool.amlint]).",
            )]);
            return None;
        }
        let kind = if abs.file_name().is_some_and(|n| n == "pyproject.toml") {
            ConfigFileKind::Pyproject
        } else {
            ConfigFileKind::Amlint
        };
        // Named by the invoker: a file outside the project brings its own project (the
        // git work tree around it, else its directory) for the files it names.
        let dir = abs.parent().unwrap_or(abs).to_path_buf();
        let boundary = match self.boundary.resolve(abs) {
            Ok(_) => self.boundary.clone(),
            Err(_) => Boundary::around(&dir),
        };
        let text = match self.read(abs, &display, &boundary) {
            Ok(t) => t,
            Err(e) => {
                self.record(vec![e]);
                return None;
            }
        };
        match self.parse(&display, abs, &dir, text, kind, &boundary) {
            Ok(Some(mut config)) => {
                config.path = Some(abs.to_path_buf());
                Some(Arc::new(config))
            }
            Ok(None) => {
                self.record(vec![ConfigError::about_file(
                    &display,
                    "this pyproject.toml has no [tool.amlint] table",
                    "Add a [tool.amlint] table, or pass an amlint.toml.",
                )]);
                None
            }
            Err(errors) => {
                self.record(errors);
                None
            }
        }
    }

    /// The configuration file in `dir` itself, if there is one. An invalid file still
    /// stops the walk up (a parent's file must not silently apply instead); its errors
    /// are recorded.
    fn load_in(&self, dir: &Path) -> Option<Arc<Config>> {
        if lock(&self.unconfigured).contains(dir.as_os_str()) {
            return None;
        }
        let mut found: Vec<(PathBuf, Config)> = Vec::new();
        let mut failed = false;
        for name in CONFIG_FILE_NAMES {
            let abs = dir.join(name);
            // Whatever has the name is read or refused with an error: a pipe, a device,
            // a directory or a link out of the project is not silently passed over.
            if !fsio::exists_here(&abs) {
                continue;
            }
            let display = self.display(&abs);
            let kind = if *name == "pyproject.toml" {
                ConfigFileKind::Pyproject
            } else {
                ConfigFileKind::Amlint
            };
            let text = match self.read(&abs, &display, &self.boundary) {
                Ok(t) => t,
                Err(e) => {
                    self.record(vec![e]);
                    failed = true;
                    continue;
                }
            };
            if kind == ConfigFileKind::Pyproject && !text.contains("amlint") {
                continue;
            }
            match self.parse(&display, &abs, dir, text, kind, &self.boundary) {
                Ok(Some(mut config)) => {
                    config.path = Some(abs.clone());
                    found.push((abs, config));
                }
                Ok(None) => {}
                Err(errors) => {
                    self.record(errors);
                    failed = true;
                }
            }
        }
        if found.len() > 1 {
            let names: Vec<String> = found.iter().map(|(p, _)| self.display(p)).collect();
            self.record(vec![ConfigError::about_file(
                &names[1],
                format!(
                    "two configuration files in one directory: {}; amlint reads only one",
                    names.join(" and ")
                ),
                "Merge them into one file and delete the other.",
            )]);
        }
        if failed && found.is_empty() {
            return Some(Arc::new(Config::defaults(dir)));
        }
        found.into_iter().next().map(|(_, c)| Arc::new(c))
    }

    /// The git work tree containing `dir` (absolute), cached.
    pub fn git_root(&self, dir: &Path) -> Option<PathBuf> {
        let mut cache = lock(&self.git);
        let mut visited = Vec::new();
        let mut current = Some(dir);
        let found = loop {
            let Some(d) = current else {
                break None;
            };
            if let Some(hit) = cache.get(d.as_os_str()) {
                break hit.clone();
            }
            visited.push(d.to_path_buf());
            if fsio::exists_here(&d.join(".git")) {
                break Some(d.to_path_buf());
            }
            current = d.parent();
        };
        for d in visited {
            cache.insert(d.into_os_string(), found.clone());
        }
        found
    }

    /// The project root for a run over `inputs` (files and directories, as given).
    /// The directory of the configuration file that governs the project around `dir`:
    /// inside a git work tree, the outermost configuration between `dir` and the work
    /// tree's root (so that checking one file of a nested folder sees the project the
    /// whole tree's run sees); outside one, the nearest above `dir`.
    fn outermost_config_dir(&self, dir: &Path) -> Option<PathBuf> {
        let nearest = self
            .nearest(dir)
            .and_then(|c| c.path.as_ref().map(|_| c.dir.clone()))?;
        let Some(top) = self.git_root(dir) else {
            return Some(nearest);
        };
        let mut outermost = nearest;
        while outermost != top {
            let Some(parent) = outermost.parent().filter(|p| p.starts_with(&top)) else {
                break;
            };
            match self
                .nearest(parent)
                .and_then(|c| c.path.as_ref().map(|_| c.dir.clone()))
            {
                Some(outer) if outer.starts_with(&top) => outermost = outer,
                _ => break,
            }
        }
        Some(outermost)
    }

    /// The project root of a run over `inputs` (docs/configuration.md, "The project
    /// root"), and whether a configuration file or a git work tree marks it (`false`: rule
    /// 3, the checked paths' common ancestor, which may be only a part of the project the
    /// user means).
    pub fn project_root(&self, inputs: &[PathBuf]) -> (PathBuf, bool) {
        let dirs: Vec<PathBuf> = inputs
            .iter()
            .map(|p| {
                let abs = self.absolute(p);
                if fsio::is_dir(&abs) {
                    abs
                } else {
                    abs.parent().map(Path::to_path_buf).unwrap_or(abs)
                }
            })
            .collect();
        let common = common_ancestor(&dirs).unwrap_or_else(|| self.cwd.clone());
        let by_config = match &self.choice {
            ConfigChoice::Discover => self.outermost_config_dir(&common),
            ConfigChoice::File(_) => self
                .explicit
                .as_ref()
                .filter(|c| common.starts_with(&c.dir))
                .map(|c| c.dir.clone()),
            ConfigChoice::Disabled => None,
        };
        match by_config.or_else(|| self.git_root(&common)) {
            Some(marked) => (marked, true),
            None => (common, false),
        }
    }
}

/// The deepest directory containing all of `dirs` (absolute, normalised).
pub fn common_ancestor(dirs: &[PathBuf]) -> Option<PathBuf> {
    let mut iter = dirs.iter();
    let mut common = iter.next()?.clone();
    for d in iter {
        while !d.starts_with(&common) {
            if !common.pop() {
                return None;
            }
        }
    }
    Some(common)
}

impl Resolver {
    /// `Config::is_dir_excluded` of `dir` (absolute), remembered: the folders above
    /// `dir` that this configuration already judged are not matched again, so a walk
    /// matches each directory once however deep it is (iterative: no recursion on depth).
    fn dir_excluded_by(&self, config: &Arc<Config>, dir: &Path) -> bool {
        if config.exclude.is_empty() {
            return false;
        }
        let id = Arc::as_ptr(config) as usize;
        let mut memo = self.excluded_dirs.lock().unwrap_or_else(|e| e.into_inner());
        // The folders from `dir` up to the first one already judged (or the
        // configuration's own directory, or above it: never excluded as a parent).
        let mut unknown: Vec<(&Path, String)> = Vec::new();
        let mut above = false;
        let mut current = Some(dir);
        while let Some(d) = current {
            if let Some((_, known)) = memo.get(&(id, d.as_os_str().to_os_string())) {
                above = *known;
                break;
            }
            match crate::config::glob::relative(d, &config.dir) {
                Some(rel) if !rel.is_empty() => unknown.push((d, rel)),
                _ => break,
            }
            current = d.parent();
        }
        for (d, rel) in unknown.into_iter().rev() {
            above = above || config.exclude_set().matches_one(&rel);
            memo.insert((id, d.as_os_str().to_os_string()), (config.clone(), above));
        }
        above
    }
}

/// [`Resolver`]'s remembered folder exclusions: (configuration address, directory) →
/// (the configuration, kept alive; excluded).
type ExcludedDirs = foldhash::HashMap<(usize, std::ffi::OsString), (Arc<Config>, bool)>;

/// The discovery filter of a run: each directory and file is judged by the
/// configuration that governs it.
pub struct ConfigFilter {
    pub resolver: Arc<Resolver>,
    /// Apply `exclude` to files named on the command line too (pre-commit passes files).
    pub force_exclude: bool,
}

impl ConfigFilter {
    /// The judge of the entries of the walked directory `dir` ([`Entries`]).
    fn entries(&self, dir: &Path) -> Entries {
        let abs_dir = self.resolver.absolute(dir);
        let config = self.resolver.for_dir(&abs_dir);
        let rel_dir = crate::config::glob::relative(&abs_dir, &config.dir);
        let dir_excluded = self.resolver.dir_excluded_by(&config, &abs_dir);
        Entries {
            config,
            rel_dir,
            dir_excluded,
        }
    }

    /// The judge of the directory holding the entry `path` (the working directory for a
    /// bare name), and the entry's name: one entry asked about on its own is judged as
    /// the walk judges it among its directory's.
    fn judge_of<'p>(&self, path: &'p Path) -> (Entries, &'p std::ffi::OsStr) {
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        (self.entries(dir), path.file_name().unwrap_or_default())
    }
}

impl crate::discover::Filter for ConfigFilter {
    fn listed(&self, dir: &Path, has: &dyn Fn(&str) -> bool) {
        if !CONFIG_FILE_NAMES.iter().any(|name| has(name)) {
            self.resolver.listed_without_config(self.resolver.absolute(dir));
        }
    }

    fn enter_dir(&self, dir: &Path) -> bool {
        use crate::discover::DirEntries;
        let (judge, name) = self.judge_of(dir);
        judge.enter_dir(dir, name)
    }

    fn walked_file(&self, path: &Path) -> bool {
        use crate::discover::DirEntries;
        let (judge, name) = self.judge_of(path);
        judge.walked_file(path, name)
    }

    fn explicit_file(&self, path: &Path) -> bool {
        if !self.force_exclude {
            return true;
        }
        let abs = self.resolver.absolute(path);
        !self.resolver.for_file(&abs).is_excluded(&abs)
    }

    fn entries_of(
        &self,
        dir: &Path,
        parent: Option<&dyn crate::discover::DirEntries>,
        has: &dyn Fn(&str) -> bool,
    ) -> Option<Arc<dyn crate::discover::DirEntries>> {
        // A folder without a configuration file of its own has its parent's
        // configuration (`Resolver::nearest` goes on up), so its judge follows from the
        // parent's (`Entries::child`) without looking anything up.
        if let Some(parent) = parent
            && !CONFIG_FILE_NAMES.iter().any(|name| has(name))
            && let Some(name) = dir.file_name()
            && let Some(judge) = parent.child(name)
        {
            return Some(judge);
        }
        Some(Arc::new(self.entries(dir)))
    }
}

/// [`ConfigFilter`]'s decisions for the entries of one walked directory: its
/// configuration (every entry's), the directory's path relative to that configuration's
/// directory (`None` outside it), and whether the configuration excludes the directory or
/// a folder between them. Each entry's own path is then matched once: a file is taken as
/// `Config::includes_walked_file` takes it, a directory entered unless
/// `Config::is_excluded` (tested against them).
struct Entries {
    config: Arc<Config>,
    rel_dir: Option<String>,
    dir_excluded: bool,
}

impl Entries {
    /// The directory's path relative to the configuration's directory, as
    /// [`Config::takes_walked_entry`] takes it (`""` outside it: entries are then matched
    /// by their names).
    fn dir(&self) -> &str {
        self.rel_dir.as_deref().unwrap_or("")
    }
}

impl crate::discover::DirEntries for Entries {
    fn enter_dir(&self, _: &Path, name: &std::ffi::OsStr) -> bool {
        !(self.dir_excluded
            || self
                .config
                .excluded_itself_entry(self.dir(), &name.to_string_lossy()))
    }

    fn walked_file(&self, _: &Path, name: &std::ffi::OsStr) -> bool {
        !self.dir_excluded
            && self
                .config
                .takes_walked_entry(self.dir(), &name.to_string_lossy())
    }

    /// The subfolder `name` of a folder inside its configuration's directory (`rel_dir`
    /// known), entered (so neither it nor a folder above it is excluded), and without a
    /// configuration file: the same configuration, its path one name longer. A name that
    /// is not UTF-8 is worked out as `ConfigFilter::entries` does.
    fn child(&self, name: &std::ffi::OsStr) -> Option<Arc<dyn crate::discover::DirEntries>> {
        let (rel, name) = (self.rel_dir.as_deref()?, name.to_str()?);
        if self.dir_excluded || self.config.excluded_itself_entry(rel, name) {
            return None;
        }
        Some(Arc::new(Entries {
            config: self.config.clone(),
            rel_dir: Some(if rel.is_empty() {
                name.to_string()
            } else {
                [rel, "/", name].concat()
            }),
            dir_excluded: false,
        }))
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// A temporary directory (kept while the guard lives) and its canonical path.
    fn temp_root() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    fn write(root: &Path, name: &str, text: &str) {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn the_walk_filter_judges_by_each_resolver_and_each_directory() {
        use crate::discover::Filter;
        let (_dir, root) = temp_root();
        write(&root, "a/amlint.toml", "include = [\"*.csv\"]\n");
        write(&root, "b/x.csv", "");
        let filter = |choice| ConfigFilter {
            resolver: Arc::new(Resolver::with_cwd(choice, &root)),
            force_exclude: false,
        };
        let (discover, disabled) = (filter(ConfigChoice::Discover), filter(ConfigChoice::Disabled));
        // The same directory asked about by two resolvers in turn, on one thread: each
        // answers from its own configuration.
        for _ in 0..2 {
            assert!(discover.walked_file(&root.join("a/notes.csv")));
            assert!(!disabled.walked_file(&root.join("a/notes.csv")));
        }
        // The next directory is judged by its own configuration, not the last one's.
        assert!(discover.walked_file(&root.join("a/x.csv")));
        assert!(!discover.walked_file(&root.join("b/x.csv")));
        assert!(discover.walked_file(&root.join("b/job.yml")));
        assert!(
            !discover.walked_file(&root.join("a/job.yml")),
            "`include` replaces the default set"
        );
        assert!(discover.enter_dir(&root.join("a/sub")) && !discover.enter_dir(&root.join("b/node_modules")));
    }

    /// The walk's remembered answers agree with `Config::is_dir_excluded` whatever order
    /// the folders are asked in (deepest first, then their parents, then siblings), and
    /// the walk filter agrees with `Config::is_excluded` on files and folders.
    #[test]
    fn remembered_folder_exclusions_agree_with_the_patterns() {
        use crate::discover::Filter;
        let (_dir, root) = temp_root();
        write(
            &root,
            "amlint.toml",
            "exclude = [\"legacy\", \"a/b\", \"**/tmp-*\", \"deploy/old/**\"]\n",
        );
        let resolver = Arc::new(Resolver::with_cwd(ConfigChoice::Discover, &root));
        let config = resolver.for_dir(&root);
        let dirs = [
            "a/b/c/d",
            "a/b",
            "a",
            "a/bc/d",
            "q/tmp-1/z",
            "q/tmp-1",
            "q",
            "x/legacy/y/z",
            "deploy/old/a",
            "deploy/new",
            "",
            "x/legacy",
            "q/tmp-2/w",
        ];
        for d in dirs {
            let dir = root.join(d);
            assert_eq!(
                resolver.dir_excluded_by(&config, &dir),
                config.is_dir_excluded(&dir),
                "{d}"
            );
        }
        let filter = ConfigFilter {
            resolver: resolver.clone(),
            force_exclude: false,
        };
        for d in dirs.iter().filter(|d| !d.is_empty()) {
            let dir = root.join(d);
            assert_eq!(filter.enter_dir(&dir), !config.is_excluded(&dir), "{d}");
            let file = dir.join("job.yml");
            assert_eq!(
                filter.walked_file(&file),
                !config.is_excluded(&file),
                "{d}/job.yml"
            );
        }
    }

    /// The judge a walk makes once per directory (`entries_of`), and `enter_dir` and
    /// `walked_file` of one entry alone, decide every entry as the configuration's plain
    /// definitions (`Config::is_excluded`, `Config::includes_walked_file`) do, under nested configurations with `include`,
    /// `exclude` and `extend-exclude` of names, paths and globs, below and outside each
    /// configuration's directory, with relative and absolute paths and names not UTF-8.
    #[test]
    fn the_judge_of_a_directory_agrees_with_each_entrys_own() {
        use crate::discover::Filter;
        use std::ffi::OsStr;
        let (_dir, root) = temp_root();
        write(
            &root,
            "amlint.toml",
            "exclude = [\"legacy\", \"a/b\", \"**/tmp-*\", \"deploy/old/**\", \"*.skip.yml\"]\n",
        );
        write(
            &root,
            "svc/amlint.toml",
            "include = [\"*.csv\", \"jobs/**/*.yml\", \"MLTable\"]\nextend-exclude = [\"jobs/draft\", \"x.csv\"]\n",
        );
        let dirs = [
            "",
            "a",
            "a/b",
            "a/bc",
            "q/tmp-1",
            "deploy/old",
            "deploy/new",
            "x/legacy",
            "svc",
            "svc/jobs",
            "svc/jobs/draft",
            "svc/jobs/deep/er",
            "svc/data",
            "node_modules",
        ];
        let names = [
            "job.yml",
            "x.csv",
            "y.csv",
            "MLTable",
            "a.skip.yml",
            "tmp-3",
            "legacy",
            "b",
            "draft",
            "c.json",
            "amlint.toml",
            "node_modules",
            "old",
        ];
        for choice in [ConfigChoice::Discover, ConfigChoice::Disabled] {
            let filter = ConfigFilter {
                resolver: Arc::new(Resolver::with_cwd(choice, &root)),
                force_exclude: false,
            };
            let (mut decided, mut inherited_checked) = (0, 0);
            for d in dirs {
                for dir in [root.join(d), Path::new(".").join(d), PathBuf::from(d)] {
                    if dir.as_os_str().is_empty() {
                        continue;
                    }
                    let judge = filter
                        .entries_of(&dir, None, &|_| false)
                        .expect("a judge per directory");
                    // The judge of each subfolder without a configuration file of its
                    // own, made from this one, is the subfolder's own.
                    for sub in names {
                        let child = dir.join(sub);
                        let Some(inherited) = judge.child(OsStr::new(sub)) else {
                            continue;
                        };
                        if CONFIG_FILE_NAMES.iter().any(|n| child.join(n).exists()) {
                            continue;
                        }
                        let own = filter.entries_of(&child, None, &|_| false).expect("a judge");
                        for name in names {
                            let path = child.join(name);
                            let name = OsStr::new(name);
                            assert_eq!(
                                inherited.enter_dir(&path, name),
                                own.enter_dir(&path, name),
                                "{path:?}"
                            );
                            assert_eq!(
                                inherited.walked_file(&path, name),
                                own.walked_file(&path, name),
                                "{path:?}"
                            );
                        }
                        inherited_checked += 1;
                    }
                    let mut all: Vec<std::ffi::OsString> = names.iter().map(Into::into).collect();
                    #[cfg(unix)]
                    all.push(
                        <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"bad\xffname.yml")
                            .to_os_string(),
                    );
                    // The plain definitions, path by path: the entries' configuration
                    // is their directory's.
                    let config = filter.resolver.for_dir(&filter.resolver.absolute(&dir));
                    for name in &all {
                        let path = dir.join(name);
                        let abs = filter.resolver.absolute(&path);
                        let name: &OsStr = name;
                        let (enter, take) = (!config.is_excluded(&abs), config.includes_walked_file(&abs));
                        assert_eq!(judge.enter_dir(&path, name), enter, "dir {path:?}");
                        assert_eq!(judge.walked_file(&path, name), take, "file {path:?}");
                        // An entry asked about on its own is judged the same.
                        assert_eq!(filter.enter_dir(&path), enter, "dir {path:?} alone");
                        assert_eq!(filter.walked_file(&path), take, "file {path:?} alone");
                        decided += usize::from(take) + usize::from(!enter);
                    }
                }
            }
            assert!(decided > 20, "both answers occur: {decided}");
            assert!(
                inherited_checked > 50,
                "subfolders' judges compared: {inherited_checked}"
            );
        }
    }

    #[test]
    fn workspace_snapshots_affect_the_configuration_read_or_not() {
        let (_dir, root) = temp_root();
        write(
            &root,
            "amlint.toml",
            "[workspace]\nusage = \"azure/usage.json\"\ncomputes = \"azure/missing.json\"\n",
        );
        write(&root, "azure/usage.json", "[]");
        let r = Resolver::with_cwd(ConfigChoice::Discover, &root);
        r.for_file(&root.join("job.yml"));
        // The missing file is an error in amlint.toml; creating it changes the configuration.
        assert_eq!(r.errors().len(), 1);
        assert!(r.affects_configuration(&root.join("azure/usage.json")));
        assert!(r.affects_configuration(&root.join("azure/missing.json")));
        assert!(!r.affects_configuration(&root.join("azure/other.json")));
    }

    #[test]
    fn nearest_wins_and_pyproject_without_section_is_skipped() {
        let (_dir, root) = temp_root();
        write(&root, "amlint.toml", "profile = \"dev\"\n");
        write(&root, "ml/pyproject.toml", "[project]\nname = \"x\"\n");
        write(
            &root,
            "ml/deep/pyproject.toml",
            "[tool.amlint]\nprofile = \"production\"\n",
        );
        std::fs::create_dir_all(root.join("ml/deep/er")).unwrap();
        let r = Resolver::with_cwd(ConfigChoice::Discover, &root);
        let top = r.for_file(&root.join("ml/job.yml"));
        assert_eq!(top.path.as_deref(), Some(root.join("amlint.toml").as_path()));
        let deep = r.for_file(&root.join("ml/deep/er/job.yml"));
        assert_eq!(
            deep.path.as_deref(),
            Some(root.join("ml/deep/pyproject.toml").as_path())
        );
        assert_eq!(deep.profile, super::super::Profile::Production);
        assert!(r.errors().is_empty());
        // Cached: the same Arc comes back.
        assert!(Arc::ptr_eq(&deep, &r.for_file(&root.join("ml/deep/x.yml"))));
        assert_eq!(r.project_root(&[root.join("ml/deep/er")]).0, root.join("ml/deep"));
        assert_eq!(
            r.project_root(&[root.join("ml/a.yml"), root.join("ml/deep/b.yml")])
                .0,
            root
        );
        let none = Resolver::with_cwd(ConfigChoice::Disabled, &root);
        assert!(none.for_file(&root.join("ml/deep/x.yml")).path.is_none());
    }

    #[test]
    fn two_files_in_one_directory_and_bad_files_are_errors() {
        let (_dir, root) = temp_root();
        write(&root, "amlint.toml", "profile = \"dev\"\n");
        write(&root, ".amlint.toml", "profile = \"dev\"\n");
        write(&root, "sub/amlint.toml", "profile = 1\n");
        let r = Resolver::with_cwd(ConfigChoice::Discover, &root);
        r.for_file(&root.join("a.yml"));
        let sub = r.for_file(&root.join("sub/a.yml"));
        // The invalid file stops the walk; the parent's file does not apply instead.
        assert!(sub.path.is_none());
        let errors = r.errors();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("two configuration files"))
        );
        assert!(errors.iter().any(|e| e.source.path == "sub/amlint.toml"));
    }

    #[test]
    fn project_root_falls_back_to_git_then_common_ancestor() {
        let (_dir, root) = temp_root();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/a/b")).unwrap();
        std::fs::create_dir_all(root.join("plain/x")).unwrap();
        std::fs::create_dir_all(root.join("plain/y")).unwrap();
        let r = Resolver::with_cwd(ConfigChoice::Discover, &root);
        assert_eq!(
            r.project_root(&[root.join("repo/a/b/job.yml")]).0,
            root.join("repo")
        );
        assert_eq!(r.git_root(&root.join("repo/a")), Some(root.join("repo")));
        assert_eq!(
            r.project_root(&[root.join("plain/x/j.yml"), root.join("plain/y")])
                .0,
            root.join("plain")
        );
        let missing = Resolver::with_cwd(ConfigChoice::File(root.join("nope.toml")), &root);
        assert!(missing.errors()[0].message.contains("does not exist"));
    }

    #[test]
    fn common_ancestors() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            common_ancestor(&[p("/a/b/c"), p("/a/b/d"), p("/a/b")]),
            Some(p("/a/b"))
        );
        assert_eq!(common_ancestor(&[]), None);
    }
}
