//! `DivergenceModel::source_reason` says why an instruction is a divergence source: it must
//! answer `Some` exactly when `is_source_inst` says it is a source, on every program of
//! `examples/` and `tests/precise/`, for both target models (whatever the file's triple), every
//! rule set, and the gfx1250 AMDGPU variant (scratch address casts). The AMDGPU and NVPTX
//! models classify every source they name, so neither answers `Other`.

use converge_ir::{FuncId, Opcode};
use converge_uniformity::llvm::{Amdgpu, LlvmFunction, Nvptx, Rules, Target};
use converge_uniformity::{DivergenceModel, Inst, SourceReason, SsaFunction};
use std::collections::BTreeMap;
use std::path::Path;

fn programs() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("../../examples"), root.join("tests/precise")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ll") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn source_reason_is_some_exactly_for_sources() {
    let files = programs();
    assert!(files.len() >= 20, "found only {} programs", files.len());
    let rules = [Rules::V19, Rules::V22, Rules::Main, Rules::Precise];
    let targets = [
        Target::Amdgpu(Amdgpu::new(None)),
        Target::Amdgpu(Amdgpu::new(Some("gfx1250"))),
        Target::Nvptx(Nvptx::default()),
    ];
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let m = converge_ir::parse(&path.display().to_string(), src).unwrap();
        for (k, func) in m.functions.iter().enumerate() {
            if func.is_declaration {
                continue;
            }
            let f = LlvmFunction::new(&m, FuncId(k as u32));
            for t in &targets {
                for &r in &rules {
                    let t = t.clone().with_rules(r);
                    for i in 0..f.num_insts() {
                        let reason = t.source_reason(&f, Inst(i));
                        assert_eq!(
                            reason.is_some(),
                            t.is_source_inst(&f, Inst(i)),
                            "{}: @{} inst {i} under {t:?}: reason {reason:?}",
                            path.display(),
                            f.name(),
                        );
                        if let Some(reason) = reason {
                            assert_ne!(reason, SourceReason::Other, "{}", path.display());
                            // A load's reason names the address space it reads.
                            let inst = &func.insts[i as usize];
                            if inst.op == Opcode::Load {
                                assert_eq!(reason, SourceReason::DivergentLoad(inst.aux));
                            }
                            let key = format!("{reason:?}");
                            let key = key.split('(').next().unwrap().to_string();
                            *seen.entry(key).or_default() += 1;
                        }
                    }
                    for a in 0..f.num_args() {
                        assert_eq!(t.source_arg_reason(&f, a).is_some(), t.is_source_arg(&f, a));
                    }
                }
            }
            // The uniform target names no source.
            for i in 0..f.num_insts() {
                assert_eq!(Target::Uniform.source_reason(&f, Inst(i)), None);
            }
        }
    }
    // The programs exercise the main reasons (so the equivalence above is not vacuous).
    for key in [
        "ThreadIdIntrinsic",
        "PerLaneIntrinsic",
        "DivergentLoad",
        "Call",
    ] {
        assert!(seen.contains_key(key), "no {key} source among {seen:?}");
    }
}

/// Precise mode decides a call's callee-only source rules once per callee and function; the
/// answer for `workitem.id.y` depends on the wave size that `--mcpu` gives (a required x size of
/// 32 fills whole waves of wave32 but not of the wave64 assumed without a processor), so one
/// function asked under two processors must get each processor's answer, whichever comes first.
#[test]
fn precise_callee_rules_follow_the_processor() {
    let src = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.y()
define amdgpu_kernel void @f() !reqd_work_group_size !0 {
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  %y2 = call i32 @llvm.amdgcn.workitem.id.y()
  ret void
}
!0 = !{i32 32, i32 2, i32 1}
"#;
    let m = converge_ir::parse("yz.ll", src.to_string()).unwrap();
    let fid = FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
    let wave64 = Target::Amdgpu(Amdgpu::new(None)).with_rules(Rules::Precise);
    let wave32 = Target::Amdgpu(Amdgpu::new(Some("gfx1100"))).with_rules(Rules::Precise);
    for order in [[&wave64, &wave32], [&wave32, &wave64]] {
        let f = LlvmFunction::new(&m, fid);
        for t in order {
            let uniform = std::ptr::eq(t, &wave32);
            for i in [0, 1] {
                assert_eq!(t.is_source_inst(&f, Inst(i)), !uniform, "{t:?} inst {i}");
            }
        }
    }
}
