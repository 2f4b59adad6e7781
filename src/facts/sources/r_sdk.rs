//! azuremlsdk, the Azure ML SDK for R, in R scripts (`.R`) and R Markdown (`.Rmd`: its
//! `{r}` chunks; everything else is blanked, offsets kept). Definitions (azuremlsdk 1.10,
//! `R/compute.R`): `create_aml_compute(workspace, cluster_name, vm_size, vm_priority,
//! min_nodes, max_nodes, idle_seconds_before_scaledown, …, vnet_name, subnet_name, …)`,
//! `create_aks_compute(workspace, cluster_name, agent_count, vm_size, …, location, …,
//! cluster_purpose)` and `attach_aks_compute(workspace, resource_group, cluster_name)`,
//! also as `azuremlsdk::create_aml_compute(…)`. Each hands its arguments to azureml-core's
//! `<Class>.provisioning_configuration` (or `attach_configuration`), so the settings are
//! SDK v1's, spelled as R writes them (`vm_size = "STANDARD_NC6"`, idiom `r`).
//!
//! Arguments are matched as R matches them: by exact name, then by position to the
//! parameters left. R is parsed with r-lib's tree-sitter grammar (at most [`MAX_BYTES`] of
//! code; a longer file that names a function is reported, not read). Values come from
//! literals (strings, numbers, `TRUE`/`FALSE`; `NULL` is an argument not given) and from
//! the nearest assignment (`<-`, `=`, `<<-`, `->`) before the call, in the function around
//! the call or at the top level; a parameter of the function around the call is given by
//! its caller, and anything else (`paste0(…)`, `Sys.getenv(…)`) is not known, with why. A
//! value through a variable is reported where the call uses it, labelled at its literal.
//! Suppressions are R's `#` comments.

use super::common::{Definitions, Input, Reader, hash_code_lines, own_line, preorder, type_setting};
use super::iac::{self, As, Ev};
use crate::facts::computes::{ComputeDef, Setting, SourceKind};
use crate::facts::idiom::Idiom;
use crate::source::Span;
use tree_sitter::Node;

pub const READER: Reader = Reader {
    name: "r-sdk",
    wants,
    needles: NEEDLES,
    defines: NEEDLES,
    read,
};

/// The functions of azuremlsdk that create or attach a compute.
const NEEDLES: &[&str] = &["create_aml_compute", "create_aks_compute", "attach_aks_compute"];

/// The most bytes of R code parsed (tree-sitter's tree costs about 200 bytes a token).
pub const MAX_BYTES: usize = 1 << 20;

/// How many names assigned from names are followed to a literal.
const MAX_DEPTH: usize = 16;

/// How many definitions one file makes.
const MAX_CALLS: usize = 256;

fn wants(name: &str) -> bool {
    name.ends_with(".r") || name.ends_with(".rmd")
}

/// One function of azuremlsdk: its parameters in order, the compute type it makes, and
/// the parameters read as settings (parameter, YAML path, how it is read).
struct Function {
    name: &'static str,
    params: &'static [&'static str],
    ctype: &'static str,
    /// The parameter that names the compute.
    named_by: &'static str,
    fields: &'static [(&'static str, &'static str, As)],
    /// What it calls in azureml-core, for people.
    command: &'static str,
}

const FUNCTIONS: &[Function] = &[
    Function {
        name: "create_aml_compute",
        params: &[
            "workspace",
            "cluster_name",
            "vm_size",
            "vm_priority",
            "min_nodes",
            "max_nodes",
            "idle_seconds_before_scaledown",
            "admin_username",
            "admin_user_password",
            "admin_user_ssh_key",
            "vnet_resourcegroup_name",
            "vnet_name",
            "subnet_name",
            "tags",
            "description",
        ],
        ctype: "amlcompute",
        named_by: "cluster_name",
        fields: &[
            ("vm_size", "size", As::Text),
            ("vm_priority", "tier", As::Tier),
            ("min_nodes", "min_instances", As::Count),
            ("max_nodes", "max_instances", As::Count),
            (
                "idle_seconds_before_scaledown",
                "idle_time_before_scale_down",
                As::Count,
            ),
            ("vnet_name", "network_settings.vnet_name", As::Text),
            ("subnet_name", "network_settings.subnet", As::Text),
        ],
        command: "create_aml_compute(...)",
    },
    Function {
        name: "create_aks_compute",
        params: &[
            "workspace",
            "cluster_name",
            "agent_count",
            "vm_size",
            "ssl_cname",
            "ssl_cert_pem_file",
            "ssl_key_pem_file",
            "location",
            "vnet_resourcegroup_name",
            "vnet_name",
            "subnet_name",
            "service_cidr",
            "dns_service_ip",
            "docker_bridge_cidr",
            "cluster_purpose",
        ],
        ctype: "aks",
        named_by: "cluster_name",
        fields: &[
            ("agent_count", "agent_count", As::Count),
            ("vm_size", "size", As::Text),
            ("location", "location", As::Text),
            ("vnet_name", "network_settings.vnet_name", As::Text),
            ("subnet_name", "network_settings.subnet", As::Text),
            ("cluster_purpose", "cluster_purpose", As::Text),
        ],
        command: "create_aks_compute(...)",
    },
    Function {
        name: "attach_aks_compute",
        params: &["workspace", "resource_group", "cluster_name", "cluster_purpose"],
        ctype: "aks",
        named_by: "cluster_name",
        fields: &[("cluster_purpose", "cluster_purpose", As::Text)],
        command: "attach_aks_compute(...)",
    },
];

fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = input.source.text.as_str();
    let code = if input.file_name().ends_with(".rmd") {
        rmd_chunks(text)
    } else {
        text.to_string()
    };
    if !super::common::mentions(code.as_bytes(), NEEDLES) {
        return;
    }
    if code.len() > MAX_BYTES {
        out.unread = Some(format!(
            "it has more than {} KiB of R code, the most the R SDK reader parses",
            MAX_BYTES / 1024
        ));
        return;
    }
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_r::LANGUAGE.into()).is_err() {
        return;
    }
    let Some(tree) = parser.parse(&code, None) else {
        return;
    };
    let r = Script::new(&code, tree.root_node());
    let display = input.source.path.as_str();
    for &(call, f) in r.calls.iter().take(MAX_CALLS) {
        out.computes.push(r.definition(call, f, display));
    }
    // Suppressions: the comments, and where code stands (the lines a comment may cover).
    let raw: Vec<(Span, bool)> = (r.comments.iter())
        .map(|c| (span(*c), own_line(&code, c.start_byte())))
        .collect();
    let lines: Vec<u32> = hash_code_lines(&code).into_iter().map(|p| p as u32).collect();
    out.comments.extend(iac::comments(input.source, &raw, &lines));
}

/// An R Markdown file's R code: its `{r}` chunks in place, every other byte but line
/// breaks a space (offsets and lines stay those of the file).
fn rmd_chunks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let fence = t.starts_with("```");
        let keep = if !inside && fence {
            // ```{r}, ```{r label, echo=FALSE}, ```{R}
            let info = t.trim_start_matches('`').trim_start();
            let rest = info.strip_prefix("{r").or_else(|| info.strip_prefix("{R"));
            inside = rest.is_some_and(|r| r.starts_with([' ', ',', '}']));
            false
        } else if inside && fence && t.trim_start_matches('`').trim().is_empty() {
            inside = false;
            false
        } else {
            inside
        };
        if keep {
            out.push_str(line);
        } else {
            // One space a byte: offsets stay.
            out.extend(line.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }));
        }
    }
    out
}

fn span(n: Node<'_>) -> Span {
    Span::new(n.start_byte() as u32, n.end_byte() as u32)
}

/// A function definition: where its body is, and its parameters.
struct Scope<'t> {
    start: usize,
    end: usize,
    params: Vec<&'t str>,
}

/// An assignment `name <- value`: where the statement starts, the name's function scope
/// (index into `scopes`, innermost), and the value.
struct Assign<'t> {
    at: usize,
    name: &'t str,
    scope: Option<usize>,
    value: Node<'t>,
}

/// One R file's calls of the functions, assignments, function scopes and comments, found
/// in one walk of the tree.
struct Script<'t> {
    src: &'t str,
    calls: Vec<(Node<'t>, &'static Function)>,
    assigns: Vec<Assign<'t>>,
    scopes: Vec<Scope<'t>>,
    comments: Vec<Node<'t>>,
}

impl<'t> Script<'t> {
    fn new(src: &'t str, root: Node<'t>) -> Self {
        let mut r = Script {
            src,
            calls: Vec::new(),
            assigns: Vec::new(),
            scopes: Vec::new(),
            comments: Vec::new(),
        };
        preorder(root, |n| {
            match n.kind() {
                "comment" => r.comments.push(n),
                "call" => {
                    if let Some(f) = n.child_by_field_name("function").and_then(|f| r.function(f)) {
                        r.calls.push((n, f));
                    }
                }
                "function_definition" => {
                    let params = (n.child_by_field_name("parameters").into_iter())
                        .flat_map(|p| named_children(p).into_iter())
                        .filter_map(|p| p.child_by_field_name("name"))
                        .map(|name| r.text(name))
                        .collect();
                    r.scopes.push(Scope {
                        start: n.start_byte(),
                        end: n.end_byte(),
                        params,
                    });
                }
                "binary_operator" => r.assignment(n),
                _ => {}
            }
            true
        });
        r
    }

