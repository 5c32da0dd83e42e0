//! Precise mode: uniformity that is right by the dynamic semantics ("Convergence And Uniformity",
//! "Convergent Operation Semantics") rather than by LLVM's implementation, tokens included.
//!
//! Precise mode runs the same propagation as LLVM mode (`analysis.rs`, `sync.rs`) with a few
//! hooks switched on, each a rule of docs/precise-mode.md: irreducible regions are judged under
//! every cycle hierarchy, not only LLVM's (`irreducible`); the users outside a cycle with a
//! divergent exit of *every* value defined inside it are temporally divergent, always-uniform
//! values and assumed-divergent cycles included, and exit phis are judged by their incoming
//! values from inside the cycle (`exits`); phis at joins by their incoming values on the
//! diverged paths (`joins`); convergence-control tokens decide which dynamic
//! instances are converged (`tokens`). The temporal-divergence list is rebuilt after the
//! fixpoint, sorted, so it does not depend on the order of analysis.

pub(crate) mod exits;
pub(crate) mod hierarchies;
pub(crate) mod irreducible;
pub(crate) mod joins;
pub(crate) mod tokens;
pub(crate) mod uniform_exits;

use crate::analysis::{LlvmVersion, TemporalDivergence, Uniformity, analyze_impl};
use crate::ssa::{DivergenceModel, SsaFunction};
use crate::structure::{NONE, Structure};
use converge_graph::{Block, Graph};

/// Which answer to compute.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exactly what the given LLVM release computes (bugs included): the default.
    Llvm(LlvmVersion),
    /// Sound by the semantics under every cycle hierarchy, controlled convergence included, and
    /// tighter than LLVM where the semantics allows.
    Precise,
}

impl Default for Mode {
    fn default() -> Mode {
        Mode::Llvm(LlvmVersion::V22)
    }
}

impl Mode {
    /// The name the outputs print (`llvm` or `precise`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Llvm(_) => "llvm",
            Mode::Precise => "precise",
        }
    }
}

/// Runs the analysis in the given mode. `Mode::Llvm(v)` is [`crate::analyze_as`]`(…, v)`.
pub fn analyze_with<F: SsaFunction, M: DivergenceModel<F>>(
    f: &F,
    model: &M,
    s: &Structure,
    mode: Mode,
) -> Uniformity {
    match mode {
        Mode::Llvm(v) => analyze_impl(f, model, s, v, false),
        Mode::Precise => hierarchies::analyze(f, model, s),
    }
}

pub use hierarchies::P1Outcome;
pub use tokens::{in_region, shares_instance};

/// Precise mode's answer ([`analyze_with`]`(…, Mode::Precise)`) with what rule P1's check of
/// every cycle hierarchy decided for the function (docs/precise-mode.md, P1).
pub fn analyze_precise_outcome<F: SsaFunction, M: DivergenceModel<F>>(
    f: &F,
    model: &M,
    s: &Structure,
) -> (Uniformity, P1Outcome) {
    hierarchies::analyze_outcome(f, model, s)
}

/// Precise mode with rule P1 applied to every irreducible region, without the per-hierarchy
/// check: the answer before that check existed, kept for measuring what the check decides.
pub fn analyze_precise_whole_p1<F: SsaFunction, M: DivergenceModel<F>>(
    f: &F,
    model: &M,
    s: &Structure,
) -> Uniformity {
    analyze_impl(f, model, s, LlvmVersion::V22, true)
}

/// Precise mode's per-function memory, kept by the propagation.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Per cycle: its outermost irreducible ancestor-or-self, or `NONE`.
    pub(crate) outer_irr: Vec<u32>,
    pub(crate) reach: joins::Reach,
    pub(crate) sweep: exits::Sweep,
    /// Rule P1's form: whole regions, or one hierarchy's joins (`hierarchies`).
    pub(crate) p1: irreducible::P1,
}

impl Scratch {
    pub(crate) fn new(s: &Structure, p1: irreducible::P1) -> Scratch {
        Scratch {
            outer_irr: irreducible::outer_table(s),
            p1,
            ..Default::default()
        }
    }
}

