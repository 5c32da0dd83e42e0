//! Fuzz target: every module that is read goes through the whole pipeline (`fuzz/pipeline.rs`,
//! the same function the stable driver `crates/cli/examples/fuzz_pipeline.rs` runs) without a
//! panic; libFuzzer's `-timeout` catches hangs.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run pipeline -O -- -timeout=10`
#![no_main]

#[path = "../pipeline.rs"]
mod shared;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = converge_ir::parse("fuzz.ll", text.to_string()) else {
        return;
    };
    let _ = shared::pipeline(&m);
});
