//! `az ml compute create|attach` (and SDK v1's `az ml computetarget create|attach <type>`)
//! as compute definitions: the command's options (`--name/-n`, `--type/-t`, `--size`,
//! `--min-instances`, `--max-instances`, `--tier`, `--file/-f` with the compute YAML it
//! names, `--set`...), each value resolved from its literal, from a variable assigned a
//! literal earlier in the same script (`VAR=…`, `export`, `${VAR:-default}`, PowerShell
//! `$Var = "…"`, cmd `set`), or from what the file around the script says (a workflow's
//! `env:`, a pipeline's `variables:` and parameter defaults, a Makefile's variables, a
//! notebook's Python variables: an [`Outer`]); anything else is recorded dynamic with why.
//! The carriers — scripts, Makefiles, notebooks, workflows — are in `scripts.rs`,
//! `notebook.rs` and `workflows.rs`.

use std::path::{Path, PathBuf};

use super::common::{Files, Input};
use super::cwd::{Cwd, Track};
use super::ps_call::Bound;
use super::shell::{
    ARGS, ARITHMETIC, ARRAY, ARRAY_VALUE, Dialect, Function, Keep, LexOptions, MAX_WORDS, Map, PsParam,
    RUNS_NEXT, SPECIAL, SUBSTITUTION, Script, ShellCommand, VarScope, Word, WordPart, fn_key,
};
use crate::facts::computes::{ComputeDef, Scalar, Setting, SourceKind};
use crate::source::Span;

/// A variable's value as the script would see it.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptVal {
    /// Known statically; `literal` is the span of the literal when it is written in the
    /// defining file as it is (a label points there).
    Known { text: String, literal: Option<Span> },
    /// Not known statically: why.
    Dynamic(String),
}

impl ScriptVal {
    pub fn known(text: impl Into<String>, literal: Option<Span>) -> Self {
        ScriptVal::Known {
            text: text.into(),
            literal,
        }
    }
}

/// What the file around a script knows (a workflow's `env:`, a pipeline's variables, a
/// Makefile's variables, a notebook's Python variables). `None`: it says nothing.
pub trait Outer {
    /// A variable the script reads (`$NAME`, `$env:NAME`, `%NAME%`, make's `$(NAME)`).
    fn var(&self, _name: &str, _scope: VarScope) -> Option<ScriptVal> {
        None
    }
    /// The variable `name` read at `at` (an offset in the script's text): [`Outer::var`]
    /// unless where it is read matters (a Makefile's target-specific variables).
    fn var_at(&self, name: &str, scope: VarScope, _at: u32) -> Option<ScriptVal> {
        self.var(name, scope)
    }
    /// A template expression, trimmed (`parameters.size`, `env.NAME`, `inputs.x`).
    fn expr(&self, _text: &str) -> Option<ScriptVal> {
        None
    }
    /// An Azure Pipelines macro (`$(name)`).
    fn macro_var(&self, _name: &str) -> Option<ScriptVal> {
        None
    }
    /// Literal text that may hold more (a notebook's `{python_var}` in a `!` line).
    fn lit(&self, _text: &str, _span: Span) -> Option<ScriptVal> {
        None
    }
    /// The directory the script runs in, when the file around it says (a workflow step's
    /// working directory), written as the script's own path is: a file the script names
    /// (`--file`) is looked for there alone.
    fn work_dir(&self) -> Option<PathBuf> {
        None
    }
    /// Why the directory the script starts in is not known, when the file around it says
    /// it is somewhere it cannot tell (a Jenkins `dir(...)` given an expression).
    fn start_unknown(&self) -> Option<String> {
        None
    }
    /// Where the script starts: where the file around it starts it (`work_dir`, else where
    /// a file it names is looked for), moved by what ran before it there (a notebook's
    /// `%cd`), or not known ([`Outer::start_unknown`]).
    fn start(&self) -> Cwd {
        match self.start_unknown() {
            Some(why) => Cwd::Unknown(why),
            None => Cwd::Start(PathBuf::new()),
        }
    }
    /// The script is a file of its own: `$0`, `$PSScriptRoot`, `%~dp0` name its directory
    /// (a step's or a notebook's script runs from a temporary file).
    fn own_file(&self) -> bool {
        false
    }
    /// Its commands run in order in one shell, so a `cd` moves the later ones
    /// (documentation's commands are to type, each block on its own).
    fn follows_cd(&self) -> bool {
        true
    }
    /// Each line runs in a shell of its own (a Makefile recipe's): a `cd` moves the
    /// commands after it on its line only.
    fn lines_apart(&self) -> bool {
        false
    }
}

/// No context: a notebook's shell line.
pub struct NoOuter;

impl Outer for NoOuter {}

/// No context: a script file of its own.
pub struct ScriptFile;

impl Outer for ScriptFile {
    fn own_file(&self) -> bool {
        true
    }
}

/// One assignment of a script.
#[derive(Clone, Debug)]
struct Assign {
    name: String,
    /// Where the assigning command starts (the value applies after it).
    at: u32,
    conditional: bool,
    value: Result<Vec<WordPart>, String>,
    /// Written in a file the script sources: its parts' spans are that file's, so none
    /// of them is a literal of the script.
    foreign: bool,
    /// A literal array: bash's `(...)` of `NAME=(...)`, or where PowerShell's `(...)` of
    /// `$Name = @(...)` opens (an empty span: the tokenizer reads it as a block).
    array: Option<Span>,
}

/// A `source`/`.` command of a script ([`Vars::scan_sourcing`]).
#[derive(Clone, Debug)]
struct Sourced {
    /// Where the command starts.
    at: u32,
    /// The file read, as shown; or why none is (a note for the variables it may set).
    read: Result<String, String>,
}

/// A position in a script for the assignments before it: those of commands starting
/// before `offset`, and — inside a sourced file, whose assignments all sit at its
/// `source` command — those of that command with an index below `index`.
#[derive(Clone, Copy)]
struct At {
    offset: u32,
    index: usize,
}

impl At {
    fn of(offset: u32) -> Self {
        At { offset, index: 0 }
    }
}

/// The assignments of a script, in order.
pub struct Vars {
    assigns: Vec<Assign>,
    /// The script's language.
    dialect: Dialect,
    /// Names compare case-insensitively (PowerShell, cmd).
    fold_case: bool,
    /// Each name's assignments, in order (the key lower-cased when `fold_case`).
    by_name: std::collections::HashMap<String, Vec<usize>>,
    /// Where each name declared an associative array (`declare -A`) is first declared so.
    keyed: std::collections::HashMap<String, u32>,
    /// The values of the first assignments, computed in order: each one's value only
    /// reads assignments before it, so none is computed twice and none by recursion.
    memo: std::cell::RefCell<Vec<ScriptVal>>,
    /// No variable is known from here on (the script sets too many: `Script::vars_cut`).
    cut: Option<u32>,
    /// The script's `source` commands, in order.
    sources: Vec<Sourced>,
    /// The elements of the literal arrays read, by where each is written (each read once).
    arrays: std::cell::RefCell<std::collections::HashMap<u32, Result<Vec<Word>, String>>>,
    /// Words the script's expansions have given so far ([`MAX_EXPANDED`] at most).
    expanded: std::cell::Cell<usize>,
    /// The bash functions the script defines: name, where the body opens and closes, in
    /// the order they open.
    fns: Vec<(String, u32, u32)>,
    /// The call of a function whose body is read ([`Frame`]).
    frame: Option<Frame>,
    /// A PowerShell script's parameters ([`PsScope`]).
    ps: std::rc::Rc<PsScope>,
}

/// The parameters of a PowerShell script and of its functions.
#[derive(Default)]
struct PsScope {
    /// The assignments of the functions' parameters' defaults: not the script's, read
    /// only in a call's [`Frame`].
    locals: Vec<Assign>,
    /// The script's own parameters without a default, lower-cased.
    script: Vec<String>,
    /// Each function: its name, where its body opens and closes, its parameters
    /// (lower-cased), in the order they open.
    fns: Vec<(String, u32, u32, Vec<String>)>,
}

/// A call of a bash function of the script, for the commands of its body: `$1`, `$2`...
/// (and `"$@"`) there are the call's words.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    name: String,
    /// The function's body: `[start, end)` in the file.
    body: (u32, u32),
    /// The call's words after the name, evaluated where the call is, with their spans
    /// (a PowerShell function's: its parameters', in order, `None` for one the call does
    /// not give); `None`: the script does not call the function.
    args: Option<Vec<Option<(ScriptVal, Span)>>>,
    /// A PowerShell function's parameters: `$1`... of the frame are their values.
    params: Vec<PsParam>,
    /// Why the call's arguments are not read (too many calls in the script).
    unread: Option<String>,
    /// The `shift`s of the body: where, by how many (`None`: not known), under a
    /// condition within the body.
    shifts: Vec<(u32, Option<usize>, bool)>,
}

impl Frame {
    fn covers(&self, at: u32) -> bool {
        self.body.0 <= at && at < self.body.1
    }

    /// How many arguments the `shift`s before `at` moved, or why that is not known.
    fn shifted(&self, at: u32) -> Result<usize, String> {
        let mut n = 0;
        for &(_, by, conditional) in self.shifts.iter().filter(|s| s.0 < at) {
            match by {
                Some(by) if !conditional => n += by,
                _ => {
                    return Err(format!(
                        "the arguments of the function `{}` are moved by a `shift` under a condition or by an amount not known",
                        self.name
                    ));
                }
            }
        }
        Ok(n)
    }

    /// The value of the positional parameter `name` (`1`, `2`...) read at `at` in the
    /// body. `None`: not one.
    fn arg(&self, name: &str, at: u32) -> Option<Arg0> {
        if let Some(k) = name
            .strip_prefix("args[")
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|r| r.parse::<usize>().ok())
        {
            return Some(self.ps_rest(k));
        }
        let n: usize = name.parse().ok().filter(|&n| n > 0)?;
        if let Some(why) = &self.unread {
            return Some(Arg0::Unknown(why.clone()));
        }
        if let Some(p) = self.params.get(n - 1) {
            return Some(self.ps_arg(n, p));
        }
        let shifted = match self.shifted(at) {
            Ok(s) => s,
            Err(why) => return Some(Arg0::Unknown(why)),
        };
        let Some(args) = &self.args else {
            return Some(Arg0::Missing(format!(
                "`${n}` is the argument {n} of the function `{}`, which this script does not call after defining it",
                self.name
            )));
        };
        Some(match args.get(n - 1 + shifted).and_then(Option::as_ref) {
            Some((ScriptVal::Dynamic(why), _)) => Arg0::Unknown(format!(
                "`${n}` is the argument {n} of the function `{}`, not known at its call: {why}",
                self.name
            )),
            // Given empty: a default (`${1:-d}`) applies.
            Some((ScriptVal::Known { text, .. }, _)) if text.is_empty() => {
                Arg0::Missing(format!("`${n}` is given empty by the call of `{}`", self.name))
            }
            Some((v, _)) => Arg0::Value(v.clone()),
            None => Arg0::Missing(format!(
                "`${n}` is the argument {n} of the function `{}`, which its call does not pass",
                self.name
            )),
        })
    }
}

impl Frame {
    /// PowerShell's `$args[k]`: the `k`th word of the call no parameter takes.
    fn ps_rest(&self, k: usize) -> Arg0 {
        let f = &self.name;
        if let Some(why) = &self.unread {
            return Arg0::Unknown(why.clone());
        }
        let Some(args) = &self.args else {
            return Arg0::Missing(format!(
                "`$args[{k}]` is an argument of the function `{f}`, which this script does not call after defining it"
            ));
        };
        match args.get(self.params.len() + k).cloned().flatten() {
            Some((ScriptVal::Dynamic(why), _)) => Arg0::Unknown(format!(
                "`$args[{k}]` of the function `{f}` is not known at its call: {why}"
            )),
            Some((v, _)) => Arg0::Value(v),
            None => Arg0::Missing(format!(
                "`$args[{k}]` is an argument of the function `{f}` that its call does not pass"
            )),
        }
    }

    /// The value of a PowerShell function's `n`th parameter `p` (given by the call when
    /// its body reads it: [`Vars::framed`]).
    fn ps_arg(&self, n: usize, p: &PsParam) -> Arg0 {
        let (f, name) = (&self.name, &p.name);
        let Some(args) = &self.args else {
            return Arg0::Missing(format!(
                "`${name}` is a parameter without a default of the function `{f}`, which this script does not call after defining it"
            ));
        };
        match args.get(n - 1).cloned().flatten() {
            Some((ScriptVal::Dynamic(why), _)) => Arg0::Unknown(format!(
                "`${name}` is the parameter `-{name}` of the function `{f}`, not known at its call: {why}"
            )),
            Some((v, _)) => Arg0::Value(v),
            None if p.mandatory => Arg0::Missing(format!(
                "`${name}` is a mandatory parameter without a default of the function `{f}`, which its call does not pass (PowerShell asks for it)"
            )),
            None => Arg0::Missing(format!(
                "`${name}` is a parameter without a default of the function `{f}`, which its call does not pass"
            )),
        }
    }
}

/// A function's argument as its body reads it ([`Frame::arg`]).
enum Arg0 {
    Value(ScriptVal),
    /// Not passed (or empty): a default applies; else why it is not known.
    Missing(String),
    Unknown(String),
}

/// At most this many assignments under conditions are weighed for one use; more make the
/// value dynamic.
const MAX_BRANCHES: usize = 64;

/// A value longer than this is not a compute's name or size: dynamic (a chain of
/// `A=$B$B` would double at every step).
pub(super) const MAX_VALUE: usize = 1024;

/// How deep a variable's value may refer to other variables.
const MAX_NESTING: usize = 8;

pub(super) fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// `NAME=value...` in a word: the name, and the value's parts.
fn split_assignment(word: &Word) -> Option<(String, Vec<WordPart>)> {
    split_at_equals(word).filter(|(name, _)| is_ident(name))
}

/// A word whose first literal holds `=`: what comes before it, and the parts of what
/// comes after it (the rest of that literal at its own place, then the word's other
/// parts). Shared by shell assignments and `--set path=value`.
fn split_at_equals(word: &Word) -> Option<(String, Vec<WordPart>)> {
    let Some(WordPart::Lit { text, span, exact }) = word.parts.first() else {
        return None;
    };
    let (before, _) = text.split_once('=')?;
    let parts = value_parts(text, *span, *exact, before.len() + 1, &word.parts[1..]);
    Some((before.to_string(), parts))
}

/// The parts of a value that starts `skip` bytes into the literal `text` written at `span`
/// (`exact`: as it is), then goes on with `rest`: the literal's remainder at its own place
/// (none when it is empty), then `rest`.
fn value_parts(text: &str, span: Span, exact: bool, skip: usize, rest: &[WordPart]) -> Vec<WordPart> {
    let mut parts = Vec::new();
    let after = &text[skip..];
    if !after.is_empty() {
        let start = if exact {
            span.start + skip as u32
        } else {
            span.start
        };
        parts.push(WordPart::Lit {
            text: after.to_string(),
            span: Span::new(start.min(span.end), span.end),
            exact,
        });
    }
    parts.extend(rest.iter().cloned());
    parts
}

/// Whether a PowerShell word after `=` is a value: quoted, a number, `$true`/`$false`, or
/// holding a variable. A bare word is a command whose output is assigned (`$x = Get-X`),
/// or the keyword of an expression (`$x = if (...) {...}`).
fn ps_value(w: &Word) -> bool {
    // A word of no parts is an empty string in quotes (`""`: eval8 case 01).
    let quoted = w.span != w.inner_span() || w.parts.is_empty();
    let var = w.parts.iter().any(|p| !matches!(p, WordPart::Lit { .. }));
    let lit = w.literal().unwrap_or_default();
    let lit = lit.trim_end_matches(',');
    quoted || var || lit.parse::<f64>().is_ok() || matches!(lit, "True" | "False")
}

/// A PowerShell value word: a trailing `,` (a `param(...)` list) is not part of it.
fn trim_ps_value(mut parts: Vec<WordPart>) -> Vec<WordPart> {
    if let Some(WordPart::Lit { text, span, exact }) = parts.last_mut() {
        if text.ends_with(',') {
            text.pop();
            if *exact {
                span.end -= 1;
            }
            if text.is_empty() {
                parts.pop();
            }
        }
    }
    parts
}

impl Vars {
    /// The assignments of `script`.
    /// The script's language.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    pub fn scan(script: &Script, dialect: Dialect) -> Self {
        let mut assigns = Vec::new();
        // A PowerShell function's parameters' defaults are its own ([`PsScope`]).
        let mut ps = PsScope::default();
        let local_at: std::collections::HashSet<u32> = script
            .functions
            .iter()
            .flat_map(|f| f.params.iter().filter(|p| p.default).map(|p| p.span.start))
            .collect();
        for c in &script.commands {
            let found = match dialect {
                Dialect::Bash => bash_assignments(c),
                Dialect::PowerShell => {
                    powershell_params(c).unwrap_or_else(|| powershell_assignment(c).into_iter().collect())
                }
                Dialect::Cmd => cmd_assignment(c).into_iter().collect(),
            };
            for (name, value) in found {
                let array = array_of(c, &value, dialect);
                let a = Assign {
                    name,
                    at: c.span.start,
                    conditional: c.conditional(),
                    value,
                    foreign: false,
                    array,
                };
                if local_at.contains(&c.span.start) {
                    ps.locals.push(a);
                } else {
                    assigns.push(a);
                }
            }
        }
        let mut vars = Self::build(assigns, dialect, script.vars_cut, Vec::new());
        match dialect {
            Dialect::Bash => {
                vars.fns = script
                    .functions
                    .iter()
                    .map(|f| (f.name.clone(), f.at, f.end))
                    .collect();
            }
            Dialect::PowerShell => {
                let lower = |ps: &[PsParam], all: bool| -> Vec<String> {
                    ps.iter()
                        .filter(|p| all || !p.default)
                        .map(|p| p.name.to_ascii_lowercase())
                        .collect()
                };
                ps.script = lower(&script.params, false);
                ps.fns = script
                    .functions
                    .iter()
                    .map(|f| (f.name.clone(), f.at, f.end, lower(&f.params, true)))
                    .collect();
                vars.ps = std::rc::Rc::new(ps);
            }
            Dialect::Cmd => {}
        }
        vars
    }

    fn build(assigns: Vec<Assign>, dialect: Dialect, cut: Option<u32>, sources: Vec<Sourced>) -> Self {
        let fold_case = dialect != Dialect::Bash;
        let mut by_name: std::collections::HashMap<String, Vec<usize>> = Default::default();
        let mut keyed = std::collections::HashMap::new();
        for (i, a) in assigns.iter().enumerate() {
            let key = if fold_case {
                a.name.to_ascii_lowercase()
            } else {
                a.name.clone()
            };
            if a.value.as_ref().is_err_and(|why| why == KEYED) {
                keyed.entry(key.clone()).or_insert(a.at);
            }
            by_name.entry(key).or_default().push(i);
        }
        Vars {
            assigns,
            dialect,
            fold_case,
            by_name,
            keyed,
            memo: Default::default(),
            cut,
            sources,
            arrays: Default::default(),
            expanded: Default::default(),
            fns: Vec::new(),
            frame: None,
            ps: Default::default(),
        }
    }

    /// A copy whose commands of the body of function `f` read `frame`'s arguments; the
    /// assignments written directly in the body (`starts`) are not under a condition there.
    pub(super) fn framed(&self, frame: Frame, starts: &std::collections::HashSet<u32>) -> Self {
        let mut assigns = self.assigns.clone();
        for a in assigns.iter_mut().filter(|a| !a.foreign && frame.covers(a.at)) {
            if starts.contains(&a.at) {
                a.conditional = false;
            }
        }
        // A PowerShell function's parameters: the call's values where it gives them,
        // else their defaults (read where the parameters are declared, at the start of
        // the body); else not set, not known ([`Eval::unset`] says why, and an `if (-not
        // $X) { $X = "d" }` gives its default).
        for (k, p) in frame.params.iter().enumerate() {
            let given = frame
                .args
                .as_ref()
                .is_some_and(|a| matches!(a.get(k), Some(Some(_))));
            let default = self.ps.locals.iter().find(|a| a.at == p.span.start && p.default);
            let value = match default {
                Some(d) if !given => d.value.clone(),
                None if !given => continue,
                _ => Ok(vec![WordPart::Var {
                    name: (k + 1).to_string(),
                    span: p.span,
                    scope: VarScope::Positional,
                    default: None,
                }]),
            };
            let at = p.span.start;
            let pos = assigns.partition_point(|a| a.at <= at);
            assigns.insert(
                pos,
                Assign {
                    name: p.name.clone(),
                    at,
                    conditional: false,
                    value,
                    foreign: false,
                    array: None,
                },
            );
        }
        let mut v = self.rebuilt(assigns);
        v.frame = Some(frame);
        v
    }

    /// A copy of these variables with `assigns` instead (the script's functions and
    /// PowerShell parameters kept), for a function's call or a loop's item.
    fn rebuilt(&self, assigns: Vec<Assign>) -> Self {
        let mut v = Self::build(assigns, self.dialect, self.cut, self.sources.clone());
        v.fns = self.fns.clone();
        v.ps = std::rc::Rc::clone(&self.ps);
        v
    }
}

impl Vars {
    /// A copy for one item of each loop of `binds` (where its `for` command starts, its
    /// variable, the item's parts): the loop's variable is that item, and the assignments
    /// written directly in the loops' bodies (`starts`) are not under a condition there
    /// (they run in the same turn of the loop as the commands after them).
    fn looped(&self, binds: &[(u32, &str, &[WordPart])], starts: &std::collections::HashSet<u32>) -> Self {
        let mut assigns = self.assigns.clone();
        for a in assigns.iter_mut().filter(|a| !a.foreign) {
            if let Some((.., item)) = binds.iter().find(|(at, name, _)| a.at == *at && a.name == *name) {
                a.value = Ok(item.to_vec());
                a.conditional = false;
                a.array = None;
            } else if starts.contains(&a.at) {
                a.conditional = false;
            }
        }
        self.rebuilt(assigns)
    }
}

impl Vars {
    /// Where the value of `name` is written, when one assignment before `at` sets it, not
    /// under a condition: the span of the value's parts (`exec_dir=$(dirname "$0")`).
    pub fn sole_value(&self, name: &str, at: u32) -> Option<Span> {
        if self.cut.is_some_and(|cut| cut < at) {
            return None;
        }
        let key = if self.fold_case {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        };
        let before: Vec<&Assign> = self
            .by_name
            .get(&key)?
            .iter()
            .map(|&i| &self.assigns[i])
            .filter(|a| a.at < at)
            .collect();
        match before.as_slice() {
            [a] if !a.conditional && !a.foreign => {
                let parts = a.value.as_ref().ok()?;
                Some(parts.first()?.span().cover(parts.last()?.span()))
            }
            _ => None,
        }
    }
}

/// Where the literal array an assignment gives is written: bash's `NAME=(...)` (the value
/// is that one part), PowerShell's `$Name = @(...)` (the command ends at `@`, where the
/// `(` opens).
fn array_of(c: &ShellCommand, value: &Result<Vec<WordPart>, String>, dialect: Dialect) -> Option<Span> {
    match dialect {
        Dialect::Bash => match value.as_ref().ok()?.as_slice() {
            [WordPart::Dynamic { span, why }] if *why == ARRAY_VALUE => Some(*span),
            _ => None,
        },
        Dialect::PowerShell => match c.words.as_slice() {
            [_, eq, at] if eq.literal().as_deref() == Some("=") && at.literal().as_deref() == Some("@") => {
                Some(Span::new(at.span.end, at.span.end))
            }
            // `$Name = 'a', 'b'` (audit 25, D4): its values, when a comma is not in a string
            // ([`ps_list`]).
            [_, eq, first, ..]
                if eq.literal().as_deref() == Some("=")
                    && c.words[2..].iter().any(|w| {
                        w.parts
                            .iter()
                            .any(|p| matches!(p, WordPart::Lit { text, .. } if text.contains(',')))
                    }) =>
            {
                let last = &c.words[c.words.len() - 1];
                Some(first.span.cover(last.span))
            }
            _ => None,
        },
        Dialect::Cmd => None,
    }
}

impl Vars {
    /// Where the literal array the last assignment of `name` before `at` gives it is
    /// written ([`Assign::array`]), or why its elements are not known.
    fn array(&self, name: &str, at: u32) -> Result<Span, String> {
        if self.cut.is_some_and(|cut| cut < at) {
            return Err(format!(
                "`{name}` may be set among more variables than are read before this"
            ));
        }
        let key = if self.fold_case {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        };
        if self.keyed.get(&key).is_some_and(|&first| first < at) {
            return Err(format!("`{name}` is declared an associative array"));
        }
        // The assignments are in the order they are written.
        let all = self.by_name.get(&key).map_or(&[][..], Vec::as_slice);
        let before = &all[..all.partition_point(|&i| self.assigns[i].at < at)];
        let Some(a) = before.last().map(|&i| &self.assigns[i]) else {
            return Err(format!("`{name}` is not set in this file"));
        };
        if a.conditional {
            return Err(format!("`{name}` is set under a condition"));
        }
        match (&a.value, a.array) {
            (_, Some(span)) if !a.foreign => Ok(span),
            (Err(why), _) => Err(format!("`{name}` is set where {why}")),
            _ => Err(format!("`{name}` is not a literal array")),
        }
    }
}

/// `source` commands followed at most in one script; the files of later ones are not read.
const MAX_SOURCED: usize = 8;

/// What a sourced file assigns: each variable, whether under a condition, its value's
/// parts (spans in that file) or why it is not known; and where the file's variables
/// stop being read (`Script::vars_cut`).
type SourcedAssigns = (Vec<(String, bool, Result<Vec<WordPart>, String>)>, Option<u32>);

impl Vars {
    /// The assignments of `script` ([`Vars::scan`]) and of the files its `source PATH` and
    /// `. PATH` commands read (bash; PowerShell's dot-sourcing `. PATH`), each known to
    /// the commands after its `source` as if written there. PATH is the command's first
    /// word, evaluated there, and looked for as a file named by `--file` is
    /// ([`candidates`]); the file is read through [`Files`] (inside the project, regular,
    /// under the size limit). One level: a sourced file's own `source`s are not followed.
    pub fn scan_sourcing(script: &Script, dialect: Dialect, input: &Input<'_>, outer: &dyn Outer) -> Self {
        let mut vars = Self::scan(script, dialect);
        let sourcing: Vec<(usize, &ShellCommand, &Word)> = script
            .commands
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((i, c, source_word(c, dialect)?)))
            .collect();
        if sourcing.is_empty() {
            return vars;
        }
        // Where each command runs, as the script's own assignments tell.
        let places = places(
            script,
            &Ctx {
                input,
                eval: Eval { vars: &vars, outer },
                note: None,
            },
        );
        let own = crate::fsio::normalize(input.path);
        let work_dir = outer.work_dir();
        for (n, &(i, c, path_word)) in sourcing.iter().enumerate() {
            let shown = input.source.slice(c.words[0].span.cover(path_word.span));
            let line = input.source.position(c.span.start).line;
            let cmd = format!("`{shown}` on line {line}");
            if n >= MAX_SOURCED {
                // The first not followed says why; the later ones would say the same.
                vars.sources.push(Sourced {
                    at: c.span.start,
                    read: Err(format!(
                        "{cmd} is not followed (a script's first {MAX_SOURCED} `source`s are)"
                    )),
                });
                break;
            }
            let cx = Ctx {
                input,
                eval: Eval { vars: &vars, outer },
                note: None,
            };
            // Looked for as `--file`'s is: from the script's own directory too.
            let (path, place) = match from_own_dir(path_word, &places[i], dialect, &cx, c.span.start) {
                Some(rest) => (rest, &Cwd::ScriptDir(PathBuf::new())),
                None => (cx.eval.word(path_word, c.span.start).value, &places[i]),
            };
            let read = {
                match path {
                    Err(why) => Err(format!("{cmd} names a file not known statically: {why}")),
                    Ok(path) => match candidates(place, input, work_dir.as_deref(), &path, dialect) {
                        Err(why) => Err(format!("{cmd} runs in a directory not known statically: {why}")),
                        Ok(found) => named_file(found, &own, input.files)
                            .map_err(|why| format!("{cmd} {}", why.after_command())),
                    },
                }
            };
            let mut assigns = std::mem::take(&mut vars.assigns);
            let mut sources = std::mem::take(&mut vars.sources);
            let read = match read {
                Ok((file, display)) => {
                    let (found, cut) = &*input.files.derived(&file, sourced_key(dialect), || {
                        sourced_assigns(input, &file, &display, dialect)
                    });
                    // Before the script's assignments that follow the `source` command.
                    let at = assigns.partition_point(|a| a.at <= c.span.start);
                    let taken = found.iter().map(|(name, conditional, value)| Assign {
                        name: name.clone(),
                        at: c.span.start,
                        conditional: *conditional || c.conditional(),
                        value: value.clone(),
                        foreign: true,
                        array: None,
                    });
                    assigns.splice(at..at, taken.collect::<Vec<_>>());
                    match cut {
                        Some(_) => Err(format!(
                            "{cmd} reads `{display}`, which sets more variables than are read"
                        )),
                        None => Ok(display),
                    }
                }
                Err(why) => Err(why),
            };
            sources.push(Sourced {
                at: c.span.start,
                read,
            });
            let fns = std::mem::take(&mut vars.fns);
            let ps = std::mem::take(&mut vars.ps);
            vars = Self::build(assigns, vars.dialect, vars.cut, sources);
            vars.fns = fns;
            vars.ps = ps;
        }
        vars
    }
}

/// The PATH word of a `source PATH` or `. PATH` command.
fn source_word(c: &ShellCommand, dialect: Dialect) -> Option<&Word> {
    let first = c.words.first()?.literal()?;
    let sources = match dialect {
        Dialect::Bash => matches!(first.as_str(), "source" | "."),
        Dialect::PowerShell => first == ".",
        Dialect::Cmd => false,
    };
    sources.then(|| c.words.get(1)).flatten()
}

