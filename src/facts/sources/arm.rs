//! ARM JSON templates: every resource of type `Microsoft.MachineLearningServices/
//! workspaces/computes` (at the top level, as a child `computes` in a workspace's
//! `resources`, and inside nested deployments' `properties.template`) is a definition.
//!
//! Values are template expressions evaluated statically: `[parameters('x')]` (the
//! parameter's `defaultValue`, or the value a parameters file beside the template gives —
//! `<template>.parameters.json`, `<template>.parameters.<env>.json`,
//! `<template>.<env>.parameters.json` —, or the value a nested deployment with
//! `expressionEvaluationOptions.scope: inner` passes, evaluated in the parent's scope),
//! `[variables('x')]`, `concat`, `format`, `toLower` and the other string functions of
//! [`iac::arm_function`]; anything else (`uniqueString`, `reference`, `resourceGroup()`...)
//! is unknown, with why. The compute's name is the last segment of the resource name
//! (`[format('{0}/{1}', parameters('ws'), parameters('name'))]`). A compute's `copy` loop
//! over a known count is one definition per `copyIndex()` (at most [`iac::MAX_ITEMS`]),
//! else noted, not expanded; `condition` is noted. An AKS compute's `resourceId` naming a
//! cluster of the template gives its agent pool's size and count
//! ([`iac::attached_cluster`]). A definition's line is its `type` member's,
//! wherever it is among the members; the members before it are written before that line
//! (`ComputeDef::written_before`). A template with `//` and `/* */` comments (which Azure
//! Resource Manager accepts) is read with them blanked; suppressions are written there.
//!
//! A `Microsoft.Resources/deploymentScripts` resource (`kind` `AzureCLI` or
//! `AzurePowerShell`) runs its literal `scriptContent` in Azure: its `az ml compute create`
//! commands are definitions as a script file's are (`az_cli`), at their spans inside the
//! JSON string (escapes mapped back, as a notebook's cells are), with the resource's
//! `environmentVariables` evaluated as the template's values.

use std::collections::HashMap;
use std::sync::Arc;

use super::common::{Definitions, Input, Layout, Reader};
/// The text with its `//` and `/* */` comments (outside strings) blanked — each byte a
/// space but line breaks — and where the comments and the code are; `None` when it has
/// none. One pass over the bytes.
fn without_comments(text: &str) -> Option<(String, Layout)> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut layout = Layout::default();
    let mut found = false;
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        let end = match (b[i], next) {
            (b'\n', _) => {
                layout.newline();
                i + 1
            }
            (b'/', Some(c @ (b'/' | b'*'))) => {
                let end = if c == b'/' {
                    layout.line_comment(b, i)
                } else {
                    layout.block_comment(b, i)
                };
                found = true;
                for c in out[i..end].iter_mut().filter(|c| **c != b'\n') {
                    *c = b' ';
                }
                end
            }
            (b'"', _) => {
                layout.code(i);
                string_end(b, i)
            }
            (c, _) => {
                if !c.is_ascii_whitespace() {
                    layout.code(i);
                }
                i + 1
            }
        };
        i = end;
    }
    if !found {
        return None;
    }
    Some((String::from_utf8(out).ok()?, layout))
}

/// After the JSON string starting at `i` (its closing quote; a line break or the end of the
/// text ends an unterminated one).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            b'\n' => return j,
            _ => j += 1,
        }
    }
    b.len()
}

use super::az_cli::{Ctx, Eval, Outer, ScriptVal, Vars, definitions, wanted};
#[cfg(test)]
use super::iac::Part;
use super::iac::{self, BodyField, BodyNode, Ev, Leaf, V};
use super::ipynb::{Code, append_string};
use super::shell::{Dialect, LexOptions, Map, VarScope, parse};
use crate::document::{Document, Entry, NodeId, Value};
use crate::facts::computes::{ComputeDef, Setting, SourceKind};
use crate::source::{SourceFile, Span};

pub const READER: Reader = Reader {
    name: "arm",
    wants: |name| name.ends_with(".json"),
    // `ml compute`: a deployment script running `az ml compute create` in a template that
    // names nothing else of Azure ML.
    needles: &[
        "MachineLearningServices",
        "machinelearningservices",
        "MACHINELEARNINGSERVICES",
        "ml compute",
    ],
    defines: &[
        "workspaces/computes",
        "Workspaces/computes",
        "ml compute create",
        "ml compute attach",
        "ml computetarget create",
    ],
    read,
};

const COMPUTES: &str = "Microsoft.MachineLearningServices/workspaces/computes";
const WORKSPACES: &str = "Microsoft.MachineLearningServices/workspaces";
const DEPLOYMENT_SCRIPTS: &str = "Microsoft.Resources/deploymentScripts";
const MANAGED_CLUSTERS: &str = "Microsoft.ContainerService/managedClusters";
/// How deep evaluation goes through nested calls and parameters that name others.
const MAX_DEPTH: usize = 32;
/// At most this many nested deployments are followed in one file.
const MAX_SCOPES: usize = 256;

/// A copy loop's name and the index being expanded ([`Arm::set_copy`]).
type CopyIndex = Option<(String, i64)>;

