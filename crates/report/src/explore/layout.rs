//! A compound layered layout for CFGs with nested cycles, in pure Rust: every cycle is a box that
//! holds its blocks and its child cycles, laid out like a node of its parent.
//!
//! Per container (the function, or a cycle) the *items* are its own blocks and its child cycles;
//! every CFG edge is lifted to the smallest container holding both ends (an edge leaving a cycle
//! becomes an edge of the cycle's box). Items are keyed by reverse post-order (a cycle by its first
//! block in that order), so edges from a lower to a higher key form a DAG: those are layered by
//! longest path, the others (back edges, edges between entries of an irreducible cycle) are drawn
//! but do not constrain the layers. Inside a layer items are ordered and placed at the mean
//! position of their predecessors, pushed right to avoid overlaps. Containers are done innermost
//! first (a box's size must be known before its parent is laid out), then positions are made
//! absolute outermost first: no recursion, time about O((blocks + edges) * depth + items log items).

/// What the layout needs to know about one function.
pub struct Input {
    /// Successors of each block (block 0 is the entry).
    pub succs: Vec<Vec<u32>>,
    /// Width and height of each block's box.
    pub size: Vec<(f32, f32)>,
    /// Innermost cycle of each block.
    pub block_cycle: Vec<Option<u32>>,
    /// Parent of each cycle.
    pub cycle_parent: Vec<Option<u32>>,
    /// Height of a cycle's label strip and the width it needs.
    pub cycle_label: Vec<(f32, f32)>,
    /// Header of each cycle: its item comes first in the cycle's box.
    pub cycle_header: Vec<u32>,
}

/// Where everything goes (top-left corners; the picture starts at (0, 0)).
pub struct Layout {
    /// Each block's box, by block index.
    pub block: Vec<Rect>,
    /// Each cycle's box (around its blocks and child cycles), by cycle index.
    pub cycle: Vec<Rect>,
    /// Width of the whole picture, in the same units as [`Input::size`] (SVG user units).
    pub width: f32,
    /// Height of the whole picture.
    pub height: f32,
}

/// An axis-aligned box: top-left corner (`x`, `y`, with `y` growing downwards) and size (`w`,
/// `h`), in SVG user units.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
}

impl Rect {
    /// The bottom edge's `y`.
    pub fn bottom(&self) -> f32 {
        self.y + self.h
    }
    /// The horizontal centre's `x`.
    pub fn cx(&self) -> f32 {
        self.x + self.w / 2.0
    }
}

/// Gaps between layers and between items, and the padding inside a cycle box.
const VGAP: f32 = 34.0;
const HGAP: f32 = 22.0;
const PAD: f32 = 10.0;
const MARGIN: f32 = 8.0;

const ROOT: u32 = u32::MAX;