/// After the fixpoint: cycle lists in cycle order and the complete temporal-divergence list.
pub(crate) fn finish<F: SsaFunction>(f: &F, s: &Structure, out: &mut Uniformity, pm: Scratch) {
    out.assumed_divergent.sort_unstable();
    out.divergent_exit_cycles.sort_unstable();
    // The sweeps' invariance levels are reused: they were computed for the same values.
    let exempt = pm.sweep.p10.exempted();
    let mut inv = pm.sweep.inv;
    out.temporal_divergence =
        temporal_list(f, s, &out.divergent_exit_cycles, false, &mut inv, &exempt);
    out.precise = true;
    out.uniform_exit_uses = exempt
        .iter()
        .map(|&(cycle, value, user)| TemporalDivergence {
            value,
            user,
            cycle: converge_graph::Cycle(cycle),
        })
        .collect();
}

/// Every use outside a cycle with a divergent exit of a value defined inside it, with the
/// outermost such cycle; sorted by (value, user). Uses the tokens make converged per iteration
/// ([`tokens::iteration_bound`]) are not temporally divergent and are left out, and so are, per
/// cycle, the uses rule P10 exempted (`exempt`, sorted).
fn temporal_list<F: SsaFunction>(
    f: &F,
    s: &Structure,
    exit_cycles: &[crate::Cycle],
    walk_only: bool,
    inv: &mut exits::Invariance,
    exempt: &[uniform_exits::Use],
) -> Vec<TemporalDivergence> {
    let mut out = Vec::new();
    if exit_cycles.is_empty() {
        return out;
    }
    let nc = s.num_cycles();
    let mut flag = vec![false; nc];
    for &c in exit_cycles {
        flag[c.index()] = true;
    }
    // Parents are numbered before their children: one pass gives the outermost ancestor-or-self
    // with a divergent exit.
    let mut top = vec![NONE; nc];
    for c in 0..nc as u32 {
        let p = s.parent_raw(c);
        top[c as usize] = if p != NONE && top[p as usize] != NONE {
            top[p as usize]
        } else if flag[c as usize] {
            c
        } else {
            NONE
        };
    }
    let outer = irreducible::outer_table(s);
    let hearts: Vec<Option<crate::Inst>> = (0..nc as u32)
        .map(|c| {
            if flag[c as usize] {
                tokens::heart_of(f, s, &outer, c)
            } else {
                None
            }
        })
        .collect();
    let any_heart = walk_only || !exempt.is_empty() || hearts.iter().any(Option::is_some);
    let lift = FlaggedChain::new(s, &flag);
    for b in 0..f.cfg().num_blocks() as u32 {
        let c0 = s.inner(Block(b));
        if c0 == NONE || top[c0 as usize] == NONE {
            continue;
        }
        for v in f.block_insts(Block(b)) {
            // Invariant in which cycles (those deeper than the level), decided on the first
            // user outside c0.
            let mut level = None;
            for &u in f.users(crate::Val::Inst(v)) {
                let ub = f.inst_block(u);
                if s.contains(c0, ub) {
                    continue;
                }
                let level = *level.get_or_insert_with(|| inv.level(f, s, v));
                // Without hearts the answer is the outermost flagged cycle not containing the
                // user: the outermost flagged one overall when the user lies outside it, else
                // found by binary lifting over the flagged cycles of c0's chain.
                if !any_heart {
                    let t = top[c0 as usize];
                    let cycle = if !s.contains(t, ub) {
                        t
                    } else {
                        lift.outermost_below(s, c0, s.common_cycle(c0, s.inner(ub)))
                    };
                    // The outermost candidate is the shallowest: invariant in it means in
                    // every candidate.
                    if cycle != NONE && s.depth(cycle) <= level {
                        out.push(TemporalDivergence {
                            value: v,
                            user: u,
                            cycle: crate::Cycle(cycle),
                        });
                    }
                    continue;
                }
                let mut c = c0;
                let mut best = NONE;
                while c != NONE && !s.contains(c, ub) {
                    if flag[c as usize]
                        && s.depth(c) <= level
                        && !hearts[c as usize]
                            .is_some_and(|t| tokens::iteration_bound(f, s, c, t, v, u))
                        && exempt.binary_search(&(c, v, u)).is_err()
                    {
                        best = c;
                    }
                    c = s.parent_raw(c);
                }
                if best != NONE {
                    out.push(TemporalDivergence {
                        value: v,
                        user: u,
                        cycle: crate::Cycle(best),
                    });
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The cycles with a divergent exit as a forest (each one's parent: the innermost such strict
/// ancestor), with binary lifting: the outermost one on a cycle's chain strictly inside a given
/// ancestor in O(log depth).
struct FlaggedChain {
    /// Per cycle: the innermost flagged ancestor-or-self.
    inner: Vec<u32>,
    /// `up[k][c]`: the 2^k-th flagged strict ancestor of flagged `c`.
    up: Vec<Vec<u32>>,
}

impl FlaggedChain {
    fn new(s: &Structure, flag: &[bool]) -> FlaggedChain {
        let nc = flag.len();
        let mut inner = vec![NONE; nc];
        let mut par = vec![NONE; nc];
        for c in 0..nc as u32 {
            let p = s.parent_raw(c);
            let above = if p == NONE { NONE } else { inner[p as usize] };
            par[c as usize] = above;
            inner[c as usize] = if flag[c as usize] { c } else { above };
        }
        let mut up = vec![par];
        while up.len() < 32 {
            let last = up.last().unwrap();
            if last.iter().all(|&x| x == NONE) {
                break;
            }
            let next: Vec<u32> = last
                .iter()
                .map(|&x| if x == NONE { NONE } else { last[x as usize] })
                .collect();
            up.push(next);
        }
        FlaggedChain { inner, up }
    }

    /// The outermost flagged ancestor-or-self of `c` strictly inside `common` (any, when
    /// `common` is `NONE`), or `NONE`.
    fn outermost_below(&self, s: &Structure, c: u32, common: u32) -> u32 {
        let d = if common == NONE { 0 } else { s.depth(common) };
        let mut x = self.inner[c as usize];
        if x == NONE || s.depth(x) <= d {
            return NONE;
        }
        for k in (0..self.up.len()).rev() {
            let y = self.up[k][x as usize];
            if y != NONE && s.depth(y) > d {
                x = y;
            }
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::{LlvmFunction, Target};
    use converge_gen::program::{Flavor, Options, function_with_cfg, module_header, random_cfg};
    use converge_gen::rng::Rng;

    /// The binary-lifting path of the temporal-divergence list gives the walk's answer.
    #[test]
    fn temporal_list_fast_path_equals_the_walk() {
        let mut checked = 0;
        for seed in 1..40u64 {
            let mut rng = Rng::new(seed);
            let mut opts = Options::new(Flavor::Amdgpu);
            opts.extra_edges_percent = 60;
            let succs = random_cfg(&mut rng, 60 + (seed as usize % 5) * 40, &opts);
            let mut text = module_header(Flavor::Amdgpu);
            text.push_str(&function_with_cfg(&mut rng, "f", &opts, &succs));
            let m = converge_ir::parse("t.ll", text).unwrap();
            let fid = converge_ir::FuncId(
                m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32,
            );
            let lf = LlvmFunction::new(&m, fid);
            let s = Structure::new(lf.cfg());
            let t = Target::from_triple(m.triple.as_deref(), None);
            let u = analyze_with(&lf, &t, &s, Mode::Precise);
            let mut inv = exits::Invariance::default();
            let fast = temporal_list(&lf, &s, &u.divergent_exit_cycles, false, &mut inv, &[]);
            let walk = temporal_list(&lf, &s, &u.divergent_exit_cycles, true, &mut inv, &[]);
            assert_eq!(fast, walk, "seed {seed}");
            checked += fast.len();
        }
        assert!(checked > 100, "{checked} entries");
    }
}
