//! `resource "azurerm_resource_group_template_deployment"` (and the older
//! `azurerm_template_deployment`): the computes
//! (`Microsoft.MachineLearningServices/workspaces/computes`) of the ARM template it
//! deploys, with the parameters it passes.
//!
//! - `template_content = file("${path.module}/arm/compute.json")` (`template_body`, also
//!   `templatefile(...)`): the template file is read as the ARM reader reads it, its
//!   parameters set to what the resource passes, and each compute is a definition at the
//!   resource made as a module call makes them ([`iac::ModuleCall`], as `deploy.rs` makes
//!   those of `az deployment group create`): a value the resource writes as a literal in
//!   `parameters_content` is at that literal, the template's own values inherited at the
//!   template's path, noted. A `templatefile()`'s placeholders are not substituted: a value
//!   holding one is unknown.
//! - `template_content = jsonencode({ … resources = [{ type = "…/computes", … }] })`: the
//!   template is in the `.tf` file, and so is each definition, at the resource's object; a
//!   string `"[parameters('x')]"` is the parameter's value (what the resource passes, else
//!   its `defaultValue`), another ARM expression is unknown.
//! - `parameters_content = jsonencode({ vmSize = { value = var.size } })` (`parameters_body`;
//!   the older resource's `parameters = { vmSize = "…" }`) evaluated in the module (its
//!   variables' defaults, `.tfvars`...), or `file(…)` of a parameters file
//!   (`arm::deployment_parameters`). Parameters that cannot be read leave every parameter
//!   of the template unknown, with why, never its defaults.
//!
//! A template not read (JSON text in a heredoc, a path not known statically, a file missing
//! or outside the project) is not known to define a compute: nothing is defined.

use hcl_edit::Span as _;
use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::{Attribute, Block};

use super::super::iac::{self, BodyNode, Ev, Given, V};
use super::files::{has_placeholder, placeholder_why};
use super::{At, Env, Module, span};
use crate::facts::computes::{ComputeDef, Setting, SourceKind};

/// The type of an ARM compute resource (lower case).
const COMPUTES: &str = "microsoft.machinelearningservices/workspaces/computes";

