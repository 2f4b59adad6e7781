//! A step against its component's interface (inline, or a local component file the
//! project holds): AML805 undeclared-step-io (an input or output the component does not
//! declare), AML806 missing-required-input (a required component input the step does not
//! give), AML810 input-literal-type (a literal of the wrong type for a primitive input,
//! read with YAML 1.1 semantics, or a number or boolean given to a data or model input),
//! AML811 binding-type-mismatch (a primitive input bound to a data or model output, or to a
//! data or model input of the pipeline).

use super::common::{did_you_mean, listing};
use super::model::{Component, FlowModel, Pipeline, Step};
use crate::diagnostic::{Diagnostic, codes};
use crate::document::{Document, NodeId, Value};
use crate::facts::interface::{Interface, Port, kept};
use crate::schema::coerce::{boolean_str, python_float, python_int};

pub fn check(model: &FlowModel<'_>, out: &mut Vec<Diagnostic>) {
    let Some(pipeline) = &model.pipeline else {
        return;
    };
    for step in &pipeline.steps {
        if let Component::Known { interface, file } = &step.component
            && interface.known
        {
            wiring(model, pipeline, step, interface, file.as_deref(), out);
        }
    }
}

fn wiring(
    model: &FlowModel<'_>,
    pipeline: &Pipeline,
    step: &Step,
    interface: &Interface,
    file: Option<&str>,
    out: &mut Vec<Diagnostic>,
) {
    let doc = model.cx.doc;
    // A sweep step's component is its trial, whose required inputs the search space may
    // give (the SDK's `Sweep._is_input_set`).
    let trial = doc.get(step.node, "trial").is_some();
    let role = if trial { "trial" } else { "component" };
    let where_ = file.map_or_else(|| format!("its inline {role}"), |f| format!("its {role} `{f}`"));
    let mut given: std::collections::HashSet<String> = std::collections::HashSet::new();
    if trial && let Some(space) = doc.get(step.node, "search_space") {
        given.extend(kept(doc, space).into_iter().map(|(name, _, _)| name));
    }
    for (io, ports) in [("inputs", &interface.inputs), ("outputs", &interface.outputs)] {
        let Some(map) = doc.get(step.node, io) else {
            continue;
        };
        for (name, key, value) in kept(doc, map) {
            let key_span = doc.node(key).span;
            if io == "inputs" && !matches!(doc.value(value), Value::Null) {
                given.insert(name.to_string());
            }
            let what = &io[..io.len() - 1];
            match ports.iter().find(|p| p.name == name) {
                None => {
                    let names = ports.iter().map(|p| p.name.as_str());
                    let hint = did_you_mean(&name, names.clone());
                    let mut d = Diagnostic::new(
                        codes::AML805,
                        key_span,
                        format!(
                            "step `{}` gives {what} `{name}`, which {where_} does not declare{}",
                            step.name,
                            hint.map_or_else(String::new, |h| format!("; did you mean `{h}`?"))
                        ),
                    )
                    .with_label(step.key_span, "this step")
                    .with_help(format!(
                        "The component declares these {io}: {}. Azure ML drops a value given to an {what} the component does not have: correct the name, or remove it.",
                        listing(names)
                    ));
                    if file.is_none()
                        && let Some(p) = hint.and_then(|h| ports.iter().find(|p| p.name == h))
                    {
                        d = d.with_label(p.span, "declared here");
                    }
                    out.push(d);
                }
                Some(port) if io == "inputs" => {
                    literal_type(model, step, port, value, out);
                    binding_type(model, pipeline, step, port, value, file.is_none(), out);
                }
                Some(_) => {}
            }
        }
    }
    let missing: Vec<&Port> = interface
        .inputs
        .iter()
        .filter(|p| p.required() && !given.contains(&p.name))
        .collect();
    if missing.is_empty() {
        return;
    }
    let at = doc
        .get_entry(step.node, "inputs")
        .map_or(step.key_span, |e| doc.node(e.key).span);
    let names = listing(missing.iter().map(|p| p.name.as_str()));
    let mut d = Diagnostic::new(
        codes::AML806,
        at,
        format!(
            "step `{}` does not give the required input{} {names} of {where_}",
            step.name,
            if missing.len() == 1 { "" } else { "s" },
        ),
    )
    .with_help("Give each required input under the step's `inputs:` (a value, or a binding such as `${{parent.inputs.x}}`), or declare it `optional: true` or with a `default:` in the component. `az ml job create` refuses the pipeline (\"Required input ... not provided\").");
    if file.is_none() {
        for p in &missing {
            d = d.with_label(p.span, "required here");
        }
    }
    out.push(d);
}

/// An AML810 finding on the literal `value`: `what` and how the value reads, with the help
/// `help` gives (told whether the value is a boolean, which YAML 1.1 makes of `on`/`yes`).
fn wrong_literal(doc: &Document, value: NodeId, what: String, help: impl Fn(bool) -> String) -> Diagnostic {
    let v = doc.value(value);
    let shown = crate::document::yaml11::describe(v);
    Diagnostic::new(codes::AML810, doc.node(value).span, format!("{what} {shown}"))
        .with_help(help(matches!(v, Value::Bool(_))))
}

