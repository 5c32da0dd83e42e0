//! Constants: integers of any width, floats in every LLVM spelling, aggregates, `zeroinitializer`
//! and friends, constant expressions and `blockaddress`; simple constants are interned.

use super::*;

impl<'s> Parser<'s> {
    pub(super) fn push_const(&mut self, ty: TypeId, kind: ConstKind) -> ConstId {
        let id = ConstId(self.m.consts.len() as u32);
        self.m.consts.push(Const { ty, kind });
        id
    }

    pub(super) fn simple_const(&mut self, ty: TypeId, tag: u8, kind: ConstKind) -> ConstId {
        if let Some(&c) = self.simple_consts.get(&(ty, tag)) {
            return c;
        }
        let c = self.push_const(ty, kind);
        self.simple_consts.insert((ty, tag), c);
        c
    }

    pub(super) fn int_const(&mut self, ty: TypeId, value: u128, wide: bool) -> ConstId {
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

    pub(super) fn int_width(&self, ty: TypeId) -> Option<u32> {
        match self.ty(ty) {
            Type::Int(n) => Some(*n),
            Type::Vector { elem, .. } => self.int_width(*elem),
            _ => None,
        }
    }

    pub(super) fn parse_int_text(&self, t: Token, width: u32) -> PResult<(u128, bool)> {
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

    pub(super) fn float_bits(&self, t: Token, ty: TypeId) -> PResult<u64> {
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

    pub(super) fn parse_const_inner(&mut self, ty: TypeId) -> PResult<ConstId> {
        let t = self.tok;
        match t.kind {
            Tok::Integer => {
                self.bump();
                if let Some(c) = self.small_int_const(t, ty) {
                    return Ok(c);
                }
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
                let bits = self.float_bits_cached(t, ty)?;
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

    pub(super) fn aggregate(&mut self, ty: TypeId, close: Tok) -> PResult<ConstId> {
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

    pub(super) fn const_word(&mut self, ty: TypeId) -> PResult<ConstId> {
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

    pub(super) fn const_expr(&mut self, ty: TypeId) -> PResult<ConstId> {
        let t = self.tok;
        let w = self.cur();
        let mut flags = 0u16;
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

    pub(super) fn expr_const(
        &mut self,
        ty: TypeId,
        op: Opcode,
        ops: &[ConstId],
        aux: u32,
        flags: u16,
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
