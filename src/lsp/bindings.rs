//! Bindings (`${{...}}`): go-to-definition from a binding to what it names, and
//! completion of the names a binding may take. The bindings of a scalar are found by the
//! data-flow scanner ([`scan::locate`], the spans AML801–AML810 report), the interfaces
//! read as the data-flow model reads them ([`Interface::read`]); a step's local component
//! file is parsed as the workspace holds it (an open buffer's text wins).
//!
//! What a binding names:
//! - `inputs.x` / `outputs.x`: the input or output declared by the innermost of the
//!   document, a pipeline step, its inline component or its trial that holds the binding;
//! - `parent.inputs.x` / `parent.outputs.x`: the pipeline's own;
//! - `parent.jobs.<step>`: the step's key; `parent.jobs.<step>.outputs.<out>` (or
//!   `inputs`): the port the step or its inline component declares, or the local
//!   component file's, else the step's key.

use std::path::PathBuf;

use lsp_types::{CompletionItem, CompletionItemKind, CompletionTextEdit, Location, Position, TextEdit};

use super::convert;
use super::navigate::{doc_at, parse_file, value_at};
use super::workspace::{Checked, Workspace};
use crate::checks::dataflow::scan;
use crate::document::{Document, NodeId, Value};
use crate::facts::interface::{Interface, Port, kept};
use crate::source::Span;

/// Longest expression completed: a longer one is not being typed as a binding.
const MAX_EXPR: usize = 512;

/// The mappings whose interface `inputs.x` / `outputs.x` may name, innermost last: the
/// document, each pipeline step, a step's inline component and trial.
fn owner_at(doc: &Document, offset: u32) -> Option<NodeId> {
    let root = doc.root?;
    let contains = |id: NodeId| {
        let s = doc.node(id).span;
        s.start <= offset && offset <= s.end
    };
    let mut owner = root;
    let jobs = doc.get(root, "jobs").filter(|j| is_map(doc, *j));
    for (_, _, step) in jobs.map(|j| kept(doc, j)).unwrap_or_default() {
        if !is_map(doc, step) || !contains(step) {
            continue;
        }
        owner = step;
        for key in ["component", "trial"] {
            if let Some(inner) = doc.get(step, key).filter(|c| is_map(doc, *c) && contains(*c)) {
                owner = inner;
            }
        }
    }
    Some(owner)
}

fn is_map(doc: &Document, id: NodeId) -> bool {
    matches!(doc.value(id), Value::Map(_))
}

/// The pipeline step named `name` and its key.
fn step(doc: &Document, name: &str) -> Option<(NodeId, NodeId)> {
    let jobs = doc.get(doc.root?, "jobs").filter(|j| is_map(doc, *j))?;
    kept(doc, jobs)
        .into_iter()
        .find(|(n, _, v)| n == name && is_map(doc, *v))
        .map(|(_, k, v)| (k, v))
}

/// The local component file a step's `component:` names (relative to `checked`'s file).
fn component_file(checked: &Checked, doc: &Document, step: NodeId) -> Option<PathBuf> {
    let Value::Str(text) = doc.value(doc.get(step, "component")?) else {
        return None;
    };
    let text = text.trim();
    let path = text.strip_prefix("file:").unwrap_or(text);
    let lower = path.to_ascii_lowercase();
    if !(lower.ends_with(".yml") || lower.ends_with(".yaml"))
        || lower.starts_with("azureml:")
        || path.contains("://")
    {
        return None;
    }
    let dir = checked.prepared.path.parent()?;
    Some(crate::config::normalize(&dir.join(path)))
}

/// Where a step's ports are declared: the step itself, its inline component, or (the
/// interface, the file and its parse) a local component file.
enum Ports {
    Here(Interface),
    File(Interface, PathBuf, Box<crate::pipeline::Prepared>),
    Unknown,
}

