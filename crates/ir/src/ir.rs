//! The IR data model. Entity indices are `u32`; variable-length parts (operands, block references,
//! attributes, bundles) live in per-function or per-module pools and are referenced by [`Range32`].

use converge_graph::Block;

/// A byte range into the module's source text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte (inclusive).
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// A half-open index range into one of the pools.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Range32 {
    /// First index (inclusive).
    pub start: u32,
    /// One past the last index.
    pub end: u32,
}

impl Range32 {
    /// Number of entries.
    #[inline]
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    /// Whether the range holds no entry.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
    /// The range as `usize` indices, for slicing the pool.
    #[inline]
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// An interned string (names, attribute keys and values, metadata strings) in [`Module::strings`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// An optional [`Sym`] in four bytes (an `Option<Sym>` takes eight): keeps per-instruction records
/// small.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct OptSym(u32);

impl OptSym {
    /// No symbol.
    pub const NONE: OptSym = OptSym(u32::MAX);
    /// The symbol `s`.
    pub fn some(s: Sym) -> OptSym {
        OptSym(s.0)
    }
    /// The symbol, if any.
    pub fn get(self) -> Option<Sym> {
        (self.0 != u32::MAX).then_some(Sym(self.0))
    }
}

impl Default for OptSym {
    fn default() -> Self {
        OptSym::NONE
    }
}

/// A type, as an index into [`Types::types`]; equal types have equal ids within one module.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeId(pub u32);
/// An instruction, as an index into its function's [`Function::insts`] (in layout order: a
/// block's instructions are contiguous).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);
/// A constant, as an index into [`Module::consts`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstId(pub u32);
/// A global variable, alias or ifunc, as an index into [`Module::globals`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalId(pub u32);
/// A function (defined or declared), as an index into [`Module::functions`], in source order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);
/// A metadata node, as an index into [`Module::metadata`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MdId(pub u32);
/// An inline-asm callee, as an index into [`Module::asms`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsmId(pub u32);

/// An operand: what an instruction uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A function argument, by position.
    Arg(u32),
    /// An instruction of the same function.
    Inst(InstId),
    /// A constant (including `undef`, `poison`, `none`, constant expressions).
    Const(ConstId),
    /// A global variable, alias or ifunc (`@g`).
    Global(GlobalId),
    /// A function (`@f`): a direct callee, or a function pointer.
    Func(FuncId),
    /// A metadata operand (`metadata !0`, `metadata i32 %x`, …), kept opaque.
    Meta(MdId),
    /// The callee of an inline-asm call.
    Asm(AsmId),
    /// A basic block used as a value (`blockaddress` targets are constants; this is for `label %b`
    /// operands that are not successors, e.g. in `indirectbr` address lists it is not used).
    Block(Block),
}

/// A local name: `%foo`, `%"quoted name"` or an unnamed/numbered value `%7`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum LocalName {
    /// No name: a value without a result (a `store`, a `void` call), or not known.
    #[default]
    None,
    /// A written name (raw text: no `%`, no quotes).
    Named(Sym),
    /// The slot number LLVM gives an unnamed value or block (`%7`, `7:`).
    Slot(u32),
}

/// A type of the module's [`Types`] arena.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void`: no value (results of stores, `void` calls).
    Void,
    /// `iN`: an integer of N bits (N ≥ 1).
    Int(u32),
    /// `half`: IEEE binary16.
    Half,
    /// `bfloat`: brain float, 8 exponent and 7 mantissa bits.
    BFloat,
    /// `float`: IEEE binary32.
    Float,
    /// `double`: IEEE binary64.
    Double,
    /// `x86_fp80`: the x87 80-bit extended format.
    X86Fp80,
    /// `fp128`: IEEE binary128.
    Fp128,
    /// `ppc_fp128`: a pair of doubles.
    PpcFp128,
    /// `x86_amx`: an AMX tile.
    X86Amx,
    /// `ptr addrspace(N)`: an opaque pointer in address space N (0 when not written).
    Ptr(u32),
    /// `label`: the type of a basic block operand.
    Label,
    /// `token`: convergence-control tokens and other values that cannot be inspected, stored or
    /// merged by a phi.
    Token,
    /// `metadata`: the type of metadata operands of intrinsics.
    Metadata,
    /// `<N x T>` or `<vscale x N x T>`.
    Vector {
        /// Number of elements (a multiple of `vscale` when `scalable`).
        len: u32,
        /// `vscale x`: the length is a multiple of a hardware constant.
        scalable: bool,
        /// Element type.
        elem: TypeId,
    },
    /// `[N x T]`.
    Array {
        /// Number of elements.
        len: u64,
        /// Element type.
        elem: TypeId,
    },
    /// A literal struct; `fields` indexes [`Types::lists`].
    Struct {
        /// The field types, a range of [`Types::lists`].
        fields: Range32,
        /// `<{ … }>`: no padding between fields.
        packed: bool,
    },
    /// A named (identified) struct `%T`; its body, if any, is in [`Types::named`].
    Named(u32),
    /// A function type `R (P…)`, as callees and `declare`s have.
    Func {
        /// Return type.
        ret: TypeId,
        /// Parameter types, a range of [`Types::lists`].
        params: Range32,
        /// Whether `...` ends the parameter list.
        vararg: bool,
    },
    /// `target("name", types..., ints...)`.
    TargetExt(Sym),
}

/// The type arena of a module. Types are hash-consed: equal types have equal ids.
#[derive(Clone, Debug, Default)]
pub struct Types {
    /// Every type, indexed by [`TypeId`].
    pub types: Vec<Type>,
    /// Element-type lists of structs and function types.
    pub lists: Vec<TypeId>,
    /// Named struct types: name and body (`None` for opaque).
    pub named: Vec<(Sym, Option<TypeId>)>,
}

