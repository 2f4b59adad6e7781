//! The document tree: every key and value of a YAML or JSON document with its byte span,
//! holding the values the Azure ML CLI sees (YAML 1.1 scalar resolution, PyYAML merge-key
//! semantics, last duplicate wins).
//!
//! Nodes live in an arena ([`Document::nodes`]) and refer to each other by [`NodeId`].
//! An alias is a node of its own ([`Value::Alias`]) that points at its anchor's node, so
//! anchors are never copied; lookups see through aliases.

pub mod json;
mod node;
pub mod python;

pub mod yaml;
pub mod yaml11;

use std::collections::HashMap;

use crate::diagnostic::codes;
use crate::source::Pointer;
use crate::source::Span;
pub use node::{Entry, Node, NodeId, Style, Value};

/// One YAML document (or the one JSON value) of a file.
#[derive(Clone, Debug, Default)]
pub struct Document {
    pub nodes: Vec<Node>,
    /// `None` for a document cut short before its content (a syntax error). An explicit
    /// document without content (`---` alone) holds a null node, as PyYAML reads it;
    /// a file of comments and blank lines holds no document at all.
    pub root: Option<NodeId>,
    /// Where the document's content starts and ends in the file.
    pub span: Span,
    /// Plain scalars that YAML 1.1 and YAML 1.2 read differently (input to AML003).
    pub yaml11_notes: Vec<yaml11::Note>,
    /// The document was cut short by a syntax error or a limit (the tree holds what
    /// came before), or holds a construct PyYAML refuses to load (AML001). Either way the
    /// Azure ML CLI cannot load it, so it is not schema-checked.
    pub partial: bool,
    /// Aliases expand beyond the limit (AML005): the tree is kept for classification,
    /// but nothing may expand it ([`Document::to_json`] gives `null`).
    pub alias_overflow: bool,
    /// For mappings of more than [`INDEXED_MAP`] entries: where each key is written.
    /// Built on the first lookup, so that resolving one finding per key of a 20,000-key
    /// mapping is not quadratic.
    key_index: std::sync::OnceLock<HashMap<NodeId, KeyIndex>>,
    /// The nodes also reached through an alias or a `<<` merge key
    /// ([`Document::is_shared`]), found on the first question.
    shared: std::sync::OnceLock<Vec<bool>>,
}

/// Mappings with more entries than this get a key index ([`Document::get_entry`]).
const INDEXED_MAP: usize = 32;

/// The entries of one large mapping by key.
#[derive(Clone, Debug, Default)]
struct KeyIndex {
    /// Key → positions of its first and last entries (the last is the one the CLI keeps).
    ends: HashMap<String, (u32, u32)>,
    /// For each entry, the position of the next entry with the same key (`u32::MAX`:
    /// none), so that every entry of a repeated key is found without a scan.
    next_same: Vec<u32>,
}

impl KeyIndex {
    fn kept(&self, key: &str) -> Option<usize> {
        self.ends.get(key).map(|&(_, last)| last as usize)
    }

    /// The positions of the entries written under `key`, in text order.
    fn positions(&self, key: &str) -> impl Iterator<Item = usize> + '_ {
        let first = self.ends.get(key).map_or(u32::MAX, |&(first, _)| first);
        std::iter::successors((first != u32::MAX).then_some(first), |&i| {
            Some(self.next_same[i as usize]).filter(|&n| n != u32::MAX)
        })
        .map(|i| i as usize)
    }
}

/// What a pointer lookup points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The key of the last segment (for mapping entries), else the value.
    Key,
    Value,
}

