//! Completion from the kind's schema at the cursor: the keys allowed there that are not
//! already present, enum and `type:` values, `$schema` URLs, VM sizes from the catalogue
//! for `size`/`instance_type`, and the names the workspace defines for `compute:`,
//! `model:`, `environment:` and `endpoint_name:`.
//!
//! The place is read from the text by indentation (block-style YAML), so that a
//! document being typed — a key without a value, a half-written line, a file that does
//! not parse — is completed as well as a finished one. JSON files get nothing.

use super::analysis::{Analysis, Checked};
use super::{Completion, CompletionKind};
use crate::kinds::{self, Kind};
use crate::load::Format;
use crate::source::{Pointer, Span};

/// The base of the `$schema` URLs the Azure ML CLI documents.
const SCHEMA_BASE: &str = "https://azuremlschemas.azureedge.net/latest/";

/// What the cursor is in.
#[derive(Debug, PartialEq)]
pub struct Place {
    /// The keys (and `0` for a sequence item) from the root to the mapping the cursor
    /// is in.
    pub path: Vec<String>,
    /// The keys of that mapping already written (the one being typed aside), with their
    /// values as written on their line.
    pub siblings: Vec<(String, String)>,
    /// `Some(key)`: completing the value of `key`; `None`: completing a key.
    pub value_of: Option<String>,
    /// Where the word being completed starts (byte offset).
    pub start: u32,
}

/// A line's indentation, whether it is a sequence item (`- `), the column its content
/// starts at and the content.
fn split_line(line: &str) -> (usize, bool, usize, &str) {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    if rest == "-" || rest.starts_with("- ") {
        let after = &rest[1..];
        let content = after.trim_start_matches(' ');
        let col = indent + 1 + (after.len() - content.len());
        (indent, true, col, content)
    } else {
        (indent, false, indent, rest)
    }
}

