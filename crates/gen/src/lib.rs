//! Random program generators and the plumbing to run the reference LLVM tools.
//!
//! The generators emit LLVM textual IR so the same program can be fed to `converge` and to `opt`.
//! Everything is deterministic from a seed ([`rng::Rng`], SplitMix64), so a failing case is
//! reproduced from the seed the test prints. [`reference`](mod@reference) is the one place tests find `opt`,
//! `FileCheck`, clang and the LLVM corpus.
//!
//! # Example
//!
//! An irreducible CFG shape and a random GPU program from seeds; the same seed gives the same text:
//!
//! ```
//! use converge_gen::cfg::{CfgParams, Shape, random_cfg, to_ll};
//! use converge_gen::program::{Flavor, Options, module};
//! use converge_gen::rng::Rng;
//! use converge_graph::{Block, Cfg, CycleInfo};
//!
//! let cfg = random_cfg(&mut Rng::new(7), &CfgParams::new(Shape::Irreducible, 12));
//! let graph = Cfg::from_succs(
//!     Block(0),
//!     cfg.num_blocks(),
//!     cfg.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
//! );
//! let cycles = CycleInfo::new(&graph);
//! println!("{} cycles; as LLVM text:\n{}", cycles.len(), to_ll(&cfg, "f"));
//!
//! let opts = Options::new(Flavor::Amdgpu);
//! let text = module(&mut Rng::new(1), 2, &opts);
//! assert!(text.starts_with("target triple = \"amdgcn-amd-amdhsa\""));
//! assert_eq!(text, module(&mut Rng::new(1), 2, &opts));
//! ```
#![warn(missing_docs)]

pub mod cfg;
pub mod clang_kernels;
pub mod convergent;
pub mod divergent_module;
pub mod kernels;
pub mod module;
pub mod oracle;
pub mod program;
pub mod reference;
pub mod rng;
pub mod tokens;
