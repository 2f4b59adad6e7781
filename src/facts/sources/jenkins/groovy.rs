//! What a Jenkins pipeline's Groovy says about the values its steps see: its strings
//! (decoded as Groovy decodes them), and a model of its variables built from the tokens
//! of the file in one pass — Groovy variables, `environment { }` blocks, `withEnv([...])`
//! lists, `env.X = …` and `parameters` defaults — each looked up at one place of the file
//! (a step's script, an assignment) by [`GroovyVars::expr`] and [`GroovyVars::env_var`].
//!
//! Which assignments reach a place (the decision, conservative): the assignments of a
//! name are weighed by where they are in the file's blocks (`{ }`). A `def`/typed
//! declaration is visible in its own block after it, closures included, not in a method
//! nested in that block; a method's or closure's parameters are declarations without a
//! value. An assignment reaches a place when it is (a) the last one before it that
//! certainly ran — in a block enclosing the place, or in a block reached from there
//! only through blocks that run once, in order (`pipeline`, `stages`, `stage` without
//! `when`, `steps`, `script`, `node`, `dir`, `withEnv`, `timeout`...), not in `parallel`
//! branches; (b) any assignment after that one and before the place (an `if` branch, a
//! `try`, a one-line `if (c) X = …`); (c) any assignment in a loop or in a closure or
//! method whose call is not known (it may run at any time: before or after the place);
//! (d) any later assignment when the place is inside a loop or an unknown closure that
//! holds both. The value is known only when every assignment that reaches gives the same
//! text; otherwise (or when a reaching assignment is not a literal) it is unknown, with
//! why. An assignment after the place outside a loop never applies to it.
//!
//! What is an assignment (a write this does not understand must make the name unknown,
//! never leave the value before it): `X = …`, `env.X = …`, `env['X'] = …` (a literal is
//! its value), `def (a, b) = [...]`/`(a, b) = …` (the list literal's elements, else
//! unknown); unknown from there: `X += …`, `X++`, `--X`, an `=` inside parentheses,
//! `env.setProperty('X', …)`, `env[key] = …` and `env.putAll(…)` (any name), writes to
//! the script's binding (`binding.setVariable`, `binding.X =`, `setProperty`, `this.X =`:
//! they may be what a use refers to unless a `def` local is, and never hide an earlier
//! assignment), `load`/`evaluate` (any binding or environment variable). A
//! `withCredentials` variable is a secret in its block, like `credentials('…')` in
//! `environment`, for the shell and for Groovy.
//!
//! Bounds: tokens are read once, blocks and brackets on explicit stacks; values are
//! computed once each in file order, each reading only values before it (no recursion);
//! at most [`MAX_RECS`] assignments of one name are weighed and [`MAX_WALK`] blocks walked
//! up for one question (beyond: unknown); a value longer than `MAX_VALUE` is unknown.
//! Whether a statement starts with words is kept as it is read (not walked again at
//! each `=` or `(`); looking back or ahead from a token is bounded (`MAX_PARAM_TOKENS`,
//! `MAX_CRED_TOKENS`). Tests count the steps ([`Work`]) to check they grow linearly.

use std::collections::HashMap;

use super::super::az_cli::{MAX_VALUE, ScriptVal, is_ident};
use super::super::ipynb::Code;
use crate::source::Span;

/// What stands for a Groovy interpolation in a decoded string: characters no shell treats
/// specially, replaced by the interpolation's value when it is known.
pub const INTERP_OPEN: char = '\u{e000}';
pub const INTERP_CLOSE: char = '\u{e001}';

/// At most this many assignments (or environment entries) of one name are weighed.
pub const MAX_RECS: usize = 64;
/// At most this many blocks are walked up to relate two places.
const MAX_WALK: usize = 64;
/// A parameter's arguments are read over at most this many tokens.
const MAX_PARAM_TOKENS: usize = 96;
/// A `withCredentials` list is read over at most this many tokens (beyond: every
/// variable in its block is unknown).
const MAX_CRED_TOKENS: usize = 1024;

/// `withCredentials` bindings that set only the variables they name, with the names they
/// set when given none.
const CRED_BINDINGS: &[(&str, &[&str])] = &[
    ("string", &[]),
    ("usernamePassword", &[]),
    ("usernameColonPassword", &[]),
    ("file", &[]),
    ("sshUserPrivateKey", &[]),
    ("certificate", &[]),
    ("dockerCert", &[]),
    ("zip", &[]),
    ("gitUsernamePassword", &["GIT_USERNAME", "GIT_PASSWORD"]),
    (
        "azureServicePrincipal",
        &[
            "AZURE_SUBSCRIPTION_ID",
            "AZURE_CLIENT_ID",
            "AZURE_CLIENT_SECRET",
            "AZURE_TENANT_ID",
            "AZURE_CLIENT_CERTIFICATE_PATH",
            "AZURE_CLIENT_CERTIFICATE_PASSWORD",
        ],
    ),
];

/// A Groovy string literal of the file.
pub struct GroovyString {
    /// Where its opening quote is.
    pub open: usize,
    /// Its content (without the quotes).
    pub start: usize,
    pub end: usize,
    /// `"…"` and `"""…"""`: `$` interpolates.
    pub interpolates: bool,
}

/// A build parameter's default (and its literal's span), or why it is not known.
type ParamDefault = Result<(String, Option<Span>), String>;

/// The entries of a `withEnv` or `withCredentials` list whose `)` is at a token: (name,
/// where it is written, its value), and whether the list is all such entries.
type WithEnvList = (u32, Vec<(String, u32, Rhs)>, bool);

/// The name a write whose name is not known statically is recorded under: any binding
/// variable, any environment variable.
const ANY_VAR: &str = "*";
const ANY_ENV: &str = "env.*";

/// A token of the file (comments are not tokens).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tok {
    Newline,
    /// An identifier or keyword: its bytes.
    Word(u32, u32),
    /// A number: its bytes.
    Num(u32, u32),
    /// The string of this index.
    Str(u32),
    /// Any other byte.
    Punct(u32),
}

/// A Groovy string's content as Groovy makes it, mapped back to the file, and the spans of
/// its interpolations (each written `INTERP_OPEN INTERP_CLOSE` in the code).
pub fn decode(text: &str, s: &GroovyString) -> (Code, Vec<Span>) {
    let b = text.as_bytes();
    let mut code = Code::empty();
    let mut interps = Vec::new();
    let mut run = s.start;
    let mut i = s.start;
    let end = s.end.min(b.len());
    while i < end {
        match b[i] {
            b'\\' if i + 1 < end => {
                code.push_exact(run, &text[run..i]);
                let (decoded, raw) = groovy_escape(&text[i..end]);
                if raw == 0 {
                    // Not an escape Groovy knows: kept as written.
                    i += 1;
                    continue;
                }
                if !decoded.is_empty() {
                    code.push_escape(i, raw, &decoded);
                }
                i += raw;
                run = i;
            }
            b'$' if s.interpolates => {
                let Some(close) = interp_end(b, i, end) else {
                    i += 1;
                    continue;
                };
                code.push_exact(run, &text[run..i]);
                code.push_escape(i, 1, &INTERP_OPEN.to_string());
                code.push_escape(close - 1, 1, &INTERP_CLOSE.to_string());
                interps.push(Span::new(i as u32, close as u32));
                i = close;
                run = i;
            }
            _ => i += 1,
        }
    }
    code.push_exact(run, &text[run..end]);
    (code, interps)
}

/// Where the interpolation starting with the `$` at `i` ends (`${…}`, counting braces
/// without recursion; `$name`, `$a.b.c`), or `None` when the `$` is plain text.
fn interp_end(b: &[u8], i: usize, end: usize) -> Option<usize> {
    match b.get(i + 1) {
        Some(b'{') => {
            let mut depth = 0usize;
            let mut j = i + 1;
            while j < end {
                match b[j] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            Some((j + 1).min(end))
        }
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let mut j = i + 1;
            while j < end
                && (b[j].is_ascii_alphanumeric()
                    || b[j] == b'_'
                    || (b[j] == b'.' && b.get(j + 1).is_some_and(|n| n.is_ascii_alphabetic())))
            {
                j += 1;
            }
            Some(j)
        }
        _ => None,
    }
}

/// The Groovy expression an interpolation written at `span` holds: `X` of `${X}` or `$X`.
pub fn interp_expr(text: &str, span: Span) -> &str {
    let raw = text.get(span.range()).unwrap_or("");
    match raw.strip_prefix("${") {
        Some(inner) => inner.strip_suffix('}').unwrap_or(inner),
        None => raw.strip_prefix('$').unwrap_or(raw),
    }
}

/// A Groovy escape at the start of `s` (a `\`): what it stands for and how many bytes it
/// is; 0 bytes: not an escape.
fn groovy_escape(s: &str) -> (String, usize) {
    let b = s.as_bytes();
    let one = |c: char| (c.to_string(), 2);
    match b.get(1) {
        Some(b'n') => one('\n'),
        Some(b't') => one('\t'),
        Some(b'r') => one('\r'),
        Some(b'b') => one('\u{8}'),
        Some(b'f') => one('\u{c}'),
        Some(b's') => one(' '),
        Some(b'\\') => one('\\'),
        Some(b'\'') => one('\''),
        Some(b'"') => one('"'),
        Some(b'$') => one('$'),
        // A line continued: the newline is not part of the string.
        Some(b'\n') => (String::new(), 2),
        Some(b'\r') if b.get(2) == Some(&b'\n') => (String::new(), 3),
        Some(b'u') => match s.get(2..6).and_then(|h| u32::from_str_radix(h, 16).ok()) {
            Some(c) => (char::from_u32(c).unwrap_or('\u{fffd}').to_string(), 6),
            None => (String::new(), 0),
        },
        _ => (String::new(), 0),
    }
}