/// AML810: a literal given to an `integer`, `number` or `boolean` input that the type
/// cannot hold (YAML 1.1 values: `on` is a boolean, `1e3` a string).
fn literal_type(model: &FlowModel<'_>, step: &Step, port: &Port, value: NodeId, out: &mut Vec<Diagnostic>) {
    let doc = model.cx.doc;
    let v = doc.value(value);
    if let Some(ty) = port.asset() {
        // The SDK takes a data or model input's string as its path, and refuses any other
        // scalar ("only path input is supported now"): `az ml job create` fails.
        if matches!(
            v,
            Value::Int(_) | Value::BigInt(_) | Value::Float(_) | Value::Bool(_)
        ) {
            out.push(wrong_literal(
                doc,
                value,
                format!("input `{}` of step `{}` is a `{ty}`, but is given", port.name, step.name),
                |yaml11| format!(
                    "Give a `{ty}` input a path (`azureml:name:version`, `./data`, `azureml://datastores/...`) or a binding such as `${{{{parent.inputs.x}}}}`. `az ml job create` refuses any other value (\"only path input is supported now\"){}.",
                    if yaml11 {
                        "; YAML 1.1, which the Azure ML CLI reads, takes unquoted `yes`, `no`, `on` and `off` as booleans"
                    } else {
                        ""
                    }
                ),
            ));
        }
        return;
    }
    let Some(ty) = port.primitive() else {
        return;
    };
    let fits = match (ty, v) {
        (_, Value::Str(s)) if s.contains("${{") => true,
        (_, Value::Null | Value::Map(_) | Value::Seq(_) | Value::Alias(_)) => true,
        ("string", _) => true,
        ("integer", Value::Int(_) | Value::BigInt(_)) => true,
        ("integer", Value::Float(f)) => f.fract() == 0.0,
        ("integer", Value::Str(s)) => python_int(s).is_some(),
        ("number", Value::Int(_) | Value::BigInt(_) | Value::Float(_)) => true,
        ("number", Value::Str(s)) => python_float(s).is_some(),
        ("boolean", Value::Bool(_)) => true,
        ("boolean", Value::Str(s)) => boolean_str(s).is_some(),
        ("boolean", Value::Int(i)) => *i == 0 || *i == 1,
        _ => false,
    };
    if fits {
        return;
    }
    out.push(wrong_literal(
        doc,
        value,
        format!("input `{}` of step `{}` is declared `{ty}`, but is given", port.name, step.name),
        |yaml11| format!(
            "Give a {ty} value{}. Azure ML converts a literal to the input's type when the pipeline runs, and fails on one it cannot convert.",
            if yaml11 {
                " (YAML 1.1, which the Azure ML CLI reads, takes unquoted `yes`, `no`, `on` and `off` as booleans)"
            } else {
                ""
            }
        ),
    ));
}

/// AML811: a primitive input (`integer`, `number`, `boolean`, `string`) whose value is a
/// binding to a data or model output of a step, or to a data or model input of the
/// pipeline: a value input fed with a path.
fn binding_type(
    model: &FlowModel<'_>,
    pipeline: &Pipeline,
    step: &Step,
    port: &Port,
    value: NodeId,
    inline: bool,
    out: &mut Vec<Diagnostic>,
) {
    let Some(ty) = port.primitive() else {
        return;
    };
    let doc = model.cx.doc;
    // The input's value is one binding: the whole string, or the `path:` of a mapping (a
    // binding inside a longer string is an expression, whose type is the string's).
    let node = match doc.value(value) {
        Value::Map(_) => match doc.get(value, "path") {
            Some(p) => p,
            None => return,
        },
        _ => value,
    };
    let Value::Str(text) = doc.value(node) else {
        return;
    };
    let [b] = model.of(node) else {
        return;
    };
    let text = text.trim();
    if !(text.starts_with("${{") && text.ends_with("}}") && text.matches("${{").count() == 1) {
        return;
    }
    let segments = b.segments();
    // `${{inputs.x}}` / `${{jobs.s...}}` in a step's inputs are the legacy spellings of
    // the parent forms.
    let rest: &[&str] = match segments.as_slice() {
        ["parent", rest @ ..] => rest,
        all => all,
    };
    let (source, label_here, default, what) = match rest {
        ["jobs", target, "outputs", name] => {
            let Some(source) = pipeline.step(target) else {
                return;
            };
            let Some(port) = source.outputs().and_then(|i| i.output(name)) else {
                return;
            };
            let here = matches!(
                source.component,
                Component::SelfDeclared(_) | Component::Known { file: None, .. }
            );
            // An inline command step's output without a `type:` is a `uri_folder` (the
            // SDK's default for `Output`).
            let command_step = matches!(source.component, Component::SelfDeclared(_))
                && doc
                    .get(source.node, "type")
                    .is_none_or(|t| matches!(doc.value(t), Value::Str(s) if &**s == "command"));
            let default = (command_step && port.ptype.is_none()).then_some("uri_folder");
            (port, here, default, format!("output `{name}` of step `{target}`"))
        }
        ["inputs", name] => {
            let Some(port) = pipeline.interface.input(name) else {
                return;
            };
            (port, true, None, format!("pipeline input `{name}`"))
        }
        _ => return,
    };
    let Some(source_type) = source.asset().or(default) else {
        return;
    };
    let mut d = Diagnostic::new(
        codes::AML811,
        b.span,
        format!(
            "input `{}` of step `{}` is declared `{ty}`, but is bound to {what}, a `{source_type}`",
            port.name, step.name
        ),
    )
    .with_help(format!(
        "A data or model {} is a path, not a value: it cannot feed a primitive input (the SDK's own words for a loop: \"Non-primitive type output cannot be connected to a primitive type input\"). Declare input `{}` with `type: {source_type}` and read the path in the command, or give it a literal or a pipeline input of type `{ty}`.",
        if what.starts_with("output") { "output" } else { "input" },
        port.name
    ));
    if label_here {
        d = d.with_label(source.span, format!("declared `{source_type}` here"));
    }
    if inline {
        d = d.with_label(port.span, format!("declared `{ty}` here"));
    }
    out.push(d);
}
