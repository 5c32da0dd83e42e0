//! A function prepared for execution: the kind of each instruction, token operands, convergence
//! regions of token definitions, type sizes and field offsets (`converge_ir::layout`'s natural
//! layout, the simulator's memory model) and the static reachability the scheduler asks about.

use super::*;
use converge_ir::layout::NaturalLayout;

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    Plain,
    Call(CallKind),
    /// A load, store or atomic on memory shared by the group: converged instances access it at
    /// once, like a communicating operation.
    Mem,
}

/// (from, to, avoid) of [`Program::reaches`].
type ReachKey = (u32, u32, bool);

/// The function prepared for execution.
pub struct Program<'m> {
    /// The module the function is in (callees, globals, constants).
    pub m: &'m Module,
    /// The function run.
    pub f: &'m Function,
    /// Its control-flow graph.
    pub cfg: Cfg,
    pub(crate) kinds: Vec<Kind>,
    /// The `convergencectrl` token operand per instruction.
    pub(crate) ctrl: Vec<Option<Value>>,
    /// Whether the function uses convergence control tokens (controlled convergence).
    pub controlled: bool,
    /// Per block: token-defining instructions whose convergence region contains points of the
    /// block, with the position of the last such point (see [`token_regions`]).
    pub(crate) regions: Vec<Vec<(u32, u32)>>,
    pub(crate) pos: Vec<u32>,
    pub(crate) target: Target,
    /// [`Program::reaches`] by (from, to, avoid), with, when `avoid`, the headers of the cycles
    /// around `to` it was answered under: the answer depends on the hierarchy through them
    /// alone, and one program is simulated under several hierarchies.
    pub(crate) reach: std::cell::RefCell<HashMap<ReachKey, (bool, Vec<Block>)>>,
    /// [`Program::reaches_avoiding`] by (from, to, avoided block): the scheduler asks it at
    /// every wait, a search of the function each time without it.
    reach_avoiding: std::cell::RefCell<HashMap<(u32, u32, u32), bool>>,
    /// The function's id in the module.
    pub func: FuncId,
    /// The kernel's required work-group size (`!reqd_work_group_size`), if any.
    pub(crate) work_group: Option<[u64; 3]>,
    /// Functions of the module this one may enter (directly or not), prepared on first use and
    /// kept across runs: the callee's program and its LLVM cycle hierarchy.
    pub(crate) callees: std::cell::RefCell<Option<Rc<[Callee<'m>]>>>,
}

/// A function entered through calls, with the cycle hierarchy its activations use (LLVM's).
pub(crate) struct Callee<'m> {
    pub(crate) prog: Program<'m>,
    pub(crate) h: Hierarchy,
}

impl Program<'_> {
    /// The target whose intrinsics and wave size apply.
    pub fn target(&self) -> Target {
        self.target
    }
}

pub(crate) fn sym(m: &Module, s: converge_ir::Sym) -> &str {
    m.strings.resolve(s)
}

/// The control-flow graph of `f`: successors from each block's terminator, in operand order.
pub fn function_cfg(f: &Function) -> Cfg {
    f.cfg()
}

