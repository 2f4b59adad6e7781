//! A pipeline's bindings: AML802 undeclared-parent-io (`${{parent.inputs.x}}` /
//! `${{parent.outputs.x}}` the pipeline does not declare), AML803 unknown-step-reference
//! (`${{parent.jobs.<step>.outputs.<out>}}` naming a step that does not exist, or an
//! output its known component does not declare), AML804 binding-cycle (a step fed by its
//! own output, or steps feeding each other in a loop).

use super::common::{did_you_mean, listing};
use super::model::{Field, FlowModel, Pipeline};
use super::scan::Binding;
use crate::diagnostic::{Diagnostic, Severity, codes};

pub fn check(model: &FlowModel<'_>, out: &mut Vec<Diagnostic>) {
    let Some(pipeline) = &model.pipeline else {
        return;
    };
    for b in &pipeline.top {
        reference(pipeline, b, Field::Other, out);
    }
    // The edges of the step graph: (from, to, binding), a step's input fed by another's.
    let mut edges: Vec<(usize, usize, &Binding)> = Vec::new();
    for (i, step) in pipeline.steps.iter().enumerate() {
        for (b, field) in &step.bindings {
            if let Some(from) = reference(pipeline, b, *field, out)
                && !step.control_flow
            {
                edges.push((from, i, b));
            }
        }
    }
    cycles(pipeline, &edges, out);
}

/// Checks one binding of a step (or of the pipeline itself, `step` None); returns the
/// index of the step it reads from, if any.
fn reference(pipeline: &Pipeline, b: &Binding, field: Field, out: &mut Vec<Diagnostic>) -> Option<usize> {
    let segments = b.segments();
    // In a step's `inputs`/`outputs`, `${{inputs.x}}` and `${{jobs.s...}}` are the legacy
    // spellings of `${{parent.inputs.x}}` and `${{parent.jobs.s...}}`.
    let rest: &[&str] = match segments.as_slice() {
        ["parent", rest @ ..] => rest,
        [first, ..] if field == Field::Io && matches!(*first, "inputs" | "outputs" | "jobs") => &segments,
        _ => return None,
    };
    match rest {
        [io @ ("inputs" | "outputs"), name, ..] => {
            parent_io(pipeline, b, io, name, field, out);
            None
        }
        ["jobs", target, more @ ..] => step_reference(pipeline, b, target, more, out),
        _ => None,
    }
}

fn parent_io(
    pipeline: &Pipeline,
    b: &Binding,
    io: &str,
    name: &str,
    field: Field,
    out: &mut Vec<Diagnostic>,
) {
    if !pipeline.interface.known {
        return;
    }
    let ports = if io == "inputs" {
        &pipeline.interface.inputs
    } else {
        &pipeline.interface.outputs
    };
    if ports.iter().any(|p| p.name == name) {
        return;
    }
    let what = &io[..io.len() - 1];
    let names = ports.iter().map(|p| p.name.as_str());
    let hint = did_you_mean(name, names.clone());
    let mut d = Diagnostic::new(
        codes::AML802,
        b.span,
        format!(
            "`${{{{{}}}}}` names no {what} of the pipeline{}",
            b.expr,
            hint.map_or_else(String::new, |h| format!("; did you mean `{h}`?"))
        ),
    )
    .with_help(format!(
        "Declare `{name}` under the pipeline's `{io}:` or bind one that is declared ({}). `az ml job create` refuses a step bound to an undeclared pipeline {what} (\"Failed to find top level definition for input binding\").",
        listing(names)
    ));
    if let Some(p) = hint.and_then(|h| ports.iter().find(|p| p.name == h)) {
        d = d.with_label(p.span, "declared here");
    }
    if field == Field::Other {
        // Outside a step's inputs and outputs (`compute`, `resources.instance_type`) the
        // SDK and the service leave an unresolved binding alone: the setting is dropped.
        d.severity = Severity::Warning;
        d.message.push_str(
            " (outside the step's inputs and outputs the binding is left unresolved and the setting ignored)",
        );
    }
    out.push(d);
}

