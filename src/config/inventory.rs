//! `[inventory]`: what exists only in the cloud, so that cross-file rules can resolve it.
//!
//! ```toml
//! [[inventory.computes]]          # computes created outside this repository
//! name = "gpu-cluster"
//! type = "amlcompute"             # amlcompute | computeinstance | kubernetes | aks | virtualmachine | batch | ...
//! size = "Standard_NC6s_v3"       # optional: the VM size (an AKS cluster's agent VM size)
//!
//! [[inventory.models]]            # registered models
//! name = "credit"
//! version = "3"                   # a string or an integer
//! size_bytes = 1_500_000_000      # optional: the size of the model's files
//!
//! [[inventory.endpoints]]         # online endpoints
//! name = "credit-endpoint"
//! compute = "aks-prod"            # optional: the compute of a Kubernetes endpoint
//!
//! [[inventory.deployments]]       # SDK v1 deployment configs: what `az ml model deploy` gets
//! config = "deploy/aci.json"      # the --dc file, relative to this configuration file
//! model = "credit:3"              # -m: `name:version`, or a list of them
//! inference_config = "deploy/inferenceconfig.json"   # optional: the --ic file
//! compute = "aks-prod"            # optional: --ct, the AKS target
//!
//! [[inventory.vm_sizes]]          # VM sizes newer than amlint's catalogue
//! name = "Standard_ND96isr_H200_v5"
//! vcpus = 96
//! memory_gib = 1850
//! gpus = 8                        # optional: 0 when omitted
//! ```
//!
//! Every entry keeps its span in the configuration file, so a rule can point at the
//! declaration it used.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::source::Span;

/// Compute types as `az ml compute`, azureml-core and ARM name them (lower-case; the
/// configuration's value is compared in any case). Every target of the compute-target
/// documentation's training and inference tables can be declared: `batch` is Azure Batch
/// as azureml-core attaches it (`BatchCompute`, computeType `Batch`).
pub const COMPUTE_TYPES: &[&str] = &[
    "amlcompute",
    "computeinstance",
    "kubernetes",
    "aks",
    "virtualmachine",
    "synapsespark",
    "hdinsight",
    "databricks",
    "datafactory",
    "datalakeanalytics",
    "batch",
];

/// A configuration's inventory: the entries of its own `[inventory]` over those of the
/// configurations it builds on (an `extend`ed file's, the project root's), each file's in
/// a layer of its own, shared and never copied (`super::layered`): a nearer file's entry
/// of a name wins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inventory {
    /// Outermost first.
    layers: super::layered::Layered<std::sync::Arc<Entries>>,
}

/// The entries of one `[inventory]` table.
#[derive(Clone, Debug, Default)]
pub struct Entries {
    pub computes: Vec<Compute>,
    pub models: Vec<Model>,
    pub endpoints: Vec<Endpoint>,
    pub deployments: Vec<Deployment>,
    pub vm_sizes: Vec<VmSize>,
    /// The entries by name, built on the first lookup (after parsing): a configuration may
    /// declare tens of thousands, and every reference of every file looks one up.
    lookup: std::sync::OnceLock<Lookup>,
}

/// Indices of an [`Inventory`]'s entries by what they are looked up by (the first entry
/// of a name wins, as a search in order would find it).
#[derive(Clone, Debug, Default, PartialEq)]
struct Lookup {
    computes: HashMap<String, usize>,
    models: HashMap<(String, String), usize>,
    models_by_name: HashMap<String, Vec<usize>>,
    endpoints: HashMap<String, usize>,
    deployments: HashMap<PathBuf, usize>,
    vm_sizes: HashMap<String, usize>,
}

/// A VM size the catalogue (`rules/data/vm-sizes.yaml`) does not list yet; its series
/// comes from the catalogue's naming rules.
#[derive(Clone, Debug, PartialEq)]
pub struct VmSize {
    /// `Standard_...`, as written (looked up case-insensitively).
    pub name: String,
    pub vcpus: f64,
    pub memory_gib: f64,
    pub gpus: f64,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Compute {
    pub name: String,
    /// One of [`COMPUTE_TYPES`].
    pub compute_type: &'static str,
    /// The VM size (`Standard_NC6s_v3`), as written.
    pub size: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub name: String,
    pub version: String,
    pub size_bytes: Option<u64>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    pub name: String,
    /// The compute a Kubernetes online endpoint runs on.
    pub compute: Option<String>,
    pub span: Span,
}

/// `name:version`, as `az ml model deploy -m` takes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModelRef {
    pub name: String,
    pub version: String,
}

