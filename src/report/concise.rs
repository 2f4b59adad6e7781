//! `--format concise`: one line per finding, `path:line:col: CODE [severity] message`,
//! then the summary line (not with `--quiet`, which also leaves infos out). Paths and
//! messages are escaped ([`crate::escape`]); a finding `--fix` can fix ends with `[*]`.

use crate::diagnostic::Severity;
use crate::escape;
use crate::results::Report;

/// The findings of `report`, one line each, and the summary line.
pub fn render(report: &Report, quiet: bool) -> String {
    let mut out = String::new();
    for (file, d) in report.diagnostics() {
        if quiet && d.severity == Severity::Info {
            continue;
        }
        let at = file.source.position(d.span.start);
        out.push_str(&format!(
            "{}:{}:{}: {} [{}] {}{}\n",
            escape::control(&file.source.path),
            at.line,
            at.column,
            escape::control(d.code),
            d.severity,
            escape::control(&d.message),
            if d.fix_for(false).is_some() { " [*]" } else { "" }
        ));
    }
    if !quiet {
        out.push_str(&super::summary::summary_with_suppressed(report));
        out.push('\n');
    }
    escape::workflow_commands(out)
}
