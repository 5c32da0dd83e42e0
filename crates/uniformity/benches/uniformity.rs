//! In-process benchmarks of the uniformity analysis (dominators + cycles + analysis, parse
//! excluded): a module of random AMDGPU functions of 50-300 blocks, and single functions of
//! growing size: irreducible nests, issue 13's DAG plus random back edges, and chains of
//! early-return pieces (every branch on the thread id in the last two).
//! `scripts/bench-uniformity.sh` compares whole processes with `opt`.

use converge_gen::cfg::{Shape, chain_cfg};
use converge_gen::program::{
    Flavor, Options, dag_back_edges_cfg, irreducible_module, module, module_header,
    tid_function_with_cfg,
};
use converge_gen::rng::Rng;
use converge_ir::{FuncId, Module};
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{SsaFunction, Structure, analyze};

fn main() {
    divan::main();
}

fn analyse_all(m: &Module) -> usize {
    let target = Target::from_triple(m.triple.as_deref(), None);
    let mut divergent = 0;
    for (k, f) in m.functions.iter().enumerate() {
        if f.is_declaration {
            continue;
        }
        let lf = LlvmFunction::new(m, FuncId(k as u32));
        let s = Structure::new(lf.cfg());
        let u = analyze(&lf, &target, &s);
        divergent += u.divergent_insts.iter().filter(|&&d| d).count();
    }
    divergent
}

fn parse(text: String) -> Module {
    converge_ir::parse("bench.ll", text).expect("generated module parses")
}

#[divan::bench(sample_count = 5)]
fn random_module_200_functions(b: divan::Bencher) {
    let mut rng = Rng::new(7);
    let mut opts = Options::new(Flavor::Amdgpu);
    opts.min_blocks = 50;
    opts.max_blocks = 300;
    let m = parse(module(&mut rng, 200, &opts));
    b.bench(|| analyse_all(divan::black_box(&m)));
}

#[divan::bench(args = [500, 1000, 2000, 4000, 8000, 16000, 32000], sample_count = 3)]
fn irreducible_function(b: divan::Bencher, blocks: usize) {
    let m = parse(irreducible_module(&mut Rng::new(1), blocks));
    b.bench(|| analyse_all(divan::black_box(&m)));
}

fn one_function(succs: &[Vec<u32>]) -> Module {
    let mut text = module_header(Flavor::Amdgpu);
    text.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", succs));
    parse(text)
}

/// Issue 13: a forward DAG plus back edges from a third of the blocks to random blocks (seed 4
/// made the analysis quadratic before the fix: 34 s at 16,000 blocks).
#[divan::bench(args = [1000, 2000, 4000, 8000, 16000, 32000, 64000], sample_count = 3)]
fn dag_back_edges(b: divan::Bencher, blocks: usize) {
    let m = one_function(&dag_back_edges_cfg(&mut Rng::new(4), blocks));
    b.bench(|| analyse_all(divan::black_box(&m)));
}

/// A chain of pieces with early returns and infinite loops (quadratic before the fix: labels that
/// reached a return waited there while the others walked the rest of the function).
#[divan::bench(args = [1000, 4000, 16000, 64000], sample_count = 3)]
fn chain_noreturn(b: divan::Bencher, blocks: usize) {
    let cfg = chain_cfg(&mut Rng::new(1), blocks, Shape::NoReturn);
    let m = one_function(&cfg.succs);
    b.bench(|| analyse_all(divan::black_box(&m)));
}

/// Chains of irreducible pieces (issue 13's worst chain family: labels that entered an infinite
/// loop or a closed region waited there while the others walked the rest of the function).
#[divan::bench(args = [1000, 4000, 16000, 32000], sample_count = 3)]
fn chain_irreducible(b: divan::Bencher, blocks: usize) {
    let cfg = chain_cfg(&mut Rng::new(1), blocks, Shape::Irreducible);
    let m = one_function(&cfg.succs);
    b.bench(|| analyse_all(divan::black_box(&m)));
}

/// Chains of nested irreducible pieces.
#[divan::bench(args = [1000, 4000, 16000, 32000], sample_count = 3)]
fn chain_nested_irreducible(b: divan::Bencher, blocks: usize) {
    let cfg = chain_cfg(&mut Rng::new(1), blocks, Shape::NestedIrreducible);
    let m = one_function(&cfg.succs);
    b.bench(|| analyse_all(divan::black_box(&m)));
}
