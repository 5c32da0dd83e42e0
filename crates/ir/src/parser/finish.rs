//! Module completion: checks of what could only be checked at the end (undefined symbols, groups
//! and metadata), and the final pass that rewrites provisional ids.

use super::*;

impl<'s> Parser<'s> {
    pub(super) fn finish(mut self) -> PResult<Module> {
        // Undefined globals, named types, metadata.
        for i in 0..self.gsyms.len() {
            let g = self.gsyms[i];
            if g.def != GDef::None {
                continue;
            }
            // LLVM declares intrinsics that are called but never declared.
            let name = match g.key {
                LocalKey::Name(s) => Some(s),
                LocalKey::Src(_) | LocalKey::Num(_) => None,
            };
            let is_intrinsic = name.is_some_and(|s| self.m.strings.resolve(s).starts_with("llvm."));
            match (is_intrinsic, g.call_ty, name) {
                (true, Some(fty), Some(name)) => {
                    let Type::Func {
                        ret,
                        params,
                        vararg,
                    } = self.ty(fty).clone()
                    else {
                        unreachable!("call types are function types")
                    };
                    let fid = self.m.functions.len() as u32;
                    let mut f = empty_function(name, ret);
                    f.vararg = vararg;
                    f.span = g.first_use;
                    for p in params.range() {
                        let ty = self.m.types.lists[p];
                        f.params.push(Param {
                            ty,
                            name: LocalName::None,
                            attrs: Range32::default(),
                            span: g.first_use,
                        });
                    }
                    self.m.functions.push(f);
                    self.gsyms[i].def = GDef::Func(fid);
                    if g.konst != u32::MAX {
                        self.m.consts[g.konst as usize].kind = ConstKind::Func(FuncId(fid));
                    }
                }
                _ => {
                    let name = self.key_text(g.key);
                    return Err(Box::new(
                        Diagnostic::error(
                            format!("use of undefined global value `@{name}`"),
                            g.first_use,
                        )
                        .with_code("E-parse"),
                    ));
                }
            }
        }
        for (i, (_, body)) in self.m.types.named.iter().enumerate() {
            let _ = (i, body);
        }
        let mut undefined: Vec<(u32, Span)> = self
            .md_first_use
            .iter()
            .filter(|(n, _)| self.md_state[**n as usize] != 2)
            .map(|(n, s)| (*n, *s))
            .collect();
        undefined.sort_by_key(|(_, s)| s.start);
        if let Some((n, span)) = undefined.first() {
            return Err(Box::new(
                Diagnostic::error(format!("use of undefined metadata `!{n}`"), *span)
                    .with_code("E-parse"),
            ));
        }
        // Attribute groups.
        for d in std::mem::take(&mut self.deferred) {
            let start = self.m.attrs.len() as u32;
            for i in d.inline.range() {
                let a = self.m.attrs[i];
                self.m.attrs.push(a);
            }
            for gi in d.groups.range() {
                let (n, span) = self.group_refs[gi];
                // LLVM accepts references to attribute groups that are never defined.
                let _ = span;
                let Some(r) = self.groups.get(&n).copied() else {
                    continue;
                };
                for i in r.range() {
                    let a = self.m.attrs[i];
                    self.m.attrs.push(a);
                }
            }
            let r = Range32 {
                start,
                end: self.m.attrs.len() as u32,
            };
            match d.target {
                AttrTarget::Function(f) => self.m.functions[f as usize].attrs = r,
                AttrTarget::Call(f, c) => {
                    self.m.functions[f as usize].calls[c as usize].fn_attrs = r
                }
            }
        }
        // Block addresses.
        for (c, g, key, span) in std::mem::take(&mut self.blockaddrs) {
            let GDef::Func(fid) = self.gsyms[g as usize].def else {
                return Err(Box::new(
                    Diagnostic::error("`blockaddress` must name a function", span)
                        .with_code("E-parse"),
                ));
            };
            let f = &self.m.functions[fid as usize];
            let found = f.blocks.iter().position(|b| match (key, b.name()) {
                (LocalKey::Name(s), LocalName::Named(t)) => s == t,
                (LocalKey::Num(n), LocalName::Slot(t)) => n == t,
                _ => false,
            });
            let Some(b) = found else {
                return Err(Box::new(
                    Diagnostic::error(
                        "`blockaddress` names a block that the function does not have",
                        span,
                    )
                    .with_code("E-parse"),
                ));
            };
            self.m.consts[c.0 as usize].kind =
                ConstKind::BlockAddress(FuncId(fid), Block(b as u32));
        }
        // Metadata layout: numbered nodes at their number, then the inline nodes.
        let first_inline = self.m.metadata.len() as u32;
        self.m.first_inline_md = first_inline;
        let inline = std::mem::take(&mut self.inline_md);
        self.m.metadata.extend(inline);
        if self.remap {
            self.remap_ids(first_inline);
        }
        Ok(self.m)
    }

    pub(super) fn remap_ids(&mut self, first_inline: u32) {
        let gsyms = &self.gsyms;
        let fix_md = |id: &mut MdId| {
            if id.0 & HIGH != 0 {
                id.0 = first_inline + (id.0 & !HIGH);
            }
        };
        let fix_val = |v: &mut Value| match v {
            Value::Global(g) if g.0 & HIGH != 0 => {
                *v = match gsyms[(g.0 & !HIGH) as usize].def {
                    GDef::Func(f) => Value::Func(FuncId(f)),
                    GDef::Global(x) => Value::Global(GlobalId(x)),
                    GDef::None => *v,
                }
            }
            Value::Meta(m) => fix_md(m),
            _ => {}
        };
        for f in &mut self.m.functions {
            f.operands.iter_mut().for_each(fix_val);
            for c in &mut f.calls {
                fix_val(&mut c.callee);
            }
            for (_, m) in &mut f.md_attachments {
                fix_md(m);
            }
        }
        for c in &mut self.m.consts {
            if let ConstKind::Global(g) = c.kind
                && g.0 & HIGH != 0
            {
                c.kind = match gsyms[(g.0 & !HIGH) as usize].def {
                    GDef::Func(f) => ConstKind::Func(FuncId(f)),
                    GDef::Global(x) => ConstKind::Global(GlobalId(x)),
                    GDef::None => c.kind.clone(),
                }
            }
        }
        for m in &mut self.m.metadata {
            match m {
                Metadata::Value(_, v) => fix_val(v),
                Metadata::Node(id) => fix_md(id),
                _ => {}
            }
        }
        self.m.md_lists.iter_mut().for_each(fix_md);
    }
}
