//! Command lines as data: a small tokenizer of shell (bash), PowerShell and cmd text into
//! commands of words, every part of a word with its byte span in the defining file, for
//! reading `az ml compute create` without running anything. It knows quoting, escapes and
//! line continuations (`\`, PowerShell's backtick, cmd's caret), comments, separators
//! (`;`, `&&`, `||`, `|`, newlines), redirections and here-documents, the blocks a command
//! sits in (`if`, loops, functions, braces), and marks every expansion it cannot resolve
//! as what it is (a variable, a template expression, a command's output) for the caller to
//! resolve or record as dynamic. Linear in its input, no recursion the input controls
//! (nested `${VAR:-default}`s are read to a fixed depth).

use crate::source::Span;

/// Which shell's syntax.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    #[default]
    Bash,
    PowerShell,
    Cmd,
}

/// How a region is read.
#[derive(Clone, Copy, Debug)]
pub struct LexOptions {
    pub dialect: Dialect,
    /// A newline ends a command (false in a YAML folded or plain scalar, whose lines are
    /// joined by spaces).
    pub newlines: bool,
    /// `$(name)` is an Azure Pipelines macro, not a command substitution.
    pub macros: bool,
    /// A Makefile recipe: `$(NAME)` and `${NAME}` are make variables, `$$` is the shell's
    /// `$`.
    pub make: bool,
    /// Which commands to keep, asked with the first [`DECIDE_AT`] words of each (or all
    /// of a shorter one): a reader keeps only those it reads, so that megabytes of other
    /// commands cost no memory. `None`: all.
    pub keep: Option<fn(&[Word]) -> Keep>,
}

/// What a reader does with a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    Drop,
    /// It sets variables: kept up to [`MAX_VAR_COMMANDS`] (then [`Script::vars_cut`]).
    Vars,
    /// It is read: kept.
    Read,
}

/// How many words of a command [`LexOptions::keep`] is asked about.
pub const DECIDE_AT: usize = 10;

/// Commands that set variables kept at most; what later ones set is not known.
pub const MAX_VAR_COMMANDS: usize = 20_000;

/// A command of more words is not kept (no definition has thousands of options).
pub const MAX_WORDS: usize = 4_096;

impl LexOptions {
    pub fn new(dialect: Dialect) -> Self {
        LexOptions {
            dialect,
            newlines: true,
            macros: false,
            make: false,
            keep: None,
        }
    }
}

/// Where the region's bytes are in the defining file.
#[derive(Clone, Copy)]
pub enum Map<'a> {
    /// The region starts at this offset and is the file's text as it is.
    Base(u32),
    /// The file offset of each byte of the region, and one past its end (text decoded
    /// from a JSON string).
    Table(&'a [u32]),
    /// A notebook's code from this offset of it on (`ipynb::Code`: code cells decoded from
    /// their JSON strings).
    Code(&'a super::ipynb::Code, usize),
}

impl<'a> Map<'a> {
    /// The map of the region from its byte `from` on.
    fn from(&self, from: usize) -> Map<'a> {
        match *self {
            Map::Base(b) => Map::Base(b.saturating_add(from as u32)),
            Map::Table(t) => Map::Table(t.get(from..).unwrap_or(&[])),
            Map::Code(code, base) => Map::Code(code, base + from),
        }
    }

    fn at(&self, i: usize) -> u32 {
        match self {
            Map::Base(b) => b.saturating_add(i as u32),
            Map::Table(t) => t.get(i).or(t.last()).copied().unwrap_or(0),
            Map::Code(code, base) => code.file_offset(base + i, false) as u32,
        }
    }

    /// Where the region's bytes `[start, end)` are in the file.
    fn span(&self, start: usize, end: usize) -> Span {
        match self {
            Map::Code(code, base) => code.span(base + start, base + end),
            _ => Span::new(self.at(start), self.at(end)),
        }
    }
}

/// What a variable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarScope {
    /// A shell variable (bash, PowerShell, cmd), which may come from the environment.
    Shell,
    /// PowerShell's `$env:NAME`.
    Env,
    /// A make variable (`$(NAME)` in a Makefile recipe).
    Make,
    /// A positional parameter (`$1`, cmd's `%1`).
    Positional,
}

/// A piece of a word.
#[derive(Clone, Debug, PartialEq)]
pub enum WordPart {
    /// Literal text; `exact` when `span` holds exactly `text` (no escape, continuation or
    /// quote removed inside it).
    Lit { text: String, span: Span, exact: bool },
    /// `$NAME`, `${NAME}`, `${NAME:-default}`, `$env:NAME`, `%NAME%`, `$(NAME)` of make.
    Var {
        name: String,
        span: Span,
        scope: VarScope,
        /// `${NAME:-default}` and `${NAME-default}`: the value when unset.
        default: Option<Vec<WordPart>>,
    },
    /// `${{ ... }}`: a GitHub Actions or Azure Pipelines template expression (trimmed).
    Expr { text: String, span: Span },
    /// `$(name)` in an Azure Pipelines script: a variable macro.
    Macro { name: String, span: Span },
    /// Something only known when it runs: a command's output, arithmetic, a substring.
    Dynamic { span: Span, why: &'static str },
}

impl WordPart {
    pub fn span(&self) -> Span {
        match self {
            WordPart::Lit { span, .. }
            | WordPart::Var { span, .. }
            | WordPart::Expr { span, .. }
            | WordPart::Macro { span, .. }
            | WordPart::Dynamic { span, .. } => *span,
        }
    }
}

/// A word of a command.
#[derive(Clone, Debug, PartialEq)]
pub struct Word {
    pub parts: Vec<WordPart>,
    /// The whole word as written, quotes included.
    pub span: Span,
}

impl Word {
    /// The text when the word is all literal.
    pub fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                WordPart::Lit { text, .. } => out.push_str(text),
                _ => return None,
            }
        }
        Some(out)
    }

    /// From its first part to its last (without the quotes around it).
    pub fn inner_span(&self) -> Span {
        match (self.parts.first(), self.parts.last()) {
            (Some(a), Some(b)) => a.span().cover(b.span()),
            _ => self.span,
        }
    }
}

/// One simple command.
#[derive(Clone, Debug, PartialEq)]
pub struct ShellCommand {
    pub words: Vec<Word>,
    pub span: Span,
    /// How many blocks it sits in (`if`, `case`, loops, functions, braces, subshells).
    pub depth: u32,
    /// It runs only if the command before it did or did not succeed (`a && b`), or in a
    /// pipeline.
    pub chained: bool,
    /// The innermost block it sits in (an index of [`Script::blocks`]; `None`: the top
    /// level).
    pub block: Option<u32>,
    /// Its and-or list (`a && b || c`): commands of one list share the number.
    pub list: u32,
    /// It is part of a pipeline that runs in processes of its own (bash, cmd): what it
    /// changes in the shell (`cd`) does not outlive it.
    pub isolated: bool,
}

/// What a block is, for what a `cd` inside it does to the commands after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// bash `if ... fi`, `case ... esac`: its branches are [`BlockKind::Branch`]es.
    Choice,
    /// One branch of a `Choice` (`then`, `else`, `elif`, a `case` item).
    Branch,
    /// bash `for`, `while`, `until`, `select`.
    Loop,
    /// bash `{ ... }`: a group or a function's body.
    Group,
    /// bash `( ... )`: a subshell.
    Subshell,
    /// PowerShell's and cmd's `( )` and `{ }`.
    Other,
}

/// A block of a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    pub parent: Option<u32>,
    /// The blocks inside it are those whose index is below this one (and above its own);
    /// `u32::MAX` while open.
    pub end: u32,
    /// Where it opens in the file.
    pub at: u32,
}

/// Blocks recorded at most; commands in later ones are in none known
/// ([`Script::blocks_cut`]).
pub const MAX_BLOCKS: usize = 100_000;

impl ShellCommand {
    /// Inside a block or after `&&`/`||`: it may not run.
    pub fn conditional(&self) -> bool {
        self.depth > 0 || self.chained
    }
}

/// A comment: from its marker to the end of its line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShellComment {
    pub span: Span,
    /// Nothing but whitespace before it on its line.
    pub own_line: bool,
    /// Where the next word after it starts (what a comment on its own line covers).
    pub next_code: Option<u32>,
}

/// The commands and comments of a region.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    pub commands: Vec<ShellCommand>,
    pub comments: Vec<ShellComment>,
    /// Where the first command setting variables that was not kept starts (beyond
    /// [`MAX_VAR_COMMANDS`], or of more than [`MAX_WORDS`] words): no variable is known
    /// after it.
    pub vars_cut: Option<u32>,
    /// The blocks commands sit in, in the order they open.
    pub blocks: Vec<Block>,
    /// Where the first block beyond [`MAX_BLOCKS`] opens: which blocks the commands after
    /// it sit in is not known.
    pub blocks_cut: Option<u32>,
    pub dialect: Dialect,
    /// Read with [`LexOptions::macros`] and [`LexOptions::make`]: how text of it read again
    /// (a command built in a variable, run by `eval`) is read.
    pub macros: bool,
    pub make: bool,
    /// The shell functions it defines (bash `name() {` and `function name {`; PowerShell's
    /// `function Name {` and `function Name(...) {`), in order.
    pub functions: Vec<Function>,
    /// The parameters of a PowerShell script's own `param(...)` block.
    pub params: Vec<PsParam>,
    /// A bash command outside every function runs the script's arguments (`"$@"` first,
    /// as [`Function::runs_args`]): `bash tool.sh setup_compute` runs that function.
    pub runs_args: bool,
}

/// A parameter a PowerShell `param(...)` block, or a function's `(...)` list, declares.
#[derive(Clone, Debug, PartialEq)]
pub struct PsParam {
    pub name: String,
    /// Where `$Name` is written.
    pub span: Span,
    /// It has a default: the value of the assignment command the tokenizer makes of it,
    /// which starts at `span.start`.
    pub default: bool,
    /// `[switch]`: given by its name alone.
    pub switch: bool,
    /// `[Parameter(Mandatory)]` (not `Mandatory = $false`).
    pub mandatory: bool,
    /// `[Parameter(Position = N)]`: its position is not its place in the list.
    pub positioned: bool,
    /// `[Alias("n", ...)]`, lower-cased.
    pub aliases: Vec<String>,
}

/// A bash function a script defines.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// Where its body opens in the file.
    pub at: u32,
    /// Its body runs its arguments as a command: a command of it (not of a function inside
    /// it) starts with `"$@"` (or `$@`, `"${@:N}"`), alone or after the words a command
    /// may follow ([`RUNS_NEXT`]).
    pub runs_args: bool,
    /// Where its body closes in the file (`u32::MAX`: it does not).
    pub end: u32,
    /// How many blocks the commands written directly in its body sit in.
    pub depth: u32,
    /// A PowerShell function's parameters (its `param(...)` block or `(...)` list).
    pub params: Vec<PsParam>,
}

/// What a bash `$@` expands to, as a word's part ([`WordPart::Dynamic`]'s `why`).
pub const ARGS: &str = "the arguments of the script or function";

/// What a bash `${NAME[@]}` (or `${NAME[*]}`) expands to, as a word's part
/// ([`WordPart::Dynamic`]'s `why`).
pub const ARRAY: &str = "the elements of an array";

/// What a bash array assignment's `(...)` is, as a word's part ([`WordPart::Dynamic`]'s
/// `why`): `NAME=(a b c)`.
pub const ARRAY_VALUE: &str = "an array";

/// What a bash `${NAME...}` with an operator after its name is (`${NAME[0]}`,
/// `${NAME[@]:0:2}`, `${NAME^^}`, `${NAME/a/b}`...), as a word's part
/// ([`WordPart::Dynamic`]'s `why`).
pub const SUBSTITUTION: &str = "a substring or substitution of a variable";

/// What bash's special parameters are (`$#`, `$?`, `$$`, `${#NAME}`, `${!NAME}`), as a
/// word's part ([`WordPart::Dynamic`]'s `why`).
pub const SPECIAL: &str = "a special shell parameter";

/// What bash's `$((...))` is, as a word's part ([`WordPart::Dynamic`]'s `why`).
pub const ARITHMETIC: &str = "an arithmetic expression";

/// Words after which the next word of a command is the command run: keywords (`if`,
/// `while`, `until`, `!`, `time`) and builtins or programs that run the rest (`command`,
/// `exec`, `sudo`, cmd's `call`).
pub const RUNS_NEXT: &[&str] = &[
    "sudo", "call", "exec", "command", "time", "!", "then", "do", "else", "if", "elif", "while", "until",
];

/// Deepest command substitution (`$(...)`, `` `...` ``) whose commands are read; deeper
/// ones are only their output.
pub const MAX_SUBSTITUTION_DEPTH: usize = 4;

/// Functions recorded at most.
const MAX_FUNCTIONS: usize = 10_000;

