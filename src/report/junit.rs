//! JUnit XML, for Azure DevOps (`PublishTestResults`), GitLab (`artifacts:reports:junit`)
//! and Jenkins: one test case per checked file; a file fails when it has findings at or
//! above the `--fail-on` level, and its `<failure>` lists them. Findings below that level
//! appear in the test case's `<system-out>`.

use crate::diagnostic::Severity;
use crate::results::{FileReport, Report};

/// Escapes text for XML 1.0 content and attribute values; control, line-separator and
/// bidi characters (which XML 1.0 cannot hold, or a reader's terminal would act on) are
/// written as `\u{..}` text ([`crate::escape`]), and the noncharacters U+FFFE/U+FFFF
/// become U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if crate::escape::needs_escape(c) => crate::escape::push_escaped(&mut out, c),
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for element content, keeping line breaks as they are.
fn escape_text(s: &str) -> String {
    escape(s).replace("&#10;", "\n").replace("&#9;", "\t")
}

fn line_of(file: &FileReport, d: &crate::diagnostic::Diagnostic) -> String {
    let p = file.source.position(d.span.start);
    // A line break from a checked file is written as `\n`: only amlint's own breaks
    // start lines (a CI log prints them, and reads `::` at a line's start as a command).
    let mut s = format!(
        "{}:{}:{}: {} {} {}: {}",
        crate::escape::control(&file.source.path),
        p.line,
        p.column,
        d.severity,
        d.code,
        d.name,
        crate::escape::control(&d.message)
    );
    if let Some(help) = &d.help {
        s.push_str("\n  help: ");
        s.push_str(&crate::escape::control(help));
    }
    s.push('\n');
    s
}

/// `fail_on`: the lowest severity that fails (`None`: nothing fails).
pub fn render(report: &Report, fail_on: Option<Severity>) -> String {
    let files: Vec<&FileReport> = report.files.iter().filter(|f| f.checked).collect();
    let fails = |s: Severity| fail_on.is_some_and(|f| s >= f);
    let failures = files
        .iter()
        .filter(|f| f.diagnostics.iter().any(|d| fails(d.severity)))
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    // A configuration that cannot be used is one errored test case per error (nothing
    // was checked).
    let errors = report.config_errors.len();
    out.push_str(&format!(
        "<testsuites name=\"amlint\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\" time=\"0\">\n  <testsuite name=\"amlint\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\" time=\"0\">\n",
        n = files.len() + errors
    ));
    for e in &report.config_errors {
        let at = e.source.position(e.span.start);
        let path = crate::escape::control(&e.source.path);
        let mut body = format!(
            "{path}:{}:{}: {}\n",
            at.line,
            at.column,
            crate::escape::control(&e.message)
        );
        if let Some(help) = &e.help {
            body.push_str(&format!("  help: {}\n", crate::escape::control(help)));
        }
        out.push_str(&format!(
            "    <testcase classname=\"amlint\" name=\"{}\" file=\"{}\" time=\"0\">\n      <error type=\"configuration\" message=\"{}\">{}</error>\n    </testcase>\n",
            escape(&e.source.path),
            escape(&e.source.path),
            escape(&e.message),
            escape_text(&body)
        ));
    }
    for file in files {
        let path = match &report.project {
            Some(p) => p.relative_path(&file.source.path),
            None => file.source.path.clone(),
        };
        out.push_str(&format!(
            "    <testcase classname=\"amlint\" name=\"{}\" file=\"{}\" time=\"0\"",
            escape(&file.source.path),
            escape(&path)
        ));
        let (failing, other): (Vec<_>, Vec<_>) = file.diagnostics.iter().partition(|d| fails(d.severity));
        if failing.is_empty() && other.is_empty() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        if !failing.is_empty() {
            let count = |s: Severity| failing.iter().filter(|d| d.severity == s).count();
            let mut parts = Vec::new();
            for (s, one, many) in [
                (Severity::Error, "error", "errors"),
                (Severity::Warning, "warning", "warnings"),
                (Severity::Info, "info", "infos"),
            ] {
                let n = count(s);
                if n > 0 {
                    parts.push(format!("{n} {}", if n == 1 { one } else { many }));
                }
            }
            let first = failing[0];
            let summary = format!(
                "{}: {} {}: {}",
                parts.join(", "),
                first.code,
                first.name,
                first.message
            );
            let body: String = failing.iter().map(|d| line_of(file, d)).collect();
            out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                escape(first.code),
                escape(&summary),
                escape_text(&body)
            ));
        }
        if !other.is_empty() {
            let body: String = other.iter().map(|d| line_of(file, d)).collect();
            out.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                escape_text(&body)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    // A CI log may print the document: no line of it may read as a workflow command.
    crate::escape::workflow_commands(out)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            escape("a<b>&\"'\u{7}\n"),
            "a&lt;b&gt;&amp;&quot;&apos;\\u{7}&#10;"
        );
        assert_eq!(
            escape_text("x\ny\u{1}\u{9b}\u{202e}\u{ffff}"),
            "x\ny\\u{1}\\u{9b}\\u{202e}\u{fffd}"
        );
    }
}