fn step_ports(ws: &Workspace, checked: &Checked, doc: &Document, step: NodeId) -> Ports {
    match doc.get(step, "component") {
        Some(c) if is_map(doc, c) => Ports::Here(Interface::read(doc, c)),
        Some(_) => {
            let Some(path) = component_file(checked, doc, step) else {
                return Ports::Unknown;
            };
            let Some(prepared) = parse_file(ws, &path) else {
                return Ports::Unknown;
            };
            let Some(root) = prepared.loaded.documents.first().and_then(|d| d.root) else {
                return Ports::Unknown;
            };
            let interface = Interface::read(&prepared.loaded.documents[0], root);
            Ports::File(interface, path, Box::new(prepared))
        }
        None => Ports::Here(Interface::read(doc, step)),
    }
}

fn ports<'a>(interface: &'a Interface, which: &str) -> &'a [Port] {
    if which == "inputs" {
        &interface.inputs
    } else {
        &interface.outputs
    }
}

pub fn definition(ws: &Workspace, checked: &Checked, position: Position) -> Option<Vec<Location>> {
    let source = &checked.source;
    let offset = convert::offset(source, position);
    let (doc, _) = doc_at(checked, offset)?;
    let (_, node, value) = value_at(doc, offset)?;
    let span = doc.node(node).span;
    let binding = scan::locate(value, source.slice(span), span.start)
        .into_iter()
        .find(|b| b.exact && b.span.start <= offset && offset <= b.span.end)?;
    let uri = convert::uri_of(&checked.prepared.path)?;
    let here = |span: Span| Some(vec![Location::new(uri.clone(), convert::range(source, span))]);
    let segments = binding.segments();
    let port_span = |interface: &Interface, which: &str, name: &str| {
        ports(interface, which)
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.span)
    };
    match segments.as_slice() {
        [which @ ("inputs" | "outputs"), name, ..] => {
            let owner = owner_at(doc, binding.span.start)?;
            // A sweep job's trial is not an owner: it names the sweep job's inputs.
            here(port_span(&Interface::read(doc, owner), which, name)?)
        }
        ["parent", which @ ("inputs" | "outputs"), name, ..] => {
            here(port_span(&Interface::read(doc, doc.root?), which, name)?)
        }
        ["parent", "jobs", name, rest @ ..] => {
            let (key, step) = step(doc, name)?;
            let step_key = doc.node(key).span;
            let [which @ ("inputs" | "outputs"), port, ..] = rest else {
                return here(step_key);
            };
            match step_ports(ws, checked, doc, step) {
                Ports::Here(i) => here(port_span(&i, which, port).unwrap_or(step_key)),
                Ports::File(i, path, prepared) => match port_span(&i, which, port) {
                    Some(s) => Some(vec![Location::new(
                        convert::uri_of(&path)?,
                        convert::range(&prepared.loaded.source, s),
                    )]),
                    None => here(step_key),
                },
                Ports::Unknown => here(step_key),
            }
        }
        _ => None,
    }
}

/// The `${{` expression being typed before `offset` on its line: (the start of the last
/// segment, the segments before it, the last segment typed so far).
fn typed_expression(text: &str, offset: usize) -> Option<(usize, Vec<&str>, &str)> {
    let offset = offset.min(text.len());
    let before = text.get(..offset)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    let open = line.rfind("${{")?;
    let expr_text = &line[open + 3..];
    let expr = expr_text.trim_start();
    if expr.len() > MAX_EXPR
        || expr.contains("}}")
        || !expr.chars().all(|c| c.is_alphanumeric() || "._-".contains(c))
    {
        return None;
    }
    let (head, last) = match expr.rfind('.') {
        Some(i) => (&expr[..i], &expr[i + 1..]),
        None => ("", expr),
    };
    let segments = if head.is_empty() {
        Vec::new()
    } else {
        head.split('.').collect()
    };
    Some((offset - last.len(), segments, last))
}

