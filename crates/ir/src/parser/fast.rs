//! Fast paths: the commonest multi-token spellings of instruction lines consumed directly from the
//! bytes (`%x = `, `ptr addrspace(N)`, `, align N`, `, !kind !N`, `label %x`, `T %x`, `, T %x`),
//! and small caches of names that recur (metadata kinds, global symbols).
//!
//! Each fast path recognises one exact spelling and produces what the token-by-token path produces
//! for it (the same values, the same interning order, the same `prev_end` and the same next token);
//! anything else, including every spelling that could be an error, is left to the general path.
//! A token costs the lexer about 70 instructions (docs/benchmarks-issue13.md, session 10), so
//! skipping the `=`, `addrspace`, `(N)`, `align`, `!kind`, `!` and `N` tokens of a typical line is
//! most of what these save. A fast path saves only if its own scan is as cheap as the lexer's (one
//! table lookup per byte).

use super::*;

/// Entries of [`WordCache`] (a power of two).
const WORD_CACHE: usize = 64;

/// A direct-mapped cache from a name of 1 to 16 bytes to a `u32` (a symbol or a table index).
/// An entry is exact: the name's bytes as two zero-padded words plus its length.
pub(super) struct WordCache {
    slots: Box<[(u64, u64, u32, u32); WORD_CACHE]>,
}

impl WordCache {
    pub(super) fn new() -> Self {
        WordCache {
            slots: Box::new([(0, 0, u32::MAX, 0); WORD_CACHE]),
        }
    }

    #[inline]
    fn key(b: &[u8]) -> Option<([u64; 2], usize)> {
        if b.is_empty() || b.len() > 16 {
            return None;
        }
        let w = crate::fx::text_words(b);
        let h = (w[0] ^ w[1].rotate_left(23) ^ b.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Some((w, (h >> 58) as usize & (WORD_CACHE - 1)))
    }

    #[inline]
    pub(super) fn get(&self, b: &[u8]) -> Option<u32> {
        let (w, i) = Self::key(b)?;
        let e = &self.slots[i];
        (e.0 == w[0] && e.1 == w[1] && e.2 == b.len() as u32).then_some(e.3)
    }

    #[inline]
    pub(super) fn put(&mut self, b: &[u8], v: u32) {
        if let Some((w, i)) = Self::key(b) {
            self.slots[i] = (w[0], w[1], b.len() as u32, v);
        }
    }
}

/// A byte after a number that ends its token exactly there (the lexer's number and word runs stop
/// at it, and it cannot turn the number into a label or a float).
#[inline]
pub(super) fn ends_number(c: Option<&u8>) -> bool {
    matches!(c, None | Some(b',' | b' ' | b'\n' | b'\r' | b'\t' | b')'))
}

/// A label character, by the lexer's table (one load per byte; the byte tests cost four times
/// that on name runs).
#[inline]
fn is_label_byte(c: u8) -> bool {
    crate::lexer::is_label(c)
}

impl<'s> Parser<'s> {
    /// Continues after bytes the parser consumed itself: `end` is the end of the last consumed
    /// token (what `bump` would have left in `prev_end`), the next token is lexed from there.
    #[inline]
    pub(super) fn consumed_to(&mut self, end: usize) {
        self.prev_end = end as u32;
        self.lex.seek(end);
        // The whole-line fast paths end here at the end of their line.
        self.tok = self.lex.next_after_line();
    }

    /// `bump` for a token that usually ends its line (a block's label): the next token through
    /// the lexer's line-start path ([`crate::lexer::Lexer::next_after_line`]).
    #[inline(always)]
    pub(super) fn bump_line(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.end;
        self.tok = self.lex.next_after_line();
        t
    }

    /// 1 to 9 decimal digits at `i` ending a number token (see [`ends_number`]): the value and the
    /// end. Such a number never overflows a `u32`, so `u32_of` would accept it.
    #[inline(always)]
    pub(super) fn small_number_at(&self, i: usize) -> Option<(u32, usize)> {
        let b = self.b;
        let mut j = i;
        let mut v = 0u32;
        while let Some(&c) = b.get(j) {
            if !c.is_ascii_digit() {
                break;
            }
            v = v * 10 + (c - b'0') as u32;
            j += 1;
            if j - i > 9 {
                return None;
            }
        }
        (j > i && ends_number(b.get(j))).then_some((v, j))
    }

