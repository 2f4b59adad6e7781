//! `[workspace]`: the workspace as a snapshot, read from the files the Azure CLI (or the
//! REST API) printed, so that rules can check quota and cost offline.
//!
//! ```toml
//! [workspace]
//! location = "eastus"                      # the region of computes that name none
//! computes = "azure/computes.json"         # az ml compute list -o json
//! usage = "azure/usage-eastus.json"        # az ml compute list-usage --location eastus -o json
//! prices = "azure/prices-eastus.json"      # items of the Azure Retail Prices API
//! ```
//!
//! Each file may also be a list of files (`usage` one per region, or a table
//! `{ eastus = "...", westus2 = "..." }`). Every file is read through `fsio` (inside the
//! project, regular, bounded), and a file that is not what its command prints is a
//! configuration error that names the command. Both forms are read: the CLI's (snake_case
//! keys of the azure-ai-ml entities: a list) and the REST API's (a `value` list with
//! camelCase keys). What amlint does not read is ignored; what it reads must have the type
//! the command prints.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::document::{Document, NodeId, Value};
use crate::source::Span;

/// The command that makes a `computes` file.
pub const COMPUTES_COMMAND: &str = "az ml compute list -o json";

/// The command that makes a `usage` file, for a region when it is known.
pub fn usage_command(region: Option<&str>) -> String {
    format!(
        "az ml compute list-usage --location {} -o json",
        region.unwrap_or("<region>")
    )
}

/// Where a `prices` file comes from.
pub const PRICES_SOURCE: &str = "the Azure Retail Prices API (https://prices.azure.com/api/retail/prices)";

/// The hours a month is billed for (Azure's pricing calculator uses 730).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The largest price file read: the prices of one region's VMs run to several megabytes, and
/// only the items of VM sizes are kept (the same bound as a baseline).
pub const MAX_PRICES_SIZE: u64 = crate::fsio::MAX_BASELINE_SIZE;

/// Azure's public regions (`armRegionName`), to read a usage file's region from its name
/// (`usage-westus2.json`) when its items do not say it.
pub const REGIONS: &[&str] = &[
    "australiacentral",
    "australiacentral2",
    "australiaeast",
    "australiasoutheast",
    "austriaeast",
    "belgiumcentral",
    "brazilsouth",
    "brazilsoutheast",
    "canadacentral",
    "canadaeast",
    "centralindia",
    "centralus",
    "centraluseuap",
    "chilecentral",
    "chinaeast",
    "chinaeast2",
    "chinaeast3",
    "chinanorth",
    "chinanorth2",
    "chinanorth3",
    "eastasia",
    "eastus",
    "eastus2",
    "eastus2euap",
    "francecentral",
    "francesouth",
    "germanynorth",
    "germanywestcentral",
    "indonesiacentral",
    "israelcentral",
    "italynorth",
    "japaneast",
    "japanwest",
    "jioindiacentral",
    "jioindiawest",
    "koreacentral",
    "koreasouth",
    "malaysiawest",
    "mexicocentral",
    "newzealandnorth",
    "northcentralus",
    "northeurope",
    "norwayeast",
    "norwaywest",
    "polandcentral",
    "qatarcentral",
    "southafricanorth",
    "southafricawest",
    "southcentralus",
    "southeastasia",
    "southindia",
    "spaincentral",
    "swedencentral",
    "swedensouth",
    "switzerlandnorth",
    "switzerlandwest",
    "uaecentral",
    "uaenorth",
    "uksouth",
    "ukwest",
    "usgovarizona",
    "usgovtexas",
    "usgovvirginia",
    "westcentralus",
    "westeurope",
    "westindia",
    "westus",
    "westus2",
    "westus3",
];

/// A region as `armRegionName` writes it: `East US` and `eastus` are one region.
pub fn region_key(region: &str) -> String {
    region
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The region a file name names (`usage-westus2.json`), if one of its words is a region.
pub fn region_in_name(path: &str) -> Option<&'static str> {
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    let stem = name.strip_suffix(".json").unwrap_or(&name);
    let mut found = stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|w| REGIONS.iter().find(|r| **r == w).copied());
    let first = found.next()?;
    // Two regions in one name say nothing definite.
    found.all(|r| r == first).then_some(first)
}

/// The key a quota family is compared by, in the catalogue and in a usage list: letters and
/// digits, lower-case, without a leading `standard` and a trailing `family`
/// (`standardNCASv3_T4Family`, `Standard NCASv3_T4 Family` → `ncasv3t4`). The same as
/// `quota_key` of `scripts/check_vm_catalogue.py`.
pub fn family_key(family: &str) -> String {
    let k: String = family
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let k = k.strip_prefix("standard").unwrap_or(&k);
    k.strip_suffix("family").unwrap_or(k).to_string()
}

/// Dedicated or low-priority VMs: Azure ML keeps their quotas apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    Dedicated,
    LowPriority,
}

impl Tier {
    /// As the CLI writes it (`tier:` of a cluster).
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Dedicated => "dedicated",
            Tier::LowPriority => "low_priority",
        }
    }

    /// `dedicated`, `low_priority` (the CLI), `Dedicated`, `LowPriority` (REST `vmPriority`).
    pub fn parse(text: &str) -> Option<Tier> {
        let k: String = text
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match k.as_str() {
            "dedicated" => Some(Tier::Dedicated),
            "lowpriority" => Some(Tier::LowPriority),
            _ => None,
        }
    }
}

/// What a line of the usage list counts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Line {
    /// `Standard DSv2 Family Cluster Dedicated vCPUs` (key `dsv2`, dedicated).
    Family { key: String, tier: Tier },
    /// `Total Cluster Dedicated Regional vCPUs`, `Total Cluster LowPriority Regional vCPUs`.
    Regional(Tier),
}

