//! A million blocks: every algorithm is iterative (no stack overflow on a DFS a million deep) and
//! near-linear (a deep loop nest costs O(V), not O(V x depth)).

mod common;
use common::from_random;
use converge_gen::cfg::{Shape, chain_cfg, nested_loops};
use converge_gen::rng::Rng;
use converge_graph::{Block, CycleInfo, DominatorTree, Graph, PostDominatorTree, Rpo};

#[test]
fn million_block_chain() {
    let r = chain_cfg(&mut Rng::new(1), 1_000_000, Shape::Mixed);
    let g = from_random(&r);
    assert!(g.num_blocks() >= 1_000_000);
    let rpo = Rpo::new(&g);
    assert_eq!(rpo.order().len(), g.num_blocks());
    let dt = DominatorTree::new(&g);
    let last = Block(g.num_blocks() as u32 - 1);
    assert!(dt.dominates(g.entry(), last));
    let pdt = PostDominatorTree::new(&g);
    assert!(!pdt.roots().is_empty());
    let ci = CycleInfo::new(&g);
    assert!(ci.len() > 10_000);
    // Every cycle's header dominates its blocks when it is reducible.
    for c in ci.cycles().filter(|&c| ci.is_reducible(c)).take(1000) {
        assert!(ci.blocks(c).iter().all(|&b| dt.dominates(ci.header(c), b)));
    }
}

#[test]
fn loop_nest_half_a_million_deep() {
    let depth = 500_000;
    let g = from_random(&nested_loops(depth));
    let ci = CycleInfo::new(&g);
    assert_eq!(ci.len(), depth);
    let innermost = ci.cycle_of(Block(depth as u32)).unwrap();
    assert_eq!(ci.depth(innermost), depth as u32);
    assert_eq!(ci.blocks(ci.top_level().next().unwrap()).len(), 2 * depth);
    let dt = DominatorTree::new(&g);
    assert_eq!(dt.level(Block(depth as u32)), depth as u32);
    let pdt = PostDominatorTree::new(&g);
    assert_eq!(pdt.roots(), &[Block(2 * depth as u32 + 1)]);
}
