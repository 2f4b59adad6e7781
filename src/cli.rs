//! The command line (clap derive). Exit codes: 0 clean (or only findings below
//! `--fail-on`), 1 findings at or above it, 2 usage, configuration, baseline or internal
//! error. Every flag is in `docs/cli.md`.
//!
//! `check` reads as phases: `check_options` and `read_stdin`, `pipeline::run`, what stops
//! a run (`refused`, `diff`, `write_baseline`), `fix`, then `finish`, whose one
//! `report::render` picks the format. Its arguments are two flattened groups
//! (`InputArgs`, `MoreArgs`): clap's derive builds a group's arguments in one function,
//! whose debug-build frame grows with each.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};

use crate::baseline::{self, Baseline};
use crate::config::ConfigChoice;
use crate::diagnostic::Severity;
use crate::pipeline::{self, Buffer, Options};
use crate::registry;
use crate::report;
use crate::report::rule_page::{self, SourceLink};
use crate::results::SuppressionKind;

/// `amlint --version`: the release, the Azure ML SDK release the schemas were generated
/// from, and the date of the VM catalogue (the JSON and SARIF outputs carry the same).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (schemas: ",
    env!("AMLINT_SCHEMA_SOURCE"),
    "; VM catalogue: ",
    env!("AMLINT_VM_CATALOGUE_DATE"),
    ")"
);

#[derive(Parser, Debug)]
#[command(name = "amlint", version = VERSION, about = "A fast, offline linter and policy checker for Azure Machine Learning configuration files", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check Azure ML configuration files (YAML and JSON).
    Check(Box<CheckArgs>),
    /// List every rule: code, name, default severity, summary.
    Rules {
        #[arg(long, value_enum, default_value_t = ListFormat::Human)]
        format: ListFormat,
    },
    /// List the computes the project defines (Azure ML YAML, `az ml compute create` in
    /// scripts and CI files, the Python SDK, Terraform, Bicep, ARM), where, what each sets,
    /// and which compute references resolve to them; takes `check`'s arguments, with
    /// `--format human` or `json` (docs/computes.md).
    Inventory(Box<CheckArgs>),
    /// Print the documentation of a rule, by code (AML002) or name (duplicate-key).
    Rule {
        /// A rule code or name.
        rule: String,
    },
    /// Run the language server over standard input and output, for editors
    /// (docs/lsp.md).
    Lsp {
        /// Largest message read from the client, in bytes: a larger one (or a
        /// `Content-Length` beyond it) is answered with a protocol error and skipped.
        #[arg(long, value_name = "BYTES", default_value_t = crate::lsp::MAX_MESSAGE)]
        max_message_size: usize,
    },
    /// Policy tests: run every rule's example (bad must fire where it is marked, good must
    /// not), built-in and user rules (`rules-dirs` of the configuration here), and check
    /// the files under PATHS against their `# expect: CODE` annotations (docs/policies.md).
    /// Exits 1 when a test fails.
    Test {
        /// Folders (or files) of cases annotated with `# expect: CODE` (JSON files: a
        /// `<file>.expect` sidecar), each checked as one project.
        paths: Vec<PathBuf>,
        /// Run only the examples of user rules (`rules-dirs`), not those of amlint's own.
        #[arg(long)]
        user_only: bool,
    },
    /// Write a commented starter amlint.toml (never overwrites an existing configuration).
    Init {
        /// The directory to write it in.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Print a shell completion script (`amlint completions bash > ~/.local/share/bash-completion/completions/amlint`).
    Completions {
        /// The shell: bash, zsh, fish, powershell or elvish.
        shell: clap_complete::Shell,
    },
}

/// `amlint check`'s arguments, in two groups: clap's derive builds each struct's
/// arguments in one function, and in a debug build that function's frame grows with
/// every argument; siblings are built one after the other, so the deepest stack holds one
/// group's frame, not all of them (the hostile-input tests run on 256 KiB stacks).
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub more: MoreArgs,
}

impl std::ops::Deref for CheckArgs {
    type Target = InputArgs;

    fn deref(&self) -> &InputArgs {
        &self.input
    }
}

