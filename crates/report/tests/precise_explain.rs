//! Issue 10, `explain` in precise mode: every divergent value gets a chain back to a source (never
//! "unexplained"), each step's stated facts hold in the IR and the analysis result, the uniform
//! facts that claim equal incoming values are checked against the phi, and on the precise-mode
//! programs every value they list as divergent has a simulator witness that reproduces when run
//! again. Programs: `crates/uniformity/tests/precise/*.ll`, `examples/two-modes.ll`,
//! `crates/report/tests/data/precise/*.ll` (programs explain once failed on), and random programs
//! of converge-gen in precise mode.

use converge_graph::{Block, Graph};
use converge_ir::{Module, Value};
use converge_report::explain::{Analysed, Explainer, Explanation, Node, Reason, UniformFact};
use converge_report::witness;
use converge_uniformity::llvm::Target;
use converge_uniformity::{DivergenceModel, Inst, Mode, SsaFunction, Val};

fn parse(name: &str, text: String) -> Module {
    converge_ir::parse(name, text).unwrap_or_else(|e| panic!("{name}: {}", e.message))
}

fn is_path(a: &Analysed<'_>, p: &[Block]) -> bool {
    p.windows(2).all(|w| a.lf.cfg().succs(w[0]).contains(&w[1]))
}

fn incoming(a: &Analysed<'_>, i: u32) -> Vec<(Value, Block)> {
    a.lf.func.phi_incoming(converge_ir::InstId(i)).collect()
}

/// A uniform instruction's uses of uniform values from a cycle with a divergent exit that does not
/// contain it are not temporally divergent in precise mode only by rule P7, P9 or P10: the facts
/// must name the rule for each (precise mode lists every other such use as temporally
/// divergent, which would make the user divergent unless the target ignores the operand).
fn check_exempt_uses_named(
    a: &Analysed<'_>,
    n: Node,
    facts: &[UniformFact],
    ctx: &dyn Fn() -> String,
) {
    let Node::Inst(i) = n else { return };
    if a.u.always_uniform[i as usize] {
        return;
    }
    let f = a.lf.func;
    let ib = f.insts[i as usize].block;
    for v in a.uses(i) {
        let Value::Inst(d) = v else { continue };
        let d = d.0;
        if a.u.is_divergent(Val::Inst(Inst(d))) || a.u.is_temporally_divergent(Inst(d), Inst(i)) {
            continue;
        }
        let mut c = a.s.cycle_of(f.insts[d as usize].block);
        let mut crosses = false;
        while let Some(x) = c {
            if a.s.contains(x, ib) {
                break;
            }
            crosses |=
                a.u.divergent_exit_cycles
                    .contains(&converge_graph::Cycle(x));
            c = a.s.parent(x);
        }
        if !crosses {
            continue;
        }
        let named = facts.iter().any(|fact| {
            matches!(fact,
                UniformFact::UniformlyTakenExits { value, .. }
                | UniformFact::InHeartRegion { value, .. }
                | UniformFact::CycleInvariant { value, .. } if *value == Node::Inst(d))
        });
        assert!(
            named,
            "{}: the use of {} leaves a cycle with a divergent exit, but no rule is named: {facts:?}",
            ctx(),
            a.name(Node::Inst(d))
        );
    }
}

