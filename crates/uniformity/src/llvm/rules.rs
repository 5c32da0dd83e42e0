//! Which release's target hooks a target model reproduces.
//!
//! The target models (`amdgpu.rs`, `nvptx.rs`) answer LLVM's `TargetTransformInfo` questions
//! (divergence sources, always-uniform values) as a given LLVM release does. LLVM 19, 22 and the
//! development branch (`main`, as LLVM's own lit tests of the corpus expect it) differ in a few
//! rules; precise mode (docs/precise-mode.md) uses main's rules where they are sound by the
//! dynamic semantics and a sound variant where they are not. Each rule that differs is listed at
//! the model that implements it.

/// The rule set of a target model.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Rules {
    /// LLVM 19.
    V19,
    /// LLVM 22 (the reference, the default).
    #[default]
    V22,
    /// LLVM's development branch: the refinements its lit tests expect (`--llvm-version main`).
    Main,
    /// Precise mode: main's refinements where they are sound by the semantics, sound variants
    /// where they are not.
    Precise,
}

impl Rules {
    /// Whether the refinements newer than LLVM 22 apply (main's or their precise variants).
    pub fn newer_than_22(self) -> bool {
        matches!(self, Rules::Main | Rules::Precise)
    }
}

/// The order in which LLVM's development branch prints cycle `c` (`print<cycles>`, the cycle
/// lists of `print<uniformity>`): its entries in the CFG's depth-first preorder, then its other
/// blocks: those of `c` itself (in no child cycle) in preorder, followed by each child cycle's
/// blocks in this same order, recursively. LLVM 19 and 22 list a cycle's own blocks in the order
/// their cycle construction collected them (a worklist walking back from the back edges), which
/// differs for irreducible cycles.
pub fn main_print_order(
    ci: &converge_graph::CycleInfo,
    c: converge_graph::Cycle,
) -> (Vec<converge_graph::Block>, Vec<converge_graph::Block>) {
    let dfs = ci.dfs();
    let mut entries = ci.entries(c).to_vec();
    entries.sort_by_key(|&b| dfs.start(b));
    let mut blocks = Vec::with_capacity(ci.blocks(c).len());
    // Iterative pre-order walk of the cycle tree below `c`.
    let mut stack = vec![c];
    while let Some(d) = stack.pop() {
        let start = blocks.len();
        blocks.extend(
            ci.blocks(d)
                .iter()
                .copied()
                .filter(|&b| ci.cycle_of(b) == Some(d)),
        );
        blocks[start..].sort_by_key(|&b| dfs.start(b));
        stack.extend(ci.children(d).iter().rev().copied());
    }
    blocks.retain(|&b| !ci.is_entry(c, b));
    (entries, blocks)
}
