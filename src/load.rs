//! Bytes → [`LoadedFile`]: reading a file safely (regular files only, bounded size, no
//! binary, UTF-8 with an optional BOM), then parsing it as YAML or JSON.

use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Findings, Omitted, codes};
use crate::document::{Document, json, yaml};
pub use crate::fsio::Seen;
use crate::fsio::{self, Boundary, Refusal};
use crate::limits::Limits;
use crate::source::{SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
    /// A file read only for the compute definitions it may hold (a script, a notebook,
    /// Terraform, Bicep: [`is_definition_source`]): not parsed here; its readers
    /// (`facts::sources`) parse what they need.
    Text,
}

/// File names (lower-case suffixes, or whole names for Makefiles) that may hold compute
/// definitions outside YAML and JSON: walked beside the Azure ML files and read by the
/// definition readers of `facts::sources` (each suffix is wanted by one; a test keeps the
/// two in step).
pub const DEFINITION_SOURCES: &[&str] = &[
    ".sh",
    ".bash",
    ".zsh",
    ".ksh",
    ".azcli",
    ".ps1",
    ".psm1",
    ".cmd",
    ".bat",
    ".ipynb",
    ".mk",
    "makefile",
    "gnumakefile",
    ".bicep",
    ".bicepparam",
    ".tf",
    ".tfvars",
    ".py",
    ".md",
    ".markdown",
    ".rst",
    ".txt",
    ".adoc",
    "jenkinsfile",
    ".jenkinsfile",
    ".groovy",
    ".r",
    ".rmd",
];

/// Whether a file name (its last component) is one of [`DEFINITION_SOURCES`].
pub fn is_definition_source(name: &str) -> bool {
    // The last component (a walk asks this of every entry: bytes, not a `char` search).
    let start = name
        .as_bytes()
        .iter()
        .rposition(|&b| b == b'/' || b == b'\\')
        .map_or(0, |i| i + 1);
    let name = &name[start..];
    // The suffixes hold one dot each: only the part from the last dot (not a leading one,
    // which a suffix needs a name before) can match one. Walks ask this of every entry.
    let extension = match name.rfind('.') {
        Some(dot) if dot > 0 => &name[dot..],
        _ => "",
    };
    DEFINITION_SOURCES.iter().any(|s| {
        if s.starts_with('.') {
            extension.eq_ignore_ascii_case(s)
        } else {
            name.eq_ignore_ascii_case(s)
        }
    })
}

impl Format {
    /// `.json` files are JSON; definition sources ([`is_definition_source`]) are text;
    /// everything else (`.yml`, `.yaml`, `MLTable`) is YAML.
    pub fn for_path(path: &str) -> Format {
        let b = path.as_bytes();
        if b.len() >= 5 && b[b.len() - 5..].eq_ignore_ascii_case(b".json") {
            Format::Json
        } else if is_definition_source(path) {
            Format::Text
        } else {
            Format::Yaml
        }
    }
}

/// A file after loading: its text, its documents and what went wrong on the way.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    pub source: Arc<SourceFile>,
    pub format: Format,
    pub documents: Vec<Document>,
    /// AML001, AML002, AML004, AML005.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings counted but not kept, beyond [`Limits::findings_kept`].
    pub omitted: Vec<Omitted>,
    /// The file could not be read at all (AML004/AML005 before parsing).
    pub unreadable: bool,
}

impl LoadedFile {
    fn unreadable(display: &str, format: Format, refused: Refused) -> Self {
        Self {
            source: SourceFile::new(display, refused.text),
            format,
            documents: Vec::new(),
            diagnostics: vec![refused.diagnostic],
            omitted: Vec::new(),
            unreadable: true,
        }
    }
}

/// Why a file's bytes were not read as text (AML004, AML005), and the text its span is
/// in: empty, or — for a file that is not UTF-8 — the text with the invalid bytes
/// replaced (U+FFFD), so that the finding can point at the first of them.
#[derive(Debug, Clone)]
pub struct Refused {
    pub diagnostic: Diagnostic,
    pub text: String,
}

