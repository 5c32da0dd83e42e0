//! The scheduler on random structured programs with thread-dependent branches, loops with
//! thread-dependent trip counts and divergent breaks, and communicating operations at every level,
//! with and without convergence tokens (entry, anchor, loop hearts). Checked on every run:
//! - every released group is exactly the set of threads that waited at that instance
//!   (`report::check_groups`), and the scheduler never had to release a group blindly;
//! - a ballot's value is the set of threads of its group;
//! - controlled groups: all members hold converged token values (same class);
//! - runs are deterministic.
//!
//! Every program is also checked by LLVM's verifier when `opt` is available (token rules included).
//! Cases: `CONVERGE_SCHED_CASES` (default 400).

use converge_gen::rng::Rng;
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{Options, Program, Run, Status, Target, run};
use converge_sim::report::check_groups;
use std::fmt::Write;

struct Gen {
    rng: Rng,
    out: String,
    next: u32,
    controlled: bool,
    /// Innermost token name (controlled) for convergent calls.
    tokens: Vec<String>,
    /// Open block label.
    cur: String,
}

impl Gen {
    fn fresh(&mut self, p: &str) -> String {
        self.next += 1;
        format!("{p}{}", self.next)
    }

    fn label(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
        self.cur = l.to_string();
    }

    fn cond(&mut self) -> String {
        let c = self.fresh("%c");
        let k = 2 + self.rng.below(3);
        let r = self.rng.below(k);
        let m = self.fresh("%m");
        let _ = writeln!(self.out, "  {m} = urem i32 %tid, {k}");
        let _ = writeln!(self.out, "  {c} = icmp eq i32 {m}, {r}");
        c
    }

    fn op(&mut self) {
        let v = self.fresh("%b");
        match self.tokens.last() {
            Some(t) if self.controlled => {
                let _ = writeln!(
                    self.out,
                    "  {v} = call i64 @subgroupBallot(i1 true) [ \"convergencectrl\"(token {t}) ]"
                );
            }
            _ => {
                let _ = writeln!(
                    self.out,
                    "  {v} = call i64 @llvm.amdgcn.ballot.i64(i1 true)"
                );
            }
        }
    }

    fn stmts(&mut self, depth: u32) {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            match self.rng.below(if depth >= 3 { 2 } else { 6 }) {
                0 | 1 => self.op(),
                2 | 3 => {
                    let c = self.cond();
                    let (t, e, j) = (self.fresh("then"), self.fresh("else"), self.fresh("join"));
                    let _ = writeln!(self.out, "  br i1 {c}, label %{t}, label %{e}");
                    self.label(&t);
                    self.stmts(depth + 1);
                    let _ = writeln!(self.out, "  br label %{j}");
                    self.label(&e);
                    if self.rng.chance(1, 2) {
                        self.stmts(depth + 1);
                    }
                    let _ = writeln!(self.out, "  br label %{j}");
                    self.label(&j);
                }
                4 => {
                    if self.rng.chance(1, 2) && self.controlled {
                        let a = self.fresh("%anchor");
                        let _ = writeln!(
                            self.out,
                            "  {a} = call token @llvm.experimental.convergence.anchor()"
                        );
                        self.tokens.push(a);
                        self.op();
                        self.tokens.pop();
                    } else {
                        self.op();
                    }
                }
                _ => self.looop(depth),
            }
        }
    }

    fn looop(&mut self, depth: u32) {
        let (pre, h, body, latch, exit) = (
            self.cur.clone(),
            self.fresh("h"),
            self.fresh("body"),
            self.fresh("latch"),
            self.fresh("exit"),
        );
        let i = self.fresh("%i");
        let inext = self.fresh("%inext");
        let trip = self.fresh("%trip");
        let k = 2 + self.rng.below(3);
        let _ = writeln!(self.out, "  {trip}.m = urem i32 %tid, {k}");
        let _ = writeln!(self.out, "  {trip} = add i32 {trip}.m, 1");
        let _ = writeln!(self.out, "  br label %{h}");
        self.label(&h);
        let _ = writeln!(
            self.out,
            "  {i} = phi i32 [ 0, %{pre} ], [ {inext}, %{latch} ]"
        );
        if self.controlled {
            let t = self.fresh("%heart");
            let outer = self.tokens.last().cloned().unwrap_or_default();
            let _ = writeln!(
                self.out,
                "  {t} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token {outer}) ]"
            );
            self.tokens.push(t);
        }
        let go = self.fresh("%go");
        let _ = writeln!(self.out, "  {go} = icmp slt i32 {i}, {trip}");
        let _ = writeln!(self.out, "  br i1 {go}, label %{body}, label %{exit}");
        self.label(&body);
        self.stmts(depth + 1);
        if self.rng.chance(1, 3) {
            // A divergent break, with a communicating operation on the way out.
            let c = self.cond();
            let brk = self.fresh("brk");
            let _ = writeln!(self.out, "  br i1 {c}, label %{brk}, label %{latch}");
            self.label(&brk);
            self.op();
            let _ = writeln!(self.out, "  br label %{exit}");
        } else {
            let _ = writeln!(self.out, "  br label %{latch}");
        }
        self.label(&latch);
        let _ = writeln!(self.out, "  {inext} = add i32 {i}, 1");
        let _ = writeln!(self.out, "  br label %{h}");
        self.label(&exit);
        if self.controlled {
            // Uses of the heart token after the loop stay legal only inside its region; use the
            // outer token from here on.
            self.tokens.pop();
        }
        self.op();
    }
}

