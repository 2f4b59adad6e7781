//! Quota pre-flight against the workspace snapshot (`[workspace]`, docs/configuration.md):
//!
//! - AML506: a compute cluster, compute instance or managed online deployment whose most
//!   vCPUs (`max_instances` / `instance_count` × the size's vCPUs) exceed what is left of a
//!   quota line that counts them (its family's line for its tier, the regional total);
//! - AML507: the project's clusters of one line, together, past what is left of it (one
//!   finding at each, naming the others);
//! - AML204: a compute the `computes` snapshot does not know (its definition, or a
//!   reference only the `[inventory]` resolves).
//!
//! No snapshot, no finding: each rule needs the file it reads.

use std::collections::HashSet;

use crate::config::workspace::{Line, WorkspaceSnapshot, usage_command};
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::document::{Document, NodeId, Value};
use crate::facts::DocFacts;
use crate::facts::index::{Reference, compute_type_of_kind, parse_reference};
use crate::facts::workspace::{Counted, Demand, DemandKind, limit_text, lines_for, num, region_text};

use super::context::DocContext;

/// The codes this check reports besides AML506.
pub const CODES: &[&str] = &[codes::AML507.code, codes::AML204.code];

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let (Some(facts), Some(ws)) = (cx.facts, cx.config.workspace.as_deref()) else {
        return;
    };
    not_in_snapshot(cx, facts, ws, out);
    if ws.usage.is_empty() {
        return;
    }
    let Some(demand) = facts.demand(ws) else {
        return;
    };
    let Some(usage) = ws.usage_for(demand.region.as_deref()) else {
        return;
    };
    let lines = lines_for(usage, &demand.vm, demand.tier);
    let mut alone = Vec::new();
    for c in &lines {
        let Some(left) = c.line.left() else {
            continue;
        };
        if demand.vcpus_needed() > left as f64 {
            out.push(exceeded(cx, facts, &demand, c, left));
            alone.push(c.line.line.clone());
        }
    }
    if demand.what == DemandKind::Cluster {
        shared(cx, facts, ws, &demand, &lines, &alone, out);
    }
}

fn span(doc: &Document, id: NodeId) -> crate::source::Span {
    doc.node(id).span
}

/// `Standard_DS3_v2`, as written.
fn size_text(d: &Demand) -> String {
    crate::escape::control(d.vm.written.trim()).into_owned()
}

/// `(limit 24, 14 in use; azure/usage-eastus.json)`.
fn where_text(c: &Counted<'_>) -> String {
    format!("{}; {}", limit_text(c.line), c.usage.file)
}

fn exceeded(cx: &DocContext<'_>, facts: &DocFacts<'_>, d: &Demand, c: &Counted<'_>, left: u64) -> Diagnostic {
    let region = region_text(c.usage.region.as_deref().or(d.region.as_deref()));
    let message = format!(
        "{} × {} vCPUs ({}) = {} vCPUs, more than the {left} left of `{}` in {region} ({})",
        d.count_text,
        num(d.vcpus),
        size_text(d),
        num(d.vcpus_needed()),
        crate::escape::control(&c.line.name),
        where_text(c),
    );
    let fit = (left as f64 / d.vcpus).floor();
    let lower = match d.what {
        DemandKind::Cluster if fit >= 1.0 => format!("lower `max_instances` to {} or less, ", num(fit)),
        DemandKind::Deployment if fit >= 1.0 => format!("lower `instance_count` to {} or less, ", num(fit)),
        _ => String::new(),
    };
    let mut help = format!(
        "Ask for more quota for `{}` in {region} (Azure ML studio, Quota; or the portal's Usage + quotas), {lower}or choose a size of a family with quota left. The snapshot is `{}` of {}: refresh it just before the check (docs/integrations.md).",
        crate::escape::control(&c.line.name),
        usage_command(c.usage.region.as_deref().or(d.region.as_deref())),
        c.usage.file,
    );
    if d.what == DemandKind::Deployment {
        let reserved = (1.2 * d.count).ceil() * d.vcpus;
        help.push_str(&format!(
            " Azure ML also reserves 20% more for upgrades on most sizes: a deployment of {} instances needs {} vCPUs free.",
            num(d.count),
            num(reserved)
        ));
    }
    Diagnostic::new(codes::AML506, span(facts.doc, d.at), message)
        .with_severity(cx.severity_of(codes::AML506))
        .with_help(help)
}

/// How many other clusters a finding names; the rest are counted.
const NAMED: usize = 10;

