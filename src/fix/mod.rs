//! Applying fixes (`amlint check --fix`, `--unsafe-fixes`, `--diff`, and the language
//! server's code actions): a finding's fix is a list of text edits with an
//! applicability ([`crate::diagnostic::Applicability`]). A round takes each finding's
//! first allowed fix ([`Diagnostic::fix_for`]), in the order of the findings, skips one
//! that overlaps a fix already taken (it waits for the next round), and applies the rest
//! to the text. The text is then checked again and the next round works on the new
//! findings, until no fix applies, the text repeats, or [`MAX_ROUNDS`] rounds ran. A
//! round after which the file holds more findings of some rule than before (a syntax
//! error, a renamed key whose value does not fit the new key) is undone: its fixes are
//! tried again one at a time, and a fix that adds a finding alone is dropped. A fix never
//! makes a file unreadable nor adds a finding.
//!
//! Edits replace the exact bytes of a key or value, or insert a line: comments, key
//! order, quoting elsewhere, line endings (CRLF) and a byte-order mark are kept as they
//! are. Files are written through [`crate::fsio::replace_if_unchanged`]: atomically, never
//! over a link, and not at all when the file changed on disk since it was read.

pub mod verify;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Edit, Fix};
use crate::limits::Limits;
use crate::pipeline::{self, Buffer, Options};
use crate::results::{FileReport, Report};
use crate::source::Span;
use verify::{Hashing, Proposed, Read};

/// Most rounds of fixes applied to one file.
pub const MAX_ROUNDS: usize = 10;

/// Most readings of fixed texts to verify the fixes of one file (one per round when every
/// fix verifies; a round that does not is split in halves to find the fixes at fault).
/// Beyond it the file's remaining fixes are not applied: time stays linear in its size.
pub const MAX_VERIFY_READS: usize = 64;

/// A fix that was applied: its rule and its title.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub code: &'static str,
    pub title: String,
}

/// A fix that was not applied, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unapplied {
    pub code: &'static str,
    pub title: String,
    pub why: String,
}

/// The outcome of one round on one text.
pub struct Round {
    pub text: String,
    pub applied: Vec<Applied>,
    /// The fixes applied, each with its finding's span (to drop one that turns out to add
    /// a finding, and to find the document its pointers are in).
    pub fixes: Vec<(Span, Fix)>,
    /// Fixes left for a later round because they overlap one applied in this one.
    pub deferred: usize,
    /// The text read again, once its fixes are verified.
    read: Option<Read<'static>>,
}

impl std::fmt::Debug for Round {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Round")
            .field("text", &self.text)
            .field("applied", &self.applied)
            .field("deferred", &self.deferred)
            .finish_non_exhaustive()
    }
}

/// Whether two edits touch the same text: overlapping ranges, or two insertions at the
/// same place (their order would be a guess).
fn conflicts(a: &Edit, b: &Edit) -> bool {
    a.span.start == b.span.start || (a.span.start < b.span.end && b.span.start < a.span.end)
}

/// Whether `fix` can be applied to `text`: every edit inside the text and on character
/// boundaries, its edits apart from each other, and some edit changing the text.
pub fn applicable(text: &str, fix: &Fix) -> bool {
    let in_text = |e: &Edit| {
        let (s, t) = (e.span.start as usize, e.span.end as usize);
        s <= t && t <= text.len() && text.is_char_boundary(s) && text.is_char_boundary(t)
    };
    if fix.edits.is_empty() || !fix.edits.iter().all(in_text) {
        return false;
    }
    for (i, a) in fix.edits.iter().enumerate() {
        if fix.edits[i + 1..].iter().any(|b| conflicts(a, b)) {
            return false;
        }
    }
    fix.edits.iter().any(|e| text[e.span.range()] != *e.replacement)
}

/// The fixes one round applies to `text`, given its findings: each finding's first
/// allowed fix, in order, unless it overlaps one already taken (then it is deferred).
/// Also the number deferred.
pub fn plan<'a>(
    text: &str,
    diagnostics: &'a [Diagnostic],
    unsafe_fixes: bool,
) -> (Vec<(&'a Diagnostic, &'a Fix)>, usize) {
    plan_with(text, diagnostics, unsafe_fixes, &HashSet::new(), usize::MAX)
}

