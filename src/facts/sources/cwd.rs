//! Where each command of a script runs: the directory the script starts in (what the file
//! around it says: a workflow step's working directory, a Jenkins `dir('…')`; else where
//! the readers look for a file it names), moved by the `cd`s before the command — bash
//! `cd`, `pushd`, `popd`; PowerShell `Set-Location`, `Push-Location`, `Pop-Location` and
//! their aliases (`cd`, `chdir`, `sl`, `pushd`, `popd`); cmd `cd`, `cd /d`, `chdir`,
//! `pushd`, `popd` — each to a literal relative path or one the script's variables make
//! known, or to the script's own directory (`cd "$(dirname "$0")"`, `${BASH_SOURCE%/*}`,
//! `$PSScriptRoot`, `%~dp0`) when the script is a file of its own.
//!
//! What is known is decided conservatively; anything else makes the directory unknown,
//! with why, and a file named there is then not read (never looked for in the wrong
//! directory):
//! - a `cd` whose argument is not known, absolute, `~`, `-`, or a `popd` with no `pushd`
//!   before it;
//! - after an `if`, a `case`, a loop, a function or a `{ }` block (PowerShell's and cmd's
//!   blocks too) in which a `cd` ran; inside a loop or such a block holding a `cd`, from
//!   its start (the `cd` may have run in an earlier turn); each branch of an `if` or
//!   `case` starts where the `if` did;
//! - after the and-or list of a `cd` that runs only if the command before it did or did
//!   not succeed (`test -d x && cd x`): within the list it is known.
//!
//! A bash subshell's `( … )` `cd` ends at its `)`; a `cd` in a bash or cmd pipeline
//! changes nothing after it. Linear in the commands and blocks: each block is entered
//! and left once, no recursion.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::common::line_of;
use super::shell::{BlockKind, Dialect, Script, ShellCommand, Word, WordPart};
use crate::source::{SourceFile, Span};

/// Where a command runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Cwd {
    /// The directory the script starts in, then this relative path (its `..`s only at its
    /// start).
    Start(PathBuf),
    /// The script's own directory, then this relative path.
    ScriptDir(PathBuf),
    /// Not known statically: why.
    Unknown(String),
}

/// A relative path longer than this many parts is not followed.
const MAX_PARTS: usize = 64;
/// `pushd`s kept at most.
const MAX_STACK: usize = 64;

/// What following the `cd`s of a script needs from its reader.
pub struct Track<'a> {
    pub source: &'a SourceFile,
    /// Where the script starts.
    pub start: Cwd,
    /// The script is a file of its own: `$0`, `$PSScriptRoot`, `%~dp0` name its directory.
    pub own_file: bool,
    /// Each line runs in a shell of its own (a Makefile recipe's).
    pub lines_apart: bool,
    /// A word's value in the command starting at the offset.
    pub eval: &'a dyn Fn(&Word, u32) -> Result<String, String>,
    /// Where the value of a variable is written, when one unconditional assignment before
    /// the offset sets it (`here=$(dirname "$0")`: `cd "$here/.."`).
    pub sole_value: &'a dyn Fn(&str, u32) -> Option<Span>,
}

/// What a command does to the directory.
enum Move {
    /// Goes to this directory (`cd`), remembering the one it leaves (`pushd`).
    To(Target, bool),
    /// Goes back to the directory the last `pushd` left.
    Pop,
    /// Nothing (cmd's `cd` alone shows the directory).
    Stay,
}

/// The directory, and those `pushd` left (`stack_why`: why they are not known).
#[derive(Clone)]
struct State {
    dir: Cwd,
    stack: Rc<Vec<Cwd>>,
    stack_why: Option<String>,
}

impl State {
    fn unknown(why: String) -> State {
        State {
            dir: Cwd::Unknown(why.clone()),
            stack: Rc::default(),
            stack_why: Some(why),
        }
    }
}

/// Where a move goes.
enum Target {
    /// There (the script's own directory and a path, or not known).
    Dir(Cwd),
    /// This path from where the move runs (`\\` separates too: PowerShell, cmd).
    Rel(String, bool),
}

/// A block the command being looked at is in.
struct Frame {
    block: u32,
    kind: BlockKind,
    entry: State,
    /// A `cd` ran in it: said of the commands after it.
    moved: Option<String>,
}

/// Whether a command's first word names a command that moves: `wanted` keeps these.
pub fn is_move_word(first: &str) -> bool {
    matches!(
        first.to_ascii_lowercase().as_str(),
        "cd" | "cd.." | "chdir" | "pushd" | "popd" | "set-location" | "sl" | "push-location" | "pop-location"
    )
}

/// Which command moves, in `dialect`: `(pushes, pops)` for a move, `None` for others.
fn mover(c: &ShellCommand, dialect: Dialect) -> Option<&'static str> {
    let first = c.words.first()?.literal()?;
    let lower = first.to_ascii_lowercase();
    let name = match dialect {
        Dialect::Bash => first.as_str(),
        _ => lower.as_str(),
    };
    Some(match (dialect, name) {
        (_, "cd") | (Dialect::PowerShell, "set-location" | "sl" | "chdir") | (Dialect::Cmd, "chdir") => "cd",
        (Dialect::Cmd, "cd..") => "cd..",
        (_, "pushd") | (Dialect::PowerShell, "push-location") => "pushd",
        (_, "popd") | (Dialect::PowerShell, "pop-location") => "popd",
        _ => return None,
    })
}

