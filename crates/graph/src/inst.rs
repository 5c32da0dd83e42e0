//! Instruction ids for the traits that look inside blocks (converge-uniformity's `SsaFunction`,
//! converge-verify's `TokenFunction`): a function's instructions are dense ids, each block's a
//! contiguous run ending in its terminator. One type, next to [`crate::Block`], so that the
//! analyses' results and the verifier's diagnostics name an instruction the same way.

/// An instruction of a function, by its dense id (`0..number of instructions`, in layout order).
/// Arrays indexed by instruction stay plain vectors: use [`Inst::index`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(pub u32);

impl Inst {
    /// The id as an array index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl From<u32> for Inst {
    #[inline]
    fn from(i: u32) -> Inst {
        Inst(i)
    }
}

impl From<Inst> for u32 {
    #[inline]
    fn from(i: Inst) -> u32 {
        i.0
    }
}

impl std::fmt::Display for Inst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The instructions of one block, `start..end` in id order: an iterator of [`Inst`] as cheap as
/// `Range<u32>` (two ids), with the block's terminator at [`InstRange::terminator`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstRange {
    start: u32,
    end: u32,
}

impl InstRange {
    /// The instructions `start..end`.
    #[inline]
    pub fn new(start: Inst, end: Inst) -> InstRange {
        InstRange {
            start: start.0,
            end: end.0,
        }
    }
    /// The first instruction not yet yielded.
    #[inline]
    pub fn start(&self) -> Inst {
        Inst(self.start)
    }
    /// One past the last instruction.
    #[inline]
    pub fn end(&self) -> Inst {
        Inst(self.end)
    }
    /// The last instruction, the block's terminator (the range must be non-empty).
    #[inline]
    pub fn terminator(&self) -> Inst {
        Inst(self.end - 1)
    }
}

impl From<std::ops::Range<u32>> for InstRange {
    #[inline]
    fn from(r: std::ops::Range<u32>) -> InstRange {
        InstRange {
            start: r.start,
            end: r.end,
        }
    }
}

impl Iterator for InstRange {
    type Item = Inst;
    #[inline]
    fn next(&mut self) -> Option<Inst> {
        if self.start < self.end {
            let i = self.start;
            self.start += 1;
            Some(Inst(i))
        } else {
            None
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.start) as usize;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for InstRange {
    #[inline]
    fn next_back(&mut self) -> Option<Inst> {
        if self.start < self.end {
            self.end -= 1;
            Some(Inst(self.end))
        } else {
            None
        }
    }
}

impl ExactSizeIterator for InstRange {}

impl std::iter::FusedIterator for InstRange {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The range yields the same ids as `Range<u32>` from either end, and knows its terminator.
    #[test]
    fn inst_range_iterates_like_a_u32_range() {
        let r = InstRange::from(3..7);
        assert_eq!(
            (r.start(), r.end(), r.terminator()),
            (Inst(3), Inst(7), Inst(6))
        );
        assert_eq!(r.len(), 4);
        assert_eq!(
            r.clone().map(u32::from).collect::<Vec<_>>(),
            (3..7).collect::<Vec<_>>()
        );
        assert_eq!(
            r.clone().rev().map(u32::from).collect::<Vec<_>>(),
            (3..7).rev().collect::<Vec<_>>()
        );
        let mut m = r;
        assert_eq!((m.next(), m.next_back()), (Some(Inst(3)), Some(Inst(6))));
        assert_eq!(m.len(), 2);
        assert_eq!(InstRange::new(Inst(5), Inst(5)).next(), None);
    }
}
