//! What a document's schema annotations say about its fields: walks the document's JSON
//! view together with its kind's (preprocessed) schema and collects every string whose
//! schema carries `x-amlint-forms` — the forms the SDK tries for it, in order — and every
//! key the SDK drops (`x-amlint-read-only`), does not read (`x-amlint-ignored`), or takes
//! without knowing it (a mapping with `x-amlint-unknown-keys`: every unknown key where
//! SDK v1 reads known keys by name, `ignore`; an unknown key that resembles a known one
//! where the v2 SDK includes or excludes unknown keys unchecked) (docs/schemas.md). Unions are followed like the SDK loads them: the
//! discriminated branch (of several for one discriminator value, the first whose required keys
//! the value has: `select::loading_branch`), else every branch that admits the value's type.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde_json::Value;

use super::coerce::is_binding;
use super::select::{admits, node};
use super::store::Store;
use crate::source::Pointer;

/// One form the SDK tries for a reference field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// `local-path`, `file-ref`, `yaml-file`, `url`, `git`, `registry`, `arm`,
    /// `arm-versioned`, `binding`, `output-binding`, `string`.
    pub form: String,
    /// The asset type an `azureml:` reference names (`environments`, `models`, ...).
    pub asset: Option<String>,
    /// `arm-versioned` only: a reference without `:version`/`@label` is accepted.
    pub default_version: bool,
    /// `local-path`: whether a directory / a file is accepted.
    pub dir: bool,
    pub file: bool,
    /// `local-path`: resolved against the directory a sibling key names (`code`).
    pub relative_to: Option<String>,
    /// `local-path`: not checked when this sibling key is present (an inline model with a
    /// `name` is not anonymous, so the SDK does not hash its files at load time).
    pub unless: Option<String>,
    /// `local-path` with `"stage": "create"`: the CLI reads the path only when it creates
    /// the asset or submits the job (to upload it), not when it loads the file; data is
    /// often made by a script or kept out of git, so a missing one is a warning.
    pub on_create: bool,
    /// `local-path` with `"base": "cwd"`: resolved against the working directory the
    /// command runs in (SDK v1), not the file's directory; amlint tries the file's folder
    /// and each folder above it.
    pub from_cwd: bool,
    /// `local-path` with `"content": "conda"`: a conda environment file, which the tool
    /// that loads the configuration parses as YAML (AML206 when it is not a YAML mapping).
    pub conda: bool,
}

impl Form {
    pub fn parse(v: &Value) -> Option<Self> {
        let form = v.get("form")?.as_str()?.to_string();
        let flag = |k: &str| v.get(k).and_then(Value::as_bool);
        Some(Form {
            asset: v.get("asset").and_then(Value::as_str).map(str::to_string),
            default_version: flag("default_version").unwrap_or(false),
            dir: flag("dir").unwrap_or(true) && form != "file-ref" && form != "yaml-file",
            file: flag("file").unwrap_or(true),
            relative_to: v.get("relative_to").and_then(Value::as_str).map(str::to_string),
            unless: v.get("unless").and_then(Value::as_str).map(str::to_string),
            on_create: v.get("stage").and_then(Value::as_str) == Some("create"),
            from_cwd: v.get("base").and_then(Value::as_str) == Some("cwd"),
            conda: v.get("content").and_then(Value::as_str) == Some("conda"),
            form,
        })
    }
}

/// "environment" for `environments`: how messages name an `x-amlint-forms` asset type.
pub fn asset_singular(asset: &str) -> &str {
    match asset {
        "environments" => "environment",
        "models" => "model",
        "codes" => "code asset",
        "components" => "component",
        "data" => "data asset",
        "computes" => "compute",
        "jobs" => "job",
        "datastores" => "datastore",
        other => other.strip_suffix('s').unwrap_or(other),
    }
}

