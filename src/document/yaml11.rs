//! Plain-scalar resolution as the Azure ML CLI performs it (PyYAML `safe_load`, YAML 1.1),
//! and as a YAML 1.2 reader would (core schema), so the two can be compared (AML003).
//!
//! The regular expressions are PyYAML's own (`yaml/resolver.py`), and the conversions
//! follow `yaml/constructor.py` (`construct_yaml_int`, `construct_yaml_float`).

use std::sync::LazyLock;

use regex::Regex;

use super::{NodeId, Value};

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

/// What a plain scalar means under PyYAML, or the tag it resolves to when PyYAML cannot
/// construct it.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainScalar {
    Value(Value),
    /// `<<`: a merge key.
    Merge,
    /// `=`: PyYAML resolves it to the `value` tag, which `safe_load` cannot construct.
    ValueTag,
    /// PyYAML resolves the scalar to `int` or `timestamp` and then fails to construct it
    /// (`ValueError`: `-0b_`, `2021-13-01`); the text says what it resolved to.
    Invalid(&'static str),
}

/// Resolves a plain scalar the way PyYAML's `SafeLoader` does.
pub fn resolve_plain(s: &str) -> PlainScalar {
    let first = s.chars().next();
    // PyYAML keys its implicit resolvers on the first character; do the same to skip the
    // regexes for ordinary words.
    match first {
        None => return PlainScalar::Value(Value::Null),
        Some('y' | 'Y' | 'n' | 'N' | 't' | 'T' | 'f' | 'F' | 'o' | 'O') => {
            // PyYAML's `bool` and `null` resolvers (`^(?:yes|Yes|YES|...)$`), as words.
            if matches!(
                s,
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
                let b = matches!(s.as_bytes()[0], b'y' | b'Y' | b't' | b'T') || s.eq_ignore_ascii_case("on");
                return PlainScalar::Value(Value::Bool(b));
            }
            if matches!(s, "null" | "Null" | "NULL") {
                return PlainScalar::Value(Value::Null);
            }
        }
        Some('~') if s == "~" => return PlainScalar::Value(Value::Null),
        Some('<') if s == "<<" => return PlainScalar::Merge,
        Some('=') if s == "=" => return PlainScalar::ValueTag,
        Some('-' | '+' | '.' | '0'..='9') => {
            if FLOAT11.is_match(s) {
                return PlainScalar::Value(construct_float(s));
            }
            if INT11.is_match(s) {
                return match construct_int(s) {
                    Some(v) => PlainScalar::Value(v),
                    None => PlainScalar::Invalid("an integer"),
                };
            }
            if TIMESTAMP11.is_match(s) {
                return if valid_timestamp(s) {
                    PlainScalar::Value(Value::Timestamp(s.into()))
                } else {
                    PlainScalar::Invalid("a date")
                };
            }
        }
        _ => {}
    }
    PlainScalar::Value(Value::Str(s.into()))
}

/// Whether Python's `datetime` accepts the date and time PyYAML extracts from a
/// timestamp (month 1-12, a day that exists, hour < 24, minute and second < 60).
fn valid_timestamp(s: &str) -> bool {
    let num = |t: &str| t.parse::<u32>().ok();
    let mut parts = s.splitn(3, '-');
    let (Some(y), Some(m), Some(rest)) = (
        parts.next().and_then(num),
        parts.next().and_then(num),
        parts.next(),
    ) else {
        return false;
    };
    let day_len = rest.bytes().take_while(u8::is_ascii_digit).count();
    let Some(d) = num(&rest[..day_len]) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if y == 0 || d == 0 || d > days {
        return false;
    }
    let time = rest[day_len..].trim_start_matches(['T', 't', ' ', '\t']);
    if time.is_empty() {
        return true;
    }
    let mut hms = time.splitn(3, ':');
    let h = hms.next().and_then(num);
    let mi = hms.next().and_then(num);
    let sec = hms
        .next()
        .and_then(|t| num(&t[..t.bytes().take_while(u8::is_ascii_digit).count()]));
    matches!((h, mi, sec), (Some(h), Some(mi), Some(sec)) if h < 24 && mi < 60 && sec < 60)
}

