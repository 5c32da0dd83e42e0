//! Precision: where precise mode and llvm mode (LLVM 22) disagree about a function, and what the
//! oracle says about each disagreement.
//!
//! A value precise mode calls uniform and LLVM divergent is a refinement: the oracle must back it
//! (no violation, and ideally executed on converged instances). A value precise mode calls
//! divergent and LLVM uniform is an LLVM bug when the simulator shows two converged instances
//! with different values (LLVM's claim violated), otherwise a place where precise mode is more
//! conservative than LLVM without a witness.

use crate::check::{Mode, RunSpec, check, claims};
use crate::classify::{KnownBug, classify};
use converge_ir::{FuncId, Module, Opcode, Type};
use converge_sim::report::inst_name;
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{LlvmVersion, SsaFunction, Structure, Uniformity, analyze_with};

/// Counts over a set of functions.
#[derive(Clone, Debug, Default)]
pub struct Precision {
    /// Defined functions analysed.
    pub functions: usize,
    /// Instructions that define a value (not stores, terminators, or void, token, label or
    /// metadata results): the values whose uniformity the two modes are compared on.
    pub values: usize,
    /// Of [`Precision::values`], those llvm mode (LLVM 22's rules) calls divergent.
    pub divergent_llvm: usize,
    /// Of [`Precision::values`], those precise mode calls divergent.
    pub divergent_precise: usize,
    /// Precise uniform, LLVM divergent; of those executed on converged instances of two threads
    /// or more (and never seen differing).
    pub refinements: usize,
    /// Of [`Precision::refinements`], those the simulator executed on converged dynamic
    /// instances of two threads or more ("Convergence And Uniformity": a uniform value is the
    /// same in every thread of a converged dynamic instance), without seeing them differ.
    pub refinements_covered: usize,
    /// A refinement the simulator contradicts (must stay empty).
    pub refinements_violated: Vec<String>,
    /// Precise divergent, LLVM uniform: with the simulator's witness against LLVM (and the known
    /// bug it matches), or without one.
    pub llvm_bugs: Vec<(String, Option<KnownBug>)>,
    /// Precise divergent, LLVM uniform, no witness: the value and the rule of
    /// docs/precise-mode.md it comes from ([`Conservative`]).
    pub conservative: Vec<(String, Conservative)>,
}

/// Which of precise mode's rules makes a value divergent that LLVM calls uniform (when the
/// simulator shows no witness against LLVM), by where the value is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Conservative {
    /// In an irreducible region precise mode assumes divergent and LLVM does not (P1).
    IrreducibleRegion,
    /// Used outside a cycle with a divergent exit where LLVM lists no temporal divergence, or an
    /// exit phi of such a cycle (P2-P4).
    LeavesCycle,
    /// An always-uniform operation controlled by a token, or used where its token's region ends
    /// (P6, P7).
    TokenRegion,
    /// Computed from one of the above (data or sync dependence).
    Propagated,
}

impl Conservative {
    /// A readable name with the rules of docs/precise-mode.md it covers, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Conservative::IrreducibleRegion => "irreducible region assumed divergent (P1)",
            Conservative::LeavesCycle => "leaves a cycle with a divergent exit (P2-P4)",
            Conservative::TokenRegion => "token group or region (P6, P7)",
            Conservative::Propagated => "computed from one of the above",
        }
    }
}

/// Classifies instruction `i`, divergent in precise mode (`p`) and uniform in LLVM's (`l`).
fn conservative_kind(
    m: &Module,
    fi: FuncId,
    p: &Uniformity,
    l: &Uniformity,
    i: u32,
) -> Conservative {
    let lf = LlvmFunction::new(m, fi);
    let s = Structure::new(lf.cfg());
    let b = lf.inst_block(converge_uniformity::Inst(i));
    let in_assumed = |u: &Uniformity| u.assumed_divergent.iter().any(|&c| s.contains(c.0, b));
    if in_assumed(p) && !in_assumed(l) {
        return Conservative::IrreducibleRegion;
    }
    if l.always_uniform[i as usize] || lf.control_token(converge_uniformity::Inst(i)).is_some() {
        return Conservative::TokenRegion;
    }
    let listed = |u: &Uniformity| {
        u.temporal_divergence
            .iter()
            .any(|t| t.user == converge_uniformity::Inst(i))
    };
    let exit_phi = lf.is_phi(converge_uniformity::Inst(i))
        && p.divergent_exit_cycles
            .iter()
            .any(|&c| s.exits(c.0).contains(&b));
    if (listed(p) && !listed(l)) || exit_phi {
        return Conservative::LeavesCycle;
    }
    Conservative::Propagated
}

