//! The whole pipeline on one module, through the library APIs: what the `converge` subcommands do
//! (`stats`, cycles and dominators in both LLVM modes, uniformity for every target model, both LLVM
//! versions and precise mode, the simulator under several hierarchies, explain and DOT reports, the
//! `explore` page, the token verifier, check-transform of each function against itself), minus the
//! output. One function shared by the coverage-guided target `fuzz_targets/pipeline.rs`
//! (cargo-fuzz, nightly) and the stable driver `crates/cli/examples/fuzz_pipeline.rs`, which both
//! include this file; a new subcommand adds its work here, once.
//!
//! Returns a count of the work done (so nothing is optimised away).

use converge_graph::{CycleInfo, DominatorTree, PostDominatorTree, UnreachablePreds};
use converge_ir::{FuncId, Module};
use converge_report::LineIndex;
use converge_report::dot::{DotOptions, render};
use converge_report::explain::{Analysed, Explainer, Node};
use converge_report::explore::{ExploreOptions, SimOptions, page as explore_page};
use converge_report::render::Ctx;
use converge_report::reports::jsonw::ListDocument;
use converge_sim::hierarchy::{Hierarchy, enumerate};
use converge_sim::interp as sim;
use converge_sim::report::{m_converged, table, value_uniformity};
use converge_transform::insert_tokens::insert_tokens;
use converge_uniformity::llvm::{Amdgpu, Nvptx, Rules, Setup, Target};
use converge_uniformity::{LlvmVersion, Mode};
use converge_verify::llvm::{self as vl, Flavor};
use std::time::Duration;

/// Everything the CLI does with a module, through the library APIs.
pub fn pipeline(m: &Module) -> usize {
    let mut work = 0;
    let lines = LineIndex::new(&m.source);
    let targets = [
        Target::Uniform,
        Target::Amdgpu(Amdgpu::new(None)),
        Target::Amdgpu(Amdgpu::new(Some("gfx1030"))),
        Target::Nvptx(Nvptx::default()),
        Target::from_triple(m.triple.as_deref(), None),
        // `--llvm-version main`: LLVM main's target-model rules.
        Target::Amdgpu(Amdgpu::new(Some("gfx1250"))).with_rules(Rules::Main),
        Target::Nvptx(Nvptx::default()).with_rules(Rules::Main),
    ];
    work += stats(m);
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
            let mut dom2 = DominatorTree::default();
            dom2.compute(&cfg);
            let _ = PostDominatorTree::new(&cfg);
        }
        uniformity(m, f, &targets, &mut work);
        cycles_report(m, f, &mut work);
        simulate(m, func, &mut work);
        for t in &targets {
            let a = Analysed::new(m, f, t);
            let ex = Explainer::new(&a);
            let ctx = Ctx {
                a: &a,
                lines: &lines,
            };
            let (txt, _j) = ctx.summary(&ex, true);
            work += txt.len();
            let (txt, _j) = ctx.summary(&ex, false);
            work += txt.len();
            // Explain a few nodes: every argument and up to 64 instructions.
            for p in 0..func.params.len().min(8) {
                let n = Node::Arg(p as u32);
                let e = ex.explain(n);
                work += ctx.explanation_text(n, &e).len();
                work += ctx.explanation_json(n, &e).to_string().len();
            }
            for i in 0..func.insts.len().min(64) {
                let n = Node::Inst(i as u32);
                let e = ex.explain(n);
                work += ctx.explanation_text(n, &e).len();
                work += ctx.explanation_json(n, &e).to_string().len();
            }
            for (u, ins) in [(false, false), (true, true)] {
                work += render(
                    &a,
                    &DotOptions {
                        uniformity: u,
                        instructions: ins,
                    },
                )
                .len();
            }
        }
        // `explain`/`dot --llvm-version 19` and `--mode precise`: the summaries and the picture.
        for mode in [Mode::Llvm(LlvmVersion::V19), Mode::Precise] {
            let a = Analysed::new_with(m, f, &targets[4], mode);
            let ex = Explainer::new(&a);
            let ctx = Ctx {
                a: &a,
                lines: &lines,
            };
            work += ctx.summary(&ex, false).0.len();
            let dot = DotOptions {
                uniformity: true,
                instructions: false,
            };
            work += render(&a, &dot).len();
        }
    }
    // The explore page of every function (small simulation budget, two hierarchies).
    let funcs: Vec<FuncId> = m
        .func_ids()
        .filter(|&f| !m.func(f).is_declaration)
        .collect();
    let opts = ExploreOptions {
        target: Target::from_triple(m.triple.as_deref(), None),
        mode: converge_uniformity::Mode::default(),
        sim: SimOptions {
            step_limit: 300,
            max_hierarchies: 2,
            ..SimOptions::default()
        },
    };
    work += explore_page(m, &funcs, &opts).len();
    for flavor in [Flavor::Llvm22, Flavor::Llvm19] {
        let findings = vl::verify_module(m, flavor);
        work += vl::llvm_report(m, &findings).len();
        {
            use converge_report::reports::{json_text, style::Painter, verify as report};
            work += report::text(m, "fuzz.ll", &findings, 1, Painter::PLAIN).len();
            work += report::llvm(m, "fuzz.ll", &findings).len();
            work += json_text(&report::json(m, "fuzz.ll", &findings)).len();
        }
        for fd in &findings {
            work += vl::diagnostic(m, fd).render("fuzz.ll", &m.source).len();
            work += vl::llvm_lines(m, fd).len();
        }
    }
    work += insert_tokens_checked(m);
    work
}

