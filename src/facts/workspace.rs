//! Facts from the workspace snapshot (`[workspace]`, `config::workspace`): what a compute
//! cluster, compute instance or managed online deployment asks of its VM family's quota,
//! the quota lines that count it, what it costs when it never scales to zero, and the text
//! an editor shows on a VM size.

use crate::config::workspace::{HOURS_PER_MONTH, Line, Tier, Usage, UsageLine, WorkspaceSnapshot};
use crate::document::{NodeId, Value};

pub use super::clusters::{Cluster, Group, ProjectClusters};
use super::doc_facts::{DocFacts, FactBase, number_at, string_at};
use super::vm::VmFacts;

/// What a document asks of quota: `count` VMs of a size, in a tier and region.
#[derive(Debug, Clone)]
pub struct Demand {
    pub vm: VmFacts,
    /// Its vCPUs (a size the catalogue or the inventory lists).
    pub vcpus: f64,
    /// The most VMs it runs: a cluster's `max_instances` (1 when absent, the SDK's
    /// default), a deployment's `instance_count`, one compute instance.
    pub count: f64,
    /// The node that sets `count` (`max_instances`, `instance_count`), else the size's.
    pub at: NodeId,
    /// How the count is written, for messages: `max_instances: 4`.
    pub count_text: String,
    pub size_node: NodeId,
    pub tier: Tier,
    /// `region_key` form, when known.
    pub region: Option<String>,
    pub what: DemandKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemandKind {
    Cluster,
    Instance,
    Deployment,
}

impl Demand {
    /// vCPUs at most.
    pub fn vcpus_needed(&self) -> f64 {
        self.count * self.vcpus
    }
}

/// A quota line that counts a demand, with the usage file it is from.
#[derive(Debug, Clone, Copy)]
pub struct Counted<'w> {
    pub line: &'w UsageLine,
    pub usage: &'w Usage,
}

/// The lines of `usage` that count VMs of `vm` in `tier`: its family's line (by the
/// catalogue's family and its other names), then the regional total.
pub fn lines_for<'w>(usage: &'w Usage, vm: &VmFacts, tier: Tier) -> Vec<Counted<'w>> {
    let mut out = Vec::new();
    let keys = vm.quota_keys();
    if let Some(line) = usage.lines.iter().find(|l| match &l.line {
        Line::Family { key, tier: t } => *t == tier && keys.iter().any(|k| k == key),
        Line::Regional(_) => false,
    }) {
        out.push(Counted { line, usage });
    }
    if let Some(line) = usage.line(&Line::Regional(tier)) {
        out.push(Counted { line, usage });
    }
    out
}

/// A number for messages: `24`, `1.5`.
pub fn num(n: f64) -> String {
    super::value::Val::Num(n).display()
}

/// `limit 24, 14 in use` (or that the snapshot does not say what is in use).
pub fn limit_text(line: &UsageLine) -> String {
    match (line.limit, line.current) {
        (Some(l), Some(c)) => format!("limit {l}, {c} in use"),
        (Some(l), None) => format!("limit {l}; the snapshot does not say how many are in use"),
        (None, Some(c)) => format!("no limit, {c} in use"),
        (None, None) => "no limit".to_string(),
    }
}

/// The region as messages show it.
pub fn region_text(region: Option<&str>) -> String {
    region.map_or_else(|| "the workspace's region".to_string(), |r| r.to_string())
}