/// The forms a field accepts, in words, in the SDK's order: "`azureml:<name>:<version>`,
/// `azureml:<name>@<label>` or `file:<path>` to a YAML file".
pub fn describe_accepted(forms: &[Form]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    };
    for f in forms {
        match f.form.as_str() {
            "arm" => add("`azureml:<name>`"),
            "arm-versioned" => {
                if f.default_version {
                    add("`azureml:<name>`");
                }
                add("`azureml:<name>:<version>`");
                add("`azureml:<name>@<label>`");
            }
            "registry" => add("`azureml://registries/<registry>/<type>/<name>/versions/<version>`"),
            "yaml-file" => add("`file:<path>` to a YAML file"),
            "file-ref" | "local-path" => add("a local path"),
            "url" => add("an http(s) URL"),
            "git" => add("a `git+` URL"),
            _ => {}
        }
    }
    match out.as_slice() {
        [] => "an Azure ML reference".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A string value of the document that is a reference field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub pointer: Pointer,
    pub forms: Vec<Form>,
}

/// Why the SDK does not use a key of the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unused {
    /// Output-only (`x-amlint-read-only`): the SDK drops it on load; the schema's
    /// description, when it has one, says why here.
    ReadOnly { note: Option<String> },
    /// Read only in other configurations (`x-amlint-ignored: "<why>"`).
    Ignored(String),
    /// Not a key of the mapping, which the SDK nevertheless accepts without a word
    /// (`x-amlint-unknown-keys`: `policy` is `ignore`, `include` or `exclude`);
    /// `suggestion` is the known key it resembles; `belongs_under`, a mapping of this one
    /// whose schema has this very key (`memoryInGB` written beside
    /// `containerResourceRequirements` instead of under it).
    Unknown {
        policy: String,
        suggestion: Option<String>,
        /// The suggestion is one edit away and no other key is as close
        /// ([`crate::suggest::is_unambiguous_typo`]): renaming is a safe fix.
        unambiguous: bool,
        belongs_under: Option<String>,
    },
}

/// A key of the document that the consuming SDK silently drops or does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnusedKey {
    pub pointer: Pointer,
    pub why: Unused,
}

/// What the schema annotations say about one document.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    /// The reference fields (`x-amlint-forms`), in document order.
    pub sites: Vec<Site>,
    /// Keys the SDK drops or does not read, in document order.
    pub unused: Vec<UnusedKey>,
}

const MAX_DEPTH: usize = 256;

/// The reference fields of a document of `kind`.
pub fn sites(store: &'static Store, kind: &str, instance: &Value) -> Vec<Site> {
    annotate(store, kind, instance).sites
}

/// The reference fields and the unused keys of a document of `kind`, in one walk.
pub fn annotate(store: &'static Store, kind: &str, instance: &Value) -> Annotations {
    let mut w = Walker {
        store,
        out: Annotations::default(),
        site_at: HashMap::new(),
        unused_at: HashSet::new(),
        used: Vec::new(),
    };
    if let (Some(doc), Some(base)) = (store.kind_doc(kind), store.doc_id(kind)) {
        w.walk(instance, doc, base, &Pointer::root(), 0);
    }
    let Walker { mut out, used, .. } = w;
    // An output-only or unknown key in one union branch that another branch reads is not
    // unused. `x-amlint-ignored` always stands: it sits in conditional schemas (`then`,
    // the discriminated branch) that apply on top of the plain property schema.
    if !out.unused.is_empty() && !used.is_empty() {
        let used: HashSet<&Pointer> = used.iter().collect();
        out.unused
            .retain(|u| matches!(u.why, Unused::Ignored(_)) || !used.contains(&u.pointer));
    }
    out
}

struct Walker {
    store: &'static Store,
    out: Annotations,
    /// Index of `out.sites` by pointer.
    site_at: HashMap<Pointer, usize>,
    /// The pointers of `out.unused`.
    unused_at: HashSet<Pointer>,
    /// Keys some branch gives a real (unannotated) schema (repeats allowed: a set is made
    /// only when some key is unused, which few documents have).
    used: Vec<Pointer>,
}

impl Walker {
    fn record(&mut self, pointer: &Pointer, forms: &Value) {
        let parsed: Vec<Form> = forms
            .as_array()
            .map(|a| a.iter().filter_map(Form::parse).collect())
            .unwrap_or_default();
        if parsed.is_empty() {
            return;
        }
        match self.site_at.get(pointer).map(|&i| &mut self.out.sites[i]) {
            Some(site) => {
                for f in parsed {
                    if !site.forms.contains(&f) {
                        site.forms.push(f);
                    }
                }
            }
            None => {
                self.site_at.insert(pointer.clone(), self.out.sites.len());
                self.out.sites.push(Site {
                    pointer: pointer.clone(),
                    forms: parsed,
                });
            }
        }
    }

