//! TOML text → [`Config`]. The `toml` crate keeps the span of every key and value, so
//! each problem (syntax, unknown key, wrong type, bad value, unknown rule) is reported at
//! the exact text, with what to do about it. Every problem of the file is reported, not
//! only the first.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use toml::de::{DeTable, DeValue};

use super::glob::PathPattern;
use super::model::{Config, ConfigError, Enforced, Level, Param, PerFileIgnore, Profile, Spanned};
use super::selector::{self, Selector};
use crate::registry::Registry;
use crate::source::{SourceFile, Span};
use crate::suggest;

#[path = "parse_inventory.rs"]
mod parse_inventory;
#[path = "parse_workspace.rs"]
mod parse_workspace;

type Value<'i> = toml::Spanned<DeValue<'i>>;

/// Which file the text comes from: a dedicated file, or `pyproject.toml` (whose
/// `[tool.amlint]` table holds the configuration, if it has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigFileKind {
    Amlint,
    Pyproject,
}

/// The top-level keys of a configuration.
pub const KEYS: &[&str] = &[
    "select",
    "extend-select",
    "ignore",
    "severity",
    "per-file-ignores",
    "include",
    "exclude",
    "extend-exclude",
    "profile",
    "params",
    "inventory",
    "rules-dirs",
    "require-reason",
    "enforce",
    "extend",
    "workspace",
];

/// Parses a configuration file shown as `display`, whose relative paths resolve against
/// `dir` (absolute). `Ok(None)`: a `pyproject.toml` without `[tool.amlint]`.
pub fn parse(
    display: &str,
    dir: &Path,
    text: String,
    kind: ConfigFileKind,
    registry: &Registry,
) -> Result<Option<Config>, Vec<ConfigError>> {
    let _ = registry;
    parse_file(display, None, dir, text, kind, None)
}

/// A check of a configuration's rules (the built-in ones and those of its `rules-dirs`)
/// by the layer that compiles them: the errors of the user rules that do not compile,
/// each at its rule file's line. [`parse_file`] reports them as the configuration's.
pub type RuleCheck = fn(&Arc<Registry>) -> Vec<crate::data::DataError>;

/// How deep `extend` chains may go.
pub const MAX_EXTEND_DEPTH: usize = 16;

/// How a key of a configuration combines with the same key of the configuration it
/// `extend`s (docs/configuration.md, "Sharing a configuration").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// The extending file's value replaces the other's.
    Replace,
    /// The other's entries, then the extending file's (later entries win ties).
    Append,
    /// Entries by name; the extending file's win.
    ByName,
}

/// The merge rule of each top-level key (`extend` itself is not merged).
pub const MERGE: &[(&str, Merge)] = &[
    ("select", Merge::Replace),
    ("extend-select", Merge::Append),
    ("ignore", Merge::Append),
    ("severity", Merge::Append),
    ("per-file-ignores", Merge::Append),
    ("include", Merge::Replace),
    ("exclude", Merge::Replace),
    ("extend-exclude", Merge::Append),
    ("profile", Merge::Replace),
    ("params", Merge::ByName),
    ("inventory", Merge::ByName),
    ("rules-dirs", Merge::Append),
    ("require-reason", Merge::Replace),
    ("enforce", Merge::Append),
    ("workspace", Merge::Replace),
];

/// Parses the configuration file at `path` (absolute; `None` when it is not known), as
/// [`parse`] does, following its `extend` chain, and running `check` on its rules.
pub fn parse_file(
    display: &str,
    path: Option<&Path>,
    dir: &Path,
    text: String,
    kind: ConfigFileKind,
    check: Option<RuleCheck>,
) -> Result<Option<Config>, Vec<ConfigError>> {
    let within = Within {
        boundary: crate::fsio::Boundary::around(dir),
        cache: None,
        check,
    };
    parse_file_extending(display, path, dir, text, kind, &within).0
}

/// What a configuration file is parsed within: the project boundary the files it names
/// are held to, the run's cache of files `extend` names, and the check run on the rules
/// of its `rules-dirs`.
#[derive(Clone, Default)]
pub struct Within {
    pub boundary: crate::fsio::Boundary,
    pub cache: Option<Arc<ExtendCache>>,
    pub check: Option<RuleCheck>,
}

/// [`parse_file`], with every file its `extend` chain names (absolute; as written and,
/// when it exists, as the link-free path) and every snapshot its `[workspace]` tables name,
/// read or not: a change to one of them changes the configuration (the language server
/// reads it again).
pub fn parse_file_extending(
    display: &str,
    path: Option<&Path>,
    dir: &Path,
    text: String,
    kind: ConfigFileKind,
    within: &Within,
) -> (Result<Option<Config>, Vec<ConfigError>>, Vec<std::path::PathBuf>) {
    let mut chain = Chain {
        boundary: within.boundary.clone(),
        cache: within.cache.clone(),
        ..Chain::default()
    };
    let parsed = parse_chained(display, path, dir, text, kind, within.check, &mut chain);
    (parsed, chain.named)
}

