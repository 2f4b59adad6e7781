//! `az ml compute create` in notebooks: IPython's shell lines (`!az ml compute create …`,
//! continued by a trailing `\`) and `%%bash`/`%%sh` cells, every span in the `.ipynb`
//! file's JSON strings (`ipynb::Code`). A `!` line runs in a shell of its own, after
//! IPython replaced `{name}` and `$name` by the Python variable `name`: the values are the
//! string literals assigned at the top level of the cells before it (one assigned anything
//! else, or inside a block, is not known), and `%env NAME=value`. A `%%bash` cell is one
//! script, its own assignments and `%env` known.
//!
//! Both run in the kernel's directory: where the notebook starts (its own folder, or one
//! above it: as a script's file is looked for), moved by the `%cd`/`%pushd`/`%popd` line
//! magics (also `cd` written without `%`, IPython's automagic) and `os.chdir('…')` at the
//! top level of the cells before, to a literal relative path. One whose directory is not
//! known (an expression, `~`, absolute, `-`, a bookmark, inside a block, a `%popd` with no
//! `%pushd`) makes the directory of the later commands unknown, with why.

use std::collections::HashMap;

use super::az_cli::{Ctx, Eval, Outer, ScriptVal, Vars, definitions, wanted};
use super::common::{Comment, Definitions, Input, Reader, line_of, mentions};
use super::cwd::{Cwd, relative};
use super::ipynb::{Code, cells_of};
use super::shell::comment_of;
use super::shell::{Dialect, LexOptions, Map, VarScope, parse};
use crate::source::Span;

pub const READER: Reader = Reader {
    name: "az-cli notebooks",
    wants: |name| name.ends_with(".ipynb"),
    needles: &["ml compute"],
    defines: super::common::COMMAND_WORDS,
    read,
};

/// One assignment of a Python or `%env` variable, at a code offset.
struct Assigned {
    at: usize,
    value: ScriptVal,
}

/// The notebook's variables, by name, in code order.
#[derive(Default)]
struct NbVars {
    python: HashMap<String, Vec<Assigned>>,
    env: HashMap<String, Vec<Assigned>>,
}

/// The value the last assignment before `at` gives, if any.
fn before(list: Option<&Vec<Assigned>>, at: usize) -> Option<ScriptVal> {
    let list = list?;
    let i = list.partition_point(|a| a.at < at);
    i.checked_sub(1).map(|i| list[i].value.clone())
}

fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

impl NbVars {
    /// The assignments of `code`'s lines: `NAME = "literal"` at the top level, `%env`.
    fn scan(code: &Code) -> Self {
        let mut vars = NbVars::default();
        let text = code.text.as_str();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            if let Some(rest) = body.strip_prefix("%env ") {
                let rest = rest.trim();
                let (name, value) = match rest.split_once(['=', ' ']) {
                    Some((n, v)) => (n.trim(), v.trim()),
                    None => continue,
                };
                if is_ident(name) {
                    let at = start + (value.as_ptr() as usize - line.as_ptr() as usize);
                    let v = ScriptVal::known(value, Some(code.span(at, at + value.len())));
                    vars.env
                        .entry(name.to_string())
                        .or_default()
                        .push(Assigned { at: start, value: v });
                }
                continue;
            }
            let Some((lhs, rhs)) = body.split_once('=') else {
                continue;
            };
            let name = lhs.trim_end();
            let rhs_t = rhs.trim();
            // `a == b`, `f(x=1)`, `a += 1` (the last leaves a non-identifier before `=`).
            if rhs.starts_with('=') || !is_ident(name.trim_start()) {
                continue;
            }
            let indented = name.starts_with([' ', '\t']);
            let name = name.trim_start();
            let literal = rhs_t
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .or_else(|| rhs_t.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')))
                .filter(|v| !v.contains(['"', '\'', '\\', '{']));
            let value = match literal {
                Some(_) if indented => ScriptVal::Dynamic(format!("`{name}` is assigned inside a block")),
                Some(v) => {
                    let at = start + (v.as_ptr() as usize - line.as_ptr() as usize);
                    ScriptVal::known(v, Some(code.span(at, at + v.len())))
                }
                None => ScriptVal::Dynamic(format!("`{name}` is assigned an expression")),
            };
            vars.python
                .entry(name.to_string())
                .or_default()
                .push(Assigned { at: start, value });
        }
        vars
    }
}

