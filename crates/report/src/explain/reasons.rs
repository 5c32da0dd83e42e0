//! The vocabulary of explanations: a value ([`Node`]), why it is divergent ([`Reason`], one
//! [`Step`] of a chain, with the target rule of a source in [`SourceRule`]), why it is uniform
//! ([`UniformFact`]), and the answer for one value ([`Explanation`]).

use converge_graph::Block;
use converge_ir::{InstId, Value};

/// A join and the two paths to it from the branch (disjoint unless said otherwise).
pub type JoinWitness = (Block, [Vec<Block>; 2]);

/// A value of the function: an argument or an instruction (terminators included).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Arg(u32),
    Inst(u32),
}

impl Node {
    pub fn value(self) -> Value {
        match self {
            Node::Arg(a) => Value::Arg(a),
            Node::Inst(i) => Value::Inst(InstId(i)),
        }
    }
}

/// Which target rule makes a value a divergence source.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceRule {
    /// A thread/lane id intrinsic (`llvm.amdgcn.workitem.id.x`, `llvm.nvvm.read.ptx.sreg.tid.x`, …).
    ThreadId,
    /// Another intrinsic the target lists as divergent.
    Intrinsic,
    /// `llvm.read_register` of a per-lane register.
    ReadRegister,
    /// A load from an address space with per-thread contents.
    Load,
    /// An atomic (`atomicrmw`, `cmpxchg`, atomic store, fence).
    Atomic,
    /// A call to an unknown function.
    Call,
    /// An `invoke`.
    Invoke,
    /// Inline asm with an output in a per-lane register class.
    InlineAsm,
    /// A function argument the calling convention passes per thread.
    Argument,
}

impl SourceRule {
    pub fn id(self) -> &'static str {
        match self {
            SourceRule::ThreadId => "thread-id-intrinsic",
            SourceRule::Intrinsic => "divergent-intrinsic",
            SourceRule::ReadRegister => "read-register",
            SourceRule::Load => "divergent-load",
            SourceRule::Atomic => "atomic",
            SourceRule::Call => "call",
            SourceRule::Invoke => "invoke",
            SourceRule::InlineAsm => "inline-asm",
            SourceRule::Argument => "argument",
        }
    }
}

