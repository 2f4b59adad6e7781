//! `ide`'s types ↔ LSP types: the only file that knows both byte spans and LSP
//! positions (UTF-16 code units, through [`SourceFile`]; nothing here counts characters
//! itself), and both paths and URLs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeDescription, CompletionItem, CompletionItemKind,
    CompletionItemTag, CompletionTextEdit, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol,
    Documentation, FoldingRange, Hover, HoverContents, Location, MarkupContent, MarkupKind, NumberOrString,
    Position, Range, SymbolKind, TextEdit, Url, WorkspaceEdit,
};

use crate::ide::actions::{Action, ActionKind};
use crate::ide::hover::HoverText;
use crate::ide::symbols::{Fold, Symbol};
use crate::ide::{
    Completion, CompletionKind, Diagnostic, Edit, FileDiagnostics, FileProblem, FileSpan, Severity,
    SourceFile, Span,
};
use crate::source::{LineIndex, Utf16Position};

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
    source.lines.offset_of_utf16(&source.text, utf16(pos))
}

fn utf16(pos: Position) -> Utf16Position {
    Utf16Position {
        line: pos.line,
        character: pos.character,
    }
}

/// The byte span of an LSP range.
pub fn span(source: &SourceFile, range: Range) -> Span {
    Span::new(offset(source, range.start), offset(source, range.end))
}

/// The byte span of an LSP range in a text being edited (no [`SourceFile`] yet).
pub fn span_in_text(text: &str, range: Range) -> Span {
    let lines = LineIndex::new(text);
    let at = |p: Position| lines.offset_of_utf16(text, utf16(p));
    Span::new(at(range.start), at(range.end))
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
    Url::parse(&crate::ide::docs_url(code)?).ok()
}

/// One finding as an LSP diagnostic: code, link to the rule's page, severity, message,
/// and its labels as related information. Its range is the exact text it is about (a
/// definition's finding is underlined at its value, not over the whole definition).
pub fn diagnostic(uri: &Url, source: &SourceFile, d: &Diagnostic) -> lsp_types::Diagnostic {
    lsp_types::Diagnostic {
        range: range(source, d.focus.unwrap_or(d.span)),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: docs_url(d.code).map(|href| CodeDescription { href }),
        source: Some("amlint".to_string()),
        message: control(&d.message),
        related_information: (!d.labels.is_empty()).then(|| {
            d.labels
                .iter()
                .map(|l| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), range(source, l.span)),
                    message: control(&l.message),
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

/// Text from a file, its control characters escaped.
fn control(text: &str) -> String {
    crate::escape::control(text).into_owned()
}

/// The path of a `file:` URI (`None` for other schemes: untitled buffers, ...).
pub fn path_of(uri: &Url) -> Option<PathBuf> {
    if uri.scheme() != "file" {
        return None;
    }
    uri.to_file_path().ok().map(|p| crate::ide::normalize(&p))
}

/// The last segment of a URI (an unsaved buffer's name).
pub fn name_of(uri: &Url) -> String {
    uri.path_segments()
        .and_then(|mut s| s.next_back().map(str::to_string))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "untitled.yml".to_string())
}

/// A file's problems as LSP diagnostics (configuration errors have no code).
pub fn diagnostics(uri: &Url, found: &FileDiagnostics) -> Vec<lsp_types::Diagnostic> {
    found
        .problems
        .iter()
        .map(|p| match p {
            FileProblem::Finding(d) => diagnostic(uri, &found.source, d),
            FileProblem::Config { span, message } => lsp_types::Diagnostic {
                range: range(&found.source, *span),
                severity: Some(DiagnosticSeverity::ERROR),
                source: Some("amlint".to_string()),
                message: message.clone(),
                ..Default::default()
            },
        })
        .collect()
}

/// A place as an LSP location (`uri_for`: the URI of a path, an open buffer's own).
pub fn location(place: &FileSpan, uri_for: &dyn Fn(&Path) -> Option<Url>) -> Option<Location> {
    Some(Location::new(
        uri_for(&place.path)?,
        range(&place.source, place.span),
    ))
}

pub fn hover(source: &SourceFile, h: HoverText) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: h.markdown,
        }),
        range: Some(range(source, h.span)),
    }
}

