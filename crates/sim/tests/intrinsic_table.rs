//! The intrinsic tables (`converge_ir::intrinsics::amdgpu`, and `nvptx` at the end) cross-checked
//! against their two
//! readers: an intrinsic the table says is the same in every lane of the group is never seen
//! with different values on converged threads by the simulator, even for thread-dependent
//! operands; one it says computes a value of each lane's own is a divergence source for the
//! analysis (LLVM 22's rules and precise mode), and the simulator shows converged threads with
//! different values for it even with uniform operands (cross-lane permutes excepted: they move
//! `src0` between lanes, so a uniform `src0` stays uniform).

use converge_ir::intrinsics::amdgpu::{Computes, sample_names};
use converge_ir::intrinsics::nvptx::{Barrier, Nvvm, Shuffle, Vote};
use converge_ir::{FuncId, InstId, Module};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, inst_name, value_uniformity};
use converge_uniformity::llvm::{LlvmFunction, Target as UTarget};
use converge_uniformity::{
    DivergenceModel, Mode, SourceReason, SsaFunction, Structure, Val, analyze_with,
};

/// A kernel calling `name` once as `%v`: with thread-dependent operands for group-uniform
/// intrinsics, with uniform ones (from the argument `%n`) for per-lane ones.
fn module(name: &str, c: Computes) -> String {
    let (ret, params, args) = match (c, name) {
        (_, n) if n.contains("workitem.id") => ("i32", "", ""),
        (_, n) if n.ends_with(".icmp") => ("i64", "i32, i32, i32", "i32 %x, i32 %n, i32 32"),
        (_, n) if n.ends_with(".fcmp") => {
            ("i64", "float, float, i32", "float %xf, float 1.0, i32 1")
        }
        (_, n) if n.ends_with(".ballot") => ("i64", "i1", "i1 %c"),
        (_, n) if n.ends_with(".if.break") => ("i64", "i1, i64", "i1 %c, i64 0"),
        (_, n) if n.ends_with(".readlane") => ("i32", "i32, i32", "i32 %x, i32 %x"),
        (_, n) if n.contains("mbcnt") => ("i32", "i32, i32", "i32 %n, i32 %n"),
        (_, n) if n.ends_with("writelane") => ("i32", "i32, i32, i32", "i32 %n, i32 %n, i32 %n"),
        (_, n) if n.ends_with(".var") => (
            "i32",
            "i32, i32, i32, i1, i1",
            "i32 %n, i32 %n, i32 %n, i1 false, i1 false",
        ),
        (_, n) if n.contains("permlane") => (
            "i32",
            "i32, i32, i32, i32, i1, i1",
            "i32 %n, i32 %n, i32 %n, i32 0, i1 false, i1 false",
        ),
        (_, n) if n.ends_with("inverse.ballot") => ("i1", "i64", "i64 %n64"),
        (Computes::GroupUniform, _) => ("i32", "i32", "i32 %x"),
        (Computes::PerLane, _) => ("i32", "i32", "i32 %n"),
    };
    let decl = if name == "llvm.amdgcn.workitem.id.x" {
        String::new()
    } else {
        format!("declare {ret} @{name}({params})\n")
    };
    format!(
        "target triple = \"amdgcn-amd-amdhsa\"\n\
         declare i32 @llvm.amdgcn.workitem.id.x()\n\
         {decl}\
         define amdgpu_kernel void @k(i32 %n) !reqd_work_group_size !0 {{\n\
         entry:\n\
           %x = call i32 @llvm.amdgcn.workitem.id.x()\n\
           %xf = sitofp i32 %x to float\n\
           %c = icmp ult i32 %x, 2\n\
           %n64 = zext i32 %n to i64\n\
           %v = call {ret} @{name}({args})\n\
           ret void\n}}\n\
         !0 = !{{i32 2, i32 2, i32 16}}\n"
    )
}