/// A value, and the build parameter whose default it is (or holds), if any.
#[derive(Clone, Debug, PartialEq)]
pub struct GroovyVal {
    pub v: ScriptVal,
    pub default_of: Option<String>,
}

impl GroovyVal {
    fn dynamic(why: impl Into<String>) -> GroovyVal {
        GroovyVal {
            v: ScriptVal::Dynamic(why.into()),
            default_of: None,
        }
    }

    fn known(text: impl Into<String>, literal: Option<Span>) -> GroovyVal {
        GroovyVal {
            v: ScriptVal::known(text, literal),
            default_of: None,
        }
    }
}

/// What a block runs as, for the order of the assignments in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Root,
    /// Runs once, in order, when the block around it runs (`stage`, `steps`, `script`...).
    Seq,
    /// May or may not run (`if`, `else`, `try`, `catch`, `post`, a `stage` with `when`).
    Cond,
    /// A loop, or a closure whose call is not known: may run any number of times.
    Loop,
    /// A method: runs when it is called, from anywhere.
    Method,
    /// `parallel { }`: its branches run at the same time.
    Parallel,
    /// `environment { }`: its entries are the enclosing block's environment.
    Env,
    /// `parameters { }`.
    Params,
}

fn kind_of(word: &str) -> Kind {
    match word {
        "pipeline"
        | "stages"
        | "stage"
        | "steps"
        | "script"
        | "node"
        | "dir"
        | "withEnv"
        | "withCredentials"
        | "timeout"
        | "timestamps"
        | "ansiColor"
        | "container"
        | "ws"
        | "lock"
        | "catchError"
        | "warnError"
        | "sshagent"
        | "wrap"
        | "inside"
        | "withDockerContainer"
        | "withDockerRegistry"
        | "withPythonEnv"
        | "agent"
        | "options"
        | "tools"
        | "triggers"
        | "libraries"
        | "matrix"
        | "axes"
        | "axis"
        | "input" => Kind::Seq,
        "if" | "else" | "try" | "catch" | "finally" | "switch" | "when" | "post" | "always" | "success"
        | "failure" | "unstable" | "changed" | "cleanup" | "aborted" | "fixed" | "regression"
        | "unsuccessful" | "notBuilt" => Kind::Cond,
        "parallel" => Kind::Parallel,
        "environment" => Kind::Env,
        "parameters" => Kind::Params,
        _ => Kind::Loop,
    }
}

struct Block {
    /// Where its `{` is, and one past its `}` (the end of the file when never closed).
    open: u32,
    close: u32,
    parent: u32,
    kind: Kind,
    /// It, or a block around it, is a loop, an unknown closure or a method.
    looped: bool,
    /// The nearest method it is in (itself, when it is one).
    method: Option<u32>,
    /// A `dir('…') { }` block: the directory its steps run in, relative to the one around
    /// it, or why it is not known (`ws(…)` too).
    dir: Option<Result<String, String>>,
}

/// How an assignment's value is written.
#[derive(Clone, Debug)]
enum Rhs {
    /// A string (its index).
    Str(u32),
    /// A `withEnv` entry: the string (its index) after `NAME=` (`skip` bytes).
    WithEnv(u32, usize),
    /// A number or `true`/`false`: its bytes.
    Lit(u32, u32),
    /// A variable (`X`, `env.X`, `params.X`).
    Expr(String),
    /// `credentials('id')`, a `withCredentials` variable: a secret, never known.
    Credential,
    Dynamic(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RecKind {
    /// A Groovy variable (or `env.X`, named so): declared (`def`, a type) or assigned;
    /// `cond`: not at the start of a statement (`if (c) X = …`).
    Var { decl: bool, cond: bool },
    /// An environment entry of its block (`environment { }`, `withEnv`).
    Env,
}

struct Rec {
    name: String,
    pos: u32,
    /// The block the assignment is in (an environment entry: the block it applies to).
    block: u32,
    kind: RecKind,
    rhs: Rhs,
    /// A write to the script's binding (`binding.X = …`, `setProperty('X', …)`, a name not
    /// known): it may be the variable a use refers to, whatever that use's declaration.
    any_decl: bool,
}

/// Where a value is looked up: a place of the file, the block it is in, and how many
/// assignments' values are known there (`strict`: only environment entries written
/// before the place count, as when the value of an assignment is computed).
#[derive(Clone, Copy, Debug)]
pub struct At {
    p: u32,
    block: u32,
    limit: usize,
    strict: bool,
}

/// What a member's or an index's receiver is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recv {
    /// `env`: the environment.
    Env,
    /// `binding`, `this`, `binding.variables`: the script's binding.
    Binding,
    Other,
}

/// Counts the reader's steps, in tests (which check that it grows linearly).
#[derive(Default)]
struct Work(#[cfg(test)] std::cell::Cell<usize>);

impl Work {
    fn add(&self, _n: usize) {
        #[cfg(test)]
        self.0.set(self.0.get().saturating_add(_n));
    }
}

/// A container being read: a block, a parenthesis (with what it is), a bracket.
enum Open {
    Brace,
    Paren(Header),
    Bracket,
}

/// What a parenthesis is: the word before it, whether it declares names (a method's, a
/// `for`'s or `catch`'s header) and those names.
#[derive(Default)]
struct Header {
    /// The token index of the `(`.
    open: usize,
    word: Option<(u32, u32)>,
    method: bool,
    declares: bool,
    names: Vec<(String, u32)>,
    params: bool,
}

/// The file's variables.
pub struct GroovyVars<'t> {
    text: &'t str,
    strings: &'t [GroovyString],
    blocks: Vec<Block>,
    recs: Vec<Rec>,
    vals: Vec<GroovyVal>,
    /// The declaration each Groovy assignment refers to (`None`: the script's binding).
    targets: Vec<Option<usize>>,
    vars: HashMap<String, Vec<usize>>,
    envs: HashMap<String, Vec<usize>>,
    /// Blocks whose `withEnv` list is not all known.
    unknown_env: Vec<u32>,
    params: HashMap<String, Vec<ParamDefault>>,
    /// The block each string is in.
    str_block: Vec<u32>,
    work: Work,
}

/// The reader of the tokens: what it keeps while it goes.
struct Build<'t, 'a> {
    text: &'t str,
    toks: &'a [Tok],
    strings: &'t [GroovyString],
    blocks: Vec<Block>,
    recs: Vec<Rec>,
    unknown_env: Vec<u32>,
    params: HashMap<String, Vec<ParamDefault>>,
    str_block: Vec<u32>,
    opens: Vec<Open>,
    braces: Vec<u32>,
    /// How many open containers are `parameters`.
    in_params: usize,
    /// Where the statement being read starts (a token index).
    stmt: usize,
    /// Where the run of words (after an `@Field`) that starts the statement ends: a
    /// statement's start is all words up to a token when that token is at most this.
    run_end: usize,
    work: Work,
    /// The `)` just read closed this header.
    closed: Option<Header>,
    /// A `withEnv` list read: the entries, for the next block.
    with_env: Option<WithEnvList>,
    /// A `dir(…)` read (its `)`'s token): the directory, for the next block.
    dir_arg: Option<(u32, Result<String, String>)>,
    /// The statement being read declares (`def A = 'a', B = 'b'`): its start, and
    /// whether it is an `@Field`'s; a `, NAME = …` after it declares another variable.
    decl_list: Option<(usize, bool)>,
}

fn word(text: &str, t: Tok) -> Option<&str> {
    match t {
        Tok::Word(a, b) => text.get(a as usize..b as usize),
        _ => None,
    }
}

fn is_punct(text: &str, t: Option<&Tok>, c: u8) -> bool {
    matches!(t, Some(Tok::Punct(i)) if text.as_bytes().get(*i as usize) == Some(&c))
}

/// A word that starts a declaration: `def`, a modifier, a primitive or a class name.
fn decl_word(w: &str) -> bool {
    matches!(
        w,
        "def"
            | "final"
            | "static"
            | "private"
            | "public"
            | "protected"
            | "var"
            | "int"
            | "long"
            | "boolean"
            | "double"
            | "float"
            | "short"
            | "byte"
            | "char"
    ) || w.starts_with(|c: char| c.is_ascii_uppercase())
}

fn tok_pos(strings: &[GroovyString], t: Tok) -> u32 {
    match t {
        Tok::Word(a, _) | Tok::Num(a, _) | Tok::Punct(a) => a,
        Tok::Str(i) => strings.get(i as usize).map_or(0, |s| s.open as u32),
        Tok::Newline => 0,
    }
}

impl<'t> Build<'t, '_> {
    fn cur(&self) -> u32 {
        self.braces.last().copied().unwrap_or(0)
    }

    fn punct_at(&self, k: usize, c: u8) -> bool {
        is_punct(self.text, self.toks.get(k), c)
    }

    fn byte(&self, i: u32) -> u8 {
        self.text.as_bytes().get(i as usize).copied().unwrap_or(0)
    }

    /// Whether the token at `k` ends a statement (or there is none). A newline before a
    /// line starting with `.` or `?.` (a method chain going on) does not.
    fn ends(&self, k: usize) -> bool {
        match self.toks.get(k) {
            None => true,
            Some(Tok::Newline) => {
                let next = self.toks[k..]
                    .iter()
                    .take(MAX_PARAM_TOKENS)
                    .find(|t| !matches!(t, Tok::Newline));
                !matches!(next, Some(Tok::Punct(p)) if matches!(self.byte(*p), b'.' | b'?'))
            }
            Some(Tok::Punct(i)) => matches!(self.byte(*i), b';' | b'}'),
            _ => false,
        }
    }

