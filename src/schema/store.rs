//! The embedded kind schemas — preprocessed and bundled with the shared definitions they
//! use at build time (`build.rs`, `super::preprocess`) — each parsed on first use, and
//! their validators, compiled lazily and shared by every thread for the rest of the
//! process.
//!
//! **Lazy compilation.** The `jsonschema` crate compiles a `$ref` target afresh at every
//! place that refers to it, and eagerly: a pipeline job's schema reaches every node type
//! (command, sweep, AutoML with its search spaces, ...), so compiling it took ~50 ms even
//! when a file has only command steps. So every local `"$ref": "#/$defs/X"` of a kind's
//! schema is replaced by the custom keyword `"x-amlint-lazy": "X"` (same place, so every
//! other keyword keeps its location) when the schema is embedded
//! ([`super::preprocess::make_lazy`], called by `build.rs`).
//! `X` gets its own validator, compiled the first time an instance reaches it, once per
//! process; a union branch whose inline discriminator (`properties.type`...) rejects the
//! instance never compiles its target. A failing lazy reference yields one marker error
//! (message: the definition's name) that [`super::select`] expands by running `X`'s
//! validator on the same instance. Unions are moved into definitions of their own the
//! same way ([`super::preprocess::hoist_unions`]): the crate collects every error of a
//! document before the first is read, a union's for every branch with a copy of the
//! instance, which a lazy reference reduces to one marker per failing instance. The validators and every schema walk (`select`,
//! `forms`, `describe`) share that one document (one copy in memory: a kind's parsed
//! schema is up to 2 MB); the walks follow `x-amlint-lazy` like a `$ref`
//! ([`Store::follow`]).

use foldhash::HashMap;
use std::borrow::Cow;
use std::sync::{Arc, LazyLock, OnceLock};

use jsonschema::{Draft, Keyword, PatternOptions, Registry, ValidationError, Validator};
use serde_json::{Map, Value};

use super::coerce::{Coercion, Normalize, coerce};
pub use super::preprocess::is_shared_doc;

/// Where every embedded schema document lives, by its `$id`.
const ID_BASE: &str = super::preprocess::EMBEDDED_ID_BASE;

pub struct Store {
    /// `<kind>.schema.json` by kind id: the bundled text, parsed on first use.
    kinds: HashMap<&'static str, KindSchema>,
}

struct KindSchema {
    text: &'static str,
    /// The document's `$id` (`json-schema:///<kind>.schema.json`).
    id: String,
    doc: OnceLock<Option<Arc<Value>>>,
    /// The compile copy of the schema and one validator slot per definition.
    lazy: OnceLock<Option<Lazy>>,
    validator: OnceLock<Option<Validator>>,
}

/// What a kind's validators are compiled from: the schema with lazy references (held by a
/// registry, so that `{"$ref": "<$id>#/$defs/X"}` compiles `X` alone) and a validator slot
/// per definition.
struct Lazy {
    id: String,
    registry: Registry<'static>,
    defs: HashMap<String, OnceLock<Option<Validator>>>,
}

pub use super::preprocess::LAZY_KEYWORD;

static STORE: LazyLock<Store> = LazyLock::new(Store::load);

/// The process-wide schema store.
pub fn store() -> &'static Store {
    &STORE
}

impl Store {
    fn load() -> Self {
        let kinds = crate::embedded::KIND_SCHEMAS
            .iter()
            .chain(crate::embedded::SHARED_SCHEMAS)
            .map(|&(kind, text)| {
                let k = KindSchema {
                    text,
                    id: format!("{ID_BASE}{kind}.schema.json"),
                    doc: OnceLock::new(),
                    lazy: OnceLock::new(),
                    validator: OnceLock::new(),
                };
                (kind, k)
            })
            .collect();
        Store { kinds }
    }

    /// Whether amlint has a schema for this kind.
    pub fn has_kind(&self, kind: &str) -> bool {
        !is_shared_doc(kind) && self.kinds.contains_key(kind)
    }

