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
//! - amlint policy: the keys `az ml <kind> create` takes from its flags are not required
//!   at the top of a document: `name` (`--name`) of every kind, and `endpoint_name`
//!   (`--endpoint-name`) of deployments (docs/schemas.md, "Decisions"); they are listed
//!   in `x-amlint-from-cli` instead.
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
    // Environment.__init__ reads the conda file at load time, as YAML (`content: conda`:
    // "Error while parsing yaml file" when it is not).
    (
        "EnvironmentSchema",
        "conda_file",
        r#"[{"form": "local-path", "dir": false, "content": "conda"}]"#,
    ),
    (
        "AnonymousEnvironmentSchema",
        "conda_file",
        r#"[{"form": "local-path", "dir": false, "content": "conda"}]"#,
    ),
    // An anonymous inline model's files are hashed at load time (one with a `name` is
    // uploaded only when the deployment is created).
    (
        "AnonymousModelSchema",
        "path",
        r#"[{"form": "local-path", "unless": "name"}]"#,
    ),
    // Uploaded by `az ml model create` / `az ml data create` (and `az ml online-deployment
    // create`), not read when the file is loaded: `stage: create` (AML201 as a warning).
    (
        "#root:model",
        "path",
        r#"[{"form": "local-path", "stage": "create"}]"#,
    ),
    (
        "#root:data",
        "path",
        r#"[{"form": "local-path", "stage": "create"}]"#,
    ),
    // SDK v1 `InferenceConfig.validate_configuration`: `source_directory` against the
    // working directory, the other paths joined to it when it is given (`base: cwd`).
    (
        "#root:v1.inferenceConfig",
        "sourceDirectory",
        r#"[{"form": "local-path", "file": false, "base": "cwd"}]"#,
    ),
    (
        "#root:v1.inferenceConfig",
        "entryScript",
        r#"[{"form": "local-path", "dir": false, "base": "cwd", "relative_to": "sourceDirectory"}]"#,
    ),
    (
        "#root:v1.inferenceConfig",
        "condaFile",
        r#"[{"form": "local-path", "dir": false, "base": "cwd", "relative_to": "sourceDirectory", "content": "conda"}]"#,
    ),
    (
        "#root:v1.inferenceConfig",
        "extraDockerfileSteps",
        r#"[{"form": "local-path", "dir": false, "base": "cwd", "relative_to": "sourceDirectory"}]"#,
    ),
    // A feature set's specification folder (it holds `FeatureSetSpec.yaml`): `az ml
    // feature-set create` reads it (`_validate_and_get_feature_set_spec`: "No such
    // directory"); loading the file does not. A URL is fetched instead.
    (
        "FeatureSetSpecificationSchema",
        "path",
        r#"[{"form": "local-path", "file": false, "stage": "create"}]"#,
    ),
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
        if let Some(Value::Array(req)) = doc.get_mut("required") {
            let endpoint_name = ENDPOINT_NAME_FROM_CLI.contains(&kind);
            let from_flags = |r: &Value| r == "name" || (endpoint_name && r == "endpoint_name");
            let flags: Vec<Value> = req.iter().filter(|r| from_flags(r)).cloned().collect();
            req.retain(|r| !from_flags(r));
            if !flags.is_empty() {
                // Still what a new file of the kind should say (the editor's snippets).
                doc["x-amlint-from-cli"] = Value::Array(flags);
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

/// The `$id` base of the embedded (bundled) schema documents: `json-schema:///<id>.schema.json`.
/// The `jsonschema` crate computes no absolute keyword location under this scheme, which
/// would be a percent-encoded URI built for every schema node compiled (a sixth of the
/// compile time); findings locate their keyword by the error's schema path within the
/// document the validator was compiled from (`select::keyword_parent`). The schema files
/// of the repository keep their public `https://schemas.amlint.dev/` ids.
pub const EMBEDDED_ID_BASE: &str = "json-schema:///";

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

/// The smallest repeated subschema, in JSON nodes, that [`share_repeats`] moves into a
/// definition of its own.
const SHARE_MIN_NODES: usize = 6;
/// The name prefix of the definitions [`share_repeats`] makes.
const SHARED_PREFIX: &str = "shared.";

/// Shares what a bundle repeats: every subschema of [`SHARE_MIN_NODES`] nodes or more that
/// occurs more than once (with at least one subschema of its own) becomes a reference to
/// one definition — an existing one of the same content, or a new `shared.<hash>`.
/// Validation is unchanged (a local reference means its target); what changes is that
/// the validator compiles each such subschema once instead of at every place (the
/// pipeline job's schema repeats three quarters of its nodes: every AutoML search space
/// sits in 31 to 48 places), and a run parses a quarter of the text.
///
/// Each pass shares the outermost repeats; what repeats inside them is shared by the next.
pub fn share_repeats(doc: &mut Value) {
    if !doc.is_object() {
        return;
    }
    for _ in 0..64 {
        if !share_pass(doc) {
            return;
        }
    }
}

/// One node of a bundle as [`share_pass`] measures it.
struct Measured {
    path: Vec<String>,
    hash: u64,
    nodes: usize,
    /// A definition itself (`$defs/<name>`): never replaced, but a target.
    def: Option<String>,
    /// At a schema position, and worth sharing (it has subschemas of its own).
    shareable: bool,
}

/// What a value is, by the keyword that holds it.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Schema,
    MapOfSchemas,
    ListOfSchemas,
    Data,
}

fn share_pass(doc: &mut Value) -> bool {
    let mut measured = Vec::new();
    measure(doc, &mut Vec::new(), Role::Schema, &mut measured);
    // Occurrences by content (the hash, confirmed by equality with the group's first).
    let mut groups: std::collections::HashMap<u64, Vec<usize>> = std::collections::HashMap::new();
    for (i, m) in measured.iter().enumerate() {
        if m.nodes >= SHARE_MIN_NODES && (m.shareable || m.def.is_some()) {
            groups.entry(m.hash).or_default().push(i);
        }
    }
    let at = |path: &[String]| path.iter().try_fold(&*doc, |v, seg| child(v, seg));
    let mut group_of: std::collections::HashMap<usize, u64> = std::collections::HashMap::new();
    for (hash, members) in &groups {
        let first = at(&measured[members[0]].path);
        let same: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| at(&measured[i].path) == first)
            .collect();
        if same.len() >= 2 {
            group_of.extend(same.into_iter().map(|i| (i, *hash)));
        }
    }
    // Groups with a place to replace (not only definitions that repeat each other).
    let replaceable: std::collections::HashSet<u64> = group_of
        .iter()
        .filter(|(i, _)| measured[**i].shareable)
        .map(|(_, h)| *h)
        .collect();
    // The outermost repeats, in document order: nothing inside a replaced subschema or
    // inside a definition that is itself the shared copy.
    let mut replace: Vec<usize> = Vec::new();
    let mut inside: Option<&[String]> = None;
    for (i, m) in measured.iter().enumerate() {
        if inside.is_some_and(|p| m.path.starts_with(p) && m.path.len() > p.len()) {
            continue;
        }
        inside = None;
        if group_of.get(&i).is_some_and(|h| replaceable.contains(h)) {
            if m.shareable {
                replace.push(i);
            }
            inside = Some(&m.path);
        }
    }
    if replace.is_empty() {
        return false;
    }
    // The definition each group shares: an existing one, or a new one named by its hash.
    let mut target: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    for (i, m) in measured.iter().enumerate() {
        if let (Some(name), Some(h)) = (&m.def, group_of.get(&i)) {
            target.entry(*h).or_insert_with(|| name.clone());
        }
    }
    let mut new_defs: Vec<(String, Value)> = Vec::new();
    let mut refs: Vec<(Vec<String>, String)> = Vec::new();
    for &i in &replace {
        let h = group_of[&i];
        let name = target
            .entry(h)
            .or_insert_with(|| {
                let name = format!("{SHARED_PREFIX}{h:016x}");
                new_defs.push((
                    name.clone(),
                    at(&measured[i].path).cloned().unwrap_or(Value::Null),
                ));
                name
            })
            .clone();
        refs.push((measured[i].path.clone(), name));
    }
    for (path, name) in refs {
        if let Some(node) = path.iter().try_fold(&mut *doc, |v, seg| child_mut(v, seg)) {
            *node = json!({ "$ref": format!("#/$defs/{name}") });
        }
    }
    if !new_defs.is_empty() {
        let defs = doc
            .as_object_mut()
            .map(|root| root.entry("$defs").or_insert_with(|| Value::Object(Map::new())));
        if let Some(Value::Object(defs)) = defs {
            defs.extend(new_defs);
        }
    }
    true
}

