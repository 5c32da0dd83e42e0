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

/// One instruction. Fixed size; variable parts are pool ranges.
#[derive(Clone, Debug)]
pub struct Inst {
    /// The opcode.
    pub op: Opcode,
    /// Result type (`void` for stores, void calls, terminators without a value, …).
    pub ty: TypeId,
    /// The result's name (`LocalName::None` for instructions without a result).
    pub name: LocalName,
    /// The block the instruction is in.
    pub block: Block,
    /// Operands into [`Function::operands`], in LLVM operand order, except that successor blocks of
    /// terminators and phi incoming blocks are in `blocks` instead:
    /// - `br i1 %c, ...`: `[%c]`; `switch`: `[cond, case values...]`; `indirectbr`: `[address]`;
    /// - `phi`: incoming values, parallel to `blocks`;
    /// - calls (`call`/`invoke`/`callbr`): the arguments only (callee and bundles are in [`CallInfo`]);
    /// - `store`: `[value, pointer]`; `load`: `[pointer]`; `getelementptr`: `[base, indices...]`;
    /// - `extractvalue`/`insertvalue`: the aggregate (and inserted value); indices are in `aux_list`.
    ///
    /// The reader's layout for the other opcodes: `cmpxchg`: `[pointer, compare, new]`; `atomicrmw`:
    /// `[pointer, value]`; `shufflevector`: `[v1, v2, mask]`; `alloca`: `[count]` if a count is
    /// written; `select`: `[cond, a, b]`; casts, `fneg`, `freeze`, `va_arg`: `[value]`;
    /// `cleanupret`/`catchret`: `[pad]`; `catchswitch`: `[parent]` (`none` is a `NoneToken`
    /// constant); `catchpad`/`cleanuppad`: `[parent, args...]`; `landingpad`: the clause values.
    pub operands: Range32,
    /// Block references into [`Function::block_refs`]: successors of a terminator in operand order
    /// (duplicates kept; `switch`: default first; `invoke`: normal, unwind; `callbr`: default, then
    /// indirect), or a phi's incoming blocks. `catchswitch`: the unwind destination (if any) first,
    /// then the handlers, as LLVM's `getSuccessor` numbers them; `cleanupret`: its unwind block, if
    /// any; `catchret`: its target.
    pub blocks: Range32,
    /// Integer side data into [`Function::aux`]: `extractvalue`/`insertvalue` indices, `shufflevector`
    /// mask, `alloca` count/alignment, `landingpad` clause kinds.
    ///
    /// The reader's layout: `extractvalue`/`insertvalue`: the indices; `shufflevector`: the mask
    /// (`u64::MAX` for undef/poison lanes); `alloca`: `[has_count (0/1), align (0 = none)]`;
    /// `load`/`store`/`atomicrmw`: `[align]` when an alignment is written; `cmpxchg`: `[failure
    /// ordering (Ordering as u64), align?]`; `landingpad`: clause kinds (0 = catch, 1 = filter),
    /// parallel to the operands.
    pub aux_list: Range32,
    /// Set of [`flags`] (16 bits: with `op` and `ordering` they fill one word of the record).
    pub flags: u16,
    /// Opcode-specific small datum: the `icmp`/`fcmp` predicate ([`IPred`]/[`FPred`] as u8); the
    /// `atomicrmw` operation ([`RmwOp`] as u8); the pointer address space of `load`, `store`,
    /// `atomicrmw`, `cmpxchg` and `alloca`; the index into [`Function::calls`] for call-likes; the
    /// source element type for `getelementptr` and `alloca` (a `TypeId`).
    ///
    /// Where these overlap the reader uses: `atomicrmw`: the operation (its address space is in
    /// `aux2`); `alloca`: the address space (its allocated type is in `aux2`); `getelementptr`: the
    /// source element type; `landingpad`: 1 if it has `cleanup`.
    pub aux: u32,
    /// Second opcode-specific datum: the element type of `getelementptr` and `alloca`, the loaded type
    /// of `load`; the pointer address space of `atomicrmw` (reader convention, see `aux`).
    pub aux2: u32,
    /// Atomic ordering (`NotAtomic` for non-atomic instructions); `cmpxchg`'s success ordering.
    pub ordering: Ordering,
    /// Syncscope, if any (`syncscope("agent")`).
    pub syncscope: OptSym,
    /// Metadata attachments (`!dbg !3`, …) into [`Function::md_attachments`].
    pub md: Range32,
    /// Where the instruction is in the source.
    pub span: Span,
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

/// A basic block: a name and a contiguous range of instructions ending in a terminator.
#[derive(Copy, Clone, Debug)]
pub struct BlockData {
    /// The label (`LocalName::Slot` for an unnamed block, numbered as LLVM numbers it).
    pub name: LocalName,
    /// Instructions of the block, a contiguous range of [`Function::insts`]; the last is the
    /// terminator.
    pub insts: Range32,
    /// Where the block is in the source.
    pub span: Span,
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
/// instructions, operands and side tables are flat pools; [`Inst`] addresses them by range.
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
    /// Operand pool ([`Inst::operands`], [`Bundle::operands`]).
    pub operands: Vec<Value>,
    /// Block-reference pool ([`Inst::blocks`]: successors and phi incoming blocks).
    pub block_refs: Vec<Block>,
    /// Integer side-data pool ([`Inst::aux_list`]).
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
    pub source: String,
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

/// The interner's index from text to symbol: open addressing over 32-byte slots that hold the
/// text's 64-bit hash, the symbol, the length and (for texts of up to 16 bytes) the text itself,
/// so a lookup is confirmed within one cache line; longer texts are confirmed against the buffer.
/// No allocation per string (a `HashMap<Box<str>, Sym>` allocated a key per string, and the reader
/// interns hundreds of thousands of names in large functions).
#[derive(Clone, Default)]
pub struct StrIndex {
    slots: Vec<StrSlot>,
    len: usize,
}

#[derive(Copy, Clone)]
struct StrSlot {
    hash: u64,
    /// `u32::MAX` marks an empty slot.
    sym: u32,
    len: u32,
    /// The text as two zero-padded little-endian words (texts of up to 16 bytes).
    inline: [u64; 2],
}

const EMPTY_STR_SLOT: StrSlot = StrSlot {
    hash: 0,
    sym: u32::MAX,
    len: 0,
    inline: [0; 2],
};

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
        let mask = n - 1;
        for s in old.into_iter().filter(|s| s.sym != u32::MAX) {
            let mut i = s.hash as usize & mask;
            while self.slots[i].sym != u32::MAX {
                i = (i + 1) & mask;
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
        let mask = slots.len() - 1;
        let words = (s.len() <= 16).then(|| crate::fx::text_words(s.as_bytes()));
        let mut i = h as usize & mask;
        loop {
            let slot = &slots[i];
            if slot.sym == u32::MAX {
                return Some((i, false));
            }
            if slot.hash == h && slot.len as usize == s.len() {
                let same = match words {
                    Some(w) => slot.inline == w,
                    None => self.resolve(Sym(slot.sym)) == s,
                };
                if same {
                    return Some((i, true));
                }
            }
            i = (i + 1) & mask;
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
        // Built from words, not by copying bytes into the slot: the slot is then copied into the
        // table with wide loads, which would stall on fresh byte stores.
        self.map.slots[i] = StrSlot {
            hash: h,
            sym: sym.0,
            len: s.len() as u32,
            inline: if s.len() <= 16 {
                crate::fx::text_words(s.as_bytes())
            } else {
                [0; 2]
            },
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
            n => slots[h as usize & (n - 1)].sym,
        }
    }

    /// Grows the index now so that `extra` more strings fit without growing.
    pub(crate) fn reserve(&mut self, extra: usize) {
        let mut n = self.map.slots.len().max(1024);
        while (self.map.len + extra) * 4 > n * 3 {
            n *= 2;
        }
        if n != self.map.slots.len() {
            self.map.grow_to(n);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The instruction record is most of the reader's memory beyond the source text (issue 13:
    /// peak memory at most 3x the file); `flags` in 16 bits and the syncscope as an [`OptSym`]
    /// took it from 80 to 72 bytes.
    #[test]
    fn inst_record_stays_small() {
        assert!(std::mem::size_of::<super::Inst>() <= 72);
        assert_eq!(
            super::OptSym::some(super::Sym(7)).get(),
            Some(super::Sym(7))
        );
        assert_eq!(super::OptSym::NONE.get(), None);
    }
}
