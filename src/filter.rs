//! The one step between the checks and every output (human, JSON, SARIF, GitHub, JUnit,
//! the language server): it applies, in order,
//!
//! 1. the configuration: rules not selected, turned `off`, or in `[per-file-ignores]`
//!    drop out; `[severity]` overrides apply;
//! 2. fingerprints (for baselines and SARIF), over the findings that remain;
//! 3. inline suppressions (`# amlint: ignore[...]`), and AML009 for those that silenced
//!    nothing, AML010 for expired ones, AML011 for those without a reason under
//!    `require-reason` (all subject to the configuration);
//! 4. the baseline;
//! 5. the cap on findings per file (`Limits::max_findings_per_file`): the findings beyond
//!    it are replaced by one AML005 that counts them by severity.
//!
//! Silenced findings are kept apart ([`Suppressed`]): SARIF reports them with their
//! justification, the other formats leave them out.

use crate::baseline::{self, Baseline};
use crate::config::{CliSelection, Config, Selector};
use crate::diagnostic::{Diagnostic, Omitted, Severity, codes, count_omitted};
use crate::project::Project;
use crate::results::{FileReport, Suppressed, SuppressionKind};
use crate::source::Span;
use crate::suppress::{self, Suppressions};

/// What a run's options say about filtering each of its files.
pub struct RunFilter<'a> {
    /// `--select`/`--extend-select`/`--ignore`, on top of every configuration.
    pub selection: Option<&'a CliSelection>,
    pub baseline: Option<&'a Baseline>,
    /// [`crate::limits::Limits::max_findings_per_file`].
    pub max_findings: usize,
    /// The date expiry dates are compared with (`YYYY-MM-DD`); today when unset.
    pub today: Option<&'a str>,
    /// Show the findings that suppression comments and the baseline hide, each marked
    /// with what hides it (`--no-ignores`).
    pub no_ignores: bool,
}

/// Filters the report of one file of a run ([`apply`]), with its configuration and the
/// `[per-file-ignores]` entries that match it; with `no_ignores`, the silenced findings
/// are shown again, each marked.
pub fn file(
    report: &mut FileReport,
    suppressions: Option<&Suppressions>,
    complete: bool,
    config: &Config,
    project: &Project,
    run: &RunFilter<'_>,
) {
    // A file that was not checked has nothing to filter ([`apply`] leaves it as it is):
    // most files of a walk, which need none of the lookups below.
    if !report.checked {
        return;
    }
    let path = project.absolute(&report.source.path);
    let fingerprint_path = project.relative_path(&report.source.path);
    let ignores = config.file_ignores(&path);
    let today = run.today.map_or_else(crate::facts::today, str::to_string);
    apply(
        report,
        &FileContext {
            config,
            selection: run.selection,
            ignores: &ignores,
            fingerprint_path: &fingerprint_path,
            suppressions,
            complete,
            baseline: run.baseline,
            max_findings: run.max_findings,
            today: &today,
        },
    );
    if run.no_ignores && !report.suppressed.is_empty() {
        let shown = std::mem::take(&mut report.suppressed)
            .into_iter()
            .map(|s| s.into_shown());
        report.diagnostics.extend(shown);
        report
            .diagnostics
            .sort_by(|a, b| (a.span.start, a.span.end, a.code).cmp(&(b.span.start, b.span.end, b.code)));
    }
}

/// What the filter needs to know about one file.
pub struct FileContext<'a> {
    pub config: &'a Config,
    /// `--select`/`--extend-select`/`--ignore`, on top of the configuration.
    pub selection: Option<&'a CliSelection>,
    /// The selectors of the `[per-file-ignores]` entries that match the file
    /// ([`Config::file_ignores`]).
    pub ignores: &'a [&'a Selector],
    /// The path fingerprints use ([`crate::project::Project::relative_path`]).
    pub fingerprint_path: &'a str,
    /// Its suppression comments (`None` for JSON).
    pub suppressions: Option<&'a Suppressions>,
    /// The whole file was parsed (no syntax error cut it short).
    pub complete: bool,
    pub baseline: Option<&'a Baseline>,
    /// Most findings reported for the file ([`crate::limits::Limits::max_findings_per_file`]).
    pub max_findings: usize,
    /// The date suppression expiry dates are compared with (`YYYY-MM-DD`).
    pub today: &'a str,
}

/// The severity the configuration gives a finding of `code` made at `severity` in this
/// file, or `None` when it drops it.
fn configured(cx: &FileContext<'_>, code: &str, severity: Severity) -> Option<Severity> {
    if cx.config.is_enforced(code) {
        // An enforced rule may be raised, never lowered or dropped (AML012 reports the
        // entries that try).
        return Some(
            cx.config
                .rule_severity(code, severity)
                .map_or(severity, |s| s.max(severity)),
        );
    }
    if cx.ignores.iter().any(|s| s.matches_code(code)) {
        return None;
    }
    match cx.selection {
        Some(selection) => selection.severity(cx.config, code, severity),
        None => cx.config.rule_severity(code, severity),
    }
}