impl ModelRef {
    /// Parses `name:version` (an `azureml:` prefix is accepted).
    pub fn parse(text: &str) -> Result<Self, String> {
        let body = text.trim();
        let body = body.strip_prefix("azureml:").unwrap_or(body);
        match body.rsplit_once(':') {
            Some((name, version)) if valid_name(name) && !version.is_empty() && !version.contains(' ') => {
                Ok(Self {
                    name: name.to_string(),
                    version: version.to_string(),
                })
            }
            _ => Err(format!(
                "`{text}` is not a model reference: write `name:version`, as `az ml model deploy -m` takes it (for example `credit:3`)"
            )),
        }
    }
}

impl std::fmt::Display for ModelRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.name, self.version)
    }
}

/// An SDK v1 deployment: the deployment config file and the model(s) it serves.
#[derive(Clone, Debug, PartialEq)]
pub struct Deployment {
    /// The `deploymentconfig.json`, absolute.
    pub config: PathBuf,
    /// As written in the configuration (relative to its directory).
    pub config_text: String,
    pub models: Vec<ModelRef>,
    /// The `inferenceconfig.json`, absolute.
    pub inference_config: Option<PathBuf>,
    /// The AKS compute target (`--ct`).
    pub compute: Option<String>,
    pub span: Span,
}

impl Inventory {
    /// `entries` (a file's own) over this inventory: a layer added, nothing copied.
    pub fn with_own(&self, entries: Entries) -> Inventory {
        let mut layers = self.layers.clone();
        layers.push(std::sync::Arc::new(entries));
        Inventory { layers }
    }

    /// This inventory over `outer` (the project root's): an entry of a name here wins over
    /// the project-wide one. Layers both share are kept once.
    pub fn with_outer(&self, outer: &Inventory) -> Inventory {
        let mut layers = outer.layers.clone();
        for layer in self.layers.iter() {
            if !outer.layers.iter().any(|o| std::sync::Arc::ptr_eq(o, layer)) {
                layers.push(layer.clone());
            }
        }
        Inventory { layers }
    }

    /// The layers, nearest first: the first that knows a name answers.
    fn nearest_first(&self) -> impl Iterator<Item = &Entries> {
        self.layers.iter().rev().map(|l| &**l)
    }

    pub fn compute(&self, name: &str) -> Option<&Compute> {
        self.nearest_first().find_map(|l| l.compute(name))
    }

    pub fn model(&self, name: &str, version: &str) -> Option<&Model> {
        self.nearest_first().find_map(|l| l.model(name, version))
    }

    /// Every declared version of a model (a version in a nearer file hides the same version
    /// further out).
    pub fn model_versions(&self, name: &str) -> Vec<&Model> {
        let mut out: Vec<&Model> = Vec::new();
        for layer in self.nearest_first() {
            for m in layer.model_versions(name) {
                if !out.iter().any(|o| o.version == m.version) {
                    out.push(m);
                }
            }
        }
        out
    }

    pub fn endpoint(&self, name: &str) -> Option<&Endpoint> {
        self.nearest_first().find_map(|l| l.endpoint(name))
    }

    /// The deployment entry for a v1 deployment config file (absolute, normalised path).
    pub fn deployment_for(&self, config: &std::path::Path) -> Option<&Deployment> {
        self.nearest_first().find_map(|l| l.deployment_for(config))
    }

    /// A declared VM size, in any case.
    pub fn vm_size(&self, name: &str) -> Option<&VmSize> {
        self.nearest_first().find_map(|l| l.vm_size(name))
    }

    /// Every compute entry, nearest first (a name may repeat across layers).
    pub fn computes(&self) -> impl Iterator<Item = &Compute> {
        self.nearest_first().flat_map(|l| l.computes.iter())
    }

