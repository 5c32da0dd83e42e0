//! An interpreter of one converge-ir function for a group of threads, with a scheduler that lets a
//! communicating operation see exactly the threads executing converged instances of it.
//!
//! Each thread runs on its own until it reaches a communicating operation (ballot, readfirstlane,
//! subgroup reductions and shuffles, any other convergent call), where it waits with the class of
//! its dynamic instance (see [`crate::instances`]). When every thread waits or has finished, a
//! waiting group is released once no other live thread can still produce an instance of the same
//! class: for maximal convergence that means reaching the block without passing a header of a cycle
//! containing it (in the thread's current header context, recursively for header instances not yet
//! executed); for tokens, holding or being able to produce the token's class and reaching the
//! operation. The reachability tests are static, so the check is conservative: it may hold a group
//! back, never release it early. If every group is held back (only possible through infeasible static
//! paths), the group of the lowest thread is released and the run says so in its notes.
//!
//! Calls to functions of the module run in a new activation (a frame) whose classes are based on
//! the class of the call instance, so a callee's instances are converged for the threads of
//! converged call instances. A thread stops with an error on undefined behaviour the simulator
//! sees (division by zero, an access out of bounds, null); a barrier released for fewer than all
//! threads is a violation of the run ([`Run::failures`]).
//!
//! Memory model (docs/simulation.md): allocas are per thread (the same address in every thread, as
//! private memory is on GPUs). Other memory is shared by the group and starts with deterministic
//! contents (global initialisers, a hash of the address elsewhere). Loads, stores and atomics on it
//! synchronise like communicating operations: the converged instances access memory at once, in
//! thread order (the highest thread's store wins; atomics apply one thread after the other), and
//! non-converged instances in the order the scheduler releases them. Loads through the address
//! spaces the targets treat as divergent (0 flat/generic, 5 private) do not synchronise; of memory
//! that is neither an alloca nor written, they return per-thread values.

use crate::hierarchy::Hierarchy;
use crate::instances::{ClassId, Classes, Key, NONE, Tracker};
use crate::value::{Val, mask, mix, mix2, sext};
use converge_graph::{Block, Cfg, DominatorTree, Graph};
use converge_ir::{
    CallInfo, ConstId, ConstKind, FPred, FuncId, Function, IPred, InstId, Module, Opcode, Type,
    TypeId, Value,
};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// How to run: the group of threads, its inputs, its limits and the target whose intrinsics apply.
#[derive(Clone, Debug)]
pub struct Options {
    /// Threads in the group (thread ids `0..threads`).
    pub threads: u32,
    /// Per parameter; missing entries are drawn from `seed` (the same in every thread).
    pub args: Vec<Option<ArgValue>>,
    /// Memory contents: buffers the pointer parameters point at, initial contents of globals.
    pub memory: Vec<MemInit>,
    /// The work-group this group of threads is (x dimension), and how many there are: what the
    /// group-id and grid-size queries return.
    pub group_id: u32,
    /// How many work-groups the grid has (what grid-size queries return).
    pub num_groups: u32,
    /// Seed of the unspecified values: arguments not given, memory contents, `undef` reads.
    pub seed: u64,
    /// The implementation-defined grouping at anchors ("Convergent Operation Semantics",
    /// `llvm.experimental.convergence.anchor`): empty (the default) groups the threads that are
    /// maximally converged at the anchor; otherwise a part per thread, and converged anchor
    /// instances also need equal parts (a finer grouping, as an implementation may choose).
    pub anchor_parts: Vec<u32>,
    /// Per-thread values of parameters: a function that is not a kernel may be called with a
    /// different argument in each thread. When `thread_args[k]` is not empty, parameter `k` of
    /// thread `t` is `thread_args[k][t % len]` instead of `args[k]`.
    pub thread_args: Vec<Vec<ArgValue>>,
    /// Steps (instructions) per thread before it is stopped.
    pub step_limit: u64,
    /// Whose thread-id intrinsics, builtins and wave size apply.
    pub target: Target,
    /// Which wave of the work-group the simulated threads are: lane `k` is the work-item with
    /// linear id `wave * wave size + k`, whose local ids follow the kernel's
    /// `!reqd_work_group_size` (x fastest); without it the group is one row of `threads`
    /// work-items in x.
    pub wave: u32,
}

