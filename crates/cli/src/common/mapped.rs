//! Large input files are mapped into memory rather than read into a heap buffer.
//!
//! Reading a 38 MB module with `read(2)` copies it into a fresh buffer whose every page faults on
//! first touch; on the virtual machines converge is benchmarked on that took 40-100 ms, a tenth of
//! a whole `uniformity` run (issue 13). A private read-only mapping of the page cache, populated up
//! front, costs a few milliseconds. Small files (under [`MAP_MIN`]) and standard input are still
//! read: there the copy is cheap and a mapping's setup is not.
//!
//! The text must not change while converge runs: a file rewritten in place under a mapping changes
//! the bytes the reader sees (as it does for other tools that map their input, e.g. ripgrep), and
//! one truncated under it makes touching the lost pages fault. Compilers' output files are written
//! whole and renamed, or written before the tool that reads them starts.

use std::fs::File;
use std::ptr::NonNull;
use std::sync::Arc;

/// Files of at least this many bytes are mapped.
pub const MAP_MIN: u64 = 1 << 20;

/// A read-only private mapping of a whole file whose bytes were checked to be UTF-8.
pub struct MappedText {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only (`PROT_READ`) and never written through; its bytes are plain
// data, so sharing `&MappedText` or moving it between threads is as safe as for a `Box<str>`.
unsafe impl Send for MappedText {}
// SAFETY: as for `Send`.
unsafe impl Sync for MappedText {}

/// A mapped file that is not UTF-8: `valid_up_to` bytes are, and `lossy` is the text with the bad
/// bytes replaced, for the diagnostic's line and column.
pub struct NotUtf8 {
    pub valid_up_to: usize,
    pub lossy: String,
}

impl MappedText {
    /// Maps `len` bytes of `file` (its length, `len >= 1`) and checks they are UTF-8; `Ok(None)`
    /// if the system would not map it (the caller reads the file instead).
    pub fn map(file: &File, len: usize) -> Result<Option<Arc<MappedText>>, NotUtf8> {
        use std::os::fd::AsRawFd;
        #[cfg(target_os = "linux")]
        let flags = libc::MAP_PRIVATE | libc::MAP_POPULATE;
        #[cfg(not(target_os = "linux"))]
        let flags = libc::MAP_PRIVATE;
        // SAFETY: a fresh mapping at an address of the kernel's choosing aliases no Rust object;
        // `file` is open for reading and `len` is its length, so every mapped page is backed.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                flags,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Ok(None);
        }
        let Some(ptr) = NonNull::new(p.cast::<u8>()) else {
            return Ok(None);
        };
        let m = MappedText { ptr, len };
        // ASCII text (what compilers and generators print) is UTF-8: the wide test decides it in
        // a third of `from_utf8`'s instructions; any other text gets the full check.
        if !is_ascii_wide(m.bytes())
            && let Err(e) = std::str::from_utf8(m.bytes())
        {
            return Err(NotUtf8 {
                valid_up_to: e.valid_up_to(),
                lossy: String::from_utf8_lossy(m.bytes()).into_owned(),
            });
        }
        Ok(Some(Arc::new(m)))
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is the start of a live mapping of `len` readable bytes (unmapped only in
        // `drop`), nothing writes to it (see the module documentation), and the returned slice
        // borrows `self`, so it cannot outlive the mapping.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

/// Whether every byte of `b` is ASCII (below 0x80), as `<[u8]>::is_ascii`, in fewer instructions
/// on a large text: 256 bytes are ORed together in sixteen 16-byte lanes (the compiler keeps them
/// in vector registers) and the lanes' top bits tested once per block, where `from_utf8` tests
/// each 16 bytes (issue 13: the check is a pass of its own over the whole mapped file, before the
/// reader starts).
fn is_ascii_wide(b: &[u8]) -> bool {
    const HIGH: u128 = u128::from_ne_bytes([0x80; 16]);
    let mut blocks = b.chunks_exact(256);
    for block in &mut blocks {
        let mut acc = [0u8; 16];
        for lane in block.chunks_exact(16) {
            for (a, x) in acc.iter_mut().zip(lane) {
                *a |= *x;
            }
        }
        if u128::from_ne_bytes(acc) & HIGH != 0 {
            return false;
        }
    }
    blocks.remainder().is_ascii()
}

impl AsRef<str> for MappedText {
    fn as_ref(&self) -> &str {
        // SAFETY: `map` returned this value only after its bytes were found ASCII (which is
        // UTF-8) or `from_utf8` accepted them, and the mapping is read-only.
        unsafe { std::str::from_utf8_unchecked(self.bytes()) }
    }
}

impl Drop for MappedText {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what `mmap` returned and were given; no borrow of the
        // bytes outlives `self`.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(name: &str, bytes: &[u8]) -> (std::path::PathBuf, File) {
        let path =
            std::env::temp_dir().join(format!("converge-mapped-{}-{name}", std::process::id()));
        File::create(&path).unwrap().write_all(bytes).unwrap();
        let f = File::open(&path).unwrap();
        (path, f)
    }

    #[test]
    fn maps_the_file_text() {
        let text = "define void @f() {\n  ret void\n}\n".repeat(100);
        let (path, f) = temp("ok", text.as_bytes());
        let Ok(Some(m)) = MappedText::map(&f, text.len()) else {
            panic!("mapping failed")
        };
        assert_eq!((*m).as_ref(), text);
        let shared = m.clone();
        drop(m);
        assert_eq!((*shared).as_ref().len(), text.len());
        std::fs::remove_file(path).unwrap();
    }

    /// The wide test answers as `is_ascii` on every length around its 256-byte blocks, with one
    /// byte at or above 0x80 at every position, and on valid UTF-8 that is not ASCII.
    #[test]
    fn wide_ascii_test_is_is_ascii() {
        let text: Vec<u8> = (0..1100u32).map(|i| b' ' + (i % 95) as u8).collect();
        for len in (0..600).chain([1023, 1024, 1025, 1100]) {
            let b = &text[..len];
            assert!(is_ascii_wide(b), "len {len}");
            for pos in 0..len {
                for bad in [0x80u8, 0xc3, 0xff] {
                    let mut m = b.to_vec();
                    m[pos] = bad;
                    assert_eq!(
                        is_ascii_wide(&m),
                        m.is_ascii(),
                        "len {len}, {bad:#x} at {pos}"
                    );
                }
            }
        }
        let mut u = text.clone();
        u.splice(700..700, "é".bytes());
        assert!(!is_ascii_wide(&u) && std::str::from_utf8(&u).is_ok());
    }

    /// A large file that is UTF-8 but not ASCII is mapped (the full check accepts it), and one
    /// whose bad byte lies past the first wide blocks says where.
    #[test]
    fn utf8_past_the_wide_test() {
        let mut text = "define void @f() {\n  ret void\n}\n".repeat(200);
        text.push_str("; é\n");
        let (path, f) = temp("utf8", text.as_bytes());
        let Ok(Some(m)) = MappedText::map(&f, text.len()) else {
            panic!("UTF-8 text was rejected")
        };
        assert_eq!((*m).as_ref(), text);
        std::fs::remove_file(path).unwrap();
        let mut bytes = text.into_bytes();
        bytes.extend_from_slice(&[b';', 0xe9, b'\n']);
        let (path, f) = temp("bad2", &bytes);
        match MappedText::map(&f, bytes.len()) {
            Err(NotUtf8 { valid_up_to, .. }) => assert_eq!(valid_up_to, bytes.len() - 2),
            _ => panic!("invalid UTF-8 was accepted"),
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn bad_utf8_says_where() {
        let mut bytes = b"define void @f() {\n  ret void\n}\n; ".to_vec();
        bytes.push(0xff);
        let (path, f) = temp("bad", &bytes);
        match MappedText::map(&f, bytes.len()) {
            Err(NotUtf8 { valid_up_to, lossy }) => {
                assert_eq!(valid_up_to, bytes.len() - 1);
                assert!(lossy.ends_with("; \u{fffd}"));
            }
            _ => panic!("invalid UTF-8 was accepted"),
        }
        std::fs::remove_file(path).unwrap();
    }
}
