//! What the infrastructure-as-code readers (ARM JSON, Bicep, Terraform) share: values as
//! their expressions evaluate statically ([`Ev`]: known, or unknown with why, string pieces
//! kept apart so a name's last segment is known even when its workspace part is not), the
//! functions ARM and Bicep have in common (`format`, `concat`, `toLower`...), the compute
//! resource body of the Azure Resource Manager API (`properties.computeType`,
//! `properties.properties.vmSize`, `scaleSettings`...) that ARM templates, Bicep and
//! Terraform's `azapi_resource` all write, and the settings made from them.
//!
//! Evaluation is bounded: a string stops growing at [`MAX_TEXT`] bytes, a list or map at
//! [`MAX_ITEMS`] items (then the value is unknown, with why), and readers memoise what a
//! name evaluates to, so a chain of variables that doubles a string at each step costs
//! linear time.

use std::path::{Path, PathBuf};

use super::common::Comment;
use crate::facts::computes::{ComputeDef, Derived, Scalar, Setting};
use crate::source::{SourceFile, Span};

/// The longest string an evaluation builds.
pub const MAX_TEXT: usize = 4096;
/// The most items of a list or map an evaluation builds.
pub const MAX_ITEMS: usize = 256;

/// A piece of an evaluated string.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    /// A piece not known statically, and why.
    Unknown(String),
}

/// An evaluated value.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    /// A string, as pieces (one `Text` when wholly known).
    Str(Vec<Part>),
    Int(i64),
    Bool(bool),
    Null,
    List(Vec<Ev>),
    Map(Vec<(String, Ev)>),
    /// Not known statically, and why.
    Unknown(String),
}

/// A value, and where it came from when that is not where it is used.
#[derive(Clone, Debug, PartialEq)]
pub struct Ev {
    pub v: V,
    /// The literal it came from, in the defining file (a parameter's default): findings
    /// get a label there.
    pub origin: Option<Span>,
    /// Where it came from when that is worth saying (another file, which of two won).
    pub note: Option<String>,
}

impl Ev {
    pub fn new(v: V) -> Ev {
        Ev {
            v,
            origin: None,
            note: None,
        }
    }

    pub fn text(s: impl Into<String>) -> Ev {
        Ev::new(V::Str(vec![Part::Text(s.into())]))
    }

    pub fn unknown(why: impl Into<String>) -> Ev {
        Ev::new(V::Unknown(why.into()))
    }

    pub fn int(i: i64) -> Ev {
        Ev::new(V::Int(i))
    }

    pub fn boolean(b: bool) -> Ev {
        Ev::new(V::Bool(b))
    }

    pub fn with_origin(mut self, origin: Option<Span>) -> Ev {
        self.origin = origin;
        self
    }

    pub fn with_note(mut self, note: Option<String>) -> Ev {
        if note.is_some() {
            self.note = note;
        }
        self
    }

