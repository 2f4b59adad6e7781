//! From the `jsonschema` crate's errors to amlint's [`Issue`]s: one issue per problem,
//! and for a failed union only the errors of the branch the user meant
//! (`x-amlint-discriminator`, else the first branch whose JSON type admits the value; a
//! branch that fails only on misspelt keys over one that misses a required key), exactly
//! as docs/schemas.md specifies. A required key missing because a key of the mapping
//! misspells it is that key's issue, not a second one.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::{LazyLock, Mutex};

use serde_json::{Map, Value};

use super::coerce::{Coercion, Normalize, coerce, is_binding};
use super::store::{Bounds, EnumSpec, LAZY_KEYWORD, Store};
use crate::source::Pointer;

/// One schema problem at one place of the document.
#[derive(Clone, Debug, PartialEq)]
pub struct Issue {
    /// The instance location (for a missing or unknown key: the mapping that holds it).
    pub pointer: Pointer,
    pub kind: IssueKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum IssueKind {
    /// A key the schema does not allow (or a mapping that includes unknown keys takes
    /// unchecked); `allowed` are the keys it does allow. `missing`: the required key this
    /// one is a misspelling of, which is therefore missing (reported here instead of a
    /// [`IssueKind::MissingKey`]: the typo is the cause, the missing key its consequence).
    UnknownKey {
        key: String,
        /// Shared by every unknown key of the mapping.
        allowed: std::sync::Arc<[String]>,
        missing: Option<String>,
    },
    MissingKey {
        key: String,
    },
    /// The value's JSON type is none of `expected` (JSON Schema type names).
    WrongType {
        expected: Vec<String>,
    },
    /// `x-amlint-type`: marshmallow cannot load the value as this type.
    NotCoercible {
        to: Coercion,
    },
    /// Not one of the allowed values (`x-amlint-enum`, `enum`, or a discriminator).
    NotAllowed {
        allowed: Vec<String>,
        normalize: Option<Normalize>,
    },
    NotConst {
        expected: Value,
    },
    /// A string that does not match `pattern`; `forms` is the field's `x-amlint-forms`
    /// (an asset reference field), when it has them.
    Pattern {
        pattern: String,
        forms: Option<Value>,
    },
    /// A mapping key that does not match the `propertyNames` pattern.
    BadKeyName {
        key: String,
        pattern: String,
    },
    /// A numeric bound (`minimum`, `exclusiveMaximum`, ... on the coerced value).
    OutOfRange {
        bounds: Vec<(&'static str, f64)>,
    },
    /// A length or item-count limit.
    Size {
        what: &'static str,
        limit: u64,
    },
    DuplicateItem,
    /// `not`: a combination the SDK refuses (`required` both keys, or `{}`: any value).
    /// `refused`: the `x-amlint-refused` beside the `not`, the SDK's reason in words.
    Forbidden {
        schema: Value,
        refused: Option<SdkRefusal>,
    },
    /// A `false` schema.
    NothingAllowed,
}

/// `x-amlint-refused: {"message", "help"}` beside a `not` (docs/schemas.md): what to say
/// when the SDK refuses the value, after the key's name, and what to do.
#[derive(Clone, Debug, PartialEq)]
pub struct SdkRefusal {
    pub message: String,
    pub help: String,
}

impl SdkRefusal {
    fn from_schema(v: &Value) -> Option<Self> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(Self {
            message: text("message")?,
            help: text("help")?,
        })
    }
}

/// Most issues collected from one document: the findings a file keeps
/// ([`crate::limits::Limits::findings_kept`] by default). A document with more (a list of
/// a million wrongly typed items) stops being validated there, so time and memory stay
/// bounded by this rather than by the document.
pub const MAX_ISSUES: usize = 10_000;

/// Validates `instance` with `validator`, compiled from the schema document `doc` (a
/// kind), and returns its issues, in document order of discovery (at most
/// [`MAX_ISSUES`]).
pub fn validate(store: &'static Store, doc: &str, validator: &Validator, instance: &Value) -> Vec<Issue> {
    let mut out = Vec::new();
    let root = Pointer::root();
    for error in validator.iter_errors(instance) {
        if out.len() >= MAX_ISSUES {
            break;
        }
        collect(store, doc, &error, &root, &mut out, 0);
    }
    dedupe(out)
}

/// Where an error is: `prefix` (where the validator that raised it was applied) + its
/// instance path.
fn pointer_of(prefix: &Pointer, error: &ValidationError<'_>) -> Pointer {
    let mut pointer = prefix.clone();
    for seg in error.instance_path().iter() {
        match seg {
            LocationSegment::Property(p) => pointer.push(&p),
            LocationSegment::Index(i) => pointer.push(i.to_string()),
        }
    }
    pointer
}

/// A failed lazy reference (`store::LAZY_KEYWORD`, its marker `<document>#<definition>`):
/// the errors of its target definition, validated on the same instance, below the same
/// place.
fn expand_lazy(
    store: &'static Store,
    error: &ValidationError<'_>,
    marker: &str,
    pointer: &Pointer,
    out: &mut Vec<Issue>,
    depth: usize,
) {
    let Some(validator) = marker
        .split_once('#')
        .and_then(|(doc, name)| store.def_validator(doc, name))
    else {
        return;
    };
    let Some((doc, _)) = marker.split_once('#') else {
        return;
    };
    let instance: &Value = error.instance();
    for e in validator.iter_errors(instance) {
        collect(store, doc, &e, pointer, out, depth + 1);
    }
}

/// The schema object that holds the failing keyword, and the `$id` of its document.
/// `doc` is the document the error's validator was compiled from: a validator never
/// leaves its document (references to other documents are lazy, validated by their own
/// validators), and the error's schema path is its keyword's place in that document.
fn keyword_parent<'s>(
    store: &'s Store,
    doc: &str,
    error: &ValidationError<'_>,
) -> Option<(&'s Value, &'s str)> {
    let path = error.schema_path().as_str();
    let parent = &path[..path.rfind('/').unwrap_or(0)];
    let node = store.kind_doc(doc)?.pointer(parent)?;
    Some((node, store.doc_id(doc)?))
}