/// [`plan`], without the fixes in `dropped` and with at most `limit` fixes.
fn plan_with<'a>(
    text: &str,
    diagnostics: &'a [Diagnostic],
    unsafe_fixes: bool,
    dropped: &HashSet<Vec<Edit>>,
    limit: usize,
) -> (Vec<(&'a Diagnostic, &'a Fix)>, usize) {
    let mut taken: Vec<(&Diagnostic, &Fix)> = Vec::new();
    let mut deferred = 0;
    let mut seen: HashSet<&[Edit]> = HashSet::new();
    for d in diagnostics {
        let Some(fix) = d
            .fixes()
            .filter(|f| unsafe_fixes || f.is_safe())
            .find(|f| !dropped.contains(&f.edits))
        else {
            continue;
        };
        if !applicable(text, fix) || !seen.insert(&fix.edits) {
            // Not applicable, or the very fix of another finding (taken once).
            continue;
        }
        let overlaps = taken
            .iter()
            .any(|(_, t)| t.edits.iter().any(|a| fix.edits.iter().any(|b| conflicts(a, b))));
        if overlaps || taken.len() >= limit {
            deferred += 1;
        } else {
            taken.push((d, fix));
        }
    }
    (taken, deferred)
}

/// `text` with `edits` applied (they must not conflict; see [`plan`]).
pub fn apply_edits<'a>(text: &str, edits: impl IntoIterator<Item = &'a Edit>) -> String {
    let mut edits: Vec<&Edit> = edits.into_iter().collect();
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0usize;
    for e in edits {
        out.push_str(&text[at..e.span.start as usize]);
        out.push_str(&e.replacement);
        at = e.span.end as usize;
    }
    out.push_str(&text[at..]);
    out
}

/// One round on `text`: `None` when no fix applies.
pub fn apply_round(text: &str, diagnostics: &[Diagnostic], unsafe_fixes: bool) -> Option<Round> {
    round_with(text, diagnostics, unsafe_fixes, &HashSet::new(), usize::MAX)
}

fn round_with(
    text: &str,
    diagnostics: &[Diagnostic],
    unsafe_fixes: bool,
    dropped: &HashSet<Vec<Edit>>,
    limit: usize,
) -> Option<Round> {
    let (taken, deferred) = plan_with(text, diagnostics, unsafe_fixes, dropped, limit);
    if taken.is_empty() {
        return None;
    }
    let new = apply_edits(text, taken.iter().flat_map(|(_, f)| &f.edits));
    Some(Round {
        text: new,
        applied: taken
            .iter()
            .map(|(d, f)| Applied {
                code: d.code,
                title: f.title.clone(),
            })
            .collect(),
        fixes: taken.iter().map(|(d, f)| (d.span, (*f).clone())).collect(),
        deferred,
        read: None,
    })
}

impl Round {
    /// The round of only the fixes `keep` (indices), on the text `base` it started from.
    fn only(self, base: &str, keep: &[usize]) -> Round {
        let edits = keep.iter().flat_map(|&i| &self.fixes[i].1.edits);
        let text = apply_edits(base, edits);
        let deferred = self.deferred + self.fixes.len() - keep.len();
        let mut applied = Vec::with_capacity(keep.len());
        let mut fixes = Vec::with_capacity(keep.len());
        for (i, (a, f)) in self.applied.into_iter().zip(self.fixes).enumerate() {
            if keep.contains(&i) {
                applied.push(a);
                fixes.push(f);
            }
        }
        Round {
            text,
            applied,
            fixes,
            deferred,
            read: None,
        }
    }
}

/// Whether `after` holds more findings of some rule than `before`: the round added one.
fn adds_a_finding(before: &[Diagnostic], after: &[Diagnostic]) -> bool {
    let mut counts: HashMap<&str, isize> = HashMap::new();
    for d in before {
        *counts.entry(d.code).or_default() += 1;
    }
    for d in after {
        let c = counts.entry(d.code).or_default();
        *c -= 1;
        if *c < 0 {
            return true;
        }
    }
    false
}

/// How fixing one text ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// No fix applies any more.
    Done,
    /// [`MAX_ROUNDS`] rounds ran, or the text came back to an earlier one.
    Rounds,
}

/// A text's fixes applied to their fixed point.
#[derive(Debug)]
pub struct Fixed {
    pub text: String,
    pub applied: Vec<Applied>,
    /// The findings of the fixed text.
    pub diagnostics: Vec<Diagnostic>,
    pub rounds: usize,
    pub stop: Stop,
    /// Fixes not applied because each added a finding (or could not be checked).
    pub dropped: usize,
    /// Fixes not applied because the fixed text's data changed beyond what they declare
    /// ([`verify`]), or because verifying them would have read the text too many times.
    pub unverified: Vec<Unapplied>,
}