/// Where each of `script.commands` runs.
pub fn places(script: &Script, t: &Track<'_>) -> Vec<Cwd> {
    let d = script.dialect;
    let n = script.commands.len();
    let moves: Vec<bool> = script
        .commands
        .iter()
        .map(|c| !c.isolated && mover(c, d).is_some())
        .collect();
    if !moves.contains(&true) && script.vars_cut.is_none() {
        return vec![t.start.clone(); n];
    }
    let blocks = &script.blocks;
    // The blocks a `cd` runs in, not inside a subshell of theirs: the first such `cd`.
    let mut holds: Vec<Option<String>> = vec![None; blocks.len()];
    for (c, _) in script.commands.iter().zip(&moves).filter(|(_, m)| **m) {
        if let Some(h) = c.block.and_then(|b| holds.get_mut(b as usize))
            && h.is_none()
        {
            *h = Some(describe(c, t.source));
        }
    }
    for id in (0..blocks.len()).rev() {
        if blocks[id].kind == BlockKind::Subshell {
            continue;
        }
        if let (Some(h), Some(p)) = (holds[id].clone(), blocks[id].parent) {
            holds[p as usize].get_or_insert(h);
        }
    }
    let inside = |f: u32, b: u32| f == b || (f < b && b < blocks[f as usize].end);
    let mut st = State {
        dir: t.start.clone(),
        stack: Rc::default(),
        stack_why: None,
    };
    let mut frames: Vec<Frame> = Vec::new();
    // A `cd` under a condition in an and-or list: the list, and what is said after it.
    let mut pending: Option<(u32, String)> = None;
    let mut out = Vec::with_capacity(n);
    let text = t.source.text.as_bytes();
    let mut prev_end = 0usize;
    for (k, c) in script.commands.iter().enumerate() {
        // A new line of a Makefile recipe: a new shell, where the script starts.
        if t.lines_apart && new_line(text, prev_end, c.span.start as usize) {
            st = State {
                dir: t.start.clone(),
                stack: Rc::default(),
                stack_why: None,
            };
            frames.clear();
            pending = None;
        }
        prev_end = c.span.end as usize;
        let cut = match (script.vars_cut, script.blocks_cut) {
            (Some(at), _) if at < c.span.start => Some("more commands than are read come before it"),
            (_, Some(at)) if at <= c.span.start || c.block == Some(u32::MAX) => {
                Some("more blocks than are read come before it")
            }
            _ => None,
        };
        if let Some(why) = cut {
            out.push(Cwd::Unknown(format!("where it runs is not known: {why}")));
            continue;
        }
        if let Some((list, why)) = pending.take_if(|(list, _)| *list != c.list) {
            let _ = list;
            st = State::unknown(why.clone());
            if let Some(f) = frames.last_mut() {
                f.moved.get_or_insert(why);
            }
        }
        // Leave the blocks the command is not in, enter those it is in.
        while let Some(top) = frames.last() {
            if c.block.is_some_and(|b| inside(top.block, b)) {
                break;
            }
            let f = frames.pop().expect("a frame");
            leave(f, &mut st, &mut frames);
        }
        let mut path = Vec::new();
        let mut cur = c.block;
        while let Some(b) = cur {
            if frames.last().is_some_and(|f| f.block == b) {
                break;
            }
            path.push(b);
            cur = blocks[b as usize].parent;
        }
        for &b in path.iter().rev() {
            let kind = blocks[b as usize].kind;
            let entry = st.clone();
            // The `cd` it holds marks it moved when it runs.
            if matches!(kind, BlockKind::Loop | BlockKind::Group | BlockKind::Other)
                && let Some(h) = &holds[b as usize]
            {
                st = State::unknown(format!(
                    "{h}, in a loop, function or block around it, may have run before it"
                ));
            }
            frames.push(Frame {
                block: b,
                kind,
                entry,
                moved: None,
            });
        }
        out.push(st.dir.clone());
        if !moves[k] {
            continue;
        }
        let desc = describe(c, t.source);
        match step(c, d, t, &desc) {
            Move::Stay => continue,
            Move::To(to, push) => {
                if push {
                    if st.stack.len() >= MAX_STACK {
                        st.stack_why = Some(format!("{desc}: more `pushd`s than are followed"));
                        st.stack = Rc::default();
                    } else {
                        Rc::make_mut(&mut st.stack).push(st.dir.clone());
                    }
                }
                st.dir = match to {
                    Target::Dir(dir) => dir,
                    Target::Rel(text, backslash) => relative(&st.dir, &text, backslash),
                };
            }
            Move::Pop => {
                st.dir = match Rc::make_mut(&mut st.stack).pop() {
                    Some(dir) => dir,
                    None => Cwd::Unknown(match &st.stack_why {
                        Some(why) => why.clone(),
                        None => format!("{desc} goes back to a directory no `pushd` before it left"),
                    }),
                };
            }
        }
        let after = format!("{desc} runs under a condition or in a loop, function or block");
        if let Some(f) = frames.last_mut() {
            f.moved.get_or_insert(after);
        }
        if c.chained {
            pending = Some((
                c.list,
                format!("{desc} runs only if the command before it did or did not succeed"),
            ));
        }
    }
    out
}

