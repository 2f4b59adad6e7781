//! The command line (clap derive). Exit codes: 0 clean (or only findings below
//! `--fail-on`), 1 findings at or above it, 2 usage, configuration, baseline or internal
//! error.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};

use crate::baseline::{self, Baseline};
use crate::config::ConfigChoice;
use crate::diagnostic::Severity;
use crate::filter::SuppressionKind;
use crate::pipeline::{self, Buffer, Options};
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
        #[arg(long, value_enum, default_value_t = ListFormat::Human)]
        format: ListFormat,
    },
    /// Print the documentation of a rule, by code (AML002) or name (duplicate-key).
    Rule {
        /// A rule code or name.
        rule: String,
    },
    /// Run the language server over standard input and output, for editors
    /// (docs/lsp.md).
    Lsp,
    /// Write a commented starter amlint.toml (never overwrites an existing configuration).
    Init {
        /// The directory to write it in.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check (`-` reads standard input). Directories are walked,
    /// honouring .gitignore and the configuration's include/exclude; files named
    /// explicitly are always checked (with --force-exclude, unless excluded).
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
    /// Use this configuration file for every checked file, instead of each file's nearest
    /// amlint.toml, .amlint.toml or pyproject.toml with [tool.amlint].
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore configuration files: every rule runs at its default severity.
    #[arg(long)]
    pub no_config: bool,
    /// Exit with 1 when a finding has this severity or a higher one (`never`: always 0).
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Hide the findings recorded in this baseline file (see --write-baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record the current findings in FILE, replacing it, and exit 0; later runs with
    /// `--baseline FILE` report only findings that are not in it.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Apply the configuration's `exclude` to files named on the command line too
    /// (pre-commit names every changed file).
    #[arg(long)]
    pub force_exclude: bool,
    /// List each file with the kind it is checked as, or why it is skipped, instead of
    /// the findings; exits 0.
    #[arg(long)]
    pub show_files: bool,
    /// Say, per file, how its kind was decided and whether that was uncertain (on
    /// standard error; with --show-files, in the list).
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Findings with source snippets, for people.
    Human,
    /// The stable JSON contract (docs/json-output.md).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands: annotations on pull requests.
    Github,
    /// JUnit XML: one test case per checked file, for Azure DevOps, GitLab, Jenkins.
    Junit,
}

/// `amlint rules --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Human,
    Json,
}

/// `--fail-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    /// The lowest severity that fails, if any.
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
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
        Command::Init { dir } => init(&dir),
        Command::Lsp => crate::lsp::run(),
    }
}

fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`amlint check | head`) is not an error worth a message.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn use_color(choice: Color) -> bool {
    use_color_on(choice, std::io::stdout().is_terminal())
}

fn use_color_on(choice: Color, terminal: bool) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && terminal,
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
    options.force_exclude = args.force_exclude;
    options.config = match (&args.config, args.no_config) {
        (Some(file), _) => ConfigChoice::File(file.clone()),
        (None, true) => ConfigChoice::Disabled,
        (None, false) => ConfigChoice::Discover,
    };
    if let Some(path) = &args.baseline {
        match Baseline::load(path) {
            Ok(b) => options.baseline = Some(Arc::new(b)),
            Err(e) => {
                eprintln!("amlint: {e}");
                return 2;
            }
        }
    }

    let (stdin, paths): (Vec<PathBuf>, Vec<PathBuf>) =
        args.paths.into_iter().partition(|p| p.as_os_str() == "-");
    let mut buffers = Vec::new();
    if !stdin.is_empty() {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin().lock().read_to_end(&mut bytes) {
            eprintln!("amlint: cannot read standard input: {e}");
            return 2;
        }
        let display = args
            .stdin_filename
            .clone()
            .unwrap_or_else(|| "<stdin>".to_string());
        buffers.push(Buffer {
            display,
            text: crate::load::decode(bytes),
        });
    }
    let report = pipeline::run(&paths, buffers, &options);

    if !report.config_errors.is_empty() {
        let style = report::human::Style {
            color: use_color_on(args.color, std::io::stderr().is_terminal()),
            width: terminal_width(),
        };
        eprint!(
            "{}",
            report::human::render_config_errors(&report.config_errors, style)
        );
        return 2;
    }

    if args.show_files {
        write_stdout(&crate::show_files::render(&report, args.verbose));
        return 0;
    }
    if args.verbose {
        eprint!("{}", crate::show_files::render(&report, true));
    }

    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &report);
    }

    let threshold = args.fail_on.threshold();
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
        Format::Sarif => report::sarif::render(&report),
        Format::Github => report::github::render(&report, args.quiet),
        Format::Junit => report::junit::render(&report, threshold),
    };
    write_stdout(&text);
    let failed = report
        .diagnostics()
        .any(|(_, d)| report::fails(d.severity, threshold));
    i32::from(failed)
}