/// Reverse post-order of the blocks reachable from block 0 (iterative DFS, successors in order);
/// unreachable blocks follow in index order.
pub fn rpo_keys(succs: &[Vec<u32>]) -> Vec<u32> {
    let n = succs.len();
    let mut key = vec![u32::MAX; n];
    if n == 0 {
        return key;
    }
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(&mut (b, ref mut k)) = stack.last_mut() {
        if let Some(&s) = succs[b as usize].get(*k) {
            *k += 1;
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    for (k, &b) in post.iter().rev().enumerate() {
        key[b as usize] = k as u32;
    }
    let mut next = post.len() as u32;
    for k in key.iter_mut() {
        if *k == u32::MAX {
            *k = next;
            next += 1;
        }
    }
    key
}

/// Lays the function out.
pub fn layout(inp: &Input) -> Layout {
    let n = inp.succs.len();
    let nc = inp.cycle_parent.len();
    let key = rpo_keys(&inp.succs);
    let depth = cycle_depths(&inp.cycle_parent);
    // Items: blocks 0..n, cycles n..n+nc. Container: a cycle id or ROOT.
    let item_container = |it: usize| -> u32 {
        if it < n {
            inp.block_cycle[it].unwrap_or(ROOT)
        } else {
            inp.cycle_parent[it - n].unwrap_or(ROOT)
        }
    };
    let mut item_key: Vec<u32> = key.clone();
    item_key.extend(std::iter::repeat_n(u32::MAX, nc));
    for (b, &kb) in key.iter().enumerate() {
        let mut c = inp.block_cycle[b];
        while let Some(x) = c {
            let k = &mut item_key[n + x as usize];
            *k = (*k).min(kb);
            c = inp.cycle_parent[x as usize];
        }
    }
    // Children per container (index nc = ROOT), sorted by key.
    let cidx = |c: u32| if c == ROOT { nc } else { c as usize };
    let mut items: Vec<Vec<u32>> = vec![Vec::new(); nc + 1];
    for it in 0..n + nc {
        items[cidx(item_container(it))].push(it as u32);
    }
    for v in &mut items {
        v.sort_by_key(|&it| item_key[it as usize]);
    }
    // In a cycle's box the item holding the header comes first, then reverse post-order; an
    // edge is forward when it goes to a later item of the same container.
    for (c, &h) in inp.cycle_header.iter().enumerate().take(nc) {
        let mut it = h;
        let mut x = inp.block_cycle[h as usize];
        while let Some(y) = x {
            if y as usize == c {
                break;
            }
            it = (n + y as usize) as u32;
            x = inp.cycle_parent[y as usize];
        }
        if x.is_some()
            && let Some(p) = items[c].iter().position(|&i| i == it)
        {
            let hi = items[c].remove(p);
            items[c].insert(0, hi);
        }
    }
    let mut rank = vec![0u32; n + nc];
    for v in &items {
        for (k, &it) in v.iter().enumerate() {
            rank[it as usize] = k as u32;
        }
    }
    // Forward predecessors of each item, lifted to the smallest common container.
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n + nc];
    for (u, ss) in inp.succs.iter().enumerate() {
        for &v in ss {
            if let Some((iu, iv)) = lift(inp, &depth, n, u as u32, v)
                && rank[iu as usize] < rank[iv as usize]
                && !preds[iv as usize].contains(&iu)
            {
                preds[iv as usize].push(iu);
            }
        }
    }
    // Sizes of items (blocks known; cycles computed innermost first) and relative positions.
    let mut size: Vec<(f32, f32)> = inp.size.clone();
    size.extend(std::iter::repeat_n((0.0, 0.0), nc));
    let mut rel: Vec<(f32, f32)> = vec![(0.0, 0.0); n + nc];
    // Cycle ids: a child's id is larger than its parent's when numbered in preorder, but do not
    // rely on it: order the containers by depth, deepest first.
    let mut order: Vec<u32> = (0..nc as u32).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(depth[c as usize]));
    let mut layer = vec![0u32; n + nc];
    for c in order.iter().copied().chain(std::iter::once(ROOT)) {
        let its = &items[cidx(c)];
        let (w, h) = place(its, &preds, &size, &mut layer, &mut rel);
        if c != ROOT {
            let (lh, lw) = inp.cycle_label[c as usize];
            size[n + c as usize] = ((w + 2.0 * PAD).max(lw + 2.0 * PAD), h + lh + 2.0 * PAD);
        }
    }
    // Absolute positions, outermost first.
    let mut abs: Vec<(f32, f32)> = vec![(0.0, 0.0); n + nc];
    let mut origin_of = vec![(MARGIN, MARGIN); nc + 1];
    for c in order.iter().rev().copied() {
        let it = n + c as usize;
        let o = origin_of[cidx(item_container(it))];
        abs[it] = (o.0 + rel[it].0, o.1 + rel[it].1);
        let lh = inp.cycle_label[c as usize].0;
        origin_of[c as usize] = (abs[it].0 + PAD, abs[it].1 + PAD + lh);
    }
    for (b, a) in abs.iter_mut().enumerate().take(n) {
        let o = origin_of[cidx(item_container(b))];
        *a = (o.0 + rel[b].0, o.1 + rel[b].1);
    }
    let rect = |it: usize| Rect {
        x: abs[it].0,
        y: abs[it].1,
        w: size[it].0,
        h: size[it].1,
    };
    let block: Vec<Rect> = (0..n).map(rect).collect();
    let cycle: Vec<Rect> = (n..n + nc).map(rect).collect();
    let mut width: f32 = 0.0;
    let mut height: f32 = 0.0;
    for r in block.iter().chain(cycle.iter()) {
        width = width.max(r.x + r.w);
        height = height.max(r.y + r.h);
    }
    Layout {
        block,
        cycle,
        width: width + MARGIN,
        height: height + MARGIN,
    }
}

