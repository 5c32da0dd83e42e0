//! Whole-line fast paths: the commonest instruction lines of generated and compiled code (`br label
//! %x`; `br i1 %c, label %a, label %b`; `phi T [ v, %a ], [ w, %b ]`; `icmp P T a, b`; `store T
//! %v, T2 %p, align N`; a switch case `T v, label %x`) recognised from the bytes in one step, so
//! that such a line costs one lexer call (the token after it) instead of one per token (about 70
//! instructions each, see docs/benchmarks-issue13.md, sessions 10 and 13).
//!
//! Each recogniser first checks the whole spelling without changing anything: exactly one space
//! where the canonical spelling has one, plain names (`%name`, `%12`), small decimal constants
//! where an `i32`/`i64` is expected, `float` constants in the printers' spellings where a `float`
//! is (`5.000000e-01`, `0x3FB99999A0000000`; see [`Lit`]). `lines_ops.rs` holds the same kind of
//! fast paths for `load`, casts, `getelementptr`, binary operators, `select` and calls. Only then does it act, in the order and with the calls of the
//! token-by-token path (`local_operand`, `small_int_const`, `block_name_tok`), and it ends with
//! [`Parser::consumed_to`], which leaves the parser where that path leaves it. Anything else
//! (other spacing, comments, quoted names, other constants, flags, every spelling that could be a
//! syntax error) is left to the token path, so errors and their order are unchanged. The model
//! test (`lines_tests.rs`) reads random spellings with errors injected both ways and compares.

use super::fast::ends_number;
use super::*;

/// Indices of `Parser::lines_taken` (tests count the fast paths taken).
const BR: usize = 0;
const PHI: usize = 1;
const ICMP: usize = 2;
const STORE: usize = 3;
const SWITCH: usize = 4;
/// A local operand answered by the name map's cache (`Parser::local_operand`).
pub(super) const CACHED_VALUE: usize = 5;
/// A block reference answered by the name map's cache (`Parser::block_name_tok`).
pub(super) const CACHED_BLOCK: usize = 6;
/// A block name's first sight entered from the cache probe (`Parser::block_name_tok`).
pub(super) const FIRST_SIGHT: usize = 7;
/// The lines of `lines_ops.rs`: `load`, casts, `getelementptr`, binary operators, calls,
/// `select`.
pub(super) const LOAD: usize = 8;
pub(super) const CAST: usize = 9;
pub(super) const GEP: usize = 10;
pub(super) const BINOP: usize = 11;
pub(super) const CALL: usize = 12;
pub(super) const SELECT: usize = 13;
/// A `float` constant pushed by a fast path (`Op::Float`).
pub(super) const FLOAT: usize = 14;
/// A block's label defined through the name map's cache probe (`Parser::label_fast`).
pub(super) const LABEL: usize = 15;
/// A result name defined through the name map's cache probe (`Parser::result_fast`).
pub(super) const RESULT: usize = 16;
/// A phi incoming `undef` taken by a fast path (`Op::Undef`).
pub(super) const UNDEF: usize = 17;
/// A local operand answered behind the name map's cache by its number's dense entry or the
/// table (`Parser::local_operand`).
pub(super) const FOUND_VALUE: usize = 18;
/// A local operand that the dense entry or the table shows undefined yet, entered as a forward reference
/// without the general lookup (`Parser::local_operand_slow`).
pub(super) const FORWARD: usize = 19;
/// A block reference answered by its number's dense entry behind the name map's cache (counted
/// by the name map, `LocalMap::dense_blocks`).
#[cfg(test)]
pub(super) const DENSE_BLOCK: usize = 20;
/// An unnamed `void` line taken by `Parser::direct_line` and pushed at once
/// (`Function::push_plain`).
pub(super) const PLAIN: usize = 21;
/// A line taken by `Parser::direct_line` and pushed by `Function::push_plain` after its name.
pub(super) const PLAIN_NAMED: usize = 22;
/// The number of counters in `Parser::lines_taken`.
#[cfg(test)]
pub(super) const KINDS: usize = 23;