/// The definitions a template deployment resource `b` makes (one instance of it: `env`),
/// in the file shown as `display`; `notes` are said of each.
pub(super) fn definitions<'m>(
    m: &Module<'m>,
    b: &'m Block,
    env: &Env,
    display: &str,
    notes: Vec<String>,
) -> Vec<ComputeDef> {
    let Some(t) = b
        .body
        .get_attribute("template_content")
        .or_else(|| b.body.get_attribute("template_body"))
    else {
        return Vec::new();
    };
    let Expression::FuncCall(f) = &t.value else {
        return Vec::new();
    };
    let label = format!(
        "resource \"{}\" \"{}\"",
        b.labels[0].as_str(),
        b.labels.get(1).map_or("", |l| l.as_str())
    );
    match (f.name.name.as_str(), f.args.get(0)) {
        ("jsonencode", Some(template @ Expression::Object(_))) if f.args.len() == 1 => {
            inline(m, b, template, env, display, &label, notes)
        }
        ("file" | "templatefile", Some(path)) => {
            let Some(load) = &m.load else {
                return Vec::new();
            };
            // Each instance read counts as a module call ([`iac::MAX_MODULE_CALLS`]).
            if load.budget.get() == 0 {
                load.skipped.set(true);
                return Vec::new();
            }
            load.budget.set(load.budget.get() - 1);
            let Ok(read) = m.read_file_call(f, 0, env, 0) else {
                return Vec::new();
            };
            let params = parameters(m, b, env, true).unwrap_or_else(|why| {
                let names = crate::load::parse_source(
                    read.src.clone(),
                    crate::load::Format::Json,
                    &Default::default(),
                )
                .documents
                .first()
                .and_then(|doc| {
                    let root = doc.root?;
                    let p = (doc.entries(root).iter())
                        .find(|e| doc.key_string(e.key).eq_ignore_ascii_case("parameters"))?;
                    Some(
                        (doc.entries(p.value).iter())
                            .take(iac::MAX_ITEMS)
                            .map(|e| doc.key_string(e.key).into_owned())
                            .collect::<Vec<_>>(),
                    )
                })
                .unwrap_or_default();
                unknown_parameters(names, &why)
            });
            let Some(defs) = super::super::arm::deployed(load.files, &read.path, &read.shown, params) else {
                return Vec::new();
            };
            let source = m.leaf(At { file: 0, expr: path }, env, &mut Vec::new());
            let call = iac::ModuleCall {
                display,
                whole: span(b.span()).unwrap_or_default(),
                label: &label,
                path: &source.written,
                source: source.span,
                source_key: span(t.key.span()),
                args: &[],
                prefix: "",
                note: None,
                verb: "deploys the template",
                text: Some(m.text),
            };
            defs.into_iter()
                .map(|def| {
                    let line = format!(
                        "{}:{}",
                        def.file,
                        super::super::common::line_of(&read.src, def.span.start)
                    );
                    let mut def = call.definition(def, &line);
                    def.notes.extend(notes.iter().cloned());
                    if read.template {
                        unfilled(&mut def);
                    }
                    def
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The parameters the resource passes (`parameters_content`, `parameters_body`, the older
/// `parameters`), by lower-cased name, each noted; `raise`: their literals' places marked
/// as the calling file's ([`iac::raise_origins`]), for a template read from another file.
/// `Err`: why they are not known.
fn parameters<'m>(m: &Module<'m>, b: &'m Block, env: &Env, raise: bool) -> Result<Given, String> {
    let mut out = Given::new();
    let raise = raise && iac::raisable(m.text.len());
    let mut put = |name: &str, v: Ev, attr: &str| {
        let mut v = if raise { iac::raise_origins(v) } else { v };
        if v.note.is_none() {
            v.note = Some(format!("`{name}` is set by the resource's `{attr}`"));
        }
        out.insert(name.to_ascii_lowercase(), v);
    };
    let at = |a: &'m Attribute| At {
        file: 0,
        expr: &a.value,
    };
    // The older resource's `parameters`: a map of strings.
    if let Some(a) = b.body.get_attribute("parameters") {
        match m.eval(at(a), env, 0).v {
            V::Map(entries) => entries.into_iter().for_each(|(k, v)| put(&k, v, "parameters")),
            other => return Err(not_read("parameters", &Ev::new(other))),
        }
    }
    let Some(a) = b
        .body
        .get_attribute("parameters_content")
        .or_else(|| b.body.get_attribute("parameters_body"))
    else {
        return Ok(out);
    };
    let attr = a.key.as_str();
    match &a.value {
        Expression::FuncCall(f) if f.name.name.as_str() == "jsonencode" && f.args.len() == 1 => {
            let v = m.eval(
                At {
                    file: 0,
                    expr: f.args.get(0).unwrap_or(&a.value),
                },
                env,
                0,
            );
            let entries = match v.v {
                V::Map(entries) => entries,
                other => return Err(not_read(attr, &Ev::new(other))),
            };
            for (name, p) in entries {
                let value = match (p.member("value", false), p.member("reference", false)) {
                    (Some(v), _) => v.clone(),
                    (None, Some(_)) => Ev::unknown(format!("`{name}` is a key vault reference")),
                    (None, None) => Ev::unknown(
                        p.why()
                            .unwrap_or_else(|| format!("`{name}` in `{attr}` has no `value`")),
                    ),
                };
                put(&name, value, attr);
            }
        }
        Expression::FuncCall(f) if matches!(f.name.name.as_str(), "file" | "templatefile") => {
            let read = m.read_file_call(f, 0, env, 0)?;
            let given = super::super::arm::deployment_parameters(&read.src, &read.shown)?;
            for (name, v) in given {
                out.insert(name, if read.template { super::files::filled(v) } else { v });
            }
        }
        _ => {
            return Err(format!(
                "`{attr}` is `{}`, which amlint does not read (it reads `jsonencode({{…}})` and `file()`)",
                iac::one_line(&m.written(at(a)))
            ));
        }
    }
    Ok(out)
}

/// Why parameters written as `v` are not read.
fn not_read(attr: &str, v: &Ev) -> String {
    match v.why() {
        Some(why) => format!("`{attr}` is not known statically: {why}"),
        None => format!("`{attr}` is not an object"),
    }
}

/// Every parameter of `names` unknown, saying why: the resource passes parameters amlint
/// cannot read, so the template's defaults may not be what is deployed.
fn unknown_parameters(names: Vec<String>, why: &str) -> Given {
    names
        .into_iter()
        .map(|n| {
            let v = Ev::unknown(format!(
                "the deployment sets the template's parameters, and {why}"
            ));
            (n.to_ascii_lowercase(), v)
        })
        .collect()
}

/// A definition of a template `templatefile()` reads: each value holding a placeholder it
/// fills is unknown, saying so.
fn unfilled(def: &mut ComputeDef) {
    let unknown = |s: &mut Setting| {
        if let Some(text) = s.text().filter(|t| has_placeholder(t)) {
            s.why = Some(placeholder_why(&text));
            s.value = None;
            s.in_place = false;
        }
    };
    unknown(&mut def.name);
    def.fields.iter_mut().for_each(|(_, s)| unknown(s));
}

/// The computes of a template written in the `.tf` file (`jsonencode({…})`): each
/// `resources` item of the compute type is a definition at its object, its ARM
/// expressions resolved ([`resolve`]).
fn inline<'m>(
    m: &Module<'m>,
    b: &'m Block,
    template: &'m Expression,
    env: &Env,
    display: &str,
    label: &str,
    notes: Vec<String>,
) -> Vec<ComputeDef> {
    let Expression::Object(o) = template else {
        return Vec::new();
    };
    let whole = m.eval(
        At {
            file: 0,
            expr: template,
        },
        env,
        0,
    );
    let declared = whole.member("parameters", true);
    let given = parameters(m, b, env, false).unwrap_or_else(|why| {
        let names = match declared.map(|d| &d.v) {
            Some(V::Map(entries)) => entries.iter().map(|(k, _)| k.clone()).collect(),
            _ => Vec::new(),
        };
        unknown_parameters(names, &why)
    });
    let resources = o.iter().find_map(|(k, v)| {
        let name = match k {
            ObjectKey::Ident(i) => i.as_str().to_string(),
            ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
            ObjectKey::Expression(_) => return None,
        };
        match v.expr() {
            Expression::Array(a) if name.eq_ignore_ascii_case("resources") => Some(a),
            _ => None,
        }
    });
    let mut out = Vec::new();
    for item in resources.into_iter().flat_map(|a| a.iter()).take(iac::MAX_ITEMS) {
        let mut notes = notes.clone();
        let BodyNode::Map(mut fields) = m.node(At { file: 0, expr: item }, env, 0, &mut notes) else {
            continue;
        };
        let is_compute = (fields.iter().rev().find(|f| f.name.eq_ignore_ascii_case("type")))
            .and_then(|f| match &f.value {
                BodyNode::Leaf(l) => l.val.known_str(),
                BodyNode::Map(_) => None,
            })
            .is_some_and(|t| t.eq_ignore_ascii_case(COMPUTES));
        if !is_compute {
            continue;
        }
        let mut stack: Vec<&mut BodyNode> = fields.iter_mut().map(|f| &mut f.value).collect();
        while let Some(n) = stack.pop() {
            match n {
                BodyNode::Map(fs) => stack.extend(fs.iter_mut().map(|f| &mut f.value)),
                BodyNode::Leaf(leaf) => {
                    if resolve(&mut leaf.val, &given, declared) {
                        leaf.literal = None;
                    }
                }
            }
        }
        let node = BodyNode::Map(fields);
        let at = span(item.span()).unwrap_or_default();
        let name = match node.field("name") {
            Some(f) => match &f.value {
                BodyNode::Leaf(leaf) => iac::name_setting(leaf, Some(f.key)),
                BodyNode::Map(_) => {
                    Setting::dynamic("", "the resource's `name` is an object", f.key, Some(f.key))
                }
            },
            None => Setting::dynamic("", "the resource has no `name`", at, None),
        };
        let mut def = ComputeDef::new(
            SourceKind::Terraform,
            display,
            at,
            format!("{label} (its inline ARM template)"),
            name,
        );
        def.idiom = crate::facts::idiom::Idiom::Azapi;
        iac::arm_compute_fields(&node, &mut def);
        notes.push(format!(
            "{label} deploys the ARM template written in its `template_content`"
        ));
        notes.dedup();
        def.notes = notes;
        out.push(def);
    }
    out
}

/// `v` with each ARM expression string in it (`"[parameters('vmSize')]"`) replaced by its
/// value: a parameter's is what the deployment passes (`given`), else its `defaultValue`
/// among the template's `declared` parameters; any other expression is unknown. Whether
/// `v` itself was one.
fn resolve(v: &mut Ev, given: &Given, declared: Option<&Ev>) -> bool {
    let changed = expression_value(v, given, declared).map(|x| *v = x).is_some();
    let mut stack: Vec<&mut Ev> = vec![v];
    while let Some(x) = stack.pop() {
        let items: Vec<&mut Ev> = match &mut x.v {
            V::List(items) => items.iter_mut().collect(),
            V::Map(entries) => entries.iter_mut().map(|(_, v)| v).collect(),
            _ => Vec::new(),
        };
        for item in items {
            match expression_value(item, given, declared) {
                Some(y) => *item = y,
                None => stack.push(item),
            }
        }
    }
    changed
}

/// The value of `v` when it is an ARM expression string (see [`resolve`]).
fn expression_value(v: &Ev, given: &Given, declared: Option<&Ev>) -> Option<Ev> {
    let s = v.known_str()?;
    let inner = s.strip_prefix('[').and_then(|r| r.strip_suffix(']'))?;
    if inner.starts_with('[') {
        return None;
    }
    let name = (inner.trim().strip_prefix("parameters("))
        .and_then(|r| r.strip_suffix(')'))
        .map(str::trim)
        .and_then(|r| r.strip_prefix('\'')?.strip_suffix('\''))
        .filter(|n| !n.contains('\''));
    let Some(name) = name else {
        return Some(Ev::unknown(format!(
            "`{}` is an ARM template expression, which amlint does not evaluate in a template written in Terraform",
            iac::one_line(&s)
        )));
    };
    if let Some(g) = given.get(&name.to_ascii_lowercase()) {
        return Some(g.clone());
    }
    let default = declared
        .and_then(|d| d.member(name, true))
        .and_then(|p| p.member("defaultValue", true));
    Some(match default {
        Some(d) => d.clone(),
        None => Ev::unknown(format!(
            "`parameters('{name}')` has no default value, and the resource does not pass it"
        )),
    })
}