/// PyYAML's `construct_yaml_int`. `None` when Python's `int()` would raise.
pub fn construct_int(s: &str) -> Option<Value> {
    let cleaned: String = s.chars().filter(|&c| c != '_').collect();
    let (negative, body) = match cleaned.as_bytes().first() {
        Some(b'-') => (true, &cleaned[1..]),
        Some(b'+') => (false, &cleaned[1..]),
        _ => (false, cleaned.as_str()),
    };
    let magnitude: i128 = if body == "0" {
        0
    } else if let Some(bin) = body.strip_prefix("0b") {
        parse_radix(bin, 2)?
    } else if let Some(hex) = body.strip_prefix("0x") {
        parse_radix(hex, 16)?
    } else if body.starts_with('0') {
        parse_radix(body, 8)?
    } else if body.contains(':') {
        let mut value: i128 = 0;
        for part in body.split(':') {
            let digit: i128 = part.parse().ok()?;
            value = value.checked_mul(60)?.checked_add(digit)?;
        }
        value
    } else {
        match body.parse::<i128>() {
            Ok(v) => v,
            // Python integers are unbounded: keep the digits.
            Err(_) if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) => {
                let digits = body.trim_start_matches('0');
                let text = if negative {
                    format!("-{digits}")
                } else {
                    digits.to_string()
                };
                return Some(Value::BigInt(text.into()));
            }
            Err(_) => return None,
        }
    };
    let signed = if negative { -magnitude } else { magnitude };
    Some(match i64::try_from(signed) {
        Ok(v) => Value::Int(v),
        Err(_) => Value::BigInt(signed.to_string().into()),
    })
}

fn parse_radix(digits: &str, radix: u32) -> Option<i128> {
    if digits.is_empty() {
        return None;
    }
    i128::from_str_radix(digits, radix).ok()
}

/// PyYAML's `construct_yaml_float`.
pub fn construct_float(s: &str) -> Value {
    let cleaned: String = s
        .chars()
        .filter(|&c| c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let (sign, body) = match cleaned.as_bytes().first() {
        Some(b'-') => (-1.0, &cleaned[1..]),
        Some(b'+') => (1.0, &cleaned[1..]),
        _ => (1.0, cleaned.as_str()),
    };
    let v = if body == ".inf" {
        f64::INFINITY
    } else if body == ".nan" {
        return Value::Float(f64::NAN);
    } else if body.contains(':') {
        let mut value = 0.0;
        for part in body.split(':') {
            value = value * 60.0 + parse_python_float(part).unwrap_or(0.0);
        }
        value
    } else {
        parse_python_float(body).unwrap_or(f64::NAN)
    };
    Value::Float(sign * v)
}

/// Python's `float()` accepts `1.`, `.5` and `1.e+3`; Rust's parser wants digits around
/// the dot in some of these, so add them.
fn parse_python_float(s: &str) -> Option<f64> {
    let mut t = String::with_capacity(s.len() + 2);
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'.' {
            if i == 0 || !bytes[i - 1].is_ascii_digit() {
                t.push('0');
            }
            t.push('.');
            if !bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                t.push('0');
            }
        } else {
            t.push(b as char);
        }
    }
    t.parse().ok()
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
        let v = if let Some(o) = s.strip_prefix("0o") {
            i128::from_str_radix(o, 8).ok()
        } else if let Some(h) = s.strip_prefix("0x") {
            i128::from_str_radix(h, 16).ok()
        } else {
            s.parse::<i128>().ok()
        };
        return match v.map(i64::try_from) {
            Some(Ok(i)) => Value::Int(i),
            Some(Err(_)) => Value::BigInt(v.unwrap_or_default().to_string().into()),
            None => Value::BigInt(s.trim_start_matches('+').into()),
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
            _ => parse_python_float(body).unwrap_or(f64::NAN),
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
    ) && !matches!(s.as_bytes()[0], b'-' | b'+' | b'.' | b'0'..=b'9')
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
        assert_eq!(resolve_plain("2021-13-01"), PlainScalar::Invalid("a date"));
        assert_eq!(resolve_plain("2021-02-29"), PlainScalar::Invalid("a date"));
        assert_eq!(v("2020-02-29"), Value::Timestamp("2020-02-29".into()));
        assert_eq!(resolve_plain("-0b_"), PlainScalar::Invalid("an integer"));
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
