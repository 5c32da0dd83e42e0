//! Prints the module of an oracle case: `cargo run -p converge-oracle --example gen_case -- SEED [legacy]`.
use converge_oracle::cases::{Generator, case};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let g = if args.next().as_deref() == Some("legacy") {
        Generator::Legacy { blocks: 9 }
    } else {
        Generator::Oracle { blocks: 20 }
    };
    let c = case(seed, g);
    println!("; seed {seed}, {} threads\n{}", c.threads, c.text);
}
