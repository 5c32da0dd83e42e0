//! Reading a large module on two threads, with a result identical to the sequential reader's.
//!
//! Split: the prelude (everything before the first top-level `define`, usually small) is read by
//! both threads with the ordinary parser, so their tables agree up to that point (the *base*). Thread
//! A goes on with the first half of the function definitions; thread B seeks to a `define` near the
//! middle of the rest and reads function definitions and declarations until the first other item.
//! Both split points are confirmed by the parser itself: a split is used only where a thread's token
//! stream has a top-level item starting exactly there (so strings, comments and braces that merely
//! look like `\ndefine ` never cut an item).
//!
//! Merge (an overlay per worker, merged in source order with id remapping): everything B created past
//! the base (strings, types, constants, inline metadata, global symbols, attributes, inline asm,
//! functions) is re-interned into A's tables in B's creation order. That is the order in which the
//! sequential reader, continuing from A's state, would have created them, minus those A already has
//! (the caches that share constants are consulted the same way). B's functions are then rewritten
//! through the resulting id maps, and A reads the rest of the module sequentially and finishes.
//!
//! Anything unusual falls back to A reading on sequentially from where it stopped, which *is* the
//! sequential reader: a non-function item inside the split range, a named type first used by B, a
//! redefinition across the halves, or any error in B. Diagnostics are therefore the sequential ones.

use super::*;

/// Below this many bytes the sequential reader is used (the second thread and the duplicated prelude
/// cost more than they save).
pub(crate) const MIN_PARALLEL_BYTES: usize = 4 << 20;

/// Stack of the second thread.
const WORKER_STACK: usize = 64 << 20;

/// How many reads took the merged two-thread path (tests check that it is exercised).
pub(crate) static MERGED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Table sizes after the prelude: ids below these are the same in both threads.
#[derive(Clone, Copy, Debug)]
struct Base {
    syms: u32,
    types: u32,
    named: usize,
    consts: u32,
    clists: u32,
    bytes: u32,
    asms: u32,
    attrs: u32,
    md_lists: u32,
    inline: u32,
    gsyms: u32,
    funcs: u32,
    globals: usize,
    deferred: usize,
    group_refs: u32,
    blockaddrs: usize,
    attr_groups: usize,
    groups: usize,
    comdats: usize,
    named_md: usize,
}

impl Base {
    fn of(p: &Parser<'_>) -> Self {
        Base {
            syms: p.m.strings.spans.len() as u32,
            types: p.m.types.types.len() as u32,
            named: p.m.types.named.len(),
            consts: p.m.consts.len() as u32,
            clists: p.m.const_lists.len() as u32,
            bytes: p.m.bytes.len() as u32,
            asms: p.m.asms.len() as u32,
            attrs: p.m.attrs.len() as u32,
            md_lists: p.m.md_lists.len() as u32,
            inline: p.inline_md.len() as u32,
            gsyms: p.gsyms.len() as u32,
            funcs: p.m.functions.len() as u32,
            globals: p.m.globals.len(),
            deferred: p.deferred.len(),
            group_refs: p.group_refs.len() as u32,
            blockaddrs: p.blockaddrs.len(),
            attr_groups: p.m.attr_groups.len(),
            groups: p.groups.len(),
            comdats: p.m.comdats.len(),
            named_md: p.m.named_metadata.len(),
        }
    }
}

impl<'s> Parser<'s> {
    /// Continues lexing at byte `pos` (a top-level item start).
    fn seek_to(&mut self, pos: usize) {
        self.lex.seek(pos);
        self.tok = self.lex.next();
        self.prev_end = pos as u32;
    }

    fn at_function(&self) -> bool {
        self.tok.kind == Tok::Ident && matches!(self.cur(), b"define" | b"declare")
    }

    /// Reads items while the current one starts before `stop`. With `only_functions`, stops early
    /// (returning false) at the first item that is not a function.
    fn run_until(&mut self, stop: usize, only_functions: bool) -> PResult<bool> {
        while self.tok.kind != Tok::Eof && (self.tok.start as usize) < stop {
            if only_functions && !self.at_function() {
                return Ok(false);
            }
            self.parse_item()?;
        }
        Ok(true)
    }