    /// The end of a run of label characters (`[-a-zA-Z$._0-9]`) from `i`.
    #[inline]
    fn label_run(&self, mut i: usize) -> usize {
        while let Some(&c) = self.b.get(i) {
            if !is_label_byte(c) {
                break;
            }
            i += 1;
        }
        i
    }

    /// At a result name (`%x`/`%7`) followed by exactly ` = `: consumes both and returns the name's
    /// token (the opcode is then the current token). An opcode spelled in lowercase letters and
    /// followed by a space (every common one) is the lexer's `Ident` token there: it is made the
    /// current token directly, without a lexer call (off with the whole-line fast paths in tests:
    /// `lines_tests.rs` compares the two).
    #[inline]
    pub(super) fn result_eq_fast(&mut self) -> Option<Token> {
        let t = self.tok;
        let e = t.end as usize;
        let b = self.b;
        if b.get(e..e + 3) != Some(b" = ") {
            return None;
        }
        let s = e + 3;
        let w = crate::lexer::lower_run(b, s);
        if w > s && b.get(w) == Some(&b' ') && !self.lines_off() {
            self.prev_end = (e + 2) as u32;
            self.lex.seek(w);
            self.tok = Token {
                start: s as u32,
                end: w as u32,
                kind: Tok::Ident,
            };
        } else {
            self.consumed_to(e + 2);
        }
        Some(t)
    }

    /// At `ptr` followed by ` addrspace(N)`: consumes the three tokens and returns N.
    #[inline]
    pub(super) fn ptr_addrspace_fast(&mut self) -> Option<u32> {
        let e = self.tok.end as usize;
        if self.b.get(e..e + 11) != Some(b" addrspace(") {
            return None;
        }
        let (n, end) = self.small_number_at(e + 11)?;
        if self.b.get(end) != Some(&b')') {
            return None;
        }
        self.consumed_to(end + 1);
        Some(n)
    }

    /// At a `,` followed by ` align N`: consumes the three tokens and returns N.
    #[inline]
    pub(super) fn comma_align_fast(&mut self) -> Option<u32> {
        let e = self.tok.end as usize;
        if self.b.get(e..e + 7) != Some(b" align ") {
            return None;
        }
        let (n, end) = self.small_number_at(e + 7)?;
        self.consumed_to(end);
        Some(n)
    }

    /// At a `,` followed by ` !kind !N` (a plain kind name, N of 1 to 9 digits): consumes the four
    /// tokens and pushes the attachment as [`Parser::md_attachment`] does.
    #[inline]
    pub(super) fn comma_md_attachment_fast(&mut self, f: &mut Function) -> Option<PResult<()>> {
        let b = self.b;
        let e = self.tok.end as usize;
        if b.get(e..e + 2) != Some(b" !") {
            return None;
        }
        // `!kind`: the lexer's metadata name (an identifier start, then label characters).
        let ks = e + 2;
        let first = *b.get(ks)?;
        if !(first.is_ascii_alphabetic() || matches!(first, b'$' | b'.' | b'_')) {
            return None;
        }
        let ke = self.label_run(ks + 1);
        if b.get(ke..ke + 2) != Some(b" !") {
            return None;
        }
        let (_, ne) = self.small_number_at(ke + 2)?;
        let kind_tok = Token {
            start: (ks - 1) as u32,
            end: ke as u32,
            kind: Tok::MetadataVar,
        };
        let num_tok = Token {
            start: (ke + 2) as u32,
            end: ne as u32,
            kind: Tok::Integer,
        };
        self.consumed_to(ne);
        let kind = self.md_kind_sym(kind_tok);
        Some(self.md_number(num_tok).map(|n| {
            let m = self.md_use(
                n,
                Span {
                    start: num_tok.start - 1,
                    end: num_tok.end,
                },
            );
            f.md_attachments.push((kind, m));
        }))
    }

    /// The interned name of an attachment kind token (`!tbaa`), as `name_sym` gives it, through a
    /// cache (the few kinds of a module recur on most instructions).
    #[inline]
    pub(super) fn md_kind_sym(&mut self, t: Token) -> Sym {
        let raw = &self.b[t.start as usize + 1..t.end as usize];
        if let Some(s) = self.md_kinds.get(raw) {
            return Sym(s);
        }
        let s = self.name_sym(t);
        if raw.first() != Some(&b'"') {
            self.md_kinds.put(raw, s.0);
        }
        s
    }

