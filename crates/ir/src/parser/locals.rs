//! The map from a function's local names to what they define, cleared for every function body.
//!
//! Specialised for the common key kinds: numbered values (`%7`) index a dense vector, and names by
//! source text go into an open-addressing table of 16-byte slots (four to a cache line) whose slots
//! carry a generation number, so clearing it per function is O(1) and its memory is reused. A name
//! of up to 8 bytes (most names: `%v12`, `%b3`, `%call`) is stored in its slot as one word, so a
//! probe compares one word and never reads the source text again; longer names keep a 64-bit hash
//! in the slot and their text in a side vector. Rare keys (escaped quoted names, huge numbers, names
//! longer than 255 bytes) use a hash map.
//!
//! Names made of a short prefix and a decimal number (`%v123`, `%b7`, `%arrayidx12`: how compilers
//! and generators name values) skip the hash table: the prefix is looked up in a small table that
//! stays in cache, and the number alone indexes one dense vector of entries with two ways of
//! (prefix, local) each, shared with the unnamed values (`%7`). Clang-style names share one
//! counter across all prefixes and the unnamed values (`%arrayidx10`, `%11`, `%old12`), so one
//! vector keyed by the number holds a function's names about once each, where a vector per prefix
//! would span the whole number range for every prefix; generators that count per prefix usually
//! have two (`%b7:` and its value `%v7`), hence the second way. A third name with the same number
//! (`%c5` after `%a5` and `%b5`) goes to its prefix's own dense vector of (generation, local)
//! entries by number (generators with three counters), bounded by a budget proportional to the
//! source size, and past that to the hash table. The number-keyed vector is bounded by a cap
//! proportional to the source size; a name whose number is past it uses the table. Which
//! structure holds a key is decided the same way at every lookup (see [`LocalMap::insert`]).
//!
//! In front of all of it, a direct-mapped cache of 4,096 entries keyed by the whole name (up to 16
//! bytes, as two words and the length) answers most lookups with one probe: a reference usually
//! names a value defined shortly before in the same function. Every `insert` writes through it.
//! Names used far from their definitions (a large random CFG's: 200,000 names against the
//! cache's 4,096 entries) miss it; the lookups by offset of the hot paths
//! ([`LocalMap::probe_at`], [`LocalMap::block_probe_at`]) then read the number's dense entry
//! (or, for a name that is not numbered, the table) directly, without building a key for the
//! general path.

use super::{Local, LocalKey};
use crate::Sym;
use crate::fx::FxHashMap;
use crate::fx::exact_word;

/// The smallest cap of the dense vector (entries), whatever the source size.
const DENSE_MIN_CAP: usize = 1 << 16;
/// The number-indexed vector is emptied at a new function when it is longer than this (entries).
const DENSE_KEEP: usize = 1 << 16;
/// Names up to this many bytes are stored inline in their slot.
const INLINE: usize = 8;
/// `Slot::tag` length field of a long name (its text and local are in `LocalMap::long`).
const LONG: u32 = 0xff;
/// Names longer than this go to the fallback map.
const MAX_LONG: usize = 254;
/// `Slot::val` of an inline name whose local is in the fallback map (no packed local has both
/// top bits set).
const IN_OTHER: u32 = u32::MAX;
/// A dense entry whose name has not been interned yet.
const NO_SYM: u32 = u32::MAX;

#[derive(Copy, Clone)]
struct Slot {
    /// The name's bytes (names of up to 8 bytes, see [`short_word`]) or its 64-bit hash (long
    /// names).
    word: u64,
    /// `generation << 8 | length` (length [`LONG`] for long names); the slot is occupied iff the
    /// generation is the map's current one.
    tag: u32,
    /// The packed [`Local`] (inline names, see [`pack`]) or the index into `LocalMap::long`.
    val: u32,
}

const EMPTY: Slot = Slot {
    word: 0,
    tag: 0,
    val: 0,
};

/// A name prefix (at most 8 bytes) as its zero-padded word and length.
struct Prefix {
    word: u64,
    len: u32,
}

/// The prefix of the unnamed values (`%7`, [`LocalKey::Num`]) in [`Dense::prefix`].
const NUMBERED: u32 = 0xfffe;
/// [`Dense::prefix`] of an unused way. Prefixes with an index of this or more never use the
/// dense vector (a 16-bit field; a module with that many prefixes is not what it is for).
const NO_WAY: u16 = 0xffff;

/// One entry of [`LocalMap::dense`]: the names with this number and the prefixes
/// [`Dense::prefix`], in two ways filled in order and never emptied within a function.
#[derive(Copy, Clone)]
struct Dense {
    /// The ways are current iff this is the map's generation (a stale entry has no names).
    generation: u32,
    /// Per way: the prefix's index in [`LocalMap::prefixes`], [`NUMBERED`] or [`NO_WAY`].
    prefix: [u16; 2],
    /// Per way: the packed local, or [`IN_OTHER`].
    val: [u32; 2],
}

/// A prefix index as it goes in [`Dense::prefix`]: [`NO_WAY`] (not dense) from [`NUMBERED`] on.
#[inline]
fn way_prefix(pi: usize) -> u32 {
    if pi < NUMBERED as usize {
        pi as u32
    } else {
        NO_WAY as u32
    }
}

const EMPTY_DENSE: Dense = Dense {
    generation: 0,
    prefix: [NO_WAY; 2],
    val: [0; 2],
};

pub(super) struct LocalMap<'s> {
    src: &'s [u8],
    /// Numbered names by their number (see [`Dense`]); grown on demand up to `dense_cap`.
    dense: Vec<Dense>,
    /// Numbers below this may use `dense`; a fixed function of the source size, so the choice
    /// of structure for a key never changes.
    dense_cap: usize,
    /// Per prefix (parallel to `prefixes`), by number: (generation, packed local or
    /// [`IN_OTHER`]) of the names whose number's two ways in `dense` were taken by other
    /// prefixes when they were defined.
    third: Vec<Vec<(u32, u32)>>,
    /// How many more entries the vectors of `third` may still allocate.
    third_budget: usize,
    prefixes: Vec<Prefix>,
    /// Open addressing over `prefixes`: index + 1, 0 for empty.
    prefix_slots: Vec<u32>,
    /// One-byte prefixes by their byte: index + 1 into `prefixes`, 0 for none.
    single: [u32; 256],
    /// Per prefix (parallel to `prefixes`), by number: the interned name (prefix, number), or
    /// [`NO_SYM`]. Symbols are module-wide, so these are kept across functions: a name seen
    /// before needs no interning when it is defined again (names recur from function to function
    /// with other numbers, so the per-function `dense` entry cannot keep them). Only a cache:
    /// a name past its vector is interned as usual.
    syms: Vec<Vec<u32>>,
    /// How many more entries the vectors of `syms` may still allocate.
    sym_budget: usize,
    /// (prefix, number) of the name of the last `insert`, if it was a numbered source name.
    last_split: Option<(u32, u32)>,
    slots: Vec<Slot>,
    /// Generation, below 2^24 and never 0.
    generation: u32,
    len: usize,
    long: Vec<(&'s str, Local)>,
    other: FxHashMap<LocalKey<'s>, Local>,
    /// A direct-mapped cache in front of all of the above for names of up to 16 bytes, written
    /// through by every `insert` (see [`CacheEntry`]).
    cache: Vec<CacheEntry>,
    /// Tests only: how often a split was taken from the cache (see [`CacheEntry::split`]).
    #[cfg(test)]
    splits_reused: std::cell::Cell<usize>,
    /// Tests only: the cache indices in use (`CACHE_SIZE - 1` for all; a small mask makes
    /// nearly every lookup miss, so the paths behind the cache are taken in small functions).
    #[cfg(test)]
    pub(super) cache_mask: usize,
    /// Tests only: block references answered by the dense entry behind the cache
    /// ([`LocalMap::block_first_sight`]).
    #[cfg(test)]
    pub(super) dense_blocks: usize,
}

/// Entries of [`LocalMap::cache`] (a power of two: 128 KiB, within the second-level cache).
const CACHE_SIZE: usize = 1 << CACHE_BITS;
const CACHE_BITS: u32 = 12;

/// A name of up to 16 bytes as two zero-padded words (its identity together with its length) and
/// the packed [`Local`] it was last defined as. Most references name a value defined shortly before
/// in the same function, so most lookups end here with one probe, without splitting the name or
/// probing the prefix and name tables. The entry is current iff its generation is the map's.
#[derive(Copy, Clone)]
struct CacheEntry {
    words: [u64; 2],
    /// `generation << 8 | length`.
    tag: u32,
    val: u32,
    /// The name's split as [`LocalMap::last_split`] gives it, packed (see [`pack_split`]). A
    /// function of the name alone (prefix indices are module-wide), so it stays valid when the
    /// entry is stale: the next function's definition of the same name (names recur from
    /// function to function) takes it from here instead of splitting the name again.
    split: u64,
}

const EMPTY_CACHE: CacheEntry = CacheEntry {
    words: [0; 2],
    tag: 0,
    val: 0,
    split: NOT_NUMBERED,
};

/// [`CacheEntry::split`] of a name that is not `<prefix><number>`.
const NOT_NUMBERED: u64 = u64::MAX;

/// A split (prefix index, number) as [`CacheEntry::split`] keeps it.
#[inline(always)]
fn pack_split(split: Option<(u32, u32)>) -> u64 {
    match split {
        Some((pi, n)) => (pi as u64) << 32 | n as u64,
        None => NOT_NUMBERED,
    }
}

