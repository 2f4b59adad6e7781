//! `[inventory]` of a configuration (`super::inventory`): its sections and entries read,
//! each entry with its span, unknown and missing keys and entries declared twice errors at
//! their place.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use toml::de::{DeTable, DeValue};

use super::{Parser, Value};
use crate::config::inventory::{self, Compute, Deployment, Endpoint, Entries, Model, ModelRef, VmSize};
use crate::config::model::{Config, ConfigError};
use crate::source::Span;
use crate::suggest;

impl Parser<'_> {
    pub(super) fn inventory(&mut self, v: &Value<'_>, config: &mut Config) {
        const SECTIONS: &[&str] = &["computes", "models", "endpoints", "deployments", "vm_sizes"];
        let Some(table) = self.table("inventory", v) else {
            return;
        };
        let mut inv = Entries::default();
        for (key, value) in table.iter() {
            let section = key.get_ref().as_ref();
            if !SECTIONS.contains(&section) {
                self.unknown_key(key, "inventory", SECTIONS);
                continue;
            }
            let example = format!("`[[inventory.{section}]]` followed by its keys, once per entry");
            let DeValue::Array(items) = value.get_ref() else {
                self.type_error(
                    &format!("inventory.{section}"),
                    value,
                    "an array of tables",
                    &example,
                );
                continue;
            };
            for item in items.iter() {
                let DeValue::Table(entry) = item.get_ref() else {
                    self.type_error(&format!("inventory.{section}"), item, "a table", &example);
                    continue;
                };
                let span = self.span(item.span());
                match section {
                    "computes" => {
                        if let Some(c) = self.compute(entry, span) {
                            inv.computes.push(c);
                        }
                    }
                    "models" => {
                        if let Some(m) = self.model(entry, span) {
                            inv.models.push(m);
                        }
                    }
                    "endpoints" => {
                        if let Some(e) = self.endpoint(entry, span) {
                            inv.endpoints.push(e);
                        }
                    }
                    "vm_sizes" => {
                        if let Some(s) = self.vm_size(entry, span) {
                            inv.vm_sizes.push(s);
                        }
                    }
                    _ => {
                        if let Some(d) = self.deployment(entry, span) {
                            inv.deployments.push(d);
                        }
                    }
                }
            }
        }
        self.check_unique(&inv);
        // Entries of a configuration this one extends stay unless this one names them: this
        // file's entries are a layer over the base's, which is shared, never copied.
        if !inv.is_empty() {
            config.inventory = config.inventory.with_own(inv);
        }
    }

    /// The keys of an inventory entry: unknown ones and missing required ones reported.
    fn entry_fields<'v, 'i>(
        &mut self,
        section: &str,
        entry: &'v DeTable<'i>,
        span: Span,
        known: &[&str],
        required: &[&str],
    ) -> BTreeMap<String, &'v Value<'i>> {
        let mut out = BTreeMap::new();
        for (key, value) in entry.iter() {
            if known.contains(&key.get_ref().as_ref()) {
                out.insert(key.get_ref().to_string(), value);
            } else {
                self.unknown_key(key, &format!("inventory.{section}"), known);
            }
        }
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|k| !out.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.errors.push(
                ConfigError::new(
                    &self.source,
                    span,
                    format!("this `inventory.{section}` entry has no {list}"),
                )
                .with_help(format!(
                    "Each entry of `inventory.{section}` needs: {}.",
                    required.join(", ")
                )),
            );
        }
        out
    }

    fn name(&mut self, section: &str, v: &Value<'_>) -> Option<String> {
        let key = format!("inventory.{section}.name");
        let (s, span) = self.string(&key, v, "`name = \"gpu-cluster\"`")?;
        if inventory::valid_name(s) {
            Some(s.to_string())
        } else {
            self.errors.push(
                ConfigError::new(&self.source, span, format!("`{s}` is not an Azure ML name")).with_help(
                    "Names start with a letter or digit and hold letters, digits, `-`, `_` and `.`.",
                ),
            );
            None
        }
    }

    fn optional_name(&mut self, key: &str, v: Option<&&Value<'_>>) -> Option<String> {
        let v = v?;
        let (s, span) = self.string(key, v, "`compute = \"aks-prod\"`")?;
        if inventory::valid_name(s) {
            Some(s.to_string())
        } else {
            self.errors.push(
                ConfigError::new(
                    &self.source,
                    span,
                    format!("`{s}` is not an Azure ML compute name"),
                )
                .with_help("Names start with a letter or digit and hold letters, digits, `-`, `_` and `.`."),
            );
            None
        }
    }

    fn compute(&mut self, entry: &DeTable<'_>, span: Span) -> Option<Compute> {
        let f = self.entry_fields(
            "computes",
            entry,
            span,
            &["name", "type", "size"],
            &["name", "type"],
        );
        let name = f.get("name").and_then(|v| self.name("computes", v));
        let compute_type = f.get("type").and_then(|v| {
            let (s, span) = self.string("inventory.computes.type", v, "`type = \"amlcompute\"`")?;
            let lower = s.to_ascii_lowercase();
            match inventory::COMPUTE_TYPES.iter().find(|t| **t == lower) {
                Some(t) => Some(*t),
                None => {
                    let hint = suggest::closest(s, inventory::COMPUTE_TYPES.iter().copied())
                        .map(|s| format!("Did you mean `{s}`? "))
                        .unwrap_or_default();
                    self.errors.push(
                        ConfigError::new(
                            &self.source,
                            span,
                            format!("`{s}` is not an Azure ML compute type"),
                        )
                        .with_help(format!(
                            "{hint}The types are: {}.",
                            inventory::COMPUTE_TYPES.join(", ")
                        )),
                    );
                    None
                }
            }
        });
        let size = match f.get("size") {
            None => None,
            Some(v) => {
                let (s, sspan) =
                    self.string("inventory.computes.size", v, "`size = \"Standard_NC6s_v3\"`")?;
                if !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    Some(s.to_string())
                } else {
                    self.errors.push(
                        ConfigError::new(&self.source, sspan, format!("`{s}` is not a VM size"))
                            .with_help("Write the size as Azure names it, for example `Standard_NC6s_v3`."),
                    );
                    return None;
                }
            }
        };
        Some(Compute {
            name: name?,
            compute_type: compute_type?,
            size,
            span,
        })
    }

    fn model(&mut self, entry: &DeTable<'_>, span: Span) -> Option<Model> {
        let f = self.entry_fields(
            "models",
            entry,
            span,
            &["name", "version", "size_bytes"],
            &["name", "version"],
        );
        let name = f.get("name").and_then(|v| self.name("models", v));
        let version = f.get("version").and_then(|v| match v.get_ref() {
            DeValue::String(s) if !s.trim().is_empty() => Some(s.to_string()),
            DeValue::Integer(i) if i.radix() == 10 && !i.as_str().starts_with('-') => {
                Some(i.as_str().to_string())
            }
            _ => {
                self.type_error(
                    "inventory.models.version",
                    v,
                    "a non-empty string or a positive integer",
                    "`version = \"3\"`",
                );
                None
            }
        });
        let size_bytes = match f.get("size_bytes") {
            None => None,
            Some(v) => match v.get_ref() {
                DeValue::Integer(i) => match u64::from_str_radix(i.as_str(), i.radix()) {
                    Ok(n) => Some(n),
                    Err(_) => {
                        self.error(
                            v.span(),
                            format!("`size_bytes` must be a number of bytes from 0 up, not {i}"),
                            "For example: `size_bytes = 1_500_000_000` (1.5 GB).",
                        );
                        return None;
                    }
                },
                _ => {
                    self.type_error(
                        "inventory.models.size_bytes",
                        v,
                        "an integer (bytes)",
                        "`size_bytes = 1_500_000_000`",
                    );
                    return None;
                }
            },
        };
        Some(Model {
            name: name?,
            version: version?,
            size_bytes,
            span,
        })
    }

    fn endpoint(&mut self, entry: &DeTable<'_>, span: Span) -> Option<Endpoint> {
        let f = self.entry_fields("endpoints", entry, span, &["name", "compute"], &["name"]);
        let name = f.get("name").and_then(|v| self.name("endpoints", v));
        let compute = match f.get("compute") {
            None => None,
            some => Some(self.optional_name("inventory.endpoints.compute", some)?),
        };
        Some(Endpoint {
            name: name?,
            compute,
            span,
        })
    }

    fn vm_size(&mut self, entry: &DeTable<'_>, span: Span) -> Option<VmSize> {
        let f = self.entry_fields(
            "vm_sizes",
            entry,
            span,
            &["name", "vcpus", "memory_gib", "gpus"],
            &["name", "vcpus", "memory_gib"],
        );
        let name = f.get("name").and_then(|v| {
            let (s, sspan) =
                self.string("inventory.vm_sizes.name", v, "`name = \"Standard_ND96isr_H200_v5\"`")?;
            let lower = s.to_ascii_lowercase();
            let body = lower.strip_prefix("standard_").or_else(|| lower.strip_prefix("basic_"));
            if body.is_some_and(|b| {
                b.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && b.chars().any(|c| c.is_ascii_digit())
                    && b.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            }) {
                Some(s.to_string())
            } else {
                self.errors.push(
                    ConfigError::new(&self.source, sspan, format!("`{s}` is not a VM size name"))
                        .with_help("Write the size as Azure names it, with its tier: for example `Standard_ND96isr_H200_v5`."),
                );
                None
            }
        });
        let mut number = |key: &str, example: &str| -> Option<Option<f64>> {
            let Some(v) = f.get(key) else {
                return Some(None);
            };
            let n = match v.get_ref() {
                DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix()).ok().map(|n| n as f64),
                DeValue::Float(x) => x.as_str().replace('_', "").parse::<f64>().ok(),
                _ => None,
            };
            match n {
                Some(n) if n.is_finite() && n >= 0.0 => Some(Some(n)),
                _ => {
                    self.type_error(
                        &format!("inventory.vm_sizes.{key}"),
                        v,
                        "a number from 0 up",
                        example,
                    );
                    None
                }
            }
        };
        let vcpus = number("vcpus", "`vcpus = 96`");
        let memory_gib = number("memory_gib", "`memory_gib = 1850`");
        let gpus = number("gpus", "`gpus = 8`");
        Some(VmSize {
            name: name?,
            vcpus: vcpus??,
            memory_gib: memory_gib??,
            gpus: gpus?.unwrap_or(0.0),
            span,
        })
    }

    fn file_path(&mut self, key: &str, v: &Value<'_>) -> Option<(std::path::PathBuf, String)> {
        let (s, span) = self.string(key, v, "`config = \"deploy/deploymentconfig.json\"`")?;
        let path = crate::fsio::absolute(Path::new(s), self.dir);
        if matches!(
            crate::fsio::look(&path, &self.boundary),
            Ok(crate::fsio::Looked::File { .. })
        ) {
            Some((path, s.to_string()))
        } else {
            self.errors.push(
                ConfigError::new(&self.source, span, format!("`{s}` is not a file"))
                    .with_help(format!(
                        "Paths are relative to the configuration file's directory ({}); fix the path, or remove the entry if the file is gone.",
                        self.dir.display()
                    )),
            );
            None
        }
    }

    fn deployment(&mut self, entry: &DeTable<'_>, span: Span) -> Option<Deployment> {
        let f = self.entry_fields(
            "deployments",
            entry,
            span,
            &["config", "model", "inference_config", "compute"],
            &["config", "model"],
        );
        let config = f
            .get("config")
            .and_then(|v| self.file_path("inventory.deployments.config", v));
        let models = f.get("model").and_then(|v| {
            let list: Vec<(String, Span)> = match v.get_ref() {
                DeValue::String(s) => vec![(s.to_string(), self.span(v.span()))],
                DeValue::Array(_) => self.string_list(
                    "inventory.deployments.model",
                    v,
                    "`model = [\"credit:3\", \"scaler:1\"]`",
                ),
                _ => {
                    self.type_error(
                        "inventory.deployments.model",
                        v,
                        "a string or an array of strings",
                        "`model = \"credit:3\"`",
                    );
                    return None;
                }
            };
            if list.is_empty() {
                self.error(
                    v.span(),
                    "`model` names no model".to_string(),
                    "Name the model(s) the deployment serves, as `name:version`.",
                );
                return None;
            }
            let mut out = Vec::new();
            let mut ok = true;
            for (text, span) in list {
                match ModelRef::parse(&text) {
                    Ok(m) => out.push(m),
                    Err(why) => {
                        ok = false;
                        self.errors.push(ConfigError::new(&self.source, span, why));
                    }
                }
            }
            ok.then_some(out)
        });
        let inference_config = match f.get("inference_config") {
            None => None,
            Some(v) => Some(self.file_path("inventory.deployments.inference_config", v)?.0),
        };
        let compute = match f.get("compute") {
            None => None,
            some => Some(self.optional_name("inventory.deployments.compute", some)?),
        };
        let (config, config_text) = config?;
        Some(Deployment {
            config,
            config_text,
            models: models?,
            inference_config,
            compute,
            span,
        })
    }

    fn check_unique(&mut self, inv: &Entries) {
        let mut seen = HashSet::new();
        for c in &inv.computes {
            if !seen.insert(c.name.to_ascii_lowercase()) {
                self.duplicate(c.span, &format!("compute `{}`", c.name));
            }
        }
        let mut seen = HashSet::new();
        for m in &inv.models {
            if !seen.insert((m.name.clone(), m.version.clone())) {
                self.duplicate(m.span, &format!("model `{}:{}`", m.name, m.version));
            }
        }
        let mut seen = HashSet::new();
        for e in &inv.endpoints {
            if !seen.insert(e.name.clone()) {
                self.duplicate(e.span, &format!("endpoint `{}`", e.name));
            }
        }
        let mut seen = HashSet::new();
        for v in &inv.vm_sizes {
            if !seen.insert(v.name.to_ascii_lowercase()) {
                self.duplicate(v.span, &format!("VM size `{}`", v.name));
            }
        }
        let mut seen = HashSet::new();
        for d in &inv.deployments {
            if !seen.insert(d.config.clone()) {
                self.duplicate(d.span, &format!("deployment config `{}`", d.config_text));
            }
        }
    }

    fn duplicate(&mut self, span: Span, what: &str) {
        self.errors.push(
            ConfigError::new(&self.source, span, format!("the inventory declares {what} twice"))
                .with_help("Keep one entry; amlint could not tell which one is true."),
        );
    }
}
