//! marshmallow's coercions (`x-amlint-type`) and azure-ai-ml's enum normalisations
//! (`x-amlint-enum`), exactly as `docs/schemas.md` specifies them and
//! `scripts/validate_with_schemas.py` implements them.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// A non-strict marshmallow field type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coercion {
    Integer,
    Number,
    Boolean,
}

impl Coercion {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "integer" => Some(Self::Integer),
            "number" => Some(Self::Number),
            "boolean" => Some(Self::Boolean),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
        }
    }
}

/// The value marshmallow would load, when it loads one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coerced {
    Int(f64),
    Float(f64),
    Bool(bool),
}

impl Coerced {
    /// The numeric value bounds compare against.
    pub fn number(self) -> Option<f64> {
        match self {
            Self::Int(n) | Self::Float(n) => Some(n),
            Self::Bool(_) => None,
        }
    }
}

/// marshmallow 3 `fields.Boolean` truthy/falsy strings.
const TRUTHY: &[&str] = &[
    "t", "T", "true", "True", "TRUE", "on", "On", "ON", "y", "Y", "yes", "Yes", "YES", "1",
];
const FALSY: &[&str] = &[
    "f", "F", "false", "False", "FALSE", "off", "Off", "OFF", "n", "N", "no", "No", "NO", "0",
];

/// A string as marshmallow's `fields.Boolean` reads it (`"yes"`, `"t"`, `"1"` are true;
/// `"no"`, `"off"`, `"0"` are false); `None` for any other string.
pub fn boolean_str(s: &str) -> Option<bool> {
    if TRUTHY.contains(&s) {
        Some(true)
    } else if FALSY.contains(&s) {
        Some(false)
    } else {
        None
    }
}

/// marshmallow's (non-strict) deserialisation of `value` as `to`; `None` when it fails.
pub fn coerce(to: Coercion, value: &Value) -> Option<Coerced> {
    match to {
        Coercion::Boolean => match value {
            Value::Bool(b) => Some(Coerced::Bool(*b)),
            Value::String(s) => boolean_str(s).map(Coerced::Bool),
            Value::Number(n) => match n.as_f64() {
                Some(1.0) => Some(Coerced::Bool(true)),
                Some(0.0) => Some(Coerced::Bool(false)),
                _ => None,
            },
            _ => None,
        },
        Coercion::Integer => match value {
            // Python int(2.9) == 2: any finite number loads, truncated.
            Value::Number(n) => n
                .as_f64()
                .filter(|x| x.is_finite())
                .map(|x| Coerced::Int(x.trunc())),
            Value::String(s) => python_int(s).map(Coerced::Int),
            _ => None,
        },
        Coercion::Number => match value {
            Value::Number(n) => n.as_f64().filter(|x| x.is_finite()).map(Coerced::Float),
            Value::String(s) => python_float(s).filter(|x| x.is_finite()).map(Coerced::Float),
            _ => None,
        },
    }
}

/// Removes Python's digit-group underscores (`1_000`): allowed only between two digits.
fn strip_underscores(s: &str) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            let before = i.checked_sub(1).and_then(|j| chars.get(j));
            let after = chars.get(i + 1);
            if !(before.is_some_and(char::is_ascii_digit) && after.is_some_and(char::is_ascii_digit)) {
                return None;
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Python `int(s)` for a string: surrounding whitespace, a sign, decimal digits with
/// single underscores between them. The value as a float (bounds only need that).
pub fn python_int(s: &str) -> Option<f64> {
    let t = strip_underscores(s.trim())?;
    let digits = t.strip_prefix(['+', '-']).unwrap_or(&t);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    t.parse::<f64>().ok()
}

/// Python `float(s)` for a string (`"1.5"`, `"1e3"`, `" .5 "`, `"1_0.5"`, `"inf"`).
pub fn python_float(s: &str) -> Option<f64> {
    let t = strip_underscores(s.trim())?;
    let body = t.strip_prefix(['+', '-']).unwrap_or(&t);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return t.to_ascii_lowercase().parse::<f64>().ok();
    }
    // Rust also accepts these spellings; Python's grammar is digits, '.', exponent only.
    if !body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// How an `x-amlint-enum` compares (docs/schemas.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalize {
    Exact,
    Lower,
    Upper,
    CamelToSnake,
    SnakeToPascal,
    SnakeToCamel,
}

