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
    /// The function's argument with this index.
    Arg(u32),
    /// The instruction with this index in the function's instruction arena.
    Inst(u32),
}

impl Node {
    /// The same value as an IR operand.
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
    /// A private-to-flat address cast (`addrspacecast`, `llvm.amdgcn.addrspacecast.nonnull`) on
    /// an AMDGPU processor with globally addressable scratch (gfx1250): each lane's scratch has
    /// its own flat address.
    ScratchAddress,
    /// An `alloca`, whose pointer names the thread's own memory (NVPTX, LLVM's development
    /// branch).
    PrivateAlloca,
    /// A source the target model does not classify further.
    Other,
}

impl SourceRule {
    /// The rule's stable name in JSON output and the explore page (`thread-id-intrinsic`, …).
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
            SourceRule::ScratchAddress => "scratch-address",
            SourceRule::PrivateAlloca => "private-alloca",
            SourceRule::Other => "target-source",
        }
    }
}

/// Why one value is divergent, given its premise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A divergence source of the target.
    Source {
        /// Which rule of the target model names it.
        rule: SourceRule,
        /// The rule applied to this value, in words (the intrinsic, address space, callee, …).
        detail: String,
    },
    /// Uses the divergent `operand` ("Convergence And Uniformity", *Divergence*: data
    /// dependence).
    Data {
        /// The divergent operand.
        operand: Node,
    },
    /// A phi at `join`, a join of the divergent branch in `branch`: `paths` are two paths from
    /// distinct successors, disjoint when `disjoint` (the seeds' join). Without two disjoint paths
    /// the analysis can still find a join: its label propagation inside irreducible regions
    /// over-approximates, and LLVM agrees; then `paths` are the shortest ones from two successors.
    Sync {
        /// The block whose terminator is the divergent branch.
        branch: Block,
        /// The phi's block.
        join: Block,
        /// Two paths from the branch to the join, each starting at a different successor.
        paths: [Vec<Block>; 2],
        /// Whether the paths share only the join.
        disjoint: bool,
    },
    /// Uses `operand`, defined in `cycle`, outside the cycle; the cycle has a divergent exit at
    /// `exit` because of the divergent branch in `branch` (`path`: branch → exit).
    Temporal {
        /// The instruction used outside the cycle, defined inside it.
        operand: u32,
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose divergent terminator makes the exit divergent.
        branch: Block,
        /// The exit block the path reaches.
        exit: Block,
        /// A path from the branch to the exit.
        path: Vec<Block>,
    },
    /// Defined in `cycle`, an irreducible cycle assumed divergent: diverged paths from the branch in
    /// `branch` enter it at `entries` (or meet at a join inside it not dominated by the branch).
    AssumedCycle {
        /// The irreducible cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose terminator is the divergent branch.
        branch: Block,
        /// The cycle's entries the diverged paths reach.
        entries: Vec<Block>,
        /// The diverged paths from the branch that show it.
        paths: Vec<Vec<Block>>,
    },
    /// Precise mode, rule P2: uses `operand`, defined in `cycle` outside it; the cycle is assumed
    /// divergent (diverged paths from the branch in `branch` enter it), so the dynamic instances
    /// of its blocks are not converged and threads leave it at different times.
    LeavesAssumedCycle {
        /// The instruction used outside the cycle, defined inside it.
        operand: u32,
        /// The assumed-divergent cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose divergent branch's paths enter the cycle.
        branch: Block,
    },
    /// Precise mode, rule P2: a branch in `cycle`, assumed divergent (diverged paths from the
    /// branch in `branch` enter it), on `operand` computed inside the cycle: threads run the
    /// cycle's blocks in dynamic instances that are not converged, so even a value uniform within
    /// each group may differ between threads that meet again.
    BranchInAssumedCycle {
        /// The branch's condition, computed inside the cycle.
        operand: u32,
        /// The assumed-divergent cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose divergent branch's paths enter the cycle.
        branch: Block,
    },
    /// Precise mode, rule P6: uses the divergent `operand` in an operation the target calls always
    /// uniform, but controlled by `token`, an `anchor` or a loop heart whose chain of parent tokens
    /// leads to one (an implementation-defined group of threads), or a token defined in a cycle
    /// that does not contain the operation (the threads that left in the same iteration): threads
    /// converged at later uses may have computed it in different groups, so it is divergent when
    /// its operands are.
    GroupedByToken {
        /// The divergent operand.
        operand: Node,
        /// The convergence control token the operation uses (an instruction index).
        token: u32,
    },
    /// Precise mode, rule P4: a phi in `exit`, outside `cycle`, whose incoming values from inside
    /// the cycle differ; the cycle has a divergent exit because of the branch in `branch`
    /// (`path`: branch → an exit), so threads leave it from different blocks or iterations.
    ExitPhi {
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The phi's block, an exit block of the cycle.
        exit: Block,
        /// The block whose divergent terminator makes an exit divergent.
        branch: Block,
        /// A path from the branch to an exit.
        path: Vec<Block>,
    },
    /// Precise mode, rule P7: uses `operand`, which is computed from `value` (defined in `cycle`,
    /// used outside it) and uniform only inside the convergence region of the loop heart `heart`
    /// in the cycle's header, where only threads that left in the same iteration are converged.
    /// This value lies outside that region (not dominated by the heart, or no use of the heart is
    /// reachable from it without executing the heart again), where threads that
    /// left in different iterations are converged again; the cycle's exit `exit` is divergent
    /// because of the branch in `branch` (`path`: branch → exit).
    PastHeartRegion {
        /// The operand this value uses.
        operand: u32,
        /// The instruction defined in the cycle and used outside it.
        value: u32,
        /// The `llvm.experimental.convergence.loop` call (the heart), an instruction index.
        heart: u32,
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose divergent terminator makes the exit divergent.
        branch: Block,
        /// The exit block the path reaches.
        exit: Block,
        /// A path from the branch to the exit.
        path: Vec<Block>,
    },
    /// Precise mode, rule P6: uses `operand`, which is computed from `value`, an always-uniform
    /// operation controlled by `token` (an `anchor` or a loop heart under one, or a token of a
    /// cycle that does not contain it). The threads of one dynamic instance of the token are
    /// converged at `value`, so it is uniform inside the token's convergence region; which threads
    /// form one instance is implementation-defined for an anchor ("Convergent Operation Semantics",
    /// `llvm.experimental.convergence.anchor`). This value lies past the region (not dominated by
    /// the token, or no use of the token is reachable from it without executing the token again,
    /// *Convergence Region*; for a loop heart, also outside its cycle or its parent token's
    /// region, which would keep the converged threads in one iteration of one parent instance),
    /// where threads of different instances are converged again.
    PastTokenRegion {
        /// The operand this value uses.
        operand: u32,
        /// The always-uniform operation controlled by the token.
        value: u32,
        /// The convergence control token (an instruction index).
        token: u32,
    },
    /// Precise mode, rule P1: divergent under a cycle hierarchy of the CFG other than LLVM's
    /// (the one the cycles of the other reasons belong to), whose irreducible cycles have the
    /// headers `headers` (and blocks `blocks`). Each hierarchy gives its own maximal convergence
    /// ("Convergence And Uniformity", *Maximal Convergence*); precise mode analyses every one and
    /// a value is uniform only if it is uniform under all of them.
    OtherHierarchy {
        /// The headers of that hierarchy's cycles inside irreducible regions, outermost first.
        headers: Vec<Block>,
        /// Those cycles' blocks (sorted), in the same order.
        blocks: Vec<Vec<Block>>,
    },
    /// Precise mode, rule P1 (one hierarchy's joins): uses `operand`, defined in `cycle`, outside
    /// it; diverged paths from the branch in `branch` meet at `join` inside `cycle`, which lies in
    /// the irreducible cycle `region` entered on diverged paths (the branch is outside `region`,
    /// or dominates neither `join` nor is `join` dominated by `region`'s header). Threads that
    /// reach `join` that way may be in different iterations of every cycle from `cycle` out to
    /// `region` ("Convergence And Uniformity", *Maximal Convergence*: a diverged entry), so they
    /// leave `cycle` at different times. The cycles are those of LLVM's hierarchy.
    DivergedEntry {
        /// The instruction used outside the cycle, defined inside it.
        operand: u32,
        /// The cycle left, by index in the cycle hierarchy.
        cycle: u32,
        /// The irreducible cycle around it entered on diverged paths.
        region: u32,
        /// The block whose terminator is the divergent branch.
        branch: Block,
        /// Where the diverged paths meet, inside `cycle`.
        join: Block,
        /// Two paths from the branch to the join that share only those two blocks.
        paths: [Vec<Block>; 2],
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
    /// P1: every cycle hierarchy is analysed.
    Hierarchies,
}

