//! Every fact rules read as `$name.field`, defined once: its name, its fields, what it
//! says, and how it is resolved. The rule compiler checks fact paths against this table
//! (`policy::check_fact_path`) and evaluation resolves through it ([`DocFacts::fact`]).

use super::doc_facts::{DocFacts, human_bytes, vm_field};
use super::value::{Resolved, Val};
use crate::document::NodeId;

/// How a fact's value is found: from the document's facts, the path after the fact's
/// name, the node reported and the pipeline step in scope; with the node that holds it.
pub type FactResolver =
    fn(&DocFacts<'_>, &[String], Option<NodeId>, Option<NodeId>) -> (Resolved, Option<NodeId>);

/// What may follow a fact's name.
#[derive(Clone, Copy, Debug)]
pub enum Fields {
    /// Nothing: the fact is read whole (`$workload`).
    Whole,
    /// One of these fields; a field listed in `nested` has fields of its own
    /// (`$target.vm.series`).
    Named {
        fields: &'static [&'static str],
        nested: &'static [(&'static str, &'static [&'static str])],
    },
    /// Exactly one name of the user's choosing (`$params.<name>`).
    AnyName,
}

/// One fact.
pub struct Fact {
    pub name: &'static str,
    pub fields: Fields,
    /// What it holds, for docs and messages.
    pub summary: &'static str,
    /// `None`: resolved by the rule engine itself (`$params`, which falls back to the
    /// rule's own defaults).
    pub resolve: Option<FactResolver>,
}

/// The fields of a VM size (`$vm.*`, `$target.vm.*`).
pub const VM_FIELDS: &[&str] = &[
    "name",
    "written",
    "known",
    "series",
    "series_names",
    "family",
    "category",
    "accelerator",
    "support",
    "support_basis",
    "retirement",
    "retired",
    "vcpus",
    "memory_gib",
    "gpus",
    "fpgas",
    "isolated",
    "closest",
];

/// Every fact, in the order the docs list them.
pub const FACTS: &[Fact] = &[
    Fact {
        name: "vm",
        fields: Fields::Named {
            fields: VM_FIELDS,
            nested: &[],
        },
        summary: "the VM size the reported node names (a compute's `size`, a deployment's `instance_type`), from the catalogue",
        resolve: Some(vm),
    },
    Fact {
        name: "target",
        fields: Fields::Named {
            fields: &["type", "name", "resolved", "similar", "searched", "vm"],
            nested: &[("vm", VM_FIELDS)],
        },
        summary: "where the workload runs: the compute's type and name, whether the project or inventory defines it (if not: a near name, and the folder searched when no git work tree or amlint.toml marks the project), and its VM",
        resolve: Some(target),
    },
    Fact {
        name: "model",
        fields: Fields::Named {
            fields: &["size_bytes", "size", "name", "version"],
            nested: &[],
        },
        summary: "the model a deployment serves: its size on disk or in the inventory, name and version",
        resolve: Some(model),
    },
    Fact {
        name: "workload",
        fields: Fields::Whole,
        summary: "what the document (or the pipeline step in scope) runs: `training`, `automl`, `pipeline`, `batch` or `realtime`",
        resolve: Some(workload),
    },
    Fact {
        name: "gpu",
        fields: Fields::Named {
            fields: &["requested"],
            nested: &[],
        },
        summary: "GPUs the workload asks for",
        resolve: Some(gpu),
    },
    Fact {
        name: "memory_gib",
        fields: Fields::Whole,
        summary: "memory available to the workload, in GiB",
        resolve: Some(memory_gib),
    },
    Fact {
        name: "memory",
        fields: Fields::Named {
            fields: &["size", "model_ratio"],
            nested: &[],
        },
        summary: "that memory for messages, and its ratio to the model's size",
        resolve: Some(memory),
    },
    Fact {
        name: "cost",
        fields: Fields::Named {
            fields: &["floor", "monthly", "hourly", "currency", "instances", "source"],
            nested: &[],
        },
        summary: "what a compute cluster's `min_instances` or a managed online deployment's `instance_count` costs running around the clock, from `[workspace] prices`: `floor` (the computation, for messages), `monthly` (instances × hourly price × 730), `hourly`, `currency`, `instances`, `source` (the price file); unknown without a price for the size",
        resolve: Some(cost),
    },
    Fact {
        name: "aks",
        fields: Fields::Named {
            fields: &[
                "purpose",
                "purpose_default",
                "nodes",
                "nodes_default",
                "size",
                "size_default",
                "size_vcpus",
                "vcpus",
            ],
            nested: &[],
        },
        summary: "an AKS inference cluster a compute definition creates (SDK v1 `AksCompute`, `az ml computetarget create aks`, ARM and Bicep `AKS`, Terraform's inference cluster): its `purpose` (`FastProd` when not set), `nodes` (3 when not set), node `size` (`Standard_D3_v2` when not set) and its `size_vcpus`, `vcpus` (nodes × the size's vCPUs); `purpose_default`, `nodes_default` and `size_default` have a value only when the default applies",
        resolve: Some(aks),
    },
    Fact {
        name: "params",
        fields: Fields::AnyName,
        summary: "a rule parameter: the configuration's `[params]`, else the rule's default",
        resolve: None,
    },
    Fact {
        name: "profile",
        fields: Fields::Whole,
        summary: "the configuration's `profile` (`dev` or `production`)",
        resolve: Some(profile),
    },
    Fact {
        name: "today",
        fields: Fields::Whole,
        summary: "today's date (`YYYY-MM-DD`; `AMLINT_TODAY` sets it)",
        resolve: Some(today),
    },
    Fact {
        name: "kind",
        fields: Fields::Whole,
        summary: "the document's kind (`commandJob`, `managedOnlineDeployment`, ...)",
        resolve: Some(kind),
    },
    Fact {
        name: "file",
        fields: Fields::Named {
            fields: &["path", "name"],
            nested: &[],
        },
        summary: "the checked file: its path relative to the directory of the configuration that applies (as `[per-file-ignores]` patterns are; `/` separators) and its name",
        resolve: Some(file),
    },
];