/// Checks every value of every function of `m` in precise mode; returns (divergent values,
/// steps resting on a precise rule).
fn check_module(m: &Module, what: &str) -> (usize, usize) {
    let t = Target::from_triple(m.triple.as_deref(), None);
    let (mut divergent, mut precise_steps) = (0, 0);
    for fid in m.func_ids().filter(|&f| !m.func(f).is_declaration) {
        let a = Analysed::new_with(m, fid, &t, Mode::Precise);
        let ex = Explainer::new(&a);
        let f = m.func(fid);
        let nodes = (0..f.params.len() as u32)
            .map(Node::Arg)
            .chain((0..f.insts.len() as u32).map(Node::Inst));
        for n in nodes {
            let ctx = || format!("{what} @{} {}", m.str(f.name), m.value_name(fid, n.value()));
            match ex.explain(n) {
                Explanation::Unexplained => panic!("{}: unexplained", ctx()),
                Explanation::Uniform(facts) => {
                    assert!(!a.is_divergent(n), "{}", ctx());
                    check_exempt_uses_named(&a, n, &facts, &ctx);
                    for fact in facts {
                        check_fact(&a, n, &fact, &ctx);
                    }
                }
                Explanation::Divergent(chain) => {
                    divergent += 1;
                    assert_eq!(chain[0].node, n, "{}", ctx());
                    for (k, s) in chain.iter().enumerate() {
                        assert!(a.is_divergent(s.node), "{}: step {k} uniform", ctx());
                        precise_steps += usize::from(s.reason.precise_rule().is_some());
                        check_reason(&a, s.node, &s.reason, &ctx);
                        let r = &s.reason;
                        let next = r
                            .premise_value()
                            .or_else(|| r.premise_branch().map(|b| Node::Inst(a.terminator(b))));
                        assert_eq!(
                            chain.get(k + 1).map(|x| x.node),
                            next,
                            "{}: step {k}",
                            ctx()
                        );
                    }
                }
            }
        }
    }
    (divergent, precise_steps)
}

