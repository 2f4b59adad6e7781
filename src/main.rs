/// mimalloc: many small allocations (trees, strings) freed together per file; it measured
/// faster than the system allocator on every benchmark of BENCHMARKS.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (the crate names no constant for
/// it; the test below proves the number by its documented default).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps freed memory before returning it to the OS, in milliseconds:
/// 50 from the start, 1 once a run turns out large (`amlint::pipeline::on_large_run`).
/// A run of thousands of files frees as much as it allocates (each file's tree is
/// dropped once checked), and the default delay (1 s) kept ~25 MB of freed pages
/// resident (10,000 files peaked at 112–124 MB). A short delay from the start costs a
/// small run time (1 ms: the corpus 12 % slower); 50 ms costs nothing there (the run is
/// over before a purge is due). A purge is scheduled with the delay in force when memory
/// is freed, so the delay must be short before the large run frees much.
const PURGE_DELAY_MS: std::ffi::c_long = 50;
const LARGE_RUN_PURGE_DELAY_MS: std::ffi::c_long = 1;
/// mimalloc: "use -1 for no purging at all".
const NO_PURGE: std::ffi::c_long = -1;

fn set_purge_delay(ms: std::ffi::c_long) {
    // SAFETY: sets a process-wide allocator option (an atomic store in mimalloc).
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms) };
}

/// `mi_option_allow_thp` in mimalloc v3's `mi_option_e` (default 1: transparent huge pages
/// where the kernel offers them on `madvise`, as Debian's does).
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 43;

/// No transparent huge pages: a purge that frees part of a 2 MiB huge page leaves all of it
/// resident, and 10,000 files peaked at 116–121 MB with them, 91–92 MB without, in the same
/// time (the corpus: 62.6 vs 63.3 ms and one file of the 10,000: 303 vs 308 ms, within
/// noise). The cost: more page faults, `../shared/realworld` (1,240 files) 119 → 131 ms.
/// Turning them off only once a run turns out large (`on_large_run`, 2,000 files) kept
/// 111 MB: the pages mapped before stay huge. mimalloc reads the option when it sets up
/// its memory, before `main` (the runtime's first allocation), so a constructor sets it
/// first: `.init_array.00101` runs before the default-priority constructors of C and
/// Rust.
extern "C" fn no_huge_pages() {
    // SAFETY: sets a process-wide allocator option (a store in mimalloc's option table),
    // before any thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0) };
}

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array.00101")]
static NO_HUGE_PAGES: extern "C" fn() = no_huge_pages;

fn main() {
    set_purge_delay(PURGE_DELAY_MS);
    amlint::pipeline::on_large_run(|| set_purge_delay(LARGE_RUN_PURGE_DELAY_MS));
    let code = amlint::cli::main();
    // At exit mimalloc collects every heap and returns the freed pages to the OS, one
    // `madvise` per run of pages (about 50 on the corpus, each splitting a huge page),
    // just before the kernel frees the whole address space anyway. A negative delay
    // turns purging off.
    set_purge_delay(NO_PURGE);
    std::process::exit(code);
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    /// The constructor ran before mimalloc set up its memory: no huge pages (mimalloc's
    /// default, 1, would read back here without it), and the kernel was told so.
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_are_off_from_the_start() {
        // SAFETY: reads a process-wide allocator option.
        let v = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_ALLOW_THP) };
        assert_eq!(v, 0, "allow_thp");
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        if status.contains("THP_enabled:") {
            assert!(status.contains("THP_enabled:\t0"), "{status}");
        }
    }

    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        // SAFETY: reads and sets process-wide allocator options.
        unsafe {
            assert_eq!(
                libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY),
                1000,
                "mimalloc v3's default purge delay: the option number is purge_delay"
            );
            super::set_purge_delay(super::PURGE_DELAY_MS);
            assert_eq!(
                libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY),
                super::PURGE_DELAY_MS
            );
            // The option is signed: the setting made before exit is kept as it is.
            super::set_purge_delay(super::NO_PURGE);
            assert_eq!(libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY), -1);
        }
    }
}
