//! A small fast hasher for the parser's internal maps: keys are short names and integers, where
//! SipHash's DoS resistance is not needed and its cost shows.
//!
//! Each 8-byte word is mixed with a folded 64x64->128-bit multiply (the mixing step of wyhash /
//! foldhash). Plain FxHash (`rotate ^ word, * K`) is not used: its state difference after one word
//! sits in the top bits, which the rotation moves onto the next word's low bits, so names such as
//! `x289`/`x202` of the same length collide outright.

use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
const SEED2: u64 = 0x243f_6a88_85a3_08d3;

#[inline]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = (a as u128).wrapping_mul(b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = fold_mul(self.hash ^ w ^ SEED2, SEED);
    }
}

impl Hasher for FxHasher {
    /// Whole words, the tail as one overlapping load (no byte-wise copy into a buffer: that
    /// made a `memcpy` call and a store-forwarding stall on every short name).
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if n <= 8 {
            self.add(short(bytes) ^ ((n as u64) << 58));
            return;
        }
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        if !chunks.remainder().is_empty() {
            let last = &bytes[n - 8..];
            self.add(u64::from_le_bytes(last.try_into().unwrap_or([0; 8])));
        }
        self.add(n as u64);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A word that, together with the length, identifies a byte string of at most 8 bytes, read with
/// overlapping loads.
#[inline]
pub(crate) fn short(s: &[u8]) -> u64 {
    let n = s.len();
    let u32_at = |i: usize| match s.get(i..i + 4) {
        Some(w) => u32::from_le_bytes(w.try_into().unwrap_or([0; 4])) as u64,
        None => 0,
    };
    if n >= 4 {
        u32_at(0) | (u32_at(n - 4) << 32)
    } else if n > 0 {
        s[0] as u64 | (s[n / 2] as u64) << 8 | (s[n - 1] as u64) << 16
    } else {
        0
    }
}

/// The bytes of a string of at most 8 bytes as a little-endian word, zero-padded.
#[inline]
pub(crate) fn exact_word(b: &[u8]) -> u64 {
    let n = b.len();
    let u32_at = |i: usize| match b.get(i..i + 4) {
        Some(w) => u32::from_le_bytes(w.try_into().unwrap_or([0; 4])) as u64,
        None => 0,
    };
    match n {
        0 => 0,
        1 => b[0] as u64,
        2 => b[0] as u64 | (b[1] as u64) << 8,
        3 => b[0] as u64 | (b[1] as u64) << 8 | (b[2] as u64) << 16,
        _ => u32_at(0) | u32_at(n - 4) << (8 * (n - 4)),
    }
}

/// The bytes of a text of at most 16 bytes as two zero-padded little-endian words.
#[inline]
pub(crate) fn text_words(b: &[u8]) -> [u64; 2] {
    let k = b.len().min(8);
    [exact_word(&b[..k]), exact_word(b.get(8..).unwrap_or(&[]))]
}

/// The interner's hash of a text.
#[inline]
pub(crate) fn text_hash(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(text.as_bytes());
    hasher.finish()
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
