//! `--statistics`: how many findings each rule made, with how many of them `--fix` (and
//! `--unsafe-fixes`) can fix, most frequent first; as a table, or as JSON with
//! `--format json`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diagnostic::Severity;
use crate::escape;
use crate::results::Report;

/// One rule's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    pub code: &'static str,
    pub name: &'static str,
    /// The highest severity among its findings (after the configuration).
    pub severity: Severity,
    pub count: usize,
    /// Findings `--fix` fixes.
    pub fixable: usize,
    /// Findings only `--unsafe-fixes` fixes.
    pub unsafe_fixable: usize,
}

/// The counts by rule, most findings first, then by code.
pub fn counts(report: &Report) -> Vec<RuleCount> {
    let mut by_code: BTreeMap<&'static str, RuleCount> = BTreeMap::new();
    for (_, d) in report.diagnostics() {
        let c = by_code.entry(d.code).or_insert(RuleCount {
            code: d.code,
            name: d.name,
            severity: d.severity,
            count: 0,
            fixable: 0,
            unsafe_fixable: 0,
        });
        c.count += 1;
        c.severity = c.severity.max(d.severity);
        if d.fix_for(false).is_some() {
            c.fixable += 1;
        } else if d.fix_for(true).is_some() {
            c.unsafe_fixable += 1;
        }
    }
    let mut rows: Vec<RuleCount> = by_code.into_values().collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
    rows
}

/// The project's always-on cost (`[workspace] prices`): one line adding up the monthly
/// floor of the clusters that never scale to zero and of the managed online deployments,
/// per currency; `None` without prices. A cluster is counted once by its name, wherever
/// it is defined (a compute YAML, a script, Terraform, Bicep, ARM, the Python SDK), at
/// the highest floor its definitions give (definitions that disagree are AML205).
pub fn always_on(report: &Report) -> Option<String> {
    let mut costs: Vec<&crate::results::AlwaysOnCost> = Vec::new();
    let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
    for c in report.files.iter().flat_map(|f| f.always_on.iter()) {
        match c.compute.as_deref() {
            Some(name) => match by_name.get(name) {
                Some(&i) if costs[i].monthly >= c.monthly => {}
                Some(&i) => costs[i] = c,
                None => {
                    by_name.insert(name, costs.len());
                    costs.push(c);
                }
            },
            None => costs.push(c),
        }
    }
    if costs.is_empty() {
        return None;
    }
    let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
    let mut sources: Vec<&str> = Vec::new();
    for c in &costs {
        *totals.entry(c.currency.as_str()).or_default() += c.monthly;
        if !sources.contains(&c.source.as_str()) {
            sources.push(&c.source);
        }
    }
    let amount = totals
        .iter()
        .map(|(currency, total)| format!("{total:.2} {currency}"))
        .collect::<Vec<_>>()
        .join(" + ");
    let what: Vec<String> = [
        (
            "amlCompute",
            "cluster that never scales to zero",
            "clusters that never scale to zero",
        ),
        (
            "managedOnlineDeployment",
            "managed online deployment",
            "managed online deployments",
        ),
    ]
    .into_iter()
    .filter_map(|(kind, one, many)| {
        let n = costs.iter().filter(|c| c.kind == kind).count();
        (n > 0).then(|| format!("{n} {}", if n == 1 { one } else { many }))
    })
    .collect();
    let line = format!(
        "always-on cost: {amount} a month ({}: instances × hourly price × 730 hours; prices from {})",
        what.join(" and "),
        sources.join(", ")
    );
    Some(escape::control(&line).into_owned())
}

/// The table: count, code, name, severity, fixable counts; a total line; the always-on
/// cost when the configuration prices the project.
pub fn render(report: &Report) -> String {
    let mut text = table(report);
    let computes = super::inventory::totals(report);
    if computes.definitions + computes.references > 0 {
        text.push_str(&super::inventory::summary_line(&computes));
        text.push('\n');
    }
    if let Some(cost) = always_on(report) {
        text.push_str(&cost);
        text.push('\n');
    }
    escape::workflow_commands(text)
}

fn table(report: &Report) -> String {
    let rows = counts(report);
    if rows.is_empty() {
        return "no findings\n".to_string();
    }
    let count_w = rows.iter().map(|r| r.count.to_string().len()).max().unwrap_or(1);
    let code_w = rows.iter().map(|r| r.code.len()).max().unwrap_or(6);
    let name_w = rows.iter().map(|r| r.name.len()).max().unwrap_or(4);
    let mut out = String::new();
    for r in &rows {
        let mut fixable = Vec::new();
        if r.fixable > 0 {
            fixable.push(format!("{} fixable", r.fixable));
        }
        if r.unsafe_fixable > 0 {
            fixable.push(format!("{} with --unsafe-fixes", r.unsafe_fixable));
        }
        let line = format!(
            "{:>count_w$}  {:<code_w$}  {:<name_w$}  {:<7}  {}",
            r.count,
            r.code,
            r.name,
            r.severity.as_str(),
            if fixable.is_empty() {
                String::new()
            } else {
                format!("[{}]", fixable.join(", "))
            }
        );
        out.push_str(escape::control(line.trim_end()).as_ref());
        out.push('\n');
    }
    let total: usize = rows.iter().map(|r| r.count).sum();
    let fixable: usize = rows.iter().map(|r| r.fixable).sum();
    let unsafe_fixable: usize = rows.iter().map(|r| r.unsafe_fixable).sum();
    out.push_str(&format!(
        "{total} finding{} of {} rule{}; {fixable} fixable with --fix, {unsafe_fixable} more with --unsafe-fixes\n",
        if total == 1 { "" } else { "s" },
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
    ));
    out
}

/// The counts as a JSON array (`--statistics --format json`).
pub fn render_json(report: &Report) -> String {
    let mut text = escape::to_json_pretty(&counts(report)).unwrap_or_else(|_| "[]".to_string());
    text.push('\n');
    text
}