    fn start_stmt(&mut self, k: usize) {
        self.stmt = k;
        self.run_end = k;
    }

    /// Whether the tokens from the statement's start to `to` (after an `@Field`) are all
    /// words.
    fn all_words_to(&self, to: usize) -> bool {
        to <= self.run_end
    }

    fn run(mut self) -> Self {
        let mut k = 0;
        while k < self.toks.len() {
            let t = self.toks[k];
            self.work.add(1);
            let field_at = |j: usize| {
                j == self.stmt
                    && is_punct(self.text, Some(&t), b'@')
                    && self.toks.get(j + 1).and_then(|f| word(self.text, *f)) == Some("Field")
            };
            if k == self.run_end && (matches!(t, Tok::Word(..)) || field_at(k)) {
                self.run_end = k + 1;
            }
            match t {
                Tok::Newline if !matches!(self.opens.last(), Some(Open::Paren(_) | Open::Bracket)) => {
                    self.bare_decl(k);
                    self.start_stmt(k + 1);
                }
                Tok::Newline => {}
                Tok::Str(i) => {
                    if let Some(b) = self.str_block.get_mut(i as usize) {
                        *b = self.braces.last().copied().unwrap_or(0);
                    }
                }
                Tok::Word(..) => self.word(k),
                Tok::Num(..) => {}
                Tok::Punct(i) => self.punct(k, i),
            }
            if !matches!(t, Tok::Punct(i) if self.byte(i) == b')') {
                self.closed = None;
            }
            k += 1;
        }
        let end = self.text.len() as u32;
        for &b in &self.braces {
            self.blocks[b as usize].close = end;
        }
        self
    }

    fn word(&mut self, k: usize) {
        let w = word(self.text, self.toks[k]).unwrap_or("");
        if matches!(
            w,
            "load"
                | "evaluate"
                | "setProperty"
                | "setVariable"
                | "put"
                | "putAt"
                | "putAll"
                | "remove"
                | "removeVariable"
                | "clear"
        ) {
            self.call_write(k, w);
        }
        if self.in_params > 0
            && matches!(w, "string" | "text" | "choice" | "booleanParam" | "password")
            && self.punct_at(k + 1, b'(')
        {
            self.parameter(k, w);
        }
    }

    fn punct(&mut self, k: usize, i: u32) {
        match self.byte(i) {
            b'{' => self.open_block(k, i),
            b'}' => {
                self.bare_decl(k);
                while let Some(o) = self.opens.pop() {
                    self.popped(&o);
                    if matches!(o, Open::Brace) {
                        if let Some(b) = self.braces.pop() {
                            self.blocks[b as usize].close = i + 1;
                        }
                        break;
                    }
                }
                self.start_stmt(k + 1);
            }
            b'(' => {
                let h = self.header(k);
                if h.params {
                    self.in_params += 1;
                }
                self.opens.push(Open::Paren(h));
            }
            b')' => {
                if matches!(self.opens.last(), Some(Open::Paren(_))) {
                    if let Some(Open::Paren(h)) = self.opens.pop() {
                        if h.params {
                            self.in_params -= 1;
                        }
                        match h.word.and_then(|(a, b)| self.text.get(a as usize..b as usize)) {
                            Some("withEnv") => self.with_env(&h, k),
                            Some("withCredentials") => self.with_credentials(&h, k),
                            Some("dir") => self.dir_arg = Some((k as u32, self.dir_arg(&h, k))),
                            Some("ws") => {
                                let why = "`ws(…)` runs its steps in another workspace".to_string();
                                self.dir_arg = Some((k as u32, Err(why)));
                            }
                            _ => {}
                        }
                        self.closed = Some(h);
                    }
                }
            }
            b'[' => self.opens.push(Open::Bracket),
            b']' => {
                if matches!(self.opens.last(), Some(Open::Bracket)) {
                    self.opens.pop();
                }
            }
            b';' => {
                self.bare_decl(k);
                self.start_stmt(k + 1);
            }
            b'=' => self.equals(k, i),
            c @ (b'+' | b'-') if self.byte(i + 1) == c && (i == 0 || self.byte(i - 1) != c) => {
                self.step_write(k, i)
            }
            _ => {}
        }
    }

    fn popped(&mut self, o: &Open) {
        if let Open::Paren(h) = o
            && h.params
        {
            self.in_params -= 1;
        }
    }

    /// A `(` at `k`: what it is.
    fn header(&mut self, k: usize) -> Header {
        let mut h = Header {
            open: k,
            ..Header::default()
        };
        let Some(&prev @ Tok::Word(a, b)) = k.checked_sub(1).and_then(|j| self.toks.get(j)) else {
            return h;
        };
        let w = word(self.text, prev).unwrap_or("");
        h.word = Some((a, b));
        h.params = w == "parameters";
        // `def name(`, `String name(`: a method (only words since the statement started).
        let words = k - 1 - self.stmt.min(k - 1);
        h.method = words >= 1
            && self.all_words_to(k)
            && word(self.text, self.toks[self.stmt]).is_some_and(decl_word);
        h.declares = h.method || matches!(w, "for" | "catch");
        if h.declares {
            // The names: a word followed by `,`, `)`, `=`, `:` or `in`, at this depth, in a
            // few tokens.
            let mut depth = 0usize;
            for j in k + 1..(k + 1 + MAX_PARAM_TOKENS).min(self.toks.len()) {
                self.work.add(1);
                let t = self.toks[j];
                match t {
                    Tok::Punct(p) => match self.byte(p) {
                        b'(' | b'[' | b'{' => depth += 1,
                        b')' | b']' | b'}' if depth == 0 => break,
                        b')' | b']' | b'}' => depth -= 1,
                        _ => {}
                    },
                    Tok::Word(a, b) if depth == 0 => {
                        let next = self.toks.get(j + 1);
                        let follows = match next {
                            Some(Tok::Punct(p)) => matches!(self.byte(*p), b',' | b')' | b'=' | b':'),
                            Some(n @ Tok::Word(..)) => word(self.text, *n) == Some("in"),
                            _ => false,
                        };
                        if follows && let Some(n) = self.text.get(a as usize..b as usize) {
                            h.names.push((n.to_string(), a));
                        }
                    }
                    _ => {}
                }
            }
        }
        h
    }

    /// A `{` at `k` (byte `i`): a block, of the kind the word before it (or before the
    /// `(...)` before it) says.
    fn open_block(&mut self, k: usize, i: u32) {
        let parent = self.cur();
        let closed = self.closed.take();
        let prev = k.checked_sub(1).and_then(|j| self.toks.get(j)).copied();
        let (kind, header) = match (&closed, prev) {
            (Some(h), _) if h.method => (Kind::Method, closed.as_ref()),
            (Some(h), _) => (
                h.word
                    .and_then(|(a, b)| self.text.get(a as usize..b as usize))
                    .map_or(Kind::Loop, kind_of),
                closed.as_ref(),
            ),
            (None, Some(t @ Tok::Word(..))) => (word(self.text, t).map_or(Kind::Loop, kind_of), None),
            _ => (Kind::Loop, None),
        };
        let kind = if kind == Kind::Env && self.blocks[parent as usize].kind == Kind::Env {
            Kind::Loop
        } else {
            kind
        };
        let id = self.blocks.len() as u32;
        let p = &self.blocks[parent as usize];
        let method = if kind == Kind::Method { Some(id) } else { p.method };
        let looped = p.looped || matches!(kind, Kind::Loop | Kind::Method);
        // A `when` makes its stage conditional.
        if kind == Kind::Cond
            && prev.and_then(|t| word(self.text, t)) == Some("when")
            && self.blocks[parent as usize].kind == Kind::Seq
        {
            self.blocks[parent as usize].kind = Kind::Cond;
        }
        self.blocks.push(Block {
            open: i,
            close: u32::MAX,
            parent,
            kind,
            looped,
            method,
            dir: None,
        });
        // A `dir(…)` just before: the directory of the block's steps.
        if let Some((end_tok, arg)) = self.dir_arg.take()
            && end_tok as usize + 1 == k
        {
            self.blocks[id as usize].dir = Some(arg);
        }
        if kind == Kind::Params {
            self.in_params += 1;
        }
        self.opens.push(Open::Brace);
        self.braces.push(id);
        self.start_stmt(k + 1);
        // A method's, `for`'s or `catch`'s names: declared in the block, not known.
        if let Some(h) = header.filter(|h| h.declares) {
            let why = if h.method {
                "a parameter, given by the method's callers"
            } else {
                "a loop's or handler's variable"
            };
            for (name, at) in &h.names {
                self.push_var(
                    name,
                    *at,
                    id,
                    true,
                    false,
                    Rhs::Dynamic(format!("`{name}` is {why}")),
                );
            }
        }
        // A closure's parameters: `{ a, b ->`.
        self.closure_params(k, id);
        // A `withEnv` list read just before: the block's environment.
        if let Some((end_tok, entries, all_known)) = self.with_env.take()
            && end_tok as usize + 1 == k
        {
            for (name, pos, rhs) in entries {
                self.push(name, pos, id, RecKind::Env, rhs);
            }
            if !all_known {
                self.unknown_env.push(id);
            }
        }
    }

