//! Prints the module of an oracle case: `cargo run -p converge-oracle --example gen_case -- SEED
//! [legacy|exits]`.
use converge_oracle::cases::{Generator, case};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let g = match args.next().as_deref() {
        Some("legacy") => Generator::Legacy { blocks: 9 },
        Some("exits") => Generator::Exits { blocks: 20 },
        _ => Generator::Oracle { blocks: 20 },
    };
    let c = case(seed, g);
    println!("; seed {seed}, {} threads\n{}", c.threads, c.text);
}
