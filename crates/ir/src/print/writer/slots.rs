//! Slot numbering as LLVM's `SlotTracker` does it, once per module ([`Tables`]): attribute-set
//! numbers, metadata numbers for `Value::print` and for `opt -S`, attachment-kind order, and the
//! call-site attribute groups the source wrote.

use super::*;

/// LLVM's fixed metadata kinds, in id order.
pub(super) const FIXED_KINDS: &[&str] = &[
    "dbg",
    "tbaa",
    "prof",
    "fpmath",
    "range",
    "tbaa.struct",
    "invariant.load",
    "alias.scope",
    "noalias",
    "nontemporal",
    "llvm.mem.parallel_loop_access",
    "nonnull",
    "dereferenceable",
    "dereferenceable_or_null",
    "make.implicit",
    "unpredictable",
    "invariant.group",
    "align",
    "llvm.loop",
    "type",
    "section_prefix",
    "absolute_symbol",
    "associated",
    "callees",
    "irr_loop",
    "llvm.access.group",
    "callback",
    "llvm.preserve.access.index",
    "vcall_visibility",
    "noundef",
    "annotation",
    "nosanitize",
    "func_sanitize",
    "exclude",
    "memprof",
    "callsite",
    "kcfi_type",
    "pcsections",
    "DIAssignID",
    "coro.outside.frame",
    "mmra",
    "noalias.addrspace",
];

impl Tables {
    /// Builds the tables of `m` without caching them (benchmarks; [`Module::print_tables`] caches).
    pub fn build_for(m: &Module) -> Tables {
        Tables::build(m)
    }

    pub(crate) fn build(m: &Module) -> Tables {
        let mut t = Tables::build_light(m);
        t.build_numbering(m);
        t
    }

    /// Only the attachment-kind order and the layout (what the source numbering needs).
    pub(crate) fn build_light(m: &Module) -> Tables {
        let mut t = Tables {
            layout: DataLayout::of_module(m),
            ..Tables::default()
        };
        // Attachment kinds.
        for (i, k) in FIXED_KINDS.iter().enumerate() {
            if let Some(s) = m.strings.get(k) {
                t.kind_rank.insert(s, i as u32);
            }
        }
        let mut next_kind = FIXED_KINDS.len() as u32;
        for func in &m.functions {
            for (k, _) in &func.md_attachments {
                t.kind_rank.entry(*k).or_insert_with(|| {
                    next_kind += 1;
                    next_kind
                });
            }
        }
        t
    }

