//! Plain-scalar resolution as the Azure ML CLI performs it (PyYAML `safe_load`, YAML 1.1),
//! and as a YAML 1.2 reader would (core schema), so the two can be compared (AML003).
//!
//! The regular expressions are PyYAML's own (`yaml/resolver.py`), and the conversions
//! follow `yaml/constructor.py` (`construct_yaml_int`, `construct_yaml_float`).

use std::sync::LazyLock;

use regex::Regex;

use super::node::{NodeId, Value};
use super::python::{self, PyInt};

static FLOAT11: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
        r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        r"|[-+]?\.(?:inf|Inf|INF)",
        r"|\.(?:nan|NaN|NAN))$"
    ))
    .expect("static regex")
});
static INT11: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[-+]?0b[0-1_]+",
        r"|[-+]?0[0-7_]+",
        r"|[-+]?(?:0|[1-9][0-9_]*)",
        r"|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
    ))
    .expect("static regex")
});
static TIMESTAMP11: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
        r"(?:[Tt]|[ \t]+)[0-9][0-9]?",
        r":[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?",
        r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"
    ))
    .expect("static regex")
});

// YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
static INT12: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$").expect("static regex"));
static FLOAT12: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?",
        r"|[-+]?\.(?:inf|Inf|INF)",
        r"|\.nan|\.NaN|\.NAN)$"
    ))
    .expect("static regex")
});

/// The constructor's own pattern (`SafeConstructor.timestamp_regexp`), looser than the
/// resolver's: it also takes a date-only `2001-1-1`, which an explicit `!!timestamp` reaches.
static TIMESTAMP_FIELDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?P<year>[0-9]{4})-(?P<month>[0-9][0-9]?)-(?P<day>[0-9][0-9]?)",
        r"(?:(?:[Tt]|[ \t]+)(?P<hour>[0-9][0-9]?):(?P<minute>[0-9][0-9]):(?P<second>[0-9][0-9])",
        r"(?:\.[0-9]*)?",
        r"(?:[ \t]*(?:Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9][0-9]?)(?::(?P<tz_minute>[0-9][0-9]))?))?)?$"
    ))
    .expect("static regex")
});

/// The YAML 1.1 tags of scalars (`tag:yaml.org,2002:<name>`): those PyYAML's resolver gives
/// plain scalars, and those `SafeConstructor` builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarTag {
    Str,
    Null,
    Bool,
    Int,
    Float,
    Timestamp,
    Binary,
    /// `<<`: the merge key, which has no constructor (only a mapping key may hold it).
    Merge,
    /// `=`: the value key, which has no constructor (only a mapping key may hold it, and
    /// is then the string `=`).
    Value,
}

impl ScalarTag {
    /// The tag `tag:yaml.org,2002:<name>`, if it is a scalar tag.
    pub fn core(name: &str) -> Option<ScalarTag> {
        Some(match name {
            "str" => ScalarTag::Str,
            "null" => ScalarTag::Null,
            "bool" => ScalarTag::Bool,
            "int" => ScalarTag::Int,
            "float" => ScalarTag::Float,
            "timestamp" => ScalarTag::Timestamp,
            "binary" => ScalarTag::Binary,
            "merge" => ScalarTag::Merge,
            "value" => ScalarTag::Value,
            _ => return None,
        })
    }

    /// The tag as YAML writes it (`!!int`).
    pub fn shorthand(self) -> &'static str {
        match self {
            ScalarTag::Str => "!!str",
            ScalarTag::Null => "!!null",
            ScalarTag::Bool => "!!bool",
            ScalarTag::Int => "!!int",
            ScalarTag::Float => "!!float",
            ScalarTag::Timestamp => "!!timestamp",
            ScalarTag::Binary => "!!binary",
            ScalarTag::Merge => "!!merge",
            ScalarTag::Value => "!!value",
        }
    }

    /// What a value of the tag is, in words.
    pub fn what(self) -> &'static str {
        match self {
            ScalarTag::Str => "a string",
            ScalarTag::Null => "null",
            ScalarTag::Bool => "a boolean",
            ScalarTag::Int => "an integer",
            ScalarTag::Float => "a floating-point number",
            ScalarTag::Timestamp => "a date",
            ScalarTag::Binary => "base64 binary data",
            ScalarTag::Merge => "the merge key `<<`",
            ScalarTag::Value => "the value key `=`",
        }
    }
}

