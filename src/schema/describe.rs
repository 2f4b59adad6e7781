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
}

impl FieldDoc {
    pub fn is_empty(&self) -> bool {
        self.description.is_none() && self.types.is_empty() && self.values.is_empty()
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
                let child = m
                    .get("properties")
                    .and_then(|p| p.get(*first))
                    .or_else(|| {
                        first.parse::<usize>().ok().and_then(|i| {
                            m.get("prefixItems")
                                .and_then(|p| p.get(i))
                                .or_else(|| m.get("items"))
                        })
                    })
                    .or_else(|| m.get("additionalProperties").filter(|a| a.is_object()));
                if let Some(child) = child {
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

#[cfg(test)]
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
}