/// An LLVM instruction opcode, as written in the text (LLVM's LangRef names).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    // Terminators.
    /// `ret` (terminator).
    Ret,
    /// `br` (terminator).
    Br,
    /// `switch` (terminator).
    Switch,
    /// `indirectbr` (terminator).
    IndirectBr,
    /// `invoke` (terminator).
    Invoke,
    /// `resume` (terminator).
    Resume,
    /// `unreachable` (terminator).
    Unreachable,
    /// `cleanupret` (terminator).
    CleanupRet,
    /// `catchret` (terminator).
    CatchRet,
    /// `catchswitch` (terminator).
    CatchSwitch,
    /// `callbr` (terminator).
    CallBr,
    // Unary and binary.
    /// `fneg` (arithmetic or bitwise operation).
    FNeg,
    /// `add` (arithmetic or bitwise operation).
    Add,
    /// `fadd` (arithmetic or bitwise operation).
    FAdd,
    /// `sub` (arithmetic or bitwise operation).
    Sub,
    /// `fsub` (arithmetic or bitwise operation).
    FSub,
    /// `mul` (arithmetic or bitwise operation).
    Mul,
    /// `fmul` (arithmetic or bitwise operation).
    FMul,
    /// `udiv` (arithmetic or bitwise operation).
    UDiv,
    /// `sdiv` (arithmetic or bitwise operation).
    SDiv,
    /// `fdiv` (arithmetic or bitwise operation).
    FDiv,
    /// `urem` (arithmetic or bitwise operation).
    URem,
    /// `srem` (arithmetic or bitwise operation).
    SRem,
    /// `frem` (arithmetic or bitwise operation).
    FRem,
    /// `shl` (arithmetic or bitwise operation).
    Shl,
    /// `lshr` (arithmetic or bitwise operation).
    LShr,
    /// `ashr` (arithmetic or bitwise operation).
    AShr,
    /// `and` (arithmetic or bitwise operation).
    And,
    /// `or` (arithmetic or bitwise operation).
    Or,
    /// `xor` (arithmetic or bitwise operation).
    Xor,
    // Vector and aggregate.
    /// `extractelement` (vector or aggregate operation).
    ExtractElement,
    /// `insertelement` (vector or aggregate operation).
    InsertElement,
    /// `shufflevector` (vector or aggregate operation).
    ShuffleVector,
    /// `extractvalue` (vector or aggregate operation).
    ExtractValue,
    /// `insertvalue` (vector or aggregate operation).
    InsertValue,
    // Memory.
    /// `alloca` (memory operation).
    Alloca,
    /// `load` (memory operation).
    Load,
    /// `store` (memory operation).
    Store,
    /// `fence` (memory operation).
    Fence,
    /// `cmpxchg` (memory operation).
    CmpXchg,
    /// `atomicrmw` (memory operation).
    AtomicRmw,
    /// `getelementptr` (memory operation).
    GetElementPtr,
    // Casts.
    /// `trunc` (conversion).
    Trunc,
    /// `zext` (conversion).
    ZExt,
    /// `sext` (conversion).
    SExt,
    /// `fptrunc` (conversion).
    FpTrunc,
    /// `fpext` (conversion).
    FpExt,
    /// `fptoui` (conversion).
    FpToUi,
    /// `fptosi` (conversion).
    FpToSi,
    /// `uitofp` (conversion).
    UiToFp,
    /// `sitofp` (conversion).
    SiToFp,
    /// `ptrtoint` (conversion).
    PtrToInt,
    /// `ptrtoaddr` (conversion).
    PtrToAddr,
    /// `inttoptr` (conversion).
    IntToPtr,
    /// `bitcast` (conversion).
    BitCast,
    /// `addrspacecast` (conversion).
    AddrSpaceCast,
    // Other.
    /// `icmp` (instruction).
    ICmp,
    /// `fcmp` (instruction).
    FCmp,
    /// `phi` (instruction).
    Phi,
    /// `select` (instruction).
    Select,
    /// `freeze` (instruction).
    Freeze,
    /// `call` (instruction).
    Call,
    /// `va_arg` (instruction).
    VaArg,
    /// `landingpad` (instruction).
    LandingPad,
    /// `catchpad` (instruction).
    CatchPad,
    /// `cleanuppad` (instruction).
    CleanupPad,
}

impl Opcode {
    /// Whether the instruction ends a block (every block ends in exactly one terminator).
    pub fn is_terminator(self) -> bool {
        matches!(
            self,
            Opcode::Ret
                | Opcode::Br
                | Opcode::Switch
                | Opcode::IndirectBr
                | Opcode::Invoke
                | Opcode::Resume
                | Opcode::Unreachable
                | Opcode::CleanupRet
                | Opcode::CatchRet
                | Opcode::CatchSwitch
                | Opcode::CallBr
        )
    }
    /// The conversion instructions (`trunc` … `addrspacecast`): one operand, a result type.
    pub fn is_cast(self) -> bool {
        matches!(
            self,
            Opcode::Trunc
                | Opcode::ZExt
                | Opcode::SExt
                | Opcode::FpTrunc
                | Opcode::FpExt
                | Opcode::FpToUi
                | Opcode::FpToSi
                | Opcode::UiToFp
                | Opcode::SiToFp
                | Opcode::PtrToInt
                | Opcode::PtrToAddr
                | Opcode::IntToPtr
                | Opcode::BitCast
                | Opcode::AddrSpaceCast
        )
    }
    /// `call`, `invoke` and `callbr`: instructions with a [`CallInfo`].
    pub fn is_call_like(self) -> bool {
        matches!(self, Opcode::Call | Opcode::Invoke | Opcode::CallBr)
    }
}

/// Atomic ordering of `load atomic`, `store atomic`, `atomicrmw`, `cmpxchg` (success), `fence`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ordering {
    /// Not atomic (a plain `load`/`store`).
    #[default]
    NotAtomic,
    /// `unordered`.
    Unordered,
    /// `monotonic`.
    Monotonic,
    /// `acquire`.
    Acquire,
    /// `release`.
    Release,
    /// `acq_rel`.
    AcqRel,
    /// `seq_cst`.
    SeqCst,
}

/// Instruction flags (bit set in [`Inst::flags`]).
pub mod flags {
    /// `nuw`: no unsigned wrap.
    pub const NUW: u16 = 1 << 0;
    /// `nsw`: no signed wrap.
    pub const NSW: u16 = 1 << 1;
    /// `exact` (`udiv`, `sdiv`, `lshr`, `ashr`).
    pub const EXACT: u16 = 1 << 2;
    /// `disjoint` (`or`).
    pub const DISJOINT: u16 = 1 << 3;
    /// `volatile` (memory operations).
    pub const VOLATILE: u16 = 1 << 4;
    /// `inbounds` (`getelementptr`).
    pub const INBOUNDS: u16 = 1 << 5;
    /// `samesign` (`icmp`).
    pub const SAMESIGN: u16 = 1 << 6;
    /// `nneg` (`zext`, `uitofp`).
    pub const NNEG: u16 = 1 << 7;
    /// `weak` (`cmpxchg`).
    pub const WEAK: u16 = 1 << 8;
    /// `tail call`.
    pub const TAIL: u16 = 1 << 9;
    /// `musttail call`.
    pub const MUSTTAIL: u16 = 1 << 10;
    /// `notail call`.
    pub const NOTAIL: u16 = 1 << 11;
    /// Any fast-math flag is present.
    pub const FAST_MATH: u16 = 1 << 12;
}

/// One instruction, in 36 bytes: the fields every analysis reads are public; pool ranges and the
/// rarer data are read through the [`Function`] accessors ([`Function::operands`],
/// [`Function::inst_blocks`], [`Function::aux_list`], [`Function::aux2`],
/// [`Function::syncscope`], [`Function::inst_md`], [`Function::inst_span`]).
///
/// Why so small (issue 13: peak memory at most 3x the file): instructions are most of the IR
/// (1.68 million in a 60 MB control-flow-heavy module, about 36 bytes of text each). Each pool
/// (operands, block references) is filled in instruction order, so a range is stored as its start
/// and ends where the next instruction's begins; alignment and index lists, metadata attachments,
/// `aux2`, syncscopes and spans longer than 64 KiB are in the function's [`InstSide`] tables, with
/// a bit here saying whether there is an entry.
#[derive(Clone, Debug)]
pub struct Inst {
    /// The opcode.
    pub op: Opcode,
    /// Atomic ordering (`NotAtomic` for non-atomic instructions); `cmpxchg`'s success ordering.
    pub ordering: Ordering,
    /// Set of [`flags`].
    pub flags: u16,
    /// Result type (`void` for stores, void calls, terminators without a value, …).
    pub ty: TypeId,
    /// The block the instruction is in.
    pub block: Block,
    /// Opcode-specific small datum: the `icmp`/`fcmp` predicate ([`IPred`]/[`FPred`] as u8); the
    /// `atomicrmw` operation ([`RmwOp`] as u8); the pointer address space of `load`, `store`,
    /// `atomicrmw`, `cmpxchg` and `alloca`; the index into [`Function::calls`] for call-likes; the
    /// source element type for `getelementptr` and `alloca` (a `TypeId`).
    ///
    /// Where these overlap the reader uses: `atomicrmw`: the operation (its address space is
    /// [`Function::aux2`]); `alloca`: the address space (its allocated type is
    /// [`Function::aux2`]); `getelementptr`: the source element type; `landingpad`: 1 if it has
    /// `cleanup`.
    pub aux: u32,
    /// The result's name, packed (see [`Inst::name`]).
    name: PackedName,
    /// First operand in [`Function::operands`].
    ops: u32,
    /// First block reference in [`Function::block_refs`].
    refs: u32,
    /// First byte of the instruction in the source.
    pub(crate) span_start: u32,
    /// Length of the instruction's text; [`LONG_SPAN`] when it is in [`InstSide::long_spans`].
    span_len: u16,
    /// Which side tables hold an entry for this instruction (`side::*` bits).
    side: u8,
}

