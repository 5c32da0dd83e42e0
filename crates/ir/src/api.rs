//! Small accessors the analyses use: CFG construction, names, call-site queries, type queries.

use crate::*;
use converge_graph::{Block, Cfg};

impl Types {
    /// The type `t` is.
    #[inline]
    pub fn get(&self, t: TypeId) -> &Type {
        &self.types[t.0 as usize]
    }
    /// Whether `t` is `void`.
    pub fn is_void(&self, t: TypeId) -> bool {
        matches!(self.get(t), Type::Void)
    }
    /// Whether `t` is `token` (convergence-control tokens).
    pub fn is_token(&self, t: TypeId) -> bool {
        matches!(self.get(t), Type::Token)
    }
    /// Width of an integer type (of the element type for integer vectors).
    pub fn int_width(&self, t: TypeId) -> Option<u32> {
        match self.get(t) {
            Type::Int(n) => Some(*n),
            Type::Vector { elem, .. } => self.int_width(*elem),
            _ => None,
        }
    }
    /// Address space of a pointer type (of the element type for pointer vectors).
    pub fn ptr_addrspace(&self, t: TypeId) -> Option<u32> {
        match self.get(t) {
            Type::Ptr(a) => Some(*a),
            Type::Vector { elem, .. } => self.ptr_addrspace(*elem),
            _ => None,
        }
    }
    /// Whether `t` is a scalar floating-point type (`half` … `ppc_fp128`).
    pub fn is_float(&self, t: TypeId) -> bool {
        matches!(
            self.get(t),
            Type::Half
                | Type::BFloat
                | Type::Float
                | Type::Double
                | Type::X86Fp80
                | Type::Fp128
                | Type::PpcFp128
        )
    }
    /// Struct field / parameter list of a type stored in [`Types::lists`].
    pub fn list(&self, r: Range32) -> &[TypeId] {
        &self.lists[r.range()]
    }
}

