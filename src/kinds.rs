//! Document kinds and classification, driven by `schemas/kinds.yaml` (see the comment at
//! the top of that file for the algorithm).

use std::collections::HashMap;
use std::sync::LazyLock;

use globset::{Glob, GlobMatcher};
use serde::Deserialize;

use crate::document::{Document, Value};
use crate::source::Span;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindsFile {
    families: Vec<FamilyDef>,
    schema_hosts: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FamilyDef {
    family: String,
    command: String,
    #[serde(default)]
    detect: Vec<Shape>,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    skip: bool,
    #[serde(default)]
    type_exact: bool,
    kinds: Vec<KindDef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindDef {
    id: String,
    title: String,
    #[serde(default)]
    schemas: Vec<String>,
    #[serde(default, rename = "match")]
    matches: Vec<Shape>,
    #[serde(default)]
    umbrella: bool,
}

/// Conditions on a document's top-level keys; all must hold.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Shape {
    /// Allowed `type:` values, lower-case; `None` stands for "no `type:` key".
    #[serde(default, rename = "type")]
    types: Option<Vec<Option<String>>>,
    #[serde(default)]
    keys: Vec<String>,
    #[serde(default)]
    any_keys: Vec<String>,
    #[serde(default)]
    not_keys: Vec<String>,
}

/// One document kind (`commandJob`, `v1.deploymentConfig`, ...).
#[derive(Debug)]
pub struct Kind {
    pub id: String,
    /// Human name for messages ("managed online deployment").
    pub title: String,
    /// The `$schema` file names that name this kind, as written in the table.
    pub schema_names: Vec<String>,
    pub family: usize,
    matches: Vec<Shape>,
    /// Its `$schema` covers every kind of the family.
    pub umbrella: bool,
}

#[derive(Debug)]
pub struct Family {
    pub name: String,
    /// The CLI command that consumes files of this family.
    pub command: String,
    pub skip: bool,
    /// The CLI compares `type:` exactly (lower case) when it dispatches a file of this
    /// family; classification still matches it case-insensitively, and AML103 reports
    /// the case.
    pub type_exact: bool,
    detect: Vec<Shape>,
    files: Vec<GlobMatcher>,
    /// Indices into [`KindTable::kinds`].
    pub kinds: Vec<usize>,
}

#[derive(Debug)]
pub struct KindTable {
    pub kinds: Vec<Kind>,
    pub families: Vec<Family>,
    by_schema: HashMap<String, usize>,
    by_id: HashMap<String, usize>,
    schema_hosts: Vec<String>,
}

/// Where a document's kind came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Schema,
    Shape,
    FileName,
}

/// The result of classifying one document.
#[derive(Debug, Clone, Default)]
pub struct Classification {
    /// The kind the Azure ML CLI would load the document as.
    pub kind: Option<&'static Kind>,
    pub source: Option<Source>,
    /// The kind `$schema` names, when it differs from `kind` (the CLI follows `type:`).
    pub declared: Option<&'static Kind>,
    /// A `$schema` under an Azure ML host that names no known kind (AML006).
    pub unknown_schema: Option<UnknownSchema>,
}

#[derive(Debug, Clone)]
pub struct UnknownSchema {
    pub url: String,
    pub name: String,
    pub span: Span,
}

impl Classification {
    /// The document is an Azure ML configuration amlint checks.
    pub fn is_checked(&self) -> bool {
        match self.kind {
            Some(kind) => !table().families[kind.family].skip,
            None => self.unknown_schema.is_some(),
        }
    }

    pub fn kind_id(&self) -> Option<&'static str> {
        self.kind.map(|k| k.id.as_str())
    }
}

