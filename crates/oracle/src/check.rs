//! One oracle check: a function's uniformity claims against its runs under every cycle hierarchy.
//!
//! The claims come from converge-uniformity in a chosen [`Mode`]; the runs from converge-sim. Every
//! value called uniform whose converged instances differ under some hierarchy is a [`Violation`]
//! (all of them, under every hierarchy, not only the first). The [`Outcome`] also says how much
//! the run tested: whether the threads finished, and which claimed-uniform values were executed by
//! a converged instance of at least two threads under some hierarchy ("covered").

use converge_ir::{FuncId, InstId, Module, Opcode, Type};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{
    ArgValue, MemInit, MemTarget, Options, Program, Status, Target, anchor_parts, run,
};
use converge_sim::report::{Verdict, check_groups, inst_name, value_uniformity};
use converge_uniformity::llvm::{LlvmFunction, Target as UTarget};
use converge_uniformity::{
    Ablation, Inst, LlvmVersion, SsaFunction, Structure, Uniformity, Val, analyze_ablated,
    analyze_with,
};

/// Which analysis makes the claims.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `converge uniformity` (llvm mode) reproducing a given LLVM release.
    Llvm(LlvmVersion),
    /// llvm mode (LLVM 22) with parts switched off: the mutation self-test.
    Ablated(Ablation),
    /// `converge uniformity --mode precise`: sound by the semantics, never excused.
    Precise,
}

impl Mode {
    /// The mode's name in reports (`llvm`, `llvm-19`, `precise`, `ablated…`).
    pub fn name(self) -> String {
        match self {
            Mode::Llvm(LlvmVersion::V19) => "llvm-19".into(),
            Mode::Llvm(_) => "llvm".into(),
            Mode::Ablated(a) => format!("ablated{a:?}"),
            Mode::Precise => "precise".into(),
        }
    }
}

/// What the analysis says about one function.
#[derive(Clone, Debug)]
pub struct Claims {
    /// Per instruction: called divergent.
    pub divergent: Vec<bool>,
    /// The llvm-mode answer (for classification), when the claims come from llvm mode.
    pub llvm: Option<Uniformity>,
}

/// The claims of `mode` about function `fi` of `m`.
pub fn claims(m: &Module, fi: FuncId, mode: Mode) -> Claims {
    let lf = LlvmFunction::new(m, fi);
    let n = m.functions[fi.0 as usize].insts.len();
    if mode == Mode::Precise {
        let ut = UTarget::from_triple(m.triple.as_deref(), None);
        let s = Structure::new(lf.cfg());
        let u = analyze_with(&lf, &ut, &s, converge_uniformity::Mode::Precise);
        return Claims {
            divergent: (0..n)
                .map(|i| !u.analysed || u.is_divergent(Val::Inst(Inst(i as u32))))
                .collect(),
            llvm: None,
        };
    }
    let (version, ablation) = match mode {
        Mode::Llvm(v) => (v, Ablation::default()),
        Mode::Ablated(a) => (LlvmVersion::V22, a),
        Mode::Precise => unreachable!(),
    };
    let ut = UTarget::from_triple(m.triple.as_deref(), None).for_version(version);
    let s = if version == LlvmVersion::V19 {
        Structure::new_llvm19(lf.cfg())
    } else {
        Structure::new(lf.cfg())
    };
    let u = analyze_ablated(&lf, &ut, &s, version, ablation);
    let divergent = (0..n)
        .map(|i| !u.analysed || u.is_divergent(Val::Inst(Inst(i as u32))))
        .collect();
    Claims {
        divergent,
        llvm: Some(u),
    }
}

/// A value called uniform whose converged instances differ.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The instruction called uniform.
    pub inst: InstId,
    /// Its name as printed (`%x`).
    pub name: String,
    /// Index of the hierarchy (0: LLVM's) in the enumeration.
    pub hierarchy: usize,
    /// The seed of the input set (`converge simulate --seed`; integer arguments drawn from it).
    pub input_seed: u64,
    /// Two converged instances with their values.
    pub witness: String,
}

