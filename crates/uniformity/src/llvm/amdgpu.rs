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
//!
//! Newer rules ([`Rules::Main`], LLVM's development branch as its lit tests expect it, and their
//! sound variants for [`Rules::Precise`]):
//! - a call to a function with the `alwaysuniform` attribute is always uniform; one with
//!   `nodivergencesource` is no source (its result follows its operands);
//! - `permlane16`/`permlanex16` are no sources: main makes the result follow `src0` (and the lane
//!   selects) only; precise mode only when `old` is `src0` itself and neither `fi` nor
//!   `bound_ctrl` is set, because a lane whose source lane is inactive gets `old` (or 0, or a
//!   stale register), so different `old`s or a stale read make converged lanes differ;
//! - work-item-id bit patterns: `lshr`/`ashr` by at least log2(wave size), `and` with a mask whose
//!   lane bits are clear, `or` with a mask whose lane bits are all set, of `workitem.id.x`. Main
//!   calls them uniform whenever the wave size is known (a processor or a wave-size feature),
//!   whatever the work-group size; that is unsound when the x dimension wraps inside a wave (a
//!   work-group of 65 x 2: wave 1 holds x = 64 and x = 0..62). Precise mode requires the x
//!   dimension not to wrap inside a wave: y and z sizes 1, or a required x size that is a
//!   multiple of the wave size (64 when the wave size is not known: a 64-aligned pattern is also
//!   32-aligned);
//! - `workitem.id.y`/`.z` are no sources when that dimension's size is 1, or when the required x
//!   size fills whole waves (main: a power of two at least the wave size; precise: a multiple);
//! - on gfx1250 (globally addressable scratch) a private-to-flat `addrspacecast` (also
//!   `llvm.amdgcn.addrspacecast.nonnull`) is a source: each lane's flat address of its scratch
//!   differs.

use super::rules::Rules;
use super::{LlvmFunction, UniformAttr};
use crate::ssa::{DivergenceModel, Inst, SourceReason, Val};
use converge_ir::{Opcode, Type, Value};

/// The AMDGPU target model: the [`DivergenceModel`] that names this target's divergence sources
/// and always-uniform operations ("Convergence And Uniformity", *Divergence*: a value is divergent
/// when it is computed from a source, data- or control-dependently), following the rules listed in
/// this module's documentation. The wavefront size and the work-group sizes come from each
/// function's attributes (or [`Amdgpu::mcpu`]).
#[derive(Clone, Debug, Default)]
pub struct Amdgpu {
    /// `--mcpu`, overriding each function's `"target-cpu"`.
    pub mcpu: Option<String>,
    /// Which release's hooks (LLVM 19's only looked at `call`: `callbr` is then neither a
    /// source nor always uniform).
    pub rules: Rules,
}

use converge_ir::intrinsics::amdgpu::{
    Computes, computes, is_addrspacecast_intrinsic, is_always_uniform_intrinsic,
    is_source_intrinsic, lookup,
};

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

/// What precise mode's source rules make of a call, judged by its callee alone (memoised per
/// callee in [`LlvmFunction`]).
#[derive(Copy, Clone, Debug)]
pub(super) enum CalleeRule {
    /// The answer, whatever the call's operands.
    Fixed(Option<SourceReason>),
    /// `llvm.read_register`: a source by its result type and register.
    ReadRegister,
    /// `permlane16`/`permlanex16`: a source unless its operands make it uniform.
    Permlane,
    /// An address-space-cast intrinsic on gfx1250: a source when it casts private to flat,
    /// otherwise the answer given.
    ScratchCast(Option<SourceReason>),
}

