//! A fixed workload for instruction-level profiling (the shared machine makes wall-clock timing
//! noisy; `valgrind --tool=callgrind` counts are exact): dominators and cycles of 40 generated
//! functions of ~2,000 blocks, each computed once (`--shared-dfs`: dominators from the cycle
//! analysis's DFS, as `converge cycles --time-passes` does).
//!
//! `valgrind --tool=callgrind target/release/examples/profile_graph`, then
//! `callgrind_annotate --inclusive=yes callgrind.out.*`.

use converge_gen::cfg::{Shape, chain_cfg};
use converge_gen::rng::Rng;
use converge_graph::{Block, Cfg, CycleInfo, DominatorTree, Graph, UnreachablePreds};

fn main() {
    let mut rng = Rng::new(7);
    let graphs: Vec<Cfg> = (0..40)
        .map(|_| {
            let r = chain_cfg(&mut rng, 2000, Shape::Mixed);
            Cfg::from_succs(
                Block(0),
                r.num_blocks(),
                r.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
            )
        })
        .collect();
    let blocks: usize = graphs.iter().map(|g| g.num_blocks()).sum();
    let mut dt = DominatorTree::default();
    let mut ci = CycleInfo::default();
    let mut checksum = 0usize;
    let shared = std::env::args().any(|a| a == "--shared-dfs");
    for g in &graphs {
        if shared {
            ci.compute(g, UnreachablePreds::Ignore);
            dt.compute_from_dfs(g, ci.dfs());
        } else {
            dt.compute(g);
            ci.compute(g, UnreachablePreds::Ignore);
        }
        checksum += ci.len() + dt.level(Block(g.num_blocks() as u32 - 1)) as usize;
    }
    println!(
        "{} functions, {blocks} blocks, checksum {checksum}",
        graphs.len()
    );
}