/// Records every finding not silenced by a comment (including those the old baseline
/// hid) and exits 0.
fn write_baseline(path: &Path, report: &pipeline::Report) -> i32 {
    let mut recorded = Vec::new();
    for file in &report.files {
        let rel = match &report.project {
            Some(p) => p.relative_path(&file.source.path),
            None => file.source.path.clone(),
        };
        let baselined = file
            .suppressed
            .iter()
            .filter(|s| s.kind == SuppressionKind::Baseline)
            .map(|s| &s.diagnostic);
        for d in file.diagnostics.iter().chain(baselined) {
            recorded.push(baseline::Recorded {
                path: rel.clone(),
                line: file.source.position(d.span.start).line,
                diagnostic: d,
            });
        }
    }
    let text = baseline::render(&recorded);
    match baseline::write_atomically(path, &text) {
        Ok(()) => {
            eprintln!(
                "amlint: recorded {} finding{} in {}; runs with `--baseline {}` report only new ones",
                recorded.len(),
                if recorded.len() == 1 { "" } else { "s" },
                path.display(),
                path.display()
            );
            0
        }
        Err(e) => {
            eprintln!("amlint: {e}");
            2
        }
    }
}

fn init(dir: &Path) -> i32 {
    if !dir.is_dir() {
        eprintln!(
            "amlint: {} is not a directory\n  help: create it first, or pass an existing directory",
            dir.display()
        );
        return 2;
    }
    for name in crate::config::CONFIG_FILE_NAMES {
        let existing = dir.join(name);
        let has_config = match *name {
            "pyproject.toml" => std::fs::read_to_string(&existing).is_ok_and(|t| t.contains("[tool.amlint")),
            _ => existing.exists(),
        };
        if has_config {
            eprintln!(
                "amlint: {} already configures amlint; init never overwrites a configuration\n  help: edit it, or delete it and run `amlint init` again",
                existing.display()
            );
            return 2;
        }
    }
    let target = dir.join("amlint.toml");
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&target)
        .and_then(|mut f| f.write_all(crate::config::STARTER.as_bytes()));
    match written {
        Ok(()) => {
            eprintln!(
                "amlint: wrote {}; see docs/configuration.md for every key",
                target.display()
            );
            0
        }
        Err(e) => {
            eprintln!(
                "amlint: cannot write {}: {e}\n  help: check that the directory is writable",
                target.display()
            );
            2
        }
    }
}

fn rules(format: ListFormat) -> i32 {
    let registry = registry::builtin();
    let text = match format {
        ListFormat::Human => {
            // Columns as wide as their longest entry (`Severity`'s Display ignores widths).
            let rules = registry.rules();
            let width = |f: &dyn Fn(&registry::RuleMeta) -> usize| rules.iter().map(f).max().unwrap_or(0);
            let code_w = width(&|r| r.code.len());
            let name_w = width(&|r| r.name.len());
            let sev_w = width(&|r| r.severity.to_string().len());
            let mut s = String::new();
            for r in rules {
                s.push_str(&format!(
                    "{:<code_w$}  {:<name_w$}  {:<sev_w$}  {}\n",
                    r.code,
                    r.name,
                    r.severity.to_string(),
                    r.summary.trim()
                ));
            }
            s
        }
        ListFormat::Json => {
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