impl PreciseRule {
    /// The rule's name in docs/precise-mode.md.
    pub fn id(self) -> &'static str {
        match self {
            PreciseRule::AssumedCycleExit => "P2",
            PreciseRule::ExitPhi => "P4",
            PreciseRule::TokenGroup => "P6",
            PreciseRule::HeartRegion => "P7",
            PreciseRule::Hierarchies => "P1",
        }
    }
}

impl Reason {
    /// The reason's stable name in JSON output and the explore page (`source`, `sync`, …).
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
            Reason::OtherHierarchy { .. } => "other-hierarchy",
            Reason::DivergedEntry { .. } => "leaves-cycle-entered-diverged",
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
            Reason::OtherHierarchy { .. } | Reason::DivergedEntry { .. } => {
                Some(PreciseRule::Hierarchies)
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
            | Reason::PastTokenRegion { .. }
            | Reason::OtherHierarchy { .. } => None,
            Reason::Sync { branch, .. }
            | Reason::Temporal { branch, .. }
            | Reason::AssumedCycle { branch, .. }
            | Reason::LeavesAssumedCycle { branch, .. }
            | Reason::DivergedEntry { branch, .. }
            | Reason::BranchInAssumedCycle { branch, .. }
            | Reason::ExitPhi { branch, .. }
            | Reason::PastHeartRegion { branch, .. } => Some(*branch),
        }
    }
}