/// Reads a usage line's name: a family line, a regional total, or something else (the
/// number of clusters, endpoints...). Case and spacing are not significant, and
/// `Low Priority` is `LowPriority`.
pub fn classify_line(name: &str) -> Option<Line> {
    let words: Vec<String> = name.split_whitespace().map(str::to_ascii_lowercase).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (body, tier) = match words.as_slice() {
        [body @ .., "dedicated", "vcpus"] => (body.to_vec(), Tier::Dedicated),
        [body @ .., "lowpriority", "vcpus"] => (body.to_vec(), Tier::LowPriority),
        [body @ .., "low", "priority", "vcpus"] => (body.to_vec(), Tier::LowPriority),
        // `Total Cluster Dedicated Regional vCPUs`
        [body @ .., "dedicated", "regional", "vcpus"] => {
            ([body, &["regional"][..]].concat(), Tier::Dedicated)
        }
        [body @ .., "lowpriority", "regional", "vcpus"]
        | [body @ .., "low", "priority", "regional", "vcpus"] => {
            ([body, &["regional"][..]].concat(), Tier::LowPriority)
        }
        _ => return None,
    };
    match body.as_slice() {
        ["total", "cluster", "regional"] => Some(Line::Regional(tier)),
        [family @ .., "family", "cluster"] if !family.is_empty() => {
            let key = family_key(&family.join(" "));
            (!key.is_empty()).then_some(Line::Family { key, tier })
        }
        _ => None,
    }
}

/// A compute of the workspace, from a `computes` file.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotCompute {
    pub name: String,
    /// One of `inventory::COMPUTE_TYPES`; `None` for a type amlint does not know.
    pub compute_type: Option<&'static str>,
    /// The VM size as printed (`STANDARD_DS3_V2`: the service's own spelling).
    pub size: Option<String>,
    /// The region, as `region_key` writes it.
    pub location: Option<String>,
    pub tier: Option<Tier>,
    pub min_instances: Option<u64>,
    pub max_instances: Option<u64>,
    /// The snapshot file, as displayed.
    pub file: String,
    /// Its position in the file's list (from 0).
    pub index: usize,
    /// The entry in the snapshot file.
    pub span: Span,
}

/// One quota line of a usage file.
#[derive(Clone, Debug, PartialEq)]
pub struct UsageLine {
    /// As printed (`Standard DSv2 Family Cluster Dedicated vCPUs`).
    pub name: String,
    pub line: Line,
    /// `None`: no limit (the usage list's -1).
    pub limit: Option<u64>,
    /// `None`: the snapshot does not say (some CLI versions print no `current_value`).
    pub current: Option<u64>,
}

impl UsageLine {
    /// vCPUs left: the limit less what is in use (`None` without a limit).
    pub fn left(&self) -> Option<u64> {
        self.limit.map(|l| l.saturating_sub(self.current.unwrap_or(0)))
    }
}

/// One `usage` file: the subscription's quota lines for one region.
#[derive(Clone, Debug, PartialEq)]
pub struct Usage {
    /// As displayed.
    pub file: String,
    /// `region_key` form; `None` when neither the file nor the configuration says.
    pub region: Option<String>,
    pub lines: Vec<UsageLine>,
}

impl Usage {
    /// The line counting `line`, if the file has it.
    pub fn line(&self, line: &Line) -> Option<&UsageLine> {
        self.lines.iter().find(|l| l.line == *line)
    }
}

/// A price for a VM size, from a `prices` file (Linux, pay-as-you-go, per hour).
#[derive(Clone, Debug, PartialEq)]
pub struct Price {
    /// The size, lower-case (`standard_ds3_v2`).
    pub sku: String,
    pub region: Option<String>,
    pub tier: Tier,
    /// `Spot` meters, used for low-priority VMs when a region lists no `Low Priority` one.
    pub spot: bool,
    pub hourly: f64,
    pub currency: String,
    /// `effectiveStartDate`: the latest applies.
    pub effective: String,
    pub primary: bool,
}

/// The prices read from one file.
#[derive(Clone, Debug, PartialEq)]
pub struct PriceList {
    pub file: String,
    pub items: Vec<Price>,
}

/// What `[workspace]` says, with its files read.
#[derive(Clone, Debug, Default)]
pub struct WorkspaceSnapshot {
    /// `location`, as `region_key` writes it.
    pub location: Option<String>,
    pub computes: Vec<SnapshotCompute>,
    /// The `computes` files, as displayed (for messages).
    pub compute_files: Vec<String>,
    /// The `usage` files, one per region.
    pub usage: Vec<Usage>,
    pub prices: Vec<PriceList>,
    /// The directory of the configuration that declares it: the project's files below it
    /// belong to this workspace.
    pub dir: PathBuf,
    lookup: OnceLock<HashMap<String, usize>>,
}

impl PartialEq for WorkspaceSnapshot {
    fn eq(&self, other: &Self) -> bool {
        self.location == other.location
            && self.computes == other.computes
            && self.compute_files == other.compute_files
            && self.usage == other.usage
            && self.prices == other.prices
            && self.dir == other.dir
    }
}

