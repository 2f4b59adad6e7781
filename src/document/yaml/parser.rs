//! Tokens → events, following PyYAML's parser (`yaml/parser.py`, PyYAML 6.0; MIT
//! licence, reproduced in `scanner.rs`): the same LL(1) grammar, run as PyYAML runs it —
//! a state and a stack of states, no recursion —, the same tag resolution and the same
//! errors at the same places.
//!
//! ```text
//! stream            ::= STREAM-START implicit_document? explicit_document* STREAM-END
//! implicit_document ::= block_node DOCUMENT-END*
//! explicit_document ::= DIRECTIVE* DOCUMENT-START block_node? DOCUMENT-END*
//! block_node_or_indentless_sequence ::= ALIAS
//!                       | properties (block_content | indentless_block_sequence)?
//!                       | block_content | indentless_block_sequence
//! block_node        ::= ALIAS | properties block_content? | block_content
//! flow_node         ::= ALIAS | properties flow_content? | flow_content
//! properties        ::= TAG ANCHOR? | ANCHOR TAG?
//! block_content     ::= block_collection | flow_collection | SCALAR
//! flow_content      ::= flow_collection | SCALAR
//! block_sequence    ::= BLOCK-SEQUENCE-START (BLOCK-ENTRY block_node?)* BLOCK-END
//! indentless_sequence ::= (BLOCK-ENTRY block_node?)+
//! block_mapping     ::= BLOCK-MAPPING-START ((KEY block_node_or_indentless_sequence?)?
//!                       (VALUE block_node_or_indentless_sequence?)?)* BLOCK-END
//! flow_sequence     ::= FLOW-SEQUENCE-START (flow_sequence_entry FLOW-ENTRY)*
//!                       flow_sequence_entry? FLOW-SEQUENCE-END
//! flow_sequence_entry ::= flow_node | KEY flow_node? (VALUE flow_node?)?
//! flow_mapping      ::= FLOW-MAPPING-START (flow_mapping_entry FLOW-ENTRY)*
//!                       flow_mapping_entry? FLOW-MAPPING-END
//! flow_mapping_entry ::= flow_node | KEY flow_node? (VALUE flow_node?)?
//! ```
//!
//! This file is self-contained but for `scanner.rs` (`build.rs` includes both).

use std::borrow::Cow;
use std::collections::HashMap;

use super::scanner::{DirectiveValue, Mark, ScalarStyle, Scanner, Token, TokenKind, YamlError};

/// The full tag of the core schema's types.
pub const CORE_TAG_PREFIX: &str = "tag:yaml.org,2002:";

#[derive(Clone, Debug, PartialEq)]
pub enum EventKind<'a> {
    StreamStart,
    StreamEnd,
    DocumentStart {
        explicit: bool,
    },
    DocumentEnd,
    Alias(&'a str),
    Scalar {
        anchor: Option<&'a str>,
        /// The full tag (handles resolved), `!` for the non-specific tag.
        tag: Option<Cow<'a, str>>,
        value: Cow<'a, str>,
        style: ScalarStyle,
        /// The scalar's own text (no anchor or tag): its token, or where an empty
        /// scalar stands.
        start: u32,
        end: u32,
    },
    SequenceStart {
        anchor: Option<&'a str>,
        tag: Option<Cow<'a, str>>,
        flow: bool,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<&'a str>,
        tag: Option<Cow<'a, str>>,
        flow: bool,
    },
    MappingEnd,
}

/// An event and PyYAML's marks for it: a node's start is its anchor or tag when it has
/// one; a flow collection's start event ends after its bracket, a block collection's at
/// its first entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Event<'a> {
    pub kind: EventKind<'a>,
    pub start: Mark,
    pub end: Mark,
}

/// A node's properties as `parse_node` read them: its anchor, its tag (resolved), and
/// from the first one's start to the last one's end (`None` without properties).
struct Properties<'a> {
    anchor: Option<&'a str>,
    tag: Option<Cow<'a, str>>,
    span: Option<(Mark, Mark)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    StreamStart,
    ImplicitDocumentStart,
    DocumentStart,
    DocumentEnd,
    DocumentContent,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    End,
}

type Result<T> = std::result::Result<T, Box<YamlError>>;

