//! Readers of compute definitions: each turns the files it knows into [`ComputeDef`]s
//! with exact spans. A reader is a [`Reader`] registered in [`READERS`]: the file names it
//! wants, the bytes a file must contain for it to look further (a file that mentions no
//! compute is skipped by a byte search before anything is parsed), and its `read`
//! function. Reading never executes anything, and every other file a reader consults goes
//! through [`Files`] (fsio, inside the project, under the size limit).
//!
//! A file name a reader wants must also be walked: Azure ML's `.yml`/`.yaml`/`.json` are,
//! other names are listed in `load::DEFINITION_SOURCES` (read as `load::Format::Text`,
//! which no YAML or JSON parser touches: the reader parses what it needs).

pub mod aml_yaml;
pub mod arm;
pub mod az_cli;
pub mod bicep;
pub mod callers;
mod common;
mod cwd;
pub mod deploy;
pub mod docs;
pub mod iac;
pub mod ipynb;
pub mod jenkins;
pub mod notebook;
mod ps_call;
pub mod py_strings;
pub mod python_sdk;
pub mod r_sdk;
pub mod scripts;
pub mod shell;
pub mod terraform;
pub mod workflows;

pub use common::{Comment, Definitions, Files, Input, Reader, Unsaved, file_name, line_of, mentions};

/// Whether `other` may define a compute with a value of `file` (both displayed paths): a
/// Terraform module's `.tf` files use its `variables.tf` and `.tfvars`, a Bicep file its
/// `.bicepparam`, an ARM template its parameters files — all in one directory.
pub fn companion_of(file: &str, other: &str) -> bool {
    iac::companion_of(file, other)
}

pub use iac::{GivesTo, split_dir};

/// Every reader, in the order they run on a file.
pub const READERS: &[Reader] = &[
    aml_yaml::READER,
    arm::READER,
    bicep::READER,
    terraform::READER,
    python_sdk::READER,
    py_strings::READER,
    r_sdk::READER,
    scripts::READER,
    notebook::READER,
    workflows::READER,
    docs::READER,
    jenkins::READER,
];

/// Each reader's [`Reader::needles`] and [`Reader::defines`] (same order as [`READERS`]),
/// each compiled once into one automaton that finds any of them in one pass over a file.
/// A byte search per word cost twice as much on the corpus, where every YAML file is
/// searched for the workflows reader's sixteen words (BENCHMARKS.md, "The byte
/// pre-filter").
static WORDS: std::sync::LazyLock<Vec<[Words; 2]>> = std::sync::LazyLock::new(|| {
    READERS
        .iter()
        .map(|r| [Words::new(r.needles), Words::new(r.defines)])
        .collect()
});

/// Words to find in a file: none (every file has them), or an automaton of them.
struct Words(Option<aho_corasick::AhoCorasick>);

impl Words {
    fn new(words: &[&str]) -> Self {
        // The words are the readers' constants: the automaton is always built (a few
        // dozen short words); were it not, `mentions` searches word by word.
        // Leftmost-first, so that the search uses the vectorised Teddy searcher (with the
        // standard kind of match it has only a prefilter of rare bytes, which YAML's
        // common bytes defeat).
        // The automaton behind it is the cheapest to build (a DFA cost more to build, 6.7 M
        // instructions, than every search of the corpus); Teddy rarely hands it a file.
        let automaton = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
            .build(words);
        Words((!words.is_empty()).then(|| automaton.ok()).flatten())
    }

    /// Whether `text` holds one of `words` (the words this was built from).
    fn in_text(&self, words: &[&str], text: &[u8]) -> bool {
        match &self.0 {
            Some(automaton) => automaton.is_match(text),
            None => mentions(text, words),
        }
    }
}

/// Whether a reader that looks for its words (not the Azure ML YAML reader, which reads
/// every compute document by its kind) reads the file `display` of text `text`: what
/// [`read`] would hand to such a reader.
pub fn searched_by_words(display: &str, text: &[u8]) -> bool {
    let name = file_name(display);
    (0..READERS.len()).any(|i| !READERS[i].needles.is_empty() && reads(i, &name, text))
}

