//! Output formats. Every format renders the same [`Report`](crate::pipeline::Report) of
//! [`Diagnostic`](crate::diagnostic::Diagnostic)s; none computes positions itself (they
//! come from [`SourceFile`](crate::source::SourceFile)).

pub mod human;
pub mod json;

use crate::pipeline::Summary;

/// The one-line summary: "12 files checked, 3 skipped: 1 error, 2 warnings".
pub fn summary_line(s: &Summary) -> String {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let files = format!(
        "{} checked, {} skipped",
        plural(s.files_checked, "file", "files"),
        s.files_skipped
    );
    if s.errors + s.warnings + s.infos == 0 {
        format!("{files}: no problems found")
    } else {
        format!(
            "{files}: {}, {}, {}",
            plural(s.errors, "error", "errors"),
            plural(s.warnings, "warning", "warnings"),
            plural(s.infos, "info", "infos")
        )
    }
}