fn program(seed: u64) -> (String, bool) {
    let mut rng = Rng::new(seed);
    let controlled = rng.chance(1, 2);
    let mut g = Gen {
        rng,
        out: String::new(),
        next: 0,
        controlled,
        tokens: Vec::new(),
        cur: String::new(),
    };
    g.out.push_str(
        "target triple = \"amdgcn-amd-amdhsa\"\n\
         declare i32 @llvm.amdgcn.workitem.id.x()\n\
         declare i64 @llvm.amdgcn.ballot.i64(i1) convergent\n\
         declare i64 @subgroupBallot(i1) convergent\n\
         declare token @llvm.experimental.convergence.entry()\n\
         declare token @llvm.experimental.convergence.anchor()\n\
         declare token @llvm.experimental.convergence.loop()\n\n",
    );
    let _ = writeln!(
        g.out,
        "define void @k(){} {{",
        if controlled { " convergent" } else { "" }
    );
    g.label("entry");
    if controlled {
        let _ = writeln!(
            g.out,
            "  %tok = call token @llvm.experimental.convergence.entry()"
        );
        g.tokens.push("%tok".into());
    }
    let _ = writeln!(g.out, "  %tid = call i32 @llvm.amdgcn.workitem.id.x()");
    g.stmts(0);
    let _ = writeln!(g.out, "  ret void\n}}");
    (g.out, controlled)
}

fn check_run(r: &Run, text: &str) {
    check_groups(r).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        r.notes.iter().all(|n| !n.contains("anyway")),
        "{:?}\n{text}",
        r.notes
    );
    for t in &r.threads {
        assert!(
            matches!(t.status, Status::Returned(_)),
            "{:?}\n{text}",
            t.status
        );
    }
    // A ballot's value is its group.
    for g in &r.groups {
        let mask: u128 = g.threads.iter().map(|&t| 1u128 << t).sum();
        for &tid in &g.threads {
            let rec = r.threads[tid as usize]
                .records
                .iter()
                .find(|x| x.inst == g.inst && x.class == g.class)
                .expect("record of the group");
            assert_eq!(rec.val.bits(), mask, "{text}");
        }
    }
}

