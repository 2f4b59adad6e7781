//! `az ml compute create` written in documentation: Markdown (`.md`, `.markdown`),
//! reStructuredText (`.rst`) and plain text (`.txt`). The commands a reader would type are
//! found where documents write them — fenced code blocks (```` ```bash ````,
//! ```` ```azurecli ````, ```` ```powershell ````, ```` ```cmd ````, ```` ```console ````
//! with `$ ` prompts, unlabelled fences, `~~~`), reST `.. code-block::` directives and `::`
//! literal blocks, lines of their own that start with `az` (with their `\`, `` ` `` or `^`
//! continuations), and inline code (`` `az ml compute create …` ``) — and each region is
//! handed, at its own offsets in the file, to the shell tokenizer and the az CLI reader the
//! scripts use. The regions of one dialect form one script in document order, as a reader
//! typing them into one terminal would run them: a variable assigned in an earlier block
//! is known in a later one.
//!
//! Suppressions: the shell's own comments inside a code block, and outside code an HTML
//! comment (`<!-- amlint: ignore[AML505] -->`) in Markdown or a comment (`.. amlint:
//! ignore[AML505]`) in reST, covering its own line when it follows text, else the next
//! line with content (a fence's opening line and a directive are not content: a comment
//! above a code block covers the block's first line).
//!
//! One pass over the lines (a fence never closed runs to the end of the file, as in
//! CommonMark); each region is tokenized once; linear in the file.

use super::az_cli::{Ctx, Eval, Outer, ScriptVal, Vars, definitions, wanted};
use super::common::{Comment, Definitions, Input, Reader, line_of};
use super::ipynb::Code;
use super::python_sdk;
use super::shell::{Dialect, Keep, LexOptions, MAX_VAR_COMMANDS, Map, Script, comment_of, parse};
use crate::source::Span;

pub const READER: Reader = Reader {
    name: "az-cli docs",
    wants: is_doc,
    needles: NEEDLES,
    defines: DEFINES,
    read,
};

/// The words of a document this reader looks further for: an az command's
/// (`scripts::NEEDLES`) or the Python SDK's ([`python_sdk::DEFINING_WORDS`]).
const NEEDLES: &[&str] = &[
    "ml compute",
    "AmlCompute",
    "ComputeInstance",
    "KubernetesCompute",
    "VirtualMachineCompute",
    "SynapseSparkCompute",
    "provisioning_configuration",
    "ComputeTarget.create",
    "attach_configuration",
    "load_compute",
];

/// The words of a document that may define a compute itself: a command's
/// (`common::COMMAND_WORDS`) or the Python SDK's.
const DEFINES: &[&str] = &[
    "ml compute create",
    "ml compute attach",
    "ml computetarget create",
    "AmlCompute",
    "ComputeInstance",
    "KubernetesCompute",
    "VirtualMachineCompute",
    "SynapseSparkCompute",
    "provisioning_configuration",
    "ComputeTarget.create",
    "attach_configuration",
    "load_compute",
];

/// Whether a (lower-cased) file name is documentation this reader reads.
pub fn is_doc(name: &str) -> bool {
    [".md", ".markdown", ".rst", ".txt", ".adoc"]
        .iter()
        .any(|s| name.len() > s.len() && name.ends_with(s))
}

/// A region of the file read as a script: `[start, end)`, in its dialect.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Piece {
    dialect: Dialect,
    start: usize,
    end: usize,
}

/// A comment of the document (HTML or reST) and the offset of the line it covers.
struct DocComment {
    span: Span,
    own_line: bool,
    target: Option<usize>,
}

/// The regions and comments of one document.
struct Scan<'a> {
    text: &'a str,
    rst: bool,
    pieces: Vec<Piece>,
    /// The Python code blocks (`[start, end)`), in document order.
    python: Vec<(usize, usize)>,
    comments: Vec<DocComment>,
    /// Comments standing alone, waiting for the next line with content.
    pending: Vec<usize>,
}