/// Fixes one text, read as the file `display` (its format from its name): rounds of
/// [`apply_round`], each verified ([`verify`]) and then followed by `recheck` (the
/// findings of the new text, as the checks and filters of a run give them; `None` when it
/// could not be checked, which stops without the round).
pub fn fix_text(
    display: &str,
    text: String,
    diagnostics: Vec<Diagnostic>,
    unsafe_fixes: bool,
    limits: &Limits,
    recheck: &mut dyn FnMut(&str) -> Option<Vec<Diagnostic>>,
) -> Fixed {
    let mut state = FileState::new(display, text, diagnostics, limits);
    while let Some(round) = state.next_round(unsafe_fixes) {
        let rechecked = recheck(&round.text);
        state.accept(round, rechecked);
    }
    state.finish()
}

/// Whether `fix`, applied alone to the text of `loaded`, changes its data only as it
/// declares (what the language server checks before offering a fix).
pub fn verify_one(
    loaded: &crate::load::LoadedFile,
    finding: &Diagnostic,
    fix: &Fix,
    limits: &Limits,
) -> Result<(), verify::Unverified> {
    let hashing = Hashing::default();
    let before = Read::new(&hashing, std::borrow::Cow::Borrowed(loaded));
    let text = apply_edits(&loaded.source.text, &fix.edits);
    let after = Read::text(&hashing, &loaded.source.path, text, limits);
    let proposed = [Proposed {
        finding: finding.span,
        fix,
    }];
    verify::verify(&hashing, &before, &after, &proposed, limits)
}

/// One text being fixed, round by round (shared by [`fix_text`] and [`fix_report`], which
/// checks the texts of many files of a round in one run).
struct FileState {
    /// The file the text is read as (its format comes from its name).
    display: String,
    limits: Limits,
    text: String,
    diagnostics: Vec<Diagnostic>,
    applied: Vec<Applied>,
    seen: HashSet<String>,
    /// Rounds tried, taken or undone (bounded by twice [`MAX_ROUNDS`]).
    attempts: usize,
    rounds: usize,
    stop: Option<Stop>,
    /// After an undone round: one fix per round until one is taken.
    one_at_a_time: bool,
    /// Fixes that added a finding alone.
    dropped: HashSet<Vec<Edit>>,
    /// Fixes whose text changed data they do not declare, alone (not tried again).
    unverified: Vec<Unapplied>,
    refused: HashSet<Vec<Edit>>,
    hashing: Hashing,
    /// [`Self::text`] read, once needed.
    read: Option<Read<'static>>,
    /// Readings left to verify fixes ([`MAX_VERIFY_READS`]).
    reads_left: usize,
}

impl FileState {
    fn new(display: &str, text: String, diagnostics: Vec<Diagnostic>, limits: &Limits) -> Self {
        Self {
            display: display.to_string(),
            limits: limits.clone(),
            seen: HashSet::from([text.clone()]),
            text,
            diagnostics,
            applied: Vec::new(),
            attempts: 0,
            rounds: 0,
            stop: None,
            one_at_a_time: false,
            dropped: HashSet::new(),
            unverified: Vec::new(),
            refused: HashSet::new(),
            hashing: Hashing::default(),
            read: None,
            reads_left: MAX_VERIFY_READS,
        }
    }

    /// The next round to check, if any: its fixes verified, those that fail alone
    /// refused for good.
    fn next_round(&mut self, unsafe_fixes: bool) -> Option<Round> {
        loop {
            if self.stop.is_some() {
                return None;
            }
            if self.rounds == MAX_ROUNDS || self.attempts == 2 * MAX_ROUNDS {
                self.stop = Some(Stop::Rounds);
                return None;
            }
            let limit = if self.one_at_a_time { 1 } else { usize::MAX };
            let skip: HashSet<Vec<Edit>> = self.dropped.union(&self.refused).cloned().collect();
            let round = match round_with(&self.text, &self.diagnostics, unsafe_fixes, &skip, limit) {
                None => {
                    self.stop = Some(Stop::Done);
                    return None;
                }
                Some(round) if self.seen.contains(&round.text) => {
                    self.stop = Some(Stop::Rounds);
                    return None;
                }
                Some(round) => round,
            };
            if let Some(round) = self.verified(round) {
                return Some(round);
            }
        }
    }