/// What to check and how to read and report it.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Files or directories to check (`-` reads standard input). Directories are walked,
    /// honouring .gitignore and the configuration's include/exclude; files named
    /// explicitly are always checked (with --force-exclude, unless excluded).
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// When to use colour in human output (`auto` honours `NO_COLOR`, then `FORCE_COLOR`).
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Print errors and warnings only: no infos, no summary line (human and concise
    /// output).
    #[arg(long, short)]
    pub quiet: bool,
    /// The file name standard input stands for (decides JSON or YAML and the kind).
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<String>,
    /// Largest file read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = crate::limits::Limits::default().max_file_size)]
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
    /// Show the findings that suppression comments and the baseline hide, each marked
    /// with what hides it and why (for audits); they count like any other finding.
    #[arg(long, conflicts_with = "write_baseline")]
    pub no_ignores: bool,
    /// Apply the configuration's `exclude` to files named on the command line too
    /// (pre-commit names every changed file).
    #[arg(long)]
    pub force_exclude: bool,
    /// Do not read or write the project cache (a one-file or subfolder run keeps what it
    /// learns of the rest of the project in the user's cache directory; `docs/cache.md`).
    /// `AMLINT_NO_CACHE=1` does the same.
    #[arg(long)]
    pub no_cache: bool,
    /// List each file with the kind it is checked as, or why it is skipped, instead of
    /// the findings; exits 0.
    #[arg(long)]
    pub show_files: bool,
    /// Say, per file, how its kind was decided and whether that was uncertain (on
    /// standard error; with --show-files, in the list).
    #[arg(long, short)]
    pub verbose: bool,
}

/// Settings, rule selection, fixes and where the output goes.
#[derive(clap::Args, Debug)]
pub struct MoreArgs {
    /// Print the configuration that applies to each path (each value with the file and
    /// line it comes from, or the command line, or the default) and every rule's state,
    /// instead of checking; exits 0.
    #[arg(long, conflicts_with_all = ["show_files", "fix", "diff", "write_baseline"])]
    pub show_settings: bool,
    /// Check only these rules (codes, names, prefixes such as `AML5`, or `ALL`; comma
    /// separated or repeated), instead of the configuration's `select`.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub select: Option<Vec<String>>,
    /// Check these rules too, on top of the configuration's selection.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub extend_select: Vec<String>,
    /// Do not check these rules (the command line wins over the configuration).
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Print how many findings each rule made (and how many are fixable) instead of the
    /// findings; JSON with `--format json`.
    #[arg(long, conflicts_with = "diff")]
    pub statistics: bool,
    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Apply the safe fixes to the files (standard input's fixed text goes to standard
    /// output, the findings to standard error), then report what remains.
    #[arg(long, conflicts_with_all = ["diff", "write_baseline"])]
    pub fix: bool,
    /// With --fix or --diff, apply unsafe fixes too (they change behaviour); alone, count
    /// them as fixable.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff and change nothing; exit 1 when a fix is pending.
    #[arg(long, conflicts_with = "write_baseline")]
    pub diff: bool,
}

/// `--format`: the output formats are the report's.
pub use crate::report::OutputFormat;

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
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (2);
            // help or a version that cannot be written is lost output: exit 2, as for
            // every other command (audit 23, case 05).
            let printed = e.print().and_then(|()| std::io::stdout().flush());
            return match printed {
                Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("amlint: cannot write the output: {err}");
                    2
                }
                _ => e.exit_code(),
            };
        }
    };
    match cli.command {
        Command::Check(args) => check(*args),
        Command::Inventory(args) => inventory(*args),
        Command::Rules { format } => rules(format),
        Command::Rule { rule } => rule_doc(&rule),
        Command::Init { dir } => init(&dir),
        Command::Test { paths, user_only } => policy_test(&paths, user_only),
        Command::Lsp { max_message_size } => crate::lsp::run(max_message_size),
        Command::Completions { shell } => completions(shell),
    }
}

/// Writes `head` (what was read of standard input), then the rest of standard input as it
/// comes, to standard output: `--fix -` on input it cannot fix.
#[must_use]
fn echo_input(head: &[u8]) -> bool {
    let mut out = std::io::stdout().lock();
    let copied = out
        .write_all(head)
        .and_then(|()| std::io::copy(&mut std::io::stdin().lock(), &mut out))
        .and_then(|_| out.flush());
    match copied {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => true,
        Err(e) => {
            eprintln!("amlint: cannot write the output: {e}");
            false
        }
    }
}

/// Writes the output; `false` when it could not be written (a full disk, an I/O error),
/// after saying so on standard error: the run then exits with 2, so that lost output is
/// never taken for a clean run. A reader that stopped reading (`amlint check | head`:
/// a closed pipe) is not an error.
#[must_use]
/// Writes a text output (never coloured) to standard output, through
/// [`crate::escape::plain`].
fn write_stdout(text: &str) -> bool {
    let text = crate::escape::plain(text.to_string(), false);
    write_output(&mut std::io::stdout().lock(), &text)
}

fn write_output(out: &mut dyn Write, text: &str) -> bool {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => true,
        Err(e) => {
            eprintln!("amlint: cannot write the output: {e}");
            false
        }
    }
}