/// The tag PyYAML's resolver (`yaml/resolver.py`) gives a scalar it resolves implicitly —
/// a plain scalar without a tag, or any scalar with the non-specific tag `!`: its resolvers
/// are chosen by the first character, then their patterns tried in order. The patterns
/// are `^…$` matched by Python's `re.match`, whose `$` also matches before a line break
/// that ends the text (`! "1\n"` is the integer 1).
pub fn resolve(s: &str) -> ScalarTag {
    let body = s.strip_suffix('\n').unwrap_or(s);
    match s.chars().next() {
        None => ScalarTag::Null,
        Some('y' | 'Y' | 'n' | 'N' | 't' | 'T' | 'f' | 'F' | 'o' | 'O') => {
            if matches!(
                body,
                "yes"
                    | "Yes"
                    | "YES"
                    | "no"
                    | "No"
                    | "NO"
                    | "true"
                    | "True"
                    | "TRUE"
                    | "false"
                    | "False"
                    | "FALSE"
                    | "on"
                    | "On"
                    | "ON"
                    | "off"
                    | "Off"
                    | "OFF"
            ) {
                ScalarTag::Bool
            } else if matches!(body, "null" | "Null" | "NULL") {
                ScalarTag::Null
            } else {
                ScalarTag::Str
            }
        }
        Some('~') if body == "~" => ScalarTag::Null,
        Some('<') if body == "<<" => ScalarTag::Merge,
        Some('=') if body == "=" => ScalarTag::Value,
        Some('-' | '+' | '.' | '0'..='9') => {
            // The commonest cases without the patterns: a decimal integer (`INT11`'s
            // `[1-9][0-9_]*`; `FLOAT11` needs a `.`), and a path (no pattern holds a `/`).
            if is_plain_decimal(body) {
                ScalarTag::Int
            } else if body.contains('/') {
                ScalarTag::Str
            } else if FLOAT11.is_match(body) {
                ScalarTag::Float
            } else if INT11.is_match(body) {
                ScalarTag::Int
            } else if TIMESTAMP11.is_match(body) {
                ScalarTag::Timestamp
            } else {
                ScalarTag::Str
            }
        }
        _ => ScalarTag::Str,
    }
}

/// `0`, or a decimal integer without sign, underscore or leading zero: an integer to
/// YAML 1.1 and YAML 1.2 alike.
fn is_plain_decimal(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1)
}

/// Why `SafeConstructor` cannot build a scalar of its tag.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstructError {
    /// What Python says and raises, in words: "Python's int() cannot read `0B11` in base
    /// 8 (ValueError)".
    pub why: String,
}

impl ConstructError {
    fn new(why: impl Into<String>) -> Self {
        ConstructError { why: why.into() }
    }
}

/// A scalar's text for a message: at most 60 characters, the rest counted.
pub fn quote_short(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        None => format!("`{s}`"),
        Some((cut, _)) => format!("`{}…` ({} characters)", &s[..cut], s.chars().count()),
    }
}

/// What PyYAML's `SafeConstructor` builds of a scalar with the tag `tag`, with Python's
/// `int()`, `float()`, `datetime` and `base64` (`yaml/constructor.py`).
pub fn construct(tag: ScalarTag, s: &str) -> Result<Value, ConstructError> {
    match tag {
        ScalarTag::Str => Ok(Value::Str(s.into())),
        ScalarTag::Null => Ok(Value::Null),
        // `self.bool_values[value.lower()]`.
        ScalarTag::Bool => match s.to_lowercase().as_str() {
            "yes" | "true" | "on" => Ok(Value::Bool(true)),
            "no" | "false" | "off" => Ok(Value::Bool(false)),
            _ => Err(ConstructError::new(
                "only yes, no, true, false, on and off, in any case, are booleans (KeyError)",
            )),
        },
        ScalarTag::Int => construct_int(s),
        ScalarTag::Float => construct_float(s).map(Value::Float),
        ScalarTag::Timestamp => construct_timestamp(s),
        ScalarTag::Binary => construct_binary(s),
        ScalarTag::Merge | ScalarTag::Value => Err(ConstructError::new(format!(
            "could not determine a constructor for the tag 'tag:yaml.org,2002:{}'",
            &tag.shorthand()[2..]
        ))),
    }
}

