//! Human output through miette: code and name, severity, message, the source snippet
//! with the span underlined, secondary labels and help, then a summary line.

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use super::snippet::Snippet;
use crate::escape;

use crate::diagnostic::{Diagnostic, Severity};
use crate::results::Report;
use crate::source::SourceFile;

/// How to draw the report.
#[derive(Clone, Copy, Debug)]
pub struct TerminalStyle {
    pub color: bool,
    /// Wrap width in columns.
    pub width: usize,
}

/// One finding in miette's terms: escaped text ([`crate::escape`]) and, when the file has
/// text to show, a bounded [`Snippet`] with the finding's spans mapped into it.
struct Rendered {
    message: String,
    help: Option<String>,
    code: String,
    severity: miette::Severity,
    snippet: Option<(Snippet, Vec<miette::SourceSpan>, Vec<String>)>,
}

impl Rendered {
    fn new(source: &SourceFile, d: &Diagnostic) -> Self {
        // A finding reported from a definition's first line to its focus (the value,
        // labelled) is drawn by that first line and the value's.
        let primary = match d.focus {
            Some(_) => {
                let from = d.span.start as usize;
                let line = source.text.get(from..).and_then(|t| t.find('\n'));
                let end = line.map_or(d.span.end, |n| (from + n) as u32);
                crate::source::Span::new(d.span.start, end.min(d.span.end))
            }
            None => d.span,
        };
        let spans: Vec<crate::source::Span> = std::iter::once(primary)
            .chain(d.labels.iter().map(|l| l.span))
            .collect();
        let snippet = Snippet::new(source, &spans).map(|(snippet, mapped)| {
            let labels = d
                .labels
                .iter()
                .map(|l| escape::control(&l.message).into_owned())
                .collect();
            (snippet, mapped, labels)
        });
        Rendered {
            message: escape::control(&d.message).into_owned(),
            help: d.help.as_deref().map(|h| escape::control(h).into_owned()),
            code: format!("{} {}", d.code, escape::control(d.name)),
            severity: match d.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Info => miette::Severity::Advice,
            },
            snippet,
        }
    }
}

impl fmt::Debug for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered {}

impl miette::Diagnostic for Rendered {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        // A file that could not be read has no text to show.
        self.snippet.as_ref().map(|(s, ..)| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (_, spans, messages) = self.snippet.as_ref()?;
        let primary = LabeledSpan::new_primary_with_span(None, spans[0]);
        let secondary = spans[1..]
            .iter()
            .zip(messages)
            .map(|(span, message)| LabeledSpan::new_with_span(Some(message.clone()), *span));
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}

fn handler(style: TerminalStyle) -> GraphicalReportHandler {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_context_lines(1)
}

/// Renders one diagnostic (without the summary).
pub fn render_diagnostic(source: &SourceFile, diagnostic: &Diagnostic, style: TerminalStyle) -> String {
    let rendered = Rendered::new(source, diagnostic);
    let mut out = String::new();
    if handler(style).render_report(&mut out, &rendered).is_err() {
        out = format!("{}: {}\n", diagnostic.code, rendered.message);
    }
    if rendered.snippet.is_none() {
        // No snippet to carry the location: name the file in the header line.
        let position = source.position(diagnostic.span.start);
        out = format!(
            "{}:{}:{}: {}",
            escape::control(&source.path),
            position.line,
            position.column,
            out.trim_start()
        );
    }
    escape::workflow_commands(out)
}

/// Renders the whole report: each diagnostic, then the summary line.
pub fn render(report: &Report, style: TerminalStyle, quiet: bool) -> String {
    let mut out = String::new();
    for (file, d) in report.diagnostics() {
        // `--quiet`: errors and warnings only.
        if quiet && d.severity == Severity::Info {
            continue;
        }
        out.push_str(&render_diagnostic(&file.source, d, style));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    if !quiet {
        out.push_str(&super::summary::summary_with_suppressed(report));
        out.push('\n');
    }
    out
}

/// A configuration error in miette's terms: the configuration file's snippet with the
/// offending key or value underlined, bounded and escaped like a finding's.
struct ConfigProblem {
    message: String,
    help: Option<String>,
    snippet: Option<(Snippet, miette::SourceSpan)>,
}

impl fmt::Debug for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigProblem {}

impl miette::Diagnostic for ConfigProblem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("invalid configuration"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.snippet.as_ref().map(|(s, _)| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (_, span) = self.snippet.as_ref()?;
        Some(Box::new(std::iter::once(LabeledSpan::new_primary_with_span(
            None, *span,
        ))))
    }
}

/// Renders configuration errors like diagnostics, then a line saying nothing was checked.
pub fn render_config_errors(errors: &[crate::config::ConfigError], style: TerminalStyle) -> String {
    let handler = handler(style);
    let mut out = String::new();
    for e in errors {
        let problem = ConfigProblem {
            message: escape::control(&e.message).into_owned(),
            help: e.help.as_deref().map(|h| escape::control(h).into_owned()),
            snippet: Snippet::new(&e.source, &[e.span]).map(|(s, spans)| (s, spans[0])),
        };
        let mut one = String::new();
        if handler.render_report(&mut one, &problem).is_err() || problem.snippet.is_none() {
            let path = escape::control(&e.source.path);
            one = if e.source.text.is_empty() {
                format!("{path}: error: {}\n", problem.message)
            } else {
                let at = e.source.position(e.span.start);
                format!("{path}:{}:{}: error: {}\n", at.line, at.column, problem.message)
            };
            if let Some(h) = &problem.help {
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
    escape::workflow_commands(out)
}