/// Whether `text[from..to]` ends a line (a newline not continued by a `\\`).
fn new_line(text: &[u8], from: usize, to: usize) -> bool {
    let Some(gap) = text.get(from..to) else {
        return false;
    };
    memchr::memchr_iter(b'\n', gap).any(|i| {
        let before = gap[..i].strip_suffix(b"\r").unwrap_or(&gap[..i]);
        !before.ends_with(b"\\")
    })
}

/// Leaves the block of frame `f`.
fn leave(f: Frame, st: &mut State, frames: &mut [Frame]) {
    match (f.kind, f.moved) {
        (BlockKind::Subshell, _) => *st = f.entry,
        (_, None) => {}
        (BlockKind::Branch, Some(why)) => {
            // The next branch starts where this one did; after the `if`, not known.
            *st = f.entry;
            if let Some(p) = frames.last_mut() {
                p.moved.get_or_insert(why);
            }
        }
        (_, Some(why)) => {
            *st = State::unknown(why.clone());
            if let Some(p) = frames.last_mut() {
                p.moved.get_or_insert(why);
            }
        }
    }
}

/// "`cd infra` on line 3", shortened.
fn describe(c: &ShellCommand, source: &SourceFile) -> String {
    let text = source.slice(c.span);
    let short: String = text.chars().take(60).collect();
    let short = short.split(['\n', '\r']).next().unwrap_or("").trim_end();
    let more = if short.len() < text.len() { "…" } else { "" };
    format!("`{short}{more}` on line {}", line_of(source, c.span.start))
}

/// What the move command `c` does.
fn step(c: &ShellCommand, d: Dialect, t: &Track<'_>, desc: &str) -> Move {
    let Some(which) = mover(c, d) else {
        return Move::Stay;
    };
    let unknown = |why: &str| {
        Move::To(
            Target::Dir(Cwd::Unknown(format!("{desc} {why}"))),
            which == "pushd",
        )
    };
    if which == "cd.." {
        return match c.words.len() {
            1 => Move::To(Target::Rel("..".into(), true), false),
            _ => unknown("is not followed"),
        };
    }
    let mut args: Vec<&Word> = Vec::new();
    let mut words = c.words[1..].iter();
    while let Some(w) = words.next() {
        let lit = w.literal();
        match (d, lit.as_deref()) {
            (Dialect::Bash, Some("-P" | "-L" | "-e" | "--")) => {}
            (Dialect::Cmd, Some(f)) if f.eq_ignore_ascii_case("/d") => {}
            (Dialect::PowerShell, Some(f)) if f.eq_ignore_ascii_case("-passthru") => {}
            (Dialect::PowerShell, Some(f))
                if f.eq_ignore_ascii_case("-path") || f.eq_ignore_ascii_case("-literalpath") =>
            {
                match words.next() {
                    Some(v) => args.push(v),
                    None => return unknown("names no directory"),
                }
            }
            (_, Some(f)) if f.starts_with('-') || (d == Dialect::Cmd && f.starts_with('/')) => {
                return unknown(&format!("is given `{f}`, which is not followed"));
            }
            _ => args.push(w),
        }
    }
    if which == "popd" {
        return if args.is_empty() {
            Move::Pop
        } else {
            unknown("is given arguments, which are not followed")
        };
    }
    let push = which == "pushd";
    let [w] = args.as_slice() else {
        return match (args.len(), d) {
            // cmd's `cd` and `pushd` alone show the directory.
            (0, Dialect::Cmd) => Move::Stay,
            (0, _) => unknown("goes to the home directory"),
            _ => unknown("is given more than one word"),
        };
    };
    let backslash = d != Dialect::Bash;
    // The script's own directory, then what follows it.
    let (base, rest) = match script_dir(w, d, t) {
        Some(rest) if !t.own_file => {
            let _ = rest;
            return unknown(
                "goes to the directory of the script's own file, and this script is not a file of its own (it runs from a temporary file)",
            );
        }
        Some(rest) => (Cwd::ScriptDir(PathBuf::new()), rest),
        None => (Cwd::Start(PathBuf::new()), Ok(None)),
    };
    let rest = match rest {
        Ok(Some(parts)) => after_script_dir(w, parts, t, c.span.start),
        Ok(None) if matches!(base, Cwd::ScriptDir(_)) => Ok(String::new()),
        Ok(None) => (t.eval)(w, c.span.start),
        Err(why) => Err(why),
    };
    let text = match rest {
        Ok(text) => text,
        Err(why) => return unknown(&format!("goes to a directory not known statically: {why}")),
    };
    let absolute =
        text.starts_with(['/', '~']) || (backslash && text.starts_with('\\')) || text.contains(':');
    if matches!(base, Cwd::Start(_)) && (text.is_empty() || text == "-" || absolute) {
        return unknown(&format!(
            "goes to `{text}`: where that is in the project is not known"
        ));
    }
    match base {
        Cwd::ScriptDir(_) => Move::To(Target::Dir(relative(&base, &text, backslash)), push),
        _ => Move::To(Target::Rel(text, backslash), push),
    }
}

/// `dir` joined with the relative path `text` (`backslash`: a backslash separates too).
pub fn relative(dir: &Cwd, text: &str, backslash: bool) -> Cwd {
    let mut out = dir.clone();
    for part in text.split(|ch| ch == '/' || (backslash && ch == '\\')) {
        out = join(&out, part);
    }
    out
}

