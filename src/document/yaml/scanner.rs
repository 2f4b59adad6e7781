//! YAML text → tokens, following PyYAML's scanner and reader (`yaml/scanner.py`,
//! `yaml/reader.py`, PyYAML 6.0): the same tokens, the same simple-key and indentation
//! rules, the same errors at the same places, so that amlint accepts and refuses what the
//! Azure ML CLI's `yaml.safe_load` does. The structure and the comments follow PyYAML's
//! so that the two can be read side by side; the differences are of representation:
//! positions are byte offsets into the UTF-8 text (with PyYAML's line and column, in
//! characters, kept beside them, since the rules depend on them), scalars borrow the text
//! when they can, and every loop is bounded by the input (no recursion).
//!
//! This file is self-contained (no `crate::` paths): `build.rs` includes it to read
//! amlint's own YAML data.
//!
//! PyYAML's licence, for the algorithm this file translates:
//!
//! > Copyright (c) 2017-2021 Ingy döt Net
//! > Copyright (c) 2006-2016 Kirill Simonov
//! >
//! > Permission is hereby granted, free of charge, to any person obtaining a copy of
//! > this software and associated documentation files (the "Software"), to deal in
//! > the Software without restriction, including without limitation the rights to
//! > use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
//! > of the Software, and to permit persons to whom the Software is furnished to do
//! > so, subject to the following conditions:
//! >
//! > The above copyright notice and this permission notice shall be included in all
//! > copies or substantial portions of the Software.
//! >
//! > THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
//! > IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
//! > FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
//! > AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
//! > LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
//! > OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
//! > SOFTWARE.

use std::borrow::Cow;
use std::collections::VecDeque;

/// A place in the text: a byte offset, and PyYAML's 0-based line and column (in
/// characters; a BOM takes no column; LF, CR, CRLF, NEL, LS and PS end a line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    pub pos: u32,
    pub line: u32,
    pub column: u32,
}

/// A syntax error as PyYAML reports it: what was being read and where it began (the
/// context), what is wrong and where (the problem).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    pub context: Option<Cow<'static, str>>,
    pub context_mark: Option<Mark>,
    pub problem: String,
    pub problem_mark: Mark,
}