    /// Records the key at `pointer` if it is unused (annotated) under `sub`; `false` when
    /// `sub` reads it.
    fn note_unused(
        &mut self,
        pointer: &Pointer,
        sub: &'static Value,
        base: &'static str,
        value: &Value,
    ) -> bool {
        let Value::Object(m) = sub else {
            return false;
        };
        let k = &node(self.store, m, base).k;
        let why = if k.read_only {
            Some(Unused::ReadOnly {
                note: m.get("description").and_then(Value::as_str).map(str::to_string),
            })
        } else {
            k.ignored
                .and_then(Value::as_str)
                .map(|w| Unused::Ignored(w.to_string()))
        };
        let Some(why) = why else {
            return false;
        };
        // SDK v1 reads `null` as "not set": an ignored setting that is not set loses
        // nothing.
        if value.is_null() && matches!(why, Unused::Ignored(_)) {
            return true;
        }
        self.push_unused(pointer, why);
        true
    }

    fn push_unused(&mut self, pointer: &Pointer, why: Unused) {
        if self.unused_at.insert(pointer.clone()) {
            self.out.unused.push(UnusedKey {
                pointer: pointer.clone(),
                why,
            });
        }
    }

    /// The keys of `obj` that a mapping schema with `x-amlint-unknown-keys` does not
    /// know: all of them where SDK v1 ignores unknown keys (`null`, "not set" to SDK v1,
    /// loses nothing and is left alone), only look-alikes of a known key (at most two
    /// edits) where the v2 SDK takes them unchecked: a different key there may be read by
    /// the service, a near miss of a known key is a typo.
    fn note_unknown(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        props: &serde_json::Map<String, Value>,
        policy: &str,
        at: &Pointer,
        base: &str,
    ) {
        for (key, value) in obj {
            if props.contains_key(key) || key == "$schema" {
                continue;
            }
            // Only real (unannotated, readable) keys are suggested.
            let known = props.iter().filter(|(_, v)| readable(v)).map(|(k, _)| k);
            // A key the mapping already has is no rename target (it would make a duplicate).
            // Where the v2 SDK takes unknown keys, only a typo (two edits at most) counts.
            let suggestion = if policy == "ignore" {
                crate::suggest::closest(key, known)
            } else {
                crate::suggest::closest_within(key, known, 2)
            }
            .filter(|s| !obj.contains_key(*s))
            .map(str::to_string);
            let unambiguous = suggestion.as_deref().is_some_and(|s| {
                let known = props.iter().filter(|(_, v)| readable(v)).map(|(k, _)| k);
                crate::suggest::is_unambiguous_typo(key, s, known)
            });
            let belongs_under = if suggestion.is_none() && policy == "ignore" {
                props
                    .iter()
                    .filter(|(_, v)| readable(v))
                    .find(|(_, v)| self.has_property(v, base, key, 0))
                    .map(|(k, _)| k.clone())
            } else {
                None
            };
            let report = if policy == "ignore" {
                !value.is_null()
            } else {
                suggestion.is_some()
            };
            if !report {
                continue;
            }
            self.push_unused(
                &at.child(key.as_str()),
                Unused::Unknown {
                    policy: policy.to_string(),
                    suggestion,
                    unambiguous,
                    belongs_under,
                },
            );
        }
    }

    /// Whether an object schema has `key` among its readable `properties`, through the
    /// references (lazy or `$ref`) the preprocessing leaves in its place.
    fn has_property(&self, schema: &Value, base: &str, key: &str, depth: usize) -> bool {
        let Some(m) = schema.as_object() else {
            return false;
        };
        if let Some(p) = m.get("properties").and_then(Value::as_object) {
            return p.get(key).is_some_and(readable);
        }
        depth < 8
            && self
                .store
                .follow(m, base)
                .is_some_and(|(target, uri)| self.has_property(target, &uri, key, depth + 1))
    }