fn check_reason(a: &Analysed<'_>, n: Node, r: &Reason, ctx: &dyn Fn() -> String) {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    let uses = |i: u32| a.uses(i);
    if let Some(b) = r.premise_branch() {
        assert!(
            a.u.divergent_terminators[b.index()],
            "{}: premise {b:?}",
            ctx()
        );
    }
    match r {
        Reason::Data { operand } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert!(uses(i).contains(&operand.value()), "{}", ctx());
        }
        Reason::LeavesAssumedCycle { operand, cycle, .. } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert!(
                uses(i).contains(&Value::Inst(converge_ir::InstId(*operand))),
                "{}",
                ctx()
            );
            assert!(
                u.assumed_divergent
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(
                u.divergent_exit_cycles
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(
                s.contains(*cycle, f.insts[*operand as usize].block),
                "{}",
                ctx()
            );
            assert!(!s.contains(*cycle, f.insts[i as usize].block), "{}", ctx());
        }
        Reason::GroupedByToken { operand, token } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert!(uses(i).contains(&operand.value()), "{}", ctx());
            assert!(a.is_divergent(*operand), "{}", ctx());
            assert_eq!(a.lf.control_token(Inst(i)), Some(Inst(*token)), "{}", ctx());
            assert!(grouped_by_token(a, *token, i), "{}", ctx());
        }
        Reason::ExitPhi { cycle, exit, .. } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert_eq!(a.block_of(n), Some(*exit), "{}", ctx());
            assert!(!s.contains(*cycle, *exit), "{}", ctx());
            assert!(
                u.divergent_exit_cycles
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            let mut vs: Vec<String> = incoming(a, i)
                .iter()
                .filter(|(_, p)| s.contains(*cycle, *p))
                .map(|(v, _)| a.module().value_name(a.fid(), *v))
                .collect();
            vs.sort();
            vs.dedup();
            assert!(
                vs.len() >= 2,
                "{}: incoming values from the cycle {vs:?}",
                ctx()
            );
        }
        Reason::BranchInAssumedCycle { operand, cycle, .. } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert!(f.insts[i as usize].op.is_terminator(), "{}", ctx());
            assert!(
                uses(i).contains(&Value::Inst(converge_ir::InstId(*operand))),
                "{}",
                ctx()
            );
            assert!(
                u.assumed_divergent
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(
                s.contains(*cycle, f.insts[*operand as usize].block),
                "{}",
                ctx()
            );
            assert!(s.contains(*cycle, f.insts[i as usize].block), "{}", ctx());
        }
        Reason::PastHeartRegion {
            operand,
            value,
            heart,
            cycle,
            branch,
            exit,
            path,
        } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert!(
                uses(i).contains(&Value::Inst(converge_ir::InstId(*operand))),
                "{}",
                ctx()
            );
            assert!(!a.is_divergent(Node::Inst(*operand)), "{}", ctx());
            assert!(
                u.divergent_exit_cycles
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(
                s.contains(*cycle, f.insts[*value as usize].block),
                "{}",
                ctx()
            );
            assert_eq!(
                a.lf.callee_name(*heart),
                Some("llvm.experimental.convergence.loop"),
                "{}",
                ctx()
            );
            assert_eq!(
                f.insts[*heart as usize].block,
                s.header(*cycle),
                "{}",
                ctx()
            );
            // No use of the heart later in the value's block.
            let ib = f.insts[i as usize].block;
            assert!(
                !a.lf
                    .users(Val::Inst(Inst(*heart)))
                    .iter()
                    .any(|&x| f.insts[x.index()].block == ib && x.0 > i),
                "{}",
                ctx()
            );
            assert!(
                s.contains(*cycle, *branch) && !s.contains(*cycle, *exit),
                "{}",
                ctx()
            );
            assert!(is_path(a, path), "{}", ctx());
        }
        Reason::OtherHierarchy { headers, blocks } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            // The analysis recorded the value under that hierarchy, ...
            assert!(
                u.other_hierarchies
                    .iter()
                    .any(|h| h.values.contains(&Inst(i))
                        && h.cycles.iter().map(|c| c.0).eq(headers.iter().copied())),
                "{}",
                ctx()
            );
            // ... which is one of the CFG's hierarchies as the simulator enumerates them (every
            // DFS order), cycles inside irreducible regions compared as (header, blocks).
            let e = converge_sim::hierarchy::enumerate(a.lf.cfg(), 1 << 14);
            let want: std::collections::BTreeSet<(Block, Vec<Block>)> = headers
                .iter()
                .copied()
                .zip(blocks.iter().cloned())
                .collect();
            assert!(
                e.hierarchies.iter().any(|h| {
                    let have: std::collections::BTreeSet<(Block, Vec<Block>)> = h
                        .cycles
                        .iter()
                        .map(|c| (c.header, c.blocks.clone()))
                        .collect();
                    want.is_subset(&have)
                }),
                "{}: not a hierarchy of the CFG",
                ctx()
            );
            assert!(!s.cycles.is_empty(), "{}", ctx());
        }
        Reason::DivergedEntry {
            operand,
            cycle,
            region,
            branch,
            join,
            paths,
        } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert!(
                uses(i).contains(&Value::Inst(converge_ir::InstId(*operand))),
                "{}",
                ctx()
            );
            // The operand is defined in the cycle, the user outside, and the cycle has a
            // divergent exit (not because it is assumed divergent: P1 by one hierarchy).
            assert!(
                s.contains(*cycle, f.insts[*operand as usize].block),
                "{}",
                ctx()
            );
            assert!(!s.contains(*cycle, f.insts[i as usize].block), "{}", ctx());
            assert!(
                u.divergent_exit_cycles
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            // The join lies in the cycle, inside an irreducible cycle around it that the
            // diverged paths enter: the branch is outside it, or neither the branch nor its
            // header dominates the join.
            assert!(s.contains(*cycle, *join), "{}", ctx());
            assert!(
                !s.is_reducible(*region) && s.contains_cycle(*region, *cycle),
                "{}",
                ctx()
            );
            assert!(
                !s.contains(*region, *branch)
                    || (!s.properly_dominates(*branch, *join)
                        && !s.properly_dominates(s.header(*region), *join)),
                "{}",
                ctx()
            );
            // Two paths from the branch to the join, from distinct successors, sharing only
            // their ends.
            for p in paths {
                assert!(is_path(a, p), "{}", ctx());
                assert_eq!(
                    (p.first(), p.last()),
                    (Some(branch), Some(join)),
                    "{}",
                    ctx()
                );
            }
            assert_ne!(paths[0].get(1), paths[1].get(1), "{}", ctx());
            let inner = |p: &Vec<Block>| p[1..p.len() - 1].to_vec();
            assert!(
                inner(&paths[0])
                    .iter()
                    .all(|x| !inner(&paths[1]).contains(x)),
                "{}",
                ctx()
            );
        }
        Reason::PastTokenRegion {
            operand,
            value,
            token,
        } => {
            let Node::Inst(i) = n else {
                panic!("{}", ctx())
            };
            assert!(
                uses(i).contains(&Value::Inst(converge_ir::InstId(*operand))),
                "{}",
                ctx()
            );
            assert!(!a.is_divergent(Node::Inst(*operand)), "{}", ctx());
            assert!(!a.is_divergent(Node::Inst(*value)), "{}", ctx());
            assert_eq!(
                a.lf.control_token(Inst(*value)),
                Some(Inst(*token)),
                "{}",
                ctx()
            );
            assert!(a.is_always_uniform(*value), "{}", ctx());
            assert!(grouped_by_token(a, *token, *value), "{}", ctx());
            // No use of the token later in the value's block.
            let ib = f.insts[i as usize].block;
            assert!(
                !a.lf
                    .users(Val::Inst(Inst(*token)))
                    .iter()
                    .any(|&x| f.insts[x.index()].block == ib && x.0 > i),
                "{}",
                ctx()
            );
        }
        Reason::Temporal { operand, cycle, .. } => {
            assert!(
                u.divergent_exit_cycles
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(
                s.contains(*cycle, f.insts[*operand as usize].block),
                "{}",
                ctx()
            );
        }
        Reason::AssumedCycle { cycle, paths, .. } => {
            assert!(
                u.assumed_divergent
                    .contains(&converge_uniformity::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(paths.iter().all(|p| is_path(a, p)), "{}", ctx());
        }
        Reason::Sync { paths, join, .. } => {
            assert_eq!(a.block_of(n), Some(*join), "{}", ctx());
            assert!(paths.iter().all(|p| is_path(a, p)), "{}", ctx());
        }
        // A chain's source is one the analysis applied in precise mode: the hooks' precise
        // variants (a `nodivergencesource` call or a generic load from a global pointer is a
        // source in llvm mode only).
        Reason::Source { .. } => match n {
            Node::Inst(i) => assert!(
                a.target
                    .is_source_inst_precise(&a.lf, converge_uniformity::Inst(i)),
                "{}",
                ctx()
            ),
            Node::Arg(x) => assert!(a.target.is_source_arg(&a.lf, x), "{}", ctx()),
        },
    }
}

/// The uniform facts that claim equal incoming values, checked against the phi.
/// Rule P6's premise: token `t` is an `anchor` or a loop heart whose chain of parent tokens ends
/// at one (a heart inherits its parent's grouping), or is defined in a cycle that does not contain
/// operation `o` (checked independently of the explainer's own test).
fn grouped_by_token(a: &Analysed<'_>, t: u32, o: u32) -> bool {
    use converge_uniformity::TokenKind;
    let (f, s) = (a.lf.func, &a.s);
    let mut k = Inst(t);
    let mut steps = 0;
    while a.lf.token_kind(k) == Some(TokenKind::Loop)
        && let Some(p) = a.lf.control_token(k)
        && steps < 256
    {
        k = p;
        steps += 1;
    }
    let anchor = a.lf.token_kind(k) != Some(TokenKind::Entry);
    let tc = s.cycle_of(f.insts[t as usize].block);
    anchor || tc.is_some_and(|c| !s.contains(c, f.insts[o as usize].block))
}

fn check_fact(a: &Analysed<'_>, n: Node, fact: &UniformFact, ctx: &dyn Fn() -> String) {
    let Node::Inst(i) = n else { return };
    let inc = incoming(a, i);
    let distinct = |sel: &dyn Fn(&(Value, Block)) -> bool, skip_undef: bool| {
        let mut vs: Vec<String> = inc
            .iter()
            .filter(|x| sel(x))
            .map(|(v, _)| a.module().value_name(a.fid(), *v))
            .filter(|v| !(skip_undef && (v == "undef" || v == "poison")))
            .collect();
        vs.sort();
        vs.dedup();
        vs
    };
    match fact {
        UniformFact::ConstantPhi { .. } => {
            let me = a.module().value_name(a.fid(), n.value());
            let vs: Vec<String> = distinct(&|_| true, true)
                .into_iter()
                .filter(|v| *v != me)
                .collect();
            assert!(
                vs.len() <= 1,
                "{}: 'every incoming value is the same' but {vs:?}",
                ctx()
            );
        }
        UniformFact::ExitPhiSameFromCycle { cycle, .. } => {
            let vs = distinct(&|(_, p)| a.s.contains(*cycle, *p), true);
            assert!(vs.len() <= 1, "{}: values from the cycle {vs:?}", ctx());
        }
        UniformFact::SameOnDivergedPaths { branch, .. } => {
            let g = a.lf.cfg();
            let mut reach = vec![false; g.num_blocks()];
            let mut st = g.succs(*branch).to_vec();
            while let Some(x) = st.pop() {
                if !std::mem::replace(&mut reach[x.index()], true) {
                    st.extend_from_slice(g.succs(x));
                }
            }
            let vs = distinct(&|(_, p)| *p == *branch || reach[p.index()], false);
            assert!(
                vs.len() <= 1,
                "{}: values on the diverged paths {vs:?}",
                ctx()
            );
        }
        UniformFact::UniformlyTakenExits { cycle, value } => {
            // P10: the use is one the analysis exempted, of a value inside a cycle with a
            // divergent exit that does not contain the user (the simulator checks the claim).
            let (Node::Inst(v), Node::Inst(i)) = (*value, n) else {
                panic!("{}: P10 fact on an argument", ctx())
            };
            assert!(
                a.u.uniform_exit_uses
                    .iter()
                    .any(|e| e.cycle.0 == *cycle && e.value == Inst(v) && e.user == Inst(i)),
                "{}: not an exempted use",
                ctx()
            );
            assert!(
                a.u.divergent_exit_cycles
                    .contains(&converge_graph::Cycle(*cycle)),
                "{}",
                ctx()
            );
            assert!(a.s.contains(*cycle, a.lf.inst_block(Inst(v))), "{}", ctx());
            assert!(!a.s.contains(*cycle, a.lf.inst_block(Inst(i))), "{}", ctx());
            assert!(!a.u.is_temporally_divergent(Inst(v), Inst(i)), "{}", ctx());
        }
        UniformFact::InHeartRegion {
            cycle,
            value,
            heart,
        } => {
            // P7: the heart is a `loop` call in the cycle's header, dominating the user; the
            // value is inside the cycle, the user outside it, and the use is not listed.
            let Node::Inst(v) = *value else {
                panic!("{}: P7 fact on an argument", ctx())
            };
            let hb = a.lf.inst_block(Inst(*heart));
            assert_eq!(hb, a.s.header(*cycle), "{}", ctx());
            assert_eq!(
                a.lf.token_kind(Inst(*heart)),
                Some(converge_uniformity::TokenKind::Loop),
                "{}",
                ctx()
            );
            assert!(a.s.dom.dominates(hb, a.lf.inst_block(Inst(i))), "{}", ctx());
            assert!(a.s.contains(*cycle, a.lf.inst_block(Inst(v))), "{}", ctx());
            assert!(!a.s.contains(*cycle, a.lf.inst_block(Inst(i))), "{}", ctx());
            assert!(!a.u.is_temporally_divergent(Inst(v), Inst(i)), "{}", ctx());
        }
        UniformFact::SharesTokenInstance {
            value,
            token,
            in_region,
        } => {
            // P6: `value` is always uniform and controlled by `token` (an anchor, or a heart),
            // whose definition dominates this instruction; the region claim is the analysis's.
            let (v, t) = (Inst(*value), Inst(*token));
            assert!(a.u.always_uniform[*value as usize], "{}", ctx());
            assert_eq!(a.lf.control_token(v), Some(t), "{}", ctx());
            assert!(
                matches!(
                    a.lf.token_kind(t),
                    Some(
                        converge_uniformity::TokenKind::Anchor
                            | converge_uniformity::TokenKind::Loop
                    )
                ),
                "{}",
                ctx()
            );
            assert!(
                a.s.dom
                    .dominates(a.lf.inst_block(t), a.lf.inst_block(Inst(i))),
                "{}",
                ctx()
            );
            assert_eq!(
                *in_region,
                converge_uniformity::precise::in_region(&a.lf, &a.s, t, Inst(i)),
                "{}",
                ctx()
            );
        }
        UniformFact::CycleInvariant { cycle, value } => {
            // P9: not a phi, load or call, and every operand defined outside the cycle or
            // earlier in the value's block (itself judged the same way).
            let Node::Inst(v) = *value else {
                panic!("{}: P9 fact on an argument", ctx())
            };
            let mut todo = vec![v];
            while let Some(x) = todo.pop() {
                let op = a.lf.func.insts[x as usize].op;
                assert!(
                    !matches!(
                        op,
                        converge_ir::Opcode::Phi
                            | converge_ir::Opcode::Load
                            | converge_ir::Opcode::Call
                    ),
                    "{}: invariant claimed for a {op:?}",
                    ctx()
                );
                for o in a.uses(x) {
                    let Value::Inst(d) = o else { continue };
                    let db = a.lf.func.insts[d.0 as usize].block;
                    if a.s.contains(*cycle, db) {
                        assert_eq!(db, a.lf.func.insts[x as usize].block, "{}", ctx());
                        assert!(d.0 < x, "{}", ctx());
                        todo.push(d.0);
                    }
                }
            }
        }
        _ => {}
    }
}

/// P6 (seed 004, `llvm.experimental.convergence.anchor`: the group is implementation-defined):
/// `%by.anchor` is divergent in precise mode; the simulator groups an anchor maximally, so no
/// witness is expected.
const ANCHOR: &str = r#"
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
define amdgpu_kernel void @f() convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = call token @llvm.experimental.convergence.anchor()
  %by.anchor = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %a) ]
  %by.entry = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid) [ "convergencectrl"(token %e) ]
  ret void
}
"#;

