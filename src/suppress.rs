//! Inline suppressions in YAML comments (`docs/suppressions.md`):
//!
//! ```yaml
//! instance_type: Standard_NC24   # amlint: ignore[AML503] quota approved in ticket 4711
//! # amlint: ignore[vm-series-requires-approval, AML601] approved until the migration
//! instance_type: Standard_NC24
//! # amlint: ignore-file[AML601]
//! ```
//!
//! A comment is found by scanning lines for `#` at the start of a line or after
//! whitespace, skipping every `#` that lies inside a scalar of the document tree (quoted
//! strings, block scalars), so `command: "echo # amlint: ignore[X]"` is not a directive.
//! JSON has no comments: JSON files rely on the configuration and the baseline.

use std::collections::{HashMap, HashSet};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, codes};
use crate::document::{BlockEnds, Document, Value, after_blank_lines};
use crate::registry::Registry;
use crate::source::{SourceFile, Span};

/// The code of the unused-suppression rule.
pub const UNUSED: &str = codes::AML009.code;
/// The code of the expired-suppression rule (`until` date passed).
pub const EXPIRED: &str = codes::AML010.code;
/// The code of the suppression-without-reason rule (`require-reason = true`).
pub const NO_REASON: &str = codes::AML011.code;
/// The code of the enforced-rule-silenced rule (suppressions here, configuration entries in
/// `pipeline::enforcement_reports`).
pub const ENFORCED: &str = codes::AML012.code;

/// What a directive covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Findings starting on this 1-based line (`None`: no line follows the comment).
    Line(Option<u32>),
    File,
}

/// One rule named in a directive.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedRule {
    /// As written.
    pub text: String,
    pub span: Span,
    /// The rule's code, when `text` names a known rule.
    pub code: Option<&'static str>,
}

/// An `# amlint: ...` comment.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    pub scope: Scope,
    /// 1-based line of the comment.
    pub line: u32,
    /// From the `#` that starts the directive to the end of the comment.
    pub span: Span,
    pub entries: Vec<NamedRule>,
    /// The text after `]` (and after `until DATE`), if any: why the finding is accepted.
    pub reason: Option<String>,
    /// `until YYYY-MM-DD` after `]`: the last day the directive silences, and where the
    /// date is written.
    pub until: Option<(String, Span)>,
    /// Why the directive could not be read (it then silences nothing).
    pub malformed: Option<String>,
    /// The text between the brackets (for fixes that drop entries).
    pub list_span: Span,
    /// What to delete to remove the directive entirely.
    pub removal: Span,
    /// Other lines a line directive covers, as the reader of a file that defines computes
    /// says (`facts::sources::Comment::also`).
    pub also: Vec<u32>,
}

/// Every directive of a file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Suppressions {
    pub directives: Vec<Directive>,
}

/// Where each scalar lies, to tell comments from `#` inside strings.
struct Scalars(Vec<Span>);

impl Scalars {
    fn new(documents: &[Document]) -> Self {
        let mut spans: Vec<Span> = documents
            .iter()
            .flat_map(|d| d.nodes.iter())
            .filter(|n| !matches!(n.value, Value::Seq(_) | Value::Map(_) | Value::Alias(_)))
            .map(|n| n.span)
            .filter(|s| !s.is_empty())
            .collect();
        spans.sort();
        Self(spans)
    }

    /// Whether `offset` lies strictly inside a scalar (a multi-line scalar goes on
    /// across it), where a comment cannot be written.
    fn continues_over(&self, offset: u32) -> bool {
        let i = self.0.partition_point(|s| s.start < offset);
        self.0[..i].iter().rev().take(4).any(|s| offset < s.end)
    }

    fn contains(&self, offset: u32) -> bool {
        let i = self.0.partition_point(|s| s.start <= offset);
        // Scalars do not nest, but a key and its value may touch; check the few before.
        self.0[..i]
            .iter()
            .rev()
            .take(4)
            .any(|s| s.start <= offset && offset < s.end)
    }
}

/// The lines of a file as (start offset, text without line ending).
fn lines(source: &SourceFile) -> Vec<(u32, &str)> {
    let text = source.text.as_str();
    let mut out = Vec::with_capacity(source.lines.line_count());
    for i in 0..source.lines.line_count() {
        let Some(start) = source.lines.line_start(i) else {
            break;
        };
        let end = source.lines.line_start(i + 1).map_or(text.len(), |e| e as usize);
        let start_us = (start as usize).min(text.len());
        let line = text.get(start_us..end.max(start_us)).unwrap_or("");
        out.push((start, line.trim_end_matches(['\n', '\r'])));
    }
    out
}

/// Where the comment of a line starts (byte offset within the line), if it has one.
fn comment_start(line: &str, line_offset: u32, scalars: &Scalars) -> Option<usize> {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'#' {
            continue;
        }
        let after_space = i == 0 || matches!(bytes[i - 1], b' ' | b'\t');
        if after_space && !scalars.contains(line_offset + i as u32) {
            return Some(i);
        }
    }
    None
}