    fn text(&self, n: Node<'_>) -> &'t str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    /// The azuremlsdk function a call's `function` names (`create_aml_compute`,
    /// `azuremlsdk::create_aml_compute`).
    fn function(&self, f: Node<'_>) -> Option<&'static Function> {
        let name = match f.kind() {
            "identifier" => self.text(f),
            "namespace_operator" => {
                let lhs = f.child_by_field_name("lhs").map(|l| self.text(l));
                if lhs != Some("azuremlsdk") {
                    return None;
                }
                self.text(f.child_by_field_name("rhs")?)
            }
            _ => return None,
        };
        FUNCTIONS.iter().find(|x| x.name == name)
    }

    /// Records `name <- value`, `name = value`, `name <<- value` and `value -> name`.
    fn assignment(&mut self, n: Node<'t>) {
        let (Some(lhs), Some(op), Some(rhs)) = (
            n.child_by_field_name("lhs"),
            n.child_by_field_name("operator"),
            n.child_by_field_name("rhs"),
        ) else {
            return;
        };
        let (target, value) = match self.text(op) {
            "<-" | "=" | "<<-" | ":=" => (lhs, rhs),
            "->" | "->>" => (rhs, lhs),
            _ => return,
        };
        if target.kind() != "identifier" {
            return;
        }
        let name = self.text(target);
        let scope = self.innermost(n.start_byte());
        self.assigns.push(Assign {
            at: n.start_byte(),
            name,
            scope,
            value,
        });
    }

    /// The innermost function whose body holds `at` (scopes are recorded outer first).
    fn innermost(&self, at: usize) -> Option<usize> {
        (0..self.scopes.len())
            .rev()
            .find(|&i| self.scopes[i].start < at && at < self.scopes[i].end)
    }

    /// The value of the expression `v`, used at `at`.
    fn eval(&self, v: Node<'t>, at: usize) -> Ev {
        let mut v = v;
        let mut at = at;
        for _ in 0..MAX_DEPTH {
            match v.kind() {
                "string" => {
                    let inner = string_inner(v);
                    let has_escape = (named_children(v).into_iter()).any(|c| {
                        c.kind() == "string_content"
                            && named_children(c).iter().any(|e| e.kind() == "escape_sequence")
                    });
                    if has_escape {
                        return Ev::unknown(format!("`{}` holds an escape sequence", self.text(v)));
                    }
                    let s = self.src.get(inner.range()).unwrap_or("");
                    return Ev::text(s).with_origin(Some(inner));
                }
                "integer" | "float" => {
                    let t = self.text(v).trim_end_matches('L');
                    let n = t.parse::<i64>().ok().or_else(|| {
                        t.parse::<f64>()
                            .ok()
                            .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                            .map(|f| f as i64)
                    });
                    return match n {
                        Some(n) => Ev::int(n).with_origin(Some(span(v))),
                        None => Ev::text(t).with_origin(Some(span(v))),
                    };
                }
                "true" => return Ev::boolean(true).with_origin(Some(span(v))),
                "false" => return Ev::boolean(false).with_origin(Some(span(v))),
                "null" => return Ev::new(iac::V::Null),
                "parenthesized_expression" => match v.child_by_field_name("body") {
                    Some(b) => v = b,
                    None => return Ev::unknown(format!("`{}` is not a literal", self.text(v))),
                },
                "identifier" => {
                    let name = self.text(v);
                    let scope = self.innermost(at);
                    // The nearest assignment before `at` in the function around it (or at
                    // the top level when it is not in one).
                    let found =
                        (self.assigns.iter().rev()).find(|a| a.name == name && a.at < at && a.scope == scope);
                    if let Some(a) = found {
                        v = a.value;
                        at = a.at;
                        continue;
                    }
                    if let Some(s) = scope.map(|i| &self.scopes[i])
                        && s.params.contains(&name)
                    {
                        return Ev::unknown(format!(
                            "`{name}` is a parameter of the function around the call: its callers give it"
                        ));
                    }
                    // A name a function reads from the top level.
                    if scope.is_some()
                        && let Some(a) =
                            (self.assigns.iter().rev()).find(|a| a.name == name && a.scope.is_none())
                    {
                        v = a.value;
                        at = a.at;
                        continue;
                    }
                    return Ev::unknown(format!("`{name}` is not assigned a value before the call"));
                }
                "call" => {
                    let f = v
                        .child_by_field_name("function")
                        .map(|f| self.text(f))
                        .unwrap_or("");
                    if f == "Sys.getenv" {
                        return self.getenv(v, at);
                    }
                    return Ev::unknown(format!(
                        "`{}` is computed at run time",
                        iac::one_line(self.text(v))
                    ));
                }
                _ => return Ev::unknown(format!("`{}` is not a literal", iac::one_line(self.text(v)))),
            }
        }
        Ev::unknown(format!(
            "`{}` is assigned from names more than {MAX_DEPTH} deep",
            self.text(v)
        ))
    }

    /// `Sys.getenv("X", unset = "d")` (or `Sys.getenv("X", "d")`): the default, noted, as
    /// `os.getenv("X", "d")` is in Python; without one, or with one not known, the value is
    /// read from the environment at run time.
    fn getenv(&self, call: Node<'t>, at: usize) -> Ev {
        let args: Vec<Node<'t>> = call
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default()
            .into_iter()
            .filter(|a| a.kind() == "argument")
            .collect();
        let name_of = |a: &Node<'t>| {
            a.child_by_field_name("name")
                .map(|k| self.text(k).trim_matches(['"', '\'', '`']))
        };
        // As R matches them: by exact name, then the positional ones to the parameters
        // left, in order (`Sys.getenv(x, unset, names)`).
        let mut positional = args.iter().filter(|a| name_of(a).is_none());
        let mut arg = |param: &str| match args.iter().find(|a| name_of(a) == Some(param)) {
            Some(a) => Some(*a),
            None => positional.next().copied(),
        };
        let (x, unset) = (arg("x"), arg("unset"));
        let var = x
            .and_then(|a| a.child_by_field_name("value"))
            .and_then(|x| self.eval(x, at).known_str())
            .unwrap_or_default();
        let unset = unset.and_then(|a| a.child_by_field_name("value"));
        let run_time = || {
            Ev::unknown(format!(
                "`{}` is read from the environment at run time",
                iac::one_line(self.text(call))
            ))
        };
        match unset.map(|d| self.eval(d, at)) {
            Some(d) if d.why().is_none() && !d.is_null() => {
                d.with_note(Some(format!("the default of the environment variable `{var}`")))
            }
            _ => run_time(),
        }
    }

    /// The arguments of a call matched to the function's parameters as R matches them:
    /// exact names first, then the positional arguments to the parameters left, in order.
    /// Each: the parameter, its name's node (when named) and its value.
    fn matched(
        &self,
        call: Node<'t>,
        f: &Function,
        notes: &mut Vec<String>,
    ) -> Vec<(&'static str, Option<Node<'t>>, Node<'t>)> {
        let mut named = Vec::new();
        let mut positional = Vec::new();
        let args = call
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        for a in args.into_iter().filter(|a| a.kind() == "argument") {
            let Some(value) = a.child_by_field_name("value") else {
                continue;
            };
            match a.child_by_field_name("name") {
                Some(k) => {
                    let written = self.text(k).trim_matches(['"', '\'', '`']);
                    match f.params.iter().find(|p| **p == written) {
                        Some(p) => named.push((*p, Some(k), value)),
                        None => notes.push(format!(
                            "`{written}` is not a parameter of `{}()` (R stops with \"unused argument\") unless it abbreviates one",
                            f.name
                        )),
                    }
                }
                None => positional.push(value),
            }
        }
        let free: Vec<&'static str> = (f.params.iter().copied())
            .filter(|p| !named.iter().any(|(n, ..)| n == p))
            .collect();
        named.extend(
            free.into_iter()
                .zip(positional)
                .map(|(p, value)| (p, None, value)),
        );
        named
    }

    fn definition(&self, call: Node<'t>, f: &'static Function, display: &str) -> ComputeDef {
        let at = call.start_byte();
        let mut notes = Vec::new();
        let args = self.matched(call, f, &mut notes);
        let arg = |p: &str| args.iter().find(|(n, ..)| *n == p);
        let name = match arg(f.named_by) {
            Some((_, key, value)) => {
                let key = key.map(span);
                let s = self.setting(*value, key, at, As::Text);
                let mut s = s.unwrap_or_else(|| {
                    Setting::dynamic(self.text(*value), "the name is `NULL`", span(*value), key)
                });
                if s.value
                    .as_ref()
                    .and_then(|v| v.as_str())
                    .is_some_and(str::is_empty)
                {
                    s = Setting::dynamic(&s.written, "the name is empty", s.span, key);
                }
                s
            }
            None => Setting::dynamic(
                "",
                format!("`{}()` is not given `{}`", f.name, f.named_by),
                span(call),
                None,
            ),
        };
        let mut def = ComputeDef::new(SourceKind::RSdk, display, span(call), f.command, name);
        def.idiom = Idiom::R;
        let function = call.child_by_field_name("function").unwrap_or(call);
        def.set("type", type_setting(f.ctype, span(function), f.name));
        for (param, path, as_) in f.fields {
            let Some((_, key, value)) = arg(param) else {
                continue;
            };
            if let Some(s) = self.setting(*value, key.map(span), at, *as_) {
                def.set(path, s);
            }
        }
        def.notes = notes;
        def
    }

    /// The setting an argument's value makes (`None` when it is `NULL`: not given).
    fn setting(&self, v: Node<'t>, key: Option<Span>, at: usize, as_: As) -> Option<Setting> {
        let val = self.eval(v, at);
        let (leaf_span, literal) = match v.kind() {
            "string" => {
                let inner = string_inner(v);
                (inner, (val.origin == Some(inner)).then_some(inner))
            }
            "integer" | "float" | "true" | "false" => (span(v), Some(span(v))),
            _ => (span(v), None),
        };
        let leaf = iac::Leaf {
            span: leaf_span,
            written: self.src.get(leaf_span.range()).unwrap_or_default().to_string(),
            val,
            literal,
        };
        iac::setting_of(&leaf, key, as_)
    }
}

/// A string's text between its quotes (raw strings `r"(...)"` included).
fn string_inner(n: Node<'_>) -> Span {
    match n.child_by_field_name("content") {
        Some(c) => span(c),
        None => {
            // An empty string: between its delimiters.
            let end = n
                .child_by_field_name("close")
                .map_or(n.end_byte(), |c| c.start_byte());
            Span::new(end as u32, end as u32)
        }
    }
}

fn named_children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prose, other languages' blocks and the fences are blanked byte for byte; the `{r}`
    /// chunks stay where they are.
    #[test]
    fn r_markdown_keeps_only_r_chunks_in_place() {
        let text = "é create_aml_compute()\n```{r x}\na <- 1\n```\n```{python}\nb = 2\n```\n```{R}\nc <- 3\n```\n```{rust}\nd\n```\n";
        let code = rmd_chunks(text);
        assert_eq!(code.len(), text.len());
        assert_eq!(
            code.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>(),
            ["a <- 1", "c <- 3"]
        );
        assert_eq!(code.find("a <- 1"), text.find("a <- 1"));
    }

