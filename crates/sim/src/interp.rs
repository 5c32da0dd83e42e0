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
    CallInfo, ConstId, ConstKind, FPred, Function, IPred, InstId, Module, Opcode, Type, TypeId,
    Value,
};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A kernel argument given on the command line.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ArgValue {
    Int(i128),
    Float(f64),
}

#[derive(Clone, Debug)]
pub struct Options {
    pub threads: u32,
    /// Per parameter; missing entries are drawn from `seed` (the same in every thread).
    pub args: Vec<Option<ArgValue>>,
    pub seed: u64,
    /// Steps (instructions) per thread before it is stopped.
    pub step_limit: u64,
    pub target: Target,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 4,
            args: Vec::new(),
            seed: 0,
            step_limit: 100_000,
            target: Target::Generic,
        }
    }
}

/// How a thread ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Returned(Option<String>),
    StepLimit,
    Unreachable,
    Error(String),
}

/// One executed instruction with a result.
#[derive(Clone, Debug)]
pub struct Record {
    pub inst: InstId,
    /// Converged instances of `inst` have equal classes (maximal, or controlled where tokens
    /// apply).
    pub class: ClassId,
    pub val: Val,
}

#[derive(Clone, Debug)]
pub struct ThreadRun {
    pub tid: u32,
    /// Block instances with their maximal classes.
    pub blocks: Vec<(Block, ClassId)>,
    pub records: Vec<Record>,
    /// The communicating and shared-memory instances the thread waited at: (instruction, key of
    /// its group).
    pub waits: Vec<(InstId, ClassId)>,
    pub status: Status,
    pub steps: u64,
}

/// A released group of a communicating operation.
#[derive(Clone, Debug)]
pub struct Group {
    pub inst: InstId,
    pub class: ClassId,
    pub threads: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Run {
    pub threads: Vec<ThreadRun>,
    pub classes: Classes,
    pub groups: Vec<Group>,
    /// Whether the function uses convergence control tokens (controlled convergence).
    pub controlled: bool,
    pub args: Vec<Val>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
enum TState {
    Running,
    Waiting,
    Done,
}

#[derive(Clone)]
struct Thread {
    tid: u32,
    block: Block,
    pos: u32,
    regs: Vec<Val>,
    tracker: Tracker,
    bclass: ClassId,
    state: TState,
    status: Option<Status>,
    steps: u64,
    private: HashMap<u64, u8>,
    alloca_next: u64,
    produced: HashSet<ClassId>,
    token_last: HashMap<u32, ClassId>,
    heart_count: HashMap<(u32, ClassId), u32>,
    occurrence: u64,
    pending: Option<(u32, ClassId, Vec<Val>)>,
    blocks: Vec<(Block, ClassId)>,
    records: Vec<Record>,
    waits: Vec<(InstId, ClassId)>,
    /// The value returned by `ret`, for calls into functions of the module.
    ret: Option<Val>,
}

struct Exec<'a, 'm> {
    p: &'a Program<'m>,
    h: &'a Hierarchy,
    opts: &'a Options,
    args: &'a [Val],
    classes: &'a mut Classes,
    notes: &'a mut Vec<String>,
    /// Bytes written to memory shared by the group.
    shared: HashMap<u64, u8>,
    /// Call nesting (calls into functions of the module are executed inline).
    depth: u32,
}

mod arith;
mod callee;
mod calls;
mod comm;
mod eval;
mod memory;
mod program;
mod schedule;

use arith::*;
use callee::*;
pub use callee::{Target, callee_name, callee_name_of};
use memory::*;
use program::*;
pub use program::{Program, function_cfg};
pub use schedule::run;
