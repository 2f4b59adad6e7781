//! The source snippet of a human finding, bounded and escaped. miette draws snippets from
//! a [`SourceCode`]; given the file itself, it would scan from the start of the file for
//! every finding (quadratic in findings × file size) and draw whole lines (a 7 MB line
//! beside each finding), raw (escape sequences reach the terminal). A [`Snippet`] is
//! instead a small text of its own: the lines the finding's spans touch and one line of
//! context around each group, found through the file's line index, each line escaped
//! ([`crate::escape`]) and cut to a window around what it shows. Spans are mapped into
//! that text, so miette draws only what is here: the output of a finding is bounded
//! whatever the file.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::escape::{escaped_len, push_escaped};
use crate::source::{SourceFile, Span};

/// Lines of context drawn before and after what a finding points at.
const CONTEXT: usize = 1;
/// A span over more lines than this is drawn by its first line.
const MAX_SPAN_LINES: usize = 6;
/// A line longer than this (in bytes) is cut around what it shows.
const MAX_LINE: usize = 1_000;
/// Characters kept on each side of the start of what a cut line shows, and of a cut
/// context line from its start.
const CUT_WINDOW: usize = 120;

/// One group of consecutive lines of the snippet.
struct Window {
    /// Where the group starts in [`Snippet::text`].
    start: usize,
    end: usize,
    /// 0-based line number of its first line in the file.
    line: usize,
    lines: usize,
}

/// The lines a finding shows, as miette reads them.
pub struct Snippet {
    name: String,
    text: String,
    windows: Vec<Window>,
    /// Where each mapped span starts in `text`, with its 0-based line and column in the
    /// file (columns in characters, as every other output counts them): the location
    /// miette prints in a snippet's header.
    starts: Vec<(usize, usize, usize)>,
}

/// How one line of the file appears in the snippet.
struct LineCut<'a> {
    /// The line without its line break.
    line: &'a str,
    /// Where the line starts in the file.
    offset: usize,
    /// The part of the line shown (bytes, on character boundaries).
    keep: std::ops::Range<usize>,
}

impl LineCut<'_> {
    fn cut_before(&self) -> bool {
        self.keep.start > 0
    }

    fn cut_after(&self) -> bool {
        self.keep.end < self.line.len()
    }

    fn push_to(&self, out: &mut String) {
        if self.cut_before() {
            out.push('…');
        }
        for c in self.line[self.keep.clone()].chars() {
            push_escaped(out, c);
        }
        if self.cut_after() {
            out.push('…');
        }
    }

    /// Where the file offset `at` (on this line, or at its end) lands in the line as shown.
    fn column_of(&self, at: usize) -> usize {
        let within = at.saturating_sub(self.offset).min(self.line.len());
        let marker = if self.cut_before() { '…'.len_utf8() } else { 0 };
        if within <= self.keep.start {
            return marker;
        }
        let shown = within.min(self.keep.end);
        let escaped: usize = self.line[self.keep.start..shown].chars().map(escaped_len).sum();
        let after = if within > self.keep.end {
            '…'.len_utf8()
        } else {
            0
        };
        marker + escaped + after
    }
}

/// The range of `line` (bytes) shown when it is long: `CUT_WINDOW` characters before and
/// after `focus` (a byte offset in the line), on character boundaries.
fn keep_range(line: &str, focus: Option<usize>) -> std::ops::Range<usize> {
    if line.len() <= MAX_LINE {
        return 0..line.len();
    }
    let focus = focus.unwrap_or(0).min(line.len());
    let start = line[..focus]
        .char_indices()
        .rev()
        .nth(CUT_WINDOW - 1)
        .map_or(0, |(i, _)| i);
    let end = line[focus..]
        .char_indices()
        .nth(CUT_WINDOW)
        .map_or(line.len(), |(i, _)| focus + i);
    start..end
}