    /// At `label` followed by ` %name` (a plain name): consumes both tokens and returns the name's
    /// token.
    #[inline]
    pub(super) fn label_name_fast(&mut self) -> Option<Token> {
        let b = self.b;
        let t = self.tok;
        if t.end - t.start != 5 || b.get(t.start as usize..t.end as usize) != Some(b"label") {
            return None;
        }
        self.local_name_after(t.end as usize + 1)
    }

    /// At `,` followed by ` label %name`: consumes the three tokens and returns the name's token.
    #[inline]
    pub(super) fn comma_label_fast(&mut self) -> Option<Token> {
        let e = self.tok.end as usize;
        if self.tok.kind != Tok::Comma || self.b.get(e..e + 6) != Some(b" label") {
            return None;
        }
        self.local_name_after(e + 7)
    }

    /// A plain local name `%name` at `i + 1` after one space at `i`: consumes everything up to its
    /// end and returns its token (the lexer's `LocalVar` there).
    #[inline]
    fn local_name_after(&mut self, i: usize) -> Option<Token> {
        let b = self.b;
        if b.get(i.checked_sub(1)?..i + 1) != Some(b" %") {
            return None;
        }
        let first = *b.get(i + 1)?;
        if !is_label_byte(first) || first.is_ascii_digit() {
            return None;
        }
        let ne = self.label_run(i + 2);
        self.consumed_to(ne);
        Some(Token {
            start: i as u32,
            end: ne as u32,
            kind: Tok::LocalVar,
        })
    }

    /// At `,` followed by ` %name`: consumes both tokens and returns the name's token.
    #[inline]
    pub(super) fn comma_local_fast(&mut self) -> Option<Token> {
        if self.tok.kind != Tok::Comma {
            return None;
        }
        self.local_name_after(self.tok.end as usize + 1)
    }

    /// At the word `first` followed by exactly `rest` (a space and a word) and then a space:
    /// consumes both words and returns the first one's token (`prev_end` is then the second's
    /// end, which tells the caller the second word was consumed).
    #[inline]
    pub(super) fn word_pair_fast(&mut self, first: &[u8], rest: &[u8]) -> Option<Token> {
        let t = self.tok;
        let (s, e) = (t.start as usize, t.end as usize);
        if t.kind != Tok::Ident
            || self.b.get(s..e) != Some(first)
            || self.b.get(e..e + rest.len()) != Some(rest)
            || !matches!(self.b.get(e + rest.len()), Some(b' ' | b'\n'))
        {
            return None;
        }
        self.consumed_to(e + rest.len());
        Some(t)
    }

    /// At `to` followed by ` T` where `T` is `i32`, `i64`, `i1` or `float`: consumes both words
    /// and reads the type's suffix as `parse_type`'s fast path does after the word, so the result
    /// is that of `expect_word("to")` and `parse_type`.
    #[inline]
    pub(super) fn cast_to_type_fast(&mut self) -> Option<PResult<TypeId>> {
        let b = self.b;
        let t = self.tok;
        let e = t.end as usize;
        if t.kind != Tok::Ident
            || self.depth >= MAX_DEPTH
            || b.get(t.start as usize..e) != Some(b"to")
        {
            return None;
        }
        let (ty, end) = match b.get(e..e + 4)? {
            b" i32" => (self.ty_i32, e + 4),
            b" i64" => (self.ty_i64, e + 4),
            [b' ', b'i', b'1', _] => (self.ty_i1, e + 3),
            b" flo" if b.get(e + 4..e + 6) == Some(b"at") => (self.ty_float, e + 6),
            _ => return None,
        };
        // The type word ends there (the lexer's word would not run on).
        if !ends_number(b.get(end)) {
            return None;
        }
        self.consumed_to(end);
        Some(self.fast_type_suffix(ty))
    }

    /// At `,` followed by ` T ` where `T` is `i32`, `i64`, `i1`, `float` or `ptr` (optionally
    /// `ptr addrspace(N)`) and the byte after the space starts a name or a number: the type (see
    /// [`Parser::resolve_fast_type`]) and the end of its spelling, as `comma` and `parse_type`
    /// would read them (the byte after the type rules out every type suffix). Consumes nothing.
    #[inline]
    fn comma_type_at(&self) -> Option<(Result<TypeId, u32>, usize)> {
        let b = self.b;
        let e = self.tok.end as usize;
        if self.tok.kind != Tok::Comma || self.depth >= MAX_DEPTH || b.get(e) != Some(&b' ') {
            return None;
        }
        let w = b.get(e + 1..e + 6)?;
        let (ty, end) = match w {
            [b'i', b'3', b'2', b' ', _] => (Ok(self.ty_i32), e + 4),
            [b'i', b'6', b'4', b' ', _] => (Ok(self.ty_i64), e + 4),
            [b'i', b'1', b' ', _, _] => (Ok(self.ty_i1), e + 3),
            [b'f', b'l', b'o', b'a', b't'] => (Ok(self.ty_float), e + 6),
            [b'p', b't', b'r', b' ', _] => (Err(0), e + 4),
            _ => return None,
        };
        self.operand_after_type(ty, end)
    }