impl DocFacts<'_> {
    /// What this document asks of quota (a compute cluster, a compute instance, a managed
    /// online deployment), when its size's vCPUs are known and the workspace is.
    pub fn demand(&self, ws: &WorkspaceSnapshot) -> Option<Demand> {
        let root = self.doc.root?;
        let (size_key, count_key, what) = match self.kind.id.as_str() {
            "amlCompute" => ("size", Some("max_instances"), DemandKind::Cluster),
            "computeInstance" => ("size", None, DemandKind::Instance),
            "managedOnlineDeployment" => ("instance_type", Some("instance_count"), DemandKind::Deployment),
            _ => return None,
        };
        let size_node = self.doc.get(root, size_key)?;
        string_at(self.doc, size_node)?;
        let vm = self.vm_for(Some(size_node), None)?.facts.clone();
        let vcpus = vm.size.as_ref()?.vcpus;
        let count_node = count_key.and_then(|k| self.doc.get(root, k));
        let count = match count_node {
            Some(n) => number_at(self.doc, n).filter(|c| c.is_finite() && *c >= 0.0)?,
            None => 1.0,
        };
        let count_text = match (count_key, count_node) {
            (Some(k), Some(_)) => format!("`{k}: {}`", num(count)),
            (Some(k), None) => format!("{} (no `{k}`)", num(count)),
            (None, _) => "one compute instance".to_string(),
        };
        let tier = match self.doc.get(root, "tier").map(|t| self.doc.value(t)) {
            Some(Value::Str(t)) if what == DemandKind::Cluster => Tier::parse(t).unwrap_or(Tier::Dedicated),
            _ => Tier::Dedicated,
        };
        let location = match what {
            DemandKind::Deployment => None,
            _ => self
                .doc
                .get(root, "location")
                .and_then(|l| string_at(self.doc, l)),
        };
        Some(Demand {
            vm,
            vcpus,
            count,
            at: count_node.unwrap_or(size_node),
            count_text,
            size_node,
            tier,
            region: ws.region_for(location),
            what,
        })
    }

    /// What this document costs when idle, from the workspace's price files: a cluster's
    /// `min_instances`, a managed online deployment's `instance_count`, at the hourly
    /// price of its size in its region and tier, for 730 hours a month.
    pub fn always_on(&self) -> Option<AlwaysOn> {
        let ws = self.base.config.workspace.as_ref()?;
        if ws.prices.is_empty() {
            return None;
        }
        let root = self.doc.root?;
        let (size_key, count_key) = match self.kind.id.as_str() {
            "amlCompute" => ("size", "min_instances"),
            "managedOnlineDeployment" => ("instance_type", "instance_count"),
            _ => return None,
        };
        let size = self
            .doc
            .get(root, size_key)
            .and_then(|n| string_at(self.doc, n))?;
        let count_node = self.doc.get(root, count_key)?;
        let count = number_at(self.doc, count_node).filter(|c| c.is_finite() && *c >= 0.0)?;
        let tier = match self.doc.get(root, "tier").and_then(|t| string_at(self.doc, t)) {
            Some(t) if self.kind.id == "amlCompute" => Tier::parse(t).unwrap_or(Tier::Dedicated),
            _ => Tier::Dedicated,
        };
        let location = match self.kind.id.as_str() {
            "amlCompute" => self
                .doc
                .get(root, "location")
                .and_then(|l| string_at(self.doc, l)),
            _ => None,
        };
        let region = ws.region_for(location);
        let (price, file) = ws.price(size, region.as_deref(), tier)?;
        Some(AlwaysOn {
            instances: count,
            size: size.trim().to_string(),
            tier,
            region: price.region.clone().or(region),
            hourly: price.hourly,
            currency: price.currency.clone(),
            file: file.to_string(),
            node: count_node,
        })
    }
}

impl FactBase {
    /// The project's clusters under the workspace's directory (the rest of the project
    /// searched too when only some files are checked), grouped by the lines they share.
    pub fn project_clusters(&self, ws: &WorkspaceSnapshot) -> &ProjectClusters {
        self.clusters.get_or_init(|| {
            let dir = super::index::component_key(&ws.dir);
            let mut out = ProjectClusters::default();
            for e in self.index.computes_of_type("amlcompute") {
                let Some(file) = &e.file else {
                    continue;
                };
                if !super::index::component_key(std::path::Path::new(file)).starts_with(&dir) {
                    continue;
                }
                let Some(vm) = e.size.as_deref().and_then(|s| self.vm(s)) else {
                    continue;
                };
                let Some(vcpus) = vm.size.as_ref().map(|s| s.vcpus) else {
                    continue;
                };
                let scale = e.scale.as_ref();
                let cluster = Cluster {
                    name: e.name.clone(),
                    file: shown(file),
                    count: scale
                        .and_then(|s| s.max_instances)
                        .filter(|n| n.is_finite() && *n >= 0.0)
                        .unwrap_or(1.0),
                    vcpus,
                    tier: scale
                        .and_then(|s| s.tier.as_deref())
                        .and_then(Tier::parse)
                        .unwrap_or(Tier::Dedicated),
                    region: ws.region_for(scale.and_then(|s| s.location.as_deref())),
                };
                out.add(cluster, vm.quota_keys());
            }
            out
        })
    }
}

/// A file of the project index as the run shows paths: relative to the working directory
/// when it is below it (the rest of the project, searched when only some files are
/// checked, is indexed by absolute path).
fn shown(file: &str) -> String {
    let absolute = super::index::component_key(std::path::Path::new(file));
    let cwd = std::env::current_dir().unwrap_or_default();
    match absolute.strip_prefix(crate::fsio::normalize(&cwd)) {
        Ok(rel) if !rel.as_os_str().is_empty() => crate::fsio::shown(rel),
        _ => file.to_string(),
    }
}

