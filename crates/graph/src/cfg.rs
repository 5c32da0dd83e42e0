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
        let mut cfg = Cfg::default();
        cfg.rebuild(entry, |succ_start, succ| {
            succ_start.reserve(num_blocks + 1);
            // Most blocks end in a branch of one or two targets: one allocation for most
            // functions.
            succ.reserve(2 * num_blocks);
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
        });
        cfg
    }

    /// Rebuilds the CFG in place, keeping its buffers (a caller building function after function
    /// allocates nothing in the steady state): `fill` gets the successor table emptied and writes
    /// it in CSR form, the start of every block's list and then the end of the last (so
    /// `starts[0] == 0`, `starts.len()` = blocks + 1, `starts[last] == succ.len()`), each list in
    /// operand order with duplicates kept. Predecessors follow as in [`Cfg::from_succs`].
    pub fn rebuild(&mut self, entry: Block, fill: impl FnOnce(&mut Vec<u32>, &mut Vec<Block>)) {
        self.entry = entry;
        self.succ_start.clear();
        self.succ.clear();
        fill(&mut self.succ_start, &mut self.succ);
        assert!(
            self.succ_start.first() == Some(&0)
                && *self.succ_start.last().unwrap_or(&0) as usize == self.succ.len(),
            "a CSR successor table"
        );
        self.fill_preds();
    }

    /// The predecessor table from the successor table. A counting sort by target, in place in
    /// `pred_start`: per block its number of predecessors, summed into the end of its slice;
    /// then each edge, sources in block order and slots in operand order, takes the place just
    /// below its target's end, which leaves the last-created use first and `pred_start` holding
    /// the starts.
    fn fill_preds(&mut self) {
        let num_blocks = self.succ_start.len() - 1;
        let pred_start = &mut self.pred_start;
        pred_start.clear();
        pred_start.resize(num_blocks + 1, 0);
        for s in &self.succ {
            pred_start[s.index()] += 1;
        }
        let mut end = 0;
        for c in pred_start.iter_mut() {
            end += *c;
            *c = end;
        }
        self.pred.clear();
        self.pred.resize(self.succ.len(), Block(0));
        let pred = &mut self.pred[..];
        for (b, w) in self.succ_start.windows(2).enumerate() {
            for s in &self.succ[w[0] as usize..w[1] as usize] {
                let e = &mut pred_start[s.index()];
                *e -= 1;
                pred[*e as usize] = Block(b as u32);
            }
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
