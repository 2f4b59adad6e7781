//! JSON output, version 1: a stable contract for CI tools and editors (documented in
//! `docs/json-output.md`). Field meanings never change within a version; new fields may
//! be added.

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::results::{FileReport, Report, Summary};
use crate::source::{Position, SourceFile, Span};

pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct Output<'a> {
    version: u32,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: Summary,
    /// Only when the configuration could not be used (nothing was checked; exit 2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    configuration_errors: Vec<JsonConfigError<'a>>,
    tool: Tool,
}

/// Which amlint made the output, and from which data (`amlint --version` says the same).
#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
    /// The Azure ML SDK release the kind schemas were generated from.
    schemas: &'static str,
    /// The date the VM catalogue was last checked against its sources.
    vm_catalogue: &'static str,
}

/// This build's [`Tool`].
const TOOL: Tool = Tool {
    name: "amlint",
    version: env!("CARGO_PKG_VERSION"),
    schemas: env!("AMLINT_SCHEMA_SOURCE"),
    vm_catalogue: env!("AMLINT_VM_CATALOGUE_DATE"),
};

/// A configuration error: where in which configuration file, what, and what to do.
#[derive(Serialize)]
struct JsonConfigError<'a> {
    path: &'a str,
    /// `null` when the file could not be read.
    range: Option<Range>,
    message: &'a str,
    help: Option<&'a str>,
}

#[derive(Serialize)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

impl Range {
    pub fn of(source: &SourceFile, span: Span) -> Self {
        Self {
            start: source.position(span.start),
            end: source.position(span.end),
        }
    }
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    message: &'a str,
    range: Range,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    name: &'a str,
    severity: &'a str,
    message: &'a str,
    path: &'a str,
    kind: Option<&'a str>,
    range: Range,
    pointer: Option<String>,
    help: Option<&'a str>,
    labels: Vec<JsonLabel<'a>>,
    /// Only when `range` is wider than the text the finding is about (a compute defined
    /// outside Azure ML YAML, reported from the definition's first line): that text.
    #[serde(skip_serializing_if = "Option::is_none")]
    focus: Option<Range>,
    /// Only on a finding a suppression or the baseline hides, shown by `--no-ignores`.
    #[serde(skip_serializing_if = "Option::is_none")]
    suppressed: Option<JsonIgnored<'a>>,
}

/// What would hide a finding shown by `--no-ignores`.
#[derive(Serialize)]
struct JsonIgnored<'a> {
    /// `comment` or `baseline`.
    by: &'a str,
    justification: Option<&'a str>,
    /// The comment's expiry date (`until YYYY-MM-DD`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    until: Option<&'a str>,
}

fn diagnostic<'a>(file: &'a FileReport, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        code: d.code,
        name: d.name,
        severity: d.severity.as_str(),
        message: &d.message,
        path: &file.source.path,
        kind: d.kind,
        range: Range::of(&file.source, d.span),
        pointer: d.pointer.as_ref().map(ToString::to_string),
        help: d.help.as_deref(),
        labels: d
            .labels
            .iter()
            .map(|l| JsonLabel {
                message: &l.message,
                range: Range::of(&file.source, l.span),
            })
            .collect(),
        focus: d.focus.map(|f| Range::of(&file.source, f)),
        suppressed: d.ignored.as_deref().map(|i| JsonIgnored {
            by: match i.kind {
                crate::diagnostic::SuppressionKind::InSource => "comment",
                crate::diagnostic::SuppressionKind::Baseline => "baseline",
            },
            justification: i.justification.as_deref(),
            until: i.until.as_deref(),
        }),
    }
}

pub fn render(report: &Report) -> String {
    let output = Output {
        version: VERSION,
        diagnostics: report.diagnostics().map(|(f, d)| diagnostic(f, d)).collect(),
        summary: report.summary(),
        configuration_errors: report
            .config_errors
            .iter()
            .map(|e| JsonConfigError {
                path: &e.source.path,
                range: (!e.source.text.is_empty()).then(|| Range::of(&e.source, e.span)),
                message: &e.message,
                help: e.help.as_deref(),
            })
            .collect(),
        tool: TOOL,
    };
    let mut s = crate::escape::to_json_pretty(&output).unwrap_or_else(|e| {
        format!("{{\"version\": {VERSION}, \"error\": \"cannot serialise the report: {e}\"}}")
    });
    s.push('\n');
    s
}