/// Whether a line holds nothing but whitespace or a comment.
fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// The edit that silences `code` on the line holding `offset` with a line directive, as
/// [`scan`] reads it: a trailing `  # amlint: ignore[CODE]` when the line has no comment,
/// else the comment on a line of its own above it, at the line's indentation. Each
/// candidate is proved by parsing the edited text: the values must not change (a comment
/// inside a block scalar would be text) and the directive must target the finding's line.
/// `None` when no candidate passes.
pub fn line_suppression_edit(
    source: &SourceFile,
    documents: &[Document],
    offset: u32,
    code: &str,
) -> Option<Edit> {
    let scalars = Scalars::new(documents);
    let lines = lines(source);
    let line_no = source.position(offset).line;
    let &(start, line) = lines.get(line_no as usize - 1)?;
    let end = start + line.len() as u32;
    let directive = format!("# amlint: ignore[{code}]");
    let mut candidates = Vec::new();
    if comment_start(line, start, &scalars).is_none() && !scalars.contains(end) {
        let code_end = start + line.trim_end().len() as u32;
        candidates.push((
            Edit {
                span: Span::new(code_end, end),
                replacement: format!("  {directive}"),
            },
            line_no,
        ));
    }
    if !scalars.continues_over(start) {
        let indent = &line[..line.len() - line.trim_start().len()];
        let crlf = source
            .text
            .get(end as usize..)
            .is_some_and(|rest| rest.starts_with("\r\n"));
        let eol = if crlf { "\r\n" } else { "\n" };
        candidates.push((
            Edit {
                span: Span::at(start),
                replacement: format!("{indent}{directive}{eol}"),
            },
            line_no + 1,
        ));
    }
    candidates
        .into_iter()
        .find(|(edit, target)| proves(source, documents, edit, code, *target))
        .map(|(edit, _)| edit)
}

/// Whether `edit` leaves every value as it was and adds a directive silencing `code` on
/// line `target`.
fn proves(source: &SourceFile, documents: &[Document], edit: &Edit, code: &str, target: u32) -> bool {
    let mut text = source.text.clone();
    if text.get(edit.span.range()).is_none() {
        return false;
    }
    text.replace_range(edit.span.range(), &edit.replacement);
    let limits = crate::limits::Limits::default();
    let after = crate::load::parse_text(&source.path, text, crate::load::Format::Yaml, &limits);
    let same = after.documents.len() == documents.len()
        && after
            .documents
            .iter()
            .zip(documents)
            .all(|(a, b)| a.partial == b.partial && a.to_json() == b.to_json());
    if !same {
        return false;
    }
    let registry = crate::registry::builtin();
    scan(&after.source, &after.documents, registry)
        .directives
        .iter()
        .any(|d| {
            d.malformed.is_none()
                && d.scope == Scope::Line(Some(target))
                && d.entries.iter().any(|e| e.text == code)
        })
}

/// The edit that silences `code` in the whole file: `# amlint: ignore-file[CODE]` on a
/// line of its own at the top (after a byte order mark).
pub fn file_suppression_edit(source: &SourceFile, code: &str) -> Edit {
    let start = source.lines.line_start(0).unwrap_or(0);
    let eol = if source.text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    Edit {
        span: Span::at(start),
        replacement: format!("# amlint: ignore-file[{code}]{eol}"),
    }
}

/// Finds every directive of a YAML file.
pub fn scan(source: &SourceFile, documents: &[Document], registry: &Registry) -> Suppressions {
    let mentions = |text: &str| {
        let bytes = text.as_bytes();
        memchr::memchr2_iter(b'a', b'A', bytes).any(|i| {
            bytes
                .get(i..i + 6)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"amlint"))
        })
    };
    if !mentions(&source.text) {
        return Suppressions::default();
    }
    let scalars = Scalars::new(documents);
    let lines = lines(source);
    let blocks: std::cell::OnceCell<BlockEnds> = std::cell::OnceCell::new();
    let mut directives = Vec::new();
    // The next line that is not blank or a comment, from the last own-line directive on:
    // directives come in line order, so the search resumes where it stopped (a run of
    // comment lines is crossed once, not once per directive in it).
    let mut next_code: Option<(usize, Option<usize>)> = None;
    for (index, &(offset, line)) in lines.iter().enumerate() {
        if !mentions(line) {
            continue;
        }
        let Some(start) = comment_start(line, offset, &scalars) else {
            continue;
        };
        // YAML ends a comment at a CR, NEL, LS or PS too: what follows is another line
        // (of data), which neither the directive nor its removal may take in.
        let cut = crate::source::yaml_line_end(line, start);
        let after_break = cut + crate::source::yaml_break_len(line, cut);
        let line = &line[..cut];
        let comment = &line[start..];
        // The directive may follow other comment text: `# noqa # amlint: ignore[...]`.
        let Some(at) = find_directive(comment) else {
            continue;
        };
        let own_line = line[..start].trim().is_empty();
        let line_no = index as u32 + 1;
        let dir_offset = offset + (start + at) as u32;
        let dir_text = &comment[at..];
        let span = Span::new(dir_offset, offset + line.len() as u32);
        let removal = if own_line {
            let end = if after_break > cut {
                // Up to and with the break that ends it: what follows starts its line
                // either way.
                offset as usize + after_break
            } else {
                // The whole line, with its line ending.
                lines
                    .get(index + 1)
                    .map_or(source.text.len(), |(o, _)| *o as usize)
            };
            // After a block scalar that keeps its final line breaks (`|+`), the comment
            // ends it: the blank lines after the comment would join its value.
            let blocks = blocks.get_or_init(|| BlockEnds::new(&source.text, documents));
            let end = if blocks.keeps_before(&source.text, offset as usize) {
                after_blank_lines(&source.text, end)
            } else {
                end
            };
            Span::new(offset, end as u32)
        } else {
            // From the whitespace before the comment's `#` to the end of the line.
            let code_end = line[..start + at].trim_end_matches([' ', '\t']).len();
            Span::new(offset + code_end as u32, offset + line.len() as u32)
        };
        let mut directive = parse_directive(dir_text, dir_offset, registry);
        directive.line = line_no;
        directive.span = span;
        directive.removal = removal;
        if let Scope::Line(_) = directive.scope {
            let target = if own_line {
                let found = match next_code {
                    Some((from, found)) if from <= index + 1 && found.is_none_or(|f| f > index) => found,
                    _ => (index + 1..lines.len()).find(|&i| !is_blank_or_comment(lines[i].1)),
                };
                next_code = Some((index + 1, found));
                found.map(|i| i as u32 + 1)
            } else {
                Some(line_no)
            };
            directive.scope = Scope::Line(target);
        }
        directives.push(directive);
    }
    Suppressions { directives }
}

