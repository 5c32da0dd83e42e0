//! Path witnesses on the CFG: two disjoint paths from a branch to a join (unit-capacity max-flow
//! with vertex splitting, two BFS augmentations, so O(E) per query), and shortest paths by BFS.
//! Everything is iterative.

use converge_graph::{Block, Graph};

/// Two paths `b → s1 → … → j` and `b → s2 → … → j` that share only `b` and `j` (the seeds'
/// definition of disjoint paths, starting at distinct successors), or `None`. The blocks of
/// `stops` other than `j` are not used (the branch itself is never an inner block, but may be
/// `j`). One query with fresh buffers; [`disjoint_paths_with`] reuses them.
pub fn disjoint_paths<G: Graph>(
    g: &G,
    b: Block,
    j: Block,
    stops: &[Block],
) -> Option<[Vec<Block>; 2]> {
    disjoint_paths_with(g, b, j, stops, &mut PathScratch::default())
}

/// The buffers of [`disjoint_paths_with`], kept between queries on one graph, and the blocks
/// reachable from the last branch asked about (see there).
#[derive(Default)]
pub struct PathScratch {
    /// The (branch, stops) whose reachable blocks `reach` holds, and the graph's size then.
    reach_of: Option<(Block, Vec<Block>, usize)>,
    /// Per block: reachable from a successor of the branch through blocks other than the branch
    /// and the stops.
    reach: Vec<bool>,
    /// Per block: `on_stamp` when the block is on a path to the current join.
    on_path: Vec<u32>,
    on_stamp: u32,
    /// The blocks on a path to the current join other than the join, in increasing order.
    region: Vec<Block>,
    stack: Vec<Block>,
    firsts: Vec<Block>,
    flow: Flow,
}

/// [`disjoint_paths`] with buffers reused across queries: the same answer, paths included.
///
/// Why it is cheap for many joins of one branch: only blocks on a path from the branch to `j`
/// can carry flow. They are the blocks that reach `j` among those reachable from the branch's
/// successors, and the second set does not depend on `j`, so it is computed once per (branch,
/// stops) and each query walks back from `j` only. That set also holds blocks reached only
/// through `j`; they are not reachable from the source of the flow network (`j` is its sink and
/// has no outgoing edges there), so they never carry flow and the augmenting paths, found in the
/// same order over the same edges, are the same.
pub fn disjoint_paths_with<G: Graph>(
    g: &G,
    b: Block,
    j: Block,
    stops: &[Block],
    sc: &mut PathScratch,
) -> Option<[Vec<Block>; 2]> {
    let n = g.num_blocks();
    // `j == b` is allowed: a branch can be a join of itself (a cycle header whose branch reaches
    // it again along two latches). `j` is allowed even when it is a stop.
    let allowed = |v: Block| v == j || (v != b && !stops.contains(&v));
    sc.firsts.clear();
    for &s in g.succs(b) {
        if allowed(s) && !sc.firsts.contains(&s) {
            sc.firsts.push(s);
        }
    }
    if sc.firsts.len() < 2 {
        return None;
    }
    sc.reach_from(g, b, stops);
    // `j` is reachable iff it is a successor or some other block reaching it is (a block reached
    // only through `j` implies that `j` is reachable too).
    if !sc.firsts.contains(&j) && !g.preds(j).iter().any(|&p| p != j && sc.reach[p.index()]) {
        return None;
    }
    // The blocks on a path to `j`: backwards from `j` through reachable blocks.
    if sc.on_path.len() < n {
        sc.on_path.resize(n, 0);
    }
    sc.on_stamp = sc.on_stamp.wrapping_add(1);
    if sc.on_stamp == 0 {
        sc.on_path.fill(0);
        sc.on_stamp = 1;
    }
    let stamp = sc.on_stamp;
    sc.on_path[j.index()] = stamp;
    sc.stack.clear();
    sc.stack.push(j);
    while let Some(x) = sc.stack.pop() {
        for &w in g.preds(x) {
            if sc.reach[w.index()] && sc.on_path[w.index()] != stamp && w != j {
                sc.on_path[w.index()] = stamp;
                sc.stack.push(w);
            }
        }
    }
    // The network: the source's edges first, then each block of the region in increasing order,
    // as the edge lists' order decides which augmenting paths are found (a scan of the stamps:
    // cheaper than sorting the region, which is a large part of the blocks).
    sc.region.clear();
    sc.region.extend(
        (0..n as u32)
            .map(Block)
            .filter(|&v| v != j && sc.on_path[v.index()] == stamp),
    );
    let src = 2 * n;
    let fl = &mut sc.flow;
    fl.reset(2 * n + 1);
    for &s in &sc.firsts {
        fl.add(src, 2 * s.index(), 1);
    }
    let on = |w: Block| sc.on_path[w.index()] == stamp;
    let mut edges = 0;
    for &v in &sc.region {
        edges += 1 + g.succs(v).iter().filter(|&&w| on(w)).count();
    }
    fl.reserve(2 * edges);
    for &v in &sc.region {
        fl.add(2 * v.index(), 2 * v.index() + 1, 1);
        for &w in g.succs(v) {
            if on(w) {
                fl.add(2 * v.index() + 1, 2 * w.index(), 1);
            }
        }
    }
    let sink = 2 * j.index();
    for _ in 0..2 {
        if !fl.augment(src, sink) {
            return None;
        }
    }
    fl.decompose(b, src, sink, n)
}

