//! The small SSA view the analysis runs on, and the target hooks that seed it.
//!
//! An IR implements [`SsaFunction`] (blocks with contiguous instruction ids, terminator last; users in
//! use-list order; phis) and a target implements [`DivergenceModel`]. Nothing here knows LLVM text.

use converge_graph::{Block, Graph};
pub use converge_graph::{Cycle, Inst, InstRange};

/// A value the analysis tracks: a function argument or an instruction result, by dense index.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    /// The function's argument at this position.
    Arg(u32),
    /// The result of this instruction.
    Inst(Inst),
}

/// A function in SSA form, as the uniformity analysis needs to see it.
///
/// Instruction ids ([`Inst`]) are dense (`0..num_insts`), and each block's instructions form a
/// contiguous range ([`InstRange`]) whose last element is the block's terminator.
pub trait SsaFunction {
    /// The control-flow graph type (block ids are shared with the instructions' blocks).
    type Cfg: Graph;
    /// The CFG: successors in terminator operand order, predecessors in use-list order (see
    /// [`converge_graph::Graph`]); the entry is the function's entry block.
    fn cfg(&self) -> &Self::Cfg;
    /// Number of arguments; arguments are `Val::Arg(0..num_args)`.
    fn num_args(&self) -> u32;
    /// Number of instructions; instructions are `Val::Inst(0..num_insts)`.
    fn num_insts(&self) -> u32;
    /// The instruction ids of block `b`, in order; the last one is the terminator.
    fn block_insts(&self, b: Block) -> InstRange;
    /// The block containing instruction `i`.
    fn inst_block(&self, i: Inst) -> Block;
    /// Terminators are tracked per block (a divergent terminator marks its block), never as values.
    fn is_terminator(&self, i: Inst) -> bool {
        let r = self.block_insts(self.inst_block(i));
        i.0 + 1 == r.end().0
    }
    /// Whether `i` is a phi: at a join of a divergent branch, phis are where sync dependence makes
    /// values divergent.
    fn is_phi(&self, i: Inst) -> bool;
    /// LLVM's `PHINode::hasConstantOrUndefValue`: ignoring incoming values that are the phi itself or
    /// undef/poison, all remaining incoming values are the same value (possibly none).
    fn phi_has_constant_or_undef_value(&self, i: Inst) -> bool;
    /// The instructions using `v`, once per use, in the IR's use-list order (it decides the order of
    /// the worklist and of the printed lists, never the final divergent sets).
    fn users(&self, v: Val) -> &[Inst];
    /// Calls `f` with each operand of `i` that is an instruction (for the exit-phi rule).
    fn for_each_inst_operand(&self, i: Inst, f: &mut dyn FnMut(Inst));

    // ---- used by precise mode only (defaults keep older implementations working) ----

    /// Whether the incoming values of phi `i` whose incoming block satisfies `pred` are all one
    /// value, ignoring undef/poison (the phi itself is a value here, unlike in
    /// [`SsaFunction::phi_has_constant_or_undef_value`]). The default answers with
    /// `phi_has_constant_or_undef_value` when the phi does not use itself, a stronger condition.
    fn phi_same_incoming_from(&self, i: Inst, pred: &dyn Fn(Block) -> bool) -> bool {
        let _ = pred;
        let mut uses_itself = false;
        self.for_each_inst_operand(i, &mut |d| uses_itself |= d == i);
        !uses_itself && self.phi_has_constant_or_undef_value(i)
    }
    /// Calls `f` with each incoming block of phi `i` whose incoming value is `v` (precise mode's
    /// rule P10 follows the value along those edges). The default names every predecessor of the
    /// phi's block, which is safe: more edges only make fewer uses uniform.
    fn phi_incoming_blocks_of(&self, i: Inst, v: Inst, f: &mut dyn FnMut(Block)) {
        let _ = v;
        for &p in self.cfg().preds(self.inst_block(i)) {
            f(p);
        }
    }
    /// The convergence-control token `i` defines ("Convergent Operation Semantics": the `entry`,
    /// `loop` (heart) and `anchor` intrinsics), if any.
    fn token_kind(&self, i: Inst) -> Option<TokenKind> {
        let _ = i;
        None
    }
    /// The token operand of `i`'s `convergencectrl` bundle, when it is an instruction.
    fn control_token(&self, i: Inst) -> Option<Inst> {
        let _ = i;
        None
    }
    /// Whether `i` computes its result from its operands alone, the same every time it runs
    /// (arithmetic, comparisons, casts, selects, address arithmetic: no memory, no call, no phi,
    /// no fresh value like `alloca` or `freeze`). Precise mode's cycle-invariant rule.
    fn is_operand_function(&self, i: Inst) -> bool {
        let _ = i;
        false
    }

    // ---- speed only (the default is always correct) ----

