//! amlint: a linter and policy checker for Azure Machine Learning configuration files.
//!
//! The pipeline (see ARCHITECTURE.md): [`discover`] → [`load`] (bytes → [`document`]
//! trees with spans) → [`kinds`] (classify) → [`checks`] → [`report`]. The whole run is
//! [`pipeline::check_paths`].

pub mod baseline;
pub mod cache;
pub mod checks;
pub mod cli;
pub mod config;
pub mod data;
pub mod diagnostic;
pub mod discover;
pub mod document;
pub mod embedded;
pub mod escape;
pub mod facts;
pub mod filter;
pub mod fix;
pub mod fsio;
pub mod ide;
pub mod kinds;
pub mod limits;
pub mod load;
pub mod lsp;
pub mod pipeline;
pub mod policy;
pub mod project;
pub mod registry;
pub mod report;
pub mod results;
pub mod rule_test;
pub mod ruleset;
pub mod schema;
pub mod show_files;
pub mod show_settings;
pub mod source;
pub mod suggest;
pub mod suppress;

pub use diagnostic::{Diagnostic, Severity};
pub use pipeline::{Options, check_paths, check_text};
pub use results::Report;
