//! The summary lines every human output ends with, and the project's home address: what
//! the formats share, below them (the folder's `mod.rs` picks the format and calls them).

use crate::results::Summary;

/// Where amlint lives (SARIF's `informationUri`, rule links).
pub const HOME_URL: &str = "https://github.com/amlint/amlint";

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