    /// Every kind with a schema.
    pub fn kind_ids(&self) -> impl Iterator<Item = &str> {
        self.kinds.keys().copied().filter(|k| !is_shared_doc(k))
    }

    /// Every schema document: the kinds' and those of the definitions they share.
    pub fn doc_ids(&self) -> impl Iterator<Item = &str> {
        self.kinds.keys().copied()
    }

    /// The (preprocessed, bundled) schema document of a kind, in its compile form: every
    /// local `$ref` to a definition is `x-amlint-lazy` (see the module's documentation);
    /// [`Store::follow`] follows either.
    pub fn kind_doc(&self, kind: &str) -> Option<&Arc<Value>> {
        let k = self.kinds.get(kind)?;
        k.doc
            .get_or_init(|| match serde_json::from_str::<Value>(k.text) {
                Ok(doc) => Some(Arc::new(doc)),
                Err(e) => {
                    eprintln!("amlint: internal error in schemas/{kind}.schema.json: {e}");
                    None
                }
            })
            .as_ref()
    }

    /// The validator of a kind (compiled on first use; the definitions it reaches are
    /// compiled when an instance first reaches them).
    pub fn validator(&'static self, kind: &str) -> Option<&'static Validator> {
        let k = self.kinds.get(kind)?;
        k.validator
            .get_or_init(|| compile(kind, self.lazy(kind)?, ""))
            .as_ref()
    }

    /// The validator of one definition of a kind's schema (`$defs/<name>`), compiled on
    /// first use.
    pub fn def_validator(&'static self, kind: &str, name: &str) -> Option<&'static Validator> {
        let lazy = self.lazy(kind)?;
        def_validator(kind, lazy, name)
    }

    /// Compiles every definition of a kind now (the test suite proves they all compile).
    pub fn compile_all(&'static self, kind: &str) -> bool {
        let Some(lazy) = self.lazy(kind) else {
            return false;
        };
        self.validator(kind).is_some()
            && lazy
                .defs
                .keys()
                .all(|name| def_validator(kind, lazy, name).is_some())
    }

    /// What a kind's validators compile from, made on first use: its schema document
    /// (shared, not copied) in a registry, and a validator slot per definition.
    fn lazy(&'static self, kind: &str) -> Option<&'static Lazy> {
        let k = self.kinds.get(kind)?;
        k.lazy
            .get_or_init(|| {
                let doc = self.kind_doc(kind)?;
                let id = doc.get("$id").and_then(Value::as_str)?.to_string();
                let defs: HashMap<String, OnceLock<Option<Validator>>> = doc
                    .get("$defs")
                    .and_then(Value::as_object)
                    .map(|d| d.keys().map(|n| (n.clone(), OnceLock::new())).collect())
                    .unwrap_or_default();
                match Registry::new()
                    .add(&id, Arc::clone(doc))
                    .and_then(|b| b.prepare())
                {
                    Ok(registry) => Some(Lazy { id, registry, defs }),
                    Err(e) => {
                        eprintln!("amlint: internal error in the {kind} schema: {e}");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// The `$id` of a schema document (a kind's or shared definitions'), by its id.
    pub fn doc_id(&self, doc: &str) -> Option<&str> {
        self.kinds.get(doc).map(|k| k.id.as_str())
    }

    /// A kind's schema by `$id` (every reference is local to its kind's bundle).
    pub fn doc(&self, uri: &str) -> Option<&Value> {
        let kind = uri.strip_prefix(ID_BASE)?.strip_suffix(".schema.json")?;
        self.kind_doc(kind).map(|d| &**d)
    }

    /// Follows the reference of the schema object `m` of the document `base`, if it has
    /// one: an `x-amlint-lazy` (a definition of the same document) or a `$ref`. Returns the
    /// target schema and the `$id` of the document that holds it.
    pub fn follow<'a>(&'a self, m: &Map<String, Value>, base: &'a str) -> Option<(&'a Value, Cow<'a, str>)> {
        self.follow_to(m.get(LAZY_KEYWORD), m.get("$ref"), base)
    }

    /// [`Store::follow`] given the schema object's `x-amlint-lazy` and `$ref` values.
    pub fn follow_to<'a>(
        &'a self,
        lazy: Option<&Value>,
        reference: Option<&Value>,
        base: &'a str,
    ) -> Option<(&'a Value, Cow<'a, str>)> {
        match (lazy, reference) {
            (Some(Value::String(target)), _) => match target.split_once('#') {
                // In another document (the shared definitions).
                Some((doc, name)) => {
                    let target = self.kind_doc(doc)?.get("$defs")?.get(name)?;
                    Some((target, Cow::Borrowed(self.doc_id(doc)?)))
                }
                None => {
                    let target = self.doc(base)?.get("$defs")?.get(target)?;
                    Some((target, Cow::Borrowed(base)))
                }
            },
            (_, Some(Value::String(r))) => self.resolve(r, base).map(|(t, uri)| (t, Cow::Owned(uri))),
            _ => None,
        }
    }

    /// Resolves a `$ref` found in the document `base`: returns the target schema and the
    /// `$id` of the document that holds it. Never leaves the embedded files.
    pub fn resolve<'a>(&'a self, reference: &str, base: &str) -> Option<(&'a Value, String)> {
        let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let uri = if file.is_empty() {
            base.to_string()
        } else if file.starts_with(ID_BASE) {
            file.to_string()
        } else {
            join(base, file)?
        };
        let doc = self.doc(&uri)?;
        let target = if fragment.is_empty() {
            doc
        } else {
            doc.pointer(&percent_decode(fragment))?
        };
        Some((target, uri))
    }
}

/// `json-schema:///a/b.json` + `../c.json` → `json-schema:///c.json`.
fn join(base: &str, relative: &str) -> Option<String> {
    let rest = base.strip_prefix(ID_BASE)?;
    let mut parts: Vec<&str> = rest.split('/').collect();
    parts.pop();
    for seg in relative.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(format!("{ID_BASE}{}", parts.join("/")))
}

/// Decodes `%XX` escapes of a URI fragment (`%24defs` → `$defs`).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Compiles the part of a kind's schema at `fragment` (`""`: the whole schema,
/// `/$defs/X`: one definition).
fn compile(kind: &str, lazy: &'static Lazy, fragment: &str) -> Option<Validator> {
    let root = serde_json::json!({ "$ref": format!("{}#{fragment}", lazy.id) });
    match options(kind, lazy).with_registry(&lazy.registry).build(&root) {
        Ok(v) => Some(v),
        Err(e) => {
            eprintln!("amlint: internal error compiling the {kind} schema at #{fragment}: {e}");
            None
        }
    }
}

fn def_validator(kind: &str, lazy: &'static Lazy, name: &str) -> Option<&'static Validator> {
    slot_validator(kind, lazy, name, lazy.defs.get(name)?)
}

/// The validator in `slot`, the slot of definition `name`, compiled on first use.
fn slot_validator(
    kind: &str,
    lazy: &'static Lazy,
    name: &str,
    slot: &'static OnceLock<Option<Validator>>,
) -> Option<&'static Validator> {
    slot.get_or_init(|| compile(kind, lazy, &format!("/$defs/{name}")))
        .as_ref()
}

fn options(kind: &str, lazy: &'static Lazy) -> jsonschema::ValidationOptions<'static> {
    let kind = kind.to_string();
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_pattern_options(PatternOptions::regex())
        .should_validate_formats(false)
        .with_keyword("x-amlint-type", type_keyword)
        .with_keyword("x-amlint-bounds", bounds_keyword)
        .with_keyword("x-amlint-enum", enum_keyword)
        .with_keyword("pattern", pattern_keyword)
        .with_keyword(
            LAZY_KEYWORD,
            move |parent: &Map<String, Value>, value: &Value, _| lazy_keyword(&kind, lazy, parent, value),
        )
}

// ----------------------------------------------------------------- custom keywords
//
// Their error messages are placeholders: findings are worded from the schema by
// `super::select`, which reads the keyword's value at the error's keyword location.

/// A custom keyword's `validate`: its `is_valid`, with `message` when it fails.
fn verdict<'i>(valid: bool, message: impl FnOnce() -> String) -> Result<(), ValidationError<'i>> {
    if valid {
        Ok(())
    } else {
        Err(ValidationError::custom(message()))
    }
}

/// `pattern`, with every regular expression compiled once per process. The crate caches
/// patterns within one compilation only, and every definition is compiled on its own
/// (lazily): the data-binding pattern alone appears 716 times in the pipeline job's
/// schema. Translation (ECMA-262 to Rust syntax) and matching are the crate's own
/// (`jsonschema_regex::to_rust_regex`, `regex` search, unanchored as JSON Schema says).
/// The error's message is the pattern, which `super::select` reports.
struct PatternKeyword {
    pattern: Arc<str>,
    regex: Arc<regex::Regex>,
}

impl<'i> Keyword<'i> for PatternKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        verdict(self.is_valid(instance), || self.pattern.to_string())
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match instance {
            Value::String(s) => self.regex.is_match(s),
            _ => true,
        }
    }
}

type PatternCache = std::sync::Mutex<HashMap<String, (Arc<str>, Arc<regex::Regex>)>>;

static PATTERNS: LazyLock<PatternCache> = LazyLock::new(Default::default);

fn pattern_keyword<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _location: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let text = value
        .as_str()
        .ok_or_else(|| ValidationError::schema(format!("pattern {value} is not a string")))?;
    let mut cache = PATTERNS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (pattern, regex) = match cache.get(text) {
        Some(hit) => hit.clone(),
        None => {
            let regex = jsonschema_regex::to_rust_regex(text)
                .ok()
                .and_then(|rust| regex::Regex::new(&rust).ok())
                .ok_or_else(|| {
                    ValidationError::schema(format!("pattern `{text}` is not a valid regular expression"))
                })?;
            let entry = (Arc::from(text), Arc::new(regex));
            cache.insert(text.to_string(), entry.clone());
            entry
        }
    };
    Ok(Box::new(PatternKeyword { pattern, regex }))
}

struct TypeKeyword(Coercion);

impl<'i> Keyword<'i> for TypeKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        verdict(self.is_valid(instance), || {
            format!("not a valid {}", self.0.name())
        })
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        coerce(self.0, instance).is_some()
    }
}

fn type_keyword<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _location: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let coercion = value
        .as_str()
        .and_then(Coercion::parse)
        .ok_or_else(|| ValidationError::schema(format!("unknown x-amlint-type {value}")))?;
    Ok(Box::new(TypeKeyword(coercion)))
}