    /// The whole string, when every piece is known.
    pub fn known_str(&self) -> Option<String> {
        match &self.v {
            V::Str(parts) => {
                let mut out = String::new();
                for p in parts {
                    match p {
                        Part::Text(t) => out.push_str(t),
                        Part::Unknown(_) => return None,
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// Why the value (or a piece of it) is not known, if it is not.
    pub fn why(&self) -> Option<String> {
        match &self.v {
            V::Unknown(w) => Some(w.clone()),
            V::Str(parts) => parts.iter().find_map(|p| match p {
                Part::Unknown(w) => Some(w.clone()),
                Part::Text(_) => None,
            }),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.v, V::Null)
    }

    /// The value as text pieces (numbers and booleans as written by the deployment
    /// engines: `4`, `true`), for interpolation and `concat`.
    pub fn pieces(&self) -> Vec<Part> {
        match &self.v {
            V::Str(parts) => parts.clone(),
            V::Int(i) => vec![Part::Text(i.to_string())],
            V::Bool(b) => vec![Part::Text(b.to_string())],
            V::Null => vec![Part::Text(String::new())],
            V::List(_) | V::Map(_) => vec![Part::Unknown("a list or an object is used as a string".into())],
            V::Unknown(w) => vec![Part::Unknown(w.clone())],
        }
    }

    /// The member `key` of a map (case-insensitively when `fold`).
    pub fn member(&self, key: &str, fold: bool) -> Option<&Ev> {
        match &self.v {
            V::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| {
                    if fold {
                        k.eq_ignore_ascii_case(key)
                    } else {
                        k == key
                    }
                })
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The compute's name a resource name gives: its last `/`-separated segment (ARM and
    /// Bicep name a child `'<workspace>/<compute>'`), known when that segment is.
    pub fn last_segment(&self) -> Ev {
        let V::Str(parts) = &self.v else {
            return self.clone();
        };
        // The last piece holding a `/`: only what follows it names the compute.
        let cut = parts
            .iter()
            .rposition(|p| matches!(p, Part::Text(t) if t.contains('/')));
        let Some(i) = cut else {
            return self.clone();
        };
        let mut rest = Vec::new();
        if let Part::Text(t) = &parts[i] {
            let tail = &t[t.rfind('/').map_or(0, |j| j + 1)..];
            rest.push(Part::Text(tail.to_string()));
        }
        rest.extend(parts[i + 1..].iter().cloned());
        let mut v = Ev::new(V::Str(rest));
        v.note = self.note.clone();
        // The literal is not the name any more: no label on it.
        v
    }
}

/// A value a deployment passes as text (`--parameters gpu=false`, `overrideParameters:
/// -gpu false`), read as the parameter's declared type the way Azure reads it: `true` or
/// `false` for a `bool` (any case), an integer for an `int`. Anything else stays as it is
/// (a mistyped value is the deployment's error, not a value amlint invents).
pub fn as_declared(v: &Ev, ty: Option<&str>) -> Ev {
    let mut out = v.clone();
    let (Some(ty), Some(text)) = (ty, v.known_str()) else {
        return out;
    };
    let text = text.trim();
    let typed = if ty.eq_ignore_ascii_case("bool") {
        (text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false"))
            .then(|| V::Bool(text.eq_ignore_ascii_case("true")))
    } else if ty.eq_ignore_ascii_case("int") {
        text.parse::<i64>().ok().map(V::Int)
    } else {
        None
    };
    if let Some(typed) = typed {
        out.v = typed;
    }
    out
}

/// Joins text pieces, merging neighbouring known ones; unknown beyond [`MAX_TEXT`].
pub fn join(pieces: impl IntoIterator<Item = Part>) -> Ev {
    let mut out: Vec<Part> = Vec::new();
    let mut len = 0usize;
    for p in pieces {
        match p {
            Part::Text(t) => {
                len += t.len();
                if len > MAX_TEXT {
                    return Ev::unknown(format!("the string is longer than {MAX_TEXT} bytes"));
                }
                match out.last_mut() {
                    Some(Part::Text(last)) => last.push_str(&t),
                    _ => out.push(Part::Text(t)),
                }
            }
            unknown => out.push(unknown),
        }
    }
    if out.is_empty() {
        out.push(Part::Text(String::new()));
    }
    Ev::new(V::Str(out))
}

/// Said of a resource or module call whose condition is `false` whatever the deployment
/// sets (a literal, or values the templates themselves pass).
pub const NEVER_DEPLOYED: &str = "never deployed as written: its condition is false whatever the deployment sets (the findings are about what it would deploy)";

/// Said of one whose condition is `false` only through the defaults of parameters the
/// deployment may set.
pub const FALSE_BY_DEFAULT: &str = "its condition is false with the default parameter values: it is deployed only when the deployment sets them otherwise";

/// The label at a Bicep module call's argument that makes the module's condition false
/// whatever the deployment sets (`enableGpu: false` for `if (enableGpu)`): a
/// [`ComputeDef::false_condition`](crate::facts::computes::ComputeDef::false_condition)
/// note of its own, said as is.
pub const ARGUMENT_NEVER_DEPLOYED: &str = "this argument makes the module's condition false whatever the deployment sets: the compute is never deployed as written, and the finding is about what it would deploy";

/// The same when the argument is false only through the default of a parameter of the
/// file checked.
pub const ARGUMENT_FALSE_BY_DEFAULT: &str = "this argument makes the module's condition false with the default parameter values: the compute is deployed only when the deployment sets them otherwise";

/// What a finding about a compute under a false condition says at the condition (a
/// label), given its note ([`NEVER_DEPLOYED`] or [`FALSE_BY_DEFAULT`]; at a module call's
/// argument, [`ARGUMENT_NEVER_DEPLOYED`] or [`ARGUMENT_FALSE_BY_DEFAULT`], said as is).
pub fn condition_label(note: &str) -> &'static str {
    if note == ARGUMENT_NEVER_DEPLOYED {
        ARGUMENT_NEVER_DEPLOYED
    } else if note == ARGUMENT_FALSE_BY_DEFAULT {
        ARGUMENT_FALSE_BY_DEFAULT
    } else if note == NEVER_DEPLOYED {
        "this condition is false whatever the deployment sets: the compute is never deployed as written, and the finding is about what it would deploy"
    } else {
        "this condition is false with the default parameter values: the compute is deployed only when the deployment sets them otherwise"
    }
}

/// The note a resource's or module call's condition gets: `value` is the condition
/// evaluated, `strictly` evaluates it again with the defaults of the checked file's
/// parameters unknown. `None`: the condition is not known to be `false`.
pub fn condition_note(value: &Ev, strictly: impl FnOnce() -> Ev) -> Option<&'static str> {
    if value.v != V::Bool(false) {
        return None;
    }
    Some(if strictly().v == V::Bool(false) {
        NEVER_DEPLOYED
    } else {
        FALSE_BY_DEFAULT
    })
}

/// The functions ARM templates and Bicep share, on evaluated arguments: `concat`,
/// `format`, `toLower`, `toUpper`, `string`, `trim`, `coalesce`, `last`, `split`, the logic
/// of conditions (`not`, `and`, `or`, `equals`, `if`)... `None`
/// when `name` is not one of them (the caller says why the value is unknown).
pub fn arm_function(name: &str, args: &[Ev]) -> Option<Ev> {
    arm_function_of(name, args).map(|v| carry(v, args.iter()))
}

/// `v` with the notes of `from` (each said once, in order, at most four), when it has none itself (a
/// value built from parameters files' values says where each came from).
pub fn carry<'a>(mut v: Ev, from: impl IntoIterator<Item = &'a Ev>) -> Ev {
    if v.note.is_none() {
        let mut notes: Vec<&str> = Vec::new();
        // At most four: a note is for people, and a value may be built from thousands.
        for n in from.into_iter().filter_map(|f| f.note.as_deref()) {
            if !notes.contains(&n) && notes.len() < 4 {
                notes.push(n);
            }
        }
        v.note = (!notes.is_empty()).then(|| notes.join("; "));
    }
    v
}

fn arm_function_of(name: &str, args: &[Ev]) -> Option<Ev> {
    let lower = name.to_ascii_lowercase();
    arm_string_function(name, &lower, args)
        .or_else(|| arm_conversion(&lower, args))
        .or_else(|| arm_list_function(&lower, args))
        .or_else(|| arm_pure_function(name, &lower, args))
}

/// ARM's and Bicep's deterministic string and array functions that depend only on their
/// arguments (`lower`: the name lower-cased): `take`, `skip`, `substring`, `replace`,
/// `join`, `length`, `padLeft`, `range`, `min`, `max`, `startsWith`, `endsWith`. Strings are
/// counted as ARM counts them (.NET: UTF-16 code units). An argument that is not known
/// makes the result unknown with that argument's reason; arguments ARM rejects (a
/// `substring` out of the string, an empty `replace` pattern...) make it unknown with
/// what is wrong, never a guess.
fn arm_pure_function(name: &str, lower: &str, args: &[Ev]) -> Option<Ev> {
    let r = match lower {
        "take" | "skip" => take_or_skip(name, lower == "take", args),
        "substring" => substring(name, args),
        "replace" => (|| {
            let [s, old, new] = args else {
                return Err(Ev::unknown(format!("`{name}()` takes three arguments")));
            };
            let (s, old, new) = (
                str_arg(name, s, "string")?,
                str_arg(name, old, "string to replace")?,
                str_arg(name, new, "replacement")?,
            );
            if old.is_empty() {
                return Err(Ev::unknown(format!(
                    "`{name}()` of an empty string to replace fails at deployment"
                )));
            }
            Ok(join([Part::Text(s.replace(&old, &new))]))
        })(),
        "join" => (|| {
            let [list, sep] = args else {
                return Err(Ev::unknown(format!("`{name}()` takes two arguments")));
            };
            let sep = str_arg(name, sep, "delimiter")?;
            let V::List(items) = &list.v else {
                return Err(Ev::unknown(
                    list.why()
                        .unwrap_or_else(|| format!("`{name}()` of a value that is not a list")),
                ));
            };
            let mut texts = Vec::with_capacity(items.len());
            for item in items {
                texts.push(str_arg(name, item, "item")?);
            }
            Ok(join([Part::Text(texts.join(&sep))]))
        })(),
        "length" => match args {
            [a] => match &a.v {
                V::List(l) => Ok(Ev::int(l.len() as i64)),
                V::Map(m) => Ok(Ev::int(m.len() as i64)),
                _ => str_arg(name, a, "value").map(|s| Ev::int(s.encode_utf16().count() as i64)),
            },
            _ => Err(Ev::unknown(format!("`{name}()` takes one argument"))),
        },
        "padleft" => pad_left(name, args),
        "range" => (|| {
            let [start, count] = args else {
                return Err(Ev::unknown(format!("`{name}()` takes two arguments")));
            };
            let start = int_arg(name, start, "start index")?;
            let count = int_arg(name, count, "count")?;
            // Resource Manager rejects a negative count, more than 10,000 items, and an
            // end beyond a 32-bit integer.
            if !(0..=10_000).contains(&count)
                || start
                    .checked_add(count)
                    .is_none_or(|end| end > i64::from(i32::MAX))
            {
                return Err(Ev::unknown(format!(
                    "`{name}({start}, {count})` fails at deployment"
                )));
            }
            if count as usize > MAX_ITEMS {
                return Err(Ev::unknown(format!(
                    "`{name}({start}, {count})` has more items than amlint expands ({MAX_ITEMS})"
                )));
            }
            Ok(Ev::new(V::List((start..start + count).map(Ev::int).collect())))
        })(),
        "min" | "max" => (|| {
            let list: &[Ev] = match args {
                [Ev { v: V::List(l), .. }] => l,
                [a] if a.why().is_some() => return Err(Ev::unknown(a.why().unwrap_or_default())),
                _ => args,
            };
            let mut nums = Vec::with_capacity(list.len());
            for a in list {
                nums.push(int_arg(name, a, "value")?);
            }
            let best = if lower == "min" {
                nums.iter().min()
            } else {
                nums.iter().max()
            };
            best.map(|n| Ev::int(*n))
                .ok_or_else(|| Ev::unknown(format!("`{name}()` of no numbers fails at deployment")))
        })(),
        "startswith" | "endswith" => (|| {
            let [s, find] = args else {
                return Err(Ev::unknown(format!("`{name}()` takes two arguments")));
            };
            // ARM compares case-insensitively.
            let s = str_arg(name, s, "string")?.to_lowercase();
            let find = str_arg(name, find, "string to find")?.to_lowercase();
            Ok(Ev::boolean(if lower == "startswith" {
                s.starts_with(&find)
            } else {
                s.ends_with(&find)
            }))
        })(),
        _ => return None,
    };
    Some(r.unwrap_or_else(|e| e))
}

/// A known string argument of `fname` (`what` names it), or the value unknown with why.
fn str_arg(fname: &str, a: &Ev, what: &str) -> Result<String, Ev> {
    if let Some(s) = a.known_str() {
        return Ok(s);
    }
    Err(Ev::unknown(a.why().unwrap_or_else(|| {
        format!("the {what} of `{fname}()` is not a string")
    })))
}

/// A known integer argument of `fname` (`what` names it), or the value unknown with why.
fn int_arg(fname: &str, a: &Ev, what: &str) -> Result<i64, Ev> {
    match &a.v {
        V::Int(i) => Ok(*i),
        _ => Err(Ev::unknown(a.why().unwrap_or_else(|| {
            format!("the {what} of `{fname}()` is not an integer")
        }))),
    }
}

/// A string from UTF-16 code units (ARM's characters); unknown when a cut falls inside a
/// character written as two of them.
fn from_units(fname: &str, units: &[u16]) -> Result<Ev, Ev> {
    String::from_utf16(units)
        .map(Ev::text)
        .map_err(|_| Ev::unknown(format!("`{fname}()` cuts a character in two")))
}

/// `take(value, n)` (`take`) or `skip(value, n)`: the first `n` items or characters, or
/// all but them; `n <= 0` takes none (skips none), `n` beyond the length takes all (skips
/// all).
fn take_or_skip(name: &str, take: bool, args: &[Ev]) -> Result<Ev, Ev> {
    let [value, n] = args else {
        return Err(Ev::unknown(format!("`{name}()` takes two arguments")));
    };
    let n = int_arg(name, n, "count")?;
    let cut = |len: usize| usize::try_from(n.max(0)).unwrap_or(usize::MAX).min(len);
    if let V::List(items) = &value.v {
        let k = cut(items.len());
        let kept = if take { &items[..k] } else { &items[k..] };
        return Ok(Ev::new(V::List(kept.to_vec())));
    }
    let s = str_arg(name, value, "value")?;
    let units: Vec<u16> = s.encode_utf16().collect();
    let k = cut(units.len());
    from_units(name, if take { &units[..k] } else { &units[k..] })
}

/// `substring(s, start, length)`: `length` characters from `start` (zero-based), the rest
/// of the string without `length`; ARM fails when they do not lie within the string.
fn substring(name: &str, args: &[Ev]) -> Result<Ev, Ev> {
    let (s, start, len) = match args {
        [s, start] => (s, start, None),
        [s, start, len] => (s, start, Some(len)),
        _ => return Err(Ev::unknown(format!("`{name}()` takes two or three arguments"))),
    };
    let s = str_arg(name, s, "string")?;
    let start = int_arg(name, start, "start index")?;
    let len = len.map(|l| int_arg(name, l, "length")).transpose()?;
    let units: Vec<u16> = s.encode_utf16().collect();
    let total = units.len() as i64;
    let len = len.unwrap_or(total - start);
    if start < 0 || len < 0 || start > total || start.saturating_add(len) > total {
        return Err(Ev::unknown(format!(
            "`{name}()` of {len} characters from index {start} does not lie within the string of {total} characters: the deployment fails"
        )));
    }
    from_units(name, &units[start as usize..(start + len) as usize])
}

/// `padLeft(value, totalLength, char)`: the string (or number) with `char` (a space
/// without it) added on the left up to `totalLength` characters; unchanged when it is as
/// long already.
fn pad_left(name: &str, args: &[Ev]) -> Result<Ev, Ev> {
    let (value, total, pad) = match args {
        [v, t] => (v, t, None),
        [v, t, p] => (v, t, Some(p)),
        _ => return Err(Ev::unknown(format!("`{name}()` takes two or three arguments"))),
    };
    let s = match &value.v {
        V::Int(i) => i.to_string(),
        _ => str_arg(name, value, "value")?,
    };
    let total = int_arg(name, total, "total length")?;
    let pad = match pad {
        Some(p) => str_arg(name, p, "padding character")?,
        None => " ".into(),
    };
    let mut pad_units = pad.encode_utf16();
    let (Some(unit), None) = (pad_units.next(), pad_units.next()) else {
        return Err(Ev::unknown(format!(
            "the padding character of `{name}()` is not one character: the deployment fails"
        )));
    };
    let len = s.encode_utf16().count() as i64;
    if total <= len {
        return Ok(Ev::text(s));
    }
    if total as usize > MAX_TEXT {
        return Err(Ev::unknown(format!("the string is longer than {MAX_TEXT} bytes")));
    }
    let mut units: Vec<u16> = std::iter::repeat_n(unit, (total - len) as usize).collect();
    units.extend(s.encode_utf16());
    from_units(name, &units)
}

/// ARM's and Bicep's string functions (`lower`: the name lower-cased): `concat` (of
/// strings, or of lists), `format`, `toLower`, `toUpper`, `trim`, `string`, `split`.
fn arm_string_function(name: &str, lower: &str, args: &[Ev]) -> Option<Ev> {
    let one = |f: fn(&str) -> String| -> Ev {
        match args.first() {
            Some(a) => map_text(a, f).unwrap_or_else(|| {
                Ev::unknown(
                    a.why()
                        .unwrap_or_else(|| format!("`{name}` of a value that is not a string")),
                )
            }),
            None => Ev::unknown(format!("`{name}()` without an argument")),
        }
    };
    Some(match lower {
        "concat" => {
            if args.iter().any(|a| matches!(a.v, V::List(_))) {
                concat_lists(args)
                    .unwrap_or_else(|| Ev::unknown("`concat` of a list and a value that is not one"))
            } else {
                join(args.iter().flat_map(Ev::pieces))
            }
        }
        "format" => {
            let Some(fmt) = args.first() else {
                return Some(Ev::unknown("`format()` without a format string"));
            };
            let Some(fmt) = fmt.known_str() else {
                return Some(Ev::unknown(
                    fmt.why()
                        .unwrap_or_else(|| "the format string is not known".into()),
                ));
            };
            format_pieces(&fmt, &args[1..])
        }
        "tolower" => one(|s| s.to_lowercase()),
        "toupper" => one(|s| s.to_uppercase()),
        "trim" => one(|s| s.trim().to_string()),
        "string" => match args.first() {
            Some(a) => join(a.pieces()),
            None => Ev::unknown("`string()` without an argument"),
        },
        "split" => match (
            args.first().and_then(Ev::known_str),
            args.get(1).and_then(Ev::known_str),
        ) {
            (Some(s), Some(sep)) if !sep.is_empty() => Ev::new(V::List(
                s.split(sep.as_str()).take(MAX_ITEMS).map(Ev::text).collect(),
            )),
            _ => Ev::unknown("`split` of a string that is not known"),
        },
        // Logic, for a resource's `condition`: a known argument that decides the result
        // decides it whatever the others are.
        "not" => match args {
            [Ev { v: V::Bool(b), .. }] => Ev::boolean(!b),
            _ => Ev::unknown("`not` of a value that is not a known boolean"),
        },
        "and" | "or" => {
            let decisive = lower == "or";
            if args.iter().any(|a| a.v == V::Bool(decisive)) {
                Ev::boolean(decisive)
            } else if !args.is_empty() && args.iter().all(|a| matches!(a.v, V::Bool(_))) {
                Ev::boolean(!decisive)
            } else {
                Ev::unknown(format!("`{lower}` of values that are not known booleans"))
            }
        }
        "equals" => match args {
            [a, b] => match (&a.v, &b.v) {
                (V::Int(x), V::Int(y)) => Ev::boolean(x == y),
                (V::Bool(x), V::Bool(y)) => Ev::boolean(x == y),
                _ => match (a.known_str(), b.known_str()) {
                    (Some(x), Some(y)) => Ev::boolean(x == y),
                    _ => Ev::unknown("`equals` of values that are not known"),
                },
            },
            _ => Ev::unknown("`equals` takes two values"),
        },
        "if" => match args {
            [Ev { v: V::Bool(c), .. }, yes, no] => {
                if *c {
                    yes.clone()
                } else {
                    no.clone()
                }
            }
            _ => Ev::unknown("`if` of a condition that is not known"),
        },
        _ => return None,
    })
}

/// ARM's and Bicep's `coalesce`, `json`, `int` and `bool` (`lower`: the name lower-cased).
fn arm_conversion(lower: &str, args: &[Ev]) -> Option<Ev> {
    Some(match lower {
        // The first argument that is not null; an unknown one may be null at deployment,
        // so it makes the result unknown.
        "coalesce" => args
            .iter()
            .find(|a| !a.is_null())
            .cloned()
            .unwrap_or_else(|| Ev::new(V::Null)),
        "json" => match args.first().and_then(Ev::known_str) {
            Some(s) if s.trim() == "null" => Ev::new(V::Null),
            _ => Ev::unknown("`json()` of a value other than `'null'`"),
        },
        "int" => match args.first() {
            Some(a) => match int_of(a) {
                Some(i) => Ev::int(i),
                None => Ev::unknown(
                    a.why()
                        .unwrap_or_else(|| "`int()` of a value that is not a number".into()),
                ),
            },
            None => Ev::unknown("`int()` without an argument"),
        },
        "bool" => match args.first() {
            Some(Ev { v: V::Bool(b), .. }) => Ev::boolean(*b),
            Some(a) => match a.known_str().map(|s| s.to_ascii_lowercase()) {
                Some(s) if s == "true" => Ev::boolean(true),
                Some(s) if s == "false" => Ev::boolean(false),
                _ => Ev::unknown(
                    a.why()
                        .unwrap_or_else(|| "`bool()` of a value that is not a boolean".into()),
                ),
            },
            None => Ev::unknown("`bool()` without an argument"),
        },
        _ => return None,
    })
}

/// ARM's and Bicep's `first` and `last` (`lower`: the name lower-cased; `last` of a string
/// is its last character).
fn arm_list_function(lower: &str, args: &[Ev]) -> Option<Ev> {
    Some(match lower {
        "union" => union(args),
        // Whether a string, list or object is empty (`null` is).
        "empty" => match args.first().map(|a| &a.v) {
            Some(V::List(l)) => Ev::boolean(l.is_empty()),
            Some(V::Map(m)) => Ev::boolean(m.is_empty()),
            Some(V::Null) => Ev::boolean(true),
            Some(V::Str(_)) => match args[0].known_str() {
                Some(t) => Ev::boolean(t.is_empty()),
                None => Ev::unknown(args[0].why().unwrap_or_else(|| "the string is not known".into())),
            },
            Some(V::Unknown(why)) => Ev::unknown(why.clone()),
            _ => Ev::unknown("`empty` of a value that is not a string, list or object"),
        },
        // `createObject('k1', v1, 'k2', v2…)`: an object of known keys.
        "createobject" => {
            let mut entries = Vec::new();
            for pair in args.chunks(2).take(MAX_ITEMS) {
                match (pair[0].known_str(), pair.get(1)) {
                    (Some(k), Some(v)) => entries.push((k, v.clone())),
                    _ => {
                        return Some(Ev::unknown(
                            "`createObject` with a key that is not known, or without its value",
                        ));
                    }
                }
            }
            Ev::new(V::Map(entries))
        }
        // Of a list, its first or last item; of a string, its first or last character.
        f @ ("first" | "last") => {
            let first = f == "first";
            match args.first() {
                Some(Ev {
                    v: V::List(items), ..
                }) => if first { items.first() } else { items.last() }
                    .cloned()
                    .unwrap_or_else(|| Ev::unknown(format!("`{f}` of an empty list"))),
                Some(a) => match a.known_str() {
                    Some(s) => {
                        let c = if first { s.chars().next() } else { s.chars().last() };
                        Ev::text(c.map(String::from).unwrap_or_default())
                    }
                    None => Ev::unknown(a.why().unwrap_or_else(|| {
                        let what = if first { "not a known list" } else { "not known" };
                        format!("`{f}` of a value that is {what}")
                    })),
                },
                None => Ev::unknown(format!("`{f}()` without an argument")),
            }
        }
        _ => return None,
    })
}

/// ARM's and Bicep's `union`: of objects, one object with every key, the last value of
/// each, nested objects merged the same way (ARM merges them recursively); of lists, one
/// list with each item once, in order. Unknown when an argument is not known, or when
/// objects and lists are mixed.
pub fn union(args: &[Ev]) -> Ev {
    if let Some(why) = args.iter().find_map(Ev::why) {
        return Ev::unknown(why);
    }
    if args.iter().all(|a| matches!(a.v, V::List(_))) && !args.is_empty() {
        let mut items: Vec<Ev> = Vec::new();
        for a in args {
            if let V::List(l) = &a.v {
                for item in l {
                    if items.len() < MAX_ITEMS && !items.iter().any(|i| i.v == item.v) {
                        items.push(item.clone());
                    }
                }
            }
        }
        return Ev::new(V::List(items));
    }
    if !args.iter().all(|a| matches!(a.v, V::Map(_))) || args.is_empty() {
        return Ev::unknown("`union` of values that are not all objects or all lists");
    }
    let mut merged = Ev::new(V::Map(Vec::new()));
    for a in args {
        merge_into(&mut merged, a);
    }
    merged
}

/// Merges the object `from` into the object `into`, key by key (a nested object into the
/// nested object of the same key), without recursion: at most [`MAX_DEPTH_MERGE`]
/// levels are merged, deeper ones replaced whole.
fn merge_into(into: &mut Ev, from: &Ev) {
    const MAX_DEPTH_MERGE: usize = 32;
    // Pairs of (path of keys into `into`, the object to merge there).
    let mut work: Vec<(Vec<String>, &Ev)> = vec![(Vec::new(), from)];
    while let Some((path, src)) = work.pop() {
        let V::Map(entries) = &src.v else { continue };
        let Some(t) = members_at(into, &path) else {
            continue;
        };
        for (k, v) in entries.iter().take(MAX_ITEMS) {
            match t.iter().rposition(|(tk, _)| tk.eq_ignore_ascii_case(k)) {
                Some(i)
                    if matches!((&t[i].1.v, &v.v), (V::Map(_), V::Map(_)))
                        && path.len() < MAX_DEPTH_MERGE =>
                {
                    let mut deeper = path.clone();
                    deeper.push(k.clone());
                    work.push((deeper, v));
                }
                Some(i) => t[i].1 = v.clone(),
                None if t.len() < MAX_ITEMS => t.push((k.clone(), v.clone())),
                None => {}
            }
        }
    }
}

/// The members of the object at `path` (keys, case-insensitively, the last of each) in
/// `v`.
fn members_at<'a>(mut v: &'a mut Ev, path: &[String]) -> Option<&'a mut Vec<(String, Ev)>> {
    for k in path {
        let V::Map(t) = &mut v.v else { return None };
        let i = t.iter().rposition(|(tk, _)| tk.eq_ignore_ascii_case(k))?;
        v = &mut t[i].1;
    }
    match &mut v.v {
        V::Map(t) => Some(t),
        _ => None,
    }
}

/// The lists `args` joined into one (cut at [`MAX_ITEMS`]); `None` when one of them is
/// not a list.
pub fn concat_lists(args: &[Ev]) -> Option<Ev> {
    let mut items = Vec::new();
    for a in args {
        let V::List(l) = &a.v else {
            return None;
        };
        items.extend(l.iter().cloned());
    }
    items.truncate(MAX_ITEMS);
    Some(Ev::new(V::List(items)))
}

/// A value as an integer: a number, or a known string that holds one (blanks around it
/// ignored).
pub fn int_of(v: &Ev) -> Option<i64> {
    match &v.v {
        V::Int(i) => Some(*i),
        _ => v.known_str().and_then(|s| s.trim().parse::<i64>().ok()),
    }
}

/// `f` applied to the known pieces of a string (`toLower` of `'${ws}-GPU'`); `None` when
/// `v` is not a string.
pub fn map_text(v: &Ev, f: fn(&str) -> String) -> Option<Ev> {
    match &v.v {
        V::Str(parts) => Some(Ev::new(V::Str(
            parts
                .iter()
                .map(|p| match p {
                    Part::Text(t) => Part::Text(f(t)),
                    u => u.clone(),
                })
                .collect(),
        ))),
        _ => None,
    }
}

/// `format('{0}/{1}', a, b)` (ARM and Bicep: .NET composite formatting) and Python's
/// `'{}-{1}'.format(a, b)`: `{{`/`}}` escape a brace, `{}` is the next argument; a format
/// specifier (after `:`) is not applied, so only its absence is supported.
pub fn format_pieces(fmt: &str, args: &[Ev]) -> Ev {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut next = 0usize;
    let mut chars = fmt.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if matches!(chars.peek(), Some((_, '{'))) => {
                chars.next();
                text.push('{');
            }
            '}' if matches!(chars.peek(), Some((_, '}'))) => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let Some(close) = fmt[i..].find('}') else {
                    return Ev::unknown("the format string has an unclosed `{`");
                };
                let inner = &fmt[i + 1..i + close];
                let index = inner.split([',', ':']).next().unwrap_or("").trim();
                if inner.contains(':') || inner.contains(',') {
                    return Ev::unknown(format!("the format item `{{{inner}}}` has a format specifier"));
                }
                let n = if index.is_empty() {
                    next += 1;
                    next - 1
                } else {
                    match index.parse::<usize>() {
                        Ok(n) => n,
                        Err(_) => {
                            return Ev::unknown(format!("`{{{inner}}}` is not a positional format item"));
                        }
                    }
                };
                let Some(arg) = args.get(n) else {
                    return Ev::unknown(format!("the format item `{{{n}}}` has no argument"));
                };
                pieces.push(Part::Text(std::mem::take(&mut text)));
                pieces.extend(arg.pieces());
                while let Some((j, _)) = chars.peek() {
                    if *j > i + close {
                        break;
                    }
                    chars.next();
                }
            }
            c => text.push(c),
        }
    }
    pieces.push(Part::Text(text));
    join(pieces)
}

