//! The cycle hierarchy exactly as LLVM's `GenericCycleInfo` computes it (`GenericCycleImpl.h`,
//! `GenericCycleInfoCompute::run`; the Havlak-style discovery of "Nesting of reducible and
//! irreducible loops", Havlak 1997, on the DFS of [`crate::CycleDfs`]):
//!
//! - every block, in reverse DFS preorder, that is the target of a DFS back edge heads a new cycle;
//! - its blocks are found by walking predecessors backwards from the back edges, staying inside the
//!   header's DFS subtree; a block already in a cycle pulls that cycle's outermost ancestor in as a
//!   child (removed from the top-level list by **swap-remove**, which decides the print order) and
//!   its entries are rescanned;
//! - a block with a predecessor outside the header's subtree is an extra **entry** (irreducible).
//!
//! Orders follow LLVM 19/22: entries in discovery order (header first), blocks in insertion order
//! (a child's blocks appended when it is adopted), children in adoption order. Unreachable
//! predecessors are ignored as in LLVM 22 ([`UnreachablePreds::Ignore`]); LLVM 19 counted them as
//! entries ([`UnreachablePreds::AreEntries`]).
//!
//! Cost is O(V + E) plus near-constant union-find steps, instead of LLVM's cache rescans and block
//! copies: the outermost cycle of a block is a union-find root; each cycle's block list is recorded
//! as a sequence of "own block" / "adopted child" items and flattened once, at the end, into one
//! layout where every cycle's blocks are a contiguous slice (children nested inside parents). That
//! nesting also makes `contains` an O(1) interval test.

use crate::{Block, CycleDfs, Graph};

const NONE: u32 = u32::MAX;
const CHILD: u32 = 1 << 31;

/// A cycle, as an index into its [`CycleInfo`]. Cycles are numbered in print order: top-level cycles
/// in LLVM's (swap-reordered) order, each followed by its descendants in preorder, so a parent
/// always has a smaller number than its children.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cycle(pub u32);

impl Cycle {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a predecessor that is unreachable from the entry counts during entry detection.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum UnreachablePreds {
    /// LLVM 22 and later: ignored.
    #[default]
    Ignore,
    /// LLVM 19: the block becomes an extra entry.
    AreEntries,
}

#[derive(Copy, Clone, Debug, Default)]
struct CycleData {
    parent: u32,
    depth: u32,
    entries: (u32, u32),
    children: (u32, u32),
    /// Slice of `layout`.
    blocks: (u32, u32),
}

/// Reusable working storage of the discovery.
#[derive(Clone, Debug, Default)]
struct Scratch {
    dfs: CycleDfs,
    worklist: Vec<Block>,
    /// Union-find parent per (discovery-numbered) cycle; a root is a current top-level cycle.
    uf: Vec<u32>,
    /// Position of each top-level cycle in `top`, for O(1) swap-remove.
    top_pos: Vec<u32>,
    /// Per cycle, in discovery numbering.
    disc: Vec<CycleData>,
    items_range: Vec<(u32, u32)>,
    items: Vec<u32>,
    entries: Vec<Block>,
    children: Vec<Cycle>,
    stack: Vec<(u32, u32)>,
    renumber: Vec<u32>,
    /// Discovery ids in print order.
    order: Vec<u32>,
    top: Vec<u32>,
    /// Remaining predecessors of rescanned entries (see `rescan_entry`).
    rescan: Rescan,
}

/// The cycle hierarchy of one function. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct CycleInfo {
    cycles: Vec<CycleData>,
    entries: Vec<Block>,
    children: Vec<Cycle>,
    layout: Vec<Block>,
    num_top_level: u32,
    /// Innermost cycle per block, `NONE` if none.
    innermost: Vec<u32>,
    scratch: Scratch,
}

impl CycleInfo {
    /// Computes the cycles of `g` as LLVM 22 does.
    pub fn new<G: Graph + ?Sized>(g: &G) -> CycleInfo {
        CycleInfo::with_mode(g, UnreachablePreds::Ignore)
    }

    pub fn with_mode<G: Graph + ?Sized>(g: &G, mode: UnreachablePreds) -> CycleInfo {
        let mut ci = CycleInfo::default();
        ci.compute(g, mode);
        ci
    }

