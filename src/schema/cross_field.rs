//! AML105 constraints that a JSON Schema cannot state: relations between fields, and
//! limits that the SDK checks in code (`@validates`) or the service documents. They run
//! on the document's JSON view after schema validation, only on values that load (a value
//! of the wrong type is AML102's finding, not this one's).
//!
//! | kind | constraint | enforced by |
//! |---|---|---|
//! | online endpoints | `traffic` values 0–100 and their sum ≤ 100 | SDK `validate_traffic` (sum), service |
//! | online endpoints | `mirror_traffic`: one deployment, ≤ 50 % | service (documented in the SDK field) |
//! | online deployments | `data_collector.sampling_rate` in 0.0–1.0 | SDK `validate_sampling_rate` |
//! | managed online deployments | `request_settings.request_timeout_ms` 1–180000 | service (documented maximum) |
//! | online deployments | probe `initial_delay`, `period`, `timeout`, `success_threshold`, `failure_threshold` ≥ 1 | service (documented minimum) |
//! | compute clusters, K8s `target_utilization` scaling | `min_instances` ≤ `max_instances` | service |
//! | v1 deployment config | `autoScaler.minReplicas` ≤ `maxReplicas`; `cpuLimit` ≥ `cpu`; `memoryInGBLimit` ≥ `memoryInGB` | azureml-core `validate_configuration` |
//! | v1 inference config | `entryScript` names a `.py` file whose name is an importable module (AML103) | azureml-core `InferenceConfig.validate_configuration`, `validate_entry_script_name` |
//! | jobs (and pipeline steps) | a service's `nodes` is `all` or absent (AML103) | SDK `JobService._validate_nodes` |
//! | components | an `integer`/`number`/`boolean` input's `default` parses as its type (AML102) | SDK `Input._update_default` |

use serde_json::Value;

use super::coerce::{Coercion, coerce, python_float};
use crate::diagnostic::{RuleId, codes};
use crate::source::Pointer;

/// One cross-field finding: where, what, and (optionally) the other field involved.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// AML105 (out of range), or AML103 for a value the SDK refuses in code.
    pub code: RuleId,
    pub pointer: Pointer,
    pub message: String,
    pub help: String,
    pub related: Option<(Pointer, String)>,
}

fn at(root: &Value, path: &[&str]) -> Option<f64> {
    let mut v = root;
    for seg in path {
        v = v.get(*seg)?;
    }
    coerce(Coercion::Number, v).and_then(|c| c.number())
}

fn ptr(path: &[&str]) -> Pointer {
    Pointer::from_segments(path.iter().copied())
}

fn fmt(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Runs the constraints that apply to `kind` on the JSON view `root`.
pub fn check(kind: &str, root: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    match kind {
        "managedOnlineEndpoint" | "kubernetesOnlineEndpoint" => traffic(root, &mut out),
        "managedOnlineDeployment" | "kubernetesOnlineDeployment" => {
            deployment(root, kind == "managedOnlineDeployment", &mut out);
        }
        "amlCompute" => min_max(root, &[], "min_instances", "max_instances", "nodes", &mut out),
        k if k.ends_with("Job") => job_services(root, &mut out),
        k if k.ends_with("Component") => input_defaults(root, &mut out),
        "v1.deploymentConfig" => v1(root, &mut out),
        "v1.inferenceConfig" => entry_script(root, &mut out),
        _ => {}
    }
    out
}

/// A job service's `nodes` must be `all` or absent (`JobService._validate_nodes`: "nodes
/// should be either 'all' or None"), in the job's `services` and in each pipeline step's.
fn job_services(root: &Value, out: &mut Vec<Finding>) {
    let mut places: Vec<(Vec<String>, &Value)> = Vec::new();
    if let Some(s) = root.get("services") {
        places.push((vec!["services".into()], s));
    }
    if let Some(Value::Object(jobs)) = root.get("jobs") {
        for (name, step) in jobs {
            if let Some(s) = step.get("services") {
                places.push((vec!["jobs".into(), name.clone(), "services".into()], s));
            }
        }
    }
    for (path, services) in places {
        let Value::Object(services) = services else {
            continue;
        };
        for (name, service) in services {
            match service.get("nodes") {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) if s == "all" => {}
                Some(v) if v.as_str().is_some_and(|s| s.contains("${{")) => {}
                Some(v) => {
                    let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    let mut p = path.clone();
                    p.push(name.clone());
                    p.push("nodes".into());
                    out.push(Finding {
                        code: codes::AML103,
                        pointer: Pointer::from_segments(p),
                        message: format!("`nodes: {shown}` is not allowed for service `{name}`: the SDK takes only `all` (or no `nodes`)"),
                        help: "Write `nodes: all` to run the service on every node, or remove `nodes` to run it on the first node only. The CLI rejects other values (\"nodes should be either 'all' or None\").".into(),
                        related: None,
                    });
                }
            }
        }
    }
}