fn use_color(choice: Color) -> bool {
    use_color_on(choice, std::io::stdout().is_terminal())
}

fn use_color_on(choice: Color, terminal: bool) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        // NO_COLOR (no-color.org) wins over FORCE_COLOR (force-color.org); either counts
        // only when set to a non-empty value.
        Color::Auto => {
            let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
            !set("NO_COLOR") && (set("FORCE_COLOR") || terminal)
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

/// `amlint check`, in phases: the arguments (options, standard input), the run, what
/// stops it early (configuration errors, input a filter cannot fix, `--show-files`,
/// `--write-baseline`, `--diff`), the fixes, and the report, rendered once by
/// [`report::render`].
fn check(args: CheckArgs) -> i32 {
    let mut options = match check_options(&args) {
        Ok(options) => options,
        Err(code) => return code,
    };
    if args.more.show_settings {
        return show_settings(&args, &options);
    }
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
        args.paths.iter().cloned().partition(|p| p.as_os_str() == "-");
    let mut input = match read_stdin(&args, !stdin.is_empty()) {
        Ok(input) => input,
        Err(code) => return code,
    };

    let mut report = pipeline::run(&paths, input.buffer.take().into_iter().collect(), &options);

    if let Some(code) = refused(&args, &report, &input) {
        return code;
    }
    if args.show_files {
        // A list that could not be written is lost output: exit 2.
        return if emit(&args, &crate::show_files::render(&report, args.verbose)) {
            0
        } else {
            2
        };
    }
    if args.verbose {
        eprint!(
            "{}",
            crate::escape::plain(crate::show_files::render(&report, true), false)
        );
    }
    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &report);
    }
    if args.more.diff {
        return diff(&args, &report, &options, input.name());
    }
    let fixed = if args.more.fix {
        match fix(&args, &options, &paths, &input, &mut report) {
            Ok(fixed) => fixed,
            Err(code) => return code,
        }
    } else {
        FixOutcome::default()
    };
    finish(&args, &report, &fixed)
}

/// `amlint inventory`: the run of `check` on the same arguments, shown as the computes
/// it found (`report::inventory`); exit 2 for a configuration error, a format other than
/// human or JSON, standard input, or output that could not be written.
fn inventory(args: CheckArgs) -> i32 {
    if !matches!(args.format, OutputFormat::Human | OutputFormat::Json) {
        eprintln!(
            "amlint: `amlint inventory` prints `--format human` or `--format json`, not `--format {}`",
            format!("{:?}", args.format).to_lowercase()
        );
        return 2;
    }
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        eprintln!(
            "amlint: `amlint inventory` reads the project's files, not standard input: name files or directories"
        );
        return 2;
    }
    let unused = [
        ("--fix", args.more.fix),
        ("--diff", args.more.diff),
        ("--statistics", args.more.statistics),
        ("--show-files", args.show_files),
        ("--show-settings", args.more.show_settings),
        ("--write-baseline", args.write_baseline.is_some()),
    ];
    if let Some((flag, _)) = unused.iter().find(|(_, given)| *given) {
        eprintln!("amlint: `amlint inventory` lists the computes; {flag} is an option of `amlint check`");
        return 2;
    }
    let options = match check_options(&args) {
        Ok(options) => options,
        Err(code) => return code,
    };
    let report = pipeline::run(&args.paths, Vec::new(), &options);
    if !report.config_errors.is_empty() {
        eprint!(
            "{}",
            report::human::render_config_errors(&report.config_errors, stderr_style(&args))
        );
        return 2;
    }
    let text = match args.format {
        OutputFormat::Json => report::inventory::render_json(&report),
        _ => report::inventory::render(&report),
    };
    if emit(&args, &text) { 0 } else { 2 }
}

/// The run's options from the arguments; the exit code 2 (said on standard error) for a
/// path that does not exist, a bad `AMLINT_TODAY` or a selector that names no rule.
fn check_options(args: &CheckArgs) -> Result<Options, i32> {
    if let Err(why) = crate::facts::today_override() {
        eprintln!("amlint: {why}");
        return Err(2);
    }
    // A path that does not exist is a mistake in the command, not a finding: exit 2
    // whatever --fail-on says (pre-commit and CI name paths that exist).
    let missing: Vec<&PathBuf> = args
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .filter(|p| !crate::fsio::exists_here(p))
        .collect();
    if !missing.is_empty() {
        for p in missing {
            eprintln!(
                "amlint: {}: no such file or directory",
                crate::escape::control(&p.display().to_string())
            );
        }
        return Err(2);
    }
    let mut options = Options::default();
    options.limits.max_file_size = args.max_file_size;
    options.force_exclude = args.force_exclude;
    let no_cache_env =
        std::env::var("AMLINT_NO_CACHE").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
    options.cache_dir = if args.no_cache || no_cache_env {
        None
    } else {
        crate::cache::default_dir()
    };
    options.no_ignores = args.no_ignores;
    options.config = match (&args.config, args.no_config) {
        (Some(file), _) => ConfigChoice::File(file.clone()),
        (None, true) => ConfigChoice::Disabled,
        (None, false) => ConfigChoice::Discover,
    };
    options.selection = cli_selection(args, &options.config)?.map(Arc::new);
    Ok(options)
}