/// The line at `pos`: where its text ends (before `\r\n` or `\n`) and where the next
/// line starts.
fn line_at(text: &str, pos: usize) -> (usize, usize) {
    let b = text.as_bytes();
    match memchr::memchr(b'\n', &b[pos..]) {
        Some(i) => {
            let nl = pos + i;
            let end = if nl > pos && b[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            (end, nl + 1)
        }
        None => (b.len(), b.len()),
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// A fence's opening (```` ``` ```` or `~~~`, three or more): its character and length.
fn fence_open(trimmed: &str) -> Option<(u8, usize)> {
    let b = trimmed.as_bytes();
    let c = *b.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = b.iter().take_while(|&&x| x == c).count();
    // A backtick fence's info string holds no backtick (else it is inline code).
    (n >= 3 && !(c == b'`' && trimmed[n..].contains('`'))).then_some((c, n))
}

fn fence_closes(line: &str, c: u8, n: usize) -> bool {
    let t = line.trim();
    let run = t.bytes().take_while(|&x| x == c).count();
    run >= n && run == t.len()
}

/// A code block's language, as its info string or directive argument names it.
fn language(info: &str) -> String {
    info.trim()
        .trim_start_matches(['{', '.'])
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '{' | '}' | '='))
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The shell a code block of `lang` holds; `body` decides for blocks whose language
/// says no shell (unlabelled, `console`, `text`, `azurecli`, or a language this reader
/// does not know, when a line runs `az`): the line continuation most of its lines end
/// with (`` ` `` PowerShell, `^` cmd, else bash). `None`: not a shell (YAML, Python...).
fn dialect_of(lang: &str, body: &str) -> Option<Dialect> {
    match lang {
        "bash" | "sh" | "zsh" | "ksh" | "shell-script" => Some(Dialect::Bash),
        "powershell" | "pwsh" | "ps1" | "ps" | "posh" | "azurepowershell" | "azurepowershell-interactive" => {
            Some(Dialect::PowerShell)
        }
        "cmd" | "bat" | "batch" | "batchfile" | "dos" | "doscon" | "winbatch" => Some(Dialect::Cmd),
        ""
        | "shell"
        | "console"
        | "shell-session"
        | "shellsession"
        | "session"
        | "terminal"
        | "text"
        | "txt"
        | "plaintext"
        | "plain"
        | "none"
        | "cli"
        | "azcli"
        | "azure-cli"
        | "azurecli"
        | "azurecli-interactive" => Some(guessed_dialect(body)),
        // A language this reader does not know (`dotnetcli`, which Microsoft Learn pages
        // put on Azure CLI snippets, `azure`, `az`): a block one of whose lines runs `az`
        // is commands, as an unlabelled one is. Languages of code and data are not.
        _ if !is_code_or_data(lang) && runs_az(body) => Some(guessed_dialect(body)),
        _ => None,
    }
}

/// Fence languages of code and data, whose lines are never commands typed at a shell
/// (a line `az ml compute create ...` in them is text of that language).
fn is_code_or_data(lang: &str) -> bool {
    is_python(lang)
        || matches!(
            lang,
            "yaml"
                | "yml"
                | "json"
                | "jsonc"
                | "toml"
                | "ini"
                | "xml"
                | "html"
                | "markdown"
                | "md"
                | "r"
                | "javascript"
                | "js"
                | "typescript"
                | "ts"
                | "csharp"
                | "cs"
                | "c#"
                | "java"
                | "go"
                | "rust"
                | "c"
                | "cpp"
                | "c++"
                | "sql"
                | "hcl"
                | "terraform"
                | "tf"
                | "bicep"
                | "dockerfile"
                | "docker"
                | "makefile"
                | "make"
                | "diff"
                | "patch"
                | "csv"
                | "log"
                | "output"
        )
}

/// Languages that name a shell (a block of one is commands, never Python).
fn is_shell(lang: &str) -> bool {
    matches!(
        lang,
        "bash"
            | "sh"
            | "zsh"
            | "ksh"
            | "shell-script"
            | "powershell"
            | "pwsh"
            | "ps1"
            | "ps"
            | "posh"
            | "azurepowershell"
            | "azurepowershell-interactive"
            | "cmd"
            | "bat"
            | "batch"
            | "batchfile"
            | "dos"
            | "doscon"
            | "winbatch"
            | "azcli"
            | "azure-cli"
            | "azurecli"
            | "azurecli-interactive"
    )
}

/// Fence languages of Python (read for SDK calls by the Python reader).
fn is_python(lang: &str) -> bool {
    matches!(lang, "python" | "py" | "python3" | "ipython" | "ipython3")
}

/// Whether a line of `body` (after a prompt) runs `az`.
fn runs_az(body: &str) -> bool {
    body.lines().any(|line| {
        let t = line.trim_start();
        let t = prompt(t).map_or(t, |p| &t[p..]);
        t.starts_with("az ")
    })
}

/// The dialect of an unlabelled block (or one labelled only as a shell or terminal): the
/// continuation character most of its lines end with (`\`, `` ` ``, `^`).
fn guessed_dialect(body: &str) -> Dialect {
    let mut counts = [0usize; 3];
    for line in body.lines() {
        match line.trim_end().as_bytes().last() {
            Some(b'\\') => counts[0] += 1,
            Some(b'`') => counts[1] += 1,
            Some(b'^') => counts[2] += 1,
            _ => {}
        }
    }
    if counts[1] > counts[0].max(counts[2]) {
        Dialect::PowerShell
    } else if counts[2] > counts[0] {
        Dialect::Cmd
    } else {
        Dialect::Bash
    }
}

/// The length of a shell prompt at the start of `t` (`$ `, `PS> `, `PS C:\dir> `,
/// `C:\dir>`), if one is there.
fn prompt(t: &str) -> Option<usize> {
    if t.starts_with("$ ") {
        return Some(2);
    }
    let ps = t.starts_with("PS ") || t.starts_with("PS>");
    // Compared as bytes: the third byte may be inside a character (`- Clúster`).
    let b = t.as_bytes();
    let drive = b.len() > 3 && b[0].is_ascii_alphabetic() && &b[1..3] == b":\\";
    if ps || drive {
        let gt = t.find('>')?;
        // A prompt is short and holds no space before a drive (`PS C:\x>`).
        if gt > 200 {
            return None;
        }
        let after = gt + 1;
        return Some(after + usize::from(t[after..].starts_with(' ')));
    }
    None
}

/// The continuation character of a dialect's lines.
fn continuation(d: Dialect) -> u8 {
    match d {
        Dialect::Bash => b'\\',
        Dialect::PowerShell => b'`',
        Dialect::Cmd => b'^',
    }
}

fn ends_continued(line: &str, d: Dialect) -> bool {
    line.trim_end().as_bytes().last() == Some(&continuation(d))
}

/// What a plain line of prose may start with before a command: blockquote marks, a list
/// item's bullet or number, a prompt.
fn strip_markers(mut t: &str) -> &str {
    for _ in 0..8 {
        let before = t.len();
        t = t.trim_start();
        if let Some(r) = t.strip_prefix('>') {
            t = r;
        } else if let Some(r) = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .or_else(|| t.strip_prefix("+ "))
        {
            t = r;
        } else if let Some(p) = prompt(t) {
            t = &t[p..];
        } else {
            let digits = t.bytes().take_while(u8::is_ascii_digit).count();
            if (1..=9).contains(&digits) && matches!(t.as_bytes().get(digits), Some(b'.' | b')')) {
                t = &t[digits + 1..];
            }
        }
        if t.len() == before {
            break;
        }
    }
    t.trim_start()
}

/// Whether `t` starts with the `az` command.
fn starts_az(t: &str) -> bool {
    ["az ", "az.cmd ", "az.exe "].iter().any(|p| t.starts_with(p))
}

/// The dialect of a plain line that assigns a variable (`NAME=value`, `export NAME=`,
/// `$Name = `, `set NAME=`), if it is one.
fn assignment(t: &str) -> Option<Dialect> {
    let ident = |s: &str| {
        let n = s
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        (n > 0 && !s.as_bytes()[0].is_ascii_digit()).then_some(n)
    };
    if let Some(r) = t.strip_prefix('$') {
        let n = ident(r)?;
        return r[n..]
            .trim_start()
            .starts_with('=')
            .then_some(Dialect::PowerShell);
    }
    if let Some(r) = t.strip_prefix("set ").or_else(|| t.strip_prefix("SET ")) {
        let n = ident(r.trim_start())?;
        return r.trim_start()[n..].starts_with('=').then_some(Dialect::Cmd);
    }
    let r = t.strip_prefix("export ").map_or(t, str::trim_start);
    let n = ident(r)?;
    let rest = &r[n..];
    (rest.starts_with('=') && rest.len() > 1 && !rest[1..].starts_with([' ', '='])).then_some(Dialect::Bash)
}

/// The inline code spans of `b[pos..end)` (one line), each as the range of its content:
/// a span opens with a run of backticks and closes at the next run of as many; a run
/// that none closes is text (CommonMark). Each run is looked at once.
fn code_spans(b: &[u8], pos: usize, end: usize) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = pos;
    while let Some(j) = memchr::memchr(b'`', &b[i..end]) {
        let at = i + j;
        let n = b[at..end].iter().take_while(|&&c| c == b'`').count();
        runs.push((at, n));
        i = at + n;
    }
    // For each length, the runs of that length in order and how many were passed.
    let mut by_len: std::collections::HashMap<usize, (Vec<usize>, usize)> = Default::default();
    for (k, &(_, n)) in runs.iter().enumerate() {
        by_len.entry(n).or_default().0.push(k);
    }
    let mut spans = Vec::new();
    let mut k = 0;
    while k < runs.len() {
        let (open, n) = runs[k];
        let Some((same, passed)) = by_len.get_mut(&n) else {
            break;
        };
        while *passed < same.len() && same[*passed] <= k {
            *passed += 1;
        }
        match same.get(*passed) {
            Some(&closing) => {
                spans.push((open + n, runs[closing].0));
                k = closing + 1;
            }
            None => k += 1,
        }
    }
    spans
}

impl<'a> Scan<'a> {
    fn new(text: &'a str, rst: bool) -> Self {
        Scan {
            text,
            rst,
            pieces: Vec::new(),
            python: Vec::new(),
            comments: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// A line with content at `at`: the comments waiting cover it.
    fn content(&mut self, at: usize) {
        for i in self.pending.drain(..) {
            self.comments[i].target = Some(at);
        }
    }

    fn comment(&mut self, span: Span, own_line: bool, line: usize) {
        if own_line {
            self.pending.push(self.comments.len());
        }
        self.comments.push(DocComment {
            span,
            own_line,
            target: (!own_line).then_some(line),
        });
    }

    fn run(&mut self) {
        let text = self.text;
        let len = text.len();
        let mut pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
        while pos < len {
            let (end, next) = line_at(text, pos);
            let line = &text[pos..end];
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            if trimmed.is_empty() {
                pos = next;
                continue;
            }
            if !self.rst
                && let Some((c, n)) = fence_open(trimmed)
            {
                // The block runs to its closing fence, or to the end of the file.
                let mut p = next;
                let mut close = None;
                while p < len {
                    let (e, nx) = line_at(text, p);
                    if fence_closes(&text[p..e], c, n) {
                        close = Some((p, nx));
                        break;
                    }
                    p = nx;
                }
                let body_end = close.map_or(len, |(s, _)| s);
                self.block(&language(&trimmed[n..]), next, body_end, false);
                pos = close.map_or(len, |(_, nx)| nx);
                continue;
            }
            if self.rst && trimmed.starts_with("..") {
                pos = self.rst_explicit(pos, end, next, indent);
                continue;
            }
            if self.rst && trimmed.trim_end().ends_with("::") {
                // A literal block follows, more indented than this paragraph.
                self.content(pos);
                pos = self.rst_block(next, indent, "");
                continue;
            }
            pos = self.prose(pos, end, next);
        }
    }

    /// A line outside code: HTML comments, a command of its own, inline code. Returns
    /// where the next line to read starts.
    fn prose(&mut self, pos: usize, end: usize, next: usize) -> usize {
        let text = self.text;
        let mut next = next;
        let mut code_end = end;
        let mut content = self.rst;
        // HTML comments (Markdown and text): `<!-- … -->`, possibly over several lines.
        let mut from = pos;
        // `<!--` inside inline code is text.
        let code = if !self.rst && memchr::memchr(b'`', &text.as_bytes()[pos..end]).is_some() {
            code_spans(text.as_bytes(), pos, end)
        } else {
            Vec::new()
        };
        let mut passed = 0;
        while !self.rst {
            let Some(i) = memchr::memmem::find(&text.as_bytes()[from..end], b"<!--") else {
                content |= !text[from..end].trim().is_empty();
                break;
            };
            let open = from + i;
            // The spans are in order and so are the comments: one cursor passes both.
            while code.get(passed).is_some_and(|&(_, e)| e <= open) {
                passed += 1;
            }
            if let Some(&(s, e)) = code.get(passed)
                && s <= open
            {
                content = true;
                from = e;
                continue;
            }
            content |= !text[from..open].trim().is_empty();
            let close = memchr::memmem::find(&text.as_bytes()[open + 4..], b"-->")
                .map_or(text.len(), |j| open + 4 + j + 3);
            code_end = code_end.min(open);
            self.comment(Span::new(open as u32, close as u32), !content, pos);
            if close > end {
                // It ends on a later line: reading goes on after that line.
                next = next.max(line_at(text, close - 1).1);
                break;
            }
            from = close;
        }
        if !content {
            return next;
        }
        self.content(pos);
        let line = &text[pos..code_end];
        let body = strip_markers(line);
        let body_at = code_end - body.len();
        if starts_az(body) {
            // The command and the lines it continues onto.
            let first = line.trim_end();
            let dialect = if first.ends_with('`') {
                Dialect::PowerShell
            } else if first.ends_with('^') {
                Dialect::Cmd
            } else {
                Dialect::Bash
            };
            let mut piece_end = code_end;
            let mut last = line;
            let mut n = next;
            while ends_continued(last, dialect) && n < text.len() {
                let (e, nx) = line_at(text, n);
                last = &text[n..e];
                piece_end = e;
                n = nx;
            }
            if memchr::memmem::find(&text.as_bytes()[body_at..piece_end], b"ml compute").is_some() {
                self.pieces.push(Piece {
                    dialect,
                    start: body_at,
                    end: piece_end,
                });
            }
            return n.max(next);
        }
        if let Some(d) = assignment(body) {
            self.pieces.push(Piece {
                dialect: d,
                start: body_at,
                end: code_end,
            });
            return next;
        }
        if memchr::memmem::find(line.as_bytes(), b"ml compute").is_some() {
            self.inline_code(pos, code_end);
        }
        next
    }

    /// Inline code spans of `[pos, end)` (one line) that hold an az command.
    fn inline_code(&mut self, pos: usize, end: usize) {
        for (start, close) in code_spans(self.text.as_bytes(), pos, end) {
            let code = &self.text[start..close];
            let lead = code.len() - code.trim_start().len();
            let body = code.trim_start();
            let skip = prompt(body).unwrap_or(0);
            if starts_az(&body[skip..]) {
                self.pieces.push(Piece {
                    dialect: Dialect::Bash,
                    start: start + lead + skip,
                    end: start + code.trim_end().len(),
                });
            }
        }
    }

    /// A code block's body `[start, end)` in the language `lang`; `rst_prompted`: a reST
    /// `prompt` directive (its body has no prompts).
    fn block(&mut self, lang: &str, start: usize, end: usize, rst_prompted: bool) {
        let text = self.text;
        let body = &text[start..end];
        // The first line with content covers what waits.
        let first = body.len() - body.trim_start().len();
        if first < body.len() {
            let at = start + first;
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1).max(start);
            self.content(line_start);
        }
        if is_python(lang) {
            self.python.push((start, end));
            self.shell_escapes(start, end);
            return;
        }
        let Some(dialect) = dialect_of(lang, body) else {
            return;
        };
        // A block that names no language (or only a terminal's) and calls the Python SDK
        // is Python (a workshop's unlabelled fence of SDK v1 code): read as such too —
        // as commands it holds none.
        if !is_shell(lang)
            && !runs_az(body)
            && super::common::mentions(body.as_bytes(), python_sdk::DEFINING_WORDS)
        {
            self.python.push((start, end));
        }
        let session = !rst_prompted && prompt(body.trim_start()).is_some();
        if !session {
            self.pieces.push(Piece { dialect, start, end });
            return;
        }
        // A terminal session: the commands after prompts (with their continuations);
        // the other lines are output.
        let mut pos = start;
        while pos < end {
            let (e, nx) = line_at(text, pos);
            let e = e.min(end);
            let line = &text[pos..e];
            let t = line.trim_start();
            let Some(p) = prompt(t) else {
                pos = nx;
                continue;
            };
            let cmd_start = e - t.len() + p;
            let mut piece_end = e;
            let mut last = line;
            let mut n = nx;
            while ends_continued(last, dialect) && n < end {
                let (e2, nx2) = line_at(text, n);
                last = &text[n..e2.min(end)];
                piece_end = e2.min(end);
                n = nx2;
            }
            self.pieces.push(Piece {
                dialect,
                start: cmd_start,
                end: piece_end,
            });
            pos = n.max(nx);
        }
    }

    /// IPython's shell escapes in a Python block `[start, end)`: a line `!az …` (with its
    /// `\` continuations) is a bash command, as a notebook's `!` line is (audit 18: a
    /// notebook's Markdown cell showing `!az ml compute create --file …` in a Python fence).
    fn shell_escapes(&mut self, start: usize, end: usize) {
        let text = self.text;
        let mut pos = start;
        while pos < end {
            let (e, nx) = line_at(text, pos);
            let e = e.min(end);
            let t = text[pos..e].trim_start();
            let Some(cmd) = t.strip_prefix('!').map(str::trim_start).filter(|c| starts_az(c)) else {
                pos = nx;
                continue;
            };
            let cmd_start = e - cmd.len();
            let mut piece_end = e;
            let mut last = cmd;
            let mut n = nx;
            while ends_continued(last, Dialect::Bash) && n < end {
                let (e2, nx2) = line_at(text, n);
                last = &text[n..e2.min(end)];
                piece_end = e2.min(end);
                n = nx2;
            }
            self.pieces.push(Piece {
                dialect: Dialect::Bash,
                start: cmd_start,
                end: piece_end,
            });
            pos = n.max(nx);
        }
    }

    /// A reST explicit markup line (`.. name:: arg`, `.. comment`) at `pos`; returns where
    /// reading goes on.
    fn rst_explicit(&mut self, pos: usize, end: usize, next: usize, indent: usize) -> usize {
        let line = &self.text[pos..end];
        let t = line.trim_start();
        let rest = t[2..].trim_start();
        if let Some((name, arg)) = rest.split_once("::")
            && !name.is_empty()
            && !name.contains(char::is_whitespace)
        {
            let name = name.to_ascii_lowercase();
            if matches!(name.as_str(), "code-block" | "code" | "sourcecode" | "prompt") {
                return self.rst_code(next, indent, &language(arg), name == "prompt");
            }
            // Another directive: its body is read as the document goes on.
            return next;
        }
        if t == ".." || rest.starts_with('_') || rest.starts_with('|') || rest.starts_with('[') {
            // A target, a substitution, a footnote, an empty comment.
            return next;
        }
        let at = pos + indent;
        self.comment(Span::new(at as u32, end as u32), true, pos);
        next
    }

    /// The body of a reST code directive whose line starts at `indent`, from `start`: its
    /// options (`:linenos:`), then the lines more indented than the directive.
    fn rst_code(&mut self, start: usize, indent: usize, lang: &str, prompted: bool) -> usize {
        let text = self.text;
        let mut pos = start;
        // Options right after the directive.
        while pos < text.len() {
            let (e, nx) = line_at(text, pos);
            let l = &text[pos..e];
            if !l.trim().is_empty() && indent_of(l) > indent && l.trim_start().starts_with(':') {
                pos = nx;
            } else {
                break;
            }
        }
        let end = self.indented_end(pos, indent);
        self.block(lang, pos, end, prompted);
        end
    }

    /// A `::` literal block after a paragraph at `indent`.
    fn rst_block(&mut self, start: usize, indent: usize, lang: &str) -> usize {
        let end = self.indented_end(start, indent);
        if end > start {
            self.block(lang, start, end, false);
        }
        end
    }

    /// Where the lines from `start` that are blank or more indented than `indent` end.
    fn indented_end(&self, start: usize, indent: usize) -> usize {
        let text = self.text;
        let mut pos = start;
        let mut last = start;
        while pos < text.len() {
            let (e, nx) = line_at(text, pos);
            let l = &text[pos..e];
            if l.trim().is_empty() {
                pos = nx;
                continue;
            }
            if indent_of(l) <= indent {
                break;
            }
            last = nx;
            pos = nx;
        }
        last
    }
}

fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = input.source.text.as_str();
    let rst = input.file_name().ends_with(".rst");
    let mut scan = Scan::new(text, rst);
    scan.run();
    if super::common::mentions(text.as_bytes(), super::scripts::NEEDLES) {
        read_scripts(
            input,
            text,
            &scan,
            &|start| Map::Base(start as u32),
            "written in documentation (a command to type, not a script that runs)",
            out,
        );
    }
    if !scan.python.is_empty() && super::common::mentions(text.as_bytes(), python_sdk::DEFINING_WORDS) {
        python_sdk::read_shown(
            input,
            python_of(text, &scan.python),
            "written in documentation (Python shown to run, not a program of the project)",
            &python_placeholder,
            out,
        );
    }
    out.comments.extend(scan.comments.iter().map(|c| Comment {
        span: c.span,
        own_line: c.own_line,
        target_line: c.target.map(|at| line_of(input.source, at as u32)),
        also: Vec::new(),
    }));
}

/// The commands a notebook's Markdown cells write (`md`: those cells joined, mapped back
/// to the notebook's JSON strings), read as a Markdown file's are, each at its place in
/// the `.ipynb` file. The script's own comments are where suppressions are written.
pub fn read_notebook_markdown(input: &Input<'_>, md: &Code, out: &mut Definitions) {
    let mut scan = Scan::new(&md.text, false);
    scan.run();
    read_scripts(
        input,
        &md.text,
        &scan,
        &|start| Map::Code(md, start),
        "written in a Markdown cell of the notebook (a command to type, not code that runs)",
        out,
    );
}

/// The definitions of the regions `scan` found in `text` (the regions of one shell form
/// one script; `map`: where the region starting at a byte of `text` is in the file), each
/// said `note`, and the scripts' own comments.
fn read_scripts<'m>(
    input: &Input<'_>,
    text: &str,
    scan: &Scan<'_>,
    map: &dyn Fn(usize) -> Map<'m>,
    note: &str,
    out: &mut Definitions,
) {
    let outer = Placeholders {
        text: &input.source.text,
    };
    read_pieces(input, text, &scan.pieces, map, note, &outer, out);
}