impl Amdgpu {
    /// The model with LLVM 22's rules ([`Rules::V22`]); `mcpu` (the `--mcpu` option), when given,
    /// overrides every function's `"target-cpu"` attribute.
    pub fn new(mcpu: Option<&str>) -> Amdgpu {
        Amdgpu {
            mcpu: mcpu.map(str::to_string),
            rules: Rules::V22,
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
        if let Some(v) = converge_ir::intrinsics::reqd_work_group_size(f.module, f.func) {
            return v.map(|s| s.saturating_sub(1));
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

    /// Whether the wave size is known: a processor (`--mcpu`, `"target-cpu"`) or a wave-size
    /// feature; without one LLVM's generic subtarget has none.
    fn wave_size_known(&self, f: &LlvmFunction<'_>) -> bool {
        let features = f.fn_attr("target-features").unwrap_or("");
        self.mcpu.is_some()
            || f.fn_attr("target-cpu").is_some()
            || features.contains("+wavefrontsize64")
            || features.contains("+wavefrontsize32")
    }

    /// The required work-group size of dimension `d` (`!reqd_work_group_size`).
    fn reqd_size(f: &LlvmFunction<'_>, d: usize) -> Option<u64> {
        converge_ir::intrinsics::reqd_work_group_size(f.module, f.func).map(|v| v[d])
    }

    /// Does the required x size fill whole waves of `1 << w` lanes (main: a power of two at least
    /// the wave size; precise: a multiple of it)?
    fn x_fills_waves(f: &LlvmFunction<'_>, w: u32, rules: Rules) -> bool {
        Self::reqd_size(f, 0).is_some_and(|x| match rules {
            Rules::Precise => x > 0 && x % (1u64 << w) == 0,
            _ => x.is_power_of_two() && x >= 1u64 << w,
        })
    }

    /// `lshr`/`ashr`/`and`/`or` of `workitem.id.x` whose result is the same for every lane of a
    /// wave (see the module documentation for which rules accept which).
    fn is_wave_uniform_tid_expr(&self, f: &LlvmFunction<'_>, i: u32, rules: Rules) -> bool {
        let inst = &f.func.insts[i as usize];
        let ops = f.operands(i);
        if ops.len() != 2 {
            return false;
        }
        let tid = converge_ir::intrinsics::amdgpu::WORKITEM_ID_X;
        let shift_or_mask = |w: u32, with_or: bool| -> bool {
            let w = w as u128;
            let mask_of = |a: Value, b: Value| -> Option<u128> {
                if Self::callee_is(f, a, tid) {
                    f.const_int(b)
                } else if Self::callee_is(f, b, tid) {
                    f.const_int(a)
                } else {
                    None
                }
            };
            let lane_bits = (1u128 << w) - 1;
            match inst.op {
                Opcode::LShr | Opcode::AShr => {
                    Self::callee_is(f, ops[0], tid) && f.const_int(ops[1]).is_some_and(|c| c >= w)
                }
                Opcode::And => mask_of(ops[0], ops[1]).is_some_and(|c| c & lane_bits == 0),
                Opcode::Or if with_or => {
                    mask_of(ops[0], ops[1]).is_some_and(|c| c & lane_bits == lane_bits)
                }
                _ => false,
            }
        };
        let yz_one = || {
            let m = Self::max_workitem_id(f);
            m[1] == 0 && m[2] == 0
        };
        match rules {
            Rules::V19 | Rules::V22 => shift_or_mask(self.wave_log2(f), false) && yz_one(),
            Rules::Main => {
                (self.wave_size_known(f) && shift_or_mask(self.wave_log2(f), true))
                    || (shift_or_mask(self.wave_log2(f), false) && yz_one())
            }
            Rules::Precise => {
                let w = if self.wave_size_known(f) {
                    self.wave_log2(f)
                } else {
                    6
                };
                shift_or_mask(w, true) && (yz_one() || Self::x_fills_waves(f, w, rules))
            }
        }
    }

    /// `workitem.id.y`/`.z` that newer rules do not count as a source: the dimension has size
    /// 1, or the x dimension fills whole waves (every lane of a wave has the same y and z).
    fn uniform_workitem_yz(&self, f: &LlvmFunction<'_>, name: &str, rules: Rules) -> bool {
        let d = match converge_ir::intrinsics::amdgpu::workitem_id_dim(name) {
            Some(d @ (1 | 2)) => d,
            _ => return false,
        };
        let w = if rules == Rules::Precise && !self.wave_size_known(f) {
            6
        } else {
            self.wave_log2(f)
        };
        Self::max_workitem_id(f)[d] == 0 || Self::x_fills_waves(f, w, rules)
    }

    /// gfx1250's globally addressable scratch: a private-to-flat cast gives each lane its own
    /// flat address.
    fn is_scratch_to_flat_cast(&self, f: &LlvmFunction<'_>, i: u32) -> bool {
        let cpu = self.mcpu.as_deref().or_else(|| f.fn_attr("target-cpu"));
        if !cpu.is_some_and(|c| c.starts_with("gfx125")) {
            return false;
        }
        let inst = &f.func.insts[i as usize];
        let from_private = || {
            f.operands(i)
                .first()
                .and_then(|&v| f.value_addrspace(v))
                .is_some_and(|a| a == 5)
        };
        let to_flat = f.module.types.ptr_addrspace(inst.ty) == Some(0);
        match inst.op {
            Opcode::AddrSpaceCast => to_flat && from_private(),
            Opcode::Call => {
                f.callee_name(i).is_some_and(is_addrspacecast_intrinsic)
                    && to_flat
                    && from_private()
            }
            _ => false,
        }
    }

    /// Whether `permlane16`/`permlanex16` call `i` is no source under `rules` (see the module
    /// documentation).
    fn uniform_permlane(&self, f: &LlvmFunction<'_>, i: u32, rules: Rules) -> bool {
        let ops = f.operands(i);
        match rules {
            Rules::V19 | Rules::V22 => false,
            Rules::Main => true,
            Rules::Precise => {
                ops.len() == 6
                    && ops[0] == ops[1]
                    && f.const_int(ops[4]) == Some(0)
                    && f.const_int(ops[5]) == Some(0)
            }
        }
    }

    fn is_permlane(name: &str) -> bool {
        converge_ir::intrinsics::amdgpu::is_scalar_select_permlane16(name)
    }

    /// [`Amdgpu::source`] of call `i` to function `g` under [`Rules::Precise`] (after the inline
    /// asm and attribute checks): the rules that read only the callee's name (and this function's
    /// attributes) are decided once per callee and remembered in `f`; the operand-dependent ones
    /// (`read_register`, `permlane16`, gfx1250's scratch casts) are then checked per call.
    fn precise_call_source(
        &self,
        f: &LlvmFunction<'_>,
        i: u32,
        g: converge_ir::FuncId,
    ) -> Option<SourceReason> {
        let memo = {
            let mut m = f.callee_rules.borrow_mut();
            if m.0 != self.mcpu {
                *m = (self.mcpu.clone(), Vec::new());
            }
            m.1.iter().find(|e| e.0 == g).map(|e| e.1)
        };
        let rule = match memo {
            Some(r) => r,
            None => {
                let r = self.callee_rule(f, g);
                f.callee_rules.borrow_mut().1.push((g, r));
                r
            }
        };
        match rule {
            CalleeRule::Fixed(r) => r,
            CalleeRule::ReadRegister => {
                let inst = &f.func.insts[i as usize];
                if matches!(f.module.types.types[inst.ty.0 as usize], Type::Int(1)) {
                    return Some(SourceReason::PerLaneRegister);
                }
                let reg = read_register_name(f, i).unwrap_or_default();
                converge_ir::intrinsics::amdgpu::is_per_lane_register(&reg)
                    .then_some(SourceReason::PerLaneRegister)
            }
            CalleeRule::Permlane => (!self.uniform_permlane(f, i, Rules::Precise))
                .then_some(SourceReason::PerLaneIntrinsic),
            CalleeRule::ScratchCast(otherwise) => {
                if self.is_scratch_to_flat_cast(f, i) {
                    Some(SourceReason::ScratchAddressCast)
                } else {
                    otherwise
                }
            }
        }
    }

    /// The callee-only part of [`Amdgpu::source`]'s call rules under [`Rules::Precise`], in the
    /// same order as there.
    fn callee_rule(&self, f: &LlvmFunction<'_>, g: converge_ir::FuncId) -> CalleeRule {
        let n = f
            .module
            .strings
            .resolve(f.module.functions[g.0 as usize].name);
        let rules = Rules::Precise;
        if converge_ir::intrinsics::is_read_register(n) {
            return CalleeRule::ReadRegister;
        }
        if Self::is_permlane(n) {
            return CalleeRule::Permlane;
        }
        if self.uniform_workitem_yz(f, n, rules) {
            return CalleeRule::Fixed(None);
        }
        let otherwise = if n.starts_with("llvm.") {
            let intrinsic = || {
                if converge_ir::intrinsics::amdgpu::is_id_intrinsic(n) {
                    SourceReason::ThreadIdIntrinsic
                } else {
                    SourceReason::PerLaneIntrinsic
                }
            };
            if lookup(n, is_source_intrinsic) {
                Some(intrinsic())
            } else if converge_ir::intrinsics::amdgpu::is_transposing_load(n) {
                Some(SourceReason::DivergentLoad(1))
            } else if computes(n) == Some(Computes::PerLane) {
                Some(intrinsic())
            } else {
                None
            }
        } else {
            Some(SourceReason::Call)
        };
        let cpu = self.mcpu.as_deref().or_else(|| f.fn_attr("target-cpu"));
        if cpu.is_some_and(|c| c.starts_with("gfx125")) && is_addrspacecast_intrinsic(n) {
            CalleeRule::ScratchCast(otherwise)
        } else {
            CalleeRule::Fixed(otherwise)
        }
    }

    /// Whether `i` is a source under `rules`, and why.
    fn source(&self, f: &LlvmFunction<'_>, i: u32, rules: Rules) -> Option<SourceReason> {
        let inst = &f.func.insts[i as usize];
        let newer = rules.newer_than_22();
        let asm = |c: &str| {
            asm_outputs_sgpr(c)
                .iter()
                .any(|&s| !s)
                .then_some(SourceReason::InlineAsm)
        };
        match inst.op {
            Opcode::Load => {
                matches!(inst.aux, 0 | 5 | 13).then_some(SourceReason::DivergentLoad(inst.aux))
            }
            Opcode::AtomicRmw | Opcode::CmpXchg => Some(SourceReason::Atomic),
            Opcode::Invoke => Some(SourceReason::Invoke),
            Opcode::AddrSpaceCast => (newer && self.is_scratch_to_flat_cast(f, i))
                .then_some(SourceReason::ScratchAddressCast),
            Opcode::CallBr => {
                if rules == Rules::V19 {
                    return None;
                }
                match f.asm_constraints(i) {
                    Some(c) => asm(c),
                    None => Some(SourceReason::Call),
                }
            }
            Opcode::Call => {
                if let Some(c) = f.asm_constraints(i) {
                    return asm(c);
                }
                if newer
                    && (f.call_has_uniform_attr(i, UniformAttr::NoDivergenceSource)
                        || f.call_has_uniform_attr(i, UniformAttr::AlwaysUniform))
                {
                    return None;
                }
                if rules == Rules::Precise
                    && let Some(g) = f.callee_fid(i)
                {
                    return self.precise_call_source(f, i, g);
                }
                let intrinsic = |n: &str| {
                    if converge_ir::intrinsics::amdgpu::is_id_intrinsic(n) {
                        SourceReason::ThreadIdIntrinsic
                    } else {
                        SourceReason::PerLaneIntrinsic
                    }
                };
                match f.callee_name(i) {
                    Some(n) if converge_ir::intrinsics::is_read_register(n) => {
                        if matches!(f.module.types.types[inst.ty.0 as usize], Type::Int(1)) {
                            return Some(SourceReason::PerLaneRegister);
                        }
                        let reg = read_register_name(f, i).unwrap_or_default();
                        converge_ir::intrinsics::amdgpu::is_per_lane_register(&reg)
                            .then_some(SourceReason::PerLaneRegister)
                    }
                    Some(n) if newer && Self::is_permlane(n) => (!self
                        .uniform_permlane(f, i, rules))
                    .then_some(SourceReason::PerLaneIntrinsic),
                    Some(n) if newer && self.uniform_workitem_yz(f, n, rules) => None,
                    Some(_) if newer && self.is_scratch_to_flat_cast(f, i) => {
                        Some(SourceReason::ScratchAddressCast)
                    }
                    Some(n) if n.starts_with("llvm.") => {
                        if lookup(n, is_source_intrinsic) {
                            Some(intrinsic(n))
                        } else if rules != Rules::V19
                            && converge_ir::intrinsics::amdgpu::is_transposing_load(n)
                        {
                            // A load of global memory transposed across the lanes.
                            Some(SourceReason::DivergentLoad(1))
                        } else if rules == Rules::Precise && computes(n) == Some(Computes::PerLane)
                        {
                            Some(intrinsic(n))
                        } else {
                            None
                        }
                    }
                    _ => Some(SourceReason::Call),
                }
            }
            _ => None,
        }
    }

    fn always_uniform(&self, f: &LlvmFunction<'_>, i: u32, rules: Rules) -> bool {
        let inst = &f.func.insts[i as usize];
        match inst.op {
            // Inline asm without VGPR outputs is uniform whatever its inputs; for `callbr` this
            // keeps its block's terminator uniform.
            Opcode::CallBr => {
                rules != Rules::V19
                    && f.asm_constraints(i)
                        .is_some_and(|c| asm_outputs_sgpr(c).iter().all(|&s| s))
            }
            Opcode::Call => {
                if let Some(c) = f.asm_constraints(i) {
                    return asm_outputs_sgpr(c).iter().all(|&s| s);
                }
                if rules.newer_than_22() && f.call_has_uniform_attr(i, UniformAttr::AlwaysUniform) {
                    return true;
                }
                f.callee_name(i).is_some_and(is_always_uniform_intrinsic)
            }
            Opcode::LShr | Opcode::AShr | Opcode::And | Opcode::Or => {
                self.is_wave_uniform_tid_expr(f, i, rules)
            }
            Opcode::ExtractValue => {
                let idx = f.func.aux_list(converge_ir::InstId(i));
                let Some(&Value::Inst(src)) = f.operands(i).first() else {
                    return false;
                };
                if idx.len() != 1 {
                    return false;
                }
                match f.callee_name(src.0) {
                    Some(n) if converge_ir::intrinsics::amdgpu::is_if_else(n) => idx[0] == 1,
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

/// Whether [`Amdgpu::source`] can name an instruction with opcode `op` a source under any rule
/// set (the opcodes its `match` answers for). Checked inline before the rules, which most
/// instructions of a module (arithmetic, compares, stores, branches) then never reach.
#[inline(always)]
fn may_be_source(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Load
            | Opcode::AtomicRmw
            | Opcode::CmpXchg
            | Opcode::Invoke
            | Opcode::AddrSpaceCast
            | Opcode::CallBr
            | Opcode::Call
    )
}

/// The same for [`Amdgpu::always_uniform`].
#[inline(always)]
fn may_be_always_uniform(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::CallBr
            | Opcode::Call
            | Opcode::LShr
            | Opcode::AShr
            | Opcode::And
            | Opcode::Or
            | Opcode::ExtractValue
    )
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

    #[inline]
    fn is_source_inst(&self, f: &LlvmFunction<'m>, i: Inst) -> bool {
        may_be_source(f.func.insts[i.index()].op) && self.source(f, i.0, self.rules).is_some()
    }

    fn source_reason(&self, f: &LlvmFunction<'m>, i: Inst) -> Option<SourceReason> {
        self.source(f, i.0, self.rules)
    }

    #[inline]
    fn is_always_uniform(&self, f: &LlvmFunction<'m>, i: Inst) -> bool {
        may_be_always_uniform(f.func.insts[i.index()].op) && self.always_uniform(f, i.0, self.rules)
    }

    #[inline]
    fn is_source_inst_precise(&self, f: &LlvmFunction<'m>, i: Inst) -> bool {
        may_be_source(f.func.insts[i.index()].op) && self.source(f, i.0, Rules::Precise).is_some()
    }

    #[inline]
    fn is_always_uniform_precise(&self, f: &LlvmFunction<'m>, i: Inst) -> bool {
        may_be_always_uniform(f.func.insts[i.index()].op)
            && self.always_uniform(f, i.0, Rules::Precise)
    }

    #[inline]
    fn ignored_operands(&self, f: &LlvmFunction<'m>, i: Inst, out: &mut Vec<Val>) {
        let i = i.0;
        // LLVM main: a permlane16's result follows `src0` and the lane selects, not `old`.
        if self.rules != Rules::Main
            || f.func.insts[i as usize].op != Opcode::Call
            || !f.callee_name(i).is_some_and(Self::is_permlane)
        {
            return;
        }
        let ops = f.operands(i);
        if ops.len() >= 2 && ops[0] != ops[1] {
            match ops[0] {
                Value::Inst(d) => out.push(Val::Inst(crate::Inst(d.0))),
                Value::Arg(a) => out.push(Val::Arg(a)),
                _ => {}
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SsaFunction;
    use converge_ir::FuncId;

    const ALWAYS_UNIFORM: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare { i1, i64 } @llvm.amdgcn.if.i64(i1)
define amdgpu_kernel void @f(ptr addrspace(1) %p) !reqd_work_group_size !0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %t)
  %s = lshr i32 %t, 6
  %a = and i32 %t, -64
  %o = or i32 %t, 63
  %c = icmp eq i32 %t, 0
  %if = call { i1, i64 } @llvm.amdgcn.if.i64(i1 %c)
  %mask = extractvalue { i1, i64 } %if, 1
  %asm = call { i32, i32 } asm "", "=s,=v"()
  %sg = extractvalue { i32, i32 } %asm, 0
  %x = load i32, ptr addrspace(1) %p
  ret void
}
!0 = !{i32 256, i32 1, i32 1}
"#;

    /// The inline opcode checks (`may_be_source`, `may_be_always_uniform`) only skip the rules
    /// for opcodes the rules never accept: every instruction of the repository's programs gets
    /// the same answer from the hooks as from the rules themselves, under every rule set and
    /// processor (gfx1250 adds the scratch address casts).
    #[test]
    fn opcode_checks_agree_with_the_rules() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in [root.join("../../examples"), root.join("tests/precise")] {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "ll") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() >= 20, "found only {} programs", files.len());
        let mut programs: Vec<(String, String)> = files
            .iter()
            .map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap()))
            .collect();
        // Every always-uniform form the rules know, which the programs above lack some of.
        programs.push(("inline".to_string(), ALWAYS_UNIFORM.to_string()));
        let (mut sources, mut uniform) = (0, 0);
        for (path, src) in programs {
            let m = converge_ir::parse(&path, src).unwrap();
            for (k, func) in m.functions.iter().enumerate() {
                if func.is_declaration {
                    continue;
                }
                let f = LlvmFunction::new(&m, FuncId(k as u32));
                for mcpu in [None, Some("gfx1250"), Some("gfx1100")] {
                    for rules in [Rules::V19, Rules::V22, Rules::Main, Rules::Precise] {
                        let t = Amdgpu {
                            mcpu: mcpu.map(str::to_string),
                            rules,
                        };
                        for i in 0..f.num_insts() {
                            let s = t.source(&f, i, rules).is_some();
                            let u = t.always_uniform(&f, i, rules);
                            let (hs, hu) = if rules == Rules::Precise {
                                (
                                    t.is_source_inst_precise(&f, Inst(i)),
                                    t.is_always_uniform_precise(&f, Inst(i)),
                                )
                            } else {
                                (
                                    t.is_source_inst(&f, Inst(i)),
                                    t.is_always_uniform(&f, Inst(i)),
                                )
                            };
                            assert_eq!(hs, s, "{path}: @{} inst {i}", f.name());
                            assert_eq!(hu, u, "{path}: @{} inst {i}", f.name());
                            sources += s as usize;
                            uniform += u as usize;
                        }
                    }
                }
            }
        }
        // Not vacuous: the programs hold sources and always-uniform instructions.
        assert!(
            sources > 0 && uniform > 0,
            "{sources} sources, {uniform} uniform"
        );
    }
}
