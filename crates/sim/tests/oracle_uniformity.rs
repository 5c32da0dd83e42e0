//! The simulator as an oracle for uniformity claims, on the programs that pin the documented LLVM
//! bugs (docs/llvm-differences.md 1-3 and 11): the analysis (llvm mode) calls a value uniform, the
//! simulator shows converged instances that differ, and LLVM itself (live) agrees or disagrees as
//! documented. A self-test shows the check is not vacuous.
//!
//! The random-program oracle lives in crates/oracle (`oracle_random.rs`, the legacy generator's
//! share included): there every violation is classified by the documented patterns, and none is
//! excused by what an LLVM binary says.

use converge_gen::program::{self, Flavor};
use converge_gen::rng::Rng;
use converge_ir::{InstId, Module, Opcode, Type};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, check_groups, inst_name, value_uniformity};
use converge_uniformity::llvm::{LlvmFunction, Target as UTarget};
use converge_uniformity::{Inst, SsaFunction, Structure, Val, analyze};

/// Successor orders tried per CFG (`--enumeration-cap` of `converge simulate`).
const ENUMERATION_CAP: u64 = 256;

/// One violation: the instruction the analysis calls uniform, under which hierarchy.
#[derive(Clone, Debug)]
struct Violation {
    inst: String,
    hierarchy: usize,
}

/// Runs the oracle on one module text (its first defined function) with `threads` threads and
/// argument seed `seed`. Returns the violations, or `None` if the text does not parse.
fn check(text: &str, threads: u32, seed: u64) -> Option<Vec<Violation>> {
    check_with(text, threads, seed, false)
}

/// [`check`]; with `trust_all`, every value counts as claimed uniform (the oracle's self-test).
fn check_with(text: &str, threads: u32, seed: u64, trust_all: bool) -> Option<Vec<Violation>> {
    let m: Module = converge_ir::parse("oracle.ll", text.to_string()).ok()?;
    let fi = m.functions.iter().position(|f| !f.is_declaration)?;
    let f = &m.functions[fi];
    let lf = LlvmFunction::new(&m, converge_ir::FuncId(fi as u32));
    let ut = UTarget::from_triple(m.triple.as_deref(), None);
    let s = Structure::new(lf.cfg());
    let u = analyze(&lf, &ut, &s);
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(&m, f, target);
    let e = enumerate(&prog.cfg, ENUMERATION_CAP);
    let mut rng = Rng::new(seed);
    let args: Vec<Option<ArgValue>> = f
        .params
        .iter()
        .map(|p| match m.types.types[p.ty.0 as usize] {
            Type::Int(_) => Some(ArgValue::Int(rng.below(9) as i128 - 2)),
            _ => None,
        })
        .collect();
    let opts = Options {
        threads,
        args,
        seed,
        step_limit: 4_000,
        target,
        ..Options::default()
    };
    let mut out = Vec::new();
    for (k, h) in e.hierarchies.iter().enumerate() {
        let r = run(&prog, h, &opts);
        if let Err(e) = check_groups(&r) {
            panic!("seed {seed}, hierarchy [{k}]: the scheduler broke a group: {e}\n{text}");
        }
        for (i, v) in value_uniformity(&r, f.insts.len()) {
            let Verdict::Divergent { .. } = v else {
                continue;
            };
            if !trust_all && (u.is_divergent(Val::Inst(Inst(i.0))) || !u.analysed) {
                continue;
            }
            if f.insts[i.0 as usize].op == Opcode::Store {
                continue;
            }
            out.push(Violation {
                inst: inst_name(&m, f, InstId(i.0)),
                hierarchy: k,
            });
        }
    }
    Some(out)
}