/// The definitions of `pieces` of `text` (those of one shell form one script), each said
/// `note`, with `outer` saying what literal text stands for; and the scripts' comments.
fn read_pieces<'m>(
    input: &Input<'_>,
    text: &str,
    pieces: &[Piece],
    map: &dyn Fn(usize) -> Map<'m>,
    note: &str,
    outer: &dyn super::az_cli::Outer,
    out: &mut Definitions,
) {
    for dialect in [Dialect::Bash, Dialect::PowerShell, Dialect::Cmd] {
        let script = script_of(text, pieces.iter().filter(|p| p.dialect == dialect), map);
        if script.commands.is_empty() && script.comments.is_empty() {
            continue;
        }
        let vars = Vars::scan(&script, dialect);
        let cx = Ctx {
            input,
            eval: Eval { vars: &vars, outer },
            note: Some(note.into()),
        };
        out.computes.extend(definitions(&script, &cx));
        out.comments
            .extend(script.comments.iter().map(|c| comment_of(input.source, c)));
    }
}

/// The `az ml compute` commands a Python file runs from its strings (`regions`: each
/// string literal's content; `os.system("az ml compute create …")`, `subprocess.run("…",
/// shell=True)`, a docstring's example), each read as a bash script at its place in the
/// file, in file order as one script. A `{…}` in it (an f-string's or `str.format`'s) is
/// filled in at run time: not known.
pub fn read_python_strings(input: &Input<'_>, regions: &[(usize, usize)], out: &mut Definitions) {
    let text = input.source.text.as_str();
    let pieces: Vec<Piece> = (regions.iter())
        .map(|&(start, end)| Piece {
            dialect: Dialect::Bash,
            start,
            end,
        })
        .collect();
    let outer = PythonFormat { text };
    let mut found = Definitions::default();
    read_pieces(
        input,
        text,
        &pieces,
        &|start| Map::Base(start as u32),
        "run from a Python string",
        &outer,
        &mut found,
    );
    out.computes.append(&mut found.computes);
}