/// Why one value is divergent, given its premise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A divergence source of the target.
    Source { rule: SourceRule, detail: String },
    /// Uses the divergent `operand`.
    Data { operand: Node },
    /// A phi at `join`, a join of the divergent branch in `branch`: `paths` are two paths from
    /// distinct successors, disjoint when `disjoint` (the seeds' join). Without two disjoint paths
    /// the analysis can still find a join: its label propagation inside irreducible regions
    /// over-approximates, and LLVM agrees; then `paths` are the shortest ones from two successors.
    Sync {
        branch: Block,
        join: Block,
        paths: [Vec<Block>; 2],
        disjoint: bool,
    },
    /// Uses `operand`, defined in `cycle`, outside the cycle; the cycle has a divergent exit at
    /// `exit` because of the divergent branch in `branch` (`path`: branch → exit).
    Temporal {
        operand: u32,
        cycle: u32,
        branch: Block,
        exit: Block,
        path: Vec<Block>,
    },
    /// Defined in `cycle`, an irreducible cycle assumed divergent: diverged paths from the branch in
    /// `branch` enter it at `entries` (or meet at a join inside it not dominated by the branch).
    AssumedCycle {
        cycle: u32,
        branch: Block,
        entries: Vec<Block>,
        paths: Vec<Vec<Block>>,
    },
    /// Precise mode, rule P2: uses `operand`, defined in `cycle` outside it; the cycle is assumed
    /// divergent (diverged paths from the branch in `branch` enter it), so the dynamic instances
    /// of its blocks are not converged and threads leave it at different times.
    LeavesAssumedCycle {
        operand: u32,
        cycle: u32,
        branch: Block,
    },
    /// Precise mode, rule P2: a branch in `cycle`, assumed divergent (diverged paths from the
    /// branch in `branch` enter it), on `operand` computed inside the cycle: threads run the
    /// cycle's blocks in dynamic instances that are not converged, so even a value uniform within
    /// each group may differ between threads that meet again.
    BranchInAssumedCycle {
        operand: u32,
        cycle: u32,
        branch: Block,
    },
    /// Precise mode, rule P6: uses the divergent `operand` in an operation the target calls always
    /// uniform, but controlled by `token`, an `anchor` (an implementation-defined group of
    /// threads) or a token defined in a cycle that does not contain the operation (the threads
    /// that left in the same iteration): threads converged at later uses may have computed it in
    /// different groups, so it is divergent when its operands are.
    GroupedByToken { operand: Node, token: u32 },
    /// Precise mode, rule P4: a phi in `exit`, outside `cycle`, whose incoming values from inside
    /// the cycle differ; the cycle has a divergent exit because of the branch in `branch`
    /// (`path`: branch → an exit), so threads leave it from different blocks or iterations.
    ExitPhi {
        cycle: u32,
        exit: Block,
        branch: Block,
        path: Vec<Block>,
    },
    /// Precise mode, rule P7: uses `operand`, which is computed from `value` (defined in `cycle`,
    /// used outside it) and uniform only inside the convergence region of the loop heart `heart`
    /// in the cycle's header, where only threads that left in the same iteration are converged.
    /// This value lies outside that region (no use of the heart follows it), where threads that
    /// left in different iterations are converged again; the cycle's exit `exit` is divergent
    /// because of the branch in `branch` (`path`: branch → exit).
    PastHeartRegion {
        operand: u32,
        value: u32,
        heart: u32,
        cycle: u32,
        branch: Block,
        exit: Block,
        path: Vec<Block>,
    },
    /// Precise mode, rule P6: uses `operand`, which is computed from `value`, an always-uniform
    /// operation controlled by `token` (an `anchor`, or a token of a cycle that does not contain
    /// it). The threads of one dynamic instance of the token are converged at `value`, so it is
    /// uniform inside the token's convergence region; which threads form one instance is
    /// implementation-defined for an anchor ("Convergent Operation Semantics",
    /// `llvm.experimental.convergence.anchor`). This value lies past the region (no use of the
    /// token follows it), where threads of different instances are converged again.
    PastTokenRegion {
        operand: u32,
        value: u32,
        token: u32,
    },
}

/// The rules of precise mode (docs/precise-mode.md) a reason rests on, beyond LLVM's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PreciseRule {
    /// P2: assumed-divergent cycles are left at different times.
    AssumedCycleExit,
    /// P4: exit phis are judged by their incoming values from inside the cycle.
    ExitPhi,
    /// P6: operations grouped by an anchor or by a token from another cycle are not always
    /// uniform.
    TokenGroup,
    /// P7: temporal divergence past a loop heart's convergence region.
    HeartRegion,
}

impl PreciseRule {
    /// The rule's name in docs/precise-mode.md.
    pub fn id(self) -> &'static str {
        match self {
            PreciseRule::AssumedCycleExit => "P2",
            PreciseRule::ExitPhi => "P4",
            PreciseRule::TokenGroup => "P6",
            PreciseRule::HeartRegion => "P7",
        }
    }
}