    fn defs(src: &str) -> Vec<ComputeDef> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_r::LANGUAGE.into()).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let r = Script::new(src, tree.root_node());
        r.calls.iter().map(|&(c, f)| r.definition(c, f, "x.R")).collect()
    }

    /// Assignments in every form R writes them; a name assigned in another function is
    /// not this one's; a chain longer than [`MAX_DEPTH`] is not followed.
    #[test]
    fn values_come_from_the_nearest_assignment_in_scope() {
        let d = defs(
            "n1 = \"a\"\n\"b\" -> n2\nn3 <<- n1\nf <- function() { n4 <- \"inner\" }\ncreate_aml_compute(ws, n3, n2)\ncreate_aml_compute(ws, n4, (\"Standard_DS3_v2\"))\n",
        );
        assert_eq!(d[0].known_name(), Some("a"));
        assert_eq!(d[0].get("size").and_then(|s| s.text()).as_deref(), Some("b"));
        assert_eq!(d[1].known_name(), None);
        assert_eq!(
            d[1].get("size").and_then(|s| s.text()).as_deref(),
            Some("Standard_DS3_v2")
        );
        let mut chain = String::from("v0 <- \"deep\"\n");
        for i in 1..=MAX_DEPTH + 1 {
            chain.push_str(&format!("v{i} <- v{}\n", i - 1));
        }
        chain.push_str(&format!("create_aml_compute(ws, v{}, \"x\")\n", MAX_DEPTH + 1));
        let d = defs(&chain);
        assert!(
            d[0].name.why.as_deref().unwrap().contains("more than"),
            "{:?}",
            d[0].name
        );
    }

    /// An argument R would refuse is noted, not read as a setting.
    #[test]
    fn an_unknown_argument_is_noted() {
        let d = defs("create_aml_compute(ws, \"c\", \"Standard_DS3_v2\", min_node = 2)\n");
        assert!(d[0].get("min_instances").is_none());
        assert!(
            d[0].notes[0].contains("`min_node` is not a parameter"),
            "{:?}",
            d[0].notes
        );
    }
}
