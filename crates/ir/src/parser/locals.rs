//! The map from a function's local names to what they define, cleared for every function body.
//!
//! Specialised for the two common key kinds: numbered values (`%7`) index a dense vector, and
//! names by source text go into an open-addressing table whose slots carry a generation number, so
//! clearing it per function is O(1) and its memory is reused. Short keys are compared with two word
//! loads instead of a `memcmp` call. Rare keys (escaped quoted names, huge numbers) use a hash map.

use super::{Local, LocalKey};
use crate::fx::FxHashMap;
use std::hash::Hasher;

/// Numbered values below this go to the dense vector (LLVM numbers them consecutively from 0).
const DENSE_MAX: u32 = 1 << 20;

#[derive(Copy, Clone)]
struct Slot<'s> {
    key: &'s str,
    hash: u32,
    /// The slot is occupied iff this equals the map's current generation.
    generation: u32,
    local: Local,
}

pub(super) struct LocalMap<'s> {
    num: Vec<Option<Local>>,
    slots: Vec<Slot<'s>>,
    generation: u32,
    len: usize,
    other: FxHashMap<LocalKey<'s>, Local>,
}

#[inline]
fn hash_src(s: &str) -> u64 {
    let mut h = crate::fx::FxHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

#[inline]
fn word(s: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or([0; 8]))
}

/// Byte equality without a `memcmp` call for short keys (most names): up to 7 bytes byte by
/// byte, 8 to 16 bytes as two overlapping words.
#[inline]
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    if n <= 16 {
        return word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
    }
    a == b
}

impl<'s> LocalMap<'s> {
    pub(super) fn new() -> Self {
        LocalMap {
            num: Vec::new(),
            slots: vec![
                Slot {
                    key: "",
                    hash: 0,
                    generation: 0,
                    local: Local::Arg(0),
                };
                256
            ],
            generation: 1,
            len: 0,
            other: FxHashMap::default(),
        }
    }

    /// Forgets every entry (start of a function).
    pub(super) fn clear(&mut self) {
        self.num.clear();
        self.other.clear();
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for s in &mut self.slots {
                s.generation = 0;
            }
            self.generation = 1;
        }
    }

    pub(super) fn get(&self, key: &LocalKey<'s>) -> Option<&Local> {
        match *key {
            LocalKey::Num(n) if n < DENSE_MAX => self.num.get(n as usize)?.as_ref(),
            LocalKey::Src(s) => {
                let h = hash_src(s);
                let mask = self.slots.len() - 1;
                let mut i = h as usize & mask;
                loop {
                    let slot = &self.slots[i];
                    if slot.generation != self.generation {
                        return None;
                    }
                    if slot.hash == h as u32 && same(slot.key.as_bytes(), s.as_bytes()) {
                        return Some(&slot.local);
                    }
                    i = (i + 1) & mask;
                }
            }
            _ => self.other.get(key),
        }
    }

    /// Inserts or replaces; returns the previous entry, like `HashMap::insert`.
    pub(super) fn insert(&mut self, key: LocalKey<'s>, local: Local) -> Option<Local> {
        match key {
            LocalKey::Num(n) if n < DENSE_MAX => {
                let n = n as usize;
                if n >= self.num.len() {
                    self.num.resize(n + 1, None);
                }
                self.num[n].replace(local)
            }
            LocalKey::Src(s) => {
                let h = hash_src(s);
                let mask = self.slots.len() - 1;
                let mut i = h as usize & mask;
                loop {
                    let slot = &mut self.slots[i];
                    if slot.generation != self.generation {
                        *slot = Slot {
                            key: s,
                            hash: h as u32,
                            generation: self.generation,
                            local,
                        };
                        self.len += 1;
                        if self.len * 2 > self.slots.len() {
                            self.grow();
                        }
                        return None;
                    }
                    if slot.hash == h as u32 && same(slot.key.as_bytes(), s.as_bytes()) {
                        return Some(std::mem::replace(&mut slot.local, local));
                    }
                    i = (i + 1) & mask;
                }
            }
            _ => self.other.insert(key, local),
        }
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let empty = Slot {
            key: "",
            hash: 0,
            generation: 0,
            local: Local::Arg(0),
        };
        let old = std::mem::replace(&mut self.slots, vec![empty; n]);
        let generation = self.generation;
        let mask = n - 1;
        for s in old.into_iter().filter(|s| s.generation == generation) {
            let mut i = hash_src(s.key) as usize & mask;
            while self.slots[i].generation == generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_clear_and_growth() {
        let names: Vec<String> = (0..5000).map(|i| format!("value.name{i}")).collect();
        let mut m = LocalMap::new();
        for round in 0..3u32 {
            m.clear();
            for (i, n) in names.iter().enumerate() {
                assert!(
                    m.insert(LocalKey::Src(n), Local::Inst(i as u32 + round))
                        .is_none()
                );
                assert!(
                    m.insert(LocalKey::Num(i as u32), Local::Arg(i as u32))
                        .is_none()
                );
            }
            assert!(matches!(
                m.insert(LocalKey::Src(&names[7]), Local::Block(1)),
                Some(Local::Inst(x)) if x == 7 + round
            ));
            for (i, n) in names.iter().enumerate().skip(8) {
                assert!(
                    matches!(m.get(&LocalKey::Src(n)), Some(Local::Inst(x)) if *x == i as u32 + round)
                );
                assert!(
                    matches!(m.get(&LocalKey::Num(i as u32)), Some(Local::Arg(x)) if *x == i as u32)
                );
            }
            assert!(m.get(&LocalKey::Src("value.name5000")).is_none());
            assert!(m.get(&LocalKey::Src("value.nameX")).is_none());
            assert!(m.get(&LocalKey::Num(5000)).is_none());
            assert!(
                m.insert(LocalKey::Num(DENSE_MAX + 3), Local::Arg(9))
                    .is_none()
            );
            assert!(matches!(
                m.get(&LocalKey::Num(DENSE_MAX + 3)),
                Some(Local::Arg(9))
            ));
        }
        m.clear();
        assert!(m.get(&LocalKey::Src(&names[1])).is_none());
        assert!(m.get(&LocalKey::Num(1)).is_none());
        assert!(m.get(&LocalKey::Num(DENSE_MAX + 3)).is_none());
    }

    #[test]
    fn short_and_long_keys_compare_exactly() {
        assert!(same(b"abcdefgh", b"abcdefgh"));
        assert!(!same(b"abcdefgh", b"abcdefgi"));
        assert!(!same(b"abcdefghij", b"abcdefgxij"));
        assert!(same(b"abcdefghijklmnop", b"abcdefghijklmnop"));
        assert!(!same(b"abcdefghijklmnoq", b"abcdefghijklmnop"));
        assert!(!same(b"a", b"b"));
        assert!(same(b"", b""));
        assert!(same(b"old7", b"old7"));
        assert!(!same(b"old7", b"old8"));
        assert!(!same(b"old7", b"old"));
        assert!(!same(b"abcdefghijklmnopqrs", b"abcdefghijklmnopqrt"));
    }
}