/// The fact named `name`.
pub fn fact(name: &str) -> Option<&'static Fact> {
    FACTS.iter().find(|f| f.name == name)
}

fn one(v: Val) -> Resolved {
    Resolved::Values(vec![v])
}

fn vm(
    facts: &DocFacts<'_>,
    rest: &[String],
    subject: Option<NodeId>,
    scope: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    match facts.vm_for(subject, scope) {
        Some(v) => (vm_field(&v.facts, &rest.join("."), facts.base), Some(v.node)),
        None => (Resolved::Unknown, None),
    }
}

fn target(
    facts: &DocFacts<'_>,
    rest: &[String],
    subject: Option<NodeId>,
    scope: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let t = facts.target_for(subject, scope);
    let value = match rest.first().map(String::as_str) {
        Some("type") => t.ttype.clone().map_or(Resolved::Unknown, |s| one(Val::Str(s))),
        Some("name") => Resolved::Values(t.name.clone().map(Val::Str).into_iter().collect()),
        Some("resolved") => Resolved::Values(t.resolved.map(Val::Bool).into_iter().collect()),
        // Searched only when asked (a message), not at every evaluation of `$target`.
        Some("similar") => Resolved::Values(
            match (&t.name, t.resolved) {
                (Some(name), Some(false)) => facts.base.similar_compute(name),
                _ => None,
            }
            .map(Val::Str)
            .into_iter()
            .collect(),
        ),
        // Where an unresolved name was looked for, when that is a folder the run took as
        // the project for want of a marker (`Project::unmarked_root`), not a project.
        Some("searched") => Resolved::Values(
            match t.resolved {
                Some(false) => facts.base.unmarked_root.clone(),
                _ => None,
            }
            .map(Val::Str)
            .into_iter()
            .collect(),
        ),
        Some("vm") => match &t.vm {
            Some(v) => vm_field(v, &rest[1..].join("."), facts.base),
            None => Resolved::Unknown,
        },
        _ => Resolved::Unknown,
    };
    (value, t.source)
}

fn model(
    facts: &DocFacts<'_>,
    rest: &[String],
    _: Option<NodeId>,
    _: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let m = facts.model();
    let value = match rest.first().map(String::as_str) {
        Some("size_bytes") => m
            .size_bytes
            .map_or(Resolved::Unknown, |b| one(Val::Num(b as f64))),
        Some("size") => m
            .size_bytes
            .map_or(Resolved::Unknown, |b| one(Val::Str(human_bytes(b)))),
        Some("name") => m.name.clone().map_or(Resolved::Unknown, |s| one(Val::Str(s))),
        Some("version") => m.version.clone().map_or(Resolved::Unknown, |s| one(Val::Str(s))),
        _ => Resolved::Unknown,
    };
    (value, m.source)
}

fn workload(
    facts: &DocFacts<'_>,
    _: &[String],
    _: Option<NodeId>,
    scope: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let value = facts
        .workload(scope)
        .map_or(Resolved::Unknown, |w| one(Val::Str(w.to_string())));
    (value, None)
}

fn gpu(
    facts: &DocFacts<'_>,
    rest: &[String],
    _: Option<NodeId>,
    scope: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let value = match rest.first().map(String::as_str) {
        Some("requested") => facts
            .gpus_requested(scope)
            .map_or(Resolved::Unknown, |g| one(Val::Num(g))),
        _ => Resolved::Unknown,
    };
    (value, None)
}

fn memory_gib(
    facts: &DocFacts<'_>,
    _: &[String],
    _: Option<NodeId>,
    scope: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    match facts.memory_gib(scope) {
        Some((g, source)) => (one(Val::Num(g)), source),
        None => (Resolved::Unknown, None),
    }
}

