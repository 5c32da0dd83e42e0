//! Cycle hierarchies of one CFG, as the maximal converged-with relation needs them.
//!
//! Maximal convergence ("Convergence And Uniformity", *Maximal Convergence*) depends on the cycle
//! hierarchy, and an irreducible CFG has several: the header of an irreducible cycle is whichever
//! entry the DFS reaches first. A hierarchy here is LLVM's `CycleInfo` (converge-graph) computed on
//! the CFG with each block's successors visited in a chosen order; index 0 is always LLVM's own
//! order. [`enumerate`] walks the DFS successor orders (mixed radix over the permutations of each
//! block's distinct successors; seeded sampling past a cap) and keeps the distinct hierarchies.
//!
//! What the simulator reads from a hierarchy is, per block, the headers of the cycles containing it
//! ("relevant headers"), and whether a block is a header.

use converge_graph::{Block, Cfg, CycleInfo, Graph};
use std::collections::BTreeSet;

/// One cycle of a hierarchy, as a set: its header and its blocks (sorted), nesting depth from 1.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CycleDesc {
    /// The header: the entry the hierarchy's DFS reached first.
    pub header: Block,
    /// Nesting depth (1 = outermost).
    pub depth: u32,
    /// Every block of the cycle, descendants' included, sorted.
    pub blocks: Vec<Block>,
}

/// A cycle hierarchy reduced to what convergence needs.
#[derive(Clone, Debug)]
pub struct Hierarchy {
    /// For block `b`, `rel[rel_start[b]..rel_start[b+1]]` are the headers of the cycles containing
    /// `b`, outermost first.
    rel_start: Vec<u32>,
    rel: Vec<Block>,
    is_header: Vec<bool>,
    /// Cycles sorted by (header, depth, blocks): the identity used to tell hierarchies apart.
    pub cycles: Vec<CycleDesc>,
    /// The successor order this hierarchy was computed with (per block), for reproduction.
    pub succ_order: Vec<Vec<Block>>,
}

impl Hierarchy {
    /// LLVM's hierarchy: `CycleInfo` on the graph as given.
    pub fn llvm<G: Graph + ?Sized>(g: &G) -> Hierarchy {
        let order: Vec<Vec<Block>> = (0..g.num_blocks())
            .map(|b| g.succs(Block(b as u32)).to_vec())
            .collect();
        Hierarchy::with_order(g.entry(), order)
    }

    /// Each block's successors explored in the opposite order (LLVM explores the last one first).
    pub fn reversed<G: Graph + ?Sized>(g: &G) -> Hierarchy {
        let order: Vec<Vec<Block>> = (0..g.num_blocks())
            .map(|b| g.succs(Block(b as u32)).iter().rev().copied().collect())
            .collect();
        Hierarchy::with_order(g.entry(), order)
    }

    /// The hierarchy of the CFG whose successor lists are `order` (one list per block).
    pub fn with_order(entry: Block, order: Vec<Vec<Block>>) -> Hierarchy {
        let n = order.len();
        let cfg = Cfg::from_succs(entry, n, order.iter().map(|s| s.iter().copied()));
        let ci = CycleInfo::new(&cfg);
        let mut rel_start = Vec::with_capacity(n + 1);
        let mut rel = Vec::new();
        let mut is_header = vec![false; n];
        let mut chain = Vec::new();
        rel_start.push(0);
        for b in 0..n {
            chain.clear();
            let mut c = ci.cycle_of(Block(b as u32));
            while let Some(cy) = c {
                chain.push(ci.header(cy));
                c = ci.parent(cy);
            }
            rel.extend(chain.iter().rev());
            rel_start.push(rel.len() as u32);
        }
        let mut cycles = Vec::new();
        for c in ci.cycles() {
            let h = ci.header(c);
            is_header[h.index()] = true;
            let mut blocks = ci.blocks(c).to_vec();
            blocks.sort();
            cycles.push(CycleDesc {
                header: h,
                depth: ci.depth(c),
                blocks,
            });
        }
        cycles.sort();
        Hierarchy {
            rel_start,
            rel,
            is_header,
            cycles,
            succ_order: order,
        }
    }

    /// Number of blocks of the function the hierarchy is for.
    pub fn num_blocks(&self) -> usize {
        self.is_header.len()
    }

    /// Headers of the cycles containing `b`, outermost first.
    #[inline]
    pub fn relevant_headers(&self, b: Block) -> &[Block] {
        &self.rel[self.rel_start[b.index()] as usize..self.rel_start[b.index() + 1] as usize]
    }

    /// Whether `b` heads a cycle of this hierarchy.
    #[inline]
    pub fn is_header(&self, b: Block) -> bool {
        self.is_header[b.index()]
    }

    /// Whether `h` heads a cycle that contains `b`.
    #[inline]
    pub fn is_relevant_header(&self, h: Block, b: Block) -> bool {
        self.relevant_headers(b).contains(&h)
    }