/// How a recognised operand is pushed: a local name token, a small decimal constant, or a
/// `float` constant.
#[derive(Copy, Clone)]
pub(super) enum Op {
    Local(Token),
    /// 1 to 9 decimal digits (an `i32`/`i64` constant, see [`Parser::small_int_const`]) and
    /// their value, read once by the recogniser (`small_number_at`).
    Int(Token, u32),
    /// A `float` constant in a printer's spelling (see [`Parser::float_literal_at`]).
    Float(Token),
    /// The word `undef` (a phi's incoming value only, see [`Parser::phi_incoming_at`]).
    Undef(Token),
}

impl Op {
    pub(super) fn end(self) -> usize {
        match self {
            Op::Local(t) | Op::Int(t, _) | Op::Float(t) | Op::Undef(t) => t.end as usize,
        }
    }
}

/// The constants a fast operand of a type may be besides a plain local name: small decimal
/// integers (`i32`, `i64`), `float` constants as printers spell them (`float`), or none.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Lit {
    None,
    Int,
    Float,
}

/// A simple type word at the start of a fast spelling (`ptr` as `Err(())`, interned as
/// `ptr_type(0)` when the spelling is taken, as `parse_type` interns it).
pub(super) type FastTy = Result<TypeId, ()>;

impl<'s> Parser<'s> {
    /// Whether the whole-line fast paths are off (tests compare the two paths).
    #[inline(always)]
    pub(super) fn lines_off(&self) -> bool {
        #[cfg(test)]
        {
            self.general_only
        }
        #[cfg(not(test))]
        {
            false
        }
    }

    /// Where a whole-line fast path may start reading: just after the current token (the
    /// opcode) and its one space, unless the fast paths are off or the nesting limit is reached
    /// (the token path reports that).
    #[inline(always)]
    pub(super) fn fast_line_start(&self) -> Option<usize> {
        let e = self.tok.end as usize;
        if self.lines_off() || self.depth >= MAX_DEPTH || self.b.get(e) != Some(&b' ') {
            return None;
        }
        Some(e + 1)
    }

    /// Counts a fast path taken (tests only: `kind` indexes `lines_taken`).
    #[inline(always)]
    pub(super) fn took(&mut self, kind: usize) {
        #[cfg(test)]
        {
            self.lines_taken[kind] += 1;
        }
        let _ = kind;
    }

    /// A plain block name `%name` at `i` (the lexer's `LocalVar`, not a number, not quoted), as
    /// `local_name_after` reads it: its token.
    #[inline(always)]
    fn block_name_at(&self, i: usize) -> Option<Token> {
        let b = self.b;
        if b.get(i) != Some(&b'%') {
            return None;
        }
        let first = *b.get(i + 1)?;
        if !crate::lexer::is_label(first) || first.is_ascii_digit() {
            return None;
        }
        let mut e = i + 2;
        while b.get(e).is_some_and(|&c| crate::lexer::is_label(c)) {
            e += 1;
        }
        Some(Token {
            start: i as u32,
            end: e as u32,
            kind: Tok::LocalVar,
        })
    }

    /// An operand at `i`: a plain local name (see `local_token_at`), or for `Lit::Int` 1 to 9
    /// decimal digits that the lexer reads as one integer token (the byte after them ends a
    /// number, see `small_number_at`), or for `Lit::Float` a `float` constant (see
    /// [`Parser::float_literal_at`]).
    #[inline(always)]
    pub(super) fn fast_operand_at(&self, i: usize, lit: Lit) -> Option<Op> {
        let b = self.b;
        match *b.get(i)? {
            b'%' => self.local_token_at(i).map(Op::Local),
            b'0'..=b'9' if lit == Lit::Float => self.float_literal_at(i).map(Op::Float),
            b'0'..=b'9' if lit == Lit::Int => {
                let (v, e) = self.small_number_at(i)?;
                Some(Op::Int(
                    Token {
                        start: i as u32,
                        end: e as u32,
                        kind: Tok::Integer,
                    },
                    v,
                ))
            }
            _ => None,
        }
    }

