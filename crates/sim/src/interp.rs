//! An interpreter of one converge-ir function for a group of threads, with a scheduler that lets a
//! communicating operation see exactly the threads executing converged instances of it.
//!
//! Each thread runs on its own until it reaches a communicating operation (ballot, readfirstlane,
//! subgroup reductions and shuffles, any other convergent call), where it waits with the class of
//! its dynamic instance (see [`crate::instances`]). When every thread waits or has finished, a
//! waiting group is released once no other live thread can still produce an instance of the same
//! class: for maximal convergence that means reaching the block without passing a header of a cycle
//! containing it (in the thread's current header context, recursively for header instances not yet
//! executed); for tokens, holding or being able to produce the token's class and reaching the
//! operation. The reachability tests are static, so the check is conservative: it may hold a group
//! back, never release it early. If every group is held back (only possible through infeasible static
//! paths), the group of the lowest thread is released and the run says so in its notes.
//!
//! Memory model (docs/simulation.md): allocas are per thread (the same address in every thread, as
//! private memory is on GPUs). Other memory is shared by the group and starts with deterministic
//! contents (global initialisers, a hash of the address elsewhere). Loads, stores and atomics on it
//! synchronise like communicating operations: the converged instances access memory at once, in
//! thread order (the highest thread's store wins; atomics apply one thread after the other), and
//! non-converged instances in the order the scheduler releases them. Loads through the address
//! spaces the targets treat as divergent (0 flat/generic, 5 private) do not synchronise; of memory
//! that is neither an alloca nor written, they return per-thread values.

use crate::hierarchy::Hierarchy;
use crate::instances::{ClassId, Classes, Key, NONE, Tracker};
use crate::value::{Val, mask, mix, mix2, sext};
use converge_graph::{Block, Cfg, DominatorTree, Graph};
use converge_ir::{
    CallInfo, ConstId, ConstKind, FPred, Function, IPred, InstId, Module, Opcode, Type, TypeId,
    Value,
};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// The target whose id intrinsics and wave size apply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Amdgpu,
    Nvptx,
    Generic,
}

impl Target {
    /// From a module triple.
    pub fn from_triple(t: Option<&str>) -> Target {
        match t {
            Some(t) if t.starts_with("amdgcn") => Target::Amdgpu,
            Some(t) if t.starts_with("nvptx") => Target::Nvptx,
            _ => Target::Generic,
        }
    }
    pub fn wave_size(self) -> u32 {
        match self {
            Target::Nvptx => 32,
            _ => 64,
        }
    }
}

/// A kernel argument given on the command line.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ArgValue {
    Int(i128),
    Float(f64),
}

#[derive(Clone, Debug)]
pub struct Options {
    pub threads: u32,
    /// Per parameter; missing entries are drawn from `seed` (the same in every thread).
    pub args: Vec<Option<ArgValue>>,
    pub seed: u64,
    /// Steps (instructions) per thread before it is stopped.
    pub step_limit: u64,
    pub target: Target,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 4,
            args: Vec::new(),
            seed: 0,
            step_limit: 100_000,
            target: Target::Generic,
        }
    }
}

/// How a thread ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Returned(Option<String>),
    StepLimit,
    Unreachable,
    Error(String),
}

/// One executed instruction with a result.
#[derive(Clone, Debug)]
pub struct Record {
    pub inst: InstId,
    /// Converged instances of `inst` have equal classes (maximal, or controlled where tokens
    /// apply).
    pub class: ClassId,
    pub val: Val,
}

#[derive(Clone, Debug)]
pub struct ThreadRun {
    pub tid: u32,
    /// Block instances with their maximal classes.
    pub blocks: Vec<(Block, ClassId)>,
    pub records: Vec<Record>,
    /// The communicating and shared-memory instances the thread waited at: (instruction, key of
    /// its group).
    pub waits: Vec<(InstId, ClassId)>,
    pub status: Status,
    pub steps: u64,
}

