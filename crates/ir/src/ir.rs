//! The IR data model. Entity indices are `u32`; variable-length parts (operands, block references,
//! attributes, bundles) live in per-function or per-module pools and are referenced by [`Range32`].

use converge_graph::Block;

/// A byte range into the module's source text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

/// A half-open index range into one of the pools.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Range32 {
    pub start: u32,
    pub end: u32,
}

impl Range32 {
    #[inline]
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
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

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MdId(pub u32);
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
    Global(GlobalId),
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
    #[default]
    None,
    Named(Sym),
    /// The slot number LLVM gives an unnamed value or block (`%7`, `7:`).
    Slot(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Int(u32),
    Half,
    BFloat,
    Float,
    Double,
    X86Fp80,
    Fp128,
    PpcFp128,
    X86Amx,
    Ptr(u32),
    Label,
    Token,
    Metadata,
    Vector {
        len: u32,
        scalable: bool,
        elem: TypeId,
    },
    Array {
        len: u64,
        elem: TypeId,
    },
    /// A literal struct; `fields` indexes [`Types::lists`].
    Struct {
        fields: Range32,
        packed: bool,
    },
    /// A named (identified) struct `%T`; its body, if any, is in [`Types::named`].
    Named(u32),
    Func {
        ret: TypeId,
        params: Range32,
        vararg: bool,
    },
    /// `target("name", types..., ints...)`.
    TargetExt(Sym),
}

/// The type arena of a module. Types are hash-consed: equal types have equal ids.
#[derive(Clone, Debug, Default)]
pub struct Types {
    pub types: Vec<Type>,
    /// Element-type lists of structs and function types.
    pub lists: Vec<TypeId>,
    /// Named struct types: name and body (`None` for opaque).
    pub named: Vec<(Sym, Option<TypeId>)>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    // Terminators.
    Ret,
    Br,
    Switch,
    IndirectBr,
    Invoke,
    Resume,
    Unreachable,
    CleanupRet,
    CatchRet,
    CatchSwitch,
    CallBr,
    // Unary and binary.
    FNeg,
    Add,
    FAdd,
    Sub,
    FSub,
    Mul,
    FMul,
    UDiv,
    SDiv,
    FDiv,
    URem,
    SRem,
    FRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    // Vector and aggregate.
    ExtractElement,
    InsertElement,
    ShuffleVector,
    ExtractValue,
    InsertValue,
    // Memory.
    Alloca,
    Load,
    Store,
    Fence,
    CmpXchg,
    AtomicRmw,
    GetElementPtr,
    // Casts.
    Trunc,
    ZExt,
    SExt,
    FpTrunc,
    FpExt,
    FpToUi,
    FpToSi,
    UiToFp,
    SiToFp,
    PtrToInt,
    PtrToAddr,
    IntToPtr,
    BitCast,
    AddrSpaceCast,
    // Other.
    ICmp,
    FCmp,
    Phi,
    Select,
    Freeze,
    Call,
    VaArg,
    LandingPad,
    CatchPad,
    CleanupPad,
}

impl Opcode {
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
    #[default]
    NotAtomic,
    Unordered,
    Monotonic,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// Instruction flags (bit set in [`Inst::flags`]).
pub mod flags {
    pub const NUW: u16 = 1 << 0;
    pub const NSW: u16 = 1 << 1;
    pub const EXACT: u16 = 1 << 2;
    pub const DISJOINT: u16 = 1 << 3;
    pub const VOLATILE: u16 = 1 << 4;
    pub const INBOUNDS: u16 = 1 << 5;
    pub const SAMESIGN: u16 = 1 << 6;
    pub const NNEG: u16 = 1 << 7;
    pub const WEAK: u16 = 1 << 8;
    pub const TAIL: u16 = 1 << 9;
    pub const MUSTTAIL: u16 = 1 << 10;
    pub const NOTAIL: u16 = 1 << 11;
    /// Any fast-math flag is present.
    pub const FAST_MATH: u16 = 1 << 12;
}

/// One instruction. Fixed size; variable parts are pool ranges.
#[derive(Clone, Debug)]
pub struct Inst {
    pub op: Opcode,
    /// Result type (`void` for stores, void calls, terminators without a value, …).
    pub ty: TypeId,
    pub name: LocalName,
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
    pub ordering: Ordering,
    /// Syncscope, if any (`syncscope("agent")`).
    pub syncscope: OptSym,
    /// Metadata attachments (`!dbg !3`, …) into [`Function::md_attachments`].
    pub md: Range32,
    pub span: Span,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum IPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    Uno,
    True,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    FMax,
    FMin,
    FMaximum,
    FMinimum,
    UIncWrap,
    UDecWrap,
    USubCond,
    USubSat,
}

/// Call-site data for `call`, `invoke`, `callbr`.
#[derive(Clone, Debug)]
pub struct CallInfo {
    /// `Value::Func` for direct calls, `Value::Asm` for inline asm, anything else for indirect calls.
    pub callee: Value,
    /// The function type at the call site.
    pub fn_ty: TypeId,
    pub cc: CallConv,
    /// Call-site function attributes (inline and from `#N` groups), into [`Module::attrs`].
    pub fn_attrs: Range32,
    /// Per-argument attributes: one `Range32` into [`Module::attrs`] per argument, into
    /// [`Function::arg_attr_lists`].
    pub arg_attrs: Range32,
    /// Operand bundles into [`Function::bundles`].
    pub bundles: Range32,
}

#[derive(Clone, Debug)]
pub struct Bundle {
    pub tag: Sym,
    /// Into [`Function::operands`].
    pub operands: Range32,
}

/// An attribute: `convergent`, `align 4`, `"amdgpu-flat-work-group-size"="1,256"`, `byval(i32)`, …
/// `value` holds the textual argument if any (`4`, `1,256`, the type text of `byval(...)`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attr {
    pub key: Sym,
    pub value: Option<Sym>,
}

/// Calling convention, kept as LLVM spells it (`amdgpu_kernel`, `ptx_kernel`, `cc 91`, …).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum CallConv {
    #[default]
    C,
    /// Any other convention, by its keyword (or `cc N` text).
    Named(Sym),
}

