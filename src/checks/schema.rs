//! AML101–AML105: schema validation of a classified document against its kind's schema
//! (`crate::schema`), one finding per problem, each on the exact key or value.

use super::context::DocContext;
use crate::diagnostic::{Applicability, Change, Diagnostic, Edit, Findings, Fix, codes};
use crate::document::yaml11::describe;
use crate::document::{BlockEnds, Document, Style, Target, Value};
use crate::schema::coerce::Normalize;
use crate::schema::cross_field;
use crate::schema::{Issue, IssueKind};
use crate::source::Pointer;
use crate::source::Span;

/// Every code this check reports.
pub const CODES: &[&str] = &[
    codes::AML101.code,
    codes::AML102.code,
    codes::AML103.code,
    codes::AML104.code,
    codes::AML105.code,
    codes::AML202.code,
];

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let Some(kind) = cx.class.kind else {
        return;
    };
    let Some(json) = cx.json() else {
        return;
    };
    let Some(issues) = crate::schema::validate(&kind.id, json) else {
        return;
    };
    // The shape did not settle the kind (a `type: command` file that could be a job or a
    // component): a document that is valid as the other kind gets no finding of this
    // one's schema ("prefer no finding to a wrong-kind error").
    if !issues.is_empty() {
        let also = cx.class.uncertain.as_ref().and_then(|u| u.also);
        if also.is_some_and(|a| crate::schema::validate(&a.id, json).is_some_and(|i| i.is_empty())) {
            return;
        }
    }
    let r = Render {
        doc: cx.doc,
        title: &kind.title,
    };
    let blocks = std::cell::OnceCell::new();
    for issue in &issues {
        let mut d = r.issue(issue);
        // A key the SDK refuses in this configuration (a runtime beside an `environment`):
        // removing it leaves what the documentation says the file means, and the SDK
        // accepts it.
        if let IssueKind::Forbidden { refused: Some(_), .. } = issue.kind
            && let Some(key) = issue.pointer.last()
        {
            let blocks = blocks.get_or_init(|| BlockEnds::new(&cx.source.text, [cx.doc]));
            if let Some(fix) = super::ignored_key::remove_fix(cx, blocks, &issue.pointer, key) {
                d = d.with_fix(fix);
            }
        }
        out.push(d);
    }
    if crate::kinds::table().families[kind.family].type_exact
        && !issues.iter().any(|i| i.pointer.segments().next() == Some("type"))
    {
        out.extend(type_case(cx.doc, &kind.title));
    }
    // Cross-field constraints only where the values involved passed the schema.
    for f in cross_field::check(&kind.id, json) {
        if issues.iter().any(|i| i.pointer == f.pointer) {
            continue;
        }
        // A finding about a whole mapping (a traffic sum) sits on its key.
        let on_key = matches!(r.node_at(&f.pointer), Some(Value::Map(_) | Value::Seq(_)));
        let span = if on_key {
            cx.doc.span_of(&f.pointer, Target::Key)
        } else {
            r.value_span(&f.pointer)
        };
        let mut d = Diagnostic::new(f.code, span, f.message)
            .with_pointer(f.pointer.clone())
            .with_help(f.help);
        if let Some((p, label)) = f.related {
            d = d.with_label(r.value_span(&p), label);
        }
        out.push(d);
    }
}

/// AML101 for each option of an `az ml compute create` that the compute's type does not
/// have (`ComputeDef::refused`: `--min-instances` on a compute instance), at the option,
/// in the CLI's words: the CLI turns its options into the keys of the compute's YAML and
/// loads it with the type's schema, which refuses the key as a YAML file's ("Unknown
/// field"). `title` is the kind's (`compute instance`).
pub fn refused_options(
    def: &crate::facts::computes::ComputeDef,
    title: &str,
    source: &crate::source::SourceFile,
) -> Vec<Diagnostic> {
    use crate::escape::control;
    let a = article(title);
    let ty = def
        .get("type")
        .map(|t| match (&def.from_file, t.inherited, t.key) {
            (Some(file), true, _) => format!(
                " (`type: {}` in `{}`)",
                control(&t.text().unwrap_or_default()),
                control(file)
            ),
            (_, _, Some(key)) => format!(
                " (`{} {}`)",
                control(source.slice(key)),
                control(&crate::facts::sources::iac::one_line(&t.written))
            ),
            _ => String::new(),
        });
    def.refused
        .iter()
        .filter_map(|(path, s)| {
            let key = s.key?;
            let opt = source.slice(key);
            let (option, what) = if opt == "--set" {
                (format!("`--set {path}`"), "a key")
            } else {
                (format!("`{}`", control(opt)), "an option")
            };
            let field = path.rsplit('.').next().unwrap_or(path);
            let pointer = path.split('.').fold(Pointer::root(), |p, k| p.child(k));
            Some(
                Diagnostic::new(
                    codes::AML101,
                    key,
                    format!(
                        "{option} is not {what} of {a} {title}{}; the CLI refuses it: the {title}'s schema has no `{path}` (\"{field}: Unknown field\")",
                        ty.as_deref().unwrap_or_default()
                    ),
                )
                .with_pointer(pointer)
                .with_help(format!(
                    "Remove {option} and its value. `az ml compute create` turns its options into the keys of the compute's YAML and loads it with the {title}'s schema, which rejects keys it does not have, as in a compute YAML file: the command fails and creates nothing."
                )),
            )
        })
        .collect()
}

