//! The parse-only floor of BENCHMARKS.md: walk a tree as `amlint check` does (gitignore-aware,
//! YAML, JSON and MLTable files, on every core), reading and parsing each file as it is found
//! with amlint's loader (the same parser, building the same span-keeping tree, every tree
//! kept), and nothing else — no classification,
//! schema, reference or policy check, no output. `amlint check` cannot be faster than this.
//!
//!     cargo build --release --example parse_floor
//!     target/release/examples/parse_floor DIR...
// A maintainer tool reading the repository's own files, not a path a checked file names.
#![allow(clippy::disallowed_methods)]

/// The allocator `amlint` itself uses, so the floor measures the same work.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let roots: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    if roots.is_empty() {
        eprintln!("usage: parse_floor DIR...");
        std::process::exit(2);
    }
    // amlint's own walk (parallel, each file loaded on the thread that finds it).
    let limits = amlint::limits::Limits::default();
    let anywhere = amlint::fsio::Boundary::anywhere();
    let loaded: Vec<_> = amlint::discover::discover_each(
        &roots,
        std::sync::Arc::new(amlint::discover::Unfiltered),
        &anywhere,
        |c| amlint::load::load_path(&c.path, &c.display, c.seen, &anywhere, &limits),
    )
    .files
    .into_iter()
    .map(|(_, l)| l)
    .collect();
    let nodes: usize = loaded
        .iter()
        .map(|l| l.documents.len() + l.diagnostics.len())
        .sum();
    let tree: usize = loaded
        .iter()
        .flat_map(|l| &l.documents)
        .map(|d| d.nodes.len())
        .sum();
    println!(
        "{} files, {nodes} documents and load diagnostics, {tree} nodes",
        loaded.len()
    );
}