/// Numeric bounds on the coerced value; a value that does not coerce is `x-amlint-type`'s
/// business, not this keyword's.
#[derive(Default)]
pub struct Bounds {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
}

impl Bounds {
    pub fn from_schema(value: &Value) -> Self {
        let get = |k: &str| value.get(k).and_then(Value::as_f64);
        Bounds {
            minimum: get("minimum"),
            maximum: get("maximum"),
            exclusive_minimum: get("exclusiveMinimum"),
            exclusive_maximum: get("exclusiveMaximum"),
        }
    }

    pub fn accepts(&self, n: f64) -> bool {
        self.minimum.is_none_or(|m| n >= m)
            && self.maximum.is_none_or(|m| n <= m)
            && self.exclusive_minimum.is_none_or(|m| n > m)
            && self.exclusive_maximum.is_none_or(|m| n < m)
    }
}

struct BoundsKeyword {
    coercion: Coercion,
    bounds: Bounds,
}

impl<'i> Keyword<'i> for BoundsKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        verdict(self.is_valid(instance), || "out of range".to_string())
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match coerce(self.coercion, instance).and_then(|c| c.number()) {
            Some(n) => self.bounds.accepts(n),
            None => true,
        }
    }
}

fn bounds_keyword<'a>(
    parent: &'a Map<String, Value>,
    value: &'a Value,
    _location: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let coercion = parent
        .get("x-amlint-type")
        .and_then(Value::as_str)
        .and_then(Coercion::parse)
        .unwrap_or(Coercion::Number);
    Ok(Box::new(BoundsKeyword {
        coercion,
        bounds: Bounds::from_schema(value),
    }))
}