/// Whether a script's `text` may hold a command [`source_word`] takes: a `source`, or a
/// `.` before a blank (a superset, asked before the script is parsed).
pub fn may_source(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"source").is_some()
        || text
            .windows(2)
            .any(|w| w[0] == b'.' && matches!(w[1], b' ' | b'\t'))
}

/// The key of a sourced file's assignments in [`Files::derived`], per dialect.
fn sourced_key(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::PowerShell => "sourced assignments (PowerShell)",
        _ => "sourced assignments",
    }
}

/// What the sourced file `file` assigns (its `source` commands are not followed).
fn sourced_assigns(input: &Input<'_>, file: &Path, display: &str, dialect: Dialect) -> SourcedAssigns {
    let Some(source) = input.files.read(file, display) else {
        return (Vec::new(), None);
    };
    let options = super::shell::LexOptions {
        keep: Some(wanted),
        ..super::shell::LexOptions::new(dialect)
    };
    let script = super::shell::parse_file(&source.text, options);
    let vars = Vars::scan(&script, dialect);
    let assigns = vars
        .assigns
        .into_iter()
        .map(|a| (a.name, a.conditional, a.value))
        .collect();
    (assigns, script.vars_cut)
}

/// A variable a command assigns, and its value's parts (or why it is not known).
type Assigned = (String, Result<Vec<WordPart>, String>);

/// Why a bash array declared associative (`declare -A NAME`) is not read by index (an
/// [`Assign`]'s error, before its value's assignment when it has one).
const KEYED: &str = "it is declared an associative array";

/// What a bash command assigns: `export`/`declare`/`local`... `NAME=value`, `read NAME`,
/// `for NAME in`, and `NAME=value...` on their own or before a command.
fn bash_assignments(c: &ShellCommand) -> Vec<Assigned> {
    let mut out = Vec::new();
    match c.words[0].literal().as_deref() {
        Some("export" | "declare" | "local" | "readonly" | "typeset") => {
            // `declare -A NAME`: its elements are set by key, not by index.
            let keyed = c.words[1..]
                .iter()
                .any(|w| w.literal().is_some_and(|l| l.starts_with('-') && l.contains('A')));
            for w in c.words[1..]
                .iter()
                .filter(|w| !w.literal().is_some_and(|l| l.starts_with('-')))
            {
                let assigned = split_assignment(w);
                if keyed
                    && let Some(name) = assigned
                        .as_ref()
                        .map(|(n, _)| n.clone())
                        .or_else(|| w.literal().filter(|l| is_ident(l)))
                {
                    out.push((name, Err(KEYED.into())));
                }
                if let Some((name, parts)) = assigned {
                    out.push((name, Ok(parts)));
                }
            }
        }
        // `unset NAME`, `unset 'NAME[i]'`: not known from here on (not functions: `-f`).
        Some("unset") if !c.words[1..].iter().any(|w| w.literal().as_deref() == Some("-f")) => {
            for w in &c.words[1..] {
                let Some(l) = w.literal().filter(|l| !l.starts_with('-')) else {
                    continue;
                };
                let name = l.split_once('[').map_or(l.as_str(), |(n, _)| n);
                if is_ident(name) {
                    out.push((name.to_string(), Err(format!("`{l}` is unset"))));
                }
            }
        }
        // `mapfile NAME`, `readarray -t NAME`: an array read from the input.
        Some("mapfile" | "readarray") => {
            let mut words = c.words[1..].iter();
            while let Some(w) = words.next() {
                let l = w.literal().unwrap_or_default();
                if matches!(l.as_str(), "-d" | "-n" | "-O" | "-s" | "-u" | "-C" | "-c") {
                    words.next();
                } else if is_ident(&l) {
                    out.push((l, Err("it is read from the input".into())));
                }
            }
        }
        Some("read") => {
            for w in &c.words[1..] {
                if let Some(name) = w.literal().filter(|l| is_ident(l)) {
                    out.push((name, Err("it is read from the input".into())));
                }
            }
        }
        Some("for" | "select") => {
            if let Some(name) = c.words.get(1).and_then(Word::literal).filter(|l| is_ident(l)) {
                out.push((name, Err(LOOP_VARIABLE.into())));
            }
        }
        _ => {
            let all: Option<Vec<Assigned>> = c
                .words
                .iter()
                .map(|w| match split_assignment(w) {
                    Some((name, parts)) => Some((name, Ok(parts))),
                    // `NAME+=value`, `NAME+=(...)`: appended to; `NAME[i]=value`: an
                    // element set (audit 25, D9). Either way, not known from here on.
                    None => split_at_equals(w).and_then(|(name, _)| {
                        if let Some(n) = name.strip_suffix('+').filter(|n| is_ident(n)) {
                            return Some((n.to_string(), Err("it is appended to".to_string())));
                        }
                        let (n, index) = name.split_once('[')?;
                        (is_ident(n) && index.ends_with(']'))
                            .then(|| (n.to_string(), Err(format!("its element `{name}` is set"))))
                    }),
                })
                .collect();
            // `NAME=value cmd` sets NAME for that command only.
            if let Some(all) = all {
                out.extend(all);
            }
        }
    }
    out
}

/// What a PowerShell command assigns: `$Name = value`, `[string]$Name = value` (a
/// `param(...)` default), `$env:NAME = value`, `$Name="value"`, `$Name = $env:X ?? "value"`
/// (and `if ($env:X) { $env:X } else { "value" }`, which the tokenizer reads as one word).
fn powershell_assignment(c: &ShellCommand) -> Option<Assigned> {
    let target = |w: &Word| match w.parts.as_slice() {
        [WordPart::Var { name, scope, .. }] => Some((name.clone(), *scope)),
        [WordPart::Lit { text, .. }, WordPart::Var { name, scope, .. }]
            if text.starts_with('[') && text.ends_with(']') =>
        {
            Some((name.clone(), *scope))
        }
        _ => None,
    };
    let eq = c.words.get(1).and_then(Word::literal);
    if let (Some((name, _)), Some("=")) = (target(&c.words[0]), eq.as_deref()) {
        let value = match &c.words[2..] {
            [w] if ps_value(w) => Ok(trim_ps_value(w.parts.clone())),
            // `$env:NAME ?? "default"` (PowerShell 7): the variable, or the literal when it
            // is not set.
            [v, op, d] if op.literal().as_deref() == Some("??") && ps_value(d) => match v.parts.as_slice() {
                [
                    WordPart::Var {
                        name,
                        span,
                        scope,
                        default: None,
                    },
                ] => Ok(vec![WordPart::Var {
                    name: name.clone(),
                    span: *span,
                    scope: *scope,
                    default: Some(trim_ps_value(d.parts.clone())),
                }]),
                _ => Err("it is assigned an expression".into()),
            },
            [_] => Err("it is assigned the output of a command or an expression".into()),
            [] => Err("it is assigned on another line".into()),
            _ => Err("it is assigned an expression".into()),
        };
        Some((name, value))
    } else if let [w] = c.words.as_slice()
        && let [
            WordPart::Var { name, .. },
            WordPart::Lit { text, span, exact },
            rest @ ..,
        ] = w.parts.as_slice()
        && text.starts_with('=')
    {
        Some((name.clone(), Ok(value_parts(text, *span, *exact, 1, rest))))
    } else {
        None
    }
}

/// The defaults of a `param(...)` list written on one line (`param([string]$Name = "c5",
/// [int]$N = 3, [string]$Size)`: the tokenizer gives the declarations inside the brackets
/// as one command), each typed declaration with a default an assignment of it; `None`
/// when the command is not two or more such declarations separated by `,` (`[string[]]$a
/// = "x", "y"` assigns a list).
fn powershell_params(c: &ShellCommand) -> Option<Vec<Assigned>> {
    let mut groups: Vec<&[Word]> = Vec::new();
    let mut start = 0;
    for (i, w) in c.words.iter().enumerate() {
        let ends_list = matches!(w.parts.last(), Some(WordPart::Lit { text, .. }) if text.ends_with(','));
        if ends_list || i + 1 == c.words.len() {
            groups.push(&c.words[start..=i]);
            start = i + 1;
        }
    }
    if groups.len() < 2 {
        return None;
    }
    let mut out = Vec::new();
    for g in groups {
        let name = match g.first()?.parts.as_slice() {
            [WordPart::Lit { text, .. }, WordPart::Var { name, .. }, rest @ ..]
                if text.starts_with('[')
                    && text.ends_with(']')
                    && rest
                        .iter()
                        .all(|p| matches!(p, WordPart::Lit { text, .. } if text == ",")) =>
            {
                name.clone()
            }
            _ => return None,
        };
        match g {
            [_] => {}
            [_, eq, value] if eq.literal().as_deref() == Some("=") => out.push((
                name,
                if ps_value(value) {
                    Ok(trim_ps_value(value.parts.clone()))
                } else {
                    Err("it is assigned the output of a command or an expression".into())
                },
            )),
            _ => out.push((name, Err("it is assigned an expression".into()))),
        }
    }
    Some(out)
}

/// What a cmd command assigns: `set NAME=value`, `set /p NAME=` and `set /a NAME=`.
fn cmd_assignment(c: &ShellCommand) -> Option<Assigned> {
    let first = c.words[0].literal();
    if !first.as_deref().is_some_and(|f| f.eq_ignore_ascii_case("set")) {
        return None;
    }
    match c.words.get(1) {
        Some(w) if w.literal().is_some_and(|l| l.starts_with('/')) => {
            let (name, _) = c.words.get(2).and_then(split_assignment)?;
            Some((name, Err("it is read from the input or computed".into())))
        }
        Some(w) => {
            let (name, mut parts) = split_assignment(w)?;
            let rest = &c.words[2..];
            if rest.is_empty() {
                return Some((name, Ok(parts)));
            }
            // `set NAME=a b` (audit 25, D8): the value is the rest of the command, blanks
            // and all (one blank here, as splitting reads it), unless quotes are in it
            // (kept in the value by cmd, taken away by the reader).
            let unquoted = |w: &Word| {
                w.span == w.inner_span()
                    && w.parts.iter().all(|p| match p {
                        WordPart::Lit { text, span, .. } => text.len() == span.len() as usize,
                        _ => true,
                    })
            };
            if !c.words[1..].iter().all(unquoted) {
                return Some((name, Err("it is set to text with quotes".into())));
            }
            let mut before = w.span;
            for next in rest {
                parts.push(WordPart::Lit {
                    text: " ".into(),
                    span: Span::new(before.end, next.span.start),
                    exact: false,
                });
                parts.extend(next.parts.iter().cloned());
                before = next.span;
            }
            Some((name, Ok(parts)))
        }
        None => None,
    }
}

/// Evaluates words against a script's assignments and its context.
pub struct Eval<'a> {
    pub vars: &'a Vars,
    pub outer: &'a dyn Outer,
}

/// A word's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    pub value: Result<String, String>,
    /// The literal the value is, when it came from one variable assigned one literal in
    /// this file.
    pub origin: Option<Span>,
    /// The word is one literal written as it is.
    pub in_place: bool,
}

impl Eval<'_> {
    /// The value of `word` in a command starting at `at`.
    pub fn word(&self, word: &Word, at: u32) -> Evaluated {
        let (value, origin) = self.parts(&word.parts, At::of(at), 0);
        // One literal written as it is, and not rewritten by what runs the script (a
        // notebook's `{name}` is a Python variable's value).
        let in_place = matches!(word.parts.as_slice(), [WordPart::Lit { exact: true, text, .. }]
            if value.as_deref() == Ok(text.as_str()));
        Evaluated {
            value,
            origin: if in_place { None } else { origin },
            in_place,
        }
    }

    fn parts(&self, parts: &[WordPart], at: At, depth: usize) -> (Result<String, String>, Option<Span>) {
        let mut out = String::new();
        let mut origin = None;
        let single = parts.len() == 1;
        for p in parts {
            let v = match p {
                WordPart::Lit { text, span, .. } => match self.outer.lit(text, *span) {
                    Some(v) => v,
                    None => ScriptVal::known(text.clone(), None),
                },
                WordPart::Var {
                    name, scope, default, ..
                } => self.var(name, *scope, default.as_deref(), at, depth),
                WordPart::Expr { text, .. } => self.outer.expr(text).unwrap_or_else(|| {
                    ScriptVal::Dynamic(format!(
                        "`${{{{ {text} }}}}` is only known when the workflow runs"
                    ))
                }),
                WordPart::Macro { name, .. } => self.outer.macro_var(name).unwrap_or_else(|| {
                    ScriptVal::Dynamic(format!("`$({name})` is not set in this pipeline"))
                }),
                WordPart::Dynamic { why, .. } => ScriptVal::Dynamic(format!("it is {why}")),
            };
            match v {
                ScriptVal::Known { text, literal } => {
                    if out.len() + text.len() > MAX_VALUE {
                        return (Err(format!("its value is longer than {MAX_VALUE} bytes")), None);
                    }
                    out.push_str(&text);
                    if single {
                        origin = literal;
                    }
                }
                ScriptVal::Dynamic(why) => return (Err(why), None),
            }
        }
        (Ok(out), origin)
    }

    fn var(
        &self,
        name: &str,
        scope: VarScope,
        default: Option<&[WordPart]>,
        at: At,
        depth: usize,
    ) -> ScriptVal {
        if depth >= MAX_NESTING {
            return ScriptVal::Dynamic(format!("`{name}` refers to variables nested too deep"));
        }
        // `${X:-d}` where `X` was last set, not under a condition, to a plain copy of
        // another variable (`X=$Y`, PowerShell's `$X = $env:Y` then `if (-not $X) { $X =
        // "d" }`): `${Y:-d}` there, as `$X = $env:Y ?? "d"` is.
        if let Some(d) = default
            && matches!(scope, VarScope::Shell | VarScope::Env)
            && let Some((copied, copied_scope, from)) = self.copy_of(name, at)
        {
            return self.var(&copied, copied_scope, Some(d), from, depth + 1);
        }
        let found = match scope {
            VarScope::Shell | VarScope::Env => self.assigned(name, at),
            VarScope::Positional => match self.vars.frame.as_ref().filter(|f| f.covers(at.offset)) {
                Some(f) => match f.arg(name, at.offset) {
                    Some(Arg0::Value(v)) => Some(v),
                    Some(Arg0::Missing(_)) if default.is_some() => None,
                    Some(Arg0::Missing(why) | Arg0::Unknown(why)) => Some(ScriptVal::Dynamic(why)),
                    None => None,
                },
                None => None,
            },
            VarScope::Make => None,
        };
        if let Some(v) = found {
            return v;
        }
        if let Some(v) = self.outer.var_at(name, scope, at.offset) {
            return v;
        }
        if let Some(d) = default {
            return match self.parts(d, at, depth + 1) {
                (Ok(text), literal) => ScriptVal::Known { text, literal },
                (Err(why), _) => ScriptVal::Dynamic(why),
            };
        }
        ScriptVal::Dynamic(match scope {
            // The innermost function around: the last opened before that holds it (among
            // the 64 opened last before, for a bounded search).
            VarScope::Positional if name.starts_with("args[") => {
                format!("`${name}` is an argument of the script, given when it runs")
            }
            VarScope::Positional => {
                match self.vars.fns[..self.vars.fns.partition_point(|f| f.1 <= at.offset)]
                    .iter()
                    .rev()
                    .take(64)
                    .find(|f| at.offset < f.2)
                {
                    Some((f, ..)) if name != "0" => {
                        format!(
                            "`${name}` is the argument {name} of the function `{f}`, given where it is called"
                        )
                    }
                    _ => format!("the script's argument {name} is given when it runs"),
                }
            }
            VarScope::Make => format!("`{name}` is not set in this Makefile"),
            _ => self.unset(name, at.offset),
        })
    }

    /// Why `name`, set nowhere before `at`, is not known: the environment's, unless a
    /// file sourced before could not be read.
    fn unset(&self, name: &str, at: u32) -> String {
        // PowerShell's automatic variable: the directory of the script's own file, known
        // only where a path starts with it (`cwd::from_script_dir`).
        if self.vars.dialect == Dialect::PowerShell && name.eq_ignore_ascii_case("PSScriptRoot") {
            return format!(
                "`${name}` is the directory of the script's own file, which is only followed at the start of a path (`--file`, `. PATH`, `cd`) in a script file of its own"
            );
        }
        if self.vars.dialect == Dialect::PowerShell {
            if let Some(f) = self.vars.frame.as_ref().filter(|f| f.covers(at))
                && let Some(k) = f.params.iter().position(|p| p.name.eq_ignore_ascii_case(name))
                && let Arg0::Missing(why) | Arg0::Unknown(why) = f.ps_arg(k + 1, &f.params[k])
            {
                return why;
            }
            let lower = name.to_ascii_lowercase();
            let ps = &self.vars.ps;
            // The innermost function around that declares it (among the 64 opened last
            // before, for a bounded search).
            let fns = &ps.fns[..ps.fns.partition_point(|f| f.1 <= at)];
            if let Some((f, ..)) = fns
                .iter()
                .rev()
                .take(64)
                .find(|f| at < f.2 && f.3.contains(&lower))
            {
                return format!("`${name}` is a parameter of the function `{f}`, given where it is called");
            }
            if ps.script.contains(&lower) {
                return format!(
                    "`${name}` is a parameter of the script without a default: it is given when the script runs"
                );
            }
        }
        let before = self.vars.sources.iter().filter(|s| s.at < at);
        let unread: Vec<&str> = before
            .clone()
            .filter_map(|s| s.read.as_ref().err())
            .map(String::as_str)
            .collect();
        if !unread.is_empty() {
            return format!("`{name}` is not set in this file; {}", unread.join("; "));
        }
        let read: Vec<String> = before
            .filter_map(|s| s.read.as_ref().ok())
            .map(|f| format!("`{f}`"))
            .collect();
        if read.is_empty() {
            format!("`{name}` is not set in this file (it comes from the environment)")
        } else {
            format!(
                "`{name}` is not set in this file nor in {} it sources (it comes from the environment)",
                read.join(", ")
            )
        }
    }

    /// The value assignment `k` gives its variable (computed once, in order).
    fn assignment(&self, k: usize) -> ScriptVal {
        loop {
            let next = self.vars.memo.borrow().len();
            if next > k {
                break;
            }
            // Values of assignments before `next` are all in the memo: no recursion.
            let a = &self.vars.assigns[next];
            // A sourced file's assignment sees those before it in that file too.
            let at = At {
                offset: a.at,
                index: if a.foreign { next } else { 0 },
            };
            let v = match &a.value {
                Err(why) => ScriptVal::Dynamic(format!("`{}` is set where {why}", a.name)),
                Ok(parts) => match self.parts(parts, at, 0) {
                    (Ok(text), literal) => {
                        let literal = literal.or(match parts.as_slice() {
                            [
                                WordPart::Lit {
                                    span, exact: true, ..
                                },
                            ] if !a.foreign => Some(*span),
                            // PowerShell's defaults (`if (-not $X) { $X = "d" }`, `$X =
                            // $env:X ?? "d"`): the default's literal, when it is the value.
                            [WordPart::Var { default: Some(d), .. }]
                                if !a.foreign && self.vars.dialect == Dialect::PowerShell =>
                            {
                                match d.as_slice() {
                                    [
                                        WordPart::Lit {
                                            span,
                                            exact: true,
                                            text: t,
                                        },
                                    ] if *t == text => Some(*span),
                                    _ => None,
                                }
                            }
                            _ => None,
                        });
                        ScriptVal::Known { text, literal }
                    }
                    (Err(why), _) => ScriptVal::Dynamic(why),
                },
            };
            self.vars.memo.borrow_mut().push(v);
        }
        self.vars.memo.borrow()[k].clone()
    }

    /// The assignments of the variable `name` before `at` (indices of `vars.assigns`, in
    /// order), if any assigns it.
    fn assigns_before(&self, name: &str, at: At) -> Option<&[usize]> {
        let key = if self.vars.fold_case {
            std::borrow::Cow::Owned(name.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(name)
        };
        let all = self.vars.by_name.get(key.as_ref())?;
        Some(&all[..all.partition_point(|&i| (self.vars.assigns[i].at, i) < (at.offset, at.index))])
    }

    /// The variable `name`'s last assignment before `at`, when it is not under a condition
    /// and copies another variable (`X=$Y`, `$X = $env:Y`): that variable, and where.
    fn copy_of(&self, name: &str, at: At) -> Option<(String, VarScope, At)> {
        if self.vars.cut.is_some_and(|cut| cut < at.offset) {
            return None;
        }
        let last = *self.assigns_before(name, at)?.last()?;
        let a = &self.vars.assigns[last];
        if a.conditional || a.foreign || a.array.is_some() {
            return None;
        }
        match a.value.as_ref().ok()?.as_slice() {
            [
                WordPart::Var {
                    name,
                    scope: scope @ (VarScope::Shell | VarScope::Env),
                    default: None,
                    ..
                },
            ] => Some((name.clone(), *scope, At::of(a.at))),
            _ => None,
        }
    }

    /// Whether the assignment `i` takes exactly one of the script's arguments: a
    /// positional parameter (`"$2"`, `${1}`) or `getopts`' `$OPTARG`.
    fn takes_an_argument(&self, i: usize) -> bool {
        let a = &self.vars.assigns[i];
        !a.foreign
            && a.array.is_none()
            && matches!(
                a.value.as_ref().map(Vec::as_slice),
                Ok([WordPart::Var { name, scope, default: None, .. }])
                    if *scope == VarScope::Positional || (*scope == VarScope::Shell && name == "OPTARG")
            )
    }

    /// The value the assignments before `at` give `name`, if any assigns it.
    fn assigned(&self, name: &str, at: At) -> Option<ScriptVal> {
        if self.vars.cut.is_some_and(|cut| cut < at.offset) {
            return Some(ScriptVal::Dynamic(format!(
                "`{name}` may be set among more variables than are read before this"
            )));
        }
        let before = self.assigns_before(name, at)?;
        let last = *before.last()?;
        if !self.vars.assigns[last].conditional {
            return Some(self.assignment(last));
        }
        // Set under a condition: with the last unconditional assignment before, the
        // values it can have here.
        let base = before.iter().rposition(|&i| !self.vars.assigns[i].conditional);
        let conditional = &before[base.map_or(0, |b| b + 1)..];
        if conditional.len() > MAX_BRANCHES {
            return Some(ScriptVal::Dynamic(format!(
                "`{name}` is set under too many conditions"
            )));
        }
        let branches: Vec<ScriptVal> = conditional.iter().map(|&i| self.assignment(i)).collect();
        let default = base.map(|b| self.assignment(before[b]));
        let known: Vec<&ScriptVal> = branches
            .iter()
            .filter(|v| matches!(v, ScriptVal::Known { .. }))
            .collect();
        let text = |v: &ScriptVal| match v {
            ScriptVal::Known { text, .. } => Some(text.clone()),
            ScriptVal::Dynamic(_) => None,
        };
        Some(match (&default, known.is_empty()) {
            (_, false) if known.len() == branches.len() => {
                let first = text(known[0]);
                let alike = known.iter().all(|v| text(v) == first)
                    && default.as_ref().is_none_or(|d| text(d) == first);
                if alike {
                    known[0].clone()
                } else {
                    ScriptVal::Dynamic(format!(
                        "`{name}` is set to different values under different conditions"
                    ))
                }
            }
            // Set under a condition only from the script's command line (`--name)
            // NAME="$2"` in an option loop, `getopts`' `$OPTARG`, `if [ -n "$1" ]; then
            // NAME="$1"; fi`) after a literal default: the default, the value of every run
            // that does not pass the option, as `${1:-default}`, PowerShell's `param()` and
            // Python's argparse defaults are read (audit 32, case 04; audit 27's case 05
            // had taken it as unknown).
            (Some(d @ ScriptVal::Known { .. }), true)
                if conditional.iter().all(|&i| self.takes_an_argument(i)) =>
            {
                d.clone()
            }
            // Set under a condition to something not known statically (a command's
            // output): unknown, even with a literal before — the run may take the branch.
            _ => branches
                .iter()
                .find_map(|v| match v {
                    ScriptVal::Dynamic(why) => Some(ScriptVal::Dynamic(format!(
                        "`{name}` is set under a condition to a value not known ({why})"
                    ))),
                    ScriptVal::Known { .. } => None,
                })
                .unwrap_or_else(|| ScriptVal::Dynamic(format!("`{name}` is only set under a condition"))),
        })
    }
}

/// Where an option's value goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Name,
    Field(&'static str, ValueKind),
    File,
    Set,
    /// Takes a value this reader does not need.
    Skip,
    /// Takes no value.
    Flag,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Str,
    Int,
    Bool,
    /// `Enabled`/`Disabled` (SDK v1's remote login port).
    Enabled,
    /// SDK v1's `dedicated`/`lowpriority` (`--vm-priority`), as the tier Azure ML YAML
    /// writes (`low_priority`), which the rules compare.
    Priority,
}

/// The options of `az ml compute create|attach` this reader reads.
fn v2_option(opt: &str) -> Target {
    match opt {
        "--name" | "-n" => Target::Name,
        "--type" | "-t" => Target::Field("type", ValueKind::Str),
        "--size" | "--vm-size" => Target::Field("size", ValueKind::Str),
        "--min-instances" => Target::Field("min_instances", ValueKind::Int),
        "--max-instances" => Target::Field("max_instances", ValueKind::Int),
        "--tier" => Target::Field("tier", ValueKind::Str),
        "--idle-time-before-scale-down" => Target::Field("idle_time_before_scale_down", ValueKind::Int),
        // A compute instance's idle shutdown, in minutes or as an ISO 8601 duration.
        "--idle-time-before-shutdown-minutes" => {
            Target::Field("idle_time_before_shutdown_minutes", ValueKind::Int)
        }
        "--idle-time-before-shutdown" => Target::Field("idle_time_before_shutdown", ValueKind::Str),
        "--enable-node-public-ip" => Target::Field("enable_node_public_ip", ValueKind::Bool),
        "--ssh-public-access-enabled" => Target::Field("ssh_public_access_enabled", ValueKind::Bool),
        "--subnet" => Target::Field("network_settings.subnet", ValueKind::Str),
        "--vnet-name" => Target::Field("network_settings.vnet_name", ValueKind::Str),
        "--location" | "-l" => Target::Field("location", ValueKind::Str),
        "--file" | "-f" => Target::File,
        "--set" => Target::Set,
        "--no-wait" | "--yes" | "-y" | "--debug" | "--verbose" | "--only-show-errors" | "--help" | "-h" => {
            Target::Flag
        }
        _ => Target::Skip,
    }
}

/// The options `az ml compute create` has (the `ml` extension, azext_mlv2: the parameters
/// of `ml_compute_create` as `_compute_params.py` names them, with `add_common_params`'
/// `--resource-group/-g` and `--workspace-name/-w`), whatever `--type`: the type's schema
/// refuses afterwards what the type lacks ([`ComputeDef::refuse_keys_the_type_lacks`]).
const V2_CREATE_OPTIONS: &[&str] = &[
    "--name",
    "--type",
    "--vnet-name",
    "--subnet",
    "--admin-username",
    "--admin-password",
    "--ssh-key-value",
    "--ssh-public-access-enabled",
    "--file",
    "--size",
    "--no-wait",
    "--user-tenant-id",
    "--user-object-id",
    "--min-instances",
    "--max-instances",
    "--idle-time-before-scale-down",
    "--description",
    "--identity-type",
    "--user-assigned-identities",
    "--enable-node-public-ip",
    "--tier",
    "--tags",
    "--location",
    "--set",
    "--resource-group",
    "--workspace-name",
];

/// The options `az ml compute attach` has (`ml_compute_attach`, likewise).
const V2_ATTACH_OPTIONS: &[&str] = &[
    "--name",
    "--type",
    "--resource-id",
    "--admin-username",
    "--admin-password",
    "--ssh-port",
    "--no-wait",
    "--ssh-private-key-file",
    "--file",
    "--namespace",
    "--identity-type",
    "--user-assigned-identities",
    "--resource-group",
    "--workspace-name",
];

/// The options every command of the Azure CLI has (knack's and azure-cli's own).
const AZ_GLOBAL_OPTIONS: &[&str] = &[
    "--subscription",
    "--output",
    "--query",
    "--debug",
    "--verbose",
    "--only-show-errors",
    "--help",
];

/// The long options `az ml compute create|attach` (`verb`) accepts: its own, the CLI's,
/// and every one this reader reads ([`v2_option`]: older or newer extensions' too), so
/// that none of those is ever called unknown.
fn v2_accepts(verb: &str) -> impl Iterator<Item = &'static str> {
    let own = if verb == "attach" {
        V2_ATTACH_OPTIONS
    } else {
        V2_CREATE_OPTIONS
    };
    const READ: &[&str] = &[
        "--vm-size",
        "--idle-time-before-shutdown-minutes",
        "--idle-time-before-shutdown",
        "--ssh-public-access-enabled",
        "--location",
        "--set",
        "--yes",
    ];
    own.iter().chain(AZ_GLOBAL_OPTIONS).chain(READ).copied()
}

/// Whether the long option `opt` (`--sizee`) is certainly not one of `az ml compute
/// create|attach` (`verb`): neither an option it has nor a prefix of one (argparse takes
/// an unambiguous prefix for the option, and an ambiguous one is not called unknown
/// either). Only `--` options of letters, digits and `-`: a word with a blank is an
/// argument to argparse, not an option, and one with `_` (`--max_instances`, an
/// attribute's name) is left alone, as is anything else unusual.
fn unknown_v2_option(verb: &str, opt: &str) -> bool {
    opt.len() > 2
        && opt.starts_with("--")
        && opt[2..].chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !v2_accepts(verb).any(|o| o.starts_with(opt))
}

/// An unknown option's closest option of `az ml compute create|attach` (`verb`).
fn v2_suggestion(verb: &str, opt: &str) -> Option<String> {
    let known: Vec<&str> = v2_accepts(verb).collect();
    crate::suggest::closest(opt, known.iter().copied()).map(str::to_string)
}

/// Unknown options recorded at most for one command: a command of 10,000 of them gives
/// no more findings than this.
const MAX_UNKNOWN_OPTIONS: usize = 16;

