//! The walks after a top-level cycle, remembered by how its exits' labels compare (issue 13:
//! random loop nests, `converge_gen::program::shapes::randnest_cfg`, where thousands of branches
//! inside one big assumed-divergent cycle each walked the code after it, finding nothing new).
//!
//! A branch inside a top-level cycle `a` already assumed divergent, whose cycles all have their
//! divergent exits (no exit check), matters only through the joins its labels make after `a`
//! (Convergence And Uniformity, "Irreducible Cycles": joins inside `a` add nothing). As
//! `exit_seeded` explains, its propagation processes every block of `a` it reaches before any
//! block after it, and from the moment it first gets below `a` the walk depends only on the
//! *configuration* of `a`'s exits: which carry their own label (a join, or a successor of the
//! branch) and which share a label from inside `a`. The effects of a join after `a` do not
//! depend on which branch inside `a` made it (the cycle it may make divergent is the outermost
//! one around the join that does not hold the branch, and no cycle after `a` holds any of them;
//! its phis are marked either way). So once one branch of `a` walked on from a configuration,
//! a later branch reaching the same configuration has nothing left to add: its walk stops at
//! the boundary. LLVM 22's label flow in llvm mode only (precise mode records per-branch facts
//! at joins; LLVM 19's walk stops at a floor that the labels inside `a` move).
//!
//! One configuration is known before the walk gets there: once every exit is a join of the
//! branch, each keeps its own label whatever else the walk does inside `a`, so when that
//! configuration was walked on from before the walk stops at once (`JoinFinder::propagate`'s
//! `final_exits`). In deep nests of irreducible cycles every branch flooded the big cycle
//! around them only to reach it (issue 13, `dag-local` seed 1 at 64,000 blocks).

use crate::structure::NONE;
use std::collections::HashSet;

/// Exits beyond which a configuration is not encoded (four bits an exit, class 15 for an exit
/// without a label).
pub(crate) const MAX_CONFIG_EXITS: usize = 14;

/// The configurations already walked on from, per top-level cycle, in one function.
#[derive(Default)]
pub(crate) struct ExitConfigs {
    seen: HashSet<(u32, u64)>,
}

impl ExitConfigs {
    pub fn clear(&mut self) {
        self.seen.clear();
    }

    /// Was the configuration in which every exit of cycle `a` carries its own label walked on
    /// from before? (Its key is 0: class 0 for every exit.)
    pub fn all_own_seen(&self, a: u32) -> bool {
        self.seen.contains(&(a, 0))
    }

    /// Records the configuration of the exits `exits` (indices of the modified post-order) of
    /// cycle `a` under `labels`; false when it was recorded before, or cannot be encoded.
    pub fn first_time(&mut self, a: u32, labels: &[u32], exits: &[u32]) -> bool {
        match config_key(labels, exits) {
            Some(key) => self.seen.insert((a, key)),
            None => true,
        }
    }
}

/// The configuration of `exits` under `labels`, four bits an exit in their order: 0 for an exit
/// carrying its own label, 15 for one without a label, else the rank (from 1) of its label among
/// the distinct other labels in order of first appearance.
pub(crate) fn config_key(labels: &[u32], exits: &[u32]) -> Option<u64> {
    if exits.len() > MAX_CONFIG_EXITS {
        return None;
    }
    let mut distinct = [NONE; MAX_CONFIG_EXITS];
    let mut n = 0;
    let mut key = 0u64;
    for (j, &x) in exits.iter().enumerate() {
        let l = labels[x as usize];
        let class = if l == x {
            0
        } else if l == NONE {
            15
        } else {
            match distinct[..n].iter().position(|&d| d == l) {
                Some(r) => r as u64 + 1,
                None => {
                    distinct[n] = l;
                    n += 1;
                    n as u64
                }
            }
        };
        key |= class << (4 * j);
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_labels_not_their_values() {
        // Exits at indices 0..4.
        let exits = [0, 1, 2, 3];
        let a = [7, 7, 9, 3];
        let b = [5, 5, 8, 3];
        let c = [5, 8, 8, 3];
        let d = [5, 5, 8, NONE];
        assert_eq!(config_key(&a, &exits), config_key(&b, &exits));
        assert_ne!(config_key(&a, &exits), config_key(&c, &exits));
        assert_ne!(config_key(&b, &exits), config_key(&d, &exits));
        // An exit with its own label differs from one sharing a label.
        let e = [0, 5, 5, 3];
        let f = [6, 5, 5, 3];
        assert_ne!(config_key(&e, &exits), config_key(&f, &exits));
        let many: Vec<u32> = (0..=MAX_CONFIG_EXITS as u32).collect();
        assert_eq!(config_key(&many, &many), None);
    }
}
