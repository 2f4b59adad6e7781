//! The command line (clap derive). Exit codes: 0 clean, 1 errors found, 2 usage or
//! internal error.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::pipeline::{self, Options, Report};
use crate::registry;
use crate::report;

#[derive(Parser, Debug)]
#[command(name = "amlint", version, about = "A fast, offline linter and policy checker for Azure Machine Learning configuration files", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check Azure ML configuration files (YAML and JSON).
    Check(CheckArgs),
    /// List every rule: code, name, default severity, summary.
    Rules {
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Print the documentation of a rule, by code (AML002) or name (duplicate-key).
    Rule {
        /// A rule code or name.
        rule: String,
    },
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check (`-` reads standard input). Directories are walked,
    /// honouring .gitignore; files named explicitly are always checked.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// When to use colour in human output (`NO_COLOR` is honoured by `auto`).
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Print diagnostics only, without the summary line.
    #[arg(long, short)]
    pub quiet: bool,
    /// The file name standard input stands for (decides JSON or YAML and the kind).
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<String>,
    /// Largest file read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = crate::load::Limits::default().max_file_size)]
    pub max_file_size: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (2).
            let _ = e.print();
            return e.exit_code();
        }
    };
    match cli.command {
        Command::Check(args) => check(args),
        Command::Rules { format } => rules(format),
        Command::Rule { rule } => rule_doc(&rule),
    }
}

fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`amlint check | head`) is not an error worth a message.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn use_color(choice: Color) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
        }
    }
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &usize| w >= 40)
        .unwrap_or(100)
}

fn check(args: CheckArgs) -> i32 {
    let mut options = Options::default();
    options.limits.max_file_size = args.max_file_size;

    let (stdin, paths): (Vec<PathBuf>, Vec<PathBuf>) =
        args.paths.into_iter().partition(|p| p.as_os_str() == "-");
    let mut report = if paths.is_empty() {
        Report::default()
    } else {
        pipeline::check_paths(&paths, &options)
    };
    if !stdin.is_empty() {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin().lock().read_to_end(&mut bytes) {
            eprintln!("amlint: cannot read standard input: {e}");
            return 2;
        }
        let name = args
            .stdin_filename
            .clone()
            .unwrap_or_else(|| "<stdin>".to_string());
        let file = match crate::load::decode(bytes) {
            Ok(text) => pipeline::check_text(&name, text, &options),
            Err(diagnostic) => pipeline::FileReport {
                source: crate::source::SourceFile::new(&name, String::new()),
                checked: true,
                kinds: Vec::new(),
                diagnostics: vec![*diagnostic],
            },
        };
        report.files.push(file);
        report.files.sort_by(|a, b| a.source.path.cmp(&b.source.path));
    }

    let text = match args.format {
        Format::Human => report::human::render(
            &report,
            report::human::Style {
                color: use_color(args.color),
                width: terminal_width(),
            },
            args.quiet,
        ),
        Format::Json => report::json::render(&report),
    };
    write_stdout(&text);
    i32::from(report.summary().errors > 0)
}

fn rules(format: Format) -> i32 {
    let registry = registry::builtin();
    let text = match format {
        Format::Human => {
            let mut s = String::new();
            for r in registry.rules() {
                s.push_str(&format!(
                    "{:<8} {:<36} {:<8} {}\n",
                    r.code,
                    r.name,
                    r.severity,
                    r.summary.trim()
                ));
            }
            s
        }
        Format::Json => {
            let rows: Vec<serde_json::Value> = registry
                .rules()
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "code": r.code, "name": r.name, "severity": r.severity,
                        "summary": r.summary.trim(),
                    })
                })
                .collect();
            format!("{}\n", serde_json::to_string_pretty(&rows).unwrap_or_default())
        }
    };
    write_stdout(&text);
    0
}

fn rule_doc(code_or_name: &str) -> i32 {
    let registry = registry::builtin();
    match registry.find(code_or_name) {
        Some(rule) => {
            write_stdout(&rule.markdown());
            0
        }
        None => {
            let names = registry.rules().iter().flat_map(|r| [r.code, r.name]);
            let all: Vec<&str> = names.collect();
            let hint = crate::suggest::closest(code_or_name, all.iter().copied())
                .map(|s| format!(" Did you mean `{s}`?"))
                .unwrap_or_default();
            eprintln!("amlint: no rule `{code_or_name}`.{hint} `amlint rules` lists them all.");
            2
        }
    }
}
