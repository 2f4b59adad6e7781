//! Conditions, in the shape of Azure Policy's language: `all`/`any`/`not`, and a `field`
//! with one operator (`exists`, `equals`, `notEquals`, `in`, `notIn`, `greater`,
//! `greaterOrEquals`, `less`, `lessOrEquals`, `matches`, `like`, `contains`), or a `count`
//! of the values of a field (optionally those satisfying `where`) with a comparison.
//!
//! Evaluation is three-valued: a fact that cannot be resolved makes its condition
//! *unknown*, `all`/`any`/`not` propagate unknowns, and a rule fires only on *true* —
//! missing information never causes a finding.

use regex::Regex;

use super::path::FieldPath;
use crate::document::{NodeId, Value};
use crate::facts::{Resolved, Val};

/// Three-valued truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    True,
    False,
    Unknown,
}

impl Tri {
    fn from(b: bool) -> Tri {
        if b { Tri::True } else { Tri::False }
    }

    fn not(self) -> Tri {
        match self {
            Tri::True => Tri::False,
            Tri::False => Tri::True,
            Tri::Unknown => Tri::Unknown,
        }
    }
}

/// An operator's right-hand side: a literal, or a reference (`$params.x`, a field).
#[derive(Clone, Debug)]
pub enum Operand {
    Lit(Val),
    Ref(FieldPath),
}

#[derive(Clone, Debug)]
pub enum Op {
    Exists(bool),
    Equals(Operand),
    NotEquals(Operand),
    In(Operand),
    NotIn(Operand),
    Greater(Operand),
    GreaterOrEquals(Operand),
    Less(Operand),
    LessOrEquals(Operand),
    Matches(Regex),
    Like(Regex),
    Contains(Operand),
}

pub const OPERATORS: &[&str] = &[
    "exists",
    "equals",
    "notEquals",
    "in",
    "notIn",
    "greater",
    "greaterOrEquals",
    "less",
    "lessOrEquals",
    "matches",
    "like",
    "contains",
];

#[derive(Clone, Debug)]
pub enum Cond {
    All(Vec<Cond>),
    Any(Vec<Cond>),
    Not(Box<Cond>),
    Field {
        path: FieldPath,
        op: Op,
    },
    Count {
        path: FieldPath,
        filter: Option<Box<Cond>>,
        op: Op,
    },
}

/// Where a condition is evaluated and how it reaches values.
pub trait Env {
    /// Resolves a path; `base` is the element inside `count ... where`, else `None`.
    fn resolve(&self, path: &FieldPath, base: Option<NodeId>) -> Resolved;
    /// The document nodes a path reaches (for `count`).
    fn nodes(&self, path: &FieldPath, base: Option<NodeId>) -> Option<Vec<NodeId>>;
}

fn str_eq(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

fn equals(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => str_eq(x, y),
        (Val::Num(x), Val::Num(y)) => x == y,
        (Val::Num(_), Val::Str(_)) | (Val::Str(_), Val::Num(_)) => {
            matches!((a.as_num(), b.as_num()), (Some(x), Some(y)) if x == y)
        }
        // A boolean field as the SDK reads it (marshmallow's `fields.Boolean`): the
        // strings `yes`, `t`, `1`, `on`... are true, `no`, `f`, `0`, `off`... false; the
        // numbers 1 and 0 too.
        (Val::Bool(x), Val::Str(s)) | (Val::Str(s), Val::Bool(x)) => {
            crate::schema::coerce::boolean_str(s) == Some(*x)
        }
        (Val::Bool(x), Val::Num(n)) | (Val::Num(n), Val::Bool(x)) => (*n == 1.0 && *x) || (*n == 0.0 && !*x),
        (Val::List(x), Val::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equals(p, q)),
        _ => a == b,
    }
}

fn order(a: &Val, b: &Val) -> Option<std::cmp::Ordering> {
    match (a.as_num(), b.as_num()) {
        (Some(x), Some(y)) => x.partial_cmp(&y),
        _ => match (a, b) {
            // ISO dates and versions compare as text.
            (Val::Str(x), Val::Str(y)) => Some(x.to_lowercase().cmp(&y.to_lowercase())),
            _ => None,
        },
    }
}

