//! The one `Diagnostic` type that every check produces and every output (human, JSON,
//! SARIF, GitHub, JUnit, LSP) renders.

use serde::{Deserialize, Serialize};

use crate::source::Pointer;
use crate::source::Span;

/// A rule's identity as its findings carry it: code, name and default severity (the rest
/// of a rule — docs, examples, condition — is the registry's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleId {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
}

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
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
}

impl Fix {
    /// A fix that replaces one span's text.
    pub fn replace(title: impl Into<String>, span: Span, replacement: impl Into<String>) -> Self {
        Fix {
            title: title.into(),
            edits: vec![Edit {
                span,
                replacement: replacement.into(),
            }],
        }
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
    pub fix: Option<Fix>,
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
            fingerprint: None,
        }
    }

    /// A diagnostic of any rule (built-in or user), from its identity.
    pub fn for_rule(rule: RuleId, span: Span, message: impl Into<String>) -> Self {
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

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
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
/// `filter` reports the count ([`crate::limits::Limits::max_findings_per_file`]).
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
