//! `amlint check --show-settings PATH...`: the configuration that applies to each path,
//! with where each value comes from — the configuration file and line that set it, the
//! command line (`--select`, `--extend-select`, `--ignore`), or amlint's default — and,
//! for every rule, whether it runs on the file and at which severity, and what decided.
//! Plain text; every value from a file is escaped ([`crate::escape`]).

use std::fmt::Write as _;
use std::path::Path;

use crate::config::cli_selection::Decision;
use crate::config::{CliSelection, Config, Resolver, Spanned, selector};
use crate::escape;

/// Where the value of configuration key `key` came from: the file that set it, with the
/// line of `span` when that file is the configuration's own (`amlint.toml:4`); the files
/// of an `extend` chain that set or added to it (`Config::origins`); or `default`.
fn origin(config: &Config, key: &str, span: Option<crate::source::Span>) -> String {
    let Some(files) = config.origins.get(key).filter(|f| !f.is_empty()) else {
        return "default".to_string();
    };
    match (&config.source, span, files.as_slice()) {
        (Some(source), Some(span), [only]) if *only == source.path => format!(
            "{}:{}",
            escape::control(&source.path),
            source.position(span.start).line
        ),
        _ => files
            .iter()
            .map(|f| escape::control(f).into_owned())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn list(selectors: &crate::config::Layered<Spanned<crate::config::Selector>>) -> String {
    let names: Vec<String> = selectors.iter().map(|s| format!("\"{}\"", s.value)).collect();
    format!("[{}]", names.join(", "))
}

/// The settings of each of `paths` (relative to the resolver's current directory).
pub fn render(resolver: &Resolver, paths: &[&Path], selection: Option<&CliSelection>) -> String {
    let mut out = String::new();
    for (i, path) in paths.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let abs = resolver.absolute(path);
        let config = if crate::fsio::is_dir(&abs) {
            resolver.for_dir(&abs)
        } else {
            resolver.for_file(&abs)
        };
        file_settings(&mut out, &path.display().to_string(), &abs, &config, selection);
    }
    out
}

fn file_settings(
    out: &mut String,
    shown: &str,
    abs: &Path,
    config: &Config,
    selection: Option<&CliSelection>,
) {
    let _ = writeln!(out, "# {}", escape::control(shown));
    let file = match &config.source {
        Some(s) => escape::control(&s.path).into_owned(),
        None => "none (amlint's defaults)".to_string(),
    };
    let _ = writeln!(out, "configuration = {file}");
    let row = |out: &mut String, key: &str, value: String, from: String| {
        let _ = writeln!(out, "{key} = {value}  # {from}");
    };
    row(
        out,
        "profile",
        format!("\"{}\"", config.profile.as_str()),
        origin(config, "profile", None),
    );
    match &config.select {
        Some(select) => row(
            out,
            "select",
            list(select),
            origin(config, "select", select.first().map(|s| s.span)),
        ),
        None => row(out, "select", "[\"ALL\"]".to_string(), "default".to_string()),
    }
    if !config.extend_select.is_empty() {
        let first = config.extend_select.first().map(|s| s.span);
        row(
            out,
            "extend-select",
            list(&config.extend_select),
            origin(config, "extend-select", first),
        );
    }
    if !config.ignore.is_empty() {
        let first = config.ignore.first().map(|s| s.span);
        row(
            out,
            "ignore",
            list(&config.ignore),
            origin(config, "ignore", first),
        );
    }
    for (s, level, _) in &config.severity {
        row(
            out,
            &format!("severity.{s}"),
            format!("\"{}\"", level_name(*level)),
            origin(config, "severity", None),
        );
    }
    let ignores = config.file_ignores(abs);
    if !ignores.is_empty() {
        let names: Vec<String> = ignores.iter().map(|s| format!("\"{s}\"")).collect();
        row(
            out,
            "per-file-ignores (matching this file)",
            format!("[{}]", names.join(", ")),
            origin(config, "per-file-ignores", None),
        );
    }
    let patterns = |p: &crate::config::Layered<crate::config::PathPattern>| {
        let texts: Vec<String> = p
            .iter()
            .map(|p| format!("\"{}\"", escape::control(&p.text)))
            .collect();
        format!("[{}]", texts.join(", "))
    };
    match &config.include {
        Some(include) => row(out, "include", patterns(include), origin(config, "include", None)),
        None => row(
            out,
            "include",
            "[\"*.yml\", \"*.yaml\", \"*.json\", \"MLTable\"]".to_string(),
            "default".to_string(),
        ),
    }
    let mut exclude_from = origin(config, "exclude", None);
    if config.origins.contains_key("extend-exclude") {
        exclude_from = format!(
            "{exclude_from}; extend-exclude: {}",
            origin(config, "extend-exclude", None)
        );
    }
    row(out, "exclude", patterns(&config.exclude), exclude_from);
    for (name, param) in config.params.iter() {
        row(
            out,
            &format!("params.{}", escape::control(name)),
            escape::control(&param.value.to_string()).into_owned(),
            origin(config, "params", Some(param.span)),
        );
    }
    for dir in &config.rules_dirs {
        row(
            out,
            "rules-dirs",
            format!("\"{}\"", escape::control(&dir.display().to_string())),
            origin(config, "rules-dirs", None),
        );
    }
    let inv = &config.inventory;
    if !inv.is_empty() {
        row(
            out,
            "inventory",
            format!(
                "{} computes, {} models, {} endpoints, {} deployments, {} VM sizes",
                inv.counts()[0],
                inv.counts()[1],
                inv.counts()[2],
                inv.counts()[3],
                inv.counts()[4]
            ),
            origin(config, "inventory", None),
        );
    }
    if let Some(ws) = &config.workspace {
        let mut parts = Vec::new();
        if let Some(l) = &ws.location {
            parts.push(format!("location {l}"));
        }
        if ws.has_computes() {
            parts.push(format!(
                "{} computes ({})",
                ws.computes.len(),
                ws.compute_files.join(", ")
            ));
        }
        for u in &ws.usage {
            parts.push(format!(
                "{} quota lines of {} ({})",
                u.lines.len(),
                u.region.as_deref().unwrap_or("an unnamed region"),
                u.file
            ));
        }
        for p in &ws.prices {
            parts.push(format!("{} VM prices ({})", p.items.len(), p.file));
        }
        row(
            out,
            "workspace",
            escape::control(&parts.join("; ")).into_owned(),
            origin(config, "workspace", None),
        );
    }
    if let Some(s) = selection.filter(|s| !s.is_empty()) {
        let show = |v: &[crate::config::Selector]| {
            let names: Vec<String> = v.iter().map(|s| format!("\"{s}\"")).collect();
            format!("[{}]", names.join(", "))
        };
        if let Some(select) = &s.select {
            row(out, "select", show(select), "command line (--select)".to_string());
        }
        if !s.extend_select.is_empty() {
            row(
                out,
                "extend-select",
                show(&s.extend_select),
                "command line (--extend-select)".to_string(),
            );
        }
        if !s.ignore.is_empty() {
            row(
                out,
                "ignore",
                show(&s.ignore),
                "command line (--ignore)".to_string(),
            );
        }
    }
    let _ = writeln!(out, "\n# rules");
    for rule in config.rules.rules() {
        // A rule's own severity under this profile (AML603 is a warning only in production).
        let default = rule.severity_under(config.profile.as_str());
        let (state, from) = rule_state(config, &ignores, selection, rule.code, default);
        let _ = writeln!(
            out,
            "{} {} = {state}  # {from}",
            rule.code,
            escape::control(rule.name)
        );
    }
}

fn level_name(level: crate::config::Level) -> &'static str {
    match level {
        crate::config::Level::Error => "error",
        crate::config::Level::Warning => "warning",
        crate::config::Level::Info => "info",
        crate::config::Level::Off => "off",
    }
}