/// A [`LocalName`] in four bytes: `u32::MAX` for none, the high bit set for a slot number, a
/// [`Sym`] otherwise.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PackedName(u32);

impl PackedName {
    const NONE: PackedName = PackedName(u32::MAX);
    const SLOT: u32 = 1 << 31;

    pub(crate) fn pack(n: LocalName) -> PackedName {
        match n {
            LocalName::None => PackedName::NONE,
            LocalName::Named(s) => {
                assert!(
                    s.0 < Self::SLOT,
                    "too many interned strings for a local name"
                );
                PackedName(s.0)
            }
            LocalName::Slot(k) => {
                assert!(k < Self::SLOT - 1, "slot number too large");
                PackedName(k | Self::SLOT)
            }
        }
    }

    #[inline]
    pub(crate) fn get(self) -> LocalName {
        if self.0 == u32::MAX {
            LocalName::None
        } else if self.0 & Self::SLOT != 0 {
            LocalName::Slot(self.0 & !Self::SLOT)
        } else {
            LocalName::Named(Sym(self.0))
        }
    }
}

/// `span_len` of an instruction whose text is 64 KiB or longer (a huge `switch` or `phi`).
pub(crate) const LONG_SPAN: u16 = u16::MAX;

/// Bits of [`Inst::side`]: the side tables holding an entry for the instruction.
mod side {
    pub const AUX_LIST: u8 = 1 << 0;
    pub const MD: u8 = 1 << 1;
    pub const AUX2: u8 = 1 << 2;
    pub const SYNCSCOPE: u8 = 1 << 3;
    pub const OPS_END: u8 = 1 << 4;
    pub const REFS_END: u8 = 1 << 5;
}

impl Inst {
    /// The result's name (`LocalName::None` for instructions without a result).
    #[inline]
    pub fn name(&self) -> LocalName {
        self.name.get()
    }
    /// Sets the result's name (the reader names values once the body is read).
    pub(crate) fn set_name(&mut self, n: LocalName) {
        self.name = PackedName::pack(n);
    }
}

/// The rarer per-instruction data of a [`Function`], each list sorted by instruction index (the
/// reader appends in instruction order) and found by binary search when the instruction's bit says
/// it has an entry.
#[derive(Clone, Debug, Default)]
pub struct InstSide {
    /// Instructions with a non-empty [`Function::aux_list`]: (instruction, range into
    /// [`Function::aux`]).
    aux_lists: Vec<(u32, Range32)>,
    /// Instructions with metadata attachments: (instruction, range into
    /// [`Function::md_attachments`]).
    mds: Vec<(u32, Range32)>,
    /// Instructions with a non-zero [`Function::aux2`] that is not implied by the opcode.
    aux2: Vec<(u32, u32)>,
    /// Instructions with a syncscope.
    syncscopes: Vec<(u32, Sym)>,
    /// Instructions whose text is 64 KiB or longer: (instruction, end of the span).
    long_spans: Vec<(u32, u32)>,
    /// Instructions whose operands do not end where the next instruction's begin (call-likes
    /// with operand bundles, whose operands follow the arguments): (instruction, end).
    ops_ends: Vec<(u32, u32)>,
    /// The same for block references (none from the reader; kept for exactness).
    refs_ends: Vec<(u32, u32)>,
}

/// The number of side tables in [`InstSide`].
pub(crate) const SIDE_TABLES: usize = 7;

#[inline]
fn side_find<T: Copy>(v: &[(u32, T)], i: u32) -> Option<T> {
    v.binary_search_by_key(&i, |e| e.0).ok().map(|k| v[k].1)
}

/// An instruction as the reader builds it, with every field explicit; [`Function::push_inst`]
/// stores it compactly.
#[derive(Clone, Debug)]
/// An instruction for [`Function::push_plain`]: the fields of [`Inst`] the whole-line fast
/// paths set.
pub(crate) struct PlainInst {
    pub op: Opcode,
    pub ty: TypeId,
    pub block: Block,
    pub flags: u16,
    pub aux: u32,
    pub name: LocalName,
    pub ops: u32,
    pub refs: u32,
    pub span_start: u32,
    pub span_len: u16,
    /// Its integer list in [`Function::aux`] (a `store`'s alignment), often empty.
    pub aux_list: Range32,
}

/// An instruction as the reader begins it: where its operands, block references, integer list
/// and attachments start in the function's pools, and its fields as it reads them. Where those
/// end, and its span, are known only once its line is read ([`InstEnds`]), so they are not
/// written when it is begun: most lines end in [`Function::push_plain`], which takes the pools'
/// ends as they stand (issue 13: writing them into every line's builder cost about 1% of the
/// read's instructions on a 38 MB module).
pub(crate) struct InstBuilder {
    pub op: Opcode,
    pub ty: TypeId,
    pub block: Block,
    pub ops_start: u32,
    pub refs_start: u32,
    pub aux_start: u32,
    pub flags: u16,
    pub aux: u32,
    pub aux2: u32,
    pub ordering: Ordering,
    pub syncscope: OptSym,
    pub md_start: u32,
}

/// Where the pools of an instruction begun as an [`InstBuilder`] end, and its text's span, once
/// its line is read ([`Function::push_inst`]).
pub(crate) struct InstEnds {
    pub ops: u32,
    pub refs: u32,
    pub aux: u32,
    pub md: u32,
    pub span: Span,
}

impl InstBuilder {
    /// The instruction as `Function::push_plain` takes it, as opcode `op`, with its result name,
    /// its text's span and its integer list.
    #[inline]
    pub fn plain(
        &self,
        op: Opcode,
        name: LocalName,
        span_start: u32,
        span_len: u16,
        aux_list: Range32,
    ) -> PlainInst {
        PlainInst {
            op,
            ty: self.ty,
            block: self.block,
            flags: self.flags,
            aux: self.aux,
            name,
            ops: self.ops_start,
            refs: self.refs_start,
            span_start,
            span_len,
            aux_list,
        }
    }
}

impl Function {
    /// Appends an instruction built by the reader as `b`, its pools ending and its text spanning
    /// as `e`, named `name`. Its operand and block-reference ranges start where the pools stood
    /// when it was begun and, unless recorded otherwise here, end where the next instruction's
    /// begin (nothing is pushed between two instructions).
    #[inline]
    pub(crate) fn push_inst(&mut self, b: &InstBuilder, e: &InstEnds, name: LocalName) {
        let id = self.insts.len() as u32;
        let len = e.span.end.saturating_sub(e.span.start);
        // One test for the common case (no side entry), the side tables out of line.
        let rare = (e.aux != b.aux_start)
            | (e.md != b.md_start)
            | b.syncscope.get().is_some()
            | (e.ops as usize != self.operands.len())
            | (e.refs as usize != self.block_refs.len())
            | (len >= LONG_SPAN as u32)
            | (b.aux2 != implied_aux2(b.op, b.ty, b.aux))
            | (b.op == Opcode::Alloca);
        let side = if rare {
            self.push_side(id, b, e, len)
        } else {
            0
        };
        self.insts.push(Inst {
            op: b.op,
            ordering: b.ordering,
            flags: b.flags,
            ty: b.ty,
            block: b.block,
            aux: b.aux,
            name: PackedName::pack(name),
            ops: b.ops_start,
            refs: b.refs_start,
            span_start: e.span.start,
            span_len: len.min(LONG_SPAN as u32) as u16,
            side,
        });
    }

