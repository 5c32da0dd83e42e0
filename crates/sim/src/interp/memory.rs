//! Memory: per-thread private memory (allocas), memory shared by the group with deterministic initial
//! contents, byte-level loads and stores, and shared-memory accesses of converged instances at once.

use super::*;

pub(crate) const PRIVATE_BASE: u64 = 0x00A0_0000_0000_0000;
pub(crate) const PRIVATE_END: u64 = 0x00B0_0000_0000_0000;

pub(crate) fn global_addr(g: u32) -> u64 {
    0x0010_0000_0000 + (g as u64) * 0x1_0000_0000
}

impl Exec<'_, '_> {
    /// Performs the shared-memory access of converged instances at once, in thread order (so the
    /// highest thread's store wins, and atomics are applied one thread after the other).
    pub(crate) fn release_mem(&mut self, threads: &mut [Thread], members: &[usize], i: usize) {
        let inst = &self.p.f.insts[i];
        let ops = &self.p.f.operands[inst.operands.range()];
        let tys: Vec<TypeId> = ops
            .iter()
            .map(|&o| self.value_ty(o).unwrap_or(inst.ty))
            .collect();
        for &k in members {
            let vals = threads[k]
                .pending
                .as_ref()
                .map(|p| p.2.clone())
                .unwrap_or_default();
            let addr = |v: &Val| match v {
                Val::P(_) | Val::I(_) => Some(v.bits() as u64),
                _ => None,
            };
            let t = &mut threads[k];
            let v = match inst.op {
                Opcode::Load => match addr(&vals[0]) {
                    Some(a) => self.load(t, i, a, inst.ty, inst.aux),
                    None => Val::Undef,
                },
                Opcode::Store => {
                    if let Some(a) = addr(&vals[1]) {
                        self.store(t, a, &vals[0], tys[0]);
                    }
                    Val::Undef
                }
                Opcode::AtomicRmw => match addr(&vals[0]) {
                    Some(a) => {
                        let old = self.load(t, i, a, tys[1], inst.aux2);
                        let new = rmw(inst.aux as u8, &old, &vals[1], self.p.int_width(tys[1]));
                        self.store(t, a, &new, tys[1]);
                        old
                    }
                    None => Val::Undef,
                },
                Opcode::CmpXchg => match addr(&vals[0]) {
                    Some(a) => {
                        let old = self.load(t, i, a, tys[1], inst.aux);
                        let ok = old.same(&vals[1]) && !old.is_undef();
                        if ok {
                            self.store(t, a, &vals[2], tys[1]);
                        }
                        Val::Agg(Rc::from(vec![old, Val::I(ok as u128)]))
                    }
                    None => Val::Undef,
                },
                _ => Val::Undef,
            };
            t.pending = None;
            t.state = TState::Running;
            self.done_call(t, i, v);
        }
    }

    pub(crate) fn value_ty(&self, v: Value) -> Option<TypeId> {
        match v {
            Value::Inst(id) => Some(self.p.f.insts[id.0 as usize].ty),
            Value::Arg(k) => self.p.f.params.get(k as usize).map(|p| p.ty),
            Value::Const(c) => Some(self.p.m.consts[c.0 as usize].ty),
            Value::Global(g) => Some(self.p.m.globals[g.0 as usize].ty),
            _ => None,
        }
    }

    pub(crate) fn load_byte(&self, t: &Thread, addr: u64, divergent_space: bool) -> u8 {
        if (PRIVATE_BASE..PRIVATE_END).contains(&addr) {
            return t.private.get(&addr).copied().unwrap_or(0);
        }
        if let Some(&b) = self.shared.get(&addr) {
            return b;
        }
        if divergent_space {
            return mix2(mix2(self.opts.seed ^ 0xD1, t.tid as u64), addr) as u8;
        }
        self.initial_byte(addr)
    }

    /// Initial memory: global initialisers where known, else a hash of the address.
    pub(crate) fn initial_byte(&self, addr: u64) -> u8 {
        let base = 0x0010_0000_0000u64;
        if addr >= base {
            let g = ((addr - base) / 0x1_0000_0000) as usize;
            let off = (addr - base) % 0x1_0000_0000;
            if let Some(gl) = self.p.m.globals.get(g)
                && let Some(init) = gl.init
            {
                let mut buf = Vec::new();
                self.serialize(&self.constant(init), gl.ty, &mut buf);
                if (off as usize) < buf.len() {
                    return buf[off as usize];
                }
            }
        }
        mix2(self.opts.seed ^ 0x6E, addr) as u8
    }