fn memory(
    facts: &DocFacts<'_>,
    rest: &[String],
    _: Option<NodeId>,
    scope: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let memory = facts.memory_gib(scope);
    let value = match (rest.first().map(String::as_str), memory) {
        (Some("size"), Some((gib, _))) => one(Val::Str(human_bytes((gib * 1024f64.powi(3)) as u64))),
        (Some("model_ratio"), Some((gib, _))) => match facts.model().size_bytes {
            Some(bytes) if bytes > 0 => one(Val::Num(gib * 1024f64.powi(3) / bytes as f64)),
            _ => Resolved::Unknown,
        },
        _ => Resolved::Unknown,
    };
    (value, memory.and_then(|(_, source)| source))
}

fn cost(
    facts: &DocFacts<'_>,
    rest: &[String],
    _: Option<NodeId>,
    _: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let Some(c) = facts.always_on() else {
        return (Resolved::Unknown, None);
    };
    let value = match rest.first().map(String::as_str) {
        Some("floor") => one(Val::Str(c.floor())),
        Some("monthly") => one(Val::Num(c.monthly())),
        Some("hourly") => one(Val::Num(c.hourly)),
        Some("currency") => one(Val::Str(c.currency.clone())),
        Some("instances") => one(Val::Num(c.instances)),
        Some("source") => one(Val::Str(c.file.clone())),
        _ => Resolved::Unknown,
    };
    (value, Some(c.node))
}

fn aks(
    facts: &DocFacts<'_>,
    rest: &[String],
    _: Option<NodeId>,
    _: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let Some(a) = facts.aks() else {
        return (Resolved::Unknown, None);
    };
    // A default's field: "the default" when it applies, no value when the file sets it.
    let default = |d: Option<bool>| match d {
        Some(true) => one(Val::Str("the default".into())),
        Some(false) => Resolved::Values(Vec::new()),
        None => Resolved::Unknown,
    };
    let value = match rest.first().map(String::as_str) {
        Some("purpose") => a
            .purpose
            .map_or(Resolved::Unknown, |(p, _)| one(Val::Str(p.into()))),
        Some("purpose_default") => default(a.purpose.map(|(_, d)| d)),
        Some("nodes") => a
            .nodes
            .map_or(Resolved::Unknown, |(n, _)| one(Val::Num(n as f64))),
        Some("nodes_default") => default(a.nodes.map(|(_, d)| d)),
        Some("size") => a
            .size
            .as_ref()
            .map_or(Resolved::Unknown, |(s, _)| one(Val::Str(s.clone()))),
        Some("size_default") => default(a.size.as_ref().map(|(_, d)| *d)),
        Some("size_vcpus") => a.size_vcpus.map_or(Resolved::Unknown, |v| one(Val::Num(v))),
        Some("vcpus") => a.vcpus().map_or(Resolved::Unknown, |v| one(Val::Num(v))),
        _ => Resolved::Unknown,
    };
    (value, a.node)
}

fn profile(
    facts: &DocFacts<'_>,
    _: &[String],
    _: Option<NodeId>,
    _: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    (one(Val::Str(facts.base.profile().to_string())), None)
}

fn today(
    facts: &DocFacts<'_>,
    _: &[String],
    _: Option<NodeId>,
    _: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    (one(Val::Str(facts.base.today.clone())), None)
}

fn kind(
    facts: &DocFacts<'_>,
    _: &[String],
    _: Option<NodeId>,
    _: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    (one(Val::Str(facts.kind.id.clone())), None)
}

fn file(
    facts: &DocFacts<'_>,
    rest: &[String],
    _: Option<NodeId>,
    _: Option<NodeId>,
) -> (Resolved, Option<NodeId>) {
    let value = match rest.first().map(String::as_str) {
        Some("path") => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let absolute = crate::fsio::absolute(facts.file, &cwd);
            let dir = crate::fsio::normalize(&facts.base.config.dir);
            let relative = absolute.strip_prefix(&dir).unwrap_or(&absolute);
            let text: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            one(Val::Str(text.join("/")))
        }
        Some("name") => match facts.file.file_name() {
            Some(name) => one(Val::Str(name.to_string_lossy().into_owned())),
            None => Resolved::Unknown,
        },
        _ => Resolved::Unknown,
    };
    (value, None)
}

impl DocFacts<'_> {
    /// Resolves a fact path (`$vm.gpus` is `("vm", ["gpus"])`) through its entry in
    /// [`FACTS`], with the node that holds it in this document when there is one.
    pub fn fact(
        &self,
        name: &str,
        rest: &[String],
        subject: Option<NodeId>,
        scope: Option<NodeId>,
    ) -> (Resolved, Option<NodeId>) {
        match fact(name).and_then(|f| f.resolve) {
            Some(resolve) => resolve(self, rest, subject, scope),
            None => (Resolved::Unknown, None),
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn every_fact_but_params_has_a_resolver_and_names_are_unique() {
        for f in FACTS {
            assert_eq!(
                f.resolve.is_none(),
                matches!(f.fields, Fields::AnyName),
                "${}",
                f.name
            );
            assert_eq!(
                FACTS.iter().filter(|g| g.name == f.name).count(),
                1,
                "${}",
                f.name
            );
        }
    }
}
