//! Navigation: go-to-definition from a `compute:`/`model:`/`environment:`/
//! `endpoint_name:` reference to the workspace file that defines it (on its `name:`),
//! and from a local path (`code:`, `path:`, `conda_file:`, `file:`, `component:
//! file:...`) to the file or folder; find-references of a compute, model, environment
//! or endpoint across the workspace's files.

use std::path::{Path, PathBuf};

use lsp_types::{Location, Position, Range, Url};

use super::convert;
use super::workspace::{Checked, Workspace};
use crate::document::{Document, NodeId, Value};
use crate::facts::index::{Reference, compute_type_of_kind, parse_reference};
use crate::load::{self, Format};
use crate::pipeline::{self, Prepared};
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

/// A mapping entry whose string value holds `offset`: (key, value node, the string).
pub(super) fn value_at(doc: &Document, offset: u32) -> Option<(String, NodeId, &str)> {
    doc.nodes.iter().find_map(|n| match &n.value {
        Value::Map(entries) => entries.iter().filter(|e| !e.merged).find_map(|e| {
            let node = doc.node(e.value);
            let s = node.span;
            match &node.value {
                Value::Str(v) if s.start <= offset && offset <= s.end => {
                    Some((doc.key_string(e.key).into_owned(), e.value, &**v))
                }
                _ => None,
            }
        }),
        _ => None,
    })
}

/// The name a reference string names (`azureml:name:version`, a bare name...).
fn referenced(value: &str) -> Option<(String, Option<String>)> {
    match parse_reference(value) {
        Reference::Named { name, version } => Some((name, version)),
        _ => None,
    }
}

/// The Azure ML document of a checked file around `offset`.
pub(super) fn doc_at(checked: &Checked, offset: u32) -> Option<(&Document, &'static str)> {
    let p = &checked.prepared;
    p.loaded
        .documents
        .iter()
        .zip(&p.classes)
        .filter(|(d, c)| c.is_checked() && d.span.start <= offset && offset <= d.span.end)
        .find_map(|(d, c)| Some((d, c.kind_id()?)))
}

/// A workspace file parsed and classified (an open document's current text).
pub(super) fn parse_file(ws: &Workspace, path: &Path) -> Option<Prepared> {
    let text = ws.text_of(path)?;
    let display = path.to_string_lossy().into_owned();
    let loaded = load::parse_text(&display, text, Format::for_path(&display), ws.limits());
    Some(pipeline::prepare(path.to_path_buf(), loaded, false))
}

fn location(uri: &Url, prepared: &Prepared, span: Span) -> Location {
    Location::new(uri.clone(), convert::range(&prepared.loaded.source, span))
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

pub fn definition(ws: &Workspace, checked: &Checked, position: Position) -> Vec<Location> {
    let offset = convert::offset(&checked.source, position);
    let Some((doc, _)) = doc_at(checked, offset) else {
        return Vec::new();
    };
    if let Some(found) = super::bindings::definition(ws, checked, position) {
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
        let Some(prepared) = parse_file(ws, &path) else {
            return Vec::new();
        };
        let Some(uri) = convert::uri_of(&path) else {
            return Vec::new();
        };
        return prepared
            .loaded
            .documents
            .iter()
            .zip(&prepared.classes)
            .filter_map(|(d, c)| {
                let node = definition_in(d, c.kind_id()?, what, &name, version.as_deref())?;
                Some(location(&uri, &prepared, d.node(node).span))
            })
            .take(1)
            .collect();
    }
    local_path(checked, &key, value).into_iter().collect()
}

/// The file or folder a local path names, relative to the file's directory.
fn local_path(checked: &Checked, key: &str, value: &str) -> Option<Location> {
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
    let uri = convert::uri_of(&target)?;
    Some(Location::new(uri, Range::default()))
}

pub fn references(
    ws: &Workspace,
    checked: &Checked,
    uri: &Url,
    position: Position,
    declaration: bool,
) -> Vec<Location> {
    let offset = convert::offset(&checked.source, position);
    let Some((doc, kind)) = doc_at(checked, offset) else {
        return Vec::new();
    };
    if let Some(found) = super::bindings::references(ws, checked, uri, position, declaration) {
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
        let prepared = if path == this { None } else { parse_file(ws, &path) };
        let prepared = prepared.as_ref().unwrap_or(&checked.prepared);
        let Some(file_uri) = (if path == this {
            Some(uri.clone())
        } else {
            convert::uri_of(&path)
        }) else {
            continue;
        };
        for (d, c) in prepared.loaded.documents.iter().zip(&prepared.classes) {
            let Some(kind) = c.kind_id().filter(|_| c.is_checked()) else {
                continue;
            };
            if declaration {
                if let Some(n) = definition_in(d, kind, what, &name, None) {
                    out.push(location(&file_uri, prepared, d.node(n).span));
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
                        out.push(location(&file_uri, prepared, d.node(e.value).span));
                    }
                }
            }
        }
    }
    out
}
