//! Every rule has a failing and a passing example. Each pair differs by one placement; the failing
//! one must report the rule (and nothing for the passing one). When LLVM 22's `opt` is available, the
//! same pair is checked live against it: LLVM prints the rule's message for the failing example and
//! accepts the passing one. Also: all errors of a function are collected, and the cycle rules carry a
//! witness closed path.

mod common;

use common::*;
use converge_graph::{Block, Graph};
use converge_verify::Rule;
use converge_verify::llvm::{self, Flavor};

const DECLS: &str = "\
declare void @f() convergent
declare void @g()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
";

/// (rule, failing function, passing function)
fn examples() -> Vec<(Rule, &'static str, &'static str)> {
    vec![
        (
            Rule::BundleOnce,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %a), "convergencectrl"(token %a) ]
  ret void
}"#,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %a) ]
  ret void
}"#,
        ),
        (
            Rule::BundleOneToken,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %a, token %b) ]
  ret void
}"#,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %b) ]
  ret void
}"#,
        ),
        (
            Rule::TokenSource,
            r#"define void @t() {
  call void @f() [ "convergencectrl"(token none) ]
  ret void
}"#,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %a) ]
  ret void
}"#,
        ),
        (
            Rule::EntryInConvergentFunction,
            r#"define void @t() {
  %e = call token @llvm.experimental.convergence.entry()
  ret void
}"#,
            r#"define void @t() convergent {
  %e = call token @llvm.experimental.convergence.entry()
  ret void
}"#,
        ),
        (
            Rule::EntryInEntryBlock,
            r#"define void @t() convergent {
a:
  br label %b
b:
  %e = call token @llvm.experimental.convergence.entry()
  ret void
}"#,
            r#"define void @t() convergent {
a:
  %e = call token @llvm.experimental.convergence.entry()
  br label %b
b:
  ret void
}"#,
        ),
        (
            Rule::EntryFirst,
            r#"define void @t() convergent {
  %a = call token @llvm.experimental.convergence.anchor()
  %e = call token @llvm.experimental.convergence.entry()
  ret void
}"#,
            r#"define void @t() convergent {
  %e = call token @llvm.experimental.convergence.entry()
  %a = call token @llvm.experimental.convergence.anchor()
  ret void
}"#,
        ),
        (
            Rule::NoOperandOnEntryOrAnchor,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor() [ "convergencectrl"(token %a) ]
  ret void
}"#,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  ret void
}"#,
        ),
        (
            Rule::LoopNeedsOperand,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop()
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
        ),
        (
            Rule::LoopFirst,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  call void @f() [ "convergencectrl"(token %e) ]
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  call void @f() [ "convergencectrl"(token %l) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
        ),
        (
            Rule::UseByConvergentOnly,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @g() [ "convergencectrl"(token %a) ]
  ret void
}"#,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @g() convergent [ "convergencectrl"(token %a) ]
  ret void
}"#,
        ),
        (
            Rule::NoMixing,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %a) ]
  call void @f()
  ret void
}"#,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %a) ]
  call void @f() [ "convergencectrl"(token %a) ]
  ret void
}"#,
        ),
        (
            Rule::Dominance,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %then, label %join
then:
  %a = call token @llvm.experimental.convergence.anchor()
  br label %join
join:
  call void @f() [ "convergencectrl"(token %a) ]
  ret void
}"#,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %a = call token @llvm.experimental.convergence.anchor()
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  call void @f() [ "convergencectrl"(token %a) ]
  ret void
}"#,
        ),
        (
            Rule::WellNested,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %a) ]
  call void @f() [ "convergencectrl"(token %b) ]
  ret void
}"#,
            r#"define void @t() {
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor()
  call void @f() [ "convergencectrl"(token %b) ]
  call void @f() [ "convergencectrl"(token %a) ]
  ret void
}"#,
        ),
        (
            Rule::CycleUseByHeartOnly,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  call void @f() [ "convergencectrl"(token %e) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  call void @f() [ "convergencectrl"(token %l) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
        ),
        (
            Rule::HeartInHeader,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  br label %body
body:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  br label %body
body:
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
        ),
        (
            Rule::OneHeartPerCycle,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %l2 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
            r#"define void @t(i1 %c) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  call void @f() [ "convergencectrl"(token %l) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
        ),
        (
            Rule::TokenReturnNotIntrinsic,
            "declare token @produce()",
            "declare i32 @produce()",
        ),
        (
            Rule::TokenParamNotIntrinsic,
            "declare void @consume(token)",
            "declare void @consume(i32)",
        ),
    ]
}