/// An ISO 8601 duration (`PT5M`, `PT120S`, `PT1H30M`) in seconds, as Azure ML YAML's
/// `idle_time_before_scale_down` holds it.
pub fn iso_seconds(s: &str) -> Option<i64> {
    let rest = s.trim().strip_prefix(['P', 'p'])?;
    let (days, time) = match rest.split_once(['T', 't']) {
        Some((d, t)) => (d, t),
        None => (rest, ""),
    };
    let mut total: i64 = 0;
    let mut units_seen = 0;
    let mut take = |part: &str, units: &[(char, i64)]| -> Option<()> {
        let mut num = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() {
                num.push(c);
            } else {
                let mult = units.iter().find(|(u, _)| u.eq_ignore_ascii_case(&c))?.1;
                let n: i64 = num.parse().ok()?;
                total = total.checked_add(n.checked_mul(mult)?)?;
                units_seen += 1;
                num.clear();
            }
        }
        num.is_empty().then_some(())
    };
    take(days, &[('D', 86_400)])?;
    take(time, &[('H', 3_600), ('M', 60), ('S', 1)])?;
    (units_seen > 0).then_some(total)
}

/// An object as a compute resource body is written, whatever the language: fields with
/// their key spans, values either written in place (a nested object, or a leaf with its
/// expression) or evaluated from elsewhere (a variable holding an object).
#[derive(Clone, Debug)]
pub enum BodyNode {
    Map(Vec<BodyField>),
    Leaf(Leaf),
}

#[derive(Clone, Debug)]
pub struct BodyField {
    pub name: String,
    pub key: Span,
    pub value: BodyNode,
}

/// A value as written: the expression's span and text, what it evaluates to, and — when
/// it is a literal whose text is exactly its value — the span of that text (a fix may
/// replace it).
#[derive(Clone, Debug)]
pub struct Leaf {
    pub span: Span,
    pub written: String,
    pub val: Ev,
    pub literal: Option<Span>,
}

impl BodyNode {
    /// The field `name` of a map (case-insensitively, as Azure Resource Manager reads
    /// property names), the last one written.
    pub fn field(&self, name: &str) -> Option<&BodyField> {
        match self {
            BodyNode::Map(fields) => fields.iter().rev().find(|f| f.name.eq_ignore_ascii_case(name)),
            BodyNode::Leaf(_) => None,
        }
    }
}

/// Where a path of a compute body leads: a field written in place, or a member of an
/// object a variable holds (then its span is where the variable is used).
enum Found<'a> {
    Written(&'a BodyField),
    Held {
        key: Span,
        span: Span,
        written: &'a str,
        val: Ev,
    },
}

impl<'a> Found<'a> {
    /// What was found as one value: the key that sets it, where the value is, how it is
    /// written, and what it is; or the field of an object written in the file.
    fn value(self) -> Result<(Span, Span, &'a str, Ev), &'a BodyField> {
        match self {
            Found::Written(f) => match &f.value {
                BodyNode::Leaf(leaf) => Ok((f.key, leaf.span, leaf.written.as_str(), leaf.val.clone())),
                BodyNode::Map(_) => Err(f),
            },
            Found::Held {
                key,
                span,
                written,
                val,
            } => Ok((key, span, written, val)),
        }
    }
}

/// The name of the field a Bicep spread (`...base`) is held under in a [`BodyNode::Map`]:
/// no property is named so.
pub const SPREAD: &str = "...";

/// What `path` leads to in `root`. A value that is not known on the way (a parameter
/// without a value, a function amlint does not evaluate, a spread of such) is found as
/// that unknown value: whatever it holds is not known, rather than absent.
fn find<'a>(root: &'a BodyNode, path: &[&str]) -> Option<Found<'a>> {
    let mut node = root;
    for (i, seg) in path.iter().enumerate() {
        match node {
            BodyNode::Map(fields) => {
                // The last field of that name, unless a spread written after it may hold
                // the name (a spread after it wins, as in Bicep).
                let mut found = None;
                for f in fields.iter().rev() {
                    if f.name == SPREAD {
                        if let BodyNode::Leaf(leaf) = &f.value
                            && let Some(held) = held(leaf, &path[i..])
                        {
                            return Some(held);
                        }
                    } else if f.name.eq_ignore_ascii_case(seg) {
                        found = Some(f);
                        break;
                    }
                }
                let f = found?;
                if i + 1 == path.len() {
                    return Some(Found::Written(f));
                }
                node = &f.value;
            }
            // An object from a variable: look inside its value.
            BodyNode::Leaf(leaf) => return held(leaf, &path[i..]),
        }
    }
    None
}

/// The member at `path` of the value `leaf` holds, found where `leaf` is written; the
/// unknown value itself when one on the way is not known; `None` when it is known to hold
/// no such member.
fn held<'a>(leaf: &'a Leaf, path: &[&str]) -> Option<Found<'a>> {
    let mut v = &leaf.val;
    for s in path {
        if matches!(v.v, V::Unknown(_)) {
            break;
        }
        v = v.member(s, true)?;
    }
    Some(Found::Held {
        key: leaf.span,
        span: leaf.span,
        written: &leaf.written,
        val: v.clone(),
    })
}

/// The name setting of an ARM-style compute resource: the last `/` segment of its name
/// (`'<workspace>/<compute>'`), in place when the literal's tail is exactly the name.
pub fn name_setting(leaf: &Leaf, key: Option<Span>) -> Setting {
    let seg = leaf.val.last_segment();
    match seg.known_str() {
        Some(name) if !name.is_empty() => {
            if let (Some(lit), Some(full)) = (leaf.literal, leaf.val.known_str()) {
                let at = lit.start + (full.len() - name.len()) as u32;
                return Setting::literal(Scalar::Str(name), Span::new(at, lit.end), key);
            }
            let mut s = Setting::literal(Scalar::Str(name), leaf.span, key);
            s.written = leaf.written.clone();
            s.origin = seg.origin;
            s.in_place = false;
            s
        }
        Some(_) => Setting::dynamic(&leaf.written, "the name's last segment is empty", leaf.span, key),
        None => Setting::dynamic(
            &leaf.written,
            seg.why().unwrap_or_else(|| "the name is not a string".into()),
            leaf.span,
            key,
        ),
    }
}

/// `v[index]`: a list's item or a map's member (`fold`: keys compared in any case).
pub fn index_of(v: &Ev, index: &Ev, fold: bool) -> Ev {
    if let Some(w) = v.why().or_else(|| index.why()) {
        return Ev::unknown(w);
    }
    match (&v.v, &index.v) {
        (V::List(items), V::Int(i)) => usize::try_from(*i)
            .ok()
            .and_then(|i| items.get(i))
            .cloned()
            .unwrap_or_else(|| Ev::unknown("the index is beyond the list")),
        (V::Map(_), V::Str(_)) => {
            let k = index.known_str().unwrap_or_default();
            v.member(&k, fold)
                .cloned()
                .unwrap_or_else(|| Ev::unknown(format!("the object has no `{k}`")))
        }
        _ => Ev::unknown("an index of a value that is not a list or object"),
    }
}

/// A JSON value of another file (no origin: the literal is not in the defining file); a
/// string that is an ARM expression (`[...]`), or a placeholder of the Azure quickstart
/// templates' test pipeline ([`quickstart_placeholder`]), is unknown when `arm`.
pub fn json_value(
    doc: &crate::document::Document,
    id: crate::document::NodeId,
    arm: bool,
    depth: usize,
) -> Ev {
    use crate::document::Value;
    if depth > 32 {
        return Ev::unknown("the value is nested too deeply");
    }
    match doc.value(id) {
        Value::Str(s) if arm && s.starts_with('[') && s.ends_with(']') && !s.starts_with("[[") => {
            Ev::unknown(format!("`{s}` in a parameters file"))
        }
        Value::Str(s) if arm && quickstart_placeholder(s) => Ev::unknown(format!(
            "`{s}` in a parameters file is a placeholder that the Azure quickstart templates' test \
             pipeline replaces at each deployment"
        )),
        Value::Str(s) => Ev::text(s.to_string()),
        Value::Int(i) => Ev::int(*i),
        Value::Bool(b) => Ev::boolean(*b),
        Value::Null => Ev::new(V::Null),
        Value::Seq(items) => Ev::new(V::List(
            items
                .iter()
                .take(MAX_ITEMS)
                .map(|i| json_value(doc, *i, arm, depth + 1))
                .collect(),
        )),
        Value::Map(entries) => Ev::new(V::Map(
            entries
                .iter()
                .take(MAX_ITEMS)
                .map(|e| {
                    (
                        doc.key_string(e.key).into_owned(),
                        json_value(doc, e.value, arm, depth + 1),
                    )
                })
                .collect(),
        )),
        _ => Ev::unknown("a value that is not a string, number, boolean, list or object"),
    }
}

/// The value of the one JSON or YAML (1.1) document `src` holds, each value noted with
/// where the file writes it ([`file_value`], `how` said of the file); or why it has none
/// ("it is not one valid YAML document"). The file is parsed, and its value taken for each
/// `how`, once per run (`files`), however many expressions read it: 2,000 calls each
/// loading one 2 MB file parsed it 2,000 times (over a minute; eval7 session).
pub fn structured_file(
    files: &super::common::Files,
    src: &std::sync::Arc<SourceFile>,
    format: crate::load::Format,
    how: &str,
) -> Result<Ev, String> {
    /// A parsed file and the values taken of it, by what was said of the file.
    struct Structured {
        loaded: crate::load::LoadedFile,
        values: std::sync::Mutex<std::collections::HashMap<String, Result<Ev, String>>>,
    }
    let (kind, what) = match format {
        crate::load::Format::Json => ("JSON", "structured file (JSON)"),
        _ => ("YAML", "structured file (YAML)"),
    };
    let parsed = files.derived(Path::new(&src.path), what, || Structured {
        loaded: crate::load::parse_source(src.clone(), format, &Default::default()),
        values: Default::default(),
    });
    let values = || parsed.values.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = values().get(how) {
        return known.clone();
    }
    let loaded = &parsed.loaded;
    let value = match loaded.documents.as_slice() {
        [doc] if !doc.partial && loaded.diagnostics.is_empty() => match doc.root {
            Some(root) => Ok(file_value(src, doc, root, how, "")),
            None => Err(format!("it holds no {kind} value")),
        },
        _ => Err(format!("it is not one valid {kind} document")),
    };
    values().insert(how.to_string(), value.clone());
    value
}

/// A value of a JSON or YAML file another file reads (a Bicep `loadJsonContent()`, a
/// GitHub Action's parameters file): each scalar noted with where it is written there
/// (`config/compute.json:1:30`) and `how` the file is read, since its literal is not in the
/// defining file (no origin).
pub fn file_value(
    src: &crate::source::SourceFile,
    doc: &crate::document::Document,
    id: crate::document::NodeId,
    how: &str,
    key: &str,
) -> Ev {
    let mut budget = MAX_FILE_VALUES;
    file_value_within(src, doc, id, how, key, &mut budget)
}

/// Values of a file read at most by [`file_value`]: YAML aliases may make a short file
/// stand for a vast tree (`a: &a [x, x]`, `b: &b [*a, *a]`...), which is not expanded.
const MAX_FILE_VALUES: usize = 4096;

