//! How much verifying convergence-control tokens costs compared with reading the module.
//!
//! The module is `converge_gen::tokens::big_module`: valid token-using functions (entry, loop hearts
//! in every loop header, anchors, controlled convergent calls) up to the size given by
//! `CONVERGE_BENCH_MB` (default 8 MB; the 60 MB figure comes from
//! `crates/verify/benches/compare_opt.sh`). Three measurements:
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
            .unwrap_or(8);
        converge_gen::tokens::big_module(42, mb << 20)
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
