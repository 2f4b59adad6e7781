//! A configuration as parsed ([`Config`]) and the questions the pipeline asks it: is
//! this rule on for this file, at which severity, is this path excluded; with its parts
//! ([`Level`], [`Profile`], [`Param`], ...) and [`ConfigError`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use super::glob::{self, PathPattern, PatternSet};
use super::inventory::Inventory;
use super::layered::Layered;
use super::selector::{self, Selector};
use super::workspace;
use crate::diagnostic::Severity;
use crate::source::{SourceFile, Span};
/// The names amlint reads configuration from, in order of precedence within a directory
/// (two of them in one directory is an error).
pub const CONFIG_FILE_NAMES: &[&str] = &[".amlint.toml", "amlint.toml", "pyproject.toml"];

/// The commented starter file `amlint init` writes.
pub const STARTER: &str = include_str!("starter.toml");

/// Directories never walked unless `exclude` replaces this list. Hidden directories
/// (`.git`, `.venv`) and `.gitignore`d paths are skipped by the walker already.
pub const DEFAULT_EXCLUDE: &[&str] = &["node_modules", "venv", "site-packages", "__pypackages__"];

/// `[severity]` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Info,
    Off,
}

impl Level {
    pub const NAMES: &'static [&'static str] = &["error", "warning", "info", "off"];

    pub fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "error" => Level::Error,
            "warning" => Level::Warning,
            "info" => Level::Info,
            "off" => Level::Off,
            _ => return None,
        })
    }

    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Error => Some(Severity::Error),
            Level::Warning => Some(Severity::Warning),
            Level::Info => Some(Severity::Info),
            Level::Off => None,
        }
    }
}

/// `profile`: rules can differ between development and production repositories.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    /// The default: production-only rules (AML603) stay quiet until a project says it is
    /// a production repository.
    #[default]
    Dev,
    Production,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Dev => "dev",
            Profile::Production => "production",
        }
    }
}

/// A rule parameter: its value (TOML converted to JSON: tables → objects, datetimes →
/// strings) and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub value: serde_json::Value,
    pub span: Span,
}

/// `"glob" = ["AML003", "duplicate-key"]` under `[per-file-ignores]`.
#[derive(Clone, Debug)]
pub struct PerFileIgnore {
    pub pattern: PathPattern,
    pub selectors: Vec<Spanned<Selector>>,
}

/// One `enforce` entry: the rules it makes mandatory, where it is written and in which
/// configuration file (entries of the project root's configuration apply to nested ones).
#[derive(Clone, Debug)]
pub struct Enforced {
    pub selector: Selector,
    pub span: Span,
    pub source: Arc<SourceFile>,
}

impl Enforced {
    /// `` `AML3` (`enforce` in amlint.toml, line 2) ``: what enforces a rule, for messages.
    pub fn describe(&self) -> String {
        format!(
            "`{}` (`enforce` in {}, line {})",
            self.selector,
            self.source.path,
            self.source.position(self.span.start).line
        )
    }
}

/// An entry of a configuration that would silence an enforced rule (AML012): where it is
/// written, and what it does.
#[derive(Clone, Debug, PartialEq)]
pub struct Silencing {
    pub span: Span,
    pub message: String,
}

