//! Bindings (`${{...}}`): go-to-definition from a binding to what it names,
//! find-references of what bindings name (a declared input or output, a pipeline step),
//! and completion of the names a binding may take. The bindings of a scalar are found by the
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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use lsp_types::{CompletionItem, CompletionItemKind, CompletionTextEdit, Location, Position, TextEdit, Url};

use super::convert;
use super::navigate::{doc_at, parse_file, value_at};
use super::workspace::{Checked, Workspace};
use crate::checks::dataflow::scan;
use crate::document::{Document, NodeId, Value};
use crate::facts::interface::{Interface, Port, kept};
use crate::pipeline::Prepared;
use crate::source::{SourceFile, Span};

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

/// The local component file a step's `component:` names (relative to `file`'s folder).
fn component_file(file: &Path, doc: &Document, step: NodeId) -> Option<PathBuf> {
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
    let dir = file.parent()?;
    Some(crate::config::normalize(&dir.join(path)))
}

/// A component file: the interface its first document declares and its parse.
type ComponentFile = Rc<(Interface, Prepared)>;

/// The local component files met while answering one request, each parsed once (as the
/// workspace holds it: an open buffer's text wins).
#[derive(Default)]
struct Components(HashMap<PathBuf, Option<ComponentFile>>);

impl Components {
    fn get(&mut self, ws: &Workspace, path: &Path) -> Option<ComponentFile> {
        self.0
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let prepared = parse_file(ws, path)?;
                let doc = prepared.loaded.documents.first()?;
                let interface = Interface::read(doc, doc.root?);
                Some(Rc::new((interface, prepared)))
            })
            .clone()
    }
}

/// Where a step's ports are declared: the step itself, its inline component, or (the
/// interface and the parse) a local component file.
enum Ports {
    Here(Interface),
    File(ComponentFile, PathBuf),
    Unknown,
}

fn step_ports(
    ws: &Workspace,
    components: &mut Components,
    file: &Path,
    doc: &Document,
    step: NodeId,
) -> Ports {
    match doc.get(step, "component") {
        Some(c) if is_map(doc, c) => Ports::Here(Interface::read(doc, c)),
        Some(_) => {
            let found =
                component_file(file, doc, step).and_then(|path| Some((components.get(ws, &path)?, path)));
            match found {
                Some((component, path)) => Ports::File(component, path),
                None => Ports::Unknown,
            }
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

fn port_span(interface: &Interface, which: &str, name: &str) -> Option<Span> {
    ports(interface, which)
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.span)
}

/// One document of a file, as bindings are resolved in it.
struct InFile<'a> {
    uri: &'a Url,
    path: &'a Path,
    source: &'a SourceFile,
    doc: &'a Document,
}

impl InFile<'_> {
    fn at(&self, span: Span) -> Location {
        Location::new(self.uri.clone(), convert::range(self.source, span))
    }
}

/// What the binding whose dotted segments are `segments`, at byte `at` of the file,
/// names (see the module's documentation).
fn resolve(
    ws: &Workspace,
    components: &mut Components,
    file: &InFile,
    segments: &[&str],
    at: u32,
) -> Option<Location> {
    let doc = file.doc;
    match segments {
        [which @ ("inputs" | "outputs"), name, ..] => {
            let owner = owner_at(doc, at)?;
            // A sweep job's trial is not an owner: it names the sweep job's inputs.
            Some(file.at(port_span(&Interface::read(doc, owner), which, name)?))
        }
        ["parent", which @ ("inputs" | "outputs"), name, ..] => {
            Some(file.at(port_span(&Interface::read(doc, doc.root?), which, name)?))
        }
        ["parent", "jobs", name, rest @ ..] => {
            let (key, step) = step(doc, name)?;
            let step_key = doc.node(key).span;
            let [which @ ("inputs" | "outputs"), port, ..] = rest else {
                return Some(file.at(step_key));
            };
            match step_ports(ws, components, file.path, doc, step) {
                Ports::Here(i) => Some(file.at(port_span(&i, which, port).unwrap_or(step_key))),
                Ports::File(component, path) => match port_span(&component.0, which, port) {
                    Some(s) => Some(Location::new(
                        convert::uri_of(&path)?,
                        convert::range(&component.1.loaded.source, s),
                    )),
                    None => Some(file.at(step_key)),
                },
                Ports::Unknown => Some(file.at(step_key)),
            }
        }
        _ => None,
    }
}

