//! Document kinds and classification, driven by `schemas/kinds.yaml` (see the comment at
//! the top of that file for the algorithm). A [`Classification`] also records how its kind
//! was decided ([`Trace`]) and whether that decision is uncertain, for
//! `amlint check --verbose` and `--show-files` ([`Classification::explain`]).

use std::collections::HashMap;
use std::sync::LazyLock;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::document::{Document, NodeId, Value};
use crate::source::Span;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindsFile {
    families: Vec<FamilyDef>,
    schema_hosts: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FamilyDef {
    family: String,
    command: String,
    #[serde(default)]
    detect: Vec<Shape>,
    #[serde(default)]
    files: Vec<String>,
    /// A file found by its name belongs to the family only if its keys match this.
    #[serde(default)]
    files_when: Option<Shape>,
    #[serde(default)]
    schema_urls: Vec<String>,
    /// Recognised but not checked: why.
    #[serde(default)]
    skip: Option<String>,
    #[serde(default)]
    type_exact: bool,
    kinds: Vec<KindDef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindDef {
    id: String,
    title: String,
    #[serde(default)]
    schemas: Vec<String>,
    #[serde(default)]
    preview_schemas: Vec<String>,
    #[serde(default, rename = "match")]
    matches: Vec<Shape>,
    #[serde(default)]
    umbrella: bool,
}

/// Conditions on a document's top-level keys; all must hold.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    /// Allowed `type:` values, lower-case; `None` stands for "no `type:` key".
    #[serde(default, rename = "type")]
    types: Option<Vec<Option<String>>>,
    #[serde(default)]
    keys: Vec<String>,
    #[serde(default)]
    any_keys: Vec<String>,
    #[serde(default)]
    not_keys: Vec<String>,
    /// Some entry of one of these mappings matches one of these shapes.
    #[serde(default)]
    entries: Option<Entries>,
    /// The shape does not settle the kind: why (a detect alternative only).
    #[serde(default)]
    uncertain: Option<String>,
    /// With `uncertain`: the family the document could also belong to.
    #[serde(default)]
    also: Option<String>,
    #[serde(skip)]
    also_family: Option<usize>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Entries {
    of: Vec<String>,
    any: Vec<EntryShape>,
}

/// Conditions on one entry of a mapping (`inputs.<name>`).
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct EntryShape {
    #[serde(default, rename = "type")]
    types: Option<Vec<String>>,
    #[serde(default)]
    any_keys: Vec<String>,
    #[serde(default)]
    not_keys: Vec<String>,
    /// The entry is a plain value (not a mapping): a job input's literal value.
    #[serde(default)]
    scalar: bool,
}

/// One document kind (`commandJob`, `v1.deploymentConfig`, ...).
#[derive(Debug)]
pub struct Kind {
    pub id: String,
    /// Human name for messages ("managed online deployment").
    pub title: String,
    /// The `$schema` file names that name this kind, as written in the table.
    pub schema_names: Vec<String>,
    /// 2021 preview `$schema` file names of this kind (AML007).
    pub preview_names: Vec<String>,
    pub family: usize,
    matches: Vec<Shape>,
    /// Its `$schema` covers every kind of the family.
    pub umbrella: bool,
}

#[derive(Debug)]
pub struct Family {
    pub name: String,
    /// The CLI command that consumes files of this family.
    pub command: String,
    /// Recognised but not checked, and why.
    pub skip: Option<String>,
    /// The CLI compares `type:` exactly (lower case) when it dispatches a file of this
    /// family; classification still matches it case-insensitively, and AML103 reports
    /// the case.
    pub type_exact: bool,
    detect: Vec<Shape>,
    /// Its file-name globs (those that compile), matched through `KindTable::files`.
    files: Vec<String>,
    /// What a document found by its file name must have besides (`files_when`).
    files_when: Option<Shape>,
    /// Its `$schema` URL globs (those that compile), matched through
    /// `KindTable::schema_urls`.
    schema_urls: Vec<String>,
    /// Indices into [`KindTable::kinds`].
    pub kinds: Vec<usize>,
}

#[derive(Debug)]
pub struct KindTable {
    pub kinds: Vec<Kind>,
    pub families: Vec<Family>,
    by_schema: HashMap<String, usize>,
    by_preview: HashMap<String, usize>,
    by_id: HashMap<String, usize>,
    schema_hosts: Vec<String>,
    /// Every family's `files` globs, matched at once.
    files: FamilyGlobs,
    /// Every family's `schema_urls` globs, matched at once.
    schema_urls: FamilyGlobs,
}

/// The globs of one list of every family (`files` or `schema_urls`) as one matcher: a name
/// is matched against all of them at once (a matcher per glob cost 4 % of a run of
/// 10,000 files).
#[derive(Debug, Default)]
struct FamilyGlobs {
    set: GlobSet,
    /// The family of each glob of `set`, and its place in the family's list.
    owners: Vec<(usize, usize)>,
}

impl FamilyGlobs {
    /// One matcher for the lists of every family (by family index), lower-cased (names
    /// are matched lower-cased). A glob that does not compile is left out of its list.
    fn build<'a>(lists: impl Iterator<Item = &'a mut Vec<String>>) -> Self {
        let mut builder = GlobSetBuilder::new();
        let mut owners = Vec::new();
        for (fi, list) in lists.enumerate() {
            let mut gi = 0;
            list.retain(|g| match Glob::new(&g.to_ascii_lowercase()) {
                Ok(glob) => {
                    builder.add(glob);
                    owners.push((fi, gi));
                    gi += 1;
                    true
                }
                Err(_) => false,
            });
        }
        Self {
            set: builder.build().unwrap_or_default(),
            owners,
        }
    }

    /// The families whose globs match `name`, in table order, each with the first of its
    /// globs that does.
    fn first_per_family(&self, name: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut last = None;
        self.set.matches(name).into_iter().filter_map(move |i| {
            let (fi, gi) = self.owners[i];
            (last != Some(fi)).then(|| {
                last = Some(fi);
                (fi, gi)
            })
        })
    }
}

/// Where a document's kind came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Schema,
    Shape,
    FileName,
}