impl<'m> Program<'m> {
    /// Prepares `f` of `m` for execution under `target`: instruction kinds, token operands and
    /// convergence regions.
    pub fn new(m: &'m Module, f: &'m Function, target: Target) -> Program<'m> {
        let cfg = function_cfg(f);
        let n = f.insts.len();
        let mut kinds = vec![Kind::Plain; n];
        let mut ctrl = vec![None; n];
        let mut controlled = false;
        let mut pos = vec![0u32; n];
        for b in 0..f.blocks.len() {
            for (k, i) in f.block_range(Block(b as u32)).range().enumerate() {
                pos[i] = k as u32;
            }
        }
        for (i, inst) in f.insts.iter().enumerate() {
            let generic = target == Target::Generic;
            let shared = match inst.op {
                Opcode::Load => generic || (inst.aux != 0 && inst.aux != 5),
                Opcode::Store | Opcode::CmpXchg => inst.aux != 5,
                Opcode::AtomicRmw => f.aux2(InstId(i as u32)) != 5,
                _ => false,
            };
            if shared {
                kinds[i] = Kind::Mem;
            }
            if !inst.op.is_call_like() {
                continue;
            }
            let ci: &CallInfo = &f.calls[inst.aux as usize];
            for bd in &f.bundles[ci.bundles.range()] {
                if sym(m, bd.tag) == "convergencectrl" && !bd.operands.is_empty() {
                    ctrl[i] = Some(f.operands[bd.operands.start as usize]);
                    controlled = true;
                }
            }
            let has_attr = |r: converge_ir::Range32, k: &str| {
                m.attrs[r.range()].iter().any(|a| sym(m, a.key) == k)
            };
            let (name, callee_conv) = match ci.callee {
                Value::Func(fid) => {
                    let callee = &m.functions[fid.0 as usize];
                    if !callee.is_declaration && !callee.blocks.is_empty() {
                        kinds[i] = Kind::Call(CallKind::Defined(fid.0));
                        continue;
                    }
                    // What the attributes promise of a declared function (newer LLVM):
                    // `alwaysuniform`, the same result in every thread of the group;
                    // `nodivergencesource`, a function of the operands.
                    let attr = |k: &str| has_attr(callee.attrs, k) || has_attr(ci.fn_attrs, k);
                    if attr("alwaysuniform") {
                        kinds[i] = Kind::Call(CallKind::Uniform);
                        continue;
                    }
                    if attr("nodivergencesource") && !attr("convergent") {
                        kinds[i] = Kind::Call(CallKind::Pure);
                        continue;
                    }
                    (
                        sym(m, callee.name).to_string(),
                        has_attr(callee.attrs, "convergent"),
                    )
                }
                Value::Asm(a) => {
                    let c = sym(m, m.asms[a.0 as usize].constraints);
                    let div = c.contains("=v") || c.contains("={v") || c.contains("=a");
                    kinds[i] = Kind::Call(if div {
                        CallKind::PerThread
                    } else {
                        CallKind::Pure
                    });
                    continue;
                }
                _ => (String::new(), false),
            };
            // An intrinsic is convergent when LLVM's intrinsic table says so, whatever the
            // declaration says.
            let convergent = callee_conv
                || has_attr(ci.fn_attrs, "convergent")
                || ctrl[i].is_some()
                || converge_ir::intrinsics::is_convergent_intrinsic(&name);
            let kind = classify_callee(&name, convergent, target);
            if matches!(
                kind,
                CallKind::TokEntry | CallKind::TokAnchor | CallKind::TokLoop
            ) {
                controlled = true;
            }
            kinds[i] = Kind::Call(kind);
        }
        let regions = if controlled {
            token_regions(f, &cfg, &kinds)
        } else {
            vec![Vec::new(); f.blocks.len()]
        };
        Program {
            m,
            f,
            cfg,
            kinds,
            ctrl,
            controlled,
            regions,
            pos,
            target,
            reach: Default::default(),
            reach_avoiding: Default::default(),
            func: FuncId(
                m.functions
                    .iter()
                    .position(|g| std::ptr::eq(g, f))
                    .unwrap_or(0) as u32,
            ),
            callees: Default::default(),
            work_group: converge_ir::intrinsics::reqd_work_group_size(m, f),
        }
    }

    /// The functions of the module a run of this one may enter (transitively, by direct calls),
    /// other than itself: the callees whose hierarchies [`run_with`] can choose.
    pub fn callee_functions(&self) -> Vec<FuncId> {
        self.callees().iter().map(|c| c.prog.func).collect()
    }

    /// The functions of the module a run of this one may enter (transitively, by direct calls),
    /// other than itself.
    pub(crate) fn callees(&self) -> Rc<[Callee<'m>]> {
        if let Some(c) = self.callees.borrow().as_ref() {
            return c.clone();
        }
        let m = self.m;
        let mut seen: HashSet<u32> = HashSet::from([self.func.0]);
        let mut out: Vec<Callee<'m>> = Vec::new();
        let mut work: Vec<u32> = Vec::new();
        let scan = |kinds: &[Kind], work: &mut Vec<u32>, seen: &mut HashSet<u32>| {
            for k in kinds {
                if let Kind::Call(CallKind::Defined(fid)) = *k
                    && seen.insert(fid)
                {
                    work.push(fid);
                }
            }
        };
        scan(&self.kinds, &mut work, &mut seen);
        while let Some(fid) = work.pop() {
            let prog = Program::new(m, &m.functions[fid as usize], self.target);
            scan(&prog.kinds, &mut work, &mut seen);
            let h = Hierarchy::llvm(&prog.cfg);
            out.push(Callee { prog, h });
        }
        let rc: Rc<[Callee<'m>]> = Rc::from(out);
        *self.callees.borrow_mut() = Some(rc.clone());
        rc
    }

    /// The element type `--mem` values of a global default to: its (innermost) array element.
    pub(crate) fn elem_of(&self, ty: TypeId) -> ElemTy {
        match self.ty(ty) {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => self.elem_of(*elem),
            Type::Float => ElemTy::F32,
            Type::Double => ElemTy::F64,
            Type::Int(w) => ElemTy::Int((*w).clamp(8, 64).next_power_of_two()),
            _ => ElemTy::Int(64),
        }
    }

    pub(crate) fn ty(&self, t: TypeId) -> &Type {
        &self.m.types.types[t.0 as usize]
    }

    pub(crate) fn int_width(&self, t: TypeId) -> u32 {
        match self.ty(t) {
            Type::Int(w) => *w,
            Type::Ptr(_) => 64,
            Type::Vector { elem, .. } => self.int_width(*elem),
            _ => 64,
        }
    }

    pub(crate) fn is_f32(&self, t: TypeId) -> bool {
        match self.ty(t) {
            Type::Float | Type::Half | Type::BFloat => true,
            Type::Vector { elem, .. } => self.is_f32(*elem),
            _ => false,
        }
    }

    /// Size in bytes ([`NaturalLayout`]: natural alignment, 8-byte pointers).
    pub(crate) fn size_of(&self, t: TypeId) -> u64 {
        NaturalLayout::new(&self.m.types).size_of(t)
    }

    /// Byte offset and type of field `idx` of aggregate type `t`.
    pub(crate) fn field(&self, t: TypeId, idx: u64) -> (u64, TypeId) {
        NaturalLayout::new(&self.m.types).field(t, idx)
    }

    pub(crate) fn callee_name(&self, i: usize) -> String {
        let ci = &self.f.calls[self.f.insts[i].aux as usize];
        match ci.callee {
            Value::Func(fid) => sym(self.m, self.m.functions[fid.0 as usize].name).to_string(),
            _ => "<indirect>".to_string(),
        }
    }

    /// Whether `to` is reachable from `from` by a path of at least one edge; with `avoid`, no
    /// intermediate block may head a cycle (of `h`) containing `to`.
    pub(crate) fn reaches(&self, h: &Hierarchy, from: Block, to: Block, avoid: bool) -> bool {
        let key = (from.0, to.0, avoid);
        let around: &[Block] = if avoid { h.relevant_headers(to) } else { &[] };
        if let Some((r, under)) = self.reach.borrow().get(&key)
            && under.as_slice() == around
        {
            return *r;
        }
        let n = self.cfg.num_blocks();
        let mut seen = vec![false; n];
        let mut stack: Vec<Block> = self.cfg.succs(from).to_vec();
        let mut found = false;
        while let Some(b) = stack.pop() {
            if b == to {
                found = true;
                break;
            }
            if seen[b.index()] || (avoid && h.is_relevant_header(b, to)) {
                continue;
            }
            seen[b.index()] = true;
            stack.extend_from_slice(self.cfg.succs(b));
        }
        self.reach
            .borrow_mut()
            .insert(key, (found, around.to_vec()));
        found
    }

    /// Whether a path from a successor of `from` enters `to` without entering `avoid` first
    /// (`to` itself may be `avoid`'s block only as the path's end); a property of the CFG alone,
    /// remembered.
    pub(crate) fn reaches_avoiding(&self, from: Block, to: Block, avoid: Block) -> bool {
        let key = (from.0, to.0, avoid.0);
        if let Some(&r) = self.reach_avoiding.borrow().get(&key) {
            return r;
        }
        let n = self.cfg.num_blocks();
        let mut seen = vec![false; n];
        let mut stack: Vec<Block> = self.cfg.succs(from).to_vec();
        let mut found = false;
        while let Some(x) = stack.pop() {
            if x == to {
                found = true;
                break;
            }
            if x == avoid || std::mem::replace(&mut seen[x.index()], true) {
                continue;
            }
            stack.extend_from_slice(self.cfg.succs(x));
        }
        self.reach_avoiding.borrow_mut().insert(key, found);
        found
    }
}