    fn walk(&mut self, x: &Value, schema: &'static Value, base: &'static str, at: &Pointer, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let Value::Object(m) = schema else {
            return;
        };
        let n = node(self.store, m, base);
        let k = &n.k;
        if k.binding {
            if is_binding(x) {
                return;
            }
            if let Some(rest) = k.else_ {
                self.walk(x, rest, base, at, depth + 1);
            }
            return;
        }
        if let Some((target, uri)) = &n.target {
            self.walk(x, target, uri, at, depth + 1);
        }
        if let (Value::String(_), Some(forms)) = (x, k.forms) {
            self.record(at, forms);
        }
        match x {
            Value::Object(obj) => {
                let props = k.properties.and_then(Value::as_object);
                let extra = k.additional.filter(|a| a.is_object());
                if let (Some(props), Some(policy)) = (props, k.unknown_keys.and_then(Value::as_str)) {
                    self.note_unknown(obj, props, policy, at, base);
                }
                for (key, v) in obj {
                    let sub = props.and_then(|p| p.get(key)).or(extra);
                    if let Some(sub) = sub {
                        let child = at.child(key.as_str());
                        let unused = self.note_unused(&child, sub, base, v);
                        self.walk(v, sub, base, &child, depth + 1);
                        if !unused {
                            self.used.push(child);
                        }
                    }
                }
            }
            Value::Array(items) => {
                let prefix = k.prefix_items.and_then(Value::as_array);
                for (i, item) in items.iter().enumerate() {
                    let sub = prefix.and_then(|p| p.get(i)).or(k.items);
                    if let Some(sub) = sub {
                        self.walk(item, sub, base, &at.child(i.to_string()), depth + 1);
                    }
                }
            }
            _ => {}
        }
        if let Some(Value::Array(all)) = k.all_of {
            for sub in all {
                self.walk(x, sub, base, at, depth + 1);
            }
        }
        if let Some(cond) = k.if_ {
            let branches = match holds(cond, x) {
                Some(true) => [k.then, None],
                Some(false) => [k.else_, None],
                None => [k.then, k.else_],
            };
            for sub in branches.into_iter().flatten() {
                self.walk(x, sub, base, at, depth + 1);
            }
        }
        for union in [k.any_of, k.one_of] {
            let Some(Value::Array(branches)) = union else {
                continue;
            };
            match (k.discriminator.and_then(Value::as_str), x) {
                (Some(key), Value::Object(obj)) => {
                    if let Ok(i) = super::select::discriminate(key, branches, obj) {
                        let i = super::select::loading_branch(self.store, key, branches, base, obj, i);
                        if let Some(b) = branches.get(i) {
                            self.walk(x, b, base, at, depth + 1);
                        }
                    }
                }
                _ => {
                    for b in branches {
                        if admits(self.store, b, base, x, 0) {
                            self.walk(x, b, base, at, depth + 1);
                        }
                    }
                }
            }
        }
    }
}

/// A property schema that the SDK reads (not output-only, not ignored here).
fn readable(v: &Value) -> bool {
    v.get("x-amlint-read-only") != Some(&Value::Bool(true)) && v.get("x-amlint-ignored").is_none()
}