/// An `extend` chain being followed.
#[derive(Default)]
struct Chain {
    /// The real paths of the files that extend the one being parsed (a cycle is
    /// reported with the files that make it), with how they are shown.
    stack: Vec<(std::path::PathBuf, String)>,
    /// Every file an `extend` named so far.
    named: Vec<std::path::PathBuf>,
    /// The project: every file the chain names (`extend`, `rules-dirs`) is held to it.
    boundary: crate::fsio::Boundary,
    /// The files `extend` named that a run has parsed already.
    cache: Option<Arc<ExtendCache>>,
}

/// The configurations `extend` names, each parsed once per run (or language-server
/// reload) and shared by every file that extends it: sixty folders extending one large
/// base read and parse it once, and hold it once ([`Config`]'s lists are layered).
/// Keyed by the file's real path and how it is shown.
#[derive(Default)]
pub struct ExtendCache(
    std::sync::Mutex<std::collections::HashMap<(std::path::PathBuf, String), Arc<Parsed>>>,
);

/// A base as parsed: the configuration (or why not) and the files its own chain named.
struct Parsed {
    config: Result<Option<Arc<Config>>, Vec<ConfigError>>,
    named: Vec<std::path::PathBuf>,
}

impl std::fmt::Debug for ExtendCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExtendCache")
    }
}

impl ExtendCache {
    fn get(&self, key: &(std::path::PathBuf, String)) -> Option<Arc<Parsed>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned()
    }

    fn insert(&self, key: (std::path::PathBuf, String), parsed: Parsed) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, Arc::new(parsed));
    }
}

/// What to do about a file `extend` names that cannot be read (`r`).
fn unreadable_help(r: &crate::fsio::Refusal) -> &'static str {
    match r {
        crate::fsio::Refusal::Outside { .. } => {
            "amlint reads configuration only from inside the project: vendor the shared configuration into the repository (a git submodule, or a folder a package installs into it; docs/configuration.md)."
        }
        _ => "Make it a readable regular file.",
    }
}

/// A TOML syntax error, at its place in the file (`bom`: the bytes of a byte-order mark
/// before the text parsed).
fn syntax_error(source: &Arc<SourceFile>, bom: usize, e: &toml::de::Error) -> ConfigError {
    let span = e.span().map_or(Span::at(bom as u32), |r| {
        Span::new((r.start + bom) as u32, (r.end + bom) as u32)
    });
    ConfigError::new(
        source,
        span,
        format!("this is not valid TOML: {}", e.message().trim()),
    )
    .with_help("Fix the syntax; amlint reads TOML 1.0 (https://toml.io).")
}

/// [`parse_file`] of a file that `chain` extends.
fn parse_chained(
    display: &str,
    path: Option<&Path>,
    dir: &Path,
    text: String,
    kind: ConfigFileKind,
    check: Option<RuleCheck>,
    chain: &mut Chain,
) -> Result<Option<Config>, Vec<ConfigError>> {
    let source = SourceFile::new(display, text);
    let bom = if source.text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &source.text[bom..];
    let root = DeTable::parse(body).map_err(|e| vec![syntax_error(&source, bom, &e)])?;
    let mut p = Parser {
        source: source.clone(),
        bom: bom as u32,
        dir,
        registry: Arc::new(Registry::default()),
        prefix: "",
        errors: Vec::new(),
        check,
        boundary: chain.boundary.clone(),
        snapshots: Vec::new(),
    };
    let table = match kind {
        ConfigFileKind::Amlint => root.get_ref(),
        ConfigFileKind::Pyproject => {
            let Some(tool) = root.get_ref().get("tool") else {
                return Ok(None);
            };
            let DeValue::Table(tool) = tool.get_ref() else {
                return Ok(None);
            };
            let Some(amlint) = tool.get("amlint") else {
                return Ok(None);
            };
            p.prefix = "tool.amlint.";
            match p.table("tool.amlint", amlint) {
                Some(t) => t,
                None => return Err(p.errors),
            }
        }
    };
    let mut config = match table.get("extend") {
        None => Config::defaults(dir),
        Some(v) => {
            let real = path.map(|p| crate::fsio::real_path(p).unwrap_or_else(|| p.to_path_buf()));
            if let Some(real) = real {
                chain.stack.push((real, display.to_string()));
            }
            let base = p.extended(v, chain);
            if path.is_some() {
                chain.stack.pop();
            }
            match base {
                Some(base) => base,
                None => return Err(p.errors),
            }
        }
    };
    // The extending file's own: relative patterns are matched from its directory, and the
    // clusters of the project that share a quota are those below it.
    config.dir = dir.to_path_buf();
    if let Some(ws) = config.workspace.as_mut().filter(|ws| ws.dir != dir) {
        std::sync::Arc::make_mut(ws).dir = dir.to_path_buf();
    }
    config.path = None;
    config.matchers = Default::default();
    config.source = Some(source.clone());
    for (key, _) in table.iter() {
        let key = key.get_ref().as_ref();
        if let Some((_, merge)) = MERGE.iter().find(|(k, _)| *k == key) {
            let files = config.origins.entry(key.to_string()).or_default();
            if *merge == Merge::Replace {
                files.clear();
            }
            files.push(display.to_string());
        }
    }
    // `rules-dirs` first: selectors and severities may name the rules they hold.
    if let Some(v) = table.get("rules-dirs") {
        p.rules_dirs(v, &mut config);
    }
    p.registry = config.rules.arc();
    p.top(table, &mut config);
    chain.named.append(&mut p.snapshots);
    if p.errors.is_empty() {
        Ok(Some(config))
    } else {
        p.errors.sort_by_key(|e| (e.span.start, e.span.end));
        Err(p.errors)
    }
}

