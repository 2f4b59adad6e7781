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

/// Output that the GitHub Actions runner reads as plain log lines: no line, once its
/// leading whitespace is trimmed, starts with `::` (a workflow command; such a line gets a
/// backslash before its first colon), and no line holds `##[` (the runner's older command
/// syntax, matched anywhere in a line; written `##\[`). amlint's own lines never do
/// either; only text from a checked file, a configuration or a user rule can.
pub fn workflow_commands(text: String) -> String {
    let starts_command = |line: &str| line.trim_start().starts_with("::");
    let bytes = text.as_bytes();
    if memchr::memmem::find(bytes, b"::").is_none() && memchr::memmem::find(bytes, b"##[").is_none() {
        return text;
    }
    if !text.lines().any(|l| starts_command(l) || l.contains("##[")) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let line = if line.contains("##[") {
            std::borrow::Cow::Owned(line.replace("##[", "##\\["))
        } else {
            std::borrow::Cow::Borrowed(line)
        };
        if starts_command(&line) {
            let indent = line.len() - line.trim_start().len();
            out.push_str(&line[..indent]);
            out.push('\\');
            out.push_str(&line[indent..]);
        } else {
            out.push_str(&line);
        }
    }
    out
}

/// The last step of every text amlint prints (guard 5 of docs/security.md): every
/// character of [`needs_escape`] but the line feed and the tab escaped, then
/// [`workflow_commands`]. Each renderer escapes what it takes from files already; this
/// pass makes a renderer that forgets harmless. With `colored`, the SGR sequences amlint's
/// own colours are made of (`ESC [ digits ; ... m`) are kept: colour goes only to a
/// terminal, and file text never reaches it raw (the renderers escape it first).
pub fn plain(text: String, colored: bool) -> String {
    workflow_commands(controls_but_lines(text, colored))
}

/// Whether `bytes` (UTF-8) hold a character of [`needs_escape`] other than the line feed
/// and the tab, found on the bytes alone: a C0 control or DEL is one byte; a C1 control is
/// `C2 80`–`C2 9F`; the separators and bidi controls are `E2 80 8E`/`8F`/`A8`–`AE` and
/// `E2 81 A6`–`A9`. Most output has none, and is not decoded at all.
fn may_need_escape(bytes: &[u8]) -> bool {
    // Chunks of plain ASCII (printable, line feed, tab) are passed over without a branch
    // per byte; only a chunk holding another byte is looked at closely.
    const CHUNK: usize = 64;
    let plain = |b: u8| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t';
    let mut start = 0;
    while start < bytes.len() {
        let end = (start + CHUNK).min(bytes.len());
        let chunk = &bytes[start..end];
        if chunk.iter().fold(true, |all, &b| all & plain(b)) {
            start = end;
            continue;
        }
        // A character may straddle the chunk's end: its two more bytes are looked at too.
        if exact_scan(&bytes[start..(end + 2).min(bytes.len())]) {
            return true;
        }
        start = end;
    }
    false
}

/// [`may_need_escape`] byte by byte.
fn exact_scan(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let hit = match b {
            b'\n' | b'\t' => false,
            0..=0x1f | 0x7f => true,
            0xc2 => matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
            0xe2 => matches!(
                (bytes.get(i + 1), bytes.get(i + 2)),
                (Some(0x80), Some(0x8e | 0x8f | 0xa8..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
            ),
            _ => false,
        };
        if hit {
            return true;
        }
        i += 1;
    }
    false
}

/// [`plain`] without the [`workflow_commands`] pass: for the output whose lines are
/// workflow commands (`--format github`, which escapes every value inside them).
pub fn controls_but_lines(text: String, colored: bool) -> String {
    let needs = |c: char| needs_escape(c) && c != '\n' && c != '\t';
    if !may_need_escape(text.as_bytes()) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text.as_str();
    while let Some(c) = rest.chars().next() {
        if colored && c == '\u{1b}' {
            let sgr = rest[1..]
                .strip_prefix('[')
                .and_then(|r| {
                    r.find(|ch: char| !(ch.is_ascii_digit() || ch == ';'))
                        .map(|n| (r, n))
                })
                .filter(|(r, n)| r[*n..].starts_with('m'));
            if let Some((_, n)) = sgr {
                let len = 1 + 1 + n + 1;
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if needs(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// JSON as `serde_json` pretty-prints it, with every character of [`needs_escape`] in a
/// string written as a `\uXXXX` escape (serde escapes only C0 controls): C1 controls,
/// line separators and bidi controls from a checked file reach no terminal raw, and the
/// document still parses to the same values.
pub fn to_json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Escaping::pretty());
    value.serialize(&mut ser)?;
    // serde_json writes UTF-8; were it not to, no output is better than a panic.
    String::from_utf8(out).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

/// serde_json's pretty formatter, escaping more in strings ([`to_json_pretty`]); for
/// output serialised piecewise (SARIF).
pub struct Escaping<'a>(serde_json::ser::PrettyFormatter<'a>);

impl Escaping<'_> {
    pub fn pretty() -> Self {
        Escaping(serde_json::ser::PrettyFormatter::new())
    }
}

impl serde_json::ser::Formatter for Escaping<'_> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        // `##[` (the Actions runner's older command syntax, matched anywhere in a line)
        // is written `#\u0023[`: the same string, no command in a CI log.
        let hashes = |rest: &str, i: usize, c: char| c == '#' && rest[i..].starts_with("##[");
        while let Some((i, c)) = rest
            .char_indices()
            .find(|&(i, c)| needs_escape(c) || hashes(rest, i, c))
        {
            w.write_all(&rest.as_bytes()[..i])?;
            if c == '#' {
                w.write_all(b"#\\u0023")?;
                rest = &rest[i + 2..];
                continue;
            }
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(w, "\\u{unit:04x}")?;
            }
            rest = &rest[i + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// The byte scan agrees with [`needs_escape`] on every character.
    #[test]
    fn the_byte_scan_finds_what_needs_escaping() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let want = needs_escape(c) && c != '\n' && c != '\t';
            let text = format!("a{c}b");
            assert_eq!(may_need_escape(text.as_bytes()), want, "{:x}", c as u32);
        }
    }

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

    #[test]
    fn json_escapes_every_control_and_reads_back_the_same() {
        let value =
            serde_json::json!({"m": "a\u{1b}[2J\u{9b}x\u{2028}\u{202e}é😀\n::error::x ##[error]y ###[z"});
        let text = to_json_pretty(&value).unwrap();
        assert!(!text.chars().any(|c| c != '\n' && needs_escape(c)), "{text:?}");
        assert!(
            text.contains("\\u009b") && text.contains("\\u2028") && text.contains("\\u202e"),
            "{text}"
        );
        assert!(text.contains("é😀"), "other characters are kept");
        assert!(!text.contains("##["), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
        // Only strings change: the layout is serde_json's pretty one.
        let plain = serde_json::json!({"a": [1, {"b": null}], "c": "d"});
        assert_eq!(
            to_json_pretty(&plain).unwrap(),
            serde_json::to_string_pretty(&plain).unwrap()
        );
    }
}
