//! The analyses on an IR that is not LLVM: a six-instruction-kind toy IR implements
//! `converge_graph::Graph` (its CFG), `SsaFunction` and `DivergenceModel`, and gets LLVM's cycle
//! hierarchy (`CycleInfo`) and uniformity analysis without any LLVM text. This is the proof of the
//! "generic over small traits" design; `tests/tiny_ir.rs` runs it and checks the answers.
//!
//! `cargo run -p converge-uniformity --example tiny_ir`

use converge_graph::{Block, Graph};
use converge_uniformity::{
    DivergenceModel, Inst, InstRange, SsaFunction, Structure, Uniformity, Val, analyze,
};
use std::ops::Range;

/// A value of the toy IR: an instruction result or a constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Inst(u32),
    Const(i64),
}

/// The toy IR's instructions.
#[derive(Clone, Debug)]
pub enum Op {
    /// The thread's index in its group: the divergence source.
    ThreadId,
    /// The group's index: the same for every thread of a group.
    GroupId,
    Add(Operand, Operand),
    LessThan(Operand, Operand),
    /// `(value, predecessor block)` pairs.
    Phi(Vec<(Operand, u32)>),
    Branch {
        cond: Operand,
        then: u32,
        els: u32,
    },
    Jump(u32),
    Return,
}

/// A function: blocks of contiguous instructions, each ending in Branch, Jump or Return.
pub struct Toy {
    pub insts: Vec<Op>,
    pub block_of: Vec<u32>,
    pub blocks: Vec<Range<u32>>,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
    users: Vec<Vec<Inst>>,
}

impl Toy {
    /// Builds the derived tables (successors, predecessors, users) from blocks of instructions.
    pub fn new(blocks: Vec<Vec<Op>>) -> Toy {
        let mut insts = Vec::new();
        let mut ranges = Vec::new();
        let mut block_of = Vec::new();
        for (b, ops) in blocks.into_iter().enumerate() {
            let start = insts.len() as u32;
            for op in ops {
                insts.push(op);
                block_of.push(b as u32);
            }
            ranges.push(start..insts.len() as u32);
        }
        let nb = ranges.len();
        let mut succs = vec![Vec::new(); nb];
        let mut preds = vec![Vec::new(); nb];
        for (b, r) in ranges.iter().enumerate() {
            let targets = match &insts[r.end as usize - 1] {
                Op::Branch { then, els, .. } => vec![*then, *els],
                Op::Jump(t) => vec![*t],
                _ => vec![],
            };
            for t in targets {
                succs[b].push(Block(t));
                preds[t as usize].push(Block(b as u32));
            }
        }
        let mut users = vec![Vec::new(); insts.len()];
        for (i, op) in insts.iter().enumerate() {
            for v in operands(op) {
                if let Operand::Inst(d) = v {
                    users[d as usize].push(Inst(i as u32));
                }
            }
        }
        Toy {
            insts,
            block_of,
            blocks: ranges,
            succs,
            preds,
            users,
        }
    }
}

fn operands(op: &Op) -> Vec<Operand> {
    match op {
        Op::Add(a, b) | Op::LessThan(a, b) => vec![*a, *b],
        Op::Phi(inc) => inc.iter().map(|x| x.0).collect(),
        Op::Branch { cond, .. } => vec![*cond],
        _ => vec![],
    }
}

impl Graph for Toy {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn entry(&self) -> Block {
        Block(0)
    }
    fn succs(&self, b: Block) -> &[Block] {
        &self.succs[b.index()]
    }
    fn preds(&self, b: Block) -> &[Block] {
        &self.preds[b.index()]
    }
}