/// Resources still to read: a `resources` node, the scope its expressions are evaluated
/// in, whether the resource around it is a workspace, the notes said of them, and the
/// false condition nearest around them ([`ComputeDef::false_condition`]).
type Pending = (NodeId, usize, bool, Vec<String>, Option<(Span, &'static str)>);

fn read(input: &Input<'_>, out: &mut Definitions) {
    read_with(input, out, None);
}

/// The definitions of the template `input`, its parameters set by `given` (what a
/// deployment passes: its parameters files and values), else by the parameters files
/// beside it ([`parameter_files`]).
fn read_with(input: &Input<'_>, out: &mut Definitions, given: Option<Given>) {
    // Azure Resource Manager accepts `//` and `/* */` comments in a template, which JSON
    // (and so the loader) does not: a template that holds some is parsed here with each
    // comment blanked (its bytes spaces, its line breaks kept: every span is the file's),
    // and its comments are where suppressions are written.
    let commented;
    let documents = match input.documents.first() {
        Some(d) if !d.partial => input.documents,
        _ => {
            let Some((text, layout)) = without_comments(&input.source.text) else {
                return;
            };
            let base = if text.starts_with('\u{feff}') { 3 } else { 0 };
            let mut findings = crate::diagnostic::Findings::new(1);
            commented = crate::document::json::parse(&text, base, &Default::default(), &mut findings);
            out.comments
                .extend(iac::comments(input.source, &layout.comments, &layout.code));
            &commented[..]
        }
    };
    let Some(doc) = documents.first() else {
        return;
    };
    if doc.partial || doc.alias_overflow {
        return;
    }
    let Some(root) = doc.root else {
        return;
    };
    if !is_template(doc, root) {
        return;
    }
    let text = &input.source.text;
    let mut r = Arm {
        doc,
        text,
        scopes: Vec::new(),
        strict: Default::default(),
        clusters: clusters(doc, root),
        copy: Default::default(),
    };
    let given = given.unwrap_or_else(|| parameter_files(input));
    r.scopes.push(Scope::new(doc, root, given.clone(), given));
    let mut stack: Vec<Pending> = Vec::new();
    if let Some(res) = get_ci(doc, root, "resources") {
        stack.push((res.value, 0, false, Vec::new(), None));
    }
    let mut found = Vec::new();
    while let Some((resources, scope, in_workspace, notes, outer_false)) = stack.pop() {
        for item in resource_items(doc, resources) {
            if !matches!(doc.value(item), Value::Map(_)) {
                continue;
            }
            let rtype = get_ci(doc, item, "type")
                .and_then(|e| str_of(doc, e.value))
                .unwrap_or_default();
            let is_existing = get_ci(doc, item, "existing")
                .is_some_and(|e| matches!(doc.value(e.value), Value::Bool(true)));
            let mut here = r.resource_notes(item, &notes);
            // A compute never deployed as written is still read: what the template would
            // deploy is checked, and the note says so; its findings are labelled at the
            // false condition nearest to it (its own, else an enclosing deployment's).
            let own_false = r.false_condition(item, scope);
            here.extend(own_false.map(|(_, note)| note.to_string()));
            let false_condition = own_false.or(outer_false);
            if rtype.eq_ignore_ascii_case(COMPUTES)
                || (in_workspace && rtype.eq_ignore_ascii_case("computes"))
            {
                if !is_existing {
                    // One definition per index of a `copy` loop whose count is known
                    // (audit 32, case 05), each evaluated with its `copyIndex()`.
                    for (index, note) in r.copies(item, scope) {
                        let expanded = index.is_some();
                        r.set_copy(index);
                        let mut notes = here.clone();
                        // The condition as this index makes it.
                        let false_condition = if expanded {
                            let own = r.false_condition(item, scope);
                            notes.retain(|n| own_false.is_none_or(|(_, o)| n != o));
                            notes.extend(own.map(|(_, note)| note.to_string()));
                            own.or(outer_false)
                        } else {
                            false_condition
                        };
                        notes.extend(note);
                        let mut def = r.definition(item, scope, notes, &input.source.path);
                        def.false_condition = false_condition;
                        found.push(def);
                    }
                    r.set_copy(None);
                }
            } else if rtype.eq_ignore_ascii_case(DEPLOYMENT_SCRIPTS) {
                found.extend(
                    r.deployment_script(item, scope, &here, input, &mut out.unread)
                        .into_iter()
                        .map(|mut def| {
                            def.false_condition = def.false_condition.or(false_condition);
                            def
                        }),
                );
            } else if rtype.eq_ignore_ascii_case("Microsoft.Resources/deployments") {
                let Some((template, child, n)) = r.nested_deployment(item, scope, &here) else {
                    continue;
                };
                if let Some(res) = get_ci(doc, template, "resources") {
                    stack.push((res.value, child, false, n, false_condition));
                }
            }
            // Child resources: a workspace's `computes`, and deeper children of anything.
            if let Some(children) = get_ci(doc, item, "resources") {
                let workspace = rtype.eq_ignore_ascii_case(WORKSPACES);
                stack.push((children.value, scope, workspace, here, false_condition));
            }
        }
    }
    found.sort_by_key(|d| d.span.start);
    out.computes.extend(found);
}

/// The AKS clusters (`Microsoft.ContainerService/managedClusters`) a template defines at
/// its top level or as children there (not in nested deployments), at most
/// [`iac::MAX_ITEMS`] of the first resources looked at.
fn clusters(doc: &Document, root: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack: Vec<NodeId> = get_ci(doc, root, "resources")
        .map(|e| e.value)
        .into_iter()
        .collect();
    let mut seen = 0usize;
    while let Some(resources) = stack.pop() {
        for item in resource_items(doc, resources) {
            seen += 1;
            if seen > 16 * iac::MAX_ITEMS {
                return out;
            }
            let rtype = get_ci(doc, item, "type").and_then(|e| str_of(doc, e.value));
            if rtype.is_some_and(|t| t.eq_ignore_ascii_case(MANAGED_CLUSTERS)) {
                out.push(item);
            }
            stack.extend(get_ci(doc, item, "resources").map(|e| e.value));
        }
    }
    out
}

/// The arguments of a template function call, `a, f(b, c), 'd,e'` (between its
/// parentheses), split at the commas outside strings and brackets.
fn split_arguments(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0usize, false, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth = depth.saturating_sub(1),
            ',' if !quoted && depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// A template: an object with `resources` and an ARM `$schema` or a `contentVersion`.
fn is_template(doc: &Document, root: NodeId) -> bool {
    if !matches!(doc.value(root), Value::Map(_)) || get_ci(doc, root, "resources").is_none() {
        return false;
    }
    let schema = get_ci(doc, root, "$schema").and_then(|e| str_of(doc, e.value));
    schema.is_some_and(|s| s.to_ascii_lowercase().contains("deploymenttemplate"))
        || get_ci(doc, root, "contentVersion").is_some()
}

/// The resources of a `resources` value: an array, or (language version 2.0) an object of
/// symbolic names.
fn resource_items(doc: &Document, resources: NodeId) -> Vec<NodeId> {
    match doc.value(resources) {
        Value::Seq(items) => items.clone(),
        Value::Map(entries) => entries.iter().map(|e| e.value).collect(),
        _ => Vec::new(),
    }
}

/// The entry of `key` in the mapping `map`, compared as Azure Resource Manager compares
/// property names (any case); the last one written.
fn get_ci(doc: &Document, map: NodeId, key: &str) -> Option<Entry> {
    match doc.value(map) {
        Value::Map(entries) => entries
            .iter()
            .rev()
            .find(|e| doc.key_string(e.key).eq_ignore_ascii_case(key))
            .copied(),
        _ => None,
    }
}

fn str_of(doc: &Document, id: NodeId) -> Option<String> {
    match doc.value(id) {
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

use super::iac::Given;

struct Scope {
    params: Option<NodeId>,
    vars: Option<NodeId>,
    given: Given,
    /// What `given` is when no parameter of the template the run reads takes its default
    /// ([`Arm::strict`]).
    given_strict: Given,
    memo: std::cell::RefCell<HashMap<(bool, String), Ev>>,
    memo_strict: std::cell::RefCell<HashMap<(bool, String), Ev>>,
    busy: std::cell::RefCell<Vec<(bool, String)>>,
}

impl Scope {
    fn new(doc: &Document, template: NodeId, given: Given, given_strict: Given) -> Scope {
        Scope {
            params: get_ci(doc, template, "parameters").map(|e| e.value),
            vars: get_ci(doc, template, "variables").map(|e| e.value),
            given,
            given_strict,
            memo: Default::default(),
            memo_strict: Default::default(),
            busy: Default::default(),
        }
    }
}

struct Arm<'a> {
    doc: &'a Document,
    text: &'a str,
    scopes: Vec<Scope>,
    /// Evaluating as if the deployment set every parameter of the template the run reads
    /// (scope 0) that a parameters file does not: their defaults are not known. What is
    /// known then holds whatever the deployment sets (a condition that is `false` for
    /// certain).
    strict: std::cell::Cell<bool>,
    /// The AKS clusters the template defines ([`clusters`]).
    clusters: Vec<NodeId>,
    /// The copy loop being expanded and its index ([`Arm::set_copy`]).
    copy: std::cell::RefCell<CopyIndex>,
}

impl Arm<'_> {
    /// `copyIndex()`, `copyIndex(offset)`, `copyIndex('loop')`, `copyIndex('loop', offset)`:
    /// the index of the loop being expanded ([`Arm::set_copy`]), else not known.
    fn copy_index(&self, args: &[Ev]) -> Ev {
        let not_known = || Ev::unknown("`copyIndex()` is the copy loop's index");
        let (loop_name, offset) = match args {
            [] => (None, Some(0)),
            [a] => match &a.v {
                V::Int(o) => (None, Some(*o)),
                _ => (a.known_str(), Some(0)),
            },
            [a, o] => (a.known_str(), iac::int_of(o)),
            _ => return not_known(),
        };
        match (&*self.copy.borrow(), offset) {
            (Some((name, i)), Some(o)) if loop_name.as_ref().is_none_or(|l| l.eq_ignore_ascii_case(name)) => {
                Ev::int(i.saturating_add(o))
            }
            (Some(_), _) if loop_name.is_some() => Ev::unknown(format!(
                "`copyIndex('{}')` is the index of a copy loop amlint does not expand",
                loop_name.unwrap_or_default()
            )),
            _ => not_known(),
        }
    }

    /// The AKS cluster of this template an attached compute's `resourceId` names (audit 32,
    /// case 07): `[resourceId('Microsoft.ContainerService/managedClusters', name)]`
    /// evaluated in `scope`, the cluster whose name is that name (in any case); how it is
    /// said and its body, or why it is not known.
    fn cluster(&self, written: &str, scope: usize) -> Result<(String, BodyNode), String> {
        let e = written.trim();
        let call = (e
            .strip_prefix('[')
            .and_then(|e| e.strip_suffix(']'))
            .map(str::trim))
        .filter(|e| e.len() > 11 && e[..11].eq_ignore_ascii_case("resourceId(") && e.ends_with(')'));
        let Some(call) = call else {
            return Err(format!(
                "`resourceId` is `{}`, not `resourceId()` of a cluster this template defines",
                iac::one_line(written)
            ));
        };
        let args: Vec<Ev> = split_arguments(&call[11..call.len() - 1])
            .into_iter()
            .take(8)
            .map(|a| eval_expr(self, scope, 1, a))
            .collect();
        let typed = args
            .iter()
            .position(|a| a.known_str().is_some_and(|s| s.contains('/')));
        let Some(t) = typed else {
            return Err("the resource type `resourceId()` names is not known".into());
        };
        let rtype = args[t].known_str().unwrap_or_default();
        if !rtype.eq_ignore_ascii_case(MANAGED_CLUSTERS) {
            return Err(format!("`resourceId()` names a `{rtype}`, not an AKS cluster"));
        }
        if t > 0 {
            return Err("`resourceId()` names a cluster of a resource group given explicitly, not one this template defines".into());
        }
        let name = match &args[t + 1..] {
            [name] => name,
            _ => return Err("`resourceId()` does not name one cluster".into()),
        };
        let Some(name) = name.known_str() else {
            return Err(format!(
                "the name of the cluster `resourceId()` names is not known: {}",
                name.why().unwrap_or_default()
            ));
        };
        let doc = self.doc;
        let found = self.clusters.iter().find(|&&item| {
            get_ci(doc, item, "name")
                .and_then(|e| self.eval_node(0, e.value, 0).known_str())
                .is_some_and(|n| n.eq_ignore_ascii_case(&name))
        });
        match found {
            Some(&item) => Ok((
                format!("the AKS cluster `{name}`"),
                self.tree(item, 0, 0, &mut Vec::new()),
            )),
            None => Err(format!(
                "the AKS cluster `{name}` is not one this template defines (deployed elsewhere)"
            )),
        }
    }

    /// The definitions of a `Microsoft.Resources/deploymentScripts` resource's inline
    /// script (`scriptContent`; `kind` `AzureCLI` is bash, `AzurePowerShell` PowerShell),
    /// read as a script file is, each at its exact span in the JSON string, with the
    /// `environmentVariables` the resource gives the script evaluated in `scope`. A script
    /// beyond the reader's limits says why in `unread`.
    fn deployment_script(
        &self,
        item: NodeId,
        scope: usize,
        notes: &[String],
        input: &Input<'_>,
        unread: &mut Option<String>,
    ) -> Vec<ComputeDef> {
        let doc = self.doc;
        let kind = get_ci(doc, item, "kind")
            .and_then(|e| str_of(doc, e.value))
            .unwrap_or_default();
        let dialect = if kind.eq_ignore_ascii_case("AzureCLI") {
            Dialect::Bash
        } else if kind.eq_ignore_ascii_case("AzurePowerShell") {
            Dialect::PowerShell
        } else {
            return Vec::new();
        };
        let Some(props) = get_ci(doc, item, "properties") else {
            return Vec::new();
        };
        let Some(content) = get_ci(doc, props.value, "scriptContent") else {
            return Vec::new();
        };
        // Only a literal script that may run `az ml compute…` is read (an expression,
        // `[format(...)]`, is not).
        match doc.value(content.value) {
            Value::Str(s)
                if !is_expression(s) && memchr::memmem::find(s.as_bytes(), b"ml compute").is_some() => {}
            _ => return Vec::new(),
        }
        let mut code = Code::empty();
        append_string(doc, content.value, self.text, &mut code);
        if code.too_large() {
            *unread = Some(
                "a deployment script's text maps to more pieces (escapes and strings) than the ARM reader reads"
                    .to_string(),
            );
            return Vec::new();
        }
        let env = ScriptEnv {
            vars: self.environment(props.value, scope),
            fold_case: dialect == Dialect::PowerShell,
        };
        let options = LexOptions {
            keep: Some(wanted),
            ..LexOptions::new(dialect)
        };
        let script = parse(&code.text, Map::Code(&code, 0), options);
        let vars = Vars::scan(&script, dialect);
        let cx = Ctx {
            input,
            eval: Eval {
                vars: &vars,
                outer: &env,
            },
            note: Some(
                "run by a deployment script (`Microsoft.Resources/deploymentScripts`) of the template".into(),
            ),
        };
        let mut defs = definitions(&script, &cx);
        for d in &mut defs {
            d.notes.extend(notes.iter().cloned());
        }
        defs
    }

    /// The `environmentVariables` of a deployment script's `properties`: each name with
    /// its value (`value` evaluated; a `secureValue` is not known).
    fn environment(&self, props: NodeId, scope: usize) -> Vec<(String, ScriptVal)> {
        let doc = self.doc;
        let Some(list) = get_ci(doc, props, "environmentVariables") else {
            return Vec::new();
        };
        let Value::Seq(items) = doc.value(list.value) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &item in items.iter().take(iac::MAX_ITEMS) {
            let Some(name) =
                get_ci(doc, item, "name").and_then(|e| self.eval_node(scope, e.value, 0).known_str())
            else {
                continue;
            };
            let value = match get_ci(doc, item, "value") {
                Some(v) => {
                    let ev = self.eval_node(scope, v.value, 0);
                    let text = iac::join(ev.pieces());
                    match text.known_str() {
                        Some(t) => ScriptVal::known(t, ev.origin),
                        None => ScriptVal::Dynamic(format!(
                            "`{name}` is given the deployment script as a value not known statically: {}",
                            text.why().unwrap_or_default()
                        )),
                    }
                }
                None => ScriptVal::Dynamic(format!(
                    "`{name}` is given the deployment script as a secure value"
                )),
            };
            out.push((name, value));
        }
        out
    }

    /// Resource `item`'s `condition` when it is `false`: where its value is written, and
    /// its note ([`ComputeDef::false_condition`]).
    fn false_condition(&self, item: NodeId, scope: usize) -> Option<(Span, &'static str)> {
        let c = get_ci(self.doc, item, "condition")?;
        let note = iac::condition_note(&self.eval_node(scope, c.value, 0), || {
            self.strictly(|| self.eval_node(scope, c.value, 0))
        })?;
        Some((self.inner(c.value), note))
    }

    /// `f`'s result with [`Arm::strict`] set.
    fn strictly<T>(&self, f: impl FnOnce() -> T) -> T {
        self.strict.set(true);
        let v = f();
        self.strict.set(false);
        v
    }

    /// The notes said of a resource: those of the resources around it (`notes`), its
    /// `condition` and its `copy` loop.
    fn resource_notes(&self, item: NodeId, notes: &[String]) -> Vec<String> {
        let doc = self.doc;
        let mut here = notes.to_vec();
        if let Some(c) = get_ci(doc, item, "condition") {
            here.push(format!("deployed on condition `{}`", self.written(c.value)));
        }
        let rtype = get_ci(doc, item, "type").and_then(|e| str_of(doc, e.value));
        let compute =
            rtype.is_some_and(|t| t.eq_ignore_ascii_case(COMPUTES) || t.eq_ignore_ascii_case("computes"));
        if let Some(c) = get_ci(doc, item, "copy").filter(|_| !compute) {
            let name = get_ci(doc, c.value, "name")
                .and_then(|e| str_of(doc, e.value))
                .unwrap_or_default();
            here.push(format!("in the copy loop `{name}` (not expanded)"));
        }
        here
    }

    /// A compute's instances: one without a `copy` loop; one per index of a loop whose
    /// `count` is known (at most [`iac::MAX_ITEMS`], as Bicep's `for` loops), each with
    /// its note; else one, its index not known, noted why.
    fn copies(&self, item: NodeId, scope: usize) -> Vec<(CopyIndex, Option<String>)> {
        let doc = self.doc;
        let Some(c) = get_ci(doc, item, "copy") else {
            return vec![(None, None)];
        };
        let name = get_ci(doc, c.value, "name")
            .and_then(|e| str_of(doc, e.value))
            .unwrap_or_default();
        let count = match get_ci(doc, c.value, "count") {
            Some(e) => self.eval_node(scope, e.value, 0),
            None => Ev::unknown("it has no `count`"),
        };
        let why = match count.v {
            V::Int(n) if n > 0 && n <= iac::MAX_ITEMS as i64 => {
                return (0..n)
                    .map(|i| {
                        let note = format!("in the copy loop `{name}`, `copyIndex()` = {i}");
                        (Some((name.clone(), i)), Some(note))
                    })
                    .collect();
            }
            V::Int(n) if n > 0 => format!("its count, {n}, is more than {}", iac::MAX_ITEMS),
            V::Int(n) => format!("its count is {n}"),
            _ => format!(
                "its count is not known: {}",
                count.why().unwrap_or_else(|| "it is not a number".into())
            ),
        };
        vec![(
            None,
            Some(format!("in the copy loop `{name}` (not expanded: {why})")),
        )]
    }

    /// Evaluates from now on with `copyIndex()` of the loop `name` at `index` (`None`:
    /// not known); what was memoised with another index is forgotten.
    fn set_copy(&self, index: CopyIndex) {
        if *self.copy.borrow() == index {
            return;
        }
        for s in &self.scopes {
            s.memo.borrow_mut().clear();
            s.memo_strict.borrow_mut().clear();
        }
        *self.copy.borrow_mut() = index;
    }

    /// The nested deployment `item` (in `scope`, said `here`): its template, the scope its
    /// expressions are evaluated in (a new one, with the parameters the deployment passes,
    /// when it evaluates them `inner`), and the notes said of its resources. `None`: it is
    /// not followed (no template, or too many nested deployments).
    fn nested_deployment(
        &mut self,
        item: NodeId,
        scope: usize,
        here: &[String],
    ) -> Option<(NodeId, usize, Vec<String>)> {
        let doc = self.doc;
        if self.scopes.len() >= MAX_SCOPES {
            return None;
        }
        let props = get_ci(doc, item, "properties")?;
        let template = get_ci(doc, props.value, "template")?;
        let inner = get_ci(doc, props.value, "expressionEvaluationOptions")
            .and_then(|e| get_ci(doc, e.value, "scope"))
            .and_then(|e| str_of(doc, e.value))
            .is_some_and(|s| s.eq_ignore_ascii_case("inner"));
        let child = if inner {
            let given = self.passed_parameters(scope, props.value);
            let given_strict = self.strictly(|| self.passed_parameters(scope, props.value));
            self.scopes
                .push(Scope::new(doc, template.value, given, given_strict));
            self.scopes.len() - 1
        } else {
            scope
        };
        let dname = get_ci(doc, item, "name")
            .map(|e| self.written(e.value))
            .unwrap_or_default();
        let mut n = here.to_vec();
        n.push(format!("in the nested deployment `{dname}`"));
        Some((template.value, child, n))
    }

    /// The parameters a nested deployment's `properties` pass to its template, evaluated
    /// in the parent's `scope`.
    fn passed_parameters(&self, scope: usize, props: NodeId) -> HashMap<String, Ev> {
        let doc = self.doc;
        let mut given: HashMap<String, Ev> = HashMap::new();
        if let Some(ps) = get_ci(doc, props, "parameters") {
            for e in doc.entries(ps.value) {
                let name = doc.key_string(e.key).to_ascii_lowercase();
                let v = match get_ci(doc, e.value, "value") {
                    Some(v) => self.eval_node(scope, v.value, 0),
                    None => Ev::unknown(format!(
                        "the nested deployment passes `{name}` by reference (a key vault secret)"
                    )),
                };
                given.insert(name, v);
            }
        }
        given
    }

    /// The text of a node as written (a string without its quotes).
    fn written(&self, id: NodeId) -> String {
        let span = self.inner(id);
        self.text.get(span.range()).unwrap_or_default().to_string()
    }

    /// A node's span, without the quotes of a string.
    fn inner(&self, id: NodeId) -> Span {
        let n = self.doc.node(id);
        match n.value {
            Value::Str(_) if n.span.len() >= 2 => Span::new(n.span.start + 1, n.span.end - 1),
            _ => n.span,
        }
    }

    fn definition(&self, item: NodeId, scope: usize, notes: Vec<String>, display: &str) -> ComputeDef {
        let doc = self.doc;
        let mut notes = notes;
        let tree = self.tree(item, scope, 0, &mut notes);
        // The definition's line is its `type`'s, the member that makes the object a
        // compute, wherever it is among the members: the members before it (values a
        // finding is about, the object's `{` a suppression may stand above) are written
        // before the definition's first line.
        let whole = doc.node(item).span;
        let type_key = get_ci(doc, item, "type")
            .map(|e| doc.node(e.key).span.start)
            .filter(|&start| whole.start <= start && start < whole.end);
        let span = type_key.map_or(whole, |start| Span::new(start, whole.end));
        let name = match tree.field("name") {
            Some(BodyField {
                key,
                value: BodyNode::Leaf(leaf),
                ..
            }) => iac::name_setting(leaf, Some(*key)),
            _ => Setting::dynamic("", "the resource has no `name`", span, None),
        };
        let mut def = ComputeDef::new(SourceKind::Arm, display, span, COMPUTES, name);
        iac::arm_compute_fields(&tree, &mut def);
        if whole.start < span.start {
            def.written_before.push(Span::new(whole.start, span.start));
        }
        notes.dedup();
        def.notes = notes;
        iac::attached_cluster(&tree, &mut def, |leaf| self.cluster(&leaf.written, scope));
        def
    }

    /// The resource as a [`BodyNode`] tree (objects in place, values evaluated), to the depth
    /// the compute body needs.
    fn tree(&self, id: NodeId, scope: usize, depth: usize, notes: &mut Vec<String>) -> BodyNode {
        let doc = self.doc;
        match doc.value(id) {
            Value::Map(entries) if depth < 6 => BodyNode::Map(
                entries
                    .iter()
                    .map(|e| BodyField {
                        name: doc.key_string(e.key).into_owned(),
                        key: self.inner(e.key),
                        value: self.tree(e.value, scope, depth + 1, notes),
                    })
                    .collect(),
            ),
            _ => {
                let val = self.eval_node(scope, id, 0);
                if let Some(n) = &val.note {
                    notes.push(n.clone());
                }
                let span = self.inner(id);
                let plain = matches!(doc.value(id), Value::Str(s) if !is_expression(s))
                    && val
                        .known_str()
                        .is_some_and(|s| self.text.get(span.range()) == Some(s.as_str()));
                let number = matches!(doc.value(id), Value::Int(_) | Value::Bool(_));
                Leaf {
                    span,
                    written: self.written(id),
                    literal: (plain || number).then_some(span),
                    val,
                }
                .into()
            }
        }
    }

    /// A JSON value, with the expressions of its strings evaluated.
    fn eval_node(&self, scope: usize, id: NodeId, depth: usize) -> Ev {
        let doc = self.doc;
        if depth > MAX_DEPTH {
            return Ev::unknown("the value is nested too deeply");
        }
        let span = self.inner(id);
        match doc.value(id) {
            Value::Str(s) if is_expression(s) => {
                let expr = &s[1..s.len() - 1];
                eval_expr(self, scope, depth, expr)
            }
            Value::Str(s) => {
                let s = s
                    .strip_prefix("[[")
                    .map_or_else(|| s.to_string(), |rest| format!("[{rest}"));
                let plain = self.text.get(span.range()) == Some(s.as_str());
                Ev::text(s).with_origin(plain.then_some(span))
            }
            Value::Int(i) => Ev::int(*i).with_origin(Some(span)),
            Value::Bool(b) => Ev::boolean(*b).with_origin(Some(span)),
            Value::Null => Ev::new(V::Null),
            Value::Seq(items) => Ev::new(V::List(
                items
                    .iter()
                    .take(iac::MAX_ITEMS)
                    .map(|i| self.eval_node(scope, *i, depth + 1))
                    .collect(),
            )),
            Value::Map(entries) => Ev::new(V::Map(
                entries
                    .iter()
                    .take(iac::MAX_ITEMS)
                    .map(|e| {
                        (
                            doc.key_string(e.key).into_owned(),
                            self.eval_node(scope, e.value, depth + 1),
                        )
                    })
                    .collect(),
            )),
            _ => Ev::unknown("the value is not a string, number, boolean, list or object"),
        }
    }

    /// `parameters('name')` (`param: true`) or `variables('name')` in `scope`.
    fn lookup(&self, scope: usize, param: bool, name: &str, depth: usize) -> Ev {
        let s = &self.scopes[scope];
        let strict = self.strict.get();
        let (memo, given) = if strict {
            (&s.memo_strict, &s.given_strict)
        } else {
            (&s.memo, &s.given)
        };
        let key = (param, name.to_ascii_lowercase());
        if let Some(v) = memo.borrow().get(&key) {
            return v.clone();
        }
        if s.busy.borrow().contains(&key) {
            return Ev::unknown(format!("`{name}` is defined through itself"));
        }
        s.busy.borrow_mut().push(key.clone());
        let what = if param { "parameters" } else { "variables" };
        let v = if param && let Some(v) = given.get(&key.1) {
            let declared = s.params.and_then(|m| get_ci(self.doc, m, name));
            let ty = declared.and_then(|e| get_ci(self.doc, e.value, "type"));
            let ty = ty.and_then(|t| match self.doc.value(t.value) {
                Value::Str(s) => Some(&**s),
                _ => None,
            });
            iac::as_declared(v, ty)
        } else {
            let section = if param { s.params } else { s.vars };
            match section.and_then(|m| get_ci(self.doc, m, name)) {
                None => Ev::unknown(format!("`{what}('{name}')` is not declared")),
                Some(_) if param && strict && scope == 0 => {
                    Ev::unknown(format!("`parameters('{name}')` is what the deployment sets"))
                }
                Some(e) if param => match get_ci(self.doc, e.value, "defaultValue") {
                    Some(d) => self.eval_node(scope, d.value, depth),
                    None => Ev::unknown(format!(
                        "`parameters('{name}')` has no default value (the deployment sets it)"
                    )),
                },
                Some(e) => self.eval_node(scope, e.value, depth),
            }
        };
        s.busy.borrow_mut().retain(|k| *k != key);
        memo.borrow_mut().insert(key, v.clone());
        v
    }
}

impl From<Leaf> for BodyNode {
    fn from(leaf: Leaf) -> BodyNode {
        BodyNode::Leaf(leaf)
    }
}

/// A template expression: a string `[...]` (not `[[`, which escapes a literal `[`).
fn is_expression(s: &str) -> bool {
    s.len() >= 2 && s.starts_with('[') && s.ends_with(']') && !s.starts_with("[[")
}

/// The parameter values of the parameters files beside the template: one file's values,
/// or — when several files exist (one per environment) — the values they agree on; a
/// parameter they set differently is unknown.
fn parameter_files(input: &Input<'_>) -> Given {
    let name = input.file_name();
    let Some(stem) = name.strip_suffix(".json") else {
        return Given::new();
    };
    if stem.contains(".parameters") {
        return Given::new();
    }
    let dir = input.path.parent().unwrap_or(std::path::Path::new(""));
    let lower = name.to_ascii_lowercase();
    let stem = stem.to_ascii_lowercase();
    if iac::stem_parameters_key(&lower).is_some() {
        return Given::new();
    }
    // `parameters-vnet.json`, `parameters-vnet.<env>.json` are `template-vnet.json`'s (and
    // `vnet.json`'s), whichever other templates their folder holds.
    let key = iac::template_key(&lower);
    let own = iac::sibling_files(input.files, dir, |n| {
        n.ends_with(".json")
            && n != lower
            && (n.starts_with(&format!("{stem}.parameters."))
                || n.starts_with(&format!("{stem}.")) && n.ends_with(".parameters.json")
                || key.is_some() && iac::stem_parameters_key(n) == key)
    });
    let (files, generic) = if own.is_empty() {
        (generic_parameter_files(input, dir, &lower), true)
    } else {
        (own, false)
    };
    let mut all: Vec<(String, Given)> = Vec::new();
    for (path, fname) in files.into_iter().take(16) {
        let display = iac::beside(&input.source.path, &fname);
        let Some(src) = input.files.read(&path, &display) else {
            continue;
        };
        // `parameters.json` may be any file's parameters: only one whose `$schema` says it
        // is a deployment's parameters file.
        if generic && !src.text.to_ascii_lowercase().contains("deploymentparameters") {
            continue;
        }
        if let Some(values) = parameters_of(&src, &fname) {
            all.push((fname, values));
        }
    }
    iac::merge_given(all)
}

/// `parameters.json` and `parameters.<env>.json` beside the template (`name`, lower-cased)
/// when it is the one ARM template of its folder (another `.json` there that is a
/// template makes them ambiguous: none is read).
fn generic_parameter_files(
    input: &Input<'_>,
    dir: &std::path::Path,
    name: &str,
) -> Vec<(std::path::PathBuf, String)> {
    let files = iac::sibling_files(input.files, dir, iac::is_generic_parameters_name);
    if files.is_empty() {
        return files;
    }
    let others = iac::sibling_files(input.files, dir, |n| {
        n.ends_with(".json") && n != name && !n.contains(".parameters") && !iac::is_generic_parameters_name(n)
    });
    // A folder of many JSON files is not one template's: no pairing by guess.
    if others.len() > 32 {
        return Vec::new();
    }
    for (path, fname) in others {
        let display = iac::beside(&input.source.path, &fname);
        let Some(src) = input.files.read(&path, &display) else {
            continue;
        };
        if !src.text.to_ascii_lowercase().contains("deploymenttemplate")
            && !src.text.contains("\"resources\"")
        {
            continue;
        }
        let loaded = crate::load::parse_source(src.clone(), crate::load::Format::Json, &Default::default());
        if loaded
            .documents
            .first()
            .is_some_and(|doc| doc.root.is_some_and(|root| is_template(doc, root)))
        {
            return Vec::new();
        }
    }
    files
}

/// The definitions of the ARM template at `path` (shown as `display`) as a deployment
/// makes them, with the parameter values it passes (`given`, by lower-cased name); `None`
/// when the file cannot be read or is not a template.
pub fn deployed(
    files: &super::common::Files,
    path: &std::path::Path,
    display: &str,
    given: Given,
) -> Option<Vec<ComputeDef>> {
    let src = files.read(path, display)?;
    if !super::common::mentions(src.text.as_bytes(), READER.needles) {
        return Some(Vec::new());
    }
    let loaded = crate::load::parse_source(src.clone(), crate::load::Format::Json, &Default::default());
    let input = Input {
        path,
        source: &src,
        documents: &loaded.documents,
        kinds: &[],
        files,
    };
    let mut out = Definitions::default();
    read_with(&input, &mut out, Some(given));
    Some(out.computes)
}

/// The values of a deployment parameters file (`{"parameters": {"x": {"value": ...}}}`)
/// a deployment names, shown as `display`: `Err` says why it gives none (not JSON, not a
/// parameters file).
pub fn deployment_parameters(src: &Arc<SourceFile>, display: &str) -> Result<Given, String> {
    let loaded = crate::load::parse_source(src.clone(), crate::load::Format::Json, &Default::default());
    let not_json = || format!("`{display}` is not valid JSON");
    let doc = loaded
        .documents
        .first()
        .filter(|d| !d.partial)
        .ok_or_else(not_json)?;
    let root = doc.root.ok_or_else(not_json)?;
    if get_ci(doc, root, "parameters").is_none_or(|p| !matches!(doc.value(p.value), Value::Map(_))) {
        return Err(format!("`{display}` has no `parameters` object"));
    }
    parameters_of(src, display).ok_or_else(|| format!("`{display}` is not valid JSON"))
}

/// The `parameters` of a parameters file, as values (a key vault `reference` unknown).
fn parameters_of(src: &Arc<SourceFile>, fname: &str) -> Option<Given> {
    let loaded = crate::load::parse_source(src.clone(), crate::load::Format::Json, &Default::default());
    let doc = loaded.documents.first()?;
    let root = doc.root?;
    if doc.partial {
        return None;
    }
    let params = get_ci(doc, root, "parameters")?;
    let mut out = Given::new();
    for e in doc.entries(params.value) {
        let name = doc.key_string(e.key).into_owned();
        let v = match get_ci(doc, e.value, "value") {
            Some(v) => iac::json_value(doc, v.value, true, 0),
            None => Ev::unknown(format!("`{name}` is a key vault reference in {fname}")),
        };
        out.insert(
            name.to_ascii_lowercase(),
            v.with_note(Some(format!("`{name}` is set by {fname}"))),
        );
    }
    Some(out)
}

/// The expression language of ARM templates (`parameters('x')`, `concat(a, 'b')`,
/// `variables('v').prop`, `x[0]`), parsed and evaluated in one pass; nesting deeper than
/// [`MAX_DEPTH`] is unknown.
fn eval_expr(arm: &Arm<'_>, scope: usize, depth: usize, src: &str) -> Ev {
    let mut e = Expr {
        arm,
        scope,
        s: src.as_bytes(),
        src,
        pos: 0,
        failed: None,
    };
    let v = e.expr(depth);
    e.ws();
    if let Some(why) = e.failed {
        return Ev::unknown(why);
    }
    if e.pos < e.s.len() {
        return Ev::unknown(format!("`[{src}]` is not an expression amlint reads"));
    }
    v
}

struct Expr<'r, 'a> {
    arm: &'r Arm<'a>,
    scope: usize,
    s: &'r [u8],
    src: &'r str,
    pos: usize,
    /// Why the expression could not be read (the first reason).
    failed: Option<String>,
}

impl Expr<'_, '_> {
    fn fail(&mut self, why: impl Into<String>) -> Ev {
        let why = why.into();
        self.pos = self.s.len();
        if self.failed.is_none() {
            self.failed = Some(why.clone());
        }
        Ev::unknown(why)
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self, depth: usize) -> Ev {
        if depth > MAX_DEPTH {
            return self.fail("the expression is nested too deeply");
        }
        self.ws();
        let mut v = match self.s.get(self.pos) {
            Some(b'\'') => self.string(),
            Some(c) if c.is_ascii_digit() || *c == b'-' => self.number(),
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => self.call(depth),
            _ => return self.fail("the expression is not one amlint reads"),
        };
        // Member and index access.
        loop {
            if self.eat(b'.') {
                self.ws();
                let start = self.pos;
                while self.pos < self.s.len()
                    && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_')
                {
                    self.pos += 1;
                }
                let prop = &self.src[start..self.pos];
                v = match v.member(prop, true) {
                    Some(m) => m.clone(),
                    None if v.why().is_some() => v,
                    None => Ev::unknown(format!("`.{prop}` of a value that has no such property")),
                };
            } else if self.eat(b'[') {
                let index = self.expr(depth + 1);
                if !self.eat(b']') {
                    return self.fail("an index is not closed");
                }
                v = iac::index_of(&v, &index, true);
            } else {
                return v;
            }
        }
    }

    fn string(&mut self) -> Ev {
        self.pos += 1;
        let mut out = String::new();
        let mut run = self.pos;
        while self.pos < self.s.len() {
            if self.s[self.pos] == b'\'' {
                if self.s.get(self.pos + 1) == Some(&b'\'') {
                    out.push_str(&self.src[run..=self.pos]);
                    self.pos += 2;
                    run = self.pos;
                    continue;
                }
                out.push_str(&self.src[run..self.pos]);
                self.pos += 1;
                return Ev::text(out);
            }
            self.pos += 1;
        }
        self.fail("a string is not closed")
    }

    fn number(&mut self) -> Ev {
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        match self.src[start..self.pos].parse::<i64>() {
            Ok(i) => Ev::int(i),
            Err(_) => Ev::unknown(format!(
                "`{}` is not a number amlint reads",
                &self.src[start..self.pos]
            )),
        }
    }

    fn call(&mut self, depth: usize) -> Ev {
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || matches!(self.s[self.pos], b'_' | b'.'))
        {
            self.pos += 1;
        }
        let name = &self.src[start..self.pos];
        // `true()`, `false()`, `null()`: functions in ARM (the parentheses optional here).
        let constant = match name {
            "true" => Some(Ev::boolean(true)),
            "false" => Some(Ev::boolean(false)),
            "null" => Some(Ev::new(V::Null)),
            _ => None,
        };
        if let Some(value) = constant {
            if self.eat(b'(') && !self.eat(b')') {
                return self.fail(format!("`{name}()` takes no arguments"));
            }
            return value;
        }
        if !self.eat(b'(') {
            return self.fail(format!("`{name}` is not a function call"));
        }
        let mut args = Vec::new();
        if !self.eat(b')') {
            loop {
                args.push(self.expr(depth + 1));
                if self.eat(b',') {
                    continue;
                }
                if self.eat(b')') {
                    break;
                }
                return self.fail(format!("the arguments of `{name}` are not closed"));
            }
        }
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "parameters" | "variables" => match args.first().and_then(Ev::known_str) {
                Some(n) => self.arm.lookup(self.scope, lower == "parameters", &n, depth + 1),
                None => Ev::unknown(format!("`{name}` of a name that is not known")),
            },
            "copyindex" => self.arm.copy_index(&args),
            _ => iac::arm_function(name, &args).unwrap_or_else(|| {
                Ev::unknown(format!(
                    "`{name}()` is evaluated by Azure Resource Manager at deployment"
                ))
            }),
        }
    }
}

/// The pieces of a value as text (for messages of the tests).
#[cfg(test)]
fn text_of(v: &Ev) -> String {
    v.pieces()
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.clone(),
            Part::Unknown(_) => "?".into(),
        })
        .collect()
}

