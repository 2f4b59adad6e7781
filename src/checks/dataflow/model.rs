//! The data-flow model of one document: its interface, the commands whose placeholders
//! name it, the sweeps' search spaces, and a pipeline's steps with their components'
//! interfaces (inline, or a local component file through the project index).

use std::path::Path;

use super::scan::{self, Binding};
use crate::checks::context::DocContext;
use crate::document::{Document, NodeId, Value};
use crate::facts::interface::{Interface, kept};
use crate::source::Span;

/// The fields whose text is a command line with placeholders: `command` (command jobs and
/// components, sweep trials), `args` (spark), `program_arguments` (parallel, at the top or
/// under `task`).
const COMMAND_FIELDS: &[&str] = &["command", "args", "program_arguments"];

/// The control-flow step types: their fields name other steps (`body: ${{parent.jobs.x}}`).
const CONTROL_FLOW: &[&str] = &["do_while", "parallel_for", "if_else"];

/// A command and the interface its `${{inputs.x}}` / `${{outputs.x}}` name.
pub struct FlowCommand {
    pub bindings: Vec<Binding>,
    pub interface: Interface,
    /// The interface declares `optional` (a component); a job's inputs are values.
    pub declares_optional: bool,
    /// Where the interface is, for messages: "this component", "step `prep`".
    pub owner: String,
}

/// A sweep: its `search_space` parameters with their keys (None when not a mapping), its
/// `${{search_space.x}}` bindings, and how its trial receives the sampled values.
pub struct Sweep {
    pub params: Option<Vec<(String, Span)>>,
    pub bindings: Vec<Binding>,
    pub owner: String,
    pub trial: Trial,
}

/// How a sweep's trial receives the values the sweep samples.
pub enum Trial {
    /// A trial component (a pipeline sweep step's `trial:`, a file or inline): each
    /// parameter feeds the input of the same name.
    Inputs {
        interface: Interface,
        /// The trial's file (None: inline).
        file: Option<String>,
    },
    /// The inline trial of a sweep job: only through `${{search_space.x}}`.
    Placeholders,
    /// A registry or workspace component, or a trial that is not a mapping.
    Unknown,
}

/// What a step's component declares.
pub enum Component {
    /// An inline component, or a local component file the project holds.
    Known {
        interface: Interface,
        /// The component's file (None: inline).
        file: Option<String>,
    },
    /// A step that declares its own inputs and outputs (an inline command, spark or
    /// parallel job).
    SelfDeclared(Interface),
    /// A registry or workspace component, a file the project does not hold, or a binding.
    Unknown,
}

/// Which part of a step a binding is in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Field {
    /// The step's `inputs`/`outputs` values: bindings to the pipeline and other steps.
    Io,
    /// Anything else (compute, control-flow fields, settings).
    Other,
}

pub struct Step {
    pub name: String,
    pub key_span: Span,
    pub node: NodeId,
    pub control_flow: bool,
    pub component: Component,
    pub bindings: Vec<(Binding, Field)>,
}

impl Step {
    /// The outputs a `${{parent.jobs.<step>.outputs.x}}` may name, when known.
    pub fn outputs(&self) -> Option<&Interface> {
        match &self.component {
            Component::Known { interface, .. } | Component::SelfDeclared(interface) if interface.known => {
                Some(interface)
            }
            _ => None,
        }
    }
}

pub struct Pipeline {
    /// The pipeline's own inputs and outputs (`${{parent.inputs.x}}`).
    pub interface: Interface,
    pub steps: Vec<Step>,
    /// Bindings outside the steps (the pipeline's `outputs:` bound to step outputs).
    pub top: Vec<Binding>,
}

impl Pipeline {
    pub fn step(&self, name: &str) -> Option<&Step> {
        self.steps.iter().find(|s| s.name == name)
    }
}

pub struct FlowModel<'a> {
    pub cx: &'a DocContext<'a>,
    /// Every binding of the document, in document order.
    pub all: Vec<Binding>,
    /// The bindings of each string scalar holding any: its range of [`Self::all`] (the
    /// document's strings are scanned once).
    located: std::collections::HashMap<NodeId, std::ops::Range<usize>>,
    pub commands: Vec<FlowCommand>,
    pub sweeps: Vec<Sweep>,
    pub pipeline: Option<Pipeline>,
}