    /// Appends an instruction whose only side-table entry, if any, is its integer list (see
    /// [`Function::push_inst`]): its operands and block references are the pools' ends since
    /// `ops` and `refs`, it has no attachment or scope, and its `aux2` is the one its opcode
    /// implies (see `implied_aux2`). `span_len` must be below [`LONG_SPAN`].
    #[inline(always)]
    pub(crate) fn push_plain(&mut self, p: PlainInst) {
        debug_assert!(p.span_len < LONG_SPAN && p.op != Opcode::Alloca);
        let side = if p.aux_list.is_empty() {
            0
        } else {
            let id = self.insts.len() as u32;
            self.side.aux_lists.push((id, p.aux_list));
            side::AUX_LIST
        };
        self.insts.push(Inst {
            op: p.op,
            ordering: Ordering::NotAtomic,
            flags: p.flags,
            ty: p.ty,
            block: p.block,
            aux: p.aux,
            name: PackedName::pack(p.name),
            ops: p.ops,
            refs: p.refs,
            span_start: p.span_start,
            span_len: p.span_len,
            side,
        });
    }

    /// The side-table entries of instruction `id` (built as `b`, its text `len` bytes long);
    /// returns its `side` bits.
    #[inline(never)]
    fn push_side(&mut self, id: u32, b: &InstBuilder, e: &InstEnds, len: u32) -> u8 {
        let aux_list = Range32 {
            start: b.aux_start,
            end: e.aux,
        };
        let md = Range32 {
            start: b.md_start,
            end: e.md,
        };
        let mut bits = 0u8;
        if !aux_list.is_empty() {
            bits |= side::AUX_LIST;
            self.side.aux_lists.push((id, aux_list));
        }
        if !md.is_empty() {
            bits |= side::MD;
            self.side.mds.push((id, md));
        }
        // `alloca`'s always (a type id the two-thread reader's merge rewrites, even type 0).
        if b.aux2 != implied_aux2(b.op, b.ty, b.aux) || b.op == Opcode::Alloca {
            bits |= side::AUX2;
            self.side.aux2.push((id, b.aux2));
        }
        if let Some(s) = b.syncscope.get() {
            bits |= side::SYNCSCOPE;
            self.side.syncscopes.push((id, s));
        }
        if e.ops as usize != self.operands.len() {
            bits |= side::OPS_END;
            self.side.ops_ends.push((id, e.ops));
        }
        if e.refs as usize != self.block_refs.len() {
            bits |= side::REFS_END;
            self.side.refs_ends.push((id, e.refs));
        }
        if len >= LONG_SPAN as u32 {
            self.side.long_spans.push((id, e.span.end));
        }
        bits
    }

    /// Rewrites the reader's provisional ids of the rarer fields (the two-thread reader's merge):
    /// `aux2` through `ty_of` where it is a type, syncscopes through `sym`.
    pub(crate) fn remap_side(&mut self, ty_of: impl Fn(u32) -> u32, sym: impl Fn(Sym) -> Sym) {
        for e in &mut self.side.syncscopes {
            e.1 = sym(e.1);
        }
        for e in &mut self.side.aux2 {
            if self.insts[e.0 as usize].op == Opcode::Alloca {
                e.1 = ty_of(e.1);
            }
        }
    }

    /// The lengths of the side tables (the reader sizes the next function's tables by them).
    pub(crate) fn side_lens(&self) -> [usize; SIDE_TABLES] {
        let t = &self.side;
        [
            t.aux_lists.len(),
            t.mds.len(),
            t.aux2.len(),
            t.syncscopes.len(),
            t.long_spans.len(),
            t.ops_ends.len(),
            t.refs_ends.len(),
        ]
    }

    /// Reserves room for `n[k]` more entries in side table `k` (in [`Function::side_lens`]'s
    /// order), so that a body's entries are pushed without growth copies.
    pub(crate) fn reserve_side(&mut self, n: &[usize; SIDE_TABLES]) {
        let t = &mut self.side;
        make_room(&mut t.aux_lists, n[0]);
        make_room(&mut t.mds, n[1]);
        make_room(&mut t.aux2, n[2]);
        make_room(&mut t.syncscopes, n[3]);
        make_room(&mut t.long_spans, n[4]);
        make_room(&mut t.ops_ends, n[5]);
        make_room(&mut t.refs_ends, n[6]);
    }

    /// Releases the side tables' spare capacity (the reader reserves generously while reading).
    pub(crate) fn shrink_side(&mut self) {
        let t = &mut self.side;
        t.aux_lists.shrink_to_fit();
        t.mds.shrink_to_fit();
        t.aux2.shrink_to_fit();
        t.syncscopes.shrink_to_fit();
        t.long_spans.shrink_to_fit();
        t.ops_ends.shrink_to_fit();
        t.refs_ends.shrink_to_fit();
    }

    /// Operand range of instruction `i` in [`Function::operands`] (see [`Function::operands`]).
    #[inline]
    pub fn operand_range(&self, i: InstId) -> Range32 {
        let k = i.0 as usize;
        let inst = &self.insts[k];
        let end = if inst.side & side::OPS_END != 0 {
            side_find(&self.side.ops_ends, i.0).unwrap_or(inst.ops)
        } else {
            match self.insts.get(k + 1) {
                Some(n) => n.ops,
                None => self.operands.len() as u32,
            }
        };
        Range32 {
            start: inst.ops,
            end,
        }
    }

    /// Block-reference range of instruction `i` in [`Function::block_refs`] (see
    /// [`Function::inst_blocks`]).
    #[inline]
    pub fn inst_block_range(&self, i: InstId) -> Range32 {
        let k = i.0 as usize;
        let inst = &self.insts[k];
        let end = if inst.side & side::REFS_END != 0 {
            side_find(&self.side.refs_ends, i.0).unwrap_or(inst.refs)
        } else {
            match self.insts.get(k + 1) {
                Some(n) => n.refs,
                None => self.block_refs.len() as u32,
            }
        };
        Range32 {
            start: inst.refs,
            end,
        }
    }

    /// Integer side data of instruction `i`, a range of [`Function::aux`]:
    /// `extractvalue`/`insertvalue` indices, `shufflevector` mask, `alloca` count/alignment,
    /// `landingpad` clause kinds.
    ///
    /// The reader's layout: `extractvalue`/`insertvalue`: the indices; `shufflevector`: the mask
    /// (`u64::MAX` for undef/poison lanes); `alloca`: `[has_count (0/1), align (0 = none)]`;
    /// `load`/`store`/`atomicrmw`: `[align]` when an alignment is written; `cmpxchg`: `[failure
    /// ordering (Ordering as u64), align?]`; `landingpad`: clause kinds (0 = catch, 1 = filter),
    /// parallel to the operands.
    #[inline]
    pub fn aux_list_range(&self, i: InstId) -> Range32 {
        let inst = &self.insts[i.0 as usize];
        if inst.side & side::AUX_LIST == 0 {
            return Range32::default();
        }
        side_find(&self.side.aux_lists, i.0).unwrap_or_default()
    }

