//! Module-level items other than functions and metadata: target lines, `uselistorder`, global
//! variables and aliases, and the global-symbol table that lets items be used before they are
//! defined (provisional ids, rewritten by `finish`).

use super::*;

impl<'s> Parser<'s> {
    pub(super) fn gsym(&mut self, key: LocalKey<'s>, span: Span) -> u32 {
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

    pub(super) fn global_value(&mut self, t: Token) -> PResult<Value> {
        let i = self.gsym_of(t)?;
        Ok(match self.gsyms[i as usize].def {
            GDef::Global(g) => Value::Global(GlobalId(g)),
            GDef::Func(f) => Value::Func(FuncId(f)),
            GDef::None => {
                self.remap = true;
                Value::Global(GlobalId(HIGH | i))
            }
        })
    }

    pub(super) fn global_const(&mut self, t: Token) -> PResult<ConstId> {
        let i = self.gsym_of(t)?;
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

    pub(super) fn define_gsym(&mut self, t: Token, def: GDef) -> PResult<()> {
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

    pub(super) fn parse_target(&mut self) -> PResult<()> {
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

    pub(super) fn skip_uselistorder(&mut self) -> PResult<()> {
        // `uselistorder T v, { 1, 0 }` / `uselistorder_bb @f, %bb, { ... }`: use-list orders are not
        // modelled (predecessor order follows the textual order of the parsed file).
        while !matches!(self.tok.kind, Tok::LBrace | Tok::Eof) {
            self.bump();
        }
        self.skip_braces()
    }

    /// Linkage, preemption, visibility, DLL storage, thread-local, unnamed_addr prefixes.
    pub(super) fn parse_global_prefix(&mut self) -> PResult<Option<Sym>> {
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

    pub(super) fn parse_global(&mut self) -> PResult<()> {
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
    pub(super) fn global_trailer(&mut self) -> PResult<()> {
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
}
