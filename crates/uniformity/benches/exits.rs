//! Issue 13's cycle-exit shapes, in process (dominators + cycles + analysis, parse excluded), in
//! llvm mode and precise mode: `nest`, reducible loops nested blocks/2 deep, and `exits`, one
//! loop whose every block has a divergent exit; every branch on the thread id (the functions of
//! `gen_uniformity nest|exits N`). Before the escape index and the single-line skip
//! (`crates/uniformity/src/temporal.rs`, `analysis.rs`) both grew about 4x per doubling.
//! `scripts/bench-exit-sweeps.sh` measures whole processes in executed instructions.

use converge_gen::cfg::{many_exits_loop, nested_loops};
use converge_gen::program::{Flavor, module_header, tid_function_with_cfg};
use converge_ir::{FuncId, Module};
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{LlvmVersion, Mode, SsaFunction, Structure, analyze_with};

fn main() {
    divan::main();
}

const SIZES: [usize; 6] = [2000, 4000, 8000, 16000, 32000, 64000];

fn one_function(succs: &[Vec<u32>]) -> Module {
    let mut text = module_header(Flavor::Amdgpu);
    text.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", succs));
    converge_ir::parse("bench.ll", text).expect("generated module parses")
}

fn analyse(m: &Module, mode: Mode) -> usize {
    let target = Target::from_triple(m.triple.as_deref(), None);
    let lf = LlvmFunction::new(m, FuncId(0));
    let s = Structure::new(lf.cfg());
    let u = analyze_with(&lf, &target, &s, mode);
    u.divergent_exit_cycles.len()
}

fn nest(b: divan::Bencher, blocks: usize, mode: Mode) {
    let m = one_function(&nested_loops((blocks - 2) / 2).succs);
    b.bench(|| analyse(divan::black_box(&m), mode));
}

fn exits(b: divan::Bencher, blocks: usize, mode: Mode) {
    let m = one_function(&many_exits_loop((blocks - 3) / 2).succs);
    b.bench(|| analyse(divan::black_box(&m), mode));
}

/// Reducible loops nested blocks/2 deep, every latch leaving divergently; llvm mode.
#[divan::bench(args = SIZES, sample_count = 3)]
fn nest_llvm(b: divan::Bencher, blocks: usize) {
    nest(b, blocks, Mode::Llvm(LlvmVersion::V22));
}

/// The same nests in precise mode.
#[divan::bench(args = SIZES, sample_count = 3)]
fn nest_precise(b: divan::Bencher, blocks: usize) {
    nest(b, blocks, Mode::Precise);
}

/// One loop with a divergent exit in every block; llvm mode.
#[divan::bench(args = SIZES, sample_count = 3)]
fn exits_llvm(b: divan::Bencher, blocks: usize) {
    exits(b, blocks, Mode::Llvm(LlvmVersion::V22));
}

/// The same loops in precise mode.
#[divan::bench(args = SIZES, sample_count = 3)]
fn exits_precise(b: divan::Bencher, blocks: usize) {
    exits(b, blocks, Mode::Precise);
}