    /// The round, or the largest part of it found to verify (the rest left for a later
    /// round, or refused when it fails alone); `None` when no fix of it verifies or the
    /// readings ran out (then fixing stops).
    fn verified(&mut self, round: Round) -> Option<Round> {
        if self.read.is_none() {
            let read = Read::text(&self.hashing, &self.display, self.text.clone(), &self.limits);
            self.read = Some(read);
        }
        let all: Vec<usize> = (0..round.fixes.len()).collect();
        let mut bad = Vec::new();
        let Some((keep, read)) = self.largest_verified(&round, all, &mut bad) else {
            // Out of readings: fixing this file stops; the fixes not yet verified are
            // said not to be applied.
            self.stop = Some(Stop::Rounds);
            let failed: HashSet<usize> = bad.iter().map(|(i, _)| *i).collect();
            let mut unread: Vec<(usize, String)> = (0..round.fixes.len())
                .filter(|i| !failed.contains(i))
                .map(|i| {
                    let why = format!("verifying it would read the file more than {MAX_VERIFY_READS} times");
                    (i, why)
                })
                .collect();
            self.refuse(&round, &mut bad);
            self.refuse(&round, &mut unread);
            return None;
        };
        self.refuse(&round, &mut bad);
        let read = read?;
        let mut round = if keep.len() == round.fixes.len() {
            round
        } else {
            round.only(&self.text, &keep)
        };
        round.read = Some(read);
        Some(round)
    }

    /// Records the fixes `bad` (indices into `round`, each with why) as refused.
    fn refuse(&mut self, round: &Round, bad: &mut Vec<(usize, String)>) {
        for (i, why) in bad.drain(..) {
            let (_, fix) = &round.fixes[i];
            if self.refused.insert(fix.edits.clone()) {
                self.unverified.push(Unapplied {
                    code: round.applied[i].code,
                    title: fix.title.clone(),
                    why,
                });
            }
        }
    }

    /// The fixes of `indices` that verify together, found by halving (a fix that fails
    /// alone goes to `bad`), with the text they make read; `None` when the readings ran
    /// out. The halving is as deep as the logarithm of the number of fixes.
    fn largest_verified(
        &mut self,
        round: &Round,
        indices: Vec<usize>,
        bad: &mut Vec<(usize, String)>,
    ) -> Option<(Vec<usize>, Option<Read<'static>>)> {
        match self.try_fixes(round, &indices)? {
            Ok(read) => return Some((indices, Some(read))),
            Err(why) if indices.len() == 1 => {
                bad.push((indices[0], why));
                return Some((Vec::new(), None));
            }
            Err(_) => {}
        }
        let right = indices[indices.len() / 2..].to_vec();
        let mut left = indices;
        left.truncate(left.len() - right.len());
        let (l, lread) = self.largest_verified(round, left, bad)?;
        let (r, rread) = self.largest_verified(round, right, bad)?;
        if l.is_empty() {
            return Some((r, rread));
        }
        if r.is_empty() {
            return Some((l, lread));
        }
        let both: Vec<usize> = l.iter().chain(&r).copied().collect();
        match self.try_fixes(round, &both)? {
            Ok(read) => Some((both, Some(read))),
            // Each half verifies alone but not with the other: the second waits.
            Err(_) => Some((l, lread)),
        }
    }

