//! Human output through miette: code and name, severity, message, the source snippet
//! with the span underlined, secondary labels and help, then a summary line.

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, SourceCode, SpanContents};

use crate::diagnostic::{Diagnostic, Severity};
use crate::pipeline::Report;
use crate::source::SourceFile;

/// How to draw the report.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    /// Wrap width in columns.
    pub width: usize,
}

/// A file's text as miette reads it, named by its path, without copying it.
struct Source<'a>(&'a SourceFile);

impl SourceCode for Source<'_> {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.0.text.read_span(span, before, after)?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            shown_path(&self.0.path).into_owned(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// A file's path as the terminal shows it: control characters (an escape sequence, a
/// carriage return in a file name) written as `\u{..}`, so that a name cannot rewrite
/// what is on the screen. JSON, SARIF, JUnit and GitHub output escape by their format.
fn shown_path(path: &str) -> std::borrow::Cow<'_, str> {
    crate::fsio::escape_controls(path)
}

/// One diagnostic in miette's terms.
struct Rendered<'a> {
    diagnostic: &'a Diagnostic,
    source: Source<'a>,
    code: String,
    /// Whether to draw the source snippet (not for unreadable files or huge lines).
    snippet: bool,
}

/// Longest line drawn as a snippet: a minified JSON file or a 10 MB string is one line,
/// which would flood the terminal (and miette cannot pad beyond 65,535 columns). Such a
/// finding is shown with its `path:line:column` instead.
const MAX_SNIPPET_LINE: usize = 1_000;

/// Whether every line a span touches is short enough to draw.
fn drawable(text: &str, span: crate::source::Span) -> bool {
    let (start, end) = (span.start as usize, span.end as usize);
    if text.is_empty() || end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return false;
    }
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    text[line_start..line_end]
        .split('\n')
        .all(|line| line.len() <= MAX_SNIPPET_LINE)
}

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diagnostic
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        // A file that could not be read has no text to show.
        self.snippet.then_some(&self.source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if !self.snippet {
            return None;
        }
        let d = self.diagnostic;
        let primary = LabeledSpan::new_primary_with_span(None, d.span);
        let secondary = d
            .labels
            .iter()
            .map(|l| LabeledSpan::new_with_span(Some(l.message.clone()), l.span));
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}

/// Renders one diagnostic (without the summary).
pub fn render_diagnostic(source: &SourceFile, diagnostic: &Diagnostic, style: Style) -> String {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_context_lines(1);
    let position = source.position(diagnostic.span.start);
    let snippet = drawable(&source.text, diagnostic.span)
        && diagnostic.labels.iter().all(|l| drawable(&source.text, l.span));
    let rendered = Rendered {
        diagnostic,
        source: Source(source),
        code: format!("{} {}", diagnostic.code, diagnostic.name),
        snippet,
    };
    let mut out = String::new();
    if handler.render_report(&mut out, &rendered).is_err() {
        out = format!("{}: {}\n", diagnostic.code, diagnostic.message);
    }
    if !snippet {
        // No snippet to carry the location: name the file in the header line.
        out = format!(
            "{}:{}:{}: {}",
            shown_path(&source.path),
            position.line,
            position.column,
            out.trim_start()
        );
    }
    out
}

/// Renders the whole report: each diagnostic, then the summary line.
pub fn render(report: &Report, style: Style, quiet: bool) -> String {
    let mut out = String::new();
    for (file, d) in report.diagnostics() {
        out.push_str(&render_diagnostic(&file.source, d, style));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    if !quiet {
        out.push_str(&super::summary_with_suppressed(report));
        out.push('\n');
    }
    out
}

/// A configuration error in miette's terms: the configuration file's snippet with the
/// offending key or value underlined.
struct ConfigProblem<'a> {
    error: &'a crate::config::ConfigError,
    source: Source<'a>,
}

impl fmt::Debug for ConfigProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.error.message)
    }
}

impl fmt::Display for ConfigProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.error.message)
    }
}

impl std::error::Error for ConfigProblem<'_> {}

impl miette::Diagnostic for ConfigProblem<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("invalid configuration"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.error
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        drawable(&self.source.0.text, self.error.span).then_some(&self.source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if !drawable(&self.source.0.text, self.error.span) {
            return None;
        }
        let primary = LabeledSpan::new_primary_with_span(None, self.error.span);
        Some(Box::new(std::iter::once(primary)))
    }
}

/// Renders configuration errors like diagnostics, then a line saying nothing was checked.
pub fn render_config_errors(errors: &[crate::config::ConfigError], style: Style) -> String {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for e in errors {
        let problem = ConfigProblem {
            error: e,
            source: Source(&e.source),
        };
        let mut one = String::new();
        if handler.render_report(&mut one, &problem).is_err() || !drawable(&e.source.text, e.span) {
            one = if e.source.text.is_empty() {
                format!("{}: error: {}\n", shown_path(&e.source.path), e.message)
            } else {
                let at = e.source.position(e.span.start);
                format!(
                    "{}:{}:{}: error: {}\n",
                    shown_path(&e.source.path),
                    at.line,
                    at.column,
                    e.message
                )
            };
            if let Some(h) = &e.help {
                one.push_str(&format!("  help: {h}\n"));
            }
        }
        out.push_str(&one);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    let n = errors.len();
    out.push_str(&format!(
        "amlint: {n} configuration error{}; nothing was checked\n",
        if n == 1 { "" } else { "s" }
    ));
    out
}