/// The first character PyYAML's number constructors read does not exist.
const EMPTY_NUMBER: &str = "there is no digit once PyYAML removes the underscores and the sign, and its constructor reads the first character (IndexError)";

fn int_refusal(e: python::IntError, text: &str) -> ConstructError {
    ConstructError::new(match e {
        python::IntError::Invalid { base } => format!(
            "Python's int() cannot read {} in base {base} (ValueError: invalid literal for int())",
            quote_short(text)
        ),
        python::IntError::TooManyDigits(n) => format!(
            "it has {n} digits, more than the {} Python (3.11 and later) converts text to an integer of (ValueError: Exceeds the limit for integer string conversion)",
            python::MAX_STR_DIGITS
        ),
    })
}

/// PyYAML's `construct_yaml_int`: underscores removed, one sign, then `0b` (`int(rest,
/// 2)`), `0x` (`int(rest, 16)`), a leading `0` (`int(text, 8)`), sexagesimal parts
/// (`int(part)` each) or `int(text)`; Python's `int()` then takes whitespace, Unicode
/// digits and its base's prefix again.
fn construct_int(s: &str) -> Result<Value, ConstructError> {
    let cleaned: std::borrow::Cow<'_, str> = if s.contains('_') {
        s.chars().filter(|&c| c != '_').collect::<String>().into()
    } else {
        s.into()
    };
    let (negative, body) = match cleaned.chars().next() {
        None => return Err(ConstructError::new(EMPTY_NUMBER)),
        Some('-') => (true, &cleaned[1..]),
        Some('+') => (false, &cleaned[1..]),
        _ => (false, &cleaned[..]),
    };
    let int = |text: &str, base| {
        // The common case first: a few ASCII digits of the base.
        if text.len() <= 15 && !text.is_empty() && text.bytes().all(|b| char::from(b).is_digit(base)) {
            if let Ok(n) = i64::from_str_radix(text, base) {
                return Ok(PyInt::small(n));
            }
        }
        python::int(text, base).map_err(|e| int_refusal(e, text))
    };
    let mut n = if body == "0" {
        PyInt::zero()
    } else if let Some(rest) = body.strip_prefix("0b") {
        int(rest, 2)?
    } else if let Some(rest) = body.strip_prefix("0x") {
        int(rest, 16)?
    } else if body.is_empty() {
        return Err(ConstructError::new(EMPTY_NUMBER));
    } else if body.starts_with('0') {
        int(body, 8)?
    } else if body.contains(':') {
        let parts = body
            .split(':')
            .map(|p| int(p, 10))
            .collect::<Result<Vec<_>, _>>()?;
        PyInt::sexagesimal(&parts)
    } else {
        int(body, 10)?
    };
    if negative {
        n.negate();
    }
    Ok(int_value(n, &cleaned))
}

/// The value of a Python integer; one too large for Python to print (over 4,300 digits)
/// is kept as `written`.
fn int_value(n: PyInt, written: &str) -> Value {
    match n {
        PyInt::Exact(big) => match big.to_i64() {
            Some(i) => Value::Int(i),
            None => Value::BigInt(big.to_decimal().unwrap_or_else(|| written.to_string()).into()),
        },
        PyInt::Huge(Some(hex)) => Value::BigInt(hex.into()),
        PyInt::Small(i) => Value::Int(i),
        PyInt::Huge(None) => Value::BigInt(written.trim().into()),
    }
}