    /// Pushes a recognised operand of type `ty` as `operand` does.
    #[inline(always)]
    pub(super) fn push_fast_operand(
        &mut self,
        f: &mut Function,
        op: Op,
        ty: TypeId,
    ) -> PResult<()> {
        match op {
            Op::Local(t) => self.local_operand(f, t, ty),
            Op::Int(_, v) => {
                // `small_int_const`'s answer for these digits, from the value the recogniser
                // read (`ty` is `i32` or `i64` wherever `fast_operand_at` takes digits).
                let c = self.small_int_value(v, ty);
                f.operands.push(Value::Const(c));
                Ok(())
            }
            Op::Float(t) => {
                // `operand` -> `parse_value` -> `parse_const` for a `Float` token (no wrong-type
                // note for a constant).
                self.took(FLOAT);
                let bits = self.float_bits_cached(t, ty)?;
                let c = self.push_const(ty, ConstKind::Float(bits));
                f.operands.push(Value::Const(c));
                Ok(())
            }
            Op::Undef(_) => {
                // `operand` -> `parse_value` -> `parse_const` -> `const_word` for the word (a
                // constant: no wrong-type note).
                self.took(UNDEF);
                let c = self.simple_const(ty, 1, ConstKind::Undef);
                f.operands.push(Value::Const(c));
                Ok(())
            }
        }
    }