    /// The users of every instruction of block `b` in one slice (each instruction's
    /// [`SsaFunction::users`] one after the other), when the implementation stores them so:
    /// a scan for uses outside the block then needs no per-instruction lookup. `None` (the
    /// default) makes the callers ask per instruction.
    fn block_users(&self, b: Block) -> Option<&[Inst]> {
        let _ = b;
        None
    }
    /// The incoming blocks of phi `i` in the order of its incomings, when the implementation
    /// stores them so: precise mode then answers [`SsaFunction::phi_same_incoming_from`] for a
    /// block of many predecessors from a list of those blocks sorted by cycle, built once,
    /// instead of reading every incoming per cycle asking. `None` (the default): read them all.
    fn phi_incoming_blocks(&self, i: Inst) -> Option<&[Block]> {
        let _ = i;
        None
    }
    /// [`SsaFunction::phi_same_incoming_from`] over the incomings at positions `at` (of
    /// [`SsaFunction::phi_incoming_blocks`], which must answer) instead of those whose block
    /// satisfies a predicate.
    fn phi_same_incoming_at(&self, i: Inst, at: &[u32]) -> bool {
        let blocks = self.phi_incoming_blocks(i).unwrap_or(&[]);
        self.phi_same_incoming_from(i, &|b| {
            at.iter().any(|&k| blocks.get(k as usize) == Some(&b))
        })
    }
}

/// The three token-defining intrinsics of "Convergent Operation Semantics".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `llvm.experimental.convergence.entry`: the dynamic instance of the function's entry.
    Entry,
    /// A loop heart.
    Loop,
    /// `llvm.experimental.convergence.anchor`: an implementation-defined set of threads.
    Anchor,
}

/// Why a target names a value a divergence source ("Convergence And Uniformity", *Divergence*:
/// the target decides which values are sources); see [`DivergenceModel::source_reason`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SourceReason {
    /// An intrinsic returning the executing thread's own id (its lane, its id in the group).
    ThreadIdIntrinsic,
    /// Another intrinsic whose result differs per lane (lane-wise operations, per-lane reads).
    PerLaneIntrinsic,
    /// A read of a per-lane register (`llvm.read_register` of a vector register or a mask).
    PerLaneRegister,
    /// A load from an address space whose memory differs per thread (or may, like flat or
    /// generic memory): the address space is given.
    DivergentLoad(u32),
    /// An atomic operation (`atomicrmw`, `cmpxchg`, `fence`, an atomic `store`): each thread
    /// may see a different value.
    Atomic,
    /// A call to a function the target knows nothing about (or, on NVPTX, any call).
    Call,
    /// An `invoke`.
    Invoke,
    /// Inline asm writing a per-lane register.
    InlineAsm,
    /// A private-to-flat address cast where scratch is globally addressable: each lane's
    /// scratch has its own flat address.
    ScratchAddressCast,
    /// An `alloca` naming per-thread memory (NVPTX's newer rule).
    PrivateAlloca,
    /// An argument the calling convention passes per thread (see
    /// [`DivergenceModel::source_arg_reason`]).
    Argument,
    /// A source the target does not classify.
    Other,
}

/// What a target says about divergence (LLVM's `TargetTransformInfo` hooks).
pub trait DivergenceModel<F: ?Sized> {
    /// `false` means the analysis does not run: every value is uniform.
    fn has_branch_divergence(&self, f: &F) -> bool;
    /// Whether argument `arg` is divergent by itself (a source), like a non-`inreg` argument of
    /// an AMDGPU non-kernel function.
    fn is_source_arg(&self, f: &F, arg: u32) -> bool;
    /// Whether instruction `inst` is divergent by itself (a source): thread-id intrinsics, atomics,
    /// loads of memory that differs per thread, calls the target knows nothing about.
    fn is_source_inst(&self, f: &F, inst: Inst) -> bool;
    /// Only asked when `is_source_inst` is false; such an instruction is never divergent.
    fn is_always_uniform(&self, f: &F, inst: Inst) -> bool;

    /// [`DivergenceModel::is_source_inst`] as precise mode asks it: a target may answer with the
    /// refinements newer than the release llvm mode reproduces that are sound by the semantics
    /// (and with newer rules that make values divergent). Default: the llvm-mode answer.
    fn is_source_inst_precise(&self, f: &F, inst: Inst) -> bool {
        self.is_source_inst(f, inst)
    }
    /// [`DivergenceModel::is_always_uniform`] as precise mode asks it (see
    /// [`DivergenceModel::is_source_inst_precise`]).
    fn is_always_uniform_precise(&self, f: &F, inst: Inst) -> bool {
        self.is_always_uniform(f, inst)
    }
    /// Why `inst` is a source in llvm mode: `Some` exactly when
    /// [`DivergenceModel::is_source_inst`] is true. Default: [`SourceReason::Other`] for every
    /// source (a target overrides it with the facts its rules use).
    fn source_reason(&self, f: &F, inst: Inst) -> Option<SourceReason> {
        self.is_source_inst(f, inst).then_some(SourceReason::Other)
    }
    /// Why argument `arg` is a source: `Some` exactly when [`DivergenceModel::is_source_arg`]
    /// is true.
    fn source_arg_reason(&self, f: &F, arg: u32) -> Option<SourceReason> {
        self.is_source_arg(f, arg).then_some(SourceReason::Argument)
    }
    /// Operands of `inst` whose divergence does not make it divergent (an operand-aware rule of
    /// the target, like LLVM main's `permlane16`, whose result does not follow `old`); appended
    /// to `out`. Default: none, every operand counts.
    fn ignored_operands(&self, f: &F, inst: Inst, out: &mut Vec<Val>) {
        let _ = (f, inst, out);
    }
}
