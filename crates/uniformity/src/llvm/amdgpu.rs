//! AMDGPU divergence model (LLVM's `GCNTTIImpl` as LLVM 19 applies it, with the intrinsic tables
//! measured on `opt` 19 plus newer intrinsics of the same families):
//! - arguments: uniform in kernels; in shader and `amdgpu_gfx`/chain conventions uniform iff
//!   `inreg` or `byval`; elsewhere uniform iff `inreg`;
//! - loads are divergent iff from flat (0) or private (5) memory; `atomicrmw`/`cmpxchg` always;
//! - intrinsic calls by table (`llvm.read_register` of a VGPR/AGPR or an i1 result too); other
//!   calls are sources unless inline asm whose outputs are all SGPRs; `invoke` is a source;
//!   `callbr` follows the call rules (newer LLVM; LLVM 19 never marked it);
//! - always uniform: `readfirstlane`-style intrinsics, SGPR-only inline asm, the mask result of
//!   `llvm.amdgcn.if/else`, and work-item-id shifts/masks that discard the lane bits (wave64, or
//!   wave32 from gfx10 on, when the y and z work-group sizes are 1);
//! - single-lane functions (`reqd_work_group_size` 1,1,1 or flat work-group size at most 1) have
//!   no divergence at all.

use super::LlvmFunction;
use crate::ssa::DivergenceModel;
use converge_ir::{Opcode, Type, Value};

#[derive(Clone, Debug, Default)]
pub struct Amdgpu {
    /// `--mcpu`, overriding each function's `"target-cpu"`.
    pub mcpu: Option<String>,
    /// LLVM 19's hooks, which only looked at `call`: `callbr` is then neither a source nor
    /// always uniform.
    pub llvm19: bool,
}

const SOURCES: &[&str] = &[
    "workitem.id.x",
    "workitem.id.y",
    "workitem.id.z",
    "mbcnt.lo",
    "mbcnt.hi",
    "ps.live",
    "live.mask",
    "inverse.ballot",
    "writelane",
    "mov.dpp",
    "mov.dpp8",
    "update.dpp",
    "permlane16",
    "permlanex16",
    "permlane16.var",
    "permlanex16.var",
    "ds.swizzle",
    "ds.ordered.add",
    "ds.ordered.swap",
    "interp.mov",
    "interp.p1",
    "interp.p2",
    "interp.p1.f16",
    "interp.p2.f16",
    "lds.param.load",
    "lds.direct.load",
    "if",
    "else",
    "loop",
    "atomic.cond.sub.u32",
    "global.atomic.csub",
    "global.atomic.ordered.add.b64",
    "global.load.tr.b64",
    "global.load.tr.b128",
];

const FP_ATOMICS: &[&str] = &[
    "fadd",
    "fadd.v2bf16",
    "fmin",
    "fmax",
    "fmin.num",
    "fmax.num",
];

const BUFFER_ATOMICS: &[&str] = &[
    "add",
    "and",
    "cmpswap",
    "cond.sub.u32",
    "dec",
    "fadd",
    "fmax",
    "fmin",
    "inc",
    "or",
    "smax",
    "smin",
    "sub",
    "swap",
    "umax",
    "umin",
    "xor",
];

const ALWAYS_UNIFORM: &[&str] = &[
    "readfirstlane",
    "readlane",
    "icmp",
    "fcmp",
    "ballot",
    "if.break",
    // Newer than LLVM 19.
    "s.mov.from.global",
    "s.swap.to.global",
];

fn is_source_intrinsic(name: &str) -> bool {
    if let Some(r) = name.strip_prefix("llvm.r600.read.tidig.") {
        return matches!(r, "x" | "y" | "z");
    }
    let Some(n) = name.strip_prefix("llvm.amdgcn.") else {
        return false;
    };
    if SOURCES.contains(&n) {
        return true;
    }
    // Newer than LLVM 19 (ray-tracing stack and shader work-reordering intrinsics).
    if n.starts_with("swc.") || (n.starts_with("rts.") && n != "rts.trace.ray.nonblock") {
        return true;
    }
    if let Some(op) = n
        .strip_prefix("global.atomic.")
        .or_else(|| n.strip_prefix("flat.atomic."))
    {
        return FP_ATOMICS.contains(&op);
    }
    for p in ["raw.", "raw.ptr.", "struct.", "struct.ptr."] {
        if let Some(op) = n
            .strip_prefix(p)
            .and_then(|r| r.strip_prefix("buffer.atomic."))
        {
            return BUFFER_ATOMICS.contains(&op);
        }
    }
    n.starts_with("image.atomic.")
        || n.starts_with("mfma.")
        || n.starts_with("smfmac.")
        || n.starts_with("wmma.")
        || n.starts_with("swmmac.")
}

