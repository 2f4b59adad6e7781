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
            self.0.path.clone(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// One diagnostic in miette's terms.
struct Rendered<'a> {
    diagnostic: &'a Diagnostic,
    source: Source<'a>,
    code: String,
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
        (!self.source.0.text.is_empty()).then_some(&self.source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.source.0.text.is_empty() {
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
    let rendered = Rendered {
        diagnostic,
        source: Source(source),
        code: format!("{} {}", diagnostic.code, diagnostic.name),
    };
    let mut out = String::new();
    if handler.render_report(&mut out, &rendered).is_err() {
        out = format!("{}: {}\n", diagnostic.code, diagnostic.message);
    }
    if source.text.is_empty() {
        // No snippet to carry the location: name the file in the header line.
        out = format!(
            "{}:{}:{}: {}",
            source.path,
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
        (!self.source.0.text.is_empty()).then_some(&self.source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.source.0.text.is_empty() {
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
        if handler.render_report(&mut one, &problem).is_err() || e.source.text.is_empty() {
            one = format!("{}: error: {}\n", e.source.path, e.message);
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
