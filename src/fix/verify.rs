//! Fixes verified before they are written: the fixed text is read again with the reader
//! of every check, and its data — the values the Azure ML CLI reads (YAML 1.1 scalars,
//! merge keys applied, the last duplicate kept) — must be the original's, changed only
//! as the fixes declare ([`Change`]): a key renamed, an entry removed, a value set. A
//! change elsewhere (a key after a line separator deleted with a comment, a block
//! scalar's trailing lines moved, an anchored mapping edited through a `<<` key), a
//! document more or less, or a text that no longer reads, and the fixes are refused. So
//! is a fix that declares a change to a node also reached through an alias or a merge
//! key ([`Document::lookup_own`]): editing it would change the data in several places.
//!
//! Documents are compared by digest: each node's digest is computed bottom-up, once, from
//! its value and its children's digests (aliases take their target's; a mapping's is
//! independent of key order, as Python compares dictionaries), so a comparison costs time
//! linear in the nodes, however far the aliases expand. Digests are 128 bits of two
//! SipHash functions with random keys: an input cannot be made to collide.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasher, Hash, RandomState};

use crate::diagnostic::{Change, Fix, NewValue};
use crate::document::{Document, NodeId, Value};
use crate::limits::Limits;
use crate::load::{Format, LoadedFile};
use crate::source::{Pointer, Span};

/// Why fixes were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unverified {
    /// The fixed text does not read as the same number of documents, or one that read
    /// completely no longer does.
    Unreadable,
    /// The data changed at `at` in document `doc` (0-based), where no fix says it does.
    Changed { doc: usize, at: Pointer },
    /// The data at `at`, which a fix changes, is not what the fix says it becomes (a
    /// removed key still there, a value that reads otherwise).
    NotAsDeclared { doc: usize, at: Pointer },
    /// A fix changes the node at `at`, which is also reached through an alias or a `<<`
    /// merge key, or is not there to change.
    NotOwn { doc: usize, at: Pointer },
    /// Two fixes change the same value differently.
    Conflict { doc: usize, at: Pointer },
}

impl Unverified {
    /// Why, for a person: "it would also change `/tags/team`".
    pub fn describe(&self, documents: usize) -> String {
        let place = |doc: usize, at: &Pointer| {
            let at = if at.is_empty() {
                "/".to_string()
            } else {
                at.to_string()
            };
            let at = crate::escape::control(&at).into_owned();
            if documents > 1 {
                format!("`{at}` of document {}", doc + 1)
            } else {
                format!("`{at}`")
            }
        };
        match self {
            Unverified::Unreadable => "the fixed file would no longer read as the same documents".to_string(),
            Unverified::Changed { doc, at } => {
                format!("it would also change {}, which it does not name", place(*doc, at))
            }
            Unverified::NotAsDeclared { doc, at } => format!(
                "{} would not read as the fix says (removed, renamed or set as written)",
                place(*doc, at)
            ),
            Unverified::NotOwn { doc, at } => format!(
                "{} is also reached through an alias or a `<<` merge key (or is not there): editing it would change more than the finding",
                place(*doc, at)
            ),
            Unverified::Conflict { doc, at } => {
                format!("another fix changes {} differently", place(*doc, at))
            }
        }
    }
}

/// 128 bits of a value's data.
type Digest = [u64; 2];

/// The digest functions: two SipHash keys drawn for one verification, shared by the texts
/// it compares.
pub struct Hashing {
    a: RandomState,
    b: RandomState,
}

impl Default for Hashing {
    fn default() -> Self {
        Self {
            a: RandomState::new(),
            b: RandomState::new(),
        }
    }
}

impl Hashing {
    fn of<T: Hash>(&self, t: T) -> Digest {
        [self.a.hash_one(&t), self.b.hash_one(&t)]
    }