/// Is `c` one component of an overloaded intrinsic's type mangling (`i32`, `f16`, `v2i32`, `p1`,
/// `nxv4f32`, `a4i8`, `s_struct`, `isVoid`, …)?
fn is_type_component(c: &str) -> bool {
    let digits_after = |p: &str| {
        c.strip_prefix(p)
            .is_some_and(|r| !r.is_empty() && r.bytes().next().unwrap().is_ascii_digit())
    };
    digits_after("i")
        || digits_after("f")
        || digits_after("v")
        || digits_after("p")
        || digits_after("a")
        || c.starts_with("nxv")
        || c.starts_with("s_")
        || c.starts_with("sl_")
        || matches!(
            c,
            "bf16" | "isVoid" | "ppcf128" | "x86mmx" | "x86amx" | "f80" | "Metadata"
        )
}

/// Looks `name` up with `pred`, first as written, then with trailing type-mangling components of
/// an overloaded intrinsic removed one at a time (`llvm.amdgcn.readfirstlane.i32` → `…readfirstlane`).
fn lookup(name: &str, pred: impl Fn(&str) -> bool) -> bool {
    let mut n = name;
    loop {
        if pred(n) {
            return true;
        }
        match n.rsplit_once('.') {
            Some((head, last)) if is_type_component(last) => n = head,
            _ => return false,
        }
    }
}

/// Inline-asm output constraints; true for each output that lands in an SGPR (or a scalar special
/// register), false for VGPR/AGPR or an unknown class.
fn asm_outputs_sgpr(constraints: &str) -> Vec<bool> {
    let mut out = Vec::new();
    for c in constraints.split(',') {
        let Some(c) = c.strip_prefix('=') else {
            continue;
        };
        let c = c.trim_start_matches('&');
        let sgpr = if let Some(reg) = c.strip_prefix('{') {
            let reg = reg.trim_end_matches('}');
            reg.starts_with('s')
                || reg.starts_with("vcc")
                || reg.starts_with("exec")
                || reg.starts_with("m0")
                || reg.starts_with("ttmp")
                || reg.starts_with("flat_scratch")
        } else {
            matches!(c, "s" | "r" | "SReg_32" | "SReg_64")
        };
        out.push(sgpr);
    }
    out
}

impl Amdgpu {
    pub fn new(mcpu: Option<&str>) -> Amdgpu {
        Amdgpu {
            mcpu: mcpu.map(str::to_string),
            llvm19: false,
        }
    }

    /// log2 of the wavefront size: 6 (wave64) by default and before gfx10, 5 (wave32) from gfx10 on
    /// unless the features ask for wave64.
    pub fn wave_log2(&self, f: &LlvmFunction<'_>) -> u32 {
        let features = f.fn_attr("target-features").unwrap_or("");
        if features.contains("+wavefrontsize64") {
            return 6;
        }
        if features.contains("+wavefrontsize32") {
            return 5;
        }
        let cpu = self.mcpu.as_deref().or_else(|| f.fn_attr("target-cpu"));
        match cpu.and_then(|c| c.strip_prefix("gfx")) {
            Some(v) if v.len() >= 4 && v.starts_with('1') => 5,
            Some(v) if v.starts_with("1") && v.contains('-') => 5, // gfx10-1-generic, gfx11-generic
            _ => 6,
        }
    }

    /// `maxWorkitemID` per dimension (LLVM's subtarget query).
    fn max_workitem_id(f: &LlvmFunction<'_>) -> [u64; 3] {
        if let Some(v) = f.fn_md_ints("reqd_work_group_size")
            && v.len() == 3
        {
            return [0, 1, 2].map(|d| (v[d] as u64).saturating_sub(1));
        }
        let max = f
            .fn_attr("amdgpu-flat-work-group-size")
            .and_then(|s| s.split(',').nth(1))
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(1024);
        [max.saturating_sub(1); 3]
    }

    fn callee_is(f: &LlvmFunction<'_>, v: Value, name: &str) -> bool {
        matches!(v, Value::Inst(d) if f.callee_name(d.0) == Some(name))
    }

    /// `lshr`/`ashr`/`and` of `workitem.id.x` that throws away the lane bits.
    fn is_wave_uniform_tid_expr(&self, f: &LlvmFunction<'_>, i: u32) -> bool {
        let inst = &f.func.insts[i as usize];
        let ops = f.operands(i);
        if ops.len() != 2 {
            return false;
        }
        let tid = "llvm.amdgcn.workitem.id.x";
        let w = self.wave_log2(f) as u128;
        let ok = match inst.op {
            Opcode::LShr | Opcode::AShr => {
                Self::callee_is(f, ops[0], tid) && f.const_int(ops[1]).is_some_and(|c| c >= w)
            }
            Opcode::And => {
                let tz = |v: Value| {
                    f.const_int(v).map(|c| {
                        if c == 0 {
                            128
                        } else {
                            c.trailing_zeros() as u128
                        }
                    })
                };
                (Self::callee_is(f, ops[0], tid) && tz(ops[1]).is_some_and(|t| t >= w))
                    || (Self::callee_is(f, ops[1], tid) && tz(ops[0]).is_some_and(|t| t >= w))
            }
            _ => false,
        };
        if !ok {
            return false;
        }
        let m = Self::max_workitem_id(f);
        m[1] == 0 && m[2] == 0
    }
}