    /// Recomputes for `g`, reusing all buffers.
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G, mode: UnreachablePreds) {
        let n = g.num_blocks();
        self.innermost.clear();
        self.innermost.resize(n, NONE);
        let s = &mut self.scratch;
        s.dfs.compute(g);
        s.uf.clear();
        s.top_pos.clear();
        s.disc.clear();
        s.items_range.clear();
        s.items.clear();
        s.entries.clear();
        s.children.clear();
        s.rescan.reset(n);
        // The top-level cycles, in LLVM's (swap-reordered) order.
        let mut top = std::mem::take(&mut s.top);
        top.clear();

        for idx in (0..s.dfs.preorder().len()).rev() {
            // The DFS flagged the targets of back edges; every other block is skipped without
            // reading its predecessors.
            if !s.dfs.is_back_edge_target_at(idx) {
                continue;
            }
            let h = s.dfs.preorder()[idx];
            let preds = g.preds(h);
            s.worklist.clear();
            s.worklist
                .extend(preds.iter().copied().filter(|&p| s.dfs.is_ancestor(h, p)));
            let c = s.disc.len() as u32;
            s.disc.push(CycleData {
                parent: NONE,
                depth: 0,
                entries: (s.entries.len() as u32, 0),
                children: (s.children.len() as u32, 0),
                blocks: (0, 0),
            });
            s.uf.push(c);
            s.top_pos.push(NONE);
            s.entries.push(h);
            let items_start = s.items.len() as u32;
            s.items.push(h.0);
            self.innermost[h.index()] = c;

            while let Some(x) = s.worklist.pop() {
                if x == h {
                    continue;
                }
                let inner = self.innermost[x.index()];
                if inner != NONE {
                    let t = find(&mut s.uf, inner);
                    if t == c {
                        continue;
                    }
                    // Adopt the outermost cycle `t` containing x as a child of `c`.
                    s.children.push(Cycle(t));
                    s.items.push(CHILD | t);
                    let pos = s.top_pos[t as usize] as usize;
                    let last = top.pop().expect("adopted cycle is top-level");
                    if pos < top.len() {
                        top[pos] = last;
                        s.top_pos[last as usize] = pos as u32;
                    }
                    s.top_pos[t as usize] = NONE;
                    s.uf[t as usize] = c;
                    s.disc[t as usize].parent = c;
                    let (e0, e1) = s.disc[t as usize].entries;
                    // Predecessors inside t's header's DFS subtree are all in t already (t's own
                    // discovery queued them): queueing them again would only pop no-ops, and in
                    // deep irreducible nests an entry is rescanned at every level.
                    let ht = s.entries[e0 as usize];
                    for k in e0..e1 {
                        let e = s.entries[k as usize];
                        rescan_entry(g, &mut s.rescan, &s.dfs, h, ht, e, mode);
                        if s.rescan.is_entry {
                            s.entries.push(e);
                        }
                        s.worklist.append(&mut s.rescan.queued);
                    }
                } else {
                    self.innermost[x.index()] = c;
                    s.items.push(x.0);
                    scan(g, &s.dfs, h, x, &mut s.worklist, &mut s.entries, mode);
                }
            }
            let d = &mut s.disc[c as usize];
            d.entries.1 = s.entries.len() as u32;
            d.children.1 = s.children.len() as u32;
            s.items_range.push((items_start, s.items.len() as u32));
            s.top_pos[c as usize] = top.len() as u32;
            top.push(c);
        }
        self.finish(&top);
        self.scratch.top = top;
    }

    /// Numbers cycles in print order, assigns depths and lays out the block lists.
    fn finish(&mut self, top: &[u32]) {
        let s = &mut self.scratch;
        let count = s.disc.len();
        self.cycles.clear();
        self.layout.clear();
        self.num_top_level = top.len() as u32;
        s.renumber.clear();
        s.renumber.resize(count, NONE);
        s.order.clear();
        // Preorder over the forest (top-level in vector order, children in adoption order),
        // expanding each cycle's items: blocks are emitted, children are entered.
        for &t in top {
            s.disc[t as usize].parent = NONE;
            s.disc[t as usize].depth = 1;
            enter(s, t, self.layout.len());
            while let Some(frame) = s.stack.last_mut() {
                let (c, k) = *frame;
                let end = s.items_range[c as usize].1;
                if k == end {
                    s.disc[c as usize].blocks.1 = self.layout.len() as u32;
                    s.stack.pop();
                    continue;
                }
                frame.1 = k + 1;
                let item = s.items[k as usize];
                if item & CHILD != 0 {
                    let child = item & !CHILD;
                    s.disc[child as usize].depth = s.disc[c as usize].depth + 1;
                    enter(s, child, self.layout.len());
                } else {
                    self.layout.push(Block(item));
                }
            }
        }
        for (new, &old) in s.order.iter().enumerate() {
            s.renumber[old as usize] = new as u32;
        }
        // Entry and child lists keep their discovery-order storage (each cycle has a range);
        // only the ids in them and the per-cycle records follow the new numbering.
        std::mem::swap(&mut self.entries, &mut s.entries);
        for ch in s.children.iter_mut() {
            ch.0 = s.renumber[ch.index()];
        }
        std::mem::swap(&mut self.children, &mut s.children);
        self.cycles.extend(s.order.iter().map(|&old| {
            let d = &s.disc[old as usize];
            CycleData {
                parent: if d.parent == NONE {
                    NONE
                } else {
                    s.renumber[d.parent as usize]
                },
                ..*d
            }
        }));
        for c in self.innermost.iter_mut() {
            if *c != NONE {
                *c = s.renumber[*c as usize];
            }
        }
    }

    /// The DFS the cycles were computed from (LLVM's: last successor first); valid until the next
    /// `compute`. [`crate::DominatorTree::compute_from_dfs`] can reuse it.
    pub fn dfs(&self) -> &CycleDfs {
        &self.scratch.dfs
    }
    /// Number of cycles.
    pub fn len(&self) -> usize {
        self.cycles.len()
    }
    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }
    /// All cycles in print order (see [`Cycle`]).
    pub fn cycles(&self) -> impl ExactSizeIterator<Item = Cycle> + use<> {
        (0..self.cycles.len() as u32).map(Cycle)
    }
    /// Top-level cycles in LLVM's order.
    pub fn top_level(&self) -> impl Iterator<Item = Cycle> + '_ {
        self.cycles()
            .filter(|&c| self.cycles[c.index()].parent == NONE)
    }
    pub fn num_top_level(&self) -> usize {
        self.num_top_level as usize
    }
    /// The entries; the first is the header.
    pub fn entries(&self, c: Cycle) -> &[Block] {
        let (a, b) = self.cycles[c.index()].entries;
        &self.entries[a as usize..b as usize]
    }
    pub fn header(&self, c: Cycle) -> Block {
        self.entries[self.cycles[c.index()].entries.0 as usize]
    }
    pub fn is_entry(&self, c: Cycle, b: Block) -> bool {
        self.entries(c).contains(&b)
    }
    /// A cycle is reducible when it has a single entry.
    pub fn is_reducible(&self, c: Cycle) -> bool {
        let (a, b) = self.cycles[c.index()].entries;
        b - a == 1
    }
    /// Every block of the cycle, descendants' included, in LLVM's insertion order.
    pub fn blocks(&self, c: Cycle) -> &[Block] {
        let (a, b) = self.cycles[c.index()].blocks;
        &self.layout[a as usize..b as usize]
    }
    pub fn children(&self, c: Cycle) -> &[Cycle] {
        let (a, b) = self.cycles[c.index()].children;
        &self.children[a as usize..b as usize]
    }
    pub fn parent(&self, c: Cycle) -> Option<Cycle> {
        let p = self.cycles[c.index()].parent;
        (p != NONE).then_some(Cycle(p))
    }
    /// Top-level cycles have depth 1.
    pub fn depth(&self, c: Cycle) -> u32 {
        self.cycles[c.index()].depth
    }
    /// The innermost cycle containing `b`.
    #[inline]
    pub fn cycle_of(&self, b: Block) -> Option<Cycle> {
        let c = self.innermost[b.index()];
        (c != NONE).then_some(Cycle(c))
    }
    /// Depth of the innermost cycle containing `b`, 0 when none.
    pub fn cycle_depth(&self, b: Block) -> u32 {
        self.cycle_of(b).map_or(0, |c| self.depth(c))
    }
    /// Whether `d` is `c` or nested in it.
    #[inline]
    pub fn contains_cycle(&self, c: Cycle, d: Cycle) -> bool {
        let (a, b) = self.cycles[c.index()].blocks;
        let (x, y) = self.cycles[d.index()].blocks;
        a <= x && y <= b
    }
    /// Whether block `b` belongs to `c` (or to a cycle nested in it).
    #[inline]
    pub fn contains(&self, c: Cycle, b: Block) -> bool {
        self.cycle_of(b).is_some_and(|d| self.contains_cycle(c, d))
    }
    /// The innermost cycle containing both cycles, if any.
    pub fn smallest_common_cycle(&self, a: Option<Cycle>, b: Option<Cycle>) -> Option<Cycle> {
        let (mut a, mut b) = (a?, b?);
        while self.depth(a) > self.depth(b) {
            a = self.parent(a)?;
        }
        while self.depth(b) > self.depth(a) {
            b = self.parent(b)?;
        }
        while a != b {
            a = self.parent(a)?;
            b = self.parent(b)?;
        }
        Some(a)
    }
    /// The innermost cycle containing both blocks, if any.
    pub fn smallest_common_cycle_of_blocks(&self, a: Block, b: Block) -> Option<Cycle> {
        self.smallest_common_cycle(self.cycle_of(a), self.cycle_of(b))
    }
    /// Exit blocks (successors outside the cycle), unique, in LLVM's `getExitBlocks` order: by the
    /// cycle's block order, then successor order.
    pub fn exit_blocks<G: Graph + ?Sized>(&self, g: &G, c: Cycle) -> Vec<Block> {
        let mut out: Vec<Block> = Vec::new();
        for &b in self.blocks(c) {
            out.extend(g.succs(b).iter().filter(|&&s| !self.contains(c, s)));
        }
        dedup_keep_first(&mut out);
        out
    }
    /// Blocks of the cycle with a successor outside it, in the cycle's block order.
    pub fn exiting_blocks<G: Graph + ?Sized>(&self, g: &G, c: Cycle) -> Vec<Block> {
        self.blocks(c)
            .iter()
            .copied()
            .filter(|&b| g.succs(b).iter().any(|&s| !self.contains(c, s)))
            .collect()
    }
    /// The unique predecessor of the header outside a reducible cycle, if there is exactly one.
    pub fn cycle_predecessor<G: Graph + ?Sized>(&self, g: &G, c: Cycle) -> Option<Block> {
        if !self.is_reducible(c) {
            return None;
        }
        let mut out = None;
        for &p in g.preds(self.header(c)) {
            if !self.contains(c, p) {
                if out.is_some_and(|o| o != p) {
                    return None;
                }
                out = Some(p);
            }
        }
        out
    }
    /// The `print<cycles>` text for one function (without the `CycleInfo for function:` line).
    /// `name` renders a block.
    pub fn print_llvm(&self, out: &mut String, mut name: impl FnMut(Block, &mut String)) {
        for c in self.cycles() {
            for _ in 0..self.depth(c) {
                out.push_str("    ");
            }
            out.push_str("depth=");
            out.push_str(&self.depth(c).to_string());
            out.push_str(": entries(");
            for (i, &e) in self.entries(c).iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                name(e, out);
            }
            out.push(')');
            let mut sorted: Vec<Block> = self.entries(c).to_vec();
            sorted.sort_unstable();
            for &b in self.blocks(c) {
                if sorted.binary_search(&b).is_err() {
                    out.push(' ');
                    name(b, out);
                }
            }
            out.push('\n');
        }
    }
}