/// `--show-settings`: the settings that apply to each path, instead of a run.
fn show_settings(args: &CheckArgs, options: &Options) -> i32 {
    let resolver = crate::config::Resolver::new(options.config.clone());
    let paths: Vec<&Path> = args
        .paths
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                args.stdin_filename.as_deref().map_or(Path::new("."), Path::new)
            } else {
                p.as_path()
            }
        })
        .collect();
    let text = crate::show_settings::render(&resolver, &paths, options.selection.as_deref());
    let errors = resolver.errors();
    if !errors.is_empty() {
        eprint!(
            "{}",
            report::human::render_config_errors(&errors, stderr_style(args))
        );
        return 2;
    }
    if emit(args, &text) { 0 } else { 2 }
}

/// How people read text on standard error: coloured when it is a terminal.
fn stderr_style(args: &CheckArgs) -> report::human::TerminalStyle {
    report::human::TerminalStyle {
        color: use_color_on(args.color, std::io::stderr().is_terminal()),
        width: terminal_width(),
    }
}

/// Standard input, as `amlint check -` reads it.
struct StdinInput {
    /// `--fix -` is a filter (editors pipe a buffer through it): standard output carries
    /// the text, fixed or as it came, and nothing else.
    filter: bool,
    /// The name it is shown under (`--stdin-filename`, or `<stdin>`).
    display: String,
    /// Its buffer for the run, when `-` is among the paths.
    buffer: Option<Buffer>,
    /// Its text, when it was read as text.
    text: Option<String>,
    /// What a filter read of input that is not text, to give it back unchanged.
    unread: Option<Vec<u8>>,
}

impl StdinInput {
    /// The name of standard input's file in the report, when it was read as text.
    fn name(&self) -> Option<&str> {
        self.text.as_ref().map(|_| self.display.as_str())
    }
}

/// Reads standard input (`wanted`: `-` is among the paths) like a checked file: up to the
/// size limit, beyond which it is AML005; the exit code 2 when it cannot be read.
fn read_stdin(args: &CheckArgs, wanted: bool) -> Result<StdinInput, i32> {
    let mut input = StdinInput {
        filter: args.more.fix && wanted,
        display: args
            .stdin_filename
            .clone()
            .unwrap_or_else(|| "<stdin>".to_string()),
        buffer: None,
        text: None,
        unread: None,
    };
    if !wanted {
        return Ok(input);
    }
    let mut bytes = Vec::new();
    let limit = args.max_file_size;
    if let Err(e) = std::io::stdin().lock().take(limit + 1).read_to_end(&mut bytes) {
        eprintln!("amlint: cannot read standard input: {e}");
        return Err(2);
    }
    let kept = input.filter.then(|| bytes.clone());
    let text = if bytes.len() as u64 > limit {
        Err(crate::load::refusal(&crate::fsio::Refusal::TooLarge {
            len: bytes.len() as u64,
            limit,
        }))
    } else {
        crate::load::decode(bytes)
    };
    match &text {
        Ok(text) => input.text = Some(text.clone()),
        Err(_) => input.unread = kept,
    }
    input.buffer = Some(Buffer {
        display: input.display.clone(),
        text,
    });
    Ok(input)
}

