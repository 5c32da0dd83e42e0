//! Explanations on hand-written examples (one per reason kind, checked for the reason and for a
//! chain that ends at a real source), and the consistency property over the examples and random
//! programs: every divergent value has a well-formed chain to a source, no uniform value gets one.

use converge_graph::{Block, Graph};
use converge_ir::{FuncId, Module, Value};
use converge_report::explain::{Analysed, Explainer, Explanation, Node, Reason, SourceRule};
use converge_report::explain::{UniformFact, find_block, find_value};
use converge_uniformity::SsaFunction;
use converge_uniformity::llvm::Target;

fn data(name: &str) -> String {
    let p = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn parse(name: &str, text: String) -> Module {
    converge_ir::parse(name, text).unwrap_or_else(|e| panic!("{name}: {}", e.message))
}

fn func(m: &Module, name: &str) -> FuncId {
    m.function_by_name(name).expect("function")
}

fn target(m: &Module) -> Target {
    Target::from_triple(m.triple.as_deref(), None)
}

fn explain(m: &Module, f: &str, value: &str) -> Explanation {
    let fid = func(m, f);
    let a = Analysed::new(m, fid, &target(m));
    let n = find_value(m, fid, value).unwrap_or_else(|| panic!("no {value}"));
    Explainer::new(&a).explain(n)
}

fn chain(e: Explanation) -> Vec<converge_report::Step> {
    match e {
        Explanation::Divergent(c) => c,
        other => panic!("expected a divergence chain, got {other:?}"),
    }
}

fn facts(e: Explanation) -> Vec<UniformFact> {
    match e {
        Explanation::Uniform(f) => f,
        other => panic!("expected uniform, got {other:?}"),
    }
}

fn last_rule(c: &[converge_report::Step]) -> SourceRule {
    match &c.last().unwrap().reason {
        Reason::Source { rule, .. } => *rule,
        r => panic!("chain ends with {r:?}"),
    }
}

#[test]
fn sync_dependence_at_a_join() {
    let m = parse("sync.ll", data("sync.ll"));
    let fid = func(&m, "diamond");
    let c = chain(explain(&m, "diamond", "%p"));
    let Reason::Sync {
        branch,
        join,
        paths,
        disjoint: true,
    } = &c[0].reason
    else {
        panic!("{:?}", c[0].reason)
    };
    assert_eq!(*branch, find_block(&m, fid, "entry").unwrap());
    assert_eq!(*join, find_block(&m, fid, "join").unwrap());
    let mut seconds = vec![paths[0][1], paths[1][1]];
    seconds.sort();
    let mut want = vec![
        find_block(&m, fid, "then").unwrap(),
        find_block(&m, fid, "else").unwrap(),
    ];
    want.sort();
    assert_eq!(seconds, want);
    assert_eq!(last_rule(&c), SourceRule::ThreadId);
    // %q depends on %p by data.
    let c = chain(explain(&m, "diamond", "%q"));
    assert_eq!(
        c[0].reason,
        Reason::Data {
            operand: find_value(&m, fid, "%p").unwrap()
        }
    );
    assert_eq!(c.len(), 5, "q <- p <- br <- c <- tid");
}

#[test]
fn constant_phi_at_a_join_is_uniform() {
    let m = parse("sync.ll", data("sync.ll"));
    let f = facts(explain(&m, "diamond", "%same"));
    assert!(
        f.iter()
            .any(|x| matches!(x, UniformFact::ConstantPhi { .. })),
        "{f:?}"
    );
    let f = facts(explain(&m, "diamond", "%u"));
    assert!(matches!(f[0], UniformFact::NoDivergentOperand { .. }));
}

#[test]
fn temporal_divergence_after_a_divergent_exit() {
    let m = parse("temporal.ll", data("temporal.ll"));
    let fid = func(&m, "loop");
    let c = chain(explain(&m, "loop", "%after"));
    let Reason::Temporal {
        operand,
        branch,
        exit,
        path,
        ..
    } = &c[0].reason
    else {
        panic!("{:?}", c[0].reason)
    };
    assert_eq!(Node::Inst(*operand), find_value(&m, fid, "%i").unwrap());
    assert_eq!(*branch, find_block(&m, fid, "header").unwrap());
    assert_eq!(*exit, find_block(&m, fid, "exit").unwrap());
    assert_eq!(path.first(), Some(branch));
    assert_eq!(last_rule(&c), SourceRule::ThreadId);
    // %i itself is uniform: the header is not a join, but its uses outside are temporal.
    let f = facts(explain(&m, "loop", "%i"));
    assert!(
        f.iter()
            .any(|x| matches!(x, UniformFact::HeaderNotJoin { .. }))
    );
    assert!(
        f.iter()
            .any(|x| matches!(x, UniformFact::TemporalOutside { .. }))
    );
}

#[test]
fn divergent_cycle_exit_in_a_nest() {
    let m = parse("nested.ll", data("nested.ll"));
    let fid = func(&m, "nest");
    for v in ["%kk", "%use"] {
        let c = chain(explain(&m, "nest", v));
        let Reason::Temporal { cycle, exit, .. } = &c[0].reason else {
            panic!("{v}: {:?}", c[0].reason)
        };
        let a = Analysed::new(&m, fid, &target(&m));
        assert_eq!(a.s.header(*cycle), find_block(&m, fid, "inner").unwrap());
        assert_eq!(*exit, find_block(&m, fid, "inner.done").unwrap());
        assert_eq!(last_rule(&c), SourceRule::ThreadId);
    }
    let f = facts(explain(&m, "nest", "%o"));
    assert!(
        f.iter()
            .any(|x| matches!(x, UniformFact::HeaderNotJoin { .. })),
        "{f:?}"
    );
}

#[test]
fn cycle_assumed_divergent_on_diverged_entries() {
    let m = parse("irreducible.ll", data("irreducible.ll"));
    let fid = func(&m, "irr");
    for v in ["%x", "%y", "%lc"] {
        let c = chain(explain(&m, "irr", v));
        let Reason::AssumedCycle {
            branch, entries, ..
        } = &c[0].reason
        else {
            panic!("{v}: {:?}", c[0].reason)
        };
        assert_eq!(*branch, find_block(&m, fid, "entry").unwrap());
        let mut e = entries.clone();
        e.sort();
        let mut want = vec![
            find_block(&m, fid, "left").unwrap(),
            find_block(&m, fid, "right").unwrap(),
        ];
        want.sort();
        assert_eq!(e, want);
        assert_eq!(last_rule(&c), SourceRule::ThreadId);
    }
}

#[test]
fn source_rules_of_the_amdgpu_model() {
    let m = parse("sources.ll", data("sources.ll"));
    let rule = |v: &str| {
        let c = chain(explain(&m, "callee", v));
        assert_eq!(c.len(), 1, "{v} is a source itself");
        last_rule(&c)
    };
    assert_eq!(rule("%flatload"), SourceRule::Load);
    assert_eq!(rule("%privload"), SourceRule::Load);
    assert_eq!(rule("%rmw"), SourceRule::Atomic);
    assert_eq!(rule("%call"), SourceRule::Call);
    assert_eq!(rule("%asm"), SourceRule::InlineAsm);
    assert_eq!(rule("%arg"), SourceRule::Argument);
    let c = chain(explain(&m, "callee", "%sum"));
    assert_eq!(last_rule(&c), SourceRule::Argument);
    assert!(matches!(
        facts(explain(&m, "callee", "%rfl"))[0],
        UniformFact::AlwaysUniform
    ));
    assert!(matches!(
        facts(explain(&m, "callee", "%sarg"))[0],
        UniformFact::UniformArgument
    ));
    assert!(matches!(
        facts(explain(&m, "callee", "%globload"))[0],
        UniformFact::NoDivergentOperand { .. }
    ));
}

#[test]
fn no_divergence_on_a_target_without_it() {
    let text = data("sync.ll").replace("amdgcn-amd-amdhsa", "x86_64-unknown-linux-gnu");
    let m = parse("sync-x86.ll", text);
    let f = facts(explain(&m, "diamond", "%tid"));
    assert_eq!(f, vec![UniformFact::NotAnalysed]);
}

// ---- the consistency property ------------------------------------------------------------------

/// Every value of every function: divergent ⇔ a chain; each chain well formed and ending at a
/// source. Returns the number of divergent values checked.
fn check_module(m: &Module, what: &str) -> usize {
    let t = target(m);
    let mut checked = 0;
    for fid in m.func_ids() {
        if m.func(fid).is_declaration {
            continue;
        }
        let a = Analysed::new(m, fid, &t);
        let ex = Explainer::new(&a);
        let f = m.func(fid);
        let nodes = (0..f.params.len() as u32)
            .map(Node::Arg)
            .chain((0..f.insts.len() as u32).map(Node::Inst));
        for n in nodes {
            let e = ex.explain(n);
            let name = m.value_name(fid, n.value());
            let ctx = || format!("{what} @{} {name} {n:?}", m.str(f.name));
            if !a.is_divergent(n) {
                assert!(matches!(e, Explanation::Uniform(_)), "{}: {e:?}", ctx());
                continue;
            }
            checked += 1;
            let Explanation::Divergent(c) = e else {
                panic!("{}: divergent but {e:?}", ctx())
            };
            assert_eq!(c[0].node, n);
            for (k, s) in c.iter().enumerate() {
                assert!(a.is_divergent(s.node), "{}: step {k} is uniform", ctx());
                check_step(&a, s, ctx);
                let premise = match &s.reason {
                    Reason::Source { .. } => {
                        assert_eq!(k + 1, c.len(), "{}: source before the end", ctx());
                        None
                    }
                    Reason::Data { operand } => Some(*operand),
                    Reason::Sync { branch, .. }
                    | Reason::Temporal { branch, .. }
                    | Reason::AssumedCycle { branch, .. } => {
                        Some(Node::Inst(a.terminator(*branch)))
                    }
                    r => panic!("{}: a precise-mode reason in llvm mode: {r:?}", ctx()),
                };
                if let Some(p) = premise {
                    assert_eq!(c.get(k + 1).map(|x| x.node), Some(p), "{}: step {k}", ctx());
                }
            }
            assert!(
                matches!(c.last().unwrap().reason, Reason::Source { .. }),
                "{}: chain does not end at a source",
                ctx()
            );
        }
    }
    checked
}

fn is_path(a: &Analysed<'_>, p: &[Block]) -> bool {
    p.windows(2).all(|w| a.lf.cfg().succs(w[0]).contains(&w[1]))
}

/// Each reason checked against the IR and the analysis result it claims.
fn check_step(a: &Analysed<'_>, s: &converge_report::Step, ctx: impl Fn() -> String) {
    let f = a.lf.func;
    let ub = a.block_of(s.node);
    match &s.reason {
        Reason::Source { .. } => {}
        Reason::Data { operand } => {
            let Node::Inst(i) = s.node else {
                panic!("{}: argument with a data reason", ctx())
            };
            assert!(a.uses(i).contains(&operand.value()), "{}", ctx());
        }
        Reason::Sync {
            branch,
            join,
            paths,
            disjoint,
        } => {
            let Node::Inst(i) = s.node else { panic!() };
            assert_eq!(
                f.insts[i as usize].op,
                converge_ir::Opcode::Phi,
                "{}",
                ctx()
            );
            assert_eq!(ub, Some(*join), "{}", ctx());
            assert!(a.u.divergent_terminators[branch.index()], "{}", ctx());
            for p in paths {
                assert!(is_path(a, p), "{}: not a path {p:?}", ctx());
                assert_eq!(
                    (p.first(), p.last()),
                    (Some(branch), Some(join)),
                    "{}",
                    ctx()
                );
            }
            let inner0 = &paths[0][1..paths[0].len() - 1];
            let meet = paths[1][1..paths[1].len() - 1]
                .iter()
                .any(|b| inner0.contains(b));
            assert!(!(meet && *disjoint), "{}: paths meet {paths:?}", ctx());
            // Without disjoint paths the join must come from an irreducible region's propagation.
            if !disjoint {
                assert!(
                    a.join_paths(*branch, *join).is_none(),
                    "{}: disjoint paths exist",
                    ctx()
                );
            }
            assert_ne!(paths[0][1], paths[1][1], "{}", ctx());
        }
        Reason::Temporal {
            operand,
            cycle,
            branch,
            exit,
            path,
        } => {
            let Node::Inst(i) = s.node else { panic!() };
            assert!(
                a.uses(i)
                    .contains(&Value::Inst(converge_ir::InstId(*operand))),
                "{}",
                ctx()
            );
            assert!(
                a.u.divergent_exit_cycles
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(
                a.s.contains(*cycle, f.insts[*operand as usize].block),
                "{}",
                ctx()
            );
            assert!(!a.s.contains(*cycle, ub.unwrap()), "{}", ctx());
            assert!(a.s.contains(*cycle, *branch), "{}", ctx());
            assert!(!a.s.contains(*cycle, *exit), "{}", ctx());
            assert!(is_path(a, path), "{}", ctx());
            assert_eq!((path.first(), path.last()), (Some(branch), Some(exit)));
        }
        Reason::AssumedCycle {
            cycle,
            branch,
            entries,
            paths,
        } => {
            assert!(
                a.u.assumed_divergent
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(a.s.contains(*cycle, ub.unwrap()), "{}", ctx());
            assert!(a.u.divergent_terminators[branch.index()], "{}", ctx());
            for e in entries {
                assert!(
                    a.s.entries(*cycle).contains(e),
                    "{}: {e:?} not an entry",
                    ctx()
                );
            }
            for p in paths {
                assert!(is_path(a, p), "{}", ctx());
                assert_eq!(p.first(), Some(branch), "{}", ctx());
            }
        }
        r => panic!("{}: a precise-mode reason in llvm mode: {r:?}", ctx()),
    }
}

#[test]
fn consistency_on_the_examples() {
    let mut n = 0;
    for f in [
        "sync.ll",
        "temporal.ll",
        "irreducible.ll",
        "sources.ll",
        "nested.ll",
    ] {
        n += check_module(&parse(f, data(f)), f);
    }
    assert!(n >= 20, "only {n} divergent values checked");
}

#[test]
fn consistency_on_random_programs() {
    use converge_gen::program::{Flavor, Options, module};
    use converge_gen::rng::Rng;
    // 2 flavours x 300 modules x 4 functions, up to 24 blocks each (every fourth module with
    // many extra edges, so irreducible cycles are common): about a second in release.
    let mut checked = 0;
    let mut kinds = std::collections::BTreeSet::new();
    let (mut overlapping, mut first_steps) = (0usize, 0usize);
    for flavor in [Flavor::Amdgpu, Flavor::Nvptx] {
        for seed in 0..300u64 {
            let mut rng = Rng::new(0x5eed_0000 + seed);
            let mut opts = Options::new(flavor);
            opts.unreachable = seed % 3 == 0;
            if seed % 4 == 1 {
                opts.extra_edges_percent = 90;
            }
            let text = module(&mut rng, 4, &opts);
            let m = parse("random.ll", text.clone());
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check_module(&m, &format!("seed {seed} {flavor:?}"))
            }));
            match r {
                Ok(k) => checked += k,
                Err(e) => {
                    eprintln!("seed {seed} ({flavor:?}) failed; module:\n{text}");
                    std::panic::resume_unwind(e);
                }
            }
            // Which reason kinds the random programs exercise (first steps).
            let t = target(&m);
            for fid in m.func_ids().filter(|&f| !m.func(f).is_declaration) {
                let a = Analysed::new(&m, fid, &t);
                let ex = Explainer::new(&a);
                for i in 0..m.func(fid).insts.len() as u32 {
                    if let Explanation::Divergent(c) = ex.explain(Node::Inst(i)) {
                        kinds.insert(c[0].reason.kind());
                        if let Reason::Sync {
                            disjoint: false, ..
                        } = c[0].reason
                        {
                            overlapping += 1;
                        }
                        first_steps += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "{checked} divergent values explained; {overlapping} of {first_steps} instruction chains start with a join that has no two disjoint paths"
    );
    assert!(checked > 500, "only {checked} divergent values");
    for k in [
        "source",
        "data",
        "sync",
        "temporal",
        "assumed-divergent-cycle",
    ] {
        assert!(
            kinds.contains(k),
            "random programs never produced a {k} step: {kinds:?}"
        );
    }
}

/// Issue 14's 1,000-block page: the join searches are bounded, not one max-flow per (divergent
/// branch, candidate join) as before. On the irreducible 1,000-block function of
/// `scripts/bench-explore.sh` (seed 1), explaining every value computes at most one join set per
/// branch and set of stop headers, and a max-flow only for the joins a chain shows.
#[test]
fn join_work_is_bounded_on_a_1000_block_function() {
    use converge_gen::program::{Flavor, Options, function, module_header};
    use converge_gen::rng::Rng;
    let mut opts = Options::new(Flavor::Amdgpu);
    opts.extra_edges_percent = 10;
    opts.min_blocks = 1000;
    opts.max_blocks = 1000;
    let mut text = module_header(opts.flavor);
    text.push_str(&function(&mut Rng::new(1), "f", &opts));
    let m = parse("i1000.ll", text);
    let fid = func(&m, "f");
    let a = Analysed::new(&m, fid, &target(&m));
    let branches = (0..a.num_blocks() as u32)
        .filter(|&b| a.is_divergent_branch(Block(b)))
        .count();
    let irreducible = (0..a.s.num_cycles() as u32).any(|c| !a.s.is_reducible(c));
    assert!(
        irreducible && branches > 100,
        "{branches} divergent branches"
    );
    let ex = Explainer::new(&a);
    let f = m.func(fid);
    let mut sync_steps = std::collections::BTreeSet::new();
    let mut divergent = 0;
    for i in 0..f.insts.len() as u32 {
        match ex.explain(Node::Inst(i)) {
            Explanation::Divergent(c) => {
                divergent += 1;
                for s in c {
                    if let Reason::Sync {
                        branch,
                        join,
                        disjoint: true,
                        ..
                    } = s.reason
                    {
                        sync_steps.insert((branch, join));
                    }
                }
            }
            Explanation::Unexplained => panic!("%{i} unexplained"),
            Explanation::Uniform(_) => {}
        }
    }
    let w = a.join_work();
    let depth = (0..a.s.num_cycles() as u32)
        .map(|c| a.s.depth(c) as usize)
        .max()
        .unwrap_or(0);
    eprintln!(
        "{divergent} divergent values, {branches} branches, depth {depth}: {w:?}, {} joins shown",
        sync_steps.len()
    );
    assert!(divergent > 500);
    // One max-flow per (branch, join) shown in a chain; uniform phis ask only the join sets.
    assert!(w.max_flows <= sync_steps.len(), "{w:?}");
    assert!(w.join_sets <= branches * (depth + 2), "{w:?}");
}

/// The source rule of an intrinsic call comes from the target's intrinsic table in the IR layer
/// (the facts the analysis and the simulator read), not from the name's spelling: thread and
/// lane ids are `ThreadId`, other per-lane intrinsics `Intrinsic`; on NVPTX, where every call is
/// a source, an AMDGPU id is only a call to an intrinsic, not an id of the NVPTX thread.
#[test]
fn intrinsic_source_rules_come_from_the_target_table() {
    let body = |triple: &str, cc: &str, calls: &[(&str, &str)]| {
        let mut s =
            format!("target triple = \"{triple}\"\ndefine {cc} void @k(ptr addrspace(1) %p) {{\n");
        for (v, callee) in calls {
            s += &format!("  %{v} = call i32 @{callee}()\n  store i32 %{v}, ptr addrspace(1) %p\n");
        }
        s += "  ret void\n}\n";
        for (_, callee) in calls {
            s += &format!("declare i32 @{callee}()\n");
        }
        s
    };
    // (triple, calling convention, [(value, callee, expected rule)]).
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str, SourceRule)]);
    let cases: [Case; 2] = [
        (
            "amdgcn-amd-amdhsa",
            "amdgpu_kernel",
            &[
                ("a", "llvm.amdgcn.workitem.id.x", SourceRule::ThreadId),
                ("b", "llvm.amdgcn.workitem.id.z", SourceRule::ThreadId),
                ("c", "llvm.amdgcn.ps.live", SourceRule::Intrinsic),
                ("d", "llvm.amdgcn.live.mask", SourceRule::Intrinsic),
            ],
        ),
        (
            "nvptx64-nvidia-cuda",
            "ptx_kernel",
            &[
                ("a", "llvm.nvvm.read.ptx.sreg.tid.x", SourceRule::ThreadId),
                ("b", "llvm.nvvm.read.ptx.sreg.laneid", SourceRule::ThreadId),
                (
                    "c",
                    "llvm.nvvm.read.ptx.sreg.lanemask.lt",
                    SourceRule::ThreadId,
                ),
                (
                    "d",
                    "llvm.nvvm.read.ptx.sreg.ctaid.x",
                    SourceRule::Intrinsic,
                ),
                ("e", "llvm.amdgcn.workitem.id.x", SourceRule::Intrinsic),
            ],
        ),
    ];
    for (triple, cc, calls) in cases {
        let names: Vec<(&str, &str)> = calls.iter().map(|&(v, c, _)| (v, c)).collect();
        let m = parse("ids.ll", body(triple, cc, &names));
        for &(v, callee, want) in calls {
            let c = chain(explain(&m, "k", &format!("%{v}")));
            assert_eq!(c.len(), 1, "{triple} {callee}: {c:?}");
            assert_eq!(last_rule(&c), want, "{triple} {callee}");
        }
    }
}

/// The source rule is the target model's own reason (`DivergenceModel::source_reason`), not a
/// guess from the instruction: AMDGPU names `llvm.amdgcn.global.load.tr` a source because it
/// loads global memory transposed across the lanes (LLVM 22's rule), so the explanation cites a
/// divergent load of address space 1, not a divergent intrinsic (which the instruction-shape
/// guess said before the model gave its reason).
#[test]
fn source_rule_is_the_models_reason() {
    let text = "target triple = \"amdgcn-amd-amdhsa\"\n\
        declare <2 x i32> @llvm.amdgcn.global.load.tr.v2i32(ptr addrspace(1))\n\
        define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n\
        entry:\n\
          %t = call <2 x i32> @llvm.amdgcn.global.load.tr.v2i32(ptr addrspace(1) %p)\n\
          ret void\n\
        }\n";
    let m = parse("tr.ll", text.to_string());
    let fid = func(&m, "k");
    let a = Analysed::new(&m, fid, &target(&m));
    let n = find_value(&m, fid, "%t").unwrap();
    let Node::Inst(i) = n else { panic!() };
    assert_eq!(
        a.source_reason(i),
        Some(converge_uniformity::SourceReason::DivergentLoad(1))
    );
    let c = chain(explain(&m, "k", "%t"));
    assert_eq!(last_rule(&c), SourceRule::Load);
    match &c[0].reason {
        Reason::Source { detail, .. } => assert!(detail.contains("address space 1"), "{detail}"),
        r => panic!("{r:?}"),
    }
}

/// Loops nested `depth` deep; the latch of loop `k` leaves it (to the latch of loop `k - 1`) when
/// the thread id equals `k`, so every latch is a divergent branch and every loop has a divergent
/// exit.
fn nested_loops(depth: usize) -> String {
    let mut s = String::from(
        "target triple = \"amdgcn-amd-amdhsa\"\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n\ndefine void @deep() {\nentry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  br label %h0\n",
    );
    for k in 0..depth {
        let next = if k + 1 < depth {
            format!("h{}", k + 1)
        } else {
            format!("l{k}")
        };
        s.push_str(&format!("h{k}:\n  br label %{next}\n"));
    }
    for k in (0..depth).rev() {
        let out = if k == 0 {
            "done".to_string()
        } else {
            format!("l{}", k - 1)
        };
        s.push_str(&format!(
            "l{k}:\n  %c{k} = icmp eq i32 %tid, {k}\n  br i1 %c{k}, label %{out}, label %h{k}\n"
        ));
    }
    s.push_str("done:\n  ret void\n}\n");
    s
}

#[test]
fn summary_lists_the_innermost_divergent_exits_up_to_its_bound() {
    use converge_report::LineIndex;
    use converge_report::render::{Ctx, MAX_EXITS};
    let depth = MAX_EXITS + 4;
    let m = parse("deep.ll", nested_loops(depth));
    let fid = func(&m, "deep");
    let a = Analysed::new(&m, fid, &target(&m));
    let lines = LineIndex::new(&m.source);
    let ctx = Ctx { a: &a, lines: &lines };
    let (_, json) = ctx.summary(&Explainer::new(&a), true);
    let (text_only, _) = ctx.summary(&Explainer::new(&a), false);
    let branches = json.divergent_branches.expect("analysed");
    assert_eq!(branches.len(), depth, "every latch is a divergent branch");
    for br in &branches {
        // The latch of loop k sits in loops 0..=k, each with a divergent exit.
        let k: usize = br.block.trim_start_matches("%l").parse().expect("a latch");
        let cycles = k + 1;
        assert_eq!(br.divergent_exits.len(), cycles.min(MAX_EXITS), "{}", br.block);
        assert_eq!(br.divergent_exits_truncated, cycles > MAX_EXITS, "{}", br.block);
        // Innermost first: the first exit leaves loop k, at depth k + 1.
        assert_eq!(br.divergent_exits[0].cycle.depth as usize, k + 1);
        assert!(br.divergent_exits.windows(2).all(|w| w[0].cycle.depth > w[1].cycle.depth));
    }
    let notes = text_only.matches("(more divergent exits").count();
    assert_eq!(notes, depth - MAX_EXITS);
    assert_eq!(
        text_only.matches("divergent exit of").count(),
        (1..=depth).map(|c| c.min(MAX_EXITS)).sum::<usize>()
    );
}
