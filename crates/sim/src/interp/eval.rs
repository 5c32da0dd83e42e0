//! Evaluation of one thread's instructions: block entry and phis, branches, the classes of recorded
//! values, constants, casts, `getelementptr` and the other non-communicating instructions.

use super::*;

impl Exec<'_, '_> {
    pub(crate) fn note(&mut self, s: String) {
        if !self.notes.contains(&s) {
            self.notes.push(s);
        }
    }

    pub(crate) fn finish(&self, t: &mut Thread, s: Status) {
        t.state = TState::Done;
        t.status = Some(s);
    }

    /// Enters block `b` from `prev`: a new block instance, then its phis (simultaneously).
    pub(crate) fn enter(&mut self, t: &mut Thread, b: Block, prev: Option<Block>) {
        let f = self.p.f;
        t.fr.bclass = t.fr.tracker.enter(self.h, self.classes, b);
        t.produced.insert(t.fr.bclass);
        if t.stack.is_empty() {
            t.blocks.push((b, t.fr.bclass));
        }
        t.fr.block = b;
        t.fr.pos = 0;
        let range = f.block_range(b).range();
        let mut phis: Vec<(usize, Val)> = Vec::new();
        for i in range.clone() {
            let inst = &f.insts[i];
            if inst.op != Opcode::Phi {
                break;
            }
            let mut v = Val::Undef;
            if let Some(pb) = prev {
                let ops = f.operands(InstId(i as u32));
                let bl = f.inst_blocks(InstId(i as u32));
                if let Some(k) = bl.iter().position(|&x| x == pb) {
                    v = self.value(t, ops[k], inst.ty);
                }
            }
            phis.push((i, v));
        }
        for (i, v) in phis {
            t.fr.regs[i] = v.clone();
            t.fr.pos += 1;
            self.record(t, i, v);
        }
    }

    /// The class of instruction `i`'s instance in `t`'s current block instance: the maximal
    /// class, refined by the instance of every token definition whose convergence region contains
    /// the instruction (controlled maximal convergence, "Convergent Operation Semantics").
    pub(crate) fn class_for(&mut self, t: &Thread, i: usize) -> ClassId {
        let mut c = t.fr.bclass;
        if self.p.controlled {
            let at = self.p.pos[i];
            for &(d, last) in &self.p.regions[t.fr.block.index()] {
                let db = self.p.f.insts[d as usize].block;
                if (db == t.fr.block && self.p.pos[d as usize] >= at) || at > last {
                    continue;
                }
                let tok = t.fr.token_last.get(&d).copied().unwrap_or(NONE);
                c = self.classes.intern(Key::With(c, tok));
            }
        }
        c
    }

    /// Records a value of the simulated function (values computed inside callees are not
    /// recorded: instruction ids are per function).
    pub(crate) fn record(&mut self, t: &mut Thread, i: usize, v: Val) {
        if !t.stack.is_empty() {
            return;
        }
        let c = self.class_for(t, i);
        t.records.push(Record {
            inst: InstId(i as u32),
            class: c,
            val: v,
        });
    }

    /// Makes activation `func` the one [`Exec::p`] and [`Exec::h`] describe.
    pub(crate) fn at(&mut self, func: u32) {
        let (p, h) = self.progs[func as usize];
        self.p = p;
        self.h = h;
    }

    pub(crate) fn run_thread(&mut self, t: &mut Thread) {
        while t.state == TState::Running {
            self.at(t.fr.func);
            let f = self.p.f;
            let range = f.block_range(t.fr.block).range();
            let i = range.start + t.fr.pos as usize;
            if i >= range.end {
                self.finish(t, Status::Error("fell off the end of a block".into()));
                return;
            }
            t.steps += 1;
            if t.steps > self.opts.step_limit {
                t.steps -= 1;
                self.finish(t, Status::StepLimit);
                return;
            }
            let func = t.fr.func;
            self.step(t, i);
            if let Some(msg) = self.fault.take() {
                // `step` may have entered or left an activation: name `i` in its own function.
                self.at(func);
                let at = self.describe_inst(i);
                self.finish(t, Status::Error(format!("{msg} ({at})")));
            }
        }
    }