fn precise_programs() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut out = Vec::new();
    let mut names = Vec::new();
    for dir in [
        format!("{root}/crates/uniformity/tests/precise"),
        format!("{root}/crates/report/tests/data/precise"),
    ] {
        let mut ll: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ll"))
            .collect();
        ll.sort();
        names.extend(ll);
    }
    names.push(format!("{root}/examples/two-modes.ll").into());
    for p in names {
        out.push((
            p.display().to_string(),
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
    out.push(("anchor.ll".to_string(), ANCHOR.to_string()));
    out
}

#[test]
fn precise_programs_are_explained_and_witnessed() {
    let mut precise_steps = 0;
    let mut witnessed = 0;
    let mut split = 0;
    for (name, text) in precise_programs() {
        let m = parse(&name, text.clone());
        precise_steps += check_module(&m, &name).1;
        // Each value the program lists as divergent has a witness that reproduces.
        for line in text.lines().filter(|l| l.starts_with("; DIVERGENT:")) {
            for v in line["; DIVERGENT:".len()..].split_whitespace() {
                let (fid, node) = m
                    .func_ids()
                    .filter(|&f| !m.func(f).is_declaration)
                    .find_map(|f| converge_report::explain::find_value(&m, f, v).map(|n| (f, n)))
                    .unwrap_or_else(|| panic!("{name}: no {v}"));
                let Node::Inst(i) = node else { continue };
                let w = witness::find(&m, fid, i)
                    .unwrap_or_else(|| panic!("{name} {v}: no witness within the bounds"));
                assert!(
                    witness::replay(&m, fid, i, &w),
                    "{name} {v}: {w:?} does not reproduce"
                );
                witnessed += 1;
                // A divergence past an anchor's region (rule P6) shows only when the
                // implementation splits the anchor's group.
                split += usize::from(w.anchor_groups > 1);
            }
        }
    }
    assert!(precise_steps >= 4, "{precise_steps} steps on precise rules");
    assert!(witnessed >= 5, "{witnessed} witnesses");
    assert!(split >= 2, "{split} witnesses with split anchor groups");
}

#[test]
fn random_programs_in_precise_mode_are_explained() {
    use converge_gen::program::{Flavor, Options, module};
    use converge_gen::rng::Rng;
    // 2 flavours x 150 modules x 4 functions (every fourth with many extra edges: irreducible
    // regions, cycles assumed divergent); `CONVERGE_PRECISE_EXPLAIN_CASES=N` for N per flavour.
    let cases: u64 = std::env::var("CONVERGE_PRECISE_EXPLAIN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let mut divergent = 0;
    for flavor in [Flavor::Amdgpu, Flavor::Nvptx] {
        for seed in 0..cases {
            let mut rng = Rng::new(0x9ec1_0000 + seed);
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
                Ok((d, _)) => divergent += d,
                Err(e) => {
                    eprintln!("seed {seed} ({flavor:?}) failed; module:\n{text}");
                    std::panic::resume_unwind(e);
                }
            }
        }
    }
    eprintln!(
        "{} modules, {divergent} divergent values explained",
        2 * cases
    );
    assert!(
        divergent as u64 > 2 * cases,
        "only {divergent} divergent values"
    );
}

/// LLVM's lit test `AMDGPU/addrspacecast.ll` (DIV prefix, gfx1250): a private-to-flat cast, as
/// the instruction or as `llvm.amdgcn.addrspacecast.nonnull`, is divergent. Precise mode applies
/// that newer rule, so its explanation is a source of its own (it was "unexplained" when the
/// explanation asked the llvm-mode hook).
#[test]
fn scratch_to_flat_casts_are_sources_in_precise_mode() {
    let text = r#"target triple = "amdgcn-amd-amdhsa"
define void @foo() #0 {
  %alloca = alloca i32, addrspace(5)
  %cast = addrspacecast ptr addrspace(5) %alloca to ptr
  store i32 1, ptr %cast
  %cast.1 = call ptr @llvm.amdgcn.addrspacecast.nonnull.p0.p5(ptr addrspace(5) %alloca)
  store i32 2, ptr %cast.1
  ret void
}
declare ptr @llvm.amdgcn.addrspacecast.nonnull.p0.p5(ptr addrspace(5))
attributes #0 = { "target-cpu"="gfx1250" }
"#;
    let m = parse("addrspacecast.ll", text.to_string());
    let fid = m.function_by_name("foo").unwrap();
    let t = Target::from_triple(m.triple.as_deref(), None);
    let a = Analysed::new_with(&m, fid, &t, Mode::Precise);
    let ex = Explainer::new(&a);
    for v in ["%cast", "%cast.1"] {
        let n = converge_report::explain::find_value(&m, fid, v).unwrap();
        match ex.explain(n) {
            Explanation::Divergent(c) => {
                assert_eq!(c.len(), 1, "{v}: {c:?}");
                assert!(
                    matches!(
                        c[0].reason,
                        Reason::Source {
                            rule: converge_report::SourceRule::ScratchAddress,
                            ..
                        }
                    ),
                    "{v}: {c:?}"
                );
            }
            other => panic!("{v}: {other:?}"),
        }
    }
    check_module(&m, "addrspacecast.ll");
}

/// Rule P10: a use after a loop's uniformly-taken exit is explained by that rule, naming the
/// operand from the loop and the loop (`uniform_exit_after_break.ll`: `%o2` reads `%i.next`,
/// `%o2b` reads `%i`, both reached only through the latch's uniform exit).
#[test]
fn uniformly_taken_exits_are_the_stated_reason() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let name = format!("{root}/crates/uniformity/tests/precise/uniform_exit_after_break.ll");
    let m = parse(&name, std::fs::read_to_string(&name).unwrap());
    let fid = m.func_ids().find(|&f| !m.func(f).is_declaration).unwrap();
    let a = Analysed::new_with(
        &m,
        fid,
        &Target::from_triple(m.triple.as_deref(), None),
        Mode::Precise,
    );
    let ex = Explainer::new(&a);
    for (user, value) in [("%o2", "%i.next"), ("%o2b", "%i")] {
        let n = converge_report::explain::find_value(&m, fid, user).unwrap();
        let v = converge_report::explain::find_value(&m, fid, value).unwrap();
        let Explanation::Uniform(facts) = ex.explain(n) else {
            panic!("{user} not uniform")
        };
        assert!(
            facts.iter().any(
                |f| matches!(f, UniformFact::UniformlyTakenExits { value, .. } if *value == v)
            ),
            "{user}: {facts:?}"
        );
        for f in &facts {
            check_fact(&a, n, f, &|| user.to_string());
        }
    }
}