/// What LLVM says about `inst` in `text`: Some(true) if `opt` reports it divergent.
fn llvm_says_divergent(opt: &std::path::Path, text: &str, inst: &str) -> Option<bool> {
    let out = converge_gen::reference::run_opt(
        opt,
        &["-passes=print<uniformity>", "-disable-output"],
        text,
    );
    let err = out.stderr;
    if !err.contains("UniformityInfo") {
        return None;
    }
    Some(
        err.lines()
            .any(|l| l.trim_start().starts_with("DIVERGENT:") && l.contains(&format!("{inst} ="))),
    )
}

fn env_u64(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

fn case_text(seed: u64) -> (String, u32) {
    let mut rng = Rng::new(seed);
    let flavor = if rng.chance(1, 4) {
        Flavor::Nvptx
    } else {
        Flavor::Amdgpu
    };
    let mut o = program::Options::new(flavor);
    o.max_blocks = env_u64("CONVERGE_ORACLE_BLOCKS", 9).max(3) as usize;
    o.max_insts = 4;
    let text = program::module_header(flavor) + &program::function(&mut rng, "f", &o);
    let threads = 2 + rng.below(7) as u32;
    (text, threads)
}

/// The oracle is not vacuous: with every value claimed uniform, it finds violations on programs
/// whose branches depend on the thread id.
#[test]
fn oracle_catches_false_uniform_claims() {
    let mut found = 0;
    for seed in 1..40 {
        let (text, threads) = case_text(seed);
        if check_with(&text, threads, seed, true).is_some_and(|v| !v.is_empty()) {
            found += 1;
        }
    }
    assert!(found >= 10, "only {found} of 39 programs show divergence");
}

/// The minimal program of docs/llvm-differences.md (1): LLVM 22 calls %phi uniform, LLVM 19
/// divergent; under the hierarchy with header b4 the simulator shows converged instances of %phi
/// with different values.
const LLVM22_HEADER_JOIN: &str = r#"target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @f(i1 %u, ptr %q) {
entry:
  br i1 %u, label %b4, label %b2
b2:
  br label %b4
b4:
  %phi = phi i32 [ 2, %b4 ], [ 0, %b2 ], [ 1, %entry ]
  %x = load i32, ptr %q
  %c = icmp slt i32 %x, 0
  br i1 %c, label %b2, label %b4
}
"#;

#[test]
fn llvm22_misses_a_join_at_the_header_of_a_child_cycle() {
    // Our analysis reproduces LLVM 22: %phi uniform.
    let m = converge_ir::parse("min.ll", LLVM22_HEADER_JOIN.to_string()).unwrap();
    let f = &m.functions[0];
    let lf = LlvmFunction::new(&m, converge_ir::FuncId(0));
    let u = analyze(
        &lf,
        &UTarget::from_triple(m.triple.as_deref(), None),
        &Structure::new(lf.cfg()),
    );
    let phi = f.insts.iter().position(|i| i.op == Opcode::Phi).unwrap() as u32;
    assert!(!u.is_divergent(Val::Inst(Inst(phi))));
    // The simulator: some hierarchy has converged instances of %phi with different values. The
    // flat load through %q gives per-thread values, so the branch in b4 is divergent.
    let text = LLVM22_HEADER_JOIN.replace("ptr %q", "ptr addrspace(0) %q");
    let v = check_with(&text, 4, 3, false).expect("parses");
    assert!(v.iter().any(|x| x.inst == "%phi"), "{v:?}");
    // LLVM itself, live.
    if let Some(opt) = converge_gen::reference::opt22("llvm22 header join") {
        assert_eq!(
            llvm_says_divergent(&opt, LLVM22_HEADER_JOIN, "%phi"),
            Some(false)
        );
    }
    if let Some(opt) = converge_gen::reference::opt19("llvm22 header join") {
        assert_eq!(
            llvm_says_divergent(&opt, LLVM22_HEADER_JOIN, "%phi"),
            Some(true)
        );
    }
}