impl PathScratch {
    /// Fills `reach` for branch `b` and `stops`, unless it holds them already.
    fn reach_from<G: Graph>(&mut self, g: &G, b: Block, stops: &[Block]) {
        let n = g.num_blocks();
        if let Some((rb, rs, rn)) = &self.reach_of
            && *rb == b
            && rs == stops
            && *rn == n
        {
            return;
        }
        let allowed = |v: Block| v != b && !stops.contains(&v);
        self.reach.clear();
        self.reach.resize(n, false);
        self.stack.clear();
        for &s in g.succs(b) {
            if allowed(s) && !self.reach[s.index()] {
                self.reach[s.index()] = true;
                self.stack.push(s);
            }
        }
        while let Some(x) = self.stack.pop() {
            for &w in g.succs(x) {
                if !self.reach[w.index()] && allowed(w) {
                    self.reach[w.index()] = true;
                    self.stack.push(w);
                }
            }
        }
        self.reach_of = Some((b, stops.to_vec(), n));
    }
}

const NIL: u32 = u32::MAX;

/// A residual graph: edge `k` and its reverse `k ^ 1`; the buffers are kept between queries.
#[derive(Default)]
struct Flow {
    head: Vec<u32>,
    next: Vec<u32>,
    to: Vec<u32>,
    cap: Vec<u8>,
    /// Breadth-first search state of [`Flow::augment`]: the edge a node was reached by, valid
    /// where `seen` holds `seen_stamp`.
    via: Vec<u32>,
    seen: Vec<u32>,
    seen_stamp: u32,
    queue: Vec<u32>,
    used: Vec<bool>,
}