/// A command substitution to read once the text around it is ([`parse`]).
struct Nested {
    /// Its text: `[from, to)` of the region.
    from: usize,
    to: usize,
    /// How many substitutions it sits in (1: in none but itself).
    level: usize,
    /// What the command it is part of is: its depth in blocks, whether it is chained, its
    /// innermost block and its and-or list.
    depth: u32,
    chained: bool,
    block: Option<u32>,
    list: u32,
}

/// Reads a whole script file's `text` (a byte-order mark is not part of the first
/// command).
pub fn parse_file(text: &str, options: LexOptions) -> Script {
    let skip = if text.starts_with('\u{feff}') { 3 } else { 0 };
    parse(&text[skip..], Map::Base(skip as u32), options)
}

/// Reads `text` (a region of the defining file placed by `map`). The commands of its
/// command substitutions (to [`MAX_SUBSTITUTION_DEPTH`]) are read after it, one at a time
/// from a queue (no recursion), as commands of the command they are part of that run in
/// a subshell of their own; the commands are then in the order they start.
pub fn parse(text: &str, map: Map<'_>, options: LexOptions) -> Script {
    let b = text.as_bytes();
    let mut lexer = Lexer::new(b, map, options, 0);
    lexer.run();
    let mut queue = std::mem::take(&mut lexer.nested);
    let mut vars_kept = lexer.vars_kept;
    let mut script = lexer.script;
    let mut added = false;
    while let Some(n) = queue.pop() {
        let mut sub = Lexer::new(&b[n.from..n.to], map.from(n.from), options, n.level);
        sub.vars_kept = vars_kept;
        sub.run();
        vars_kept = sub.vars_kept;
        queue.extend(sub.nested.drain(..).map(|m| Nested {
            from: m.from + n.from,
            to: m.to + n.from,
            ..m
        }));
        if let Some(cut) = sub.script.vars_cut {
            script.vars_cut = Some(script.vars_cut.map_or(cut, |c| c.min(cut)));
        }
        for mut c in sub.script.commands {
            c.depth += n.depth;
            c.chained |= n.chained;
            c.block = n.block;
            c.list = n.list;
            c.isolated = true;
            script.commands.push(c);
            added = true;
        }
    }
    if added {
        script.commands.sort_by_key(|c| c.span.start);
    }
    script
}

/// The `=` word of an assignment PowerShell writes in another form (a `param(...)`
/// default, `if (-not $X) { $X = "d" }`) read as `X = value`, at `span`; `exact` when the
/// span holds exactly `=`.
fn equals_word(span: Span, exact: bool) -> Word {
    Word {
        parts: vec![WordPart::Lit {
            text: "=".into(),
            span,
            exact,
        }],
        span,
    }
}

impl<'a> Lexer<'a> {
    fn new(b: &'a [u8], map: Map<'a>, options: LexOptions, level: usize) -> Self {
        let mut lexer = Lexer {
            b,
            map,
            o: options,
            level,
            nested: Vec::new(),
            fn_bodies: Vec::new(),
            fn_names: Default::default(),
            function_header: None,
            ps_pending: None,
            ps_read_to: 0,
            in_string: false,
            script: Script::default(),
            words: Vec::new(),
            word: None,
            blocks: Vec::new(),
            block_ids: Vec::new(),
            list: 0,
            in_pipe: false,
            chained: false,
            skip_word: false,
            heredocs: Vec::new(),
            awaiting: Vec::new(),
            nest: 0,
            decided: None,
            vars_kept: 0,
            discarding: false,
            line_seen: (0, true),
        };
        lexer.script.dialect = options.dialect;
        lexer.script.macros = options.macros;
        lexer.script.make = options.make;
        lexer
    }
}

/// A PowerShell parameter list read ([`Lexer::ps_param_list`]): its parameters, where it
/// opens, and the assignment commands of their defaults.
type PsList = (Vec<PsParam>, u32, Vec<Vec<Word>>);

/// Parameters read in one PowerShell list at most (more: the list is read as before).
const MAX_PS_PARAMS: usize = 256;

/// Deepest nesting of `${A:-${B:-...}}` read; deeper defaults are dynamic.
const MAX_DEFAULT_DEPTH: usize = 4;

/// A word being built.
struct WordBuild {
    start: usize,
    parts: Vec<WordPart>,
    /// Literal bytes not yet a part: (start, bytes, exact).
    lit: Option<(usize, Vec<u8>, bool)>,
}

