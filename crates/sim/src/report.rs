//! What a run says: the table of "Convergence And Uniformity" (one row per thread, converged block
//! instances in one column), the groups of the communicating operations, per static instruction
//! whether its converged instances produced equal values, and across hierarchies which static
//! instances are m-converged.

use crate::hierarchy::Hierarchy;
use crate::instances::{ClassId, columns};
use crate::interp::Run;
use crate::value::Val;
use converge_graph::Block;
use converge_ir::{Function, InstId, LocalName, Module};
use std::collections::HashMap;

/// A block's name as LLVM prints it (its name or slot number): converge-ir's one block naming.
pub fn block_name(m: &Module, f: &Function, b: Block) -> String {
    m.block_name_in(f, b)
}

/// An instruction's name (`%x`), or `<opcode in block>` for unnamed ones.
pub fn inst_name(m: &Module, f: &Function, i: InstId) -> String {
    let inst = &f.insts[i.0 as usize];
    match inst.name() {
        LocalName::Named(s) => format!("%{}", m.strings.resolve(s)),
        LocalName::Slot(n) => format!("%{n}"),
        LocalName::None => format!(
            "<{} in {}>",
            format!("{:?}", inst.op).to_lowercase(),
            block_name(m, f, inst.block)
        ),
    }
}

/// The table of dynamic instances as "Convergence And Uniformity" draws it (§Examples): one
/// row per thread, converged block instances in one column; `cells[thread][column]` is the index of the thread's block instance in that
/// column, if any.
#[derive(Clone, Debug)]
pub struct Table {
    /// The classes of the columns, in a linear extension of convergence-before.
    pub columns: Vec<ClassId>,
    /// `cells[thread][column]`: the index into the thread's block instances, if it has one in the
    /// column.
    pub cells: Vec<Vec<Option<usize>>>,
}

/// Lays the block instances of a run out in columns (a linear extension of convergence-before).
pub fn table(run: &Run) -> Result<Table, String> {
    let per: Vec<Vec<ClassId>> = run
        .threads
        .iter()
        .map(|t| t.blocks.iter().map(|x| x.1).collect())
        .collect();
    let cols = columns(&per)?;
    let pos: HashMap<ClassId, usize> = cols.iter().enumerate().map(|(k, &c)| (c, k)).collect();
    let cells = per
        .iter()
        .map(|t| {
            let mut row = vec![None; cols.len()];
            for (k, c) in t.iter().enumerate() {
                row[pos[c]] = Some(k);
            }
            row
        })
        .collect();
    Ok(Table {
        columns: cols,
        cells,
    })
}

/// Whether the converged dynamic instances of a static instruction produced equal values.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// No thread executed the instruction.
    NotExecuted,
    /// Every class of converged instances agrees; `classes` classes with `shared` of them executed
    /// by more than one thread.
    Uniform {
        /// Classes of converged instances.
        classes: usize,
        /// Classes executed by more than one thread.
        shared: usize,
    },
    /// Two converged instances differ: (thread, value) twice.
    Divergent {
        /// The first of the two: (thread, value).
        a: (u32, String),
        /// The second: (thread, value).
        b: (u32, String),
    },
}

/// Per executed static instruction with a value, in instruction order.
pub fn value_uniformity(run: &Run, num_insts: usize) -> Vec<(InstId, Verdict)> {
    // (inst, class) -> (first thread, its value, how many threads)
    let mut first: HashMap<(u32, ClassId), (u32, Val, usize)> = HashMap::new();
    let mut verdict: Vec<Option<Verdict>> = vec![None; num_insts];
    for t in &run.threads {
        for r in &t.records {
            let k = (r.inst.0, r.class);
            match first.get_mut(&k) {
                None => {
                    first.insert(k, (t.tid, r.val.clone(), 1));
                    if verdict[r.inst.0 as usize].is_none() {
                        verdict[r.inst.0 as usize] = Some(Verdict::Uniform {
                            classes: 0,
                            shared: 0,
                        });
                    }
                }
                Some(e) => {
                    e.2 += 1;
                    if !e.1.same(&r.val)
                        && !matches!(verdict[r.inst.0 as usize], Some(Verdict::Divergent { .. }))
                    {
                        verdict[r.inst.0 as usize] = Some(Verdict::Divergent {
                            a: (e.0, e.1.render()),
                            b: (t.tid, r.val.render()),
                        });
                    }
                }
            }
        }
    }
    for (&(i, _), e) in &first {
        if let Some(Verdict::Uniform { classes, shared }) = &mut verdict[i as usize] {
            *classes += 1;
            if e.2 > 1 {
                *shared += 1;
            }
        }
    }
    verdict
        .into_iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (InstId(i as u32), v)))
        .collect()
}