/// A JSON value's type, as a parameter's type is named in messages.
fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a table",
    }
}

/// A parameter's default written as TOML, for help texts.
fn toml_of(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Array(items) if items.is_empty() => "[\"...\"]".to_string(),
        serde_json::Value::Object(_) => "{ ... }".to_string(),
        other => other.to_string(),
    }
}

/// "Did you mean `x`? " for a close spelling or an abbreviation (`warn`, `prod`), else "".
fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    let lower = word.to_ascii_lowercase();
    suggest::closest(word, candidates.iter().copied())
        .or_else(|| {
            candidates
                .iter()
                .copied()
                .find(|c| lower.len() >= 3 && c.starts_with(lower.as_str()))
        })
        .map(|s| format!("Did you mean `{s}`? "))
        .unwrap_or_default()
}

struct Parser<'a> {
    source: Arc<SourceFile>,
    bom: u32,
    dir: &'a Path,
    /// Built-in rules plus those of `rules-dirs`.
    registry: Arc<Registry>,
    /// `tool.amlint.` inside `pyproject.toml`, for messages.
    prefix: &'static str,
    errors: Vec<ConfigError>,
    /// Compiles the user rules `rules-dirs` brings.
    check: Option<RuleCheck>,
    /// The project the files this configuration names must be in.
    boundary: crate::fsio::Boundary,
    /// The files `[workspace]` names (absolute), read or not: a change to one changes the
    /// configuration, as a file of the `extend` chain does.
    snapshots: Vec<std::path::PathBuf>,
}

