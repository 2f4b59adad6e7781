//! The nodes of the document tree: a [`Node`] is a [`Value`] with its span and [`Style`];
//! collections refer to their items by [`NodeId`], the index in [`super::Document::nodes`].

use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a scalar was written; only plain YAML scalars are resolved to non-strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    /// A JSON string (quoted) or JSON literal (number, `true`, `null`).
    Json,
    /// A collection in block style.
    Block,
    /// A collection in flow style (`{...}`, `[...]`, and every JSON collection).
    Flow,
}

impl Style {
    pub fn is_quoted(self) -> bool {
        matches!(self, Style::SingleQuoted | Style::DoubleQuoted)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond 64 bits, as decimal digits (Python integers are unbounded).
    BigInt(Box<str>),
    Float(f64),
    Str(Box<str>),
    /// A YAML 1.1 timestamp (`2021-01-01`), which PyYAML turns into a date, as written.
    Timestamp(Box<str>),
    Seq(Vec<NodeId>),
    Map(Vec<Entry>),
    /// `*name`: the node its anchor marks.
    Alias(NodeId),
}

impl Value {
    /// An integer beyond 64 bits ([`Value::BigInt`]) as the nearest double, for the JSON
    /// view and numeric comparisons: beyond a double's range (or kept as written, over
    /// 4,300 digits) the largest double of its sign, still a whole number as the
    /// integer is.
    pub fn big_int_f64(text: &str) -> f64 {
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .unwrap_or(if text.starts_with('-') { f64::MIN } else { f64::MAX })
    }

    /// The JSON Schema type name of this value, as messages name it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::BigInt(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Timestamp(_) => "timestamp",
            Value::Seq(_) => "list",
            Value::Map(_) => "mapping",
            Value::Alias(_) => "alias",
        }
    }
}

/// One `key: value` pair of a mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: NodeId,
    pub value: NodeId,
    /// Brought in by a `<<` merge key rather than written in this mapping.
    pub merged: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// The node's own text: a scalar without its anchor or tag, a flow collection from
    /// bracket to bracket, a block collection from its first key to its last value.
    pub span: Span,
    pub style: Style,
}