/// [`Options::anchor_parts`] for `groups` parts: thread t in part t mod `groups`; empty (one
/// group, the converged threads) when `groups` is at most 1.
pub fn anchor_parts(threads: u32, groups: u32) -> Vec<u32> {
    if groups <= 1 {
        return Vec::new();
    }
    (0..threads).map(|t| t % groups).collect()
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 4,
            args: Vec::new(),
            memory: Vec::new(),
            group_id: 0,
            num_groups: 1,
            seed: 0,
            anchor_parts: Vec::new(),
            thread_args: Vec::new(),
            step_limit: 100_000,
            target: Target::Generic,
            wave: 0,
        }
    }
}

/// How a thread ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The thread returned, with the returned value rendered (`None` for `ret void`).
    Returned(Option<String>),
    /// The thread was stopped after [`Options::step_limit`] steps.
    StepLimit,
    /// The thread reached `unreachable` (undefined behaviour; the run stops the thread).
    Unreachable,
    /// The thread stopped on an error: division by zero, an access out of bounds, an operation
    /// that is not simulated.
    Error(String),
}

impl Status {
    /// Whether the thread stopped without finishing normally (an error or the step limit): the run
    /// is then incomplete and `converge simulate` exits 1.
    pub fn is_failure(&self) -> bool {
        matches!(self, Status::Error(_) | Status::StepLimit)
    }
}

/// One executed instruction with a result.
#[derive(Clone, Debug)]
pub struct Record {
    /// The instruction, in the simulated function.
    pub inst: InstId,
    /// Converged instances of `inst` have equal classes (maximal, or controlled where tokens
    /// apply).
    pub class: ClassId,
    /// The value the thread computed.
    pub val: Val,
}

/// One convergent operation executed by a thread: the group it communicated with and its result.
#[derive(Clone, Debug)]
pub struct Op {
    /// Index into [`Run::groups`].
    pub group: u32,
    /// The thread's result (`Undef` for operations without a value).
    pub val: Val,
}

/// What one thread did in a run.
#[derive(Clone, Debug)]
pub struct ThreadRun {
    /// The thread's index in the group, from 0.
    pub tid: u32,
    /// Block instances of the simulated function with their maximal classes (instances inside
    /// callees are not listed).
    pub blocks: Vec<(Block, ClassId)>,
    /// Values of the simulated function's instructions (not of callees').
    pub records: Vec<Record>,
    /// The communicating and shared-memory instances of the simulated function the thread waited
    /// at: (instruction, key of its group). Callees' are in `ops`.
    pub waits: Vec<(InstId, ClassId)>,
    /// The convergent operations the thread executed, in its order, callees included.
    pub ops: Vec<Op>,
    /// How the thread ended.
    pub status: Status,
    /// Instructions executed.
    pub steps: u64,
}

/// A released group of a communicating operation (or of a shared-memory access).
#[derive(Clone, Debug)]
pub struct Group {
    /// The function the instruction belongs to (the simulated one, or a callee).
    pub func: FuncId,
    /// The communicating instruction, an id in `func`.
    pub inst: InstId,
    /// The class of the dynamic instance the threads executed together.
    pub class: ClassId,
    /// The threads of the group (sorted): exactly the threads that executed converged instances.
    pub threads: Vec<u32>,
    /// A convergent operation (not a shared-memory access).
    pub convergent: bool,
    /// The call sites (function, call instruction) through which the threads reached `inst`,
    /// outermost first; empty in the simulated function itself.
    pub stack: Rc<[(FuncId, InstId)]>,
}

/// The result of running a function for a group of threads under one cycle hierarchy.
#[derive(Clone, Debug)]
pub struct Run {
    /// Per thread, in thread order.
    pub threads: Vec<ThreadRun>,
    /// The converged-with classes of the run (every [`ClassId`] in the run indexes them).
    pub classes: Classes,
    /// Released groups, in release order.
    pub groups: Vec<Group>,
    /// Whether the function uses convergence control tokens (controlled convergence).
    pub controlled: bool,
    /// The kernel arguments the run used (given or drawn from the seed).
    pub args: Vec<Val>,
    /// Remarks: groups released by the scheduler's fallback, simplifications made.
    pub notes: Vec<String>,
    /// Violations of the execution model found during the run that are not one thread's error:
    /// a barrier reached by only some of the threads.
    pub violations: Vec<String>,
}