/// What one check found and how much it tested.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Cycle hierarchies run.
    pub hierarchies: usize,
    /// Under LLVM's hierarchy every thread returned (or reached `unreachable`).
    pub finished: bool,
    /// Under LLVM's hierarchy every thread stopped at the step limit.
    pub all_step_limit: bool,
    /// Some thread stopped on an error of the simulator (an operation it does not model).
    pub error: Option<String>,
    /// Reachable values called uniform.
    pub claimed_uniform: usize,
    /// Of those, executed by a converged instance of two threads or more under some hierarchy.
    pub covered: usize,
    /// Of those, executed at all.
    pub executed: usize,
    /// The covered claimed-uniform instructions.
    pub covered_insts: Vec<u32>,
    /// Every violation, per hierarchy and input set.
    pub violations: Vec<Violation>,
    /// Input sets run under every hierarchy (the fixed ones and the candidates kept).
    pub input_sets: usize,
    /// Conditional branches (blocks with two or more distinct successors) executed (under some
    /// hierarchy and input set).
    pub branches: usize,
    /// Of those, branches that sent the threads of one converged instance different ways in
    /// some run: the divergence a sync-dependence claim is about was realised.
    pub branches_split: usize,
}

/// How to run the function.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Threads per group.
    pub threads: u32,
    /// Seed of the inputs (integer arguments, memory contents).
    pub seed: u64,
    /// Steps per thread before the simulator stops it.
    pub step_limit: u64,
    /// Successor orders tried when enumerating hierarchies.
    pub enumeration_cap: u64,
    /// Input sets per hierarchy: set `k` draws arguments and memory from `seed + k * 7919`, so
    /// uniform branches go both ways across the sets.
    pub inputs: u32,
    /// Give every `ptr addrspace(1)` parameter a buffer of four small values drawn per input
    /// set, all different (the generated programs load and store only there, at an index `and
    /// 3`), instead of memory that hashes its address to a full-range value: compares with
    /// arguments, thread ids and counts then go both ways across the input sets, and a load
    /// indexed by a loop count reads a different value in each iteration.
    pub small_globals: bool,
    /// Candidate input sets chosen by path coverage after the `inputs` fixed ones: each runs
    /// under LLVM's hierarchy and is kept (run under every hierarchy) only if it realises a
    /// branch split, a branch direction or a differing value that no earlier run did. When
    /// not 0, the second fixed set and every other candidate run 64 threads.
    pub explore: u32,
}

impl RunSpec {
    /// `threads` threads, inputs from `seed`: 20,000 steps, 256 successor orders, two input sets.
    pub fn new(threads: u32, seed: u64) -> RunSpec {
        RunSpec {
            threads,
            seed,
            step_limit: 20_000,
            enumeration_cap: 256,
            inputs: 2,
            small_globals: false,
            explore: 0,
        }
    }
}

/// Whether instruction `i` of the function produces a value the claims are about.
fn is_value(m: &Module, f: &converge_ir::Function, i: usize) -> bool {
    let inst = &f.insts[i];
    inst.op != Opcode::Store
        && !inst.op.is_terminator()
        && !matches!(
            m.types.types[inst.ty.0 as usize],
            Type::Void | Type::Token | Type::Label | Type::Metadata
        )
}

