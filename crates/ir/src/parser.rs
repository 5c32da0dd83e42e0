//! Recursive-descent reader for LLVM textual IR (the grammar of LLVM's `LLParser`, LLVM 19-22).
//!
//! One pass over the token stream. Names are interned once; function-local names live in maps that
//! are cleared and reused per function. Forward references to values are recorded as fix-ups (pool
//! index plus name) and patched when the function body ends; block names are entered at their first
//! sight, so block references need no fix-up (see [`BlockName`]); references to globals and metadata
//! defined later in the module use provisional ids (high bit set) that one final pass rewrites.
//! Nesting (types, constants, metadata) is bounded by [`MAX_DEPTH`] so hostile input cannot overflow
//! the stack.
//!
//! This file holds the parser's state, token helpers, name interning and the item loop; one file per
//! concern beside it: `types`, `attrs`, `globals`, `function` (headers, bodies, fix-ups), `values`
//! (operands), `constants`, `metadata`, `inst` (instructions), `locals` (the local-name map),
//! `words` (keyword tables), `finish` (end-of-module checks, id rewriting) and `parallel` (the
//! two-thread read).

use crate::fx::FxHashMap;
use crate::lexer::{Lexer, Tok, Token, unescape_into};
use crate::*;
use converge_graph::Block;

mod attrs;
#[cfg(test)]
mod block_names_tests;
mod constants;
mod fast;
mod finish;
mod function;
mod globals;
mod inst;
mod lines;
mod lines_ops;
#[cfg(test)]
mod lines_tests;
mod locals;
mod metadata;
mod parallel;
mod types;
mod values;
mod words;

use function::empty_function;
pub(crate) use parallel::MERGED;
use words::*;

pub(crate) use crate::wellformed::ReadFacts;

/// Reads a module: on two threads when `parallel` is set (by default for large sources, see
/// [`parallel::worth_it`]), with the same result and the same first error either way.
pub(crate) fn parse_source(
    source_name: &str,
    src: &str,
    parallel: Option<bool>,
) -> PResult<Module> {
    let two_threads = parallel.unwrap_or_else(|| parallel::worth_it(src));
    let (m, wrong_types, facts) = if two_threads {
        parallel::parse_parallel(source_name, src)
    } else {
        Parser::new(source_name, src).parse_module_noted()
    }?;
    crate::check::intrinsic_call_signatures(&m)?;
    crate::wellformed::check_module(&m, &wrong_types, &facts, two_threads)?;
    Ok(m)
}

/// A module read, the operands written with a wrong type, and what the reader learnt about its
/// functions' instructions ([`ReadFacts`]).
pub(crate) type Noted = (Module, Vec<WrongType>, Vec<ReadFacts>);

/// A local operand whose written type is not its definition's type (`icmp slt i64 %a, %b` with
/// `%a` an `i32`; LLVM's reader: "'%a' defined with type 'i32' but expected 'i64'"). The reader
/// notes it where the operand is resolved (the written type is not kept in the IR) and
/// `wellformed` reports it in its own order, so the first error of a module does not depend on
/// which check found it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct WrongType {
    /// The function.
    pub(crate) func: u32,
    /// The instruction holding the operand.
    pub(crate) inst: u32,
    /// The local written with the wrong type.
    pub(crate) value: Value,
    /// The type written before it.
    pub(crate) written: TypeId,
}

/// `Fixup::want` of a reference whose type is not checked (callees).
const NO_TYPE: TypeId = TypeId(u32::MAX);

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
    /// A block name, by its index in `Parser::block_names` (not the block's index: see
    /// [`BlockName`]).
    Block(u32),
}

/// [`BlockName::block`] of a name referenced as a block whose label has not been read.
const UNDEFINED: u32 = u32::MAX;
/// [`BlockName::block`] of a name referenced as a block and then defined as a value.
const NAMES_A_VALUE: u32 = u32::MAX - 1;

/// A block name of the body being read, entered in the name map at its first sight (its label or
/// a reference, whichever comes first) as [`Local::Block`] of its index in `Parser::block_names`.
/// A reference then needs one lookup whether or not the label was read, and a label finds the
/// entry its references made: no fix-up per forward reference and no second lookup at the body's
/// end. `Function::block_refs` holds these indices while the body is read, replaced by the blocks'
/// indices at its end (`Parser::resolve_fixups`).
#[derive(Copy, Clone, Debug)]
struct BlockName {
    /// The block's index once its label is read, else [`UNDEFINED`] or [`NAMES_A_VALUE`].
    block: u32,
    /// How many fix-ups preceded the first reference, which the body's first error is ordered
    /// by (as if each reference were a fix-up: see `Parser::resolve_fixups`).
    before: u32,
    /// The first reference (a name first seen at its label is never undefined).
    first: Token,
    /// The name's split in the name map, for its cached symbol ([`locals::LocalMap::last_sym`]).
    split: Option<(u32, u32)>,
}

#[derive(Copy, Clone, Debug)]
enum FixTarget {
    Operand(u32),
    Callee(u32),
    /// A provisional inline metadata id holding `Metadata::Value(Some(f), _)`.
    Meta(u32),
}

