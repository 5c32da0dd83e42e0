//! Whole-line fast paths for the commonest value lines of GPU code: `load T, ptr[ addrspace(N)] %p`,
//! casts (`sext [nneg] T v to T2`), `getelementptr [inbounds] T, ptr[ addrspace(N)] %p, i64 v, …`,
//! binary operators (`add nuw nsw T a, b`, `fmul contract T a, b`), `select i1 c, T a, T b` and
//! the head of a call
//! (`[tail ]call T @f(T a, T b)`, up to its `)`), recognised from the bytes
//! the way `lines.rs` recognises `br`, `phi`, `icmp` and `store`: the whole spelling is checked
//! first (single spaces, simple type words, plain local names or small decimal constants), then
//! the operands are pushed with the calls and in the order of the token-by-token arm of
//! `parse_inst_body`, and [`Parser::consumed_to`] leaves the parser where that arm leaves it.
//! Anything else (other spacing, comments, other constants, aggregate types, flags a line may not
//! carry, `atomic`/`volatile`) goes to the token path unchanged, so errors and their order are
//! those of the token path. `getelementptr` takes its indices while they have the common
//! spelling and leaves the rest of the line to the token path's index loop; a call leaves its
//! call-site attributes, bundles and record to the token path's `call_tail`. The model test
//! (`lines_tests.rs`) compares both paths on random and near-miss spellings.

use super::fast::ends_number;
use super::lines::{BINOP, CALL, CAST, FastTy, GEP, LOAD, Lit, Op, SELECT};
use super::*;

/// Every flag a binary operator's arm lets `inst_flags` read.
const BINOP_FLAGS: u16 =
    flags::NUW | flags::NSW | flags::EXACT | flags::DISJOINT | flags::FAST_MATH;
/// The flags a cast's arm lets `inst_flags` read.
const CAST_FLAGS: u16 = flags::NUW | flags::NSW | flags::NNEG | flags::FAST_MATH;

impl<'s> Parser<'s> {
    /// Flag words at `i`, each a run of lowercase letters followed by one space, read as
    /// `inst_flags` reads them with `allowed`: the flags and the index of the first word that is
    /// not one (the type, for the caller to recognise). `None` at a flag word outside `allowed`
    /// (the token path stops there and reads it as a type: left to it).
    #[inline(always)]
    fn flag_words_at(&self, mut i: usize, allowed: u16) -> Option<(u16, usize)> {
        let b = self.b;
        let mut fl = 0;
        loop {
            let s = i;
            while b.get(i).is_some_and(u8::is_ascii_lowercase) {
                i += 1;
            }
            if i == s || b.get(i) != Some(&b' ') {
                return Some((fl, s));
            }
            let w = &b[s..i];
            let Some(f) = flag_word(w) else {
                return Some((fl, s));
            };
            if f & allowed == 0 {
                return None;
            }
            fl |= f;
            i += 1;
        }
    }

    /// A simple type word at `i` directly followed by a comma (`float,`): the type (`ptr` as
    /// `Err(())`) and the comma's index. The comma rules out every type suffix.
    #[inline(always)]
    fn type_word_comma_at(&self, i: usize) -> Option<(FastTy, usize)> {
        let b = self.b;
        Some(match b.get(i..i + 4)? {
            b"i32," => (Ok(self.ty_i32), i + 3),
            b"i64," => (Ok(self.ty_i64), i + 3),
            b"ptr," => (Err(()), i + 3),
            [b'i', b'1', b',', _] => (Ok(self.ty_i1), i + 2),
            b"floa" if b.get(i + 4..i + 6) == Some(b"t,") => (Ok(self.ty_float), i + 5),
            _ => return None,
        })
    }

    /// At `, ptr[ addrspace(N)] %p` (the comma at `c`): the address space and the pointer's
    /// token.
    #[inline(always)]
    fn comma_ptr_local_at(&self, c: usize) -> Option<(u32, Token)> {
        if self.b.get(c..c + 2) != Some(b", ") {
            return None;
        }
        let (asp, pp) = self.ptr_word_at(c + 2)?;
        Some((asp, self.local_token_at(pp)?))
    }

