//! YAML text → [`Document`]s, from saphyr-parser's event stream.
//!
//! The tree is built iteratively (no recursion, so nesting cannot overflow the stack) and
//! reports, with exact spans: syntax errors (AML001), constructs `safe_load` rejects
//! (unknown tags, unhashable keys, bad merge values: AML001), duplicate keys (AML002),
//! and limits (AML005: nesting depth, recursive aliases, alias expansion).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span as SaphyrSpan, Tag};

use super::yaml11::{self, Note, NoteKind, Resolved};
use super::{Document, Entry, Expansion, Node, NodeId, Style, Value};
use crate::diagnostic::{Diagnostic, Findings};
use crate::load::Limits;
use crate::source::Span;

/// Parses every document of a YAML stream. `base` is where the content starts in `text`
/// (3 after a UTF-8 byte-order mark).
pub fn parse(text: &str, base: u32, limits: &Limits, diags: &mut Findings) -> Vec<Document> {
    let content = &text[base as usize..];
    check_printable(text, base, diags);
    let printable = diags.len();
    let mut builder = Builder {
        text,
        base,
        conv: CharToByte::new(content),
        limits,
        docs: Vec::new(),
        doc: None,
        stack: Vec::new(),
        anchors: HashMap::new(),
        last_end: base,
        diags,
        before_docs: printable,
        doc_diags: printable,
        nodes_before: 0,
        merge_copies: 0,
        merge_overflow: false,
    };
    let mut parser = Parser::new_from_str(content);
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok((event, span))) => {
                if matches!(event, Event::StreamEnd) {
                    break;
                }
                if !builder.event(event, span) {
                    builder.abort();
                    break;
                }
            }
            Some(Err(err)) => {
                let offset = builder.byte(err.marker().index());
                let info = err.info();
                let span = builder.char_span_at(offset);
                let diag = if info.contains("recursion limit exceeded") {
                    Diagnostic::new(
                        "AML005",
                        span,
                        "flow collections (`[`/`{`) are nested deeper than 255 levels",
                    )
                    .with_help("Azure ML configurations never need this depth; flatten the structure or check that brackets are balanced.")
                } else if let Some(tab) = info
                    .contains("tab")
                    .then(|| indenting_tab(text, offset))
                    .flatten()
                {
                    // saphyr reports a tab where the token it was scanning began (often the
                    // line above); PyYAML, at the tab itself: "found character '\t' that
                    // cannot start any token".
                    let tab = Span::new(tab, tab + 1);
                    syntax_error("found a tab character that cannot start any token", tab, "")
                        .with_help("YAML indentation must use spaces: replace the tab characters at the start of this line with spaces.")
                } else {
                    let line_start = text[..offset as usize].rfind('\n').map_or(0, |i| i + 1);
                    let line_end = text[offset as usize..]
                        .find('\n')
                        .map_or(text.len(), |i| offset as usize + i);
                    syntax_error(info, span, &text[line_start..line_end])
                };
                builder.diags.push(diag);
                builder.abort();
                break;
            }
        }
    }
    builder.finish_doc();
    builder.docs
}

/// The first tab in the indentation of a line at or after `offset` (the line `offset` is
/// on included), within the next few lines.
fn indenting_tab(text: &str, offset: u32) -> Option<u32> {
    let start = text[..offset as usize].rfind('\n').map_or(0, |i| i + 1);
    let mut pos = start;
    for line in text[start..].split_inclusive('\n').take(8) {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(i) = line[..indent].find('\t') {
            return u32::try_from(pos + i).ok();
        }
        pos += line.len();
    }
    None
}

fn syntax_error(info: &str, span: Span, line: &str) -> Diagnostic {
    let help = if line.contains("{{") {
        TEMPLATE_HELP
    } else if info.contains("tab") {
        "YAML indentation must use spaces: replace the tab characters at the start of this line with spaces."
    } else if info.contains("mapping values are not allowed") {
        "A `key: value` pair appears where none is allowed: check this line's indentation against the line above, or quote a value that contains `: `."
    } else if info.contains("did not find expected key") || info.contains("expected <block end>") {
        "Check the indentation of this line: every key of a mapping must start in the same column."
    } else if info.contains("unknown anchor") {
        "Define the anchor (`&name`) before the alias (`*name`) that uses it."
    } else {
        "Fix the YAML syntax; the Azure ML CLI cannot read this file until then."
    };
    Diagnostic::new("AML001", span, format!("YAML syntax error: {info}")).with_help(help)
}

const TEMPLATE_HELP: &str = "This line holds a `{{...}}` template placeholder, which YAML reads as nested flow mappings: render the template before checking the file, or quote the placeholder (`\"{{NAME}}\"`).";

/// PyYAML's reader rejects control characters before parsing anything
/// (`yaml/reader.py`, `NON_PRINTABLE`).
fn check_printable(text: &str, base: u32, diags: &mut Findings) {
    if let Some((i, c)) = first_unprintable(&text[base as usize..]) {
        let start = base + i as u32;
        diags.push(
            Diagnostic::new(
                "AML001",
                Span::new(start, start + c.len_utf8() as u32),
                format!(
                    "unacceptable character #x{:04x}: the Azure ML CLI's YAML reader rejects control characters",
                    c as u32
                ),
            )
            .with_help("Remove the character, or write it as an escape (`\\x..`) inside a double-quoted string."),
        );
    }
}