/// A component input's `default` must load as the input's primitive type
/// (`Input._update_default`: a value of another type is parsed the way the SDK parses a
/// command-line value, and refused when that fails: "Default value of Input 'x' cannot be
/// parsed").
fn input_defaults(root: &Value, out: &mut Vec<Finding>) {
    let Some(Value::Object(inputs)) = root.get("inputs") else {
        return;
    };
    for (name, input) in inputs {
        let (Some(Value::String(ty)), Some(default)) = (input.get("type"), input.get("default")) else {
            continue;
        };
        let ty = ty.to_lowercase();
        if default.is_null() || default.as_str().is_some_and(|s| s.contains("${{")) {
            continue;
        }
        let ok = match (ty.as_str(), default) {
            (_, Value::Array(_) | Value::Object(_)) => {
                !matches!(ty.as_str(), "integer" | "number" | "boolean" | "string")
            }
            // int(float(s)): finite only.
            ("integer", Value::String(s)) => python_float(s).is_some_and(f64::is_finite),
            ("number", Value::String(s)) => python_float(s).is_some(),
            // str(value).lower() must be "true" or "false".
            ("boolean", Value::Bool(_)) => true,
            ("boolean", Value::String(s)) => matches!(s.to_lowercase().as_str(), "true" | "false"),
            ("boolean", _) => false,
            _ => true,
        };
        if !ok {
            let shown = default
                .as_str()
                .map_or_else(|| default.to_string(), str::to_string);
            out.push(Finding {
                code: codes::AML102,
                pointer: ptr(&["inputs", name, "default"]),
                message: format!("the default `{shown}` of input `{name}` is not a valid {ty}: the Azure ML CLI cannot parse it (\"Default value of Input '{name}' cannot be parsed\")"),
                help: match ty.as_str() {
                    "boolean" => "Write `true` or `false`.".to_string(),
                    "integer" => "Write a whole number, e.g. `10`.".to_string(),
                    "number" => "Write a number, e.g. `0.01`.".to_string(),
                    _ => format!("Write a single {ty} value."),
                },
                related: None,
            });
        }
    }
}

fn traffic(root: &Value, out: &mut Vec<Finding>) {
    if let Some(Value::Object(map)) = root.get("traffic") {
        let mut sum = 0.0;
        let mut all_numbers = true;
        for (name, v) in map {
            match coerce(Coercion::Integer, v).and_then(|c| c.number()) {
                Some(n) if !(0.0..=100.0).contains(&n) => out.push(Finding {
                    code: codes::AML105,
                    pointer: ptr(&["traffic", name]),
                    message: format!("traffic for deployment `{name}` is {}%, outside 0–100%", fmt(n)),
                    help: "Give each deployment a percentage between 0 and 100.".into(),
                    related: None,
                }),
                Some(n) => sum += n,
                None => all_numbers = false,
            }
        }
        if all_numbers && sum > 100.0 {
            out.push(Finding {
                code: codes::AML105,
                pointer: ptr(&["traffic"]),
                message: format!(
                    "the traffic percentages sum to {}%; the Azure ML SDK rejects a sum above 100%",
                    fmt(sum)
                ),
                help: "Lower the percentages so that they add up to 100 (or less).".into(),
                related: None,
            });
        }
    }
    if let Some(Value::Object(map)) = root.get("mirror_traffic") {
        if map.len() > 1 {
            out.push(Finding {
                code: codes::AML105,
                pointer: ptr(&["mirror_traffic"]),
                message: format!(
                    "`mirror_traffic` names {} deployments; Azure ML mirrors traffic to one deployment only",
                    map.len()
                ),
                help: "Keep a single deployment under `mirror_traffic`.".into(),
                related: None,
            });
        }
        for (name, v) in map {
            if let Some(n) = coerce(Coercion::Integer, v).and_then(|c| c.number()) {
                if !(0.0..=50.0).contains(&n) {
                    out.push(Finding {
                        code: codes::AML105,
                        pointer: ptr(&["mirror_traffic", name]),
                        message: format!(
                            "mirror traffic for `{name}` is {}%; Azure ML allows 0–50%",
                            fmt(n)
                        ),
                        help: "Mirror at most 50% of the live traffic.".into(),
                        related: None,
                    });
                }
            }
        }
    }
}