/// docs/llvm-differences.md (2), the notes' known bug 3: an exit phi with constant incomings whose
/// collision happens through the header's exit edge. LLVM 19 and 22 call %ph uniform; so do we.
const EXIT_PHI_CONSTANTS: &str = r#"target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @f(i32 %n, ptr %q) {
entry:
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %B ], [ %i.next2, %C ]
  %odd = and i32 %i, 1
  %h = icmp eq i32 %odd, 0
  br i1 %h, label %A, label %C
A:
  %x = load i32, ptr %q
  %div = icmp slt i32 %x, 0
  br i1 %div, label %X, label %B
B:
  %i.next = add i32 %i, 1
  br label %H
C:
  %i.next2 = add i32 %i, 1
  %u = icmp slt i32 %i.next2, %n
  br i1 %u, label %H, label %X
X:
  %ph = phi i32 [ 1, %A ], [ 2, %C ]
  ret void
}
"#;

#[test]
fn llvm_misses_an_exit_phi_with_constant_incomings() {
    let m = converge_ir::parse("exit.ll", EXIT_PHI_CONSTANTS.to_string()).unwrap();
    let f = &m.functions[0];
    let lf = LlvmFunction::new(&m, converge_ir::FuncId(0));
    let u = analyze(
        &lf,
        &UTarget::from_triple(m.triple.as_deref(), None),
        &Structure::new(lf.cfg()),
    );
    let ph = f.insts.iter().rposition(|i| i.op == Opcode::Phi).unwrap() as u32;
    assert!(!u.is_divergent(Val::Inst(Inst(ph))));
    // Threads leaving through A (first iteration, divergent load) and through C (second
    // iteration, uniform) meet at X with 1 and 2: some thread count and seed shows it.
    let v = (2..9)
        .flat_map(|t| (0..8).map(move |s| (t, s)))
        .find_map(|(t, s)| {
            check(EXIT_PHI_CONSTANTS, t, s).and_then(|v| v.into_iter().find(|x| x.inst == "%ph"))
        });
    assert!(v.is_some(), "no execution shows %ph divergent");
    for (tool, opt) in [
        ("22", converge_gen::reference::opt22("exit phi constants")),
        ("19", converge_gen::reference::opt19("exit phi constants")),
    ] {
        if let Some(opt) = opt {
            assert_eq!(
                llvm_says_divergent(&opt, EXIT_PHI_CONSTANTS, "%ph"),
                Some(false),
                "LLVM {tool}"
            );
        }
    }
}

/// docs/llvm-differences.md (3): an always-uniform value (readfirstlane) defined in a cycle that
/// is assumed divergent; its user outside the cycle is not marked (LLVM 19; LLVM 22 here has no
/// AMDGPU backend). Under LLVM's own hierarchy the simulator shows the user divergent.
const ALWAYS_UNIFORM_IN_ASSUMED_DIVERGENT_CYCLE: &str = r#"target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define amdgpu_kernel void @f(i1 %again) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %A, label %B
A:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %tid)
  br i1 %again, label %B, label %X
B:
  br label %A
X:
  %u = add i32 %r, 0
  ret void
}
"#;

#[test]
fn always_uniform_value_leaving_an_assumed_divergent_cycle() {
    let text = ALWAYS_UNIFORM_IN_ASSUMED_DIVERGENT_CYCLE;
    let m = converge_ir::parse("au.ll", text.to_string()).unwrap();
    let fi = m.functions.iter().position(|f| !f.is_declaration).unwrap();
    let f = &m.functions[fi];
    let lf = LlvmFunction::new(&m, converge_ir::FuncId(fi as u32));
    let u = analyze(
        &lf,
        &UTarget::from_triple(m.triple.as_deref(), None),
        &Structure::new(lf.cfg()),
    );
    let add = f.insts.iter().position(|i| i.op == Opcode::Add).unwrap() as u32;
    assert!(!u.is_divergent(Val::Inst(Inst(add))));
    // Seeds whose random `%again` is false leave the cycle at once.
    let hit = (0..16)
        .find_map(|s| check(text, 4, s).and_then(|v| v.into_iter().find(|x| x.inst == "%u")))
        .expect("%u divergent for some input");
    assert_eq!(hit.hierarchy, 0, "already under LLVM's own hierarchy");
    if let Some(opt) = converge_gen::reference::opt19("always-uniform in assumed-divergent cycle") {
        assert_eq!(llvm_says_divergent(&opt, text, "%u"), Some(false));
    }
}