    /// The digest of every node of `doc`, by id; `None` for a tree whose children do not
    /// come before their parents (never made by the readers).
    fn nodes(&self, doc: &Document) -> Option<Vec<Digest>> {
        let mut out: Vec<Digest> = Vec::with_capacity(doc.nodes.len());
        for (i, node) in doc.nodes.iter().enumerate() {
            let below = |id: NodeId| out.get(id.index()).copied().filter(|_| id.index() < i);
            let d = match &node.value {
                Value::Null => self.of(0u8),
                Value::Bool(b) => self.of((1u8, *b)),
                Value::Int(v) => self.of((2u8, *v)),
                Value::BigInt(s) => self.of((3u8, &**s)),
                Value::Float(f) => {
                    // As Python compares floats: -0.0 == 0.0; every NaN alike.
                    let bits = if f.is_nan() {
                        u64::MAX
                    } else if *f == 0.0 {
                        0
                    } else {
                        f.to_bits()
                    };
                    self.of((4u8, bits))
                }
                Value::Str(s) => self.of((5u8, &**s)),
                Value::Timestamp(s) => self.of((6u8, &**s)),
                Value::Seq(items) => {
                    let items: Option<Vec<Digest>> = items.iter().map(|&c| below(c)).collect();
                    self.of((7u8, items?))
                }
                Value::Map(_) => {
                    let mut sum: Digest = [0, 0];
                    let kept = doc.kept_entries(NodeId(i as u32));
                    for (key, value) in &kept {
                        let e = self.of((8u8, key.as_ref(), below(*value)?));
                        sum = [sum[0].wrapping_add(e[0]), sum[1].wrapping_add(e[1])];
                    }
                    self.of((9u8, sum, kept.len()))
                }
                Value::Alias(target) => below(*target)?,
            };
            out.push(d);
        }
        Some(out)
    }
}

/// A text's documents with their digests.
pub struct Read<'a> {
    pub loaded: Cow<'a, LoadedFile>,
    digests: Vec<Option<Vec<Digest>>>,
}

impl<'a> Read<'a> {
    pub fn new(hashing: &Hashing, loaded: Cow<'a, LoadedFile>) -> Self {
        let digests = loaded.documents.iter().map(|d| hashing.nodes(d)).collect();
        Self { loaded, digests }
    }

    /// Reads `text` as the file `display` (its format from its name, as a run does).
    pub fn text(hashing: &Hashing, display: &str, text: String, limits: &Limits) -> Read<'static> {
        let format = Format::for_path(display);
        let loaded = crate::load::parse_text(display, text, format, limits);
        Read::new(hashing, Cow::Owned(loaded))
    }

    /// The document a finding at `offset` belongs to (as the pipeline attaches findings
    /// to documents), if any.
    fn document_at(&self, offset: u32) -> Option<usize> {
        self.loaded
            .documents
            .iter()
            .position(|d| d.span.start <= offset && offset <= d.span.end.max(d.span.start))
    }
}

/// A fix to verify, with where its finding is (which document its pointers are in).
#[derive(Clone, Copy)]
pub struct Proposed<'a> {
    pub finding: Span,
    pub fix: &'a Fix,
}

