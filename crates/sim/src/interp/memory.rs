//! Memory: per-thread private memory (allocas), memory shared by the group with deterministic initial
//! contents, byte-level loads and stores, and shared-memory accesses of converged instances at once.
//!
//! Bounded objects: every alloca, every global (its value type's size), every buffer given for a
//! pointer parameter (`--mem #k=...`) and the AMDGPU dispatch packet and implicit kernel arguments
//! own a region of the address space; an access that starts in an object's region but does not
//! fit in the object, or that touches the first page (null), stops the thread with an error.
//! Memory nobody described (pointer parameters without `--mem`, pointers from unknown calls) is
//! unbounded, with deterministic contents.

use super::*;

pub(crate) const PRIVATE_BASE: u64 = 0x00A0_0000_0000_0000;
pub(crate) const PRIVATE_END: u64 = 0x00B0_0000_0000_0000;

/// The address of global `g`: a region of `REGION` bytes each, the first 240 below the pointer
/// parameters' default addresses (`0x0100_0000_0000`), the others above the given buffers.
pub(crate) fn global_addr(g: u32) -> u64 {
    if g < 240 {
        0x0010_0000_0000 + (g as u64) * REGION
    } else {
        0x2000_0000_0000 + (g as u64 - 240) * REGION
    }
}

/// Accesses below this address are null-pointer dereferences.
pub(crate) const NULL_END: u64 = 0x1000;
/// Buffer `k` given for a pointer parameter starts at `BUFFER_BASE + k * REGION`.
pub(crate) const BUFFER_BASE: u64 = 0x1000_0000_0000;
pub(crate) const REGION: u64 = 0x1_0000_0000;
/// The AMDGPU HSA dispatch packet (`llvm.amdgcn.dispatch.ptr`) and implicit kernel arguments
/// (`llvm.amdgcn.implicitarg.ptr`, code object v5 layout).
pub(crate) const DISPATCH_ADDR: u64 = 0x1F00_0000_0000;
pub(crate) const IMPLICIT_ADDR: u64 = 0x1F00_0000_0000 + REGION;

/// A bounded object of shared memory.
#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Addresses in `[start, region_end)` belong to this object: outside `[start, end)` they are
    /// out of bounds.
    pub(crate) region_end: u64,
    /// Initial contents (missing bytes are 0); `None`: the default contents.
    pub(crate) init: Option<Rc<[u8]>>,
    pub(crate) name: String,
}

fn put(buf: &mut [u8], off: usize, v: u64, n: usize) {
    buf[off..off + n].copy_from_slice(&v.to_le_bytes()[..n]);
}

/// The AMDGPU dispatch packet (hsa_kernel_dispatch_packet_t): workgroup and grid sizes.
pub(crate) fn dispatch_packet(threads: u32, groups: u32) -> Vec<u8> {
    let mut b = vec![0u8; 64];
    put(&mut b, 2, 1, 2); // setup: dimensions
    put(&mut b, 4, threads as u64, 2);
    put(&mut b, 6, 1, 2);
    put(&mut b, 8, 1, 2);
    put(&mut b, 12, threads as u64 * groups as u64, 4);
    put(&mut b, 16, 1, 4);
    put(&mut b, 20, 1, 4);
    b
}

/// AMDGPU implicit kernel arguments, code object v5 (what clang 19 emits by default): block
/// counts, group sizes, remainders, global offsets, grid dimensions.
pub(crate) fn implicit_args(threads: u32, groups: u32) -> Vec<u8> {
    let mut b = vec![0u8; 256];
    put(&mut b, 0, groups as u64, 4);
    put(&mut b, 4, 1, 4);
    put(&mut b, 8, 1, 4);
    put(&mut b, 12, threads as u64, 2);
    put(&mut b, 14, 1, 2);
    put(&mut b, 16, 1, 2);
    put(&mut b, 64, 1, 2);
    b
}