/// PyYAML's `construct_yaml_float`: underscores removed, lower case, one sign, `.inf`,
/// `.nan`, sexagesimal parts (`float(part) * 60**i`, the last part first), or `float()`.
fn construct_float(s: &str) -> Result<f64, ConstructError> {
    let cleaned = s.chars().filter(|&c| c != '_').collect::<String>().to_lowercase();
    let (sign, body) = match cleaned.chars().next() {
        None => return Err(ConstructError::new(EMPTY_NUMBER)),
        Some('-') => (-1.0, &cleaned[1..]),
        Some('+') => (1.0, &cleaned[1..]),
        _ => (1.0, cleaned.as_str()),
    };
    let float = |text: &str| {
        python::float(text).ok_or_else(|| {
            ConstructError::new(format!(
                "Python's float() cannot read {} (ValueError: could not convert string to float)",
                quote_short(text)
            ))
        })
    };
    if body == ".inf" {
        return Ok(sign * f64::INFINITY);
    }
    if body == ".nan" {
        return Ok(f64::NAN);
    }
    if !body.contains(':') {
        return Ok(sign * float(body)?);
    }
    let digits = body.split(':').map(float).collect::<Result<Vec<_>, _>>()?;
    let powers = &*python::POWERS_OF_60;
    if digits.len() > powers.len() {
        return Err(ConstructError::new(format!(
            "it has {} sexagesimal parts, and the float of 60**{} that PyYAML multiplies its part {} by is too large (OverflowError: int too large to convert to float)",
            digits.len(),
            powers.len(),
            powers.len() + 1
        )));
    }
    let mut value = 0.0;
    for (digit, power) in digits.iter().rev().zip(powers) {
        value += digit * power;
    }
    Ok(sign * value)
}

/// PyYAML's `construct_yaml_timestamp`: its pattern's fields given to Python's
/// `datetime.date`, or `datetime.timezone` and `datetime.datetime`.
fn construct_timestamp(s: &str) -> Result<Value, ConstructError> {
    let Some(fields) = TIMESTAMP_FIELDS.captures(s.strip_suffix('\n').unwrap_or(s)) else {
        return Err(ConstructError::new(
            "it is not a YAML timestamp (YYYY-MM-DD, then optionally a time and a time zone): the pattern of PyYAML's timestamp constructor does not match (AttributeError)",
        ));
    };
    let num = |name: &str| {
        fields
            .name(name)
            .map_or(0, |m| m.as_str().parse::<u32>().unwrap_or(0))
    };
    let (year, month, day) = (num("year"), num("month"), num("day"));
    if fields.name("hour").is_some() {
        if let Some(sign) = fields.name("tz_sign") {
            let minutes = num("tz_hour") * 60 + num("tz_minute");
            if minutes >= 24 * 60 {
                return Err(ConstructError::new(format!(
                    "the time-zone offset {}{:02}:{:02} is 24 hours or more, and Python's datetime.timezone takes an offset strictly between -24 and +24 hours (ValueError)",
                    sign.as_str(),
                    minutes / 60,
                    minutes % 60
                )));
            }
        }
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        _ => 28,
    };
    let problem = if year == 0 {
        Some("year 0 is out of range".to_string())
    } else if !(1..=12).contains(&month) {
        Some("month must be in 1..12".into())
    } else if day == 0 || day > days {
        Some(format!("day {day} is out of range for the month"))
    } else if fields.name("hour").is_some() && num("hour") > 23 {
        Some("hour must be in 0..23".into())
    } else if fields.name("hour").is_some() && num("minute") > 59 {
        Some("minute must be in 0..59".into())
    } else if fields.name("hour").is_some() && num("second") > 59 {
        Some("second must be in 0..59".into())
    } else {
        None
    };
    match problem {
        Some(p) => Err(ConstructError::new(format!(
            "Python's datetime refuses it: {p} (ValueError)"
        ))),
        None => Ok(Value::Timestamp(s.into())),
    }
}

