//! Times the sequential reader (`parse_with(.., Some(false))`, the `-j 1` read) on a file already
//! in memory, by the reading thread's CPU time as well as by the clock: on a machine shared with
//! other work the clock counts the time the thread waited for a core, its CPU time does not
//! (Linux: `/proc/thread-self/schedstat`, whose first field is the thread's time on a CPU in
//! nanoseconds). Prints each run, then the minimum and median of both.
//!
//! `cargo run --release -p converge-ir --example read_cpu -- FILE.ll [RUNS]`

use std::time::Instant;

/// The calling thread's CPU time in nanoseconds (`None` where the kernel does not report it).
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn summary(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    (v[0], v[v.len() / 2])
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: read_cpu FILE.ll [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    let (mut cpu, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        let src = text.clone();
        let c0 = thread_cpu_ns();
        let t0 = Instant::now();
        let m = match converge_ir::parse_with(&path, src, Some(false)) {
            Ok(m) => m,
            Err(d) => {
                eprint!("{}", d.render(&path, &text));
                std::process::exit(2)
            }
        };
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        let dc = match (c0, thread_cpu_ns()) {
            (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e6,
            _ => f64::NAN,
        };
        eprintln!("read: cpu {dc:.1} ms, wall {dt:.1} ms");
        cpu.push(dc);
        wall.push(dt);
        drop(m);
    }
    let (cmin, cmed) = summary(&mut cpu);
    let (wmin, wmed) = summary(&mut wall);
    let mb = text.len() as f64 / 1e6;
    println!(
        "cpu min {cmin:.1} ms ({:.0} MB/s) median {cmed:.1} ms; wall min {wmin:.1} ms median {wmed:.1} ms",
        mb / cmin * 1e3
    );
}