/// A run that cannot go on: configuration errors, or input a filter cannot fix. Says
/// so, gives a filter's input back, and returns the exit code 2; `None` otherwise.
fn refused(args: &CheckArgs, report: &crate::results::Report, input: &StdinInput) -> Option<i32> {
    // A filter that cannot fix its input (a configuration error; input that is not
    // UTF-8 text, holds a NUL or is over the size limit) gives it back unchanged, the
    // rest of it streamed from standard input, and exits 2: an editor must not replace
    // its buffer with a report.
    let unfixable_input = input.filter && (!report.config_errors.is_empty() || input.unread.is_some());
    if unfixable_input {
        let written = match &input.unread {
            Some(bytes) => echo_input(bytes),
            None => write_stdout(input.text.as_deref().unwrap_or_default()),
        };
        if !written {
            return Some(2);
        }
    }
    // The findings alone, whatever --statistics says.
    let findings = report::Render {
        statistics: false,
        ..render_how(args, false)
    };
    if !report.config_errors.is_empty() {
        // People read them on standard error; a machine format still gets a document of
        // its format, carrying the errors (a CI step uploads it whatever the exit code).
        eprint!(
            "{}",
            report::human::render_config_errors(&report.config_errors, stderr_style(args))
        );
        if !args.format.for_people() {
            let text = report::render(report, &findings);
            if input.filter && args.more.output_file.is_none() {
                eprint!("{text}");
            } else {
                let _ = emit(args, &text);
            }
        }
        return Some(2);
    }
    if unfixable_input {
        // The findings (the input's AML004 or AML005) on standard error, or to the
        // output file.
        let text = report::render(report, &findings);
        if args.more.output_file.is_some() {
            let _ = emit(args, &text);
        } else {
            eprint!("{text}");
        }
        eprintln!(
            "amlint: standard input was not fixed: it could not be read as text; it is written back unchanged"
        );
        return Some(2);
    }
    None
}

/// `--diff`: the fixes as a unified diff, nothing changed; exit 1 when a fix is pending.
fn diff(
    args: &CheckArgs,
    report: &crate::results::Report,
    options: &Options,
    stdin_name: Option<&str>,
) -> i32 {
    let fixed = crate::fix::fix_report(report, options, args.more.unsafe_fixes, stdin_name);
    let (applied, changed) = crate::fix::totals(&fixed);
    if !emit_data(args, &crate::fix::unified_diff(&fixed)) {
        return 2;
    }
    for line in crate::fix::not_applied(&fixed) {
        eprintln!("amlint: {line}");
    }
    let remaining: usize = fixed.iter().map(|f| f.fixed.diagnostics.len()).sum::<usize>()
        + report
            .files
            .iter()
            .filter(|f| !fixed.iter().any(|x| x.display == f.source.path))
            .map(|f| f.diagnostics.len())
            .sum::<usize>();
    eprintln!(
        "amlint: {applied} fix{} would be applied to {changed} file{}; {remaining} finding{} would remain",
        if applied == 1 { "" } else { "es" },
        if changed == 1 { "" } else { "s" },
        if remaining == 1 { "" } else { "s" },
    );
    i32::from(changed > 0)
}

/// What `--fix` did, for the report that follows it.
#[derive(Default)]
struct FixOutcome {
    /// "Fixed 3 findings in 2 files (1 remaining)".
    line: Option<String>,
    /// A file was not written: the run exits 2 once the report is out.
    failed_write: bool,
    /// Standard input's fixed text went to standard output: the report goes to standard
    /// error.
    report_to_stderr: bool,
}

/// `--fix`: writes the fixes, and `report` becomes the run again on the fixed files
/// when any was applied; the exit code 2 when standard output could not be written.
fn fix(
    args: &CheckArgs,
    options: &Options,
    paths: &[PathBuf],
    input: &StdinInput,
    report: &mut crate::results::Report,
) -> Result<FixOutcome, i32> {
    let stdin_name = input.name();
    let fixed = crate::fix::fix_report(report, options, args.more.unsafe_fixes, stdin_name);
    let not_written = crate::fix::write(&fixed);
    for not in &not_written {
        let shown = crate::escape::control(&not.file.display).into_owned();
        eprintln!("amlint: {shown}: not fixed: {}", not.why.describe());
    }
    for line in crate::fix::not_applied(&fixed) {
        eprintln!("amlint: {line}");
    }
    // The summary counts what was written, and says what was not.
    let (applied, changed) = crate::fix::totals_written(&fixed, &not_written);
    let unapplied: usize = fixed
        .iter()
        .map(|f| f.fixed.unverified.len() + f.fixed.dropped)
        .sum();
    let mut outcome = FixOutcome {
        // A file not written is a failure of the run (exit 2), once the report is out.
        failed_write: !not_written.is_empty(),
        ..FixOutcome::default()
    };
    // Standard input's fixed text goes to standard output, whole and unescaped (it is
    // the input, as given); the findings then go to standard error.
    let mut stdin_fixed = input.text.clone();
    if let Some(name) = stdin_name {
        let text = fixed
            .iter()
            .find(|f| f.path.is_none() && f.display == name)
            .map_or_else(
                || input.text.clone().unwrap_or_default(),
                |f| f.fixed.text.clone(),
            );
        // The file's own text, for an editor's filter: written as it is.
        if !write_output(&mut std::io::stdout().lock(), &text) {
            return Err(2);
        }
        outcome.report_to_stderr = args.more.output_file.is_none();
        stdin_fixed = Some(text);
    }
    if applied > 0 {
        // The report of what remains: the run again, on the fixed files.
        let buffers: Vec<Buffer> = stdin_fixed
            .map(|text| Buffer {
                display: input.display.clone(),
                text: Ok(text),
            })
            .into_iter()
            .collect();
        *report = pipeline::run(paths, buffers, options);
    }
    let written = (applied, changed, unapplied, not_written.len());
    outcome.line = Some(fix_summary(args, report, written));
    Ok(outcome)
}

