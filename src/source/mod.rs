//! Source text and positions: the one place that turns byte offsets into lines and
//! columns (Unicode scalar values for humans and JSON, UTF-16 code units for LSP).

use std::sync::Arc;

mod pointer;
pub use pointer::Pointer;

/// A half-open byte range `[start, end)` into a [`SourceFile`]'s text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: u32, end: u32) -> Self {
        Self { start, end }
    }

    /// An empty span at `offset`.
    pub const fn at(offset: u32) -> Self {
        Self {
            start: offset,
            end: offset,
        }
    }

    pub const fn len(self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    pub const fn is_empty(self) -> bool {
        self.end <= self.start
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> Self {
        miette::SourceSpan::new((span.start as usize).into(), span.len() as usize)
    }
}

/// The length of the line break at `at` as YAML (PyYAML) reads line breaks — LF, CRLF, a
/// CR alone, NEL (U+0085), LS (U+2028), PS (U+2029) —, or 0 when there is none. A comment
/// ends at any of them, and what follows one starts a line of its own, although editors
/// and [`LineIndex`] count only LF.
pub fn yaml_break_len(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes.get(at..).unwrap_or_default() {
        [b'\r', b'\n', ..] => 2,
        [b'\r' | b'\n', ..] => 1,
        [0xc2, 0x85, ..] => 2,
        [0xe2, 0x80, 0xa8 | 0xa9, ..] => 3,
        _ => 0,
    }
}

/// Where the line holding `from` ends as YAML reads lines ([`yaml_break_len`]): the
/// offset of its line break, or the end of the text.
pub fn yaml_line_end(text: &str, from: usize) -> usize {
    let tail = text.get(from..).unwrap_or_default();
    tail.find(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
        .map_or(text.len(), |i| from + i)
}

/// A 1-based line and column plus the byte offset it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in Unicode scalar values.
    pub column: u32,
    /// Byte offset into the file.
    pub offset: u32,
}

/// A 0-based line and UTF-16 column, as the Language Server Protocol counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utf16Position {
    pub line: u32,
    pub character: u32,
}

/// Where every line starts, so that offsets map to lines in `O(log n)`; and, inside long
/// lines, how many characters precede every [`CHECKPOINT`]-th byte, so that a column costs
/// at most that many characters to count however long the line (a minified JSON file or a
/// 7 MB value is one line, and each of its findings needs a column).
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of the first character of each line. `line_starts[0]` is after a BOM.
    line_starts: Vec<u32>,
    /// Checkpoints inside lines longer than [`CHECKPOINT`] bytes, by offset.
    checkpoints: Vec<Checkpoint>,
}

/// Bytes between two checkpoints of a long line.
const CHECKPOINT: usize = 4096;

/// A place inside a long line (on a character boundary) and the characters and UTF-16
/// units from the line's start to it.
#[derive(Debug, Clone, Copy)]
struct Checkpoint {
    offset: u32,
    chars: u32,
    utf16: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let mut line_starts = vec![bom];
        let bytes = text.as_bytes();
        let body = &bytes[bom as usize..];
        for i in memchr::memchr2_iter(b'\n', b'\r', body).map(|i| i + bom as usize) {
            match bytes[i] {
                b'\n' => line_starts.push(i as u32 + 1),
                // A lone CR ends a line too (YAML and editors agree); CRLF counts once.
                _ if bytes.get(i + 1) != Some(&b'\n') => line_starts.push(i as u32 + 1),
                _ => {}
            }
        }
        line_starts.shrink_to_fit();
        let mut checkpoints = Vec::new();
        for (i, &start) in line_starts.iter().enumerate() {
            let end = line_starts.get(i + 1).map_or(text.len(), |&e| e as usize);
            if end - start as usize <= CHECKPOINT {
                continue;
            }
            let (mut at, mut chars, mut utf16) = (start as usize, 0u32, 0u32);
            loop {
                let mut next = at + CHECKPOINT;
                if next >= end {
                    break;
                }
                while !text.is_char_boundary(next) {
                    next += 1;
                }
                for c in text[at..next].chars() {
                    chars += 1;
                    utf16 += c.len_utf16() as u32;
                }
                checkpoints.push(Checkpoint {
                    offset: next as u32,
                    chars,
                    utf16,
                });
                at = next;
            }
        }
        checkpoints.shrink_to_fit();
        Self {
            line_starts,
            checkpoints,
        }
    }

    /// Where to start counting towards `offset` on a line starting at `start`: the last
    /// checkpoint of the line at or before `offset`, else the line's start.
    fn counted_from(&self, start: u32, offset: u32) -> Checkpoint {
        let i = self.checkpoints.partition_point(|c| c.offset <= offset);
        match i.checked_sub(1).map(|i| self.checkpoints[i]) {
            Some(c) if c.offset > start => c,
            _ => Checkpoint {
                offset: start,
                chars: 0,
                utf16: 0,
            },
        }
    }

    /// 0-based line containing `offset`.
    fn line_of(&self, offset: u32) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte offset where the 0-based `line` starts.
    pub fn line_start(&self, line: usize) -> Option<u32> {
        self.line_starts.get(line).copied()
    }

    /// Clamp `offset` into the text and onto a character boundary.
    fn clamp(text: &str, offset: u32) -> u32 {
        let mut o = (offset as usize).min(text.len());
        while o > 0 && !text.is_char_boundary(o) {
            o -= 1;
        }
        o as u32
    }

    pub fn position(&self, text: &str, offset: u32) -> Position {
        let offset = Self::clamp(text, offset);
        let line = self.line_of(offset);
        let from = self.counted_from(self.line_starts[line].min(offset), offset);
        let column = from.chars + text[from.offset as usize..offset as usize].chars().count() as u32 + 1;
        Position {
            line: line as u32 + 1,
            column,
            offset,
        }
    }

    pub fn utf16_position(&self, text: &str, offset: u32) -> Utf16Position {
        let offset = Self::clamp(text, offset);
        let line = self.line_of(offset);
        let from = self.counted_from(self.line_starts[line].min(offset), offset);
        let character = from.utf16
            + text[from.offset as usize..offset as usize]
                .chars()
                .map(|c| c.len_utf16() as u32)
                .sum::<u32>();
        Utf16Position {
            line: line as u32,
            character,
        }
    }

    /// The byte offset of an LSP position; positions past a line's end clamp to it.
    pub fn offset_of_utf16(&self, text: &str, pos: Utf16Position) -> u32 {
        let Some(&start) = self.line_starts.get(pos.line as usize) else {
            return text.len() as u32;
        };
        let end = self
            .line_starts
            .get(pos.line as usize + 1)
            .map_or(text.len(), |&e| e as usize);
        let mut units = 0u32;
        for (i, c) in text[start as usize..end].char_indices() {
            if units >= pos.character || c == '\n' || c == '\r' {
                return start + i as u32;
            }
            units += c.len_utf16() as u32;
        }
        end as u32
    }
}