/// Reads and parses the file at `path`, shown as `display` in reports (`seen`: what the
/// caller knows of it; `boundary`: where links may lead, `fsio`).
pub fn load_path(path: &Path, display: &str, seen: Seen, boundary: &Boundary, limits: &Limits) -> LoadedFile {
    let format = Format::for_path(display);
    match read_text_seen(path, seen, boundary, limits) {
        Ok(text) => parse_text(display, text, format, limits),
        Err(refused) => LoadedFile::unreadable(display, format, *refused),
    }
}

fn unreadable(message: String, help: &str) -> Box<Refused> {
    refused(Diagnostic::new(codes::AML004, Span::at(0), message).with_help(help))
}

fn refused(diagnostic: Diagnostic) -> Box<Refused> {
    Box::new(Refused {
        diagnostic,
        text: String::new(),
    })
}

/// Reads a file's text, refusing anything that is not a regular, bounded, UTF-8 file
/// inside `boundary`.
pub fn read_text(path: &Path, boundary: &Boundary, limits: &Limits) -> Result<String, Box<Refused>> {
    read_text_seen(path, Seen::Unknown, boundary, limits)
}

/// [`read_text`] for a file of which `seen` is known.
pub fn read_text_seen(
    path: &Path,
    seen: Seen,
    boundary: &Boundary,
    limits: &Limits,
) -> Result<String, Box<Refused>> {
    let bytes = fsio::read_regular(path, seen, boundary, limits.max_file_size).map_err(|r| refusal(&r))?;
    decode(bytes)
}

/// A file refused by `fsio` as a finding: AML005 for one over the size limit, AML004
/// for the rest.
pub fn refusal(r: &Refusal) -> Box<Refused> {
    let help = match r {
        Refusal::TooLarge { .. } => {
            return refused(Diagnostic::new(codes::AML005, Span::at(0), r.describe()).with_help(
                "Azure ML configuration files are a few kilobytes; if this one really is a configuration, check it with a higher limit: `amlint check --max-file-size BYTES` (the language server reads files up to the default 8 MiB).",
            ));
        }
        Refusal::Missing => "Check the path.",
        Refusal::Vanished | Refusal::Replaced => "Run amlint again once nothing else is changing the files.",
        Refusal::Dangling => "Fix or remove the dangling link.",
        Refusal::Loop => "Fix the links so that they end at a real file.",
        Refusal::Denied => "Make the file readable by the user running amlint, or exclude it.",
        Refusal::Directory => {
            "Pass the files inside it, or the directory without a file extension so that amlint walks it."
        }
        Refusal::Special(_) | Refusal::WouldBlock => "Check a regular file instead.",
        Refusal::Outside { .. } => {
            "Copy the file into the project, or check it where it is (name it on the command line from its own directory)."
        }
        Refusal::GitData => "Name a file of the project's own tree, not of its git data.",
        Refusal::Io(_) => "Check the file and its permissions.",
    };
    unreadable(r.describe(), help)
}

fn too_large(len: u64, limits: &Limits) -> Box<Refused> {
    refusal(&Refusal::TooLarge {
        len,
        limit: limits.max_file_size,
    })
}

