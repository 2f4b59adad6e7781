//! Output that cannot be turned against its reader (issue 29): values from a checked file,
//! a configuration or a user rule — line breaks, `::` and `##[` sequences, ESC and C1
//! controls, bidi controls, megabyte lines — reach every output format escaped for it:
//! no terminal control sequence, no line the GitHub Actions runner reads as a command
//! (checked by a scanner that applies the runner's two command syntaxes), and a bounded
//! amount of output per finding.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// What a hostile value holds: a line break starting a forged workflow command, the
/// runner's older `##[` syntax, a title-setting and screen-clearing escape sequence, a C1
/// CSI, a bidi override, and a line separator.
const NASTY: &str = "myenv:1\n::error file=README.md,line=1::forged\u{1b}]0;title\u{7}\u{1b}[2J\u{9b}31m ##[error]legacy \u{202e}evil\u{2028}x";

/// The commands the GitHub Actions runner would run from `text`, as it reads each line:
/// first as `::name props::data` once leading whitespace is trimmed (the current syntax),
/// and only when that fails, as `##[name]` anywhere in the line (the older one).
fn runner_commands(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            (t.starts_with("::") && t[2..].contains("::")) || l.contains("##[")
        })
        .map(str::to_string)
        .collect()
}

/// The workflow command a line of `--format github` output is, if it is one of amlint's:
/// an annotation on the checked file, whose data has no raw line break.
fn own_annotation(line: &str) -> bool {
    ["::error ", "::warning ", "::notice "]
        .iter()
        .any(|p| line.starts_with(p))
        && line.contains("file=job.yml,")
}

/// Characters a terminal acts on or that reorder what it shows.
fn has_controls(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

/// `text` as a YAML double-quoted scalar, every character PyYAML refuses raw written as
/// an escape (the value read back is `text`).
fn yaml_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x100 && (c.is_control()) => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if !c.is_ascii() && !c.is_alphanumeric() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let quoted = yaml_quoted(NASTY);
    // AML202 quotes the environment reference (with its help); a key with the same text
    // is an unknown key (AML101) quoted in the message; a user rule's help holds it too.
    std::fs::write(
        d.join("job.yml"),
        format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: {quoted}\ncompute: local\n{quoted}: 1\ndescription: {}\n",
            "x".repeat(10 << 20)
        ),
    )
    .unwrap();
    std::fs::write(d.join("amlint.toml"), "rules-dirs = [\"policies\"]\n").unwrap();
    std::fs::create_dir(d.join("policies")).unwrap();
    let help = yaml_quoted(&format!("Use a named compute.\n{NASTY}"));
    std::fs::write(
        d.join("policies/ORG101.yaml"),
        format!("code: ORG101\nname: org-no-local\nseverity: warning\nsummary: s\nwhat: w\nwhy: y\nexample_note: n\nkinds: [commandJob]\nwhen:\n  field: compute\n  equals: local\nreport:\n  at: compute\n  message: {help}\n  help: {help}\n"),
    )
    .unwrap();
    dir
}

fn run(dir: &Path, format: &str) -> String {
    let out = Command::cargo_bin("amlint")
        .unwrap()
        .current_dir(dir)
        .env("AMLINT_TODAY", "2026-11-22")
        .env("FORCE_COLOR", "1")
        .args(["check", "--max-file-size", "20000000", "--format", format, "."])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{format}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn hostile_values_are_escaped_in_every_format() {
    let dir = project();
    for format in ["human", "json", "sarif", "github", "junit"] {
        let out = run(dir.path(), format);
        // Colour is on (FORCE_COLOR) in human output: its own escape sequences only.
        let text = if format == "human" {
            strip_ansi(&out)
        } else {
            out.clone()
        };
        assert!(!has_controls(&text), "{format}: a control character came through");
        let commands = runner_commands(&text);
        if format == "github" {
            // One command per finding, each a well-formed annotation of amlint's own.
            assert_eq!(commands.len(), 3, "{commands:?}");
            assert!(commands.iter().all(|c| own_annotation(c)), "{commands:?}");
            assert!(!text.contains("\n::error file=README.md"), "a forged annotation");
        } else {
            assert!(commands.is_empty(), "{format}: the runner would run {commands:?}");
        }
        // The machine formats still carry the value itself; every format says a bounded
        // amount per finding (SARIF adds its rule metadata once).
        if format == "json" || format == "sarif" {
            let v: Value = serde_json::from_str(&out).unwrap();
            assert!(v.to_string().contains("myenv:1\\n::error"), "{format}");
            let findings = if format == "json" {
                &v["diagnostics"]
            } else {
                &v["runs"][0]["results"]
            };
            for f in findings.as_array().unwrap() {
                assert!(f.to_string().len() < 16 << 10, "{format}: {f}");
            }
        } else {
            assert!(
                out.len() < 64 << 10,
                "{format}: {} bytes for a few findings",
                out.len()
            );
        }
    }
}

/// Human output without the colour escape sequences amlint writes itself (`ESC [ ... m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
