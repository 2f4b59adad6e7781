//! The integration tests, as one test binary: each file is a module, so a change to the
//! library relinks one executable instead of one per file (ARCHITECTURE.md, "The test
//! loop"). Run one area with `cargo test --test it cli::` or one test by name.

mod action;
mod cli;
mod config;
mod corpus;
mod docs;
mod embedded;
mod fixtures;
mod fuzz_replay;
mod hostile;
mod loader_props;
mod lsp;
mod output_formats;
mod precommit;
mod render;
mod rule_examples;
mod rule_schema;
mod schema_robustness;
mod schema_spans;
mod suppressions;
mod yaml11_pyyaml;
mod yaml_canon;
mod yaml_pyyaml_diff;
