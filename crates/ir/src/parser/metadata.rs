//! Metadata: `!N = ...` and `!name = !{...}` definitions, inline nodes and strings, metadata as
//! call operands, and instruction attachments.

use super::*;

impl<'s> Parser<'s> {
    pub(super) fn md_number(&mut self, t: Token) -> PResult<u32> {
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

    pub(super) fn md_use(&mut self, n: u32, span: Span) -> MdId {
        if self.md_state[n as usize] == 0 {
            self.md_state[n as usize] = 1;
            self.md_first_use.insert(n, span);
        }
        MdId(n)
    }

    pub(super) fn inline_node(&mut self, m: Metadata) -> MdId {
        let id = self.inline_md.len() as u32;
        self.inline_md.push(m);
        self.remap = true;
        MdId(HIGH | id)
    }

    /// A metadata reference: `!N`, `!{...}`, `!"s"`, `!DIFoo(...)`.
    pub(super) fn parse_md_ref(&mut self) -> PResult<MdId> {
        self.parse_md_operand(None)
    }

    /// Any metadata operand; `f` is the enclosing function for `metadata i32 %x` forms.
    pub(super) fn parse_md_operand(&mut self, f: Option<&mut Function>) -> PResult<MdId> {
        self.enter()?;
        let r = self.parse_md_operand_inner(f);
        self.leave();
        r
    }

    pub(super) fn parse_md_operand_inner(&mut self, f: Option<&mut Function>) -> PResult<MdId> {
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
                                self.check_written(f, v, ty);
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
                                    want: ty,
                                    inst: f.insts.len() as u32,
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
    pub(super) fn md_tuple(&mut self, mut f: Option<&mut Function>) -> PResult<Range32> {
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

    pub(super) fn parse_numbered_metadata(&mut self) -> PResult<()> {
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

    pub(super) fn parse_named_metadata(&mut self) -> PResult<()> {
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
    pub(super) fn md_attachment(&mut self, f: &mut Function) -> PResult<()> {
        let t = self.bump();
        let kind = self.md_kind_sym(t);
        let m = self.parse_md_ref()?;
        f.md_attachments.push((kind, m));
        Ok(())
    }

    // ---------------------------------------------------------------- the end
}