struct Lexer<'a> {
    b: &'a [u8],
    map: Map<'a>,
    o: LexOptions,
    /// How many command substitutions the region sits in.
    level: usize,
    /// Its command substitutions, to read after it.
    nested: Vec<Nested>,
    /// For each open block, the function whose body it is (an index of
    /// [`Script::functions`]).
    fn_bodies: Vec<Option<u32>>,
    /// The names of the bash functions defined so far: a command calling one is kept
    /// ([`Keep::Read`]), for the definitions its body makes from its arguments.
    fn_names: std::collections::HashSet<String>,
    /// The name of the function whose header the command just ended was (`f()`,
    /// `function f`), for the `{` that opens its body.
    function_header: Option<String>,
    /// A PowerShell `function Name(...)` list read before its body's `{`: the parameters,
    /// where the list opens, and the commands of their defaults.
    ps_pending: Option<PsList>,
    /// How far a parameter list that was not one was read ([`Lexer::ps_param_list`]).
    ps_read_to: usize,
    /// A `$` being read is inside a double-quoted string (PowerShell's `"$args[0]"` is
    /// `$args` then `[0]`).
    in_string: bool,
    script: Script,
    words: Vec<Word>,
    word: Option<WordBuild>,
    /// Open blocks: `i`f, `c`ase, `l`oop, `b`race, `p`aren.
    blocks: Vec<u8>,
    /// Each open block's record in `script.blocks` (an `if`'s or `case`'s: its current
    /// branch's; `u32::MAX`: not recorded).
    block_ids: Vec<u32>,
    /// The number of the and-or list being read.
    list: u32,
    /// The command being read follows a `|`.
    in_pipe: bool,
    chained: bool,
    /// The next word is a redirection's target.
    skip_word: bool,
    /// Here-documents whose bodies start after the current line: delimiters.
    heredocs: Vec<Vec<u8>>,
    /// Comments waiting for the next word.
    awaiting: Vec<usize>,
    /// How deep in `${A:-...}` defaults the text being read is (a quoted default's own
    /// expansions are as deep as it).
    nest: usize,
    /// What [`LexOptions::keep`] said of the command being read, once asked.
    decided: Option<Keep>,
    /// Commands setting variables kept so far.
    vars_kept: usize,
    /// The command being read is not kept ([`LexOptions::keep`]): its words are dropped.
    discarding: bool,
    /// How far [`Lexer::alone_on_line`] has looked, and whether the line so far held only
    /// blanks.
    line_seen: (usize, bool),
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The first byte of `b` from `j` on that is not whitespace (PowerShell read by hand: the
/// `if` idioms of defaults).
fn ps_blank(b: &[u8], mut j: usize) -> usize {
    while b.get(j).is_some_and(u8::is_ascii_whitespace) {
        j += 1;
    }
    j
}

/// Past the byte `c` at `j` of `b`, if it is there.
fn ps_punct(b: &[u8], j: usize, c: u8) -> Option<usize> {
    (b.get(j) == Some(&c)).then_some(j + 1)
}

/// A default written at `j` of `b`: a quoted string without expansions or escapes, or a
/// number; where its text starts and ends, and where it ends with its quotes.
fn ps_plain_default(b: &[u8], j: usize) -> Option<(usize, usize, usize)> {
    match b.get(j)? {
        &q @ (b'"' | b'\'') => {
            let len = b[j + 1..].iter().position(|&c| c == q || c == b'\n')?;
            let end = j + 1 + len;
            if b[end] != q || b[j + 1..end].iter().any(|&c| matches!(c, b'$' | b'`')) {
                return None;
            }
            Some((j + 1, end, end + 1))
        }
        _ => {
            let len = b[j..].iter().position(|&c| !(c.is_ascii_digit() || c == b'.'))?;
            (len > 0).then_some((j, j + len, j + len))
        }
    }
}

/// Where `$name` or `$scope:name` at `j` of `b` ends.
fn ps_var(b: &[u8], j: usize) -> Option<usize> {
    ps_punct(b, j, b'$')?;
    let mut k = j + 1;
    while b.get(k).is_some_and(|&c| is_name(c) || c == b':') {
        k += 1;
    }
    (k > j + 1 && b[k - 1] != b':').then_some(k)
}

impl<'a> Lexer<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        self.map.span(start, end)
    }

    fn peek(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    // --- words -------------------------------------------------------------------------

    fn word_mut(&mut self, at: usize) -> &mut WordBuild {
        if self.word.is_none() {
            let offset = self.map.at(at);
            for c in self.awaiting.drain(..) {
                self.script.comments[c].next_code = Some(offset);
            }
        }
        self.word.get_or_insert_with(|| WordBuild {
            start: at,
            parts: Vec::new(),
            lit: None,
        })
    }

    /// Appends literal bytes `[from, to)` of the input, written as `text`.
    fn lit(&mut self, from: usize, to: usize, text: &[u8], exact: bool) {
        let w = self.word_mut(from);
        match &mut w.lit {
            Some((_, bytes, ex)) => {
                bytes.extend_from_slice(text);
                *ex = *ex && exact;
            }
            None => w.lit = Some((from, text.to_vec(), exact)),
        }
        let _ = to;
    }

    fn flush_lit(&mut self, end: usize) {
        let Some(w) = &mut self.word else { return };
        if let Some((start, bytes, exact)) = w.lit.take() {
            let span = self.map.span(start, end);
            let w = self.word.as_mut().expect("a word");
            w.parts.push(WordPart::Lit {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                span,
                exact,
            });
        }
    }

    /// Marks the literal being built as not exact (an escape, a continuation inside it).
    fn inexact(&mut self) {
        if let Some(WordBuild {
            lit: Some((_, _, ex)),
            ..
        }) = &mut self.word
        {
            *ex = false;
        }
    }

    fn part(&mut self, at: usize, part: WordPart) {
        self.word_mut(at);
        self.flush_lit(at);
        self.word.as_mut().expect("a word").parts.push(part);
    }

    fn end_word(&mut self, end: usize) {
        self.flush_lit(end);
        let Some(w) = self.word.take() else { return };
        let word = Word {
            span: self.span(w.start, end),
            parts: w.parts,
        };
        if std::mem::take(&mut self.skip_word) {
            return;
        }
        // Keywords that open or close blocks, and those that merely continue one.
        if self.words.is_empty() && !self.discarding && self.o.dialect == Dialect::Bash {
            if let Some(k) = word.literal() {
                let opened = match k.as_str() {
                    "if" => Some(b'i'),
                    "case" => Some(b'c'),
                    "for" | "while" | "until" | "select" => Some(b'l'),
                    _ => None,
                };
                if let Some(kind) = opened {
                    self.open_block(kind, word.span.start);
                }
                let closes = match k.as_str() {
                    "fi" => Some(b'i'),
                    "esac" => Some(b'c'),
                    "done" => Some(b'l'),
                    _ => None,
                };
                if let Some(kind) = closes {
                    if let Some(at) = self.blocks.iter().rposition(|&k| k == kind) {
                        self.close_blocks(at, word.span.end);
                    }
                    return;
                }
                if matches!(k.as_str(), "else" | "elif") && self.blocks.last() == Some(&b'i') {
                    self.next_branch(word.span.start);
                }
                if matches!(k.as_str(), "then" | "do" | "else" | "elif" | "!" | "time") {
                    return;
                }
            }
        }
        if self.discarding {
            return;
        }
        if self.o.dialect == Dialect::Bash && self.runs_args(&word) {
            match self.fn_bodies.iter().rev().find_map(|f| *f) {
                Some(f) => {
                    if let Some(f) = self.script.functions.get_mut(f as usize) {
                        f.runs_args = true;
                    }
                }
                // Outside every function.
                None => self.script.runs_args = true,
            }
        }
        self.words.push(word);
        if self.words.len() == DECIDE_AT
            && let Some(keep) = self.o.keep
        {
            let k = self.called(keep(&self.words));
            self.decided = Some(k);
            if k == Keep::Drop {
                self.words.clear();
                self.discarding = true;
            }
        }
        if self.words.len() > MAX_WORDS {
            if self.decided != Some(Keep::Read) {
                let at = self.words[0].span.start;
                self.script.vars_cut.get_or_insert(at);
            }
            self.words.clear();
            self.discarding = true;
        }
    }

    /// What is done with the command being read, `keep` said: a call of a bash function
    /// the script defined before is read.
    fn called(&self, keep: Keep) -> Keep {
        match self.words.first().and_then(Word::literal) {
            Some(name) if keep == Keep::Drop && self.fn_names.contains(&fn_key(&name, self.o.dialect)) => {
                Keep::Read
            }
            _ => keep,
        }
    }

    /// The name of the function the command being read defines when it is a header
    /// (`name()`, `function name`, `function name()`), before its body's `{`.
    fn function_name(&self) -> Option<String> {
        let lit = |i: usize| self.words.get(i).and_then(Word::literal);
        let name = match (self.words.len(), lit(0).as_deref()) {
            (2, Some("function")) => lit(1)?,
            (_, _) => self
                .words
                .last()
                .and_then(Word::literal)
                .filter(|w| w.ends_with("()"))?,
        };
        let name = name.strip_suffix("()").unwrap_or(&name);
        (!name.is_empty()).then(|| name.to_string())
    }

    /// Whether `word`, about to be the next word of the command being read, is `"$@"` in
    /// the command's place: its first word, or after [`RUNS_NEXT`] words only.
    fn runs_args(&self, word: &Word) -> bool {
        matches!(word.parts.as_slice(), [WordPart::Dynamic { why, .. }] if *why == ARGS)
            && self
                .words
                .iter()
                .all(|w| w.literal().is_some_and(|l| RUNS_NEXT.contains(&l.as_str())))
    }

    /// Opens a block of kind `kind` (the lexer's letter) at file offset `at`.
    fn open_block(&mut self, kind: u8, at: u32) {
        let d = self.o.dialect;
        let parent = self.block_ids.last().copied();
        let record = match kind {
            _ if d != Dialect::Bash => BlockKind::Other,
            b'i' | b'c' => BlockKind::Choice,
            b'l' => BlockKind::Loop,
            b'p' => BlockKind::Subshell,
            _ => BlockKind::Group,
        };
        let mut id = self.record_block(record, parent, at);
        if record == BlockKind::Choice && id != u32::MAX {
            id = self.record_block(BlockKind::Branch, Some(id), at);
        }
        self.blocks.push(kind);
        self.block_ids.push(id);
        let function = self.function_header.take();
        let pending = self.ps_pending.take();
        let opens_body = kind == b'b' || (d == Dialect::PowerShell && kind == b'{');
        let body = match function {
            Some(name) if opens_body && self.script.functions.len() < MAX_FUNCTIONS => {
                if d != Dialect::Cmd {
                    self.fn_names.insert(fn_key(&name, d));
                }
                // `function Name(...) {`: the body starts at the list, whose parameters
                // are the body's.
                let (params, at, defaults) = pending.unwrap_or((Vec::new(), at, Vec::new()));
                self.script.functions.push(Function {
                    name,
                    at,
                    runs_args: false,
                    end: u32::MAX,
                    depth: self.blocks.len() as u32,
                    params,
                });
                self.fn_bodies
                    .push(Some((self.script.functions.len() - 1) as u32));
                for words in defaults {
                    self.emit(words);
                }
                return;
            }
            // A function's body beyond `MAX_FUNCTIONS`: in a function, but none recorded.
            Some(_) if opens_body => Some(u32::MAX),
            _ => None,
        };
        self.fn_bodies.push(body);
    }

    /// Ends the command being read, then reads `words` as a command of their own (made by
    /// the tokenizer: a PowerShell parameter's default as an assignment).
    fn emit(&mut self, words: Vec<Word>) {
        let end = self.b.len();
        self.end_command(end, false);
        self.words = words;
        self.decided = None;
        self.end_command(end, false);
    }

    /// The name of the PowerShell function the command being read declares (`function
    /// Name`, `filter Name`, `function script:Name`), before its body or parameter list.
    fn ps_function_name(&self) -> Option<String> {
        let [kw, name] = self.words.as_slice() else {
            return None;
        };
        let kw = kw.literal()?;
        if !(kw.eq_ignore_ascii_case("function") || kw.eq_ignore_ascii_case("filter")) {
            return None;
        }
        let name = name.literal()?;
        let name = match name.split_once(':') {
            Some((scope, rest))
                if ["global", "script", "local", "private"]
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(scope)) =>
            {
                rest.to_string()
            }
            _ => name,
        };
        (!name.is_empty() && !name.contains(['(', ')', '{', '}', '$', ':'])).then_some(name)
    }

    /// PowerShell's parameter list opening at `open` (`param(` or `function Name(`), read by
    /// hand ([`ps_params_raw`]): each parameter, its attributes and its default, which
    /// becomes the command `$Name = default` (an expression's text, not a value, when it
    /// is not a quoted string, a number, `$true`/`$false` or a variable). `None`: not such
    /// a list (read as before).
    fn ps_param_list(&mut self, open: usize) -> Option<(usize, Vec<PsParam>, Vec<Vec<Word>>)> {
        // A list starting inside text a list read before failed on is not read again: each
        // byte is read by hand once at most.
        if open < self.ps_read_to {
            return None;
        }
        let (raw, close) = match ps_params_raw(self.b, open) {
            Ok(found) => found,
            Err(reached) => {
                self.ps_read_to = reached.max(open + 1);
                return None;
            }
        };
        let mut params = Vec::with_capacity(raw.len());
        let mut defaults = Vec::new();
        for r in raw {
            let (scope, name) = ps_var_name(&String::from_utf8_lossy(&self.b[r.var.0 + 1..r.var.1]));
            if scope != VarScope::Shell {
                self.ps_read_to = close;
                return None;
            }
            let mut p = PsParam {
                name: name.clone(),
                span: self.span(r.var.0, r.var.1),
                default: r.default.is_some(),
                switch: false,
                mandatory: false,
                positioned: false,
                aliases: Vec::new(),
            };
            for &(s, e) in &r.attrs {
                ps_attribute(&self.b[s + 1..e - 1], &mut p);
            }
            if let Some((eq, (s, e))) = r.default {
                let target = Word {
                    parts: vec![WordPart::Var {
                        name,
                        span: p.span,
                        scope,
                        default: None,
                    }],
                    span: p.span,
                };
                let eq = equals_word(self.span(eq, eq + 1), true);
                defaults.push(vec![target, eq, self.ps_default_word(s, e)]);
            }
            params.push(p);
        }
        Some((close, params, defaults))
    }

    /// The word of a parameter's default written at `[s, e)`: a quoted string, a number,
    /// `$true`/`$false` or a variable as a value; anything else as its text, which is not
    /// one (an expression).
    fn ps_default_word(&mut self, s: usize, e: usize) -> Word {
        let b = self.b;
        let span = self.span(s, e);
        let text = &b[s..e];
        let lit = |text: &str, exact: bool| Word {
            parts: vec![WordPart::Lit {
                text: text.into(),
                span,
                exact,
            }],
            span,
        };
        let quoted = matches!(text[0], b'"' | b'\'') && ps_string_end(b, s) == Some(e);
        let variable = ps_var(b, s) == Some(e);
        if text.eq_ignore_ascii_case(b"$true") {
            return lit("True", false);
        }
        if text.eq_ignore_ascii_case(b"$false") {
            return lit("False", false);
        }
        if quoted || variable {
            let parts = self.sub_parts(s, e, 0);
            return Word { parts, span };
        }
        if ps_plain_default(b, s).is_some_and(|(_, end, _)| end == e) {
            return lit(&String::from_utf8_lossy(text), true);
        }
        // Not a value ([`super::az_cli`] reads it as an expression).
        lit(&String::from_utf8_lossy(text), false)
    }

    /// A block's record (`u32::MAX` beyond [`MAX_BLOCKS`] or inside a block not recorded).
    fn record_block(&mut self, kind: BlockKind, parent: Option<u32>, at: u32) -> u32 {
        let blocks = &mut self.script.blocks;
        if parent == Some(u32::MAX) || blocks.len() >= MAX_BLOCKS {
            self.script.blocks_cut.get_or_insert(at);
            return u32::MAX;
        }
        blocks.push(Block {
            kind,
            parent,
            end: u32::MAX,
            at,
        });
        (blocks.len() - 1) as u32
    }

    /// Closes the open blocks from the `at`th on.
    fn close_blocks(&mut self, at: usize, offset: u32) {
        let n = self.script.blocks.len() as u32;
        for &f in self.fn_bodies.get(at..).unwrap_or(&[]).iter().flatten() {
            if let Some(f) = self.script.functions.get_mut(f as usize) {
                f.end = offset;
            }
        }
        for &id in &self.block_ids[at.min(self.block_ids.len())..] {
            let mut id = Some(id);
            // A branch closes with its `if` or `case`.
            while let Some(b) = id.and_then(|i| self.script.blocks.get_mut(i as usize)) {
                b.end = n;
                id = (b.kind == BlockKind::Branch).then_some(b.parent).flatten();
            }
        }
        self.blocks.truncate(at);
        self.block_ids.truncate(at);
        self.fn_bodies.truncate(at);
    }

    /// The innermost block (an `if` or `case`) goes on with another branch.
    fn next_branch(&mut self, at: u32) {
        let Some(&id) = self.block_ids.last() else { return };
        let n = self.script.blocks.len() as u32;
        let Some(b) = self.script.blocks.get_mut(id as usize) else {
            return;
        };
        if b.kind != BlockKind::Branch {
            return;
        }
        b.end = n;
        let choice = b.parent;
        let next = self.record_block(BlockKind::Branch, choice, at);
        if let Some(last) = self.block_ids.last_mut() {
            *last = next;
        }
    }

    /// A PowerShell parameter list at the `(` at `i`: after `param` (a `[CmdletBinding()]`'s
    /// `]` before it), the script's or the function's whose body it opens; after `function
    /// Name`, the function's, for its body. Returns where the list ends.
    fn ps_params_at(&mut self, i: usize) -> Option<usize> {
        let header = self.ps_function_name();
        let param = match self.words.split_last() {
            Some((last, before)) => {
                last.literal().is_some_and(|l| l.eq_ignore_ascii_case("param"))
                    && before.iter().all(|w| w.literal().as_deref() == Some("]"))
            }
            None => false,
        };
        if header.is_none() && !param {
            return None;
        }
        let (close, params, defaults) = self.ps_param_list(i)?;
        if header.is_some() {
            let at = self.map.at(i);
            self.ps_pending = Some((params, at, defaults));
            // The header's words stay: the `{` after the list opens its body.
            return Some(close);
        }
        if let Some(Some(f)) = self.fn_bodies.last()
            && let Some(f) = self.script.functions.get_mut(*f as usize)
            && f.params.is_empty()
        {
            f.params = params;
        } else if self.blocks.is_empty() && self.level == 0 && self.script.params.is_empty() {
            self.script.params = params;
        }
        for words in defaults {
            self.emit(words);
        }
        self.words.clear();
        Some(close)
    }

    /// Ends the command being read; returns whether it was kept.
    fn end_command(&mut self, end: usize, chain_next: bool) -> bool {
        self.end_word(end);
        // PowerShell's `function Name`: its body is the next `{` unless another command
        // comes first.
        if self.o.dialect == Dialect::PowerShell && !self.words.is_empty() {
            self.function_header = self.ps_function_name();
            if self.function_header.is_none() {
                self.ps_pending = None;
            }
        }
        let keep = match (self.decided.take(), self.o.keep) {
            _ if std::mem::take(&mut self.discarding) || self.words.is_empty() => Keep::Drop,
            (Some(k), _) => k,
            (None, Some(keep)) => self.called(keep(&self.words)),
            (None, None) => Keep::Read,
        };
        let keep = match keep {
            Keep::Vars if self.vars_kept >= MAX_VAR_COMMANDS => {
                let at = self.words[0].span.start;
                self.script.vars_cut.get_or_insert(at);
                Keep::Drop
            }
            Keep::Vars => {
                self.vars_kept += 1;
                Keep::Vars
            }
            k => k,
        };
        let kept = keep != Keep::Drop;
        if kept {
            let words = std::mem::take(&mut self.words);
            let span = words[0].span.cover(words[words.len() - 1].span);
            self.script.commands.push(ShellCommand {
                words,
                span,
                depth: self.blocks.len() as u32,
                chained: self.chained,
                block: self.block_ids.last().copied(),
                list: self.list,
                isolated: self.in_pipe && self.o.dialect != Dialect::PowerShell,
            });
        }
        self.words.clear();
        self.chained = chain_next;
        self.in_pipe = false;
        if !chain_next {
            self.list = self.list.wrapping_add(1);
        }
        kept
    }

    // --- the main loop -------------------------------------------------------------------

    fn run(&mut self) {
        let n = self.b.len();
        let mut i = 0;
        while i < n {
            i = self.step(i);
        }
        self.end_command(n, false);
    }

    /// Reads what starts at `i`; returns where the next thing starts.
    fn step(&mut self, i: usize) -> usize {
        let c = self.b[i];
        let d = self.o.dialect;
        let at_word_start = self.word.is_none();
        match c {
            b' ' | b'\t' | b'\r' => {
                self.end_word(i);
                i + 1
            }
            b'\n' => {
                if self.o.newlines {
                    self.end_command(i, false);
                    self.skip_heredocs(i + 1)
                } else {
                    self.end_word(i);
                    i + 1
                }
            }
            b'#' if at_word_start && d != Dialect::Cmd => self.comment(i, i),
            b'<' if d == Dialect::PowerShell && self.peek(i + 1) == b'#' => self.block_comment(i),
            b':' if d == Dialect::Cmd
                && at_word_start
                && self.words.is_empty()
                && self.peek(i + 1) == b':' =>
            {
                self.comment(i, i)
            }
            _ if d == Dialect::Cmd && at_word_start && self.words.is_empty() && self.is_rem(i) => {
                self.comment(i, i)
            }
            b'\\' if d == Dialect::Bash => self.escape(i),
            b'`' if d == Dialect::PowerShell => self.escape(i),
            b'^' if d == Dialect::Cmd => self.escape(i),
            b'`' if d == Dialect::Bash => {
                let end = self.skip_backquote(i);
                self.queue_backquote(i, end);
                let span = self.span(i, end);
                self.part(
                    i,
                    WordPart::Dynamic {
                        span,
                        why: "the output of a command",
                    },
                );
                end
            }
            b'\'' if d != Dialect::Cmd => self.single_quoted(i),
            b'"' => self.double_quoted(i),
            b'$' if d != Dialect::Cmd => self.dollar(i, 0),
            b'%' | b'!' if d == Dialect::Cmd => self.cmd_var(i),
            b';' if d != Dialect::Cmd => {
                self.end_command(i, false);
                let item_end = self.peek(i + 1) == b';';
                // `;;` ends a `case` item: the next is another branch.
                if item_end && d == Dialect::Bash && self.blocks.last() == Some(&b'c') {
                    let at = self.map.at(i);
                    self.next_branch(at);
                }
                i + 1 + usize::from(item_end)
            }
            b'&' => {
                if self.peek(i + 1) == b'&' {
                    self.end_command(i, true);
                    i + 2
                } else if d == Dialect::Bash && self.peek(i + 1) == b'>' {
                    self.redirect(i)
                } else if d == Dialect::PowerShell && at_word_start && self.words.is_empty() {
                    // The call operator: `& az ...`.
                    i + 1
                } else {
                    self.end_command(i, false);
                    i + 1
                }
            }
            b'|' => {
                let two = self.peek(i + 1) == b'|';
                let kept = self.end_command(i, true);
                if !two {
                    // Both sides of a pipe are in the pipeline.
                    if kept && self.o.dialect != Dialect::PowerShell {
                        if let Some(c) = self.script.commands.last_mut() {
                            c.isolated = true;
                        }
                    }
                    self.in_pipe = true;
                }
                i + 1 + usize::from(two)
            }
            b'>' | b'<' => self.redirect(i),
            b'(' | b')' | b'{' | b'}' => self.bracket(i),
            _ => {
                let mut j = i + 1;
                while j < self.b.len() && !self.special(self.b[j]) {
                    j += 1;
                }
                let b = self.b;
                self.lit(i, j, &b[i..j], true);
                j
            }
        }
    }

    /// A byte that may start something else than literal text.
    fn special(&self, c: u8) -> bool {
        matches!(
            c,
            b' ' | b'\t'
                | b'\r'
                | b'\n'
                | b'\\'
                | b'`'
                | b'^'
                | b'\''
                | b'"'
                | b'$'
                | b'%'
                | b'!'
                | b';'
                | b'&'
                | b'|'
                | b'<'
                | b'>'
                | b'('
                | b')'
                | b'{'
                | b'}'
                | b'#'
                | b'='
                | b','
        )
    }

    fn is_rem(&self, i: usize) -> bool {
        self.b.len() >= i + 3
            && self.b[i..i + 3].eq_ignore_ascii_case(b"rem")
            && matches!(self.peek(i + 3), b' ' | b'\t' | b'\r' | b'\n' | 0)
    }

    fn line_end(&self, i: usize) -> usize {
        memchr::memchr(b'\n', &self.b[i..]).map_or(self.b.len(), |p| i + p)
    }

    /// A comment from `marker` to the end of the line.
    fn comment(&mut self, _i: usize, marker: usize) -> usize {
        self.end_word(marker);
        let mut end = self.line_end(marker);
        let own_line = self.alone_on_line(marker);
        while end > marker && self.b[end - 1] == b'\r' {
            end -= 1;
        }
        self.script.comments.push(ShellComment {
            span: self.span(marker, end),
            own_line,
            next_code: None,
        });
        self.awaiting.push(self.script.comments.len() - 1);
        end
    }

    /// Whether only spaces and tabs precede `i` on its line. Offsets asked about only grow,
    /// so what was seen of the line is kept: each byte is looked at once.
    fn alone_on_line(&mut self, i: usize) -> bool {
        let (from, clean) = match self.line_seen {
            (upto, clean) if upto <= i => (upto, clean),
            _ => (0, true),
        };
        let seen = &self.b[from..i];
        let clean = match memchr::memrchr(b'\n', seen) {
            Some(p) => seen[p + 1..].iter().all(|c| matches!(c, b' ' | b'\t')),
            None => clean && seen.iter().all(|c| matches!(c, b' ' | b'\t')),
        };
        self.line_seen = (i, clean);
        clean
    }

    /// PowerShell's `<# ... #>`.
    fn block_comment(&mut self, i: usize) -> usize {
        self.end_word(i);
        let end = memchr::memmem::find(&self.b[i + 2..], b"#>").map_or(self.b.len(), |p| i + 2 + p + 2);
        let own_line = self.alone_on_line(i);
        self.script.comments.push(ShellComment {
            span: self.span(i, end),
            own_line,
            next_code: None,
        });
        self.awaiting.push(self.script.comments.len() - 1);
        end
    }

    /// The escape character at `i` (`\`, backtick, caret): a line continuation before a
    /// newline, else the next character taken literally.
    fn escape(&mut self, i: usize) -> usize {
        let next = self.peek(i + 1);
        if next == b'\n' || (next == b'\r' && self.peek(i + 2) == b'\n') {
            self.inexact();
            return i + if next == b'\r' { 3 } else { 2 };
        }
        if i + 1 >= self.b.len() {
            return i + 1;
        }
        let len = utf8_len(next);
        let end = (i + 1 + len).min(self.b.len());
        let text = self.b[i + 1..end].to_vec();
        self.lit(i, end, &text, false);
        end
    }

    fn single_quoted(&mut self, i: usize) -> usize {
        let mut j = i + 1;
        let mut text = Vec::new();
        let mut exact = true;
        let start = j;
        loop {
            match self.b.get(j) {
                None => break,
                Some(b'\'') if self.o.dialect == Dialect::PowerShell && self.peek(j + 1) == b'\'' => {
                    text.push(b'\'');
                    exact = false;
                    j += 2;
                }
                Some(b'\'') => break,
                Some(&c) => {
                    text.push(c);
                    j += 1;
                }
            }
        }
        self.word_mut(i);
        self.flush_lit(i);
        let span = self.span(start, j);
        self.word.as_mut().expect("a word").parts.push(WordPart::Lit {
            text: String::from_utf8_lossy(&text).into_owned(),
            span,
            exact,
        });
        (j + 1).min(self.b.len())
    }

    fn double_quoted(&mut self, i: usize) -> usize {
        self.word_mut(i);
        self.flush_lit(i);
        let d = self.o.dialect;
        let mut j = i + 1;
        // Literal text inside the quotes: (start, bytes, exact).
        let mut run: Option<(usize, Vec<u8>, bool)> = None;
        let flush = |lexer: &mut Self, run: &mut Option<(usize, Vec<u8>, bool)>, end: usize| {
            if let Some((s, bytes, exact)) = run.take() {
                let span = lexer.span(s, end);
                lexer.word.as_mut().expect("a word").parts.push(WordPart::Lit {
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    span,
                    exact,
                });
            }
        };
        while j < self.b.len() {
            let c = self.b[j];
            match c {
                b'"' if d == Dialect::PowerShell && self.peek(j + 1) == b'"' => {
                    let r = run.get_or_insert_with(|| (j, Vec::new(), true));
                    r.1.push(b'"');
                    r.2 = false;
                    j += 2;
                }
                b'"' => {
                    flush(self, &mut run, j);
                    return j + 1;
                }
                b'\\'
                    if d == Dialect::Bash
                        && matches!(self.peek(j + 1), b'$' | b'`' | b'"' | b'\\' | b'\n') =>
                {
                    let r = run.get_or_insert_with(|| (j, Vec::new(), true));
                    if self.peek(j + 1) != b'\n' {
                        r.1.push(self.b[j + 1]);
                    }
                    r.2 = false;
                    j += 2;
                }
                b'`' if d == Dialect::PowerShell && j + 1 < self.b.len() => {
                    let r = run.get_or_insert_with(|| (j, Vec::new(), true));
                    if self.b[j + 1] != b'\n' {
                        r.1.push(self.b[j + 1]);
                    }
                    r.2 = false;
                    j += 2;
                }
                b'`' if d == Dialect::Bash => {
                    flush(self, &mut run, j);
                    let end = self.skip_backquote(j);
                    self.queue_backquote(j, end);
                    let span = self.span(j, end);
                    self.word.as_mut().expect("a word").parts.push(WordPart::Dynamic {
                        span,
                        why: "the output of a command",
                    });
                    j = end;
                }
                b'$' if d != Dialect::Cmd && self.starts_expansion(j) => {
                    flush(self, &mut run, j);
                    self.in_string = true;
                    j = self.dollar(j, self.nest);
                    self.in_string = false;
                }
                b'%' | b'!' if d == Dialect::Cmd && self.cmd_var_end(j).is_some() => {
                    flush(self, &mut run, j);
                    j = self.cmd_var(j);
                }
                _ => {
                    run.get_or_insert_with(|| (j, Vec::new(), true)).1.push(c);
                    j += 1;
                }
            }
        }
        flush(self, &mut run, j);
        j
    }

    /// Whether the `$` at `i` expands something (else it is a literal `$`).
    fn starts_expansion(&self, i: usize) -> bool {
        let n = self.peek(i + 1);
        is_name_start(n)
            || n.is_ascii_digit()
            || matches!(n, b'{' | b'(' | b'@' | b'*' | b'#' | b'?' | b'!' | b'$' | b'-')
            || (self.o.make && n == b'$')
    }

    /// Reads the backquote substitution `[i, end)` after the region.
    fn queue_backquote(&mut self, i: usize, end: usize) {
        let close = usize::from(end > i + 1 && self.b[end - 1] == b'`');
        self.queue_nested(i + 1, end - close);
    }

    /// Past the backquote substitution starting at `i`.
    fn skip_backquote(&self, i: usize) -> usize {
        let mut j = i + 1;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'`' => return j + 1,
                _ => j += 1,
            }
        }
        self.b.len()
    }

    /// Past the bracket closing the one at `i` (`(` or `{`), quotes and nesting
    /// considered; the end of the input when it is not closed.
    fn skip_balanced(&self, i: usize) -> usize {
        let (open, close) = if self.b[i] == b'{' {
            (b'{', b'}')
        } else {
            (b'(', b')')
        };
        let mut depth = 0usize;
        let mut j = i;
        while j < self.b.len() {
            let c = self.b[j];
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            } else if c == b'\\' {
                j += 1;
            } else if c == b'\'' && self.o.dialect == Dialect::Bash {
                j += memchr::memchr(b'\'', &self.b[j + 1..]).map_or(self.b.len(), |p| p + 1);
            }
            j += 1;
        }
        self.b.len()
    }

    /// An expansion at `i` (a `$`): appends its part, returns where it ends.
    fn dollar(&mut self, i: usize, depth: usize) -> usize {
        let n1 = self.peek(i + 1);
        let n2 = self.peek(i + 2);
        // `${{ expression }}`: GitHub Actions and Azure Pipelines templates.
        if n1 == b'{' && n2 == b'{' {
            let end = memchr::memmem::find(&self.b[i + 3..], b"}}").map_or(self.b.len(), |p| i + 3 + p + 2);
            let inner = &self.b[i + 3..end.saturating_sub(2).max(i + 3)];
            let text = String::from_utf8_lossy(inner).trim().to_string();
            let span = self.span(i, end);
            self.part(i, WordPart::Expr { text, span });
            return end;
        }
        if self.o.make {
            return self.make_dollar(i);
        }
        if self.o.dialect == Dialect::PowerShell {
            return self.ps_dollar(i);
        }
        match n1 {
            b'(' if n2 == b'(' => {
                let end = self.skip_balanced(i + 1);
                let span = self.span(i, end);
                self.part(
                    i,
                    WordPart::Dynamic {
                        span,
                        why: ARITHMETIC,
                    },
                );
                end
            }
            b'(' => self.substitution(i, "the output of a command"),
            b'{' => self.braced(i, depth),
            c if is_name_start(c) => {
                let mut j = i + 1;
                while j < self.b.len() && is_name(self.b[j]) {
                    j += 1;
                }
                let name = String::from_utf8_lossy(&self.b[i + 1..j]).into_owned();
                let span = self.span(i, j);
                self.part(
                    i,
                    WordPart::Var {
                        name,
                        span,
                        scope: VarScope::Shell,
                        default: None,
                    },
                );
                j
            }
            c if c.is_ascii_digit() => {
                let span = self.span(i, i + 2);
                self.part(
                    i,
                    WordPart::Var {
                        name: (c as char).to_string(),
                        span,
                        scope: VarScope::Positional,
                        default: None,
                    },
                );
                i + 2
            }
            b'@' | b'*' | b'#' | b'?' | b'!' | b'$' | b'-' => {
                let span = self.span(i, i + 2);
                let why = if n1 == b'@' { ARGS } else { SPECIAL };
                self.part(i, WordPart::Dynamic { span, why });
                i + 2
            }
            _ => {
                self.lit(i, i + 1, b"$", true);
                i + 1
            }
        }
    }

    /// `$(...)` at `i`: an Azure Pipelines macro where macros are read, else what it runs
    /// (`why`), not known statically.
    fn substitution(&mut self, i: usize, why: &'static str) -> usize {
        if self.o.macros
            && let Some((name, end)) = self.macro_at(i)
        {
            let span = self.span(i, end);
            self.part(i, WordPart::Macro { name, span });
            return end;
        }
        let end = self.skip_balanced(i + 1);
        let span = self.span(i, end);
        self.part(i, WordPart::Dynamic { span, why });
        // Its text, without `$(` and the `)` when there is one.
        let close = usize::from(end > i + 2 && self.b[end - 1] == b')');
        self.queue_nested(i + 2, end - close);
        end
    }

    /// Reads `[from, to)`, a command substitution's text, after the region (unless it is
    /// [`MAX_SUBSTITUTION_DEPTH`] deep).
    fn queue_nested(&mut self, from: usize, to: usize) {
        if self.level >= MAX_SUBSTITUTION_DEPTH || from >= to {
            return;
        }
        self.nested.push(Nested {
            from,
            to,
            level: self.level + 1,
            depth: self.blocks.len() as u32,
            chained: self.chained,
            block: self.block_ids.last().copied(),
            list: self.list,
        });
    }

    /// `$(name)` of Azure Pipelines (letters, digits, `_`, `.`, `-`), if one is at `i`.
    fn macro_at(&self, i: usize) -> Option<(String, usize)> {
        let start = i + 2;
        let mut j = start;
        while j < self.b.len() && (is_name(self.b[j]) || matches!(self.b[j], b'.' | b'-')) {
            j += 1;
        }
        (j > start && self.peek(j) == b')')
            .then(|| (String::from_utf8_lossy(&self.b[start..j]).into_owned(), j + 1))
    }

    /// `${...}` at `i`.
    fn braced(&mut self, i: usize, depth: usize) -> usize {
        let end = self.skip_balanced(i + 1);
        let body_end = end.saturating_sub(1).max(i + 2);
        let body = &self.b[(i + 2).min(body_end)..body_end];
        let dynamic = |lexer: &mut Self, why: &'static str| {
            let span = lexer.span(i, end);
            lexer.part(i, WordPart::Dynamic { span, why });
            end
        };
        let name_len = if body.first().is_some_and(|&c| is_name_start(c)) {
            body.iter().take_while(|&&c| is_name(c)).count()
        } else {
            body.iter().take_while(|c| c.is_ascii_digit()).count()
        };
        if name_len == 0 {
            // `${@}`, `${@:N}`, `${@:N:M}`: (some of) the arguments.
            let args = body.first() == Some(&b'@')
                && body[1..].iter().all(|c| c.is_ascii_digit() || *c == b':')
                && body.get(1).is_none_or(|&c| c == b':');
            return dynamic(self, if args { ARGS } else { SPECIAL });
        }
        let name = String::from_utf8_lossy(&body[..name_len]).into_owned();
        let scope = if name.as_bytes()[0].is_ascii_digit() {
            VarScope::Positional
        } else {
            VarScope::Shell
        };
        let rest = &body[name_len..];
        let default = if rest.is_empty() {
            None
        } else {
            let op = if rest.starts_with(b":-") || rest.starts_with(b":=") {
                2
            } else if rest.starts_with(b"-") || rest.starts_with(b"=") {
                1
            } else if rest == b"[@]" || rest == b"[*]" {
                // `${NAME[@]}`: the elements of an array (the reader finds its name in
                // the text the span covers).
                return dynamic(self, ARRAY);
            } else {
                return dynamic(self, SUBSTITUTION);
            };
            if depth >= MAX_DEFAULT_DEPTH {
                return dynamic(self, "a default nested too deep");
            }
            let from = i + 2 + name_len + op;
            Some(self.sub_parts(from, body_end, depth + 1))
        };
        let span = self.span(i, end);
        self.part(
            i,
            WordPart::Var {
                name,
                span,
                scope,
                default,
            },
        );
        end
    }

    /// The parts of `[from, to)`, read as a word whose spaces are literal (a default).
    fn sub_parts(&mut self, from: usize, to: usize, depth: usize) -> Vec<WordPart> {
        let saved_nest = std::mem::replace(&mut self.nest, depth);
        let saved_word = self.word.take();
        let saved_words = std::mem::take(&mut self.words);
        let mut j = from;
        while j < to {
            let c = self.b[j];
            j = match c {
                b'\'' => self.single_quoted(j).min(to),
                b'"' => self.double_quoted(j).min(to),
                b'$' if self.starts_expansion(j) => {
                    if self.peek(j + 1) == b'{' && self.peek(j + 2) != b'{' {
                        self.braced(j, depth).min(to)
                    } else {
                        self.dollar(j, depth).min(to)
                    }
                }
                b'\\' if j + 1 < to => {
                    let t = [self.b[j + 1]];
                    self.lit(j, j + 2, &t, false);
                    j + 2
                }
                _ => {
                    self.lit(j, j + 1, &[c], true);
                    j + 1
                }
            };
        }
        self.flush_lit(to);
        let parts = self.word.take().map(|w| w.parts).unwrap_or_default();
        self.word = saved_word;
        self.words = saved_words;
        self.nest = saved_nest;
        parts
    }

    /// `$` in a Makefile recipe: `$$` is the shell's `$`, `$(NAME)` and `${NAME}` (and
    /// `$X`) are make variables, `$(function ...)` is dynamic.
    fn make_dollar(&mut self, i: usize) -> usize {
        let n1 = self.peek(i + 1);
        if n1 == b'$' {
            // The shell's `$`: read what follows as the shell would.
            self.o.make = false;
            let end = if self.starts_expansion(i + 1) {
                self.dollar(i + 1, self.nest)
            } else {
                self.lit(i, i + 2, b"$", false);
                i + 2
            };
            self.o.make = true;
            return end;
        }
        let (name, end) = match n1 {
            b'(' | b'{' => {
                let end = self.skip_balanced(i + 1);
                let inner = &self.b[i + 2..end.saturating_sub(1).max(i + 2)];
                (inner.to_vec(), end)
            }
            0 => {
                self.lit(i, i + 1, b"$", true);
                return i + 1;
            }
            c => (vec![c], i + 2),
        };
        let span = self.span(i, end);
        if !name.is_empty() && name.iter().all(|&c| is_name(c) || c == b'.' || c == b'-') {
            self.part(
                i,
                WordPart::Var {
                    name: String::from_utf8_lossy(&name).into_owned(),
                    span,
                    scope: VarScope::Make,
                    default: None,
                },
            );
        } else {
            self.part(
                i,
                WordPart::Dynamic {
                    span,
                    why: "a make function or automatic variable",
                },
            );
        }
        end
    }

    /// PowerShell's `$X = if ($env:NAME) { $env:NAME } else { "default" }` (the branch may
    /// cast, `[int]$env:NAME`; `$NAME` for a variable), with `i` at the `(` after `if`: the
    /// expression is read as one word, the variable with the literal as its default, as
    /// bash's `${NAME:-default}` (an empty value is false in PowerShell too). Returns where
    /// the statement ends; `None` (read as before) for any other condition or branch.
    fn ps_if_default(&mut self, i: usize) -> Option<usize> {
        // `$X = if`, `$X=if`, `$X= if`, `$X =if`: the target (with a `[type]` before it),
        // then literal text that is `=` and `if`.
        let first = self.words.first()?;
        let var_at = first
            .parts
            .iter()
            .position(|p| matches!(p, WordPart::Var { .. }))?;
        if var_at > 1
            || (var_at == 1
                && !matches!(&first.parts[0], WordPart::Lit { text, .. } if text.starts_with('[')))
        {
            return None;
        }
        let mut rest = String::new();
        for p in first.parts[var_at + 1..]
            .iter()
            .chain(self.words[1..].iter().flat_map(|w| w.parts.iter()))
        {
            match p {
                WordPart::Lit { text, .. } => rest.push_str(text),
                _ => return None,
            }
        }
        if !rest.eq_ignore_ascii_case("=if") {
            return None;
        }
        let target_end = first.parts[var_at].span().end;
        let target = Word {
            parts: first.parts[..=var_at].to_vec(),
            span: Span::new(first.span.start, target_end),
        };
        let if_start = self.words.last()?.span.end.saturating_sub(2);
        let eq = equals_word(Span::new(target_end, if_start), false);
        let b = self.b;
        let (blank, punct, var) = (|j| ps_blank(b, j), |j, c| ps_punct(b, j, c), |j| ps_var(b, j));
        let open = blank(i + 1);
        let cond_end = var(open)?;
        let mut j = punct(blank(cond_end), b')')?;
        j = blank(punct(blank(j), b'{')?);
        if b.get(j) == Some(&b'[') {
            let close = j + 1 + b[j + 1..].iter().position(|&c| !(is_name(c) || c == b'.'))?;
            j = punct(close, b']')?;
        }
        let then_end = var(j)?;
        if !b[j..then_end].eq_ignore_ascii_case(&b[open..cond_end]) {
            return None;
        }
        j = blank(punct(blank(then_end), b'}')?);
        let word_end = j + 4;
        if !b.get(j..word_end)?.eq_ignore_ascii_case(b"else") || b.get(word_end).is_some_and(|&c| is_name(c))
        {
            return None;
        }
        j = blank(punct(blank(word_end), b'{')?);
        let (start, end, after) = ps_plain_default(b, j)?;
        let stmt_end = punct(blank(after), b'}')?;
        let (scope, name) = ps_var_name(&String::from_utf8_lossy(&b[open + 1..cond_end]));
        let span = Span::new(if_start, self.span(i, stmt_end).end);
        self.words = vec![target, eq, self.ps_var_or(name, scope, (start, end), span)];
        Some(stmt_end)
    }

    /// The word `${name:-default}` of a default idiom written at `span`, its default the
    /// plain text at `start..end` ([`ps_plain_default`]).
    fn ps_var_or(&self, name: String, scope: VarScope, (start, end): (usize, usize), span: Span) -> Word {
        let default = vec![WordPart::Lit {
            text: String::from_utf8_lossy(&self.b[start..end]).into_owned(),
            span: self.span(start, end),
            exact: true,
        }];
        Word {
            parts: vec![WordPart::Var {
                name,
                span,
                scope,
                default: Some(default),
            }],
            span,
        }
    }

    /// PowerShell's default-if-unset statement `if (-not $X) { $X = "default" }` (also
    /// `if (!$X)` and `if ([string]::IsNullOrEmpty($X))`), with `i` at the `(` after `if`
    /// and no `else`/`elseif` after it: read as the assignment `$X = ${X:-default}` (an
    /// empty or unset value is false in PowerShell), not under a condition, as
    /// [`Lexer::ps_if_default`] reads its expression. Returns where the statement ends;
    /// `None` (read as before) for any other condition, body or value.
    fn ps_unset_default(&mut self, i: usize) -> Option<usize> {
        let [first] = self.words.as_slice() else {
            return None;
        };
        if !first.literal()?.eq_ignore_ascii_case("if") {
            return None;
        }
        let if_start = first.span.start;
        let b = self.b;
        let (blank, punct, var) = (|j| ps_blank(b, j), |j, c| ps_punct(b, j, c), |j| ps_var(b, j));
        // A keyword (any case), not followed by a name's character.
        let keyword = |j: usize, w: &[u8]| {
            let end = j + w.len();
            (b.get(j..end)?.eq_ignore_ascii_case(w) && !b.get(end).is_some_and(|&c| is_name(c)))
                .then_some(end)
        };
        let j = blank(i + 1);
        // The condition's variable (`open..cond_end`) and where the condition ends.
        let (open, cond_end, after) = if let Some(k) = keyword(j, b"-not").or_else(|| punct(j, b'!')) {
            let open = blank(k);
            let end = var(open)?;
            (open, end, end)
        } else {
            let k = keyword(j, b"[string]::IsNullOrEmpty")?;
            let open = blank(punct(blank(k), b'(')?);
            let end = var(open)?;
            (open, end, punct(blank(end), b')')?)
        };
        let mut j = punct(blank(after), b')')?;
        j = blank(punct(blank(j), b'{')?);
        let target_at = j;
        let then_end = var(j)?;
        if !b[j..then_end].eq_ignore_ascii_case(&b[open..cond_end]) {
            return None;
        }
        let eq_at = blank(then_end);
        j = blank(punct(eq_at, b'=')?);
        let (start, end, after) = ps_plain_default(b, j)?;
        let stmt_end = punct(blank(after), b'}')?;
        // Another branch: the value depends on more than whether it is set.
        let next = blank(stmt_end);
        if keyword(next, b"else").is_some() || keyword(next, b"elseif").is_some() {
            return None;
        }
        let (scope, name) = ps_var_name(&String::from_utf8_lossy(&b[target_at + 1..then_end]));
        let target_span = self.span(target_at, then_end);
        let target = Word {
            parts: vec![WordPart::Var {
                name: name.clone(),
                span: target_span,
                scope,
                default: None,
            }],
            span: target_span,
        };
        let eq = equals_word(self.span(eq_at, eq_at + 1), false);
        let span = Span::new(if_start, self.span(i, stmt_end).end);
        self.words = vec![target, eq, self.ps_var_or(name, scope, (start, end), span)];
        Some(stmt_end)
    }

    /// `$` in PowerShell: `$name`, `${name}`, `$env:NAME`, `$scope:name`, `$(...)`.
    fn ps_dollar(&mut self, i: usize) -> usize {
        let n1 = self.peek(i + 1);
        if n1 == b'(' {
            return self.substitution(i, "the value of a PowerShell expression");
        }
        let (start, end) = if n1 == b'{' {
            let end = memchr::memchr(b'}', &self.b[i..]).map_or(self.b.len(), |p| i + p + 1);
            (i + 2, end.saturating_sub(1).max(i + 2))
        } else {
            let mut j = i + 1;
            while j < self.b.len() && (is_name(self.b[j]) || self.b[j] == b':') {
                j += 1;
            }
            // A trailing `:` is punctuation (`"$name:"`).
            while j > i + 1 && self.b[j - 1] == b':' {
                j -= 1;
            }
            (i + 1, j)
        };
        let full_end = if n1 == b'{' { end + 1 } else { end };
        if end <= start {
            self.lit(i, i + 1, b"$", true);
            return i + 1;
        }
        let raw = String::from_utf8_lossy(&self.b[start..end]).into_owned();
        // `$args[0]`: a word of the call of the function around (or of the script) that no
        // parameter takes.
        if n1 != b'{' && !self.in_string && raw.eq_ignore_ascii_case("args") && self.peek(end) == b'[' {
            let digits = self.b[end + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits > 0 && digits < 6 && self.peek(end + 1 + digits) == b']' {
                let close = end + 2 + digits;
                let k = String::from_utf8_lossy(&self.b[end + 1..end + 1 + digits]);
                let name = format!("args[{}]", k.parse::<usize>().unwrap_or(0));
                let span = self.span(i, close);
                self.part(
                    i,
                    WordPart::Var {
                        name,
                        span,
                        scope: VarScope::Positional,
                        default: None,
                    },
                );
                return close;
            }
        }
        let span = self.span(i, full_end);
        let (scope, name) = ps_var_name(&raw);
        match name.to_ascii_lowercase().as_str() {
            "true" | "false" => {
                let text = if name.eq_ignore_ascii_case("true") {
                    "True"
                } else {
                    "False"
                };
                self.part(
                    i,
                    WordPart::Lit {
                        text: text.into(),
                        span,
                        exact: false,
                    },
                );
            }
            "null" => self.part(
                i,
                WordPart::Lit {
                    text: String::new(),
                    span,
                    exact: false,
                },
            ),
            "args" | "_" | "input" | "psitem" | "matches" | "lastexitcode" => self.part(
                i,
                WordPart::Dynamic {
                    span,
                    why: "a PowerShell automatic variable",
                },
            ),
            _ => self.part(
                i,
                WordPart::Var {
                    name,
                    span,
                    scope,
                    default: None,
                },
            ),
        }
        full_end
    }

    /// Where the cmd variable at `i` (`%NAME%`, `%1`, `!NAME!`) ends, if one is there.
    fn cmd_var_end(&self, i: usize) -> Option<usize> {
        let c = self.b[i];
        if c == b'%' && (self.peek(i + 1).is_ascii_digit() || self.peek(i + 1) == b'~') {
            let mut j = i + 2;
            while j < self.b.len() && self.b[j].is_ascii_alphanumeric() {
                j += 1;
            }
            return Some(j);
        }
        let close = memchr::memchr(c, &self.b[i + 1..]).map(|p| i + 1 + p)?;
        let name = &self.b[i + 1..close];
        (!name.is_empty() && name.iter().all(|&b| is_name(b) || matches!(b, b'-' | b'.')))
            .then_some(close + 1)
    }

    fn cmd_var(&mut self, i: usize) -> usize {
        let Some(end) = self.cmd_var_end(i) else {
            let t = [self.b[i]];
            self.lit(i, i + 1, &t, true);
            return i + 1;
        };
        let span = self.span(i, end);
        if self.peek(i + 1).is_ascii_digit() || self.peek(i + 1) == b'~' {
            self.part(
                i,
                WordPart::Var {
                    name: String::from_utf8_lossy(&self.b[i + 1..end]).into_owned(),
                    span,
                    scope: VarScope::Positional,
                    default: None,
                },
            );
        } else {
            self.part(
                i,
                WordPart::Var {
                    name: String::from_utf8_lossy(&self.b[i + 1..end - 1]).into_owned(),
                    span,
                    scope: VarScope::Shell,
                    default: None,
                },
            );
        }
        end
    }

    /// A redirection at `i` (`>`, `>>`, `2>&1`, `<`, `&>`, here-documents): its target
    /// word is dropped, a here-document's body skipped at the end of the line.
    fn redirect(&mut self, i: usize) -> usize {
        // A file descriptor written against it (`2>`) is not a word of the command.
        if let Some(w) = &self.word {
            let digits = w.parts.is_empty()
                && w.lit
                    .as_ref()
                    .is_some_and(|(_, b, _)| !b.is_empty() && b.iter().all(u8::is_ascii_digit));
            if digits {
                self.word = None;
            }
        }
        self.end_word(i);
        let mut j = i;
        if self.b[j] == b'&' {
            j += 1;
        }
        let c = self.b[j];
        j += 1;
        if c == b'<' && self.peek(j) == b'<' && self.o.dialect == Dialect::Bash {
            j += 1;
            if self.peek(j) == b'<' {
                // A here-string: its word is data.
                self.skip_word = true;
                return j + 1;
            }
            if self.peek(j) == b'-' {
                j += 1;
            }
            while matches!(self.peek(j), b' ' | b'\t') {
                j += 1;
            }
            let start = j;
            while j < self.b.len()
                && !matches!(
                    self.b[j],
                    b' ' | b'\t' | b'\r' | b'\n' | b';' | b'|' | b'&' | b'>' | b'<'
                )
            {
                j += 1;
            }
            let delim: Vec<u8> = self.b[start..j]
                .iter()
                .copied()
                .filter(|c| !matches!(c, b'\'' | b'"' | b'\\'))
                .collect();
            if !delim.is_empty() {
                self.heredocs.push(delim);
            }
            return j;
        }
        if self.peek(j) == c {
            j += 1;
        }
        if self.peek(j) == b'&' {
            // `>&2`, `2>&1`: a descriptor, no target word.
            j += 1;
            while self.peek(j).is_ascii_digit() || self.peek(j) == b'-' {
                j += 1;
            }
            return j;
        }
        self.skip_word = true;
        j
    }

    /// At the start of a line: past the bodies of the here-documents opened on the line
    /// before.
    fn skip_heredocs(&mut self, mut i: usize) -> usize {
        for delim in std::mem::take(&mut self.heredocs) {
            while i < self.b.len() {
                let end = self.line_end(i);
                let line = self.b[i..end].trim_ascii();
                i = (end + 1).min(self.b.len());
                if line == delim.as_slice() {
                    break;
                }
            }
        }
        i
    }

    /// `(`, `)`, `{`, `}`: blocks (and bash arrays, `name()`, literal braces in words).
    fn bracket(&mut self, i: usize) -> usize {
        let c = self.b[i];
        let d = self.o.dialect;
        if d == Dialect::Bash {
            // `name=(a b c)`: an array; `f()`: a function's name.
            if c == b'(' {
                let in_word = self.word.is_some();
                let assign = self.word.as_ref().is_some_and(|w| {
                    w.parts.is_empty() && w.lit.as_ref().is_some_and(|(_, b, _)| b.ends_with(b"="))
                });
                if assign {
                    let end = self.skip_balanced(i);
                    let span = self.span(i, end);
                    self.part(
                        i,
                        WordPart::Dynamic {
                            span,
                            why: ARRAY_VALUE,
                        },
                    );
                    return end;
                }
                if in_word && self.peek(i + 1) == b')' {
                    self.lit(i, i + 2, b"()", true);
                    return i + 2;
                }
                if in_word {
                    self.lit(i, i + 1, b"(", true);
                    return i + 1;
                }
                // `(( … ))`: an arithmetic command, or a C-style `for ((i=0; i<3; i++))`
                // header — one word not known, not commands (its `i=0` sets nothing
                // amlint may read as a value).
                if self.peek(i + 1) == b'(' {
                    let end = self.skip_balanced(i);
                    let span = self.span(i, end);
                    self.part(
                        i,
                        WordPart::Dynamic {
                            span,
                            why: ARITHMETIC,
                        },
                    );
                    return end;
                }
                self.end_command(i, false);
                let at = self.map.at(i);
                self.open_block(b'p', at);
                return i + 1;
            }
            if c == b')' {
                self.end_command(i, false);
                // Else a `case` pattern's end.
                if self.blocks.last() == Some(&b'p') {
                    let offset = self.map.at(i + 1);
                    self.close_blocks(self.blocks.len() - 1, offset);
                }
                return i + 1;
            }
            // Braces are words in bash (`{`, `}`), handled as keywords; inside a word,
            // literal (`a{b,c}`). A function's `{` may follow its header's `()` without a
            // blank (`setup(){`, as bash reads `setup ( ) {`): the header is a word.
            let spaced_after = matches!(self.peek(i + 1), b' ' | b'\t' | b'\n' | b'\r' | b';' | 0);
            if c == b'{'
                && spaced_after
                && self.word.as_ref().is_some_and(|w| {
                    w.parts.is_empty()
                        && w.lit
                            .as_ref()
                            .is_some_and(|(_, b, _)| b.len() > 2 && b.ends_with(b"()"))
                })
            {
                self.end_word(i);
            }
            let alone = self.word.is_none() && spaced_after;
            let function = self.function_name();
            if alone && (self.words.is_empty() || function.is_some()) {
                self.end_command(i, false);
                self.function_header = function.filter(|_| c == b'{');
                if c == b'{' {
                    let at = self.map.at(i);
                    self.open_block(b'b', at);
                } else if let Some(at) = self.blocks.iter().rposition(|&k| k == b'b') {
                    let offset = self.map.at(i + 1);
                    self.close_blocks(at, offset);
                }
                return i + 1;
            }
            self.lit(i, i + 1, &[c], true);
            return i + 1;
        }
        // PowerShell and cmd: brackets open and close blocks.
        if c == b'(' && d == Dialect::PowerShell {
            self.end_word(i);
            if let Some(end) = self.ps_if_default(i).or_else(|| self.ps_unset_default(i)) {
                return end;
            }
            if let Some(end) = self.ps_params_at(i) {
                return end;
            }
        }
        self.end_command(i, false);
        if matches!(c, b'(' | b'{') {
            let at = self.map.at(i);
            self.open_block(c, at);
        } else {
            let open = if c == b')' { b'(' } else { b'{' };
            if let Some(at) = self.blocks.iter().rposition(|&k| k == open) {
                let offset = self.map.at(i + 1);
                self.close_blocks(at, offset);
            }
        }
        i + 1
    }
}