impl<'a> FlowModel<'a> {
    /// The model of a job or component document; None for other kinds, partial trees
    /// and documents without a binding or a pipeline.
    pub fn build(cx: &'a DocContext<'a>) -> Option<FlowModel<'a>> {
        let kind = cx.class.kind?.id.as_str();
        let root = cx.doc.root?;
        if cx.doc.partial || cx.doc.alias_overflow || !matches!(cx.doc.value(root), Value::Map(_)) {
            return None;
        }
        let is_job = kind.ends_with("Job");
        let is_component = kind.ends_with("Component");
        if !is_job && !is_component {
            return None;
        }
        let mut all = Vec::new();
        let mut located = std::collections::HashMap::new();
        // A binding needs `${{` in the text, or escapes in a double-quoted scalar that
        // make one: a document with neither is not walked.
        let text = &cx.source.text;
        if text.contains("${{") || text.contains('\\') {
            for id in strings_under(cx.doc, root) {
                let found = bindings_of(cx, id);
                if !found.is_empty() {
                    located.insert(id, all.len()..all.len() + found.len());
                    all.extend(found);
                }
            }
        }
        let pipeline_kind = matches!(kind, "pipelineJob" | "pipelineComponent");
        // A sweep job is modelled even without a binding: its search space may be unused.
        if all.is_empty() && !pipeline_kind && kind != "sweepJob" {
            return None;
        }
        let mut model = FlowModel {
            cx,
            all,
            located,
            commands: Vec::new(),
            sweeps: Vec::new(),
            pipeline: None,
        };
        match kind {
            "commandJob" | "sparkJob" => {
                model.add_command(root, false, "this job".to_string());
            }
            "commandComponent" | "parallelComponent" | "sparkComponent" => {
                model.add_command(root, true, "this component".to_string());
            }
            "sweepJob" => {
                let trial = cx.doc.get(root, "trial").filter(|t| is_map(cx, *t));
                let receives = if trial.is_some() {
                    Trial::Placeholders
                } else {
                    Trial::Unknown
                };
                model.add_sweep(root, "this sweep job".to_string(), receives);
                if let Some(trial) = trial {
                    // The trial's placeholders name the sweep job's inputs and outputs.
                    let interface = Interface::read(cx.doc, root);
                    let bindings = model.command_bindings(trial);
                    model.commands.push(FlowCommand {
                        bindings,
                        interface,
                        declares_optional: false,
                        owner: "this sweep job".to_string(),
                    });
                }
            }
            "pipelineJob" | "pipelineComponent" => model.add_pipeline(root),
            _ => {}
        }
        Some(model)
    }

    /// The string scalar holding each binding of [`Self::all`], by index.
    pub fn scalars(&self) -> Vec<Option<NodeId>> {
        let mut out = vec![None; self.all.len()];
        for (&id, range) in &self.located {
            for slot in &mut out[range.clone()] {
                *slot = Some(id);
            }
        }
        out
    }

    /// The bindings of the string scalar `id`.
    pub fn of(&self, id: NodeId) -> &[Binding] {
        self.located.get(&id).map_or(&[], |r| &self.all[r.clone()])
    }

    /// The bindings of every string under `node`, in document order.
    fn under(&self, node: NodeId) -> Vec<Binding> {
        if self.all.is_empty() {
            return Vec::new();
        }
        strings_under(self.cx.doc, node)
            .into_iter()
            .flat_map(|id| self.of(id).iter().cloned())
            .collect()
    }

    /// The bindings of a job's or component's command fields (`task.program_arguments`
    /// too).
    fn command_bindings(&self, map: NodeId) -> Vec<Binding> {
        let doc = self.cx.doc;
        let mut fields: Vec<NodeId> = COMMAND_FIELDS.iter().filter_map(|k| doc.get(map, k)).collect();
        if let Some(task) = doc.get(map, "task") {
            fields.extend(doc.get(task, "program_arguments"));
        }
        fields.into_iter().flat_map(|f| self.under(f)).collect()
    }

    fn add_command(&mut self, map: NodeId, declares_optional: bool, owner: String) {
        let bindings = self.command_bindings(map);
        if bindings.is_empty() {
            return;
        }
        self.commands.push(FlowCommand {
            bindings,
            interface: Interface::read(self.cx.doc, map),
            declares_optional,
            owner,
        });
    }

    fn add_sweep(&mut self, map: NodeId, owner: String, trial: Trial) {
        let doc = self.cx.doc;
        let params = match doc.get(map, "search_space").map(|s| (s, doc.value(s))) {
            Some((s, Value::Map(_))) => Some(
                kept(doc, s)
                    .into_iter()
                    .map(|(k, key, _)| (k, doc.node(key).span))
                    .collect(),
            ),
            _ => None,
        };
        let bindings: Vec<Binding> = self
            .under(map)
            .into_iter()
            .filter(|b| b.expr.split('.').next() == Some("search_space"))
            .collect();
        self.sweeps.push(Sweep {
            params,
            bindings,
            owner,
            trial,
        });
    }

    fn add_pipeline(&mut self, root: NodeId) {
        let cx = self.cx;
        let doc = cx.doc;
        let interface = Interface::read(doc, root);
        let mut top = Vec::new();
        for key in ["inputs", "outputs"] {
            if let Some(id) = doc.get(root, key) {
                top.extend(self.under(id));
            }
        }
        let mut steps = Vec::new();
        if let Some(jobs) = doc.get(root, "jobs").filter(|j| is_map(cx, *j)) {
            for (name, key, node) in kept(doc, jobs) {
                if is_map(cx, node) {
                    steps.push(self.step(name, doc.node(key).span, node));
                }
            }
        }
        self.pipeline = Some(Pipeline {
            interface,
            steps,
            top,
        });
    }

    fn step(&mut self, name: String, key_span: Span, node: NodeId) -> Step {
        let cx = self.cx;
        let doc = cx.doc;
        let stype = match doc.get(node, "type").map(|t| doc.value(t)) {
            Some(Value::Str(s)) => s.to_string(),
            _ => "command".to_string(),
        };
        let control_flow = CONTROL_FLOW.contains(&stype.as_str());
        let label = format!("step `{name}`");
        let component = match doc.get(node, "component") {
            Some(c) if is_map(cx, c) => {
                // An inline component: its own placeholders are checked like a file's.
                let ctype = doc.get(c, "type").map(|t| doc.value(t));
                if !matches!(ctype, Some(Value::Str(s)) if &**s == "pipeline") {
                    self.add_command(c, true, format!("the inline component of {label}"));
                }
                Component::Known {
                    interface: Interface::read(doc, c),
                    file: None,
                }
            }
            Some(c) => match doc.value(c) {
                Value::Str(s) => self.component_file(s),
                _ => Component::Unknown,
            },
            None if stype == "sweep" => {
                // The trial is the step's component: a file or an inline component.
                let component = match doc.get(node, "trial") {
                    // A mapping naming a `component:` is a step, not a trial component.
                    Some(t) if is_map(cx, t) && doc.get(t, "component").is_some() => Component::Unknown,
                    Some(t) if is_map(cx, t) => {
                        self.add_command(t, true, format!("the trial of {label}"));
                        Component::Known {
                            interface: Interface::read(doc, t),
                            file: None,
                        }
                    }
                    Some(t) => match doc.value(t) {
                        Value::Str(s) => self.component_file(s),
                        _ => Component::Unknown,
                    },
                    None => Component::Unknown,
                };
                let receives = match &component {
                    Component::Known { interface, file } if interface.known => Trial::Inputs {
                        interface: interface.clone(),
                        file: file.clone(),
                    },
                    _ => Trial::Unknown,
                };
                self.add_sweep(node, format!("sweep {label}"), receives);
                component
            }
            None if !control_flow && matches!(stype.as_str(), "command" | "spark" | "parallel") => {
                self.add_command(node, false, label.clone());
                Component::SelfDeclared(Interface::read(doc, node))
            }
            None => Component::Unknown,
        };
        // The step's bindings, but for the inline component, the sweep trial and the
        // command fields (each checked against its own interface).
        let mut bindings = Vec::new();
        let self_declared = matches!(component, Component::SelfDeclared(_));
        for (key, _, value) in kept(doc, node) {
            let skip = match key.as_str() {
                "component" | "trial" => is_map(cx, value),
                "command" | "args" | "program_arguments" => self_declared,
                "task" => self_declared,
                _ => false,
            };
            if skip {
                continue;
            }
            let field = if matches!(key.as_str(), "inputs" | "outputs") {
                Field::Io
            } else {
                Field::Other
            };
            bindings.extend(self.under(value).into_iter().map(|b| (b, field)));
        }
        Step {
            name,
            key_span,
            node,
            control_flow,
            component,
            bindings,
        }
    }

    /// A step's `component:` string: a local component file the project holds is known.
    fn component_file(&self, text: &str) -> Component {
        let path = text.trim();
        let path = path.strip_prefix("file:").unwrap_or(path);
        let lower = path.to_ascii_lowercase();
        if !(lower.ends_with(".yml") || lower.ends_with(".yaml"))
            || lower.starts_with("azureml:")
            || path.contains("://")
            || path.contains("${{")
        {
            return Component::Unknown;
        }
        let Some(facts) = self.cx.facts else {
            return Component::Unknown;
        };
        let dir = facts.file.parent().unwrap_or(Path::new(""));
        match facts.base.index.component(&dir.join(path)) {
            Some(entry) => Component::Known {
                interface: entry.interface.clone(),
                file: Some(text.trim().to_string()),
            },
            None => Component::Unknown,
        }
    }
}

fn is_map(cx: &DocContext<'_>, id: NodeId) -> bool {
    matches!(cx.doc.value(id), Value::Map(_))
}

/// The string scalars under `node` (aliases not followed: their text is where the anchor
/// is), in document order; iterative, so the input's nesting cannot exhaust the stack.
pub fn strings_under(doc: &Document, node: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(id) = stack.pop() {
        match &doc.node(id).value {
            Value::Str(_) => out.push(id),
            Value::Seq(items) => stack.extend(items.iter().rev()),
            Value::Map(entries) => {
                stack.extend(entries.iter().filter(|e| !e.merged).rev().map(|e| e.value));
            }
            _ => {}
        }
    }
    out
}

/// The bindings of one string scalar, located in the file.
pub fn bindings_of(cx: &DocContext<'_>, id: NodeId) -> Vec<Binding> {
    let node = cx.doc.node(id);
    match &node.value {
        Value::Str(s) if s.contains("${{") => scan::locate(s, cx.source.slice(node.span), node.span.start),
        _ => Vec::new(),
    }
}
