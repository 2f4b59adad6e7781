//! The one `Diagnostic` type that every check produces and every output (human, JSON,
//! SARIF, GitHub, JUnit, LSP) renders.

use serde::{Deserialize, Serialize};

use crate::document::Pointer;
use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary location with its own message ("first defined here").
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A text replacement that resolves a finding (applied by `--fix` and LSP code actions).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

/// Whether a fix may be applied without asking (`amlint check --fix`) or only when the
/// user accepts a change of behaviour (`--unsafe-fixes`). Each rule decides, and says so
/// in its rule file's `fix:` entries (the docs' "Fix" section).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Changes what the Azure ML CLI or SDK does with the file (`min_instances: 0`, the
    /// value the user probably meant rather than the one the CLI reads today).
    Unsafe,
    /// Keeps the meaning the CLI sees (quoting a value as the CLI already reads it,
    /// renaming a key misspelt by one letter to the one key it can be).
    Safe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

impl std::fmt::Display for Applicability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
    pub applicability: Applicability,
}

impl Fix {
    /// A fix made of `edits`.
    pub fn new(applicability: Applicability, title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Fix {
            title: title.into(),
            edits,
            applicability,
        }
    }

    /// A fix that replaces one span's text.
    pub fn replace(
        applicability: Applicability,
        title: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Self {
        Self::new(
            applicability,
            title,
            vec![Edit {
                span,
                replacement: replacement.into(),
            }],
        )
    }

    pub fn is_safe(&self) -> bool {
        self.applicability == Applicability::Safe
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Stable code (`AML002`).
    pub code: &'static str,
    /// Kebab-case rule name (`duplicate-key`).
    pub name: &'static str,
    pub severity: Severity,
    pub message: String,
    /// The exact text the finding is about.
    pub span: Span,
    /// The symbolic route to the node (`/resources/instance_count`), when there is one.
    pub pointer: Option<Pointer>,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// The document kind (`commandJob`) the finding belongs to, once classified.
    pub kind: Option<&'static str>,
    /// The preferred fix (applied by `--fix` when safe, by `--unsafe-fixes` in any case).
    pub fix: Option<Fix>,
    /// Other fixes, in order of preference: the first allowed one is applied (a safe one
    /// by `--fix` when the preferred one is unsafe); editors offer them all.
    pub other_fixes: Vec<Fix>,
    /// What the finding is about, independent of its line (see `baseline`): set by the
    /// pipeline after the checks; baselines and SARIF `partialFingerprints` use it.
    pub fingerprint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of a built-in rule, with the rule's name and default severity.
    pub fn new(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        // From the table `build.rs` makes of the rule files, not from the registry: files
        // load (and make findings) while the registry is still being read.
        let ids = crate::embedded::RULE_IDS;
        let (name, severity) = match ids.binary_search_by(|(c, ..)| (*c).cmp(code)) {
            Ok(i) => (ids[i].1, ids[i].2),
            Err(_) => {
                debug_assert!(false, "rule {code} has no metadata under rules/");
                ("unknown-rule", Severity::Error)
            }
        };
        Self {
            code,
            name,
            severity,
            message: message.into(),
            span,
            pointer: None,
            labels: Vec::new(),
            help: None,
            kind: None,
            fix: None,
            other_fixes: Vec::new(),
            fingerprint: None,
        }
    }

    /// A diagnostic of any rule (built-in or user), from its metadata.
    pub fn for_rule(rule: &crate::registry::RuleMeta, span: Span, message: impl Into<String>) -> Self {
        Self {
            code: rule.code,
            name: rule.name,
            severity: rule.severity,
            message: message.into(),
            span,
            pointer: None,
            labels: Vec::new(),
            help: None,
            kind: None,
            fix: None,
            other_fixes: Vec::new(),
            fingerprint: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_pointer(mut self, pointer: Pointer) -> Self {
        self.pointer = Some(pointer);
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Adds a fix: the first is the preferred one ([`Diagnostic::fix`]), later ones are
    /// alternatives ([`Diagnostic::other_fixes`]).
    pub fn with_fix(mut self, fix: Fix) -> Self {
        if self.fix.is_none() {
            self.fix = Some(fix);
        } else {
            self.other_fixes.push(fix);
        }
        self
    }

    /// [`Self::with_fix`] for each of `fixes`, in order.
    pub fn with_fixes(self, fixes: impl IntoIterator<Item = Fix>) -> Self {
        fixes.into_iter().fold(self, Self::with_fix)
    }

    /// Every fix, the preferred one first.
    pub fn fixes(&self) -> impl Iterator<Item = &Fix> {
        self.fix.iter().chain(&self.other_fixes)
    }

    /// The first fix allowed when unsafe fixes are (`unsafe_fixes`) or are not applied.
    pub fn fix_for(&self, unsafe_fixes: bool) -> Option<&Fix> {
        self.fixes().find(|f| unsafe_fixes || f.is_safe())
    }
}

/// Findings of one kind that were counted but not kept ([`Findings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Omitted {
    pub code: &'static str,
    pub severity: Severity,
    pub count: usize,
}

/// A file's findings as the loader and the checks make them, bounded: once `cap` are kept,
/// a further finding is only counted, by code and severity. Memory and output then stay
/// proportional to the cap whatever the input (a file can hold a million repeated keys);
/// `filter` reports the count ([`crate::load::Limits::max_findings_per_file`]).
#[derive(Debug, Default)]
pub struct Findings {
    list: Vec<Diagnostic>,
    cap: usize,
    omitted: Vec<Omitted>,
}

impl Findings {
    pub fn new(cap: usize) -> Self {
        Self::from_parts(Vec::new(), Vec::new(), cap)
    }

    /// Findings already made (kept and counted), to add more to.
    pub fn from_parts(list: Vec<Diagnostic>, omitted: Vec<Omitted>, cap: usize) -> Self {
        Self { list, cap, omitted }
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        if self.list.len() < self.cap {
            self.list.push(diagnostic);
        } else {
            count_omitted(&mut self.omitted, diagnostic.code, diagnostic.severity, 1);
        }
    }

    /// For steps that edit or remove kept findings (never add: that is [`Self::push`]).
    pub fn kept_mut(&mut self) -> &mut Vec<Diagnostic> {
        &mut self.list
    }

    pub fn into_parts(self) -> (Vec<Diagnostic>, Vec<Omitted>) {
        (self.list, self.omitted)
    }
}

/// Adds `count` findings of `code` at `severity` to the counts.
pub fn count_omitted(omitted: &mut Vec<Omitted>, code: &'static str, severity: Severity, count: usize) {
    match omitted
        .iter_mut()
        .find(|o| o.code == code && o.severity == severity)
    {
        Some(o) => o.count += count,
        None => omitted.push(Omitted {
            code,
            severity,
            count,
        }),
    }
}

impl Extend<Diagnostic> for Findings {
    fn extend<I: IntoIterator<Item = Diagnostic>>(&mut self, iter: I) {
        for d in iter {
            self.push(d);
        }
    }
}

impl std::ops::Deref for Findings {
    type Target = [Diagnostic];

    fn deref(&self) -> &[Diagnostic] {
        &self.list
    }
}
