//! Types: interning (structural hash, one id per distinct type), named and opaque types, the
//! type grammar (`{ }`, `< >`, `[ ]`, function types, `target(...)`, `addrspace(N)`).

use super::*;

impl<'s> Parser<'s> {
    pub(super) fn type_hash(t: &Type, list: &[TypeId]) -> u64 {
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

    pub(super) fn same_type(&self, id: TypeId, t: &Type, list: &[TypeId]) -> bool {
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
    pub(super) fn intern_type(&mut self, t: Type, list: &[TypeId]) -> TypeId {
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

    pub(super) fn simple_type(&mut self, t: Type) -> TypeId {
        self.intern_type(t, &[])
    }

    pub(super) fn ty(&self, id: TypeId) -> &Type {
        &self.m.types.types[id.0 as usize]
    }

    pub(super) fn named_type_ref(&mut self, key: LocalKey<'s>, span: Span) -> TypeId {
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
                return self.fast_type_suffix(id);
            }
            if self.cur() == b"ptr" {
                // `ptr addrspace(N)` in one step (`fast.rs`), else token by token.
                let asp = match self.ptr_addrspace_fast() {
                    Some(n) => n,
                    None => {
                        self.bump();
                        self.opt_addrspace()?
                    }
                };
                let p = self.ptr_type(asp);
                return self.fast_type_suffix(p);
            }
        }
        self.enter()?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    /// The suffix of a type read by `parse_type`'s fast path: none usually; else the general
    /// suffix inside the nesting bookkeeping (the caller checked `depth < MAX_DEPTH`, so `enter`
    /// succeeds as on the general path).
    #[inline]
    pub(super) fn fast_type_suffix(&mut self, id: TypeId) -> PResult<TypeId> {
        if !(self.is(Tok::LParen) || self.is(Tok::Star) || self.is_word("addrspace")) {
            return Ok(id);
        }
        self.enter()?;
        let r = self.type_suffix(id);
        self.leave();
        r
    }

    /// `ptr addrspace(asp)`, interned once per small address space.
    #[inline]
    pub(super) fn ptr_type(&mut self, asp: u32) -> TypeId {
        match self.ptr_types.get(asp as usize) {
            Some(&Some(id)) => id,
            _ => {
                let id = self.simple_type(Type::Ptr(asp));
                if let Some(slot) = self.ptr_types.get_mut(asp as usize) {
                    *slot = Some(id);
                }
                id
            }
        }
    }

    pub(super) fn parse_type_inner(&mut self) -> PResult<TypeId> {
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
                        let p = self.ptr_type(asp);
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
    pub(super) fn type_suffix(&mut self, mut id: TypeId) -> PResult<TypeId> {
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

    pub(super) fn struct_body(&mut self, packed: bool) -> PResult<TypeId> {
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

    pub(super) fn target_ext_type(&mut self) -> PResult<TypeId> {
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

    pub(super) fn opt_addrspace(&mut self) -> PResult<u32> {
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

    pub(super) fn parse_named_type(&mut self) -> PResult<()> {
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
}
