//! Build-time rewrites of the embedded schemas (`build.rs` compiles this file and applies
//! them before bundling each kind), so that the `jsonschema` crate evaluates the
//! `x-amlint-*` semantics of docs/schemas.md with its own keywords:
//!
//! - `oneOf` becomes `anyOf`: the SDK tries union branches in order and keeps the first
//!   that loads, so "valid against two branches" is never an error.
//! - Numeric bounds beside `x-amlint-type` move into `x-amlint-bounds`, which compares the
//!   *coerced* value (`"0"` fails `exclusiveMinimum: 0`).
//! - `x-amlint-binding: true` wraps the schema object as
//!   `{"x-amlint-binding": true, "if": <is a ${{...}} string>, "else": <the object>}`,
//!   so a binding expression satisfies the whole object and nothing else is evaluated.
//! - amlint policy: `endpoint_name` is not required at the top of deployments (the CLI
//!   supplies it with `--endpoint-name`; docs/schemas.md).
//! - Local-path fields that the SDK (or the CLI's upload step) checks in entity code rather
//!   than in a marshmallow field get an `x-amlint-forms` annotation ([`EXTRA_FORMS`]), so
//!   that the reference checker finds them like every other reference field.

use serde_json::{Map, Value, json};

/// The SDK's data-binding test: a string containing `${{...}}` (Python `re.search`).
/// Defined here rather than in `coerce` so that `build.rs` can compile this file alone.
pub const BINDING_PATTERN: &str = r"\$\{\{\s*(\S*?)\s*\}\}";

/// Kinds whose `endpoint_name` the CLI takes from `--endpoint-name`.
pub const ENDPOINT_NAME_FROM_CLI: &[&str] = &[
    "managedOnlineDeployment",
    "kubernetesOnlineDeployment",
    "batchDeployment",
    "modelBatchDeployment",
    "pipelineComponentBatchDeployment",
];

