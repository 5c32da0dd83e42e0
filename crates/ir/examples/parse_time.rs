//! Times `converge_ir::parse` alone (file already in memory): the best of N runs.
//!
//! `cargo run --release -p converge-ir --example parse_time -- FILE.ll [RUNS]`

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: parse_time FILE.ll [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let t0 = Instant::now();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    eprintln!("read_to_string: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    let mut best = f64::MAX;
    for _ in 0..runs {
        let src = text.clone();
        let t0 = Instant::now();
        let m = match converge_ir::parse(&path, src) {
            Ok(m) => m,
            Err(d) => {
                eprint!("{}", d.render(&path, &text));
                std::process::exit(2)
            }
        };
        let dt = t0.elapsed().as_secs_f64();
        best = best.min(dt);
        let insts: usize = m.functions.iter().map(|f| f.insts.len()).sum();
        eprintln!(
            "parse: {:.1} ms ({:.0} MB/s), {} functions, {insts} instructions",
            dt * 1e3,
            text.len() as f64 / dt / 1e6,
            m.functions.len()
        );
        drop(m);
    }
    println!("best {:.1} ms", best * 1e3);
}