    pub(crate) fn serialize(&self, v: &Val, ty: TypeId, out: &mut Vec<u8>) {
        let start = out.len();
        let size = self.p.size_of(ty) as usize;
        match (v, self.p.ty(ty)) {
            (Val::Agg(xs), Type::Struct { .. } | Type::Named(_)) => {
                for (k, x) in xs.iter().enumerate() {
                    let (off, ft) = self.p.field(ty, k as u64);
                    out.resize(start + off as usize, 0);
                    self.serialize(x, ft, out);
                }
            }
            (Val::Agg(xs), _) => {
                let (_, e) = self.p.field(ty, 0);
                for x in xs.iter() {
                    self.serialize(x, e, out);
                }
            }
            (Val::F(f), Type::Float) => out.extend_from_slice(&(*f as f32).to_bits().to_le_bytes()),
            (Val::F(f), Type::Double) => out.extend_from_slice(&f.to_bits().to_le_bytes()),
            (x, _) => {
                let b = x.bits().to_le_bytes();
                out.extend_from_slice(&b[..size.min(16)]);
            }
        }
        out.resize(start + size, 0);
    }

    pub(crate) fn deserialize(&self, bytes: &[u8], ty: TypeId) -> Val {
        match self.p.ty(ty) {
            Type::Float => {
                Val::F(f32::from_le_bytes(bytes[..4].try_into().unwrap_or([0; 4])) as f64)
            }
            Type::Double => Val::F(f64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
            Type::Ptr(_) => Val::P(u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
            Type::Int(w) => {
                let mut b = [0u8; 16];
                let n = bytes.len().min(16);
                b[..n].copy_from_slice(&bytes[..n]);
                Val::I(u128::from_le_bytes(b) & mask(*w))
            }
            Type::Vector { .. } | Type::Array { .. } | Type::Struct { .. } | Type::Named(_) => {
                let n = match self.p.ty(ty) {
                    Type::Vector { len, .. } => *len as u64,
                    Type::Array { len, .. } => (*len).min(4096),
                    Type::Struct { fields, .. } => fields.len() as u64,
                    _ => 0,
                };
                let xs: Vec<Val> = (0..n)
                    .map(|k| {
                        let (off, ft) = self.p.field(ty, k);
                        let sz = self.p.size_of(ft) as usize;
                        let off = off as usize;
                        if off + sz <= bytes.len() {
                            self.deserialize(&bytes[off..off + sz], ft)
                        } else {
                            Val::Undef
                        }
                    })
                    .collect();
                Val::Agg(Rc::from(xs))
            }
            Type::Half => Val::F(half_to_f64(u16::from_le_bytes([bytes[0], bytes[1]]))),
            _ => Val::Undef,
        }
    }

    pub(crate) fn load(
        &mut self,
        t: &mut Thread,
        _i: usize,
        addr: u64,
        ty: TypeId,
        aspace: u32,
    ) -> Val {
        let size = self.p.size_of(ty) as usize;
        if size > 1 << 16 {
            return Val::Undef;
        }
        let div = matches!(self.opts.target, Target::Amdgpu | Target::Nvptx)
            && (aspace == 0 || aspace == 5);
        let bytes: Vec<u8> = (0..size as u64)
            .map(|k| self.load_byte(t, addr.wrapping_add(k), div))
            .collect();
        self.deserialize(&bytes, ty)
    }

    pub(crate) fn store(&mut self, t: &mut Thread, addr: u64, v: &Val, ty: TypeId) {
        let mut buf = Vec::new();
        self.serialize(v, ty, &mut buf);
        for (k, b) in buf.into_iter().enumerate() {
            let a = addr.wrapping_add(k as u64);
            if (PRIVATE_BASE..PRIVATE_END).contains(&a) {
                t.private.insert(a, b);
            } else {
                self.shared.insert(a, b);
            }
        }
    }
}