/// Whether a reader that looks for its words would read the file `display` at `path`,
/// which is too large to be read as text: one that wants its name finds its words in the
/// file's first bytes ([`Files::scan`]). Such a file is reported, not skipped: the
/// computes it may define would be lost without a word (audit 23, case 03).
pub fn searched_on_disk(display: &str, path: &std::path::Path, files: &Files) -> bool {
    let name = file_name(display);
    READERS
        .iter()
        .any(|r| !r.defines.is_empty() && (r.wants)(&name) && files.scan(path, r.defines))
}

/// Whether a reader that wants the file `display` finds in `text` the words of a file
/// that defines a compute itself ([`Reader::defines`]).
pub fn defined_by_words(display: &str, text: &[u8]) -> bool {
    let name = file_name(display);
    (0..READERS.len())
        .any(|i| !READERS[i].defines.is_empty() && (READERS[i].wants)(&name) && defines(i, text))
}

/// Whether the reader `READERS[i]` reads a file named `name` (lower case) of text `text`:
/// it wants the name, and the text holds one of its words.
fn reads(i: usize, name: &str, text: &[u8]) -> bool {
    (READERS[i].wants)(name) && WORDS[i][0].in_text(READERS[i].needles, text)
}

/// Whether `text` holds one of the words of a file that defines a compute for the reader
/// `READERS[i]` ([`Reader::defines`]).
fn defines(i: usize, text: &[u8]) -> bool {
    WORDS[i][1].in_text(READERS[i].defines, text)
}