/// What a `!` line or a `%%bash` cell sees of the notebook.
struct NbOuter<'a> {
    vars: &'a NbVars,
    /// The code offset of the line or cell.
    at: usize,
    /// IPython expands Python variables (a `!` line; not a `%%bash` cell).
    python: bool,
    /// The kernel's directory there.
    start: Cwd,
}

impl Outer for NbOuter<'_> {
    fn start(&self) -> Cwd {
        self.start.clone()
    }

    fn var(&self, name: &str, scope: VarScope) -> Option<ScriptVal> {
        if scope != VarScope::Shell {
            return None;
        }
        if self.python
            && let Some(v) = before(self.vars.python.get(name), self.at)
        {
            return Some(v);
        }
        before(self.vars.env.get(name), self.at)
    }

    fn lit(&self, text: &str, _span: Span) -> Option<ScriptVal> {
        if !self.python || !text.contains('{') {
            return None;
        }
        // `{name}`: IPython's expansion of a Python expression.
        let mut out = String::new();
        let mut rest = text;
        // A word that is one `{name}` alone has that variable's literal as its origin.
        let alone = text
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .filter(|e| !e.contains(['{', '}']))
            .map(str::trim);
        let mut origin = None;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let close = after.find('}')?;
            let expr = after[..close].trim();
            match before(self.vars.python.get(expr), self.at) {
                Some(ScriptVal::Known { text: value, literal }) => {
                    origin = literal.filter(|_| alone == Some(expr));
                    out.push_str(&value);
                }
                Some(d @ ScriptVal::Dynamic(_)) => return Some(d),
                None => {
                    return Some(ScriptVal::Dynamic(format!(
                        "`{{{expr}}}` is a Python expression not assigned a literal in the notebook"
                    )));
                }
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        Some(ScriptVal::known(out, origin))
    }
}

fn read(input: &Input<'_>, out: &mut Definitions) {
    let Some([code, md]) = cells_of(&input.source.text, &input.source.path, None, ["code", "markdown"])
    else {
        return;
    };
    // Commands written in Markdown cells, as documentation writes them.
    match md {
        Ok(md) if memchr::memmem::find(md.text.as_bytes(), b"ml compute").is_some() => {
            super::docs::read_notebook_markdown(input, &md, out);
        }
        Ok(_) => {}
        Err(why) => out.unread = Some(why),
    }
    let code = match code {
        Ok(code) => code,
        Err(why) => {
            out.unread = Some(why);
            return;
        }
    };
    if memchr::memmem::find(code.text.as_bytes(), b"ml compute").is_none() {
        return;
    }
    let vars = NbVars::scan(&code);
    // The Python reader reports the Python comments when it reads this notebook.
    let python_comments = mentions(input.source.text.as_bytes(), super::python_sdk::READER.needles);
    let text = code.text.as_str();
    let mut ends: Vec<usize> = code.cells.iter().skip(1).copied().collect();
    ends.push(text.len());
    let mut kernel = Kernel::default();
    for (&start, &end) in code.cells.iter().zip(&ends) {
        let cell = &text[start..end];
        let first = cell.lines().next().unwrap_or("").trim();
        let magic = first.split_whitespace().collect::<Vec<_>>();
        let bash_cell = matches!(magic.as_slice(), ["%%bash", ..] | ["%%sh", ..])
            || matches!(magic.as_slice(), ["%%script", "bash" | "sh", ..]);
        if bash_cell {
            let body = start + cell.find('\n').map_or(cell.len(), |p| p + 1);
            run(input, &code, (body, end), &vars, false, &kernel.dir, out);
            continue;
        }
        // Another cell magic's body (`%%writefile`...) is not the kernel's code.
        let python_cell = !first.starts_with("%%");
        // `!` lines, continued while a line ends with `\`.
        let mut offset = start;
        let mut lines = cell.split_inclusive('\n').peekable();
        let mut comment_before: Option<(usize, usize)> = None;
        while let Some(line) = lines.next() {
            let line_start = offset;
            offset += line.len();
            let trimmed = line.trim_start();
            if let Some(cmd) = trimmed.strip_prefix('!') {
                let cmd_start = offset - line.len() + (line.len() - trimmed.len()) + 1;
                let mut cmd_end = offset;
                let mut last = cmd;
                while last.trim_end_matches(['\n', '\r']).ends_with('\\') {
                    let Some(next) = lines.next() else { break };
                    offset += next.len();
                    cmd_end = offset;
                    last = next;
                }
                if !python_comments && let Some((c_start, c_end)) = comment_before.take() {
                    out.comments.push(Comment {
                        span: code.span(c_start, c_end),
                        own_line: true,
                        target_line: Some(line_of(input.source, code.file_offset(cmd_start, false) as u32)),
                        also: Vec::new(),
                    });
                }
                if memchr::memmem::find(&text.as_bytes()[cmd_start..cmd_end], b"ml compute").is_some() {
                    run(input, &code, (cmd_start, cmd_end), &vars, true, &kernel.dir, out);
                }
                continue;
            }
            if python_cell {
                let at = || {
                    let off = code.file_offset(line_start + line.len() - trimmed.len(), false);
                    line_of(input.source, off as u32)
                };
                kernel.line(line, &at);
            }
            comment_before = trimmed.starts_with('#').then(|| {
                (
                    line_start + line.len() - trimmed.len(),
                    line_start + line.trim_end().len(),
                )
            });
        }
    }
}