/// Checks that `after` (the text of `before` with `fixes` applied) holds the data of
/// `before` changed only as the fixes declare, and that no fix changes a node also
/// reached through an alias or a merge key.
pub fn verify(
    hashing: &Hashing,
    before: &Read<'_>,
    after: &Read<'_>,
    fixes: &[Proposed<'_>],
    limits: &Limits,
) -> Result<(), Unverified> {
    let docs = &before.loaded.documents;
    if docs.len() != after.loaded.documents.len() {
        return Err(Unverified::Unreadable);
    }
    // The changes of each document, as a tree of pointers.
    let mut trees: Vec<Tree<'_>> = (0..docs.len()).map(|_| Tree::default()).collect();
    for p in fixes {
        if p.fix.changes.is_empty() {
            continue;
        }
        let Some(doc) = before.document_at(p.finding.start) else {
            let at = p.fix.changes[0].at().clone();
            return Err(Unverified::NotOwn { doc: 0, at });
        };
        for change in &p.fix.changes {
            own(&docs[doc], change).map_err(|at| Unverified::NotOwn { doc, at })?;
            trees[doc]
                .insert(change)
                .map_err(|at| Unverified::Conflict { doc, at })?;
        }
    }
    let format = Format::for_path(&before.loaded.source.path);
    for (i, tree) in trees.iter().enumerate() {
        let (b, a) = (&docs[i], &after.loaded.documents[i]);
        if a.partial && !b.partial {
            return Err(Unverified::Unreadable);
        }
        let (Some(db), Some(da)) = (&before.digests[i], &after.digests[i]) else {
            return Err(Unverified::Unreadable);
        };
        let cmp = Compare {
            hashing,
            b,
            db,
            a,
            da,
            format,
            limits,
        };
        cmp.document(tree).map_err(|miss| match miss.declared {
            true => Unverified::NotAsDeclared { doc: i, at: miss.at },
            false => Unverified::Changed { doc: i, at: miss.at },
        })?;
    }
    Ok(())
}

/// Whether `change` names a node its document owns: reached through written entries,
/// and not also through an alias or a merge key. Else the pointer, as the error.
fn own(doc: &Document, change: &Change) -> Result<(), Pointer> {
    let at = change.at();
    let refused = || Err(at.clone());
    if at.is_empty() {
        return refused();
    }
    match change {
        Change::Rename { .. } | Change::Remove { .. } => match doc.lookup_own(at) {
            Some(found) if found.key.is_some() => Ok(()),
            _ => refused(),
        },
        Change::Set { .. } => {
            if doc.lookup_own(at).is_some() {
                return Ok(());
            }
            // Added to a mapping of the document's own: a new key, or one that overrides
            // a key a merge brings in.
            let mut parent = at.clone();
            parent.pop();
            let key = at.last().unwrap_or_default();
            match doc.lookup_own(&parent) {
                Some(found) if matches!(doc.node(found.value).value, Value::Map(_)) => {
                    match doc.get_entry(found.value, key) {
                        None => Ok(()),
                        Some(e) if e.merged => Ok(()),
                        Some(_) => refused(),
                    }
                }
                _ => refused(),
            }
        }
    }
}

/// The changes of one document by pointer: at each node, the change made there and the
/// changes below it.
#[derive(Default)]
struct Tree<'a> {
    change: Option<&'a Change>,
    children: BTreeMap<&'a str, Tree<'a>>,
}

impl<'a> Tree<'a> {
    /// Adds `change`; the pointer where it conflicts with another (two different changes
    /// of one node, or a change below a value that is set).
    fn insert(&mut self, change: &'a Change) -> Result<(), Pointer> {
        let mut node = self;
        for segment in change.at().segments() {
            if matches!(node.change, Some(Change::Set { .. })) {
                return Err(change.at().clone());
            }
            node = node.children.entry(segment).or_default();
        }
        let set = matches!(change, Change::Set { .. });
        match node.change {
            None if set && !node.children.is_empty() => Err(change.at().clone()),
            None => {
                node.change = Some(change);
                Ok(())
            }
            Some(c) if c == change => Ok(()),
            Some(_) => Err(change.at().clone()),
        }
    }
}

/// Where the fixed text's data is not what was expected: at a node a fix names
/// (`declared`), or elsewhere.
struct Miss {
    at: Pointer,
    declared: bool,
}

impl Miss {
    /// A difference a change declares (but not as it is).
    fn declared(at: Pointer) -> Self {
        Miss { at, declared: true }
    }

    /// A difference no change declares.
    fn undeclared(at: Pointer) -> Self {
        Miss { at, declared: false }
    }
}

/// What the fixed text must hold at a key of a mapping.
enum Expect<'a> {
    /// The original's value, changed below as the tree says.
    Value(NodeId, &'a Tree<'a>),
    /// The value a [`Change::Set`] writes.
    Set(&'a NewValue),
}

/// One document before and after, with their digests.
struct Compare<'a> {
    hashing: &'a Hashing,
    b: &'a Document,
    db: &'a [Digest],
    a: &'a Document,
    da: &'a [Digest],
    format: Format,
    limits: &'a Limits,
}