/// `stats`: every defined function counted (with and without cycles), the report in both formats.
fn stats(m: &Module) -> usize {
    use converge_report::reports::stats::{FunctionStats, StatsReport, text};
    let nvvm = m.nvvm_kernels();
    let mut work = 0;
    for with_cycles in [true, false] {
        let per = m
            .func_ids()
            .filter(|&f| !m.func(f).is_declaration)
            .map(|f| FunctionStats::count(m, f, with_cycles, &nvvm))
            .collect();
        let r = StatsReport::new(m, "in.ll".into(), per);
        work += text(&r).len() + converge_report::reports::json_text(&r).len();
    }
    work
}

/// `insert-tokens`: a refusal renders; an output must read back, and every function that had no
/// token violation before has none after (a transform bug otherwise).
fn insert_tokens_checked(m: &Module) -> usize {
    let Ok(o) = insert_tokens(m, &Default::default()) else {
        return 0;
    };
    if !o.refused.is_empty() {
        return o
            .refused
            .iter()
            .map(|d| d.render("fuzz.ll", &m.source).len())
            .sum();
    }
    let out = match converge_ir::parse("fuzz-out.ll", o.text()) {
        Ok(out) => out,
        // The reader accepts some ill-typed modules LLVM rejects; printed back they need not
        // read. Only a transform that breaks a module whose plain printing reads is a bug.
        Err(e) => {
            assert!(
                converge_ir::parse("fuzz-printed.ll", m.print_module()).is_err(),
                "insert-tokens output does not read back: {e:?}\n{}",
                o.text()
            );
            return 0;
        }
    };
    let before: std::collections::HashSet<u32> = vl::verify_module(m, Flavor::Llvm22)
        .iter()
        .map(|f| f.func.0)
        .collect();
    for fd in vl::verify_module(&out, Flavor::Llvm22) {
        assert!(
            before.contains(&fd.func.0),
            "insert-tokens made @{} invalid: {}\n{}",
            out.str(out.func(fd.func).name),
            vl::diagnostic(&out, &fd).render("fuzz-out.ll", &out.source),
            o.text()
        );
    }
    o.text().len()
}

fn uniformity(m: &Module, f: FuncId, targets: &[Target], work: &mut usize) {
    use converge_report::reports::{style::Painter, uniformity as report};
    for mode in [
        Mode::Llvm(LlvmVersion::V22),
        Mode::Llvm(LlvmVersion::V19),
        Mode::Precise,
    ] {
        for t in targets {
            // LLVM main's rules ride on 22's structure (`--llvm-version main`).
            let main = t.rules() == Rules::Main && mode == Mode::Llvm(LlvmVersion::V22);
            let mut setup = Setup::new(t.clone(), mode);
            if main {
                setup = setup.with_rules(Rules::Main);
            }
            let a = setup.analyse(m, f);
            *work += usize::from(a.uniformity.analysed);
            *work += report::text(&a, Painter::PLAIN).len();
            *work += report::llvm(&a, mode == Mode::Llvm(LlvmVersion::V19), main).len();
            // The streamed JSON (the CLI's) is serde_json's rendering of the built document.
            let want = converge_report::reports::json_text(&report::UniformityReport::new(
                mode,
                vec![report::json(&a)],
            ));
            let mut got = String::new();
            let _ = report::write_json_head(&mut got);
            if let Ok(mut w) = ListDocument::element(&mut got, 0) {
                let _ = report::write_json(&mut w, &a);
            }
            let _ = report::write_json_tail(&mut got, mode, 1);
            assert!(got == want, "streamed uniformity JSON differs");
            *work += got.len();
        }
    }
}

