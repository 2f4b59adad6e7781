//! The project's compute clusters grouped by the quota lines they share, as AML507 adds
//! them up (built by `FactBase::project_clusters` in `workspace.rs`).

use crate::config::workspace::{Line, Tier};

/// A compute cluster of the project, as the quota it draws on sees it.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub name: String,
    /// Its file, as the run shows paths.
    pub file: String,
    /// `max_instances` (1 when absent).
    pub count: f64,
    pub vcpus: f64,
    pub tier: Tier,
    pub region: Option<String>,
}

impl Cluster {
    pub fn vcpus_needed(&self) -> f64 {
        self.count * self.vcpus
    }
}

/// The project's clusters under a workspace's directory whose vCPUs are known, grouped by
/// the quota lines they share (tier and region; and family key): what AML507 adds up, once
/// per run and configuration, so that each cluster's check is a lookup.
#[derive(Debug, Default)]
pub struct ProjectClusters {
    pub clusters: Vec<Cluster>,
    by_name: std::collections::HashMap<String, usize>,
    by_family: std::collections::HashMap<(Tier, Option<String>, String), Group>,
    by_region: std::collections::HashMap<(Tier, Option<String>), Group>,
}

/// The clusters of one line, and their vCPUs together.
#[derive(Debug, Default)]
pub struct Group {
    /// Positions in [`ProjectClusters::clusters`], ascending.
    pub members: Vec<usize>,
    pub vcpus: f64,
}

impl ProjectClusters {
    pub(super) fn add(&mut self, c: Cluster, keys: Vec<String>) {
        let i = self.clusters.len();
        let needed = c.vcpus_needed();
        let join = |g: &mut Group| {
            g.members.push(i);
            g.vcpus += needed;
        };
        for key in keys {
            join(self.by_family.entry((c.tier, c.region.clone(), key)).or_default());
        }
        join(self.by_region.entry((c.tier, c.region.clone())).or_default());
        self.by_name.insert(c.name.to_ascii_lowercase(), i);
        self.clusters.push(c);
    }

    /// The clusters a line counts, in `tier` and `region`.
    pub fn group(&self, line: &Line, region: Option<&str>) -> Option<&Group> {
        match line {
            Line::Family { key, tier } => {
                self.by_family
                    .get(&(*tier, region.map(str::to_string), key.clone()))
            }
            Line::Regional(tier) => self.by_region.get(&(*tier, region.map(str::to_string))),
        }
    }

    /// The position of a cluster in [`ProjectClusters::clusters`], by name in any case.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(&name.to_ascii_lowercase()).copied()
    }
}
