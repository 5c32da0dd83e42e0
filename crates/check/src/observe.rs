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
use converge_ir::{FuncId, Function, InstId, Module};
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
    /// The function of the call (the simulated one, or a callee) and the call.
    pub func: FuncId,
    /// The call instruction, an id in `func`.
    pub inst: InstId,
    /// The static operation within the run: function, call and the chain of call sites that led
    /// to it (interned per run; only compared within one run).
    pub site: u32,
    /// The callee's name (without `@`).
    pub callee: String,
    /// Occurrence of `callee` in this thread: 0 for its first execution, …
    pub k: u32,
    /// The threads of the dynamic instance (sorted), the thread itself included.
    pub set: Vec<u32>,
    /// The result, when the operation has one and the simulator computes it from its operands.
    pub result: Option<Val>,
    /// What decides the operation's dynamic instance: fixed by the program (entry, hearts,
    /// maximal convergence) or an anchor's implementation-defined grouping.
    pub root: Root,
    /// Uncontrolled, in a function that is not `convergent`: its grouping is
    /// implementation-defined in BEFORE too, so an anchor of AFTER there is not freer.
    pub opportunistic: bool,
    /// Loop hearts between the root and the operation: (heart instruction, virtual counter).
    pub hearts: Vec<(u32, u32)>,
    /// Index of the released group in [`Run::groups`].
    pub group: usize,
}

/// All observations of one run, per thread, with what a counterexample needs.
#[derive(Clone, Debug)]
pub struct Observed {
    /// Per thread: its convergent operations in execution order.
    pub threads: Vec<Vec<Obs>>,
    /// Per thread: the blocks it executed, in order.
    pub paths: Vec<Vec<Block>>,
    /// Per thread: how it ended.
    pub status: Vec<Status>,
    /// The run does not show its classes exactly: the scheduler released a group it could not
    /// prove complete (its fallback), or released one dynamic instance (one class) of an
    /// operation as two groups. Such runs are not compared.
    pub inconclusive: bool,
    /// Violations of the execution model that are not one thread's error (a barrier reached by
    /// only some of the threads).
    pub violations: Vec<String>,
    /// Number of groups the scheduler released (dynamic instances of communicating operations).
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
    /// Whether some thread stopped on an error or the step limit, or the run broke the execution
    /// model otherwise (a partial barrier).
    pub fn failed(&self) -> Option<(usize, String)> {
        self.status
            .iter()
            .enumerate()
            .find_map(|(t, s)| match s {
                Status::Returned(_) | Status::Unreachable => None,
                Status::StepLimit => Some((t, "hit the step limit".to_string())),
                Status::Error(e) => Some((t, e.clone())),
            })
            .or_else(|| self.violations.first().map(|v| (0, v.clone())))
    }
}

/// Callees whose results the simulator computes from the operands and the communicating set alone
/// (other convergent calls get a value that names the call site, which differs between programs):
/// the simulator's own classification of the callee, from the intrinsic tables.
fn result_is_semantic(name: &str) -> bool {
    converge_sim::interp::result_is_semantic(name)
}

/// The callee name of a call instruction.
pub fn callee(m: &Module, f: &Function, i: InstId) -> String {
    converge_sim::interp::callee_name_of(m, f, i)
}

/// A static operation: function, call instruction, and the call sites that led to it.
type SiteKey = (u32, u32, Vec<(u32, u32)>);