    /// Every VM size entry, nearest first.
    pub fn vm_sizes(&self) -> Vec<VmSize> {
        self.nearest_first()
            .flat_map(|l| l.vm_sizes.iter().cloned())
            .collect()
    }

    /// How many entries of each section (computes, models, endpoints, deployments, VM
    /// sizes) the layers hold.
    pub fn counts(&self) -> [usize; 5] {
        let mut n = [0; 5];
        for l in self.nearest_first() {
            n[0] += l.computes.len();
            n[1] += l.models.len();
            n[2] += l.endpoints.len();
            n[3] += l.deployments.len();
            n[4] += l.vm_sizes.len();
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.nearest_first().all(Entries::is_empty)
    }
}

impl PartialEq for Entries {
    fn eq(&self, other: &Self) -> bool {
        self.computes == other.computes
            && self.models == other.models
            && self.endpoints == other.endpoints
            && self.deployments == other.deployments
            && self.vm_sizes == other.vm_sizes
    }
}

impl Entries {
    fn lookup(&self) -> &Lookup {
        self.lookup.get_or_init(|| {
            let mut l = Lookup::default();
            for (i, c) in self.computes.iter().enumerate() {
                l.computes.entry(c.name.to_ascii_lowercase()).or_insert(i);
            }
            for (i, m) in self.models.iter().enumerate() {
                l.models.entry((m.name.clone(), m.version.clone())).or_insert(i);
                l.models_by_name.entry(m.name.clone()).or_default().push(i);
            }
            for (i, e) in self.endpoints.iter().enumerate() {
                l.endpoints.entry(e.name.clone()).or_insert(i);
            }
            for (i, d) in self.deployments.iter().enumerate() {
                l.deployments.entry(d.config.clone()).or_insert(i);
            }
            for (i, v) in self.vm_sizes.iter().enumerate() {
                l.vm_sizes.entry(v.name.to_ascii_lowercase()).or_insert(i);
            }
            l
        })
    }

    pub fn compute(&self, name: &str) -> Option<&Compute> {
        let i = *self.lookup().computes.get(&name.to_ascii_lowercase())?;
        self.computes.get(i)
    }

    pub fn model(&self, name: &str, version: &str) -> Option<&Model> {
        let i = *self
            .lookup()
            .models
            .get(&(name.to_string(), version.to_string()))?;
        self.models.get(i)
    }

    /// Every declared version of a model.
    pub fn model_versions(&self, name: &str) -> impl Iterator<Item = &Model> {
        self.lookup()
            .models_by_name
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.models.get(i))
    }

    pub fn endpoint(&self, name: &str) -> Option<&Endpoint> {
        let i = *self.lookup().endpoints.get(name)?;
        self.endpoints.get(i)
    }

    /// The deployment entry for a v1 deployment config file (absolute, normalised path).
    pub fn deployment_for(&self, config: &std::path::Path) -> Option<&Deployment> {
        let i = *self.lookup().deployments.get(config)?;
        self.deployments.get(i)
    }

    /// A declared VM size, in any case.
    pub fn vm_size(&self, name: &str) -> Option<&VmSize> {
        let i = *self.lookup().vm_sizes.get(&name.trim().to_ascii_lowercase())?;
        self.vm_sizes.get(i)
    }

    pub fn is_empty(&self) -> bool {
        self.computes.is_empty()
            && self.models.is_empty()
            && self.endpoints.is_empty()
            && self.deployments.is_empty()
            && self.vm_sizes.is_empty()
    }
}

/// Azure ML asset and compute names: letters, digits, `-`, `_`, `.`, starting with a
/// letter or digit.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn model_refs() {
        assert_eq!(
            ModelRef::parse("credit:3"),
            Ok(ModelRef {
                name: "credit".into(),
                version: "3".into()
            })
        );
        assert_eq!(
            ModelRef::parse("azureml:credit:3").unwrap().to_string(),
            "credit:3"
        );
        assert!(ModelRef::parse("credit").is_err());
        assert!(ModelRef::parse("credit:").is_err());
        assert!(ModelRef::parse(":3").is_err());
    }

    #[test]
    fn names() {
        assert!(valid_name("gpu-cluster") && valid_name("a.b_c") && !valid_name("-x") && !valid_name("a b"));
    }
}