/// The key of a `key: value` (or `key:`) line's content, and the value.
fn key_of(content: &str) -> Option<(String, &str)> {
    let (key, value) = match content.find(": ") {
        Some(i) => (&content[..i], content[i + 2..].trim()),
        None => (content.strip_suffix(':')?, ""),
    };
    let key = key.trim();
    if key.is_empty() || key.starts_with(['{', '[', '#', '&', '*', '!', '|', '>']) {
        return None;
    }
    let key = key
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .or_else(|| key.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')))
        .unwrap_or(key);
    let value = value.split(" #").next().unwrap_or("").trim();
    Some((key.to_string(), value))
}

fn is_skipped(content: &str) -> bool {
    content.is_empty() || content.starts_with('#')
}

fn is_document_marker(line: &str) -> bool {
    line.starts_with("---") || line.starts_with("...")
}

/// The place of the cursor at byte `offset` of a YAML text, read by indentation;
/// `None` inside a comment or where no key or value can start.
pub fn place(text: &str, offset: usize) -> Option<Place> {
    let offset = offset.min(text.len());
    let offset = (0..=offset).rev().find(|&o| text.is_char_boundary(o))?;
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    let (indent, dash, col, content) = split_line(line);
    if content.starts_with('#') || is_document_marker(line) {
        return None;
    }
    let content_start = line_start + line.len() - content.len();
    let (value_of, start) = match content.find(": ") {
        Some(i) => {
            let (key, _) = key_of(&content[..i + 1])?;
            let value = &content[i + 2..];
            let lead = value.len() - value.trim_start().len();
            (Some(key), content_start + i + 2 + lead)
        }
        None => {
            if content.contains([' ', ':', '{', '[', '"', '\'']) {
                return None;
            }
            (None, content_start)
        }
    };
    let cursor = Cursor { indent, dash, col };
    // Lines after the cursor's that belong to its mapping.
    let mut siblings = match text[offset..].find('\n') {
        Some(i) => siblings_after(&text[offset + i + 1..], &cursor),
        None => Vec::new(),
    };
    let path = path_before(&text[..line_start], &cursor, &mut siblings)?;
    Some(Place {
        path,
        siblings,
        value_of,
        start: start as u32,
    })
}

/// The cursor's line: its indentation, whether it is a sequence item, and the column its
/// content starts at ([`split_line`]).
struct Cursor {
    indent: usize,
    dash: bool,
    col: usize,
}

/// The keys, with their values, of the lines of `after` (the text after the cursor's
/// line) that belong to the cursor's mapping.
fn siblings_after(after: &str, cursor: &Cursor) -> Vec<(String, String)> {
    let mut siblings = Vec::new();
    for l in after.lines() {
        if is_document_marker(l) {
            break;
        }
        let (i, d, c, content) = split_line(l);
        if is_skipped(content) || c > cursor.col {
            continue;
        }
        if c < cursor.col || d || i < cursor.indent {
            break;
        }
        siblings.extend(key_of(content).map(|(k, v)| (k, v.to_string())));
    }
    siblings
}

/// What the search of the lines before the cursor is in.
enum Seek {
    /// In the mapping whose keys are at this column (`true`: the cursor's).
    Map(usize, bool),
    /// The key owning a sequence whose dashes are at this column.
    Seq(usize),
}

/// A parent line `key:` (`- key:` when `dash`, its dash at `indent`, its key at
/// `col`): the key joins the path, and the search goes on for what holds it.
fn parent(path: &mut Vec<String>, key: String, dash: bool, indent: usize, col: usize) -> Seek {
    path.push(key);
    if dash {
        path.push("0".to_string());
        Seek::Seq(indent)
    } else {
        Seek::Map(col, false)
    }
}

/// The path from the root to the cursor's mapping, read from `before` (the text before
/// the cursor's line) bottom up: the siblings above the cursor join `siblings` until the
/// mapping's start, then each parent joins the path. `None` where a parent line is not
/// a key.
fn path_before(before: &str, cursor: &Cursor, siblings: &mut Vec<(String, String)>) -> Option<Vec<String>> {
    let mut path: Vec<String> = Vec::new();
    let mut seek = if cursor.dash {
        path.push("0".to_string());
        Seek::Seq(cursor.indent)
    } else {
        Seek::Map(cursor.col, true)
    };
    for l in before.lines().rev() {
        if is_document_marker(l) {
            break;
        }
        let (i, d, c, content) = split_line(l);
        if is_skipped(content) {
            continue;
        }
        match seek {
            Seek::Map(need, current) => {
                if c > need {
                    continue;
                }
                if c == need {
                    if current {
                        siblings.extend(key_of(content).map(|(k, v)| (k, v.to_string())));
                    }
                    if d {
                        path.push("0".to_string());
                        seek = Seek::Seq(i);
                    }
                    continue;
                }
                // A parent: `key:` (or `- key:` inside a sequence item).
                seek = parent(&mut path, key_of(content)?.0, d, i, c);
            }
            Seek::Seq(s) => {
                if i > s || (d && i == s) {
                    continue;
                }
                seek = parent(&mut path, key_of(content)?.0, d, i, c);
            }
        }
        if matches!(seek, Seek::Map(0, false)) {
            break;
        }
    }
    path.reverse();
    Some(path)
}

/// The kind of the document around `offset`: its classification, else the kind its
/// `$schema` line names (a document that does not parse yet).
fn kind_at(checked: &Checked, offset: u32) -> Option<&'static Kind> {
    let prepared = &checked.prepared;
    let docs = prepared.loaded.documents.iter().zip(&prepared.classes);
    let classified = docs
        .filter(|(d, _)| d.span.start <= offset)
        .last()
        .or_else(|| prepared.loaded.documents.iter().zip(&prepared.classes).next())
        .and_then(|(_, c)| c.kind.filter(|_| c.is_checked()));
    if classified.is_some() {
        return classified;
    }
    let text = &checked.source.text;
    let at = (offset as usize).min(text.len());
    let begin = text[..at].rfind("\n---").map_or(0, |i| i + 1);
    let end = text[at..].find("\n---").map_or(text.len(), |i| at + i);
    let section = text.get(begin..end)?;
    section.lines().find_map(|l| {
        let url = l.strip_prefix("$schema:")?.trim().trim_matches(['"', '\'']);
        let last = url.rsplit('/').next()?;
        let stem = last
            .strip_suffix(".schema.json")
            .or_else(|| last.strip_suffix(".json"))
            .unwrap_or(last);
        let kind = kinds::table().by_schema_name(stem)?;
        kinds::table().families[kind.family]
            .skip
            .is_none()
            .then_some(kind)
    })
}