const MAX_DEPTH: usize = 64;

/// The issues of one validation error, below `prefix`: a union's branches, a lazy
/// reference's target and the unknown keys each expand; every other error is one issue.
fn collect(
    store: &'static Store,
    doc: &str,
    error: &ValidationError<'_>,
    prefix: &Pointer,
    out: &mut Vec<Issue>,
    depth: usize,
) {
    if depth > MAX_DEPTH || out.len() >= MAX_ISSUES {
        return;
    }
    let pointer = pointer_of(prefix, error);
    match error.kind() {
        ValidationErrorKind::AnyOf { context }
        | ValidationErrorKind::OneOfNotValid { context }
        | ValidationErrorKind::OneOfMultipleValid { context } => {
            union(store, doc, error, context, prefix, out, depth);
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let allowed: std::sync::Arc<[String]> = keyword_parent(store, doc, error)
                .and_then(|(s, _)| s.get("properties").and_then(Value::as_object).cloned())
                .map(|props| {
                    props
                        .iter()
                        .filter(|(_, v)| v.get("x-amlint-read-only") != Some(&Value::Bool(true)))
                        .map(|(k, _)| k.clone())
                        .collect()
                })
                .unwrap_or_default();
            for key in unexpected.iter().take(MAX_ISSUES.saturating_sub(out.len())) {
                out.push(Issue {
                    pointer: pointer.clone(),
                    kind: IssueKind::UnknownKey {
                        key: key.clone(),
                        allowed: allowed.clone(),
                        missing: None,
                    },
                });
            }
        }
        ValidationErrorKind::Custom { keyword, message } if keyword == LAZY_KEYWORD => {
            expand_lazy(store, error, message, &pointer, out, depth);
        }
        ValidationErrorKind::UniqueItems => {
            // Point at the repeated item itself.
            let items = error.instance().as_array().cloned().unwrap_or_default();
            let repeated = (1..items.len()).find(|&i| items[..i].contains(&items[i]));
            out.push(Issue {
                pointer: match repeated {
                    Some(i) => pointer.child(i.to_string()),
                    None => pointer.clone(),
                },
                kind: IssueKind::DuplicateItem,
            });
        }
        _ => {
            if let Some(kind) = issue_kind(store, doc, error) {
                out.push(Issue { pointer, kind });
            }
        }
    }
}