/// Extracts the observations of `run` (a run of `f`), callees' convergent operations included.
pub fn observe(m: &Module, f: &Function, run: &Run) -> Observed {
    let _ = f;
    // (function, instruction, class) -> groups with that key: more than one means the scheduler
    // released one dynamic instance in parts.
    let mut by_key: HashMap<(u32, u32, ClassId), u32> = HashMap::new();
    for gr in &run.groups {
        *by_key.entry((gr.func.0, gr.inst.0, gr.class)).or_default() += 1;
    }
    let mut names: HashMap<(u32, u32), String> = HashMap::new();
    let mut convergent_fn: HashMap<u32, bool> = HashMap::new();
    let mut sites: HashMap<SiteKey, u32> = HashMap::new();
    let mut threads = Vec::with_capacity(run.threads.len());
    for tr in &run.threads {
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut obs = Vec::new();
        for op in &tr.ops {
            let g = op.group as usize;
            let gr = &run.groups[g];
            if !gr.convergent {
                continue; // shared-memory accesses synchronise but are not convergent operations
            }
            let name = names
                .entry((gr.func.0, gr.inst.0))
                .or_insert_with(|| callee(m, &m.functions[gr.func.0 as usize], gr.inst))
                .clone();
            if is_token_intrinsic(&name) {
                continue;
            }
            let stack: Vec<(u32, u32)> = gr.stack.iter().map(|(f, i)| (f.0, i.0)).collect();
            let n = sites.len() as u32;
            let site = *sites.entry((gr.func.0, gr.inst.0, stack)).or_insert(n);
            let k = counts.entry(name.clone()).or_insert(0);
            let this_k = *k;
            *k += 1;
            let mut set = gr.threads.clone();
            set.sort_unstable();
            let result = (result_is_semantic(&name) && !matches!(op.val, Val::Undef))
                .then(|| op.val.clone());
            let (root, hearts) = origin(&run.classes, gr.class);
            // An uncontrolled convergent operation of a function that is not `convergent`
            // communicates with "an implementation-defined subset of threads within the function
            // body" ("Convergent Operation Semantics", Opportunistic convergent operations): an
            // anchor of AFTER at that place is not freer than BEFORE (what token inference does
            // for non-convergent functions). The sets are still compared as fixed.
            // Through calls: an uncontrolled call in a function that is not `convergent` makes
            // everything below it opportunistic too.
            let mut opportunistic = false;
            if root == Root::Fixed {
                let frames = gr
                    .stack
                    .iter()
                    .copied()
                    .chain(std::iter::once((gr.func, gr.inst)));
                for (f, i) in frames {
                    let convergent_fn = *convergent_fn
                        .entry(f.0)
                        .or_insert_with(|| m.has_fn_attr(f, "convergent"));
                    if !convergent_fn && !has_token_bundle(m, f, i) {
                        opportunistic = true;
                        break;
                    }
                }
            }
            obs.push(Obs {
                func: gr.func,
                inst: gr.inst,
                site,
                callee: name,
                k: this_k,
                set,
                result,
                root,
                opportunistic,
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
        violations: run.violations.clone(),
        inconclusive: run
            .notes
            .iter()
            .any(|n| n.contains("released the first group anyway"))
            || by_key.values().any(|&n| n > 1),
        groups: run.groups.iter().filter(|g| g.convergent).count(),
    }
}

/// Whether a call carries a `convergencectrl` bundle (a controlled convergent operation).
fn has_token_bundle(m: &Module, f: FuncId, i: InstId) -> bool {
    let f = &m.functions[f.0 as usize];
    let inst = &f.insts[i.0 as usize];
    if !inst.op.is_call_like() {
        return false;
    }
    let ci = &f.calls[inst.aux as usize];
    f.bundles[ci.bundles.range()]
        .iter()
        .any(|b| m.strings.resolve(b.tag) == "convergencectrl")
}

fn is_token_intrinsic(name: &str) -> bool {
    converge_ir::intrinsics::is_convergence_family(name)
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
            // A callee's `entry`: the threads of converged instances of the call; follow the
            // call instance's own token, if it is controlled.
            Key::Frame(call, _) => match classes.key(call) {
                Key::Use(_, t) => tok = t,
                _ => {
                    hearts.reverse();
                    return (Root::Fixed, hearts);
                }
            },
            _ => return (Root::Fixed, hearts),
        }
    }
}