    // ------------------------------------------------------------------ load

    /// At `load` followed by ` T, ptr[ addrspace(N)] %p` (`T` a simple type word): the loaded
    /// type and the address space, the pointer pushed, as the `Load` arm of `parse_inst_body`
    /// reads them (the `, align N` and attachments after it are the caller's loop's).
    #[inline(never)]
    pub(super) fn load_fast(&mut self, f: &mut Function) -> Option<PResult<(TypeId, u32)>> {
        let at = self.fast_line_start()?;
        let (ty, c) = self.type_word_comma_at(at)?;
        let (asp, p) = self.comma_ptr_local_at(c)?;
        let ty = self.take_fast_type(ty);
        let pt = self.ptr_type(asp);
        self.took(LOAD);
        Some(self.load_taken(f, pt, p).map(|()| (ty, asp)))
    }

    fn load_taken(&mut self, f: &mut Function, pt: TypeId, p: Token) -> PResult<()> {
        self.local_operand(f, p, pt)?;
        self.consumed_to(p.end as usize);
        Ok(())
    }

    // ------------------------------------------------------------------ casts

    /// At a cast's opcode followed by ` [flags] T v to T2` (`T` a simple type word, `v` a plain
    /// local name or a small constant, `T2` one of `i32`, `i64`, `i1`, `float`): the flags and
    /// the result type, the operand pushed, as the cast arm of `parse_inst_body` reads them.
    #[inline(never)]
    pub(super) fn cast_fast(&mut self, f: &mut Function) -> Option<PResult<(u16, TypeId)>> {
        let b = self.b;
        let at = self.fast_line_start()?;
        let (fl, p) = self.flag_words_at(at, CAST_FLAGS)?;
        let (ty, lit, p) = self.type_word_at(p)?;
        let v = self.fast_operand_at(p, lit)?;
        let ve = v.end();
        if b.get(ve..ve + 4) != Some(b" to ") {
            return None;
        }
        let t = ve + 4;
        let (dst, end) = match b.get(t..t + 3)? {
            b"i32" => (self.ty_i32, t + 3),
            b"i64" => (self.ty_i64, t + 3),
            [b'i', b'1', _] => (self.ty_i1, t + 2),
            b"flo" if b.get(t + 3..t + 5) == Some(b"at") => (self.ty_float, t + 5),
            _ => return None,
        };
        // The type word ends there (as `cast_to_type_fast` requires).
        if !ends_number(b.get(end)) {
            return None;
        }
        let ty = self.take_fast_type(ty);
        self.took(CAST);
        Some(self.cast_taken(f, v, ty, dst, end).map(|dst| (fl, dst)))
    }

    fn cast_taken(
        &mut self,
        f: &mut Function,
        v: Op,
        ty: TypeId,
        dst: TypeId,
        end: usize,
    ) -> PResult<TypeId> {
        self.push_fast_operand(f, v, ty)?;
        self.consumed_to(end);
        self.fast_type_suffix(dst)
    }

    // ------------------------------------------------------------------ getelementptr

    /// At `getelementptr` followed by ` [inbounds ]T, ptr[ addrspace(N)] %p` (`T` a simple type
    /// word): the flags, the source type and the base's type, the base pushed, and the indices
    /// after it as long as they are `, i64 v` or `, i32 v` (`v` a plain local name or a small
    /// constant), as the `GetElementPtr` arm of `parse_inst_body` reads them. The caller's index
    /// loop reads whatever follows (more indices, attachments).
    #[inline(never)]
    pub(super) fn gep_fast(&mut self, f: &mut Function) -> Option<PResult<(u16, TypeId, TypeId)>> {
        let b = self.b;
        let at = self.fast_line_start()?;
        let (fl, p) = if b.get(at..at + 9) == Some(b"inbounds ") {
            (flags::INBOUNDS, at + 9)
        } else {
            (0, at)
        };
        let (st, c) = self.type_word_comma_at(p)?;
        let (asp, base) = self.comma_ptr_local_at(c)?;
        let st = self.take_fast_type(st);
        let bt = self.ptr_type(asp);
        self.took(GEP);
        Some(self.gep_taken(f, bt, base).map(|()| (fl, st, bt)))
    }