/// How a document's family was found (indices into the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FamilyBy {
    /// The `$schema` URL matches the family's `schema_urls` glob.
    SchemaUrl { family: usize, glob: usize },
    /// The `$schema` file name names the kind.
    SchemaName { kind: usize },
    /// The `$schema` file name is a 2021 preview name of the kind.
    PreviewName { kind: usize },
    /// The document matches the family's `detect` alternative.
    Shape { family: usize, alt: usize },
    /// The file name matches the family's `files` glob; `key`: the first of the
    /// `files_when` keys (`any_keys`) the document has, when the family asks for one.
    FileName {
        family: usize,
        glob: usize,
        key: Option<usize>,
    },
}

/// How the kind was chosen within its family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// The kind's `match` alternative (`type:`, or a key).
    Match { kind: usize, alt: usize },
    /// The kind `$schema` names (no `match` settled it).
    Declared,
    /// The family's default kind.
    Default,
}

/// How the kind was decided, for `--verbose`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trace {
    pub family_by: Option<FamilyBy>,
    pub dispatch: Option<Dispatch>,
}

/// The result of classifying one document.
#[derive(Debug, Clone, Default)]
pub struct Classification {
    /// The kind the Azure ML CLI would load the document as.
    pub kind: Option<&'static Kind>,
    pub source: Option<Source>,
    /// The kind `$schema` names, when it differs from `kind` (the CLI follows `type:`).
    pub declared: Option<&'static Kind>,
    /// A `$schema` under an Azure ML host that names no known kind (AML006).
    pub unknown_schema: Option<UnknownSchema>,
    /// A `$schema` that names the kind by its 2021 preview name (AML007).
    pub preview: Option<PreviewSchema>,
    /// The shape that decided the kind does not settle it.
    pub uncertain: Option<Uncertain>,
    pub trace: Trace,
    /// What the document is when it is not a mapping ("empty", "a list"), for messages.
    pub not_a_mapping: Option<&'static str>,
    /// Unclassified: its file name matches a family's `files` glob, but its keys do not
    /// match the family's `files_when` (why it is not that family, for `--verbose`).
    pub name_only: Option<NameOnly>,
}

/// A file name that matches a family's glob, on a document whose keys say otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameOnly {
    pub family: usize,
    pub glob: usize,
}

#[derive(Debug, Clone)]
pub struct UnknownSchema {
    pub url: String,
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct PreviewSchema {
    /// The preview name as written (`onlineEndpoint`).
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Uncertain {
    /// Why (from the table).
    pub why: &'static str,
    /// The kind the document would be if it belonged to the other family.
    pub also: Option<&'static Kind>,
}

impl Classification {
    /// The document is an Azure ML configuration amlint checks.
    pub fn is_checked(&self) -> bool {
        match self.kind {
            Some(kind) => table().families[kind.family].skip.is_none(),
            None => self.unknown_schema.is_some(),
        }
    }

    pub fn kind_id(&self) -> Option<&'static str> {
        self.kind.map(|k| k.id.as_str())
    }

    /// Why a recognised document is not checked (its family's reason), if it is not.
    pub fn skip_reason(&self) -> Option<&'static str> {
        self.kind.and_then(|k| table().families[k.family].skip.as_deref())
    }

    /// Why the document is not checked, or `None` when it is.
    pub fn why_not_checked(&self) -> Option<String> {
        if self.is_checked() {
            return None;
        }
        if let Some(reason) = self.skip_reason() {
            return Some(reason.to_string());
        }
        Some(match (self.not_a_mapping, self.name_only) {
            (Some(what), _) => format!("not an Azure ML configuration (the document is {what})"),
            (None, Some(NameOnly { family, glob })) => {
                let fam = &table().families[family];
                format!(
                    "not an Azure ML configuration: its file name matches `{}` ({}), but it has none of the keys of one ({})",
                    fam.files[glob],
                    fam.command,
                    fam.files_when.as_ref().map_or_else(String::new, Shape::brief_keys)
                )
            }
            (None, None) => "not an Azure ML configuration: no `$schema` names a kind, and neither its keys nor its file name match one".to_string(),
        })
    }

