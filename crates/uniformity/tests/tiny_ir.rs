//! Runs the `tiny_ir` example (an IR that is not LLVM, implementing the graph, SSA and target
//! traits) and checks its answers against the definitions of LLVM's "Convergence And Uniformity"
//! (sections on divergent cycle exits and temporal divergence): the loop exit is divergent because
//! the exit condition depends on the thread id; the counter `%3` is uniform inside the loop (every
//! thread still iterating holds the same count), so `%6` is too; its use after the loop, `%8`, is
//! temporally divergent, and so is `%9` through data dependence. The group id is always uniform.

#[path = "../examples/tiny_ir.rs"]
mod tiny_ir;

use converge_graph::Block;
use converge_uniformity::{Inst, SsaFunction};

#[test]
fn analyses_run_on_a_non_llvm_ir() {
    let f = tiny_ir::divergent_exit_loop();
    let (s, u) = tiny_ir::run(&f);
    // One reducible cycle {b1, b2} headed by b1.
    let cycles: Vec<_> = s.cycles.cycles().collect();
    assert_eq!(cycles.len(), 1);
    let c = cycles[0];
    assert_eq!(s.cycles.header(c), Block(1));
    let mut blocks: Vec<u32> = s.cycles.blocks(c).iter().map(|b| b.0).collect();
    blocks.sort();
    assert_eq!(blocks, [1, 2]);
    assert!(s.cycles.is_reducible(c));

    assert!(u.analysed);
    let div: Vec<u32> = (0..f.num_insts())
        .filter(|&i| !f.is_terminator(Inst(i)) && u.divergent_insts[i as usize])
        .collect();
    assert_eq!(
        div,
        [0, 4, 8, 9],
        "tid, the exit condition, and the uses after the loop"
    );
    assert!(u.always_uniform[1], "the group id");
    assert_eq!(u.divergent_terminators, [false, true, false, false]);
    assert_eq!(u.divergent_exit_cycles, [c]);
    assert!(u.assumed_divergent.is_empty());
    assert_eq!(u.temporal_divergence.len(), 1);
    let t = &u.temporal_divergence[0];
    assert_eq!((t.value.0, t.user.0, t.cycle), (3, 8, c));
}
