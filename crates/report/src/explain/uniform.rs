//! Why a value the analysis calls uniform is uniform: not analysed, a uniform argument, always
//! uniform, no divergent operand, and for phis which join rule does not apply (one incoming value,
//! a header reached again only in a later iteration, an exit phi without a value from the cycle);
//! plus the temporally divergent uses outside a cycle with a divergent exit.

use super::analysed::Analysed;
use super::reasons::{Node, UniformFact};
use converge_graph::Block;
use converge_ir::{Opcode, Value};
use converge_uniformity::{Mode, SsaFunction};

pub(super) fn uniform_facts(a: &Analysed<'_>, n: Node) -> Vec<UniformFact> {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    if !u.analysed {
        return vec![UniformFact::NotAnalysed];
    }
    let i = match n {
        Node::Arg(_) => return vec![UniformFact::UniformArgument],
        Node::Inst(i) => i,
    };
    let mut out = Vec::new();
    if u.always_uniform[i as usize] {
        out.push(UniformFact::AlwaysUniform);
        return out;
    }
    let operands: Vec<Node> = a
        .uses(i)
        .iter()
        .filter_map(|&v| match v {
            Value::Arg(x) => Some(Node::Arg(x)),
            Value::Inst(d) => Some(Node::Inst(d.0)),
            _ => None,
        })
        .collect();
    out.push(UniformFact::NoDivergentOperand { operands });
    let inst = &f.insts[i as usize];
    let j = inst.block;
    if inst.op == Opcode::Phi {
        let branches: Vec<Block> = (0..a.num_blocks() as u32)
            .map(Block)
            .filter(|&b| a.is_divergent_branch(b))
            .collect();
        let constant = a.lf.phi_has_constant_or_undef_value(i);
        let exit_of = |b: Block| -> Option<u32> {
            // The outermost cycle around the branch with a divergent exit that `j` leaves it to.
            let mut c = s.cycle_of(b);
            let mut found = None;
            while let Some(x) = c {
                if !s.contains(x, j) && u.divergent_exit_cycles.contains(&x) {
                    found = Some(x);
                }
                c = s.parent(x);
            }
            found
        };
        if let Some(&b) = branches.iter().find(|&&b| a.is_join(b, j)) {
            if constant {
                out.push(UniformFact::ConstantPhi { join: j, branch: b });
            } else if let Some(c) = exit_of(b) {
                out.push(UniformFact::ExitPhiNoCycleValue {
                    exit: j,
                    cycle: c,
                    branch: b,
                });
            } else {
                out.push(UniformFact::JoinNotReported { join: j, branch: b });
            }
        } else if let Some((c, b)) = branches.iter().find_map(|&b| {
            let mut c = s.cycle_of(b);
            while let Some(x) = c {
                if s.header(x) == j {
                    return Some((x, b));
                }
                c = s.parent(x);
            }
            None
        }) {
            out.push(UniformFact::HeaderNotJoin {
                cycle: c,
                branch: b,
            });
        } else {
            out.push(UniformFact::NotAJoin);
        }
    }
    if !inst.op.is_terminator() {
        let mut c = s.cycle_of(j);
        while let Some(x) = c {
            if u.divergent_exit_cycles.contains(&x) {
                let users: Vec<u32> =
                    a.lf.users(converge_uniformity::Val::Inst(i))
                        .iter()
                        .copied()
                        .filter(|&us| !s.contains(x, f.insts[us as usize].block))
                        // Precise mode's list is complete and leaves out the uses a loop heart's
                        // region keeps converged per iteration.
                        .filter(|&us| {
                            a.mode != Mode::Precise
                                || u.temporal_divergence
                                    .iter()
                                    .any(|t| t.value == i && t.user == us)
                        })
                        .collect();
                if !users.is_empty() {
                    out.push(UniformFact::TemporalOutside { cycle: x, users });
                    break;
                }
            }
            c = s.parent(x);
        }
    }
    out
}