/// A selector as written, with where.
#[derive(Clone, Debug)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// One configuration file, parsed and validated (or the defaults).
#[derive(Clone, Debug)]
pub struct Config {
    /// The file read (absolute); `None` for the defaults.
    pub path: Option<PathBuf>,
    /// Its text, shown as the path it was found under, so that a rule can point at a
    /// parameter or inventory entry.
    pub source: Option<Arc<SourceFile>>,
    /// The directory relative paths and patterns are resolved against: the file's own.
    pub dir: PathBuf,
    /// `select`; `None` selects every rule.
    /// The lists below are [`Layered`]: a configuration that `extend`s another shares the
    /// base's entries and adds its own, so cloning one clones pointers (guard 6 of
    /// docs/security.md).
    pub select: Option<Layered<Spanned<Selector>>>,
    pub extend_select: Layered<Spanned<Selector>>,
    pub ignore: Layered<Spanned<Selector>>,
    /// `[severity]`, in file order, each with the span of its key.
    pub severity: Layered<(Selector, Level, Span)>,
    pub per_file_ignores: Layered<PerFileIgnore>,
    /// `include`: which walked files are checked; `None` means the built-in set
    /// (`*.yml`, `*.yaml`, `*.json`, `MLTable`).
    pub include: Option<Layered<PathPattern>>,
    /// `exclude` (or [`DEFAULT_EXCLUDE`]) followed by `extend-exclude`.
    pub exclude: Layered<PathPattern>,
    pub profile: Profile,
    /// `[params]`, by name: shared with the configuration this one extends until it sets
    /// one (then the names and pointers are copied, never the values).
    pub params: Arc<BTreeMap<String, Arc<Param>>>,
    pub inventory: Inventory,
    /// `[workspace]`: the workspace's snapshot files, read (`None` without the table).
    pub workspace: Option<Arc<workspace::WorkspaceSnapshot>>,
    /// `require-reason`: a suppression comment without a reason is reported (AML011).
    pub require_reason: bool,
    /// `enforce`: rules that no suppression, `ignore`, `[per-file-ignores]` or lower
    /// `[severity]` may silence (AML012 reports each attempt, and the finding stays),
    /// as written (with their spans, so that configurations can be merged).
    pub enforce: Layered<Enforced>,
    /// `rules-dirs`, absolute: extra directories of rule files for the rule engine.
    pub rules_dirs: Layered<PathBuf>,
    /// The rules this configuration runs: the built-in ones plus those of `rules_dirs`.
    pub rules: Rules,
    /// `include`, `exclude` and `[per-file-ignores]` compiled, on first use (after parsing).
    pub matchers: Matchers,
    /// Each top-level key set by a file, with the files it comes from (`extend` chains:
    /// the file that replaced it, or every file that added to it), for `--show-settings`.
    pub origins: BTreeMap<String, Vec<String>>,
}

/// The configurations files are checked with: each file's nearest configuration, with
/// the inventory of the project root's configuration added (the project-wide inventory,
/// docs/configuration.md), built once per configuration of a run.
pub struct WithProjectInventory {
    project: Arc<Config>,
    cache: std::sync::Mutex<std::collections::HashMap<usize, Arc<Config>>>,
}

impl WithProjectInventory {
    pub fn new(project: Arc<Config>) -> Self {
        Self {
            project,
            cache: Default::default(),
        }
    }

    /// `config`, with the project-wide inventory entries it does not name itself.
    pub fn get(&self, config: &Arc<Config>) -> Arc<Config> {
        if Arc::ptr_eq(config, &self.project)
            || (self.project.inventory.is_empty()
                && self.project.enforce.is_empty()
                && (self.project.workspace.is_none() || config.workspace.is_some()))
            || (config.path.is_some() && config.path == self.project.path)
        {
            return config.clone();
        }
        let key = Arc::as_ptr(config) as usize;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(key)
            .or_insert_with(|| {
                let mut merged = Config::clone(config);
                merged.inventory = config.inventory.with_outer(&self.project.inventory);
                // The root's `enforce` holds in every folder of the project.
                merged.enforce.extend(self.project.enforce.iter().cloned());
                // So does its workspace, unless the folder names its own.
                if merged.workspace.is_none() {
                    merged.workspace = self.project.workspace.clone();
                }
                Arc::new(merged)
            })
            .clone()
    }
}

/// The pattern lists of a [`Config`] compiled into [`PatternSet`]s, each built the first
/// time a path is matched against it.
#[derive(Clone, Debug, Default)]
pub struct Matchers {
    include: std::sync::OnceLock<PatternSet>,
    exclude: std::sync::OnceLock<PatternSet>,
    per_file_ignores: std::sync::OnceLock<PatternSet>,
}

/// The rules a configuration runs: the built-in ones, read on first use (a run walks and
/// loads its files while they are read), or a registry of its own (`rules-dirs`).
/// Dereferences to the registry.
#[derive(Clone, Debug, Default)]
pub struct Rules(Option<Arc<crate::registry::Registry>>);

impl Rules {
    /// The built-in rules and those of `rules-dirs`.
    pub fn with(registry: Arc<crate::registry::Registry>) -> Self {
        Rules(Some(registry))
    }

    /// The registry, shared.
    pub fn arc(&self) -> Arc<crate::registry::Registry> {
        self.0.clone().unwrap_or_else(crate::registry::builtin_arc)
    }

