//! Fuzz target: every module that is read goes through the whole pipeline (cycles and dominators in
//! both LLVM modes, uniformity for every target model and both LLVM versions, the token verifier,
//! explain and DOT reports) without a panic; libFuzzer's `-timeout` catches hangs.
//!
//! Run: `cd crates/ir/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run pipeline -O -- -timeout=10`
//! (the in-process driver `crates/cli/examples/fuzz_pipeline.rs` does the same on stable Rust).
#![no_main]

use converge_graph::{CycleInfo, DominatorTree, PostDominatorTree, UnreachablePreds};
use converge_report::LineIndex;
use converge_report::dot::{DotOptions, render};
use converge_report::explain::{Analysed, Explainer, Node};
use converge_report::render::Ctx;
use converge_uniformity::llvm::{Amdgpu, LlvmFunction, Nvptx, Target};
use converge_uniformity::{LlvmVersion, Structure, analyze_as};
use converge_verify::llvm::{self as vl, Flavor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = converge_ir::parse("fuzz.ll", text.to_string()) else {
        return;
    };
    let lines = LineIndex::new(&m.source);
    let targets = [
        Target::Uniform,
        Target::Amdgpu(Amdgpu::new(None)),
        Target::Nvptx(Nvptx),
        Target::from_triple(m.triple.as_deref(), None),
    ];
    for f in m.func_ids() {
        let func = m.func(f);
        if func.is_declaration {
            continue;
        }
        let cfg = func.cfg();
        for mode in [UnreachablePreds::Ignore, UnreachablePreds::AreEntries] {
            let mut ci = CycleInfo::default();
            ci.compute(&cfg, mode);
            let mut dom = DominatorTree::default();
            dom.compute_from_dfs(&cfg, ci.dfs());
        }
        let _ = PostDominatorTree::new(&cfg);
        let lf = LlvmFunction::new(&m, f);
        for llvm19 in [false, true] {
            let g = converge_uniformity::SsaFunction::cfg(&lf);
            let (s, v) = if llvm19 {
                (Structure::new_llvm19(g), LlvmVersion::V19)
            } else {
                (Structure::new(g), LlvmVersion::V22)
            };
            for t in &targets {
                let _ = analyze_as(&lf, t, &s, v);
            }
        }
        for t in &targets {
            let a = Analysed::new(&m, f, t);
            let ex = Explainer::new(&a);
            let ctx = Ctx {
                a: &a,
                lines: &lines,
            };
            let _ = ctx.summary(&ex, true);
            let _ = ctx.summary(&ex, false);
            for i in 0..func.insts.len().min(32) {
                let n = Node::Inst(i as u32);
                let e = ex.explain(n);
                let _ = ctx.explanation_text(n, &e);
            }
            let _ = render(
                &a,
                &DotOptions {
                    uniformity: true,
                    instructions: true,
                },
            );
        }
    }
    for flavor in [Flavor::Llvm22, Flavor::Llvm19] {
        let findings = vl::verify_module(&m, flavor);
        let _ = vl::llvm_report(&m, &findings);
        for fd in &findings {
            let _ = vl::diagnostic(&m, fd).render("fuzz.ll", &m.source);
        }
    }
    // insert-tokens: its output must read back (a refusal only renders).
    if let Ok(o) = converge_transform::insert_tokens::insert_tokens(&m, &Default::default()) {
        // The reader accepts some ill-typed modules LLVM rejects, which need not read back
        // once printed; a module whose plain printing reads must read after the transform.
        if o.refused.is_empty() && converge_ir::parse("fuzz-printed.ll", m.print_module()).is_ok() {
            assert!(converge_ir::parse("fuzz-out.ll", o.text()).is_ok());
        }
        for d in &o.refused {
            let _ = d.render("fuzz.ll", &m.source);
        }
    }
});