/// The one issue of an error that is about the value where it failed; `None` for
/// keywords the schemas do not use (formats are not asserted; no HTTP refs).
fn issue_kind(store: &'static Store, doc: &str, error: &ValidationError<'_>) -> Option<IssueKind> {
    let kind = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let key = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string);
            match misspelt_as(store, doc, error, &key) {
                Some((typo, allowed)) => IssueKind::UnknownKey {
                    key: typo,
                    allowed: allowed.into(),
                    missing: Some(key),
                },
                None => IssueKind::MissingKey { key },
            }
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => vec![t.to_string()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
            };
            IssueKind::WrongType { expected }
        }
        ValidationErrorKind::Custom { keyword, message } => custom_issue(store, doc, error, keyword, message),
        ValidationErrorKind::Enum { options } => IssueKind::NotAllowed {
            allowed: options
                .as_array()
                .map(|a| a.iter().map(value_text).collect())
                .unwrap_or_default(),
            normalize: None,
        },
        ValidationErrorKind::Constant { expected_value } => IssueKind::NotConst {
            expected: (**expected_value).clone(),
        },
        ValidationErrorKind::PropertyNames { error: inner } => {
            let key = inner.instance().as_str().unwrap_or_default().to_string();
            let pattern = match inner.kind() {
                ValidationErrorKind::Custom { keyword, message } if keyword == "pattern" => message.clone(),
                _ => String::new(),
            };
            IssueKind::BadKeyName { key, pattern }
        }
        ValidationErrorKind::Not { schema } => IssueKind::Forbidden {
            schema: schema.clone(),
            refused: keyword_parent(store, doc, error)
                .and_then(|(s, _)| s.get("x-amlint-refused"))
                .and_then(SdkRefusal::from_schema),
        },
        ValidationErrorKind::FalseSchema => IssueKind::NothingAllowed,
        other => return limit_issue(other),
    };
    Some(kind)
}

/// A bound the value is beyond: a number's, a string's length, an array's size.
fn limit_issue(kind: &ValidationErrorKind) -> Option<IssueKind> {
    let range = |name: &'static str, limit: &Value| IssueKind::OutOfRange {
        bounds: vec![(name, num(limit))],
    };
    let size = |what: &'static str, limit: &u64| IssueKind::Size { what, limit: *limit };
    Some(match kind {
        ValidationErrorKind::Minimum { limit } => range("minimum", limit),
        ValidationErrorKind::Maximum { limit } => range("maximum", limit),
        ValidationErrorKind::ExclusiveMinimum { limit } => range("exclusiveMinimum", limit),
        ValidationErrorKind::ExclusiveMaximum { limit } => range("exclusiveMaximum", limit),
        ValidationErrorKind::MinLength { limit } => size("minLength", limit),
        ValidationErrorKind::MaxLength { limit } => size("maxLength", limit),
        ValidationErrorKind::MinItems { limit } => size("minItems", limit),
        ValidationErrorKind::MaxItems { limit } => size("maxItems", limit),
        _ => return None,
    })
}

/// The issue of one of amlint's own keywords: `pattern` (compiled once per process by
/// `store`; its message is the pattern), `x-amlint-type`, `x-amlint-bounds`, and
/// `x-amlint-enum` for the others.
fn custom_issue(
    store: &'static Store,
    doc: &str,
    error: &ValidationError<'_>,
    keyword: &str,
    message: &str,
) -> IssueKind {
    let parent = keyword_parent(store, doc, error).map(|(s, _)| s);
    match keyword {
        "pattern" => IssueKind::Pattern {
            pattern: message.to_string(),
            forms: parent.and_then(|s| s.get("x-amlint-forms").cloned()),
        },
        "x-amlint-type" => IssueKind::NotCoercible {
            to: parent
                .and_then(|s| s.get("x-amlint-type"))
                .and_then(Value::as_str)
                .and_then(Coercion::parse)
                .unwrap_or(Coercion::Number),
        },
        "x-amlint-bounds" => {
            let bounds = parent
                .and_then(|s| s.get("x-amlint-bounds"))
                .map(Bounds::from_schema)
                .unwrap_or_default();
            IssueKind::OutOfRange {
                bounds: bounds_list(&bounds),
            }
        }
        _ => {
            let spec = parent
                .and_then(|s| s.get("x-amlint-enum"))
                .and_then(EnumSpec::from_schema);
            IssueKind::NotAllowed {
                normalize: spec.as_ref().map(|s| s.normalize),
                allowed: spec.map(|s| s.values).unwrap_or_default(),
            }
        }
    }
}

/// A required key that is missing because it is misspelt: the key of the instance (a
/// mapping) that the schema does not know and whose closest known key is the missing one,
/// with the keys the schema knows. `comand:` in a command job is the typo to report, not
/// "missing `command`" beside it. Also where the mapping takes unknown keys unchecked (a
/// component's top level, a pipeline step), since the missing key is why the CLI rejects
/// the file.
fn misspelt_as(
    store: &Store,
    doc: &str,
    error: &ValidationError<'_>,
    missing: &str,
) -> Option<(String, Vec<String>)> {
    let obj = error.instance().as_object()?;
    let (schema, _) = keyword_parent(store, doc, error)?;
    let mut known: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .filter(|(_, v)| v.get("x-amlint-read-only") != Some(&Value::Bool(true)))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    if !known.iter().any(|k| k == missing) {
        known.push(missing.to_string());
    }
    let typo = obj.keys().find(|k| {
        !known.contains(*k) && crate::suggest::closest(k, known.iter()).is_some_and(|c| c == missing)
    })?;
    Some((typo.clone(), known))
}