impl KindTable {
    fn load(text: &str) -> Result<Self, crate::data::DataError> {
        let file: KindsFile = crate::data::from_embedded("schemas/kinds.yaml", text)?;
        let mut table = KindTable {
            kinds: Vec::new(),
            families: Vec::new(),
            by_schema: HashMap::new(),
            by_id: HashMap::new(),
            schema_hosts: file.schema_hosts.iter().map(|h| h.to_ascii_lowercase()).collect(),
        };
        for (fi, fam) in file.families.into_iter().enumerate() {
            let mut kinds = Vec::new();
            for k in fam.kinds {
                let index = table.kinds.len();
                for name in &k.schemas {
                    table.by_schema.insert(name.to_ascii_lowercase(), index);
                }
                table.by_id.insert(k.id.clone(), index);
                kinds.push(index);
                table.kinds.push(Kind {
                    id: k.id,
                    title: k.title,
                    schema_names: k.schemas,
                    family: fi,
                    matches: lower_types(k.matches),
                    umbrella: k.umbrella,
                });
            }
            let files = fam
                .files
                .iter()
                .filter_map(|g| {
                    Glob::new(&g.to_ascii_lowercase())
                        .ok()
                        .map(|g| g.compile_matcher())
                })
                .collect();
            table.families.push(Family {
                name: fam.family,
                command: fam.command,
                skip: fam.skip,
                type_exact: fam.type_exact,
                detect: lower_types(fam.detect),
                files,
                kinds,
            });
        }
        Ok(table)
    }

    pub fn get(&self, id: &str) -> Option<&Kind> {
        self.by_id.get(id).map(|&i| &self.kinds[i])
    }

    pub fn by_schema_name(&self, name: &str) -> Option<&Kind> {
        self.by_schema
            .get(&name.to_ascii_lowercase())
            .map(|&i| &self.kinds[i])
    }
}

fn lower_types(shapes: Vec<Shape>) -> Vec<Shape> {
    shapes
        .into_iter()
        .map(|mut s| {
            if let Some(types) = &mut s.types {
                for t in types.iter_mut().flatten() {
                    *t = t.to_ascii_lowercase();
                }
            }
            s
        })
        .collect()
}

/// The embedded kinds table.
pub fn table() -> &'static KindTable {
    static TABLE: LazyLock<KindTable> = LazyLock::new(|| {
        let text = crate::embedded::schema_file("kinds.yaml").unwrap_or_default();
        KindTable::load(text).unwrap_or_else(|e| {
            // Tested in the suite; a broken table must not crash a run.
            eprintln!("amlint: internal error in schemas/kinds.yaml: {e}");
            KindTable {
                kinds: Vec::new(),
                families: Vec::new(),
                by_schema: HashMap::new(),
                by_id: HashMap::new(),
                schema_hosts: Vec::new(),
            }
        })
    });
    &TABLE
}

/// The top-level facts shapes are matched against.
struct Top<'a> {
    keys: Vec<std::borrow::Cow<'a, str>>,
    /// `None`: no `type:` key. `Some(None)`: a `type:` that is not a string.
    type_value: Option<Option<String>>,
}

impl Top<'_> {
    fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    fn matches(&self, shape: &Shape) -> bool {
        if let Some(types) = &shape.types {
            let ok = match &self.type_value {
                None => types.iter().any(Option::is_none),
                Some(Some(t)) => types.iter().flatten().any(|allowed| allowed == t),
                Some(None) => false,
            };
            if !ok {
                return false;
            }
        }
        shape.keys.iter().all(|k| self.has(k))
            && (shape.any_keys.is_empty() || shape.any_keys.iter().any(|k| self.has(k)))
            && !shape.not_keys.iter().any(|k| self.has(k))
    }
}