/// One checked file's text and line index. Shared (`Arc`) between the document tree,
/// diagnostics and reports; nothing else computes line numbers.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as displayed: as given on the command line or relative to it.
    pub path: String,
    pub text: String,
    pub lines: LineIndex,
    /// The positions of some offsets, sorted, kept when the text is dropped
    /// ([`SourceFile::without_text`]).
    kept: Vec<Position>,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: String) -> Arc<Self> {
        let lines = LineIndex::new(&text);
        Arc::new(Self {
            path: path.into(),
            text,
            lines,
            kept: Vec::new(),
        })
    }

    /// This file without its text, still placing the offsets `at` (a large run drops the
    /// text of a file without findings, but `amlint inventory` and `--show-files` place
    /// the computes it defines and names).
    pub fn without_text(&self, at: impl IntoIterator<Item = u32>) -> Arc<Self> {
        let mut kept: Vec<Position> = at.into_iter().map(|o| self.position(o)).collect();
        kept.sort_unstable_by_key(|p| p.offset);
        kept.dedup_by_key(|p| p.offset);
        let mut file = Self::new(self.path.clone(), String::new());
        if let Some(f) = Arc::get_mut(&mut file) {
            f.kept = kept;
        }
        file
    }

    pub fn position(&self, offset: u32) -> Position {
        if let Ok(i) = self.kept.binary_search_by_key(&offset, |p| p.offset) {
            return self.kept[i];
        }
        self.lines.position(&self.text, offset)
    }

    pub fn utf16_position(&self, offset: u32) -> Utf16Position {
        self.lines.utf16_position(&self.text, offset)
    }

    /// The text a span covers (empty when the span is out of range).
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_and_utf16_units() {
        let text = "a: 1\nné: \"😀x\"\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap() as u32;
        let p = idx.position(text, x);
        assert_eq!((p.line, p.column), (2, 7));
        let u = idx.utf16_position(text, x);
        // n, é, :, space, ", 😀 (2 units) → x at 7
        assert_eq!((u.line, u.character), (1, 7));
        assert_eq!(idx.offset_of_utf16(text, u), x);
    }

    #[test]
    fn columns_on_long_lines_agree_with_counting_from_the_line_start() {
        // Lines of 30,000 bytes mixing 1-, 2-, 3- and 4-byte characters (checkpoints fall
        // inside multi-byte characters and move to the next boundary), after a short line.
        let long: String = "aé€😀".repeat(3_000);
        let text = format!("k: v\n{long}\n{long}x\n");
        let idx = LineIndex::new(&text);
        assert!(idx.checkpoints.len() > 10);
        for offset in (0..text.len()).filter(|&o| text.is_char_boundary(o)).step_by(97) {
            let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let p = idx.position(&text, offset as u32);
            assert_eq!(
                p.column as usize,
                text[start..offset].chars().count() + 1,
                "{offset}"
            );
            let u = idx.utf16_position(&text, offset as u32);
            assert_eq!(
                u.character as usize,
                text[start..offset].encode_utf16().count(),
                "{offset}"
            );
        }
    }

    #[test]
    fn crlf_and_lone_cr_end_lines() {
        let text = "a: 1\r\nb: 2\rc: 3";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 3);
        let c = text.find('c').unwrap() as u32;
        assert_eq!(idx.position(text, c).line, 3);
        assert_eq!(idx.position(text, c).column, 1);
    }

    #[test]
    fn bom_is_not_a_column() {
        let text = "\u{feff}key: v";
        let idx = LineIndex::new(text);
        let k = text.find('k').unwrap() as u32;
        assert_eq!(idx.position(text, k).column, 1);
        assert_eq!(idx.utf16_position(text, k).character, 0);
    }

    #[test]
    fn offsets_clamp_to_char_boundaries() {
        let text = "é";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 1).offset, 0);
        assert_eq!(idx.position(text, 99).offset, 2);
    }
}
