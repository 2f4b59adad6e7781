/// mimalloc: the loader and the schema store allocate many small nodes from two threads;
/// glibc's per-thread arenas grow by `mprotect` calls that cost a one-file run more time
/// than its checks (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's options (`mi_option_t` of mimalloc v3, which `libmimalloc-sys` builds).
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}
const MI_OPTION_ARENA_EAGER_COMMIT: std::ffi::c_int = 4;
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

fn main() {
    // Commit arena memory as it is used and return freed pages at once: a run of 10,000
    // files peaks about 25 MB lower, at no measurable cost in time (BENCHMARKS.md).
    // SAFETY: sets two integer options; mimalloc reads them on its next arena operation.
    unsafe {
        mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
    std::process::exit(amlint::cli::main());
}