impl Function {
    /// The instruction `i` of this function.
    #[inline]
    pub fn inst(&self, i: InstId) -> &Inst {
        &self.insts[i.0 as usize]
    }
    /// The block `b` of this function.
    #[inline]
    pub fn block(&self, b: Block) -> &BlockData {
        &self.blocks[b.index()]
    }
    /// Number of blocks (0 for a declaration).
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    /// Number of instructions of all blocks.
    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }
    /// Operands of an instruction, in LLVM operand order, except that successor blocks of
    /// terminators and phi incoming blocks are in [`Function::inst_blocks`] instead:
    /// - `br i1 %c, ...`: `[%c]`; `switch`: `[cond, case values...]`; `indirectbr`: `[address]`;
    /// - `phi`: incoming values, parallel to the incoming blocks;
    /// - calls (`call`/`invoke`/`callbr`): the arguments only (callee and bundles are in [`CallInfo`]);
    /// - `store`: `[value, pointer]`; `load`: `[pointer]`; `getelementptr`: `[base, indices...]`;
    /// - `extractvalue`/`insertvalue`: the aggregate (and inserted value); indices are in
    ///   [`Function::aux_list`].
    ///
    /// The reader's layout for the other opcodes: `cmpxchg`: `[pointer, compare, new]`; `atomicrmw`:
    /// `[pointer, value]`; `shufflevector`: `[v1, v2, mask]`; `alloca`: `[count]` if a count is
    /// written; `select`: `[cond, a, b]`; casts, `fneg`, `freeze`, `va_arg`: `[value]`;
    /// `cleanupret`/`catchret`: `[pad]`; `catchswitch`: `[parent]` (`none` is a `NoneToken`
    /// constant); `catchpad`/`cleanuppad`: `[parent, args...]`; `landingpad`: the clause values.
    #[inline]
    pub fn operands(&self, i: InstId) -> &[Value] {
        &self.operands[self.operand_range(i).range()]
    }
    /// Block references of an instruction: successors of a terminator in operand order
    /// (duplicates kept; `switch`: default first; `invoke`: normal, unwind; `callbr`: default, then
    /// indirect), or a phi's incoming blocks. `catchswitch`: the unwind destination (if any) first,
    /// then the handlers, as LLVM's `getSuccessor` numbers them; `cleanupret`: its unwind block, if
    /// any; `catchret`: its target.
    #[inline]
    pub fn inst_blocks(&self, i: InstId) -> &[Block] {
        &self.block_refs[self.inst_block_range(i).range()]
    }
    /// The instructions of block `b`, a contiguous range of [`Function::insts`]; the last is the
    /// terminator.
    #[inline]
    pub fn block_range(&self, b: Block) -> Range32 {
        let k = b.index();
        let end = match self.blocks.get(k + 1) {
            Some(n) => n.first,
            None => self.insts.len() as u32,
        };
        Range32 {
            start: self.blocks[k].first,
            end,
        }
    }
    /// Where block `b` is in the source: from its label (or first instruction) to the end of its
    /// terminator.
    pub fn block_span(&self, b: Block) -> Span {
        let r = self.block_range(b);
        let start = self.blocks[b.index()].span_start;
        if r.is_empty() {
            return Span { start, end: start };
        }
        Span {
            start,
            end: self.inst_span(InstId(r.end - 1)).end,
        }
    }
    /// The instructions of a block, in order.
    pub fn block_insts(&self, b: Block) -> impl DoubleEndedIterator<Item = InstId> + use<> {
        self.block_range(b).range().map(|i| InstId(i as u32))
    }
    /// The terminator of a block (the parser guarantees every block has one).
    pub fn terminator(&self, b: Block) -> InstId {
        InstId(self.block_range(b).end - 1)
    }
    /// Successors of a block in terminator operand order (duplicates kept); none for a block
    /// that does not end in a terminator (only a function built in memory can have one).
    #[inline]
    pub fn succs(&self, b: Block) -> &[Block] {
        let r = self.block_range(b);
        if r.is_empty() {
            return &[];
        }
        let t = InstId(r.end - 1);
        if !self.inst(t).op.is_terminator() {
            return &[];
        }
        self.inst_blocks(t)
    }
    /// The control-flow graph: successors in operand order, predecessors in LLVM's use-list order.
    /// The one CFG builder of the workspace: the analyses' adapter, the simulator's program and
    /// the token verifier all take their graph from here.
    pub fn cfg(&self) -> Cfg {
        let mut cfg = Cfg::default();
        self.cfg_into(&mut cfg);
        cfg
    }
    /// [`Function::cfg`] into `cfg`'s buffers (the analyses' adapter reuses one per thread). The
    /// same successor lists as [`Function::succs`] of every block, read in one pass over the
    /// blocks: each block's end is the next one's first instruction.
    pub fn cfg_into(&self, cfg: &mut Cfg) {
        let n = self.blocks.len();
        let ni = self.insts.len() as u32;
        cfg.rebuild(Block(0), |starts, succ| {
            // Starts written by block (a push per block cost a capacity check and a length
            // update).
            starts.resize(n + 1, 0);
            let starts = &mut starts[..];
            // Most blocks end in a branch of one or two targets.
            succ.reserve(2 * n);
            let blocks = &self.blocks[..];
            for k in 0..n {
                let end = match blocks.get(k + 1) {
                    Some(next) => next.first,
                    None => ni,
                };
                if end > blocks[k].first && self.insts[end as usize - 1].op.is_terminator() {
                    // Element by element: a `memcpy` call per list of one or two cost more
                    // than the copy.
                    for &x in self.inst_blocks(InstId(end - 1)) {
                        succ.push(x);
                    }
                }
                starts[k + 1] = succ.len() as u32;
            }
        });
    }
    /// Call-site data of a `call`/`invoke`/`callbr`.
    pub fn call(&self, i: InstId) -> Option<&CallInfo> {
        let inst = self.inst(i);
        if inst.op.is_call_like() {
            self.calls.get(inst.aux as usize)
        } else {
            None
        }
    }
    /// The called value of a call-like instruction.
    pub fn callee(&self, i: InstId) -> Option<Value> {
        self.call(i).map(|c| c.callee)
    }
    /// Operand bundles of a call-like instruction.
    pub fn bundles(&self, i: InstId) -> &[Bundle] {
        match self.call(i) {
            Some(c) => &self.bundles[c.bundles.range()],
            None => &[],
        }
    }
    /// The operands of a bundle of this function (for `convergencectrl`: the one token).
    pub fn bundle_operands(&self, b: &Bundle) -> &[Value] {
        &self.operands[b.operands.range()]
    }
    /// Per-argument attribute ranges (into [`Module::attrs`]) of a call-like instruction.
    pub fn call_arg_attrs(&self, i: InstId) -> &[Range32] {
        match self.call(i) {
            Some(c) => &self.arg_attr_lists[c.arg_attrs.range()],
            None => &[],
        }
    }
    /// `(value, block)` pairs of a phi.
    pub fn phi_incoming(&self, i: InstId) -> impl Iterator<Item = (Value, Block)> + '_ {
        self.operands(i)
            .iter()
            .copied()
            .zip(self.inst_blocks(i).iter().copied())
    }
    /// Metadata attachments of an instruction.
    pub fn inst_md(&self, i: InstId) -> &[(Sym, MdId)] {
        &self.md_attachments[self.inst_md_range(i).range()]
    }
    /// The type of a function-local value (`Arg`/`Inst`); `None` for other values.
    pub fn local_type(&self, v: Value) -> Option<TypeId> {
        match v {
            Value::Arg(a) => self.params.get(a as usize).map(|p| p.ty),
            Value::Inst(i) => self.insts.get(i.0 as usize).map(|x| x.ty),
            _ => None,
        }
    }
}