/// Whether PyYAML's reader accepts the character (`yaml/reader.py`, `NON_PRINTABLE`).
fn printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// The first character of `text` that is not [`printable`], and its byte offset. Scans
/// bytes, a block at a time: a refused character can only start with a C0 control byte
/// other than tab, LF and CR, with DEL, with 0xC2 (U+0080–U+00BF, of which U+0080–U+009F
/// but U+0085 are refused) or with 0xEF (U+F000–U+FFFF, of which U+FFFE and U+FFFF are
/// refused); neither 0xC2 nor 0xEF is ever a continuation byte, so each such byte starts a
/// character, which is then tested as a whole.
fn first_unprintable(text: &str) -> Option<(usize, char)> {
    const BLOCK: usize = 64;
    let suspect =
        |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f || b == 0xc2 || b == 0xef;
    let bytes = text.as_bytes();
    for (n, block) in bytes.chunks(BLOCK).enumerate() {
        // `fold` without a short circuit, so the block's test vectorises.
        if !block.iter().fold(false, |any, &b| any | suspect(b)) {
            continue;
        }
        for (j, &b) in block.iter().enumerate() {
            if !suspect(b) {
                continue;
            }
            let i = n * BLOCK + j;
            let c = text[i..].chars().next()?;
            if !printable(c) {
                return Some((i, c));
            }
        }
    }
    None
}

/// saphyr reports positions in characters; spans are bytes.
struct CharToByte {
    /// Byte offset of every `STEP`-th character; empty when the text is ASCII.
    checkpoints: Vec<u32>,
}

const STEP: usize = 128;

impl CharToByte {
    fn new(content: &str) -> Self {
        let checkpoints = if content.is_ascii() {
            Vec::new()
        } else {
            content
                .char_indices()
                .step_by(STEP)
                .map(|(b, _)| b as u32)
                .collect()
        };
        Self { checkpoints }
    }