    /// `{ a, String b ->` after the `{` at `k`: `a` and `b` declared in block `id`.
    fn closure_params(&mut self, k: usize, id: u32) {
        let mut names = Vec::new();
        for j in k + 1..(k + 16).min(self.toks.len()) {
            match self.toks[j] {
                Tok::Newline => {}
                t @ Tok::Word(a, _) => {
                    let next = self.toks.get(j + 1);
                    if is_punct(self.text, next, b',') || is_punct(self.text, next, b'-') {
                        names.push((word(self.text, t).unwrap_or("").to_string(), a));
                    }
                }
                Tok::Punct(p) if self.byte(p) == b',' => {}
                Tok::Punct(p) if self.byte(p) == b'-' && self.byte(p + 1) == b'>' => {
                    for (name, at) in names {
                        let why = format!("`{name}` is a closure's parameter");
                        self.push_var(&name, at, id, true, false, Rhs::Dynamic(why));
                    }
                    return;
                }
                _ => return,
            }
        }
    }

    /// The `withCredentials([...])` list whose `)` is at `k`: each binding's variables
    /// (`variable: 'X'`, `usernameVariable: 'U'`...; an Azure service principal's default
    /// names), secrets in the next block. A binding or an expression it does not know
    /// leaves every variable there unknown.
    fn with_credentials(&mut self, h: &Header, k: usize) {
        let mut entries = Vec::new();
        let mut all_known = k - h.open <= MAX_CRED_TOKENS;
        for j in h.open + 1..k.min(h.open + 1 + MAX_CRED_TOKENS) {
            self.work.add(1);
            let t = self.toks[j];
            let Some(w) = word(self.text, t) else { continue };
            let after = |c| j > 0 && self.punct_at(j - 1, c);
            if w == "class" && after(b'$') {
                // `[$class: '…', …]`: a binding it does not know.
                all_known = false;
            } else if self.punct_at(j + 1, b':') {
                // A binding's argument: a variable's name must be a plain string.
                if w == "variable" || w.ends_with("Variable") {
                    let name = match self.toks.get(j + 2) {
                        Some(Tok::Str(s)) => {
                            self.plain_string(*s).ok().map(|(t, _)| t).filter(|t| is_ident(t))
                        }
                        _ => None,
                    };
                    match name {
                        Some(n) => entries.push((n, tok_pos(self.strings, t), Rhs::Credential)),
                        None => all_known = false,
                    }
                }
            } else if self.punct_at(j + 1, b'(') {
                match CRED_BINDINGS.iter().find(|(b, _)| *b == w) {
                    Some((_, defaults)) => {
                        for d in *defaults {
                            entries.push((d.to_string(), tok_pos(self.strings, t), Rhs::Credential));
                        }
                    }
                    None => all_known = false,
                }
            } else if !after(b':') && !after(b'.') {
                // A variable holding bindings: not known.
                all_known = false;
            }
        }
        // A variable named explicitly replaces a default of the same binding: both are
        // recorded, both unknown.
        self.with_env = Some((k as u32, entries, all_known));
    }

    /// The `withEnv([...])` list whose `)` is at `k`: each `'NAME=value'` string.
    fn with_env(&mut self, h: &Header, k: usize) {
        let Some((_, wend)) = h.word else { return };
        let mut entries = Vec::new();
        let mut all_known = true;
        // Walk back from the `)` to the word: at most a bounded number of tokens.
        let mut j = k;
        let mut seen = 0usize;
        while j > 0 && seen < MAX_PARAM_TOKENS {
            j -= 1;
            seen += 1;
            match self.toks[j] {
                Tok::Word(a, _) if a < wend => break,
                Tok::Str(s) => {
                    let Some(gs) = self.strings.get(s as usize) else {
                        continue;
                    };
                    let content = self.text.get(gs.start..gs.end.min(self.text.len())).unwrap_or("");
                    match content.split_once('=') {
                        Some((name, _)) if is_ident(name) => {
                            let rhs = Rhs::WithEnv(s, name.len() + 1);
                            entries.push((name.to_string(), gs.open as u32, rhs));
                        }
                        _ => all_known = false,
                    }
                }
                Tok::Punct(p) if matches!(self.byte(p), b'[' | b']' | b',' | b'(') => {}
                Tok::Newline => {}
                _ => all_known = false,
            }
        }
        if seen >= MAX_PARAM_TOKENS {
            all_known = false;
        }
        entries.reverse();
        self.with_env = Some((k as u32, entries, all_known));
    }

    /// The directory of the `dir(…)` whose `)` is at `k`: one plain string (`dir('sub')`,
    /// `dir(path: 'sub')`), else why it is not known.
    fn dir_arg(&self, h: &Header, k: usize) -> Result<String, String> {
        let (_, wend) = h.word.unwrap_or((0, 0));
        let mut args = Vec::new();
        let mut j = k;
        while j > 0 && args.len() < 8 {
            j -= 1;
            match self.toks[j] {
                Tok::Word(a, _) if a < wend => break,
                Tok::Newline => {}
                t => args.push(t),
            }
        }
        args.reverse();
        let s = match args.as_slice() {
            [Tok::Punct(_), Tok::Str(s)] => *s,
            [Tok::Punct(_), p @ Tok::Word(..), Tok::Punct(c), Tok::Str(s)]
                if word(self.text, *p) == Some("path") && self.byte(*c) == b':' =>
            {
                *s
            }
            _ => return Err("`dir(…)` is given an expression".into()),
        };
        let gs = self
            .strings
            .get(s as usize)
            .ok_or("`dir(…)` is given an expression")?;
        let content = self.text.get(gs.start..gs.end.min(self.text.len())).unwrap_or("");
        if content.contains('\\') || (gs.interpolates && content.contains('$')) {
            return Err(format!(
                "`dir(…)` is given `{content}`, which is not known statically"
            ));
        }
        if content.starts_with(['/', '~']) || content.contains(':') {
            return Err(format!("`dir('{content}')` is outside the workspace"));
        }
        Ok(content.to_string())
    }

    /// A statement ending at token `k` that declares a variable without a value: `def X`,
    /// `String X`, `@Field def X`.
    fn bare_decl(&mut self, k: usize) {
        let block = self.cur();
        if matches!(self.blocks[block as usize].kind, Kind::Env | Kind::Params) {
            return;
        }
        let stmt = &self.toks[self.stmt.min(k)..k];
        let (field, words) = match stmt {
            [Tok::Punct(p), f @ Tok::Word(..), rest @ ..]
                if self.byte(*p) == b'@' && word(self.text, *f) == Some("Field") =>
            {
                (true, rest)
            }
            _ => (false, stmt),
        };
        let [first, .., last @ Tok::Word(pos, _)] = words else {
            return;
        };
        if !words.iter().all(|t| matches!(t, Tok::Word(..)))
            || !word(self.text, *first).is_some_and(decl_word)
        {
            return;
        }
        let name = word(self.text, *last).unwrap_or("").to_string();
        let why = format!("`{name}` is declared without a value");
        self.push_var(&name, *pos, block, !field, false, Rhs::Dynamic(why));
    }

    fn push_var(&mut self, name: &str, pos: u32, block: u32, decl: bool, cond: bool, rhs: Rhs) {
        self.push(name.to_string(), pos, block, RecKind::Var { decl, cond }, rhs);
    }

    /// An `=` at token `k` (byte `i`): an assignment, a declaration or an environment entry.
    fn equals(&mut self, k: usize, i: u32) {
        // In parentheses or brackets: a method's default, or an assignment that may run or
        // not (`if ((X = f()))`, a `for`'s header).
        let nested = match self.opens.last() {
            Some(Open::Paren(h)) if h.method => return,
            Some(Open::Paren(_) | Open::Bracket) => true,
            _ => false,
        };
        let next = self.byte(i + 1);
        let prev = if i > 0 { self.byte(i - 1) } else { 0 };
        if matches!(next, b'=' | b'~') || matches!(prev, b'=' | b'!') {
            return;
        }
        // Directly after an operator: `+=`, `<<=`, `>>>=`, `**=`...; `<=`, `>=` compare.
        let mut first = k;
        while first > 0
            && k - first < 3
            && matches!(self.toks[first - 1], Tok::Punct(p) if p + 1 == tok_pos(self.strings, self.toks[first])
                && matches!(self.byte(p), b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'?' | b'<' | b'>'))
        {
            first -= 1;
        }
        if matches!(prev, b'<' | b'>') && k - first < 2 {
            return;
        }
        let compound = first < k;
        let Some(target_at) = first.checked_sub(1) else {
            return;
        };
        let block = self.cur();
        let env_block = self.blocks[block as usize].kind == Kind::Env;
        let target = self.toks[target_at];
        let Tok::Word(tpos, _) = target else {
            if !env_block {
                self.other_target(target_at, k, compound, nested);
            }
            return;
        };
        let name = word(self.text, target).unwrap_or("").to_string();
        let stmt_empty = self.stmt >= target_at;
        let env_dot = target_at >= 2
            && self.punct_at(target_at - 1, b'.')
            && word(self.text, self.toks[target_at - 2]) == Some("env");
        let member = target_at >= 1 && self.punct_at(target_at - 1, b'.');
        // `@Field`, then words: the last is the name, the others a declaration's.
        let stmt = &self.toks[self.stmt.min(target_at)..target_at];
        let field = matches!(stmt, [Tok::Punct(p), f @ Tok::Word(..), ..]
            if self.byte(*p) == b'@' && word(self.text, *f) == Some("Field"));
        let words = if field { &stmt[2..] } else { stmt };
        let plain = !compound && !nested && !env_block && !env_dot && !member;
        // `def A = 'a', B = 'b'`: the declaration's first variable, or one after a comma.
        let first_decl = plain
            && self.all_words_to(target_at)
            && !words.is_empty()
            && word(self.text, words[0]).is_some_and(decl_word);
        let next_decl = plain
            && target_at >= 1
            && self.punct_at(target_at - 1, b',')
            && self.decl_list.is_some_and(|(at, _)| at == self.stmt);
        let rhs = if compound {
            Rhs::Dynamic(format!(
                "`{name}` is changed by an operator (`{}`)",
                self.text
                    .get(tok_pos(self.strings, self.toks[first]) as usize..i as usize + 1)
                    .unwrap_or("=")
            ))
        } else {
            self.rhs_in(k + 1, &name, first_decl || next_decl)
        };
        if env_block {
            // `environment { NAME = value }`: the enclosing block's environment.
            if stmt_empty && !member && !nested {
                let scope = self.blocks[block as usize].parent;
                self.push(name, tpos, scope, RecKind::Env, rhs);
            }
            return;
        }
        if env_dot {
            let at_start = target_at - 2 == self.stmt && !nested;
            self.env_write(Some(&name), tpos, !at_start, rhs);
            return;
        }
        if member {
            // `binding.X = …`, `this.X = …`: the script's binding; another object's
            // property is not a variable.
            if target_at >= 2
                && let Some((Recv::Binding, _)) = self.receiver(target_at - 2)
            {
                self.binding_write(Some(&name), tpos, rhs);
            }
            return;
        }
        if next_decl {
            // Another variable of the declaration: declared as its first one is.
            let field = self.decl_list.is_some_and(|(_, f)| f);
            self.push_var(&name, tpos, block, !field, false, rhs);
            return;
        }
        if first_decl {
            self.decl_list = Some((self.stmt, field));
        }
        if self.all_words_to(target_at) && !nested {
            let decl =
                !compound && !field && !words.is_empty() && word(self.text, words[0]).is_some_and(decl_word);
            self.push_var(&name, tpos, block, decl, false, rhs);
        } else {
            // Not at a statement's start (`if (c) X = …`, `a = b = …`): it may run or not.
            self.push_var(&name, tpos, block, false, true, rhs);
        }
    }