/// The options of SDK v1's `az ml computetarget create|attach <type>`.
fn v1_option(opt: &str) -> Target {
    match opt {
        "--name" | "-n" => Target::Name,
        "--vm-size" | "-s" => Target::Field("size", ValueKind::Str),
        "--min-nodes" => Target::Field("min_instances", ValueKind::Int),
        "--max-nodes" | "-M" => Target::Field("max_instances", ValueKind::Int),
        "--vm-priority" | "-p" => Target::Field("tier", ValueKind::Priority),
        "--idle-seconds-before-scaledown" => Target::Field("idle_time_before_scale_down", ValueKind::Int),
        "--remote-login-port-public-access" => Target::Field("ssh_public_access_enabled", ValueKind::Enabled),
        "--subnet-name" => Target::Field("network_settings.subnet", ValueKind::Str),
        "--vnet-name" => Target::Field("network_settings.vnet_name", ValueKind::Str),
        "--location" | "-l" => Target::Field("location", ValueKind::Str),
        // `computetarget create aks`: the cluster's node count and purpose.
        "--agent-count" => Target::Field("agent_count", ValueKind::Int),
        "--cluster-purpose" => Target::Field("cluster_purpose", ValueKind::Str),
        "--no-wait" | "--yes" | "-y" | "--debug" | "--verbose" | "--only-show-errors" | "--help" | "-h" => {
            Target::Flag
        }
        _ => Target::Skip,
    }
}

/// SDK v1's compute target types as compute types.
fn v1_type(t: &str) -> String {
    match t.to_ascii_lowercase().as_str() {
        "remote" => "virtualmachine".into(),
        "hdi" => "hdinsight".into(),
        other => other.into(),
    }
}

/// Whether the readers need a command (the first words of it, [`super::shell::DECIDE_AT`]
/// at most): an assignment, a declaration, anything starting with an expansion (a
/// PowerShell `$x = ...`), or `az ml compute|computetarget create|attach`. Other commands
/// are dropped as they are read.
pub fn wanted(words: &[Word]) -> Keep {
    // Wherever `az` is: what runs it is weighed when the command is read ([`az_at`]).
    for az in (0..words.len()).filter(|&i| is_az(&words[i])) {
        let lit = |i: usize| words.get(az + i).and_then(Word::literal);
        let read = lit(1).as_deref() == Some("ml")
            && matches!(lit(2).as_deref(), Some("compute" | "computetarget"))
            && lit(3).is_none_or(|verb| matches!(verb.as_str(), "create" | "attach"));
        // A template deployment (`az deployment group create`, `az group deployment
        // create`): its template's computes, with the parameters it passes (`deploy`).
        let deploys = matches!(
            (lit(1).as_deref(), lit(2).as_deref(), lit(3).as_deref()),
            (
                Some("deployment"),
                Some("group" | "sub" | "mg" | "tenant"),
                Some("create") | None
            ) | (Some("group"), Some("deployment"), Some("create") | None)
        );
        if read || deploys {
            return Keep::Read;
        }
    }
    // `terraform plan|apply`: the root module's computes, with the variables it passes
    // (`deploy::terraform_from_script`).
    if terraform_at(words).is_some() {
        return Keep::Read;
    }
    // A Python file of the project run with its arguments (`deploy::python_from_script`).
    if python_at(words).is_some() {
        return Keep::Read;
    }
    // A shell script of the project run with its arguments (`deploy::shell_from_script`).
    if shell_run_at(words).is_some() {
        return Keep::Read;
    }
    let Some(first) = words.first().and_then(Word::literal) else {
        return Keep::Vars;
    };
    if first.contains('=') || first.starts_with('[') {
        return Keep::Vars;
    }
    let lower = first.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "export"
            | "declare"
            | "local"
            | "readonly"
            | "typeset"
            | "read"
            | "for"
            | "select"
            | "set"
            | "param"
            | "source"
            | "."
            // `eval $CMD`: the command a variable holds ([`Evals`]).
            | "eval"
            // A function's arguments move ([`Frame`]).
            | "shift"
    ) || super::cwd::is_move_word(&lower)
    {
        return Keep::Vars;
    }
    Keep::Drop
}

/// Where `terraform` is among a command's first words when it runs `plan` or `apply`
/// (after `-chdir=DIR` or other global options): `terraform apply -var-file=prod.tfvars`,
/// `sudo terraform -chdir=infra plan`; after assignments for it too (`TF_LOG=1 terraform
/// plan`).
pub(super) fn terraform_at(words: &[Word]) -> Option<usize> {
    let is_terraform = |w: &Word| {
        w.literal().is_some_and(|l| {
            let l = l.trim_start_matches(['@', '-', '+']);
            let p = l.rsplit(['/', '\\']).next().unwrap_or(l).to_ascii_lowercase();
            matches!(p.as_str(), "terraform" | "terraform.exe")
        })
    };
    let t = (0..words.len().min(4)).find(|&i| is_terraform(&words[i]))?;
    let before_ok = words[..t].iter().all(|w| {
        w.literal().is_some_and(|l| {
            matches!(l.as_str(), "sudo" | "exec" | "time" | "command")
                || (l.contains('=') && !l.starts_with('-'))
        })
    });
    let verb = words[t + 1..]
        .iter()
        .find(|w| !w.literal().is_some_and(|l| l.starts_with('-')))?;
    (before_ok && matches!(verb.literal().as_deref(), Some("plan" | "apply"))).then_some(t)
}

/// Where the Python file a command runs is among its words, when it runs one with the
/// interpreter (`python train.py`, `python3 -u src/make.py --size X`, `sudo python3 x.py`,
/// `poetry run python x.py`, `uv run x.py`; after assignments for it): the file word ends
/// in `.py`; or the module word of `python -m ml.build` (`true`: a module, whose file is
/// `ml/build.py` or `ml/build/__main__.py`, [`python_module_files`]). Not `python -c code`.
pub(super) fn python_at(words: &[Word]) -> Option<(usize, bool)> {
    let mut i = 0;
    while i < words.len().min(6) {
        let lit = words[i].literal()?;
        if (lit.contains('=') && !lit.starts_with('-'))
            || matches!(
                lit.as_str(),
                "sudo" | "exec" | "time" | "command" | "poetry" | "pipenv" | "run"
            )
        {
            i += 1;
            continue;
        }
        break;
    }
    let p = program(words.get(i)?)?;
    let python = p == "py"
        || p == "uv"
        || p.strip_prefix("python").is_some_and(|v| {
            v.strip_suffix(".exe")
                .unwrap_or(v)
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.')
        });
    if !python {
        return None;
    }
    let mut j = i + 1;
    if p == "uv" {
        (words.get(j)?.literal()? == "run").then_some(())?;
        j += 1;
    }
    // The interpreter's own flags (`-u`, `-B`, `-O`, `-X opt`, `-W arg`).
    while let Some(l) = words
        .get(j)
        .and_then(Word::literal)
        .filter(|l| l.starts_with('-'))
    {
        if l == "-m" && p != "uv" {
            // A module named as written: dotted identifiers.
            let module = words.get(j + 1)?.literal()?;
            let named = !module.is_empty()
                && module.split('.').all(|part| {
                    !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                });
            return named.then_some((j + 1, true));
        }
        if l == "-c" || l.starts_with("--") {
            return None;
        }
        j += 1 + usize::from(matches!(l.as_str(), "-X" | "-W"));
    }
    // The file: a path ending in `.py`, or ending in a variable (`$(SCRIPT)`, `${{
    // variables.SCRIPT }}`, `$SCRIPT`) whose value the run must then end in `.py`.
    let file = words.get(j)?;
    let end = file.parts.last()?;
    let named = match end {
        WordPart::Lit { text, .. } => text.ends_with(".py"),
        WordPart::Var { .. } | WordPart::Expr { .. } | WordPart::Macro { .. } => true,
        WordPart::Dynamic { .. } => false,
    };
    named.then_some((j, false))
}

/// The files `python -m module` may run, as paths relative to where it runs (its first
/// entry of `sys.path`): `ml/build.py` for `ml.build`, else the package's `ml/build/__main__.py`.
pub(super) fn python_module_files(module: &str) -> [String; 2] {
    let path = module.replace('.', "/");
    [format!("{path}.py"), format!("{path}/__main__.py")]
}

/// Where the file of a command that runs a shell script is: `bash scripts/create.sh ARGS`
/// (also `sh`, `zsh`, `ksh`, `dash`, after their own flags), or the script named as the
/// program (`./create.sh ARGS`, `scripts/create.sh ARGS`: a path ending in `.sh`). Not
/// `bash -c TEXT` (a command, not a file), `source` (its values are followed where the
/// script sources it) nor `. file`.
pub(super) fn shell_run_at(words: &[Word]) -> Option<usize> {
    let mut i = 0;
    while i < words.len().min(6) {
        let lit = words[i].literal()?;
        if (lit.contains('=') && !lit.starts_with('-'))
            || matches!(lit.as_str(), "sudo" | "exec" | "time" | "command")
        {
            i += 1;
            continue;
        }
        break;
    }
    let first = words.get(i)?;
    let p = program(first)?;
    if matches!(p.as_str(), "bash" | "sh" | "zsh" | "ksh" | "dash") {
        let mut j = i + 1;
        while let Some(l) = words
            .get(j)
            .and_then(Word::literal)
            .filter(|l| l.starts_with('-'))
        {
            if l.contains('c') && !l.starts_with("--") || matches!(l.as_str(), "-O" | "+O" | "-o" | "+o") {
                return None;
            }
            j += 1;
        }
        let file = words.get(j)?;
        // A literal file name, or one ending in a literal `.sh` (`$DIR/create.sh`).
        let named = matches!(file.parts.last()?, WordPart::Lit { text, .. } if !text.is_empty());
        return named.then_some(j);
    }
    let lit = first.literal()?;
    (lit.contains('/') && lit.ends_with(".sh") && !lit.starts_with('-')).then_some(i)
}

/// A word's program: its literal without a Makefile recipe's `@` (silent), `-` (errors
/// ignored) or `+`, nor a directory, lower-cased.
fn program(w: &Word) -> Option<String> {
    let lit = w.literal()?;
    let lit = lit.trim_start_matches(['@', '-', '+']);
    Some(lit.rsplit(['/', '\\']).next().unwrap_or(lit).to_ascii_lowercase())
}

fn is_az(w: &Word) -> bool {
    program(w).is_some_and(|p| matches!(p.as_str(), "az" | "az.cmd" | "az.exe"))
}

/// A program that runs the command its arguments name after its own options and
/// operands (GNU coreutils' syntax): the command is read there.
struct Runner {
    name: &'static str,
    /// Options whose value is the next word (unless attached: `-k5`, `--kill-after=5`).
    with_value: &'static [&'static str],
    /// Options after which the command is not read: it runs somewhere else (`env -C`) or
    /// is split from one word (`env -S`).
    unread: &'static [&'static str],
    /// Operands before the command (`timeout`'s DURATION).
    operands: usize,
    /// `NAME=VALUE` words before the command set its environment (`env`).
    assignments: bool,
}

/// `timeout [OPTION] DURATION COMMAND`, `env [OPTION] [NAME=VALUE]... COMMAND`, `nohup
/// COMMAND`, `nice [-n N] COMMAND` (GNU coreutils' manuals).
const RUNNERS: &[Runner] = &[
    Runner {
        name: "timeout",
        with_value: &["-k", "--kill-after", "-s", "--signal"],
        unread: &[],
        operands: 1,
        assignments: false,
    },
    Runner {
        name: "env",
        with_value: &["-u", "--unset", "-a", "--argv0"],
        unread: &["-C", "--chdir", "-S", "--split-string"],
        operands: 0,
        assignments: true,
    },
    Runner {
        name: "nohup",
        with_value: &[],
        unread: &[],
        operands: 0,
        assignments: false,
    },
    Runner {
        name: "nice",
        with_value: &["-n", "--adjustment"],
        unread: &[],
        operands: 0,
        assignments: false,
    },
];

impl Runner {
    /// How many words after the runner's own come before the command it runs; `None` when
    /// there is none or it is not read (one of `unread`, `--help`, `--version`). A word
    /// not literal ends the options (it is the command, or `timeout`'s DURATION).
    fn skip(&self, args: &[Word]) -> Option<usize> {
        let mut i = 0;
        let mut options = true;
        while options && args.get(i)?.literal().is_some_and(|l| l.starts_with('-')) {
            let opt = args[i].literal()?;
            let named = |o: &&str| {
                opt == *o
                    || (o.starts_with("--") && opt.starts_with(&format!("{o}=")))
                    || (!o.starts_with("--") && opt.starts_with(o))
            };
            if self.unread.iter().any(named) || matches!(opt.as_str(), "--help" | "--version") {
                return None;
            }
            options = opt != "--";
            i += 1 + usize::from(self.with_value.contains(&opt.as_str()));
        }
        i += self.operands;
        while self.assignments && args.get(i).and_then(split_assignment).is_some() {
            i += 1;
        }
        Some(i)
    }
}

/// A command's place in a script: its dialect, and the functions that run their
/// arguments as a command (by name: where each definition's body opens, whether it does).
pub struct Head<'s> {
    dialect: Dialect,
    functions: std::collections::HashMap<&'s str, Vec<(u32, bool)>>,
}

impl<'s> Head<'s> {
    pub fn of(script: &'s Script) -> Self {
        let mut functions: std::collections::HashMap<&str, Vec<(u32, bool)>> = Default::default();
        for f in &script.functions {
            functions.entry(&f.name).or_default().push((f.at, f.runs_args));
        }
        Head {
            dialect: script.dialect,
            functions,
        }
    }

    /// Whether the last definition of function `name` before `at` runs its arguments.
    fn wrapper(&self, name: &str, at: u32) -> bool {
        let Some(defs) = self.functions.get(name) else {
            return false;
        };
        let before = defs.partition_point(|&(d, _)| d < at);
        before > 0 && defs[before - 1].1
    }
}

/// Where `az` is among a command's words, and whether the command is the condition of
/// an `if`, `while` or `until` (it runs whatever the condition): past what may come
/// before it — assignments for it, [`RUNS_NEXT`] (`sudo`, `call`, `exec`, `time`...), a
/// [`Runner`] with its options (`timeout 600`, `env X=1`, `nohup`, `nice -n 5`), a
/// PowerShell `$x =` or `$null =` taking its output; or, when the command is a call of
/// a function of the script whose body runs its arguments ([`Head::wrapper`]), at the
/// first word `az` of the call (`retry 5 15 az ml compute create ...`). A function is
/// not called after a program (`sudo`, `exec`, `command`, a runner), which runs programs.
pub(super) fn az_at(words: &[Word], head: &Head<'_>, at: u32) -> Option<(usize, bool)> {
    let mut i = 0;
    let mut condition = false;
    let mut program_only = false;
    if head.dialect == Dialect::PowerShell
        && words.get(1).and_then(Word::literal).as_deref() == Some("=")
        && matches!(
            words[0].parts.as_slice(),
            [WordPart::Var { .. }] | [WordPart::Lit { exact: false, .. }]
        )
        && words[0].literal().is_none_or(|l| l.is_empty())
    {
        // `$out = az ...`, `$null = az ...` (`$null` reads as an empty literal).
        i = 2;
    }
    loop {
        let w = words.get(i)?;
        if is_az(w) {
            return Some((i, condition));
        }
        if split_assignment(w).is_some() {
            i += 1;
            continue;
        }
        let lit = w.literal()?;
        if RUNS_NEXT.contains(&lit.as_str()) {
            condition |= matches!(lit.as_str(), "if" | "while" | "until");
            program_only |= matches!(lit.as_str(), "sudo" | "exec" | "command");
            i += 1;
            continue;
        }
        let name = program(w)?;
        if let Some(r) = RUNNERS.iter().find(|r| r.name == name) {
            i += 1 + r.skip(&words[i + 1..])?;
            program_only = true;
            continue;
        }
        if !program_only && head.dialect == Dialect::Bash && head.wrapper(&lit, at) {
            return words[i + 1..]
                .iter()
                .position(is_az)
                .map(|p| (i + 1 + p, condition));
        }
        return None;
    }
}

/// What reading a script's commands needs: the file, the evaluation of its words, and a
/// note for every definition found (a template call, a notebook cell).
pub struct Ctx<'a> {
    pub input: &'a Input<'a>,
    pub eval: Eval<'a>,
    /// Said of every definition found (a template call, a notebook cell).
    pub note: Option<String>,
}

impl<'a> Ctx<'a> {
    /// The same place read with other variables (a function's call, a loop's item).
    fn with_vars<'v>(&self, vars: &'v Vars) -> Ctx<'v>
    where
        'a: 'v,
    {
        Ctx {
            input: self.input,
            eval: Eval {
                vars,
                outer: self.eval.outer,
            },
            note: self.note.clone(),
        }
    }
}

/// The definitions of a script's commands: each `az ml compute create|attach` or `az ml
/// computetarget create|attach <type>`.
pub fn definitions(script: &Script, cx: &Ctx<'_>) -> Vec<ComputeDef> {
    let head = Head::of(script);
    let mut evals = Evals {
        script,
        sets: None,
        budget: MAX_EVALS,
    };
    let mut out = Vec::new();
    let mut calls = Calls::default();
    let mut loops = Loops {
        budget: MAX_LOOP_DEFS,
        work: MAX_LOOP_WORK,
    };
    let inside = enclosing(script);
    for (i, (c, at)) in script.commands.iter().zip(&places(script, cx)).enumerate() {
        if let Some(f) = inside.get(i).copied().flatten().map(|f| &script.functions[f])
            && az_at(&c.words, &head, c.span.start).is_some()
        {
            out.extend(calls.definitions(script, c, f, at, &head, cx));
            continue;
        }
        match definition(c, at, &head, cx) {
            Some(d) if from_loop_variable(&d) => match loops.read(script, c, at, &head, cx) {
                Some(defs) => out.extend(defs),
                None => out.push(d),
            },
            Some(d) => out.push(d),
            None if script.dialect == Dialect::Bash => out.extend(evals.read(i, at, &head, cx)),
            None => {}
        }
    }
    out
}

/// For each command of a bash or PowerShell script, the innermost function whose body
/// holds it (an index of [`Script::functions`]): one pass over both, in the order they
/// start (bodies nest or follow one another). Empty for cmd or without functions.
fn enclosing(script: &Script) -> Vec<Option<usize>> {
    if script.dialect == Dialect::Cmd || script.functions.is_empty() {
        return Vec::new();
    }
    let fns = &script.functions;
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    script
        .commands
        .iter()
        .map(|c| {
            let at = c.span.start;
            while next < fns.len() && fns[next].at <= at {
                while open.last().is_some_and(|&o| fns[o].end <= fns[next].at) {
                    open.pop();
                }
                open.push(next);
                next += 1;
            }
            while open.last().is_some_and(|&o| fns[o].end <= at) {
                open.pop();
            }
            open.last().copied().filter(|&o| fns[o].at <= at)
        })
        .collect()
}

/// Why a value read from a bash `for` loop's variable is not known (outside a loop read
/// item by item, [`Loops`]).
const LOOP_VARIABLE: &str = "it is a loop's variable";

/// A loop's items read at most (of all the loops around one command, multiplied).
const MAX_LOOP_ITEMS: usize = 64;

/// Definitions one script makes of loops' items at most; later ones read as not known.
const MAX_LOOP_DEFS: usize = 1024;

/// A definition has a value from a loop's variable, not known without its item.
fn from_loop_variable(d: &ComputeDef) -> bool {
    std::iter::once(&d.name)
        .chain(d.fields.iter().map(|(_, s)| s))
        .any(|s| s.why.as_deref().is_some_and(|w| w.contains(LOOP_VARIABLE)))
}

/// A command inside bash `for NAME in WORDS; do … done` loops whose words are known (a
/// literal list, a known variable's words, a literal array's elements: what
/// [`expand`] gives): read once per item, the variable that item, each definition noted
/// with its item and the item's literal as the origin of a value from it (audit 32, case
/// 05: `for c in cpu-cluster gpu-cluster; do az ml compute create --name "$c" …`).
struct Loops {
    /// Definitions still to make ([`MAX_LOOP_DEFS`]).
    budget: usize,
    /// Assignments still to copy for them ([`MAX_LOOP_WORK`]): each item reads a copy of
    /// the script's.
    work: usize,
}

/// Assignments copied for loops' items in one script at most (a script of thousands of
/// assignments reads fewer items).
const MAX_LOOP_WORK: usize = 200_000;

impl Loops {
    /// The definitions of `c` read once per combination of the items of the loops around
    /// it (innermost four). `None`: no loop around it gives known items, or there are too
    /// many; `c` is then read as it is.
    fn read(
        &mut self,
        script: &Script,
        c: &ShellCommand,
        cwd: &Cwd,
        head: &Head<'_>,
        cx: &Ctx<'_>,
    ) -> Option<Vec<ComputeDef>> {
        if script.dialect != Dialect::Bash || cx.eval.vars.frame.is_some() {
            return None;
        }
        // The loops around `c` with their `for` command, innermost first.
        let mut around = Vec::new();
        let mut b = c.block;
        let mut steps = 0;
        while let Some(x) = b {
            let blk = script.blocks.get(x as usize)?;
            steps += 1;
            if steps > script.blocks.len() || around.len() == 4 {
                break;
            }
            b = blk.parent;
            if blk.kind != super::shell::BlockKind::Loop {
                continue;
            }
            let k = script.commands.partition_point(|k| k.span.start < blk.at);
            let Some(f) = script.commands.get(k).filter(|f| f.span.start == blk.at) else {
                continue;
            };
            let lit = |i: usize| f.words.get(i).and_then(Word::literal);
            let (Some("for"), Some(var), Some("in")) = (lit(0).as_deref(), lit(1), lit(2).as_deref()) else {
                continue;
            };
            if !is_ident(&var) {
                continue;
            }
            let args = expand(&f.words[3..], cx, Dialect::Bash, f.span.start);
            // An item not known in number (`$(ls)`, an unknown array) or a pattern of file
            // names: the loop's items are not known.
            let globbed = |w: &Word| {
                w.parts.iter().any(|p| {
                    matches!(p, WordPart::Lit { text, exact: true, .. }
                        if text.contains(['*', '?', '[']))
                })
            };
            if args.open.iter().any(Option::is_some)
                || args.words.iter().any(globbed)
                || args.words.is_empty()
            {
                continue;
            }
            let line = super::common::line_of(cx.input.source, f.span.start);
            let written = cx.input.source.slice(f.span).trim().to_string();
            around.push((x, f.span.start, var, args.words, line, written));
        }
        if around.is_empty() {
            return None;
        }
        let count = around.iter().try_fold(1usize, |n, l| n.checked_mul(l.3.len()))?;
        let work = count.saturating_mul(cx.eval.vars.assigns.len().max(1));
        if count > MAX_LOOP_ITEMS || count > self.budget || work > self.work {
            return None;
        }
        self.budget -= count;
        self.work -= work;
        // The assignments written directly in the loops' bodies.
        let starts: std::collections::HashSet<u32> = script
            .commands
            .iter()
            .filter(|k| !k.chained && around.iter().any(|l| k.block == Some(l.0)))
            .map(|k| k.span.start)
            .collect();
        let mut out = Vec::with_capacity(count);
        for n in 0..count {
            // The combination's item of each loop (the innermost varies fastest).
            let mut rest = n;
            let mut binds = Vec::with_capacity(around.len());
            let mut notes = Vec::with_capacity(around.len());
            for (_, at, var, items, line, written) in &around {
                let k = rest % items.len();
                rest /= items.len();
                binds.push((*at, var.as_str(), items[k].parts.as_slice()));
                notes.push(format!(
                    "made by item {} of {} (`{}`) of the loop `{written}` (line {line})",
                    k + 1,
                    items.len(),
                    cx.input.source.slice(items[k].span)
                ));
            }
            let vars = cx.eval.vars.looped(&binds, &starts);
            let cx2 = cx.with_vars(&vars);
            if let Some(mut def) = definition(c, cwd, head, &cx2) {
                def.notes.extend(notes);
                out.push(def);
            }
        }
        Some(out)
    }
}

/// Calls of a function read for one command of its body at most.
const MAX_CALLS: usize = 64;

/// Calls of functions read in a script at most; later ones are not known.
const MAX_BOUND: usize = 1024;

/// The calls of a script's bash functions ([`Frame`]).
#[derive(Default)]
struct Calls {
    /// The commands whose first word names a function of the script, by that name; and
    /// where the functions of each name start, in order.
    by_name: Option<(Indexes<usize>, Indexes<u32>)>,
    /// What is read of each function's body and calls, by where it starts (once each).
    bodies: std::collections::HashMap<u32, std::rc::Rc<Body>>,
    /// Calls read so far.
    bound: usize,
}

/// Indexes or offsets by a function's name.
type Indexes<T> = std::collections::HashMap<String, Vec<T>>;

/// What the definitions of a function's body read of it ([`Calls::definitions`]).
struct Body {
    /// Where the commands written directly in it (not under a condition there) start.
    starts: std::collections::HashSet<u32>,
    /// Its `shift`s ([`Frame::shifts`]).
    shifts: Vec<(u32, Option<usize>, bool)>,
    /// Its calls: the commands calling it after its body, before the name is defined
    /// again.
    calls: Vec<usize>,
}

impl Calls {
    /// The definitions command `c` of function `f`'s body makes: one for each call of `f`
    /// after its definition (and before another definition of the name; not from its own
    /// body), each reading the call's arguments; one reading none when there is no call.
    fn definitions(
        &mut self,
        script: &Script,
        c: &ShellCommand,
        f: &Function,
        cwd: &Cwd,
        head: &Head<'_>,
        cx: &Ctx<'_>,
    ) -> Vec<ComputeDef> {
        let dialect = script.dialect;
        let key = fn_key(&f.name, dialect);
        let (by_name, defined) = self.by_name.get_or_insert_with(|| {
            let mut defined: std::collections::HashMap<String, Vec<u32>> = Default::default();
            for f in &script.functions {
                defined.entry(fn_key(&f.name, dialect)).or_default().push(f.at);
            }
            let mut m: std::collections::HashMap<String, Vec<usize>> = Default::default();
            for (i, k) in script.commands.iter().enumerate() {
                if let Some(n) = k
                    .words
                    .first()
                    .and_then(Word::literal)
                    .map(|n| fn_key(&n, dialect))
                    && defined.contains_key(n.as_str())
                {
                    m.entry(n).or_default().push(i);
                }
            }
            (m, defined)
        });
        let body = self.bodies.entry(f.at).or_insert_with(|| {
            // The commands of the body, in order.
            let first = script.commands.partition_point(|k| k.span.start < f.at);
            let last = script.commands.partition_point(|k| k.span.start < f.end);
            let body = &script.commands[first..last];
            let starts = body
                .iter()
                .filter(|k| k.depth == f.depth && !k.chained)
                .map(|k| k.span.start)
                .collect();
            let shifts = body
                .iter()
                .filter(|_| dialect == Dialect::Bash)
                .filter(|k| k.words.first().and_then(Word::literal).as_deref() == Some("shift"))
                .map(|k| {
                    let by = match k.words.get(1) {
                        None => Some(1),
                        Some(w) => w.literal().and_then(|l| l.parse().ok()),
                    };
                    (k.span.start, by, k.depth > f.depth || k.chained)
                })
                .collect();
            // A later definition of the name replaces this one for the calls after it.
            let starts_of = defined.get(&key).map(Vec::as_slice).unwrap_or(&[]);
            let next = starts_of
                .get(starts_of.partition_point(|&a| a <= f.at))
                .copied()
                .unwrap_or(u32::MAX);
            let calls = by_name
                .get(&key)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .copied()
                .filter(|&i| {
                    let at = script.commands[i].span.start;
                    at >= f.end && at < next
                })
                .collect();
            std::rc::Rc::new(Body {
                starts,
                shifts,
                calls,
            })
        });
        let body = std::rc::Rc::clone(body);
        let starts = &body.starts;
        let calls: Vec<&ShellCommand> = body
            .calls
            .iter()
            .take(MAX_CALLS + 1)
            .map(|&i| &script.commands[i])
            .collect();
        let frame = |args, unread| Frame {
            name: f.name.clone(),
            body: (f.at, f.end),
            args,
            unread,
            shifts: body.shifts.clone(),
            params: f.params.clone(),
        };
        let inner_condition = c.depth > f.depth || c.chained;
        let read = |frame: Frame, call: Option<&ShellCommand>| -> Option<ComputeDef> {
            let vars = cx.eval.vars.framed(frame, starts);
            let cx2 = cx.with_vars(&vars);
            let c2 = with_args(c, &vars);
            let mut def = definition(&c2, cwd, head, &cx2)?;
            let Some(call) = call else {
                def.notes.push(format!(
                    "`{}` is a function this script does not call after defining it: read as called with no argument",
                    f.name
                ));
                return Some(def);
            };
            const COND: &str = "the command runs under a condition";
            let had = def.notes.iter().any(|n| n == COND);
            def.notes.retain(|n| n != COND);
            if (had && inner_condition) || call.conditional() {
                def.notes.push(COND.into());
            }
            let src = cx.input.source;
            let mut shown = src.slice(call.span).to_string();
            if shown.len() > 80 {
                let mut end = 77;
                while !shown.is_char_boundary(end) {
                    end -= 1;
                }
                shown.truncate(end);
                shown.push_str("...");
            }
            def.notes.push(format!(
                "run by the call `{shown}` on line {}",
                src.position(call.span.start).line
            ));
            // A value the call writes is reported where the call writes it.
            let at_call = |s: &mut Setting| {
                if let Some(o) = s.origin
                    && call.span.start <= o.start
                    && o.end <= call.span.end
                {
                    s.span = o;
                    s.origin = None;
                    s.in_place = true;
                    s.written = src.slice(o).to_string();
                }
            };
            at_call(&mut def.name);
            for (_, s) in &mut def.fields {
                at_call(s);
            }
            Some(def)
        };
        if calls.is_empty() {
            return read(frame(None, None), None).into_iter().collect();
        }
        let mut out = Vec::new();
        // Past the limits, one more definition says the later calls are not read.
        for (n, call) in calls.iter().take(MAX_CALLS + 1).enumerate() {
            let unread = if n == MAX_CALLS {
                Some(format!(
                    "`{}` is called {} times: the arguments of the calls after the first {MAX_CALLS} are not read",
                    f.name,
                    body.calls.len()
                ))
            } else {
                (self.bound >= MAX_BOUND).then(|| {
                    format!("the script calls its functions more than {MAX_BOUND} times: the arguments of the later calls are not read")
                })
            };
            self.bound += 1;
            let arg = |w: &Word| {
                let e = cx.eval.word(w, call.span.start);
                let v = match e.value {
                    Ok(text) => ScriptVal::Known {
                        text,
                        literal: if e.in_place {
                            Some(w.inner_span())
                        } else {
                            e.origin
                        },
                    },
                    Err(why) => ScriptVal::Dynamic(why),
                };
                (v, w.span)
            };
            let args = match dialect {
                Dialect::PowerShell => super::ps_call::bind(&call.words[1..], &f.params, &f.name, &|name| {
                    splatted(name, call.span.start, cx)
                })
                .into_iter()
                .map(|b| {
                    Some(match b? {
                        Bound::Word(w) => arg(&w),
                        Bound::Flag(span) => (ScriptVal::known("True", None), span),
                        Bound::Unknown(why, span) => (ScriptVal::Dynamic(why), span),
                    })
                })
                .collect(),
                _ => call.words[1..].iter().map(|w| Some(arg(w))).collect(),
            };
            let stop = unread.is_some();
            out.extend(read(frame(Some(args), unread), Some(call)));
            if stop {
                break;
            }
        }
        out
    }
}