fn contains(hay: &Val, needle: &Val) -> bool {
    match (hay, needle) {
        (Val::Str(h), Val::Str(n)) => h.to_lowercase().contains(&n.to_lowercase()),
        (Val::Str(h), other) => h.to_lowercase().contains(&other.display().to_lowercase()),
        (Val::List(items), n) => items.iter().any(|i| equals(i, n)),
        _ => false,
    }
}

fn operand(env: &dyn Env, o: &Operand, base: Option<NodeId>) -> Option<Vec<Val>> {
    match o {
        Operand::Lit(v) => Some(vec![v.clone()]),
        Operand::Ref(p) => match env.resolve(p, base) {
            Resolved::Unknown => None,
            Resolved::Values(vs) => Some(vs),
        },
    }
}

/// The members of an `in` list operand (a literal list, or a reference to a list).
fn members(values: Vec<Val>) -> Vec<Val> {
    values
        .into_iter()
        .flat_map(|v| match v {
            Val::List(items) => items,
            other => vec![other],
        })
        .collect()
}

/// Applies an operator to the values of a field (existentially: true when one value
/// satisfies it). A missing field satisfies only `exists: false`, `notEquals`, `notIn`.
fn apply(env: &dyn Env, op: &Op, values: &[Val], base: Option<NodeId>) -> Tri {
    let present: Vec<&Val> = values.iter().filter(|v| **v != Val::Null).collect();
    if let Op::Exists(want) = op {
        return Tri::from(present.is_empty() != *want);
    }
    let any = |f: &dyn Fn(&Val) -> bool| Tri::from(present.iter().any(|v| f(v)));
    match op {
        Op::Exists(_) => unreachable!("handled above"),
        Op::Matches(re) | Op::Like(re) => any(&|v| match v {
            Val::Str(s) => re.is_match(s),
            Val::Num(_) | Val::Bool(_) => re.is_match(&v.display()),
            _ => false,
        }),
        Op::Equals(o)
        | Op::NotEquals(o)
        | Op::Greater(o)
        | Op::GreaterOrEquals(o)
        | Op::Less(o)
        | Op::LessOrEquals(o)
        | Op::Contains(o)
        | Op::In(o)
        | Op::NotIn(o) => {
            let Some(rhs) = operand(env, o, base) else {
                return Tri::Unknown;
            };
            match op {
                Op::Equals(_) => any(&|v| rhs.iter().any(|r| equals(v, r))),
                Op::NotEquals(_) => {
                    Tri::from(present.is_empty() || present.iter().any(|v| !rhs.iter().any(|r| equals(v, r))))
                }
                Op::In(_) => {
                    let list = members(rhs);
                    any(&|v| list.iter().any(|r| equals(v, r)))
                }
                Op::NotIn(_) => {
                    let list = members(rhs);
                    Tri::from(
                        present.is_empty() || present.iter().any(|v| !list.iter().any(|r| equals(v, r))),
                    )
                }
                Op::Contains(_) => any(&|v| rhs.iter().any(|r| contains(v, r))),
                _ => {
                    let cmp = |v: &Val| {
                        rhs.iter().any(|r| match (order(v, r), op) {
                            (Some(o), Op::Greater(_)) => o.is_gt(),
                            (Some(o), Op::GreaterOrEquals(_)) => o.is_ge(),
                            (Some(o), Op::Less(_)) => o.is_lt(),
                            (Some(o), Op::LessOrEquals(_)) => o.is_le(),
                            _ => false,
                        })
                    };
                    any(&cmp)
                }
            }
        }
    }
}

impl Op {
    /// The reference operand (`in: $params.approved_vm_series`), if any.
    fn paths(&self, out: &mut Vec<FieldPath>) {
        match self {
            Op::Equals(Operand::Ref(p))
            | Op::NotEquals(Operand::Ref(p))
            | Op::In(Operand::Ref(p))
            | Op::NotIn(Operand::Ref(p))
            | Op::Greater(Operand::Ref(p))
            | Op::GreaterOrEquals(Operand::Ref(p))
            | Op::Less(Operand::Ref(p))
            | Op::LessOrEquals(Operand::Ref(p))
            | Op::Contains(Operand::Ref(p)) => out.push(p.clone()),
            _ => {}
        }
    }
}

