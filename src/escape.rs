//! Escaping for output read by terminals and CI logs (the bottom layer: messages made
//! anywhere, file-system ones included, and every output format use it). Text that comes from a checked file,
//! a configuration or a user rule (values, keys, paths, messages, help) may hold control
//! characters: printed raw, an `ESC` sequence drives the terminal, a line break starts a
//! new log line the GitHub runner may read as a workflow command (`::error ...`), and bidi
//! controls reorder what the reader sees. Every byte of human output goes through here.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` is shown escaped: C0 controls (tab and line breaks included), DEL, C1
/// controls, the Unicode line and paragraph separators, and the bidi controls.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every character of [`needs_escape`] written as Rust writes it in a string
/// literal (`\n`, `\t`, `\u{1b}`); unchanged text is borrowed.
pub fn control(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c`, escaped if [`needs_escape`] says so.
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// How many bytes `c` takes once escaped.
pub fn escaped_len(c: char) -> usize {
    match c {
        '\n' | '\r' | '\t' => 2,
        c if needs_escape(c) => format!("\\u{{{:x}}}", c as u32).len(),
        c => c.len_utf8(),
    }
}

/// Output in which no line, once the GitHub runner trims its leading whitespace, starts
/// with `::` (a workflow command): such a line gets a backslash before its first colon.
/// amlint's own lines never start so; only text from a checked file, wrapped onto a line
/// of its own, can.
pub fn workflow_commands(text: String) -> String {
    let starts_command = |line: &str| line.trim_start().starts_with("::");
    if !text.lines().any(starts_command) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if starts_command(line) {
            let indent = line.len() - line.trim_start().len();
            out.push_str(&line[..indent]);
            out.push('\\');
            out.push_str(&line[indent..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_others_kept() {
        assert_eq!(control("plain café"), "plain café");
        assert!(matches!(control("plain"), Cow::Borrowed(_)));
        assert_eq!(
            control("a\nb\r\tc\u{1b}]0;t\u{7}\u{85}\u{2028}\u{202e}d\u{7f}"),
            "a\\nb\\r\\tc\\u{1b}]0;t\\u{7}\\u{85}\\u{2028}\\u{202e}d\\u{7f}"
        );
        for c in ['\n', '\u{1b}', '\u{9b}', '\u{2066}', 'é', 'x'] {
            let mut s = String::new();
            push_escaped(&mut s, c);
            assert_eq!(s.len(), escaped_len(c), "{c:?}");
        }
    }

    #[test]
    fn no_line_starts_a_workflow_command() {
        let text = "AML202 x\n  help: use\n        ::error file=a::b\n  :: not at the start\n::warning::c\n"
            .to_string();
        let safe = workflow_commands(text);
        assert_eq!(
            safe,
            "AML202 x\n  help: use\n        \\::error file=a::b\n  \\:: not at the start\n\\::warning::c\n"
        );
        assert!(safe.lines().all(|l| !l.trim_start().starts_with("::")));
        let clean = "nothing\nto do\n".to_string();
        assert_eq!(workflow_commands(clean.clone()), clean);
    }
}
