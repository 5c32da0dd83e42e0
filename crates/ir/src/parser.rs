//! Recursive-descent reader for LLVM textual IR (the grammar of LLVM's `LLParser`, LLVM 19-22).
//!
//! One pass over the token stream. Names are interned once; function-local names live in maps that
//! are cleared and reused per function. Forward references are recorded as fix-ups (pool index plus
//! name) and patched when the function body ends; references to globals and metadata defined later in
//! the module use provisional ids (high bit set) that one final pass rewrites. Nesting (types,
//! constants, metadata) is bounded by [`MAX_DEPTH`] so hostile input cannot overflow the stack.

use crate::fx::FxHashMap;
use crate::lexer::{Lexer, Tok, Token, unescape_into};
use crate::*;
use converge_graph::Block;

mod inst;
mod locals;
mod parallel;
pub(crate) use parallel::MERGED;

/// Reads a module: on two threads when `parallel` is set (by default for large sources, see
/// [`parallel::worth_it`]), with the same result and the same first error either way.
pub(crate) fn parse_source(
    source_name: &str,
    src: &str,
    parallel: Option<bool>,
) -> PResult<Module> {
    let m = if parallel.unwrap_or_else(|| parallel::worth_it(src)) {
        parallel::parse_parallel(source_name, src)
    } else {
        Parser::new(source_name, src).parse_module()
    }?;
    crate::check::intrinsic_call_signatures(&m)?;
    crate::wellformed::check_module(&m)?;
    Ok(m)
}

/// Deepest nesting of types, constants and metadata accepted.
const MAX_DEPTH: u32 = 200;
/// `splat` constants and shuffle masks of longer vectors keep only this many elements (bounds the
/// memory hostile input can claim; real GPU vectors are far shorter).
const MAX_SPLAT: u32 = 4096;
/// Provisional ids (globals not yet defined, inline metadata) carry this bit until the final pass.
const HIGH: u32 = 1 << 31;
/// Placeholder operand before a forward reference is patched.
const PENDING: Value = Value::Arg(u32::MAX);

/// Errors are boxed: a `Result` the size of two words keeps the hot paths from moving a whole
/// `Diagnostic` through every return.
type PResult<T> = Result<T, Box<Diagnostic>>;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum LocalKey<'s> {
    Name(Sym),
    /// A function-local name by its source text (plain or quoted without escapes): locals are
    /// looked up without touching the module-wide interner.
    Src(&'s str),
    Num(u32),
}

/// One mixing step per key (the derived `Hash` would also hash the discriminant and a terminator).
impl std::hash::Hash for LocalKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            LocalKey::Src(s) => state.write(s.as_bytes()),
            LocalKey::Name(s) => state.write_u64(0x5a00_0000_0000_0000 | s.0 as u64),
            LocalKey::Num(n) => state.write_u64(0xa500_0000_0000_0000 | *n as u64),
        }
    }
}

#[derive(Copy, Clone, Debug)]
enum Local {
    Arg(u32),
    Inst(u32),
    Block(u32),
}

#[derive(Copy, Clone, Debug)]
enum FixTarget {
    Operand(u32),
    BlockRef(u32),
    Callee(u32),
    /// A provisional inline metadata id holding `Metadata::Value(Some(f), _)`.
    Meta(u32),
}

#[derive(Copy, Clone, Debug)]
struct Fixup<'s> {
    key: LocalKey<'s>,
    target: FixTarget,
    span: Span,
}

/// A parsed operand: resolved, or a forward reference to a local name.
#[derive(Copy, Clone, Debug)]
enum Val<'s> {
    Ready(Value),
    Fwd(LocalKey<'s>, Span),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum GDef {
    None,
    Global(u32),
    Func(u32),
}

#[derive(Copy, Clone, Debug)]
struct GSym<'s> {
    def: GDef,
    key: LocalKey<'s>,
    /// The function type of the first direct call, for implicitly declared intrinsics.
    call_ty: Option<TypeId>,
    first_use: Span,
    /// A shared `ConstKind::Global` constant for this symbol, or `u32::MAX`.
    konst: u32,
}

#[derive(Copy, Clone, Debug)]
enum AttrTarget {
    Function(u32),
    Call(u32, u32),
}

#[derive(Copy, Clone, Debug)]
struct DeferredAttrs {
    target: AttrTarget,
    inline: Range32,
    groups: Range32,
}

pub(crate) struct Parser<'s> {
    src: &'s str,
    b: &'s [u8],
    /// Types written as one word (`i32`, `float`), keyed by the word.
    word_types: FxHashMap<&'s [u8], TypeId>,
    /// Words that end an attribute list (values, types, instruction opcodes, keywords).
    not_attr: FxHashMap<&'static [u8], ()>,
    lex: Lexer<'s>,
    tok: Token,
    prev_end: u32,
    depth: u32,
    m: Module,
    // Types.
    type_map: FxHashMap<u64, TypeId>,
    named_types: FxHashMap<LocalKey<'s>, u32>,
    named_type_use: Vec<Span>,
    ty_void: TypeId,
    ty_ptr: TypeId,
    ty_i1: TypeId,
    /// `ptr addrspace(N)` for small N.
    ptr_types: [Option<TypeId>; 16],
    ty_i32: TypeId,
    ty_i64: TypeId,
    ty_float: TypeId,
    ty_label: TypeId,
    ty_token: TypeId,
    ty_meta: TypeId,
    // Globals and functions.
    gnames: FxHashMap<LocalKey<'s>, u32>,
    gsyms: Vec<GSym<'s>>,
    // Metadata.
    md_state: Vec<u8>,
    md_first_use: FxHashMap<u32, Span>,
    inline_md: Vec<Metadata>,
    md_scratch: Vec<MdId>,
    // Attributes.
    groups: FxHashMap<u32, Range32>,
    deferred: Vec<DeferredAttrs>,
    group_refs: Vec<(u32, Span)>,
    // Constants.
    int_consts: FxHashMap<(TypeId, u128), ConstId>,
    simple_consts: FxHashMap<(TypeId, u8), ConstId>,
    const_scratch: Vec<ConstId>,
    type_scratch: Vec<TypeId>,
    blockaddrs: Vec<(ConstId, u32, LocalKey<'s>, Span)>,
    str_buf: Vec<u8>,
    remap: bool,
    /// `external` was written in the last linkage prefix.
    saw_external: bool,
    // The function being read.
    locals: locals::LocalMap<'s>,
    fixups: Vec<Fixup<'s>>,
    /// Named instructions of the body whose names are not interned yet.
    pending_names: Vec<(u32, &'s str)>,
    next_src_num: u32,
    next_slot: u32,
    cur_func: u32,
    /// Pool lengths of the last function body (see `parse_body`).
    pool_sizes: [usize; 9],
}

/// Reserves room in `f`'s pools for twice the given lengths.
fn reserve_pools(f: &mut Function, n: &[usize; 9]) {
    let r = |k: usize| 2 * n[k] + 8;
    f.blocks.reserve(r(0));
    f.insts.reserve(r(1));
    f.operands.reserve(r(2));
    f.block_refs.reserve(r(3));
    f.aux.reserve(r(4));
    f.calls.reserve(r(5));
    f.bundles.reserve(r(6));
    f.arg_attr_lists.reserve(r(7));
    f.md_attachments.reserve(r(8));
}

/// Shrinks `f`'s pools to their lengths (in place: the allocator keeps the block and frees the
/// tail) and returns the lengths.
fn shrink_pools(f: &mut Function) -> [usize; 9] {
    f.blocks.shrink_to_fit();
    f.insts.shrink_to_fit();
    f.operands.shrink_to_fit();
    f.block_refs.shrink_to_fit();
    f.aux.shrink_to_fit();
    f.calls.shrink_to_fit();
    f.bundles.shrink_to_fit();
    f.arg_attr_lists.shrink_to_fit();
    f.md_attachments.shrink_to_fit();
    [
        f.blocks.len(),
        f.insts.len(),
        f.operands.len(),
        f.block_refs.len(),
        f.aux.len(),
        f.calls.len(),
        f.bundles.len(),
        f.arg_attr_lists.len(),
        f.md_attachments.len(),
    ]
}

fn empty_function(name: Sym, void: TypeId) -> Function {
    Function {
        name,
        ret_ty: void,
        params: Vec::new(),
        vararg: false,
        cc: CallConv::C,
        linkage: None,
        attrs: Range32::default(),
        md: Range32::default(),
        is_declaration: true,
        blocks: Vec::new(),
        insts: Vec::new(),
        operands: Vec::new(),
        block_refs: Vec::new(),
        aux: Vec::new(),
        calls: Vec::new(),
        bundles: Vec::new(),
        arg_attr_lists: Vec::new(),
        md_attachments: Vec::new(),
        span: Span::default(),
        ret_attrs: Range32::default(),
    }
}

const LINKAGES: &[&str] = &[
    "private",
    "internal",
    "available_externally",
    "linkonce",
    "weak",
    "common",
    "appending",
    "extern_weak",
    "linkonce_odr",
    "weak_odr",
    "external",
];

const CALL_CONVS: &[&str] = &[
    "fastcc",
    "coldcc",
    "cc",
    "webkit_jscc",
    "anyregcc",
    "preserve_mostcc",
    "preserve_allcc",
    "preserve_nonecc",
    "ghccc",
    "swiftcc",
    "swifttailcc",
    "x86_stdcallcc",
    "x86_fastcallcc",
    "x86_thiscallcc",
    "x86_vectorcallcc",
    "x86_regcallcc",
    "x86_intrcc",
    "x86_64_sysvcc",
    "win64cc",
    "arm_apcscc",
    "arm_aapcscc",
    "arm_aapcs_vfpcc",
    "aarch64_vector_pcs",
    "aarch64_sve_vector_pcs",
    "aarch64_sme_preservemost_from_x0",
    "aarch64_sme_preservemost_from_x1",
    "aarch64_sme_preservemost_from_x2",
    "msp430_intrcc",
    "avr_intrcc",
    "avr_signalcc",
    "ptx_kernel",
    "ptx_device",
    "spir_func",
    "spir_kernel",
    "intel_ocl_bicc",
    "hhvmcc",
    "hhvm_ccc",
    "cxx_fast_tlscc",
    "amdgpu_vs",
    "amdgpu_ls",
    "amdgpu_hs",
    "amdgpu_es",
    "amdgpu_gs",
    "amdgpu_ps",
    "amdgpu_cs",
    "amdgpu_cs_chain",
    "amdgpu_cs_chain_preserve",
    "amdgpu_kernel",
    "amdgpu_gfx",
    "amdgpu_gfx_whole_wave",
    "tailcc",
    "m68k_rtdcc",
    "graalcc",
    "riscv_vector_cc",
    "riscv_vls_cc",
    "cfguard_checkcc",
    "m68k_intrcc",
    "x86_amx_tilecc",
];

/// Words that begin a value rather than an attribute.
const VALUE_WORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "undef",
    "poison",
    "zeroinitializer",
    "none",
    "c",
    "asm",
    "blockaddress",
    "dso_local_equivalent",
    "no_cfi",
    "ptrauth",
    "splat",
    "getelementptr",
    "bitcast",
    "addrspacecast",
    "inttoptr",
    "ptrtoint",
    "ptrtoaddr",
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "add",
    "sub",
    "mul",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "xor",
    "udiv",
    "sdiv",
    "urem",
    "srem",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frem",
    "fneg",
    "icmp",
    "fcmp",
    "select",
    "extractelement",
    "insertelement",
    "shufflevector",
    "extractvalue",
    "insertvalue",
];

/// Words that end an attribute list (they start the next part of the syntax).
const NOT_ATTRS: &[&str] = &[
    "to",
    "unwind",
    "section",
    "partition",
    "comdat",
    "gc",
    "prefix",
    "prologue",
    "personality",
    "define",
    "declare",
    "attributes",
    "target",
    "source_filename",
    "module",
    "uselistorder",
    "uselistorder_bb",
    "unnamed_addr",
    "local_unnamed_addr",
    "addrspace",
    "within",
    "from",
    "ret",
    "br",
    "switch",
    "indirectbr",
    "invoke",
    "resume",
    "unreachable",
    "cleanupret",
    "catchret",
    "catchswitch",
    "callbr",
    "alloca",
    "load",
    "store",
    "fence",
    "cmpxchg",
    "atomicrmw",
    "phi",
    "call",
    "tail",
    "musttail",
    "notail",
    "va_arg",
    "landingpad",
    "catchpad",
    "cleanuppad",
    "freeze",
];

fn is_type_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"void"
            | b"half"
            | b"bfloat"
            | b"float"
            | b"double"
            | b"x86_fp80"
            | b"fp128"
            | b"ppc_fp128"
            | b"x86_amx"
            | b"x86_mmx"
            | b"ptr"
            | b"label"
            | b"token"
            | b"metadata"
            | b"target"
            | b"opaque"
    ) || (w.len() > 1 && w[0] == b'i' && w[1..].iter().all(u8::is_ascii_digit))
}

