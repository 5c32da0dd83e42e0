//! Witnesses for divergence claims: thread inputs under which the simulator (converge-sim, the
//! executable dynamic semantics) shows two converged dynamic instances of a value that produced
//! different values. Searched within small bounds (thread counts, argument seeds, cycle
//! hierarchies); `None` means none was found there, not that none exists.

use converge_ir::intrinsics::ConvergenceControl;
use converge_ir::{FuncId, InstId, Module, Type};
use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, anchor_parts, run};
use converge_sim::report::{Verdict, value_uniformity};

/// Two converged instances of the value with different results, and how to reproduce them.
#[derive(Clone, Debug)]
pub struct Witness {
    /// Threads in the simulated group (`converge simulate --threads`).
    pub threads: u32,
    /// Seed of the values not given (`converge simulate --seed`).
    pub seed: u64,
    /// Index of the cycle hierarchy (`converge simulate --hierarchy K`).
    pub hierarchy: usize,
    /// Parts every anchor's group is split into (`converge simulate --anchor-groups N`; 1: one
    /// group). An anchor's grouping is implementation-defined, so a finer one is a valid
    /// execution.
    pub anchor_groups: u32,
    /// Per parameter, the integer every thread gets, or `None` for one drawn from the seed
    /// (`converge simulate --args`, `_` for `None`).
    pub args: Vec<Option<i128>>,
    /// (thread, value) of one of the two converged dynamic instances: the thread that executed
    /// it and the value it computed, printed. A value LLVM calls uniform must be the same in
    /// converged dynamic instances ("Convergence And Uniformity", *Uniformity*).
    pub a: (u32, String),
    /// (thread, value) of the other instance; its value differs from [`Witness::a`]'s.
    pub b: (u32, String),
}

impl Witness {
    /// The `converge simulate` arguments that show it.
    pub fn command(&self, file: &str, function: &str) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| a.map_or("_".to_string(), |x| x.to_string()))
            .collect();
        format!(
            "converge simulate {file} --function @{function} --threads {} --seed {} --enumeration-cap {CAP} --step-limit {STEPS} --hierarchy {}{}{}",
            self.threads,
            self.seed,
            self.hierarchy,
            if self.anchor_groups > 1 {
                format!(" --anchor-groups {}", self.anchor_groups)
            } else {
                String::new()
            },
            if args.is_empty() {
                String::new()
            } else {
                format!(" --args {}", args.join(","))
            }
        )
    }
}

const CAP: u64 = 64;
const STEPS: u64 = 4_000;
/// Functions larger than this are not simulated (the search would be slow).
pub const MAX_INSTS: usize = 400;

/// Whether [`find`] searches this function (small enough to simulate quickly).
pub fn searchable(m: &Module, fid: FuncId) -> bool {
    m.func(fid).insts.len() <= MAX_INSTS
}

/// Searches thread counts 2, 4, 8 and 32, argument seeds 1-8 and up to 64 hierarchies for a
/// witness that instruction `inst` of `fid` is divergent; in a function with an `anchor`, each
/// also with every anchor's group split in two (even and odd threads).
pub fn find(m: &Module, fid: FuncId, inst: u32) -> Option<Witness> {
    let f = m.func(fid);
    if !searchable(m, fid) {
        return None;
    }
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(m, f, target);
    let e = enumerate(&prog.cfg, CAP);
    let has_anchor = (0..f.insts.len() as u32).any(|i| {
        m.callee_name(fid, InstId(i))
            .is_some_and(|n| ConvergenceControl::of(n) == Some(ConvergenceControl::Anchor))
    });
    let splits: &[u32] = if has_anchor { &[1, 2] } else { &[1] };
    for threads in [2u32, 4, 8, 32] {
        for seed in 1..=8u64 {
            for &anchor_groups in splits {
                let args: Vec<Option<i128>> = f
                    .params
                    .iter()
                    .enumerate()
                    .map(|(k, p)| match m.types.types[p.ty.0 as usize] {
                        Type::Int(1) => Some(((seed >> k) & 1) as i128),
                        // Small values, different per seed and argument (loop bounds stay short).
                        Type::Int(_) => Some(((seed * 7 + k as u64 * 3) % 9) as i128 - 2),
                        _ => None,
                    })
                    .collect();
                let opts = Options {
                    threads,
                    args: args.iter().map(|a| a.map(ArgValue::Int)).collect(),
                    seed,
                    step_limit: STEPS,
                    target,
                    anchor_parts: anchor_parts(threads, anchor_groups),
                    ..Options::default()
                };
                for (k, h) in e.hierarchies.iter().enumerate() {
                    let r = run(&prog, h, &opts);
                    for (i, v) in value_uniformity(&r, f.insts.len()) {
                        if i != InstId(inst) {
                            continue;
                        }
                        if let Verdict::Divergent { a, b } = v {
                            return Some(Witness {
                                threads,
                                seed,
                                hierarchy: k,
                                anchor_groups,
                                args,
                                a,
                                b,
                            });
                        }
                    }
                }
            }
        }
    }
    None
}

/// Runs the simulator again with the witness's threads, seed, arguments and hierarchy and says
/// whether instruction `inst` still shows the two different values on converged instances (a
/// check that the witness reproduces, independent of the search that found it).
pub fn replay(m: &Module, fid: FuncId, inst: u32, w: &Witness) -> bool {
    let f = m.func(fid);
    let target = Target::from_triple(m.triple.as_deref());
    let prog = Program::new(m, f, target);
    let e = enumerate(&prog.cfg, CAP);
    let Some(h) = e.hierarchies.get(w.hierarchy) else {
        return false;
    };
    let opts = Options {
        threads: w.threads,
        args: w.args.iter().map(|a| a.map(ArgValue::Int)).collect(),
        seed: w.seed,
        step_limit: STEPS,
        target,
        anchor_parts: anchor_parts(w.threads, w.anchor_groups),
        ..Options::default()
    };
    let r = run(&prog, h, &opts);
    value_uniformity(&r, f.insts.len())
        .into_iter()
        .any(|(i, v)| i == InstId(inst) && matches!(v, Verdict::Divergent { a, b } if a.1 != b.1))
}