/// Rule P1 by one hierarchy's joins: `%u` uses `%r` (always uniform) outside the irreducible
/// cycle that the branch in `%entry` enters on diverged paths; the stated reason is that
/// diverged entry, with the join and two paths from the branch (its facts are checked by
/// `check_reason`).
#[test]
fn diverged_entry_is_the_stated_reason() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let name =
        format!("{root}/crates/uniformity/tests/precise/always_uniform_leaving_assumed_cycle.ll");
    let m = parse(&name, std::fs::read_to_string(&name).unwrap());
    let fid = m.func_ids().find(|&f| !m.func(f).is_declaration).unwrap();
    let a = Analysed::new_with(
        &m,
        fid,
        &Target::from_triple(m.triple.as_deref(), None),
        Mode::Precise,
    );
    let ex = Explainer::new(&a);
    let n = converge_report::explain::find_value(&m, fid, "%u").unwrap();
    let r = converge_report::explain::find_value(&m, fid, "%r").unwrap();
    let Explanation::Divergent(chain) = ex.explain(n) else {
        panic!("%u not divergent")
    };
    let entry = Block(0);
    assert!(
        matches!(&chain[0].reason, Reason::DivergedEntry { operand, branch, .. }
            if Node::Inst(*operand) == r && *branch == entry),
        "{:?}",
        chain[0].reason
    );
    check_reason(&a, n, &chain[0].reason, &|| "%u".to_string());
}