fn file_value_within(
    src: &crate::source::SourceFile,
    doc: &crate::document::Document,
    id: crate::document::NodeId,
    how: &str,
    key: &str,
    budget: &mut usize,
) -> Ev {
    use crate::document::Value;
    if key.len() > 512 || key.bytes().filter(|b| matches!(b, b'.' | b'[')).count() > 32 {
        return Ev::unknown(format!("a value of {} is nested too deeply", src.path));
    }
    if *budget == 0 {
        return Ev::unknown(format!(
            "{} holds more values than amlint reads ({MAX_FILE_VALUES}, its aliases expanded)",
            src.path
        ));
    }
    *budget -= 1;
    let node = doc.node(doc.resolve(id));
    let at = || {
        let p = src.position(node.span.start);
        let key = if key.is_empty() { "the value" } else { key };
        Some(format!(
            "`{key}` is read from {}:{}:{}, {how}",
            src.path, p.line, p.column
        ))
    };
    match &node.value {
        Value::Str(s) => Ev::text(s.to_string()).with_note(at()),
        Value::Int(i) => Ev::int(*i).with_note(at()),
        Value::Bool(b) => Ev::boolean(*b).with_note(at()),
        Value::Null => Ev::new(V::Null),
        Value::Seq(items) => Ev::new(V::List(
            items
                .iter()
                .take(MAX_ITEMS)
                .enumerate()
                .map(|(n, i)| file_value_within(src, doc, *i, how, &format!("{key}[{n}]"), budget))
                .collect(),
        )),
        Value::Map(_) => Ev::new(V::Map(
            doc.kept_entries(doc.resolve(id))
                .into_iter()
                .take(MAX_ITEMS)
                .map(|(k, v)| {
                    let path = if key.is_empty() {
                        k.to_string()
                    } else {
                        format!("{key}.{k}")
                    };
                    (k.into_owned(), file_value_within(src, doc, v, how, &path, budget))
                })
                .collect(),
        )),
        other => Ev::unknown(format!(
            "the {} at {}:{} is not a string, integer, boolean, list or object",
            other.type_name(),
            src.path,
            src.position(node.span.start).line
        )),
    }
}

/// `v` at a simple JSONPath (`$`, `$.a.b`, `$.a[0]`, `$['a']`): `None` when the path is
/// not of that form.
pub fn json_path(v: &Ev, path: &str) -> Option<Ev> {
    let rest = path.trim().strip_prefix('$')?;
    let b = rest.as_bytes();
    let mut i = 0;
    let mut cur = v.clone();
    while i < b.len() {
        match b[i] {
            b'.' => {
                let start = i + 1;
                let mut end = start;
                while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_' || b[end] == b'-') {
                    end += 1;
                }
                if end == start {
                    return None;
                }
                cur = index_of(&cur, &Ev::text(&rest[start..end]), false);
                i = end;
            }
            b'[' => {
                let close = rest[i..].find(']')? + i;
                let inner = rest[i + 1..close].trim();
                let key = if let Some(q) = inner
                    .strip_prefix('\'')
                    .and_then(|x| x.strip_suffix('\''))
                    .or_else(|| inner.strip_prefix('"').and_then(|x| x.strip_suffix('"')))
                {
                    Ev::text(q)
                } else {
                    Ev::int(inner.parse::<i64>().ok().filter(|n| *n >= 0)?)
                };
                cur = index_of(&cur, &key, false);
                i = close + 1;
            }
            _ => return None,
        }
    }
    Some(cur)
}

/// Where the level of a raised origin is kept ([`raise_origins`]): the high bits of its
/// offsets (no file read is 256 MiB long).
const LEVEL_SHIFT: u32 = 28;

/// Whether the places of a file `len` bytes long can be marked with a level
/// ([`raise_origins`]): one of 256 MiB or more is passed without its places.
pub fn raisable(len: usize) -> bool {
    len < 1 << LEVEL_SHIFT
}

/// `v` as a module call passes it to the module: the places of its literals (in the
/// calling file) marked one call further up, so that the module's definitions, made in
/// the calling file ([`ModuleCall::definition`]), find them there; a place too far up (or
/// too far into its file) is dropped.
pub fn raise_origins(mut v: Ev) -> Ev {
    let mut stack: Vec<&mut Ev> = vec![&mut v];
    while let Some(x) = stack.pop() {
        x.origin = x.origin.and_then(raise_span);
        match &mut x.v {
            V::List(items) => stack.extend(items.iter_mut()),
            V::Map(entries) => stack.extend(entries.iter_mut().map(|(_, v)| v)),
            _ => {}
        }
    }
    v
}

/// One place of a literal (in the calling file) marked one call further up
/// ([`raise_origins`]); `None` when too far up (or too far into its file).
pub fn raise_span(o: Span) -> Option<Span> {
    let level = o.start >> LEVEL_SHIFT;
    let (start, end) = (
        o.start & ((1 << LEVEL_SHIFT) - 1),
        o.end & ((1 << LEVEL_SHIFT) - 1),
    );
    (level + 1 < 1 << (32 - LEVEL_SHIFT) && o.end >> LEVEL_SHIFT == level).then(|| {
        let up = (level + 1) << LEVEL_SHIFT;
        Span::new(start | up, end | up)
    })
}

/// An origin of a module's definition as seen from the file that calls it: one of the
/// module's own places is none, one the call passed is in the calling file (or further up).
fn lower_origin(o: Option<Span>) -> Option<Span> {
    let o = o?;
    let level = o.start >> LEVEL_SHIFT;
    (level > 0).then(|| {
        let down = (level - 1) << LEVEL_SHIFT;
        let mask = (1 << LEVEL_SHIFT) - 1;
        Span::new((o.start & mask) | down, (o.end & mask) | down)
    })
}

/// An origin raised by [`raise_origins`]: in a file further up than the one at hand.
fn is_raised(o: Span) -> bool {
    o.start >> LEVEL_SHIFT > 0
}

/// The key a value at `at` of a Bicep file `text` is written under (`vmSize` of `vmSize:
/// 'Standard_NC6'`, its quotes not included), when it is one, first on its line or after
/// `{` or `,`.
fn key_before(text: &str, at: Span) -> Option<Span> {
    let b = text.as_bytes();
    let mut i = at.start as usize;
    if i > 0 && b.get(i - 1) == Some(&b'\'') {
        i -= 1;
    }
    let blanks = |mut i: usize| {
        while i > 0 && matches!(b[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        i
    };
    i = blanks(i);
    if i == 0 || b[i - 1] != b':' {
        return None;
    }
    let end = blanks(i - 1);
    let (start, key) = if end > 0 && b[end - 1] == b'\'' {
        let open = text[..end - 1].rfind('\'')?;
        (open, Span::new(open as u32 + 1, end as u32 - 1))
    } else {
        let mut s = end;
        while s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_') {
            s -= 1;
        }
        (s, Span::new(s as u32, end as u32))
    };
    let before = blanks(start);
    (key.start < key.end && (before == 0 || matches!(b[before - 1], b'\n' | b'\r' | b'{' | b',')))
        .then_some(key)
}

/// `v` without the places of its literals (they are in another file).
pub fn strip_origins(mut v: Ev) -> Ev {
    let mut stack: Vec<&mut Ev> = vec![&mut v];
    while let Some(x) = stack.pop() {
        x.origin = None;
        match &mut x.v {
            V::List(items) => stack.extend(items.iter_mut()),
            V::Map(entries) => stack.extend(entries.iter_mut().map(|(_, v)| v)),
            _ => {}
        }
    }
    v
}

/// How a setting's value is read from what the expression evaluates to.
#[derive(Clone, Copy)]
pub enum As {
    Text,
    Count,
    Bool,
    /// An ISO 8601 duration, in seconds.
    Seconds,
    /// ARM's `vmPriority` (`Dedicated`, `LowPriority`) as YAML's `tier`.
    Tier,
    /// ARM's `Enabled`/`Disabled` (`NotSpecified`: nothing).
    Enabled,
}

/// The scalar `val` gives read `as_`, or why not (`Ok(None)`: the value says nothing, as
/// `null` or `NotSpecified`).
pub fn scalar(val: &Ev, as_: As) -> Result<Option<Scalar>, String> {
    if let Some(why) = val.why() {
        return Err(why);
    }
    let text = val.known_str();
    Ok(match (&val.v, as_) {
        (V::Null, _) => None,
        (V::Str(_), As::Text) => Some(Scalar::Str(text.unwrap_or_default())),
        (V::Int(i), As::Text) => Some(Scalar::Str(i.to_string())),
        (V::Bool(b), As::Text) => Some(Scalar::Str(b.to_string())),
        (V::Int(i), As::Count) => Some(Scalar::Int(*i)),
        (V::Str(_), As::Count) => match text.as_deref().map(str::trim).map(str::parse::<i64>) {
            Some(Ok(i)) => Some(Scalar::Int(i)),
            _ => return Err(format!("`{}` is not a number", text.unwrap_or_default())),
        },
        (V::Bool(b), As::Bool) => Some(Scalar::Bool(*b)),
        (V::Str(_), As::Bool) => match text.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("true") => Some(Scalar::Bool(true)),
            Some("false") => Some(Scalar::Bool(false)),
            _ => return Err(format!("`{}` is not a boolean", text.unwrap_or_default())),
        },
        (V::Int(i), As::Seconds) => Some(Scalar::Int(*i)),
        (V::Str(_), As::Seconds) => {
            let t = text.unwrap_or_default();
            match iso_seconds(&t) {
                Some(s) => Some(Scalar::Int(s)),
                None => return Err(format!("`{t}` is not an ISO 8601 duration")),
            }
        }
        (V::Str(_), As::Tier) => {
            let t = text.unwrap_or_default();
            match crate::facts::computes::normalize_tier(&t) {
                Some(tier) => Some(Scalar::Str(tier.into())),
                None => return Err(format!("`{t}` is not a VM priority")),
            }
        }
        (V::Str(_), As::Enabled) => {
            let t = text.unwrap_or_default();
            match t.to_ascii_lowercase().as_str() {
                "enabled" => Some(Scalar::Bool(true)),
                "disabled" => Some(Scalar::Bool(false)),
                _ => None,
            }
        }
        (V::Bool(b), As::Enabled) => Some(Scalar::Bool(*b)),
        (V::List(_) | V::Map(_), _) => return Err("the value is a list or an object".into()),
        (v, _) => return Err(format!("the value `{}` is not of the expected type", describe(v))),
    })
}

fn describe(v: &V) -> String {
    match v {
        V::Int(i) => i.to_string(),
        V::Bool(b) => b.to_string(),
        V::Null => "null".into(),
        _ => "?".into(),
    }
}

/// The setting for a value written at `span` (key at `key`): the literal itself when it is
/// written in place, the expression with its value (and the literal's place) when it comes
/// from elsewhere, dynamic with why when it cannot be known. `None` when the value says
/// nothing (`null`).
pub fn setting_of(leaf: &Leaf, key: Option<Span>, as_: As) -> Option<Setting> {
    held_setting(&leaf.written, leaf.span, key, &leaf.val, leaf.literal, as_)
}

fn held_setting(
    written: &str,
    span: Span,
    key: Option<Span>,
    val: &Ev,
    literal: Option<Span>,
    as_: As,
) -> Option<Setting> {
    match scalar(val, as_) {
        Ok(None) => None,
        Ok(Some(value)) => {
            // In place only when the literal's text is the value (a count written `"4"` or
            // a priority written `LowPriority` is not what a fix would write).
            let exact = literal.filter(|_| {
                matches!((&value, &val.v), (Scalar::Str(s), V::Str(_)) if val.known_str().as_deref() == Some(s.as_str()))
                    || matches!((&value, &val.v), (Scalar::Int(_), V::Int(_)) | (Scalar::Bool(_), V::Bool(_)))
            });
            Some(match exact {
                Some(at) => Setting::literal(value, at, key),
                None => {
                    let mut s = Setting::literal(value, span, key);
                    s.written = written.to_string();
                    s.origin = val.origin.filter(|o| *o != span);
                    s.in_place = false;
                    s
                }
            })
        }
        Err(why) => Some(Setting::dynamic(written, why, span, key)),
    }
}

/// What one path of the resource body sets, as a setting.
fn body_setting(root: &BodyNode, path: &[&str], as_: As) -> Option<Setting> {
    match find(root, path)? {
        Found::Written(f) => match &f.value {
            BodyNode::Leaf(leaf) => setting_of(leaf, Some(f.key), as_),
            BodyNode::Map(_) => None,
        },
        Found::Held {
            key,
            span,
            written,
            val,
        } => held_setting(written, span, Some(key), &val, None, as_),
    }
}

/// Fills `def` from an Azure Resource Manager compute resource (`Microsoft.
/// MachineLearningServices/workspaces/computes`) as ARM JSON, Bicep and `azapi_resource`
/// write it: `location`, `properties.computeType`, and the compute's own
/// `properties.properties` (`vmSize`, `vmPriority`, `scaleSettings`, `enableNodePublicIp`,
/// `remoteLoginPortPublicAccess`, `sshSettings.sshPublicAccess`, `subnet.id`; an AKS
/// compute's `agentVmSize`, `agentCount`, `clusterPurpose`), by their Azure ML YAML paths.
pub fn arm_compute_fields(resource: &BodyNode, def: &mut ComputeDef) {
    if let Some(s) = body_setting(resource, &["properties", "computeType"], As::Text) {
        def.set("type", s);
    }
    let p = |rest: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec!["properties", "properties"];
        v.extend_from_slice(rest);
        v
    };
    let size = body_setting(resource, &p(&["vmSize"]), As::Text)
        .or_else(|| body_setting(resource, &p(&["agentVmSize"]), As::Text));
    let fields: [(&str, Option<Setting>); 12] = [
        ("size", size),
        // An AKS compute's node count and purpose.
        (
            "agent_count",
            body_setting(resource, &p(&["agentCount"]), As::Count),
        ),
        (
            "cluster_purpose",
            body_setting(resource, &p(&["clusterPurpose"]), As::Text),
        ),
        ("tier", body_setting(resource, &p(&["vmPriority"]), As::Tier)),
        (
            "min_instances",
            body_setting(resource, &p(&["scaleSettings", "minNodeCount"]), As::Count),
        ),
        (
            "max_instances",
            body_setting(resource, &p(&["scaleSettings", "maxNodeCount"]), As::Count),
        ),
        (
            "idle_time_before_scale_down",
            body_setting(
                resource,
                &p(&["scaleSettings", "nodeIdleTimeBeforeScaleDown"]),
                As::Seconds,
            ),
        ),
        (
            "enable_node_public_ip",
            body_setting(resource, &p(&["enableNodePublicIp"]), As::Bool),
        ),
        (
            "ssh_public_access_enabled",
            body_setting(resource, &p(&["remoteLoginPortPublicAccess"]), As::Enabled)
                .or_else(|| body_setting(resource, &p(&["sshSettings", "sshPublicAccess"]), As::Enabled)),
        ),
        ("network_settings.subnet", subnet(resource, def)),
        ("location", body_setting(resource, &["location"], As::Text)),
        // A compute instance's idle shutdown (an ISO 8601 duration, as YAML writes it).
        (
            "idle_time_before_shutdown",
            body_setting(resource, &p(&["idleTimeBeforeShutdown"]), As::Text),
        ),
    ];
    for (path, s) in fields {
        if let Some(s) = s {
            def.set(path, s);
        }
    }
    for (path, s) in schedules(resource) {
        def.set(&path, s);
    }
}