/// "Fixed 3 findings in 2 files (1 remaining; 1 file not written, see above)", from
/// `(applied, changed, unapplied, not_written)` and the report of what remains.
fn fix_summary(
    args: &CheckArgs,
    report: &crate::results::Report,
    (applied, changed, unapplied, not_written): (usize, usize, usize, usize),
) -> String {
    let total: usize = report.files.iter().map(|f| f.diagnostics.len()).sum();
    let (safe, unsafe_only) = crate::fix::fixable(report);
    let mut line = format!(
        "Fixed {applied} finding{} in {changed} file{} ({total} remaining",
        if applied == 1 { "" } else { "s" },
        if changed == 1 { "" } else { "s" },
    );
    if !args.more.unsafe_fixes && unsafe_only > 0 {
        line.push_str(&format!(", {unsafe_only} fixable with --unsafe-fixes"));
    } else if safe > 0 {
        line.push_str(&format!(", {safe} with a fix that did not apply"));
    }
    let mut notes = Vec::new();
    if unapplied > 0 {
        notes.push(format!(
            "{unapplied} fix{} not applied",
            if unapplied == 1 { "" } else { "es" }
        ));
    }
    if not_written > 0 {
        notes.push(format!(
            "{not_written} file{} not written",
            if not_written == 1 { "" } else { "s" }
        ));
    }
    if !notes.is_empty() {
        line.push_str(&format!("; {}, see above", notes.join(", ")));
    }
    line.push(')');
    line
}

/// The report: rendered once, in the format asked for, with what `--fix` did or could do
/// above its summary line; the exit code from its findings.
fn finish(args: &CheckArgs, report: &crate::results::Report, fixed: &FixOutcome) -> i32 {
    let colored = args.format == OutputFormat::Human
        && !args.more.statistics
        && !fixed.report_to_stderr
        && args.more.output_file.is_none()
        && use_color(args.color);
    let how = render_how(args, colored);
    let mut text = report::render(report, &how);
    let for_people = args.format.for_people() && !args.more.statistics;
    // What --fix did, or what it could do, goes just above the summary line (which stays
    // the last line); for machine formats, on standard error.
    let above_summary = match (&fixed.line, for_people && !args.quiet) {
        (Some(line), true) => Some(line.clone()),
        (Some(line), false) => {
            eprintln!("amlint: {line}");
            None
        }
        (None, true) => {
            let (safe, unsafe_only) = crate::fix::fixable(report);
            fix_hint(safe, unsafe_only, args.more.unsafe_fixes)
        }
        (None, false) => None,
    };
    if let Some(line) = above_summary {
        let last = text.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
        text.insert_str(last, &format!("{line}\n"));
    }
    let written = if fixed.report_to_stderr {
        eprint!("{}", crate::escape::plain(text, false));
        true
    } else {
        emit_text(args, &text, colored)
    };
    if !written || fixed.failed_write {
        return 2;
    }
    let failed = report
        .diagnostics()
        .any(|(_, d)| report::fails(d.severity, how.fail_on));
    i32::from(failed)
}

/// How the report is rendered, from the arguments (`color`: human output in colour).
fn render_how(args: &CheckArgs, color: bool) -> report::Render {
    report::Render {
        format: args.format,
        statistics: args.more.statistics,
        style: report::human::TerminalStyle {
            color,
            width: terminal_width(),
        },
        quiet: args.quiet,
        fail_on: args.fail_on.threshold(),
    }
}

/// "3 fixable with `amlint check --fix` (2 more with `--unsafe-fixes`)", when any is.
fn fix_hint(safe: usize, unsafe_only: usize, unsafe_fixes: bool) -> Option<String> {
    if unsafe_fixes {
        let n = safe + unsafe_only;
        return (n > 0).then(|| format!("{n} fixable with `amlint check --fix --unsafe-fixes`"));
    }
    match (safe, unsafe_only) {
        (0, 0) => None,
        (0, u) => Some(format!("{u} fixable with `amlint check --fix --unsafe-fixes`")),
        (s, 0) => Some(format!("{s} fixable with `amlint check --fix`")),
        (s, u) => Some(format!(
            "{s} fixable with `amlint check --fix` ({u} more with `--unsafe-fixes`)"
        )),
    }
}