impl Flow {
    /// An empty network of `n` nodes.
    fn reset(&mut self, n: usize) {
        self.head.clear();
        self.head.resize(n, NIL);
        self.next.clear();
        self.to.clear();
        self.cap.clear();
        if self.seen.len() < n {
            self.seen.resize(n, 0);
            self.via.resize(n, NIL);
        }
    }
    /// Room for `k` more edges (reverse edges included).
    fn reserve(&mut self, k: usize) {
        self.next.reserve(k);
        self.to.reserve(k);
        self.cap.reserve(k);
    }
    fn add(&mut self, a: usize, b: usize, c: u8) {
        for (x, y, c) in [(a, b, c), (b, a, 0)] {
            self.to.push(y as u32);
            self.cap.push(c);
            self.next.push(self.head[x]);
            self.head[x] = (self.to.len() - 1) as u32;
        }
    }
    fn augment(&mut self, s: usize, t: usize) -> bool {
        self.seen_stamp = self.seen_stamp.wrapping_add(1);
        if self.seen_stamp == 0 {
            self.seen.fill(0);
            self.seen_stamp = 1;
        }
        let stamp = self.seen_stamp;
        self.queue.clear();
        self.queue.push(s as u32);
        self.seen[s] = stamp;
        let mut at = 0;
        while let Some(&x) = self.queue.get(at) {
            at += 1;
            let x = x as usize;
            if x == t {
                break;
            }
            let mut e = self.head[x];
            while e != NIL {
                let k = e as usize;
                let y = self.to[k] as usize;
                if self.cap[k] > 0 && self.seen[y] != stamp {
                    self.seen[y] = stamp;
                    self.via[y] = e;
                    self.queue.push(y as u32);
                }
                e = self.next[k];
            }
        }
        if self.seen[t] != stamp {
            return false;
        }
        let mut y = t;
        while y != s {
            let k = self.via[y] as usize;
            self.cap[k] -= 1;
            self.cap[k ^ 1] += 1;
            y = self.to[k ^ 1] as usize;
        }
        true
    }
    /// The two paths of a flow of two from `src` to `sink`: saturated forward edges followed from
    /// the source (node `2v` is block `v`'s entry, `2v + 1` its exit).
    fn decompose(
        &mut self,
        b: Block,
        src: usize,
        sink: usize,
        n: usize,
    ) -> Option<[Vec<Block>; 2]> {
        let mut paths: [Vec<Block>; 2] = [Vec::new(), Vec::new()];
        self.used.clear();
        self.used.resize(self.to.len(), false);
        for p in &mut paths {
            p.push(b);
            let mut at = src;
            let mut steps = 0;
            while at != sink {
                let mut e = self.head[at];
                let mut next = None;
                while e != NIL {
                    let k = e as usize;
                    if k.is_multiple_of(2) && self.cap[k] == 0 && !self.used[k] {
                        self.used[k] = true;
                        next = Some(self.to[k] as usize);
                        break;
                    }
                    e = self.next[k];
                }
                let nx = next?;
                if nx.is_multiple_of(2) {
                    p.push(Block((nx / 2) as u32));
                }
                at = nx;
                steps += 1;
                if steps > 2 * n + 2 {
                    return None;
                }
            }
        }
        Some(paths)
    }
}

/// A breadth-first search whose buffers are kept between searches on one graph: each search
/// costs the blocks it visits, not the graph's size (a fresh search clears two arrays of the
/// graph's size, which made one search per branch and cycle quadratic on deep nests).
///
/// It visits blocks in the order [`shortest_path`] does (a FIFO queue, successors in order, a
/// block reached first through the block popped first), so a path it returns is the same.
#[derive(Default)]
pub struct Bfs {
    /// Per block, the block it was reached from (`NIL` for a start), valid where `seen` holds
    /// `stamp`.
    via: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
    queue: Vec<Block>,
    head: usize,
}

