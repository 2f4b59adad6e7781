//! Project configuration: `amlint.toml`, `.amlint.toml`, or `[tool.amlint]` in
//! `pyproject.toml` (documented in `docs/configuration.md`, schema in
//! `docs/amlint-config.schema.json`).
//!
//! - [`parse`]: TOML text → [`Config`], every problem an error at its span;
//! - [`resolve`]: which file applies to which checked file (nearest wins, cached per
//!   directory), `--config`/`--no-config`, and the project root;
//! - [`Config`] (`model.rs`, which the other files import; this file only re-exports)
//!   answers the questions the pipeline asks after the checks (is this rule on
//!   for this file, at which severity) and holds what the rule engine reads (profile,
//!   params, inventory, rules directories).

pub mod cli_selection;
pub mod glob;
pub mod inventory;
pub mod layered;
mod model;
mod parse;
pub mod resolve;
pub mod selector;
pub mod workspace;

pub use cli_selection::CliSelection;
pub use glob::{PathPattern, PatternSet};
pub use inventory::Inventory;
pub use layered::Layered;
pub use model::{
    CONFIG_FILE_NAMES, Config, ConfigError, DEFAULT_EXCLUDE, Enforced, Level, Matchers, Param, PerFileIgnore,
    Profile, Rules, STARTER, Silencing, Spanned, WithProjectInventory,
};
pub use parse::{
    ConfigFileKind, ExtendCache, KEYS, MAX_EXTEND_DEPTH, MERGE, Merge, RuleCheck, Within, parse, parse_file,
    parse_file_extending,
};
pub use resolve::{ConfigChoice, Resolver};
pub use selector::Selector;

/// Lexical path normalisation lives with the rest of the file-system code.
pub use crate::fsio::{absolute, normalize};
