//! The LLVM-text adapter: `converge_ir` functions seen through [`SsaFunction`], and the target
//! models (AMDGPU, NVPTX, targets without divergence) as [`DivergenceModel`]s.

mod amdgpu;
pub mod function;
mod nvptx;
mod rules;

pub use amdgpu::Amdgpu;
pub use function::{FunctionAnalysis, PhaseTimes, Setup};
pub use nvptx::Nvptx;
pub use rules::{Rules, main_print_order};

use crate::ssa::{DivergenceModel, Inst, InstRange, SsaFunction, Val};
use converge_graph::{Block, Cfg};
use converge_ir::Sym;
use converge_ir::{ConstKind, Function, InstId, Metadata, Module, Opcode, Value};
use std::cell::{OnceCell, RefCell};

/// One function of a parsed module, with its CFG and use lists.
pub struct LlvmFunction<'m> {
    /// The module the function belongs to (names, types, callee declarations).
    pub module: &'m Module,
    /// The function's id in the module.
    pub fid: converge_ir::FuncId,
    /// The function.
    pub func: &'m Function,
    cfg: Cfg,
    /// Users, CSR over values: arguments first, then instructions.
    user_start: Vec<u32>,
    users: Vec<Inst>,
    /// The interned names of `nodivergencesource` and `alwaysuniform` (`None`: no attribute of
    /// the module has that name), looked up once instead of by name at every call.
    uniform_attr_syms: OnceCell<[Option<Sym>; 2]>,
    /// Precise mode's per-callee memo of the AMDGPU source rules that depend on the callee's name
    /// only (see `Amdgpu::source`): one entry per distinct callee of this function, for the
    /// `--mcpu` given first (the rules read it).
    callee_rules: RefCell<CalleeRules>,
}

/// The `--mcpu` a memo of callee rules was made for, and the rule of each callee seen.
type CalleeRules = (
    Option<String>,
    Vec<(converge_ir::FuncId, amdgpu::CalleeRule)>,
);

/// A call attribute that newer LLVM reads when deciding divergence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum UniformAttr {
    /// `nodivergencesource`: the call is no source (its result follows its operands).
    NoDivergenceSource = 0,
    /// `alwaysuniform`: the call's result is uniform.
    AlwaysUniform = 1,
}

impl<'m> LlvmFunction<'m> {
    /// The view of function `fid` of `module`: builds its CFG and its use lists (in LLVM's
    /// use-list order).
    pub fn new(module: &'m Module, fid: converge_ir::FuncId) -> LlvmFunction<'m> {
        let func = &module.functions[fid.0 as usize];
        let f = func;
        let (mut cfg, mut user_start, mut users) = take_spare();
        f.cfg_into(&mut cfg);
        use_lists(f, &mut user_start, &mut users);
        LlvmFunction {
            module,
            fid,
            func,
            cfg,
            user_start,
            users,
            uniform_attr_syms: OnceCell::new(),
            callee_rules: RefCell::new((None, Vec::new())),
        }
    }

    /// The function's raw name (no `@`).
    pub fn name(&self) -> &str {
        self.module.strings.resolve(self.func.name)
    }

    /// The operands of instruction `i` (without callee and bundles).
    pub fn operands(&self, i: u32) -> &[Value] {
        self.func.operands(InstId(i))
    }

    /// The called function's name for a direct call, `invoke` or `callbr`.
    pub fn callee_name(&self, i: u32) -> Option<&'m str> {
        let fid = self.callee_fid(i)?;
        Some(
            self.module
                .strings
                .resolve(self.module.functions[fid.0 as usize].name),
        )
    }

    /// The function a call-like instruction calls (directly or through a function constant).
    pub fn callee_fid(&self, i: u32) -> Option<converge_ir::FuncId> {
        let inst = &self.func.insts[i as usize];
        if !inst.op.is_call_like() {
            return None;
        }
        let callee = self.func.calls.get(inst.aux as usize)?.callee;
        match callee {
            Value::Func(fid) => Some(fid),
            Value::Const(c) => match self.module.consts[c.0 as usize].kind {
                ConstKind::Func(fid) => Some(fid),
                _ => None,
            },
            _ => None,
        }
    }