impl YamlError {
    /// Boxed, so that the results of the scanner and the parser are no larger than
    /// what they hold when all goes well (a token, an event, a flag).
    pub fn new(context: Option<(Cow<'static, str>, Mark)>, problem: String, problem_mark: Mark) -> Box<Self> {
        let (context, context_mark) = match context {
            Some((c, m)) => (Some(c), Some(m)),
            None => (None, None),
        };
        Box::new(YamlError {
            context,
            context_mark,
            problem,
            problem_mark,
        })
    }
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(c) = &self.context {
            write!(f, "{c}: ")?;
        }
        write!(
            f,
            "{} (line {}, column {})",
            self.problem,
            self.problem_mark.line + 1,
            self.problem_mark.column + 1
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirectiveValue<'a> {
    /// `%YAML major.minor`
    Yaml(u64, u64),
    /// `%TAG handle prefix`
    Tag(Cow<'a, str>, Cow<'a, str>),
    /// Any other directive (ignored).
    Other,
}

/// The rare tokens' contents are boxed, so that a token is no larger than a scalar's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind<'a> {
    StreamStart,
    StreamEnd,
    /// The directive's name and value.
    Directive(Box<(&'a str, DirectiveValue<'a>)>),
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowMappingStart,
    FlowSequenceEnd,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(&'a str),
    Anchor(&'a str),
    /// The handle and the suffix; the handle is `None` for a verbatim tag (`!<...>`)
    /// and for `!` alone.
    Tag(Box<(Option<Cow<'a, str>>, Cow<'a, str>)>),
    Scalar(Cow<'a, str>, ScalarStyle),
}

impl TokenKind<'_> {
    /// PyYAML's `Token.id`, as its messages name tokens.
    pub fn id(&self) -> &'static str {
        match self {
            TokenKind::StreamStart => "<stream start>",
            TokenKind::StreamEnd => "<stream end>",
            TokenKind::Directive(..) => "<directive>",
            TokenKind::DocumentStart => "<document start>",
            TokenKind::DocumentEnd => "<document end>",
            TokenKind::BlockSequenceStart => "<block sequence start>",
            TokenKind::BlockMappingStart => "<block mapping start>",
            TokenKind::BlockEnd => "<block end>",
            TokenKind::FlowSequenceStart => "[",
            TokenKind::FlowMappingStart => "{",
            TokenKind::FlowSequenceEnd => "]",
            TokenKind::FlowMappingEnd => "}",
            TokenKind::BlockEntry => "-",
            TokenKind::FlowEntry => ",",
            TokenKind::Key => "?",
            TokenKind::Value => ":",
            TokenKind::Alias(_) => "<alias>",
            TokenKind::Anchor(_) => "<anchor>",
            TokenKind::Tag(..) => "<tag>",
            TokenKind::Scalar(..) => "<scalar>",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: TokenKind<'a>,
    pub start: Mark,
    pub end: Mark,
}

/// A place where a simple key (one without `?`) may start. See `fetch_value`.
#[derive(Clone, Copy, Debug)]
struct SimpleKey {
    token_number: usize,
    required: bool,
    index: usize,
    line: u32,
    column: u32,
    mark: Mark,
    flow_level: i64,
}

/// Python's `repr()` of a one-character string, as PyYAML's messages quote characters
/// (`'\t'`, `'\x85'`, `"'"`, `'é'`); the end of the stream is `'\x00'`.
pub fn python_repr_char(c: Option<char>) -> String {
    let c = c.unwrap_or('\0');
    match c {
        '\'' => "\"'\"".to_string(),
        '\\' => "'\\\\'".to_string(),
        '\t' => "'\\t'".to_string(),
        '\n' => "'\\n'".to_string(),
        '\r' => "'\\r'".to_string(),
        c if python_printable(c) => format!("'{c}'"),
        c if (c as u32) < 0x100 => format!("'\\x{:02x}'", c as u32),
        c if (c as u32) < 0x10000 => format!("'\\u{:04x}'", c as u32),
        c => format!("'\\U{:08x}'", c as u32),
    }
}

/// Python's `str.isprintable()` for the characters YAML text can hold (an approximation
/// of the Unicode categories it excludes: controls, format characters, separators other
/// than the space, private use).
fn python_printable(c: char) -> bool {
    let u = c as u32;
    !(u < 0x20
        || (0x7f..=0xa0).contains(&u)
        || u == 0xad
        || u == 0x1680
        || (0x2000..=0x200f).contains(&u)
        || (0x2028..=0x202f).contains(&u)
        || (0x205f..=0x2064).contains(&u)
        || (0x2066..=0x206f).contains(&u)
        || u == 0x3000
        || (0xe000..=0xf8ff).contains(&u)
        || u == 0xfeff
        || (0xfff9..=0xfffb).contains(&u)
        || (0xf0000..).contains(&u))
}

/// The value of a scalar being scanned: a slice of the text as long as what was added is
/// contiguous text, an owned string once something was added that is not.
struct Buf<'a> {
    text: &'a str,
    /// The slice so far, while borrowed.
    range: Option<(usize, usize)>,
    owned: Option<String>,
}

impl<'a> Buf<'a> {
    fn new(text: &'a str) -> Self {
        Buf {
            text,
            range: None,
            owned: None,
        }
    }

    /// Adds `text[start..end]`.
    fn slice(&mut self, start: usize, end: usize) {
        if start == end {
            return;
        }
        if let Some(owned) = &mut self.owned {
            owned.push_str(&self.text[start..end]);
            return;
        }
        match self.range {
            None => self.range = Some((start, end)),
            Some((s, e)) if e == start => self.range = Some((s, end)),
            Some((s, e)) => {
                let mut owned = String::with_capacity(e - s + end - start + 16);
                owned.push_str(&self.text[s..e]);
                owned.push_str(&self.text[start..end]);
                self.owned = Some(owned);
                self.range = None;
            }
        }
    }

    /// Adds a string that is not (known to be) the text at this place.
    fn push_str(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        let owned = self.owned.get_or_insert_with(|| match self.range.take() {
            Some((s, e)) => self.text[s..e].to_string(),
            None => String::new(),
        });
        owned.push_str(s);
    }

    fn push_char(&mut self, c: char) {
        let mut b = [0; 4];
        self.push_str(c.encode_utf8(&mut b));
    }

    /// Adds a line break as PyYAML returns it (`\n`, LS or PS) that was read from
    /// `text[start..end]`.
    fn line_break(&mut self, brk: char, start: usize, end: usize) {
        if brk == '\n' && &self.text[start..end] == "\n" {
            self.slice(start, end);
        } else {
            self.push_char(brk);
        }
    }

    fn is_empty(&self) -> bool {
        self.range.is_none() && self.owned.as_ref().is_none_or(|s| s.is_empty())
    }

    fn finish(self) -> Cow<'a, str> {
        match (self.owned, self.range) {
            (Some(s), _) => Cow::Owned(s),
            (None, Some((s, e))) => Cow::Borrowed(&self.text[s..e]),
            (None, None) => Cow::Borrowed(""),
        }
    }
}

/// A run of spaces, or the line breaks that fold into it, between two parts of a plain
/// scalar (`scan_plain_spaces`), kept until another part follows.
enum Pending {
    None,
    /// Spaces on the same line: `text[start..end]`.
    Spaces(usize, usize),
    /// A folded line break: what it reads as.
    Folded(String),
}

const ESCAPE_CODES: [(u8, usize); 3] = [(b'x', 2), (b'u', 4), (b'U', 8)];

fn escape_replacement(c: char) -> Option<char> {
    Some(match c {
        '0' => '\0',
        'a' => '\x07',
        'b' => '\x08',
        't' | '\t' => '\x09',
        'n' => '\x0a',
        'v' => '\x0b',
        'f' => '\x0c',
        'r' => '\x0d',
        'e' => '\x1b',
        ' ' => ' ',
        '"' => '"',
        '\\' => '\\',
        '/' => '/',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        _ => return None,
    })
}

/// The bytes of `set` as a table, for the loops that skip every other byte at one look-up
/// each.
const fn byte_set(set: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < set.len() {
        table[set[i] as usize] = true;
        i += 1;
    }
    table
}

/// The bytes a line break or the end can start with: NUL (the end, to PyYAML's reader),
/// CR, LF, and the lead bytes of NEL (0xC2) and of LS and PS (0xE2).
const BREAKZ_LEADS: [bool; 256] = byte_set(b"\0\r\n\xc2\xe2");
/// The bytes that may end a part of a plain scalar, in block and in flow context.
const PLAIN_BLOCK_STOPS: [bool; 256] = byte_set(b"\0\r\n\xc2\xe2 \t:");
const PLAIN_FLOW_STOPS: [bool; 256] = byte_set(b"\0\r\n\xc2\xe2 \t:,?[]{}");
/// The bytes that may end a run of a quoted scalar's text.
const QUOTED_STOPS: [bool; 256] = byte_set(b"\0\r\n\xc2\xe2 \t'\"\\");

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn is_uri_char(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b';'
                | b'/'
                | b'?'
                | b':'
                | b'@'
                | b'&'
                | b'='
                | b'+'
                | b'$'
                | b','
                | b'_'
                | b'.'
                | b'!'
                | b'~'
                | b'*'
                | b'\''
                | b'('
                | b')'
                | b'['
                | b']'
                | b'%'
        )
}

type Result<T> = std::result::Result<T, Box<YamlError>>;

pub struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    // The reader's state: where it is, in bytes and as PyYAML counts.
    pos: usize,
    /// Characters read so far (PyYAML's `index`): simple keys are limited to 1024.
    index: usize,
    line: u32,
    column: u32,
    /// Had we reached the end of the stream?
    done: bool,
    /// The number of unclosed `[` and `{`; 0 means block context. As in PyYAML, a stray
    /// `]` takes it below 0, which is flow context too (the parser then refuses the `]`).
    flow_level: i64,
    /// Tokens processed but not yet taken.
    tokens: VecDeque<Token<'a>>,
    /// Tokens taken through `next_token`.
    tokens_taken: usize,
    /// The current indentation level and the past ones.
    indent: i64,
    indents: Vec<i64>,
    /// Can a simple key start here? In block context, also whether a block collection
    /// may start here.
    allow_simple_key: bool,
    /// The possible simple keys, at most one per flow level, in increasing flow level
    /// (and so in increasing token number: a key can only be saved at the innermost
    /// level, and leaving a level removes its key). PyYAML keeps a dict by level.
    simple_keys: Vec<SimpleKey>,
    /// The first of `simple_keys` still live (stale ones are dropped from the front).
    simple_keys_start: usize,
    /// A scanner error stops the stream; it is reported again if asked again.
    error: Option<Box<YamlError>>,
    /// The first token of the queue is final: nothing was taken since `fill` found
    /// that no more tokens are needed.
    ready: bool,
}

impl<'a> Scanner<'a> {
    /// Scans `text` from byte `start` (after a byte-order mark the SDK's `utf-8-sig`
    /// decoding drops).
    pub fn new(text: &'a str, start: usize) -> Self {
        let mut s = Scanner {
            text,
            bytes: text.as_bytes(),
            pos: start,
            index: 0,
            line: 0,
            column: 0,
            done: false,
            flow_level: 0,
            tokens: VecDeque::new(),
            tokens_taken: 0,
            indent: -1,
            indents: Vec::new(),
            allow_simple_key: true,
            simple_keys: Vec::new(),
            simple_keys_start: 0,
            error: None,
            ready: false,
        };
        let mark = s.mark();
        s.tokens.push_back(Token {
            kind: TokenKind::StreamStart,
            start: mark,
            end: mark,
        });
        s
    }

    // Public methods.

