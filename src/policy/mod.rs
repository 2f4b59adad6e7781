//! Declarative rules: a rule file's `kinds`, `when` condition and `report` (where, what
//! message, what help), compiled once and evaluated against each document with its
//! [`DocFacts`](crate::facts::DocFacts).
//!
//! `report.at` names the nodes a rule is about (field paths, or `$vm`, `$target`,
//! `$model` for the node a fact comes from); the rule is evaluated once per such node, and
//! a `*` in `at` binds the same `*` in the condition's paths (so `jobs.*.compute` in both
//! means "this step's compute"). In a pipeline, `jobs.*.compute` also reaches each step
//! without a `compute`: it runs on the pipeline's `settings.default_compute` (else its
//! `compute`), so it is reported at its key, with that inherited reference as `{value}`
//! and `@` and a label on it — unless the rule already reports the inherited reference
//! itself. When `at` reaches nothing, `report.fallback` is the subject (the first of its
//! paths that reaches a node); without one, the rule does not apply to the document.

pub mod condition;
pub mod path;

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::facts::{Resolved, Val};
use crate::registry::{FixDoc, ReportFile, ReportSpan};
use condition::{Cond, Env, Tri};
pub use path::check_fact_path;
use path::{FieldPath, Segment};

use crate::diagnostic::{Applicability, Diagnostic, Findings, Fix, RuleId, Severity};
use crate::document::{Document, NodeId, Value};
use crate::facts::DocFacts;
use crate::source::Pointer;
use crate::source::Span;

/// A compiled declarative rule.
#[derive(Debug, Clone)]
pub struct PolicyRule {
    /// Kind ids the rule applies to.
    pub kinds: Vec<String>,
    pub when: Cond,
    pub at: Vec<FieldPath>,
    /// Where to report when `at` reaches nothing: the first of these that reaches a node.
    pub fallback: Vec<FieldPath>,
    /// `report.span`: what of a reached node the finding covers.
    pub span: ReportSpan,
    pub message: Template,
    pub help: Option<Template>,
    pub severity_by_profile: BTreeMap<String, Severity>,
    /// Defaults of `$params.*` (the configuration's `[params]` override them).
    pub params: serde_json::Map<String, serde_json::Value>,
    /// `fix: [{replace}]`: the reported value's new text for each finding, with the fix's
    /// applicability and description.
    pub replacements: Vec<(Applicability, String, Template)>,
}

/// A message with placeholders: `{value}` (the reported node), `{key}` (its key),
/// `{kind}` (the document kind), and any field path or fact (`{computeType}`,
/// `{$vm.series}`), optionally with a default (`{$vm.closest|none}`); and sections shown
/// only when a field or fact has a value: `{?$target.similar}; did you mean
/// `{$target.similar}`?{/}`, or only when it has none: `{!$target.searched}this
/// project{/}` (sections nest, [`MAX_SECTION_DEPTH`] deep at most).
///
/// A compute setting is named as the checked definition's language writes it
/// (`rules/data/idioms.yaml`, [`crate::facts::idiom`]): `{key:min_instances}` is
/// `min_node_count` in Terraform, `{set:min_instances=0}` is `min_node_count = 0`,
/// `{set:min_instances=@}` the setting with the reported value (as the file writes both,
/// when it does); `{?can:FIELD}...{/}` is shown only where the language can set FIELD,
/// `{!can:FIELD}...{/}` only where it cannot, and `{cannot}` says why it cannot.
#[derive(Debug, Clone)]
pub struct Template {
    parts: Vec<Part>,
}

/// How deep a message's sections nest at most (`{!a}{?can:b}...{/}{/}` is two).
const MAX_SECTION_DEPTH: usize = 4;

#[derive(Debug, Clone)]
enum Part {
    Text(String),
    Value,
    Key,
    Kind,
    /// A path, and the text to show when it has no value (`{$vm.closest|none}`).
    Field(FieldPath, Option<String>),
    /// `{cannot}`: why the definition's language cannot set a field it has no key for
    /// (`rules/data/idioms.yaml`'s `cannot`).
    Cannot,
    /// `{key:FIELD}`: a compute setting's name, as the definition's language writes it.
    SettingKey(String),
    /// `{set:FIELD=VALUE}`: the setting with a value (`None`: `@`, the reported value).
    Setting(String, Option<String>),
    /// Parts shown only when the test holds (`{?path}...{/}`, `{?can:FIELD}...{/}`), or,
    /// when `bool` is `false`, only when it does not (`{!path}...{/}`).
    Section(Test, Vec<Part>, bool),
}

/// What a section is shown on.
#[derive(Debug, Clone)]
enum Test {
    /// A path or fact that has a value.
    Valued(FieldPath),
    /// `can:FIELD`: the definition's language can set the compute setting.
    Can(String),
}

