//! Reader throughput on generated GPU modules (`converge_gen::module`): the same kind of input as
//! the 60 MB whole-process comparison in `scripts/bench-parse.sh`, at sizes that keep a divan run
//! short. Run: `cargo bench -p converge-ir --bench parse`.

use converge_gen::module::{GpuTarget, ModuleSpec, generate};
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