/// PyYAML's `construct_yaml_binary`: ASCII text that `base64.decodebytes` reads; the value
/// kept is the base64 text of the bytes PyYAML builds.
fn construct_binary(s: &str) -> Result<Value, ConstructError> {
    match python::base64_decode(s) {
        Ok(bytes) => Ok(Value::Str(python::base64_encode(&bytes).into())),
        Err(python::Base64Error::NotAscii(c, at)) => {
            let code = c as u32;
            let escaped = match code {
                0..=0xff => format!("\\x{code:02x}"),
                0x100..=0xffff => format!("\\u{code:04x}"),
                _ => format!("\\U{code:08x}"),
            };
            Err(ConstructError::new(format!(
                "failed to convert base64 data into ascii: 'ascii' codec can't encode character '{escaped}' in position {at}: ordinal not in range(128)"
            )))
        }
        Err(python::Base64Error::OneTooMany(n)) => Err(ConstructError::new(format!(
            "failed to decode base64 data: Invalid base64-encoded string: number of data characters ({n}) cannot be 1 more than a multiple of 4"
        ))),
        Err(python::Base64Error::IncorrectPadding) => Err(ConstructError::new(
            "failed to decode base64 data: Incorrect padding (the data ends inside a group of four characters without `=` to complete it)",
        )),
    }
}

/// What a plain scalar means under PyYAML.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainScalar {
    Value(Value),
    /// `<<`: a merge key.
    Merge,
    /// `=`: PyYAML resolves it to the `value` tag, which `safe_load` cannot construct.
    ValueTag,
    /// PyYAML resolves the scalar to a tag (`int`, `float`, `timestamp`) whose constructor
    /// then fails (`-0b_`, `2021-13-01`).
    Invalid(ScalarTag, ConstructError),
}

/// Resolves and constructs a plain scalar the way PyYAML's `SafeLoader` does.
pub fn resolve_plain(s: &str) -> PlainScalar {
    match resolve(s) {
        ScalarTag::Merge => PlainScalar::Merge,
        ScalarTag::Value => PlainScalar::ValueTag,
        tag => match construct(tag, s) {
            Ok(v) => PlainScalar::Value(v),
            Err(refusal) => PlainScalar::Invalid(tag, refusal),
        },
    }
}

/// A YAML 1.2 integer in `radix` (no digit limit, as a YAML 1.2 reader has none).
fn core12_int(s: &str, digits: &str, radix: u32) -> Value {
    match python::int(digits, radix) {
        Ok(n) => int_value(n, s),
        // More than 4,300 decimal digits: Python prints none, so no reading shows it.
        Err(_) => Value::BigInt(s.into()),
    }
}

/// What a YAML 1.2 (core schema) reader sees in a plain scalar.
pub fn resolve_core12(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let Some(first) = s.bytes().next() else {
        return Value::Null;
    };
    if !matches!(first, b'-' | b'+' | b'.' | b'0'..=b'9') {
        return Value::Str(s.into());
    }
    if INT12.is_match(s) {
        return if let Some(octal) = s.strip_prefix("0o") {
            core12_int(s, octal, 8)
        } else if let Some(hex) = s.strip_prefix("0x") {
            core12_int(s, hex, 16)
        } else {
            core12_int(s, s, 10)
        };
    }
    if FLOAT12.is_match(s) {
        let lower = s.to_ascii_lowercase();
        let (sign, body) = match lower.as_bytes()[0] {
            b'-' => (-1.0, &lower[1..]),
            b'+' => (1.0, &lower[1..]),
            _ => (1.0, lower.as_str()),
        };
        let v = match body {
            ".inf" => f64::INFINITY,
            ".nan" => f64::NAN,
            _ => python::float(body).unwrap_or(f64::NAN),
        };
        return Value::Float(sign * v);
    }
    Value::Str(s.into())
}