impl Template {
    pub fn parse(s: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        // The open `{?path}` or `{!path}` sections, innermost last: each one's test,
        // whether it is shown when the test holds, and the parts before it.
        let mut sections: Vec<(Test, bool, Vec<Part>)> = Vec::new();
        let mut text = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    text.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    text.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => name.push(c),
                            None => return Err(format!("unclosed `{{` in {s:?}")),
                        }
                    }
                    if !text.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                    }
                    let cond = match name.strip_prefix('?') {
                        Some(cond) => Some((cond, true)),
                        None => name.strip_prefix('!').map(|cond| (cond, false)),
                    };
                    if let Some((cond, when_valued)) = cond {
                        if sections.len() >= MAX_SECTION_DEPTH {
                            return Err(format!("sections nest {MAX_SECTION_DEPTH} deep at most in {s:?}"));
                        }
                        if !text.is_empty() {
                            parts.push(Part::Text(std::mem::take(&mut text)));
                        }
                        let test = match cond.trim().strip_prefix("can:") {
                            Some(field) => Test::Can(setting_field(field, s)?),
                            None => {
                                let path = FieldPath::parse(cond.trim())?;
                                check_fact_path(&path, false)?;
                                Test::Valued(path)
                            }
                        };
                        sections.push((test, when_valued, std::mem::take(&mut parts)));
                        continue;
                    }
                    if name == "/" {
                        let Some((test, when_valued, outer)) = sections.pop() else {
                            return Err(format!("a `{{/}}` without its `{{?...}}` in {s:?}"));
                        };
                        if !text.is_empty() {
                            parts.push(Part::Text(std::mem::take(&mut text)));
                        }
                        let inner = std::mem::replace(&mut parts, outer);
                        parts.push(Part::Section(test, inner, when_valued));
                        continue;
                    }
                    if let Some(field) = name.trim().strip_prefix("key:") {
                        parts.push(Part::SettingKey(setting_field(field, s)?));
                        continue;
                    }
                    if let Some(set) = name.trim().strip_prefix("set:") {
                        let Some((field, value)) = set.split_once('=') else {
                            return Err(format!("`{{set:{set}}}` without `=VALUE` in {s:?}"));
                        };
                        let value = value.trim();
                        let value = (value != "@").then(|| value.to_string());
                        parts.push(Part::Setting(setting_field(field, s)?, value));
                        continue;
                    }
                    let (name, default) = match name.split_once('|') {
                        Some((n, d)) => (n.trim().to_string(), Some(d.to_string())),
                        None => (name.trim().to_string(), None),
                    };
                    parts.push(match name.as_str() {
                        "value" => Part::Value,
                        "key" => Part::Key,
                        "kind" => Part::Kind,
                        "cannot" => Part::Cannot,
                        other => {
                            let path = FieldPath::parse(other)?;
                            check_fact_path(&path, false)?;
                            Part::Field(path, default)
                        }
                    });
                }
                '}' => return Err(format!("a lone `}}` in {s:?} (write `}}}}`)")),
                c => text.push(c),
            }
        }
        if !sections.is_empty() {
            return Err(format!("a `{{?...}}` section without its `{{/}}` in {s:?}"));
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Template { parts })
    }

    /// The field paths and facts the template reads.
    fn paths(&self) -> Vec<&FieldPath> {
        fn collect<'p>(parts: &'p [Part], out: &mut Vec<&'p FieldPath>) {
            for p in parts {
                match p {
                    Part::Field(path, _) => out.push(path),
                    Part::Section(test, inner, _) => {
                        if let Test::Valued(path) = test {
                            out.push(path);
                        }
                        collect(inner, out);
                    }
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        collect(&self.parts, &mut out);
        out
    }

    fn render(&self, env: &RuleEnv<'_>) -> String {
        let mut out = String::new();
        let was = env.rendering.replace(true);
        render_parts(&self.parts, env, &mut out, None);
        env.rendering.set(was);
        out
    }
}

/// Renders `parts`; `known` is the section's path and values, when inside one (a field of
/// the section's own path is not resolved a second time).
fn render_parts(parts: &[Part], env: &RuleEnv<'_>, out: &mut String, known: Option<(&FieldPath, &[Val])>) {
    let show = |vs: &[Val]| vs.iter().map(Val::display).collect::<Vec<_>>().join(", ");
    for p in parts {
        match p {
            Part::Text(t) => out.push_str(t),
            Part::Kind => out.push_str(&env.facts.kind.title),
            Part::Cannot => out.push_str(crate::facts::idiom::spelling(env.facts.idiom).cannot()),
            Part::Value => out.push_str(&env.display_node(env.subject.value_node())),
            Part::Key => out.push_str(
                env.subject
                    .segments
                    .as_ref()
                    .and_then(|s| s.last())
                    .map_or("?", String::as_str),
            ),
            Part::Field(path, _) if known.is_some_and(|(k, _)| k == path) => {
                out.push_str(&show(known.map_or(&[][..], |(_, vs)| vs)));
            }
            Part::Field(path, default) => match env.resolve(path, None) {
                Resolved::Values(vs) if !vs.is_empty() => out.push_str(&show(&vs)),
                _ => out.push_str(default.as_deref().unwrap_or("?")),
            },
            Part::SettingKey(field) => out.push_str(&env.setting_key(field)),
            Part::Setting(field, value) => out.push_str(&env.setting(field, value.as_deref())),
            Part::Section(Test::Valued(path), inner, true) => {
                if let Resolved::Values(vs) = env.resolve(path, None) {
                    if !vs.is_empty() {
                        render_parts(inner, env, out, Some((path, &vs)));
                    }
                }
            }
            Part::Section(Test::Valued(path), inner, false) => {
                if !matches!(env.resolve(path, None), Resolved::Values(vs) if !vs.is_empty()) {
                    render_parts(inner, env, out, None);
                }
            }
            Part::Section(Test::Can(field), inner, shown_if) => {
                if crate::facts::idiom::spelling(env.facts.idiom).can(field) == *shown_if {
                    render_parts(inner, env, out, None);
                }
            }
        }
    }
}

/// The compute setting a `{key:...}`, `{set:...}` or `{?can:...}` names: a dotted path of
/// names.
fn setting_field(field: &str, template: &str) -> Result<String, String> {
    let f = field.trim();
    let ok = !f.is_empty()
        && f.split('.')
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    if ok {
        Ok(f.to_string())
    } else {
        Err(format!("`{field}` is not a setting's path in {template:?}"))
    }
}

/// One node a rule is evaluated for.
#[derive(Debug, Clone)]
struct Subject {
    node: NodeId,
    /// The concrete path to it, when known.
    segments: Option<Vec<String>>,
    /// The `at` pattern it came from (binds wildcards).
    pattern: Option<Vec<Segment>>,
    scope: Option<NodeId>,
    /// A pipeline step without `compute` reached by `jobs.*.compute`: the inherited
    /// compute reference (`settings.default_compute` or the pipeline's `compute`), which
    /// `{value}` and `@` stand for.
    inherited: Option<NodeId>,
}

impl Subject {
    /// The node `{value}` and `@` stand for.
    fn value_node(&self) -> NodeId {
        self.inherited.unwrap_or(self.node)
    }
}

struct RuleEnv<'a> {
    facts: &'a DocFacts<'a>,
    rule: &'a PolicyRule,
    subject: &'a Subject,
    /// Rendering a message: values not known statically show as written.
    rendering: std::cell::Cell<bool>,
}

