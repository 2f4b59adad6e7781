//! `provisioner "local-exec"`: the `command` a resource runs on the machine that applies
//! the configuration (audit 10: `az ml computetarget create amlcompute -n … --vm-size …` in
//! a `null_resource`). Its text is a script for `interpreter` (by default `/bin/sh -c`; a
//! first word naming PowerShell or cmd reads it as those), read as the scripts reader reads
//! one: `az ml compute create|attach` and SDK v1's `az ml computetarget create|attach` are
//! definitions, at their exact spans in the `.tf` file.
//!
//! The command is a Terraform string template, rendered before the shell sees it: an escape
//! (`\"`, `\n`, `$${`) is read as the character it stands for (each byte of the script maps
//! back to where it is written), and an interpolation (`${var.vm_size}`) takes the value the
//! module's evaluation gives it (a variable's default, `*.tfvars`, a local), else is not
//! known and says why. A template directive (`%{ if … }`) leaves the command unread.

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Structure};
use hcl_edit::template::Element;

use super::super::az_cli::{Ctx, Eval, Outer, ScriptVal, Vars, definitions, wanted};
use super::super::common::Input;
use super::super::iac::{Ev, V};
use super::super::shell::{Dialect, LexOptions, Map, VarScope, parse};
use crate::facts::computes::ComputeDef;
use crate::source::Span;

/// The shell variable an interpolation stands for in the rendered script: a name no
/// script uses, so that the script's own `$NAME`s stay its own.
const SLOT: &str = "__amlint_tf_";

/// The module's evaluation of an expression (`Module::eval` in the module's context).
pub(super) type Evaluate<'m> = dyn Fn(&'m Expression) -> Ev + 'm;

/// The definitions of the `local-exec` provisioners of resource block `b`, in the file
/// whose text is `text`.
pub(super) fn definitions_of<'m>(
    text: &str,
    b: &'m Block,
    input: &Input<'_>,
    eval: &Evaluate<'m>,
) -> Vec<ComputeDef> {
    let mut out = Vec::new();
    for s in b.body.iter() {
        let Structure::Block(p) = s else { continue };
        if p.ident.as_str() != "provisioner" || p.labels.first().map(|l| l.as_str()) != Some("local-exec") {
            continue;
        }
        let Some(command) = p.body.get_attribute("command") else {
            continue;
        };
        let dialect = p
            .body
            .get_attribute("interpreter")
            .map_or(Dialect::Bash, |i| interpreter(eval, &i.value));
        if let Some(defs) = read_command(text, eval, &command.value, dialect, input) {
            out.extend(defs);
        }
    }
    out
}

/// The dialect of `interpreter = ["PowerShell", "-Command"]`: its first word's program.
fn interpreter<'m>(eval: &Evaluate<'m>, value: &'m Expression) -> Dialect {
    let first = match value {
        Expression::Array(a) => a.iter().next(),
        _ => None,
    };
    let program = first
        .and_then(|e| eval(e).known_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let program = program.rsplit(['/', '\\']).next().unwrap_or_default();
    let program = program.strip_suffix(".exe").unwrap_or(program);
    match program {
        "powershell" | "pwsh" => Dialect::PowerShell,
        "cmd" => Dialect::Cmd,
        _ => Dialect::Bash,
    }
}

/// The rendered script: its text, the file offset of each of its bytes (and one past
/// the end), and what each interpolation slot is.
struct Rendered {
    text: String,
    offsets: Vec<u32>,
    slots: Vec<ScriptVal>,
}

impl Rendered {
    fn push(&mut self, s: &str, at: u32) {
        self.text.push_str(s);
        self.offsets.extend(std::iter::repeat_n(at, s.len()));
    }
}