impl Normalize {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "exact" => Some(Self::Exact),
            "lower" => Some(Self::Lower),
            "upper" => Some(Self::Upper),
            "camel_to_snake" => Some(Self::CamelToSnake),
            "snake_to_pascal" => Some(Self::SnakeToPascal),
            "snake_to_camel" => Some(Self::SnakeToCamel),
            _ => None,
        }
    }

    /// How the comparison reads in a message.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Exact => "compared exactly",
            Self::Lower | Self::Upper => "compared case-insensitively",
            Self::CamelToSnake => "camelCase is converted to snake_case before comparing",
            Self::SnakeToPascal => "snake_case is converted to PascalCase before comparing",
            Self::SnakeToCamel => "snake_case is converted to camelCase before comparing",
        }
    }

    /// [`Normalize::apply`], borrowing `s` when it is already in the normal form (the
    /// common case of the checks that run for every union branch).
    pub fn apply_cow(self, s: &str) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        match self {
            Self::Exact => Some(Cow::Borrowed(s)),
            Self::Lower if s.is_ascii() && !s.bytes().any(|b| b.is_ascii_uppercase()) => {
                Some(Cow::Borrowed(s))
            }
            Self::Upper if s.is_ascii() && !s.bytes().any(|b| b.is_ascii_lowercase()) => {
                Some(Cow::Borrowed(s))
            }
            _ => self.apply(s).map(Cow::Owned),
        }
    }

    /// The normalised form the SDK compares, `None` when nothing can match (empty input).
    pub fn apply(self, s: &str) -> Option<String> {
        match self {
            Self::Exact => Some(s.to_string()),
            Self::Lower => Some(s.to_lowercase()),
            Self::Upper => Some(s.to_uppercase()),
            Self::CamelToSnake => per_part(s, camel_to_snake),
            Self::SnakeToPascal => per_part(s, snake_to_pascal),
            Self::SnakeToCamel => (!s.is_empty()).then(|| snake_to_camel(s)),
        }
    }
}

/// Applies `conv` to each comma-separated part (stripped), re-joined with `,`.
fn per_part(s: &str, conv: fn(&str) -> String) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    if s.contains(',') {
        Some(s.split(',').map(|p| conv(p.trim())).collect::<Vec<_>>().join(","))
    } else {
        Some(conv(s))
    }
}

static CAMEL_1: LazyLock<Regex> = LazyLock::new(|| Regex::new("(.)([A-Z][a-z]+)").expect("valid regex"));
static CAMEL_2: LazyLock<Regex> = LazyLock::new(|| Regex::new("([a-z0-9])([A-Z])").expect("valid regex"));
static SNAKE_CAMEL: LazyLock<Regex> = LazyLock::new(|| Regex::new("_([a-zA-Z0-9])").expect("valid regex"));

/// azure-ai-ml `_camel_to_snake_convert`.
pub fn camel_to_snake(s: &str) -> String {
    let once = CAMEL_1.replace_all(s, "${1}_${2}");
    CAMEL_2.replace_all(&once, "${1}_${2}").to_lowercase()
}

