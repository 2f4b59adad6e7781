//! Output formats. Every format renders the same [`Report`](crate::results::Report) of
//! [`Diagnostic`](crate::diagnostic::Diagnostic)s; none computes positions itself (they
//! come from [`SourceFile`](crate::source::SourceFile)).

pub mod concise;
pub mod github;
pub mod human;
pub mod inventory;
pub mod json;
pub mod junit;
pub mod rule_page;
pub mod sarif;
mod snippet;
pub mod statistics;
mod summary;

use crate::diagnostic::Severity;

pub use summary::{HOME_URL, summary_line, summary_with_suppressed};

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