impl Exec<'_, '_> {
    /// Performs the shared-memory access of converged instances at once, in thread order (so the
    /// highest thread's store wins, and atomics are applied one thread after the other).
    pub(crate) fn release_mem(&mut self, threads: &mut [Thread], members: &[usize], i: usize) {
        let inst = &self.p.f.insts[i];
        let ops = self.p.f.operands(InstId(i as u32));
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
                        let old = self.load(t, i, a, tys[1], self.p.f.aux2(InstId(i as u32)));
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
            if let Some(msg) = self.fault.take() {
                let at = self.describe_inst(i);
                self.finish(t, Status::Error(format!("{msg} ({at})")));
                continue;
            }
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
        if let Some(o) = self.object_at(addr)
            && let Some(init) = &o.init
        {
            return init.get((addr - o.start) as usize).copied().unwrap_or(0);
        }
        if divergent_space {
            return mix2(mix2(self.opts.seed ^ 0xD1, t.tid as u64), addr) as u8;
        }
        self.initial_byte(addr)
    }

    /// Initial memory outside the described objects: a hash of the address.
    pub(crate) fn initial_byte(&self, addr: u64) -> u8 {
        mix2(self.opts.seed ^ 0x6E, addr) as u8
    }

    /// The object whose region contains `addr`.
    pub(crate) fn object_at(&self, addr: u64) -> Option<&Object> {
        let k = self.objects.partition_point(|o| o.start <= addr);
        let o = self.objects.get(k.checked_sub(1)?)?;
        (addr < o.region_end).then_some(o)
    }

    /// Builds the bounded objects: globals (with their initialisers or the `--mem` contents),
    /// given buffers, the AMDGPU dispatch packet and implicit arguments. Returns the buffer
    /// address of each pointer parameter that was given contents.
    pub(crate) fn build_objects(&mut self) -> Result<Vec<(usize, u64)>, String> {
        let m = self.p.m;
        let resolved = check_memory(self.p, self.opts)?;
        let mut objs = Vec::new();
        let mut params = Vec::new();
        let mut given: HashMap<u32, &MemInit> = HashMap::new();
        for (mi, r) in self.opts.memory.iter().zip(&resolved) {
            match *r {
                Resolved::Global(g) => {
                    given.insert(g, mi);
                }
                Resolved::Param(k) => {
                    let start = BUFFER_BASE + k as u64 * REGION;
                    let bytes = mem_bytes(mi, mi.elem.unwrap_or(ElemTy::Int(32)));
                    params.push((k, start));
                    objs.push(Object {
                        start,
                        end: start + bytes.len() as u64,
                        region_end: start + REGION,
                        init: Some(Rc::from(bytes)),
                        name: format!("the buffer of parameter #{k}"),
                    });
                }
            }
        }
        for (g, gl) in m.globals.iter().enumerate() {
            let start = global_addr(g as u32);
            let size = self.p.size_of(gl.ty);
            let init: Option<Rc<[u8]>> = if let Some(mi) = given.get(&(g as u32)) {
                Some(Rc::from(mem_bytes(
                    mi,
                    mi.elem.unwrap_or_else(|| self.p.elem_of(gl.ty)),
                )))
            } else if let Some(c) = gl.init
                && size <= 1 << 20
            {
                let mut buf = Vec::new();
                self.serialize(&self.constant(c), gl.ty, &mut buf);
                Some(Rc::from(buf))
            } else {
                None
            };
            objs.push(Object {
                start,
                end: start + size,
                region_end: start + REGION,
                init,
                name: format!("@{}", sym(m, gl.name)),
            });
        }
        if self.opts.target == Target::Amdgpu {
            for (addr, bytes, name) in [
                (
                    DISPATCH_ADDR,
                    dispatch_packet(self.opts.threads, self.opts.num_groups),
                    "the dispatch packet",
                ),
                (
                    IMPLICIT_ADDR,
                    implicit_args(self.opts.threads, self.opts.num_groups),
                    "the implicit kernel arguments",
                ),
            ] {
                objs.push(Object {
                    start: addr,
                    end: addr + bytes.len() as u64,
                    region_end: addr + REGION,
                    init: Some(Rc::from(bytes)),
                    name: name.to_string(),
                });
            }
        }
        objs.sort_by_key(|o| o.start);
        self.objects = objs;
        Ok(params)
    }