    /// The entries of [`Function::aux_list_range`].
    #[inline]
    pub fn aux_list(&self, i: InstId) -> &[u64] {
        &self.aux[self.aux_list_range(i).range()]
    }

    /// Second opcode-specific datum of instruction `i`: the element type of `getelementptr` and
    /// `alloca`, the loaded type of `load` (a `TypeId`); the pointer address space of `atomicrmw`
    /// (the reader's convention, see [`Inst::aux`]); 0 otherwise.
    #[inline]
    pub fn aux2(&self, i: InstId) -> u32 {
        let inst = &self.insts[i.0 as usize];
        if inst.side & side::AUX2 == 0 {
            return implied_aux2(inst.op, inst.ty, inst.aux);
        }
        side_find(&self.side.aux2, i.0).unwrap_or(0)
    }

    /// Syncscope of instruction `i`, if any (`syncscope("agent")`).
    #[inline]
    pub fn syncscope(&self, i: InstId) -> Option<Sym> {
        let inst = &self.insts[i.0 as usize];
        if inst.side & side::SYNCSCOPE == 0 {
            return None;
        }
        side_find(&self.side.syncscopes, i.0)
    }

    /// Metadata attachments (`!dbg !3`, …) of instruction `i`, a range of
    /// [`Function::md_attachments`].
    #[inline]
    pub fn inst_md_range(&self, i: InstId) -> Range32 {
        let inst = &self.insts[i.0 as usize];
        if inst.side & side::MD == 0 {
            return Range32::default();
        }
        side_find(&self.side.mds, i.0).unwrap_or_default()
    }

    /// Where instruction `i` is in the source.
    #[inline]
    pub fn inst_span(&self, i: InstId) -> Span {
        let inst = &self.insts[i.0 as usize];
        let end = if inst.span_len == LONG_SPAN {
            side_find(&self.side.long_spans, i.0).unwrap_or(inst.span_start)
        } else {
            inst.span_start + inst.span_len as u32
        };
        Span {
            start: inst.span_start,
            end,
        }
    }
}

/// The `aux2` an opcode implies without a side entry: `load`'s loaded type is its result type,
/// `getelementptr`'s element type is its source element type (in `aux`).
#[inline]
fn implied_aux2(op: Opcode, ty: TypeId, aux: u32) -> u32 {
    match op {
        Opcode::Load => ty.0,
        Opcode::GetElementPtr => aux,
        _ => 0,
    }
}

/// An `icmp` predicate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum IPred {
    /// `eq`: equal.
    Eq,
    /// `ne`: not equal.
    Ne,
    /// `ugt`: unsigned greater than.
    Ugt,
    /// `uge`: unsigned greater or equal.
    Uge,
    /// `ult`: unsigned less than.
    Ult,
    /// `ule`: unsigned less or equal.
    Ule,
    /// `sgt`: signed greater than.
    Sgt,
    /// `sge`: signed greater or equal.
    Sge,
    /// `slt`: signed less than.
    Slt,
    /// `sle`: signed less or equal.
    Sle,
}

/// An `fcmp` predicate; "ordered" means neither operand is NaN.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FPred {
    /// `false`: always false.
    False,
    /// `oeq`: ordered (neither is NaN) and equal.
    Oeq,
    /// `ogt`: ordered and greater than.
    Ogt,
    /// `oge`: ordered and greater or equal.
    Oge,
    /// `olt`: ordered and less than.
    Olt,
    /// `ole`: ordered and less or equal.
    Ole,
    /// `one`: ordered and not equal.
    One,
    /// `ord`: ordered (neither operand is NaN).
    Ord,
    /// `ueq`: unordered (either is NaN) or equal.
    Ueq,
    /// `ugt`: unordered or greater than.
    Ugt,
    /// `uge`: unordered or greater or equal.
    Uge,
    /// `ult`: unordered or less than.
    Ult,
    /// `ule`: unordered or less or equal.
    Ule,
    /// `une`: unordered or not equal.
    Une,
    /// `uno`: unordered (either operand is NaN).
    Uno,
    /// `true`: always true.
    True,
}

/// An `atomicrmw` operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RmwOp {
    /// `xchg`: exchange.
    Xchg,
    /// `add`: integer add.
    Add,
    /// `sub`: integer subtract.
    Sub,
    /// `and`: bitwise and.
    And,
    /// `nand`: bitwise not-and.
    Nand,
    /// `or`: bitwise or.
    Or,
    /// `xor`: bitwise xor.
    Xor,
    /// `max`: signed maximum.
    Max,
    /// `min`: signed minimum.
    Min,
    /// `umax`: unsigned maximum.
    UMax,
    /// `umin`: unsigned minimum.
    UMin,
    /// `fadd`: floating-point add.
    FAdd,
    /// `fsub`: floating-point subtract.
    FSub,
    /// `fmax`: floating-point `maxnum`.
    FMax,
    /// `fmin`: floating-point `minnum`.
    FMin,
    /// `fmaximum`: floating-point `maximum` (NaN-propagating).
    FMaximum,
    /// `fminimum`: floating-point `minimum` (NaN-propagating).
    FMinimum,
    /// `uincwrap`: increment, wrapping to 0 past the operand.
    UIncWrap,
    /// `udecwrap`: decrement, wrapping to the operand below 1.
    UDecWrap,
    /// `usubcond`: subtract if no unsigned underflow.
    USubCond,
    /// `usubsat`: unsigned saturating subtract.
    USubSat,
}

/// Call-site data for `call`, `invoke`, `callbr`.
#[derive(Clone, Debug)]
pub struct CallInfo {
    /// `Value::Func` for direct calls, `Value::Asm` for inline asm, anything else for indirect calls.
    pub callee: Value,
    /// The function type at the call site.
    pub fn_ty: TypeId,
    /// The calling convention written at the call site.
    pub cc: CallConv,
    /// Call-site function attributes (inline and from `#N` groups), into [`Module::attrs`].
    pub fn_attrs: Range32,
    /// Per-argument attributes: one `Range32` into [`Module::attrs`] per argument, into
    /// [`Function::arg_attr_lists`].
    pub arg_attrs: Range32,
    /// Operand bundles into [`Function::bundles`].
    pub bundles: Range32,
}

/// An operand bundle of a call: `[ "convergencectrl"(token %t) ]`, `[ "deopt"(…) ]`, ….
#[derive(Clone, Debug)]
pub struct Bundle {
    /// The bundle's tag (`convergencectrl`, …).
    pub tag: Sym,
    /// Into [`Function::operands`].
    pub operands: Range32,
}

/// An attribute: `convergent`, `align 4`, `"amdgpu-flat-work-group-size"="1,256"`, `byval(i32)`, …
/// `value` holds the textual argument if any (`4`, `1,256`, the type text of `byval(...)`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attr {
    /// The attribute's name (`convergent`, `align`, a quoted string attribute's key).
    pub key: Sym,
    /// The argument, as written (without quotes or parentheses), if any.
    pub value: Option<Sym>,
}

/// Calling convention, kept as LLVM spells it (`amdgpu_kernel`, `ptx_kernel`, `cc 91`, …).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum CallConv {
    /// The default C convention (nothing written).
    #[default]
    C,
    /// Any other convention, by its keyword (or `cc N` text).
    Named(Sym),
}