impl Bfs {
    /// Starts a new search from `starts` (those `allowed`, each once).
    pub fn start<G: Graph>(&mut self, g: &G, starts: &[Block], allowed: &dyn Fn(Block) -> bool) {
        let n = g.num_blocks();
        if self.seen.len() != n {
            self.seen.clear();
            self.seen.resize(n, 0);
            self.via.resize(n, NIL);
            self.stamp = 0;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.queue.clear();
        self.head = 0;
        for &s in starts {
            if allowed(s) && self.seen[s.index()] != self.stamp {
                self.seen[s.index()] = self.stamp;
                self.via[s.index()] = NIL;
                self.queue.push(s);
            }
        }
    }

    /// The next block in breadth-first order (`None`: the search is over); its allowed
    /// successors not seen yet are queued, reached from it.
    pub fn next<G: Graph>(&mut self, g: &G, allowed: &dyn Fn(Block) -> bool) -> Option<Block> {
        let x = *self.queue.get(self.head)?;
        self.head += 1;
        for &w in g.succs(x) {
            if allowed(w) && self.seen[w.index()] != self.stamp {
                self.seen[w.index()] = self.stamp;
                self.via[w.index()] = x.0;
                self.queue.push(w);
            }
        }
        Some(x)
    }

    /// The path from a start to `x`, a block this search has reached.
    pub fn path_to(&self, x: Block) -> Vec<Block> {
        let mut path = vec![x];
        let mut y = x;
        while self.via[y.index()] != NIL {
            y = Block(self.via[y.index()]);
            path.push(y);
        }
        path.reverse();
        path
    }

    /// [`shortest_path`] with these buffers: the same answer.
    pub fn shortest_path<G: Graph>(
        &mut self,
        g: &G,
        starts: &[Block],
        target: &dyn Fn(Block) -> bool,
        allowed: &dyn Fn(Block) -> bool,
    ) -> Option<Vec<Block>> {
        self.start(g, starts, allowed);
        while let Some(x) = self.next(g, allowed) {
            if target(x) {
                return Some(self.path_to(x));
            }
        }
        None
    }
}

/// The shortest path from one of `starts` to a block satisfying `target`, using only blocks for
/// which `allowed` holds (the start blocks must be allowed too).
pub fn shortest_path<G: Graph>(
    g: &G,
    starts: &[Block],
    target: &dyn Fn(Block) -> bool,
    allowed: &dyn Fn(Block) -> bool,
) -> Option<Vec<Block>> {
    let n = g.num_blocks();
    let mut via = vec![NIL; n];
    let mut seen = vec![false; n];
    let mut queue = std::collections::VecDeque::new();
    for &s in starts {
        if allowed(s) && !seen[s.index()] {
            seen[s.index()] = true;
            queue.push_back(s);
        }
    }
    while let Some(x) = queue.pop_front() {
        if target(x) {
            let mut path = vec![x];
            let mut y = x;
            while via[y.index()] != NIL {
                y = Block(via[y.index()]);
                path.push(y);
            }
            path.reverse();
            return Some(path);
        }
        for &w in g.succs(x) {
            if allowed(w) && !seen[w.index()] {
                seen[w.index()] = true;
                via[w.index()] = x.0;
                queue.push_back(w);
            }
        }
    }
    None
}

/// For every block `j`, whether [`disjoint_paths`]`(g, b, j, stop)` finds two paths: one
/// dominator tree instead of one max-flow per candidate join.
///
/// Why it is the same answer (Menger's theorem, vertex form): add a root `r` with an edge to each
/// distinct successor of `b`, and drop the outgoing edges of `b` and of the `stop` blocks (they
/// may end a path, never continue one). Two paths from `r` to `j` sharing only their ends exist
/// iff no single block separates `j` from `r`, that is iff `r` is `j`'s immediate dominator;
/// when `j` is itself a successor (the edge `r → j` is one path) iff `j` is also reachable
/// without that edge, through a predecessor that `j` does not dominate.
pub fn join_set<G: Graph>(g: &G, b: Block, stop: &[Block]) -> Vec<bool> {
    let n = g.num_blocks();
    let mut cut = vec![false; n];
    cut[b.index()] = true;
    for &x in stop {
        cut[x.index()] = true;
    }
    let mut firsts: Vec<Block> = Vec::new();
    for &s in g.succs(b) {
        if !firsts.contains(&s) {
            firsts.push(s);
        }
    }
    let root = Block(n as u32);
    let succs = (0..n)
        .map(|v| {
            if cut[v] {
                &[][..]
            } else {
                g.succs(Block(v as u32))
            }
        })
        .chain(std::iter::once(&firsts[..]))
        .map(|s| s.iter().copied());
    let h = converge_graph::Cfg::from_succs(root, n + 1, succs);
    let dom = converge_graph::DominatorTree::new(&h);
    let mut out = vec![false; n];
    if firsts.len() < 2 {
        return out;
    }
    for (j, o) in out.iter_mut().enumerate() {
        let jb = Block(j as u32);
        if !dom.is_reachable(jb) {
            continue;
        }
        *o = if firsts.contains(&jb) {
            h.preds(jb)
                .iter()
                .any(|&p| p != root && p != jb && dom.is_reachable(p) && !dom.dominates(jb, p))
        } else {
            dom.idom(jb) == Some(root)
        };
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use converge_graph::Cfg;

    /// A small deterministic generator (xorshift) of graphs with self-loops, multi-edges and
    /// unreachable blocks.
    pub(crate) fn graphs() -> impl Iterator<Item = Cfg> {
        graphs_of(400, 10, 4)
    }

    /// `count` graphs of 2 to `max_n` blocks with 0 to `max_succs - 1` successors each.
    fn graphs_of(count: usize, max_n: u64, max_succs: u64) -> impl Iterator<Item = Cfg> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..count).map(move |_| {
            let n = 2 + (next() % (max_n - 1)) as usize;
            let succs: Vec<Vec<Block>> = (0..n)
                .map(|_| {
                    (0..next() % max_succs)
                        .map(|_| Block((next() % n as u64) as u32))
                        .collect()
                })
                .collect();
            Cfg::from_succs(Block(0), n, succs)
        })
    }