fn read_command<'m>(
    text: &str,
    eval: &Evaluate<'m>,
    expr: &'m Expression,
    dialect: Dialect,
    input: &Input<'_>,
) -> Option<Vec<ComputeDef>> {
    let range = expr.span()?;
    let whole = Span::new(u32::try_from(range.start).ok()?, u32::try_from(range.end).ok()?);
    let raw = text.get(range)?;
    // Only a command that may run `az ml compute…` is rendered.
    memchr::memmem::find(raw.as_bytes(), b"ml compute")?;
    let interpolations: Vec<&'m Expression> = match expr {
        Expression::String(_) => Vec::new(),
        Expression::StringTemplate(t) => interpolations(t.iter())?,
        Expression::HeredocTemplate(h) => interpolations(h.template.iter())?,
        _ => return None,
    };
    let rendered = render(eval, raw, whole.start, &interpolations, dialect)?;
    let options = LexOptions {
        keep: Some(wanted),
        ..LexOptions::new(dialect)
    };
    let script = parse(&rendered.text, Map::Table(&rendered.offsets), options);
    let vars = Vars::scan(&script, dialect);
    let outer = Slots {
        slots: &rendered.slots,
    };
    let cx = Ctx {
        input,
        eval: Eval {
            vars: &vars,
            outer: &outer,
        },
        note: Some("run by a `local-exec` provisioner of Terraform".to_string()),
    };
    Some(definitions(&script, &cx))
}

/// The template's interpolations in order; `None` when it holds a directive.
fn interpolations<'e>(elements: impl Iterator<Item = &'e Element>) -> Option<Vec<&'e Expression>> {
    let mut out = Vec::new();
    for e in elements {
        match e {
            Element::Literal(_) => {}
            Element::Interpolation(i) => out.push(&i.expr),
            Element::Directive(_) => return None,
        }
    }
    Some(out)
}

/// Renders the raw template text `raw` (starting at file offset `base`): a quoted string
/// or a heredoc.
fn render<'m>(
    eval: &Evaluate<'m>,
    raw: &str,
    base: u32,
    interps: &[&'m Expression],
    dialect: Dialect,
) -> Option<Rendered> {
    let b = raw.as_bytes();
    let mut r = Rendered {
        text: String::with_capacity(raw.len()),
        offsets: Vec::with_capacity(raw.len() + 1),
        slots: Vec::new(),
    };
    let (mut i, end, quoted) = if b.first() == Some(&b'"') {
        (1, raw.len().checked_sub(1)?, true)
    } else if raw.starts_with("<<") {
        // `<<EOT` or `<<-EOT`, a newline, the lines, then the delimiter's line.
        let first = memchr::memchr(b'\n', b)? + 1;
        let last = raw.trim_end_matches([' ', '\t', '\r', '\n']).rfind('\n')? + 1;
        (first, last, false)
    } else {
        return None;
    };
    let at = |i: usize| base + i as u32;
    while i < end {
        let c = b[i];
        if (c == b'$' || c == b'%') && b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&b'{') {
            // `$${` and `%%{` are the literal `${` and `%{`.
            r.push(&raw[i + 1..i + 3], at(i));
            i += 3;
        } else if c == b'$' && b.get(i + 1) == Some(&b'{') {
            let close = interpolation_end(b, i + 2)?;
            let expr = interps.get(r.slots.len())?;
            let value = eval(expr);
            let written = &raw[i..close];
            let slot = match (&value.v, value.known_str()) {
                (V::Str(_), Some(text)) => ScriptVal::known(text, value.origin),
                (V::Int(n), _) => ScriptVal::known(n.to_string(), value.origin),
                _ => ScriptVal::Dynamic(format!(
                    "`{written}` is not known statically{}",
                    value.why().map(|w| format!(": {w}")).unwrap_or_default()
                )),
            };
            let name = format!("{SLOT}{}", r.slots.len());
            let reference = match dialect {
                Dialect::Bash => format!("${{{name}}}"),
                Dialect::PowerShell => format!("${{env:{name}}}"),
                Dialect::Cmd => format!("%{name}%"),
            };
            r.push(&reference, at(i));
            r.slots.push(slot);
            i = close;
        } else if c == b'%' && b.get(i + 1) == Some(&b'{') {
            return None;
        } else if quoted && c == b'\\' {
            let (decoded, len) = escape(&raw[i + 1..])?;
            let mut buf = [0u8; 4];
            r.push(decoded.encode_utf8(&mut buf), at(i));
            i += 1 + len;
        } else {
            let len = raw.get(i..)?.chars().next().map_or(1, char::len_utf8);
            r.push(raw.get(i..i + len)?, at(i));
            i += len;
        }
    }
    if r.slots.len() != interps.len() {
        return None;
    }
    r.offsets.push(at(end));
    Some(r)
}