/// The command line's `--select`, `--extend-select` and `--ignore`, resolved against the
/// rules of the current directory's configuration; exit code 2 (said on standard error)
/// for a selector that names no rule.
fn cli_selection(
    args: &CheckArgs,
    choice: &ConfigChoice,
) -> Result<Option<crate::config::CliSelection>, i32> {
    if args.more.select.is_none() && args.more.extend_select.is_empty() && args.more.ignore.is_empty() {
        return Ok(None);
    }
    let resolver = crate::config::Resolver::new(choice.clone());
    let config = resolver.for_dir(resolver.cwd());
    // An invalid configuration is reported by the run; the built-in rules resolve here.
    let registry: &registry::Registry = if resolver.errors().is_empty() {
        &config.rules
    } else {
        registry::builtin()
    };
    match crate::config::CliSelection::resolve(
        args.more.select.as_deref(),
        &args.more.extend_select,
        &args.more.ignore,
        registry,
    ) {
        Ok(selection) => Ok(Some(selection)),
        Err((option, e)) => {
            eprintln!(
                "amlint: {option}: {}\n  help: {}",
                crate::escape::control(&e.message),
                crate::escape::control(&e.help)
            );
            Err(2)
        }
    }
}

/// Writes the output to `--output-file` (atomically, through `fsio`) or standard output;
/// `false` (said on standard error) when it could not be written.
#[must_use]
fn emit(args: &CheckArgs, text: &str) -> bool {
    emit_text(args, text, false)
}

/// [`emit`] of data written as it is: the fixed file of `--fix -` (a file's own bytes,
/// for an editor's filter) and the `--diff` patch (escaped by `fix::unified_diff` so that
/// it still applies).
#[must_use]
fn emit_data(args: &CheckArgs, text: &str) -> bool {
    write_to(args, text)
}

/// [`emit`] of a text that may hold amlint's own colours (`colored`). Every text output
/// passes [`crate::escape::plain`] last.
#[must_use]
fn emit_text(args: &CheckArgs, text: &str, colored: bool) -> bool {
    let text = match args.format {
        // Lines that are workflow commands by design, with every value escaped inside.
        OutputFormat::Github if !args.show_files && !args.more.statistics => {
            crate::escape::controls_but_lines(text.to_string(), colored)
        }
        // JSON documents: every string is escaped by their serialiser
        // (`escape::to_json_pretty`), so no raw control character can be in them.
        OutputFormat::Json | OutputFormat::Sarif if !args.show_files && !args.more.statistics => {
            text.to_string()
        }
        _ => crate::escape::plain(text.to_string(), colored),
    };
    write_to(args, &text)
}

/// Writes to `--output-file` or standard output.
#[must_use]
fn write_to(args: &CheckArgs, text: &str) -> bool {
    match &args.more.output_file {
        None => write_output(&mut std::io::stdout().lock(), text),
        Some(path) => {
            match crate::fsio::write_atomically(path, text.as_bytes(), crate::fsio::Replace::Regular) {
                Ok(()) => true,
                Err(e) => {
                    eprintln!(
                        "amlint: cannot write {}: {}",
                        crate::fsio::shown(path),
                        e.describe()
                    );
                    false
                }
            }
        }
    }
}

/// `amlint completions SHELL`: the completion script on standard output.
fn completions(shell: clap_complete::Shell) -> i32 {
    use clap::CommandFactory;
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "amlint", &mut out);
    if write_stdout(&String::from_utf8_lossy(&out)) {
        0
    } else {
        2
    }
}