fn cast_op(w: &[u8]) -> Option<Opcode> {
    Some(match w {
        b"trunc" => Opcode::Trunc,
        b"zext" => Opcode::ZExt,
        b"sext" => Opcode::SExt,
        b"fptrunc" => Opcode::FpTrunc,
        b"fpext" => Opcode::FpExt,
        b"fptoui" => Opcode::FpToUi,
        b"fptosi" => Opcode::FpToSi,
        b"uitofp" => Opcode::UiToFp,
        b"sitofp" => Opcode::SiToFp,
        b"ptrtoint" => Opcode::PtrToInt,
        b"ptrtoaddr" => Opcode::PtrToAddr,
        b"inttoptr" => Opcode::IntToPtr,
        b"bitcast" => Opcode::BitCast,
        b"addrspacecast" => Opcode::AddrSpaceCast,
        _ => return None,
    })
}

fn bin_op(w: &[u8]) -> Option<Opcode> {
    Some(match w {
        b"add" => Opcode::Add,
        b"fadd" => Opcode::FAdd,
        b"sub" => Opcode::Sub,
        b"fsub" => Opcode::FSub,
        b"mul" => Opcode::Mul,
        b"fmul" => Opcode::FMul,
        b"udiv" => Opcode::UDiv,
        b"sdiv" => Opcode::SDiv,
        b"fdiv" => Opcode::FDiv,
        b"urem" => Opcode::URem,
        b"srem" => Opcode::SRem,
        b"frem" => Opcode::FRem,
        b"shl" => Opcode::Shl,
        b"lshr" => Opcode::LShr,
        b"ashr" => Opcode::AShr,
        b"and" => Opcode::And,
        b"or" => Opcode::Or,
        b"xor" => Opcode::Xor,
        _ => return None,
    })
}

fn ipred(w: &[u8]) -> Option<IPred> {
    Some(match w {
        b"eq" => IPred::Eq,
        b"ne" => IPred::Ne,
        b"ugt" => IPred::Ugt,
        b"uge" => IPred::Uge,
        b"ult" => IPred::Ult,
        b"ule" => IPred::Ule,
        b"sgt" => IPred::Sgt,
        b"sge" => IPred::Sge,
        b"slt" => IPred::Slt,
        b"sle" => IPred::Sle,
        _ => return None,
    })
}

fn fpred(w: &[u8]) -> Option<FPred> {
    Some(match w {
        b"false" => FPred::False,
        b"oeq" => FPred::Oeq,
        b"ogt" => FPred::Ogt,
        b"oge" => FPred::Oge,
        b"olt" => FPred::Olt,
        b"ole" => FPred::Ole,
        b"one" => FPred::One,
        b"ord" => FPred::Ord,
        b"ueq" => FPred::Ueq,
        b"ugt" => FPred::Ugt,
        b"uge" => FPred::Uge,
        b"ult" => FPred::Ult,
        b"ule" => FPred::Ule,
        b"une" => FPred::Une,
        b"uno" => FPred::Uno,
        b"true" => FPred::True,
        _ => return None,
    })
}

fn rmw_op(w: &[u8]) -> Option<RmwOp> {
    Some(match w {
        b"xchg" => RmwOp::Xchg,
        b"add" => RmwOp::Add,
        b"sub" => RmwOp::Sub,
        b"and" => RmwOp::And,
        b"nand" => RmwOp::Nand,
        b"or" => RmwOp::Or,
        b"xor" => RmwOp::Xor,
        b"max" => RmwOp::Max,
        b"min" => RmwOp::Min,
        b"umax" => RmwOp::UMax,
        b"umin" => RmwOp::UMin,
        b"fadd" => RmwOp::FAdd,
        b"fsub" => RmwOp::FSub,
        b"fmax" => RmwOp::FMax,
        b"fmin" => RmwOp::FMin,
        b"fmaximum" => RmwOp::FMaximum,
        b"fminimum" => RmwOp::FMinimum,
        b"uinc_wrap" => RmwOp::UIncWrap,
        b"udec_wrap" => RmwOp::UDecWrap,
        b"usub_cond" => RmwOp::USubCond,
        b"usub_sat" => RmwOp::USubSat,
        _ => return None,
    })
}

fn ordering(w: &[u8]) -> Option<Ordering> {
    Some(match w {
        b"unordered" => Ordering::Unordered,
        b"monotonic" => Ordering::Monotonic,
        b"acquire" => Ordering::Acquire,
        b"release" => Ordering::Release,
        b"acq_rel" => Ordering::AcqRel,
        b"seq_cst" => Ordering::SeqCst,
        _ => return None,
    })
}

fn is_fmf(w: &[u8]) -> bool {
    matches!(
        w,
        b"fast" | b"nnan" | b"ninf" | b"nsz" | b"arcp" | b"contract" | b"afn" | b"reassoc"
    )
}

impl<'s> Parser<'s> {
    pub fn new(source_name: &str, src: &'s str) -> Self {
        let b = src.as_bytes();
        let mut lex = Lexer::new(b);
        let tok = lex.next();
        let m = Module {
            source_name: source_name.to_string(),
            ..Module::default()
        };
        let mut not_attr = FxHashMap::default();
        for w in VALUE_WORDS.iter().chain(NOT_ATTRS) {
            not_attr.insert(w.as_bytes(), ());
        }
        let mut p = Parser {
            src,
            b,
            word_types: FxHashMap::default(),
            not_attr,
            lex,
            tok,
            prev_end: 0,
            depth: 0,
            m,
            type_map: FxHashMap::default(),
            named_types: FxHashMap::default(),
            named_type_use: Vec::new(),
            ty_void: TypeId(0),
            ty_ptr: TypeId(0),
            ty_i1: TypeId(0),
            ptr_types: [None; 16],
            ty_i32: TypeId(0),
            ty_i64: TypeId(0),
            ty_float: TypeId(0),
            ty_label: TypeId(0),
            ty_token: TypeId(0),
            ty_meta: TypeId(0),
            gnames: FxHashMap::default(),
            gsyms: Vec::new(),
            md_state: Vec::new(),
            md_first_use: FxHashMap::default(),
            inline_md: Vec::new(),
            md_scratch: Vec::new(),
            groups: FxHashMap::default(),
            deferred: Vec::new(),
            group_refs: Vec::new(),
            int_consts: FxHashMap::default(),
            simple_consts: FxHashMap::default(),
            const_scratch: Vec::new(),
            type_scratch: Vec::new(),
            blockaddrs: Vec::new(),
            str_buf: Vec::new(),
            remap: false,
            saw_external: false,
            locals: locals::LocalMap::new(src.as_bytes()),
            fixups: Vec::new(),
            pending_names: Vec::new(),
            next_src_num: 0,
            next_slot: 0,
            cur_func: 0,
            pool_sizes: [0; 9],
        };
        p.ty_void = p.simple_type(Type::Void);
        p.ty_ptr = p.simple_type(Type::Ptr(0));
        p.ty_i1 = p.simple_type(Type::Int(1));
        p.ty_i32 = p.simple_type(Type::Int(32));
        p.ty_i64 = p.simple_type(Type::Int(64));
        p.ty_float = p.simple_type(Type::Float);
        p.ty_label = p.simple_type(Type::Label);
        p.ty_token = p.simple_type(Type::Token);
        p.ty_meta = p.simple_type(Type::Metadata);
        p
    }

    // ---------------------------------------------------------------- tokens