/// One past the `}` that closes an interpolation whose expression starts at `i`, past the
/// strings and nested braces inside it.
fn interpolation_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    while i < b.len() {
        match (b[i], in_string) {
            (b'\\', true) => i += 1,
            (b'"', _) => in_string = !in_string,
            (b'{', false) => depth += 1,
            (b'}', false) if depth == 0 => return Some(i + 1),
            (b'}', false) => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The character an HCL escape (after its `\`) stands for, and the bytes it takes.
fn escape(rest: &str) -> Option<(char, usize)> {
    let c = rest.chars().next()?;
    Some(match c {
        'n' => ('\n', 1),
        'r' => ('\r', 1),
        't' => ('\t', 1),
        '"' => ('"', 1),
        '\\' => ('\\', 1),
        'u' => (char::from_u32(u32::from_str_radix(rest.get(1..5)?, 16).ok()?)?, 5),
        'U' => (char::from_u32(u32::from_str_radix(rest.get(1..9)?, 16).ok()?)?, 9),
        _ => return None,
    })
}

/// The interpolations' values, as the variables they stand for in the rendered script.
struct Slots<'a> {
    slots: &'a [ScriptVal],
}

impl Outer for Slots<'_> {
    /// Literal text holding a slot: the script quotes it (`'${var.size}'`), but Terraform
    /// rendered it before the shell read it.
    fn lit(&self, text: &str, _span: Span) -> Option<ScriptVal> {
        if !text.contains(SLOT) {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find(SLOT) {
            // The reference around the slot's name: `${…}`, `${env:…}` or `%…%`.
            let before = rest[..i]
                .strip_suffix("${env:")
                .or_else(|| rest[..i].strip_suffix("${"))
                .or_else(|| rest[..i].strip_suffix('%'))?;
            out.push_str(before);
            let after = &rest[i + SLOT.len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let k: usize = after[..digits].parse().ok()?;
            match self.slots.get(k)? {
                ScriptVal::Known { text, .. } => out.push_str(text),
                dynamic => return Some(dynamic.clone()),
            }
            rest = after[digits..].strip_prefix(['}', '%'])?;
        }
        out.push_str(rest);
        Some(ScriptVal::known(out, None))
    }

    fn var(&self, name: &str, scope: VarScope) -> Option<ScriptVal> {
        if !matches!(scope, VarScope::Shell | VarScope::Env) {
            return None;
        }
        let k: usize = name.strip_prefix(SLOT)?.parse().ok()?;
        self.slots.get(k).cloned()
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use crate::facts::computes::{ComputeDef, Scalar};

    fn defs(text: &str) -> Vec<ComputeDef> {
        let dir = tempfile::tempdir().unwrap();
        super::super::super::iac::read_for_test(super::super::read, dir.path(), "main.tf", text).computes
    }

    /// Audit 10's case (sebastianbirk's `infrastructure/aks.tf`): SDK v1's CLI in a
    /// `null_resource`'s provisioner.
    #[test]
    fn a_provisioner_command_defines_at_its_spans() {
        let t = "resource \"null_resource\" \"compute-cluster\" {\n  provisioner \"local-exec\" {\n    command = \"az ml computetarget create amlcompute -n ps-cpu-cluster --max-nodes 4 --vm-size Standard_NC6 -g rg -w ws\"\n  }\n}\n";
        let d = defs(t);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].known_name(), Some("ps-cpu-cluster"));
        assert_eq!(&t[d[0].name.span.range()], "ps-cpu-cluster");
        let size = d[0].get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&t[size.span.range()], "Standard_NC6");
        assert_eq!(&t[size.key.unwrap().range()], "--vm-size");
        assert!(size.in_place);
        assert_eq!(d[0].get("max_instances").unwrap().value, Some(Scalar::Int(4)));
    }

    /// Interpolations take the module's values (a variable's default, its literal as the
    /// origin), or are not known with why; escapes are the characters they stand for, and
    /// a value quoted for the shell is rendered all the same.
    #[test]
    fn interpolations_and_escapes_are_rendered_as_terraform_renders_them() {
        let t = "variable \"size\" {\n  default = \"Standard_NC6s_v3\"\n}\nvariable \"name\" {}\nresource \"terraform_data\" \"c\" {\n  provisioner \"local-exec\" {\n    command = \"az ml compute create --name ${var.name} --size '${var.size}' --type amlcompute --description \\\"a \\\\\\\"b\\\\\\\"\\\"\"\n  }\n  provisioner \"local-exec\" {\n    command = \"az ml compute create --name \\\"gpu\\\" --size ${var.size} --type amlcompute\"\n  }\n}\n";
        let d = defs(t);
        assert_eq!(d.len(), 2, "{d:?}");
        let name = &d[0].name;
        assert_eq!(name.value, None);
        assert_eq!(&t[name.span.range()], "${var.name}");
        assert!(
            name.why
                .as_deref()
                .unwrap()
                .contains("`${var.name}` is not known statically")
                && name.why.as_deref().unwrap().contains("no default"),
            "{name:?}"
        );
        let size = d[0].get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6s_v3".into())));
        assert_eq!(&t[size.span.range()], "${var.size}");
        assert!(!size.in_place);
        assert_eq!(d[1].known_name(), Some("gpu"));
        // Inside the escaped quotes: the bytes of the literal itself.
        assert_eq!(&t[d[1].name.span.range()], "gpu");
        let size = d[1].get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6s_v3".into())));
        assert_eq!(&t[size.origin.unwrap().range()], "Standard_NC6s_v3");
    }

    /// A heredoc command with line continuations; PowerShell and cmd by `interpreter`; a
    /// template directive leaves the command unread, as does a command that is not a
    /// template at all.
    #[test]
    fn heredocs_interpreters_and_what_is_not_read() {
        let t = "resource \"null_resource\" \"a\" {\n  provisioner \"local-exec\" {\n    command = <<-EOT\n      az ml compute create \\\n        --name hd --size Standard_DS3_v2 --type amlcompute\n    EOT\n  }\n  provisioner \"local-exec\" {\n    interpreter = [\"C:/Program Files/PowerShell/7/pwsh.exe\", \"-Command\"]\n    command = \"$n = 'ps'; az ml compute create --name $n --type amlcompute --size Standard_D2s_v3\"\n  }\n  provisioner \"local-exec\" {\n    command = \"%{ if true }az ml compute create --name dir --type amlcompute%{ endif }\"\n  }\n  provisioner \"local-exec\" {\n    command = local.cmd\n  }\n}\nlocals {\n  cmd = \"az ml compute create --name loc --type amlcompute\"\n}\n";
        let d = defs(t);
        let names: Vec<Option<&str>> = d.iter().map(ComputeDef::known_name).collect();
        assert_eq!(names, [Some("hd"), Some("ps")], "{d:?}");
        assert_eq!(&t[d[0].name.span.range()], "hd");
        assert_eq!(&t[d[0].get("size").unwrap().span.range()], "Standard_DS3_v2");
        assert_eq!(&t[d[1].name.span.range()], "$n");
        assert_eq!(&t[d[1].name.origin.unwrap().range()], "ps");
    }
}