/// How a function's name is looked up: PowerShell's and cmd's names ignore case.
pub fn fn_key(name: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Bash => name.to_string(),
        _ => name.to_ascii_lowercase(),
    }
}

/// A parameter of a PowerShell list as written: its attributes (`[...]`, brackets
/// included), its `$Name`, and its default (where `=` is, and the value's text).
struct RawParam {
    attrs: Vec<(usize, usize)>,
    var: (usize, usize),
    default: Option<(usize, (usize, usize))>,
}

/// Past the blanks, newlines, comments (`#`, `<# #>`) and line continuations at `j`.
fn ps_skip_space(b: &[u8], mut j: usize) -> usize {
    loop {
        match b.get(j) {
            Some(c) if c.is_ascii_whitespace() => j += 1,
            Some(b'`') if matches!(b.get(j + 1), Some(b'\n' | b'\r')) => j += 2,
            Some(b'#') => j = memchr::memchr(b'\n', &b[j..]).map_or(b.len(), |p| j + p),
            Some(b'<') if b.get(j + 1) == Some(&b'#') => {
                j = memchr::memmem::find(&b[j + 2..], b"#>").map_or(b.len(), |p| j + 2 + p + 2)
            }
            _ => return j,
        }
    }
}

/// Where the PowerShell string opening at `j` (`'...'`, `"..."`) ends, past its quote.
fn ps_string_end(b: &[u8], j: usize) -> Option<usize> {
    let q = *b.get(j)?;
    let mut k = j + 1;
    loop {
        match *b.get(k)? {
            b'`' if q == b'"' => k += 2,
            c if c == q && b.get(k + 1) == Some(&q) => k += 2,
            c if c == q => return Some(k + 1),
            _ => k += 1,
        }
    }
}

