//! YAML text → [`Document`]s, read as PyYAML's `yaml.safe_load` reads it (the Azure ML
//! CLI's and SDK's reader).
//!
//! [`scanner`] and [`parser`] follow PyYAML's scanner and parser (the same tokens, events
//! and errors; see their module docs), and the [`Builder`] here plays PyYAML's composer
//! and `SafeConstructor`: anchors and aliases, merge keys, tags, YAML 1.1 scalars.
//! `tests/it/yaml_pyyaml_diff.rs` holds it to PyYAML's answers on some 13,000 inputs
//! (`docs/yaml.md`).
//!
//! The tree is built iteratively (no recursion, so nesting cannot overflow the stack) and
//! reports, with exact spans: syntax errors at PyYAML's place with PyYAML's words
//! (AML001), constructs `safe_load` rejects (unknown tags, unhashable keys, bad merge
//! values, repeated anchors, undefined aliases: AML001), duplicate keys (AML002), and
//! limits (AML005: nesting depth, recursive aliases, alias expansion).

pub mod parser;
pub mod scanner;

use std::borrow::Cow;
use std::collections::HashMap;

use parser::{CORE_TAG_PREFIX, Event, EventKind, Parser};
use scanner::{ScalarStyle, YamlError};

use super::yaml11::{self, Note, NoteKind, ScalarTag};
use super::{Document, Entry, Expansion, Node, NodeId, Style, Value};
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::limits::Limits;
use crate::source::Span;

/// Parses every document of a YAML stream. `base` is where the content starts in `text`
/// (3 after a UTF-8 byte-order mark).
pub fn parse(text: &str, base: u32, limits: &Limits, diags: &mut Findings) -> Vec<Document> {
    check_printable(text, base, diags);
    let printable = diags.len();
    let mut builder = Builder {
        text,
        limits,
        docs: Vec::new(),
        doc: None,
        stack: Vec::new(),
        items: Vec::new(),
        entries: Vec::new(),
        anchors: HashMap::new(),
        last_end: base,
        diags,
        before_docs: printable,
        doc_diags: printable,
        nodes_before: 0,
        expanded: (0, 0),
        merge_copies: 0,
        merge_overflow: false,
        marks: Vec::new(),
        merge_key: None,
        value_tag: None,
        unconstructed: Vec::new(),
    };
    let mut parser = Parser::new(text, base as usize);
    while let Some(next) = parser.next_event() {
        match next {
            Ok(event) => {
                if matches!(event.kind, EventKind::StreamEnd) {
                    break;
                }
                if !builder.event(event) {
                    builder.abort();
                    break;
                }
            }
            Err(err) => {
                let diag = syntax_error(text, &err);
                if builder.doc.is_some() {
                    let from = builder.doc_diags;
                    without_placeholder_keys_before(text, diag.span.start, builder.diags, from);
                }
                builder.diags.push(diag);
                builder.abort();
                break;
            }
        }
    }
    builder.finish_doc();
    builder.docs
}

/// A span covering the character at `offset` (empty at the end or on a line break).
fn char_span_at(text: &str, offset: u32) -> Span {
    match text.get(offset as usize..).and_then(|t| t.chars().next()) {
        Some(c) if c != '\n' && c != '\r' => Span::new(offset, offset + c.len_utf8() as u32),
        _ => Span::at(offset.min(text.len() as u32)),
    }
}

/// AML001 for PyYAML's scanner or parser error: at its problem, in its words, with what
/// was being read (its context) as a label where that began.
fn syntax_error(text: &str, err: &YamlError) -> Diagnostic {
    let at = err.problem_mark.pos;
    let span = char_span_at(text, at);
    let line_start = text[..at as usize].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at as usize..]
        .find('\n')
        .map_or(text.len(), |i| at as usize + i);
    let line = &text[line_start..line_end];
    let problem = &err.problem;
    let help = if line.contains("{{") {
        TEMPLATE_HELP
    } else if problem.contains("'\\t'") {
        "YAML indentation and separation must use spaces: the Azure ML CLI's YAML reader refuses a tab here. Replace the tab characters with spaces."
    } else if problem.contains("mapping values are not allowed") {
        "A `key: value` pair appears where none is allowed: check this line's indentation against the line above, or quote a value that contains `: `."
    } else if problem.contains("could not find expected ':'") {
        "The text that starts there is read as a mapping key, but no `: ` follows it on the same line: add the colon, quote the text, or check the indentation."
    } else if problem.contains("expected <block end>") {
        "Check the indentation of this line: every key of a mapping must start in the same column, and a value must be indented under its key."
    } else if problem.contains("found unexpected end of stream") {
        "A quoted string is not closed: add the closing quote."
    } else if problem.contains("document separator") {
        "A line that starts with `---` or `...` ends the document, even inside a quoted string: indent it, or escape it."
    } else if problem.contains("unknown escape character") || problem.contains("hexadecimal numbers") {
        "In a double-quoted string a backslash starts an escape (`\\n`, `\\\"`, `\\\\`): write `\\\\` for a backslash, or use single quotes."
    } else if err
        .context
        .as_deref()
        .is_some_and(|c| c.contains("anchor") || c.contains("alias"))
    {
        "The Azure ML CLI's YAML reader allows only ASCII letters, digits, `-` and `_` in anchor and alias names (`&name`, `*name`)."
    } else {
        "Fix the YAML syntax; the Azure ML CLI cannot read this file until then."
    };
    let mut diag =
        Diagnostic::new(codes::AML001, span, format!("YAML syntax error: {problem}")).with_help(help);
    if let (Some(context), Some(mark)) = (&err.context, err.context_mark) {
        if mark.pos != at {
            diag = diag.with_label(
                char_span_at(text, mark.pos),
                format!("{context} that starts here"),
            );
        }
    }
    diag
}

/// Drops the findings of `{{NAME}}` placeholders read as mapping keys
/// ([`Builder::check_keys`]) on the line of a syntax error at `at`, before it, inside the
/// document the error breaks (its findings are those from the `from`th on): in
/// `image: {{ACR_NAME}}.azurecr.io/x:1` the text after the placeholder is the syntax
/// error, the one problem PyYAML reports there (it composes the whole document before it
/// constructs a key), and that finding's help already tells of the placeholder. One
/// elsewhere in the file (`name: {{NAME}}` alone on its line) stays: it is the CLI's
/// error once the syntax error is fixed; so does a document ended before the error
/// (`{{x}}1`: PyYAML constructs the first document before it reads the next).
fn without_placeholder_keys_before(text: &str, at: u32, diags: &mut Findings, from: usize) {
    let line_start = text
        .get(..at as usize)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |i| i as u32 + 1);
    let kept = diags.kept_mut();
    let tail = kept.split_off(from.min(kept.len()));
    kept.extend(tail.into_iter().filter(|d| {
        !(d.code == codes::AML001.code
            && d.help.as_deref() == Some(TEMPLATE_HELP)
            && (line_start..at).contains(&d.span.start))
    }));
}