/// A cost that runs whether or not anything uses the compute.
#[derive(Debug, Clone, PartialEq)]
pub struct AlwaysOn {
    pub instances: f64,
    pub size: String,
    pub tier: Tier,
    pub region: Option<String>,
    pub hourly: f64,
    pub currency: String,
    /// The price file.
    pub file: String,
    /// `min_instances` / `instance_count`.
    pub node: NodeId,
}

impl AlwaysOn {
    /// Per month: instances × hourly price × 730.
    pub fn monthly(&self) -> f64 {
        self.instances * self.hourly * HOURS_PER_MONTH
    }

    /// `388.36 USD`.
    pub fn monthly_text(&self) -> String {
        money(self.monthly(), &self.currency)
    }

    /// The computation, for messages: `2 × 0.266 USD an hour × 730 hours = 388.36 USD a
    /// month (Standard_DS3_v2 in eastus, azure/prices.json)`.
    pub fn floor(&self) -> String {
        format!(
            "{} × {} {} an hour{} × {} hours = {} a month ({} in {}, {})",
            num(self.instances),
            self.hourly,
            self.currency,
            if self.tier == Tier::LowPriority {
                " (low priority)"
            } else {
                ""
            },
            HOURS_PER_MONTH,
            self.monthly_text(),
            self.size,
            region_text(self.region.as_deref()),
            self.file
        )
    }
}

/// An amount with two decimals and its currency: `388.36 USD`.
pub fn money(amount: f64, currency: &str) -> String {
    format!("{amount:.2} {currency}")
}