fn module(f: &str) -> String {
    format!("{DECLS}\n{f}\n")
}

/// The flavor an example is checked in: D10 exists only in LLVM 19 (LLVM 22 dropped it).
fn flavor_for(rule: Rule) -> Flavor {
    if rule == Rule::UseByConvergentOnly {
        Flavor::Llvm19
    } else {
        Flavor::Llvm22
    }
}

#[test]
fn every_rule_has_a_failing_and_a_passing_example() {
    let ex = examples();
    for r in Rule::ALL {
        assert!(ex.iter().any(|e| e.0 == r), "no example for {}", r.id());
    }
    for (rule, bad, good) in &ex {
        let (_, f) = converge_findings(&module(bad), flavor_for(*rule));
        assert!(
            f.iter().any(|x| x.rule == *rule),
            "{}: failing example not reported; got {:?}",
            rule.id(),
            f.iter().map(|x| x.rule.id()).collect::<Vec<_>>()
        );
        let (_, f) = converge_findings(&module(good), flavor_for(*rule));
        assert!(
            f.is_empty(),
            "{}: passing example reported {:?}",
            rule.id(),
            f.iter().map(|x| x.rule.id()).collect::<Vec<_>>()
        );
    }
}

/// LLVM 22 accepts a token on a non-convergent call (it dropped D10); so does converge by default.
#[test]
fn token_on_non_convergent_call_is_accepted_by_default() {
    let (rule, bad, _) = examples()
        .into_iter()
        .find(|e| e.0 == Rule::UseByConvergentOnly)
        .unwrap();
    let (_, f) = converge_findings(&module(bad), Flavor::Llvm22);
    assert!(f.is_empty(), "{}: {f:?}", rule.id());
}

fn examples_agree(opt: &std::path::Path, flavor: Flavor) {
    for (rule, bad, good) in examples() {
        let (ours, _) = {
            let (_, f) = converge_findings(&module(bad), flavor);
            (f.iter().map(|x| x.rule).collect::<Vec<_>>(), ())
        };
        let (ok, report) = llvm_verify(opt, &module(bad));
        let theirs: Vec<Rule> = report.iter().filter_map(|m| m.rule()).collect();
        assert_eq!(
            ok,
            ours.is_empty(),
            "{}: verdicts differ: LLVM {report:?}, converge {ours:?}",
            rule.id()
        );
        assert_eq!(theirs, ours, "{}: rules differ", rule.id());
        if flavor_for(rule) == flavor {
            assert!(ours.contains(&rule), "{}: not reported", rule.id());
        }
        let (ok, report) = llvm_verify(opt, &module(good));
        assert!(
            ok,
            "{}: LLVM rejects the passing example: {report:?}",
            rule.id()
        );
    }
}

#[test]
fn examples_agree_with_llvm22() {
    let Some(opt) = converge_gen::reference::opt22("examples_agree_with_llvm22") else {
        return;
    };
    examples_agree(&opt, Flavor::Llvm22);
}

#[test]
fn examples_agree_with_llvm19() {
    let Some(opt) = converge_gen::reference::opt19("examples_agree_with_llvm19") else {
        return;
    };
    examples_agree(&opt, Flavor::Llvm19);
}

#[test]
fn all_errors_of_a_function_are_collected() {
    // Three independent problems in one function.
    let text = module(
        r#"define void @t(i1 %c) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call token @llvm.experimental.convergence.anchor() [ "convergencectrl"(token %a) ]
  call void @g() [ "convergencectrl"(token %a) ]
  br label %h
h:
  call void @f() [ "convergencectrl"(token %a) ]
  br i1 %c, label %h, label %x
x:
  ret void
}"#,
    );
    let rules = |flavor| {
        let (_, f) = converge_findings(&text, flavor);
        f.iter().map(|x| x.rule).collect::<Vec<_>>()
    };
    assert_eq!(
        rules(Flavor::Llvm19),
        vec![
            Rule::NoOperandOnEntryOrAnchor,
            Rule::UseByConvergentOnly,
            Rule::CycleUseByHeartOnly
        ]
    );
    assert_eq!(
        rules(Flavor::Llvm22),
        vec![Rule::NoOperandOnEntryOrAnchor, Rule::CycleUseByHeartOnly]
    );
}