/// Bytes → text: UTF-8 (with or without BOM) only, as the Azure ML CLI opens files.
pub fn decode(bytes: Vec<u8>) -> Result<String, Box<Refused>> {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(unreadable(
            "the file is UTF-16 encoded; the Azure ML CLI reads configuration files as UTF-8".to_string(),
            "Save the file as UTF-8 (in VS Code: \"Save with Encoding\" → UTF-8).",
        ));
    }
    if let Some(nul) = memchr_nul(&bytes) {
        return Err(unreadable(
            format!("binary file: it contains a NUL byte (at byte {nul})"),
            "This is not a text configuration file; remove it or exclude it from the check.",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let byte = bytes[at];
        // The text up to `at` is valid, so `at` is also where the replacement character
        // of the lossy text starts.
        let text = String::from_utf8_lossy(bytes).into_owned();
        let at32 = u32::try_from(at).unwrap_or(u32::MAX);
        let span = Span::new(at32, at32.saturating_add(3));
        Box::new(Refused {
            diagnostic: Diagnostic::new(
                codes::AML004,
                span,
                format!("the file is not valid UTF-8: byte 0x{byte:02x} is not a UTF-8 character"),
            )
            .with_help(
                "Save the file as UTF-8 (in VS Code: \"Save with Encoding\" → UTF-8); the Azure ML CLI cannot read other encodings. A byte like this one usually comes from a Latin-1 or Windows-1252 editor.",
            ),
            text,
        })
    })
}

fn memchr_nul(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, bytes)
}

/// Loads text held in memory (an editor buffer) as the file `display`: refused above the
/// size limit like a file on disk (AML005), else parsed as its name says (JSON or YAML).
pub fn load_text(display: &str, text: String, limits: &Limits) -> LoadedFile {
    let format = Format::for_path(display);
    if text.len() as u64 > limits.max_file_size {
        return LoadedFile::unreadable(display, format, *too_large(text.len() as u64, limits));
    }
    parse_text(display, text, format, limits)
}

/// Parses text that is already in memory (files, standard input, editor buffers).
pub fn parse_text(display: &str, text: String, format: Format, limits: &Limits) -> LoadedFile {
    parse_source(SourceFile::new(display, text), format, limits)
}

