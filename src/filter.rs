//! The one step between the checks and every output (human, JSON, SARIF, GitHub, JUnit,
//! the language server): it applies, in order,
//!
//! 1. the configuration: rules not selected, turned `off`, or in `[per-file-ignores]`
//!    drop out; `[severity]` overrides apply;
//! 2. fingerprints (for baselines and SARIF), over the findings that remain;
//! 3. inline suppressions (`# amlint: ignore[...]`), and AML009 for those that silenced
//!    nothing (itself subject to the configuration);
//! 4. the baseline.
//!
//! Silenced findings are kept apart ([`Suppressed`]): SARIF reports them with their
//! justification, the other formats leave them out.

use std::path::Path;

use crate::baseline::{self, Baseline};
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::pipeline::FileReport;
use crate::source::Span;
use crate::suppress::{self, Suppressions};

/// How a finding was silenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuppressionKind {
    /// A comment in the file (SARIF `inSource`).
    InSource,
    /// The baseline file (SARIF `external`).
    Baseline,
}

/// A finding that was silenced, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Suppressed {
    pub diagnostic: Diagnostic,
    pub kind: SuppressionKind,
    /// The reason written after the directive, or which baseline.
    pub justification: Option<String>,
    /// The directive that silenced it.
    pub directive: Option<Span>,
}

/// What the filter needs to know about one file.
pub struct FileContext<'a> {
    pub config: &'a Config,
    /// The file's absolute path (for `[per-file-ignores]`).
    pub path: &'a Path,
    /// The path fingerprints use ([`crate::project::Project::relative_path`]).
    pub fingerprint_path: &'a str,
    /// Its suppression comments (`None` for JSON).
    pub suppressions: Option<&'a Suppressions>,
    /// The whole file was parsed (no syntax error cut it short).
    pub complete: bool,
    pub baseline: Option<&'a Baseline>,
}

/// Applies the configuration to one finding: `false` drops it.
fn configure(cx: &FileContext<'_>, d: &mut Diagnostic) -> bool {
    if cx.config.ignored_for_file(cx.path, d.code) {
        return false;
    }
    match cx.config.rule_severity(d.code, d.severity) {
        Some(severity) => {
            d.severity = severity;
            true
        }
        None => false,
    }
}

fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.span.start, a.span.end, a.code, &a.message).cmp(&(b.span.start, b.span.end, b.code, &b.message))
    });
}

/// Filters one file's findings in place.
pub fn apply(report: &mut FileReport, cx: &FileContext<'_>) {
    if !report.checked {
        return;
    }
    report.diagnostics.retain_mut(|d| configure(cx, d));
    baseline::assign(cx.fingerprint_path, &report.source, &mut report.diagnostics);

    if let Some(suppressions) = cx.suppressions {
        let enabled = |code: &str| {
            !cx.config.ignored_for_file(cx.path, code)
                && cx.config.rule_severity(code, crate::Severity::Error).is_some()
        };
        let (silenced, mut unused) = suppress::apply(
            &report.source,
            suppressions,
            &mut report.diagnostics,
            &enabled,
            cx.complete,
        );
        unused.retain_mut(|d| configure(cx, d));
        baseline::assign(cx.fingerprint_path, &report.source, &mut unused);
        report.diagnostics.extend(unused);
        for (diagnostic, by) in silenced {
            let mut diagnostic = diagnostic;
            if diagnostic.fingerprint.is_none() {
                // AML009 findings silenced by an AML009 entry: configure and fingerprint
                // them like any other.
                if !configure(cx, &mut diagnostic) {
                    continue;
                }
                baseline::assign(
                    cx.fingerprint_path,
                    &report.source,
                    std::slice::from_mut(&mut diagnostic),
                );
            }
            report.suppressed.push(Suppressed {
                diagnostic,
                kind: SuppressionKind::InSource,
                justification: by.reason,
                directive: Some(by.directive),
            });
        }
    }

    if let Some(baseline) = cx.baseline {
        let (hidden, kept): (Vec<Diagnostic>, Vec<Diagnostic>) = report
            .diagnostics
            .drain(..)
            .partition(|d| d.fingerprint.as_deref().is_some_and(|f| baseline.contains(f)));
        report.diagnostics = kept;
        report
            .suppressed
            .extend(hidden.into_iter().map(|diagnostic| Suppressed {
                diagnostic,
                kind: SuppressionKind::Baseline,
                justification: Some(format!("recorded in the baseline {}", baseline.path)),
                directive: None,
            }));
    }
    sort(&mut report.diagnostics);
    report
        .suppressed
        .sort_by_key(|s| (s.diagnostic.span.start, s.diagnostic.span.end, s.diagnostic.code));
}
