//! amlint's types → LSP types. Positions go through [`SourceFile`] (UTF-16 code units,
//! as LSP counts them); nothing here counts characters itself.

use std::path::{Path, PathBuf};

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position,
    Range, TextEdit, Url,
};

use crate::diagnostic::{Diagnostic, Edit, Severity};
use crate::registry::{self, Registry};
use crate::source::{SourceFile, Span, Utf16Position};

/// The LSP range of a span.
pub fn range(source: &SourceFile, span: Span) -> Range {
    let start = source.utf16_position(span.start);
    let end = source.utf16_position(span.end.max(span.start));
    Range::new(position(start), position(end))
}

fn position(p: Utf16Position) -> Position {
    Position::new(p.line, p.character)
}

/// The byte offset of an LSP position (clamped to the line's end and the text).
pub fn offset(source: &SourceFile, pos: Position) -> u32 {
    source.lines.offset_of_utf16(
        &source.text,
        Utf16Position {
            line: pos.line,
            character: pos.character,
        },
    )
}

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The documentation page of a built-in rule (user rules have none published).
pub fn docs_url(code: &str) -> Option<Url> {
    let rule = registry::builtin().get(code)?;
    Url::parse(&rule.docs_url()).ok()
}

/// One finding as an LSP diagnostic: code, link to the rule's page, severity, message,
/// and its labels as related information.
pub fn diagnostic(uri: &Url, source: &SourceFile, d: &Diagnostic) -> lsp_types::Diagnostic {
    lsp_types::Diagnostic {
        range: range(source, d.span),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: docs_url(d.code).map(|href| CodeDescription { href }),
        source: Some("amlint".to_string()),
        message: crate::escape::control(&d.message).into_owned(),
        related_information: (!d.labels.is_empty()).then(|| {
            d.labels
                .iter()
                .map(|l| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), range(source, l.span)),
                    message: crate::escape::control(&l.message).into_owned(),
                })
                .collect()
        }),
        tags: None,
        data: None,
    }
}

pub fn text_edit(source: &SourceFile, edit: &Edit) -> TextEdit {
    TextEdit::new(range(source, edit.span), edit.replacement.clone())
}

/// The rule metadata for a code: the file's registry (user rules), else the built-ins.
pub fn rule<'r>(registry: &'r Registry, code: &str) -> Option<&'r crate::registry::RuleMeta> {
    registry.get(code).or_else(|| registry::builtin().get(code))
}

/// The path of a `file:` URI (`None` for other schemes: untitled buffers, ...).
pub fn path_of(uri: &Url) -> Option<PathBuf> {
    if uri.scheme() != "file" {
        return None;
    }
    uri.to_file_path().ok().map(|p| crate::config::normalize(&p))
}

pub fn uri_of(path: &Path) -> Option<Url> {
    Url::from_file_path(path).ok()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn ranges_count_utf16_units() {
        let source = SourceFile::new("x.yml", "a: 1 # café 日本 🎉\nb: x\n".to_string());
        let text = &source.text;
        let b = text.find('x').unwrap() as u32;
        assert_eq!(
            range(&source, Span::new(b, b + 1)),
            Range::new(Position::new(1, 3), Position::new(1, 4))
        );
        // 🎉 is two UTF-16 units.
        let end = text.find('\n').unwrap() as u32;
        assert_eq!(range(&source, Span::at(end)).start, Position::new(0, 17));
        assert_eq!(offset(&source, Position::new(0, 17)), end);
        assert_eq!(offset(&source, Position::new(0, 99)), end);
    }
}