fn enter(s: &mut Scratch, c: u32, layout_len: usize) {
    s.order.push(c);
    s.disc[c as usize].blocks.0 = layout_len as u32;
    s.stack.push((c, s.items_range[c as usize].0));
}

/// Removes later duplicates, keeping first occurrences in order, in O(k log k) (LLVM's linear
/// search is quadratic in the number of exits).
fn dedup_keep_first(v: &mut Vec<Block>) {
    if v.len() < 16 {
        let mut k = 0;
        for i in 0..v.len() {
            if !v[..k].contains(&v[i]) {
                v[k] = v[i];
                k += 1;
            }
        }
        v.truncate(k);
        return;
    }
    let mut keyed: Vec<(Block, u32)> = v.iter().enumerate().map(|(i, &b)| (b, i as u32)).collect();
    keyed.sort_unstable();
    keyed.dedup_by_key(|x| x.0);
    keyed.sort_unstable_by_key(|x| x.1);
    v.clear();
    v.extend(keyed.iter().map(|x| x.0));
}

/// Union-find root with path halving.
#[inline]
fn find(uf: &mut [u32], mut x: u32) -> u32 {
    while uf[x as usize] != x {
        let p = uf[x as usize];
        uf[x as usize] = uf[p as usize];
        x = p;
    }
    x
}

