//! Precise mode: uniformity that is right by the dynamic semantics ("Convergence And Uniformity",
//! "Convergent Operation Semantics") rather than by LLVM's implementation, tokens included.
//!
//! Precise mode runs the same propagation as LLVM mode (`analysis.rs`, `sync.rs`) with a few
//! hooks switched on, each a rule of docs/precise-mode.md: irreducible regions are judged under
//! every cycle hierarchy, not only LLVM's ([`irreducible`]); the users outside a cycle with a
//! divergent exit of *every* value defined inside it are temporally divergent, always-uniform
//! values and assumed-divergent cycles included, and exit phis are judged by their incoming
//! values from inside the cycle ([`exits`]); convergence-control tokens decide which dynamic
//! instances are converged ([`tokens`]). The temporal-divergence list is rebuilt after the
//! fixpoint, sorted, so it does not depend on the order of analysis.

pub(crate) mod exits;
pub(crate) mod irreducible;
pub(crate) mod tokens;

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
        Mode::Precise => analyze_impl(f, model, s, LlvmVersion::V22, true),
    }
}

/// After the fixpoint: cycle lists in cycle order and the complete temporal-divergence list.
pub(crate) fn finish<F: SsaFunction>(f: &F, s: &Structure, out: &mut Uniformity) {
    out.assumed_divergent.sort_unstable();
    out.divergent_exit_cycles.sort_unstable();
    out.temporal_divergence = temporal_list(f, s, &out.divergent_exit_cycles);
}

/// Every use outside a cycle with a divergent exit of a value defined inside it, with the
/// outermost such cycle; sorted by (value, user). Uses the tokens make converged per iteration
/// ([`tokens::iteration_bound`]) are not temporally divergent and are left out.
fn temporal_list<F: SsaFunction>(
    f: &F,
    s: &Structure,
    exit_cycles: &[u32],
) -> Vec<TemporalDivergence> {
    let mut out = Vec::new();
    if exit_cycles.is_empty() {
        return out;
    }
    let nc = s.num_cycles();
    let mut flag = vec![false; nc];
    for &c in exit_cycles {
        flag[c as usize] = true;
    }
    // Parents are numbered before their children: one pass gives "some ancestor-or-self has a
    // divergent exit".
    let mut up = vec![false; nc];
    for c in 0..nc as u32 {
        let p = s.parent_raw(c);
        up[c as usize] = flag[c as usize] || (p != NONE && up[p as usize]);
    }
    let hearts: Vec<Option<u32>> = (0..nc as u32)
        .map(|c| {
            if flag[c as usize] {
                tokens::heart_of(f, s, c)
            } else {
                None
            }
        })
        .collect();
    for b in 0..f.cfg().num_blocks() as u32 {
        let c0 = s.inner(Block(b));
        if c0 == NONE || !up[c0 as usize] {
            continue;
        }
        for v in f.block_insts(Block(b)) {
            for &u in f.users(crate::Val::Inst(v)) {
                let ub = f.inst_block(u);
                let mut c = c0;
                let mut best = NONE;
                while c != NONE && !s.contains(c, ub) {
                    if flag[c as usize]
                        && !hearts[c as usize]
                            .is_some_and(|t| tokens::iteration_bound(f, s, c, t, v, u))
                    {
                        best = c;
                    }
                    c = s.parent_raw(c);
                }
                if best != NONE {
                    out.push(TemporalDivergence {
                        value: v,
                        user: u,
                        cycle: best,
                    });
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