/// Literal text of a Python string that Python fills in at run time (`{name}`).
struct PythonFormat<'a> {
    text: &'a str,
}

impl Outer for PythonFormat<'_> {
    fn follows_cd(&self) -> bool {
        false
    }

    fn lit(&self, text: &str, span: Span) -> Option<ScriptVal> {
        (text.contains('{') && text.contains('}')).then(|| {
            let written = self.text.get(span.range()).unwrap_or(text);
            ScriptVal::Dynamic(format!(
                "`{written}` is filled in by Python at run time (an f-string's or `str.format`'s `{{…}}`)"
            ))
        })
    }
}

/// What stands for the `<` and `>` of a placeholder (`<compute-name>`) in a region given
/// to the tokenizer: bytes no shell treats specially (a placeholder is not a redirection),
/// of the same length (the offsets stay the file's).
const PLACEHOLDER_OPEN: u8 = 0x01;
const PLACEHOLDER_CLOSE: u8 = 0x02;

/// `region` with every `<name>` placeholder (a letter, then at most 64 letters, digits,
/// spaces or `_.:/-`, then `>`) marked.
fn mark_placeholders(region: &str) -> String {
    let mut b = region.as_bytes().to_vec();
    let mut i = 0;
    while let Some(j) = memchr::memchr(b'<', &b[i..]) {
        let open = i + j;
        let inner = b[open + 1..]
            .iter()
            .take(65)
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'/' | b'-' | b' '))
            .count();
        let close = open + 1 + inner;
        if inner > 0 && inner <= 64 && b[open + 1].is_ascii_alphabetic() && b.get(close) == Some(&b'>') {
            b[open] = PLACEHOLDER_OPEN;
            b[close] = PLACEHOLDER_CLOSE;
            i = close + 1;
        } else {
            i = open + 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    String::from_utf8(b).unwrap_or_else(|_| region.to_string())
}