/// The integer parameters that may differ between threads: every one of a function with the
/// default calling convention that no target treats as a kernel or single-lane function, unless
/// `inreg` ("Convergence And Uniformity": uniformity is judged for any caller, and a caller may
/// pass each thread its own value). Kernel and shader arguments come from the launch: uniform.
pub fn divergent_params(m: &Module, fi: FuncId) -> Vec<bool> {
    let lf = LlvmFunction::new(m, fi);
    let f = &m.functions[fi.0 as usize];
    let annotated = m
        .named_metadata
        .iter()
        .any(|(name, _)| m.strings.resolve(*name).trim_start_matches('!') == "nvvm.annotations");
    // The simulator evaluates inline asm with scalar outputs and the `llvm.amdgcn.s.*` scalar
    // operations as pure functions of their operands, while the hardware gives one value per
    // wave: with per-thread operands it would show them differ (the corpus's `@asm_sgpr`,
    // `@global_sreg`). Such functions keep uniform arguments.
    let scalar_ops = (0..f.insts.len() as u32).any(|i| {
        let inst = &f.insts[i as usize];
        inst.op.is_call_like()
            && (matches!(
                f.calls.get(inst.aux as usize).map(|c| c.callee),
                Some(converge_ir::Value::Asm(_))
            ) || lf
                .callee_name(i)
                .is_some_and(converge_ir::intrinsics::amdgpu::is_scalar_op))
    });
    let plain = lf.call_conv() == "ccc"
        && !annotated
        && !scalar_ops
        && lf.fn_md_ints("reqd_work_group_size").is_none()
        && lf.fn_attr("amdgpu-flat-work-group-size").is_none();
    f.params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            plain
                && matches!(m.types.types[p.ty.0 as usize], Type::Int(_))
                && !lf.param_has_attr(k as u32, "inreg")
        })
        .collect()
}

/// Input set `k` of a check: set `k` draws arguments and memory from `seed + k * 7919`.
fn input_set(
    m: &Module,
    f: &converge_ir::Function,
    spec: &RunSpec,
    per_thread: &[bool],
    target: Target,
    k: u64,
    threads: u32,
) -> Options {
    let seed = spec.seed + k * 7919;
    let mut rng = converge_gen::rng::Rng::new(seed);
    let args: Vec<Option<ArgValue>> = f
        .params
        .iter()
        .map(|p| match m.types.types[p.ty.0 as usize] {
            Type::Int(_) => Some(ArgValue::Int(rng.below(9) as i128 - 2)),
            _ => None,
        })
        .collect();
    // Two input sets of three give the parameters that may differ between threads a
    // value per thread (two or three values, so threads still agree in groups); with
    // one input set, two seeds of three do.
    let split = !(k + if spec.inputs <= 1 { spec.seed } else { 0 }).is_multiple_of(3);
    let thread_args: Vec<Vec<ArgValue>> = per_thread
        .iter()
        .map(|&d| {
            if !(d && split) {
                return Vec::new();
            }
            // The first two differ by 1 to 3: in their low bits (loop bounds) and in
            // comparisons with whatever lies between them.
            let x = rng.below(9) as i128 - 2;
            let mut v = vec![x, x + 1 + rng.below(3) as i128];
            if rng.chance(1, 2) {
                v.push(rng.below(9) as i128 - 2);
            }
            v.into_iter().map(ArgValue::Int).collect()
        })
        .collect();
    Options {
        threads,
        args,
        seed,
        step_limit: spec.step_limit,
        target,
        // Every other input set lets the implementation group anchor instances more
        // finely ("Convergent Operation Semantics", the anchor is implementation-defined).
        // With one input set, the seed's parity decides.
        anchor_parts: anchor_parts(
            threads,
            if (k + if spec.inputs <= 1 { spec.seed } else { 0 }) % 2 == 1 {
                2
            } else {
                1
            },
        ),
        thread_args,
        memory: if spec.small_globals {
            f.params
                .iter()
                .enumerate()
                .filter(|(_, p)| m.types.types[p.ty.0 as usize] == Type::Ptr(1))
                .map(|(k, _)| MemInit {
                    target: MemTarget::Param(k),
                    elem: None,
                    // Four elements (the generated programs index the buffer by a count
                    // or a value `and 3`), different from each other: a load whose
                    // index changes reads a different value.
                    values: {
                        let first = rng.below(9) as i128 - 2;
                        let step = 1 + rng.below(3) as i128;
                        let mut v: Vec<i128> = (0..4).map(|j| first + j * step).collect();
                        for i in (1..v.len()).rev() {
                            v.swap(i, rng.below(i + 1));
                        }
                        v.into_iter().map(ArgValue::Int).collect()
                    },
                })
                .collect()
        } else {
            Vec::new()
        },
        ..Options::default()
    }
}

