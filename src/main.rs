/// mimalloc: the loader and the schema store allocate many small nodes from two threads;
/// glibc's per-thread arenas grow by `mprotect` calls that cost a one-file run more time
/// than its checks (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(amlint::cli::main());
}
