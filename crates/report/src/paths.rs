//! Path witnesses on the CFG: two disjoint paths from a branch to a join (unit-capacity max-flow
//! with vertex splitting, two BFS augmentations, so O(E) per query), and shortest paths by BFS.
//! Everything is iterative.

use converge_graph::{Block, Graph};

/// Two paths `b → s1 → … → j` and `b → s2 → … → j` that share only `b` and `j` (the seeds'
/// definition of disjoint paths, starting at distinct successors), or `None`. Blocks for which
/// `forbidden` holds are not used (the branch itself is never an inner block, but may be `j`).
pub fn disjoint_paths<G: Graph>(
    g: &G,
    b: Block,
    j: Block,
    forbidden: &dyn Fn(Block) -> bool,
) -> Option<[Vec<Block>; 2]> {
    // `j == b` is allowed: a branch can be a join of itself (a cycle header whose branch reaches
    // it again along two latches).
    if forbidden(j) {
        return None;
    }
    let n = g.num_blocks();
    let src = 2 * n;
    let mut fl = Flow::new(2 * n + 1);
    let allowed = |v: Block| (v != b || v == j) && !forbidden(v);
    let mut firsts: Vec<Block> = Vec::new();
    for &s in g.succs(b) {
        if allowed(s) && !firsts.contains(&s) {
            firsts.push(s);
            fl.add(src, 2 * s.index(), 1);
        }
    }
    if firsts.len() < 2 {
        return None;
    }
    // Only blocks on some path from the branch to `j` can carry flow: those reachable from a
    // successor that also reach `j` (both through allowed blocks). Restricting the flow network
    // to them changes no augmenting path (the others are dead ends of the residual graph) and
    // makes the usual query, a join candidate far from most of the CFG, cheap.
    let mut fwd = vec![false; n];
    let mut stack: Vec<Block> = Vec::new();
    for &s in &firsts {
        if !fwd[s.index()] {
            fwd[s.index()] = true;
            stack.push(s);
        }
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
    // The network's size first, so that its edge lists grow once (their reallocations were an
    // eighth of `explain`'s time on big irreducible regions).
    let mut edges = 0;
    for v in (0..n).filter(|&v| on_path[v] && v != j.index()) {
        edges += 1 + g
            .succs(Block(v as u32))
            .iter()
            .filter(|w| on_path[w.index()])
            .count();
    }
    fl.reserve(2 * edges);
    for v in 0..n {
        let bv = Block(v as u32);
        if !on_path[v] || bv == j {
            continue;
        }
        fl.add(2 * v, 2 * v + 1, 1);
        for &w in g.succs(bv) {
            if on_path[w.index()] {
                fl.add(2 * v + 1, 2 * w.index(), 1);
            }
        }
    }
    let sink = 2 * j.index();
    for _ in 0..2 {
        if !fl.augment(src, sink) {
            return None;
        }
    }
    // Decompose: follow saturated forward edges from the source.
    let mut paths: [Vec<Block>; 2] = [Vec::new(), Vec::new()];
    let mut used = vec![false; fl.to.len()];
    for p in &mut paths {
        p.push(b);
        let mut at = src;
        let mut steps = 0;
        while at != sink {
            let mut e = fl.head[at];
            let mut next = None;
            while e != NIL {
                let k = e as usize;
                if k.is_multiple_of(2) && fl.cap[k] == 0 && !used[k] {
                    used[k] = true;
                    next = Some(fl.to[k]);
                    break;
                }
                e = fl.next[k];
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

const NIL: u32 = u32::MAX;

/// A residual graph: edge `k` and its reverse `k ^ 1`.
struct Flow {
    head: Vec<u32>,
    next: Vec<u32>,
    to: Vec<usize>,
    cap: Vec<u8>,
}

impl Flow {
    fn new(n: usize) -> Flow {
        Flow {
            head: vec![NIL; n],
            next: Vec::new(),
            to: Vec::new(),
            cap: Vec::new(),
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
            self.to.push(y);
            self.cap.push(c);
            self.next.push(self.head[x]);
            self.head[x] = (self.to.len() - 1) as u32;
        }
    }
    fn augment(&mut self, s: usize, t: usize) -> bool {
        let mut via = vec![NIL; self.head.len()];
        let mut seen = vec![false; self.head.len()];
        let mut queue = std::collections::VecDeque::from([s]);
        seen[s] = true;
        while let Some(x) = queue.pop_front() {
            if x == t {
                break;
            }
            let mut e = self.head[x];
            while e != NIL {
                let k = e as usize;
                let y = self.to[k];
                if self.cap[k] > 0 && !seen[y] {
                    seen[y] = true;
                    via[y] = e;
                    queue.push_back(y);
                }
                e = self.next[k];
            }
        }
        if !seen[t] {
            return false;
        }
        let mut y = t;
        while y != s {
            let k = via[y] as usize;
            self.cap[k] -= 1;
            self.cap[k ^ 1] += 1;
            y = self.to[k ^ 1];
        }
        true
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

/// For every block `j`, whether [`disjoint_paths`]`(g, b, j, f)` finds two paths, where `f(x)` is
/// `x != j && stop.contains(&x)`: one dominator tree instead of one max-flow per candidate join.
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
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..400).map(move |_| {
            let n = 2 + (next() % 9) as usize;
            let succs: Vec<Vec<Block>> = (0..n)
                .map(|_| {
                    (0..next() % 4)
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
                        let flow = disjoint_paths(&g, b, j, &|x| x != j && stop.contains(&x));
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
}