    /// Reads the text the fixes `indices` of `round` make and verifies them: the reading,
    /// or why not; `None` when the readings ran out.
    fn try_fixes(&mut self, round: &Round, indices: &[usize]) -> Option<Result<Read<'static>, String>> {
        if self.reads_left == 0 {
            return None;
        }
        self.reads_left -= 1;
        let text = if indices.len() == round.fixes.len() {
            round.text.clone()
        } else {
            apply_edits(&self.text, indices.iter().flat_map(|&i| &round.fixes[i].1.edits))
        };
        let after = Read::text(&self.hashing, &self.display, text, &self.limits);
        let before = self.read.as_ref()?;
        let proposed: Vec<Proposed<'_>> = indices
            .iter()
            .map(|&i| Proposed {
                finding: round.fixes[i].0,
                fix: &round.fixes[i].1,
            })
            .collect();
        let documents = before.loaded.documents.len();
        Some(
            verify::verify(&self.hashing, before, &after, &proposed, &self.limits)
                .map(|()| after)
                .map_err(|why| why.describe(documents)),
        )
    }

    /// Takes the round, given the findings of its text (`None`: it could not be checked).
    fn accept(&mut self, round: Round, rechecked: Option<Vec<Diagnostic>>) {
        self.attempts += 1;
        match rechecked {
            Some(found) if !adds_a_finding(&self.diagnostics, &found) => {
                self.rounds += 1;
                self.one_at_a_time = false;
                self.seen.insert(round.text.clone());
                self.text = round.text;
                self.read = round.read;
                self.diagnostics = found;
                self.applied.extend(round.applied);
            }
            _ if round.fixes.len() > 1 => self.one_at_a_time = true,
            _ => self.dropped.extend(round.fixes.into_iter().map(|(_, f)| f.edits)),
        }
    }

    fn finish(self) -> Fixed {
        Fixed {
            text: self.text,
            applied: self.applied,
            diagnostics: self.diagnostics,
            rounds: self.rounds,
            stop: self.stop.unwrap_or(Stop::Done),
            dropped: self.dropped.len(),
            unverified: self.unverified,
        }
    }
}

/// A file of a run after its fixes.
#[derive(Debug)]
pub struct FixedFile {
    /// The path as displayed (standard input's stands-for name for a buffer).
    pub display: String,
    /// The file on disk (`None` for standard input).
    pub path: Option<PathBuf>,
    pub original: String,
    pub fixed: Fixed,
}

impl FixedFile {
    pub fn changed(&self) -> bool {
        self.fixed.text != self.original
    }
}

/// Fixes every file of `report` that has a fix to apply, each to its fixed point; the
/// files of a round are checked again in one run (with `options`, as buffers standing for
/// their paths). `stdin` names the report's file that came from standard input, if any.
/// Nothing is written: see [`write`].
pub fn fix_report(
    report: &Report,
    options: &Options,
    unsafe_fixes: bool,
    stdin: Option<&str>,
) -> Vec<FixedFile> {
    let mut states: Vec<(usize, FileState)> = report
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.checked && f.diagnostics.iter().any(|d| d.fix_for(unsafe_fixes).is_some()))
        .map(|(i, f)| {
            let state = FileState::new(
                &f.source.path,
                f.source.text.clone(),
                f.diagnostics.clone(),
                &options.limits,
            );
            (i, state)
        })
        .collect();
    loop {
        let mut rounds: Vec<(usize, Round)> = Vec::new();
        for (k, (_, state)) in states.iter_mut().enumerate() {
            if let Some(round) = state.next_round(unsafe_fixes) {
                rounds.push((k, round));
            }
        }
        if rounds.is_empty() {
            break;
        }
        let buffers = rounds
            .iter()
            .map(|(k, round)| Buffer {
                display: report.files[states[*k].0].source.path.clone(),
                text: Ok(round.text.clone()),
            })
            .collect();
        let checked = pipeline::run(&[], buffers, options);
        let mut by_path: HashMap<String, FileReport> = checked
            .files
            .into_iter()
            .map(|f| (f.source.path.clone(), f))
            .collect();
        for (k, round) in rounds {
            let display = &report.files[states[k].0].source.path;
            let found = by_path
                .remove(display)
                .filter(|f| f.checked)
                .map(|f| f.diagnostics);
            states[k].1.accept(round, found);
        }
    }
    states
        .into_iter()
        .map(|(i, state)| {
            let file = &report.files[i];
            let display = file.source.path.clone();
            let path = match (stdin, &report.project) {
                (Some(s), _) if s == display => None,
                (_, Some(project)) => Some(project.absolute(&display)),
                (_, None) => Some(PathBuf::from(&display)),
            };
            FixedFile {
                display,
                path,
                original: file.source.text.clone(),
                fixed: state.finish(),
            }
        })
        .collect()
}

/// Why a fixed file was not written.
#[derive(Debug)]
pub struct NotWritten<'a> {
    pub file: &'a FixedFile,
    pub why: crate::fsio::WriteRefusal,
}

/// Writes each changed file (standard input's text is the caller's), atomically and
/// only if it still holds what was read; the files that could not be written, and why.
pub fn write(files: &[FixedFile]) -> Vec<NotWritten<'_>> {
    let mut failed = Vec::new();
    for f in files.iter().filter(|f| f.changed()) {
        let Some(path) = &f.path else {
            continue;
        };
        if let Err(why) =
            crate::fsio::replace_if_unchanged(path, f.original.as_bytes(), f.fixed.text.as_bytes())
        {
            failed.push(NotWritten { file: f, why });
        }
    }
    failed
}