/// Per block, a partition of its dynamic instances `(thread, k-th execution)`.
pub type Partitions = Vec<Vec<Vec<(u32, u32)>>>;

/// For each block, the partition of its dynamic instances `(thread, k-th execution)` into
/// converged classes, canonically ordered: comparable across runs under different hierarchies.
pub fn block_partitions(run: &Run, num_blocks: usize) -> Partitions {
    let mut by: Vec<HashMap<ClassId, Vec<(u32, u32)>>> = vec![HashMap::new(); num_blocks];
    for t in &run.threads {
        let mut count = vec![0u32; num_blocks];
        for &(b, c) in &t.blocks {
            count[b.index()] += 1;
            by[b.index()]
                .entry(c)
                .or_default()
                .push((t.tid, count[b.index()]));
        }
    }
    by.into_iter()
        .map(|m| {
            let mut parts: Vec<Vec<(u32, u32)>> = m.into_values().collect();
            for p in &mut parts {
                p.sort();
            }
            parts.sort();
            parts
        })
        .collect()
}

/// Blocks whose converged-with relation is the same under every hierarchy of `runs` (one run per
/// hierarchy, same inputs): the m-converged static instances, as far as this execution shows.
pub fn m_converged(runs: &[(&Hierarchy, &Run)], num_blocks: usize) -> Vec<bool> {
    let parts: Vec<Partitions> = runs
        .iter()
        .map(|(_, r)| block_partitions(r, num_blocks))
        .collect();
    (0..num_blocks)
        .map(|b| parts.iter().all(|p| p[b] == parts[0][b]))
        .collect()
}

/// Consistency of a run's scheduling: every released group is exactly the set of threads that
/// waited at that instance (no thread joined an instance after its group was released, and no
/// instance was released twice), and every convergent group appears once in each of its threads'
/// operation lists (`ThreadRun::ops`), callees included.
pub fn check_groups(run: &Run) -> Result<(), String> {
    let mut released: HashMap<(u32, ClassId), Vec<u32>> = HashMap::new();
    for g in &run.groups {
        let mut ts = g.threads.clone();
        ts.sort();
        if released.insert((g.inst.0, g.class), ts).is_some() {
            return Err(format!(
                "instruction #{} class {} was released twice",
                g.inst.0, g.class
            ));
        }
    }
    let mut waited: HashMap<(u32, ClassId), Vec<u32>> = HashMap::new();
    for t in &run.threads {
        for &(i, c) in &t.waits {
            waited.entry((i.0, c)).or_default().push(t.tid);
        }
    }
    for (k, mut ts) in waited {
        ts.sort();
        match released.get(&k) {
            Some(r) if *r == ts => {}
            Some(r) => {
                return Err(format!(
                    "instruction #{} class {}: released with threads {r:?}, waited by {ts:?}",
                    k.0, k.1
                ));
            }
            // Threads stopped (step limit) while waiting are never released.
            None => {}
        }
    }
    // Every convergent group is in the operation list of exactly its threads, once.
    let mut count: HashMap<(u32, u32), usize> = HashMap::new();
    for t in &run.threads {
        for op in &t.ops {
            let Some(g) = run.groups.get(op.group as usize) else {
                return Err(format!(
                    "thread {}: operation of unknown group {}",
                    t.tid, op.group
                ));
            };
            if !g.convergent || !g.threads.contains(&t.tid) {
                return Err(format!(
                    "thread {} lists group {} ({:?} of function #{}), which it is not in",
                    t.tid, op.group, g.inst, g.func.0
                ));
            }
            *count.entry((t.tid, op.group)).or_default() += 1;
        }
    }
    for (k, g) in run.groups.iter().enumerate() {
        for &tid in g.threads.iter().filter(|_| g.convergent) {
            if count.get(&(tid, k as u32)) != Some(&1) {
                return Err(format!(
                    "group {k} ({:?} of function #{}): thread {tid} lists it {} times",
                    g.inst,
                    g.func.0,
                    count.get(&(tid, k as u32)).copied().unwrap_or(0)
                ));
            }
        }
    }
    Ok(())
}
