//! What the schema says about a key, for editors (the language server's hover): its
//! description and type, found by following a JSON pointer through `properties`,
//! `items`, `additionalProperties`, `$ref`s and every branch of `anyOf`/`allOf`/`if`.

use serde_json::Value;

use super::store::{Store, store};
use crate::source::Pointer;

/// The schema's documentation of one field.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldDoc {
    pub description: Option<String>,
    /// JSON Schema type names (`string`, `integer`...), in the order first seen.
    pub types: Vec<String>,
    /// The values an enumeration accepts.
    pub values: Vec<String>,
    /// The value the SDK sends when the key is absent, when the schema says (`default`: a
    /// compute's `size`).
    pub default: Option<String>,
}

impl FieldDoc {
    pub fn is_empty(&self) -> bool {
        self.description.is_none()
            && self.types.is_empty()
            && self.values.is_empty()
            && self.default.is_none()
    }
}

const MAX_DEPTH: usize = 48;
/// Bounds the walk through nested unions.
const MAX_VISITS: usize = 4096;

/// What the schema of `kind` says about the field at `pointer` (`None` when it has no
/// schema, or says nothing about the field).
pub fn describe(kind: &str, pointer: &Pointer) -> Option<FieldDoc> {
    let store = store();
    let doc = store.kind_doc(kind)?;
    let base = store.doc_id(kind)?;
    let segments: Vec<&str> = pointer.segments().collect();
    let mut walk = Walk {
        store,
        out: FieldDoc::default(),
        visits: 0,
    };
    walk.find(doc, base, &segments, 0);
    (!walk.out.is_empty()).then_some(walk.out)
}

/// The keys the schema of `kind` allows in the mapping at `pointer`, each with what the
/// schema says of it, sorted by name. Where a union's branches say which `type:` they
/// take, only those taking `type_value` (when given) count. Empty when the kind has no
/// schema or the place is not a mapping the schema describes.
pub fn keys_at(kind: &str, pointer: &Pointer, type_value: Option<&str>) -> Vec<(String, FieldDoc)> {
    let store = store();
    let (Some(doc), Some(base)) = (store.kind_doc(kind), store.doc_id(kind)) else {
        return Vec::new();
    };
    let segments: Vec<&str> = pointer.segments().collect();
    let mut keys = KeyWalk {
        store,
        type_value,
        found: std::collections::BTreeMap::new(),
        visits: 0,
    };
    keys.find(doc, base, &segments, 0);
    keys.found
        .into_iter()
        .map(|(name, (schema, base))| {
            let mut walk = Walk {
                store,
                out: FieldDoc::default(),
                visits: 0,
            };
            walk.find(&schema, &base, &[], 0);
            (name, walk.out)
        })
        .collect()
}

/// Collects the `properties` of every schema object reached at a pointer.
struct KeyWalk<'s, 't> {
    store: &'s Store,
    type_value: Option<&'t str>,
    /// Each key with the first schema found for it and that schema's document.
    found: std::collections::BTreeMap<String, (Value, String)>,
    visits: usize,
}

impl KeyWalk<'_, '_> {
    fn find(&mut self, schema: &Value, base: &str, segments: &[&str], depth: usize) {
        self.visits += 1;
        if depth > MAX_DEPTH || self.visits > MAX_VISITS {
            return;
        }
        let Value::Object(m) = schema else {
            return;
        };
        match segments.split_first() {
            None => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    // Keys the SDK drops or does not read are not offered.
                    let unread = |v: &Value| {
                        v.get("x-amlint-read-only") == Some(&Value::Bool(true))
                            || v.get("x-amlint-ignored").is_some()
                    };
                    for (k, v) in props.iter().filter(|(_, v)| !unread(v)) {
                        self.found
                            .entry(k.clone())
                            .or_insert_with(|| (v.clone(), base.to_string()));
                    }
                }
            }
            Some((first, rest)) => {
                if let Some(child) = child_schema(m, first) {
                    self.find(child, base, rest, depth + 1);
                }
            }
        }
        if let Some((target, uri)) = self.store.follow(m, base) {
            let uri = uri.into_owned();
            self.find(target, &uri, segments, depth + 1);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = m.get(key) {
                for b in branches {
                    if segments.is_empty() && key != "allOf" && !self.takes_type(b, base, 0) {
                        continue;
                    }
                    self.find(b, base, segments, depth + 1);
                }
            }
        }
        for key in ["then", "else"] {
            if let Some(sub) = m.get(key) {
                self.find(sub, base, segments, depth + 1);
            }
        }
    }

    /// Whether a union branch admits the document's `type:` (true when it does not say).
    fn takes_type(&self, branch: &Value, base: &str, depth: usize) -> bool {
        let Some(wanted) = self.type_value else {
            return true;
        };
        let Value::Object(m) = branch else {
            return true;
        };
        if depth > 8 {
            return true;
        }
        if let Some(t) = m.get("properties").and_then(|p| p.get("type")) {
            let values = t
                .get("enum")
                .or_else(|| t.get("x-amlint-enum").and_then(|e| e.get("values")))
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>())
                .or_else(|| t.get("const").and_then(Value::as_str).map(|c| vec![c]));
            if let Some(values) = values {
                return values.iter().any(|v| v.eq_ignore_ascii_case(wanted));
            }
        }
        match self.store.follow(m, base) {
            Some((target, uri)) => self.takes_type(target, &uri, depth + 1),
            None => true,
        }
    }
}

struct Walk<'s> {
    store: &'s Store,
    out: FieldDoc,
    visits: usize,
}