impl WorkspaceSnapshot {
    /// An empty workspace declared by the configuration in `dir`.
    pub fn at(dir: &std::path::Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            ..Self::default()
        }
    }

    /// A compute of the snapshot, by name in any case (the first file's entry wins).
    pub fn compute(&self, name: &str) -> Option<&SnapshotCompute> {
        let index = self.lookup.get_or_init(|| {
            let mut map = HashMap::with_capacity(self.computes.len());
            for (i, c) in self.computes.iter().enumerate() {
                map.entry(c.name.to_ascii_lowercase()).or_insert(i);
            }
            map
        });
        index
            .get(&name.to_ascii_lowercase())
            .and_then(|&i| self.computes.get(i))
    }

    /// Whether a `computes` file was given (only then can a compute be unknown to it).
    pub fn has_computes(&self) -> bool {
        !self.compute_files.is_empty()
    }

    /// The region of a compute that names `location` (or none): its own, else the
    /// workspace's, else the one region the usage files are for.
    pub fn region_for(&self, location: Option<&str>) -> Option<String> {
        if let Some(l) = location.map(region_key).filter(|l| !l.is_empty()) {
            return Some(l);
        }
        if let Some(l) = &self.location {
            return Some(l.clone());
        }
        match self.usage.as_slice() {
            [one] => one.region.clone(),
            _ => None,
        }
    }

    /// The usage file of a region (`None`: the region is not known): the file for that
    /// region, else the only file when it says no region.
    pub fn usage_for(&self, region: Option<&str>) -> Option<&Usage> {
        if let Some(r) = region {
            if let Some(u) = self.usage.iter().find(|u| u.region.as_deref() == Some(r)) {
                return Some(u);
            }
        }
        match self.usage.as_slice() {
            [one] if one.region.is_none() || region.is_none() => Some(one),
            _ => None,
        }
    }

    /// The hourly price of a size in a region for a tier, and the file it comes from: of
    /// the matching items, the latest (`effectiveStartDate`), a primary meter region first.
    /// Low-priority VMs are priced by the `Low Priority` meter, else the `Spot` one.
    pub fn price(&self, size: &str, region: Option<&str>, tier: Tier) -> Option<(&Price, &str)> {
        let sku = size.trim().to_ascii_lowercase();
        for spot in [false, true] {
            if spot && tier == Tier::Dedicated {
                break;
            }
            let mut best: Option<(&Price, &str)> = None;
            let mut regions = std::collections::BTreeSet::new();
            for list in &self.prices {
                for p in &list.items {
                    if p.sku != sku || p.tier != tier || p.spot != spot {
                        continue;
                    }
                    if let (Some(want), Some(have)) = (region, p.region.as_deref()) {
                        if want != have {
                            continue;
                        }
                    }
                    regions.insert(p.region.clone());
                    let better = best.is_none_or(|(b, _)| {
                        (p.effective.as_str(), p.primary) > (b.effective.as_str(), b.primary)
                    });
                    if better {
                        best = Some((p, list.file.as_str()));
                    }
                }
            }
            // Without a region, prices of several regions say nothing definite.
            if region.is_none() && regions.len() > 1 {
                return None;
            }
            if best.is_some() {
                return best;
            }
        }
        None
    }
}

/// A snapshot file that is not what its command prints: where in it, and what.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotError {
    pub span: Span,
    pub message: String,
}

fn error(span: Span, message: impl Into<String>) -> SnapshotError {
    SnapshotError {
        span,
        message: message.into(),
    }
}

/// Reads values of a parsed snapshot, each problem an error at the value.
struct Reader<'a> {
    doc: &'a Document,
}

/// How an entry is named in messages: `entry 3` or `entry 3 (`gpu-cluster`)`.
fn entry_name(index: usize, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("entry {} (`{}`)", index + 1, crate::escape::control(n)),
        None => format!("entry {}", index + 1),
    }
}

impl<'a> Reader<'a> {
    fn span(&self, id: NodeId) -> Span {
        self.doc.node(id).span
    }

    fn value(&self, id: NodeId) -> &'a Value {
        self.doc.value(self.doc.resolve(id))
    }

    fn describe(&self, id: NodeId) -> String {
        match self.value(id) {
            Value::Str(s) => format!("the string \"{}\"", crate::escape::control(&shorten(s))),
            Value::Int(i) => format!("the number {i}"),
            Value::Float(f) => format!("the number {f}"),
            Value::BigInt(_) => "a number too large to count".to_string(),
            Value::Bool(b) => format!("`{b}`"),
            Value::Null => "null".to_string(),
            Value::Seq(_) => "a list".to_string(),
            Value::Map(_) => "an object".to_string(),
            Value::Timestamp(t) => format!("the string \"{t}\""),
            Value::Alias(_) => "an alias".to_string(),
        }
    }

    /// A field of the object `map`, unless absent or null.
    fn field(&self, map: NodeId, key: &str) -> Option<NodeId> {
        let id = self.doc.get(map, key)?;
        (!matches!(self.value(id), Value::Null)).then_some(id)
    }

    fn string(&self, map: NodeId, key: &str, what: &str) -> Result<Option<&'a str>, SnapshotError> {
        let Some(id) = self.field(map, key) else {
            return Ok(None);
        };
        match self.value(id) {
            Value::Str(s) => Ok(Some(s)),
            _ => Err(error(
                self.span(id),
                format!("{what}: `{key}` is {}, not a string", self.describe(id)),
            )),
        }
    }

    /// A whole number ≥ `min` (a JSON number with no fraction), or absent/null.
    fn count(&self, map: NodeId, key: &str, what: &str, min: i64) -> Result<Option<i64>, SnapshotError> {
        let Some(id) = self.field(map, key) else {
            return Ok(None);
        };
        let n = match self.value(id) {
            Value::Int(i) => Some(*i),
            Value::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => Some(*f as i64),
            _ => None,
        };
        match n {
            Some(n) if n >= min => Ok(Some(n)),
            _ => Err(error(
                self.span(id),
                format!(
                    "{what}: `{key}` is {}, not a whole number{}",
                    self.describe(id),
                    if min == 0 { " of 0 or more" } else { "" }
                ),
            )),
        }
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 60 {
        let mut out: String = s.chars().take(57).collect();
        out.push('…');
        out
    } else {
        s.to_string()
    }
}

/// The items of a snapshot: a list (the CLI's), or an object whose `value` is one (the REST
/// API's page; `nextLink` is ignored: save every page, or list several files).
fn items<'a>(r: &Reader<'a>, what: &str) -> Result<&'a [NodeId], SnapshotError> {
    let Some(root) = r.doc.root else {
        return Err(error(Span::at(0), "it is empty".to_string()));
    };
    match r.value(root) {
        Value::Seq(items) => Ok(items),
        Value::Map(_) => match r.doc.get(root, "value").map(|v| (v, r.value(v))) {
            Some((_, Value::Seq(items))) => Ok(items),
            Some((v, _)) => Err(error(
                r.span(v),
                format!(
                    "its `value` is {}, not the list of {what} the REST API returns",
                    r.describe(v)
                ),
            )),
            None => Err(error(
                r.span(root),
                format!(
                    "it is an object without `value`: the CLI prints a list of {what}, the REST API an object whose `value` is that list"
                ),
            )),
        },
        _ => Err(error(
            r.span(root),
            format!("it is {}, not a list of {what}", r.describe(root)),
        )),
    }
}