/// A basic block: a name and a contiguous range of instructions ending in a terminator, in 12
/// bytes (the range ends where the next block's begins; the span ends with the terminator's): read
/// the range and span through [`Function::block_range`] and [`Function::block_span`].
#[derive(Copy, Clone, Debug)]
pub struct BlockData {
    /// The label, packed (see [`BlockData::name`]).
    name: PackedName,
    /// First instruction of the block in [`Function::insts`].
    pub(crate) first: u32,
    /// First byte of the block in the source (its label, or its first instruction).
    pub(crate) span_start: u32,
}

impl BlockData {
    /// A block whose instructions begin at `first` and whose text begins at `span_start`.
    #[inline]
    pub(crate) fn new(name: LocalName, first: u32, span_start: u32) -> BlockData {
        BlockData {
            name: PackedName::pack(name),
            first,
            span_start,
        }
    }
    /// The label (`LocalName::Slot` for an unnamed block, numbered as LLVM numbers it).
    #[inline]
    pub fn name(&self) -> LocalName {
        self.name.get()
    }
    /// Sets the label (the two-thread reader's merge rewrites provisional symbols).
    pub(crate) fn set_name(&mut self, n: LocalName) {
        self.name = PackedName::pack(n);
    }
}

/// A function parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// The parameter's type.
    pub ty: TypeId,
    /// The parameter's name (`%x`, or a slot number).
    pub name: LocalName,
    /// Into [`Module::attrs`].
    pub attrs: Range32,
    /// Where the parameter is in the source.
    pub span: Span,
}

/// A function: a declaration (no blocks) or a definition with its body. The body's
/// instructions, operands and side tables are flat pools; [`Inst`] addresses them by range (read
/// through the accessors).
/// Block 0 is the entry.
#[derive(Clone, Debug)]
pub struct Function {
    /// Raw name (no `@`, no quotes).
    pub name: Sym,
    /// Return type.
    pub ret_ty: TypeId,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// Whether the function takes `...`.
    pub vararg: bool,
    /// Calling convention (`amdgpu_kernel`, `ptx_kernel`, …).
    pub cc: CallConv,
    /// Linkage (`internal`, `private`, …); `None` for external.
    pub linkage: Option<Sym>,
    /// Function attributes, inline and from `#N` groups, into [`Module::attrs`].
    pub attrs: Range32,
    /// Function metadata attachments (`!reqd_work_group_size !0`), into `md_attachments`.
    pub md: Range32,
    /// Whether this is a `declare` (no body).
    pub is_declaration: bool,
    /// Blocks in layout order; block `i` is `Block(i)`.
    pub blocks: Vec<BlockData>,
    /// Instructions of all blocks in layout order, indexed by [`InstId`].
    pub insts: Vec<Inst>,
    /// Operand pool ([`Function::operands`], [`Bundle::operands`]).
    pub operands: Vec<Value>,
    /// Block-reference pool ([`Function::inst_blocks`]: successors and phi incoming blocks).
    pub block_refs: Vec<Block>,
    /// Integer side-data pool ([`Function::aux_list`]).
    pub aux: Vec<u64>,
    /// Call-site data of call-like instructions, indexed by their [`Inst::aux`].
    pub calls: Vec<CallInfo>,
    /// Operand-bundle pool ([`CallInfo::bundles`]).
    pub bundles: Vec<Bundle>,
    /// Per-argument attribute lists of calls ([`CallInfo::arg_attrs`]).
    pub arg_attr_lists: Vec<Range32>,
    /// (kind, node) pairs.
    pub md_attachments: Vec<(Sym, MdId)>,
    /// Where the function is in the source.
    pub span: Span,
    /// Added by the reader: return-value attributes, into [`Module::attrs`].
    pub ret_attrs: Range32,
    /// The rarer per-instruction data (see [`Inst`]).
    pub side: InstSide,
}

/// A module-level global: variable, alias or ifunc (see [`GlobalKind`]).
#[derive(Clone, Debug)]
pub struct Global {
    /// Raw name (no `@`, no quotes).
    pub name: Sym,
    /// The type written in the definition (the contents of a variable).
    pub ty: TypeId,
    /// Address space of the global's pointer.
    pub addrspace: u32,
    /// `constant` rather than `global`.
    pub is_constant: bool,
    /// The initializer; for an alias or ifunc, the aliasee/resolver.
    pub init: Option<ConstId>,
    /// Where the global is in the source.
    pub span: Span,
    /// Added by the reader: variable, alias or ifunc.
    pub kind: GlobalKind,
    /// Added by the reader: `internal`, `private`, … (`None` = external).
    pub linkage: Option<Sym>,
}

/// What a [`Global`] entry is (`@g = global …`, `@a = alias …`, `@i = ifunc …`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum GlobalKind {
    /// `@g = global …` or `constant …`.
    #[default]
    Variable,
    /// `@a = alias …`: another name for the aliasee in `init`.
    Alias,
    /// `@i = ifunc …`: resolved at load time by the resolver in `init`.
    IFunc,
}

/// Constants are module-wide. The reader shares simple scalar constants (integers, `null`, `undef`,
/// `poison`, `zeroinitializer`, globals) of the same type; compare constants by content, not id.
#[derive(Clone, Debug)]
pub struct Const {
    /// The constant's type.
    pub ty: TypeId,
    /// What the constant is.
    pub kind: ConstKind,
}

/// The kinds of constant.
#[derive(Clone, Debug)]
pub enum ConstKind {
    /// Integer of up to 128 bits (wider integers keep the low 128 bits; `wide` is set).
    Int {
        /// The low 128 bits (two's complement).
        value: u128,
        /// The integer type is wider than 128 bits.
        wide: bool,
    },
    /// IEEE bits of `half`/`bfloat`/`float`/`double` (other float types: low 64 bits, raw).
    Float(u64),
    /// `null` pointer.
    Null,
    /// `undef`: any value of the type, possibly a different one at each use.
    Undef,
    /// `poison`.
    Poison,
    /// `zeroinitializer`.
    Zero,
    /// `none` of type token.
    NoneToken,
    /// Struct, array or vector literal; elements into [`Module::const_lists`].
    Aggregate(Range32),
    /// `c"..."` bytes, into [`Module::bytes`].
    Bytes(Range32),
    /// The address of a global (`@g` as a constant).
    Global(GlobalId),
    /// The address of a function (`@f` as a constant).
    Func(FuncId),
    /// `blockaddress(@f, %b)`.
    BlockAddress(FuncId, Block),
    /// A constant expression: opcode, operands into `const_lists`, flags, predicate/aux.
    Expr {
        /// The operation (`getelementptr`, casts, arithmetic, `icmp`, …).
        op: Opcode,
        /// Operands, a range of [`Module::const_lists`].
        operands: Range32,
        /// Opcode-specific datum, as in [`Inst::aux`] (predicate, source element type).
        aux: u32,
        /// Set of [`flags`].
        flags: u16,
    },
    /// Anything else kept opaque (`dso_local_equivalent`, `no_cfi`, `ptrauth`, …).
    Other,
}

/// An inline-asm callee: `asm sideeffect "…", "…"`.
#[derive(Clone, Debug)]
pub struct InlineAsm {
    /// The assembly text.
    pub asm: Sym,
    /// The constraint string.
    pub constraints: Sym,
    /// `sideeffect` is written.
    pub side_effect: bool,
}

