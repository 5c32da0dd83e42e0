//! Type layout, in one place: sizes, alignments and field offsets of IR types. Two rule sets live
//! here. [`DataLayout`] is the module's `target datalayout` string (or, when only a triple is
//! given, the target's default, as `opt` fills it in): the ABI and preferred alignments the
//! printer writes for `load`/`store`/`alloca`/atomics that the source wrote without `align`, as
//! LLVM's reader fills them in. [`NaturalLayout`] is the simulator's memory model: every scalar
//! aligned to its own size (at most 8 bytes), 8-byte pointers in every address space, vectors laid
//! out like arrays; it needs no datalayout, and its offsets only have to agree with themselves
//! (loads, stores and `getelementptr` of one run).

use crate::*;

/// The datalayout's alignment rules that matter for defaults (bytes).
#[derive(Clone, Debug)]
pub struct DataLayout {
    /// (bit width, abi, pref), sorted by width.
    ints: Vec<(u32, u32, u32)>,
    floats: Vec<(u32, u32, u32)>,
    vectors: Vec<(u32, u32, u32)>,
    /// (address space, abi, pref); address space 0 is the default for the others.
    ptrs: Vec<(u32, u32, u32)>,
    agg_pref: u32,
}

impl Default for DataLayout {
    fn default() -> Self {
        DataLayout {
            ints: vec![(1, 1, 1), (8, 1, 1), (16, 2, 2), (32, 4, 4), (64, 4, 8)],
            floats: vec![(16, 2, 2), (32, 4, 4), (64, 8, 8), (128, 16, 16)],
            vectors: vec![(64, 8, 8), (128, 16, 16)],
            ptrs: vec![(0, 8, 8)],
            agg_pref: 8,
        }
    }
}

fn set_spec(v: &mut Vec<(u32, u32, u32)>, key: u32, abi: u32, pref: u32) {
    match v.iter_mut().find(|e| e.0 == key) {
        Some(e) => *e = (key, abi, pref),
        None => v.push((key, abi, pref)),
    }
    v.sort_unstable();
}

fn pow2_ceil(x: u64) -> u64 {
    x.max(1).next_power_of_two()
}

/// The datalayout `opt` gives a module that has a triple but no datalayout (the target's; LLVM 22
/// for NVPTX, LLVM 19 for AMDGPU).
fn target_layout(triple: &str) -> Option<&'static str> {
    let arch = triple.split('-').next().unwrap_or("");
    Some(match arch {
        "nvptx64" => "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64",
        "nvptx" => "e-p:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64",
        "amdgcn" => {
            "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-\
             p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-\
             v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
        }
        "x86_64" => {
            "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
        }
        _ => return None,
    })
}

impl DataLayout {
    /// The module's layout: its `target datalayout`, else its triple's default, else LLVM's
    /// default layout.
    pub fn of_module(m: &Module) -> DataLayout {
        DataLayout::parse(
            m.datalayout
                .as_deref()
                .or_else(|| m.triple.as_deref().and_then(target_layout))
                .unwrap_or(""),
        )
    }

    /// Reads a datalayout string (`e-p:64:64-i64:64-...`); unknown or malformed specifications
    /// are ignored.
    pub fn parse(dl: &str) -> DataLayout {
        let mut l = DataLayout::default();
        for spec in dl.split('-') {
            let (head, rest) = spec.split_at(spec.chars().next().map_or(0, |c| c.len_utf8()));
            let nums: Vec<u32> = rest
                .split(':')
                .map(|x| x.parse::<u32>().unwrap_or(0))
                .collect();
            let bytes = |i: usize| nums.get(i).map(|b| (b / 8).max(1));
            match head {
                "i" | "f" | "v" if nums.len() >= 2 => {
                    let abi = bytes(1).unwrap_or(1);
                    let pref = bytes(2).unwrap_or(abi);
                    let v = match head {
                        "i" => &mut l.ints,
                        "f" => &mut l.floats,
                        _ => &mut l.vectors,
                    };
                    set_spec(v, nums[0], abi, pref);
                }
                "p" => {
                    // `p[n]:size:abi[:pref[:idx]]`; `rest` starts with the address space digits.
                    let (asp, tail) = match rest.split_once(':') {
                        Some((a, t)) => (a.parse::<u32>().unwrap_or(0), t),
                        None => continue,
                    };
                    let n: Vec<u32> = tail
                        .split(':')
                        .map(|x| x.parse::<u32>().unwrap_or(0))
                        .collect();
                    let abi = n.get(1).map_or(8, |b| (b / 8).max(1));
                    let pref = n.get(2).map_or(abi, |b| (b / 8).max(1));
                    set_spec(&mut l.ptrs, asp, abi, pref);
                }
                "a" => {
                    let n: Vec<u32> = rest
                        .trim_start_matches(':')
                        .split(':')
                        .map(|x| x.parse::<u32>().unwrap_or(0))
                        .collect();
                    if let Some(p) = n.get(1).or(n.first()) {
                        l.agg_pref = (p / 8).max(1);
                    }
                }
                _ => {}
            }
        }
        l
    }

