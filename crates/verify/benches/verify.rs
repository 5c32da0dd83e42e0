//! How much verifying convergence-control tokens costs compared with reading the module.
//!
//! The module is the benchmark GPU module (`converge_gen::module`, AMDGPU, `CONVERGE_BENCH_MB`
//! megabytes, default 60) with tokens inserted by `converge_transform::insert_tokens` (an entry or anchor per
//! function, a heart per loop header, a bundle on every convergent call). Three measurements:
//! - `read`: parse the text (converge-ir);
//! - `verify`: the token rules on the parsed module (everything: CFG, dominators, cycles, stacks);
//! - `read_and_verify`: both, what `converge verify` does.
//!
//! The claim checked: `read_and_verify` ≤ 2 × `read`.

use converge_verify::llvm::{Flavor, verify_module};
use divan::Bencher;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn text() -> &'static String {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| {
        let mb: usize = std::env::var("CONVERGE_BENCH_MB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60);
        let spec = converge_gen::module::ModuleSpec {
            bytes: mb << 20,
            ..Default::default()
        };
        let plain =
            converge_ir::parse("gpu.ll", converge_gen::module::generate(&spec)).expect("parse");
        let outcome = converge_transform::insert_tokens::insert_tokens(&plain, &Default::default())
            .expect("insert tokens");
        let (text, stats) = (outcome.text(), outcome.stats);
        eprintln!(
            "module: {:.1} MB with tokens, {} functions, {} hearts, {} bundles",
            text.len() as f64 / (1 << 20) as f64,
            stats.functions,
            stats.hearts,
            stats.bundles
        );
        text
    })
}

fn module() -> &'static converge_ir::Module {
    static M: OnceLock<converge_ir::Module> = OnceLock::new();
    M.get_or_init(|| converge_ir::parse("big.ll", text().clone()).expect("parse"))
}

#[divan::bench(sample_count = 10)]
fn read(b: Bencher) {
    let t = text();
    b.counter(divan::counter::BytesCount::new(t.len()))
        .bench(|| converge_ir::parse("big.ll", t.clone()).expect("parse"));
}

#[divan::bench(sample_count = 10)]
fn verify(b: Bencher) {
    let m = module();
    b.counter(divan::counter::BytesCount::new(text().len()))
        .bench(|| {
            let f = verify_module(m, Flavor::Llvm22);
            assert!(f.is_empty());
            f
        });
}

#[divan::bench(sample_count = 10)]
fn read_and_verify(b: Bencher) {
    let t = text();
    b.counter(divan::counter::BytesCount::new(t.len()))
        .bench(|| {
            let m = converge_ir::parse("big.ll", t.clone()).expect("parse");
            verify_module(&m, Flavor::Llvm22).len()
        });
}
