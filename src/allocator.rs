//! The global allocator of the `amlint` binary (and of the parse-floor benchmark, so that
//! the floor measures the same work): mimalloc. The loader and the schema store allocate
//! many small nodes from several threads; glibc's per-thread arenas grow by `mprotect`
//! calls that cost a one-file run more time than its checks (see BENCHMARKS.md).

/// mimalloc, through its plain entry points wherever they give the alignment asked for.
/// The `mimalloc` crate's allocator calls the aligned ones for every allocation, and
/// their checks cost about 36 instructions a call (13 M of the corpus run's 265 M, in
/// 360,000 allocations).
pub struct Mimalloc;

/// Whether mimalloc's plain entry points give `layout`'s alignment: every mimalloc block
/// is aligned to a word at least (block sizes are multiples of one, and free blocks hold
/// a pointer).
#[inline]
fn plain(layout: std::alloc::Layout) -> bool {
    layout.align() <= std::mem::size_of::<usize>()
}

// SAFETY: each call goes to the mimalloc function of the same contract: the plain one
// when `plain(layout)`, the aligned one otherwise.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys as mi;
        // SAFETY: as above.
        unsafe {
            if plain(layout) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys as mi;
        // SAFETY: as above.
        unsafe {
            if plain(layout) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys as mi;
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe {
            if plain(layout) {
                mi::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    /// Every size up to a few pages at every alignment from a byte to a page: the block is
    /// aligned, zeroed when asked, and keeps its bytes through a `realloc` that grows it
    /// (possibly to a new place) and one that shrinks it.
    #[test]
    fn the_allocator_aligns_zeroes_and_keeps_bytes() {
        let a = super::Mimalloc;
        let sizes = (1..=96).chain([127, 128, 129, 1000, 4096, 5000, 70_000, 600_000]);
        for size in sizes {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; each block is freed with its layout.
                unsafe {
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0, "zeroed {size} at {align}");
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    a.dealloc(z, layout);

                    let p = a.alloc(layout);
                    assert_eq!(p as usize % align, 0, "{size} at {align}");
                    for i in 0..size {
                        *p.add(i) = i as u8;
                    }
                    let grown = a.realloc(p, layout, size * 3 + 7);
                    assert_eq!(grown as usize % align, 0, "grown {size} at {align}");
                    assert!((0..size).all(|i| *grown.add(i) == i as u8));
                    let bigger = Layout::from_size_align(size * 3 + 7, align).unwrap();
                    let shrunk = a.realloc(grown, bigger, size.div_ceil(2));
                    assert_eq!(shrunk as usize % align, 0, "shrunk {size} at {align}");
                    assert!((0..size.div_ceil(2)).all(|i| *shrunk.add(i) == i as u8));
                    a.dealloc(shrunk, Layout::from_size_align(size.div_ceil(2), align).unwrap());
                }
            }
        }
    }
}