    /// The inline-asm constraint string of an asm call.
    pub fn asm_constraints(&self, i: u32) -> Option<&'m str> {
        let inst = &self.func.insts[i as usize];
        if !inst.op.is_call_like() {
            return None;
        }
        match self.func.calls.get(inst.aux as usize)?.callee {
            Value::Asm(a) => Some(
                self.module
                    .strings
                    .resolve(self.module.asms[a.0 as usize].constraints),
            ),
            _ => None,
        }
    }

    /// An integer constant operand's value.
    pub fn const_int(&self, v: Value) -> Option<u128> {
        match v {
            Value::Const(c) => match self.module.consts[c.0 as usize].kind {
                ConstKind::Int { value, .. } => Some(value),
                ConstKind::Zero | ConstKind::Null => Some(0),
                _ => None,
            },
            _ => None,
        }
    }

    /// The address space of a pointer-typed value.
    pub fn value_addrspace(&self, v: Value) -> Option<u32> {
        let m = self.module;
        m.types.ptr_addrspace(m.value_type(self.fid, v))
    }

    /// Whether call `i` or its callee has function attribute `name` (`alwaysuniform`, …).
    pub fn call_has_attr(&self, i: u32, name: &str) -> bool {
        self.module
            .call_has_fn_attr(self.fid, converge_ir::InstId(i), name)
    }

    /// [`LlvmFunction::call_has_attr`] for the attributes of [`UniformAttr`], comparing interned
    /// names (the names are looked up once per function, and not at all when absent).
    fn call_has_uniform_attr(&self, i: u32, which: UniformAttr) -> bool {
        let m = self.module;
        let syms = self.uniform_attr_syms.get_or_init(|| {
            [
                m.strings.get("nodivergencesource"),
                m.strings.get("alwaysuniform"),
            ]
        });
        let Some(sym) = syms[which as usize] else {
            return false;
        };
        let id = converge_ir::InstId(i);
        let Some(c) = self.func.call(id) else {
            return false;
        };
        let has = |r| m.attrs(r).iter().any(|a| a.key == sym);
        has(c.fn_attrs)
            || m.called_function(self.fid, id)
                .is_some_and(|g| has(m.func(g).attrs))
    }

    /// The value of a string function attribute (`"key"="value"`), if present.
    pub fn fn_attr(&self, key: &str) -> Option<&'m str> {
        let m = self.module;
        m.attrs[self.func.attrs.range()].iter().find_map(|a| {
            (unquote(m.strings.resolve(a.key)) == key)
                .then(|| a.value.map_or("", |v| unquote(m.strings.resolve(v))))
        })
    }

    /// Whether parameter `arg` carries the attribute `key` (`inreg`, …).
    pub fn param_has_attr(&self, arg: u32, key: &str) -> bool {
        let m = self.module;
        let p = &self.func.params[arg as usize];
        m.attrs[p.attrs.range()]
            .iter()
            .any(|a| unquote(m.strings.resolve(a.key)) == key)
    }

    /// The calling convention as LLVM spells it (`ccc` for the default, `amdgpu_kernel`, …).
    pub fn call_conv(&self) -> &'m str {
        match self.func.cc {
            converge_ir::CallConv::C => "ccc",
            converge_ir::CallConv::Named(s) => self.module.strings.resolve(s),
        }
    }

    /// The integer operands of a function metadata attachment (`!reqd_work_group_size !0`).
    pub fn fn_md_ints(&self, kind: &str) -> Option<Vec<u128>> {
        let m = self.module;
        let &(_, md) = self.func.md_attachments[self.func.md.range()]
            .iter()
            .find(|(k, _)| m.strings.resolve(*k).trim_start_matches('!') == kind)?;
        let ops = md_tuple(m, md.0)?;
        Some(
            ops.iter()
                .filter_map(|&o| match resolve_md(m, o.0) {
                    Metadata::Value(_, v) => self.const_int(*v),
                    _ => None,
                })
                .collect(),
        )
    }
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
}

/// Follows `!N` references to the node itself.
pub(crate) fn resolve_md(m: &Module, mut id: u32) -> &Metadata {
    for _ in 0..64 {
        match &m.metadata[id as usize] {
            Metadata::Node(n) => id = n.0,
            other => return other,
        }
    }
    &Metadata::Null
}

