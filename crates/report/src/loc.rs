//! Source locations: byte offsets to `file:line:col`, with a line-start index so that many
//! lookups stay logarithmic (the `diag` helper rescans the text on every call).

use converge_graph::Block;
use converge_ir::{FuncId, Module, Value};

/// 1-based line and column of a byte offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1, counting characters.
    pub col: u32,
}

/// Line starts of one module's source text.
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes the line starts of `source`.
    pub fn new(source: &str) -> LineIndex {
        let mut starts = vec![0u32];
        for (i, b) in source.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i as u32 + 1);
            }
        }
        LineIndex { starts }
    }

    /// Columns count characters, as `converge_ir::diag` does.
    pub fn loc(&self, source: &str, offset: u32) -> Loc {
        let off = (offset as usize).min(source.len()) as u32;
        let line = self.starts.partition_point(|&s| s <= off) - 1;
        let start = self.starts[line] as usize;
        let col = source
            .get(start..off as usize)
            .map_or(off as usize - start, |s| s.chars().count());
        Loc {
            line: line as u32 + 1,
            col: col as u32 + 1,
        }
    }

    /// Where a value (argument or instruction) is written.
    pub fn value_loc(&self, m: &Module, f: FuncId, v: Value) -> Loc {
        let func = m.func(f);
        let start = match v {
            Value::Arg(a) => func
                .params
                .get(a as usize)
                .map_or(func.span.start, |p| p.span.start),
            Value::Inst(i) => func
                .insts
                .get(i.0 as usize)
                .map_or(func.span.start, |_| func.inst_span(i).start),
            _ => func.span.start,
        };
        self.loc(&m.source, start)
    }

    /// Where a block starts (its label, or its first instruction for an unnamed entry block).
    pub fn block_loc(&self, m: &Module, f: FuncId, b: Block) -> Loc {
        let func = m.func(f);
        let span = func.block_span(b);
        let r = func.block_range(b);
        let mut start = span.start;
        if start == 0 && span.end == 0 && !r.is_empty() {
            start = func.inst_span(converge_ir::InstId(r.start)).start;
        }
        self.loc(&m.source, start)
    }
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}