    /// Attribute-set and metadata numbers as `Value::print` and `opt -S` number them.
    fn build_numbering(&mut self, m: &Module) {
        let t = self;
        // Attribute sets: function attributes, module-wide.
        let mut sets: FxHashMap<Vec<(u32, u32)>, u32> = FxHashMap::default();
        let align = m.strings.get("align");
        let key = |r: Range32, class: u32| -> Vec<(u32, u32)> {
            // `align N` after a function header is its alignment, not an attribute.
            let mut v: Vec<(u32, u32)> = m.attrs[r.range()]
                .iter()
                .filter(|a| Some(a.key) != align)
                .map(|a| (a.key.0, a.value.map_or(u32::MAX, |s| s.0)))
                .collect();
            if class != 0 {
                v.push((u32::MAX, class));
            }
            v.sort_unstable();
            v.dedup();
            v
        };
        for func in &m.functions {
            let name = m.str(func.name);
            let class = if !func.is_declaration || !name.starts_with("llvm.") {
                0
            } else {
                intrinsic_class(name)
            };
            let k = key(func.attrs, class);
            if !k.is_empty() {
                let n = sets.len() as u32;
                sets.entry(k).or_insert(n);
            }
        }
        let base = sets.len() as u32;
        let mut local: FxHashMap<Vec<(u32, u32)>, u32> = FxHashMap::default();
        let mut all = sets.clone();
        for func in &m.functions {
            local.clear();
            let mut nums = Vec::with_capacity(func.calls.len());
            let mut nums_mod = Vec::with_capacity(func.calls.len());
            for c in &func.calls {
                let k = key(c.fn_attrs, 0);
                if k.is_empty() {
                    nums.push(u32::MAX);
                    nums_mod.push(u32::MAX);
                    continue;
                }
                nums.push(match sets.get(&k) {
                    Some(&n) => n,
                    None => {
                        let n = base + local.len() as u32;
                        *local.entry(k.clone()).or_insert(n)
                    }
                });
                let n = all.len() as u32;
                nums_mod.push(*all.entry(k).or_insert(n));
            }
            t.call_attr.push(nums);
            t.call_attr_module.push(nums_mod);
        }
        // Metadata: named metadata first (shared), then per function.
        let special = special_children(m);
        let has_records = m.source.contains("#dbg_");
        let mut records: Vec<u32> = Vec::new();
        let mut named: FxHashMap<u32, u32> = FxHashMap::default();
        let empty: FxHashMap<u32, u32> = FxHashMap::default();
        let mut stack = Vec::new();
        for (_, r) in &m.named_metadata {
            for &md in &m.md_lists[r.range()] {
                number_md(m, &special, md, &empty, &mut named, &mut stack);
            }
        }
        let mut sorted: Vec<(u32, MdId)> = Vec::new();
        let mut module = named.clone();
        for func in &m.functions {
            // Per function only its own nodes; the named-metadata numbers are shared.
            let mut map = FxHashMap::default();
            let mut visit = |md: MdId, map: &mut FxHashMap<u32, u32>| {
                number_md(m, &special, md, &named, map, &mut stack);
                number_md(m, &special, md, &empty, &mut module, &mut stack);
            };
            for (_, md) in &func.md_attachments[func.md.range()] {
                visit(*md, &mut map);
            }
            let mut prev_end = func.span.start as usize;
            for (k, inst) in func.insts.iter().enumerate() {
                let id = InstId(k as u32);
                let span = func.inst_span(id);
                if has_records {
                    // Debug records before the instruction: variable, assignment id, location.
                    let gap = m
                        .source
                        .as_bytes()
                        .get(prev_end..span.start as usize)
                        .unwrap_or(b"");
                    records.clear();
                    record_refs(gap, m.first_inline_md, &mut records);
                    for &r in &records {
                        visit(MdId(r), &mut map);
                    }
                }
                prev_end = span.end as usize;
                if inst.op.is_call_like() {
                    for v in func.operands(id) {
                        if let Value::Meta(md) = v {
                            visit(*md, &mut map);
                        }
                    }
                }
                sorted.clear();
                sorted.extend(
                    func.inst_md(id)
                        .iter()
                        .map(|(k, md)| (t.kind_rank.get(k).copied().unwrap_or(u32::MAX), *md)),
                );
                sorted.sort_by_key(|x| x.0);
                for (_, md) in &sorted {
                    visit(*md, &mut map);
                }
            }
            t.md_num.push(map);
        }
        t.md_num_module = module;
        t.md_named = named;
    }
}

/// Which attribute set LLVM gives an intrinsic declaration (it adds the intrinsic's own
/// attributes). Without LLVM's intrinsic tables this is a coarse guess: the convergence-control
/// intrinsics, the work-item/thread-id reads, and everything else share one set per class.
pub(super) fn intrinsic_class(name: &str) -> u32 {
    if crate::intrinsics::is_convergence_family(name) {
        1
    } else if crate::intrinsics::nvptx::is_special_register(name)
        || matches!(
            crate::intrinsics::amdgpu::work_item(name),
            Some(
                crate::intrinsics::amdgpu::WorkItem::LocalId(_)
                    | crate::intrinsics::amdgpu::WorkItem::GroupId(_)
            )
        )
    {
        2
    } else {
        3
    }
}

/// The node a metadata reference stands for (`Node` links followed).
pub(super) fn md_resolve(m: &Module, mut md: MdId) -> MdId {
    for _ in 0..64 {
        match m.metadata.get(md.0 as usize) {
            Some(Metadata::Node(n)) => md = *n,
            _ => break,
        }
    }
    md
}

