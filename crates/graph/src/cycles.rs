//! The cycle hierarchy exactly as LLVM's `CycleInfo` computes it (the terms are those of LLVM's
//! "LLVM Cycle Terminology" document; the discovery is Havlak's, "Nesting of reducible and
//! irreducible loops", 1997, on the DFS of [`crate::CycleDfs`]):
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
use std::sync::OnceLock;

const NONE: u32 = u32::MAX;
const CHILD: u32 = 1 << 31;

/// A cycle, as an index into its [`CycleInfo`]. Cycles are numbered in print order: top-level cycles
/// in LLVM's (swap-reordered) order, each followed by its descendants in preorder, so a parent
/// always has a smaller number than its children.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cycle(pub u32);

impl Cycle {
    /// The index into per-cycle tables, in print order.
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
    header: Block,
    /// No entry but the header.
    reducible: bool,
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
    /// Offset of a cycle's entry sequence inside its union-find parent's (see [`Pending`]).
    uf_off: Vec<u32>,
    /// Position of each top-level cycle in `top`, for O(1) swap-remove.
    top_pos: Vec<u32>,
    /// Per cycle, in discovery numbering.
    disc: Vec<CycleData>,
    items_range: Vec<(u32, u32)>,
    items: Vec<u32>,
    children: Vec<Cycle>,
    /// The flattening's frames: discovery id, next item, print-order id.
    stack: Vec<(u32, u32, u32)>,
    renumber: Vec<u32>,
    /// Discovery ids in print order.
    order: Vec<u32>,
    top: Vec<u32>,
    pending: Pending,
    /// Absorbed edges of one adoption, with their sort keys.
    absorbed: Vec<(u32, u32, Block)>,
    /// Born entries keyed by (top-level cycle, position in its entry sequence).
    keyed: Vec<(u32, u32, Block)>,
}

/// Where the entry lists come from: every block that is an entry of some cycle is *born* as one
/// in exactly one cycle (its header, or the innermost cycle holding it) and stays an entry of the
/// enclosing cycles up to its *death* cycle (the outermost one it has a predecessor outside).
#[derive(Clone, Debug, Default)]
struct EntryOrigins {
    /// Per block: the cycle it is born an entry in, `NONE` if never an entry.
    born: Vec<u32>,
    /// Per block: the outermost cycle it is an entry of (valid where `born` is set).
    death: Vec<u32>,
    /// Blocks born as entries, in entry-list order (sorted by position in their top-level
    /// cycle's entry sequence): every cycle's entry list is a subsequence of it.
    order: Vec<Block>,
}

/// Materialized entry lists: a range of `list` per cycle.
#[derive(Clone, Debug, Default)]
struct EntryLists {
    range: Vec<(u32, u32)>,
    list: Vec<Block>,
}

/// The cycle hierarchy of one function. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct CycleInfo {
    cycles: Vec<CycleData>,
    children: Vec<Cycle>,
    layout: Vec<Block>,
    num_top_level: u32,
    /// Innermost cycle per block, `NONE` if none.
    innermost: Vec<u32>,
    /// Top-level ancestor per cycle.
    outermost: Vec<u32>,
    origins: EntryOrigins,
    /// Built on first use: only printing and the token rules read whole entry lists, and in deep
    /// irreducible nests their total length grows with blocks × depth.
    entry_lists: OnceLock<EntryLists>,
    scratch: Scratch,
}

impl CycleInfo {
    /// Computes the cycles of `g` as LLVM 22 does.
    pub fn new<G: Graph + ?Sized>(g: &G) -> CycleInfo {
        CycleInfo::with_mode(g, UnreachablePreds::Ignore)
    }