fn kind_of(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

impl<'a> Parser<'a> {
    fn span(&self, r: Range<usize>) -> Span {
        Span::new(r.start as u32 + self.bom, r.end as u32 + self.bom)
    }

    fn error(&mut self, r: Range<usize>, message: String, help: impl Into<String>) {
        let span = self.span(r);
        self.errors
            .push(ConfigError::new(&self.source, span, message).with_help(help));
    }

    fn type_error(&mut self, key: &str, v: &Value<'_>, expected: &str, example: &str) {
        self.error(
            v.span(),
            format!(
                "`{}{key}` must be {expected}, not {}",
                self.prefix,
                kind_of(v.get_ref())
            ),
            format!("For example: {example}"),
        );
    }

    fn table<'v, 'i>(&mut self, key: &str, v: &'v Value<'i>) -> Option<&'v DeTable<'i>> {
        match v.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => {
                self.type_error(
                    key,
                    v,
                    "a table",
                    &format!("`[{key}]` on a line of its own, then its keys"),
                );
                None
            }
        }
    }

    fn unknown_key(&mut self, key: &toml::Spanned<std::borrow::Cow<'_, str>>, within: &str, known: &[&str]) {
        let name = key.get_ref().as_ref();
        let hint = suggest::closest(name, known.iter().copied())
            .map(|s| format!("Did you mean `{s}`? "))
            .unwrap_or_default();
        let place = if within.is_empty() {
            if self.prefix.is_empty() {
                "the configuration".to_string()
            } else {
                "`[tool.amlint]`".to_string()
            }
        } else {
            format!("`[{}{within}]`", self.prefix)
        };
        self.error(
            key.span(),
            format!("unknown key `{name}` in {place}"),
            format!("{hint}The keys here are: {}.", known.join(", ")),
        );
    }

    fn string<'v>(&mut self, key: &str, v: &'v Value<'_>, example: &str) -> Option<(&'v str, Span)> {
        match v.get_ref() {
            DeValue::String(s) => Some((s.as_ref(), self.span(v.span()))),
            _ => {
                self.type_error(key, v, "a string", example);
                None
            }
        }
    }

    fn string_list(&mut self, key: &str, v: &Value<'_>, example: &str) -> Vec<(String, Span)> {
        let DeValue::Array(items) = v.get_ref() else {
            self.type_error(key, v, "an array of strings", example);
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items.iter() {
            match item.get_ref() {
                DeValue::String(s) => out.push((s.to_string(), self.span(item.span()))),
                other => self.error(
                    item.span(),
                    format!("`{}{key}` must hold strings, not {}", self.prefix, kind_of(other)),
                    format!("For example: {example}"),
                ),
            }
        }
        out
    }

    fn selectors(&mut self, key: &str, v: &Value<'_>) -> Vec<Spanned<Selector>> {
        let example = format!("`{key} = [\"AML002\", \"yaml11-ambiguous-scalar\", \"AML5\"]`");
        let mut out = Vec::new();
        for (text, span) in self.string_list(key, v, &example) {
            match selector::resolve(&text, &self.registry) {
                Ok(s) => out.push(Spanned { value: s, span }),
                Err(e) => self
                    .errors
                    .push(ConfigError::new(&self.source, span, e.message).with_help(e.help)),
            }
        }
        out
    }

    fn patterns(&mut self, key: &str, v: &Value<'_>) -> Vec<PathPattern> {
        let example = format!("`{key} = [\"legacy\", \"deploy/old/**\", \"*.generated.yml\"]`");
        let mut out = Vec::new();
        for (n, (text, span)) in self.string_list(key, v, &example).into_iter().enumerate() {
            if n == crate::config::glob::MAX_PATTERNS {
                self.errors.push(too_many_patterns(&self.source, span, key));
                break;
            }
            match PathPattern::new(&text) {
                Ok(p) => out.push(p),
                Err(why) => self.errors.push(
                    ConfigError::new(&self.source, span, format!("`{text}`: {why}"))
                        .with_help("Patterns are globs relative to the configuration file's directory; see docs/configuration.md."),
                ),
            }
        }
        out
    }

    fn top(&mut self, table: &DeTable<'_>, config: &mut Config) {
        let mut exclude = None;
        let mut extend_exclude = Vec::new();
        for (key, v) in table.iter() {
            match key.get_ref().as_ref() {
                "select" => config.select = Some(self.selectors("select", v).into()),
                "extend-select" => config.extend_select.extend(self.selectors("extend-select", v)),
                "ignore" => config.ignore.extend(self.selectors("ignore", v)),
                "severity" => self.severity(v, config),
                "per-file-ignores" => self.per_file_ignores(v, config),
                "include" => config.include = Some(self.patterns("include", v).into()),
                "exclude" => exclude = Some(self.patterns("exclude", v)),
                "extend-exclude" => extend_exclude = self.patterns("extend-exclude", v),
                "profile" => {
                    if let Some((s, span)) = self.string("profile", v, "`profile = \"production\"`") {
                        match s {
                            "dev" => config.profile = Profile::Dev,
                            "production" => config.profile = Profile::Production,
                            other => {
                                let hint = did_you_mean(other, &["dev", "production"]);
                                self.errors.push(
                                    ConfigError::new(&self.source, span, format!("`profile` must be \"dev\" or \"production\", not \"{other}\""))
                                        .with_help(format!("{hint}Rules can be stricter in production repositories than in experiments.")),
                                );
                            }
                        }
                    }
                }
                "require-reason" => match v.get_ref() {
                    DeValue::Boolean(b) => config.require_reason = *b,
                    _ => self.type_error("require-reason", v, "a boolean", "`require-reason = true`"),
                },
                "enforce" => {
                    let enforced = self
                        .selectors("enforce", v)
                        .into_iter()
                        .map(|s| Enforced {
                            selector: s.value,
                            span: s.span,
                            source: self.source.clone(),
                        })
                        .collect::<Vec<_>>();
                    config.enforce.extend(enforced);
                }
                "params" => self.params(v, config),
                "inventory" => self.inventory(v, config),
                "workspace" => self.workspace(v, config),
                // Read first: by `rules_dirs`, and `extend` before everything.
                "rules-dirs" | "extend" => {}
                _ => self.unknown_key(key, "", KEYS),
            }
        }
        if let Some(e) = exclude {
            config.exclude = e.into();
        }
        config.exclude.extend(extend_exclude);
    }

    /// `extend = "path"`: the configuration this one builds on, read from inside the
    /// project (as `rules-dirs` are) and parsed with its own `extend` chain; `None` when it
    /// cannot be used (the errors say why, in this file or in that one).
    fn extended(&mut self, v: &Value<'_>, chain: &mut Chain) -> Option<Config> {
        let (text, span) = self.string("extend", v, "`extend = \"../org/amlint.toml\"`")?;
        let path = crate::fsio::absolute(Path::new(text), self.dir);
        chain.named.push(path.clone());
        let real = self.extended_path(text, span, &path, chain)?;
        // Shown as the extending file is, joined with what it wrote (`org/a.toml`).
        let shown_dir = Path::new(self.source.path.as_str())
            .parent()
            .unwrap_or(Path::new(""));
        let display = crate::fsio::shown(&crate::fsio::normalize(&shown_dir.join(text)));
        let key = (real.clone(), display.clone());
        if let Some(hit) = chain.cache.as_ref().and_then(|c| c.get(&key)) {
            chain.named.extend(hit.named.iter().cloned());
            let parsed = match &hit.config {
                Ok(parent) => Ok(parent.as_deref().cloned()),
                Err(errors) => Err(errors.clone()),
            };
            return self.extended_outcome(text, span, parsed);
        }
        let named_before = chain.named.len();
        let parent_text = self.read_extended(text, span, &real)?;
        let kind = if real.file_name().is_some_and(|n| n == "pyproject.toml") {
            ConfigFileKind::Pyproject
        } else {
            ConfigFileKind::Amlint
        };
        let parent_dir = real.parent().unwrap_or(&real).to_path_buf();
        let parsed = parse_chained(
            &display,
            Some(&real),
            &parent_dir,
            parent_text,
            kind,
            self.check,
            chain,
        );
        if let Some(cache) = &chain.cache {
            cache.insert(
                key,
                Parsed {
                    config: match &parsed {
                        Ok(c) => Ok(c.clone().map(Arc::new)),
                        Err(e) => Err(e.clone()),
                    },
                    named: chain.named[named_before..].to_vec(),
                },
            );
        }
        self.extended_outcome(text, span, parsed)
    }

    /// An error about `extend` (at `span`, its value).
    fn extend_error(&self, span: Span, message: String, help: &str) -> ConfigError {
        ConfigError::new(&self.source, span, message).with_help(help.to_string())
    }

    /// `extend` names `text`, which cannot be read (`r`): the error, with `help`.
    fn unreadable_extend(&mut self, text: &str, span: Span, r: &crate::fsio::Refusal, help: &str) {
        self.errors.push(self.extend_error(
            span,
            format!("cannot read `{text}`, which `extend` names: {}", r.describe()),
            help,
        ));
    }

    /// The file `extend` names (`text`, at `path`), resolved inside the project; `None`
    /// (said) when it is missing or refused, or makes a cycle or too long a chain.
    fn extended_path(
        &mut self,
        text: &str,
        span: Span,
        path: &Path,
        chain: &mut Chain,
    ) -> Option<std::path::PathBuf> {
        // Resolved inside the project without looking outside it: a path that leads
        // outside (as written or through a link), or into `.git`, reads the same whether
        // or not anything is there, and nothing of it is shown.
        let real = match self.boundary.resolve_named(path) {
            Ok(real) => real,
            Err(crate::fsio::Refusal::Missing | crate::fsio::Refusal::Dangling) => {
                self.errors.push(self.extend_error(
                    span,
                    format!("`extend` names `{text}`, which does not exist"),
                    "The path is relative to this configuration file's directory; name an amlint.toml or a pyproject.toml with [tool.amlint].",
                ));
                return None;
            }
            Err(r) => {
                let help = match r {
                    crate::fsio::Refusal::GitData => {
                        "Name an amlint.toml or a pyproject.toml with [tool.amlint] of the project's own tree."
                    }
                    _ => unreadable_help(&r),
                };
                self.unreadable_extend(text, span, &r, help);
                return None;
            }
        };
        if real != path {
            chain.named.push(real.clone());
        }
        if let Some(at) = chain.stack.iter().position(|(p, _)| *p == real) {
            let mut names: Vec<&str> = chain.stack[at..].iter().map(|(_, d)| d.as_str()).collect();
            names.push(&chain.stack[at].1);
            self.errors.push(self.extend_error(
                span,
                format!("`extend` makes a cycle: {}", names.join(" extends ")),
                "Remove `extend` from one of these files: a configuration cannot build on itself.",
            ));
            return None;
        }
        if chain.stack.len() >= MAX_EXTEND_DEPTH {
            self.errors.push(self.extend_error(
                span,
                format!("`extend` chains go at most {MAX_EXTEND_DEPTH} files deep"),
                "Flatten the chain: let the organisation's configuration extend one shared file, not a long line of them.",
            ));
            return None;
        }
        Some(real)
    }

    /// The text of the file `extend` names (`text`, resolved to `real`); `None` (said)
    /// when it cannot be read or is not UTF-8.
    fn read_extended(&mut self, text: &str, span: Span, real: &Path) -> Option<String> {
        let bytes = match crate::fsio::read_regular(
            real,
            crate::fsio::Seen::Unknown,
            &self.boundary,
            crate::fsio::MAX_CONFIG_SIZE,
        ) {
            Ok(bytes) => bytes,
            Err(r) => {
                self.unreadable_extend(text, span, &r, unreadable_help(&r));
                return None;
            }
        };
        let Ok(parent_text) = String::from_utf8(bytes) else {
            self.errors.push(self.extend_error(
                span,
                format!("`{text}`, which `extend` names, is not valid UTF-8"),
                "TOML files are UTF-8; save it as UTF-8.",
            ));
            return None;
        };
        Some(parent_text)
    }

    /// The configuration `extend` brings, from its file parsed (or found in the cache):
    /// `None` when it has errors (added to this file's) or no `[tool.amlint]` table.
    fn extended_outcome(
        &mut self,
        text: &str,
        span: Span,
        parsed: Result<Option<Config>, Vec<ConfigError>>,
    ) -> Option<Config> {
        match parsed {
            Ok(Some(parent)) => Some(parent),
            Ok(None) => {
                self.errors.push(self.extend_error(
                    span,
                    format!("`{text}`, which `extend` names, has no [tool.amlint] table"),
                    "Name an amlint.toml, or a pyproject.toml with a [tool.amlint] table.",
                ));
                None
            }
            Err(errors) => {
                self.errors.extend(errors);
                None
            }
        }
    }

    /// `rules-dirs`: the directories, then the user rules they hold (an error in a rule
    /// file is reported at its own line, in the rule file).
    fn rules_dirs(&mut self, v: &Value<'_>, config: &mut Config) {
        let example = "`rules-dirs = [\"policies/amlint\"]`";
        // Rules come from inside the project only (`docs/security.md`), resolved without
        // looking outside it: a refusal reads the same whether or not anything is there.
        let boundary = self.boundary.clone();
        for (text, span) in self.string_list("rules-dirs", v, example) {
            let path = crate::fsio::absolute(Path::new(&text), self.dir);
            let what = match boundary.resolve_named(&path) {
                Ok(real) => match crate::fsio::look(&real, &boundary) {
                    Ok(crate::fsio::Looked::Dir) => {
                        config.rules_dirs.push(path);
                        continue;
                    }
                    Ok(_) => "is not a directory".to_string(),
                    Err(r) => format!("cannot be read: {}", r.describe()),
                },
                Err(crate::fsio::Refusal::Missing | crate::fsio::Refusal::Dangling) => {
                    "does not exist".to_string()
                }
                Err(r @ (crate::fsio::Refusal::Outside { .. } | crate::fsio::Refusal::GitData)) => {
                    self.errors.push(
                        ConfigError::new(
                            &self.source,
                            span,
                            format!("rules directory `{text}` is not read: {}", r.describe()),
                        )
                        .with_help("Keep rule files in the repository (for example `policies/amlint`), or vendor the shared ones into it."),
                    );
                    continue;
                }
                Err(r) => format!("cannot be read: {}", r.describe()),
            };
            self.errors.push(
                ConfigError::new(&self.source, span, format!("rules directory `{text}` {what}")).with_help(format!(
                    "Paths are relative to the configuration file's directory ({}); create the directory or fix the path.",
                    crate::fsio::shown(self.dir)
                )),
            );
        }
        let files = match crate::registry::read_rule_dirs(&config.rules_dirs.to_vec(), &boundary) {
            Ok(files) => files,
            Err(errors) => {
                for e in errors {
                    self.errors.push(ConfigError::about_file(
                        &e.path,
                        e.message,
                        "Fix or remove the rule file.",
                    ));
                }
                return;
            }
        };
        match Registry::with_user_rules(&files) {
            Ok(registry) => {
                if let Some(check) = self.check {
                    for e in check(&registry) {
                        let text = files.iter().find(|(p, _)| *p == e.path).map(|(_, t)| t.clone());
                        let rule_source = SourceFile::new(&e.path, text.unwrap_or_default());
                        self.errors.push(ConfigError::in_rule_file(&rule_source, &e));
                    }
                }
                config.rules = super::model::Rules::with(registry);
            }
            Err(errors) => {
                for e in errors {
                    let text = files
                        .iter()
                        .find(|(p, _)| *p == e.path)
                        .map(|(_, t)| t.clone())
                        .unwrap_or_default();
                    let rule_source = SourceFile::new(&e.path, text);
                    self.errors.push(ConfigError::in_rule_file(&rule_source, &e));
                }
            }
        }
    }

    fn level(&mut self, v: &Value<'_>) -> Option<Level> {
        let (s, span) = self.string("severity", v, "`AML003 = \"error\"`")?;
        match Level::parse(s) {
            Some(l) => Some(l),
            None => {
                let hint = did_you_mean(s, Level::NAMES);
                self.errors.push(
                    ConfigError::new(&self.source, span, format!("`{s}` is not a severity")).with_help(
                        format!(
                            "{hint}Use \"error\", \"warning\", \"info\", or \"off\" to turn the rule off."
                        ),
                    ),
                );
                None
            }
        }
    }

    fn severity(&mut self, v: &Value<'_>, config: &mut Config) {
        let Some(table) = self.table("severity", v) else {
            return;
        };
        let mut entries: Vec<(Span, Selector, Level)> = Vec::new();
        for (key, value) in table.iter() {
            let span = self.span(key.span());
            let selector = match selector::resolve(key.get_ref(), &self.registry) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.errors
                        .push(ConfigError::new(&self.source, span, e.message).with_help(e.help));
                    None
                }
            };
            let level = self.level(value);
            if let (Some(s), Some(l)) = (selector, level) {
                entries.push((span, s, l));
            }
        }
        // File order (the TOML table is sorted by key).
        entries.sort_by_key(|(span, _, _)| span.start);
        config
            .severity
            .extend(entries.into_iter().map(|(span, s, l)| (s, l, span)));
    }

    fn per_file_ignores(&mut self, v: &Value<'_>, config: &mut Config) {
        let Some(table) = self.table("per-file-ignores", v) else {
            return;
        };
        for (n, (key, value)) in table.iter().enumerate() {
            let span = self.span(key.span());
            if n == crate::config::glob::MAX_PATTERNS {
                self.errors
                    .push(too_many_patterns(&self.source, span, "per-file-ignores"));
                break;
            }
            let pattern = match PathPattern::new(key.get_ref()) {
                Ok(p) => Some(p),
                Err(why) => {
                    self.errors.push(
                        ConfigError::new(&self.source, span, format!("`{}`: {why}", key.get_ref()))
                            .with_help("Keys of `[per-file-ignores]` are globs relative to the configuration file's directory."),
                    );
                    None
                }
            };
            let selectors = self.selectors("per-file-ignores", value);
            if let Some(pattern) = pattern {
                config.per_file_ignores.push(PerFileIgnore { pattern, selectors });
            }
        }
    }

    fn params(&mut self, v: &Value<'_>, config: &mut Config) {
        let Some(table) = self.table("params", v) else {
            return;
        };
        for (key, value) in table.iter() {
            let name = key.get_ref().as_ref();
            let valid = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                self.error(
                    key.span(),
                    format!("`{name}` is not a parameter name"),
                    "Parameter names are snake_case identifiers (`approved_vm_series`), as rules read them (`$params.approved_vm_series`).",
                );
                continue;
            }
            let declared = self.declared_param(name);
            let Some((default, rule)) = declared else {
                let names = self.param_names();
                let hint = did_you_mean(name, &names.iter().map(String::as_str).collect::<Vec<_>>());
                let list = if names.is_empty() {
                    "No rule takes parameters.".to_string()
                } else {
                    format!("The parameters rules take: {}.", names.join(", "))
                };
                self.error(
                    key.span(),
                    format!("no rule takes a parameter `{name}`"),
                    format!(
                        "{hint}{list} (A rule declares its parameters under `params:` in its rule file.)"
                    ),
                );
                continue;
            };
            if let Some(json) = self.json_value(value) {
                let want = json_type(&default);
                if want != "null" && json_type(&json) != want {
                    self.error(
                        value.span(),
                        format!(
                            "`{name}` takes {want} (rule {rule}'s default is `{default}`), not {}",
                            json_type(&json)
                        ),
                        format!("For example `{name} = {}`.", toml_of(&default)),
                    );
                    continue;
                }
                if let (serde_json::Value::Array(items), Some(first)) =
                    (&json, default.as_array().and_then(|a| a.first()))
                {
                    let item_type = json_type(first);
                    if let Some(bad) = items.iter().find(|i| json_type(i) != item_type) {
                        self.error(
                            value.span(),
                            format!(
                                "`{name}` takes a list of {}s, but it holds `{bad}`",
                                item_type.trim_start_matches("a ")
                            ),
                            format!("For example `{name} = {}`.", toml_of(&default)),
                        );
                        continue;
                    }
                }
                // The base's table is shared until a file sets a parameter: then only the
                // names and pointers are copied, never the values.
                Arc::make_mut(&mut config.params).insert(
                    name.to_string(),
                    Arc::new(Param {
                        value: json,
                        span: self.span(value.span()),
                    }),
                );
            }
        }
    }

    /// The default of a parameter some rule declares, and that rule's code.
    fn declared_param(&self, name: &str) -> Option<(serde_json::Value, &'static str)> {
        self.registry
            .rules()
            .iter()
            .find_map(|r| r.params.get(name).map(|d| (d.clone(), r.code)))
    }

    /// Every parameter the rules declare, sorted.
    fn param_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .registry
            .rules()
            .iter()
            .flat_map(|r| r.params.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    fn json_value(&mut self, v: &Value<'_>) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        Some(match v.get_ref() {
            DeValue::String(s) => J::String(s.to_string()),
            DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => J::from(n),
                Err(_) => {
                    self.error(
                        v.span(),
                        format!("the integer {i} does not fit in 64 bits"),
                        "Use a smaller number, or a string if it is an identifier.",
                    );
                    return None;
                }
            },
            DeValue::Float(f) => {
                let parsed: Option<f64> = f.as_str().parse().ok();
                match parsed.and_then(serde_json::Number::from_f64) {
                    Some(n) => J::Number(n),
                    None => J::String(f.as_str().to_string()),
                }
            }
            DeValue::Boolean(b) => J::Bool(*b),
            DeValue::Datetime(d) => J::String(d.to_string()),
            DeValue::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    out.push(self.json_value(item)?);
                }
                J::Array(out)
            }
            DeValue::Table(t) => {
                let mut map = serde_json::Map::new();
                for (k, item) in t.iter() {
                    map.insert(k.get_ref().to_string(), self.json_value(item)?);
                }
                J::Object(map)
            }
        })
    }
}