/// A documentation value that is a placeholder for the reader to fill in: `<name>`,
/// `{cluster}`, `[SIZE]`, `VM_SIZE` (no compute name has `_`, every VM size a digit).
fn is_placeholder(text: &str) -> bool {
    let upper_snake = text.contains('_')
        && text.bytes().all(|c| c.is_ascii_uppercase() || c == b'_')
        && text.bytes().any(|c| c.is_ascii_uppercase());
    text.bytes()
        .any(|c| c == PLACEHOLDER_OPEN || c == PLACEHOLDER_CLOSE)
        || (text.contains('{') && text.contains('}'))
        || (text.starts_with('[') && text.ends_with(']'))
        || upper_snake
}

/// The Python code blocks `blocks` of `text` as one program in document order (each block
/// a cell), every byte mapped to its place in the file; each block's lines lose the
/// indentation they all share (a fence inside a list item, a reST directive's body).
fn python_of(text: &str, blocks: &[(usize, usize)]) -> Code {
    let mut code = Code::empty();
    code.cells.clear();
    for &(start, end) in blocks {
        code.cells.push(code.text.len());
        let body = &text[start..end];
        let shared = body
            .split_inclusive('\n')
            .filter(|l| !l.trim().is_empty())
            .map(indent_of)
            .min()
            .unwrap_or(0);
        if shared == 0 {
            code.push_exact(start, body);
        } else {
            let mut at = start;
            for line in body.split_inclusive('\n') {
                // A blank line may be shorter than the indentation.
                let cut = indent_of(line).min(shared);
                code.push_exact(at + cut, &line[cut..]);
                at += line.len();
            }
        }
        if !code.text.ends_with('\n') {
            code.push_escape(end, 0, "\n");
        }
    }
    if code.cells.is_empty() {
        code.cells.push(0);
    }
    code
}

