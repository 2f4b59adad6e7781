//! JSON text → a [`Document`] with spans, read as Python's `json.load` reads it (the SDK v1
//! reads deployment and inference configs with it): `NaN`/`Infinity` accepted, the last
//! duplicate key wins (AML002), Python's error wording (AML001). Iterative, so nesting
//! is bounded by [`Limits::max_depth`] (AML005), not by the stack.

use std::collections::HashMap;

use super::{Document, Entry, Node, NodeId, Style, Value};
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::limits::Limits;
use crate::source::Span;

enum Frame {
    Object {
        start: u32,
        entries: Vec<Entry>,
        key: Option<NodeId>,
    },
    Array {
        start: u32,
        items: Vec<NodeId>,
    },
}

struct Parser<'a, 'd> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    doc: Document,
    stack: Vec<Frame>,
    limits: &'a Limits,
    diags: &'d mut Findings,
}

/// Why parsing stopped early.
struct Stop;

/// Parses `text[base..]` as one JSON value. Returns no document for blank input.
pub fn parse(text: &str, base: u32, limits: &Limits, diags: &mut Findings) -> Vec<Document> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: base as usize,
        doc: Document::default(),
        stack: Vec::new(),
        limits,
        diags,
    };
    p.skip_ws();
    if p.pos >= p.bytes.len() {
        return Vec::new();
    }
    p.doc.span = Span::at(p.pos as u32);
    if p.run().is_err() {
        p.doc.partial = true;
        while !p.stack.is_empty() {
            let end = p.pos as u32;
            p.close(end);
        }
    }
    if let Some(root) = p.doc.root {
        p.doc.span = p.doc.nodes[root.index()].span;
    }
    p.doc.nodes.shrink_to_fit();
    vec![p.doc]
}

