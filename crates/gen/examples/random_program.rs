//! Writes one random GPU program (see `converge_gen::program`) with a given number of blocks, e.g.
//! the 1,000-block input of `scripts/bench-explore.sh`.
//!
//! `cargo run --release -p converge-gen --example random_program -- OUT.ll [--blocks 1000]
//! [--seed 1] [--extra-edges 10] [--reducible]`

use converge_gen::program::{Flavor, Options, function, module_header};
use converge_gen::rng::Rng;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut out = None;
    let mut opts = Options::new(Flavor::Amdgpu);
    let (mut blocks, mut seed) = (1000usize, 1u64);
    opts.extra_edges_percent = 10;
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| usage(&format!("{what} needs a number")))
        };
        match a.as_str() {
            "--blocks" => blocks = num("--blocks").max(2) as usize,
            "--seed" => seed = num("--seed"),
            "--extra-edges" => opts.extra_edges_percent = num("--extra-edges") as u32,
            "--reducible" => opts.reducible_only = true,
            _ if out.is_none() && !a.starts_with('-') => out = Some(a),
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    let Some(out) = out else {
        usage("missing output file")
    };
    opts.min_blocks = blocks;
    opts.max_blocks = blocks;
    let mut rng = Rng::new(seed);
    let mut text = module_header(opts.flavor);
    text.push_str(&function(&mut rng, "f", &opts));
    if let Err(e) = std::fs::write(&out, &text) {
        eprintln!("cannot write {out}: {e}");
        std::process::exit(2);
    }
}

fn usage(msg: &str) -> ! {
    eprintln!(
        "error: {msg}\nusage: random_program OUT.ll [--blocks N] [--seed S] [--extra-edges P] [--reducible]"
    );
    std::process::exit(2);
}
