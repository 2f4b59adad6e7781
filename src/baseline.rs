//! Fingerprints and baselines (`docs/output-formats.md`, "Baselines").
//!
//! A finding's fingerprint is a hash of what it is about, not of where the file has it:
//! the rule's code, the file's path (relative to its git work tree, else the project
//! root), the JSON pointer of the node, and the text of the span (its first line, with
//! whitespace collapsed), plus an occurrence number among findings that share all of
//! these. Inserting or deleting lines elsewhere, re-indenting, or editing other keys
//! leaves it unchanged; changing the offending value, renaming the file or moving the
//! key makes it a new finding. SARIF `partialFingerprints` carry the same value.
//!
//! `--write-baseline FILE` records the fingerprints of the current findings (atomically:
//! a temporary file renamed over the old one); `--baseline FILE` hides findings whose
//! fingerprint it records.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::source::{SourceFile, Span};

/// The fingerprint scheme's name, the key in SARIF `partialFingerprints`.
pub const SCHEME: &str = "amlintFingerprint/v1";

/// Version of the baseline file format.
pub const VERSION: u32 = 1;

/// FNV-1a, 128 bits: stable across platforms, Rust versions and runs (unlike
/// `std::hash`), and collisions are negligible at the scale of a repository's findings.
fn fnv1a_128(parts: &[&str]) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    let mut h = OFFSET;
    for part in parts {
        for &b in part.as_bytes() {
            h ^= u128::from(b);
            h = h.wrapping_mul(PRIME);
        }
        // A separator that cannot occur in the parts' text keeps ("ab","c") ≠ ("a","bc").
        h ^= 0xff;
        h = h.wrapping_mul(PRIME);
    }
    h
}

/// The text a fingerprint takes from a span: its first line, trimmed, with runs of
/// whitespace collapsed (so that re-indenting or re-wrapping does not change it).
pub fn content_of(source: &SourceFile, span: Span) -> String {
    let text = source.slice(span);
    let first = text.split(['\n', '\r']).next().unwrap_or("");
    first.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The fingerprint of one finding.
pub fn fingerprint(code: &str, path: &str, pointer: &str, content: &str, occurrence: usize) -> String {
    let n = occurrence.to_string();
    format!("{:032x}", fnv1a_128(&["v1", code, path, pointer, content, &n]))
}

/// Sets the fingerprint of each finding of one file (`path` as fingerprints name it).
/// Findings are taken in report order, so occurrence numbers are stable.
pub fn assign(path: &str, source: &SourceFile, diagnostics: &mut [Diagnostic]) {
    let mut seen: HashMap<(&'static str, String, String), usize> = HashMap::new();
    for d in diagnostics.iter_mut() {
        let pointer = d.pointer.as_ref().map(ToString::to_string).unwrap_or_default();
        let content = content_of(source, d.focus.unwrap_or(d.span));
        let n = seen
            .entry((d.code, pointer.clone(), content.clone()))
            .or_insert(0);
        d.fingerprint = Some(fingerprint(d.code, path, &pointer, &content, *n));
        *n += 1;
    }
}

/// A baseline file as written.
#[derive(Debug, Serialize, Deserialize)]
struct BaselineFile {
    version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    generated_by: Option<String>,
    findings: Vec<BaselineEntry>,
}

/// One recorded finding. Only `fingerprint` is matched; the rest is for the reader of a
/// diff.
#[derive(Debug, Serialize, Deserialize)]
struct BaselineEntry {
    fingerprint: String,
    code: String,
    #[serde(default)]
    path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

/// The findings a baseline accepts.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// The file, as given.
    pub path: String,
    fingerprints: HashSet<String>,
}

/// A baseline that cannot be read or written: what, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineError {
    pub message: String,
    pub help: String,
}

impl std::fmt::Display for BaselineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}\n  help: {}", self.message, self.help)
    }
}

impl Baseline {
    /// Reads a baseline: a regular file (never a pipe or device) of at most
    /// [`fsio::MAX_BASELINE_SIZE`], whose real location is inside its project (the git
    /// work tree containing it, else its directory: a link in the repository cannot make
    /// amlint read another file and show it in an error).
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let shown = crate::fsio::shown(path);
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let boundary = crate::fsio::Boundary::around(dir);
        let bytes =
            crate::fsio::read_named(path, &boundary, crate::fsio::MAX_BASELINE_SIZE).map_err(|r| {
                BaselineError {
                    message: format!("cannot read the baseline {shown}: {}", r.describe()),
                    help: "Create it with `amlint check --write-baseline FILE`, or fix the path.".to_string(),
                }
            })?;
        let text = String::from_utf8(bytes).map_err(|_| BaselineError {
            message: format!("the baseline {shown} is not valid UTF-8"),
            help: "Regenerate it with `amlint check --write-baseline FILE`.".to_string(),
        })?;
        Self::parse(&shown, &text)
    }

    pub fn parse(shown: &str, text: &str) -> Result<Baseline, BaselineError> {
        // Only the fingerprints are kept: the other fields are for people reading a diff,
        // and reading them would hold several times the file in memory.
        #[derive(Deserialize)]
        struct Read {
            version: u32,
            findings: Vec<ReadEntry>,
        }
        #[derive(Deserialize)]
        struct ReadEntry {
            fingerprint: String,
        }
        let file: Read = serde_json::from_str(text).map_err(|e| BaselineError {
            message: format!("the baseline {shown} is not valid ({e})"),
            help: "Regenerate it with `amlint check --write-baseline FILE`.".to_string(),
        })?;
        if file.version != VERSION {
            return Err(BaselineError {
                message: format!(
                    "the baseline {shown} has version {}, but this amlint reads version {VERSION}",
                    file.version
                ),
                help: "Regenerate it with this amlint: `amlint check --write-baseline FILE`.".to_string(),
            });
        }
        Ok(Baseline {
            path: shown.to_string(),
            fingerprints: file.findings.into_iter().map(|e| e.fingerprint).collect(),
        })
    }

    pub fn contains(&self, fingerprint: &str) -> bool {
        self.fingerprints.contains(fingerprint)
    }

    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }
}