/// Compute types as the REST API's `computeType` writes them, and ours.
const REST_TYPES: &[(&str, &str)] = &[
    ("amlcompute", "amlcompute"),
    ("computeinstance", "computeinstance"),
    ("kubernetes", "kubernetes"),
    ("aks", "aks"),
    ("virtualmachine", "virtualmachine"),
    ("synapsespark", "synapsespark"),
    ("hdinsight", "hdinsight"),
    ("databricks", "databricks"),
    ("datafactory", "datafactory"),
    ("datalakeanalytics", "datalakeanalytics"),
];

/// The type of a compute the CLI prints as `*** unsupported compute type ***` (AKS and the
/// other attached targets), from the resource it attaches.
fn type_of_resource(resource_id: &str) -> Option<&'static str> {
    let id = resource_id.to_ascii_lowercase();
    [
        ("microsoft.containerservice/managedclusters", "aks"),
        ("microsoft.databricks/workspaces", "databricks"),
        ("microsoft.hdinsight/clusters", "hdinsight"),
        ("microsoft.datafactory/factories", "datafactory"),
        ("microsoft.datalakeanalytics/accounts", "datalakeanalytics"),
        ("microsoft.synapse/workspaces", "synapsespark"),
        ("microsoft.compute/virtualmachines", "virtualmachine"),
    ]
    .into_iter()
    .find(|(provider, _)| id.contains(provider))
    .map(|(_, t)| t)
}

fn compute_type(text: &str) -> Option<&'static str> {
    let k: String = text
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    REST_TYPES.iter().find(|(r, _)| *r == k).map(|(_, t)| *t)
}

/// Reads a `computes` file (parsed): `az ml compute list -o json` (a list of the
/// azure-ai-ml entities: `name`, `type`, `size`, `location`, `tier`, `min_instances`,
/// `max_instances`, `resource_id`) or the REST API's "Compute - List" (`value`: `name`,
/// `location`, `properties.computeType`, `properties.properties.vmSize`, `vmPriority`,
/// `scaleSettings.minNodeCount` / `maxNodeCount`; an AKS compute's `agentVmSize`).
pub fn read_computes(doc: &Document, file: &str) -> Result<Vec<SnapshotCompute>, SnapshotError> {
    let r = Reader { doc };
    let mut out = Vec::new();
    for (index, &item) in items(&r, "computes")?.iter().enumerate() {
        if !matches!(r.value(item), Value::Map(_)) {
            return Err(error(
                r.span(item),
                format!(
                    "{} is {}, not a compute (an object)",
                    entry_name(index, None),
                    r.describe(item)
                ),
            ));
        }
        let here = entry_name(index, None);
        let Some(name) = r.string(item, "name", &here)? else {
            return Err(error(r.span(item), format!("{here} has no `name`")));
        };
        let what = entry_name(index, Some(name));
        let location = r.string(item, "location", &what)?.map(region_key);
        let rest = r
            .field(item, "properties")
            .filter(|p| matches!(r.value(*p), Value::Map(_)) && r.doc.get(*p, "computeType").is_some());
        let compute = match rest {
            Some(props) => {
                let Some(ctype) = r.string(props, "computeType", &what)? else {
                    return Err(error(
                        r.span(props),
                        format!("{what} has no `properties.computeType`"),
                    ));
                };
                let inner = r.field(props, "properties");
                if let Some(inner) = inner {
                    if !matches!(r.value(inner), Value::Map(_)) {
                        return Err(error(
                            r.span(inner),
                            format!(
                                "{what}: `properties.properties` is {}, not an object",
                                r.describe(inner)
                            ),
                        ));
                    }
                }
                let compute_type = compute_type(ctype);
                let size = match inner {
                    Some(p) => match r.string(p, "vmSize", &what)? {
                        Some(s) => Some(s),
                        None => r.string(p, "agentVmSize", &what)?,
                    },
                    None => None,
                };
                let tier = match inner
                    .map(|p| r.string(p, "vmPriority", &what))
                    .transpose()?
                    .flatten()
                {
                    Some(t) => Some(tier_of(
                        &r,
                        inner.and_then(|p| r.doc.get(p, "vmPriority")),
                        t,
                        &what,
                    )?),
                    None => None,
                };
                let scale = inner.and_then(|p| r.field(p, "scaleSettings"));
                let (min, max) = match scale {
                    Some(s) if matches!(r.value(s), Value::Map(_)) => (
                        r.count(s, "minNodeCount", &what, 0)?,
                        r.count(s, "maxNodeCount", &what, 0)?,
                    ),
                    Some(s) => {
                        return Err(error(
                            r.span(s),
                            format!("{what}: `scaleSettings` is {}, not an object", r.describe(s)),
                        ));
                    }
                    None => (None, None),
                };
                SnapshotCompute {
                    name: name.to_string(),
                    compute_type,
                    size: size.map(str::to_string),
                    location,
                    tier,
                    min_instances: min.map(|n| n as u64),
                    max_instances: max.map(|n| n as u64),
                    file: file.to_string(),
                    index,
                    span: r.span(item),
                }
            }
            None => {
                let Some(ctype) = r.string(item, "type", &what)? else {
                    return Err(error(r.span(item), format!("{what} has no `type`")));
                };
                let compute_type = compute_type(ctype).or_else(|| {
                    // `*** unsupported compute type ***`: AKS and other attached targets.
                    r.string(item, "resource_id", &what)
                        .ok()
                        .flatten()
                        .and_then(type_of_resource)
                });
                let tier = match r.string(item, "tier", &what)? {
                    Some(t) => Some(tier_of(&r, r.doc.get(item, "tier"), t, &what)?),
                    None => None,
                };
                SnapshotCompute {
                    name: name.to_string(),
                    compute_type,
                    size: r.string(item, "size", &what)?.map(str::to_string),
                    location,
                    tier,
                    min_instances: r.count(item, "min_instances", &what, 0)?.map(|n| n as u64),
                    max_instances: r.count(item, "max_instances", &what, 0)?.map(|n| n as u64),
                    file: file.to_string(),
                    index,
                    span: r.span(item),
                }
            }
        };
        if compute.name.trim().is_empty() {
            return Err(error(r.span(item), format!("{here} has an empty `name`")));
        }
        out.push(compute);
    }
    Ok(out)
}