    /// A `float` constant at `i` (a digit) as printers write it, `D.DDDDDDe[+-]DD` or `0x` and 16
    /// hex digits, followed by a byte that ends a number token: the lexer's `Float` token.
    #[inline(always)]
    fn float_literal_at(&self, i: usize) -> Option<Token> {
        let b = self.b;
        let digits = |mut k: usize, hex: bool| {
            while b
                .get(k)
                .is_some_and(|c| c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()))
            {
                k += 1;
            }
            k
        };
        let e = if b.get(i..i + 2) == Some(b"0x") {
            let e = digits(i + 2, true);
            if e != i + 18 {
                return None;
            }
            e
        } else {
            if b.get(i + 1) != Some(&b'.') {
                return None;
            }
            let m = digits(i + 2, false);
            if m == i + 2 || b.get(m) != Some(&b'e') || !matches!(b.get(m + 1), Some(b'+' | b'-')) {
                return None;
            }
            let e = digits(m + 2, false);
            if e == m + 2 {
                return None;
            }
            e
        };
        ends_number(b.get(e)).then_some(Token {
            start: i as u32,
            end: e as u32,
            kind: Tok::Float,
        })
    }

    /// A simple type word at `i` (`i32`, `i64`, `i1`, `float`, `ptr`) followed by one space: the
    /// type, the constants its operands may be, and the index after the space.
    #[inline(always)]
    pub(super) fn type_word_at(&self, i: usize) -> Option<(FastTy, Lit, usize)> {
        let b = self.b;
        Some(match b.get(i..i + 4)? {
            b"i32 " => (Ok(self.ty_i32), Lit::Int, i + 4),
            b"i64 " => (Ok(self.ty_i64), Lit::Int, i + 4),
            b"ptr " => (Err(()), Lit::None, i + 4),
            [b'i', b'1', b' ', _] => (Ok(self.ty_i1), Lit::None, i + 3),
            b"floa" if b.get(i + 4..i + 6) == Some(b"t ") => (Ok(self.ty_float), Lit::Float, i + 6),
            _ => return None,
        })
    }

    #[inline(always)]
    pub(super) fn take_fast_type(&mut self, ty: FastTy) -> TypeId {
        match ty {
            Ok(t) => t,
            Err(()) => self.ptr_type(0),
        }
    }

    // ------------------------------------------------------------------ phi

    /// `[ v, %b ]` at `p` with exactly these spaces (`v` a plain local name, `undef`, or when
    /// `lit` allows, a small decimal constant directly followed by the comma): the value, the
    /// block name's token and the index after `]`.
    #[inline(always)]
    fn phi_incoming_at(&self, p: usize, lit: Lit) -> Option<(Op, Token, usize)> {
        let b = self.b;
        if b.get(p..p + 2) != Some(b"[ ") {
            return None;
        }
        // `undef` (tested only where the common operands fail) is the lexer's word token there:
        // the comma checked next ends it.
        let v = match self.fast_operand_at(p + 2, lit) {
            Some(v) => v,
            None if b.get(p + 2..p + 7) == Some(b"undef") => Op::Undef(Token {
                start: (p + 2) as u32,
                end: (p + 7) as u32,
                kind: Tok::Ident,
            }),
            None => return None,
        };
        let e = v.end();
        if b.get(e..e + 2) != Some(b", ") {
            return None;
        }
        let name = self.block_name_at(e + 2)?;
        let ne = name.end as usize;
        if b.get(ne..ne + 2) != Some(b" ]") {
            return None;
        }
        Some((v, name, ne + 2))
    }

    /// At `phi` followed by ` T [ v, %b ]` (`T` a simple type word): the type and the incomings,
    /// as many as follow in that spelling separated by `, ` (what `fast_math`, `parse_type` and
    /// the incoming loop of `parse_inst_body` read after `phi`; the type word is no flag).
    /// Afterwards the current token is the one after the last `]` taken.
    #[inline]
    pub(super) fn phi_fast(&mut self, f: &mut Function) -> Option<PResult<TypeId>> {
        let at = self.fast_line_start()?;
        let (ty, lit, p) = self.type_word_at(at)?;
        let first = self.phi_incoming_at(p, lit)?;
        let ty = self.take_fast_type(ty);
        self.took(PHI);
        Some(self.phi_incomings(f, ty, lit, first).map(|()| ty))
    }

    /// At the `[` of a phi's next incoming (after its `,`): the incomings in the spelling of
    /// [`Parser::phi_fast`].
    #[inline]
    pub(super) fn phi_more_fast(&mut self, f: &mut Function, ty: TypeId) -> Option<PResult<()>> {
        if self.lines_off() || self.tok.kind != Tok::LSquare || self.depth >= MAX_DEPTH {
            return None;
        }
        let lit = if ty == self.ty_i32 || ty == self.ty_i64 {
            Lit::Int
        } else if ty == self.ty_float {
            Lit::Float
        } else {
            Lit::None
        };
        let first = self.phi_incoming_at(self.tok.start as usize, lit)?;
        self.took(PHI);
        Some(self.phi_incomings(f, ty, lit, first))
    }

    /// Takes the recognised incoming `first` and those after it in the same spelling.
    fn phi_incomings(
        &mut self,
        f: &mut Function,
        ty: TypeId,
        lit: Lit,
        first: (Op, Token, usize),
    ) -> PResult<()> {
        let (mut v, mut name, mut end) = first;
        loop {
            self.push_fast_operand(f, v, ty)?;
            self.block_name_tok(f, name)?;
            if self.b.get(end..end + 2) != Some(b", ") {
                break;
            }
            match self.phi_incoming_at(end + 2, lit) {
                Some(next) => (v, name, end) = next,
                None => break,
            }
        }
        self.consumed_to(end);
        Ok(())
    }
}

impl<'s> Parser<'s> {
    // ------------------------------------------------------------------ br