/// The nodes `segments` reach from `start`. A node `unknown` says is not known statically
/// (a compute definition's `schedules = var.schedules`) stands for whatever lies below it:
/// it is kept, so a condition reading a path through it is unknown, never absent.
fn walk(
    doc: &Document,
    start: NodeId,
    segments: &[Segment],
    unknown: &dyn Fn(NodeId) -> bool,
) -> Vec<NodeId> {
    let mut current = vec![start];
    for seg in segments {
        let mut next = Vec::new();
        for id in current {
            if unknown(id) {
                next.push(id);
                continue;
            }
            match (seg, doc.value(id)) {
                (Segment::Key(k), _) => next.extend(doc.child(id, k)),
                (Segment::Wildcard, Value::Map(_)) => {
                    next.extend(doc.kept_entries(id).into_iter().map(|(_, node)| node));
                }
                (Segment::Wildcard, Value::Seq(items)) => next.extend(items.iter().copied()),
                _ => {}
            }
        }
        current = next;
    }
    current
}

/// Like [`walk`], also returning the concrete path to each node.
fn walk_with_paths(doc: &Document, start: NodeId, segments: &[Segment]) -> Vec<(NodeId, Vec<String>)> {
    if !segments.iter().any(|s| matches!(s, Segment::Wildcard)) {
        // One node at most, and most rules' paths are absent from most documents: look it
        // up before making its path.
        let mut node = start;
        let mut path = Vec::with_capacity(segments.len());
        for seg in segments {
            let Segment::Key(k) = seg else {
                return Vec::new();
            };
            let Some(child) = doc.child(node, k) else {
                return Vec::new();
            };
            node = child;
            path.push(k.as_str());
        }
        return vec![(node, path.into_iter().map(str::to_string).collect())];
    }
    let mut current = vec![(start, Vec::new())];
    for seg in segments {
        let mut next = Vec::new();
        for (id, path) in current {
            match (seg, doc.value(id)) {
                (Segment::Key(k), _) => {
                    if let Some(c) = doc.child(id, k) {
                        let mut p = path;
                        p.push(k.clone());
                        next.push((c, p));
                    }
                }
                (Segment::Wildcard, Value::Map(_)) => {
                    next.extend(doc.kept_entries(id).into_iter().map(|(key, node)| {
                        let mut p = path.clone();
                        p.push(key.into_owned());
                        (node, p)
                    }));
                }
                (Segment::Wildcard, Value::Seq(items)) => {
                    for (i, &c) in items.iter().enumerate() {
                        let mut p = path.clone();
                        p.push(i.to_string());
                        next.push((c, p));
                    }
                }
                _ => {}
            }
        }
        current = next;
    }
    current
}