    /// The byte offset of the `char_index`-th character of `content`.
    fn byte(&self, content: &str, char_index: usize) -> u32 {
        if self.checkpoints.is_empty() {
            return char_index.min(content.len()) as u32;
        }
        let Some(&start) = self.checkpoints.get(char_index / STEP) else {
            return content.len() as u32;
        };
        match content[start as usize..].char_indices().nth(char_index % STEP) {
            Some((b, _)) => start + b as u32,
            None => content.len() as u32,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Open,
    Done(NodeId),
}

enum FrameKind {
    Seq(Vec<NodeId>),
    Map {
        entries: Vec<Entry>,
        pending_key: Option<NodeId>,
        /// Values of `<<` keys, applied when the mapping ends.
        merges: Vec<NodeId>,
    },
}

struct Frame {
    kind: FrameKind,
    flow: bool,
    /// Flow: the opening bracket. Block: the first child's start (set on first attach).
    start: Option<u32>,
    last_end: u32,
    anchor: usize,
}

struct Builder<'a, 'd> {
    text: &'a str,
    base: u32,
    conv: CharToByte,
    limits: &'a Limits,
    docs: Vec<Document>,
    doc: Option<Document>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchor>,
    last_end: u32,
    diags: &'d mut Findings,
    /// Entries copied into mappings by `<<` merge keys in this document: bounded by
    /// `max_alias_nodes`, since each `<<: [*a, *a]` level may double them.
    merge_copies: u64,
    /// The merge copies went over the limit.
    merge_overflow: bool,
    /// How many findings were made before any document (the printable-character check),
    /// and how many before the current document started: a document's own findings are
    /// the ones after, so checking for them costs what they are, not every finding.
    before_docs: usize,
    doc_diags: usize,
    /// Nodes of the file's finished documents (the file's trees are bounded together).
    nodes_before: u64,
}

fn alias_limit_diagnostic(span: Span, limits: &Limits) -> Diagnostic {
    expansion_diagnostic(span, limits, Expansion::Nodes { aliases: true })
}

/// AML005 for a document that exceeds a limit once its aliases are expanded, naming the
/// limit reached and its value.
fn expansion_diagnostic(span: Span, limits: &Limits, reached: Expansion) -> Diagnostic {
    const NOT_CHECKED: &str = "The document was not checked further.";
    match reached {
        Expansion::Nodes { aliases: true } => Diagnostic::new(
            "AML005",
            span,
            format!(
                "aliases expand this document to more than {} nodes (the node limit; a \"billion laughs\" pattern)",
                limits.max_alias_nodes
            ),
        )
        .with_help(format!("Each alias repeats its anchor's whole content; the Azure ML SDK would expand them all. Write the content out, or reduce the nesting of aliases. {NOT_CHECKED}")),
        Expansion::Nodes { aliases: false } => Diagnostic::new(
            "AML005",
            span,
            format!(
                "this document has more than {} nodes (the node limit: keys, values and list items counted one by one)",
                limits.max_alias_nodes
            ),
        )
        .with_help(format!("No Azure ML configuration is this large; split the data out of the configuration (a data asset or a file it references). {NOT_CHECKED}")),
        Expansion::Depth => Diagnostic::new(
            "AML005",
            span,
            format!(
                "aliases nest this document deeper than {} levels (the nesting limit), counting each alias as the content it repeats",
                limits.max_depth
            ),
        )
        .with_help(format!("Each alias nests its anchor's whole content where it stands; write the structure out flat, or stop nesting aliases inside anchored content. {NOT_CHECKED}")),
    }
}

/// A mapping key as Python's `dict` compares it (`1`, `1.0` and `True` are one key).
#[derive(PartialEq, Eq, Hash)]
enum KeyId<'k> {
    Str(&'k str),
    Int(i64),
    Big(&'k str),
    Float(u64),
    Null,
}

impl<'a> Builder<'a, '_> {
    fn content(&self) -> &'a str {
        &self.text[self.base as usize..]
    }

    fn byte(&self, char_index: usize) -> u32 {
        self.conv.byte(self.content(), char_index) + self.base
    }

    fn span(&self, s: SaphyrSpan) -> Span {
        Span::new(self.byte(s.start.index()), self.byte(s.end.index()))
    }

    /// A span covering the character at `offset` (empty at the end or on a line break).
    fn char_span_at(&self, offset: u32) -> Span {
        match self.text[offset as usize..].chars().next() {
            Some(c) if c != '\n' && c != '\r' => Span::new(offset, offset + c.len_utf8() as u32),
            _ => Span::at(offset),
        }
    }

    fn doc(&mut self) -> &mut Document {
        self.doc.get_or_insert_with(Document::default)
    }

    /// Handles one event; `false` stops parsing (a limit was hit).
    fn event(&mut self, event: Event<'_>, raw: SaphyrSpan) -> bool {
        let span = self.span(raw);
        let is_seq = matches!(event, Event::SequenceStart(..));
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
            Event::DocumentStart(explicit) => {
                self.finish_doc();
                let start = if explicit { span.start } else { span.end };
                self.doc = Some(Document {
                    span: Span::at(start),
                    ..Document::default()
                });
                self.anchors.clear();
                self.doc_diags = self.diags.len();
                self.merge_copies = 0;
                self.merge_overflow = false;
            }
            Event::DocumentEnd => self.finish_doc(),
            Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..) | Event::Alias(..)
                if self.nodes_before + self.doc.as_ref().map_or(0, |d| d.nodes.len() as u64)
                    >= self.limits.max_nodes =>
            {
                // The file's trees are as large as the limit allows: stop building them, so
                // memory stays bounded by the limit rather than by the file.
                self.diags.push(super::too_many_nodes(span, self.limits));
                if let Some(doc) = self.doc.as_mut() {
                    doc.alias_overflow = true;
                }
                return false;
            }
            Event::Scalar(value, style, anchor, tag) => {
                let span = self.scalar_span(span, style);
                let node = self.scalar(&value, style, tag.as_deref(), span);
                if anchor > 0 {
                    self.anchors.insert(anchor, Anchor::Done(node));
                }
                self.attach(node);
            }
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                if self.stack.len() >= self.limits.max_depth {
                    let at = self.char_span_at(span.start.max(span.end.saturating_sub(1)));
                    self.diags.push(
                        Diagnostic::new(
                            "AML005",
                            at,
                            format!("nesting deeper than {} levels", self.limits.max_depth),
                        )
                        .with_help("Azure ML configurations are a few levels deep; flatten this structure. The rest of the file was not checked."),
                    );
                    return false;
                }
                if let Some(tag) = tag.as_deref() {
                    self.check_collection_tag(tag, span);
                }
                let flow = self.text[span.range()].trim_end().ends_with(['{', '[']);
                let kind = if is_seq {
                    FrameKind::Seq(Vec::new())
                } else {
                    FrameKind::Map {
                        entries: Vec::new(),
                        pending_key: None,
                        merges: Vec::new(),
                    }
                };
                if anchor > 0 {
                    self.anchors.insert(anchor, Anchor::Open);
                }
                self.stack.push(Frame {
                    kind,
                    flow,
                    start: flow.then_some(span.end.saturating_sub(1)),
                    last_end: span.end,
                    anchor,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let end = span.end;
                self.close_frame(Some(end));
                if self.merge_overflow {
                    self.alias_limit_exceeded(self.char_span_at(end.saturating_sub(1)));
                    return false;
                }
            }
            Event::Alias(anchor) => {
                let node = match self.anchors.get(&anchor).copied() {
                    Some(Anchor::Done(target)) => self.push_node(Node {
                        value: Value::Alias(target),
                        span,
                        style: Style::Plain,
                    }),
                    _ => {
                        self.diags.push(
                            Diagnostic::new(
                                "AML005",
                                span,
                                format!("recursive alias `{}`: it refers to a node that contains it", &self.text[span.range()]),
                            )
                            .with_help("The Azure ML SDK cannot validate a self-containing structure; replace the alias with the content it should repeat."),
                        );
                        self.doc().partial = true;
                        self.push_node(Node {
                            value: Value::Null,
                            span,
                            style: Style::Plain,
                        })
                    }
                };
                self.attach(node);
            }
        }
        true
    }