    pub(crate) fn step(&mut self, t: &mut Thread, i: usize) {
        let f = self.p.f;
        let inst = &f.insts[i];
        let ops = f.operands(InstId(i as u32));
        match inst.op {
            Opcode::Br => {
                let succ = f.inst_blocks(InstId(i as u32));
                let target = if ops.is_empty() {
                    succ[0]
                } else {
                    match self.value(t, ops[0], inst.ty) {
                        Val::I(c) => {
                            if c & 1 == 1 {
                                succ[0]
                            } else {
                                succ[1]
                            }
                        }
                        // Branching on undef: any choice is a refinement; take the false edge.
                        _ => succ[1],
                    }
                };
                let from = t.fr.block;
                self.enter(t, target, Some(from));
            }
            Opcode::Switch => {
                let succ = f.inst_blocks(InstId(i as u32));
                let c = self.value(t, ops[0], inst.ty).bits();
                let mut target = succ[0];
                for (k, &cv) in ops[1..].iter().enumerate() {
                    if self.value(t, cv, inst.ty).bits() == c {
                        target = succ[k + 1];
                        break;
                    }
                }
                let from = t.fr.block;
                self.enter(t, target, Some(from));
            }
            Opcode::Ret => {
                let v = ops.first().map(|&o| self.value(t, o, inst.ty));
                if let Some(caller) = t.stack.pop() {
                    // Back in the caller, at its call instruction.
                    let callee = std::mem::replace(&mut t.fr, caller);
                    t.allocas.truncate(callee.alloca_mark);
                    t.held -= callee.regs.len() + self.p.f.blocks.len();
                    self.at(t.fr.func);
                    let range = self.p.f.block_range(t.fr.block).range();
                    let ci = range.start + t.fr.pos as usize;
                    return self.done_call(t, ci, v.unwrap_or(Val::Undef));
                }
                let text = v.as_ref().map(Val::render);
                t.ret = v;
                self.finish(t, Status::Returned(text));
            }
            Opcode::Unreachable => self.finish(t, Status::Unreachable),
            Opcode::IndirectBr
            | Opcode::Invoke
            | Opcode::CallBr
            | Opcode::Resume
            | Opcode::CleanupRet
            | Opcode::CatchRet
            | Opcode::CatchSwitch => {
                self.finish(
                    t,
                    Status::Error(format!("`{:?}` is not simulated", inst.op).to_lowercase()),
                );
            }
            Opcode::Call => self.call(t, i),
            _ if self.p.kinds[i] == Kind::Mem => {
                let vals: Vec<Val> = ops.iter().map(|&o| self.value(t, o, inst.ty)).collect();
                let key = self.classes.intern(Key::Use(i as u32, t.fr.bclass));
                t.pending = Some((i as u32, key, vals));
                if t.stack.is_empty() {
                    t.waits.push((InstId(i as u32), key));
                }
                t.state = TState::Waiting;
            }
            _ => {
                let v = self.eval(t, i);
                t.fr.regs[i] = v.clone();
                t.fr.pos += 1;
                if !matches!(self.p.ty(inst.ty), Type::Void) {
                    self.record(t, i, v);
                }
            }
        }
    }

    pub(crate) fn per_thread(&self, t: &mut Thread, i: usize, ty: TypeId) -> Val {
        t.occurrence += 1;
        let x = mix2(
            mix2(mix2(self.opts.seed, t.tid as u64 + 1), i as u64),
            t.occurrence,
        );
        self.value_of_bits(x as u128 | ((mix(x) as u128) << 64), ty)
    }

    pub(crate) fn pure_hash(&self, i: usize, vals: &[Val], ty: TypeId) -> Val {
        let mut x = mix2(0xC0FFEE, i as u64);
        for v in vals {
            let b = v.bits();
            x = mix2(mix2(x, b as u64), (b >> 64) as u64);
        }
        self.value_of_bits(x as u128 | ((mix(x) as u128) << 64), ty)
    }