    /// The registry of a configuration with `rules-dirs` (the built-in rules and its own);
    /// `None` for the built-in rules alone.
    pub fn user_registry(&self) -> Option<Arc<crate::registry::Registry>> {
        self.0.clone()
    }
}

impl std::ops::Deref for Rules {
    type Target = crate::registry::Registry;

    fn deref(&self) -> &Self::Target {
        match &self.0 {
            Some(registry) => registry,
            None => crate::registry::builtin(),
        }
    }
}

impl Config {
    /// The built-in defaults, with relative paths resolved against `dir`.
    pub fn defaults(dir: &Path) -> Config {
        Config {
            path: None,
            source: None,
            dir: dir.to_path_buf(),
            select: None,
            extend_select: Layered::default(),
            ignore: Layered::default(),
            severity: Layered::default(),
            per_file_ignores: Layered::default(),
            include: None,
            exclude: default_exclude().into(),
            profile: Profile::default(),
            params: Arc::default(),
            inventory: Inventory::default(),
            workspace: None,
            require_reason: false,
            enforce: Layered::default(),
            rules_dirs: Layered::default(),
            rules: Rules::default(),
            matchers: Matchers::default(),
            origins: BTreeMap::new(),
        }
    }

    /// Shared defaults for callers without a directory (relative paths resolve against
    /// the current directory).
    pub fn shared_default() -> &'static Config {
        static DEFAULT: LazyLock<Config> = LazyLock::new(|| {
            Config::defaults(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")))
        });
        &DEFAULT
    }

    /// Whether `select`/`extend-select`/`ignore` keep rule `code` (`true`) or turn it off
    /// (`false`), with the span of the entry that decides (no `select` selects every rule);
    /// `None` when a `select` leaves it out.
    fn selection_of(&self, code: &str) -> Option<(bool, Span)> {
        let all = [Spanned {
            value: Selector::All,
            span: Span::default(),
        }];
        let select: Box<dyn Iterator<Item = &Spanned<Selector>>> = match &self.select {
            Some(select) => Box::new(select.iter()),
            None => Box::new(all.iter()),
        };
        let candidates = select
            .chain(&self.extend_select)
            .map(|s| (&s.value, (true, s.span)))
            .chain(self.ignore.iter().map(|s| (&s.value, (false, s.span))));
        selector::best_match(code, candidates).map(|(_, decided)| decided)
    }

    /// The severity a finding of rule `code` gets under this configuration, or `None`
    /// when the rule is not selected or is turned `off`.
    pub fn rule_severity(&self, code: &str, default: Severity) -> Option<Severity> {
        if !matches!(self.selection_of(code), Some((true, _))) {
            return None;
        }
        match selector::best_match(code, self.severity.iter().map(|(s, l, _)| (s, *l))) {
            Some((_, level)) => level.severity(),
            None => Some(default),
        }
    }

    pub(crate) fn exclude_set(&self) -> &PatternSet {
        self.matchers
            .exclude
            .get_or_init(|| PatternSet::new(&self.exclude.to_vec()))
    }

    /// The selectors of every `[per-file-ignores]` entry whose pattern matches the file at
    /// `path` (absolute): matched once per file, then asked for each finding.
    pub fn file_ignores(&self, path: &Path) -> Vec<&Selector> {
        if self.per_file_ignores.is_empty() {
            return Vec::new();
        }
        let Some(rel) = glob::relative(path, &self.dir) else {
            return Vec::new();
        };
        let set = self.matchers.per_file_ignores.get_or_init(|| {
            let all: Vec<PathPattern> = self.per_file_ignores.iter().map(|p| p.pattern.clone()).collect();
            PatternSet::new(&all)
        });
        set.matching_path_or_parent(&rel)
            .into_iter()
            .filter_map(|i| self.per_file_ignores.get(i))
            .flat_map(|p| p.selectors.iter().map(|s| &s.value))
            .collect()
    }

    /// Whether `[per-file-ignores]` drops rule `code` for the file at `path` (absolute).
    pub fn ignored_for_file(&self, path: &Path, code: &str) -> bool {
        self.file_ignores(path).iter().any(|s| s.matches_code(code))
    }

    /// Whether `path` (absolute) is excluded: it, or a directory between the
    /// configuration's directory and it, matches `exclude`/`extend-exclude`. Paths outside
    /// the configuration's directory are matched by name only.
    pub fn is_excluded(&self, path: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        match glob::relative(path, &self.dir) {
            Some(rel) => self.exclude_set().matches_path_or_parent(&rel),
            None => {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                name.is_some_and(|n| self.exclude_set().matches_one(&n))
            }
        }
    }