    /// Trims a scalar's span to its own text: no anchor or tag before it, no line breaks
    /// after a block scalar.
    fn scalar_span(&self, span: Span, style: ScalarStyle) -> Span {
        let bytes = self.text.as_bytes();
        let mut start = span.start as usize;
        let end = span.end as usize;
        while start < end && (bytes[start] == b'&' || bytes[start] == b'!') {
            while start < end && !bytes[start].is_ascii_whitespace() {
                start += 1;
            }
            while start < end && bytes[start].is_ascii_whitespace() {
                start += 1;
            }
        }
        let mut end = end;
        if matches!(
            style,
            ScalarStyle::Literal | ScalarStyle::Folded | ScalarStyle::Plain
        ) {
            while end > start && bytes[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
        }
        // The parser may end a quoted scalar at the next token, past a trailing comment:
        // end it at its closing quote (`''` escapes a single quote, `\` a double one).
        let quote = match style {
            ScalarStyle::SingleQuoted => Some(b'\''),
            ScalarStyle::DoubleQuoted => Some(b'"'),
            _ => None,
        };
        if let Some(q) = quote.filter(|q| bytes.get(start) == Some(q)) {
            let mut i = start + 1;
            while i < end {
                if q == b'"' && bytes[i] == b'\\' {
                    i += 2;
                } else if bytes[i] == q {
                    if q == b'\'' && i + 1 < end && bytes[i + 1] == b'\'' {
                        i += 2;
                    } else {
                        end = i + 1;
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        }
        if start >= end && style == ScalarStyle::Plain {
            // An empty plain scalar (`key:`) sits right after its indicator.
            return Span::at(span.start);
        }
        Span::new(start as u32, end as u32)
    }

    fn push_node(&mut self, node: Node) -> NodeId {
        let doc = self.doc();
        let id = NodeId(doc.nodes.len() as u32);
        doc.nodes.push(node);
        id
    }

    fn scalar(&mut self, value: &str, style: ScalarStyle, tag: Option<&Tag>, span: Span) -> NodeId {
        let node_style = match style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted => Style::SingleQuoted,
            ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
            ScalarStyle::Literal => Style::Literal,
            ScalarStyle::Folded => Style::Folded,
        };
        let mut note = None;
        let resolved = match tag {
            Some(tag) => self.tagged_scalar(value, tag, span),
            None if node_style == Style::Plain => match yaml11::resolve_plain(value) {
                Resolved::Value(v) => {
                    note = yaml11::compare(value, &v);
                    v
                }
                // A merge key is only special as a key; `attach` handles it.
                Resolved::Merge => Value::Str(value.into()),
                Resolved::Invalid(what) => {
                    self.diags.push(
                        Diagnostic::new("AML001", span, format!("`{value}` looks like {what} to the Azure ML CLI's YAML reader, which then fails to convert it (ValueError)"))
                            .with_help("Quote it if it is text, or correct the value."),
                    );
                    Value::Str(value.into())
                }
                Resolved::ValueTag => {
                    self.diags.push(
                        Diagnostic::new("AML001", span, "a plain `=` cannot be read by the Azure ML CLI: PyYAML resolves it to the YAML 1.1 `value` type, which `safe_load` cannot construct")
                            .with_help("Quote it: `'='`."),
                    );
                    Value::Str(value.into())
                }
            },
            None => Value::Str(value.into()),
        };
        let id = self.push_node(Node {
            value: resolved,
            span,
            style: node_style,
        });
        if let Some(kind) = note {
            self.doc().yaml11_notes.push(Note { node: id, kind });
        }
        id
    }

    /// A scalar with an explicit tag, constructed as PyYAML's `SafeConstructor` would.
    fn tagged_scalar(&mut self, value: &str, tag: &Tag, span: Span) -> Value {
        let full = format!("{}{}", tag.handle, tag.suffix);
        let core = full.strip_prefix("tag:yaml.org,2002:");
        let constructed = match (full.as_str(), core) {
            ("!", _) => Some(Value::Str(value.into())),
            (_, Some("str" | "binary")) => Some(Value::Str(value.into())),
            (_, Some("null")) => Some(Value::Null),
            (_, Some("bool")) => match value.to_ascii_lowercase().as_str() {
                "yes" | "true" | "on" => Some(Value::Bool(true)),
                "no" | "false" | "off" => Some(Value::Bool(false)),
                _ => None,
            },
            (_, Some("int")) => yaml11::construct_int(value),
            (_, Some("float")) => match yaml11::construct_float(value) {
                Value::Float(f) if f.is_nan() && !value.to_ascii_lowercase().contains("nan") => None,
                v => Some(v),
            },
            (_, Some("timestamp")) => Some(Value::Timestamp(value.into())),
            _ => {
                self.diags.push(
                    Diagnostic::new(
                        "AML001",
                        span,
                        format!("could not determine a constructor for the tag '{}': the Azure ML CLI reads YAML with `safe_load`, which only knows the standard tags", display_tag(&full)),
                    )
                    .with_help("Remove the tag; write the value as plain YAML."),
                );
                return Value::Str(value.into());
            }
        };
        constructed.unwrap_or_else(|| {
            self.diags.push(
                Diagnostic::new(
                    "AML001",
                    span,
                    format!("`{value}` cannot be read as {}", display_tag(&full)),
                )
                .with_help("Fix the value or remove the tag."),
            );
            Value::Str(value.into())
        })
    }

    fn check_collection_tag(&mut self, tag: &Tag, span: Span) {
        let full = format!("{}{}", tag.handle, tag.suffix);
        let ok = full == "!"
            || matches!(
                full.strip_prefix("tag:yaml.org,2002:"),
                Some("map" | "seq" | "omap" | "pairs" | "set")
            );
        if !ok {
            self.diags.push(
                Diagnostic::new(
                    "AML001",
                    span,
                    format!("could not determine a constructor for the tag '{}': the Azure ML CLI reads YAML with `safe_load`, which only knows the standard tags", display_tag(&full)),
                )
                .with_help("Remove the tag; write the value as plain YAML."),
            );
        }
    }

    /// Adds a finished node to the innermost open collection (or makes it the root).
    fn attach(&mut self, node: NodeId) {
        let node_span = self.doc().nodes[node.index()].span;
        self.last_end = self.last_end.max(node_span.end);
        let Some(frame) = self.stack.last_mut() else {
            self.doc().root = Some(node);
            return;
        };
        if frame.start.is_none() {
            frame.start = Some(node_span.start);
        }
        frame.last_end = frame.last_end.max(node_span.end);
        match &mut frame.kind {
            FrameKind::Seq(items) => items.push(node),
            FrameKind::Map {
                pending_key: pending @ None,
                ..
            } => *pending = Some(node),
            FrameKind::Map {
                entries,
                pending_key,
                merges,
            } => {
                let key = pending_key.take().unwrap_or(node);
                let entry = Entry {
                    key,
                    value: node,
                    merged: false,
                };
                let is_merge = {
                    let doc = self.doc.as_ref().expect("a node implies a document");
                    let k = &doc.nodes[key.index()];
                    k.style == Style::Plain && matches!(&k.value, Value::Str(s) if &**s == "<<")
                };
                if is_merge {
                    merges.push(node);
                } else {
                    entries.push(entry);
                }
                if !is_merge {
                    self.after_entry(key, node);
                }
            }
        }
    }

    /// Per-entry checks that need the key: version-like keys holding numbers.
    fn after_entry(&mut self, key: NodeId, value: NodeId) {
        let doc = self.doc.as_mut().expect("a node implies a document");
        let v = &doc.nodes[value.index()];
        if v.style != Style::Plain {
            return;
        }
        let Value::Str(k) = &doc.nodes[key.index()].value else {
            return;
        };
        if !yaml11::is_version_key(k) {
            return;
        }
        let raw = &self.text[v.span.range()];
        if let Some(kind) = yaml11::version_note(k, raw, &v.value) {
            // A scalar YAML 1.2 also reads differently is already noted; one note each.
            if let Some(existing) = doc.yaml11_notes.iter_mut().find(|n| n.node == value) {
                if matches!(existing.kind, NoteKind::Differs { .. }) {
                    return;
                }
            }
            doc.yaml11_notes.push(Note { node: value, kind });
        }
    }

    /// Pops the innermost collection, builds its node and attaches it. `end` is the
    /// closing event's end (None when closing because of an error).
    fn close_frame(&mut self, end: Option<u32>) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let start = frame.start.unwrap_or(frame.last_end);
        let end = match (frame.flow, end) {
            (true, Some(e)) => e,
            _ => frame.last_end,
        };
        let span = Span::new(start, end.max(start));
        let style = if frame.flow { Style::Flow } else { Style::Block };
        let value = match frame.kind {
            FrameKind::Seq(mut items) => {
                // Trees live until their file is checked, for every file of a run.
                items.shrink_to_fit();
                Value::Seq(items)
            }
            FrameKind::Map {
                entries,
                pending_key,
                merges,
            } => {
                let mut entries = entries;
                if let Some(key) = pending_key {
                    // Closed early (error): the key has no value yet.
                    let at = self.doc().nodes[key.index()].span.end;
                    let null = self.push_node(Node {
                        value: Value::Null,
                        span: Span::at(at),
                        style: Style::Plain,
                    });
                    entries.push(Entry {
                        key,
                        value: null,
                        merged: false,
                    });
                }
                self.check_keys(&entries);
                let mut all = self.merged_entries(&merges);
                all.extend(entries);
                all.shrink_to_fit();
                Value::Map(all)
            }
        };
        let node = self.push_node(Node { value, span, style });
        if frame.anchor > 0 {
            self.anchors.insert(frame.anchor, Anchor::Done(node));
        }
        self.attach(node);
    }

    /// PyYAML's `flatten_mapping`: the entries of each merged mapping, a list of mappings
    /// in reverse order so that earlier ones win; written keys are appended after them and
    /// so override.
    fn merged_entries(&mut self, merges: &[NodeId]) -> Vec<Entry> {
        let mut out = Vec::new();
        let budget = self.limits.max_alias_nodes;
        for &m in merges {
            let doc = self.doc.as_ref().expect("a node implies a document");
            let target = doc.resolve(m);
            let copies: usize = match &doc.nodes[target.index()].value {
                Value::Seq(items) => items.iter().map(|&i| doc.entries(i).len()).sum(),
                _ => doc.entries(target).len(),
            };
            self.merge_copies = self.merge_copies.saturating_add(copies as u64);
            if self.merge_overflow || self.merge_copies > budget {
                self.merge_overflow = true;
                break;
            }
            match &doc.nodes[target.index()].value {
                Value::Map(es) => out.extend(es.iter().map(|e| Entry { merged: true, ..*e })),
                Value::Seq(items) => {
                    let mut bad = None;
                    let mut subs = Vec::new();
                    for &item in items {
                        let t = doc.resolve(item);
                        match &doc.nodes[t.index()].value {
                            Value::Map(es) => subs.push(es.clone()),
                            _ => bad = bad.or(Some(doc.nodes[item.index()].span)),
                        }
                    }
                    if let Some(span) = bad {
                        self.diags.push(
                            Diagnostic::new(
                                "AML001",
                                span,
                                "expected a mapping for merging: every item of a `<<` list must be a mapping",
                            )
                            .with_help(
                                "List only aliases of mappings after `<<`, e.g. `<<: [*defaults, *gpu]`.",
                            ),
                        );
                    }
                    for es in subs.into_iter().rev() {
                        out.extend(es.into_iter().map(|e| Entry { merged: true, ..e }));
                    }
                }
                _ => {
                    let span = doc.nodes[m.index()].span;
                    self.diags.push(
                        Diagnostic::new("AML001", span, "expected a mapping or list of mappings for merging")
                            .with_help("The value of `<<` must be an alias of a mapping (`<<: *defaults`) or a list of them."),
                    );
                }
            }
        }
        out
    }

    /// Unhashable keys (AML001) and duplicate keys (AML002) among a mapping's own entries.
    fn check_keys(&mut self, entries: &[Entry]) {
        let doc = self.doc.as_ref().expect("a node implies a document");
        let mut seen_small: Vec<(KeyId, NodeId)> = Vec::new();
        let mut seen_large: HashMap<KeyId, NodeId> = HashMap::new();
        let large = entries.len() > 16;
        for e in entries {
            let key_node = &doc.nodes[e.key.index()];
            let id = match &doc.value(e.key) {
                Value::Str(s) | Value::Timestamp(s) => KeyId::Str(s),
                Value::Int(i) => KeyId::Int(*i),
                Value::Bool(b) => KeyId::Int(i64::from(*b)),
                Value::BigInt(s) => KeyId::Big(s),
                Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => KeyId::Int(*f as i64),
                Value::Float(f) => KeyId::Float(f.to_bits()),
                Value::Null => KeyId::Null,
                Value::Seq(_) | Value::Map(_) | Value::Alias(_) => {
                    let span = key_node.span;
                    let (start, end) = (span.start as usize, span.end as usize);
                    // `{{NAME}}`: the key is the inner `{NAME}`; widen to the whole placeholder.
                    let template = self.text[..start].ends_with('{') && self.text[end..].starts_with('}');
                    self.diags.push(if template {
                        let span = Span::new(span.start - 1, span.end + 1);
                        let text = &self.text[span.range()];
                        Diagnostic::new(
                            "AML001",
                            span,
                            format!("`{text}` looks like a template placeholder, but YAML reads it as a mapping used as a key, which the Azure ML CLI cannot load (\"found unhashable key\")"),
                        )
                        .with_help(TEMPLATE_HELP)
                    } else {
                        Diagnostic::new("AML001", key_node.span, "found unhashable key: a list or mapping cannot be a mapping key")
                            .with_help("Use a string key.")
                    });
                    continue;
                }
            };
            let first = if large {
                match seen_large.get(&id) {
                    Some(&first) => Some(first),
                    None => {
                        seen_large.insert(id, e.key);
                        None
                    }
                }
            } else {
                match seen_small.iter().find(|(k, _)| *k == id) {
                    Some(&(_, first)) => Some(first),
                    None => {
                        seen_small.push((id, e.key));
                        None
                    }
                }
            };
            if let Some(first) = first {
                let name = doc.key_string(e.key);
                self.diags.push(
                    Diagnostic::new(
                        "AML002",
                        key_node.span,
                        format!(
                            "duplicate key `{name}`: the Azure ML CLI silently keeps only this last value"
                        ),
                    )
                    .with_label(
                        doc.nodes[first.index()].span,
                        format!("`{name}` first defined here"),
                    )
                    .with_help("Remove one of the two entries, or merge them into one."),
                );
            }
        }
    }

    /// `<<` merge keys copied more entries than the alias limit allows: AML005 at `span`
    /// (where the parse stopped); the document is not checked further.
    fn alias_limit_exceeded(&mut self, span: Span) {
        self.diags.push(alias_limit_diagnostic(span, self.limits));
        if let Some(doc) = self.doc.as_mut() {
            doc.partial = true;
            doc.alias_overflow = true;
        }
    }

    /// Closes everything still open after an error or a limit and marks the document
    /// partial.
    fn abort(&mut self) {
        while !self.stack.is_empty() {
            self.close_frame(None);
        }
        if let Some(doc) = self.doc.as_mut() {
            doc.partial = true;
        }
    }

    fn finish_doc(&mut self) {
        if !self.stack.is_empty() {
            self.abort();
        }
        let Some(mut doc) = self.doc.take() else {
            return;
        };
        if let Some(root) = doc.root {
            let root_span = doc.nodes[root.index()].span;
            if doc.span.start > root_span.start {
                doc.span.start = root_span.start;
            }
            doc.span.end = root_span.end.max(doc.span.start);
        } else {
            doc.span.end = self.last_end.max(doc.span.start);
        }
        // PyYAML refuses to construct this document (AML001 inside it): the Azure ML CLI
        // never sees its content, so it is kept for classification but not validated.
        let (start, end) = (doc.span.start, doc.span.end);
        let inside = |d: &Diagnostic| d.code == "AML001" && d.span.start >= start && d.span.start <= end;
        let own = self.doc_diags.min(self.diags.len());
        if self.diags[..self.before_docs].iter().any(inside) || self.diags[own..].iter().any(inside) {
            doc.partial = true;
        }
        let reached = if doc.alias_overflow {
            None
        } else {
            doc.expansion_exceeds(self.limits.max_alias_nodes, self.limits.max_depth)
        };
        if let Some(reached) = reached {
            let alias = doc
                .nodes
                .iter()
                .find(|n| matches!(n.value, Value::Alias(_)))
                .map_or(doc.span, |n| n.span);
            self.diags.push(expansion_diagnostic(alias, self.limits, reached));
            doc.partial = true;
            doc.alias_overflow = true;
        }
        doc.nodes.shrink_to_fit();
        self.nodes_before += doc.nodes.len() as u64;
        self.docs.push(doc);
    }
}

fn display_tag(full: &str) -> String {
    match full.strip_prefix("tag:yaml.org,2002:") {
        Some(core) => format!("!!{core}"),
        None => full.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> (Vec<Document>, Vec<Diagnostic>) {
        let mut diags = Findings::new(usize::MAX);
        let docs = parse(text, 0, &Limits::default(), &mut diags);
        (docs, diags.into_parts().0)
    }

    fn codes(diags: &[Diagnostic]) -> Vec<&str> {
        diags.iter().map(|d| d.code).collect()
    }

    #[test]
    fn the_byte_scan_finds_the_first_refused_character_as_a_char_scan_does() {
        let naive = |t: &str| t.char_indices().find(|&(_, c)| !printable(c));
        // Every character on each side of each boundary of the refused ranges, at every
        // offset of a 64-byte block and across blocks.
        let probes: Vec<char> = [
            0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0x84, 0x85, 0x86,
            0x9f, 0xa0, 0xbf, 0xc0, 0xe9, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xefff, 0xf000, 0xfeff, 0xfffd,
            0xfffe, 0xffff, 0x10000, 0x1f600, 0x10ffff,
        ]
        .iter()
        .filter_map(|&u| char::from_u32(u))
        .collect();
        for &c in &probes {
            for &filler in &['a', 'é', '€', '😀'] {
                for pad in [0, 1, 2, 62, 63, 64, 65, 127, 128, 200] {
                    let text: String = std::iter::repeat_n(filler, pad)
                        .chain([c])
                        .chain(std::iter::repeat_n(filler, 70))
                        .collect();
                    assert_eq!(
                        first_unprintable(&text),
                        naive(&text),
                        "{c:?} after {pad} {filler:?}"
                    );
                }
            }
        }
        // Pairs of probes: the first refused one wins.
        for &a in &probes {
            for &b in &probes {
                let text = format!("key: {a}{b} value");
                assert_eq!(first_unprintable(&text), naive(&text), "{a:?}{b:?}");
            }
        }
        assert_eq!(first_unprintable(""), None);
    }

    #[test]
    fn spans_of_keys_and_values() {
        let text = "name: job\nresources:\n  instance_count: 2\n  tags: {a: \"é\"}\n";
        let (docs, diags) = load(text);
        assert!(diags.is_empty(), "{diags:?}");
        let doc = &docs[0];
        let p = super::super::Pointer::parse("/resources/instance_count");
        let key = doc.span_of(&p, super::super::Target::Key);
        let val = doc.span_of(&p, super::super::Target::Value);
        assert_eq!(&text[key.range()], "instance_count");
        assert_eq!(&text[val.range()], "2");
        let tags = doc.span_of(
            &super::super::Pointer::parse("/resources/tags/a"),
            super::super::Target::Value,
        );
        assert_eq!(&text[tags.range()], "\"é\"");
        let res = doc.span_of(
            &super::super::Pointer::parse("/resources"),
            super::super::Target::Value,
        );
        assert_eq!(&text[res.range()], "instance_count: 2\n  tags: {a: \"é\"}");
    }

    #[test]
    fn merge_keys_follow_pyyaml() {
        let text = "base: &b {x: 1, y: 1}\nother: &o {y: 2, z: 2}\nm:\n  <<: [*b, *o]\n  x: 3\n";
        let (docs, diags) = load(text);
        assert!(diags.is_empty(), "{diags:?}");
        let json = docs[0].to_json();
        assert_eq!(json["m"], serde_json::json!({"x": 3, "y": 1, "z": 2}));
    }

    #[test]
    fn lookups_in_large_mappings_keep_the_last_entry() {
        // Over 32 entries a mapping is looked up through its key index: the same answers
        // as the scan, merged entries and repeated keys included.
        let mut text = String::from("base: &b {k0: merged, k40: merged}\nm:\n  <<: *b\n");
        for i in 1..40 {
            text.push_str(&format!("  k{i}: {i}\n"));
        }
        text.push_str("  k1: last\n");
        let (docs, _) = load(&text);
        let doc = &docs[0];
        let m = doc.get(doc.root.unwrap(), "m").unwrap();
        let text_of = |key: &str| doc.get(m, key).map(|v| doc.node_to_json(v));
        assert_eq!(text_of("k1"), Some(serde_json::json!("last")));
        assert_eq!(text_of("k0"), Some(serde_json::json!("merged")));
        assert_eq!(text_of("k40"), Some(serde_json::json!("merged")));
        assert_eq!(text_of("k39"), Some(serde_json::json!(39)));
        assert_eq!(text_of("nope"), None);
        let written = doc.get_entry(m, "k1").unwrap();
        assert_eq!(&text[doc.node(written.key).span.range()], "k1");
        assert!(doc.node(written.key).span.start as usize > text.find("k39").unwrap());
    }

    #[test]
    fn duplicate_keys_point_at_the_second() {
        let text = "a: 1\nb: 2\na: 3\n";
        let (docs, diags) = load(text);
        assert_eq!(codes(&diags), ["AML002"]);
        assert_eq!(diags[0].span, Span::new(10, 11));
        assert_eq!(diags[0].labels[0].span, Span::new(0, 1));
        assert_eq!(docs[0].to_json()["a"], 3);
    }

    #[test]
    fn merged_keys_are_not_duplicates() {
        let (_, diags) = load("d: &d {a: 1}\ne:\n  <<: *d\n  a: 2\n");
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn billion_laughs_is_bounded() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for w in names.windows(2) {
            text.push_str(&format!(
                "{}: &{} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n",
                w[1],
                w[1],
                p = w[0]
            ));
        }
        let (docs, diags) = load(&text);
        assert_eq!(codes(&diags), ["AML005"]);
        assert!(docs[0].alias_overflow);
        assert_eq!(docs[0].to_json(), serde_json::Value::Null);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text: String = (0..500).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        let (_, diags) = load(&text);
        assert_eq!(codes(&diags), ["AML005"]);
        let flow = "[".repeat(10_000);
        let (_, diags) = load(&flow);
        assert_eq!(codes(&diags), ["AML005"]);
    }

    #[test]
    fn syntax_errors_keep_what_came_before() {
        let text = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: x\n\tbad: 1\n";
        let (docs, diags) = load(text);
        assert_eq!(codes(&diags), ["AML001"]);
        assert!(docs[0].partial);
        assert!(docs[0].top_str("$schema").is_some());
    }

    #[test]
    fn recursive_alias_is_reported() {
        let (_, diags) = load("a: &a [1, *a]\n");
        assert_eq!(codes(&diags), ["AML005"]);
    }

    #[test]
    fn unknown_tags_and_control_characters() {
        let (_, diags) = load("a: !custom x\nb: !!str 1\n");
        assert_eq!(codes(&diags), ["AML001"]);
        let (_, diags) = load("a: \u{1}x\n");
        assert_eq!(codes(&diags), ["AML001"]);
    }

    #[test]
    fn notes_for_yaml11_scalars() {
        let (docs, _) = load("a: on\nversion: 1.10\nb: 'on'\nc: 5\n");
        assert_eq!(docs[0].yaml11_notes.len(), 2);
    }

    #[test]
    fn non_ascii_spans_are_bytes() {
        let text = "d: 'ééé'\nk: v\n";
        let (docs, _) = load(text);
        let v = docs[0].span_of(&super::super::Pointer::parse("/k"), super::super::Target::Value);
        assert_eq!(&text[v.range()], "v");
    }

    #[test]
    fn multiple_documents() {
        let (docs, diags) = load("a: 1\n---\nb: 2\n");
        assert!(diags.is_empty());
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].to_json(), serde_json::json!({"b": 2}));
    }

    #[test]
    fn a_document_marker_ends_a_block_scalar_at_the_root() {
        // saphyr-parser before 0.3.4 read the `---` and the configuration after it as part
        // of the scalar, so a file that the CLI refuses was one string and went unchecked.
        let (docs, diags) = load("--- |\ntext at root\n---\nb: 2\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].to_json(), serde_json::json!("text at root\n"));
        assert_eq!(docs[1].to_json(), serde_json::json!({"b": 2}));
    }
}