/// Whether every issue is a misspelt key with a suggestion: a branch whose only problems are
/// typos is the one the user meant.
fn only_typos(issues: &[Issue]) -> bool {
    !issues.is_empty()
        && issues.iter().all(|i| match &i.kind {
            IssueKind::UnknownKey { key, allowed, .. } => {
                crate::suggest::closest(key, allowed.iter()).is_some()
            }
            _ => false,
        })
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn bounds_list(b: &Bounds) -> Vec<(&'static str, f64)> {
    let mut out = Vec::new();
    if let Some(m) = b.minimum {
        out.push(("minimum", m));
    }
    if let Some(m) = b.exclusive_minimum {
        out.push(("exclusiveMinimum", m));
    }
    if let Some(m) = b.maximum {
        out.push(("maximum", m));
    }
    if let Some(m) = b.exclusive_maximum {
        out.push(("exclusiveMaximum", m));
    }
    out
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What is wrong with the discriminator `key` of a union's instance `obj`: missing (or
/// misspelt: `tpye:` is the key to point at), or a value no branch takes.
fn discriminator_issue(
    key: &str,
    kind: IssueKind,
    obj: &serde_json::Map<String, Value>,
    pointer: &Pointer,
) -> Issue {
    match kind {
        IssueKind::MissingKey { key: missing } => {
            let typo = crate::suggest::closest(&missing, obj.keys()).map(str::to_string);
            let kind = match typo {
                Some(typo) => IssueKind::UnknownKey {
                    key: typo,
                    allowed: vec![missing.clone()].into(),
                    missing: Some(missing),
                },
                None => IssueKind::MissingKey { key: missing },
            };
            Issue {
                pointer: pointer.clone(),
                kind,
            }
        }
        kind => Issue {
            pointer: pointer.child(key),
            kind,
        },
    }
}

/// A failed `anyOf`: report the errors of the branch the user meant, or one issue when
/// no branch can be meant.
fn union(
    store: &'static Store,
    doc: &str,
    error: &ValidationError<'_>,
    context: &[Vec<ValidationError<'static>>],
    prefix: &Pointer,
    out: &mut Vec<Issue>,
    depth: usize,
) {
    let pointer = &pointer_of(prefix, error);
    let instance = error.instance();
    let Some((schema, base)) = keyword_parent(store, doc, error) else {
        // Without the schema, fall back to the branch with the fewest errors.
        if let Some(best) = context.iter().min_by_key(|b| b.len()) {
            for e in best {
                collect(store, doc, e, prefix, out, depth + 1);
            }
        }
        return;
    };
    let branches: &'static [Value] = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);

    let chosen = match (
        schema.get("x-amlint-discriminator").and_then(Value::as_str),
        &**instance,
    ) {
        (Some(key), Value::Object(obj)) => match discriminate(key, branches, obj) {
            Ok(i) => i,
            Err(kind) => {
                if matches!(kind, IssueKind::MissingKey { .. }) {
                    fixed_value_issues(store, branches, base, obj, key, pointer, out);
                }
                out.push(discriminator_issue(key, kind, obj, pointer));
                return;
            }
        },
        _ => {
            let admitted: Vec<usize> = (0..branches.len())
                .filter(|&i| admits(store, &branches[i], base, instance, 0))
                .collect();
            // Several string branches fail (`serverless` or `azureml:<name>`): the asset
            // reference is what the user meant, and its finding says how to write one.
            let preferred = admitted
                .iter()
                .copied()
                .find(|&i| instance.is_string() && has_asset_forms(store, &branches[i], base, 0))
                .or_else(|| admitted.first().copied());
            match preferred {
                Some(i) => i,
                None => {
                    let mut expected = Vec::new();
                    for b in branches {
                        branch_types(store, b, base, &mut expected, 0);
                    }
                    out.push(Issue {
                        pointer: pointer.clone(),
                        kind: IssueKind::WrongType { expected },
                    });
                    return;
                }
            }
        }
    };
    let branch_issues = |i: usize| {
        let mut issues = Vec::new();
        for e in context.get(i).map_or(&[][..], Vec::as_slice) {
            collect(store, doc, e, prefix, &mut issues, depth + 1);
        }
        issues
    };
    let issues = branch_issues(chosen);
    // The meant branch misses a required key, and another candidate fails only on
    // misspelt keys (`comand:` in a pipeline step: the component-reference branch misses
    // `component`, the inline-command branch only has the typo): the typo is what to fix.
    if issues
        .iter()
        .any(|i| matches!(i.kind, IssueKind::MissingKey { .. }))
    {
        let others = candidates(store, schema, branches, base, instance);
        for i in others.into_iter().filter(|&i| i != chosen) {
            let alternative = branch_issues(i);
            if only_typos(&alternative) {
                out.extend(alternative);
                return;
            }
        }
    }
    out.extend(issues);
}

/// The branches of a union that could be meant for `instance`: those its discriminator
/// value selects (or that do not require the discriminator it lacks), else those whose
/// JSON type admits it.
fn candidates(
    store: &'static Store,
    schema: &Value,
    branches: &'static [Value],
    base: &'static str,
    instance: &Value,
) -> Vec<usize> {
    match (
        schema.get("x-amlint-discriminator").and_then(Value::as_str),
        instance,
    ) {
        (Some(key), Value::Object(obj)) => (0..branches.len())
            .filter(|&i| {
                let b = &branches[i];
                let inline = b.get("properties").and_then(|p| p.get(key));
                match obj.get(key) {
                    Some(value) => match inline {
                        Some(Value::Bool(false)) => false,
                        None => true,
                        Some(c) => accepts_simple(c, value),
                    },
                    None => !b
                        .get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|k| k == key)),
                }
            })
            .collect(),
        _ => (0..branches.len())
            .filter(|&i| admits(store, &branches[i], base, instance, 0))
            .collect(),
    }
}

/// The first branch the discriminator selects, or the single issue to report.
pub(super) fn discriminate<'a>(
    key: &str,
    branches: &'a [Value],
    obj: &serde_json::Map<String, Value>,
) -> Result<usize, IssueKind> {
    let inline = |b: &'a Value| b.get("properties").and_then(|p| p.get(key));
    match obj.get(key) {
        Some(value) => {
            for (i, b) in branches.iter().enumerate() {
                match inline(b) {
                    Some(Value::Bool(false)) => {}
                    None => return Ok(i),
                    Some(c) if accepts_simple(c, value) => return Ok(i),
                    Some(_) => {}
                }
            }
            Err(not_allowed(branches.iter().filter_map(inline)))
        }
        None => branches
            .iter()
            .position(|b| {
                !b.get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|k| k == key))
            })
            .ok_or_else(|| IssueKind::MissingKey { key: key.to_string() }),
    }
}