/// AML101 for each keyword argument an Azure ML Python SDK call that defines a compute
/// does not take (`ComputeDef::refused_keywords`): `AmlCompute(vm_size=...)` (SDK v1's
/// name in azure-ai-ml's class), `AmlCompute.provisioning_configuration(size=...)` (the
/// v2 name in azureml-core's). Python raises `TypeError` when the call runs: the script
/// stops there and the compute is not created. At the keyword.
pub fn refused_keywords(def: &crate::facts::computes::ComputeDef) -> Vec<Diagnostic> {
    use crate::escape::control;
    def.refused_keywords
        .iter()
        .map(|r| {
            let (kw, callee) = (control(&r.keyword), control(&r.callee));
            let (what, sdk) = if r.v1 {
                ("a parameter", "SDK v1, azureml-core")
            } else {
                ("a keyword argument", "the v2 SDK, azure-ai-ml")
            };
            let mut message = format!(
                "`{kw}` is not {what} of `{callee}` ({sdk}): Python raises `TypeError` when the call runs, and the compute is not created"
            );
            let other = if r.v1 {
                "the v2 SDK's (azure-ai-ml)"
            } else {
                "SDK v1's (`provisioning_configuration`)"
            };
            let stops = "as written, the script stops at this call";
            let help = match r.suggestion.as_deref().map(control) {
                Some(s) => {
                    message.push_str(&format!("; did you mean `{s}`?"));
                    match &*s {
                        "network_settings" => format!(
                            "Pass the virtual network as `network_settings=NetworkSettings(vnet_name=..., subnet=...)` instead of `{kw}`, which is {other} keyword; {stops}."
                        ),
                        "tier" => format!(
                            "Rename `{kw}` to `tier`, which takes `\"dedicated\"` or `\"low_priority\"`: `{kw}` is {other} keyword; {stops}."
                        ),
                        "vm_priority" => format!(
                            "Rename `{kw}` to `vm_priority`, which takes `\"dedicated\"` or `\"lowpriority\"`: `{kw}` is {other} keyword; {stops}."
                        ),
                        _ if crate::suggest::closest(&r.keyword, [&*s]).is_some() => {
                            format!("Correct the keyword's name to `{s}`; {stops}.")
                        }
                        _ => format!("Rename `{kw}` to `{s}`: `{kw}` is {other} name of the setting; {stops}."),
                    }
                }
                None => format!(
                    "Remove `{kw}`: `{callee}` has no such {}; {stops}.",
                    if r.v1 { "parameter" } else { "keyword argument" }
                ),
            };
            Diagnostic::new(codes::AML101, r.span, message).with_help(help)
        })
        .collect()
}