impl Snippet {
    /// The snippet of `spans` (the primary span first) in `source`, and each span mapped
    /// into it; `None` when the file has no text to show (an unreadable file) or a span
    /// lies outside it.
    pub fn new(source: &SourceFile, spans: &[Span]) -> Option<(Snippet, Vec<SourceSpan>)> {
        let text = source.text.as_str();
        if text.is_empty()
            || spans.iter().any(|s| {
                s.end < s.start
                    || s.end as usize > text.len()
                    || !text.is_char_boundary(s.start as usize)
                    || !text.is_char_boundary(s.end as usize)
            })
        {
            return None;
        }
        let lines = &source.lines;
        let line_of = |offset: u32| source.position(offset).line as usize - 1;
        // The empty "line" after a final line break is not drawn as context.
        let last_line = match lines.line_start(lines.line_count() - 1) {
            Some(start) if start as usize == text.len() && lines.line_count() > 1 => lines.line_count() - 2,
            _ => lines.line_count() - 1,
        };
        // Each span as the lines it is drawn on (a long one by its first line).
        let shown: Vec<(usize, usize, Span)> = spans
            .iter()
            .map(|&s| {
                let first = line_of(s.start);
                let last = line_of(s.end.saturating_sub(1).max(s.start));
                if last - first >= MAX_SPAN_LINES {
                    let end = line_end(source, first);
                    (first, first, Span::new(s.start, end.max(s.start)))
                } else {
                    (first, last, s)
                }
            })
            .collect();
        let merged = line_groups(&shown, last_line);
        // Where on each line the spans start: what a cut line keeps in view.
        let focus = |line: usize| {
            shown
                .iter()
                .filter(|(first, _, _)| *first == line)
                .map(|(_, _, s)| s.start as usize)
                .min()
        };
        let mut snippet = Snippet {
            name: crate::escape::control(&source.path).into_owned(),
            text: String::new(),
            windows: Vec::with_capacity(merged.len()),
            starts: Vec::with_capacity(spans.len()),
        };
        let mut cuts: Vec<(usize, LineCut<'_>)> = Vec::new();
        for (a, b) in merged {
            let start = snippet.text.len();
            for line in a..=b {
                let offset = lines.line_start(line).unwrap_or(0) as usize;
                let end = line_end(source, line) as usize;
                let content = &text[offset..end];
                let keep = keep_range(content, focus(line).map(|f| f - offset));
                let cut = LineCut {
                    line: content,
                    offset,
                    keep,
                };
                let at = snippet.text.len();
                cut.push_to(&mut snippet.text);
                snippet.text.push('\n');
                cuts.push((at, cut));
            }
            snippet.windows.push(Window {
                start,
                end: snippet.text.len(),
                line: a,
                lines: b - a + 1,
            });
        }
        // A file offset in the snippet: on the last shown line that starts at or before it
        // (an offset in a line break, or past the last shown line, clamps to a line end).
        let map = |offset: usize| -> usize {
            let i = cuts.partition_point(|(_, c)| c.offset <= offset).max(1) - 1;
            let (at, cut) = &cuts[i];
            at + cut.column_of(offset)
        };
        let mapped = shown
            .iter()
            .map(|&(_, _, s)| {
                let start = map(s.start as usize);
                let end = map(s.end as usize).max(start);
                let at = source.position(s.start);
                snippet
                    .starts
                    .push((start, at.line as usize - 1, at.column as usize - 1));
                SourceSpan::from(start..end)
            })
            .collect();
        Some((snippet, mapped))
    }
}

/// Groups of lines to draw: each span's lines (`shown`: first, last) with their context,
/// up to `last_line`, overlapping ones merged; in order.
fn line_groups(shown: &[(usize, usize, Span)], last_line: usize) -> Vec<(usize, usize)> {
    let mut groups: Vec<(usize, usize)> = shown
        .iter()
        .map(|&(first, last, _)| {
            (
                first.saturating_sub(CONTEXT),
                (last + CONTEXT).min(last_line).max(last),
            )
        })
        .collect();
    groups.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(groups.len());
    for (a, b) in groups {
        match merged.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// The offset where the 0-based `line` ends, before its line break (`\n`, `\r\n` or a
/// lone `\r`, as [`crate::source::LineIndex`] counts lines).
fn line_end(source: &SourceFile, line: usize) -> u32 {
    let text = source.text.as_bytes();
    let Some(next) = source.lines.line_start(line + 1) else {
        return text.len() as u32;
    };
    let mut end = next as usize;
    if text.get(end.wrapping_sub(1)) == Some(&b'\n') {
        end -= 1;
    }
    if text.get(end.wrapping_sub(1)) == Some(&b'\r') {
        end -= 1;
    }
    end as u32
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let offset = span.offset();
        if before == 0 && after == 0 {
            // miette asks so for the location of a snippet's header: the span's own.
            if let Some(&(_, line, column)) = self.starts.iter().find(|(at, ..)| *at == offset) {
                let end = (offset + span.len()).min(self.text.len());
                return Ok(Box::new(MietteSpanContents::new_named(
                    self.name.clone(),
                    &self.text.as_bytes()[offset..end],
                    *span,
                    line,
                    column,
                    1,
                )));
            }
        }
        let window = self
            .windows
            .iter()
            .find(|w| offset >= w.start && offset < w.end.max(w.start + 1))
            .or(self.windows.last())
            .ok_or(MietteError::OutOfBounds)?;
        // The whole group: its context lines are already the ones to draw.
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &self.text.as_bytes()[window.start..window.end],
            SourceSpan::from(window.start..window.end),
            window.line,
            0,
            window.lines,
        )))
    }
}