/// The entries of the literal hashtable `$name = @{ Key = value; ... }` a PowerShell call
/// starting at `at` splats (`@name`): each key and its value's word, read from the file's
/// text (to [`MAX_ARRAY_TEXT`] bytes), or why not.
fn splatted(name: &str, at: u32, cx: &Ctx<'_>) -> Result<Vec<(String, Word)>, String> {
    let span = cx.eval.vars.array(name, at)?;
    let text = &cx.input.source.text;
    let b = text.as_bytes();
    let start = span.start as usize;
    if !span.is_empty() || b.get(start) != Some(&b'{') {
        return Err(format!("`{name}` is not a literal hashtable"));
    }
    let mut quote = None;
    let mut i = start + 1;
    let end = loop {
        let Some(&c) = b.get(i).filter(|_| i - start <= MAX_ARRAY_TEXT) else {
            return Err(format!(
                "its hashtable is not read (longer than {MAX_ARRAY_TEXT} bytes, or not closed)"
            ));
        };
        match quote {
            Some(q) if c == q => quote = None,
            Some(b'"') if c == b'`' => i += 1,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'{' | b'(' => return Err(format!("`{name}` is a hashtable of expressions")),
                b'}' => break i,
                _ => {}
            },
        }
        i += 1;
    };
    let inner = &text[start + 1..end];
    let script = super::shell::parse(
        inner,
        Map::Base(span.start + 1),
        LexOptions::new(Dialect::PowerShell),
    );
    let mut out = Vec::new();
    for c in &script.commands {
        let entry = match c.words.as_slice() {
            [k, eq, v] if eq.literal().as_deref() == Some("=") => k.literal().map(|k| (k, v.clone())),
            [kv] => split_assignment(kv).map(|(k, parts)| {
                let span = match (parts.first(), parts.last()) {
                    (Some(a), Some(z)) => a.span().cover(z.span()),
                    _ => kv.span,
                };
                (k, Word { parts, span })
            }),
            _ => None,
        };
        match entry {
            Some((k, mut v)) if is_ident(&k) && out.len() < MAX_SPLIT => {
                v.parts = trim_ps_value(v.parts);
                out.push((k, v));
            }
            _ => {
                return Err(format!(
                    "`{name}` is a hashtable not read: `{}`",
                    cx.input.source.slice(c.span)
                ));
            }
        }
    }
    Ok(out)
}

/// Command `c` with its words `"$@"` (`$@`) the arguments of the call its [`Frame`]
/// reads, each a positional parameter of the frame.
fn with_args(c: &ShellCommand, vars: &Vars) -> ShellCommand {
    let Some(frame) = &vars.frame else {
        return c.clone();
    };
    let (Some(args), Ok(shifted)) = (&frame.args, frame.shifted(c.span.start)) else {
        return c.clone();
    };
    let mut out = c.clone();
    out.words = Vec::with_capacity(c.words.len());
    for w in &c.words {
        if matches!(w.parts.as_slice(), [WordPart::Dynamic { why, .. }] if *why == ARGS) {
            for (k, (_, span)) in args
                .iter()
                .enumerate()
                .skip(shifted)
                .filter_map(|(k, a)| Some((k, a.as_ref()?)))
            {
                out.words.push(Word {
                    parts: vec![WordPart::Var {
                        name: (k + 1 - shifted).to_string(),
                        span: *span,
                        scope: VarScope::Positional,
                        default: None,
                    }],
                    span: *span,
                });
            }
        } else {
            out.words.push(w.clone());
        }
    }
    out
}

/// `f` given the [`Track`] of `cx`'s script: where it starts, and its variables' values.
fn with_track<R>(cx: &Ctx<'_>, f: impl FnOnce(&Track<'_>) -> R) -> R {
    let outer = cx.eval.outer;
    let eval = |w: &Word, at: u32| cx.eval.word(w, at).value;
    let sole = |name: &str, at: u32| cx.eval.vars.sole_value(name, at);
    f(&Track {
        source: cx.input.source,
        start: outer.start(),
        own_file: outer.own_file(),
        lines_apart: outer.lines_apart(),
        eval: &eval,
        sole_value: &sole,
    })
}

/// A path word of the command starting at `at`, which runs in `cwd`, that starts at the
/// script's own directory (`--file "$(dirname "$0")/c.yml"`, `source "$here/vars.env"`
/// with `here="$(cd "$(dirname "$0")" && pwd)"`, `. "$PSScriptRoot\vars.ps1"`), as a `cd`
/// reads it (`cwd::from_script_dir`): the rest of the path from there, or why it is not
/// known — in bash, after a `cd` (`dirname "$0"` is relative to where the script started).
/// PowerShell's `$PSScriptRoot` and cmd's `%~dp0` are absolute: a `cd` does not move them.
/// `None`: it does not start there (or the file around the script does not run it in
/// order); the word is then evaluated as any other.
fn from_own_dir(
    w: &Word,
    cwd: &Cwd,
    dialect: Dialect,
    cx: &Ctx<'_>,
    at: u32,
) -> Option<Result<String, String>> {
    if !cx.eval.outer.follows_cd() {
        return None;
    }
    let rest = with_track(cx, |t| super::cwd::from_script_dir(w, dialect, t, at))?;
    Some(match cwd {
        _ if rest.is_err() || dialect != Dialect::Bash => rest,
        Cwd::Start(p) if p.as_os_str().is_empty() => rest,
        Cwd::Unknown(why) => Err(format!(
            "it starts at the script's own directory as named from where the script started, and the command runs in a directory not known statically: {why}"
        )),
        _ => Err(
            "it starts at the script's own directory as named from where the script started, and a `cd` before the command moved from there".into(),
        ),
    })
}

/// Where each of a script's commands runs.
pub(super) fn places(script: &Script, cx: &Ctx<'_>) -> Vec<Cwd> {
    let outer = cx.eval.outer;
    if outer.follows_cd() {
        with_track(cx, |t| super::cwd::places(script, t))
    } else {
        vec![outer.start(); script.commands.len()]
    }
}

fn definition(c: &ShellCommand, cwd: &Cwd, head: &Head<'_>, cx: &Ctx<'_>) -> Option<ComputeDef> {
    let dialect = head.dialect;
    let (az, condition) = az_at(&c.words, head, c.span.start)?;
    let (command, v1_type_word, rest) = command_of(&c.words[az + 1..])?;
    // A command with no option at all creates nothing (the CLI wants `--name` or `--file`):
    // prose that names the command ("run `az ml compute create` with these settings").
    if rest.is_empty() {
        return None;
    }
    // Asking for help (`az ml compute create -h`, as a README suggests) runs nothing.
    if rest
        .iter()
        .any(|w| matches!(w.literal().as_deref(), Some("-h" | "--help")))
    {
        return None;
    }
    let span = c.words[az].span.cover(c.words[c.words.len() - 1].span);
    let mut options = Options {
        cx,
        cwd,
        dialect,
        at: c.span.start,
        name: None,
        fields: Vec::new(),
        file: None,
        open: None,
        missing: None,
        names_the_file: false,
        verb: None,
        unknown: Vec::new(),
    };
    if v1_type_word.is_none() {
        options.verb = command.rsplit(' ').next().map(str::to_string);
    }
    if let Some(t) = v1_type_word {
        options.v1_type(t);
    }
    let v1 = v1_type_word.is_some();
    options.read(&expand(rest, cx, dialect, c.span.start), v1);
    // An option given no value (a CLI reference's synopsis, `az ml compute attach
    // --namespace` named in prose): the CLI refuses the command and creates nothing
    // (audit 28, case 05).
    if options.missing.is_some() {
        return None;
    }
    let mut notes: Vec<String> = cx.note.iter().cloned().collect();
    if let Some((why, at)) = options.open.clone() {
        options.unknown_options(&why, at, v1);
        notes.push(format!(
            "{why}: what the command does not set explicitly is not known"
        ));
    }
    // An `if`'s condition runs whatever it gives: the block it opens does not count.
    let blocks = c.depth.saturating_sub(u32::from(condition));
    if blocks > 0 || c.chained {
        notes.push("the command runs under a condition".into());
    }
    let (from_file, inherited_name) = options.with_file(&mut notes);
    let open = options.open.take();
    // Every option is known, and no compute YAML gives values: what is not written is the
    // CLI's default.
    let all_known = open.is_none() && options.file.is_none();
    let name = options.name.or(inherited_name).unwrap_or_else(|| match open {
        Some((why, at)) => Setting::dynamic(cx.input.source.slice(at).to_string(), why, at, None),
        None => Setting::dynamic(
            String::new(),
            "the command gives no `--name`",
            c.words[az].span,
            None,
        ),
    });
    let mut def = ComputeDef::new(
        SourceKind::AzCli,
        cx.input.source.path.clone(),
        span,
        command,
        name,
    );
    for (p, s) in options.fields {
        def.set(&p, s);
    }
    def.notes = notes;
    def.from_file = from_file;
    def.names_the_file = options.names_the_file;
    def.unknown_options = std::mem::take(&mut options.unknown);
    if v1 {
        def.idiom = crate::facts::idiom::Idiom::CliV1;
    }
    // CLI v2 turns the options into the compute's YAML, loaded with its type's schema.
    if def.command == "az ml compute create" {
        def.refuse_keys_the_type_lacks();
        if all_known {
            def.default_size(c.words[az].span.cover(c.words[az + 3].span));
        }
    }
    Some(def)
}

/// The command after `az`, when it is `ml compute create|attach` or `ml computetarget
/// create|attach <type>`: its name, SDK v1's type word, and the words of its options.
fn command_of(words: &[Word]) -> Option<(String, Option<&Word>, &[Word])> {
    let lit = |i: usize| words.get(i).and_then(Word::literal);
    if lit(0).as_deref() != Some("ml") {
        return None;
    }
    match (lit(1).as_deref(), lit(2).as_deref()) {
        (Some("compute"), Some(verb @ ("create" | "attach"))) => {
            Some((format!("az ml compute {verb}"), None, &words[3..]))
        }
        (Some("computetarget"), Some(verb @ ("create" | "attach"))) => {
            let t = words.get(3)?;
            Some((format!("az ml computetarget {verb}"), Some(t), &words[4..]))
        }
        _ => None,
    }
}

/// What a command's options say: the compute's name, its fields by YAML path (the last
/// written wins), and the compute YAML `--file` names with the option's key.
struct Options<'c, 'a> {
    cx: &'c Ctx<'a>,
    /// Where the command runs.
    cwd: &'c Cwd,
    dialect: Dialect,
    /// Where the command starts.
    at: u32,
    name: Option<Setting>,
    fields: Vec<(String, Setting)>,
    /// `--file`'s value, its option, and where it is looked for when not from where the
    /// command runs (a path from the script's own directory).
    file: Option<(Setting, Span, Option<Cwd>)>,
    /// The first expansion not known that may add any options, where an option is
    /// expected: why, and where it is.
    open: Option<(String, Span)>,
    /// The first option that takes a value and is given none (the last word, or followed
    /// by another option): the CLI stops with "expected one argument" and creates nothing.
    missing: Option<Span>,
    /// The `--file` YAML read gives no `name:` and the command names the compute
    /// ([`ComputeDef::names_the_file`]).
    names_the_file: bool,
    /// The verb of CLI v2's `az ml compute create|attach` (`create`); `None` for SDK v1's
    /// `computetarget`, whose options are not checked.
    verb: Option<String>,
    /// The options written literally that the command does not have
    /// ([`ComputeDef::unknown_options`]), [`MAX_UNKNOWN_OPTIONS`] at most.
    unknown: Vec<crate::facts::computes::UnknownOption>,
}

impl Options<'_, '_> {
    /// The setting the value word `w` of the option at `key` makes.
    fn setting(&self, w: &Word, key: Span, kind: ValueKind) -> Setting {
        let written = self.cx.input.source.slice(w.inner_span()).to_string();
        setting_of(
            self.cx.eval.word(w, self.at),
            written,
            w.inner_span(),
            Some(key),
            kind,
        )
    }

    /// SDK v1's type word (`amlcompute`, `remote`...) as the compute's type.
    fn v1_type(&mut self, t: &Word) {
        let mut s = self.setting(t, t.span, ValueKind::Str);
        if let Some(Scalar::Str(v)) = &s.value {
            s.value = Some(Scalar::Str(v1_type(v)));
            s.in_place = false;
        }
        s.key = None;
        self.fields.push(("type".into(), s));
    }

    /// The options among `args`, each with its value (the next word, or after `=` in the
    /// same word); other words are passed over, but the first expansion not known where an
    /// option is expected is kept ([`Options::open`]).
    fn read(&mut self, args: &Args, v1: bool) {
        let rest = &args.words;
        let mut i = 0;
        while i < rest.len() {
            let w = &rest[i];
            i += 1;
            if let Some(why) = &args.open[i - 1] {
                if self.open.is_none() {
                    self.open = Some((why.clone(), w.span));
                }
                // It may be `--` (`--$EMPTY`): the words after it are no options.
                self.verb = None;
                continue;
            }
            let Some(text) = option_text(w) else {
                // A word not known where an option is expected may be `--` likewise.
                if w.literal().is_none() {
                    self.verb = None;
                }
                continue;
            };
            // `--`: what follows is no option to argparse (neither one it has nor one it
            // does not know), but arguments it refuses.
            if text == "--" {
                break;
            }
            // `--size=Standard_NC6`: the value in the same word.
            let (opt, inline) = match text.split_once('=') {
                Some((o, _)) if o.starts_with("--") => (o.to_string(), true),
                _ => (text.clone(), false),
            };
            let target = if v1 { v1_option(&opt) } else { v2_option(&opt) };
            if target == Target::Flag {
                continue;
            }
            let unknown = target == Target::Skip
                && self
                    .verb
                    .as_deref()
                    .is_some_and(|verb| unknown_v2_option(verb, &opt));
            if unknown {
                self.note_unknown(w, &opt, inline);
            }
            let (value, key) = if inline {
                let Some(inline) = inline_value(w, &opt) else {
                    continue;
                };
                inline
            } else {
                // No value: the last word, or another option (an expansion not known may
                // be anything).
                let refused = match rest.get(i) {
                    None => true,
                    Some(_) if args.open[i].is_some() => false,
                    Some(v) => v.literal().is_some_and(|l| names_an_option(&l)),
                };
                if self.missing.is_none() && refused && takes_a_value(target, &opt) {
                    self.missing = Some(w.span);
                }
                let Some(v) = rest.get(i) else { break };
                // An option the command does not have takes no value: the next option
                // is read as one (argparse leaves the unknown one, and a word after it,
                // to the error it reports).
                if unknown && v.literal().is_some_and(|l| l == "--" || names_an_option(&l)) {
                    continue;
                }
                i += 1;
                (v.clone(), w.span)
            };
            self.apply(target, &value, key);
            // `--set a=x b=y`: the option takes every word up to the next option (argparse's
            // `nargs='+'`), each a `path=value` of its own (`--set=a=x` takes that one).
            if target == Target::Set && !inline {
                while let Some(v) = rest.get(i) {
                    if args.open[i].is_some() || option_text(v).is_some() {
                        break;
                    }
                    i += 1;
                    self.apply(target, v, key);
                }
            }
        }
    }

    /// Records the option `opt` of the word `w` (its value in the same word when `inline`),
    /// which CLI v2's command does not have, when it is written as it is at the word: not
    /// built from an expansion (`--$OPT`), not quoted.
    fn note_unknown(&mut self, w: &Word, opt: &str, inline: bool) {
        let Some(verb) = self.verb.clone() else {
            return;
        };
        let span = match (inline, w.parts.first()) {
            (false, _) => w.span,
            (
                true,
                Some(WordPart::Lit {
                    span, exact: true, ..
                }),
            ) => Span::new(span.start, span.start + opt.len() as u32),
            _ => return,
        };
        if self.cx.input.source.slice(span) != opt {
            return;
        }
        if self.unknown.len() < MAX_UNKNOWN_OPTIONS {
            self.unknown.push(crate::facts::computes::UnknownOption {
                option: opt.to_string(),
                span,
                command: format!("az ml compute {verb}"),
                suggestion: v2_suggestion(&verb, opt),
            });
        }
    }

    /// The option at `key`, for `target`, given `value`.
    fn apply(&mut self, target: Target, value: &Word, key: Span) {
        match target {
            Target::Name => self.name = Some(self.setting(value, key, ValueKind::Str)),
            Target::Field(path, kind) => {
                let s = self.setting(value, key, kind);
                self.set_field(path.to_string(), s);
            }
            Target::File => self.file = Some(self.file_setting(value, key)),
            Target::Set => {
                if let Some((path, s)) = set_value(value, key, self.cx, self.at) {
                    if path == "name" {
                        self.name = Some(s);
                    } else {
                        self.set_field(path, s);
                    }
                }
            }
            Target::Skip | Target::Flag => {}
        }
    }

    /// `--file`'s setting. A path from the script's own directory (`--file
    /// "$(dirname "$0")/c.yml"`, `$here/c.yml`, `$PSScriptRoot\c.yml`) is looked for there
    /// ([`from_own_dir`], shared with `source`).
    fn file_setting(&self, w: &Word, key: Span) -> (Setting, Span, Option<Cwd>) {
        let Some(rest) = from_own_dir(w, self.cwd, self.dialect, self.cx, self.at) else {
            return (self.setting(w, key, ValueKind::Str), key, None);
        };
        let written = self.cx.input.source.slice(w.inner_span()).to_string();
        let evaluated = Evaluated {
            value: rest,
            origin: None,
            in_place: false,
        };
        let setting = setting_of(evaluated, written, w.inner_span(), Some(key), ValueKind::Str);
        (setting, key, Some(Cwd::ScriptDir(PathBuf::new())))
    }

    /// An expansion not known may give any option (`why`, at `at`): every setting an option
    /// or `--set` gives that the command does not set explicitly is not known, so that no
    /// rule takes it for absent.
    fn unknown_options(&mut self, why: &str, at: Span, v1: bool) {
        let written = self.cx.input.source.slice(at).to_string();
        let also: &[&str] = if v1 { &[] } else { SET_ALSO };
        for path in crate::facts::computes::FIELDS.iter().chain(also) {
            if !self.fields.iter().any(|(p, _)| p == path) {
                let s = Setting::dynamic(written.clone(), why, at, None);
                self.fields.push((path.to_string(), s));
            }
        }
    }

    fn set_field(&mut self, path: String, s: Setting) {
        self.fields.retain(|(p, _)| *p != path);
        self.fields.push((path, s));
    }

    /// The compute YAML `--file` names, if any: the fields the options do not set are
    /// taken from it. Returns the file as shown and the name it gives (or, when it is not
    /// read and the options give none, a dynamic name that says why).
    fn with_file(&mut self, notes: &mut Vec<String>) -> (Option<String>, Option<Setting>) {
        let Some((path, key, from)) = &self.file else {
            return (None, None);
        };
        let work_dir = self.cx.eval.outer.work_dir();
        let written = match &path.value {
            Some(Scalar::Str(w)) => w.as_str(),
            _ => "",
        };
        let at = from.as_ref().unwrap_or(self.cwd);
        let found = match candidates(at, self.cx.input, work_dir.as_deref(), written, self.dialect) {
            Ok(candidates) => read_compute_yaml(path, *key, self.cx.input, candidates, notes),
            Err(why) => Err(format!(
                "the compute YAML `{}` is named from a directory not known statically: {why}",
                path.written
            )),
        };
        match found {
            Ok((display, def)) => {
                self.names_the_file = self.name.is_some() && def.name.value.is_none();
                for (p, s) in def.fields {
                    if !self.fields.iter().any(|(q, _)| *q == p) {
                        self.fields.push((p, s));
                    }
                }
                (Some(display), Some(def.name))
            }
            // Never unread silently: with the name given, a note says why.
            Err(why) if self.name.is_some() => {
                let why = match &path.value {
                    Some(_) => why,
                    None => format!(
                        "the compute YAML `{}` is not known statically: {why}",
                        path.written
                    ),
                };
                notes.push(format!("{why}; its values are not read"));
                (None, None)
            }
            Err(why) => (
                None,
                Some(Setting::dynamic(path.written.clone(), why, path.span, Some(*key))),
            ),
        }
    }
}

/// Words one expansion yields at most (a value is at most [`MAX_VALUE`] bytes; an array's
/// text at most [`MAX_ARRAY_TEXT`]); what a longer one adds is not known.
const MAX_SPLIT: usize = 256;

/// A literal array's text read at most, in bytes.
const MAX_ARRAY_TEXT: usize = 4096;

/// Words the expansions of one script give at most (each array is read once): beyond,
/// what an expansion gives is not known, so that input cannot multiply the work.
const MAX_EXPANDED: usize = 100_000;

/// A command's words after `az ml compute create|attach` as the program gets them: an
/// unquoted expansion split, an array's elements.
struct Args {
    words: Vec<Word>,
    /// For each word, when it is an expansion not known that may give any number of
    /// arguments (options among them): why.
    open: Vec<Option<String>>,
}

/// One argument an expansion gives, and why it is not known when it may be any number of
/// arguments, options among them (an array's element not known).
type Arg = (Word, Option<String>);

/// What one word gives the program.
enum Expansion {
    /// Itself.
    Same,
    /// These arguments, each placed where the expansion is written.
    Words(Vec<Arg>),
    /// Any number of words not known: why.
    Open(String),
}

/// The words `rest` give the program (at most [`MAX_WORDS`] more than `rest` holds):
/// bash's (and cmd's, make's) unquoted expansion of a known value, split on blanks as
/// bash's default IFS does; bash's `"${NAME[@]}"`, `"${NAME[0]}"`, `"${NAME[@]:0:2}"` and
/// PowerShell's `@Name` splat (or `$Name`) of a literal array (PowerShell's `@(...)` or
/// `'a', 'b'`), its elements; a quoted expansion of a known value that is an option, that
/// one word; an expansion not known (quoted or not: one word may be
/// `--enable-node-public-ip=false`), `"$@"`, `$(...)`, an unknown array: open
/// ([`Args::open`]). A quoted `"$VAR"` stays one word.
fn expand(rest: &[Word], cx: &Ctx<'_>, dialect: Dialect, at: u32) -> Args {
    let mut args = Args {
        words: Vec::with_capacity(rest.len()),
        open: Vec::with_capacity(rest.len()),
    };
    let expanded = &cx.eval.vars.expanded;
    for w in rest {
        let e = if expanded.get() < MAX_EXPANDED {
            expansion(w, cx, dialect, at, true)
        } else if w.literal().is_none_or(|l| l.starts_with('@')) {
            // No more: a word that may expand is not known.
            Expansion::Open(format!(
                "`{}` may add options: more words than are read",
                cx.input.source.slice(w.span)
            ))
        } else {
            Expansion::Same
        };
        let e = match e {
            Expansion::Words(ws)
                if args.words.len() + ws.len() > rest.len() + MAX_WORDS
                    || expanded.get() + ws.len() > MAX_EXPANDED =>
            {
                Expansion::Open(format!(
                    "`{}` may add options: more words than are read",
                    cx.input.source.slice(w.span)
                ))
            }
            Expansion::Words(ws) => {
                expanded.set(expanded.get() + ws.len());
                Expansion::Words(ws)
            }
            e => e,
        };
        match e {
            Expansion::Same => {
                args.words.push(w.clone());
                args.open.push(None);
            }
            Expansion::Words(ws) => {
                for (word, open) in ws {
                    // A value's words: `--opt=value` is `--opt` then `value`.
                    let split = match (&open, word.literal()) {
                        (None, Some(text)) => args_of(&text, word.span),
                        _ => vec![(word, open)],
                    };
                    for (word, open) in split {
                        args.words.push(word);
                        args.open.push(open);
                    }
                }
            }
            Expansion::Open(why) => {
                args.words.push(w.clone());
                args.open.push(Some(why));
            }
        }
    }
    args
}

/// What the word `w` of a command starting at `at` gives the program; `arrays`: an array's
/// expansion is read (not inside an array's elements).
fn expansion(w: &Word, cx: &Ctx<'_>, dialect: Dialect, at: u32, arrays: bool) -> Expansion {
    let written = || cx.input.source.slice(w.span).to_string();
    let open = |why: String| Expansion::Open(format!("`{}` may add options: {why}", written()));
    match (dialect, w.parts.as_slice()) {
        // Unquoted: split. A template expression or a macro is replaced in the text before
        // the shell reads it.
        (
            Dialect::Bash | Dialect::Cmd,
            [WordPart::Var { span, .. } | WordPart::Expr { span, .. } | WordPart::Macro { span, .. }],
        )
        | (Dialect::PowerShell, [WordPart::Expr { span, .. } | WordPart::Macro { span, .. }])
            if *span == w.span =>
        {
            match cx.eval.word(w, at).value {
                Ok(text) => split(&text, w, written),
                Err(why) => open(format!("its value is not known; {why}")),
            }
        }
        (
            Dialect::PowerShell,
            [
                WordPart::Var {
                    name, span, scope, ..
                },
            ],
        ) if arrays && *span == w.span && *scope != VarScope::Env => {
            // A string is one argument; an array's elements are each one.
            match cx.eval.vars.array(name, at) {
                Ok(array) => match elements(array, w, cx, dialect, at) {
                    Ok(ws) => Expansion::Words(ws),
                    Err(why) if why == ONE_VALUE => one_word(w, cx, at, open),
                    Err(why) => open(why),
                },
                Err(_) => one_word(w, cx, at, open),
            }
        }
        (Dialect::PowerShell, [WordPart::Lit { text, .. }])
            if arrays && w.span == w.inner_span() && text.starts_with('@') && is_ident(&text[1..]) =>
        {
            match cx.eval.vars.array(&text[1..], at) {
                Ok(array) => elements(array, w, cx, dialect, at).map_or_else(open, Expansion::Words),
                Err(why) => open(format!("its elements are not known; {why}")),
            }
        }
        (Dialect::Bash, [WordPart::Dynamic { span, why }]) if *why == ARRAY => {
            let text = cx.input.source.slice(*span);
            let name = text
                .strip_prefix("${")
                .and_then(|t| t.strip_suffix("[@]}").or(t.strip_suffix("[*]}")))
                .filter(|n| is_ident(n));
            let quoted_star = text.ends_with("[*]}") && *span != w.span;
            match name {
                _ if quoted_star => Expansion::Same,
                Some(name) if arrays => match cx.eval.vars.array(name, at) {
                    Ok(array) => elements(array, w, cx, dialect, at).map_or_else(open, Expansion::Words),
                    Err(why) => open(format!("its elements are not known; {why}")),
                },
                _ => open("its elements are not known".into()),
            }
        }
        // `${NAME[0]}`, `${NAME[@]:1:2}` (audit 25, D3): the elements chosen.
        (Dialect::Bash, [WordPart::Dynamic { span, why }]) if *why == SUBSTITUTION => {
            match chosen_elements(cx.input.source.slice(*span)) {
                Some((name, choice)) if arrays => match cx.eval.vars.array(name, at) {
                    Ok(array) => {
                        chosen(array, choice, *span == w.span, w, cx, dialect, at).unwrap_or_else(open)
                    }
                    Err(why) => open(format!("its elements are not known; {why}")),
                },
                Some(_) => open("its elements are not known".into()),
                // `${NAME^^}`, `${NAME/a/b}`, `${NAME:1}`...
                None => one_word(w, cx, at, open),
            }
        }
        (Dialect::Bash, [WordPart::Dynamic { why, .. }]) if *why == ARGS => open(format!("it is {ARGS}")),
        (Dialect::Bash, [WordPart::Dynamic { span, why }])
            if *span == w.span && *why == "the output of a command" =>
        {
            open(format!("it is {why}, split into words"))
        }
        _ => one_word(w, cx, at, open),
    }
}

/// Any other word, one argument (audit 25, D3): all literal, an option whose value is in
/// the same word (`--size=$SIZE`, read by [`Options::read`]), or what cannot start with `-`
/// (a literal first, a number): itself; a known value that is an option: that word; a value
/// not known: open, as one word may be any option (`--enable-node-public-ip=false`).
fn one_word(w: &Word, cx: &Ctx<'_>, at: u32, open: impl Fn(String) -> Expansion) -> Expansion {
    if w.parts.iter().all(|p| matches!(p, WordPart::Lit { .. })) {
        return Expansion::Same;
    }
    match w.parts.as_slice() {
        [WordPart::Lit { text, .. }, ..] if !text.starts_with('-') => return Expansion::Same,
        [WordPart::Lit { .. }, ..] if option_text(w).is_some() => return Expansion::Same,
        // `$#`, `$?`, `${#NAME}`, `$((...))`: a number (but `${!NAME}` may be anything).
        [WordPart::Dynamic { span, why }]
            if *why == ARITHMETIC
                || (*why == SPECIAL && !cx.input.source.slice(*span).starts_with("${!")) =>
        {
            return Expansion::Same;
        }
        _ => {}
    }
    match cx.eval.word(w, at).value {
        Ok(text) if is_option(&text) => Expansion::Words(vec![(placed(&text, w.span), None)]),
        Ok(_) => Expansion::Same,
        Err(why) => open(format!("its value is not known; {why}")),
    }
}