    /// An `=` at token `k` whose target (at `target_at`) is not a name: `recv[key] = …`,
    /// `env."X" = …`, `(a, b) = …`, `def (a, b) = …`.
    fn other_target(&mut self, target_at: usize, k: usize, compound: bool, nested: bool) {
        match self.toks[target_at] {
            Tok::Punct(p) if self.byte(p) == b']' => self.index_write(target_at, k, compound, nested),
            Tok::Punct(p) if self.byte(p) == b')' && !compound && !nested => {
                if let Some(h) = self.closed.take() {
                    self.multi_assign(&h, target_at, k);
                }
            }
            Tok::Str(s)
                if target_at >= 2
                    && self.punct_at(target_at - 1, b'.')
                    && matches!(self.receiver(target_at - 2), Some((Recv::Env | Recv::Binding, _))) =>
            {
                self.key_write(target_at - 2, Some(s), k, compound, nested);
            }
            _ => {}
        }
    }

    /// `recv[key] = …` whose `]` is at token `close`: a write to the environment or to
    /// the binding, of the key's name when it is a plain string, else of any name.
    fn index_write(&mut self, close: usize, k: usize, compound: bool, nested: bool) {
        let mut depth = 0usize;
        let mut open = None;
        let mut j = close;
        while j > 0 && close - j < MAX_PARAM_TOKENS {
            j -= 1;
            self.work.add(1);
            if let Tok::Punct(p) = self.toks[j] {
                match self.byte(p) {
                    b']' => depth += 1,
                    b'[' if depth == 0 => {
                        open = Some(j);
                        break;
                    }
                    b'[' => depth -= 1,
                    _ => {}
                }
            }
        }
        let Some(open) = open else {
            // Its receiver is too far to tell: any variable may be written.
            let pos = tok_pos(self.strings, self.toks[close]);
            let why = "a variable is set through an index too long to read";
            self.env_write(None, pos, true, Rhs::Dynamic(why.into()));
            self.binding_write(None, pos, Rhs::Dynamic(why.into()));
            return;
        };
        let Some(recv_end) = open.checked_sub(1) else {
            return;
        };
        let key = match self.toks.get(open + 1) {
            Some(Tok::Str(s)) if open + 2 == close => Some(*s),
            _ => None,
        };
        self.key_write(recv_end, key, k, compound, nested);
    }

    /// A write through the receiver ending at token `recv_end` (`env`, `binding`...) to
    /// the name a string (this index) holds, or to any name; the value after the `=` at
    /// token `k`.
    fn key_write(&mut self, recv_end: usize, key: Option<u32>, k: usize, compound: bool, nested: bool) {
        let Some((recv, start)) = self.receiver(recv_end) else {
            return;
        };
        let name = key
            .and_then(|s| self.plain_string(s).ok())
            .map(|(t, _)| t)
            .filter(|t| is_ident(t));
        let pos = tok_pos(self.strings, self.toks[k]);
        let rhs = match &name {
            None => Rhs::Dynamic("a variable is set with a name not known statically".into()),
            Some(n) if compound => Rhs::Dynamic(format!("`{n}` is changed by an operator")),
            Some(n) => self.rhs(k + 1, n),
        };
        match recv {
            Recv::Env => {
                let at_start = start == self.stmt && !nested && name.is_some();
                self.env_write(name.as_deref(), pos, !at_start, rhs);
            }
            Recv::Binding => self.binding_write(name.as_deref(), pos, rhs),
            Recv::Other => {}
        }
    }

    /// `(a, b) = …` at a statement's start or `def (a, String b) = …`, whose `)` is at
    /// token `close` and `=` at `k`: each name is the list literal's element at its place,
    /// or not known.
    fn multi_assign(&mut self, h: &Header, close: usize, k: usize) {
        let decl = match h.word {
            None if h.open == self.stmt => false,
            Some((a, b))
                if h.open == self.stmt + 1
                    && self.text.get(a as usize..b as usize).is_some_and(decl_word) =>
            {
                true
            }
            _ => return,
        };
        let block = self.cur();
        let mut names = Vec::new();
        let mut depth = 0usize;
        for j in h.open + 1..close {
            self.work.add(1);
            match self.toks[j] {
                Tok::Punct(p) if matches!(self.byte(p), b'(' | b'[' | b'{') => depth += 1,
                Tok::Punct(p) if matches!(self.byte(p), b')' | b']' | b'}') => {
                    depth = depth.saturating_sub(1)
                }
                t @ Tok::Word(a, _) if depth == 0 && (self.punct_at(j + 1, b',') || j + 1 == close) => {
                    names.push((word(self.text, t).unwrap_or("").to_string(), a));
                }
                _ => {}
            }
        }
        let elements = self.list_literal(k + 1);
        for (n, (name, pos)) in names.into_iter().enumerate() {
            let rhs = match &elements {
                Some(v) => v.get(n).cloned().unwrap_or_else(|| {
                    Rhs::Dynamic(format!("`{name}` is assigned `null` (the list is shorter)"))
                }),
                None => Rhs::Dynamic(format!("`{name}` is assigned an element of a Groovy expression")),
            };
            self.push_var(&name, pos, block, decl, false, rhs);
        }
    }

    /// The elements of a list of literals starting at token `k` (`['a', 4, true]`) that
    /// ends its statement, or `None`.
    fn list_literal(&mut self, mut k: usize) -> Option<Vec<Rhs>> {
        let skip = |k: &mut usize| {
            while matches!(self.toks.get(*k), Some(Tok::Newline)) {
                *k += 1;
            }
        };
        skip(&mut k);
        if !self.punct_at(k, b'[') {
            return None;
        }
        k += 1;
        let mut out = Vec::new();
        loop {
            self.work.add(1);
            skip(&mut k);
            if self.punct_at(k, b']') && out.is_empty() {
                break;
            }
            let t = *self.toks.get(k)?;
            out.push(match t {
                Tok::Str(s) => Rhs::Str(s),
                Tok::Num(a, b) => Rhs::Lit(a, b),
                Tok::Word(a, b) if matches!(word(self.text, t), Some("true" | "false")) => Rhs::Lit(a, b),
                _ => return None,
            });
            k += 1;
            skip(&mut k);
            if self.punct_at(k, b']') {
                break;
            }
            if !self.punct_at(k, b',') {
                return None;
            }
            k += 1;
        }
        self.ends(k + 1).then_some(out)
    }

    /// The receiver of a member or an index: the words `a.b.c` ending at token `end`, and
    /// the token where they start.
    fn receiver(&self, end: usize) -> Option<(Recv, usize)> {
        let mut words: Vec<&str> = Vec::new();
        let mut j = end;
        loop {
            words.push(self.toks.get(j).and_then(|t| word(self.text, *t))?);
            if words.len() > 3 || j < 2 || !self.punct_at(j - 1, b'.') {
                break;
            }
            j -= 2;
        }
        words.reverse();
        let recv = match words.as_slice() {
            ["env"] => Recv::Env,
            ["this" | "binding"]
            | ["this", "binding"]
            | ["binding", "variables"]
            | ["this", "binding", "variables"] => Recv::Binding,
            _ => Recv::Other,
        };
        Some((recv, j))
    }

    fn push(&mut self, name: String, pos: u32, block: u32, kind: RecKind, rhs: Rhs) {
        self.recs.push(Rec {
            name,
            pos,
            block,
            kind,
            rhs,
            any_decl: false,
        });
    }