/// Rule P6 stated as a uniform fact: inside an anchor's region (`anchor_region.ll` `%y`), and past
/// a loop heart's region but in its cycle under its parent anchor (the seed-14 program, `%t14`).
#[test]
fn token_bound_values_name_the_shared_instance() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    for (file, value, want_in_region) in [
        (
            "crates/uniformity/tests/precise/anchor_region.ll",
            "%y",
            true,
        ),
        (
            "crates/report/tests/data/precise/heart_under_anchor_past_region.ll",
            "%t14",
            false,
        ),
    ] {
        let path = format!("{root}/{file}");
        let m = parse(&path, std::fs::read_to_string(&path).unwrap());
        let (fid, node) = m
            .func_ids()
            .filter(|&f| !m.func(f).is_declaration)
            .find_map(|f| converge_report::explain::find_value(&m, f, value).map(|n| (f, n)))
            .unwrap();
        let a = Analysed::new_with(
            &m,
            fid,
            &Target::from_triple(m.triple.as_deref(), None),
            Mode::Precise,
        );
        let Explanation::Uniform(facts) = Explainer::new(&a).explain(node) else {
            panic!("{file} {value}: not uniform")
        };
        assert!(
            facts.iter().any(|f| matches!(f,
                UniformFact::SharesTokenInstance { in_region, .. } if *in_region == want_in_region)),
            "{file} {value}: {facts:?}"
        );
        for f in &facts {
            check_fact(&a, node, f, &|| format!("{file} {value}"));
        }
    }
}