/// An AKS (or Kubernetes) compute attaching a cluster, `properties.resourceId` (audit 32,
/// case 07): its node size and count are those of the cluster's agent pool — the first
/// `System` one, else the first — as Terraform's `kubernetes_cluster_id` gives its
/// `default_node_pool`'s, each at `resourceId` (labelled at the literal when it is in the
/// file). `cluster` says, from the `resourceId` leaf, which cluster of the template it
/// names (for people) and that resource's body, or why that is not known: then the size
/// and count are unknown, with why — never absent. An `agentVmSize` or `agentCount` the
/// compute writes itself stays.
pub fn attached_cluster(
    resource: &BodyNode,
    def: &mut ComputeDef,
    cluster: impl FnOnce(&Leaf) -> Result<(String, BodyNode), String>,
) {
    if !matches!(def.ctype().as_deref(), Some("aks" | "kubernetes")) {
        return;
    }
    let Some(Found::Written(f)) = find(resource, &["properties", "resourceId"]) else {
        return;
    };
    let BodyNode::Leaf(leaf) = &f.value else {
        return;
    };
    if leaf.val.is_null() {
        return;
    }
    let pool = cluster(leaf).and_then(|(label, body)| {
        let pools = match find(&body, &["properties", "agentPoolProfiles"]).map(Found::value) {
            Some(Ok((_, _, _, v))) => v,
            Some(Err(_)) => Ev::unknown("`agentPoolProfiles` is an object, not a list"),
            None => {
                return Err(format!(
                    "{label} writes no `agentPoolProfiles` (its pools are resources of their own)"
                ));
            }
        };
        let V::List(items) = &pools.v else {
            let why = pools.why().unwrap_or_else(|| "it is not a list".into());
            return Err(format!(
                "the agent pools (`agentPoolProfiles`) of {label} are not known: {why}"
            ));
        };
        let system = |p: &&Ev| {
            p.member("mode", true)
                .and_then(Ev::known_str)
                .is_some_and(|m| m.eq_ignore_ascii_case("system"))
        };
        let pool = items.iter().find(system).or(items.first());
        match pool {
            Some(p) if matches!(p.v, V::Map(_)) => Ok((label, p.clone())),
            Some(p) => Err(format!(
                "the agent pool of {label} is not known: {}",
                p.why().unwrap_or_else(|| "it is not an object".into())
            )),
            None => Err(format!("{label} writes no agent pool in `agentPoolProfiles`")),
        }
    });
    let mut read = false;
    for (member, path, as_) in [("vmSize", "size", As::Text), ("count", "agent_count", As::Count)] {
        if def.get(path).is_some() {
            continue;
        }
        let unknown = |why: String| Some(Setting::dynamic(&leaf.written, why, leaf.span, Some(f.key)));
        let s = match &pool {
            Ok((label, p)) => match p.member(member, true) {
                Some(v) => held_setting(&leaf.written, leaf.span, Some(f.key), v, None, as_),
                None => unknown(format!("the agent pool of {label} does not write `{member}`")),
            },
            Err(why) => unknown(why.clone()),
        };
        if let Some(s) = s {
            read |= s.value.is_some();
            def.set(path, s);
        }
    }
    if let (true, Ok((label, _))) = (read, &pool) {
        def.notes.push(format!(
            "the size and node count are those of the agent pool of {label}, the cluster `resourceId` names"
        ));
    }
}

/// A compute instance's start/stop schedules, `properties.properties.schedules.
/// computeStartStop[i]`, as YAML's `schedules.compute_start_stop.<i>`: each entry's
/// `action` (`Start`, `Stop`) as `action` and its `status` (`Enabled`, `Disabled`; optional
/// in the API, absent read as the rule reads an absent YAML `state`) as `state`, at the
/// value's literal when it is in the file (else at the list). What is not known statically
/// — the list, an entry, or `schedules` (or an object above it) from a parameter without
/// a value — is set unknown where it stops being known, with why: the rules read no stop
/// schedule as absent there.
fn schedules(resource: &BodyNode) -> Vec<(String, Setting)> {
    const PATH: [&str; 4] = ["properties", "properties", "schedules", "computeStartStop"];
    // An object above the list that is not known leaves `schedules` unknown.
    if let Some(unknown) = unknown_above(resource, &PATH) {
        return vec![unknown];
    }
    // The list, as written or held by a variable.
    let found = match find(resource, &PATH) {
        Some(found) => found.value(),
        None => return Vec::new(),
    };
    let (key, span, written, val) = match found {
        Ok(list) => list,
        Err(object) => {
            let span = node_span(&object.value).unwrap_or(object.key);
            let why = "`computeStartStop` is an object, not a list";
            return vec![dynamic(
                "schedules.compute_start_stop",
                "computeStartStop",
                why,
                span,
                object.key,
            )];
        }
    };
    let items = match &val.v {
        V::List(items) => items,
        V::Null => return Vec::new(),
        _ => {
            let why = val
                .why()
                .unwrap_or_else(|| "`computeStartStop` is not a list".into());
            return vec![dynamic("schedules.compute_start_stop", written, &why, span, key)];
        }
    };
    if let Some(why) = crate::facts::computes::too_many_entries("computeStartStop", items.len()) {
        return vec![dynamic("schedules.compute_start_stop", written, &why, span, key)];
    }
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("schedules.compute_start_stop.{i}");
        if let V::Map(_) = item.v {
            for (member, yaml) in [("action", "action"), ("status", "state")] {
                let Some(v) = item.member(member, true) else {
                    continue;
                };
                let at = v.origin.unwrap_or(span);
                let written = v
                    .known_str()
                    .unwrap_or_else(|| format!("computeStartStop[{i}].{member}"));
                if let Some(s) = held_setting(&written, at, Some(key), v, None, As::Text) {
                    out.push((format!("{path}.{yaml}"), s));
                }
            }
        } else if let Some(why) = item.why() {
            out.push((
                path,
                Setting::dynamic(format!("computeStartStop[{i}]"), why, span, Some(key)),
            ));
        }
    }
    out
}

fn dynamic(path: &str, written: &str, why: &str, span: Span, key: Span) -> (String, Setting) {
    (path.to_string(), Setting::dynamic(written, why, span, Some(key)))
}

/// When the object at a prefix of `path` (`schedules`, or `properties.properties`) is a
/// value not known statically: `schedules` unknown, with why.
fn unknown_above(resource: &BodyNode, path: &[&str]) -> Option<(String, Setting)> {
    (1..path.len()).rev().find_map(|n| {
        let (key, span, written, val) = find(resource, &path[..n])?.value().ok()?;
        let why = val.why()?;
        Some(dynamic("schedules", written, &why, span, key))
    })
}

fn node_span(node: &BodyNode) -> Option<Span> {
    match node {
        BodyNode::Leaf(l) => Some(l.span),
        BodyNode::Map(fields) => fields.iter().map(|f| f.key).reduce(Span::cover),
    }
}

/// `properties.properties.subnet`: `{id: ...}` (or, written loosely, the id itself);
/// `null` is no subnet.
/// A `null` written as an expression is noted in `def` ([`written_null`]).
fn subnet(resource: &BodyNode, def: &mut ComputeDef) -> Option<Setting> {
    let path = ["properties", "properties", "subnet"];
    if let Some(s) = body_setting(resource, &["properties", "properties", "subnet", "id"], As::Text) {
        return Some(s);
    }
    let Some(found) = find(resource, &path) else {
        // An object a parameter holds, known to have no `subnet` (the object a module call
        // passes as `properties`): the call decides its absence (audit 30, case 07).
        if let Some(leaf) = holder_without(resource, &path) {
            def.written_null
                .push(("network_settings.subnet".into(), one_line(leaf.written.trim())));
        }
        return None;
    };
    match found {
        Found::Written(f) => match &f.value {
            BodyNode::Leaf(leaf) if matches!(leaf.val.v, V::Str(_) | V::Unknown(_)) => {
                setting_of(leaf, Some(f.key), As::Text)
            }
            BodyNode::Leaf(leaf) => {
                written_null(def, "network_settings.subnet", leaf);
                None
            }
            BodyNode::Map(_) => None,
        },
        Found::Held { .. } => None,
    }
}

/// The expression of `root` that holds the object at `path` (a module's parameter:
/// `properties: properties`), when that object is known and has no member `path` goes on
/// to: what a module call passes there decides that the setting is absent.
fn holder_without<'a>(root: &'a BodyNode, path: &[&str]) -> Option<&'a Leaf> {
    let mut node = root;
    for (i, seg) in path.iter().enumerate() {
        match node {
            BodyNode::Map(fields) => {
                if fields.iter().any(|f| f.name == SPREAD) {
                    return None;
                }
                node = &fields
                    .iter()
                    .rev()
                    .find(|f| f.name.eq_ignore_ascii_case(seg))?
                    .value;
            }
            BodyNode::Leaf(leaf) => {
                let mut v = &leaf.val;
                for s in &path[i..] {
                    match &v.v {
                        V::Map(_) => match v.member(s, true) {
                            Some(m) => v = m,
                            None => return Some(leaf),
                        },
                        _ => return None,
                    }
                }
                return None;
            }
        }
    }
    None
}

/// Notes in `def` that the setting `path` is written as an expression (not the literal
/// `null`) that is `null` here ([`ComputeDef::written_null`]).
pub fn written_null(def: &mut ComputeDef, path: &str, leaf: &Leaf) {
    let written = leaf.written.trim();
    if leaf.val.is_null() && written != "null" {
        def.written_null.push((path.to_string(), one_line(written)));
    }
}

/// Values given from outside a file (a parameters file, a `.bicepparam`), by name.
pub type Given = std::collections::HashMap<String, Ev>;

/// Several files' values: each name's value when every file that sets it agrees, unknown
/// (naming the files) when they differ.
pub fn merge_given(all: Vec<(String, Given)>) -> Given {
    let mut out = Given::new();
    if all.len() == 1 {
        return all.into_iter().next().map(|(_, g)| g).unwrap_or_default();
    }
    let mut names: Vec<&String> = all.iter().flat_map(|(_, g)| g.keys()).collect();
    names.sort();
    names.dedup();
    for key in names {
        let setters: Vec<(&String, &Ev)> = all
            .iter()
            .filter_map(|(f, g)| g.get(key).map(|v| (f, v)))
            .collect();
        let first = setters[0].1;
        // The parameter as its file spells it (ARM's keys are lower-cased here, its notes
        // say "`clusterName` is set by …").
        let name = setters
            .iter()
            .find_map(|(_, v)| {
                let (spelled, _) = v.note.as_deref()?.strip_prefix('`')?.split_once("` is set by ")?;
                spelled.eq_ignore_ascii_case(key).then_some(spelled)
            })
            .unwrap_or(key);
        let agree = setters.iter().all(|(_, v)| v.v == first.v);
        let v = if agree {
            let files: Vec<&str> = setters.iter().map(|(f, _)| f.as_str()).collect();
            let mut v = first.clone();
            v.note = Some(format!("`{name}` is set by {}", files.join(", ")));
            v
        } else {
            let each: Vec<String> = setters
                .iter()
                .map(|(f, v)| match v.known_str() {
                    Some(s) => format!("`{s}` in {f}"),
                    None => format!("another value in {f}"),
                })
                .collect();
            Ev::unknown(format!(
                "`{name}` differs between the parameters files: {}",
                each.join(", ")
            ))
        };
        out.insert(key.clone(), v);
    }
    out
}

/// The comments of a file as [`Comment`]s (span, alone on its line), each with the line
/// it covers: its own, or — alone on its line — the next line holding code (`code`: the
/// offsets of the file's code tokens, in order).
pub fn comments(source: &SourceFile, raw: &[(Span, bool)], code: &[u32]) -> Vec<Comment> {
    let mut code_lines: Vec<u32> = Vec::new();
    for &off in code {
        let line = source.position(off).line;
        if code_lines.last() != Some(&line) {
            code_lines.push(line);
        }
    }
    raw.iter()
        .map(|&(span, own_line)| {
            let line = source.position(span.start).line;
            let target_line = if own_line {
                code_lines
                    .get(code_lines.partition_point(|&l| l <= line))
                    .copied()
            } else {
                Some(line)
            };
            Comment {
                span,
                own_line,
                target_line,
                also: Vec::new(),
            }
        })
        .collect()
}

/// The regular files of `dir` (inside the project `files` reads) whose lower-cased name
/// `wanted` accepts, sorted by name (at most 2,000 entries of the directory are looked at:
/// a larger one gives none), with an editor's buffers of `dir` not saved yet.
pub fn sibling_files(
    files: &super::common::Files,
    dir: &Path,
    wanted: impl Fn(&str) -> bool,
) -> Vec<(PathBuf, String)> {
    const MAX_ENTRIES: usize = 2_000;
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    // Listed once per run: every file of a directory asks for its siblings (a Terraform
    // module of 400 files listed 400 times was 400 × 400 `lstat`s; eval7 case 01).
    let names = files.derived(dir, "regular files", || {
        let Ok(entries) = crate::fsio::list_dir(dir, files.boundary(), MAX_ENTRIES) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .into_iter()
            .filter(|(_, kind)| matches!(kind, Some(crate::fsio::Looked::File { .. })))
            .filter_map(|(name, _)| name.into_string().ok())
            .collect();
        names.extend(files.unsaved_in(dir));
        names.sort();
        names.dedup();
        names
    });
    names
        .iter()
        .filter(|name| wanted(&name.to_ascii_lowercase()))
        .map(|name| (dir.join(name), name.clone()))
        .collect()
}

/// Whether `other` (beside `file`, displayed paths) may define a compute with a value
/// written in `file`: a `.tf` beside a `.tf`/`.tfvars`, a `.bicep` beside a
/// `.bicepparam`, a template beside an ARM parameters file.
pub fn companion_of(file: &str, other: &str) -> bool {
    let ((dir, name), (odir, oname)) = (split_dir(file), split_dir(other));
    dir == odir && !name.eq_ignore_ascii_case(oname) && GivesTo::of(file).takes(other)
}

/// A displayed path as its directory and file name.
pub fn split_dir(p: &str) -> (&str, &str) {
    match p.rfind(['/', '\\']) {
        Some(i) => (&p[..i], &p[i + 1..]),
        None => ("", p),
    }
}

/// Whether a file name (lower-cased) is a parameters file named for no template:
/// `parameters.json`, `parameters.<env>.json` (the Azure portal's export layout, and a
/// pipeline's `csmParametersFile: parameters.$(env).json`).
pub fn is_generic_parameters_name(lower: &str) -> bool {
    lower.starts_with("parameters.") && lower.ends_with(".json")
}

/// The template a parameters file named by its stem is for: `parameters-vnet.json`,
/// `parameters-vnet.dev.json` (also `_`) are `vnet`'s parameters (lower-cased name).
pub fn stem_parameters_key(lower: &str) -> Option<&str> {
    let rest = lower
        .strip_prefix("parameters-")
        .or_else(|| lower.strip_prefix("parameters_"))?
        .strip_suffix(".json")?;
    let key = rest.split('.').next().unwrap_or(rest);
    (!key.is_empty()).then_some(key)
}

