//! What a run of the simulator lets the checker observe: per thread, the sequence of its convergent
//! operations (communicating calls), each with the threads it communicated with, its result, and
//! where its convergence came from.
//!
//! The origin matters because "Convergent Operation Semantics" leaves some groupings to the
//! implementation: the threads that execute converged dynamic instances of
//! `llvm.experimental.convergence.anchor` are implementation-defined, and so are the loop hearts
//! and operations whose token goes back to such an anchor. Everything else (maximal convergence of
//! uncontrolled operations for a given cycle hierarchy, `entry`, hearts under `entry`) is fixed by
//! the run. An observation therefore records its *root*: [`Root::Anchor`] with the anchor's dynamic
//! instance in its thread, or [`Root::Fixed`]; and the chain of loop-heart counters between the
//! root and the operation (the heart's virtual counter *n*, rule of `llvm.experimental.convergence.loop`).

use converge_graph::Block;
use converge_ir::{Function, InstId, Module, Opcode};
use converge_sim::instances::{ClassId, Classes, Key, NONE};
use converge_sim::interp::{Run, Status};
use converge_sim::value::Val;
use std::collections::HashMap;

/// Where the convergence of an operation instance comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    /// Fixed by the run: maximal convergence (for the run's cycle hierarchy) or `entry`.
    Fixed,
    /// An anchor's dynamic instance: the anchor instruction and the class the simulator gave it
    /// (unique per dynamic instance within a thread).
    Anchor(u32, ClassId),
}

/// One executed convergent operation of one thread.
#[derive(Clone, Debug)]
pub struct Obs {
    pub inst: InstId,
    /// The callee's name (without `@`).
    pub callee: String,
    /// Occurrence of `callee` in this thread: 0 for its first execution, …
    pub k: u32,
    /// The threads of the dynamic instance (sorted), the thread itself included.
    pub set: Vec<u32>,
    /// The result, when the operation has one and the simulator computes it from its operands.
    pub result: Option<Val>,
    pub root: Root,
    /// Loop hearts between the root and the operation: (heart instruction, virtual counter).
    pub hearts: Vec<(u32, u32)>,
    /// Index of the released group in [`Run::groups`].
    pub group: usize,
}

/// All observations of one run, per thread, with what a counterexample needs.
#[derive(Clone, Debug)]
pub struct Observed {
    pub threads: Vec<Vec<Obs>>,
    /// Per thread: the blocks it executed, in order.
    pub paths: Vec<Vec<Block>>,
    /// Per thread: how it ended.
    pub status: Vec<Status>,
    /// The run does not show its classes exactly: the scheduler released a group it could not
    /// prove complete (its fallback), or released one dynamic instance (one class) of an
    /// operation as two groups. Such runs are not compared.
    pub inconclusive: bool,
    pub groups: usize,
}

impl Observed {
    /// The observation of thread `t` for (callee, occurrence).
    pub fn find(&self, t: usize, callee: &str, k: u32) -> Option<&Obs> {
        self.threads
            .get(t)?
            .iter()
            .find(|o| o.k == k && o.callee == callee)
    }
    /// Whether some thread stopped on an error or the step limit.
    pub fn failed(&self) -> Option<(usize, String)> {
        self.status.iter().enumerate().find_map(|(t, s)| match s {
            Status::Returned(_) | Status::Unreachable => None,
            Status::StepLimit => Some((t, "hit the step limit".to_string())),
            Status::Error(e) => Some((t, e.clone())),
        })
    }
}