/// A parsed `x-amlint-enum`.
pub struct EnumSpec {
    pub values: Vec<String>,
    pub normalize: Normalize,
}

impl EnumSpec {
    pub fn from_schema(value: &Value) -> Option<Self> {
        let values = value
            .get("values")?
            .as_array()?
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let normalize = Normalize::parse(value.get("normalize")?.as_str()?)?;
        Some(EnumSpec { values, normalize })
    }

    pub fn accepts(&self, instance: &Value) -> bool {
        enum_accepts(self.normalize, self.values.iter().map(String::as_str), instance)
    }

    /// [`EnumSpec::accepts`] read straight from an `x-amlint-enum` value (`None` when it is
    /// malformed), without collecting its values.
    pub fn schema_accepts(value: &Value, instance: &Value) -> Option<bool> {
        let values = value.get("values")?.as_array()?;
        let normalize = Normalize::parse(value.get("normalize")?.as_str()?)?;
        Some(enum_accepts(
            normalize,
            values.iter().filter_map(Value::as_str),
            instance,
        ))
    }
}

/// Whether `instance` is a string whose normal form is one of `values`.
fn enum_accepts<'v>(
    normalize: Normalize,
    mut values: impl Iterator<Item = &'v str>,
    instance: &Value,
) -> bool {
    match instance {
        Value::String(s) => normalize.apply_cow(s).is_some_and(|n| values.any(|v| v == n)),
        _ => false,
    }
}