/// The simulator's verdict on `%v` over 40 threads (a 2 x 2 x 16 work-group, so that every
/// work-item id varies, and lanes above 32 for `mbcnt.hi`), every hierarchy, `%n` = 5.
fn simulated(m: &Module) -> Option<String> {
    let f = &m.functions[m.functions.iter().position(|f| !f.is_declaration).unwrap()];
    let prog = Program::new(m, f, Target::Amdgpu);
    let e = enumerate(&prog.cfg, 4);
    let opts = Options {
        threads: 40,
        args: vec![Some(ArgValue::Int(5))],
        target: Target::Amdgpu,
        ..Options::default()
    };
    for h in &e.hierarchies {
        let r = run(&prog, h, &opts);
        for (i, v) in value_uniformity(&r, f.insts.len()) {
            if inst_name(m, f, i) == "%v"
                && let Verdict::Divergent { a, b } = v
            {
                return Some(format!("thread {}: {}, thread {}: {}", a.0, a.1, b.0, b.1));
            }
        }
    }
    None
}

#[test]
fn the_intrinsic_table_agrees_with_the_analysis_and_the_simulator() {
    let samples = sample_names();
    assert!(samples.len() > 40, "{} samples", samples.len());
    let mut checked_sim = 0;
    for (name, c) in &samples {
        let text = module(name, *c);
        let m =
            converge_ir::parse("t.ll", text.clone()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let fi = FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
        let lf = LlvmFunction::new(&m, fi);
        let v = (0..lf.num_insts())
            .find(|&i| inst_name(&m, lf.func, InstId(i)) == "%v")
            .unwrap();
        let t = UTarget::from_triple(m.triple.as_deref(), None);
        match c {
            Computes::GroupUniform => {
                assert!(
                    t.is_always_uniform(&lf, converge_uniformity::Inst(v)),
                    "{name}: always uniform for the analysis"
                );
                assert_eq!(
                    simulated(&m),
                    None,
                    "{name}: the simulator shows divergence"
                );
                checked_sim += 1;
            }
            Computes::PerLane => {
                assert!(
                    t.is_source_inst(&lf, converge_uniformity::Inst(v)),
                    "{name}: a source for LLVM 22's rules"
                );
                let u = analyze_with(&lf, &t, &Structure::new(lf.cfg()), Mode::Precise);
                // Precise mode: a source, except a permute whose `old` is its uniform `src0`
                // (docs/precise-mode.md: LLVM main's permlane16 rule).
                if !name.contains("permlane") {
                    assert!(
                        u.is_divergent(Val::Inst(converge_uniformity::Inst(v))),
                        "{name}: a source in precise mode"
                    );
                    assert!(
                        simulated(&m).is_some(),
                        "{name}: per lane, yet uniform in the simulator"
                    );
                    checked_sim += 1;
                }
            }
        }
    }
    assert!(checked_sim > 40, "{checked_sim} simulated");
}

/// An NVPTX kernel calling `name` once as `%v`: operands from the thread id `%x` (or the
/// predicate `%c` on it), so that a group-uniform entry is tested with thread-dependent
/// operands; a shuffle moves `%x` between lanes. A 2 x 2 x 8 CTA: one warp of 32 threads in
/// which every `tid` dimension varies.
fn nvptx_module(name: &str, e: Nvvm) -> String {
    let (ret, params, args) = match e {
        Nvvm::Vote(Vote::Ballot) => ("i32", "i32, i1", "i32 -1, i1 %c"),
        Nvvm::Vote(_) => ("i1", "i32, i1", "i32 -1, i1 %c"),
        Nvvm::Shuffle(Shuffle::Idx) => (
            "i32",
            "i32, i32, i32, i32",
            "i32 -1, i32 %x, i32 %x, i32 31",
        ),
        Nvvm::Shuffle(_) => ("i32", "i32, i32, i32, i32", "i32 -1, i32 %x, i32 1, i32 31"),
        Nvvm::Redux(_) => ("i32", "i32, i32", "i32 %x, i32 -1"),
        Nvvm::Barrier(Barrier::Plain) if name.ends_with("barrier0") => ("void", "", ""),
        Nvvm::Barrier(Barrier::Plain) => ("void", "i32", "i32 0"),
        Nvvm::Barrier(_) => ("i32", "i32", "i32 %x"),
        Nvvm::Sreg(_) | Nvvm::ActiveMask => ("i32", "", ""),
    };
    let decl = if name == "llvm.nvvm.read.ptx.sreg.tid.x" {
        String::new()
    } else {
        format!("declare {ret} @{name}({params})\n")
    };
    let call = if ret == "void" {
        format!("call void @{name}({args})")
    } else {
        format!("%v = call {ret} @{name}({args})")
    };
    format!(
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n\
         {decl}\
         define ptx_kernel void @k(i32 %n) !reqd_work_group_size !0 {{\n\
         entry:\n\
           %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n\
           %c = icmp ult i32 %x, 2\n\
           {call}\n\
           ret void\n}}\n\
         !0 = !{{i32 2, i32 2, i32 8}}\n"
    )
}

/// The simulator's verdict on `%v` over the 32 threads of one warp, every hierarchy.
fn nvptx_simulated(m: &Module) -> Option<String> {
    let f = &m.functions[m.functions.iter().position(|f| !f.is_declaration).unwrap()];
    let prog = Program::new(m, f, Target::Nvptx);
    let e = enumerate(&prog.cfg, 4);
    let opts = Options {
        threads: 32,
        args: vec![Some(ArgValue::Int(5))],
        target: Target::Nvptx,
        ..Options::default()
    };
    for h in &e.hierarchies {
        let r = run(&prog, h, &opts);
        assert_eq!(r.failures(), Vec::<String>::new(), "{}", m.source);
        for (i, v) in value_uniformity(&r, f.insts.len()) {
            if inst_name(m, f, i) == "%v"
                && let Verdict::Divergent { a, b } = v
            {
                return Some(format!("thread {}: {}, thread {}: {}", a.0, a.1, b.0, b.1));
            }
        }
    }
    None
}

/// The NVPTX table (`converge_ir::intrinsics::nvptx`) against its readers: an entry it says is
/// the same in every converged thread is never seen otherwise by the simulator, even with
/// thread-dependent operands; one it says is a value of each thread's own shows converged
/// threads with different values (a shuffle: of a thread-dependent value) and is a divergence
/// source for the analysis (NVPTX makes every call one) in LLVM 22's rules and precise mode; and
/// the analysis names the source a thread id exactly for the table's id registers.
#[test]
fn the_nvptx_table_agrees_with_the_analysis_and_the_simulator() {
    let samples = converge_ir::intrinsics::nvptx::sample_names();
    assert!(samples.len() > 40, "{} samples", samples.len());
    let (mut uniform, mut per_lane) = (0, 0);
    for (name, e) in &samples {
        let text = nvptx_module(name, *e);
        let m = converge_ir::parse("t.ll", text.clone())
            .unwrap_or_else(|err| panic!("{name}: {err:?}"));
        let fi = FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
        let lf = LlvmFunction::new(&m, fi);
        let t = UTarget::from_triple(m.triple.as_deref(), None);
        let Some(v) = (0..lf.num_insts()).find(|&i| inst_name(&m, lf.func, InstId(i)) == "%v")
        else {
            // A plain barrier has no result: the simulator must still run it.
            assert_eq!(e.computes(), None, "{name}");
            assert_eq!(nvptx_simulated(&m), None, "{name}");
            continue;
        };
        let reason = t.source_reason(&lf, converge_uniformity::Inst(v));
        assert_eq!(
            reason == Some(SourceReason::ThreadIdIntrinsic),
            converge_ir::intrinsics::nvptx::is_id_intrinsic(name),
            "{name}: {reason:?}"
        );
        match e.computes() {
            Some(Computes::GroupUniform) => {
                assert_eq!(
                    nvptx_simulated(&m),
                    None,
                    "{name}: the simulator shows divergence\n{text}"
                );
                uniform += 1;
            }
            Some(Computes::PerLane) => {
                assert!(
                    t.is_source_inst(&lf, converge_uniformity::Inst(v)),
                    "{name}: a source for LLVM 22's rules"
                );
                let u = analyze_with(&lf, &t, &Structure::new(lf.cfg()), Mode::Precise);
                assert!(
                    u.is_divergent(Val::Inst(converge_uniformity::Inst(v))),
                    "{name}: a source in precise mode"
                );
                assert!(
                    nvptx_simulated(&m).is_some(),
                    "{name}: per thread, yet uniform in the simulator\n{text}"
                );
                per_lane += 1;
            }
            None => panic!("{name}: a result without a fact"),
        }
    }
    assert!(
        uniform >= 20 && per_lane >= 10,
        "{uniform} uniform, {per_lane} per lane"
    );
}

/// An AMDGPU kernel calling `name` once as `%v` with the given declaration and arguments
/// (`%l` the lane id, `%l4` four times it, `%n` the uniform argument, `%c` a predicate on `%l`).
fn amdgpu_call(name: &str, ret: &str, params: &str, args: &str) -> Module {
    let lane_decl = if name == "llvm.amdgcn.mbcnt.lo" {
        ""
    } else {
        "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\n"
    };
    let text = format!(
        "target triple = \"amdgcn-amd-amdhsa\"\n\
         {lane_decl}\
         declare {ret} @{name}({params}) convergent\n\
         define amdgpu_kernel void @k(i32 %n) !reqd_work_group_size !0 {{\n\
         entry:\n\
           %l = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n\
           %l4 = shl i32 %l, 2\n\
           %c = icmp ult i32 %l, 2\n\
           %v = call {ret} @{name}({args})\n\
           ret void\n}}\n\
         !0 = !{{i32 2, i32 2, i32 16}}\n"
    );
    converge_ir::parse("t.ll", text).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// The table's operations (`converge_ir::intrinsics::amdgpu::Op`, which the simulator executes
/// with a model of its own) against the simulator, under their mangled names: every operation the
/// table's `computes` calls group-uniform is uniform with thread-dependent operands; the readers,
/// reductions and masks the table has no `computes` fact for are too; the lane movements keep a
/// uniform value uniform and a per-lane value per-lane; the per-lane ones differ between lanes
/// even with uniform operands; the identities (`wwm`, `wqm`, `set.inactive`) give their operand.
#[test]
fn the_amdgpu_operations_execute_as_the_table_says() {
    use converge_ir::intrinsics::amdgpu::{Op, computes, op, op_names};
    let mut checked = 0;
    let names: Vec<(String, Op)> = op_names()
        .chain(
            [
                "add", "fadd", "min", "smin", "umin", "max", "umax", "and", "or", "xor",
            ]
            .iter()
            .map(|r| {
                let n = format!("llvm.amdgcn.wave.reduce.{r}");
                let o = op(&format!("{n}.i32")).unwrap_or_else(|| panic!("{n}"));
                (n, o)
            }),
        )
        .collect();
    for (base, o) in &names {
        // (mangled name, ret, params, args with the lane id %l, args with the uniform %n); the
        // permutes select each lane itself (`0x76543210`, `0xfedcba98`).
        let (name, ret, params, per_lane_args, uniform_args) = match o {
            Op::ReadFirstLane => (format!("{base}.i32"), "i32", "i32", "i32 %l", "i32 %n"),
            Op::ReadLane => (
                format!("{base}.i32"),
                "i32",
                "i32, i32",
                "i32 %l, i32 %l",
                "i32 %n, i32 %n",
            ),
            Op::Ballot => (format!("{base}.i64"), "i64", "i1", "i1 %c", "i1 true"),
            Op::Icmp => (
                format!("{base}.i64.i32"),
                "i64",
                "i32, i32, i32",
                "i32 %l, i32 %n, i32 32",
                "i32 %n, i32 %n, i32 32",
            ),
            Op::Fcmp => continue, // the float operand needs a conversion; covered by `sample_names`
            Op::IfBreak => (
                format!("{base}.i64"),
                "i64",
                "i1, i64",
                "i1 %c, i64 0",
                "i1 true, i64 0",
            ),
            Op::Permlane16 { var: false, .. } => (
                format!("{base}.i32"),
                "i32",
                "i32, i32, i32, i32, i1, i1",
                "i32 %l, i32 %l, i32 1985229328, i32 -19088744, i1 false, i1 false",
                "i32 %n, i32 %n, i32 0, i32 0, i1 false, i1 false",
            ),
            Op::Permlane16 { var: true, .. } => (
                format!("{base}.i32"),
                "i32",
                "i32, i32, i32, i1, i1",
                "i32 %l, i32 %l, i32 %l, i1 false, i1 false",
                "i32 %n, i32 %n, i32 %n, i1 false, i1 false",
            ),
            Op::Permlane64 => (format!("{base}.i32"), "i32", "i32", "i32 %l", "i32 %n"),
            Op::Bpermute => (
                base.clone(),
                "i32",
                "i32, i32",
                "i32 %l4, i32 %l",
                "i32 %l4, i32 %n",
            ),
            Op::InverseBallot => (format!("{base}.i64"), "i1", "i64", "i64 1", "i64 1"),
            Op::Identity if base.ends_with("set.inactive") => (
                format!("{base}.i32"),
                "i32",
                "i32, i32",
                "i32 %l, i32 0",
                "i32 %n, i32 0",
            ),
            Op::Identity => (format!("{base}.i32"), "i32", "i32", "i32 %l", "i32 %n"),
            Op::MbcntLo | Op::MbcntHi => (
                base.clone(),
                "i32",
                "i32, i32",
                "i32 -1, i32 0",
                "i32 -1, i32 0",
            ),
            Op::WaveSize => (base.clone(), "i32", "", "", ""),
            Op::WaveReduce(_) => (
                format!("{base}.i32"),
                "i32",
                "i32, i32",
                "i32 %l, i32 0",
                "i32 %n, i32 0",
            ),
            Op::Barrier => continue, // no result; the workgroup barrier tests run it
        };
        assert_eq!(
            op(&name),
            Some(*o),
            "{name}: the table's lookup of its mangled name"
        );
        let with_x = simulated(&amdgpu_call(&name, ret, params, per_lane_args));
        let with_n = simulated(&amdgpu_call(&name, ret, params, uniform_args));
        match o {
            Op::ReadFirstLane
            | Op::ReadLane
            | Op::Ballot
            | Op::Icmp
            | Op::IfBreak
            | Op::WaveSize
            | Op::WaveReduce(_) => {
                assert_eq!(with_x, None, "{name}: the same in every lane");
                assert_eq!(with_n, None, "{name}: the same in every lane");
            }
            Op::Permlane16 { .. } | Op::Permlane64 | Op::Bpermute | Op::Identity => {
                assert!(with_x.is_some(), "{name}: moves a per-lane value");
                assert_eq!(with_n, None, "{name}: moves a uniform value");
            }
            Op::InverseBallot | Op::MbcntLo | Op::MbcntHi => {
                assert!(with_n.is_some(), "{name}: a value of each lane's own");
            }
            Op::Fcmp | Op::Barrier => unreachable!(),
        }
        // The table's `computes` agrees with what the simulator showed.
        match computes(&name) {
            Some(Computes::GroupUniform) => assert_eq!(with_x, None, "{name}"),
            Some(Computes::PerLane) if !matches!(o, Op::Permlane16 { .. }) => {
                assert!(with_n.is_some(), "{name}")
            }
            _ => {}
        }
        checked += 1;
    }
    assert!(checked >= 25, "{checked} checked");
}

/// The AMDGPU work-item queries (`converge_ir::intrinsics::amdgpu::WorkItem`: the work-item and
/// work-group ids, the dispatch and implicit-argument pointers) against their readers: the
/// simulator (which answers them from the table) gives converged threads different values
/// exactly for the work-item ids, and the analysis (LLVM 22's rules and precise mode) calls
/// exactly those a divergence source, naming a thread id.
#[test]
fn the_amdgpu_work_item_queries_agree_with_the_analysis_and_the_simulator() {
    use converge_ir::intrinsics::amdgpu::{WorkItem, work_item, work_item_names};
    let names: Vec<(String, WorkItem)> = work_item_names().collect();
    assert_eq!(names.len(), 8, "{names:?}");
    for (name, q) in &names {
        assert_eq!(work_item(name), Some(*q), "{name}");
        let ret = match q {
            WorkItem::LocalId(_) | WorkItem::GroupId(_) => "i32",
            WorkItem::DispatchPtr | WorkItem::ImplicitArgPtr => "ptr addrspace(4)",
        };
        let m = amdgpu_call(name, ret, "", "");
        let fi = FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
        let lf = LlvmFunction::new(&m, fi);
        let v = (0..lf.num_insts())
            .find(|&i| inst_name(&m, lf.func, InstId(i)) == "%v")
            .unwrap();
        let v = converge_uniformity::Inst(v);
        let per_thread = matches!(q, WorkItem::LocalId(_));
        let t = UTarget::from_triple(m.triple.as_deref(), None);
        assert_eq!(t.is_source_inst(&lf, v), per_thread, "{name}: a source?");
        if per_thread {
            assert_eq!(
                t.source_reason(&lf, v),
                Some(SourceReason::ThreadIdIntrinsic),
                "{name}"
            );
        }
        let u = analyze_with(&lf, &t, &Structure::new(lf.cfg()), Mode::Precise);
        assert_eq!(
            u.is_divergent(Val::Inst(v)),
            per_thread,
            "{name}: precise mode"
        );
        assert_eq!(
            simulated(&m).is_some(),
            per_thread,
            "{name}: the simulator ({:?})",
            simulated(&m)
        );
    }
    assert_eq!(work_item("llvm.amdgcn.workitem.id.w"), None);
}

/// `llvm.read_register`: the analysis names a read a per-lane source exactly for the registers
/// the table calls per-lane (`amdgpu::is_per_lane_register`: vector and accumulation registers,
/// not `vcc` nor the scalar ones), and for any `i1` read (a lane's bit of a mask). The simulator
/// does not model registers, so this checks the model reads the table.
#[test]
fn read_register_sources_follow_the_register_table() {
    use converge_ir::intrinsics::amdgpu::is_per_lane_register;
    for (reg, ty) in [
        ("v0", "i32"),
        ("v[0:1]", "i64"),
        ("a3", "i32"),
        ("vcc", "i64"),
        ("vcc_lo", "i32"),
        ("s0", "i32"),
        ("exec", "i64"),
        ("m0", "i32"),
        ("exec", "i1"),
    ] {
        let text = format!(
            "target triple = \"amdgcn-amd-amdhsa\"\n\
             declare {ty} @llvm.read_register.{ty}(metadata)\n\
             define amdgpu_kernel void @k() {{\n\
             entry:\n\
               %v = call {ty} @llvm.read_register.{ty}(metadata !0)\n\
               ret void\n}}\n\
             !0 = !{{!\"{reg}\"}}\n"
        );
        let m = converge_ir::parse("t.ll", text).unwrap_or_else(|e| panic!("{reg}: {e:?}"));
        let fi = FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
        let lf = LlvmFunction::new(&m, fi);
        let v = converge_uniformity::Inst(0);
        let t = UTarget::from_triple(m.triple.as_deref(), None);
        let want = ty == "i1" || is_per_lane_register(reg);
        assert_eq!(
            t.source_reason(&lf, v),
            want.then_some(SourceReason::PerLaneRegister),
            "{reg} ({ty})"
        );
    }
}
