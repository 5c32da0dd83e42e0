//! Instructions: one function per syntactic family, operands laid out as documented on [`Inst`].

use super::*;

fn new_inst(op: Opcode, void: TypeId, block: u32, f: &Function) -> InstBuilder {
    let o = f.operands.len() as u32;
    let b = f.block_refs.len() as u32;
    let a = f.aux.len() as u32;
    let m = f.md_attachments.len() as u32;
    InstBuilder {
        op,
        ty: void,
        block: Block(block),
        ops_start: o,
        refs_start: b,
        aux_start: a,
        flags: 0,
        aux: 0,
        aux2: 0,
        ordering: Ordering::NotAtomic,
        syncscope: OptSym::NONE,
        md_start: m,
    }
}

/// An opcode word of at most 8 bytes as one zero-padded little-endian word (without its length).
const fn op_word(w: &[u8]) -> u64 {
    let mut x = 0u64;
    let mut i = 0;
    while i < w.len() {
        x |= (w[i] as u64) << (8 * i);
        i += 1;
    }
    x
}

/// [`simple_opcode`] of the opcode token `b[s..e]`: the commonest opcodes of GPU code (issue 13:
/// a 38 MB module's lines are almost all `br`, `icmp`, `store` and `phi`) by one compare of the
/// word read at `s` (masked to the token's length), without the bounds-checked slice of the
/// token that `simple_opcode` takes; any other word by [`simple_opcode`].
#[inline(always)]
fn opcode_at(b: &[u8], s: usize, e: usize) -> Option<Opcode> {
    let n = e.wrapping_sub(s);
    if n.wrapping_sub(1) < 8
        && let Some(w) = b.get(s..s + 8)
    {
        let w = u64::from_le_bytes(w.try_into().unwrap_or([0; 8])) & (u64::MAX >> (64 - 8 * n));
        const BR: u64 = op_word(b"br");
        const ICMP: u64 = op_word(b"icmp");
        const STORE: u64 = op_word(b"store");
        const PHI: u64 = op_word(b"phi");
        const LOAD: u64 = op_word(b"load");
        // The length too: a word padded with zeros is also a shorter token's.
        let op = match w {
            BR if n == 2 => Opcode::Br,
            ICMP if n == 4 => Opcode::ICmp,
            STORE if n == 5 => Opcode::Store,
            PHI if n == 3 => Opcode::Phi,
            LOAD if n == 4 => Opcode::Load,
            _ => return simple_opcode(b.get(s..e)?),
        };
        return Some(op);
    }
    simple_opcode(b.get(s..e)?)
}

fn simple_opcode(w: &[u8]) -> Option<Opcode> {
    Some(match w {
        b"ret" => Opcode::Ret,
        b"br" => Opcode::Br,
        b"switch" => Opcode::Switch,
        b"indirectbr" => Opcode::IndirectBr,
        b"invoke" => Opcode::Invoke,
        b"resume" => Opcode::Resume,
        b"unreachable" => Opcode::Unreachable,
        b"cleanupret" => Opcode::CleanupRet,
        b"catchret" => Opcode::CatchRet,
        b"catchswitch" => Opcode::CatchSwitch,
        b"callbr" => Opcode::CallBr,
        b"fneg" => Opcode::FNeg,
        b"extractelement" => Opcode::ExtractElement,
        b"insertelement" => Opcode::InsertElement,
        b"shufflevector" => Opcode::ShuffleVector,
        b"extractvalue" => Opcode::ExtractValue,
        b"insertvalue" => Opcode::InsertValue,
        b"alloca" => Opcode::Alloca,
        b"load" => Opcode::Load,
        b"store" => Opcode::Store,
        b"fence" => Opcode::Fence,
        b"cmpxchg" => Opcode::CmpXchg,
        b"atomicrmw" => Opcode::AtomicRmw,
        b"getelementptr" => Opcode::GetElementPtr,
        b"icmp" => Opcode::ICmp,
        b"fcmp" => Opcode::FCmp,
        b"phi" => Opcode::Phi,
        b"select" => Opcode::Select,
        b"freeze" => Opcode::Freeze,
        b"call" | b"tail" | b"musttail" | b"notail" => Opcode::Call,
        b"va_arg" => Opcode::VaArg,
        b"landingpad" => Opcode::LandingPad,
        b"catchpad" => Opcode::CatchPad,
        b"cleanuppad" => Opcode::CleanupPad,
        _ => return bin_op(w).or_else(|| cast_op(w)),
    })
}