/// Evaluates the simple `if` conditions the schemas use (`required`, `type`); `None`
/// when the condition uses anything else.
fn holds(cond: &Value, x: &Value) -> Option<bool> {
    let m = cond.as_object()?;
    let mut ok = true;
    for (k, v) in m {
        match k.as_str() {
            "required" => {
                let obj = x.as_object();
                let all = v
                    .as_array()?
                    .iter()
                    .all(|r| r.as_str().is_some_and(|r| obj.is_some_and(|o| o.contains_key(r))));
                ok &= all;
            }
            "type" => ok &= v.as_str().is_some_and(|t| super::select::json_type_is(t, x)),
            _ => return None,
        }
    }
    Some(ok)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use serde_json::json;

    fn forms_at(kind: &str, doc: Value, pointer: &str) -> Vec<String> {
        let all = sites(super::super::store(), kind, &doc);
        all.iter()
            .find(|s| s.pointer.to_string() == pointer)
            .map(|s| s.forms.iter().map(|f| f.form.clone()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn finds_reference_fields() {
        let job = json!({"command": "x", "code": "./src", "environment": "azureml:e:1"});
        assert_eq!(
            forms_at("commandJob", job.clone(), "/code"),
            ["local-path", "url", "git", "registry", "arm-versioned"]
        );
        assert!(forms_at("commandJob", job, "/environment").contains(&"arm-versioned".to_string()));
        let dep = json!({"name": "b", "instance_type": "x",
            "code_configuration": {"code": "src", "scoring_script": "score.py"},
            "environment": {"image": "x", "conda_file": "conda.yml"}});
        assert_eq!(
            forms_at(
                "managedOnlineDeployment",
                dep.clone(),
                "/code_configuration/scoring_script"
            ),
            ["local-path"]
        );
        assert_eq!(
            forms_at("managedOnlineDeployment", dep, "/environment/conda_file"),
            ["local-path"]
        );
        let pipe = json!({"type": "pipeline", "jobs": {"a": {"type": "command", "component": "./c.yml"}}});
        assert!(forms_at("pipelineJob", pipe, "/jobs/a/component").contains(&"file-ref".to_string()));
        // A binding expression is not a reference.
        let pipe = json!({"type": "pipeline", "jobs": {"a": {"type": "command", "component": "./c.yml",
            "inputs": {"x": {"type": "uri_folder", "path": "${{parent.inputs.d}}"}}}}});
        assert!(forms_at("pipelineJob", pipe, "/jobs/a/inputs/x/path").is_empty());
    }

    fn unused(kind: &str, doc: Value) -> Vec<(String, bool)> {
        annotate(super::super::store(), kind, &doc)
            .unused
            .into_iter()
            .map(|u| (u.pointer.to_string(), matches!(u.why, Unused::ReadOnly { .. })))
            .collect()
    }

    #[test]
    fn finds_unused_keys() {
        // Output-only keys of an entity, at any depth; `$schema` is found too (the check
        // skips it).
        let compute = json!({"$schema": "x", "name": "c", "type": "amlcompute", "id": "/x",
            "size": "Standard_DS3_v2", "provisioning_state": "Succeeded"});
        assert_eq!(
            unused("amlCompute", compute),
            [
                ("/$schema".into(), true),
                ("/id".into(), true),
                ("/provisioning_state".into(), true)
            ]
        );
        // An inline environment drops its name; a registered one keeps it.
        let job = json!({"command": "x", "environment": {"name": "e", "image": "i"}});
        assert_eq!(unused("commandJob", job), [("/environment/name".into(), true)]);
        assert!(unused("environment", json!({"name": "e", "version": "1", "image": "i"})).is_empty());
        // v1: the discriminated branch decides (computeType in any case) ...
        let aci = json!({"computeType": "aci", "autoScaler": {}, "dnsNameLabel": "x"});
        assert_eq!(
            unused("v1.deploymentConfig", aci),
            [("/autoScaler".into(), false)]
        );
        let aks = json!({"computeType": "AKS", "autoScaler": {}, "dnsNameLabel": "x"});
        assert_eq!(
            unused("v1.deploymentConfig", aks),
            [("/dnsNameLabel".into(), false)]
        );
        // `null` is "not set" to SDK v1: an ignored key that is not set loses nothing.
        let aks = json!({"computeType": "AKS", "dnsNameLabel": null, "autoScalar": {}, "x": null});
        assert_eq!(
            unused("v1.deploymentConfig", aks),
            [("/autoScalar".into(), false)]
        );
        // A condaFile beside an environment is not unused: SDK v1 refuses it (AML103, the
        // `not` of the schema's `then`), so no "ignored" warning joins that error.
        let ic = json!({"entryScript": "s.py", "condaFile": "c.yml"});
        assert!(unused("v1.inferenceConfig", ic.clone()).is_empty());
        let mut with_env = ic;
        with_env["environment"] = json!({"name": "e"});
        assert!(unused("v1.inferenceConfig", with_env).is_empty());
    }

    #[test]
    fn simple_conditions() {
        assert_eq!(holds(&json!({"required": ["a"]}), &json!({"a": 1})), Some(true));
        assert_eq!(holds(&json!({"required": ["a"]}), &json!({"b": 1})), Some(false));
        assert_eq!(holds(&json!({"pattern": "x"}), &json!("x")), None);
    }
}