fn tier_of(r: &Reader<'_>, node: Option<NodeId>, text: &str, what: &str) -> Result<Tier, SnapshotError> {
    Tier::parse(text).ok_or_else(|| {
        error(
            node.map_or(Span::at(0), |n| r.span(n)),
            format!(
                "{what}: the tier \"{}\" is neither `dedicated` nor `low_priority`",
                crate::escape::control(&shorten(text))
            ),
        )
    })
}

/// Whether a usage entry is a workspace's or a compute's share of a subscription line (the
/// REST API lists those too, by `type` and `id`): only the subscription's lines count.
fn is_breakdown(r: &Reader<'_>, item: NodeId) -> bool {
    let text = |key: &str| {
        r.doc
            .get(item, key)
            .and_then(|v| match r.value(v) {
                Value::Str(s) => Some(s.to_ascii_lowercase()),
                _ => None,
            })
            .unwrap_or_default()
    };
    let (kind, id) = (text("type"), text("id"));
    kind.contains("/workspaces/") || kind.contains("/workspace/") || id.contains("/workspaces/")
}

/// The region a usage file's items say (`aml_workspace_location`, `amlWorkspaceLocation`,
/// or `/locations/<region>/` in an `id`), when they agree.
fn stated_region(r: &Reader<'_>, items: &[NodeId]) -> Option<String> {
    let mut found: Option<String> = None;
    for &item in items {
        let mut here = None;
        for key in ["aml_workspace_location", "amlWorkspaceLocation"] {
            if let Some(Value::Str(s)) = r.doc.get(item, key).map(|v| r.value(v)) {
                here = Some(region_key(s));
            }
        }
        if here.is_none() {
            if let Some(Value::Str(id)) = r.doc.get(item, "id").map(|v| r.value(v)) {
                let lower = id.to_ascii_lowercase();
                if let Some(rest) = lower.split("/locations/").nth(1) {
                    here = rest.split('/').next().map(region_key);
                }
            }
        }
        match (&found, here) {
            (_, None) => {}
            (None, Some(h)) if !h.is_empty() => found = Some(h),
            (Some(f), Some(h)) if *f != h => return None,
            _ => {}
        }
    }
    found
}

/// Reads a `usage` file (parsed): `az ml compute list-usage -o json` (a list: `name.value`,
/// `name.localized_value`, `limit`, `current_value`, `aml_workspace_location`) or the REST
/// API's "Usages - List" (`value`: `name.value`, `name.localizedValue`, `limit`,
/// `currentValue`, `amlWorkspaceLocation`). Only the subscription's vCPU lines are kept:
/// families (`Standard DSv2 Family Cluster Dedicated vCPUs`) and the regional totals.
/// Returns the lines and the region the file states.
pub fn read_usage(doc: &Document) -> Result<(Vec<UsageLine>, Option<String>), SnapshotError> {
    let r = Reader { doc };
    let list = items(&r, "usages")?;
    let mut out: Vec<UsageLine> = Vec::new();
    let mut vm_usage: Option<Span> = None;
    for (index, &item) in list.iter().enumerate() {
        if !matches!(r.value(item), Value::Map(_)) {
            return Err(error(
                r.span(item),
                format!(
                    "{} is {}, not a usage (an object)",
                    entry_name(index, None),
                    r.describe(item)
                ),
            ));
        }
        let here = entry_name(index, None);
        let Some(name_node) = r.field(item, "name") else {
            return Err(error(r.span(item), format!("{here} has no `name`")));
        };
        let names: Vec<&str> = match r.value(name_node) {
            Value::Map(_) => {
                let mut names = Vec::new();
                for key in ["value", "localized_value", "localizedValue"] {
                    if let Some(s) = r.string(name_node, key, &here)? {
                        names.push(s);
                    }
                }
                names
            }
            // A flat name, as some tools save it.
            Value::Str(s) => vec![&**s],
            _ => {
                return Err(error(
                    r.span(name_node),
                    format!(
                        "{here}: `name` is {}, not an object with `value`",
                        r.describe(name_node)
                    ),
                ));
            }
        };
        let Some(&shown) = names.first() else {
            return Err(error(r.span(name_node), format!("{here}: `name` has no `value`")));
        };
        let what = entry_name(index, Some(shown));
        let Some(line) = names.iter().find_map(|n| classify_line(n)).or_else(|| {
            // The regional totals by their REST `type` (`.../dedicatedCores/usages`).
            let kind = r.string(item, "type", &what).ok().flatten()?.to_ascii_lowercase();
            if kind.contains("/dedicatedcores/") {
                Some(Line::Regional(Tier::Dedicated))
            } else if kind.contains("/lowprioritycores/") {
                Some(Line::Regional(Tier::LowPriority))
            } else {
                None
            }
        }) else {
            // Another count (clusters, endpoints, ...): not read. A virtual machines'
            // line (`az vm list-usage`: `Standard DSv2 Family vCPUs`) says the file is
            // the other command's.
            if vm_usage.is_none() && names.iter().any(|n| is_vm_usage_line(n)) {
                vm_usage = Some(r.span(name_node));
            }
            continue;
        };
        if is_breakdown(&r, item) {
            continue;
        }
        let Some(limit) = r.count(item, "limit", &what, -1)? else {
            return Err(error(r.span(item), format!("{what} has no `limit`")));
        };
        let current = match r.count(item, "current_value", &what, 0)? {
            Some(c) => Some(c),
            None => r.count(item, "currentValue", &what, 0)?,
        };
        if out.iter().any(|l| l.line == line) {
            // The first of a repeated line is the subscription's.
            continue;
        }
        out.push(UsageLine {
            name: shown.to_string(),
            line,
            limit: (limit >= 0).then_some(limit as u64),
            current: current.map(|c| c as u64),
        });
    }
    if let (true, Some(span)) = (out.is_empty(), vm_usage) {
        return Err(error(
            span,
            "it lists the virtual machines' quotas (what `az vm list-usage` prints: `Standard DSv2 Family vCPUs`), not Azure ML's (`Standard DSv2 Family Cluster Dedicated vCPUs`): Azure ML compute has a quota of its own".to_string(),
        ));
    }
    Ok((out, stated_region(&r, list)))
}