/// `string.capwords(s.replace("_", " ")).replace(" ", "")`.
pub fn snake_to_pascal(s: &str) -> String {
    s.replace('_', " ")
        .split_whitespace()
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first
                    .to_uppercase()
                    .chain(chars.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect()
}

/// `re.sub("_([a-zA-Z0-9])", lambda m: m.group(1).upper(), s)`.
pub fn snake_to_camel(s: &str) -> String {
    SNAKE_CAMEL
        .replace_all(s, |c: &regex::Captures<'_>| c[1].to_uppercase())
        .into_owned()
}

pub use super::preprocess::BINDING_PATTERN;

static BINDING: LazyLock<Regex> = LazyLock::new(|| Regex::new(BINDING_PATTERN).expect("valid regex"));

pub fn is_binding(value: &Value) -> bool {
    matches!(value, Value::String(s) if BINDING.is_match(s))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_borrowing_normalisation_agrees_with_the_owned_one() {
        let all = [
            Normalize::Exact,
            Normalize::Lower,
            Normalize::Upper,
            Normalize::CamelToSnake,
            Normalize::SnakeToPascal,
            Normalize::SnakeToCamel,
        ];
        for n in all {
            for s in [
                "", "command", "Command", "COMMAND", "Ǆob", "ǅob", "straße", "a_b", "aB,Cd",
            ] {
                assert_eq!(n.apply_cow(s).map(|c| c.into_owned()), n.apply(s), "{n:?} {s}");
            }
        }
    }

    #[test]
    fn integers() {
        let int = |v: Value| coerce(Coercion::Integer, &v);
        assert_eq!(int(json!(3)), Some(Coerced::Int(3.0)));
        assert_eq!(int(json!(2.9)), Some(Coerced::Int(2.0)));
        assert_eq!(int(json!("12")), Some(Coerced::Int(12.0)));
        assert_eq!(int(json!(" 12 ")), Some(Coerced::Int(12.0)));
        assert_eq!(int(json!("+3")), Some(Coerced::Int(3.0)));
        assert_eq!(int(json!("1_000")), Some(Coerced::Int(1000.0)));
        assert_eq!(int(json!("2.5")), None);
        assert_eq!(int(json!("_1")), None);
        assert_eq!(int(json!("1__0")), None);
        assert_eq!(int(json!("")), None);
        assert_eq!(int(json!("many")), None);
        assert_eq!(int(json!(true)), None);
        assert_eq!(int(json!(null)), None);
        assert_eq!(int(json!([1])), None);
    }

    #[test]
    fn numbers_and_booleans() {
        let num = |v: Value| coerce(Coercion::Number, &v);
        assert_eq!(num(json!("1.5")), Some(Coerced::Float(1.5)));
        assert_eq!(num(json!("1e3")), Some(Coerced::Float(1000.0)));
        assert_eq!(num(json!(".5")), Some(Coerced::Float(0.5)));
        assert_eq!(num(json!("nan")), None);
        assert_eq!(num(json!("inf")), None);
        assert_eq!(num(json!("lots")), None);
        assert_eq!(num(json!(false)), None);
        let b = |v: Value| coerce(Coercion::Boolean, &v);
        assert_eq!(b(json!("yes")), Some(Coerced::Bool(true)));
        assert_eq!(b(json!("Y")), Some(Coerced::Bool(true)));
        assert_eq!(b(json!("0")), Some(Coerced::Bool(false)));
        assert_eq!(b(json!(1)), Some(Coerced::Bool(true)));
        assert_eq!(b(json!(0.0)), Some(Coerced::Bool(false)));
        assert_eq!(b(json!(2)), None);
        assert_eq!(b(json!("yEs")), None);
        assert_eq!(b(json!(null)), None);
    }

    #[test]
    fn normalisations() {
        let c = Normalize::CamelToSnake;
        assert_eq!(c.apply("AMLToken").as_deref(), Some("aml_token"));
        assert_eq!(c.apply("Key").as_deref(), Some("key"));
        assert_eq!(
            c.apply("SystemAssigned, UserAssigned").as_deref(),
            Some("system_assigned,user_assigned")
        );
        assert_eq!(
            c.apply("TargetUtilization").as_deref(),
            Some("target_utilization")
        );
        assert_eq!(c.apply(""), None);
        assert_eq!(
            Normalize::SnakeToPascal.apply("managed_network").as_deref(),
            Some("ManagedNetwork")
        );
        assert_eq!(
            Normalize::SnakeToCamel.apply("max_concurrent").as_deref(),
            Some("maxConcurrent")
        );
        assert_eq!(
            Normalize::Lower.apply("LowPriority").as_deref(),
            Some("lowpriority")
        );
        assert_eq!(Normalize::Upper.apply("gpu").as_deref(), Some("GPU"));
    }

    #[test]
    fn bindings() {
        assert!(is_binding(&json!("${{parent.inputs.x}}")));
        assert!(is_binding(&json!("azureml:${{ inputs.env }}")));
        assert!(!is_binding(&json!("${parent}")));
        assert!(!is_binding(&json!(3)));
    }
}