    /// Whether `path` (absolute) itself, not a folder above it, matches
    /// `exclude`/`extend-exclude`.
    pub fn is_excluded_itself(&self, path: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let rel = glob::relative(path, &self.dir)
            .or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()));
        rel.is_some_and(|rel| self.exclude_set().matches_one(&rel))
    }

    /// Whether the folder `dir` (absolute) or a folder above it, inside this
    /// configuration's directory, matches `exclude`/`extend-exclude`: for a file in `dir`,
    /// `is_excluded` is `is_excluded_itself || is_dir_excluded(dir)`. The walk asks the
    /// resolver's remembered form (`Resolver::dir_excluded_by`); this plain one is what
    /// the tests hold it to.
    #[cfg(test)]
    pub(crate) fn is_dir_excluded(&self, dir: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        glob::relative(dir, &self.dir)
            .is_some_and(|rel| !rel.is_empty() && self.exclude_set().matches_path_or_parent(&rel))
    }

    /// Whether a file found by walking a directory is checked: it matches `include` (or,
    /// without `include`, has a configuration file name) and is not excluded.
    pub fn includes_walked_file(&self, path: &Path) -> bool {
        self.includes_by_pattern(path) && !self.is_excluded(path)
    }

    /// Whether a walked file at `path` (absolute) matches `include` (or, without
    /// `include`, has a configuration file name) and is not itself excluded
    /// (`includes_by_pattern && !is_excluded_itself`).
    pub fn takes_walked_file(&self, path: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        // Outside the configuration's directory, the file's name stands for both (an
        // empty name matches nothing).
        let rel = glob::relative(path, &self.dir);
        let dir = rel
            .as_deref()
            .and_then(|rel| rel.strip_suffix(&*name))
            .map_or("", |dir| dir.strip_suffix('/').unwrap_or(dir));
        self.takes_walked_entry(dir, &name)
    }

    /// [`Config::takes_walked_file`] of the entry `name` of a directory whose path
    /// relative to this configuration's directory is `dir` (`""` for the directory
    /// itself, or when outside it: the entry is then matched by its name).
    pub fn takes_walked_entry(&self, dir: &str, name: &str) -> bool {
        let included = match &self.include {
            None => crate::discover::is_config_name(name),
            Some(patterns) => self
                .matchers
                .include
                .get_or_init(|| PatternSet::new(&patterns.to_vec()))
                .matches_entry(dir, name),
        };
        included && !self.excluded_itself_entry(dir, name)
    }

    /// [`Config::is_excluded_itself`] of the entry `name` of the directory `dir` (as in
    /// [`Config::takes_walked_entry`]).
    pub fn excluded_itself_entry(&self, dir: &str, name: &str) -> bool {
        !self.exclude.is_empty() && self.exclude_set().matches_entry(dir, name)
    }

    /// Whether `path` (absolute) matches `include` (or, without `include`, has a
    /// configuration file name).
    pub fn includes_by_pattern(&self, path: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        match &self.include {
            None => crate::discover::is_config_name(&name),
            Some(patterns) => {
                let rel = glob::relative(path, &self.dir).unwrap_or_else(|| name.into_owned());
                self.matchers
                    .include
                    .get_or_init(|| PatternSet::new(&patterns.to_vec()))
                    .matches_one(&rel)
            }
        }
    }

    /// A parameter's value.
    pub fn param(&self, name: &str) -> Option<&serde_json::Value> {
        self.params.get(name).map(|p| &p.value)
    }

    /// The `enforce` entry that makes rule `code` mandatory, if any. AML012 itself is
    /// always enforced: reports of silencing cannot be silenced.
    pub fn enforced(&self, code: &str) -> Option<&Enforced> {
        self.enforce.iter().find(|e| e.selector.matches_code(code))
    }

    /// Whether rule `code` is enforced here (by `enforce`, or because it is AML012).
    pub fn is_enforced(&self, code: &str) -> bool {
        code == crate::diagnostic::codes::AML012.code || self.enforced(code).is_some()
    }

    /// The entries of this configuration that silence a rule it enforces (or that the
    /// project root's configuration enforces: see [`WithProjectInventory`]): `ignore` or a
    /// `select` that leaves it out, `[severity]` turning it off or lowering it below its
    /// default, `[per-file-ignores]`. One per entry, naming the rules it silences.
    pub fn silencing_enforced(&self) -> Vec<Silencing> {
        if self.enforce.is_empty() {
            return Vec::new();
        }
        // By entry span: (what the entry does, the rules, what enforces them).
        let mut found: BTreeMap<(u32, u32), (String, Vec<&'static str>, String)> = BTreeMap::new();
        let mut add = |span: Span, what: String, code: &'static str, by: &Enforced| {
            let entry = found
                .entry((span.start, span.end))
                .or_insert_with(|| (what, Vec::new(), by.describe()));
            if !entry.1.contains(&code) {
                entry.1.push(code);
            }
        };
        for rule in self.rules.rules() {
            let Some(by) = self.enforced(rule.code) else {
                continue;
            };
            match self.selection_of(rule.code) {
                Some((true, _)) => {}
                Some((false, span)) => add(span, "`ignore` turns off".to_string(), rule.code, by),
                None => {
                    let span = self
                        .select
                        .as_ref()
                        .and_then(|s| s.first())
                        .map_or(Span::default(), |s| s.span);
                    add(span, "`select` leaves out".to_string(), rule.code, by);
                }
            }
            let severity = self.severity.iter().map(|(s, l, span)| (s, (*l, *span)));
            if let Some((_, (level, span))) = selector::best_match(rule.code, severity) {
                match level.severity() {
                    None => add(span, "`[severity]` turns off".to_string(), rule.code, by),
                    Some(s) if s < rule.severity => {
                        add(span, format!("`[severity]` lowers to {s}"), rule.code, by)
                    }
                    Some(_) => {}
                }
            }
            for p in &self.per_file_ignores {
                for s in p.selectors.iter().filter(|s| s.value.matches_code(rule.code)) {
                    add(
                        s.span,
                        format!(
                            "`[per-file-ignores]` drops, in the files matching `{}`,",
                            p.pattern.text
                        ),
                        rule.code,
                        by,
                    );
                }
            }
        }
        found
            .into_iter()
            .map(|((start, end), (what, codes, by))| Silencing {
                span: Span::new(start, end),
                message: format!(
                    "{what} {}, enforced by {by}: an enforced rule cannot be silenced, so its findings are still reported",
                    codes.join(", ")
                ),
            })
            .collect()
    }
}