/// Records every finding not silenced by a comment (including those the old baseline
/// hid) and exits 0.
fn write_baseline(path: &Path, report: &crate::results::Report) -> i32 {
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

/// `amlint init`: writes the starter configuration as a new regular file (atomically:
/// a temporary file linked into place, which fails if anything is there), never over an
/// existing configuration, link, pipe or device.
fn init(dir: &Path) -> i32 {
    if !crate::fsio::is_dir(dir) {
        eprintln!(
            "amlint: {} is not a directory\n  help: create it first, or pass an existing directory",
            crate::fsio::shown(dir)
        );
        return 2;
    }
    let boundary = crate::fsio::Boundary::around(dir);
    for name in crate::config::CONFIG_FILE_NAMES {
        let existing = dir.join(name);
        let shown = crate::fsio::shown(&existing);
        let Some(here) = crate::fsio::look_here(&existing) else {
            continue;
        };
        if !matches!(here, Some(crate::fsio::Looked::File { .. })) {
            eprintln!(
                "amlint: {shown} exists and is not a regular file (a link, directory, pipe or device); init writes only a new regular file\n  help: remove it, or run `amlint init` in another directory"
            );
            return 2;
        }
        let has_config = match *name {
            // Read as a configuration file is: regular, bounded, inside the project.
            "pyproject.toml" => match crate::fsio::read_regular(
                &existing,
                crate::fsio::Seen::Unknown,
                &boundary,
                crate::fsio::MAX_CONFIG_SIZE,
            ) {
                Ok(bytes) => memchr::memmem::find(&bytes, b"[tool.amlint").is_some(),
                Err(r) => {
                    eprintln!(
                        "amlint: cannot read {shown}: {}\n  help: init reads it to see whether it configures amlint; make it a regular file",
                        r.describe()
                    );
                    return 2;
                }
            },
            _ => true,
        };
        if has_config {
            eprintln!(
                "amlint: {shown} already configures amlint; init never overwrites a configuration\n  help: edit it, or delete it and run `amlint init` again"
            );
            return 2;
        }
    }
    let target = dir.join("amlint.toml");
    let shown = crate::fsio::shown(&target);
    match crate::fsio::write_atomically(
        &target,
        crate::config::STARTER.as_bytes(),
        crate::fsio::Replace::Never,
    ) {
        Ok(()) => {
            eprintln!("amlint: wrote {shown}; see docs/configuration.md for every key");
            0
        }
        Err(e) => {
            eprintln!(
                "amlint: cannot write {shown}: {}\n  help: check that the directory is writable",
                e.describe()
            );
            2
        }
    }
}

/// The current directory's configuration, its user rules compiled; `None` (errors printed)
/// when it is invalid.
fn configuration_here() -> Option<Arc<crate::config::Config>> {
    let resolver = crate::config::Resolver::with_rule_check(
        ConfigChoice::Discover,
        &std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/")),
        Some(crate::ruleset::compile_errors),
    );
    let config = resolver.for_dir(resolver.cwd());
    let errors = resolver.errors();
    if !errors.is_empty() {
        let style = report::human::TerminalStyle {
            color: use_color_on(Color::Auto, std::io::stderr().is_terminal()),
            width: terminal_width(),
        };
        eprint!("{}", report::human::render_config_errors(&errors, style));
        return None;
    }
    Some(config)
}

/// The rules of the current directory's configuration: the built-in ones and those of
/// its `rules-dirs`; `None` (errors printed) when the configuration is invalid.
fn configured_rules() -> Option<crate::config::Rules> {
    configuration_here().map(|config| config.rules.clone())
}

/// `amlint test`: the examples of the rules the configuration here runs, then the cases.
fn policy_test(paths: &[PathBuf], user_only: bool) -> i32 {
    if let Err(why) = crate::facts::today_override() {
        eprintln!("amlint: {why}");
        return 2;
    }
    if let Some(p) = paths.iter().find(|p| !crate::fsio::exists_here(p)) {
        eprintln!(
            "amlint: {}: no such file or directory",
            crate::escape::control(&p.display().to_string())
        );
        return 2;
    }
    let Some(config) = configuration_here() else {
        return 2;
    };
    let boundary = crate::fsio::Boundary::around(&config.dir);
    let user = match registry::read_rule_dirs(&config.rules_dirs.to_vec(), &boundary) {
        Ok(files) => crate::rule_test::UserRules { files },
        Err(errors) => {
            for e in errors {
                eprintln!("amlint: {}", crate::escape::control(&e.to_string()));
            }
            return 2;
        }
    };
    let options = Options::default();
    let rules = config
        .rules
        .rules()
        .iter()
        .filter(|r| !user_only || !r.is_builtin());
    let mut outcomes = crate::rule_test::run_examples(rules, &user, &options);
    outcomes.extend(crate::rule_test::run_cases(paths, &options));
    let mut text = String::new();
    let passed = crate::rule_test::render(&outcomes, &mut text);
    if !write_stdout(&text) {
        return 2;
    }
    i32::from(!passed)
}

fn rules(format: ListFormat) -> i32 {
    let Some(rules) = configured_rules() else {
        return 2;
    };
    let registry: &registry::Registry = &rules;
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
                    crate::escape::control(r.summary.trim())
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
            format!("{}\n", crate::escape::to_json_pretty(&rows).unwrap_or_default())
        }
    };
    if write_stdout(&text) { 0 } else { 2 }
}

fn rule_doc(code_or_name: &str) -> i32 {
    let Some(rules) = configured_rules() else {
        return 2;
    };
    let registry: &registry::Registry = &rules;
    match registry.find(code_or_name) {
        Some(rule) => {
            if write_stdout(&rule_page::markdown(rule, SourceLink::Repository)) {
                0
            } else {
                2
            }
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
