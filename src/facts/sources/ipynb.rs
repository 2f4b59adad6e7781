//! Notebooks (`.ipynb`): their code cells joined in order into one text, every byte of it
//! mapped back to where it is in the notebook's JSON — a JSON string's escapes (`\n`,
//! `\"`, `\u00e9`) included —, so that what a reader finds in the code is reported at the
//! notebook file's own lines and columns.

use crate::document::{Document, NodeId, Value};
use crate::source::Span;

/// The most pieces a notebook's code may map to (16 bytes each); beyond, it is not read.
const MAX_SEGMENTS: usize = 2_000_000;

/// The code of a file, and the map from its offsets to the file's.
pub struct Code {
    pub text: String,
    /// Where each code cell starts in `text` (a plain file: one, at 0).
    pub cells: Vec<usize>,
    /// Pieces of `text` in order, each with where it is in the file.
    segments: Vec<Seg>,
}

/// A piece of the code: `len` code bytes from `code`, either the file's bytes from `file`
/// one for one (`raw == 0 && dec == 0`), or a run of escapes each `raw` file bytes long
/// standing for `dec` code bytes (a cell's joint: `raw` 0, `dec` 1).
#[derive(Clone, Copy, Debug)]
struct Seg {
    code: u32,
    file: u32,
    len: u32,
    raw: u8,
    dec: u8,
}

impl Code {
    /// A file whose text is its code.
    pub fn plain(text: &str) -> Code {
        Code {
            text: text.to_string(),
            cells: vec![0],
            segments: vec![Seg {
                code: 0,
                file: 0,
                len: text.len() as u32,
                raw: 0,
                dec: 0,
            }],
        }
    }

    /// No code yet (a reader appends its pieces).
    pub fn empty() -> Code {
        Code {
            text: String::new(),
            cells: vec![0],
            segments: Vec::new(),
        }
    }

    /// It maps more pieces than a reader reads ([`MAX_SEGMENTS`]).
    pub fn too_large(&self) -> bool {
        self.segments.len() > MAX_SEGMENTS
    }

    /// Appends `text`, the file's bytes at `file` one for one.
    pub fn push_exact(&mut self, file: usize, text: &str) {
        if !text.is_empty() {
            self.segments.push(Seg {
                code: self.text.len() as u32,
                file: file as u32,
                len: text.len() as u32,
                raw: 0,
                dec: 0,
            });
            self.text.push_str(text);
        }
    }

    /// Appends `decoded`, which the `raw` file bytes at `file` stand for (a run of equal
    /// escapes is one segment).
    pub fn push_escape(&mut self, file: usize, raw: usize, decoded: &str) {
        let (raw8, dec8) = (raw as u8, decoded.len() as u8);
        let code = self.text.len() as u32;
        self.text.push_str(decoded);
        if let Some(last) = self.segments.last_mut()
            && last.dec == dec8
            && last.dec > 0
            && last.raw == raw8
            && last.code + last.len == code
            && last.file as usize + (last.len / last.dec as u32) as usize * raw == file
        {
            last.len += dec8 as u32;
            return;
        }
        self.segments.push(Seg {
            code,
            file: file as u32,
            len: dec8 as u32,
            raw: raw8,
            dec: dec8,
        });
    }

    /// Where the code byte at `off` is in the file (`after`: the offset just after it).
    pub fn file_offset(&self, off: usize, after: bool) -> usize {
        let i = self
            .segments
            .partition_point(|s| s.code as usize <= off)
            .saturating_sub(1);
        let Some(s) = self.segments.get(i) else {
            return 0;
        };
        let within = off
            .saturating_sub(s.code as usize)
            .min(s.len.saturating_sub(1) as usize);
        let f = s.file as usize;
        if s.dec == 0 {
            f + within + usize::from(after)
        } else {
            let k = within / s.dec as usize;
            f + (k + usize::from(after)) * s.raw as usize
        }
    }

    /// Where a code span is in the file (its end: just after its last byte's place).
    pub fn span(&self, start: usize, end: usize) -> Span {
        let a = self.file_offset(start, false);
        let b = if end > start {
            self.file_offset(end - 1, true)
        } else {
            a
        };
        Span::new(a as u32, b.max(a) as u32)
    }
}