/// One link of a chain: `node` is divergent because of `reason`.
#[derive(Clone, Debug)]
pub struct Step {
    /// The divergent value.
    pub node: Node,
    /// Why it is divergent, given the premise (the next step's node, or nothing for a source).
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
    NoDivergentOperand {
        /// The operands, all uniform.
        operands: Vec<Node>,
    },
    /// A phi at `join`, a join of the divergent branch in `branch`, whose incoming values are all
    /// the same value (ignoring undef and the phi itself).
    ConstantPhi {
        /// The phi's block.
        join: Block,
        /// The block whose terminator is the divergent branch.
        branch: Block,
    },
    /// Precise mode, rule P5: a phi at `join`, a join of the divergent branch in `branch`, whose
    /// incoming values on the edges that can lie on the diverged paths (from the branch block and
    /// the blocks reachable from it) are one value.
    SameOnDivergedPaths {
        /// The phi's block.
        join: Block,
        /// The block whose terminator is the divergent branch.
        branch: Block,
    },
    /// Precise mode, rule P4: a phi in `exit`, an exit of `cycle` (which has a divergent exit,
    /// from the branch in `branch`), whose incoming values from inside the cycle are one value
    /// (undef skipped).
    ExitPhiSameFromCycle {
        /// The phi's block, an exit block of the cycle.
        exit: Block,
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose divergent terminator makes an exit divergent.
        branch: Block,
    },
    /// A phi at the header of `cycle`; the divergent branch in `branch` inside the cycle does not
    /// reach it along two disjoint paths within one iteration (going around again is temporal
    /// divergence, not a join).
    HeaderNotJoin {
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose terminator is the divergent branch.
        branch: Block,
    },
    /// A phi whose block is not a join of any divergent branch.
    NotAJoin,
    /// A phi in `exit`, an exit of `cycle` (which has a divergent exit, from the branch in
    /// `branch`), whose incoming values differ but none is defined inside the cycle: LLVM marks
    /// exit phis only for values from the cycle (docs/llvm-differences.md entry 2).
    ExitPhiNoCycleValue {
        /// The phi's block, an exit block of the cycle.
        exit: Block,
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The block whose divergent terminator makes an exit divergent.
        branch: Block,
    },
    /// A phi at `join`, reached on disjoint paths from the divergent branch in `branch`, with
    /// different incoming values, that the analysis in this mode leaves uniform anyway (LLVM's
    /// join detection does not report it).
    JoinNotReported {
        /// The phi's block.
        join: Block,
        /// The block whose terminator is the divergent branch.
        branch: Block,
    },
    /// Uniform inside `cycle`, which has a divergent exit; its `users` outside see it temporally
    /// divergent.
    TemporalOutside {
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The instructions outside the cycle that use the value.
        users: Vec<u32>,
    },
    /// Precise mode, rule P10: the operand `value` is defined in `cycle`, which has a divergent
    /// exit and does not contain this instruction, but every path from `value` to here leaves
    /// the cycle through exits that all threads take in the same iteration (the analysis'
    /// `uniform_exit_uses`), so this use is not temporally divergent.
    UniformlyTakenExits {
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The operand defined inside the cycle.
        value: Node,
    },
    /// Precise mode, rule P7: the operand `value` is defined in `cycle`, which has a divergent
    /// exit and does not contain this instruction, but this use lies in the convergence region
    /// of the loop heart `heart` in the cycle's header, and every path from the heart to here
    /// passes `value`: the threads converged here left in the same iteration ("Convergent
    /// Operation Semantics", *Temporal Divergence at Cycle Exit*), so this use is not temporally
    /// divergent.
    InHeartRegion {
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The operand defined inside the cycle.
        value: Node,
        /// The loop heart (an instruction index).
        heart: u32,
    },
    /// Precise mode, rule P6: computed (through uniform values) from `value`, an always-uniform
    /// operation controlled by `token`, an `anchor` or a loop heart under one, whose groups of
    /// threads are implementation-defined; the threads converged here executed one dynamic
    /// instance of the token ("Convergent Operation Semantics", *Controlled maximal convergence
    /// relation*): this point is in the token's convergence region (`in_region`), or, for a loop
    /// heart, in the heart's cycle and in its parent token's region (one iteration of one parent
    /// instance). So they read the same `value`.
    SharesTokenInstance {
        /// The always-uniform operation controlled by the token.
        value: u32,
        /// The token (an instruction index).
        token: u32,
        /// Whether this point is in the token's own convergence region.
        in_region: bool,
    },
    /// Precise mode, rule P9: the operand `value` is defined in `cycle`, which has a divergent
    /// exit and does not contain this instruction, but it is computed from values defined
    /// outside the cycle alone, so it is the same in every iteration.
    CycleInvariant {
        /// The cycle, by index in the cycle hierarchy.
        cycle: u32,
        /// The operand defined inside the cycle.
        value: Node,
    },
}

/// The answer for one value.
#[derive(Clone, Debug)]
pub enum Explanation {
    /// The chain from the value back to a source (the first step is the value itself).
    Divergent(Vec<Step>),
    /// Uniform, for these reasons (all that apply).
    Uniform(Vec<UniformFact>),
    /// Divergent, but no chain to a source was reconstructed (a bug in this module).
    Unexplained,
}