    /// Computes the cycles of `g`, treating predecessors unreachable from the entry as `mode` says
    /// (LLVM 22 ignores them, LLVM 19 counts them as entries).
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
        self.entry_lists = OnceLock::new();
        let o = &mut self.origins;
        o.born.clear();
        o.born.resize(n, NONE);
        o.death.clear();
        o.death.resize(n, NONE);
        o.order.clear();
        let s = &mut self.scratch;
        s.dfs.compute(g);
        s.uf.clear();
        s.uf_off.clear();
        s.top_pos.clear();
        s.disc.clear();
        s.items_range.clear();
        s.items.clear();
        s.children.clear();
        s.pending.reset(n);
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
            let (h0, h1) = (s.dfs.start(h), s.dfs.end(h));
            let c = s.disc.len() as u32;
            s.disc.push(CycleData {
                parent: NONE,
                depth: 0,
                header: h,
                reducible: true,
                children: (s.children.len() as u32, 0),
                blocks: (0, 0),
            });
            s.uf.push(c);
            s.uf_off.push(0);
            s.top_pos.push(NONE);
            s.pending.new_cycle();
            s.worklist.clear();
            // The header is the first entry (position 0) whatever its predecessors; those outside
            // its subtree are pending until an enclosing cycle absorbs them.
            o.born[h.index()] = c;
            o.order.push(h);
            s.pending.birth(c, h);
            let header_pending = s
                .pending
                .scan(g, &s.dfs, c, h, (h0, h1), mode, &mut s.worklist);
            s.pending.cycles[c as usize].into_header = header_pending;
            if header_pending == 0 {
                o.death[h.index()] = c;
            }
            let items_start = s.items.len() as u32;
            s.items.push(h.0);
            self.innermost[h.index()] = c;