/// The exact binding of the scalar value at `offset`, if the offset is in one.
fn binding_at(checked: &Checked, doc: &Document, offset: u32) -> Option<scan::Binding> {
    let (_, node, value) = value_at(doc, offset)?;
    let span = doc.node(node).span;
    scan::locate(value, checked.source.slice(span), span.start)
        .into_iter()
        .find(|b| b.exact && b.span.start <= offset && offset <= b.span.end)
}

pub fn definition(ws: &Workspace, checked: &Checked, position: Position) -> Option<Vec<Location>> {
    let offset = convert::offset(&checked.source, position);
    let (doc, _) = doc_at(checked, offset)?;
    let binding = binding_at(checked, doc, offset)?;
    let uri = convert::uri_of(&checked.prepared.path)?;
    let file = InFile {
        uri: &uri,
        path: &checked.prepared.path,
        source: &checked.prepared.loaded.source,
        doc,
    };
    let found = resolve(
        ws,
        &mut Components::default(),
        &file,
        &binding.segments(),
        binding.span.start,
    )?;
    Some(vec![found])
}

/// What find-references looks for.
enum Target {
    /// A pipeline step: every binding `${{parent.jobs.<step>...}}`.
    Step(String, Location),
    /// A declared input or output: every binding (and every step key binding a
    /// component's port) that resolves to it.
    Port(Location),
}

/// The pipeline steps of a document: (name, key, value).
fn steps(doc: &Document) -> Vec<(String, NodeId, NodeId)> {
    let jobs = doc
        .root
        .and_then(|r| doc.get(r, "jobs"))
        .filter(|j| is_map(doc, *j));
    jobs.map(|j| kept(doc, j))
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, _, v)| is_map(doc, *v))
        .collect()
}

/// The mappings that declare ports, each with the step it is (`None`: the document, an
/// inline component, a trial).
fn owners(doc: &Document) -> Vec<(NodeId, Option<String>)> {
    let mut out: Vec<(NodeId, Option<String>)> = doc.root.into_iter().map(|r| (r, None)).collect();
    for (name, _, step) in steps(doc) {
        out.push((step, Some(name)));
        for key in ["component", "trial"] {
            if let Some(inner) = doc.get(step, key).filter(|c| is_map(doc, *c)) {
                out.push((inner, None));
            }
        }
    }
    out
}

/// What a port key of a step binds: the port of its component (inline or a local
/// file) when the step has one; else the key itself (a declaration).
fn step_key_target(
    ws: &Workspace,
    components: &mut Components,
    file: &InFile,
    step: &str,
    which: &str,
    port: &Port,
) -> Location {
    let own = file.at(port.span);
    let step_key = self::step(file.doc, step).map(|(k, _)| file.at(file.doc.node(k).span));
    match resolve(
        ws,
        components,
        file,
        &["parent", "jobs", step, which, &port.name],
        port.span.start,
    ) {
        Some(found) if Some(&found) != step_key.as_ref() => found,
        _ => own,
    }
}

/// The places in one document that name `target`: the bindings, and the port keys of
/// steps that bind a component's port.
fn uses(ws: &Workspace, components: &mut Components, file: &InFile, target: &Target) -> Vec<Location> {
    let doc = file.doc;
    let mut out = Vec::new();
    for node in &doc.nodes {
        let Value::Str(value) = &node.value else {
            continue;
        };
        if !value.contains("${{") {
            continue;
        }
        for b in scan::locate(value, file.source.slice(node.span), node.span.start) {
            if !b.exact {
                continue;
            }
            let segments = b.segments();
            let hit = match target {
                Target::Step(name, _) => {
                    matches!(segments.as_slice(), ["parent", "jobs", s, ..] if s == name)
                }
                Target::Port(loc) => {
                    resolve(ws, components, file, &segments, b.span.start).as_ref() == Some(loc)
                }
            };
            if hit {
                out.push(file.at(b.span));
            }
        }
    }
    // A step's `inputs:`/`outputs:` keys bind its component's ports.
    if let Target::Port(loc) = target {
        for (name, _, step) in steps(doc) {
            if doc.get(step, "component").is_none() {
                continue;
            }
            let interface = Interface::read(doc, step);
            for which in ["inputs", "outputs"] {
                for port in ports(&interface, which) {
                    let own = file.at(port.span);
                    let found = step_key_target(ws, components, file, &name, which, port);
                    if found != own && &found == loc {
                        out.push(own);
                    }
                }
            }
        }
    }
    out
}