/// AML103 for each value that an option of `az ml compute create` (or a parameter of a
/// template call that passes it on) gives to a key whose values the compute's schema
/// holds to a list (`x-amlint-enum`): `--tier LowPriority`, which the schema's `tier`
/// refuses as it refuses `tier: LowPriority` in a compute YAML. At the value, in the CLI's
/// words. Only the CLI's: Terraform, Bicep, ARM and the SDK write the REST API's or the
/// SDK's own values (`vm_priority = "LowPriority"` is right there). The type is not asked:
/// it chose the schema (`type`), and the CLI's spellings of it are its own.
pub fn refused_values(
    def: &crate::facts::computes::ComputeDef,
    kind: &crate::kinds::Kind,
    source: &crate::source::SourceFile,
) -> Vec<Diagnostic> {
    use crate::escape::control;
    use crate::facts::computes::Scalar;
    use crate::facts::idiom::Idiom;
    use crate::schema::store::{EnumSpec, store};
    if !matches!(def.idiom, Idiom::Cli | Idiom::Template) {
        return Vec::new();
    }
    let Some(properties) = store().kind_doc(&kind.id).and_then(|d| d.get("properties")) else {
        return Vec::new();
    };
    def.fields
        .iter()
        .filter(|(path, s)| path != "type" && !s.inherited)
        .filter_map(|(path, s)| {
            let key = s.key?;
            let Some(Scalar::Str(value)) = &s.value else {
                return None;
            };
            let spec = EnumSpec::from_schema(properties.get(path)?.get("x-amlint-enum")?)?;
            if spec.accepts(&serde_json::Value::String(value.clone())) {
                return None;
            }
            let option = control(source.slice(key));
            let list = code_list(&spec.values, 30);
            let closest = crate::suggest::closest(value, spec.values.iter())
                .map(|c| format!("Did you mean `{c}`? "))
                .unwrap_or_default();
            let title = &kind.title;
            Some(
                Diagnostic::new(
                    codes::AML103,
                    s.span,
                    format!(
                        "`{}` is not an allowed value of `{option}`: it must be one of {list}; the CLI refuses it, as the {title}'s schema refuses `{path}: {}` in a YAML file",
                        control(value),
                        control(value)
                    ),
                )
                .with_pointer(Pointer::root().child(path))
                .with_help(format!(
                    "{closest}`az ml compute create` turns its options into the keys of the compute's YAML and loads it with the {title}'s schema, which compares this value after normalising it ({}): the command fails and creates nothing.",
                    spec.normalize.describe()
                )),
            )
        })
        .collect()
}

/// AML101 for each option written in an `az ml compute create|attach` (CLI v2) that the
/// command does not have (`ComputeDef::unknown_options`: `--sizee`): the CLI's parser
/// stops with "unrecognized arguments" before anything is created. At the option, with
/// the closest option the command has.
pub fn unknown_options(def: &crate::facts::computes::ComputeDef) -> Vec<Diagnostic> {
    use crate::escape::control;
    def.unknown_options
        .iter()
        .map(|u| {
            let (opt, command) = (control(&u.option), control(&u.command));
            let mut message =
                format!("`{opt}` is not an option of `{command}`: the CLI refuses the command (\"unrecognized arguments: {opt}\") and creates nothing");
            let help = match u.suggestion.as_deref().map(control) {
                Some(s) => {
                    message.push_str(&format!("; did you mean `{s}`?"));
                    format!("Correct the option's name to `{s}`. `az {} --help` lists the options the command has.", command.trim_start_matches("az "))
                }
                None => format!(
                    "Remove `{opt}` and its value, or correct it to an option the command has: `az {} --help` lists them.",
                    command.trim_start_matches("az ")
                ),
            };
            Diagnostic::new(codes::AML101, u.span, message).with_help(help)
        })
        .collect()
}

/// The option of a setting as an `az ml compute create` writes it: `--max-instances`, or
/// `--set max_instances` for a `--set path=value`.
fn option_of(source: &crate::source::SourceFile, key: Span, path: &str) -> String {
    use crate::escape::control;
    let opt = source.slice(key);
    if opt == "--set" {
        format!("--set {path}")
    } else {
        control(opt).into_owned()
    }
}

