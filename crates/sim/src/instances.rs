//! Dynamic instances and the converged-with relation.
//!
//! Every dynamic instance gets a *class*; two instances of the same static instance in different
//! threads are converged exactly when their classes are equal. Classes are hash-consed keys
//! ([`Classes`]), so equal keys computed independently in different threads meet.
//!
//! **Maximal convergence** uses the characterisation of "Convergence And Uniformity" (*Dependence on
//! Cycle Headers*, rules 1-3): an instance of block `X` is identified by `X` and the identity of the
//! latest preceding instance, in its thread, of a header of any cycle containing `X` (none if there
//! is none). Header instances are identified the same way, recursively, so the key of an instance
//! is the chain of "last points of convergence" leading to it. [`check_definition`] checks this
//! against the definition itself (via convergence-before) and is run on the tables of "Convergence
//! And Uniformity" by the tests.
//!
//! **Controlled convergence** ("Convergent Operation Semantics") adds token classes: `entry` is one
//! class for the whole group; a loop heart's instance is keyed by its token operand's class and the
//! virtual counter `n` (the n-th execution with that token value); an anchor's instance takes the
//! maximal class of its own position (our implementation-defined choice: the threads that are
//! maximally converged at the anchor are converged there; see docs/simulation.md).

use crate::hierarchy::Hierarchy;
use converge_graph::Block;
use std::collections::HashMap;

/// A converged-with class. `NONE` stands for "no instance" (for example no preceding header).
pub type ClassId = u32;
/// "No instance": the context of a block instance with no preceding header instance.
pub const NONE: ClassId = u32::MAX;

/// What a class is made of.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// An instance of a block under maximal convergence: the block and the class of the latest
    /// preceding instance of a header of a cycle containing it (`NONE` if none).
    Block(Block, ClassId),
    /// The token of `llvm.experimental.convergence.entry`: the whole group.
    Entry,
    /// An anchor instance: the anchor instruction and the maximal class of its block instance.
    Anchor(u32, ClassId),
    /// A loop heart instance: the heart instruction, its token operand's class, the virtual counter.
    Heart(u32, ClassId, u32),
    /// A controlled convergent operation: the instruction and the class of its token.
    Use(u32, ClassId),
    /// Controlled maximal convergence of a non-convergent instruction: a maximal class refined by
    /// the class of a token whose convergence region contains the instruction.
    With(ClassId, ClassId),
    /// The activation of a callee entered by a call instance of the given class (the callee is
    /// named by its index in the run): the base of every class inside that activation, so the
    /// threads of converged call instances are converged at the callee's entry.
    Frame(ClassId, u32),
    /// A part of an anchor grouping choice (`Options::anchor_parts`): refines an anchor's class.
    Part(u32),
}

/// The class interner, shared by all threads of a run.
#[derive(Clone, Debug, Default)]
pub struct Classes {
    map: HashMap<Key, ClassId>,
    keys: Vec<Key>,
}

impl Classes {
    /// The class of `k`, a new one if no thread produced `k` yet.
    pub fn intern(&mut self, k: Key) -> ClassId {
        if let Some(&c) = self.map.get(&k) {
            return c;
        }
        let c = self.keys.len() as ClassId;
        self.keys.push(k);
        self.map.insert(k, c);
        c
    }
    /// The class of `k` if some thread produced it.
    pub fn lookup(&self, k: Key) -> Option<ClassId> {
        self.map.get(&k).copied()
    }
    /// What class `c` is made of.
    pub fn key(&self, c: ClassId) -> Key {
        self.keys[c as usize]
    }
    /// Number of classes produced so far.
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    /// Whether no class was produced yet.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Per-thread state of maximal convergence: the latest instance of each header.
#[derive(Clone, Debug)]
pub struct Tracker {
    seq: u32,
    /// The class standing for "no preceding header instance": `NONE` in the simulated function,
    /// the activation's [`Key::Frame`] in a callee.
    base: ClassId,
    /// Per block: (1 + sequence number of its latest instance, or 0; class of that instance). Only
    /// headers are recorded.
    last: Vec<(u32, ClassId)>,
}

impl Tracker {
    /// A tracker for the simulated function (no enclosing activation).
    pub fn new(num_blocks: usize) -> Tracker {
        Tracker::with_base(num_blocks, NONE)
    }