    #[test]
    fn join_set_agrees_with_max_flow() {
        let mut positives = 0;
        for g in graphs() {
            let n = g.num_blocks();
            for b in (0..n as u32).map(Block) {
                for stop in [
                    vec![],
                    vec![Block(0)],
                    vec![Block((n - 1) as u32), Block(1)],
                ] {
                    let set = join_set(&g, b, &stop);
                    for j in (0..n as u32).map(Block) {
                        let flow = disjoint_paths(&g, b, j, &stop);
                        assert_eq!(
                            set[j.index()],
                            flow.is_some(),
                            "{g:?} b={b:?} j={j:?} {stop:?}"
                        );
                        positives += usize::from(flow.is_some());
                    }
                }
            }
        }
        assert!(positives > 100, "the generator makes joins ({positives})");
    }

    /// The search as it was before the reachable blocks were shared between joins: the blocks
    /// reachable from the successors are found again for each join, stopping at the join.
    fn paths_per_join(g: &Cfg, b: Block, j: Block, stops: &[Block]) -> Option<[Vec<Block>; 2]> {
        let n = g.num_blocks();
        let allowed = |v: Block| v == j || (v != b && !stops.contains(&v));
        let mut firsts: Vec<Block> = Vec::new();
        for &s in g.succs(b) {
            if allowed(s) && !firsts.contains(&s) {
                firsts.push(s);
            }
        }
        if firsts.len() < 2 {
            return None;
        }
        let mut fwd = vec![false; n];
        let mut stack = firsts.clone();
        for s in &firsts {
            fwd[s.index()] = true;
        }
        while let Some(x) = stack.pop() {
            if x == j {
                continue;
            }
            for &w in g.succs(x) {
                if !fwd[w.index()] && allowed(w) {
                    fwd[w.index()] = true;
                    stack.push(w);
                }
            }
        }
        if !fwd[j.index()] {
            return None;
        }
        let mut on_path = vec![false; n];
        on_path[j.index()] = true;
        stack.push(j);
        while let Some(x) = stack.pop() {
            for &w in g.preds(x) {
                if fwd[w.index()] && !on_path[w.index()] && w != j {
                    on_path[w.index()] = true;
                    stack.push(w);
                }
            }
        }
        let mut fl = Flow::default();
        fl.reset(2 * n + 1);
        for s in &firsts {
            fl.add(2 * n, 2 * s.index(), 1);
        }
        for v in (0..n).filter(|&v| on_path[v] && v != j.index()) {
            fl.add(2 * v, 2 * v + 1, 1);
            for &w in g.succs(Block(v as u32)) {
                if on_path[w.index()] {
                    fl.add(2 * v + 1, 2 * w.index(), 1);
                }
            }
        }
        (fl.augment(2 * n, 2 * j.index()) && fl.augment(2 * n, 2 * j.index()))
            .then(|| fl.decompose(b, 2 * n, 2 * j.index(), n))
            .flatten()
    }

    /// One scratch for every query of every graph, branches and stop sets interleaved: the same
    /// paths as the search per join, and they are paths from `b` to `j` sharing only their ends
    /// that avoid the stops.
    #[test]
    fn shared_reachable_blocks_give_the_same_paths() {
        let mut found = 0;
        let mut sc = PathScratch::default();
        for g in graphs().chain(graphs_of(60, 40, 5)) {
            let n = g.num_blocks();
            for j in (0..n as u32).map(Block) {
                for b in (0..n as u32).map(Block) {
                    for stops in [vec![], vec![Block((n - 1) as u32), Block(1)]] {
                        let got = disjoint_paths_with(&g, b, j, &stops, &mut sc);
                        assert_eq!(
                            got,
                            paths_per_join(&g, b, j, &stops),
                            "{g:?} b={b:?} j={j:?}"
                        );
                        let Some(ps) = got else { continue };
                        found += 1;
                        for p in &ps {
                            assert_eq!((p[0], *p.last().unwrap()), (b, j));
                            assert!(p.windows(2).all(|e| g.succs(e[0]).contains(&e[1])));
                            assert!(
                                p[1..p.len() - 1]
                                    .iter()
                                    .all(|x| !stops.contains(x) && *x != b)
                            );
                        }
                        let inner = |p: &Vec<Block>| p[1..p.len() - 1].to_vec();
                        assert!(inner(&ps[0]).iter().all(|x| !inner(&ps[1]).contains(x)));
                        assert_ne!(ps[0][1], ps[1][1]);
                    }
                }
            }
        }
        assert!(found > 100, "the generator makes joins ({found})");
    }
}
