//! Range minimum by a sparse table (the textbook structure of Bender and Farach-Colton, "The LCA
//! Problem Revisited"): built in O(n log n) into a reused vector, then every position of a range
//! whose key is below a bound is listed in time proportional to the answer. Two analyses use it:
//! the escape index of the exit sweeps (`temporal.rs`) and the edges leaving a cycle
//! (`structure.rs`).
//!
//! An entry packs a key and its position as `key << 32 | position`, so the smallest entry of a
//! window is its smallest key at its first position: a level is the element-wise minimum of two
//! shifted copies of the level below (no indirection through the keys, and the compiler can
//! vectorise it), and a query compares two entries directly.

/// Fills `table` with the packed sparse table over `keys`: level k holds, at stride
/// `keys.len()`, the smallest key of each window of 2^k positions with its first position.
pub(crate) fn build(keys: &[u32], table: &mut Vec<u64>) {
    let n = keys.len();
    let levels = (usize::BITS - n.leading_zeros()) as usize;
    // The table gets its final size at once: growing it level by level reallocated and copied
    // it about twice and filled each new level with zeros before overwriting it (both move
    // bytes one `rep` step at a time). A reused buffer keeps its stale contents: every entry
    // read is overwritten below, and the padding of each level to the stride is never read.
    if table.capacity() < levels * n {
        *table = vec![0; levels * n];
    } else {
        table.resize(levels * n, 0);
    }
    for ((out, i), &k) in table[..n].iter_mut().zip(0u64..).zip(keys) {
        *out = (k as u64) << 32 | i;
    }
    for k in 1..levels {
        let half = 1usize << (k - 1);
        let m = n + 1 - (1 << k);
        let (below, level) = table.split_at_mut(k * n);
        let prev = &below[(k - 1) * n..];
        for ((out, &a), &b) in level[..m]
            .iter_mut()
            .zip(&prev[..m])
            .zip(&prev[half..half + m])
        {
            *out = a.min(b);
        }
    }
}

/// Appends to `out` (unordered) every position in `lo..hi` whose key is below `bound`; `keys`
/// are the keys `table` was built from.
pub(crate) fn below(keys: &[u32], table: &[u64], lo: u32, hi: u32, bound: u32, out: &mut Vec<u32>) {
    if lo >= hi {
        return;
    }
    let n = keys.len();
    let min = |lo: usize, hi: usize| {
        let k = (usize::BITS - 1 - (hi - lo + 1).leading_zeros()) as usize;
        table[k * n + lo].min(table[k * n + hi + 1 - (1 << k)])
    };
    // Continuing with the smaller part and stacking the larger one bounds the stack by
    // log2(positions) + 1 < 64 entries, so it needs no allocation.
    let mut stack = [(0u32, 0u32); 64];
    let mut top = 0;
    let (mut a, mut b) = (lo, hi);
    loop {
        let v = min(a as usize, b as usize - 1);
        let mut next = None;
        if ((v >> 32) as u32) < bound {
            let i = v as u32;
            out.push(i);
            let (left, right) = ((a, i), (i + 1, b));
            let (small, large) = if i - a < b - i {
                (left, right)
            } else {
                (right, left)
            };
            if large.0 < large.1 {
                if small.0 < small.1 {
                    stack[top] = large;
                    top += 1;
                    next = Some(small);
                } else {
                    next = Some(large);
                }
            }
        }
        match next {
            Some(r) => (a, b) = r,
            None if top > 0 => {
                top -= 1;
                (a, b) = stack[top];
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every range of several key sequences (ties included) against a direct scan, in the
    /// order `below` lists them after sorting; the table buffer is reused across sizes, growing
    /// and shrinking (stale entries of a larger table must never be read).
    #[test]
    fn below_lists_exactly_the_small_keys() {
        let mut seed = 0x9e37_79b9_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut table = Vec::new();
        for n in [1usize, 2, 3, 5, 8, 13, 33, 64, 100, 7, 0, 50, 1, 99, 31] {
            let keys: Vec<u32> = (0..n).map(|_| next() % 5).collect();
            build(&keys, &mut table);
            for lo in 0..n as u32 {
                for hi in lo..=n as u32 {
                    for bound in 0..6 {
                        let mut got = Vec::new();
                        below(&keys, &table, lo, hi, bound, &mut got);
                        got.sort_unstable();
                        let want: Vec<u32> =
                            (lo..hi).filter(|&i| keys[i as usize] < bound).collect();
                        assert_eq!(got, want, "n {n} lo {lo} hi {hi} bound {bound}");
                    }
                }
            }
        }
    }
}