/// AML507: the first line (family, then regional total) that the project's clusters of
/// the workspace exceed together though this one alone does not.
fn shared(
    cx: &DocContext<'_>,
    facts: &DocFacts<'_>,
    ws: &WorkspaceSnapshot,
    d: &Demand,
    lines: &[Counted<'_>],
    alone: &[Line],
    out: &mut Findings,
) {
    let Some(root) = facts.doc.root else {
        return;
    };
    let me = match facts.doc.get(root, "name").map(|n| facts.doc.value(n)) {
        Some(Value::Str(s)) => s.to_string(),
        _ => return,
    };
    let clusters = facts.base.project_clusters(ws);
    for c in lines {
        let Some(left) = c.line.left() else {
            continue;
        };
        if alone.contains(&c.line.line) {
            // AML506 reports this line for this cluster.
            return;
        }
        let Some(group) = clusters.group(&c.line.line, d.region.as_deref()) else {
            continue;
        };
        // The index's entry for this cluster counts as what the document itself asks.
        let me_at = clusters
            .index_of(&me)
            .filter(|i| group.members.binary_search(i).is_ok());
        let mine = me_at.map_or(0.0, |i| clusters.clusters[i].vcpus_needed());
        let others = group.members.len() - usize::from(me_at.is_some());
        if others == 0 {
            continue;
        }
        let total = group.vcpus - mine + d.vcpus_needed();
        if total <= left as f64 {
            continue;
        }
        let region = region_text(c.usage.region.as_deref().or(d.region.as_deref()));
        let mut names = group
            .members
            .iter()
            .filter(|&&i| Some(i) != me_at)
            .take(NAMED)
            .map(|&i| {
                let o = &clusters.clusters[i];
                format!(
                    "`{}` ({} × {} = {} vCPUs, {})",
                    crate::escape::control(&o.name),
                    num(o.count),
                    num(o.vcpus),
                    num(o.vcpus_needed()),
                    crate::escape::control(&o.file)
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        if others > NAMED {
            names.push_str(&format!(" and {} more", others - NAMED));
        }
        let message = format!(
            "`{}` ({} × {} vCPUs = {}) and {names} share `{}`: together they can scale to {} vCPUs, more than the {left} left in {region} ({})",
            crate::escape::control(&me),
            d.count_text,
            num(d.vcpus),
            num(d.vcpus_needed()),
            crate::escape::control(&c.line.name),
            num(total),
            where_text(c),
        );
        let help = format!(
            "Clusters of one quota line share it: when they scale up at once, the last to ask for nodes wait or fail. Ask for more quota for `{}` in {region}, or lower their `max_instances` so that together they stay within {left} vCPUs.",
            crate::escape::control(&c.line.name)
        );
        out.push(
            Diagnostic::new(codes::AML507, span(facts.doc, d.at), message)
                .with_severity(cx.severity_of(codes::AML507))
                .with_help(help),
        );
        return;
    }
}

/// The nodes of a document that name a compute: `compute`, `settings.default_compute`,
/// each step's `compute`, SDK v1 `computeTargetName`.
fn compute_references(doc: &Document) -> Vec<NodeId> {
    let Some(root) = doc.root else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(doc.get(root, "compute"));
    out.extend(doc.get(root, "computeTargetName"));
    if let Some(settings) = doc.get(root, "settings") {
        out.extend(doc.get(settings, "default_compute"));
    }
    if let Some(jobs) = doc.get(root, "jobs") {
        for (_, step) in doc.kept_entries(jobs) {
            out.extend(doc.get(step, "compute"));
        }
    }
    out.sort_by_key(|id| doc.node(*id).span.start);
    out
}

/// AML204: a compute the `computes` snapshot does not list — at its definition in the
/// project, or at the first reference in a file to a compute only the inventory declares.
fn not_in_snapshot(cx: &DocContext<'_>, facts: &DocFacts<'_>, ws: &WorkspaceSnapshot, out: &mut Findings) {
    if !ws.has_computes() {
        return;
    }
    let doc = facts.doc;
    let Some(root) = doc.root else {
        return;
    };
    let files = ws.compute_files.join(", ");
    let severity = cx.severity_of(codes::AML204);
    let refresh = format!(
        "If it exists, the snapshot is older than it: refresh it with `{} > {}` before the check (docs/integrations.md).",
        crate::config::workspace::COMPUTES_COMMAND,
        ws.compute_files.first().map_or("computes.json", String::as_str)
    );
    if compute_type_of_kind(&facts.kind.id).is_some() {
        if let Some(node) = doc.get(root, "name") {
            if let Value::Str(name) = doc.value(node) {
                if ws.compute(name).is_none() {
                    out.push(
                        Diagnostic::new(
                            codes::AML204,
                            span(doc, node),
                            format!(
                                "`{}` is not in the workspace snapshot ({files}): the compute does not exist yet, or the snapshot is older than it",
                                crate::escape::control(name)
                            ),
                        )
                        .with_severity(severity)
                        .with_help(format!(
                            "{refresh} A new compute is checked against the quota as it is written here."
                        )),
                    );
                }
            }
        }
        return;
    }
    let mut seen = HashSet::new();
    for node in compute_references(doc) {
        let Value::Str(text) = doc.value(node) else {
            continue;
        };
        let Reference::Named { name, .. } = parse_reference(text) else {
            continue;
        };
        if !seen.insert(name.to_ascii_lowercase()) {
            continue;
        }
        // The project's definition says it (once); a name nothing declares is AML203's.
        if facts.base.compute_agreement(&name).agreed().is_some()
            || ws.compute(&name).is_some()
            || cx.config.inventory.compute(&name).is_none()
        {
            continue;
        }
        out.push(
            Diagnostic::new(
                codes::AML204,
                span(doc, node),
                format!(
                    "`{}` is declared in the `[inventory]` but not in the workspace snapshot ({files}): the compute does not exist (yet), or the snapshot is older than it",
                    crate::escape::control(&name)
                ),
            )
            .with_severity(severity)
            .with_help(refresh.clone()),
        );
    }
}