/// LLVM's `ProcessPredecessors`: queue the predecessors inside the header's DFS subtree; any other
/// (reachable, in LLVM 22) predecessor makes `x` an entry.
#[inline]
fn scan<G: Graph + ?Sized>(
    g: &G,
    dfs: &CycleDfs,
    h: Block,
    x: Block,
    worklist: &mut Vec<Block>,
    entries: &mut Vec<Block>,
    mode: UnreachablePreds,
) {
    let mut is_entry = false;
    for &p in g.preds(x) {
        if dfs.is_ancestor(h, p) {
            worklist.push(p);
        } else if dfs.is_reachable(p) || mode == UnreachablePreds::AreEntries {
            is_entry = true;
        }
    }
    if is_entry {
        entries.push(x);
    }
}

/// Per block rescanned as an entry of an adopted cycle: its predecessors not yet known to lie
/// inside the adopting headers' DFS subtrees (a slice of `preds`, filled on first use).
#[derive(Clone, Debug, Default)]
struct Rescan {
    /// Each with its DFS preorder number (0: unreachable), so that the subtree tests need no
    /// random access.
    preds: Vec<(Block, u32)>,
    start: Vec<u32>,
    len: Vec<u32>,
    queued: Vec<Block>,
    is_entry: bool,
}

impl Rescan {
    fn reset(&mut self, n: usize) {
        self.preds.clear();
        self.start.clear();
        self.start.resize(n, 0);
        self.len.clear();
        self.len.resize(n, NONE);
    }
}