    /// The next token, without taking it.
    pub fn peek_token(&mut self) -> Result<&Token<'a>> {
        self.fill()?;
        match self.tokens.front() {
            Some(t) => Ok(t),
            None => Err(self.end_error()),
        }
    }

    /// Takes the next token.
    pub fn next_token(&mut self) -> Result<Token<'a>> {
        self.fill()?;
        match self.tokens.pop_front() {
            Some(t) => {
                self.tokens_taken += 1;
                self.ready = false;
                Ok(t)
            }
            None => Err(self.end_error()),
        }
    }

    fn end_error(&self) -> Box<YamlError> {
        YamlError::new(
            None,
            "no more tokens after the end of the stream".into(),
            self.mark(),
        )
    }

    #[inline]
    fn fill(&mut self) -> Result<()> {
        if self.ready {
            return Ok(());
        }
        self.fill_queue()
    }

    fn fill_queue(&mut self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let r = self.fill_tokens();
        match &r {
            Ok(()) => self.ready = true,
            Err(e) => self.error = Some(e.clone()),
        }
        r
    }

    fn fill_tokens(&mut self) -> Result<()> {
        while self.need_more_tokens()? {
            self.fetch_more_tokens()?;
        }
        Ok(())
    }

    // The reader.

    fn mark(&self) -> Mark {
        Mark {
            pos: self.pos as u32,
            line: self.line,
            column: self.column,
        }
    }

    /// The byte `k` bytes ahead; 0 at the end (PyYAML's reader appends `'\0'`).
    #[inline]
    fn byte(&self, k: usize) -> u8 {
        self.bytes.get(self.pos + k).copied().unwrap_or(0)
    }

    /// The character at byte `k` ahead (`None` at the end).
    fn char_at(&self, k: usize) -> Option<char> {
        self.text.get(self.pos + k..).and_then(|s| s.chars().next())
    }

    /// The length in bytes of the line break at byte `k` ahead (LF, CR, NEL, LS, PS;
    /// CRLF counts as CR here), or 0.
    #[inline]
    fn break_len(&self, k: usize) -> usize {
        match self.byte(k) {
            b'\n' | b'\r' => 1,
            0xc2 if self.byte(k + 1) == 0x85 => 2,
            0xe2 if self.byte(k + 1) == 0x80 && matches!(self.byte(k + 2), 0xa8 | 0xa9) => 3,
            _ => 0,
        }
    }

    #[inline]
    fn is_break(&self, k: usize) -> bool {
        self.break_len(k) > 0
    }

    /// A line break or the end: `'\0\r\n\x85\u2028\u2029'`.
    #[inline]
    fn is_breakz(&self, k: usize) -> bool {
        self.pos + k >= self.bytes.len() || self.byte(k) == 0 || self.is_break(k)
    }

    /// A space, a tab, a line break or the end: `'\0 \t\r\n\x85\u2028\u2029'`.
    #[inline]
    fn is_blankz(&self, k: usize) -> bool {
        matches!(self.byte(k), b' ' | b'\t') || self.is_breakz(k)
    }

    /// The first byte at or after `k` ahead that is one of `stops`, or the end.
    #[inline]
    fn skip_to_stop(&self, k: usize, stops: &[bool; 256]) -> usize {
        let rest = &self.bytes[self.pos..];
        match rest.get(k..) {
            Some(tail) => tail
                .iter()
                .position(|&b| stops[usize::from(b)])
                .map_or(rest.len(), |i| k + i),
            None => k,
        }
    }

    /// The first line break or the end at or after byte `k` ahead (`is_breakz`).
    #[inline]
    fn breakz_from(&self, mut k: usize) -> usize {
        loop {
            k = self.skip_to_stop(k, &BREAKZ_LEADS);
            if self.is_breakz(k) {
                return k;
            }
            k += 1;
        }
    }

    /// Moves over `n` bytes of ASCII characters that are not line breaks.
    #[inline]
    fn forward_ascii(&mut self, n: usize) {
        self.pos += n;
        self.index += n;
        self.column += n as u32;
    }

    /// Moves over `n` bytes of text holding no line break (any characters).
    fn forward_bytes(&mut self, n: usize) {
        let run = &self.bytes[self.pos..self.pos + n];
        let (chars, boms) = if run.is_ascii() {
            (n, 0)
        } else {
            let chars = run.iter().filter(|&&b| (b & 0xc0) != 0x80).count();
            let boms = run.windows(3).filter(|w| *w == [0xef, 0xbb, 0xbf]).count();
            (chars, boms)
        };
        self.pos += n;
        self.index += chars;
        self.column += (chars - boms) as u32;
    }

    /// Moves over one character (a line break included).
    fn forward(&mut self) {
        if self.pos >= self.bytes.len() {
            return;
        }
        let brk = self.break_len(0);
        if brk > 0 {
            // PyYAML: CR followed by LF is not a line end of its own.
            if self.byte(0) == b'\r' && self.byte(1) == b'\n' {
                self.pos += 1;
                self.index += 1;
                self.column += 1;
            } else {
                self.pos += brk;
                self.index += 1;
                self.line += 1;
                self.column = 0;
            }
            return;
        }
        let len = utf8_len(self.byte(0));
        self.forward_bytes(len.min(self.bytes.len() - self.pos));
    }

    /// PyYAML's `scan_line_break`: CRLF, CR, LF and NEL read as `\n`, LS and PS as
    /// themselves; `None` when there is no line break here.
    fn scan_line_break(&mut self) -> Option<char> {
        let (len, brk) = match self.byte(0) {
            b'\r' if self.byte(1) == b'\n' => (2, '\n'),
            b'\r' | b'\n' => (1, '\n'),
            0xc2 if self.byte(1) == 0x85 => (2, '\n'),
            0xe2 if self.byte(1) == 0x80 && self.byte(2) == 0xa8 => (3, '\u{2028}'),
            0xe2 if self.byte(1) == 0x80 && self.byte(2) == 0xa9 => (3, '\u{2029}'),
            _ => return None,
        };
        self.pos += len;
        self.index += if len == 2 && brk == '\n' && self.bytes[self.pos - 2] == b'\r' {
            2
        } else {
            1
        };
        self.line += 1;
        self.column = 0;
        Some(brk)
    }

    /// `---` or `...` followed by a blank or the end, here.
    fn at_document_separator(&self) -> bool {
        let p = &self.bytes[self.pos.min(self.bytes.len())..];
        (p.starts_with(b"---") || p.starts_with(b"...")) && self.is_blankz(3)
    }

    fn error(&self, context: Option<(&str, Mark)>, problem: String) -> Box<YamlError> {
        YamlError::new(
            context.map(|(c, m)| (Cow::Owned(c.to_string()), m)),
            problem,
            self.mark(),
        )
    }

    /// The character here as PyYAML's messages quote it. The SDK reads files with
    /// universal newlines, so PyYAML never sees a CR: it is the LF it became.
    fn found(&self) -> String {
        python_repr_char(
            self.char_at(0)
                .filter(|_| self.byte(0) != 0)
                .map(|c| if c == '\r' { '\n' } else { c }),
        )
    }

    // Tokens.

    fn need_more_tokens(&mut self) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        if self.tokens.is_empty() {
            return Ok(true);
        }
        // The current token may be a potential simple key, so we need to look further.
        self.stale_possible_simple_keys()?;
        Ok(self.next_possible_simple_key() == Some(self.tokens_taken))
    }

    fn fetch_more_tokens(&mut self) -> Result<()> {
        // Eat whitespaces and comments until we reach the next token.
        self.scan_to_next_token();
        // Remove obsolete possible simple keys.
        self.stale_possible_simple_keys()?;
        // Compare the current indentation and column. It may add some tokens and
        // decrease the current indentation level.
        self.unwind_indent(i64::from(self.column));
        let ch = self.byte(0);
        if self.pos >= self.bytes.len() || ch == 0 {
            return self.fetch_stream_end();
        }
        match ch {
            b'%' if self.column == 0 => return self.fetch_directive(),
            b'-' if self.column == 0 && self.bytes[self.pos..].starts_with(b"---") && self.is_blankz(3) => {
                return self.fetch_document_indicator(TokenKind::DocumentStart);
            }
            b'.' if self.column == 0 && self.bytes[self.pos..].starts_with(b"...") && self.is_blankz(3) => {
                return self.fetch_document_indicator(TokenKind::DocumentEnd);
            }
            b'[' => return self.fetch_flow_collection_start(TokenKind::FlowSequenceStart),
            b'{' => return self.fetch_flow_collection_start(TokenKind::FlowMappingStart),
            b']' => return self.fetch_flow_collection_end(TokenKind::FlowSequenceEnd),
            b'}' => return self.fetch_flow_collection_end(TokenKind::FlowMappingEnd),
            b',' => return self.fetch_flow_entry(),
            b'-' if self.is_blankz(1) => return self.fetch_block_entry(),
            b'?' if self.flow_level != 0 || self.is_blankz(1) => return self.fetch_key(),
            b':' if self.flow_level != 0 || self.is_blankz(1) => return self.fetch_value(),
            b'*' => return self.fetch_alias(),
            b'&' => return self.fetch_anchor(),
            b'!' => return self.fetch_tag(),
            b'|' if self.flow_level == 0 => return self.fetch_block_scalar(ScalarStyle::Literal),
            b'>' if self.flow_level == 0 => return self.fetch_block_scalar(ScalarStyle::Folded),
            b'\'' => return self.fetch_flow_scalar(ScalarStyle::SingleQuoted),
            b'"' => return self.fetch_flow_scalar(ScalarStyle::DoubleQuoted),
            _ => {}
        }
        if self.check_plain() {
            return self.fetch_plain();
        }
        Err(Box::new(YamlError {
            context: Some(Cow::Borrowed("while scanning for the next token")),
            context_mark: None,
            problem: format!("found character {} that cannot start any token", self.found()),
            problem_mark: self.mark(),
        }))
    }

    // Simple keys treatment.

    fn next_possible_simple_key(&self) -> Option<usize> {
        self.simple_keys
            .get(self.simple_keys_start)
            .map(|k| k.token_number)
    }

    /// Removes the possible simple keys that can no longer be: simple keys are limited
    /// to a single line and 1024 characters.
    #[inline]
    fn stale_possible_simple_keys(&mut self) -> Result<()> {
        if self.simple_keys.is_empty() {
            return Ok(());
        }
        self.drop_stale_simple_keys()
    }

    fn drop_stale_simple_keys(&mut self) -> Result<()> {
        while let Some(key) = self.simple_keys.get(self.simple_keys_start) {
            if key.line == self.line && self.index - key.index <= 1024 {
                break;
            }
            if key.required {
                return Err(YamlError::new(
                    Some((Cow::Borrowed("while scanning a simple key"), key.mark)),
                    "could not find expected ':'".into(),
                    self.mark(),
                ));
            }
            self.simple_keys_start += 1;
        }
        if self.simple_keys_start == self.simple_keys.len() {
            self.simple_keys.clear();
            self.simple_keys_start = 0;
        } else if self.simple_keys_start > 64 && 2 * self.simple_keys_start > self.simple_keys.len() {
            self.simple_keys.drain(..self.simple_keys_start);
            self.simple_keys_start = 0;
        }
        Ok(())
    }

    /// The next token may start a simple key: saves its number and position.
    fn save_possible_simple_key(&mut self) -> Result<()> {
        // Is a simple key required at the current position?
        let required = self.flow_level == 0 && self.indent == i64::from(self.column);
        if self.allow_simple_key {
            self.remove_possible_simple_key()?;
            let token_number = self.tokens_taken + self.tokens.len();
            self.simple_keys.push(SimpleKey {
                token_number,
                required,
                index: self.index,
                line: self.line,
                column: self.column,
                mark: self.mark(),
                flow_level: self.flow_level,
            });
        }
        Ok(())
    }

    /// The possible simple key at the current flow level, if any (always the last).
    fn current_simple_key(&self) -> Option<&SimpleKey> {
        self.simple_keys[self.simple_keys_start..]
            .last()
            .filter(|k| k.flow_level == self.flow_level)
    }

    /// Removes the saved possible key at the current flow level.
    fn remove_possible_simple_key(&mut self) -> Result<()> {
        if let Some(key) = self.current_simple_key() {
            if key.required {
                return Err(YamlError::new(
                    Some((Cow::Borrowed("while scanning a simple key"), key.mark)),
                    "could not find expected ':'".into(),
                    self.mark(),
                ));
            }
            self.simple_keys.pop();
        }
        Ok(())
    }

    // Indentation functions.

    #[inline]
    fn unwind_indent(&mut self, column: i64) {
        // In the flow context, indentation is ignored. We make the scanner less
        // restrictive than the specification requires.
        if self.flow_level != 0 {
            return;
        }
        // In block context, we may need to issue the BLOCK-END tokens.
        while self.indent > column {
            let mark = self.mark();
            self.indent = self.indents.pop().unwrap_or(-1);
            self.push(TokenKind::BlockEnd, mark, mark);
        }
    }

    /// Increases the indentation if needed.
    fn add_indent(&mut self, column: i64) -> bool {
        if self.indent < column {
            self.indents.push(self.indent);
            self.indent = column;
            true
        } else {
            false
        }
    }

    fn push(&mut self, kind: TokenKind<'a>, start: Mark, end: Mark) {
        self.tokens.push_back(Token { kind, start, end });
    }

    /// Adds a one-character token at the current position.
    fn push_indicator(&mut self, kind: TokenKind<'a>) {
        let start = self.mark();
        self.forward_ascii(1);
        let end = self.mark();
        self.push(kind, start, end);
    }

    // Fetchers.

    fn fetch_stream_end(&mut self) -> Result<()> {
        // Set the current indentation to -1.
        self.unwind_indent(-1);
        // Reset simple keys.
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        self.simple_keys.clear();
        self.simple_keys_start = 0;
        let mark = self.mark();
        self.push(TokenKind::StreamEnd, mark, mark);
        // The stream is finished.
        self.done = true;
        Ok(())
    }

    fn fetch_directive(&mut self) -> Result<()> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_directive()?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_document_indicator(&mut self, kind: TokenKind<'a>) -> Result<()> {
        self.unwind_indent(-1);
        // Reset simple keys. Note that there could not be a block collection after `---`.
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark();
        self.forward_ascii(3);
        let end = self.mark();
        self.push(kind, start, end);
        Ok(())
    }

    fn fetch_flow_collection_start(&mut self, kind: TokenKind<'a>) -> Result<()> {
        // `[` and `{` may start a simple key.
        self.save_possible_simple_key()?;
        self.flow_level += 1;
        // Simple keys are allowed after `[` and `{`.
        self.allow_simple_key = true;
        self.push_indicator(kind);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, kind: TokenKind<'a>) -> Result<()> {
        // Reset possible simple key on the current level.
        self.remove_possible_simple_key()?;
        self.flow_level -= 1;
        // No simple keys after `]` or `}`.
        self.allow_simple_key = false;
        self.push_indicator(kind);
        Ok(())
    }

    fn fetch_flow_entry(&mut self) -> Result<()> {
        // Simple keys are allowed after `,`.
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        self.push_indicator(TokenKind::FlowEntry);
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> Result<()> {
        if self.flow_level == 0 {
            // Are we allowed to start a new entry?
            if !self.allow_simple_key {
                return Err(self.error(None, "sequence entries are not allowed here".into()));
            }
            // We may need to add BLOCK-SEQUENCE-START.
            if self.add_indent(i64::from(self.column)) {
                let mark = self.mark();
                self.push(TokenKind::BlockSequenceStart, mark, mark);
            }
        }
        // In flow context the parser refuses a block entry.
        // Simple keys are allowed after `-`.
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        self.push_indicator(TokenKind::BlockEntry);
        Ok(())
    }

    fn fetch_key(&mut self) -> Result<()> {
        if self.flow_level == 0 {
            // Are we allowed to start a key (not necessarily a simple one)?
            if !self.allow_simple_key {
                return Err(self.error(None, "mapping keys are not allowed here".into()));
            }
            // We may need to add BLOCK-MAPPING-START.
            if self.add_indent(i64::from(self.column)) {
                let mark = self.mark();
                self.push(TokenKind::BlockMappingStart, mark, mark);
            }
        }
        // Simple keys are allowed after `?` in the block context.
        self.allow_simple_key = self.flow_level == 0;
        self.remove_possible_simple_key()?;
        self.push_indicator(TokenKind::Key);
        Ok(())
    }

    fn fetch_value(&mut self) -> Result<()> {
        if let Some(key) = self.current_simple_key().copied() {
            // A simple key ends here: insert KEY before its first token.
            self.simple_keys.pop();
            let at = key.token_number - self.tokens_taken;
            self.tokens.insert(
                at,
                Token {
                    kind: TokenKind::Key,
                    start: key.mark,
                    end: key.mark,
                },
            );
            // If this key starts a new block mapping, we need to add BLOCK-MAPPING-START.
            if self.flow_level == 0 && self.add_indent(i64::from(key.column)) {
                self.tokens.insert(
                    at,
                    Token {
                        kind: TokenKind::BlockMappingStart,
                        start: key.mark,
                        end: key.mark,
                    },
                );
            }
            // There cannot be two simple keys one after another.
            self.allow_simple_key = false;
        } else {
            // It must be a part of a complex key.
            if self.flow_level == 0 {
                // We are allowed to start a complex value if and only if we can start a
                // simple key.
                if !self.allow_simple_key {
                    return Err(self.error(None, "mapping values are not allowed here".into()));
                }
                // If this value starts a new block mapping, we need to add
                // BLOCK-MAPPING-START. The parser refuses it later.
                if self.add_indent(i64::from(self.column)) {
                    let mark = self.mark();
                    self.push(TokenKind::BlockMappingStart, mark, mark);
                }
            }
            // Simple keys are allowed after `:` in the block context.
            self.allow_simple_key = self.flow_level == 0;
            self.remove_possible_simple_key()?;
        }
        self.push_indicator(TokenKind::Value);
        Ok(())
    }

    fn fetch_alias(&mut self) -> Result<()> {
        // ALIAS could be a simple key.
        self.save_possible_simple_key()?;
        // No simple keys after ALIAS.
        self.allow_simple_key = false;
        let token = self.scan_anchor(true)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_anchor(&mut self) -> Result<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_anchor(false)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_tag(&mut self) -> Result<()> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_tag()?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_block_scalar(&mut self, style: ScalarStyle) -> Result<()> {
        // A simple key may follow a block scalar.
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        let token = self.scan_block_scalar(style)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, style: ScalarStyle) -> Result<()> {
        // A flow scalar could be a simple key.
        self.save_possible_simple_key()?;
        // No simple keys after flow scalars.
        self.allow_simple_key = false;
        let token = self.scan_flow_scalar(style)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_plain(&mut self) -> Result<()> {
        // A plain scalar could be a simple key.
        self.save_possible_simple_key()?;
        // No simple keys after plain scalars, unless the scan ends at the start of a line
        // (`scan_plain` sets the flag then).
        self.allow_simple_key = false;
        let token = self.scan_plain()?;
        self.tokens.push_back(token);
        Ok(())
    }

    // Checkers.

    /// A plain scalar may start with any non-space character except the indicators; it
    /// may also start with `-`, `?` or `:` followed by a non-space character (`?` and
    /// `:` in block context only).
    fn check_plain(&self) -> bool {
        let ch = self.byte(0);
        let indicator = matches!(
            ch,
            b'-' | b'?'
                | b':'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
        );
        (!self.is_blankz(0) && !indicator)
            || (!self.is_blankz(1) && (ch == b'-' || (self.flow_level == 0 && (ch == b'?' || ch == b':'))))
    }

    // Scanners.

    /// Skips spaces, line breaks and comments; a line break in block context allows a
    /// simple key. A byte-order mark is skipped at the start of the stream only.
    fn scan_to_next_token(&mut self) {
        if self.index == 0 && self.bytes[self.pos..].starts_with("\u{feff}".as_bytes()) {
            self.pos += 3;
            self.index += 1;
        }
        loop {
            let spaces = self.bytes[self.pos..].iter().take_while(|&&b| b == b' ').count();
            self.forward_ascii(spaces);
            if self.byte(0) == b'#' {
                self.skip_to_line_end();
            }
            if self.scan_line_break().is_some() {
                if self.flow_level == 0 {
                    self.allow_simple_key = true;
                }
            } else {
                break;
            }
        }
    }

    /// Moves to the next line break or the end.
    fn skip_to_line_end(&mut self) {
        let n = self.breakz_from(0);
        self.forward_bytes(n);
    }

    fn scan_directive(&mut self) -> Result<Token<'a>> {
        let start = self.mark();
        self.forward_ascii(1);
        let name = self.scan_directive_name(start)?;
        let value = match name {
            "YAML" => self.scan_yaml_directive_value(start)?,
            "TAG" => self.scan_tag_directive_value(start)?,
            _ => DirectiveValue::Other,
        };
        let end = self.mark();
        if value == DirectiveValue::Other {
            self.skip_to_line_end();
        }
        self.scan_directive_ignored_line(start)?;
        Ok(Token {
            kind: TokenKind::Directive(Box::new((name, value))),
            start,
            end,
        })
    }

    fn expected_alnum(&self, context: &str, start: Mark) -> Box<YamlError> {
        self.error(
            Some((context, start)),
            format!(
                "expected alphabetic or numeric character, but found {}",
                self.found()
            ),
        )
    }

    fn scan_directive_name(&mut self, start: Mark) -> Result<&'a str> {
        let length = self.bytes[self.pos..].iter().take_while(|&&b| is_word(b)).count();
        if length == 0 {
            return Err(self.expected_alnum("while scanning a directive", start));
        }
        let value = &self.text[self.pos..self.pos + length];
        self.forward_ascii(length);
        if !(self.byte(0) == b' ' || self.is_breakz(0)) {
            return Err(self.expected_alnum("while scanning a directive", start));
        }
        Ok(value)
    }

    fn skip_spaces(&mut self) {
        while self.byte(0) == b' ' {
            self.forward_ascii(1);
        }
    }

    fn scan_yaml_directive_value(&mut self, start: Mark) -> Result<DirectiveValue<'a>> {
        self.skip_spaces();
        let major = self.scan_yaml_directive_number(start)?;
        if self.byte(0) != b'.' {
            return Err(self.error(
                Some(("while scanning a directive", start)),
                format!("expected a digit or '.', but found {}", self.found()),
            ));
        }
        self.forward_ascii(1);
        let minor = self.scan_yaml_directive_number(start)?;
        if !(self.byte(0) == b' ' || self.is_breakz(0)) {
            return Err(self.error(
                Some(("while scanning a directive", start)),
                format!("expected a digit or ' ', but found {}", self.found()),
            ));
        }
        Ok(DirectiveValue::Yaml(major, minor))
    }

    fn scan_yaml_directive_number(&mut self, start: Mark) -> Result<u64> {
        if !self.byte(0).is_ascii_digit() {
            return Err(self.error(
                Some(("while scanning a directive", start)),
                format!("expected a digit, but found {}", self.found()),
            ));
        }
        let length = self.bytes[self.pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let value = self.text[self.pos..self.pos + length].bytes().fold(0u64, |v, d| {
            v.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        });
        self.forward_ascii(length);
        Ok(value)
    }

    fn scan_tag_directive_value(&mut self, start: Mark) -> Result<DirectiveValue<'a>> {
        self.skip_spaces();
        let handle = self.scan_tag_handle("directive", start)?;
        if self.byte(0) != b' ' {
            return Err(self.error(
                Some(("while scanning a directive", start)),
                format!("expected ' ', but found {}", self.found()),
            ));
        }
        self.skip_spaces();
        let prefix = self.scan_tag_uri("directive", start)?;
        if !(self.byte(0) == b' ' || self.is_breakz(0)) {
            return Err(self.error(
                Some(("while scanning a directive", start)),
                format!("expected ' ', but found {}", self.found()),
            ));
        }
        Ok(DirectiveValue::Tag(handle, prefix))
    }

    fn scan_directive_ignored_line(&mut self, start: Mark) -> Result<()> {
        self.skip_spaces();
        if self.byte(0) == b'#' {
            self.skip_to_line_end();
        }
        if !self.is_breakz(0) {
            return Err(self.error(
                Some(("while scanning a directive", start)),
                format!("expected a comment or a line break, but found {}", self.found()),
            ));
        }
        self.scan_line_break();
        Ok(())
    }

    /// An anchor (`&name`) or an alias (`*name`). PyYAML restricts names to ASCII
    /// letters, digits, `-` and `_` (`[ *alias, value ]` would otherwise be ambiguous).
    fn scan_anchor(&mut self, alias: bool) -> Result<Token<'a>> {
        let start = self.mark();
        let context = if alias {
            "while scanning an alias"
        } else {
            "while scanning an anchor"
        };
        self.forward_ascii(1);
        let length = self.bytes[self.pos..].iter().take_while(|&&b| is_word(b)).count();
        if length == 0 {
            return Err(self.expected_alnum(context, start));
        }
        let value = &self.text[self.pos..self.pos + length];
        self.forward_ascii(length);
        if !(self.is_blankz(0)
            || matches!(
                self.byte(0),
                b'?' | b':' | b',' | b']' | b'}' | b'%' | b'@' | b'`'
            ))
        {
            return Err(self.expected_alnum(context, start));
        }
        let end = self.mark();
        let kind = if alias {
            TokenKind::Alias(value)
        } else {
            TokenKind::Anchor(value)
        };
        Ok(Token { kind, start, end })
    }

    fn scan_tag(&mut self) -> Result<Token<'a>> {
        let start = self.mark();
        let ch = self.byte(1);
        let (handle, suffix) = if ch == b'<' {
            self.forward_ascii(2);
            let suffix = self.scan_tag_uri("tag", start)?;
            if self.byte(0) != b'>' {
                return Err(self.error(
                    Some(("while parsing a tag", start)),
                    format!("expected '>', but found {}", self.found()),
                ));
            }
            self.forward_ascii(1);
            (None, suffix)
        } else if self.is_blankz(1) {
            self.forward_ascii(1);
            (None, Cow::Borrowed("!"))
        } else {
            // A second `!` before the next space or line break makes a handle (`!e!x`).
            let mut length = 1;
            let mut use_handle = false;
            loop {
                let b = self.byte(length);
                if b == b' ' || self.is_breakz(length) {
                    break;
                }
                if b == b'!' {
                    use_handle = true;
                    break;
                }
                length += 1;
            }
            let handle = if use_handle {
                self.scan_tag_handle("tag", start)?
            } else {
                self.forward_ascii(1);
                Cow::Borrowed("!")
            };
            let suffix = self.scan_tag_uri("tag", start)?;
            (Some(handle), suffix)
        };
        if !(self.byte(0) == b' ' || self.is_breakz(0)) {
            return Err(self.error(
                Some(("while scanning a tag", start)),
                format!("expected ' ', but found {}", self.found()),
            ));
        }
        let end = self.mark();
        Ok(Token {
            kind: TokenKind::Tag(Box::new((handle, suffix))),
            start,
            end,
        })
    }

    fn scan_block_scalar(&mut self, style: ScalarStyle) -> Result<Token<'a>> {
        let folded = style == ScalarStyle::Folded;
        let mut chunks = Buf::new(self.text);
        let start = self.mark();
        // Scan the header.
        self.forward_ascii(1);
        let (chomping, increment) = self.scan_block_scalar_indicators(start)?;
        self.scan_block_scalar_ignored_line(start)?;
        // Determine the indentation level and go to the first non-empty line.
        let min_indent = (self.indent + 1).max(1);
        let mut breaks = Vec::new();
        let (indent, mut end) = match increment {
            None => {
                let (max_indent, end) = self.scan_block_scalar_indentation(&mut breaks);
                (min_indent.max(max_indent), end)
            }
            Some(inc) => {
                let indent = min_indent + inc - 1;
                let end = self.scan_block_scalar_breaks(indent, &mut breaks);
                (indent, end)
            }
        };
        let mut line_break: Option<(char, usize, usize)> = None;
        // Scan the inner part of the block scalar.
        while i64::from(self.column) == indent && !self.at_end() {
            for &(b, s, e) in &breaks {
                chunks.line_break(b, s, e);
            }
            breaks.clear();
            let leading_non_space = !matches!(self.byte(0), b' ' | b'\t');
            let length = self.breakz_from(0);
            chunks.slice(self.pos, self.pos + length);
            self.forward_bytes(length);
            let at = self.pos;
            line_break = self.scan_line_break().map(|b| (b, at, self.pos));
            end = self.scan_block_scalar_breaks(indent, &mut breaks);
            if i64::from(self.column) == indent && !self.at_end() {
                // The folding of the specification (not Clark Evans's interpretation).
                if folded
                    && matches!(line_break, Some(('\n', _, _)))
                    && leading_non_space
                    && !matches!(self.byte(0), b' ' | b'\t')
                {
                    if breaks.is_empty() {
                        chunks.push_str(" ");
                    }
                } else if let Some((b, s, e)) = line_break {
                    chunks.line_break(b, s, e);
                }
            } else {
                break;
            }
        }
        // Chomp the tail.
        if chomping != Some(false) {
            if let Some((b, s, e)) = line_break {
                chunks.line_break(b, s, e);
            }
        }
        if chomping == Some(true) {
            for &(b, s, e) in &breaks {
                chunks.line_break(b, s, e);
            }
        }
        Ok(Token {
            kind: TokenKind::Scalar(chunks.finish(), style),
            start,
            end,
        })
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len() || self.byte(0) == 0
    }

    fn scan_block_scalar_indicators(&mut self, start: Mark) -> Result<(Option<bool>, Option<i64>)> {
        let context = Some(("while scanning a block scalar", start));
        let mut chomping = None;
        let mut increment = None;
        let zero = |s: &Self| {
            s.error(
                context,
                "expected indentation indicator in the range 1-9, but found 0".into(),
            )
        };
        let ch = self.byte(0);
        if ch == b'+' || ch == b'-' {
            chomping = Some(ch == b'+');
            self.forward_ascii(1);
            let ch = self.byte(0);
            if ch.is_ascii_digit() {
                if ch == b'0' {
                    return Err(zero(self));
                }
                increment = Some(i64::from(ch - b'0'));
                self.forward_ascii(1);
            }
        } else if ch.is_ascii_digit() {
            if ch == b'0' {
                return Err(zero(self));
            }
            increment = Some(i64::from(ch - b'0'));
            self.forward_ascii(1);
            let ch = self.byte(0);
            if ch == b'+' || ch == b'-' {
                chomping = Some(ch == b'+');
                self.forward_ascii(1);
            }
        }
        if !(self.byte(0) == b' ' || self.is_breakz(0)) {
            return Err(self.error(
                context,
                format!(
                    "expected chomping or indentation indicators, but found {}",
                    self.found()
                ),
            ));
        }
        Ok((chomping, increment))
    }

    fn scan_block_scalar_ignored_line(&mut self, start: Mark) -> Result<()> {
        self.skip_spaces();
        if self.byte(0) == b'#' {
            self.skip_to_line_end();
        }
        if !self.is_breakz(0) {
            return Err(self.error(
                Some(("while scanning a block scalar", start)),
                format!("expected a comment or a line break, but found {}", self.found()),
            ));
        }
        self.scan_line_break();
        Ok(())
    }

    /// The leading empty lines of a block scalar and the deepest indentation among
    /// them.
    fn scan_block_scalar_indentation(&mut self, breaks: &mut Vec<(char, usize, usize)>) -> (i64, Mark) {
        let mut max_indent = 0;
        let mut end = self.mark();
        while self.byte(0) == b' ' || self.is_break(0) {
            if self.byte(0) != b' ' {
                let at = self.pos;
                if let Some(b) = self.scan_line_break() {
                    breaks.push((b, at, self.pos));
                }
                end = self.mark();
            } else {
                self.forward_ascii(1);
                max_indent = max_indent.max(i64::from(self.column));
            }
        }
        (max_indent, end)
    }

    fn scan_block_scalar_breaks(&mut self, indent: i64, breaks: &mut Vec<(char, usize, usize)>) -> Mark {
        let mut end = self.mark();
        while i64::from(self.column) < indent && self.byte(0) == b' ' {
            self.forward_ascii(1);
        }
        while self.is_break(0) {
            let at = self.pos;
            if let Some(b) = self.scan_line_break() {
                breaks.push((b, at, self.pos));
            }
            end = self.mark();
            while i64::from(self.column) < indent && self.byte(0) == b' ' {
                self.forward_ascii(1);
            }
        }
        end
    }

    /// A single- or double-quoted scalar. Indentation is not checked (the quotes mark
    /// where it begins and ends); only document separators are refused inside.
    fn scan_flow_scalar(&mut self, style: ScalarStyle) -> Result<Token<'a>> {
        let double = style == ScalarStyle::DoubleQuoted;
        let mut chunks = Buf::new(self.text);
        let start = self.mark();
        let quote = self.byte(0);
        self.forward_ascii(1);
        self.scan_flow_scalar_non_spaces(double, start, &mut chunks)?;
        while self.byte(0) != quote {
            self.scan_flow_scalar_spaces(start, &mut chunks)?;
            self.scan_flow_scalar_non_spaces(double, start, &mut chunks)?;
        }
        self.forward_ascii(1);
        let end = self.mark();
        Ok(Token {
            kind: TokenKind::Scalar(chunks.finish(), style),
            start,
            end,
        })
    }

    fn scan_flow_scalar_non_spaces(&mut self, double: bool, start: Mark, chunks: &mut Buf<'a>) -> Result<()> {
        let context = Some(("while scanning a double-quoted scalar", start));
        loop {
            let mut length = 0;
            loop {
                length = self.skip_to_stop(length, &QUOTED_STOPS);
                let b = self.byte(length);
                if matches!(b, b'\'' | b'"' | b'\\' | 0 | b' ' | b'\t' | b'\r' | b'\n')
                    || self.is_break(length)
                {
                    break;
                }
                length += 1;
            }
            if length > 0 {
                chunks.slice(self.pos, self.pos + length);
                self.forward_bytes(length);
            }
            let ch = self.byte(0);
            if self.at_end() {
                return Ok(());
            }
            if !double && ch == b'\'' && self.byte(1) == b'\'' {
                chunks.slice(self.pos, self.pos + 1);
                self.forward_ascii(2);
            } else if (double && ch == b'\'') || (!double && (ch == b'"' || ch == b'\\')) {
                chunks.slice(self.pos, self.pos + 1);
                self.forward_ascii(1);
            } else if double && ch == b'\\' {
                self.forward_ascii(1);
                let c = self.char_at(0).filter(|_| !self.at_end());
                if let Some(r) = c.and_then(escape_replacement) {
                    chunks.push_char(r);
                    self.forward();
                } else if let Some(&(_, length)) = ESCAPE_CODES.iter().find(|(e, _)| Some(*e as char) == c) {
                    self.forward_ascii(1);
                    for k in 0..length {
                        if !self.byte(k).is_ascii_hexdigit() {
                            return Err(self.error(
                                context,
                                format!(
                                    "expected escape sequence of {length} hexadecimal numbers, but found {}",
                                    python_repr_char(
                                        self.char_at(k).filter(|_| self.pos + k < self.bytes.len())
                                    )
                                ),
                            ));
                        }
                    }
                    let code = u32::from_str_radix(&self.text[self.pos..self.pos + length], 16).unwrap_or(0);
                    match char::from_u32(code) {
                        Some(c) => chunks.push_char(c),
                        // A surrogate: Python keeps it in the string; no UTF-8 text can.
                        None if (0xd800..0xe000).contains(&code) => chunks.push_char('\u{fffd}'),
                        // Python's `chr()` fails (a ValueError, not a YAML error).
                        None => {
                            return Err(self.error(
                                context,
                                format!("chr() arg not in range(0x110000): escape code {code:#x}"),
                            ));
                        }
                    }
                    self.forward_ascii(length);
                } else if self.is_break(0) {
                    self.scan_line_break();
                    self.scan_flow_scalar_breaks(start, chunks)?;
                } else {
                    return Err(self.error(
                        context,
                        format!("found unknown escape character {}", python_repr_char(c)),
                    ));
                }
            } else {
                return Ok(());
            }
        }
    }

    fn scan_flow_scalar_spaces(&mut self, start: Mark, chunks: &mut Buf<'a>) -> Result<()> {
        let length = self.bytes[self.pos..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let ws = (self.pos, self.pos + length);
        self.forward_ascii(length);
        if self.at_end() {
            return Err(self.error(
                Some(("while scanning a quoted scalar", start)),
                "found unexpected end of stream".into(),
            ));
        }
        if self.is_break(0) {
            let line_break = self.scan_line_break();
            let mut breaks = Buf::new(self.text);
            self.scan_flow_scalar_breaks(start, &mut breaks)?;
            if let Some(b) = line_break.filter(|&b| b != '\n') {
                chunks.push_char(b);
            } else if breaks.is_empty() {
                chunks.push_str(" ");
            }
            chunks.push_str(&breaks.finish());
        } else {
            chunks.slice(ws.0, ws.1);
        }
        Ok(())
    }

    fn scan_flow_scalar_breaks(&mut self, start: Mark, chunks: &mut Buf<'a>) -> Result<()> {
        loop {
            // Instead of checking indentation, we check for document separators.
            if self.at_document_separator() {
                return Err(self.error(
                    Some(("while scanning a quoted scalar", start)),
                    "found unexpected document separator".into(),
                ));
            }
            while matches!(self.byte(0), b' ' | b'\t') {
                self.forward_ascii(1);
            }
            let at = self.pos;
            match self.scan_line_break() {
                Some(b) => chunks.line_break(b, at, self.pos),
                None => return Ok(()),
            }
        }
    }

    /// A plain scalar. In flow context it cannot contain `,`, `?`, `[`, `]`, `{`, `}`
    /// (nor `:` followed by one of them); its indentation is only checked in block
    /// context. Keeps `allow_simple_key` up to date.
    fn scan_plain(&mut self) -> Result<Token<'a>> {
        let mut chunks = Buf::new(self.text);
        let start = self.mark();
        let mut end = start;
        let indent = self.indent + 1;
        let mut spaces = Pending::None;
        let stops = if self.flow_level != 0 {
            &PLAIN_FLOW_STOPS
        } else {
            &PLAIN_BLOCK_STOPS
        };
        loop {
            if self.byte(0) == b'#' {
                break;
            }
            let mut length = 0;
            loop {
                length = self.skip_to_stop(length, stops);
                let ch = self.byte(length);
                if matches!(ch, b' ' | b'\t') || self.is_breakz(length) {
                    break;
                }
                if ch == b':'
                    && (self.is_blankz(length + 1)
                        || (self.flow_level != 0
                            && matches!(self.byte(length + 1), b',' | b'[' | b']' | b'{' | b'}')))
                {
                    break;
                }
                if self.flow_level != 0 && matches!(ch, b',' | b'?' | b'[' | b']' | b'{' | b'}') {
                    break;
                }
                length += 1;
            }
            if length == 0 {
                break;
            }
            self.allow_simple_key = false;
            match std::mem::replace(&mut spaces, Pending::None) {
                Pending::None => {}
                Pending::Spaces(s, e) => chunks.slice(s, e),
                Pending::Folded(f) => chunks.push_str(&f),
            }
            chunks.slice(self.pos, self.pos + length);
            self.forward_bytes(length);
            end = self.mark();
            match self.scan_plain_spaces() {
                Some(s) => spaces = s,
                None => break,
            }
            if matches!(spaces, Pending::None)
                || self.byte(0) == b'#'
                || (self.flow_level == 0 && i64::from(self.column) < indent)
            {
                break;
            }
        }
        Ok(Token {
            kind: TokenKind::Scalar(chunks.finish(), ScalarStyle::Plain),
            start,
            end,
        })
    }

    /// The spaces after a part of a plain scalar: `None` when a document separator
    /// follows a line break (the scalar ends); `Pending::None` when there are none.
    /// Tabs are not spaces here: PyYAML forbids them in plain scalars.
    fn scan_plain_spaces(&mut self) -> Option<Pending> {
        let length = self.bytes[self.pos..].iter().take_while(|&&b| b == b' ').count();
        let ws = (self.pos, self.pos + length);
        self.forward_ascii(length);
        if self.is_break(0) {
            let line_break = self.scan_line_break();
            self.allow_simple_key = true;
            if self.at_document_separator() {
                return None;
            }
            let mut breaks = String::new();
            while self.byte(0) == b' ' || self.is_break(0) {
                if self.byte(0) == b' ' {
                    self.forward_ascii(1);
                } else {
                    if let Some(b) = self.scan_line_break() {
                        breaks.push(b);
                    }
                    if self.at_document_separator() {
                        return None;
                    }
                }
            }
            let mut folded = String::new();
            match line_break {
                Some(b) if b != '\n' => folded.push(b),
                _ if breaks.is_empty() => folded.push(' '),
                _ => {}
            }
            folded.push_str(&breaks);
            Some(Pending::Folded(folded))
        } else if length > 0 {
            Some(Pending::Spaces(ws.0, ws.1))
        } else {
            Some(Pending::None)
        }
    }

    fn scan_tag_handle(&mut self, name: &str, start: Mark) -> Result<Cow<'a, str>> {
        let context = format!("while scanning a {name}");
        if self.byte(0) != b'!' {
            return Err(self.error(
                Some((&context, start)),
                format!("expected '!', but found {}", self.found()),
            ));
        }
        let mut length = 1;
        if self.byte(1) != b' ' {
            while is_word(self.byte(length)) {
                length += 1;
            }
            if self.byte(length) != b'!' {
                self.forward_ascii(length);
                return Err(self.error(
                    Some((&context, start)),
                    format!("expected '!', but found {}", self.found()),
                ));
            }
            length += 1;
        }
        let value = &self.text[self.pos..self.pos + length];
        self.forward_ascii(length);
        Ok(Cow::Borrowed(value))
    }

    fn scan_tag_uri(&mut self, name: &str, start: Mark) -> Result<Cow<'a, str>> {
        // Note: PyYAML does not check that the URI is well formed.
        let mut chunks = Buf::new(self.text);
        let mut any = false;
        let mut length = 0;
        while is_uri_char(self.byte(length)) {
            if self.byte(length) == b'%' {
                chunks.slice(self.pos, self.pos + length);
                self.forward_ascii(length);
                length = 0;
                let decoded = self.scan_uri_escapes(name, start)?;
                chunks.push_str(&decoded);
                any = true;
            } else {
                length += 1;
            }
        }
        if length > 0 {
            chunks.slice(self.pos, self.pos + length);
            self.forward_ascii(length);
            any = true;
        }
        if !any {
            return Err(self.error(
                Some((&format!("while parsing a {name}"), start)),
                format!("expected URI, but found {}", self.found()),
            ));
        }
        Ok(chunks.finish())
    }

    fn scan_uri_escapes(&mut self, name: &str, start: Mark) -> Result<String> {
        let mut codes = Vec::new();
        let mark = self.mark();
        while self.byte(0) == b'%' {
            self.forward_ascii(1);
            for k in 0..2 {
                if !self.byte(k).is_ascii_hexdigit() {
                    return Err(self.error(
                        Some((&format!("while scanning a {name}"), start)),
                        format!(
                            "expected URI escape sequence of 2 hexadecimal numbers, but found {}",
                            python_repr_char(self.char_at(k).filter(|_| self.pos + k < self.bytes.len()))
                        ),
                    ));
                }
            }
            codes.push(u8::from_str_radix(&self.text[self.pos..self.pos + 2], 16).unwrap_or(0));
            self.forward_ascii(2);
        }
        String::from_utf8(codes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let byte = e.as_bytes()[at];
            YamlError::new(
                Some((Cow::Owned(format!("while scanning a {name}")), start)),
                format!("'utf-8' codec can't decode byte {byte:#04x} in position {at}: invalid start byte"),
                mark,
            )
        })
    }
}

/// The length of the UTF-8 sequence a lead byte starts.
fn utf8_len(b: u8) -> usize {
    match b {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}