/// What the values an `az ml compute create` (CLI v2) gives as its options (or `--set`)
/// are refused for by the compute's schema, as the same values in a compute YAML are:
/// AML102 for a value of an integer field that is not an integer (`--max-instances abc`,
/// `--min-instances 1.5`: the CLI passes the text, which the schema loads with Python's
/// `int()`), AML105 for `--min-instances` greater than `--max-instances` (compute
/// clusters). Only values known statically and given by the command itself (not by the
/// `--file` YAML, which reports its own); at the value.
pub fn refused_option_values(
    def: &crate::facts::computes::ComputeDef,
    kind: &crate::kinds::Kind,
    source: &crate::source::SourceFile,
) -> Vec<Diagnostic> {
    use crate::escape::control;
    use crate::facts::computes::{Scalar, SourceKind};
    use crate::schema::coerce::python_int;
    use crate::schema::store::store;
    if def.source != SourceKind::AzCli || def.command != "az ml compute create" {
        return Vec::new();
    }
    let Some(properties) = store().kind_doc(&kind.id).and_then(|d| d.get("properties")) else {
        return Vec::new();
    };
    let title = &kind.title;
    let mut out = Vec::new();
    let own = |path: &str| def.get(path).filter(|s| !s.inherited && s.key.is_some());
    for (path, s) in &def.fields {
        if s.inherited {
            continue;
        }
        let Some(key) = s.key else {
            continue;
        };
        let integer = properties
            .get(path.as_str())
            .and_then(|p| p.get("x-amlint-type"))
            .and_then(|t| t.as_str())
            == Some("integer");
        let Some(Scalar::Str(value)) = &s.value else {
            continue;
        };
        if !integer || python_int(value).is_some() {
            continue;
        }
        let option = option_of(source, key, path);
        out.push(
            Diagnostic::new(
                codes::AML102,
                s.span,
                format!(
                    "`{option}` must be an integer (a whole number), but is `{}`; the CLI refuses it, as the {title}'s schema refuses `{path}: {}` in a YAML file (\"Not a valid integer\")",
                    control(value),
                    control(value)
                ),
            )
            .with_pointer(Pointer::root().child(path))
            .with_help(format!(
                "Write a whole number here. `az ml compute create` turns its options into the keys of the compute's YAML and loads it with the {title}'s schema: the command fails and creates nothing."
            )),
        );
    }
    if kind.id == "amlCompute"
        && let (Some(lo), Some(hi)) = (own("min_instances"), own("max_instances"))
        && let (Some(Scalar::Int(l)), Some(Scalar::Int(h))) = (&lo.value, &hi.value)
        && l > h
        && let (Some(lk), Some(hk)) = (lo.key, hi.key)
    {
        let (min, max) = (
            option_of(source, lk, "min_instances"),
            option_of(source, hk, "max_instances"),
        );
        out.push(
            Diagnostic::new(
                codes::AML105,
                lo.span,
                format!(
                    "`{min}` ({l}) is greater than `{max}` ({h}): the service refuses a range whose minimum exceeds its maximum, as for `min_instances` and `max_instances` in a YAML file"
                ),
            )
            .with_pointer(Pointer::root().child("min_instances"))
            .with_label(hi.span, format!("`{max}` is {h}"))
            .with_help(format!(
                "Lower `{min}` or raise `{max}` so that the minimum number of nodes is at most the maximum."
            )),
        );
    }
    out
}

/// `type: Command` in a family whose `type:` the CLI compares exactly (jobs): AML103 on
/// the value, with the lower-case value as the fix.
fn type_case(doc: &Document, title: &str) -> Option<Diagnostic> {
    let node = doc.get(doc.root?, "type")?;
    let Value::Str(written) = doc.value(node) else {
        return None;
    };
    let lower = written.to_lowercase();
    if **written == *lower {
        return None;
    }
    let span = doc.node(node).span;
    let mut d = Diagnostic::new(
        codes::AML103,
        span,
        format!("`type: {written}` is not a type the Azure ML CLI dispatches: it compares `type` exactly, in lower case; did you mean `{lower}`?"),
    )
    .with_pointer(Pointer::root().child("type"))
    .with_help(format!(
        "Write `type: {lower}`. `az ml job create` rejects this file (\"Unsupported job type: {written}\"), though the {title}'s own schema would accept the value."
    ));
    let at = Pointer::root().child("type");
    if doc.node(node).style == Style::Plain && doc.lookup_own(&at).is_some_and(|f| f.value == node) {
        // The only type it can be: the CLI rejects the file as written.
        d = d.with_fix(Fix::set_value(
            Applicability::Safe,
            format!("Write `{lower}`"),
            span,
            lower.clone(),
            at,
        ));
    }
    Some(d)
}

struct Render<'a> {
    doc: &'a Document,
    title: &'a str,
}

fn article(title: &str) -> &'static str {
    match title.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

/// "an integer", "a mapping" ...: JSON Schema type names as YAML users say them.
fn type_phrase(t: &str) -> String {
    match t {
        "object" => "a mapping".into(),
        "array" => "a list".into(),
        "string" => "a string".into(),
        "integer" => "an integer".into(),
        "number" => "a number".into(),
        "boolean" => "a boolean (true or false)".into(),
        "null" => "empty (null)".into(),
        other => format!("a {other}"),
    }
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn code_list(items: &[String], max: usize) -> String {
    let shown: Vec<String> = items.iter().take(max).map(|s| format!("`{s}`")).collect();
    let mut s = shown.join(", ");
    if items.len() > max {
        s.push_str(&format!(", … ({} in all)", items.len()));
    }
    s
}

/// Known `pattern`s, in words.
fn pattern_words(pattern: &str) -> Option<&'static str> {
    Some(match pattern {
        "^[a-z][a-z0-9_]*$" => {
            "lower-case letters, digits and underscores, starting with a letter (no hyphens)"
        }
        "^[a-z_][a-z0-9_]*$" => "lower-case letters, digits and underscores, not starting with a digit",
        "^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$" => {
            "letters, digits and hyphens, starting with a letter and ending with a letter or digit"
        }
        "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$" => {
            "at most 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit"
        }
        "^\\$\\{\\{parent\\.outputs\\.(.*?)\\}\\}$" => {
            "a binding to a pipeline output: `${{parent.outputs.<name>}}`"
        }
        "^git\\+" => "a git URL starting with `git+`",
        "^azureml:" => "a reference starting with `azureml:`",
        _ if pattern.starts_with("^(?:[fF][tT][pP]") => "an http(s) or ftp(s) URL",
        _ if pattern.starts_with("^/[sS][uU][bB]") => {
            "an Azure resource ID (`/subscriptions/<subscription-id>/resourceGroups/<group>/providers/...`)"
        }
        _ if pattern.contains("Microsoft.ContainerRegistry") => "an Azure Container Registry resource ID",
        _ => return None,
    })
}