/// The stem a template's parameters files are named by: `template-vnet.json` (also `_`,
/// `.`, and `vnet-template.json`) is `vnet`, another `X.json` is `X` (lower-cased name).
pub fn template_key(lower: &str) -> Option<&str> {
    let stem = lower.strip_suffix(".json")?;
    let key = ["template-", "template_", "template."]
        .iter()
        .find_map(|p| stem.strip_prefix(p))
        .or_else(|| {
            ["-template", "_template", ".template"]
                .iter()
                .find_map(|s| stem.strip_suffix(s))
        })
        .unwrap_or(stem);
    (!key.is_empty() && !key.contains('.')).then_some(key)
}

/// Which definition files beside it a file may give values to (by its name): a
/// Terraform file or variables file to the `.tf` files, a `.bicepparam` to the `.bicep`
/// files, an ARM parameters file to the templates. What a directory's files give
/// together is their union ([`GivesTo::with`]): testing a file against it is testing it
/// against each of them, in constant time.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GivesTo {
    tf: bool,
    bicep: bool,
    arm: bool,
}

impl GivesTo {
    pub fn of(file: &str) -> GivesTo {
        // Asked of every file a partial run searches: no lower-cased copy.
        let name = split_dir(file).1.as_bytes();
        let ends = |suffix: &str| {
            name.len() >= suffix.len()
                && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
        };
        // `<template>.parameters.json`..., and `parameters.json`, `parameters.<env>.json`
        // (the one template of their folder's).
        // `parameters-<stem>.json`, `parameters-<stem>.<env>.json` too (any template's
        // whose stem it names).
        let starts =
            |prefix: &[u8]| name.len() >= prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix);
        let parameters = name
            .windows(b".parameters".len())
            .any(|w| w.eq_ignore_ascii_case(b".parameters"))
            || starts(b"parameters.")
            || starts(b"parameters-")
            || starts(b"parameters_");
        GivesTo {
            tf: ends(".tf") || ends(".tfvars") || ends(".tfvars.json"),
            bicep: ends(".bicepparam"),
            arm: ends(".json") && parameters,
        }
    }

    pub fn any(self) -> bool {
        self.tf || self.bicep || self.arm
    }

    pub fn with(self, other: GivesTo) -> GivesTo {
        GivesTo {
            tf: self.tf || other.tf,
            bicep: self.bicep || other.bicep,
            arm: self.arm || other.arm,
        }
    }

    /// Whether `other` (a file of the same directory) may take values from them.
    pub fn takes(self, other: &str) -> bool {
        let oname = split_dir(other).1.to_ascii_lowercase();
        (self.tf && oname.ends_with(".tf"))
            || (self.bicep && oname.ends_with(".bicep"))
            || (self.arm
                && oname.ends_with(".json")
                && !oname.contains(".parameters")
                && !is_generic_parameters_name(&oname)
                && stem_parameters_key(&oname).is_none())
    }
}

/// How many module calls deep a definition is followed (a module that calls a module...).
pub const MAX_MODULE_DEPTH: usize = 8;
/// At most this many module calls (each instance of a repeated one counted) are followed
/// from one file, however deep: a module called by many others costs no more.
pub const MAX_MODULE_CALLS: usize = 64;

/// Why a file whose module calls went beyond [`MAX_MODULE_CALLS`] was not read whole
/// (reported AML005, never passed over in silence).
pub fn module_calls_skipped() -> String {
    format!(
        "beyond its first {MAX_MODULE_CALLS} module calls (each instance of a repeated call counted, with those of the modules it calls), the most amlint follows from one file, the later calls are not followed"
    )
}

/// A call of a local module (Terraform's `module "x" { source = "./m" ... }`, Bicep's
/// `module x './m.bicep' = { params: {...} }`) as the calling file writes it.
pub struct ModuleCall<'a> {
    /// The calling file, as displayed.
    pub display: &'a str,
    /// The whole call in that file: the definitions it makes start there.
    pub whole: Span,
    /// What calls, for people: `module "compute_cluster"`.
    pub label: &'a str,
    /// The module's path as written (`./modules/cc`), where (its literal's inner text), and its key.
    pub path: &'a str,
    pub source: Span,
    pub source_key: Option<Span>,
    /// The values the call passes, by the module's parameter name: as written in the
    /// calling file, and the argument's key.
    pub args: &'a [(String, Leaf, Option<Span>)],
    /// How the module's files write a parameter: `var.` (Terraform), nothing (Bicep).
    pub prefix: &'a str,
    /// Which instance of a repeated call it is (`for_each`, `count`, `for`).
    pub note: Option<String>,
    /// What the call does with the file, for people: "calls the module" (a
    /// `.bicepparam` file "deploys the template").
    pub verb: &'a str,
    /// The calling file's text, when the call passes its values with their places
    /// ([`raise_origins`]): a setting whose literal is there is at that literal.
    pub text: Option<&'a str>,
}

impl ModuleCall<'_> {
    /// `s` at the literal `at` of the calling file its value is (an item of a list the call
    /// passes, a member of an object), under its key there, as if written in place; `None`
    /// when the text there is not the value.
    fn at_literal(&self, s: &Setting, at: Span) -> Option<Setting> {
        let text = self.text?;
        if is_raised(at) || text.get(at.range())? != s.text()? {
            return None;
        }
        Some(Setting {
            span: at,
            key: key_before(text, at),
            written: s.text()?,
            origin: None,
            in_place: true,
            inherited: false,
            ..s.clone()
        })
    }

    /// The definition `def` of the called module (read with the values the call passes)
    /// as this call makes it, in the calling file: a setting the module writes as exactly
    /// a parameter the call passes is at the call's argument (a literal there in place, a
    /// value from the caller's variable labelled at its literal); the module's other
    /// values (its literals, its parameters' defaults) are inherited, at the call's
    /// `source` — the module's file reports its own findings (`at`: where the module
    /// defines it, `path:line`).
    pub fn definition(&self, def: ComputeDef, at: &str) -> ComputeDef {
        // Settings built from several of the call's arguments, for a note: the settings
        // (paths) of each expression, with the arguments it reads.
        let mut mixed: Vec<(String, String, Vec<String>)> = Vec::new();
        // The settings given through an expression of one argument (`!var.x`).
        let mut derived: Vec<Derived> = Vec::new();
        let inner = def.derived.clone();
        let mut take = |path: &str, s: &Setting| -> Setting {
            let passed = (!s.inherited)
                .then(|| s.written.trim().strip_prefix(self.prefix))
                .flatten()
                .and_then(|p| self.args.iter().rev().find(|(n, ..)| n == p));
            // A value the module builds from its inputs (`"${var.prefix}-cluster"`): at
            // the argument that gives them when there is exactly one.
            let read: Vec<&(String, Leaf, Option<Span>)> = if passed.is_some() || s.inherited {
                Vec::new()
            } else {
                let names: std::collections::HashSet<&str> =
                    inputs_read(&s.written, self.prefix).into_iter().collect();
                // Each argument read once, its last writing (as Terraform and Bicep take it).
                let mut seen = std::collections::HashSet::new();
                let mut read: Vec<_> = (self.args.iter().rev())
                    .filter(|(n, ..)| names.contains(n.as_str()) && seen.insert(n.as_str()))
                    .collect();
                read.reverse();
                read
            };
            // The argument the value is at: the one the module writes it as, else the only
            // one it is built of.
            let one = match read.as_slice() {
                [one] => Some(*one),
                _ => None,
            };
            // How the value reaches the setting from the argument: as it is, negated, or
            // not known — through this module, and through the module it calls, if any.
            if let Some((arg, ..)) = passed.or(one) {
                let here = if passed.is_some() {
                    Some(false)
                } else {
                    Derived::polarity(&s.written, self.prefix, arg)
                };
                let below = inner.iter().find(|d| d.path == path);
                let negated = match (here, below.map(|d| d.negated)) {
                    (Some(a), None) => Some(a),
                    (Some(a), Some(Some(b))) => Some(a != b),
                    _ => None,
                };
                if negated != Some(false) {
                    let expression = match below {
                        Some(d) if passed.is_some() => d.expression.clone(),
                        _ => one_line(&s.written),
                    };
                    derived.push(Derived {
                        path: path.to_string(),
                        expression,
                        negated,
                    });
                }
            }
            // Where the value's literal is, seen from the calling file.
            let up = lower_origin(s.origin);
            let Some((_, leaf, key)) = passed.or(one) else {
                // A value the call passes in a list or an object (`for c in computes`,
                // `c.properties`): at its literal there (audit 30, case 06).
                if let Some(placed) = up.and_then(|o| self.at_literal(s, o)) {
                    return placed;
                }
                if read.len() > 1 {
                    let names: Vec<String> = read.iter().map(|(n, ..)| format!("`{n}`")).collect();
                    let written = one_line(&s.written);
                    match mixed.iter_mut().find(|(w, ..)| *w == written) {
                        Some((.., paths)) => paths.push(format!("`{path}`")),
                        None => mixed.push((written, names.join(", "), vec![format!("`{path}`")])),
                    }
                }
                return Setting {
                    span: self.source,
                    key: self.source_key,
                    origin: up.filter(|o| is_raised(*o)),
                    in_place: false,
                    inherited: true,
                    ..s.clone()
                };
            };
            let exact = leaf.literal.filter(|_| match (&s.value, &leaf.val.v) {
                (Some(Scalar::Str(a)), V::Str(_)) => leaf.val.known_str().as_deref() == Some(a.as_str()),
                (Some(Scalar::Int(a)), V::Int(b)) => a == b,
                (Some(Scalar::Bool(a)), V::Bool(b)) => a == b,
                _ => false,
            });
            match exact {
                Some(lit) => Setting {
                    span: lit,
                    key: *key,
                    written: s.text().unwrap_or_default(),
                    origin: None,
                    in_place: true,
                    inherited: false,
                    ..s.clone()
                },
                // A member of an object the call passes (`properties: {
                // enableNodePublicIp: true }`): at its literal (audit 30, case 07). The
                // argument's whole value (`vmSize: size`) stays at the argument, labelled.
                None => (up.filter(|o| Some(*o) != leaf.val.origin))
                    .and_then(|o| self.at_literal(s, o))
                    .unwrap_or_else(|| Setting {
                        span: leaf.span,
                        key: *key,
                        written: member_of(&s.written, self.prefix, arg_name(passed.or(one)), &leaf.written),
                        origin: up.or(leaf.val.origin).filter(|o| *o != leaf.span),
                        in_place: false,
                        inherited: false,
                        ..s.clone()
                    }),
            }
        };
        let name = take("name", &def.name);
        let fields: Vec<(String, Setting)> =
            def.fields.iter().map(|(p, s)| (p.clone(), take(p, s))).collect();
        let mut notes = vec![format!(
            "{} {} `{}`, which defines the compute at {at}",
            self.label, self.verb, self.path
        )];
        notes.extend(self.note.clone());
        notes.extend(def.notes.iter().cloned());
        notes.extend(mixed.into_iter().map(|(written, names, paths)| {
            let verb = if paths.len() == 1 { "is" } else { "are" };
            format!(
                "{} {verb} `{written}` in the module, from the call's {names}",
                paths.join(", ")
            )
        }));
        notes.dedup();
        let mut out = ComputeDef::new(
            def.source,
            self.display,
            self.whole,
            format!("{} → {}", self.label, def.command),
            name,
        );
        out.idiom = def.idiom;
        for (path, s) in fields {
            out.set(&path, s);
        }
        out.notes = notes;
        out.derived = derived;
        // A setting the module writes as an expression that is `null` with what this call
        // passes (`subnet: environment != 'dev' ? {...} : null`): the call decides its
        // absence, and reports it.
        out.written_null = (def.written_null.into_iter())
            .filter_map(|(path, written)| {
                let read: Vec<&(String, Leaf, Option<Span>)> = inputs_read(&written, self.prefix)
                    .into_iter()
                    .filter_map(|n| self.args.iter().rev().find(|(a, ..)| a == n))
                    .collect();
                match read.as_slice() {
                    [] => None,
                    // Through a Bicep call, the expression of the calling file that decides
                    // it (`c.properties`), for the call of that file (audit 30, case 06).
                    [(_, leaf, _)] if self.text.is_some() => Some((path, one_line(&leaf.written))),
                    _ => Some((path, written)),
                }
            })
            .collect();
        // The file the module's values are read from: the module called (which may call
        // another: the command shows the chain).
        out.from_file = Some(def.file.clone());
        out.instance_of = Some((def.file.clone(), def.span));
        out
    }
}

/// The name of the argument a value is taken from, if any.
fn arg_name(arg: Option<&(String, Leaf, Option<Span>)>) -> &str {
    arg.map_or("", |(n, ..)| n.as_str())
}

/// How the calling file writes a module's value that is a member of one argument: the
/// module's `var.settings.name` with `settings = each.value` is `each.value.name` (audit
/// 32, case 08: a name said "the compute that `each.value` names"). `argument` (the
/// argument's expression as written) itself when the module's expression (`written`) is
/// not `{prefix}{input}` followed by attributes and literal indexes only.
fn member_of(written: &str, prefix: &str, input: &str, argument: &str) -> String {
    let member = (written.trim().strip_prefix(prefix))
        .and_then(|r| r.strip_prefix(input))
        .filter(|rest| {
            rest.starts_with(['.', '['])
                && rest.bytes().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'[' | b']' | b'"')
                })
        });
    let simple = argument
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'[' | b']' | b'"'));
    match member {
        Some(rest) if !input.is_empty() && simple && !argument.is_empty() => format!("{argument}{rest}"),
        _ => argument.to_string(),
    }
}

/// An expression as written, on one line for a note or a listing: each run of blanks and
/// line breaks one space, and at most 120 characters (then `…`).
pub fn one_line(written: &str) -> String {
    let line = single_spaced(written);
    match line.char_indices().nth(119) {
        Some((cut, _)) if line.chars().count() > 120 => format!("{}…", &line[..cut]),
        _ => line,
    }
}

