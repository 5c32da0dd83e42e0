//! The process's allocator: the system allocator, asking the kernel for transparent huge pages on
//! large blocks and on glibc's heap.
//!
//! Reading a 38 MB module and analysing it touches about 100 MB of fresh memory. On 4 KiB pages that
//! is about 25,000 page faults, and on this project's virtual machines a fault costs several
//! microseconds: measured, 0.13-0.16 s of system time in a 0.6 s run (`div-38mb.ll`, see
//! docs/benchmarks-issue13.md). Linux backs a region marked with `madvise(MADV_HUGEPAGE)` with 2 MiB pages
//! when the transparent-huge-page setting is `madvise` or `always`, so a few megabytes fault a
//! handful of times instead of a thousand times. Two kinds of memory are marked: blocks of at least
//! [`THRESHOLD`] bytes (glibc maps each on its own), and what glibc's main heap grows by (most of
//! the IR is small vectors there; [`configure`] makes it grow in 32 MiB steps and keep them). A huge
//! page is resident as a whole once touched, so a block can waste at most the untouched part of the
//! 2 MiB pages it has begun; measured, peak memory grows by 1-5%. The allocation itself is `std`'s
//! system allocator unchanged, and on systems other than Linux this module is exactly that
//! allocator.

use std::alloc::{GlobalAlloc, Layout, System};

/// The global allocator of the `converge` binary (see the module documentation).
pub struct Allocator;

/// Blocks at least this large are marked for huge pages.
#[cfg(target_os = "linux")]
const THRESHOLD: usize = 2 << 20;
/// The size of a transparent huge page on the targets Linux runs converge on (x86-64, AArch64 with
/// 4 KiB base pages); on another size the advice only covers fewer whole pages, which is harmless.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;
/// The base page size (4 KiB; a larger one only makes the advice cover a little more of the same
/// mapping).
#[cfg(target_os = "linux")]
const SMALL_PAGE: usize = 4 << 10;

/// Marks the whole huge pages inside `[ptr, ptr + len)` for transparent huge pages. Advice only:
/// failure (an old kernel, THP disabled) leaves the block on small pages, as without this module.
#[cfg(target_os = "linux")]
fn advise(ptr: *mut u8, len: usize) {
    if ptr.is_null() || len < THRESHOLD {
        return;
    }
    advise_range(ptr as usize, ptr as usize + len);
}

/// Marks `[from, to)`, widened to whole small pages, for transparent huge pages; the kernel backs
/// with huge pages only the 2 MiB-aligned stretches inside it. The whole block is marked, not only
/// those stretches, so that a block glibc maps on its own stays one mapping (a mapping split in
/// three makes glibc's `mremap` for `realloc` fail, and it falls back to copying).
#[cfg(target_os = "linux")]
fn advise_range(from: usize, to: usize) {
    let start = from & !(SMALL_PAGE - 1);
    let end = to.next_multiple_of(SMALL_PAGE);
    if end - start >= HUGE_PAGE {
        // SAFETY: MADV_HUGEPAGE changes neither the contents nor the validity of any memory, only
        // how the kernel backs pages not yet touched; on a range that is not mapped it fails with
        // ENOMEM and does nothing.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// The end of the main heap (`sbrk(0)`) when last looked at.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
static HEAP_END: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Small blocks come from glibc's main heap, which grows with `brk`: marks what it grew by since
/// the last look.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn follow_heap() {
    use std::sync::atomic::Ordering::Relaxed;
    // SAFETY: `sbrk(0)` changes nothing; glibc answers it from its own record of the break.
    let end = unsafe { libc::sbrk(0) } as usize;
    // A plain load first: the break rarely moves, and a swap on every allocation would be a
    // locked read-modify-write on the allocation path.
    if HEAP_END.load(Relaxed) == end {
        return;
    }
    let seen = HEAP_END.swap(end, Relaxed);
    if seen != 0 && end > seen {
        advise_range(seen, end);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn follow_heap() {}

/// Makes glibc grow its heap in large steps and keep what it grew by, so that the heap grows a few
/// times per run (each time marked for huge pages by [`follow_heap`]) instead of going up and down
/// by small steps.
pub fn configure() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets glibc's allocator parameters; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_ptr: *mut u8, _len: usize) {}

/// What every allocating method does after `System` returned `ptr` (of `len` bytes): the advice
/// for a large block and for the heap's growth; `ptr` is returned unchanged.
#[inline]
fn noted(ptr: *mut u8, len: usize) -> *mut u8 {
    advise(ptr, len);
    follow_heap();
    ptr
}

// SAFETY: every method forwards to `System` with the caller's arguments and returns its result
// unchanged; `advise` only gives the kernel advice about memory inside the returned block.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees about `layout`.
        noted(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        noted(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees about `ptr` and `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees about `ptr`, `layout` and `new_size`.
        noted(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

#[cfg(test)]
mod tests {
    // The unit tests of this binary run with `Allocator` as their global allocator (main.rs), so
    // these go through every method, with blocks above and below the huge-page threshold.

    #[test]
    fn large_blocks_keep_their_contents_through_growth_and_shrinking() {
        let mut v: Vec<u32> = Vec::new();
        for i in 0..(24u32 << 20) / 4 {
            v.push(i.wrapping_mul(2_654_435_761));
        }
        assert!(
            v.iter()
                .enumerate()
                .all(|(i, &x)| x == (i as u32).wrapping_mul(2_654_435_761))
        );
        v.truncate(1000);
        v.shrink_to_fit();
        assert_eq!(v.capacity(), 1000);
        assert!(
            v.iter()
                .enumerate()
                .all(|(i, &x)| x == (i as u32).wrapping_mul(2_654_435_761))
        );
    }

    #[test]
    fn zeroed_blocks_are_zero_and_small_blocks_still_work() {
        let z = vec![0u64; 3 << 20];
        assert!(z.iter().all(|&x| x == 0));
        let many: Vec<Vec<u8>> = (0..20_000)
            .map(|i| vec![(i % 251) as u8; i % 700])
            .collect();
        assert!(
            many.iter()
                .enumerate()
                .all(|(i, b)| b.len() == i % 700 && b.iter().all(|&x| x == (i % 251) as u8))
        );
    }
}