/// Convergence regions of the token-defining instructions ("Convergent Operation Semantics",
/// *Convergence Regions*: the program points dominated by the definition `D` from which a use of
/// its token can be reached), per block: `(D, last)` when the points of the block up to position
/// `last` are in the region of `D` (`u32::MAX`: the whole block, a use is reachable from its end).
/// A point after the last use in a block whose successors reach no use is outside the region.
pub(crate) fn token_regions(f: &Function, cfg: &Cfg, kinds: &[Kind]) -> Vec<Vec<(u32, u32)>> {
    let nb = f.blocks.len();
    let dt = DominatorTree::new(cfg);
    let mut out = vec![Vec::new(); nb];
    let mut pos = vec![0u32; f.insts.len()];
    for b in 0..f.blocks.len() {
        for (k, i) in f.block_range(Block(b as u32)).range().enumerate() {
            pos[i] = k as u32;
        }
    }
    // Uses of each token: (block, position of the using instruction).
    let mut uses: HashMap<u32, Vec<(Block, u32)>> = HashMap::new();
    for (i, inst) in f.insts.iter().enumerate() {
        if !inst.op.is_call_like() {
            continue;
        }
        let ci = &f.calls[inst.aux as usize];
        for bd in &f.bundles[ci.bundles.range()] {
            for &v in &f.operands[bd.operands.range()] {
                if let Value::Inst(d) = v {
                    uses.entry(d.0).or_default().push((inst.block, pos[i]));
                }
            }
        }
    }
    for (d, kind) in kinds.iter().enumerate() {
        if !matches!(
            kind,
            Kind::Call(CallKind::TokEntry | CallKind::TokAnchor | CallKind::TokLoop)
        ) {
            continue;
        }
        let Some(ub) = uses.get(&(d as u32)) else {
            continue;
        };
        let db = f.insts[d].block;
        // Backwards from the uses, staying inside D's dominance region.
        let mut inr = vec![false; nb];
        let mut stack: Vec<Block> = ub.iter().map(|u| u.0).collect();
        while let Some(b) = stack.pop() {
            if inr[b.index()] || !dt.is_reachable(b) || !dt.dominates(db, b) {
                continue;
            }
            inr[b.index()] = true;
            if b != db {
                stack.extend_from_slice(cfg.preds(b));
            }
        }
        for b in 0..nb {
            if !inr[b] {
                continue;
            }
            // The end of the block is in the region when a successor other than D's block
            // (re-entering it executes D again: a new token) is.
            let tail = cfg
                .succs(Block(b as u32))
                .iter()
                .any(|&s| s != db && inr[s.index()]);
            let last = if tail {
                u32::MAX
            } else {
                ub.iter()
                    .filter(|u| u.0.index() == b)
                    .map(|u| u.1)
                    .max()
                    .unwrap_or(0)
            };
            out[b].push((d as u32, last));
        }
    }
    out
}