/// Applies the configuration to one finding: `false` drops it.
fn configure(cx: &FileContext<'_>, d: &mut Diagnostic) -> bool {
    match configured(cx, d.code, d.severity) {
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
        let enabled = |code: &str| configured(cx, code, Severity::Error).is_some();
        let (silenced, mut unused) = suppress::apply(
            &report.source,
            suppressions,
            &mut report.diagnostics,
            &enabled,
            cx.complete,
            suppress::Policy {
                today: cx.today,
                require_reason: cx.config.require_reason,
                enforced: &|code: &str| {
                    cx.config
                        .enforced(code)
                        .map(|e| e.describe())
                        .or_else(|| (code == codes::AML012.code).then(|| "amlint itself".to_string()))
                },
            },
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
                until: by.until,
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
                until: None,
            }));
    }
    sort(&mut report.diagnostics);
    report
        .suppressed
        .sort_by_key(|s| (s.diagnostic.span.start, s.diagnostic.span.end, s.diagnostic.code));
    // Findings only counted while checking get the configuration too (not suppressions:
    // they have no place to match).
    let mut omitted = Vec::new();
    for o in std::mem::take(&mut report.omitted) {
        if let Some(severity) = configured(cx, o.code, o.severity) {
            count_omitted(&mut omitted, o.code, severity, o.count);
        }
    }
    cap(&mut report.diagnostics, cx.max_findings, &omitted);
    report.omitted = omitted;
    report.suppressed.truncate(cx.max_findings);
    for d in report
        .diagnostics
        .iter_mut()
        .chain(report.suppressed.iter_mut().map(|s| &mut s.diagnostic))
    {
        bound_text(d);
    }
}

/// Longest text quoted from a file inside a message (between backticks), in characters.
const MAX_QUOTED: usize = 512;
/// Longest message, help or label, in bytes, after quotes are shortened.
const MAX_TEXT: usize = 4_096;

/// Bounds what a finding says: a value quoted from the file (a key or value of a
/// megabyte) is shortened in the middle, and the whole text is cut if still too long, so
/// that every output format prints a bounded amount per finding.
fn bound_text(d: &mut Diagnostic) {
    shorten(&mut d.message);
    if let Some(help) = d.help.as_mut() {
        shorten(help);
    }
    for label in &mut d.labels {
        shorten(&mut label.message);
    }
}

fn shorten(text: &mut String) {
    if text.len() <= MAX_QUOTED {
        return;
    }
    let mut out = String::with_capacity(text.len().min(MAX_TEXT + 16));
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let chars = part.chars().count();
        if i % 2 == 1 && chars > MAX_QUOTED {
            // Inside backticks: keep the start and the end of the quoted text.
            let head: String = part.chars().take(MAX_QUOTED - 20).collect();
            let tail: String = part.chars().skip(chars - 19).collect();
            out.push_str(&head);
            out.push('…');
            out.push_str(&tail);
        } else {
            out.push_str(part);
        }
        if out.len() > MAX_TEXT {
            break;
        }
    }
    if out.len() > MAX_TEXT {
        let mut end = MAX_TEXT;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    *text = out;
}

/// Keeps the first `max` findings (by position) and replaces the rest, with those only
/// counted while checking (`omitted`), by one AML005 at the first of them that counts them
/// by severity and carries the highest (so the exit code and the per-severity counts still
/// see that the file has errors).
fn cap(diagnostics: &mut Vec<Diagnostic>, max: usize, omitted: &[Omitted]) {
    let uncounted: usize = omitted.iter().map(|o| o.count).sum();
    if diagnostics.len() <= max && uncounted == 0 {
        return;
    }
    let kept = max.saturating_sub(1).min(diagnostics.len());
    let rest = diagnostics.split_off(kept);
    let count = |s: Severity| {
        rest.iter().filter(|d| d.severity == s).count()
            + omitted
                .iter()
                .filter(|o| o.severity == s)
                .map(|o| o.count)
                .sum::<usize>()
    };
    let counts: Vec<String> = [
        (Severity::Error, "error"),
        (Severity::Warning, "warning"),
        (Severity::Info, "info"),
    ]
    .into_iter()
    .filter_map(|(s, name)| match count(s) {
        0 => None,
        1 => Some(format!("1 {name}")),
        n => Some(format!("{n} {name}s")),
    })
    .collect();
    let highest = rest
        .iter()
        .map(|d| d.severity)
        .chain(omitted.iter().map(|o| o.severity))
        .max()
        .unwrap_or(Severity::Info);
    let at = rest
        .first()
        .or(diagnostics.last())
        .map_or(Span::at(0), |d| d.span);
    let summary = Diagnostic::new(
        codes::AML005,
        at,
        format!(
            "{} more findings in this file are not reported ({}): at most {max} findings are reported per file",
            rest.len() + uncounted,
            counts.join(", ")
        ),
    )
    .with_severity(highest)
    .with_help("Fix the findings shown (often one mistake repeated, such as a key written many times) and run amlint again to see the rest.");
    diagnostics.push(summary);
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_and_long_texts_are_shortened() {
        let mut m = format!("`{}` is not a key of a job", "k".repeat(1_000_000));
        shorten(&mut m);
        assert!(m.len() < MAX_QUOTED + 50, "{}", m.len());
        assert!(
            m.starts_with("`kkk") && m.contains('…') && m.ends_with("` is not a key of a job"),
            "{m}"
        );
        let mut short = "`instance_typ` is not a key; did you mean `instance_type`?".to_string();
        let before = short.clone();
        shorten(&mut short);
        assert_eq!(short, before);
        let mut long = "é".repeat(10_000);
        shorten(&mut long);
        assert!(long.len() <= MAX_TEXT + '…'.len_utf8() && long.ends_with('…'));
    }
}