/// The kernel's directory as the cells move it, from where the notebook starts.
struct Kernel {
    dir: Cwd,
    /// The directories `%pushd` left (`None`: not known).
    stack: Option<Vec<Cwd>>,
}

impl Default for Kernel {
    fn default() -> Self {
        Kernel {
            dir: Cwd::Start(Default::default()),
            stack: Some(Vec::new()),
        }
    }
}

/// A `%pushd` stack this deep is not followed further.
const MAX_PUSHD: usize = 64;

impl Kernel {
    /// Follows one line of a code cell (`line_no`: its line in the file, for whys).
    fn line(&mut self, line: &str, line_no: &dyn Fn() -> u32) {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start();
        let Some((which, arg)) = mover(trimmed) else {
            return;
        };
        let said = || {
            let shown: String = trimmed.trim_end().chars().take(60).collect();
            let more = if shown.len() < trimmed.trim_end().len() {
                "…"
            } else {
                ""
            };
            format!("`{shown}{more}` on line {}", line_no())
        };
        if trimmed.len() != body.len() {
            self.lost(format!(
                "{} moves the kernel inside a block: it may run or not",
                said()
            ));
            return;
        }
        let Some(arg) = arg else {
            self.lost(format!("{} is not followed", said()));
            return;
        };
        if which == "popd" {
            match self.stack.as_mut().and_then(Vec::pop) {
                Some(dir) => self.dir = dir,
                None => self.lost(format!("{} has no `%pushd` before it that is known", said())),
            }
            return;
        }
        let to = match target(arg) {
            Ok(rel) => relative(&self.dir, rel, false),
            Err(why) => Cwd::Unknown(format!("{} {why}", said())),
        };
        if which == "pushd" {
            let left = std::mem::replace(&mut self.dir, to);
            match self.stack.as_mut() {
                Some(s) if s.len() < MAX_PUSHD => s.push(left),
                _ => self.stack = None,
            }
        } else {
            self.dir = to;
        }
    }

    fn lost(&mut self, why: String) {
        self.dir = Cwd::Unknown(why);
        self.stack = None;
    }
}