#[derive(Copy, Clone, Debug)]
struct Fixup<'s> {
    key: LocalKey<'s>,
    target: FixTarget,
    span: Span,
    /// The type written before the reference ([`NO_TYPE`]: none to check) and the instruction
    /// holding it, for [`WrongType`].
    want: TypeId,
    inst: u32,
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
    /// The body's block names by first sight (see [`BlockName`]).
    block_names: Vec<BlockName>,
    /// Operands written with another type than their definition's, in the order found.
    wrong_types: Vec<WrongType>,
    /// What the reader learnt about the functions read so far, for `wellformed` (see
    /// [`ReadFacts`]), and about the function being read (`facts.func` is not set yet).
    read_facts: Vec<ReadFacts>,
    facts: ReadFacts,
    /// The buffers of the predecessor and phi rules checked at each body's end
    /// ([`ReadFacts::preds_ok`]).
    checks: crate::wellformed::Scratch,
    /// The body's phis, in order, with their blocks and block references (for the check at its
    /// end).
    phis: Vec<crate::wellformed::read_preds::PhiRefs>,
    /// Per block of the body, its terminator's block references (for the same check: read there
    /// instead of finding each terminator's record again).
    terms: Vec<[u32; 2]>,
    /// The current block has had an instruction other than a phi.
    block_non_phi: bool,
    /// The block of the instruction being read, and whether it is a phi (see
    /// `Parser::check_written`).
    cur_block: u32,
    cur_phi: bool,
    /// Where the operands of the last call read end (its arguments; bundle operands follow
    /// them), set by `Parser::parse_call` for the instruction's [`crate::ir::InstEnds`].
    call_ops_end: u32,
    /// An operand of the function being read names a block: the reader gives no facts.
    block_operand: bool,
    /// Named instructions of the body whose names are not interned yet, with each name's split
    /// in the name map when it was defined ([`locals::LocalMap::last_split`]), for the symbol's
    /// cache.
    pending_names: Vec<(u32, &'s str, locals::Split)>,
    next_src_num: u32,
    next_slot: u32,
    cur_func: u32,
    /// Pool lengths of the last function body (see `parse_body`).
    pool_sizes: [usize; 9 + crate::ir::SIDE_TABLES],
    /// Where the current function body starts (its `{`), where it ends (`usize::MAX`: not looked
    /// for yet; 0: not found, the pools grow by doubling), and the offset from which the next
    /// block re-estimates the pools whatever their fill (see `Parser::grow_pools`).
    body_start: usize,
    body_end: usize,
    resize_at: usize,
    /// The body's instruction count at which the next block calls `Parser::grow_pools` (see
    /// `function::next_grow_at`).
    grow_at: usize,
    /// Attachment kinds (`!tbaa`) by their text → symbol (see `fast.rs`).
    md_kinds: fast::WordCache,
    /// Global name tokens (`@f`) by their text → index in `gsyms` (see `fast.rs`).
    gsym_cache: fast::WordCache,
    /// `i32` and `i64` constants 0 to 63 (`u32::MAX`: not seen yet; see `fast.rs`).
    small_ints: [[u32; 64]; 2],
    /// `float` constants by their spelling → bits (see `fast.rs`).
    float_consts: fast::WordCache,
    /// Tests only: the whole-line fast paths (`lines.rs`) off, to compare them with the token
    /// path.
    #[cfg(test)]
    general_only: bool,
    /// Tests only: how often each whole-line fast path was taken (`br`, `phi`, `icmp`, `store`,
    /// switch cases), and the name map's cache answered a local operand or a block reference
    /// (`lines.rs`'s indices).
    #[cfg(test)]
    lines_taken: [usize; lines::KINDS],
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
            block_names: Vec::new(),
            wrong_types: Vec::new(),
            read_facts: Vec::new(),
            facts: ReadFacts::default(),
            checks: crate::wellformed::Scratch::default(),
            phis: Vec::new(),
            terms: Vec::new(),
            block_non_phi: false,
            cur_block: 0,
            cur_phi: false,
            call_ops_end: 0,
            block_operand: false,
            pending_names: Vec::new(),
            next_src_num: 0,
            next_slot: 0,
            cur_func: 0,
            pool_sizes: [0; 9 + crate::ir::SIDE_TABLES],
            body_start: 0,
            body_end: usize::MAX,
            resize_at: usize::MAX,
            grow_at: 0,
            md_kinds: fast::WordCache::new(),
            gsym_cache: fast::WordCache::new(),
            small_ints: [[u32::MAX; 64]; 2],
            float_consts: fast::WordCache::new(),
            #[cfg(test)]
            general_only: false,
            #[cfg(test)]
            lines_taken: [0; lines::KINDS],
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
        if s.len() <= 9 {
            // Nine digits never overflow: one pass without the overflow test (numbered values'
            // names, `align N`), and the digit test folded into one flag.
            let mut v = 0u32;
            let mut digits = true;
            for &c in s {
                digits &= c.is_ascii_digit();
                v = v.wrapping_mul(10).wrapping_add(c.wrapping_sub(b'0') as u32);
            }
            if digits {
                return Ok(v);
            }
        }
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

    /// The key of a function-local name token (`%x`, `%"x y"`, `%7`, or a label `x:`/`"x":`).
    /// Inlined into every caller: the commonest case cannot fail, so the callers' error checks
    /// and the result's trip through memory go away for it.
    #[inline(always)]
    fn lkey(&mut self, t: Token) -> PResult<LocalKey<'s>> {
        // The commonest case first: `%name` unquoted, the name is the token after the sigil.
        if t.kind == Tok::LocalVar && self.b.get(t.start as usize + 1) != Some(&b'"') {
            let name = self.src.get(t.start as usize + 1..t.end as usize);
            return Ok(LocalKey::Src(name.unwrap_or("")));
        }
        self.lkey_general(t)
    }

    #[inline(never)]
    fn lkey_general(&mut self, t: Token) -> PResult<LocalKey<'s>> {
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
    #[inline]
    fn def_sym(&mut self, k: LocalKey<'s>) -> Sym {
        if let Some(s) = self.locals.last_sym() {
            return s;
        }
        self.def_sym_new(k)
    }

    /// [`Parser::def_sym`] for a name not cached: out of line, so the cached path stays small.
    #[inline(never)]
    fn def_sym_new(&mut self, k: LocalKey<'s>) -> Sym {
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

    /// The module and the operands written with a wrong type (for `wellformed`).
    #[cfg(test)]
    pub fn parse_module(self) -> PResult<(Module, Vec<WrongType>)> {
        self.parse_module_noted().map(|(m, w, _)| (m, w))
    }

    /// The module, the operands written with a wrong type, and what the reader learnt about the
    /// functions' instructions (for `wellformed`, see [`ReadFacts`]).
    pub(crate) fn parse_module_noted(mut self) -> PResult<Noted> {
        while self.tok.kind != Tok::Eof {
            self.parse_item()?;
        }
        self.finish_noted()
    }

    fn finish_noted(mut self) -> PResult<Noted> {
        let wrong = std::mem::take(&mut self.wrong_types);
        let facts = std::mem::take(&mut self.read_facts);
        Ok((self.finish()?, wrong, facts))
    }

    /// Notes `v`, written as a `written`, when its definition has another type (`f` is the
    /// function being read; `v` is one of its arguments or earlier instructions).
    #[inline]
    fn check_written(&mut self, f: &Function, v: Value, written: TypeId) {
        let actual = match v {
            Value::Arg(a) => f.params.get(a as usize).map_or(written, |p| p.ty),
            Value::Inst(i) => match f.insts.get(i.0 as usize) {
                Some(x) => {
                    // A use by an instruction of block `cur_block` that may need the dominator
                    // tree (`ReadFacts`, `wellformed`'s `use_needs_tree`): the definition, an
                    // earlier instruction, is in another block than the entry block, or is an
                    // `invoke` (defined on its normal edge); a `callbr`'s needs none (`true` is
                    // only cautious). A phi's uses are noted where its incoming blocks are
                    // known (`Parser::note_inst`).
                    if !self.cur_phi
                        && x.block.0 != self.cur_block
                        && (x.block != Block(0) || x.op == Opcode::Invoke)
                    {
                        self.note_far_use(f);
                    }
                    x.ty
                }
                None => written,
            },
            _ => written,
        };
        if actual != written {
            self.note_wrong_type(f, v, written);
        }
    }

    /// Notes that the instruction being read (the next one of `f`) has a use that may need the
    /// dominator tree ([`ReadFacts::far`]).
    #[inline(always)]
    fn note_far_use(&mut self, f: &Function) {
        let id = f.insts.len() as u32;
        if self.facts.far.last() != Some(&id) {
            self.facts.far.push(id);
        }
    }

    #[cold]
    #[inline(never)]
    fn note_wrong_type(&mut self, f: &Function, v: Value, written: TypeId) {
        if written != NO_TYPE {
            self.wrong_types.push(WrongType {
                func: self.cur_func,
                inst: f.insts.len() as u32,
                value: v,
                written,
            });
        }
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
        // Forced collisions around the slot's inline word (7 bytes and the length): texts that
        // differ only past the seventh byte, in length, by trailing NUL bytes, at 7 and 8 bytes.
        let tricky = [
            "",
            "\0",
            "\0\0",
            "a",
            "a\0",
            "abcdefg",
            "abcdefg\0",
            "abcdefgh",
            "abcdefgi",
            "abcdefgh\0",
            "abcdef",
            "abcdefghijklmnopq",
            "abcdefghijklmnopr",
        ];
        let syms: Vec<Sym> = tricky.iter().map(|t| strings.intern_hashed(7, t)).collect();
        for (i, t) in tricky.iter().enumerate() {
            assert_eq!(strings.intern_hashed(7, t), syms[i], "{t:?}");
            assert_eq!(strings.get_hashed(7, t), Some(syms[i]), "{t:?}");
            assert_eq!(strings.resolve(syms[i]), *t);
            for j in 0..i {
                assert_ne!(syms[i], syms[j], "{t:?}");
            }
        }
    }
}
