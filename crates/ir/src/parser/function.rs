//! Function declarations and definitions: the header (linkage, calling convention, attributes,
//! parameters), the body's blocks, local numbering and the fix-ups of forward references.

use super::*;
use crate::ir::make_room;

impl<'s> Parser<'s> {
    pub(super) fn parse_cc(&mut self) -> PResult<CallConv> {
        if !self.is(Tok::Ident) {
            return Ok(CallConv::C);
        }
        let w = self.cur();
        if w == b"ccc" {
            self.bump();
            return Ok(CallConv::C);
        }
        // Most call sites start with their return type: skip the list scan for type words.
        if is_type_word(w) || !CALL_CONVS.iter().any(|c| c.as_bytes() == w) {
            return Ok(CallConv::C);
        }
        let t = self.bump();
        let text = if self.text(t) == b"cc" {
            let n = self.expect_u32()?;
            if n == 0 {
                return Ok(CallConv::C);
            }
            format!("cc {n}")
        } else {
            String::from_utf8_lossy(self.text(t)).into_owned()
        };
        Ok(CallConv::Named(self.intern_text(&text)))
    }

    pub(super) fn parse_function(&mut self, is_def: bool) -> PResult<()> {
        let start = self.bump().start;
        let fid = self.m.functions.len() as u32;
        let mut f = empty_function(Sym(0), self.ty_void);
        let md_start = self.m.functions.len();
        let _ = md_start;
        // `declare !dbg !1 void @f()`: attachments before the header.
        let mut pre_md: Vec<(Sym, MdId)> = Vec::new();
        while self.is(Tok::MetadataVar) {
            let t = self.bump();
            let kind = self.name_sym(t);
            let md = self.parse_md_ref()?;
            pre_md.push((kind, md));
        }
        f.linkage = self.parse_global_prefix()?;
        f.cc = self.parse_cc()?;
        let gmark = self.group_refs.len();
        f.ret_attrs = self.parse_attrs()?;
        self.group_refs.truncate(gmark);
        f.ret_ty = self.parse_type()?;
        let name_tok = self.tok;
        if !matches!(name_tok.kind, Tok::GlobalVar | Tok::GlobalId) {
            return self.err("expected a function name `@name`");
        }
        self.bump();
        f.name = self.name_sym(name_tok);
        self.define_gsym(name_tok, GDef::Func(fid))?;
        self.cur_func = fid;
        // Parameters.
        self.locals.clear();
        self.fixups.clear();
        self.next_src_num = 0;
        self.next_slot = 0;
        self.expect(Tok::LParen, "`(` before parameters")?;
        if !self.is(Tok::RParen) {
            loop {
                if self.eat(Tok::DotDotDot) {
                    f.vararg = true;
                    break;
                }
                let pstart = self.tok.start;
                let ty = self.parse_type()?;
                let attrs = self.parse_attrs()?;
                let idx = f.params.len() as u32;
                let name = match self.tok.kind {
                    Tok::LocalVar => {
                        let t = self.bump();
                        let k = self.lkey(t)?;
                        if self.locals.insert(k, Local::Arg(idx)).is_some() {
                            return Err(Box::new(
                                Diagnostic::error(
                                    "redefinition of a parameter name",
                                    Self::span(t),
                                )
                                .with_code("E-parse"),
                            ));
                        }
                        let s = self.def_sym(k);
                        LocalName::Named(s)
                    }
                    Tok::LocalId => {
                        let t = self.bump();
                        let n = self.u32_of(Token {
                            start: t.start + 1,
                            ..t
                        })?;
                        self.define_num(n, Local::Arg(idx), Self::span(t))?;
                        self.slot()
                    }
                    _ => {
                        let n = self.next_src_num;
                        self.locals.insert(LocalKey::Num(n), Local::Arg(idx));
                        self.next_src_num += 1;
                        self.slot()
                    }
                };
                f.params.push(Param {
                    ty,
                    name,
                    attrs,
                    span: Span {
                        start: pstart,
                        end: self.prev_end,
                    },
                });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "`)` after parameters")?;
        // Function attributes and the rest of the header.
        let gmark = self.group_refs.len();
        let attr_start = self.m.attrs.len() as u32;
        let mut md: Vec<(Sym, MdId)> = pre_md;
        loop {
            if self.parse_attr(false)? {
                continue;
            }
            match self.tok.kind {
                Tok::MetadataVar => {
                    let t = self.bump();
                    let kind = self.name_sym(t);
                    let m = self.parse_md_ref()?;
                    md.push((kind, m));
                }
                Tok::Ident => match self.cur() {
                    b"unnamed_addr" | b"local_unnamed_addr" => {
                        self.bump();
                    }
                    b"addrspace" => {
                        self.opt_addrspace()?;
                    }
                    b"section" | b"partition" | b"gc" => {
                        self.bump();
                        self.expect_str()?;
                    }
                    b"comdat" => {
                        self.bump();
                        if self.is(Tok::LParen) {
                            self.skip_parens()?;
                        }
                    }
                    b"prefix" | b"prologue" | b"personality" => {
                        self.bump();
                        let ty = self.parse_type()?;
                        self.parse_const(ty)?;
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        f.attrs = Range32 {
            start: attr_start,
            end: self.m.attrs.len() as u32,
        };
        self.defer_attrs(AttrTarget::Function(fid), f.attrs, gmark);
        f.md_attachments = md;
        f.md = Range32 {
            start: 0,
            end: f.md_attachments.len() as u32,
        };
        self.m.functions.push(f);
        if is_def {
            self.m.functions[fid as usize].is_declaration = false;
            self.parse_body(fid)?;
        }
        let f = &mut self.m.functions[fid as usize];
        f.span = Span {
            start,
            end: self.prev_end,
        };
        Ok(())
    }

    /// Allocates the next printer slot number (LLVM's `ModuleSlotTracker` order).
    pub(super) fn slot(&mut self) -> LocalName {
        let s = self.next_slot;
        self.next_slot += 1;
        LocalName::Slot(s)
    }

    pub(super) fn define_num(&mut self, n: u32, l: Local, span: Span) -> PResult<()> {
        // LLVM 20+ accepts gaps in the numbering; numbers must still increase.
        if n < self.next_src_num {
            return Err(Box::new(
                Diagnostic::error(
                    format!(
                        "numbered value `%{n}` out of order: expected %{} or greater",
                        self.next_src_num
                    ),
                    span,
                )
                .with_code("E-parse"),
            ));
        }
        self.next_src_num = n + 1;
        let prev = self.locals.insert(LocalKey::Num(n), l);
        // A number is defined once (they increase): the only possible previous entry is a block
        // reference's.
        self.redefines(prev);
        Ok(())
    }

    /// [`Parser::define_num`] for block `bidx`'s label `n:` (or its implicit number `n`).
    fn define_block_num(&mut self, n: u32, bidx: u32, span: Span) -> PResult<()> {
        if n < self.next_src_num {
            return self.define_num(n, Local::Block(0), span);
        }
        self.next_src_num = n + 1;
        let key = LocalKey::Num(n);
        if !self.define_block(key, bidx, span) {
            // Never: numbers increase, so `n` named nothing but a block not defined yet. Replaced
            // like any other number's entry.
            let new = self.new_block_name(bidx, span);
            self.locals.insert(key, Local::Block(new));
        }
        Ok(())
    }

    /// Defines the block name `key` as block `bidx` at its label (`span`): the entry its first
    /// reference made, or a new one. `false` if the name is defined already (a value or a block).
    #[inline(always)]
    fn define_block(&mut self, key: LocalKey<'s>, bidx: u32, span: Span) -> bool {
        let new = self.block_names.len() as u32;
        match self.locals.get_or_insert(key, Local::Block(new)) {
            None => {
                self.new_block_name(bidx, span);
                true
            }
            Some(Local::Block(k)) if self.block_names[k as usize].block == UNDEFINED => {
                let name = &mut self.block_names[k as usize];
                name.block = bidx;
                // The symbol cached for the name, found through the entry's split (the lookup
                // may have been answered by the cache, which does not split).
                self.locals.set_last_split(name.split);
                true
            }
            Some(_) => false,
        }
    }

    /// The label token `t` (`name:`, unquoted) defined as block `bidx` through the name map's
    /// cache probe by offsets ([`locals::LocalMap::block_probe_at`]), as [`Parser::define_block`]
    /// and [`Parser::def_sym`] define it: a name referenced before (the cache's entry, a block name
    /// not defined yet) or seen for the first time (entered by the probe); its symbol. `None`
    /// with nothing changed for anything else (a quoted name, a name the cache does not answer,
    /// a redefinition), which the general path reads.
    #[inline(always)]
    fn label_fast(&mut self, t: Token, bidx: u32) -> Option<Sym> {
        if self.lines_off() {
            return None;
        }
        let (s, e) = (t.start as usize, (t.end as usize).wrapping_sub(1));
        let new = self.block_names.len() as u32;
        match self.locals.block_probe_at(s, e, new)? {
            Ok(v) => {
                let name = self
                    .block_names
                    .get_mut(locals::packed_block(v)? as usize)?;
                if name.block != UNDEFINED {
                    return None;
                }
                name.block = bidx;
                let split = name.split;
                // What `define_block` restores after its lookup (see there).
                self.locals.set_last_split(split);
            }
            Err(()) => {
                self.new_block_name(bidx, Self::span(t));
            }
        }
        self.took(lines::LABEL);
        Some(match self.locals.last_sym() {
            Some(sym) => sym,
            None => self.def_sym_new(LocalKey::Src(self.src.get(s..e).unwrap_or(""))),
        })
    }

    /// Appends a block name defined as block `bidx` at the label `span` (the name map's entry:
    /// the last insert) and returns its index.
    fn new_block_name(&mut self, bidx: u32, span: Span) -> u32 {
        self.block_names.push(BlockName {
            block: bidx,
            before: 0,
            first: Token {
                start: span.start,
                end: span.end,
                kind: Tok::LabelStr,
            },
            split: self.locals.last_split(),
        });
        self.block_names.len() as u32 - 1
    }

    /// Whether `prev`, the entry a value's definition replaced, makes it a redefinition. A name so
    /// far only referenced as a block is not one: the reference is the error, reported at the
    /// body's end in its order (see [`Parser::resolve_fixups`]).
    #[inline]
    pub(super) fn redefines(&mut self, prev: Option<Local>) -> bool {
        match prev {
            None => false,
            Some(Local::Block(k)) if self.block_names[k as usize].block == UNDEFINED => {
                self.block_names[k as usize].block = NAMES_A_VALUE;
                false
            }
            Some(_) => true,
        }
    }

    pub(super) fn parse_body(&mut self, fid: u32) -> PResult<()> {
        self.body_start = self.tok.start as usize;
        self.body_end = usize::MAX;
        self.resize_at = self.body_start + RESIZE_AFTER;
        self.expect(Tok::LBrace, "`{` to start the function body")?;
        let mut f = std::mem::replace(
            &mut self.m.functions[fid as usize],
            empty_function(Sym(0), self.ty_void),
        );
        // Parse straight into the function's pools, reserved at twice the previous body's sizes
        // (few growth copies), then shrunk to size in place: no copy of the finished pools.
        reserve_pools(&mut f, &self.pool_sizes);
        self.grow_at = 0;
        self.pending_names.clear();
        self.block_names.clear();
        self.facts.far.clear();
        self.facts.has_phi = false;
        self.facts.phi_misplaced = false;
        self.facts.unchecked.clear();
        self.phis.clear();
        self.terms.clear();
        self.block_operand = false;
        let r = self.parse_blocks(&mut f).and_then(|()| {
            self.expect(Tok::RBrace, "`}` at the end of the function body")?;
            self.name_insts(&mut f);
            self.resolve_fixups(&mut f)
        });
        if r.is_ok() && !self.block_operand {
            // The predecessor and phi rules while the body's records are still in cache: after
            // the read, the checks would fetch them again from memory (issue 13).
            #[cfg(test)]
            {
                // What the reader recorded is where the finished function has them.
                let (terms, phis) = crate::wellformed::read_preds::shape_of(&f);
                assert_eq!(self.terms, terms, "terminators' block references");
                assert_eq!(self.phis, phis, "phis' block references");
            }
            let shape = crate::wellformed::read_preds::Shape {
                terms: &self.terms,
                phis: &self.phis,
            };
            let preds_ok = crate::wellformed::preds_and_phis_ok(
                &f,
                self.facts.has_phi,
                self.facts.phi_misplaced,
                shape,
                &mut self.checks,
            );
            // The type checks of the lines not vouched for, likewise: all passing, the checks
            // after the read have none to make.
            if crate::wellformed::listed_types_ok(&self.m, &f, &self.facts.unchecked) {
                self.facts.unchecked.clear();
                // The dominance check too, when it is all that is left to check in the function
                // (no operand written with a wrong type, the rules above kept): its CFG and
                // dominator tree built from records still in cache.
                if preds_ok
                    && !self.facts.far.is_empty()
                    && self
                        .wrong_types
                        .last()
                        .is_none_or(|w| w.func != self.cur_func)
                    && crate::wellformed::far_uses_dominated(&f, &self.facts.far, &mut self.checks)
                {
                    self.facts.far.clear();
                }
            }
            self.read_facts.push(ReadFacts {
                func: fid,
                far: self.facts.far.clone(),
                has_phi: self.facts.has_phi,
                phi_misplaced: self.facts.phi_misplaced,
                unchecked: self.facts.unchecked.clone(),
                preds_ok,
            });
        }
        self.pool_sizes = shrink_pools(&mut f);
        self.m.functions[fid as usize] = f;
        r
    }

    /// Interns the names of the body's named instructions in one loop. Each lookup in the name
    /// cache is a likely cache miss (names recur across the module in no order); done back to back,
    /// independent of the parse, the misses overlap instead of stalling the parse one at a time.
    ///
    /// The names are taken in chunks: a first pass hashes a chunk's names and touches their first
    /// probe slots (short independent iterations, so the processor overlaps the misses), the second
    /// interns them with those slots in cache. Both tables are grown once up front.
    pub(super) fn name_insts(&mut self, f: &mut Function) {
        let pending = std::mem::take(&mut self.pending_names);
        self.m.strings.reserve(pending.len());
        let mut hashes = [0u64; 32];
        for chunk in pending.chunks(32) {
            let mut touched = 0u32;
            for (h, &(_, s, _)) in hashes.iter_mut().zip(chunk) {
                *h = crate::fx::text_hash(s);
                touched = touched.wrapping_add(self.m.strings.touch(*h));
            }
            std::hint::black_box(touched);
            for (&h, &(id, s, split)) in hashes.iter().zip(chunk) {
                let sym = self.m.strings.intern_hashed(h, s);
                // The split kept at the definition: the name is not split again.
                self.locals.remember_split_sym(split, sym);
                f.insts[id as usize].set_name(LocalName::Named(sym));
            }
        }
        self.pending_names = pending;
    }

    pub(super) fn parse_blocks(&mut self, f: &mut Function) -> PResult<()> {
        if self.is(Tok::RBrace) {
            return self.err("expected at least one basic block in a function definition");
        }
        while !self.is(Tok::RBrace) {
            // Checked per block, not per push: a block adds far fewer than an eighth of the
            // capacity once the check can fire (the reservation is at least 8 + 2x the last body).
            if (f.insts.len() * 8 >= f.insts.capacity() * 7 && f.insts.len() >= self.grow_at)
                || self.tok.start as usize >= self.resize_at
            {
                self.grow_pools(f);
                self.grow_at = next_grow_at(f.insts.len(), f.insts.capacity());
            }
            let bidx = f.blocks.len() as u32;
            let bstart = self.tok.start;
            let name = match self.tok.kind {
                Tok::LabelStr => {
                    let t = self.bump_line();
                    if let Some(s) = self.label_fast(t, bidx) {
                        LocalName::Named(s)
                    } else {
                        // An unquoted label (`b7:`) is its text without the colon: `lkey` without
                        // the general path's tests.
                        let k = if self.b.get(t.start as usize) != Some(&b'"') {
                            LocalKey::Src(
                                self.src
                                    .get(t.start as usize..t.end as usize - 1)
                                    .unwrap_or(""),
                            )
                        } else {
                            self.lkey(t)?
                        };
                        if !self.define_block(k, bidx, Self::span(t)) {
                            return Err(Box::new(
                                Diagnostic::error("redefinition of a local name", Self::span(t))
                                    .with_code("E-parse"),
                            ));
                        }
                        let s = self.def_sym(k);
                        LocalName::Named(s)
                    }
                }
                Tok::LabelId => {
                    let t = self.bump();
                    let n = self.u32_of(Token {
                        end: t.end - 1,
                        ..t
                    })?;
                    self.define_block_num(n, bidx, Self::span(t))?;
                    self.slot()
                }
                _ => {
                    let n = self.next_src_num;
                    self.define_block_num(n, bidx, Span::default())?;
                    self.slot()
                }
            };
            let istart = f.insts.len() as u32;
            self.block_non_phi = false;
            loop {
                match self.tok.kind {
                    Tok::DbgRecord => {
                        // `#dbg_value(...)` records are not instructions; skip them.
                        self.bump();
                        self.skip_parens()?;
                        continue;
                    }
                    // The length first: a bounds-checked slice of every line's opcode costs
                    // more than the compare.
                    Tok::Ident
                        if self.tok.end.wrapping_sub(self.tok.start) == 12
                            && self.cur() == b"uselistorder" =>
                    {
                        self.skip_uselistorder()?;
                        continue;
                    }
                    Tok::RBrace | Tok::Eof | Tok::LabelStr | Tok::LabelId => {
                        return self.err(
                            "expected an instruction: the block before this has no terminator",
                        );
                    }
                    _ => {}
                }
                let refs = f.block_refs.len() as u32;
                let op = self.parse_inst(f, bidx)?;
                if op.is_terminator() {
                    self.terms.push([refs, f.block_refs.len() as u32]);
                    break;
                }
            }
            // The block's span ends with its terminator's (`self.prev_end` here), and its
            // instructions with the next block's first: both implied, not stored.
            f.blocks.push(BlockData::new(name, istart, bstart));
        }
        Ok(())
    }

    /// Called when a body's instructions are about to outgrow their reservation (at first twice
    /// the previous body's), and once when [`RESIZE_AFTER`] bytes of a body have been read:
    /// reserves every pool (and the interner, the name map's number-indexed vector, the fix-ups)
    /// for the rest of the body, estimated from the share of the body read so far, instead of
    /// doubling. One huge function (a 30 MB kernel) otherwise copies each pool several times (or
    /// once, late, when its estimate came from a small previous body), each copy a pass of cache
    /// misses over fresh memory, and rebuilds the interner's table with its names scattered.
    ///
    /// The body's end is the first `}` that starts a line (the printer's layout; elsewhere the
    /// estimate is only shorter, and the pools grow as before), looked for once per body. Only a
    /// reservation: the pools are shrunk to size when the body ends, and pages never written are
    /// never touched. A pool whose spare room already holds the estimate is left alone, so a late
    /// call (the estimate was good) copies nothing.
    #[inline(never)]
    fn grow_pools(&mut self, f: &mut Function) {
        #[cfg(test)]
        GROWS.with(|c| c.set(c.get() + 1));
        let here = self.tok.start as usize;
        let by_distance = here >= self.resize_at;
        if by_distance {
            self.resize_at = usize::MAX;
        }
        if self.body_end == usize::MAX {
            self.body_end = body_end(self.b, here).unwrap_or(0);
        }
        if self.body_end == 0 {
            // No line-starting `}`: the pools double as they fill.
            self.resize_at = usize::MAX;
            return;
        }
        let read = here.saturating_sub(self.body_start).max(1);
        let rest = self.body_end.saturating_sub(here);
        // The entries the rest of the body will add to a pool of length `n`, with a margin of an
        // eighth.
        let more = |n: usize| -> usize {
            let want = (n as u128 * rest as u128 / read as u128) as usize;
            want + want / 8 + 64
        };
        let mut side = f.side_lens();
        for s in side.iter_mut() {
            *s = more(*s);
        }
        f.reserve_side(&side);
        room(&mut f.blocks, &more);
        room(&mut f.insts, &more);
        room(&mut f.operands, &more);
        room(&mut f.block_refs, &more);
        room(&mut f.aux, &more);
        room(&mut f.calls, &more);
        room(&mut f.bundles, &more);
        room(&mut f.arg_attr_lists, &more);
        room(&mut f.md_attachments, &more);
        room(&mut self.fixups, &more);
        room(&mut self.block_names, &more);
        room(&mut self.pending_names, &more);
        self.locals.reserve_numbers(more(self.locals.numbers_len()));
        // The interner grows at most once more for the body's names (instructions' and labels'),
        // instead of doubling and rehashing as labels are interned and once more in `name_insts`.
        // In a body this large it is sized for the rest of the file at the body's density of
        // names, so that a second huge body does not rebuild it with the first one's names
        // scattered again (names recurring across functions only make this an overestimate).
        let named = self.pending_names.len() + f.blocks.len();
        let names = if by_distance {
            let rest = self.b.len().saturating_sub(here) as u128;
            let want = (named as u128 * rest / read as u128) as usize;
            self.pending_names.len() + want + want / 8 + 64
        } else {
            self.pending_names.len() + more(self.pending_names.len()) + more(f.blocks.len())
        };
        self.m.strings.reserve(names);
    }

    /// Resolves the body's forward references, and its block references to the blocks' indices.
    /// The first error is the first failing reference in the order of the text, as when every
    /// forward block reference was a fix-up: a block name referenced but never defined, or
    /// defined as a value, fails at its first reference, which came after the fix-ups counted
    /// by its [`BlockName::before`].
    pub(super) fn resolve_fixups(&mut self, f: &mut Function) -> PResult<()> {
        let bad = self
            .block_names
            .iter()
            .position(|n| n.block >= NAMES_A_VALUE);
        let bad_before = bad.map_or(usize::MAX, |k| self.block_names[k].before as usize);
        for (j, fx) in std::mem::take(&mut self.fixups).into_iter().enumerate() {
            if j >= bad_before {
                break;
            }
            let l = match self.locals.get(&fx.key) {
                Some(Local::Block(k)) => match self.block_names[k as usize].block {
                    b if b < NAMES_A_VALUE => Some(Local::Block(b)),
                    _ => None,
                },
                l => l,
            };
            let Some(l) = l else {
                let name = self.key_text(fx.key);
                return Err(Box::new(
                    Diagnostic::error(format!("use of undefined value `%{name}`"), fx.span)
                        .with_code("E-parse"),
                ));
            };
            let v = match l {
                Local::Arg(a) => Value::Arg(a),
                Local::Inst(i) => Value::Inst(InstId(i)),
                Local::Block(b) => {
                    // No facts for this function (see `ReadFacts`).
                    self.block_operand |= matches!(fx.target, FixTarget::Operand(_));
                    Value::Block(Block(b))
                }
            };
            if fx.want != NO_TYPE
                && let Some(t) = f.local_type(v)
                && t != fx.want
            {
                self.wrong_types.push(WrongType {
                    func: self.cur_func,
                    inst: fx.inst,
                    value: v,
                    written: fx.want,
                });
            }
            match fx.target {
                FixTarget::Operand(i) => f.operands[i as usize] = v,
                FixTarget::Callee(c) => f.calls[c as usize].callee = v,
                FixTarget::Meta(id) => {
                    self.inline_md[(id & !HIGH) as usize] =
                        Metadata::Value(Some(FuncId(self.cur_func)), v)
                }
            }
        }
        if let Some(k) = bad {
            let name = self.block_names[k];
            let span = Self::span(name.first);
            let message = if name.block == UNDEFINED {
                let key = self.lkey(name.first)?;
                format!("use of undefined value `%{}`", self.key_text(key))
            } else {
                "expected a basic block label, but this names a value".to_string()
            };
            return Err(Box::new(
                Diagnostic::error(message, span).with_code("E-parse"),
            ));
        }
        for b in &mut f.block_refs {
            b.0 = self.block_names[b.0 as usize].block;
        }
        Ok(())
    }

    // ---------------------------------------------------------------- values
}

/// The instruction count below which the next block does not call [`Parser::grow_pools`] even
/// though the body's instructions fill seven eighths of their reservation (the trigger): when a
/// call leaves them that full (its estimate of the rest of the body fits in the spare room), the
/// next call waits until half of that room is used. Without this a body whose instructions end
/// near its reservation's end called it on every block, each call copying the interner's tables
/// when the estimate of names exceeded their spare room (issue 13: `interp` at 16,000 blocks
/// spent a quarter of its run in 929 calls, one per block of the body's last 5%).
pub(super) fn next_grow_at(len: usize, cap: usize) -> usize {
    if len * 8 >= cap * 7 {
        len + (cap - len) / 2 + 1
    } else {
        0
    }
}

#[cfg(test)]
thread_local! {
    /// Calls of [`Parser::grow_pools`] on this thread (tests check their number).
    pub(crate) static GROWS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// [`make_room`] for what `more` says a pool of this length still needs.
fn room<T>(v: &mut Vec<T>, more: &impl Fn(usize) -> usize) {
    let extra = more(v.len());
    make_room(v, extra);
}

/// How far into a body (bytes) [`Parser::grow_pools`] re-estimates its pools whatever their fill:
/// the estimate it made when the pools first filled may come from a few lines (the body's first
/// block, when the previous body was small); by this point it has a sample of hundreds of lines.
/// Larger than the functions of ordinary modules (the benchmark modules' largest body is 99 KB),
/// which therefore never pay for the search of their end.
const RESIZE_AFTER: usize = 256 << 10;

/// The offset of the first `}` at the start of a line at or after `from` (the end of a function
/// body as printers lay it out), looking at 32 bytes at a time (a loop the compiler vectorises):
/// `}` is rare inside a body (aggregate types and constants).
fn body_end(b: &[u8], from: usize) -> Option<usize> {
    let rest = b.get(from..)?;
    let mut base = from;
    let mut chunks = rest.chunks_exact(32);
    for c in chunks.by_ref() {
        if c.iter().fold(false, |a, &x| a | (x == b'}')) {
            for (k, &x) in c.iter().enumerate() {
                if x == b'}' && base + k > 0 && b[base + k - 1] == b'\n' {
                    return Some(base + k);
                }
            }
        }
        base += 32;
    }
    let tail = chunks.remainder();
    (0..tail.len())
        .find(|&k| tail[k] == b'}' && base + k > 0 && b[base + k - 1] == b'\n')
        .map(|k| base + k)
}

/// The lengths [`shrink_pools`] returns: the nine pools, then the side tables.
type PoolSizes = [usize; 9 + crate::ir::SIDE_TABLES];

/// Reserves room in `f`'s pools and side tables for twice the given lengths.
fn reserve_pools(f: &mut Function, n: &PoolSizes) {
    let r = |k: usize| 2 * n[k] + 8;
    let mut side = [0; crate::ir::SIDE_TABLES];
    for (k, s) in side.iter_mut().enumerate() {
        *s = 2 * n[9 + k];
    }
    f.reserve_side(&side);
    f.blocks.reserve(r(0));
    f.insts.reserve(r(1));
    f.operands.reserve(r(2));
    f.block_refs.reserve(r(3));
    f.aux.reserve(r(4));
    f.calls.reserve(r(5));
    f.bundles.reserve(r(6));
    f.arg_attr_lists.reserve(r(7));
    f.md_attachments.reserve(r(8));
}

/// Shrinks `f`'s pools to their lengths (in place: the allocator keeps the block and frees the
/// tail) and returns the lengths.
fn shrink_pools(f: &mut Function) -> PoolSizes {
    f.shrink_side();
    let side = f.side_lens();
    f.blocks.shrink_to_fit();
    f.insts.shrink_to_fit();
    f.operands.shrink_to_fit();
    f.block_refs.shrink_to_fit();
    f.aux.shrink_to_fit();
    f.calls.shrink_to_fit();
    f.bundles.shrink_to_fit();
    f.arg_attr_lists.shrink_to_fit();
    f.md_attachments.shrink_to_fit();
    let pools = [
        f.blocks.len(),
        f.insts.len(),
        f.operands.len(),
        f.block_refs.len(),
        f.aux.len(),
        f.calls.len(),
        f.bundles.len(),
        f.arg_attr_lists.len(),
        f.md_attachments.len(),
    ];
    let mut n = [0; 9 + crate::ir::SIDE_TABLES];
    n[..9].copy_from_slice(&pools);
    n[9..].copy_from_slice(&side);
    n
}

pub(super) fn empty_function(name: Sym, void: TypeId) -> Function {
    Function {
        name,
        ret_ty: void,
        params: Vec::new(),
        vararg: false,
        cc: CallConv::C,
        linkage: None,
        attrs: Range32::default(),
        md: Range32::default(),
        is_declaration: true,
        blocks: Vec::new(),
        insts: Vec::new(),
        operands: Vec::new(),
        block_refs: Vec::new(),
        aux: Vec::new(),
        calls: Vec::new(),
        bundles: Vec::new(),
        arg_attr_lists: Vec::new(),
        md_attachments: Vec::new(),
        span: Span::default(),
        ret_attrs: Range32::default(),
        side: InstSide::default(),
    }
}

#[cfg(test)]
mod tests {
    /// Two bodies past [`super::RESIZE_AFTER`] (the second after the first's pools, the first
    /// starting with a one-line block, so the first estimate comes from a few bytes): read with
    /// the pools, the interner and the number vector reserved from estimates of each body's
    /// length, they give the same module as when the bodies' ends cannot be found (every `}`
    /// indented), where everything grows by doubling.
    #[test]
    fn huge_bodies_read_the_same_with_and_without_estimates() {
        let mut text = String::from("declare i32 @g(i32)\n");
        for (f, blocks) in [("a", 7_000), ("b", 9_000)] {
            text.push_str(&format!(
                "define i32 @{f}(i32 %x) {{\nentry:\n  br label %b0\n"
            ));
            for k in 0..blocks {
                let prev = if k == 0 {
                    "%x".to_string()
                } else {
                    format!("%v{}", k - 1)
                };
                text.push_str(&format!(
                    "b{k}:\n  %v{k} = add i32 {prev}, {k}\n  %c{k} = icmp slt i32 %v{k}, 9\n  \
                     %{f}long.name.{k} = call i32 @g(i32 %v{k})\n  br i1 %c{k}, label %b{}, label %done\n",
                    k + 1
                ));
            }
            text.push_str(&format!(
                "b{blocks}:\n  br label %done\ndone:\n  ret i32 %v0\n}}\n"
            ));
        }
        let body = text.find("b0:").unwrap_or(0);
        assert!(text.len() - body > 2 * super::RESIZE_AFTER);
        let indented = text.replace("\n}", "\n  }");
        assert!(super::body_end(indented.as_bytes(), 0).is_none());
        let a = crate::parse("t.ll", text.clone()).map(|m| m.print_module());
        let b = crate::parse("t.ll", indented).map(|m| m.print_module());
        let (Ok(a), Ok(b)) = (a, b) else {
            panic!("both read: {:?}", crate::parse("t.ll", text).err());
        };
        assert_eq!(a, b);
        assert!(a.contains("%blong.name.8999 = call i32 @g(i32 %v8999)"));
    }

    /// A huge body whose first block holds few instructions in many bytes (an interpreter's
    /// dispatch `switch`) is estimated short until late, and may end with its instructions above
    /// seven eighths of their reservation: the pools are then re-estimated a few times, not on
    /// every block of that stretch (issue 13's `interp` at 16,000 blocks: 929 calls, each copying
    /// the interner's tables). The three shapes are ones where the per-block calls happened
    /// (144, 404 and 1,362 calls); each module reads the same as with the estimates off (every
    /// `}` indented).
    #[test]
    fn pools_are_not_re_estimated_per_block_near_the_reservation_end() {
        for (blocks, per_case) in [(10_000, 8), (20_000, 2), (26_000, 4)] {
            let mut text =
                String::from("define void @f(i32 %x) {\nentry:\n  switch i32 %x, label %b0 [\n");
            for k in 0..blocks / per_case {
                text.push_str(&format!("    i32 {k}, label %b{k}\n"));
            }
            text.push_str("  ]\n");
            for k in 0..blocks {
                text.push_str(&format!("b{k}:\n  br label %b{}\n", k + 1));
            }
            text.push_str(&format!("b{blocks}:\n  ret void\n}}\n"));
            assert!(text.len() < super::super::parallel::MIN_PARALLEL_BYTES);
            super::GROWS.with(|c| c.set(0));
            let a = crate::parse("t.ll", text.clone()).map(|m| m.print_module());
            let grows = super::GROWS.with(|c| c.get());
            assert!(
                grows <= 20,
                "{grows} re-estimates for one body of {blocks} blocks"
            );
            let b = crate::parse("t.ll", text.replace("\n}", "\n  }")).map(|m| m.print_module());
            let (Ok(a), Ok(b)) = (a, b) else {
                panic!("both read");
            };
            assert_eq!(a, b);
        }
    }

    /// `make_room` keeps the entries, leaves the room asked for, and moves a mostly spare vector
    /// to a block of exactly the room needed (not `Vec::reserve`'s doubled capacity).
    #[test]
    fn make_room_keeps_entries() {
        let mut v: Vec<u32> = Vec::with_capacity(100);
        v.extend(0..10);
        crate::ir::make_room(&mut v, 50);
        assert_eq!(v.capacity(), 100);
        crate::ir::make_room(&mut v, 500);
        assert_eq!(v.capacity(), 510);
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        v.extend(10..500);
        crate::ir::make_room(&mut v, 100);
        assert!(v.capacity() >= 600);
        assert_eq!(v, (0..500).collect::<Vec<_>>());
    }

    /// The chunked search agrees with a plain one at every start, with `}` inside lines, at the
    /// start of the text, across chunk boundaries and in the tail.
    #[test]
    fn body_end_finds_the_first_line_starting_brace() {
        let mut text = String::from("}{ i32, i1 }\n  %x = extractvalue { i32, i1 } %p, 0\n");
        for k in 0..40 {
            text.push_str(&"a".repeat(k));
            text.push_str(if k % 3 == 0 { "\n}\n" } else { " }\n" });
        }
        let b = text.as_bytes();
        for from in 0..=b.len() {
            let want = (from..b.len()).find(|&i| b[i] == b'}' && i > 0 && b[i - 1] == b'\n');
            assert_eq!(super::body_end(b, from), want, "{from}");
        }
        assert_eq!(super::body_end(b, b.len() + 1), None);
    }
}