    /// Whether `size` bytes at `addr` may be accessed by `t`; otherwise raises the thread's fault.
    pub(crate) fn check_access(&mut self, t: &Thread, addr: u64, size: u64, what: &str) -> bool {
        let size = size.max(1);
        let bytes = if size == 1 {
            "1 byte".to_string()
        } else {
            format!("{size} bytes")
        };
        let msg = if addr < NULL_END {
            format!("{what} of {bytes} at address {addr:#x}: null pointer")
        } else if (PRIVATE_BASE..PRIVATE_END).contains(&addr) {
            if t.allocas
                .iter()
                .any(|&(s, e)| s <= addr && addr.saturating_add(size) <= e)
            {
                return true;
            }
            format!("{what} of {bytes} at address {addr:#x}: outside every alloca")
        } else {
            match self.object_at(addr) {
                Some(o) if addr.saturating_add(size) > o.end => format!(
                    "{what} of {bytes} at offset {} of {} ({} bytes): out of bounds",
                    addr - o.start,
                    o.name,
                    o.end - o.start
                ),
                _ => return true,
            }
        };
        if self.fault.is_none() {
            self.fault = Some(msg);
        }
        false
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
        if size > 1 << 16 || !self.check_access(t, addr, size as u64, "load") {
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
        if !self.check_access(t, addr, self.p.size_of(ty), "store") {
            return;
        }
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

fn mem_bytes(mi: &MemInit, elem: ElemTy) -> Vec<u8> {
    let mut bytes = Vec::new();
    for &v in &mi.values {
        elem.bytes(v, &mut bytes);
    }
    bytes
}

/// What a `--mem` entry names.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Resolved {
    Global(u32),
    Param(usize),
}

/// Checks the memory contents of `opts` against the function: every target exists (a global, a
/// pointer parameter), and a global's contents fit in it. The error names the entry.
pub(crate) fn check_memory(p: &Program<'_>, opts: &Options) -> Result<Vec<Resolved>, String> {
    let (m, f) = (p.m, p.f);
    let mut out = Vec::new();
    for mi in &opts.memory {
        let k = match &mi.target {
            MemTarget::Global(g) => {
                let Some(k) = m.globals.iter().position(|gl| sym(m, gl.name) == g) else {
                    return Err(format!("--mem: no global @{g} in this module"));
                };
                let gl = &m.globals[k];
                let size = p.size_of(gl.ty);
                let n = mem_bytes(mi, mi.elem.unwrap_or_else(|| p.elem_of(gl.ty))).len() as u64;
                if n > size {
                    return Err(format!("--mem: {n} bytes given for @{g}, which has {size}"));
                }
                out.push(Resolved::Global(k as u32));
                continue;
            }
            MemTarget::Param(k) => *k,
            MemTarget::ParamNamed(n) => f
                .params
                .iter()
                .position(|q| matches!(q.name, converge_ir::LocalName::Named(s) if sym(m, s) == n))
                .ok_or_else(|| format!("--mem: @{} has no parameter %{n}", sym(m, f.name)))?,
        };
        match f.params.get(k) {
            Some(q) if matches!(p.ty(q.ty), Type::Ptr(_)) => out.push(Resolved::Param(k)),
            _ => {
                return Err(format!(
                    "--mem: parameter #{k} of @{} is not a pointer",
                    sym(m, f.name)
                ));
            }
        }
    }
    Ok(out)
}