/// The environment a deployment script's resource gives it (the last setting of a name
/// wins; PowerShell's `$env:` names compare in any case).
struct ScriptEnv {
    vars: Vec<(String, ScriptVal)>,
    fold_case: bool,
}

impl Outer for ScriptEnv {
    fn var(&self, name: &str, scope: VarScope) -> Option<ScriptVal> {
        if !matches!(scope, VarScope::Shell | VarScope::Env) {
            return None;
        }
        let same = |n: &str| {
            if self.fold_case {
                n.eq_ignore_ascii_case(name)
            } else {
                n == name
            }
        };
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| same(n))
            .map(|(_, v)| v.clone())
    }

    /// The script runs in a container Azure starts for it: a file it names (`--file`) is
    /// not the repository's.
    fn start_unknown(&self) -> Option<String> {
        Some("a deployment script runs in a container of its own, not in the repository".into())
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::facts::computes::Scalar;

    fn defs_in(dir: &std::path::Path, name: &str, text: &str) -> Vec<ComputeDef> {
        iac::read_for_test(read, dir, name, text).computes
    }

    /// A template with `//` and `/* */` comments (which ARM accepts and JSON does not) is
    /// read with the file's own spans; `//` inside a string is not a comment; the comments
    /// are where suppressions go.
    #[test]
    fn a_template_with_comments_is_read_at_the_files_spans() {
        let text = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  // the compute
  "resources": [
    { /* a block
         over two lines */
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "name": "ws/arm-commented",
      "properties": {"computeType": "AmlCompute", "description": "see http://x//y /* no */",
        "properties": {"vmSize": "Standard_NC6"}} // amlint: ignore[AML505]
    }
  ]
}
"#;
        let dir = tempfile::tempdir().unwrap();
        let found = iac::read_for_test(read, dir.path(), "azuredeploy.json", text);
        let [d] = found.computes.as_slice() else {
            panic!("one definition: {:#?}", found.computes)
        };
        assert_eq!(d.known_name(), Some("arm-commented"));
        assert_eq!(&text[d.get("size").unwrap().span.range()], "Standard_NC6");
        let comments: Vec<&str> = found.comments.iter().map(|c| &text[c.span.range()]).collect();
        assert_eq!(
            comments,
            [
                "// the compute",
                "/* a block\n         over two lines */",
                "// amlint: ignore[AML505]"
            ]
        );
        assert_eq!(found.comments[2].target_line, Some(10));
        // Without comments, nothing is blanked: the loader's documents are read.
        assert!(without_comments("{\"a\": \"http://b\"}").is_none());
        // An unterminated comment or string ends at the end of the text.
        let (t, _) = without_comments("{\"a\": 1} /* open").unwrap();
        assert_eq!(t, "{\"a\": 1}        ");
        assert!(without_comments("{\"a\": \"open // x").is_none());
    }

    fn defs(text: &str) -> Vec<ComputeDef> {
        let dir = tempfile::tempdir().unwrap();
        defs_in(dir.path(), "azuredeploy.json", text)
    }

    const TEMPLATE: &str = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "workspaceName": {"type": "string"},
    "vmSize": {"type": "string", "defaultValue": "Standard_NC6"},
    "maxNodes": {"type": "int", "defaultValue": 4}
  },
  "variables": {"clusterName": "[toLower('GPU-Cluster')]"},
  "resources": [
    {
      "type": "Microsoft.MachineLearningServices/workspaces/computes",
      "apiVersion": "2023-04-01",
      "name": "[format('{0}/{1}', parameters('workspaceName'), variables('clusterName'))]",
      "location": "[resourceGroup().location]",
      "properties": {
        "computeType": "AmlCompute",
        "properties": {
          "vmSize": "[parameters('vmSize')]",
          "vmPriority": "Dedicated",
          "enableNodePublicIp": false,
          "scaleSettings": {"minNodeCount": 1, "maxNodeCount": "[parameters('maxNodes')]", "nodeIdleTimeBeforeScaleDown": "PT2M"},
          "subnet": "[json('null')]"
        }
      }
    }
  ]
}"#;

    /// A resource starts at its `type` member wherever it is: when values come before it,
    /// they are in the text written before the definition's first line (with the object's
    /// `{`), and each value is in the definition or written before it.
    #[test]
    fn a_resource_starts_at_its_type_wherever_it_is() {
        let text = "{\"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\", \"resources\": [\n  {\n    \"properties\": {\"computeType\": \"AmlCompute\", \"properties\": {\"vmSize\": \"Standard_NC6\"}},\n    \"name\": \"ws/late\",\n    \"type\": \"Microsoft.MachineLearningServices/workspaces/computes\"\n  },\n  {\n    \"type\": \"Microsoft.MachineLearningServices/workspaces/computes\",\n    \"name\": \"ws/early\",\n    \"properties\": {\"computeType\": \"AmlCompute\", \"properties\": {\"vmSize\": \"Standard_NC6\"}}\n  }\n]}\n";
        let d = defs(text);
        let names: Vec<Option<&str>> = d.iter().map(ComputeDef::known_name).collect();
        assert_eq!(names, [Some("late"), Some("early")]);
        for d in &d {
            assert!(text[d.span.range()].starts_with("\"type\""), "{d:?}");
            assert!(text[d.span.range()].ends_with('}'));
            let before: Vec<&str> = d.written_before.iter().map(|w| &text[w.range()]).collect();
            assert!(before.len() == 1 && before[0].starts_with('{'), "{before:?}");
            for s in [&d.name, d.get("size").unwrap(), d.get("type").unwrap()] {
                let inside = d.span.start < s.span.start && s.span.end <= d.span.end;
                assert!(inside != d.written_before_holds(s.span), "{s:?}");
            }
        }
        // `late`: its values come first; `early`: its `{` alone is before its `type`.
        assert!(d[0].written_before_holds(d[0].get("size").unwrap().span));
        assert!(d[0].written_before_holds(d[0].name.span));
        assert_eq!(text[d[1].written_before[0].range()].trim_end(), "{");
        assert_eq!(
            &text[d[0].first_line(text).range()],
            "\"type\": \"Microsoft.MachineLearningServices/workspaces/computes\""
        );
    }

    #[test]
    fn a_compute_resource_is_a_definition_with_its_values_and_spans() {
        let d = defs(TEMPLATE);
        assert_eq!(d.len(), 1);
        let d = &d[0];
        assert_eq!(d.source, SourceKind::Arm);
        assert_eq!(d.known_name(), Some("gpu-cluster"));
        assert_eq!(
            d.name.written,
            "[format('{0}/{1}', parameters('workspaceName'), variables('clusterName'))]"
        );
        assert_eq!(d.ctype().as_deref(), Some("amlcompute"));
        assert_eq!(d.size(), Some("Standard_NC6"));
        let size = d.get("size").unwrap();
        assert_eq!(&TEMPLATE[size.span.range()], "[parameters('vmSize')]");
        assert_eq!(&TEMPLATE[size.origin.unwrap().range()], "Standard_NC6");
        assert_eq!(&TEMPLATE[size.key.unwrap().range()], "vmSize");
        assert!(!size.in_place);
        let min = d.get("min_instances").unwrap();
        assert_eq!((min.value.clone(), min.in_place), (Some(Scalar::Int(1)), true));
        assert_eq!(&TEMPLATE[min.span.range()], "1");
        assert_eq!(d.get("max_instances").unwrap().value, Some(Scalar::Int(4)));
        assert_eq!(
            d.get("idle_time_before_scale_down").unwrap().value,
            Some(Scalar::Int(120))
        );
        assert_eq!(
            d.get("enable_node_public_ip").unwrap().value,
            Some(Scalar::Bool(false))
        );
        assert!(
            d.get("network_settings.subnet").is_none(),
            "json('null') is no subnet"
        );
        let loc = d.get("location").unwrap();
        assert!(loc.why.as_deref().unwrap().contains("resourceGroup"));
        // The definition starts at its `type` (the definition's line), ends with the object.
        assert!(TEMPLATE[d.span.range()].starts_with("\"type\""));
        assert!(TEMPLATE[d.span.range()].ends_with('}'));
    }

    #[test]
    fn an_unknown_name_says_why_and_a_literal_name_is_in_place() {
        let t = TEMPLATE.replace("variables('clusterName')", "parameters('cluster')");
        let d = &defs(&t)[0];
        assert_eq!(d.known_name(), None);
        assert!(
            d.name
                .why
                .as_deref()
                .unwrap()
                .contains("`parameters('cluster')` is not declared")
        );
        let t = TEMPLATE.replace(
            "[format('{0}/{1}', parameters('workspaceName'), variables('clusterName'))]",
            "ws/cpu",
        );
        let d = &defs(&t)[0];
        assert_eq!(d.known_name(), Some("cpu"));
        assert_eq!(&t[d.name.span.range()], "cpu");
        assert!(d.name.in_place);
        let t = TEMPLATE.replace(
            "parameters('workspaceName'), variables",
            "parameters('nothing'), variables",
        );
        assert_eq!(
            defs(&t)[0].known_name(),
            Some("gpu-cluster"),
            "only the last segment matters"
        );
    }

    #[test]
    fn child_resources_and_nested_deployments_are_read_in_their_scope() {
        let t = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {"env": {"type": "string", "defaultValue": "dev"}},
  "resources": [
    {"type": "Microsoft.MachineLearningServices/workspaces", "name": "ws",
     "resources": [{"type": "computes", "name": "child", "properties": {"computeType": "ComputeInstance", "properties": {"vmSize": "Standard_DS3_v2"}}}]},
    {"type": "Microsoft.Resources/deployments", "name": "inner",
     "properties": {"expressionEvaluationOptions": {"scope": "inner"},
       "parameters": {"prefix": {"value": "[parameters('env')]"}, "size": {"value": "Standard_ND40rs_v2"}},
       "template": {"parameters": {"prefix": {"type": "string"}, "size": {"type": "string"}},
         "resources": [{"type": "Microsoft.MachineLearningServices/workspaces/computes", "name": "[concat('ws/', parameters('prefix'), '-gpu')]",
           "condition": "[equals(parameters('prefix'), 'dev')]",
           "properties": {"computeType": "AmlCompute", "properties": {"vmSize": "[parameters('size')]"}}}]}}},
    {"type": "Microsoft.MachineLearningServices/workspaces/computes", "name": "[concat('ws/c', copyIndex())]", "copy": {"name": "loop", "count": 2},
     "properties": {"computeType": "AmlCompute"}},
    {"type": "Microsoft.MachineLearningServices/workspaces/computes", "name": "ws/old", "existing": true}
  ]
}"#;
        let d = defs(t);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].known_name(), Some("child"));
        assert_eq!(d[0].ctype().as_deref(), Some("computeinstance"));
        assert_eq!(d[1].known_name(), Some("dev-gpu"));
        let size = d[1].get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_ND40rs_v2".into())));
        assert_eq!(
            &t[size.origin.unwrap().range()],
            "Standard_ND40rs_v2",
            "the value passed, in this file"
        );
        assert!(
            d[1].notes.iter().any(|n| n.contains("condition")),
            "{:?}",
            d[1].notes
        );
        assert!(d[1].notes.iter().any(|n| n.contains("nested deployment `inner`")));
        // The copy loop of a known count: one definition per `copyIndex()`.
        assert_eq!((d[2].known_name(), d[3].known_name()), (Some("c0"), Some("c1")));
        assert!(
            d[3].notes
                .iter()
                .any(|n| n == "in the copy loop `loop`, `copyIndex()` = 1"),
            "{:?}",
            d[3].notes
        );
    }

    #[test]
    fn a_parameters_file_beside_the_template_sets_the_values() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("azuredeploy.parameters.json"),
            r#"{"parameters": {"vmSize": {"value": "Standard_NC24"}, "workspaceName": {"value": "w"}}}"#,
        )
        .unwrap();
        let d = &defs_in(dir.path(), "azuredeploy.json", TEMPLATE)[0];
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC24".into())));
        assert_eq!(size.origin, None, "the literal is in another file");
        assert!(
            d.notes.iter().any(|n| n.contains("azuredeploy.parameters.json")),
            "{:?}",
            d.notes
        );
        // Two environments that disagree: unknown, naming both.
        std::fs::write(
            dir.path().join("azuredeploy.parameters.prod.json"),
            r#"{"parameters": {"vmSize": {"value": "Standard_NC6s_v3"}}}"#,
        )
        .unwrap();
        let d = &defs_in(dir.path(), "azuredeploy.json", TEMPLATE)[0];
        let why = d.get("size").unwrap().why.clone().unwrap();
        assert!(
            why.contains("Standard_NC24") && why.contains("Standard_NC6s_v3"),
            "{why}"
        );
    }

    #[test]
    fn other_json_and_hostile_expressions_define_nothing_or_stay_unknown() {
        assert!(
            defs(r#"{"name": "x", "type": "Microsoft.MachineLearningServices/workspaces/computes"}"#)
                .is_empty()
        );
        let deep = format!("{}1{}", "concat(".repeat(10_000), ")".repeat(10_000));
        let t = TEMPLATE.replace("[toLower('GPU-Cluster')]", &format!("[{deep}]"));
        let d = defs(&t);
        assert!(d[0].name.why.as_deref().unwrap().contains("too deeply"));
        // Variables that refer to each other in a circle, and a chain that doubles a
        // string at every step, stay bounded.
        let t = TEMPLATE.replace(
            r#""variables": {"clusterName": "[toLower('GPU-Cluster')]"}"#,
            r#""variables": {"clusterName": "[variables('b')]", "b": "[variables('clusterName')]"}"#,
        );
        assert!(
            defs(&t)[0]
                .name
                .why
                .as_deref()
                .unwrap()
                .contains("through itself")
        );
        let mut vars = String::from(r#""v0": "abcde""#);
        for i in 1..11 {
            vars.push_str(&format!(
                r#", "v{i}": "[concat(variables('v{0}'), variables('v{0}'))]""#,
                i - 1
            ));
        }
        vars.push_str(r#", "clusterName": "[variables('v10')]""#);
        let t = TEMPLATE.replace(r#""clusterName": "[toLower('GPU-Cluster')]""#, &vars);
        let why = defs(&t)[0].name.why.clone().unwrap();
        assert!(why.contains("longer than"), "{why}");
        assert_eq!(text_of(&Ev::text("a")), "a");
    }

    #[test]
    fn a_long_chain_of_variables_runs_on_a_small_stack() {
        let mut vars = String::from(r#""v0": "gpu""#);
        for i in 1..5_000 {
            vars.push_str(&format!(r#", "v{i}": "[variables('v{}')]""#, i - 1));
        }
        vars.push_str(r#", "clusterName": "[variables('v4999')]""#);
        let t = TEMPLATE.replace(r#""clusterName": "[toLower('GPU-Cluster')]""#, &vars);
        let why = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || defs(&t)[0].name.why.clone())
            .unwrap()
            .join()
            .unwrap();
        assert!(why.unwrap().contains("too deeply"));
    }

    /// Audit 25, D6: `true()`, `false()` and `null()` are ARM functions; the parser reads
    /// them (with or without their parentheses) inside other calls.
    #[test]
    fn true_false_and_null_are_functions() {
        let text = r#"{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
"resources": [{"type": "Microsoft.MachineLearningServices/workspaces/computes", "name": "ws/c",
"properties": {"computeType": "AmlCompute",
"properties": "[createObject('vmSize', if(true(), 'Standard_NC6', null()), 'enableNodePublicIp', false())]"}}]}"#;
        let d = defs(text);
        let value = |p: &str| d[0].get(p).and_then(|s| s.value.clone());
        assert_eq!(value("size"), Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(value("enable_node_public_ip"), Some(Scalar::Bool(false)));
    }

    /// A compute instance's `schedules.computeStartStop` entries are read as YAML's
    /// `schedules.compute_start_stop` (`status` as `state`), at their literals; a parameter
    /// without a value leaves the entry's value, or the whole schedules, unknown with why.
    #[test]
    fn start_stop_schedules_are_read_as_yamls() {
        let template = |schedules: &str| {
            format!(
                r#"{{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
"parameters": {{"state": {{"type": "string"}}, "all": {{"type": "object"}}}},
"resources": [{{"type": "Microsoft.MachineLearningServices/workspaces/computes", "name": "ws/ci",
"properties": {{"computeType": "ComputeInstance", "properties": {{"vmSize": "Standard_DS3_v2",
"schedules": {schedules}}}}}}}]}}"#
            )
        };
        let read = |schedules: &str| {
            let text = template(schedules);
            let d = defs(&text);
            super::iac::schedules_for_test(&d[0], &text)
        };
        assert_eq!(
            read(
                r#"{"computeStartStop": [{"action": "Start", "status": "Enabled"}, {"triggerType": "Cron", "action": "Stop"}]}"#
            ),
            [
                "schedules.compute_start_stop.0.action = Start at `Start`",
                "schedules.compute_start_stop.0.state = Enabled at `Enabled`",
                "schedules.compute_start_stop.1.action = Stop at `Stop`",
            ]
        );
        assert_eq!(
            read(r#"{"computeStartStop": [{"action": "Stop", "status": "[parameters('state')]"}]}"#),
            [
                "schedules.compute_start_stop.0.action = Stop at `Stop`",
                "schedules.compute_start_stop.0.state ? `parameters('state')` has no default value (the deployment sets it)",
            ]
        );
        assert_eq!(
            read(r#""[parameters('all')]""#),
            ["schedules ? `parameters('all')` has no default value (the deployment sets it)"]
        );
        assert_eq!(
            read(r#"{"computeStartStop": "[parameters('all').list]"}"#),
            [
                "schedules.compute_start_stop ? `parameters('all')` has no default value (the deployment sets it)"
            ]
        );
        assert!(read("null").is_empty() && read("{}").is_empty());
    }

    /// A deployment script's `az ml compute create` (audit 17: ayukat1016's consumer
    /// template) is a definition at its place in the JSON string, its `${VAR}`s given by
    /// the resource's `environmentVariables`.
    #[test]
    fn a_deployment_scripts_az_command_is_a_definition() {
        let text = r#"{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "parameters": {"ws": {"type": "string"}},
  "variables": {"clusterName": "ds-cluster", "clusterSize": "Standard_NC6"},
  "resources": [
    {
      "type": "Microsoft.Resources/deploymentScripts",
      "apiVersion": "2020-10-01",
      "name": "ds",
      "kind": "AzureCLI",
      "properties": {
        "environmentVariables": [
          {"name": "CLUSTER_NAME", "value": "[variables('clusterName')]"},
          {"name": "CLUSTER_SIZE", "value": "[variables('clusterSize')]"},
          {"name": "WS", "value": "[parameters('ws')]"},
          {"name": "MAX", "secureValue": "4"}
        ],
        "scriptContent": "set -ex\n# \u00e9t\u00e9\naz ml compute create --type AmlCompute -n ${CLUSTER_NAME} \\\n  --size ${CLUSTER_SIZE} --min-instances 1 --max-instances $MAX --workspace-name $WS\n"
      }
    },
    {
      "type": "Microsoft.Resources/deploymentScripts",
      "name": "ps",
      "kind": "AzurePowerShell",
      "properties": {
        "environmentVariables": [{"name": "SIZE", "value": "Standard_D2_v3"}],
        "scriptContent": "az ml compute create --name ps-cluster --size $env:size"
      }
    },
    {"type": "Microsoft.Resources/deploymentScripts", "name": "expr", "kind": "AzureCLI",
     "properties": {"scriptContent": "[format('az ml compute create --name {0}', 'x')]"}},
    {"type": "Microsoft.Resources/deploymentScripts", "name": "other", "kind": "Other",
     "properties": {"scriptContent": "az ml compute create --name other"}}
  ]
}
"#;
        let d = defs(text);
        let names: Vec<Option<&str>> = d.iter().map(ComputeDef::known_name).collect();
        assert_eq!(names, [Some("ds-cluster"), Some("ps-cluster")]);
        let ds = &d[0];
        assert_eq!(ds.size(), Some("Standard_NC6"));
        // The command and its values at their places in the JSON string.
        assert!(text[ds.span.range()].starts_with("az ml compute create --type AmlCompute"));
        assert!(
            text[ds.span.range()].ends_with("$WS"),
            "{}",
            &text[ds.span.range()]
        );
        let size = ds.get("size").unwrap();
        assert_eq!(&text[size.span.range()], "${CLUSTER_SIZE}");
        // The label: where the variable's value is written.
        let origin = size.origin.expect("the size's literal");
        assert_eq!(&text[origin.range()], "Standard_NC6");
        assert_eq!(&text[ds.get("min_instances").unwrap().span.range()], "1");
        let max = ds.get("max_instances").unwrap();
        assert!(max.why.as_deref().unwrap().contains("secure value"), "{max:?}");
        assert!(
            ds.notes.iter().any(|n| n.contains("deployment script")),
            "{:?}",
            ds.notes
        );
        // PowerShell's `$env:` names in any case.
        assert_eq!(d[1].size(), Some("Standard_D2_v3"));
    }

    /// A resource whose `condition` is `false` whatever the deployment sets (a literal, or
    /// a value a nested deployment passes) is never deployed as written (audit 18:
    /// federated-learning's `compute2: false`); one false only by the template's own
    /// default is deployed unless the deployment says otherwise. Both are read (what the
    /// template would deploy is checked), each with its note.
    #[test]
    fn a_false_condition_is_noted_as_certain_or_by_default() {
        let compute = |name: &str, cond: &str| {
            format!(
                r#"{{"type": "Microsoft.MachineLearningServices/workspaces/computes", "name": "ws/{name}", "condition": {cond},
        "properties": {{"computeType": "AmlCompute", "properties": {{"vmSize": "Standard_NC6"}}}}}}"#
            )
        };
        let text = format!(
            r#"{{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "parameters": {{"optIn": {{"type": "bool", "defaultValue": false}}, "on": {{"type": "bool", "defaultValue": true}}}},
  "resources": [
    {literal},
    {by_default},
    {on},
    {{"type": "Microsoft.Resources/deployments", "name": "pair",
      "properties": {{"expressionEvaluationOptions": {{"scope": "inner"}},
        "parameters": {{"compute2": {{"value": false}}, "fromTop": {{"value": "[parameters('optIn')]"}}}},
        "template": {{"parameters": {{"compute2": {{"type": "bool"}}, "fromTop": {{"type": "bool"}}}},
          "resources": [{passed}, {passed_default}]}}}}}}
  ]
}}
"#,
            literal = compute("literal", "false"),
            by_default = compute("by-default", r#""[parameters('optIn')]""#),
            on = compute("on", r#""[parameters('on')]""#),
            passed = compute("passed", r#""[parameters('compute2')]""#),
            passed_default = compute("passed-default", r#""[not(not(parameters('fromTop')))]""#),
        );
        let d = defs(&text);
        let names: Vec<Option<&str>> = d.iter().map(ComputeDef::known_name).collect();
        assert_eq!(
            names,
            ["literal", "by-default", "on", "passed", "passed-default"].map(Some)
        );
        let said = |d: &ComputeDef, what: &str| d.notes.iter().any(|n| n == what);
        let never: Vec<bool> = d.iter().map(|d| said(d, iac::NEVER_DEPLOYED)).collect();
        assert_eq!(never, [true, false, false, true, false]);
        let by_default: Vec<bool> = d.iter().map(|d| said(d, iac::FALSE_BY_DEFAULT)).collect();
        assert_eq!(by_default, [false, true, false, false, true]);
    }
}