impl Walk<'_> {
    fn record(&mut self, m: &serde_json::Map<String, Value>) {
        if self.out.description.is_none() {
            if let Some(d) = m.get("description").and_then(Value::as_str) {
                if !d.trim().is_empty() {
                    self.out.description = Some(d.trim().to_string());
                }
            }
        }
        if self.out.default.is_none() {
            self.out.default = m.get("default").and_then(Value::as_str).map(str::to_string);
        }
        let mut types: Vec<String> = Vec::new();
        match m.get("type") {
            Some(Value::String(t)) => types.push(t.clone()),
            Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str).map(str::to_string)),
            _ => {}
        }
        if let Some(Value::String(t)) = m.get("x-amlint-type") {
            types.push(t.clone());
        }
        for t in types {
            if !self.out.types.contains(&t) {
                self.out.types.push(t);
            }
        }
        let values = m
            .get("enum")
            .or_else(|| m.get("x-amlint-enum").and_then(|e| e.get("values")))
            .and_then(Value::as_array);
        for v in values.into_iter().flatten() {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if !self.out.values.contains(&v) {
                self.out.values.push(v);
            }
        }
    }

    fn find(&mut self, schema: &Value, base: &str, segments: &[&str], depth: usize) {
        self.visits += 1;
        if depth > MAX_DEPTH || self.visits > MAX_VISITS {
            return;
        }
        let Value::Object(m) = schema else {
            return;
        };
        match segments.split_first() {
            None => self.record(m),
            Some((first, rest)) => {
                if let Some(child) = child_schema(m, first) {
                    self.find(child, base, rest, depth + 1);
                }
            }
        }
        if let Some((target, uri)) = self.store.follow(m, base) {
            self.find(target, &uri, segments, depth + 1);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = m.get(key) {
                for b in branches {
                    self.find(b, base, segments, depth + 1);
                }
            }
        }
        for key in ["then", "else"] {
            if let Some(sub) = m.get(key) {
                self.find(sub, base, segments, depth + 1);
            }
        }
    }
}

/// The schema of the value at `segment` below an object schema `m`: a property, a list
/// item (by index: `prefixItems`, else `items`), or `additionalProperties`.
fn child_schema<'a>(m: &'a serde_json::Map<String, Value>, segment: &str) -> Option<&'a Value> {
    m.get("properties")
        .and_then(|p| p.get(segment))
        .or_else(|| {
            segment.parse::<usize>().ok().and_then(|i| {
                m.get("prefixItems")
                    .and_then(|p| p.get(i))
                    .or_else(|| m.get("items"))
            })
        })
        .or_else(|| m.get("additionalProperties").filter(|a| a.is_object()))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn describes_keys_through_refs_and_unions() {
        let d = describe(
            "managedOnlineDeployment",
            &Pointer::parse("/environment_variables"),
        )
        .unwrap();
        assert_eq!(
            d.description.as_deref(),
            Some("Environment variables configuration for the deployment.")
        );
        assert_eq!(d.types, ["object"]);
        let d = describe("managedOnlineDeployment", &Pointer::parse("/instance_count")).unwrap();
        assert_eq!(d.types, ["integer"]);
        let d = describe("managedOnlineDeployment", &Pointer::parse("/code_configuration")).unwrap();
        assert_eq!(
            d.description.as_deref(),
            Some("Code configuration for the endpoint deployment.")
        );
        assert!(describe("managedOnlineDeployment", &Pointer::parse("/no_such_key")).is_none());
        assert!(describe("noSuchKind", &Pointer::parse("/name")).is_none());
    }

    /// The size the SDK sends for a compute without one (`ComputeDefaults.VMSIZE`, probed
    /// by scripts/gen_schemas.py): a compute cluster's and a compute instance's; a
    /// Kubernetes compute has no size.
    #[test]
    fn a_computes_default_size() {
        for kind in ["amlCompute", "computeInstance"] {
            let d = describe(kind, &Pointer::parse("/size")).unwrap();
            assert_eq!(d.default.as_deref(), Some("STANDARD_DS3_V2"), "{kind}");
        }
        let d = describe("amlCompute", &Pointer::parse("/min_instances")).unwrap();
        assert_eq!(d.default, None);
        assert!(describe("kubernetesCompute", &Pointer::parse("/size")).is_none());
    }

    #[test]
    fn keys_of_a_place_follow_the_type_of_a_union() {
        let names = |kind: &str, p: &str, t: Option<&str>| -> Vec<String> {
            keys_at(kind, &Pointer::parse(p), t)
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        let top = names("commandJob", "", None);
        assert!(top.contains(&"command".to_string()) && top.contains(&"compute".to_string()));
        let docs = keys_at("commandJob", &Pointer::parse(""), None);
        let (_, compute) = docs.iter().find(|(k, _)| k == "compute").unwrap();
        assert!(compute.description.is_some(), "{compute:?}");
        // A pipeline step's keys depend on its type.
        let command = names("pipelineJob", "/jobs/train", Some("command"));
        assert!(command.contains(&"command".to_string()), "{command:?}");
        let sweep = names("pipelineJob", "/jobs/train", Some("sweep"));
        assert!(sweep.contains(&"sampling_algorithm".to_string()), "{sweep:?}");
        assert!(!command.contains(&"sampling_algorithm".to_string()));
        assert!(names("noSuchKind", "", None).is_empty());
        // Output-only keys are not offered.
        let deployment = names("managedOnlineDeployment", "", None);
        assert!(deployment.contains(&"instance_type".to_string()));
        assert!(
            !deployment.contains(&"creation_context".to_string()),
            "{deployment:?}"
        );
        assert!(names("commandJob", "/command", None).is_empty());
    }
}