const DEFAULT_TAGS: [(&str, &str); 2] = [("!", "!"), ("!!", CORE_TAG_PREFIX)];

pub struct Parser<'a> {
    scanner: Scanner<'a>,
    state: State,
    states: Vec<State>,
    /// Where each open collection began (for error contexts).
    marks: Vec<Mark>,
    /// The document's `%TAG` directives: handle → prefix (the default handles, `!` and
    /// `!!`, stand for theirs unless a directive redefines them: `tag_prefix`).
    tag_handles: HashMap<Cow<'a, str>, Cow<'a, str>>,
    /// An error stops the stream; it is returned again if asked again.
    error: Option<Box<YamlError>>,
}

/// Token kinds as bits, for `Parser::check`.
const DIRECTIVE: u32 = 1;
const DOCUMENT_START: u32 = 1 << 1;
const DOCUMENT_END: u32 = 1 << 2;
const STREAM_END: u32 = 1 << 3;
const BLOCK_ENTRY: u32 = 1 << 4;
const BLOCK_END: u32 = 1 << 5;
const KEY: u32 = 1 << 6;
const VALUE: u32 = 1 << 7;
const FLOW_ENTRY: u32 = 1 << 8;
const FLOW_SEQUENCE_END: u32 = 1 << 9;
const FLOW_MAPPING_END: u32 = 1 << 10;

fn bit(kind: &TokenKind<'_>) -> u32 {
    match kind {
        TokenKind::Directive(..) => DIRECTIVE,
        TokenKind::DocumentStart => DOCUMENT_START,
        TokenKind::DocumentEnd => DOCUMENT_END,
        TokenKind::StreamEnd => STREAM_END,
        TokenKind::BlockEntry => BLOCK_ENTRY,
        TokenKind::BlockEnd => BLOCK_END,
        TokenKind::Key => KEY,
        TokenKind::Value => VALUE,
        TokenKind::FlowEntry => FLOW_ENTRY,
        TokenKind::FlowSequenceEnd => FLOW_SEQUENCE_END,
        TokenKind::FlowMappingEnd => FLOW_MAPPING_END,
        _ => 0,
    }
}

