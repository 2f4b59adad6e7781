//! Output formats. Every format renders the same [`Report`](crate::results::Report) of
//! [`Diagnostic`](crate::diagnostic::Diagnostic)s; none computes positions itself (they
//! come from [`SourceFile`](crate::source::SourceFile)).

pub mod concise;
pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod rule_page;
pub mod sarif;
mod snippet;
pub mod statistics;

use crate::diagnostic::Severity;
use crate::results::Summary;

/// The project's home page.
pub const HOME_URL: &str = "https://github.com/amlint/amlint";

/// The output formats of `amlint check --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Findings with source snippets, for people.
    Human,
    /// The stable JSON contract (docs/json-output.md).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands: annotations on pull requests.
    Github,
    /// JUnit XML: one test case per checked file, for Azure DevOps, GitLab, Jenkins.
    Junit,
    /// One line per finding: `path:line:col: CODE [severity] message`.
    Concise,
}

impl OutputFormat {
    /// Human and concise output, read by people; the others are documents for machines.
    pub fn for_people(self) -> bool {
        matches!(self, OutputFormat::Human | OutputFormat::Concise)
    }
}

/// How a report is rendered.
#[derive(Clone, Copy, Debug)]
pub struct Render {
    pub format: OutputFormat,
    /// The count of findings of each rule (`--statistics`) instead of the findings.
    pub statistics: bool,
    /// Colour and width of human output.
    pub style: human::TerminalStyle,
    /// Errors and warnings only: no infos, no summary line (human, concise, GitHub).
    pub quiet: bool,
    /// The lowest severity that fails the run (JUnit marks those cases failed).
    pub fail_on: Option<Severity>,
}

/// The report in the format asked for: the one place an output format is picked.
pub fn render(report: &crate::results::Report, how: &Render) -> String {
    match (how.format, how.statistics) {
        (OutputFormat::Json, true) => statistics::render_json(report),
        (_, true) => statistics::render(report),
        (OutputFormat::Human, false) => human::render(report, how.style, how.quiet),
        (OutputFormat::Concise, false) => concise::render(report, how.quiet),
        (OutputFormat::Json, false) => json::render(report),
        (OutputFormat::Sarif, false) => sarif::render(report),
        (OutputFormat::Github, false) => github::render(report, how.quiet),
        (OutputFormat::Junit, false) => junit::render(report, how.fail_on),
    }
}

/// Whether a finding of `severity` fails the run when findings at `fail_on` or above do
/// (`None`: nothing fails).
pub fn fails(severity: Severity, fail_on: Option<Severity>) -> bool {
    fail_on.is_some_and(|f| severity >= f)
}

/// The one-line summary: "12 files checked, 3 skipped: 1 error, 2 warnings; 5 infos".
pub fn summary_line(s: &Summary) -> String {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let files = format!(
        "{} checked, {} skipped",
        plural(s.files_checked, "file", "files"),
        s.files_skipped
    );
    // Infos come after the errors and warnings, apart: they inform, they do not fail a
    // run unless `--fail-on info` says so (and `--quiet` leaves them out).
    match (s.errors + s.warnings, s.infos) {
        (0, 0) => format!("{files}: no problems found"),
        (_, 0) => format!(
            "{files}: {}, {}",
            plural(s.errors, "error", "errors"),
            plural(s.warnings, "warning", "warnings"),
        ),
        (0, _) => format!(
            "{files}: no errors or warnings; {}",
            plural(s.infos, "info", "infos")
        ),
        _ => format!(
            "{files}: {}, {}; {}",
            plural(s.errors, "error", "errors"),
            plural(s.warnings, "warning", "warnings"),
            plural(s.infos, "info", "infos")
        ),
    }
}

/// The summary line, followed by how many findings were silenced (inline suppressions,
/// the baseline) when there are any, so that a clean result never hides them.
pub fn summary_with_suppressed(report: &crate::results::Report) -> String {
    let mut line = summary_line(&report.summary());
    let (inline, baseline) =
        report
            .files
            .iter()
            .flat_map(|f| &f.suppressed)
            .fold((0, 0), |(i, b), s| match s.kind {
                crate::results::SuppressionKind::InSource => (i + 1, b),
                crate::results::SuppressionKind::Baseline => (i, b + 1),
            });
    let mut parts = Vec::new();
    if inline > 0 {
        parts.push(format!("{inline} suppressed by comments"));
    }
    if baseline > 0 {
        parts.push(format!("{baseline} hidden by the baseline"));
    }
    if !parts.is_empty() {
        line.push_str(&format!(" ({})", parts.join(", ")));
    }
    line
}