/// Whether YAML 1.2's core schema reads the plain scalar `s` as the string `s`
/// ([`resolve_core12`] without building the value).
fn core12_reads_as_itself(s: &str) -> bool {
    !matches!(
        s,
        "" | "~" | "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    ) && (!matches!(s.as_bytes()[0], b'-' | b'+' | b'.' | b'0'..=b'9') || s.contains('/'))
}

/// Two readings of a scalar agree when they have the same type and value.
fn same_reading(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// A plain scalar whose meaning a reader could mistake (AML003).
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub node: NodeId,
    pub kind: NoteKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NoteKind {
    /// YAML 1.1 (the CLI) and YAML 1.2 read the scalar differently.
    Differs { yaml11: Value, yaml12: Value },
    /// A number under a version-like key: the CLI stringifies the number, not the text
    /// (`version: 1.10` becomes `"1.1"`).
    VersionText { key: String, value: Value },
}

/// Compares the two readings of a plain scalar.
pub fn compare(raw: &str, yaml11: &Value) -> Option<NoteKind> {
    // Most plain scalars are words that both read as themselves: nothing to build.
    if matches!(yaml11, Value::Str(s) if **s == *raw) && core12_reads_as_itself(raw) {
        return None;
    }
    // A decimal integer that fits 64 bits is the same integer to both.
    if matches!(yaml11, Value::Int(_)) && raw.len() <= 18 && is_plain_decimal(raw) {
        return None;
    }
    let yaml12 = resolve_core12(raw);
    (!same_reading(yaml11, &yaml12)).then(|| NoteKind::Differs {
        yaml11: yaml11.clone(),
        yaml12,
    })
}

/// Whether a key holds a version that the SDK turns into a string.
pub fn is_version_key(key: &str) -> bool {
    key == "version" || key.ends_with("_version")
}

/// Checks a plain number under a version key.
pub fn version_note(key: &str, raw: &str, value: &Value) -> Option<NoteKind> {
    if !is_version_key(key) || !matches!(value, Value::Int(_) | Value::Float(_) | Value::BigInt(_)) {
        return None;
    }
    (python_str(value) != raw).then(|| NoteKind::VersionText {
        key: key.to_string(),
        value: value.clone(),
    })
}

/// A value in words, for messages: "the boolean true", "the integer 8".
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null (no value)".to_string(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Int(_) | Value::BigInt(_) => format!("the integer {}", python_str(value)),
        Value::Float(_) => format!("the number {}", python_str(value)),
        Value::Str(s) => format!("the string \"{s}\""),
        Value::Timestamp(s) => format!("a date/time ({s})"),
        Value::Seq(_) => "a list".to_string(),
        Value::Map(_) => "a mapping".to_string(),
        Value::Alias(_) => "an alias".to_string(),
    }
}

/// `str()` of the Python object PyYAML builds (`True`, `None`, `1.1`, `1e+16`).
pub fn python_str(value: &Value) -> String {
    match value {
        Value::Null => "None".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Int(i) => i.to_string(),
        Value::BigInt(s) | Value::Str(s) | Value::Timestamp(s) => s.to_string(),
        Value::Float(f) => python_float_repr(*f),
        Value::Seq(_) => "[...]".to_string(),
        Value::Map(_) => "{...}".to_string(),
        Value::Alias(_) => "*alias".to_string(),
    }
}

/// A float literal that YAML 1.1 and 1.2 both read as that number: Python's repr with
/// a `.` in the mantissa and a signed exponent (`2e-05` → `2.0e-05`).
pub fn yaml_float_literal(f: f64) -> String {
    let repr = python_float_repr(f);
    match repr.split_once('e') {
        Some((mantissa, exp)) if !mantissa.contains('.') => format!("{mantissa}.0e{exp}"),
        _ => repr,
    }
}

