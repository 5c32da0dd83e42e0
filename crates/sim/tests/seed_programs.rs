//! The seed tables again, but executed: each `.ll` under `tests/seeds/` is a CFG rebuilt from the
//! seed whose thread paths are forced by the thread id (see the file comments). The interpreter
//! runs the group, and the block instances it records must follow the table's rows, with the
//! converged ones in the same column. The token examples of "Convergent Operation Semantics" are
//! checked through the groups of their communicating operations.

use converge_graph::Block;
use converge_ir::{LocalName, Module};
use converge_sim::hierarchy::{Hierarchy, enumerate};
use converge_sim::interp::{Options, Program, Run, Status, Target, function_cfg, run};
use std::collections::BTreeSet;

fn load(file: &str) -> Module {
    let path = format!("{}/tests/seeds/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("seed program");
    converge_ir::parse(&path, text).unwrap_or_else(|d| panic!("{file}: {}", d.message))
}

fn block_name(m: &Module, f: &converge_ir::Function, b: Block) -> String {
    match f.blocks[b.index()].name() {
        LocalName::Named(s) => m.strings.resolve(s).to_string(),
        LocalName::Slot(n) => n.to_string(),
        LocalName::None => format!("bb{}", b.0),
    }
}

fn hierarchy_with_headers(m: &Module, f: &converge_ir::Function, want: &[&str]) -> Hierarchy {
    let cfg = function_cfg(f);
    let want: BTreeSet<String> = want.iter().map(|s| s.to_string()).collect();
    enumerate(&cfg, 10_000)
        .hierarchies
        .into_iter()
        .find(|h| {
            let got: BTreeSet<String> = h
                .cycles
                .iter()
                .map(|c| block_name(m, f, c.header))
                .collect();
            got == want
        })
        .expect("hierarchy with these headers")
}

fn simulate(m: &Module, h: Option<&Hierarchy>, threads: u32) -> (Run, Vec<Vec<String>>) {
    let f = &m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let prog = Program::new(m, f, Target::from_triple(m.triple.as_deref()));
    let llvm = Hierarchy::llvm(&prog.cfg);
    let h = h.unwrap_or(&llvm);
    let opts = Options {
        threads,
        target: Target::from_triple(m.triple.as_deref()),
        ..Options::default()
    };
    let r = run(&prog, h, &opts);
    for t in &r.threads {
        assert!(
            matches!(t.status, Status::Returned(_)),
            "thread {} ended with {:?}",
            t.tid,
            t.status
        );
    }
    let names = r
        .threads
        .iter()
        .map(|t| t.blocks.iter().map(|&(b, _)| block_name(m, f, b)).collect())
        .collect();
    (r, names)
}

/// Rows as in the seed: `.` empty, `X?` an instance the seed elides (not checked).
fn check_rows(m: &Module, headers: &[&str], rows: &[&str]) {
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let h = hierarchy_with_headers(m, f, headers);
    let (r, names) = simulate(m, Some(&h), rows.len() as u32);
    let cells: Vec<Vec<(String, usize, bool)>> = rows
        .iter()
        .map(|row| {
            row.split_whitespace()
                .enumerate()
                .filter(|(_, c)| *c != ".")
                .map(|(col, c)| (c.trim_end_matches('?').to_string(), col, !c.ends_with('?')))
                .collect()
        })
        .collect();
    for (t, row) in cells.iter().enumerate() {
        let want: Vec<&str> = row.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names[t], want, "thread {t} follows the seed's path");
    }
    let mut compared = 0;
    for t1 in 0..cells.len() {
        for t2 in t1 + 1..cells.len() {
            for (i1, c1) in cells[t1].iter().enumerate() {
                for (i2, c2) in cells[t2].iter().enumerate() {
                    if c1.0 != c2.0 || !c1.2 || !c2.2 {
                        continue;
                    }
                    let ours = r.threads[t1].blocks[i1].1 == r.threads[t2].blocks[i2].1;
                    assert_eq!(
                        ours,
                        c1.1 == c2.1,
                        "{} of thread {} (column {}) vs thread {} (column {})",
                        c1.0,
                        t1 + 1,
                        c1.1,
                        t2 + 1,
                        c2.1
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 0);
}

#[test]
fn natural_loop_program() {
    let m = load("natural_loop.ll");
    check_rows(
        &m,
        &["H"],
        &[
            "Entry H B L H . L . . . Exit",
            "Entry H . L H B L H B L Exit",
        ],
    );
}

#[test]
fn both_diverged_nested_program() {
    let m = load("both_diverged_nested.ll");
    check_rows(
        &m,
        &["R", "S"],
        &[
            "Entry P Q S P Q R S Exit",
            "Entry P Q . . . R S Exit",
            "Entry . . . . . R S Exit",
        ],
    );
}

#[test]
fn closed_path_programs_under_both_hierarchies() {
    let m = load("closed_path.ll");
    check_rows(
        &m,
        &["R", "S"],
        &[
            "Entry P Q . . . R S P Q? S? Exit",
            "Entry P Q S P Q R S . . . Exit",
        ],
    );
    let m = load("closed_path_long.ll");
    check_rows(
        &m,
        &["P"],
        &["Entry P Q R S P Q R S Exit", "Entry P Q . S P Q R S Exit"],
    );
}

#[test]
fn divergent_outside_programs_under_both_hierarchies() {
    let m = load("divergent_outside.ll");
    check_rows(
        &m,
        &["P"],
        &[
            "Entry . . . P Q R S P Q . S Exit",
            "Entry . R S P Q . S P Q R S Exit",
        ],
    );
    check_rows(
        &m,
        &["R", "S"],
        &[
            "Entry . P Q R S P Q S . . . . Exit",
            "Entry . . . R S P Q S P Q? R? S? Exit",
        ],
    );
}

/// LLVM's own hierarchy of the closed-path CFG has headers R and S (as `opt -passes=print<cycles>`
/// prints for this file), and it is the default of the simulator.
#[test]
fn default_hierarchy_is_llvms() {
    let m = load("closed_path.ll");
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let h = Hierarchy::llvm(&function_cfg(f));
    let headers: BTreeSet<String> = h
        .cycles
        .iter()
        .map(|c| block_name(&m, f, c.header))
        .collect();
    assert_eq!(headers, ["R", "S"].iter().map(|s| s.to_string()).collect());
    if let Some(opt) = converge_gen::reference::opt19("sim default hierarchy") {
        let out = std::process::Command::new(opt)
            .args(["-passes=print<cycles>", "-disable-output"])
            .arg(format!(
                "{}/tests/seeds/closed_path.ll",
                env!("CARGO_MANIFEST_DIR")
            ))
            .output()
            .expect("run opt");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(text.contains("entries(R P)"), "{text}");
        assert!(text.contains("entries(S P)"), "{text}");
    }
}

fn func<'m>(m: &'m Module, name: &str) -> &'m converge_ir::Function {
    m.functions
        .iter()
        .find(|f| m.strings.resolve(f.name) == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn inst_named(m: &Module, f: &converge_ir::Function, name: &str) -> converge_ir::InstId {
    let i = f
        .insts
        .iter()
        .position(|x| matches!(x.name(), LocalName::Named(s) if m.strings.resolve(s) == name))
        .unwrap_or_else(|| panic!("no instruction %{name}"));
    converge_ir::InstId(i as u32)
}

fn run_fn(m: &Module, name: &str, threads: u32) -> Run {
    let f = func(m, name);
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(m, f, target);
    let h = Hierarchy::llvm(&prog.cfg);
    let r = run(
        &prog,
        &h,
        &Options {
            threads,
            target,
            ..Options::default()
        },
    );
    for t in &r.threads {
        assert!(matches!(t.status, Status::Returned(_)), "{:?}", t.status);
    }
    assert!(
        r.notes.iter().all(|n| !n.contains("anyway")),
        "{:?}",
        r.notes
    );
    r
}

/// The groups of threads that executed converged instances of `%inst`, in release order.
fn groups(m: &Module, fname: &str, r: &Run, inst: &str) -> Vec<Vec<u32>> {
    let id = inst_named(m, func(m, fname), inst);
    r.groups
        .iter()
        .filter(|g| g.inst == id)
        .map(|g| g.threads.clone())
        .collect()
}

/// Per thread, the values `%inst` produced.
fn values(m: &Module, fname: &str, r: &Run, inst: &str) -> Vec<Vec<String>> {
    let id = inst_named(m, func(m, fname), inst);
    r.threads
        .iter()
        .map(|t| {
            t.records
                .iter()
                .filter(|x| x.inst == id)
                .map(|x| x.val.render())
                .collect()
        })
        .collect()
}

#[test]
fn loop_heart_break_groups_per_iteration() {
    let m = load("loop_heart_break.ll");
    let r = run_fn(&m, "controlled", 4);
    assert!(r.controlled);
    assert_eq!(
        groups(&m, "controlled", &r, "who"),
        vec![vec![0, 1], vec![2, 3]]
    );
    assert_eq!(
        values(&m, "controlled", &r, "who")[2],
        vec!["12".to_string()]
    );
    let r = run_fn(&m, "uncontrolled", 4);
    assert!(!r.controlled);
    assert_eq!(
        groups(&m, "uncontrolled", &r, "who"),
        vec![vec![0, 1, 2, 3]]
    );
}

#[test]
fn loop_heart_iterations_do_not_mix() {
    let m = load("loop_heart_iterations.ll");
    let r = run_fn(&m, "hearts", 2);
    // Paths: A B C D F B D E F G and A B D E F B C D F G.
    let f = func(&m, "hearts");
    let path = |t: usize| -> String {
        r.threads[t]
            .blocks
            .iter()
            .map(|&(b, _)| block_name(&m, f, b))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(path(0), "A B C D F B D E F G");
    assert_eq!(path(1), "A B D E F B C D F G");
    // %loop(1;j) == %loop(2;j) for j = 1, 2.
    let tok = values(&m, "hearts", &r, "loop");
    assert_eq!(tok[0], tok[1]);
    assert_ne!(tok[0][0], tok[0][1]);
    // @op.1(1) != @op.1(2), @op.2(1) != @op.2(2).
    assert_eq!(groups(&m, "hearts", &r, "x1"), vec![vec![0], vec![1]]);
    assert_eq!(groups(&m, "hearts", &r, "x2"), vec![vec![1], vec![0]]);
}

#[test]
fn unnatural_heart_and_free_anchor() {
    let m = load("loop_heart_unnatural.ll");
    let r = run_fn(&m, "unnatural", 2);
    // %loop(1) == %loop(2), hence @op.1(1) == @op.1(2).
    assert_eq!(groups(&m, "unnatural", &r, "x1"), vec![vec![0, 1]]);
    // The free anchor in E: implementation-defined; ours follows maximal convergence at E.
    let g = groups(&m, "unnatural", &r, "x2");
    assert_eq!(g.len(), 2, "{g:?}");
}

#[test]
fn loop_unrolling_with_remainder_breaks_the_third_iteration() {
    let m = load("loop_unrolling.ll");
    // Original: 3 and 5 iterations; the first three are converged.
    let r = run_fn(&m, "original", 2);
    assert_eq!(
        groups(&m, "original", &r, "r"),
        vec![vec![0, 1], vec![0, 1], vec![0, 1], vec![1], vec![1]]
    );
    // Unrolled: iterations 1-2 converged (first unrolled iteration). Iteration 3 is thread 1's
    // remainder and thread 2's second unrolled iteration: no longer converged with each other.
    let r = run_fn(&m, "unrolled", 2);
    assert_eq!(groups(&m, "unrolled", &r, "r1"), vec![vec![0, 1], vec![1]]);
    assert_eq!(groups(&m, "unrolled", &r, "r2"), vec![vec![0, 1], vec![1]]);
    // The remainder D is executed by both threads and its heart counts 1 in both.
    assert_eq!(groups(&m, "unrolled", &r, "r3"), vec![vec![0, 1]]);
    let v = values(&m, "unrolled", &r, "r3");
    // Thread 1's third original iteration (counter 1) meets thread 2's fifth (counter 1).
    assert_eq!(v[0].len(), 1);
    assert_eq!(v[1].len(), 1);
}

#[test]
fn ballot_if_else_communicates_within_each_arm() {
    let m = load("ballot_if_else.ll");
    let r = run_fn(&m, "example_kernel", 4);
    assert_eq!(
        groups(&m, "example_kernel", &r, "total_gains"),
        vec![vec![3]]
    );
    assert_eq!(
        groups(&m, "example_kernel", &r, "total_losses"),
        vec![vec![0, 1, 2]]
    );
    let g = values(&m, "example_kernel", &r, "total_gains");
    assert_eq!(g[3], vec!["1".to_string()]);
    let l = values(&m, "example_kernel", &r, "total_losses");
    assert_eq!(l[0], vec![((-3i32) as u32).to_string()]);
    // The AMDGPU ballot version: arms see their own threads, the join sees all of them.
    let r = run_fn(&m, "amdgpu", 4);
    assert_eq!(
        values(&m, "amdgpu", &r, "b.then")[1],
        vec!["10".to_string()]
    );
    assert_eq!(values(&m, "amdgpu", &r, "b.else")[0], vec!["5".to_string()]);
    assert_eq!(values(&m, "amdgpu", &r, "all")[0], vec!["15".to_string()]);
}

#[test]
fn jump_threading_keeps_the_barrier_group() {
    let m = load("jump_threading.ll");
    for fname in ["example_original", "example_jumpthreaded"] {
        let r = run_fn(&m, fname, 4);
        assert_eq!(groups(&m, fname, &r, "who"), vec![vec![0, 2, 3]], "{fname}");
    }
}

#[test]
fn anchor_reserve_space_in_buffer() {
    let m = load("anchor_reserve.ll");
    let r = run_fn(&m, "reserveSpaceInBuffer", 8);
    assert_eq!(
        groups(&m, "reserveSpaceInBuffer", &r, "ballot"),
        vec![(0..8).collect::<Vec<u32>>()]
    );
    let base = values(&m, "reserveSpaceInBuffer", &r, "baseOffset");
    assert!(base.iter().all(|v| v == &base[0]));
    let off: BTreeSet<String> = values(&m, "reserveSpaceInBuffer", &r, "offset")
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(off.len(), 8, "distinct slots");
    assert_eq!(
        values(&m, "reserveSpaceInBuffer", &r, "numThreads")[5],
        vec!["8".to_string()]
    );
}