impl RuleEnv<'_> {
    fn doc(&self) -> &Document {
        self.facts.doc
    }

    /// Substitutes the subject's wildcard bindings into a path that shares its prefix.
    fn bind(&self, segments: &[Segment]) -> Vec<Segment> {
        let (Some(pattern), Some(concrete)) = (&self.subject.pattern, &self.subject.segments) else {
            return segments.to_vec();
        };
        let mut out = Vec::with_capacity(segments.len());
        let mut bound = true;
        for (i, seg) in segments.iter().enumerate() {
            if bound && pattern.get(i) == Some(seg) {
                match (seg, concrete.get(i)) {
                    (Segment::Wildcard, Some(c)) => out.push(Segment::Key(c.clone())),
                    _ => out.push(seg.clone()),
                }
            } else {
                bound = false;
                out.push(seg.clone());
            }
        }
        out
    }

    fn display_node(&self, id: NodeId) -> String {
        match self.doc().value(id) {
            Value::Seq(_) | Value::Map(_) => Val::from_node(self.doc(), id).display(),
            v => crate::document::yaml11::python_str(v),
        }
    }

    /// The compute setting `field` of the document as its file writes it — its key's and
    /// value's text — when the document is a definition outside Azure ML YAML that writes
    /// the setting with a key of its own (not a positional or `**` argument).
    fn written_setting(&self, field: &str) -> Option<(&str, &str)> {
        let text = self.facts.text?;
        let at = self.doc().lookup(&Pointer::from_segments(field.split('.')))?;
        let key = self.doc().node(at.key?).span;
        let mut value = self.doc().node(at.value).span;
        if key == value {
            return None;
        }
        let written = crate::facts::idiom::written_key(text.get(key.range())?)?;
        // The value as written beside its key (`= 1`, `: 'Enabled'`, ` Standard_NC6`), its
        // quotes included; not a value written elsewhere (SDK v1's settings are reported
        // at the configuration passed to `ComputeTarget.create`).
        let quoted = |q: u8| {
            let s = value.start as usize;
            s > 0
                && text.as_bytes().get(s - 1) == Some(&q)
                && text.as_bytes().get(value.end as usize) == Some(&q)
        };
        if quoted(b'"') || quoted(b'\'') {
            value = Span::new(value.start - 1, value.end + 1);
        }
        let beside = key.end <= value.start
            && text
                .get(key.end as usize..value.start as usize)
                .is_some_and(|between| {
                    between.len() <= 8 && between.bytes().all(|b| b" \t=:\"'".contains(&b))
                });
        let value = text
            .get(value.range())
            .filter(|v| beside && v.len() <= 80 && !v.contains(['\n', '\r']));
        Some((written, value.unwrap_or_default()))
    }

    /// The reported value as Azure ML YAML writes it (`true`, not Python's `True`).
    fn reported(&self) -> String {
        match self.doc().value(self.subject.value_node()) {
            Value::Bool(b) => b.to_string(),
            _ => self.display_node(self.subject.value_node()),
        }
    }

    /// `{key:FIELD}`.
    fn setting_key(&self, field: &str) -> String {
        let written = self.written_setting(field).map(|(key, _)| key);
        crate::facts::idiom::called(self.facts.idiom, field, written).to_string()
    }

    /// `{set:FIELD=VALUE}` (`value` `None`: the reported value).
    fn setting(&self, field: &str, value: Option<&str>) -> String {
        let spelling = crate::facts::idiom::spelling(self.facts.idiom);
        let reported = || self.reported();
        // A value proposed for a setting a module builds from the argument reported here
        // (`node_public_ip_enabled = !var.private_nodes`): the argument's value that gives
        // it — negated through a negation — or, when that is not known, none.
        let derived = value.and_then(|v| Some((v, self.facts.derived.iter().find(|d| d.path == field)?)));
        if let (Some((v, d)), Some((key, _))) = (derived, self.written_setting(field)) {
            let v = spelling.value(field, v);
            let flipped = match v {
                "true" => Some("false"),
                "false" => Some("true"),
                _ => None,
            };
            return match (d.negated, flipped) {
                (Some(false), _) => spelling.assign(key, v),
                (Some(true), Some(f)) => spelling.assign(key, f),
                _ => format!(
                    "{key}` to what makes the module's `{}` `{v}",
                    spelling.assign(spelling.key(field), &d.expression)
                ),
            };
        }
        match (self.written_setting(field), value) {
            // `--set path=value` writes the setting as Azure ML YAML names it.
            (Some(("--set", v)), None) if !v.is_empty() => format!("--set {field}={v}"),
            (Some(("--set", _)), None) => format!("--set {field}={}", reported()),
            (Some(("--set", _)), Some(v)) => format!("--set {field}={v}"),
            (Some((key, v)), None) if !v.is_empty() => spelling.assign(key, v),
            (Some((key, _)), None) => spelling.assign(key, spelling.value(field, &reported())),
            (Some((key, _)), Some(v)) => spelling.assign(key, spelling.value(field, v)),
            (None, None) => spelling.set(field, &reported()),
            (None, Some(v)) => spelling.set(field, v),
        }
    }
}