const TEMPLATE_HELP: &str = "This line holds a `{{...}}` template placeholder, which YAML reads as nested flow mappings: render the template before checking the file, or quote the placeholder (`\"{{NAME}}\"`).";

/// PyYAML's reader rejects control characters before parsing anything
/// (`yaml/reader.py`, `NON_PRINTABLE`).
fn check_printable(text: &str, base: u32, diags: &mut Findings) {
    if let Some((i, c)) = first_unprintable(&text[base as usize..]) {
        let start = base + i as u32;
        diags.push(
            Diagnostic::new(
                codes::AML001,
                Span::new(start, start + c.len_utf8() as u32),
                format!(
                    "unacceptable character #x{:04x}: special characters are not allowed (the Azure ML CLI's YAML reader refuses control characters)",
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// On a collection still open (an alias to it would make a recursive structure).
    Open,
    Done(NodeId),
}

/// An open collection's children are kept on `Builder::items` or `Builder::entries`
/// (from `from` on), the innermost collection's last: each collection's are copied out
/// once, at their size, when it closes.
enum FrameKind {
    Seq {
        from: usize,
    },
    Map {
        from: usize,
        pending_key: Option<NodeId>,
        /// The pending key is a merge key (a `<<` PyYAML resolves to the merge tag).
        pending_merge: bool,
        /// Values of `<<` keys, applied when the mapping ends.
        merges: Vec<NodeId>,
    },
}

struct Frame<'a> {
    kind: FrameKind,
    flow: bool,
    /// A flow collection written with its bracket (not the one-pair mapping of
    /// `[a: b]`): its span runs from bracket to bracket.
    bracketed: bool,
    /// Flow: the opening bracket. Otherwise the first child's start (set on first
    /// attach).
    start: Option<u32>,
    last_end: u32,
    /// Where PyYAML marks the collection: its anchor or tag, else its first indicator.
    mark: u32,
    anchor: Option<&'a str>,
    /// `!!omap` or `!!pairs`: every item must be a one-pair mapping.
    pairs: Option<(&'static str, Span)>,
    /// What `SafeConstructor` would refuse about this collection's tag.
    /// (Boxed: it is rare, and a frame is moved on and off the stack.)
    tag_problem: Option<Box<Diagnostic>>,
}

struct Builder<'a, 'd> {
    text: &'a str,
    limits: &'a Limits,
    docs: Vec<Document>,
    doc: Option<Document>,
    stack: Vec<Frame<'a>>,
    /// The items of the open sequences and the entries of the open mappings (`FrameKind`).
    items: Vec<NodeId>,
    entries: Vec<Entry>,
    /// PyYAML's composer's anchors, for the document being read, with where each is.
    anchors: HashMap<&'a str, (Anchor, Span)>,
    last_end: u32,
    diags: &'d mut Findings,
    /// How many findings were made before any document (the printable-character check),
    /// and how many before the current document started: a document's own findings are
    /// the ones after, so checking for them costs what they are, not every finding.
    before_docs: usize,
    doc_diags: usize,
    /// Nodes of the file's finished documents (the file's trees are bounded together).
    nodes_before: u64,
    /// Nodes and bytes of keys and strings of the file's finished documents once expanded:
    /// the expansion limits bound a file, not each of its documents (10,000 documents
    /// each just under the limit would multiply it).
    expanded: (u64, u64),
    /// Entries copied into mappings by `<<` merge keys in the file's documents: bounded by
    /// `max_alias_nodes`, since each `<<: [*a, *a]` level may double them, and the copies
    /// live in the trees as long as the file's documents.
    merge_copies: u64,
    /// The merge copies went over the limit.
    merge_overflow: bool,
    /// Where PyYAML marks each node of the document being read (its anchor or tag, else
    /// its first character; a block collection's first indicator): constructor errors are
    /// reported there, as PyYAML reports them.
    marks: Vec<u32>,
    /// The last scalar PyYAML resolves to the merge tag (`<<`): a merge key if it is
    /// attached as a key.
    merge_key: Option<(NodeId, Span, bool)>,
    /// The last scalar PyYAML resolves to the `value` tag (`=`): refused unless it is
    /// attached as a key.
    value_tag: Option<(NodeId, Span, bool)>,
    /// Collections `SafeConstructor` would refuse (their tag), reported when the document
    /// ends if PyYAML constructs them: it does not construct a mapping or list used only
    /// as the value of a merge key, whose pairs it copies.
    unconstructed: Vec<(NodeId, Diagnostic)>,
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
            codes::AML005,
            span,
            format!(
                "aliases expand this document to more than {} nodes (the node limit; a \"billion laughs\" pattern)",
                limits.max_alias_nodes
            ),
        )
        .with_help(format!("Each alias repeats its anchor's whole content; the Azure ML SDK would expand them all. Write the content out, or reduce the nesting of aliases. {NOT_CHECKED}")),
        Expansion::Nodes { aliases: false } => Diagnostic::new(
            codes::AML005,
            span,
            format!(
                "this document has more than {} nodes (the node limit: keys, values and list items counted one by one)",
                limits.max_alias_nodes
            ),
        )
        .with_help(format!("No Azure ML configuration is this large; split the data out of the configuration (a data asset or a file it references). {NOT_CHECKED}")),
        // Without aliases a document's values are never longer than its text, which the
        // bound applied is at least: only aliases (and merge keys through them) reach it.
        Expansion::Bytes { .. } => Diagnostic::new(
            codes::AML005,
            span,
            format!(
                "aliases expand this document to more than {} of keys and strings (the alias expansion limit, {} bytes: each alias or merge key repeats its anchor's whole text)",
                crate::fsio::human_size(limits.max_alias_bytes),
                limits.max_alias_bytes
            ),
        )
        .with_help(format!("The Azure ML SDK would build every copy; write the content once, or reduce the aliases of large values. {NOT_CHECKED}")),
        Expansion::Depth => Diagnostic::new(
            codes::AML005,
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
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum KeyId<'k> {
    Str(&'k str),
    Int(i64),
    Big(&'k str),
    Float(u64),
    Null,
}

/// What `SafeConstructor` builds for a collection with an explicit tag, or why it
/// cannot (`None`: fine).
fn collection_tag_problem(tag: &str, is_seq: bool) -> Option<String> {
    let core = tag.strip_prefix(CORE_TAG_PREFIX);
    let found = if is_seq { "sequence" } else { "mapping" };
    match (core, is_seq) {
        _ if tag == "!" => None,
        (Some("seq" | "omap" | "pairs"), true) | (Some("map" | "set"), false) => None,
        (Some("seq"), false) => Some(format!("expected a sequence node, but found {found}")),
        (Some("omap" | "pairs"), false) => Some(format!("expected a sequence, but found {found}")),
        (Some("map" | "set"), true) => Some(format!("expected a mapping node, but found {found}")),
        (Some("str" | "int" | "float" | "bool" | "null" | "binary" | "timestamp"), _) => {
            Some(format!("expected a scalar node, but found {found}"))
        }
        _ => Some(unknown_tag_message(tag)),
    }
}

/// What an explicit tag makes of a collection (`is_seq`: a sequence) whose properties
/// span `span`: a list of pairs (`!!omap`, `!!pairs`), or what `SafeConstructor` would
/// refuse about it.
fn collection_tag(tag: &str, is_seq: bool, span: Span) -> (Option<(&'static str, Span)>, Option<Diagnostic>) {
    if let Some(problem) = collection_tag_problem(tag, is_seq) {
        let refused = Diagnostic::new(codes::AML001, span, problem)
            .with_help("Remove the tag; write the value as plain YAML.");
        return (None, Some(refused));
    }
    let pairs = match tag.strip_prefix(CORE_TAG_PREFIX) {
        Some("omap") => Some(("!!omap", span)),
        Some("pairs") => Some(("!!pairs", span)),
        _ => None,
    };
    (pairs, None)
}

/// PyYAML's words for a tag `safe_load` has no constructor for (the full tag, as PyYAML
/// prints it), and why.
fn unknown_tag_message(full: &str) -> String {
    format!(
        "could not determine a constructor for the tag '{full}': the Azure ML CLI reads YAML with `safe_load`, which only knows the standard tags"
    )
}

impl<'a> Builder<'a, '_> {
    fn char_span_at(&self, offset: u32) -> Span {
        char_span_at(self.text, offset)
    }

    fn doc(&mut self) -> &mut Document {
        self.doc.get_or_insert_with(Document::default)
    }

    /// The span of an anchor (`&name`) from its name, a slice of the text.
    fn anchor_span(&self, name: &str) -> Span {
        let at = (name.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize) as u32;
        Span::new(at.saturating_sub(1), at + name.len() as u32)
    }

    /// Records an anchor; PyYAML's composer refuses a second anchor of the same name in
    /// a document.
    fn define_anchor(&mut self, name: &'a str, anchor: Anchor) {
        let span = self.anchor_span(name);
        if let Some(&(_, first)) = self.anchors.get(name) {
            if first != span {
                self.diags.push(
                    Diagnostic::new(
                        codes::AML001,
                        span,
                        format!("found duplicate anchor '{name}' (second occurrence): the Azure ML CLI's YAML reader refuses to define an anchor twice in a document"),
                    )
                    .with_label(first, "first occurrence")
                    .with_help("Rename one of the anchors (and the aliases meant for it)."),
                );
                self.doc().partial = true;
            }
        }
        self.anchors.insert(name, (anchor, span));
    }

    /// Handles one event; `false` stops parsing (a limit was hit).
    fn event(&mut self, event: Event<'a>) -> bool {
        let (start, end) = (event.start.pos, event.end.pos);
        match event.kind {
            EventKind::StreamStart | EventKind::StreamEnd => true,
            EventKind::DocumentStart { .. } => self.start_document(start, end),
            EventKind::DocumentEnd => {
                self.finish_doc();
                true
            }
            EventKind::Scalar { .. }
            | EventKind::SequenceStart { .. }
            | EventKind::MappingStart { .. }
            | EventKind::Alias(..)
                if self.nodes_before + self.doc.as_ref().map_or(0, |d| d.nodes.len() as u64)
                    >= self.limits.max_nodes =>
            {
                self.node_limit_reached(Span::new(start, end));
                false
            }
            EventKind::Scalar {
                anchor,
                tag,
                value,
                style,
                start: value_start,
                end: value_end,
            } => {
                let span = scalar_span(self.text, value_start, value_end, style);
                let node = self.scalar(value, style, tag.as_deref(), span, start);
                if let Some(name) = anchor {
                    self.define_anchor(name, Anchor::Done(node));
                }
                self.attach(node);
                true
            }
            EventKind::SequenceStart { anchor, tag, flow } => {
                self.open_collection(anchor, tag.as_deref(), flow, true, start, end)
            }
            EventKind::MappingStart { anchor, tag, flow } => {
                self.open_collection(anchor, tag.as_deref(), flow, false, start, end)
            }
            EventKind::SequenceEnd | EventKind::MappingEnd => {
                self.close_frame(Some(end));
                if self.merge_overflow {
                    self.alias_limit_exceeded(self.char_span_at(end.saturating_sub(1)));
                    return false;
                }
                true
            }
            EventKind::Alias(name) => {
                let node = self.alias(name, Span::new(start, end));
                self.attach(node);
                true
            }
        }
    }

    /// A document starts; `false` when the file already holds as many as the limit allows.
    fn start_document(&mut self, start: u32, end: u32) -> bool {
        self.finish_doc();
        if self.docs.len() >= self.limits.max_documents {
            // Each document costs a tree of its own, however small.
            self.diags.push(
                Diagnostic::new(
                    codes::AML005,
                    Span::new(start, end.max(start)),
                    format!(
                        "this file has more than {} YAML documents (the document limit of a file)",
                        self.limits.max_documents
                    ),
                )
                .with_help("An Azure ML configuration file holds one document; split this file. The rest of it was not read."),
            );
            return false;
        }
        self.doc = Some(Document {
            span: Span::at(start),
            ..Document::default()
        });
        self.anchors.clear();
        self.doc_diags = self.diags.len();
        self.merge_overflow = false;
        // Node ids start again in each document: a marker left from the last one
        // would name a node of this one.
        self.merge_key = None;
        self.value_tag = None;
        self.marks.clear();
        true
    }

    /// The file's trees are as large as the limit allows: they are not built further, so
    /// memory stays bounded by the limit rather than by the file.
    fn node_limit_reached(&mut self, span: Span) {
        self.diags.push(super::too_many_nodes(span, self.limits));
        if let Some(doc) = self.doc.as_mut() {
            doc.alias_overflow = true;
        }
    }

    /// A sequence (`is_seq`) or mapping starts; `false` when it nests deeper than the
    /// limit.
    fn open_collection(
        &mut self,
        anchor: Option<&'a str>,
        tag: Option<&str>,
        flow: bool,
        is_seq: bool,
        start: u32,
        end: u32,
    ) -> bool {
        if self.stack.len() >= self.limits.max_depth {
            let at = self.char_span_at(end.saturating_sub(1).max(start));
            self.diags.push(
                Diagnostic::new(
                    codes::AML005,
                    at,
                    format!("nesting deeper than {} levels", self.limits.max_depth),
                )
                .with_help("Azure ML configurations are a few levels deep; flatten this structure. The rest of the file was not checked."),
            );
            return false;
        }
        let bracketed = flow && end > start && matches!(self.text.as_bytes()[end as usize - 1], b'[' | b'{');
        let (pairs, tag_problem) = match tag {
            Some(tag) => collection_tag(tag, is_seq, Span::new(start, end.max(start))),
            None => (None, None),
        };
        let kind = if is_seq {
            FrameKind::Seq {
                from: self.items.len(),
            }
        } else {
            FrameKind::Map {
                from: self.entries.len(),
                pending_key: None,
                pending_merge: false,
                merges: Vec::new(),
            }
        };
        if let Some(name) = anchor {
            self.define_anchor(name, Anchor::Open);
        }
        self.stack.push(Frame {
            kind,
            flow,
            bracketed,
            start: bracketed.then(|| end - 1),
            last_end: end,
            mark: start,
            anchor,
            pairs,
            tag_problem: tag_problem.map(Box::new),
        });
        true
    }

    /// The node an alias stands for: its anchor's node, or a null when there is none yet
    /// (AML001) or the anchor's collection is still open (a recursive alias, AML005).
    fn alias(&mut self, name: &str, span: Span) -> NodeId {
        let found = self.anchors.get(name).map(|&(a, _)| a);
        if let Some(Anchor::Done(target)) = found {
            return self.push_node(Node {
                value: Value::Alias(target),
                span,
                style: Style::Plain,
            });
        }
        if found.is_some() {
            self.diags.push(
                Diagnostic::new(
                    codes::AML005,
                    span,
                    format!("recursive alias `{}`: it refers to a node that contains it", &self.text[span.range()]),
                )
                .with_help("The Azure ML SDK cannot validate a self-containing structure; replace the alias with the content it should repeat."),
            );
        } else {
            self.diags.push(
                Diagnostic::new(codes::AML001, span, format!("found undefined alias '{name}'"))
                    .with_help("Define the anchor (`&name`) before the alias (`*name`) that uses it, in the same YAML document."),
            );
        }
        self.doc().partial = true;
        self.push_node(Node {
            value: Value::Null,
            span,
            style: Style::Plain,
        })
    }

    /// A value `SafeConstructor` cannot build: AML001, and the document is not checked.
    fn constructor_error(&mut self, span: Span, message: String, help: &str) {
        self.diags
            .push(Diagnostic::new(codes::AML001, span, message).with_help(help));
        self.doc().partial = true;
    }

    fn push_node(&mut self, node: Node) -> NodeId {
        let mark = node.span.start;
        let doc = self.doc();
        let id = NodeId(doc.nodes.len() as u32);
        doc.nodes.push(node);
        self.marks.resize(id.index(), mark);
        self.marks.push(mark);
        id
    }

    /// Where PyYAML marks the node `id` (for an alias: its anchor's node).
    fn mark_of(&self, id: NodeId) -> u32 {
        let doc = self.doc.as_ref().expect("a node implies a document");
        let target = doc.resolve(id);
        self.marks
            .get(target.index())
            .copied()
            .unwrap_or(doc.nodes[target.index()].span.start)
    }

    /// A span from where PyYAML marks the node `id` to the end of its text.
    fn marked_span(&self, id: NodeId) -> Span {
        let doc = self.doc.as_ref().expect("a node implies a document");
        let end = doc.nodes[doc.resolve(id).index()].span.end;
        let mark = self.mark_of(id);
        Span::new(mark, end.max(mark))
    }

    /// A scalar node. `start` is where PyYAML marks the node (its anchor or tag, else its
    /// text): constructor errors are reported from there.
    fn scalar(
        &mut self,
        value: Cow<'_, str>,
        style: ScalarStyle,
        tag: Option<&str>,
        span: Span,
        start: u32,
    ) -> NodeId {
        let node_style = match style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted => Style::SingleQuoted,
            ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
            ScalarStyle::Literal => Style::Literal,
            ScalarStyle::Folded => Style::Folded,
        };
        let marked = Span::new(start.min(span.start), span.end);
        // PyYAML resolves a plain scalar without a tag, and any scalar with the
        // non-specific tag `!`, by its implicit resolvers (YAML 1.1 types).
        let implicit = (tag.is_none() && style == ScalarStyle::Plain) || tag == Some("!");
        let scalar_tag = match tag {
            _ if implicit => Some(yaml11::resolve(&value)),
            None => Some(ScalarTag::Str),
            Some(full) => {
                let known = full.strip_prefix(CORE_TAG_PREFIX).and_then(ScalarTag::core);
                if known.is_none() {
                    self.unknown_scalar_tag(&value, full, marked);
                }
                known
            }
        };
        let mut note = None;
        let (mut merge, mut value_tag) = (false, false);
        let resolved = match scalar_tag {
            // A merge key and a value key are only special as keys; `attach` decides.
            Some(ScalarTag::Merge) => {
                merge = true;
                Value::Str(value.as_ref().into())
            }
            Some(ScalarTag::Value) => {
                value_tag = true;
                Value::Str(value.as_ref().into())
            }
            Some(t) => match yaml11::construct(t, &value) {
                Ok(v) => {
                    if implicit && node_style == Style::Plain {
                        note = yaml11::compare(&value, &v);
                    }
                    v
                }
                Err(refusal) => {
                    let shown = yaml11::quote_short(&value);
                    let (message, help) = if implicit {
                        (
                            format!(
                                "{shown} is {} to the Azure ML CLI's YAML reader (PyYAML, YAML 1.1), which cannot build it: {}",
                                t.what(),
                                refusal.why
                            ),
                            "Quote it if it is text, or correct the value.",
                        )
                    } else {
                        (
                            format!("{shown} cannot be read as {}: {}", t.shorthand(), refusal.why),
                            "Fix the value or remove the tag.",
                        )
                    };
                    self.constructor_error(marked, message, help);
                    Value::Str(value.as_ref().into())
                }
            },
            None => Value::Str(value.as_ref().into()),
        };
        let id = self.push_node(Node {
            value: resolved,
            span,
            style: node_style,
        });
        self.marks[id.index()] = marked.start;
        if let Some(kind) = note {
            self.doc().yaml11_notes.push(Note { node: id, kind });
        }
        if merge {
            self.merge_key = Some((id, marked, implicit));
        }
        if value_tag {
            self.value_tag = Some((id, marked, implicit));
        }
        id
    }

    /// A scalar with a tag `SafeConstructor` has no scalar constructor for.
    fn unknown_scalar_tag(&mut self, value: &str, full: &str, span: Span) {
        let core = full.strip_prefix(CORE_TAG_PREFIX);
        if let Some(kind @ ("seq" | "map" | "set" | "omap" | "pairs")) = core {
            let kind = match kind {
                "seq" => "sequence node",
                "omap" | "pairs" => "sequence",
                _ => "mapping node",
            };
            self.constructor_error(
                span,
                format!(
                    "expected a {kind}, but found scalar: {} cannot be read as {}",
                    yaml11::quote_short(value),
                    display_tag(full)
                ),
                "Fix the value or remove the tag.",
            );
        } else {
            self.constructor_error(
                span,
                unknown_tag_message(full),
                "Remove the tag; write the value as plain YAML.",
            );
        }
    }

    /// Adds a finished node to the innermost open collection (or makes it the root).
    fn attach(&mut self, node: NodeId) {
        let node_span = self.doc().nodes[node.index()].span;
        self.last_end = self.last_end.max(node_span.end);
        let role_is_key = matches!(
            self.stack.last().map(|f| &f.kind),
            Some(FrameKind::Map {
                pending_key: None,
                ..
            })
        );
        // The value of a merge key is not constructed: `flatten_mapping` copies its pairs
        // (or says it cannot).
        let merge_value = matches!(
            self.stack.last().map(|f| &f.kind),
            Some(FrameKind::Map {
                pending_key: Some(_),
                pending_merge: true,
                ..
            })
        );
        for (marker, word, tag) in [
            (self.value_tag.filter(|m| m.0 == node), "=", "value"),
            (self.merge_key.filter(|m| m.0 == node), "<<", "merge"),
        ] {
            let Some((_, span, implicit)) = marker else {
                continue;
            };
            if role_is_key || merge_value {
                continue;
            }
            // `=` and `<<` are only special as mapping keys (PyYAML's `flatten_mapping`);
            // anywhere else `safe_load` has no constructor for their tags.
            let (message, help) = if implicit {
                (
                    format!(
                        "a plain `{word}` cannot be read by the Azure ML CLI: PyYAML resolves it to the YAML 1.1 `{tag}` type, which only a mapping key may have (could not determine a constructor for the tag 'tag:yaml.org,2002:{tag}')"
                    ),
                    format!("Quote it: `'{word}'`."),
                )
            } else {
                (
                    format!(
                        "the tag !!{tag} is only allowed on a mapping key: the Azure ML CLI's YAML reader could not determine a constructor for the tag 'tag:yaml.org,2002:{tag}'"
                    ),
                    "Remove the tag.".to_string(),
                )
            };
            self.constructor_error(span, message, &help);
        }
        let is_merge_key = self.merge_key.is_some_and(|m| m.0 == node);
        let Some(frame) = self.stack.last_mut() else {
            self.doc().root = Some(node);
            return;
        };
        if frame.start.is_none() {
            frame.start = Some(node_span.start);
        }
        frame.last_end = frame.last_end.max(node_span.end);
        match &mut frame.kind {
            FrameKind::Seq { .. } => self.items.push(node),
            FrameKind::Map {
                pending_key: pending @ None,
                pending_merge,
                ..
            } => {
                *pending = Some(node);
                *pending_merge = is_merge_key;
            }
            FrameKind::Map {
                pending_key,
                pending_merge,
                merges,
                ..
            } => {
                let key = pending_key.take().unwrap_or(node);
                let entry = Entry {
                    key,
                    value: node,
                    merged: false,
                };
                let is_merge = std::mem::take(pending_merge);
                if is_merge {
                    merges.push(node);
                } else {
                    self.entries.push(entry);
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
        let end = match (frame.bracketed, end) {
            (true, Some(e)) => e,
            _ => frame.last_end,
        };
        let span = Span::new(start, end.max(start));
        let style = if frame.flow { Style::Flow } else { Style::Block };
        let mut tag_problem = frame.tag_problem.map(|d| *d);
        let value = match frame.kind {
            FrameKind::Seq { from } => {
                // Trees live until their file is checked, for every file of a run: a
                // collection is copied out at its size.
                let items = self.items[from..].to_vec();
                self.items.truncate(from);
                if let Some((tag, tag_span)) = frame.pairs {
                    tag_problem = tag_problem.or_else(|| self.check_pairs(tag, tag_span, &items));
                }
                Value::Seq(items)
            }
            FrameKind::Map {
                from,
                pending_key,
                merges,
                ..
            } => {
                if let Some(key) = pending_key {
                    // Closed early (error): the key has no value yet.
                    let at = self.doc().nodes[key.index()].span.end;
                    let null = self.push_node(Node {
                        value: Value::Null,
                        span: Span::at(at),
                        style: Style::Plain,
                    });
                    self.entries.push(Entry {
                        key,
                        value: null,
                        merged: false,
                    });
                }
                let entries = self.entries[from..].to_vec();
                self.entries.truncate(from);
                self.check_keys(&entries);
                if merges.is_empty() {
                    Value::Map(entries)
                } else {
                    let mut all = self.merged_entries(&merges);
                    all.extend(entries);
                    all.shrink_to_fit();
                    Value::Map(all)
                }
            }
        };
        let node = self.push_node(Node { value, span, style });
        self.marks[node.index()] = frame.mark.min(span.start);
        if let Some(diag) = tag_problem {
            self.unconstructed.push((node, diag));
        }
        if let Some(name) = frame.anchor {
            if let Some(entry) = self.anchors.get_mut(name) {
                entry.0 = Anchor::Done(node);
            }
        }
        self.attach(node);
    }

    /// `!!omap` and `!!pairs`: `SafeConstructor` wants a list of one-pair mappings.
    fn check_pairs(&self, tag: &str, tag_span: Span, items: &[NodeId]) -> Option<Diagnostic> {
        let doc = self.doc.as_ref().expect("a node implies a document");
        let bad = items.iter().find_map(|&item| match doc.value(item) {
            Value::Map(entries) if entries.len() == 1 => None,
            Value::Map(entries) => Some((
                item,
                format!(
                    "expected a single mapping item, but found {} items",
                    entries.len()
                ),
            )),
            other => Some((
                item,
                format!("expected a mapping of length 1, but found {}", node_kind(other)),
            )),
        });
        let (item, problem) = bad?;
        let span = self.marked_span(item);
        Some(
            Diagnostic::new(
                codes::AML001,
                span,
                format!("{problem}: every item of a {tag} list must be a one-pair mapping"),
            )
            .with_label(tag_span, tag.to_string())
            .with_help("Write each item as `- key: value`, or remove the tag."),
        )
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
                            other => bad = bad.or(Some((item, node_kind(other)))),
                        }
                    }
                    if let Some((item, kind)) = bad {
                        let diag = self.merge_diagnostic(
                            item,
                            format!("expected a mapping for merging, but found {kind}: every item of a `<<` list must be a mapping"),
                            "List only aliases of mappings after `<<`, e.g. `<<: [*defaults, *gpu]`.",
                        );
                        self.diags.push(diag);
                    }
                    for es in subs.into_iter().rev() {
                        out.extend(es.into_iter().map(|e| Entry { merged: true, ..e }));
                    }
                }
                other => {
                    let diag = self.merge_diagnostic(
                        m,
                        format!("expected a mapping or list of mappings for merging, but found {}", node_kind(other)),
                        "The value of `<<` must be an alias of a mapping (`<<: *defaults`) or a list of them.",
                    );
                    self.diags.push(diag);
                }
            }
        }
        out
    }

    /// AML001 for a value `flatten_mapping` cannot merge, at PyYAML's mark (for an alias,
    /// its anchor's node), with the alias as a label.
    fn merge_diagnostic(&self, node: NodeId, message: String, help: &str) -> Diagnostic {
        let doc = self.doc.as_ref().expect("a node implies a document");
        let written = doc.nodes[node.index()].span;
        let span = self.marked_span(node);
        let diag = Diagnostic::new(codes::AML001, span, message).with_help(help);
        if written.start == span.start {
            diag
        } else {
            diag.with_label(written, "merged here")
        }
    }

    /// Unhashable keys (AML001) and duplicate keys (AML002) among a mapping's own entries.
    fn check_keys(&mut self, entries: &[Entry]) {
        let doc = self.doc.as_ref().expect("a node implies a document");
        // Up to 16 keys are compared one by one, on the stack; more through a hash map.
        const SMALL: usize = 16;
        let mut seen_small = [(KeyId::Null, NodeId(0)); SMALL];
        let mut small = 0;
        let mut seen_large: HashMap<KeyId, NodeId> = HashMap::new();
        let large = entries.len() > SMALL;
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
                    // At PyYAML's mark: the key node's start (for an alias, its anchor's).
                    let marked = self.marked_span(e.key);
                    let span = key_node.span;
                    let (start, end) = (span.start as usize, span.end as usize);
                    // `{{NAME}}`: the key is the inner `{NAME}`, where PyYAML marks it; widen
                    // to the whole placeholder, one character before.
                    let template = self.text[..start].ends_with('{') && self.text[end..].starts_with('}');
                    self.diags.push(if template {
                        let whole = Span::new(span.start - 1, span.end + 1);
                        let text = &self.text[whole.range()];
                        Diagnostic::new(
                            codes::AML001,
                            whole,
                            format!("`{text}` looks like a template placeholder, but YAML reads it as a mapping used as a key, which the Azure ML CLI cannot load (\"found unhashable key\")"),
                        )
                        .with_help(TEMPLATE_HELP)
                    } else {
                        Diagnostic::new(codes::AML001, marked, "found unhashable key: a list or mapping cannot be a mapping key")
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
                match seen_small[..small].iter().find(|(k, _)| *k == id) {
                    Some(&(_, first)) => Some(first),
                    None => {
                        seen_small[small] = (id, e.key);
                        small += 1;
                        None
                    }
                }
            };
            if let Some(first) = first {
                let name = doc.key_string(e.key);
                self.diags.push(
                    Diagnostic::new(
                        codes::AML002,
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
        if !self.unconstructed.is_empty() {
            let constructed = constructed_nodes(&doc);
            for (node, diag) in std::mem::take(&mut self.unconstructed) {
                if constructed[node.index()] {
                    self.diags.push(diag);
                    doc.partial = true;
                }
            }
        }
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
        let inside =
            |d: &Diagnostic| d.code == codes::AML001.code && d.span.start >= start && d.span.start <= end;
        let own = self.doc_diags.min(self.diags.len());
        if self.diags[..self.before_docs].iter().any(inside) || self.diags[own..].iter().any(inside) {
            doc.partial = true;
        }
        if !doc.alias_overflow {
            // Documents' own values are never longer than their text, nor their nodes more
            // than the file's node limit: only aliases and merge keys can reach bounds that
            // are at least the file's.
            let (nodes, bytes) = self.expanded;
            let max_nodes = self.limits.max_alias_nodes.max(self.limits.max_nodes);
            let max_bytes = self.limits.max_alias_bytes.max(self.text.len() as u64);
            match doc.expansion(
                max_nodes.saturating_sub(nodes),
                max_bytes.saturating_sub(bytes),
                self.limits.max_depth,
            ) {
                Ok((n, b)) => self.expanded = (nodes + n, bytes + b),
                Err(reached) => {
                    let alias = doc
                        .nodes
                        .iter()
                        .find(|n| matches!(n.value, Value::Alias(_)))
                        .map_or(doc.span, |n| n.span);
                    let mut diag = expansion_diagnostic(alias, self.limits, reached);
                    if (nodes, bytes) != (0, 0) && reached != Expansion::Depth {
                        diag.message.push_str(", counting the file's documents before it");
                    }
                    self.diags.push(diag);
                    doc.partial = true;
                    doc.alias_overflow = true;
                }
            }
        }
        doc.nodes.shrink_to_fit();
        self.nodes_before += doc.nodes.len() as u64;
        self.docs.push(doc);
    }
}

/// The nodes PyYAML's constructor builds: those reachable from the root through items,
/// keys, values (merged pairs included) and aliases, but not the mappings and lists only
/// used as the value of a merge key (`flatten_mapping` copies their pairs).
fn constructed_nodes(doc: &Document) -> Vec<bool> {
    let mut seen = vec![false; doc.nodes.len()];
    let mut todo: Vec<NodeId> = doc.root.into_iter().collect();
    while let Some(id) = todo.pop() {
        if std::mem::replace(&mut seen[id.index()], true) {
            continue;
        }
        match &doc.nodes[id.index()].value {
            Value::Seq(items) => todo.extend(items),
            Value::Map(entries) => todo.extend(entries.iter().flat_map(|e| [e.key, e.value])),
            Value::Alias(target) => todo.push(*target),
            _ => {}
        }
    }
    seen
}

/// A scalar's span: its token's, without the line breaks that end a block scalar.
fn scalar_span(text: &str, start: u32, end: u32, style: ScalarStyle) -> Span {
    let mut end = end.max(start);
    if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
        let bytes = text.as_bytes();
        while end > start && bytes[end as usize - 1].is_ascii_whitespace() {
            end -= 1;
        }
    }
    Span::new(start, end)
}

/// PyYAML's name of a node's kind (`node.id`), as its messages say it.
fn node_kind(value: &Value) -> &'static str {
    match value {
        Value::Seq(_) => "sequence",
        Value::Map(_) => "mapping",
        _ => "scalar",
    }
}

fn display_tag(full: &str) -> String {
    match full.strip_prefix("tag:yaml.org,2002:") {
        Some(core) => format!("!!{core}"),
        None => full.to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
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
        let p = crate::source::Pointer::parse("/resources/instance_count");
        let key = doc.span_of(&p, super::super::Target::Key);
        let val = doc.span_of(&p, super::super::Target::Value);
        assert_eq!(&text[key.range()], "instance_count");
        assert_eq!(&text[val.range()], "2");
        let tags = doc.span_of(
            &crate::source::Pointer::parse("/resources/tags/a"),
            super::super::Target::Value,
        );
        assert_eq!(&text[tags.range()], "\"é\"");
        let res = doc.span_of(
            &crate::source::Pointer::parse("/resources"),
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
    fn every_written_entry_of_a_key_is_found_in_small_and_indexed_mappings() {
        // `written_keys` of a mapping over 32 entries walks the key index's chain of
        // repeats (a scan of the mapping per key was quadratic in a file of 60,000
        // repeated or unknown keys: 3.2 s, now 0.23 s): the same answers as the scan below
        // it, in text order, merged entries left out.
        for size in [8, 40] {
            let mut text = String::from("base: &b {k0: merged, k99: merged}\nm:\n  <<: *b\n");
            for i in 1..size {
                text.push_str(&format!("  k{i}: {i}\n"));
            }
            text.push_str("  k1: again\n  k0: written\n  k1: last\n");
            let (docs, _) = load(&text);
            let doc = &docs[0];
            let starts = |key: &str| {
                doc.written_keys(&crate::source::Pointer::parse(key)).map(|keys| {
                    keys.iter()
                        .map(|k| doc.node(*k).span.start as usize)
                        .collect::<Vec<_>>()
                })
            };
            let at = |needle: &str| text.find(needle).unwrap();
            assert_eq!(
                starts("/m/k1"),
                Some(vec![at("  k1: 1") + 2, at("k1: again"), at("k1: last")]),
                "{size} entries"
            );
            assert_eq!(starts("/m/k0"), Some(vec![at("k0: written")]), "{size} entries");
            assert_eq!(starts("/m/k2"), Some(vec![at("k2: 2")]), "{size} entries");
            assert_eq!(starts("/m/k99"), None, "merged only: {size} entries");
            assert_eq!(starts("/m/nope"), None, "{size} entries");
        }
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
    fn alias_expansion_is_bounded_in_bytes_for_the_whole_file() {
        let limits = Limits {
            max_alias_bytes: 1000,
            ..Limits::default()
        };
        let load_with = |text: &str| {
            let mut diags = Findings::new(usize::MAX);
            let docs = parse(text, 0, &limits, &mut diags);
            (docs, diags.into_parts().0)
        };
        let big = "x".repeat(300);
        // 300 bytes three times: under the limit; four times: over it.
        let (docs, diags) = load_with(&format!("a: &a {big}\nb: [*a, *a]\n"));
        assert!(diags.is_empty(), "{diags:?}");
        assert!(!docs[0].alias_overflow);
        let (docs, diags) = load_with(&format!("a: &a {big}\nb: [*a, *a, *a]\n"));
        assert_eq!(codes(&diags), ["AML005"]);
        assert!(diags[0].message.contains("1000 bytes"), "{}", diags[0].message);
        assert!(docs[0].alias_overflow);
        // Keys count, and merged copies.
        let (_, diags) = load_with(&format!(
            "a: &a {big}\nb: {{*a : 1}}\nc: {{*a : 1}}\nd: {{*a : 1}}\n"
        ));
        assert_eq!(codes(&diags), ["AML005"]);
        let (_, diags) = load_with(&format!(
            "a: &a {{k: {big}}}\nb: {{<<: *a}}\nc: {{<<: *a}}\nd: {{<<: *a}}\n"
        ));
        assert_eq!(codes(&diags), ["AML005"]);
        // The file's documents share the limit.
        let one = format!("a: &a {big}\nb: *a\n");
        let (docs, diags) = load_with(&format!("{one}---\n{one}---\n{one}"));
        assert_eq!(codes(&diags), ["AML005", "AML005"]);
        assert!(
            diags[0]
                .message
                .ends_with("counting the file's documents before it")
        );
        assert!(!docs[0].alias_overflow && docs[1].alias_overflow && docs[2].alias_overflow);
        // Without aliases, a file larger than the limit is not over it.
        let (_, diags) = load_with(&format!("a: {big}\nb: {big}\nc: {big}\nd: {big}\n"));
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn integers_beyond_a_double_are_the_largest_double_in_the_json_view() {
        // Python holds them; JSON Schema's `integer` accepts them as the SDK's fields do.
        let text = format!(
            "a: 1{}\nb: -0x{}\nc: 123456789012345678901\n",
            "0".repeat(400),
            "f".repeat(5000)
        );
        let (docs, diags) = load(&text);
        assert!(diags.is_empty(), "{diags:?}");
        let json = docs[0].to_json();
        assert_eq!(json["a"].as_f64(), Some(f64::MAX));
        assert_eq!(json["b"].as_f64(), Some(f64::MIN));
        assert_eq!(json["c"].as_f64(), Some(123456789012345678901.0));
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
        let v = docs[0].span_of(&crate::source::Pointer::parse("/k"), super::super::Target::Value);
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
    fn a_quoted_string_continued_left_of_its_key_loads() {
        // Issue 20: PyYAML does not check the indentation of quoted scalars' lines.
        let text = "jobs:\n  step:\n    inputs:\n      prompt: \"\\nGoal: {{goal}}\\n\\\n      Answer options:\\n\\\n  done\"\n      next: [a,\n b]\n";
        let (docs, diags) = load(text);
        assert!(diags.is_empty(), "{diags:?}");
        let inputs = &docs[0].to_json()["jobs"]["step"]["inputs"];
        assert_eq!(inputs["prompt"], "\nGoal: {{goal}}\nAnswer options:\ndone");
        assert_eq!(inputs["next"], serde_json::json!(["a", "b"]));
        let p = crate::source::Pointer::parse("/jobs/step/inputs/prompt");
        let span = docs[0].span_of(&p, super::super::Target::Value);
        assert!(text[span.range()].starts_with("\"\\nGoal") && text[span.range()].ends_with("done\""));
    }

    #[test]
    fn syntax_errors_are_pyyamls_with_their_context_as_a_label() {
        let text = "a: 1\nbbb\nc: 2\n";
        let (_, diags) = load(text);
        assert_eq!(codes(&diags), ["AML001"]);
        let d = &diags[0];
        assert_eq!(d.message, "YAML syntax error: could not find expected ':'");
        // PyYAML's problem mark: the next line, where the key was given up.
        assert_eq!(d.span.start as usize, text.find("c: 2").unwrap());
        assert_eq!(d.labels[0].span.start as usize, text.find("bbb").unwrap());
        assert_eq!(
            d.labels[0].message,
            "while scanning a simple key that starts here"
        );
    }

    /// azureml-examples' custom-container deployments: a placeholder alone on its line is
    /// a mapping used as a key (reported), one followed by more text is a syntax error
    /// there (reported once, as PyYAML does, not also as a key).
    #[test]
    fn a_placeholder_followed_by_text_is_one_syntax_error() {
        let text = "name: {{NAME}}\nenvironment:\n  image: {{ACR_NAME}}.azurecr.io/x:1\n";
        let (_, diags) = load(text);
        assert_eq!(codes(&diags), ["AML001", "AML001"], "{diags:?}");
        assert_eq!(&text[diags[0].span.range()], "{{NAME}}");
        assert!(
            diags[0].message.contains("template placeholder"),
            "{}",
            diags[0].message
        );
        assert!(
            diags[1].message.starts_with("YAML syntax error"),
            "{}",
            diags[1].message
        );
        assert_eq!(diags[1].span.start as usize, text.find(".azurecr").unwrap());
        assert_eq!(diags[1].help.as_deref(), Some(TEMPLATE_HELP));
    }

    #[test]
    fn anchors_as_pyyamls_composer_reads_them() {
        let text = "a: &x 1\nb: &x 2\nc: *x\n";
        let (_, diags) = load(text);
        assert_eq!(codes(&diags), ["AML001"]);
        assert_eq!(&text[diags[0].span.range()], "&x");
        assert_eq!(diags[0].span.start, 11);
        assert_eq!(diags[0].labels[0].span, Span::new(3, 5));
        let (_, diags) = load("a: *nowhere\n");
        assert_eq!(codes(&diags), ["AML001"]);
        assert_eq!(diags[0].message, "found undefined alias 'nowhere'");
        let (_, diags) = load("a: &x.y 1\n");
        assert_eq!(codes(&diags), ["AML001"]);
        assert!(
            diags[0]
                .message
                .contains("expected alphabetic or numeric character, but found '.'")
        );
    }

    #[test]
    fn value_and_merge_keys_as_pyyaml_constructs_them() {
        // `=` is refused as a value but is the string "=" as a key (`flatten_mapping`).
        let (docs, diags) = load("=: 1\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(docs[0].to_json(), serde_json::json!({"=": 1}));
        let (_, diags) = load("a: =\n");
        assert_eq!(codes(&diags), ["AML001"]);
        // A `<<` with a tag is not the merge key.
        let (docs, diags) = load("!!str <<: {a: 1}\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(docs[0].to_json(), serde_json::json!({"<<": {"a": 1}}));
        // The non-specific tag resolves as plain.
        let (docs, _) = load("a: ! 1\nb: ! '2'\n");
        assert_eq!(docs[0].to_json(), serde_json::json!({"a": 1, "b": 2}));
    }

    #[test]
    fn what_is_only_merged_is_not_constructed() {
        // PyYAML copies the pairs of a merge key's value without constructing the value
        // itself: its tag is never looked at, unless an alias makes it a value too.
        let (docs, diags) = load("y:\n  <<: !x [!y {k: 1}]\n  j: 2\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(docs[0].to_json(), serde_json::json!({"y": {"k": 1, "j": 2}}));
        let text = "x: &a !x {k: 1}\ny:\n  <<: *a\nz: *a\n";
        let (_, diags) = load(text);
        assert_eq!(codes(&diags), ["AML001"]);
        assert_eq!(diags[0].span.start as usize, text.find("&a").unwrap());
        let (_, diags) = load("x: &a !x {k: 1}\ny:\n  <<: *a\n");
        assert_eq!(codes(&diags), ["AML001"], "`x` itself is a value");
    }

    #[test]
    fn a_document_marker_ends_a_block_scalar_at_the_root() {
        let (docs, diags) = load("--- |\n  text at root\n---\nb: 2\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].to_json(), serde_json::json!("text at root\n"));
        assert_eq!(docs[1].to_json(), serde_json::json!({"b": 2}));
        // Text at column 0 is not part of a block scalar at the root (its indentation
        // is at least 1): PyYAML reads it as a second node of the document and refuses
        // the file there.
        let text = "--- |\ntext at root\n---\nb: 2\n";
        let (_, diags) = load(text);
        assert_eq!(codes(&diags), ["AML001"]);
        assert_eq!(
            diags[0].message,
            "YAML syntax error: expected '<document start>', but found '<scalar>'"
        );
        assert_eq!(diags[0].span.start as usize, text.find("text").unwrap());
    }
}