    /// (abi, pref) alignment in bytes of `ty`.
    pub fn align(&self, types: &Types, ty: TypeId) -> (u64, u64) {
        self.type_align(types, ty, 0)
    }

    fn type_align(&self, types: &Types, ty: TypeId, depth: u32) -> (u64, u64) {
        let pick = |v: &[(u32, u32, u32)], bits: u32| -> (u64, u64) {
            let e = v
                .iter()
                .find(|e| e.0 >= bits)
                .or(v.last())
                .copied()
                .unwrap_or((0, 1, 1));
            (e.1 as u64, e.2 as u64)
        };
        if depth > 32 {
            return (1, 1);
        }
        match types.get(ty) {
            Type::Int(n) => pick(&self.ints, *n),
            Type::Half | Type::BFloat => pick(&self.floats, 16),
            Type::Float => pick(&self.floats, 32),
            Type::Double => pick(&self.floats, 64),
            Type::X86Fp80 | Type::Fp128 | Type::PpcFp128 => (16, 16),
            Type::Ptr(a) => {
                let e = self
                    .ptrs
                    .iter()
                    .find(|e| e.0 == *a)
                    .or_else(|| self.ptrs.iter().find(|e| e.0 == 0))
                    .copied()
                    .unwrap_or((0, 8, 8));
                (e.1 as u64, e.2 as u64)
            }
            Type::Vector { len, elem, .. } => {
                let bits = type_bits(types, *elem, depth + 1) * *len as u64;
                if let Some(e) = self.vectors.iter().find(|e| e.0 as u64 == bits) {
                    return (e.1 as u64, e.2 as u64);
                }
                let a = pow2_ceil(bits.div_ceil(8));
                (a, a)
            }
            Type::Array { elem, .. } => self.type_align(types, *elem, depth + 1),
            Type::Struct { fields, packed } => {
                let mut a = 1;
                if !packed {
                    for fty in types.list(*fields) {
                        a = a.max(self.type_align(types, *fty, depth + 1).0);
                    }
                }
                (a, a.max(self.agg_pref as u64))
            }
            Type::Named(i) => match types.named[*i as usize].1 {
                Some(b) => self.type_align(types, b, depth + 1),
                None => (1, 1),
            },
            _ => (1, 1),
        }
    }

    /// Store size in bytes of a scalar or vector type (the default alignment of atomics).
    pub fn store_size(&self, types: &Types, ty: TypeId) -> u64 {
        match types.get(ty) {
            // Pointers count as 8 bytes whatever the address space (what the printer has always
            // assumed for atomics on pointers).
            Type::Ptr(_) => 8,
            _ => type_bits(types, ty, 0).div_ceil(8).max(1),
        }
    }
}

/// Bits of a scalar or vector type (0 for others).
fn type_bits(types: &Types, ty: TypeId, depth: u32) -> u64 {
    match types.get(ty) {
        Type::Int(n) => *n as u64,
        Type::Half | Type::BFloat => 16,
        Type::Float => 32,
        Type::Double => 64,
        Type::X86Fp80 => 80,
        Type::Fp128 | Type::PpcFp128 => 128,
        Type::Ptr(_) => 64,
        Type::Vector { len, elem, .. } if depth < 32 => {
            type_bits(types, *elem, depth + 1) * *len as u64
        }
        _ => 0,
    }
}

/// The simulator's memory layout (see the module comment): natural alignment, 8-byte pointers.
#[derive(Copy, Clone, Debug)]
pub struct NaturalLayout<'a> {
    types: &'a Types,
}

impl<'a> NaturalLayout<'a> {
    /// The natural layout of the types of one module.
    pub fn new(types: &'a Types) -> Self {
        NaturalLayout { types }
    }