/// The witness of a cycle rule is a closed path: consecutive blocks are CFG edges, the last block
/// leads back to the first, it passes through the use's block and avoids the definition's block.
#[test]
fn cycle_rules_carry_a_closed_path_witness() {
    for (rule, bad, _) in examples() {
        if !rule.is_cycle_rule() {
            continue;
        }
        let text = module(bad);
        let (m, f) = converge_findings(&text, Flavor::Llvm22);
        let fd = f.iter().find(|x| x.rule == rule).unwrap();
        let v = fd.violation.as_ref().unwrap();
        let func = &m.functions[fd.func.0 as usize];
        let cfg = llvm::function_cfg(func);
        let w = &v.witness;
        assert!(!w.is_empty(), "{}: no witness", rule.id());
        for k in 0..w.len() {
            let (a, b) = (w[k], w[(k + 1) % w.len()]);
            assert!(
                cfg.succs(a).contains(&b),
                "{}: witness {w:?} is not a path",
                rule.id()
            );
        }
        let use_block = func.insts[v.inst.index()].block;
        assert!(w.contains(&use_block));
        let def_block: Block = (0..func.blocks.len() as u32)
            .map(Block)
            .find(|&b| func.block_range(b).range().contains(&0))
            .unwrap();
        assert!(
            !w.contains(&def_block),
            "{}: witness passes through the definition",
            rule.id()
        );
        let d = llvm::diagnostic(&m, fd).render("t.ll", &m.source);
        assert!(d.contains("witness closed path"), "{d}");
    }
}

/// Target intrinsics count as convergent as LLVM's intrinsic table says, whatever their declaration
/// says: an uncontrolled call to one next to a token is "mixing". Checked against LLVM 19 live.
#[test]
fn target_intrinsics_are_convergent_as_llvm_says() {
    let Some(opt) = converge_gen::reference::opt19("target_intrinsics_are_convergent_as_llvm_says")
    else {
        return;
    };
    let cases = [
        (
            "declare i32 @llvm.amdgcn.readfirstlane.i32(i32)",
            "call i32 @llvm.amdgcn.readfirstlane.i32(i32 0)",
        ),
        (
            "declare i64 @llvm.amdgcn.ballot.i64(i1)",
            "call i64 @llvm.amdgcn.ballot.i64(i1 true)",
        ),
        (
            "declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)",
            "call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 0, i32 0, i32 31)",
        ),
        (
            "declare void @llvm.nvvm.barrier0()",
            "call void @llvm.nvvm.barrier0()",
        ),
        (
            "declare i32 @llvm.amdgcn.workitem.id.x()",
            "call i32 @llvm.amdgcn.workitem.id.x()",
        ),
        (
            "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)",
            "call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)",
        ),
    ];
    let mut seen = [false; 2];
    for (decl, call) in cases {
        let text = format!(
            "{decl}\ndeclare token @llvm.experimental.convergence.anchor()\n\
             define void @t() {{\n  %a = call token @llvm.experimental.convergence.anchor()\n  {call}\n  ret void\n}}\n"
        );
        let (_, f) = converge_findings(&text, Flavor::Llvm19);
        let (ok, report) = llvm_verify(&opt, &text);
        assert_eq!(ok, f.is_empty(), "{decl}: LLVM {report:?}, converge {f:?}");
        seen[usize::from(ok)] = true;
    }
    assert!(
        seen[0] && seen[1],
        "both convergent and non-convergent intrinsics"
    );
}

/// `--format llvm` prints instructions as LLVM's printer does, not as they were spelled.
#[test]
fn llvm_text_is_canonical_for_unusual_spelling() {
    let Some(opt) = converge_gen::reference::opt22("llvm_text_is_canonical_for_unusual_spelling")
    else {
        return;
    };
    let text = module(
        "define void @t() {\n  %a   =  call token @llvm.experimental.convergence.anchor( )   ; c\n  \
         %b = call token @llvm.experimental.convergence.anchor()\n  \
         call void @f() [\"convergencectrl\"(token %a)]\n  \
         call   void   @f()   [ \"convergencectrl\"(token   %b) ]\n  ret void\n}",
    );
    let (m, f) = converge_findings(&text, Flavor::Llvm22);
    let ours: Vec<String> = f.iter().flat_map(|fd| llvm::llvm_lines(&m, fd)).collect();
    let (_, report) = llvm_verify(&opt, &text);
    let theirs: Vec<String> = report
        .iter()
        .flat_map(|x| std::iter::once(x.message.clone()).chain(x.values.iter().cloned()))
        .collect();
    assert!(!ours.is_empty());
    assert_eq!(ours, theirs);
}
