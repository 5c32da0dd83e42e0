//! Why a value the analysis calls uniform is uniform: not analysed, a uniform argument, always
//! uniform, no divergent operand, and for phis which join rule does not apply (one incoming value,
//! a header reached again only in a later iteration, an exit phi without a value from the cycle);
//! plus the temporally divergent uses outside a cycle with a divergent exit.

use super::analysed::Analysed;
use super::reasons::{Node, UniformFact};
use converge_graph::{Block, Cycle};
use converge_ir::{Opcode, Value};
use converge_uniformity::{Inst, Mode, SsaFunction, precise};

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
    // P10: operands from a cycle with a divergent exit that reach this use only through exits
    // all threads take in the same iteration.
    for e in u.uniform_exit_uses.iter().filter(|e| e.user.0 == i) {
        out.push(UniformFact::UniformlyTakenExits {
            cycle: e.cycle.0,
            value: Node::Inst(e.value.0),
        });
    }
    // P7, P9: operands from a cycle with a divergent exit whose use here the analysis does not
    // list as temporally divergent, by the rule that exempts it (the outermost such cycle, as
    // the list names).
    if a.mode == Mode::Precise {
        exempt_uses(a, i, &mut out);
        // P6: a value computed from an operation grouped by an anchor stays uniform where the
        // converged threads share one instance of the token.
        if let Some((value, token)) = super::precise::token_bound(a, i)
            && value != i
            && precise::shares_instance(&a.lf, &a.s, Inst(token), Inst(i))
        {
            out.push(UniformFact::SharesTokenInstance {
                value,
                token,
                in_region: precise::in_region(&a.lf, &a.s, Inst(token), Inst(i)),
            });
        }
    }
    let inst = &f.insts[i as usize];
    let j = inst.block;
    if inst.op == Opcode::Phi {
        let branches = a.divergent_branches();
        let constant = a.lf.phi_has_constant_or_undef_value(Inst(i));
        let exit_of = |b: Block| -> Option<u32> {
            // The outermost cycle around the branch with a divergent exit that `j` leaves it to.
            let mut c = s.cycle_of(b);
            let mut found = None;
            while let Some(x) = c {
                if !s.contains(x, j) && a.has_divergent_exit(x) {
                    found = Some(x);
                }
                c = s.parent(x);
            }
            found
        };
        if let Some(&b) = branches.iter().find(|&&b| a.is_join(b, j)) {
            let precise = a.mode == Mode::Precise;
            if constant {
                out.push(UniformFact::ConstantPhi { join: j, branch: b });
            } else if precise && one_value(a, i, false, |p| reached_from(a, b, p)) {
                out.push(UniformFact::SameOnDivergedPaths { join: j, branch: b });
            } else if precise
                && let Some(c) = exit_of(b)
                && one_value(a, i, true, |p| s.contains(c, p))
            {
                out.push(UniformFact::ExitPhiSameFromCycle {
                    exit: j,
                    cycle: c,
                    branch: b,
                });
            } else if !precise && let Some(c) = exit_of(b) {
                out.push(UniformFact::ExitPhiNoCycleValue {
                    exit: j,
                    cycle: c,
                    branch: b,
                });
            } else {
                out.push(UniformFact::JoinNotReported { join: j, branch: b });
            }
        } else if let Some((c, b)) = branches
            .iter()
            .find_map(|&b| a.cycle_around_headed_by(b, j).map(|c| (c, b)))
        {
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
            if a.has_divergent_exit(x) {
                let users: Vec<u32> =
                    a.lf.users(converge_uniformity::Val::Inst(Inst(i)))
                        .iter()
                        .map(|us| us.0)
                        .filter(|&us| !s.contains(x, f.insts[us as usize].block))
                        // Precise mode's list is complete and leaves out the uses a loop heart's
                        // region keeps converged per iteration.
                        .filter(|&us| {
                            a.mode != Mode::Precise || u.is_temporally_divergent(Inst(i), Inst(us))
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

/// Whether the incoming values of phi `i` on the edges from blocks `from` selects are one value
/// (compared as the IR spells them: the same value, or equal integer constants); undef and poison
/// are skipped when `skip_undef`. Conservative: constants of other kinds count as different.
fn one_value(a: &Analysed<'_>, i: u32, skip_undef: bool, from: impl Fn(Block) -> bool) -> bool {
    let m = a.module();
    let mut seen: Option<Value> = None;
    let mut any = false;
    for (v, p) in a.lf.func.phi_incoming(converge_ir::InstId(i)) {
        if !from(p) {
            continue;
        }
        if let Value::Const(c) = v
            && matches!(
                m.consts[c.0 as usize].kind,
                converge_ir::ConstKind::Undef | converge_ir::ConstKind::Poison
            )
            && skip_undef
        {
            continue;
        }
        any = true;
        match seen {
            None => seen = Some(v),
            Some(s) if same(a, s, v) => {}
            Some(_) => return false,
        }
    }
    any
}

fn same(a: &Analysed<'_>, x: Value, y: Value) -> bool {
    if x == y {
        return true;
    }
    let m = a.module();
    match (x, y) {
        (Value::Const(p), Value::Const(q)) => {
            let (cp, cq) = (&m.consts[p.0 as usize], &m.consts[q.0 as usize]);
            cp.ty == cq.ty
                && matches!((&cp.kind, &cq.kind),
                    (converge_ir::ConstKind::Int { value: u, .. }, converge_ir::ConstKind::Int { value: w, .. }) if u == w)
        }
        _ => false,
    }
}

/// Whether block `p` is the branch block `b` or reachable from it (an edge from `p` can lie on a
/// path that diverged at `b`).
fn reached_from(a: &Analysed<'_>, b: Block, p: Block) -> bool {
    use converge_graph::Graph;
    if p == b {
        return true;
    }
    let g = a.lf.cfg();
    let mut seen = vec![false; g.num_blocks()];
    let mut stack = g.succs(b).to_vec();
    while let Some(x) = stack.pop() {
        if x == p {
            return true;
        }
        if !std::mem::replace(&mut seen[x.index()], true) {
            stack.extend_from_slice(g.succs(x));
        }
    }
    false
}

/// [`UniformFact::InHeartRegion`] and [`UniformFact::CycleInvariant`] for the uses of instruction
/// `i` (precise mode).
fn exempt_uses(a: &Analysed<'_>, i: u32, out: &mut Vec<UniformFact>) {
    let (f, s, u) = (a.lf.func, &a.s, &a.u);
    let ib = f.insts[i as usize].block;
    for v in a.uses(i) {
        let Value::Inst(d) = v else { continue };
        let (d, user) = (Inst(d.0), Inst(i));
        if u.is_divergent(converge_uniformity::Val::Inst(d))
            || u.is_temporally_divergent(d, user)
            || u.uniform_exit_uses
                .iter()
                .any(|e| e.value == d && e.user == user)
        {
            continue;
        }
        let mut outermost = None;
        let mut c = s.cycle_of(f.insts[d.index()].block);
        while let Some(x) = c {
            if s.contains(x, ib) {
                break;
            }
            if a.has_divergent_exit(x) {
                outermost = Some(x);
            }
            c = s.parent(x);
        }
        let Some(x) = outermost else { continue };
        let value = Node::Inst(d.0);
        match precise::use_exemption(&a.lf, s, Cycle(x), d, user) {
            Some(precise::UseExemption::Invariant) => {
                out.push(UniformFact::CycleInvariant { cycle: x, value })
            }
            Some(precise::UseExemption::HeartRegion(t)) => out.push(UniformFact::InHeartRegion {
                cycle: x,
                value,
                heart: t.0,
            }),
            None => {}
        }
    }
}