/// Python's `repr(float)`: the shortest round-tripping digits, in fixed notation when the
/// decimal exponent is in `-4 <= e < 16`, else `d.ddde±XX`.
pub fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // `{:e}` gives the shortest round-trip digits: "1.2345e-5".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{a}.{b}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn the_shortcut_agrees_with_the_core_schema() {
        // It may send a string to the full reading ("-x"), never the other way.
        for s in [
            "name",
            "azureml:x",
            "~",
            "null",
            "True",
            "FALSE",
            "-1",
            "+1",
            ".5",
            "0x1f",
            "1e3",
            "-x",
            "yes",
            "on",
            "n",
            "ok",
        ] {
            if core12_reads_as_itself(s) {
                assert_eq!(resolve_core12(s), Value::Str(s.into()), "{s}");
            }
        }
        assert!(
            ["name", "yes", "on", "n", "ok"]
                .iter()
                .all(|s| core12_reads_as_itself(s))
        );
        assert!(
            !["~", "null", "True", "-1", ".5", "0x1f"]
                .iter()
                .any(|s| core12_reads_as_itself(s))
        );
    }

    #[test]
    fn the_fast_paths_agree_with_the_patterns() {
        // `resolve` without its decimal and path shortcuts, and `compare` without its
        // decimal one.
        let by_patterns = |s: &str| {
            if FLOAT11.is_match(s) {
                ScalarTag::Float
            } else if INT11.is_match(s) {
                ScalarTag::Int
            } else if TIMESTAMP11.is_match(s) {
                ScalarTag::Timestamp
            } else {
                ScalarTag::Str
            }
        };
        let texts = [
            "0",
            "1",
            "7",
            "10",
            "09",
            "010",
            "0_1",
            "1_0",
            "123456789012345678",
            "1234567890123456789",
            "99999999999999999999999",
            "1:30",
            "1.5",
            "1e3",
            "-1",
            "+1",
            "./src",
            "../a/b",
            "1/2",
            "0/x",
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            ".5",
            "-",
            "0x1f",
            "0b1",
        ];
        for s in texts {
            assert_eq!(resolve(s), by_patterns(s), "{s}");
            if let Ok(v11) = construct(resolve(s), s) {
                let slow = (!same_reading(&v11, &resolve_core12(s))).then_some(());
                assert_eq!(compare(s, &v11).map(|_| ()), slow, "{s}");
            }
        }
        assert!(is_plain_decimal("10") && is_plain_decimal("0"));
        assert!(!is_plain_decimal("09") && !is_plain_decimal("") && !is_plain_decimal("1_0"));
    }

    fn v(s: &str) -> Value {
        match resolve_plain(s) {
            PlainScalar::Value(v) => v,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn pyyaml_table_from_the_facts_file() {
        for s in ["yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"] {
            assert_eq!(v(s), Value::Bool(true), "{s}");
        }
        for s in ["no", "No", "NO", "off", "Off", "OFF", "false", "FALSE"] {
            assert_eq!(v(s), Value::Bool(false), "{s}");
        }
        for s in ["y", "Y", "n", "N", "yEs", "oN"] {
            assert_eq!(v(s), Value::Str(s.into()), "{s}");
        }
        assert_eq!(v("1:30"), Value::Int(90));
        assert_eq!(v("-1:30"), Value::Int(-90));
        assert_eq!(v("190:20:30.15"), Value::Float(685230.15));
        assert_eq!(v("0:30"), Value::Str("0:30".into()));
        assert_eq!(v("010"), Value::Int(8));
        assert_eq!(v("09"), Value::Str("09".into()));
        assert_eq!(v("0o10"), Value::Str("0o10".into()));
        assert_eq!(v("0x1F"), Value::Int(31));
        assert_eq!(v("0b101"), Value::Int(5));
        assert_eq!(v("1_000"), Value::Int(1000));
        assert_eq!(v("+12"), Value::Int(12));
        assert_eq!(v("1_0.5"), Value::Float(10.5));
        assert_eq!(v("1.10"), Value::Float(1.1));
        assert_eq!(v("1e3"), Value::Str("1e3".into()));
        assert_eq!(v("1.0e3"), Value::Str("1.0e3".into()));
        assert_eq!(v("1.0e+3"), Value::Float(1000.0));
        assert_eq!(v(".5"), Value::Float(0.5));
        assert_eq!(v("1."), Value::Float(1.0));
        assert_eq!(v("-.5"), Value::Str("-.5".into()));
        assert!(matches!(v(".nan"), Value::Float(f) if f.is_nan()));
        assert_eq!(v("-.inf"), Value::Float(f64::NEG_INFINITY));
        for s in ["~", "null", "Null", "NULL", ""] {
            assert_eq!(v(s), Value::Null, "{s}");
        }
        assert_eq!(v("2021-01-01"), Value::Timestamp("2021-01-01".into()));
        assert_eq!(
            v("2001-12-14t21:59:43.10-05:00"),
            Value::Timestamp("2001-12-14t21:59:43.10-05:00".into())
        );
        assert_eq!(resolve_plain("<<"), PlainScalar::Merge);
        assert_eq!(resolve_plain("="), PlainScalar::ValueTag);
        assert_eq!(
            v("99999999999999999999"),
            Value::BigInt("99999999999999999999".into())
        );
        let refused = |s: &str| match resolve_plain(s) {
            PlainScalar::Invalid(tag, _) => Some(tag),
            _ => None,
        };
        assert_eq!(refused("2021-13-01"), Some(ScalarTag::Timestamp));
        assert_eq!(refused("2021-02-29"), Some(ScalarTag::Timestamp));
        assert_eq!(v("2020-02-29"), Value::Timestamp("2020-02-29".into()));
        assert_eq!(refused("-0b_"), Some(ScalarTag::Int));
        // Python's bounds: a time zone under 24 hours, 4,300 decimal digits, a float of
        // 60**173 at most.
        assert_eq!(refused("2026-01-01T10:00:00+24:00"), Some(ScalarTag::Timestamp));
        assert_eq!(
            v("2026-01-01T10:00:00+23:59"),
            Value::Timestamp("2026-01-01T10:00:00+23:59".into())
        );
        assert_eq!(refused(&"1".repeat(4301)), Some(ScalarTag::Int));
        assert!(matches!(v(&"1".repeat(4300)), Value::BigInt(_)));
        assert_eq!(
            refused(&format!("1{}.5", ":30".repeat(174))),
            Some(ScalarTag::Float)
        );
        assert!(matches!(v(&format!("1{}.5", ":30".repeat(173))), Value::Float(_)));
        // Integers beyond 64 bits in every notation.
        assert_eq!(
            v("0x742d35Cc6634C0532925a3b844Bc454e4438f44e"),
            Value::BigInt("663251149454111653834953623422353210259843642446".into())
        );
        assert_eq!(
            v("0777777777777777777777777777777777"),
            Value::BigInt("633825300114114700748351602687".into())
        );
        assert_eq!(
            v("1:59:59:59:59:59:59:59:59:59:59:59:59:59"),
            Value::BigInt("261213880319999999999999".into())
        );
        assert_eq!(
            v(&format!("0x{}", "f".repeat(5000))),
            Value::BigInt(format!("0x{}", "f".repeat(5000)).into())
        );
        assert_eq!(
            v(&format!("-0{}", "7".repeat(5000))),
            Value::BigInt(format!("-0x{}", "f".repeat(3750)).into())
        );
    }

    #[test]
    fn yaml12_differences() {
        let differs = |s: &str| compare(s, &v(s)).is_some();
        for s in [
            "on",
            "off",
            "yes",
            "no",
            "010",
            "1:30",
            "1e3",
            "0b101",
            "1_000",
            "-.5",
            "0o10",
            "08",
            "2021-01-01",
        ] {
            assert!(differs(s), "{s} should differ");
        }
        for s in ["true", "1", "1.5", "0x1F", ".inf", "name", "y", "1.0e+3", "", "~"] {
            assert!(!differs(s), "{s} should agree");
        }
    }

    #[test]
    fn version_text() {
        assert!(version_note("version", "1.10", &v("1.10")).is_some());
        assert!(version_note("runtime_version", "3.10", &v("3.10")).is_some());
        assert!(version_note("version", "1.0", &v("1.0")).is_none());
        assert!(version_note("version", "2", &v("2")).is_none());
        assert!(version_note("name", "1.10", &v("1.10")).is_none());
    }

    #[test]
    fn python_repr() {
        assert_eq!(python_float_repr(1.1), "1.1");
        assert_eq!(python_float_repr(1000.0), "1000.0");
        assert_eq!(python_float_repr(1e16), "1e+16");
        assert_eq!(python_float_repr(1e15), "1000000000000000.0");
        assert_eq!(python_float_repr(0.0001), "0.0001");
        assert_eq!(python_float_repr(0.00001), "1e-05");
        assert_eq!(python_float_repr(-2.5e-7), "-2.5e-07");
        assert_eq!(python_float_repr(123.456), "123.456");
        assert_eq!(yaml_float_literal(2e-5), "2.0e-05");
        assert_eq!(yaml_float_literal(1000.0), "1000.0");
    }
}