/// When no branch can be chosen because the discriminator is missing, the keys that
/// every branch holds to fixed values (a `const`, `enum` or `x-amlint-enum`, inline or in
/// the branch's referenced definition) and whose value none of them accepts: an AutoML
/// job with `type: automl_job` and no `task` is refused by the SDK for its type
/// ("Unsupported job type") before the task is looked at, so the type is reported too.
fn fixed_value_issues(
    store: &'static Store,
    branches: &'static [Value],
    base: &'static str,
    obj: &serde_json::Map<String, Value>,
    discriminator: &str,
    pointer: &Pointer,
    out: &mut Vec<Issue>,
) {
    if branches.is_empty() {
        return;
    }
    // The schema of `key` in a branch: inline, else in the definition it refers to.
    let property = |b: &'static Value, key: &str| -> Option<&'static Value> {
        b.get("properties").and_then(|p| p.get(key)).or_else(|| {
            let (target, _) = store.follow(b.as_object()?, base)?;
            target.get("properties")?.get(key)
        })
    };
    let fixed = |c: &Value| !fixed_values(c).0.is_empty();
    for (key, value) in obj {
        if key == discriminator {
            continue;
        }
        let Some(schemas) = branches
            .iter()
            .map(|b| property(b, key).filter(|c| fixed(c)))
            .collect::<Option<Vec<&Value>>>()
        else {
            continue;
        };
        if schemas.iter().any(|c| accepts_simple(c, value)) {
            continue;
        }
        out.push(Issue {
            pointer: pointer.child(key),
            kind: not_allowed(schemas.into_iter()),
        });
    }
}

/// The values a schema holds a value to (`x-amlint-enum`, else `const`, else `enum`), and
/// how an `x-amlint-enum` compares them. No values: the schema fixes none.
fn fixed_values(c: &Value) -> (Vec<String>, Option<Normalize>) {
    if let Some(spec) = c.get("x-amlint-enum").and_then(EnumSpec::from_schema) {
        (spec.values, Some(spec.normalize))
    } else if let Some(v) = c.get("const") {
        (vec![value_text(v)], None)
    } else if let Some(Value::Array(e)) = c.get("enum") {
        (e.iter().map(value_text).collect(), None)
    } else {
        (Vec::new(), None)
    }
}