/// The completion items at byte `offset` (empty outside Azure ML files and in JSON).
pub fn complete(ws: &Analysis, checked: &Checked, offset: u32) -> Vec<Completion> {
    if checked.format() == Format::Json {
        return Vec::new();
    }
    let source = &checked.source;
    let offset = offset.min(source.text.len() as u32);
    let Some(place) = place(&source.text, offset as usize) else {
        return Vec::new();
    };
    let range = Span::new(place.start.min(offset), offset);
    let typed = source
        .text
        .get(place.start as usize..offset as usize)
        .unwrap_or("");
    let item =
        |label: String, kind: CompletionKind, insert: String| Completion::new(label, kind, range, insert);
    let kind = kind_at(checked, offset);
    // Inside a `${{...}}` being typed: the names the binding may take, nothing else.
    if kind.is_some() {
        if let Some(items) = super::bindings::complete(ws, checked, offset) {
            return items;
        }
    }
    if let (Some(key), true) = (&place.value_of, place.path.is_empty()) {
        if key == "$schema" {
            return schema_urls(&item);
        }
    }
    let Some(kind) = kind else {
        // A new file: one snippet per kind.
        if place.value_of.is_none() && place.path.is_empty() && place.siblings.is_empty() {
            return new_file_snippets(&item);
        }
        return Vec::new();
    };
    let pointer = Pointer::from_segments(place.path.iter());
    match &place.value_of {
        None => {
            let type_value = place
                .siblings
                .iter()
                .find(|(k, _)| k == "type")
                .map(|(_, v)| v.trim_matches(['"', '\'']));
            crate::schema::describe::keys_at(&kind.id, &pointer, type_value)
                .into_iter()
                .filter(|(k, _)| !place.siblings.iter().any(|(s, _)| s == k))
                // `$schema` belongs at the top of a file only.
                .filter(|(k, _)| place.path.is_empty() || k != "$schema")
                .map(|(key, doc)| {
                    let mut it = item(key.clone(), CompletionKind::Property, format!("{key}: "));
                    if !doc.types.is_empty() {
                        it.detail = Some(doc.types.join(" | "));
                    }
                    it.documentation = doc.description;
                    it
                })
                .collect()
        }
        Some(key) => {
            let mut items = match key.as_str() {
                "size" | "instance_type" => vm_sizes(typed, &item),
                "compute" | "default_compute" | "model" | "environment" | "endpoint_name" => {
                    names(ws, key, &item)
                }
                _ => Vec::new(),
            };
            if let Some(doc) = crate::schema::describe::describe(&kind.id, &pointer.child(key)) {
                for v in &doc.values {
                    if !items.iter().any(|i| &i.label == v) {
                        items.push(item(v.clone(), CompletionKind::EnumMember, v.clone()));
                    }
                }
                if doc.types.iter().any(|t| t == "boolean") {
                    for v in ["true", "false"] {
                        items.push(item(v.to_string(), CompletionKind::Value, v.to_string()));
                    }
                }
            }
            items
        }
    }
}

/// The `$schema` URL of every kind amlint checks (each kind's first schema name).
fn schema_urls(item: &dyn Fn(String, CompletionKind, String) -> Completion) -> Vec<Completion> {
    checked_kinds()
        .map(|(k, name)| {
            let url = format!("{SCHEMA_BASE}{name}.schema.json");
            let mut it = item(url.clone(), CompletionKind::File, url);
            it.detail = Some(k.title.clone());
            it
        })
        .collect()
}

