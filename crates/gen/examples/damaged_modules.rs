//! Writes damaged variants of a module, to compare two readers' diagnostics on the error paths.
//!
//! `cargo run --release -p converge-gen --example damaged_modules -- IN.ll OUTDIR [--count 200]
//! [--seed 1] [--bytes 400000]`
//!
//! The input is cut to its first `--bytes` bytes at a line end (small files keep two readers'
//! comparison fast), then each variant applies one damage: a truncation, a deleted run of bytes, a
//! stray byte or word spliced in at a random place, or one spliced in right after a spelling the
//! reader reads specially (`%x = `, `ptr addrspace(`, `, align `, `, !`, `label %`, `(`, digits),
//! where a fast path must hand every unusual spelling back to the general one. Variant 0 is the
//! undamaged cut.

use converge_gen::rng::Rng;

const STRAY: &[&str] = &[
    "%",
    "@",
    "\"",
    "!",
    "\u{1}",
    "(",
    ")",
    ",",
    " ",
    "#",
    "9999999999",
    "4294967296",
    "-",
    ":",
    ".",
    "x",
    "\n",
    "=",
    "\\",
    "!\"",
    "0x",
    "u0x",
    ";",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "*",
    "e",
    "1.5",
    "é",
    "\t",
    "!7",
    "!-",
    "!{",
    "%0",
    "%\"q\"",
    "align",
    "addrspace(1)",
    "label",
];

const SPOTS: &[&str] = &[
    " = ",
    "ptr addrspace(",
    ", align ",
    ", !",
    "label %",
    "!tbaa !",
    "(",
    "i32 ",
    "float ",
    "@",
];

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut input, mut out) = (None, None);
    let (mut count, mut seed, mut bytes) = (200usize, 1u64, 400_000usize);
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--count" => count = val().parse().unwrap_or_else(|_| usage("--count N")),
            "--seed" => seed = val().parse().unwrap_or_else(|_| usage("--seed N")),
            "--bytes" => bytes = val().parse().unwrap_or_else(|_| usage("--bytes N")),
            _ if input.is_none() && !a.starts_with('-') => input = Some(a),
            _ if out.is_none() && !a.starts_with('-') => out = Some(a),
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    let (Some(input), Some(out)) = (input, out) else {
        usage("IN.ll OUTDIR")
    };
    let src = std::fs::read(&input).unwrap_or_else(|e| usage(&format!("{input}: {e}")));
    // Whole functions up to about `--bytes`, then the module's attribute groups and metadata (from
    // its first `attributes` line on), so that the undamaged cut reads without errors.
    let cut = if src.len() <= bytes {
        src.len()
    } else {
        src[..bytes]
            .windows(3)
            .rposition(|w| w == b"\n}\n")
            .map_or(bytes, |p| p + 3)
    };
    let footer = find(&src[cut..], b"\nattributes ").map_or(&[][..], |p| &src[cut + p + 1..]);
    let mut whole = src[..cut].to_vec();
    whole.extend_from_slice(footer);
    let base = &whole[..];
    std::fs::create_dir_all(&out).unwrap_or_else(|e| usage(&format!("{out}: {e}")));
    let mut rng = Rng::new(seed);
    for i in 0..count {
        let v = if i == 0 {
            base.to_vec()
        } else {
            damage(base, &mut rng)
        };
        let path = format!("{out}/damaged-{i:04}.ll");
        std::fs::write(&path, v).unwrap_or_else(|e| usage(&format!("{path}: {e}")));
    }
    println!("wrote {count} variants of {} bytes to {out}", base.len());
}

fn find(h: &[u8], needle: &[u8]) -> Option<usize> {
    h.windows(needle.len()).position(|w| w == needle)
}

fn damage(base: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = base.to_vec();
    let n = v.len().max(1);
    match rng.below(6) {
        0 => v.truncate(rng.below(n)),
        1 => {
            let at = rng.below(n);
            let len = (1 + rng.below(8)).min(v.len() - at.min(v.len()));
            v.drain(at..at + len);
        }
        2 => {
            let at = rng.below(n);
            let s = rng.pick(STRAY).as_bytes();
            v.splice(at..at, s.iter().copied());
        }
        _ => {
            // Right after (or inside) a spelling a fast path reads.
            let spot = rng.pick(SPOTS).as_bytes();
            let hits: Vec<usize> = v
                .windows(spot.len())
                .enumerate()
                .filter(|(_, w)| *w == spot)
                .map(|(i, _)| i)
                .collect();
            if hits.is_empty() {
                v.truncate(rng.below(n));
                return v;
            }
            let at = hits[rng.below(hits.len())] + rng.below(spot.len() + 3);
            let at = at.min(v.len());
            if rng.chance(1, 4) {
                let len = (1 + rng.below(3)).min(v.len() - at);
                v.drain(at..at + len);
            } else {
                let s = rng.pick(STRAY).as_bytes();
                v.splice(at..at, s.iter().copied());
            }
        }
    }
    v
}

fn usage(msg: &str) -> ! {
    eprintln!(
        "damaged_modules: {msg}\nusage: damaged_modules IN.ll OUTDIR [--count N] [--seed N] [--bytes N]"
    );
    std::process::exit(2)
}
