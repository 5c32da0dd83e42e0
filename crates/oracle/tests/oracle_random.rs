//! The soundness oracle on random programs (see the crate doc and docs/oracle.md).
//!
//! Environment: `CONVERGE_ORACLE_CASES` (programs; default below), `CONVERGE_ORACLE_SEED` (first
//! seed, default 1), `CONVERGE_ORACLE_BLOCKS` (default 20), `CONVERGE_ORACLE_GEN=legacy` (the
//! generator before issue 10, for the before figures; coverage is then only reported),
//! `CONVERGE_ORACLE_WORKERS` (threads, default 1).

use converge_oracle::cases::{Generator, run_seeds};
use converge_oracle::check::Mode;
use converge_uniformity::LlvmVersion;

fn env_u64(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

#[test]
fn llvm_mode_is_sound_on_random_programs() {
    let cases = env_u64("CONVERGE_ORACLE_CASES", 400);
    let base = env_u64("CONVERGE_ORACLE_SEED", 1);
    let blocks = env_u64("CONVERGE_ORACLE_BLOCKS", 20) as usize;
    let legacy = std::env::var("CONVERGE_ORACLE_GEN").is_ok_and(|g| g == "legacy");
    let generator = if legacy {
        Generator::Legacy { blocks }
    } else {
        Generator::Oracle { blocks }
    };
    let t = std::time::Instant::now();
    let st = run_seeds(
        base,
        cases,
        generator,
        Mode::Llvm(LlvmVersion::V22),
        env_u64("CONVERGE_ORACLE_WORKERS", 1) as usize,
    );
    eprintln!(
        "oracle (llvm mode, {generator:?}, seeds {base}..{}): {:.1}s\n{}",
        base + cases - 1,
        t.elapsed().as_secs_f64(),
        st.summary()
    );
    for f in st.unexplained().iter().take(5) {
        eprintln!("seed {}: {:?}", f.seed, f.violation);
    }
    assert!(st.unexplained().is_empty());
}