impl Document {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Follows aliases to the node that holds the content.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        // Aliases only point backwards at finished nodes, so this terminates; the bound
        // is a belt for malformed trees built by hand.
        for _ in 0..64 {
            match self.nodes[id.index()].value {
                Value::Alias(target) => id = target,
                _ => return id,
            }
        }
        id
    }

    /// The node's value, seen through aliases.
    pub fn value(&self, id: NodeId) -> &Value {
        &self.nodes[self.resolve(id).index()].value
    }

    pub fn root_value(&self) -> Option<&Value> {
        self.root.map(|r| self.value(r))
    }

    /// The effective entries of a mapping (merged ones first, then written ones; when a
    /// key repeats, the last entry is the one the CLI keeps).
    pub fn entries(&self, id: NodeId) -> &[Entry] {
        match self.value(id) {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    pub fn items(&self, id: NodeId) -> &[NodeId] {
        match self.value(id) {
            Value::Seq(items) => items,
            _ => &[],
        }
    }

    /// The string a mapping key stands for, as Python would print the key (`True`,
    /// `1`, `None` for non-string keys).
    pub fn key_string(&self, key: NodeId) -> std::borrow::Cow<'_, str> {
        match self.value(key) {
            Value::Str(s) | Value::Timestamp(s) => std::borrow::Cow::Borrowed(s),
            other => std::borrow::Cow::Owned(yaml11::python_str(other)),
        }
    }

    /// The entry the CLI keeps for `key` in the mapping `map` (the last one).
    pub fn get_entry(&self, map: NodeId, key: &str) -> Option<Entry> {
        let entries = self.entries(map);
        if let Some(keys) = self.large_map_index(map, entries) {
            return keys.kept(key).map(|i| entries[i]);
        }
        entries
            .iter()
            .rev()
            .find(|e| self.key_string(e.key) == key)
            .copied()
    }

    /// The key index of `map`, a mapping of `entries`, when it has more than
    /// [`INDEXED_MAP`] of them (the caller has them at hand: `get_entry` is hot).
    fn large_map_index(&self, map: NodeId, entries: &[Entry]) -> Option<&KeyIndex> {
        if entries.len() <= INDEXED_MAP {
            return None;
        }
        self.key_index
            .get_or_init(|| self.build_key_index())
            .get(&self.resolve(map))
    }

    fn build_key_index(&self) -> HashMap<NodeId, KeyIndex> {
        let mut index = HashMap::new();
        for (i, node) in self.nodes.iter().enumerate() {
            if let Value::Map(entries) = &node.value {
                if entries.len() > INDEXED_MAP {
                    let mut keys = KeyIndex {
                        ends: HashMap::with_capacity(entries.len()),
                        next_same: vec![u32::MAX; entries.len()],
                    };
                    for (j, e) in entries.iter().enumerate() {
                        // Later entries win, as in the CLI. (A document has fewer than
                        // 2^32 nodes: the loader's limits stop it long before.)
                        let j = j as u32;
                        let (_, last) = keys
                            .ends
                            .entry(self.key_string(e.key).into_owned())
                            .or_insert((j, j));
                        if *last != j {
                            keys.next_same[*last as usize] = j;
                            *last = j;
                        }
                    }
                    index.insert(NodeId(i as u32), keys);
                }
            }
        }
        index
    }

    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        self.get_entry(map, key).map(|e| e.value)
    }

    /// The entries the CLI keeps of the mapping `map`, as (key, value): of a repeated key
    /// (merged entries come first, written ones after them) the last entry, in the order
    /// of those entries. Keys are borrowed; a large mapping uses the key index.
    pub fn kept_entries(&self, map: NodeId) -> Vec<(std::borrow::Cow<'_, str>, NodeId)> {
        let entries = self.entries(map);
        if let Some(keys) = self.large_map_index(map, entries) {
            return entries
                .iter()
                .enumerate()
                .filter_map(|(j, e)| {
                    let key = self.key_string(e.key);
                    (keys.kept(key.as_ref()) == Some(j)).then_some((key, e.value))
                })
                .collect();
        }
        let mut kept: Vec<(std::borrow::Cow<'_, str>, NodeId)> = Vec::with_capacity(entries.len());
        for e in entries.iter().rev() {
            let key = self.key_string(e.key);
            if !kept.iter().any(|(k, _)| *k == key) {
                kept.push((key, e.value));
            }
        }
        kept.reverse();
        kept
    }

    /// The node one pointer segment below `id`: the value the CLI keeps for a mapping's
    /// key (with the entry's key node), or a sequence's item by index.
    fn step(&self, id: NodeId, segment: &str) -> Option<(Option<NodeId>, NodeId)> {
        match self.value(id) {
            Value::Map(_) => self.get_entry(id, segment).map(|e| (Some(e.key), e.value)),
            Value::Seq(items) => Some((None, *items.get(segment.parse::<usize>().ok()?)?)),
            _ => None,
        }
    }

    /// The node one pointer segment below `id` (see [`Document::lookup`]).
    pub fn child(&self, id: NodeId, segment: &str) -> Option<NodeId> {
        self.step(id, segment).map(|(_, value)| value)
    }

    /// A top-level string value (`type`, `$schema`, `name`...).
    pub fn top_str(&self, key: &str) -> Option<&str> {
        let id = self.get(self.root?, key)?;
        match self.value(id) {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Walks a JSON pointer; returns the entry (for a mapping step) or node reached.
    pub fn lookup(&self, pointer: &Pointer) -> Option<Located> {
        let mut current = self.root?;
        let mut key = None;
        for segment in pointer.segments() {
            (key, current) = self.step(current, segment)?;
        }
        Some(Located { key, value: current })
    }

    /// Whether the node `id` is also reached through an alias or a `<<` merge key: an
    /// alias's target, a key or value a merge brings into another mapping, or anything
    /// inside one. Editing such a node changes the data in more than one place.
    pub fn is_shared(&self, id: NodeId) -> bool {
        let shared = self.shared.get_or_init(|| {
            let mut shared = vec![false; self.nodes.len()];
            let mark = |id: NodeId, shared: &mut Vec<bool>| {
                if let Some(s) = shared.get_mut(id.index()) {
                    *s = true;
                }
            };
            for node in &self.nodes {
                match &node.value {
                    Value::Alias(target) => mark(*target, &mut shared),
                    Value::Map(entries) => {
                        for e in entries.iter().filter(|e| e.merged) {
                            mark(e.key, &mut shared);
                            mark(e.value, &mut shared);
                        }
                    }
                    _ => {}
                }
            }
            // Children have smaller ids than their parents: one backward pass carries a
            // mark down to everything below.
            for i in (0..self.nodes.len()).rev() {
                if !shared[i] {
                    continue;
                }
                match &self.nodes[i].value {
                    Value::Map(entries) => {
                        for e in entries {
                            mark(e.key, &mut shared);
                            mark(e.value, &mut shared);
                        }
                    }
                    Value::Seq(items) => {
                        for &item in items {
                            mark(item, &mut shared);
                        }
                    }
                    _ => {}
                }
            }
            shared
        });
        shared.get(id.index()).copied().unwrap_or(true)
    }

    /// [`Document::lookup`] through written entries only: `None` when a step goes through
    /// an alias or an entry a `<<` merge key brings in, or reaches a node also reached
    /// that way ([`Document::is_shared`]). What a fix may edit.
    pub fn lookup_own(&self, pointer: &Pointer) -> Option<Located> {
        let mut current = self.root?;
        let mut key = None;
        for segment in pointer.segments() {
            if self.is_shared(current) || matches!(self.node(current).value, Value::Alias(_)) {
                return None;
            }
            match &self.node(current).value {
                Value::Map(_) => {
                    let entry = self.get_entry(current, segment)?;
                    if entry.merged {
                        return None;
                    }
                    (key, current) = (Some(entry.key), entry.value);
                }
                Value::Seq(items) => {
                    (key, current) = (None, *items.get(segment.parse::<usize>().ok()?)?);
                }
                _ => return None,
            }
        }
        let own = |id: NodeId| !self.is_shared(id) && !matches!(self.node(id).value, Value::Alias(_));
        (own(current) && key.is_none_or(own)).then_some(Located { key, value: current })
    }

    /// The key nodes of the entries written in the mapping that holds the entry at
    /// `pointer` under its key (more than one when the key is repeated: the CLI keeps the
    /// last), in text order; `None` unless the entry is one the document owns
    /// ([`Document::lookup_own`]). What renaming or removing a key edits.
    pub fn written_keys(&self, pointer: &Pointer) -> Option<Vec<NodeId>> {
        self.lookup_own(pointer)?.key?;
        let key = pointer.last()?;
        let mut parent = pointer.clone();
        parent.pop();
        let map = self.lookup_own(&parent)?.value;
        let entries = self.entries(map);
        let written = |e: &&Entry| !e.merged;
        let keys: Vec<NodeId> = match self.large_map_index(map, entries) {
            Some(index) => index
                .positions(key)
                .map(|i| &entries[i])
                .filter(written)
                .map(|e| e.key)
                .collect(),
            None => entries
                .iter()
                .filter(|e| written(e) && self.key_string(e.key) == key)
                .map(|e| e.key)
                .collect(),
        };
        (!keys.is_empty()).then_some(keys)
    }

    /// The span of a pointer's key or value; falls back to the value when there is no
    /// key, and to the nearest existing ancestor when the pointer leads nowhere.
    pub fn span_of(&self, pointer: &Pointer, target: Target) -> Span {
        let mut p = pointer.clone();
        loop {
            if let Some(found) = self.lookup(&p) {
                return match (target, found.key) {
                    (Target::Key, Some(k)) => self.node(k).span,
                    _ => self.node(found.value).span,
                };
            }
            if !p.pop() {
                return self.span;
            }
        }
    }

    /// What the document holds once every alias (and merge key) is expanded — (nodes, bytes
    /// of keys and strings) of its root — or the limit it exceeds: more than `max_nodes` nodes, more than `max_bytes` bytes of keys and strings
    /// (the text of the values that expansion produces: a 1 MB string aliased 1,000
    /// times is 1 GB), or collections nested deeper than `max_depth` levels (an alias
    /// nests its anchor's whole content where it stands). Computed bottom-up in
    /// `O(nodes)`, so what reads the expanded tree (`to_json`, the validators) recurses at
    /// most `max_depth` levels and makes at most `max_bytes` of text, whatever the input.
    pub fn expansion(
        &self,
        max_nodes: u64,
        max_bytes: u64,
        max_depth: usize,
    ) -> Result<(u64, u64), Expansion> {
        // (nodes, bytes, depth) of each node once expanded.
        let mut size = vec![(0u64, 0u64, 0usize); self.nodes.len()];
        let mut has_alias = false;
        // Children always have smaller ids than their parents and anchors than their
        // aliases, so one forward pass sees every dependency first.
        for (i, node) in self.nodes.iter().enumerate() {
            let add = |(n, b, d): (u64, u64, usize), c: NodeId| {
                let (cn, cb, cd) = size[c.index()];
                (n.saturating_add(cn), b.saturating_add(cb), d.max(1 + cd))
            };
            let (n, b, d) = match &node.value {
                Value::Seq(items) => items.iter().fold((1, 0, 1), |acc, &c| add(acc, c)),
                Value::Map(entries) => entries
                    .iter()
                    .fold((1, 0, 1), |acc, e| add(add(acc, e.key), e.value)),
                Value::Alias(target) => {
                    has_alias = true;
                    size[target.index()]
                }
                Value::Str(s) | Value::Timestamp(s) | Value::BigInt(s) => (1, s.len() as u64, 0),
                _ => (1, 0, 0),
            };
            if n > max_nodes {
                return Err(Expansion::Nodes { aliases: has_alias });
            }
            if b > max_bytes {
                return Err(Expansion::Bytes { aliases: has_alias });
            }
            if d > max_depth {
                return Err(Expansion::Depth);
            }
            size[i] = (n, b, d);
        }
        Ok(self
            .root
            .map_or((0, 0), |r| (size[r.index()].0, size[r.index()].1)))
    }

    /// The JSON value the Azure ML SDK would validate (aliases expanded, merge keys
    /// applied, the last duplicate kept, non-string keys printed as Python prints them).
    /// `null` when the aliases expand beyond the limit ([`Document::alias_overflow`]).
    pub fn to_json(&self) -> serde_json::Value {
        match self.root {
            Some(root) if !self.alias_overflow => self.node_to_json(root),
            _ => serde_json::Value::Null,
        }
    }

    pub fn node_to_json(&self, id: NodeId) -> serde_json::Value {
        use serde_json::Value as J;
        match self.value(id) {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::BigInt(s) => {
                serde_json::Number::from_f64(Value::big_int_f64(s)).map_or(J::Null, J::Number)
            }
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or_else(
                // NaN and infinities have no JSON form; keep them visible as text.
                || J::String(yaml11::python_str(&Value::Float(*f))),
                J::Number,
            ),
            Value::Str(s) | Value::Timestamp(s) => J::String(s.to_string()),
            Value::Seq(items) => J::Array(items.iter().map(|c| self.node_to_json(*c)).collect()),
            Value::Map(entries) => {
                let mut map = serde_json::Map::with_capacity(entries.len());
                for e in entries {
                    map.insert(self.key_string(e.key).into_owned(), self.node_to_json(e.value));
                }
                J::Object(map)
            }
            // value() resolves aliases; an alias chain longer than its bound is malformed.
            Value::Alias(_) => J::Null,
        }
    }
}

/// Where the block scalars (`|`, `>`) of some documents end, for edits made next to one:
/// blank lines after a block that keeps its final line breaks (`|+`, `>+`) are part of its
/// value, and so is a line break added after a block that ends the file without one.
#[derive(Debug, Default)]
pub struct BlockEnds {
    /// The end of each block scalar's text (a node's span), and whether it keeps its
    /// final line breaks; sorted.
    ends: Vec<(u32, bool)>,
}

impl BlockEnds {
    pub fn new<'d>(text: &str, documents: impl IntoIterator<Item = &'d Document>) -> Self {
        let mut ends = Vec::new();
        for doc in documents {
            for node in &doc.nodes {
                if matches!(node.style, Style::Literal | Style::Folded) {
                    // The header: the indicator, then at most a chomping and an indentation
                    // indicator.
                    let header = text.get(node.span.range()).unwrap_or_default();
                    let keep = header.bytes().skip(1).take(2).any(|b| b == b'+');
                    ends.push((node.span.end, keep));
                }
            }
        }
        ends.sort_unstable();
        Self { ends }
    }

    fn at(&self, offset: u32) -> Option<bool> {
        let i = self.ends.partition_point(|(e, _)| *e < offset);
        self.ends
            .get(i)
            .filter(|(e, _)| *e == offset)
            .map(|(_, keep)| *keep)
    }

    /// Whether the text before `at` is a block scalar keeping its final line breaks, then
    /// whitespace only: lines removed at `at` would join the blank lines after them to its
    /// value.
    pub fn keeps_before(&self, text: &str, at: usize) -> bool {
        let before = text.get(..at).unwrap_or_default();
        let end = before.trim_end_matches(|c: char| c.is_ascii_whitespace()).len();
        self.at(end as u32) == Some(true)
    }

    /// Whether a line added after the text ending at `end` would change a block scalar
    /// that ends there: one that keeps its final line breaks, or one with no line break
    /// after it (the end of the file).
    pub fn changed_by_line_after(&self, text: &str, end: usize) -> bool {
        match self.at(end as u32) {
            Some(true) => true,
            Some(false) => !text[end..].contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']),
            None => false,
        }
    }
}

/// The end of the blank lines (spaces and tabs only, each with its line break, or up to
/// the end of the text) starting at `at`, a line start.
pub fn after_blank_lines(text: &str, mut at: usize) -> usize {
    loop {
        let rest = &text[at..];
        let blank = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        let brk = crate::source::yaml_break_len(text, at + blank);
        if brk > 0 {
            at += blank + brk;
        } else if at + blank == text.len() {
            return text.len();
        } else {
            return at;
        }
    }
}

/// AML005 for a file whose documents have more nodes than [`crate::limits::Limits::max_nodes`], at the
/// node where the parse stopped.
pub(crate) fn too_many_nodes(
    span: crate::source::Span,
    limits: &crate::limits::Limits,
) -> crate::diagnostic::Diagnostic {
    crate::diagnostic::Diagnostic::new(
        codes::AML005,
        span,
        format!(
            "this file has more than {} nodes (the node limit of a file: keys, values and list items counted one by one)",
            limits.max_nodes
        ),
    )
    .with_help("No Azure ML configuration is this large; keep data out of configuration files (a data asset, or a file the configuration references). The rest of the file was not read.")
}

/// Which limit a document exceeds once its aliases are expanded
/// ([`Document::expansion`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expansion {
    /// More nodes than allowed; `aliases` says whether aliases contributed (a "billion
    /// laughs") or the document is simply that large.
    Nodes { aliases: bool },
    /// More bytes of keys and strings than allowed, as [`Expansion::Nodes`].
    Bytes { aliases: bool },
    /// Collections nested deeper than allowed through aliases.
    Depth,
}