            while let Some(x) = s.worklist.pop() {
                if x == h {
                    continue;
                }
                let inner = self.innermost[x.index()];
                // Already one of c's own blocks (a block is queued once per edge to it).
                if inner == c {
                    continue;
                }
                if inner != NONE {
                    let t = find(&mut s.uf, &mut s.uf_off, inner).0;
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
                    s.uf_off[t as usize] = s.pending.size(c);
                    s.disc[t as usize].parent = c;
                    // t's entries now continue c's entry sequence. Its pending edges from inside
                    // h's subtree are absorbed: their sources join c, queued in LLVM's order (by
                    // entry, then predecessor); an entry whose last pending edge goes dies in t.
                    s.pending.adopt(c, t, (h0, h1), &mut s.absorbed);
                    for a in s.absorbed.iter_mut() {
                        let x = a.2;
                        a.0 = s.pending.pos[x.index()]
                            + find(&mut s.uf, &mut s.uf_off, o.born[x.index()]).1;
                        if s.pending.dec(x) {
                            o.death[x.index()] = t;
                        }
                    }
                    s.absorbed.sort_unstable_by_key(|a| (a.0, a.1));
                    for a in &s.absorbed {
                        s.worklist.push(s.pending.edge_source(a.1 as usize, g, a.2));
                    }
                } else {
                    self.innermost[x.index()] = c;
                    s.items.push(x.0);
                    let k = s
                        .pending
                        .scan(g, &s.dfs, c, x, (h0, h1), mode, &mut s.worklist);
                    if k > 0 {
                        o.born[x.index()] = c;
                        o.order.push(x);
                        s.pending.birth(c, x);
                    }
                }
            }
            let d = &mut s.disc[c as usize];
            d.reducible = s.pending.is_reducible(c);
            d.children.1 = s.children.len() as u32;
            s.items_range.push((items_start, s.items.len() as u32));
            s.top_pos[c as usize] = top.len() as u32;
            top.push(c);
        }
        // Entry-list order: by position in the top-level cycle's entry sequence.
        let mut keyed = std::mem::take(&mut s.keyed);
        keyed.clear();
        // `order` holds the born entries in birth order so far (no pass over every block).
        for &b in &o.order {
            let (root, off) = find(&mut s.uf, &mut s.uf_off, o.born[b.index()]);
            keyed.push((root, off + s.pending.pos[b.index()], b));
        }
        keyed.sort_unstable();
        o.order.clear();
        o.order.extend(keyed.iter().map(|k| k.2));
        self.scratch.keyed = keyed;
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
                let (c, k, new) = *frame;
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
                    // A block of c itself: its innermost cycle, in print numbering.
                    self.innermost[item as usize] = new;
                    self.layout.push(Block(item));
                }
            }
        }
        for (new, &old) in s.order.iter().enumerate() {
            s.renumber[old as usize] = new as u32;
        }
        // Child lists keep their discovery-order storage (each cycle has a range); only the ids
        // in them and the per-cycle records follow the new numbering.
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
        // A parent is numbered before its children.
        self.outermost.clear();
        for c in 0..self.cycles.len() {
            let p = self.cycles[c].parent;
            let r = if p == NONE {
                c as u32
            } else {
                self.outermost[p as usize]
            };
            self.outermost.push(r);
        }
        let o = &mut self.origins;
        for &b in &o.order {
            let i = b.index();
            o.born[i] = s.renumber[o.born[i] as usize];
            // Never absorbed completely: an entry up to its top-level cycle.
            o.death[i] = if o.death[i] == NONE {
                self.outermost[o.born[i] as usize]
            } else {
                s.renumber[o.death[i] as usize]
            };
        }
    }

    /// Builds every cycle's entry list: each born entry is appended to the cycles from its birth
    /// up to its death, in entry-list order, so the work is the total length of the lists.
    fn build_entry_lists(&self) -> EntryLists {
        let o = &self.origins;
        let mut count = vec![0u32; self.cycles.len() + 1];
        for &b in &o.order {
            let (mut c, d) = (o.born[b.index()], o.death[b.index()]);
            loop {
                count[c as usize + 1] += 1;
                if c == d {
                    break;
                }
                c = self.cycles[c as usize].parent;
            }
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        let range = (0..self.cycles.len())
            .map(|c| (count[c], count[c + 1]))
            .collect();
        let mut list = vec![Block(0); count[self.cycles.len()] as usize];
        for &b in &o.order {
            let (mut c, d) = (o.born[b.index()], o.death[b.index()]);
            loop {
                list[count[c as usize] as usize] = b;
                count[c as usize] += 1;
                if c == d {
                    break;
                }
                c = self.cycles[c as usize].parent;
            }
        }
        EntryLists { range, list }
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
    /// Whether the graph has no cycle at all.
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
    /// Number of top-level (depth 1) cycles.
    pub fn num_top_level(&self) -> usize {
        self.num_top_level as usize
    }
    /// The entries, in LLVM's order; the first is the header. The lists of all cycles are built
    /// together on the first call (their total length can be blocks × depth).
    pub fn entries(&self, c: Cycle) -> &[Block] {
        let e = self.entry_lists.get_or_init(|| self.build_entry_lists());
        let (a, b) = e.range[c.index()];
        &e.list[a as usize..b as usize]
    }
    /// The header: the first entry found by the DFS. For a reducible cycle the only entry; for an
    /// irreducible one, depends on the DFS order (the cycle hierarchy LLVM picks).
    #[inline]
    pub fn header(&self, c: Cycle) -> Block {
        self.cycles[c.index()].header
    }
    /// Whether `b` is an entry of `c`, in O(1): `b` is the header, or `c` lies between the cycle
    /// `b` is born an entry in and the outermost one it still enters.
    pub fn is_entry(&self, c: Cycle, b: Block) -> bool {
        let o = &self.origins;
        let born = o.born[b.index()];
        self.header(c) == b
            || (born != NONE
                && self.contains_cycle(c, Cycle(born))
                && self.contains_cycle(Cycle(o.death[b.index()]), c))
    }
    /// A cycle is reducible when it has a single entry.
    #[inline]
    pub fn is_reducible(&self, c: Cycle) -> bool {
        self.cycles[c.index()].reducible
    }
    /// Every block of the cycle, descendants' included, in LLVM's insertion order.
    #[inline]
    pub fn blocks(&self, c: Cycle) -> &[Block] {
        let (a, b) = self.cycles[c.index()].blocks;
        &self.layout[a as usize..b as usize]
    }
    /// The blocks of every top-level cycle, cycle after cycle in cycle order: each cycle's
    /// [`CycleInfo::blocks`] is one slice of it (children's slices nested in their parents').
    pub fn layout(&self) -> &[Block] {
        &self.layout
    }
    /// Where [`CycleInfo::blocks`] of `c` lies in [`CycleInfo::layout`]: `[start, end)`.
    #[inline]
    pub fn layout_range(&self, c: Cycle) -> (u32, u32) {
        self.cycles[c.index()].blocks
    }
    /// The cycles directly nested in `c`, in LLVM's order (adoption order during discovery).
    pub fn children(&self, c: Cycle) -> &[Cycle] {
        let (a, b) = self.cycles[c.index()].children;
        &self.children[a as usize..b as usize]
    }
    /// The innermost cycle strictly containing `c`; `None` at top level.
    #[inline]
    pub fn parent(&self, c: Cycle) -> Option<Cycle> {
        let p = self.cycles[c.index()].parent;
        (p != NONE).then_some(Cycle(p))
    }
    /// The top-level cycle containing `c` (`c` itself at top level).
    #[inline]
    pub fn outermost(&self, c: Cycle) -> Cycle {
        Cycle(self.outermost[c.index()])
    }
    /// Top-level cycles have depth 1.
    #[inline]
    pub fn depth(&self, c: Cycle) -> u32 {
        self.cycles[c.index()].depth
    }
    /// The innermost cycle containing `b`.
    #[inline]
    pub fn cycle_of(&self, b: Block) -> Option<Cycle> {
        let c = self.innermost[b.index()];
        (c != NONE).then_some(Cycle(c))
    }
    /// The index of the innermost cycle containing `b`, or `u32::MAX` when none (the raw form
    /// of [`CycleInfo::cycle_of`], for callers that keep cycles as plain indices).
    #[inline]
    pub fn innermost_raw(&self, b: Block) -> u32 {
        self.innermost[b.index()]
    }
    /// [`CycleInfo::innermost_raw`] of every block, indexed by block (for loops over many
    /// blocks: one slice instead of a field load per lookup).
    #[inline]
    pub fn innermost_all(&self) -> &[u32] {
        &self.innermost
    }
    /// Depth of the innermost cycle containing `b`, 0 when none.
    #[inline]
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
    /// [`CycleInfo::exit_blocks`] into `out` (cleared first), its duplicates dropped with `seen`
    /// (scratch: all false, and left so, grown to the graph's size) instead of a sort: linear in
    /// the cycle's edges, for printers that list the exits of every cycle of a deep nest.
    pub fn exit_blocks_into<G: Graph + ?Sized>(
        &self,
        g: &G,
        c: Cycle,
        seen: &mut Vec<bool>,
        out: &mut Vec<Block>,
    ) {
        out.clear();
        if seen.len() < g.num_blocks() {
            seen.resize(g.num_blocks(), false);
        }
        for &b in self.blocks(c) {
            for &s in g.succs(b) {
                if !self.contains(c, s) && !seen[s.index()] {
                    seen[s.index()] = true;
                    out.push(s);
                }
            }
        }
        for &s in out.iter() {
            seen[s.index()] = false;
        }
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
            self.write_llvm_line(out, c, &mut name);
            out.push('\n');
        }
    }
    /// One cycle as LLVM prints it (`depth=N: entries(E…) B…`, no indent or newline): the one
    /// printer behind `print<cycles>`, `print<uniformity>` and the token verifier's cycle notes.
    pub fn write_llvm_line(
        &self,
        out: &mut String,
        c: Cycle,
        name: impl FnMut(Block, &mut String),
    ) {
        let mut sorted: Vec<Block> = self.entries(c).to_vec();
        sorted.sort_unstable();
        let others = self
            .blocks(c)
            .iter()
            .copied()
            .filter(|b| sorted.binary_search(b).is_err());
        write_cycle_line(out, self.depth(c), self.entries(c), others, name);
    }
}