/// Whether one argument `text` is an option to the CLI: `-` first, and no blank before its
/// `=` if any (argparse takes `--opt=a b` for `--opt`, `--opt a` for no option).
fn is_option(text: &str) -> bool {
    let head = text.split('=').next().unwrap_or_default();
    text.starts_with('-') && !head.contains(char::is_whitespace)
}

/// Whether an option of `az ml compute create|attach` (or SDK v1's `az ml computetarget
/// create|attach`) takes a value, so that one written without it stops the CLI ("argument
/// --name/-n: expected one argument") before anything is created: every option the
/// reader reads but the flags, and the others of those commands and the CLI's own that
/// take one. An option not known is not said to take one (it may be a flag).
fn takes_a_value(target: Target, opt: &str) -> bool {
    match target {
        Target::Name | Target::Field(..) | Target::File | Target::Set => true,
        Target::Flag => false,
        Target::Skip => matches!(
            opt,
            "--resource-group"
                | "-g"
                | "--workspace-name"
                | "-w"
                | "--subscription"
                | "--output"
                | "-o"
                | "--query"
                | "--resource-id"
                | "--namespace"
                | "--identity-type"
                | "--user-assigned-identities"
                | "--admin-username"
                | "--admin-password"
                | "--admin-user-password"
                | "--admin-user-ssh-key"
                | "--ssh-key-value"
                | "--ssh-port"
                | "--ssh-private-key-file"
                | "--description"
                | "--tags"
                | "--user-object-id"
                | "--user-tenant-id"
                | "--vnet-resourcegroup-name"
                | "--compute-resource-id"
        ),
    }
}

/// Whether the literal word `text`, where an option's value is expected, is an option
/// instead: the CLI's parser (argparse) takes a word starting with `--`, or `-` and a
/// letter, for the next option, not for the value (`--name --size ...`); a negative
/// number is a value.
fn names_an_option(text: &str) -> bool {
    text.starts_with("--")
        || (text.starts_with('-') && text[1..].starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// The text of the word `w` where an option is expected, when it is one: all literal and
/// starting with `-`, or an option with its value in the same word given by an expansion
/// (`--size=$SIZE`, `"--enable-node-public-ip=$PUBLIC"`): its first literal, to and with
/// its `=`.
fn option_text(w: &Word) -> Option<String> {
    if let Some(text) = w.literal() {
        return is_option(&text).then_some(text);
    }
    match w.parts.first() {
        Some(WordPart::Lit {
            text, exact: true, ..
        }) if text.starts_with("--") && text.contains('=') => Some(text.clone()),
        _ => None,
    }
}

/// Which elements of an array a `${NAME[...]...}` gives.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    /// `${NAME[i]}`.
    Index(usize),
    /// `${NAME[@]:from}`, `${NAME[@]:from:count}` (`[*]`: `star`).
    Slice {
        from: usize,
        count: Option<usize>,
        star: bool,
    },
}

/// The array and the elements `${NAME[i]}`, `${NAME[@]:from}`, `${NAME[@]:from:count}`
/// (or `[*]`) choose, written `text`; `None` for any other form (an index or an offset that
/// is not a plain number: an expression, a negative one).
fn chosen_elements(text: &str) -> Option<(&str, Choice)> {
    let body = text.strip_prefix("${")?.strip_suffix('}')?;
    let (name, rest) = body.split_once('[')?;
    if !is_ident(name) {
        return None;
    }
    let (index, after) = rest.split_once(']')?;
    let number = |s: &str| {
        let s = s.trim_matches(' ');
        (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<usize>().ok())
            .flatten()
    };
    match (index, after.strip_prefix(':')) {
        (_, None) if after.is_empty() => Some((name, Choice::Index(number(index)?))),
        ("@" | "*", Some(range)) => {
            let (from, count) = match range.split_once(':') {
                Some((from, count)) => (number(from)?, Some(number(count)?)),
                None => (number(range)?, None),
            };
            Some((
                name,
                Choice::Slice {
                    from,
                    count,
                    star: index == "*",
                },
            ))
        }
        _ => None,
    }
}

/// The arguments the elements `choice` chooses of the literal array at `array` give, the
/// expansion `w` quoted (each element one argument; `[*]`'s joined into one) or not (each
/// split on blanks), or why they are not known.
fn chosen(
    array: Span,
    choice: Choice,
    unquoted: bool,
    w: &Word,
    cx: &Ctx<'_>,
    dialect: Dialect,
    at: u32,
) -> Result<Expansion, String> {
    let all = elements(array, w, cx, dialect, at)?;
    // Each element read counts, not only those chosen: input cannot multiply the work.
    let expanded = &cx.eval.vars.expanded;
    expanded.set(expanded.get() + all.len());
    let (from, end) = match choice {
        Choice::Index(i) => (i, i.saturating_add(1)),
        Choice::Slice { from, count, .. } => (from, count.map_or(usize::MAX, |c| from.saturating_add(c))),
    };
    // An element not known may be any number of them: the ones after it are not known.
    if let Some(why) = all.iter().take(end).find_map(|(_, open)| open.clone()) {
        return Err(why);
    }
    let picked: Vec<Arg> = all
        .into_iter()
        .skip(from)
        .take(end.saturating_sub(from))
        .collect();
    let text = |e: &Word| e.literal().map_or_else(|| cx.eval.word(e, at).value, Ok);
    match choice {
        Choice::Slice { star: true, .. } if !unquoted => {
            // One word: the elements joined by a blank.
            let mut joined = Vec::with_capacity(picked.len());
            for (e, _) in &picked {
                joined.push(text(e).map_err(|why| format!("its elements are not known; {why}"))?);
            }
            Ok(Expansion::Words(vec![(placed(&joined.join(" "), w.span), None)]))
        }
        // `"${NAME[0]}"` of an index beyond the array: one empty word.
        Choice::Index(_) if !unquoted && picked.is_empty() => {
            Ok(Expansion::Words(vec![(placed("", w.span), None)]))
        }
        _ if !unquoted => Ok(Expansion::Words(picked)),
        _ => {
            let mut out = Vec::new();
            for (e, _) in &picked {
                let value = text(e).map_err(|why| format!("its elements are not known; {why}"))?;
                match split(&value, &placed(&value, w.span), String::new) {
                    Expansion::Same => out.push((placed(&value, w.span), None)),
                    Expansion::Words(ws) => out.extend(ws),
                    Expansion::Open(_) => {
                        return Err(format!("its elements split into more than {MAX_SPLIT} words"));
                    }
                }
                if out.len() > MAX_SPLIT {
                    return Err(format!("its elements split into more than {MAX_SPLIT} words"));
                }
            }
            Ok(Expansion::Words(out))
        }
    }
}

/// The words a known value `text` of the word `w` splits into (blanks, as bash's default
/// IFS): itself when it is one word as it is.
fn split(text: &str, w: &Word, written: impl Fn() -> String) -> Expansion {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\n');
    if !text.is_empty() && !text.contains(blank) && !text.starts_with('-') {
        return Expansion::Same;
    }
    let pieces: Vec<&str> = text
        .split(blank)
        .filter(|p| !p.is_empty())
        .take(MAX_SPLIT + 1)
        .collect();
    if pieces.len() > MAX_SPLIT {
        return Expansion::Open(format!(
            "`{}` may add options: its value splits into more than {MAX_SPLIT} words",
            written()
        ));
    }
    Expansion::Words(pieces.into_iter().map(|p| (placed(p, w.span), None)).collect())
}

/// The arguments the text `text` an expansion gives at `span` is to [`Options::read`]:
/// `--opt=value` as `--opt` then `value` (the same to the CLI), any other text one word.
fn args_of(text: &str, span: Span) -> Vec<Arg> {
    match text.split_once('=') {
        Some((opt, value)) if opt.starts_with("--") => {
            vec![(placed(opt, span), None), (placed(value, span), None)]
        }
        _ => vec![(placed(text, span), None)],
    }
}

/// A word of the literal text `text` placed at `span` (what an expansion written there
/// gives).
fn placed(text: &str, span: Span) -> Word {
    Word {
        parts: vec![WordPart::Lit {
            text: text.to_string(),
            span,
            exact: false,
        }],
        span,
    }
}

/// The elements of the literal array at `array` ([`Assign::array`]) expanded by the word
/// `w`, each an argument (bash's unquoted expansions among them split; one not known is
/// open where it is), or why they are not read.
fn elements(array: Span, w: &Word, cx: &Ctx<'_>, dialect: Dialect, at: u32) -> Result<Vec<Arg>, String> {
    let memo = &cx.eval.vars.arrays;
    let known = memo.borrow().get(&array.start).cloned();
    let words = match known {
        Some(words) => words?,
        None => {
            let read = array_words(array, cx, dialect);
            memo.borrow_mut().insert(array.start, read.clone());
            read?
        }
    };
    let mut out = Vec::with_capacity(words.len());
    for e in words {
        // `([3]=x)`: an element set at its index.
        if dialect == Dialect::Bash
            && matches!(e.parts.first(), Some(WordPart::Lit { text, .. }) if text.starts_with('[') && text.contains("]="))
        {
            return Err("its elements are set at their indexes".into());
        }
        match expansion(&e, cx, dialect, at, false) {
            // A literal element is placed where the array is expanded, as a split value's
            // words are.
            Expansion::Same => match e.literal() {
                Some(text) => out.push((placed(&text, w.span), None)),
                None => out.push((e, None)),
            },
            Expansion::Words(ws) => out.extend(ws.into_iter().map(|(word, open)| {
                let span = w.span;
                match word.literal() {
                    Some(t) if open.is_none() => (placed(&t, span), None),
                    _ => (Word { span, ..word }, open),
                }
            })),
            // Where the array is expanded, the element's parts where they are written.
            Expansion::Open(why) => out.push((
                Word {
                    parts: e.parts,
                    span: w.span,
                },
                Some(why),
            )),
        }
        if out.len() > MAX_SPLIT {
            return Err(format!("its array has more than {MAX_SPLIT} elements"));
        }
    }
    Ok(out)
}

/// Why a PowerShell variable assigned a value with a comma in it is not an array: the
/// comma is inside a string (`'a,b'`); it is one value.
const ONE_VALUE: &str = "it is one value";

/// The words of the literal array at `array`, read from the file's text, or why not.
fn array_words(array: Span, cx: &Ctx<'_>, dialect: Dialect) -> Result<Vec<Word>, String> {
    let text = &cx.input.source.text;
    let start = array.start as usize;
    let mut options = LexOptions::new(dialect);
    options.newlines = false;
    let word = |from: usize, to: usize| {
        let script = super::shell::parse(&text[from..to], Map::Base(from as u32), options);
        script.commands.into_iter().flat_map(|c| c.words).next()
    };
    // PowerShell's `'a', 'b'`: the values between commas.
    if dialect == Dialect::PowerShell && !array.is_empty() {
        let end = array.end as usize;
        let Some(list) = text.get(start..end).filter(|_| end - start <= MAX_ARRAY_TEXT) else {
            return Err(format!(
                "its array is not read (longer than {MAX_ARRAY_TEXT} bytes)"
            ));
        };
        let words: Vec<Word> = ps_list(list)?
            .into_iter()
            .filter_map(|(from, to)| word(start + from, start + to))
            .collect();
        if words.len() > MAX_SPLIT {
            return Err(format!("its array has more than {MAX_SPLIT} elements"));
        }
        return Ok(words);
    }
    let end = if array.is_empty() {
        ps_array_end(text.as_bytes(), start)
    } else {
        Some(array.end as usize)
    };
    let Some(end) = end.filter(|&e| e > start + 1 && e - start <= MAX_ARRAY_TEXT + 2) else {
        return Err(format!(
            "its array is not read (longer than {MAX_ARRAY_TEXT} bytes, or not closed)"
        ));
    };
    let (Some(inner), true) = (
        text.get(start + 1..end - 1),
        text.as_bytes().get(start) == Some(&b'('),
    ) else {
        return Err("its array is not read".into());
    };
    let base = Map::Base(array.start + 1);
    let words: Vec<Word> = match dialect {
        Dialect::PowerShell => ps_elements(inner)
            .into_iter()
            .filter_map(|(from, to)| word(start + 1 + from, start + 1 + to))
            .map(|mut w| {
                w.parts = trim_ps_value(w.parts);
                w
            })
            .collect(),
        _ => super::shell::parse(inner, base, options)
            .commands
            .into_iter()
            .flat_map(|c| c.words)
            .collect(),
    };
    if words.len() > MAX_SPLIT {
        return Err(format!("its array has more than {MAX_SPLIT} elements"));
    }
    Ok(words)
}

/// The values of a PowerShell list written `text` (`'a', "b", 3, $x`): each one's
/// `[from, to)`, split at the commas outside quotes; [`ONE_VALUE`] when there is no such
/// comma, why not when it is an expression (blanks between two words, brackets, a comma
/// with nothing after it: the list goes on on the next line).
fn ps_list(text: &str) -> Result<Vec<(usize, usize)>, String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from: Option<usize> = None;
    // Where the current value's last byte outside blanks ends.
    let mut to = 0;
    let mut quote = None;
    let mut commas = 0;
    let mut i = 0;
    let expression = || Err("it is assigned an expression".to_string());
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => {
                quote = None;
                to = i + 1;
            }
            Some(b'"') if c == b'`' => i += 1,
            Some(_) => {}
            None => match c {
                b',' => {
                    commas += 1;
                    match from.take() {
                        Some(f) => out.push((f, to)),
                        // `,'a'`: a list of one (a comma first); `'a',,'b'` is an error.
                        None if commas == 1 && out.is_empty() => {}
                        None => return expression(),
                    }
                }
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'+' | b'|' | b';' => return expression(),
                _ => {
                    if from.is_some() && to < i {
                        // A blank between two words.
                        return expression();
                    }
                    from.get_or_insert(i);
                    if matches!(c, b'\'' | b'"') {
                        quote = Some(c);
                    } else if c == b'`' {
                        i += 1;
                    }
                    to = (i + 1).min(b.len());
                }
            },
        }
        i += 1;
    }
    if quote.is_some() {
        return expression();
    }
    match from {
        _ if commas == 0 => return Err(ONE_VALUE.into()),
        Some(f) => out.push((f, to)),
        None => return Err("it is continued on the next line".into()),
    }
    if out.len() > MAX_SPLIT {
        return Err(format!("its array has more than {MAX_SPLIT} elements"));
    }
    Ok(out)
}

/// Where the PowerShell array whose `(` is at `start` of `b` ends (one past its `)`),
/// quotes and nested parentheses passed over; `None` when it does not close within
/// [`MAX_ARRAY_TEXT`] bytes.
fn ps_array_end(b: &[u8], start: usize) -> Option<usize> {
    if b.get(start) != Some(&b'(') {
        return None;
    }
    let mut depth = 0usize;
    let mut quote = None;
    let mut i = start;
    while i < b.len() && i - start <= MAX_ARRAY_TEXT + 2 {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(b'"') if c == b'`' => i += 1,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'`' => i += 1,
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// The elements of a PowerShell array's text (between its parentheses): each one's
/// `[from, to)`, separated by commas, blanks and newlines outside quotes.
fn ps_elements(inner: &str) -> Vec<(usize, usize)> {
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut from = None;
    let mut quote = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(b'"') if c == b'`' => i += 1,
            Some(_) => {}
            None => match c {
                b',' | b' ' | b'\t' | b'\r' | b'\n' => {
                    if let Some(f) = from.take() {
                        out.push((f, i));
                    }
                }
                b'#' if from.is_none() => {
                    // A comment, to the end of its line.
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                _ => {
                    from.get_or_insert(i);
                    if matches!(c, b'\'' | b'"') {
                        quote = Some(c);
                    } else if c == b'`' {
                        i += 1;
                    }
                }
            },
        }
        i += 1;
    }
    if let Some(f) = from {
        out.push((f, b.len().min(i)));
    }
    out
}

/// The value of the option `opt` written in its word `w` (`--size=Standard_NC6`), and the
/// option's key; `None` when the word does not start with an exact literal that holds the
/// `=` (`--size"=Standard_NC6"` is passed over).
fn inline_value(w: &Word, opt: &str) -> Option<(Word, Span)> {
    let Some(WordPart::Lit {
        text,
        span,
        exact: true,
    }) = w.parts.first()
    else {
        return None;
    };
    if text.len() <= opt.len() {
        return None;
    }
    let key = Span::new(span.start, span.start + opt.len() as u32);
    let mut v = w.clone();
    if let WordPart::Lit { text, span, .. } = &mut v.parts[0] {
        *text = text[opt.len() + 1..].to_string();
        span.start += opt.len() as u32 + 1;
    }
    if matches!(&v.parts[0], WordPart::Lit { text, .. } if text.is_empty()) {
        v.parts.remove(0);
    }
    v.span = Span::new(key.end + 1, w.span.end);
    Some((v, key))
}

/// A setting from an evaluated value written as `written` at `span`.
pub fn setting_of(e: Evaluated, written: String, span: Span, key: Option<Span>, kind: ValueKind) -> Setting {
    match e.value {
        Ok(text) => {
            let mut s = Setting::literal(scalar(&text, kind), span, key);
            s.written = written;
            s.in_place = e.in_place;
            s.origin = e.origin;
            s
        }
        Err(why) => Setting::dynamic(written, why, span, key),
    }
}

/// The value as the rules compare it.
pub fn scalar(text: &str, kind: ValueKind) -> Scalar {
    match kind {
        ValueKind::Int => text
            .trim()
            .parse()
            .map_or_else(|_| Scalar::Str(text.into()), Scalar::Int),
        ValueKind::Bool => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Scalar::Bool(true),
            "false" => Scalar::Bool(false),
            _ => Scalar::Str(text.into()),
        },
        ValueKind::Enabled => match text.trim().to_ascii_lowercase().as_str() {
            "enabled" => Scalar::Bool(true),
            "disabled" => Scalar::Bool(false),
            _ => Scalar::Str(text.into()),
        },
        ValueKind::Priority => Scalar::Str(
            crate::facts::computes::normalize_tier(text.trim()).map_or_else(|| text.into(), str::to_string),
        ),
        ValueKind::Str => Scalar::Str(text.into()),
    }
}

/// The paths `--set` may give besides `FIELDS`: a compute instance's idle shutdown (the
/// SDK sends either as `idleTimeBeforeShutdown`), read by AML602 as the YAML's keys.
const SET_ALSO: &[&str] = &["idle_time_before_shutdown", "idle_time_before_shutdown_minutes"];

/// `--set path=value`: the path (Azure ML YAML's) and its setting.
fn set_value(word: &Word, key: Span, cx: &Ctx<'_>, at: u32) -> Option<(String, Setting)> {
    let (path, parts) = split_at_equals(word)?;
    let path = path.trim().to_string();
    // Only what the policies read (and the name): a thousand other `--set`s stay unread.
    if path != "name"
        && !crate::facts::computes::FIELDS.contains(&path.as_str())
        && !SET_ALSO.contains(&path.as_str())
    {
        return None;
    }
    let kind = match path.as_str() {
        "min_instances"
        | "max_instances"
        | "idle_time_before_scale_down"
        | "idle_time_before_shutdown_minutes" => ValueKind::Int,
        "enable_node_public_ip" | "ssh_public_access_enabled" => ValueKind::Bool,
        _ => ValueKind::Str,
    };
    let value_word = Word {
        span: parts
            .first()
            .map_or(word.span, |p| p.span().cover(parts[parts.len() - 1].span())),
        parts,
    };
    let written = cx.input.source.slice(value_word.inner_span()).to_string();
    let setting = setting_of(
        cx.eval.word(&value_word, at),
        written,
        value_word.inner_span(),
        Some(key),
        kind,
    );
    Some((path, setting))
}

/// The compute YAML `-f` names, looked for from the script's directory up to the
/// project's root (a script may run from any of them): its display path and definition,
/// each value inherited (its span: where the file is named); or why it is not read.
fn read_compute_yaml(
    path: &Setting,
    key: Span,
    input: &Input<'_>,
    candidates: Vec<PathBuf>,
    notes: &mut Vec<String>,
) -> Result<(String, ComputeDef), String> {
    let Some(Scalar::Str(written)) = &path.value else {
        return Err(path
            .why
            .clone()
            .unwrap_or_else(|| format!("the compute YAML `{}` is not known statically", path.written)));
    };
    let own = crate::fsio::normalize(input.path);
    let (file, display) =
        named_file(candidates, &own, input.files).map_err(|why| why.of_compute_yaml(&path.written))?;
    let text = match input.files.read(&file, &display) {
        Some(source) => source.text.clone(),
        None => return Err(NotRead::Missing.of_compute_yaml(&path.written)),
    };
    let loaded = crate::load::parse_text(
        &display,
        text,
        crate::load::Format::for_path(&display),
        &Default::default(),
    );
    let def = loaded.documents.iter().filter(|d| !d.partial).find_map(|doc| {
        let kind = crate::kinds::classify(doc, &display).kind?;
        super::aml_yaml::settings(doc, kind, &display)
    });
    let Some(mut def) = def else {
        return Err(format!("`{written}` is not a compute YAML"));
    };
    let inherit = |s: &mut Setting| {
        s.span = path.span;
        s.key = Some(key);
        s.origin = None;
        s.in_place = false;
        s.inherited = true;
    };
    inherit(&mut def.name);
    for (_, s) in &mut def.fields {
        inherit(s);
    }
    notes.push(format!("values from `{display}`"));
    Ok((display, def))
}

/// Where a file a script names (`written`, its value; empty: none) may be: relative to the
/// directory the command runs in ([`Cwd`]) from the one the script starts in — the file
/// around it says (`work_dir`), else the script's directory or one above it inside the
/// project — or from the script's own directory. A backslash separates too in
/// PowerShell and cmd (`.\scripts\c.yml`), where it is no escape; a Windows absolute path
/// (`C:\x`, `\\server\x`) names nothing in the project. `Err`: where it runs is not
/// known, why.
pub(super) fn candidates(
    at: &Cwd,
    input: &Input<'_>,
    work_dir: Option<&Path>,
    written: &str,
    dialect: Dialect,
) -> Result<Vec<PathBuf>, String> {
    if written.is_empty() {
        return Ok(Vec::new());
    }
    let written = match dialect {
        Dialect::Bash => std::borrow::Cow::Borrowed(written),
        Dialect::PowerShell | Dialect::Cmd => std::borrow::Cow::Owned(written.replace('\\', "/")),
    };
    let drive = written.as_bytes().get(1) == Some(&b':') && written.as_bytes()[0].is_ascii_alphabetic();
    if drive {
        return Ok(Vec::new());
    }
    let rel = Path::new(written.as_ref());
    if rel.is_absolute() {
        // A file of the project named from the checkout's root (`$(Build.SourcesDirectory)/
        // ml/build.py`) is written as the files beside this one are, not as a machine's path.
        let path = crate::fsio::normalize(rel);
        let below = (input.files.root()).and_then(|root| path.strip_prefix(root).ok()?.to_str());
        let shown = below.and_then(|below| input.files.from_root(input.path, below));
        return Ok(vec![shown.unwrap_or(path)]);
    }
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let starts = match work_dir {
        Some(w) => vec![w.to_path_buf()],
        None => input.files.dirs_up(dir),
    };
    super::cwd::candidates(at, &starts, dir, rel)
}

/// Why a file a script names is not read ([`named_file`]).
enum NotRead {
    /// No candidate is a file.
    Missing,
    /// The only one is the script itself (a workflow called `compute.yml`).
    Itself,
    /// This candidate (as shown) is refused: why (`it is outside the project`).
    Refused(String, &'static str),
}

impl NotRead {
    /// Said after the command that names the file (`source x` on line 3 …).
    fn after_command(&self) -> String {
        match self {
            NotRead::Missing => "names a file not found in the project".into(),
            NotRead::Itself => "names this script itself".into(),
            NotRead::Refused(display, why) => format!("names `{display}`, which is not read: {why}"),
        }
    }

    /// Said of the compute YAML `written` that `--file` names.
    fn of_compute_yaml(&self, written: &str) -> String {
        match self {
            NotRead::Missing => format!("the compute YAML `{written}` is not in the project"),
            NotRead::Itself => {
                format!(
                    "the compute YAML `{written}` is not in the project (the file it names is this script itself)"
                )
            }
            NotRead::Refused(display, why) => {
                format!("the compute YAML `{written}` names `{display}`, which is not read: {why}")
            }
        }
    }
}

/// The first of `candidates` that is a readable file of the project, other than the
/// script `own` (a workflow called `compute.yml` does not name itself): its path and
/// display (as the script's is shown); or why there is none.
fn named_file(candidates: Vec<PathBuf>, own: &Path, files: &Files) -> Result<(PathBuf, String), NotRead> {
    let mut why = NotRead::Missing;
    for c in candidates {
        let c = crate::fsio::normalize(&c);
        if c == *own {
            if matches!(why, NotRead::Missing) {
                why = NotRead::Itself;
            }
            continue;
        }
        let display = crate::discover::display_of(&c);
        if files.read(&c, &display).is_some() {
            return Ok((c, display));
        }
        let refusal = match files.boundary().resolve_named(&c) {
            Err(crate::fsio::Refusal::Missing) => continue,
            Err(crate::fsio::Refusal::Outside { link: false, .. }) => "it is outside the project",
            Err(crate::fsio::Refusal::Outside { link: true, .. }) => "it is a link out of the project",
            _ => "it is not a regular text file of the project under the size limit",
        };
        why = NotRead::Refused(display, refusal);
    }
    Err(why)
}

// --- A command built in a variable, run by `eval` ------------------------------------

/// Commands of one script that run a variable's text (`eval $CMD`, `$CMD`) read at most as
/// the command the variable holds; later ones are definitions not known, saying so.
const MAX_EVALS: usize = 32;

/// The text of a command built in a variable read at most, in bytes: what is appended
/// beyond it is not read, and may add any option.
const MAX_BUILT_TEXT: usize = 16 * 1024;

/// Parts not known (a command's output...) in one command built in a variable at most;
/// with more, the command is not known.
const MAX_HOLES: u32 = 1024;

/// The first of the characters (of Unicode's private use area) that stand for a part not
/// known in the text `eval` reads again ([`Rebuilt`]).
const HOLE: u32 = 0xE000;

fn is_hole(c: char) -> bool {
    (HOLE..HOLE + MAX_HOLES).contains(&(c as u32))
}

/// Why a part of a command built in a variable is not known where it was a variable not
/// known when the command was built, though it is when `eval` runs.
const BUILT_UNKNOWN: &str = "a value not known where the command is built in a variable";

/// Why the text appended to a command built in a variable beyond [`MAX_BUILT_TEXT`] is
/// not read.
const BUILT_LONG: &str = "text appended to a command built in a variable beyond what amlint reads";

/// A part of the text a variable holds, for `eval` to read again.
#[derive(Clone, Debug)]
enum Piece {
    /// Literal text written at `span` (`exact`: as it is).
    Text { text: String, span: Span, exact: bool },
    /// An expansion whose value is the same where the command is built and where it runs,
    /// read again as written (`$UAI_ID`, `${{ inputs.size }}`, `$(name)`).
    Raw(Span),
    /// The value an expansion written at `span` has where the command is built.
    Placed { text: String, span: Span },
    /// A part not known: why.
    Hole { span: Span, why: &'static str },
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Text { text, .. } | Piece::Placed { text, .. } => text.len(),
            Piece::Raw(span) => span.len() as usize,
            Piece::Hole { .. } => 3,
        }
    }
}

/// What a variable holds where a command runs its text.
enum Holds {
    Unset,
    Known {
        /// Each piece and, when an append under a condition adds it, why it may not be
        /// there.
        pieces: Vec<(Piece, Option<std::rc::Rc<str>>)>,
        len: usize,
        /// [`MAX_BUILT_TEXT`] is reached: later appends are not read.
        full: bool,
        /// The command is set under a condition (on this line).
        under: Option<u32>,
    },
    Unknown(String),
}

/// One assignment of a variable: its command (an index of the script's), its value's
/// parts or why they are not known, and whether it appends (`NAME+=…`).
struct Set {
    cmd: usize,
    value: Result<Vec<WordPart>, String>,
    append: bool,
}

/// Whether an assignment runs when a later command does.
enum Runs {
    Always,
    /// Under a condition: it may not have run.
    Maybe,
    /// It does not change the variable for the later command (in a subshell, a pipeline).
    Apart,
    /// Where it is says nothing of when it runs (a loop, a function): why.
    Unknown(&'static str),
}

/// The commands of a bash script that run the text a variable holds — `eval $CMD`, `eval
/// "$CMD"` (the text read again as shell code: quotes, `$X`, `;`), or an unquoted `$CMD`
/// as the command (its words) — read as the command the variable holds when the script
/// assigns it text naming `az ml compute create|attach` (audit 29, defect 9: the mlops
/// templates' `create-compute.yml` builds `COMPUTE_CMD="az ml compute create --name ${{
/// inputs.cluster_name }} …"`, appends the VNet options under a condition and runs `eval
/// $COMPUTE_CMD`).
struct Evals<'s> {
    script: &'s Script,
    /// Each variable's assignments, in order (made when a command runs a variable).
    sets: Option<std::collections::HashMap<String, Vec<Set>>>,
    /// How many more such commands are read ([`MAX_EVALS`]).
    budget: usize,
}

/// The words a command runs as the text of variables: `eval`'s arguments (`true`: read
/// again as shell code), or the words of a command that is an unquoted `$CMD` (`false`).
fn eval_words(c: &ShellCommand) -> Option<(bool, &[Word])> {
    let first = c.words.first()?;
    if first.literal().as_deref() == Some("eval") {
        return (c.words.len() > 1).then(|| (true, &c.words[1..]));
    }
    match first.parts.as_slice() {
        [WordPart::Var { span, .. }] if *span == first.span && sole_var(first).is_some() => {
            Some((false, &c.words[..]))
        }
        _ => None,
    }
}

