//! The cost of the reader's well-formedness checks (`wellformed.rs`) next to the read itself, on
//! the generated GPU modules of `benches/parse.rs`. `parse` includes the checks; `check` times them
//! alone on the read module. Run: `cargo bench -p converge-ir --bench wellformed`.

use converge_gen::module::{GpuTarget, ModuleSpec, generate};
use divan::counter::BytesCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

fn module(mb: usize) -> String {
    generate(&ModuleSpec {
        seed: 7,
        target: GpuTarget::Amdgpu,
        bytes: mb << 20,
        regions: 24,
    })
}

#[divan::bench(args = [8])]
fn parse(bencher: Bencher, mb: usize) {
    let text = module(mb);
    bencher
        .counter(BytesCount::new(text.len()))
        .with_inputs(|| text.clone())
        .bench_values(|src| {
            black_box(converge_ir::parse_with("bench.ll", src, Some(false)).expect("valid"))
        });
}

#[divan::bench(args = [8])]
fn check(bencher: Bencher, mb: usize) {
    let text = module(mb);
    let m = converge_ir::parse("bench.ll", text).expect("valid");
    bencher
        .counter(BytesCount::new(m.source.len()))
        .bench(|| black_box(converge_ir::check_wellformed(&m).is_ok()));
}