/// A value none of `schemas` accepts: the values they allow, each once, in order.
fn not_allowed<'v>(schemas: impl Iterator<Item = &'v Value>) -> IssueKind {
    let mut allowed: Vec<String> = Vec::new();
    let mut normalize = None;
    for c in schemas {
        let (values, n) = fixed_values(c);
        normalize = normalize.or(n);
        for v in values {
            if !allowed.contains(&v) {
                allowed.push(v);
            }
        }
    }
    IssueKind::NotAllowed { allowed, normalize }
}

/// The branch the SDK loads `obj` with, given the branch `first` that [`discriminate`]
/// selects: the SDK tries a union's branches in order and keeps the first that loads, and
/// some unions list several branches for one discriminator value (a pipeline step of
/// `type: command` is a `CommandSchema`, which needs `component`, else a
/// `PipelineCommandJobSchema`, which needs `command` and checks `code`). Of the branches
/// with `first`'s discriminator schema, the first whose required keys `obj` has; `first`
/// when none has them all.
pub(super) fn loading_branch(
    store: &Store,
    key: &str,
    branches: &[Value],
    base: &str,
    obj: &serde_json::Map<String, Value>,
    first: usize,
) -> usize {
    fn inline<'a>(b: &'a Value, key: &str) -> Option<&'a Value> {
        b.get("properties").and_then(|p| p.get(key))
    }
    let Some(selected) = branches.get(first) else {
        return first;
    };
    let value = inline(selected, key);
    branches
        .iter()
        .enumerate()
        .skip(first)
        .filter(|(_, b)| inline(b, key) == value)
        .find(|(_, b)| has_required(store, b, base, obj, 0))
        .map_or(first, |(i, _)| i)
}

/// Whether `obj` has every key `schema` requires, through the references and the binding
/// wrapper (`x-amlint-binding`'s `else`) that stand in for the object schema.
fn has_required(
    store: &Store,
    schema: &Value,
    base: &str,
    obj: &serde_json::Map<String, Value>,
    depth: usize,
) -> bool {
    let Value::Object(m) = schema else {
        return true;
    };
    let present = m
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|r| r.iter().all(|k| k.as_str().is_some_and(|k| obj.contains_key(k))));
    if !present || depth >= 8 {
        return present;
    }
    let wrapped = m
        .get("x-amlint-binding")
        .filter(|b| *b == &Value::Bool(true))
        .and_then(|_| m.get("else"))
        .is_none_or(|rest| has_required(store, rest, base, obj, depth + 1));
    wrapped
        && store
            .follow(m, base)
            .is_none_or(|(target, uri)| has_required(store, target, &uri, obj, depth + 1))
}

/// A discriminator's inline schema: `x-amlint-enum`, `const`, `type`, or `false`.
fn accepts_simple(schema: &Value, value: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(m) => {
            if let Some(false) = m
                .get("x-amlint-enum")
                .and_then(|e| EnumSpec::schema_accepts(e, value))
            {
                return false;
            }
            if let Some(c) = m.get("const") {
                if c != value {
                    return false;
                }
            }
            if let Some(Value::Array(e)) = m.get("enum") {
                if !e.contains(value) {
                    return false;
                }
            }
            if let Some(t) = m.get("type") {
                if !type_matches(t, value) {
                    return false;
                }
            }
            true
        }
        _ => true,
    }
}

fn type_matches(t: &Value, value: &Value) -> bool {
    match t {
        Value::String(name) => json_type_is(name, value),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|n| json_type_is(n, value)),
        _ => true,
    }
}