/// `${{parent.jobs.<target>...}}`: the step must exist, and an output (or input) it names
/// must be declared when its component is known.
fn step_reference(
    pipeline: &Pipeline,
    b: &Binding,
    target: &str,
    more: &[&str],
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let Some(index) = pipeline.steps.iter().position(|s| s.name == target) else {
        let names = pipeline.steps.iter().map(|s| s.name.as_str());
        let hint = did_you_mean(target, names.clone());
        let mut d = Diagnostic::new(
            codes::AML803,
            b.span,
            format!(
                "`${{{{{}}}}}` names no step of this pipeline: there is no job `{target}`{}",
                b.expr,
                hint.map_or_else(String::new, |h| format!("; did you mean `{h}`?"))
            ),
        )
        .with_help(format!(
            "Bind to a step under `jobs:` ({}). `az ml job create` refuses a binding to a missing step (\"Failed to find referenced source for input binding\").",
            listing(names)
        ));
        if let Some(s) = hint.and_then(|h| pipeline.step(h)) {
            d = d.with_label(s.key_span, "this step");
        }
        out.push(d);
        return None;
    };
    let step = &pipeline.steps[index];
    if let ([io @ ("outputs" | "inputs"), name, ..], Some(interface)) = (more, step.outputs()) {
        let ports = if *io == "outputs" {
            &interface.outputs
        } else {
            &interface.inputs
        };
        if !ports.iter().any(|p| p.name == *name) {
            let what = &io[..io.len() - 1];
            let names = ports.iter().map(|p| p.name.as_str());
            let hint = did_you_mean(name, names.clone());
            let mut d = Diagnostic::new(
                codes::AML803,
                b.span,
                format!(
                    "`${{{{{}}}}}`: step `{target}` has no {what} `{name}`{}",
                    b.expr,
                    hint.map_or_else(String::new, |h| format!("; did you mean `{h}`?"))
                ),
            )
            .with_label(step.key_span, "this step")
            .with_help(format!(
                "Name one of the {io} step `{target}` declares ({}). A binding to a missing {what} is refused by `az ml job create` or fails when the pipeline is submitted.",
                listing(names)
            ));
            if let Some(p) = hint.and_then(|h| ports.iter().find(|p| p.name == h))
                && matches!(
                    step.component,
                    super::model::Component::SelfDeclared(_)
                        | super::model::Component::Known { file: None, .. }
                )
            {
                d = d.with_label(p.span, "declared here");
            }
            out.push(d);
        }
    }
    Some(index)
}

/// AML804: self-loops, and for each cycle of several steps (a strongly connected
/// component of the step graph, found iteratively: Tarjan's algorithm) one finding at the
/// first binding of the cycle in the file.
fn cycles(pipeline: &Pipeline, edges: &[(usize, usize, &Binding)], out: &mut Vec<Diagnostic>) {
    let n = pipeline.steps.len();
    for (from, to, b) in edges {
        if from == to {
            let name = &pipeline.steps[*to].name;
            out.push(
                Diagnostic::new(
                    codes::AML804,
                    b.span,
                    format!("step `{name}` is bound to its own output: `${{{{{}}}}}`", b.expr),
                )
                .with_help("A step cannot read what it writes: bind the input to another step's output or to a pipeline input. Azure ML refuses a pipeline whose steps form a cycle."),
            );
        }
    }
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (from, to, _) in edges {
        if from != to {
            next[*from].push(*to);
        }
    }
    let component = strongly_connected(&next);
    let mut reported = vec![false; n];
    for (from, to, b) in edges {
        if from == to || component[*from] != component[*to] || reported[component[*to]] {
            continue;
        }
        let c = component[*to];
        reported[c] = true;
        let members: Vec<&str> = (0..n)
            .filter(|i| component[*i] == c)
            .map(|i| pipeline.steps[i].name.as_str())
            .collect();
        out.push(
            Diagnostic::new(
                codes::AML804,
                b.span,
                format!(
                    "steps {} feed each other in a cycle (step `{}` reads `${{{{{}}}}}`)",
                    listing(members.iter().copied()),
                    pipeline.steps[*to].name,
                    b.expr
                ),
            )
            .with_help("A pipeline's steps must form a graph without cycles: break the loop by binding one of these inputs to a pipeline input or to a step outside the cycle (a `do_while` step repeats a body on purpose)."),
        );
    }
}

/// The strongly connected component of each node (Tarjan's algorithm, iterative).
fn strongly_connected(next: &[Vec<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = next.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut component = vec![NONE; n];
    let mut counter = 0;
    let mut components = 0;
    for start in 0..n {
        if index[start] != NONE {
            continue;
        }
        // (node, next edge to look at)
        let mut work: Vec<(usize, usize)> = vec![(start, 0)];
        index[start] = counter;
        low[start] = counter;
        counter += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = next[v].get(*i) {
                *i += 1;
                if index[w] == NONE {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn components_of_a_small_graph() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3
        let c = strongly_connected(&[vec![1], vec![2], vec![0, 3], vec![]]);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert_ne!(c[3], c[0]);
        // A long chain does not recurse.
        let n = 100_000;
        let chain: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let c = strongly_connected(&chain);
        assert_eq!(c.iter().collect::<std::collections::HashSet<_>>().len(), n);
    }
}