/// [`scan`] for an entry `x` of an adopted cycle with header `ht`, now inside header `h`: the
/// same queue (in `r.queued`) and entry decision (`r.is_entry`). Predecessors inside `ht`'s
/// subtree belong to the adopted cycle and are skipped; those inside `h`'s subtree are queued.
/// Both kinds lie inside every later adopting header's subtree (the adopting headers of one
/// block's cycles are nested in the DFS tree), so they are dropped from x's remaining list: in a
/// deep nest an entry is rescanned at every level, and only its outside predecessors are visited
/// again.
fn rescan_entry<G: Graph + ?Sized>(
    g: &G,
    r: &mut Rescan,
    dfs: &CycleDfs,
    h: Block,
    ht: Block,
    x: Block,
    mode: UnreachablePreds,
) {
    if r.len[x.index()] == NONE {
        r.start[x.index()] = r.preds.len() as u32;
        r.preds
            .extend(g.preds(x).iter().map(|&p| (p, dfs.start(p))));
        r.len[x.index()] = g.preds(x).len() as u32;
    }
    let a = r.start[x.index()] as usize;
    let n = r.len[x.index()] as usize;
    let mut k = a;
    r.is_entry = false;
    // Preorder intervals nest: p is in h's subtree iff its number is in h's interval.
    let (h0, h1) = (dfs.start(h), dfs.end(h));
    let (t0, t1) = (dfs.start(ht), dfs.end(ht));
    for i in a..a + n {
        let (p, sp) = r.preds[i];
        if sp != 0 && h0 <= sp && sp <= h1 {
            if !(t0 <= sp && sp <= t1) {
                r.queued.push(p);
            }
        } else if sp != 0 || mode == UnreachablePreds::AreEntries {
            r.is_entry = true;
            r.preds[k] = (p, sp);
            k += 1;
        }
    }
    r.len[x.index()] = (k - a) as u32;
}
