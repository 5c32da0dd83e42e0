//! Range minimum by a sparse table (the textbook structure of Bender and Farach-Colton, "The LCA
//! Problem Revisited"): built in O(n log n) into a reused vector, then every position of a range
//! whose key is below a bound is listed in time proportional to the answer. Two analyses use it:
//! the escape index of the exit sweeps (`temporal.rs`) and the edges leaving a cycle
//! (`structure.rs`).

/// Fills `table` with the argmin sparse table over `keys`: level k holds, at stride `keys.len()`,
/// the position of the smallest key in each window of 2^k positions (the first on ties).
pub(crate) fn build(keys: &[u32], table: &mut Vec<u32>) {
    let n = keys.len();
    table.clear();
    table.extend(0..n as u32);
    let mut k = 1;
    while (1usize << k) <= n {
        let half = 1usize << (k - 1);
        let prev = (k - 1) * n;
        for i in 0..=n - (1 << k) {
            let (a, b) = (table[prev + i], table[prev + i + half]);
            table.push(if keys[b as usize] < keys[a as usize] {
                b
            } else {
                a
            });
        }
        // Pad the level to the stride; the padding is never read.
        table.resize((k + 1) * n, 0);
        k += 1;
    }
}

/// Appends to `out` (unordered) every position in `lo..hi` whose key is below `bound`.
pub(crate) fn below(keys: &[u32], table: &[u32], lo: u32, hi: u32, bound: u32, out: &mut Vec<u32>) {
    if lo >= hi {
        return;
    }
    let n = keys.len();
    let argmin = |lo: usize, hi: usize| {
        let k = (usize::BITS - 1 - (hi - lo + 1).leading_zeros()) as usize;
        let (a, b) = (table[k * n + lo], table[k * n + hi + 1 - (1 << k)]);
        if keys[b as usize] < keys[a as usize] {
            b
        } else {
            a
        }
    };
    // Continuing with the smaller part and stacking the larger one bounds the stack by
    // log2(positions) + 1 < 64 entries, so it needs no allocation.
    let mut stack = [(0u32, 0u32); 64];
    let mut top = 0;
    let (mut a, mut b) = (lo, hi);
    loop {
        let i = argmin(a as usize, b as usize - 1);
        let mut next = None;
        if keys[i as usize] < bound {
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