    fn gep_taken(&mut self, f: &mut Function, bt: TypeId, base: Token) -> PResult<()> {
        self.local_operand(f, base, bt)?;
        let b = self.b;
        let mut end = base.end as usize;
        loop {
            let ty = match b.get(end..end + 6) {
                Some(b", i64 ") => self.ty_i64,
                Some(b", i32 ") => self.ty_i32,
                _ => break,
            };
            let Some(v) = self.fast_operand_at(end + 6, Lit::Int) else {
                break;
            };
            self.push_fast_operand(f, v, ty)?;
            end = v.end();
        }
        self.consumed_to(end);
        Ok(())
    }

    // ------------------------------------------------------------------ binary operators

    /// At a binary operator followed by ` [flags] T a, b` (`T` a simple type word, `a` and `b`
    /// plain local names or small constants): the flags and the type, the operands pushed, as
    /// the binary operators' arm of `parse_inst_body` reads them.
    #[inline(never)]
    pub(super) fn binop_fast(&mut self, f: &mut Function) -> Option<PResult<(u16, TypeId)>> {
        let b = self.b;
        let at = self.fast_line_start()?;
        let (fl, p) = self.flag_words_at(at, BINOP_FLAGS)?;
        let (ty, lit, p) = self.type_word_at(p)?;
        let x = self.fast_operand_at(p, lit)?;
        let xe = x.end();
        if b.get(xe..xe + 2) != Some(b", ") {
            return None;
        }
        let y = self.fast_operand_at(xe + 2, lit)?;
        let ty = self.take_fast_type(ty);
        self.took(BINOP);
        Some(self.two_operands_taken(f, ty, x, y).map(|()| (fl, ty)))
    }
}

/// What [`Parser::call_head_fast`] read: the call's flags (`tail`), its result type, callee and
/// function type, and the index of its first argument's attribute list.
pub(super) struct CallHead {
    pub(super) flags: u16,
    pub(super) ret: TypeId,
    pub(super) callee: Value,
    pub(super) fn_ty: TypeId,
    pub(super) arg_lists_start: u32,
}

/// The most arguments [`Parser::call_head_fast`] takes (more go to the token path).
const CALL_ARGS: usize = 8;

impl<'s> Parser<'s> {
    // ------------------------------------------------------------------ calls

