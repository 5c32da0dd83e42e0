//! Which memory a generic pointer can address, as far as the IR shows it: the one fact NVPTX's
//! generic-load rule needs, shared by the uniformity analysis (precise mode: a generic load is
//! no divergence source when its pointer provably addresses memory every thread sees alike) and
//! the simulator (such a load reads that memory, not the thread's own local memory).
//!
//! A generic pointer may address the thread's local memory (a local address cast to generic, an
//! alloca, a pointer passed in or loaded), where every thread finds its own contents at the same
//! address. It provably does not when every path of `getelementptr`, `bitcast`, `phi` and
//! `select` back from it ends at an `addrspacecast` from global (1), shared (3), constant (4) or
//! kernel-parameter (101) memory, or at a global variable in one of those spaces.

use crate::{FuncId, Function, Module, Opcode, Value};

/// Address spaces whose memory every thread of a group sees alike (NVPTX numbering).
fn non_local(a: u32) -> bool {
    matches!(a, 1 | 3 | 4 | 101)
}

/// Whether generic pointer `p` of function `fid` provably addresses global, shared, constant or
/// parameter memory (see the module documentation). Iterative; each value is visited once.
pub fn addresses_non_local(m: &Module, fid: FuncId, p: Value) -> bool {
    let f: &Function = m.func(fid);
    let mut stack = vec![p];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        match v {
            Value::Global(g) => {
                if !non_local(m.globals[g.0 as usize].addrspace) {
                    return false;
                }
            }
            Value::Inst(d) => {
                let inst = &f.insts[d.0 as usize];
                let ops = f.operands(d);
                match inst.op {
                    Opcode::AddrSpaceCast => {
                        let Some(&src) = ops.first() else {
                            return false;
                        };
                        let t = m.value_type(fid, src);
                        if !m.types.ptr_addrspace(t).is_some_and(non_local) {
                            return false;
                        }
                    }
                    Opcode::GetElementPtr | Opcode::BitCast => match ops.first() {
                        Some(&b) => stack.push(b),
                        None => return false,
                    },
                    Opcode::Phi => stack.extend(ops.iter().copied()),
                    Opcode::Select => stack.extend(ops.iter().skip(1).copied()),
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    true
}