impl SsaFunction for Toy {
    type Cfg = Toy;
    fn cfg(&self) -> &Toy {
        self
    }
    fn num_args(&self) -> u32 {
        0
    }
    fn num_insts(&self) -> u32 {
        self.insts.len() as u32
    }
    fn block_insts(&self, b: Block) -> InstRange {
        InstRange::from(self.blocks[b.index()].clone())
    }
    fn inst_block(&self, i: Inst) -> Block {
        Block(self.block_of[i.index()])
    }
    fn is_phi(&self, i: Inst) -> bool {
        matches!(self.insts[i.index()], Op::Phi(_))
    }
    fn phi_has_constant_or_undef_value(&self, i: Inst) -> bool {
        let Op::Phi(inc) = &self.insts[i.index()] else {
            return false;
        };
        let mut vals = inc.iter().map(|x| x.0).filter(|&v| v != Operand::Inst(i.0));
        let first = vals.next();
        vals.all(|v| Some(v) == first)
    }
    fn users(&self, v: Val) -> &[Inst] {
        match v {
            Val::Inst(i) => &self.users[i.index()],
            Val::Arg(_) => &[],
        }
    }
    fn for_each_inst_operand(&self, i: Inst, f: &mut dyn FnMut(Inst)) {
        for v in operands(&self.insts[i.index()]) {
            if let Operand::Inst(d) = v {
                f(Inst(d));
            }
        }
    }
}

/// The toy target: threads of a group may branch apart; the thread id is the only source.
pub struct ToyTarget;

impl DivergenceModel<Toy> for ToyTarget {
    fn has_branch_divergence(&self, _: &Toy) -> bool {
        true
    }
    fn is_source_arg(&self, _: &Toy, _: u32) -> bool {
        false
    }
    fn is_source_inst(&self, f: &Toy, i: Inst) -> bool {
        matches!(f.insts[i.index()], Op::ThreadId)
    }
    fn is_always_uniform(&self, f: &Toy, i: Inst) -> bool {
        matches!(f.insts[i.index()], Op::GroupId)
    }
}

/// A loop whose exit depends on the thread id, and a use of the loop counter after it:
///
/// ```text
/// b0: %0 = tid; %1 = gid; jump b1
/// b1: %3 = phi [0, b0], [%6, b2]; %4 = lt %3, %0; branch %4, b3, b2
/// b2: %6 = add %3, %1; jump b1
/// b3: %8 = phi [%3, b1]; %9 = add %8, %1; return
/// ```
pub fn divergent_exit_loop() -> Toy {
    use Operand::{Const, Inst};
    Toy::new(vec![
        vec![Op::ThreadId, Op::GroupId, Op::Jump(1)],
        vec![
            Op::Phi(vec![(Const(0), 0), (Inst(6), 2)]),
            Op::LessThan(Inst(3), Inst(0)),
            Op::Branch {
                cond: Inst(4),
                then: 3,
                els: 2,
            },
        ],
        vec![Op::Add(Inst(3), Inst(1)), Op::Jump(1)],
        vec![
            Op::Phi(vec![(Inst(3), 1)]),
            Op::Add(Inst(8), Inst(1)),
            Op::Return,
        ],
    ])
}

/// Cycle structure and uniformity of a toy function.
pub fn run(f: &Toy) -> (Structure, Uniformity) {
    let s = Structure::new(f);
    let u = analyze(f, &ToyTarget, &s);
    (s, u)
}

#[allow(dead_code)]
fn main() {
    let f = divergent_exit_loop();
    let (s, u) = run(&f);
    for c in s.cycles.cycles() {
        println!(
            "cycle {}: header b{}, blocks {:?}",
            c.0,
            s.cycles.header(c).0,
            s.cycles.blocks(c).iter().map(|b| b.0).collect::<Vec<_>>()
        );
    }
    for (i, op) in f.insts.iter().enumerate() {
        let div = if f.is_terminator(Inst(i as u32)) {
            u.divergent_terminators[f.block_of[i] as usize]
        } else {
            u.divergent_insts[i]
        };
        println!(
            "%{i:<2} {:<10} {op:?}",
            if div { "divergent" } else { "uniform" }
        );
    }
    for t in &u.temporal_divergence {
        println!(
            "temporal divergence: %{} used by %{} outside cycle {}",
            t.value, t.user, t.cycle.0
        );
    }
}
