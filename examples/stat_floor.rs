//! The floor of a one-file run with a warm project cache (BENCHMARKS.md, issue 38 row 4):
//! every cached fact is used only after one `lstat` of the directory or file it describes
//! shows it unchanged (docs/cache.md), so such a run makes at least one `lstat` per entry
//! of the project. This makes exactly those, on every core, and nothing else: no cache to
//! read, no filter, no check, no output but the count. `amlint check FILE` in the same tree
//! cannot be faster than this.
//!
//!     cargo build --release --example stat_floor
//!     target/release/examples/stat_floor DIR
// A maintainer tool listing a tree it is given, not a path a checked file names.
#![allow(clippy::disallowed_methods)]

fn main() {
    let Some(root) = std::env::args().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: stat_floor DIR");
        std::process::exit(2);
    };
    // The entries, listed first (a warm cache holds the listings): every directory and
    // file below `root`, without `.git`, which amlint does not walk.
    let mut entries = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        let Ok(listing) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in listing.flatten() {
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(entry.path());
            }
            entries.push(entry.path());
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let started = std::time::Instant::now();
    let chunk = entries.len().div_ceil(threads).max(1);
    let looked: usize = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter(|p| std::fs::symlink_metadata(p).is_ok())
                        .count()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    });
    println!(
        "{looked} entries looked at on {threads} threads in {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
}
