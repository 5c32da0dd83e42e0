//! Printing throughput: `inst_text_into` over every instruction of a generated GPU module
//! (`converge_gen::module`), and building the per-module printing tables. Run:
//! `cargo bench -p converge-ir --bench print`.

use converge_gen::module::{GpuTarget, ModuleSpec, generate};
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

/// `inst_text_into` for every instruction of an 8 MB module into one reused buffer (what
/// `--format llvm` does); the printing tables are built before the timed region.
#[divan::bench]
fn print_all_instructions(bencher: Bencher) {
    let m = converge_ir::parse("bench.ll", module(8, GpuTarget::Amdgpu)).expect("valid");
    let _ = m.print_tables();
    let n: usize = m.functions.iter().map(|f| f.insts.len()).sum();
    let mut out = String::new();
    bencher
        .counter(divan::counter::ItemsCount::new(n))
        .bench_local(|| {
            let mut total = 0;
            for f in m.func_ids() {
                for i in 0..m.func(f).insts.len() {
                    out.clear();
                    m.inst_text_into(&mut out, f, converge_ir::InstId(i as u32));
                    total += out.len();
                }
            }
            black_box(total)
        });
}

/// Building the printing tables (attribute-set and metadata numbering) of an 8 MB module.
#[divan::bench]
fn print_tables(bencher: Bencher) {
    let m = converge_ir::parse("bench.ll", module(8, GpuTarget::Amdgpu)).expect("valid");
    bencher.bench_local(|| black_box(converge_ir::print::Tables::build_for(&m)));
}

/// The earlier printer (normalised source text, `inst_source_text`), for comparison.
#[divan::bench]
fn source_text_all_instructions(bencher: Bencher) {
    let m = converge_ir::parse("bench.ll", module(8, GpuTarget::Amdgpu)).expect("valid");
    bencher.bench_local(|| {
        let mut total = 0;
        for f in m.func_ids() {
            for i in 0..m.func(f).insts.len() {
                total += m.inst_source_text(f, converge_ir::InstId(i as u32)).len();
            }
        }
        black_box(total)
    });
}