    fn ty(&self, t: TypeId) -> &'a Type {
        &self.types.types[t.0 as usize]
    }

    fn named_body(&self, i: u32) -> Option<TypeId> {
        self.types.named.get(i as usize).and_then(|x| x.1)
    }

    /// Size in bytes (natural alignment, 8-byte pointers).
    pub fn size_of(&self, t: TypeId) -> u64 {
        match self.ty(t) {
            Type::Int(w) => (*w as u64).div_ceil(8),
            Type::Half | Type::BFloat => 2,
            Type::Float => 4,
            Type::Double | Type::Ptr(_) => 8,
            Type::X86Fp80 | Type::Fp128 | Type::PpcFp128 => 16,
            Type::Vector { len, elem, .. } => *len as u64 * self.size_of(*elem),
            Type::Array { len, elem } => len * self.size_of(*elem),
            Type::Struct { fields, .. } => {
                let mut off = 0u64;
                for &ft in &self.types.lists[fields.range()] {
                    let a = self.align_of(ft);
                    off = off.div_ceil(a) * a + self.size_of(ft);
                }
                off.div_ceil(self.align_of(t)) * self.align_of(t)
            }
            Type::Named(i) => match self.named_body(*i) {
                Some(b) => self.size_of(b),
                None => 8,
            },
            _ => 8,
        }
    }

    /// Alignment in bytes: a scalar's size rounded up to a power of two, at most 8; an aggregate's
    /// largest member alignment.
    pub fn align_of(&self, t: TypeId) -> u64 {
        match self.ty(t) {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => self.align_of(*elem),
            Type::Struct { fields, .. } => self.types.lists[fields.range()]
                .iter()
                .map(|&f| self.align_of(f))
                .max()
                .unwrap_or(1),
            Type::Named(i) => match self.named_body(*i) {
                Some(b) => self.align_of(b),
                None => 8,
            },
            _ => self.size_of(t).clamp(1, 8).next_power_of_two(),
        }
    }

    /// Byte offset and type of field (or element) `idx` of aggregate type `t`.
    pub fn field(&self, t: TypeId, idx: u64) -> (u64, TypeId) {
        match self.ty(t) {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                (idx * self.size_of(*elem), *elem)
            }
            Type::Struct { fields, .. } => {
                let fs = &self.types.lists[fields.range()];
                let mut off = 0u64;
                for (k, &ft) in fs.iter().enumerate() {
                    let a = self.align_of(ft);
                    off = off.div_ceil(a) * a;
                    if k as u64 == idx {
                        return (off, ft);
                    }
                    off += self.size_of(ft);
                }
                (off, t)
            }
            Type::Named(i) => match self.named_body(*i) {
                Some(b) => self.field(b, idx),
                None => (0, t),
            },
            _ => (0, t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(src: &str) -> Module {
        crate::parse("t.ll", src.to_string()).expect("valid")
    }

    fn global_ty(m: &Module, k: usize) -> TypeId {
        m.globals[k].ty
    }

    /// LLVM's rules for a struct of `{ i8, i64, <3 x i32> }` under AMDGPU's layout: i64 aligned to 8
    /// (`i64:64`), a 96-bit vector to 16 (`v96:128`); and the default layout's `i64:32:64`.
    #[test]
    fn datalayout_alignments_follow_the_spec() {
        let m = module(
            "target triple = \"amdgcn-amd-amdhsa\"\n@g = global { i8, i64, <3 x i32> } zeroinitializer\n@p = global ptr addrspace(5) null\n@q = global i64 0\n",
        );
        let dl = DataLayout::of_module(&m);
        assert_eq!(dl.align(&m.types, global_ty(&m, 0)), (16, 16));
        assert_eq!(dl.align(&m.types, global_ty(&m, 2)), (8, 8));
        // `ptr addrspace(5)` is 32 bits on AMDGPU (`p5:32:32`); its store size stays 8 (above).
        assert_eq!(dl.align(&m.types, global_ty(&m, 1)), (4, 4));
        let plain = DataLayout::parse("");
        assert_eq!(plain.align(&m.types, global_ty(&m, 2)), (4, 8));
        assert_eq!(plain.store_size(&m.types, global_ty(&m, 2)), 8);
    }

    /// The simulator's layout: `{ i8, i64, [2 x i16] }` puts the i64 at 8, the array at 16, size 24.
    #[test]
    fn natural_layout_offsets() {
        let m = module("@g = global { i8, i64, [2 x i16] } zeroinitializer\n");
        let n = NaturalLayout::new(&m.types);
        let t = global_ty(&m, 0);
        assert_eq!(n.size_of(t), 24);
        assert_eq!(n.align_of(t), 8);
        assert_eq!(n.field(t, 1).0, 8);
        assert_eq!(n.field(t, 2).0, 16);
    }
}