/// Finds the directives (`amlint: ignore[...]` after any comment marker) in comments of
/// another syntax than YAML's, as a compute definition reader found them (a shell or
/// PowerShell `#`, a Bicep `//`, a Python comment inside a notebook cell); they silence
/// findings as YAML's do.
pub fn scan_comments(
    source: &SourceFile,
    comments: &[crate::facts::sources::Comment],
    registry: &Registry,
) -> Suppressions {
    let mut directives = Vec::new();
    for c in comments {
        let Some(text) = source.text.get(c.span.range()) else {
            continue;
        };
        // A block comment's closer (Markdown's `-->`, `*/`) is not part of the reason.
        let text = [("<!--", "-->"), ("/*", "*/")]
            .iter()
            .find_map(|(open, close)| text.strip_suffix(close).filter(|_| text.starts_with(open)))
            .unwrap_or(text);
        let lower = text.to_ascii_lowercase();
        let Some(at) = lower.find("amlint:") else {
            continue;
        };
        let mut directive = parse_directive(&text[at..], c.span.start + at as u32, registry);
        directive.line = source.position(c.span.start).line;
        directive.span = c.span;
        // Removing a directive removes the comment it is; a comment alone on its line of
        // the file goes with its line (not inside a notebook's JSON string, whose line
        // holds the string's quotes too).
        directive.removal = whole_line(&source.text, c.span).unwrap_or(c.span);
        if let Scope::Line(_) = directive.scope {
            directive.scope = Scope::Line(c.target_line);
            directive.also = c.also.clone();
        }
        directives.push(directive);
    }
    Suppressions { directives }
}

/// The line around `span`, with its line break, when nothing but blanks is on it beside
/// `span`. Scans only the blanks around it: many comments on one long line cost no more
/// than the line.
fn whole_line(text: &str, span: Span) -> Option<Span> {
    let b = text.as_bytes();
    let blank = |c: u8| c == b' ' || c == b'\t' || c == b'\r';
    let mut start = span.start as usize;
    while start > 0 && blank(b[start - 1]) {
        start -= 1;
    }
    if start > 0 && b[start - 1] != b'\n' {
        return None;
    }
    let mut end = (span.end as usize).min(b.len());
    while end < b.len() && blank(b[end]) {
        end += 1;
    }
    match b.get(end) {
        Some(b'\n') => Some(Span::new(start as u32, end as u32 + 1)),
        None => Some(Span::new(start as u32, end as u32)),
        Some(_) => None,
    }
}