/// `(schema, property, forms)`: schema is a `$defs` name (a content-hash suffix such as
/// `.5bcd41` or `.binding` is ignored) or `#root:<kind>` for a kind's root object.
const EXTRA_FORMS: &[(&str, &str, &str)] = &[
    // Environment.__init__ reads the conda file at load time.
    (
        "EnvironmentSchema",
        "conda_file",
        r#"[{"form": "local-path", "dir": false}]"#,
    ),
    (
        "AnonymousEnvironmentSchema",
        "conda_file",
        r#"[{"form": "local-path", "dir": false}]"#,
    ),
    // An anonymous inline model's files are hashed at load time (one with a `name` is
    // uploaded only when the deployment is created).
    (
        "AnonymousModelSchema",
        "path",
        r#"[{"form": "local-path", "unless": "name"}]"#,
    ),
    // Uploaded by `az ml model create` and `az ml online-deployment create`.
    ("#root:model", "path", r#"[{"form": "local-path"}]"#),
    ("CodeConfigurationSchema", "code", r#"[{"form": "local-path"}]"#),
    (
        "CodeConfigurationSchema",
        "scoring_script",
        r#"[{"form": "local-path", "dir": false, "relative_to": "code"}]"#,
    ),
];

fn def_base_name(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// Rewrites one schema file. `kind` is the kind id for `<kind>.schema.json`, `None` for
/// files under `defs/`.
pub fn preprocess(doc: &mut Value, kind: Option<&str>) {
    if let Some(kind) = kind {
        if ENDPOINT_NAME_FROM_CLI.contains(&kind) {
            if let Some(Value::Array(req)) = doc.get_mut("required") {
                req.retain(|r| r != "endpoint_name");
            }
        }
        add_forms(doc, &format!("#root:{kind}"));
    }
    if let Some(Value::Object(defs)) = doc.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            add_forms(def, def_base_name(name));
        }
    }
    rewrite(doc);
}

fn add_forms(schema: &mut Value, name: &str) {
    for (owner, property, forms) in EXTRA_FORMS {
        if *owner != name {
            continue;
        }
        let Some(Value::Object(prop)) = schema.get_mut("properties").and_then(|p| p.get_mut(*property))
        else {
            continue;
        };
        if let Ok(forms) = serde_json::from_str::<Value>(forms) {
            prop.entry("x-amlint-forms").or_insert(forms);
        }
    }
}

/// Keywords whose value is a map of subschemas.
const MAP_OF_SCHEMAS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is a subschema.
const SCHEMA: &[&str] = &[
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is a list of subschemas.
const LIST_OF_SCHEMAS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

const BOUNDS: &[&str] = &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

/// Applies the rewrites to every schema object, children first. Iterative over an
/// explicit stack would be safer against deep input, but schemas are our own data of
/// bounded depth (tested), so plain recursion is fine here.
fn rewrite(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    for key in MAP_OF_SCHEMAS {
        if let Some(Value::Object(children)) = map.get_mut(*key) {
            for child in children.values_mut() {
                rewrite(child);
            }
        }
    }
    for key in SCHEMA {
        if let Some(child) = map.get_mut(*key) {
            rewrite(child);
        }
    }
    for key in LIST_OF_SCHEMAS {
        if let Some(Value::Array(children)) = map.get_mut(*key) {
            for child in children {
                rewrite(child);
            }
        }
    }

    if let Some(one_of) = map.remove("oneOf") {
        match map.remove("anyOf") {
            None => {
                map.insert("anyOf".into(), one_of);
            }
            Some(any_of) => {
                let all = map.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(all) = all {
                    all.push(json!({ "anyOf": any_of }));
                    all.push(json!({ "anyOf": one_of }));
                }
            }
        }
    }

    if map.contains_key("x-amlint-type") && BOUNDS.iter().any(|b| map.contains_key(*b)) {
        let mut bounds = Map::new();
        for b in BOUNDS {
            if let Some(v) = map.remove(*b) {
                bounds.insert((*b).to_string(), v);
            }
        }
        map.insert("x-amlint-bounds".into(), Value::Object(bounds));
    }

    if map.get("x-amlint-binding") == Some(&Value::Bool(true)) {
        let mut rest = std::mem::take(map);
        rest.remove("x-amlint-binding");
        map.insert("x-amlint-binding".into(), Value::Bool(true));
        map.insert(
            "if".into(),
            json!({ "type": "string", "pattern": BINDING_PATTERN }),
        );
        map.insert("else".into(), Value::Object(rest));
    }
}

/// How the kind schemas reference the shared definitions.
pub const COMMON_REF: &str = "defs/common.json#";

/// Makes a preprocessed kind schema self-contained: every `$ref` into the (preprocessed)
/// shared definitions becomes a local `#/$defs/<name>`, and the definitions it reaches,
/// directly or through each other, are copied into its `$defs`. A kind then compiles
/// without a registry and resolves every reference inside its own document, and a run
/// parses only the definitions its kinds use. Fails on a reference to a missing
/// definition, a name clash, or a reference to another file.
pub fn bundle(kind: &str, mut doc: Value, common: &Value) -> Result<Value, String> {
    let shared = common
        .get("$defs")
        .and_then(Value::as_object)
        .ok_or("defs/common.json has no $defs")?;
    let mut wanted = Vec::new();
    // The kind's references into the shared file become local ones.
    visit_refs(&mut doc, &mut |r| {
        if let Some(fragment) = r.strip_prefix(COMMON_REF) {
            *r = format!("#{fragment}");
            wanted.extend(local_def(r).map(str::to_string));
            Ok(())
        } else if r.starts_with('#') {
            Ok(())
        } else {
            Err(format!("unsupported reference `{r}`"))
        }
    })?;
    let mut copied: Map<String, Value> = Map::new();
    while let Some(name) = wanted.pop() {
        if copied.contains_key(&name) {
            continue;
        }
        let mut def = shared
            .get(&name)
            .ok_or_else(|| format!("{kind}: `{COMMON_REF}/$defs/{name}` does not exist"))?
            .clone();
        // A shared definition references only other shared definitions, locally.
        visit_refs(&mut def, &mut |r| match local_def(r) {
            Some(next) => {
                wanted.push(next.to_string());
                Ok(())
            }
            None => Err(format!("unsupported reference `{r}` in defs/common.json")),
        })?;
        copied.insert(name, def);
    }
    if copied.is_empty() {
        return Ok(doc);
    }
    let root = doc
        .as_object_mut()
        .ok_or_else(|| format!("{kind}: the schema is not an object"))?;
    let defs = root
        .entry("$defs")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| format!("{kind}: $defs is not an object"))?;
    for (name, def) in copied {
        match defs.get(&name) {
            Some(own) if *own != def => {
                return Err(format!(
                    "{kind}: its own $defs/{name} clashes with the shared one"
                ));
            }
            Some(_) => {}
            None => {
                defs.insert(name, def);
            }
        }
    }
    Ok(doc)
}

/// The `$defs` name a local reference (`#/$defs/<name>`) names.
fn local_def(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .map(|rest| rest.split('/').next().unwrap_or(rest))
}

/// Calls `f` on every `$ref` string under `schema` (which `f` may rewrite), stopping at
/// the first error.
fn visit_refs(
    schema: &mut Value,
    f: &mut impl FnMut(&mut String) -> Result<(), String>,
) -> Result<(), String> {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match (key.as_str(), value) {
                    ("$ref", Value::String(r)) => f(r)?,
                    (_, child) => visit_refs(child, f)?,
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                visit_refs(item, f)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_what_a_kind_reaches() {
        let common = json!({"$defs": {
            "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "string"},
            "Unused": {"type": "integer"}
        }});
        let kind = json!({"properties": {
            "a": {"$ref": "defs/common.json#/$defs/A"},
            "own": {"$ref": "#/$defs/Own"}
        }, "$defs": {"Own": {"type": "boolean"}}});
        let b = bundle("k", kind, &common).unwrap();
        assert_eq!(b["properties"]["a"]["$ref"], "#/$defs/A");
        let defs = b["$defs"].as_object().unwrap();
        let mut names: Vec<&str> = defs.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["A", "B", "Own"]);
        // Broken references fail the build.
        let missing = json!({"$ref": "defs/common.json#/$defs/Nope"});
        assert!(bundle("k", missing, &common).unwrap_err().contains("Nope"));
        let remote = json!({"$ref": "https://example.com/x.json"});
        assert!(bundle("k", remote, &common).is_err());
        let clash = json!({"$ref": "defs/common.json#/$defs/B", "$defs": {"B": {"type": "integer"}}});
        assert!(bundle("k", clash, &common).unwrap_err().contains("clashes"));
    }

    #[test]
    fn rewrites() {
        let mut s = json!({
            "properties": {
                "a": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "b": {"x-amlint-type": "integer", "exclusiveMinimum": 0, "description": "d"},
                "c": {"type": "string", "x-amlint-binding": true, "pattern": "^x"},
                "oneOf": {"type": "string"}
            }
        });
        rewrite(&mut s);
        let p = &s["properties"];
        assert!(p["a"].get("oneOf").is_none() && p["a"]["anyOf"].is_array());
        assert_eq!(p["b"]["x-amlint-bounds"], json!({"exclusiveMinimum": 0}));
        assert!(p["b"].get("exclusiveMinimum").is_none());
        assert_eq!(p["c"]["else"], json!({"type": "string", "pattern": "^x"}));
        assert_eq!(p["c"]["x-amlint-binding"], json!(true));
        // A property *named* oneOf is not a keyword.
        assert_eq!(p["oneOf"], json!({"type": "string"}));
    }

    #[test]
    fn endpoint_name_and_forms() {
        let mut s = json!({
            "required": ["endpoint_name", "name"],
            "properties": {"path": {"type": "string"}}
        });
        preprocess(&mut s, Some("managedOnlineDeployment"));
        assert_eq!(s["required"], json!(["name"]));
        let mut m = json!({"properties": {"path": {"type": "string"}}});
        preprocess(&mut m, Some("model"));
        assert_eq!(m["properties"]["path"]["x-amlint-forms"][0]["form"], "local-path");
    }
}