    /// A write to the environment variable `name` (`None`: one whose name is not known,
    /// which never hides an earlier assignment).
    fn env_write(&mut self, name: Option<&str>, pos: u32, cond: bool, rhs: Rhs) {
        let block = self.cur();
        let (name, cond) = match name {
            Some(n) => (format!("env.{n}"), cond),
            None => (ANY_ENV.to_string(), true),
        };
        self.push(name, pos, block, RecKind::Var { decl: false, cond }, rhs);
    }

    /// A write to the binding variable `name` (`None`: any): it may be what a use of that
    /// name refers to, and never hides an earlier assignment (the use may be of a local).
    fn binding_write(&mut self, name: Option<&str>, pos: u32, rhs: Rhs) {
        let block = self.cur();
        self.recs.push(Rec {
            name: name.unwrap_or(ANY_VAR).to_string(),
            pos,
            block,
            kind: RecKind::Var {
                decl: false,
                cond: true,
            },
            rhs,
            any_decl: true,
        });
    }

    /// A word at `k` that may write variables when called: `env.setProperty('X', …)`,
    /// `binding.setVariable('X', …)`, `setProperty('X', …)`, `env.putAll(…)`, and `load`
    /// and `evaluate`, whose script may set any.
    fn call_write(&mut self, k: usize, w: &str) {
        let first = match self.toks.get(k + 1) {
            Some(Tok::Punct(p)) if self.byte(*p) == b'(' => self.toks.get(k + 2),
            Some(t @ Tok::Str(_)) => Some(t),
            _ => return,
        };
        let recv = if k >= 2 && self.punct_at(k - 1, b'.') {
            match self.receiver(k - 2) {
                Some((r, _)) => r,
                None => return,
            }
        } else if k >= 1 && self.punct_at(k - 1, b'.') {
            return;
        } else {
            Recv::Binding
        };
        let bare = !(k >= 1 && self.punct_at(k - 1, b'.'));
        let pos = tok_pos(self.strings, self.toks[k]);
        let named = match first {
            Some(Tok::Str(s)) => self.plain_string(*s).ok().map(|(t, _)| t).filter(|t| is_ident(t)),
            _ => None,
        };
        let why = |n: &str| Rhs::Dynamic(format!("`{n}` is set by `{w}(…)`"));
        match (w, recv) {
            ("load" | "evaluate", Recv::Binding) => {
                let why = format!("a variable may be set by the script `{w}` runs");
                self.env_write(None, pos, true, Rhs::Dynamic(why.clone()));
                self.binding_write(None, pos, Rhs::Dynamic(why));
            }
            ("setProperty" | "put" | "putAt" | "remove", Recv::Env) => {
                let rhs = why(named.as_deref().unwrap_or("a variable"));
                self.env_write(named.as_deref(), pos, true, rhs);
            }
            ("putAll" | "clear", Recv::Env) => self.env_write(None, pos, true, why("a variable")),
            (
                "setProperty" | "setVariable" | "put" | "putAt" | "remove" | "removeVariable",
                Recv::Binding,
            ) if !bare || matches!(w, "setProperty" | "setVariable") => {
                let rhs = why(named.as_deref().unwrap_or("a variable"));
                self.binding_write(named.as_deref(), pos, rhs);
            }
            ("putAll" | "clear", Recv::Binding) if !bare => self.binding_write(None, pos, why("a variable")),
            _ => {}
        }
    }

    /// `++`/`--` whose first byte is at token `k`: the name after or before it changes.
    fn step_write(&mut self, k: usize, i: u32) {
        let op = if self.byte(i) == b'+' { "++" } else { "--" };
        // `X++`, `env.X++` (the name ends where the operator starts), else `++X`, `++env.X`.
        let (end, name) = match (k.checked_sub(1).map(|j| self.toks[j]), self.toks.get(k + 2)) {
            (Some(t @ Tok::Word(_, b)), _) if b == i => (k - 1, word(self.text, t)),
            (_, Some(t @ Tok::Word(..))) => {
                let mut end = k + 2;
                while self.punct_at(end + 1, b'.')
                    && matches!(self.toks.get(end + 2), Some(Tok::Word(..)))
                    && end < k + 8
                {
                    end += 2;
                }
                (end, word(self.text, self.toks[end]).or(word(self.text, *t)))
            }
            (Some(t @ Tok::Word(..)), _) => (k - 1, word(self.text, t)),
            _ => return,
        };
        let Some(name) = name.map(str::to_string) else {
            return;
        };
        let pos = tok_pos(self.strings, self.toks[end]);
        let rhs = Rhs::Dynamic(format!("`{name}` is changed by `{op}`"));
        if end >= 2 && self.punct_at(end - 1, b'.') {
            match self.receiver(end - 2) {
                Some((Recv::Env, _)) => self.env_write(Some(&name), pos, true, rhs),
                Some((Recv::Binding, _)) => self.binding_write(Some(&name), pos, rhs),
                _ => {}
            }
        } else {
            let block = self.cur();
            self.push_var(&name, pos, block, false, true, rhs);
        }
    }

    /// The value after the `=` at token `k - 1`, for `name`.
    fn rhs(&self, k: usize, name: &str) -> Rhs {
        self.rhs_in(k, name, false)
    }

    /// The value after the `=` at token `k - 1`, for `name`; in a declaration (`decl`), a
    /// `,` ends it too (`def A = 'a', B = 'b'`).
    fn rhs_in(&self, mut k: usize, name: &str, decl: bool) -> Rhs {
        while matches!(self.toks.get(k), Some(Tok::Newline)) {
            k += 1;
        }
        let Some(&t) = self.toks.get(k) else {
            return Rhs::Dynamic(format!("`{name}` is assigned nothing"));
        };
        let ends = |j: usize| self.ends(j) || (decl && self.punct_at(j, b','));
        match t {
            Tok::Str(s) if ends(k + 1) => return Rhs::Str(s),
            Tok::Num(a, b) if ends(k + 1) => return Rhs::Lit(a, b),
            Tok::Word(a, b) => {
                let w = word(self.text, t).unwrap_or("");
                if matches!(w, "true" | "false") && ends(k + 1) {
                    return Rhs::Lit(a, b);
                }
                if w == "credentials" {
                    return Rhs::Credential;
                }
                if w != "null" && w != "new" {
                    if ends(k + 1) {
                        return Rhs::Expr(w.to_string());
                    }
                    if self.punct_at(k + 1, b'.')
                        && let Some(m) = self.toks.get(k + 2).and_then(|t| word(self.text, *t))
                        && ends(k + 3)
                    {
                        return Rhs::Expr(format!("{w}.{m}"));
                    }
                }
            }
            _ => {}
        }
        let start = tok_pos(self.strings, t) as usize;
        // What is shown: at most 40 bytes of its line (not its whole line, which may be long).
        let lim = (start + 40).min(self.text.len());
        let mut end = start + memchr::memchr(b'\n', &self.text.as_bytes()[start..lim]).unwrap_or(lim - start);
        self.work.add(end - start);
        while end > start && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let shown = self.text.get(start..end).unwrap_or("").trim_end();
        Rhs::Dynamic(format!("`{name}` is assigned a Groovy expression (`{shown}`)"))
    }