/// Checks the claims about function `fi` of `m` under every hierarchy.
pub fn check(m: &Module, fi: FuncId, claims: &Claims, spec: &RunSpec) -> Outcome {
    check_many(m, fi, std::slice::from_ref(claims), spec)
        .pop()
        .expect("one outcome")
}

/// [`check`] for several sets of claims (modes) on the same runs: one outcome per set.
pub fn check_many(m: &Module, fi: FuncId, sets: &[Claims], spec: &RunSpec) -> Vec<Outcome> {
    let f = &m.functions[fi.0 as usize];
    let lf = LlvmFunction::new(m, fi);
    let s = Structure::new(lf.cfg());
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(m, f, target);
    let e = enumerate(&prog.cfg, spec.enumeration_cap);
    let per_thread = divergent_params(m, fi);
    let n = f.insts.len();
    let claimed: Vec<Vec<bool>> = sets
        .iter()
        .map(|claims| {
            (0..n)
                .map(|i| {
                    is_value(m, f, i)
                        && !claims.divergent[i]
                        && s.is_reachable(lf.inst_block(Inst(i as u32)))
                })
                .collect()
        })
        .collect();
    let mut outs: Vec<Outcome> = claimed
        .iter()
        .map(|c| Outcome {
            hierarchies: e.hierarchies.len(),
            claimed_uniform: c.iter().filter(|&&c| c).count(),
            ..Default::default()
        })
        .collect();
    let mut covered = vec![false; n];
    let mut executed = vec![false; n];
    let mut head = Outcome::default();
    let mut paths = Paths::new(converge_graph::Graph::num_blocks(&prog.cfg), n);
    let base = spec.inputs.max(1) as u64;
    for x in 0..base + spec.explore as u64 {
        // The input sets past `inputs` are candidates chosen by path coverage: each runs under
        // LLVM's hierarchy, and under the others only if it realised something no earlier run
        // did (a branch sending threads of one converged instance different ways, a direction
        // never taken, a value differing on a converged instance). With candidates, the second
        // fixed set and every other candidate have 64 threads (a full wave: more threads split
        // more branches, and a ballot of all lanes differs from one of some).
        let candidate = x >= base;
        let wide = spec.explore > 0
            && if candidate {
                (x - base).is_multiple_of(2)
            } else {
                x == 1
            };
        let threads = if wide {
            spec.threads.max(64)
        } else {
            spec.threads
        };
        let opts = input_set(m, f, spec, &per_thread, target, x, threads);
        for (k, h) in e.hierarchies.iter().enumerate() {
            let r = run(&prog, h, &opts);
            if let Err(err) = check_groups(&r) {
                panic!("hierarchy [{k}]: the scheduler broke a group: {err}");
            }
            if k == 0 && x == 0 {
                head.finished = r
                    .threads
                    .iter()
                    .all(|t| matches!(t.status, Status::Returned(_) | Status::Unreachable));
                head.all_step_limit = r.threads.iter().all(|t| t.status == Status::StepLimit);
                head.error = r.threads.iter().find_map(|t| match &t.status {
                    Status::Error(e) => Some(e.clone()),
                    _ => None,
                });
            }
            let values = value_uniformity(&r, n);
            let new = paths.add(&r, &values);
            for (i, v) in values {
                let i = i.0 as usize;
                executed[i] = true;
                match v {
                    Verdict::Uniform { shared, .. } => covered[i] |= shared > 0,
                    Verdict::Divergent { a, b } => {
                        covered[i] = true;
                        for (c, out) in claimed.iter().zip(outs.iter_mut()) {
                            if c[i] {
                                out.violations.push(Violation {
                                    inst: InstId(i as u32),
                                    name: inst_name(m, f, InstId(i as u32)),
                                    hierarchy: k,
                                    input_seed: opts.seed,
                                    witness: format!(
                                        "thread {}: {}, thread {}: {}",
                                        a.0, a.1, b.0, b.1
                                    ),
                                });
                            }
                        }
                    }
                    Verdict::NotExecuted => {}
                }
            }
            if k == 0 {
                if candidate && !new {
                    break;
                }
                head.input_sets += 1;
            }
        }
    }
    for (c, out) in claimed.iter().zip(outs.iter_mut()) {
        out.finished = head.finished;
        out.all_step_limit = head.all_step_limit;
        out.error = head.error.clone();
        out.input_sets = head.input_sets;
        out.branches = paths.branches(&prog.cfg);
        out.branches_split = paths.split_count();
        out.covered_insts = (0..n as u32)
            .filter(|&i| c[i as usize] && covered[i as usize])
            .collect();
        out.covered = out.covered_insts.len();
        out.executed = (0..n).filter(|&i| c[i] && executed[i]).count();
    }
    outs
}