impl<'m> DivergenceModel<LlvmFunction<'m>> for Amdgpu {
    fn has_branch_divergence(&self, f: &LlvmFunction<'m>) -> bool {
        Self::max_workitem_id(f) != [0, 0, 0]
    }

    fn is_source_arg(&self, f: &LlvmFunction<'m>, arg: u32) -> bool {
        let cc = f.call_conv();
        match cc {
            "amdgpu_kernel" | "spir_kernel" => false,
            "amdgpu_vs"
            | "amdgpu_ls"
            | "amdgpu_hs"
            | "amdgpu_es"
            | "amdgpu_gs"
            | "amdgpu_ps"
            | "amdgpu_cs"
            | "amdgpu_gfx"
            | "amdgpu_cs_chain"
            | "amdgpu_cs_chain_preserve" => {
                !(f.param_has_attr(arg, "inreg") || f.param_has_attr(arg, "byval"))
            }
            _ => !f.param_has_attr(arg, "inreg"),
        }
    }

    fn is_source_inst(&self, f: &LlvmFunction<'m>, i: u32) -> bool {
        let inst = &f.func.insts[i as usize];
        match inst.op {
            // Flat (0), private (5), and the VGPR address space 13 of newer LLVM.
            Opcode::Load => matches!(inst.aux, 0 | 5 | 13),
            Opcode::AtomicRmw | Opcode::CmpXchg => true,
            Opcode::Invoke => true,
            // Newer LLVM treats `callbr` like any call (it was not a source in 19): a source
            // unless inline asm without VGPR outputs.
            Opcode::CallBr => {
                !self.llvm19
                    && f.asm_constraints(i)
                        .is_none_or(|c| asm_outputs_sgpr(c).iter().any(|&s| !s))
            }
            Opcode::Call => {
                if let Some(c) = f.asm_constraints(i) {
                    return asm_outputs_sgpr(c).iter().any(|&s| !s);
                }
                match f.callee_name(i) {
                    Some(n) if lookup(n, |n| n == "llvm.read_register") => {
                        if matches!(f.module.types.types[inst.ty.0 as usize], Type::Int(1)) {
                            return true;
                        }
                        let reg = read_register_name(f, i).unwrap_or_default();
                        !reg.is_empty()
                            && (reg.starts_with('v') || reg.starts_with('a'))
                            && !reg.starts_with("vcc")
                    }
                    // gfx12's transposing load reads a different element per lane: newer LLVM
                    // lists it (docs/llvm-differences.md 4), LLVM 19 does not.
                    Some(n) if n.starts_with("llvm.") => {
                        lookup(n, is_source_intrinsic)
                            || (!self.llvm19 && lookup(n, |n| n == "llvm.amdgcn.global.load.tr"))
                    }
                    _ => true,
                }
            }
            _ => false,
        }
    }

    fn is_always_uniform(&self, f: &LlvmFunction<'m>, i: u32) -> bool {
        let inst = &f.func.insts[i as usize];
        match inst.op {
            // Inline asm without VGPR outputs is uniform whatever its inputs; for `callbr` this
            // keeps its block's terminator uniform.
            Opcode::CallBr => {
                !self.llvm19
                    && f.asm_constraints(i)
                        .is_some_and(|c| asm_outputs_sgpr(c).iter().all(|&s| s))
            }
            Opcode::Call => {
                if let Some(c) = f.asm_constraints(i) {
                    return asm_outputs_sgpr(c).iter().all(|&s| s);
                }
                f.callee_name(i)
                    .and_then(|n| n.strip_prefix("llvm.amdgcn."))
                    .is_some_and(|n| lookup(n, |n| ALWAYS_UNIFORM.contains(&n)))
            }
            Opcode::LShr | Opcode::AShr | Opcode::And => self.is_wave_uniform_tid_expr(f, i),
            Opcode::ExtractValue => {
                let idx = &f.func.aux[inst.aux_list.range()];
                let Some(&Value::Inst(src)) = f.operands(i).first() else {
                    return false;
                };
                if idx.len() != 1 {
                    return false;
                }
                match f.callee_name(src.0) {
                    Some(n) if lookup(n, |n| n == "llvm.amdgcn.if" || n == "llvm.amdgcn.else") => {
                        idx[0] == 1
                    }
                    _ => f.asm_constraints(src.0).is_some_and(|c| {
                        asm_outputs_sgpr(c)
                            .get(idx[0] as usize)
                            .copied()
                            .unwrap_or(false)
                    }),
                }
            }
            _ => false,
        }
    }
}

/// The register name of `llvm.read_register(metadata !{!"v1"})`.
fn read_register_name(f: &LlvmFunction<'_>, i: u32) -> Option<String> {
    let m = f.module;
    let &Value::Meta(md) = f.operands(i).first()? else {
        return None;
    };
    let ops = super::md_tuple(m, md.0)?;
    match super::resolve_md(m, ops.first()?.0) {
        converge_ir::Metadata::String(s) => Some(m.strings.resolve(*s).to_string()),
        _ => None,
    }
}