    /// `string(name: 'X', defaultValue: 'v')` (also `text`, `choice` with `choices: [...]`,
    /// `booleanParam`, `password`) at token `k`, inside `parameters`.
    fn parameter(&mut self, k: usize, w: &str) {
        let mut name: Option<String> = None;
        let mut default: Option<ParamDefault> = None;
        let mut depth = 0usize;
        let mut j = k + 1;
        let end = (k + 1 + MAX_PARAM_TOKENS).min(self.toks.len());
        let mut complete = false;
        while j < end {
            let t = self.toks[j];
            match t {
                Tok::Punct(p) => match self.byte(p) {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            complete = true;
                            break;
                        }
                    }
                    _ => {}
                },
                Tok::Word(..) if depth == 1 && self.punct_at(j + 1, b':') => {
                    let key = word(self.text, t).unwrap_or("");
                    let v = self.toks.get(j + 2).copied();
                    let single = self.ends(j + 3) || self.punct_at(j + 3, b',') || self.punct_at(j + 3, b')');
                    match key {
                        "name" => {
                            if let (Some(Tok::Str(s)), true) = (v, single) {
                                name = self.plain_string(s).ok().map(|(t, _)| t);
                            }
                        }
                        "defaultValue" if w != "password" => {
                            default = Some(match v {
                                Some(Tok::Str(s)) if single => self.plain_string(s),
                                Some(Tok::Num(a, b) | Tok::Word(a, b))
                                    if single && (w == "booleanParam" || matches!(v, Some(Tok::Num(..)))) =>
                                {
                                    Ok((
                                        self.text[a as usize..b as usize].to_string(),
                                        Some(Span::new(a, b)),
                                    ))
                                }
                                _ => Err("its default is a Groovy expression".to_string()),
                            });
                        }
                        "choices" if w == "choice" => {
                            default = Some(match (v, self.toks.get(j + 3).copied()) {
                                (Some(Tok::Punct(p)), Some(Tok::Str(s))) if self.byte(p) == b'[' => {
                                    self.plain_string(s)
                                }
                                (Some(Tok::Str(s)), _) => self.plain_string(s).map(|(t, span)| {
                                    // Choices one a line: the first.
                                    let first = t.lines().next().unwrap_or("").to_string();
                                    let span = span.filter(|_| first.len() == t.len());
                                    (first, span)
                                }),
                                _ => Err("its choices are a Groovy expression".to_string()),
                            });
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let Some(name) = name.filter(|n| is_ident(n)) else {
            return;
        };
        let default = match default {
            _ if !complete => Err(format!("the parameter `{name}` is not read whole")),
            Some(d) => d.map_err(|why| format!("the parameter `{name}`: {why}")),
            None if w == "password" => Err(format!("the parameter `{name}` is a password")),
            None => Err(format!("the parameter `{name}` has no default")),
        };
        self.params.entry(name).or_default().push(default);
    }

    /// A string without interpolation: its value, and its span when written as it is.
    fn plain_string(&self, s: u32) -> ParamDefault {
        let gs = self.strings.get(s as usize).ok_or_else(String::new)?;
        let (code, interps) = decode(self.text, gs);
        if !interps.is_empty() {
            return Err("its default is interpolated".into());
        }
        let raw = self.text.get(gs.start..gs.end.min(self.text.len())).unwrap_or("");
        let literal = (raw == code.text).then(|| Span::new(gs.start as u32, gs.end as u32));
        Ok((code.text, literal))
    }
}

impl<'t> GroovyVars<'t> {
    /// The model of a file, from its tokens and strings.
    pub fn build(text: &'t str, toks: &[Tok], strings: &'t [GroovyString]) -> GroovyVars<'t> {
        let root = Block {
            open: 0,
            close: u32::MAX,
            parent: 0,
            kind: Kind::Root,
            looped: false,
            method: None,
            dir: None,
        };
        let b = Build {
            text,
            toks,
            strings,
            blocks: vec![root],
            recs: Vec::new(),
            unknown_env: Vec::new(),
            params: HashMap::new(),
            str_block: vec![0; strings.len()],
            opens: Vec::new(),
            braces: Vec::new(),
            in_params: 0,
            stmt: 0,
            run_end: 0,
            work: Work::default(),
            closed: None,
            with_env: None,
            dir_arg: None,
            decl_list: None,
        }
        .run();
        let mut recs = b.recs;
        recs.sort_by_key(|r| r.pos);
        let mut vars: HashMap<String, Vec<usize>> = HashMap::new();
        let mut envs: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, r) in recs.iter().enumerate() {
            match r.kind {
                RecKind::Var { .. } => vars.entry(r.name.clone()).or_default().push(i),
                RecKind::Env => envs.entry(r.name.clone()).or_default().push(i),
            }
        }
        let mut m = GroovyVars {
            text,
            strings,
            blocks: b.blocks,
            recs,
            vals: Vec::new(),
            targets: Vec::new(),
            vars,
            envs,
            unknown_env: b.unknown_env,
            params: b.params,
            str_block: b.str_block,
            work: b.work,
        };
        m.targets = (0..m.recs.len()).map(|i| m.target_of(i)).collect();
        // Values in file order, each reading only the ones before it.
        for i in 0..m.recs.len() {
            let r = &m.recs[i];
            let at = At {
                p: r.pos,
                block: r.block,
                limit: i,
                strict: true,
            };
            let v = m.rhs(&r.rhs, &at);
            m.vals.push(v);
        }
        m
    }

    /// Where a step's script (the string of this index) is.
    pub fn at_string(&self, idx: usize) -> At {
        At {
            p: self.strings.get(idx).map_or(0, |s| s.open as u32),
            block: self.str_block.get(idx).copied().unwrap_or(0),
            limit: self.recs.len(),
            strict: false,
        }
    }

    /// How many steps the reader took (tests check that it grows linearly).
    #[cfg(test)]
    pub fn work(&self) -> usize {
        self.work.0.get()
    }

    /// The directories of the `dir(…)` blocks around the place `at`, outermost first
    /// (none: the workspace), or why one is not known.
    pub fn dirs_at(&self, at: &At) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let mut b = at.block;
        for _ in 0..MAX_WALK {
            let block = &self.blocks[b as usize];
            match &block.dir {
                Some(Ok(d)) => out.push(d.clone()),
                Some(Err(why)) => return Err(why.clone()),
                None => {}
            }
            if b == 0 {
                out.reverse();
                return Ok(out);
            }
            b = block.parent;
        }
        Err("the step is in more blocks than are followed".into())
    }

    fn anc(&self, a: u32, s: u32) -> bool {
        self.work.add(1);
        let (a, s) = (&self.blocks[a as usize], &self.blocks[s as usize]);
        a.open <= s.open && s.close <= a.close
    }

    /// The declaration a use of `name` at `p` in block `s` refers to.
    fn visible_decl(&self, list: &[usize], p: u32, s: u32) -> Option<usize> {
        let method = self.blocks[s as usize].method;
        list.iter().copied().rev().find(|&r| {
            let rec = &self.recs[r];
            let hidden = method.is_some_and(|m| m != rec.block && self.anc(rec.block, m));
            matches!(rec.kind, RecKind::Var { decl: true, .. })
                && rec.pos < p
                && self.anc(rec.block, s)
                && !hidden
        })
    }

    fn target_of(&self, i: usize) -> Option<usize> {
        let r = &self.recs[i];
        if r.any_decl {
            // A write to the binding: to no local.
            return None;
        }
        match r.kind {
            RecKind::Var { decl: true, .. } => Some(i),
            RecKind::Var { .. } => {
                let list = self.vars.get(&r.name)?;
                if list.len() > MAX_RECS {
                    return None;
                }
                self.visible_decl(list, r.pos, r.block)
            }
            RecKind::Env => None,
        }
    }

    /// Whether an assignment in block `a` certainly ran before a place in block `s` (after
    /// it in the file): `a` encloses `s`, or is reached from the block that encloses both
    /// only through blocks that run once, in order, outside `parallel`.
    fn for_sure(&self, mut a: u32, s: u32) -> bool {
        for _ in 0..MAX_WALK {
            if self.anc(a, s) {
                return true;
            }
            let b = &self.blocks[a as usize];
            if b.kind != Kind::Seq || self.blocks[b.parent as usize].kind == Kind::Parallel {
                return false;
            }
            a = b.parent;
        }
        false
    }

    /// Whether an assignment in block `a` may run at any time relative to a place in
    /// block `s` (a loop, an unknown closure or a method between them, or `parallel`
    /// branches), and whether the block holding both is looped.
    fn order(&self, mut a: u32, s: u32) -> (bool, bool) {
        let mut anytime = false;
        for _ in 0..MAX_WALK {
            if self.anc(a, s) {
                let b = &self.blocks[a as usize];
                return (anytime, b.looped);
            }
            let b = &self.blocks[a as usize];
            anytime |= matches!(b.kind, Kind::Loop | Kind::Method)
                || self.blocks[b.parent as usize].kind == Kind::Parallel;
            a = b.parent;
        }
        (true, true)
    }

    fn val(&self, r: usize, at: &At) -> GroovyVal {
        if r >= at.limit || r >= self.vals.len() {
            let name = &self.recs[r].name;
            let name = if matches!(name.as_str(), ANY_VAR | ANY_ENV) {
                "a variable"
            } else {
                name
            };
            return GroovyVal::dynamic(format!(
                "`{name}` may be set after this (in a loop, a closure or a method)"
            ));
        }
        self.vals[r].clone()
    }

    /// The value of the Groovy variable `name` (or `env.X`) at `at`: `None` when no
    /// assignment reaches it.
    fn var(&self, name: &str, at: &At) -> Option<GroovyVal> {
        // The name's assignments, and the writes to a name not known (in file order).
        let any = self.vars.get(if name.starts_with("env.") {
            ANY_ENV
        } else {
            ANY_VAR
        });
        let list: Vec<usize> = match (self.vars.get(name), any) {
            (None, None) => return None,
            (Some(l), None) | (None, Some(l)) => l.iter().copied().take(MAX_RECS + 1).collect(),
            (Some(a), Some(b)) => {
                let mut l: Vec<usize> = a.iter().chain(b).copied().take(2 * MAX_RECS + 2).collect();
                l.sort_unstable();
                l
            }
        };
        self.work.add(list.len());
        if list.len() > MAX_RECS {
            return Some(GroovyVal::dynamic(format!(
                "`{name}` is assigned more than {MAX_RECS} times"
            )));
        }
        let target = self.visible_decl(&list, at.p, at.block);
        // A write to the binding may be the variable used, unless a local is.
        let relevant: Vec<usize> = list
            .iter()
            .copied()
            .filter(|&r| self.targets[r] == target || (self.recs[r].any_decl && target.is_none()))
            .collect();
        let cond = |r: usize| matches!(self.recs[r].kind, RecKind::Var { cond: true, .. });
        let base = relevant
            .iter()
            .copied()
            .rfind(|&r| !cond(r) && self.recs[r].pos < at.p && self.for_sure(self.recs[r].block, at.block));
        let mut reach: Vec<usize> = base.into_iter().collect();
        for &r in &relevant {
            if Some(r) == base {
                continue;
            }
            let rec = &self.recs[r];
            let (anytime, looped) = self.order(rec.block, at.block);
            let reaches = if rec.pos < at.p {
                anytime || base.is_none_or(|b| rec.pos > self.recs[b].pos)
            } else {
                anytime || looped
            };
            if reaches {
                reach.push(r);
            }
        }
        reach.first()?;
        let vals: Vec<GroovyVal> = reach.iter().map(|&r| self.val(r, at)).collect();
        if let Some(d) = vals.iter().find(|v| matches!(v.v, ScriptVal::Dynamic(_))) {
            return Some(d.clone());
        }
        let text = |v: &GroovyVal| match &v.v {
            ScriptVal::Known { text, .. } => text.clone(),
            ScriptVal::Dynamic(_) => String::new(),
        };
        let t0 = text(&vals[0]);
        if let Some(other) = vals.iter().map(text).find(|t| *t != t0) {
            return Some(GroovyVal::dynamic(format!(
                "`{name}` is assigned different values that may reach here (`{t0}`, `{other}`)"
            )));
        }
        let mut v = vals[0].clone();
        v.default_of = vals.iter().find_map(|v| v.default_of.clone());
        Some(v)
    }