/// A released group of a communicating operation.
#[derive(Clone, Debug)]
pub struct Group {
    pub inst: InstId,
    pub class: ClassId,
    pub threads: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Run {
    pub threads: Vec<ThreadRun>,
    pub classes: Classes,
    pub groups: Vec<Group>,
    /// Whether the function uses convergence control tokens (controlled convergence).
    pub controlled: bool,
    pub args: Vec<Val>,
    pub notes: Vec<String>,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Comm {
    ReadFirstLane,
    ReadLane,
    Ballot,
    AmdIcmp,
    AmdFcmp,
    IfBreak,
    Reduce(Red),
    Permlane64,
    Bpermute,
    NvBallot,
    NvAny,
    NvAll,
    NvUni,
    NvActiveMask,
    NvShfl(u8),
    SgBroadcastFirst,
    SgShuffle,
    /// Any other convergent call: its value (if any) identifies the set of communicating threads.
    Opaque,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Red {
    Add,
    Min,
    Max,
    UMin,
    UMax,
    And,
    Or,
    Xor,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum CallKind {
    TokEntry,
    TokAnchor,
    TokLoop,
    Comm(Comm),
    ThreadId,
    LaneId,
    MbcntLo,
    MbcntHi,
    /// The number of threads in the group (block/workgroup size queries).
    GroupSize,
    WaveSize,
    /// Zero in every thread (workgroup ids, other dimensions).
    Zero,
    /// A pure function of the operands.
    Pure,
    /// A different deterministic value per thread (unknown calls, divergence sources).
    PerThread,
    InverseBallot,
    Identity,
    Ctpop,
    MinMax(Red),
    Abs,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Kind {
    Plain,
    Call(CallKind),
    /// A load, store or atomic on memory shared by the group: converged instances access it at
    /// once, like a communicating operation.
    Mem,
}

/// Target and name classification of a callee.
fn classify_callee(name: &str, convergent: bool, target: Target) -> CallKind {
    use CallKind::*;
    let red = |s: &str| -> Option<Red> {
        Some(match s {
            "add" | "fadd" => Red::Add,
            "min" | "smin" | "fmin" => Red::Min,
            "max" | "smax" | "fmax" => Red::Max,
            "umin" => Red::UMin,
            "umax" => Red::UMax,
            "and" => Red::And,
            "or" => Red::Or,
            "xor" => Red::Xor,
            _ => return None,
        })
    };
    match name {
        "llvm.experimental.convergence.entry" => return TokEntry,
        "llvm.experimental.convergence.anchor" => return TokAnchor,
        "llvm.experimental.convergence.loop" => return TokLoop,
        "llvm.amdgcn.workitem.id.x" | "llvm.nvvm.read.ptx.sreg.tid.x" => return ThreadId,
        "llvm.nvvm.read.ptx.sreg.laneid" | "getSubgroupLocalInvocationId" => return LaneId,
        "llvm.amdgcn.mbcnt.lo" => return MbcntLo,
        "llvm.amdgcn.mbcnt.hi" => return MbcntHi,
        "llvm.nvvm.read.ptx.sreg.ntid.x" => return GroupSize,
        "llvm.nvvm.read.ptx.sreg.warpsize" | "llvm.amdgcn.wavefrontsize" => return WaveSize,
        "llvm.amdgcn.readfirstlane" | "subgroupBroadcastFirst" => {
            return Comm(if name.starts_with("llvm") {
                self::Comm::ReadFirstLane
            } else {
                self::Comm::SgBroadcastFirst
            });
        }
        "llvm.amdgcn.readlane" => return Comm(self::Comm::ReadLane),
        "llvm.amdgcn.if.break" => return Comm(self::Comm::IfBreak),
        "llvm.amdgcn.permlane64" => return Comm(self::Comm::Permlane64),
        "llvm.amdgcn.ds.bpermute" => return Comm(self::Comm::Bpermute),
        "subgroupBallot" => return Comm(self::Comm::Ballot),
        "subgroupAdd" => return Comm(self::Comm::Reduce(Red::Add)),
        "subgroupShuffle" => return Comm(self::Comm::SgShuffle),
        "llvm.nvvm.activemask" => return Comm(self::Comm::NvActiveMask),
        "llvm.amdgcn.inverse.ballot" => return InverseBallot,
        "llvm.amdgcn.wwm"
        | "llvm.amdgcn.strict.wwm"
        | "llvm.amdgcn.wqm"
        | "llvm.amdgcn.set.inactive" => {
            return Identity;
        }
        _ => {}
    }
    let base = strip_type_suffix(name);
    // `llvm.amdgcn.if.break.i64.i64`: the mangled name, not a per-thread `llvm.amdgcn.if*`.
    if base == "llvm.amdgcn.if.break" {
        return Comm(self::Comm::IfBreak);
    }
    if base == "llvm.amdgcn.readfirstlane" {
        return Comm(self::Comm::ReadFirstLane);
    }
    if base == "llvm.amdgcn.readlane" {
        return Comm(self::Comm::ReadLane);
    }
    if base == "llvm.amdgcn.ballot" {
        return Comm(self::Comm::Ballot);
    }
    if base == "llvm.amdgcn.icmp" {
        return Comm(self::Comm::AmdIcmp);
    }
    if base == "llvm.amdgcn.fcmp" {
        return Comm(self::Comm::AmdFcmp);
    }
    if base == "llvm.amdgcn.permlane64" {
        return Comm(self::Comm::Permlane64);
    }
    if base == "llvm.amdgcn.inverse.ballot" {
        return InverseBallot;
    }
    if matches!(
        base,
        "llvm.amdgcn.wwm"
            | "llvm.amdgcn.strict.wwm"
            | "llvm.amdgcn.wqm"
            | "llvm.amdgcn.set.inactive"
    ) {
        return Identity;
    }
    if let Some(r) = base.strip_prefix("llvm.amdgcn.wave.reduce.").and_then(red) {
        return Comm(self::Comm::Reduce(r));
    }
    if let Some(rest) = name.strip_prefix("llvm.nvvm.vote.") {
        return Comm(match rest {
            r if r.starts_with("ballot") => self::Comm::NvBallot,
            r if r.starts_with("any") => self::Comm::NvAny,
            r if r.starts_with("all") => self::Comm::NvAll,
            _ => self::Comm::NvUni,
        });
    }
    if let Some(rest) = name.strip_prefix("llvm.nvvm.shfl.sync.") {
        let m = if rest.starts_with("idx") {
            0
        } else if rest.starts_with("up") {
            1
        } else if rest.starts_with("down") {
            2
        } else {
            3
        };
        return Comm(self::Comm::NvShfl(m));
    }
    if let Some(r) = name
        .strip_prefix("llvm.nvvm.redux.sync.")
        .and_then(|rest| red(rest.split('.').next().unwrap_or("")))
    {
        return Comm(self::Comm::Reduce(r));
    }
    if base == "llvm.ctpop" {
        return Ctpop;
    }
    if base == "llvm.abs" {
        return Abs;
    }
    for (n, r) in [
        ("llvm.smin", Red::Min),
        ("llvm.smax", Red::Max),
        ("llvm.umin", Red::UMin),
        ("llvm.umax", Red::UMax),
    ] {
        if base == n {
            return MinMax(r);
        }
    }
    if name.starts_with("llvm.amdgcn.workitem.id.")
        || name.starts_with("llvm.nvvm.read.ptx.sreg.tid.")
        || name.starts_with("llvm.amdgcn.workgroup.id.")
        || name.starts_with("llvm.nvvm.read.ptx.sreg.ctaid.")
    {
        return Zero;
    }
    if let Some(rest) = name.strip_prefix("llvm.amdgcn.") {
        return if amdgpu_divergent_intrinsic(rest) {
            PerThread
        } else if convergent {
            Comm(self::Comm::Opaque)
        } else {
            Pure
        };
    }
    if name.starts_with("llvm.nvvm.") {
        return if convergent {
            Comm(self::Comm::Opaque)
        } else {
            PerThread
        };
    }
    if name.starts_with("llvm.") {
        return Pure;
    }
    let _ = target;
    if convergent {
        Comm(self::Comm::Opaque)
    } else {
        PerThread
    }
}

/// `llvm.amdgcn.readfirstlane.i32` -> `llvm.amdgcn.readfirstlane`: drops trailing type suffixes.
fn strip_type_suffix(name: &str) -> &str {
    let mut s = name;
    while let Some((head, last)) = s.rsplit_once('.') {
        let is_ty = last.starts_with('i')
            && last[1..].chars().all(|c| c.is_ascii_digit())
            && last.len() > 1
            || matches!(
                last,
                "f16" | "f32" | "f64" | "bf16" | "p0" | "p1" | "p3" | "p5"
            )
            || (last.starts_with('v')
                && last.len() > 1
                && last[1..2].chars().all(|c| c.is_ascii_digit()));
        if !is_ty {
            break;
        }
        s = head;
    }
    s
}

/// AMDGPU intrinsics that LLVM 19 treats as sources of divergence (notes §3.3, by family).
fn amdgpu_divergent_intrinsic(rest: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "workitem.id",
        "mbcnt",
        "ps.live",
        "live.mask",
        "writelane",
        "mov.dpp",
        "update.dpp",
        "permlane16",
        "permlanex16",
        "ds.swizzle",
        "ds.ordered",
        "interp.mov",
        "interp.p1",
        "interp.p2",
        "lds.param.load",
        "lds.direct.load",
        "if",
        "else",
        "loop",
        "atomic",
        "global.atomic",
        "flat.atomic",
        "raw.buffer.atomic",
        "raw.ptr.buffer.atomic",
        "struct.buffer.atomic",
        "struct.ptr.buffer.atomic",
        "image.atomic",
        "global.load.tr",
        "mfma",
        "smfmac",
        "wmma",
        "swmmac",
    ];
    if rest == "if.break" {
        return false;
    }
    PREFIXES.iter().any(|p| {
        rest == *p
            || rest
                .strip_prefix(p)
                .is_some_and(|r| r.starts_with('.') || r.starts_with('_'))
    })
}

/// The function prepared for execution.
pub struct Program<'m> {
    pub m: &'m Module,
    pub f: &'m Function,
    pub cfg: Cfg,
    kinds: Vec<Kind>,
    /// The `convergencectrl` token operand per instruction.
    ctrl: Vec<Option<Value>>,
    pub controlled: bool,
    /// Per block: token-defining instructions whose convergence region contains the block.
    regions: Vec<Vec<u32>>,
    pos: Vec<u32>,
    target: Target,
    reach: std::cell::RefCell<HashMap<(u32, u32, bool), bool>>,
    /// Functions of the module called from here, prepared on first use.
    callees: std::cell::RefCell<HashMap<u32, Rc<Program<'m>>>>,
}

impl Program<'_> {
    pub fn target(&self) -> Target {
        self.target
    }
}

fn sym(m: &Module, s: converge_ir::Sym) -> &str {
    m.strings.resolve(s)
}

/// The control-flow graph of `f`: successors from each block's terminator, in operand order.
pub fn function_cfg(f: &Function) -> Cfg {
    let succs: Vec<Vec<Block>> = f
        .blocks
        .iter()
        .map(|b| {
            if b.insts.is_empty() {
                return Vec::new();
            }
            let t = &f.insts[b.insts.end as usize - 1];
            if t.op.is_terminator() {
                f.block_refs[t.blocks.range()].to_vec()
            } else {
                Vec::new()
            }
        })
        .collect();
    Cfg::from_succs(Block(0), f.blocks.len(), succs)
}

impl<'m> Program<'m> {
    pub fn new(m: &'m Module, f: &'m Function, target: Target) -> Program<'m> {
        let cfg = function_cfg(f);
        let n = f.insts.len();
        let mut kinds = vec![Kind::Plain; n];
        let mut ctrl = vec![None; n];
        let mut controlled = false;
        let mut pos = vec![0u32; n];
        for b in &f.blocks {
            for (k, i) in b.insts.range().enumerate() {
                pos[i] = k as u32;
            }
        }
        for (i, inst) in f.insts.iter().enumerate() {
            let generic = target == Target::Generic;
            let shared = match inst.op {
                Opcode::Load => generic || (inst.aux != 0 && inst.aux != 5),
                Opcode::Store | Opcode::CmpXchg => inst.aux != 5,
                Opcode::AtomicRmw => inst.aux2 != 5,
                _ => false,
            };
            if shared {
                kinds[i] = Kind::Mem;
            }
            if !inst.op.is_call_like() {
                continue;
            }
            let ci: &CallInfo = &f.calls[inst.aux as usize];
            for bd in &f.bundles[ci.bundles.range()] {
                if sym(m, bd.tag) == "convergencectrl" && !bd.operands.is_empty() {
                    ctrl[i] = Some(f.operands[bd.operands.start as usize]);
                    controlled = true;
                }
            }
            let has_attr = |r: converge_ir::Range32, k: &str| {
                m.attrs[r.range()].iter().any(|a| sym(m, a.key) == k)
            };
            let (name, callee_conv) = match ci.callee {
                Value::Func(fid) => {
                    let callee = &m.functions[fid.0 as usize];
                    (
                        sym(m, callee.name).to_string(),
                        has_attr(callee.attrs, "convergent"),
                    )
                }
                Value::Asm(a) => {
                    let c = sym(m, m.asms[a.0 as usize].constraints);
                    let div = c.contains("=v") || c.contains("={v") || c.contains("=a");
                    kinds[i] = Kind::Call(if div {
                        CallKind::PerThread
                    } else {
                        CallKind::Pure
                    });
                    continue;
                }
                _ => (String::new(), false),
            };
            let convergent =
                callee_conv || has_attr(ci.fn_attrs, "convergent") || ctrl[i].is_some();
            let kind = classify_callee(&name, convergent, target);
            if matches!(
                kind,
                CallKind::TokEntry | CallKind::TokAnchor | CallKind::TokLoop
            ) {
                controlled = true;
            }
            kinds[i] = Kind::Call(kind);
        }
        let regions = if controlled {
            token_regions(f, &cfg, &kinds)
        } else {
            vec![Vec::new(); f.blocks.len()]
        };
        Program {
            m,
            f,
            cfg,
            kinds,
            ctrl,
            controlled,
            regions,
            pos,
            target,
            reach: Default::default(),
            callees: Default::default(),
        }
    }

    /// Whether calls to this function can be executed inline, as one step of the caller: no
    /// communicating operations, no shared-memory accesses, no tokens.
    fn is_self_contained(&self) -> bool {
        !self.controlled
            && self.kinds.iter().all(|k| {
                matches!(k, Kind::Plain)
                    || matches!(k, Kind::Call(c) if !matches!(c, CallKind::Comm(_)))
            })
    }

    fn ty(&self, t: TypeId) -> &Type {
        &self.m.types.types[t.0 as usize]
    }

    fn int_width(&self, t: TypeId) -> u32 {
        match self.ty(t) {
            Type::Int(w) => *w,
            Type::Ptr(_) => 64,
            Type::Vector { elem, .. } => self.int_width(*elem),
            _ => 64,
        }
    }

    fn is_f32(&self, t: TypeId) -> bool {
        match self.ty(t) {
            Type::Float | Type::Half | Type::BFloat => true,
            Type::Vector { elem, .. } => self.is_f32(*elem),
            _ => false,
        }
    }

    /// Size in bytes (natural alignment, 8-byte pointers).
    fn size_of(&self, t: TypeId) -> u64 {
        match self.ty(t) {
            Type::Int(w) => (*w as u64).div_ceil(8),
            Type::Half | Type::BFloat => 2,
            Type::Float => 4,
            Type::Double | Type::Ptr(_) => 8,
            Type::X86Fp80 | Type::Fp128 | Type::PpcFp128 => 16,
            Type::Vector { len, elem, .. } => *len as u64 * self.size_of(*elem),
            Type::Array { len, elem } => len * self.size_of(*elem),
            Type::Struct { fields, .. } => {
                let mut off = 0u64;
                for &ft in &self.m.types.lists[fields.range()] {
                    let a = self.align_of(ft);
                    off = off.div_ceil(a) * a + self.size_of(ft);
                }
                off.div_ceil(self.align_of(t)) * self.align_of(t)
            }
            Type::Named(i) => match self.m.types.named.get(*i as usize).and_then(|x| x.1) {
                Some(b) => self.size_of(b),
                None => 8,
            },
            _ => 8,
        }
    }

    fn align_of(&self, t: TypeId) -> u64 {
        match self.ty(t) {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => self.align_of(*elem),
            Type::Struct { fields, .. } => self.m.types.lists[fields.range()]
                .iter()
                .map(|&f| self.align_of(f))
                .max()
                .unwrap_or(1),
            Type::Named(i) => match self.m.types.named.get(*i as usize).and_then(|x| x.1) {
                Some(b) => self.align_of(b),
                None => 8,
            },
            _ => self.size_of(t).clamp(1, 8).next_power_of_two(),
        }
    }

    /// Byte offset and type of field `idx` of aggregate type `t`.
    fn field(&self, t: TypeId, idx: u64) -> (u64, TypeId) {
        match self.ty(t) {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                (idx * self.size_of(*elem), *elem)
            }
            Type::Struct { fields, .. } => {
                let fs = &self.m.types.lists[fields.range()];
                let mut off = 0u64;
                for (k, &ft) in fs.iter().enumerate() {
                    let a = self.align_of(ft);
                    off = off.div_ceil(a) * a;
                    if k as u64 == idx {
                        return (off, ft);
                    }
                    off += self.size_of(ft);
                }
                (off, t)
            }
            Type::Named(i) => match self.m.types.named.get(*i as usize).and_then(|x| x.1) {
                Some(b) => self.field(b, idx),
                None => (0, t),
            },
            _ => (0, t),
        }
    }

    fn callee_name(&self, i: usize) -> String {
        let ci = &self.f.calls[self.f.insts[i].aux as usize];
        match ci.callee {
            Value::Func(fid) => sym(self.m, self.m.functions[fid.0 as usize].name).to_string(),
            _ => "<indirect>".to_string(),
        }
    }

    /// Whether `to` is reachable from `from` by a path of at least one edge; with `avoid`, no
    /// intermediate block may head a cycle (of `h`) containing `to`.
    fn reaches(&self, h: &Hierarchy, from: Block, to: Block, avoid: bool) -> bool {
        let key = (from.0, to.0, avoid);
        if let Some(&r) = self.reach.borrow().get(&key) {
            return r;
        }
        let n = self.cfg.num_blocks();
        let mut seen = vec![false; n];
        let mut stack: Vec<Block> = self.cfg.succs(from).to_vec();
        let mut found = false;
        while let Some(b) = stack.pop() {
            if b == to {
                found = true;
                break;
            }
            if seen[b.index()] || (avoid && h.is_relevant_header(b, to)) {
                continue;
            }
            seen[b.index()] = true;
            stack.extend_from_slice(self.cfg.succs(b));
        }
        self.reach.borrow_mut().insert(key, found);
        found
    }
}