impl Compare<'_> {
    /// Compares the documents; the pointer of the first difference no change explains.
    fn document(&self, tree: &Tree<'_>) -> Result<(), Miss> {
        match (self.b.root, self.a.root) {
            (None, None) => Ok(()),
            (Some(b), Some(a)) => self.walk(b, a, tree),
            _ => Err(Miss::undeclared(Pointer::root())),
        }
    }

    fn same(&self, b: NodeId, a: NodeId) -> bool {
        self.db.get(b.index()).is_some() && self.db.get(b.index()) == self.da.get(a.index())
    }

    /// Where the data of `b` and `a` (at `at`), which differ, first differ: the deepest
    /// key or item whose value differs, or a key one of them lacks.
    fn difference(&self, mut b: NodeId, mut a: NodeId, mut at: Pointer) -> Pointer {
        loop {
            let next = match (self.b.value(b), self.a.value(a)) {
                (Value::Map(_), Value::Map(_)) => {
                    let before: HashMap<Cow<'_, str>, NodeId> = self.b.kept_entries(b).into_iter().collect();
                    let after = self.a.kept_entries(a);
                    if let Some((key, _)) = after.iter().find(|(k, _)| !before.contains_key(k)) {
                        return at.child(key);
                    }
                    let keys: HashSet<&str> = after.iter().map(|(k, _)| k.as_ref()).collect();
                    if let Some(key) = before.keys().find(|k| !keys.contains(k.as_ref())) {
                        return at.child(key);
                    }
                    after
                        .iter()
                        .find(|(k, v)| !self.same(before[k], *v))
                        .map(|(k, v)| (before[k], *v, k.to_string()))
                }
                (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => x
                    .iter()
                    .zip(y)
                    .enumerate()
                    .find(|(_, (b, a))| !self.same(**b, **a))
                    .map(|(i, (b, a))| (*b, *a, i.to_string())),
                _ => None,
            };
            match next {
                Some((nb, na, key)) => {
                    (b, a) = (nb, na);
                    at = at.child(key);
                }
                None => return at,
            }
        }
    }

    /// Whether the after node `a` holds `value`.
    fn holds(&self, a: NodeId, value: &NewValue) -> bool {
        match value {
            NewValue::AnyString => matches!(self.a.value(a), Value::Str(_)),
            NewValue::Source(text) => {
                let display = match self.format {
                    Format::Json => "value.json",
                    Format::Yaml => "value.yml",
                    // A script or template holds no data to compare.
                    Format::Text => return false,
                };
                let read = crate::load::parse_text(display, text.clone(), self.format, self.limits);
                let [doc] = read.documents.as_slice() else {
                    return false;
                };
                let (Some(root), Some(digests)) = (doc.root, self.hashing.nodes(doc)) else {
                    return false;
                };
                !doc.partial && Some(&digests[root.index()]) == self.da.get(a.index())
            }
        }
    }

    /// Walks the tree of changes from the nodes `b` (before) and `a` (after), without
    /// recursion: the pointer of the first difference no change explains.
    fn walk<'t>(&'t self, b: NodeId, a: NodeId, tree: &'t Tree<'t>) -> Result<(), Miss> {
        let mut stack: Vec<Pending<'t>> = vec![(b, a, tree, Pointer::root())];
        while let Some((b, a, tree, at)) = stack.pop() {
            if tree.children.is_empty() {
                if !self.same(b, a) {
                    return Err(Miss::undeclared(self.difference(b, a, at)));
                }
                continue;
            }
            match (self.b.value(b), self.a.value(a)) {
                (Value::Map(_), Value::Map(_)) => self.walk_map(b, a, tree, at, &mut stack)?,
                (Value::Seq(items_b), Value::Seq(items_a)) => {
                    self.walk_seq(items_b, items_a, tree, at, &mut stack)?
                }
                _ => return Err(Miss::undeclared(at)),
            }
        }
        Ok(())
    }

    /// Compares the mappings `b` and `a` (at `at`), which `tree` changes below: the after
    /// mapping must hold the keys expected ([`expected_entries`]) and no other, each with
    /// the value a change sets there, or a value to compare further (pushed on `stack`).
    fn walk_map<'t>(
        &'t self,
        b: NodeId,
        a: NodeId,
        tree: &'t Tree<'t>,
        at: Pointer,
        stack: &mut Vec<Pending<'t>>,
    ) -> Result<(), Miss> {
        let kept = self.b.kept_entries(b);
        let before: HashMap<&str, NodeId> = kept.iter().map(|(k, v)| (k.as_ref(), *v)).collect();
        let mut expected = expected_entries(&kept, &before, tree, &at)?;
        let after = self.a.kept_entries(a);
        if let Some((key, _)) = after.iter().find(|(k, _)| !expected.contains_key(k.as_ref())) {
            // Still there although removed or renamed, or new.
            let gone = tree
                .children
                .get(key.as_ref())
                .is_some_and(|t| t.change.is_some());
            return Err(Miss {
                at: at.child(key),
                declared: gone,
            });
        }
        if after.len() != expected.len() {
            let keys: HashSet<&str> = after.iter().map(|(k, _)| k.as_ref()).collect();
            let missing = expected.iter().find(|(k, _)| !keys.contains(k.as_ref()));
            return Err(match missing {
                // Set, or the new name of a renamed key.
                Some((k, Expect::Set(_))) => Miss::declared(at.child(k)),
                Some((k, _)) if !before.contains_key(k.as_ref()) => Miss::declared(at.child(k)),
                Some((k, _)) => Miss::undeclared(at.child(k)),
                None => Miss::undeclared(at),
            });
        }
        for (key, value) in after {
            let here = at.child(&key);
            match expected.remove(key.as_ref()) {
                Some(Expect::Value(b, sub)) => stack.push((b, value, sub, here)),
                Some(Expect::Set(to)) if self.holds(value, to) => {}
                _ => return Err(Miss::declared(here)),
            }
        }
        Ok(())
    }

    /// Compares the sequences `items_b` and `items_a` (at `at`), which `tree` changes
    /// below: of one length, each item changed by `tree` to the value a change sets, or to
    /// compare further (pushed on `stack`).
    fn walk_seq<'t>(
        &self,
        items_b: &[NodeId],
        items_a: &[NodeId],
        tree: &'t Tree<'t>,
        at: Pointer,
        stack: &mut Vec<Pending<'t>>,
    ) -> Result<(), Miss> {
        if items_b.len() != items_a.len() {
            return Err(Miss::undeclared(at));
        }
        if let Some(key) = tree
            .children
            .keys()
            .find(|k| k.parse::<usize>().ok().is_none_or(|i| i >= items_b.len()))
        {
            return Err(Miss::declared(at.child(key)));
        }
        for (i, (&b, &a)) in items_b.iter().zip(items_a).enumerate() {
            let here = at.child(i.to_string());
            match tree.children.get(i.to_string().as_str()) {
                None => stack.push((b, a, &EMPTY, here)),
                Some(sub) => match sub.change {
                    None => stack.push((b, a, sub, here)),
                    Some(Change::Set { to, .. }) if self.holds(a, to) => {}
                    Some(_) => return Err(Miss::declared(here)),
                },
            }
        }
        Ok(())
    }
}