    /// At `br` followed by ` label %x`, or by ` i1 %c, label %a, label %b` (the condition a plain
    /// local name): the operands as the `Br` arm of `parse_inst_body` reads them.
    #[inline]
    pub(super) fn br_fast(&mut self, f: &mut Function) -> Option<PResult<()>> {
        let b = self.b;
        let e = self.tok.end as usize;
        if self.lines_off() {
            return None;
        }
        if b.get(e..e + 7) == Some(b" label ") {
            let d = self.block_name_at(e + 7)?;
            self.took(BR);
            return Some(
                self.block_name_tok(f, d)
                    .map(|()| self.consumed_to(d.end as usize)),
            );
        }
        if b.get(e..e + 4) != Some(b" i1 ") || self.depth >= MAX_DEPTH {
            return None;
        }
        let c = self.local_token_at(e + 4)?;
        let ce = c.end as usize;
        if b.get(ce..ce + 8) != Some(b", label ") {
            return None;
        }
        let d1 = self.block_name_at(ce + 8)?;
        let de = d1.end as usize;
        if b.get(de..de + 8) != Some(b", label ") {
            return None;
        }
        let d2 = self.block_name_at(de + 8)?;
        self.took(BR);
        Some(self.br_cond_taken(f, c, d1, d2))
    }

    fn br_cond_taken(&mut self, f: &mut Function, c: Token, d1: Token, d2: Token) -> PResult<()> {
        let i1 = self.ty_i1;
        self.local_operand(f, c, i1)?;
        self.block_name_tok(f, d1)?;
        self.block_name_tok(f, d2)?;
        self.consumed_to(d2.end as usize);
        Ok(())
    }

    // ------------------------------------------------------------------ icmp

    /// At `icmp` followed by ` P T a, b` (`P` a predicate, `T` a simple type word, `a` and `b`
    /// plain local names or constants as [`Parser::fast_operand_at`] reads them): the predicate and the type, the operands
    /// pushed, as the `ICmp` arm of `parse_inst_body` reads them.
    #[inline]
    pub(super) fn icmp_fast(&mut self, f: &mut Function) -> Option<PResult<(IPred, TypeId)>> {
        let b = self.b;
        let at = self.fast_line_start()?;
        let mut pe = at;
        while b.get(pe).is_some_and(u8::is_ascii_lowercase) {
            pe += 1;
        }
        if b.get(pe) != Some(&b' ') {
            return None;
        }
        let pred = ipred(&b[at..pe])?;
        let (ty, lit, p) = self.type_word_at(pe + 1)?;
        let a = self.fast_operand_at(p, lit)?;
        let ae = a.end();
        if b.get(ae..ae + 2) != Some(b", ") {
            return None;
        }
        let c = self.fast_operand_at(ae + 2, lit)?;
        let ty = self.take_fast_type(ty);
        self.took(ICMP);
        Some(self.two_operands_taken(f, ty, a, c).map(|()| (pred, ty)))
    }

    /// The two operands of type `ty` of a whole-line fast path (`icmp`, a binary operator)
    /// pushed, and the line consumed up to the end of the second.
    pub(super) fn two_operands_taken(
        &mut self,
        f: &mut Function,
        ty: TypeId,
        a: Op,
        c: Op,
    ) -> PResult<()> {
        self.push_fast_operand(f, a, ty)?;
        self.push_fast_operand(f, c, ty)?;
        self.consumed_to(c.end());
        Ok(())
    }

    // ------------------------------------------------------------------ store

    /// `ptr` or `ptr addrspace(N)` at `i` followed by one space: the address space and the index
    /// after the space.
    #[inline(always)]
    pub(super) fn ptr_word_at(&self, i: usize) -> Option<(u32, usize)> {
        let b = self.b;
        if b.get(i..i + 3) != Some(b"ptr") {
            return None;
        }
        match b.get(i + 3)? {
            b' ' if b.get(i + 4..i + 14) == Some(b"addrspace(") => {
                let (n, ne) = self.small_number_at(i + 14)?;
                (b.get(ne..ne + 2) == Some(b") ")).then_some((n, ne + 2))
            }
            b' ' => Some((0, i + 4)),
            _ => None,
        }
    }