    /// At `call` or `tail` followed by `[ call] T @f(` and arguments `T v` separated by `, `, up
    /// to `)` (`T` a simple type word or `void` for the result, `@f` a plain global name, `v` a
    /// plain local name or a small constant, at most [`CALL_ARGS`] of them): the call as the
    /// token path of `parse_call` reads it up to the `)` (no calling convention, no attributes,
    /// no address space, the function type built from the arguments' types); the caller reads
    /// the rest.
    #[inline(never)]
    pub(super) fn call_head_fast(&mut self, f: &mut Function) -> Option<PResult<CallHead>> {
        let b = self.b;
        let t = self.tok;
        if self.lines_off() || self.depth >= MAX_DEPTH || t.kind != Tok::Ident {
            return None;
        }
        let e = t.end as usize;
        let (fl, r) = match b.get(t.start as usize..e)? {
            b"call" => (0, e + 1),
            b"tail" if b.get(e..e + 6) == Some(b" call ") => (flags::TAIL, e + 6),
            _ => return None,
        };
        if b.get(r - 1) != Some(&b' ') {
            return None;
        }
        let (ret, p) = if b.get(r..r + 5) == Some(b"void ") {
            (Ok(self.ty_void), r + 5)
        } else {
            let (ty, _, p) = self.type_word_at(r)?;
            (ty, p)
        };
        // `@name(`: the lexer's `GlobalVar`, a run of label characters after a non-digit.
        if b.get(p) != Some(&b'@')
            || !b
                .get(p + 1)
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'.' || c == b'_')
        {
            return None;
        }
        let mut ne = p + 2;
        while b.get(ne).is_some_and(|&c| crate::lexer::is_label(c)) {
            ne += 1;
        }
        if b.get(ne) != Some(&b'(') {
            return None;
        }
        let name = Token {
            start: p as u32,
            end: ne as u32,
            kind: Tok::GlobalVar,
        };
        let mut args = [(Err(()), Op::Int(name, 0)); CALL_ARGS];
        let mut n = 0;
        let mut q = ne + 1;
        if b.get(q) != Some(&b')') {
            loop {
                let (ty, lit, v) = self.type_word_at(q)?;
                let v = self.fast_operand_at(v, lit)?;
                *args.get_mut(n)? = (ty, v);
                n += 1;
                let ve = v.end();
                match b.get(ve..ve + 2)? {
                    [b')', _] => {
                        q = ve;
                        break;
                    }
                    b", " => q = ve + 2,
                    _ => return None,
                }
            }
        }
        self.took(CALL);
        Some(self.call_head_taken(f, fl, ret, name, &args[..n], q))
    }

    fn call_head_taken(
        &mut self,
        f: &mut Function,
        flags: u16,
        ret: FastTy,
        name: Token,
        args: &[(FastTy, Op)],
        close: usize,
    ) -> PResult<CallHead> {
        let ret = self.take_fast_type(ret);
        let callee = self.global_value(name)?;
        let arg_lists_start = f.arg_attr_lists.len() as u32;
        let mut types = [TypeId(0); CALL_ARGS];
        for (k, &(ty, v)) in args.iter().enumerate() {
            let at = self.take_fast_type(ty);
            // No attributes: the empty list at the end of the pool, as `parse_attrs` gives it.
            let end = self.m.attrs.len() as u32;
            self.push_fast_operand(f, v, at)?;
            f.arg_attr_lists.push(Range32 { start: end, end });
            types[k] = at;
        }
        self.consumed_to(close + 1);
        let fn_ty = self.intern_type(
            Type::Func {
                ret,
                params: Range32::default(),
                vararg: false,
            },
            &types[..args.len()],
        );
        Ok(CallHead {
            flags,
            ret,
            callee,
            fn_ty,
            arg_lists_start,
        })
    }
}

impl<'s> Parser<'s> {
    // ------------------------------------------------------------------ select

    /// `, T v` at `c` (the comma; `T` a simple type word, `v` a plain local name or a small
    /// constant): the type and the operand.
    #[inline(always)]
    fn comma_typed_at(&self, c: usize) -> Option<(FastTy, Op)> {
        if self.b.get(c..c + 2) != Some(b", ") {
            return None;
        }
        let (ty, lit, p) = self.type_word_at(c + 2)?;
        Some((ty, self.fast_operand_at(p, lit)?))
    }

    /// At `select` followed by ` [fast-math flags] T c, T2 a, T3 b` (simple type words, plain
    /// local names or small constants): the flags and the result type (`T2`), the operands
    /// pushed, as the `Select` arm of `parse_inst_body` reads them.
    #[inline(never)]
    pub(super) fn select_fast(&mut self, f: &mut Function) -> Option<PResult<(u16, TypeId)>> {
        let at = self.fast_line_start()?;
        let (fl, p) = self.flag_words_at(at, flags::FAST_MATH)?;
        let (ct, lit, p) = self.type_word_at(p)?;
        let c = self.fast_operand_at(p, lit)?;
        let (at, a) = self.comma_typed_at(c.end())?;
        let (bt, b) = self.comma_typed_at(a.end())?;
        self.took(SELECT);
        Some(
            self.select_taken(f, [(ct, c), (at, a), (bt, b)])
                .map(|ty| (fl, ty)),
        )
    }

    fn select_taken(&mut self, f: &mut Function, ops: [(FastTy, Op); 3]) -> PResult<TypeId> {
        let mut tys = [TypeId(0); 3];
        for (t, (ty, v)) in tys.iter_mut().zip(ops) {
            *t = self.take_fast_type(ty);
            self.push_fast_operand(f, v, *t)?;
        }
        self.consumed_to(ops[2].1.end());
        Ok(tys[1])
    }
}