    /// The environment variable `name` at `at`: the innermost `environment`/`withEnv`
    /// entry of a block around it, `env.X = …` assignments, else the build parameter of
    /// that name (Jenkins makes each an environment variable).
    pub fn env_var(&self, name: &str, at: &At) -> Option<GroovyVal> {
        let mut best: Option<usize> = None;
        if let Some(list) = self.envs.get(name) {
            if list.len() > MAX_RECS {
                return Some(GroovyVal::dynamic(format!(
                    "`{name}` is set in more than {MAX_RECS} places"
                )));
            }
            for &r in list {
                let rec = &self.recs[r];
                if !self.anc(rec.block, at.block) || (at.strict && rec.pos >= at.p) || r >= at.limit {
                    continue;
                }
                let better = best.is_none_or(|b| {
                    let (ob, nb) = (
                        self.blocks[self.recs[b].block as usize].open,
                        self.blocks[rec.block as usize].open,
                    );
                    nb > ob || (nb == ob && rec.pos > self.recs[b].pos)
                });
                if better {
                    best = Some(r);
                }
            }
        }
        let best_open = best.map(|b| self.blocks[self.recs[b].block as usize].open);
        let unknown = self
            .unknown_env
            .iter()
            .take(MAX_RECS + 1)
            .enumerate()
            .any(|(n, &u)| {
                n >= MAX_RECS
                    || (self.anc(u, at.block) && best_open.is_none_or(|o| self.blocks[u as usize].open > o))
            });
        if unknown {
            return Some(GroovyVal::dynamic(format!(
                "`{name}` may be set by a `withEnv` or `withCredentials` list that is not known statically"
            )));
        }
        let scoped = best.map(|b| self.val(b, at));
        let assigned = self.var(&format!("env.{name}"), at);
        match (scoped, assigned) {
            (Some(a), Some(b)) => Some(if a.v == b.v || same_text(&a.v, &b.v) {
                a
            } else {
                GroovyVal::dynamic(format!(
                    "`{name}` is set both in an environment block and by `env.{name} = …`, to different values"
                ))
            }),
            (Some(v), None) | (None, Some(v)) => Some(v),
            (None, None) => self.param(name),
        }
    }

    /// A build parameter's default.
    pub fn param(&self, name: &str) -> Option<GroovyVal> {
        let list = self.params.get(name)?;
        let mut out: Option<(String, Option<Span>)> = None;
        for d in list {
            match d {
                Err(why) => return Some(GroovyVal::dynamic(why.clone())),
                Ok((t, span)) => match &out {
                    Some((t0, _)) if t0 != t => {
                        return Some(GroovyVal::dynamic(format!(
                            "the parameter `{name}` is defined with different defaults"
                        )));
                    }
                    Some(_) => {}
                    None => out = Some((t.clone(), *span)),
                },
            }
        }
        let (t, span) = out?;
        Some(GroovyVal {
            v: ScriptVal::known(t, span),
            default_of: Some(name.to_string()),
        })
    }

    /// The value of the Groovy expression `expr` (an interpolation's, an assignment's):
    /// `X`, `env.X`, `params.X`; anything else is not known.
    pub fn expr(&self, expr: &str, at: &At) -> GroovyVal {
        let t = expr.trim();
        if let Some(n) = t.strip_prefix("env.").filter(|n| is_ident(n)) {
            return self.env_var(n, at).unwrap_or_else(|| {
                GroovyVal::dynamic(format!(
                    "`env.{n}` is not set in this file (Jenkins or the agent sets it)"
                ))
            });
        }
        if let Some(n) = t.strip_prefix("params.").filter(|n| is_ident(n)) {
            return self.param(n).unwrap_or_else(|| {
                GroovyVal::dynamic(format!(
                    "`params.{n}` is a build parameter this file gives no default"
                ))
            });
        }
        if is_ident(t) {
            if self.credential(t, at) {
                return GroovyVal::dynamic(format!("`{t}` is a credential here, never read statically"));
            }
            return self
                .var(t, at)
                .or_else(|| self.env_var(t, at))
                .unwrap_or_else(|| GroovyVal::dynamic(format!("`{t}` is not set in this file")));
        }
        GroovyVal::dynamic("it is computed when the pipeline runs")
    }

    /// Whether `name` is a secret at `at`: an `environment` entry `credentials(…)` or a
    /// `withCredentials` variable of a block around it (Groovy's `X` is taken for it too,
    /// even when a Groovy variable of that name exists).
    fn credential(&self, name: &str, at: &At) -> bool {
        let Some(list) = self.envs.get(name) else {
            return false;
        };
        list.len() > MAX_RECS
            || list.iter().any(|&r| {
                matches!(self.recs[r].rhs, Rhs::Credential) && self.anc(self.recs[r].block, at.block)
            })
    }

    fn rhs(&self, rhs: &Rhs, at: &At) -> GroovyVal {
        match rhs {
            Rhs::Str(s) => self.string(*s as usize, at),
            Rhs::WithEnv(s, skip) => {
                let mut v = self.string(*s as usize, at);
                if let ScriptVal::Known { text, literal } = &mut v.v {
                    if text.len() < *skip {
                        return GroovyVal::dynamic("a `withEnv` entry whose name is not known");
                    }
                    *text = text[*skip..].to_string();
                    *literal = literal.map(|l| Span::new(l.start + *skip as u32, l.end));
                }
                v
            }
            Rhs::Lit(a, b) => GroovyVal::known(&self.text[*a as usize..*b as usize], Some(Span::new(*a, *b))),
            Rhs::Expr(e) => self.expr(e, at),
            Rhs::Credential => GroovyVal::dynamic("it is a credential, never read statically"),
            Rhs::Dynamic(why) => GroovyVal::dynamic(why.clone()),
        }
    }

    /// The value of the string of index `s` at `at`, its interpolations resolved.
    fn string(&self, s: usize, at: &At) -> GroovyVal {
        let Some(gs) = self.strings.get(s) else {
            return GroovyVal::dynamic("no such string");
        };
        let (code, interps) = decode(self.text, gs);
        let vals: Vec<GroovyVal> = interps
            .iter()
            .map(|sp| self.expr(interp_expr(self.text, *sp), at))
            .collect();
        let raw = self.text.get(gs.start..gs.end.min(self.text.len())).unwrap_or("");
        let whole = Span::new(gs.start as u32, gs.end as u32);
        substitute(
            &code.text,
            &interps,
            &vals,
            self.text,
            |_| true,
            raw == code.text,
            whole,
        )
    }
}

fn same_text(a: &ScriptVal, b: &ScriptVal) -> bool {
    matches!((a, b), (ScriptVal::Known { text: x, .. }, ScriptVal::Known { text: y, .. }) if x == y)
}

/// `code` (a decoded string, or a literal part of a script) with each interpolation's
/// marker replaced by its value (`vals`, in order, for the spans `interps`): unknown when
/// one is, or when `fits` refuses a value. `exact`: `code` without interpolations is the
/// file's text at `whole` (its literal).
pub fn substitute(
    code: &str,
    interps: &[Span],
    vals: &[GroovyVal],
    text: &str,
    fits: impl Fn(&str) -> bool,
    exact: bool,
    whole: Span,
) -> GroovyVal {
    let markers = code.matches(INTERP_OPEN).count();
    if markers == 0 {
        return GroovyVal::known(code, exact.then_some(whole));
    }
    if markers != vals.len() {
        return GroovyVal::dynamic("its Groovy interpolations are not all read");
    }
    let mut out = String::new();
    let mut default_of = None;
    let mut k = 0;
    let mut skipping = false;
    for c in code.chars() {
        if c == INTERP_OPEN {
            let v = &vals[k];
            let written = text.get(interps[k].range()).unwrap_or("$…");
            k += 1;
            skipping = true;
            match &v.v {
                ScriptVal::Dynamic(why) => {
                    return GroovyVal::dynamic(format!(
                        "`{written}` is a Groovy expression, replaced when the pipeline runs: {why}"
                    ));
                }
                ScriptVal::Known { text: t, .. } => {
                    if !fits(t) {
                        return GroovyVal::dynamic(format!(
                            "`{written}` is `{t}`, which the shell reads again (it splits or expands it)"
                        ));
                    }
                    out.push_str(t);
                    default_of = default_of.or_else(|| v.default_of.clone());
                }
            }
        } else if c == INTERP_CLOSE && skipping {
            skipping = false;
        } else if !skipping {
            out.push(c);
        }
        if out.len() > MAX_VALUE {
            return GroovyVal::dynamic(format!("its value is longer than {MAX_VALUE} bytes"));
        }
    }
    // One interpolation and nothing else: its literal is the value's.
    let literal = match (vals, code.chars().count()) {
        ([v], 2) => match &v.v {
            ScriptVal::Known { literal, .. } => *literal,
            ScriptVal::Dynamic(_) => None,
        },
        _ => None,
    };
    GroovyVal {
        v: ScriptVal::known(out, literal),
        default_of,
    }
}