impl Run {
    /// Everything that makes the run fail: each thread stopped on an error or the step limit, and
    /// the violations. Empty for a complete, valid execution.
    pub fn failures(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .threads
            .iter()
            .filter_map(|t| match &t.status {
                Status::Error(m) => Some(format!("thread {} stopped: {m}", t.tid)),
                Status::StepLimit => Some(format!(
                    "thread {} stopped: step limit reached after {} instruction{}",
                    t.tid,
                    t.steps,
                    if t.steps == 1 { "" } else { "s" }
                )),
                _ => None,
            })
            .collect();
        out.extend(self.violations.iter().cloned());
        out
    }
}

#[derive(Clone, Debug, PartialEq)]
enum TState {
    Running,
    Waiting,
    Done,
}

/// One function activation of a thread (the callers' are kept on [`Thread::stack`]).
#[derive(Clone)]
struct Frame {
    /// Index into [`Exec::progs`].
    func: u32,
    block: Block,
    pos: u32,
    regs: Vec<Val>,
    tracker: Tracker,
    bclass: ClassId,
    /// Per token-defining instruction: the class of its latest instance in this activation.
    token_last: HashMap<u32, ClassId>,
    args: Rc<[Val]>,
    /// `allocas.len()` of the thread when the activation began: its allocas die on return.
    alloca_mark: usize,
}

#[derive(Clone)]
struct Thread {
    tid: u32,
    /// The current activation.
    fr: Frame,
    /// The callers' activations, outermost first.
    stack: Vec<Frame>,
    /// Registers and header slots held by the callee activations (bounded per thread).
    held: usize,
    state: TState,
    status: Option<Status>,
    steps: u64,
    private: HashMap<u64, u8>,
    alloca_next: u64,
    /// Live allocas: `[start, end)` byte ranges of private memory.
    allocas: Vec<(u64, u64)>,
    produced: HashSet<ClassId>,
    heart_count: HashMap<(u32, ClassId), u32>,
    occurrence: u64,
    pending: Option<(u32, ClassId, Vec<Val>)>,
    blocks: Vec<(Block, ClassId)>,
    records: Vec<Record>,
    waits: Vec<(InstId, ClassId)>,
    ops: Vec<Op>,
    /// The value returned by `ret` from the simulated function.
    ret: Option<Val>,
}

struct Exec<'a, 'm> {
    /// The program and hierarchy of the activation being worked on (see [`Exec::at`]).
    p: &'a Program<'m>,
    h: &'a Hierarchy,
    /// Every function the run may enter: index 0 is the simulated function.
    progs: Vec<(&'a Program<'m>, &'a Hierarchy)>,
    /// Module function id -> index into `progs`.
    prog_of: HashMap<u32, u32>,
    opts: &'a Options,
    classes: &'a mut Classes,
    notes: &'a mut Vec<String>,
    violations: Vec<String>,
    /// Bytes written to memory shared by the group.
    shared: HashMap<u64, u8>,
    /// Bounded objects of shared memory (globals, given buffers): `[start, end)` and the region
    /// `[start, region_end)` whose other addresses are out of bounds.
    objects: Vec<memory::Object>,
    /// An error raised while evaluating the current instruction; the thread stops with it.
    fault: Option<String>,
}

mod arith;
mod builtins;
mod callee;
mod calls;
mod comm;
mod eval;
mod memory;
mod program;
mod schedule;

pub use crate::inputs::{ArgValue, ElemTy, MemInit, MemTarget};
use arith::*;
use callee::*;
pub use callee::{Target, callee_name, callee_name_of, result_is_semantic};
use memory::*;
use program::*;
pub use program::{Program, function_cfg};
pub use schedule::{run, run_with};

/// Checks the user's inputs against the function before a run (memory targets exist and fit);
/// the error says which entry is wrong. [`run`] reports the same error as a violation.
pub fn check_inputs(prog: &Program<'_>, opts: &Options) -> Result<(), String> {
    memory::check_memory(prog, opts).map(|_| ())
}