    /// A tracker for an activation whose instances without a preceding header have context
    /// `base`.
    pub fn with_base(num_blocks: usize, base: ClassId) -> Tracker {
        Tracker {
            seq: 0,
            base,
            last: vec![(0, NONE); num_blocks],
        }
    }

    /// The class standing for "no preceding header instance" in this activation.
    pub fn base(&self) -> ClassId {
        self.base
    }

    /// The class of the latest instance of a header of a cycle containing `b` (the base, `NONE`
    /// in the simulated function, if none).
    pub fn context(&self, h: &Hierarchy, b: Block) -> ClassId {
        let mut best = (0u32, self.base);
        for &hd in h.relevant_headers(b) {
            let e = self.last[hd.index()];
            if e.0 > best.0 {
                best = e;
            }
        }
        best.1
    }

    /// The class of the latest instance of header `hd`, if any.
    pub fn last_of(&self, hd: Block) -> Option<ClassId> {
        let e = self.last[hd.index()];
        (e.0 > 0).then_some(e.1)
    }

    /// Enters block `b`: returns the class of the new block instance.
    pub fn enter(&mut self, h: &Hierarchy, classes: &mut Classes, b: Block) -> ClassId {
        let ctx = self.context(h, b);
        let c = classes.intern(Key::Block(b, ctx));
        self.seq += 1;
        if h.is_header(b) {
            self.last[b.index()] = (self.seq, c);
        }
        c
    }
}

/// Classes of block-level traces (one trace of blocks per thread) under maximal convergence.
pub fn classify_traces(h: &Hierarchy, traces: &[Vec<Block>]) -> (Classes, Vec<Vec<ClassId>>) {
    let mut classes = Classes::default();
    let out = traces
        .iter()
        .map(|t| {
            let mut tr = Tracker::new(h.num_blocks());
            t.iter().map(|&b| tr.enter(h, &mut classes, b)).collect()
        })
        .collect();
    (classes, out)
}

/// Lays classes out in columns: a topological order of the classes consistent with every thread's
/// order (a linear extension of convergence-before). Ties go to the class that appears earliest in
/// some thread. `Err` names two classes that each come before the other: convergence-before would
/// not be a strict partial order.
pub fn columns(per_thread: &[Vec<ClassId>]) -> Result<Vec<ClassId>, String> {
    let mut ids: HashMap<ClassId, usize> = HashMap::new();
    let mut nodes: Vec<ClassId> = Vec::new();
    let mut rank: Vec<usize> = Vec::new();
    for t in per_thread {
        for (i, &c) in t.iter().enumerate() {
            let id = *ids.entry(c).or_insert_with(|| {
                nodes.push(c);
                rank.push(usize::MAX);
                nodes.len() - 1
            });
            rank[id] = rank[id].min(i);
        }
    }
    let n = nodes.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for t in per_thread {
        for w in t.windows(2) {
            let (a, b) = (ids[&w[0]], ids[&w[1]]);
            succ[a].push(b);
            indeg[b] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<(usize, usize)> = (0..n)
        .filter(|&i| indeg[i] == 0)
        .map(|i| (rank[i], i))
        .collect();
    let mut out = Vec::with_capacity(n);
    while let Some(&(r, i)) = ready.iter().next() {
        ready.remove(&(r, i));
        out.push(nodes[i]);
        for &s in &succ[i] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.insert((rank[s], s));
            }
        }
    }
    if out.len() < n {
        let stuck: Vec<ClassId> = (0..n)
            .filter(|&i| indeg[i] > 0)
            .map(|i| nodes[i])
            .take(2)
            .collect();
        return Err(format!(
            "convergence-before is cyclic: classes {stuck:?} are ordered both ways"
        ));
    }
    Ok(out)
}

/// Convergence-before over the instances of some threads, given their classes: the transitive
/// closure of "executed before in the same thread" across converged instances. Instances are named
/// `(thread, index in the thread)`.
#[derive(Clone, Debug)]
pub struct ConvergenceBefore {
    node: Vec<Vec<usize>>,
    succ: Vec<Vec<usize>>,
}

impl ConvergenceBefore {
    /// Builds the convergence-before order from each thread's sequence of classes.
    pub fn new(cls: &[Vec<ClassId>]) -> ConvergenceBefore {
        let mut ids: HashMap<ClassId, usize> = HashMap::new();
        let node: Vec<Vec<usize>> = cls
            .iter()
            .map(|t| {
                t.iter()
                    .map(|&c| {
                        let k = ids.len();
                        *ids.entry(c).or_insert(k)
                    })
                    .collect()
            })
            .collect();
        let mut succ = vec![Vec::new(); ids.len()];
        for t in &node {
            for w in t.windows(2) {
                succ[w[0]].push(w[1]);
            }
        }
        ConvergenceBefore { node, succ }
    }