pub(crate) fn md_tuple(m: &Module, id: u32) -> Option<&[converge_ir::MdId]> {
    match resolve_md(m, id) {
        Metadata::Tuple(r) => Some(&m.md_lists[r.range()]),
        _ => None,
    }
}

/// Users per value (CSR; arguments first, then instructions) in LLVM's use-list order for parsed
/// text: uses of already-defined values are prepended (newest first); forward references are
/// moved over when the value is defined (oldest first) and end up behind every later backward
/// use. One walk over the operands counts the uses and records them, backward and forward ones
/// apart (forward ones are rare: phis reading later values); the fill then places the backward
/// uses, taken newest first, and after them the forward ones, oldest first, each at its value's
/// cursor. Counts and cursors share `start` (shifted by one slot, then the last slot dropped),
/// so no other per-value table is cleared or copied.
fn use_lists(f: &Function, start: &mut Vec<u32>, users: &mut Vec<Inst>) {
    /// (value slot, user) per use.
    type Uses = Vec<(u32, u32)>;
    thread_local! {
        /// The backward uses and the forward uses, reused across functions.
        static USES: RefCell<(Uses, Uses)> = const { RefCell::new((Vec::new(), Vec::new())) };
    }
    let na = f.params.len();
    let ni = f.insts.len();
    let nv = na + ni;
    // Counts of value s at s + 2; after the prefix sum, s's cursor is at s + 1.
    start.clear();
    start.resize(nv + 2, 0);
    let (mut back, mut fwd) = USES.with(|u| u.take());
    back.clear();
    fwd.clear();
    for i in 0..ni {
        operands_of(f, i, |v| {
            let Some(s) = value_slot(v, na) else {
                return;
            };
            if s < nv {
                start[s + 2] += 1;
                // A use of a value defined before its user (an argument, or an earlier
                // instruction).
                if s < na || s - na < i {
                    back.push((s as u32, i as u32));
                } else {
                    fwd.push((s as u32, i as u32));
                }
            }
        });
    }
    for k in 2..nv + 2 {
        start[k] += start[k - 1];
    }
    users.clear();
    users.resize(start[nv + 1] as usize, Inst(0));
    for &(s, i) in back.iter().rev() {
        let c = &mut start[s as usize + 1];
        users[*c as usize] = Inst(i);
        *c += 1;
    }
    for &(s, i) in &fwd {
        let c = &mut start[s as usize + 1];
        users[*c as usize] = Inst(i);
        *c += 1;
    }
    // Each cursor ended at its value's end, the next value's start.
    start.pop();
    USES.with(|u| u.replace((back, fwd)));
}

/// A value's index among the function's arguments then instructions (`None`: a constant, a
/// global or another kind that has no use list).
#[inline]
fn value_slot(v: Value, na: usize) -> Option<usize> {
    match v {
        Value::Arg(a) => Some(a as usize),
        Value::Inst(d) => Some(na + d.0 as usize),
        _ => None,
    }
}

/// The use lists as first written (per value a backward and a forward cursor), for the test
/// that [`use_lists`] gives the same lists.
#[cfg(test)]
fn use_lists_reference(f: &Function) -> (Vec<u32>, Vec<Inst>) {
    let na = f.params.len();
    let ni = f.insts.len();
    let nv = na + ni;
    let mut start = vec![0u32; nv + 1];
    let mut back = vec![0u32; nv];
    let mut uses = Vec::new();
    for i in 0..ni {
        operands_of(f, i, |v| {
            let Some(s) = value_slot(v, na) else {
                return;
            };
            if s < nv {
                start[s + 1] += 1;
                back[s] += (s < na || s - na < i) as u32;
                uses.push((s, i as u32));
            }
        });
    }
    for k in 0..nv {
        start[k + 1] += start[k];
    }
    for (b, &st) in back.iter_mut().zip(&start) {
        *b += st;
    }
    let mut fwd = back.clone();
    let mut users = vec![Inst(0); start[nv] as usize];
    for &(s, i) in &uses {
        if s < na || s - na < i as usize {
            back[s] -= 1;
            users[back[s] as usize] = Inst(i);
        } else {
            users[fwd[s] as usize] = Inst(i);
            fwd[s] += 1;
        }
    }
    (start, users)
}

