//! Reads `.ll` files with the sequential reader and prints, per file, a hash of the whole `Module`
//! (every field's `Debug` text; the interner's index by its sorted entries, each checked) or of the first
//! error; with `--runs N` (N > 1), instead, the best time of N sequential reads. Used to check that reader optimisations keep
//! the result bit for bit: run it before and after a change and compare the hashes.
//!
//! `cargo run --release -p converge-ir --example reader_check -- [--runs N] FILE.ll...`

use std::fmt::Write;
use std::hash::{DefaultHasher, Hasher};
use std::time::Instant;

struct Hash(DefaultHasher);
impl Write for Hash {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

fn module_hash(m: &converge_ir::Module) -> u64 {
    let mut w = Hash(DefaultHasher::new());
    // The interner's index as (text, symbol) pairs: every symbol's text must map back to it.
    let mut map: Vec<(&str, u32)> = (0..m.strings.spans.len() as u32)
        .map(|i| (m.strings.resolve(converge_ir::Sym(i)), i))
        .collect();
    assert_eq!(m.strings.map.len(), map.len(), "index size");
    for &(t, i) in &map {
        assert_eq!(
            m.strings.get(t),
            Some(converge_ir::Sym(i)),
            "index entry {t:?}"
        );
    }
    map.sort_unstable();
    let _ = write!(
        w,
        "{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}",
        m.source_name,
        m.triple,
        m.datalayout,
        m.strings.buf,
        m.strings.spans,
        map,
        m.types,
        m.globals,
        m.functions,
        m.consts,
        m.const_lists,
        m.bytes,
        m.asms,
        m.attrs,
        m.metadata,
        m.md_lists,
        m.named_metadata,
        m.source_filename,
        m.comdats,
        m.attr_groups,
        m.first_inline_md,
        m.source.len(),
    );
    w.0.finish()
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 1;
    if args.first().map(String::as_str) == Some("--runs") && args.len() > 1 {
        runs = args[1].parse().unwrap_or(1);
        args.drain(..2);
    }
    for path in &args {
        let Ok(text) = std::fs::read_to_string(path) else {
            println!("{path}: unreadable");
            continue;
        };
        let mut best = f64::MAX;
        let mut line = String::new();
        for _ in 0..runs.max(1) {
            let src = text.clone();
            let t0 = Instant::now();
            let r = converge_ir::parse_with(path, src, Some(false));
            best = best.min(t0.elapsed().as_secs_f64());
            line = match &r {
                // Timing runs skip the (slow) hash.
                Ok(_) if runs > 1 => "ok".to_string(),
                Ok(m) => format!("ok {:016x}", module_hash(m)),
                Err(d) => {
                    let mut w = Hash(DefaultHasher::new());
                    let _ = write!(w, "{d:?}");
                    format!("err {:016x}", w.0.finish())
                }
            };
            drop(r);
        }
        if runs > 1 {
            println!(
                "{path}: {line} best {:.1} ms ({:.0} MB/s)",
                best * 1e3,
                text.len() as f64 / best / 1e6
            );
        } else {
            println!("{path}: {line}");
        }
    }
}