impl Cond {
    pub fn eval(&self, env: &dyn Env, base: Option<NodeId>) -> Tri {
        match self {
            Cond::All(cs) => {
                let mut unknown = false;
                for c in cs {
                    match c.eval(env, base) {
                        Tri::False => return Tri::False,
                        Tri::Unknown => unknown = true,
                        Tri::True => {}
                    }
                }
                if unknown { Tri::Unknown } else { Tri::True }
            }
            Cond::Any(cs) => {
                let mut unknown = false;
                for c in cs {
                    match c.eval(env, base) {
                        Tri::True => return Tri::True,
                        Tri::Unknown => unknown = true,
                        Tri::False => {}
                    }
                }
                if unknown { Tri::Unknown } else { Tri::False }
            }
            Cond::Not(c) => c.eval(env, base).not(),
            Cond::Field { path, op } => match env.resolve(path, base) {
                Resolved::Unknown => Tri::Unknown,
                Resolved::Values(vs) => apply(env, op, &vs, base),
            },
            Cond::Count { path, filter, op } => {
                let (low, high) = match (env.nodes(path, base), filter) {
                    (None, _) => match env.resolve(path, base) {
                        Resolved::Unknown => return Tri::Unknown,
                        Resolved::Values(vs) => (vs.len(), vs.len()),
                    },
                    // A value not known statically among them (or above them) makes the
                    // number not known.
                    (Some(nodes), None) => match env.resolve(path, base) {
                        Resolved::Unknown => return Tri::Unknown,
                        Resolved::Values(_) => (nodes.len(), nodes.len()),
                    },
                    (Some(nodes), Some(f)) => {
                        let mut low = 0;
                        let mut high = 0;
                        for n in nodes {
                            match f.eval(env, Some(n)) {
                                Tri::True => {
                                    low += 1;
                                    high += 1;
                                }
                                Tri::Unknown => high += 1,
                                Tri::False => {}
                            }
                        }
                        (low, high)
                    }
                };
                let at_low = apply(env, op, &[Val::Num(low as f64)], base);
                let at_high = apply(env, op, &[Val::Num(high as f64)], base);
                if at_low == at_high { at_low } else { Tri::Unknown }
            }
        }
    }

    /// Every field path the condition reads (to validate rules).
    pub fn paths(&self, out: &mut Vec<FieldPath>) {
        match self {
            Cond::All(cs) | Cond::Any(cs) => cs.iter().for_each(|c| c.paths(out)),
            Cond::Not(c) => c.paths(out),
            Cond::Field { path, op } => {
                out.push(path.clone());
                op.paths(out);
            }
            Cond::Count { path, filter, op } => {
                out.push(path.clone());
                op.paths(out);
                if let Some(f) = filter {
                    f.paths(out);
                }
            }
        }
    }
}

/// A condition as written, with the error positions of its rule file.
pub mod parse {
    // `condition`'s items come by `crate::policy::condition::*`, not `super::*`: the
    // layers test reads a `super::` as the file's folder.
    use crate::document::{Document, NodeId};
    use crate::policy::condition::*;
    use crate::source::Span;

    pub struct ParseError {
        pub span: Span,
        pub message: String,
    }

    fn err(doc: &Document, id: NodeId, message: impl Into<String>) -> ParseError {
        ParseError {
            span: doc.node(id).span,
            message: message.into(),
        }
    }

    /// A path whose facts exist, with the fields they have.
    fn checked(path: FieldPath) -> Result<FieldPath, String> {
        crate::policy::path::check_fact_path(&path, false).map(|()| path)
    }

    fn glob_to_regex(glob: &str) -> String {
        let mut re = String::from("(?is)^");
        for c in glob.chars() {
            match c {
                '*' => re.push_str(".*"),
                '?' => re.push('.'),
                c => re.push_str(&regex::escape(&c.to_string())),
            }
        }
        re.push('$');
        re
    }

