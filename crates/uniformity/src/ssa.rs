//! The small SSA view the analysis runs on, and the target hooks that seed it.
//!
//! An IR implements [`SsaFunction`] (blocks with contiguous instruction ids, terminator last; users in
//! use-list order; phis) and a target implements [`DivergenceModel`]. Nothing here knows LLVM text.

use converge_graph::{Block, Graph};
use std::ops::Range;

/// A value the analysis tracks: a function argument or an instruction result, by dense index.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    Arg(u32),
    Inst(u32),
}

/// A function in SSA form, as the uniformity analysis needs to see it.
///
/// Instruction ids are dense (`0..num_insts`), and each block's instructions form a contiguous range
/// whose last element is the block's terminator.
pub trait SsaFunction {
    type Cfg: Graph;
    fn cfg(&self) -> &Self::Cfg;
    fn num_args(&self) -> u32;
    fn num_insts(&self) -> u32;
    /// The instruction ids of block `b`, in order; the last one is the terminator.
    fn block_insts(&self, b: Block) -> Range<u32>;
    fn inst_block(&self, i: u32) -> Block;
    /// Terminators are tracked per block (a divergent terminator marks its block), never as values.
    fn is_terminator(&self, i: u32) -> bool {
        let r = self.block_insts(self.inst_block(i));
        i + 1 == r.end
    }
    fn is_phi(&self, i: u32) -> bool;
    /// LLVM's `PHINode::hasConstantOrUndefValue`: ignoring incoming values that are the phi itself or
    /// undef/poison, all remaining incoming values are the same value (possibly none).
    fn phi_has_constant_or_undef_value(&self, i: u32) -> bool;
    /// The instructions using `v`, once per use, in the IR's use-list order (it decides the order of
    /// the worklist and of the printed lists, never the final divergent sets).
    fn users(&self, v: Val) -> &[u32];
    /// Calls `f` with each operand of `i` that is an instruction (for the exit-phi rule).
    fn for_each_inst_operand(&self, i: u32, f: &mut dyn FnMut(u32));

    // ---- used by precise mode only (defaults keep older implementations working) ----

    /// Whether the incoming values of phi `i` whose incoming block satisfies `pred` are all one
    /// value, ignoring undef/poison (the phi itself is a value here, unlike in
    /// [`SsaFunction::phi_has_constant_or_undef_value`]). The default answers with
    /// `phi_has_constant_or_undef_value` when the phi does not use itself, a stronger condition.
    fn phi_same_incoming_from(&self, i: u32, pred: &dyn Fn(Block) -> bool) -> bool {
        let _ = pred;
        let mut uses_itself = false;
        self.for_each_inst_operand(i, &mut |d| uses_itself |= d == i);
        !uses_itself && self.phi_has_constant_or_undef_value(i)
    }
    /// The convergence-control token `i` defines ("Convergent Operation Semantics": the `entry`,
    /// `loop` (heart) and `anchor` intrinsics), if any.
    fn token_kind(&self, i: u32) -> Option<TokenKind> {
        let _ = i;
        None
    }
    /// The token operand of `i`'s `convergencectrl` bundle, when it is an instruction.
    fn control_token(&self, i: u32) -> Option<u32> {
        let _ = i;
        None
    }
}

/// The three token-defining intrinsics of "Convergent Operation Semantics".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Entry,
    /// A loop heart.
    Loop,
    Anchor,
}

/// What a target says about divergence (LLVM's `TargetTransformInfo` hooks).
pub trait DivergenceModel<F: ?Sized> {
    /// `false` means the analysis does not run: every value is uniform.
    fn has_branch_divergence(&self, f: &F) -> bool;
    fn is_source_arg(&self, f: &F, arg: u32) -> bool;
    fn is_source_inst(&self, f: &F, inst: u32) -> bool;
    /// Only asked when `is_source_inst` is false; such an instruction is never divergent.
    fn is_always_uniform(&self, f: &F, inst: u32) -> bool;

    /// [`DivergenceModel::is_source_inst`] as precise mode asks it: a target may answer with the
    /// refinements newer than the release llvm mode reproduces that are sound by the semantics
    /// (and with newer rules that make values divergent). Default: the llvm-mode answer.
    fn is_source_inst_precise(&self, f: &F, inst: u32) -> bool {
        self.is_source_inst(f, inst)
    }
    /// [`DivergenceModel::is_always_uniform`] as precise mode asks it (see
    /// [`DivergenceModel::is_source_inst_precise`]).
    fn is_always_uniform_precise(&self, f: &F, inst: u32) -> bool {
        self.is_always_uniform(f, inst)
    }
    /// Operands of `inst` whose divergence does not make it divergent (an operand-aware rule of
    /// the target, like LLVM main's `permlane16`, whose result does not follow `old`); appended
    /// to `out`. Default: none, every operand counts.
    fn ignored_operands(&self, f: &F, inst: u32, out: &mut Vec<Val>) {
        let _ = (f, inst, out);
    }
}
