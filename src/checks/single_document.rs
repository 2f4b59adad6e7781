//! AML001 (one case of it): an Azure ML configuration file with several YAML documents.
//! The CLI reads files with `yaml.safe_load`, which refuses a second document.

use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::document::Document;
use crate::source::{SourceFile, Span};

/// Runs once per file that holds at least one Azure ML document.
pub fn check(source: &SourceFile, documents: &[Document], out: &mut Findings) {
    let with_content: Vec<&Document> = documents.iter().filter(|d| d.root.is_some()).collect();
    if with_content.len() < 2 {
        return;
    }
    // Point at the `---` that starts the second document when there is one.
    let second = with_content[1].span;
    let marker = Span::new(second.start, second.start + 3);
    let span = if source.slice(marker) == "---" {
        marker
    } else {
        second
    };
    out.push(
        Diagnostic::new(
            codes::AML001,
            span,
            format!(
                "this Azure ML configuration file holds {} YAML documents; the Azure ML CLI reads exactly one (\"expected a single document in the stream\")",
                with_content.len()
            ),
        )
        .with_help("Put each configuration in a file of its own."),
    );
}