/// Convergence regions of the token-defining instructions, per block: a block is in the region of
/// `D` when `D`'s block dominates it and a use of `D`'s token is reachable from it inside the
/// blocks `D` dominates.
fn token_regions(f: &Function, cfg: &Cfg, kinds: &[Kind]) -> Vec<Vec<u32>> {
    let nb = f.blocks.len();
    let dt = DominatorTree::new(cfg);
    let mut out = vec![Vec::new(); nb];
    let mut uses: HashMap<u32, Vec<Block>> = HashMap::new();
    for (i, inst) in f.insts.iter().enumerate() {
        if !inst.op.is_call_like() {
            continue;
        }
        let ci = &f.calls[inst.aux as usize];
        for bd in &f.bundles[ci.bundles.range()] {
            for &v in &f.operands[bd.operands.range()] {
                if let Value::Inst(d) = v {
                    uses.entry(d.0).or_default().push(f.insts[i].block);
                }
            }
        }
    }
    for (d, kind) in kinds.iter().enumerate() {
        if !matches!(
            kind,
            Kind::Call(CallKind::TokEntry | CallKind::TokAnchor | CallKind::TokLoop)
        ) {
            continue;
        }
        let Some(ub) = uses.get(&(d as u32)) else {
            continue;
        };
        let db = f.insts[d].block;
        // Backwards from the uses, staying inside D's dominance region.
        let mut inr = vec![false; nb];
        let mut stack: Vec<Block> = ub.clone();
        while let Some(b) = stack.pop() {
            if inr[b.index()] || !dt.is_reachable(b) || !dt.dominates(db, b) {
                continue;
            }
            inr[b.index()] = true;
            if b != db {
                stack.extend_from_slice(cfg.preds(b));
            }
        }
        for b in 0..nb {
            if inr[b] {
                out[b].push(d as u32);
            }
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum TState {
    Running,
    Waiting,
    Done,
}

#[derive(Clone)]
struct Thread {
    tid: u32,
    block: Block,
    pos: u32,
    regs: Vec<Val>,
    tracker: Tracker,
    bclass: ClassId,
    state: TState,
    status: Option<Status>,
    steps: u64,
    private: HashMap<u64, u8>,
    alloca_next: u64,
    produced: HashSet<ClassId>,
    token_last: HashMap<u32, ClassId>,
    heart_count: HashMap<(u32, ClassId), u32>,
    occurrence: u64,
    pending: Option<(u32, ClassId, Vec<Val>)>,
    blocks: Vec<(Block, ClassId)>,
    records: Vec<Record>,
    waits: Vec<(InstId, ClassId)>,
    /// The value returned by `ret`, for calls into functions of the module.
    ret: Option<Val>,
}

const PRIVATE_BASE: u64 = 0x00A0_0000_0000_0000;
const PRIVATE_END: u64 = 0x00B0_0000_0000_0000;

fn global_addr(g: u32) -> u64 {
    0x0010_0000_0000 + (g as u64) * 0x1_0000_0000
}

/// Runs `prog` for a group of threads under hierarchy `h`.
pub fn run(prog: &Program<'_>, h: &Hierarchy, opts: &Options) -> Run {
    let f = prog.f;
    // Reachability that avoids headers depends on the hierarchy.
    prog.reach.borrow_mut().clear();
    let mut classes = Classes::default();
    let mut notes = Vec::new();
    // Arguments: uniform across the group.
    let mut args = Vec::new();
    for (k, p) in f.params.iter().enumerate() {
        let given = opts.args.get(k).copied().flatten();
        let v = match (given, prog.ty(p.ty)) {
            (Some(ArgValue::Int(x)), Type::Ptr(_)) => Val::P(x as u64),
            (Some(ArgValue::Int(x)), _) => Val::I((x as u128) & mask(prog.int_width(p.ty))),
            (Some(ArgValue::Float(x)), _) => Val::F(x),
            (None, Type::Ptr(_)) => Val::P(0x0100_0000_0000 + (k as u64) * 0x1000_0000),
            (None, Type::Float | Type::Half | Type::BFloat | Type::Double) => {
                Val::F((mix2(opts.seed, k as u64) % 2001) as f64 / 8.0 - 125.0)
            }
            (None, _) => {
                // Small values, so loop bounds stay reasonable.
                Val::I((mix2(opts.seed, k as u64) % 17) as u128 & mask(prog.int_width(p.ty)))
            }
        };
        args.push(v);
    }
    if f.blocks.is_empty() {
        notes.push("the function has no body".to_string());
        return Run {
            threads: Vec::new(),
            classes,
            groups: Vec::new(),
            controlled: prog.controlled,
            args,
            notes,
        };
    }
    let nb = f.blocks.len();
    let mut threads: Vec<Thread> = (0..opts.threads)
        .map(|tid| Thread {
            tid,
            block: Block(0),
            pos: 0,
            regs: vec![Val::Undef; f.insts.len()],
            tracker: Tracker::new(nb),
            bclass: NONE,
            state: TState::Running,
            status: None,
            steps: 0,
            private: HashMap::new(),
            alloca_next: PRIVATE_BASE,
            produced: HashSet::new(),
            token_last: HashMap::new(),
            heart_count: HashMap::new(),
            occurrence: 0,
            pending: None,
            blocks: Vec::new(),
            records: Vec::new(),
            waits: Vec::new(),
            ret: None,
        })
        .collect();
    let mut ex = Exec {
        p: prog,
        h,
        opts,
        args: &args,
        classes: &mut classes,
        notes: &mut notes,
        shared: HashMap::new(),
        depth: 0,
    };
    for t in threads.iter_mut() {
        ex.enter(t, Block(0), None);
    }
    let mut groups = Vec::new();
    let mut fallbacks = 0u32;
    let mut speculations = 0u32;
    loop {
        for t in threads.iter_mut() {
            if t.state == TState::Running {
                ex.run_thread(t);
            }
        }
        // Everyone waits or is done: release the groups nobody else can still join.
        let mut keys: Vec<(u32, ClassId)> = Vec::new();
        for t in &threads {
            if let (TState::Waiting, Some((i, c, _))) = (&t.state, &t.pending)
                && !keys.contains(&(*i, *c))
            {
                keys.push((*i, *c));
            }
        }
        if keys.is_empty() {
            break;
        }
        let mut released = Vec::new();
        for &(i, c) in &keys {
            let blocked = threads.iter().any(|t| {
                t.state == TState::Waiting
                    && t.pending.as_ref().is_some_and(|p| (p.0, p.1) != (i, c))
                    && ex.could_produce_use(t, i, c)
            });
            if !blocked {
                released.push((i, c));
            }
        }
        if released.is_empty() {
            // The static test holds every group back. Look ahead: run each blocking thread on a
            // copy (its own pending operation released with its current group) and see whether it
            // really reaches the group's instance.
            for &(i, c) in &keys {
                let blocked = threads.iter().any(|t| {
                    t.state == TState::Waiting
                        && t.pending.as_ref().is_some_and(|p| (p.0, p.1) != (i, c))
                        && ex.could_produce_use(t, i, c)
                        && ex.speculate_reaches(&threads, t.tid, (i, c))
                });
                if !blocked {
                    released.push((i, c));
                    break;
                }
            }
            speculations += 1;
        }
        if released.is_empty() {
            fallbacks += 1;
            released.push(keys[0]);
        }
        for (i, c) in released {
            let members: Vec<usize> = (0..threads.len())
                .filter(|&k| {
                    threads[k].state == TState::Waiting
                        && threads[k]
                            .pending
                            .as_ref()
                            .is_some_and(|p| (p.0, p.1) == (i, c))
                })
                .collect();
            ex.release(&mut threads, &members, i);
            groups.push(Group {
                inst: InstId(i),
                class: c,
                threads: members.iter().map(|&k| threads[k].tid).collect(),
            });
        }
    }
    if speculations > 0 {
        notes.push(format!(
            "scheduling: {speculations} time(s) the static test held every group back; resolved by \
             running the blocking threads ahead on copies"
        ));
    }
    if fallbacks > 0 {
        notes.push(format!(
            "scheduling: {fallbacks} time(s) every waiting group could still be joined by another thread \
             (static over-approximation); released the first group anyway"
        ));
    }
    let threads = threads
        .into_iter()
        .map(|t| ThreadRun {
            tid: t.tid,
            blocks: t.blocks,
            records: t.records,
            waits: t.waits,
            status: t.status.unwrap_or(Status::Error("did not finish".into())),
            steps: t.steps,
        })
        .collect();
    Run {
        threads,
        classes,
        groups,
        controlled: prog.controlled,
        args,
        notes,
    }
}

struct Exec<'a, 'm> {
    p: &'a Program<'m>,
    h: &'a Hierarchy,
    opts: &'a Options,
    args: &'a [Val],
    classes: &'a mut Classes,
    notes: &'a mut Vec<String>,
    /// Bytes written to memory shared by the group.
    shared: HashMap<u64, u8>,
    /// Call nesting (calls into functions of the module are executed inline).
    depth: u32,
}

impl Exec<'_, '_> {
    fn note(&mut self, s: String) {
        if !self.notes.contains(&s) {
            self.notes.push(s);
        }
    }

    fn finish(&self, t: &mut Thread, s: Status) {
        t.state = TState::Done;
        t.status = Some(s);
    }

    /// Enters block `b` from `prev`: a new block instance, then its phis (simultaneously).
    fn enter(&mut self, t: &mut Thread, b: Block, prev: Option<Block>) {
        let f = self.p.f;
        t.bclass = t.tracker.enter(self.h, self.classes, b);
        t.produced.insert(t.bclass);
        t.blocks.push((b, t.bclass));
        t.block = b;
        t.pos = 0;
        let range = f.blocks[b.index()].insts.range();
        let mut phis: Vec<(usize, Val)> = Vec::new();
        for i in range.clone() {
            let inst = &f.insts[i];
            if inst.op != Opcode::Phi {
                break;
            }
            let mut v = Val::Undef;
            if let Some(pb) = prev {
                let ops = &f.operands[inst.operands.range()];
                let bl = &f.block_refs[inst.blocks.range()];
                if let Some(k) = bl.iter().position(|&x| x == pb) {
                    v = self.value(t, ops[k], inst.ty);
                }
            }
            phis.push((i, v));
        }
        for (i, v) in phis {
            t.regs[i] = v.clone();
            t.pos += 1;
            self.record(t, i, v);
        }
    }

    fn class_for(&mut self, t: &Thread, i: usize) -> ClassId {
        let mut c = t.bclass;
        if self.p.controlled {
            for &d in &self.p.regions[t.block.index()] {
                let db = self.p.f.insts[d as usize].block;
                if db == t.block && self.p.pos[d as usize] >= self.p.pos[i] {
                    continue;
                }
                let tok = t.token_last.get(&d).copied().unwrap_or(NONE);
                c = self.classes.intern(Key::With(c, tok));
            }
        }
        c
    }

    fn record(&mut self, t: &mut Thread, i: usize, v: Val) {
        let c = self.class_for(t, i);
        t.records.push(Record {
            inst: InstId(i as u32),
            class: c,
            val: v,
        });
    }

    fn run_thread(&mut self, t: &mut Thread) {
        let f = self.p.f;
        while t.state == TState::Running {
            let range = f.blocks[t.block.index()].insts.range();
            let i = range.start + t.pos as usize;
            if i >= range.end {
                self.finish(t, Status::Error("fell off the end of a block".into()));
                return;
            }
            t.steps += 1;
            if t.steps > self.opts.step_limit {
                t.steps -= 1;
                self.finish(t, Status::StepLimit);
                return;
            }
            self.step(t, i);
        }
    }

    fn step(&mut self, t: &mut Thread, i: usize) {
        let f = self.p.f;
        let inst = &f.insts[i];
        let ops = &f.operands[inst.operands.range()];
        match inst.op {
            Opcode::Br => {
                let succ = &f.block_refs[inst.blocks.range()];
                let target = if ops.is_empty() {
                    succ[0]
                } else {
                    match self.value(t, ops[0], inst.ty) {
                        Val::I(c) => {
                            if c & 1 == 1 {
                                succ[0]
                            } else {
                                succ[1]
                            }
                        }
                        // Branching on undef: any choice is a refinement; take the false edge.
                        _ => succ[1],
                    }
                };
                let from = t.block;
                self.enter(t, target, Some(from));
            }
            Opcode::Switch => {
                let succ = &f.block_refs[inst.blocks.range()];
                let c = self.value(t, ops[0], inst.ty).bits();
                let mut target = succ[0];
                for (k, &cv) in ops[1..].iter().enumerate() {
                    if self.value(t, cv, inst.ty).bits() == c {
                        target = succ[k + 1];
                        break;
                    }
                }
                let from = t.block;
                self.enter(t, target, Some(from));
            }
            Opcode::Ret => {
                let v = ops.first().map(|&o| self.value(t, o, inst.ty));
                let text = v.as_ref().map(Val::render);
                t.ret = v;
                self.finish(t, Status::Returned(text));
            }
            Opcode::Unreachable => self.finish(t, Status::Unreachable),
            Opcode::IndirectBr
            | Opcode::Invoke
            | Opcode::CallBr
            | Opcode::Resume
            | Opcode::CleanupRet
            | Opcode::CatchRet
            | Opcode::CatchSwitch => {
                self.finish(
                    t,
                    Status::Error(format!("`{:?}` is not simulated", inst.op).to_lowercase()),
                );
            }
            Opcode::Call => self.call(t, i),
            _ if self.p.kinds[i] == Kind::Mem => {
                let vals: Vec<Val> = ops.iter().map(|&o| self.value(t, o, inst.ty)).collect();
                let key = self.classes.intern(Key::Use(i as u32, t.bclass));
                t.pending = Some((i as u32, key, vals));
                t.waits.push((InstId(i as u32), key));
                t.state = TState::Waiting;
            }
            _ => {
                let v = self.eval(t, i);
                t.regs[i] = v.clone();
                t.pos += 1;
                if !matches!(self.p.ty(inst.ty), Type::Void) {
                    self.record(t, i, v);
                }
            }
        }
    }

    fn per_thread(&self, t: &mut Thread, i: usize, ty: TypeId) -> Val {
        t.occurrence += 1;
        let x = mix2(
            mix2(mix2(self.opts.seed, t.tid as u64 + 1), i as u64),
            t.occurrence,
        );
        self.value_of_bits(x as u128 | ((mix(x) as u128) << 64), ty)
    }

    fn pure_hash(&self, i: usize, vals: &[Val], ty: TypeId) -> Val {
        let mut x = mix2(0xC0FFEE, i as u64);
        for v in vals {
            let b = v.bits();
            x = mix2(mix2(x, b as u64), (b >> 64) as u64);
        }
        self.value_of_bits(x as u128 | ((mix(x) as u128) << 64), ty)
    }

    fn value_of_bits(&self, x: u128, ty: TypeId) -> Val {
        match self.p.ty(ty) {
            Type::Void => Val::Undef,
            Type::Ptr(_) => Val::P(x as u64 & 0x0000_FFFF_FFFF_FFF8),
            Type::Float | Type::Half | Type::BFloat => {
                Val::F(((x % 1_000_000) as f64 / 64.0) as f32 as f64)
            }
            Type::Double => Val::F((x % 1_000_000) as f64 / 64.0),
            Type::Vector { len, elem, .. } => {
                let e = *elem;
                let xs: Vec<Val> = (0..*len)
                    .map(|k| self.value_of_bits(mix2(x as u64, k as u64) as u128, e))
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            Type::Token => Val::Undef,
            _ => Val::I(x & mask(self.p.int_width(ty))),
        }
    }

    fn call(&mut self, t: &mut Thread, i: usize) {
        let f = self.p.f;
        let inst = &f.insts[i];
        let ops = &f.operands[inst.operands.range()];
        let vals: Vec<Val> = ops.iter().map(|&o| self.value(t, o, inst.ty)).collect();
        let Kind::Call(kind) = self.p.kinds[i] else {
            let v = self.per_thread(t, i, inst.ty);
            return self.done_call(t, i, v);
        };
        if kind == CallKind::PerThread
            && let Some(v) = self.call_defined(t, i, &vals)
        {
            return self.done_call(t, i, v);
        }
        // The opaque-pointer call syntax lets a call pass fewer arguments than the intrinsic
        // takes (LLVM's verifier rejects it); stop the thread instead of reading past them.
        let needs = match kind {
            CallKind::MbcntLo | CallKind::MbcntHi | CallKind::MinMax(_) => 2,
            CallKind::InverseBallot | CallKind::Ctpop | CallKind::Abs => 1,
            _ => 0,
        };
        if vals.len() < needs {
            let name = callee_name_of(self.p.m, f, InstId(i as u32));
            let msg = format!(
                "@{name} called with {} arguments, it takes {needs}",
                vals.len()
            );
            return self.finish(t, Status::Error(msg));
        }
        let w = self.p.int_width(inst.ty);
        let v = match kind {
            CallKind::TokEntry => {
                let c = self.classes.intern(Key::Entry);
                self.token(t, i, c)
            }
            CallKind::TokAnchor => {
                let c = self.classes.intern(Key::Anchor(i as u32, t.bclass));
                self.token(t, i, c)
            }
            CallKind::TokLoop => {
                let p = match self.p.ctrl[i].map(|v| self.value(t, v, inst.ty)) {
                    Some(Val::Tok(p)) => p,
                    _ => NONE,
                };
                let n = t.heart_count.entry((i as u32, p)).or_insert(0);
                *n += 1;
                let n = *n;
                let c = self.classes.intern(Key::Heart(i as u32, p, n));
                self.token(t, i, c)
            }
            CallKind::Comm(_) => {
                // Wait for the converged threads.
                let key = match self.p.ctrl[i].map(|v| self.value(t, v, inst.ty)) {
                    Some(Val::Tok(tok)) => {
                        // A valid program never executes a controlled operation twice with the
                        // same token value (the static rules on cycles); an invalid one would make
                        // converged-with contradictory. Count such executions like a heart does
                        // and say so.
                        let n = t.heart_count.entry((i as u32, tok)).or_insert(0);
                        *n += 1;
                        let n = *n;
                        let tok = if n == 1 {
                            tok
                        } else {
                            self.note(format!(
                                "@{} was executed twice with the same token value: the function \
                                 breaks the static rules on cycles; the n-th executions are taken \
                                 as converged",
                                callee_name_of(self.p.m, self.p.f, InstId(i as u32))
                            ));
                            self.classes.intern(Key::Heart(i as u32, tok, n))
                        };
                        self.classes.intern(Key::Use(i as u32, tok))
                    }
                    _ => self.classes.intern(Key::Use(i as u32, t.bclass)),
                };
                t.pending = Some((i as u32, key, vals));
                t.waits.push((InstId(i as u32), key));
                t.state = TState::Waiting;
                return;
            }
            CallKind::ThreadId => Val::I(t.tid as u128 & mask(w)),
            CallKind::LaneId => Val::I((t.tid % self.opts.target.wave_size()) as u128 & mask(w)),
            CallKind::MbcntLo | CallKind::MbcntHi => {
                let lane = t.tid % 64;
                let (m, acc) = (vals[0].bits() as u64 & 0xFFFF_FFFF, vals[1].bits());
                let below = if kind == CallKind::MbcntLo {
                    if lane >= 32 {
                        m
                    } else {
                        m & ((1u64 << lane) - 1)
                    }
                } else if lane <= 32 {
                    0
                } else {
                    m & ((1u64 << (lane - 32)) - 1)
                };
                Val::I((below.count_ones() as u128 + acc) & mask(w))
            }
            CallKind::GroupSize => Val::I(self.opts.threads as u128 & mask(w)),
            CallKind::WaveSize => Val::I(self.opts.target.wave_size() as u128 & mask(w)),
            CallKind::Zero => Val::I(0),
            CallKind::Pure => self.pure_hash(i, &vals, inst.ty),
            CallKind::PerThread => self.per_thread(t, i, inst.ty),
            CallKind::InverseBallot => Val::I((vals[0].bits() >> (t.tid % 64)) & 1),
            CallKind::Identity => vals.first().cloned().unwrap_or(Val::Undef),
            CallKind::Ctpop => lanewise1(&vals[0], &|x| Val::I(x.count_ones() as u128)),
            CallKind::Abs => {
                lanewise1(&vals[0], &|x| Val::I((sext(x, w).unsigned_abs()) & mask(w)))
            }
            CallKind::MinMax(r) => lanewise2(&vals[0], &vals[1], |a, b| {
                let (sa, sb) = (sext(a, w), sext(b, w));
                Val::I(match r {
                    Red::Min => {
                        if sa <= sb {
                            a
                        } else {
                            b
                        }
                    }
                    Red::Max => {
                        if sa >= sb {
                            a
                        } else {
                            b
                        }
                    }
                    Red::UMin => a.min(b),
                    _ => a.max(b),
                })
            }),
        };
        self.done_call(t, i, v);
    }

    /// Executes a call to a function of the module inline, when the callee is self-contained
    /// (see [`Program::is_self_contained`]); its dynamic instances are not recorded. `None` when the
    /// callee has no body, is not self-contained, or the call nesting is too deep.
    fn call_defined(&mut self, t: &mut Thread, i: usize, vals: &[Val]) -> Option<Val> {
        const MAX_DEPTH: u32 = 32;
        let ci = &self.p.f.calls[self.p.f.insts[i].aux as usize];
        let Value::Func(fid) = ci.callee else {
            return None;
        };
        let m = self.p.m;
        let callee_f = &m.functions[fid.0 as usize];
        if callee_f.is_declaration || callee_f.blocks.is_empty() || self.depth >= MAX_DEPTH {
            return None;
        }
        let prog = {
            let mut cache = self.p.callees.borrow_mut();
            cache
                .entry(fid.0)
                .or_insert_with(|| Rc::new(Program::new(m, callee_f, self.p.target)))
                .clone()
        };
        if !prog.is_self_contained() {
            self.note(format!(
                "calls to @{} are not entered (it communicates, accesses shared memory or uses \
                 tokens): their results are per-thread values",
                sym(m, callee_f.name)
            ));
            return None;
        }
        let h = Hierarchy::llvm(&prog.cfg);
        let mut sub = Thread {
            tid: t.tid,
            block: Block(0),
            pos: 0,
            regs: vec![Val::Undef; callee_f.insts.len()],
            tracker: Tracker::new(callee_f.blocks.len()),
            bclass: NONE,
            state: TState::Running,
            status: None,
            steps: t.steps,
            private: std::mem::take(&mut t.private),
            alloca_next: t.alloca_next,
            produced: HashSet::new(),
            token_last: HashMap::new(),
            heart_count: HashMap::new(),
            occurrence: t.occurrence,
            pending: None,
            blocks: Vec::new(),
            records: Vec::new(),
            waits: Vec::new(),
            ret: None,
        };
        let shared = std::mem::take(&mut self.shared);
        let mut ex = Exec {
            p: &prog,
            h: &h,
            opts: self.opts,
            args: vals,
            classes: &mut *self.classes,
            notes: &mut *self.notes,
            shared,
            depth: self.depth + 1,
        };
        ex.enter(&mut sub, Block(0), None);
        ex.run_thread(&mut sub);
        self.shared = std::mem::take(&mut ex.shared);
        t.private = std::mem::take(&mut sub.private);
        t.alloca_next = sub.alloca_next;
        t.occurrence = sub.occurrence;
        t.steps = sub.steps;
        match sub.status {
            Some(Status::Returned(_)) => Some(sub.ret.unwrap_or(Val::Undef)),
            Some(Status::StepLimit) => {
                // The caller stops at its next step.
                Some(Val::Undef)
            }
            _ => Some(Val::Undef),
        }
    }

    fn token(&mut self, t: &mut Thread, i: usize, c: ClassId) -> Val {
        t.token_last.insert(i as u32, c);
        t.produced.insert(c);
        Val::Tok(c)
    }

    fn done_call(&mut self, t: &mut Thread, i: usize, v: Val) {
        let inst = &self.p.f.insts[i];
        t.regs[i] = v.clone();
        t.pos += 1;
        if !matches!(self.p.ty(inst.ty), Type::Void) {
            self.record(t, i, v);
        }
    }

    /// Evaluates a communicating operation for its converged threads and resumes them.
    fn release(&mut self, threads: &mut [Thread], members: &[usize], i: u32) {
        let i = i as usize;
        let inst = &self.p.f.insts[i];
        let ty = inst.ty;
        let w = self.p.int_width(ty);
        if self.p.kinds[i] == Kind::Mem {
            return self.release_mem(threads, members, i);
        }
        let Kind::Call(CallKind::Comm(op)) = self.p.kinds[i] else {
            return;
        };
        let tids: Vec<u32> = members.iter().map(|&k| threads[k].tid).collect();
        let arg = |k: usize, a: usize| -> Val {
            threads[k]
                .pending
                .as_ref()
                .and_then(|p| p.2.get(a).cloned())
                .unwrap_or(Val::Undef)
        };
        let lane_of = |k: usize| threads[k].tid % self.opts.target.wave_size();
        let ballot = |pred: &dyn Fn(usize) -> bool| -> u128 {
            let mut m = 0u128;
            for &k in members {
                if pred(k) {
                    m |= 1u128 << (lane_of(k) % 128);
                }
            }
            m
        };
        let first = members[0];
        let mut results: Vec<Val> = Vec::with_capacity(members.len());
        for &k in members {
            let v = match op {
                Comm::ReadFirstLane | Comm::SgBroadcastFirst => arg(first, 0),
                Comm::ReadLane => {
                    let lane = arg(k, 1).bits() as u32;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 0))
                }
                Comm::Ballot => Val::I(ballot(&|j| arg(j, 0).bits() & 1 == 1) & mask(w)),
                Comm::AmdIcmp => {
                    let pred = arg(k, 2).bits() as u8;
                    let ow = 64;
                    Val::I(
                        ballot(&|j| icmp_raw(pred, arg(j, 0).bits(), arg(j, 1).bits(), ow))
                            & mask(w),
                    )
                }
                Comm::AmdFcmp => {
                    let pred = arg(k, 2).bits() as u8;
                    Val::I(
                        ballot(&|j| fcmp_raw(pred, fval(&arg(j, 0)), fval(&arg(j, 1)))) & mask(w),
                    )
                }
                Comm::IfBreak => {
                    Val::I((ballot(&|j| arg(j, 0).bits() & 1 == 1) | arg(k, 1).bits()) & mask(w))
                }
                Comm::Reduce(r) => {
                    let mut acc: Option<u128> = None;
                    let float = self.p.is_f32(ty) || matches!(self.p.ty(ty), Type::Double);
                    if float {
                        let s: f64 = members.iter().map(|&j| fval(&arg(j, 0))).sum();
                        Val::F(if self.p.is_f32(ty) {
                            s as f32 as f64
                        } else {
                            s
                        })
                    } else {
                        for &j in members {
                            let x = arg(j, 0).bits() & mask(w);
                            acc = Some(match acc {
                                None => x,
                                Some(a) => match r {
                                    Red::Add => a.wrapping_add(x),
                                    Red::Min => {
                                        if sext(a, w) <= sext(x, w) {
                                            a
                                        } else {
                                            x
                                        }
                                    }
                                    Red::Max => {
                                        if sext(a, w) >= sext(x, w) {
                                            a
                                        } else {
                                            x
                                        }
                                    }
                                    Red::UMin => a.min(x),
                                    Red::UMax => a.max(x),
                                    Red::And => a & x,
                                    Red::Or => a | x,
                                    Red::Xor => a ^ x,
                                },
                            });
                        }
                        Val::I(acc.unwrap_or(0) & mask(w))
                    }
                }
                Comm::Permlane64 => {
                    let lane = lane_of(k) ^ 32;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 0))
                }
                Comm::Bpermute => {
                    let lane = ((arg(k, 0).bits() as u32) / 4) % 64;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 1))
                }
                Comm::SgShuffle => {
                    let lane = arg(k, 1).bits() as u32;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 0))
                }
                Comm::NvBallot => Val::I(ballot(&|j| arg(j, 1).bits() & 1 == 1) & mask(w)),
                Comm::NvAny => Val::I(members.iter().any(|&j| arg(j, 1).bits() & 1 == 1) as u128),
                Comm::NvAll => Val::I(members.iter().all(|&j| arg(j, 1).bits() & 1 == 1) as u128),
                Comm::NvUni => {
                    let b0 = arg(first, 1).bits() & 1;
                    Val::I(members.iter().all(|&j| arg(j, 1).bits() & 1 == b0) as u128)
                }
                Comm::NvActiveMask => Val::I(ballot(&|_| true) & mask(w)),
                Comm::NvShfl(mode) => {
                    let me = lane_of(k) as i64;
                    let b = arg(k, 2).bits() as i64;
                    let src = match mode {
                        0 => b & 31,
                        1 => me - b,
                        2 => me + b,
                        _ => me ^ b,
                    };
                    if !(0..32).contains(&src) {
                        arg(k, 1)
                    } else {
                        members
                            .iter()
                            .find(|&&j| lane_of(j) as i64 == src)
                            .map_or(arg(k, 1), |&j| arg(j, 1))
                    }
                }
                Comm::Opaque => {
                    let mut x = mix2(0x0BAD, i as u64);
                    for &tid in &tids {
                        x = mix2(x, tid as u64);
                    }
                    self.value_of_bits(x as u128 | ((mix(x) as u128) << 64), ty)
                }
            };
            results.push(v);
        }
        for (n, &k) in members.iter().enumerate() {
            let t = &mut threads[k];
            let key = t.pending.take().map(|p| p.1);
            t.state = TState::Running;
            let v = results[n].clone();
            // The converged instances of a communicating operation are its group.
            t.regs[i] = v.clone();
            t.pos += 1;
            if !matches!(self.p.ty(inst.ty), Type::Void) {
                t.records.push(Record {
                    inst: InstId(i as u32),
                    class: key.unwrap_or(NONE),
                    val: v,
                });
            }
        }
    }

    /// Runs a copy of thread `tid` ahead (its pending operation released with the threads now
    /// waiting at the same instance, later operations released for the copy alone) and reports
    /// whether it executes an instance of communicating operation `key.0` in class `key.1`.
    fn speculate_reaches(&mut self, threads: &[Thread], tid: u32, key: (u32, ClassId)) -> bool {
        let saved = self.shared.clone();
        let r = self.speculate(threads, tid, key);
        self.shared = saved;
        r
    }

    fn speculate(&mut self, threads: &[Thread], tid: u32, key: (u32, ClassId)) -> bool {
        let Some(k) = threads.iter().position(|t| t.tid == tid) else {
            return false;
        };
        let Some(pk) = threads[k].pending.as_ref().map(|p| (p.0, p.1)) else {
            return false;
        };
        let mut copy: Vec<Thread> = threads
            .iter()
            .filter(|t| t.pending.as_ref().is_some_and(|p| (p.0, p.1) == pk))
            .cloned()
            .collect();
        let me = copy.iter().position(|t| t.tid == tid).unwrap_or(0);
        let all: Vec<usize> = (0..copy.len()).collect();
        self.release(&mut copy, &all, pk.0);
        let mut solo = vec![copy.swap_remove(me)];
        let budget = solo[0].steps + self.opts.step_limit.min(100_000);
        loop {
            let t = &mut solo[0];
            if t.state == TState::Running {
                if t.steps >= budget {
                    return true;
                }
                self.run_thread(t);
            }
            match &solo[0].pending {
                Some(p) if solo[0].state == TState::Waiting => {
                    if (p.0, p.1) == key {
                        return true;
                    }
                    let i = p.0;
                    self.release(&mut solo, &[0], i);
                }
                _ => return false,
            }
        }
    }

    /// Could waiting thread `t` still execute an instance of communicating operation `i` in class
    /// `key`?
    fn could_produce_use(&self, t: &Thread, i: u32, key: ClassId) -> bool {
        let Key::Use(_, c) = self.classes.key(key) else {
            return false;
        };
        let u = i as usize;
        let d = match self.classes.key(c) {
            Key::Block(..) => return self.could_produce_inst(t, u, c),
            Key::Entry => return self.reaches_inst(t, u, None),
            Key::Anchor(a, _) | Key::Heart(a, _, _) => a as usize,
            _ => return false,
        };
        if d == u {
            // The n-th execution of an operation that reuses its token (invalid programs).
            return self.could_produce_token(t, c);
        }
        if t.token_last.get(&(d as u32)) == Some(&c) {
            // T holds this token value: it must reach U before redefining it.
            self.reaches_inst(t, u, Some(d))
        } else {
            self.could_produce_token(t, c) && self.inst_reaches_inst(d, u, d)
        }
    }

    /// Whether `t` can still reach instruction `u` (later in its block, or along some path), without
    /// executing instruction `avoid` first.
    fn reaches_inst(&self, t: &Thread, u: usize, avoid: Option<usize>) -> bool {
        self.reaches_from(t.block, t.pos, u, avoid)
    }

    /// Whether instruction `u` can be reached after instruction `from`, without executing `avoid`
    /// again.
    fn inst_reaches_inst(&self, from: usize, u: usize, avoid: usize) -> bool {
        let b = self.p.f.insts[from].block;
        self.reaches_from(b, self.p.pos[from] + 1, u, Some(avoid))
    }

    fn reaches_from(&self, b: Block, pos: u32, u: usize, avoid: Option<usize>) -> bool {
        let f = self.p.f;
        let ub = f.insts[u].block;
        let up = self.p.pos[u];
        // `avoid` at a position in [lo, hi) of its block blocks a straight-line walk over it.
        let blocks_walk = |blk: Block, lo: u32, hi: u32| {
            avoid.is_some_and(|a| f.insts[a].block == blk && (lo..hi).contains(&self.p.pos[a]))
        };
        if ub == b && up >= pos && !blocks_walk(b, pos, up) {
            return true;
        }
        if blocks_walk(b, pos, u32::MAX) {
            return false;
        }
        let Some(a) = avoid else {
            return self.p.reaches(self.h, b, ub, false);
        };
        // A walk that avoids `a`'s block, then enters U's block and reaches U without passing `a`.
        let ab = f.insts[a].block;
        if ub == ab && self.p.pos[a] < up {
            return false;
        }
        let n = self.p.cfg.num_blocks();
        let mut seen = vec![false; n];
        let mut stack: Vec<Block> = self.p.cfg.succs(b).to_vec();
        while let Some(x) = stack.pop() {
            if x == ub {
                return true;
            }
            if x == ab || std::mem::replace(&mut seen[x.index()], true) {
                continue;
            }
            stack.extend_from_slice(self.p.cfg.succs(x));
        }
        false
    }

    /// Could `t` still execute instruction `i` in a block instance of class `c`?
    fn could_produce_inst(&self, t: &Thread, i: usize, c: ClassId) -> bool {
        if t.bclass == c {
            return self.p.pos[i] > t.pos;
        }
        self.could_produce_block(t, c)
    }

    /// Could `t` still produce a block instance of class `c`?
    fn could_produce_block(&self, t: &Thread, c: ClassId) -> bool {
        let Key::Block(b, ctx) = self.classes.key(c) else {
            return false;
        };
        if t.produced.contains(&c) {
            return false;
        }
        if ctx == NONE || t.produced.contains(&ctx) {
            return t.tracker.context(self.h, b) == ctx && self.p.reaches(self.h, t.block, b, true);
        }
        let Key::Block(hb, _) = self.classes.key(ctx) else {
            return false;
        };
        self.could_produce_block(t, ctx) && self.p.reaches(self.h, hb, b, true)
    }

    fn could_produce_token(&self, t: &Thread, c: ClassId) -> bool {
        if t.produced.contains(&c) {
            return false;
        }
        match self.classes.key(c) {
            Key::Entry => true,
            Key::Anchor(a, bc) => self.could_produce_inst(t, a as usize, bc),
            Key::Heart(hi, p, n) => {
                (t.produced.contains(&p) || p == NONE || self.could_produce_token(t, p))
                    && t.heart_count.get(&(hi, p)).copied().unwrap_or(0) < n
                    && self.reaches_inst(t, hi as usize, None)
            }
            _ => false,
        }
    }

    fn value(&self, t: &Thread, v: Value, _ctx_ty: TypeId) -> Val {
        match v {
            Value::Inst(id) => t.regs[id.0 as usize].clone(),
            Value::Arg(k) => self.args.get(k as usize).cloned().unwrap_or(Val::Undef),
            Value::Const(c) => self.constant(c),
            Value::Global(g) => Val::P(global_addr(g.0)),
            Value::Func(fid) => Val::P(0x0F00_0000_0000 + fid.0 as u64 * 16),
            _ => Val::Undef,
        }
    }

    fn constant(&self, c: ConstId) -> Val {
        let k = &self.p.m.consts[c.0 as usize];
        match &k.kind {
            ConstKind::Int { value, .. } => Val::I(value & mask(self.p.int_width(k.ty))),
            ConstKind::Float(bits) => Val::F(match self.p.ty(k.ty) {
                Type::Float => f32::from_bits(*bits as u32) as f64,
                Type::Half => half_to_f64(*bits as u16),
                Type::BFloat => f32::from_bits((*bits as u32) << 16) as f64,
                _ => f64::from_bits(*bits),
            }),
            ConstKind::Null => Val::P(0),
            ConstKind::Undef | ConstKind::Poison => Val::Undef,
            ConstKind::Zero => self.zero(k.ty),
            ConstKind::NoneToken => Val::Tok(NONE),
            ConstKind::Aggregate(r) => {
                let xs: Vec<Val> = self.p.m.const_lists[r.range()]
                    .iter()
                    .map(|&e| self.constant(e))
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            ConstKind::Bytes(r) => {
                let xs: Vec<Val> = self.p.m.bytes[r.range()]
                    .iter()
                    .map(|&b| Val::I(b as u128))
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            ConstKind::Global(g) => Val::P(global_addr(g.0)),
            ConstKind::Func(fid) => Val::P(0x0F00_0000_0000 + fid.0 as u64 * 16),
            ConstKind::Expr {
                op, operands, aux, ..
            } => {
                let xs: Vec<Val> = self.p.m.const_lists[operands.range()]
                    .iter()
                    .map(|&e| self.constant(e))
                    .collect();
                let tys: Vec<TypeId> = self.p.m.const_lists[operands.range()]
                    .iter()
                    .map(|&e| self.p.m.consts[e.0 as usize].ty)
                    .collect();
                match op {
                    Opcode::GetElementPtr => self.gep(TypeId(*aux), &xs, &tys),
                    Opcode::PtrToInt
                    | Opcode::IntToPtr
                    | Opcode::BitCast
                    | Opcode::AddrSpaceCast
                    | Opcode::Trunc
                    | Opcode::ZExt
                    | Opcode::SExt => self.cast(*op, &xs[0], tys[0], k.ty),
                    _ if xs.len() == 2 => binop(
                        *op,
                        &xs[0],
                        &xs[1],
                        self.p.int_width(k.ty),
                        self.p.is_f32(k.ty),
                    )
                    .unwrap_or_else(|| self.pure_hash(usize::MAX, &xs, k.ty)),
                    _ => self.pure_hash(usize::MAX, &xs, k.ty),
                }
            }
            ConstKind::BlockAddress(..) | ConstKind::Other => {
                self.pure_hash(c.0 as usize, &[], k.ty)
            }
        }
    }

    fn zero(&self, ty: TypeId) -> Val {
        match self.p.ty(ty) {
            Type::Ptr(_) => Val::P(0),
            Type::Float | Type::Half | Type::BFloat | Type::Double => Val::F(0.0),
            Type::Vector { len, elem, .. } => {
                let e = *elem;
                Val::Agg(Rc::from(
                    (0..*len).map(|_| self.zero(e)).collect::<Vec<_>>(),
                ))
            }
            Type::Array { len, elem } if *len <= 4096 => {
                let e = *elem;
                Val::Agg(Rc::from(
                    (0..*len).map(|_| self.zero(e)).collect::<Vec<_>>(),
                ))
            }
            Type::Struct { fields, .. } => {
                let fs: Vec<TypeId> = self.p.m.types.lists[fields.range()].to_vec();
                Val::Agg(Rc::from(
                    fs.iter().map(|&f| self.zero(f)).collect::<Vec<_>>(),
                ))
            }
            _ => Val::I(0),
        }
    }

    fn gep(&self, src: TypeId, xs: &[Val], tys: &[TypeId]) -> Val {
        let base = match xs.first() {
            Some(Val::P(p)) => *p,
            Some(Val::Undef) | None => return Val::Undef,
            Some(v) => v.bits() as u64,
        };
        let mut addr = base;
        let mut ty = src;
        for (k, v) in xs.iter().enumerate().skip(1) {
            let idx = sext(v.bits(), self.p.int_width(tys[k])) as i64;
            if k == 1 {
                addr = addr.wrapping_add((idx as u64).wrapping_mul(self.p.size_of(ty)));
            } else {
                let (off, ft) = match self.p.ty(ty) {
                    Type::Struct { .. } | Type::Named(_) => self.p.field(ty, idx as u64),
                    _ => {
                        let (_, e) = self.p.field(ty, 0);
                        ((idx as u64).wrapping_mul(self.p.size_of(e)), e)
                    }
                };
                addr = addr.wrapping_add(off);
                ty = ft;
            }
        }
        Val::P(addr)
    }

    fn cast(&self, op: Opcode, v: &Val, from: TypeId, to: TypeId) -> Val {
        if let Val::Agg(xs) = v {
            let ef = elem_ty(self.p, from);
            let et = elem_ty(self.p, to);
            if op != Opcode::BitCast {
                let ys: Vec<Val> = xs.iter().map(|x| self.cast(op, x, ef, et)).collect();
                return Val::Agg(Rc::from(ys));
            }
        }
        if v.is_undef() {
            return Val::Undef;
        }
        let wf = self.p.int_width(from);
        let wt = self.p.int_width(to);
        let f32t = self.p.is_f32(to);
        match op {
            Opcode::Trunc => Val::I(v.bits() & mask(wt)),
            Opcode::ZExt => Val::I(v.bits() & mask(wf)),
            Opcode::SExt => Val::I(sext(v.bits(), wf) as u128 & mask(wt)),
            Opcode::FpTrunc => Val::F(fval(v) as f32 as f64),
            Opcode::FpExt => Val::F(fval(v)),
            Opcode::FpToUi | Opcode::FpToSi => {
                let f = fval(v);
                if f.is_nan() {
                    Val::Undef
                } else {
                    Val::I((f.trunc() as i128) as u128 & mask(wt))
                }
            }
            Opcode::UiToFp => {
                let x = (v.bits() & mask(wf)) as f64;
                Val::F(if f32t { x as f32 as f64 } else { x })
            }
            Opcode::SiToFp => {
                let x = sext(v.bits(), wf) as f64;
                Val::F(if f32t { x as f32 as f64 } else { x })
            }
            Opcode::PtrToInt | Opcode::PtrToAddr => Val::I(v.bits() & mask(wt)),
            Opcode::IntToPtr => Val::P(v.bits() as u64),
            Opcode::AddrSpaceCast => v.clone(),
            Opcode::BitCast => match (v, self.p.ty(to)) {
                (Val::I(x), Type::Float) => Val::F(f32::from_bits(*x as u32) as f64),
                (Val::I(x), Type::Double) => Val::F(f64::from_bits(*x as u64)),
                (Val::F(f), Type::Int(32)) => Val::I((*f as f32).to_bits() as u128),
                (Val::F(f), Type::Int(64)) => Val::I(f.to_bits() as u128),
                (Val::F(f), Type::Int(_)) => Val::I(f.to_bits() as u128 & mask(wt)),
                (_, Type::Ptr(_)) => Val::P(v.bits() as u64),
                (Val::I(_) | Val::P(_), Type::Int(_)) => Val::I(v.bits() & mask(wt)),
                _ => self.pure_hash(usize::MAX - 1, std::slice::from_ref(v), to),
            },
            _ => v.clone(),
        }
    }

    fn eval(&mut self, t: &mut Thread, i: usize) -> Val {
        let f = self.p.f;
        let inst = &f.insts[i];
        let ops = &f.operands[inst.operands.range()];
        let ty = inst.ty;
        let v = |this: &Self, k: usize| -> Val { this.value(t, ops[k], ty) };
        let oty = |k: usize| -> TypeId { self.value_ty(ops[k]).unwrap_or(ty) };
        match inst.op {
            Opcode::FNeg => lanewise_f(&v(self, 0), |x| -x),
            op @ (Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::UDiv
            | Opcode::SDiv
            | Opcode::URem
            | Opcode::SRem
            | Opcode::Shl
            | Opcode::LShr
            | Opcode::AShr
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::FAdd
            | Opcode::FSub
            | Opcode::FMul
            | Opcode::FDiv
            | Opcode::FRem) => {
                let (a, b) = (v(self, 0), v(self, 1));
                binop(op, &a, &b, self.p.int_width(ty), self.p.is_f32(ty)).unwrap_or(Val::Undef)
            }
            Opcode::ICmp => {
                let (a, b) = (v(self, 0), v(self, 1));
                let w = self.p.int_width(oty(0));
                cmp_lanes(&a, &b, |x, y| match (x, y) {
                    (Val::Undef, _) | (_, Val::Undef) => Val::Undef,
                    _ => Val::I(icmp_raw(inst.aux as u8, x.bits(), y.bits(), w) as u128),
                })
            }
            Opcode::FCmp => {
                let (a, b) = (v(self, 0), v(self, 1));
                cmp_lanes(&a, &b, |x, y| match (x, y) {
                    (Val::Undef, _) | (_, Val::Undef) => Val::Undef,
                    _ => Val::I(fcmp_raw(inst.aux as u8, fval(x), fval(y)) as u128),
                })
            }
            Opcode::Select => {
                let c = v(self, 0);
                match c {
                    Val::I(c) => {
                        if c & 1 == 1 {
                            v(self, 1)
                        } else {
                            v(self, 2)
                        }
                    }
                    Val::Agg(cs) => {
                        let (a, b) = (v(self, 1), v(self, 2));
                        match (a, b) {
                            (Val::Agg(a), Val::Agg(b)) => Val::Agg(Rc::from(
                                cs.iter()
                                    .enumerate()
                                    .map(|(k, c)| {
                                        if c.bits() & 1 == 1 {
                                            a[k].clone()
                                        } else {
                                            b[k].clone()
                                        }
                                    })
                                    .collect::<Vec<_>>(),
                            )),
                            _ => Val::Undef,
                        }
                    }
                    _ => {
                        // An undef condition: only a value both arms agree on survives.
                        let (a, b) = (v(self, 1), v(self, 2));
                        if a.identical(&b) { a } else { Val::Undef }
                    }
                }
            }
            Opcode::Freeze => match v(self, 0) {
                Val::Undef => self.zero(ty),
                x => x,
            },
            op if op.is_cast() => {
                let x = v(self, 0);
                self.cast(op, &x, oty(0), ty)
            }
            Opcode::GetElementPtr => {
                let xs: Vec<Val> = (0..ops.len()).map(|k| v(self, k)).collect();
                let tys: Vec<TypeId> = (0..ops.len()).map(oty).collect();
                self.gep(TypeId(inst.aux), &xs, &tys)
            }
            Opcode::ExtractValue | Opcode::ExtractElement => {
                let agg = v(self, 0);
                let idx: Vec<u64> = if inst.op == Opcode::ExtractValue {
                    f.aux[inst.aux_list.range()].to_vec()
                } else {
                    vec![v(self, 1).bits() as u64]
                };
                let mut cur = agg;
                for k in idx {
                    cur = match cur {
                        Val::Agg(xs) => xs.get(k as usize).cloned().unwrap_or(Val::Undef),
                        Val::Undef => Val::Undef,
                        _ => self.zero(ty),
                    };
                }
                cur
            }
            Opcode::InsertValue | Opcode::InsertElement => {
                let agg = v(self, 0);
                let x = v(self, 1);
                let k = if inst.op == Opcode::InsertValue {
                    f.aux[inst.aux_list.range()].first().copied().unwrap_or(0) as usize
                } else {
                    v(self, 2).bits() as usize
                };
                let mut xs: Vec<Val> = match agg {
                    Val::Agg(xs) => xs.to_vec(),
                    _ => match self.zero(ty) {
                        Val::Agg(z) => z.iter().map(|_| Val::Undef).collect(),
                        _ => Vec::new(),
                    },
                };
                if inst.op == Opcode::InsertValue && inst.aux_list.len() > 1 {
                    // Nested insert: not modelled precisely; a pure function of the inputs.
                    let all: Vec<Val> = (0..ops.len()).map(|k| v(self, k)).collect();
                    return self.pure_hash(i, &all, ty);
                }
                if k < xs.len() {
                    xs[k] = x;
                }
                Val::Agg(Rc::from(xs))
            }
            Opcode::Alloca => {
                let count = match ops.first() {
                    Some(&o) => self.value(t, o, ty).bits().max(1) as u64,
                    None => 1,
                };
                let size = self.p.size_of(TypeId(inst.aux2)).max(1) * count.min(1 << 20);
                let a = t.alloca_next.div_ceil(16) * 16;
                t.alloca_next = a + size;
                Val::P(a)
            }
            Opcode::Load => {
                let p = v(self, 0);
                let aspace = inst.aux;
                match p {
                    Val::P(_) | Val::I(_) => self.load(t, i, p.bits() as u64, ty, aspace),
                    _ => Val::Undef,
                }
            }
            Opcode::Store => {
                let (x, p) = (v(self, 0), v(self, 1));
                if let Val::P(_) | Val::I(_) = p {
                    let xt = oty(0);
                    self.store(t, p.bits() as u64, &x, xt);
                }
                Val::Undef
            }
            Opcode::AtomicRmw | Opcode::CmpXchg => {
                let p = v(self, 0);
                let x = v(self, 1);
                let xt = oty(1);
                let old = self.per_thread(t, i, xt);
                if let Val::P(_) | Val::I(_) = p {
                    self.store(t, p.bits() as u64, &x, xt);
                }
                if inst.op == Opcode::CmpXchg {
                    Val::Agg(Rc::from(vec![old, Val::I(0)]))
                } else {
                    old
                }
            }
            Opcode::Fence => Val::Undef,
            _ => {
                let xs: Vec<Val> = (0..ops.len()).map(|k| v(self, k)).collect();
                let name = format!("{:?}", inst.op).to_lowercase();
                self.note(format!(
                    "`{name}` is modelled as a deterministic pure function of its operands"
                ));
                self.pure_hash(i, &xs, ty)
            }
        }
    }

    /// Performs the shared-memory access of converged instances at once, in thread order (so the
    /// highest thread's store wins, and atomics are applied one thread after the other).
    fn release_mem(&mut self, threads: &mut [Thread], members: &[usize], i: usize) {
        let inst = &self.p.f.insts[i];
        let ops = &self.p.f.operands[inst.operands.range()];
        let tys: Vec<TypeId> = ops
            .iter()
            .map(|&o| self.value_ty(o).unwrap_or(inst.ty))
            .collect();
        for &k in members {
            let vals = threads[k]
                .pending
                .as_ref()
                .map(|p| p.2.clone())
                .unwrap_or_default();
            let addr = |v: &Val| match v {
                Val::P(_) | Val::I(_) => Some(v.bits() as u64),
                _ => None,
            };
            let t = &mut threads[k];
            let v = match inst.op {
                Opcode::Load => match addr(&vals[0]) {
                    Some(a) => self.load(t, i, a, inst.ty, inst.aux),
                    None => Val::Undef,
                },
                Opcode::Store => {
                    if let Some(a) = addr(&vals[1]) {
                        self.store(t, a, &vals[0], tys[0]);
                    }
                    Val::Undef
                }
                Opcode::AtomicRmw => match addr(&vals[0]) {
                    Some(a) => {
                        let old = self.load(t, i, a, tys[1], inst.aux2);
                        let new = rmw(inst.aux as u8, &old, &vals[1], self.p.int_width(tys[1]));
                        self.store(t, a, &new, tys[1]);
                        old
                    }
                    None => Val::Undef,
                },
                Opcode::CmpXchg => match addr(&vals[0]) {
                    Some(a) => {
                        let old = self.load(t, i, a, tys[1], inst.aux);
                        let ok = old.same(&vals[1]) && !old.is_undef();
                        if ok {
                            self.store(t, a, &vals[2], tys[1]);
                        }
                        Val::Agg(Rc::from(vec![old, Val::I(ok as u128)]))
                    }
                    None => Val::Undef,
                },
                _ => Val::Undef,
            };
            t.pending = None;
            t.state = TState::Running;
            self.done_call(t, i, v);
        }
    }

    fn value_ty(&self, v: Value) -> Option<TypeId> {
        match v {
            Value::Inst(id) => Some(self.p.f.insts[id.0 as usize].ty),
            Value::Arg(k) => self.p.f.params.get(k as usize).map(|p| p.ty),
            Value::Const(c) => Some(self.p.m.consts[c.0 as usize].ty),
            Value::Global(g) => Some(self.p.m.globals[g.0 as usize].ty),
            _ => None,
        }
    }

    fn load_byte(&self, t: &Thread, addr: u64, divergent_space: bool) -> u8 {
        if (PRIVATE_BASE..PRIVATE_END).contains(&addr) {
            return t.private.get(&addr).copied().unwrap_or(0);
        }
        if let Some(&b) = self.shared.get(&addr) {
            return b;
        }
        if divergent_space {
            return mix2(mix2(self.opts.seed ^ 0xD1, t.tid as u64), addr) as u8;
        }
        self.initial_byte(addr)
    }

    /// Initial memory: global initialisers where known, else a hash of the address.
    fn initial_byte(&self, addr: u64) -> u8 {
        let base = 0x0010_0000_0000u64;
        if addr >= base {
            let g = ((addr - base) / 0x1_0000_0000) as usize;
            let off = (addr - base) % 0x1_0000_0000;
            if let Some(gl) = self.p.m.globals.get(g)
                && let Some(init) = gl.init
            {
                let mut buf = Vec::new();
                self.serialize(&self.constant(init), gl.ty, &mut buf);
                if (off as usize) < buf.len() {
                    return buf[off as usize];
                }
            }
        }
        mix2(self.opts.seed ^ 0x6E, addr) as u8
    }

    fn serialize(&self, v: &Val, ty: TypeId, out: &mut Vec<u8>) {
        let start = out.len();
        let size = self.p.size_of(ty) as usize;
        match (v, self.p.ty(ty)) {
            (Val::Agg(xs), Type::Struct { .. } | Type::Named(_)) => {
                for (k, x) in xs.iter().enumerate() {
                    let (off, ft) = self.p.field(ty, k as u64);
                    out.resize(start + off as usize, 0);
                    self.serialize(x, ft, out);
                }
            }
            (Val::Agg(xs), _) => {
                let (_, e) = self.p.field(ty, 0);
                for x in xs.iter() {
                    self.serialize(x, e, out);
                }
            }
            (Val::F(f), Type::Float) => out.extend_from_slice(&(*f as f32).to_bits().to_le_bytes()),
            (Val::F(f), Type::Double) => out.extend_from_slice(&f.to_bits().to_le_bytes()),
            (x, _) => {
                let b = x.bits().to_le_bytes();
                out.extend_from_slice(&b[..size.min(16)]);
            }
        }
        out.resize(start + size, 0);
    }

    fn deserialize(&self, bytes: &[u8], ty: TypeId) -> Val {
        match self.p.ty(ty) {
            Type::Float => {
                Val::F(f32::from_le_bytes(bytes[..4].try_into().unwrap_or([0; 4])) as f64)
            }
            Type::Double => Val::F(f64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
            Type::Ptr(_) => Val::P(u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
            Type::Int(w) => {
                let mut b = [0u8; 16];
                let n = bytes.len().min(16);
                b[..n].copy_from_slice(&bytes[..n]);
                Val::I(u128::from_le_bytes(b) & mask(*w))
            }
            Type::Vector { .. } | Type::Array { .. } | Type::Struct { .. } | Type::Named(_) => {
                let n = match self.p.ty(ty) {
                    Type::Vector { len, .. } => *len as u64,
                    Type::Array { len, .. } => (*len).min(4096),
                    Type::Struct { fields, .. } => fields.len() as u64,
                    _ => 0,
                };
                let xs: Vec<Val> = (0..n)
                    .map(|k| {
                        let (off, ft) = self.p.field(ty, k);
                        let sz = self.p.size_of(ft) as usize;
                        let off = off as usize;
                        if off + sz <= bytes.len() {
                            self.deserialize(&bytes[off..off + sz], ft)
                        } else {
                            Val::Undef
                        }
                    })
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            Type::Half => Val::F(half_to_f64(u16::from_le_bytes([bytes[0], bytes[1]]))),
            _ => Val::Undef,
        }
    }

    fn load(&mut self, t: &mut Thread, _i: usize, addr: u64, ty: TypeId, aspace: u32) -> Val {
        let size = self.p.size_of(ty) as usize;
        if size > 1 << 16 {
            return Val::Undef;
        }
        let div = matches!(self.opts.target, Target::Amdgpu | Target::Nvptx)
            && (aspace == 0 || aspace == 5);
        let bytes: Vec<u8> = (0..size as u64)
            .map(|k| self.load_byte(t, addr.wrapping_add(k), div))
            .collect();
        self.deserialize(&bytes, ty)
    }

    fn store(&mut self, t: &mut Thread, addr: u64, v: &Val, ty: TypeId) {
        let mut buf = Vec::new();
        self.serialize(v, ty, &mut buf);
        for (k, b) in buf.into_iter().enumerate() {
            let a = addr.wrapping_add(k as u64);
            if (PRIVATE_BASE..PRIVATE_END).contains(&a) {
                t.private.insert(a, b);
            } else {
                self.shared.insert(a, b);
            }
        }
    }
}

fn elem_ty(p: &Program<'_>, t: TypeId) -> TypeId {
    match p.ty(t) {
        Type::Vector { elem, .. } => *elem,
        _ => t,
    }
}

fn half_to_f64(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1F) as i32;
    let m = (h & 0x3FF) as f64;
    s * match e {
        0 => m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn fval(v: &Val) -> f64 {
    match v {
        Val::F(f) => *f,
        Val::I(x) => *x as f64,
        _ => 0.0,
    }
}

fn lanewise1(a: &Val, f: &dyn Fn(u128) -> Val) -> Val {
    match a {
        Val::Agg(xs) => Val::Agg(Rc::from(
            xs.iter().map(|x| lanewise1(x, f)).collect::<Vec<_>>(),
        )),
        Val::Undef => Val::Undef,
        x => f(x.bits()),
    }
}

fn lanewise2(a: &Val, b: &Val, f: impl Fn(u128, u128) -> Val + Copy) -> Val {
    match (a, b) {
        (Val::Agg(xs), Val::Agg(ys)) => Val::Agg(Rc::from(
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| lanewise2(x, y, f))
                .collect::<Vec<_>>(),
        )),
        (Val::Undef, _) | (_, Val::Undef) => Val::Undef,
        (x, y) => f(x.bits(), y.bits()),
    }
}

fn lanewise_f(a: &Val, f: impl Fn(f64) -> f64 + Copy) -> Val {
    match a {
        Val::Agg(xs) => Val::Agg(Rc::from(
            xs.iter().map(|x| lanewise_f(x, f)).collect::<Vec<_>>(),
        )),
        Val::F(x) => Val::F(f(*x)),
        _ => Val::Undef,
    }
}

fn cmp_lanes(a: &Val, b: &Val, f: impl Fn(&Val, &Val) -> Val + Copy) -> Val {
    match (a, b) {
        (Val::Agg(xs), Val::Agg(ys)) => Val::Agg(Rc::from(
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| cmp_lanes(x, y, f))
                .collect::<Vec<_>>(),
        )),
        (x, y) => f(x, y),
    }
}

/// The new value of an `atomicrmw` (operation as [`converge_ir::RmwOp`] `u8`).
fn rmw(op: u8, old: &Val, x: &Val, w: u32) -> Val {
    use converge_ir::RmwOp as R;
    const OPS: [R; 9] = [
        R::Xchg,
        R::Add,
        R::Sub,
        R::And,
        R::Nand,
        R::Or,
        R::Xor,
        R::Max,
        R::Min,
    ];
    let m = mask(w);
    let (a, b) = (old.bits() & m, x.bits() & m);
    match OPS.get(op as usize) {
        Some(R::Xchg) | None => x.clone(),
        Some(R::Add) => Val::I(a.wrapping_add(b) & m),
        Some(R::Sub) => Val::I(a.wrapping_sub(b) & m),
        Some(R::And) => Val::I(a & b),
        Some(R::Nand) => Val::I(!(a & b) & m),
        Some(R::Or) => Val::I(a | b),
        Some(R::Xor) => Val::I(a ^ b),
        Some(R::Max) => Val::I(if sext(a, w) >= sext(b, w) { a } else { b }),
        Some(_) => Val::I(if sext(a, w) <= sext(b, w) { a } else { b }),
    }
}

/// Integer and float binary operators; `None` for an opcode that is not one.
fn binop(op: Opcode, a: &Val, b: &Val, w: u32, f32t: bool) -> Option<Val> {
    if let (Val::Agg(xs), Val::Agg(ys)) = (a, b) {
        return Some(Val::Agg(Rc::from(
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| binop(op, x, y, w, f32t).unwrap_or(Val::Undef))
                .collect::<Vec<_>>(),
        )));
    }
    if a.is_undef() || b.is_undef() {
        return Some(Val::Undef);
    }
    let m = mask(w);
    let (x, y) = (a.bits() & m, b.bits() & m);
    let fl = |r: f64| Val::F(if f32t { r as f32 as f64 } else { r });
    Some(match op {
        Opcode::Add => Val::I(x.wrapping_add(y) & m),
        Opcode::Sub => Val::I(x.wrapping_sub(y) & m),
        Opcode::Mul => Val::I(x.wrapping_mul(y) & m),
        Opcode::UDiv => x.checked_div(y).map_or(Val::Undef, Val::I),
        Opcode::URem => x.checked_rem(y).map_or(Val::Undef, Val::I),
        Opcode::SDiv | Opcode::SRem => {
            let (sx, sy) = (sext(x, w), sext(y, w));
            if sy == 0 || (sy == -1 && sx == sext(1u128 << (w.min(128) - 1), w)) {
                Val::Undef
            } else if op == Opcode::SDiv {
                Val::I((sx / sy) as u128 & m)
            } else {
                Val::I((sx % sy) as u128 & m)
            }
        }
        Opcode::Shl => {
            if y >= w as u128 {
                Val::Undef
            } else {
                Val::I((x << y) & m)
            }
        }
        Opcode::LShr => {
            if y >= w as u128 {
                Val::Undef
            } else {
                Val::I(x >> y)
            }
        }
        Opcode::AShr => {
            if y >= w as u128 {
                Val::Undef
            } else {
                Val::I((sext(x, w) >> y) as u128 & m)
            }
        }
        Opcode::And => Val::I(x & y),
        Opcode::Or => Val::I(x | y),
        Opcode::Xor => Val::I(x ^ y),
        Opcode::FAdd => fl(fval(a) + fval(b)),
        Opcode::FSub => fl(fval(a) - fval(b)),
        Opcode::FMul => fl(fval(a) * fval(b)),
        Opcode::FDiv => fl(fval(a) / fval(b)),
        Opcode::FRem => fl(fval(a) % fval(b)),
        _ => return None,
    })
}

fn icmp_raw(pred: u8, x: u128, y: u128, w: u32) -> bool {
    let m = mask(w);
    let (x, y) = (x & m, y & m);
    let (sx, sy) = (sext(x, w), sext(y, w));
    const P: [IPred; 10] = [
        IPred::Eq,
        IPred::Ne,
        IPred::Ugt,
        IPred::Uge,
        IPred::Ult,
        IPred::Ule,
        IPred::Sgt,
        IPred::Sge,
        IPred::Slt,
        IPred::Sle,
    ];
    match P.get(pred as usize).copied().unwrap_or(IPred::Eq) {
        IPred::Eq => x == y,
        IPred::Ne => x != y,
        IPred::Ugt => x > y,
        IPred::Uge => x >= y,
        IPred::Ult => x < y,
        IPred::Ule => x <= y,
        IPred::Sgt => sx > sy,
        IPred::Sge => sx >= sy,
        IPred::Slt => sx < sy,
        IPred::Sle => sx <= sy,
    }
}

fn fcmp_raw(pred: u8, a: f64, b: f64) -> bool {
    let uno = a.is_nan() || b.is_nan();
    const P: [FPred; 16] = [
        FPred::False,
        FPred::Oeq,
        FPred::Ogt,
        FPred::Oge,
        FPred::Olt,
        FPred::Ole,
        FPred::One,
        FPred::Ord,
        FPred::Ueq,
        FPred::Ugt,
        FPred::Uge,
        FPred::Ult,
        FPred::Ule,
        FPred::Une,
        FPred::Uno,
        FPred::True,
    ];
    match P.get(pred as usize).copied().unwrap_or(FPred::False) {
        FPred::False => false,
        FPred::Oeq => !uno && a == b,
        FPred::Ogt => !uno && a > b,
        FPred::Oge => !uno && a >= b,
        FPred::Olt => !uno && a < b,
        FPred::Ole => !uno && a <= b,
        FPred::One => !uno && a != b,
        FPred::Ord => !uno,
        FPred::Ueq => uno || a == b,
        FPred::Ugt => uno || a > b,
        FPred::Uge => uno || a >= b,
        FPred::Ult => uno || a < b,
        FPred::Ule => uno || a <= b,
        FPred::Une => uno || a != b,
        FPred::Uno => uno,
        FPred::True => true,
    }
}

/// The callee name of call instruction `i` (for reports).
pub fn callee_name(p: &Program<'_>, i: InstId) -> String {
    p.callee_name(i.0 as usize)
}

/// The callee name of call instruction `i` of `f`.
pub fn callee_name_of(m: &Module, f: &Function, i: InstId) -> String {
    let inst = &f.insts[i.0 as usize];
    if !inst.op.is_call_like() {
        return String::new();
    }
    match f.calls[inst.aux as usize].callee {
        Value::Func(fid) => sym(m, m.functions[fid.0 as usize].name).to_string(),
        _ => "<indirect>".to_string(),
    }
}