thread_local! {
    /// The CFG and use-list buffers of the last [`LlvmFunction`] dropped on this thread, for the
    /// next one built here (one set per thread: analysing function after function allocates
    /// nothing in the steady state, like `Structure`'s tables).
    static SPARE: RefCell<Option<Buffers>> = const { RefCell::new(None) };
}

/// An [`LlvmFunction`]'s own tables: the CFG, and the use lists' starts and users.
type Buffers = (Cfg, Vec<u32>, Vec<Inst>);

fn take_spare() -> Buffers {
    SPARE
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .ok()
        .flatten()
        .unwrap_or_default()
}

impl Drop for LlvmFunction<'_> {
    fn drop(&mut self) {
        let parts = (
            std::mem::take(&mut self.cfg),
            std::mem::take(&mut self.user_start),
            std::mem::take(&mut self.users),
        );
        let _ = SPARE.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut()
                && s.is_none()
            {
                *s = Some(parts);
            }
        });
    }
}

/// [`for_each_operand`], statically dispatched.
#[inline(always)]
fn operands_of(f: &Function, i: usize, mut cb: impl FnMut(Value)) {
    let inst = &f.insts[i];
    for &v in f.operands(InstId(i as u32)) {
        cb(v);
    }
    if inst.op.is_call_like()
        && let Some(call) = f.calls.get(inst.aux as usize)
    {
        for b in &f.bundles[call.bundles.range()] {
            for &v in &f.operands[b.operands.range()] {
                cb(v);
            }
        }
        cb(call.callee);
    }
}

/// Every operand LLVM counts as a use: operands, bundle operands, then the callee.
fn for_each_operand(f: &Function, i: u32, cb: &mut dyn FnMut(Value)) {
    operands_of(f, i as usize, cb);
}