impl Parser<'_, '_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn error(&mut self, message: &str) -> Stop {
        let at = self.pos.min(self.bytes.len());
        let span = match self.text[at..].chars().next() {
            Some(c) if c != '\n' && c != '\r' => Span::new(at as u32, (at + c.len_utf8()) as u32),
            _ => Span::at(at as u32),
        };
        let help = if self.text[at..].starts_with("//") || self.text[at..].starts_with("/*") {
            "JSON has no comments: remove them (or keep notes in a separate README)."
        } else if message.starts_with("Expecting property name") && self.peek() == Some(b'}')
            || message.starts_with("Expecting value") && self.peek() == Some(b']')
        {
            "Remove the trailing comma before this bracket: JSON does not allow one."
        } else if self.peek() == Some(b'\'') {
            "JSON strings and keys use double quotes (`\"`), not single quotes."
        } else {
            "Fix the JSON syntax; the Azure ML SDK cannot read this file until then."
        };
        self.diags.push(
            Diagnostic::new(codes::AML001, span, format!("JSON syntax error: {message}")).with_help(help),
        );
        Stop
    }

    fn push_node(&mut self, value: Value, span: Span, style: Style) -> NodeId {
        let id = NodeId(self.doc.nodes.len() as u32);
        self.doc.nodes.push(Node { value, span, style });
        id
    }

    fn run(&mut self) -> Result<(), Stop> {
        'value: loop {
            self.skip_ws();
            let start = self.pos as u32;
            if self.doc.nodes.len() as u64 >= self.limits.max_nodes {
                self.diags
                    .push(super::too_many_nodes(Span::at(start), self.limits));
                return Err(Stop);
            }
            let node = match self.peek() {
                Some(b'{') | Some(b'[') => {
                    if self.stack.len() >= self.limits.max_depth {
                        self.diags.push(
                            Diagnostic::new(
                                codes::AML005,
                                Span::new(start, start + 1),
                                format!("nesting deeper than {} levels", self.limits.max_depth),
                            )
                            .with_help("Azure ML configurations are a few levels deep; flatten this structure. The rest of the file was not checked."),
                        );
                        return Err(Stop);
                    }
                    let object = self.peek() == Some(b'{');
                    self.pos += 1;
                    self.skip_ws();
                    if object {
                        self.stack.push(Frame::Object {
                            start,
                            entries: Vec::new(),
                            key: None,
                        });
                        if self.peek() == Some(b'}') {
                            self.pos += 1;
                            self.close(self.pos as u32)
                        } else {
                            self.key()?;
                            continue 'value;
                        }
                    } else {
                        self.stack.push(Frame::Array {
                            start,
                            items: Vec::new(),
                        });
                        if self.peek() == Some(b']') {
                            self.pos += 1;
                            self.close(self.pos as u32)
                        } else {
                            continue 'value;
                        }
                    }
                }
                Some(b'"') => {
                    let s = self.string()?;
                    self.push_node(
                        Value::Str(s.into()),
                        Span::new(start, self.pos as u32),
                        Style::Json,
                    )
                }
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => self.literal()?,
            };
            // A value is complete: attach it, then close as many containers as end here.
            let mut node = node;
            loop {
                match self.attach(node) {
                    None => {
                        self.skip_ws();
                        if self.pos < self.bytes.len() {
                            return Err(self.error("Extra data"));
                        }
                        return Ok(());
                    }
                    Some(object) => {
                        self.skip_ws();
                        match (self.peek(), object) {
                            (Some(b','), true) => {
                                self.pos += 1;
                                self.skip_ws();
                                self.key()?;
                                continue 'value;
                            }
                            (Some(b','), false) => {
                                self.pos += 1;
                                continue 'value;
                            }
                            (Some(b'}'), true) | (Some(b']'), false) => {
                                self.pos += 1;
                                node = self.close(self.pos as u32);
                            }
                            _ => return Err(self.error("Expecting ',' delimiter")),
                        }
                    }
                }
            }
        }
    }

    /// Attaches a finished value to the innermost container. Returns `None` at the top
    /// level, else whether the container is an object.
    fn attach(&mut self, node: NodeId) -> Option<bool> {
        match self.stack.last_mut() {
            None => {
                self.doc.root = Some(node);
                None
            }
            Some(Frame::Array { items, .. }) => {
                items.push(node);
                Some(false)
            }
            Some(Frame::Object { entries, key, .. }) => {
                if let Some(k) = key.take() {
                    entries.push(Entry {
                        key: k,
                        value: node,
                        merged: false,
                    });
                }
                Some(true)
            }
        }
    }

    /// Reads `"key" :` and records the key on the innermost object.
    fn key(&mut self) -> Result<(), Stop> {
        if self.peek() != Some(b'"') {
            return Err(self.error("Expecting property name enclosed in double quotes"));
        }
        let start = self.pos as u32;
        let s = self.string()?;
        let id = self.push_node(
            Value::Str(s.into()),
            Span::new(start, self.pos as u32),
            Style::Json,
        );
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.error("Expecting ':' delimiter"));
        }
        self.pos += 1;
        if let Some(Frame::Object { key, .. }) = self.stack.last_mut() {
            *key = Some(id);
        }
        Ok(())
    }

    /// Pops the innermost container, ending at byte `end`.
    fn close(&mut self, end: u32) -> NodeId {
        match self.stack.pop() {
            Some(Frame::Array { start, mut items }) => {
                // Trees live until their file is checked, for every file of a run.
                items.shrink_to_fit();
                self.push_node(Value::Seq(items), Span::new(start, end), Style::Flow)
            }
            Some(Frame::Object { start, entries, key }) => {
                let mut entries = entries;
                if let Some(k) = key {
                    let at = self.doc.nodes[k.index()].span.end;
                    let null = self.push_node(Value::Null, Span::at(at), Style::Json);
                    entries.push(Entry {
                        key: k,
                        value: null,
                        merged: false,
                    });
                }
                self.check_duplicates(&entries);
                entries.shrink_to_fit();
                self.push_node(Value::Map(entries), Span::new(start, end), Style::Flow)
            }
            None => self.push_node(Value::Null, Span::at(end), Style::Json),
        }
    }

    fn check_duplicates(&mut self, entries: &[Entry]) {
        let mut seen: HashMap<&str, NodeId> = HashMap::new();
        for e in entries {
            let Value::Str(name) = &self.doc.nodes[e.key.index()].value else {
                continue;
            };
            if let Some(&first) = seen.get(&**name) {
                self.diags.push(
                    Diagnostic::new(
                        codes::AML002,
                        self.doc.nodes[e.key.index()].span,
                        format!(
                            "duplicate key `{name}`: the Azure ML SDK silently keeps only this last value"
                        ),
                    )
                    .with_label(
                        self.doc.nodes[first.index()].span,
                        format!("`{name}` first defined here"),
                    )
                    .with_help("Remove one of the two entries, or merge them into one."),
                );
            } else {
                seen.insert(name, e.key);
            }
        }
    }

    /// Reads a string starting at the opening quote; leaves `pos` after the closing one.
    fn string(&mut self) -> Result<String, Stop> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(&b) = self.bytes.get(self.pos) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                None => {
                    self.pos = open;
                    return Err(self.error("Unterminated string starting at"));
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let esc = self.bytes.get(self.pos + 1).copied();
                    self.pos += 2;
                    match esc {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&hi)
                                && self.text[self.pos..].starts_with("\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                                } else {
                                    self.pos = save;
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            // Python keeps lone surrogates; Rust strings cannot.
                            out.push(c.unwrap_or('\u{fffd}'));
                        }
                        _ => {
                            self.pos -= 2;
                            return Err(self.error("Invalid \\escape"));
                        }
                    }
                }
                Some(_) => return Err(self.error("Invalid control character at")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Stop> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        match digits.and_then(|d| u32::from_str_radix(d, 16).ok()) {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => {
                self.pos -= 2;
                Err(self.error("Invalid \\uXXXX escape"))
            }
        }
    }

    fn number(&mut self) -> Result<NodeId, Stop> {
        let start = self.pos;
        if self.text[start..].starts_with("-Infinity") {
            self.pos += 9;
            return Ok(self.push_node(
                Value::Float(f64::NEG_INFINITY),
                Span::new(start as u32, self.pos as u32),
                Style::Json,
            ));
        }
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    self.pos += 1;
                }
            }
            _ => {
                self.pos = start;
                return Err(self.error("Expecting value"));
            }
        }
        let mut float = false;
        if self.peek() == Some(b'.') && self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit) {
            float = true;
            self.pos += 1;
            while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                float = true;
                while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        let text = &self.text[start..self.pos];
        let value = if float {
            Value::Float(text.parse().unwrap_or(f64::NAN))
        } else {
            match text.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => Value::BigInt(text.into()),
            }
        };
        Ok(self.push_node(value, Span::new(start as u32, self.pos as u32), Style::Json))
    }

    fn literal(&mut self) -> Result<NodeId, Stop> {
        let rest = &self.text[self.pos..];
        let (len, value) = if rest.starts_with("true") {
            (4, Value::Bool(true))
        } else if rest.starts_with("false") {
            (5, Value::Bool(false))
        } else if rest.starts_with("null") {
            (4, Value::Null)
        } else if rest.starts_with("NaN") {
            (3, Value::Float(f64::NAN))
        } else if rest.starts_with("Infinity") {
            (8, Value::Float(f64::INFINITY))
        } else {
            return Err(self.error("Expecting value"));
        };
        let start = self.pos as u32;
        self.pos += len;
        Ok(self.push_node(value, Span::new(start, self.pos as u32), Style::Json))
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::document::Target;
    use crate::source::Pointer;

    fn load(text: &str) -> (Vec<Document>, Vec<Diagnostic>) {
        let mut diags = Findings::new(usize::MAX);
        let docs = parse(text, 0, &Limits::default(), &mut diags);
        (docs, diags.into_parts().0)
    }

    #[test]
    fn values_and_spans() {
        let text = r#"{"computeType": "ACI", "containerResourceRequirements": {"cpu": 0.5, "memoryInGB": 1}, "big": 123456789012345678901234, "s": "a\u00e9\ud83d\ude00"}"#;
        let (docs, diags) = load(text);
        assert!(diags.is_empty(), "{diags:?}");
        let doc = &docs[0];
        let span = doc.span_of(
            &Pointer::parse("/containerResourceRequirements/memoryInGB"),
            Target::Key,
        );
        assert_eq!(&text[span.range()], "\"memoryInGB\"");
        let span = doc.span_of(
            &Pointer::parse("/containerResourceRequirements/cpu"),
            Target::Value,
        );
        assert_eq!(&text[span.range()], "0.5");
        let json = doc.to_json();
        assert_eq!(json["s"], "aé😀");
        assert_eq!(json["computeType"], "ACI");
    }

    #[test]
    fn python_errors() {
        for (text, msg) in [
            ("{\"a\": 1,}", "Expecting property name"),
            ("{\"a\" 1}", "Expecting ':' delimiter"),
            ("[1 2]", "Expecting ',' delimiter"),
            ("{\"a\": 1} x", "Extra data"),
            ("{\"a\": tru}", "Expecting value"),
            ("{\"a\": \"x", "Unterminated string"),
            ("// c\n{}", "Expecting value"),
        ] {
            let (_, diags) = load(text);
            assert_eq!(diags.len(), 1, "{text}");
            assert!(diags[0].message.contains(msg), "{text}: {}", diags[0].message);
            assert_eq!(diags[0].code, "AML001");
        }
    }

    #[test]
    fn duplicates_and_nan() {
        let (docs, diags) = load("{\"a\": NaN, \"a\": -Infinity}");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, "AML002");
        assert!(
            matches!(docs[0].value(docs[0].get(docs[0].root.unwrap(), "a").unwrap()), Value::Float(f) if f.is_infinite())
        );
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text = "[".repeat(100_000);
        let (_, diags) = load(&text);
        assert_eq!(diags[0].code, "AML005");
    }

    #[test]
    fn blank_input_has_no_document() {
        assert!(load("  \n").0.is_empty());
    }
}