/// The inverse of [`pack_split`].
#[inline(always)]
fn unpack_split(v: u64) -> Option<(u32, u32)> {
    (v != NOT_NUMBERED).then_some(((v >> 32) as u32, v as u32))
}

/// What a lookup by offsets found ([`LocalMap::probe_at`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Probe {
    /// The cache's entry: the packed local (see [`pack`]).
    Cached(u32),
    /// Behind the cache, the name's way in its number's dense entry or, for a name that is not
    /// numbered, its slot in the table: the packed local.
    Found(u32),
    /// The name has no local (`get` would return `None`), as its number's dense entry or the
    /// table shows.
    Absent,
    /// Not decided by those (a number past the cap or whose ways other prefixes hold, a quoted
    /// name or one of more than 16 bytes, a local too large to pack): the general path decides.
    Unknown,
}

/// What [`LocalMap::insert_new_dense`] did.
#[derive(Copy, Clone, PartialEq, Eq)]
enum NewName {
    /// The name was new and is now in its number's dense entry.
    Entered,
    /// The name is in its number's dense entry already, as this packed local, and its split;
    /// nothing changed.
    Has(u32, (u32, u32)),
    /// Nothing changed; the general path decides.
    No,
}

/// A numbered name's split: its prefix's index and its number (see [`LocalMap::last_split`]);
/// `None` for other names.
pub(super) type Split = Option<(u32, u32)>;

/// A name's split when it is already known: `Some(split)` (`split` itself `None` for a name that
/// is not numbered), `None` when it must be computed.
type KnownSplit = Option<Option<(u32, u32)>>;

#[inline]
fn word_at(s: &[u8], i: usize) -> u64 {
    match s.get(i..i + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().unwrap_or([0; 8])),
        None => 0,
    }
}

/// The cache index of a name of `n` bytes (1 to 16) with cache words `words`: multiply-shift (the
/// top bits of the product depend on every bit of the key), cheaper than `mix` on the path of
/// every lookup; the entry's tag and words decide a hit.
#[inline(always)]
fn cache_index(words: [u64; 2], n: usize) -> usize {
    let h = (words[0] ^ words[1].rotate_left(29) ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> (64 - CACHE_BITS)) as usize
}

/// A word that, together with the length, identifies a name of at most 8 bytes.
#[inline]
pub(crate) fn short_word(s: &[u8]) -> u64 {
    crate::fx::short(s)
}

#[inline]
fn mix(w: u64, n: usize) -> u64 {
    let p = ((w ^ 0x243f_6a88_85a3_08d3 ^ ((n as u64) << 58)) as u128)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15u128);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline]
fn hash_long(s: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = crate::fx::FxHasher::default();
    h.write(s);
    h.finish()
}

#[inline]
fn pack(l: Local) -> Option<u32> {
    let (tag, i) = match l {
        Local::Arg(i) => (0, i),
        Local::Inst(i) => (1, i),
        Local::Block(i) => (2, i),
    };
    (i < 1 << 30).then_some(tag << 30 | i)
}

/// The block name index of a packed [`Local::Block`] (see [`pack`]).
#[inline(always)]
pub(super) fn packed_block(v: u32) -> Option<u32> {
    (v >> 30 == 2).then_some(v & ((1 << 30) - 1))
}

/// The value of a packed [`Local::Arg`] or [`Local::Inst`] (see [`pack`]).
#[inline(always)]
pub(super) fn packed_value(v: u32) -> Option<crate::Value> {
    let i = v & ((1 << 30) - 1);
    match v >> 30 {
        0 => Some(crate::Value::Arg(i)),
        1 => Some(crate::Value::Inst(crate::InstId(i))),
        _ => None,
    }
}

#[inline]
fn unpack(v: u32) -> Local {
    let i = v & ((1 << 30) - 1);
    match v >> 30 {
        0 => Local::Arg(i),
        1 => Local::Inst(i),
        _ => Local::Block(i),
    }
}

/// [`LocalMap::split`] by plain loops, the tests' reference.
#[cfg(test)]
fn split_loop(b: &[u8]) -> Option<(&[u8], u32)> {
    let k = b
        .iter()
        .rposition(|c| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let d = &b[k..];
    if d.is_empty() || d.len() > 7 || k > INLINE || (d[0] == b'0' && d.len() > 1) {
        return None;
    }
    Some((
        &b[..k],
        d.iter().fold(0, |n, &c| n * 10 + (c - b'0') as u32),
    ))
}

/// [`split_loop`] without the loops, for names longer than 8 bytes: the number has at most 7
/// digits, so the last 8 bytes hold all of them and the last non-digit before them ([`split_word`]
/// on that word); the prefix is everything before the digits and must fit in 8 bytes.
#[inline]
fn split_long(b: &[u8]) -> Option<(&[u8], u32)> {
    let n = b.len();
    let tail = b.get(n.checked_sub(8)?..)?;
    let (head, num) = split_word(tail, word_at(b, n - 8))?;
    let k = n - 8 + head.len();
    if k > INLINE {
        return None;
    }
    Some((&b[..k], num))
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// `split_word` on a word built from the bytes (the tests' reference).
#[cfg(test)]
fn split_short(b: &[u8]) -> Option<(&[u8], u32)> {
    split_word(b, exact_word(b))
}

/// [`LocalMap::split`] for a name of at most 8 bytes given as a zero-padded word, without loops
/// (a loop's exit, at a different byte for every name, is a mispredicted branch): the digit bytes
/// are found with byte-parallel compares and converted with the usual eight-digit multiply
/// sequence.
#[inline]
fn split_word(b: &[u8], w: u64) -> Option<(&[u8], u32)> {
    let n = b.len();
    let high = 0x80 * ONES;
    let w7 = w & (0x7f * ONES);
    // A byte is not a digit if it is ≥ 0x80, ≥ `:` or < `0` (no carries: every w7 byte < 0x80).
    let not_digit = (w & high) | ((w7 + 0x46 * ONES) & high) | (!(w7 + 0x50 * ONES) & high);
    let live = if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    };
    let not_digit = not_digit & live;
    let k = if not_digit == 0 {
        0
    } else {
        (63 - not_digit.leading_zeros() as usize) / 8 + 1
    };
    let d = n - k;
    if d == 0 || d > 7 || (d > 1 && b[k] == b'0') {
        return None;
    }
    // The digits, first digit in the lowest byte, moved to the top and padded with `0`s.
    let shift = 8 * (8 - d);
    let chunk = ((w >> (8 * k)) << shift) | ((0x30 * ONES) & ((1u64 << shift) - 1));
    let mut x = chunk.wrapping_sub(0x30 * ONES);
    x = x.wrapping_mul(10).wrapping_add(x >> 8);
    x = ((x & 0x0000_00ff_0000_00ff)
        .wrapping_mul(100 + (1_000_000 << 32))
        .wrapping_add(((x >> 16) & 0x0000_00ff_0000_00ff).wrapping_mul(1 + (10_000 << 32))))
        >> 32;
    Some((&b[..k], x as u32))
}

/// [`LocalMap::split`] of `b` whose first 8 bytes (a name of at most 8) are `w` as a zero-padded
/// word.
#[inline]
fn split_with(b: &[u8], w: u64) -> Option<(&[u8], u32)> {
    if b.len() > 8 {
        return split_long(b);
    }
    split_word(b, w)
}

/// Byte equality without a `memcmp` call for short keys: up to 7 bytes byte by byte, 8 to 16
/// bytes as two overlapping words.
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
        return word_at(a, 0) == word_at(b, 0) && word_at(a, n - 8) == word_at(b, n - 8);
    }
    a == b
}

