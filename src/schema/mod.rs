//! Schema validation: the embedded JSON Schemas (`schemas/`), compiled once per kind with
//! the `jsonschema` crate, plus the `x-amlint-*` keywords of docs/schemas.md.
//!
//! - [`store`]: the schema files, preprocessed ([`preprocess`]) and compiled on first use.
//! - [`coerce`]: marshmallow's coercions and the SDK's enum normalisations.
//! - [`select`]: crate errors → [`Issue`]s, one per problem, the meant union branch only.
//! - [`forms`]: where the document holds references (`x-amlint-forms`), for AML201/AML202.
//! - [`cross_field`]: constraints between fields that a schema cannot say (AML105).
//! - [`describe`]: a field's description and type, for the language server's hover.

pub mod coerce;
pub mod cross_field;
pub mod describe;
pub mod forms;
/// Build-time schema rewrites and bundling; compiled into `build.rs` too.
pub mod preprocess;
pub mod select;
pub mod store;

pub use preprocess::ENDPOINT_NAME_FROM_CLI;
pub use select::{Issue, IssueKind};
pub use store::{Store, store};

/// Validates a document's JSON view against its kind's schema. `None` when amlint has no
/// schema for the kind (or it failed to compile, which the test suite rules out).
pub fn validate(kind: &str, instance: &serde_json::Value) -> Option<Vec<Issue>> {
    let store = store();
    let validator = store.validator(kind)?;
    Some(select::validate(store, kind, validator, instance))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_schema_compiles() {
        let store = store();
        let kinds: Vec<&str> = store.kind_ids().collect();
        assert!(kinds.len() >= 47, "{kinds:?}");
        // Every definition too (they are compiled lazily, when an instance reaches them),
        // and those of the document the kinds share.
        for doc in store.doc_ids() {
            assert!(store.compile_all(doc), "{doc} does not compile");
        }
        assert!(!kinds.iter().any(|k| crate::schema::store::is_shared_doc(k)));
        assert!(
            store
                .doc_ids()
                .filter(|d| crate::schema::store::is_shared_doc(d))
                .count()
                > 1
        );
        // Every checked kind of the kinds table has a schema, except the one docs/schemas.md
        // names: MLTable files.
        for k in &crate::kinds::table().kinds {
            let fam = &crate::kinds::table().families[k.family];
            if fam.skip.is_some() || k.id == "mlTable" {
                continue;
            }
            assert!(store.has_kind(&k.id), "{} has no schema", k.id);
        }
    }

    /// The keys that make a file found by its name one of a family (`files_when` in
    /// `schemas/kinds.yaml`) are keys of that family's schemas: a key misspelt there would
    /// silently stop classifying the files that have it.
    #[test]
    fn the_keys_a_file_name_needs_are_keys_of_the_kind() {
        let t = crate::kinds::table();
        let mut checked = 0;
        for (fi, fam) in t.families.iter().enumerate() {
            let keys = t.files_when_keys(fi);
            for &k in fam.kinds.iter().filter(|_| !keys.is_empty()) {
                let id = &t.kinds[k].id;
                let text = crate::embedded::KIND_SCHEMAS
                    .iter()
                    .find(|(kind, _)| kind == id)
                    .map(|(_, text)| *text)
                    .unwrap_or_else(|| panic!("{id} has no schema"));
                let schema: serde_json::Value = serde_json::from_str(text).unwrap();
                // The discriminated alternatives (`oneOf` in schemas/, `anyOf` once bundled).
                let alternatives: Vec<serde_json::Value> = ["oneOf", "anyOf"]
                    .iter()
                    .filter_map(|a| schema[*a].as_array())
                    .flatten()
                    .cloned()
                    .collect();
                let has = |key: &str| {
                    std::iter::once(&schema)
                        .chain(&alternatives)
                        .any(|s| s["properties"].get(key).is_some())
                };
                for key in keys {
                    assert!(has(key), "`{key}` (files_when of {}) is no key of {id}", fam.name);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 30, "{checked}");
    }

    #[test]
    fn semantics_of_the_extensions() {
        let ok = |kind: &str, v: serde_json::Value| validate(kind, &v).unwrap_or_default();
        // Coercions: "4" is an integer, "yes" a boolean; bounds apply to the coerced value.
        let c =
            json!({"name": "c", "type": "amlcompute", "max_instances": "4", "enable_node_public_ip": "yes"});
        assert_eq!(ok("amlCompute", c), vec![]);
        // camel_to_snake enum.
        let e = json!({"name": "e", "auth_mode": "AMLToken"});
        assert_eq!(ok("managedOnlineEndpoint", e), vec![]);
        // lower(): LowPriority is not low_priority.
        let c = json!({"name": "c", "type": "amlcompute", "tier": "LowPriority"});
        let issues = ok("amlCompute", c);
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].pointer.to_string(), "/tier");
        // No schema for a kind amlint does not validate.
        assert!(validate("promptFlow", &json!({})).is_none());
    }
}