/// `text` with each run of blanks and line breaks one space, none at either end.
pub fn single_spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The module inputs an expression as written reads (`prefix`: how the module writes one:
/// `var.` in Terraform, nothing in Bicep): `var.prefix` or `prefix`, in code or inside a
/// string's `${…}`, not in a string's text nor as another value's member (`a.prefix`).
/// Linear in the text; brackets on an explicit stack.
pub fn inputs_read<'w>(written: &'w str, prefix: &str) -> Vec<&'w str> {
    /// Where the scan is: code (the text's own, or a `${…}`'s or an object's), or a
    /// string's text (by its quote).
    #[derive(Clone, Copy)]
    enum In {
        Code,
        Text(u8),
    }
    let b = written.as_bytes();
    // Terraform's names may hold `-`; Bicep's may not (`a-b` subtracts).
    let dash = !prefix.is_empty();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || (dash && c == b'-');
    let starts = |c: u8| c.is_ascii_alphabetic() || c == b'_';
    // A string's text as written without its quotes (`${prefix}-cluster`): its words
    // outside `${…}` are text.
    let bare_text = written.contains("${") && !written.contains(['\'', '"']);
    let mut stack = vec![if bare_text { In::Text(0) } else { In::Code }];
    let mut out: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match stack.last().copied().unwrap_or(In::Code) {
            In::Text(q) => {
                if c == b'\\' || (c == b'$' && b.get(i + 1) == Some(&b'$')) {
                    // An escape; Terraform's `$${`, a literal `${`.
                    i += 2;
                    continue;
                }
                if c == b'$' && b.get(i + 1) == Some(&b'{') {
                    stack.push(In::Code);
                    i += 2;
                    continue;
                }
                if c == q {
                    stack.pop();
                }
                i += 1;
            }
            In::Code => {
                if c == b'"' || c == b'\'' {
                    stack.push(In::Text(c));
                } else if c == b'{' {
                    stack.push(In::Code);
                } else if c == b'}' && stack.len() > 1 {
                    stack.pop();
                } else if starts(c) && (i == 0 || !(ident(b[i - 1]) || b[i - 1] == b'.')) {
                    let start = i;
                    while i < b.len()
                        && (ident(b[i]) || (b[i] == b'.' && b.get(i + 1).is_some_and(|n| starts(*n))))
                    {
                        i += 1;
                    }
                    let path = &written[start..i];
                    let name = match prefix.strip_suffix('.') {
                        Some(root) => path.strip_prefix(root).and_then(|r| r.strip_prefix('.')),
                        None => Some(path),
                    }
                    .and_then(|r| r.split('.').next())
                    .filter(|n| !n.is_empty());
                    if let Some(n) = name
                        && seen.insert(n)
                    {
                        out.push(n);
                    }
                    continue;
                }
                i += 1;
            }
        }
    }
    out
}

/// The displayed path of `name` beside the file displayed as `display`.
pub fn beside(display: &str, name: &str) -> String {
    match display.rfind(['/', '\\']) {
        Some(i) => format!("{}{name}", &display[..=i]),
        None => name.to_string(),
    }
}

/// The span of a string literal's text inside its delimiters when that text is the value
/// as written (no escape changes it): a fix may then replace it in place.
pub fn inner_if_plain(text: &str, span: Span, open: usize, close: usize, value: &str) -> Option<Span> {
    let start = span.start as usize + open;
    let end = (span.end as usize).checked_sub(close)?;
    (start <= end && text.get(start..end) == Some(value)).then(|| Span::new(start as u32, end as u32))
}

/// A value of the Azure quickstart templates' parameters files that their test pipeline
/// replaces at each deployment (`GEN-UNIQUE`, `GEN-UNIQUE-8`, `GEN-PASSWORD`, `GEN-GUID`,
/// `GEN-SSH-PUB-KEY`, `GET-PREREQ-workspaceName`; the quickstart repository's contribution
/// guide): not the name or setting deployed. Seven samples of one such repository each
/// named their compute `GEN-UNIQUE-8`, and conflicted (audit 31, case 03).
pub fn quickstart_placeholder(s: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "GEN-UNIQUE",
        "GEN-PASSWORD",
        "GEN-GUID",
        "GEN-SSH-",
        "GET-PREREQ-",
    ];
    PREFIXES.iter().any(|p| s.starts_with(p)) && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
}

/// The (line, column) where `span` starts in `text`, for the readers' tests.
#[cfg(test)]
pub(crate) fn position_for_test(text: &str, span: Span) -> (u32, u32) {
    let p = SourceFile::new("x", text.to_string()).position(span.start);
    (p.line, p.column)
}

/// The definitions `read` finds in `name` (of text `text`) at the root of a fresh project
/// that also holds `files` (path from the root, text), for the module tests.
#[cfg(test)]
#[allow(clippy::disallowed_methods)]
pub(crate) fn read_in_project(
    read: fn(&super::common::Input<'_>, &mut super::common::Definitions),
    files: &[(&str, &str)],
    name: &str,
    text: &str,
) -> Vec<ComputeDef> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    std::fs::create_dir_all(&root).unwrap();
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    read_for_test(read, &root, name, text).computes
}