impl Render<'_> {
    fn value_span(&self, p: &Pointer) -> Span {
        self.doc.span_of(p, Target::Value)
    }

    fn node_at(&self, p: &Pointer) -> Option<&Value> {
        self.doc.lookup(p).map(|l| self.doc.value(l.value))
    }

    /// "`instance_count`", "item 2 of `inputs`", or "a managed online deployment".
    fn subject(&self, p: &Pointer) -> String {
        let segs: Vec<&str> = p.segments().collect();
        match segs.as_slice() {
            [] => format!("{} {}", article(self.title), self.title),
            [.., parent, last] if last.parse::<usize>().is_ok() && self.is_seq_item(p) => {
                format!("item {last} of `{parent}`")
            }
            [.., last] => format!("`{last}`"),
        }
    }

    fn is_seq_item(&self, p: &Pointer) -> bool {
        let mut parent = p.clone();
        parent.pop();
        matches!(self.node_at(&parent), Some(Value::Seq(_)))
    }

    /// Where a missing key is reported: the mapping's key, or the start of the document.
    fn missing_span(&self, p: &Pointer) -> Span {
        if p.is_empty() {
            if let Some(first) = self.doc.root.map(|r| self.doc.entries(r)).and_then(|e| e.first()) {
                return self.doc.node(first.key).span;
            }
            return Span::at(self.doc.span.start);
        }
        self.doc.span_of(p, Target::Key)
    }

    fn found(&self, p: &Pointer) -> String {
        self.node_at(p).map_or_else(|| "missing".to_string(), describe)
    }

    fn issue(&self, issue: &Issue) -> Diagnostic {
        let p = &issue.pointer;
        match &issue.kind {
            IssueKind::UnknownKey {
                key,
                allowed,
                missing,
            } => self.unknown_key(p, key, allowed, missing.as_deref()),
            IssueKind::MissingKey { key } => self.missing_key(p, key),
            IssueKind::WrongType { expected } => {
                let phrases: Vec<String> = expected.iter().map(|t| type_phrase(t)).collect();
                Diagnostic::new(
                    codes::AML102,
                    self.value_span(p),
                    format!(
                        "{} must be {}, but is {}",
                        capitalize(&self.subject(p)),
                        join_or(&phrases),
                        self.found(p)
                    ),
                )
                .with_pointer(p.clone())
                .with_help(self.type_help(p, expected))
            }
            IssueKind::NotCoercible { to } => self.not_coercible(p, *to),
            IssueKind::NotAllowed { allowed, normalize } => self.not_allowed(p, allowed, *normalize),
            IssueKind::NotConst { expected } => Diagnostic::new(
                codes::AML103,
                self.value_span(p),
                format!(
                    "{} must be `{expected}`, but is {}",
                    capitalize(&self.subject(p)),
                    self.found(p)
                ),
            )
            .with_pointer(p.clone())
            .with_help(format!("Write `{expected}`, or remove the key.")),
            IssueKind::Pattern { pattern, forms } => self.pattern(p, pattern, forms.as_ref()),
            IssueKind::BadKeyName { key, pattern } => {
                let child = p.child(key.as_str());
                let words =
                    pattern_words(pattern).map_or_else(|| format!("the pattern `{pattern}`"), str::to_string);
                Diagnostic::new(
                    codes::AML103,
                    self.doc.span_of(&child, Target::Key),
                    format!(
                        "`{key}` is not a valid name here: names under {} must be {words}",
                        self.subject(p)
                    ),
                )
                .with_pointer(child)
                .with_help("Rename it; the Azure ML SDK rejects the name when it loads the file.")
            }
            IssueKind::OutOfRange { bounds } => self.out_of_range(p, bounds),
            IssueKind::Size { what, limit } => self.size(p, what, *limit),
            IssueKind::DuplicateItem => self.duplicate_item(p),
            IssueKind::Forbidden {
                refused: Some(refused),
                ..
            } => Diagnostic::new(
                codes::AML103,
                self.doc.span_of(p, Target::Key),
                format!("{} {}", capitalize(&self.subject(p)), refused.message),
            )
            .with_pointer(p.clone())
            .with_help(refused.help.clone()),
            IssueKind::Forbidden { schema, .. } => self.forbidden(p, schema),
            IssueKind::NothingAllowed => Diagnostic::new(
                codes::AML103,
                self.doc.span_of(p, Target::Key),
                format!("{} is not accepted here", capitalize(&self.subject(p))),
            )
            .with_pointer(p.clone())
            .with_help("Remove it."),
        }
    }

    /// AML104: the required `key` is missing under `p`.
    fn missing_key(&self, p: &Pointer, key: &str) -> Diagnostic {
        let message = if p.is_empty() {
            format!(
                "{} {} is missing the required key `{key}`",
                article(self.title),
                self.title
            )
        } else {
            format!("{} is missing the required key `{key}`", self.subject(p))
        };
        Diagnostic::new(codes::AML104, self.missing_span(p), capitalize(&message))
            .with_pointer(p.clone())
            .with_help(format!(
                "Add `{key}:` here; the Azure ML CLI rejects the file without it (\"Missing data for required field\")."
            ))
    }

    /// AML105: the number at `p` is beyond its `bounds`.
    fn out_of_range(&self, p: &Pointer, bounds: &[(&str, f64)]) -> Diagnostic {
        let rules: Vec<String> = bounds
            .iter()
            .map(|(k, v)| {
                let v = fmt_num(*v);
                match *k {
                    "minimum" => format!("at least {v}"),
                    "maximum" => format!("at most {v}"),
                    "exclusiveMinimum" => format!("greater than {v}"),
                    _ => format!("less than {v}"),
                }
            })
            .collect();
        let rule = rules.join(" and ");
        Diagnostic::new(
            codes::AML105,
            self.value_span(p),
            format!(
                "{} is {}; it must be {rule}",
                capitalize(&self.subject(p)),
                self.found(p)
            ),
        )
        .with_pointer(p.clone())
        .with_help(format!("Use a value that is {rule}."))
    }

    /// AML103: the string or list at `p` is too short or too long.
    fn size(&self, p: &Pointer, what: &str, limit: u64) -> Diagnostic {
        let rule = match what {
            "minLength" => format!("at least {limit} characters long"),
            "maxLength" => format!("at most {limit} characters long"),
            "minItems" => format!("a list of at least {limit} items"),
            _ => format!("a list of at most {limit} items"),
        };
        Diagnostic::new(
            codes::AML103,
            self.value_span(p),
            format!("{} must be {rule}", capitalize(&self.subject(p))),
        )
        .with_pointer(p.clone())
        .with_help(format!("Change it to be {rule}."))
    }

    /// AML103: the item at `p` repeats an earlier one of its list.
    fn duplicate_item(&self, p: &Pointer) -> Diagnostic {
        let mut list = p.clone();
        list.pop();
        let shown = match self.node_at(p) {
            Some(Value::Str(s)) => format!("`{s}`"),
            Some(v) => describe(v),
            None => "an item".to_string(),
        };
        Diagnostic::new(
            codes::AML103,
            self.value_span(p),
            format!("{shown} appears more than once in {}", self.subject(&list)),
        )
        .with_pointer(p.clone())
        .with_help("Remove the duplicate; the Azure ML SDK rejects repeated entries here.")
    }

    /// AML102: the value at `p` does not read as the type the SDK converts it to.
    fn not_coercible(&self, p: &Pointer, to: crate::schema::coerce::Coercion) -> Diagnostic {
        let want = match to.name() {
            "integer" => "an integer (a whole number, or a string of digits)",
            "number" => "a number (or a string that reads as one)",
            _ => "a boolean (`true`/`false`; the SDK also reads `yes`/`no`, `1`/`0`)",
        };
        Diagnostic::new(
            codes::AML102,
            self.value_span(p),
            format!(
                "{} must be {want}, but is {}",
                capitalize(&self.subject(p)),
                self.found(p)
            ),
        )
        .with_pointer(p.clone())
        .with_help(format!("Write {} here.", type_phrase(to.name())))
    }

    /// `missing`: the required key `key` misspells, reported here instead of on its own.
    fn unknown_key(&self, p: &Pointer, key: &str, allowed: &[String], missing: Option<&str>) -> Diagnostic {
        let child = p.child(key);
        let span = self.doc.span_of(&child, Target::Key);
        let mut candidates: Vec<String> = allowed.iter().filter(|k| *k != "$schema").cloned().collect();
        candidates.sort();
        let mut closest = crate::suggest::closest(key, candidates.iter()).map(str::to_string);
        let owner = if p.is_empty() {
            format!("{} {}", article(self.title), self.title)
        } else {
            self.subject(p)
        };
        let mut message = format!("`{key}` is not a key of {owner}");
        // The key it resembles is already set: renaming would make a duplicate (AML002).
        let taken = closest
            .as_ref()
            .is_some_and(|c| self.doc.lookup(&p.child(c.as_str())).is_some());
        if taken {
            let c = closest.take().unwrap_or_default();
            message.push_str(&format!(", and `{c}`, which it resembles, is already set"));
            let d = Diagnostic::new(codes::AML101, span, message)
                .with_pointer(child.clone())
                .with_help(format!(
                    "Remove it, or merge it into `{c}`. The Azure ML CLI rejects keys it does not know (\"Unknown field\")."
                ));
            return d;
        }
        // A pipeline job's keys in a file without `type` (audit 18): the CLI read it as a
        // command job.
        if p.is_empty()
            && matches!(key, "jobs" | "settings")
            && self.title == "command job"
            && self.doc.lookup(&p.child("type")).is_none()
        {
            message.push_str(
                "; a file without `type` is a command job: is this a pipeline job without `type: pipeline`?",
            );
            return Diagnostic::new(codes::AML101, span, message)
                .with_pointer(child)
                .with_help(
                    "Add `type: pipeline` at the top: `az ml job create` reads a file without `type` as a command job, which has no `jobs` or `settings` (\"Unknown field\").",
                );
        }
        let help = match &closest {
            Some(c) if missing == Some(c.as_str()) => {
                message.push_str(&format!("; did you mean `{c}`, which is required?"));
                format!(
                    "Rename it to `{c}`. The Azure ML CLI rejects the file without `{c}` (\"Missing data for required field\")."
                )
            }
            Some(c) => {
                message.push_str(&format!("; did you mean `{c}`?"));
                format!(
                    "Rename it to `{c}`. The Azure ML CLI rejects keys it does not know (\"Unknown field\")."
                )
            }
            None if candidates.is_empty() => {
                "Remove it; the Azure ML CLI rejects keys it does not know.".to_string()
            }
            None => format!(
                "Remove it, or use one of the keys {owner} takes: {}.",
                code_list(&candidates, 20)
            ),
        };
        let mut d = Diagnostic::new(codes::AML101, span, message)
            .with_pointer(child.clone())
            .with_help(help);
        // Not a key a `<<` merge key brings in, nor one an alias repeats: renaming it
        // would edit the mapping it comes from.
        // Every place the key is written (a repeated key renamed only where the CLI reads
        // it would bring the earlier value back).
        if let (Some(c), Some(keys)) = (closest, self.doc.written_keys(&child)) {
            let plain = keys.iter().all(|k| self.doc.node(*k).style == Style::Plain);
            if plain && keys.last().is_some_and(|k| self.doc.node(*k).span == span) {
                // One edit away and no other key as close: a typo; else a guess.
                let applicability = if crate::suggest::is_unambiguous_typo(key, &c, candidates.iter()) {
                    Applicability::Safe
                } else {
                    Applicability::Unsafe
                };
                let title = format!("Rename `{key}` to `{c}`");
                let edits = keys
                    .iter()
                    .map(|k| Edit {
                        span: self.doc.node(*k).span,
                        replacement: c.clone(),
                    })
                    .collect();
                let rename = Change::Rename {
                    at: child.clone(),
                    to: c.clone(),
                };
                d = d.with_fix(Fix::new(applicability, title, edits).changing(rename));
            }
        }
        d
    }

    fn type_help(&self, p: &Pointer, expected: &[String]) -> String {
        let found = self.node_at(p);
        match (found, expected.first().map(String::as_str)) {
            (Some(Value::Str(s)), Some("object")) if s.contains('=') => {
                "This is one string, not a mapping: write each setting as `key: value` on its own indented line."
                    .to_string()
            }
            (Some(Value::Seq(_)), Some("string")) => "Write a single value instead of a list.".to_string(),
            (Some(Value::Timestamp(_)), Some("string")) => {
                "YAML reads this as a date: quote it to keep it a string.".to_string()
            }
            (Some(Value::Int(_) | Value::Float(_) | Value::Bool(_)), Some("string")) => {
                "Quote the value to make it a string.".to_string()
            }
            _ => {
                let phrases: Vec<String> = expected.iter().map(|t| type_phrase(t)).collect();
                format!("Change the value to {}.", join_or(&phrases))
            }
        }
    }

    fn not_allowed(&self, p: &Pointer, allowed: &[String], normalize: Option<Normalize>) -> Diagnostic {
        let found = self.node_at(p);
        let list = code_list(allowed, 30);
        let message = match found {
            Some(Value::Str(s)) => format!(
                "`{s}` is not an allowed value of {}: it must be one of {list}",
                self.subject(p)
            ),
            Some(v) => format!(
                "{} must be one of {list}, but is {}",
                capitalize(&self.subject(p)),
                describe(v)
            ),
            None => format!("{} must be one of {list}", capitalize(&self.subject(p))),
        };
        let mut help = match found {
            Some(Value::Str(s)) => match crate::suggest::closest(s, allowed.iter()) {
                Some(c) => format!("Did you mean `{c}`? "),
                None => String::new(),
            },
            _ => String::new(),
        };
        if let Some(n) = normalize {
            help.push_str(&format!(
                "The Azure ML SDK compares this value after normalising it ({}).",
                n.describe()
            ));
        } else {
            help.push_str("Use one of the listed values.");
        }
        Diagnostic::new(codes::AML103, self.value_span(p), message)
            .with_pointer(p.clone())
            .with_help(help.trim().to_string())
    }

    fn pattern(&self, p: &Pointer, pattern: &str, forms: Option<&serde_json::Value>) -> Diagnostic {
        let text = match self.node_at(p) {
            Some(Value::Str(s)) => s.to_string(),
            Some(v) => crate::document::yaml11::python_str(v),
            None => String::new(),
        };
        let asset = forms.and_then(|f| {
            f.as_array()?.iter().find_map(|form| {
                let kind = form.get("form")?.as_str()?;
                matches!(kind, "arm" | "arm-versioned" | "registry").then(|| {
                    form.get("asset")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or("asset")
                        .to_string()
                })
            })
        });
        if let Some(asset) = asset {
            let what = crate::schema::forms::asset_singular(&asset);
            let parsed: Vec<crate::schema::forms::Form> = forms
                .and_then(serde_json::Value::as_array)
                .map(|a| a.iter().filter_map(crate::schema::forms::Form::parse).collect())
                .unwrap_or_default();
            let accepted = crate::schema::forms::describe_accepted(&parsed);
            return Diagnostic::new(
                codes::AML202,
                self.value_span(p),
                format!(
                    "`{text}` is not {} {what} reference: {} takes {accepted}",
                    article(what),
                    self.subject(p)
                ),
            )
            .with_pointer(p.clone())
            .with_help(format!(
                "Write `azureml:{text}` if `{text}` names a registered {what}; the Azure ML CLI does not add the prefix for you."
            ));
        }
        let words = pattern_words(pattern)
            .map_or_else(|| format!("match the pattern `{pattern}`"), |w| format!("be {w}"));
        Diagnostic::new(
            codes::AML103,
            self.value_span(p),
            format!(
                "`{text}` is not a valid value of {}: it must {words}",
                self.subject(p)
            ),
        )
        .with_pointer(p.clone())
        .with_help("Change the value; the Azure ML SDK checks this format when it loads the file.")
    }

    fn forbidden(&self, p: &Pointer, schema: &serde_json::Value) -> Diagnostic {
        let both: Vec<String> = schema
            .get("required")
            .and_then(serde_json::Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        if both.len() >= 2 {
            let last = p.child(both[both.len() - 1].as_str());
            let keys: Vec<String> = both.iter().map(|k| format!("`{k}`")).collect();
            return Diagnostic::new(
                codes::AML103,
                self.doc.span_of(&last, Target::Key),
                format!("{} cannot be set together", join_and(&keys)),
            )
            .with_pointer(last)
            .with_help("Keep only one of them.");
        }
        Diagnostic::new(
            codes::AML103,
            self.doc.span_of(p, Target::Key),
            format!(
                "The Azure ML SDK rejects any value of {} (azure-ai-ml cannot load it)",
                self.subject(p)
            ),
        )
        .with_pointer(p.clone())
        .with_help("Remove it; the SDK raises an error whatever it holds.")
    }
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) if first.is_ascii_lowercase() => first.to_ascii_uppercase().to_string() + c.as_str(),
        Some(first) => first.to_string() + c.as_str(),
        None => String::new(),
    }
}

fn fmt_num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}
