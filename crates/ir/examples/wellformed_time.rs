//! Times the reader's well-formedness checks alone on a module already read, next to the read:
//! the best of N runs each.
//!
//! `cargo run --release -p converge-ir --example wellformed_time -- FILE.ll [RUNS]`

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: wellformed_time FILE.ll [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    let (mut read, mut check) = (f64::MAX, f64::MAX);
    for _ in 0..runs {
        let src = text.clone();
        let t0 = Instant::now();
        let m = converge_ir::parse_with(&path, src, Some(false)).unwrap_or_else(|d| {
            eprint!("{}", d.render(&path, &text));
            std::process::exit(2)
        });
        read = read.min(t0.elapsed().as_secs_f64());
        let t0 = Instant::now();
        let ok = converge_ir::check_wellformed(&m).is_ok();
        check = check.min(t0.elapsed().as_secs_f64());
        assert!(ok);
    }
    println!(
        "{path}: {} MB; sequential read (checks included) {:.1} ms, checks alone {:.1} ms ({:.1}%), best of {runs}",
        text.len() >> 20,
        read * 1e3,
        check * 1e3,
        100.0 * check / read
    );
}