    pub(crate) fn value_of_bits(&self, x: u128, ty: TypeId) -> Val {
        match self.p.ty(ty) {
            Type::Void => Val::Undef,
            Type::Ptr(_) => Val::P(x as u64 & 0x0000_FFFF_FFFF_FFF8),
            Type::Float | Type::Half | Type::BFloat => {
                Val::F(((x % 1_000_000) as f64 / 64.0) as f32 as f64)
            }
            Type::Double => Val::F((x % 1_000_000) as f64 / 64.0),
            Type::Vector { len, elem, .. } => {
                let e = *elem;
                let xs: Vec<Val> = (0..*len)
                    .map(|k| self.value_of_bits(mix2(x as u64, k as u64) as u128, e))
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            Type::Token => Val::Undef,
            _ => Val::I(x & mask(self.p.int_width(ty))),
        }
    }

    pub(crate) fn value(&self, t: &Thread, v: Value, _ctx_ty: TypeId) -> Val {
        match v {
            Value::Inst(id) => t.fr.regs[id.0 as usize].clone(),
            Value::Arg(k) => t.fr.args.get(k as usize).cloned().unwrap_or(Val::Undef),
            Value::Const(c) => self.constant(c),
            Value::Global(g) => Val::P(global_addr(g.0)),
            Value::Func(fid) => Val::P(0x0F00_0000_0000 + fid.0 as u64 * 16),
            _ => Val::Undef,
        }
    }

    pub(crate) fn constant(&self, c: ConstId) -> Val {
        let k = &self.p.m.consts[c.0 as usize];
        match &k.kind {
            ConstKind::Int { value, .. } => Val::I(value & mask(self.p.int_width(k.ty))),
            ConstKind::Float(bits) => Val::F(match self.p.ty(k.ty) {
                Type::Float => f32::from_bits(*bits as u32) as f64,
                Type::Half => half_to_f64(*bits as u16),
                Type::BFloat => f32::from_bits((*bits as u32) << 16) as f64,
                _ => f64::from_bits(*bits),
            }),
            ConstKind::Null => Val::P(0),
            ConstKind::Undef | ConstKind::Poison => Val::Undef,
            ConstKind::Zero => self.zero(k.ty),
            ConstKind::NoneToken => Val::Tok(NONE),
            ConstKind::Aggregate(r) => {
                let xs: Vec<Val> = self.p.m.const_lists[r.range()]
                    .iter()
                    .map(|&e| self.constant(e))
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            ConstKind::Bytes(r) => {
                let xs: Vec<Val> = self.p.m.bytes[r.range()]
                    .iter()
                    .map(|&b| Val::I(b as u128))
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            ConstKind::Global(g) => Val::P(global_addr(g.0)),
            ConstKind::Func(fid) => Val::P(0x0F00_0000_0000 + fid.0 as u64 * 16),
            ConstKind::Expr {
                op, operands, aux, ..
            } => {
                let xs: Vec<Val> = self.p.m.const_lists[operands.range()]
                    .iter()
                    .map(|&e| self.constant(e))
                    .collect();
                let tys: Vec<TypeId> = self.p.m.const_lists[operands.range()]
                    .iter()
                    .map(|&e| self.p.m.consts[e.0 as usize].ty)
                    .collect();
                match op {
                    Opcode::GetElementPtr => self.gep(TypeId(*aux), &xs, &tys),
                    Opcode::PtrToInt
                    | Opcode::IntToPtr
                    | Opcode::BitCast
                    | Opcode::AddrSpaceCast
                    | Opcode::Trunc
                    | Opcode::ZExt
                    | Opcode::SExt => self.cast(*op, &xs[0], tys[0], k.ty),
                    _ if xs.len() == 2 => binop(
                        *op,
                        &xs[0],
                        &xs[1],
                        self.p.int_width(k.ty),
                        self.p.is_f32(k.ty),
                    )
                    .unwrap_or_else(|| self.pure_hash(usize::MAX, &xs, k.ty)),
                    _ => self.pure_hash(usize::MAX, &xs, k.ty),
                }
            }
            ConstKind::BlockAddress(..) | ConstKind::Other => {
                self.pure_hash(c.0 as usize, &[], k.ty)
            }
        }
    }

    pub(crate) fn zero(&self, ty: TypeId) -> Val {
        match self.p.ty(ty) {
            Type::Ptr(_) => Val::P(0),
            Type::Float | Type::Half | Type::BFloat | Type::Double => Val::F(0.0),
            Type::Vector { len, elem, .. } => {
                let e = *elem;
                Val::Agg(Rc::from(
                    (0..*len).map(|_| self.zero(e)).collect::<Vec<_>>(),
                ))
            }
            Type::Array { len, elem } if *len <= 4096 => {
                let e = *elem;
                Val::Agg(Rc::from(
                    (0..*len).map(|_| self.zero(e)).collect::<Vec<_>>(),
                ))
            }
            Type::Struct { fields, .. } => {
                let fs: Vec<TypeId> = self.p.m.types.lists[fields.range()].to_vec();
                Val::Agg(Rc::from(
                    fs.iter().map(|&f| self.zero(f)).collect::<Vec<_>>(),
                ))
            }
            _ => Val::I(0),
        }
    }

    pub(crate) fn gep(&self, src: TypeId, xs: &[Val], tys: &[TypeId]) -> Val {
        let base = match xs.first() {
            Some(Val::P(p)) => *p,
            Some(Val::Undef) | None => return Val::Undef,
            Some(v) => v.bits() as u64,
        };
        let mut addr = base;
        let mut ty = src;
        for (k, v) in xs.iter().enumerate().skip(1) {
            let idx = sext(v.bits(), self.p.int_width(tys[k])) as i64;
            if k == 1 {
                addr = addr.wrapping_add((idx as u64).wrapping_mul(self.p.size_of(ty)));
            } else {
                let (off, ft) = match self.p.ty(ty) {
                    Type::Struct { .. } | Type::Named(_) => self.p.field(ty, idx as u64),
                    _ => {
                        let (_, e) = self.p.field(ty, 0);
                        ((idx as u64).wrapping_mul(self.p.size_of(e)), e)
                    }
                };
                addr = addr.wrapping_add(off);
                ty = ft;
            }
        }
        Val::P(addr)
    }

    pub(crate) fn cast(&self, op: Opcode, v: &Val, from: TypeId, to: TypeId) -> Val {
        if let Val::Agg(xs) = v {
            let ef = elem_ty(self.p, from);
            let et = elem_ty(self.p, to);
            if op != Opcode::BitCast {
                let ys: Vec<Val> = xs.iter().map(|x| self.cast(op, x, ef, et)).collect();
                return Val::Agg(Rc::from(ys));
            }
        }
        if v.is_undef() {
            return Val::Undef;
        }
        let wf = self.p.int_width(from);
        let wt = self.p.int_width(to);
        let f32t = self.p.is_f32(to);
        match op {
            Opcode::Trunc => Val::I(v.bits() & mask(wt)),
            Opcode::ZExt => Val::I(v.bits() & mask(wf)),
            Opcode::SExt => Val::I(sext(v.bits(), wf) as u128 & mask(wt)),
            Opcode::FpTrunc => Val::F(fval(v) as f32 as f64),
            Opcode::FpExt => Val::F(fval(v)),
            Opcode::FpToUi | Opcode::FpToSi => {
                let f = fval(v);
                if f.is_nan() {
                    Val::Undef
                } else {
                    Val::I((f.trunc() as i128) as u128 & mask(wt))
                }
            }
            Opcode::UiToFp => {
                let x = (v.bits() & mask(wf)) as f64;
                Val::F(if f32t { x as f32 as f64 } else { x })
            }
            Opcode::SiToFp => {
                let x = sext(v.bits(), wf) as f64;
                Val::F(if f32t { x as f32 as f64 } else { x })
            }
            Opcode::PtrToInt | Opcode::PtrToAddr => Val::I(v.bits() & mask(wt)),
            Opcode::IntToPtr => Val::P(v.bits() as u64),
            Opcode::AddrSpaceCast => v.clone(),
            Opcode::BitCast => match (v, self.p.ty(to)) {
                (Val::I(x), Type::Float) => Val::F(f32::from_bits(*x as u32) as f64),
                (Val::I(x), Type::Double) => Val::F(f64::from_bits(*x as u64)),
                (Val::F(f), Type::Int(32)) => Val::I((*f as f32).to_bits() as u128),
                (Val::F(f), Type::Int(64)) => Val::I(f.to_bits() as u128),
                (Val::F(f), Type::Int(_)) => Val::I(f.to_bits() as u128 & mask(wt)),
                (_, Type::Ptr(_)) => Val::P(v.bits() as u64),
                (Val::I(_) | Val::P(_), Type::Int(_)) => Val::I(v.bits() & mask(wt)),
                _ => self.pure_hash(usize::MAX - 1, std::slice::from_ref(v), to),
            },
            _ => v.clone(),
        }
    }

    pub(crate) fn eval(&mut self, t: &mut Thread, i: usize) -> Val {
        let f = self.p.f;
        let inst = &f.insts[i];
        let ops = f.operands(InstId(i as u32));
        let ty = inst.ty;
        let v = |this: &Self, k: usize| -> Val { this.value(t, ops[k], ty) };
        let oty = |k: usize| -> TypeId { self.value_ty(ops[k]).unwrap_or(ty) };
        match inst.op {
            Opcode::FNeg => lanewise_f(&v(self, 0), |x| -x),
            op @ (Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::UDiv
            | Opcode::SDiv
            | Opcode::URem
            | Opcode::SRem
            | Opcode::Shl
            | Opcode::LShr
            | Opcode::AShr
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::FAdd
            | Opcode::FSub
            | Opcode::FMul
            | Opcode::FDiv
            | Opcode::FRem) => {
                let (a, b) = (v(self, 0), v(self, 1));
                let w = self.p.int_width(ty);
                if let Some(why) = division_fault(op, &a, &b, w) {
                    // Immediate undefined behaviour (LangRef, `udiv`/`sdiv`/`urem`/`srem`).
                    self.fault = Some(why.to_string());
                    return Val::Undef;
                }
                binop(op, &a, &b, w, self.p.is_f32(ty)).unwrap_or(Val::Undef)
            }
            Opcode::ICmp => {
                let (a, b) = (v(self, 0), v(self, 1));
                let w = self.p.int_width(oty(0));
                cmp_lanes(&a, &b, |x, y| match (x, y) {
                    (Val::Undef, _) | (_, Val::Undef) => Val::Undef,
                    _ => Val::I(icmp_raw(inst.aux as u8, x.bits(), y.bits(), w) as u128),
                })
            }
            Opcode::FCmp => {
                let (a, b) = (v(self, 0), v(self, 1));
                cmp_lanes(&a, &b, |x, y| match (x, y) {
                    (Val::Undef, _) | (_, Val::Undef) => Val::Undef,
                    _ => Val::I(fcmp_raw(inst.aux as u8, fval(x), fval(y)) as u128),
                })
            }
            Opcode::Select => {
                let c = v(self, 0);
                match c {
                    Val::I(c) => {
                        if c & 1 == 1 {
                            v(self, 1)
                        } else {
                            v(self, 2)
                        }
                    }
                    Val::Agg(cs) => {
                        let (a, b) = (v(self, 1), v(self, 2));
                        match (a, b) {
                            (Val::Agg(a), Val::Agg(b)) => Val::Agg(Rc::from(
                                cs.iter()
                                    .enumerate()
                                    .map(|(k, c)| {
                                        if c.bits() & 1 == 1 {
                                            a[k].clone()
                                        } else {
                                            b[k].clone()
                                        }
                                    })
                                    .collect::<Vec<_>>(),
                            )),
                            _ => Val::Undef,
                        }
                    }
                    _ => {
                        // An undef condition: only a value both arms agree on survives.
                        let (a, b) = (v(self, 1), v(self, 2));
                        if a.identical(&b) { a } else { Val::Undef }
                    }
                }
            }
            Opcode::Freeze => match v(self, 0) {
                Val::Undef => self.zero(ty),
                x => x,
            },
            op if op.is_cast() => {
                let x = v(self, 0);
                self.cast(op, &x, oty(0), ty)
            }
            Opcode::GetElementPtr => {
                let xs: Vec<Val> = (0..ops.len()).map(|k| v(self, k)).collect();
                let tys: Vec<TypeId> = (0..ops.len()).map(oty).collect();
                self.gep(TypeId(inst.aux), &xs, &tys)
            }
            Opcode::ExtractValue | Opcode::ExtractElement => {
                let agg = v(self, 0);
                let idx: Vec<u64> = if inst.op == Opcode::ExtractValue {
                    f.aux_list(InstId(i as u32)).to_vec()
                } else {
                    vec![v(self, 1).bits() as u64]
                };
                let mut cur = agg;
                for k in idx {
                    cur = match cur {
                        Val::Agg(xs) => xs.get(k as usize).cloned().unwrap_or(Val::Undef),
                        Val::Undef => Val::Undef,
                        _ => self.zero(ty),
                    };
                }
                cur
            }
            Opcode::InsertValue | Opcode::InsertElement => {
                let agg = v(self, 0);
                let x = v(self, 1);
                let k = if inst.op == Opcode::InsertValue {
                    f.aux_list(InstId(i as u32)).first().copied().unwrap_or(0) as usize
                } else {
                    v(self, 2).bits() as usize
                };
                let mut xs: Vec<Val> = match agg {
                    Val::Agg(xs) => xs.to_vec(),
                    _ => match self.zero(ty) {
                        Val::Agg(z) => z.iter().map(|_| Val::Undef).collect(),
                        _ => Vec::new(),
                    },
                };
                if inst.op == Opcode::InsertValue && f.aux_list(InstId(i as u32)).len() > 1 {
                    // Nested insert: not modelled precisely; a pure function of the inputs.
                    let all: Vec<Val> = (0..ops.len()).map(|k| v(self, k)).collect();
                    return self.pure_hash(i, &all, ty);
                }
                if k < xs.len() {
                    xs[k] = x;
                }
                Val::Agg(Rc::from(xs))
            }
            Opcode::Alloca => {
                let count = match ops.first() {
                    Some(&o) => self.value(t, o, ty).bits().max(1) as u64,
                    None => 1,
                };
                let size =
                    self.p.size_of(TypeId(f.aux2(InstId(i as u32)))).max(1) * count.min(1 << 20);
                let a = t.alloca_next.div_ceil(16) * 16;
                t.alloca_next = a + size;
                t.allocas.push((a, a + size));
                Val::P(a)
            }
            Opcode::Load => {
                let p = v(self, 0);
                let mut aspace = inst.aux;
                // A generic pointer that provably addresses global/shared/constant memory reads
                // memory every thread sees alike, not the thread's own local memory.
                if aspace == 0
                    && self.opts.target == Target::Nvptx
                    && ops.first().is_some_and(|&q| {
                        converge_ir::memspace::addresses_non_local(self.p.m, self.p.func, q)
                    })
                {
                    aspace = 1;
                }
                match p {
                    Val::P(_) | Val::I(_) => self.load(t, i, p.bits() as u64, ty, aspace),
                    _ => Val::Undef,
                }
            }
            Opcode::Store => {
                let (x, p) = (v(self, 0), v(self, 1));
                if let Val::P(_) | Val::I(_) = p {
                    let xt = oty(0);
                    self.store(t, p.bits() as u64, &x, xt);
                }
                Val::Undef
            }
            Opcode::AtomicRmw | Opcode::CmpXchg => {
                let p = v(self, 0);
                let x = v(self, 1);
                let xt = oty(1);
                let old = self.per_thread(t, i, xt);
                if let Val::P(_) | Val::I(_) = p {
                    self.store(t, p.bits() as u64, &x, xt);
                }
                if inst.op == Opcode::CmpXchg {
                    Val::Agg(Rc::from(vec![old, Val::I(0)]))
                } else {
                    old
                }
            }
            Opcode::Fence => Val::Undef,
            _ => {
                let xs: Vec<Val> = (0..ops.len()).map(|k| v(self, k)).collect();
                let name = format!("{:?}", inst.op).to_lowercase();
                self.note(format!(
                    "`{name}` is modelled as a deterministic pure function of its operands"
                ));
                self.pure_hash(i, &xs, ty)
            }
        }
    }

    /// `%name in @function` for error messages.
    pub(crate) fn describe_inst(&self, i: usize) -> String {
        let f = self.p.f;
        let m = self.p.m;
        let name = match f.insts[i].name() {
            converge_ir::LocalName::Named(s) => format!("%{}", sym(m, s)),
            converge_ir::LocalName::Slot(n) => format!("%{n}"),
            converge_ir::LocalName::None => format!("`{:?}`", f.insts[i].op).to_lowercase(),
        };
        format!("at {name} in @{}", sym(m, f.name))
    }
}