impl Env for RuleEnv<'_> {
    fn resolve(&self, path: &FieldPath, base: Option<NodeId>) -> Resolved {
        match path {
            // A value not known statically (a compute definition's `$SIZE`) is unknown to
            // conditions: never a finding. Messages show it as written.
            FieldPath::Current if self.rendering.get() => {
                Resolved::Values(vec![Val::from_node(self.doc(), self.subject.value_node())])
            }
            FieldPath::Current if self.facts.is_unknown(self.subject.value_node()) => Resolved::Unknown,
            FieldPath::Current => {
                Resolved::Values(vec![Val::from_node(self.doc(), self.subject.value_node())])
            }
            FieldPath::Doc(_) if !self.rendering.get() => {
                let nodes = self.nodes(path, base).unwrap_or_default();
                if nodes.iter().any(|&n| self.facts.is_unknown(n)) {
                    return Resolved::Unknown;
                }
                Resolved::Values(nodes.into_iter().map(|n| Val::from_node(self.doc(), n)).collect())
            }
            FieldPath::Fact(name, rest) if name == "params" => {
                let Some(key) = rest.first() else {
                    return Resolved::Unknown;
                };
                let value = self.facts.base.param(key).or_else(|| self.rule.params.get(key));
                Resolved::Values(value.map(Val::from_json).into_iter().collect())
            }
            FieldPath::Fact(name, rest) => {
                self.facts
                    .fact(name, rest, Some(self.subject.node), self.subject.scope)
                    .0
            }
            FieldPath::Doc(_) => Resolved::Values(
                self.nodes(path, base)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|n| Val::from_node(self.doc(), n))
                    .collect(),
            ),
        }
    }

    fn nodes(&self, path: &FieldPath, base: Option<NodeId>) -> Option<Vec<NodeId>> {
        let FieldPath::Doc(segments) = path else {
            return None;
        };
        let root = self.doc().root?;
        let unknown = |n| self.facts.is_unknown(n);
        Some(match base {
            Some(b) => walk(self.doc(), b, segments, &unknown),
            None => walk(self.doc(), root, &self.bind(segments), &unknown),
        })
    }
}

impl PolicyRule {
    fn subjects(&self, facts: &DocFacts<'_>) -> Vec<Subject> {
        let Some(root) = facts.doc.root else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for at in &self.at {
            self.expand(at, facts, root, &mut out);
        }
        for fallback in &self.fallback {
            if !out.is_empty() {
                break;
            }
            self.expand(fallback, facts, root, &mut out);
        }
        out
    }

    fn expand(&self, at: &FieldPath, facts: &DocFacts<'_>, root: NodeId, out: &mut Vec<Subject>) {
        match at {
            FieldPath::Doc(segments) => {
                for (node, concrete) in walk_with_paths(facts.doc, root, segments) {
                    out.push(Subject {
                        node,
                        scope: facts.scope_of(&concrete),
                        segments: Some(concrete),
                        pattern: Some(segments.clone()),
                        inherited: None,
                    });
                }
                if facts.is_pipeline() && is_step_compute_pattern(segments) {
                    Self::inheriting_steps(facts, root, out);
                }
            }
            FieldPath::Fact(name, _) if name == "vm" => {
                for v in facts.vm_nodes() {
                    out.push(Subject {
                        node: v.node,
                        segments: None,
                        pattern: None,
                        scope: Some(v.scope),
                        inherited: None,
                    });
                }
            }
            FieldPath::Fact(name, rest) => {
                if let (_, Some(node)) = facts.fact(name, rest, None, Some(root)) {
                    out.push(Subject {
                        node,
                        segments: None,
                        pattern: None,
                        scope: Some(root),
                        inherited: None,
                    });
                }
            }
            FieldPath::Current => {}
        }
    }

    /// `jobs.*.compute` also reaches the steps of a pipeline that have no `compute`:
    /// they run on the pipeline's `settings.default_compute` (else its `compute`). Each
    /// such step is a subject of its own, reported at its key, with the inherited
    /// reference as `{value}` and `@`.
    fn inheriting_steps(facts: &DocFacts<'_>, root: NodeId, out: &mut Vec<Subject>) {
        let doc = facts.doc;
        let Some(jobs) = doc.get(root, "jobs") else {
            return;
        };
        for (step, path) in walk_with_paths(doc, jobs, &[Segment::Wildcard]) {
            if !matches!(doc.value(step), Value::Map(_)) || doc.get(step, "compute").is_some() {
                continue;
            }
            let Some(source) = facts.target(Some(step)).source else {
                continue;
            };
            let mut segments = vec!["jobs".to_string()];
            segments.extend(path);
            out.push(Subject {
                node: step,
                scope: Some(step),
                segments: Some(segments),
                pattern: Some(step_compute_pattern()[..2].to_vec()),
                inherited: Some(source),
            });
        }
    }

    /// The `fix: [{replace}]` fixes of a finding at `span` (the reported node's value):
    /// each template rendered for this subject, written in the value's own quoting; none
    /// where it renders empty, to more than one word, or to the text already there.
    fn with_replacements(
        &self,
        mut d: Diagnostic,
        env: &RuleEnv<'_>,
        node: NodeId,
        span: Span,
        at: Option<Pointer>,
    ) -> Diagnostic {
        let doc = env.facts.doc;
        let n = doc.node(node);
        if n.span != span {
            return d;
        }
        // The value's place, which the fix says it changes: known, and not also reached
        // through an alias or a merge key.
        let Some(at) = at.filter(|p| doc.lookup_own(p).is_some_and(|f| f.value == node)) else {
            return d;
        };
        for (applicability, what, template) in &self.replacements {
            let text = template.render(env);
            let current = Val::from_node(env.facts.doc, node).display();
            if text.is_empty() || text.contains(char::is_whitespace) || text == current {
                continue;
            }
            let replacement = match n.style {
                crate::document::Style::Plain => text.clone(),
                crate::document::Style::SingleQuoted => format!("'{}'", text.replace('\'', "''")),
                crate::document::Style::DoubleQuoted | crate::document::Style::Json => {
                    match serde_json::to_string(&text) {
                        Ok(quoted) => quoted,
                        Err(_) => continue,
                    }
                }
                _ => continue,
            };
            let title = format!("Write `{text}`: {what}");
            let fix = Fix::set_value(*applicability, title, span, replacement, at.clone());
            match d.fix {
                None => d.fix = Some(fix),
                Some(_) => d.other_fixes.push(fix),
            }
        }
        d
    }