/// `depth=N: entries(E…) B…`: a cycle as LLVM's `GenericCycle::print` writes it, from its depth,
/// its entries and its other blocks, `name` rendering a block. [`CycleInfo::write_llvm_line`] and
/// every other printer of a cycle (hierarchies that are not a `CycleInfo`, like the token
/// verifier's) go through this function.
pub fn write_cycle_line(
    out: &mut String,
    depth: u32,
    entries: &[Block],
    others: impl IntoIterator<Item = Block>,
    mut name: impl FnMut(Block, &mut String),
) {
    out.push_str("depth=");
    out.push_str(&depth.to_string());
    out.push_str(": entries(");
    for (i, &e) in entries.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        name(e, out);
    }
    out.push(')');
    for b in others {
        out.push(' ');
        name(b, out);
    }
}

fn enter(s: &mut Scratch, c: u32, layout_len: usize) {
    let new = s.order.len() as u32;
    s.order.push(c);
    s.disc[c as usize].blocks.0 = layout_len as u32;
    s.stack.push((c, s.items_range[c as usize].0, new));
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

/// Union-find root with path halving, and the offset of `x`'s entry sequence inside the root's
/// (offsets add up along the path; halving folds a parent's offset into its child's).
#[inline]
fn find(uf: &mut [u32], off: &mut [u32], mut x: u32) -> (u32, u32) {
    let mut acc = 0;
    while uf[x as usize] != x {
        let p = uf[x as usize];
        off[x as usize] += off[p as usize];
        uf[x as usize] = uf[p as usize];
        acc += off[x as usize];
        x = uf[x as usize];
    }
    (x, acc)
}

const NIL: u32 = u32::MAX;

/// The edges entering each top-level cycle from outside its header's DFS subtree, and the entry
/// sequence they index into.
///
/// LLVM re-scans every entry of a cycle when an enclosing cycle adopts it; in a deep irreducible
/// nest an entry stays one for many levels and those re-scans cost blocks × depth. Here each such
/// edge p→x is a node of two pairing heaps per cycle keyed by p's DFS preorder number: sources
/// before the header's subtree (a max-heap) and after it (a min-heap). Adoption by a header
/// whose subtree is [h0, h1] pops exactly the edges whose source lies inside it (the subtrees of
/// adopting headers are nested, so those are the heaps' extreme keys) and melds the rest in O(1).
/// Each edge is popped once; popped edges are sorted by (position of x in the entry sequence,
/// predecessor index), the order in which LLVM's re-scan queues their sources.
///
/// The entry sequence of a cycle is its header, then in discovery order its own blocks born as
/// entries and its children's sequences, whole (dead entries keep their slots): a cycle's entry
/// list is the subsequence of live entries, and positions relative to the top-level cycle are
/// found through the weighted union-find.
#[derive(Clone, Debug, Default)]
struct Pending {
    /// Heap nodes, one per pending edge.
    nodes: Vec<HeapNode>,
    /// Per cycle (discovery numbering).
    cycles: Vec<PendingCycle>,
    /// Per block born as an entry: position in its birth cycle's sequence; pending edges left.
    pos: Vec<u32>,
    left: Vec<u32>,
    scratch: Vec<u32>,
}

/// One pending edge as a pairing-heap node (the fields one push writes together).
#[derive(Copy, Clone, Debug)]
struct HeapNode {
    key: u32,
    child: u32,
    sibling: u32,
    /// The edge: target block and index of the source among its predecessors.
    target: Block,
    pred_index: u32,
}

/// A cycle's pending edges: roots of the heap of sources before the subtree (key: !preorder)
/// and after it (key: preorder); length of its entry sequence; pending edges, and those into
/// the header.
#[derive(Copy, Clone, Debug)]
struct PendingCycle {
    before: u32,
    after: u32,
    size: u32,
    total: u32,
    into_header: u32,
}

impl Pending {
    fn reset(&mut self, n: usize) {
        self.nodes.clear();
        self.cycles.clear();
        self.pos.clear();
        self.pos.resize(n, 0);
        self.left.clear();
        self.left.resize(n, 0);
    }

    #[inline]
    fn new_cycle(&mut self) {
        self.cycles.push(PendingCycle {
            before: NIL,
            after: NIL,
            size: 0,
            total: 0,
            into_header: NIL,
        });
    }

    /// The length of `c`'s entry sequence.
    #[inline]
    fn size(&self, c: u32) -> u32 {
        self.cycles[c as usize].size
    }

    /// `x` becomes an entry of `c`: it takes the next position of `c`'s entry sequence.
    fn birth(&mut self, c: u32, x: Block) {
        let cy = &mut self.cycles[c as usize];
        self.pos[x.index()] = cy.size;
        cy.size += 1;
    }

    /// LLVM's `ProcessPredecessors` for `x` in the cycle `c` with header subtree `[h0, h1]`:
    /// predecessors inside the subtree are queued, the others become pending edges of `c`.
    /// Returns how many; a block other than the header is an entry iff any.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn scan<G: Graph + ?Sized>(
        &mut self,
        g: &G,
        dfs: &CycleDfs,
        c: u32,
        x: Block,
        (h0, h1): (u32, u32),
        mode: UnreachablePreds,
        worklist: &mut Vec<Block>,
    ) -> u32 {
        let mut k = 0u32;
        for (i, &p) in g.preds(x).iter().enumerate() {
            let sp = dfs.start(p);
            if sp != 0 && h0 <= sp && sp <= h1 {
                worklist.push(p);
            } else if sp != 0 {
                let node = self.nodes.len() as u32;
                self.nodes.push(HeapNode {
                    key: if sp < h0 { !sp } else { sp },
                    child: NIL,
                    sibling: NIL,
                    target: x,
                    pred_index: i as u32,
                });
                let cy = &mut self.cycles[c as usize];
                let root = if sp < h0 {
                    &mut cy.before
                } else {
                    &mut cy.after
                };
                *root = meld(&mut self.nodes, *root, node);
                k += 1;
            } else if mode == UnreachablePreds::AreEntries {
                // LLVM 19: an unreachable predecessor is outside every cycle, never absorbed.
                k += 1;
            }
        }
        self.left[x.index()] = k;
        self.cycles[c as usize].total += k;
        k
    }

    /// `t` joins `c` (header subtree `[h0, h1]`): its sequence is appended to `c`'s, the edges
    /// it absorbs go to `out` as (0, node, target), the rest are melded into `c`'s heaps.
    fn adopt(&mut self, c: u32, t: u32, (h0, h1): (u32, u32), out: &mut Vec<(u32, u32, Block)>) {
        out.clear();
        let ty = self.cycles[t as usize];
        self.cycles[c as usize].size += ty.size;
        let before = self.pop_up_to(ty.before, !h0, out);
        let after = self.pop_up_to(ty.after, h1, out);
        let cb = self.cycles[c as usize].before;
        let ca = self.cycles[c as usize].after;
        let before = meld(&mut self.nodes, cb, before);
        let after = meld(&mut self.nodes, ca, after);
        let cy = &mut self.cycles[c as usize];
        cy.total += ty.total - out.len() as u32;
        cy.before = before;
        cy.after = after;
    }

    /// Pops every node with key ≤ `bound` (two-pass pairing); returns the new root.
    fn pop_up_to(&mut self, mut root: u32, bound: u32, out: &mut Vec<(u32, u32, Block)>) -> u32 {
        while root != NIL && self.nodes[root as usize].key <= bound {
            out.push((0, root, self.nodes[root as usize].target));
            let mut c = self.nodes[root as usize].child;
            self.scratch.clear();
            while c != NIL {
                let a = c;
                let b = self.nodes[a as usize].sibling;
                if b == NIL {
                    self.nodes[a as usize].sibling = NIL;
                    self.scratch.push(a);
                    break;
                }
                c = self.nodes[b as usize].sibling;
                self.nodes[a as usize].sibling = NIL;
                self.nodes[b as usize].sibling = NIL;
                let m = meld(&mut self.nodes, a, b);
                self.scratch.push(m);
            }
            root = NIL;
            while let Some(m) = self.scratch.pop() {
                root = meld(&mut self.nodes, m, root);
            }
        }
        root
    }

    /// One pending edge into `x` absorbed; true when it was the last.
    fn dec(&mut self, x: Block) -> bool {
        self.left[x.index()] -= 1;
        self.left[x.index()] == 0
    }

    fn edge_source<G: Graph + ?Sized>(&self, node: usize, g: &G, x: Block) -> Block {
        g.preds(x)[self.nodes[node].pred_index as usize]
    }

    /// No edge from outside enters `c` but into its header.
    fn is_reducible(&self, c: u32) -> bool {
        let cy = &self.cycles[c as usize];
        cy.total == cy.into_header
    }
}

/// Pairing-heap meld of two roots (either may be `NIL`).
#[inline]
fn meld(nodes: &mut [HeapNode], a: u32, b: u32) -> u32 {
    if a == NIL {
        return b;
    }
    if b == NIL {
        return a;
    }
    let (r, o) = if nodes[a as usize].key <= nodes[b as usize].key {
        (a, b)
    } else {
        (b, a)
    };
    nodes[o as usize].sibling = nodes[r as usize].child;
    nodes[r as usize].child = o;
    r
}