/// The `cycles` report in its three formats (LLVM 22's cycle entries).
fn cycles_report(m: &Module, f: FuncId, work: &mut usize) {
    use converge_report::reports::{cycles as report, style::Painter};
    let cfg = m.func(f).cfg();
    let ci = CycleInfo::new(&cfg);
    *work += report::llvm(m, f, &ci, false).len();
    *work += report::llvm(m, f, &ci, true).len();
    *work += report::text(m, f, &cfg, &ci, Painter::PLAIN).len();
    let want = converge_report::reports::json_text(&report::CyclesReport::new(
        "fuzz.ll".to_string(),
        vec![report::json(m, f, &cfg, &ci)],
    ));
    let mut got = String::new();
    let _ = report::write_json_head(&mut got, "fuzz.ll");
    if let Ok(mut w) = ListDocument::element(&mut got, 0) {
        let _ = report::write_json(&mut w, m, f, &cfg, &ci);
    }
    let _ = report::write_json_tail(&mut got, 1);
    assert!(got == want, "streamed cycles JSON differs");
    *work += got.len();
}

/// The simulator with a small step limit, under LLVM's hierarchy and a few enumerated ones.
fn simulate(m: &Module, func: &converge_ir::Function, work: &mut usize) {
    let target = sim::Target::from_triple(m.triple.as_deref());
    let opts = sim::Options {
        threads: 4,
        args: Vec::new(),
        seed: 0,
        step_limit: 300,
        target,
        ..sim::Options::default()
    };
    let prog = sim::Program::new(m, func, target);
    let mut hs = vec![Hierarchy::llvm(&prog.cfg), Hierarchy::reversed(&prog.cfg)];
    hs.extend(enumerate(&prog.cfg, 8).hierarchies);
    let runs: Vec<sim::Run> = hs.iter().map(|h| sim::run(&prog, h, &opts)).collect();
    for r in &runs {
        if let Ok(t) = table(r) {
            *work += std::mem::size_of_val(&t);
        }
        *work += value_uniformity(r, func.insts.len()).len();
    }
    let pairs: Vec<(&Hierarchy, &sim::Run)> = hs.iter().zip(runs.iter()).collect();
    *work += m_converged(&pairs, func.blocks.len()).len();
    // The `simulate` report, as `--all-hierarchies` shows it (a run whose instances cannot be
    // laid out is an error the CLI reports, not a crash).
    let setting = converge_report::reports::simulate::Setting {
        m,
        f: func,
        threads: opts.threads,
        target: format!("{target:?}").to_lowercase(),
        hierarchies: &hs,
        runs: &runs,
        chosen: 0,
        hierarchy_arg: "llvm",
        all: true,
        exhaustive: false,
    };
    if let Ok(t) = converge_report::reports::simulate::text(&setting) {
        *work += t.len();
    }
    // `--color always`: the painted text is the plain one with escape codes added.
    let painted = converge_report::reports::style::Painter { color: true };
    if let Ok(t) = converge_report::reports::simulate::text_painted(&setting, painted) {
        *work += t.len();
    }
    if let Ok(j) = converge_report::reports::simulate::json(&setting) {
        *work += converge_report::reports::json_text(&j).len();
    }
    check_against_itself(m, func, work);
}

/// `check-transform` of a function against itself: a violation (or a panic) is a checker bug.
/// Modules breaking the token rules are refused (BEFORE has no defined behaviour).
fn check_against_itself(m: &Module, func: &converge_ir::Function, work: &mut usize) {
    let settings = converge_check::Settings {
        threads: 3,
        max_executions: 4,
        step_limit: 300,
        enumeration_cap: 4,
        time_limit: Duration::from_secs(2),
        ..converge_check::Settings::default()
    };
    let name = m.strings.resolve(func.name).to_string();
    if let Ok(o) = converge_check::check(m, m, Some(&name), ("in.ll", "in.ll"), &settings) {
        assert!(
            o.verdict == converge_check::Verdict::Refines,
            "check-transform finds a violation of a function against itself:\n{}",
            converge_report::reports::check_transform::text(&o)
        );
        *work += o.stats.groups as usize;
        *work += converge_report::reports::json_text(
            &converge_report::reports::check_transform::json(&o),
        )
        .len();
    }
}