/// The offset in `comment` of a `#` followed by `amlint:` (any case), if any.
fn find_directive(comment: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = comment[from..].find('#') {
        let at = from + i;
        let rest = comment[at + 1..].trim_start();
        // Bytes, not `rest[..7]`: the 7th byte may fall inside a character.
        if rest
            .as_bytes()
            .get(..7)
            .is_some_and(|b| b.eq_ignore_ascii_case(b"amlint:"))
        {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

const SYNTAX_HELP: &str = "Write `# amlint: ignore[AML002]` (this line, or the next when the comment stands alone), or `# amlint: ignore-file[AML002]`; several rules are separated by commas, and text after `]` says why (`until 2027-01-31` first makes it expire after that day).";

/// Parses `# amlint: ...` (`text` starts at the `#`, `offset` is its file offset).
fn parse_directive(text: &str, offset: u32, registry: &Registry) -> Directive {
    let mut d = Directive {
        scope: Scope::Line(None),
        line: 0,
        span: Span::default(),
        entries: Vec::new(),
        reason: None,
        until: None,
        malformed: None,
        list_span: Span::default(),
        removal: Span::default(),
        also: Vec::new(),
    };
    let colon = text.find(':').map_or(text.len(), |i| i + 1);
    let after = &text[colon..];
    let body = after.trim_start();
    let body_at = colon + (after.len() - body.len());
    let word_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(body.len());
    let word = &body[..word_len];
    match word {
        "ignore" => {}
        "ignore-file" => d.scope = Scope::File,
        _ => {
            let hint = crate::suggest::closest(word, ["ignore", "ignore-file"].iter().copied())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            d.malformed = Some(if word.is_empty() {
                "it says neither `ignore` nor `ignore-file`".to_string()
            } else {
                format!(
                    "`{word}` is not a suppression keyword{hint}; amlint knows `ignore` and `ignore-file`"
                )
            });
            return d;
        }
    }
    let rest = &body[word_len..];
    let rest_trim = rest.trim_start();
    let open_at = body_at + word_len + (rest.len() - rest_trim.len());
    if !rest_trim.starts_with('[') {
        d.malformed = Some(format!(
            "`{word}` needs the rules it silences in brackets; amlint has no blanket suppression"
        ));
        return d;
    }
    let Some(close_rel) = rest_trim.find(']') else {
        d.malformed = Some("the rule list has no closing `]`".to_string());
        return d;
    };
    let list_start = open_at + 1;
    let list = &text[list_start..open_at + close_rel];
    d.list_span = Span::new(offset + list_start as u32, offset + (open_at + close_rel) as u32);
    d.entries = named_rules(list, offset + list_start as u32, registry);
    if d.entries.is_empty() {
        d.malformed = Some("the brackets name no rule".to_string());
    }
    let after_list = open_at + close_rel + 1;
    let mut reason = text[after_list..]
        .trim()
        .trim_start_matches([':', '-', '\u{2013}', '\u{2014}'])
        .trim();
    // `until 2027-01-31`: the directive expires after that day.
    let word_end = reason.find(char::is_whitespace).unwrap_or(reason.len());
    if reason[..word_end].eq_ignore_ascii_case("until") {
        let rest = reason[word_end..].trim_start();
        let date_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let date = &rest[..date_end];
        // Offsets: `rest` is a slice of `text`.
        let date_at = offset + (rest.as_ptr() as usize - text.as_ptr() as usize) as u32;
        match crate::facts::parse_date(date) {
            Some(valid) => {
                d.until = Some((valid, Span::new(date_at, date_at + date.len() as u32)));
                reason = rest[date_end..]
                    .trim()
                    .trim_start_matches([':', '-', '\u{2013}', '\u{2014}'])
                    .trim();
            }
            None => {
                d.malformed = Some(if date.is_empty() {
                    "`until` needs the last day the suppression applies, written YYYY-MM-DD (such as `until 2027-01-31`)".to_string()
                } else {
                    format!(
                        "`until {}` is not a date written YYYY-MM-DD (such as `until 2027-01-31`)",
                        crate::escape::control(date)
                    )
                });
                return d;
            }
        }
    }
    if is_a_reason(reason) {
        d.reason = Some(reason.to_string());
    }
    d
}

/// The rules a directive's bracketed `list` names (separated by commas), each with its
/// span (`start`: the list's file offset).
fn named_rules(list: &str, start: u32, registry: &Registry) -> Vec<NamedRule> {
    let mut entries = Vec::new();
    let mut pos = 0;
    for part in list.split(',') {
        let lead = part.len() - part.trim_start().len();
        let item = part.trim();
        if !item.is_empty() {
            let at = start + (pos + lead) as u32;
            entries.push(NamedRule {
                text: item.to_string(),
                span: Span::new(at, at + item.len() as u32),
                code: registry.find(item).map(|r| r.code),
            });
        }
        pos += part.len() + 1;
    }
    entries
}

/// Whether the text after a directive says something: at least three letters or digits
/// (of any script). Punctuation, symbols, invisible characters (a zero-width space, a
/// bidi mark) and `n/a` are no reason under `require-reason`.
fn is_a_reason(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphanumeric()).take(3).count() == 3
}

/// How a finding was silenced.
#[derive(Clone, Debug, PartialEq)]
pub struct Silenced {
    /// The directive's span, for SARIF and editors.
    pub directive: Span,
    pub reason: Option<String>,
    /// The directive's expiry date (`until YYYY-MM-DD`), if it has one.
    pub until: Option<String>,
}

/// What the suppressions of a file are held to, beyond silencing only what they name.
#[derive(Clone, Copy)]
pub struct Policy<'a> {
    /// The date expiry dates are compared with (`YYYY-MM-DD`): a directive whose `until`
    /// date is before it silences nothing (AML010).
    pub today: &'a str,
    /// `require-reason = true`: a directive without a reason is reported (AML011).
    pub require_reason: bool,
    /// What enforces a rule (`enforce` in a configuration), if anything: a directive
    /// naming an enforced rule does not silence it (AML012 at the name).
    pub enforced: &'a dyn Fn(&str) -> Option<String>,
}

impl Directive {
    /// Whether the directive's `until` date is past on `today`.
    pub fn expired(&self, today: &str) -> bool {
        self.until.as_ref().is_some_and(|(date, _)| date.as_str() < today)
    }

    fn silenced(&self) -> Silenced {
        Silenced {
            directive: self.span,
            reason: self.reason.clone(),
            until: self.until.as_ref().map(|(d, _)| d.clone()),
        }
    }
}

/// Applies the directives to `diagnostics` (already filtered by the configuration):
/// silenced findings move out, with the directive that silenced them. Returns them, and
/// the findings about the directives themselves (not yet filtered by the configuration):
/// AML009 for directives that silenced nothing (themselves subject to
/// `ignore-file[AML009]` and to an `AML009` entry in the same directive), AML010 for
/// expired ones (which silence nothing) and, under `policy.require_reason`, AML011 for
/// those without a reason.
///
/// `enabled(code)` says whether the configuration runs a rule for this file, to explain
/// why a suppression of a disabled rule silences nothing. `complete` is false when a
/// syntax error cut the file short: later findings are then missing, so no suppression is
/// reported as unused.
pub fn apply(
    source: &SourceFile,
    suppressions: &Suppressions,
    diagnostics: &mut Vec<Diagnostic>,
    enabled: &dyn Fn(&str) -> bool,
    complete: bool,
    policy: Policy<'_>,
) -> (Vec<(Diagnostic, Silenced)>, Vec<Diagnostic>) {
    let directives = &suppressions.directives;
    let (own, enforced_entry) = directive_reports(directives, policy);
    let (mut silenced, used) = silence(source, directives, diagnostics, &enforced_entry, policy.today);
    let mut unused = Vec::new();
    if complete && enabled(UNUSED) {
        unused = unused_directives(
            directives,
            &used,
            &enforced_entry,
            enabled,
            policy.today,
            &mut silenced,
        );
    }
    unused.extend(own);
    (silenced, unused)
}

/// The reports about the directives that do not depend on what they silence: AML010
/// (expired), AML011 (no reason, under `require_reason`) and AML012 (an entry naming an
/// enforced rule); and, for each directive's entries, whether it names an enforced rule.
fn directive_reports(directives: &[Directive], policy: Policy<'_>) -> (Vec<Diagnostic>, Vec<Vec<bool>>) {
    // Reports about the directives that do not depend on what they silence.
    let mut own = Vec::new();
    for d in directives.iter().filter(|d| d.malformed.is_none()) {
        if let Some((date, span)) = d.until.as_ref().filter(|_| d.expired(policy.today)) {
            let names: Vec<&str> = d.entries.iter().map(|e| e.text.as_str()).collect();
            own.push(
                Diagnostic::new(
                    codes::AML010,
                    *span,
                    format!(
                        "this suppression of {} expired on {date}, so it no longer silences anything: the findings it covered are reported again",
                        names.join(", ")
                    ),
                )
                .with_help("Fix the findings, or, if the exception still holds, set a new `until` date with the reason it was renewed; remove the comment once nothing needs it."),
            );
        } else if policy.require_reason && d.reason.is_none() {
            own.push(
                Diagnostic::new(
                    codes::AML011,
                    d.span,
                    "this suppression gives no reason, and the configuration requires one (`require-reason = true`)",
                )
                .with_help(format!(
                    "Say why the finding is accepted after the brackets: `# amlint: {}[{}] quota approved in ticket 4711` (optionally with an expiry: `until 2027-01-31` before the reason).",
                    if d.scope == Scope::File { "ignore-file" } else { "ignore" },
                    d.entries.iter().map(|e| e.text.as_str()).collect::<Vec<_>>().join(", ")
                )),
            );
        }
    }
    let live = |d: &Directive| live(d, policy.today);
    // Entries naming an enforced rule silence nothing; each is reported where it is written.
    let mut enforced_entry: Vec<Vec<bool>> =
        directives.iter().map(|d| vec![false; d.entries.len()]).collect();
    for (i, d) in directives.iter().enumerate().filter(|(_, d)| live(d)) {
        for (j, e) in d.entries.iter().enumerate() {
            let Some(by) = e.code.and_then(|c| (policy.enforced)(c)) else {
                continue;
            };
            enforced_entry[i][j] = true;
            own.push(
                Diagnostic::new(
                    codes::AML012,
                    e.span,
                    format!(
                        "{} is enforced by {by}: this suppression cannot silence it, so its findings are still reported",
                        e.code.unwrap_or(&e.text)
                    ),
                )
                .with_help("Fix the finding. An exception to an enforced rule is granted where the rule is enforced (the configuration that says `enforce`), not in the file."),
            );
        }
    }
    (own, enforced_entry)
}

/// Whether a directive silences findings: well formed and not expired.
fn live(d: &Directive, today: &str) -> bool {
    d.malformed.is_none() && !d.expired(today)
}

/// Moves the findings the live directives silence out of `diagnostics`; returns them with
/// their directive, and which entries of each directive silenced a finding.
fn silence(
    source: &SourceFile,
    directives: &[Directive],
    diagnostics: &mut Vec<Diagnostic>,
    enforced_entry: &[Vec<bool>],
    today: &str,
) -> (Vec<(Diagnostic, Silenced)>, Vec<Vec<bool>>) {
    let live = |d: &Directive| live(d, today);
    let mut used: Vec<Vec<bool>> = directives.iter().map(|d| vec![false; d.entries.len()]).collect();
    let mut silenced = Vec::new();
    let mut kept = Vec::with_capacity(diagnostics.len());
    // The directives by the line they target, and the file-wide ones by code: each finding
    // looks up only those that can apply to it (a file may hold as many directives as
    // findings).
    let mut by_line: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut file_wide: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (i, d) in directives.iter().enumerate() {
        if !live(d) {
            continue;
        }
        match d.scope {
            Scope::Line(Some(line)) => {
                for l in std::iter::once(line).chain(d.also.iter().copied()) {
                    by_line.entry(l).or_default().push(i);
                }
            }
            Scope::Line(None) => {}
            Scope::File => {
                for (j, e) in d.entries.iter().enumerate() {
                    if enforced_entry[i][j] {
                        continue;
                    }
                    if let Some(code) = e.code {
                        file_wide.entry(code).or_default().push((i, j));
                    }
                }
            }
        }
    }
    let mut file_wide_used: HashSet<&str> = HashSet::new();
    for diag in diagnostics.drain(..) {
        let line = source.position(diag.span.start).line;
        // A finding reported from a definition's first line may also be silenced on the
        // line of the value it is about.
        let focus_line = diag
            .focus
            .map(|f| source.position(f.start).line)
            .filter(|l| *l != line);
        let mut by: Option<usize> = None;
        // A line directive explains a finding better than a file directive.
        for &i in [line]
            .into_iter()
            .chain(focus_line)
            .flat_map(|l| by_line.get(&l))
            .flatten()
        {
            for (j, e) in directives[i].entries.iter().enumerate() {
                if e.code == Some(diag.code) && !enforced_entry[i][j] {
                    used[i][j] = true;
                    by.get_or_insert(i);
                }
            }
        }
        if let Some(entries) = file_wide.get(diag.code) {
            if file_wide_used.insert(diag.code) {
                for &(i, j) in entries {
                    used[i][j] = true;
                }
            }
            by.get_or_insert(entries[0].0);
        }
        match by {
            Some(i) => silenced.push((diag, directives[i].silenced())),
            None => kept.push(diag),
        }
    }
    *diagnostics = kept;
    (silenced, used)
}

/// AML009 for the directives (and entries) that silenced nothing, less those an `AML009`
/// entry silences: those move to `silenced`.
fn unused_directives(
    directives: &[Directive],
    used: &[Vec<bool>],
    enforced_entry: &[Vec<bool>],
    enabled: &dyn Fn(&str) -> bool,
    today: &str,
    silenced: &mut Vec<(Diagnostic, Silenced)>,
) -> Vec<Diagnostic> {
    let live = |d: &Directive| live(d, today);
    let mut unused = Vec::new();
    let silence = |d: &Directive| d.silenced();
    for (i, d) in directives.iter().enumerate() {
        // An expired directive is reported as such (AML010), not as unused.
        if d.expired(today) {
            continue;
        }
        // An entry naming an enforced rule is reported as such (AML012), not as unused.
        let used_or_enforced: Vec<bool> = used[i]
            .iter()
            .zip(&enforced_entry[i])
            .map(|(u, e)| *u || *e)
            .collect();
        let mut reports = unused_reports(d, &used_or_enforced, enabled);
        // An AML009 entry of a line directive silences the reports about that directive.
        if d.malformed.is_none() && d.scope != Scope::File {
            if let Some(j) = d.entries.iter().position(|e| e.code == Some(UNUSED)) {
                if reports.is_empty() {
                    reports.push(entry_report(
                        d,
                        j,
                        "`AML009` in this suppression silences nothing: every other rule it names silences a finding"
                            .to_string(),
                    ));
                } else {
                    silenced.extend(reports.drain(..).map(|r| (r, silence(d))));
                }
            }
        }
        unused.extend(reports);
    }
    // `ignore-file[AML009]` silences every report of the file.
    let file_level: Vec<&Directive> = directives
        .iter()
        .filter(|d| live(d) && d.scope == Scope::File && d.entries.iter().any(|e| e.code == Some(UNUSED)))
        .collect();
    if let Some(first) = file_level.first() {
        if unused.is_empty() {
            for d in &file_level {
                if let Some(j) = d.entries.iter().position(|e| e.code == Some(UNUSED)) {
                    unused.push(entry_report(
                        d,
                        j,
                        "`AML009` in this suppression silences nothing: there is no AML009 finding in this file"
                            .to_string(),
                    ));
                }
            }
        } else {
            silenced.extend(unused.drain(..).map(|r| (r, silence(first))));
        }
    }
    unused
}

fn where_text(d: &Directive) -> String {
    match d.scope {
        Scope::Line(Some(l)) => format!("on line {l}"),
        Scope::Line(None) => "after this comment (no line follows it)".to_string(),
        Scope::File => "in this file".to_string(),
    }
}

fn entry_report(d: &Directive, j: usize, message: String) -> Diagnostic {
    let remaining: Vec<&str> = d
        .entries
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != j)
        .map(|(_, e)| e.text.as_str())
        .collect();
    Diagnostic::new(codes::AML009, d.entries[j].span, message)
        .with_help(
            "Remove it from the list: a suppression that silences nothing hides the next real finding.",
        )
        .with_fix(Fix {
            title: format!("Remove `{}` from the suppression", d.entries[j].text),
            edits: vec![Edit {
                span: d.list_span,
                replacement: remaining.join(", "),
            }],
            // A suppression that silences nothing: removing it changes no finding.
            applicability: Applicability::Safe,
            // A comment: the data stays as it is.
            changes: Vec::new(),
        })
}