impl SsaFunction for LlvmFunction<'_> {
    type Cfg = Cfg;
    fn cfg(&self) -> &Cfg {
        &self.cfg
    }
    fn num_args(&self) -> u32 {
        self.func.params.len() as u32
    }
    fn num_insts(&self) -> u32 {
        self.func.insts.len() as u32
    }
    fn block_insts(&self, b: Block) -> InstRange {
        let r = self.func.block_range(b);
        InstRange::from(r.start..r.end)
    }
    fn inst_block(&self, i: Inst) -> Block {
        self.func.insts[i.index()].block
    }
    fn is_terminator(&self, i: Inst) -> bool {
        self.func.insts[i.index()].op.is_terminator()
    }
    fn is_phi(&self, i: Inst) -> bool {
        self.func.insts[i.index()].op == Opcode::Phi
    }
    fn phi_has_constant_or_undef_value(&self, i: Inst) -> bool {
        let me = Value::Inst(converge_ir::InstId(i.0));
        one_value(
            self.module,
            self.operands(i.0).iter().copied().filter(|&v| v != me),
        )
    }
    fn users(&self, v: Val) -> &[Inst] {
        let s = match v {
            Val::Arg(a) => a as usize,
            Val::Inst(i) => self.func.params.len() + i.index(),
        };
        &self.users[self.user_start[s] as usize..self.user_start[s + 1] as usize]
    }
    fn block_users(&self, b: Block) -> Option<&[Inst]> {
        // The use lists are one CSR over the value slots (arguments, then instructions), and a
        // block's instructions are consecutive: their lists are one run.
        let r = self.func.block_range(b);
        let na = self.func.params.len();
        let (a, z) = (
            self.user_start[na + r.start as usize],
            self.user_start[na + r.end as usize],
        );
        Some(&self.users[a as usize..z as usize])
    }
    fn for_each_inst_operand(&self, i: Inst, f: &mut dyn FnMut(Inst)) {
        for_each_operand(self.func, i.0, &mut |v| {
            if let Value::Inst(d) = v {
                f(Inst(d.0))
            }
        });
    }
    fn phi_incoming_blocks_of(&self, i: Inst, v: Inst, f: &mut dyn FnMut(Block)) {
        let blocks = self.func.inst_blocks(InstId(i.0));
        for (&x, &b) in self.operands(i.0).iter().zip(blocks) {
            if x == Value::Inst(converge_ir::InstId(v.0)) {
                f(b);
            }
        }
    }

    fn phi_same_incoming_from(&self, i: Inst, pred: &dyn Fn(Block) -> bool) -> bool {
        let blocks = self.func.inst_blocks(InstId(i.0));
        // The phi itself counts as a value here (its previous value): on a subset of the edges
        // it need not equal the others.
        one_value(
            self.module,
            self.operands(i.0)
                .iter()
                .zip(blocks)
                .filter(|&(_, &b)| pred(b))
                .map(|(&v, _)| v),
        )
    }
    fn phi_incoming_blocks(&self, i: Inst) -> Option<&[Block]> {
        Some(self.func.inst_blocks(InstId(i.0)))
    }
    fn phi_same_incoming_at(&self, i: Inst, at: &[u32]) -> bool {
        // As `phi_same_incoming_from`, over the incomings at `at` only.
        let ops = self.operands(i.0);
        one_value(self.module, at.iter().map(|&k| ops[k as usize]))
    }
    fn token_kind(&self, i: Inst) -> Option<crate::ssa::TokenKind> {
        use crate::ssa::TokenKind;
        use converge_ir::intrinsics::ConvergenceControl as C;
        Some(match C::of(self.callee_name(i.0)?)? {
            C::Entry => TokenKind::Entry,
            C::Loop => TokenKind::Loop,
            C::Anchor => TokenKind::Anchor,
        })
    }
    fn is_operand_function(&self, i: Inst) -> bool {
        use Opcode::*;
        matches!(
            self.func.insts[i.index()].op,
            FNeg | Add
                | FAdd
                | Sub
                | FSub
                | Mul
                | FMul
                | UDiv
                | SDiv
                | FDiv
                | URem
                | SRem
                | FRem
                | Shl
                | LShr
                | AShr
                | And
                | Or
                | Xor
                | ExtractElement
                | InsertElement
                | ShuffleVector
                | ExtractValue
                | InsertValue
                | GetElementPtr
                | Trunc
                | ZExt
                | SExt
                | FpTrunc
                | FpExt
                | FpToUi
                | FpToSi
                | UiToFp
                | SiToFp
                | PtrToInt
                | IntToPtr
                | BitCast
                | ICmp
                | FCmp
                | Select
        )
    }
    fn control_token(&self, i: Inst) -> Option<Inst> {
        let inst = &self.func.insts[i.index()];
        if !inst.op.is_call_like() {
            return None;
        }
        let call = self.func.calls.get(inst.aux as usize)?;
        let m = self.module;
        self.func.bundles[call.bundles.range()]
            .iter()
            .find(|b| m.strings.resolve(b.tag).trim_matches('"') == "convergencectrl")
            .and_then(|b| match self.func.operands[b.operands.range()].first() {
                Some(Value::Inst(d)) => Some(Inst(d.0)),
                _ => None,
            })
    }
}

/// LLVM uniques constants, so equal constants are the same value; the reader shares only simple
/// ones, so compare by content.
/// Whether `vals`, undef and poison left out, are all one value (`same_value`); true when none
/// is left.
#[inline]
fn one_value(m: &Module, vals: impl Iterator<Item = Value>) -> bool {
    let mut seen: Option<Value> = None;
    for v in vals {
        if let Value::Const(c) = v
            && matches!(
                m.consts[c.0 as usize].kind,
                ConstKind::Undef | ConstKind::Poison
            )
        {
            continue;
        }
        match seen {
            None => seen = Some(v),
            Some(s) if same_value(m, s, v) => {}
            Some(_) => return false,
        }
    }
    true
}

fn same_value(m: &Module, a: Value, b: Value) -> bool {
    if a == b {
        return true;
    }
    let (Value::Const(x), Value::Const(y)) = (a, b) else {
        return false;
    };
    let (cx, cy) = (&m.consts[x.0 as usize], &m.consts[y.0 as usize]);
    if cx.ty != cy.ty {
        return false;
    }
    match (&cx.kind, &cy.kind) {
        (ConstKind::Int { value: p, .. }, ConstKind::Int { value: q, .. }) => p == q,
        (ConstKind::Float(p), ConstKind::Float(q)) => p == q,
        (ConstKind::Null, ConstKind::Null) | (ConstKind::Zero, ConstKind::Zero) => true,
        (ConstKind::Global(p), ConstKind::Global(q)) => p == q,
        (ConstKind::Func(p), ConstKind::Func(q)) => p == q,
        _ => false,
    }
}