fn cycle_depths(parent: &[Option<u32>]) -> Vec<u32> {
    let mut depth = vec![0u32; parent.len()];
    for c in 0..parent.len() {
        let mut d = 1;
        let mut p = parent[c];
        while let Some(x) = p {
            d += 1;
            p = parent[x as usize];
        }
        depth[c] = d;
    }
    depth
}

/// The edge u → v as an edge between two items of the smallest container holding both ends, or
/// None when both ends are the same item (a self loop, or an edge inside one child cycle).
fn lift(inp: &Input, depth: &[u32], n: usize, u: u32, v: u32) -> Option<(u32, u32)> {
    let d = |c: Option<u32>| c.map_or(0, |x| depth[x as usize]);
    let (mut cu, mut cv) = (inp.block_cycle[u as usize], inp.block_cycle[v as usize]);
    // The item of each end: the block itself, or the child cycle of the common container.
    let (mut iu, mut iv) = (u, v);
    while d(cu) > d(cv) {
        let x = cu.unwrap_or(0);
        iu = n as u32 + x;
        cu = inp.cycle_parent[x as usize];
    }
    while d(cv) > d(cu) {
        let x = cv.unwrap_or(0);
        iv = n as u32 + x;
        cv = inp.cycle_parent[x as usize];
    }
    while cu != cv {
        let (x, y) = (cu.unwrap_or(0), cv.unwrap_or(0));
        iu = n as u32 + x;
        iv = n as u32 + y;
        cu = inp.cycle_parent[x as usize];
        cv = inp.cycle_parent[y as usize];
    }
    (iu != iv).then_some((iu, iv))
}