/// What the runs of one check realised of the program's paths and data, independent of any
/// analysis: the conditional branches whose converged instances split, the branch directions
/// taken, the values seen differing on a converged instance.
struct Paths {
    /// Per block: the successors some thread went to from it (a bit per successor position).
    taken: Vec<u64>,
    /// Per block: some converged instance sent its threads to different successors.
    split: Vec<bool>,
    /// Per instruction: some converged instance saw different values.
    differ: Vec<bool>,
    /// Scratch: the successor the first thread of each (block, class) went to.
    first: std::collections::HashMap<(u32, converge_sim::instances::ClassId), u32>,
}

impl Paths {
    fn new(blocks: usize, insts: usize) -> Paths {
        Paths {
            taken: vec![0; blocks],
            split: vec![false; blocks],
            differ: vec![false; insts],
            first: std::collections::HashMap::new(),
        }
    }

    /// Adds one run; whether it realised anything new.
    fn add(&mut self, r: &converge_sim::interp::Run, values: &[(InstId, Verdict)]) -> bool {
        let mut new = false;
        self.first.clear();
        for t in &r.threads {
            for w in t.blocks.windows(2) {
                let ((b, c), (to, _)) = (w[0], w[1]);
                let bit = 1u64 << (to.0 % 64);
                if self.taken[b.index()] & bit == 0 {
                    self.taken[b.index()] |= bit;
                    new = true;
                }
                match self.first.entry((b.0, c)) {
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(to.0);
                    }
                    std::collections::hash_map::Entry::Occupied(o) => {
                        if *o.get() != to.0 && !self.split[b.index()] {
                            self.split[b.index()] = true;
                            new = true;
                        }
                    }
                }
            }
        }
        for (i, v) in values {
            if matches!(v, Verdict::Divergent { .. }) && !self.differ[i.0 as usize] {
                self.differ[i.0 as usize] = true;
                new = true;
            }
        }
        new
    }

    /// Executed blocks with two or more distinct successors in `g`.
    fn branches<G: converge_graph::Graph + ?Sized>(&self, g: &G) -> usize {
        self.conditional(g).count()
    }

    fn conditional<'a, G: converge_graph::Graph + ?Sized>(
        &'a self,
        g: &'a G,
    ) -> impl Iterator<Item = usize> + 'a {
        (0..self.taken.len()).filter(move |&b| {
            let s = g.succs(converge_graph::Block(b as u32));
            self.taken[b] != 0 && s.iter().any(|x| *x != s[0])
        })
    }

    fn split_count(&self) -> usize {
        self.split.iter().filter(|&&s| s).count()
    }
}

/// The first function with a body.
pub fn main_function(m: &Module) -> Option<FuncId> {
    m.functions
        .iter()
        .position(|f| !f.is_declaration)
        .map(|i| FuncId(i as u32))
}