    /// A short description: `{H: B C D} {S: ...}`, cycles by header, blocks named by `name`.
    pub fn describe(&self, name: &dyn Fn(Block) -> String) -> String {
        if self.cycles.is_empty() {
            return "no cycles".to_string();
        }
        let mut out = String::new();
        for c in &self.cycles {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push('{');
            out.push_str(&name(c.header));
            out.push(':');
            for &b in &c.blocks {
                if b != c.header {
                    out.push(' ');
                    out.push_str(&name(b));
                }
            }
            out.push('}');
        }
        out
    }
}

/// The result of [`enumerate`].
#[derive(Clone, Debug)]
pub struct Enumeration {
    /// Distinct hierarchies; the first is LLVM's.
    pub hierarchies: Vec<Hierarchy>,
    /// Whether every DFS successor order was tried (false: sampled up to the cap).
    pub exhaustive: bool,
    /// How many successor orders were tried.
    pub orders_tried: u64,
}

/// Enumerates the distinct cycle hierarchies of `g` over DFS successor orders. Tries every order when
/// there are at most `cap` of them, otherwise LLVM's, the reversed one and `cap` orders sampled with a
/// fixed seed (so `exhaustive` is false and a hierarchy may be missed).
pub fn enumerate<G: Graph + ?Sized>(g: &G, cap: u64) -> Enumeration {
    let n = g.num_blocks();
    let base: Vec<Vec<Block>> = (0..n)
        .map(|b| {
            let mut seen = Vec::new();
            for &s in g.succs(Block(b as u32)) {
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
            seen
        })
        .collect();
    let mut out: Vec<Hierarchy> = vec![Hierarchy::llvm(g)];
    let mut keys: BTreeSet<Vec<CycleDesc>> = BTreeSet::new();
    keys.insert(out[0].cycles.clone());
    let mut add = |order: Vec<Vec<Block>>, out: &mut Vec<Hierarchy>| {
        let h = Hierarchy::with_order(g.entry(), order);
        if keys.insert(h.cycles.clone()) {
            out.push(h);
        }
    };
    // Mixed radix: the digit of block b ranges over the permutations of its distinct successors.
    let choice: Vec<usize> = (0..n).filter(|&b| base[b].len() > 1).collect();
    let mut total: u64 = 1;
    let mut overflow = false;
    for &b in &choice {
        match total.checked_mul(factorial(base[b].len())) {
            Some(t) if t <= cap => total = t,
            _ => {
                overflow = true;
                break;
            }
        }
    }
    if !overflow {
        for code in 0..total {
            let mut rest = code;
            let mut order = base.clone();
            for &b in &choice {
                let f = factorial(base[b].len());
                nth_permutation(&mut order[b], rest % f);
                rest /= f;
            }
            add(order, &mut out);
        }
        return Enumeration {
            hierarchies: out,
            exhaustive: true,
            orders_tried: total,
        };
    }
    add(
        base.iter()
            .map(|s| s.iter().rev().copied().collect())
            .collect(),
        &mut out,
    );
    let mut state = 0x5EED_u64;
    for _ in 0..cap {
        let mut order = base.clone();
        for &b in &choice {
            let f = factorial(base[b].len());
            state = splitmix(state);
            nth_permutation(&mut order[b], state % f);
        }
        add(order, &mut out);
    }
    Enumeration {
        hierarchies: out,
        exhaustive: false,
        orders_tried: cap + 1,
    }
}

fn factorial(k: usize) -> u64 {
    (1..=k as u64).fold(1u64, |a, x| a.saturating_mul(x))
}

/// Rearranges `xs` into its `k`-th permutation (Lehmer code).
fn nth_permutation(xs: &mut [Block], mut k: u64) {
    let n = xs.len();
    for i in 0..n {
        let f = factorial(n - 1 - i);
        let j = i + (k / f) as usize;
        k %= f;
        xs[i..=j].rotate_right(1);
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(succs: &[&[u32]]) -> Cfg {
        Cfg::from_succs(
            Block(0),
            succs.len(),
            succs.iter().map(|s| s.iter().map(|&x| Block(x))),
        )
    }

    #[test]
    fn permutations_are_all_distinct() {
        let mut seen = BTreeSet::new();
        for k in 0..6 {
            let mut xs = vec![Block(0), Block(1), Block(2)];
            nth_permutation(&mut xs, k);
            seen.insert(xs);
        }
        assert_eq!(seen.len(), 6);
    }

    #[test]
    fn irreducible_pair_has_two_hierarchies() {
        // 0 -> 1, 2; 1 <-> 2; 2 -> 3
        let g = cfg(&[&[1, 2], &[2], &[1, 3], &[]]);
        let e = enumerate(&g, 1000);
        assert!(e.exhaustive);
        let headers: BTreeSet<Block> = e.hierarchies.iter().map(|h| h.cycles[0].header).collect();
        assert_eq!(headers, [Block(1), Block(2)].into_iter().collect());
    }

    #[test]
    fn reducible_loop_has_one_hierarchy() {
        let g = cfg(&[&[1], &[2, 3], &[1], &[]]);
        let e = enumerate(&g, 1000);
        assert_eq!(e.hierarchies.len(), 1);
        assert_eq!(e.hierarchies[0].relevant_headers(Block(2)), &[Block(1)]);
        assert!(e.hierarchies[0].relevant_headers(Block(3)).is_empty());
    }
}