    /// How the kind was decided, one sentence per step, and the uncertainty if any.
    pub fn explain(&self) -> Vec<String> {
        let t = table();
        let mut out = Vec::new();
        match self.trace.family_by {
            Some(FamilyBy::SchemaUrl { family, glob }) => out.push(format!(
                "its `$schema` URL matches `{}` ({})",
                t.families[family].schema_urls[glob], t.families[family].command
            )),
            Some(FamilyBy::SchemaName { kind }) => out.push(format!(
                "its `$schema` names `{}` ({})",
                t.kinds[kind].id, t.families[t.kinds[kind].family].command
            )),
            Some(FamilyBy::PreviewName { kind }) => out.push(format!(
                "its `$schema` names `{}`, the 2021 preview name of a {} ({})",
                self.preview.as_ref().map_or("?", |p| p.name.as_str()),
                t.kinds[kind].title,
                t.families[t.kinds[kind].family].command
            )),
            Some(FamilyBy::Shape { family, alt }) => {
                if let Some(u) = &self.unknown_schema {
                    out.push(format!(
                        "its `$schema` names `{}`, which is no kind amlint knows",
                        u.name
                    ));
                } else {
                    out.push("it has no `$schema` naming a kind".to_string());
                }
                out.push(format!(
                    "its keys match the `{}` files ({}): {}",
                    t.families[family].name,
                    t.families[family].command,
                    t.families[family].detect[alt].describe()
                ));
            }
            Some(FamilyBy::FileName { family, glob, key }) => {
                let fam = &t.families[family];
                let mut line = format!("its file name matches `{}` ({})", fam.files[glob], fam.command);
                if let Some(k) = key.and_then(|k| fam.files_when.as_ref()?.any_keys.get(k)) {
                    line.push_str(&format!(", and it has `{k}`, a key of one"));
                }
                out.push(line);
            }
            None => {}
        }
        if let (Some(kind), Some(d)) = (self.kind, self.trace.dispatch) {
            let fam = &t.families[kind.family];
            if fam.kinds.len() > 1 {
                let why = match d {
                    Dispatch::Match { kind: k, alt } => t.kinds[k].matches[alt].describe(),
                    Dispatch::Declared => "the kind its `$schema` names".to_string(),
                    Dispatch::Default => "the default".to_string(),
                };
                out.push(format!("`{}` takes it as a {} ({why})", fam.command, kind.title));
            }
        }
        if let Some(d) = self.declared {
            out.push(format!(
                "`$schema` names a {}, but the CLI follows `type:` (AML008)",
                d.title
            ));
        }
        if let Some(u) = &self.uncertain {
            let mut line = format!("uncertain: {}", u.why);
            if let (Some(also), Some(kind)) = (u.also, self.kind) {
                line.push_str(&format!(
                    "; checked as a {}, with no schema finding if it is a valid {}",
                    kind.title, also.title
                ));
            }
            out.push(line);
        }
        out
    }
}

impl Shape {
    fn lower_types(&mut self) {
        if let Some(types) = &mut self.types {
            for t in types.iter_mut().flatten() {
                *t = t.to_ascii_lowercase();
            }
        }
        if let Some(e) = &mut self.entries {
            for s in &mut e.any {
                for t in s.types.iter_mut().flatten() {
                    *t = t.to_ascii_lowercase();
                }
            }
        }
    }

    /// The keys the shape asks for (`any_keys`, else `keys`), the first few named:
    /// "`computeType`, `containerResourceRequirements`, `gpuCores` and 27 more".
    fn brief_keys(&self) -> String {
        const NAMED: usize = 3;
        let keys = if self.any_keys.is_empty() {
            &self.keys
        } else {
            &self.any_keys
        };
        let named: Vec<String> = keys.iter().take(NAMED).map(|k| format!("`{k}`")).collect();
        match keys.len().saturating_sub(NAMED) {
            0 => named.join(", "),
            more => format!("{} and {more} more", named.join(", ")),
        }
    }

    /// The conditions in words: "`type` is command, sweep or pipeline; has `command`".
    pub fn describe(&self) -> String {
        let list = |items: &[String], sep: &str| {
            items
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(sep)
        };
        let mut parts = Vec::new();
        if let Some(types) = &self.types {
            let named: Vec<String> = types.iter().flatten().cloned().collect();
            let none = types.iter().any(Option::is_none);
            let values = match named.as_slice() {
                [one] => one.clone(),
                many => format!("one of {}", many.join(", ")),
            };
            parts.push(match (named.is_empty(), none) {
                (true, _) => "no `type`".to_string(),
                (false, false) => format!("`type` is {values}"),
                (false, true) => format!("`type` is {values}, or no `type`"),
            });
        }
        if !self.keys.is_empty() {
            parts.push(format!("has {}", list(&self.keys, " and ")));
        }
        if !self.any_keys.is_empty() {
            parts.push(format!("has {}", list(&self.any_keys, " or ")));
        }
        if !self.not_keys.is_empty() {
            parts.push(format!("has none of {}", list(&self.not_keys, ", ")));
        }
        if let Some(e) = &self.entries {
            let what: Vec<String> = e.any.iter().map(EntryShape::describe).collect();
            parts.push(format!(
                "an entry of {} {}",
                list(&e.of, " or "),
                what.join(", or ")
            ));
        }
        if parts.is_empty() {
            "any document".to_string()
        } else {
            parts.join("; ")
        }
    }
}

impl EntryShape {
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.scalar {
            parts.push("is a plain value".to_string());
        }
        if let Some(types) = &self.types {
            parts.push(format!("declares `type: {}`", types.join("|")));
        }
        if !self.any_keys.is_empty() {
            let keys: Vec<String> = self.any_keys.iter().map(|k| format!("`{k}`")).collect();
            parts.push(format!("has {}", keys.join(" or ")));
        }
        if !self.not_keys.is_empty() {
            let keys: Vec<String> = self.not_keys.iter().map(|k| format!("`{k}`")).collect();
            parts.push(format!("has none of {}", keys.join(", ")));
        }
        parts.join(" and ")
    }
}

