//! The embedded kind schemas — preprocessed and bundled with the shared definitions they
//! use at build time (`build.rs`, `super::preprocess`) — each parsed on first use, and one
//! compiled validator per kind, built on first use and shared by every thread for the
//! rest of the process.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, OnceLock};

use jsonschema::{Draft, Keyword, PatternOptions, ValidationError, Validator};
use serde_json::{Map, Value};

use super::coerce::{Coercion, Normalize, coerce};

/// Where every schema file lives, by its `$id`.
pub const ID_BASE: &str = "https://schemas.amlint.dev/";

pub struct Store {
    /// `<kind>.schema.json` by kind id: the bundled text, parsed on first use.
    kinds: HashMap<&'static str, Kind>,
}

struct Kind {
    text: &'static str,
    doc: OnceLock<Option<Arc<Value>>>,
    validator: OnceLock<Option<Validator>>,
}

static STORE: LazyLock<Store> = LazyLock::new(Store::load);

/// The process-wide schema store.
pub fn store() -> &'static Store {
    &STORE
}

impl Store {
    fn load() -> Self {
        let kinds = crate::embedded::KIND_SCHEMAS
            .iter()
            .map(|&(kind, text)| {
                let k = Kind {
                    text,
                    doc: OnceLock::new(),
                    validator: OnceLock::new(),
                };
                (kind, k)
            })
            .collect();
        Store { kinds }
    }

    /// Whether amlint has a schema for this kind.
    pub fn has_kind(&self, kind: &str) -> bool {
        self.kinds.contains_key(kind)
    }

    /// Every kind with a schema.
    pub fn kind_ids(&self) -> impl Iterator<Item = &str> {
        self.kinds.keys().copied()
    }

    /// The (preprocessed, bundled) schema document of a kind.
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

    /// The compiled validator of a kind (compiled on first use).
    pub fn validator(&'static self, kind: &str) -> Option<&'static Validator> {
        let k = self.kinds.get(kind)?;
        k.validator
            .get_or_init(|| {
                let doc = self.kind_doc(kind)?;
                match options().build(doc) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        eprintln!("amlint: internal error compiling the {kind} schema: {e}");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// A kind's schema by `$id` (every reference is local to its kind's bundle).
    pub fn doc(&self, uri: &str) -> Option<&Value> {
        let kind = uri.strip_prefix(ID_BASE)?.strip_suffix(".schema.json")?;
        self.kind_doc(kind).map(|d| &**d)
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

    /// The schema object at an absolute keyword location (`<$id>#/json/pointer`).
    pub fn at_location(&self, location: &str) -> Option<(&Value, String)> {
        let (uri, fragment) = location.split_once('#').unwrap_or((location, ""));
        let doc = self.doc(uri)?;
        let node = if fragment.is_empty() {
            doc
        } else {
            doc.pointer(&percent_decode(fragment))?
        };
        Some((node, uri.to_string()))
    }
}

/// `https://schemas.amlint.dev/a/b.json` + `../c.json` → `https://schemas.amlint.dev/c.json`.
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

fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_pattern_options(PatternOptions::regex())
        .should_validate_formats(false)
        .with_keyword("x-amlint-type", type_keyword)
        .with_keyword("x-amlint-bounds", bounds_keyword)
        .with_keyword("x-amlint-enum", enum_keyword)
}

// ----------------------------------------------------------------- custom keywords
//
// Their error messages are placeholders: findings are worded from the schema by
// `super::select`, which reads the keyword's value at the error's keyword location.

struct TypeKeyword(Coercion);

impl<'i> Keyword<'i> for TypeKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom(format!("not a valid {}", self.0.name())))
        }
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
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom("out of range"))
        }
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
        match instance {
            Value::String(s) => self.normalize.apply(s).is_some_and(|n| self.values.contains(&n)),
            _ => false,
        }
    }
}

struct EnumKeyword(EnumSpec);

impl<'i> Keyword<'i> for EnumKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom("not an allowed value"))
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_decodes() {
        assert_eq!(
            join("https://schemas.amlint.dev/x.schema.json", "defs/common.json").as_deref(),
            Some("https://schemas.amlint.dev/defs/common.json")
        );
        assert_eq!(
            join("https://schemas.amlint.dev/defs/common.json", "../x.schema.json").as_deref(),
            Some("https://schemas.amlint.dev/x.schema.json")
        );
        assert_eq!(percent_decode("/%24defs/A"), "/$defs/A");
        assert_eq!(percent_decode("/a%2"), "/a%2");
        assert_eq!(percent_decode("%"), "%");
    }
}