#[derive(Copy, Clone, Debug)]
pub struct BlockData {
    pub name: LocalName,
    /// Instructions of the block, a contiguous range of [`Function::insts`]; the last is the
    /// terminator.
    pub insts: Range32,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub ty: TypeId,
    pub name: LocalName,
    /// Into [`Module::attrs`].
    pub attrs: Range32,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Function {
    /// Raw name (no `@`, no quotes).
    pub name: Sym,
    pub ret_ty: TypeId,
    pub params: Vec<Param>,
    pub vararg: bool,
    pub cc: CallConv,
    pub linkage: Option<Sym>,
    /// Function attributes, inline and from `#N` groups, into [`Module::attrs`].
    pub attrs: Range32,
    /// Function metadata attachments (`!reqd_work_group_size !0`), into `md_attachments`.
    pub md: Range32,
    pub is_declaration: bool,
    pub blocks: Vec<BlockData>,
    pub insts: Vec<Inst>,
    pub operands: Vec<Value>,
    pub block_refs: Vec<Block>,
    pub aux: Vec<u64>,
    pub calls: Vec<CallInfo>,
    pub bundles: Vec<Bundle>,
    pub arg_attr_lists: Vec<Range32>,
    /// (kind, node) pairs.
    pub md_attachments: Vec<(Sym, MdId)>,
    pub span: Span,
    /// Added by the reader: return-value attributes, into [`Module::attrs`].
    pub ret_attrs: Range32,
}

#[derive(Clone, Debug)]
pub struct Global {
    pub name: Sym,
    pub ty: TypeId,
    pub addrspace: u32,
    pub is_constant: bool,
    /// The initializer; for an alias or ifunc, the aliasee/resolver.
    pub init: Option<ConstId>,
    pub span: Span,
    /// Added by the reader: variable, alias or ifunc.
    pub kind: GlobalKind,
    /// Added by the reader: `internal`, `private`, … (`None` = external).
    pub linkage: Option<Sym>,
}

/// What a [`Global`] entry is (`@g = global …`, `@a = alias …`, `@i = ifunc …`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum GlobalKind {
    #[default]
    Variable,
    Alias,
    IFunc,
}

/// Constants are module-wide. The reader shares simple scalar constants (integers, `null`, `undef`,
/// `poison`, `zeroinitializer`, globals) of the same type; compare constants by content, not id.
#[derive(Clone, Debug)]
pub struct Const {
    pub ty: TypeId,
    pub kind: ConstKind,
}

#[derive(Clone, Debug)]
pub enum ConstKind {
    /// Integer of up to 128 bits (wider integers keep the low 128 bits; `wide` is set).
    Int {
        value: u128,
        wide: bool,
    },
    /// IEEE bits of `half`/`bfloat`/`float`/`double` (other float types: low 64 bits, raw).
    Float(u64),
    Null,
    Undef,
    Poison,
    Zero,
    /// `none` of type token.
    NoneToken,
    /// Struct, array or vector literal; elements into [`Module::const_lists`].
    Aggregate(Range32),
    /// `c"..."` bytes, into [`Module::bytes`].
    Bytes(Range32),
    Global(GlobalId),
    Func(FuncId),
    /// `blockaddress(@f, %b)`.
    BlockAddress(FuncId, Block),
    /// A constant expression: opcode, operands into `const_lists`, flags, predicate/aux.
    Expr {
        op: Opcode,
        operands: Range32,
        aux: u32,
        flags: u16,
    },
    /// Anything else kept opaque (`dso_local_equivalent`, `no_cfi`, `ptrauth`, …).
    Other,
}

#[derive(Clone, Debug)]
pub struct InlineAsm {
    pub asm: Sym,
    pub constraints: Sym,
    pub side_effect: bool,
}

/// A metadata node or operand, kept opaque beyond what the analyses read.
#[derive(Clone, Debug)]
pub enum Metadata {
    /// `!{...}` / `distinct !{...}`; operands into [`Module::md_lists`].
    Tuple(Range32),
    /// `!DILocation(...)` and other specialised nodes.
    Special(Sym),
    String(Sym),
    /// A value wrapped as metadata (`i32 1`, `ptr @f`). Function-local values keep their function.
    Value(Option<FuncId>, Value),
    /// A reference to a numbered node `!7`, resolved to its definition's id.
    Node(MdId),
    Null,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The file name used in diagnostics.
    pub source_name: String,
    /// The whole source text; spans index into it.
    pub source: String,
    pub triple: Option<String>,
    pub datalayout: Option<String>,
    pub strings: Strings,
    pub types: Types,
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
    pub consts: Vec<Const>,
    pub const_lists: Vec<ConstId>,
    pub bytes: Vec<u8>,
    pub asms: Vec<InlineAsm>,
    pub attrs: Vec<Attr>,
    /// Numbered metadata `!N` by number (index = id); also holds anonymous inline nodes.
    pub metadata: Vec<Metadata>,
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
    pub buf: String,
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
    pub fn intern(&mut self, s: &str) -> Sym {
        self.intern_hashed(crate::fx::text_hash(s), s)
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.get_hashed(crate::fx::text_hash(s), s)
    }

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