fn deployment(root: &Value, managed: bool, out: &mut Vec<Finding>) {
    if let Some(n) = at(root, &["data_collector", "sampling_rate"]) {
        if !(0.0..=1.0).contains(&n) {
            out.push(Finding {
                code: codes::AML105,
                pointer: ptr(&["data_collector", "sampling_rate"]),
                message: format!(
                    "`sampling_rate` is {}; the Azure ML SDK requires a fraction between 0.0 and 1.0",
                    fmt(n)
                ),
                help: "Write the share of requests to collect as a fraction, e.g. `0.25` for 25%.".into(),
                related: None,
            });
        }
    }
    if managed {
        if let Some(n) = at(root, &["request_settings", "request_timeout_ms"]) {
            if !(1.0..=180_000.0).contains(&n) {
                out.push(Finding {
                    code: codes::AML105,
                    pointer: ptr(&["request_settings", "request_timeout_ms"]),
                    message: format!(
                        "`request_timeout_ms` is {}; managed online endpoints allow 1 to 180000 ms (3 minutes)",
                        fmt(n)
                    ),
                    help: "Use a timeout of at most 180000 ms; move longer work to a batch endpoint."
                        .into(),
                    related: None,
                });
            }
        }
    }
    for probe in ["liveness_probe", "readiness_probe"] {
        for field in [
            "initial_delay",
            "period",
            "timeout",
            "success_threshold",
            "failure_threshold",
        ] {
            if let Some(n) = at(root, &[probe, field]) {
                if n < 1.0 {
                    out.push(Finding {
                        code: codes::AML105,
                        pointer: ptr(&[probe, field]),
                        message: format!("`{probe}.{field}` is {}; Azure ML requires at least 1", fmt(n)),
                        help: format!("Set `{field}` to 1 or more (or remove it to use the default)."),
                        related: None,
                    });
                }
            }
        }
    }
    let scale = root.get("scale_settings");
    let target = scale
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        .and_then(|t| super::coerce::Normalize::CamelToSnake.apply(t))
        .is_some_and(|t| t == "target_utilization");
    if target {
        min_max(
            root,
            &["scale_settings"],
            "min_instances",
            "max_instances",
            "instances",
            out,
        );
    }
}

/// `min` must not exceed `max` (both under `parent`).
fn min_max(root: &Value, parent: &[&str], min: &str, max: &str, what: &str, out: &mut Vec<Finding>) {
    let mut min_path: Vec<&str> = parent.to_vec();
    min_path.push(min);
    let mut max_path: Vec<&str> = parent.to_vec();
    max_path.push(max);
    if let (Some(lo), Some(hi)) = (at(root, &min_path), at(root, &max_path)) {
        if lo > hi {
            out.push(Finding {
                code: codes::AML105,
                pointer: ptr(&min_path),
                message: format!(
                    "`{min}` ({}) is greater than `{max}` ({}): the service refuses a range whose minimum exceeds its maximum",
                    fmt(lo),
                    fmt(hi)
                ),
                help: format!("Lower `{min}` or raise `{max}` so that the minimum number of {what} is at most the maximum."),
                related: Some((ptr(&max_path), format!("`{max}` is {}", fmt(hi)))),
            });
        }
    }
}

fn v1(root: &Value, out: &mut Vec<Finding>) {
    min_max(
        root,
        &["autoScaler"],
        "minReplicas",
        "maxReplicas",
        "replicas",
        out,
    );
    for (request, limit, what) in [
        ("cpu", "cpuLimit", "CPU cores"),
        ("memoryInGB", "memoryInGBLimit", "memory"),
    ] {
        let base = ["containerResourceRequirements"];
        let rp = [base[0], request];
        let lp = [base[0], limit];
        if let (Some(r), Some(l)) = (at(root, &rp), at(root, &lp)) {
            if l < r {
                out.push(Finding {
                    code: codes::AML105,
                    pointer: ptr(&lp),
                    message: format!(
                        "`{limit}` ({}) is below `{request}` ({}): a container's {what} limit cannot be lower than its request",
                        fmt(l),
                        fmt(r)
                    ),
                    help: format!("Raise `{limit}` to at least `{request}`, or remove it."),
                    related: Some((ptr(&rp), format!("`{request}` is {}", fmt(r)))),
                });
            }
        }
    }
}

/// Python's `keyword.kwlist` (the same from Python 3.7 to 3.13; soft keywords such as
/// `match` are not in it, and `iskeyword` does not refuse them).
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
    "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Python's `str.isidentifier`: an XID_Start character or `_`, then XID_Continue ones.
fn is_python_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || unicode_ident::is_xid_start(c))
        && chars.all(unicode_ident::is_xid_continue)
}

/// `os.path.splitext` of a file name: the extension is from the last `.`, unless only
/// dots come before it (`.py` has none).
fn split_ext(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(i) if name[..i].bytes().any(|b| b != b'.') => (&name[..i], &name[i..]),
        _ => (name, ""),
    }
}