/// A pair of nodes still to compare: before, after, the changes below them, and where.
type Pending<'t> = (NodeId, NodeId, &'t Tree<'t>, Pointer);

/// What the after mapping must hold, by key, for the before mapping `kept` (`before`, by
/// key) changed as `tree` says: each key not removed or renamed, with its value (changed
/// below) or the value a change sets; a renamed key's value under its new name; a key
/// set where there was none. A change of a key the before mapping lacks (but setting it)
/// is a declared miss.
fn expected_entries<'t>(
    kept: &[(Cow<'t, str>, NodeId)],
    before: &HashMap<&str, NodeId>,
    tree: &'t Tree<'t>,
    at: &Pointer,
) -> Result<HashMap<Cow<'t, str>, Expect<'t>>, Miss> {
    let mut expected: HashMap<Cow<'_, str>, Expect<'_>> = HashMap::new();
    for (key, value) in kept {
        match tree.children.get(key.as_ref()) {
            None => {
                expected.insert(key.clone(), Expect::Value(*value, &EMPTY));
            }
            Some(sub) => match sub.change {
                None => {
                    expected.insert(key.clone(), Expect::Value(*value, sub));
                }
                Some(Change::Set { to, .. }) => {
                    expected.insert(key.clone(), Expect::Set(to));
                }
                Some(Change::Remove { .. } | Change::Rename { .. }) => {}
            },
        }
    }
    for (key, sub) in &tree.children {
        let was = before.get(key).copied();
        match (sub.change, was) {
            (Some(Change::Rename { to, .. }), Some(value)) => {
                expected.insert(Cow::Borrowed(to.as_str()), Expect::Value(value, sub));
            }
            (Some(Change::Set { to, .. }), None) => {
                expected.insert(Cow::Borrowed(*key), Expect::Set(to));
            }
            (_, Some(_)) => {}
            (_, None) => return Err(Miss::declared(at.child(key))),
        }
    }
    Ok(expected)
}

/// The tree of no change.
static EMPTY: Tree<'static> = Tree {
    change: None,
    children: BTreeMap::new(),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Applicability, Edit};

    /// Verifies `fixes` — (finding offset, edits as (needle, replacement), changes) — on
    /// `before`.
    fn check(before: &str, fixes: &[(&str, &str, Vec<Change>)]) -> Result<String, Unverified> {
        let limits = Limits::default();
        let hashing = Hashing::default();
        let read = Read::text(&hashing, "x.yml", before.to_string(), &limits);
        let made: Vec<(Span, Fix)> = fixes
            .iter()
            .map(|(needle, replacement, changes)| {
                let at = before.find(needle).unwrap_or_else(|| panic!("{needle}")) as u32;
                let span = Span::new(at, at + needle.len() as u32);
                let mut fix = Fix::new(
                    Applicability::Safe,
                    "t",
                    vec![Edit {
                        span,
                        replacement: replacement.to_string(),
                    }],
                );
                fix.changes = changes.clone();
                (span, fix)
            })
            .collect();
        let text = crate::fix::apply_edits(before, made.iter().flat_map(|(_, f)| &f.edits));
        let after = Read::text(&hashing, "x.yml", text.clone(), &limits);
        let proposed: Vec<Proposed<'_>> = made
            .iter()
            .map(|(span, fix)| Proposed { finding: *span, fix })
            .collect();
        verify(&hashing, &read, &after, &proposed, &limits).map(|()| text)
    }

    fn p(s: &str) -> Pointer {
        Pointer::parse(s)
    }

    fn set(at: &str, to: &str) -> Change {
        Change::Set {
            at: p(at),
            to: NewValue::Source(to.to_string()),
        }
    }

    #[test]
    fn the_same_data_written_otherwise_verifies() {
        // A value written as the CLI reads it, a comment removed: nothing declared.
        assert!(
            check(
                "a: on\nb: 1  # c\n",
                &[("on", "true", vec![]), ("  # c", "", vec![])]
            )
            .is_ok()
        );
        // Key order is not data; an alias is its anchor's value.
        assert!(
            check(
                "a: &x {k: 1}\nb: *x\n",
                &[("&x {k: 1}", "{k: 1}", vec![]), ("*x", "{k: 1}", vec![])]
            )
            .is_ok()
        );
        assert!(check("a: 1\nb: 2\n", &[("a: 1\nb: 2", "b: 2\na: 1", vec![])]).is_ok());
    }

    #[test]
    fn a_change_nothing_declares_is_found_where_it_is() {
        // A comment that ends at a line separator: the key after it goes with it.
        let r = check(
            "a: 1  # c\u{2028}b: 2\nc: 3\n",
            &[("  # c\u{2028}b: 2", "", vec![])],
        );
        assert_eq!(r, Err(Unverified::Changed { doc: 0, at: p("/b") }));
        // Deep in a mapping, and in a list.
        let r = check("a:\n  b:\n    c: [1, 2]\n", &[("2]", "3]", vec![])]);
        assert_eq!(
            r,
            Err(Unverified::Changed {
                doc: 0,
                at: p("/a/b/c/1")
            })
        );
        // A keep block's value gains a line break.
        let r = check(
            "a: |+\n  x\nb: 1\n\n",
            &[("b: 1\n", "", vec![Change::Remove { at: p("/b") }])],
        );
        assert_eq!(r, Err(Unverified::Changed { doc: 0, at: p("/a") }));
        // A syntax error.
        assert_eq!(
            check("a: 1\n", &[("1", "[", vec![set("/a", "[")])]),
            Err(Unverified::Unreadable)
        );
    }

    #[test]
    fn declared_changes_must_come_out_as_declared() {
        let rename = |at: &str, to: &str| Change::Rename {
            at: p(at),
            to: to.to_string(),
        };
        assert!(
            check(
                "a:\n  comand: x\n",
                &[("comand", "command", vec![rename("/a/comand", "command")])]
            )
            .is_ok()
        );
        assert!(
            check(
                "a: 1\nb: 2\n",
                &[("b: 2\n", "", vec![Change::Remove { at: p("/b") }])]
            )
            .is_ok()
        );
        assert!(check("a: on\nb: 2\n", &[("on", "\"on\"", vec![set("/a", "\"on\"")])]).is_ok());
        // Added to a mapping.
        assert!(
            check(
                "a:\n  b: 1\n",
                &[("b: 1\n", "b: 1\n  c: 0\n", vec![set("/a/c", "0")])]
            )
            .is_ok()
        );
        // A value that reads as something else than declared.
        let r = check("a: x\nb: 2\n", &[("x", "no", vec![set("/a", "\"no\"")])]);
        assert_eq!(r, Err(Unverified::NotAsDeclared { doc: 0, at: p("/a") }));
        // A removed key that a duplicate brings back.
        let r = check(
            "b: 1\na: 1\nb: 2\n",
            &[("b: 2\n", "", vec![Change::Remove { at: p("/b") }])],
        );
        assert_eq!(r, Err(Unverified::NotAsDeclared { doc: 0, at: p("/b") }));
        // Two fixes that set one value differently.
        let r = check(
            "a: x\n",
            &[("x", "y", vec![set("/a", "y")]), ("a", "a", vec![set("/a", "z")])],
        );
        assert_eq!(r, Err(Unverified::Conflict { doc: 0, at: p("/a") }));
    }

    #[test]
    fn a_node_also_reached_through_an_alias_or_a_merge_key_is_not_changed() {
        // A key merged in from `t`: renaming it renames it in `t`.
        let text = "t: &t\n  descripton: x\n<<: *t\n";
        let r = check(
            text,
            &[(
                "descripton",
                "description",
                vec![Change::Rename {
                    at: p("/descripton"),
                    to: "description".to_string(),
                }],
            )],
        );
        assert_eq!(
            r,
            Err(Unverified::NotOwn {
                doc: 0,
                at: p("/descripton")
            })
        );
        // Even at the anchor: the alias would change too.
        let r = check(
            "a: &v 1.10\nb: *v\n",
            &[("1.10", "\"1.10\"", vec![set("/a", "\"1.10\"")])],
        );
        assert_eq!(r, Err(Unverified::NotOwn { doc: 0, at: p("/a") }));
        // Below an aliased mapping.
        let r = check(
            "a: &m\n  k: on\nb: *m\n",
            &[("on", "\"on\"", vec![set("/a/k", "\"on\"")])],
        );
        assert_eq!(
            r,
            Err(Unverified::NotOwn {
                doc: 0,
                at: p("/a/k")
            })
        );
    }

    #[test]
    fn each_document_is_compared_with_its_own() {
        let text = "a: 1\n---\nb: on\n";
        assert!(check(text, &[("on", "\"on\"", vec![set("/b", "\"on\"")])]).is_ok());
        assert_eq!(
            check(text, &[("\n---\n", "\n", vec![])]),
            Err(Unverified::Unreadable)
        );
        let r = check("a: 1\n---\nb: 1\n", &[("b: 1", "b: 2", vec![])]);
        assert_eq!(r, Err(Unverified::Changed { doc: 1, at: p("/b") }));
    }
}