/// A metadata node or operand, kept opaque beyond what the analyses read.
#[derive(Clone, Debug)]
pub enum Metadata {
    /// `!{...}` / `distinct !{...}`; operands into [`Module::md_lists`].
    Tuple(Range32),
    /// `!DILocation(...)` and other specialised nodes.
    Special(Sym),
    /// A metadata string `!"…"`.
    String(Sym),
    /// A value wrapped as metadata (`i32 1`, `ptr @f`). Function-local values keep their function.
    Value(Option<FuncId>, Value),
    /// A reference to a numbered node `!7`, resolved to its definition's id.
    Node(MdId),
    /// `null` metadata, and numbered nodes that are never defined.
    Null,
}

/// One parsed `.ll` file: globals, functions and the module-wide arenas (strings, types,
/// constants, attributes, metadata) they index into. Built by [`crate::parse`]; immutable
/// afterwards, except for the printer's lazily built tables.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The file name used in diagnostics.
    pub source_name: String,
    /// The whole source text; spans index into it.
    pub source: crate::Source,
    /// `target triple = "…"`, if written (decides the target model of the analyses).
    pub triple: Option<String>,
    /// `target datalayout = "…"`, if written.
    pub datalayout: Option<String>,
    /// The interner of every name and attribute text.
    pub strings: Strings,
    /// The type arena.
    pub types: Types,
    /// Global variables, aliases and ifuncs, in source order, indexed by [`GlobalId`].
    pub globals: Vec<Global>,
    /// Functions in source order, indexed by [`FuncId`].
    pub functions: Vec<Function>,
    /// Constants, indexed by [`ConstId`].
    pub consts: Vec<Const>,
    /// Element pool of aggregate constants and constant expressions.
    pub const_lists: Vec<ConstId>,
    /// Byte pool of `c"…"` strings.
    pub bytes: Vec<u8>,
    /// Inline-asm callees, indexed by [`AsmId`].
    pub asms: Vec<InlineAsm>,
    /// Attribute pool (function, parameter, call-site and group attributes).
    pub attrs: Vec<Attr>,
    /// Numbered metadata `!N` by number (index = id); also holds anonymous inline nodes.
    pub metadata: Vec<Metadata>,
    /// Operand pool of metadata tuples and named metadata.
    pub md_lists: Vec<MdId>,
    /// `!name = !{...}`; the range indexes [`Module::md_lists`].
    pub named_metadata: Vec<(Sym, Range32)>,
    /// Added by the reader: `source_filename = "..."`.
    pub source_filename: Option<String>,
    /// Added by the reader: `$name = comdat <kind>` as (name, kind).
    pub comdats: Vec<(Sym, Sym)>,
    /// Added by the reader: `attributes #N = { ... }` as (N, range into [`Module::attrs`]).
    pub attr_groups: Vec<(u32, Range32)>,
    /// Added by the reader: index of the first anonymous (inline) metadata node in
    /// [`Module::metadata`]; entries below it are the numbered nodes `!N` at index N (numbers that
    /// were never defined hold `Metadata::Null`).
    pub first_inline_md: u32,
    /// Added by the printer: numbering tables built on first use (see `print::Tables`).
    #[doc(hidden)]
    pub print_tables: std::sync::OnceLock<crate::print::Tables>,
    /// Added by the printer: the part of the tables that printing with the source's own numbers
    /// needs (attachment-kind order, default alignments), built on first use.
    #[doc(hidden)]
    pub source_print_tables: std::sync::OnceLock<crate::print::Tables>,
}

/// Makes room in `v` for `extra` more entries. A vector at most half full moves to a new block of
/// exactly the room needed with its entries copied, instead of `Vec::reserve`'s `realloc`: glibc's
/// `realloc` of a block it cannot extend copies the whole old block, spare capacity included, and
/// the reader reserves generously (a huge body's pools start at twice the previous body's), so
/// `realloc` would copy megabytes never written, each line a cache miss on both sides.
pub(crate) fn make_room<T>(v: &mut Vec<T>, extra: usize) {
    if v.capacity() - v.len() >= extra {
        return;
    }
    if v.len() * 2 <= v.capacity() {
        let mut w = Vec::with_capacity(v.len() + extra);
        w.append(v);
        *v = w;
    } else {
        v.reserve(extra);
    }
}

/// A string interner backed by one buffer: no allocation per string.
#[derive(Clone, Debug, Default)]
pub struct Strings {
    /// Every interned text, concatenated.
    pub buf: String,
    /// Per symbol: its byte range in `buf`.
    pub spans: Vec<(u32, u32)>,
    /// Text to symbol.
    pub map: StrIndex,
}

/// The interner's index from text to symbol: open addressing over 16-byte slots (four to a cache
/// line) that hold the low half of the text's hash, the symbol and one word of the text (the whole
/// text and its length when it has at most 7 bytes), so a lookup of a short text is confirmed
/// within one cache line; longer texts are confirmed against the buffer. No allocation per string
/// (a `HashMap<Box<str>, Sym>` allocated a key per string), and half the memory of the earlier
/// 32-byte slots: the reader interns hundreds of thousands of names in one large function, and
/// the table's fresh memory was a fifth of the reader's cold cache misses there.
#[derive(Clone, Default)]
pub struct StrIndex {
    slots: Vec<StrSlot>,
    len: usize,
}

#[derive(Copy, Clone)]
struct StrSlot {
    /// The low 32 bits of the text's hash: the home slot's index bits (tables have fewer than
    /// 2^32 slots), and a filter.
    hash: u32,
    /// `u32::MAX` marks an empty slot.
    sym: u32,
    /// [`slot_word`] of the text.
    word: u64,
}

const EMPTY_STR_SLOT: StrSlot = StrSlot {
    hash: 0,
    sym: u32::MAX,
    word: 0,
};

/// A text of at most 7 bytes as its zero-padded little-endian bytes with the length in the top
/// byte (the text itself: equal words, equal texts); a longer text as its first 7 bytes with
/// `0xff` on top (a filter: the text is compared in the buffer).
#[inline]
fn slot_word(b: &[u8]) -> u64 {
    if b.len() < 8 {
        crate::fx::exact_word(b) | (b.len() as u64) << 56
    } else {
        crate::fx::exact_word(&b[..7]) | 0xff << 56
    }
}

/// The home slot of a text whose hash's low half is `h` in a table of `n` slots: the high half of
/// `h * n` (Lemire's multiply-shift range reduction), so a table can have any size, not only a
/// power of two: the reader sizes it once from an estimate of a huge body's names, where rounding
/// up to a power of two could double it.
#[inline]
fn home(h: u32, n: usize) -> usize {
    ((h as u64 * n as u64) >> 32) as usize
}

/// The slot after `i` in a table of `n` slots (linear probing, wrapping at the end).
#[inline]
fn next(i: usize, n: usize) -> usize {
    if i + 1 == n { 0 } else { i + 1 }
}

impl StrIndex {
    /// How many strings are indexed.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether no string is indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn grow_to(&mut self, n: usize) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY_STR_SLOT; n]);
        for s in old.into_iter().filter(|s| s.sym != u32::MAX) {
            let mut i = home(s.hash, n);
            while self.slots[i].sym != u32::MAX {
                i = next(i, n);
            }
            self.slots[i] = s;
        }
    }
}

impl std::fmt::Debug for StrIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StrIndex({} strings)", self.len)
    }
}

impl Strings {
    /// The symbol of `s`, adding it if new.
    pub fn intern(&mut self, s: &str) -> Sym {
        self.intern_hashed(crate::fx::text_hash(s), s)
    }

    /// The symbol of `s` if it was interned.
    pub fn get(&self, s: &str) -> Option<Sym> {
        self.get_hashed(crate::fx::text_hash(s), s)
    }