    /// Whether instance `a` is convergence-before instance `b`.
    pub fn before(&self, a: (usize, usize), b: (usize, usize)) -> bool {
        let (from, to) = (self.node[a.0][a.1], self.node[b.0][b.1]);
        let mut seen = vec![false; self.succ.len()];
        let mut stack: Vec<usize> = self.succ[from].clone();
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            if !std::mem::replace(&mut seen[v], true) {
                stack.extend(&self.succ[v]);
            }
        }
        false
    }
}

/// Checks the classes of block-level traces against the *definition* of maximal converged-with:
/// `X1 ~ X2` iff for every cycle containing `X` with header `H`, every instance of `H` preceding
/// `X1` is convergence-before `X2` and vice versa, where convergence-before is computed from the
/// given classes without assuming `X1 ~ X2`. Returns the first disagreement.
pub fn check_definition(
    h: &Hierarchy,
    traces: &[Vec<Block>],
    cls: &[Vec<ClassId>],
) -> Result<(), String> {
    // Nodes: one per class, plus the two instances under test split off as their own nodes.
    let mut class_ids: HashMap<ClassId, usize> = HashMap::new();
    for t in cls {
        for &c in t {
            let k = class_ids.len();
            class_ids.entry(c).or_insert(k);
        }
    }
    let nc = class_ids.len();
    for (t1, tr1) in traces.iter().enumerate() {
        for (i1, &x) in tr1.iter().enumerate() {
            for (t2, tr2) in traces.iter().enumerate().skip(t1 + 1) {
                for (i2, &x2) in tr2.iter().enumerate() {
                    if x2 != x {
                        continue;
                    }
                    let split = [(t1, i1, nc), (t2, i2, nc + 1)];
                    let node = |t: usize, i: usize| -> usize {
                        for &(st, si, n) in &split {
                            if st == t && si == i {
                                return n;
                            }
                        }
                        class_ids[&cls[t][i]]
                    };
                    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nc + 2];
                    for (t, tr) in cls.iter().enumerate() {
                        for i in 1..tr.len() {
                            succ[node(t, i - 1)].push(node(t, i));
                        }
                    }
                    let before = |a: usize, b: usize| -> bool {
                        let mut seen = vec![false; nc + 2];
                        let mut stack: Vec<usize> = succ[a].clone();
                        while let Some(v) = stack.pop() {
                            if v == b {
                                return true;
                            }
                            if !seen[v] {
                                seen[v] = true;
                                stack.extend(&succ[v]);
                            }
                        }
                        false
                    };
                    let mut def = true;
                    for &hd in h.relevant_headers(x) {
                        for (a, ta, ia, ib) in [(nc + 1, t1, i1, t2), (nc, t2, i2, t1)] {
                            let _ = ib;
                            for (j, &blk) in traces[ta].iter().enumerate().take(ia) {
                                if blk == hd && !before(node(ta, j), a) {
                                    def = false;
                                }
                            }
                        }
                    }
                    let ours = cls[t1][i1] == cls[t2][i2];
                    if def != ours {
                        return Err(format!(
                            "block {} (thread {} #{}, thread {} #{}): definition says {}, characterisation says {}",
                            x.0, t1, i1, t2, i2, def, ours
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