/// Places the items of one container: layers by longest forward path, each item at the mean x of
/// its predecessors, pushed right past its left neighbour. Returns the content size.
fn place(
    its: &[u32],
    preds: &[Vec<u32>],
    size: &[(f32, f32)],
    layer: &mut [u32],
    rel: &mut [(f32, f32)],
) -> (f32, f32) {
    // `its` is in rank order, so predecessors come first.
    let mut nl = 0u32;
    for &it in its {
        let l = preds[it as usize]
            .iter()
            .map(|&p| layer[p as usize] + 1)
            .max()
            .unwrap_or(0);
        layer[it as usize] = l;
        nl = nl.max(l + 1);
    }
    let mut layers: Vec<Vec<u32>> = vec![Vec::new(); nl as usize];
    for &it in its {
        layers[layer[it as usize] as usize].push(it);
    }
    let mut y = 0.0f32;
    let mut width = 0.0f32;
    let mut min_x = f32::MAX;
    for row in &mut layers {
        // Desired centre: mean centre of the predecessors already placed (all in earlier layers).
        let want: Vec<(u32, f32)> = row
            .iter()
            .map(|&it| {
                let ps = &preds[it as usize];
                let c = if ps.is_empty() {
                    f32::NAN
                } else {
                    ps.iter()
                        .map(|&p| rel[p as usize].0 + size[p as usize].0 / 2.0)
                        .sum::<f32>()
                        / ps.len() as f32
                };
                (it, c)
            })
            .collect();
        // Items without predecessors keep their key order after the others.
        let mut sorted = want.clone();
        sorted.sort_by(|a, b| match (a.1.is_nan(), b.1.is_nan()) {
            (false, false) => a.1.total_cmp(&b.1),
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            (true, true) => std::cmp::Ordering::Equal,
        });
        let mut right = f32::MIN;
        let mut h = 0.0f32;
        for &(it, c) in &sorted {
            let (w, ih) = size[it as usize];
            let mut x = if c.is_nan() {
                if right == f32::MIN { 0.0 } else { right }
            } else {
                c - w / 2.0
            };
            if right != f32::MIN {
                x = x.max(right);
            }
            rel[it as usize] = (x, y);
            right = x + w + HGAP;
            h = h.max(ih);
            min_x = min_x.min(x);
        }
        *row = sorted.iter().map(|x| x.0).collect();
        y += h + VGAP;
    }
    if min_x == f32::MAX {
        min_x = 0.0;
    }
    for &it in its {
        rel[it as usize].0 -= min_x;
        width = width.max(rel[it as usize].0 + size[it as usize].0);
    }
    (width, (y - VGAP).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: &Rect, b: &Rect) -> bool {
        a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
    }
    fn inside(a: &Rect, b: &Rect) -> bool {
        a.x >= b.x && a.y >= b.y && a.x + a.w <= b.x + b.w && a.y + a.h <= b.y + b.h
    }

    /// Seed 000's nested irreducible example: Entry → P | R, P → Q, Q → R | S, R → S, S → P | Exit,
    /// with an outer cycle {P, Q, R, S} and an inner one {R, S} (as LLVM numbers them).
    #[test]
    fn nested_boxes_hold_their_blocks_and_nothing_overlaps() {
        let inp = Input {
            succs: vec![vec![1, 3], vec![2], vec![3, 4], vec![4], vec![1, 5], vec![]],
            size: vec![(60.0, 30.0); 6],
            block_cycle: vec![None, Some(0), Some(0), Some(1), Some(1), None],
            cycle_parent: vec![None, Some(0)],
            cycle_label: vec![(14.0, 80.0); 2],
            cycle_header: vec![3, 3],
        };
        let l = layout(&inp);
        // Blocks of a cycle are inside its box; the inner box is inside the outer one.
        for (b, c) in inp.block_cycle.iter().enumerate() {
            let mut c = *c;
            while let Some(x) = c {
                assert!(
                    inside(&l.block[b], &l.cycle[x as usize]),
                    "block {b} cycle {x}"
                );
                c = inp.cycle_parent[x as usize];
            }
        }
        assert!(inside(&l.cycle[1], &l.cycle[0]));
        // No two blocks overlap, and a block outside a cycle does not overlap its box.
        for a in 0..6 {
            for b in a + 1..6 {
                assert!(!overlaps(&l.block[a], &l.block[b]), "{a} {b}");
            }
        }
        assert!(!overlaps(&l.block[0], &l.cycle[0]));
        assert!(!overlaps(&l.block[5], &l.cycle[0]));
        // Forward edges point down: the entry is above the cycle, the exit below it.
        assert!(l.block[0].bottom() <= l.cycle[0].y);
        assert!(l.cycle[0].bottom() <= l.block[5].y);
        assert!(l.width > 0.0 && l.height > 0.0);
    }

    #[test]
    fn deep_chain_does_not_recurse() {
        // 100,000 blocks in a chain, every block its own nested cycle level every 10 blocks.
        let n = 100_000;
        let succs: Vec<Vec<u32>> = (0..n)
            .map(|b| {
                if b + 1 < n {
                    vec![b as u32 + 1]
                } else {
                    vec![]
                }
            })
            .collect();
        let inp = Input {
            succs,
            size: vec![(40.0, 20.0); n],
            block_cycle: vec![None; n],
            cycle_parent: vec![],
            cycle_label: vec![],
            cycle_header: vec![],
        };
        let l = layout(&inp);
        assert!(l.block[n - 1].y > l.block[0].y);
    }
}
