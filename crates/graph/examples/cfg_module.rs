//! Writes a large LLVM module for the cycle/dominator benchmark (`scripts/bench-cycles.sh`):
//! `functions` functions of about `blocks` blocks each, every one a chain of random structured and
//! irreducible pieces (`converge_gen::cfg::chain_cfg`, shape `Mixed`), deterministic.
//!
//! Usage: `cargo run --release -p converge-graph --example cfg_module -- OUT.ll [functions] [blocks]`
//! (defaults: 640 functions x 2,000 blocks, about 60 MB).

use converge_gen::cfg::{Shape, chain_cfg, to_ll};
use converge_gen::rng::Rng;
use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .expect("usage: cfg_module OUT.ll [functions] [blocks]");
    let functions: usize = args.next().map_or(640, |s| s.parse().expect("functions"));
    let blocks: usize = args.next().map_or(2000, |s| s.parse().expect("blocks"));
    let mut rng = Rng::new(0xB16);
    let mut file = std::io::BufWriter::new(std::fs::File::create(&out).expect("create output"));
    let mut total = 0;
    for i in 0..functions {
        let cfg = chain_cfg(&mut rng, blocks, Shape::Mixed);
        total += cfg.num_blocks();
        file.write_all(to_ll(&cfg, &format!("f{i}")).as_bytes())
            .expect("write");
    }
    file.flush().expect("flush");
    eprintln!("{out}: {functions} functions, {total} blocks");
}