    fn operand_of(doc: &Document, id: NodeId) -> Result<Operand, ParseError> {
        match doc.value(id) {
            Value::Str(s) if s.starts_with('$') && !s.starts_with("$$") => FieldPath::parse(s)
                .and_then(checked)
                .map(Operand::Ref)
                .map_err(|e| err(doc, id, e)),
            Value::Str(s) if s.starts_with("$$") => Ok(Operand::Lit(Val::Str(s[1..].to_string()))),
            _ => Ok(Operand::Lit(Val::from_node(doc, id))),
        }
    }

    fn op_of(doc: &Document, name: &str, id: NodeId) -> Result<Op, ParseError> {
        let text = |id: NodeId| match doc.value(id) {
            Value::Str(s) => Ok(s.to_string()),
            _ => Err(err(doc, id, format!("`{name}` takes a string"))),
        };
        Ok(match name {
            "exists" => match doc.value(id) {
                Value::Bool(b) => Op::Exists(*b),
                _ => return Err(err(doc, id, "`exists` takes true or false")),
            },
            "equals" => Op::Equals(operand_of(doc, id)?),
            "notEquals" => Op::NotEquals(operand_of(doc, id)?),
            "in" | "notIn" => {
                let o = operand_of(doc, id)?;
                if let Operand::Lit(v) = &o {
                    if !matches!(v, Val::List(_)) {
                        return Err(err(
                            doc,
                            id,
                            format!("`{name}` takes a list (or a `$params` reference to one)"),
                        ));
                    }
                }
                if name == "in" { Op::In(o) } else { Op::NotIn(o) }
            }
            "greater" => Op::Greater(operand_of(doc, id)?),
            "greaterOrEquals" => Op::GreaterOrEquals(operand_of(doc, id)?),
            "less" => Op::Less(operand_of(doc, id)?),
            "lessOrEquals" => Op::LessOrEquals(operand_of(doc, id)?),
            "contains" => Op::Contains(operand_of(doc, id)?),
            "matches" => {
                let pattern = text(id)?;
                let re = regex::RegexBuilder::new(&pattern)
                    .case_insensitive(true)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| err(doc, id, format!("invalid regular expression: {e}")))?;
                Op::Matches(re)
            }
            "like" => {
                let pattern = text(id)?;
                Op::Like(Regex::new(&glob_to_regex(&pattern)).map_err(|e| err(doc, id, e.to_string()))?)
            }
            _ => unreachable!("caller checks OPERATORS"),
        })
    }

    /// A `count` condition (its mapping `c`), with its operator `op` (at `op_value`).
    fn count(doc: &Document, c: NodeId, op: Op, op_value: NodeId) -> Result<Cond, ParseError> {
        if !matches!(
            op,
            Op::Equals(_)
                | Op::NotEquals(_)
                | Op::Greater(_)
                | Op::GreaterOrEquals(_)
                | Op::Less(_)
                | Op::LessOrEquals(_)
        ) {
            return Err(err(
                doc,
                op_value,
                "a `count` compares with equals, notEquals, greater, greaterOrEquals, less or lessOrEquals",
            ));
        }
        let field = doc
            .get(c, "field")
            .ok_or_else(|| err(doc, c, "`count` needs a `field`"))?;
        let Value::Str(path) = doc.value(field) else {
            return Err(err(doc, field, "`field` takes a path"));
        };
        let path = FieldPath::parse(path)
            .and_then(checked)
            .map_err(|e| err(doc, field, e))?;
        for e in doc.entries(c) {
            let k = doc.key_string(e.key);
            if k != "field" && k != "where" {
                return Err(err(
                    doc,
                    e.key,
                    format!("`{k}` is not part of `count` (it takes `field` and `where`)"),
                ));
            }
        }
        let filter = match doc.get(c, "where") {
            Some(w) => Some(Box::new(condition(doc, w)?)),
            None => None,
        };
        Ok(Cond::Count { path, filter, op })
    }

    /// Parses the condition at node `id` of a rule file.
    pub fn condition(doc: &Document, id: NodeId) -> Result<Cond, ParseError> {
        let Value::Map(entries) = doc.value(id) else {
            return Err(err(
                doc,
                id,
                "a condition is a mapping: `all`, `any`, `not`, or `field`/`count` with an operator",
            ));
        };
        let keys: Vec<(String, NodeId, NodeId)> = entries
            .iter()
            .map(|e| (doc.key_string(e.key).into_owned(), e.key, e.value))
            .collect();
        let get = |k: &str| keys.iter().find(|(name, _, _)| name == k);
        let list = |id: NodeId, what: &str| -> Result<Vec<Cond>, ParseError> {
            let items = doc.items(id);
            if !matches!(doc.value(id), Value::Seq(_)) || items.is_empty() {
                return Err(err(
                    doc,
                    id,
                    format!("`{what}` takes a non-empty list of conditions"),
                ));
            }
            items.iter().map(|&c| condition(doc, c)).collect()
        };
        if keys.len() == 1 {
            let (k, _, v) = &keys[0];
            match k.as_str() {
                "all" => return Ok(Cond::All(list(*v, "all")?)),
                "any" => return Ok(Cond::Any(list(*v, "any")?)),
                "not" => return Ok(Cond::Not(Box::new(condition(doc, *v)?))),
                _ => {}
            }
        }
        let ops: Vec<&(String, NodeId, NodeId)> = keys
            .iter()
            .filter(|(k, _, _)| OPERATORS.contains(&k.as_str()))
            .collect();
        for (k, key, _) in &keys {
            if !OPERATORS.contains(&k.as_str()) && k != "field" && k != "count" {
                let hint = crate::suggest::closest(
                    k,
                    OPERATORS
                        .iter()
                        .chain(["field", "count", "all", "any", "not"].iter()),
                )
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
                return Err(err(doc, *key, format!("`{k}` is not part of a condition{hint}")));
            }
        }
        let [(op_name, _, op_value)] = ops.as_slice() else {
            return Err(err(
                doc,
                id,
                format!(
                    "a `field` or `count` condition needs exactly one operator (one of {})",
                    OPERATORS.join(", ")
                ),
            ));
        };
        let op = op_of(doc, op_name, *op_value)?;
        match (get("field"), get("count")) {
            (Some((_, _, f)), None) => {
                let Value::Str(path) = doc.value(*f) else {
                    return Err(err(
                        doc,
                        *f,
                        "`field` takes a path such as `resources.instance_count` or `$vm.gpus`",
                    ));
                };
                let path = FieldPath::parse(path)
                    .and_then(checked)
                    .map_err(|e| err(doc, *f, e))?;
                Ok(Cond::Field { path, op })
            }
            (None, Some((_, _, c))) => count(doc, *c, op, *op_value),
            (Some((_, k, _)), Some(_)) => Err(err(doc, *k, "use either `field` or `count`, not both")),
            (None, None) => Err(err(
                doc,
                id,
                "the operator needs a `field` (or a `count`) to apply to",
            )),
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use crate::load::{Format, parse_text};

    struct Fixed(Vec<(String, Resolved)>);

    impl Env for Fixed {
        fn resolve(&self, path: &FieldPath, _: Option<NodeId>) -> Resolved {
            let key = path.to_string();
            self.0
                .iter()
                .find(|(k, _)| *k == key)
                .map_or(Resolved::Values(vec![]), |(_, v)| v.clone())
        }
        fn nodes(&self, _: &FieldPath, _: Option<NodeId>) -> Option<Vec<NodeId>> {
            None
        }
    }

    fn cond(yaml: &str) -> Cond {
        let loaded = parse_text("r.yaml", yaml.to_string(), Format::Yaml, &Limits::default());
        let doc = &loaded.documents[0];
        parse::condition(doc, doc.root.unwrap()).unwrap_or_else(|e| panic!("{}", e.message))
    }

    fn env(pairs: &[(&str, Resolved)]) -> Fixed {
        Fixed(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    }

    fn vals(v: &[Val]) -> Resolved {
        Resolved::Values(v.to_vec())
    }

    #[test]
    fn operators() {
        let e = env(&[
            ("computeType", vals(&[Val::Str("ACI".into())])),
            ("gpuCores", vals(&[Val::Num(1.0)])),
            ("$vm.gpus", Resolved::Unknown),
            ("name", vals(&[Val::Str("gpu-cluster".into())])),
        ]);
        let t = |y: &str| cond(y).eval(&e, None);
        assert_eq!(t("{field: computeType, in: [aci, local]}"), Tri::True);
        assert_eq!(t("{field: computeType, notIn: [aks]}"), Tri::True);
        assert_eq!(t("{field: gpuCores, greater: 0}"), Tri::True);
        assert_eq!(t("{field: gpuCores, less: '1'}"), Tri::False);
        assert_eq!(t("{field: missing, exists: false}"), Tri::True);
        assert_eq!(t("{field: missing, notEquals: x}"), Tri::True);
        assert_eq!(t("{field: missing, greater: 0}"), Tri::False);
        assert_eq!(t("{field: $vm.gpus, greater: 0}"), Tri::Unknown);
        assert_eq!(t("{field: name, like: 'GPU-*'}"), Tri::True);
        assert_eq!(t("{field: name, matches: '^gpu-[a-z]+$'}"), Tri::True);
        assert_eq!(t("{field: name, contains: CLUSTER}"), Tri::True);
        assert_eq!(
            t("{all: [{field: gpuCores, greater: 0}, {field: $vm.gpus, greater: 0}]}"),
            Tri::Unknown
        );
        assert_eq!(
            t("{all: [{field: gpuCores, greater: 5}, {field: $vm.gpus, greater: 0}]}"),
            Tri::False
        );
        assert_eq!(
            t("{any: [{field: gpuCores, greater: 0}, {field: $vm.gpus, greater: 0}]}"),
            Tri::True
        );
        assert_eq!(t("{not: {field: $vm.gpus, greater: 0}}"), Tri::Unknown);
        assert_eq!(t("{count: {field: name}, equals: 1}"), Tri::True);
    }

    #[test]
    fn booleans_compare_as_the_sdk_reads_them() {
        for (s, b) in [
            ("yes", true),
            ("t", true),
            ("1", true),
            ("ON", true),
            ("0", false),
            ("off", false),
            ("N", false),
        ] {
            assert!(equals(&Val::Str(s.into()), &Val::Bool(b)), "{s}");
            assert!(!equals(&Val::Str(s.into()), &Val::Bool(!b)), "{s}");
        }
        assert!(!equals(&Val::Str("tRuE".into()), &Val::Bool(true)));
        assert!(!equals(&Val::Str("maybe".into()), &Val::Bool(false)));
        assert!(equals(&Val::Num(0.0), &Val::Bool(false)));
        assert!(equals(&Val::Bool(true), &Val::Num(1.0)));
        assert!(!equals(&Val::Num(2.0), &Val::Bool(true)));
    }

    #[test]
    fn references() {
        let e = env(&[
            ("$vm.series", vals(&[Val::Str("NCv3".into())])),
            (
                "$params.approved",
                vals(&[Val::List(vec![Val::Str("ncv3".into())])]),
            ),
        ]);
        assert_eq!(
            cond("{field: $vm.series, in: $params.approved}").eval(&e, None),
            Tri::True
        );
        assert_eq!(
            cond("{field: $vm.series, notIn: $params.approved}").eval(&e, None),
            Tri::False
        );
    }

    #[test]
    fn parse_errors_name_the_problem() {
        let loaded = parse_text(
            "r.yaml",
            "field: a\nequal: 1\n".into(),
            Format::Yaml,
            &Limits::default(),
        );
        let doc = &loaded.documents[0];
        let Err(e) = parse::condition(doc, doc.root.unwrap()) else {
            panic!()
        };
        assert!(e.message.contains("did you mean `equals`"), "{}", e.message);
        assert_eq!(&loaded.source.text[e.span.range()], "equal");
        for bad in [
            "{field: a, in: x}",
            "{field: a, equals: 1, less: 2}",
            "{all: []}",
            "{field: a, matches: '('}",
            "{count: {field: a}, like: x}",
        ] {
            let loaded = parse_text("r.yaml", bad.into(), Format::Yaml, &Limits::default());
            let doc = &loaded.documents[0];
            assert!(parse::condition(doc, doc.root.unwrap()).is_err(), "{bad}");
        }
    }
}
