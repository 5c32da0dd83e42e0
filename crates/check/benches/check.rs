//! How long `check` takes on a function of a few dozen blocks: generated kernels (converge-gen's
//! kernels generator) of 43 and 41 blocks, each checked against itself with the default
//! settings (every configuration of the argument domains, 2-4 threads: the whole search runs,
//! since no violation stops it early).

use converge_check::{Settings, check};
use converge_gen::kernels::{ConvergentOptions, convergent_kernel};

fn main() {
    divan::main();
}

fn module(seed: u64, tokens: bool) -> converge_ir::Module {
    let o = ConvergentOptions {
        tokens,
        ..ConvergentOptions::default()
    };
    let text = convergent_kernel(seed, &o);
    converge_ir::parse_rendered_with("k.ll", text, Some(false)).unwrap()
}

/// (seed, tokens): 43 blocks with tokens, 41 blocks uncontrolled.
#[divan::bench(args = [(15, true), (15, false)])]
fn few_dozen_blocks(bencher: divan::Bencher, (seed, tokens): (u64, bool)) {
    let m = module(seed, tokens);
    let blocks = m
        .functions
        .iter()
        .find(|f| !f.is_declaration)
        .unwrap()
        .blocks
        .len();
    assert!((40..=50).contains(&blocks), "{blocks} blocks");
    let settings = Settings::default();
    bencher.bench_local(|| {
        let o = check(&m, &m, Some("k"), ("k.ll", "k.ll"), &settings).unwrap();
        assert_eq!(o.stats.executions, 75);
        o
    });
}