impl<'s> LocalMap<'s> {
    /// Splits a name into a prefix of at most 8 bytes and a decimal number of 1 to 7 digits
    /// without leading zeros (`v12` → (`v`, 12); `v012`, `v`, `value.name12` → `None`). A short
    /// name is read from the source with one load when it is a slice of it.
    #[inline]
    fn split<'a>(&self, s: &'a str) -> Option<(&'a [u8], u32)> {
        let b = s.as_bytes();
        if b.len() > 8 {
            return split_long(b);
        }
        split_word(b, self.word_of(b))
    }

    /// The bytes of `b` (at most 8) as a zero-padded word. A slice of the source (every name the
    /// reader looks up) is read with one 8-byte load from the source, masked to its length: no
    /// branch on the length (which differs from name to name and is mispredicted).
    #[inline]
    fn word_of(&self, b: &[u8]) -> u64 {
        let n = b.len();
        // `b` starts within the source and its 8-byte window fits there: live objects do not
        // overlap, so `b` is that part of the source. (`b` before the source: the offset wraps
        // to a huge number, which `get` rejects like one past the end.)
        let off = (b.as_ptr() as usize).wrapping_sub(self.src.as_ptr() as usize);
        if n > 0
            && let Some(w) = self.src.get(off..off.wrapping_add(8))
        {
            let w = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
            return w & (u64::MAX >> (64 - 8 * n));
        }
        exact_word(b)
    }

    /// `src` is the text the keys are slices of; its size bounds the memory of the dense vector
    /// (one 16-byte entry per 16 source bytes: a name takes at least that much text once defined
    /// and referenced).
    pub(super) fn new(src: &'s [u8]) -> Self {
        LocalMap {
            src,
            dense: Vec::new(),
            dense_cap: (src.len() / 16).max(DENSE_MIN_CAP),
            third: Vec::new(),
            third_budget: (src.len() / 16).max(DENSE_MIN_CAP),
            prefixes: Vec::new(),
            prefix_slots: vec![0; 64],
            single: [0; 256],
            syms: Vec::new(),
            sym_budget: (src.len() / 32).max(DENSE_MIN_CAP),
            last_split: None,
            slots: vec![EMPTY; 256],
            generation: 1,
            len: 0,
            long: Vec::new(),
            other: FxHashMap::default(),
            cache: vec![EMPTY_CACHE; CACHE_SIZE],
            #[cfg(test)]
            splits_reused: std::cell::Cell::new(0),
            #[cfg(test)]
            cache_mask: CACHE_SIZE - 1,
            #[cfg(test)]
            dense_blocks: 0,
        }
    }

    /// [`cache_index`], within the test-only mask (see [`LocalMap::cache_mask`]).
    #[inline(always)]
    fn cache_slot(&self, words: [u64; 2], n: usize) -> usize {
        let i = cache_index(words, n);
        #[cfg(test)]
        let i = i & self.cache_mask;
        i
    }

    /// The cache words of a name of 1 to 16 bytes (masked loads from the source when it is a
    /// slice of it) and its cache index.
    #[inline]
    fn cache_key(&self, b: &[u8]) -> Option<([u64; 2], usize)> {
        let n = b.len();
        if n == 0 || n > 16 {
            return None;
        }
        let words = if n <= 8 {
            [self.word_of(b), 0]
        } else {
            [word_at(b, 0), self.word_of(&b[8..])]
        };
        Some((words, self.cache_slot(words, n)))
    }

    /// [`LocalMap::cache_key`] of the name `src[s..e]` (the bytes after a `%`) read at its offset:
    /// the same words and index, without locating a slice in the source (the whole-line fast
    /// paths' names are offsets already). `None` also for a quoted name (its first byte `"`),
    /// which only the general path reads.
    #[inline(always)]
    fn cache_key_at(&self, s: usize, e: usize) -> Option<([u64; 2], usize)> {
        let n = e.wrapping_sub(s);
        if n.wrapping_sub(1) >= 16 {
            return None;
        }
        let src = self.src;
        // `k` (1 to 8) bytes at `i` as `word_of` gives them.
        let word = |i: usize, k: usize| -> Option<u64> {
            Some(match src.get(i..i + 8) {
                Some(w) => {
                    u64::from_le_bytes(w.try_into().unwrap_or([0; 8])) & (u64::MAX >> (64 - 8 * k))
                }
                None => exact_word(src.get(i..i + k)?),
            })
        };
        let words = if n <= 8 {
            [word(s, n)?, 0]
        } else {
            [word(s, 8)?, word(s + 8, n - 8)?]
        };
        if words[0] as u8 == b'"' {
            return None;
        }
        Some((words, self.cache_slot(words, n)))
    }

    /// The split kept in cache entry `i` if it is the name's of `words` and length `len`, current
    /// or stale (see [`CacheEntry::split`]).
    #[inline(always)]
    fn known_split(&self, i: usize, words: [u64; 2], len: usize) -> KnownSplit {
        let e = &self.cache[i];
        let known = (e.words == words && e.tag & 0xff == len as u32).then(|| unpack_split(e.split));
        #[cfg(test)]
        self.splits_reused
            .set(self.splits_reused.get() + known.is_some() as usize);
        known
    }

    /// Forgets every entry (start of a function).
    pub(super) fn clear(&mut self) {
        // After a huge function the number-indexed vector starts empty again (its memory is
        // kept): its length then says how far this function's numbers reach (see
        // `reserve_numbers`), and growing it does not copy the huge function's stale entries.
        // Below that its entries stay, stale by their generation: emptying it for every function
        // would write its entries again for every function (+0.6% instructions on a module of
        // many mid-sized functions).
        if self.dense.len() > DENSE_KEEP {
            self.dense.clear();
        }
        self.other.clear();
        self.long.clear();
        self.len = 0;
        self.generation += 1;
        if self.generation >= 1 << 24 {
            self.slots.fill(EMPTY);
            self.cache.fill(EMPTY_CACHE);
            for e in &mut self.dense {
                e.generation = 0;
            }
            for e in self.third.iter_mut().flatten() {
                e.0 = 0;
            }
            self.generation = 1;
        }
    }

    /// The slot holding `s`, or the empty slot where it would go.
    #[inline]
    fn find(&self, b: &[u8]) -> (usize, bool) {
        let n = b.len();
        let mask = self.slots.len() - 1;
        let gen_tag = self.generation << 8;
        if n <= INLINE {
            let w = short_word(b);
            let tag = gen_tag | n as u32;
            let mut i = mix(w, n) as usize & mask;
            loop {
                let slot = &self.slots[i];
                if slot.tag == tag && slot.word == w {
                    return (i, true);
                }
                if slot.tag >> 8 != self.generation {
                    return (i, false);
                }
                i = (i + 1) & mask;
            }
        }
        let h = hash_long(b);
        let tag = gen_tag | LONG;
        let mut i = h as usize & mask;
        loop {
            let slot = &self.slots[i];
            if slot.tag == tag
                && slot.word == h
                && same(self.long[slot.val as usize].0.as_bytes(), b)
            {
                return (i, true);
            }
            if slot.tag >> 8 != self.generation {
                return (i, false);
            }
            i = (i + 1) & mask;
        }
    }

    /// The packed local (see [`pack`]) of the unquoted name `src[s..e]` (see
    /// [`LocalMap::cache_key_at`]) if the cache holds it; `None` says nothing (the name may be in
    /// the structures behind the cache, see [`LocalMap::probe_at`]). The hot callers test the
    /// packed form themselves (see [`packed_block`], [`packed_value`]), without building a
    /// [`LocalKey`] or a [`Local`].
    #[inline(always)]
    pub(super) fn cached_at(&self, s: usize, e: usize) -> Option<u32> {
        let (words, i) = self.cache_key_at(s, e)?;
        let c = &self.cache[i];
        (c.tag == self.generation << 8 | (e - s) as u32 && c.words == words).then_some(c.val)
    }

    /// The unquoted name `src[s..e]` (see [`LocalMap::cache_key_at`]) looked up as far as the
    /// cache and the structures behind it answer without the general path: the packed local
    /// it has, that it has none, or [`Probe::Unknown`] (the general lookup, [`LocalMap::get`],
    /// decides). For the misses of [`LocalMap::cached_at`]: its callers keep their inlined probe
    /// small and call this out of line.
    #[inline(always)]
    pub(super) fn probe_at(&self, s: usize, e: usize) -> Probe {
        let Some((words, i)) = self.cache_key_at(s, e) else {
            return Probe::Unknown;
        };
        let c = &self.cache[i];
        if c.tag == self.generation << 8 | (e - s) as u32 && c.words == words {
            return Probe::Cached(c.val);
        }
        match self.src.get(s..e) {
            Some(b) => self.probe_dense(b, words, i),
            None => Probe::Unknown,
        }
    }

    /// [`LocalMap::probe_at`] of a name given as a slice (the tests' entry: the keys by offset
    /// are the slices', see `cache_key_at_offsets_is_the_slices`).
    #[cfg(test)]
    fn probe(&self, s: &str) -> Probe {
        let b = s.as_bytes();
        match self.cache_key(b) {
            Some((words, i)) if b.first() != Some(&b'"') => {
                let c = &self.cache[i];
                if c.tag == self.generation << 8 | b.len() as u32 && c.words == words {
                    return Probe::Cached(c.val);
                }
                self.probe_dense(b, words, i)
            }
            _ => Probe::Unknown,
        }
    }

    /// [`LocalMap::probe_at`] behind the cache, for the name `b` (cache words `words`, cache
    /// index `i`): `get_uncached`'s dense part without its general key. A function's names
    /// used far from their definitions (a large random CFG's) miss the cache; a numbered name
    /// (`%v123`, `%b45`) is then answered by its number's dense entry, which holds it iff a way
    /// is current with its prefix, and lacks it iff the entry is stale or has a free way: a
    /// name goes elsewhere only while both ways are current with other prefixes (see
    /// [`LocalMap::insert`]). Any other name (`%p`, evicted by them) only the table holds.
    #[inline(always)]
    fn probe_dense(&self, b: &[u8], words: [u64; 2], i: usize) -> Probe {
        let (pi, n) = match self.known_split(i, words, b.len()) {
            Some(Some((pi, n))) => (pi as usize, n as usize),
            Some(None) => return self.probe_table(b),
            None => {
                let Some((p, n)) = split_with(b, words[0]) else {
                    return self.probe_table(b);
                };
                // A prefix never seen is in no structure (every insert of a numbered name
                // records its prefix).
                let Some(pi) = self.prefix_index(p) else {
                    return Probe::Absent;
                };
                (pi, n as usize)
            }
        };
        if pi >= NUMBERED as usize || n >= self.dense_cap {
            return Probe::Unknown;
        }
        // Past the vector's length or stale: never inserted this function.
        let Some(e) = self.dense.get(n) else {
            return Probe::Absent;
        };
        if e.generation != self.generation {
            return Probe::Absent;
        }
        let pw = pi as u16;
        let v = if e.prefix[0] == pw {
            e.val[0]
        } else if e.prefix[1] == pw {
            e.val[1]
        } else if e.prefix[1] == NO_WAY {
            return Probe::Absent;
        } else {
            return Probe::Unknown;
        };
        if v == IN_OTHER {
            Probe::Unknown
        } else {
            Probe::Found(v)
        }
    }

    /// [`LocalMap::probe_dense`] of a name of at most 16 bytes that is not numbered, which only
    /// the table holds (an argument `%p`, `%x`): the local in its slot, or absent.
    #[inline(always)]
    fn probe_table(&self, b: &[u8]) -> Probe {
        let (i, found) = self.find(b);
        let slot = &self.slots[i];
        if !found {
            Probe::Absent
        } else if slot.tag & 0xff == LONG {
            pack(self.long[slot.val as usize].1).map_or(Probe::Unknown, Probe::Found)
        } else if slot.val == IN_OTHER {
            Probe::Unknown
        } else {
            Probe::Found(slot.val)
        }
    }

    /// [`LocalMap::get_or_insert`] of the unquoted block name `src[s..e]` (see
    /// [`LocalMap::cache_key_at`]) as the new block name index `new`, as far as it ends in the
    /// cache or the dense entry, without building a [`LocalKey`]: `Some(Ok(packed))` the local
    /// the name has, from the cache or its number's dense entry (the map unchanged but for the
    /// cache's entry, which `get_or_insert` writes too), `Some(Err(()))` the name's first sight
    /// entered (`get_or_insert` returned `None`), `None` nothing changed (the general path
    /// decides).
    #[inline(always)]
    pub(super) fn block_probe_at(
        &mut self,
        s: usize,
        e: usize,
        new: u32,
    ) -> Option<Result<u32, ()>> {
        let (words, i) = self.cache_key_at(s, e)?;
        let tag = self.generation << 8 | (e - s) as u32;
        let c = &self.cache[i];
        if c.tag == tag && c.words == words {
            return Some(Ok(c.val));
        }
        let b = self.src.get(s..e)?;
        self.block_first_sight(b, words, i, tag, new)
    }

    /// The miss of [`LocalMap::block_probe_at`]: `get_or_insert`'s `insert_new_dense` and cache
    /// write, out of line (a first sight is one reference in three). A name its number's dense
    /// entry holds (referenced before, far from here) is answered from there, and the cache's
    /// entry written as `get_or_insert` writes it.
    #[inline(never)]
    fn block_first_sight(
        &mut self,
        b: &[u8],
        words: [u64; 2],
        i: usize,
        tag: u32,
        new: u32,
    ) -> Option<Result<u32, ()>> {
        match self.enter_new(b, words, i, tag, Local::Block(new)) {
            NewName::Entered => Some(Err(())),
            NewName::Has(val, split) => {
                #[cfg(test)]
                {
                    self.dense_blocks += 1;
                }
                self.cache[i] = CacheEntry {
                    words,
                    tag,
                    val,
                    split: pack_split(Some(split)),
                };
                Some(Ok(val))
            }
            NewName::No => None,
        }
    }

    /// `insert_new_dense` of the name `b` (cache words `words`, cache index `i`, current tag
    /// `tag`, not current in the cache) as `local`, and the cache's entry for it if it was
    /// entered.
    #[inline(always)]
    fn enter_new(
        &mut self,
        b: &[u8],
        words: [u64; 2],
        i: usize,
        tag: u32,
        local: Local,
    ) -> NewName {
        let known = self.known_split(i, words, b.len());
        let r = self.insert_new_dense(b, words[0], local, known);
        if r == NewName::Entered {
            self.cache[i] = CacheEntry {
                words,
                tag,
                val: pack(local).unwrap_or(IN_OTHER),
                split: pack_split(self.last_split),
            };
        }
        r
    }

    /// [`LocalMap::insert`] of the unquoted name `src[s..e]` (see [`LocalMap::cache_key_at`]) as
    /// `local` when the name is new to the function and goes to its number's dense entry (a
    /// result name's definition, usually): `true`, the insert done (it would have returned
    /// `None`, and the last split is the name's); `false` with nothing changed otherwise (a
    /// redefinition, a name referenced before, or any key the general path places).
    #[inline(never)]
    pub(super) fn insert_new_at(&mut self, s: usize, e: usize, local: Local) -> bool {
        let Some((words, i)) = self.cache_key_at(s, e) else {
            return false;
        };
        let tag = self.generation << 8 | (e - s) as u32;
        let c = &self.cache[i];
        if c.tag == tag && c.words == words {
            return false;
        }
        let Some(b) = self.src.get(s..e) else {
            return false;
        };
        self.enter_new(b, words, i, tag, local) == NewName::Entered
    }

    /// Forgets the last insert's split, as a lookup through [`LocalMap::get_or_insert`] answered by
    /// the cache does.
    #[inline(always)]
    pub(super) fn forget_split(&mut self) {
        self.last_split = None;
    }

    /// The local `key` names. The cache probe is inlined into the callers (most lookups end
    /// there); the rest is [`LocalMap::get_uncached`].
    #[inline(always)]
    pub(super) fn get(&self, key: &LocalKey<'s>) -> Option<Local> {
        if let LocalKey::Src(s) = *key
            && let Some((words, i)) = self.cache_key(s.as_bytes())
        {
            let e = &self.cache[i];
            if e.tag == self.generation << 8 | s.len() as u32 && e.words == words {
                return Some(unpack(e.val));
            }
        }
        self.get_uncached(key)
    }

    /// [`LocalMap::get`] behind the cache.
    #[inline(never)]
    fn get_uncached(&self, key: &LocalKey<'s>) -> Option<Local> {
        let numbered = match *key {
            LocalKey::Num(n) => Some((NUMBERED, n)),
            LocalKey::Src(s) if s.len() <= MAX_LONG => match self.split(s) {
                // A prefix never seen is in no structure (every insert of a numbered name
                // records its prefix).
                Some((p, n)) => Some((way_prefix(self.prefix_index(p)?), n)),
                None => None,
            },
            _ => None,
        };
        if let Some((pi, n)) = numbered
            && pi < NO_WAY as u32
            && (n as usize) < self.dense_cap
        {
            // Past the vector's length or not current: never inserted, in no structure (a
            // name goes to the table only while its number's entry is current and full).
            let e = self.dense.get(n as usize)?;
            if e.generation != self.generation {
                return None;
            }
            let w = if e.prefix[0] == pi as u16 {
                0
            } else if e.prefix[1] == pi as u16 {
                1
            } else if e.prefix[1] == NO_WAY {
                // A free way: the key would have taken it.
                return None;
            } else {
                // Both ways taken by other prefixes: the prefix's own vector if it reaches the
                // number (see `insert`), else the table.
                match self.third.get(pi as usize).and_then(|v| v.get(n as usize)) {
                    Some(&(g, v)) if g == self.generation => {
                        return if v == IN_OTHER {
                            self.other.get(key).copied()
                        } else {
                            Some(unpack(v))
                        };
                    }
                    Some(_) => return None,
                    None => 2,
                }
            };
            if w < 2 {
                return if e.val[w] == IN_OTHER {
                    self.other.get(key).copied()
                } else {
                    Some(unpack(e.val[w]))
                };
            }
        }
        match *key {
            LocalKey::Src(s) if s.len() <= MAX_LONG => {
                let (i, found) = self.find(s.as_bytes());
                if !found {
                    return None;
                }
                let slot = &self.slots[i];
                if slot.tag & 0xff == LONG {
                    Some(self.long[slot.val as usize].1)
                } else if slot.val == IN_OTHER {
                    self.other.get(key).copied()
                } else {
                    Some(unpack(slot.val))
                }
            }
            _ => self.other.get(key).copied(),
        }
    }

    /// Inserts or replaces; returns the previous entry, like `HashMap::insert`.
    ///
    /// A `<prefix><number>` key (or an unnamed `%<number>`) whose number is below the cap goes to
    /// the dense entry of its number, unless that entry is current with another prefix: then it
    /// goes to the table and stays there, because entries are never removed within a function, so
    /// the entry stays current with that other prefix. A lookup therefore finds every key where
    /// its insert put it: the dense entry if it is current with the key's prefix, else the table.
    pub(super) fn insert(&mut self, key: LocalKey<'s>, local: Local) -> Option<Local> {
        if let LocalKey::Src(s) = key
            && let Some((words, i)) = self.cache_key(s.as_bytes())
        {
            let known = self.known_split(i, words, s.len());
            let prev = self.insert_uncached_inline::<false>(key, local, words[0], known);
            self.cache[i] = match pack(local) {
                Some(val) => CacheEntry {
                    words,
                    tag: self.generation << 8 | s.len() as u32,
                    val,
                    split: pack_split(self.last_split),
                },
                // Not representable: make sure no entry for this name stays current.
                None => EMPTY_CACHE,
            };
            return prev;
        }
        self.insert_uncached::<false>(key, local, 0, None)
    }

    /// The commonest first sight of a block name in [`LocalMap::get_or_insert`], a numbered name
    /// (`%b12`, `%for.body63`) of a known prefix that no structure holds yet, done here without
    /// the general path's call: [`NewName::Entered`] if `b` (a name of at most 16 bytes whose
    /// first word is `w`) was such a name and is now in its number's dense entry (the cache is
    /// the caller's), [`NewName::Has`] if a way of that entry holds it already (nothing
    /// changed), [`NewName::No`] if nothing was changed (the general path decides). (In [`LocalMap::insert`],
    /// whose general path is inlined, it saves nothing: measured.)
    ///
    /// The name is absent when its number's dense entry is stale or current with a free way and
    /// neither way holds the prefix: a name goes to the table or its prefix's own vector only
    /// while its entry is current with both ways taken by other prefixes, and ways are never
    /// emptied within a function (see [`LocalMap::insert`]). It then takes the way
    /// [`LocalMap::insert_dense`] would give it.
    #[inline(always)]
    fn insert_new_dense(&mut self, b: &[u8], w: u64, local: Local, known: KnownSplit) -> NewName {
        let Some(val) = pack(local) else {
            return NewName::No;
        };
        let (pi, n) = match known {
            // The prefix of a split kept in the cache is known (prefixes are never forgotten).
            Some(Some((pi, n))) => (pi as usize, n),
            Some(None) => return NewName::No,
            None => {
                let Some((p, n)) = split_with(b, w) else {
                    return NewName::No;
                };
                let Some(pi) = self.prefix_index(p) else {
                    return NewName::No;
                };
                (pi, n)
            }
        };
        let n = n as usize;
        // `dense` never outgrows `dense_cap`; a number past its length makes it grow (general
        // path).
        if pi >= NUMBERED as usize || n >= self.dense.len() {
            return NewName::No;
        }
        let generation = self.generation;
        let pw = pi as u16;
        let e = &mut self.dense[n];
        let w = if e.generation != generation {
            *e = Dense {
                generation,
                ..EMPTY_DENSE
            };
            0
        } else if e.prefix[0] == NO_WAY {
            0
        } else if e.prefix[0] == pw || e.prefix[1] == pw {
            let v = e.val[(e.prefix[0] != pw) as usize];
            if v == IN_OTHER {
                return NewName::No;
            }
            return NewName::Has(v, (pi as u32, n as u32));
        } else if e.prefix[1] == NO_WAY {
            1
        } else {
            // Both ways taken by other prefixes: the prefix's own vector, as `insert_third`
            // places it when the vector already reaches the number (a third counter's names,
            // `%c7` after `%b7:` and `%v7`).
            let Some(t) = self.third.get_mut(pi).and_then(|v| v.get_mut(n)) else {
                return NewName::No;
            };
            if t.0 == generation {
                if t.1 == IN_OTHER {
                    return NewName::No;
                }
                return NewName::Has(t.1, (pi as u32, n as u32));
            }
            *t = (generation, val);
            self.last_split = Some((pi as u32, n as u32));
            return NewName::Entered;
        };
        e.prefix[w] = pw;
        e.val[w] = val;
        self.last_split = Some((pi as u32, n as u32));
        NewName::Entered
    }

    /// The local `key` names if it has one (the map unchanged), else inserts `local` for it and
    /// returns `None`: [`LocalMap::get`] and [`LocalMap::insert`] in one probe, for block names,
    /// which are entered at their first sight, reference or label (see `Parser::block_names`).
    /// After a cache hit the last split is unknown ([`LocalMap::last_sym`] is `None`).
    #[inline(always)]
    pub(super) fn get_or_insert(&mut self, key: LocalKey<'s>, local: Local) -> Option<Local> {
        if let LocalKey::Src(s) = key
            && let Some((words, i)) = self.cache_key(s.as_bytes())
        {
            let tag = self.generation << 8 | s.len() as u32;
            let e = &self.cache[i];
            if e.tag == tag && e.words == words {
                self.last_split = None;
                return Some(unpack(e.val));
            }
            let known = self.known_split(i, words, s.len());
            if self.insert_new_dense(s.as_bytes(), words[0], local, known) == NewName::Entered {
                // Packable: `insert_new_dense` packed it.
                self.cache[i] = CacheEntry {
                    words,
                    tag,
                    val: pack(local).unwrap_or(IN_OTHER),
                    split: pack_split(self.last_split),
                };
                return None;
            }
            let prev = self.insert_uncached::<true>(key, local, words[0], known);
            self.cache[i] = match pack(prev.unwrap_or(local)) {
                Some(val) => CacheEntry {
                    words,
                    tag,
                    val,
                    split: pack_split(self.last_split),
                },
                None => EMPTY_CACHE,
            };
            return prev;
        }
        self.insert_uncached::<true>(key, local, 0, None)
    }

    /// The split of the last insert's name (see [`LocalMap::last_sym`]), to be restored with
    /// [`LocalMap::set_last_split`] when the same name is defined after a lookup that did not
    /// split it.
    #[inline]
    pub(super) fn last_split(&self) -> Option<(u32, u32)> {
        self.last_split
    }

    /// Makes `split` (from [`LocalMap::last_split`]) the last insert's split.
    #[inline]
    pub(super) fn set_last_split(&mut self, split: Option<(u32, u32)>) {
        self.last_split = split;
    }

    /// [`LocalMap::insert`] into the structures behind the cache; with `KEEP`, a key that has a
    /// local keeps it (and it is returned), as [`LocalMap::get_or_insert`] needs. `word` is the
    /// name's first word as [`LocalMap::cache_key`] gives it (only read for a name of at most 8
    /// bytes, whose cache key is always computed; 0 for the empty name).
    fn insert_uncached<const KEEP: bool>(
        &mut self,
        key: LocalKey<'s>,
        local: Local,
        word: u64,
        known: KnownSplit,
    ) -> Option<Local> {
        self.insert_uncached_inline::<KEEP>(key, local, word, known)
    }

    /// [`LocalMap::insert_uncached`], inlined into [`LocalMap::insert`] (a result name's
    /// definition, the commonest insert).
    #[inline(always)]
    fn insert_uncached_inline<const KEEP: bool>(
        &mut self,
        key: LocalKey<'s>,
        local: Local,
        word: u64,
        known: KnownSplit,
    ) -> Option<Local> {
        self.last_split = None;
        let numbered = match key {
            LocalKey::Num(n) => Some((NUMBERED, n)),
            LocalKey::Src(s) if s.len() <= MAX_LONG => {
                let split = match known {
                    Some(split) => split,
                    None => split_with(s.as_bytes(), word)
                        .map(|(p, n)| (self.prefix_or_insert(p) as u32, n)),
                };
                match split {
                    Some((pi, n)) => {
                        self.last_split = Some((pi, n));
                        Some((way_prefix(pi as usize), n))
                    }
                    None => None,
                }
            }
            _ => None,
        };
        if let Some((pi, n)) = numbered
            && pi < NO_WAY as u32
            && (n as usize) < self.dense_cap
            && let Some(prev) = self.insert_dense::<KEEP>(key, pi as u16, n as usize, local)
        {
            return prev;
        }
        match key {
            LocalKey::Src(s) if s.len() <= MAX_LONG => {
                let (i, found) = self.find(s.as_bytes());
                if KEEP && found {
                    let slot = self.slots[i];
                    return if slot.tag & 0xff == LONG {
                        Some(self.long[slot.val as usize].1)
                    } else if slot.val == IN_OTHER {
                        self.other.get(&key).copied()
                    } else {
                        Some(unpack(slot.val))
                    };
                }
                // A local whose index does not fit the packed form (never in practice) lives in
                // the fallback map, its slot marked [`IN_OTHER`].
                let val = pack(local).unwrap_or(IN_OTHER);
                if val == IN_OTHER {
                    self.other.insert(key, local);
                }
                if found {
                    let slot = self.slots[i];
                    if slot.tag & 0xff == LONG {
                        return Some(std::mem::replace(
                            &mut self.long[slot.val as usize].1,
                            local,
                        ));
                    }
                    self.slots[i].val = val;
                    return Some(if slot.val == IN_OTHER {
                        if val == IN_OTHER {
                            // Replaced above; the previous value is not kept (never happens).
                            local
                        } else {
                            self.other.remove(&key).unwrap_or(local)
                        }
                    } else {
                        unpack(slot.val)
                    });
                }
                let b = s.as_bytes();
                self.slots[i] = if b.len() <= INLINE {
                    Slot {
                        word: short_word(b),
                        tag: self.generation << 8 | b.len() as u32,
                        val,
                    }
                } else {
                    self.long.push((s, local));
                    Slot {
                        word: hash_long(b),
                        tag: self.generation << 8 | LONG,
                        val: self.long.len() as u32 - 1,
                    }
                };
                self.len += 1;
                if self.len * 2 > self.slots.len() {
                    self.grow();
                }
                None
            }
            _ if KEEP => match self.other.get(&key) {
                Some(&l) => Some(l),
                None => self.other.insert(key, local),
            },
            _ => self.other.insert(key, local),
        }
    }

    /// The dense part of [`LocalMap::insert`] for a key of prefix `pi` and number `n` below the
    /// cap: `Some(previous entry)` if the key went to a way of its dense entry, `None` if both
    /// ways are current with other prefixes (the key goes to the table).
    #[inline]
    fn insert_dense<const KEEP: bool>(
        &mut self,
        key: LocalKey<'s>,
        pi: u16,
        n: usize,
        local: Local,
    ) -> Option<Option<Local>> {
        if n >= self.dense.len() {
            let mut want = (n + 1)
                .max(2 * self.dense.len())
                .max(64)
                .min(self.dense_cap);
            // Doubling stops at a reservation (`reserve_numbers`) that holds the number.
            if n < self.dense.capacity() {
                want = want.min(self.dense.capacity());
            }
            self.dense.resize(want, EMPTY_DENSE);
        }
        let generation = self.generation;
        let e = &mut self.dense[n];
        if e.generation != generation {
            *e = Dense {
                generation,
                ..EMPTY_DENSE
            };
        }
        let (w, current) = if e.prefix[0] == pi {
            (0, true)
        } else if e.prefix[0] == NO_WAY {
            (0, false)
        } else if e.prefix[1] == pi {
            (1, true)
        } else if e.prefix[1] == NO_WAY {
            (1, false)
        } else {
            return self.insert_third::<KEEP>(key, pi as usize, n, local);
        };
        let old = e.val[w];
        if KEEP && current {
            return Some(if old == IN_OTHER {
                self.other.get(&key).copied()
            } else {
                Some(unpack(old))
            });
        }
        let val = pack(local).unwrap_or(IN_OTHER);
        e.prefix[w] = pi;
        e.val[w] = val;
        Some(self.replaced(key, current.then_some(old), val, local))
    }

    /// The local that `key` had (`old`: its packed value, if it had one), now that its slot holds
    /// `val` for `local`; the table keeps the locals too big to pack.
    #[inline(always)]
    fn replaced(
        &mut self,
        key: LocalKey<'s>,
        old: Option<u32>,
        val: u32,
        local: Local,
    ) -> Option<Local> {
        let prev = match old {
            None => None,
            Some(IN_OTHER) => self.other.remove(&key),
            Some(old) => Some(unpack(old)),
        };
        if val == IN_OTHER {
            self.other.insert(key, local);
        }
        prev
    }

    /// [`LocalMap::insert_dense`] for a key whose number's ways are taken by other prefixes: its
    /// prefix's own vector, grown while the budget allows; `None` if the number is past it (the
    /// key goes to the table, and stays there: a growth that failed for it needed more than the
    /// budget left then, and the budget only shrinks by what the vectors grow).
    fn insert_third<const KEEP: bool>(
        &mut self,
        key: LocalKey<'s>,
        pi: usize,
        n: usize,
        local: Local,
    ) -> Option<Option<Local>> {
        if self.third.len() <= pi {
            self.third.resize_with(pi + 1, Vec::new);
        }
        let v = &mut self.third[pi];
        let have = v.len();
        if n >= have && n + 1 - have <= self.third_budget {
            let want = (n + 1).max(2 * have).max(64).min(have + self.third_budget);
            self.third_budget -= want - have;
            v.resize(want, (0, 0));
        }
        let e = v.get_mut(n)?;
        if KEEP && e.0 == self.generation {
            let old = e.1;
            return Some(if old == IN_OTHER {
                self.other.get(&key).copied()
            } else {
                Some(unpack(old))
            });
        }
        let val = pack(local).unwrap_or(IN_OTHER);
        let (g, old) = std::mem::replace(e, (self.generation, val));
        let generation = self.generation;
        Some(self.replaced(key, (g == generation).then_some(old), val, local))
    }

    /// How many numbers the number-indexed vector covers (at least the largest number this
    /// function inserted into it, at most twice that or, after a small function, the previous
    /// functions' reach: an estimate only).
    pub(super) fn numbers_len(&self) -> usize {
        self.dense.len()
    }

    /// Reserves room for `extra` more numbers in the number-indexed vector (within its cap), so
    /// that a huge body's numbers do not copy it at every doubling: it grows in place up to the
    /// reservation.
    pub(super) fn reserve_numbers(&mut self, extra: usize) {
        let room = self.dense_cap.saturating_sub(self.dense.len());
        crate::ir::make_room(&mut self.dense, extra.min(room));
    }

    /// The interned name of the key of the last `insert`, if known (see [`LocalMap::syms`]).
    #[inline]
    pub(super) fn last_sym(&self) -> Option<Sym> {
        let (pi, n) = self.last_split?;
        let sym = *self.syms.get(pi as usize)?.get(n as usize)?;
        (sym != NO_SYM).then_some(Sym(sym))
    }

    /// Records the interned name of the key of the last `insert`.
    #[inline]
    pub(super) fn remember_last_sym(&mut self, sym: Sym) {
        if let Some((pi, n)) = self.last_split {
            self.put_sym(pi as usize, n as usize, sym);
        }
    }

    /// Records the interned name of the name whose split (see [`LocalMap::last_split`]) is
    /// `split`, if it is a numbered name.
    #[inline]
    pub(super) fn remember_split_sym(&mut self, split: Split, sym: Sym) {
        if let Some((pi, n)) = split {
            self.put_sym(pi as usize, n as usize, sym);
        }
    }

    /// Records the interned name of `s`, if it is a numbered name (the tests' reference for
    /// [`LocalMap::remember_split_sym`]).
    #[cfg(test)]
    pub(super) fn remember_sym(&mut self, s: &str, sym: Sym) {
        if let Some((p, n)) = self.split(s)
            && let Some(pi) = self.prefix_index(p)
        {
            self.put_sym(pi, n as usize, sym);
        }
    }

    /// `syms[pi][n] = sym`, growing the vector while the budget allows.
    #[inline(never)]
    fn put_sym(&mut self, pi: usize, n: usize, sym: Sym) {
        if self.syms.len() <= pi {
            self.syms.resize_with(self.prefixes.len(), Vec::new);
        }
        let v = &mut self.syms[pi];
        let have = v.len();
        if n >= have && n + 1 - have <= self.sym_budget {
            let want = (n + 1).max(2 * have).max(64).min(have + self.sym_budget);
            self.sym_budget -= want - have;
            v.resize(want, NO_SYM);
        }
        if let Some(e) = v.get_mut(n) {
            *e = sym.0;
        }
    }

    #[inline]
    fn prefix_hash(p: &[u8]) -> usize {
        mix(short_word(p) ^ 0x5bd1_e995, p.len()) as usize
    }

    /// The index of prefix `p` (at most 8 bytes) in `prefixes`.
    #[inline]
    fn prefix_index(&self, p: &[u8]) -> Option<usize> {
        if let [c] = p {
            // One-letter prefixes (`%v12`, `%b3`) without hashing.
            return (self.single[*c as usize] as usize).checked_sub(1);
        }
        self.prefix_index_hashed(p)
    }

    /// [`LocalMap::prefix_index`] of a prefix that is not one letter: out of line, so that the
    /// one-letter case stays small where it is inlined.
    #[inline(never)]
    fn prefix_index_hashed(&self, p: &[u8]) -> Option<usize> {
        let w = short_word(p);
        let mask = self.prefix_slots.len() - 1;
        let mut i = Self::prefix_hash(p) & mask;
        loop {
            let k = self.prefix_slots[i] as usize;
            if k == 0 {
                return None;
            }
            let e = &self.prefixes[k - 1];
            if e.word == w && e.len as usize == p.len() {
                return Some(k - 1);
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    fn prefix_or_insert(&mut self, p: &[u8]) -> usize {
        match self.prefix_index(p) {
            Some(i) => i,
            None => self.insert_prefix(p),
        }
    }

    /// Adds a prefix not seen before and returns its index.
    #[inline(never)]
    fn insert_prefix(&mut self, p: &[u8]) -> usize {
        self.prefixes.push(Prefix {
            word: short_word(p),
            len: p.len() as u32,
        });
        if self.prefixes.len() * 2 > self.prefix_slots.len() {
            let n = self.prefix_slots.len() * 2;
            self.prefix_slots = vec![0; n];
            for k in 0..self.prefixes.len() - 1 {
                self.place_prefix(k);
            }
        }
        let k = self.prefixes.len() - 1;
        self.place_prefix(k);
        if let [c] = p {
            self.single[*c as usize] = k as u32 + 1;
        }
        k
    }

    fn place_prefix(&mut self, k: usize) {
        let e = &self.prefixes[k];
        let mask = self.prefix_slots.len() - 1;
        // The hash from the stored word: `short_word` of the prefix bytes is the word itself.
        let mut i = mix(e.word ^ 0x5bd1_e995, e.len as usize) as usize & mask;
        while self.prefix_slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.prefix_slots[i] = k as u32 + 1;
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; n]);
        let generation = self.generation;
        let mask = n - 1;
        for s in old.into_iter().filter(|s| s.tag >> 8 == generation) {
            let len = (s.tag & 0xff) as usize;
            let h = if len as u32 == LONG {
                s.word
            } else {
                mix(s.word, len)
            };
            let mut i = h as usize & mask;
            while self.slots[i].tag >> 8 == generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache key of a name read at its offsets is the one of the name's slice, for every
    /// name of 0 to 17 bytes at every offset of a text (so also the last bytes, where the 8-byte
    /// load does not fit), and none for a quoted name: a lookup by offsets finds exactly the
    /// entries that `insert` and `get_or_insert` (keyed by slices) wrote.
    #[test]
    fn cache_key_at_offsets_is_the_slices() {
        let text = b"%v1 = phi i32 [ 0, %b0 ], [ %\"q x\", %for.body.loop.latch12 ]\n%x";
        let m = LocalMap::new(text);
        let mut compared = 0;
        for s in 0..=text.len() {
            for e in s..=(s + 17).min(text.len()) {
                let by_slice = m.cache_key(&text[s..e]);
                let by_offsets = m.cache_key_at(s, e);
                if text.get(s) == Some(&b'"') {
                    assert_eq!(by_offsets, None, "{s}..{e}");
                } else {
                    assert_eq!(by_offsets, by_slice, "{s}..{e}");
                    compared += by_slice.is_some() as usize;
                }
            }
            assert_eq!(m.cache_key_at(s, s.wrapping_sub(1)), None);
        }
        assert!(compared > 800, "{compared}");
        assert_eq!(m.cache_key_at(text.len() - 1, text.len() + 1), None);
    }

    #[test]
    fn insert_get_clear_and_growth() {
        let mut names: Vec<String> = (0..5000).map(|i| format!("value.name{i}")).collect();
        // Short (inline) names of every length, and one too long for the table.
        names.extend((0..3000).map(|i| format!("v{i}")));
        names.extend(
            [
                "",
                "a",
                "ab",
                "abc",
                "abcd",
                "abcde",
                "abcdefgh",
                "abcdefghi",
            ]
            .map(String::from),
        );
        names.push("x".repeat(300));
        let mut m = LocalMap::new(b"");
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
            assert!(matches!(
                m.insert(LocalKey::Src(&names[5007]), Local::Block(2)),
                Some(Local::Inst(x)) if x == 5007 + round
            ));
            for (i, n) in names.iter().enumerate() {
                let want = match i {
                    7 => Local::Block(1),
                    5007 => Local::Block(2),
                    _ => Local::Inst(i as u32 + round),
                };
                assert_eq!(
                    format!("{:?}", m.get(&LocalKey::Src(n))),
                    format!("{:?}", Some(want)),
                    "{n}"
                );
                assert!(
                    matches!(m.get(&LocalKey::Num(i as u32)), Some(Local::Arg(x)) if x == i as u32)
                );
            }
            assert!(m.get(&LocalKey::Src("value.name5000")).is_none());
            assert!(m.get(&LocalKey::Src("value.nameX")).is_none());
            assert!(m.get(&LocalKey::Src("v3000")).is_none());
            assert!(m.get(&LocalKey::Src("abcdefg")).is_none());
            assert!(m.get(&LocalKey::Src("abd")).is_none());
            assert!(m.get(&LocalKey::Num(names.len() as u32)).is_none());
            assert!(
                m.insert(LocalKey::Num(m.dense_cap as u32 + 3), Local::Arg(9))
                    .is_none()
            );
            assert!(matches!(
                m.get(&LocalKey::Num(m.dense_cap as u32 + 3)),
                Some(Local::Arg(9))
            ));
            // A local whose index does not fit the packed form.
            assert!(
                m.insert(LocalKey::Src("huge"), Local::Inst(u32::MAX - 1))
                    .is_none()
            );
            assert!(matches!(
                m.get(&LocalKey::Src("huge")),
                Some(Local::Inst(x)) if x == u32::MAX - 1
            ));
        }
        m.clear();
        assert!(m.get(&LocalKey::Src(&names[1])).is_none());
        assert!(m.get(&LocalKey::Src("v1")).is_none());
        assert!(m.get(&LocalKey::Src("huge")).is_none());
        assert!(m.get(&LocalKey::Num(1)).is_none());
        assert!(m.get(&LocalKey::Num(m.dense_cap as u32 + 3)).is_none());
    }

    /// Numbered names past the dense cap go to the table and are still found; names that only
    /// look numbered (leading zeros, long prefixes) stay distinct; names whose number another
    /// prefix holds go to the table.
    #[test]
    fn dense_cap_and_collisions() {
        let mut m = LocalMap::new(b"");
        let cap = m.dense_cap as u32;
        let mut names: Vec<String> = (0..cap + 5000).map(|i| format!("v{i}")).collect();
        names.extend((0..100).map(|i| format!("b{}", i * 1000)));
        // Third and fourth names of a number: prefix vectors until their budget runs out.
        names.extend((0..100).map(|i| format!("c{}", i * 1000)));
        names.extend((0..100).map(|i| format!("d{}", i * 1000)));
        names.extend(
            [
                "v01",
                "v001",
                "0",
                "7",
                "07",
                "prefix.long12",
                "w9999999",
                "w10000000",
            ]
            .map(String::from),
        );
        for round in 0..2u32 {
            m.clear();
            for (i, n) in names.iter().enumerate() {
                assert!(
                    m.insert(LocalKey::Src(n), Local::Block(i as u32 + round))
                        .is_none(),
                    "{n}"
                );
            }
            for (i, n) in names.iter().enumerate() {
                assert!(
                    matches!(m.get(&LocalKey::Src(n)), Some(Local::Block(x)) if x == i as u32 + round),
                    "{n}"
                );
            }
            assert!(m.get(&LocalKey::Src("v00")).is_none());
            assert!(m.get(&LocalKey::Src("b1")).is_none());
            assert!(m.get(&LocalKey::Src("c1")).is_none());
            assert!(m.get(&LocalKey::Num(3)).is_none());
            assert!(matches!(
                m.insert(LocalKey::Src("v3"), Local::Arg(1)),
                Some(Local::Block(x)) if x == 3 + round
            ));
            assert!(matches!(m.get(&LocalKey::Src("v3")), Some(Local::Arg(1))));
        }
        assert_eq!(m.dense.len(), cap as usize);
        assert_eq!(m.third_budget, 0);
    }

    /// A result name's definition by offsets ([`LocalMap::insert_new_at`], falling back to
    /// [`LocalMap::insert`] where it declines, as `Parser::parse_inst` does) leaves the map as
    /// the general [`LocalMap::insert`] alone does (the unoptimised path): the same previous
    /// entries, the same split, the same answers to every later lookup; on names of up to five
    /// prefixes sharing numbers (a number's third and later names go to their prefix's own
    /// vector), redefinitions, block names entered first, and functions (clears) in between.
    #[test]
    fn insert_new_at_places_names_as_insert() {
        let prefixes = ["b", "v", "c", "x", "arrayidx"];
        let mut text = String::new();
        let mut names: Vec<(usize, usize)> = Vec::new();
        for n in 0..300 {
            for p in prefixes {
                let s = text.len();
                text.push_str(&format!("{p}{n}"));
                names.push((s, text.len()));
                text.push(' ');
            }
        }
        let src: &'static [u8] = Box::leak(text.into_bytes().into_boxed_slice());
        let key =
            |(s, e): (usize, usize)| LocalKey::Src(std::str::from_utf8(&src[s..e]).expect("ascii"));
        let mut fast = LocalMap::new(src);
        let mut slow = LocalMap::new(src);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |k: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % k
        };
        let (mut taken, mut third) = (0, 0);
        for func in 0..40 {
            fast.clear();
            slow.clear();
            // Small caches in some functions: the lookups behind the cache.
            let mask = if func % 2 == 0 { CACHE_SIZE - 1 } else { 7 };
            fast.cache_mask = mask;
            slow.cache_mask = mask;
            let reach = [30, 300][func % 2] as u64;
            for step in 0..800u32 {
                let k = names[(next(reach) as usize) * prefixes.len() + next(5) as usize];
                if next(4) == 0 {
                    // A block name's first sight or reference.
                    let l = Local::Block(step);
                    assert_eq!(
                        format!("{:?}", fast.get_or_insert(key(k), l)),
                        format!("{:?}", slow.get_or_insert(key(k), l))
                    );
                    continue;
                }
                let l = Local::Inst(step);
                let want = slow.insert(key(k), l);
                let got = if fast.insert_new_at(k.0, k.1, l) {
                    taken += 1;
                    // Entered in neither way of its number's dense entry: its prefix's own vector.
                    let (pi, n) = fast.last_split().expect("a numbered name");
                    third += !fast.dense[n as usize].prefix.contains(&(pi as u16)) as usize;
                    None
                } else {
                    fast.insert(key(k), l)
                };
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "{:?}", key(k));
                assert_eq!(fast.last_split(), slow.last_split(), "{:?}", key(k));
            }
            for &k in &names[..(reach as usize) * prefixes.len()] {
                assert_eq!(
                    format!("{:?}", fast.get(&key(k))),
                    format!("{:?}", slow.get(&key(k))),
                    "{:?}",
                    key(k)
                );
            }
        }
        assert!(taken > 5000 && third > 1000, "{taken} taken, {third}");
    }

    /// Random inserts and lookups against a plain map, over functions (clears) whose names share
    /// one counter across prefixes the way clang's do (`%arrayidx10`, `%11`, `%old12`), with
    /// several names per number, quoted-style digit names (`"5"` next to `%5`), numbers reused
    /// with another prefix in the next function, and numbers past the cap. Also the cached
    /// symbols: `last_sym` is never the symbol of another name.
    #[test]
    fn shared_numbers_match_a_plain_map() {
        use std::collections::HashMap;
        let prefixes = [
            "", "a", "arrayidx", "old", "if.then", "x.y", "idxprom9", "v0",
        ];
        let mut m = LocalMap::new(b"");
        let cap = m.dense_cap as u32;
        let mut syms: HashMap<String, u32> = HashMap::new();
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = move |k: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % k
        };
        let (mut dense_hits, mut table_hits, mut or_inserts) = (0, 0, 0);
        let (mut probed, mut absent) = (0, 0);
        for func in 0..60 {
            m.clear();
            // Two functions in three with a cache of four entries: lookups behind it.
            m.cache_mask = if func % 3 == 0 { CACHE_SIZE - 1 } else { 3 };
            let mut want: HashMap<&str, Local> = HashMap::new();
            let range = [40, 400, 4000][next(3) as usize] as u64;
            for step in 0..600u32 {
                let n = match next(20) {
                    0 => cap as u64 + next(50),
                    _ => next(range),
                };
                // `#n` stands for the unnamed `%n` (`LocalKey::Num`).
                let name = match next(10) {
                    0 => format!("#{n}"),
                    _ => format!("{}{n}", prefixes[next(prefixes.len() as u64) as usize]),
                };
                // Keys borrow the source for the map's lifetime.
                let name: &'static str = Box::leak(name.into_boxed_str());
                let key = match name.strip_prefix('#') {
                    Some(d) => LocalKey::Num(d.parse().unwrap()),
                    None => LocalKey::Src(name),
                };
                if next(3) == 0 {
                    let local = Local::Inst(step);
                    let prev = m.insert(key, local);
                    let prev_want = want.insert(name, local);
                    assert_eq!(format!("{prev:?}"), format!("{prev_want:?}"), "{name}");
                    if let LocalKey::Src(s) = key {
                        // The split, whether computed or taken from a (stale) cache entry, is
                        // the name's.
                        let fresh = m
                            .split(s)
                            .and_then(|(p, n)| Some((m.prefix_index(p)? as u32, n)));
                        assert_eq!(m.last_split(), fresh, "split of {s}");
                        if m.dense.get(n as usize).is_some_and(|e| {
                            e.generation == m.generation && e.val.contains(&pack(local).unwrap())
                        }) {
                            dense_hits += 1;
                        } else {
                            table_hits += 1;
                        }
                        let sym = *syms.get(s).unwrap_or(&(syms.len() as u32));
                        if let Some(got) = m.last_sym() {
                            assert_eq!(got.0, sym, "cached symbol of {s}");
                        } else {
                            syms.insert(s.to_string(), sym);
                            match next(3) {
                                0 => m.remember_last_sym(Sym(sym)),
                                1 => m.remember_sym(s, Sym(sym)),
                                // The split kept at the definition (`Parser::name_insts`).
                                _ => m.remember_split_sym(m.last_split(), Sym(sym)),
                            }
                        }
                    }
                } else if next(4) == 0 {
                    // Entered at first sight: the map keeps a local it has.
                    let local = Local::Block(step);
                    let got = m.get_or_insert(key, local);
                    assert_eq!(
                        format!("{got:?}"),
                        format!("{:?}", want.get(name)),
                        "{name}"
                    );
                    want.entry(name).or_insert(local);
                    or_inserts += got.is_none() as u32;
                } else {
                    let got = m.get(&key);
                    assert_eq!(
                        format!("{got:?}"),
                        format!("{:?}", want.get(name)),
                        "{name}"
                    );
                    // The lookup by offsets behind the cache agrees where it decides.
                    if let LocalKey::Src(s) = key {
                        match m.probe(s) {
                            Probe::Found(v) => {
                                probed += 1;
                                assert_eq!(format!("{:?}", Some(unpack(v))), format!("{got:?}"));
                            }
                            Probe::Cached(v) => {
                                assert_eq!(format!("{:?}", Some(unpack(v))), format!("{got:?}"));
                            }
                            Probe::Absent => {
                                absent += 1;
                                assert!(got.is_none(), "{name}");
                            }
                            Probe::Unknown => {}
                        }
                    }
                }
            }
        }
        assert!(or_inserts > 1000, "{or_inserts}");
        assert!(probed > 1000 && absent > 1000, "{probed} {absent}");
        let reused = m.splits_reused.get();
        assert!(reused > 1000, "splits taken from the cache: {reused}");
        assert!(
            dense_hits > 1000 && table_hits > 1000,
            "{dense_hits} {table_hits}"
        );
    }

    /// More prefixes than the dense entries' 16-bit prefix field holds: the later ones use the
    /// table, the unnamed values keep theirs, and nothing is confused with them.
    #[test]
    fn prefixes_past_the_way_field() {
        let letters = |mut k: usize| {
            let mut p = String::new();
            loop {
                p.push((b'a' + (k % 26) as u8) as char);
                k /= 26;
                if k == 0 {
                    break p;
                }
            }
        };
        let names: Vec<&'static str> = (0..70_000)
            .map(|k| &*Box::leak(format!("{}{}", letters(k), k % 5).into_boxed_str()))
            .collect();
        let mut m = LocalMap::new(b"");
        for round in 0..2u32 {
            m.clear();
            for n in 0..5 {
                assert!(m.insert(LocalKey::Num(n), Local::Arg(n + round)).is_none());
            }
            for (i, n) in names.iter().enumerate() {
                assert!(
                    m.insert(LocalKey::Src(n), Local::Inst(i as u32)).is_none(),
                    "{n}"
                );
            }
            for (i, n) in names.iter().enumerate() {
                assert!(matches!(m.get(&LocalKey::Src(n)), Some(Local::Inst(x)) if x == i as u32));
            }
            for n in 0..5 {
                assert!(matches!(m.get(&LocalKey::Num(n)), Some(Local::Arg(x)) if x == n + round));
            }
        }
        assert!(m.prefixes.len() > NUMBERED as usize + 1);
    }

    /// The word-parallel split agrees with the plain loop on every short string over an alphabet
    /// of digits, letters, `.` and a non-ASCII byte.
    #[test]
    fn split_short_matches_loop() {
        let alphabet = [b'0', b'1', b'5', b'9', b'/', b':', b'a', b'.', 0xc3];
        let mut buf = Vec::new();
        let mut count = 0;
        for n in 0..=8usize {
            // Every string of length n up to 6; for 7 and 8 a stride through the space.
            let total = alphabet.len().pow(n as u32);
            let step = if n <= 5 { 1 } else { 7 };
            let mut code = 0;
            while code < total {
                buf.clear();
                let mut c = code;
                for _ in 0..n {
                    buf.push(alphabet[c % alphabet.len()]);
                    c /= alphabet.len();
                }
                assert_eq!(split_short(&buf), split_loop(&buf), "{buf:?}");
                count += 1;
                code += step;
            }
        }
        assert!(count > 100_000);
        assert_eq!(split_short(b"v1234567"), Some((&b"v"[..], 1234567)));
        assert_eq!(split_short(b"12345678"), None);
        assert_eq!(split_short(b"0"), Some((&b""[..], 0)));
    }

    /// The loop-free split of long names agrees with the plain loop.
    #[test]
    fn split_long_matches_loop() {
        let alphabet = [b'0', b'1', b'9', b'.', b'a', 0xc3];
        let mut count = 0;
        for n in 9..=17usize {
            for seed in 0..4000u64 {
                let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ n as u64;
                let mut buf: Vec<u8> = (0..n)
                    .map(|_| {
                        x = x.rotate_left(7).wrapping_mul(0x2545_f491_4f6c_dd1d);
                        alphabet[(x >> 40) as usize % alphabet.len()]
                    })
                    .collect();
                // Mostly digits at the end, of every count.
                let d = (seed % 10) as usize;
                for c in buf.iter_mut().rev().take(d) {
                    *c = b'0' + (seed % 7) as u8 + 1;
                }
                assert_eq!(split_long(&buf), split_loop(&buf), "{buf:?}");
                count += 1;
            }
        }
        assert!(count > 30_000);
        assert_eq!(split_long(b"arrayidx10"), Some((&b"arrayidx"[..], 10)));
        assert_eq!(split_long(b"arrayidxx10"), None);
        assert_eq!(split_long(b"v123456789"), None);
        assert_eq!(split_long(b"acc.next012"), None);
    }

    /// Names that are slices of the source are read with a masked 8-byte load, also near its end.
    #[test]
    fn source_slices_read_as_words() {
        let src = "%v12 = add %b3, %x99\n%v7";
        let m = LocalMap::new(src.as_bytes());
        for a in 0..src.len() {
            for e in a..=(a + 8).min(src.len()) {
                let b = &src.as_bytes()[a..e];
                assert_eq!(m.word_of(b), exact_word(b), "{a}..{e}");
            }
        }
        let mut m = LocalMap::new(src.as_bytes());
        let names = [&src[1..4], &src[12..14], &src[17..20], &src[22..24]];
        for (i, n) in names.iter().enumerate() {
            assert!(m.insert(LocalKey::Src(n), Local::Inst(i as u32)).is_none());
        }
        for (i, n) in names.iter().enumerate() {
            assert!(matches!(m.get(&LocalKey::Src(n)), Some(Local::Inst(x)) if x == i as u32));
            // The same text from elsewhere finds the same entry.
            let copy = n.to_string();
            assert!(matches!(m.get(&LocalKey::Src(&copy)), Some(Local::Inst(x)) if x == i as u32));
        }
    }

    #[test]
    fn generation_wraps() {
        let mut m = LocalMap::new(b"");
        m.generation = (1 << 24) - 2;
        m.insert(LocalKey::Src("a"), Local::Arg(1));
        m.clear();
        assert!(m.get(&LocalKey::Src("a")).is_none());
        m.insert(LocalKey::Src("b"), Local::Arg(2));
        m.clear();
        assert_eq!(m.generation, 1);
        assert!(m.get(&LocalKey::Src("a")).is_none());
        assert!(m.get(&LocalKey::Src("b")).is_none());
    }

    #[test]
    fn short_words_identify_short_strings() {
        let words = [
            "", "a", "b", "ab", "ba", "abc", "acc", "abcd", "abce", "abcdefg", "abcdefgh",
        ];
        for x in words {
            for y in words {
                let same_key =
                    x.len() == y.len() && short_word(x.as_bytes()) == short_word(y.as_bytes());
                assert_eq!(same_key, x == y, "{x} {y}");
            }
        }
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