/// What an editor shows on a VM size (Markdown): its vCPUs, memory, GPUs and series, the
/// quota lines it counts against, and — with a workspace snapshot — the limit and usage
/// of each in the region (`location`, else the workspace's) and its hourly price. `None`
/// when the text is not a VM size.
pub fn vm_size_hover(
    base: &FactBase,
    size: &str,
    location: Option<&str>,
    low_priority: bool,
) -> Option<String> {
    let vm = base.vm(size)?;
    let mut out = format!("**{}**", crate::escape::control(vm.written.trim()));
    let mut facts = Vec::new();
    if let Some(s) = &vm.size {
        facts.push(format!("{} vCPUs", num(s.vcpus)));
        facts.push(format!("{} GiB", num(s.memory_gib)));
        if s.gpus > 0.0 {
            let acc = vm
                .series
                .and_then(|s| s.accelerator.as_deref())
                .map(|a| format!(" ({a})"))
                .unwrap_or_default();
            facts.push(format!(
                "{} GPU{}{acc}",
                num(s.gpus),
                if s.gpus == 1.0 { "" } else { "s" }
            ));
        }
    }
    if let Some(series) = vm.series {
        facts.push(format!("series {}", series.id));
    }
    if !facts.is_empty() {
        out.push_str(&format!(": {}", facts.join(", ")));
    }
    if vm.size.is_none() {
        out.push_str(if vm.series.is_some() {
            " (a size the catalogue does not list: only its series is known)"
        } else {
            " (a size amlint does not know)"
        });
    }
    let tier = if low_priority {
        Tier::LowPriority
    } else {
        Tier::Dedicated
    };
    match vm.quota_line(low_priority) {
        Some(line) => out.push_str(&format!("\n\nQuota: `{line}`")),
        None => {
            out.push_str("\n\nQuota: the family is not in the catalogue (only the regional total applies)")
        }
    }
    if let Some(ws) = base.config.workspace.as_ref() {
        let region = ws.region_for(location);
        if let Some(usage) = ws.usage_for(region.as_deref()) {
            let lines = lines_for(usage, &vm, tier);
            if lines.is_empty() {
                out.push_str(&format!(
                    "\n\nNo line of `{}` counts it.",
                    crate::escape::control(&usage.file)
                ));
            }
            for c in lines {
                let left = c
                    .line
                    .left()
                    .map_or_else(|| "no limit".to_string(), |l| format!("{l} left"));
                out.push_str(&format!(
                    "\n\n{} in {}: {left} ({}; `{}`)",
                    crate::escape::control(&c.line.name),
                    region_text(usage.region.as_deref().or(region.as_deref())),
                    limit_text(c.line),
                    crate::escape::control(&c.usage.file)
                ));
            }
        }
        if let Some((price, file)) = ws.price(&vm.written, region.as_deref(), tier) {
            out.push_str(&format!(
                "\n\n{} {} an hour, {} a month running ({})",
                price.hourly,
                crate::escape::control(&price.currency),
                money(price.hourly * HOURS_PER_MONTH, &price.currency),
                crate::escape::control(file)
            ));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::workspace::{Price, PriceList};

    fn base_with(ws: WorkspaceSnapshot) -> FactBase {
        let mut config = crate::config::Config::shared_default().clone();
        config.workspace = Some(std::sync::Arc::new(ws));
        FactBase {
            config: std::sync::Arc::new(config),
            ..FactBase::standalone()
        }
    }

    fn usage() -> Usage {
        Usage {
            file: "azure/usage.json".into(),
            region: Some("eastus".into()),
            lines: vec![
                UsageLine {
                    name: "Standard DSv2 Family Cluster Dedicated vCPUs".into(),
                    line: Line::Family {
                        key: "dsv2".into(),
                        tier: Tier::Dedicated,
                    },
                    limit: Some(24),
                    current: Some(14),
                },
                UsageLine {
                    name: "Total Cluster Dedicated Regional vCPUs".into(),
                    line: Line::Regional(Tier::Dedicated),
                    limit: Some(100),
                    current: None,
                },
            ],
        }
    }

    #[test]
    fn a_size_counts_against_its_family_and_the_regional_total() {
        let vm = super::super::vm::catalogue().lookup("STANDARD_DS3_V2").unwrap();
        let u = usage();
        let lines = lines_for(&u, &vm, Tier::Dedicated);
        assert_eq!(lines.len(), 2);
        assert_eq!(
            (lines[0].line.left(), lines[1].line.left()),
            (Some(10), Some(100))
        );
        assert!(lines_for(&u, &vm, Tier::LowPriority).is_empty());
        let other = super::super::vm::catalogue().lookup("Standard_F4s_v2").unwrap();
        assert_eq!(lines_for(&u, &other, Tier::Dedicated).len(), 1);
    }

    #[test]
    fn hover_text_of_a_size() {
        let standalone = FactBase::standalone();
        let text = vm_size_hover(&standalone, "Standard_NC6s_v3", None, false).unwrap();
        assert!(
            text.starts_with("**Standard_NC6s_v3**: 6 vCPUs, 112 GiB, 1 GPU (Tesla V100"),
            "{text}"
        );
        assert!(
            text.contains("Quota: `Standard NCSv3 Family Cluster Dedicated vCPUs`"),
            "{text}"
        );
        assert!(vm_size_hover(&standalone, "defaultinstancetype", None, false).is_none());
        let mut ws = WorkspaceSnapshot::at(std::path::Path::new("/p"));
        ws.usage.push(usage());
        ws.prices.push(PriceList {
            file: "azure/prices.json".into(),
            items: vec![Price {
                sku: "standard_ds3_v2".into(),
                region: Some("eastus".into()),
                tier: Tier::Dedicated,
                spot: false,
                hourly: 0.266,
                currency: "USD".into(),
                effective: String::new(),
                primary: true,
            }],
        });
        let base = base_with(ws);
        let text = vm_size_hover(&base, "Standard_DS3_v2", None, false).unwrap();
        assert!(
            text.contains("Standard DSv2 Family Cluster Dedicated vCPUs in eastus: 10 left (limit 24, 14 in use; `azure/usage.json`)"),
            "{text}"
        );
        assert!(
            text.contains("Total Cluster Dedicated Regional vCPUs in eastus: 100 left (limit 100; the snapshot does not say how many are in use"),
            "{text}"
        );
        assert!(
            text.contains("0.266 USD an hour, 194.18 USD a month running (azure/prices.json)"),
            "{text}"
        );
        let low = vm_size_hover(&base, "Standard_DS3_v2", None, true).unwrap();
        assert!(
            low.contains("`Standard DSv2 Family Cluster LowPriority vCPUs`") && low.contains("No line of"),
            "{low}"
        );
    }

    #[test]
    fn money_and_floors() {
        let a = AlwaysOn {
            instances: 2.0,
            size: "Standard_DS3_v2".into(),
            tier: Tier::Dedicated,
            region: Some("eastus".into()),
            hourly: 0.266,
            currency: "USD".into(),
            file: "azure/prices.json".into(),
            node: NodeId(0),
        };
        assert_eq!(a.monthly_text(), "388.36 USD");
        assert_eq!(
            a.floor(),
            "2 × 0.266 USD an hour × 730 hours = 388.36 USD a month (Standard_DS3_v2 in eastus, azure/prices.json)"
        );
    }
}
