//! Fuzz target: any UTF-8 text is either read or rejected with a located diagnostic, and every
//! module that is read can be walked with the helpers without a panic.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run parse -- -max_len=4096`
//! (seed the corpus with `../crates/ir/tests/data/*.ll` and the LLVM test corpus).
#![no_main]

use converge_graph::Graph;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match converge_ir::parse("fuzz.ll", text.to_string()) {
        Ok(m) => {
            for f in m.func_ids() {
                let func = m.func(f);
                let cfg = func.cfg();
                for b in 0..cfg.num_blocks() {
                    let _ = m.block_name(f, converge_graph::Block(b as u32));
                }
                for i in 0..func.insts.len() {
                    let i = converge_ir::InstId(i as u32);
                    let _ = m.inst_text(f, i);
                    for &v in func.operands(i) {
                        let _ = m.value_name(f, v);
                    }
                    let _ = m.is_convergent_call(f, i);
                }
            }
        }
        Err(d) => {
            let _ = d.render("fuzz.ll", text);
        }
    }
});
