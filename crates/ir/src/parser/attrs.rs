//! Attributes: inline attribute lists, `#N` group references deferred until the groups are read,
//! and `attributes #N = { ... }` definitions.

use super::*;

impl<'s> Parser<'s> {
    pub(super) fn is_attr_start(&self) -> bool {
        match self.tok.kind {
            Tok::Str | Tok::AttrGrpId => true,
            Tok::Ident => {
                let w = self.cur();
                // The type test first: most words here are types, and it needs no hashing.
                !is_type_word(w) && !self.not_attr.contains_key(w)
            }
            _ => false,
        }
    }

    /// Parses one attribute into [`Module::attrs`] (or a `#N` reference into `group_refs`).
    /// Returns false if the current token starts no attribute.
    pub(super) fn parse_attr(&mut self, in_group: bool) -> PResult<bool> {
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

    pub(super) fn skip_one_attr(&mut self) -> PResult<bool> {
        let mark = self.m.attrs.len();
        let gmark = self.group_refs.len();
        let r = self.parse_attr(false)?;
        self.m.attrs.truncate(mark);
        self.group_refs.truncate(gmark);
        Ok(r)
    }

    /// Parses attributes until none follows; returns the range of inline attributes.
    pub(super) fn parse_attrs(&mut self) -> PResult<Range32> {
        let start = self.m.attrs.len() as u32;
        while self.parse_attr(false)? {}
        Ok(Range32 {
            start,
            end: self.m.attrs.len() as u32,
        })
    }

    pub(super) fn defer_attrs(&mut self, target: AttrTarget, inline: Range32, gmark: usize) {
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

    pub(super) fn parse_attr_group(&mut self) -> PResult<()> {
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
}
