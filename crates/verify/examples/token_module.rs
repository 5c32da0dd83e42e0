//! Writes a generated token-using module to stdout, for benchmarks and by-hand experiments.
//!
//! `token_module gpu MB [SEED]`: the benchmark GPU module (`converge_gen::module`) of MB megabytes with
//! tokens inserted by `converge_transform::insert_tokens`;
//! `token_module big MB [SEED]`: valid generated token placements, at least MB megabytes;
//! `token_module random COUNT [SEED]`: COUNT random placements (valid and invalid).

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: token_module (gpu MB | big MB | random COUNT) [SEED]";
    let (Some(kind), Some(n)) = (
        args.get(1),
        args.get(2).and_then(|v| v.parse::<usize>().ok()),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let seed = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(42);
    let text = match kind.as_str() {
        "gpu" => {
            let spec = converge_gen::module::ModuleSpec {
                seed,
                bytes: n << 20,
                ..Default::default()
            };
            let m = converge_ir::parse("gpu.ll", converge_gen::module::generate(&spec))
                .expect("generated module parses");
            converge_transform::insert_tokens::insert_tokens(&m, &Default::default())
                .expect("insert tokens")
                .text()
        }
        "big" => converge_gen::tokens::big_module(seed, n << 20),
        "random" => converge_gen::tokens::random_module(seed, n).0,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