/// `dir` joined with one part of a path.
fn join(dir: &Cwd, part: &str) -> Cwd {
    let (path, script) = match dir {
        Cwd::Unknown(_) => return dir.clone(),
        Cwd::Start(p) => (p, false),
        Cwd::ScriptDir(p) => (p, true),
    };
    let mut p = path.clone();
    match part {
        "" | "." => {}
        ".." if p.components().next_back().is_some_and(|c| c.as_os_str() != "..") => {
            p.pop();
        }
        _ if p.components().count() >= MAX_PARTS => {
            return Cwd::Unknown("a directory deeper than is followed".into());
        }
        part => p.push(part),
    }
    if script { Cwd::ScriptDir(p) } else { Cwd::Start(p) }
}

/// The value of the parts of `w` after the script's own directory, without the separators
/// that start it (`"$(dirname "$0")/infra"`: `infra`).
fn after_script_dir(w: &Word, parts: Vec<WordPart>, t: &Track<'_>, at: u32) -> Result<String, String> {
    let word = Word {
        span: parts
            .first()
            .map_or(w.span, |p| p.span().cover(parts[parts.len() - 1].span())),
        parts,
    };
    (t.eval)(&word, at).map(|s| s.trim_start_matches(['/', '\\']).to_string())
}

/// A path word of a command starting at `at` that starts at the script's own directory
/// (`"$(dirname "$0")/c.yml"`, `$here/c.yml` with `here` assigned that directory once, as a
/// `cd` reads them): the rest of the path from there (`Ok("")`: nothing after it), or why
/// it is not known. `None`: the word does not start there.
pub fn from_script_dir(w: &Word, d: Dialect, t: &Track<'_>, at: u32) -> Option<Result<String, String>> {
    let rest = script_dir(w, d, t)?;
    if !t.own_file {
        return Some(Err(
            "it starts at the directory of the script's own file, and this script is not a file of its own (it runs from a temporary file)".into(),
        ));
    }
    Some(match rest {
        Ok(Some(parts)) => after_script_dir(w, parts, t, at),
        Ok(None) => Ok(String::new()),
        Err(why) => Err(why),
    })
}

/// The script's own directory at the start of `w` (`"$(dirname "$0")"`,
/// `${BASH_SOURCE%/*}`, `$PSScriptRoot`, `%~dp0`): the parts after it (`Ok(None)`: none).
fn script_dir(w: &Word, d: Dialect, t: &Track<'_>) -> Option<Result<Option<Vec<WordPart>>, String>> {
    let first = w.parts.first()?;
    let rest = &w.parts[1..];
    let found = match (d, first) {
        (Dialect::PowerShell, WordPart::Var { name, .. }) => name.eq_ignore_ascii_case("PSScriptRoot"),
        (Dialect::Cmd, WordPart::Var { name, span, .. }) => {
            let lower = name.to_ascii_lowercase();
            if let Some(after) = lower.strip_prefix("~dp0") {
                // `%~dp0infra`: the name runs on into the path.
                let mut parts = Vec::new();
                if !after.is_empty() {
                    let text = name[4..].to_string();
                    let start = span.end - text.len() as u32;
                    parts.push(WordPart::Lit {
                        text,
                        span: Span::new(start, span.end),
                        exact: true,
                    });
                }
                parts.extend(rest.iter().cloned());
                return Some(Ok((!parts.is_empty()).then_some(parts)));
            }
            false
        }
        (Dialect::Bash, p) => {
            let spelt = |span: Span| -> String {
                t.source
                    .slice(span)
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'')
                    .collect()
            };
            // A variable assigned the script's own path once, unconditionally
            // (`here=$(readlink -f "$0")`), whose directory is taken (audit 33, case 02).
            let path_in = |name: &str| {
                (t.sole_value)(name, w.span.start)
                    .is_some_and(|v| BASH_SCRIPT_PATH.contains(&spelt(v).as_str()))
            };
            let dir = |spelt: &str| is_bash_script_dir(spelt) || dirname_of(spelt).is_some_and(path_in);
            dir(&spelt(p.span()))
                // A variable assigned the script's directory once, unconditionally.
                || match p {
                    WordPart::Var { name, .. } => (t.sole_value)(name, w.span.start).is_some_and(|v| dir(&spelt(v))),
                    _ => false,
                }
        }
        _ => false,
    };
    found.then(|| Ok((!rest.is_empty()).then(|| rest.to_vec())))
}

/// The bash spellings of the script's own directory, written without blanks and quotes
/// ([`is_bash_script_dir`] also takes them inside `$(cd … && pwd)`).
const BASH_SCRIPT_DIR: &[&str] = &[
    "$(dirname$0)",
    "$(dirname${0})",
    "$(dirname$BASH_SOURCE)",
    "$(dirname${BASH_SOURCE})",
    "$(dirname${BASH_SOURCE[0]})",
    "`dirname$0`",
    "`dirname${BASH_SOURCE[0]}`",
    "$(dirname$(realpath$0))",
    "$(dirname$(realpath${BASH_SOURCE[0]}))",
    "$(dirname$(readlink-f$0))",
    "$(dirname$(readlink-f${BASH_SOURCE[0]}))",
    "${0%/*}",
    "${BASH_SOURCE%/*}",
    "${BASH_SOURCE[0]%/*}",
];