struct EnumKeyword(EnumSpec);

impl<'i> Keyword<'i> for EnumKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        verdict(self.is_valid(instance), || "not an allowed value".to_string())
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.0.accepts(instance)
    }
}

fn enum_keyword<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _location: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let spec = EnumSpec::from_schema(value)
        .ok_or_else(|| ValidationError::schema(format!("malformed x-amlint-enum {value}")))?;
    Ok(Box::new(EnumKeyword(spec)))
}

/// A lazy reference to a definition, and the discriminator values of the union branch it
/// stands in (its sibling `properties` with a plain enum or constant): an instance they
/// reject fails the branch anyway, so the target is neither compiled nor run for it.
struct LazyRef {
    kind: String,
    name: String,
    lazy: &'static Lazy,
    /// The definition's validator slot, found once here rather than by name on every
    /// instance validated.
    slot: &'static OnceLock<Option<Validator>>,
    guards: Vec<(String, Guard)>,
}

enum Guard {
    Enum(EnumSpec),
    Const(Value),
}

impl LazyRef {
    fn rejected_by_guard(&self, instance: &Value) -> bool {
        let Value::Object(obj) = instance else {
            return false;
        };
        self.guards
            .iter()
            .any(|(key, guard)| match (obj.get(key), guard) {
                (Some(v), Guard::Enum(spec)) => !spec.accepts(v),
                (Some(v), Guard::Const(c)) => v != c,
                (None, _) => false,
            })
    }

    fn target(&self) -> Option<&'static Validator> {
        slot_validator(&self.kind, self.lazy, &self.name, self.slot)
    }
}

