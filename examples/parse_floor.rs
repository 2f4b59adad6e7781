//! The parse-only floor of BENCHMARKS.md: walk a tree as `amlint check` does (gitignore-aware,
//! YAML and JSON files), then read and parse every file in parallel with amlint's loader (the
//! same parser, building the same span-keeping tree), and nothing else — no classification,
//! schema, reference or policy check, no output. `amlint check` cannot be faster than this.
//!
//!     cargo build --release --example parse_floor
//!     target/release/examples/parse_floor DIR...

use rayon::prelude::*;

/// The allocator `amlint` itself uses, so the floor measures the same work.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let roots: Vec<String> = std::env::args().skip(1).collect();
    if roots.is_empty() {
        eprintln!("usage: parse_floor DIR...");
        std::process::exit(2);
    }
    let mut walk = ignore::WalkBuilder::new(&roots[0]);
    for root in &roots[1..] {
        walk.add(root);
    }
    let files: Vec<std::path::PathBuf> = walk
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(ignore::DirEntry::into_path)
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "yml" || e == "yaml" || e == "json")
        })
        .collect();
    let limits = amlint::load::Limits::default();
    let loaded: Vec<_> = files
        .par_iter()
        .map(|p| amlint::load::load_path(p, &p.to_string_lossy(), &limits))
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
        files.len()
    );
}
