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
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf));
        }
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

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
