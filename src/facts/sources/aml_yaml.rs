//! Azure ML compute YAML (`az ml compute create -f compute.yml`): each compute document
//! (kind `amlCompute`, `computeInstance`, `kubernetesCompute`, `vmCompute`,
//! `synapseSparkCompute`) with a `name` is a definition. The document is checked as
//! itself, so its definition needs no document of its own.

use super::common::{Definitions, Input, Reader};
use crate::document::{Document, NodeId, Value};
use crate::facts::computes::{ComputeDef, FIELDS, Scalar, Setting, SourceKind};
use crate::kinds::Kind;

pub const READER: Reader = Reader {
    name: "aml-yaml",
    wants: |name| name.ends_with(".yml") || name.ends_with(".yaml") || name.ends_with(".json"),
    needles: &[],
    defines: &[],
    read,
};

fn read(input: &Input<'_>, found: &mut Definitions) {
    for (doc, kind) in input.documents.iter().zip(input.kinds) {
        if let Some(kind) = kind
            && !doc.partial
            && let Some(def) = definition(doc, kind, &input.source.path)
        {
            found.computes.push(def);
        }
    }
}

/// The definition a compute document makes, if it is one and names its compute.
pub fn definition(doc: &Document, kind: &Kind, display: &str) -> Option<ComputeDef> {
    doc.root
        .and_then(|root| doc.get(root, "name"))
        .and_then(|_| settings(doc, kind, display))
}

/// What a compute document sets, also without a `name:` (`az ml compute create -f
/// compute.yml --name gpu` gives it; the name is then dynamic, saying the file has none).
pub fn settings(doc: &Document, kind: &Kind, display: &str) -> Option<ComputeDef> {
    let ctype = super::super::index::compute_type_of_kind(&kind.id)?;
    let root = doc.root?;
    if !matches!(doc.value(root), Value::Map(_)) {
        return None;
    }
    let Some(mut name) = setting(doc, root, "name") else {
        if doc.get(root, "name").is_some() {
            return None;
        }
        let why = format!("`{display}` gives no `name:` and the command no `--name`");
        let name = Setting::dynamic(String::new(), why, doc.span, None);
        return Some(with_settings(doc, root, ctype, display, name));
    };
    name.value = match name.value {
        Some(Scalar::Str(s)) => Some(Scalar::Str(s)),
        // `name: 123` names the compute `123`, as the CLI reads it.
        Some(Scalar::Int(i)) => Some(Scalar::Str(i.to_string())),
        _ => return None,
    };
    Some(with_settings(doc, root, ctype, display, name))
}

/// The definition of the compute document at `root`, named `name`, of type `ctype`.
fn with_settings(doc: &Document, root: NodeId, ctype: &str, display: &str, name: Setting) -> ComputeDef {
    let mut def = ComputeDef::new(SourceKind::AmlYaml, display, doc.span, "compute YAML", name);
    for path in FIELDS {
        let mut node = root;
        let mut parts = path.split('.').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                if let Some(s) = setting(doc, node, part) {
                    def.set(path, s);
                }
            } else {
                match doc.get(node, part) {
                    Some(n) if matches!(doc.value(n), Value::Map(_)) => node = n,
                    _ => break,
                }
            }
        }
    }
    // The kind says the type, also when `$schema` named it without a `type:`.
    let mut t = def.get("type").cloned().unwrap_or_else(|| {
        let mut s = Setting::literal(Scalar::Str(String::new()), doc.span, None);
        s.in_place = false;
        s
    });
    t.value = Some(Scalar::Str(ctype.to_string()));
    def.set("type", t);
    def
}

/// The scalar at `key` of the mapping `map`, as a setting with its spans.
fn setting(doc: &Document, map: NodeId, key: &str) -> Option<Setting> {
    let entry = doc.get_entry(map, key)?;
    let node = doc.node(doc.resolve(entry.value));
    let value = match &node.value {
        Value::Str(s) => Scalar::Str(s.to_string()),
        Value::Int(i) => Scalar::Int(*i),
        Value::Bool(b) => Scalar::Bool(*b),
        v @ (Value::Float(_) | Value::BigInt(_)) => Scalar::Str(crate::document::yaml11::python_str(v)),
        _ => return None,
    };
    Some(Setting::literal(value, node.span, Some(doc.node(entry.key).span)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Format, parse_text};

    #[test]
    fn a_compute_document_is_a_definition_with_its_spans() {
        let text = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu\ntype: amlcompute\nsize: Standard_NC6\nmin_instances: 1\nnetwork_settings:\n  subnet: /s/n\n";
        let loaded = parse_text("c.yml", text.into(), Format::Yaml, &Default::default());
        let doc = &loaded.documents[0];
        let kind = crate::kinds::classify(doc, "c.yml").kind.unwrap();
        let def = definition(doc, kind, "c.yml").unwrap();
        assert_eq!(def.source, SourceKind::AmlYaml);
        assert_eq!(def.known_name(), Some("gpu"));
        assert_eq!(def.ctype().as_deref(), Some("amlcompute"));
        assert_eq!(def.size(), Some("Standard_NC6"));
        let size = def.get("size").unwrap();
        assert_eq!(&text[size.span.range()], "Standard_NC6");
        assert_eq!(&text[size.key.unwrap().range()], "size");
        assert_eq!(def.get("min_instances").unwrap().value, Some(Scalar::Int(1)));
        let subnet = def.get("network_settings.subnet").unwrap();
        assert_eq!(&text[subnet.span.range()], "/s/n");
        assert!(def.document().is_none(), "checked as itself");
    }

    #[test]
    fn other_documents_and_nameless_computes_define_nothing() {
        for text in [
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\nname: j\ncommand: x\n",
            "type: amlcompute\nsize: Standard_DS3_v2\n",
        ] {
            let loaded = parse_text("c.yml", text.into(), Format::Yaml, &Default::default());
            let doc = &loaded.documents[0];
            if let Some(kind) = crate::kinds::classify(doc, "c.yml").kind {
                assert!(definition(doc, kind, "c.yml").is_none(), "{text}");
            }
        }
    }
}