/// Where the PowerShell text from `j` ends: before the first `,` or `)` not inside
/// brackets or a string (`stop_at_close`: also past the bracket closing at depth zero,
/// the whole of `[...]` opening at `j`). One pass, a counter for the depth.
fn ps_scan(b: &[u8], mut j: usize, stop_at_close: bool) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *b.get(j)? {
            b'\'' | b'"' => j = ps_string_end(b, j)?,
            b'`' => j += 2,
            b'(' | b'[' | b'{' => {
                depth += 1;
                j += 1;
            }
            b')' | b']' | b'}' if depth > 0 => {
                depth -= 1;
                j += 1;
                if depth == 0 && stop_at_close {
                    return Some(j);
                }
            }
            b',' | b')' | b'\n' | b'#' if depth == 0 => return Some(j),
            _ => j += 1,
        }
    }
}

/// The parameters of the PowerShell list whose `(` is at `open`, and where it ends (past
/// its `)`): each `[attribute]...` `$Name` `[= default]`, separated by `,`. `Err`, with
/// how far it read, when the text is not such a list, is not closed, or declares more
/// than [`MAX_PS_PARAMS`].
fn ps_params_raw(b: &[u8], open: usize) -> Result<(Vec<RawParam>, usize), usize> {
    let eof = b.len();
    let mut out = Vec::new();
    let mut attrs = Vec::new();
    let mut var: Option<(usize, usize)> = None;
    let mut default = None;
    let mut j = open + 1;
    loop {
        j = ps_skip_space(b, j);
        match *b.get(j).ok_or(eof)? {
            b'[' if var.is_none() => {
                let end = ps_scan(b, j, true).ok_or(eof)?;
                attrs.push((j, end));
                j = end;
            }
            b'$' if var.is_none() => {
                let end = ps_var(b, j).ok_or(j)?;
                var = Some((j, end));
                j = end;
            }
            b'=' if var.is_some() && default.is_none() => {
                let start = ps_skip_space(b, j + 1);
                let mut end = ps_scan(b, start, false).ok_or(eof)?;
                let stop = end;
                while end > start && b[end - 1].is_ascii_whitespace() {
                    end -= 1;
                }
                if end == start {
                    return Err(stop);
                }
                default = Some((j, (start, end)));
                j = stop;
            }
            c @ (b',' | b')') => {
                match var.take() {
                    Some(var) => out.push(RawParam {
                        attrs: std::mem::take(&mut attrs),
                        var,
                        default: default.take(),
                    }),
                    None if c == b')' && attrs.is_empty() && out.is_empty() => {}
                    None => return Err(j),
                }
                if out.len() > MAX_PS_PARAMS {
                    return Err(j);
                }
                if c == b')' {
                    return Ok((out, j + 1));
                }
                j += 1;
            }
            _ => return Err(j),
        }
    }
}