/// Why a Python string of documentation is not a value: a placeholder for the reader to
/// fill in (`"<compute-name>"`, `"{cluster}"`, `"[SIZE]"`, `"VM_SIZE"`).
fn python_placeholder(text: &str) -> Option<String> {
    let angle = text.find('<').is_some_and(|o| text[o..].contains('>'));
    (angle || is_placeholder(text))
        .then(|| format!("`\"{text}\"` is a placeholder of the documentation, for its reader to fill in"))
}

/// What a command in documentation sees around it: its placeholders are not values.
struct Placeholders<'a> {
    text: &'a str,
}

impl Outer for Placeholders<'_> {
    fn follows_cd(&self) -> bool {
        false
    }

    fn lit(&self, text: &str, span: Span) -> Option<ScriptVal> {
        is_placeholder(text).then(|| {
            let written = self.text.get(span.range()).unwrap_or(text);
            ScriptVal::Dynamic(format!(
                "`{written}` is a placeholder of the documentation, for its reader to fill in"
            ))
        })
    }
}

/// The pieces of one dialect, each tokenized at its own place in the file, as one script
/// in document order. Commands that set variables are kept up to
/// [`MAX_VAR_COMMANDS`] over all pieces; after them no variable is known.
fn script_of<'p, 'm>(
    text: &str,
    pieces: impl Iterator<Item = &'p Piece>,
    map: &dyn Fn(usize) -> Map<'m>,
) -> Script {
    let mut all = Script::default();
    let mut var_commands = 0usize;
    for p in pieces {
        let options = LexOptions {
            keep: Some(wanted),
            ..LexOptions::new(p.dialect)
        };
        let region = &text[p.start..p.end];
        let marked;
        let region = if memchr::memchr(b'<', region.as_bytes()).is_some() {
            marked = mark_placeholders(region);
            marked.as_str()
        } else {
            region
        };
        let s = parse(region, map(p.start), options);
        if let Some(cut) = s.vars_cut {
            all.vars_cut.get_or_insert(cut);
        }
        for c in s.commands {
            if wanted(&c.words) != Keep::Read {
                if var_commands >= MAX_VAR_COMMANDS {
                    all.vars_cut.get_or_insert(c.span.start);
                    continue;
                }
                var_commands += 1;
            }
            all.commands.push(c);
        }
        all.comments.extend(s.comments);
    }
    all
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::super::iac::position_for_test as at;
    use super::*;
    use crate::facts::computes::{ComputeDef, Scalar};

    fn run(display: &str, text: &str) -> Definitions {
        let dir = tempfile::tempdir().unwrap();
        super::super::iac::read_for_test(read, dir.path(), display, text)
    }

    /// The reader's words are the az commands' and the Python SDK's, kept in step.
    #[test]
    fn the_words_are_the_commands_and_the_sdks() {
        let union =
            |a: &[&str], b: &[&str]| -> Vec<String> { a.iter().chain(b).map(|w| w.to_string()).collect() };
        let words = |w: &[&str]| -> Vec<String> { w.iter().map(|w| w.to_string()).collect() };
        assert_eq!(
            words(NEEDLES),
            union(super::super::scripts::NEEDLES, python_sdk::DEFINING_WORDS)
        );
        assert_eq!(
            words(DEFINES),
            union(super::super::common::COMMAND_WORDS, python_sdk::DEFINING_WORDS)
        );
    }

    fn by_name<'a>(out: &'a Definitions, name: &str) -> &'a ComputeDef {
        out.computes
            .iter()
            .find(|d| d.known_name() == Some(name))
            .unwrap_or_else(|| panic!("no {name}: {:?}", out.computes))
    }

    #[test]
    fn markdown_code_blocks_lines_and_inline_code() {
        let text = concat!(
            "# Setup\n",                                                                          // 1
            "\n",                                                                                 // 2
            "```bash\n",                                                                          // 3
            "export GPU_SIZE=Standard_NC6\n",                                                     // 4
            "```\n",                                                                              // 5
            "Then:\n",                                                                            // 6
            "```azurecli\n",                                                                      // 7
            "az ml compute create --name md-gpu --type amlcompute \\\n",                          // 8
            "  --size $GPU_SIZE\n",                                                               // 9
            "```\n",                                                                              // 10
            "az ml compute create --name plain-cpu --type amlcompute\n",                          // 11
            "az ml compute attach ^  --type kubernetes ^  --name caret-aks ^  --resource-id x\n", // 12
            "Or run `az ml compute create -n inline-ci --size Standard_DS3_v2 --type computeinstance` once.\n", // 13
            "1. Create it:\n",                                                 // 14
            "   ```powershell\n",                                              // 15
            "   $Name = \"ps-cluster\"\n",                                     // 16
            "   az ml compute create --name $Name `\n",                        // 17
            "     --type amlcompute --size Standard_DS3_v2\n",                 // 18
            "   ```\n",                                                        // 19
            "```console\n",                                                    // 20
            "$ az ml compute create --name session-cpu --type amlcompute\n",   // 21
            "{\n",                                                             // 22
            "  \"name\": \"az ml compute create --name output-only\"\n",       // 23
            "}\n",                                                             // 24
            "```\n",                                                           // 25
            "```yaml\n",                                                       // 26
            "run: az ml compute create --name yaml-shown --type amlcompute\n", // 27
            "```\n",                                                           // 28
            "~~~cmd\n",                                                        // 29
            "set NAME=cmd-cluster\n",                                          // 30
            "az ml compute create --name %NAME% ^\n",                          // 31
            "  --type amlcompute\n",                                           // 32
            "~~~\n",                                                           // 33
        );
        let out = run("README.md", text);
        let names: Vec<Option<&str>> = out.computes.iter().map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            [
                Some("md-gpu"),
                Some("plain-cpu"),
                Some("caret-aks"),
                Some("inline-ci"),
                Some("session-cpu"),
                Some("ps-cluster"),
                Some("cmd-cluster"),
            ],
            "{:?}",
            out.computes
        );
        // A variable of an earlier block: the value at its use, the literal labelled.
        let gpu = by_name(&out, "md-gpu");
        let size = gpu.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$GPU_SIZE");
        assert_eq!(at(text, size.span), (9, 10));
        assert_eq!(at(text, size.origin.unwrap()), (4, 17));
        assert_eq!(at(text, gpu.name.span), (8, 29));
        let plain = by_name(&out, "plain-cpu");
        assert_eq!(at(text, plain.name.span), (11, 29));
        assert_eq!(at(text, plain.span), (11, 1));
        let aks = by_name(&out, "caret-aks");
        assert_eq!(
            aks.get("type").unwrap().value,
            Some(Scalar::Str("kubernetes".into()))
        );
        let ci = by_name(&out, "inline-ci");
        assert_eq!(at(text, ci.get("size").unwrap().span), (13, 50));
        let ps = by_name(&out, "ps-cluster");
        assert_eq!(at(text, ps.get("size").unwrap().span), (18, 31));
        assert_eq!(&text[ps.name.origin.unwrap().range()], "ps-cluster");
        assert_eq!(at(text, by_name(&out, "session-cpu").name.span), (21, 31));
        assert_eq!(at(text, by_name(&out, "cmd-cluster").name.span), (31, 29));
        assert!(
            out.computes
                .iter()
                .all(|d| d.notes.iter().any(|n| n.contains("documentation")))
        );
    }

    /// Prose that names the command with no option is not a definition.
    /// Audit 8, defect 1: a line whose third byte is inside a character (`- Clúster`)
    /// panicked in the prompt check (`&t[1..3]`), and the whole file went unchecked.
    #[test]
    fn a_line_with_a_character_across_the_third_byte_is_read() {
        let text = "# Cómputo\n\n- Clúster de cómputo\nAé\\x\nC:\\é> az ml compute create -n win --size Standard_DS3_v2\n\n```bash\naz ml compute create --name gpu-es --type AmlCompute --max-instances 2\n```\n";
        let d = run("README.es.md", text).computes;
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert!(names.contains(&Some("gpu-es")), "{names:?}");
    }

    /// Audit 20, case 01: Microsoft Learn pages label Azure CLI snippets `dotnetcli`, and
    /// READMEs copy them. A block of a language this reader does not know is commands
    /// when one of its lines runs `az`; one of a language of code or data is not.
    #[test]
    fn a_block_of_an_unknown_language_that_runs_az_is_commands() {
        let text = concat!(
            "```dotnetcli\n",                                                                 // 1
            "az ml compute create --name dotnet-cpu --type amlcompute --size Standard_NC6\n", // 2
            "```\n",                                                                          // 3
            "```Azure\n",                                                                     // 4
            "$ az ml compute create -n prompted --size Standard_DS3_v2 \\\n",                 // 5
            "    --type amlcompute\n",                                                        // 6
            "```\n",                                                                          // 7
            "```json\n",                                                                      // 8
            "az ml compute create --name in-json --type amlcompute\n",                        // 9
            "```\n",                                                                          // 10
            "```mermaid\n",                                                                   // 11
            "graph LR; a[az ml compute create --name in-mermaid] --> b\n",                    // 12
            "```\n",                                                                          // 13
        );
        let out = run("README.md", text);
        let names: Vec<Option<&str>> = out.computes.iter().map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            [Some("dotnet-cpu"), Some("prompted")],
            "{:?}",
            out.computes
        );
        let dotnet = by_name(&out, "dotnet-cpu");
        assert_eq!(at(text, dotnet.get("size").unwrap().span), (2, 65));
        assert_eq!(at(text, by_name(&out, "prompted").name.span), (5, 27));
    }

    /// Nor is a call for its help (`-h`, `--help`: audit 20, a label corrected by hand).
    #[test]
    fn the_command_named_without_options_defines_nothing() {
        let text = "Run the `az ml compute create` with the settings listed above.\n\
                    Use `az ml compute create -h` or `az ml compute create --name x --help` for the options.\n\n\
                    ```bash\naz ml compute create\naz ml compute create -n docs-cpu --size Standard_DS3_v2\n```\n";
        let d = run("README.md", text).computes;
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(names, [Some("docs-cpu")]);
    }

    #[test]
    fn html_comments_cover_the_next_line_with_content() {
        let text = concat!(
            "<!-- amlint: ignore[AML702] lab -->\n",             // 1
            "\n",                                                // 2
            "```bash\n",                                         // 3
            "az ml compute create --name a --type amlcompute\n", // 4
            "```\n",                                             // 5
            "az ml compute create --name b --type amlcompute <!-- amlint: ignore[AML704] -->\n", // 6
            "<!--\n",                                            // 7
            "amlint: ignore[AML702] over\n",                     // 8
            "two lines -->\n",                                   // 9
            "az ml compute create --name c --type amlcompute\n", // 10
            "```bash\n",                                         // 11
            "# amlint: ignore[AML704]\n",                        // 12
            "az ml compute create --name d --type amlcompute\n", // 13
            "```\n",                                             // 14
            "Write `<!-- amlint: ignore[AML505] -->` above it.\n", // 15: code, not a comment
        );
        let out = run("README.md", text);
        assert_eq!(out.computes.len(), 4, "{:?}", out.computes);
        // `b`'s command ends before the comment.
        let b = by_name(&out, "b");
        assert_eq!(
            &text[b.span.range()],
            "az ml compute create --name b --type amlcompute"
        );
        let mut targets: Vec<(u32, Option<u32>)> = out
            .comments
            .iter()
            .map(|c| (at(text, c.span).0, c.target_line))
            .collect();
        targets.sort();
        assert_eq!(
            targets,
            [(1, Some(4)), (6, Some(6)), (7, Some(10)), (12, Some(13))]
        );
        let c = out.comments.iter().find(|c| at(text, c.span).0 == 1).unwrap();
        assert_eq!(&text[c.span.range()], "<!-- amlint: ignore[AML702] lab -->");
    }

    #[test]
    fn restructured_text_directives_literal_blocks_and_comments() {
        let text = concat!(
            "Create a compute.\n",                                                          // 1
            "\n",                                                                           // 2
            ".. amlint: ignore[AML702]\n",                                                  // 3
            ".. code-block:: bash\n",                                                       // 4
            "   :linenos:\n",                                                               // 5
            "\n",                                                                           // 6
            "   az ml compute create --name rst-cpu --type AmlCompute --min-instances 0\n", // 7
            "\n",                                                                           // 8
            "First, create a compute target::\n",                                           // 9
            "\n",                                                                           // 10
            "    az ml compute create --name default --vm-size Standard_DS3_v2\n",          // 11
            "\n",                                                                           // 12
            ".. code-block:: python\n",                                                     // 13
            "\n",                                                                           // 14
            "    os.system('az ml compute create --name py-shown')\n",                      // 15
            "\n",                                                                           // 16
            "Inline: ``az ml compute create -n inline-rst --type amlcompute``.\n",          // 17
        );
        let out = run("tutorial.rst", text);
        let names: Vec<Option<&str>> = out.computes.iter().map(|d| d.known_name()).collect();
        assert_eq!(names, [Some("rst-cpu"), Some("default"), Some("inline-rst")]);
        assert_eq!(at(text, out.computes[0].name.span), (7, 32));
        assert_eq!(out.computes[1].size(), Some("Standard_DS3_v2"));
        assert_eq!(at(text, out.computes[1].get("size").unwrap().span), (11, 51));
        let [c] = out.comments.as_slice() else {
            panic!("{:?}", out.comments)
        };
        assert_eq!(c.target_line, Some(7));
    }

    #[test]
    fn crlf_bom_and_unterminated_fences() {
        let text = "\u{feff}```sh\r\nN=crlf-cpu\r\naz ml compute create --name $N \\\r\n  --type amlcompute --size Standard_NC6\r\n";
        let out = run("notes.txt", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), Some("crlf-cpu"));
        let size = d.get("size").unwrap();
        assert_eq!(&text[size.span.range()], "Standard_NC6");
        assert_eq!(at(text, size.span), (4, 28));
        // A fence never closed holds the rest of the file: nothing after it is prose.
        let text =
            "```\naz ml compute create --name open-fence \"unclosed\n\naz ml compute create --name later\n";
        let out = run("README.md", text);
        assert!(out.computes.iter().all(|d| d.known_name() != Some("later")));
    }

    #[test]
    fn placeholders_are_not_values_nor_redirections() {
        let text = concat!(
            "```bash\n",
            "az ml compute create --name <compute-name> --size <vm-size> --type amlcompute\n",
            "az ml compute create -n \"{cluster}\" --size [SIZE] --type amlcompute --tier VM_TIER\n",
            "az ml compute create -n real-name --size Standard_DS3_v2 --type amlcompute > out.txt 2>&1\n",
            "```\n",
        );
        let out = run("README.md", text);
        assert_eq!(out.computes.len(), 3, "{:?}", out.computes);
        let first = &out.computes[0];
        assert_eq!(&text[first.name.span.range()], "<compute-name>");
        assert!(first.name.why.as_deref().unwrap().contains("placeholder"));
        assert_eq!(&text[first.get("size").unwrap().span.range()], "<vm-size>");
        assert!(first.get("size").unwrap().value.is_none());
        assert_eq!(
            first.get("type").unwrap().value,
            Some(Scalar::Str("amlcompute".into()))
        );
        let second = &out.computes[1];
        for key in ["size", "tier"] {
            assert!(second.get(key).unwrap().why.is_some(), "{key}: {second:?}");
        }
        assert!(second.known_name().is_none());
        assert_eq!(out.computes[2].known_name(), Some("real-name"));
        assert_eq!(out.computes[2].size(), Some("Standard_DS3_v2"));
    }

    #[test]
    fn only_documentation_names() {
        assert!(is_doc("readme.md") && is_doc("index.rst") && is_doc("notes.txt") && is_doc("a.markdown"));
        assert!(!is_doc(".md") && !is_doc("run.sh") && !is_doc("md"));
    }

    /// A Python block's IPython shell escapes (`!az …`) are commands; its Python is not.
    #[test]
    fn shell_escapes_in_a_python_block_are_commands() {
        let text = "Run this in a notebook:\n\n```python\nimport os\nprint(\"az ml compute create --name not-this\")\n!az ml compute create --name py-fence --size Standard_NC6 \\\n    --type amlcompute\n  !  az ml compute create --name spaced\n```\n";
        let out = run("README.md", text);
        let names: Vec<_> = out.computes.iter().map(|d| d.known_name()).collect();
        assert_eq!(names, [Some("py-fence"), Some("spaced")]);
        let d = by_name(&out, "py-fence");
        assert_eq!(
            d.get("type").and_then(|t| t.value.clone()),
            Some(Scalar::Str("amlcompute".into()))
        );
        assert_eq!(at(text, d.span), (6, 2));
    }
}
