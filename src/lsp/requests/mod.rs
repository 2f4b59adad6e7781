//! One handler per request about a document. The server has run the pending checks and
//! checked the document's current version before calling one.

pub mod code_action;
pub mod completion;
pub mod definition;
pub mod document_diagnostic;
pub mod document_symbol;
pub mod folding_range;
pub mod hover;
pub mod references;