/// What an attribute of a PowerShell parameter says (`inner`: the text inside its
/// brackets): `[switch]`, `[Parameter(Mandatory)]`, `[Parameter(Position = 0)]`,
/// `[Alias("n")]`; others (`[string]`, `[ValidateSet(...)]`) say nothing read here.
fn ps_attribute(inner: &[u8], p: &mut PsParam) {
    let text = String::from_utf8_lossy(inner).to_ascii_lowercase();
    let (name, args) = match text.split_once('(') {
        Some((name, args)) => (name.trim(), args),
        None => {
            let t = text.trim();
            p.switch |= t == "switch" || t.ends_with(".switchparameter");
            return;
        }
    };
    match name {
        "parameter" => {
            if let Some(at) = args.find("mandatory") {
                let rest = args[at + "mandatory".len()..].trim_start();
                let off = rest
                    .strip_prefix('=')
                    .map(str::trim_start)
                    .is_some_and(|v| v.starts_with("$false") || v.starts_with('0'));
                p.mandatory |= !off;
            }
            p.positioned |= args.contains("position");
        }
        "alias" => {
            for (k, part) in args.split(['"', '\'']).enumerate() {
                if k % 2 == 1 && !part.is_empty() {
                    p.aliases.push(part.to_string());
                }
            }
        }
        _ => {}
    }
}