/// Find-references of a binding, a declared input or output, or a pipeline step
/// (`None`: the cursor is on none of them). Within the document; for a port of a
/// component file, also in the workspace's pipelines whose steps use that file
/// (`component: ./x.yml`: the files whose words include its name).
pub fn references(
    ws: &Workspace,
    checked: &Checked,
    uri: &Url,
    position: Position,
    declaration: bool,
) -> Option<Vec<Location>> {
    let offset = convert::offset(&checked.source, position);
    let (doc, _) = doc_at(checked, offset)?;
    let file = InFile {
        uri,
        path: &checked.prepared.path,
        source: &checked.prepared.loaded.source,
        doc,
    };
    let mut components = Components::default();
    let contains = |s: Span| s.start <= offset && offset <= s.end;
    let target = if let Some(b) = binding_at(checked, doc, offset) {
        let segments = b.segments();
        let found = resolve(ws, &mut components, &file, &segments, b.span.start)?;
        match segments.as_slice() {
            // The step itself, or a port of a step whose component is unknown.
            ["parent", "jobs", name, ..]
                if step(doc, name).is_some_and(|(k, _)| file.at(doc.node(k).span) == found) =>
            {
                Target::Step(name.to_string(), found)
            }
            _ => Target::Port(found),
        }
    } else if let Some((name, key, _)) = steps(doc)
        .into_iter()
        .find(|(_, k, _)| contains(doc.node(*k).span))
    {
        Target::Step(name, file.at(doc.node(key).span))
    } else {
        let port = owners(doc).into_iter().find_map(|(owner, step)| {
            let interface = Interface::read(doc, owner);
            ["inputs", "outputs"].into_iter().find_map(|which| {
                let port = ports(&interface, which).iter().find(|p| contains(p.span))?;
                Some(match &step {
                    Some(step) => step_key_target(ws, &mut components, &file, step, which, port),
                    None => file.at(port.span),
                })
            })
        })?;
        Target::Port(port)
    };
    let declared = match &target {
        Target::Step(_, loc) | Target::Port(loc) => loc.clone(),
    };
    let mut out = uses(ws, &mut components, &file, &target);
    // A port of a component file: the component's own bindings and the pipelines that
    // use it, wherever the search started.
    if let Target::Port(loc) = &target {
        if let Some(component) = component_port_file(ws, &mut components, loc) {
            let name = component
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut files = ws.files_mentioning(&name);
            files.push(component);
            files.sort();
            files.dedup();
            for path in files.iter().filter(|p| **p != checked.prepared.path) {
                let (Some(prepared), Some(other)) = (parse_file(ws, path), convert::uri_of(path)) else {
                    continue;
                };
                for (d, c) in prepared.loaded.documents.iter().zip(&prepared.classes) {
                    if !c.is_checked() {
                        continue;
                    }
                    let f = InFile {
                        uri: &other,
                        path,
                        source: &prepared.loaded.source,
                        doc: d,
                    };
                    out.extend(uses(ws, &mut components, &f, &target));
                }
            }
        }
    }
    if declaration {
        out.push(declared);
    }
    out.sort_by(|a, b| {
        (a.uri.as_str(), a.range.start.line, a.range.start.character).cmp(&(
            b.uri.as_str(),
            b.range.start.line,
            b.range.start.character,
        ))
    });
    out.dedup();
    Some(out)
}

/// The component file whose root declares the port at `loc`, if it is one.
fn component_port_file(ws: &Workspace, components: &mut Components, loc: &Location) -> Option<PathBuf> {
    let path = convert::path_of(&loc.uri)?;
    let component = components.get(ws, &path)?;
    let (interface, prepared) = &*component;
    let kind = prepared.classes.first()?.kind_id()?;
    if !crate::facts::interface::is_component_kind(kind) {
        return None;
    }
    let source = &prepared.loaded.source;
    interface
        .inputs
        .iter()
        .chain(&interface.outputs)
        .any(|p| convert::range(source, p.span) == loc.range)
        .then_some(path)
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
        ["parent", "jobs"] => steps(doc)
            .into_iter()
            .map(|(name, _, v)| {
                let ty = match doc.get(v, "type").map(|t| doc.value(t)) {
                    Some(Value::Str(s)) => s.to_string(),
                    _ => "command".to_string(),
                };
                item(&name, CompletionItemKind::MODULE, format!("{ty} step"))
            })
            .collect(),
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
            Some((_, node)) => {
                match step_ports(ws, &mut Components::default(), &checked.prepared.path, doc, node) {
                    Ports::Here(i) => port_items(&i, which, &format!("step `{name}`")),
                    Ports::File(component, path) => {
                        let i = &component.0;
                        let file = path
                            .file_name()
                            .map(|f| f.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        port_items(i, which, &format!("step `{name}` ({file})"))
                    }
                    Ports::Unknown => Vec::new(),
                }
            }
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
#[allow(clippy::disallowed_methods)]
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