impl KindTable {
    fn load(text: &str) -> Result<Self, crate::data::DataError> {
        let file: KindsFile = crate::data::from_embedded("schemas/kinds.yaml", text)?;
        let mut table = KindTable {
            kinds: Vec::new(),
            families: Vec::new(),
            by_schema: HashMap::new(),
            by_preview: HashMap::new(),
            by_id: HashMap::new(),
            schema_hosts: file.schema_hosts.iter().map(|h| h.to_ascii_lowercase()).collect(),
            files: FamilyGlobs::default(),
            schema_urls: FamilyGlobs::default(),
        };
        let names: Vec<String> = file.families.iter().map(|f| f.family.clone()).collect();
        let resolve = |shapes: &mut Vec<Shape>| {
            for s in shapes.iter_mut() {
                s.lower_types();
                s.also_family = s.also.as_ref().and_then(|a| names.iter().position(|n| n == a));
            }
        };
        for (fi, mut fam) in file.families.into_iter().enumerate() {
            let mut kinds = Vec::new();
            for mut k in fam.kinds {
                let index = table.kinds.len();
                for name in &k.schemas {
                    table.by_schema.insert(name.to_ascii_lowercase(), index);
                }
                for name in &k.preview_schemas {
                    table.by_preview.insert(name.to_ascii_lowercase(), index);
                }
                table.by_id.insert(k.id.clone(), index);
                kinds.push(index);
                resolve(&mut k.matches);
                table.kinds.push(Kind {
                    id: k.id,
                    title: k.title,
                    schema_names: k.schemas,
                    preview_names: k.preview_schemas,
                    family: fi,
                    matches: k.matches,
                    umbrella: k.umbrella,
                });
            }
            resolve(&mut fam.detect);
            if let Some(when) = &mut fam.files_when {
                when.lower_types();
            }
            table.families.push(Family {
                name: fam.family,
                command: fam.command,
                skip: fam.skip,
                type_exact: fam.type_exact,
                detect: fam.detect,
                files: fam.files,
                files_when: fam.files_when,
                schema_urls: fam.schema_urls,
                kinds,
            });
        }
        table.files = FamilyGlobs::build(table.families.iter_mut().map(|f| &mut f.files));
        table.schema_urls = FamilyGlobs::build(table.families.iter_mut().map(|f| &mut f.schema_urls));
        Ok(table)
    }

    /// The keys a document found by the file name of family `fi` must have one of
    /// (`files_when`'s `any_keys`); empty when the name is enough.
    pub fn files_when_keys(&self, fi: usize) -> &[String] {
        self.families[fi]
            .files_when
            .as_ref()
            .map_or(&[], |s| s.any_keys.as_slice())
    }

    pub fn get(&self, id: &str) -> Option<&Kind> {
        self.by_id.get(id).map(|&i| &self.kinds[i])
    }

    pub fn by_schema_name(&self, name: &str) -> Option<&Kind> {
        self.by_schema
            .get(&name.to_ascii_lowercase())
            .map(|&i| &self.kinds[i])
    }

    /// The kind a document of family `fi` is within it (the SDK's own dispatch on
    /// `type:`, or the presence of `compute:` for online endpoints), `declared` when no
    /// `match` settles it, else the family's default.
    fn dispatch(&self, fi: usize, top: &Top<'_>, declared: Option<usize>) -> Option<(usize, Dispatch)> {
        let fam = &self.families[fi];
        for &k in &fam.kinds {
            if let Some(alt) = self.kinds[k].matches.iter().position(|s| top.matches(s)) {
                return Some((k, Dispatch::Match { kind: k, alt }));
            }
        }
        if let Some(d) = declared.filter(|&d| self.kinds[d].family == fi) {
            return Some((d, Dispatch::Declared));
        }
        fam.kinds
            .iter()
            .copied()
            .find(|&k| self.kinds[k].matches.is_empty())
            .or(fam.kinds.first().copied())
            .map(|k| (k, Dispatch::Default))
    }
}

/// The embedded kinds table.
pub fn table() -> &'static KindTable {
    static TABLE: LazyLock<KindTable> = LazyLock::new(|| {
        let text = crate::embedded::schema_file("kinds.yaml").unwrap_or_default();
        KindTable::load(text).unwrap_or_else(|e| {
            // Tested in the suite; a broken table must not crash a run.
            eprintln!("amlint: internal error in schemas/kinds.yaml: {e}");
            KindTable {
                kinds: Vec::new(),
                families: Vec::new(),
                by_schema: HashMap::new(),
                by_preview: HashMap::new(),
                by_id: HashMap::new(),
                schema_hosts: Vec::new(),
                files: FamilyGlobs::default(),
                schema_urls: FamilyGlobs::default(),
            }
        })
    });
    &TABLE
}

/// The top-level facts shapes are matched against.
struct Top<'a> {
    doc: &'a Document,
    root: Option<NodeId>,
    keys: Vec<std::borrow::Cow<'a, str>>,
    /// `None`: no `type:` key. `Some(None)`: a `type:` that is not a string.
    type_value: Option<Option<String>>,
}

impl Top<'_> {
    fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    fn matches(&self, shape: &Shape) -> bool {
        if let Some(types) = &shape.types {
            let ok = match &self.type_value {
                None => types.iter().any(Option::is_none),
                Some(Some(t)) => types.iter().flatten().any(|allowed| allowed == t),
                Some(None) => false,
            };
            if !ok {
                return false;
            }
        }
        shape.keys.iter().all(|k| self.has(k))
            && (shape.any_keys.is_empty() || shape.any_keys.iter().any(|k| self.has(k)))
            && !shape.not_keys.iter().any(|k| self.has(k))
            && shape.entries.as_ref().is_none_or(|e| self.some_entry(e))
    }

    /// Whether an entry of one of the mappings `e.of` matches one of `e.any` (one level
    /// down, no recursion).
    fn some_entry(&self, e: &Entries) -> bool {
        let (doc, Some(root)) = (self.doc, self.root) else {
            return false;
        };
        e.of.iter().filter_map(|m| doc.get(root, m)).any(|map| {
            doc.entries(map).iter().any(|entry| {
                let value = entry.value;
                e.any.iter().any(|s| entry_matches(doc, value, s))
            })
        })
    }
}