impl<'s> Parser<'s> {
    pub(super) fn parse_inst(&mut self, f: &mut Function, bidx: u32) -> PResult<Opcode> {
        let start = self.tok.start;
        let mut result: Option<Token> = None;
        if matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
            result = match self.result_eq_fast() {
                Some(t) => Some(t),
                None => {
                    let t = self.bump();
                    self.expect(Tok::Equal, "`=` after the result name")?;
                    Some(t)
                }
            };
        }
        if !self.is(Tok::Ident) {
            return self.err("expected an instruction opcode");
        }
        let Some(op) = opcode_at(self.b, self.tok.start as usize, self.tok.end as usize) else {
            return self.err("expected an instruction opcode");
        };
        let mut inst = new_inst(op, self.ty_void, bidx, f);
        let id = f.insts.len() as u32;
        // For `check_written`'s note of uses that may need the dominator tree.
        self.cur_block = bidx;
        self.cur_phi = op == Opcode::Phi;
        // The commonest whole lines straight to their fast paths, without `parse_inst_body`'s
        // frame and dispatch; pushed without `push_inst`'s tests for side entries when nothing
        // followed them (`Function::push_plain`).
        let direct = match self.direct_line(f, &mut inst) {
            Some(r) => {
                r?;
                true
            }
            None => {
                self.parse_inst_body(f, &mut inst)?;
                false
            }
        };
        // Unnamed and `void`, nothing after it and no attachment (`br`; `store`, whose
        // alignment `store_fast` reads): nothing of the tail below applies.
        if direct
            && result.is_none()
            && inst.ty == self.ty_void
            && !self.is(Tok::Comma)
            && f.md_attachments.len() == inst.md_start as usize
        {
            let len = self.prev_end.saturating_sub(start);
            if len < LONG_SPAN as u32 {
                self.took(lines::PLAIN);
                let aux_list = Range32 {
                    start: inst.aux_start,
                    end: f.aux.len() as u32,
                };
                f.push_plain(inst.plain(op, LocalName::None, start, len as u16, aux_list));
                let (os, rs) = (inst.ops_start, inst.refs_start);
                self.note_inst(f, id, op, true, os, rs);
                return Ok(op);
            }
        }
        // Trailing `, !kind !N` attachments and `, align N` where the opcode allows them.
        while self.is(Tok::Comma) {
            if let Some(a) = self.comma_align_fast() {
                f.aux.push(a as u64);
                continue;
            }
            if let Some(r) = self.comma_md_attachment_fast(f) {
                r?;
                continue;
            }
            self.bump();
            match self.tok.kind {
                Tok::MetadataVar => self.md_attachment(f)?,
                Tok::Ident if self.cur() == b"align" => {
                    self.bump();
                    let a = self.expect_u32()?;
                    f.aux.push(a as u64);
                }
                _ => return self.err("expected a metadata attachment `!kind !N` after `,`"),
            }
        }
        let ends = InstEnds {
            // A call's operand range covers its arguments only (`parse_call`).
            ops: if op.is_call_like() {
                self.call_ops_end
            } else {
                f.operands.len() as u32
            },
            refs: f.block_refs.len() as u32,
            aux: f.aux.len() as u32,
            md: f.md_attachments.len() as u32,
            span: Span {
                start,
                end: self.prev_end,
            },
        };
        let is_void = inst.ty == self.ty_void;
        let name = match result {
            Some(t) => {
                if is_void {
                    return Err(Box::new(
                        Diagnostic::error(
                            "an instruction that returns `void` cannot have a name",
                            Self::span(t),
                        )
                        .with_code("E-parse"),
                    ));
                }
                match t.kind {
                    Tok::LocalVar => match self.result_fast(t, id) {
                        Some(name) => name,
                        None => {
                            let k = self.lkey(t)?;
                            let prev = self.locals.insert(k, Local::Inst(id));
                            if self.redefines(prev) {
                                return Err(Box::new(
                                    Diagnostic::error(
                                        "redefinition of a local name",
                                        Self::span(t),
                                    )
                                    .with_code("E-parse"),
                                ));
                            }
                            match (k, self.locals.last_sym()) {
                                // Interned before: nothing to intern.
                                (_, Some(sym)) => LocalName::Named(sym),
                                // Interned when the body ends (`Parser::name_insts`).
                                (LocalKey::Src(s), None) => {
                                    let split = self.locals.last_split();
                                    self.pending_names.push((id, s, split));
                                    LocalName::None
                                }
                                _ => LocalName::Named(self.key_sym(k)),
                            }
                        }
                    },
                    _ => {
                        let n = self.u32_of(Token {
                            start: t.start + 1,
                            ..t
                        })?;
                        self.define_num(n, Local::Inst(id), Self::span(t))?;
                        self.slot()
                    }
                }
            }
            None if !is_void => {
                let n = self.next_src_num;
                let prev = self.locals.insert(LocalKey::Num(n), Local::Inst(id));
                self.redefines(prev);
                self.next_src_num += 1;
                self.slot()
            }
            None => LocalName::None,
        };
        let len = ends.span.end.saturating_sub(start);
        if direct && ends.md == inst.md_start && len < LONG_SPAN as u32 {
            self.took(lines::PLAIN_NAMED);
            let aux_list = Range32 {
                start: inst.aux_start,
                end: ends.aux,
            };
            f.push_plain(inst.plain(op, name, start, len as u16, aux_list));
        } else {
            f.push_inst(&inst, &ends, name);
        }
        // A `select`'s condition and values may be written with any type: not vouched for.
        let (os, rs) = (inst.ops_start, inst.refs_start);
        self.note_inst(f, id, op, direct && op != Opcode::Select, os, rs);
        Ok(op)
    }

    /// Notes for [`ReadFacts`] what `wellformed`'s scan would learn from instruction `id`, just
    /// pushed with its operands from `ops_start` and its block references from `refs_start`:
    /// `vouched` when a whole-line fast path read it (see [`ReadFacts`] for why its types need no
    /// check).
    #[inline(always)]
    fn note_inst(
        &mut self,
        f: &Function,
        id: u32,
        op: Opcode,
        vouched: bool,
        ops_start: u32,
        refs_start: u32,
    ) {
        let is_phi = op == Opcode::Phi;
        if is_phi {
            self.phis.push(crate::wellformed::read_preds::PhiRefs {
                block: self.cur_block,
                refs: [refs_start, f.block_refs.len() as u32],
            });
            self.facts.has_phi = true;
            self.facts.phi_misplaced |= self.block_non_phi;
        } else {
            self.block_non_phi = true;
        }
        if !vouched {
            self.facts.unchecked.push(id);
        }
        // `wellformed`'s `use_needs_tree`: other instructions' operands are noted as they are
        // written (`Parser::check_written`, and forward references); a phi's here, where its
        // incoming blocks are known.
        if is_phi && self.facts.far.last() != Some(&id) {
            let ops = f.operands.get(ops_start as usize..).unwrap_or(&[]);
            for (n, &v) in ops.iter().enumerate() {
                if let Value::Inst(d) = v
                    && self.phi_use_may_need_tree(f, d, refs_start as usize + n)
                {
                    self.facts.far.push(id);
                    break;
                }
            }
        }
    }

    /// Whether a phi's incoming value `d`, its incoming block the block reference `k`, may need
    /// the dominator tree: it does not when `d` is defined in the incoming block or in the entry
    /// block (unless an `invoke`); an incoming block whose label is not read yet is unknown.
    #[inline(never)]
    fn phi_use_may_need_tree(&self, f: &Function, d: InstId, k: usize) -> bool {
        // Block references are still indices into `block_names` (see `resolve_fixups`).
        let at = f
            .block_refs
            .get(k)
            .and_then(|r| self.block_names.get(r.0 as usize))
            .map_or(UNDEFINED, |n| n.block);
        match f.insts.get(d.0 as usize) {
            Some(di) if at < NAMES_A_VALUE => match di.op {
                Opcode::CallBr => false,
                Opcode::Invoke => true,
                _ => di.block.0 != at && di.block != Block(0),
            },
            _ => true,
        }
    }

    /// The whole-line fast paths of `br`, `icmp`, `store`, `load`, `getelementptr`, `phi`,
    /// binary operators, casts and `select` for instruction `inst`, its fields set as the
    /// opcode's arm of [`Parser::parse_inst_body`] sets them after the same call; `None`, with
    /// nothing read, for any other opcode or where the fast path refuses (the arm then calls it
    /// again and takes the token path). Everything these paths set is a plain instruction's
    /// ([`Function::push_plain`]): flags, `aux`, and the `aux2` its opcode implies (a load's
    /// type, a `getelementptr`'s source element type, its `aux`).
    #[inline(always)]
    fn direct_line(&mut self, f: &mut Function, inst: &mut InstBuilder) -> Option<PResult<()>> {
        use Opcode as O;
        let r = match inst.op {
            O::Br => self.br_fast(f)?,
            O::ICmp => match self.icmp_fast(f)? {
                Ok((p, ty)) => {
                    inst.aux = p as u32;
                    let i1 = self.ty_i1;
                    inst.ty = self.vector_of(ty, i1);
                    Ok(())
                }
                Err(e) => Err(e),
            },
            O::Store => match self.store_fast(f)? {
                Ok(pt) => {
                    inst.aux = self.ptr_addrspace(pt);
                    Ok(())
                }
                Err(e) => Err(e),
            },
            O::Load => match self.load_fast(f)? {
                Ok((t, asp)) => {
                    inst.aux = asp;
                    inst.aux2 = t.0;
                    inst.ty = t;
                    Ok(())
                }
                Err(e) => Err(e),
            },
            O::GetElementPtr => match self.gep_fast(f)? {
                Ok((fl, st, bt)) => {
                    inst.flags |= fl;
                    inst.aux = st.0;
                    inst.aux2 = st.0;
                    if self.is(Tok::Comma) {
                        match self.gep_indices(f, bt) {
                            Ok(t) => {
                                inst.ty = t;
                                Ok(())
                            }
                            Err(e) => Err(e),
                        }
                    } else {
                        inst.ty = bt;
                        Ok(())
                    }
                }
                Err(e) => Err(e),
            },
            O::Phi => match self.phi_fast(f)? {
                Ok(ty) => {
                    inst.ty = ty;
                    if self.is(Tok::Comma) {
                        self.phi_incoming_loop(f, ty, true)
                    } else {
                        Ok(())
                    }
                }
                Err(e) => Err(e),
            },
            O::Add
            | O::Sub
            | O::Mul
            | O::Shl
            | O::UDiv
            | O::SDiv
            | O::URem
            | O::SRem
            | O::LShr
            | O::AShr
            | O::And
            | O::Or
            | O::Xor
            | O::FAdd
            | O::FSub
            | O::FMul
            | O::FDiv
            | O::FRem => Self::flags_and_type(inst, self.binop_fast(f)?),
            O::Trunc
            | O::ZExt
            | O::SExt
            | O::FpTrunc
            | O::FpExt
            | O::FpToUi
            | O::FpToSi
            | O::UiToFp
            | O::SiToFp
            | O::PtrToInt
            | O::PtrToAddr
            | O::IntToPtr
            | O::BitCast
            | O::AddrSpaceCast => Self::flags_and_type(inst, self.cast_fast(f)?),
            O::Select => Self::flags_and_type(inst, self.select_fast(f)?),
            _ => return None,
        };
        Some(r)
    }

    /// The flags and result type a fast path (binary operator, cast, `select`) read, set on
    /// `inst`.
    #[inline(always)]
    fn flags_and_type(inst: &mut InstBuilder, r: PResult<(u16, TypeId)>) -> PResult<()> {
        let (fl, ty) = r?;
        inst.flags |= fl;
        inst.ty = ty;
        Ok(())
    }

    /// The result name token `t` (`%name`, unquoted) of instruction `id`, new to the function,
    /// defined through the name map's probe by offsets ([`locals::LocalMap::insert_new_at`]) as
    /// the general path defines it (`lkey`, `insert`, `last_sym` or a pending name); `None` with
    /// nothing changed for anything else (a redefinition, a name referenced before as a block,
    /// a quoted or long name), which the general path reads.
    #[inline(always)]
    fn result_fast(&mut self, t: Token, id: u32) -> Option<LocalName> {
        if self.lines_off() {
            return None;
        }
        let (s, e) = (t.start as usize + 1, t.end as usize);
        if !self.locals.insert_new_at(s, e, Local::Inst(id)) {
            return None;
        }
        self.took(lines::RESULT);
        Some(match self.locals.last_sym() {
            Some(sym) => LocalName::Named(sym),
            None => {
                // Interned when the body ends (`Parser::name_insts`).
                let split = self.locals.last_split();
                self.pending_names
                    .push((id, self.src.get(s..e).unwrap_or(""), split));
                LocalName::None
            }
        })
    }

    pub(super) fn comma(&mut self) -> PResult<()> {
        self.expect(Tok::Comma, "`,`").map(|_| ())
    }

    fn fast_math(&mut self) -> u16 {
        self.inst_flags(flags::FAST_MATH)
    }

    /// Leading flag words (`nuw`, `nsw`, `exact`, `disjoint`, `nneg`, fast-math flags), as far as
    /// they are in `allowed`; the first other word ends them.
    fn inst_flags(&mut self, allowed: u16) -> u16 {
        let mut fl = 0;
        while self.is(Tok::Ident) {
            let w = self.cur();
            let Some(f) = flag_word(w) else {
                break;
            };
            if f & allowed == 0 {
                break;
            }
            fl |= f;
            self.bump();
        }
        fl
    }

    fn syncscope_and_ordering(&mut self, inst: &mut InstBuilder) -> PResult<()> {
        if self.eat_word("syncscope") {
            self.expect(Tok::LParen, "`(` after `syncscope`")?;
            inst.syncscope = OptSym::some(self.expect_str()?);
            self.expect(Tok::RParen, "`)`")?;
        }
        inst.ordering = self.expect_ordering()?;
        Ok(())
    }

    fn expect_ordering(&mut self) -> PResult<Ordering> {
        match ordering(self.cur()) {
            Some(o) if self.is(Tok::Ident) => {
                self.bump();
                Ok(o)
            }
            _ => self.err("expected an atomic ordering"),
        }
    }

    fn ptr_addrspace(&self, ty: TypeId) -> u32 {
        match self.ty(ty) {
            Type::Ptr(a) => *a,
            Type::Vector { elem, .. } => self.ptr_addrspace(*elem),
            _ => 0,
        }
    }

    fn vector_of(&mut self, like: TypeId, elem: TypeId) -> TypeId {
        match *self.ty(like) {
            Type::Vector { len, scalable, .. } => self.simple_type(Type::Vector {
                len,
                scalable,
                elem,
            }),
            _ => elem,
        }
    }

    fn elem_type(&self, ty: TypeId) -> TypeId {
        match self.ty(ty) {
            Type::Vector { elem, .. } | Type::Array { elem, .. } => *elem,
            _ => ty,
        }
    }

    /// The type reached by `extractvalue` indices (named types followed a bounded number of steps,
    /// so a recursive alias cannot loop).
    fn indexed_type(&self, mut ty: TypeId, idx: &[u64]) -> TypeId {
        for &i in idx {
            let mut steps = 0;
            while let Type::Named(n) = self.ty(ty) {
                match self.m.types.named[*n as usize].1 {
                    Some(body) if steps < 64 => ty = body,
                    _ => return ty,
                }
                steps += 1;
            }
            ty = match self.ty(ty) {
                Type::Array { elem, .. } | Type::Vector { elem, .. } => *elem,
                Type::Struct { fields, .. } => {
                    match self.m.types.lists[fields.range()].get(i as usize) {
                        Some(t) => *t,
                        None => return ty,
                    }
                }
                _ => return ty,
            };
        }
        ty
    }

    fn parse_inst_body(&mut self, f: &mut Function, inst: &mut InstBuilder) -> PResult<()> {
        let w = self.cur();
        let op = inst.op;
        match op {
            Opcode::Ret => {
                self.bump();
                if !self.eat_word("void") {
                    self.typed_operand(f)?;
                }
            }
            Opcode::Br => {
                if let Some(r) = self.br_fast(f) {
                    return r;
                }
                self.bump();
                if self.is_word("label") {
                    self.block_ref(f)?;
                } else {
                    self.typed_operand(f)?;
                    self.comma_block_ref(f)?;
                    self.comma_block_ref(f)?;
                }
            }
            Opcode::Switch => {
                self.bump();
                self.typed_operand(f)?;
                self.comma_block_ref(f)?;
                self.expect(Tok::LSquare, "`[` before the switch cases")?;
                while !self.is(Tok::RSquare) {
                    if let Some(r) = self.switch_case_fast(f) {
                        r?;
                        continue;
                    }
                    self.typed_operand(f)?;
                    self.comma_block_ref(f)?;
                }
                self.bump();
            }
            Opcode::IndirectBr => {
                self.bump();
                self.typed_operand(f)?;
                self.comma()?;
                self.expect(Tok::LSquare, "`[` before the destinations")?;
                if !self.is(Tok::RSquare) {
                    loop {
                        self.block_ref(f)?;
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "`]` after the destinations")?;
            }
            Opcode::Invoke | Opcode::CallBr | Opcode::Call => self.parse_call(f, inst)?,
            Opcode::Resume => {
                self.bump();
                self.typed_operand(f)?;
            }
            Opcode::Unreachable => {
                self.bump();
            }
            Opcode::CleanupRet => {
                self.bump();
                self.expect_word("from")?;
                self.operand(f, self.ty_token)?;
                self.expect_word("unwind")?;
                if self.eat_word("to") {
                    self.expect_word("caller")?;
                } else {
                    self.block_ref(f)?;
                }
            }
            Opcode::CatchRet => {
                self.bump();
                self.expect_word("from")?;
                self.operand(f, self.ty_token)?;
                self.expect_word("to")?;
                self.block_ref(f)?;
            }
            Opcode::CatchSwitch => {
                self.bump();
                inst.ty = self.ty_token;
                self.expect_word("within")?;
                self.operand(f, self.ty_token)?;
                let start = f.block_refs.len();
                self.expect(Tok::LSquare, "`[` before the handlers")?;
                loop {
                    self.block_ref(f)?;
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RSquare, "`]` after the handlers")?;
                self.expect_word("unwind")?;
                if self.eat_word("to") {
                    self.expect_word("caller")?;
                } else {
                    // LLVM's successor order puts the unwind destination first.
                    self.block_ref(f)?;
                    let end = f.block_refs.len();
                    // Block references are resolved in place at the body's end: they move
                    // with the entries.
                    f.block_refs[start..end].rotate_right(1);
                }
            }
            Opcode::FNeg => {
                self.bump();
                inst.flags |= self.fast_math();
                inst.ty = self.typed_operand(f)?;
            }
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Shl
            | Opcode::UDiv
            | Opcode::SDiv
            | Opcode::URem
            | Opcode::SRem
            | Opcode::LShr
            | Opcode::AShr
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::FAdd
            | Opcode::FSub
            | Opcode::FMul
            | Opcode::FDiv
            | Opcode::FRem => {
                if let Some(r) = self.binop_fast(f) {
                    let (fl, ty) = r?;
                    inst.flags |= fl;
                    inst.ty = ty;
                    return Ok(());
                }
                self.bump();
                inst.flags |= self.inst_flags(
                    flags::NUW | flags::NSW | flags::EXACT | flags::DISJOINT | flags::FAST_MATH,
                );
                let ty = self.typed_operand(f)?;
                self.comma_operand(f, ty)?;
                inst.ty = ty;
            }
            Opcode::ExtractElement => {
                self.bump();
                let vt = self.typed_operand(f)?;
                self.comma_typed_operand(f)?;
                inst.ty = self.elem_type(vt);
            }
            Opcode::InsertElement => {
                self.bump();
                let vt = self.typed_operand(f)?;
                self.comma_typed_operand(f)?;
                self.comma_typed_operand(f)?;
                inst.ty = vt;
            }
            Opcode::ShuffleVector => {
                self.bump();
                let vt = self.typed_operand(f)?;
                self.comma_typed_operand(f)?;
                let mt = self.comma_typed_operand(f)?;
                let elem = self.elem_type(vt);
                inst.ty = self.vector_of(mt, elem);
                // The mask as integers (`u64::MAX` for undef/poison lanes).
                if let Some(Value::Const(c)) = f.operands.last().copied() {
                    match &self.m.consts[c.0 as usize].kind {
                        ConstKind::Aggregate(r) => {
                            for i in r.range() {
                                let e = self.m.const_lists[i];
                                f.aux.push(match self.m.consts[e.0 as usize].kind {
                                    ConstKind::Int { value, .. } => value as u64,
                                    _ => u64::MAX,
                                });
                            }
                        }
                        ConstKind::Zero => {
                            if let Type::Vector { len, .. } = *self.ty(mt) {
                                f.aux
                                    .extend(std::iter::repeat_n(0, len.min(MAX_SPLAT) as usize));
                            }
                        }
                        _ => {
                            if let Type::Vector { len, .. } = *self.ty(mt) {
                                f.aux.extend(std::iter::repeat_n(
                                    u64::MAX,
                                    len.min(MAX_SPLAT) as usize,
                                ));
                            }
                        }
                    }
                }
            }
            Opcode::ExtractValue | Opcode::InsertValue => {
                self.bump();
                let at = self.typed_operand(f)?;
                if op == Opcode::InsertValue {
                    self.comma_typed_operand(f)?;
                }
                let mark = f.aux.len();
                while self.is(Tok::Comma) {
                    self.bump();
                    // Indices are integers; an attachment ends the list.
                    if self.is(Tok::MetadataVar) {
                        self.md_attachment(f)?;
                        break;
                    }
                    let n = self.expect_u32()?;
                    f.aux.push(n as u64);
                }
                if f.aux.len() == mark {
                    return self.err("expected at least one aggregate index");
                }
                inst.ty = if op == Opcode::ExtractValue {
                    let idx: Vec<u64> = f.aux[mark..].to_vec();
                    self.indexed_type(at, &idx)
                } else {
                    at
                };
            }
            Opcode::Alloca => {
                self.bump();
                while self.eat_word("inalloca") || self.eat_word("swifterror") {}
                let t = self.parse_type()?;
                inst.aux2 = t.0;
                let mut has_count = 0u64;
                let mut align = 0u64;
                let mut asp = 0u32;
                while self.is(Tok::Comma) {
                    self.bump();
                    match self.tok.kind {
                        Tok::MetadataVar => {
                            self.md_attachment(f)?;
                        }
                        Tok::Ident if self.cur() == b"align" => {
                            self.bump();
                            align = self.expect_u32()? as u64;
                        }
                        Tok::Ident if self.cur() == b"addrspace" => {
                            asp = self.opt_addrspace()?;
                        }
                        _ => {
                            self.typed_operand(f)?;
                            has_count = 1;
                        }
                    }
                }
                f.aux.push(has_count);
                f.aux.push(align);
                inst.aux = asp;
                inst.ty = self.simple_type(Type::Ptr(asp));
            }
            Opcode::Load => {
                if let Some(r) = self.load_fast(f) {
                    let (t, asp) = r?;
                    inst.aux = asp;
                    inst.aux2 = t.0;
                    inst.ty = t;
                    return Ok(());
                }
                self.bump();
                let atomic = self.eat_word("atomic");
                if self.eat_word("volatile") {
                    inst.flags |= flags::VOLATILE;
                }
                let t = self.parse_type()?;
                let pt = self.comma_typed_operand(f)?;
                inst.aux = self.ptr_addrspace(pt);
                inst.aux2 = t.0;
                inst.ty = t;
                if atomic {
                    self.syncscope_and_ordering(inst)?;
                }
            }
            Opcode::Store => {
                if let Some(r) = self.store_fast(f) {
                    inst.aux = self.ptr_addrspace(r?);
                    return Ok(());
                }
                self.bump();
                let atomic = self.eat_word("atomic");
                if self.eat_word("volatile") {
                    inst.flags |= flags::VOLATILE;
                }
                self.typed_operand(f)?;
                let pt = self.comma_typed_operand(f)?;
                inst.aux = self.ptr_addrspace(pt);
                if atomic {
                    self.syncscope_and_ordering(inst)?;
                }
            }
            Opcode::Fence => {
                self.bump();
                self.syncscope_and_ordering(inst)?;
            }
            Opcode::CmpXchg => {
                self.bump();
                if self.eat_word("weak") {
                    inst.flags |= flags::WEAK;
                }
                if self.eat_word("volatile") {
                    inst.flags |= flags::VOLATILE;
                }
                let pt = self.typed_operand(f)?;
                inst.aux = self.ptr_addrspace(pt);
                let vt = self.comma_typed_operand(f)?;
                self.comma_typed_operand(f)?;
                self.syncscope_and_ordering(inst)?;
                let fail = self.expect_ordering()?;
                f.aux.push(fail as u64);
                let i1 = self.ty_i1;
                inst.ty = self.intern_type(
                    Type::Struct {
                        fields: Range32::default(),
                        packed: false,
                    },
                    &[vt, i1],
                );
            }
            Opcode::AtomicRmw => {
                self.bump();
                if self.eat_word("volatile") {
                    inst.flags |= flags::VOLATILE;
                }
                let Some(rop) = rmw_op(self.cur()).filter(|_| self.is(Tok::Ident)) else {
                    return self.err("expected an atomicrmw operation");
                };
                self.bump();
                inst.aux = rop as u32;
                let pt = self.typed_operand(f)?;
                inst.aux2 = self.ptr_addrspace(pt);
                inst.ty = self.comma_typed_operand(f)?;
                self.syncscope_and_ordering(inst)?;
            }
            Opcode::GetElementPtr => {
                let bt = match self.gep_fast(f) {
                    Some(r) => {
                        let (fl, st, bt) = r?;
                        inst.flags |= fl;
                        inst.aux = st.0;
                        inst.aux2 = st.0;
                        bt
                    }
                    None => {
                        self.bump();
                        loop {
                            if !self.is(Tok::Ident) {
                                break;
                            }
                            match self.cur() {
                                b"inbounds" => inst.flags |= flags::INBOUNDS,
                                b"nuw" => inst.flags |= flags::NUW,
                                b"nusw" => {}
                                b"inrange" => {
                                    self.bump();
                                    self.skip_parens()?;
                                    continue;
                                }
                                _ => break,
                            }
                            self.bump();
                        }
                        let st = self.parse_type()?;
                        inst.aux = st.0;
                        inst.aux2 = st.0;
                        self.comma_typed_operand(f)?
                    }
                };
                inst.ty = self.gep_indices(f, bt)?;
            }
            Opcode::Trunc
            | Opcode::ZExt
            | Opcode::SExt
            | Opcode::FpTrunc
            | Opcode::FpExt
            | Opcode::FpToUi
            | Opcode::FpToSi
            | Opcode::UiToFp
            | Opcode::SiToFp
            | Opcode::PtrToInt
            | Opcode::PtrToAddr
            | Opcode::IntToPtr
            | Opcode::BitCast
            | Opcode::AddrSpaceCast => {
                if let Some(r) = self.cast_fast(f) {
                    let (fl, ty) = r?;
                    inst.flags |= fl;
                    inst.ty = ty;
                    return Ok(());
                }
                self.bump();
                inst.flags |=
                    self.inst_flags(flags::NUW | flags::NSW | flags::NNEG | flags::FAST_MATH);
                self.typed_operand(f)?;
                inst.ty = match self.cast_to_type_fast() {
                    Some(t) => t?,
                    None => {
                        self.expect_word("to")?;
                        self.parse_type()?
                    }
                };
            }
            Opcode::ICmp | Opcode::FCmp => {
                if op == Opcode::ICmp
                    && let Some(r) = self.icmp_fast(f)
                {
                    let (p, ty) = r?;
                    inst.aux = p as u32;
                    let i1 = self.ty_i1;
                    inst.ty = self.vector_of(ty, i1);
                    return Ok(());
                }
                self.bump();
                if op == Opcode::ICmp {
                    if self.eat_word("samesign") {
                        inst.flags |= flags::SAMESIGN;
                    }
                    let Some(p) = ipred(self.cur()).filter(|_| self.is(Tok::Ident)) else {
                        return self.err("expected an icmp predicate");
                    };
                    inst.aux = p as u32;
                } else {
                    inst.flags |= self.fast_math();
                    let Some(p) = fpred(self.cur()).filter(|_| self.is(Tok::Ident)) else {
                        return self.err("expected an fcmp predicate");
                    };
                    inst.aux = p as u32;
                }
                self.bump();
                let ty = self.typed_operand(f)?;
                self.comma_operand(f, ty)?;
                let i1 = self.ty_i1;
                inst.ty = self.vector_of(ty, i1);
            }
            Opcode::Phi => {
                // The type and the first incomings in one step when they have the common
                // spelling (`lines.rs`); the type word is no fast-math flag.
                let (ty, taken) = match self.phi_fast(f) {
                    Some(r) => (r?, true),
                    None => {
                        self.bump();
                        inst.flags |= self.fast_math();
                        (self.parse_type()?, false)
                    }
                };
                inst.ty = ty;
                self.phi_incoming_loop(f, ty, taken)?;
            }
            Opcode::Select => {
                if let Some(r) = self.select_fast(f) {
                    let (fl, ty) = r?;
                    inst.flags |= fl;
                    inst.ty = ty;
                    return Ok(());
                }
                self.bump();
                inst.flags |= self.fast_math();
                self.typed_operand(f)?;
                inst.ty = self.comma_typed_operand(f)?;
                self.comma_typed_operand(f)?;
            }
            Opcode::Freeze => {
                self.bump();
                inst.ty = self.typed_operand(f)?;
            }
            Opcode::VaArg => {
                self.bump();
                self.typed_operand(f)?;
                self.comma()?;
                inst.ty = self.parse_type()?;
            }
            Opcode::LandingPad => {
                self.bump();
                inst.ty = self.parse_type()?;
                if self.eat_word("cleanup") {
                    inst.aux = 1;
                }
                loop {
                    let kind = if self.is_word("catch") {
                        0
                    } else if self.is_word("filter") {
                        1
                    } else {
                        break;
                    };
                    self.bump();
                    self.typed_operand(f)?;
                    f.aux.push(kind);
                }
            }
            Opcode::CatchPad | Opcode::CleanupPad => {
                self.bump();
                inst.ty = self.ty_token;
                self.expect_word("within")?;
                self.operand(f, self.ty_token)?;
                self.expect(Tok::LSquare, "`[` before the pad arguments")?;
                if !self.is(Tok::RSquare) {
                    loop {
                        self.typed_operand(f)?;
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "`]` after the pad arguments")?;
            }
        }
        let _ = w;
        Ok(())
    }

    /// A phi's incomings after its type `ty` (the first ones already read when `taken`), up to
    /// the first attachment: the incoming loop of `phi` shared by [`Parser::parse_inst_body`]
    /// and [`Parser::direct_line`].
    fn phi_incoming_loop(&mut self, f: &mut Function, ty: TypeId, mut taken: bool) -> PResult<()> {
        loop {
            if !taken {
                self.expect(Tok::LSquare, "`[` before a phi incoming value")?;
                self.operand(f, ty)?;
                if let Some(t) = self.comma_local_fast() {
                    self.block_name_tok(f, t)?;
                } else {
                    self.comma()?;
                    if !matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
                        return self.err("expected the incoming block `%name`");
                    }
                    // Reuse block_ref's lookup by faking the `label` keyword.
                    self.phi_block(f)?;
                }
                self.expect(Tok::RSquare, "`]` after a phi incoming block")?;
            }
            if !self.is(Tok::Comma) {
                break;
            }
            // A comma followed by `!kind` starts the attachments.
            self.bump();
            if self.is(Tok::MetadataVar) {
                self.md_attachment(f)?;
                break;
            }
            taken = match self.phi_more_fast(f, ty) {
                Some(r) => {
                    r?;
                    true
                }
                None => false,
            };
        }
        Ok(())
    }

    /// A `getelementptr`'s indices after its base pointer (of base type `bt`), up to the first
    /// attachment: its result type (a vector of `bt` when an index is a vector). Shared by
    /// [`Parser::parse_inst_body`] and [`Parser::direct_line`].
    fn gep_indices(&mut self, f: &mut Function, bt: TypeId) -> PResult<TypeId> {
        let mut rty = bt;
        while self.is(Tok::Comma) {
            let it = match self.comma_typed_operand_fast(f) {
                Some(it) => it?,
                None => {
                    self.bump();
                    if self.is(Tok::MetadataVar) {
                        self.md_attachment(f)?;
                        break;
                    }
                    self.typed_operand(f)?
                }
            };
            if matches!(self.ty(it), Type::Vector { .. })
                && !matches!(self.ty(rty), Type::Vector { .. })
            {
                rty = self.vector_of(it, bt);
            }
        }
        Ok(rty)
    }

    fn phi_block(&mut self, f: &mut Function) -> PResult<()> {
        self.block_name_ref(f)
    }

    /// `call`, `invoke`, `callbr` (with `tail`/`musttail`/`notail` prefixes for `call`).
    fn parse_call(&mut self, f: &mut Function, inst: &mut InstBuilder) -> PResult<()> {
        let op = inst.op;
        // `[tail ]call T @f(T a, …)` up to its `)` in one step when it has the common spelling
        // (`lines_ops.rs`); the rest (attributes, bundles, the record) is the same.
        let fast = if op == Opcode::Call {
            self.call_head_fast(f)
        } else {
            None
        };
        let (cc, callee, fn_ty, arg_lists_start) = match fast {
            Some(r) => {
                let h = r?;
                inst.flags |= h.flags;
                inst.ty = h.ret;
                (
                    CallConv::C,
                    Val::Ready(h.callee),
                    h.fn_ty,
                    h.arg_lists_start,
                )
            }
            None => self.call_head(f, inst)?,
        };
        self.call_tail(f, inst, cc, callee, fn_ty, arg_lists_start)
    }

    /// The token path of a call-like instruction up to its arguments' `)`: the calling
    /// convention, the callee, the function type and where the arguments' attribute lists start.
    fn call_head(
        &mut self,
        f: &mut Function,
        inst: &mut InstBuilder,
    ) -> PResult<(CallConv, Val<'s>, TypeId, u32)> {
        let op = inst.op;
        // `tail call` in one step (`fast.rs`).
        let first = match self.word_pair_fast(b"tail", b" call") {
            Some(t) => t,
            None => self.bump(),
        };
        if op == Opcode::Call {
            match self.text(first) {
                b"tail" => inst.flags |= flags::TAIL,
                b"musttail" => inst.flags |= flags::MUSTTAIL,
                b"notail" => inst.flags |= flags::NOTAIL,
                _ => {}
            }
            if self.text(first) != b"call" && self.prev_end == first.end {
                self.expect_word("call")?;
            }
            inst.flags |= self.fast_math();
        }
        let cc = self.parse_cc()?;
        let gmark = self.group_refs.len();
        self.parse_attrs()?;
        self.group_refs.truncate(gmark);
        self.opt_addrspace()?;
        let ty = self.parse_type()?;
        let (ret, explicit_fn) = match *self.ty(ty) {
            Type::Func { ret, .. } => (ret, Some(ty)),
            _ => (ty, None),
        };
        inst.ty = ret;
        let callee = self.parse_value(f, self.ty_ptr)?;
        self.expect(Tok::LParen, "`(` before the call arguments")?;
        let tmark = self.type_scratch.len();
        let arg_lists_start = f.arg_attr_lists.len() as u32;
        if !self.is(Tok::RParen) {
            // The type of the next argument when it was read together with its comma.
            // (and the argument's name when a plain local name follows the type directly).
            let mut fused = None;
            loop {
                let (at, name) = match fused.take() {
                    Some(at) => at,
                    None => {
                        if self.eat(Tok::DotDotDot) {
                            break;
                        }
                        match self.type_local_fast() {
                            Some((at, name)) => (at, Some(name)),
                            None => (self.parse_type()?, None),
                        }
                    }
                };
                let attrs = if let Some(name) = name {
                    // No attributes between the type and the name: the empty list at the end
                    // of the pool, as `parse_attrs` gives it.
                    let end = self.m.attrs.len() as u32;
                    self.local_operand(f, name, at)?;
                    Range32 { start: end, end }
                } else if at == self.ty_meta {
                    let m = self.parse_md_operand(Some(f))?;
                    f.operands.push(Value::Meta(m));
                    Range32::default()
                } else {
                    let attrs = self.parse_attrs()?;
                    self.operand(f, at)?;
                    attrs
                };
                f.arg_attr_lists.push(attrs);
                self.type_scratch.push(at);
                if let Some(at) = self.comma_type_local_fast() {
                    fused = Some(at);
                    continue;
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "`)` after the call arguments")?;
        let fn_ty = match explicit_fn {
            Some(t) => {
                self.type_scratch.truncate(tmark);
                t
            }
            None => {
                let list: Vec<TypeId> = self.type_scratch.drain(tmark..).collect();
                self.intern_type(
                    Type::Func {
                        ret,
                        params: Range32::default(),
                        vararg: false,
                    },
                    &list,
                )
            }
        };
        Ok((cc, callee, fn_ty, arg_lists_start))
    }

    /// A call-like instruction after its arguments' `)`: call-site attributes, operand bundles,
    /// `invoke`'s and `callbr`'s destinations, and the call record.
    fn call_tail(
        &mut self,
        f: &mut Function,
        inst: &mut InstBuilder,
        cc: CallConv,
        callee: Val<'s>,
        fn_ty: TypeId,
        arg_lists_start: u32,
    ) -> PResult<()> {
        let op = inst.op;
        let args_end = f.operands.len() as u32;
        // Call-site function attributes.
        let gmark = self.group_refs.len();
        let fn_attrs = self.parse_attrs()?;
        let call_idx = f.calls.len() as u32;
        self.defer_attrs(AttrTarget::Call(self.cur_func, call_idx), fn_attrs, gmark);
        // Operand bundles.
        let bstart = f.bundles.len() as u32;
        if self.eat(Tok::LSquare) {
            loop {
                let tag = self.expect_str()?;
                self.expect(Tok::LParen, "`(` after the bundle tag")?;
                let ostart = f.operands.len() as u32;
                if !self.is(Tok::RParen) {
                    loop {
                        self.typed_operand(f)?;
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RParen, "`)` after the bundle operands")?;
                f.bundles.push(Bundle {
                    tag,
                    operands: Range32 {
                        start: ostart,
                        end: f.operands.len() as u32,
                    },
                });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RSquare, "`]` after the operand bundles")?;
        }
        let bend = f.bundles.len() as u32;
        match op {
            Opcode::Invoke => {
                self.expect_word("to")?;
                self.block_ref(f)?;
                self.expect_word("unwind")?;
                self.block_ref(f)?;
            }
            Opcode::CallBr => {
                self.expect_word("to")?;
                self.block_ref(f)?;
                self.expect(Tok::LSquare, "`[` before the indirect destinations")?;
                if !self.is(Tok::RSquare) {
                    loop {
                        self.block_ref(f)?;
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "`]` after the indirect destinations")?;
            }
            _ => {}
        }
        let callee_v = match callee {
            Val::Ready(v) => {
                if let Value::Global(g) = v
                    && g.0 & HIGH != 0
                {
                    let gs = &mut self.gsyms[(g.0 & !HIGH) as usize];
                    gs.call_ty.get_or_insert(fn_ty);
                }
                v
            }
            Val::Fwd(key, span) => {
                self.fixups.push(Fixup {
                    key,
                    target: FixTarget::Callee(call_idx),
                    span,
                    want: NO_TYPE,
                    inst: f.insts.len() as u32,
                });
                PENDING
            }
        };
        f.calls.push(CallInfo {
            callee: callee_v,
            fn_ty,
            cc,
            fn_attrs,
            arg_attrs: Range32 {
                start: arg_lists_start,
                end: f.arg_attr_lists.len() as u32,
            },
            bundles: Range32 {
                start: bstart,
                end: bend,
            },
        });
        inst.aux = call_idx;
        // The instruction's operand range covers the arguments only.
        self.call_ops_end = args_end;
        Ok(())
    }
}

#[cfg(test)]
mod opcode_tests {
    use super::{opcode_at, simple_opcode};

    /// `opcode_at` reads every word as `simple_opcode` does: every opcode word, each with a byte
    /// changed, cut, lengthened, padded with NULs, run together with another, at the text's end
    /// and with bytes after it (the word read past the token).
    #[test]
    fn opcode_at_reads_as_the_match() {
        let words: &[&[u8]] = &[
            b"ret",
            b"br",
            b"switch",
            b"indirectbr",
            b"invoke",
            b"resume",
            b"unreachable",
            b"cleanupret",
            b"catchret",
            b"catchswitch",
            b"callbr",
            b"fneg",
            b"extractelement",
            b"insertelement",
            b"shufflevector",
            b"extractvalue",
            b"insertvalue",
            b"alloca",
            b"load",
            b"store",
            b"fence",
            b"cmpxchg",
            b"atomicrmw",
            b"getelementptr",
            b"icmp",
            b"fcmp",
            b"phi",
            b"select",
            b"freeze",
            b"call",
            b"tail",
            b"musttail",
            b"notail",
            b"va_arg",
            b"landingpad",
            b"catchpad",
            b"cleanuppad",
            b"trunc",
            b"zext",
            b"sext",
            b"add",
            b"fadd",
            b"sub",
            b"or",
            b"xor",
            b"bitcast",
            b"b",
            b"",
        ];
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for &w in words {
            cases.push(w.to_vec());
            for k in 0..w.len() {
                cases.push(w[..k].to_vec());
                let mut c = w.to_vec();
                c[k] ^= 1;
                cases.push(c);
            }
            for extra in [&b"\0"[..], b"\0\0", b"s", b"br", b"\0x"] {
                cases.push([w, extra].concat());
            }
            for &v in words {
                cases.push([w, v].concat());
            }
        }
        let (mut found, mut n) = (0, 0);
        for c in &cases {
            let want = simple_opcode(c);
            for after in [
                &b""[..],
                b" ",
                b"\0\0\0\0\0\0\0\0",
                b"ranch label %x",
                b"\n",
            ] {
                let text = [c.as_slice(), after].concat();
                assert_eq!(opcode_at(&text, 0, c.len()), want, "{c:?} then {after:?}");
                let text = [b"  ".as_slice(), c, after].concat();
                assert_eq!(
                    opcode_at(&text, 2, 2 + c.len()),
                    want,
                    "{c:?} after two bytes"
                );
                found += want.is_some() as usize;
                n += 1;
            }
        }
        assert!(found > 400 && n > 10_000, "{found} of {n}");
    }
}