/// Whether LLVM gives this metadata a slot (an `MDNode`, not a string or a wrapped value).
pub(super) fn md_is_node(m: &Module, md: MdId) -> bool {
    matches!(
        m.metadata.get(md.0 as usize),
        Some(Metadata::Tuple(_) | Metadata::Special(_))
    )
}

/// Pre-order numbering of `md` and the nodes it reaches (LLVM's `CreateMetadataSlot`), iterative.
/// Nodes already in `base` keep their numbers; new ones are numbered from `base.len()` on.
pub(super) fn number_md(
    m: &Module,
    special: &FxHashMap<u32, Vec<u32>>,
    md: MdId,
    base: &FxHashMap<u32, u32>,
    map: &mut FxHashMap<u32, u32>,
    stack: &mut Vec<MdId>,
) {
    stack.clear();
    stack.push(md);
    while let Some(x) = stack.pop() {
        let x = md_resolve(m, x);
        if !md_is_node(m, x) || base.contains_key(&x.0) || map.contains_key(&x.0) {
            continue;
        }
        let n = (base.len() + map.len()) as u32;
        map.insert(x.0, n);
        match m.metadata.get(x.0 as usize) {
            Some(Metadata::Tuple(r)) => {
                for &c in m.md_lists[r.range()].iter().rev() {
                    stack.push(c);
                }
            }
            Some(Metadata::Special(_)) => {
                if let Some(cs) = special.get(&x.0) {
                    stack.extend(cs.iter().rev().map(|&c| MdId(c)));
                }
            }
            _ => {}
        }
    }
}

/// The `!N` operands of each specialised node definition (`!5 = !DILocation(scope: !3, ...)`),
/// read from the source lines that define them (the reader keeps only the node's name).
pub(super) fn special_children(m: &Module) -> FxHashMap<u32, Vec<u32>> {
    let mut out = FxHashMap::default();
    if !m.metadata.iter().any(|x| matches!(x, Metadata::Special(_))) {
        return out;
    }
    for line in m.source.lines() {
        let b = line.as_bytes();
        if b.len() < 2 || b[0] != b'!' || !b[1].is_ascii_digit() {
            continue;
        }
        let mut lex = Lexer::new(b);
        let _ = lex.next();
        let n = lex.next();
        let Ok(id) = line[n.start as usize..n.end as usize].parse::<u32>() else {
            continue;
        };
        if !matches!(m.metadata.get(id as usize), Some(Metadata::Special(_))) {
            continue;
        }
        let mut kids = Vec::new();
        refs_until_end(&mut lex, b, m.first_inline_md, &mut kids, false);
        out.insert(id, kids);
    }
    out
}

/// Appends the `!N` references the lexer meets (to the end, or to the end of the first
/// parenthesised group if `one_group`).
pub(super) fn refs_until_end(
    lex: &mut Lexer,
    b: &[u8],
    limit: u32,
    out: &mut Vec<u32>,
    one_group: bool,
) {
    let mut depth = 0i32;
    let mut bang = false;
    loop {
        let t = lex.next();
        match t.kind {
            Tok::Eof | Tok::Error => break,
            Tok::Exclaim => {
                bang = true;
                continue;
            }
            Tok::Integer if bang => {
                if let Some(n) = std::str::from_utf8(&b[t.start as usize..t.end as usize])
                    .ok()
                    .and_then(|x| x.parse::<u32>().ok())
                    .filter(|n| *n < limit)
                {
                    out.push(n);
                }
            }
            Tok::LParen => depth += 1,
            Tok::RParen => {
                depth -= 1;
                if one_group && depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        bang = false;
    }
}

/// The metadata references of the debug records (`#dbg_value(...)`) in `gap`.
pub(super) fn record_refs(gap: &[u8], limit: u32, out: &mut Vec<u32>) {
    if !gap.windows(5).any(|w| w == b"#dbg_") {
        return;
    }
    let mut lex = Lexer::new(gap);
    loop {
        let t = lex.next();
        match t.kind {
            Tok::Eof | Tok::Error => break,
            Tok::DbgRecord => refs_until_end(&mut lex, gap, limit, out, true),
            _ => {}
        }
    }
}