fn python_repr_str(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

impl<'a> Parser<'a> {
    /// Parses `text` from byte `start` (after a byte-order mark).
    pub fn new(text: &'a str, start: usize) -> Self {
        Parser {
            scanner: Scanner::new(text, start),
            state: State::StreamStart,
            states: Vec::new(),
            marks: Vec::new(),
            tag_handles: HashMap::new(),
            error: None,
        }
    }

    /// The next event; `None` after the end of the stream.
    pub fn next_event(&mut self) -> Option<Result<Event<'a>>> {
        if let Some(e) = &self.error {
            return Some(Err(e.clone()));
        }
        if self.state == State::End {
            return None;
        }
        let r = self.step();
        if let Err(e) = &r {
            self.error = Some(e.clone());
        }
        Some(r)
    }

    fn peek(&mut self) -> Result<&Token<'a>> {
        self.scanner.peek_token()
    }

    /// Whether the next token is of one of the kinds (bits) of `mask`.
    fn check(&mut self, mask: u32) -> Result<bool> {
        Ok(bit(&self.peek()?.kind) & mask != 0)
    }

    fn take(&mut self) -> Result<Token<'a>> {
        self.scanner.next_token()
    }

    fn pop_state(&mut self) -> State {
        self.states.pop().unwrap_or(State::End)
    }

    fn step(&mut self) -> Result<Event<'a>> {
        match self.state {
            State::StreamStart => self.parse_stream_start(),
            State::ImplicitDocumentStart => self.parse_implicit_document_start(),
            State::DocumentStart => self.parse_document_start(),
            State::DocumentEnd => self.parse_document_end(),
            State::DocumentContent => self.parse_document_content(),
            State::BlockNode => self.parse_node(true, false),
            State::BlockSequenceFirstEntry => {
                let token = self.take()?;
                self.marks.push(token.start);
                self.parse_block_sequence_entry()
            }
            State::BlockSequenceEntry => self.parse_block_sequence_entry(),
            State::IndentlessSequenceEntry => self.parse_indentless_sequence_entry(),
            State::BlockMappingFirstKey => {
                let token = self.take()?;
                self.marks.push(token.start);
                self.parse_block_mapping_key()
            }
            State::BlockMappingKey => self.parse_block_mapping_key(),
            State::BlockMappingValue => self.parse_block_mapping_value(),
            State::FlowSequenceFirstEntry => {
                let token = self.take()?;
                self.marks.push(token.start);
                self.parse_flow_sequence_entry(true)
            }
            State::FlowSequenceEntry => self.parse_flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => self.parse_flow_sequence_entry_mapping_key(),
            State::FlowSequenceEntryMappingValue => self.parse_flow_sequence_entry_mapping_value(),
            State::FlowSequenceEntryMappingEnd => {
                self.state = State::FlowSequenceEntry;
                let mark = self.peek()?.start;
                Ok(event(EventKind::MappingEnd, mark, mark))
            }
            State::FlowMappingFirstKey => {
                let token = self.take()?;
                self.marks.push(token.start);
                self.parse_flow_mapping_key(true)
            }
            State::FlowMappingKey => self.parse_flow_mapping_key(false),
            State::FlowMappingValue => self.parse_flow_mapping_value(),
            State::FlowMappingEmptyValue => {
                self.state = State::FlowMappingKey;
                let mark = self.peek()?.start;
                Ok(empty_scalar(mark))
            }
            State::End => Err(YamlError::new(None, "no more events".into(), Mark::default())),
        }
    }

    fn parse_stream_start(&mut self) -> Result<Event<'a>> {
        let token = self.take()?;
        self.state = State::ImplicitDocumentStart;
        Ok(event(EventKind::StreamStart, token.start, token.end))
    }

    fn parse_implicit_document_start(&mut self) -> Result<Event<'a>> {
        if !self.check(DIRECTIVE | DOCUMENT_START | STREAM_END)? {
            self.tag_handles.clear();
            let mark = self.peek()?.start;
            self.states.push(State::DocumentEnd);
            self.state = State::BlockNode;
            Ok(event(EventKind::DocumentStart { explicit: false }, mark, mark))
        } else {
            self.parse_document_start()
        }
    }

    fn parse_document_start(&mut self) -> Result<Event<'a>> {
        // Parse any extra document end indicators.
        while self.check(DOCUMENT_END)? {
            self.take()?;
        }
        if self.check(STREAM_END)? {
            // The end of the stream.
            let token = self.take()?;
            self.state = State::End;
            return Ok(event(EventKind::StreamEnd, token.start, token.end));
        }
        // An explicit document.
        let start = self.peek()?.start;
        self.process_directives()?;
        if !self.check(DOCUMENT_START)? {
            let token = self.peek()?;
            return Err(YamlError::new(
                None,
                format!("expected '<document start>', but found '{}'", token.kind.id()),
                token.start,
            ));
        }
        let token = self.take()?;
        self.states.push(State::DocumentEnd);
        self.state = State::DocumentContent;
        Ok(event(
            EventKind::DocumentStart { explicit: true },
            start,
            token.end,
        ))
    }

    fn parse_document_end(&mut self) -> Result<Event<'a>> {
        let token = self.peek()?;
        let (start, mut end) = (token.start, token.start);
        if self.check(DOCUMENT_END)? {
            end = self.take()?.end;
        }
        self.state = State::DocumentStart;
        Ok(event(EventKind::DocumentEnd, start, end))
    }

    fn parse_document_content(&mut self) -> Result<Event<'a>> {
        if self.check(DIRECTIVE | DOCUMENT_START | DOCUMENT_END | STREAM_END)? {
            let mark = self.peek()?.start;
            self.state = self.pop_state();
            Ok(empty_scalar(mark))
        } else {
            self.parse_node(true, false)
        }
    }

    fn process_directives(&mut self) -> Result<()> {
        let mut yaml_version = false;
        self.tag_handles.clear();
        while self.check(DIRECTIVE)? {
            let token = self.take()?;
            let TokenKind::Directive(directive) = token.kind else {
                unreachable!("peeked a directive")
            };
            match directive.1 {
                DirectiveValue::Yaml(major, _) => {
                    if yaml_version {
                        return Err(YamlError::new(
                            None,
                            "found duplicate YAML directive".into(),
                            token.start,
                        ));
                    }
                    if major != 1 {
                        return Err(YamlError::new(
                            None,
                            "found incompatible YAML document (version 1.* is required)".into(),
                            token.start,
                        ));
                    }
                    yaml_version = true;
                }
                DirectiveValue::Tag(handle, prefix) => {
                    if self.tag_handles.contains_key(&handle) {
                        return Err(YamlError::new(
                            None,
                            format!("duplicate tag handle {}", python_repr_str(&handle)),
                            token.start,
                        ));
                    }
                    self.tag_handles.insert(handle, prefix);
                }
                DirectiveValue::Other => {}
            }
        }
        Ok(())
    }

    fn parse_node(&mut self, block: bool, indentless_sequence: bool) -> Result<Event<'a>> {
        if let TokenKind::Alias(name) = self.peek()?.kind {
            let token = self.take()?;
            self.state = self.pop_state();
            return Ok(event(EventKind::Alias(name), token.start, token.end));
        }
        let Properties { anchor, tag, span } = self.parse_properties()?;
        let (start, end) = match span {
            Some(span) => span,
            None => {
                let m = self.peek()?.start;
                (m, m)
            }
        };
        // A collection starts: the state that reads its entries, whether it is a mapping
        // and a flow collection, and where its start event ends (after a flow collection's
        // bracket or an indentless sequence's first dash, at a block collection's first
        // entry).
        let token = self.peek()?;
        let (state, mapping, flow, kind_end) = match &token.kind {
            TokenKind::BlockEntry if indentless_sequence => {
                (State::IndentlessSequenceEntry, false, false, token.end)
            }
            TokenKind::FlowSequenceStart => (State::FlowSequenceFirstEntry, false, true, token.end),
            TokenKind::FlowMappingStart => (State::FlowMappingFirstKey, true, true, token.end),
            TokenKind::BlockSequenceStart if block => {
                (State::BlockSequenceFirstEntry, false, false, token.start)
            }
            TokenKind::BlockMappingStart if block => (State::BlockMappingFirstKey, true, false, token.start),
            TokenKind::Scalar(..) => return self.parse_scalar(anchor, tag, start),
            // Empty scalars are allowed even if a tag or an anchor is specified.
            _ if anchor.is_some() || tag.is_some() => {
                self.state = self.pop_state();
                return Ok(scalar_event(
                    anchor,
                    tag,
                    Cow::Borrowed(""),
                    ScalarStyle::Plain,
                    start,
                    end,
                    end,
                ));
            }
            other => {
                let node = if block { "block" } else { "flow" };
                return Err(YamlError::new(
                    Some((Cow::Owned(format!("while parsing a {node} node")), start)),
                    format!("expected the node content, but found '{}'", other.id()),
                    token.start,
                ));
            }
        };
        self.state = state;
        let kind = if mapping {
            EventKind::MappingStart { anchor, tag, flow }
        } else {
            EventKind::SequenceStart { anchor, tag, flow }
        };
        Ok(event(kind, start, kind_end))
    }

    /// A scalar node whose properties (if any) start at `start`.
    fn parse_scalar(
        &mut self,
        anchor: Option<&'a str>,
        tag: Option<Cow<'a, str>>,
        start: Mark,
    ) -> Result<Event<'a>> {
        let token = self.take()?;
        let TokenKind::Scalar(value, style) = token.kind else {
            unreachable!("peeked a scalar")
        };
        self.state = self.pop_state();
        Ok(scalar_event(
            anchor,
            tag,
            value,
            style,
            start,
            token.start,
            token.end,
        ))
    }

    /// A node's properties: an anchor and a tag, either or both, in either order.
    fn parse_properties(&mut self) -> Result<Properties<'a>> {
        let mut anchor = None;
        let mut tag = None;
        let mut span: Option<(Mark, Mark)> = None;
        for _ in 0..2 {
            match self.peek()?.kind {
                TokenKind::Anchor(name) if anchor.is_none() => {
                    let token = self.take()?;
                    anchor = Some(name);
                    span = Some((span.map_or(token.start, |(s, _)| s), token.end));
                }
                TokenKind::Tag(..) if tag.is_none() => {
                    let token = self.take()?;
                    let TokenKind::Tag(tag_token) = token.kind else {
                        unreachable!("peeked a tag")
                    };
                    let (handle, suffix) = *tag_token;
                    tag = Some((handle, suffix, token.start));
                    span = Some((span.map_or(token.start, |(s, _)| s), token.end));
                }
                _ => break,
            }
        }
        let tag = match tag {
            None => None,
            Some((handle, suffix, at)) => {
                let node = span.map_or(at, |(s, _)| s);
                Some(self.resolve_tag(handle, suffix, node, at)?)
            }
        };
        Ok(Properties { anchor, tag, span })
    }

    /// The full tag: the prefix `handle` stands for, then `suffix` (a verbatim tag or `!`
    /// alone, without a handle, is its suffix). `node` is where the node starts, `at` the
    /// tag.
    fn resolve_tag(
        &self,
        handle: Option<Cow<'a, str>>,
        suffix: Cow<'a, str>,
        node: Mark,
        at: Mark,
    ) -> Result<Cow<'a, str>> {
        let Some(handle) = handle else {
            return Ok(suffix);
        };
        let Some(prefix) = self.tag_prefix(&handle) else {
            return Err(YamlError::new(
                Some((Cow::Borrowed("while parsing a node"), node)),
                format!("found undefined tag handle {}", python_repr_str(&handle)),
                at,
            ));
        };
        Ok(if prefix.is_empty() {
            suffix
        } else {
            Cow::Owned(format!("{prefix}{suffix}"))
        })
    }

    /// The prefix a tag handle stands for in the document: its `%TAG` directive's, else
    /// the default one's.
    fn tag_prefix(&self, handle: &str) -> Option<&str> {
        if !self.tag_handles.is_empty() {
            if let Some(prefix) = self.tag_handles.get(handle) {
                return Some(prefix);
            }
        }
        DEFAULT_TAGS.iter().find(|&&(h, _)| h == handle).map(|&(_, p)| p)
    }

    fn context_mark(&self) -> Mark {
        self.marks.last().copied().unwrap_or_default()
    }

    fn parse_block_sequence_entry(&mut self) -> Result<Event<'a>> {
        if self.check(BLOCK_ENTRY)? {
            let token = self.take()?;
            if !self.check(BLOCK_ENTRY | BLOCK_END)? {
                self.states.push(State::BlockSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = State::BlockSequenceEntry;
            return Ok(empty_scalar(token.end));
        }
        if !self.check(BLOCK_END)? {
            let context = self.context_mark();
            let token = self.peek()?;
            return Err(YamlError::new(
                Some((Cow::Borrowed("while parsing a block collection"), context)),
                format!("expected <block end>, but found '{}'", token.kind.id()),
                token.start,
            ));
        }
        let token = self.take()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::SequenceEnd, token.start, token.end))
    }

    fn parse_indentless_sequence_entry(&mut self) -> Result<Event<'a>> {
        if self.check(BLOCK_ENTRY)? {
            let token = self.take()?;
            if !self.check(BLOCK_ENTRY | KEY | VALUE | BLOCK_END)? {
                self.states.push(State::IndentlessSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = State::IndentlessSequenceEntry;
            return Ok(empty_scalar(token.end));
        }
        let mark = self.peek()?.start;
        self.state = self.pop_state();
        Ok(event(EventKind::SequenceEnd, mark, mark))
    }

    fn parse_block_mapping_key(&mut self) -> Result<Event<'a>> {
        if self.check(KEY)? {
            let token = self.take()?;
            if !self.check(KEY | VALUE | BLOCK_END)? {
                self.states.push(State::BlockMappingValue);
                return self.parse_node(true, true);
            }
            self.state = State::BlockMappingValue;
            return Ok(empty_scalar(token.end));
        }
        if !self.check(BLOCK_END)? {
            let context = self.context_mark();
            let token = self.peek()?;
            return Err(YamlError::new(
                Some((Cow::Borrowed("while parsing a block mapping"), context)),
                format!("expected <block end>, but found '{}'", token.kind.id()),
                token.start,
            ));
        }
        let token = self.take()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::MappingEnd, token.start, token.end))
    }

    fn parse_block_mapping_value(&mut self) -> Result<Event<'a>> {
        if self.check(VALUE)? {
            let token = self.take()?;
            if !self.check(KEY | VALUE | BLOCK_END)? {
                self.states.push(State::BlockMappingKey);
                return self.parse_node(true, true);
            }
            self.state = State::BlockMappingKey;
            return Ok(empty_scalar(token.end));
        }
        self.state = State::BlockMappingKey;
        let mark = self.peek()?.start;
        Ok(empty_scalar(mark))
    }

    /// A flow sequence entry; `KEY flow_node? (VALUE flow_node?)?` in a flow sequence is
    /// a one-pair mapping.
    fn parse_flow_sequence_entry(&mut self, first: bool) -> Result<Event<'a>> {
        if !self.check(FLOW_SEQUENCE_END)? {
            if !first {
                if self.check(FLOW_ENTRY)? {
                    self.take()?;
                } else {
                    let context = self.context_mark();
                    let token = self.peek()?;
                    return Err(YamlError::new(
                        Some((Cow::Borrowed("while parsing a flow sequence"), context)),
                        format!("expected ',' or ']', but got '{}'", token.kind.id()),
                        token.start,
                    ));
                }
            }
            if self.check(KEY)? {
                let token = self.peek()?;
                let (start, end) = (token.start, token.end);
                self.state = State::FlowSequenceEntryMappingKey;
                return Ok(event(
                    EventKind::MappingStart {
                        anchor: None,
                        tag: None,
                        flow: true,
                    },
                    start,
                    end,
                ));
            } else if !self.check(FLOW_SEQUENCE_END)? {
                self.states.push(State::FlowSequenceEntry);
                return self.parse_node(false, false);
            }
        }
        let token = self.take()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::SequenceEnd, token.start, token.end))
    }

    fn parse_flow_sequence_entry_mapping_key(&mut self) -> Result<Event<'a>> {
        let token = self.take()?;
        if !self.check(VALUE | FLOW_ENTRY | FLOW_SEQUENCE_END)? {
            self.states.push(State::FlowSequenceEntryMappingValue);
            return self.parse_node(false, false);
        }
        self.state = State::FlowSequenceEntryMappingValue;
        Ok(empty_scalar(token.end))
    }

    fn parse_flow_sequence_entry_mapping_value(&mut self) -> Result<Event<'a>> {
        if self.check(VALUE)? {
            let token = self.take()?;
            if !self.check(FLOW_ENTRY | FLOW_SEQUENCE_END)? {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                return self.parse_node(false, false);
            }
            self.state = State::FlowSequenceEntryMappingEnd;
            return Ok(empty_scalar(token.end));
        }
        self.state = State::FlowSequenceEntryMappingEnd;
        let mark = self.peek()?.start;
        Ok(empty_scalar(mark))
    }

    fn parse_flow_mapping_key(&mut self, first: bool) -> Result<Event<'a>> {
        if !self.check(FLOW_MAPPING_END)? {
            if !first {
                if self.check(FLOW_ENTRY)? {
                    self.take()?;
                } else {
                    let context = self.context_mark();
                    let token = self.peek()?;
                    return Err(YamlError::new(
                        Some((Cow::Borrowed("while parsing a flow mapping"), context)),
                        format!("expected ',' or '}}', but got '{}'", token.kind.id()),
                        token.start,
                    ));
                }
            }
            if self.check(KEY)? {
                let token = self.take()?;
                if !self.check(VALUE | FLOW_ENTRY | FLOW_MAPPING_END)? {
                    self.states.push(State::FlowMappingValue);
                    return self.parse_node(false, false);
                }
                self.state = State::FlowMappingValue;
                return Ok(empty_scalar(token.end));
            } else if !self.check(FLOW_MAPPING_END)? {
                self.states.push(State::FlowMappingEmptyValue);
                return self.parse_node(false, false);
            }
        }
        let token = self.take()?;
        self.state = self.pop_state();
        self.marks.pop();
        Ok(event(EventKind::MappingEnd, token.start, token.end))
    }

    fn parse_flow_mapping_value(&mut self) -> Result<Event<'a>> {
        if self.check(VALUE)? {
            let token = self.take()?;
            if !self.check(FLOW_ENTRY | FLOW_MAPPING_END)? {
                self.states.push(State::FlowMappingKey);
                return self.parse_node(false, false);
            }
            self.state = State::FlowMappingKey;
            return Ok(empty_scalar(token.end));
        }
        self.state = State::FlowMappingKey;
        let mark = self.peek()?.start;
        Ok(empty_scalar(mark))
    }
}