/// A line of the Compute provider's usage list (`az vm list-usage`): `Standard DSv2 Family
/// vCPUs`, `Total Regional vCPUs`.
fn is_vm_usage_line(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    matches!(
        words.as_slice(),
        [.., "family", "vcpus"] | ["total", "regional", "vcpus"]
    )
}

/// One item of the Retail Prices API, as far as amlint reads it; a field of another type
/// than the API's is an error, other fields are skipped.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PriceItem {
    #[serde(default)]
    arm_sku_name: Option<String>,
    #[serde(default)]
    arm_region_name: Option<String>,
    #[serde(default)]
    retail_price: Option<f64>,
    #[serde(default)]
    currency_code: Option<String>,
    #[serde(default)]
    unit_of_measure: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    product_name: Option<String>,
    #[serde(default)]
    sku_name: Option<String>,
    #[serde(default)]
    meter_name: Option<String>,
    #[serde(default)]
    service_name: Option<String>,
    #[serde(default)]
    effective_start_date: Option<String>,
    #[serde(default)]
    tier_minimum_units: Option<f64>,
    #[serde(default)]
    is_primary_meter_region: Option<bool>,
}

impl PriceItem {
    /// The price of a Linux VM size, pay-as-you-go, per hour; `None` for any other item.
    fn into_price(self) -> Option<Price> {
        let sku = self.arm_sku_name.filter(|s| !s.trim().is_empty())?;
        let lower = |s: &Option<String>| s.as_deref().unwrap_or("").to_ascii_lowercase();
        if self.service_name.is_some() && lower(&self.service_name) != "virtual machines" {
            return None;
        }
        if self.kind.is_some() && lower(&self.kind) != "consumption" {
            return None;
        }
        if lower(&self.unit_of_measure) != "1 hour" || lower(&self.product_name).contains("windows") {
            return None;
        }
        if self.tier_minimum_units.is_some_and(|t| t > 0.0) {
            return None;
        }
        let meter = format!("{} {}", lower(&self.sku_name), lower(&self.meter_name));
        let spot = meter.contains("spot");
        let low = meter.contains("low priority");
        let hourly = self.retail_price.filter(|p| p.is_finite() && *p >= 0.0)?;
        Some(Price {
            sku: sku.trim().to_ascii_lowercase(),
            region: self
                .arm_region_name
                .as_deref()
                .map(region_key)
                .filter(|r| !r.is_empty()),
            tier: if spot || low {
                Tier::LowPriority
            } else {
                Tier::Dedicated
            },
            spot,
            hourly,
            currency: self.currency_code.unwrap_or_else(|| "USD".to_string()),
            effective: self.effective_start_date.unwrap_or_default(),
            primary: self.is_primary_meter_region.unwrap_or(true),
        })
    }
}

/// The items of a price file: the API's page (`{"Items": [...], ...}`) or a list of items.
struct PriceFile(Vec<Price>);