/// The unified diff (`diff -u`, paths `a/<path>` and `b/<path>`, three lines of context)
/// of every changed file, as `patch -p1` applies it. Characters that drive a terminal are
/// escaped ([`crate::escape`]), except the tab and the carriage return that ends a CRLF
/// line: a line holding another one shows it escaped (and that hunk no longer applies).
pub fn unified_diff(files: &[FixedFile]) -> String {
    let mut out = String::new();
    for f in files.iter().filter(|f| f.changed()) {
        let name = diff_path(&f.display);
        let diff = similar::TextDiff::from_lines(f.original.as_str(), f.fixed.text.as_str());
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&header_name("a/", name), &header_name("b/", name))
            .to_string();
        out.push_str(&escape_diff(&text));
    }
    out
}

/// A display path as a diff names it (without `./`).
fn diff_path(display: &str) -> &str {
    display.strip_prefix("./").unwrap_or(display)
}

/// `prefix` and `name` as git writes a file name in a diff's `---` and `+++` lines, so
/// that `patch -p1` and `git apply` read it back: in double quotes with C escapes when it
/// holds a quote, a backslash, a control character or a byte beyond ASCII (octal), and
/// followed by a tab when it holds a space (the tab ends the name for `patch`).
fn header_name(prefix: &str, name: &str) -> String {
    let full = format!("{prefix}{name}");
    let quote = full
        .bytes()
        .any(|b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\');
    let mut out = String::with_capacity(full.len() + 3);
    if quote {
        out.push('"');
        for b in full.bytes() {
            match b {
                0x07 => out.push_str("\\a"),
                0x08 => out.push_str("\\b"),
                b'\t' => out.push_str("\\t"),
                b'\n' => out.push_str("\\n"),
                0x0b => out.push_str("\\v"),
                0x0c => out.push_str("\\f"),
                b'\r' => out.push_str("\\r"),
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                b if !(0x20..0x7f).contains(&b) => out.push_str(&format!("\\{b:03o}")),
                b => out.push(char::from(b)),
            }
        }
        out.push('"');
    } else {
        out.push_str(&full);
    }
    if name.contains(' ') {
        out.push('\t');
    }
    out
}

fn escape_diff(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix("\r\n") {
            Some(b) => (b, "\r\n"),
            None => match line.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (line, ""),
            },
        };
        for c in body.chars() {
            if c == '\t' {
                out.push(c);
            } else {
                crate::escape::push_escaped(&mut out, c);
            }
        }
        out.push_str(end);
    }
    crate::escape::workflow_commands(out)
}

/// The fixes of a file said one by one to be not applied; the rest are counted.
const NOT_APPLIED_SHOWN: usize = 10;

/// A line per fix that was not applied (at most [`NOT_APPLIED_SHOWN`] per file), for
/// standard error: those dropped because the
/// data of the fixed text changed beyond what they declare (with where), and per file the
/// number dropped because each added a finding. Text from the files is escaped.
pub fn not_applied(files: &[FixedFile]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        let file = crate::escape::control(&f.display);
        for u in f.fixed.unverified.iter().take(NOT_APPLIED_SHOWN) {
            out.push(format!(
                "{file}: fix not applied ({}: {}): {}",
                u.code,
                crate::escape::control(&u.title),
                u.why
            ));
        }
        if let Some(more) = f
            .fixed
            .unverified
            .len()
            .checked_sub(NOT_APPLIED_SHOWN)
            .filter(|n| *n > 0)
        {
            out.push(format!(
                "{file}: {more} more fix{} not applied",
                if more == 1 { "" } else { "es" }
            ));
        }
        if f.fixed.dropped > 0 {
            out.push(format!(
                "{file}: {} fix{} not applied: each would have added a finding",
                f.fixed.dropped,
                if f.fixed.dropped == 1 { "" } else { "es" }
            ));
        }
    }
    out
}