impl Precision {
    /// Adds every defined function of `m`, run under each of `specs` in turn: a refinement is
    /// covered if some run executes it on converged instances and contradicted if any run does;
    /// a value precise mode calls divergent and LLVM uniform is an LLVM bug if some run shows a
    /// witness (every other input set of a run splits anchors into groups, so a witness past an
    /// anchor's region can be found). For a generated case, its own settings
    /// ([`crate::cases::spec_of`]: input sets that realise its paths) and plain ones.
    pub fn add_module(&mut self, m: &Module, label: &str, specs: &[RunSpec]) {
        for (k, f) in m.functions.iter().enumerate() {
            if f.is_declaration {
                continue;
            }
            let fi = FuncId(k as u32);
            let fname = m.strings.resolve(f.name).to_string();
            let llvm = claims(m, fi, Mode::Llvm(converge_uniformity::LlvmVersion::V22));
            let precise = claims(m, fi, Mode::Precise);
            self.functions += 1;
            let is_value = |i: usize| {
                let inst = &f.insts[i];
                inst.op != Opcode::Store
                    && !inst.op.is_terminator()
                    && !matches!(
                        m.types.types[inst.ty.0 as usize],
                        Type::Void | Type::Token | Type::Label | Type::Metadata
                    )
            };
            let values: Vec<usize> = (0..f.insts.len()).filter(|&i| is_value(i)).collect();
            self.values += values.len();
            self.divergent_llvm += values.iter().filter(|&&i| llvm.divergent[i]).count();
            self.divergent_precise += values.iter().filter(|&&i| precise.divergent[i]).count();
            let refined: Vec<usize> = values
                .iter()
                .copied()
                .filter(|&i| llvm.divergent[i] && !precise.divergent[i])
                .collect();
            let worse: Vec<usize> = values
                .iter()
                .copied()
                .filter(|&i| !llvm.divergent[i] && precise.divergent[i])
                .collect();
            if refined.is_empty() && worse.is_empty() {
                continue;
            }
            let name = |i: usize| {
                format!(
                    "{label} @{fname} {}",
                    inst_name(m, f, converge_ir::InstId(i as u32))
                )
            };
            if !refined.is_empty() {
                self.refinements += refined.len();
                let mut covered = vec![false; f.insts.len()];
                for spec in specs {
                    let o = check(m, fi, &precise, spec);
                    for &c in &o.covered_insts {
                        covered[c as usize] = true;
                    }
                    for v in &o.violations {
                        let n = name(v.inst.0 as usize);
                        if refined.contains(&(v.inst.0 as usize))
                            && !self.refinements_violated.contains(&n)
                        {
                            self.refinements_violated.push(n);
                        }
                    }
                }
                self.refinements_covered += refined.iter().filter(|&&i| covered[i]).count();
            }
            if !worse.is_empty() {
                // The first witness against LLVM for each value, over the run settings in turn.
                let mut witness: Vec<Option<Option<KnownBug>>> = vec![None; worse.len()];
                for spec in specs {
                    if witness.iter().all(Option::is_some) {
                        break;
                    }
                    let o = check(m, fi, &llvm, spec);
                    let known = classify(m, fi, &llvm, &o.violations);
                    for (k, &i) in worse.iter().enumerate() {
                        if witness[k].is_none()
                            && let Some(j) =
                                o.violations.iter().position(|v| v.inst.0 as usize == i)
                        {
                            witness[k] = Some(known[j]);
                        }
                    }
                }
                let (pu, lu) = {
                    let lf = LlvmFunction::new(m, fi);
                    let s = Structure::new(lf.cfg());
                    let t = Target::from_triple(m.triple.as_deref(), None);
                    (
                        analyze_with(&lf, &t, &s, converge_uniformity::Mode::Precise),
                        analyze_with(
                            &lf,
                            &t,
                            &s,
                            converge_uniformity::Mode::Llvm(LlvmVersion::V22),
                        ),
                    )
                };
                for (k, &i) in worse.iter().enumerate() {
                    match witness[k] {
                        Some(known) => self.llvm_bugs.push((name(i), known)),
                        None => self
                            .conservative
                            .push((name(i), conservative_kind(m, fi, &pu, &lu, i as u32))),
                    }
                }
            }
        }
    }

    /// The counts on one line, for a test's or a run's output.
    pub fn summary(&self) -> String {
        format!(
            "{} functions, {} values: divergent {} in llvm mode, {} in precise mode; refinements (precise uniform, LLVM divergent) {} of which covered by the oracle {} and contradicted {}; precise divergent, LLVM uniform {}: {} with the simulator's witness against LLVM, {} without",
            self.functions,
            self.values,
            self.divergent_llvm,
            self.divergent_precise,
            self.refinements,
            self.refinements_covered,
            self.refinements_violated.len(),
            self.llvm_bugs.len() + self.conservative.len(),
            self.llvm_bugs.len(),
            self.conservative.len()
        )
    }
}