/// Completion inside a `${{...}}` being typed (`None`: the cursor is not in one).
pub fn complete(ws: &Workspace, checked: &Checked, position: Position) -> Option<Vec<CompletionItem>> {
    let source = &checked.source;
    let offset = convert::offset(source, position);
    let (start, segments, typed) = typed_expression(&source.text, offset as usize)?;
    let range = convert::range(source, Span::new(start as u32, offset));
    let item = |label: &str, kind: CompletionItemKind, detail: String| CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: Some(detail),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, label.to_string()))),
        ..Default::default()
    };
    let Some((doc, _)) = doc_at(checked, offset).or_else(|| {
        let p = &checked.prepared;
        p.loaded
            .documents
            .iter()
            .zip(&p.classes)
            .find_map(|(d, c)| Some((d, c.kind_id()?)))
    }) else {
        return Some(Vec::new());
    };
    let port_items = |interface: &Interface, which: &str, owner: &str| -> Vec<CompletionItem> {
        ports(interface, which)
            .iter()
            .map(|p| {
                let ty = p.ptype.as_deref().unwrap_or("untyped");
                let kind = if which == "inputs" { "input" } else { "output" };
                item(
                    &p.name,
                    CompletionItemKind::FIELD,
                    format!("{ty} {kind} of {owner}"),
                )
            })
            .collect()
    };
    let mut items = match segments.as_slice() {
        [which @ ("inputs" | "outputs")] => match owner_at(doc, start as u32) {
            Some(owner) => port_items(&Interface::read(doc, owner), which, "this job"),
            None => Vec::new(),
        },
        ["parent", which @ ("inputs" | "outputs")] => match doc.root {
            Some(root) => port_items(&Interface::read(doc, root), which, "the pipeline"),
            None => Vec::new(),
        },
        ["parent", "jobs"] => {
            let jobs = doc
                .root
                .and_then(|r| doc.get(r, "jobs"))
                .filter(|j| is_map(doc, *j));
            jobs.map(|j| kept(doc, j))
                .unwrap_or_default()
                .into_iter()
                .filter(|(_, _, v)| is_map(doc, *v))
                .map(|(name, _, v)| {
                    let ty = match doc.get(v, "type").map(|t| doc.value(t)) {
                        Some(Value::Str(s)) => s.to_string(),
                        _ => "command".to_string(),
                    };
                    item(&name, CompletionItemKind::MODULE, format!("{ty} step"))
                })
                .collect()
        }
        ["parent", "jobs", name] => ["outputs", "inputs"]
            .iter()
            .map(|w| {
                item(
                    w,
                    CompletionItemKind::KEYWORD,
                    format!("the {w} of step `{name}`"),
                )
            })
            .collect(),
        ["parent", "jobs", name, which @ ("inputs" | "outputs")] => match step(doc, name) {
            Some((_, node)) => match step_ports(ws, checked, doc, node) {
                Ports::Here(i) => port_items(&i, which, &format!("step `{name}`")),
                Ports::File(i, path, _) => {
                    let file = path
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    port_items(&i, which, &format!("step `{name}` ({file})"))
                }
                Ports::Unknown => Vec::new(),
            },
            None => Vec::new(),
        },
        ["parent"] => ["jobs", "inputs", "outputs"]
            .iter()
            .map(|w| item(w, CompletionItemKind::KEYWORD, format!("the pipeline's {w}")))
            .collect(),
        [] => ["inputs", "outputs", "parent"]
            .iter()
            .map(|w| item(w, CompletionItemKind::KEYWORD, "binding".to_string()))
            .collect(),
        _ => Vec::new(),
    };
    items.retain(|i| i.label.starts_with(typed));
    Some(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expression_typed_is_read_from_the_line() {
        let text = "a: x\ncmd: café ${{ parent.jobs.pr";
        let (start, segments, typed) = typed_expression(text, text.len()).unwrap();
        assert_eq!((segments, typed), (vec!["parent", "jobs"], "pr"));
        assert_eq!(&text[start..], "pr");
        assert!(typed_expression("x: ${{a}} b", 11).is_none());
        assert!(typed_expression("x: ${{a b", 9).is_none());
        assert!(typed_expression("x: y", 4).is_none());
        // Every offset of a text with multi-byte characters: no panic.
        let text = "é${{日.🎉.";
        for i in 0..=text.len() + 2 {
            let _ = typed_expression(text, i);
        }
    }
}