    /// The text of `sym`.
    #[inline]
    pub fn resolve(&self, sym: Sym) -> &str {
        let (a, b) = self.spans[sym.0 as usize];
        &self.buf[a as usize..b as usize]
    }

    /// The slot of `s` (hash `h`): (index, found), or `None` if the index has no slots yet.
    #[inline]
    fn probe(&self, h: u64, s: &str) -> Option<(usize, bool)> {
        let slots = &self.map.slots;
        if slots.is_empty() {
            return None;
        }
        let n = slots.len();
        let word = slot_word(s.as_bytes());
        let short = s.len() < 8;
        let mut i = home(h as u32, n);
        loop {
            let slot = &slots[i];
            if slot.sym == u32::MAX {
                return Some((i, false));
            }
            if slot.hash == h as u32
                && slot.word == word
                && (short || self.resolve(Sym(slot.sym)) == s)
            {
                return Some((i, true));
            }
            i = next(i, n);
        }
    }

    /// [`Strings::get`] with the text's hash ([`crate::fx::text_hash`]) already computed.
    pub(crate) fn get_hashed(&self, h: u64, s: &str) -> Option<Sym> {
        match self.probe(h, s)? {
            (i, true) => Some(Sym(self.map.slots[i].sym)),
            _ => None,
        }
    }

    /// [`Strings::intern`] with the text's hash ([`crate::fx::text_hash`]) already computed.
    pub(crate) fn intern_hashed(&mut self, h: u64, s: &str) -> Sym {
        let i = match self.probe(h, s) {
            Some((i, true)) => return Sym(self.map.slots[i].sym),
            Some((i, false)) => i,
            None => {
                self.map.grow_to(1024);
                return self.intern_hashed(h, s);
            }
        };
        let start = self.buf.len() as u32;
        self.buf.push_str(s);
        let sym = Sym(self.spans.len() as u32);
        self.spans.push((start, self.buf.len() as u32));
        self.map.slots[i] = StrSlot {
            hash: h as u32,
            sym: sym.0,
            word: slot_word(s.as_bytes()),
        };
        self.map.len += 1;
        if self.map.len * 4 > self.map.slots.len() * 3 {
            let n = self.map.slots.len() * 2;
            self.map.grow_to(n);
        }
        sym
    }

    /// Reads the first probe slot of hash `h` (to bring it into cache ahead of use).
    #[inline]
    pub(crate) fn touch(&self, h: u64) -> u32 {
        let slots = &self.map.slots;
        match slots.len() {
            0 => 0,
            n => slots[home(h as u32, n)].sym,
        }
    }

    /// Grows the index now so that `extra` more strings fit without growing, and the text buffer
    /// and spans for them (at the average length so far), so that none of the three is copied
    /// while they are interned.
    pub(crate) fn reserve(&mut self, extra: usize) {
        let avg = match self.spans.len() {
            0 => 8,
            n => self.buf.len().div_ceil(n),
        };
        make_room(&mut self.spans, extra);
        // The fewest slots that hold them all within the growth check's load of 3/4, but at least
        // twice the current table when it grows (a reserve per small body must not rebuild it
        // for every body).
        let need = ((self.map.len + extra) * 4).div_ceil(3);
        if need > self.map.slots.len() {
            let n = need.max(2 * self.map.slots.len()).max(1024);
            self.map.grow_to(n);
        }
        let bytes = extra.saturating_mul(avg);
        if self.buf.capacity() - self.buf.len() < bytes {
            if self.buf.len() * 2 <= self.buf.capacity() {
                // As `make_room`: copy the text, not the spare capacity.
                let mut b = String::with_capacity(self.buf.len() + bytes);
                b.push_str(&self.buf);
                self.buf = b;
            } else {
                self.buf.reserve(bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The instruction record is most of the reader's memory beyond the source text (issue 13:
    /// peak memory at most 3x the file): 80 bytes, then 72 (`flags` in 16 bits, the syncscope as
    /// an [`OptSym`]), now 36 (ranges as starts, rare fields in side tables), blocks 24 → 12.
    #[test]
    fn inst_record_stays_small() {
        assert!(std::mem::size_of::<super::Inst>() <= 36);
        assert!(std::mem::size_of::<super::BlockData>() <= 12);
        assert_eq!(
            super::OptSym::some(super::Sym(7)).get(),
            Some(super::Sym(7))
        );
        assert_eq!(super::OptSym::NONE.get(), None);
    }

    /// What the compact records leave implicit reads back as written: operand ranges of calls
    /// with bundles (which end before the bundle operands), `aux2` of `load`, `getelementptr`,
    /// `alloca` and `atomicrmw`, syncscopes, alignment lists, metadata, and a span longer than
    /// 64 KiB (a `switch` of 6,000 cases) with its block's span.
    #[test]
    fn compact_records_read_back_what_was_written() {
        use super::*;
        use converge_graph::Block;
        let mut cases = String::new();
        for k in 0..6000 {
            cases.push_str(&format!("    i32 {k}, label %a\n"));
        }
        let text = format!(
            "declare token @llvm.experimental.convergence.entry()\n\
             declare void @g(i32) convergent\n\
             define void @f(ptr %p, i32 %x) convergent {{\n\
             e:\n  %t = call token @llvm.experimental.convergence.entry()\n\
             \x20 call void @g(i32 %x) [ \"convergencectrl\"(token %t) ]\n\
             \x20 %l = load i32, ptr %p, align 8, !range !0\n\
             \x20 %q = getelementptr inbounds [4 x i32], ptr %p, i64 0, i64 1\n\
             \x20 %al = alloca i64, align 16, addrspace(5)\n\
             \x20 %r = atomicrmw add ptr addrspace(3) null, i32 1 syncscope(\"agent\") monotonic, align 4\n\
             \x20 switch i32 %x, label %a [\n{cases}  ]\n\
             a:\n  ret void\n}}\n!0 = !{{i32 0, i32 9}}\n"
        );
        let m = crate::parse("t.ll", text.clone()).unwrap();
        let fid = m.function_by_name("f").unwrap();
        let f = m.func(fid);
        let i = |k: u32| InstId(k);
        assert_eq!(f.operands(i(1)), &[Value::Arg(1)]);
        assert_eq!(m.convergence_token(fid, i(1)), Some(Value::Inst(i(0))));
        assert_eq!(f.aux2(i(2)), f.inst(i(2)).ty.0);
        assert_eq!(f.aux_list(i(2)), &[8]);
        assert_eq!(m.str(f.inst_md(i(2))[0].0), "range");
        assert_eq!(f.aux2(i(3)), f.inst(i(3)).aux);
        assert!(matches!(m.types.get(TypeId(f.aux2(i(4)))), Type::Int(64)));
        assert_eq!(f.aux_list(i(4)), &[0, 16]);
        assert_eq!(f.aux2(i(5)), 3);
        assert_eq!(f.syncscope(i(5)).map(|s| m.str(s)), Some("agent"));
        assert_eq!(f.syncscope(i(4)), None);
        let sw = f.inst_span(i(6));
        assert!(sw.end - sw.start > 65_536);
        assert!(text[sw.start as usize..sw.end as usize].ends_with(']'));
        assert_eq!(f.operands(i(6)).len(), 6001);
        assert_eq!(f.inst_blocks(i(6)).len(), 6001);
        assert_eq!(f.block_span(Block(0)).end, sw.end);
        assert_eq!(f.block_range(Block(1)), Range32 { start: 7, end: 8 });
        let r = f.inst_span(i(7));
        assert_eq!(&text[r.start as usize..r.end as usize], "ret void");
    }
}
