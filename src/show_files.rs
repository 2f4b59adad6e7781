//! `amlint check --show-files` and `--verbose`: each file with the kind it is checked as,
//! or why it is skipped, and (verbose) how its kind was decided and whether that was
//! uncertain ([`crate::kinds::Classification::explain`]). A view of the report, like the
//! output formats of `crate::report`.

use crate::diagnostic::codes;
use crate::facts::computes::ComputeDef;
use crate::kinds::Classification;
use crate::results::{FileReport, Report};

/// The list, one line per file (and, when `verbose`, one indented line per step of each
/// document's classification), then a count.
pub fn render(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    let (mut checked, mut skipped) = (0, 0);
    for file in &report.files {
        let line = file_line(file);
        if line.checked {
            checked += 1;
        } else {
            skipped += 1;
        }
        out.push_str(&format!(
            "{}: {}\n",
            crate::escape::control(&file.source.path),
            crate::escape::control(&line.text)
        ));
        if verbose {
            for (depth, step) in definition_steps(file) {
                let indent = if depth == 0 { "  " } else { "    " };
                out.push_str(&format!("{indent}- {}\n", crate::escape::control(&step)));
            }
            let many = file.classes.len() > 1;
            for (i, class) in file.classes.iter().enumerate() {
                if many {
                    out.push_str(&format!("  document {}:\n", i + 1));
                }
                let indent = if many { "    " } else { "  " };
                for step in class.explain() {
                    out.push_str(&format!("{indent}- {}\n", crate::escape::control(&step)));
                }
            }
        }
    }
    out.push_str(&format!(
        "{} file{}: {checked} checked, {skipped} skipped\n",
        report.files.len(),
        if report.files.len() == 1 { "" } else { "s" }
    ));
    crate::escape::workflow_commands(out)
}

struct Line {
    checked: bool,
    text: String,
}

/// The definitions a file holds outside Azure ML YAML (a script's `az ml compute create`,
/// a Terraform resource): checked as compute documents, at their spans in the file.
fn outside_yaml(file: &FileReport) -> Vec<&ComputeDef> {
    file.computes
        .definitions
        .iter()
        .filter(|d| d.outside_yaml())
        .map(|d| d.as_ref())
        .collect()
}

/// `cpu-cluster, `$NAME``: the names, as known or as written.
fn names(defs: &[&ComputeDef]) -> String {
    defs.iter()
        .map(|d| match d.known_name() {
            Some(n) => n.to_string(),
            None => format!("`{}`", d.name.written),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--verbose`: each definition of the file outside Azure ML YAML, where it is, and each
/// of its values not known statically with why (such a value fires no rule), the latter
/// one level deeper.
fn definition_steps(file: &FileReport) -> Vec<(usize, String)> {
    let mut steps = Vec::new();
    for d in outside_yaml(file) {
        let line = file.source.position(d.span.start).line;
        let name = match d.known_name() {
            Some(n) => format!("`{n}`"),
            None => format!("a compute named `{}`", d.name.written),
        };
        steps.push((
            0,
            format!(
                "line {line}: {} defines {name} ({})",
                d.command,
                d.source.as_str()
            ),
        ));
        let named = std::iter::once(("name", &d.name));
        for (key, setting) in named.chain(d.fields.iter().map(|(k, s)| (k.as_str(), s))) {
            if setting.value.is_none() {
                let consequence = if key == "name" {
                    "no reference resolves to it"
                } else {
                    "no rule judges it"
                };
                steps.push((
                    1,
                    format!(
                        "its {key} `{}` is not known statically: {}; {consequence}",
                        setting.written,
                        setting
                            .why
                            .as_deref()
                            .unwrap_or("it is computed when the file runs")
                    ),
                ));
            }
        }
        for note in &d.notes {
            steps.push((1, note.clone()));
        }
    }
    steps
}

fn file_line(file: &FileReport) -> Line {
    let outside = outside_yaml(file);
    let load_error = file
        .diagnostics
        .iter()
        .find(|d| [codes::AML001.code, codes::AML004.code, codes::AML005.code].contains(&d.code));
    let kinds: Vec<String> = file
        .classes
        .iter()
        .filter(|c| c.is_checked())
        .map(|c| match c.kind {
            Some(k) => {
                let mut s = k.id.clone();
                if c.uncertain.is_some() {
                    s.push_str(" (uncertain)");
                }
                s
            }
            None => "an unknown kind (syntax only)".to_string(),
        })
        .collect();
    if kinds.is_empty() && !outside.is_empty() {
        return Line {
            checked: true,
            text: format!("checked for its compute definitions ({})", names(&outside)),
        };
    }
    if kinds.is_empty() {
        // Not classified, yet reported: it does not parse, and names an Azure ML schema or
        // has the keys of an Azure ML configuration (`pipeline::looks_like_azure_ml`).
        if file.checked
            && let Some(d) = load_error
        {
            // Not read at all (AML004, AML005): an Azure ML configuration by its name or
            // format, or a file a definition reader looks into (`pipeline::report_unclassified`).
            let text = if d.code == "AML004" || d.code == "AML005" {
                format!(
                    "reported: it could not be read in full, and it may be an Azure ML configuration or define computes ({}: {})",
                    d.code, d.message
                )
            } else {
                format!(
                    "checked for syntax only: it does not parse, and it looks like an Azure ML configuration ({}: {})",
                    d.code, d.message
                )
            };
            return Line { checked: true, text };
        }
        let text = match (load_error, file.classes.first()) {
            (Some(d), _) if file.classes.iter().all(|c| c.kind.is_none()) => {
                format!("skipped: could not be read ({}: {})", d.code, d.message)
            }
            (_, Some(class)) => format!(
                "skipped: {}",
                reasons(&file.classes).unwrap_or_else(|| why(class))
            ),
            (_, None) => "skipped: not an Azure ML configuration".to_string(),
        };
        return Line { checked: false, text };
    }
    let mut text = format!("checked as {}", kinds.join(", "));
    if let Some(d) = load_error {
        text.push_str(&format!(" (with a load error, {})", d.code));
    }
    Line { checked: true, text }
}

fn why(class: &Classification) -> String {
    class
        .why_not_checked()
        .unwrap_or_else(|| "not an Azure ML configuration".to_string())
}

/// The distinct reasons of several documents, when there are several.
fn reasons(classes: &[Classification]) -> Option<String> {
    if classes.len() < 2 {
        return None;
    }
    let mut all: Vec<String> = classes.iter().map(why).collect();
    all.dedup();
    Some(all.join("; "))
}