    /// Reads the rest of the module sequentially and finishes it.
    fn run_to_end(mut self) -> PResult<Noted> {
        while self.tok.kind != Tok::Eof {
            self.parse_item()?;
        }
        self.finish_noted()
    }
}

/// The first `\ndefine ` at or after `from` (a candidate item start; the parser confirms it).
fn find_define(src: &str, mut from: usize) -> Option<usize> {
    if from == 0 && src.starts_with("define ") {
        return Some(0);
    }
    while from < src.len() && !src.is_char_boundary(from) {
        from += 1;
    }
    src.get(from..)?.find("\ndefine ").map(|i| from + i + 1)
}

/// Whether `parse_module` should take the parallel path for this source.
pub(crate) fn worth_it(src: &str) -> bool {
    src.len() >= MIN_PARALLEL_BYTES
        && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// Reads `src` with two threads; the result (module or first error) equals the sequential reader's.
pub(crate) fn parse_parallel(source_name: &str, src: &str) -> PResult<Noted> {
    let seq = || Parser::new(source_name, src).parse_module_noted();
    let Some(prelude_end) = find_define(src, 0) else {
        return seq();
    };
    let Some(mid) = find_define(src, prelude_end + (src.len() - prelude_end) / 2) else {
        return seq();
    };
    std::thread::scope(|scope| {
        let job = move || {
            let mut p = Parser::new(source_name, src);
            if !matches!(p.run_until(prelude_end, false), Ok(true))
                || p.tok.start as usize != prelude_end
            {
                return None;
            }
            let base = Base::of(&p);
            p.seek_to(mid);
            while p.at_function() {
                p.parse_item().ok()?;
            }
            let end = if p.tok.kind == Tok::Eof {
                src.len()
            } else {
                p.tok.start as usize
            };
            Some((p, base, end))
        };
        // Nesting is bounded (`MAX_DEPTH`), but the worker should not have less stack than a
        // caller's main thread (address space only: untouched pages cost nothing).
        let Ok(worker) = std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn_scoped(scope, job)
        else {
            return Parser::new(source_name, src).parse_module_noted();
        };
        let mut a = Parser::new(source_name, src);
        // A's reading up to `mid` is the sequential reading: its errors are the sequential ones.
        let pure = a.run_until(prelude_end, false).and_then(|_| {
            if a.tok.start as usize != prelude_end {
                return Ok(false);
            }
            a.run_until(mid, true)
        });
        let pure = match pure {
            Ok(p) => p && a.tok.start as usize == mid && a.tok.kind != Tok::Eof,
            Err(e) => {
                drop(worker.join());
                return Err(e);
            }
        };
        let other = worker.join().ok().flatten();
        match other {
            Some((b, base, end)) if pure && end > mid => {
                if merge(&mut a, b, &base) {
                    MERGED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    a.seek_to(end);
                }
                a.run_to_end()
            }
            _ => a.run_to_end(),
        }
    })
}

/// Id maps from B's tables into A's.
struct Remap {
    base: Base,
    syms: Vec<u32>,
    types: Vec<u32>,
    consts: Vec<u32>,
    gsyms: Vec<u32>,
    func_off: u32,
    inline_off: u32,
    asm_off: u32,
    attr_off: u32,
    clist_off: u32,
    bytes_off: u32,
    md_list_off: u32,
}

impl Remap {
    fn sym(&self, s: Sym) -> Sym {
        if s.0 < self.base.syms {
            s
        } else {
            Sym(self.syms[(s.0 - self.base.syms) as usize])
        }
    }
    fn ty(&self, t: TypeId) -> TypeId {
        if t.0 < self.base.types {
            t
        } else {
            TypeId(self.types[(t.0 - self.base.types) as usize])
        }
    }
    fn konst(&self, c: ConstId) -> ConstId {
        if c.0 < self.base.consts {
            c
        } else {
            ConstId(self.consts[(c.0 - self.base.consts) as usize])
        }
    }
    fn func(&self, f: u32) -> u32 {
        if f < self.base.funcs {
            f
        } else {
            f + self.func_off
        }
    }
    fn md(&self, m: MdId) -> MdId {
        if m.0 & HIGH != 0 && (m.0 & !HIGH) >= self.base.inline {
            MdId(m.0 + self.inline_off)
        } else {
            m
        }
    }
    fn name(&self, n: LocalName) -> LocalName {
        match n {
            LocalName::Named(s) => LocalName::Named(self.sym(s)),
            n => n,
        }
    }
    fn attrs(&self, r: Range32) -> Range32 {
        shift(r, self.base.attrs, self.attr_off)
    }
    fn global(&self, g: GlobalId) -> GlobalId {
        if g.0 & HIGH != 0 {
            GlobalId(HIGH | self.gsyms[(g.0 & !HIGH) as usize])
        } else {
            g
        }
    }
    fn value(&self, v: Value) -> Value {
        match v {
            Value::Const(c) => Value::Const(self.konst(c)),
            Value::Global(g) => Value::Global(self.global(g)),
            Value::Func(f) => Value::Func(FuncId(self.func(f.0))),
            Value::Meta(m) => Value::Meta(self.md(m)),
            Value::Asm(a) if a.0 >= self.base.asms => Value::Asm(AsmId(a.0 + self.asm_off)),
            v => v,
        }
    }
    fn key<'s>(&self, k: LocalKey<'s>) -> LocalKey<'s> {
        match k {
            LocalKey::Name(s) => LocalKey::Name(self.sym(s)),
            k => k,
        }
    }
    fn const_kind(&self, k: &ConstKind) -> ConstKind {
        match *k {
            ConstKind::Aggregate(r) => {
                ConstKind::Aggregate(shift(r, self.base.clists, self.clist_off))
            }
            ConstKind::Bytes(r) => ConstKind::Bytes(shift(r, self.base.bytes, self.bytes_off)),
            ConstKind::Global(g) => ConstKind::Global(self.global(g)),
            ConstKind::Func(f) => ConstKind::Func(FuncId(self.func(f.0))),
            ConstKind::BlockAddress(f, b) => ConstKind::BlockAddress(FuncId(self.func(f.0)), b),
            ConstKind::Expr {
                op,
                operands,
                aux,
                flags,
            } => ConstKind::Expr {
                op,
                operands: shift(operands, self.base.clists, self.clist_off),
                aux: if op == Opcode::GetElementPtr {
                    self.ty(TypeId(aux)).0
                } else {
                    aux
                },
                flags,
            },
            ref k => k.clone(),
        }
    }
    fn metadata(&self, m: &Metadata) -> Metadata {
        match *m {
            Metadata::Tuple(r) => Metadata::Tuple(shift(r, self.base.md_lists, self.md_list_off)),
            Metadata::Special(s) => Metadata::Special(self.sym(s)),
            Metadata::String(s) => Metadata::String(self.sym(s)),
            Metadata::Value(f, v) => {
                Metadata::Value(f.map(|f| FuncId(self.func(f.0))), self.value(v))
            }
            Metadata::Node(n) => Metadata::Node(self.md(n)),
            Metadata::Null => Metadata::Null,
        }
    }
    fn cc(&self, c: CallConv) -> CallConv {
        match c {
            CallConv::Named(s) => CallConv::Named(self.sym(s)),
            c => c,
        }
    }
    fn function(&self, f: &mut Function) {
        f.name = self.sym(f.name);
        f.cc = self.cc(f.cc);
        f.ret_ty = self.ty(f.ret_ty);
        for p in &mut f.params {
            p.ty = self.ty(p.ty);
            p.name = self.name(p.name);
            p.attrs = self.attrs(p.attrs);
        }
        f.linkage = f.linkage.map(|s| self.sym(s));
        f.attrs = self.attrs(f.attrs);
        f.ret_attrs = self.attrs(f.ret_attrs);
        for b in &mut f.blocks {
            b.set_name(self.name(b.name()));
        }
        // `aux2` of `load` and `getelementptr` is implied by the type and `aux` rewritten here;
        // `alloca`'s (a type) and syncscopes are in the side tables.
        for i in &mut f.insts {
            i.ty = self.ty(i.ty);
            i.set_name(self.name(i.name()));
            if i.op == Opcode::GetElementPtr {
                i.aux = self.ty(TypeId(i.aux)).0;
            }
        }
        f.remap_side(|t| self.ty(TypeId(t)).0, |s| self.sym(s));
        for v in &mut f.operands {
            *v = self.value(*v);
        }
        for c in &mut f.calls {
            c.callee = self.value(c.callee);
            c.fn_ty = self.ty(c.fn_ty);
            c.cc = self.cc(c.cc);
            c.fn_attrs = self.attrs(c.fn_attrs);
        }
        for b in &mut f.bundles {
            b.tag = self.sym(b.tag);
        }
        // Per-argument attributes: metadata arguments hold the default `0..0`, which stays.
        for (n, i) in f.insts.iter().enumerate() {
            if !i.op.is_call_like() {
                continue;
            }
            let c = &f.calls[i.aux as usize];
            let first = f.operand_range(InstId(n as u32)).start as usize;
            for (k, j) in c.arg_attrs.range().enumerate() {
                let arg = f.operands.get(first + k);
                if !matches!(arg, Some(Value::Meta(_))) {
                    f.arg_attr_lists[j] = self.attrs(f.arg_attr_lists[j]);
                }
            }
        }
        for (k, m) in &mut f.md_attachments {
            *k = self.sym(*k);
            *m = self.md(*m);
        }
    }
}