/// Every kind amlint checks, with its first schema name.
fn checked_kinds() -> impl Iterator<Item = (&'static Kind, &'static String)> {
    let table = kinds::table();
    table
        .kinds
        .iter()
        .filter(|k| table.families[k.family].skip.is_none())
        .filter_map(|k| Some((k, k.schema_names.first()?)))
}

/// A skeleton for a new file of every kind amlint checks: its `$schema`, its `type:`
/// when the kind has a single one, and the keys its schema requires at the top, as tab
/// stops.
fn new_file_snippets(item: &dyn Fn(String, CompletionKind, String) -> Completion) -> Vec<Completion> {
    let store = crate::schema::store::store();
    checked_kinds()
        .map(|(k, name)| {
            let mut text = format!("\\$schema: {SCHEMA_BASE}{name}.schema.json\n");
            let types = crate::schema::describe::describe(&k.id, &Pointer::parse("/type"))
                .map(|d| d.values)
                .unwrap_or_default();
            if let [t] = types.as_slice() {
                text.push_str(&format!("type: {t}\n"));
            }
            // The keys the SDK requires: those the CLI can take from its flags (`name`,
            // which a file usually states), then the rest.
            let doc = store.kind_doc(&k.id);
            let keys = |field: &str| {
                doc.and_then(|d| d.get(field))
                    .and_then(serde_json::Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(serde_json::Value::as_str)
            };
            let mut stop = 0;
            for key in keys("x-amlint-from-cli").chain(keys("required")) {
                if key != "type" && key != "$schema" {
                    stop += 1;
                    text.push_str(&format!("{key}: ${stop}\n"));
                }
            }
            text.push_str("$0");
            let mut it = item(format!("{name} (new file)"), CompletionKind::Snippet, text);
            it.filter_text = Some(name.clone());
            it.detail = Some(k.title.clone());
            it.snippet = true;
            it
        })
        .collect()
}

/// The catalogue's sizes starting with what is typed (`Standard_` optional), with their
/// series, vCPUs, memory and GPUs; retired series are marked deprecated.
fn vm_sizes(typed: &str, item: &dyn Fn(String, CompletionKind, String) -> Completion) -> Vec<Completion> {
    let catalogue = crate::facts::vm::catalogue();
    let today = crate::facts::today();
    let typed = typed.trim_matches(['"', '\'']).to_ascii_lowercase();
    let bare = typed.strip_prefix("standard_").unwrap_or(&typed);
    catalogue
        .sizes
        .iter()
        .filter(|s| {
            let lower = s.name.to_ascii_lowercase();
            let short = lower.strip_prefix("standard_").unwrap_or(&lower);
            lower.starts_with(&typed) || short.starts_with(bare)
        })
        .map(|s| {
            let series = catalogue.series.get(s.series);
            let mut detail = format!("{} vCPU, {} GiB", s.vcpus, s.memory_gib);
            if s.gpus > 0.0 {
                detail.push_str(&format!(", {} GPU", s.gpus));
                if let Some(acc) = series.and_then(|x| x.accelerator.as_deref()) {
                    detail.push_str(&format!(" ({acc})"));
                }
            }
            let mut retired = false;
            if let Some(series) = series {
                detail = format!("{}: {detail}", series.id);
                retired =
                    series.retired_undated || series.retirement.as_deref().is_some_and(|d| d <= &*today);
                if let Some(date) = &series.retirement {
                    detail.push_str(&format!("; retire{} {date}", if retired { "d" } else { "s" }));
                } else if series.retired_undated {
                    detail.push_str("; retired");
                }
                if !series.support.is_empty() {
                    detail.push_str(&format!("; {}", series.support));
                }
            }
            let mut it = item(s.name.clone(), CompletionKind::Value, s.name.clone());
            it.detail = Some(detail);
            if retired {
                it.deprecated = true;
            }
            it
        })
        .collect()
}

/// The names the workspace defines, in the form the key takes.
fn names(
    ws: &Analysis,
    key: &str,
    item: &dyn Fn(String, CompletionKind, String) -> Completion,
) -> Vec<Completion> {
    let index = ws.definitions();
    let mut out: Vec<(String, String)> = match key {
        "compute" | "default_compute" => index
            .compute_names()
            .into_iter()
            .map(|n| {
                let c = index.compute(n);
                (format!("azureml:{n}"), c.map(|c| c.ctype).unwrap_or_default())
            })
            .collect(),
        "endpoint_name" => index
            .endpoint_names()
            .into_iter()
            .map(|n| (n.to_string(), "endpoint".to_string()))
            .collect(),
        // Each version, and `@latest` once per name (the CLI resolves the label).
        "environment" => index
            .environments()
            .iter()
            .flat_map(|e| {
                let version = e
                    .version
                    .as_ref()
                    .map(|v| (format!("azureml:{}:{v}", e.name), "environment".to_string()));
                let latest = (
                    format!("azureml:{}@latest", e.name),
                    "environment, latest version".to_string(),
                );
                version.into_iter().chain([latest])
            })
            .collect(),
        _ => index
            .models()
            .iter()
            .map(|m| match &m.version {
                Some(v) => (format!("azureml:{}:{v}", m.name), "model".to_string()),
                None => (format!("azureml:{}", m.name), "model".to_string()),
            })
            .collect(),
    };
    out.sort();
    out.dedup();
    out.into_iter()
        .map(|(label, detail)| {
            let mut it = item(label.clone(), CompletionKind::Reference, label);
            it.detail = Some(detail);
            it
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn at(text: &str) -> Place {
        let offset = text.find('|').unwrap();
        let text = text.replace('|', "");
        place(&text, offset).unwrap()
    }

    #[test]
    fn places_are_read_by_indentation_in_unfinished_text() {
        let p =
            at("$schema: x\ntype: pipeline\njobs:\n  train:\n    type: command\n    comp|\n    command: x\n");
        assert_eq!(p.path, ["jobs", "train"]);
        assert_eq!(p.value_of, None);
        let keys: Vec<&str> = p.siblings.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["command", "type"]);
        assert_eq!(p.siblings[1].1, "command");

        let p = at("a: 1\nresources:\n  instance_type: Stand|");
        assert_eq!(p.path, ["resources"]);
        assert_eq!(p.value_of.as_deref(), Some("instance_type"));
        assert_eq!(p.start as usize, "a: 1\nresources:\n  instance_type: ".len());

        // Sequence items: the item's own keys only.
        let p = at("steps:\n- a: 1\n  b: 2\n- c: 3\n  |\nother: 1\n");
        assert_eq!(p.path, ["steps", "0"]);
        let keys: Vec<&str> = p.siblings.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["c"]);
        let p = at("x:\n  - |");
        assert_eq!(p.path, ["x", "0"]);

        // Top level, an empty text, a comment.
        assert_eq!(at("|").path, Vec::<String>::new());
        assert_eq!(at("a: 1\n\n|").siblings.len(), 1);
        assert!(place("# comment", 5).is_none());
        // Past the end, or inside a character: no panic.
        assert!(place("é", 1).is_some());
        assert!(place("a: 1", 99).is_some());
    }

    /// Every offset of awkward text (tabs, CRLF, non-ASCII, flow collections, block
    /// scalars, documents, dashes alone): an answer or none, never a panic.
    #[test]
    fn every_offset_has_an_answer_or_none() {
        let text = "$schema: x\r\n- \n-\n  - - a: é🎉\n\tb: |\n    x: y\n---\n{a: [1, 2]}: x\n\"k\": 'v'\n  : z\n...\n#\n key:\n";
        for offset in 0..=text.len() + 2 {
            let _ = place(text, offset);
        }
    }
}