impl Module {
    /// The text of an interned string.
    #[inline]
    pub fn str(&self, s: Sym) -> &str {
        self.strings.resolve(s)
    }
    /// The function `f`.
    #[inline]
    pub fn func(&self, f: FuncId) -> &Function {
        &self.functions[f.0 as usize]
    }
    /// Every function id, in source order (declarations included).
    pub fn func_ids(&self) -> impl Iterator<Item = FuncId> + use<> {
        (0..self.functions.len() as u32).map(FuncId)
    }
    /// A function by raw name (no `@`).
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        let sym = self.strings.get(name)?;
        self.functions
            .iter()
            .position(|f| f.name == sym)
            .map(|i| FuncId(i as u32))
    }
    /// A global variable, alias or ifunc by raw name (no `@`).
    pub fn global_by_name(&self, name: &str) -> Option<GlobalId> {
        let sym = self.strings.get(name)?;
        self.globals
            .iter()
            .position(|g| g.name == sym)
            .map(|i| GlobalId(i as u32))
    }
    /// The attributes of a range into [`Module::attrs`].
    pub fn attrs(&self, r: Range32) -> &[Attr] {
        &self.attrs[r.range()]
    }
    /// Whether an attribute range holds `name` (an enum attribute like `convergent` or a string key).
    pub fn has_attr(&self, r: Range32, name: &str) -> bool {
        match self.strings.get(name) {
            Some(sym) => self.attrs(r).iter().any(|a| a.key == sym),
            None => false,
        }
    }
    /// The value of attribute `name` in a range (`"1,256"`, `4`, the type text of `byval(T)`).
    pub fn attr_value(&self, r: Range32, name: &str) -> Option<&str> {
        let sym = self.strings.get(name)?;
        self.attrs(r)
            .iter()
            .find(|a| a.key == sym)
            .and_then(|a| a.value)
            .map(|v| self.str(v))
    }
    /// Function attribute `name` (inline or from `#N` groups).
    pub fn has_fn_attr(&self, f: FuncId, name: &str) -> bool {
        self.has_attr(self.func(f).attrs, name)
    }
    /// Parameter attribute `name` of argument `arg` of function `f` (`inreg`, `byval`, …).
    pub fn has_param_attr(&self, f: FuncId, arg: u32, name: &str) -> bool {
        self.func(f)
            .params
            .get(arg as usize)
            .is_some_and(|p| self.has_attr(p.attrs, name))
    }
    /// The directly called function of a call-like instruction.
    pub fn called_function(&self, f: FuncId, i: InstId) -> Option<FuncId> {
        match self.func(f).callee(i)? {
            Value::Func(g) => Some(g),
            _ => None,
        }
    }
    /// The name of the directly called function (`llvm.amdgcn.workitem.id.x`, `foo`).
    pub fn callee_name(&self, f: FuncId, i: InstId) -> Option<&str> {
        self.called_function(f, i)
            .map(|g| self.str(self.func(g).name))
    }
    /// The intrinsic a call calls (`llvm.` prefix kept), if any.
    pub fn intrinsic_name(&self, f: FuncId, i: InstId) -> Option<&str> {
        self.callee_name(f, i).filter(|n| n.starts_with("llvm."))
    }
    /// Call-site function attribute `name`, or the same attribute on the called function.
    pub fn call_has_fn_attr(&self, f: FuncId, i: InstId, name: &str) -> bool {
        let Some(c) = self.func(f).call(i) else {
            return false;
        };
        self.has_attr(c.fn_attrs, name)
            || self
                .called_function(f, i)
                .is_some_and(|g| self.has_fn_attr(g, name))
    }
    /// Whether a call is convergent: call-site `convergent` or a `convergent` callee.
    pub fn is_convergent_call(&self, f: FuncId, i: InstId) -> bool {
        self.call_has_fn_attr(f, i, "convergent")
    }
    /// The operand bundle with tag `tag` of a call-like instruction.
    pub fn bundle(&self, f: FuncId, i: InstId, tag: &str) -> Option<&Bundle> {
        let sym = self.strings.get(tag)?;
        self.func(f).bundles(i).iter().find(|b| b.tag == sym)
    }
    /// The token operand of a `"convergencectrl"` bundle.
    pub fn convergence_token(&self, f: FuncId, i: InstId) -> Option<Value> {
        let b = self.bundle(f, i, "convergencectrl")?;
        self.func(f).bundle_operands(b).first().copied()
    }
    /// Operands of named metadata `!name` (`!nvvm.annotations`, …).
    pub fn named_metadata(&self, name: &str) -> Option<&[MdId]> {
        let sym = self.strings.get(name)?;
        self.named_metadata
            .iter()
            .find(|(n, _)| *n == sym)
            .map(|(_, r)| &self.md_lists[r.range()])
    }
    /// The metadata node `m`.
    #[inline]
    pub fn md(&self, m: MdId) -> &Metadata {
        &self.metadata[m.0 as usize]
    }
    /// Operands of a metadata tuple (following `Node` references), or empty.
    pub fn md_operands(&self, m: MdId) -> &[MdId] {
        let mut m = m;
        for _ in 0..64 {
            match self.md(m) {
                Metadata::Tuple(r) => return &self.md_lists[r.range()],
                Metadata::Node(n) => m = *n,
                _ => return &[],
            }
        }
        &[]
    }
    /// A metadata string's text (following `Node` references).
    pub fn md_string(&self, m: MdId) -> Option<&str> {
        let mut m = m;
        for _ in 0..64 {
            match self.md(m) {
                Metadata::String(s) => return Some(self.str(*s)),
                Metadata::Node(n) => m = *n,
                _ => return None,
            }
        }
        None
    }
    /// Functions marked as kernels by `!nvvm.annotations = !{!{ptr @f, !"kernel", i32 1}, …}`.
    pub fn nvvm_kernels(&self) -> Vec<FuncId> {
        let mut out = Vec::new();
        for &node in self.named_metadata("nvvm.annotations").unwrap_or(&[]) {
            let ops = self.md_operands(node);
            for pair in ops.windows(3).step_by(1) {
                let (Metadata::Value(_, Value::Func(f)), Some("kernel"), Metadata::Value(_, v)) =
                    (self.md(pair[0]), self.md_string(pair[1]), self.md(pair[2]))
                else {
                    continue;
                };
                let one = match v {
                    Value::Const(c) => {
                        matches!(
                            self.consts[c.0 as usize].kind,
                            ConstKind::Int { value: 1, .. }
                        )
                    }
                    _ => false,
                };
                if one && !out.contains(f) {
                    out.push(*f);
                }
            }
        }
        out
    }
    /// Whether `f` is a GPU kernel entry: `amdgpu_kernel`/`ptx_kernel`/`spir_kernel` calling
    /// convention or an `!nvvm.annotations` kernel marker.
    pub fn is_kernel(&self, f: FuncId) -> bool {
        match self.func(f).cc {
            CallConv::Named(s)
                if matches!(self.str(s), "amdgpu_kernel" | "ptx_kernel" | "spir_kernel") =>
            {
                true
            }
            _ => self.nvvm_kernels().contains(&f),
        }
    }
    /// The type of any value used in function `f`.
    pub fn value_type(&self, f: FuncId, v: Value) -> TypeId {
        let func = self.func(f);
        match v {
            Value::Arg(_) | Value::Inst(_) => func.local_type(v).unwrap_or(TypeId(0)),
            Value::Const(c) => self.consts[c.0 as usize].ty,
            Value::Global(g) => self.ptr_type(self.globals[g.0 as usize].addrspace),
            Value::Func(_) | Value::Asm(_) => self.ptr_type(0),
            Value::Meta(_) => self.find_type(&Type::Metadata),
            Value::Block(_) => self.find_type(&Type::Label),
        }
    }
    fn ptr_type(&self, asp: u32) -> TypeId {
        self.find_type(&Type::Ptr(asp))
    }
    /// The id of a scalar type if the module uses it (`TypeId(0)` otherwise).
    pub fn find_type(&self, t: &Type) -> TypeId {
        self.types
            .types
            .iter()
            .position(|x| x == t)
            .map_or(TypeId(0), |i| TypeId(i as u32))
    }
}