    /// The type read by a fast path: `Ok` a type, `Err(N)` the `ptr` of address space N (interned
    /// by the caller when the spelling is taken, as `parse_type` would intern it).
    #[inline]
    fn resolve_fast_type(&mut self, ty: Result<TypeId, u32>) -> TypeId {
        match ty {
            Ok(t) => t,
            Err(asp) => self.ptr_type(asp),
        }
    }

    /// After a type word ending at `end` (`ptr` as `Err(0)`): an optional ` addrspace(N)` for a
    /// `ptr`, then a space and a byte that starts a name or a number (no type suffix can follow).
    /// Returns the type and the end of its spelling.
    #[inline]
    pub(super) fn operand_after_type(
        &self,
        ty: Result<TypeId, u32>,
        mut end: usize,
    ) -> Option<(Result<TypeId, u32>, usize)> {
        let b = self.b;
        let mut ty = ty;
        if ty.is_err() && b.get(end..end + 11) == Some(b" addrspace(") {
            let (n, ne) = self.small_number_at(end + 11)?;
            if b.get(ne) != Some(&b')') {
                return None;
            }
            ty = Err(n);
            end = ne + 1;
        }
        match b.get(end..end + 2) {
            Some([b' ', b'%' | b'@' | b'-' | b'0'..=b'9']) => Some((ty, end)),
            _ => None,
        }
    }

    /// The lexer's token for a plain local name at `i` (its `%`): `%name` (`LocalVar`, a run of
    /// label characters) or `%N` (`LocalId`, a run of digits); `None` for anything else (quoted
    /// names go through the lexer).
    #[inline(always)]
    pub(super) fn local_token_at(&self, i: usize) -> Option<Token> {
        let b = self.b;
        if b.get(i) != Some(&b'%') {
            return None;
        }
        let first = *b.get(i + 1)?;
        let (end, kind) = if first.is_ascii_digit() {
            let mut j = i + 2;
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            (j, Tok::LocalId)
        } else if is_label_byte(first) {
            (self.label_run(i + 2), Tok::LocalVar)
        } else {
            return None;
        };
        Some(Token {
            start: i as u32,
            end: end as u32,
            kind,
        })
    }

    /// At a type word (`i32`, `i64`, `i1`, `float`, `ptr`, `ptr addrspace(N)`) followed by a space
    /// and a plain local name: consumes the type and the name (one lexer call instead of three)
    /// and returns the type and the name's token, as `parse_type` and `bump` would.
    #[inline]
    pub(super) fn type_local_fast(&mut self) -> Option<(TypeId, Token)> {
        let t = self.tok;
        if t.kind != Tok::Ident || self.depth >= MAX_DEPTH {
            return None;
        }
        let ty = match self.cur() {
            b"i32" => Ok(self.ty_i32),
            b"i64" => Ok(self.ty_i64),
            b"i1" => Ok(self.ty_i1),
            b"float" => Ok(self.ty_float),
            b"ptr" => Err(0),
            _ => return None,
        };
        let (ty, end) = self.operand_after_type(ty, t.end as usize)?;
        let name = self.local_token_at(end + 1)?;
        let ty = self.resolve_fast_type(ty);
        self.consumed_to(name.end as usize);
        Some((ty, name))
    }

    /// At the spelling of [`Parser::comma_type_at`]: consumes the comma and the type, and the
    /// operand's name too when a plain local name follows (its token is then returned).
    #[inline]
    pub(super) fn comma_type_local_fast(&mut self) -> Option<(TypeId, Option<Token>)> {
        let (ty, end) = self.comma_type_at()?;
        let name = self.local_token_at(end + 1);
        let ty = self.resolve_fast_type(ty);
        self.consumed_to(name.map_or(end, |n| n.end as usize));
        Some((ty, name))
    }