fn entry_matches(doc: &Document, value: NodeId, s: &EntryShape) -> bool {
    match doc.value(value) {
        Value::Map(_) => {
            if s.scalar {
                return false;
            }
            let has = |k: &String| doc.get(value, k).is_some();
            if let Some(types) = &s.types {
                let t = match doc.get(value, "type").map(|t| doc.value(t)) {
                    Some(Value::Str(t)) => t.to_ascii_lowercase(),
                    _ => return false,
                };
                if !types.contains(&t) {
                    return false;
                }
            }
            (s.any_keys.is_empty() || s.any_keys.iter().any(has)) && !s.not_keys.iter().any(has)
        }
        Value::Seq(_) => false,
        _ => s.scalar,
    }
}

/// Splits a `$schema` URL into (host, file-name stem).
fn schema_name(url: &str) -> (String, String) {
    let url = url.trim();
    let without_fragment = url.split(['#', '?']).next().unwrap_or(url);
    let after_scheme = without_fragment
        .split_once("://")
        .map_or(without_fragment, |(_, rest)| rest);
    let host = after_scheme.split('/').next().unwrap_or("").to_ascii_lowercase();
    let last = without_fragment.rsplit('/').next().unwrap_or("");
    let lower = last.to_ascii_lowercase();
    let stem_len = if lower.ends_with(".schema.json") {
        last.len() - ".schema.json".len()
    } else if lower.ends_with(".json") {
        last.len() - ".json".len()
    } else {
        last.len()
    };
    (host, last[..stem_len].to_string())
}

/// Decides what kind of Azure ML configuration a document is.
/// Whether the text of a file that could not be parsed names an Azure ML schema: a line
/// holding `$schema` and one of the Azure ML schema hosts (`schema_hosts` of
/// `schemas/kinds.yaml`, but the bare `azureml`, which other words contain). A file that
/// does not parse but says it is an Azure ML configuration is reported, never skipped.
pub fn names_azure_ml_schema(text: &str) -> bool {
    let t = table();
    memchr::memmem::find_iter(text.as_bytes(), b"$schema").any(|at| {
        let end = text[at..].find('\n').map_or(text.len(), |e| at + e);
        let line = text[at..end].to_ascii_lowercase();
        t.schema_hosts
            .iter()
            .any(|h| h.contains('.') && line.contains(h.as_str()))
    })
}

/// What the `$schema` of a document (its root mapping `r`) says: the kind it declares by
/// name, and the family with how it was found (a family's URL pattern, a kind's name, a
/// kind's 2021 preview name); a preview or unknown Azure ML schema is noted in `out`.
fn by_schema(
    t: &KindTable,
    doc: &Document,
    r: NodeId,
    out: &mut Classification,
) -> (Option<usize>, Option<(usize, FamilyBy)>) {
    let mut declared = None;
    let mut by_schema: Option<(usize, FamilyBy)> = None;
    if let Some(url) = doc.top_str("$schema") {
        let (host, name) = schema_name(url);
        let lower_url = url.trim().to_ascii_lowercase();
        let lower = name.to_ascii_lowercase();
        let span = || doc.get(r, "$schema").map_or(doc.span, |v| doc.node(v).span);
        let by_url = t
            .schema_urls
            .first_per_family(&lower_url)
            .next()
            .map(|(fi, glob)| (fi, FamilyBy::SchemaUrl { family: fi, glob }));
        if let Some(hit) = by_url {
            by_schema = Some(hit);
        } else if let Some(&k) = t.by_schema.get(&lower) {
            declared = Some(k);
            by_schema = Some((t.kinds[k].family, FamilyBy::SchemaName { kind: k }));
        } else if let Some(&k) = t.by_preview.get(&lower) {
            by_schema = Some((t.kinds[k].family, FamilyBy::PreviewName { kind: k }));
            out.preview = Some(PreviewSchema { name, span: span() });
        } else {
            let azure = t
                .schema_hosts
                .iter()
                .any(|h| host == *h || host.ends_with(&format!(".{h}")));
            if azure {
                out.unknown_schema = Some(UnknownSchema {
                    url: url.to_string(),
                    name,
                    span: span(),
                });
            }
        }
    }
    (declared, by_schema)
}

/// Step 3: the first family whose `files` glob matches the file name of `path` and whose
/// `files_when` (if any) the document's keys match; a document that is not a mapping has
/// no keys to say otherwise. The first family whose name matched but whose keys did not
/// goes to `name_only`.
fn by_file_name(
    t: &KindTable,
    top: &Top<'_>,
    path: &str,
    name_only: &mut Option<NameOnly>,
) -> Option<(usize, Source, FamilyBy)> {
    let file_name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    t.files.first_per_family(&file_name).find_map(|(fi, glob)| {
        let f = &t.families[fi];
        let key = match (&f.files_when, top.root) {
            (Some(when), Some(_)) if !top.matches(when) => {
                name_only.get_or_insert(NameOnly { family: fi, glob });
                return None;
            }
            (Some(when), Some(_)) => when.any_keys.iter().position(|k| top.has(k)),
            _ => None,
        };
        Some((
            fi,
            Source::FileName,
            FamilyBy::FileName {
                family: fi,
                glob,
                key,
            },
        ))
    })
}