/// Counts for the summary of `--fix`: fixes applied and files changed, of the files
/// written (standard input's counts: its text goes to standard output), not those in
/// `not_written`.
pub fn totals_written(files: &[FixedFile], not_written: &[NotWritten<'_>]) -> (usize, usize) {
    let written: Vec<&FixedFile> = files
        .iter()
        .filter(|f| f.changed() && !not_written.iter().any(|n| std::ptr::eq(n.file, *f)))
        .collect();
    let applied = written.iter().map(|f| f.fixed.applied.len()).sum();
    (applied, written.len())
}

/// Counts for the summary: fixes applied, files changed.
pub fn totals(files: &[FixedFile]) -> (usize, usize) {
    let applied = files.iter().map(|f| f.fixed.applied.len()).sum();
    let changed = files.iter().filter(|f| f.changed()).count();
    (applied, changed)
}

/// How many findings of `report` have a fix that `--fix` applies, and how many more one
/// that only `--unsafe-fixes` applies.
pub fn fixable(report: &Report) -> (usize, usize) {
    let mut safe = 0;
    let mut unsafe_only = 0;
    for (_, d) in report.diagnostics() {
        if d.fix_for(false).is_some() {
            safe += 1;
        } else if d.fix_for(true).is_some() {
            unsafe_only += 1;
        }
    }
    (safe, unsafe_only)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::diagnostic::Applicability;
    use crate::source::Span;

    fn finding(span: (u32, u32), replacement: &str, applicability: Applicability) -> Diagnostic {
        Diagnostic::new(crate::diagnostic::codes::AML003, Span::new(span.0, span.1), "x").with_fix(
            Fix::replace(applicability, "t", Span::new(span.0, span.1), replacement),
        )
    }

    #[test]
    fn overlapping_fixes_wait_for_the_next_round() {
        let text = "a: on\nb: no\n";
        let d = vec![
            finding((3, 5), "true", Applicability::Safe),
            finding((3, 5), "\"on\"", Applicability::Safe),
            finding((9, 11), "false", Applicability::Safe),
        ];
        let round = apply_round(text, &d, false).unwrap();
        assert_eq!(round.text, "a: true\nb: false\n");
        assert_eq!(round.deferred, 1);
        assert_eq!(round.applied.len(), 2);
    }

    #[test]
    fn unsafe_fixes_apply_only_when_asked() {
        let text = "a: on\n";
        let d = vec![finding((3, 5), "\"on\"", Applicability::Unsafe)];
        assert!(apply_round(text, &d, false).is_none());
        assert_eq!(apply_round(text, &d, true).unwrap().text, "a: \"on\"\n");
    }

    #[test]
    fn the_first_allowed_fix_of_a_finding_is_taken() {
        let d = Diagnostic::new(crate::diagnostic::codes::AML003, Span::new(9, 13), "x")
            .with_fix(Fix::replace(
                Applicability::Unsafe,
                "u",
                Span::new(9, 13),
                "\"1.10\"",
            ))
            .with_fix(Fix::replace(
                Applicability::Safe,
                "s",
                Span::new(9, 13),
                "\"1.1\"",
            ));
        let text = "version: 1.10\n";
        assert_eq!(
            apply_round(text, std::slice::from_ref(&d), false).unwrap().text,
            "version: \"1.1\"\n"
        );
        assert_eq!(apply_round(text, &[d], true).unwrap().text, "version: \"1.10\"\n");
    }

    #[test]
    fn edits_outside_the_text_or_inside_a_character_are_refused() {
        let text = "a: é\n";
        let d = vec![
            finding((3, 4), "x", Applicability::Safe),
            finding((3, 40), "x", Applicability::Safe),
        ];
        assert!(apply_round(text, &d, true).is_none());
    }

    #[test]
    fn a_fix_that_changes_data_it_does_not_declare_is_dropped_and_the_others_kept() {
        // The second fix removes a comment that ends at a line separator, and the key
        // after it; the first and third write values as the CLI reads them.
        let text = "a: on\nb: 1  # c\u{2028}c: 2\nd: no\ne: yes\n";
        let at = |needle: &str| {
            let s = text.find(needle).unwrap() as u32;
            (s, s + needle.len() as u32)
        };
        let findings = vec![
            finding(at("on"), "true", Applicability::Safe),
            finding(at("  # c\u{2028}c: 2"), "", Applicability::Safe),
            finding(at("no"), "false", Applicability::Safe),
            finding(at("yes"), "true", Applicability::Safe),
        ];
        let mut checks = 0;
        let fixed = fix_text(
            "x.yml",
            text.to_string(),
            findings,
            false,
            &Limits::default(),
            &mut |_| {
                checks += 1;
                Some(Vec::new())
            },
        );
        assert_eq!(fixed.text, "a: true\nb: 1  # c\u{2028}c: 2\nd: false\ne: true\n");
        assert_eq!(fixed.applied.len(), 3);
        assert_eq!(fixed.unverified.len(), 1, "{:?}", fixed.unverified);
        assert!(fixed.unverified[0].why.contains("`/c`"), "{:?}", fixed.unverified);
        // One round checked: the fix at fault was found before the text was checked.
        assert_eq!(checks, 1);
    }

    #[test]
    fn the_fixes_not_applied_are_said_ten_per_file_then_counted() {
        let unverified = (0..13)
            .map(|i| Unapplied {
                code: "AML107",
                title: format!("Remove `k{i}`\u{1b}"),
                why: "why".to_string(),
            })
            .collect();
        let file = FixedFile {
            display: "a\u{1b}.yml".to_string(),
            path: None,
            original: String::new(),
            fixed: Fixed {
                text: String::new(),
                applied: Vec::new(),
                diagnostics: Vec::new(),
                rounds: 0,
                stop: Stop::Done,
                dropped: 2,
                unverified,
            },
        };
        let lines = not_applied(std::slice::from_ref(&file));
        assert_eq!(lines.len(), 12, "{lines:#?}");
        assert_eq!(
            lines[0],
            "a\\u{1b}.yml: fix not applied (AML107: Remove `k0`\\u{1b}): why"
        );
        assert_eq!(lines[10], "a\\u{1b}.yml: 3 more fixes not applied");
        assert_eq!(
            lines[11],
            "a\\u{1b}.yml: 2 fixes not applied: each would have added a finding"
        );
    }

    #[test]
    fn verifying_reads_a_text_a_bounded_number_of_times() {
        // Every fix changes data it does not declare: each is found by halving, until
        // the readings run out; the rest are said not to be applied.
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(&format!("k{i}: {i}\n"));
        }
        let findings: Vec<Diagnostic> = (0..400)
            .map(|i| {
                let needle = format!("k{i}: {i}\n");
                let s = text.find(&needle).unwrap() as u32;
                finding(
                    (s + needle.len() as u32 - 2, s + needle.len() as u32 - 1),
                    "x",
                    Applicability::Safe,
                )
            })
            .collect();
        let fixed = fix_text(
            "x.yml",
            text.clone(),
            findings,
            false,
            &Limits::default(),
            &mut |_| Some(Vec::new()),
        );
        assert_eq!(fixed.text, text);
        assert_eq!(fixed.unverified.len(), 400);
        assert!(
            fixed
                .unverified
                .iter()
                .any(|u| u.why.contains("more than 64 times"))
        );
    }

    #[test]
    fn rounds_stop_at_a_fixed_point_a_cycle_and_a_new_syntax_error() {
        // A recheck that always offers the same fix again: the text repeats.
        let mut calls = 0;
        let fixed = fix_text(
            "x.yml",
            "a: on\n".to_string(),
            vec![finding((3, 5), "true", Applicability::Safe)],
            false,
            &Limits::default(),
            &mut |_| {
                calls += 1;
                Some(vec![finding((3, 7), "on", Applicability::Safe)])
            },
        );
        assert_eq!(fixed.stop, Stop::Rounds);
        assert_eq!(fixed.text, "a: true\n");
        assert_eq!(calls, 1);
        // A round that adds a finding is undone, its fixes tried one at a time, and the
        // one that adds a finding alone dropped.
        let text = "a: on\nb: no\n";
        let fixed = fix_text(
            "x.yml",
            text.to_string(),
            vec![
                finding((3, 5), "true", Applicability::Safe),
                finding((9, 11), "false", Applicability::Safe),
            ],
            false,
            &Limits::default(),
            &mut |t| {
                let mut found = Vec::new();
                if t.contains("true") {
                    found.push(Diagnostic::new(
                        crate::diagnostic::codes::AML001,
                        Span::at(0),
                        "broken",
                    ));
                }
                if t.contains("b: no") {
                    found.push(finding((9, 11), "false", Applicability::Safe));
                }
                Some(found)
            },
        );
        assert_eq!(fixed.text, "a: on\nb: false\n");
        assert_eq!(fixed.applied.len(), 1);
        assert_eq!(fixed.dropped, 1);
        assert_eq!(fixed.stop, Stop::Done);
    }
}