/// The shell variable a word is, quoted or not (`$CMD`, `"${CMD}"`).
fn sole_var(w: &Word) -> Option<&str> {
    match w.parts.as_slice() {
        [
            WordPart::Var {
                name,
                scope: VarScope::Shell,
                default: None,
                ..
            },
        ] if is_ident(name) => Some(name),
        _ => None,
    }
}

/// Whether an assignment's value writes a command that may create a compute.
fn names_a_creation(value: &Result<Vec<WordPart>, String>) -> bool {
    value.as_ref().is_ok_and(|parts| {
        parts.iter().any(|p| match p {
            WordPart::Lit { text, .. } => {
                text.contains("ml compute") && (text.contains("create") || text.contains("attach"))
            }
            _ => false,
        })
    })
}

/// Whether a value can be read again as written (`$X` rather than its text): it holds
/// nothing the shell would read differently.
fn plain(text: &str) -> bool {
    !text.is_empty()
        && !text
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b"\"'\\$`;&|<>(){}[]*?#~".contains(&b))
        && !text.chars().any(is_hole)
}

impl Evals<'_> {
    fn sets(&mut self) -> &std::collections::HashMap<String, Vec<Set>> {
        let script = self.script;
        self.sets.get_or_insert_with(|| {
            let mut m: std::collections::HashMap<String, Vec<Set>> = Default::default();
            for (i, c) in script.commands.iter().enumerate() {
                if let [w] = c.words.as_slice()
                    && let Some((name, parts)) = split_at_equals(w)
                    && let Some(n) = name.strip_suffix('+').filter(|n| is_ident(n))
                {
                    m.entry(n.to_string()).or_default().push(Set {
                        cmd: i,
                        value: Ok(parts),
                        append: true,
                    });
                    continue;
                }
                for (name, value) in bash_assignments(c) {
                    m.entry(name).or_default().push(Set {
                        cmd: i,
                        value,
                        append: false,
                    });
                }
            }
            m
        })
    }

    /// The definitions the command `i` makes when it runs the text of a variable the
    /// script assigns a command creating a compute: the command read from that text, each
    /// value where it is written in the assignments; a definition not known, saying why,
    /// when the text is not known.
    fn read(&mut self, i: usize, cwd: &Cwd, head: &Head<'_>, cx: &Ctx<'_>) -> Vec<ComputeDef> {
        let script = self.script;
        let c = &script.commands[i];
        let Some((again, words)) = eval_words(c) else {
            return Vec::new();
        };
        if words
            .iter()
            .any(|w| sole_var(w).is_none() && w.literal().is_none())
        {
            return Vec::new();
        }
        let sets = self.sets();
        let names = |v: &str| {
            sets.get(v)
                .is_some_and(|s| s.iter().any(|s| s.cmd < i && names_a_creation(&s.value)))
        };
        let Some(var) = words.iter().filter_map(sole_var).find(|v| names(v)) else {
            return Vec::new();
        };
        let source = cx.input.source;
        let shown = source.slice(words[0].span.cover(words[words.len() - 1].span));
        let shown = if again {
            format!("eval {shown}")
        } else {
            shown.to_string()
        };
        let line = super::common::line_of(source, c.span.start);
        if self.budget == 0 {
            let why = format!("the script runs the text of more than {MAX_EVALS} variables");
            return vec![not_known(c, var, &shown, line, why, cx)];
        }
        self.budget -= 1;
        let mut text = Rebuilt::default();
        let mut under = None;
        for (k, w) in words.iter().enumerate() {
            if k > 0 {
                text.blank(c.span.start);
            }
            let Some(name) = sole_var(w) else {
                for p in &w.parts {
                    if let WordPart::Lit { text: t, span, exact } = p {
                        let piece = Piece::Text {
                            text: t.clone(),
                            span: *span,
                            exact: *exact,
                        };
                        if !text.add(&piece, None, source) {
                            return vec![not_known(c, var, &shown, line, text.why(), cx)];
                        }
                    }
                }
                continue;
            };
            let from = text.text.len();
            match self.holds(name, i, cx) {
                Holds::Unset => {}
                Holds::Unknown(why) => return vec![not_known(c, var, &shown, line, why, cx)],
                Holds::Known { pieces, under: u, .. } => {
                    under = under.or(u);
                    for (piece, cond) in &pieces {
                        if !text.add(piece, cond.as_ref(), source) {
                            return vec![not_known(c, var, &shown, line, text.why(), cx)];
                        }
                    }
                }
            }
            // Unquoted, the value is split into words (then joined by blanks by `eval`).
            if w.span == w.inner_span() {
                let bytes = blanks(&text.text[from..]);
                text.text.replace_range(from.., &bytes);
            }
        }
        if !again && text.pieces_read_again {
            let why = format!(
                "its words are the text of `${var}` split on blanks, which holds quotes or other characters the shell then takes as they are (not read again, as by `eval`)"
            );
            return vec![not_known(c, var, &shown, line, why, cx)];
        }
        let mut options = LexOptions::new(Dialect::Bash);
        options.macros = script.macros;
        options.make = script.make;
        let read = super::shell::parse(&text.text, Map::Base(0), options);
        let mut out = Vec::new();
        for mut command in read.commands {
            // Which words an append under a condition gives: the settings they make may
            // not be set.
            let conditional: Vec<(Span, std::rc::Rc<str>)> = command
                .words
                .iter()
                .filter_map(|w| {
                    let why = text
                        .cond
                        .iter()
                        .find(|(s, e, _)| (*s as u32) < w.span.end && w.span.start < *e as u32)?;
                    Some((text.place(w.span), why.2.clone()))
                })
                .collect();
            for w in &mut command.words {
                text.place_word(w, source);
            }
            let command = ShellCommand {
                words: command.words,
                // Its words are evaluated where the text is run.
                span: c.span,
                depth: c.depth + command.depth,
                chained: c.chained || command.chained,
                block: c.block,
                list: c.list,
                isolated: c.isolated || command.isolated,
            };
            let Some(mut def) = definition(&command, cwd, head, cx) else {
                continue;
            };
            let within = |s: &Setting| {
                conditional.iter().find(|(w, _)| {
                    let inside = |x: Span| w.start <= x.start && x.end <= w.end;
                    inside(s.span) || s.key.is_some_and(inside)
                })
            };
            for s in std::iter::once(&mut def.name).chain(def.fields.iter_mut().map(|(_, s)| s)) {
                if let Some((_, why)) = within(s) {
                    *s = Setting::dynamic(s.written.clone(), why.to_string(), s.span, s.key);
                }
            }
            def.notes.push(format!(
                "the command is the text of `${var}`, run by `{shown}` on line {line}"
            ));
            if let Some(at) = under
                && !def.notes.iter().any(|n| n.contains("under a condition"))
            {
                def.notes.push(format!(
                    "the command runs under a condition: `${var}` is set under one on line {at}"
                ));
            }
            out.push(def);
        }
        out
    }

    /// What the variable `name` holds where command `i` runs, from the script's
    /// assignments before it: the last one that sets it, then those that append to it
    /// (`NAME="$NAME …"`, `NAME+=…`); an append under a condition (an `if`'s branch, after
    /// `&&`) makes what it adds uncertain, a set under one after another makes the value
    /// not known.
    fn holds(&mut self, name: &str, i: usize, cx: &Ctx<'_>) -> Holds {
        let script = self.script;
        let e = &script.commands[i];
        if script.vars_cut.is_some_and(|cut| cut < e.span.start) {
            return Holds::Unknown(format!(
                "`{name}` may be set among more variables than are read before this"
            ));
        }
        let vars = cx.eval.vars;
        let foreign = vars.by_name.get(name).is_some_and(|all| {
            all.iter()
                .any(|&k| vars.assigns[k].foreign && vars.assigns[k].at < e.span.start)
        });
        if foreign {
            return Holds::Unknown(format!("`{name}` may be set in a file the script sources"));
        }
        let source = cx.input.source;
        let mut holds = Holds::Unset;
        let Some(sets) = self.sets().get(name) else {
            return holds;
        };
        for s in sets.iter().take_while(|s| s.cmd < i) {
            let a = &script.commands[s.cmd];
            let line = super::common::line_of(source, a.span.start);
            let append_word = |p: Option<&WordPart>| matches!(p, Some(WordPart::Var { name: n, scope: VarScope::Shell, default: None, .. }) if n == name);
            let parts = match &s.value {
                Ok(parts) => parts.as_slice(),
                Err(why) => {
                    holds = Holds::Unknown(format!("`{name}` is set where {why} (line {line})"));
                    continue;
                }
            };
            let (append, parts) = if s.append {
                (true, parts)
            } else if append_word(parts.first()) {
                (true, &parts[1..])
            } else {
                (false, parts)
            };
            let runs = runs(script, a, e, append);
            let maybe = match runs {
                Runs::Apart => continue,
                Runs::Unknown(why) => {
                    holds = Holds::Unknown(format!("`{name}` is set {why} (line {line})"));
                    continue;
                }
                Runs::Always => false,
                Runs::Maybe => true,
            };
            if parts
                .iter()
                .any(|p| matches!(p, WordPart::Var { name: n, .. } if n == name))
            {
                holds = Holds::Unknown(format!(
                    "`{name}` is built from its own value otherwise than by appending to it (line {line})"
                ));
                continue;
            }
            if parts
                .iter()
                .any(|p| matches!(p, WordPart::Dynamic { why, .. } if *why == ARRAY_VALUE))
            {
                holds = Holds::Unknown(format!("`{name}` is set to an array (line {line})"));
                continue;
            }
            let cond: Option<std::rc::Rc<str>> = maybe.then(|| {
                format!("it is added to `${name}` under a condition (line {line}): the run may not take that branch")
                    .into()
            });
            match (&mut holds, append, maybe) {
                (Holds::Unknown(_), true, _) => {}
                (
                    Holds::Known {
                        pieces, len, full, ..
                    },
                    true,
                    _,
                ) => push_pieces(pieces, len, full, parts, cond, a.span.start, e.span.start, cx),
                (Holds::Unset, true, _) | (_, false, false) | (Holds::Unset, false, true) => {
                    // A first assignment under a condition: its text is known, and the
                    // condition is said of the whole (`under`), not of each piece.
                    let first_under = !append && maybe;
                    let (mut pieces, mut len, mut full) = (Vec::new(), 0, false);
                    push_pieces(
                        &mut pieces,
                        &mut len,
                        &mut full,
                        parts,
                        if first_under { None } else { cond },
                        a.span.start,
                        e.span.start,
                        cx,
                    );
                    holds = Holds::Known {
                        pieces,
                        len,
                        full,
                        under: first_under.then_some(line),
                    };
                }
                (_, false, true) => {
                    holds = Holds::Unknown(format!(
                        "`{name}` is set again under a condition (line {line}): the run may not take that branch"
                    ));
                }
            }
        }
        holds
    }
}

/// Appends the pieces of an assignment's value `parts` (written by the command at `built`,
/// run by the command at `run`) to a variable's text, up to [`MAX_BUILT_TEXT`] bytes.
#[allow(clippy::too_many_arguments)]
fn push_pieces(
    pieces: &mut Vec<(Piece, Option<std::rc::Rc<str>>)>,
    len: &mut usize,
    full: &mut bool,
    parts: &[WordPart],
    cond: Option<std::rc::Rc<str>>,
    built: u32,
    run: u32,
    cx: &Ctx<'_>,
) {
    for p in parts {
        if *full {
            return;
        }
        let piece = piece(p, built, run, cx);
        if *len + piece.len() > MAX_BUILT_TEXT {
            // A word of its own: it may be any options.
            let blank = Piece::Placed {
                text: " ".into(),
                span: p.span(),
            };
            pieces.push((blank, cond.clone()));
            pieces.push((
                Piece::Hole {
                    span: p.span(),
                    why: BUILT_LONG,
                },
                cond.clone(),
            ));
            *full = true;
            return;
        }
        *len += piece.len();
        pieces.push((piece, cond.clone()));
    }
}

/// What the part `p` of a value written by the command at `built` gives the command the
/// text is run by at `run`.
fn piece(p: &WordPart, built: u32, run: u32, cx: &Ctx<'_>) -> Piece {
    let source = cx.input.source;
    match p {
        WordPart::Lit { text, span, exact } => Piece::Text {
            text: text.clone(),
            span: *span,
            exact: *exact,
        },
        WordPart::Dynamic { span, why } => Piece::Hole { span: *span, why },
        WordPart::Var { span, .. } | WordPart::Expr { span, .. } | WordPart::Macro { span, .. } => {
            let raw = source.slice(*span);
            let value = |at: u32| cx.eval.parts(std::slice::from_ref(p), At::of(at), 0).0;
            let then = value(built);
            let as_written = match p {
                WordPart::Expr { .. } => raw.starts_with("${{") && raw.ends_with("}}"),
                WordPart::Macro { .. } => raw.starts_with("$(") && raw.ends_with(')'),
                _ => raw.starts_with('$') && value(run) == then,
            };
            match then {
                Ok(t) if as_written && plain(&t) => Piece::Raw(*span),
                Err(_) if as_written => Piece::Raw(*span),
                Ok(text) => Piece::Placed { text, span: *span },
                Err(_) => Piece::Hole {
                    span: *span,
                    why: BUILT_UNKNOWN,
                },
            }
        }
    }
}

/// Whether the assignment `a` runs when the later command `e` does: `a` in a block `e`
/// sits in; under a condition when `a` is in a branch of an `if`/`case` (nested ones too)
/// inside such a block, or chained (`… && CMD=…`); not known in a loop, a function's
/// body or a `{ }` group; apart in a subshell or a pipeline.
fn runs(script: &Script, a: &ShellCommand, e: &ShellCommand, append: bool) -> Runs {
    if a.isolated {
        return Runs::Apart;
    }
    if script.blocks_cut.is_some_and(|cut| cut <= e.span.start) {
        return Runs::Unknown("among more blocks than are read");
    }
    let blocks = &script.blocks;
    let mut around = Vec::new();
    let mut b = e.block;
    while let Some(x) = b {
        if around.len() > blocks.len() {
            break;
        }
        around.push(x);
        b = blocks.get(x as usize).and_then(|blk| blk.parent);
    }
    // Appended to in a loop, even one around both: each run of it adds again.
    if append {
        let mut b = a.block;
        let mut steps = 0;
        while let Some(x) = b {
            let Some(blk) = blocks.get(x as usize) else { break };
            if blk.kind == super::shell::BlockKind::Loop {
                return Runs::Unknown("in a loop");
            }
            steps += 1;
            if steps > blocks.len() {
                break;
            }
            b = blk.parent;
        }
    }
    let mut maybe = a.chained;
    let mut b = a.block;
    let mut steps = 0;
    while let Some(x) = b {
        if around.contains(&x) {
            break;
        }
        let Some(blk) = blocks.get(x as usize) else {
            return Runs::Unknown("in a block amlint does not follow");
        };
        match blk.kind {
            super::shell::BlockKind::Branch | super::shell::BlockKind::Choice => maybe = true,
            super::shell::BlockKind::Loop => return Runs::Unknown("in a loop"),
            super::shell::BlockKind::Subshell => return Runs::Apart,
            super::shell::BlockKind::Group => return Runs::Unknown("in a function or a `{ }` block"),
            super::shell::BlockKind::Other => return Runs::Unknown("in a block amlint does not follow"),
        }
        steps += 1;
        if steps > blocks.len() {
            return Runs::Unknown("in a block amlint does not follow");
        }
        b = blk.parent;
    }
    if maybe { Runs::Maybe } else { Runs::Always }
}

/// The bytes of `text` with newlines and tabs as blanks (bash splitting an unquoted
/// value, `eval` joining the words with blanks).
fn blanks(text: &str) -> String {
    text.replace(['\n', '\t', '\r'], " ")
}

/// The text `eval` reads again, each byte's place in the file, and what the pieces not
/// known and appended under a condition are.
#[derive(Default)]
struct Rebuilt {
    text: String,
    /// For each byte of `text`: the span of the file it comes from.
    from: Vec<(u32, u32)>,
    /// Each hole's why, by its number ([`HOLE`] + number is its character).
    holes: Vec<&'static str>,
    /// The ranges of `text` appended under a condition, with why they may not be there.
    cond: Vec<(usize, usize, std::rc::Rc<str>)>,
    /// A literal or a value holds characters the shell reads again (quotes, `$`...).
    pieces_read_again: bool,
    /// Why a piece could not be added.
    failed: Option<String>,
}

impl Rebuilt {
    fn why(&self) -> String {
        self.failed
            .clone()
            .unwrap_or_else(|| "its text is not read".to_string())
    }

    /// A blank between two of `eval`'s arguments.
    fn blank(&mut self, at: u32) {
        let at = self.from.last().map_or((at, at), |&(_, end)| (end, end));
        self.text.push(' ');
        self.from.push(at);
    }

    /// Adds a piece; `false` when it cannot be (a character standing for a hole is in the
    /// text, or there are too many holes).
    fn add(
        &mut self,
        piece: &Piece,
        cond: Option<&std::rc::Rc<str>>,
        source: &crate::source::SourceFile,
    ) -> bool {
        let start = self.text.len();
        let again = |t: &str| t.bytes().any(|b| b"\"'\\$`;&|<>(){}#".contains(&b));
        match piece {
            Piece::Text { text, span, exact } => {
                if text.chars().any(is_hole) {
                    self.failed = Some("its text holds characters of Unicode's private use area".into());
                    return false;
                }
                self.pieces_read_again |= again(text);
                self.text.push_str(text);
                let written = source.slice(*span);
                let offsets = if *exact && written == text {
                    Some((0..text.len() as u32).collect())
                } else {
                    align(text, written)
                };
                match offsets {
                    Some(offsets) => self
                        .from
                        .extend(offsets.into_iter().map(|o| (span.start + o, span.start + o + 1))),
                    None => self
                        .from
                        .extend(std::iter::repeat_n((span.start, span.end), text.len())),
                }
            }
            Piece::Raw(span) => {
                let raw = source.slice(*span);
                if raw.chars().any(is_hole) {
                    self.failed = Some("its text holds characters of Unicode's private use area".into());
                    return false;
                }
                self.text.push_str(raw);
                self.from
                    .extend((span.start..span.start + raw.len() as u32).map(|o| (o, o + 1)));
            }
            Piece::Placed { text, span } => {
                if text.chars().any(is_hole) {
                    self.failed = Some("its text holds characters of Unicode's private use area".into());
                    return false;
                }
                self.pieces_read_again |= again(text);
                self.text.push_str(text);
                self.from
                    .extend(std::iter::repeat_n((span.start, span.end), text.len()));
            }
            Piece::Hole { span, why } => {
                let k = self.holes.len() as u32;
                let Some(ch) = (k < MAX_HOLES).then(|| char::from_u32(HOLE + k)).flatten() else {
                    self.failed = Some(format!("it holds more than {MAX_HOLES} values not known"));
                    return false;
                };
                self.holes.push(why);
                self.text.push(ch);
                self.from
                    .extend(std::iter::repeat_n((span.start, span.end), ch.len_utf8()));
            }
        }
        if let Some(why) = cond {
            self.cond.push((start, self.text.len(), why.clone()));
        }
        true
    }

    /// Where the bytes `span` of the text are in the file.
    fn place(&self, span: Span) -> Span {
        let (a, b) = (span.start as usize, span.end as usize);
        let Some(&last) = self.from.last() else {
            return Span::at(0);
        };
        let first = self.from.get(a).copied().unwrap_or((last.1, last.1));
        if b <= a {
            return Span::new(first.0, first.0);
        }
        let end = self.from.get(b - 1).copied().unwrap_or(last);
        Span::new(first.0, end.1.max(first.0))
    }

    /// The word `w` read from the text, placed in the file: each part at its place, a
    /// literal holding a hole the part not known it stands for.
    fn place_word(&self, w: &mut Word, source: &crate::source::SourceFile) {
        w.span = self.place(w.span);
        for p in &mut w.parts {
            self.place_part(p, source, 0);
        }
    }

    fn place_part(&self, p: &mut WordPart, source: &crate::source::SourceFile, depth: usize) {
        match p {
            WordPart::Lit { text, span, exact } => {
                *span = self.place(*span);
                if let Some(k) = text.chars().find(|&c| is_hole(c)) {
                    let why = self
                        .holes
                        .get((k as u32 - HOLE) as usize)
                        .copied()
                        .unwrap_or(BUILT_UNKNOWN);
                    *p = WordPart::Dynamic { span: *span, why };
                    return;
                }
                *exact = source.slice(*span) == text.as_str();
            }
            WordPart::Var { span, default, .. } => {
                *span = self.place(*span);
                if let Some(d) = default {
                    for q in d {
                        if depth < MAX_NESTING {
                            self.place_part(q, source, depth + 1);
                        }
                    }
                }
            }
            WordPart::Expr { span, .. } | WordPart::Macro { span, .. } | WordPart::Dynamic { span, .. } => {
                *span = self.place(*span);
            }
        }
    }
}

/// Where each byte of `text` (a literal's value) is in `written` (how the file writes it),
/// when `written` is `text` with escapes and line continuations (`\`, a newline) only.
fn align(text: &str, written: &str) -> Option<Vec<u32>> {
    let (t, w) = (text.as_bytes(), written.as_bytes());
    let mut out = Vec::with_capacity(t.len());
    let mut j = 0;
    for &b in t {
        loop {
            let &c = w.get(j)?;
            if c == b {
                out.push(j as u32);
                j += 1;
                break;
            }
            if !matches!(c, b'\\' | b'\n' | b'\r') {
                return None;
            }
            j += 1;
        }
    }
    Some(out)
}