/// A line that moves the kernel's directory: `%cd`, `%pushd`, `%popd`, automagic `cd x`,
/// `os.chdir(…)`, with its argument (`None`: one that is not read, as `os.chdir(path)`).
fn mover(line: &str) -> Option<(&'static str, Option<&str>)> {
    /// What follows `prefix` written as a word of its own at the start of `line`.
    fn after<'l>(line: &'l str, prefix: &str) -> Option<&'l str> {
        let rest = line.strip_prefix(prefix)?;
        (rest.is_empty() || rest.starts_with([' ', '\t'])).then(|| rest.trim())
    }
    let line = line.trim_end();
    if line.starts_with('#') {
        return None;
    }
    let word = |prefix: &str| after(line, prefix);
    if let Some(arg) = word("%cd") {
        return Some(("cd", Some(arg)));
    }
    if let Some(arg) = word("%pushd") {
        return Some(("pushd", Some(arg)));
    }
    if word("%popd").is_some() {
        return Some(("popd", Some("")));
    }
    // IPython's automagic: `cd infra` (not `cd = …`, `cd(…)`, `cd += 1`...).
    if let Some(arg) = word("cd")
        && !arg.starts_with(['=', '(', '[', ',', '+', '*', '!', '%', '&', '|'])
    {
        return Some(("cd", Some(arg)));
    }
    if line.contains("chdir(") {
        let arg = line
            .strip_prefix("os.chdir(")
            .and_then(|r| r.strip_suffix(')'))
            .map(str::trim)
            .filter(|a| quoted(a).is_some());
        return Some(("cd", arg));
    }
    None
}

/// The text of a string literal written whole (`'infra'`, `"infra"`), without escapes.
fn quoted(a: &str) -> Option<&str> {
    let inner = a
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .or_else(|| a.strip_prefix('"').and_then(|r| r.strip_suffix('"')))?;
    (!inner.contains(['\'', '"', '\\'])).then_some(inner)
}

/// The relative path a `%cd` argument names, or why it is not known.
fn target(arg: &str) -> Result<&str, String> {
    let arg = quoted(arg).unwrap_or(arg);
    if arg.is_empty() {
        return Err("goes to the home directory".into());
    }
    if arg.starts_with('-') {
        return Err(format!(
            "is given `{arg}` (the directory history or a bookmark), which is not followed"
        ));
    }
    if arg.contains(['$', '{', '\'', '"', '\\']) {
        return Err("goes to a directory not known statically (a Python expression or a variable)".into());
    }
    if arg.starts_with(['/', '~']) || arg.contains(':') {
        return Err(format!(
            "goes to `{arg}`: where that is in the project is not known"
        ));
    }
    Ok(arg)
}

