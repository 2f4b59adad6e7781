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
//! Bounds: tokens are read once, blocks and brackets on explicit stacks; values are
//! computed once each in file order, each reading only values before it (no recursion);
//! at most [`MAX_RECS`] assignments of one name are weighed and [`MAX_WALK`] blocks walked
//! up for one question (beyond: unknown); a value longer than `MAX_VALUE` is unknown.

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

/// The entries of a `withEnv` list whose `)` is at a token: (name, string, bytes before
/// the value), and whether the list is all such entries.
type WithEnvList = (u32, Vec<(String, u32, usize)>, bool);

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
    /// The `)` just read closed this header.
    closed: Option<Header>,
    /// A `withEnv` list read: the entries, for the next block.
    with_env: Option<WithEnvList>,
    /// A `dir(…)` read (its `)`'s token): the directory, for the next block.
    dir_arg: Option<(u32, Result<String, String>)>,
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

    /// Whether the token at `k` ends a statement (or there is none).
    fn ends(&self, k: usize) -> bool {
        match self.toks.get(k) {
            None | Some(Tok::Newline) => true,
            Some(Tok::Punct(i)) => matches!(self.byte(*i), b';' | b'}'),
            _ => false,
        }
    }

    fn run(mut self) -> Self {
        let mut k = 0;
        while k < self.toks.len() {
            let t = self.toks[k];
            match t {
                Tok::Newline if !matches!(self.opens.last(), Some(Open::Paren(_) | Open::Bracket)) => {
                    self.bare_decl(k);
                    self.stmt = k + 1;
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
                self.stmt = k + 1;
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
                        if h.word
                            .is_some_and(|(a, b)| self.text.get(a as usize..b as usize) == Some("withEnv"))
                        {
                            self.with_env(&h, k);
                        }
                        match h.word.and_then(|(a, b)| self.text.get(a as usize..b as usize)) {
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
                self.stmt = k + 1;
            }
            b'=' => self.equals(k, i),
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
        let mut h = Header::default();
        let Some(&prev @ Tok::Word(a, b)) = k.checked_sub(1).and_then(|j| self.toks.get(j)) else {
            return h;
        };
        let w = word(self.text, prev).unwrap_or("");
        h.word = Some((a, b));
        h.params = w == "parameters";
        // `def name(`, `String name(`: a method (only words since the statement started).
        let words = k - 1 - self.stmt.min(k - 1);
        h.method = words >= 1
            && self.toks[self.stmt..k].iter().all(|t| matches!(t, Tok::Word(..)))
            && word(self.text, self.toks[self.stmt]).is_some_and(decl_word);
        h.declares = h.method || matches!(w, "for" | "catch");
        if h.declares {
            // The names: a word followed by `,`, `)`, `=`, `:` or `in`, at this depth, in a
            // few tokens.
            let mut depth = 0usize;
            for j in k + 1..(k + 1 + MAX_PARAM_TOKENS).min(self.toks.len()) {
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
        self.stmt = k + 1;
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
            for (name, s, skip) in entries {
                let pos = self.strings.get(s as usize).map_or(i, |g| g.open as u32);
                self.recs.push(Rec {
                    name,
                    pos,
                    block: id,
                    kind: RecKind::Env,
                    rhs: Rhs::WithEnv(s, skip),
                });
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
                            entries.push((name.to_string(), s, name.len() + 1));
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
        self.recs.push(Rec {
            name: name.to_string(),
            pos,
            block,
            kind: RecKind::Var { decl, cond },
            rhs,
        });
    }

    /// An `=` at token `k` (byte `i`): an assignment, a declaration or an environment entry.
    fn equals(&mut self, k: usize, i: u32) {
        if matches!(self.opens.last(), Some(Open::Paren(_) | Open::Bracket)) {
            return;
        }
        let next = self.byte(i + 1);
        let prev = if i > 0 { self.byte(i - 1) } else { 0 };
        if matches!(next, b'=' | b'~') || matches!(prev, b'=' | b'!') {
            return;
        }
        // Directly after an operator: `+=`, `<<=`, `?=`...; `<=`, `>=` compare.
        let compound = match prev {
            b'<' | b'>' => {
                if i >= 2 && self.byte(i - 2) == prev {
                    true
                } else {
                    return;
                }
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'?' => true,
            _ => false,
        };
        let target_at = if compound {
            k.checked_sub(2)
        } else {
            k.checked_sub(1)
        };
        let Some(target_at) = target_at else { return };
        let Some(target @ Tok::Word(tpos, _)) = self.toks.get(target_at).copied() else {
            return;
        };
        let name = word(self.text, target).unwrap_or("").to_string();
        let block = self.cur();
        let stmt = &self.toks[self.stmt.min(target_at)..target_at];
        let env_dot = target_at >= 2
            && self.punct_at(target_at - 1, b'.')
            && word(self.text, self.toks[target_at - 2]) == Some("env");
        let member = target_at >= 1 && self.punct_at(target_at - 1, b'.');
        let rhs = if compound {
            Rhs::Dynamic(format!(
                "`{name}` is changed by an operator (`{}=`)",
                prev as char
            ))
        } else {
            self.rhs(k + 1, &name)
        };
        if self.blocks[block as usize].kind == Kind::Env {
            // `environment { NAME = value }`: the enclosing block's environment.
            if stmt.is_empty() && !member {
                let scope = self.blocks[block as usize].parent;
                self.recs.push(Rec {
                    name,
                    pos: tpos,
                    block: scope,
                    kind: RecKind::Env,
                    rhs,
                });
            }
            return;
        }
        if env_dot {
            let at_start = target_at - 2 == self.stmt;
            let name = format!("env.{name}");
            self.push_var(&name, tpos, block, false, !at_start, rhs);
            return;
        }
        if member {
            return;
        }
        // `@Field`, then words: the last is the name, the others a declaration's.
        let (field, words) = match stmt {
            [Tok::Punct(p), f @ Tok::Word(..), rest @ ..]
                if self.byte(*p) == b'@' && word(self.text, *f) == Some("Field") =>
            {
                (true, rest)
            }
            _ => (false, stmt),
        };
        let all_words = words.iter().all(|t| matches!(t, Tok::Word(..)));
        if all_words {
            let decl =
                !compound && !field && !words.is_empty() && word(self.text, words[0]).is_some_and(decl_word);
            self.push_var(&name, tpos, block, decl, false, rhs);
        } else {
            // Not at a statement's start (`if (c) X = …`, `a = b = …`): it may run or not.
            self.push_var(&name, tpos, block, false, true, rhs);
        }
    }

    /// The value after the `=` at token `k - 1`, for `name`.
    fn rhs(&self, mut k: usize, name: &str) -> Rhs {
        while matches!(self.toks.get(k), Some(Tok::Newline)) {
            k += 1;
        }
        let Some(&t) = self.toks.get(k) else {
            return Rhs::Dynamic(format!("`{name}` is assigned nothing"));
        };
        match t {
            Tok::Str(s) if self.ends(k + 1) => return Rhs::Str(s),
            Tok::Num(a, b) if self.ends(k + 1) => return Rhs::Lit(a, b),
            Tok::Word(a, b) => {
                let w = word(self.text, t).unwrap_or("");
                if matches!(w, "true" | "false") && self.ends(k + 1) {
                    return Rhs::Lit(a, b);
                }
                if w == "credentials" {
                    return Rhs::Dynamic(format!("`{name}` is a credential, never read statically"));
                }
                if w != "null" && w != "new" {
                    if self.ends(k + 1) {
                        return Rhs::Expr(w.to_string());
                    }
                    if self.punct_at(k + 1, b'.')
                        && let Some(m) = self.toks.get(k + 2).and_then(|t| word(self.text, *t))
                        && self.ends(k + 3)
                    {
                        return Rhs::Expr(format!("{w}.{m}"));
                    }
                }
            }
            _ => {}
        }
        let start = tok_pos(self.strings, t) as usize;
        let mut end = (start + 40).min(self.text.len());
        end = super::super::common::line_end(self.text.as_bytes(), start).min(end);
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
            closed: None,
            with_env: None,
            dir_arg: None,
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
            return GroovyVal::dynamic(format!(
                "`{}` may be set after this (in a loop, a closure or a method)",
                self.recs[r].name
            ));
        }
        self.vals[r].clone()
    }

    /// The value of the Groovy variable `name` (or `env.X`) at `at`: `None` when no
    /// assignment reaches it.
    fn var(&self, name: &str, at: &At) -> Option<GroovyVal> {
        let list = self.vars.get(name)?;
        if list.len() > MAX_RECS {
            return Some(GroovyVal::dynamic(format!(
                "`{name}` is assigned more than {MAX_RECS} times"
            )));
        }
        let target = self.visible_decl(list, at.p, at.block);
        let relevant: Vec<usize> = list
            .iter()
            .copied()
            .filter(|&r| self.targets[r] == target)
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
                "`{name}` may be set by a `withEnv` list that is not known statically"
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
            return self
                .var(t, at)
                .or_else(|| self.env_var(t, at))
                .unwrap_or_else(|| GroovyVal::dynamic(format!("`{t}` is not set in this file")));
        }
        GroovyVal::dynamic("it is computed when the pipeline runs")
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
