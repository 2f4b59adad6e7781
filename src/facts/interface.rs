//! The interface of a component or job: the inputs and outputs it declares, with their
//! `type`, `optional` and `default`. Read from the tree already parsed; the project index
//! keeps the interfaces of the component files it holds (so a pipeline step knows the
//! interface of `component: ./train.yml`), and the data-flow checks read the interfaces
//! of the document they check.

use crate::document::{Document, NodeId, Value};
use crate::source::Span;

/// One declared input or output.
#[derive(Debug, Clone, PartialEq)]
pub struct Port {
    pub name: String,
    /// `type:` as written (`uri_folder`, `integer`...), when the declaration says.
    pub ptype: Option<String>,
    /// `optional: true` (YAML 1.1 truth, as marshmallow reads it).
    pub optional: bool,
    /// A non-null `default:`.
    pub has_default: bool,
    /// The declaration's key, in the file that declares it.
    pub span: Span,
}

impl Port {
    /// A required input: neither optional nor defaulted.
    pub fn required(&self) -> bool {
        !self.optional && !self.has_default
    }

    /// The primitive type of the port (`integer`, `number`, `boolean`, `string`), if any.
    pub fn primitive(&self) -> Option<&str> {
        let t = self.ptype.as_deref()?;
        ["integer", "number", "boolean", "string"]
            .into_iter()
            .find(|p| p.eq_ignore_ascii_case(t))
    }

    /// The data or model type of the port (`uri_folder`, `mlflow_model`...), if it declares
    /// one: the types the SDK holds as paths, not values (`Input._is_primitive_type` false).
    pub fn asset(&self) -> Option<&str> {
        let t = self.ptype.as_deref()?;
        ASSET_TYPES.contains(&t).then_some(t)
    }
}

/// The data and model types of an input or output (`AssetTypes` of azure-ai-ml), as the
/// schema accepts them (lower case).
pub const ASSET_TYPES: &[&str] = &[
    "uri_file",
    "uri_folder",
    "mltable",
    "mlflow_model",
    "custom_model",
    "triton_model",
];

/// Declared inputs and outputs, in the order written (the last of a repeated key kept).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interface {
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    /// Whether `inputs:` / `outputs:` were mappings the interface could read (a key
    /// holding a binding or a list leaves the interface unknown).
    pub known: bool,
}

impl Interface {
    /// The interface declared by the mapping `map` (a component, a job, a step).
    pub fn read(doc: &Document, map: NodeId) -> Interface {
        let mut known = matches!(doc.value(map), Value::Map(_));
        let mut ports = |key: &str| -> Vec<Port> {
            let Some(id) = doc.get(map, key) else {
                return Vec::new();
            };
            match doc.value(id) {
                Value::Map(_) => {}
                Value::Null => return Vec::new(),
                _ => {
                    known = false;
                    return Vec::new();
                }
            }
            kept(doc, id)
                .into_iter()
                .map(|(name, key, value)| port(doc, name, value, doc.node(key).span))
                .collect()
        };
        let inputs = ports("inputs");
        let outputs = ports("outputs");
        Interface {
            inputs,
            outputs,
            known,
        }
    }

    pub fn input(&self, name: &str) -> Option<&Port> {
        self.inputs.iter().find(|p| p.name == name)
    }

    pub fn output(&self, name: &str) -> Option<&Port> {
        self.outputs.iter().find(|p| p.name == name)
    }
}

fn port(doc: &Document, name: String, value: NodeId, span: Span) -> Port {
    let text = |key: &str| match doc.get(value, key).map(|v| doc.value(v)) {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    let optional = match doc.get(value, "optional").map(|v| doc.value(v)) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Str(s)) => crate::schema::coerce::boolean_str(s).unwrap_or(false),
        _ => false,
    };
    let has_default = doc
        .get(value, "default")
        .is_some_and(|v| !matches!(doc.value(v), Value::Null));
    Port {
        name,
        ptype: text("type"),
        optional,
        has_default,
        span,
    }
}

/// The entries the CLI keeps of a mapping (the last of a repeated key), in order, with
/// their key nodes: (key, key node, value). Linear for large mappings (the document's key
/// index).
pub fn kept(doc: &Document, map: NodeId) -> Vec<(String, NodeId, NodeId)> {
    doc.entries(map)
        .iter()
        .filter_map(|e| {
            let key = doc.key_string(e.key);
            (doc.get_entry(map, &key) == Some(*e)).then(|| (key.into_owned(), e.key, e.value))
        })
        .collect()
}

/// Whether a kind is a component whose interface the project index keeps.
pub fn is_component_kind(kind: &str) -> bool {
    kind.ends_with("Component")
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        let loaded = crate::load::load_text("t.yml", text.to_string(), &crate::limits::Limits::default());
        loaded.documents.into_iter().next().unwrap()
    }

    #[test]
    fn reads_types_optional_and_defaults() {
        let text = "inputs:\n  a: {type: integer}\n  b: {type: number, default: 0.1}\n  c: {type: string, optional: true}\n  d: {type: uri_folder, default: null}\noutputs:\n  m: {type: mlflow_model}\n";
        let d = doc(text);
        let i = Interface::read(&d, d.root.unwrap());
        assert!(i.known);
        let names: Vec<_> = i.inputs.iter().map(|p| (p.name.as_str(), p.required())).collect();
        assert_eq!(names, [("a", true), ("b", false), ("c", false), ("d", true)]);
        assert_eq!(i.input("a").unwrap().primitive(), Some("integer"));
        assert_eq!(i.output("m").unwrap().ptype.as_deref(), Some("mlflow_model"));
        assert_eq!(i.output("m").unwrap().asset(), Some("mlflow_model"));
        assert_eq!(i.input("d").unwrap().asset(), Some("uri_folder"));
        assert_eq!(i.input("a").unwrap().asset(), None);
        let a = i.input("a").unwrap().span;
        assert_eq!(&text[a.range()], "a");
    }

    #[test]
    fn a_binding_in_place_of_the_mapping_leaves_it_unknown() {
        let d = doc("inputs: ${{parent.inputs.x}}\n");
        assert!(!Interface::read(&d, d.root.unwrap()).known);
    }
}