pub fn classify(doc: &Document, path: &str) -> Classification {
    let t = table();
    let mut out = Classification::default();
    let root = doc.root.filter(|&r| matches!(doc.value(r), Value::Map(_)));
    out.not_a_mapping = match doc.root.map(|r| doc.value(r)) {
        None | Some(Value::Null) => Some("empty"),
        Some(Value::Map(_)) => None,
        Some(Value::Seq(_)) => Some("a list"),
        Some(_) => Some("a single value"),
    };
    let top = match root {
        Some(r) => Top {
            doc,
            root,
            keys: doc.entries(r).iter().map(|e| doc.key_string(e.key)).collect(),
            type_value: doc.get(r, "type").map(|id| match doc.value(id) {
                Value::Str(s) => Some(s.to_ascii_lowercase()),
                _ => None,
            }),
        },
        None => Top {
            doc,
            root: None,
            keys: Vec::new(),
            type_value: None,
        },
    };

    // 1. `$schema`: a family's URL pattern, a kind's name, a kind's 2021 preview name.
    let (declared, by_schema) = match root {
        Some(r) => by_schema(t, doc, r, &mut out),
        None => (None, None),
    };

    // 2. The shape; 3. the file name.
    let family = match by_schema {
        Some((fi, by)) => Some((fi, Source::Schema, by)),
        None if root.is_some() => t.families.iter().enumerate().find_map(|(fi, f)| {
            f.detect
                .iter()
                .position(|s| top.matches(s))
                .map(|alt| (fi, Source::Shape, FamilyBy::Shape { family: fi, alt }))
        }),
        None => None,
    };
    let family = family.or_else(|| by_file_name(t, &top, path, &mut out.name_only));
    let Some((fi, source, by)) = family else {
        return out;
    };
    out.trace.family_by = Some(by);
    let preview_kind = match by {
        FamilyBy::PreviewName { kind } => Some(kind),
        _ => None,
    };
    let Some((kind, dispatch)) = t.dispatch(fi, &top, declared.or(preview_kind)) else {
        return out;
    };
    out.kind = Some(&t.kinds[kind]);
    out.source = Some(source);
    out.trace.dispatch = Some(dispatch);
    if let Some(d) = declared {
        if d != kind && !t.kinds[d].umbrella {
            out.declared = Some(&t.kinds[d]);
        }
    }
    if let FamilyBy::Shape { family, alt } = by {
        let shape = &t.families[family].detect[alt];
        if let Some(why) = &shape.uncertain {
            out.uncertain = Some(Uncertain {
                why: why.as_str(),
                also: shape
                    .also_family
                    .and_then(|af| t.dispatch(af, &top, None))
                    .map(|(k, _)| &t.kinds[k]),
            });
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use crate::load::{Format, parse_text};

    fn kind_of(path: &str, text: &str) -> Classification {
        let loaded = parse_text(path, text.to_string(), Format::for_path(path), &Limits::default());
        classify(&loaded.documents[0], path)
    }

    #[test]
    fn table_loads() {
        let t = table();
        assert!(t.kinds.len() > 40, "{}", t.kinds.len());
        assert!(t.get("commandJob").is_some());
        assert_eq!(
            t.by_schema_name("ManagedOnlineDeployment").map(|k| k.id.as_str()),
            Some("managedOnlineDeployment")
        );
    }

    #[test]
    fn schema_names_and_hosts() {
        assert_eq!(
            schema_name("https://azuremlschemas.azureedge.net/latest/commandJob.schema.json"),
            ("azuremlschemas.azureedge.net".into(), "commandJob".into())
        );
        assert_eq!(
            schema_name("http://azureml/sdk-2-0/Schedule.json"),
            ("azureml".into(), "Schedule".into())
        );
    }

    #[test]
    fn by_schema_then_type() {
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/batchDeployment.schema.json\ntype: model\nendpoint_name: e\n",
        );
        assert_eq!(c.kind_id(), Some("modelBatchDeployment"));
        // The generic batch deployment schema covers model deployments: no disagreement.
        assert!(c.declared.is_none());
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ntype: pipeline\njobs: {}\n",
        );
        assert_eq!(c.kind_id(), Some("pipelineJob"));
        assert_eq!(c.declared.map(|k| k.id.as_str()), Some("commandJob"));
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\nname: blue\n",
        );
        assert_eq!(c.kind_id(), Some("managedOnlineDeployment"));
        assert!(c.declared.is_none());
        let c = kind_of(
            "a.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineEndpoint.schema.json\nname: e\ncompute: azureml:k8s\n",
        );
        assert_eq!(c.kind_id(), Some("kubernetesOnlineEndpoint"));
    }

    #[test]
    fn by_shape() {
        assert_eq!(
            kind_of("x.yml", "type: amlcompute\nname: c\n").kind_id(),
            Some("amlCompute")
        );
        assert_eq!(
            kind_of("x.yml", "type: AmlCompute\nname: c\n").kind_id(),
            Some("amlCompute")
        );
        assert_eq!(
            kind_of("x.yml", "command: python x.py\nenvironment: azureml:e:1\n").kind_id(),
            Some("commandJob")
        );
        assert_eq!(
            kind_of("x.yml", "type: command\nname: c\nversion: 1\ncommand: x\n").kind_id(),
            Some("commandComponent")
        );
        assert_eq!(
            kind_of(
                "x.yml",
                "name: blue\nendpoint_name: e\ninstance_type: Standard_DS3_v2\n"
            )
            .kind_id(),
            Some("managedOnlineDeployment")
        );
        assert_eq!(
            kind_of("x.yml", "name: b\nendpoint_name: e\ntype: kubernetes\n").kind_id(),
            Some("kubernetesOnlineDeployment")
        );
        assert_eq!(
            kind_of("x.json", "{\"computeType\": \"ACI\"}").kind_id(),
            Some("v1.deploymentConfig")
        );
    }

    /// A page of the CLI's YAML reference pasted as `$schema` (audit 10: keayoub's
    /// `aks/deployment.yml`) says what the file is, where its keys would leave it uncertain.
    #[test]
    fn a_yaml_reference_page_as_schema_names_the_family() {
        let docs = "https://learn.microsoft.com/en-us/azure/machine-learning";
        for (page, text, kind) in [
            (
                "reference-yaml-deployment-online?view=azureml-api-2",
                "name: blue\nendpoint_name: e\nmodel: azureml:m:1\ninstance_type: x\ninstance_count: 1\ncompute: azureml:k8s\n",
                "managedOnlineDeployment",
            ),
            (
                "reference-yaml-deployment-kubernetes-online",
                "name: blue\nendpoint_name: e\ntype: kubernetes\ninstance_count: 1\ncompute: azureml:k8s\n",
                "kubernetesOnlineDeployment",
            ),
            (
                "reference-yaml-job-command",
                "type: sweep\ntrial: {command: x}\n",
                "sweepJob",
            ),
            (
                "reference-yaml-data?view=azureml-api-2",
                "name: d\npath: x\n",
                "data",
            ),
            (
                "reference-yaml-datastore-blob",
                "name: d\ntype: azure_blob\naccount_name: a\ncontainer_name: c\n",
                "azureBlob",
            ),
            (
                "reference-yaml-compute-aml",
                "name: c\nsize: Standard_DS3_v2\ntype: amlcompute\n",
                "amlCompute",
            ),
        ] {
            let text = format!("$schema: {docs}/{page}\n{text}");
            let c = kind_of("x.yml", &text);
            assert_eq!(c.kind_id(), Some(kind), "{page}: {c:?}");
            assert!(
                c.explain()[0].contains("its `$schema` URL matches"),
                "{page}: {:?}",
                c.explain()
            );
        }
        // Another page of the documentation names no family.
        let c = kind_of("x.yml", &format!("$schema: {docs}/how-to-train\nname: blue\n"));
        assert_eq!(c.kind_id(), None);
    }

    #[test]
    fn not_azure_ml() {
        for (p, t) in [
            (
                "conda.yml",
                "name: env\nchannels: [conda-forge]\ndependencies: [python=3.10]\n",
            ),
            (
                "ci.yml",
                "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n",
            ),
            // `name` and `defaults`, as a batch endpoint has: `on` and `jobs` say otherwise,
            // whether `on` is the YAML 1.1 boolean or quoted.
            (
                "ci.yml",
                "name: CI\non: push\ndefaults:\n  run:\n    shell: bash\njobs:\n  b:\n    runs-on: ubuntu-latest\n",
            ),
            (
                "ci.yml",
                "name: CI\n\"on\": push\ndefaults:\n  run:\n    shell: bash\njobs:\n  b:\n    runs-on: ubuntu-latest\n",
            ),
            ("k8s.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n"),
            ("data.json", "[1, 2, 3]"),
        ] {
            let c = kind_of(p, t);
            assert!(!c.is_checked(), "{p}: {c:?}");
        }
    }

    #[test]
    fn unknown_azure_schema() {
        let c = kind_of(
            "x.yml",
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJobb.schema.json\ncommand: x\nenvironment: e\n",
        );
        assert!(c.unknown_schema.is_some());
        assert_eq!(c.kind_id(), Some("commandJob"));
        let c = kind_of(
            "x.yml",
            "$schema: https://json.schemastore.org/github-workflow.json\non: push\n",
        );
        assert!(c.unknown_schema.is_none() && !c.is_checked());
    }

    #[test]
    fn preview_schema_names_are_today_s_kinds() {
        let c = kind_of(
            "data.yml",
            "$schema: https://azuremlsdk2.blob.core.windows.net/latest/asset.schema.json\nname: d\nlocal_path: ./data\n",
        );
        assert_eq!(c.kind_id(), Some("data"));
        assert_eq!(c.preview.as_ref().map(|p| p.name.as_str()), Some("asset"));
        assert!(c.unknown_schema.is_none() && c.declared.is_none() && c.is_checked());
        // The preview name only chooses the family: `compute:` still makes a Kubernetes
        // endpoint, as the CLI dispatches.
        let c = kind_of(
            "e.yml",
            "$schema: https://azuremlsdk2.blob.core.windows.net/latest/onlineEndpoint.schema.json\nname: e\ncompute: azureml:k8s\n",
        );
        assert_eq!(c.kind_id(), Some("kubernetesOnlineEndpoint"));
        assert!(c.preview.is_some());
        // The 2021 preview online endpoint without `$schema` is an online endpoint, not a
        // connection (`type: online`, `target:`).
        let c = kind_of(
            "e.yml",
            "name: e\ntype: online\ntarget: azureml:aks\nauth_mode: key\n",
        );
        assert_eq!(c.kind_id(), Some("managedOnlineEndpoint"));
        assert_eq!(
            kind_of("c.yml", "name: c\ntype: git\ntarget: https://github.com/x\n").kind_id(),
            Some("connection")
        );
    }

    #[test]
    fn components_written_without_version() {
        // An input that declares a literal type or a default: a component's interface.
        let text = "name: train\ntype: command\ncommand: python t.py\nenvironment: azureml:e@latest\ninputs:\n  data:\n    type: uri_folder\n  lr:\n    type: number\n";
        let c = kind_of("train.yml", text);
        assert_eq!(c.kind_id(), Some("commandComponent"));
        assert!(c.uncertain.is_none());
        // Job evidence: job-only keys, input values.
        let c = kind_of(
            "job.yml",
            "type: command\ncommand: x\nenvironment: e\ncompute: azureml:c\n",
        );
        assert_eq!(c.kind_id(), Some("commandJob"));
        assert!(c.uncertain.is_none());
        let c = kind_of(
            "job.yml",
            "type: command\ncommand: x\nenvironment: e\ninputs:\n  lr: 0.1\n",
        );
        assert_eq!(c.kind_id(), Some("commandJob"));
        assert!(c.uncertain.is_none());
        // Neither: checked as a job, uncertain, with the component it could also be.
        let c = kind_of("x.yml", "type: command\ncommand: x\nenvironment: e\n");
        assert_eq!(c.kind_id(), Some("commandJob"));
        let u = c.uncertain.as_ref().expect("uncertain");
        assert_eq!(u.also.map(|k| k.id.as_str()), Some("commandComponent"));
        assert!(
            c.explain().iter().any(|l| l.starts_with("uncertain: ")),
            "{:?}",
            c.explain()
        );
    }

    #[test]
    fn recognised_files_are_skipped_with_their_reason() {
        for (path, text, reason) in [
            (
                "flow.dag.yaml",
                "inputs: {q: {type: string}}\nnodes: []\n",
                "prompt flow",
            ),
            (
                "connection.yml",
                "$schema: https://azuremlschemas.azureedge.net/promptflow/latest/AzureOpenAIConnection.schema.json\nname: aoai\ntype: azure_open_ai\napi_base: x\n",
                "prompt flow",
            ),
            (
                "run.yml",
                "flow: .\ndata: data.jsonl\ncolumn_mapping: {q: x}\n",
                "prompt flow",
            ),
            (
                "pytorch.yml",
                "script: train.py\ntarget: gpu\nframework: PyTorch\ncommunicator: None\n",
                "SDK v1 run configuration",
            ),
            (
                "train.runconfig",
                "script: train.py\n",
                "SDK v1 run configuration",
            ),
            (
                "conda.yml",
                "name: env\nchannels: [conda-forge]\ndependencies: [python=3.10]\n",
                "conda",
            ),
        ] {
            let c = kind_of(path, text);
            assert!(!c.is_checked(), "{path}: {c:?}");
            let why = c.why_not_checked().unwrap_or_default();
            assert!(why.contains(reason), "{path}: {why}");
        }
        let c = kind_of("notes.yml", "title: x\n");
        assert!(
            c.why_not_checked()
                .is_some_and(|w| w.starts_with("not an Azure ML configuration")),
            "{c:?}"
        );
    }

    #[test]
    fn a_batch_endpoint_has_name_and_defaults() {
        let c = kind_of(
            "endpoint.yml",
            "name: e\ndescription: x\ndefaults:\n  deployment_name: blue\n",
        );
        assert_eq!(c.kind_id(), Some("batchEndpoint"));
        // A workflow has them too, with `on` and `jobs`: a CI file, skipped.
        let c = kind_of(
            "ci.yml",
            "name: CI\non: push\ndefaults:\n  run:\n    shell: bash\njobs:\n  b:\n    runs-on: ubuntu-latest\n",
        );
        assert_eq!(c.kind_id(), Some("ciPipeline"));
        assert!(!c.is_checked());
    }

    #[test]
    fn by_file_name() {
        // A name and a key SDK v1 reads (without `computeType`, which would be detected by
        // shape): a v1 deployment configuration, and `--verbose` names the key.
        let c = kind_of(
            "my_deployment_config.json",
            "{\"instance_type\": \"x\", \"containerResourceRequirements\": {\"cpu\": 1}}",
        );
        assert_eq!(c.kind_id(), Some("v1.deploymentConfig"));
        assert_eq!(
            c.explain(),
            [
                "its file name matches `*deployment_config*.json` (az ml model deploy --deploy-config-file (SDK v1)), and it has `containerResourceRequirements`, a key of one"
            ]
        );
        // The name alone is not enough: the MLflow deployment plugin's `deploy-config-file`
        // (none of SDK v1's keys) is not one, and says why.
        for text in [
            "{\"instance_type\": \"Standard_DS3_v2\", \"instance_count\": 1}",
            "{}",
        ] {
            let c = kind_of("deployment_config.json", text);
            assert_eq!(c.kind_id(), None, "{text}");
            let why = c.why_not_checked().unwrap_or_default();
            assert!(
                why.contains("its file name matches `*deployment_config*.json`")
                    && why.contains("but it has none of the keys of one (`computeType`, "),
                "{why}"
            );
        }
        // A document with no keys to tell (a list, one that does not parse): the name decides.
        assert_eq!(
            kind_of("deploymentconfig.json", "[1]").kind_id(),
            Some("v1.deploymentConfig")
        );
        assert_eq!(
            kind_of("deploymentconfig.json", "{\"computeType\": ").kind_id(),
            Some("v1.deploymentConfig")
        );
        let c = kind_of(
            "flow.dag.yaml",
            "$schema: https://azuremlschemas.azureedge.net/promptflow/latest/Flow.schema.json\ninputs: {}\n",
        );
        assert_eq!(c.kind_id(), Some("promptFlow"));
        assert!(!c.is_checked());
    }
}