/// docs/llvm-differences.md (11): a loop whose header ends in a divergent branch, one successor
/// going round again (`%A`) and the other reaching a uniform exit (`%B`). Threads reach `%B` in
/// different iterations and leave there, but LLVM 19 and 22 find no divergent exit: the label of
/// the threads that went round comes back to the branch block, which LLVM never propagates. `%c`
/// is loaded from memory the loop itself increments, so each iteration reads another value:
/// LLVM calls `%c` and `%use` uniform, the simulator shows `%use` differing on converged threads.
/// Precise mode follows the header's label to the exits (`sync.rs`, `header_exits`).
const HEADER_BRANCH_EXIT: &str = r#"target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @f(i32 %n, ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %A ], [ %i.next, %B ]
  %i.next = add i32 %i, 1
  %again = icmp ult i32 %i, %tid
  br i1 %again, label %A, label %B
A:
  br label %H
B:
  %c = load i32, ptr addrspace(1) %p, align 4
  %c1 = add i32 %c, 1
  store i32 %c1, ptr addrspace(1) %p, align 4
  %go = icmp sgt i32 %n, -100
  br i1 %go, label %X, label %H
X:
  %use = add i32 %c, 0
  ret void
}
"#;

#[test]
fn llvm_misses_the_divergent_exit_of_a_header_branch() {
    let m = converge_ir::parse("header.ll", HEADER_BRANCH_EXIT.to_string()).unwrap();
    let fi = m.functions.iter().position(|f| !f.is_declaration).unwrap();
    let lf = LlvmFunction::new(&m, converge_ir::FuncId(fi as u32));
    let t = UTarget::from_triple(m.triple.as_deref(), None);
    let s = Structure::new(lf.cfg());
    let find = |name: &str| {
        let f = &m.functions[fi];
        (0..f.insts.len() as u32)
            .find(|&i| inst_name(&m, f, InstId(i)) == name)
            .unwrap()
    };
    let (c, use_) = (find("%c"), find("%use"));
    // llvm mode reproduces LLVM: no cycle with a divergent exit, `%use` uniform.
    let u = analyze(&lf, &t, &s);
    assert!(u.divergent_exit_cycles.is_empty());
    assert!(!u.is_divergent(Val::Inst(Inst(use_))));
    // Precise mode: the cycle has a divergent exit and `%use` is temporally divergent.
    let p = converge_uniformity::analyze_with(&lf, &t, &s, converge_uniformity::Mode::Precise);
    assert!(p.is_divergent(Val::Inst(Inst(use_))));
    assert!(p.is_temporally_divergent(Inst(c), Inst(use_)));
    // The simulator: threads leave through B in different iterations, with different `%c`.
    let v = (2..9)
        .flat_map(|t| (0..8).map(move |s| (t, s)))
        .find_map(|(t, s)| {
            check(HEADER_BRANCH_EXIT, t, s).and_then(|v| v.into_iter().find(|x| x.inst == "%use"))
        });
    assert!(v.is_some(), "no execution shows %use divergent");
    for (tool, opt) in [
        ("22", converge_gen::reference::opt22("header branch exit")),
        ("19", converge_gen::reference::opt19("header branch exit")),
    ] {
        if let Some(opt) = opt {
            assert_eq!(
                llvm_says_divergent(&opt, HEADER_BRANCH_EXIT, "%use"),
                Some(false),
                "LLVM {tool}"
            );
            assert_eq!(
                llvm_says_divergent(&opt, HEADER_BRANCH_EXIT, "%c"),
                Some(false),
                "LLVM {tool}"
            );
        }
    }
}