/// Parses a file's text (again: a file whose tree was dropped to bound memory).
pub fn parse_source(source: Arc<SourceFile>, format: Format, limits: &Limits) -> LoadedFile {
    let base = if source.text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut findings = Findings::new(limits.findings_kept());
    let mut documents = match format {
        Format::Yaml => yaml::parse(&source.text, base, limits, &mut findings),
        Format::Json => json::parse(&source.text, base, limits, &mut findings),
        Format::Text => Vec::new(),
    };
    if format == Format::Json && findings.iter().any(|d| d.code == codes::AML001.code) {
        // The Azure ML CLI reads every configuration with PyYAML (SDK v1 tries YAML first,
        // then JSON): JSON that only YAML accepts (a trailing comma, a comment) loads.
        let mut as_yaml = Findings::new(limits.findings_kept());
        let yaml_documents = yaml::parse(&source.text, base, limits, &mut as_yaml);
        if !as_yaml.iter().any(|d| d.code == codes::AML001.code) && !yaml_documents.is_empty() {
            documents = yaml_documents;
            findings = as_yaml;
        }
    }
    let (diagnostics, omitted) = findings.into_parts();
    LoadedFile {
        source,
        format,
        documents,
        diagnostics,
        omitted,
        unreadable: false,
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn definition_sources_are_text() {
        for (name, format) in [
            ("infra/setup.sh", Format::Text),
            ("Setup.PS1", Format::Text),
            ("Makefile", Format::Text),
            ("sub/GNUmakefile", Format::Text),
            ("nb.ipynb", Format::Text),
            ("job.yml", Format::Yaml),
            ("MLTable", Format::Yaml),
            ("config.json", Format::Json),
            ("Deploy/Config.JSON", Format::Json),
            (".json", Format::Json),
            ("json", Format::Yaml),
            ("café.json", Format::Json),
            ("é", Format::Yaml),
            (".sh", Format::Yaml),
            ("makefile.yml", Format::Yaml),
        ] {
            assert_eq!(Format::for_path(name), format, "{name}");
        }
        let loaded = parse_text("a.sh", "a: [\n".into(), Format::Text, &Limits::default());
        assert!(loaded.documents.is_empty() && loaded.diagnostics.is_empty());
    }

    #[test]
    fn decoding() {
        assert_eq!(decode(b"\xef\xbb\xbfa: 1".to_vec()).unwrap(), "\u{feff}a: 1");
        let message = |bytes: &[u8]| decode(bytes.to_vec()).unwrap_err().diagnostic.message;
        assert!(message(&[0xff, 0xfe, b'a', 0]).contains("UTF-16"));
        assert!(message(b"a\0b").contains("NUL"));
        // Not UTF-8: the finding points at the first invalid byte, in the lossy text.
        let Refused { diagnostic: d, text } = *decode(b"a: \xc3\xa9\nb: \xe9t\xe9\n".to_vec()).unwrap_err();
        assert_eq!(d.code, "AML004");
        assert!(d.message.contains("0xe9"), "{}", d.message);
        assert_eq!(&text[d.span.start as usize..d.span.end as usize], "\u{fffd}");
        let source = SourceFile::new("x.yml", text);
        let at = source.position(d.span.start);
        assert_eq!((at.line, at.column), (2, 4));
    }

    #[test]
    fn bom_offsets_stay_file_offsets() {
        let loaded = parse_text(
            "a.yml",
            "\u{feff}a: 1\nb: x\n".to_string(),
            Format::Yaml,
            &Limits::default(),
        );
        let doc = &loaded.documents[0];
        let span = doc.span_of(
            &crate::source::Pointer::parse("/b"),
            crate::document::Target::Value,
        );
        assert_eq!(loaded.source.slice(span), "x");
        assert_eq!(loaded.source.position(span.start).column, 4);
    }

    #[test]
    fn directories_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let l = Limits::default();
        let any = Boundary::anywhere();
        assert!(
            read_text(dir.path(), &any, &l)
                .unwrap_err()
                .diagnostic
                .message
                .contains("directory")
        );
        assert!(
            read_text(&dir.path().join("nope.yml"), &any, &l)
                .unwrap_err()
                .diagnostic
                .message
                .contains("no such file")
        );
        let big = dir.path().join("big.yml");
        std::fs::write(&big, "a: 1\n".repeat(10)).unwrap();
        let small = Limits {
            max_file_size: 10,
            ..Limits::default()
        };
        assert_eq!(
            read_text(&big, &any, &small).unwrap_err().diagnostic.code,
            "AML005"
        );
    }

    #[test]
    fn a_listed_file_is_looked_at_through_the_open_file() {
        let dir = tempfile::tempdir().unwrap();
        let l = Limits::default();
        let any = Boundary::anywhere();
        let ok = dir.path().join("ok.yml");
        std::fs::write(&ok, "a: 1\n").unwrap();
        assert_eq!(read_text_seen(&ok, Seen::Listed, &any, &l).unwrap(), "a: 1\n");
        // What was listed as a file may have become something else since.
        let message = |p: &Path| {
            read_text_seen(p, Seen::Listed, &any, &l)
                .unwrap_err()
                .diagnostic
                .message
        };
        assert!(message(dir.path()).contains("directory"));
        // Listed, then gone: deleted while the run went on.
        assert!(message(&dir.path().join("gone.yml")).contains("deleted"));
        let small = Limits {
            max_file_size: 3,
            ..Limits::default()
        };
        assert_eq!(
            read_text_seen(&ok, Seen::Listed, &any, &small)
                .unwrap_err()
                .diagnostic
                .code,
            "AML005"
        );
    }

    /// A pipe that has taken a listed file's place is refused at once: opening it does
    /// not wait for a writer (the test fails by timing out if it does).
    #[cfg(unix)]
    #[test]
    fn a_pipe_in_place_of_a_listed_file_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("job.yml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let r = read_text_seen(&fifo, Seen::Listed, &Boundary::anywhere(), &Limits::default());
            let _ = tx.send(r.map_err(|e| e.diagnostic.message));
        });
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("opening the pipe waited for a writer");
        assert!(r.unwrap_err().contains("not a regular file"));
    }
}