    /// Evaluates the rule on one document and reports each subject it holds for.
    pub fn evaluate(&self, meta: RuleId, facts: &DocFacts<'_>, out: &mut Findings) {
        if !self.kinds.iter().any(|k| k == "*" || *k == facts.kind.id) {
            return;
        }
        // Sets, not lists: a rule may report every entry of a 100,000-entry mapping, and
        // each finding is looked up here (issue 34, defect 16: time linear in the input).
        let mut seen: foldhash::HashSet<Span> = foldhash::HashSet::default();
        // Subjects reported for themselves: a step that inherits one of them is not
        // reported again (a `default_compute: local` is one finding, not one per step).
        let mut fired: foldhash::HashSet<NodeId> = foldhash::HashSet::default();
        let mut subjects = self.subjects(facts);
        subjects.sort_by_key(|s| s.inherited.is_some());
        // Where the subjects reached through a fact (`$vm`) are, for the fixes that
        // replace them: found in one walk.
        let places = if self.replacements.is_empty() {
            HashMap::new()
        } else {
            let spans: HashSet<Span> = subjects
                .iter()
                .filter(|s| s.segments.is_none())
                .map(|s| facts.doc.node(s.node).span)
                .collect();
            facts.doc.pointers_for(&spans)
        };
        for subject in subjects {
            if subject.inherited.is_some_and(|i| fired.contains(&i)) {
                continue;
            }
            let env = RuleEnv {
                facts,
                rule: self,
                subject: &subject,
                rendering: std::cell::Cell::new(false),
            };
            if self.when.eval(&env, None) != Tri::True {
                continue;
            }
            fired.insert(subject.node);
            // A mapping or list is reported at its key: its own text starts a line below.
            let node_span = facts.doc.node(subject.node).span;
            let on_key = self.span == ReportSpan::Key;
            let span = match (&subject.segments, facts.doc.value(subject.node)) {
                (Some(segs), Value::Map(_) | Value::Seq(_)) if !segs.is_empty() => facts.doc.span_of(
                    &Pointer::from_segments(segs.iter().cloned()),
                    crate::document::Target::Key,
                ),
                (Some(segs), _) if on_key && !segs.is_empty() => facts.doc.span_of(
                    &Pointer::from_segments(segs.iter().cloned()),
                    crate::document::Target::Key,
                ),
                _ => node_span,
            };
            if !seen.insert(span) {
                continue;
            }
            let severity = self
                .severity_by_profile
                .get(facts.base.profile())
                .copied()
                .unwrap_or(meta.severity);
            let mut d = Diagnostic::new(meta, span, self.message.render(&env)).with_severity(severity);
            let at = match &subject.segments {
                Some(segs) => Some(Pointer::from_segments(segs.iter().cloned())),
                None => places.get(&facts.doc.node(subject.node).span).cloned(),
            };
            d = self.with_replacements(d, &env, subject.node, span, at);
            if let Some(help) = &self.help {
                d = d.with_help(help.render(&env));
            }
            if let Some(inherited) = subject.inherited {
                let step = subject
                    .segments
                    .as_ref()
                    .and_then(|s| s.last())
                    .map_or("?", String::as_str);
                d = d.with_label(
                    facts.doc.node(inherited).span,
                    format!("step `{step}` has no `compute` of its own: it runs on this one"),
                );
            }
            if let Some(segs) = &subject.segments {
                d = d.with_pointer(Pointer::from_segments(segs.iter().cloned()));
            }
            out.push(d);
        }
    }
}