/// Whether rule `code` runs on the file and at which severity (`off` or the severity),
/// and what decided it.
fn rule_state(
    config: &Config,
    file_ignores: &[&crate::config::Selector],
    selection: Option<&CliSelection>,
    code: &str,
    default: crate::diagnostic::Severity,
) -> (String, String) {
    if file_ignores.iter().any(|s| s.matches_code(code)) {
        return (
            "off".to_string(),
            format!("{} [per-file-ignores]", origin(config, "per-file-ignores", None)),
        );
    }
    let severity_origin = || match selector::best_match(code, config.severity.iter().map(|(s, l, _)| (s, *l)))
    {
        Some((_, level)) => (level, format!("{} [severity]", origin(config, "severity", None))),
        None => (crate::config::Level::Error, "default severity".to_string()),
    };
    let decision = selection.map_or(Decision::Configured, |s| s.decide(code));
    if decision != Decision::Configured {
        let (option, selector) = selection
            .and_then(|s| s.deciding(code))
            .map_or(("--select", String::new()), |(o, s)| (o, format!(" {s}")));
        if decision == Decision::Off {
            return ("off".to_string(), format!("command line ({option}{selector})"));
        }
        let (level, from) = severity_origin();
        let severity = match from.as_str() {
            "default severity" => default,
            _ => level.severity().unwrap_or(default),
        };
        return (
            severity.to_string(),
            format!("command line ({option}{selector}); {from}"),
        );
    }
    let all = [Spanned {
        value: crate::config::Selector::All,
        span: crate::source::Span::default(),
    }];
    let select: Box<dyn Iterator<Item = &Spanned<crate::config::Selector>>> = match &config.select {
        Some(select) => Box::new(select.iter()),
        None => Box::new(all.iter()),
    };
    let candidates = select
        .chain(&config.extend_select)
        .map(|s| (&s.value, (true, s)))
        .chain(config.ignore.iter().map(|s| (&s.value, (false, s))));
    let chosen = selector::best_match(code, candidates);
    // The key whose entry decided, found by identity among the configuration's lists.
    let key_of = |s: &Spanned<crate::config::Selector>| {
        if config.ignore.iter().any(|i| std::ptr::eq(i, s)) {
            "ignore"
        } else if config.extend_select.iter().any(|i| std::ptr::eq(i, s)) {
            "extend-select"
        } else {
            "select"
        }
    };
    let selected_from = match chosen {
        Some((_, (_, s))) if config.select.is_some() || s.value != crate::config::Selector::All => {
            origin(config, key_of(s), Some(s.span))
        }
        _ => "default".to_string(),
    };
    match chosen {
        Some((_, (true, _))) => {
            let (level, from) = severity_origin();
            if from == "default severity" {
                (
                    default.to_string(),
                    format!("selected: {selected_from}; default severity"),
                )
            } else {
                match level.severity() {
                    Some(s) => (s.to_string(), format!("selected: {selected_from}; {from}")),
                    None => ("off".to_string(), from),
                }
            }
        }
        _ => ("off".to_string(), format!("not selected: {selected_from}")),
    }
}