/// Moves a pool range of B's by `off` if it lies past the base.
fn shift(r: Range32, base: u32, off: u32) -> Range32 {
    if r.start < base {
        r
    } else {
        Range32 {
            start: r.start + off,
            end: r.end + off,
        }
    }
}

#[derive(Clone, Copy)]
enum Made {
    Plain,
    Int,
    Simple(u8),
    Gsym(u32),
}

/// Merges B's overlay into A (see the module comment). False leaves A untouched when B's range
/// cannot be merged; A then reads that range itself.
fn merge<'s>(a: &mut Parser<'s>, mut b: Parser<'s>, base: &Base) -> bool {
    let base = *base;
    // B read only functions: the module-level tables it cannot have changed must be unchanged.
    if b.m.globals.len() != base.globals
        || b.m.types.named.len() != base.named
        || b.m.attr_groups.len() != base.attr_groups
        || b.groups.len() != base.groups
        || b.m.comdats.len() != base.comdats
        || b.m.named_metadata.len() != base.named_md
    {
        return false;
    }
    let attr_off = a.m.attrs.len() as u32 - base.attrs;
    let mut r = Remap {
        base,
        syms: Vec::with_capacity(b.m.strings.spans.len() - base.syms as usize),
        types: Vec::with_capacity(b.m.types.types.len() - base.types as usize),
        consts: Vec::with_capacity(b.m.consts.len() - base.consts as usize),
        gsyms: (0..base.gsyms).collect(),
        func_off: a.m.functions.len() as u32 - base.funcs,
        inline_off: a.inline_md.len() as u32 - base.inline,
        asm_off: a.m.asms.len() as u32 - base.asms,
        attr_off,
        clist_off: a.m.const_lists.len() as u32 - base.clists,
        bytes_off: a.m.bytes.len() as u32 - base.bytes,
        md_list_off: a.m.md_lists.len() as u32 - base.md_lists,
    };
    // Lookups only until the checks pass: a refused merge leaves A untouched.
    for i in base.syms as usize..b.m.strings.spans.len() {
        let s = b.m.strings.resolve(Sym(i as u32));
        r.syms.push(match a.lookup_text(s) {
            Some(x) => x.0,
            None => u32::MAX,
        });
    }
    // Redefinitions across the halves are the sequential reader's error to report.
    for (i, g) in b.gsyms.iter().enumerate() {
        if let GDef::Func(f) = g.def
            && f >= base.funcs
        {
            let key = match g.key {
                LocalKey::Name(s) if s.0 >= base.syms => {
                    match r.syms[(s.0 - base.syms) as usize] {
                        u32::MAX => continue, // a new name: A cannot have defined it
                        x => LocalKey::Name(Sym(x)),
                    }
                }
                k => k,
            };
            let ai = if (i as u32) < base.gsyms {
                Some(i as u32)
            } else {
                a.gnames.get(&key).copied()
            };
            if let Some(ai) = ai
                && a.gsyms[ai as usize].def != GDef::None
            {
                return false;
            }
        }
    }
    // From here on the merge cannot fail. Strings, in B's order of creation.
    for i in 0..r.syms.len() {
        if r.syms[i] == u32::MAX {
            let s = b.m.strings.resolve(Sym(base.syms + i as u32));
            r.syms[i] = a.intern_text(s).0;
        }
    }
    // Types (hash-consed: interning in B's order reproduces the sequential ids).
    let mut list: Vec<TypeId> = Vec::new();
    for i in base.types as usize..b.m.types.types.len() {
        list.clear();
        let t = match b.m.types.types[i].clone() {
            Type::Vector {
                len,
                scalable,
                elem,
            } => Type::Vector {
                len,
                scalable,
                elem: r.ty(elem),
            },
            Type::Array { len, elem } => Type::Array {
                len,
                elem: r.ty(elem),
            },
            Type::Struct { fields, packed } => {
                list.extend(fields.range().map(|j| r.ty(b.m.types.lists[j])));
                Type::Struct {
                    fields: Range32::default(),
                    packed,
                }
            }
            Type::Func {
                ret,
                params,
                vararg,
            } => {
                list.extend(params.range().map(|j| r.ty(b.m.types.lists[j])));
                Type::Func {
                    ret: r.ty(ret),
                    params: Range32::default(),
                    vararg,
                }
            }
            Type::TargetExt(s) => Type::TargetExt(r.sym(s)),
            t => t,
        };
        let id = a.intern_type(t, &list);
        r.types.push(id.0);
    }
    // Global symbols, in B's order of first use.
    for i in base.gsyms as usize..b.gsyms.len() {
        let g = b.gsyms[i];
        let key = r.key(g.key);
        let ai = match a.gnames.get(&key) {
            Some(&ai) => ai,
            None => {
                let ai = a.gsyms.len() as u32;
                a.gsyms.push(GSym {
                    def: GDef::None,
                    key,
                    call_ty: None,
                    first_use: g.first_use,
                    konst: u32::MAX,
                });
                a.gnames.insert(key, ai);
                ai
            }
        };
        r.gsyms.push(ai);
    }
    for (i, g) in b.gsyms.iter().enumerate() {
        if let Some(t) = g.call_ty {
            a.gsyms[r.gsyms[i] as usize].call_ty.get_or_insert(r.ty(t));
        }
    }
    // Constants: the shared ones (integers, simple constants, global references) go through A's
    // caches exactly as the sequential reader's lookups would.
    let n = b.m.consts.len() - base.consts as usize;
    let mut made = vec![Made::Plain; n];
    for &c in b.int_consts.values() {
        if c.0 >= base.consts {
            made[(c.0 - base.consts) as usize] = Made::Int;
        }
    }
    for (&(_, tag), &c) in &b.simple_consts {
        if c.0 >= base.consts {
            made[(c.0 - base.consts) as usize] = Made::Simple(tag);
        }
    }
    for (i, g) in b.gsyms.iter().enumerate() {
        if g.konst != u32::MAX && g.konst >= base.consts {
            made[(g.konst - base.consts) as usize] = Made::Gsym(i as u32);
        }
    }
    for (k, how) in made.into_iter().enumerate() {
        let c = &b.m.consts[base.consts as usize + k];
        let ty = r.ty(c.ty);
        let id = match how {
            Made::Plain => {
                let kind = r.const_kind(&c.kind);
                a.push_const(ty, kind)
            }
            Made::Int => {
                let ConstKind::Int { value, wide } = c.kind else {
                    unreachable!("the integer cache holds integers")
                };
                a.int_const(ty, value, wide)
            }
            Made::Simple(tag) => {
                let kind = r.const_kind(&c.kind);
                a.simple_const(ty, tag, kind)
            }
            Made::Gsym(i) => {
                let ai = r.gsyms[i as usize] as usize;
                if a.gsyms[ai].konst != u32::MAX {
                    ConstId(a.gsyms[ai].konst)
                } else {
                    let kind = r.const_kind(&c.kind);
                    let id = a.push_const(ty, kind);
                    a.gsyms[ai].konst = id.0;
                    id
                }
            }
        };
        r.consts.push(id.0);
    }
    // Function definitions of B on A's symbols (as `define_gsym` does).
    for (i, g) in b.gsyms.iter().enumerate() {
        if let GDef::Func(f) = g.def
            && f >= base.funcs
        {
            let ai = r.gsyms[i] as usize;
            let fid = r.func(f);
            a.gsyms[ai].def = GDef::Func(fid);
            if a.gsyms[ai].konst != u32::MAX {
                let c = a.gsyms[ai].konst as usize;
                a.m.consts[c].kind = ConstKind::Func(FuncId(fid));
            }
        }
    }
    // Pools appended in order.
    for i in base.clists as usize..b.m.const_lists.len() {
        let c = r.konst(b.m.const_lists[i]);
        a.m.const_lists.push(c);
    }
    a.m.bytes
        .extend_from_slice(&b.m.bytes[base.bytes as usize..]);
    for x in &b.m.asms[base.asms as usize..] {
        a.m.asms.push(InlineAsm {
            asm: r.sym(x.asm),
            constraints: r.sym(x.constraints),
            side_effect: x.side_effect,
        });
    }
    for x in &b.m.attrs[base.attrs as usize..] {
        a.m.attrs.push(Attr {
            key: r.sym(x.key),
            value: x.value.map(|s| r.sym(s)),
        });
    }
    for i in base.md_lists as usize..b.m.md_lists.len() {
        let m = r.md(b.m.md_lists[i]);
        a.m.md_lists.push(m);
    }
    for m in &b.inline_md[base.inline as usize..] {
        a.inline_md.push(r.metadata(m));
    }
    a.remap |= b.remap;
    // Numbered metadata used by B.
    if b.md_state.len() > a.md_state.len() {
        a.md_state.resize(b.md_state.len(), 0);
    }
    if b.m.metadata.len() > a.m.metadata.len() {
        a.m.metadata.resize(b.m.metadata.len(), Metadata::Null);
    }
    let mut uses: Vec<(u32, Span)> = b.md_first_use.iter().map(|(&n, &s)| (n, s)).collect();
    uses.sort_by_key(|&(n, _)| n);
    for (n, s) in uses {
        if a.md_state[n as usize] == 0 {
            a.md_state[n as usize] = 1;
            a.md_first_use.insert(n, s);
        }
    }
    // Deferred attribute groups and block addresses.
    let gr_off = a.group_refs.len() as u32 - base.group_refs;
    a.group_refs
        .extend_from_slice(&b.group_refs[base.group_refs as usize..]);
    for d in &b.deferred[base.deferred..] {
        a.deferred.push(DeferredAttrs {
            target: match d.target {
                AttrTarget::Function(f) => AttrTarget::Function(r.func(f)),
                AttrTarget::Call(f, c) => AttrTarget::Call(r.func(f), c),
            },
            inline: r.attrs(d.inline),
            groups: Range32 {
                start: d.groups.start + gr_off,
                end: d.groups.end + gr_off,
            },
        });
    }
    for &(c, g, key, span) in &b.blockaddrs[base.blockaddrs..] {
        a.blockaddrs
            .push((r.konst(c), r.gsyms[g as usize], r.key(key), span));
    }
    // Operands written with a wrong type (locals: only the function and the type move).
    for w in &b.wrong_types {
        a.wrong_types.push(WrongType {
            func: r.func(w.func),
            written: r.ty(w.written),
            ..*w
        });
    }
    // What B learnt about its functions' instructions (only the function moves).
    for r_facts in std::mem::take(&mut b.read_facts) {
        a.read_facts.push(ReadFacts {
            func: r.func(r_facts.func),
            ..r_facts
        });
    }
    // The functions themselves.
    for mut f in b.m.functions.drain(base.funcs as usize..) {
        r.function(&mut f);
        a.m.functions.push(f);
    }
    true
}