/// The span of the first string scalar under `id` that contains `text`.
fn find_text(doc: &Document, id: NodeId, text: &str) -> Option<Span> {
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        match doc.value(n) {
            Value::Str(s) if s.contains(text) => return Some(doc.node(n).span),
            Value::Map(entries) => stack.extend(entries.iter().rev().map(|e| e.value)),
            Value::Seq(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}

/// Whether `segments` is `jobs.*.compute` ([`step_compute_pattern`]), compared in place.
fn is_step_compute_pattern(segments: &[Segment]) -> bool {
    matches!(segments, [Segment::Key(jobs), Segment::Wildcard, Segment::Key(compute)] if jobs == "jobs" && compute == "compute")
}

/// `jobs.*.compute`: the `report.at` path that also reaches steps without `compute`.
fn step_compute_pattern() -> [Segment; 3] {
    [
        Segment::Key("jobs".to_string()),
        Segment::Wildcard,
        Segment::Key("compute".to_string()),
    ]
}

/// A rule's `kinds`: at least one, each a document kind (or `*`).
fn check_kinds(doc: &Document, root: NodeId, kinds: &[String]) -> Result<(), (Span, String)> {
    if kinds.is_empty() {
        return Err((
            doc.span,
            "a declarative rule needs `kinds`: the document kinds it applies to".to_string(),
        ));
    }
    let table = crate::kinds::table();
    for k in kinds {
        if k != "*" && table.get(k).is_none() {
            let span = doc
                .get(root, "kinds")
                .map(|ks| {
                    doc.items(ks)
                        .iter()
                        .copied()
                        .find(|&i| doc.key_string(i) == k.as_str())
                        .map_or(doc.node(ks).span, |i| doc.node(i).span)
                })
                .unwrap_or(doc.span);
            let hint = crate::suggest::closest(k, table.kinds.iter().map(|kd| &kd.id))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err((span, format!("`{k}` is not a document kind{hint}")));
        }
    }
    Ok(())
}

/// Compiles the policy parts of a rule file. `doc` is the rule file's tree (for spans).
pub fn compile(
    doc: &Document,
    kinds: &[String],
    report: &ReportFile,
    severity_by_profile: &BTreeMap<String, Severity>,
    params: &serde_json::Map<String, serde_json::Value>,
    fixes: &[FixDoc],
) -> Result<PolicyRule, (Span, String)> {
    let root = doc.root.ok_or((doc.span, "empty rule file".to_string()))?;
    let at_span = |key: &str| {
        doc.get(root, "report")
            .and_then(|r| doc.get(r, key))
            .map_or(doc.span, |n| doc.node(n).span)
    };
    let when_node = doc
        .get(root, "when")
        .ok_or((doc.span, "a declarative rule needs `when`".to_string()))?;
    let when = condition::parse::condition(doc, when_node).map_err(|e| (e.span, e.message))?;
    check_kinds(doc, root, kinds)?;
    let parse_path = |s: &str, key: &str| {
        FieldPath::parse(s)
            .and_then(|p| check_fact_path(&p, true).map(|()| p))
            .map_err(|e| (at_span(key), e))
    };
    let at = report
        .at
        .items()
        .into_iter()
        .map(|s| parse_path(s, "at"))
        .collect::<Result<Vec<_>, _>>()?;
    let fallback = report
        .fallback
        .as_ref()
        .map(|f| f.items())
        .unwrap_or_default()
        .into_iter()
        .map(|s| parse_path(s, "fallback"))
        .collect::<Result<Vec<_>, _>>()?;
    let message = Template::parse(&report.message).map_err(|e| (at_span("message"), e))?;
    let help = report
        .help
        .as_deref()
        .map(Template::parse)
        .transpose()
        .map_err(|e| (at_span("help"), e))?;
    // Facts and their fields were checked as the condition and templates were parsed
    // (`check_fact_path`). `$params.<name>` must also be declared under `params:` (the
    // configuration can only set declared parameters).
    let undeclared = |p: &FieldPath| {
        match p {
        FieldPath::Fact(name, rest) if name == "params" => {
            rest.first().filter(|n| !params.contains_key(*n)).map(|n| {
                format!(
                    "`{p}`: the rule reads a parameter it does not declare; add `{n}` with its default under `params:`"
                )
            })
        }
        _ => None,
    }
    };
    let mut paths = Vec::new();
    when.paths(&mut paths);
    for p in &paths {
        if let Some(e) = undeclared(p) {
            let span = find_text(doc, when_node, &p.to_string()).unwrap_or(doc.node(when_node).span);
            return Err((span, e));
        }
    }
    for (template, key) in [(Some(&message), "message"), (help.as_ref(), "help")] {
        for p in template.map(Template::paths).unwrap_or_default() {
            if let Some(e) = undeclared(p) {
                return Err((at_span(key), e));
            }
        }
    }
    let fix_span = doc.get(root, "fix").map_or(doc.span, |n| doc.node(n).span);
    let mut replacements = Vec::new();
    for f in fixes {
        if let Some(text) = &f.replace {
            let template = Template::parse(text).map_err(|e| (fix_span, e))?;
            for p in template.paths() {
                if let Some(e) = undeclared(p) {
                    return Err((fix_span, e));
                }
            }
            replacements.push((f.applicability, f.what.clone(), template));
        }
    }
    Ok(PolicyRule {
        kinds: kinds.to_vec(),
        when,
        at,
        fallback,
        span: report.span,
        message,
        help,
        severity_by_profile: severity_by_profile.clone(),
        params: params.clone(),
        replacements,
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_checked_against_the_table() {
        let check =
            |p: &str, bare: bool| check_fact_path(&crate::policy::path::FieldPath::parse(p).unwrap(), bare);
        assert!(check("$file.path", false).is_ok());
        let e = check("$file.pth", false).unwrap_err();
        assert!(e.contains("did you mean `$file.path`"), "{e}");
        assert!(check("$target.vm.gpus", false).is_ok());
        assert!(check("$target.vm", true).is_ok());
        assert!(
            check("$target.vm", false)
                .unwrap_err()
                .contains("name a field of `$target.vm`")
        );
        assert!(
            check("$target.vm.gpu", false)
                .unwrap_err()
                .contains("did you mean `$target.vm.gpus`")
        );
        assert!(check("$params.x", false).is_ok() && check("$params", false).is_err());
        assert!(check("$today.x", false).unwrap_err().contains("has no fields"));
        assert!(
            check("$fiel.path", false)
                .unwrap_err()
                .contains("did you mean `$file`")
        );
    }

    fn yaml(text: &str) -> Document {
        let mut diags = Findings::new(usize::MAX);
        let mut docs = crate::document::yaml::parse(text, 0, &crate::limits::Limits::default(), &mut diags);
        docs.remove(0)
    }

    #[test]
    fn a_wildcard_reaches_each_key_once_at_the_entry_the_cli_keeps() {
        // Merged entries come first and written ones override them; of a repeated key the
        // last entry wins. 40 keys: a mapping large enough for the document's key index.
        let many: String = (0..20).map(|i| format!("  k{i}: {i}\n")).collect();
        let more: String = (0..40).map(|i| format!("  k{i}: {i}\n")).collect();
        for (text, expected) in [
            (
                format!("m:\n{more}  k3: 33\n"),
                (0..40)
                    .filter(|&i| i != 3)
                    .map(|i| (format!("k{i}"), i))
                    .chain([("k3".to_string(), 33)])
                    .collect::<Vec<_>>(),
            ),
            (
                "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n  z: 4\n  z: 5\n".to_string(),
                vec![("x".to_string(), 1), ("y".to_string(), 3), ("z".to_string(), 5)],
            ),
            (
                format!("m:\n{many}  k3: 33\n"),
                (0..20)
                    .filter(|&i| i != 3)
                    .map(|i| (format!("k{i}"), i))
                    .chain([("k3".to_string(), 33)])
                    .collect(),
            ),
        ] {
            let doc = yaml(&text);
            let root = doc.root.unwrap();
            let pattern = [Segment::Key("m".into()), Segment::Wildcard];
            let got: Vec<(String, serde_json::Value)> = walk_with_paths(&doc, root, &pattern)
                .into_iter()
                .map(|(node, path)| (path.join("."), doc.node_to_json(node)))
                .collect();
            let want: Vec<(String, serde_json::Value)> = expected
                .iter()
                .map(|(k, v)| (format!("m.{k}"), (*v).into()))
                .collect();
            assert_eq!(got, want, "{text}");
            let nodes: Vec<serde_json::Value> = walk(&doc, root, &pattern, &|_| false)
                .into_iter()
                .map(|n| doc.node_to_json(n))
                .collect();
            assert_eq!(nodes, want.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_path_without_wildcards_is_found_or_absent() {
        let doc = yaml("a:\n  b: [x, {c: 7}]\n");
        let root = doc.root.unwrap();
        let path = |p: &str| -> Vec<Segment> { p.split('.').map(|k| Segment::Key(k.into())).collect() };
        let found = walk_with_paths(&doc, root, &path("a.b.1.c"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, ["a", "b", "1", "c"]);
        assert_eq!(doc.node_to_json(found[0].0), serde_json::json!(7));
        assert!(walk_with_paths(&doc, root, &path("a.b.2.c")).is_empty());
        assert!(walk_with_paths(&doc, root, &path("a.b.0.c")).is_empty());
        assert!(walk_with_paths(&doc, root, &path("a.z")).is_empty());
        assert!(is_step_compute_pattern(&step_compute_pattern()));
        assert!(!is_step_compute_pattern(&path("jobs.x.compute")));
    }

    #[test]
    fn templates() {
        assert!(Template::parse("{value} GPU on {computeType}").is_ok());
        assert!(Template::parse("{{literal}}").is_ok());
        assert!(Template::parse("{unclosed").is_err());
        assert!(Template::parse("lone }").is_err());
        assert!(Template::parse("{a..b}").is_err());
        assert!(Template::parse("{$vm.closest|no close match}").is_ok());
        assert!(Template::parse("a{?$target.similar}; did you mean `{$target.similar}`?{/}.").is_ok());
        assert!(Template::parse("{?$target.similar}open").is_err());
        assert!(Template::parse("close{/}").is_err());
        // Sections nest, a few deep.
        assert!(Template::parse("{?a}{?b}{/}{/}").is_ok());
        assert!(Template::parse("{?a}{?b}{/}").is_err());
        assert!(Template::parse("{?a}{?b}{?c}{?d}x{/}{/}{/}{/}").is_ok());
        assert!(Template::parse("{?a}{?b}{?c}{?d}{?e}x{/}{/}{/}{/}{/}").is_err());
        assert!(Template::parse("{?$target.nosuch}x{/}").is_err());
        // Compute settings as the definition's language writes them.
        assert!(
            Template::parse("`{key:network_settings.subnet}` `{set:min_instances=@}` `{set:x=0}`").is_ok()
        );
        assert!(Template::parse("{?can:idle_time_before_shutdown_minutes}a{/}{!can:x}b{/}").is_ok());
        assert!(
            Template::parse("{set:min_instances}").is_err(),
            "a value is required"
        );
        assert!(Template::parse("{key:}").is_err());
        assert!(Template::parse("{key:a..b}").is_err());
        assert!(Template::parse("{?can:a b}x{/}").is_err());
        assert!(
            Template::parse(
                "in {!$target.searched}this project{/}{?$target.searched}`{$target.searched}`{/}"
            )
            .is_ok()
        );
        assert!(Template::parse("{!$target.searched}open").is_err());
        assert!(Template::parse("{!a}{?can:b}x{/}{/}").is_ok());
        assert!(Template::parse("{cannot}").is_ok());
        assert!(Template::parse("{!$target.nosuch}x{/}").is_err());
    }
}
