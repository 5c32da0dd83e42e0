//! Per-case time of the oracle, slowest first: `cargo run --release -p converge-oracle --example
//! oracle_timing -- FIRST COUNT`.
use converge_oracle::cases::{Generator, case, run_case};
use converge_oracle::check::Mode;
use converge_uniformity::LlvmVersion;

fn main() {
    let mut a = std::env::args().skip(1);
    let first: u64 = a.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let count: u64 = a.next().and_then(|s| s.parse().ok()).unwrap_or(200);
    let mut times = Vec::new();
    for seed in first..first + count {
        let c = case(seed, Generator::Oracle { blocks: 20 });
        let t = std::time::Instant::now();
        let (o, _) = run_case(&c, Mode::Llvm(LlvmVersion::V22));
        times.push((
            t.elapsed().as_secs_f64(),
            seed,
            c.threads,
            o.hierarchies,
            o.finished,
        ));
    }
    let total: f64 = times.iter().map(|t| t.0).sum();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("total {total:.2}s");
    for t in times.iter().take(12) {
        println!(
            "{:.3}s seed {} threads {} hierarchies {} finished {}",
            t.0, t.1, t.2, t.3, t.4
        );
    }
}