/// The module name as an identifier: each character that cannot be in one becomes `_`,
/// a leading digit gets `_` before it, a keyword `_` after it (PEP 8).
fn identifier_form(stem: &str) -> String {
    let mut out: String = stem
        .chars()
        .map(|c| if unicode_ident::is_xid_continue(c) { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c == '_' || unicode_ident::is_xid_start(c)) {
        out.insert(0, '_');
    }
    if PYTHON_KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// The SDK v1 entry script (`InferenceConfig.validate_configuration`, after the path is
/// found): `os.path.splitext(os.path.basename(entry_script))` must have the extension
/// `.py` ("Invalid driver type. Currently only Python drivers are supported."), and the
/// name before it must be an identifier that is not a keyword (`validate_entry_script_name`:
/// the script "must be importable as a valid python module"). Only a string is checked
/// (a missing one is AML104, another type AML102). The base name is taken after the last
/// `/` or `\`: the SDK's `os.path` is the platform's, and on Windows both separate
/// folders (`src\score.py` is refused only on Linux, where the path does not exist either).
fn entry_script(root: &Value, out: &mut Vec<Finding>) {
    let Some(Value::String(script)) = root.get("entryScript") else {
        return;
    };
    let cut = script.rfind(['/', '\\']).map_or(0, |i| i + 1);
    let (folder, name) = script.split_at(cut);
    let (stem, ext) = split_ext(name);
    let pointer = ptr(&["entryScript"]);
    if script.is_empty() {
        out.push(Finding {
            code: codes::AML103,
            pointer,
            message: "`entryScript` is empty: SDK v1 needs the scoring script to deploy (azureml-core: \"Error, need to specify entry_script.\")".into(),
            help: "Write the path of the Python scoring script (with `init()` and `run()`), e.g. `score.py`.".into(),
            related: None,
        });
        return;
    }
    if ext != ".py" {
        out.push(Finding {
            code: codes::AML103,
            pointer,
            message: format!(
                "`entryScript: {script}` is not a `.py` file: SDK v1 supports only Python entry scripts (azureml-core: \"Invalid driver type. Currently only Python drivers are supported.\")"
            ),
            help: "Name the Python scoring script (with `init()` and `run()`) here, its file name ending in `.py` (lower case); other languages cannot be deployed with SDK v1.".into(),
            related: None,
        });
        return;
    }
    if is_python_identifier(stem) && !PYTHON_KEYWORDS.contains(&stem) {
        return;
    }
    let fixed = format!("{folder}{}.py", identifier_form(stem));
    let why = if PYTHON_KEYWORDS.contains(&stem) {
        "is a Python keyword"
    } else {
        "is not a Python identifier"
    };
    out.push(Finding {
        code: codes::AML103,
        pointer,
        message: format!(
            "`entryScript: {script}` cannot be imported: its module name `{stem}` {why}, and SDK v1 imports the entry script as a module (azureml-core: \"must be a valid python identifier and not a part of the set of python standard keywords\")"
        ),
        help: format!("Rename the file to `{fixed}` (letters, digits and `_`, not starting with a digit) and write that name here."),
        related: None,
    });
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pointers(kind: &str, v: Value) -> Vec<String> {
        check(kind, &v).iter().map(|f| f.pointer.to_string()).collect()
    }

    #[test]
    fn constraints() {
        assert_eq!(
            pointers("managedOnlineEndpoint", json!({"traffic": {"a": 60, "b": "50"}})),
            ["/traffic"]
        );
        assert!(pointers("managedOnlineEndpoint", json!({"traffic": {"a": 60, "b": 40}})).is_empty());
        assert_eq!(
            pointers("managedOnlineEndpoint", json!({"mirror_traffic": {"a": 60}})),
            ["/mirror_traffic/a"]
        );
        assert_eq!(
            pointers("amlCompute", json!({"min_instances": 3, "max_instances": "2"})),
            ["/min_instances"]
        );
        assert!(pointers("amlCompute", json!({"min_instances": 0, "max_instances": "many"})).is_empty());
        assert_eq!(
            pointers(
                "kubernetesOnlineDeployment",
                json!({"scale_settings": {"type": "TargetUtilization", "min_instances": 5, "max_instances": 2}})
            ),
            ["/scale_settings/min_instances"]
        );
        assert_eq!(
            pointers(
                "managedOnlineDeployment",
                json!({"request_settings": {"request_timeout_ms": 300000}, "liveness_probe": {"period": 0},
                       "data_collector": {"sampling_rate": 5}})
            ),
            [
                "/data_collector/sampling_rate",
                "/request_settings/request_timeout_ms",
                "/liveness_probe/period"
            ]
        );
        assert_eq!(
            pointers(
                "v1.deploymentConfig",
                json!({"autoScaler": {"minReplicas": 4, "maxReplicas": 2},
                       "containerResourceRequirements": {"cpu": 2, "cpuLimit": 1}})
            ),
            [
                "/autoScaler/minReplicas",
                "/containerResourceRequirements/cpuLimit"
            ]
        );
    }
}