/// Reads the shell text `[start, end)` of the code, run in the kernel's directory `dir`.
fn run(
    input: &Input<'_>,
    code: &Code,
    (start, end): (usize, usize),
    vars: &NbVars,
    python: bool,
    dir: &Cwd,
    out: &mut Definitions,
) {
    let options = LexOptions {
        keep: Some(wanted),
        ..LexOptions::new(Dialect::Bash)
    };
    let script = parse(&code.text[start..end], Map::Code(code, start), options);
    // A `!` line's own assignments do not outlive it; a cell's do within it.
    let script_vars = Vars::scan(&script, Dialect::Bash);
    let outer = NbOuter {
        vars,
        at: start,
        python,
        start: dir.clone(),
    };
    let cx = Ctx {
        input,
        eval: Eval {
            vars: &script_vars,
            outer: &outer,
        },
        note: None,
    };
    out.computes.extend(definitions(&script, &cx));
    out.comments
        .extend(script.comments.iter().map(|c| comment_of(input.source, c)));
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::facts::computes::Scalar;

    fn run_on(text: &str) -> Definitions {
        let dir = tempfile::tempdir().unwrap();
        super::super::iac::read_for_test(read, dir.path(), "nb.ipynb", text)
    }

    /// A notebook of code cells, each its source lines.
    pub(crate) fn notebook(cells: &[&[&str]]) -> String {
        let cells: Vec<serde_json::Value> = cells
            .iter()
            .map(|lines| serde_json::json!({"cell_type": "code", "metadata": {}, "source": lines}))
            .collect();
        serde_json::to_string_pretty(&serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4}))
            .unwrap()
    }

    #[test]
    fn shell_lines_with_python_variables() {
        let text = notebook(&[
            &[
                "cluster = \"nb-gpu\"\n",
                "size = 'Standard_NC6'\n",
                "if x:\n",
                "    tier = \"dedicated\"\n",
            ],
            &[
                "# amlint: ignore[AML702]\n",
                "!az ml compute create --name {cluster} --type amlcompute \\\n",
                "    --size $size --tier $tier --max-instances \"4\"\n",
            ],
        ]);
        let out = run_on(&text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), Some("nb-gpu"));
        // `{cluster}`, IPython's expansion of the variable: its literal is the origin, and
        // no fix may replace `{cluster}` as if it were the value.
        assert_eq!(&text[d.name.span.range()], "{cluster}");
        assert_eq!(&text[d.name.origin.unwrap().range()], "nb-gpu");
        assert!(!d.name.in_place);
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$size");
        assert_eq!(&text[size.origin.unwrap().range()], "Standard_NC6");
        assert!(
            d.get("tier")
                .unwrap()
                .why
                .as_deref()
                .unwrap()
                .contains("inside a block")
        );
        let max = d.get("max_instances").unwrap();
        assert_eq!(&text[max.span.range()], "4");
        assert_eq!(max.value, Some(Scalar::Int(4)));
        // The comment above the line covers the line of `!az`.
        let line = text[..text.find("!az").unwrap()].lines().count() as u32;
        assert_eq!(
            out.comments.iter().map(|c| c.target_line).collect::<Vec<_>>(),
            [Some(line)]
        );
    }

    #[test]
    fn bash_cells_and_env() {
        let text = notebook(&[
            &["%env SIZE=Standard_DS3_v2\n"],
            &[
                "%%bash\n",
                "NAME=nb-cpu\n",
                "az ml compute create -n $NAME --size $SIZE -t amlcompute\n",
            ],
            &["!NAME=x\n", "!az ml compute create -n $NAME -t amlcompute\n"],
        ]);
        let out = run_on(&text);
        assert_eq!(out.computes.len(), 2);
        assert_eq!(out.computes[0].known_name(), Some("nb-cpu"));
        assert_eq!(out.computes[0].size(), Some("Standard_DS3_v2"));
        // Each `!` line has a shell of its own: NAME is not set on the next.
        assert!(out.computes[1].name.why.is_some());
    }

    /// A notebook's Markdown cells write commands as documentation does (audit 18:
    /// mlops-v2-workshop's `azureml-cliv2.ipynb`): a fenced `az ml compute create` is a
    /// definition at its place in the `.ipynb` file; prose and code cells are as before.
    #[test]
    fn commands_in_markdown_cells_are_documentation() {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "cells": [
                {"cell_type": "markdown", "metadata": {}, "source": [
                    "Create the cluster once:\n",
                    "```bash\n",
                    "az ml compute create --name \"md-cluster\" --type amlcompute --size Standard_NC6\n",
                    "```\n",
                ]},
                {"cell_type": "code", "metadata": {}, "source": ["print('az ml compute create --name not-a-command')\n"]},
                {"cell_type": "raw", "metadata": {}, "source": ["az ml compute create --name raw-cell\n"]},
            ],
            "metadata": {},
            "nbformat": 4,
        }))
        .unwrap();
        let out = run_on(&text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), Some("md-cluster"));
        assert_eq!(d.size(), Some("Standard_NC6"));
        // At the values' places in the JSON string (quotes are escaped there).
        assert_eq!(&text[d.get("size").unwrap().span.range()], "Standard_NC6");
        assert!(
            text[d.name.span.range()].contains("md-cluster"),
            "{}",
            &text[d.name.span.range()]
        );
        assert!(
            d.notes.iter().any(|n| n.contains("Markdown cell")),
            "{:?}",
            d.notes
        );
    }
}