    /// `, T v` with a common spelling of `T`: `comma` then `typed_operand`, in one step (the
    /// operand too when it is a plain local name); `None` (nothing consumed) for other spellings.
    #[inline]
    pub(super) fn comma_typed_operand_fast(&mut self, f: &mut Function) -> Option<PResult<TypeId>> {
        let (ty, name) = self.comma_type_local_fast()?;
        Some(
            match name {
                Some(name) => self.local_operand(f, name, ty),
                None => self.operand(f, ty),
            }
            .map(|()| ty),
        )
    }

    /// `, T v`: `comma` then `typed_operand`, the comma and the type in one step when they have
    /// a common spelling.
    #[inline]
    pub(super) fn comma_typed_operand(&mut self, f: &mut Function) -> PResult<TypeId> {
        match self.comma_typed_operand_fast(f) {
            Some(r) => r,
            None => {
                self.comma()?;
                self.typed_operand(f)
            }
        }
    }

    /// `, v` of type `ty`: `comma` then `operand`.
    #[inline]
    pub(super) fn comma_operand(&mut self, f: &mut Function, ty: TypeId) -> PResult<()> {
        match self.comma_local_fast() {
            Some(t) => self.local_operand(f, t, ty),
            None => {
                self.comma()?;
                self.operand(f, ty)
            }
        }
    }

    /// `, label %x`: `comma` then `block_ref`.
    #[inline]
    pub(super) fn comma_block_ref(&mut self, f: &mut Function) -> PResult<()> {
        match self.comma_label_fast() {
            Some(t) => self.block_name_tok(f, t),
            None => {
                self.comma()?;
                self.block_ref(f)
            }
        }
    }

    /// The index in `gsyms` of a global name token, as `gsym(local_key(t))` gives it for a name
    /// seen before (cached by its text; the first use goes through `gsym`, which records it).
    #[inline]
    pub(super) fn gsym_of(&mut self, t: Token) -> PResult<u32> {
        let raw = &self.b[t.start as usize..t.end as usize];
        if let Some(i) = self.gsym_cache.get(raw) {
            return Ok(i);
        }
        let key = self.local_key(t)?;
        let i = self.gsym(key, Self::span(t));
        self.gsym_cache.put(raw, i);
        Ok(i)
    }

    /// An `i32`/`i64` constant written as 1 to 9 decimal digits (token `t`, consumed): what
    /// `parse_int_text` and `int_const` give for it (no sign, no overflow, no masking), with
    /// values below 64 answered from a table that `int_const`'s first answer fills.
    #[inline]
    pub(super) fn small_int_const(&mut self, t: Token, ty: TypeId) -> Option<ConstId> {
        if ty != self.ty_i32 && ty != self.ty_i64 {
            return None;
        }
        let s = self.text(t);
        if s.is_empty() || s.len() > 9 || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = s.iter().fold(0u32, |v, &c| v * 10 + (c - b'0') as u32);
        Some(self.small_int_value(v, ty))
    }

    /// The constant `v` (at most 9 digits' worth) of type `ty` as `int_const` gives it, values
    /// below 64 of `i32` and `i64` from a table that `int_const`'s first answer fills.
    #[inline(always)]
    pub(super) fn small_int_value(&mut self, v: u32, ty: TypeId) -> ConstId {
        let row = if ty == self.ty_i32 {
            0
        } else if ty == self.ty_i64 {
            1
        } else {
            return self.int_const(ty, v as u128, false);
        };
        if v >= 64 {
            return self.int_const(ty, v as u128, false);
        }
        let slot = &mut self.small_ints[row][v as usize];
        if *slot != u32::MAX {
            return ConstId(*slot);
        }
        let c = self.int_const(ty, v as u128, false);
        self.small_ints[row][v as usize] = c.0;
        c
    }

    /// `float_bits` for a `float` constant, through a cache by its spelling (generated and
    /// compiled code repeats a few constants; the decimal conversion is the costly part).
    #[inline]
    pub(super) fn float_bits_cached(&mut self, t: Token, ty: TypeId) -> PResult<u64> {
        if ty != self.ty_float {
            return self.float_bits(t, ty);
        }
        let text = self.text(t);
        if let Some(bits) = self.float_consts.get(text) {
            return Ok(bits as u64);
        }
        let bits = self.float_bits(t, ty)?;
        // A `float`'s bits fit in 32 (`float_bits` converts to single precision).
        if let Ok(b32) = u32::try_from(bits) {
            self.float_consts.put(text, b32);
        }
        Ok(bits)
    }
}
