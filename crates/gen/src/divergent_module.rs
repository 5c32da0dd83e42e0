//! Large modules on which LLVM's uniformity analysis does real work, for the end-to-end
//! comparison with `opt -passes='require<uniformity>'` (issue 13 part 2).
//!
//! [`crate::module`]'s clang-style kernels are cheap for LLVM's analysis (most of `opt`'s time on
//! them is the parse). The issue measured a module of about 38 MB and 1,223 functions on which
//! LLVM 19 spent 4.6 s in the analysis and 0.8 s parsing, about 3.8 ms of analysis per 31 KB
//! function. The functions here are of that size and cost: each is one AMDGPU kernel whose every
//! branch compares the thread id (so every branch is divergent; every join has a phi, stored so
//! that it is used: [`crate::program::tid_function_with_cfg`]), over a CFG of one of five shapes
//! taken in turn: reducible loops nested deep ([`crate::cfg::nested_loops`]), a reducible loop
//! around an irreducible cycle entered at every block ([`crate::cfg::irreducible_loop`]), and
//! chains of small irreducible, nested-irreducible and multi-exit pieces
//! ([`crate::cfg::chain_cfg`]). LLVM 19's analysis time per 30 KB function of each shape,
//! measured with `opt -time-passes` (user time of `UniformityInfoAnalysis`): 6.0, 5.0, 2.2, 4.5
//! and 3.5 ms. Left out because one function would cost as much as ten of the others: the
//! forward DAG with random back edges (54 ms per 29 KB) and one loop left at every block (29 ms).
//! The instruction mix is not clang's: few instructions per block (a phi, a store, a compare and
//! a branch), so blocks and branches are denser than in compiled code of the same size.

use crate::cfg::{Shape, chain_cfg, irreducible_loop, nested_loops};
use crate::program::{Flavor, module_header, tid_function_with_cfg};
use crate::rng::Rng;

/// What [`generate`] writes.
#[derive(Clone, Debug)]
pub struct DivergentSpec {
    /// Seed of the chained shapes: the same spec gives the same text.
    pub seed: u64,
    /// Stop adding functions once the text is at least this long.
    pub bytes: usize,
    /// About how long each function's text is (31 KB in the module).
    pub function_bytes: usize,
}

impl Default for DivergentSpec {
    fn default() -> Self {
        DivergentSpec {
            seed: 1,
            bytes: 38_000_000,
            function_bytes: 31_000,
        }
    }
}

/// The shapes in turn, with the bytes of text per block of each (measured on the generator's
/// output), to size the functions.
const SHAPES: [(&str, usize); 5] = [
    ("nest", 95),
    ("irrloop", 198),
    ("chain-irreducible", 100),
    ("chain-nestedirreducible", 113),
    ("chain-multiexit", 87),
];

/// Generates the module text: functions `@d0`, `@d1`, … until `spec.bytes` is reached.
pub fn generate(spec: &DivergentSpec) -> String {
    let mut rng = Rng::new(spec.seed);
    let mut out = module_header(Flavor::Amdgpu);
    let mut n = 0usize;
    while out.len() < spec.bytes {
        let (shape, per_block) = SHAPES[n % SHAPES.len()];
        let blocks = (spec.function_bytes / per_block).max(8);
        let succs = match shape {
            "nest" => nested_loops((blocks - 2) / 2).succs,
            "irrloop" => irreducible_loop(blocks).succs,
            "chain-irreducible" => chain_cfg(&mut rng, blocks, Shape::Irreducible).succs,
            "chain-nestedirreducible" => {
                chain_cfg(&mut rng, blocks, Shape::NestedIrreducible).succs
            }
            _ => chain_cfg(&mut rng, blocks, Shape::MultiExit).succs,
        };
        out.push_str(&tid_function_with_cfg(
            Flavor::Amdgpu,
            &format!("d{n}"),
            &succs,
        ));
        out.push('\n');
        n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_sized_and_every_shape() {
        let spec = DivergentSpec {
            bytes: 400_000,
            ..DivergentSpec::default()
        };
        let a = generate(&spec);
        assert_eq!(a, generate(&spec));
        assert!(a.len() >= 400_000 && a.len() < 500_000, "{}", a.len());
        let fns = a.matches("\ndefine ").count();
        // 31 KB per function, give or take the shapes' sizes.
        assert!((10..=16).contains(&fns), "{fns} functions");
    }

    /// The output is valid IR for LLVM 19.
    #[test]
    fn llvm_verifies_divergent_modules() {
        let Some(opt19) = crate::reference::opt19("llvm_verifies_divergent_modules") else {
            return;
        };
        let text = generate(&DivergentSpec {
            seed: 2,
            bytes: 200_000,
            function_bytes: 20_000,
        });
        let o = crate::reference::run_opt(&opt19, &["-passes=verify", "-disable-output"], &text);
        assert!(o.success, "{}", o.stderr);
    }
}