/// A chain of `levels` module files `m1`..`m<levels>` (each made by `call` of the next's
/// number, the last holding `last`), read from a file `name` that calls `m1` with `first`.
#[cfg(test)]
pub(crate) fn read_module_chain(
    read: fn(&super::common::Input<'_>, &mut super::common::Definitions),
    levels: usize,
    file: impl Fn(usize) -> String,
    call: impl Fn(usize) -> String,
    last: &str,
    name: &str,
) -> Vec<ComputeDef> {
    let mut files: Vec<(String, String)> = (1..levels).map(|i| (file(i), call(i + 1))).collect();
    files.push((file(levels), last.to_string()));
    let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    read_in_project(read, &files, name, &call(1))
}

/// A definition's schedule settings as `path = value at `text``, or `path ? why`, for the
/// readers' tests.
#[cfg(test)]
pub(crate) fn schedules_for_test(def: &ComputeDef, text: &str) -> Vec<String> {
    def.fields
        .iter()
        .filter(|(p, _)| p.starts_with("schedules"))
        .map(|(p, s)| match s.text() {
            Some(v) => format!("{p} = {v} at `{}`", &text[s.span.range()]),
            None => format!("{p} ? {}", s.why.as_deref().unwrap_or_default()),
        })
        .collect()
}

/// Runs a reader's `read` on `text` written as `dir/name` (JSON files parsed as the loader
/// parses them), for the readers' tests.
#[cfg(test)]
#[allow(clippy::disallowed_methods)]
pub(crate) fn read_for_test(
    read: fn(&super::common::Input<'_>, &mut super::common::Definitions),
    dir: &Path,
    name: &str,
    text: &str,
) -> super::common::Definitions {
    std::fs::write(dir.join(name), text).unwrap();
    let format = crate::load::Format::for_path(name);
    let loaded = crate::load::parse_text(name, text.to_string(), format, &Default::default());
    let files = super::common::Files::new(crate::fsio::Boundary::at(dir), &Default::default());
    let path = dir.join(name);
    let kinds = vec![None; loaded.documents.len()];
    let input = super::common::Input {
        path: &path,
        source: &loaded.source,
        documents: &loaded.documents,
        kinds: &kinds,
        files: &files,
    };
    let mut out = super::common::Definitions::default();
    read(&input, &mut out);
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// Text passed for a `bool` or `int` parameter is read as Azure reads it; anything
    /// else, or another type, stays text.
    #[test]
    fn text_passed_for_a_typed_parameter_takes_its_type() {
        let t = |s: &str, ty: Option<&str>| as_declared(&Ev::text(s), ty).v;
        assert_eq!(t("false", Some("bool")), V::Bool(false));
        assert_eq!(t(" TRUE ", Some("Bool")), V::Bool(true));
        assert_eq!(t("12", Some("int")), V::Int(12));
        assert_eq!(t("yes", Some("bool")), Ev::text("yes").v);
        assert_eq!(t("1.5", Some("int")), Ev::text("1.5").v);
        assert_eq!(t("false", Some("string")), Ev::text("false").v);
        assert_eq!(t("false", None), Ev::text("false").v);
        assert_eq!(
            as_declared(&Ev::unknown("x"), Some("bool")).v,
            V::Unknown("x".into())
        );
    }

    /// ARM's `union`: objects merged key by key (the last value wins, nested objects
    /// merged too), lists joined with each item once; an unknown argument, or objects
    /// mixed with lists, is unknown. `createObject` and `empty` as ARM has them.
    #[test]
    fn union_create_object_and_empty() {
        let s = |t: &str| Ev::text(t.to_string());
        let obj =
            |e: Vec<(&str, Ev)>| Ev::new(V::Map(e.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
        let a = obj(vec![
            ("a", Ev::int(1)),
            ("b", obj(vec![("c", Ev::int(1)), ("d", Ev::int(2))])),
        ]);
        let b = obj(vec![("B", obj(vec![("c", Ev::int(3))])), ("e", s("x"))]);
        let u = union(&[a, b]);
        assert_eq!(u.member("a", true).and_then(int_of), Some(1));
        assert_eq!(
            u.member("b", true)
                .and_then(|b| b.member("c", true))
                .and_then(int_of),
            Some(3)
        );
        assert_eq!(
            u.member("b", true)
                .and_then(|b| b.member("d", true))
                .and_then(int_of),
            Some(2)
        );
        assert_eq!(u.member("e", true).and_then(Ev::known_str).as_deref(), Some("x"));
        let list = |items: &[i64]| Ev::new(V::List(items.iter().map(|i| Ev::int(*i)).collect()));
        assert_eq!(union(&[list(&[1, 2]), list(&[2, 3])]).v, list(&[1, 2, 3]).v);
        assert!(
            union(&[Ev::unknown("`p` has no default"), obj(vec![])])
                .why()
                .unwrap()
                .contains("`p`")
        );
        assert!(union(&[list(&[1]), obj(vec![])]).why().is_some());
        let made = arm_function("createObject", &[s("vmSize"), s("Standard_NC6")]).unwrap();
        assert_eq!(
            made.member("vmsize", true).and_then(Ev::known_str).as_deref(),
            Some("Standard_NC6")
        );
        assert!(arm_function("createObject", &[s("k")]).unwrap().why().is_some());
        let empty = |v: Ev| arm_function("empty", &[v]).unwrap().v;
        assert_eq!(empty(s("")), V::Bool(true));
        assert_eq!(empty(s("x")), V::Bool(false));
        assert_eq!(empty(obj(vec![])), V::Bool(true));
        assert_eq!(empty(list(&[1])), V::Bool(false));
        assert!(matches!(empty(Ev::unknown("?")), V::Unknown(_)));
    }

    /// A note's expression is on one line, and long ones are cut.
    #[test]
    fn one_line_collapses_blanks_and_cuts() {
        assert_eq!(one_line("union({\n  a: 1\n}, b)"), "union({ a: 1 }, b)");
        let long = one_line(&"x ".repeat(200));
        assert_eq!(long.chars().count(), 120);
        assert!(long.ends_with('…'));
    }

    fn s(t: &str) -> Ev {
        Ev::text(t)
    }

    /// A value built from several parameters says where each came from, once each, at
    /// most four (the Apress template's name: `workspaceName` and `computeName` both from
    /// the parameters file, only the first was said).
    #[test]
    fn a_built_value_carries_every_note_of_its_parts() {
        let noted = |n: &str| s("x").with_note(Some(format!("`{n}` is set by p.json")));
        let parts = [
            noted("workspaceName"),
            s("/"),
            noted("computeName"),
            noted("computeName"),
        ];
        let v = arm_function("concat", &parts).unwrap();
        assert_eq!(
            v.note.as_deref(),
            Some("`workspaceName` is set by p.json; `computeName` is set by p.json")
        );
        let many: Vec<Ev> = (0..1000).map(|i| noted(&format!("p{i}"))).collect();
        let v = arm_function("concat", &many).unwrap();
        assert_eq!(v.note.unwrap().matches("is set by").count(), 4);
    }

    #[test]
    fn format_and_concat_keep_unknown_pieces_apart() {
        let ws = Ev::unknown("`parameters('ws')` has no default");
        let v = arm_function("format", &[s("{0}/{1}"), ws.clone(), s("gpu")]).unwrap();
        assert_eq!(v.known_str(), None);
        assert_eq!(v.last_segment().known_str().as_deref(), Some("gpu"));
        let v = arm_function("concat", &[ws.clone(), s("/"), s("cpu-"), Ev::int(4)]).unwrap();
        assert_eq!(v.last_segment().known_str().as_deref(), Some("cpu-4"));
        let v = arm_function("concat", &[s("ws/"), ws.clone()]).unwrap();
        assert_eq!(v.last_segment().known_str(), None, "the compute part is unknown");
        assert!(v.last_segment().why().unwrap().contains("no default"));
        assert_eq!(
            arm_function("format", &[s("{0}-{{x}}-{1}"), s("a"), Ev::int(2)])
                .unwrap()
                .known_str()
                .as_deref(),
            Some("a-{x}-2")
        );
        assert!(
            arm_function("format", &[s("{0:D2}"), Ev::int(2)])
                .unwrap()
                .why()
                .is_some()
        );
        assert!(
            arm_function("format", &[s("{3}"), s("a")])
                .unwrap()
                .why()
                .is_some()
        );
        assert_eq!(
            arm_function("toLower", &[s("GPU-Cluster")])
                .unwrap()
                .known_str()
                .as_deref(),
            Some("gpu-cluster")
        );
        assert!(arm_function("uniqueString", &[s("x")]).is_none());
    }

    /// Audit 28, case 04: the functions that depend only on their arguments, with ARM's
    /// semantics; arguments ARM rejects, and arguments not known, make the value unknown
    /// with what is wrong — never "evaluated at deployment".
    #[test]
    fn pure_string_and_array_functions_follow_arm() {
        let f = |name: &str, args: &[Ev]| arm_function(name, args).unwrap();
        let text = |name: &str, args: &[Ev]| {
            let v = f(name, args);
            v.known_str().unwrap_or_else(|| panic!("{name}: {v:?}"))
        };
        let why = |name: &str, args: &[Ev]| f(name, args).why().unwrap_or_else(|| panic!("{name} known"));
        let i = Ev::int;
        let list = |items: &[&str]| Ev::new(V::List(items.iter().map(|t| s(t)).collect()));
        // take / skip: n <= 0 takes none (skips none), beyond the length takes all.
        assert_eq!(
            text("take", &[s("p001-m01-weu-dev-cpu"), i(16)]),
            "p001-m01-weu-dev"
        );
        assert_eq!(text("take", &[s("abc"), i(0)]), "");
        assert_eq!(text("take", &[s("abc"), i(-2)]), "");
        assert_eq!(text("take", &[s("abc"), i(99)]), "abc");
        assert_eq!(text("skip", &[s("xxcpu"), i(2)]), "cpu");
        assert_eq!(text("skip", &[s("abc"), i(-1)]), "abc");
        assert_eq!(text("skip", &[s("abc"), i(9)]), "");
        assert_eq!(f("take", &[list(&["a", "b", "c"]), i(2)]).v, list(&["a", "b"]).v);
        assert_eq!(f("skip", &[list(&["a", "b", "c"]), i(2)]).v, list(&["c"]).v);
        // Characters as .NET counts them (UTF-16): a cut inside a pair is not guessed.
        assert_eq!(text("take", &[s("é-x"), i(2)]), "é-");
        assert!(why("take", &[s("😀x"), i(1)]).contains("cuts a character"));
        // substring: within the string, else the deployment fails.
        assert_eq!(
            text("substring", &[s("cpu-cluster-xyz"), i(0), i(11)]),
            "cpu-cluster"
        );
        assert_eq!(text("substring", &[s("abcdef"), i(2)]), "cdef");
        assert_eq!(text("substring", &[s("abc"), i(3), i(0)]), "");
        for args in [
            [s("abc"), i(2), i(5)],
            [s("abc"), i(-1), i(1)],
            [s("abc"), i(4), i(0)],
            [s("abc"), i(0), i(-1)],
        ] {
            assert!(
                why("substring", &args).contains("does not lie within the string"),
                "{args:?}"
            );
        }
        assert!(why("substring", &[s("abc"), i(4)]).contains("does not lie within"));
        // replace: every occurrence, case-sensitive; an empty pattern fails.
        assert_eq!(
            text("replace", &[s("gpu_cluster_dev"), s("_"), s("-")]),
            "gpu-cluster-dev"
        );
        assert_eq!(
            text("replace", &[s("standard_nc6"), s("standard"), s("Standard")]),
            "Standard_nc6"
        );
        assert_eq!(
            text("replace", &[s("STANDARD_x"), s("standard"), s("y")]),
            "STANDARD_x"
        );
        assert_eq!(text("replace", &[s("a'b"), s("'"), s("-")]), "a-b");
        assert!(why("replace", &[s("abc"), s(""), s("x")]).contains("empty"));
        // join, length, padLeft.
        assert_eq!(text("join", &[list(&["cpu", "f"]), s("-")]), "cpu-f");
        assert_eq!(text("join", &[list(&[]), s("-")]), "");
        assert!(why("join", &[Ev::new(V::List(vec![s("a"), i(1)])), s("-")]).contains("not a string"));
        assert_eq!(f("length", &[s("abc")]).v, V::Int(3));
        assert_eq!(f("length", &[list(&["a", "b"])]).v, V::Int(2));
        assert_eq!(
            f("length", &[Ev::new(V::Map(vec![("k".into(), s("v"))]))]).v,
            V::Int(1)
        );
        assert_eq!(text("padLeft", &[s("7"), i(3), s("0")]), "007");
        assert_eq!(text("padLeft", &[i(7), i(3), s("0")]), "007");
        assert_eq!(text("padLeft", &[s("7"), i(3)]), "  7");
        assert_eq!(text("padLeft", &[s("long"), i(2), s("0")]), "long");
        assert!(why("padLeft", &[s("7"), i(3), s("00")]).contains("not one character"));
        assert!(why("padLeft", &[s("7"), i(1 << 40), s("0")]).contains("longer than"));
        // min, max (of numbers, or of one list of them); startsWith, endsWith ignore case.
        assert_eq!(f("min", &[i(3), i(4)]).v, V::Int(3));
        assert_eq!(f("max", &[Ev::new(V::List(vec![i(1), i(5), i(2)]))]).v, V::Int(5));
        assert!(why("min", &[Ev::new(V::List(vec![]))]).contains("no numbers"));
        assert_eq!(f("startsWith", &[s("ABCdef"), s("abc")]).v, V::Bool(true));
        assert_eq!(f("endsWith", &[s("abc"), s("x")]).v, V::Bool(false));
        assert_eq!(f("endsWith", &[s("abC"), s("BC")]).v, V::Bool(true));
        assert_eq!(text("first", &[s("xyz")]), "x");
        // range(start, count): what Resource Manager rejects, and more items than amlint
        // expands, are not known.
        assert_eq!(f("range", &[i(1), i(3)]).v, V::List(vec![i(1), i(2), i(3)]));
        assert_eq!(f("range", &[i(5), i(0)]).v, V::List(vec![]));
        assert!(why("range", &[i(0), i(-1)]).contains("fails at deployment"));
        assert!(why("range", &[i(0), i(10_001)]).contains("fails at deployment"));
        assert!(why("range", &[i(i64::from(i32::MAX)), i(2)]).contains("fails at deployment"));
        assert!(why("range", &[i(0), i(MAX_ITEMS as i64 + 1)]).contains("more items than amlint expands"));
        assert!(why("range", &[i(0)]).contains("takes two arguments"));
        // An argument not known: the value is unknown with that argument's reason.
        let no_default = Ev::unknown("`projectNumber` has no default value");
        let built = join([
            Part::Text("p".into()),
            Part::Unknown("`projectNumber` has no default value".into()),
            Part::Text("-m01".into()),
        ]);
        for (name, args) in [
            ("take", vec![built.clone(), i(16)]),
            ("take", vec![s("abc"), no_default.clone()]),
            ("skip", vec![built.clone(), i(1)]),
            ("substring", vec![s("abc"), i(0), no_default.clone()]),
            ("replace", vec![s("abc"), s("b"), built.clone()]),
            (
                "join",
                vec![Ev::new(V::List(vec![s("a"), no_default.clone()])), s("-")],
            ),
            ("join", vec![no_default.clone(), s("-")]),
            ("length", vec![built.clone()]),
            ("padLeft", vec![no_default.clone(), i(3), s("0")]),
            ("range", vec![i(1), no_default.clone()]),
            ("min", vec![i(1), no_default.clone()]),
            ("max", vec![no_default.clone()]),
            ("startsWith", vec![built.clone(), s("p")]),
            ("first", vec![no_default.clone()]),
        ] {
            assert_eq!(why(name, &args), "`projectNumber` has no default value", "{name}");
        }
        // A value from a parameters file keeps its note.
        let noted = s("dev-cluster-long").with_note(Some("`n` is set by p.json".into()));
        assert_eq!(
            f("take", &[noted, i(3)]).note.as_deref(),
            Some("`n` is set by p.json")
        );
    }

    #[test]
    fn strings_stop_growing_at_the_bound() {
        let mut v = s("ab");
        for _ in 0..20 {
            v = arm_function("concat", &[v.clone(), v.clone()]).unwrap();
        }
        assert!(v.why().unwrap().contains("longer than"));
    }

    #[test]
    fn durations_priorities_and_switches_read_as_yaml_holds_them() {
        assert_eq!(iso_seconds("PT120S"), Some(120));
        assert_eq!(iso_seconds("PT5M"), Some(300));
        assert_eq!(iso_seconds("PT1H30M"), Some(5400));
        assert_eq!(iso_seconds("P1D"), Some(86400));
        assert_eq!(iso_seconds("5M"), None);
        assert_eq!(iso_seconds("PT5X"), None);
        assert_eq!(
            scalar(&s("LowPriority"), As::Tier),
            Ok(Some(Scalar::Str("low_priority".into())))
        );
        assert_eq!(scalar(&s("Enabled"), As::Enabled), Ok(Some(Scalar::Bool(true))));
        assert_eq!(scalar(&s("NotSpecified"), As::Enabled), Ok(None));
        assert_eq!(scalar(&s("4"), As::Count), Ok(Some(Scalar::Int(4))));
        assert!(scalar(&s("four"), As::Count).is_err());
        assert_eq!(scalar(&Ev::new(V::Null), As::Text), Ok(None));
    }

    fn leaf(start: u32, text: &str, val: Ev, literal: bool) -> BodyNode {
        let span = Span::new(start, start + text.len() as u32);
        BodyNode::Leaf(Leaf {
            span,
            written: text.into(),
            val,
            literal: literal.then_some(span),
        })
    }

    fn field(name: &str, value: BodyNode) -> BodyField {
        BodyField {
            name: name.into(),
            key: Span::new(0, name.len() as u32),
            value,
        }
    }

    #[test]
    fn a_resource_body_fills_the_yaml_paths() {
        let props = BodyNode::Map(vec![
            field("vmSize", leaf(10, "Standard_NC6", s("Standard_NC6"), true)),
            field("vmPriority", leaf(30, "LowPriority", s("LowPriority"), true)),
            field(
                "scaleSettings",
                BodyNode::Map(vec![
                    field("minNodeCount", leaf(50, "\"1\"", s("1"), false)),
                    field("maxNodeCount", leaf(60, "4", Ev::int(4), true)),
                    field("nodeIdleTimeBeforeScaleDown", leaf(70, "PT2M", s("PT2M"), true)),
                ]),
            ),
            field(
                "subnet",
                BodyNode::Map(vec![field(
                    "id",
                    leaf(90, "[parameters('s')]", Ev::unknown("no default"), false),
                )]),
            ),
            field(
                "remoteLoginPortPublicAccess",
                leaf(120, "NotSpecified", s("NotSpecified"), true),
            ),
        ]);
        let root = BodyNode::Map(vec![field(
            "properties",
            BodyNode::Map(vec![
                field("computeType", leaf(0, "AmlCompute", s("AmlCompute"), true)),
                field("properties", props),
            ]),
        )]);
        let mut def = ComputeDef::new(
            crate::facts::computes::SourceKind::Arm,
            "t.json",
            Span::new(0, 200),
            "x",
            Setting::literal(Scalar::Str("c".into()), Span::new(0, 1), None),
        );
        arm_compute_fields(&root, &mut def);
        assert_eq!(def.ctype().as_deref(), Some("amlcompute"));
        assert_eq!(def.size(), Some("Standard_NC6"));
        assert!(def.get("size").unwrap().in_place);
        assert_eq!(
            def.get("tier").unwrap().value,
            Some(Scalar::Str("low_priority".into()))
        );
        assert!(
            !def.get("tier").unwrap().in_place,
            "LowPriority is not YAML's spelling"
        );
        let min = def.get("min_instances").unwrap();
        assert_eq!((min.value.clone(), min.in_place), (Some(Scalar::Int(1)), false));
        assert!(def.get("max_instances").unwrap().in_place);
        assert_eq!(
            def.get("idle_time_before_scale_down").unwrap().value,
            Some(Scalar::Int(120))
        );
        let subnet = def.get("network_settings.subnet").unwrap();
        assert_eq!(subnet.why.as_deref(), Some("no default"));
        assert!(
            def.get("ssh_public_access_enabled").is_none(),
            "NotSpecified says nothing"
        );
    }

    #[test]
    fn an_object_held_by_a_variable_is_read_at_its_use() {
        let held = Ev::new(V::Map(vec![(
            "vmSize".into(),
            s("Standard_ND40rs_v2").with_origin(Some(Span::new(300, 318))),
        )]));
        let root = BodyNode::Map(vec![field(
            "properties",
            BodyNode::Map(vec![
                field("computeType", leaf(0, "AmlCompute", s("AmlCompute"), true)),
                field("properties", leaf(40, "clusterProps", held, false)),
            ]),
        )]);
        let mut def = ComputeDef::new(
            crate::facts::computes::SourceKind::Bicep,
            "m.bicep",
            Span::new(0, 200),
            "x",
            Setting::literal(Scalar::Str("c".into()), Span::new(0, 1), None),
        );
        arm_compute_fields(&root, &mut def);
        let size = def.get("size").unwrap();
        assert_eq!(size.span, Span::new(40, 52));
        assert_eq!(size.written, "clusterProps");
        assert_eq!(size.origin, Some(Span::new(300, 318)));
        assert!(!size.in_place);
    }

    #[test]
    fn companions_are_the_definition_files_beside_a_variable_file() {
        assert!(companion_of("infra/variables.tf", "infra/main.tf"));
        assert!(companion_of("infra/terraform.tfvars", "infra/main.tf"));
        assert!(companion_of("b/main.bicepparam", "b/main.bicep"));
        assert!(companion_of(
            "arm/azuredeploy.parameters.json",
            "arm/azuredeploy.json"
        ));
        assert!(
            !companion_of("infra/variables.tf", "other/main.tf"),
            "another module"
        );
        assert!(!companion_of("infra/main.tf", "infra/main.tf"));
        assert!(!companion_of(
            "arm/azuredeploy.json",
            "arm/azuredeploy.parameters.json"
        ));
        assert!(!companion_of("jobs/job.yml", "jobs/main.tf"));
        // What a directory's files give together: each file's, in one test per file.
        let dir = GivesTo::of("infra/variables.tf").with(GivesTo::of("infra/main.bicepparam"));
        assert!(dir.takes("infra/main.tf") && dir.takes("infra/main.bicep"));
        assert!(
            !dir.takes("infra/azuredeploy.json"),
            "no ARM parameters file among them"
        );
        assert!(!GivesTo::of("jobs/job.yml").any());
        assert!(GivesTo::of("a/azuredeploy.parameters.json").takes("a/azuredeploy.json"));
        assert!(!GivesTo::of("a/azuredeploy.parameters.json").takes("a/b.parameters.json"));
        // Whatever the case of the name, as Windows and macOS file systems keep it.
        assert!(GivesTo::of("Infra\\Prod.TFVARS").takes("Infra\\Main.TF"));
        assert!(GivesTo::of("a/Deploy.Parameters.JSON").takes("a/Deploy.Json"));
        assert!(GivesTo::of("a/Main.BicepParam").takes("a/main.BICEP"));
        assert!(!GivesTo::of("a/x.tf.bak").any() && !GivesTo::of("a/parameters").any());
        // The Azure portal's export layout, and one file per environment.
        assert!(GivesTo::of("a/parameters.json").takes("a/template.json"));
        assert!(GivesTo::of("a/Parameters.Dev.json").takes("a/template.json"));
        assert!(!GivesTo::of("a/parameters.dev.json").takes("a/parameters.test.json"));
        assert!(!GivesTo::of("a/parameters.json").takes("a/main.bicep"));
    }

    #[test]
    fn literal_text_is_in_place_only_without_escapes() {
        let text = r#"x = "Standard_NC6" y = "a\"b""#;
        assert_eq!(
            inner_if_plain(text, Span::new(4, 18), 1, 1, "Standard_NC6"),
            Some(Span::new(5, 17))
        );
        assert_eq!(inner_if_plain(text, Span::new(23, 29), 1, 1, "a\"b"), None);
    }

    /// The places a module call passes come back one call up as they were, a module's
    /// own place comes back as none, the mark stops at its last level, and a file too long
    /// for it is not marked; the key of a value is found before it, quoted or not.
    #[test]
    fn raised_origins_and_keys() {
        let v = Ev::new(V::List(vec![
            Ev::text("Standard_NC6").with_origin(Some(Span::new(40, 52))),
            Ev::boolean(true).with_origin(Some(Span::new(60, 64))),
        ]));
        let up = raise_origins(v);
        let V::List(items) = &up.v else { panic!("{up:?}") };
        assert!(items.iter().all(|i| i.origin.is_some_and(is_raised)));
        assert_eq!(lower_origin(items[0].origin), Some(Span::new(40, 52)));
        assert_eq!(lower_origin(Some(Span::new(40, 52))), None);
        let mut top = Ev::boolean(true).with_origin(Some(Span::new(1, 2)));
        for _ in 0..20 {
            top = raise_origins(top);
        }
        assert_eq!(top.origin, None);
        assert!(raisable((1 << LEVEL_SHIFT) - 1) && !raisable(1 << LEVEL_SHIFT));
        let text = "a: {\n  vmSize: 'Standard_NC6'\n  'enableNodePublicIp': true\n}\nx = f(y: 1)";
        let at = |w: &str| {
            let s = text.find(w).unwrap() as u32;
            Span::new(s, s + w.len() as u32)
        };
        let key = |w: &str| key_before(text, at(w)).map(|k| &text[k.range()]);
        assert_eq!(key("Standard_NC6"), Some("vmSize"));
        assert_eq!(key("true"), Some("enableNodePublicIp"));
        assert_eq!(key("1)"), None);
    }
}
