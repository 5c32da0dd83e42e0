// Shared helpers of the graph crate's integration tests (included with `mod common;`).
#![allow(dead_code)]

use converge_gen::cfg::RandomCfg;
use converge_graph::{Block, Cfg};

pub fn cfg(succs: &[&[u32]]) -> Cfg {
    Cfg::from_succs(
        Block(0),
        succs.len(),
        succs.iter().map(|s| s.iter().map(|&b| Block(b))),
    )
}

pub fn from_random(r: &RandomCfg) -> Cfg {
    Cfg::from_succs(
        Block(0),
        r.num_blocks(),
        r.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
    )
}

/// Blocks as plain numbers, for readable assertions.
pub fn nums(bs: &[Block]) -> Vec<u32> {
    bs.iter().map(|b| b.0).collect()
}
