use crate::{Block, Graph};

/// A compact CSR control-flow graph: successor and predecessor lists in two flat arrays.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    entry: Block,
    succ_start: Vec<u32>,
    succ: Vec<Block>,
    pred_start: Vec<u32>,
    pred: Vec<Block>,
}

impl Cfg {
    /// Builds a CFG from per-block successor lists (in operand order, duplicates kept).
    ///
    /// Predecessors get LLVM's use-list order for a parsed `.ll` file: sources in reverse block
    /// order, and within one source its successor slots in reverse operand order.
    pub fn from_succs<I, S>(entry: Block, num_blocks: usize, succs: I) -> Cfg
    where
        I: IntoIterator<Item = S>,
        S: IntoIterator<Item = Block>,
    {
        let mut succ_start = Vec::with_capacity(num_blocks + 1);
        // Most blocks end in a branch of one or two targets: one allocation for most functions.
        let mut succ = Vec::with_capacity(2 * num_blocks);
        succ_start.push(0);
        for s in succs {
            succ.extend(s);
            succ_start.push(succ.len() as u32);
        }
        assert_eq!(
            succ_start.len(),
            num_blocks + 1,
            "one successor list per block"
        );
        // A counting sort by target, in place in `pred_start`: per block its number of
        // predecessors, summed into the end of its slice; then each edge, sources in block order
        // and slots in operand order, takes the place just below its target's end, which leaves
        // the last-created use first and `pred_start` holding the starts.
        let mut pred_start = vec![0u32; num_blocks + 1];
        for s in &succ {
            pred_start[s.index()] += 1;
        }
        let mut end = 0;
        for c in pred_start.iter_mut() {
            end += *c;
            *c = end;
        }
        let mut pred = vec![Block(0); succ.len()];
        for (b, w) in succ_start.windows(2).enumerate() {
            for s in &succ[w[0] as usize..w[1] as usize] {
                let e = &mut pred_start[s.index()];
                *e -= 1;
                pred[*e as usize] = Block(b as u32);
            }
        }
        Cfg {
            entry,
            succ_start,
            succ,
            pred_start,
            pred,
        }
    }

    /// Number of edges, a successor repeated once per edge (a `switch` with two cases to one block
    /// counts twice).
    pub fn num_edges(&self) -> usize {
        self.succ.len()
    }
}

impl Graph for Cfg {
    #[inline]
    fn num_blocks(&self) -> usize {
        self.succ_start.len() - 1
    }
    #[inline]
    fn entry(&self) -> Block {
        self.entry
    }
    #[inline]
    fn succs(&self, b: Block) -> &[Block] {
        &self.succ[self.succ_start[b.index()] as usize..self.succ_start[b.index() + 1] as usize]
    }
    #[inline]
    fn preds(&self, b: Block) -> &[Block] {
        &self.pred[self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preds_follow_llvm_use_list_order() {
        // 0 -> 1, 2 ; 1 -> 2, 2 ; 2 -> 0
        let cfg = Cfg::from_succs(
            Block(0),
            3,
            vec![
                vec![Block(1), Block(2)],
                vec![Block(2), Block(2)],
                vec![Block(0)],
            ],
        );
        assert_eq!(cfg.preds(Block(2)), &[Block(1), Block(1), Block(0)]);
        assert_eq!(cfg.preds(Block(0)), &[Block(2)]);
    }
}