/// The compute definitions a file holds, read by every reader that wants it, and the
/// comments suppressions may be written in.
pub fn read(input: &Input<'_>) -> Definitions {
    let name = input.file_name();
    let mut found = Definitions::default();
    let text = input.source.text.as_bytes();
    for (i, reader) in READERS.iter().enumerate() {
        if reads(i, &name, text) {
            let before = found.unread.is_some();
            (reader.read)(input, &mut found);
            // A file beyond the reader's limits is reported only when it may define a
            // compute itself (not for a `module` or an `import` alone).
            if !before && found.unread.is_some() && !found.unread_defines && !defines(i, text) {
                found.unread = None;
            }
        }
    }
    found.computes.iter_mut().for_each(common::unknown_if_no_name);
    common::cover_written_before(input.source, &found.computes, &mut found.comments);
    found
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Every reader, on text made of its own words, quotes, brackets, prompts and
        /// characters of several bytes at any offset, never panics (audit 8, defect 1: a
        /// byte slice across `ú` in the docs reader's prompt check lost a whole file).
        #[test]
        fn no_reader_panics_on_any_text(pieces in proptest::collection::vec(proptest::sample::select(VOCABULARY), 0..80)) {
            let text: String = pieces.concat();
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
            for name in READ_AS {
                let _ = super::iac::read_for_test(|input, out| *out = read(input), dir.path(), name, &text);
            }
        }
    }

    /// The project cache keeps, for a file that no definition reader looks into, only
    /// where it may define a name (`cache::FileSummary::defines`): which files those are
    /// follows from the readers' words. A cache written by a build with other words must
    /// not be read (a workflow mentioning `.sh` was skipped by a one-file run after the
    /// scripts it runs became definitions): changing them means raising
    /// `cache::FORMAT`, and the digest here with it.
    #[test]
    fn the_cache_format_changes_with_the_readers_words() {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for r in READERS {
            for w in std::iter::once(r.name)
                .chain(r.needles.iter().copied())
                .chain(r.defines.iter().copied())
            {
                for b in w.bytes().chain([0]) {
                    h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
        assert_eq!(
            (crate::cache::FORMAT, h),
            (7, 0x2177_baa4_2623_dc70),
            "the readers' words changed: raise cache::FORMAT and record the new digest"
        );
    }

    /// What the generated texts are made of.
    const VOCABULARY: &[&str] = &[
        "az ml compute create",
        "az ml compute attach ",
        "--name ",
        "-n ",
        "--size ",
        "--type ",
        "Standard_NC6 ",
        "amlcompute ",
        "AmlCompute(",
        "create_aml_compute(",
        "```{r}\n",
        "AmlCompute.provisioning_configuration(",
        "ComputeTarget.create(ws, ",
        "vm_size=",
        "name=",
        "size=",
        "\"",
        "'",
        "`",
        "```bash\n",
        "```\n",
        "$ ",
        "PS C:\\x> ",
        "C:\\é> ",
        "\\\n",
        "\n",
        " ",
        "=",
        "${",
        "}",
        "{",
        "[",
        "]",
        "(",
        ")",
        ",",
        ":",
        "é",
        "Clúster",
        "cómputo",
        "日本語",
        "🙂",
        "\u{feff}",
        "\t",
        "#",
        "<!-- amlint: ignore[AML702] -->",
        "resource \"azurerm_machine_learning_compute_cluster\" \"c\" ",
        "vm_size = ",
        "var.",
        "param ",
        "Microsoft.MachineLearningServices/workspaces/computes",
        "\"type\": ",
        "\"vmSize\": ",
        "[parameters('",
        "format('{0}",
        "sh '",
        "def x = ",
        "environment {",
        "run: ",
        "script: ",
        "- template: ",
        ".. code-block:: bash\n",
        "::",
        "%%bash\n",
        "!",
        "export X=",
        "set X=",
        "$env:",
        "$(",
        "`",
        "steps:\n",
        "  - run: ",
        "echo \"N=v\" >> $GITHUB_ENV",
        " >> \"$GITHUB_OUTPUT\"",
        "${{ env.N }}",
        "${{ steps.s.outputs.N }}",
        "bash create.sh ",
        "./scripts/create.sh ",
        "$1",
    ];

    /// The file names the generated texts are read as: one for each reader.
    const READ_AS: &[&str] = &[
        "README.md",
        "guide.rst",
        "notes.txt",
        "setup.sh",
        "setup.ps1",
        "train.R",
        "vignette.Rmd",
        "Makefile",
        "train.py",
        "main.tf",
        "main.bicep",
        "azuredeploy.json",
        "Jenkinsfile",
        ".github/workflows/ci.yml",
        "azure-pipelines.yml",
    ];

    /// The compiled words find what the word-by-word search finds: in each word alone, in
    /// a word cut short by one byte (found by neither, unless a shorter word is in it), in
    /// words run together, and in text that holds none.
    #[test]
    fn compiled_words_agree_with_the_byte_search() {
        for (i, reader) in READERS.iter().enumerate() {
            for (words, compiled) in [(reader.needles, &WORDS[i][0]), (reader.defines, &WORDS[i][1])] {
                assert_eq!(compiled.0.is_some(), !words.is_empty(), "{}", reader.name);
                let mut texts: Vec<Vec<u8>> = vec![b"".to_vec(), b"az ml job create -f j.yml\n".to_vec()];
                for word in words {
                    texts.push(format!("x {word} y").into_bytes());
                    texts.push(word.as_bytes()[..word.len() - 1].to_vec());
                }
                texts.push(words.concat().into_bytes());
                for text in &texts {
                    assert_eq!(
                        compiled.in_text(words, text),
                        mentions(text, words),
                        "{}: {:?}",
                        reader.name,
                        String::from_utf8_lossy(text)
                    );
                }
                if !words.is_empty() {
                    assert!(compiled.in_text(words, format!("x {} y", words[0]).as_bytes()));
                    assert!(!compiled.in_text(words, b"az ml job create -f j.yml"));
                }
            }
        }
    }

    #[test]
    fn needles_are_searched_as_bytes() {
        assert!(mentions(b"x az ml compute create y", &["compute create"]));
        assert!(!mentions(
            b"az ml job create",
            &["compute create", "computetarget"]
        ));
        assert!(mentions(b"anything", &[]));
        assert_eq!(file_name("a/b/Setup.SH"), "setup.sh");
        assert_eq!(file_name("Makefile"), "makefile");
    }

    #[test]
    fn other_files_are_read_inside_the_project_only() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("p");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(inner.join("c.yml"), "name: x\n").unwrap();
        std::fs::write(dir.path().join("out.yml"), "name: y\n").unwrap();
        let files = Files::new(
            crate::fsio::Boundary::at(&inner),
            &crate::limits::Limits::default(),
        );
        assert_eq!(
            files.read(&inner.join("c.yml"), "c.yml").unwrap().text,
            "name: x\n"
        );
        assert!(files.read(&inner.join("../out.yml"), "out.yml").is_none());
        assert!(files.read(&inner.join("none.yml"), "none.yml").is_none());
    }
}