/// JSON Schema type test (`1.0` is an integer).
pub fn json_type_is(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("null", Value::Null) | ("boolean", Value::Bool(_)) | ("string", Value::String(_)) => true,
        ("array", Value::Array(_)) | ("object", Value::Object(_)) | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// Whether a union branch accepts the instance's JSON type (docs/schemas.md, "Unions").
pub fn admits(
    store: &'static Store,
    schema: &'static Value,
    base: &'static str,
    instance: &Value,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let Value::Object(m) = schema else {
        return !matches!(schema, Value::Bool(false));
    };
    let n = node(store, m, base);
    let k = &n.k;
    if k.binding {
        if is_binding(instance) {
            return true;
        }
        if let Some(rest) = k.else_ {
            return admits(store, rest, base, instance, depth + 1);
        }
    }
    if let Some((target, uri)) = &n.target {
        if !admits(store, target, uri, instance, depth + 1) {
            return false;
        }
    }
    if let Some(t) = k.type_ {
        if !type_matches(t, instance) {
            return false;
        }
    }
    if let Some(c) = n.coercion {
        if coerce(c, instance).is_none() {
            return false;
        }
    }
    if k.amlint_enum && !instance.is_string() {
        return false;
    }
    for union in [k.any_of, k.one_of] {
        if let Some(Value::Array(branches)) = union {
            return branches
                .iter()
                .any(|b| admits(store, b, base, instance, depth + 1));
        }
    }
    true
}

/// What the schema walks (`admits`, `forms::annotate`) read of one schema object of the
/// embedded documents, worked out the first time a walk reaches it and kept for the
/// process: its keywords, where its reference leads, its `x-amlint-type`. The walks visit
/// the same schema objects for every document of a kind, and reading them afresh each
/// time (every entry of the object, the reference's document and definition looked up
/// by name) was a quarter of the annotation walk.
pub(super) struct Node {
    pub k: Keywords<'static>,
    /// The schema its reference (`x-amlint-lazy` or `$ref`) leads to, and the `$id` of the
    /// document that holds it ([`Store::follow`]).
    pub target: Option<(&'static Value, Cow<'static, str>)>,
    pub coercion: Option<Coercion>,
}

type NodeMap = foldhash::HashMap<usize, &'static Node>;

thread_local! {
    /// This thread's nodes, so that a hit takes no lock.
    static NODES: RefCell<NodeMap> = RefCell::new(NodeMap::default());
}

/// Every node made, so that each is made (and kept) once per process, whichever thread
/// reaches it first: at most one per schema object of the embedded documents.
static ALL_NODES: LazyLock<Mutex<NodeMap>> = LazyLock::new(Default::default);

/// The [`Node`] of the schema object `m`, of the document whose `$id` is `base`. Keyed by
/// address: the store's documents live as long as the process (`'static`), so an address
/// is never reused, and an object is in one document only.
pub(super) fn node(
    store: &'static Store,
    m: &'static Map<String, Value>,
    base: &'static str,
) -> &'static Node {
    let key = std::ptr::from_ref(m) as usize;
    if let Some(n) = NODES.with(|c| c.borrow().get(&key).copied()) {
        return n;
    }
    let n = *ALL_NODES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry(key)
        .or_insert_with(|| {
            let k = Keywords::of(m);
            let target = store.follow_to(k.lazy, k.reference, base);
            let coercion = k.amlint_type.and_then(Value::as_str).and_then(Coercion::parse);
            Box::leak(Box::new(Node { k, target, coercion }))
        });
    NODES.with(|c| c.borrow_mut().insert(key, n));
    n
}

/// The keywords of a schema object that the schema walks (`admits`, `forms::annotate`)
/// read, found in one pass over its entries: a schema object has a handful, looking each
/// keyword up in the map costs more, and the walks visit every schema object an instance
/// reaches.
#[derive(Default)]
pub(super) struct Keywords<'s> {
    pub binding: bool,
    pub type_: Option<&'s Value>,
    pub amlint_type: Option<&'s Value>,
    pub amlint_enum: bool,
    pub lazy: Option<&'s Value>,
    pub reference: Option<&'s Value>,
    pub forms: Option<&'s Value>,
    pub properties: Option<&'s Value>,
    pub additional: Option<&'s Value>,
    pub prefix_items: Option<&'s Value>,
    pub items: Option<&'s Value>,
    pub all_of: Option<&'s Value>,
    pub if_: Option<&'s Value>,
    pub then: Option<&'s Value>,
    pub else_: Option<&'s Value>,
    pub any_of: Option<&'s Value>,
    pub one_of: Option<&'s Value>,
    pub discriminator: Option<&'s Value>,
    pub unknown_keys: Option<&'s Value>,
    /// `x-amlint-read-only: true`.
    pub read_only: bool,
    pub ignored: Option<&'s Value>,
}

impl<'s> Keywords<'s> {
    pub fn of(m: &'s Map<String, Value>) -> Self {
        let mut k = Keywords::default();
        for (key, v) in m {
            let slot = match key.as_str() {
                "x-amlint-binding" => {
                    k.binding = v == &Value::Bool(true);
                    continue;
                }
                "x-amlint-enum" => {
                    k.amlint_enum = true;
                    continue;
                }
                "x-amlint-read-only" => {
                    k.read_only = v == &Value::Bool(true);
                    continue;
                }
                "x-amlint-ignored" => &mut k.ignored,
                LAZY_KEYWORD => &mut k.lazy,
                "type" => &mut k.type_,
                "x-amlint-type" => &mut k.amlint_type,
                "$ref" => &mut k.reference,
                "x-amlint-forms" => &mut k.forms,
                "properties" => &mut k.properties,
                "additionalProperties" => &mut k.additional,
                "prefixItems" => &mut k.prefix_items,
                "items" => &mut k.items,
                "allOf" => &mut k.all_of,
                "if" => &mut k.if_,
                "then" => &mut k.then,
                "else" => &mut k.else_,
                "anyOf" => &mut k.any_of,
                "oneOf" => &mut k.one_of,
                "x-amlint-discriminator" => &mut k.discriminator,
                "x-amlint-unknown-keys" => &mut k.unknown_keys,
                _ => continue,
            };
            *slot = Some(v);
        }
        k
    }
}