/// A PowerShell variable's scope and name: `env:NAME` is the environment's, `script:name`
/// (any other scope) and `name` the script's.
fn ps_var_name(raw: &str) -> (VarScope, String) {
    let lower = raw.to_ascii_lowercase();
    match lower.split_once(':') {
        Some(("env", _)) => (VarScope::Env, raw[4..].to_string()),
        Some((_, _)) => (
            VarScope::Shell,
            raw[raw.find(':').map_or(0, |p| p + 1)..].to_string(),
        ),
        None => (VarScope::Shell, raw.to_string()),
    }
}

/// Bytes of the UTF-8 character starting with `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// A shell tokenizer's comment as one suppressions are read from: a comment on its own
/// line covers the line of the next word after it, a trailing one its own line.
pub fn comment_of(source: &crate::source::SourceFile, c: &ShellComment) -> super::common::Comment {
    let target = if c.own_line {
        c.next_code.map(|at| super::common::line_of(source, at))
    } else {
        Some(super::common::line_of(source, c.span.start))
    };
    super::common::Comment {
        span: c.span,
        own_line: c.own_line,
        target_line: target,
        also: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(text: &str) -> Script {
        parse(text, Map::Base(0), LexOptions::new(Dialect::Bash))
    }

    fn lits(c: &ShellCommand) -> Vec<String> {
        c.words
            .iter()
            .map(|w| w.literal().unwrap_or_else(|| "<expansion>".into()))
            .collect()
    }

    #[test]
    fn words_quotes_continuations_and_spans() {
        let text =
            "az ml compute create \\\n  --name 'gpu' --size \"Standard_NC6\" -t amlcompute # make it\n";
        let s = bash(text);
        assert_eq!(s.commands.len(), 1);
        let c = &s.commands[0];
        assert_eq!(
            lits(c),
            [
                "az",
                "ml",
                "compute",
                "create",
                "--name",
                "gpu",
                "--size",
                "Standard_NC6",
                "-t",
                "amlcompute"
            ]
        );
        let WordPart::Lit { span, exact, .. } = &c.words[7].parts[0] else {
            panic!()
        };
        assert_eq!(&text[span.range()], "Standard_NC6");
        assert!(exact);
        assert_eq!(&text[c.words[7].span.range()], "\"Standard_NC6\"");
        assert_eq!(s.comments.len(), 1);
        assert_eq!(&text[s.comments[0].span.range()], "# make it");
        assert!(!s.comments[0].own_line);
    }

    #[test]
    fn expansions_are_parts() {
        let text = "az --name ${NAME:-cpu-${ENV:-dev}} --size $SIZE --tier \"$(get tier)\" -x ${S:0:3} ${{ parameters.n }} $1 `x`";
        let c = &bash(text).commands[0];
        let WordPart::Var {
            name,
            default: Some(d),
            ..
        } = &c.words[2].parts[0]
        else {
            panic!("{:?}", c.words[2])
        };
        assert_eq!(name, "NAME");
        assert!(matches!(&d[0], WordPart::Lit { text, .. } if text == "cpu-"));
        assert!(matches!(&d[1], WordPart::Var { name, default: Some(_), .. } if name == "ENV"));
        assert!(matches!(&c.words[4].parts[0], WordPart::Var { name, .. } if name == "SIZE"));
        assert!(matches!(
            &c.words[6].parts[0],
            WordPart::Dynamic {
                why: "the output of a command",
                ..
            }
        ));
        assert!(matches!(
            &c.words[8].parts[0],
            WordPart::Dynamic {
                why: "a substring or substitution of a variable",
                ..
            }
        ));
        assert!(matches!(&c.words[9].parts[0], WordPart::Expr { text, .. } if text == "parameters.n"));
        assert!(matches!(
            &c.words[10].parts[0],
            WordPart::Var {
                scope: VarScope::Positional,
                ..
            }
        ));
        assert!(matches!(&c.words[11].parts[0], WordPart::Dynamic { .. }));
    }

    /// An array's assignment and its expansion are parts of their own: `NAME=(...)` and
    /// `${NAME[@]}` (`${NAME[*]}`), for the reader to find the elements.
    #[test]
    fn arrays_are_parts() {
        let text = "a=(x \"y z\")\naz \"${a[@]}\" ${a[*]} ${a[1]}\n";
        let s = bash(text);
        assert!(
            matches!(&s.commands[0].words[0].parts[1], WordPart::Dynamic { why, span } if *why == ARRAY_VALUE && &text[span.range()] == "(x \"y z\")")
        );
        let w = &s.commands[1].words;
        assert!(
            matches!(&w[1].parts[..], [WordPart::Dynamic { why, span }] if *why == ARRAY && &text[span.range()] == "${a[@]}")
        );
        assert!(matches!(&w[2].parts[..], [WordPart::Dynamic { why, .. }] if *why == ARRAY));
        assert!(matches!(&w[3].parts[..], [WordPart::Dynamic { why, .. }] if *why != ARRAY));
    }

    /// The functions a script defines, and which of them run their arguments: `"$@"` (or
    /// `"${@:2}"`) as a command's first word or after `if`, `!`, `sudo`...; not as an
    /// argument (`echo "$@"`), nor in a function defined inside it.
    #[test]
    fn functions_and_whether_they_run_their_arguments() {
        let text = "retry() {\n  shift 2\n  for a in 1 2; do if \"$@\"; then return 0; fi; done\n}\nrun() { echo \"+ $*\"; \"$@\"; }\nshow() { echo \"$@\"; }\nfunction g { \"${@:2}\"; }\nfunction h() { ! sudo $@; }\nouter() { inner() { \"$@\"; }; }\nf(){ x; }\nglued(){\n  \"$@\"\n}\n";
        let s = bash(text);
        let got: Vec<(&str, bool)> = s
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f.runs_args))
            .collect();
        assert_eq!(
            got,
            [
                ("retry", true),
                ("run", true),
                ("show", false),
                ("g", true),
                ("h", true),
                ("outer", false),
                ("inner", true),
                ("f", false),
                ("glued", true),
            ]
        );
        assert_eq!(s.functions[0].at as usize, text.find('{').unwrap());
        // `f(){`: the header's word ends before the brace, which opens the body.
        let f = &s.functions[7];
        assert_eq!(f.at as usize, text.find("f(){").unwrap() + 3);
        assert!(
            !s.commands
                .iter()
                .any(|c| c.words[0].literal().is_some_and(|w| w.contains('{')))
        );
    }

    /// A script whose top level runs its arguments (`"$@"` outside every function, in an
    /// `if` or not) dispatches on them; one that does so only in a function does not.
    #[test]
    fn a_script_that_runs_its_arguments_at_its_top_level() {
        let dispatch = "f() { az x; }\nif [ \"$0\" = \"$BASH_SOURCE\" ]; then\n    \"$@\"\nfi\n";
        assert!(bash(dispatch).runs_args);
        assert!(bash("f() { az x; }\n$@\n").runs_args);
        let s = bash("retry() { \"$@\"; }\nretry az ml compute create\necho \"$@\"\n");
        assert!(!s.runs_args);
        assert!(s.functions[0].runs_args);
    }

    /// A command substitution's commands are read as commands, after the text around them,
    /// in a subshell of their own (`isolated`), in the order they start; `` `...` `` too;
    /// four deep at most.
    #[test]
    fn command_substitutions_are_commands() {
        let text =
            "OUT=$(az ml compute create --name a | jq .id)\nif x; then Y=\"`az b`\"; fi\nZ=$($($(az c)))\n";
        let s = bash(text);
        let all: Vec<Vec<String>> = s.commands.iter().map(lits).collect();
        let words = |w: &[&str]| w.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(
            all.contains(&words(&["az", "ml", "compute", "create", "--name", "a"])),
            "{all:?}"
        );
        assert!(all.contains(&words(&["jq", ".id"])), "{all:?}");
        assert!(all.contains(&words(&["az", "b"])), "{all:?}");
        assert!(all.contains(&words(&["az", "c"])), "{all:?}");
        let starts: Vec<u32> = s.commands.iter().map(|c| c.span.start).collect();
        assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
        let a = s
            .commands
            .iter()
            .find(|c| lits(c).first().map(String::as_str) == Some("az"))
            .unwrap();
        assert_eq!(&text[a.span.range()], "az ml compute create --name a");
        assert!(a.isolated && !a.conditional());
        let b = s.commands.iter().find(|c| lits(c) == ["az", "b"]).unwrap();
        assert_eq!(&text[b.span.range()], "az b");
        assert!(b.conditional(), "inside the `if`");
        // Five deep: the innermost is only output.
        let deep = format!("X={}az d{}\n", "$(".repeat(5), ")".repeat(5));
        assert!(
            !bash(&deep)
                .commands
                .iter()
                .any(|c| lits(c).contains(&"d".to_string()))
        );
        let four = format!("X={}az d{}\n", "$(".repeat(4), ")".repeat(4));
        assert!(bash(&four).commands.iter().any(|c| lits(c) == ["az", "d"]));
    }

    #[test]
    fn separators_blocks_and_conditions() {
        let text = "A=1; B=2 && C=3\nif [ x ]; then\n  D=4\nfi\nf() {\n  E=5\n}\ncase $x in\n  a) F=6 ;;\nesac\nG=7 | cat\n";
        let s = bash(text);
        let by_first: Vec<(String, u32, bool)> = s
            .commands
            .iter()
            .map(|c| (c.words[0].literal().unwrap_or_default(), c.depth, c.chained))
            .collect();
        let find = |w: &str| by_first.iter().find(|(f, ..)| f == w).cloned().unwrap();
        assert_eq!(find("A=1"), ("A=1".into(), 0, false));
        assert_eq!(find("C=3"), ("C=3".into(), 0, true));
        assert_eq!(find("D=4").1, 1);
        assert_eq!(find("E=5").1, 1);
        assert_eq!(find("F=6").1, 1);
        assert_eq!(find("G=7"), ("G=7".into(), 0, false));
        assert!(find("cat").2);
    }

    #[test]
    fn arithmetic_commands_are_one_word_not_assignments() {
        let s = parse(
            "for ((i=0; i<3; i++)); do echo $i; done\n(( n = 4 ))\n( cd x; y=1 )\n",
            Map::Base(0),
            LexOptions::new(Dialect::Bash),
        );
        let firsts: Vec<Option<String>> = s.commands.iter().map(|c| c.words[0].literal()).collect();
        assert_eq!(firsts[0].as_deref(), Some("for"));
        assert!(matches!(
            s.commands[0].words[1].parts.as_slice(),
            [WordPart::Dynamic { .. }]
        ));
        assert!(
            !firsts.iter().any(|f| f
                .as_deref()
                .is_some_and(|f| f.starts_with("i=") || f.starts_with('n'))),
            "{firsts:?}"
        );
        // A subshell still opens a block of commands.
        assert!(firsts.contains(&Some("y=1".to_string())), "{firsts:?}");
    }

    #[test]
    fn redirections_and_heredocs() {
        let text = "cat <<EOF > out.txt\naz ml compute create --name hidden\nEOF\naz ml compute create --name x 2>&1 >/dev/null\n";
        let s = bash(text);
        let cmds: Vec<Vec<String>> = s.commands.iter().map(lits).collect();
        assert_eq!(
            cmds,
            [vec!["cat"], vec!["az", "ml", "compute", "create", "--name", "x"]]
        );
    }

    #[test]
    fn powershell_and_cmd() {
        let text = "$Name = \"cpu\"  # the cluster\naz ml compute create --name $Name `\n  --size $env:SIZE --tier 'low''s' --x $true\n<# block #>\nparam([string]$Size = 'DS3')\n";
        let s = parse(text, Map::Base(0), LexOptions::new(Dialect::PowerShell));
        let c = &s.commands[1];
        assert!(
            matches!(&c.words[5].parts[0], WordPart::Var { name, scope: VarScope::Shell, .. } if name == "Name")
        );
        assert!(
            matches!(&c.words[7].parts[0], WordPart::Var { name, scope: VarScope::Env, .. } if name == "SIZE")
        );
        assert_eq!(c.words[9].literal().as_deref(), Some("low's"));
        assert_eq!(c.words[11].literal().as_deref(), Some("True"));
        assert_eq!(s.comments.len(), 2);
        assert_eq!(lits(&s.commands[0]), ["<expansion>", "=", "cpu"]);

        let text = "set NAME=cpu\r\nREM amlint: ignore[AML702]\r\naz ml compute create --name %NAME% ^\r\n  --size \"%SIZE%\" --x %1 & echo done\r\n:: end\r\n";
        let s = parse(text, Map::Base(0), LexOptions::new(Dialect::Cmd));
        assert_eq!(lits(&s.commands[0]), ["set", "NAME=cpu"]);
        let c = &s.commands[1];
        assert!(matches!(&c.words[5].parts[0], WordPart::Var { name, .. } if name == "NAME"));
        assert!(matches!(&c.words[7].parts[0], WordPart::Var { name, .. } if name == "SIZE"));
        assert!(matches!(
            &c.words[9].parts[0],
            WordPart::Var {
                scope: VarScope::Positional,
                ..
            }
        ));
        assert_eq!(s.commands.len(), 3);
        assert_eq!(s.comments.len(), 2);
        assert!(s.comments[0].own_line);
        assert_eq!(s.comments[0].next_code, Some(text.find("az").unwrap() as u32));
    }

    /// PowerShell's `param(...)` lists, attributes and all, and its functions: each
    /// parameter with its attributes, each default an assignment at the parameter's name.
    #[test]
    fn powershell_parameter_lists_and_functions() {
        let text = "[CmdletBinding()]\nparam(\n    [Parameter(Mandatory)][string]$ComputeName = \"cpu\",\n    [Parameter(Mandatory=$true, HelpMessage=\"a, b)\")]\n    [ValidateSet(\"a\",\"b\")] [Alias(\"s\", 'vm')]\n    [string]$Size = 'Standard_NC6', # the size\n    [ValidateNotNullOrEmpty()]\n    [int]$Max = 3,\n    [switch]$Force,\n    [Parameter(Mandatory = $false)]$Tier = (Get-Tier)\n)\nfunction New-X($Name, $Kind = \"amlcompute\") {\n  az ml compute create --name $Name\n}\nFunction Script:Other\n{\n  param([Parameter(Position = 0)][string]$N)\n}\n";
        let s = parse(text, Map::Base(0), LexOptions::new(Dialect::PowerShell));
        let shown: Vec<(&str, bool, bool, bool, Vec<String>)> = s
            .params
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.default,
                    p.mandatory,
                    p.switch,
                    p.aliases.clone(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("ComputeName", true, true, false, vec![]),
                ("Size", true, true, false, vec!["s".to_string(), "vm".to_string()]),
                ("Max", true, false, false, vec![]),
                ("Force", false, false, true, vec![]),
                ("Tier", true, false, false, vec![]),
            ]
        );
        let at = |p: &PsParam| &text[p.span.start as usize..p.span.end as usize];
        assert_eq!(at(&s.params[1]), "$Size");
        // Each default is an assignment at the parameter's name, not in a block.
        let assigned: Vec<Vec<String>> = s
            .commands
            .iter()
            .filter(|c| matches!(c.words.get(1).and_then(Word::literal).as_deref(), Some("=")))
            .map(lits)
            .collect();
        assert_eq!(
            assigned,
            [
                vec!["<expansion>", "=", "cpu"],
                vec!["<expansion>", "=", "Standard_NC6"],
                vec!["<expansion>", "=", "3"],
                vec!["<expansion>", "=", "(Get-Tier)"],
                vec!["<expansion>", "=", "amlcompute"],
            ]
        );
        let size = s
            .commands
            .iter()
            .find(|c| c.span.start == s.params[1].span.start)
            .unwrap();
        assert_eq!(size.depth, 0);
        let v = size.words[2].parts[0].span();
        assert_eq!(&text[v.start as usize..v.end as usize], "Standard_NC6");
        // Functions: the list before the body is the function's; its body starts there.
        let [f, g] = s.functions.as_slice() else {
            panic!("{:?}", s.functions)
        };
        assert_eq!((f.name.as_str(), g.name.as_str()), ("New-X", "Other"));
        assert_eq!(f.at as usize, text.find("($Name").unwrap());
        assert_eq!(f.end as usize, text.find("}\nFunction").unwrap() + 1);
        let names: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["Name", "Kind"]);
        let kind = s
            .commands
            .iter()
            .find(|c| c.span.start == f.params[1].span.start)
            .unwrap();
        assert_eq!(kind.depth, f.depth);
        assert!(g.params[0].positioned && !g.params[0].default);
    }

    /// Unterminated or malformed lists are read as before, each byte by hand once.
    #[test]
    fn powershell_parameter_lists_that_are_not() {
        for text in [
            "param(\n [string]$a = \"x\",\n",
            "param([Parameter(Mandatory)",
            "function F($a = {) { az ml compute create --name $a }",
            "param($a $b)\naz ml compute create --name $a\n",
            "param($env:X = 1)\n",
            "function F(",
        ] {
            let s = parse(text, Map::Base(0), LexOptions::new(Dialect::PowerShell));
            assert!(s.params.is_empty(), "{text}: {:?}", s.params);
        }
        // Lists nested in lists that are not one: linear.
        let text = "param([x ".repeat(20_000);
        let s = parse(&text, Map::Base(0), LexOptions::new(Dialect::PowerShell));
        assert!(s.params.is_empty());
        let text = "param($a, ".repeat(20_000);
        let s = parse(&text, Map::Base(0), LexOptions::new(Dialect::PowerShell));
        assert!(s.params.is_empty());
    }

    #[test]
    fn make_recipes_and_macros() {
        let o = LexOptions {
            make: true,
            ..LexOptions::new(Dialect::Bash)
        };
        let c = &parse(
            "az --name $(NAME) --size $${SIZE} --x $(shell date)",
            Map::Base(0),
            o,
        )
        .commands[0];
        assert!(
            matches!(&c.words[2].parts[0], WordPart::Var { name, scope: VarScope::Make, .. } if name == "NAME")
        );
        assert!(
            matches!(&c.words[4].parts[0], WordPart::Var { name, scope: VarScope::Shell, .. } if name == "SIZE")
        );
        assert!(matches!(&c.words[6].parts[0], WordPart::Dynamic { .. }));
        let o = LexOptions {
            macros: true,
            newlines: false,
            ..LexOptions::new(Dialect::Bash)
        };
        let s = parse("az --name $(CLUSTER_NAME)\n  --size $(vm.size)", Map::Base(0), o);
        assert_eq!(s.commands.len(), 1, "folded: one command");
        assert!(
            matches!(&s.commands[0].words[2].parts[0], WordPart::Macro { name, .. } if name == "CLUSTER_NAME")
        );
        assert!(
            matches!(&s.commands[0].words[4].parts[0], WordPart::Macro { name, .. } if name == "vm.size")
        );
    }

    #[test]
    fn a_table_maps_decoded_text_to_the_file() {
        // `"!az --n \"x\""` in a JSON string: decoded `az --n "x"`.
        let table: Vec<u32> = vec![12, 13, 14, 15, 16, 17, 18, 20, 21, 23, 24];
        let s = parse("az --n \"x\"", Map::Table(&table), LexOptions::new(Dialect::Bash));
        let WordPart::Lit { span, .. } = &s.commands[0].words[2].parts[0] else {
            panic!()
        };
        assert_eq!(*span, Span::new(21, 23));
    }

    #[test]
    fn hostile_input_ends() {
        for text in [
            "${",
            "$(",
            "\"unterminated",
            "'x",
            "<<",
            "`",
            "\\",
            "${a:-${b:-${c:-${d:-${e:-${f:-x}}}}}}",
            "((((",
            "))))",
            "$((",
            "%",
            "!x",
        ] {
            for d in [Dialect::Bash, Dialect::PowerShell, Dialect::Cmd] {
                let _ = parse(text, Map::Base(0), LexOptions::new(d));
            }
        }
        let deep = "${a:-".repeat(10_000);
        let _ = bash(&deep);
        let many = "(".repeat(100_000);
        let _ = bash(&many);
        // Defaults inside quotes inside defaults: read to the same fixed depth.
        // Block comments side by side on one long line.
        let comments = "x <##>".repeat(200_000);
        let s = parse(&comments, Map::Base(0), LexOptions::new(Dialect::PowerShell));
        assert!(s.comments.iter().all(|c| !c.own_line));
        let quoted = "${a:-\"".repeat(100_000);
        let _ = bash(&quoted);
        let quoted = "\"${a:-".repeat(100_000) + &"}\"".repeat(100_000);
        let s = bash(&quoted);
        assert_eq!(s.commands.len(), 1);
    }
}