/// One finding to record: its path (as fingerprints name it), its line, and itself.
pub struct Recorded<'a> {
    pub path: String,
    pub line: u32,
    pub diagnostic: &'a Diagnostic,
}

/// The baseline text for `findings`, sorted so that it diffs well.
pub fn render(findings: &[Recorded<'_>]) -> String {
    let mut entries: Vec<BaselineEntry> = findings
        .iter()
        .filter_map(|r| {
            Some(BaselineEntry {
                fingerprint: r.diagnostic.fingerprint.clone()?,
                code: r.diagnostic.code.to_string(),
                path: r.path.clone(),
                line: Some(r.line),
                message: Some(r.diagnostic.message.clone()),
            })
        })
        .collect();
    entries.sort_by(|a, b| {
        (&a.path, a.line, &a.code, &a.fingerprint).cmp(&(&b.path, b.line, &b.code, &b.fingerprint))
    });
    entries.dedup_by(|a, b| a.fingerprint == b.fingerprint);
    let file = BaselineFile {
        version: VERSION,
        generated_by: Some(format!("amlint {}", env!("CARGO_PKG_VERSION"))),
        findings: entries,
    };
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, flushed
/// to disk, then renamed over `path`. A reader never sees half a file. A symbolic link,
/// pipe, device or directory at `path` is refused and left alone; a file replaced keeps
/// its permissions (`fsio::write_atomically`).
pub fn write_atomically(path: &Path, text: &str) -> Result<(), BaselineError> {
    let shown = crate::fsio::shown(path);
    crate::fsio::write_atomically(path, text.as_bytes(), crate::fsio::Replace::Regular).map_err(|e| {
        let help = match e {
            crate::fsio::WriteRefusal::NotRegular(_) => {
                "Remove it, or write the baseline to a regular file elsewhere."
            }
            _ => "Check that the directory exists and is writable.",
        };
        BaselineError {
            message: format!("cannot write the baseline {shown}: {}", e.describe()),
            help: help.to_string(),
        }
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::diagnostic::codes;
    use crate::source::Pointer;

    #[test]
    fn fingerprints_ignore_position_but_not_content() {
        let a = SourceFile::new("a.yml", "x: 1\ncompute: gpu\n".into());
        let b = SourceFile::new("a.yml", "# new line\n\nx: 1\ncompute:   gpu\n".into());
        let mk = |src: &SourceFile| {
            let start = src.text.find("gpu").unwrap() as u32;
            let mut d = vec![
                Diagnostic::new(codes::AML002, Span::new(start, start + 3), "m")
                    .with_pointer(Pointer::parse("/compute")),
            ];
            assert_eq!(content_of(src, d[0].span), "gpu");
            assign("jobs/a.yml", src, &mut d);
            d[0].fingerprint.clone().unwrap()
        };
        assert_eq!(mk(&a), mk(&b));
        let other = fingerprint("AML002", "jobs/a.yml", "/compute", "cpu", 0);
        assert_ne!(mk(&a), other);
        assert_eq!(mk(&a).len(), 32);
        // Stable across builds: a fixed value.
        assert_eq!(
            fingerprint("AML002", "a.yml", "/x", "y", 0),
            fingerprint("AML002", "a.yml", "/x", "y", 0)
        );
        assert_ne!(
            fingerprint("A", "bc", "", "", 0),
            fingerprint("Ab", "c", "", "", 0)
        );
    }

    #[test]
    fn identical_findings_get_occurrence_numbers() {
        let src = SourceFile::new("a.yml", "a\na\n".into());
        let mut d = vec![
            Diagnostic::new(codes::AML001, Span::new(0, 1), "m"),
            Diagnostic::new(codes::AML001, Span::new(2, 3), "m"),
        ];
        assign("a.yml", &src, &mut d);
        assert_ne!(d[0].fingerprint, d[1].fingerprint);
    }

    #[test]
    fn round_trip_and_errors() {
        let src = SourceFile::new("a.yml", "a: b\n".into());
        let mut d = vec![Diagnostic::new(codes::AML002, Span::new(3, 4), "m")];
        assign("a.yml", &src, &mut d);
        let text = render(&[Recorded {
            path: "a.yml".into(),
            line: 1,
            diagnostic: &d[0],
        }]);
        let b = Baseline::parse("b.json", &text).unwrap();
        assert!(b.contains(d[0].fingerprint.as_deref().unwrap()));
        assert_eq!(b.len(), 1);
        assert!(
            Baseline::parse("b.json", "{")
                .unwrap_err()
                .message
                .contains("not valid")
        );
        let v2 = "{\"version\": 2, \"findings\": []}";
        assert!(
            Baseline::parse("b.json", v2)
                .unwrap_err()
                .message
                .contains("version 2")
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("base.json");
        write_atomically(&path, &text).unwrap();
        write_atomically(&path, &text).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(write_atomically(&dir.path().join("no/such/dir.json"), "x").is_err());
    }
}