pub(crate) fn elem_ty(p: &Program<'_>, t: TypeId) -> TypeId {
    match p.ty(t) {
        Type::Vector { elem, .. } => *elem,
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Hierarchy;

    /// `reaches` with `avoid` under two hierarchies of one irreducible cycle {a, b}: with `a` as
    /// header the path b -> a -> b passes a header of a cycle around b, with `b` as header it
    /// does not. The remembered answer of the first question must not answer the second.
    #[test]
    fn reaches_is_remembered_per_hierarchy() {
        let text = "define void @f(i1 %c, i1 %d) {\nentry:\n  br i1 %c, label %a, label %b\n\
                    a:\n  br label %b\nb:\n  br i1 %d, label %a, label %x\nx:\n  ret void\n}\n";
        let m = converge_ir::parse("t.ll", text.to_string()).expect("parses");
        let p = Program::new(&m, &m.functions[0], Target::Amdgpu);
        let (a, b) = (Block(1), Block(2));
        let mut by_header = Vec::new();
        for h in [Hierarchy::llvm(&p.cfg), Hierarchy::reversed(&p.cfg)] {
            let header = [a, b]
                .into_iter()
                .find(|&x| h.is_header(x))
                .expect("a header");
            let fresh = Program::new(&m, &m.functions[0], Target::Amdgpu);
            let expect = fresh.reaches(&h, b, b, true);
            assert_eq!(expect, header == b, "header {header:?}");
            assert_eq!(p.reaches(&h, b, b, true), expect, "header {header:?}");
            by_header.push(header);
        }
        assert_ne!(by_header[0], by_header[1], "the two hierarchies differ");
    }
}