/// Whether a (string) branch is an asset reference (`x-amlint-forms` with an `azureml:` form).
fn has_asset_forms(store: &Store, schema: &Value, base: &str, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Value::Object(m) = schema else {
        return false;
    };
    if let Some(Value::Array(forms)) = m.get("x-amlint-forms") {
        if forms.iter().any(|f| {
            matches!(
                f.get("form").and_then(Value::as_str),
                Some("arm" | "arm-versioned" | "registry")
            )
        }) {
            return true;
        }
    }
    if let Some(rest) = m.get("else").filter(|_| m.contains_key("x-amlint-binding")) {
        return has_asset_forms(store, rest, base, depth + 1);
    }
    if let Some((target, uri)) = store.follow(m, base) {
        return has_asset_forms(store, target, &uri, depth + 1);
    }
    false
}

/// The JSON types a branch accepts, for "expected string or mapping" messages.
fn branch_types(store: &Store, schema: &Value, base: &str, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Value::Object(m) = schema else {
        return;
    };
    let mut add = |t: &str| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    };
    if let Some(t) = m.get("type") {
        match t {
            Value::String(s) => add(s),
            Value::Array(a) => a.iter().filter_map(Value::as_str).for_each(&mut add),
            _ => {}
        }
        return;
    }
    if let Some(t) = m.get("x-amlint-type").and_then(Value::as_str) {
        add(t);
        return;
    }
    if m.contains_key("x-amlint-enum") {
        add("string");
        return;
    }
    if let Some(rest) = m.get("else").filter(|_| m.contains_key("x-amlint-binding")) {
        branch_types(store, rest, base, out, depth + 1);
        return;
    }
    if let Some((target, uri)) = store.follow(m, base) {
        branch_types(store, target, &uri, out, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = m.get(key) {
            for b in branches {
                branch_types(store, b, base, out, depth + 1);
            }
        }
    }
}

/// Python's validator returns only the type error of a schema object whose `type` (or
/// `x-amlint-type`) fails; drop anything else reported at that same place.
fn dedupe(issues: Vec<Issue>) -> Vec<Issue> {
    let typed: std::collections::HashSet<Pointer> = issues
        .iter()
        .filter(|i| {
            matches!(
                i.kind,
                IssueKind::WrongType { .. } | IssueKind::NotCoercible { .. }
            )
        })
        .map(|i| i.pointer.clone())
        .collect();
    let mut out: Vec<Issue> = Vec::with_capacity(issues.len());
    // The issues kept so far at each place (pointer, and key for a key issue, since
    // every unknown key of a mapping has the mapping's pointer): equal issues share it.
    let mut at: std::collections::HashMap<(Pointer, Option<String>), Vec<usize>> =
        std::collections::HashMap::new();
    for issue in issues {
        let is_type = matches!(
            issue.kind,
            IssueKind::WrongType { .. } | IssueKind::NotCoercible { .. }
        );
        let keyed = matches!(
            issue.kind,
            IssueKind::UnknownKey { .. } | IssueKind::MissingKey { .. }
        );
        if !is_type && !keyed && typed.contains(&issue.pointer) {
            continue;
        }
        let key = match &issue.kind {
            IssueKind::UnknownKey { key, .. } | IssueKind::MissingKey { key } => Some(key.clone()),
            _ => None,
        };
        let same_place = at.entry((issue.pointer.clone(), key)).or_default();
        // The same unknown key twice (as an unknown key, and as the misspelling of a
        // missing one): one issue, which says what it leaves missing.
        if let IssueKind::UnknownKey { missing: Some(m), .. } = &issue.kind {
            if let Some(&i) = same_place
                .iter()
                .find(|&&i| matches!(out[i].kind, IssueKind::UnknownKey { .. }))
            {
                if let IssueKind::UnknownKey { missing, .. } = &mut out[i].kind {
                    missing.get_or_insert_with(|| m.clone());
                }
                continue;
            }
        }
        if matches!(issue.kind, IssueKind::UnknownKey { .. })
            && same_place
                .iter()
                .any(|&i| matches!(out[i].kind, IssueKind::UnknownKey { .. }))
        {
            continue;
        }
        if !same_place.iter().any(|&i| out[i] == issue) {
            same_place.push(out.len());
            out.push(issue);
        }
    }
    out
}