    /// At `store` followed by ` T v, ptr[ addrspace(N)] %p` and optionally `, align N` (`v` a
    /// plain local name or a small constant, `%p` a plain local name): the pointer's type, the
    /// operands and the alignment pushed, as the `Store` arm of `parse_inst_body` and the
    /// attachment loop of `parse_inst` read them.
    #[inline]
    pub(super) fn store_fast(&mut self, f: &mut Function) -> Option<PResult<TypeId>> {
        let b = self.b;
        let at = self.fast_line_start()?;
        let (vt, lit, p) = self.type_word_at(at)?;
        let v = self.fast_operand_at(p, lit)?;
        let ve = v.end();
        if b.get(ve..ve + 2) != Some(b", ") {
            return None;
        }
        let (asp, pp) = self.ptr_word_at(ve + 2)?;
        let ptr = self.local_token_at(pp)?;
        let pe = ptr.end as usize;
        let align = if b.get(pe..pe + 8) == Some(b", align ") {
            self.small_number_at(pe + 8)
        } else {
            None
        };
        let vt = self.take_fast_type(vt);
        let pt = self.ptr_type(asp);
        self.took(STORE);
        Some(self.store_taken(f, vt, v, pt, ptr, align).map(|()| pt))
    }

    fn store_taken(
        &mut self,
        f: &mut Function,
        vt: TypeId,
        v: Op,
        pt: TypeId,
        ptr: Token,
        align: Option<(u32, usize)>,
    ) -> PResult<()> {
        self.push_fast_operand(f, v, vt)?;
        self.local_operand(f, ptr, pt)?;
        match align {
            Some((n, end)) => {
                f.aux.push(n as u64);
                self.consumed_to(end);
            }
            None => self.consumed_to(ptr.end as usize),
        }
        Ok(())
    }
}

impl<'s> Parser<'s> {
    /// At a switch case `T v, label %x` (`T` a simple type word, `v` a small constant or a plain
    /// local name): the case as the `Switch` arm of `parse_inst_body` reads it (`typed_operand`,
    /// then `comma_block_ref`).
    #[inline]
    pub(super) fn switch_case_fast(&mut self, f: &mut Function) -> Option<PResult<()>> {
        let t = self.tok;
        if self.lines_off() || t.kind != Tok::Ident || self.depth >= MAX_DEPTH {
            return None;
        }
        let (ty, lit, p) = self.type_word_at(t.start as usize)?;
        if p as u32 != t.end + 1 {
            return None;
        }
        let v = self.fast_operand_at(p, lit)?;
        let ve = v.end();
        if self.b.get(ve..ve + 8) != Some(b", label ") {
            return None;
        }
        let d = self.block_name_at(ve + 8)?;
        let ty = self.take_fast_type(ty);
        self.took(SWITCH);
        Some(self.switch_case_taken(f, ty, v, d))
    }

    fn switch_case_taken(&mut self, f: &mut Function, ty: TypeId, v: Op, d: Token) -> PResult<()> {
        self.push_fast_operand(f, v, ty)?;
        self.block_name_tok(f, d)?;
        self.consumed_to(d.end as usize);
        Ok(())
    }
}

#[cfg(test)]
impl Parser<'_> {
    /// `parse_module`, and how often each whole-line fast path was taken.
    pub(super) fn parse_module_counted(
        mut self,
    ) -> (PResult<(Module, Vec<WrongType>)>, [usize; KINDS]) {
        let mut r = Ok(());
        while self.tok.kind != Tok::Eof {
            if let Err(e) = self.parse_item() {
                r = Err(e);
                break;
            }
        }
        let mut taken = self.lines_taken;
        taken[DENSE_BLOCK] = self.locals.dense_blocks;
        (
            r.and_then(|()| self.finish_noted().map(|(m, w, _)| (m, w))),
            taken,
        )
    }
}