fn event(kind: EventKind<'_>, start: Mark, end: Mark) -> Event<'_> {
    Event { kind, start, end }
}

/// A scalar's event: its properties, value and style, from `start` (its properties, else
/// its text) to `end`; its own text runs from `text` to `end`.
fn scalar_event<'a>(
    anchor: Option<&'a str>,
    tag: Option<Cow<'a, str>>,
    value: Cow<'a, str>,
    style: ScalarStyle,
    start: Mark,
    text: Mark,
    end: Mark,
) -> Event<'a> {
    let kind = EventKind::Scalar {
        anchor,
        tag,
        value,
        style,
        start: text.pos,
        end: end.pos,
    };
    event(kind, start, end)
}

/// PyYAML's `process_empty_scalar`: an empty plain scalar (null) at `mark`.
fn empty_scalar<'a>(mark: Mark) -> Event<'a> {
    scalar_event(
        None,
        None,
        Cow::Borrowed(""),
        ScalarStyle::Plain,
        mark,
        mark,
        mark,
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        let mut p = Parser::new(text, 0);
        let mut out = Vec::new();
        while let Some(e) = p.next_event() {
            match e {
                Ok(e) => out.push(match e.kind {
                    EventKind::StreamStart => "+STR".to_string(),
                    EventKind::StreamEnd => "-STR".to_string(),
                    EventKind::DocumentStart { explicit } => {
                        if explicit { "+DOC ---" } else { "+DOC" }.to_string()
                    }
                    EventKind::DocumentEnd => "-DOC".to_string(),
                    EventKind::Alias(a) => format!("=ALI *{a}"),
                    EventKind::Scalar { value, tag, .. } => match tag {
                        Some(t) => format!("=VAL <{t}> {value}"),
                        None => format!("=VAL {value}"),
                    },
                    EventKind::SequenceStart { flow, .. } => {
                        if flow { "+SEQ []" } else { "+SEQ" }.to_string()
                    }
                    EventKind::SequenceEnd => "-SEQ".to_string(),
                    EventKind::MappingStart { flow, .. } => if flow { "+MAP {}" } else { "+MAP" }.to_string(),
                    EventKind::MappingEnd => "-MAP".to_string(),
                }),
                Err(e) => {
                    out.push(format!("ERR {e}"));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn a_quoted_scalar_continued_left_of_its_key() {
        let text = "jobs:\n  step:\n    inputs:\n      prompt: \"\\nGoal: {{goal}}\\n\\\n      Answer options:\\n\\\n  done\"\n";
        let ev = events(text);
        assert!(
            ev.contains(&"=VAL \nGoal: {{goal}}\nAnswer options:\ndone".to_string()),
            "{ev:?}"
        );
        assert_eq!(ev.last().map(String::as_str), Some("-STR"));
    }

    #[test]
    fn errors_are_pyyamls() {
        let ev = events("a: b: c\n");
        assert_eq!(
            ev.last().unwrap(),
            "ERR mapping values are not allowed here (line 1, column 5)"
        );
        let ev = events("a:\n  b: 1\n c: 2\n");
        assert_eq!(
            ev.last().unwrap(),
            "ERR while parsing a block mapping: expected <block end>, but found '<block mapping start>' (line 3, column 2)"
        );
        let ev = events("a: [b\n");
        assert_eq!(
            ev.last().unwrap(),
            "ERR while parsing a flow sequence: expected ',' or ']', but got '<stream end>' (line 2, column 1)"
        );
    }

    #[test]
    fn tags_resolve_through_handles() {
        let ev = events("%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\nb: !!str 2\nc: ! 3\n");
        assert!(
            ev.contains(&"=VAL <tag:example.com,2000:x> 1".to_string()),
            "{ev:?}"
        );
        assert!(
            ev.contains(&"=VAL <tag:yaml.org,2002:str> 2".to_string()),
            "{ev:?}"
        );
        assert!(ev.contains(&"=VAL <!> 3".to_string()), "{ev:?}");
    }
}
