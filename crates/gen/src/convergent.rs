//! Random GPU programs with *uncontrolled* convergent operations, for the token-inserting
//! transform's tests: a program of [`crate::program`] (divergent branches, phis, loops) on a CFG of
//! a chosen [`Shape`] (reducible, irreducible, nested irreducible, unreachable blocks, …), with
//! convergent calls added at the start of random blocks: an external `convergent` function, a
//! `convergent` function defined in the module, and (AMDGPU) the convergent intrinsic
//! `llvm.amdgcn.s.barrier` (declared `convergent`, as clang declares it: the simulator reads the
//! declaration).
//!
//! [`Placement::OutsideIrreducible`] puts no convergent call directly in an irreducible cycle (the
//! transform refuses those) but may put them in natural loops nested inside irreducible cycles,
//! which is where the transform inserts preheader anchors.

use crate::cfg::{CfgParams, Shape, random_cfg};
use crate::program::{self, Flavor, Options};
use crate::rng::Rng;
use converge_graph::{Block, Cfg, CycleInfo};
use std::fmt::Write as _;

/// Where convergent calls may go.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Any block.
    Anywhere,
    /// No block whose innermost cycle is irreducible.
    OutsideIrreducible,
}

/// The declarations and helper the generated functions call, after the target header.
pub fn module_header(flavor: Flavor) -> String {
    let mut s = program::module_header(flavor);
    s.push_str(
        "declare i32 @conv.op(i32) convergent\n\
         declare void @llvm.amdgcn.s.barrier() convergent\n\n\
         define internal i32 @conv.helper(i32 %x) convergent {\n\
         \x20 %y = call i32 @conv.op(i32 %x)\n\
         \x20 ret i32 %y\n\
         }\n\n",
    );
    s
}

/// One function named `name` (see the module comment); `shape` picks the CFG.
pub fn function(
    rng: &mut Rng,
    name: &str,
    flavor: Flavor,
    shape: Shape,
    blocks: usize,
    placement: Placement,
) -> String {
    let mut p = CfgParams::new(shape, blocks);
    p.shuffle = false;
    p.allow_unreachable = shape.may_have_unreachable();
    let cfg = random_cfg(rng, &p);
    let succs = cfg.succs;
    let mut opts = Options::new(flavor);
    opts.max_insts = 2;
    // No `readfirstlane` from the program generator: it is convergent too, and would land in
    // irreducible cycles whatever the placement.
    opts.always_uniform = false;
    let text = program::function_with_cfg(rng, name, &opts, &succs);
    let g = Cfg::from_succs(
        Block(0),
        succs.len(),
        succs.iter().map(|s| s.iter().map(|&b| Block(b))),
    );
    let ci = CycleInfo::new(&g);
    let allowed = |b: usize| match placement {
        Placement::Anywhere => true,
        Placement::OutsideIrreducible => ci
            .cycle_of(Block(b as u32))
            .is_none_or(|c| ci.is_reducible(c)),
    };
    let chosen: Vec<bool> = (0..succs.len())
        .map(|b| allowed(b) && rng.chance(1, 2))
        .collect();
    // Half of the functions are `convergent` (they get an `entry`, the others an `anchor`).
    let convergent = rng.chance(1, 2);
    // Insert each call after the block's label and phis.
    let mut out = String::with_capacity(text.len() + 64 * succs.len());
    let mut pending: Option<usize> = None;
    let mut k = 0;
    for line in text.lines() {
        if let Some(b) = pending
            && !line.contains(" = phi ")
        {
            let _ = writeln!(out, "{}", call_line(rng, flavor, b, &mut k));
            pending = None;
        }
        if convergent && line.starts_with("define ") {
            out.push_str(&line.replacen(") {", ") convergent {", 1));
        } else {
            out.push_str(line);
        }
        out.push('\n');
        if let Some(b) = line
            .strip_prefix('b')
            .and_then(|r| r.strip_suffix(':'))
            .and_then(|r| r.parse::<usize>().ok())
            && chosen.get(b).copied().unwrap_or(false)
        {
            pending = Some(b);
        }
    }
    out
}

fn call_line(rng: &mut Rng, flavor: Flavor, b: usize, k: &mut usize) -> String {
    *k += 1;
    match rng.below(4) {
        0 if flavor == Flavor::Amdgpu => "  call void @llvm.amdgcn.s.barrier()".to_string(),
        1 => format!("  %cv.h{b}.{k} = call i32 @conv.helper(i32 %a0)"),
        _ => format!("  %cv.c{b}.{k} = call i32 @conv.op(i32 %a0)"),
    }
}

/// A module of `count` functions `f0`, `f1`, … of random shapes.
pub fn module(seed: u64, count: usize, flavor: Flavor, placement: Placement) -> String {
    let mut rng = Rng::new(seed);
    let mut s = module_header(flavor);
    for i in 0..count {
        let shape = *rng.pick(&Shape::ALL);
        let blocks = 3 + rng.below(8);
        s.push_str(&function(
            &mut rng,
            &format!("f{i}"),
            flavor,
            shape,
            blocks,
            placement,
        ));
        s.push('\n');
    }
    s
}