/// The code cells of a notebook joined in order (each ends with a newline), mapped to the
/// JSON strings they come from (`Err`: why they were not read, as [`cells_of`] says);
/// `None` for a file that is not a notebook, or whose kernel's language is not `language`
/// (when given and the notebook names one).
pub fn code_cells(text: &str, display: &str, language: Option<&str>) -> Option<Result<Code, String>> {
    let [code] = cells_of(text, display, language, ["code"])?;
    Some(code)
}

/// The cells of each of `types` (`code`, `markdown`) of a notebook, each type's joined in
/// order (each cell ends with a newline) and mapped as [`code_cells`] maps code, from one
/// parse of the file. A type is `Err` with why, as a clause, when it is not read: its
/// cells map to more than [`MAX_SEGMENTS`] pieces, or the notebook's JSON is beyond a
/// limit of the loader (then every type is). `None`: not a notebook (or not JSON), or its
/// kernel's language is not `language`.
pub fn cells_of<const N: usize>(
    text: &str,
    display: &str,
    language: Option<&str>,
    types: [&str; N],
) -> Option<[Result<Code, String>; N]> {
    let loaded = crate::load::parse_text(
        display,
        text.to_string(),
        crate::load::Format::Json,
        &Default::default(),
    );
    if let Some(limit) = loaded
        .diagnostics
        .iter()
        .find(|d| d.code == crate::diagnostic::codes::AML005.code)
    {
        let why = format!("its JSON is beyond a limit of the loader ({})", limit.message);
        return Some(std::array::from_fn(|_| Err(why.clone())));
    }
    let doc = loaded.documents.first()?;
    let root = doc.root.filter(|r| matches!(doc.value(*r), Value::Map(_)))?;
    let lang = doc
        .get(root, "metadata")
        .and_then(|m| doc.get(m, "kernelspec"))
        .and_then(|k| doc.get(k, "language"))
        .and_then(|l| match doc.value(l) {
            Value::Str(s) => Some(s.to_ascii_lowercase()),
            _ => None,
        });
    if let (Some(l), Some(want)) = (&lang, language)
        && l != want
    {
        return None;
    }
    let mut cells: Vec<NodeId> = Vec::new();
    if let Some(c) = doc.get(root, "cells") {
        cells.extend(doc.items(c).iter().copied());
    }
    if let Some(ws) = doc.get(root, "worksheets") {
        // nbformat 3: worksheets[].cells[], code in `input`.
        for w in doc.items(ws) {
            if let Some(c) = doc.get(*w, "cells") {
                cells.extend(doc.items(c).iter().copied());
            }
        }
    }
    let mut out: [Result<Code, String>; N] = std::array::from_fn(|_| {
        Ok(Code {
            text: String::new(),
            cells: Vec::new(),
            segments: Vec::new(),
        })
    });
    for cell in cells {
        let of_type = doc.get(cell, "cell_type").and_then(|t| match doc.value(t) {
            Value::Str(s) => types.iter().position(|w| **w == **s),
            _ => None,
        });
        let Some(code) = of_type.and_then(|k| out[k].as_mut().ok()) else {
            continue;
        };
        let Some(src) = doc.get(cell, "source").or_else(|| doc.get(cell, "input")) else {
            continue;
        };
        code.cells.push(code.text.len());
        let strings: Vec<NodeId> = match doc.value(src) {
            Value::Str(_) => vec![src],
            Value::Seq(items) => items.clone(),
            _ => continue,
        };
        for s in strings {
            append_string(doc, s, text, code);
        }
        if !code.text.ends_with('\n') {
            let at = code.file_offset(code.text.len().saturating_sub(1), true);
            code.push_escape(at, 0, "\n");
        }
        if code.too_large()
            && let Some(k) = of_type
        {
            out[k] = Err(format!(
                "its {} cells map to more than {MAX_SEGMENTS} pieces (escapes and strings), the most a notebook reader reads",
                types[k]
            ));
        }
    }
    Some(out)
}

