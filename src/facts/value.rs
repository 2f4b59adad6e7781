//! The values facts and fields resolve to, as rules compare them: what a field or fact
//! holds as the Azure ML CLI reads it, or *unknown* (a fact that cannot be resolved).

use crate::document::{Document, NodeId, Value};

/// A comparable value: what a field or fact holds, as the Azure ML CLI reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    List(Vec<Val>),
    /// A mapping (only `exists` and `count` look at it).
    Map,
}

impl Val {
    pub fn from_node(doc: &Document, id: NodeId) -> Val {
        match doc.value(id) {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Int(i) => Val::Num(*i as f64),
            Value::BigInt(s) => Val::Num(Value::big_int_f64(s)),
            Value::Float(f) => Val::Num(*f),
            Value::Str(s) | Value::Timestamp(s) => Val::Str(s.to_string()),
            Value::Seq(items) => Val::List(items.iter().map(|&c| Val::from_node(doc, c)).collect()),
            Value::Map(_) | Value::Alias(_) => Val::Map,
        }
    }

    pub fn from_json(v: &serde_json::Value) -> Val {
        match v {
            serde_json::Value::Null => Val::Null,
            serde_json::Value::Bool(b) => Val::Bool(*b),
            serde_json::Value::Number(n) => Val::Num(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => Val::Str(s.clone()),
            serde_json::Value::Array(a) => Val::List(a.iter().map(Val::from_json).collect()),
            serde_json::Value::Object(_) => Val::Map,
        }
    }

    pub fn as_num(&self) -> Option<f64> {
        match self {
            Val::Num(n) => Some(*n),
            Val::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// For messages: `2`, `2.5`, `Standard_NC6`, `true`.
    pub fn display(&self) -> String {
        match self {
            Val::Null => "null".to_string(),
            Val::Bool(b) => b.to_string(),
            Val::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
            // Enough digits to tell values apart, not the float's full expansion.
            Val::Num(n) => {
                let s = format!("{n:.4}");
                let s = s.trim_end_matches('0').trim_end_matches('.');
                if s == "0" || s == "-0" {
                    format!("{n:e}")
                } else {
                    s.to_string()
                }
            }
            Val::Str(s) => s.clone(),
            Val::List(items) => items.iter().map(Val::display).collect::<Vec<_>>().join(", "),
            Val::Map => "{...}".to_string(),
        }
    }
}

/// What a field resolves to.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    /// A fact that could not be resolved.
    Unknown,
    /// Every value the path reaches (none: the field is absent).
    Values(Vec<Val>),
}
