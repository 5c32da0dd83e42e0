//! The one per-function analysis entry point for LLVM-text modules: (module, function, target,
//! LLVM release, mode) → the function seen through [`SsaFunction`], its [`Structure`] (CFG,
//! dominance, cycles) and its [`Uniformity`]. Every front end (the `converge` subcommands,
//! `explain`, `dot`, `explore`, the fuzz pipeline, the examples) goes through [`Setup`], so the
//! LLVM release is decided in one place: `--mode llvm` with release 19 builds LLVM 19's structure
//! (unreachable predecessors count as cycle entries) and 19's target hooks; release 22 and precise
//! mode build 22's.

use super::{LlvmFunction, Target};
use crate::{LlvmVersion, Mode, SsaFunction, Structure, Uniformity, analyze_with};
use converge_ir::{FuncId, Module};
use std::time::{Duration, Instant};

/// What to analyse with: the target model (for the release the mode asks for) and the mode.
/// Built once per module; [`Setup::analyse`] is then called per function (from any thread).
#[derive(Clone, Debug)]
pub struct Setup {
    target: Target,
    mode: Mode,
}

/// One function analysed: the adapter, its structure and its uniformity.
pub struct FunctionAnalysis<'m> {
    /// The function through [`SsaFunction`] (CFG, use lists, LLVM queries).
    pub lf: LlvmFunction<'m>,
    /// CFG, dominance and cycles, as the mode's LLVM release builds them.
    pub structure: Structure,
    /// The analysis result.
    pub uniformity: Uniformity,
}

/// Where [`Setup::analyse_timed`] spent its time.
#[derive(Default, Clone, Copy, Debug)]
pub struct PhaseTimes {
    /// Building the adapter (CFG and use lists).
    pub cfg: Duration,
    /// Dominator trees and cycles.
    pub structure: Duration,
    /// The uniformity analysis.
    pub analysis: Duration,
}

/// The LLVM release a mode reproduces: its own for `Mode::Llvm`, 22's structure for precise mode
/// (which fixes LLVM's bugs rather than reproducing a release).
pub fn version_of(mode: Mode) -> LlvmVersion {
    match mode {
        Mode::Llvm(v) => v,
        Mode::Precise => LlvmVersion::V22,
    }
}

impl Setup {
    /// `target` as the mode's LLVM release has it ([`Target::for_version`]).
    pub fn new(target: Target, mode: Mode) -> Setup {
        Setup {
            target: target.for_version(version_of(mode)),
            mode,
        }
    }
    /// The module's own target (its triple; `mcpu` overrides `"target-cpu"`).
    pub fn for_module(module: &Module, mcpu: Option<&str>, mode: Mode) -> Setup {
        Setup::new(Target::from_triple(module.triple.as_deref(), mcpu), mode)
    }
    /// The same with the target's rule set replaced (`Rules::Main`: `--llvm-version main`, in
    /// llvm mode; precise mode asks the hooks' precise variants whatever the rules).
    pub fn with_rules(mut self, rules: super::Rules) -> Setup {
        self.target = self.target.with_rules(rules);
        self
    }
    /// The target model, for the mode's release.
    pub fn target(&self) -> &Target {
        &self.target
    }
    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The LLVM release reproduced ([`version_of`] the mode).
    pub fn version(&self) -> LlvmVersion {
        version_of(self.mode)
    }
    /// Analyses one function.
    pub fn analyse<'m>(&self, module: &'m Module, fid: FuncId) -> FunctionAnalysis<'m> {
        self.analyse_timed(module, fid).0
    }
    /// [`Setup::analyse`], with the time of each phase (for `--time-passes`).
    pub fn analyse_timed<'m>(
        &self,
        module: &'m Module,
        fid: FuncId,
    ) -> (FunctionAnalysis<'m>, PhaseTimes) {
        let mut t = PhaseTimes::default();
        let a = Instant::now();
        let lf = LlvmFunction::new(module, fid);
        t.cfg = a.elapsed();
        let a = Instant::now();
        let g = SsaFunction::cfg(&lf);
        let structure = match self.version() {
            LlvmVersion::V19 => Structure::new_llvm19(g),
            LlvmVersion::V22 => Structure::new(g),
        };
        t.structure = a.elapsed();
        let a = Instant::now();
        let uniformity = analyze_with(&lf, &self.target, &structure, self.mode);
        t.analysis = a.elapsed();
        (
            FunctionAnalysis {
                lf,
                structure,
                uniformity,
            },
            t,
        )
    }
}