impl<'de> serde::Deserialize<'de> for PriceFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Items;
        impl<'de> serde::de::Visitor<'de> for Items {
            type Value = PriceFile;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "the Retail Prices API's response (an object with `Items`) or a list of its items",
                )
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<PriceFile, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<PriceItem>()? {
                    out.extend(item.into_price());
                }
                Ok(PriceFile(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<PriceFile, A::Error> {
                let mut found = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "Items" || key == "items" {
                        found = Some(map.next_value::<PriceFile>()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                found.ok_or_else(|| serde::de::Error::custom("an object without `Items`"))
            }
        }
        d.deserialize_any(Items)
    }
}

/// Reads a `prices` file: the Azure Retail Prices API's response (or several pages' items
/// as one list). Only Linux pay-as-you-go hourly prices of VM sizes are kept; an item
/// whose fields have other types than the API's is an error at its place.
pub fn read_prices(text: &str, lines: &crate::source::LineIndex) -> Result<Vec<Price>, SnapshotError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = (text.len() - body.len()) as u32;
    let mut de = serde_json::Deserializer::from_str(body);
    let parsed = <PriceFile as serde::Deserialize>::deserialize(&mut de).and_then(|p| de.end().map(|()| p));
    parsed.map(|p| p.0).map_err(|e| {
        let offset = if e.line() == 0 {
            0
        } else {
            lines
                .line_start(e.line() - 1)
                .map_or(0, |s| s + e.column().saturating_sub(1) as u32)
                .saturating_add(if e.line() == 1 { bom } else { 0 })
        };
        let message = e.to_string();
        // serde_json appends " at line L column C": the span says where.
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_string();
        error(Span::at(offset.min(text.len() as u32)), message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Document {
        let loaded = crate::load::parse_text(
            "x.json",
            text.to_string(),
            crate::load::Format::Json,
            &crate::limits::Limits::default(),
        );
        loaded.documents.into_iter().next().unwrap()
    }

    #[test]
    fn lines_are_read_in_any_spelling() {
        let dsv2 = Some(Line::Family {
            key: "dsv2".into(),
            tier: Tier::Dedicated,
        });
        assert_eq!(
            classify_line("Standard DSv2 Family Cluster Dedicated vCPUs"),
            dsv2
        );
        assert_eq!(
            classify_line("standard  dsv2 family cluster dedicated VCPUS"),
            dsv2
        );
        assert_eq!(
            classify_line("Standard NCASv3_T4 Family Cluster LowPriority vCPUs"),
            Some(Line::Family {
                key: "ncasv3t4".into(),
                tier: Tier::LowPriority
            })
        );
        assert_eq!(
            classify_line("Total Cluster Dedicated Regional vCPUs"),
            Some(Line::Regional(Tier::Dedicated))
        );
        assert_eq!(
            classify_line("Total Cluster Low Priority Regional vCPUs"),
            Some(Line::Regional(Tier::LowPriority))
        );
        assert_eq!(
            classify_line("Total Cluster LowPriority Regional vCPUs"),
            classify_line("Total Cluster Low Priority Regional vCPUs")
        );
        for other in [
            "Clusters",
            "Total Clusters",
            "Family Cluster Dedicated vCPUs",
            "",
            "Standard DSv2 Family vCPUs",
        ] {
            assert_eq!(classify_line(other), None, "{other}");
        }
        assert_eq!(
            family_key("standardNCASv3_T4Family"),
            family_key("Standard NCASv3_T4 Family")
        );
        assert_eq!(family_key("StandardNCadsH100v5Family"), "ncadsh100v5");
    }

    #[test]
    fn regions_from_names() {
        assert_eq!(region_in_name("azure/usage-westus2.json"), Some("westus2"));
        assert_eq!(region_in_name("azure/usage_eastus.json"), Some("eastus"));
        assert_eq!(region_in_name("azure/usage.json"), None);
        assert_eq!(region_in_name("azure/eastus-vs-westus.json"), None);
        assert_eq!(region_key("East US 2"), "eastus2");
    }

    #[test]
    fn cli_and_rest_usage_lists() {
        let cli = r#"[
          {"id": "/subscriptions/x/providers/Microsoft.MachineLearningServices/locations/westus2/usages/a", "aml_workspace_location": "westus2", "current_value": 4, "limit": 24, "name": {"localized_value": "Standard DSv2 Family Cluster Dedicated vCPUs", "value": "Standard DSv2 Family Cluster Dedicated vCPUs"}, "type": "Microsoft.MachineLearningServices/vmFamily/usages", "unit": "Count"},
          {"current_value": 0, "limit": -1, "name": {"value": "Standard DSv2 Family Cluster LowPriority vCPUs"}},
          {"current_value": 3, "limit": 100, "name": {"value": "Clusters"}},
          {"limit": 48, "name": {"value": "Total Cluster Dedicated Regional vCPUs"}}
        ]"#;
        let (lines, region) = read_usage(&parse(cli)).unwrap();
        assert_eq!(region.as_deref(), Some("westus2"));
        assert_eq!(lines.len(), 3);
        assert_eq!(
            (lines[0].limit, lines[0].current, lines[0].left()),
            (Some(24), Some(4), Some(20))
        );
        assert_eq!((lines[1].limit, lines[1].left()), (None, None));
        assert_eq!((lines[2].current, lines[2].left()), (None, Some(48)));

        let rest = r#"{"value": [
          {"id": "/subscriptions/x/usages", "type": "Microsoft.MachineLearningServices/dedicatedCores/usages", "currentValue": 14, "limit": 24, "name": {"localizedValue": "Total Cluster Dedicated Regional vCPUs", "value": "Total Cluster Dedicated Regional vCPUs"}, "unit": "Count"},
          {"id": "/subscriptions/x/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/w/usages/Standard_NC_Family_Cluster_Dedicated_vCPUs", "type": "Microsoft.MachineLearningServices/workspaces/usages", "currentValue": 6, "limit": 24, "name": {"value": "Standard NC Family Cluster Dedicated vCPUs"}},
          {"id": "/subscriptions/x/usages/Standard_NC_Family_Cluster_Dedicated_vCPUs", "type": "Microsoft.MachineLearningServices/vmFamily/usages", "currentValue": 12, "limit": 24, "name": {"value": "Standard NC Family Cluster Dedicated vCPUs"}}
        ], "nextLink": null}"#;
        let (lines, region) = read_usage(&parse(rest)).unwrap();
        assert_eq!(region, None);
        assert_eq!(lines.len(), 2);
        // The workspace's share is skipped; the subscription's line is read.
        assert_eq!((lines[1].current, lines[1].limit), (Some(12), Some(24)));
    }

    #[test]
    fn what_a_usage_list_cannot_be() {
        for (text, says) in [
            (r#"{"usages": []}"#, "without `value`"),
            (r#""text""#, "not a list of usages"),
            (r#"[1]"#, "not a usage"),
            (r#"[{"limit": 4}]"#, "has no `name`"),
            (
                r#"[{"name": {"value": "Total Cluster Dedicated Regional vCPUs"}}]"#,
                "has no `limit`",
            ),
            (
                r#"[{"name": {"value": "Total Cluster Dedicated Regional vCPUs"}, "limit": "24"}]"#,
                "not a whole number",
            ),
            (
                r#"[{"name": {"value": "Total Cluster Dedicated Regional vCPUs"}, "limit": -5}]"#,
                "the number -5",
            ),
            (
                r#"[{"name": {"value": "Total Cluster Dedicated Regional vCPUs"}, "limit": 2.5}]"#,
                "2.5",
            ),
            (
                r#"[{"name": {"value": "Total Cluster Dedicated Regional vCPUs"}, "limit": 4, "current_value": -1}]"#,
                "current_value",
            ),
            (r#"[{"name": 7, "limit": 4}]"#, "not an object with `value`"),
            (
                r#"[{"currentValue": 4, "limit": 10, "localName": "Standard DSv2 Family vCPUs", "name": {"localizedValue": "Standard DSv2 Family vCPUs", "value": "standardDSv2Family"}}]"#,
                "`az vm list-usage`",
            ),
        ] {
            let err = read_usage(&parse(text)).unwrap_err();
            assert!(err.message.contains(says), "{text}: {}", err.message);
        }
    }

    #[test]
    fn cli_and_rest_compute_lists() {
        let cli = r#"[
          {"name": "cpu", "type": "amlcompute", "size": "STANDARD_DS3_V2", "location": "eastus", "tier": "low_priority", "min_instances": 0, "max_instances": 4, "extra": {"x": [1]}},
          {"name": "ci", "type": "computeinstance", "size": "Standard_DS11_v2", "state": "ComputeInstanceState.RUNNING"},
          {"name": "aks1", "type": "*** unsupported compute type ***", "resource_id": "/subscriptions/x/resourcegroups/r/providers/Microsoft.ContainerService/managedClusters/k"},
          {"name": "mystery", "type": "quantum"}
        ]"#;
        let list = read_computes(&parse(cli), "c.json").unwrap();
        assert_eq!(list.len(), 4);
        assert_eq!(
            (
                list[0].compute_type,
                list[0].size.as_deref(),
                list[0].tier,
                list[0].max_instances
            ),
            (
                Some("amlcompute"),
                Some("STANDARD_DS3_V2"),
                Some(Tier::LowPriority),
                Some(4)
            )
        );
        assert_eq!(list[2].compute_type, Some("aks"));
        assert_eq!(list[3].compute_type, None);
        let rest = r#"{"value": [{"name": "gpu", "location": "East US", "properties": {"computeType": "AmlCompute", "properties": {"vmSize": "STANDARD_NC6", "vmPriority": "Dedicated", "scaleSettings": {"maxNodeCount": 2, "minNodeCount": 1}}}}]}"#;
        let list = read_computes(&parse(rest), "c.json").unwrap();
        assert_eq!(
            (
                list[0].compute_type,
                list[0].location.as_deref(),
                list[0].min_instances,
                list[0].tier
            ),
            (Some("amlcompute"), Some("eastus"), Some(1), Some(Tier::Dedicated))
        );
        for (text, says) in [
            (r#"[{"type": "amlcompute"}]"#, "has no `name`"),
            (r#"[{"name": "a"}]"#, "has no `type`"),
            (
                r#"[{"name": "a", "type": "amlcompute", "max_instances": "four"}]"#,
                "`max_instances` is the string \"four\"",
            ),
            (
                r#"[{"name": "a", "type": "amlcompute", "tier": "spot"}]"#,
                "neither `dedicated`",
            ),
            (
                r#"[{"name": "a", "type": "amlcompute", "size": 4}]"#,
                "`size` is the number 4, not a string",
            ),
            (r#"{"computes": []}"#, "without `value`"),
            (r#"[[]]"#, "not a compute"),
        ] {
            let err = read_computes(&parse(text), "c.json").unwrap_err();
            assert!(err.message.contains(says), "{text}: {}", err.message);
        }
    }

    #[test]
    fn prices() {
        let text = r#"{"BillingCurrency": "USD", "Items": [
          {"currencyCode": "USD", "retailPrice": 0.29, "armRegionName": "eastus", "armSkuName": "Standard_DS3_v2", "productName": "Virtual Machines DSv2 Series", "skuName": "DS3 v2", "meterName": "DS3 v2", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption", "effectiveStartDate": "2023-01-01T00:00:00Z", "isPrimaryMeterRegion": true, "savingsPlan": [{"term": "1 Year"}]},
          {"currencyCode": "USD", "retailPrice": 0.5, "armRegionName": "eastus", "armSkuName": "Standard_DS3_v2", "productName": "Virtual Machines DSv2 Series Windows", "skuName": "DS3 v2", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption"},
          {"currencyCode": "USD", "retailPrice": 0.06, "armRegionName": "eastus", "armSkuName": "Standard_DS3_v2", "productName": "Virtual Machines DSv2 Series", "skuName": "DS3 v2 Low Priority", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption"},
          {"currencyCode": "USD", "retailPrice": 1000, "armRegionName": "eastus", "armSkuName": "Standard_DS3_v2", "productName": "Virtual Machines DSv2 Series", "skuName": "DS3 v2", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Reservation"},
          {"currencyCode": "USD", "retailPrice": 0.01, "armRegionName": "eastus", "armSkuName": "", "productName": "Storage", "serviceName": "Storage", "unitOfMeasure": "1 GB/Month", "type": "Consumption"}
        ], "NextPageLink": null, "Count": 5}"#;
        let lines = crate::source::LineIndex::new(text);
        let prices = read_prices(text, &lines).unwrap();
        assert_eq!(prices.len(), 2);
        assert_eq!((prices[0].hourly, prices[0].tier), (0.29, Tier::Dedicated));
        assert_eq!((prices[1].hourly, prices[1].tier), (0.06, Tier::LowPriority));
        let ws = WorkspaceSnapshot {
            prices: vec![PriceList {
                file: "p.json".into(),
                items: prices,
            }],
            ..WorkspaceSnapshot::default()
        };
        assert_eq!(
            ws.price("STANDARD_DS3_V2", Some("eastus"), Tier::Dedicated)
                .unwrap()
                .0
                .hourly,
            0.29
        );
        assert_eq!(
            ws.price("Standard_DS3_v2", None, Tier::LowPriority)
                .unwrap()
                .0
                .hourly,
            0.06
        );
        assert!(
            ws.price("Standard_DS3_v2", Some("westus"), Tier::Dedicated)
                .is_none()
        );
        let bad = "{\"Items\": [\n  {\"armSkuName\": \"Standard_DS3_v2\", \"retailPrice\": \"cheap\"}]}";
        let err = read_prices(bad, &crate::source::LineIndex::new(bad)).unwrap_err();
        assert!(
            err.message.contains("invalid type: string \"cheap\""),
            "{}",
            err.message
        );
        // serde_json says where the value ends: the span is at its last character.
        assert!(
            bad[..=err.span.start as usize].ends_with("\"cheap\""),
            "{:?}",
            err.span
        );
        for bad in ["{\"value\": []}", "7", "[", "[{\"armSkuName\": 5}]"] {
            assert!(
                read_prices(bad, &crate::source::LineIndex::new(bad)).is_err(),
                "{bad}"
            );
        }
    }
}
