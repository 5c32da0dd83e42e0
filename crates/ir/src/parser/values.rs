//! Operands inside a function body: local and global references, typed operands, constants as
//! operands, and block references.

use super::locals::Probe;
use super::*;

impl<'s> Parser<'s> {
    pub(super) fn parse_local_ref(&mut self) -> PResult<Val<'s>> {
        let t = self.bump();
        let key = self.lkey(t)?;
        let l = self.locals.get(&key);
        Ok(match l {
            Some(Local::Arg(a)) => Val::Ready(Value::Arg(a)),
            Some(Local::Inst(i)) => Val::Ready(Value::Inst(InstId(i))),
            Some(Local::Block(k)) => match self.block_names[k as usize].block {
                b if b < NAMES_A_VALUE => Val::Ready(Value::Block(Block(b))),
                // Referenced as a block, not defined yet: a forward reference like any other.
                _ => Val::Fwd(key, Self::span(t)),
            },
            None => Val::Fwd(key, Self::span(t)),
        })
    }

    /// A value of type `ty` inside a function: locals, globals, constants, inline asm, metadata.
    pub(super) fn parse_value(&mut self, f: &mut Function, ty: TypeId) -> PResult<Val<'s>> {
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

    /// Pushes an operand written as a `ty` (checked against a local's definition, see
    /// [`WrongType`]).
    pub(super) fn push_operand(&mut self, f: &mut Function, v: Val<'s>, ty: TypeId) {
        let idx = f.operands.len() as u32;
        match v {
            Val::Ready(v) => {
                self.check_written(f, v, ty);
                // No facts for this function (see `ReadFacts`).
                self.block_operand |= matches!(v, Value::Block(_));
                f.operands.push(v)
            }
            Val::Fwd(key, span) => {
                // A forward reference may need the dominator tree (`ReadFacts`).
                self.note_far_use(f);
                f.operands.push(PENDING);
                self.fixups.push(Fixup {
                    key,
                    target: FixTarget::Operand(idx),
                    span,
                    want: ty,
                    inst: f.insts.len() as u32,
                });
            }
        }
    }

    pub(super) fn operand(&mut self, f: &mut Function, ty: TypeId) -> PResult<()> {
        if matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
            let t = self.bump();
            return self.local_operand(f, t, ty);
        }
        // A small `i32`/`i64` constant (a phi's incoming value, a compare's bound): what
        // `parse_value` gives for it, without its dispatch and `parse_const`'s nesting count (an
        // instruction's operand is at the top level, and an integer nests nothing).
        if self.tok.kind == Tok::Integer {
            let t = self.tok;
            if let Some(c) = self.small_int_const(t, ty) {
                self.bump();
                f.operands.push(Value::Const(c));
                return Ok(());
            }
        }
        let v = self.parse_value(f, ty)?;
        self.push_operand(f, v, ty);
        Ok(())
    }

    /// The local name token `t` (already consumed) as an operand written as a `ty`: the commonest
    /// operand, pushed directly (the same as `parse_local_ref` and `push_operand`, without passing
    /// a `Val` through memory).
    ///
    /// A plain name the name map's cache holds as an argument or an instruction (most operands:
    /// a value defined shortly before) is pushed here, inlined into the caller; the rest goes
    /// to [`Parser::local_operand_slow`].
    #[inline(always)]
    pub(super) fn local_operand(&mut self, f: &mut Function, t: Token, ty: TypeId) -> PResult<()> {
        if !self.lines_off()
            && t.kind == Tok::LocalVar
            && let Some(v) = self
                .locals
                .cached_at(t.start as usize + 1, t.end as usize)
                .and_then(locals::packed_value)
        {
            self.took(lines::CACHED_VALUE);
            self.check_written(f, v, ty);
            f.operands.push(v);
            return Ok(());
        }
        self.local_operand_slow(f, t, ty)
    }

    /// [`Parser::local_operand`] behind the cache: a plain name the structures behind it hold as
    /// an argument or an instruction, or show undefined yet (a forward reference), is pushed
    /// without building a key for the general lookup ([`locals::LocalMap::probe_at`]: a numbered
    /// name used far from its definition in a large function, or an argument the numbered names
    /// evicted from the cache); the rest through the name map's full lookup.
    #[inline(never)]
    fn local_operand_slow(&mut self, f: &mut Function, t: Token, ty: TypeId) -> PResult<()> {
        let probe = if !self.lines_off() && t.kind == Tok::LocalVar {
            self.locals.probe_at(t.start as usize + 1, t.end as usize)
        } else {
            Probe::Unknown
        };
        if let Probe::Found(v) = probe
            && let Some(v) = locals::packed_value(v)
        {
            self.took(lines::FOUND_VALUE);
            self.check_written(f, v, ty);
            f.operands.push(v);
            return Ok(());
        }
        {
            let key = self.lkey(t)?;
            let idx = f.operands.len() as u32;
            let local = if probe == Probe::Absent {
                self.took(lines::FORWARD);
                None
            } else {
                self.locals.get(&key)
            };
            // The written type is compared with the definition's here (forward references:
            // when they are resolved), as LLVM's reader does.
            match local {
                Some(Local::Arg(a)) => {
                    self.check_written(f, Value::Arg(a), ty);
                    f.operands.push(Value::Arg(a))
                }
                Some(Local::Inst(i)) => {
                    self.check_written(f, Value::Inst(InstId(i)), ty);
                    f.operands.push(Value::Inst(InstId(i)))
                }
                Some(Local::Block(k)) if self.block_names[k as usize].block < NAMES_A_VALUE => {
                    let b = self.block_names[k as usize].block;
                    self.block_operand = true;
                    f.operands.push(Value::Block(Block(b)))
                }
                _ => {
                    // A forward reference may need the dominator tree (`ReadFacts`).
                    self.note_far_use(f);
                    f.operands.push(PENDING);
                    self.fixups.push(Fixup {
                        key,
                        target: FixTarget::Operand(idx),
                        span: Self::span(t),
                        want: ty,
                        inst: f.insts.len() as u32,
                    });
                }
            }
        }
        Ok(())
    }

    /// `T v`: returns the type.
    pub(super) fn typed_operand(&mut self, f: &mut Function) -> PResult<TypeId> {
        if let Some((ty, name)) = self.type_local_fast() {
            self.local_operand(f, name, ty)?;
            return Ok(ty);
        }
        let ty = self.parse_type()?;
        self.operand(f, ty)?;
        Ok(ty)
    }

    pub(super) fn block_ref(&mut self, f: &mut Function) -> PResult<()> {
        if let Some(t) = self.label_name_fast() {
            return self.block_name_tok(f, t);
        }
        if !self.eat_word("label") {
            return self.err("expected `label %block`");
        }
        if !matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
            return self.err("expected a block name `%name`");
        }
        self.block_name_ref(f)
    }

    /// The block named by the current token, appended to `f.block_refs` (as its name's index in
    /// `block_names` until the body's end).
    pub(super) fn block_name_ref(&mut self, f: &mut Function) -> PResult<()> {
        let t = self.bump();
        self.block_name_tok(f, t)
    }

    /// [`Parser::block_name_ref`] for the name token `t`, already consumed: a name seen for the
    /// first time is entered as a block name (see [`BlockName`]).
    ///
    /// A plain name the name map's cache holds as a block name (every reference after a block's
    /// first sight, usually) is pushed here, inlined into the caller, as
    /// [`Parser::block_name_tok_slow`] would push it after its lookup (which the cache answers the
    /// same way); the rest goes there.
    #[inline(always)]
    pub(super) fn block_name_tok(&mut self, f: &mut Function, t: Token) -> PResult<()> {
        if !self.lines_off() && t.kind == Tok::LocalVar {
            let new = self.block_names.len() as u32;
            match self
                .locals
                .block_probe_at(t.start as usize + 1, t.end as usize, new)
            {
                Some(Ok(v)) => {
                    if let Some(k) = locals::packed_block(v) {
                        self.took(lines::CACHED_BLOCK);
                        self.locals.forget_split();
                        f.block_refs.push(Block(k));
                        return Ok(());
                    }
                }
                Some(Err(())) => {
                    // What `block_name_tok_slow` does after `get_or_insert` entered the name.
                    self.took(lines::FIRST_SIGHT);
                    self.first_block_sight(t);
                    f.block_refs.push(Block(new));
                    return Ok(());
                }
                None => {}
            }
        }
        self.block_name_tok_slow(f, t)
    }

    /// Records a block name seen for the first time, at `t`, just entered into the name map.
    #[inline(always)]
    fn first_block_sight(&mut self, t: Token) {
        self.block_names.push(BlockName {
            block: UNDEFINED,
            before: self.fixups.len() as u32,
            first: t,
            split: self.locals.last_split(),
        });
    }

    /// [`Parser::block_name_tok`] through the name map's full lookup.
    #[inline(never)]
    fn block_name_tok_slow(&mut self, f: &mut Function, t: Token) -> PResult<()> {
        let key = self.lkey(t)?;
        let new = self.block_names.len() as u32;
        match self.locals.get_or_insert(key, Local::Block(new)) {
            Some(Local::Block(k)) => f.block_refs.push(Block(k)),
            None => {
                self.first_block_sight(t);
                f.block_refs.push(Block(new));
            }
            Some(_) => {
                return Err(Box::new(
                    Diagnostic::error(
                        "expected a basic block label, but this names a value",
                        Self::span(t),
                    )
                    .with_code("E-parse"),
                ));
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- constants
}
