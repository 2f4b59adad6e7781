//! `textDocument/diagnostic` (pull): the findings pushed for this document, as last
//! checked — never a second check — with a result id, `unchanged` when the client has
//! them.

use lsp_types::{
    DocumentDiagnosticParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    FullDocumentDiagnosticReport, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, UnchangedDocumentDiagnosticReport,
};

use super::super::pull;
use super::super::state::State;

pub fn handle(state: &mut State, p: DocumentDiagnosticParams) -> DocumentDiagnosticReportResult {
    let items = state.shown(&p.text_document.uri);
    let result_id = pull::result_id(&items);
    let report = if p.previous_result_id.as_ref() == Some(&result_id) {
        DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
            related_documents: None,
            unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
        })
    } else {
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items,
            },
        })
    };
    DocumentDiagnosticReportResult::Report(report)
}
