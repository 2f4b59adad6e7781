//! The integration tests, as one test binary: each file is a module, so a change to the
//! library relinks one executable instead of one per file (ARCHITECTURE.md, "The test
//! loop"). Run one area with `cargo test --test it cli::` or one test by name.
// Tests make and inspect their own files directly; the rule of clippy.toml (every path
// through `amlint::fsio`) is for the program.
#![allow(clippy::disallowed_methods)]

mod action;
mod architecture;
mod audit29;
mod audit30;
mod audit30_scripts;
mod audit31_iac;
mod audit32_bicep;
mod az_cli_options;
mod bicep_module_lists;
mod cache;
mod capped;
mod ci_computes;
mod cli;
mod cli_edges;
mod cli_ergonomics;
mod common;
mod config;
mod config_extend;
mod cookbook;
mod corpus;
mod dataflow;
mod definition_lines;
mod deploy_params;
mod docs;
mod docs_python;
mod embedded;
mod escaping;
mod fix;
mod fixtures;
mod fuzz_replay;
mod fuzzing;
mod generate;
mod hostile;
mod hostile_az_cli;
mod hostile_docs;
mod hostile_fs;
mod iac;
mod ide;
mod inventory;
mod layers;
mod loaded_files;
mod loader_props;
mod lsp;
mod nested_config;
mod one_door;
mod output_formats;
mod packaging;
mod policies;
mod precommit;
mod python_loaded;
mod quota;
mod realworld;
mod render;
mod rule_examples;
mod rule_schema;
mod schedules;
mod schema_robustness;
mod schema_spans;
mod script_calls;
mod script_functions;
mod script_places;
mod sdk_keywords;
mod show_files;
mod suppressions;
mod trust;
mod typos;
mod v1_inference;
mod yaml11_pyyaml;
mod yaml_canon;
mod yaml_pyyaml_diff;
