//! The bounds on what input can make amlint do (docs/security.md): the bottom layer, read
//! by the loader, the parsers and the filter alike. Memory-tuning knobs of large runs are
//! not safety limits; they are the pipeline's `LargeRun`.

/// Bounds on what input can make amlint do.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest file read, in bytes.
    pub max_file_size: u64,
    /// Deepest nesting of collections.
    pub max_depth: usize,
    /// Most nodes a document may have once every alias is expanded.
    pub max_alias_nodes: u64,
    /// Most bytes of keys and strings a document may hold once every alias and merge key
    /// is expanded: what its JSON view, the schema validators and an `amlint test`
    /// example's files are made of. A file larger than this may still hold as much
    /// without aliases (a document's values are never longer than its text), so the
    /// bound applied is the larger of this and the file's size.
    pub max_alias_bytes: u64,
    /// Most YAML documents (`---`) in one file: each is a tree of its own, however small.
    pub max_documents: usize,
    /// Most nodes the documents of one file may have together, as written (keys, values
    /// and items; an alias counts once): bounds the memory of a file's trees whatever its
    /// shape (a list of single characters is a node every two bytes).
    pub max_nodes: u64,
    /// Most findings reported for one file; beyond it one AML005 says how many more there
    /// are (output stays proportional to the findings shown, whatever the input).
    pub max_findings_per_file: usize,
}

impl Limits {
    /// Most findings kept per file while it is checked: ten times those reported, so that
    /// the configuration and suppressions, which apply later, still leave enough to report.
    pub fn findings_kept(&self) -> usize {
        self.max_findings_per_file.saturating_mul(10)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_size: 8 * 1024 * 1024,
            max_depth: 128,
            max_alias_nodes: 250_000,
            // 8 MiB, the default file size limit: the largest expansion among the corpora's
            // files with anchors is 29 KB (1.01 times the file).
            max_alias_bytes: 8 * 1024 * 1024,
            max_nodes: 250_000,
            max_documents: 10_000,
            max_findings_per_file: 1_000,
        }
    }
}