fn child<'v>(v: &'v Value, seg: &str) -> Option<&'v Value> {
    match v {
        Value::Object(m) => m.get(seg),
        Value::Array(a) => a.get(seg.parse::<usize>().ok()?),
        _ => None,
    }
}

fn child_mut<'v>(v: &'v mut Value, seg: &str) -> Option<&'v mut Value> {
    match v {
        Value::Object(m) => m.get_mut(seg),
        Value::Array(a) => a.get_mut(seg.parse::<usize>().ok()?),
        _ => None,
    }
}

/// FNV-1a's starting value.
const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, so that the names of shared definitions and documents do not change between
/// builds.
fn fnv(hash: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(hash, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Records every node under `v` (document order; a node before its children) with the
/// hash and size of its content; returns those of `v`.
fn measure(v: &Value, path: &mut Vec<String>, role: Role, out: &mut Vec<Measured>) -> (u64, usize) {
    let slot = out.len();
    out.push(Measured {
        path: path.clone(),
        hash: 0,
        nodes: 0,
        def: None,
        shareable: false,
    });
    let mut hash = FNV_BASIS;
    let mut nodes = 1;
    let mut has_subschemas = false;
    match v {
        Value::Object(map) => {
            hash = fnv(hash, b"{");
            // In key order: the same content is the same however a file orders it.
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by_key(|(k, _)| *k);
            for (key, value) in entries {
                let child_role = match role {
                    Role::Schema if MAP_OF_SCHEMAS.contains(&key.as_str()) => Role::MapOfSchemas,
                    Role::Schema if LIST_OF_SCHEMAS.contains(&key.as_str()) => Role::ListOfSchemas,
                    Role::Schema if SCHEMA.contains(&key.as_str()) => Role::Schema,
                    Role::MapOfSchemas => Role::Schema,
                    _ => Role::Data,
                };
                if role == Role::Schema && (child_role != Role::Data || key == "$ref") {
                    has_subschemas = true;
                }
                path.push(key.clone());
                let (h, n) = measure(value, path, child_role, out);
                path.pop();
                hash = fnv(fnv(hash, key.as_bytes()), &h.to_le_bytes());
                nodes += n;
            }
        }
        Value::Array(items) => {
            hash = fnv(hash, b"[");
            let child_role = if role == Role::ListOfSchemas {
                Role::Schema
            } else {
                Role::Data
            };
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                let (h, n) = measure(item, path, child_role, out);
                path.pop();
                hash = fnv(hash, &h.to_le_bytes());
                nodes += n;
            }
        }
        scalar => hash = fnv(hash, scalar.to_string().as_bytes()),
    }
    let m = &mut out[slot];
    m.hash = hash;
    m.nodes = nodes;
    let under_defs = path.len() == 2 && path[0] == "$defs";
    if under_defs {
        m.def = Some(path[1].clone());
    }
    m.shareable = role == Role::Schema && !path.is_empty() && !under_defs && v.is_object() && has_subschemas;
    (hash, nodes)
}

/// The custom keyword that replaces a reference to a definition in the embedded schemas
/// (see `super::store`: each definition gets a validator of its own, compiled on first use).
pub const LAZY_KEYWORD: &str = "x-amlint-lazy";

/// Replaces every `"$ref": "#/$defs/<name>"` of a schema document (`<name>` one of its
/// own definitions) by `"x-amlint-lazy": "<name>"`, and every reference to a shared
/// definition (`"_shared-<hash>.schema.json#/$defs/<name>"`, see [`split_shared`]) by
/// `"x-amlint-lazy": "_shared-<hash>#<name>"`, iteratively. `build.rs` embeds every
/// document in this form; the other `$ref`s stay as they are.
pub fn make_lazy(doc: &mut Value) {
    let defs: std::collections::HashSet<String> = doc
        .get("$defs")
        .and_then(Value::as_object)
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default();
    let shared = |r: &str| {
        let (doc, name) = r.split_once(".schema.json#/$defs/")?;
        (is_shared_doc(doc) && !name.contains('/')).then(|| format!("{doc}#{name}"))
    };
    let mut stack = vec![&mut *doc];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                let target =
                    m.get("$ref")
                        .and_then(Value::as_str)
                        .and_then(|r| match r.strip_prefix("#/$defs/") {
                            Some(name) if defs.contains(name) => Some(name.to_string()),
                            _ => shared(r),
                        });
                if let Some(name) = target {
                    m.remove("$ref");
                    m.insert(LAZY_KEYWORD.to_string(), Value::String(name));
                }
                stack.extend(m.values_mut());
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
    hoist_unions(doc);
}

/// The name prefix of the definitions [`hoist_unions`] makes (`union.<n>`).
pub const UNION_DEF: &str = "union.";

/// Moves every union (`anyOf`/`oneOf`, with its `x-amlint-discriminator`) that is not a
/// definition's whole body nor the document's root into a definition of its own
/// (`union.<n>`), which the union's schema object then refers to lazily.
///
/// The `jsonschema` crate collects a union's errors eagerly, for every branch, each with a
/// copy of the instance, and the errors of a whole mapping or list before its first one is
/// seen: 20,000 pipeline steps that each fail the step union held some 30 KB of errors
/// apiece, 640 MB in all. A lazy reference that fails yields one marker instead
/// ([`super::store`]), which [`super::select`] expands one at a time (validating that one
/// instance against the union): the errors held at once are a marker per failing union
/// plus one union's tree.
pub fn hoist_unions(doc: &mut Value) {
    let mut taken: std::collections::HashSet<String> = doc
        .get("$defs")
        .and_then(Value::as_object)
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default();
    let mut next = 0usize;
    let mut made: Vec<(String, Value)> = Vec::new();
    let mut hoist_below = |root: &mut Value, made: &mut Vec<(String, Value)>| {
        // (schema, whether it is a whole body: a root or a definition, not hoisted itself;
        // a document's own definitions are walked below, as bodies)
        let mut stack: Vec<(&mut Value, bool)> = vec![(root, true)];
        while let Some((v, body)) = stack.pop() {
            let Value::Object(m) = v else {
                continue;
            };
            let union = m.contains_key("anyOf") || m.contains_key("oneOf");
            if union && !body && !m.contains_key(LAZY_KEYWORD) && !m.contains_key("$ref") {
                let mut def = serde_json::Map::new();
                for key in ["anyOf", "oneOf", "x-amlint-discriminator"] {
                    if let Some(value) = m.remove(key) {
                        def.insert(key.to_string(), value);
                    }
                }
                let name = loop {
                    let name = format!("{UNION_DEF}{next}");
                    next += 1;
                    if taken.insert(name.clone()) {
                        break name;
                    }
                };
                m.insert(LAZY_KEYWORD.to_string(), Value::String(name.clone()));
                made.push((name, Value::Object(def)));
            }
            // Only the keywords that hold schemas: a `const` or a default is data,
            // and `properties` maps names (`anyOf` could be one) to schemas.
            for (key, child) in m.iter_mut() {
                match (key.as_str(), child) {
                    ("properties" | "patternProperties" | "dependentSchemas", Value::Object(schemas)) => {
                        stack.extend(schemas.values_mut().map(|c| (c, false)))
                    }
                    ("allOf" | "anyOf" | "oneOf" | "prefixItems", Value::Array(schemas)) => {
                        stack.extend(schemas.iter_mut().map(|c| (c, false)));
                    }
                    (
                        "additionalProperties"
                        | "items"
                        | "contains"
                        | "not"
                        | "if"
                        | "then"
                        | "else"
                        | "propertyNames"
                        | "unevaluatedProperties"
                        | "unevaluatedItems",
                        child,
                    ) => stack.push((child, false)),
                    _ => {}
                }
            }
        }
    };
    hoist_below(doc, &mut made);
    if let Some(Value::Object(defs)) = doc.get_mut("$defs") {
        for def in defs.values_mut() {
            hoist_below(def, &mut made);
        }
    }
    // The unions made are bodies too; their branches may hold more unions.
    let mut i = 0;
    while i < made.len() {
        let mut def = std::mem::take(&mut made[i].1);
        hoist_below(&mut def, &mut made);
        made[i].1 = def;
        i += 1;
    }
    if made.is_empty() {
        return;
    }
    let defs = doc.as_object_mut().map(|m| {
        m.entry("$defs")
            .or_insert_with(|| Value::Object(Default::default()))
    });
    if let Some(Value::Object(defs)) = defs {
        defs.extend(made);
    }
}

/// The name prefix of the documents that hold the definitions several kinds share
/// (`_shared-<hash>`, `$id` `<base>/_shared-<hash>.schema.json`): not kinds.
pub const SHARED_DOC: &str = "_shared";

/// Whether a schema document id names a document of shared definitions.
pub fn is_shared_doc(id: &str) -> bool {
    id.starts_with(SHARED_DOC)
}

/// Moves the definitions that several bundles hold alike into documents of their own, so
/// that a run parses and compiles each once rather than once per kind (a pipeline job and
/// a pipeline component share most of theirs). A definition moves when every bundle that
/// has it has the same content, at least two do, and everything it references moves too.
/// The definitions held by the same set of kinds go to one document (`_shared-<hash of the
/// set>`), so that a run of one kind parses only what that kind uses. References to a
/// moved definition become `<document>.schema.json#/$defs/<name>` (local `#/...` within
/// its own document). Returns the documents: (id, document with `$id` `<base><id>.schema.json`).
pub fn split_shared(bundles: &mut [(String, Value)], base: &str) -> Vec<(String, Value)> {
    use std::collections::{BTreeMap, BTreeSet};
    // name -> (content, the kinds that hold it alike), or None once two differ.
    let mut seen: BTreeMap<String, Option<(Value, BTreeSet<String>)>> = BTreeMap::new();
    for (kind, doc) in bundles.iter() {
        let defs = doc.get("$defs").and_then(Value::as_object).into_iter().flatten();
        for (name, def) in defs {
            let entry = seen
                .entry(name.clone())
                .or_insert_with(|| Some((def.clone(), BTreeSet::new())));
            match entry {
                Some((content, kinds)) if content == def => {
                    kinds.insert(kind.clone());
                }
                _ => *entry = None,
            }
        }
    }
    let mut moving: BTreeMap<String, (Value, BTreeSet<String>)> = seen
        .into_iter()
        .filter_map(|(name, e)| e.filter(|(_, kinds)| kinds.len() >= 2).map(|e| (name, e)))
        .collect();
    // What stays behind keeps what references it.
    let uses: BTreeMap<String, Vec<String>> = moving
        .iter()
        .map(|(name, (def, _))| {
            let mut names = Vec::new();
            let _ = visit_refs(&mut def.clone(), &mut |r| {
                names.extend(local_def(r).map(str::to_string));
                Ok(())
            });
            (name.clone(), names)
        })
        .collect();
    loop {
        let staying: BTreeSet<String> = moving
            .keys()
            .filter(|name| uses[*name].iter().any(|n| !moving.contains_key(n)))
            .cloned()
            .collect();
        if staying.is_empty() {
            break;
        }
        moving.retain(|name, _| !staying.contains(name));
    }
    let doc_of: BTreeMap<String, String> = moving
        .iter()
        .map(|(name, (_, kinds))| {
            let set = kinds.iter().map(String::as_str).collect::<Vec<_>>().join(",");
            (
                name.clone(),
                format!("{SHARED_DOC}-{:08x}", fnv(FNV_BASIS, set.as_bytes()) as u32),
            )
        })
        .collect();
    // A reference from document `from` (a kind, or a shared document) to a moved definition.
    let rewrite = |from: &str, r: &mut String| {
        if let Some(doc) = local_def(r).and_then(|n| doc_of.get(n)).filter(|d| *d != from) {
            *r = format!("{doc}.schema.json{r}");
        }
    };
    for (kind, doc) in bundles.iter_mut() {
        if let Some(Value::Object(defs)) = doc.get_mut("$defs") {
            defs.retain(|name, _| !moving.contains_key(name));
        }
        let _ = visit_refs(doc, &mut |r| {
            rewrite(kind, r);
            Ok(())
        });
    }
    let mut docs: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for (name, (mut def, _)) in moving {
        let doc = doc_of[&name].clone();
        let _ = visit_refs(&mut def, &mut |r| {
            rewrite(&doc, r);
            Ok(())
        });
        docs.entry(doc).or_default().insert(name, def);
    }
    docs.into_iter()
        .map(|(id, defs)| {
            let doc = json!({ "$id": format!("{base}{id}.schema.json"), "$defs": Value::Object(defs) });
            (id, doc)
        })
        .collect()
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
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn references_to_whole_definitions_become_lazy_and_others_stay() {
        let mut doc = json!({
            "properties": {
                "a": {"$ref": "#/$defs/A", "description": "kept beside it"},
                "b": {"$ref": "#/$defs/A/properties/x"},
                "c": {"$ref": "#/$defs/Missing"},
                "d": {"anyOf": [{"$ref": "_shared-1f.schema.json#/$defs/S"}]},
                "e": {"$ref": "_shared-1f.schema.json#/$defs/S/items"},
                "f": {"$ref": "other.schema.json#/$defs/S"}
            },
            "$defs": {"A": {"properties": {"x": {"$ref": "#/$defs/A"}}}}
        });
        make_lazy(&mut doc);
        assert_eq!(
            doc,
            json!({
                "properties": {
                    "a": {"x-amlint-lazy": "A", "description": "kept beside it"},
                    "b": {"$ref": "#/$defs/A/properties/x"},
                    "c": {"$ref": "#/$defs/Missing"},
                    "d": {"x-amlint-lazy": "union.0"},
                    "e": {"$ref": "_shared-1f.schema.json#/$defs/S/items"},
                    "f": {"$ref": "other.schema.json#/$defs/S"}
                },
                "$defs": {
                    "A": {"properties": {"x": {"x-amlint-lazy": "A"}}},
                    "union.0": {"anyOf": [{"x-amlint-lazy": "_shared-1f#S"}]}
                }
            })
        );
    }

    #[test]
    fn unions_move_to_definitions_of_their_own() {
        let mut doc = json!({
            "anyOf": [{"type": "string"}, {"type": "object"}],
            "properties": {
                "jobs": {"additionalProperties": {
                    "type": "object",
                    "x-amlint-discriminator": "type",
                    "anyOf": [{"pattern": "^file:"}, {"anyOf": [{"const": 1}, {"const": 2}]}]
                }},
                "union.0": {"oneOf": [{"type": "integer"}]}
            },
            "$defs": {"U": {"anyOf": [{"type": "null"}, {"items": {"anyOf": [{"type": "null"}]}}]}}
        });
        make_lazy(&mut doc);
        // The root's union and a definition's whole union stay; the others move, their
        // discriminator with them, the other keywords beside the reference.
        assert!(doc["anyOf"].is_array());
        assert!(doc["$defs"]["U"]["anyOf"].is_array());
        let jobs = &doc["properties"]["jobs"]["additionalProperties"];
        assert_eq!(jobs["type"], "object");
        assert!(jobs.get("anyOf").is_none() && jobs.get("x-amlint-discriminator").is_none());
        let defs = doc["$defs"].as_object().unwrap();
        let target = |v: &Value| defs[v[LAZY_KEYWORD].as_str().unwrap()].clone();
        let union = target(jobs);
        assert_eq!(union["x-amlint-discriminator"], "type");
        assert_eq!(union["anyOf"][0], json!({"pattern": "^file:"}));
        assert_eq!(
            target(&union["anyOf"][1])["anyOf"],
            json!([{"const": 1}, {"const": 2}])
        );
        assert_eq!(
            target(&doc["$defs"]["U"]["anyOf"][1]["items"])["anyOf"],
            json!([{"type": "null"}])
        );
        // A property named like a made definition is a property, not a clash.
        assert_eq!(
            target(&doc["properties"]["union.0"])["oneOf"],
            json!([{"type": "integer"}])
        );
        assert_eq!(defs.len(), 1 + 4);
    }

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
    fn shares_what_repeats() {
        let big =
            json!({"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^x"}], "description": "d"});
        let mut doc = json!({
            "properties": {
                "a": big.clone(),
                "b": {"items": big.clone()},
                "c": {"$ref": "#/$defs/Same"},
                "small": {"type": "string"},
                "small2": {"type": "string"}
            },
            "$defs": {"Same": {"properties": {"x": big.clone()}}, "Other": {"properties": {"x": big.clone()}}}
        });
        share_repeats(&mut doc);
        let shared = doc["properties"]["a"]["$ref"].as_str().unwrap().to_string();
        assert!(shared.starts_with("#/$defs/shared."), "{doc}");
        let name = shared.trim_start_matches("#/$defs/");
        assert_eq!(doc["$defs"][name], big);
        assert_eq!(doc["properties"]["b"]["items"]["$ref"], shared.as_str());
        assert_eq!(doc["$defs"]["Same"]["properties"]["x"]["$ref"], shared.as_str());
        // Definitions stay where they are; too small a subschema stays inline.
        assert!(doc["$defs"]["Other"].is_object());
        assert_eq!(doc["properties"]["small"], json!({"type": "string"}));
        // A subschema equal to an existing definition refers to it.
        let mut doc = json!({"properties": {"a": big.clone()}, "$defs": {"Big": big.clone()}});
        share_repeats(&mut doc);
        assert_eq!(doc["properties"]["a"], json!({"$ref": "#/$defs/Big"}));
        assert_eq!(doc["$defs"].as_object().unwrap().len(), 1);
        // Data is not a schema: the same object under `enum` or `x-amlint-forms` stays.
        let mut doc = json!({"properties": {"a": {"enum": [big.clone()]}, "b": {"enum": [big.clone()]}}});
        let before = doc.clone();
        share_repeats(&mut doc);
        assert_eq!(doc, before);
    }

    #[test]
    fn splits_what_kinds_share() {
        let same = json!({"properties": {"b": {"$ref": "#/$defs/B"}}});
        let kind = |c: Value, e: Value| {
            json!({"properties": {"a": {"$ref": "#/$defs/A"}, "c": {"$ref": "#/$defs/C/type"}},
                   "$defs": {"A": same.clone(), "B": {"type": "string"}, "C": c, "D": {"$ref": "#/$defs/C"}, "E": e}})
        };
        let mut bundles = vec![
            (
                "k1".to_string(),
                kind(json!({"type": "integer"}), json!({"type": "null"})),
            ),
            (
                "k2".to_string(),
                kind(json!({"type": "boolean"}), json!({"type": "null"})),
            ),
            ("k3".to_string(), json!({"$defs": {"B": {"type": "string"}}})),
        ];
        let shared = split_shared(&mut bundles, "https://x/");
        // A, B and E are alike wherever they are and reference only what moves: they move,
        // by the set of kinds that hold them (B: all three; A and E: k1 and k2).
        let moved: Vec<(String, Vec<String>)> = shared
            .iter()
            .map(|(id, doc)| {
                (
                    id.clone(),
                    doc["$defs"].as_object().unwrap().keys().cloned().collect(),
                )
            })
            .collect();
        assert_eq!(moved.len(), 2, "{moved:?}");
        let doc_of = |name: &str| {
            moved
                .iter()
                .find(|(_, n)| n.iter().any(|x| x == name))
                .unwrap()
                .0
                .clone()
        };
        assert_eq!(doc_of("A"), doc_of("E"));
        assert_ne!(doc_of("A"), doc_of("B"));
        assert!(moved.iter().all(|(id, _)| is_shared_doc(id)));
        let a_doc = shared.iter().find(|(id, _)| *id == doc_of("A")).unwrap();
        assert_eq!(a_doc.1["$id"], format!("https://x/{}.schema.json", doc_of("A")));
        // A's reference to B crosses to B's document.
        assert_eq!(
            a_doc.1["$defs"]["A"]["properties"]["b"]["$ref"],
            format!("{}.schema.json#/$defs/B", doc_of("B"))
        );
        for (kind, doc) in &bundles[..2] {
            assert_eq!(
                doc["properties"]["a"]["$ref"],
                format!("{}.schema.json#/$defs/A", doc_of("A")),
                "{kind}"
            );
            let kept: Vec<&String> = doc["$defs"].as_object().unwrap().keys().collect();
            // C differs between the kinds, and D is alike but references C: both stay.
            assert_eq!(kept, ["C", "D"], "{kind}");
            assert_eq!(doc["properties"]["c"]["$ref"], "#/$defs/C/type");
        }
        assert!(bundles[2].1["$defs"].as_object().unwrap().is_empty());
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
    fn keys_from_cli_flags_and_forms() {
        let mut s = json!({
            "required": ["endpoint_name", "instance_type", "name"],
            "properties": {"path": {"type": "string"}}
        });
        preprocess(&mut s, Some("managedOnlineDeployment"));
        assert_eq!(s["required"], json!(["instance_type"]));
        let mut e = json!({"required": ["endpoint_name", "name"]});
        preprocess(&mut e, Some("managedOnlineEndpoint"));
        assert_eq!(
            e["required"],
            json!(["endpoint_name"]),
            "only deployments take --endpoint-name"
        );
        assert_eq!(e["x-amlint-from-cli"], json!(["name"]));
        assert_eq!(s["x-amlint-from-cli"], json!(["endpoint_name", "name"]));
        let mut m = json!({"properties": {"path": {"type": "string"}}});
        preprocess(&mut m, Some("model"));
        assert_eq!(m["properties"]["path"]["x-amlint-forms"][0]["form"], "local-path");
    }
}