fn whole_report(d: &Directive, message: String, help: &str) -> Diagnostic {
    Diagnostic::new(codes::AML009, d.span, message)
        .with_help(help.to_string())
        .with_fix(Fix {
            title: "Remove the suppression comment".to_string(),
            edits: vec![Edit {
                span: d.removal,
                replacement: String::new(),
            }],
            applicability: Applicability::Safe,
            changes: Vec::new(),
        })
}

/// The AML009 findings of one directive (its AML009 entries aside).
fn unused_reports(d: &Directive, used: &[bool], enabled: &dyn Fn(&str) -> bool) -> Vec<Diagnostic> {
    if let Some(why) = &d.malformed {
        return vec![whole_report(
            d,
            format!("this suppression cannot be read ({why}), so it silences nothing"),
            SYNTAX_HELP,
        )];
    }
    let mut out = Vec::new();
    let candidates: Vec<usize> = (0..d.entries.len())
        .filter(|&j| d.entries[j].code != Some(UNUSED))
        .collect();
    let unused: Vec<usize> = candidates.iter().copied().filter(|&j| !used[j]).collect();
    if unused.is_empty() {
        return out;
    }
    let describe = |j: usize| -> String {
        let e = &d.entries[j];
        match e.code {
            None => {
                let registry = crate::registry::builtin();
                let names: Vec<&str> = registry.rules().iter().flat_map(|r| [r.code, r.name]).collect();
                let hint = crate::suggest::closest(&e.text, names.iter().copied())
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                format!("`{}` is not a rule amlint knows{hint}", e.text)
            }
            Some(code) if !enabled(code) => {
                format!("{code} is turned off for this file by the configuration")
            }
            Some(code) => format!("there is no {code} finding {}", where_text(d)),
        }
    };
    if unused.len() == candidates.len() && candidates.len() == d.entries.len() {
        let reasons: Vec<String> = unused.iter().map(|&j| describe(j)).collect();
        out.push(whole_report(
            d,
            format!("this suppression silences nothing: {}", reasons.join("; ")),
            "Remove the comment: a suppression that silences nothing hides the next real finding. If the finding moved, move the comment with it.",
        ));
    } else {
        for j in unused {
            out.push(entry_report(
                d,
                j,
                format!(
                    "`{}` in this suppression silences nothing: {}",
                    d.entries[j].text,
                    describe(j)
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {

    /// A comment alone on its line of a script, Terraform or ARM file is removed with its
    /// line; one after code, or inside a notebook's JSON string, alone.
    #[test]
    fn an_unused_comment_alone_on_its_line_goes_with_it() {
        let text = "a\n  # amlint: ignore[X]\r\nb # amlint: ignore[X]\n    \"# amlint: ignore[X]\\n\",\n// amlint: ignore[X]";
        let at = |needle: &str, n: usize| {
            let i = text.match_indices(needle).nth(n).unwrap().0 as u32;
            Span::new(i, i + needle.len() as u32)
        };
        let comment = "# amlint: ignore[X]";
        let removed = |span: Span| {
            let r = whole_line(text, span).unwrap_or(span);
            format!("{}{}", &text[..r.start as usize], &text[r.end as usize..])
        };
        assert!(removed(at(comment, 0)).starts_with("a\nb #"));
        assert!(removed(at(comment, 1)).contains("b \n"));
        assert!(removed(at(comment, 2)).contains("    \"\\n\",\n"));
        assert!(removed(at("// amlint: ignore[X]", 0)).ends_with("\",\n"));
    }
    use super::*;

    /// Directives in comments of another syntax than YAML's (a script's `#`, Bicep's
    /// `//`): read from the comment, targeting the line the reader says.
    #[test]
    fn directives_in_foreign_comments() {
        use crate::facts::sources::Comment;
        let text = "az ml compute create \\\n  --size Standard_NC6  // amlint: ignore[AML505, vm-series-requires-approval] until 2027-01-31 kept\n# nothing here\n";
        let source = SourceFile::new("x.sh", text.to_string());
        let at = |needle: &str| text.find(needle).unwrap() as u32;
        let comments = [
            Comment {
                span: Span::new(at("// amlint"), at(" kept") + 5),
                own_line: false,
                target_line: Some(2),
                also: vec![4],
            },
            Comment {
                span: Span::new(at("# nothing"), at("here") + 4),
                own_line: true,
                target_line: None,
                also: Vec::new(),
            },
        ];
        let found = scan_comments(&source, &comments, crate::registry::builtin());
        let [d] = found.directives.as_slice() else {
            panic!("{found:?}")
        };
        assert_eq!(d.scope, Scope::Line(Some(2)));
        assert_eq!(d.also, [4], "the lines the reader says it covers too");
        assert_eq!(d.line, 2);
        let codes: Vec<Option<&str>> = d.entries.iter().map(|e| e.code).collect();
        assert_eq!(codes, [Some("AML505"), Some("AML503")]);
        assert_eq!(source.slice(d.entries[1].span), "vm-series-requires-approval");
        assert_eq!(d.until.as_ref().map(|(u, _)| u.as_str()), Some("2027-01-31"));
        assert_eq!(d.reason.as_deref(), Some("kept"));
        assert_eq!(d.removal, comments[0].span);
    }
    use crate::limits::Limits;
    use crate::load::{Format, parse_text};
    use crate::registry;

    fn scan_text(text: &str) -> Suppressions {
        let loaded = parse_text("x.yml", text.to_string(), Format::Yaml, &Limits::default());
        scan(&loaded.source, &loaded.documents, registry::builtin())
    }

    #[test]
    fn finds_directives_and_targets() {
        let s = scan_text(
            "a: 1  # amlint: ignore[AML003] reason here\n# amlint: ignore[duplicate-key, AML003]\n\n# other comment\nb: 2\n# amlint: ignore-file[AML006]: legacy\n",
        );
        assert_eq!(s.directives.len(), 3, "{s:#?}");
        let d = &s.directives[0];
        assert_eq!(d.scope, Scope::Line(Some(1)));
        assert_eq!(d.reason.as_deref(), Some("reason here"));
        assert_eq!(d.entries[0].code, Some("AML003"));
        let d = &s.directives[1];
        assert_eq!(d.scope, Scope::Line(Some(5)));
        assert_eq!(
            d.entries.iter().map(|e| e.code).collect::<Vec<_>>(),
            [Some("AML002"), Some("AML003")]
        );
        assert_eq!(d.reason, None);
        let d = &s.directives[2];
        assert_eq!(d.scope, Scope::File);
        assert_eq!(d.reason.as_deref(), Some("legacy"));
    }

    #[test]
    fn hashes_inside_strings_are_not_comments() {
        let s = scan_text(
            "a: \"x # amlint: ignore[AML003]\"\nb: 'y # amlint: ignore[AML003]'\nc: |\n  # amlint: ignore[AML003]\n  z # amlint: ignore[AML003]\nd: e#amlint: ignore[AML003]\n",
        );
        assert!(s.directives.is_empty(), "{s:#?}");
    }

    #[test]
    fn malformed_directives_are_kept_for_reporting() {
        let s = scan_text(
            "a: 1 # amlint: ignore AML003\nb: 2 # amlint: disable[AML003]\nc: 3 # amlint: ignore[]\nd: 4 # AMLINT: ignore[AML003\n",
        );
        assert_eq!(s.directives.len(), 4);
        assert!(s.directives[0].malformed.as_deref().unwrap().contains("brackets"));
        assert!(
            s.directives[1]
                .malformed
                .as_deref()
                .unwrap()
                .contains("`disable`")
        );
        assert!(s.directives[2].malformed.as_deref().unwrap().contains("no rule"));
        assert!(s.directives[3].malformed.as_deref().unwrap().contains("closing"));
    }

    #[test]
    fn quoted_scalars_end_at_their_quote_so_trailing_comments_are_found() {
        let text = "a: 'on'  # amlint: ignore[AML003]\nb: \"x\\\" # y\"  # amlint: ignore[AML003]\nc: 'it''s # no'  # amlint: ignore[AML003]\n";
        let loaded = parse_text("x.yml", text.to_string(), Format::Yaml, &Limits::default());
        let quoted: Vec<&str> = loaded.documents[0]
            .nodes
            .iter()
            .filter(|n| n.style.is_quoted())
            .map(|n| &text[n.span.range()])
            .collect();
        assert_eq!(quoted, ["'on'", "\"x\\\" # y\"", "'it''s # no'"]);
        let s = scan(&loaded.source, &loaded.documents, registry::builtin());
        assert_eq!(s.directives.len(), 3, "{s:#?}");
    }

    /// Applies the line suppression edit for the finding at `needle` and scans the
    /// result: the directive must target the finding's line.
    fn suppressed_text(text: &str, needle: &str) -> Option<String> {
        let loaded = parse_text("x.yml", text.to_string(), Format::Yaml, &Limits::default());
        let offset = text.find(needle).unwrap() as u32;
        let line = loaded.source.position(offset).line;
        let edit = line_suppression_edit(&loaded.source, &loaded.documents, offset, "AML503")?;
        let mut out = text.to_string();
        out.replace_range(edit.span.range(), &edit.replacement);
        let s = scan_text(&out);
        assert_eq!(s.directives.len(), 1, "{out}");
        let d = &s.directives[0];
        assert!(d.malformed.is_none(), "{out}");
        assert_eq!(d.entries[0].code, Some("AML503"));
        // The finding's line moves down by one when the directive is inserted above it.
        let shift = u32::from(edit.replacement.ends_with('\n'));
        assert_eq!(d.scope, Scope::Line(Some(line + shift)), "{out}");
        Some(out)
    }

    #[test]
    fn suppression_edits_are_read_back_as_directives_for_the_line() {
        assert_eq!(
            suppressed_text("a: 1\nsize: Standard_NC24   \nb: 2\n", "Standard_NC24").unwrap(),
            "a: 1\nsize: Standard_NC24  # amlint: ignore[AML503]\nb: 2\n"
        );
        // A line with a comment gets the directive above it, at its indentation.
        assert_eq!(
            suppressed_text("r:\n  size: Standard_NC24 # big\n", "Standard_NC24").unwrap(),
            "r:\n  # amlint: ignore[AML503]\n  size: Standard_NC24 # big\n"
        );
        // A line ending inside a multi-line quoted scalar: above.
        assert_eq!(
            suppressed_text("size: \"Standard_NC24\n  x\"\n", "size").unwrap(),
            "# amlint: ignore[AML503]\nsize: \"Standard_NC24\n  x\"\n"
        );
        // CRLF files keep their line endings.
        assert_eq!(
            suppressed_text("a: 1 # c\r\nsize: X # d\r\n", "size").unwrap(),
            "a: 1 # c\r\n# amlint: ignore[AML503]\r\nsize: X # d\r\n"
        );
        // Inside a block scalar no comment can be written.
        assert_eq!(suppressed_text("c: |\n  echo Standard_NC24\n", "echo"), None);
        // The last line of a multi-line plain scalar may end with a comment.
        assert_eq!(
            suppressed_text("k: a\n  Standard_NC24\n", "Standard_NC24").unwrap(),
            "k: a\n  Standard_NC24  # amlint: ignore[AML503]\n"
        );
        // A line inside one may not, nor have one above it: nothing is offered.
        assert_eq!(
            suppressed_text("k: a\n  Standard_NC24\n  b\n", "Standard_NC24"),
            None
        );
    }

    #[test]
    fn file_suppression_edit_goes_first_after_the_bom() {
        let loaded = parse_text(
            "x.yml",
            "\u{feff}a: 1\n".to_string(),
            Format::Yaml,
            &Limits::default(),
        );
        let edit = file_suppression_edit(&loaded.source, "AML601");
        let mut out = loaded.source.text.clone();
        out.replace_range(edit.span.range(), &edit.replacement);
        assert_eq!(out, "\u{feff}# amlint: ignore-file[AML601]\na: 1\n");
        assert_eq!(scan_text(&out).directives[0].scope, Scope::File);
    }

    #[test]
    fn a_reason_says_something() {
        for no in [
            "",
            "\u{200b}",
            "...",
            "--",
            "n/a",
            "!!!",
            "\u{200b}\u{200b}\u{200b}",
            "\u{2066}\u{2069}",
            "—",
        ] {
            assert!(!is_a_reason(no), "{no:?}");
        }
        for yes in ["quota ticket 4711", "WIP", "料金承認", "fine.", "JIRA-12"] {
            assert!(is_a_reason(yes), "{yes:?}");
        }
    }

    #[test]
    fn until_dates_and_reasons() {
        let text = "a: 1  # amlint: ignore[AML003] until 2027-01-31 quota ticket 4711\nb: 2  # amlint: ignore[AML003] UNTIL 2027-01-31\nc: 3  # amlint: ignore[AML003] until soon\nd: 4  # amlint: ignore[AML003] untiled work\n";
        let s = scan_text(text);
        let d = &s.directives[0];
        let (date, span) = d.until.clone().unwrap();
        assert_eq!(date, "2027-01-31");
        assert_eq!(&text[span.range()], "2027-01-31");
        assert_eq!(d.reason.as_deref(), Some("quota ticket 4711"));
        assert!(!d.expired("2027-01-31") && d.expired("2027-02-01"));
        assert_eq!(
            s.directives[1].until.as_ref().map(|u| u.0.as_str()),
            Some("2027-01-31")
        );
        assert_eq!(s.directives[1].reason, None);
        assert!(
            s.directives[2]
                .malformed
                .as_deref()
                .unwrap()
                .contains("`until soon`")
        );
        // A reason that merely starts with the letters is a reason.
        assert_eq!(s.directives[3].until, None);
        assert_eq!(s.directives[3].reason.as_deref(), Some("untiled work"));
    }

    #[test]
    fn spans_and_fixes() {
        let text = "a: 1  # amlint: ignore[AML003, AML002]\n";
        let s = scan_text(text);
        let d = &s.directives[0];
        let slice = |sp: Span| &text[sp.range()];
        assert_eq!(slice(d.span), "# amlint: ignore[AML003, AML002]");
        assert_eq!(slice(d.entries[1].span), "AML002");
        assert_eq!(slice(d.list_span), "AML003, AML002");
        assert_eq!(slice(d.removal), "  # amlint: ignore[AML003, AML002]");
        let own = "# amlint: ignore[AML003]\na: 1\n";
        let s = scan_text(own);
        assert_eq!(
            &own[s.directives[0].removal.range()],
            "# amlint: ignore[AML003]\n"
        );
    }
}