/// The target model chosen for a module.
#[derive(Clone, Debug)]
pub enum Target {
    /// AMDGPU (`amdgcn` triples), for a processor (wave size).
    Amdgpu(Amdgpu),
    /// NVPTX (`nvptx`, `nvptx64` triples).
    Nvptx(Nvptx),
    /// No branch divergence: every value is uniform.
    Uniform,
}

impl Target {
    /// From the module's target triple: `amdgcn*` → AMDGPU, `nvptx*` → NVPTX, anything else → none.
    /// `mcpu` overrides the functions' `"target-cpu"` (it decides the wave size).
    pub fn from_triple(triple: Option<&str>, mcpu: Option<&str>) -> Target {
        let t = triple.unwrap_or("");
        if t.starts_with("amdgcn") {
            Target::Amdgpu(Amdgpu::new(mcpu))
        } else if let Some(rest) = t.strip_prefix("amdgpu") {
            // New-style triples: `amdgpu9.08-…` names the processor (gfx908), `amdgpu-…` does not.
            let version = rest.split('-').next().unwrap_or("");
            let cpu = version
                .split_once('.')
                .map(|(major, minor)| format!("gfx{major}{minor}"));
            Target::Amdgpu(Amdgpu::new(mcpu.or(cpu.as_deref())))
        } else if t.starts_with("nvptx") {
            Target::Nvptx(Nvptx::default())
        } else {
            Target::Uniform
        }
    }
}

impl Target {
    /// The target's hooks as the given LLVM release has them (only AMDGPU's `callbr` rule
    /// differs between 19 and 22).
    pub fn for_version(self, version: crate::LlvmVersion) -> Target {
        self.with_rules(match version {
            crate::LlvmVersion::V19 => Rules::V19,
            crate::LlvmVersion::V22 => Rules::V22,
        })
    }

    /// The rule set the target's hooks follow (a target without divergence: LLVM 22's).
    pub fn rules(&self) -> Rules {
        match self {
            Target::Amdgpu(a) => a.rules,
            Target::Nvptx(n) => n.rules,
            Target::Uniform => Rules::V22,
        }
    }

    /// The target's hooks with the given rule set (`Rules::Main`: `--llvm-version main`). Precise
    /// mode needs no call: it always asks the hooks' precise variants.
    pub fn with_rules(mut self, rules: Rules) -> Target {
        match &mut self {
            Target::Amdgpu(a) => a.rules = rules,
            Target::Nvptx(n) => n.rules = rules,
            Target::Uniform => {}
        }
        self
    }
}