/// A definition of which nothing is known: the command `c` runs the text of `var`, which
/// the script assigns a command creating a compute, and that text is not known (`why`).
fn not_known(c: &ShellCommand, var: &str, shown: &str, line: u32, why: String, cx: &Ctx<'_>) -> ComputeDef {
    let span = c.words[0].span.cover(c.words[c.words.len() - 1].span);
    let written = format!("${var}");
    let mut def = ComputeDef::new(
        SourceKind::AzCli,
        cx.input.source.path.clone(),
        span,
        "az ml compute create",
        Setting::dynamic(written.clone(), why.clone(), span, None),
    );
    for path in crate::facts::computes::FIELDS.iter().chain(SET_ALSO) {
        def.set(path, Setting::dynamic(written.clone(), why.clone(), span, None));
    }
    def.notes.extend(cx.note.iter().cloned());
    def.notes.push(format!(
        "`{shown}` on line {line} runs the text of `${var}`, which the script assigns a command creating a compute; that text is not known: {why}"
    ));
    if c.conditional() {
        def.notes.push("the command runs under a condition".into());
    }
    def
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::super::shell::{LexOptions, Map, parse};
    use super::*;

    fn defs(text: &str, dialect: Dialect) -> Vec<ComputeDef> {
        let source = crate::source::SourceFile::new("x.sh", text.to_string());
        let files = Files::around(Path::new("."), &Default::default());
        let input = Input {
            path: Path::new("x.sh"),
            source: &source,
            documents: &[],
            kinds: &[],
            files: &files,
        };
        let script = parse(text, Map::Base(0), LexOptions::new(dialect));
        let vars = Vars::scan(&script, dialect);
        let cx = Ctx {
            input: &input,
            eval: Eval {
                vars: &vars,
                outer: &NoOuter,
            },
            note: None,
        };
        definitions(&script, &cx)
    }

    fn value(d: &ComputeDef, path: &str) -> Option<Scalar> {
        d.get(path).and_then(|s| s.value.clone())
    }

    /// Whether the definition's only notes say that it takes the CLI's default size.
    fn only_the_default_size(d: &ComputeDef) -> bool {
        d.notes
            .iter()
            .all(|n| n.starts_with("no `--size`: the CLI creates it with the default size"))
    }

    /// Why the setting at `path` is not known (empty when it is, or is not set).
    fn why<'d>(d: &'d ComputeDef, path: &str) -> &'d str {
        d.get(path).and_then(|s| s.why.as_deref()).unwrap_or_default()
    }

    /// `az ml compute create` run by what runs its arguments: a function of the script whose
    /// body runs `"$@"` (at the call's first `az`), `timeout`, `env`, `nohup`, `nice` with
    /// their options, a command substitution, an `if`/`while` condition (not "under a
    /// condition": it always runs), after `command`/`time`.
    #[test]
    fn a_command_run_by_a_wrapper_or_a_runner_is_read() {
        let text = "retry() { local n=$1; shift; for i in $(seq 1 \"$n\"); do \"$@\" && return 0; done; }\nretry 3 az ml compute create --name c-retry --size Standard_NC6\ntimeout -k 5 --signal KILL 600 az ml compute create --name c-timeout\nenv -i -u X A=1 B=\"2\" az ml compute create --name c-env\nnohup nice -n 5 az ml compute create --name c-nohup\nOUT=$(az ml compute create --name c-subst)\nif az ml compute create --name c-if; then :; fi\nwhile ! timeout 9 az ml compute create --name c-while; do :; done\ncommand az ml compute create --name c-command\n";
        let ds = defs(text, Dialect::Bash);
        let names: Vec<&str> = ds.iter().filter_map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            [
                "c-retry",
                "c-timeout",
                "c-env",
                "c-nohup",
                "c-subst",
                "c-if",
                "c-while",
                "c-command"
            ]
        );
        let retry = &ds[0];
        assert_eq!(
            &text[retry.span.range()],
            "az ml compute create --name c-retry --size Standard_NC6"
        );
        assert_eq!(&text[retry.get("size").unwrap().span.range()], "Standard_NC6");
        assert_eq!(&text[ds[4].span.range()], "az ml compute create --name c-subst");
        for d in &ds {
            assert!(d.notes.is_empty(), "{:?}: {:?}", d.known_name(), d.notes);
        }
    }

    /// What runs no command, one not read, or a function that does not run its arguments
    /// defines nothing: `env` with only assignments, `timeout` without a command or with
    /// `az` as its DURATION, `env -C` (another directory), `--help`, a function that
    /// echoes them or is defined after the call, a function after `sudo` (which runs
    /// programs), an unknown wrapper.
    #[test]
    fn what_runs_no_command_or_an_unknown_one_defines_nothing() {
        let text = "env A=1 B=2\nenv -i\ntimeout\ntimeout 600\ntimeout -s\nnice -n\nenv -C /tmp az ml compute create --name c1\nenv --chdir=/tmp az ml compute create --name c2\ntimeout az ml compute create --name c3\nenv --help az ml compute create --name c4\nshow() { echo \"$@\"; }\nshow az ml compute create --name c5\nlater az ml compute create --name c6\nlater() { \"$@\"; }\nrun() { \"$@\"; }\nsudo run az ml compute create --name c7\ntimeout 5 run az ml compute create --name c8\nunknown az ml compute create --name c9\nrun() { :; }\nrun az ml compute create --name c10\n";
        let ds = defs(text, Dialect::Bash);
        let names: Vec<Option<&str>> = ds.iter().map(|d| d.known_name()).collect();
        assert_eq!(names, Vec::<Option<&str>>::new());
    }

    /// Hostile: a function calling itself with `"$@"`, 10,000 nested `$(`, a wrapper call of
    /// 100,000 arguments (beyond `MAX_WORDS`: not kept) — quickly, without a wrong definition.
    #[test]
    fn hostile_wrappers_and_substitutions() {
        let me = "f() { f \"$@\"; }\nf az ml compute create --name no-run\n";
        assert!(
            defs(me, Dialect::Bash).is_empty(),
            "`f \"$@\"` runs `f`, not its arguments"
        );
        let deep = format!(
            "X={}az ml compute create --name deep{}\n",
            "$(".repeat(10_000),
            ")".repeat(10_000)
        );
        assert!(defs(&deep, Dialect::Bash).is_empty());
        let open = format!("X={}\n", "$(".repeat(100_000));
        assert!(defs(&open, Dialect::Bash).is_empty());
        let many = format!(
            "run() {{ \"$@\"; }}\nrun {} az ml compute create --name many\n",
            "a ".repeat(100_000)
        );
        assert!(defs(&many, Dialect::Bash).is_empty());
    }

    /// PowerShell keeps (`$out = az ... | ConvertFrom-Json`) or drops (`$null = az ...`)
    /// the command's output: the command is read.
    #[test]
    fn powershell_assigning_the_output_of_az() {
        let text = "$out = az ml compute create --name p-assign --size Standard_NC6 | ConvertFrom-Json\n$null = az ml compute create --name p-null\n$x = Get-Thing az ml compute create --name p-no\n";
        let ds = defs(text, Dialect::PowerShell);
        let names: Vec<&str> = ds.iter().filter_map(|d| d.known_name()).collect();
        assert_eq!(names, ["p-assign", "p-null"]);
        assert_eq!(&text[ds[0].get("size").unwrap().span.range()], "Standard_NC6");
    }

    #[test]
    fn options_and_literals() {
        let text = "az ml compute create -n gpu --type AmlCompute --size=Standard_NC6 --min-instances 1 --max-instances \"4\" --tier low_priority --enable-node-public-ip false --set idle_time_before_scale_down=300 --no-wait -g rg\n";
        let [d] = defs(text, Dialect::Bash).try_into().unwrap();
        assert_eq!(d.known_name(), Some("gpu"));
        assert_eq!(d.ctype().as_deref(), Some("amlcompute"));
        assert_eq!(d.size(), Some("Standard_NC6"));
        let size = d.get("size").unwrap();
        assert_eq!(&text[size.span.range()], "Standard_NC6");
        assert_eq!(&text[size.key.unwrap().range()], "--size");
        assert!(size.in_place);
        assert_eq!(value(&d, "min_instances"), Some(Scalar::Int(1)));
        assert_eq!(value(&d, "max_instances"), Some(Scalar::Int(4)));
        assert_eq!(&text[d.get("max_instances").unwrap().span.range()], "4");
        assert_eq!(value(&d, "enable_node_public_ip"), Some(Scalar::Bool(false)));
        assert_eq!(value(&d, "idle_time_before_scale_down"), Some(Scalar::Int(300)));
        assert_eq!(
            &text[d.get("idle_time_before_scale_down").unwrap().span.range()],
            "300"
        );
        assert_eq!(&text[d.span.range()], text.trim_end());
    }

    #[test]
    fn set_gives_a_compute_instances_idle_shutdown() {
        let text = "az ml compute create -n a --type ComputeInstance --size Standard_DS3_v2 --set idle_time_before_shutdown_minutes=60\naz ml compute create -n b --type ComputeInstance --set idle_time_before_shutdown=PT1H --set other=1\n";
        let [a, b] = defs(text, Dialect::Bash).try_into().unwrap();
        assert_eq!(
            value(&a, "idle_time_before_shutdown_minutes"),
            Some(Scalar::Int(60))
        );
        let minutes = a.get("idle_time_before_shutdown_minutes").unwrap();
        assert_eq!(&text[minutes.span.range()], "60");
        assert_eq!(&text[minutes.key.unwrap().range()], "--set");
        let iso = b.get("idle_time_before_shutdown").unwrap();
        assert_eq!(iso.value, Some(Scalar::Str("PT1H".into())));
        assert_eq!(&text[iso.span.range()], "PT1H");
        assert!(b.get("other").is_none(), "a path no rule reads stays unread");
    }

    /// `--set` takes every word up to the next option, each a `path=value` (argparse's
    /// `nargs='+'`, as Microsoft's samples write `--set version=$v environment=...`): eval8
    /// case 03, where `--set name=c-cluster` after another pair was never read.
    #[test]
    fn set_takes_every_pair_up_to_the_next_option() {
        let text = "SIZE=Standard_NC6
az ml compute create -f c.yml --set name=b-cluster size=$SIZE --no-wait
az ml compute create -f c.yml --set size=Standard_NC6 \
  name=c-cluster max_instances=4 -g rg
az ml compute create -n d --type amlcompute --set=min_instances=1 max_instances=3
az ml compute create -n e --type amlcompute --set min_instances=1 $OTHER max_instances=3
";
        let [b, c, d, e] = defs(text, Dialect::Bash).try_into().unwrap();
        assert_eq!(b.name.value, Some(Scalar::Str("b-cluster".into())));
        assert_eq!(b.size(), Some("Standard_NC6"));
        assert_eq!(c.name.value, Some(Scalar::Str("c-cluster".into())));
        assert_eq!(c.size(), Some("Standard_NC6"));
        assert_eq!(value(&c, "max_instances"), Some(Scalar::Int(4)));
        let name = c.name.clone();
        assert_eq!(&text[name.span.range()], "c-cluster");
        assert_eq!(&text[name.key.unwrap().range()], "--set");
        // `--set=pair` is that one pair: argparse leaves the next word unrecognized.
        assert_eq!(value(&d, "min_instances"), Some(Scalar::Int(1)));
        assert_eq!(value(&d, "max_instances"), None);
        // An expansion not known may be an option: what follows it is not taken as a pair.
        assert_eq!(value(&e, "min_instances"), Some(Scalar::Int(1)));
        assert_ne!(value(&e, "max_instances"), Some(Scalar::Int(3)));
    }

    /// Options the type's schema does not have are no settings of the compute: kept, at
    /// the option, as what the CLI refuses (audit 24, case 01); a type not known, SDK v1's
    /// CLI and a value from the `--file` YAML are not judged.
    #[test]
    fn options_the_type_does_not_have_are_refused() {
        let text = "az ml compute create -n ci --type ComputeInstance --size Standard_DS3_v2 --min-instances 0 --max-instances=2 --tier low_priority --idle-time-before-shutdown-minutes 30 --set idle_time_before_scale_down=60
az ml compute create -n cc --type amlcompute --size Standard_DS3_v2 --max-instances 2 --idle-time-before-shutdown PT30M
az ml compute create -n dyn --type $T --min-instances 0
az ml computetarget create amlcompute -n v1 --vm-size Standard_DS3_v2 --max-nodes 2
az ml compute create -n open --type ComputeInstance $ARGS
";
        let [ci, cc, dynamic, v1, open] = defs(text, Dialect::Bash).try_into().unwrap();
        let refused = |d: &ComputeDef| -> Vec<(String, String)> {
            d.refused
                .iter()
                .map(|(p, s)| (p.clone(), text[s.key.unwrap().range()].to_string()))
                .collect()
        };
        let pair = |p: &str, o: &str| (p.to_string(), o.to_string());
        assert_eq!(
            refused(&ci),
            [
                pair("min_instances", "--min-instances"),
                pair("max_instances", "--max-instances"),
                pair("tier", "--tier"),
                pair("idle_time_before_scale_down", "--set"),
            ]
        );
        for path in [
            "min_instances",
            "max_instances",
            "tier",
            "idle_time_before_scale_down",
        ] {
            assert!(ci.get(path).is_none(), "{path} is no setting of the instance");
        }
        assert_eq!(
            value(&ci, "idle_time_before_shutdown_minutes"),
            Some(Scalar::Int(30))
        );
        assert_eq!(
            refused(&cc),
            [pair("idle_time_before_shutdown", "--idle-time-before-shutdown")]
        );
        assert_eq!(value(&cc, "max_instances"), Some(Scalar::Int(2)));
        assert!(dynamic.refused.is_empty() && dynamic.get("min_instances").is_some());
        assert!(v1.refused.is_empty() && v1.get("max_instances").is_some());
        // What an expansion not known may give is not written: a compute instance has no
        // such key, and nothing is reported.
        assert!(open.refused.is_empty());
        assert!(open.get("min_instances").is_none() && open.get("tier").is_none());
        assert!(
            open.get("idle_time_before_shutdown_minutes")
                .is_some_and(|s| s.value.is_none())
        );
    }

    /// Without `--size`, the CLI creates the compute with its type's default size (the
    /// schema's `default`): known, noted, at the command's words (audit 24, case 06). Not
    /// when an expansion not known or the `--file` YAML may give it, nor for SDK v1's CLI
    /// or a type not known.
    #[test]
    fn a_size_not_given_is_the_clis_default() {
        let text = "az ml compute create -n a --type amlcompute --min-instances 0
az ml compute create -n ci -t ComputeInstance
az ml compute create -n open --type amlcompute $ARGS
az ml compute create -n f --type amlcompute --file cluster.yml
az ml computetarget create amlcompute -n v1 --max-nodes 2
az ml compute create -n t --type $T
az ml compute create -n given --type amlcompute --size $SIZE
";
        let [a, ci, open, file, v1, t, given] = defs(text, Dialect::Bash).try_into().unwrap();
        for d in [&a, &ci] {
            assert_eq!(d.size(), Some("STANDARD_DS3_V2"), "{:?}", d.known_name());
            let size = d.get("size").unwrap();
            assert_eq!(&text[size.span.range()], "az ml compute create");
            assert!(size.written.is_empty() && !size.in_place && size.key.is_none());
            assert!(d.notes.iter().any(|n| n.contains("no `--size`")), "{:?}", d.notes);
        }
        assert!(
            a.notes
                .iter()
                .any(|n| n.contains("of a compute cluster, `STANDARD_DS3_V2`"))
        );
        assert!(open.get("size").is_some_and(|s| s.value.is_none()));
        for d in [&file, &v1, &t] {
            assert_eq!(d.size(), None, "{:?}", d.known_name());
        }
        assert_eq!(given.size(), None);
        assert!(given.get("size").is_some_and(|s| s.written == "$SIZE"));
    }

    #[test]
    fn an_inline_value_whose_equals_sign_is_quoted_is_passed_over() {
        // Read as `--size` then `=Standard_NC6` (the `=` in a later, quoted part of the
        // word), the value was cut at a byte past the first part: a panic.
        for text in [
            "az ml compute create -n gpu --size\"=Standard_NC6\" --tier low_priority\n",
            "az ml compute create -n gpu --si\"ze=Standard_NC6\" --tier low_priority\n",
        ] {
            let [d] = defs(text, Dialect::Bash).try_into().unwrap();
            assert_eq!(d.known_name(), Some("gpu"));
            assert_eq!(d.size(), None, "{text}");
            assert_eq!(value(&d, "tier"), Some(Scalar::Str("low_priority".into())));
        }
    }

    #[test]
    fn variables_defaults_and_dynamic_values() {
        let text = "SIZE=Standard_NC6\nexport NAME=\"cpu-${ENV:-dev}\"\nTIER=$(get tier)\nif [ -n \"$2\" ]; then NAME=\"$2\"; fi\naz ml compute create --name $NAME --size \"$SIZE\" --tier $TIER --max-instances ${MAX:-3} --min-instances $1 -t amlcompute\n";
        let [d] = defs(text, Dialect::Bash).try_into().unwrap();
        // A literal overridden under a condition only by one of the script's arguments is
        // the literal, the value of every run that does not pass it (audit 32, case 04).
        assert_eq!(d.known_name(), Some("cpu-dev"));
        // Overridden under a condition by anything else (a command's output, an argument
        // with more around it): not known, the run may take the branch.
        for other in [
            "NAME=cpu\nif [ -n \"$2\" ]; then NAME=$(get name); fi\naz ml compute create --name $NAME\n",
            "NAME=cpu\nif [ -n \"$2\" ]; then NAME=\"x-$2\"; fi\naz ml compute create --name $NAME\n",
            "NAME=cpu\ncase $1 in -n) NAME=\"$2\";; -m) NAME=$(get);; esac\naz ml compute create --name $NAME\n",
        ] {
            let [o] = defs(other, Dialect::Bash).try_into().unwrap();
            assert_eq!(o.known_name(), None, "{other}");
            assert!(
                o.name
                    .why
                    .as_deref()
                    .is_some_and(|w| w.starts_with("`NAME` is set under a condition to a value not known")),
                "{other}: {:?}",
                o.name.why
            );
        }
        // `getopts`' `$OPTARG` in an option loop, after a default.
        let getopts = "N=gpu\nwhile getopts n: o; do case $o in n) N=\"$OPTARG\";; esac; done\naz ml compute create --name $N\n";
        let [g] = defs(getopts, Dialect::Bash).try_into().unwrap();
        assert_eq!(g.known_name(), Some("gpu"));
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$SIZE");
        assert_eq!(&text[size.origin.unwrap().range()], "Standard_NC6");
        assert!(!size.in_place);
        let tier = d.get("tier").unwrap();
        assert_eq!(tier.value, None);
        assert!(
            tier.why.as_deref().unwrap().contains("output of a command"),
            "{tier:?}"
        );
        assert_eq!(value(&d, "max_instances"), Some(Scalar::Int(3)));
        assert!(
            d.get("min_instances")
                .unwrap()
                .why
                .as_deref()
                .unwrap()
                .contains("argument")
        );
    }

    #[test]
    fn branches_that_disagree_are_dynamic() {
        let text = "if [ \"$E\" = prod ]; then SIZE=Standard_NC24; else SIZE=Standard_DS3_v2; fi\naz ml compute create -n x --size $SIZE -t amlcompute\n";
        let [d] = defs(text, Dialect::Bash).try_into().unwrap();
        assert!(
            d.get("size")
                .unwrap()
                .why
                .as_deref()
                .unwrap()
                .contains("different values")
        );
        let text = "az ml compute create -n $NAME -t amlcompute\n";
        let [d] = defs(text, Dialect::Bash).try_into().unwrap();
        assert!(d.name.why.as_deref().unwrap().contains("environment"));
    }

    #[test]
    fn v1_computetarget_and_other_commands() {
        let text = "az ml computetarget create amlcompute -n cpu --vm-size STANDARD_D2_V2 --max-nodes 4 --remote-login-port-public-access Enabled\naz ml computetarget attach remote -n vm --address 1.2.3.4\naz ml job create -f job.yml\necho az ml compute create -n no\n";
        let ds = defs(text, Dialect::Bash);
        assert_eq!(ds.len(), 2);
        assert_eq!(ds[0].ctype().as_deref(), Some("amlcompute"));
        assert_eq!(ds[0].size(), Some("STANDARD_D2_V2"));
        assert_eq!(value(&ds[0], "max_instances"), Some(Scalar::Int(4)));
        assert_eq!(
            value(&ds[0], "ssh_public_access_enabled"),
            Some(Scalar::Bool(true))
        );
        assert_eq!(ds[1].ctype().as_deref(), Some("virtualmachine"));
        assert_eq!(ds[0].command, "az ml computetarget create");
        // CLI v1 spells settings its own way: its findings say so (`Idiom::CliV1`), and its
        // `--vm-priority lowpriority` is the tier Azure ML YAML writes `low_priority`.
        assert_eq!(ds[0].idiom, crate::facts::idiom::Idiom::CliV1);
        let text =
            "az ml computetarget create amlcompute -n a --vm-size Standard_NC6 --vm-priority LowPriority
az ml computetarget create amlcompute -n b --vm-priority dedicated
az ml computetarget create amlcompute -n c --vm-priority spot
az ml compute create -n d --type amlcompute --tier lowpriority
";
        let ds = defs(text, Dialect::Bash);
        let tiers: Vec<_> = ds.iter().map(|d| value(d, "tier")).collect();
        assert_eq!(
            tiers,
            [
                Some(Scalar::Str("low_priority".into())),
                Some(Scalar::Str("dedicated".into())),
                Some(Scalar::Str("spot".into())),
                // CLI v2's `--tier` is checked against the compute YAML's schema as written.
                Some(Scalar::Str("lowpriority".into())),
            ]
        );
        assert_eq!(ds[3].idiom, crate::facts::idiom::Idiom::Cli);
    }

    #[test]
    fn powershell_commands_and_expressions_are_not_values() {
        let text = "$Size = if ($env:S -eq 'x') { $env:S } else { \"Standard_DS2_v2\" }\n$Name = Get-Name\n$Max = 4\naz ml compute create --name $Name --size $Size --max-instances $Max --type amlcompute\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert!(d.get("size").unwrap().value.is_none(), "{:?}", d.get("size"));
        assert!(d.name.value.is_none());
        assert_eq!(value(&d, "max_instances"), Some(Scalar::Int(4)));
        // Conditions and branches other than "the variable if set, else a literal".
        for size in [
            "if ($env:S) { \"Standard_NC6\" } else { \"Standard_DS2_v2\" }",
            "if ($env:S) { $env:T } else { \"Standard_DS2_v2\" }",
            "if ($env:S) { $env:S } else { \"Standard_$env:T\" }",
            "if ($env:S) { $env:S } elseif ($x) { 'a' } else { 'b' }",
            "if ($env:S) { $env:S }",
            "$env:S ?? (Get-Size)",
            "$env:S ?? $env:T ?? 'Standard_DS2_v2'",
        ] {
            let text = format!("$Size = {size}\naz ml compute create --name n --size $Size\n");
            let [d] = defs(&text, Dialect::PowerShell).try_into().unwrap();
            assert!(
                d.get("size").unwrap().value.is_none(),
                "{size}: {:?}",
                d.get("size")
            );
        }
    }

    /// A call of a bash function whose body creates a compute: one definition per call,
    /// the call's words as `$1`, `$2` (values at the call), defaults for what it does not
    /// pass; what the commands keep ([`wanted`]) includes the calls.
    #[test]
    fn bash_function_calls() {
        let text = "create_cluster() {\n  local name=\"$1\"\n  local size=\"${2:-Standard_DS3_v2}\"\n  az ml compute create --name \"$name\" --type AmlCompute --size \"$size\" --max-instances 4\n}\ncreate_cluster gpu-cluster Standard_NC6\ncreate_cluster cpu-cluster\n";
        let script = parse(
            text,
            Map::Base(0),
            LexOptions {
                keep: Some(wanted),
                ..LexOptions::new(Dialect::Bash)
            },
        );
        let [f] = script.functions.as_slice() else {
            panic!("{:?}", script.functions)
        };
        assert_eq!(f.name, "create_cluster");
        assert_eq!(
            (f.at as usize, f.end as usize, f.depth),
            (text.find('{').unwrap(), text.find("}\n").unwrap() + 1, 1)
        );
        // The calls are kept (`wanted` drops other commands it does not know).
        let calls: Vec<&str> = script
            .commands
            .iter()
            .filter(|c| c.depth == 0)
            .map(|c| &text[c.span.start as usize..c.span.end as usize])
            .collect();
        assert_eq!(
            calls,
            [
                "create_cluster gpu-cluster Standard_NC6",
                "create_cluster cpu-cluster"
            ]
        );
        let [gpu, cpu] = defs(text, Dialect::Bash).try_into().unwrap();
        assert_eq!(
            (gpu.known_name(), gpu.size()),
            (Some("gpu-cluster"), Some("Standard_NC6"))
        );
        assert_eq!(
            (cpu.known_name(), cpu.size()),
            (Some("cpu-cluster"), Some("Standard_DS3_v2"))
        );
        let size = gpu.get("size").unwrap();
        assert_eq!(
            &text[size.span.start as usize..size.span.end as usize],
            "Standard_NC6"
        );
        assert!(size.in_place);
    }

    /// Issue 35: a PowerShell function creating a compute from its parameters is one
    /// definition per call, each parameter the call's word (by name, any case, `-Name:v`,
    /// a prefix, or by position), else its default, else not known with why.
    #[test]
    fn powershell_function_calls() {
        let text = "function New-AmlCluster {\n    param(\n        [Parameter(Mandatory = $true)]\n        [string]$Name,\n        [string]$Size = \"Standard_DS3_v2\",\n        [int]$MaxNodes = 4\n    )\n    az ml compute create --name $Name --type AmlCompute --size $Size --max-instances $MaxNodes\n}\nNew-AmlCluster -Name gpu-cluster -Size Standard_NC6\nnew-amlcluster -name:cpu-cluster\nNew-AmlCluster \"pos-cluster\" \"Standard_NC12\"\nNew-AmlCluster -SIZE Standard_NC24 -ma 2 -n prefix-cluster\nNew-AmlCluster -Name $env:X\nNew-AmlCluster -Size Standard_NC6\n";
        let script = parse(
            text,
            Map::Base(0),
            LexOptions {
                keep: Some(wanted),
                ..LexOptions::new(Dialect::PowerShell)
            },
        );
        let [f] = script.functions.as_slice() else {
            panic!("{:?}", script.functions)
        };
        assert_eq!(f.params.len(), 3);
        let ds = defs(text, Dialect::PowerShell);
        let shown: Vec<(Option<&str>, Option<&str>, Option<Scalar>)> = ds
            .iter()
            .map(|d| (d.known_name(), d.size(), value(d, "max_instances")))
            .collect();
        assert_eq!(
            shown,
            [
                (Some("gpu-cluster"), Some("Standard_NC6"), Some(Scalar::Int(4))),
                (Some("cpu-cluster"), Some("Standard_DS3_v2"), Some(Scalar::Int(4))),
                (Some("pos-cluster"), Some("Standard_NC12"), Some(Scalar::Int(4))),
                (
                    Some("prefix-cluster"),
                    Some("Standard_NC24"),
                    Some(Scalar::Int(2))
                ),
                (None, Some("Standard_DS3_v2"), Some(Scalar::Int(4))),
                (None, Some("Standard_NC6"), Some(Scalar::Int(4))),
            ]
        );
        let at = |s: Span| &text[s.start as usize..s.end as usize];
        // The call's word is the value's place; the default is the value's origin.
        let size = ds[0].get("size").unwrap();
        assert_eq!(size.span.start as usize, text.find("Standard_NC6\n").unwrap());
        assert!(size.in_place);
        let name = &ds[1].name;
        assert_eq!(at(name.span), "cpu-cluster");
        let default = ds[1].get("size").unwrap();
        assert_eq!(at(default.span), "$Size");
        assert_eq!(default.origin.map(at), Some("Standard_DS3_v2"));
        assert!(
            ds[1]
                .notes
                .iter()
                .any(|n| n.contains("run by the call `new-amlcluster -name:cpu-cluster` on line 11"))
        );
        let why = |d: &ComputeDef| d.name.why.clone().unwrap_or_default();
        assert!(
            why(&ds[4]).contains("`$Name` is the parameter `-Name` of the function `New-AmlCluster`, not known at its call: `X` is not set in this file"),
            "{}",
            why(&ds[4])
        );
        assert!(
            why(&ds[5]).contains("`$Name` is a mandatory parameter without a default of the function `New-AmlCluster`, which its call does not pass"),
            "{}",
            why(&ds[5])
        );
        // `$args[0]`: the words no parameter takes; at the script's level, its own.
        let text = "function Quick { az ml compute create --name $args[0] --type amlcompute --size \"$args[1]\" }\nQuick quick-a Standard_NC6\nQuick \"quick-b\"\naz ml compute create --name $args[0] --type amlcompute\n";
        let ds = defs(text, Dialect::PowerShell);
        let shown: Vec<Option<&str>> = ds.iter().map(|d| d.known_name()).collect();
        assert_eq!(shown, [Some("quick-a"), Some("quick-b"), None]);
        assert_eq!((ds[0].size(), ds[1].size()), (None, None));
        // In a string, `$args` is the array and `[1]` text.
        assert!(
            ds[0]
                .get("size")
                .unwrap()
                .why
                .as_deref()
                .unwrap()
                .contains("automatic variable")
        );
        let name = ds[0].name.span;
        assert_eq!(&text[name.start as usize..name.end as usize], "quick-a");
        assert_eq!(
            why(&ds[2]),
            "`$args[0]` is an argument of the script, given when it runs"
        );
        let text = "function Quick { az ml compute create --name $args[0] --size $ARGS[1] }\nQuick \"quick-a\" Standard_NC6\nQuick quick-b\n";
        let ds = defs(text, Dialect::PowerShell);
        assert_eq!(ds[0].size(), Some("Standard_NC6"));
        assert!(
            ds[1]
                .get("size")
                .unwrap()
                .why
                .as_deref()
                .unwrap()
                .contains("`$args[1]` is an argument of the function `Quick` that its call does not pass"),
            "{:?}",
            ds[1].get("size")
        );
        // The function's defaults are not the script's.
        let text = "function F($Size = 'Standard_NC6') { az ml compute create --name f-x --size $Size }\naz ml compute create --name top --size $Size\n";
        let ds = defs(text, Dialect::PowerShell);
        assert_eq!(ds.len(), 2);
        assert_eq!(ds[0].size(), Some("Standard_NC6"));
        assert!(
            ds[0]
                .notes
                .iter()
                .any(|n| n.contains("does not call after defining it"))
        );
        assert_eq!(ds[1].size(), None);
        // Never called: its defaults, the rest not known.
        let text = "function G {\n  param([string]$Name, [string]$Size = \"Standard_NC6\")\n  az ml compute create --name $Name --size $Size\n}\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!(d.size(), Some("Standard_NC6"));
        assert!(why(&d).contains("`$Name` is a parameter without a default of the function `G`, which this script does not call after defining it"), "{}", why(&d));
    }

    /// A script's own `param(...)` entries with attributes: their defaults are read, and
    /// one without a default is a parameter of the script.
    #[test]
    fn powershell_script_parameters_with_attributes() {
        let text = "param(\n    [Parameter(Mandatory)][string]$ComputeName = \"cpu\",\n    [Parameter(Mandatory=$true, HelpMessage=\"The size\")]\n    [ValidateSet(\"Standard_NC6\",\"b\")] [string]$Size = \"Standard_NC6\",\n    [Parameter(Mandatory)]\n    [int]$Max\n)\naz ml compute create --name $ComputeName --type AmlCompute --size $Size --max-instances $Max\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!((d.known_name(), d.size()), (Some("cpu"), Some("Standard_NC6")));
        let size = d.get("size").unwrap();
        let origin = size.origin.unwrap();
        assert_eq!(
            origin.start as usize,
            text.find("\"Standard_NC6\",\n").unwrap() + 1
        );
        let max = d.get("max_instances").unwrap();
        assert_eq!(
            max.why.as_deref(),
            Some("`$Max` is a parameter of the script without a default: it is given when the script runs")
        );
    }

    /// `$X = if ($env:Y) { $env:Y } else { "d" }` and `$X = $env:Y ?? "d"` are PowerShell's
    /// `${Y:-d}`: the default, unless the environment sets it (a setting of the variable
    /// earlier in the script wins, as in bash).
    #[test]
    fn powershell_environment_defaults() {
        let text = "$Name = if ($env:AML_NAME) { $env:AML_NAME } else { \"cpu-cluster\" }\n$Size=if($env:SIZE){[string]$env:SIZE}else{'Standard_NC6'}\n$Max = if ($Max) {\n    [int]$Max\n} Else {\n    3\n}\n$Tier = $env:TIER ?? \"low_priority\"\n$env:MIN = '1'\n$Min = $env:MIN ?? '0'\naz ml compute create --name $Name --size $Size --max-instances $Max --min-instances $Min --tier $Tier\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!(d.known_name(), Some("cpu-cluster"));
        assert_eq!(d.size(), Some("Standard_NC6"));
        assert_eq!(value(&d, "max_instances"), Some(Scalar::Int(3)));
        assert_eq!(value(&d, "min_instances"), Some(Scalar::Int(1)));
        assert_eq!(value(&d, "tier"), Some(Scalar::Str("low_priority".into())));
        // The statement after the expression is read as before.
        let text = "$S = if ($env:S) { $env:S } else { 'Standard_NC6' }; $N = 'after'\naz ml compute create --name $N --size $S\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!((d.known_name(), d.size()), (Some("after"), Some("Standard_NC6")));
    }

    /// Audit 31, defect 2: PowerShell's `if (-not $X) { $X = "d" }` (`if (!$X)`, `if
    /// ([string]::IsNullOrEmpty($X))`) after `param([string]$X)` is `${X:-d}`: the default
    /// when the script runs without it (a `param` default or an earlier value wins); with an
    /// `else`, or another condition, it is read as before.
    #[test]
    fn powershell_default_if_unset() {
        let text = "param(\n  [string]$Name,\n  [string]$Size,\n  [string]$Kind = 'amlcompute'\n)\nif (-not $Name) { $Name = \"ps-default\" }\nif (!$Size) {\n    $Size = 'Standard_NC6'\n}\nIF ([string]::IsNullOrEmpty($Tier)) { $Tier = \"low_priority\" }\nif (-not $Kind) { $Kind = 'kubernetes' }\nif (-not $Max) { $Max = 3 } else { $Max = 5 }\nif ($Min -eq 0) { $Min = 1 }\naz ml compute create --name $Name --size $Size --tier $Tier --type $Kind --max-instances $Max --min-instances $Min\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!(d.known_name(), Some("ps-default"));
        assert_eq!(d.size(), Some("Standard_NC6"));
        // Labelled at the default, the finding at the use.
        let size = d.get("size").unwrap();
        let origin = size.origin.unwrap();
        assert_eq!(&text[origin.start as usize..origin.end as usize], "Standard_NC6");
        assert_eq!(&text[size.span.start as usize..size.span.end as usize], "$Size");
        assert_eq!(value(&d, "tier"), Some(Scalar::Str("low_priority".into())));
        assert_eq!(value(&d, "type"), Some(Scalar::Str("amlcompute".into())));
        assert_eq!(value(&d, "max_instances"), None, "{d:?}");
        assert!(
            !d.notes.iter().any(|n| n.contains("under a condition")),
            "{:?}",
            d.notes
        );
        // A `param` default wins (the statement does not run); after a copy of an
        // environment variable (`$Tier = $env:TIER`), the default unless the environment
        // sets it, as `$env:TIER ?? 'dedicated'`.
        let text = "param(\n  [string]$Size = \"Standard_DS3_v2\"\n)\nif (-not $Size) { $Size = \"Standard_NC6\" }\n$Tier = $env:TIER\nif (!$Tier) { $Tier = 'dedicated' }\naz ml compute create --name c6 --size $Size --tier $Tier\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!(d.size(), Some("Standard_DS3_v2"));
        let origin = d.get("size").unwrap().origin.unwrap();
        assert_eq!(
            &text[origin.start as usize..origin.end as usize],
            "Standard_DS3_v2"
        );
        assert_eq!(value(&d, "tier"), Some(Scalar::Str("dedicated".into())), "{d:?}");
        // Bash alike; a copy of an argument or of a command's output stays unknown.
        let text = "N=$AML_NAME\nS=\"$(get_size)\"\nP=$1\naz ml compute create --name \"${N:-from-copy}\" --size \"${S:-Standard_NC6}\" --tier \"${P:-dedicated}\"\n";
        let [d] = defs(text, Dialect::Bash).try_into().unwrap();
        assert_eq!(d.known_name(), Some("from-copy"));
        assert!(why(&d, "size").contains("output"), "{d:?}");
        assert!(why(&d, "tier").contains("argument 1"), "{d:?}");
        // Unterminated or odd forms are read as before, without a panic.
        for text in [
            "if (-not $X) { $X = 'a\n",
            "if (-not $X) { $Y = 'a' }\n",
            "if (-not $X) { $X = \"$Y\" }\n",
            "if (-not $X",
            "if ([string]::IsNullOrEmpty($X) { $X = 'a' }",
            "if (!",
            "if (-not $X) { $X = 'a' } elseif ($Z) { $X = 'b' }\naz ml compute create --name $X\n",
        ] {
            let ds = defs(text, Dialect::PowerShell);
            assert!(ds.iter().all(|d| d.known_name().is_none()), "{text}: {ds:?}");
        }
    }

    #[test]
    fn powershell_and_cmd_variables() {
        let text = "param([string]$Name = 'ps-cluster',\n  [string]$Size = \"Standard_DS3_v2\")\n$Tier = \"dedicated\"\naz ml compute create --name $Name --size $Size --tier $Tier --type amlcompute\n";
        let [d] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!(d.known_name(), Some("ps-cluster"));
        assert_eq!(d.size(), Some("Standard_DS3_v2"));
        assert_eq!(value(&d, "tier"), Some(Scalar::Str("dedicated".into())));
        let text = "set NAME=cmd-cluster\r\ncall az ml compute create --name %NAME% --size Standard_NC6 --type amlcompute\r\n";
        let [d] = defs(text, Dialect::Cmd).try_into().unwrap();
        assert_eq!(d.known_name(), Some("cmd-cluster"));
    }

    /// The definitions of the bash script `text`, at `rel` in the project `root`.
    fn script_in(root: &std::path::Path, rel: &str, text: &str) -> Vec<ComputeDef> {
        let script_path = root.join(rel);
        let source = crate::source::SourceFile::new(rel, text.to_string());
        let files = Files::new(crate::fsio::Boundary::at(root), &Default::default());
        let input = Input {
            path: &script_path,
            source: &source,
            documents: &[],
            kinds: &[],
            files: &files,
        };
        let options = LexOptions {
            keep: Some(wanted),
            ..LexOptions::new(Dialect::Bash)
        };
        let script = parse(text, Map::Base(0), options);
        let vars = Vars::scan_sourcing(&script, Dialect::Bash, &input, &ScriptFile);
        let cx = Ctx {
            input: &input,
            eval: Eval {
                vars: &vars,
                outer: &ScriptFile,
            },
            note: None,
        };
        definitions(&script, &cx)
    }

    /// Audit 12, case 3: `source PATH` (and `. PATH`) makes the literal assignments of a
    /// file of the project known after it, as if written there (the value's span is the
    /// script's `$var`, with no origin: the literal is another file's); the script's own
    /// assignments after it win; a value in the sourced file refers to one before it there.
    #[test]
    fn a_sourced_files_assignments_are_known_after_the_source_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("scripts/config")).unwrap();
        std::fs::write(
            root.join("scripts/config/config.sh"),
            "#!/bin/bash\nvmsize=\"standard-nc6s-v3\"\nexport NAME=conf-$vmsize\nif [ -n \"$X\" ]; then TIER=low_priority; else TIER=dedicated; fi\n",
        )
        .unwrap();
        let text = "NAME=early\naz ml compute create -n $NAME --size $vmsize\nsource scripts/config/config.sh\naz ml compute create -n $NAME --size $vmsize --tier $TIER\nNAME=late\n. scripts/config/config.sh\naz ml compute create -n $NAME\nNAME=last\naz ml compute create -n $NAME\n";
        let [before, after, again, last] = script_in(root, "scripts/run.sh", text).try_into().unwrap();
        assert_eq!(before.known_name(), Some("early"));
        let why = before.get("size").unwrap().why.clone().unwrap();
        assert_eq!(
            why,
            "`vmsize` is not set in this file (it comes from the environment)"
        );
        assert_eq!(after.known_name(), Some("conf-standard-nc6s-v3"));
        let size = after.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("standard-nc6s-v3".into())));
        assert_eq!(&text[size.span.range()], "$vmsize");
        assert_eq!((size.origin, size.in_place), (None, false));
        assert_eq!(after.name.origin, None);
        let tier = after.get("tier").unwrap();
        let why = tier.why.as_deref();
        assert_eq!(
            why,
            Some("`TIER` is set to different values under different conditions")
        );
        assert_eq!(again.known_name(), Some("conf-standard-nc6s-v3"), "sourced again");
        assert_eq!(last.known_name(), Some("last"));
    }

    /// A sourced file that is not read leaves its variables unknown, and the note says
    /// which `source` and why (not "the environment"); a sourced file's own `source`s are
    /// not followed (a loop is read once); a path outside the project, a link out of it,
    /// a FIFO are not read.
    #[test]
    fn a_sourced_file_not_read_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(dir.path().join("outside.sh"), "NAME=leaked\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.sh"), root.join("link.sh")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("passwd.sh")).unwrap();
        let fifo = std::ffi::CString::new(root.join("fifo.sh").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        std::fs::write(root.join("b.sh"), "source a.sh\nFROM_B=b-cluster\n").unwrap();
        let name_why = |text: &str| -> Vec<Result<String, String>> {
            script_in(&root, "a.sh", text)
                .iter()
                .map(|d| match d.known_name() {
                    Some(n) => Ok(n.to_string()),
                    None => Err(d.name.why.clone().unwrap()),
                })
                .collect()
        };
        assert_eq!(
            name_why("#!/bin/bash\n\nsource config/none.sh\naz ml compute create -n $NAME\n"),
            [Err("`NAME` is not set in this file; `source config/none.sh` on line 3 names a file not found in the project".to_string())]
        );
        // a.sh sources b.sh, which sources a.sh: b.sh is read, its `source` not followed
        // (else `LATE`, set after the command in a.sh, would be known).
        assert_eq!(
            name_why(
                "source b.sh\naz ml compute create -n $FROM_B\naz ml compute create -n $LATE\nLATE=late\n"
            ),
            [
                Ok("b-cluster".to_string()),
                Err(format!(
                    "`LATE` is not set in this file nor in `{}` it sources (it comes from the environment)",
                    root.join("b.sh").display()
                ))
            ]
        );
        let (outside, link) = (
            "which is not read: it is outside the project",
            "which is not read: it is a link out of the project",
        );
        for (path, why) in [
            ("../outside.sh", outside),
            ("../../../../../../../../etc/x", outside),
            ("link.sh", link),
            ("passwd.sh", link),
            ("fifo.sh", "which is not read: it is not a regular text file"),
            ("a.sh", "names this script itself"),
        ] {
            let text = format!("source {path}\naz ml compute create -n $NAME\n");
            let [Err(note)]: [Result<String, String>; 1] = name_why(&text).try_into().unwrap() else {
                panic!("{path} was read")
            };
            let head = format!("`NAME` is not set in this file; `source {path}` on line 1 ");
            assert!(note.starts_with(&head) && note.contains(why), "{path}: {note}");
        }
    }

    #[test]
    fn a_compute_yaml_named_by_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("spec.yml"),
            "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: gpu\ntype: amlcompute\nsize: Standard_NC6\nmax_instances: 2\n",
        )
        .unwrap();
        let text = "az ml compute create -f spec.yml --set max_instances=4\n";
        let [d] = script_in(dir.path(), "src/create.sh", text).try_into().unwrap();
        assert_eq!(d.known_name(), Some("gpu"));
        assert!(d.name.inherited);
        assert_eq!(d.size(), Some("Standard_NC6"));
        assert_eq!(&text[d.get("size").unwrap().span.range()], "spec.yml");
        assert!(d.get("size").unwrap().inherited);
        let max = d.get("max_instances").unwrap();
        assert_eq!((max.value.clone(), max.inherited), (Some(Scalar::Int(4)), false));
        assert!(d.from_file.as_deref().unwrap().ends_with("spec.yml"));
        let doc = d.document().unwrap();
        assert_eq!(doc.overrides.as_deref(), Some(&[max.span][..]));
    }

    /// Audit 11, defect 6: a compute YAML without `name:` gives its settings to a command
    /// that names the compute (`--name`), as the CLI merges them; without `--name`, the
    /// name is not known and says why.
    #[test]
    fn a_compute_yaml_without_a_name_named_by_the_command() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("spec.yml"),
            "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\ntype: amlcompute\nsize: Standard_NC6\nmin_instances: 1\n",
        )
        .unwrap();
        let text =
            "az ml compute create --file spec.yml --name custom-cluster\naz ml compute create -f spec.yml\n";
        let [named, unnamed] = script_in(dir.path(), "create.sh", text).try_into().unwrap();
        assert_eq!(named.known_name(), Some("custom-cluster"));
        assert!(!named.name.inherited);
        assert_eq!(named.size(), Some("Standard_NC6"));
        assert_eq!(
            named.get("type").unwrap().value,
            Some(Scalar::Str("amlcompute".into()))
        );
        let min = named.get("min_instances").unwrap();
        assert_eq!((min.value.clone(), min.inherited), (Some(Scalar::Int(1)), true));
        assert_eq!(&text[min.span.range()], "spec.yml");
        assert_eq!(unnamed.known_name(), None);
        let why = unnamed.name.why.as_deref().unwrap();
        assert!(why.contains("no `name:`") && why.contains("no `--name`"), "{why}");
        assert_eq!(unnamed.size(), Some("Standard_NC6"));
    }

    /// Audit 24, case 11: an unquoted expansion of a known value is split on blanks into
    /// arguments, each placed at the expansion; a quoted one stays one word.
    #[test]
    fn an_unquoted_expansion_is_split_into_arguments() {
        let text = "CLUSTER_ARGS=\"--size Standard_NC6 --min-instances 1\n --max-instances 4\"\naz ml compute create -n split --type amlcompute $CLUSTER_ARGS\naz ml compute create -n quoted --type amlcompute \"$CLUSTER_ARGS\"\nNET=\"--enable-node-public-ip false --subnet training\"\naz ml compute create -n net --type amlcompute ${NET}\n";
        let [split, quoted, net] = defs(text, Dialect::Bash).try_into().unwrap();
        assert_eq!(value(&split, "size"), Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(value(&split, "min_instances"), Some(Scalar::Int(1)));
        assert_eq!(value(&split, "max_instances"), Some(Scalar::Int(4)));
        let size = split.get("size").unwrap();
        assert_eq!(&text[size.span.range()], "$CLUSTER_ARGS");
        assert_eq!(&text[size.key.unwrap().range()], "$CLUSTER_ARGS");
        assert!(split.notes.is_empty(), "{:?}", split.notes);
        let size = quoted.get("size").unwrap();
        assert_eq!(
            (size.written.as_str(), size.key),
            ("", None),
            "one word, not an option: the size is the CLI's default"
        );
        assert_eq!(quoted.get("enable_node_public_ip"), None);
        assert_eq!(value(&net, "enable_node_public_ip"), Some(Scalar::Bool(false)));
        assert_eq!(
            value(&net, "network_settings.subnet"),
            Some(Scalar::Str("training".into()))
        );
    }

    /// A bash array's elements and a PowerShell splat's (or array variable's) are
    /// arguments; an array that cannot be read, or is appended to, is not known.
    #[test]
    fn arrays_and_splats_give_their_elements() {
        let text = "args=(--enable-node-public-ip false # private\n  --subnet \"$SUBNET\" --size Standard_NC6)\nSUBNET=training\naz ml compute create -n arr --type amlcompute \"${args[@]}\"\nargs+=(--min-instances 2)\naz ml compute create -n appended --type amlcompute \"${args[@]}\"\n";
        let [arr, appended] = defs(text, Dialect::Bash).try_into().unwrap();
        assert_eq!(value(&arr, "enable_node_public_ip"), Some(Scalar::Bool(false)));
        assert_eq!(
            value(&arr, "network_settings.subnet"),
            Some(Scalar::Str("training".into()))
        );
        let size = arr.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "\"${args[@]}\"");
        let public = appended.get("enable_node_public_ip").unwrap();
        assert_eq!(public.value, None);
        assert!(public.why.as_deref().unwrap().contains("appended"), "{public:?}");
        // An element set after the literal (audit 25, D9): not the literal's value.
        let set = "a=(--enable-node-public-ip true)\na[1]=false\naz ml compute create -n el --type amlcompute \"${a[@]}\"\n";
        let [el] = defs(set, Dialect::Bash).try_into().unwrap();
        let public = el.get("enable_node_public_ip").unwrap();
        assert_eq!(public.value, None, "{public:?}");
        assert!(
            public.why.as_deref().unwrap().contains("`a[1]` is set"),
            "{public:?}"
        );

        let ps = "$netArgs = @(\"--enable-node-public-ip\", \"false\",\n  '--subnet','training')\naz ml compute create -n ps --type amlcompute --size Standard_DS3_v2 @netArgs\naz ml compute create -n ps-var --type amlcompute $netArgs\naz ml compute create -n ps-unknown --type amlcompute @other\n";
        let [splat, var, unknown] = defs(ps, Dialect::PowerShell).try_into().unwrap();
        for d in [&splat, &var] {
            assert_eq!(
                value(d, "enable_node_public_ip"),
                Some(Scalar::Bool(false)),
                "{d:?}"
            );
            assert_eq!(
                value(d, "network_settings.subnet"),
                Some(Scalar::Str("training".into()))
            );
        }
        assert_eq!(
            &ps[splat.get("network_settings.subnet").unwrap().span.range()],
            "@netArgs"
        );
        assert_eq!(unknown.get("enable_node_public_ip").unwrap().value, None);
    }

    /// An expansion not known where an option may be (`$EXTRA_ARGS`, `"$@"`, `$(...)`, an
    /// unknown array) may give any option: every setting the command does not give is not
    /// known, with a note; what it gives explicitly stays.
    #[test]
    fn an_unknown_expansion_may_give_any_option() {
        let text = "az ml compute create -n extra --type amlcompute --size Standard_DS3_v2 $EXTRA_ARGS\nf() { az ml compute create -n args --type amlcompute \"$@\"; }\naz ml compute create -n sub --type amlcompute $(cat args.txt)\naz ml compute create -n arr --type amlcompute \"${nope[@]}\"\naz ml compute create --type amlcompute $EXTRA_ARGS\naz ml compute create -n value --name $NAME --type amlcompute\n";
        let [extra, args, sub, arr, unnamed, value_only] = defs(text, Dialect::Bash).try_into().unwrap();
        let public = extra.get("enable_node_public_ip").unwrap();
        assert_eq!(public.value, None);
        assert_eq!(
            public.why.as_deref(),
            Some(
                "`$EXTRA_ARGS` may add options: its value is not known; `EXTRA_ARGS` is not set in this file (it comes from the environment)"
            )
        );
        assert_eq!(&text[public.span.range()], "$EXTRA_ARGS");
        assert!(extra.get("network_settings.subnet").unwrap().why.is_some());
        // A compute instance's idle shutdown: no key of a cluster, which no option gives.
        assert!(extra.get("idle_time_before_shutdown").is_none());
        assert_eq!(value(&extra, "size"), Some(Scalar::Str("Standard_DS3_v2".into())));
        assert_eq!(value(&extra, "type"), Some(Scalar::Str("amlcompute".into())));
        assert!(
            extra
                .notes
                .iter()
                .any(|n| n.contains("`$EXTRA_ARGS` may add options")),
            "{:?}",
            extra.notes
        );
        for d in [&args, &sub, &arr] {
            let s = d.get("network_settings.subnet").unwrap();
            assert!(
                s.value.is_none() && s.why.as_deref().unwrap().contains("may add options"),
                "{s:?}"
            );
        }
        assert!(unnamed.name.why.as_deref().unwrap().contains("may add options"));
        // A value, not an option's place: only the option's value is not known.
        assert_eq!(value_only.get("enable_node_public_ip"), None);
        assert!(
            value_only.notes.iter().all(|n| n.starts_with("no `--size`")),
            "{:?}",
            value_only.notes
        );
    }

    /// Splitting is bounded: a value splits into at most `MAX_SPLIT` words, an array's text
    /// is read to `MAX_ARRAY_TEXT` bytes; beyond, what it gives is not known.
    #[test]
    fn splitting_is_bounded() {
        let many = "-x ".repeat(MAX_SPLIT + 1);
        let text = format!(
            "A=\"{}\"\naz ml compute create -n a --type amlcompute $A\n",
            &many[..many.len().min(MAX_VALUE)]
        );
        let [d] = defs(&text, Dialect::Bash).try_into().unwrap();
        assert!(why(&d, "size").contains("more than"), "{d:?}");
        let text = format!(
            "B=({})\naz ml compute create -n b --type amlcompute \"${{B[@]}}\"\n",
            "--x ".repeat(MAX_ARRAY_TEXT)
        );
        let [d] = defs(&text, Dialect::Bash).try_into().unwrap();
        assert!(why(&d, "size").contains("not read"), "{d:?}");
        // An array read once however often it is expanded; a script's expansions give at
        // most `MAX_EXPANDED` words, the later ones are not known.
        let mut text = format!("C=({} --size Standard_NC6)\n", "-x 1 ".repeat(120));
        let uses = MAX_EXPANDED / 242 / 4 + 2;
        for _ in 0..uses {
            text.push_str("az ml compute create -n c \"${C[@]}\" \"${C[@]}\" \"${C[@]}\" \"${C[@]}\"\n");
        }
        let ds = defs(&text, Dialect::Bash);
        assert_eq!(ds.len(), uses);
        assert_eq!(value(&ds[0], "size"), Some(Scalar::Str("Standard_NC6".into())));
        let last = ds[uses - 1].get("size").unwrap();
        assert!(
            last.why.as_deref().unwrap().contains("more words than are read"),
            "{last:?}"
        );
        // An element chosen counts every element read.
        let mut text = format!("D=(--size Standard_NC6 {})\n", "-x ".repeat(240));
        let uses = MAX_EXPANDED / 242 + 2;
        for _ in 0..uses {
            text.push_str("az ml compute create -n d \"${D[0]}\" \"${D[1]}\"\n");
        }
        let ds = defs(&text, Dialect::Bash);
        assert_eq!(value(&ds[0], "size"), Some(Scalar::Str("Standard_NC6".into())));
        assert!(why(&ds[uses - 1], "size").contains("more words than are read"));
    }

    /// Audit 25, D3: `"${NAME[i]}"` and `"${NAME[@]:from:count}"` of a literal array give
    /// the elements chosen (unquoted, split); one beyond the array gives nothing; an option
    /// with its value in one element (`--opt=value`) is read.
    #[test]
    fn elements_and_slices_of_a_literal_array_are_read() {
        let text = "net=(--enable-node-public-ip false --subnet /s/sub)\n\
            az ml compute create -n idx --type amlcompute \"${net[0]}\" \"${net[1]}\" \"${net[2]}\" \"${net[3]}\"\n\
            az ml compute create -n slice --type amlcompute \"${net[@]:0:4}\"\n\
            az ml compute create -n tail --type amlcompute ${net[*]:2}\n\
            az ml compute create -n beyond --type amlcompute \"${net[9]}\" --size Standard_NC6\n\
            one=(\"--enable-node-public-ip=false --subnet x\" --size=Standard_NC6)\n\
            az ml compute create -n quoted --type amlcompute \"${one[0]}\" \"${one[@]:1}\"\n\
            az ml compute create -n split --type amlcompute ${one[0]}\n";
        let [idx, slice, tail, beyond, quoted, split] = defs(text, Dialect::Bash).try_into().unwrap();
        for d in [&idx, &slice] {
            assert_eq!(
                value(d, "enable_node_public_ip"),
                Some(Scalar::Bool(false)),
                "{d:?}"
            );
            assert_eq!(
                value(d, "network_settings.subnet"),
                Some(Scalar::Str("/s/sub".into()))
            );
            assert!(only_the_default_size(d), "{:?}", d.notes);
        }
        let subnet = slice.get("network_settings.subnet").unwrap();
        assert_eq!(&text[subnet.span.range()], "\"${net[@]:0:4}\"");
        assert_eq!(
            value(&tail, "network_settings.subnet"),
            Some(Scalar::Str("/s/sub".into()))
        );
        assert_eq!(tail.get("enable_node_public_ip"), None, "not given: absent");
        assert_eq!(value(&beyond, "size"), Some(Scalar::Str("Standard_NC6".into())));
        assert!(beyond.notes.is_empty(), "{:?}", beyond.notes);
        // One argument, `--enable-node-public-ip` given `false --subnet x`.
        assert_eq!(
            value(&quoted, "enable_node_public_ip"),
            Some(Scalar::Str("false --subnet x".into()))
        );
        assert_eq!(quoted.get("network_settings.subnet"), None);
        assert_eq!(value(&quoted, "size"), Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(value(&split, "enable_node_public_ip"), Some(Scalar::Bool(false)));
        assert_eq!(
            value(&split, "network_settings.subnet"),
            Some(Scalar::Str("x".into()))
        );
    }

    /// An array whose elements are not known by index — set at an index, an element set,
    /// unset or read after the literal, declared associative, an index that is an
    /// expression — gives settings not known, never the literal's.
    #[test]
    fn elements_not_known_by_index_are_not_known() {
        let text = "a=(--enable-node-public-ip true)\n\
            a[1]=false\n\
            az ml compute create -n set --type amlcompute \"${a[0]}\" \"${a[1]}\"\n\
            b=(--enable-node-public-ip true)\n\
            unset 'b[1]'\n\
            az ml compute create -n unset --type amlcompute \"${b[@]:0:2}\"\n\
            declare -A c=([0]=--enable-node-public-ip [1]=true)\n\
            az ml compute create -n keyed --type amlcompute \"${c[0]}\" \"${c[1]}\"\n\
            d=(--enable-node-public-ip true)\n\
            mapfile -t d < opts.txt\n\
            az ml compute create -n read --type amlcompute \"${d[0]}\" \"${d[1]}\"\n\
            e=([1]=--enable-node-public-ip [0]=true)\n\
            az ml compute create -n indexed --type amlcompute \"${e[@]}\"\n\
            f=(--enable-node-public-ip true)\n\
            az ml compute create -n expr --type amlcompute \"${f[i]}\" \"${f[@]: -1}\"\n\
            g=($EXTRA --enable-node-public-ip true)\n\
            az ml compute create -n shifted --type amlcompute \"${g[1]}\" \"${g[2]}\"\n";
        let ds = defs(text, Dialect::Bash);
        assert_eq!(ds.len(), 7);
        for d in &ds {
            let public = d.get("enable_node_public_ip").unwrap();
            assert_eq!(public.value, None, "{d:?}");
            assert!(
                why(d, "network_settings.subnet").contains("may add options"),
                "{d:?}"
            );
        }
        assert!(why(&ds[0], "size").contains("`a[1]` is set"), "{:?}", ds[0]);
        assert!(why(&ds[1], "size").contains("`b[1]` is unset"), "{:?}", ds[1]);
        assert!(why(&ds[2], "size").contains("associative"), "{:?}", ds[2]);
        assert!(why(&ds[3], "size").contains("read from the input"), "{:?}", ds[3]);
        assert!(why(&ds[4], "size").contains("indexes"), "{:?}", ds[4]);
        assert!(why(&ds[6], "size").contains("EXTRA"), "{:?}", ds[6]);
    }

    /// Audit 25, D3: an expansion not known where an option may be gives settings not
    /// known, quoted or not (one word may be `--enable-node-public-ip=false`): `"$X"`,
    /// `${!X}`, `${X^^}`, `"$(cmd)"`; a number (`$#`, `$((...))`) or a word starting with
    /// a literal does not. A known value that is an option, quoted or not, is read; an
    /// option whose value is an expansion (`--size=$SIZE`) too.
    #[test]
    fn a_quoted_or_substituted_expansion_not_known_may_give_any_option() {
        let text = "NET=\"--enable-node-public-ip false\"\n\
            az ml compute create -n bang --type amlcompute --size Standard_DS3_v2 ${!NETVAR}\n\
            az ml compute create -n upper --type amlcompute --size Standard_DS3_v2 ${NET^^}\n\
            az ml compute create -n quoted --type amlcompute --size Standard_DS3_v2 \"$EXTRA\"\n\
            az ml compute create -n sub --type amlcompute --size Standard_DS3_v2 \"$(cat opts)\"\n\
            az ml compute create -n number --type amlcompute --size Standard_DS3_v2 \"$#\" $((1 + 2)) x$EXTRA\n\
            OPT=--enable-node-public-ip=false\n\
            SIZE=Standard_NC6\n\
            az ml compute create -n inline --type amlcompute --size=$SIZE \"$OPT\"\n\
            az ml compute create -n unquoted --type amlcompute $OPT \"--subnet=$SUBNET\"\n\
            az ml compute create -n known --type amlcompute \"$NET\" --size Standard_NC6\n";
        let [bang, upper, quoted, sub, number, inline, unquoted, known] =
            defs(text, Dialect::Bash).try_into().unwrap();
        for (d, at) in [
            (&bang, "${!NETVAR}"),
            (&upper, "${NET^^}"),
            (&quoted, "\"$EXTRA\""),
            (&sub, "\"$(cat opts)\""),
        ] {
            let public = d.get("enable_node_public_ip").unwrap();
            assert_eq!(public.value, None, "{d:?}");
            assert_eq!(&text[public.span.range()], at);
            assert!(
                public.why.as_deref().unwrap().contains("may add options"),
                "{public:?}"
            );
            assert_eq!(value(d, "size"), Some(Scalar::Str("Standard_DS3_v2".into())));
            assert!(!d.notes.is_empty());
        }
        assert_eq!(number.get("enable_node_public_ip"), None);
        assert!(number.notes.is_empty(), "{:?}", number.notes);
        assert_eq!(value(&inline, "size"), Some(Scalar::Str("Standard_NC6".into())));
        let size = inline.get("size").unwrap();
        assert_eq!(&text[size.span.range()], "$SIZE");
        assert_eq!(value(&inline, "enable_node_public_ip"), Some(Scalar::Bool(false)));
        assert_eq!(
            value(&unquoted, "enable_node_public_ip"),
            Some(Scalar::Bool(false))
        );
        let subnet = unquoted.get("network_settings.subnet").unwrap();
        assert_eq!(subnet.value, None);
        assert!(subnet.why.as_deref().unwrap().contains("SUBNET"), "{subnet:?}");
        assert!(only_the_default_size(&unquoted), "{:?}", unquoted.notes);
        // One word with a blank before any `=`: no option.
        assert_eq!(known.get("enable_node_public_ip"), None);
        assert_eq!(value(&known, "size"), Some(Scalar::Str("Standard_NC6".into())));
        assert!(known.notes.is_empty(), "{:?}", known.notes);
    }

    /// A `param(...)` list on one line: each typed declaration's default is its value
    /// (audit 31, left by defect 2); a typed list assignment is not a parameter list.
    #[test]
    fn powershell_param_list_on_one_line() {
        let text = "param([string]$Name = \"c5\", [int]$Max = 3, [string]$Size = 'Standard_NC6', [string]$Tier)\naz ml compute create --name $Name --type amlcompute --size $Size --max-instances $Max\n[string[]]$Both = \"a\", \"b\"\naz ml compute create --name $Both --type amlcompute\n";
        let [d, list] = defs(text, Dialect::PowerShell).try_into().unwrap();
        assert_eq!(d.known_name(), Some("c5"));
        let size = &d.fields.iter().find(|(k, _)| k == "size").unwrap().1;
        assert_eq!(size.text().as_deref(), Some("Standard_NC6"));
        // Used at `$Size`, labelled at the literal in the `param` list.
        assert_eq!(&text[size.span.range()], "$Size");
        assert_eq!(size.origin.map(|o| &text[o.range()]), Some("Standard_NC6"));
        let max = &d.fields.iter().find(|(k, _)| k == "max_instances").unwrap().1;
        assert_eq!(max.text().as_deref(), Some("3"));
        // A typed list is still a list: its values are the command's words (`--name a b`).
        assert_eq!(list.known_name(), Some("a"));
    }

    /// Audit 25, D4: a PowerShell variable assigned a list (`'a', 'b'`) gives each value as
    /// an argument, as `@(...)` does; a comma in a string is one value; a list in an
    /// expression, or any variable not known, may give any option.
    #[test]
    fn a_powershell_list_gives_its_values() {
        let text = "$b = '--enable-node-public-ip', \"false\"\n\
            az ml compute create -n var --type amlcompute $b\n\
            az ml compute create -n splat --type amlcompute @b\n\
            $c = '--enable-node-public-ip','false' , '--subnet',$sub\n\
            $sub = 'training'\n\
            az ml compute create -n tight --type amlcompute $c\n\
            $s = '--enable-node-public-ip,false'\n\
            az ml compute create -n string --type amlcompute --size Standard_NC6 $s\n\
            $e = 'a' + 'b', 'c'\n\
            az ml compute create -n expr --type amlcompute $e\n\
            az ml compute create -n env --type amlcompute $env:EXTRA\n\
            $o = '--enable-node-public-ip=false'\n\
            az ml compute create -n one --type amlcompute $o\n";
        let [var, splat, tight, string, expr, env, one] = defs(text, Dialect::PowerShell).try_into().unwrap();
        for d in [&var, &splat, &tight, &one] {
            assert_eq!(
                value(d, "enable_node_public_ip"),
                Some(Scalar::Bool(false)),
                "{d:?}"
            );
            assert!(only_the_default_size(d), "{:?}", d.notes);
        }
        assert_eq!(
            &text[var.get("enable_node_public_ip").unwrap().span.range()],
            "$b"
        );
        assert_eq!(
            value(&tight, "network_settings.subnet"),
            Some(Scalar::Str("training".into()))
        );
        assert_eq!(string.get("enable_node_public_ip"), None);
        assert_eq!(value(&string, "size"), Some(Scalar::Str("Standard_NC6".into())));
        assert!(string.notes.is_empty(), "{:?}", string.notes);
        for d in [&expr, &env] {
            let public = d.get("enable_node_public_ip").unwrap();
            assert_eq!(public.value, None, "{d:?}");
            assert!(
                public.why.as_deref().unwrap().contains("may add options"),
                "{public:?}"
            );
        }
    }

    /// Audit 25, D8: cmd's `set NAME=a b` sets the rest of the command (`%NAME%` is then
    /// split, as `set "NAME=a b"`'s); quotes in it (which cmd keeps) make it not known.
    #[test]
    fn cmd_set_gives_the_rest_of_the_command() {
        let text = "set NET=--enable-node-public-ip false\r\n\
            az ml compute create --name cm --type amlcompute --size Standard_DS3_v2 %NET%\r\n\
            set \"NET2=--enable-node-public-ip false\"\r\n\
            az ml compute create --name cm2 --type amlcompute --size Standard_DS3_v2 %NET2%\r\n\
            set SZ=--size   Standard_NC6\r\n\
            az ml compute create --name g1 --type amlcompute %SZ%\r\n\
            set Q=--size \"Standard NC6\"\r\n\
            az ml compute create --name q --type amlcompute %Q%\r\n\
            set N=my cluster\r\n\
            az ml compute create --name \"%N%\" --type amlcompute --size Standard_NC6\r\n";
        let [cm, cm2, g1, q, n] = defs(text, Dialect::Cmd).try_into().unwrap();
        for d in [&cm, &cm2] {
            assert_eq!(
                value(d, "enable_node_public_ip"),
                Some(Scalar::Bool(false)),
                "{d:?}"
            );
        }
        assert_eq!(value(&g1, "size"), Some(Scalar::Str("Standard_NC6".into())));
        let size = q.get("size").unwrap();
        assert_eq!(size.value, None);
        assert!(size.why.as_deref().unwrap().contains("quotes"), "{size:?}");
        assert_eq!(n.known_name(), Some("my cluster"));
    }
}
