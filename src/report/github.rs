//! GitHub Actions workflow commands: one `::error`, `::warning` or `::notice` line per
//! finding, which GitHub shows as an annotation on the file and line in the pull
//! request. Paths are relative to the git work tree (the checkout); columns count UTF-16
//! code units, as the web view does. Values are escaped as the Actions runner expects:
//! `%`, `\r` and `\n` everywhere, and `:` and `,` inside properties.

use crate::diagnostic::Severity;
use crate::results::Report;

/// Escapes a command's message: `%`, `\r` and `\n` as the runner decodes them, and every
/// other control, line-separator or bidi character as visible text (`\u{1b}`), which the
/// runner would otherwise print raw.
pub fn escape_data(s: &str) -> String {
    escape(s, false)
}

/// Escapes a property value (`file=`, `title=`): also `:` and `,`.
pub fn escape_property(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, property: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => crate::escape::push_escaped(&mut out, c),
        }
    }
    out
}

/// A path as the annotations name it: relative to the project's git work tree.
fn relative(report: &Report, path: &str) -> String {
    match &report.project {
        Some(p) => p.relative_path(path),
        None => path.to_string(),
    }
}

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

pub fn render(report: &Report, quiet: bool) -> String {
    let mut out = String::new();
    // A configuration that cannot be used: an error annotation on the configuration file.
    for e in &report.config_errors {
        let mut props = vec![format!(
            "file={}",
            escape_property(&relative(report, &e.source.path))
        )];
        if !e.source.text.is_empty() {
            let at = e.source.utf16_position(e.span.start);
            props.push(format!("line={}", at.line + 1));
            props.push(format!("col={}", at.character + 1));
        }
        props.push("title=amlint configuration error".to_string());
        let mut message = crate::escape::control(&e.message).into_owned();
        if let Some(help) = &e.help {
            message.push_str("\nhelp: ");
            message.push_str(&crate::escape::control(help));
        }
        out.push_str(&format!(
            "::error {}::{}\n",
            props.join(","),
            escape_data(&message)
        ));
    }
    // `--quiet`: errors and warnings only, as in human and concise output.
    for (file, d) in report
        .diagnostics()
        .filter(|(_, d)| !(quiet && d.severity == Severity::Info))
    {
        let path = relative(report, &file.source.path);
        let mut props = vec![format!("file={}", escape_property(&path))];
        if !file.source.text.is_empty() {
            let start = file.source.utf16_position(d.span.start);
            let end = file.source.utf16_position(d.span.end);
            props.push(format!("line={}", start.line + 1));
            props.push(format!("col={}", start.character + 1));
            props.push(format!("endLine={}", end.line + 1));
            props.push(format!("endColumn={}", end.character + 1));
        }
        props.push(format!(
            "title={}",
            escape_property(&format!("{} {}", d.code, d.name))
        ));
        // Control characters from the file are shown escaped (`\u{1b}`); only amlint's
        // own line break separates the help.
        let mut message = crate::escape::control(&d.message).into_owned();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(&crate::escape::control(help));
        }
        out.push_str(&format!(
            "::{} {}::{}\n",
            command(d.severity),
            props.join(","),
            escape_data(&message)
        ));
    }
    if !quiet && report.config_errors.is_empty() {
        out.push_str(&super::summary_with_suppressed(report));
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_runner() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
