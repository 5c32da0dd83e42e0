//! In-process benchmarks of the join propagation on the CFG shapes that made it quadratic
//! (issue 13): a reducible loop around an irreducible cycle entered at every block (`irrloop`)
//! and chains of small irreducible pieces, every branch on the thread id, in llvm and precise
//! mode (dominators + cycles + analysis; parse excluded); and the shapes on which LLVM 19's
//! propagation was quadratic (`--llvm-version 19`: chains of irreducible and of no-return
//! pieces, one loop with a divergent exit per block); and ladders of two-block irreducible
//! cycles (`converge_gen::cfg::ladder`), quadratic in every setting before session 12.
//! `scripts/bench-scaling-instructions.sh` and `scripts/bench-scaling-matrix.sh` measure such
//! shapes as whole processes in executed instructions.

use converge_gen::cfg::{Ladder, Shape, chain_cfg, irreducible_loop, ladder, many_exits_loop};
use converge_gen::program::{Flavor, module_header, tid_function_with_cfg};
use converge_gen::rng::Rng;
use converge_ir::{FuncId, Module};
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{LlvmVersion, Mode, SsaFunction, Structure, analyze_with};

fn main() {
    divan::main();
}

fn one_function(succs: &[Vec<u32>]) -> Module {
    let mut text = module_header(Flavor::Amdgpu);
    text.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", succs));
    converge_ir::parse("bench.ll", text).expect("generated module parses")
}

fn analyse(m: &Module, mode: Mode) -> usize {
    let target = Target::from_triple(m.triple.as_deref(), None);
    let k = m
        .functions
        .iter()
        .position(|f| !f.is_declaration)
        .expect("one definition");
    let lf = LlvmFunction::new(m, FuncId(k as u32));
    let s = Structure::new(lf.cfg());
    let u = analyze_with(&lf, &target, &s, mode);
    u.divergent_insts.iter().filter(|&&d| d).count()
}

const LLVM: Mode = Mode::Llvm(LlvmVersion::V22);

/// Before the fix: 0.12 / 0.51 / 2.0 s at 2,000 / 4,000 / 8,000 blocks (4x per doubling).
#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn irrloop_llvm(b: divan::Bencher, blocks: usize) {
    let m = one_function(&irreducible_loop(blocks).succs);
    b.bench(|| analyse(divan::black_box(&m), LLVM));
}

#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn irrloop_precise(b: divan::Bencher, blocks: usize) {
    let m = one_function(&irreducible_loop(blocks).succs);
    b.bench(|| analyse(divan::black_box(&m), Mode::Precise));
}

#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn chain_irreducible_precise(b: divan::Bencher, blocks: usize) {
    let m = one_function(&chain_cfg(&mut Rng::new(1), blocks, Shape::Irreducible).succs);
    b.bench(|| analyse(divan::black_box(&m), Mode::Precise));
}

const LLVM19: Mode = Mode::Llvm(LlvmVersion::V19);

/// Before LLVM 19's shortcuts: 13x the join work per quadrupling (1,000 -> 4,000 blocks).
#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn chain_irreducible_llvm19(b: divan::Bencher, blocks: usize) {
    let m = one_function(&chain_cfg(&mut Rng::new(1), blocks, Shape::Irreducible).succs);
    b.bench(|| analyse(divan::black_box(&m), LLVM19));
}

#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn chain_noreturn_llvm19(b: divan::Bencher, blocks: usize) {
    let m = one_function(&chain_cfg(&mut Rng::new(1), blocks, Shape::NoReturn).succs);
    b.bench(|| analyse(divan::black_box(&m), LLVM19));
}

/// Before: 16x the join work per quadrupling.
#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn exits_llvm19(b: divan::Bencher, blocks: usize) {
    let m = one_function(&many_exits_loop((blocks - 3) / 2).succs);
    b.bench(|| analyse(divan::black_box(&m), LLVM19));
}

/// Before: 3.8-3.9x the instructions per doubling (whole process, 324 M at 2,000 blocks).
#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn irrladder_llvm(b: divan::Bencher, blocks: usize) {
    let m = one_function(&ladder(blocks, Ladder::Down).succs);
    b.bench(|| analyse(divan::black_box(&m), LLVM));
}

#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn irrladder_up_llvm19(b: divan::Bencher, blocks: usize) {
    let m = one_function(&ladder(blocks, Ladder::Up).succs);
    b.bench(|| analyse(divan::black_box(&m), LLVM19));
}

#[divan::bench(args = [2000, 8000, 32000, 64000], sample_count = 3)]
fn irrladder_loop_precise(b: divan::Bencher, blocks: usize) {
    let m = one_function(&ladder(blocks, Ladder::Looped).succs);
    b.bench(|| analyse(divan::black_box(&m), Mode::Precise));
}