#[test]
fn random_structured_programs_schedule_consistently() {
    let cases = std::env::var("CONVERGE_SCHED_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400u64);
    let opt = converge_gen::reference::opt19("sim scheduler programs");
    let mut controlled_runs = 0;
    for seed in 0..cases {
        let (text, controlled) = program(seed);
        if let Some(opt) = opt.as_ref().filter(|_| seed < 60) {
            // The verifier checks the token rules; one function per module keeps names simple.
            let out = converge_gen::reference::run_opt(
                opt,
                &["-passes=verify", "-disable-output"],
                &text,
            );
            assert!(
                out.stderr.trim().is_empty(),
                "seed {seed}: {}\n{text}",
                out.stderr
            );
        }
        let m = converge_ir::parse("sched.ll", text.clone())
            .unwrap_or_else(|d| panic!("seed {seed}: {}\n{text}", d.message));
        let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
        let prog = Program::new(&m, f, Target::Amdgpu);
        assert_eq!(prog.controlled, controlled);
        let e = enumerate(&prog.cfg, 64);
        let threads = 2 + (seed % 7) as u32;
        let opts = Options {
            threads,
            target: Target::Amdgpu,
            ..Options::default()
        };
        let r = run(&prog, &e.hierarchies[0], &opts);
        check_run(&r, &text);
        let again = run(&prog, &e.hierarchies[0], &opts);
        assert_eq!(format!("{:?}", r.groups), format!("{:?}", again.groups));
        controlled_runs += controlled as usize;
    }
    assert!(controlled_runs > 0);
}

/// The groups of a run as (instruction, sorted threads) and each thread's sequence of
/// (instruction, result) over its convergent operations.
type Observed = (Vec<(u32, Vec<u32>)>, Vec<Vec<(u32, String)>>);

fn observed(r: &Run) -> Observed {
    let mut gs: Vec<(u32, Vec<u32>)> = r
        .groups
        .iter()
        .filter(|g| g.convergent)
        .map(|g| {
            let mut ts = g.threads.clone();
            ts.sort_unstable();
            (g.inst.0, ts)
        })
        .collect();
    gs.sort();
    let per = r
        .threads
        .iter()
        .map(|t| {
            t.ops
                .iter()
                .map(|o| (r.groups[o.group as usize].inst.0, o.val.render()))
                .collect()
        })
        .collect();
    (gs, per)
}

/// Calls are executed with the callee's instances converged for converged call instances: a
/// random program run as a callee of a kernel whose threads all call it from one call site
/// communicates exactly as when it is run itself (same groups, same results per thread, in the
/// same order), with consistent groups. Cases: `CONVERGE_SCHED_CASES` / 4.
#[test]
fn a_callee_called_by_the_whole_group_communicates_as_the_function_itself() {
    let cases = std::env::var("CONVERGE_SCHED_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400u64)
        / 4;
    for seed in 0..cases.max(1) {
        let (text, _) = program(seed);
        let callee = text.replacen("define void @k(", "define void @body(", 1)
            + "\ndefine void @k() convergent {\n  call void @body()\n  ret void\n}\n";
        let threads = 2 + (seed % 7) as u32;
        let opts = Options {
            threads,
            target: Target::Amdgpu,
            ..Options::default()
        };
        let mut obs = Vec::new();
        for t in [&text, &callee] {
            let m = converge_ir::parse("sched.ll", t.clone())
                .unwrap_or_else(|d| panic!("seed {seed}: {}\n{t}", d.message));
            let f = m
                .functions
                .iter()
                .find(|f| m.strings.resolve(f.name) == "k")
                .unwrap();
            let prog = Program::new(&m, f, Target::Amdgpu);
            let r = run(
                &prog,
                &converge_sim::hierarchy::Hierarchy::llvm(&prog.cfg),
                &opts,
            );
            check_groups(&r).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{t}"));
            assert!(
                !r.notes.iter().any(|n| n.contains("anyway")),
                "seed {seed}: {:?}\n{t}",
                r.notes
            );
            obs.push(observed(&r));
        }
        assert_eq!(obs[0], obs[1], "seed {seed}\n{callee}");
    }
}