impl<'m> DivergenceModel<LlvmFunction<'m>> for Target {
    #[inline]
    fn has_branch_divergence(&self, f: &LlvmFunction<'m>) -> bool {
        match self {
            Target::Amdgpu(t) => t.has_branch_divergence(f),
            Target::Nvptx(t) => t.has_branch_divergence(f),
            Target::Uniform => false,
        }
    }
    #[inline]
    fn is_source_arg(&self, f: &LlvmFunction<'m>, arg: u32) -> bool {
        match self {
            Target::Amdgpu(t) => t.is_source_arg(f, arg),
            Target::Nvptx(t) => t.is_source_arg(f, arg),
            Target::Uniform => false,
        }
    }
    #[inline]
    fn is_source_inst(&self, f: &LlvmFunction<'m>, inst: crate::Inst) -> bool {
        match self {
            Target::Amdgpu(t) => t.is_source_inst(f, inst),
            Target::Nvptx(t) => t.is_source_inst(f, inst),
            Target::Uniform => false,
        }
    }
    #[inline]
    fn source_reason(
        &self,
        f: &LlvmFunction<'m>,
        inst: crate::Inst,
    ) -> Option<crate::SourceReason> {
        match self {
            Target::Amdgpu(t) => t.source_reason(f, inst),
            Target::Nvptx(t) => t.source_reason(f, inst),
            Target::Uniform => None,
        }
    }
    #[inline]
    fn is_always_uniform(&self, f: &LlvmFunction<'m>, inst: crate::Inst) -> bool {
        match self {
            Target::Amdgpu(t) => t.is_always_uniform(f, inst),
            Target::Nvptx(t) => t.is_always_uniform(f, inst),
            Target::Uniform => false,
        }
    }
    #[inline]
    fn is_source_inst_precise(&self, f: &LlvmFunction<'m>, inst: crate::Inst) -> bool {
        match self {
            Target::Amdgpu(t) => t.is_source_inst_precise(f, inst),
            Target::Nvptx(t) => t.is_source_inst_precise(f, inst),
            Target::Uniform => false,
        }
    }
    #[inline]
    fn is_always_uniform_precise(&self, f: &LlvmFunction<'m>, inst: crate::Inst) -> bool {
        match self {
            Target::Amdgpu(t) => t.is_always_uniform_precise(f, inst),
            Target::Nvptx(t) => t.is_always_uniform_precise(f, inst),
            Target::Uniform => false,
        }
    }
    #[inline]
    fn ignored_operands(&self, f: &LlvmFunction<'m>, inst: crate::Inst, out: &mut Vec<Val>) {
        if let Target::Amdgpu(t) = self {
            t.ignored_operands(f, inst, out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use converge_gen::program::{Flavor, Options, function, module_header};
    use converge_gen::rng::Rng;
    use converge_graph::Graph;
    use converge_ir::FuncId;

    /// Modules with phis (forward references and back edges), calls, arguments, and functions
    /// built one after the other on one thread (so the recycled buffers of a larger function
    /// are reused for smaller ones).
    fn modules() -> Vec<converge_ir::Module> {
        let mut out = Vec::new();
        for seed in 0..4u64 {
            let mut rng = Rng::new(seed);
            let mut opts = Options::new(Flavor::Amdgpu);
            opts.min_blocks = 2;
            opts.max_blocks = 40 + 60 * seed as usize;
            opts.extra_edges_percent = 70;
            let mut t = module_header(Flavor::Amdgpu);
            for k in 0..30 {
                t.push_str(&function(&mut rng, &format!("f{k}"), &opts));
            }
            out.push(converge_ir::parse("t.ll", t).expect("generated module parses"));
        }
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
        for e in std::fs::read_dir(examples).expect("examples/") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "ll") {
                let text = std::fs::read_to_string(&p).expect("readable");
                if let Ok(m) = converge_ir::parse("e.ll", text) {
                    out.push(m);
                }
            }
        }
        out
    }

    /// The adapter's CFG (built in recycled buffers from the terminators) is `Function::cfg`'s
    /// and every block's successors are `Function::succs`; its use lists are the reference
    /// construction's, value by value.
    #[test]
    fn recycled_cfg_and_use_lists_match_their_references() {
        let (mut funcs, mut uses, mut forward) = (0, 0, 0);
        for m in modules() {
            for k in 0..m.functions.len() {
                let f = &m.functions[k];
                if f.is_declaration {
                    continue;
                }
                let lf = LlvmFunction::new(&m, FuncId(k as u32));
                let cfg = f.cfg();
                let g = SsaFunction::cfg(&lf);
                assert_eq!(g.num_blocks(), f.blocks.len());
                for b in 0..f.blocks.len() as u32 {
                    let b = Block(b);
                    assert_eq!(g.succs(b), f.succs(b), "succs");
                    assert_eq!(g.succs(b), cfg.succs(b), "succs");
                    assert_eq!(g.preds(b), cfg.preds(b), "preds");
                }
                let (start, users) = use_lists_reference(f);
                assert_eq!(lf.user_start, start, "use-list starts");
                assert_eq!(lf.users, users, "use lists");
                // Uses by an instruction at or before the definition (phis on back edges): the
                // forward part of a list.
                let na = f.params.len();
                for v in 0..f.insts.len() {
                    let r = start[na + v] as usize..start[na + v + 1] as usize;
                    forward += users[r].iter().filter(|u| u.index() <= v).count();
                }
                funcs += 1;
                uses += users.len();
            }
        }
        assert!(
            funcs > 100 && uses > 10_000 && forward > 100,
            "{funcs} functions, {uses} uses, {forward} forward"
        );
    }
}