/// Appends a JSON string's value to the code, with the segments that map it back.
pub fn append_string(doc: &Document, id: NodeId, text: &str, code: &mut Code) {
    let n = doc.node(id);
    let Value::Str(_) = &n.value else { return };
    if n.span.len() < 2 {
        return;
    }
    let raw_start = n.span.start as usize + 1;
    let raw = &text[raw_start..n.span.end as usize - 1];
    let b = raw.as_bytes();
    let mut i = 0;
    let mut run = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        code.push_exact(raw_start + run, &raw[run..i]);
        let (decoded, len) = json_escape(&raw[i..]);
        code.push_escape(raw_start + i, len, &decoded);
        i += len;
        run = i;
    }
    code.push_exact(raw_start + run, &raw[run..]);
}

/// One JSON escape at the start of `s`: its text and length (a surrogate pair is one).
fn json_escape(s: &str) -> (String, usize) {
    let b = s.as_bytes();
    let simple = |c: char| (c.to_string(), 2);
    match b.get(1) {
        Some(b'n') => simple('\n'),
        Some(b't') => simple('\t'),
        Some(b'r') => simple('\r'),
        Some(b'b') => simple('\u{8}'),
        Some(b'f') => simple('\u{c}'),
        Some(b'/') => simple('/'),
        Some(b'\\') => simple('\\'),
        Some(b'"') => simple('"'),
        Some(b'u') => {
            let hex = |from: usize| {
                s.get(from..from + 4)
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
            };
            match hex(2) {
                Some(hi @ 0xD800..=0xDBFF) if s.get(6..8) == Some("\\u") => match hex(8) {
                    Some(lo @ 0xDC00..=0xDFFF) => {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        (char::from_u32(c).unwrap_or('\u{fffd}').to_string(), 12)
                    }
                    _ => ('\u{fffd}'.to_string(), 6),
                },
                Some(c) => (char::from_u32(c).unwrap_or('\u{fffd}').to_string(), 6),
                None => ('\u{fffd}'.to_string(), 2.min(s.len())),
            }
        }
        _ => ('\u{fffd}'.to_string(), 2.min(s.len()).max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_joined_and_mapped_back_through_escapes() {
        let nb = r#"{"cells": [
 {"cell_type": "markdown", "source": "x = 1"},
 {"cell_type": "code", "source": ["a = \"\u00e9\"\n", "b = 'x'"]},
 {"cell_type": "code", "source": "c = 2\n"}
], "metadata": {"kernelspec": {"language": "python"}}}"#;
        let code = code_cells(nb, "n.ipynb", Some("python")).unwrap().unwrap();
        assert_eq!(code.text, "a = \"\u{e9}\"\nb = 'x'\nc = 2\n");
        assert_eq!(code.cells, vec![0, 17]);
        let at = |s: &str| code.text.find(s).unwrap();
        // `b = 'x'`: byte for byte in the file.
        let b = at("b = 'x'");
        assert_eq!(&nb[code.span(b, b + 7).range()], "b = 'x'");
        // `"é"`: the escapes are the file's text of the characters they stand for.
        let q = at("\"");
        assert_eq!(&nb[code.span(q, q + 4).range()], "\\\"\\u00e9\\\"");
        assert!(code_cells(nb, "n.ipynb", Some("r")).is_none());
        // A run of equal escapes is one segment, yet each maps to its own place.
        let run = r#"{"cells": [{"cell_type": "code", "source": "x = '\u0041\u0042\u0043'"}]}"#;
        let code = code_cells(run, "r.ipynb", None).unwrap().unwrap();
        assert_eq!(code.text, "x = 'ABC'\n");
        assert_eq!(code.segments.len(), 4, "{:?}", code.segments);
        assert_eq!(&run[code.span(6, 7).range()], "\\u0042");
        assert_eq!(&run[code.span(5, 8).range()], "\\u0041\\u0042\\u0043");
        assert!(code_cells("[1, 2]", "n.ipynb", None).is_none());
        assert!(code_cells("{}", "n.ipynb", None).is_some_and(|c| c.is_ok_and(|c| c.text.is_empty())));
        assert!(code_cells("not json", "n.ipynb", None).is_none());
    }
}