/// Callees whose results the simulator computes from the operands and the communicating set alone
/// (other convergent calls get a value that names the call site, which differs between programs).
fn result_is_semantic(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "llvm.amdgcn.readfirstlane",
        "llvm.amdgcn.readlane",
        "llvm.amdgcn.ballot",
        "llvm.amdgcn.icmp",
        "llvm.amdgcn.fcmp",
        "llvm.amdgcn.wave.reduce.",
        "llvm.amdgcn.permlane64",
        "llvm.nvvm.vote.",
        "llvm.nvvm.shfl.sync.",
        "llvm.nvvm.redux.sync.",
        "subgroupBallot",
        "subgroupAdd",
        "subgroupBroadcastFirst",
        "subgroupShuffle",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The callee name of a call instruction.
pub fn callee(m: &Module, f: &Function, i: InstId) -> String {
    converge_sim::interp::callee_name_of(m, f, i)
}

/// Extracts the observations of `run` (a run of `f`).
pub fn observe(m: &Module, f: &Function, run: &Run) -> Observed {
    // (inst, class) -> groups with that key, in release order.
    let mut by_key: HashMap<(u32, ClassId), Vec<usize>> = HashMap::new();
    for (g, gr) in run.groups.iter().enumerate() {
        by_key.entry((gr.inst.0, gr.class)).or_default().push(g);
    }
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut threads = Vec::with_capacity(run.threads.len());
    for tr in &run.threads {
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut used: HashMap<(u32, ClassId), usize> = HashMap::new();
        let mut obs = Vec::new();
        for &(inst, class) in &tr.waits {
            if f.insts[inst.0 as usize].op != Opcode::Call {
                continue; // shared-memory accesses synchronise but are not convergent operations
            }
            let Some(cands) = by_key.get(&(inst.0, class)) else {
                continue; // never released (the thread stopped while waiting)
            };
            let skip = used.entry((inst.0, class)).or_insert(0);
            let Some(&g) = cands
                .iter()
                .filter(|&&g| run.groups[g].threads.contains(&tr.tid))
                .nth(*skip)
            else {
                continue;
            };
            *skip += 1;
            let name = names
                .entry(inst.0)
                .or_insert_with(|| callee(m, f, inst))
                .clone();
            if is_token_intrinsic(&name) {
                continue;
            }
            let k = counts.entry(name.clone()).or_insert(0);
            let this_k = *k;
            *k += 1;
            let mut set = run.groups[g].threads.clone();
            set.sort_unstable();
            let result = if result_is_semantic(&name) {
                tr.records
                    .iter()
                    .find(|r| r.inst == inst && r.class == class)
                    .map(|r| r.val.clone())
            } else {
                None
            };
            let (root, hearts) = origin(&run.classes, class);
            obs.push(Obs {
                inst,
                callee: name,
                k: this_k,
                set,
                result,
                root,
                hearts,
                group: g,
            });
        }
        threads.push(obs);
    }
    Observed {
        threads,
        paths: run
            .threads
            .iter()
            .map(|t| t.blocks.iter().map(|b| b.0).collect())
            .collect(),
        status: run.threads.iter().map(|t| t.status.clone()).collect(),
        inconclusive: run
            .notes
            .iter()
            .any(|n| n.contains("released the first group anyway"))
            || by_key.values().any(|gs| gs.len() > 1),
        groups: run.groups.len(),
    }
}

fn is_token_intrinsic(name: &str) -> bool {
    name.starts_with("llvm.experimental.convergence.")
}

/// The root and heart chain of the class of a convergent operation's dynamic instance.
fn origin(classes: &Classes, class: ClassId) -> (Root, Vec<(u32, u32)>) {
    let mut hearts = Vec::new();
    let mut tok = match classes.key(class) {
        Key::Use(_, tok) => tok,
        _ => return (Root::Fixed, hearts),
    };
    loop {
        if tok == NONE {
            return (Root::Fixed, hearts);
        }
        match classes.key(tok) {
            Key::Anchor(a, _) => {
                hearts.reverse();
                return (Root::Anchor(a, tok), hearts);
            }
            Key::Heart(h, parent, n) => {
                hearts.push((h, n));
                tok = parent;
            }
            _ => return (Root::Fixed, hearts),
        }
    }
}