/// The bash spellings of the script's own path, written without blanks and quotes.
const BASH_SCRIPT_PATH: &[&str] = &[
    "$0",
    "${0}",
    "$BASH_SOURCE",
    "${BASH_SOURCE}",
    "${BASH_SOURCE[0]}",
    "$(realpath$0)",
    "$(realpath${0})",
    "$(realpath${BASH_SOURCE[0]})",
    "$(readlink-f$0)",
    "$(readlink-f${0})",
    "$(readlink-f${BASH_SOURCE[0]})",
];

/// The variable whose directory `spelt` (written without blanks and quotes) is:
/// `$(dirname $X)`, `$(dirname ${X})`, `` `dirname $X` ``, `${X%/*}`.
fn dirname_of(spelt: &str) -> Option<&str> {
    let inner = spelt
        .strip_prefix("$(dirname")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| spelt.strip_prefix("`dirname").and_then(|r| r.strip_suffix('`')))
        .map(|r| r.strip_prefix("--").unwrap_or(r))
        .and_then(|r| r.strip_prefix('$'))
        .or_else(|| spelt.strip_prefix("${").and_then(|r| r.strip_suffix("%/*}")));
    let name = inner.map(|r| r.strip_prefix('{').and_then(|r| r.strip_suffix('}')).unwrap_or(r))?;
    (!name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.starts_with(|c: char| c.is_ascii_digit()))
    .then_some(name)
}

/// Whether `spelt` (written without blanks and quotes) is the script's own directory: one
/// of [`BASH_SCRIPT_DIR`], or one in `$(cd … && pwd)` (`cd -P`, `pwd -P`), with `--` and
/// the redirections of the common idiom (`>/dev/null 2>&1`, `&> /dev/null`) dropped:
/// `DIR="$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )"`.
fn is_bash_script_dir(spelt: &str) -> bool {
    let mut s = spelt.to_string();
    for noise in [
        "&>/dev/null",
        "2>/dev/null",
        "1>/dev/null",
        ">/dev/null",
        "2>&1",
        "--",
    ] {
        s = s.replace(noise, "");
    }
    if BASH_SCRIPT_DIR.contains(&s.as_str()) {
        return true;
    }
    let inner = s
        .strip_prefix("$(cd")
        .map(|r| r.strip_prefix("-P").unwrap_or(r))
        .and_then(|r| r.strip_suffix("&&pwd)").or_else(|| r.strip_suffix("&&pwd-P)")));
    inner.is_some_and(|i| BASH_SCRIPT_DIR.contains(&i))
}

