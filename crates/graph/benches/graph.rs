//! Dominators and cycles on large generated CFGs (chains of random structured/irreducible pieces,
//! `converge_gen::cfg::chain_cfg`). Run: `cargo bench -p converge-graph --bench graph`.
//! The `items` counter is blocks, so divan reports time per block: it should stay flat from 10k to
//! 1M blocks.

use converge_gen::cfg::{Shape, chain_cfg, nested_loops};
use converge_gen::rng::Rng;
use converge_graph::{Block, Cfg, CycleInfo, DominatorTree, PostDominatorTree, UnreachablePreds};
use divan::{Bencher, counter::ItemsCount};

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

fn main() {
    divan::main();
}

fn build(n: usize) -> Cfg {
    let r = chain_cfg(&mut Rng::new(n as u64), n, Shape::Mixed);
    Cfg::from_succs(
        Block(0),
        r.num_blocks(),
        r.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
    )
}

fn blocks(g: &Cfg) -> ItemsCount {
    ItemsCount::new(converge_graph::Graph::num_blocks(g))
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn dominators(b: Bencher, n: usize) {
    let g = build(n);
    let mut dt = DominatorTree::new(&g);
    b.counter(blocks(&g)).bench_local(|| dt.compute(&g));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn cycles(b: Bencher, n: usize) {
    let g = build(n);
    let mut ci = CycleInfo::new(&g);
    b.counter(blocks(&g))
        .bench_local(|| ci.compute(&g, UnreachablePreds::Ignore));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn dominators_and_cycles(b: Bencher, n: usize) {
    let g = build(n);
    let mut dt = DominatorTree::new(&g);
    let mut ci = CycleInfo::new(&g);
    // As `converge cycles --time-passes` does: the dominator tree reuses the cycle DFS.
    b.counter(blocks(&g)).bench_local(|| {
        ci.compute(&g, UnreachablePreds::Ignore);
        dt.compute_from_dfs(&g, ci.dfs());
    });
}

#[divan::bench(args = SIZES, sample_count = 5)]
fn post_dominators(b: Bencher, n: usize) {
    let g = build(n);
    b.counter(blocks(&g))
        .bench_local(|| PostDominatorTree::new(&g));
}

/// A loop nest as deep as it is long: LLVM's block-list copying is quadratic here.
#[divan::bench(args = [10_000, 100_000, 1_000_000], sample_count = 5)]
fn cycles_deep_nest(b: Bencher, n: usize) {
    let r = nested_loops(n / 2);
    let g = Cfg::from_succs(
        Block(0),
        r.num_blocks(),
        r.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
    );
    let mut ci = CycleInfo::new(&g);
    b.counter(blocks(&g))
        .bench_local(|| ci.compute(&g, UnreachablePreds::Ignore));
}

/// The DFS the cycle analysis starts with, alone (its share of `cycles`).
#[divan::bench(args = SIZES, sample_count = 10)]
fn cycle_dfs(b: Bencher, n: usize) {
    let g = build(n);
    let mut d = converge_graph::CycleDfs::new(&g);
    b.counter(blocks(&g)).bench_local(|| d.compute(&g));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn reverse_post_order(b: Bencher, n: usize) {
    let g = build(n);
    let mut r = converge_graph::Rpo::new(&g);
    b.counter(blocks(&g)).bench_local(|| r.compute(&g));
}

/// One big irreducible region (a random spanning tree plus 60% extra forward and backward edges,
/// as `gen_uniformity irreducible`): thousands of irreducible cycles nested thousands deep, whose
/// entries stay entries for many levels. Time per block should stay flat across the doublings.
#[divan::bench(args = [16_000, 32_000, 64_000, 128_000], sample_count = 5)]
fn cycles_irreducible_nest(b: Bencher, n: usize) {
    let mut opts = converge_gen::program::Options::new(converge_gen::program::Flavor::Amdgpu);
    opts.extra_edges_percent = 60;
    let succs = converge_gen::program::random_cfg(&mut Rng::new(1), n, &opts);
    let g = Cfg::from_succs(
        Block(0),
        n,
        succs.iter().map(|s| s.iter().map(|&b| Block(b))),
    );
    let mut ci = CycleInfo::new(&g);
    b.counter(blocks(&g))
        .bench_local(|| ci.compute(&g, UnreachablePreds::Ignore));
}
