//! The memory policy of a large run: when a run is large, what it does then (the
//! binary's hook), which kinds wait for the project index, and the text a clean report
//! drops.

use std::collections::HashSet;

use crate::results::FileReport;

/// The memory policy of a large run (a performance knob, not a safety limit): from the
/// `files`th file loaded on, a file whose checks look nothing up in the project index is
/// checked at once and its tree dropped; the files that wait for the index keep their trees
/// up to `waiting_trees_bytes` of source text (trees take 3–4 times as much memory) and
/// are parsed again beyond it.
#[derive(Clone, Debug)]
pub struct LargeRun {
    /// From how many loaded files on a run is large.
    pub files: usize,
    /// How much source text the files waiting for the project index keep parsed, in bytes.
    pub waiting_trees_bytes: usize,
}

impl Default for LargeRun {
    fn default() -> Self {
        Self {
            files: 2_000,
            waiting_trees_bytes: 1 << 20,
        }
    }
}

impl LargeRun {
    /// The `n`th file is loaded (counting from 1): whether it belongs to a large run. The
    /// file that makes the run large calls the hook of [`on_large_run`].
    pub(super) fn loaded(&self, n: usize) -> bool {
        if n == self.files
            && let Some(hook) = HOOK.get()
        {
            hook();
        }
        self.is_large(n)
    }

    /// Whether the `n`th file loaded (counting from 1) belongs to a large run.
    pub fn is_large(&self, n: usize) -> bool {
        n >= self.files
    }

    /// Whether a waiting file of `size` bytes keeps its tree when `kept` bytes of waiting
    /// files already keep theirs.
    pub fn keeps_tree(&self, kept: usize, size: usize) -> bool {
        kept.saturating_add(size) <= self.waiting_trees_bytes
    }
}

/// Kinds whose files looked something up in the project index when checked early: later
/// files of these kinds wait for the index without being tried (their early check would
/// be thrown away). Learned during the run, so no list of kinds needs maintaining.
#[derive(Default)]
pub(super) struct NeedIndex(std::sync::RwLock<HashSet<Option<&'static str>>>);

impl NeedIndex {
    pub(super) fn any(&self, kinds: &[Option<&'static str>]) -> bool {
        let known = self.0.read().unwrap_or_else(|e| e.into_inner());
        kinds.iter().any(|k| known.contains(k))
    }

    pub(super) fn add(&self, kinds: &[Option<&'static str>]) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .extend(kinds.iter().copied());
    }
}

static HOOK: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Registers what to do once a run turns out large (`LargeRun::files` files
/// loaded): the binary tells its allocator to return freed memory sooner. Set once per
/// process.
pub fn on_large_run(hook: fn()) {
    let _ = HOOK.set(hook);
}

/// A report with nothing to show needs no text: outputs quote a file's text only around
/// its findings, and place the computes it defines and names (`amlint inventory`,
/// `--show-files`) by the positions kept. A large run drops it, to keep its memory to the
/// files with findings (other runs keep it: `check_text` returns the text it checked).
pub(super) fn without_text_if_clean(mut report: FileReport) -> FileReport {
    if report.diagnostics.is_empty() && report.suppressed.is_empty() {
        let computes = &report.computes;
        let at = computes.definitions.iter().map(|d| d.span.start);
        let at = at.chain(computes.references.iter().map(|r| r.span.start));
        report.source = report.source.without_text(at);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_run_starts_at_its_file_count_and_keeps_trees_within_its_budget() {
        let policy = LargeRun {
            files: 3,
            waiting_trees_bytes: 100,
        };
        assert!(!policy.is_large(2) && policy.is_large(3) && policy.is_large(4));
        assert!(policy.keeps_tree(0, 100) && policy.keeps_tree(60, 40));
        assert!(!policy.keeps_tree(60, 41) && !policy.keeps_tree(usize::MAX, 1));
        let shed_all = LargeRun {
            files: 1,
            waiting_trees_bytes: 0,
        };
        assert!(shed_all.is_large(1) && !shed_all.keeps_tree(0, 1) && shed_all.keeps_tree(0, 0));
        let default = LargeRun::default();
        assert_eq!((default.files, default.waiting_trees_bytes), (2_000, 1 << 20));
    }
}