/// The directory `at` (where a command runs) with `file` in it, as candidates: `starts`
/// are the directories the script may start in, `script_dir` its own. `None` when not
/// known (with why).
pub fn candidates(
    at: &Cwd,
    starts: &[PathBuf],
    script_dir: &Path,
    file: &Path,
) -> Result<Vec<PathBuf>, String> {
    match at {
        Cwd::Unknown(why) => Err(why.clone()),
        Cwd::Start(rel) => Ok(starts.iter().map(|s| s.join(rel).join(file)).collect()),
        Cwd::ScriptDir(rel) => Ok(vec![script_dir.join(rel).join(file)]),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::super::common::Definitions;
    use crate::source::SourceFile;

    /// A project with a compute YAML `c.yml` in each of `dirs` (named after its directory:
    /// `infra/gpu` → `infra-gpu`, the root → `root`), and the file `name` holding `text`,
    /// read by `reader`.
    fn project(reader: &super::super::common::Reader, dirs: &[&str], name: &str, text: &str) -> Definitions {
        let dir = tempfile::tempdir().unwrap();
        for d in dirs {
            let named = if d.is_empty() {
                "root".to_string()
            } else {
                d.replace('/', "-")
            };
            let at = dir.path().join(d);
            std::fs::create_dir_all(&at).unwrap();
            std::fs::write(
                at.join("c.yml"),
                format!("$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: {named}\ntype: amlcompute\nsize: Standard_NC6\n"),
            )
            .unwrap();
        }
        if let Some(parent) = std::path::Path::new(name).parent() {
            std::fs::create_dir_all(dir.path().join(parent)).unwrap();
        }
        super::super::iac::read_for_test(reader.read, dir.path(), name, text)
    }

    /// Each definition's name (the compute YAML read) or why it is not known, and the line
    /// and text of its name's span (the `-f` value, or `--name`'s).
    fn read(defs: &Definitions, text: &str) -> Vec<(String, u32, String)> {
        let source = SourceFile::new("x", text.to_string());
        defs.computes
            .iter()
            .map(|d| {
                let name = match (&d.name.value, &d.name.why) {
                    (Some(_), _) => d.known_name().unwrap().to_string(),
                    (None, why) => format!("? {}", why.as_deref().unwrap_or("")),
                };
                let span = d.name.span;
                (
                    name,
                    source.position(span.start).line,
                    text[span.range()].to_string(),
                )
            })
            .collect()
    }

    fn names(reader: &super::super::common::Reader, dirs: &[&str], name: &str, text: &str) -> Vec<String> {
        let defs = project(reader, dirs, name, text);
        read(&defs, text).into_iter().map(|(n, _, _)| n).collect()
    }

    const SCRIPTS: &super::super::common::Reader = &super::super::scripts::READER;
    const ALL: &[&str] = &["", "infra", "infra/gpu", "scripts"];

    /// `cd` and `cd ../..`, in a list (`cd gpu && az`), `--file`: each `-f` read where
    /// the command runs, its span the value's.
    #[test]
    fn cd_moves_the_commands_after_it() {
        let text = "#!/bin/bash\naz ml compute create -f c.yml\ncd infra\naz ml compute create -f c.yml\ncd gpu && az ml compute create --file c.yml\ncd ../..\naz ml compute create -f ./c.yml\nDIR=infra/gpu\ncd \"$DIR\"\naz ml compute create -f c.yml\n";
        let defs = project(SCRIPTS, &["", "infra", "infra/gpu"], "deploy.sh", text);
        let got = read(&defs, text);
        let want = [
            ("root", 2, "c.yml"),
            ("infra", 4, "c.yml"),
            ("infra-gpu", 5, "c.yml"),
            ("root", 7, "./c.yml"),
            ("infra-gpu", 10, "c.yml"),
        ];
        let want: Vec<(String, u32, String)> = want
            .iter()
            .map(|(n, l, t)| (n.to_string(), *l, t.to_string()))
            .collect();
        assert_eq!(got, want);
        // The values read from the file point at where the script names it.
        let size = defs.computes[1].get("size").unwrap();
        assert_eq!(&text[size.span.range()], "c.yml");
        assert!(
            defs.computes[1]
                .from_file
                .as_deref()
                .unwrap()
                .ends_with("infra/c.yml")
        );
    }

    const NOTEBOOKS: &super::super::common::Reader = &super::super::notebook::READER;

    /// `%cd` (and `%pushd`/`%popd`, automagic `cd`, a literal `os.chdir`) moves the kernel,
    /// so the `!az … -f` lines and `%%bash` cells after it read their file there, as a
    /// script's `cd` does; a move to a directory not known makes the file unknown, never
    /// looked for elsewhere.
    #[test]
    fn the_kernels_directory_follows_cd_magics() {
        let read_in = |dirs: &[&str], cells: &[&[&str]]| {
            names(
                NOTEBOOKS,
                dirs,
                "nb.ipynb",
                &super::super::notebook::tests::notebook(cells),
            )
        };
        let dirs = ["", "infra", "infra/gpu"];
        let create = "!az ml compute create -f c.yml\n";
        assert_eq!(
            read_in(
                &dirs,
                &[&[create], &["%cd infra\n", create], &["%cd gpu\n"], &[create]]
            ),
            ["root", "infra", "infra-gpu"]
        );
        assert_eq!(
            read_in(
                &dirs,
                &[
                    &["%pushd infra/gpu\n", create, "%popd\n", create],
                    &["import os\n", "os.chdir('infra')\n", create],
                    &["cd ..\n", "%cd \"infra\"\n"],
                    &["%%bash\n", "az ml compute create -f c.yml\n"],
                ]
            ),
            ["infra-gpu", "root", "infra", "infra"]
        );
        let unknown = |cells: &[&[&str]]| -> String {
            let [name] = read_in(&dirs, cells).try_into().unwrap();
            name
        };
        for (mover, why) in [
            (
                "%cd $DIR\n",
                "`%cd $DIR` on line 7 goes to a directory not known statically",
            ),
            (
                "%cd {d}\n",
                "`%cd {d}` on line 7 goes to a directory not known statically",
            ),
            ("%cd\n", "`%cd` on line 7 goes to the home directory"),
            ("%cd ~/x\n", "`%cd ~/x` on line 7 goes to `~/x`"),
            ("%cd -b infra\n", "`%cd -b infra` on line 7 is given `-b infra`"),
            ("%popd\n", "`%popd` on line 7 has no `%pushd` before it"),
            ("os.chdir(path)\n", "`os.chdir(path)` on line 7 is not followed"),
            (
                "if x:\n    %cd infra\n",
                "`%cd infra` on line 7 moves the kernel inside a block",
            ),
        ] {
            let name = unknown(&[&[mover], &[create]]);
            assert!(
                name.starts_with(
                    "? the compute YAML `c.yml` is named from a directory not known statically: "
                ) && name.contains(why),
                "{mover:?}: {name}"
            );
        }
        // A `!cd` runs in a shell of its own; a comment and a `%%writefile` cell move nothing.
        assert_eq!(
            read_in(
                &dirs,
                &[
                    &["!cd infra\n", "# %cd infra\n", create],
                    &["%%writefile x.py\n", "%cd infra\n"],
                    &[create]
                ]
            ),
            ["root", "root"]
        );
    }

    /// From the script's folder or one above it, as a plain `-f` is looked for: `cd infra`
    /// in `scripts/deploy.sh` reads `scripts/infra/c.yml` or `infra/c.yml`.
    #[test]
    fn cd_from_where_the_script_may_start() {
        let text = "az ml compute create -f c.yml\ncd infra\naz ml compute create -f c.yml\n";
        assert_eq!(
            names(SCRIPTS, ALL, "scripts/deploy.sh", text),
            ["scripts", "infra"]
        );
    }

    #[test]
    fn subshells_pipes_pushd_and_popd() {
        let text = "(cd infra; az ml compute create -f c.yml)\naz ml compute create -f c.yml\n(cd infra && az ml compute create -f c.yml) || exit 1\ncd infra | cat\naz ml compute create -f c.yml\npushd infra/gpu\naz ml compute create -f c.yml\npopd\naz ml compute create -f c.yml\npopd\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "deploy.sh", text);
        assert_eq!(got[..6], ["infra", "root", "infra", "root", "infra-gpu", "root"]);
        assert!(got[6].starts_with("? the compute YAML `c.yml` is named from a directory not known statically: `popd` on line 10 goes back to a directory no `pushd` before it left"), "{got:?}");
    }

    /// A `cd` to a directory not known: later `-f`s are not read anywhere (the name says
    /// why, `--name` keeps its own and a note says the file is not read).
    #[test]
    fn an_unknown_directory_reads_nothing() {
        let text = "cd \"$TARGET\"\naz ml compute create -f c.yml\naz ml compute create -n mine -f c.yml\n";
        let defs = project(SCRIPTS, ALL, "deploy.sh", text);
        let got = read(&defs, text);
        assert_eq!((got[0].1, got[0].2.as_str()), (2, "c.yml"));
        assert_eq!(
            got[0].0,
            "? the compute YAML `c.yml` is named from a directory not known statically: `cd \"$TARGET\"` on line 1 goes to a directory not known statically: `TARGET` is not set in this file (it comes from the environment)"
        );
        let d = &defs.computes[1];
        assert_eq!(d.known_name(), Some("mine"));
        assert!(d.get("size").is_none() && d.from_file.is_none());
        assert!(
            d.notes.iter().any(|n| n.contains("its values are not read")),
            "{:?}",
            d.notes
        );
        for (cd, why) in [
            (
                "cd /opt/infra",
                "goes to `/opt/infra`: where that is in the project is not known",
            ),
            ("cd ~/infra", "goes to `~/infra`"),
            ("cd", "goes to the home directory"),
            ("cd -", "is given `-`"),
            (
                "cd \"$(git rev-parse --show-toplevel)\"",
                "the output of a command",
            ),
            ("cd a b", "more than one word"),
        ] {
            let text = format!("{cd}\naz ml compute create -f c.yml\n");
            let got = names(SCRIPTS, ALL, "deploy.sh", &text);
            assert!(got[0].starts_with('?') && got[0].contains(why), "{cd}: {got:?}");
        }
    }

    /// Branches start where the `if` or `case` did; after it, or in a loop or function
    /// holding a `cd`, the directory is not known; a `cd` after `&&` holds in its list.
    #[test]
    fn conditions_loops_and_functions() {
        let text = "if [ -d infra ]; then\n  cd infra\n  az ml compute create -f c.yml\nelse\n  az ml compute create -f c.yml\nfi\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "deploy.sh", text);
        assert_eq!(got[..2], ["infra", "root"]);
        assert!(
            got[2].contains("`cd infra` on line 2 runs under a condition"),
            "{got:?}"
        );
        let text = "case \"$1\" in\n  gpu) cd infra/gpu; az ml compute create -f c.yml;;\n  *) az ml compute create -f c.yml;;\nesac\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "deploy.sh", text);
        assert_eq!(got[..2], ["infra-gpu", "root"]);
        assert!(got[2].starts_with('?'), "{got:?}");
        let text = "for x in a b; do\n  az ml compute create -f c.yml\n  cd infra\n  az ml compute create -f c.yml\ndone\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "deploy.sh", text);
        assert!(
            got[..2].iter().all(|n| n.contains(
                "`cd infra` on line 3, in a loop, function or block around it, may have run before it"
            )),
            "{got:?}"
        );
        assert!(
            got[2].contains("`cd infra` on line 3 runs under a condition or in a loop"),
            "{got:?}"
        );
        let text = "for x in a b; do (cd infra && az ml compute create -f c.yml); done\naz ml compute create -f c.yml\n";
        assert_eq!(names(SCRIPTS, ALL, "deploy.sh", text), ["infra", "root"]);
        let text = "deploy() {\n  cd infra\n  az ml compute create -f c.yml\n}\ndeploy\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "deploy.sh", text);
        assert!(got.iter().all(|n| n.starts_with('?')), "{got:?}");
        let text =
            "test -d infra && cd infra && az ml compute create -f c.yml\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "deploy.sh", text);
        assert_eq!(got[0], "infra");
        assert!(
            got[1].contains("runs only if the command before it did or did not succeed"),
            "{got:?}"
        );
    }

    /// `cd "$(dirname "$0")"` and its kin: the script's own directory, then what follows.
    #[test]
    fn the_scripts_own_directory() {
        for cd in [
            "cd \"$(dirname \"$0\")\"",
            "cd $(dirname $0)",
            "cd \"$(dirname \"${BASH_SOURCE[0]}\")\"",
            "cd \"${BASH_SOURCE%/*}\"",
            "cd ${0%/*}",
            "cd \"$(dirname \"$(realpath \"$0\")\")\"",
        ] {
            let text = format!("cd ..\n{cd}\naz ml compute create -f c.yml\n");
            assert_eq!(
                names(SCRIPTS, ALL, "scripts/deploy.sh", &text),
                ["scripts"],
                "{cd}"
            );
        }
        // A variable assigned the script's directory once (audit 9's
        // Azure/mlops-starter-sklearn: `exec_dir=$(dirname "$(readlink -f "$0")")`, then
        // `cd $exec_dir/../../`), and the `cd … && pwd` idiom.
        for set in [
            "exec_dir=$(dirname \"$(readlink -f \"$0\")\")",
            "DIR=\"$( cd \"$( dirname \"${BASH_SOURCE[0]}\" )\" >/dev/null 2>&1 && pwd )\"",
            "export HERE=\"$(cd \"$(dirname \"$0\")\" && pwd)\"",
        ] {
            let var = set.trim_start_matches("export ").split('=').next().unwrap();
            let text = format!("{set}\ncd ..\ncd ${var}/..\naz ml compute create -f infra/c.yml\n");
            assert_eq!(
                names(SCRIPTS, ALL, "scripts/deploy.sh", &text),
                ["infra"],
                "{set}"
            );
        }
        // The script's own path in a variable, its directory taken after (audit 33, case
        // 02: `here=$(readlink -f "$0")`, `here_dir=$(dirname "$here")`, `cd
        // "$here_dir/../../"`), or in the `cd` itself.
        for (path, dir) in [
            (
                "here=$(readlink -f \"$0\")",
                "here_dir=$(dirname \"$here\")\ncd \"$here_dir/..\"",
            ),
            (
                "SELF=\"$(realpath \"${BASH_SOURCE[0]}\")\"",
                "cd \"$(dirname \"$SELF\")/..\"",
            ),
            ("me=$0", "d=${me%/*}\ncd $d/.."),
            ("me=$0", "cd `dirname $me`/.."),
        ] {
            let text = format!("{path}\ncd /tmp\n{dir}\naz ml compute create -f infra/c.yml\n");
            assert_eq!(
                names(SCRIPTS, ALL, "scripts/deploy.sh", &text),
                ["infra"],
                "{text}"
            );
        }
        // The path assigned twice: not known.
        let text = "here=$(readlink -f \"$0\")\nhere=$(pwd)\ncd \"$(dirname \"$here\")\"\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "scripts/deploy.sh", text);
        assert!(got[0].contains("not known"), "{got:?}");
        // Assigned twice, or under a condition: not known.
        for text in [
            "D=$(dirname \"$0\")\nD=$(mktemp -d)\ncd $D\naz ml compute create -f c.yml\n",
            "[ -n \"$X\" ] && D=$(dirname \"$0\")\ncd $D\naz ml compute create -f c.yml\n",
        ] {
            let got = names(SCRIPTS, ALL, "scripts/deploy.sh", text);
            assert!(got[0].contains("not known"), "{text}: {got:?}");
        }
        let text = "cd \"$(dirname \"$0\")/../infra\"\naz ml compute create -f c.yml\ncd \"$(dirname \"$0\")\"/..\naz ml compute create -f c.yml\n";
        assert_eq!(names(SCRIPTS, ALL, "scripts/deploy.sh", text), ["infra", "root"]);
        // Only `scripts/c.yml` is a candidate: not in the project → not found there.
        let text = "cd \"$(dirname \"$0\")\"\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, &["", "infra"], "scripts/deploy.sh", text);
        assert!(got[0].contains("is not in the project"), "{got:?}");
    }

    #[test]
    fn powershell_and_cmd() {
        let text = "Set-Location -Path infra\naz ml compute create -f c.yml\nPush-Location gpu\naz ml compute create -f c.yml\nPop-Location\naz ml compute create -f c.yml\nSet-Location $PSScriptRoot\naz ml compute create -f c.yml\ncd \"$PSScriptRoot/../infra\"\naz ml compute create -f c.yml\nsl $env:SOMEWHERE\naz ml compute create -f c.yml\n";
        let got = names(SCRIPTS, ALL, "scripts/deploy.ps1", text);
        assert_eq!(got[..5], ["infra", "infra-gpu", "infra", "scripts", "infra"]);
        assert!(got[5].contains("`sl $env:SOMEWHERE` on line 11"), "{got:?}");
        // A pipe does not isolate PowerShell's `Set-Location`.
        let text = "Set-Location infra | Out-Null\naz ml compute create -f c.yml\n";
        assert_eq!(names(SCRIPTS, ALL, "deploy.ps1", text), ["infra"]);
        let text = "@echo off\r\ncd /d %~dp0..\\infra\r\ncall az ml compute create -f c.yml\r\ncd\r\npushd gpu\r\naz ml compute create -f c.yml\r\npopd\r\ncd %~dp0\r\naz ml compute create -f c.yml\r\ncd..\r\naz ml compute create -f c.yml\r\n";
        let got = names(SCRIPTS, ALL, "scripts/deploy.cmd", text);
        assert_eq!(got, ["infra", "infra-gpu", "scripts", "root"]);
    }

    /// Each line of a Makefile recipe runs in a shell of its own.
    #[test]
    fn makefile_recipe_lines() {
        let text = "compute:\n\tcd infra && az ml compute create -f c.yml\n\taz ml compute create -f c.yml\n\tcd infra; \\\n\t  az ml compute create -f c.yml\n";
        assert_eq!(names(SCRIPTS, ALL, "Makefile", text), ["infra", "root", "infra"]);
    }

    /// A notebook's `!` line is a shell of its own; documentation's commands are to type.
    #[test]
    fn notebook_lines_and_documentation() {
        let nb = serde_json::json!({"cells": [{"cell_type": "code", "metadata": {}, "source": [
            "!cd infra && az ml compute create -f c.yml\n",
            "!az ml compute create -f c.yml\n"
        ]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
        let got = names(&super::super::notebook::READER, ALL, "nb.ipynb", &nb.to_string());
        assert_eq!(got, ["infra", "root"]);
        let md = "```bash\ncd infra\naz ml compute create -f c.yml\n```\n";
        assert_eq!(names(&super::super::docs::READER, ALL, "README.md", md), ["root"]);
    }
}
