//! Navigation: go-to-definition from a `compute:`/`model:`/`environment:`/
//! `endpoint_name:` reference to the workspace file that defines it (on its `name:`),
//! and from a local path (`code:`, `path:`, `conda_file:`, `file:`, `component:
//! file:...`) to the file or folder; find-references of a compute, model, environment
//! or endpoint across the workspace's files.

use std::path::PathBuf;

use super::FileSpan;
use super::analysis::{Analysis, Checked};
use super::cursor::{doc_at, value_at};
use crate::document::{Document, NodeId, Value};
use crate::facts::index::{Reference, compute_type_of_kind, parse_reference};
use crate::pipeline::Prepared;
use crate::source::Span;

/// What a compute, model, environment or endpoint reference names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    Compute,
    Model,
    Environment,
    Endpoint,
}

impl Named {
    /// The referring keys.
    fn of_key(key: &str) -> Option<Named> {
        match key {
            "compute" | "default_compute" => Some(Named::Compute),
            "model" => Some(Named::Model),
            "environment" => Some(Named::Environment),
            "endpoint_name" => Some(Named::Endpoint),
            _ => None,
        }
    }

    /// What a document of this kind defines.
    fn of_kind(kind: &str) -> Option<Named> {
        if compute_type_of_kind(kind).is_some() {
            return Some(Named::Compute);
        }
        match kind {
            "model" => Some(Named::Model),
            "environment" => Some(Named::Environment),
            "managedOnlineEndpoint" | "kubernetesOnlineEndpoint" | "batchEndpoint" => Some(Named::Endpoint),
            _ => None,
        }
    }
}

/// The name a reference string names (`azureml:name:version`, a bare name...).
fn referenced(value: &str) -> Option<(String, Option<String>)> {
    match parse_reference(value) {
        Reference::Named { name, version } => Some((name, version)),
        _ => None,
    }
}

fn location(prepared: &Prepared, span: Span) -> FileSpan {
    FileSpan {
        path: prepared.path.clone(),
        source: prepared.loaded.source.clone(),
        span,
    }
}

/// The `name:` value node of a document defining `what` named `name`.
fn definition_in(
    doc: &Document,
    kind: &str,
    what: Named,
    name: &str,
    version: Option<&str>,
) -> Option<NodeId> {
    if Named::of_kind(kind) != Some(what) {
        return None;
    }
    let root = doc.root?;
    let node = doc.get(root, "name")?;
    let matches = matches!(doc.value(node), Value::Str(s) if s.eq_ignore_ascii_case(name));
    let version_ok = match (what, version) {
        (Named::Model | Named::Environment, Some(v)) => doc.get(root, "version").is_some_and(|n| {
            crate::document::yaml11::python_str(doc.value(n)) == v
                || matches!(doc.value(n), Value::Str(s) if &**s == v)
        }),
        _ => true,
    };
    (matches && version_ok).then_some(node)
}

/// Where what is under byte `offset` is defined: the file and `name:` of a compute,
/// model, environment or endpoint, what a binding names, a local path's file or folder.
pub fn definition(ws: &Analysis, checked: &Checked, offset: u32) -> Vec<FileSpan> {
    let Some((doc, _)) = doc_at(checked, offset) else {
        return Vec::new();
    };
    if let Some(found) = super::bindings::definition(ws, checked, offset) {
        return found;
    }
    let Some((key, _, value)) = value_at(doc, offset) else {
        return Vec::new();
    };
    if let Some(what) = Named::of_key(&key) {
        let Some((name, version)) = referenced(value) else {
            return Vec::new();
        };
        let index = ws.definitions();
        let file = match what {
            Named::Compute => index.compute(&name).and_then(|c| c.file),
            Named::Endpoint => index.endpoint(&name).and_then(|e| e.file),
            Named::Model => index.model(&name, version.as_deref()).and_then(|m| m.file),
            Named::Environment => index
                .environment(&name, version.as_deref())
                .map(|e| e.file.clone()),
        };
        let Some(path) = file.map(PathBuf::from) else {
            return Vec::new();
        };
        let Some(prepared) = ws.parse_file(&path) else {
            return Vec::new();
        };
        return prepared
            .loaded
            .documents
            .iter()
            .zip(&prepared.classes)
            .filter_map(|(d, c)| {
                let node = definition_in(d, c.kind_id()?, what, &name, version.as_deref())?;
                Some(location(&prepared, d.node(node).span))
            })
            .take(1)
            .collect();
    }
    local_path(checked, &key, value).into_iter().collect()
}

/// The file or folder a local path names, relative to the file's directory.
fn local_path(checked: &Checked, key: &str, value: &str) -> Option<FileSpan> {
    let value = value.trim();
    let value = match key {
        "code" | "path" | "conda_file" | "file" => value.strip_prefix("file:").unwrap_or(value),
        "component" => value.strip_prefix("file:")?,
        _ => return None,
    };
    if value.is_empty()
        || value.contains("://")
        || value.contains("${{")
        || value.to_ascii_lowercase().starts_with("azureml:")
    {
        return None;
    }
    let dir = checked.prepared.path.parent()?;
    let target = crate::config::normalize(&dir.join(value));
    if !crate::fsio::exists_here(&target) {
        return None;
    }
    Some(FileSpan::start_of(target))
}

/// Every place of the workspace that names what is under byte `offset` (and, with
/// `declaration`, where it is defined).
pub fn references(ws: &Analysis, checked: &Checked, offset: u32, declaration: bool) -> Vec<FileSpan> {
    let Some((doc, kind)) = doc_at(checked, offset) else {
        return Vec::new();
    };
    if let Some(found) = super::bindings::references(ws, checked, offset, declaration) {
        return found;
    }
    let Some((key, node, value)) = value_at(doc, offset) else {
        return Vec::new();
    };
    let (what, name) = match Named::of_key(&key) {
        Some(what) => match referenced(value) {
            Some((name, _)) => (what, name),
            None => return Vec::new(),
        },
        None => {
            let top = doc.root.and_then(|r| doc.get(r, "name"));
            match Named::of_kind(kind) {
                Some(what) if key == "name" && top == Some(node) => (what, value.to_string()),
                _ => return Vec::new(),
            }
        }
    };
    let this = checked.prepared.path.clone();
    let mut files = ws.files_mentioning(&name);
    if !files.contains(&this) {
        files.push(this.clone());
    }
    let mut out = Vec::new();
    for path in files {
        let parsed = if path == this { None } else { ws.parse_file(&path) };
        let prepared = match &parsed {
            Some(p) => p,
            None if path == this => &checked.prepared,
            // Unreadable now: nothing of it is shown (never this file's places under
            // its name).
            None => continue,
        };
        for (d, c) in prepared.loaded.documents.iter().zip(&prepared.classes) {
            let Some(kind) = c.kind_id().filter(|_| c.is_checked()) else {
                continue;
            };
            if declaration {
                if let Some(n) = definition_in(d, kind, what, &name, None) {
                    out.push(location(prepared, d.node(n).span));
                }
            }
            for n in &d.nodes {
                let Value::Map(entries) = &n.value else {
                    continue;
                };
                for e in entries.iter().filter(|e| !e.merged) {
                    if Named::of_key(&d.key_string(e.key)) != Some(what) {
                        continue;
                    }
                    let Value::Str(v) = &d.node(e.value).value else {
                        continue;
                    };
                    if referenced(v).is_some_and(|(n, _)| n.eq_ignore_ascii_case(&name)) {
                        out.push(location(prepared, d.node(e.value).span));
                    }
                }
            }
        }
    }
    out
}
