//! Reader throughput on generated GPU modules (`converge_gen::module`): the same kind of input as
//! the 60 MB whole-process comparison in `scripts/bench-parse.sh`, at sizes that keep a divan run
//! short. Run: `cargo bench -p converge-ir --bench parse`.

use converge_gen::cfg::{Shape, chain_cfg, to_ll};
use converge_gen::module::{GpuTarget, ModuleSpec, generate};
use converge_gen::rng::Rng;
use divan::counter::BytesCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

fn module(mb: usize, target: GpuTarget) -> String {
    generate(&ModuleSpec {
        seed: 7,
        target,
        bytes: mb << 20,
        regions: 24,
    })
}

/// Whole-module read, including the final id remapping; the source copy is made outside the
/// timed region.
#[divan::bench(args = [1, 8])]
fn parse_amdgpu(bencher: Bencher, mb: usize) {
    let text = module(mb, GpuTarget::Amdgpu);
    bencher
        .counter(BytesCount::new(text.len()))
        .with_inputs(|| text.clone())
        .bench_values(|src| black_box(converge_ir::parse("bench.ll", src).expect("valid")));
}

/// The sequential reader alone (what `converge -j 1` uses), on an 8 MB module: one thread's
/// throughput, without the two-thread split `parse` picks at this size.
#[divan::bench(args = [8])]
fn parse_amdgpu_one_thread(bencher: Bencher, mb: usize) {
    let text = module(mb, GpuTarget::Amdgpu);
    bencher
        .counter(BytesCount::new(text.len()))
        .with_inputs(|| text.clone())
        .bench_values(|src| {
            black_box(converge_ir::parse_with("bench.ll", src, Some(false)).expect("valid"))
        });
}

#[divan::bench(args = [8])]
fn parse_nvptx(bencher: Bencher, mb: usize) {
    let text = module(mb, GpuTarget::Nvptx);
    bencher
        .counter(BytesCount::new(text.len()))
        .with_inputs(|| text.clone())
        .bench_values(|src| black_box(converge_ir::parse("bench.ll", src).expect("valid")));
}

/// The sequential reader on the control-flow-heavy kind of module of `scripts/bench-parse.sh`
/// (`cfg_module`: chains of structured and irreducible pieces, short lines, one block every few
/// instructions): 64 functions of about 2,000 blocks, about 6 MB.
#[divan::bench]
fn parse_cfg_heavy_one_thread(bencher: Bencher) {
    let mut rng = Rng::new(0xB16);
    let text: String = (0..64)
        .map(|i| to_ll(&chain_cfg(&mut rng, 2000, Shape::Mixed), &format!("f{i}")))
        .collect();
    bencher
        .counter(BytesCount::new(text.len()))
        .with_inputs(|| text.clone())
        .bench_values(|src| {
            black_box(converge_ir::parse_with("bench.ll", src, Some(false)).expect("valid"))
        });
}

/// CFG construction for every function of an 8 MB module (what each analysis does first).
#[divan::bench]
fn cfgs(bencher: Bencher) {
    let m = converge_ir::parse("bench.ll", module(8, GpuTarget::Amdgpu)).expect("valid");
    bencher.bench(|| {
        let mut edges = 0;
        for f in &m.functions {
            edges += f.cfg().num_edges();
        }
        black_box(edges)
    });
}