/// Splits a `$schema` URL into (host, file-name stem).
fn schema_name(url: &str) -> (String, String) {
    let url = url.trim();
    let without_fragment = url.split(['#', '?']).next().unwrap_or(url);
    let after_scheme = without_fragment
        .split_once("://")
        .map_or(without_fragment, |(_, rest)| rest);
    let host = after_scheme.split('/').next().unwrap_or("").to_ascii_lowercase();
    let last = without_fragment.rsplit('/').next().unwrap_or("");
    let lower = last.to_ascii_lowercase();
    let stem_len = if lower.ends_with(".schema.json") {
        last.len() - ".schema.json".len()
    } else if lower.ends_with(".json") {
        last.len() - ".json".len()
    } else {
        last.len()
    };
    (host, last[..stem_len].to_string())
}

/// Decides what kind of Azure ML configuration a document is.
pub fn classify(doc: &Document, path: &str) -> Classification {
    let t = table();
    let mut out = Classification::default();
    let root = doc.root.filter(|&r| matches!(doc.value(r), Value::Map(_)));
    let top = match root {
        Some(r) => Top {
            keys: doc.entries(r).iter().map(|e| doc.key_string(e.key)).collect(),
            type_value: doc.get(r, "type").map(|id| match doc.value(id) {
                Value::Str(s) => Some(s.to_ascii_lowercase()),
                _ => None,
            }),
        },
        None => Top {
            keys: Vec::new(),
            type_value: None,
        },
    };

    let mut declared = None;
    if let (Some(r), Some(url)) = (root, doc.top_str("$schema")) {
        let (host, name) = schema_name(url);
        match t.by_schema.get(&name.to_ascii_lowercase()) {
            Some(&k) => declared = Some(k),
            None => {
                let azure = t
                    .schema_hosts
                    .iter()
                    .any(|h| host == *h || host.ends_with(&format!(".{h}")));
                if azure {
                    let span = doc.get(r, "$schema").map_or(doc.span, |v| doc.node(v).span);
                    out.unknown_schema = Some(UnknownSchema {
                        url: url.to_string(),
                        name,
                        span,
                    });
                }
            }
        }
    }

    let family = if let Some(k) = declared {
        Some((t.kinds[k].family, Source::Schema))
    } else if root.is_some() {
        t.families
            .iter()
            .position(|f| f.detect.iter().any(|s| top.matches(s)))
            .map(|f| (f, Source::Shape))
    } else {
        None
    };
    let family = family.or_else(|| {
        let file_name = path
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(path)
            .to_ascii_lowercase();
        t.families
            .iter()
            .position(|f| f.files.iter().any(|g| g.is_match(&file_name)))
            .map(|f| (f, Source::FileName))
    });
    let Some((fi, source)) = family else {
        return out;
    };
    let fam = &t.families[fi];
    // The SDK's own dispatch inside the family (`type:`, or `compute:` for endpoints).
    let matched = fam
        .kinds
        .iter()
        .copied()
        .find(|&k| t.kinds[k].matches.iter().any(|s| top.matches(s)));
    let default = fam
        .kinds
        .iter()
        .copied()
        .find(|&k| t.kinds[k].matches.is_empty())
        .or(fam.kinds.first().copied());
    let kind = matched.or(declared).or(default);
    out.kind = kind.map(|k| &t.kinds[k]);
    out.source = Some(source);
    if let (Some(d), Some(k)) = (declared, kind) {
        if d != k && !t.kinds[d].umbrella {
            out.declared = Some(&t.kinds[d]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Format, Limits, parse_text};

    fn kind_of(path: &str, text: &str) -> Classification {
        let loaded = parse_text(path, text.to_string(), Format::for_path(path), &Limits::default());
        classify(&loaded.documents[0], path)
    }

    #[test]
    fn table_loads() {
        let t = table();
        assert!(t.kinds.len() > 40, "{}", t.kinds.len());
        assert!(t.get("commandJob").is_some());
        assert_eq!(
            t.by_schema_name("ManagedOnlineDeployment").map(|k| k.id.as_str()),
            Some("managedOnlineDeployment")
        );
    }

    #[test]
    fn schema_names_and_hosts() {
        assert_eq!(
            schema_name("https://azuremlschemas.azureedge.net/latest/commandJob.schema.json"),
            ("azuremlschemas.azureedge.net".into(), "commandJob".into())
        );
        assert_eq!(
            schema_name("http://azureml/sdk-2-0/Schedule.json"),
            ("azureml".into(), "Schedule".into())
        );
    }

    #[test]
    fn by_schema_then_type() {
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/batchDeployment.schema.json\ntype: model\nendpoint_name: e\n",
        );
        assert_eq!(c.kind_id(), Some("modelBatchDeployment"));
        // The generic batch deployment schema covers model deployments: no disagreement.
        assert!(c.declared.is_none());
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ntype: pipeline\njobs: {}\n",
        );
        assert_eq!(c.kind_id(), Some("pipelineJob"));
        assert_eq!(c.declared.map(|k| k.id.as_str()), Some("commandJob"));
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\nname: blue\n",
        );
        assert_eq!(c.kind_id(), Some("managedOnlineDeployment"));
        assert!(c.declared.is_none());
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineEndpoint.schema.json\nname: e\ncompute: azureml:k8s\n",
        );
        assert_eq!(c.kind_id(), Some("kubernetesOnlineEndpoint"));
    }

    #[test]
    fn by_shape() {
        assert_eq!(
            kind_of("x.yml", "type: amlcompute\nname: c\n").kind_id(),
            Some("amlCompute")
        );
        assert_eq!(
            kind_of("x.yml", "type: AmlCompute\nname: c\n").kind_id(),
            Some("amlCompute")
        );
        assert_eq!(
            kind_of("x.yml", "command: python x.py\nenvironment: azureml:e:1\n").kind_id(),
            Some("commandJob")
        );
        assert_eq!(
            kind_of("x.yml", "type: command\nname: c\nversion: 1\ncommand: x\n").kind_id(),
            Some("commandComponent")
        );
        assert_eq!(
            kind_of(
                "x.yml",
                "name: blue\nendpoint_name: e\ninstance_type: Standard_DS3_v2\n"
            )
            .kind_id(),
            Some("managedOnlineDeployment")
        );
        assert_eq!(
            kind_of("x.yml", "name: b\nendpoint_name: e\ntype: kubernetes\n").kind_id(),
            Some("kubernetesOnlineDeployment")
        );
        assert_eq!(
            kind_of("x.json", "{\"computeType\": \"ACI\"}").kind_id(),
            Some("v1.deploymentConfig")
        );
    }

    #[test]
    fn not_azure_ml() {
        for (p, t) in [
            (
                "conda.yml",
                "name: env\nchannels: [conda-forge]\ndependencies: [python=3.10]\n",
            ),
            (
                "ci.yml",
                "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n",
            ),
            ("k8s.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n"),
            ("data.json", "[1, 2, 3]"),
        ] {
            let c = kind_of(p, t);
            assert!(!c.is_checked(), "{p}: {c:?}");
        }
    }

    #[test]
    fn unknown_azure_schema() {
        let c = kind_of(
            "x.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJobb.schema.json\ncommand: x\nenvironment: e\n",
        );
        assert!(c.unknown_schema.is_some());
        assert_eq!(c.kind_id(), Some("commandJob"));
        let c = kind_of(
            "x.yml",
            "$schema: https://json.schemastore.org/github-workflow.json\non: push\n",
        );
        assert!(c.unknown_schema.is_none() && !c.is_checked());
    }

    #[test]
    fn by_file_name() {
        assert_eq!(
            kind_of("deploymentconfig.json", "{}").kind_id(),
            Some("v1.deploymentConfig")
        );
        let c = kind_of(
            "flow.dag.yaml",
            "$schema: https://azuremlschemas.azureedge.net/promptflow/latest/Flow.schema.json\ninputs: {}\n",
        );
        assert_eq!(c.kind_id(), Some("promptFlow"));
        assert!(!c.is_checked());
    }
}
