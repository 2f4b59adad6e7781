//! Rule metadata: one YAML file per rule under `rules/<area>/`, embedded at build time.
//! Codes, names, default severities, summaries and docs come from here and nowhere else;
//! `amlint rules`, `amlint rule`, the generated `docs/rules/*.md`, every output format and
//! the language server read the same entries.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, OnceLock};

use serde::Deserialize;

use crate::data::{self, DataError};
use crate::diagnostic::{RuleId, Severity};
use crate::document::Document;
use crate::load::Format;
use crate::source::SourceFile;

/// Where the rule documentation pages (`docs/rules/<CODE>-<name>.md`) are published:
/// SARIF's `helpUri`, the language server's code descriptions and hovers.
pub const DOCS_BASE_URL: &str = "https://github.com/amlint/amlint/blob/main/docs/rules/";

/// Where the repository's files are published (a built-in rule's source file).
pub const REPO_BLOB_URL: &str = "https://github.com/amlint/amlint/blob/main/";

/// A rule file as written (`rules/<area>/<CODE>-<name>.yaml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    pub code: String,
    pub name: String,
    pub severity: Severity,
    pub summary: String,
    /// Implemented in Rust (`src/checks/`) rather than by a condition.
    #[serde(default)]
    pub native: bool,
    /// Declarative rules: the document kinds the rule applies to.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Declarative rules: the condition (compiled from the rule file's tree, so that its
    /// errors point at the rule file's line).
    #[serde(default)]
    pub when: Option<serde_json::Value>,
    /// Declarative rules: where to report, the message and the help.
    #[serde(default)]
    pub report: Option<ReportFile>,
    /// Severity per profile (`production: warning`), overriding `severity`.
    #[serde(default)]
    pub severity_by_profile: std::collections::BTreeMap<String, Severity>,
    /// Defaults of the rule's `$params.*`.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// "What it does" for the docs.
    pub what: String,
    /// "Why is this bad?" for the docs.
    pub why: String,
    /// Required unless `example_note` says why the rule has no text example.
    #[serde(default)]
    pub example: Option<Example>,
    #[serde(default)]
    pub example_note: Option<String>,
    #[serde(default)]
    pub references: Vec<String>,
    /// The fixes the rule offers, each with its applicability (the docs' "Fix" section;
    /// `amlint check --fix` applies the safe ones, `--unsafe-fixes` all).
    #[serde(default)]
    pub fix: Vec<FixDoc>,
}

/// A fix a rule offers, as its rule file describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixDoc {
    pub applicability: crate::diagnostic::Applicability,
    /// What the fix writes, for the docs.
    pub what: String,
    /// Declarative rules: the field the fix writes (a key of the document's top-level
    /// mapping, dotted for one below it) and its new value as YAML text. The value at the
    /// field is replaced; a field that is absent is added to its mapping.
    #[serde(default)]
    pub set: Option<SetField>,
    /// Declarative rules: the reported value's new text, a message template
    /// (`{$vm.closest|}`) rendered for each finding; no fix where it renders empty or
    /// to the text already there.
    #[serde(default)]
    pub replace: Option<String>,
}

/// `fix.set` of a declarative rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetField {
    pub field: String,
    pub value: String,
}

/// A rule's own failing and passing example, checked by the test suite.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// File name the examples are checked under (it decides JSON vs YAML and may decide
    /// the document kind).
    pub path: String,
    /// Must produce this rule's code (and nothing else that is an error).
    pub bad: String,
    /// Must not produce this rule's code.
    pub good: String,
    /// Other files of the example's project (path → text), for rules that look across
    /// files (a deployment and the compute it names).
    #[serde(default)]
    pub files: std::collections::BTreeMap<String, String>,
    /// The `amlint.toml` the example runs with (profile, params, inventory).
    #[serde(default)]
    pub config: Option<String>,
    /// Where the bad input's finding must be: its JSON pointer (`/gpuCores`), checked by
    /// `amlint test` (`# expect:` annotations in `bad` mark lines the same way).
    #[serde(default)]
    pub at: Option<String>,
}