/// A list of patterns longer than [`crate::config::glob::MAX_PATTERNS`], at the first
/// pattern beyond it.
fn too_many_patterns(source: &Arc<SourceFile>, span: Span, key: &str) -> ConfigError {
    ConfigError::new(
        source,
        span,
        format!(
            "`{key}` has more than {} patterns",
            crate::config::glob::MAX_PATTERNS
        ),
    )
    .with_help(
        "Match many paths with one glob (`deploy/legacy/**`, `*.generated.yml`) instead of listing them.",
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::registry;

    fn errors(text: &str) -> Vec<String> {
        match parse(
            "amlint.toml",
            Path::new("/nonexistent"),
            text.to_string(),
            ConfigFileKind::Amlint,
            registry::builtin(),
        ) {
            Ok(_) => Vec::new(),
            Err(e) => e
                .iter()
                .map(|e| {
                    let p = e.source.position(e.span.start);
                    format!(
                        "{}:{} {} | {}",
                        p.line,
                        p.column,
                        e.message,
                        e.help.clone().unwrap_or_default()
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn every_error_has_its_place() {
        let e = errors(
            "selct = [\"AML002\"]\nprofile = \"prod\"\nignore = [\"AML999\", 3]\n[severity]\nAML003 = \"warn\"\n",
        );
        assert_eq!(e.len(), 5, "{e:#?}");
        assert!(
            e[0].starts_with("1:1 unknown key `selct`") && e[0].contains("Did you mean `select`?"),
            "{e:#?}"
        );
        assert!(e[1].starts_with("2:11 `profile` must be"), "{e:#?}");
        assert!(e[2].starts_with("3:11 `AML999` is not"), "{e:#?}");
        assert!(e[3].starts_with("3:21 `ignore` must hold strings"), "{e:#?}");
        assert!(
            e[4].starts_with("5:10 `warn` is not a severity") && e[4].contains("`warning`"),
            "{e:#?}"
        );
    }

    #[test]
    fn syntax_errors_point_at_the_text() {
        let e = errors("select = [\"AML002\"\n");
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("not valid TOML"), "{e:?}");
    }

    #[test]
    fn pyproject_without_a_section_is_not_a_config() {
        let r = parse(
            "pyproject.toml",
            Path::new("/p"),
            "[project]\nname = \"x\"\n".into(),
            ConfigFileKind::Pyproject,
            registry::builtin(),
        );
        assert!(matches!(r, Ok(None)));
        let r = parse(
            "pyproject.toml",
            Path::new("/p"),
            "[tool.amlint]\nprofile = \"dev\"\n[tool.amlint.params]\nrequire_isolated_vms = true\n".into(),
            ConfigFileKind::Pyproject,
            registry::builtin(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.profile, Profile::Dev);
        assert_eq!(r.param("require_isolated_vms"), Some(&serde_json::json!(true)));
        let e = parse(
            "pyproject.toml",
            Path::new("/p"),
            "[tool.amlint]\nprofle = \"dev\"\n".into(),
            ConfigFileKind::Pyproject,
            registry::builtin(),
        )
        .unwrap_err();
        assert!(e[0].message.contains("`[tool.amlint]`"), "{e:?}");
    }

    #[test]
    fn params_are_those_rules_declare_with_their_types() {
        let e = errors("[params]\naproved_vm_series = [\"NCsv3\"]\nrequire_isolated_vms = \"yes\"\n");
        assert!(
            e[0].starts_with("2:1 no rule takes a parameter `aproved_vm_series`")
                && e[0].contains("Did you mean `approved_vm_series`?")
                && e[0].contains("approved_vm_series, require_isolated_vms"),
            "{e:#?}"
        );
        assert!(
            e[1].starts_with("3:24 `require_isolated_vms` takes a boolean") && e[1].contains("not a string"),
            "{e:#?}"
        );
        let e = errors("[params]\napproved_vm_series = \"NCsv3\"\n");
        assert!(e[0].contains("takes a list"), "{e:#?}");
    }

    #[test]
    fn params_and_inventory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("deploy")).unwrap();
        std::fs::write(dir.path().join("deploy/aci.json"), "{}").unwrap();
        let text = r#"
[params]
approved_vm_series = ["NCsv3"]
require_isolated_vms = true

[[inventory.computes]]
name = "gpu-cluster"
type = "AmlCompute"
size = "Standard_NC6s_v3"

[[inventory.models]]
name = "credit"
version = 3
size_bytes = 1_500_000_000

[[inventory.endpoints]]
name = "credit-endpoint"
compute = "aks-prod"

[inventory]
deployments = [{ config = "deploy/aci.json", model = "credit:3" }]
"#;
        let c = parse(
            "amlint.toml",
            dir.path(),
            text.into(),
            ConfigFileKind::Amlint,
            registry::builtin(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.param("approved_vm_series"), Some(&serde_json::json!(["NCsv3"])));
        assert_eq!(c.param("require_isolated_vms"), Some(&serde_json::json!(true)));
        assert_eq!(c.inventory.counts(), [1, 1, 1, 1, 0]);
        assert_eq!(
            c.inventory.compute("gpu-cluster").unwrap().compute_type,
            "amlcompute"
        );
        assert_eq!(c.inventory.model_versions("credit")[0].version, "3");
        assert_eq!(
            c.inventory.model("credit", "3").unwrap().size_bytes,
            Some(1_500_000_000)
        );
        assert_eq!(
            c.inventory
                .endpoint("credit-endpoint")
                .unwrap()
                .compute
                .as_deref(),
            Some("aks-prod")
        );
        let d = c
            .inventory
            .deployment_for(&dir.path().join("deploy/aci.json"))
            .unwrap();
        assert_eq!(d.config, dir.path().join("deploy/aci.json"));
        assert_eq!(d.models[0].to_string(), "credit:3");
        assert!(
            c.inventory
                .deployment_for(&dir.path().join("deploy/aci.json"))
                .is_some()
        );
    }

    #[test]
    fn inventory_errors() {
        let e = errors(
            "[[inventory.computes]]\nname = \"a\"\ntype = \"amlcomptue\"\ncolor = 1\n[[inventory.computes]]\ntype = \"aks\"\n[[inventory.models]]\nname = \"m\"\nversion = \"1\"\nsize_bytes = -1\n[[inventory.deployments]]\nconfig = \"missing.json\"\nmodel = \"m\"\n[inventory.extra]\n",
        );
        let joined = e.join("\n");
        assert!(
            joined.contains("`amlcomptue` is not an Azure ML compute type")
                && joined.contains("`amlcompute`"),
            "{joined}"
        );
        assert!(joined.contains("unknown key `color`"), "{joined}");
        assert!(joined.contains("has no `name`"), "{joined}");
        assert!(joined.contains("`size_bytes` must be"), "{joined}");
        assert!(joined.contains("`missing.json` is not a file"), "{joined}");
        assert!(joined.contains("`m` is not a model reference"), "{joined}");
        assert!(joined.contains("unknown key `extra`"), "{joined}");
    }

    #[test]
    fn globs_and_rules_dirs_are_validated() {
        let e = errors(
            "exclude = [\"a/[b\"]\nrules-dirs = [\"nope\"]\n[per-file-ignores]\n\"jobs/**\" = [\"dup-key\"]\n",
        );
        let joined = e.join("\n");
        assert!(joined.contains("not a valid glob"), "{joined}");
        assert!(
            joined.contains("rules directory `nope` does not exist"),
            "{joined}"
        );
        assert!(joined.contains("`dup-key` is not"), "{joined}");
    }
}