impl Reason {
    pub fn kind(&self) -> &'static str {
        match self {
            Reason::Source { .. } => "source",
            Reason::Data { .. } => "data",
            Reason::Sync { .. } => "sync",
            Reason::Temporal { .. } => "temporal",
            Reason::AssumedCycle { .. } => "assumed-divergent-cycle",
            Reason::LeavesAssumedCycle { .. } => "leaves-assumed-divergent-cycle",
            Reason::BranchInAssumedCycle { .. } => "branch-in-assumed-divergent-cycle",
            Reason::ExitPhi { .. } => "exit-phi",
            Reason::GroupedByToken { .. } => "grouped-by-token",
            Reason::PastHeartRegion { .. } => "past-heart-region",
            Reason::PastTokenRegion { .. } => "past-token-region",
        }
    }
    /// The precise-mode rule this reason rests on, if it is not one of LLVM's.
    pub fn precise_rule(&self) -> Option<PreciseRule> {
        match self {
            Reason::LeavesAssumedCycle { .. } | Reason::BranchInAssumedCycle { .. } => {
                Some(PreciseRule::AssumedCycleExit)
            }
            Reason::PastHeartRegion { .. } => Some(PreciseRule::HeartRegion),
            Reason::ExitPhi { .. } => Some(PreciseRule::ExitPhi),
            Reason::GroupedByToken { .. } | Reason::PastTokenRegion { .. } => {
                Some(PreciseRule::TokenGroup)
            }
            _ => None,
        }
    }
    /// The value this reason's premise is, when it is a value (data dependence).
    pub fn premise_value(&self) -> Option<Node> {
        match self {
            Reason::Data { operand } | Reason::GroupedByToken { operand, .. } => Some(*operand),
            _ => None,
        }
    }
    /// The divergent branch this reason's premise is (the branch's terminator must be divergent).
    pub fn premise_branch(&self) -> Option<Block> {
        match self {
            Reason::Source { .. }
            | Reason::Data { .. }
            | Reason::GroupedByToken { .. }
            | Reason::PastTokenRegion { .. } => None,
            Reason::Sync { branch, .. }
            | Reason::Temporal { branch, .. }
            | Reason::AssumedCycle { branch, .. }
            | Reason::LeavesAssumedCycle { branch, .. }
            | Reason::BranchInAssumedCycle { branch, .. }
            | Reason::ExitPhi { branch, .. }
            | Reason::PastHeartRegion { branch, .. } => Some(*branch),
        }
    }
}

/// One link of a chain: `node` is divergent because of `reason`.
#[derive(Clone, Debug)]
pub struct Step {
    pub node: Node,
    pub reason: Reason,
}

/// Why a value is uniform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UniformFact {
    /// The target has no branch divergence (or the function runs on a single lane).
    NotAnalysed,
    /// The argument is passed uniformly (kernel argument, `inreg`, …).
    UniformArgument,
    /// The target declares the instruction always uniform.
    AlwaysUniform,
    /// No operand is divergent (the operands are listed).
    NoDivergentOperand { operands: Vec<Node> },
    /// A phi at `join`, a join of the divergent branch in `branch`, whose incoming values are all
    /// the same value (ignoring undef and the phi itself).
    ConstantPhi { join: Block, branch: Block },
    /// Precise mode, rule P5: a phi at `join`, a join of the divergent branch in `branch`, whose
    /// incoming values on the edges that can lie on the diverged paths (from the branch block and
    /// the blocks reachable from it) are one value.
    SameOnDivergedPaths { join: Block, branch: Block },
    /// Precise mode, rule P4: a phi in `exit`, an exit of `cycle` (which has a divergent exit,
    /// from the branch in `branch`), whose incoming values from inside the cycle are one value
    /// (undef skipped).
    ExitPhiSameFromCycle {
        exit: Block,
        cycle: u32,
        branch: Block,
    },
    /// A phi at the header of `cycle`; the divergent branch in `branch` inside the cycle does not
    /// reach it along two disjoint paths within one iteration (going around again is temporal
    /// divergence, not a join).
    HeaderNotJoin { cycle: u32, branch: Block },
    /// A phi whose block is not a join of any divergent branch.
    NotAJoin,
    /// A phi in `exit`, an exit of `cycle` (which has a divergent exit, from the branch in
    /// `branch`), whose incoming values differ but none is defined inside the cycle: LLVM marks
    /// exit phis only for values from the cycle (docs/llvm-differences.md entry 2).
    ExitPhiNoCycleValue {
        exit: Block,
        cycle: u32,
        branch: Block,
    },
    /// A phi at `join`, reached on disjoint paths from the divergent branch in `branch`, with
    /// different incoming values, that the analysis in this mode leaves uniform anyway (LLVM's
    /// join detection does not report it).
    JoinNotReported { join: Block, branch: Block },
    /// Uniform inside `cycle`, which has a divergent exit; its `users` outside see it temporally
    /// divergent.
    TemporalOutside { cycle: u32, users: Vec<u32> },
}

/// The answer for one value.
#[derive(Clone, Debug)]
pub enum Explanation {
    /// The chain from the value back to a source (the first step is the value itself).
    Divergent(Vec<Step>),
    Uniform(Vec<UniformFact>),
    /// Divergent, but no chain to a source was reconstructed (a bug in this module).
    Unexplained,
}