fn completion_kind(kind: CompletionKind) -> CompletionItemKind {
    match kind {
        CompletionKind::Property => CompletionItemKind::PROPERTY,
        CompletionKind::EnumMember => CompletionItemKind::ENUM_MEMBER,
        CompletionKind::Value => CompletionItemKind::VALUE,
        CompletionKind::File => CompletionItemKind::FILE,
        CompletionKind::Snippet => CompletionItemKind::SNIPPET,
        CompletionKind::Reference => CompletionItemKind::REFERENCE,
        CompletionKind::Field => CompletionItemKind::FIELD,
        CompletionKind::Module => CompletionItemKind::MODULE,
        CompletionKind::Keyword => CompletionItemKind::KEYWORD,
    }
}

pub fn completion(source: &SourceFile, c: Completion) -> CompletionItem {
    CompletionItem {
        label: c.label,
        kind: Some(completion_kind(c.kind)),
        detail: c.detail,
        documentation: c.documentation.map(|value| {
            Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            })
        }),
        text_edit: Some(CompletionTextEdit::Edit(text_edit(source, &c.edit))),
        filter_text: c.filter_text,
        insert_text_format: c.snippet.then_some(lsp_types::InsertTextFormat::SNIPPET),
        tags: c.deprecated.then(|| vec![CompletionItemTag::DEPRECATED]),
        ..Default::default()
    }
}

pub fn symbol(source: &SourceFile, s: Symbol) -> DocumentSymbol {
    let kind = match s.kind {
        crate::ide::symbols::SymbolKind::Object => SymbolKind::OBJECT,
        crate::ide::symbols::SymbolKind::Array => SymbolKind::ARRAY,
        crate::ide::symbols::SymbolKind::Property => SymbolKind::PROPERTY,
        crate::ide::symbols::SymbolKind::Step => SymbolKind::FUNCTION,
        crate::ide::symbols::SymbolKind::Port => SymbolKind::VARIABLE,
    };
    let children: Vec<DocumentSymbol> = s.children.into_iter().map(|c| symbol(source, c)).collect();
    #[allow(deprecated)]
    DocumentSymbol {
        name: s.name,
        detail: s.detail,
        kind,
        tags: None,
        deprecated: None,
        range: range(source, s.span),
        selection_range: range(source, s.key),
        children: (!children.is_empty()).then_some(children),
    }
}

pub fn fold(f: Fold) -> FoldingRange {
    FoldingRange {
        start_line: f.start_line,
        start_character: None,
        end_line: f.end_line,
        end_character: None,
        kind: None,
        collapsed_text: None,
    }
}

/// The kind of the "fix all" action (`editor.codeActionsOnSave: {"source.fixAll": ...}`).
pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.amlint")
}

pub fn action(uri: &Url, source: &SourceFile, a: Action) -> CodeActionOrCommand {
    let edits = a.edits.iter().map(|e| text_edit(source, e)).collect();
    CodeActionOrCommand::CodeAction(CodeAction {
        title: a.title,
        kind: Some(match a.kind {
            ActionKind::QuickFix => CodeActionKind::QUICKFIX,
            ActionKind::FixAll => fix_all_kind(),
        }),
        diagnostics: a.diagnostic.map(|d| vec![diagnostic(uri, source, &d)]),
        edit: Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..Default::default()
        }),
        is_preferred: a.preferred,
        ..Default::default()
    })
}

pub fn uri_of(path: &Path) -> Option<Url> {
    Url::from_file_path(path).ok()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// A finding reported from a definition's first line is underlined at its focus, the
    /// value, not over the whole definition.
    #[test]
    fn a_finding_with_a_focus_is_underlined_there() {
        let source = SourceFile::new(
            "main.tf",
            "resource \"x\" \"c\" {\n  vm_size = \"Standard_NC6\"\n}\n".to_string(),
        );
        let value = source.text.find("Standard_NC6").unwrap() as u32;
        let mut d = Diagnostic::new(crate::diagnostic::codes::AML000, Span::new(0, value + 12), "m");
        let uri = Url::parse("file:///p/main.tf").unwrap();
        assert_eq!(diagnostic(&uri, &source, &d).range.start, Position::new(0, 0));
        d.focus = Some(Span::new(value, value + 12));
        assert_eq!(
            diagnostic(&uri, &source, &d).range,
            Range::new(Position::new(1, 13), Position::new(1, 25))
        );
    }

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