    #[inline]
    fn bump(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.end;
        self.tok = self.lex.next();
        t
    }
    #[inline]
    fn text(&self, t: Token) -> &'s [u8] {
        &self.b[t.start as usize..t.end as usize]
    }
    #[inline]
    fn cur(&self) -> &'s [u8] {
        self.text(self.tok)
    }
    #[inline]
    fn span(t: Token) -> Span {
        Span {
            start: t.start,
            end: t.end,
        }
    }
    #[inline]
    fn is(&self, k: Tok) -> bool {
        self.tok.kind == k
    }
    #[inline]
    fn is_word(&self, w: &str) -> bool {
        self.tok.kind == Tok::Ident && self.cur() == w.as_bytes()
    }
    #[inline]
    fn eat(&mut self, k: Tok) -> bool {
        if self.tok.kind == k {
            self.bump();
            true
        } else {
            false
        }
    }
    #[inline]
    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(Box::new(self.diag(msg)))
    }

    fn diag(&self, msg: impl Into<String>) -> Diagnostic {
        let mut msg = msg.into();
        let found = match self.tok.kind {
            Tok::Eof => "end of file".to_string(),
            Tok::Error => "an invalid token".to_string(),
            _ => {
                let t = String::from_utf8_lossy(self.cur());
                let t: String = t.chars().take(40).collect();
                format!("`{t}`")
            }
        };
        msg.push_str(&format!(", found {found}"));
        Diagnostic::error(msg, Self::span(self.tok)).with_code("E-parse")
    }

    #[inline]
    fn expect(&mut self, k: Tok, what: &str) -> PResult<Token> {
        if self.tok.kind == k {
            Ok(self.bump())
        } else {
            self.expected(what)
        }
    }

    /// The error of a failed [`Parser::expect`], out of line (the hot path stays small).
    #[cold]
    #[inline(never)]
    fn expected<T>(&self, what: &str) -> PResult<T> {
        self.err(format!("expected {what}"))
    }
    fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.err(format!("expected `{w}`"))
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn u32_of(&self, t: Token) -> PResult<u32> {
        let s = self.text(t);
        let s = s.strip_prefix(b"-").unwrap_or(s);
        let mut v: u64 = 0;
        for &c in s {
            if !c.is_ascii_digit() {
                return Err(Box::new(
                    Diagnostic::error("expected a number", Self::span(t)).with_code("E-parse"),
                ));
            }
            v = v * 10 + (c - b'0') as u64;
            if v > u32::MAX as u64 {
                return Err(Box::new(
                    Diagnostic::error("number too large", Self::span(t)).with_code("E-parse"),
                ));
            }
        }
        Ok(v as u32)
    }

    /// Fast path for the current token followed directly by `(N)` with 1 to 9 digits (e.g.
    /// `addrspace(1)`, on most pointer types of GPU code): consumes the four tokens in one step
    /// and returns N. The tokens and values are exactly those of the general path, which
    /// handles every other spelling.
    #[inline]
    fn paren_u32_fast(&mut self) -> Option<u32> {
        let b = self.b;
        let open = self.tok.end as usize;
        if b.get(open) != Some(&b'(') {
            return None;
        }
        let digits = b.get(open + 1..)?;
        let n = digits.iter().take(10).position(|c| !c.is_ascii_digit())?;
        if n == 0 || n > 9 || digits[n] != b')' {
            return None;
        }
        let v = digits[..n]
            .iter()
            .fold(0u32, |v, &c| v * 10 + (c - b'0') as u32);
        let end = open + 1 + n + 1;
        self.prev_end = end as u32;
        self.lex.seek(end);
        self.tok = self.lex.next();
        Some(v)
    }

    fn expect_u32(&mut self) -> PResult<u32> {
        if !self.is(Tok::Integer) {
            return self.err("expected an integer");
        }
        let t = self.bump();
        self.u32_of(t)
    }

    /// Interns the name of a `%`/`@`/`$`/`!` token (sigil stripped, quotes and escapes decoded).
    fn name_sym(&mut self, t: Token) -> Sym {
        let raw = &self.b[t.start as usize + 1..t.end as usize];
        self.intern_maybe_quoted(raw)
    }

    fn intern_maybe_quoted(&mut self, raw: &[u8]) -> Sym {
        if raw.len() >= 2 && raw[0] == b'"' {
            self.intern_str_body(&raw[1..raw.len() - 1])
        } else {
            let start = raw.as_ptr() as usize - self.b.as_ptr() as usize;
            let text = self.src.get(start..start + raw.len()).unwrap_or("");
            self.intern_plain(text)
        }
    }

    /// Interns source text (plain names, keywords, attribute words) through the per-parse cache.
    fn intern_plain(&mut self, text: &'s str) -> Sym {
        self.intern_text(text)
    }

    /// Interns any text (every string of the module goes through the name table).
    fn intern_text(&mut self, text: &str) -> Sym {
        self.m.strings.intern(text)
    }

    /// The symbol of `text` if it is interned already.
    fn lookup_text(&self, text: &str) -> Option<Sym> {
        self.m.strings.get(text)
    }

    /// The source text of a token.
    fn tok_str(&self, t: Token) -> &'s str {
        self.src.get(t.start as usize..t.end as usize).unwrap_or("")
    }

    /// Interns the body of a string literal (escapes decoded; invalid UTF-8 replaced).
    fn intern_str_body(&mut self, body: &[u8]) -> Sym {
        if !body.contains(&b'\\') {
            // A slice of the (valid UTF-8) source: no validation, through the name cache.
            let start = body.as_ptr() as usize - self.b.as_ptr() as usize;
            if let Some(text) = self.src.get(start..start + body.len()) {
                return self.intern_plain(text);
            }
            let s = String::from_utf8_lossy(body);
            return self.intern_text(&s);
        }
        self.str_buf.clear();
        unescape_into(body, &mut self.str_buf);
        let s = String::from_utf8_lossy(&self.str_buf).into_owned();
        self.intern_text(&s)
    }

    fn str_tok_sym(&mut self, t: Token) -> Sym {
        let raw = &self.b[t.start as usize + 1..t.end as usize - 1];
        self.intern_str_body(raw)
    }

    fn expect_str(&mut self) -> PResult<Sym> {
        if !self.is(Tok::Str) {
            return self.err("expected a string constant");
        }
        let t = self.bump();
        Ok(self.str_tok_sym(t))
    }

    /// Skips a balanced `( ... )` group starting at the current `(`; returns the inner span.
    fn skip_parens(&mut self) -> PResult<Span> {
        let open = self.expect(Tok::LParen, "`(`")?;
        let mut depth = 1u32;
        loop {
            match self.tok.kind {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        let close = self.bump();
                        return Ok(Span {
                            start: open.end,
                            end: close.start,
                        });
                    }
                }
                Tok::Eof => return self.err("expected `)` to close the group"),
                Tok::Error => return self.err("unexpected character"),
                _ => {}
            }
            self.bump();
        }
    }

    fn skip_braces(&mut self) -> PResult<()> {
        self.expect(Tok::LBrace, "`{`")?;
        let mut depth = 1u32;
        loop {
            match self.tok.kind {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                Tok::Eof => return self.err("expected `}`"),
                Tok::Error => return self.err("unexpected character"),
                _ => {}
            }
            self.bump();
        }
    }

    // ---------------------------------------------------------------- types

    fn type_hash(t: &Type, list: &[TypeId]) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = crate::fx::FxHasher::default();
        std::mem::discriminant(t).hash(&mut h);
        match t {
            Type::Struct { packed, .. } => {
                packed.hash(&mut h);
                for x in list {
                    h.write_u32(x.0);
                }
            }
            Type::Func { ret, vararg, .. } => {
                ret.0.hash(&mut h);
                vararg.hash(&mut h);
                for x in list {
                    h.write_u32(x.0);
                }
            }
            other => other.hash(&mut h),
        }
        h.finish()
    }

    fn same_type(&self, id: TypeId, t: &Type, list: &[TypeId]) -> bool {
        let have = &self.m.types.types[id.0 as usize];
        match (have, t) {
            (
                Type::Struct {
                    fields: f,
                    packed: p,
                },
                Type::Struct { packed, .. },
            ) => p == packed && &self.m.types.lists[f.range()] == list,
            (
                Type::Func {
                    ret: r,
                    params: ps,
                    vararg: v,
                },
                Type::Func { ret, vararg, .. },
            ) => r == ret && v == vararg && &self.m.types.lists[ps.range()] == list,
            (a, b) => a == b,
        }
    }

    /// Hash-conses a type; `list` is the field/parameter list of structs and function types.
    fn intern_type(&mut self, t: Type, list: &[TypeId]) -> TypeId {
        let h = Self::type_hash(&t, list);
        if let Some(&id) = self.type_map.get(&h) {
            if self.same_type(id, &t, list) {
                return id;
            }
            // A hash collision: look for the type linearly (practically never happens).
            for i in 0..self.m.types.types.len() {
                if self.same_type(TypeId(i as u32), &t, list) {
                    return TypeId(i as u32);
                }
            }
        }
        let t = match t {
            Type::Struct { packed, .. } => {
                let start = self.m.types.lists.len() as u32;
                self.m.types.lists.extend_from_slice(list);
                Type::Struct {
                    fields: Range32 {
                        start,
                        end: self.m.types.lists.len() as u32,
                    },
                    packed,
                }
            }
            Type::Func { ret, vararg, .. } => {
                let start = self.m.types.lists.len() as u32;
                self.m.types.lists.extend_from_slice(list);
                Type::Func {
                    ret,
                    params: Range32 {
                        start,
                        end: self.m.types.lists.len() as u32,
                    },
                    vararg,
                }
            }
            t => t,
        };
        let id = TypeId(self.m.types.types.len() as u32);
        self.m.types.types.push(t);
        self.type_map.entry(h).or_insert(id);
        id
    }

    fn simple_type(&mut self, t: Type) -> TypeId {
        self.intern_type(t, &[])
    }

    fn ty(&self, id: TypeId) -> &Type {
        &self.m.types.types[id.0 as usize]
    }

    fn named_type_ref(&mut self, key: LocalKey<'s>, span: Span) -> TypeId {
        let idx = match self.named_types.get(&key) {
            Some(&i) => i,
            None => {
                let name = match key {
                    LocalKey::Name(s) => s,
                    LocalKey::Src(s) => self.intern_plain(s),
                    LocalKey::Num(n) => self.intern_text(&n.to_string()),
                };
                let i = self.m.types.named.len() as u32;
                self.m.types.named.push((name, None));
                self.named_type_use.push(span);
                self.named_types.insert(key, i);
                i
            }
        };
        self.simple_type(Type::Named(idx))
    }

    /// The key of a function-local name token (`%x`, `%"x y"`, `%7`, or a label `x:`/`"x":`).
    fn lkey(&mut self, t: Token) -> PResult<LocalKey<'s>> {
        if t.kind == Tok::LocalId {
            return Ok(LocalKey::Num(self.u32_of(Token {
                start: t.start + 1,
                ..t
            })?));
        }
        let (mut a, mut e) = (t.start as usize, t.end as usize);
        match t.kind {
            Tok::LabelStr => e -= 1,
            _ => a += 1,
        }
        if e >= a + 2 && self.b[a] == b'"' {
            let body = &self.b[a + 1..e - 1];
            if body.contains(&b'\\') {
                return Ok(LocalKey::Name(self.intern_str_body(body)));
            }
            a += 1;
            e -= 1;
        }
        Ok(LocalKey::Src(self.src.get(a..e).unwrap_or("")))
    }

    /// The interned name of a local key (for `LocalName::Named`).
    fn key_sym(&mut self, k: LocalKey<'s>) -> Sym {
        match k {
            LocalKey::Name(s) => s,
            LocalKey::Src(s) => self.intern_plain(s),
            LocalKey::Num(n) => self.intern_text(&n.to_string()),
        }
    }

    /// The interned name of a local just defined by `locals.insert(k, ..)`: from the local map's
    /// cache when the name was interned before, else interned now (at the same point as before the
    /// cache existed, so symbols are numbered the same).
    fn def_sym(&mut self, k: LocalKey<'s>) -> Sym {
        if let Some(s) = self.locals.last_sym() {
            return s;
        }
        let s = self.key_sym(k);
        self.locals.remember_last_sym(s);
        s
    }

    fn key_text(&self, k: LocalKey<'s>) -> String {
        match k {
            LocalKey::Name(s) => self.m.strings.resolve(s).to_string(),
            LocalKey::Src(s) => s.to_string(),
            LocalKey::Num(n) => n.to_string(),
        }
    }

    fn local_key(&mut self, t: Token) -> PResult<LocalKey<'s>> {
        Ok(match t.kind {
            Tok::LocalId | Tok::GlobalId => LocalKey::Num(self.u32_of(Token {
                start: t.start + 1,
                ..t
            })?),
            _ => LocalKey::Name(self.name_sym(t)),
        })
    }

    pub(crate) fn parse_type(&mut self) -> PResult<TypeId> {
        // The commonest types, without the nesting bookkeeping when no suffix follows (the same
        // result as the general path, whose `enter` cannot fail below the limit).
        if self.tok.kind == Tok::Ident && self.depth < MAX_DEPTH {
            let id = match self.cur() {
                b"i32" => Some(self.ty_i32),
                b"i64" => Some(self.ty_i64),
                b"i1" => Some(self.ty_i1),
                b"float" => Some(self.ty_float),
                b"void" => Some(self.ty_void),
                _ => None,
            };
            if let Some(id) = id {
                self.bump();
                if !(self.is(Tok::LParen) || self.is(Tok::Star) || self.is_word("addrspace")) {
                    return Ok(id);
                }
                self.enter()?;
                let r = self.type_suffix(id);
                self.leave();
                return r;
            }
        }
        self.enter()?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    fn parse_type_inner(&mut self) -> PResult<TypeId> {
        let t = self.tok;
        let mut id = match t.kind {
            Tok::Ident => {
                let w = self.cur();
                // The commonest words without hashing.
                let common = match w {
                    b"i32" => Some(self.ty_i32),
                    b"i64" => Some(self.ty_i64),
                    b"i1" => Some(self.ty_i1),
                    b"float" => Some(self.ty_float),
                    b"void" => Some(self.ty_void),
                    _ => None,
                };
                if let Some(id) = common {
                    self.bump();
                    return if self.is(Tok::LParen)
                        || self.is(Tok::Star)
                        || self.is_word("addrspace")
                    {
                        self.type_suffix(id)
                    } else {
                        Ok(id)
                    };
                }
                if let Some(&id) = self.word_types.get(w) {
                    self.bump();
                    return self.type_suffix(id);
                }
                let ty = match w {
                    b"void" => Type::Void,
                    b"half" => Type::Half,
                    b"bfloat" => Type::BFloat,
                    b"float" => Type::Float,
                    b"double" => Type::Double,
                    b"x86_fp80" => Type::X86Fp80,
                    b"fp128" => Type::Fp128,
                    b"ppc_fp128" => Type::PpcFp128,
                    b"x86_amx" => Type::X86Amx,
                    b"label" => Type::Label,
                    b"token" => Type::Token,
                    b"metadata" => Type::Metadata,
                    b"ptr" => {
                        self.bump();
                        let asp = self.opt_addrspace()?;
                        let p = match self.ptr_types.get(asp as usize) {
                            Some(&Some(id)) => id,
                            _ => {
                                let id = self.simple_type(Type::Ptr(asp));
                                if let Some(slot) = self.ptr_types.get_mut(asp as usize) {
                                    *slot = Some(id);
                                }
                                id
                            }
                        };
                        return self.type_suffix(p);
                    }
                    b"target" => {
                        self.bump();
                        return self.target_ext_type();
                    }
                    _ if w.len() > 1 && w[0] == b'i' && w[1..].iter().all(u8::is_ascii_digit) => {
                        let n = self.u32_of(Token {
                            start: t.start + 1,
                            ..t
                        })?;
                        if n == 0 || n > (1 << 23) {
                            return self.err("integer width must be between 1 and 2^23");
                        }
                        Type::Int(n)
                    }
                    _ => return self.err("expected a type"),
                };
                self.bump();
                let id = self.simple_type(ty);
                self.word_types.insert(w, id);
                id
            }
            Tok::LocalVar | Tok::LocalId => {
                self.bump();
                let key = self.local_key(t)?;
                self.named_type_ref(key, Self::span(t))
            }
            Tok::LBrace => {
                self.bump();
                self.struct_body(false)?
            }
            Tok::Less => {
                self.bump();
                if self.is(Tok::LBrace) {
                    self.bump();
                    let s = self.struct_body(true)?;
                    self.expect(Tok::Greater, "`>` after packed struct")?;
                    s
                } else {
                    let scalable = self.eat_word("vscale");
                    if scalable {
                        self.expect_word("x")?;
                    }
                    let len = self.expect_u32()?;
                    self.expect_word("x")?;
                    let elem = self.parse_type()?;
                    self.expect(Tok::Greater, "`>` after vector type")?;
                    self.simple_type(Type::Vector {
                        len,
                        scalable,
                        elem,
                    })
                }
            }
            Tok::LSquare => {
                self.bump();
                if !self.is(Tok::Integer) {
                    return self.err("expected array length");
                }
                let lt = self.bump();
                let len = std::str::from_utf8(self.text(lt))
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(|| {
                        Diagnostic::error("bad array length", Self::span(lt)).with_code("E-parse")
                    })?;
                self.expect_word("x")?;
                let elem = self.parse_type()?;
                self.expect(Tok::RSquare, "`]` after array type")?;
                self.simple_type(Type::Array { len, elem })
            }
            _ => return self.err("expected a type"),
        };
        id = self.type_suffix(id)?;
        Ok(id)
    }

    /// Function-type suffix `T (params)`; `T*` typed pointers are rejected as LLVM 17+ does.
    fn type_suffix(&mut self, mut id: TypeId) -> PResult<TypeId> {
        loop {
            match self.tok.kind {
                Tok::LParen => {
                    self.bump();
                    let mark = self.type_scratch.len();
                    let mut vararg = false;
                    if !self.is(Tok::RParen) {
                        loop {
                            if self.eat(Tok::DotDotDot) {
                                vararg = true;
                                break;
                            }
                            let p = self.parse_type()?;
                            // Parameter attributes may appear in function types; skip them.
                            while self.skip_one_attr()? {}
                            self.type_scratch.push(p);
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    self.expect(Tok::RParen, "`)` after function type parameters")?;
                    let list: Vec<TypeId> = self.type_scratch.drain(mark..).collect();
                    id = self.intern_type(
                        Type::Func {
                            ret: id,
                            params: Range32::default(),
                            vararg,
                        },
                        &list,
                    );
                }
                // Typed pointers (`i32*`, `i8 addrspace(1)*`) read as opaque pointers, as LLVM 17+
                // reads them.
                Tok::Star => {
                    self.bump();
                    id = self.simple_type(Type::Ptr(0));
                }
                Tok::Ident if self.cur() == b"addrspace" => {
                    let a = self.opt_addrspace()?;
                    self.expect(Tok::Star, "`*` after `addrspace(N)` in a pointer type")?;
                    id = self.simple_type(Type::Ptr(a));
                }
                _ => return Ok(id),
            }
        }
    }

    fn struct_body(&mut self, packed: bool) -> PResult<TypeId> {
        let mark = self.type_scratch.len();
        if !self.is(Tok::RBrace) {
            loop {
                let f = self.parse_type()?;
                self.type_scratch.push(f);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "`}` after struct fields")?;
        let list: Vec<TypeId> = self.type_scratch.drain(mark..).collect();
        Ok(self.intern_type(
            Type::Struct {
                fields: Range32::default(),
                packed,
            },
            &list,
        ))
    }

    fn target_ext_type(&mut self) -> PResult<TypeId> {
        let open = self.tok;
        self.expect(Tok::LParen, "`(` after `target`")?;
        let name = self.expect_str()?;
        while self.eat(Tok::Comma) {
            if self.is(Tok::Integer) {
                self.bump();
            } else {
                self.parse_type()?;
            }
        }
        self.expect(Tok::RParen, "`)` after target type parameters")?;
        // Keep the whole `target(...)` text distinct per parameterisation.
        let full = std::str::from_utf8(&self.b[open.start as usize..self.prev_end as usize])
            .unwrap_or("")
            .to_string();
        let _ = name;
        let sym = self.intern_text(&full);
        let id = self.simple_type(Type::TargetExt(sym));
        self.type_suffix(id)
    }

    fn opt_addrspace(&mut self) -> PResult<u32> {
        if !self.is_word("addrspace") {
            return Ok(0);
        }
        if let Some(n) = self.paren_u32_fast() {
            return Ok(n);
        }
        self.bump();
        self.expect(Tok::LParen, "`(` after `addrspace`")?;
        let n = if self.is(Tok::Str) {
            // Symbolic address spaces ("A", "G", "P") of the datalayout: keep 0.
            self.bump();
            0
        } else {
            self.expect_u32()?
        };
        self.expect(Tok::RParen, "`)` after address space")?;
        Ok(n)
    }

    // ---------------------------------------------------------------- attributes

    fn is_attr_start(&self) -> bool {
        match self.tok.kind {
            Tok::Str | Tok::AttrGrpId => true,
            Tok::Ident => {
                let w = self.cur();
                !self.not_attr.contains_key(w) && !is_type_word(w)
            }
            _ => false,
        }
    }

    /// Parses one attribute into [`Module::attrs`] (or a `#N` reference into `group_refs`).
    /// Returns false if the current token starts no attribute.
    fn parse_attr(&mut self, in_group: bool) -> PResult<bool> {
        if !self.is_attr_start() {
            return Ok(false);
        }
        let t = self.bump();
        match t.kind {
            Tok::AttrGrpId => {
                let n = self.u32_of(Token {
                    start: t.start + 1,
                    ..t
                })?;
                self.group_refs.push((n, Self::span(t)));
            }
            Tok::Str => {
                let key = self.str_tok_sym(t);
                let value = if self.eat(Tok::Equal) {
                    Some(self.expect_str()?)
                } else {
                    None
                };
                self.m.attrs.push(Attr { key, value });
            }
            _ => {
                let key = self.intern_plain(self.tok_str(t));
                let value = if self.is(Tok::LParen) {
                    let inner = self.skip_parens()?;
                    let s = std::str::from_utf8(&self.b[inner.start as usize..inner.end as usize])
                        .unwrap_or("")
                        .trim();
                    Some(self.intern_text(s))
                } else if in_group && self.is(Tok::Equal) {
                    self.bump();
                    let v = self.bump();
                    Some(self.intern_plain(self.tok_str(v)))
                } else if matches!(self.text(t), b"align" | b"alignstack") && self.is(Tok::Integer)
                {
                    let v = self.bump();
                    Some(self.intern_plain(self.tok_str(v)))
                } else {
                    None
                };
                self.m.attrs.push(Attr { key, value });
            }
        }
        Ok(true)
    }

    fn skip_one_attr(&mut self) -> PResult<bool> {
        let mark = self.m.attrs.len();
        let gmark = self.group_refs.len();
        let r = self.parse_attr(false)?;
        self.m.attrs.truncate(mark);
        self.group_refs.truncate(gmark);
        Ok(r)
    }

    /// Parses attributes until none follows; returns the range of inline attributes.
    fn parse_attrs(&mut self) -> PResult<Range32> {
        let start = self.m.attrs.len() as u32;
        while self.parse_attr(false)? {}
        Ok(Range32 {
            start,
            end: self.m.attrs.len() as u32,
        })
    }

    fn defer_attrs(&mut self, target: AttrTarget, inline: Range32, gmark: usize) {
        if self.group_refs.len() > gmark {
            self.deferred.push(DeferredAttrs {
                target,
                inline,
                groups: Range32 {
                    start: gmark as u32,
                    end: self.group_refs.len() as u32,
                },
            });
        }
    }

    // ---------------------------------------------------------------- globals

    fn gsym(&mut self, key: LocalKey<'s>, span: Span) -> u32 {
        if let Some(&i) = self.gnames.get(&key) {
            return i;
        }
        let i = self.gsyms.len() as u32;
        self.gsyms.push(GSym {
            def: GDef::None,
            key,
            call_ty: None,
            first_use: span,
            konst: u32::MAX,
        });
        self.gnames.insert(key, i);
        i
    }

    fn global_value(&mut self, t: Token) -> PResult<Value> {
        let key = self.local_key(t)?;
        let i = self.gsym(key, Self::span(t));
        Ok(match self.gsyms[i as usize].def {
            GDef::Global(g) => Value::Global(GlobalId(g)),
            GDef::Func(f) => Value::Func(FuncId(f)),
            GDef::None => {
                self.remap = true;
                Value::Global(GlobalId(HIGH | i))
            }
        })
    }

    fn global_const(&mut self, t: Token) -> PResult<ConstId> {
        let key = self.local_key(t)?;
        let i = self.gsym(key, Self::span(t));
        let k = self.gsyms[i as usize].konst;
        if k != u32::MAX {
            return Ok(ConstId(k));
        }
        let kind = match self.gsyms[i as usize].def {
            GDef::Global(g) => ConstKind::Global(GlobalId(g)),
            GDef::Func(f) => ConstKind::Func(FuncId(f)),
            GDef::None => {
                self.remap = true;
                ConstKind::Global(GlobalId(HIGH | i))
            }
        };
        let c = self.push_const(self.ty_ptr, kind);
        self.gsyms[i as usize].konst = c.0;
        Ok(c)
    }

    fn define_gsym(&mut self, t: Token, def: GDef) -> PResult<()> {
        let key = self.local_key(t)?;
        let i = self.gsym(key, Self::span(t));
        if self.gsyms[i as usize].def != GDef::None {
            return Err(Box::new(
                Diagnostic::error(
                    format!(
                        "redefinition of global `{}`",
                        String::from_utf8_lossy(self.text(t))
                    ),
                    Self::span(t),
                )
                .with_code("E-parse"),
            ));
        }
        self.gsyms[i as usize].def = def;
        if self.gsyms[i as usize].konst != u32::MAX {
            let c = self.gsyms[i as usize].konst as usize;
            self.m.consts[c].kind = match def {
                GDef::Global(g) => ConstKind::Global(GlobalId(g)),
                GDef::Func(f) => ConstKind::Func(FuncId(f)),
                GDef::None => unreachable!(),
            };
        }
        Ok(())
    }

    // ---------------------------------------------------------------- module

    pub fn parse_module(mut self) -> PResult<Module> {
        while self.tok.kind != Tok::Eof {
            self.parse_item()?;
        }
        self.finish()
    }

    /// Parses one top-level entity (the current token starts it; not at end of input).
    fn parse_item(&mut self) -> PResult<()> {
        match self.tok.kind {
            Tok::Eof => {}
            Tok::Ident => {
                let w = self.cur();
                match w {
                    b"target" => self.parse_target()?,
                    b"source_filename" => {
                        self.bump();
                        self.expect(Tok::Equal, "`=`")?;
                        let s = self.expect_str()?;
                        self.m.source_filename = Some(self.m.strings.resolve(s).to_string());
                    }
                    b"module" => {
                        self.bump();
                        self.expect_word("asm")?;
                        self.expect_str()?;
                    }
                    b"define" => self.parse_function(true)?,
                    b"declare" => self.parse_function(false)?,
                    b"attributes" => self.parse_attr_group()?,
                    b"uselistorder" | b"uselistorder_bb" => self.skip_uselistorder()?,
                    _ => return self.err("expected a top-level entity"),
                }
            }
            Tok::LocalVar | Tok::LocalId => self.parse_named_type()?,
            Tok::GlobalVar | Tok::GlobalId => self.parse_global()?,
            Tok::ComdatVar => {
                let t = self.bump();
                let name = self.name_sym(t);
                self.expect(Tok::Equal, "`=` after comdat name")?;
                self.expect_word("comdat")?;
                if !self.is(Tok::Ident) {
                    return self.err("expected comdat selection kind");
                }
                let k = self.bump();
                let kind = self
                    .m
                    .strings
                    .intern(std::str::from_utf8(self.text(k)).unwrap_or(""));
                self.m.comdats.push((name, kind));
            }
            Tok::MetadataVar => self.parse_named_metadata()?,
            Tok::Exclaim => self.parse_numbered_metadata()?,
            Tok::SummaryId => {
                self.bump();
                self.expect(Tok::Equal, "`=`")?;
                while !matches!(self.tok.kind, Tok::LParen | Tok::Eof) {
                    self.bump();
                }
                self.skip_parens()?;
            }
            _ => return self.err("expected a top-level entity"),
        }
        Ok(())
    }

    fn parse_target(&mut self) -> PResult<()> {
        self.bump();
        let which = self.expect(Tok::Ident, "`triple` or `datalayout`")?;
        self.expect(Tok::Equal, "`=`")?;
        let s = self.expect_str()?;
        let s = self.m.strings.resolve(s).to_string();
        match self.text(which) {
            b"triple" => self.m.triple = Some(s),
            b"datalayout" => self.m.datalayout = Some(s),
            _ => {
                return Err(Box::new(
                    Diagnostic::error("expected `triple` or `datalayout`", Self::span(which))
                        .with_code("E-parse"),
                ));
            }
        }
        Ok(())
    }

    fn skip_uselistorder(&mut self) -> PResult<()> {
        // `uselistorder T v, { 1, 0 }` / `uselistorder_bb @f, %bb, { ... }`: use-list orders are not
        // modelled (predecessor order follows the textual order of the parsed file).
        while !matches!(self.tok.kind, Tok::LBrace | Tok::Eof) {
            self.bump();
        }
        self.skip_braces()
    }

    fn parse_named_type(&mut self) -> PResult<()> {
        let t = self.bump();
        let key = self.local_key(t)?;
        self.expect(Tok::Equal, "`=` after type name")?;
        self.expect_word("type")?;
        let id = self.named_type_ref(key, Self::span(t));
        let Type::Named(idx) = *self.ty(id) else {
            unreachable!()
        };
        if self.eat_word("opaque") {
            return Ok(());
        }
        let body = self.parse_type()?;
        if self.m.types.named[idx as usize].1.is_some() {
            return Err(Box::new(
                Diagnostic::error("redefinition of a named type", Self::span(t))
                    .with_code("E-parse"),
            ));
        }
        self.m.types.named[idx as usize].1 = Some(body);
        Ok(())
    }

    fn parse_attr_group(&mut self) -> PResult<()> {
        self.bump();
        let t = self.expect(Tok::AttrGrpId, "attribute group id `#N`")?;
        let n = self.u32_of(Token {
            start: t.start + 1,
            ..t
        })?;
        self.expect(Tok::Equal, "`=`")?;
        self.expect(Tok::LBrace, "`{`")?;
        let start = self.m.attrs.len() as u32;
        loop {
            if self.is(Tok::RBrace) {
                break;
            }
            // Inside groups some words that end lists elsewhere are attributes.
            if self.is(Tok::Ident) && !self.is_attr_start() {
                let t = self.bump();
                let key = self.intern_plain(self.tok_str(t));
                let value = if self.is(Tok::LParen) {
                    let inner = self.skip_parens()?;
                    let s = std::str::from_utf8(&self.b[inner.start as usize..inner.end as usize])
                        .unwrap_or("")
                        .trim();
                    Some(self.intern_text(s))
                } else {
                    None
                };
                self.m.attrs.push(Attr { key, value });
                continue;
            }
            if !self.parse_attr(true)? {
                return self.err("expected an attribute or `}`");
            }
        }
        self.bump();
        let r = Range32 {
            start,
            end: self.m.attrs.len() as u32,
        };
        self.groups.insert(n, r);
        self.m.attr_groups.push((n, r));
        Ok(())
    }

    /// Linkage, preemption, visibility, DLL storage, thread-local, unnamed_addr prefixes.
    fn parse_global_prefix(&mut self) -> PResult<Option<Sym>> {
        let mut linkage = None;
        loop {
            if !self.is(Tok::Ident) {
                return Ok(linkage);
            }
            let w = self.cur();
            if LINKAGES.iter().any(|l| l.as_bytes() == w) {
                let t = self.bump();
                if self.text(t) == b"external" {
                    self.saw_external = true;
                } else {
                    linkage = Some(
                        self.m
                            .strings
                            .intern(std::str::from_utf8(self.text(t)).unwrap_or("")),
                    );
                }
                continue;
            }
            match w {
                b"dso_local"
                | b"dso_preemptable"
                | b"default"
                | b"hidden"
                | b"protected"
                | b"dllimport"
                | b"dllexport"
                | b"unnamed_addr"
                | b"local_unnamed_addr"
                | b"externally_initialized" => {
                    self.bump();
                }
                b"thread_local" => {
                    self.bump();
                    if self.is(Tok::LParen) {
                        self.skip_parens()?;
                    }
                }
                _ => return Ok(linkage),
            }
        }
    }

    fn parse_global(&mut self) -> PResult<()> {
        let name_tok = self.bump();
        let start = name_tok.start;
        self.expect(Tok::Equal, "`=` after global name")?;
        self.saw_external = false;
        let linkage = self.parse_global_prefix()?;
        let addrspace = self.opt_addrspace()?;
        // Prefix words may also follow `addrspace`.
        self.parse_global_prefix()?;
        let name = self.name_sym(name_tok);
        let gid = self.m.globals.len() as u32;
        // The type of the global as a value, so `Module::value_type` can name it.
        self.simple_type(Type::Ptr(addrspace));
        if self.is_word("alias") || self.is_word("ifunc") {
            let kind = if self.is_word("alias") {
                GlobalKind::Alias
            } else {
                GlobalKind::IFunc
            };
            self.bump();
            let ty = self.parse_type()?;
            self.expect(Tok::Comma, "`,` after alias type")?;
            let aty = self.parse_type()?;
            let init = self.parse_const(aty)?;
            self.define_gsym(name_tok, GDef::Global(gid))?;
            self.m.globals.push(Global {
                name,
                ty,
                addrspace,
                is_constant: false,
                init: Some(init),
                span: Span { start, end: 0 },
                kind,
                linkage,
            });
            self.global_trailer()?;
            self.m.globals[gid as usize].span.end = self.prev_end;
            return Ok(());
        }
        let is_constant = if self.eat_word("constant") {
            true
        } else if self.eat_word("global") {
            false
        } else {
            return self.err("expected `global`, `constant`, `alias` or `ifunc`");
        };
        let ty = self.parse_type()?;
        self.define_gsym(name_tok, GDef::Global(gid))?;
        let is_ext = self.saw_external
            || linkage.is_some_and(|l| self.m.strings.resolve(l) == "extern_weak");
        // `external` and `extern_weak` globals have no initializer.
        let init = if is_ext {
            None
        } else {
            Some(self.parse_const(ty)?)
        };
        self.m.globals.push(Global {
            name,
            ty,
            addrspace,
            is_constant,
            init,
            span: Span { start, end: 0 },
            kind: GlobalKind::Variable,
            linkage,
        });
        self.global_trailer()?;
        self.m.globals[gid as usize].span.end = self.prev_end;
        Ok(())
    }

    /// `, section "s"`, `, align N`, `, comdat`, `, !md !N`, `#N` … after a global.
    fn global_trailer(&mut self) -> PResult<()> {
        loop {
            if self.is(Tok::AttrGrpId) {
                self.bump();
                continue;
            }
            if !self.eat(Tok::Comma) {
                return Ok(());
            }
            match self.tok.kind {
                Tok::MetadataVar => {
                    self.bump();
                    self.parse_md_ref()?;
                }
                Tok::Ident => {
                    let t = self.bump();
                    match self.text(t) {
                        b"section" | b"partition" | b"code_model" => {
                            self.expect_str()?;
                        }
                        b"align" => {
                            self.expect_u32()?;
                        }
                        b"comdat" => {
                            if self.is(Tok::LParen) {
                                self.skip_parens()?;
                            }
                        }
                        b"no_sanitize_address"
                        | b"no_sanitize_hwaddress"
                        | b"sanitize_memtag"
                        | b"sanitize_address_dyninit" => {}
                        _ => {
                            return Err(Box::new(
                                Diagnostic::error(
                                    "expected `section`, `align`, `comdat` or metadata after `,`",
                                    Self::span(t),
                                )
                                .with_code("E-parse"),
                            ));
                        }
                    }
                }
                _ => return self.err("expected a global attribute after `,`"),
            }
        }
    }

    // ---------------------------------------------------------------- functions

    fn parse_cc(&mut self) -> PResult<CallConv> {
        if !self.is(Tok::Ident) {
            return Ok(CallConv::C);
        }
        let w = self.cur();
        if w == b"ccc" {
            self.bump();
            return Ok(CallConv::C);
        }
        // Most call sites start with their return type: skip the list scan for type words.
        if is_type_word(w) || !CALL_CONVS.iter().any(|c| c.as_bytes() == w) {
            return Ok(CallConv::C);
        }
        let t = self.bump();
        let text = if self.text(t) == b"cc" {
            let n = self.expect_u32()?;
            if n == 0 {
                return Ok(CallConv::C);
            }
            format!("cc {n}")
        } else {
            String::from_utf8_lossy(self.text(t)).into_owned()
        };
        Ok(CallConv::Named(self.intern_text(&text)))
    }

    fn parse_function(&mut self, is_def: bool) -> PResult<()> {
        let start = self.bump().start;
        let fid = self.m.functions.len() as u32;
        let mut f = empty_function(Sym(0), self.ty_void);
        let md_start = self.m.functions.len();
        let _ = md_start;
        // `declare !dbg !1 void @f()`: attachments before the header.
        let mut pre_md: Vec<(Sym, MdId)> = Vec::new();
        while self.is(Tok::MetadataVar) {
            let t = self.bump();
            let kind = self.name_sym(t);
            let md = self.parse_md_ref()?;
            pre_md.push((kind, md));
        }
        f.linkage = self.parse_global_prefix()?;
        f.cc = self.parse_cc()?;
        let gmark = self.group_refs.len();
        f.ret_attrs = self.parse_attrs()?;
        self.group_refs.truncate(gmark);
        f.ret_ty = self.parse_type()?;
        let name_tok = self.tok;
        if !matches!(name_tok.kind, Tok::GlobalVar | Tok::GlobalId) {
            return self.err("expected a function name `@name`");
        }
        self.bump();
        f.name = self.name_sym(name_tok);
        self.define_gsym(name_tok, GDef::Func(fid))?;
        self.cur_func = fid;
        // Parameters.
        self.locals.clear();
        self.fixups.clear();
        self.next_src_num = 0;
        self.next_slot = 0;
        self.expect(Tok::LParen, "`(` before parameters")?;
        if !self.is(Tok::RParen) {
            loop {
                if self.eat(Tok::DotDotDot) {
                    f.vararg = true;
                    break;
                }
                let pstart = self.tok.start;
                let ty = self.parse_type()?;
                let attrs = self.parse_attrs()?;
                let idx = f.params.len() as u32;
                let name = match self.tok.kind {
                    Tok::LocalVar => {
                        let t = self.bump();
                        let k = self.lkey(t)?;
                        if self.locals.insert(k, Local::Arg(idx)).is_some() {
                            return Err(Box::new(
                                Diagnostic::error(
                                    "redefinition of a parameter name",
                                    Self::span(t),
                                )
                                .with_code("E-parse"),
                            ));
                        }
                        let s = self.def_sym(k);
                        LocalName::Named(s)
                    }
                    Tok::LocalId => {
                        let t = self.bump();
                        let n = self.u32_of(Token {
                            start: t.start + 1,
                            ..t
                        })?;
                        self.define_num(n, Local::Arg(idx), Self::span(t))?;
                        self.slot()
                    }
                    _ => {
                        let n = self.next_src_num;
                        self.locals.insert(LocalKey::Num(n), Local::Arg(idx));
                        self.next_src_num += 1;
                        self.slot()
                    }
                };
                f.params.push(Param {
                    ty,
                    name,
                    attrs,
                    span: Span {
                        start: pstart,
                        end: self.prev_end,
                    },
                });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "`)` after parameters")?;
        // Function attributes and the rest of the header.
        let gmark = self.group_refs.len();
        let attr_start = self.m.attrs.len() as u32;
        let mut md: Vec<(Sym, MdId)> = pre_md;
        loop {
            if self.parse_attr(false)? {
                continue;
            }
            match self.tok.kind {
                Tok::MetadataVar => {
                    let t = self.bump();
                    let kind = self.name_sym(t);
                    let m = self.parse_md_ref()?;
                    md.push((kind, m));
                }
                Tok::Ident => match self.cur() {
                    b"unnamed_addr" | b"local_unnamed_addr" => {
                        self.bump();
                    }
                    b"addrspace" => {
                        self.opt_addrspace()?;
                    }
                    b"section" | b"partition" | b"gc" => {
                        self.bump();
                        self.expect_str()?;
                    }
                    b"comdat" => {
                        self.bump();
                        if self.is(Tok::LParen) {
                            self.skip_parens()?;
                        }
                    }
                    b"prefix" | b"prologue" | b"personality" => {
                        self.bump();
                        let ty = self.parse_type()?;
                        self.parse_const(ty)?;
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        f.attrs = Range32 {
            start: attr_start,
            end: self.m.attrs.len() as u32,
        };
        self.defer_attrs(AttrTarget::Function(fid), f.attrs, gmark);
        f.md_attachments = md;
        f.md = Range32 {
            start: 0,
            end: f.md_attachments.len() as u32,
        };
        self.m.functions.push(f);
        if is_def {
            self.m.functions[fid as usize].is_declaration = false;
            self.parse_body(fid)?;
        }
        let f = &mut self.m.functions[fid as usize];
        f.span = Span {
            start,
            end: self.prev_end,
        };
        Ok(())
    }

    /// Allocates the next printer slot number (LLVM's `ModuleSlotTracker` order).
    fn slot(&mut self) -> LocalName {
        let s = self.next_slot;
        self.next_slot += 1;
        LocalName::Slot(s)
    }

    fn define_num(&mut self, n: u32, l: Local, span: Span) -> PResult<()> {
        // LLVM 20+ accepts gaps in the numbering; numbers must still increase.
        if n < self.next_src_num {
            return Err(Box::new(
                Diagnostic::error(
                    format!(
                        "numbered value `%{n}` out of order: expected %{} or greater",
                        self.next_src_num
                    ),
                    span,
                )
                .with_code("E-parse"),
            ));
        }
        self.next_src_num = n + 1;
        self.locals.insert(LocalKey::Num(n), l);
        Ok(())
    }

    fn parse_body(&mut self, fid: u32) -> PResult<()> {
        self.expect(Tok::LBrace, "`{` to start the function body")?;
        let mut f = std::mem::replace(
            &mut self.m.functions[fid as usize],
            empty_function(Sym(0), self.ty_void),
        );
        // Parse straight into the function's pools, reserved at twice the previous body's sizes
        // (few growth copies), then shrunk to size in place: no copy of the finished pools.
        reserve_pools(&mut f, &self.pool_sizes);
        self.pending_names.clear();
        let r = self.parse_blocks(&mut f).and_then(|()| {
            self.expect(Tok::RBrace, "`}` at the end of the function body")?;
            self.name_insts(&mut f);
            self.resolve_fixups(&mut f)
        });
        self.pool_sizes = shrink_pools(&mut f);
        self.m.functions[fid as usize] = f;
        r
    }

    /// Interns the names of the body's named instructions in one loop. Each lookup in the name
    /// cache is a likely cache miss (names recur across the module in no order); done back to back,
    /// independent of the parse, the misses overlap instead of stalling the parse one at a time.
    ///
    /// The names are taken in chunks: a first pass hashes a chunk's names and touches their first
    /// probe slots (short independent iterations, so the processor overlaps the misses), the second
    /// interns them with those slots in cache. Both tables are grown once up front.
    fn name_insts(&mut self, f: &mut Function) {
        let pending = std::mem::take(&mut self.pending_names);
        self.m.strings.reserve(pending.len());
        let mut hashes = [0u64; 32];
        for chunk in pending.chunks(32) {
            let mut touched = 0u32;
            for (h, &(_, s)) in hashes.iter_mut().zip(chunk) {
                *h = crate::fx::text_hash(s);
                touched = touched.wrapping_add(self.m.strings.touch(*h));
            }
            std::hint::black_box(touched);
            for (&h, &(id, s)) in hashes.iter().zip(chunk) {
                let sym = self.m.strings.intern_hashed(h, s);
                self.locals.remember_sym(s, sym);
                f.insts[id as usize].name = LocalName::Named(sym);
            }
        }
        self.pending_names = pending;
    }

    fn parse_blocks(&mut self, f: &mut Function) -> PResult<()> {
        if self.is(Tok::RBrace) {
            return self.err("expected at least one basic block in a function definition");
        }
        while !self.is(Tok::RBrace) {
            let bidx = f.blocks.len() as u32;
            let bstart = self.tok.start;
            let name = match self.tok.kind {
                Tok::LabelStr => {
                    let t = self.bump();
                    let k = self.lkey(t)?;
                    if self.locals.insert(k, Local::Block(bidx)).is_some() {
                        return Err(Box::new(
                            Diagnostic::error("redefinition of a local name", Self::span(t))
                                .with_code("E-parse"),
                        ));
                    }
                    let s = self.def_sym(k);
                    LocalName::Named(s)
                }
                Tok::LabelId => {
                    let t = self.bump();
                    let n = self.u32_of(Token {
                        end: t.end - 1,
                        ..t
                    })?;
                    self.define_num(n, Local::Block(bidx), Self::span(t))?;
                    self.slot()
                }
                _ => {
                    let n = self.next_src_num;
                    self.locals.insert(LocalKey::Num(n), Local::Block(bidx));
                    self.next_src_num += 1;
                    self.slot()
                }
            };
            let istart = f.insts.len() as u32;
            loop {
                match self.tok.kind {
                    Tok::DbgRecord => {
                        // `#dbg_value(...)` records are not instructions; skip them.
                        self.bump();
                        self.skip_parens()?;
                        continue;
                    }
                    Tok::Ident if self.cur() == b"uselistorder" => {
                        self.skip_uselistorder()?;
                        continue;
                    }
                    Tok::RBrace | Tok::Eof | Tok::LabelStr | Tok::LabelId => {
                        return self.err(
                            "expected an instruction: the block before this has no terminator",
                        );
                    }
                    _ => {}
                }
                let op = self.parse_inst(f, bidx)?;
                if op.is_terminator() {
                    break;
                }
            }
            f.blocks.push(BlockData {
                name,
                insts: Range32 {
                    start: istart,
                    end: f.insts.len() as u32,
                },
                span: Span {
                    start: bstart,
                    end: self.prev_end,
                },
            });
        }
        Ok(())
    }

    fn resolve_fixups(&mut self, f: &mut Function) -> PResult<()> {
        for fx in std::mem::take(&mut self.fixups) {
            let l = self.locals.get(&fx.key);
            let Some(l) = l else {
                let name = self.key_text(fx.key);
                return Err(Box::new(
                    Diagnostic::error(format!("use of undefined value `%{name}`"), fx.span)
                        .with_code("E-parse"),
                ));
            };
            let v = match l {
                Local::Arg(a) => Value::Arg(a),
                Local::Inst(i) => Value::Inst(InstId(i)),
                Local::Block(b) => Value::Block(Block(b)),
            };
            match fx.target {
                FixTarget::Operand(i) => f.operands[i as usize] = v,
                FixTarget::Callee(c) => f.calls[c as usize].callee = v,
                FixTarget::Meta(id) => {
                    self.inline_md[(id & !HIGH) as usize] =
                        Metadata::Value(Some(FuncId(self.cur_func)), v)
                }
                FixTarget::BlockRef(i) => match l {
                    Local::Block(b) => f.block_refs[i as usize] = Block(b),
                    _ => {
                        return Err(Box::new(
                            Diagnostic::error(
                                "expected a basic block label, but this names a value",
                                fx.span,
                            )
                            .with_code("E-parse"),
                        ));
                    }
                },
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- values

    fn parse_local_ref(&mut self) -> PResult<Val<'s>> {
        let t = self.bump();
        let key = self.lkey(t)?;
        let l = self.locals.get(&key);
        Ok(match l {
            Some(Local::Arg(a)) => Val::Ready(Value::Arg(a)),
            Some(Local::Inst(i)) => Val::Ready(Value::Inst(InstId(i))),
            Some(Local::Block(b)) => Val::Ready(Value::Block(Block(b))),
            None => Val::Fwd(key, Self::span(t)),
        })
    }

    /// A value of type `ty` inside a function: locals, globals, constants, inline asm, metadata.
    fn parse_value(&mut self, f: &mut Function, ty: TypeId) -> PResult<Val<'s>> {
        match self.tok.kind {
            Tok::LocalVar | Tok::LocalId => self.parse_local_ref(),
            Tok::GlobalVar | Tok::GlobalId => {
                let t = self.bump();
                Ok(Val::Ready(self.global_value(t)?))
            }
            Tok::Ident if self.cur() == b"asm" => {
                self.bump();
                let mut side_effect = false;
                while self.is(Tok::Ident) {
                    let w = self.cur();
                    if w == b"sideeffect" {
                        side_effect = true;
                    } else if !matches!(w, b"alignstack" | b"inteldialect" | b"unwind") {
                        break;
                    }
                    self.bump();
                }
                let asm = self.expect_str()?;
                self.expect(Tok::Comma, "`,` between asm string and constraints")?;
                let constraints = self.expect_str()?;
                let id = self.m.asms.len() as u32;
                self.m.asms.push(InlineAsm {
                    asm,
                    constraints,
                    side_effect,
                });
                Ok(Val::Ready(Value::Asm(AsmId(id))))
            }
            _ if ty == self.ty_meta => {
                let m = self.parse_md_operand(Some(f))?;
                Ok(Val::Ready(Value::Meta(m)))
            }
            _ => {
                let c = self.parse_const(ty)?;
                Ok(Val::Ready(Value::Const(c)))
            }
        }
    }

    fn push_operand(&mut self, f: &mut Function, v: Val<'s>) {
        let idx = f.operands.len() as u32;
        match v {
            Val::Ready(v) => f.operands.push(v),
            Val::Fwd(key, span) => {
                f.operands.push(PENDING);
                self.fixups.push(Fixup {
                    key,
                    target: FixTarget::Operand(idx),
                    span,
                });
            }
        }
    }

    fn operand(&mut self, f: &mut Function, ty: TypeId) -> PResult<()> {
        if matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
            // The commonest operand, pushed directly (the same as `parse_local_ref` and
            // `push_operand`, without passing a `Val` through memory).
            let t = self.bump();
            let key = self.lkey(t)?;
            let idx = f.operands.len() as u32;
            match self.locals.get(&key) {
                Some(Local::Arg(a)) => f.operands.push(Value::Arg(a)),
                Some(Local::Inst(i)) => f.operands.push(Value::Inst(InstId(i))),
                Some(Local::Block(b)) => f.operands.push(Value::Block(Block(b))),
                None => {
                    f.operands.push(PENDING);
                    self.fixups.push(Fixup {
                        key,
                        target: FixTarget::Operand(idx),
                        span: Self::span(t),
                    });
                }
            }
            return Ok(());
        }
        let v = self.parse_value(f, ty)?;
        self.push_operand(f, v);
        Ok(())
    }

    /// `T v`: returns the type.
    fn typed_operand(&mut self, f: &mut Function) -> PResult<TypeId> {
        let ty = self.parse_type()?;
        self.operand(f, ty)?;
        Ok(ty)
    }

    fn block_ref(&mut self, f: &mut Function) -> PResult<()> {
        if !self.eat_word("label") {
            return self.err("expected `label %block`");
        }
        if !matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
            return self.err("expected a block name `%name`");
        }
        self.block_name_ref(f)
    }

    /// The block named by the current token, appended to `f.block_refs` (patched later when it is
    /// a forward reference).
    fn block_name_ref(&mut self, f: &mut Function) -> PResult<()> {
        let t = self.bump();
        let key = self.lkey(t)?;
        let l = self.locals.get(&key);
        let idx = f.block_refs.len() as u32;
        match l {
            Some(Local::Block(b)) => f.block_refs.push(Block(b)),
            Some(_) => {
                return Err(Box::new(
                    Diagnostic::error(
                        "expected a basic block label, but this names a value",
                        Self::span(t),
                    )
                    .with_code("E-parse"),
                ));
            }
            None => {
                f.block_refs.push(Block(u32::MAX));
                self.fixups.push(Fixup {
                    key,
                    target: FixTarget::BlockRef(idx),
                    span: Self::span(t),
                });
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- constants

    fn push_const(&mut self, ty: TypeId, kind: ConstKind) -> ConstId {
        let id = ConstId(self.m.consts.len() as u32);
        self.m.consts.push(Const { ty, kind });
        id
    }

    fn simple_const(&mut self, ty: TypeId, tag: u8, kind: ConstKind) -> ConstId {
        if let Some(&c) = self.simple_consts.get(&(ty, tag)) {
            return c;
        }
        let c = self.push_const(ty, kind);
        self.simple_consts.insert((ty, tag), c);
        c
    }

    fn int_const(&mut self, ty: TypeId, value: u128, wide: bool) -> ConstId {
        if wide {
            return self.push_const(ty, ConstKind::Int { value, wide });
        }
        if let Some(&c) = self.int_consts.get(&(ty, value)) {
            return c;
        }
        let c = self.push_const(ty, ConstKind::Int { value, wide });
        self.int_consts.insert((ty, value), c);
        c
    }

    fn int_width(&self, ty: TypeId) -> Option<u32> {
        match self.ty(ty) {
            Type::Int(n) => Some(*n),
            Type::Vector { elem, .. } => self.int_width(*elem),
            _ => None,
        }
    }

    fn parse_int_text(&self, t: Token, width: u32) -> PResult<(u128, bool)> {
        let s = self.text(t);
        let bad =
            || Diagnostic::error("malformed integer constant", Self::span(t)).with_code("E-parse");
        let mut v: u128 = 0;
        let mut overflow = false;
        let neg;
        if s.len() > 3 && (s[0] == b'u' || s[0] == b's') && s[1] == b'0' && s[2] == b'x' {
            neg = false;
            for &c in &s[3..] {
                let d = (c as char).to_digit(16).ok_or_else(bad)? as u128;
                overflow |= v >> 124 != 0;
                v = (v << 4) | d;
            }
        } else {
            let (n, digits) = match s.strip_prefix(b"-") {
                Some(d) => (true, d),
                None => (false, s),
            };
            neg = n;
            for &c in digits {
                if !c.is_ascii_digit() {
                    return Err(Box::new(bad()));
                }
                let (m, o1) = v.overflowing_mul(10);
                let (a, o2) = m.overflowing_add((c - b'0') as u128);
                overflow |= o1 | o2;
                v = a;
            }
        }
        if neg {
            v = v.wrapping_neg();
        }
        if width < 128 {
            v &= (1u128 << width) - 1;
        }
        Ok((v, width > 128 || overflow))
    }

    fn float_bits(&self, t: Token, ty: TypeId) -> PResult<u64> {
        let s = self.text(t);
        let bad = || {
            Diagnostic::error("malformed floating-point constant", Self::span(t))
                .with_code("E-parse")
        };
        let kind = self.ty(ty).clone();
        let kind = match kind {
            Type::Vector { elem, .. } => self.ty(elem).clone(),
            k => k,
        };
        if s.len() > 2 && s[0] == b'0' && s[1] == b'x' {
            let (prefix, digits) = match s[2] {
                b'K' | b'L' | b'M' | b'H' | b'R' => (Some(s[2]), &s[3..]),
                _ => (None, &s[2..]),
            };
            let mut v: u64 = 0;
            for &c in digits {
                v = (v << 4) | (c as char).to_digit(16).ok_or_else(bad)? as u64;
            }
            return Ok(match (prefix, &kind) {
                (None, Type::Float) => (f64::from_bits(v) as f32).to_bits() as u64,
                (None, Type::Half) => f64_to_half(f64::from_bits(v)) as u64,
                (None, Type::BFloat) => f32_to_bf16(f64::from_bits(v) as f32) as u64,
                _ => v,
            });
        }
        let x: f64 = std::str::from_utf8(s)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(bad)?;
        Ok(match kind {
            Type::Float => (x as f32).to_bits() as u64,
            Type::Half => f64_to_half(x) as u64,
            Type::BFloat => f32_to_bf16(x as f32) as u64,
            _ => x.to_bits(),
        })
    }

    /// A constant of type `ty`.
    pub(crate) fn parse_const(&mut self, ty: TypeId) -> PResult<ConstId> {
        self.enter()?;
        let r = self.parse_const_inner(ty);
        self.leave();
        r
    }

    fn parse_const_inner(&mut self, ty: TypeId) -> PResult<ConstId> {
        let t = self.tok;
        match t.kind {
            Tok::Integer => {
                self.bump();
                let w = self.int_width(ty).unwrap_or(64);
                let (v, wide) = self.parse_int_text(t, w)?;
                if self.int_width(ty).is_none()
                    && matches!(
                        self.ty(ty),
                        Type::Float | Type::Double | Type::Half | Type::BFloat
                    )
                {
                    // `float 1` is rejected by LLVM; accept it as a value.
                    let bits = self.float_bits(t, ty).unwrap_or(v as u64);
                    return Ok(self.push_const(ty, ConstKind::Float(bits)));
                }
                Ok(self.int_const(ty, v, wide))
            }
            Tok::Float => {
                self.bump();
                let bits = self.float_bits(t, ty)?;
                Ok(self.push_const(ty, ConstKind::Float(bits)))
            }
            Tok::GlobalVar | Tok::GlobalId => {
                self.bump();
                self.global_const(t)
            }
            Tok::LBrace => {
                self.bump();
                self.aggregate(ty, Tok::RBrace)
            }
            Tok::LSquare => {
                self.bump();
                self.aggregate(ty, Tok::RSquare)
            }
            Tok::Less => {
                self.bump();
                if self.eat(Tok::LBrace) {
                    let c = self.aggregate(ty, Tok::RBrace)?;
                    self.expect(Tok::Greater, "`>` after packed struct constant")?;
                    Ok(c)
                } else {
                    self.aggregate(ty, Tok::Greater)
                }
            }
            Tok::Ident => self.const_word(ty),
            Tok::LocalVar | Tok::LocalId => self.err("expected a constant, not a local value"),
            _ => self.err("expected a value"),
        }
    }

    fn aggregate(&mut self, ty: TypeId, close: Tok) -> PResult<ConstId> {
        let mark = self.const_scratch.len();
        if !self.is(close) {
            loop {
                let ety = self.parse_type()?;
                let c = self.parse_const(ety)?;
                self.const_scratch.push(c);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(close, "the end of the aggregate constant")?;
        let start = self.m.const_lists.len() as u32;
        self.m
            .const_lists
            .extend_from_slice(&self.const_scratch[mark..]);
        self.const_scratch.truncate(mark);
        let r = Range32 {
            start,
            end: self.m.const_lists.len() as u32,
        };
        Ok(self.push_const(ty, ConstKind::Aggregate(r)))
    }

    fn const_word(&mut self, ty: TypeId) -> PResult<ConstId> {
        let t = self.tok;
        let w = self.cur();
        match w {
            b"true" | b"false" => {
                self.bump();
                Ok(self.int_const(ty, (w == b"true") as u128, false))
            }
            b"null" => {
                self.bump();
                Ok(self.simple_const(ty, 0, ConstKind::Null))
            }
            b"undef" => {
                self.bump();
                Ok(self.simple_const(ty, 1, ConstKind::Undef))
            }
            b"poison" => {
                self.bump();
                Ok(self.simple_const(ty, 2, ConstKind::Poison))
            }
            b"zeroinitializer" => {
                self.bump();
                Ok(self.simple_const(ty, 3, ConstKind::Zero))
            }
            b"none" => {
                self.bump();
                Ok(self.simple_const(ty, 4, ConstKind::NoneToken))
            }
            b"c" => {
                self.bump();
                if !self.is(Tok::Str) {
                    return self.err("expected a string after `c`");
                }
                let s = self.bump();
                let start = self.m.bytes.len() as u32;
                let raw = &self.b[s.start as usize + 1..s.end as usize - 1];
                unescape_into(raw, &mut self.m.bytes);
                let r = Range32 {
                    start,
                    end: self.m.bytes.len() as u32,
                };
                Ok(self.push_const(ty, ConstKind::Bytes(r)))
            }
            b"blockaddress" => {
                self.bump();
                self.expect(Tok::LParen, "`(` after `blockaddress`")?;
                let ft = self.tok;
                if !matches!(ft.kind, Tok::GlobalVar | Tok::GlobalId) {
                    return self.err("expected a function name");
                }
                self.bump();
                let fkey = self.local_key(ft)?;
                let g = self.gsym(fkey, Self::span(ft));
                self.expect(Tok::Comma, "`,`")?;
                let bt = self.tok;
                if !matches!(bt.kind, Tok::LocalVar | Tok::LocalId) {
                    return self.err("expected a block name");
                }
                self.bump();
                let bkey = self.local_key(bt)?;
                self.expect(Tok::RParen, "`)`")?;
                let c = self.push_const(ty, ConstKind::BlockAddress(FuncId(0), Block(0)));
                self.blockaddrs.push((c, g, bkey, Self::span(bt)));
                Ok(c)
            }
            b"dso_local_equivalent" | b"no_cfi" => {
                self.bump();
                let ft = self.tok;
                if !matches!(ft.kind, Tok::GlobalVar | Tok::GlobalId) {
                    return self.err("expected a global name");
                }
                self.bump();
                self.global_const(ft)?;
                Ok(self.push_const(ty, ConstKind::Other))
            }
            b"ptrauth" => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let mark = self.const_scratch.len();
                loop {
                    let ety = self.parse_type()?;
                    let c = self.parse_const(ety)?;
                    self.const_scratch.push(c);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.const_scratch.truncate(mark);
                self.expect(Tok::RParen, "`)`")?;
                Ok(self.push_const(ty, ConstKind::Other))
            }
            b"splat" => {
                self.bump();
                self.expect(Tok::LParen, "`(` after `splat`")?;
                let ety = self.parse_type()?;
                let c = self.parse_const(ety)?;
                self.expect(Tok::RParen, "`)`")?;
                let len = match self.ty(ty) {
                    Type::Vector { len, .. } => *len,
                    _ => 1,
                };
                let start = self.m.const_lists.len() as u32;
                for _ in 0..len.min(MAX_SPLAT) {
                    self.m.const_lists.push(c);
                }
                let r = Range32 {
                    start,
                    end: self.m.const_lists.len() as u32,
                };
                Ok(self.push_const(ty, ConstKind::Aggregate(r)))
            }
            _ => {
                let _ = t;
                self.const_expr(ty)
            }
        }
    }

    fn const_expr(&mut self, ty: TypeId) -> PResult<ConstId> {
        let t = self.tok;
        let w = self.cur();
        let mut flags = 0u32;
        let mut aux = 0u32;
        let op;
        if let Some(o) = cast_op(w) {
            op = o;
            self.bump();
            while self.eat_word("nuw") || self.eat_word("nsw") || self.eat_word("nneg") {}
            self.expect(Tok::LParen, "`(` after cast")?;
            let vty = self.parse_type()?;
            let c = self.parse_const(vty)?;
            self.expect_word("to")?;
            let _to = self.parse_type()?;
            self.expect(Tok::RParen, "`)` after cast")?;
            return Ok(self.expr_const(ty, op, &[c], 0, flags));
        }
        let mark = self.const_scratch.len();
        if let Some(o) = bin_op(w).or(match w {
            b"fneg" => Some(Opcode::FNeg),
            b"extractelement" => Some(Opcode::ExtractElement),
            b"insertelement" => Some(Opcode::InsertElement),
            b"shufflevector" => Some(Opcode::ShuffleVector),
            b"extractvalue" => Some(Opcode::ExtractValue),
            b"insertvalue" => Some(Opcode::InsertValue),
            b"select" => Some(Opcode::Select),
            b"icmp" => Some(Opcode::ICmp),
            b"fcmp" => Some(Opcode::FCmp),
            b"getelementptr" => Some(Opcode::GetElementPtr),
            _ => None,
        }) {
            op = o;
            self.bump();
            loop {
                let fw = if self.is(Tok::Ident) { self.cur() } else { b"" };
                match fw {
                    b"nuw" => flags |= flags::NUW,
                    b"nsw" => flags |= flags::NSW,
                    b"exact" => flags |= flags::EXACT,
                    b"disjoint" => flags |= flags::DISJOINT,
                    b"inbounds" => flags |= flags::INBOUNDS,
                    b"nusw" | b"samesign" => {}
                    b"inrange" => {
                        self.bump();
                        self.skip_parens()?;
                        continue;
                    }
                    _ => break,
                }
                self.bump();
            }
            if op == Opcode::ICmp {
                let p = ipred(self.cur()).ok_or_else(|| self.diag("expected an icmp predicate"))?;
                aux = p as u32;
                self.bump();
            } else if op == Opcode::FCmp {
                let p = fpred(self.cur()).ok_or_else(|| self.diag("expected an fcmp predicate"))?;
                aux = p as u32;
                self.bump();
            }
            self.expect(Tok::LParen, "`(` after constant expression opcode")?;
            if op == Opcode::GetElementPtr {
                let st = self.parse_type()?;
                aux = st.0;
                self.expect(Tok::Comma, "`,` after the source element type")?;
            }
            loop {
                if self.is(Tok::Integer) && matches!(op, Opcode::ExtractValue | Opcode::InsertValue)
                {
                    // Aggregate indices.
                    self.bump();
                } else {
                    if self.is_word("inrange") {
                        self.bump();
                    }
                    let ety = self.parse_type()?;
                    let c = self.parse_const(ety)?;
                    self.const_scratch.push(c);
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)` after constant expression operands")?;
            let ops: Vec<ConstId> = self.const_scratch.drain(mark..).collect();
            return Ok(self.expr_const(ty, op, &ops, aux, flags));
        }
        Err(Box::new(
            Diagnostic::error(
                format!(
                    "expected a constant value, found `{}`",
                    String::from_utf8_lossy(self.text(t))
                ),
                Self::span(t),
            )
            .with_code("E-parse"),
        ))
    }

    fn expr_const(
        &mut self,
        ty: TypeId,
        op: Opcode,
        ops: &[ConstId],
        aux: u32,
        flags: u32,
    ) -> ConstId {
        let start = self.m.const_lists.len() as u32;
        self.m.const_lists.extend_from_slice(ops);
        let operands = Range32 {
            start,
            end: self.m.const_lists.len() as u32,
        };
        self.push_const(
            ty,
            ConstKind::Expr {
                op,
                operands,
                aux,
                flags,
            },
        )
    }

    // ---------------------------------------------------------------- metadata

    fn md_number(&mut self, t: Token) -> PResult<u32> {
        let n = self.u32_of(t)?;
        if n as usize > self.b.len() + 4096 || n >= HIGH {
            return Err(Box::new(
                Diagnostic::error("metadata number too large for this reader", Self::span(t))
                    .with_code("E-parse"),
            ));
        }
        if self.md_state.len() <= n as usize {
            self.md_state.resize(n as usize + 1, 0);
            self.m.metadata.resize(n as usize + 1, Metadata::Null);
        }
        Ok(n)
    }

    fn md_use(&mut self, n: u32, span: Span) -> MdId {
        if self.md_state[n as usize] == 0 {
            self.md_state[n as usize] = 1;
            self.md_first_use.insert(n, span);
        }
        MdId(n)
    }

    fn inline_node(&mut self, m: Metadata) -> MdId {
        let id = self.inline_md.len() as u32;
        self.inline_md.push(m);
        self.remap = true;
        MdId(HIGH | id)
    }

    /// A metadata reference: `!N`, `!{...}`, `!"s"`, `!DIFoo(...)`.
    fn parse_md_ref(&mut self) -> PResult<MdId> {
        self.parse_md_operand(None)
    }

    /// Any metadata operand; `f` is the enclosing function for `metadata i32 %x` forms.
    fn parse_md_operand(&mut self, f: Option<&mut Function>) -> PResult<MdId> {
        self.enter()?;
        let r = self.parse_md_operand_inner(f);
        self.leave();
        r
    }

    fn parse_md_operand_inner(&mut self, f: Option<&mut Function>) -> PResult<MdId> {
        match self.tok.kind {
            Tok::Exclaim => {
                self.bump();
                match self.tok.kind {
                    Tok::Integer => {
                        let t = self.bump();
                        let n = self.md_number(t)?;
                        Ok(self.md_use(
                            n,
                            Span {
                                start: t.start - 1,
                                end: t.end,
                            },
                        ))
                    }
                    Tok::LBrace => {
                        let r = self.md_tuple(f)?;
                        Ok(self.inline_node(Metadata::Tuple(r)))
                    }
                    Tok::Str => {
                        let t = self.bump();
                        let s = self.str_tok_sym(t);
                        Ok(self.inline_node(Metadata::String(s)))
                    }
                    _ => self.err("expected `!N`, `!{`, or `!\"string\"` after `!`"),
                }
            }
            Tok::MetadataVar => {
                let t = self.bump();
                let name = self.name_sym(t);
                if !self.is(Tok::LParen) {
                    return Err(Box::new(
                        Diagnostic::error(
                            "expected `(` after a specialised metadata node name",
                            Self::span(self.tok),
                        )
                        .with_code("E-parse"),
                    ));
                }
                self.skip_parens()?;
                Ok(self.inline_node(Metadata::Special(name)))
            }
            Tok::Ident if self.cur() == b"null" => {
                self.bump();
                Ok(self.inline_node(Metadata::Null))
            }
            _ => {
                // `T value`.
                let ty = self.parse_type()?;
                if ty == self.ty_meta {
                    return self.parse_md_operand_inner(f);
                }
                match f {
                    Some(f) => {
                        let v = self.parse_value(f, ty)?;
                        Ok(match v {
                            Val::Ready(v) => {
                                let fid = self.cur_func;
                                let local =
                                    matches!(v, Value::Arg(_) | Value::Inst(_) | Value::Block(_));
                                self.inline_node(Metadata::Value(local.then_some(FuncId(fid)), v))
                            }
                            Val::Fwd(key, span) => {
                                let id = self.inline_node(Metadata::Null);
                                self.fixups.push(Fixup {
                                    key,
                                    target: FixTarget::Meta(id.0),
                                    span,
                                });
                                id
                            }
                        })
                    }
                    None => {
                        let v = match self.tok.kind {
                            Tok::GlobalVar | Tok::GlobalId => {
                                let t = self.bump();
                                self.global_value(t)?
                            }
                            _ => Value::Const(self.parse_const(ty)?),
                        };
                        Ok(self.inline_node(Metadata::Value(None, v)))
                    }
                }
            }
        }
    }

    /// `{ op, op, ... }` after `!`; returns the range in `md_lists`.
    fn md_tuple(&mut self, mut f: Option<&mut Function>) -> PResult<Range32> {
        self.expect(Tok::LBrace, "`{`")?;
        let mark = self.md_scratch.len();
        if !self.is(Tok::RBrace) {
            loop {
                let m = self.parse_md_operand(f.as_deref_mut())?;
                self.md_scratch.push(m);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "`}` to close the metadata tuple")?;
        let start = self.m.md_lists.len() as u32;
        self.m.md_lists.extend_from_slice(&self.md_scratch[mark..]);
        self.md_scratch.truncate(mark);
        Ok(Range32 {
            start,
            end: self.m.md_lists.len() as u32,
        })
    }

    fn parse_numbered_metadata(&mut self) -> PResult<()> {
        self.bump();
        let t = self.expect(Tok::Integer, "a metadata number after `!`")?;
        let n = self.md_number(t)?;
        self.expect(Tok::Equal, "`=` after metadata number")?;
        if self.md_state[n as usize] == 2 {
            return Err(Box::new(
                Diagnostic::error(format!("redefinition of metadata `!{n}`"), Self::span(t))
                    .with_code("E-parse"),
            ));
        }
        self.eat_word("distinct");
        let node = match self.tok.kind {
            Tok::Exclaim => {
                self.bump();
                match self.tok.kind {
                    Tok::LBrace => Metadata::Tuple(self.md_tuple(None)?),
                    Tok::Str => {
                        let s = self.bump();
                        Metadata::String(self.str_tok_sym(s))
                    }
                    Tok::Integer => {
                        let r = self.bump();
                        let k = self.md_number(r)?;
                        Metadata::Node(self.md_use(k, Self::span(r)))
                    }
                    _ => return self.err("expected `!{` or a specialised node"),
                }
            }
            Tok::MetadataVar => {
                let s = self.bump();
                let name = self.name_sym(s);
                if !self.is(Tok::LParen) {
                    return self.err("expected `(` after specialised metadata node name");
                }
                self.skip_parens()?;
                Metadata::Special(name)
            }
            _ => return self.err("expected a metadata node"),
        };
        self.m.metadata[n as usize] = node;
        self.md_state[n as usize] = 2;
        Ok(())
    }

    fn parse_named_metadata(&mut self) -> PResult<()> {
        let t = self.bump();
        let name = self.name_sym(t);
        self.expect(Tok::Equal, "`=` after named metadata")?;
        self.expect(Tok::Exclaim, "`!{`")?;
        self.expect(Tok::LBrace, "`{`")?;
        let mark = self.md_scratch.len();
        if !self.is(Tok::RBrace) {
            loop {
                let m = self.parse_md_ref()?;
                self.md_scratch.push(m);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "`}`")?;
        let start = self.m.md_lists.len() as u32;
        self.m.md_lists.extend_from_slice(&self.md_scratch[mark..]);
        self.md_scratch.truncate(mark);
        self.m.named_metadata.push((
            name,
            Range32 {
                start,
                end: self.m.md_lists.len() as u32,
            },
        ));
        Ok(())
    }

    /// `, !kind !N` attachments (the comma already consumed, current token `!kind`).
    fn md_attachment(&mut self, f: &mut Function) -> PResult<()> {
        let t = self.bump();
        let kind = self.name_sym(t);
        let m = self.parse_md_ref()?;
        f.md_attachments.push((kind, m));
        Ok(())
    }

    // ---------------------------------------------------------------- the end

    fn finish(mut self) -> PResult<Module> {
        // Undefined globals, named types, metadata.
        for i in 0..self.gsyms.len() {
            let g = self.gsyms[i];
            if g.def != GDef::None {
                continue;
            }
            // LLVM declares intrinsics that are called but never declared.
            let name = match g.key {
                LocalKey::Name(s) => Some(s),
                LocalKey::Src(_) | LocalKey::Num(_) => None,
            };
            let is_intrinsic = name.is_some_and(|s| self.m.strings.resolve(s).starts_with("llvm."));
            match (is_intrinsic, g.call_ty, name) {
                (true, Some(fty), Some(name)) => {
                    let Type::Func {
                        ret,
                        params,
                        vararg,
                    } = self.ty(fty).clone()
                    else {
                        unreachable!("call types are function types")
                    };
                    let fid = self.m.functions.len() as u32;
                    let mut f = empty_function(name, ret);
                    f.vararg = vararg;
                    f.span = g.first_use;
                    for p in params.range() {
                        let ty = self.m.types.lists[p];
                        f.params.push(Param {
                            ty,
                            name: LocalName::None,
                            attrs: Range32::default(),
                            span: g.first_use,
                        });
                    }
                    self.m.functions.push(f);
                    self.gsyms[i].def = GDef::Func(fid);
                    if g.konst != u32::MAX {
                        self.m.consts[g.konst as usize].kind = ConstKind::Func(FuncId(fid));
                    }
                }
                _ => {
                    let name = self.key_text(g.key);
                    return Err(Box::new(
                        Diagnostic::error(
                            format!("use of undefined global value `@{name}`"),
                            g.first_use,
                        )
                        .with_code("E-parse"),
                    ));
                }
            }
        }
        for (i, (_, body)) in self.m.types.named.iter().enumerate() {
            let _ = (i, body);
        }
        let mut undefined: Vec<(u32, Span)> = self
            .md_first_use
            .iter()
            .filter(|(n, _)| self.md_state[**n as usize] != 2)
            .map(|(n, s)| (*n, *s))
            .collect();
        undefined.sort_by_key(|(_, s)| s.start);
        if let Some((n, span)) = undefined.first() {
            return Err(Box::new(
                Diagnostic::error(format!("use of undefined metadata `!{n}`"), *span)
                    .with_code("E-parse"),
            ));
        }
        // Attribute groups.
        for d in std::mem::take(&mut self.deferred) {
            let start = self.m.attrs.len() as u32;
            for i in d.inline.range() {
                let a = self.m.attrs[i];
                self.m.attrs.push(a);
            }
            for gi in d.groups.range() {
                let (n, span) = self.group_refs[gi];
                // LLVM accepts references to attribute groups that are never defined.
                let _ = span;
                let Some(r) = self.groups.get(&n).copied() else {
                    continue;
                };
                for i in r.range() {
                    let a = self.m.attrs[i];
                    self.m.attrs.push(a);
                }
            }
            let r = Range32 {
                start,
                end: self.m.attrs.len() as u32,
            };
            match d.target {
                AttrTarget::Function(f) => self.m.functions[f as usize].attrs = r,
                AttrTarget::Call(f, c) => {
                    self.m.functions[f as usize].calls[c as usize].fn_attrs = r
                }
            }
        }
        // Block addresses.
        for (c, g, key, span) in std::mem::take(&mut self.blockaddrs) {
            let GDef::Func(fid) = self.gsyms[g as usize].def else {
                return Err(Box::new(
                    Diagnostic::error("`blockaddress` must name a function", span)
                        .with_code("E-parse"),
                ));
            };
            let f = &self.m.functions[fid as usize];
            let found = f.blocks.iter().position(|b| match (key, b.name) {
                (LocalKey::Name(s), LocalName::Named(t)) => s == t,
                (LocalKey::Num(n), LocalName::Slot(t)) => n == t,
                _ => false,
            });
            let Some(b) = found else {
                return Err(Box::new(
                    Diagnostic::error(
                        "`blockaddress` names a block that the function does not have",
                        span,
                    )
                    .with_code("E-parse"),
                ));
            };
            self.m.consts[c.0 as usize].kind =
                ConstKind::BlockAddress(FuncId(fid), Block(b as u32));
        }
        // Metadata layout: numbered nodes at their number, then the inline nodes.
        let first_inline = self.m.metadata.len() as u32;
        self.m.first_inline_md = first_inline;
        let inline = std::mem::take(&mut self.inline_md);
        self.m.metadata.extend(inline);
        if self.remap {
            self.remap_ids(first_inline);
        }
        Ok(self.m)
    }

    fn remap_ids(&mut self, first_inline: u32) {
        let gsyms = &self.gsyms;
        let fix_md = |id: &mut MdId| {
            if id.0 & HIGH != 0 {
                id.0 = first_inline + (id.0 & !HIGH);
            }
        };
        let fix_val = |v: &mut Value| match v {
            Value::Global(g) if g.0 & HIGH != 0 => {
                *v = match gsyms[(g.0 & !HIGH) as usize].def {
                    GDef::Func(f) => Value::Func(FuncId(f)),
                    GDef::Global(x) => Value::Global(GlobalId(x)),
                    GDef::None => *v,
                }
            }
            Value::Meta(m) => fix_md(m),
            _ => {}
        };
        for f in &mut self.m.functions {
            f.operands.iter_mut().for_each(fix_val);
            for c in &mut f.calls {
                fix_val(&mut c.callee);
            }
            for (_, m) in &mut f.md_attachments {
                fix_md(m);
            }
        }
        for c in &mut self.m.consts {
            if let ConstKind::Global(g) = c.kind
                && g.0 & HIGH != 0
            {
                c.kind = match gsyms[(g.0 & !HIGH) as usize].def {
                    GDef::Func(f) => ConstKind::Func(FuncId(f)),
                    GDef::Global(x) => ConstKind::Global(GlobalId(x)),
                    GDef::None => c.kind.clone(),
                }
            }
        }
        for m in &mut self.m.metadata {
            match m {
                Metadata::Value(_, v) => fix_val(v),
                Metadata::Node(id) => fix_md(id),
                _ => {}
            }
        }
        self.m.md_lists.iter_mut().for_each(fix_md);
    }
}

/// IEEE half from f64 (round to nearest even).
fn f64_to_half(x: f64) -> u16 {
    let f = x as f32;
    let bits = f.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let r = if rem > half || (rem == half && r & 1 == 1) {
            r + 1
        } else {
            r
        };
        return sign | r as u16;
    }
    let r = (e as u32) << 10 | (man >> 13);
    let rem = man & 0x1fff;
    let r = if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r + 1
    } else {
        r
    };
    sign | r as u16
}

fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let r = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    (r >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hasher;

    fn h(s: &str) -> u64 {
        let mut x = crate::fx::FxHasher::default();
        x.write(s.as_bytes());
        x.finish()
    }

    #[test]
    fn name_table_dedups_across_growth() {
        let mut strings = Strings::default();
        let names: Vec<String> = (0..10_000)
            .map(|i| {
                if i % 3 == 0 {
                    format!("a_rather_long_name_beyond_sixteen_bytes.{i}")
                } else {
                    format!("x{i}")
                }
            })
            .collect();
        assert_eq!(strings.get("x1"), None);
        let syms: Vec<Sym> = names.iter().map(|n| strings.intern(n)).collect();
        for (n, s) in names.iter().zip(&syms) {
            assert_eq!(strings.intern_hashed(h(n), n), *s);
            assert_eq!(strings.get(n), Some(*s));
            assert_eq!(strings.resolve(*s), n);
        }
        assert_eq!(strings.map.len(), names.len());
        assert_eq!(strings.get("x10000"), None);
        // A forced hash collision between different names must not alias them.
        let a = strings.intern_hashed(42, "collide-a");
        let b = strings.intern_hashed(42, "collide-b");
        assert_ne!(a, b);
        assert_eq!(strings.intern_hashed(42, "collide-a"), a);
    }
}