/// The `report` section of a rule file, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportFile {
    pub at: OneOrMany,
    /// Where to report when `at` reaches nothing: the first of these that reaches a node.
    #[serde(default)]
    pub fallback: Option<OneOrMany>,
    #[serde(default)]
    pub span: ReportSpan,
    pub message: String,
    #[serde(default)]
    pub help: Option<String>,
}

/// What a finding covers of the node a rule reports (`report.span`; not `on`, which YAML
/// 1.1 reads as `true`): by default a scalar's value and a mapping's or list's key (its
/// text starts a line below); `key` puts it on the key of any node reached by a field path
/// (a key that marks the document, such as `computeType`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportSpan {
    #[default]
    Value,
    Key,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn items(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(s) => vec![s.as_str()],
            OneOrMany::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RuleMeta {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub summary: String,
    pub native: bool,
    pub what: String,
    pub why: String,
    pub example: Option<Example>,
    pub example_note: Option<String>,
    pub references: Vec<String>,
    /// Where the rule's file lives, relative to the repository (`rules/document/...`).
    pub source: String,
    /// A declarative rule as written (its file's text and tree, its `report` and
    /// severities by profile), compiled by the layer above (`ruleset`); `None` for a
    /// native rule.
    pub declarative: Option<Arc<Declarative>>,
    /// Parameters the rule reads, with their defaults.
    pub params: serde_json::Map<String, serde_json::Value>,
    /// The rule's severity under a profile, where it differs from `severity`
    /// (`production: error`); a native check reads it, a declarative rule's compiler too.
    pub severity_by_profile: std::collections::BTreeMap<String, Severity>,
    pub kinds: Vec<String>,
    /// The fixes the rule offers (`fix:` of its file).
    pub fixes: Vec<FixDoc>,
}

/// What the rule compiler needs of a declarative rule file: its tree (errors point into
/// its text) and the parts of the file the condition does not hold.
#[derive(Debug)]
pub struct Declarative {
    pub source: Arc<SourceFile>,
    pub doc: Document,
    pub report: ReportFile,
    pub severity_by_profile: std::collections::BTreeMap<String, Severity>,
}

impl RuleMeta {
    fn from_file(source: &str, file: RuleFile, declarative: Option<Declarative>) -> Self {
        Self {
            declarative: declarative.map(Arc::new),
            params: file.params,
            severity_by_profile: file.severity_by_profile,
            kinds: file.kinds,
            code: intern(&file.code),
            name: intern(&file.name),
            severity: file.severity,
            summary: file.summary,
            native: file.native,
            what: file.what,
            why: file.why,
            example: file.example,
            example_note: file.example_note,
            references: file.references,
            source: source.to_string(),
            fixes: file.fix,
        }
    }

    /// Its severity under `profile` (`dev`, `production`).
    pub fn severity_under(&self, profile: &str) -> Severity {
        self.severity_by_profile
            .get(profile)
            .copied()
            .unwrap_or(self.severity)
    }

    /// The identity its findings carry.
    pub fn id(&self) -> RuleId {
        RuleId {
            code: self.code,
            name: self.name,
            severity: self.severity,
        }
    }

    /// A built-in rule ships in the binary (`rules/...`); user rules come from
    /// `rules-dirs`.
    pub fn is_builtin(&self) -> bool {
        builtin().get(self.code).is_some_and(|b| b.source == self.source)
    }

    /// The documentation file name under `docs/rules/`.
    pub fn doc_file_name(&self) -> String {
        format!("{}-{}.md", self.code, self.name)
    }

    /// The published documentation page of the rule ([`DOCS_BASE_URL`] + file name).
    pub fn docs_url(&self) -> String {
        format!("{DOCS_BASE_URL}{}", self.doc_file_name())
    }
}

/// Interns a string for the life of the process; repeated calls with the same text
/// return the same allocation, so reloading rules does not grow memory.
pub fn intern(s: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static POOL: LazyLock<Mutex<HashSet<&'static str>>> = LazyLock::new(Default::default);
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(existing) = pool.get(s) {
        return existing;
    }
    let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
    pool.insert(leaked);
    leaked
}

/// All known rules, looked up by code or name.
#[derive(Debug, Default)]
pub struct Registry {
    rules: Vec<RuleMeta>,
    by_code: HashMap<&'static str, usize>,
    by_name: HashMap<&'static str, usize>,
}

impl Registry {
    /// Parses rule files (YAML); every malformed file is an error with its position.
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, Vec<DataError>> {
        Self::from_sources(files, Format::Yaml)
    }

    /// The built-in rules: `rules/**/*.yaml` as `build.rs` embeds them (converted to
    /// JSON, which parses several times faster; the test suite proves them equal).
    pub fn from_embedded() -> Result<Self, Vec<DataError>> {
        Self::from_sources(crate::embedded::RULE_FILES.iter().copied(), Format::Json)
    }

    fn from_sources<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
        format: Format,
    ) -> Result<Self, Vec<DataError>> {
        let mut registry = Registry::default();
        let mut errors = Vec::new();
        // Sequential on purpose: `builtin()` runs this inside a `OnceLock`. Rayon work
        // here would let this thread, or one helping it, steal an unrelated job that
        // waits on that same `OnceLock` — a deadlock (found by fuzzing, then by the test
        // suite's concurrent runs). The embedded rules parse in a few milliseconds.
        let parsed = files
            .into_iter()
            .map(|(path, text)| (path, Self::parse_file(path, text, format)));
        for (path, result) in parsed {
            match result {
                Ok(rule) => {
                    if let Err(e) = registry.add(rule) {
                        errors.push(DataError {
                            path: path.to_string(),
                            position: None,
                            message: e,
                        });
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            registry.rules.sort_by(|a, b| a.code.cmp(b.code));
            registry.reindex();
            Ok(registry)
        } else {
            Err(errors)
        }
    }

    /// Parses one rule file: its metadata, and for a declarative rule its tree (compiled by
    /// `ruleset`).
    fn parse_file(path: &str, text: &str, format: Format) -> Result<RuleMeta, DataError> {
        let (source, doc) = data::parse(path, text, format)?;
        Self::rule_of(path, source, doc)
    }

    /// A parsed rule file's rule.
    fn rule_of(path: &str, source: Arc<SourceFile>, doc: Document) -> Result<RuleMeta, DataError> {
        let file: RuleFile = data::from_document(path, &source, &doc)?;
        let declarative = match (&file.when, &file.report, file.native) {
            (None, None, true) => None,
            (Some(_), Some(report), false) => Some(Declarative {
                source: source.clone(),
                doc,
                report: report.clone(),
                severity_by_profile: file.severity_by_profile.clone(),
            }),
            (_, _, true) => {
                return Err(data::error_at(
                    path,
                    &source,
                    doc.span,
                    "a `native: true` rule has no `when` or `report`: its check is written in Rust",
                ));
            }
            _ => {
                return Err(data::error_at(
                    path,
                    &source,
                    doc.span,
                    "a declarative rule needs both `when` (the condition) and `report` (where and what to say); a Rust-implemented rule says `native: true`",
                ));
            }
        };
        Ok(RuleMeta::from_file(path, file, declarative))
    }

    fn add(&mut self, rule: RuleMeta) -> Result<(), String> {
        if !is_code(rule.code) {
            return Err(format!(
                "`{}` is not a rule code: use capital letters followed by digits (AML123)",
                rule.code
            ));
        }
        if !is_kebab(rule.name) {
            return Err(format!("rule name `{}` is not kebab-case", rule.name));
        }
        if self.by_code.contains_key(rule.code) {
            return Err(format!("rule code {} is defined twice", rule.code));
        }
        if self.by_name.contains_key(rule.name) {
            return Err(format!("rule name {} is defined twice", rule.name));
        }
        if rule.example.is_some() == rule.example_note.is_some() {
            return Err(format!(
                "rule {} needs exactly one of `example` (a bad and a good input) or `example_note` (why there can be none)",
                rule.code
            ));
        }
        self.by_code.insert(rule.code, self.rules.len());
        self.by_name.insert(rule.name, self.rules.len());
        self.rules.push(rule);
        Ok(())
    }

    fn reindex(&mut self) {
        self.by_code = self.rules.iter().enumerate().map(|(i, r)| (r.code, i)).collect();
        self.by_name = self.rules.iter().enumerate().map(|(i, r)| (r.name, i)).collect();
    }

    pub fn get(&self, code: &str) -> Option<&RuleMeta> {
        self.by_code.get(code).map(|&i| &self.rules[i])
    }

    /// Finds a rule by code (`AML002`, any case) or name (`duplicate-key`).
    pub fn find(&self, code_or_name: &str) -> Option<&RuleMeta> {
        let upper = code_or_name.to_ascii_uppercase();
        self.by_code
            .get(upper.as_str())
            .or_else(|| self.by_name.get(code_or_name))
            .map(|&i| &self.rules[i])
    }

    pub fn rules(&self) -> &[RuleMeta] {
        &self.rules
    }
}

fn is_code(s: &str) -> bool {
    let letters = s.bytes().take_while(u8::is_ascii_uppercase).count();
    letters > 0 && letters < s.len() && s.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The built-in rules, parsed once. Parsing uses the loader, which builds diagnostics;
/// they take rule names from `diagnostic::codes`, never from here, so neither this
/// initialisation (which would wait on itself) nor another thread loading embedded data
/// at the same time (which would wait on this one while it waits on that data) can
/// deadlock. The initialisation runs no rayon work (see `from_sources`).
static BUILTIN: OnceLock<Arc<Registry>> = OnceLock::new();

fn load_builtin() -> Arc<Registry> {
    let registry = Registry::from_embedded().unwrap_or_else(|errors| {
        // The test suite parses every embedded rule file, so this only happens in a build
        // whose tests were not run; report and go on with no rules rather than crash.
        for e in errors {
            eprintln!("amlint: internal error in built-in rule file {e}");
        }
        Registry::default()
    });
    Arc::new(registry)
}

/// The built-in rules shipped in the binary.
pub fn builtin() -> &'static Registry {
    BUILTIN.get_or_init(load_builtin)
}

/// The built-in rules, shared.
pub fn builtin_arc() -> Arc<Registry> {
    BUILTIN.get_or_init(load_builtin).clone()
}

/// Reads the rule files (`*.yaml`, `*.yml`) of `dirs` and of the directories below
/// them, with their display paths, sorted. Links are followed only to where `boundary`
/// allows (the configuration's project), each directory is read once (a link loop
/// ends), and rule files are regular files within the checked-file size limit.
pub fn read_rule_dirs(
    dirs: &[std::path::PathBuf],
    boundary: &crate::fsio::Boundary,
) -> Result<Vec<(String, String)>, Vec<DataError>> {
    use crate::fsio::Seen;
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut visited: HashSet<std::path::PathBuf> = HashSet::new();
    let limits = crate::limits::Limits::default();
    let error = |path: &std::path::Path, message: String| DataError {
        path: crate::fsio::shown(path),
        position: None,
        message,
    };
    /// Most entries of one rules directory.
    const MAX_ENTRIES: usize = 10_000;
    for dir in dirs {
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            // Each directory once, by its real path (resolved inside the project, never
            // looking outside it): a link loop ends, and a link that leaves the project
            // is refused whether or not its target exists.
            let real = match boundary.resolve_named(&d) {
                Ok(real) => real,
                Err(crate::fsio::Refusal::Missing | crate::fsio::Refusal::Dangling) => {
                    errors.push(error(&d, "this rules directory does not exist".to_string()));
                    continue;
                }
                Err(r) => {
                    errors.push(error(&d, r.describe()));
                    continue;
                }
            };
            if !visited.insert(real.clone()) {
                continue;
            }
            let entries = match crate::fsio::list_dir(&real, boundary, MAX_ENTRIES) {
                Ok(entries) => entries,
                Err(crate::fsio::Refusal::Io(_)) => {
                    errors.push(error(&d, "this rules directory is not a directory".to_string()));
                    continue;
                }
                Err(r) => {
                    errors.push(error(&d, format!("cannot read this directory: {}", r.describe())));
                    continue;
                }
            };
            for (name, kind) in entries {
                let p = d.join(&name);
                match kind {
                    Some(crate::fsio::Looked::Dir) => stack.push(p),
                    // A link: a directory it leads to is entered (by its real path, above);
                    // a file is read like any file named through a link.
                    None if matches!(crate::fsio::look(&p, boundary), Ok(crate::fsio::Looked::Dir)) => {
                        stack.push(p)
                    }
                    _ if p.extension().is_some_and(|e| e == "yaml" || e == "yml") => {
                        let seen = if matches!(kind, Some(crate::fsio::Looked::File { .. })) {
                            Seen::Listed
                        } else {
                            Seen::Unknown
                        };
                        match crate::load::read_text_seen(&real.join(&name), seen, boundary, &limits) {
                            Ok(text) => files.push((p.display().to_string(), text)),
                            Err(d) => errors.push(error(&p, d.diagnostic.message)),
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    files.sort();
    if errors.is_empty() { Ok(files) } else { Err(errors) }
}

/// Most bytes of keys and strings that aliases and merge keys may add to the user rule
/// files of one configuration together, beyond what their documents hold as written. A
/// rule file's data is kept for the whole run (its examples are written out by `amlint
/// test`), so the loader's bound for one file (8 MiB whatever its size) would let many
/// small rule files hold far more than their text: this one keeps a configuration's rules
/// within their text plus this much.
pub const MAX_RULE_ALIAS_BYTES: u64 = 1024 * 1024;

/// Most nodes aliases and merge keys may add to the user rule files of one configuration
/// together, as [`MAX_RULE_ALIAS_BYTES`] for bytes.
pub const MAX_RULE_ALIAS_NODES: u64 = 25_000;

/// What aliases have added so far to a configuration's rule files, in nodes and bytes.
#[derive(Default)]
struct AliasBudget {
    nodes: u64,
    bytes: u64,
}

impl AliasBudget {
    /// Counts what `doc`'s aliases add to it (its expansion beyond its nodes as written
    /// and its text), refusing the file, at its first alias, when the rule files read so
    /// far go over the bounds together. Linear in the document's nodes: nothing is
    /// expanded.
    fn take(&mut self, path: &str, source: &SourceFile, doc: &Document) -> Result<(), DataError> {
        let depth = crate::limits::Limits::default().max_depth;
        // The loader has already bounded the document's expansion.
        let (nodes, bytes) = doc
            .expansion(u64::MAX, u64::MAX, depth)
            .unwrap_or((u64::MAX, u64::MAX));
        let nodes = self
            .nodes
            .saturating_add(nodes.saturating_sub(doc.nodes.len() as u64));
        let bytes = self
            .bytes
            .saturating_add(bytes.saturating_sub(source.text.len() as u64));
        if nodes <= MAX_RULE_ALIAS_NODES && bytes <= MAX_RULE_ALIAS_BYTES {
            // A refused file is not kept: only accepted ones use the budget.
            (self.nodes, self.bytes) = (nodes, bytes);
            return Ok(());
        }
        let alias = doc
            .nodes
            .iter()
            .find(|n| matches!(n.value, crate::document::Value::Alias(_)))
            .map_or(doc.span, |n| n.span);
        Err(data::error_at(
            path,
            source,
            alias,
            format!(
                "aliases make the rule files of this configuration larger than written by more than {} or {} nodes together (the rule files' alias expansion limit): each alias or merge key repeats its anchor's whole content, and a rule's data is kept for the whole run",
                crate::fsio::human_size(MAX_RULE_ALIAS_BYTES),
                MAX_RULE_ALIAS_NODES
            ),
        ))
    }
}

impl Registry {
    /// The built-in rules plus user rules. User rules must use their own code prefix
    /// (`AML` is reserved) and names that no other rule has.
    pub fn with_user_rules(user_files: &[(String, String)]) -> Result<Arc<Registry>, Vec<DataError>> {
        if user_files.is_empty() {
            return Ok(builtin_arc());
        }
        let mut registry = Registry {
            rules: builtin().rules.clone(),
            ..Registry::default()
        };
        registry.reindex();
        let mut errors = Vec::new();
        let mut added = AliasBudget::default();
        for (path, text) in user_files {
            let parsed = data::parse(path, text, Format::Yaml)
                .and_then(|(source, doc)| added.take(path, &source, &doc).map(|()| (source, doc)))
                .and_then(|(source, doc)| Self::rule_of(path, source, doc));
            match parsed {
                Ok(rule) if rule.code.starts_with("AML") => errors.push(DataError {
                    path: path.clone(),
                    position: None,
                    message: format!("`{}`: the AML prefix is reserved for built-in rules; give user rules a prefix of your own (ACME101)", rule.code),
                }),
                Ok(rule) if rule.native => errors.push(DataError {
                    path: path.clone(),
                    position: None,
                    message: format!("`{}`: user rules are declarative (`when` and `report`); `native: true` is for rules built into amlint", rule.code),
                }),
                Ok(rule) => {
                    if let Err(e) = registry.add(rule) {
                        errors.push(DataError {
                            path: path.clone(),
                            position: None,
                            message: e,
                        });
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        registry.rules.sort_by(|a, b| a.code.cmp(b.code));
        registry.reindex();
        Ok(Arc::new(registry))
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_rule_file_parses() {
        let registry = Registry::from_embedded().unwrap_or_else(|errors| {
            panic!(
                "{}",
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        assert!(registry.get("AML001").is_some());
        assert_eq!(registry.find("duplicate-key").map(|r| r.code), Some("AML002"));
        assert_eq!(registry.find("aml002").map(|r| r.name), Some("duplicate-key"));
    }

    #[test]
    fn rule_file_errors_point_at_the_line() {
        let text = "code: AML900\nname: x\nseverity: fatal\nsummary: s\nwhat: w\nwhy: y\nexample_note: n\n";
        let err = Registry::from_files([("rules/x.yaml", text)]).unwrap_err();
        let e = &err[0];
        assert_eq!(e.position.map(|p| p.line), Some(3), "{e}");
        assert!(e.message.contains("severity"), "{e}");
    }

    #[test]
    fn user_rules_extend_the_builtin_ones() {
        let rule = "code: ACME101\nname: no-big-clusters\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\nexample_note: n\nkinds: [amlCompute]\nwhen: {field: max_instances, greater: 10}\nreport: {at: max_instances, message: too many}\n";
        let registry = Registry::with_user_rules(&[("acme/big.yaml".to_string(), rule.to_string())]).unwrap();
        assert!(registry.get("ACME101").is_some_and(|r| r.declarative.is_some()));
        assert!(registry.get("AML002").is_some());
        let reserved = rule.replace("ACME101", "AML999");
        let err = Registry::with_user_rules(&[("acme/big.yaml".to_string(), reserved)]).unwrap_err();
        assert!(err[0].message.contains("reserved"), "{}", err[0]);
    }

    #[test]
    fn codes_and_names_are_checked() {
        assert!(is_code("AML001") && is_code("ACME12") && !is_code("aml1") && !is_code("AML"));
        assert!(is_kebab("duplicate-key") && !is_kebab("Duplicate") && !is_kebab("a--b"));
    }
}