fn default_exclude() -> Vec<PathPattern> {
    DEFAULT_EXCLUDE
        .iter()
        .filter_map(|p| PathPattern::new(p).ok())
        .collect()
}

/// A configuration problem: where (in the configuration file), what, and what to do.
#[derive(Clone, Debug)]
pub struct ConfigError {
    /// The configuration file (empty text when it could not be read).
    pub source: Arc<SourceFile>,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl ConfigError {
    /// An error in a user rule file (`rules-dirs`) whose text is `source`, at the word the
    /// loader's position points at.
    pub fn in_rule_file(source: &Arc<SourceFile>, e: &crate::data::DataError) -> Self {
        let span = e.position.map_or(Span::default(), |pos| {
            let end = source.text[pos.offset as usize..]
                .find(['\n', ':', ','])
                .map_or(pos.offset, |n| pos.offset + n as u32);
            Span::new(pos.offset, end.max(pos.offset))
        });
        ConfigError::new(source, span, format!("in a user rule: {}", e.message)).with_help(
            "Fix the rule file; rules/rule.schema.json describes the format (docs/rules/README.md lists the built-in rules).",
        )
    }

    pub fn new(source: &Arc<SourceFile>, span: Span, message: impl Into<String>) -> Self {
        Self {
            source: source.clone(),
            span,
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// An error about a file that has no text to show (missing, unreadable).
    pub fn about_file(path: &str, message: impl Into<String>, help: impl Into<String>) -> Self {
        Self {
            source: SourceFile::new(path, String::new()),
            span: Span::default(),
            message: message.into(),
            help: Some(help.into()),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = self.source.position(self.span.start);
        write!(
            f,
            "{}:{}:{}: {}",
            self.source.path, p.line, p.column, self.message
        )?;
        if let Some(h) = &self.help {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::config::{ConfigFileKind, parse};

    fn config(text: &str) -> Config {
        let dir = Path::new("/project");
        parse(
            "amlint.toml",
            dir,
            text.to_string(),
            ConfigFileKind::Amlint,
            crate::registry::builtin(),
        )
        .unwrap_or_else(|e| panic!("{e:?}"))
        .expect("a configuration")
    }

    #[test]
    fn selection_and_severity() {
        let c = config(
            "select = [\"AML0\"]\nignore = [\"AML002\"]\n[severity]\nyaml11-ambiguous-scalar = \"error\"\nAML006 = \"off\"\n",
        );
        assert_eq!(c.rule_severity("AML002", Severity::Error), None);
        assert_eq!(
            c.rule_severity("AML003", Severity::Warning),
            Some(Severity::Error)
        );
        assert_eq!(c.rule_severity("AML006", Severity::Warning), None);
        assert_eq!(c.rule_severity("AML001", Severity::Error), Some(Severity::Error));
        assert_eq!(c.rule_severity("AML503", Severity::Error), None);
        let c = config("extend-select = [\"AML5\"]\nignore = [\"AML\"]\n");
        assert_eq!(c.rule_severity("AML503", Severity::Error), Some(Severity::Error));
        assert_eq!(c.rule_severity("AML002", Severity::Error), None);
        let d = Config::defaults(Path::new("/"));
        assert_eq!(d.rule_severity("AML002", Severity::Error), Some(Severity::Error));
    }

    /// The walk asks `is_excluded_itself` per file and `is_dir_excluded` once per folder:
    /// together they must answer what `is_excluded` answers, for every pattern form.
    #[test]
    fn exclusion_split_by_folder_agrees_with_whole_path() {
        let c = config(
            "exclude = [\"legacy\", \"*.json\", \"deploy/old/**\", \"a/b\", \"**/tmp-*\", \"x.yml\"]\n",
        );
        let only_star = config("exclude = [\"*\"]\n");
        let paths = [
            "/project/a/legacy/x.yml",
            "/project/legacy",
            "/project/deploy/old/a/b.yml",
            "/project/deploy/new.yml",
            "/project/a/b/c/d.yml",
            "/project/a/bc/d.yml",
            "/project/q/tmp-1/z.yml",
            "/project/q/x.yml",
            "/project/jobs/x.json",
            "/project/top.yml",
            "/elsewhere/legacy/x.yml",
            "/elsewhere/x.yml",
            "/elsewhere/legacy/y.yml",
        ];
        for c in [&c, &only_star] {
            for p in paths {
                let p = Path::new(p);
                let split = c.is_excluded_itself(p) || p.parent().is_some_and(|d| c.is_dir_excluded(d));
                assert_eq!(split, c.is_excluded(p), "{}", p.display());
            }
        }
    }

    #[test]
    fn paths() {
        let c = config(
            "exclude = [\"legacy\"]\nextend-exclude = [\"deploy/old/**\"]\ninclude = [\"**/*.yml\", \"deploy/*.json\"]\n[per-file-ignores]\n\"jobs/experimental\" = [\"AML003\"]\n",
        );
        assert!(c.is_excluded(Path::new("/project/a/legacy/x.yml")));
        assert!(c.is_excluded(Path::new("/project/deploy/old/a/b.json")));
        assert!(!c.is_excluded(Path::new("/project/deploy/new.json")));
        // `exclude` replaced the defaults.
        assert!(!c.is_excluded(Path::new("/project/node_modules/x.yml")));
        assert!(c.includes_walked_file(Path::new("/project/jobs/a.yml")));
        assert!(c.includes_walked_file(Path::new("/project/deploy/aci.json")));
        assert!(!c.includes_walked_file(Path::new("/project/other/aci.json")));
        assert!(c.ignored_for_file(Path::new("/project/jobs/experimental/x.yml"), "AML003"));
        assert!(!c.ignored_for_file(Path::new("/project/jobs/experimental/x.yml"), "AML002"));
        assert!(!c.ignored_for_file(Path::new("/project/jobs/x.yml"), "AML003"));
        let d = Config::defaults(Path::new("/project"));
        assert!(d.is_excluded(Path::new("/project/web/node_modules/pkg/x.json")));
        assert!(d.includes_walked_file(Path::new("/project/MLTable")));
        assert!(!d.includes_walked_file(Path::new("/project/notes.csv")));
    }
}