/// The result of a pointer lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    /// The key node, when the last step went through a mapping.
    pub key: Option<NodeId>,
    pub value: NodeId,
}

impl Document {
    /// The JSON pointers of the nodes whose span is one of `spans` (keys and values of
    /// mapping entries, items of lists), found in one walk of the tree.
    pub fn pointers_for(
        &self,
        spans: &std::collections::HashSet<crate::source::Span>,
    ) -> std::collections::HashMap<crate::source::Span, Pointer> {
        let mut found = std::collections::HashMap::new();
        let Some(root) = self.root else {
            return found;
        };
        let mut stack = vec![(root, Pointer::root())];
        while let Some((id, pointer)) = stack.pop() {
            if found.len() == spans.len() {
                break;
            }
            // Aliases are not followed: their content is visited where the anchor is.
            match &self.node(id).value {
                Value::Map(entries) => {
                    for e in entries.iter().filter(|e| !e.merged) {
                        let child = pointer.child(self.key_string(e.key));
                        for span in [self.node(e.key).span, self.node(e.value).span] {
                            if spans.contains(&span) {
                                found.entry(span).or_insert_with(|| child.clone());
                            }
                        }
                        stack.push((e.value, child));
                    }
                }
                Value::Seq(items) => {
                    for (i, &item) in items.iter().enumerate() {
                        let child = pointer.child(i.to_string());
                        let span = self.node(item).span;
                        if spans.contains(&span) {
                            found.entry(span).or_insert_with(|| child.clone());
                        }
                        stack.push((item, child));
                    }
                }
                _ => {}
            }
        }
        found
    }
}