impl<'i> Keyword<'i> for LazyRef {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        // The marker `select` expands: `<document>#<definition>`.
        verdict(self.is_valid(instance), || format!("{}#{}", self.kind, self.name))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.rejected_by_guard(instance) || self.target().is_none_or(|v| v.is_valid(instance))
    }
}

fn lazy_keyword<'a>(
    kind: &str,
    lazy: &'static Lazy,
    parent: &'a Map<String, Value>,
    value: &'a Value,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    // `<name>` in this document, or `<document>#<name>` in another one.
    let target = value.as_str().and_then(|t| match t.split_once('#') {
        Some((doc, name)) => Some((doc, store().lazy(doc)?, name)),
        None => Some((kind, lazy, t)),
    });
    let (kind, lazy, (name, slot)) = target
        .and_then(|(doc, lazy, name)| Some((doc, lazy, lazy.defs.get_key_value(name)?)))
        .ok_or_else(|| ValidationError::schema(format!("unknown {LAZY_KEYWORD} target {value}")))?;
    let plain = |s: &Map<String, Value>| {
        s.keys()
            .all(|k| matches!(k.as_str(), "x-amlint-enum" | "const" | "description" | "title"))
    };
    let guards = parent
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(key, s)| {
            let s = s.as_object().filter(|s| plain(s))?;
            let guard = match (s.get("x-amlint-enum"), s.get("const")) {
                (Some(e), None) => Guard::Enum(EnumSpec::from_schema(e)?),
                // Strings only: JSON Schema's `const` equates 1 and 1.0, `Value` does not.
                (None, Some(c)) if c.is_string() => Guard::Const(c.clone()),
                _ => return None,
            };
            Some((key.clone(), guard))
        })
        .collect();
    Ok(Box::new(LazyRef {
        kind: kind.to_string(),
        name: name.clone(),
        lazy,
        slot,
        guards,
    }))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_compiled_once_and_match_as_json_schema_says() {
        let make =
            |p: &str| pattern_keyword(&Map::new(), &Value::String(p.into()), Default::default()).unwrap();
        let k = make("^a+$");
        assert!(k.is_valid(&serde_json::json!("aaa")));
        assert!(!k.is_valid(&serde_json::json!("ab")));
        assert!(
            k.is_valid(&serde_json::json!(3)),
            "a non-string is not the keyword's business"
        );
        // Unanchored, as JSON Schema's `pattern` is; ECMA-262 classes translated.
        let binding = make(super::super::preprocess::BINDING_PATTERN);
        assert!(binding.is_valid(&serde_json::json!("azureml:${{parent.inputs.x}}")));
        assert!(!binding.is_valid(&serde_json::json!("${{ a b }}")));
        assert!(make(r"^\d+$").is_valid(&serde_json::json!("42")));
        // The error's message is the pattern, which `select` reports.
        let b = serde_json::json!("b");
        let err = k.validate(&b).unwrap_err();
        assert!(
            matches!(err.kind(), jsonschema::error::ValidationErrorKind::Custom { message, .. } if message == "^a+$")
        );
        let before = PATTERNS.lock().unwrap().len();
        make("^a+$");
        assert_eq!(
            PATTERNS.lock().unwrap().len(),
            before,
            "a pattern seen before is not compiled again"
        );
        assert!(pattern_keyword(&Map::new(), &Value::String("(".into()), Default::default()).is_err());
    }

    #[test]
    fn joins_and_decodes() {
        assert_eq!(
            join("json-schema:///x.schema.json", "defs/common.json").as_deref(),
            Some("json-schema:///defs/common.json")
        );
        assert_eq!(
            join("json-schema:///defs/common.json", "../x.schema.json").as_deref(),
            Some("json-schema:///x.schema.json")
        );
        assert_eq!(percent_decode("/%24defs/A"), "/$defs/A");
        assert_eq!(percent_decode("/a%2"), "/a%2");
        assert_eq!(percent_decode("%"), "%");
    }
}
