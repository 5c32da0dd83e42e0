//! Instructions printed from the IR structure, after LLVM's `AssemblyWriter::printInstruction`.
//!
//! The per-module tables that LLVM's `SlotTracker` builds are computed once per module
//! ([`Tables`], cached in [`Module::print_tables`]):
//! - attribute-set numbers as `Value::print` of one instruction sees them: every function's
//!   function-attribute set in module order (equal sets share a number), then the call-site
//!   function-attribute sets of that instruction's function, in instruction order;
//! - metadata numbers as `Value::print` sees them: the nodes reachable from named metadata (pre-order),
//!   then the function's own attachments, then per instruction its metadata operands and its
//!   attachments (sorted by kind id, as `getAllMetadata` returns them);
//! - attachment-kind order: LLVM's fixed kinds by id, then custom kinds in order of first use;
//! - ABI/preferred alignments from the datalayout, for `load`/`store`/`alloca`/atomics written
//!   without `align` (LLVM's reader fills them in).
//!
//! Not modelled, taken from the instruction's source tokens instead: fast-math flags (the reader
//! keeps one bit), call return attributes, `getelementptr nusw`/`inrange`, `alloca
//! inalloca`/`swifterror`. Parameter and return attributes print in LLVM's sorted order (kind
//! class, then enum order), with `nocapture` as `captures(none)` (LLVM 21+).
//!
//! Known deviations: intrinsic declarations get a function-attribute set by a coarse class
//! (convergence-control, work-item-id reads, other) instead of LLVM's per-intrinsic tables;
//! overloaded intrinsic names are not re-mangled (`@llvm.amdgcn.readfirstlane` stays, LLVM 19 prints
//! `.i32`); metadata nodes are not uniqued by content; global-variable attachments and the
//! operands of inline (unnumbered) specialised nodes are not numbered; constants follow LLVM 22
//! (`splat (i32 7)` where LLVM 19 prints `<i32 7, i32 7>`); default alignments come from the
//! module's datalayout, or the target's (NVPTX, AMDGPU, x86-64) when only a triple is given.

use super::{escape_into, is_bare_name, opcode_name};
use crate::fx::FxHashMap;
use crate::lexer::{Lexer, Tok};
use crate::*;
use std::fmt::Write;

/// Per-module numbering tables (see the module comment).
#[derive(Clone, Debug, Default)]
pub struct Tables {
    /// Per function, per call index: the attribute-set number of its call-site function
    /// attributes (`u32::MAX` = none).
    call_attr: Vec<Vec<u32>>,
    /// Per function: metadata id → printed number.
    md_num: Vec<FxHashMap<u32, u32>>,
    /// Numbers of the nodes reachable from named metadata (shared by every function).
    md_named: FxHashMap<u32, u32>,
    /// The same two tables as `opt -S` numbers them for the whole module: call-site sets and
    /// metadata accumulate over the functions in order.
    call_attr_module: Vec<Vec<u32>>,
    md_num_module: FxHashMap<u32, u32>,
    /// Attachment kind → sort rank.
    kind_rank: FxHashMap<Sym, u32>,
    layout: Layout,
}

/// The datalayout's alignment rules that matter for defaults (bytes).
#[derive(Clone, Debug)]
struct Layout {
    /// (bit width, abi, pref), sorted by width.
    ints: Vec<(u32, u32, u32)>,
    floats: Vec<(u32, u32, u32)>,
    vectors: Vec<(u32, u32, u32)>,
    /// (address space, abi, pref); address space 0 is the default for the others.
    ptrs: Vec<(u32, u32, u32)>,
    agg_pref: u32,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
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

impl Layout {
    fn parse(dl: &str) -> Layout {
        let mut l = Layout::default();
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
}

fn pow2_ceil(x: u64) -> u64 {
    x.max(1).next_power_of_two()
}

/// LLVM's fixed metadata kinds, in id order.
const FIXED_KINDS: &[&str] = &[
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

const FMF: [&str; 7] = ["reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"];

fn fmf_bit(w: &str) -> u32 {
    if w == "fast" {
        return 0x7f;
    }
    FMF.iter().position(|x| *x == w).map_or(0, |i| 1 << i)
}

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
            layout: Layout::parse(
                m.datalayout
                    .as_deref()
                    .or_else(|| m.triple.as_deref().and_then(target_layout))
                    .unwrap_or(""),
            ),
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
            for inst in &func.insts {
                if has_records {
                    // Debug records before the instruction: variable, assignment id, location.
                    let gap = m
                        .source
                        .as_bytes()
                        .get(prev_end..inst.span.start as usize)
                        .unwrap_or(b"");
                    records.clear();
                    record_refs(gap, m.first_inline_md, &mut records);
                    for &r in &records {
                        visit(MdId(r), &mut map);
                    }
                }
                prev_end = inst.span.end as usize;
                if inst.op.is_call_like() {
                    for v in &func.operands[inst.operands.range()] {
                        if let Value::Meta(md) = v {
                            visit(*md, &mut map);
                        }
                    }
                }
                sorted.clear();
                sorted.extend(
                    func.md_attachments[inst.md.range()]
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

/// Which attribute set LLVM gives an intrinsic declaration (it adds the intrinsic's own
/// attributes). Without LLVM's intrinsic tables this is a coarse guess: the convergence-control
/// intrinsics, the work-item/thread-id reads, and everything else share one set per class.
fn intrinsic_class(name: &str) -> u32 {
    if name.starts_with("llvm.experimental.convergence.") {
        1
    } else if name.starts_with("llvm.nvvm.read.ptx.sreg.")
        || name.starts_with("llvm.amdgcn.workitem.id.")
        || name.starts_with("llvm.amdgcn.workgroup.id.")
    {
        2
    } else {
        3
    }
}

/// The numbering one printing call uses: `Value::print`'s (per function) or `opt -S`'s (module).
struct Slots<'a> {
    /// Looked up first (named metadata in `Value::print` mode; the whole module otherwise).
    md_first: &'a FxHashMap<u32, u32>,
    md: Option<&'a FxHashMap<u32, u32>>,
    /// Metadata operands (`metadata !0`) print with a tracker that numbers the whole module's
    /// metadata, in `Value::print` too.
    md_operands: &'a FxHashMap<u32, u32>,
    call_attr: &'a [u32],
    kind_rank: &'a FxHashMap<Sym, u32>,
    layout: &'a Layout,
    /// Call-site attribute groups as the source wrote them (`#N`), for [`Numbering::Source`].
    source_attrs: bool,
    /// An operand bundle to add to a call (the token-inserting transform's).
    extra_bundle: Option<&'a str>,
    /// Successors printed as another (new) block: (successor, label as printed without `%`).
    retarget: &'a [(converge_graph::Block, &'a str)],
    /// A header phi whose entering predecessors now come through a new preheader.
    phi_merge: Option<PhiMerge<'a>>,
    /// Phi entries left out.
    drop_preds: &'a [converge_graph::Block],
    extra_fn_attr: Option<&'a str>,
}

/// How a header phi is printed when its entering edges are redirected through a new preheader:
/// the entries of `preds` become one entry `[ value, %label ]` at the place of the first, where
/// the value is `merged` (a phi in the preheader) or, with one predecessor, its own value.
#[derive(Copy, Clone)]
pub(crate) struct PhiMerge<'a> {
    pub preds: &'a [converge_graph::Block],
    pub label: &'a str,
    pub merged: Option<&'a str>,
}

/// A transform's change to one printed instruction (source numbering only).
#[derive(Copy, Clone, Default)]
pub(crate) struct InstEdit<'a> {
    pub extra_bundle: Option<&'a str>,
    pub retarget: &'a [(converge_graph::Block, &'a str)],
    pub phi_merge: Option<PhiMerge<'a>>,
    /// Phi entries from these blocks are left out (their edges were redirected).
    pub drop_preds: &'a [converge_graph::Block],
    /// A function attribute added to a call (`convergent`).
    pub extra_fn_attr: Option<&'a str>,
}

/// Which numbering of attribute groups and metadata a printed instruction uses.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Numbering {
    /// `Value::print`'s (per instruction's function).
    Value,
    /// `opt -S`'s for the whole module.
    Module,
    /// The source's own numbers.
    Source,
}

/// The node a metadata reference stands for (`Node` links followed).
fn md_resolve(m: &Module, mut md: MdId) -> MdId {
    for _ in 0..64 {
        match m.metadata.get(md.0 as usize) {
            Some(Metadata::Node(n)) => md = *n,
            _ => break,
        }
    }
    md
}

/// Whether LLVM gives this metadata a slot (an `MDNode`, not a string or a wrapped value).
fn md_is_node(m: &Module, md: MdId) -> bool {
    matches!(
        m.metadata.get(md.0 as usize),
        Some(Metadata::Tuple(_) | Metadata::Special(_))
    )
}

/// Pre-order numbering of `md` and the nodes it reaches (LLVM's `CreateMetadataSlot`), iterative.
/// Nodes already in `base` keep their numbers; new ones are numbered from `base.len()` on.
fn number_md(
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
fn special_children(m: &Module) -> FxHashMap<u32, Vec<u32>> {
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
fn refs_until_end(lex: &mut Lexer, b: &[u8], limit: u32, out: &mut Vec<u32>, one_group: bool) {
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
fn record_refs(gap: &[u8], limit: u32, out: &mut Vec<u32>) {
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

/// Source tokens of an instruction, as text.
fn src_tokens(src: &[u8]) -> Vec<(Tok, &str)> {
    let mut lex = Lexer::new(src);
    let mut v = Vec::new();
    loop {
        let t = lex.next();
        if matches!(t.kind, Tok::Eof | Tok::Error) {
            break;
        }
        v.push((
            t.kind,
            std::str::from_utf8(&src[t.start as usize..t.end as usize]).unwrap_or(""),
        ));
    }
    v
}

fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "half"
            | "bfloat"
            | "float"
            | "double"
            | "x86_fp80"
            | "fp128"
            | "ppc_fp128"
            | "x86_amx"
            | "ptr"
            | "label"
            | "token"
            | "metadata"
            | "target"
            | "addrspace"
    ) || (w.len() > 1 && w.starts_with('i') && w[1..].bytes().all(|c| c.is_ascii_digit()))
}

fn ordering_text(o: Ordering) -> &'static str {
    match o {
        Ordering::NotAtomic => "",
        Ordering::Unordered => "unordered",
        Ordering::Monotonic => "monotonic",
        Ordering::Acquire => "acquire",
        Ordering::Release => "release",
        Ordering::AcqRel => "acq_rel",
        Ordering::SeqCst => "seq_cst",
    }
}

fn ordering_from(x: u64) -> Ordering {
    match x {
        1 => Ordering::Unordered,
        2 => Ordering::Monotonic,
        3 => Ordering::Acquire,
        4 => Ordering::Release,
        5 => Ordering::AcqRel,
        6 => Ordering::SeqCst,
        _ => Ordering::NotAtomic,
    }
}

const IPREDS: [&str; 10] = [
    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
];
const FPREDS: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];
const RMW: [&str; 21] = [
    "xchg",
    "add",
    "sub",
    "and",
    "nand",
    "or",
    "xor",
    "max",
    "min",
    "umax",
    "umin",
    "fadd",
    "fsub",
    "fmax",
    "fmin",
    "fmaximum",
    "fminimum",
    "uinc_wrap",
    "udec_wrap",
    "usub_cond",
    "usub_sat",
];

impl Module {
    /// The printing tables of this module (built on first use; the module must not change after).
    pub fn print_tables(&self) -> &Tables {
        self.print_tables.get_or_init(|| Tables::build(self))
    }

    /// The tables printing with the source's numbers needs (the full ones if already built).
    fn source_print_tables(&self) -> &Tables {
        if let Some(t) = self.print_tables.get() {
            return t;
        }
        self.source_print_tables
            .get_or_init(|| Tables::build_light(self))
    }

    fn write_sigil(&self, out: &mut String, prefix: char, name: &str) {
        out.push(prefix);
        if is_bare_name(name) {
            out.push_str(name);
        } else {
            out.push('"');
            escape_into(out, name.as_bytes());
            out.push('"');
        }
    }

    fn write_local(&self, out: &mut String, n: LocalName) {
        match n {
            LocalName::Named(s) => self.write_sigil(out, '%', self.str(s)),
            LocalName::Slot(k) => {
                let _ = write!(out, "%{k}");
            }
            LocalName::None => out.push_str("<badref>"),
        }
    }

    fn write_block_ref(
        &self,
        out: &mut String,
        t: &Slots<'_>,
        f: FuncId,
        b: converge_graph::Block,
    ) {
        out.push_str("label ");
        if let Some((_, name)) = t.retarget.iter().find(|(x, _)| *x == b) {
            out.push('%');
            out.push_str(name);
            return;
        }
        match self.func(f).blocks.get(b.index()) {
            Some(bd) => self.write_local(out, bd.name),
            None => out.push_str("<badref>"),
        }
    }

    fn write_md_ref(&self, out: &mut String, map: Option<&FxHashMap<u32, u32>>, md: MdId) {
        let r = md_resolve(self, md);
        match map.and_then(|m| m.get(&r.0)) {
            Some(n) => {
                let _ = write!(out, "!{n}");
            }
            None => self.write_md(out, r, 0),
        }
    }

    fn write_operand(&self, out: &mut String, t: &Slots<'_>, f: FuncId, v: Value) {
        let func = self.func(f);
        match v {
            Value::Arg(a) => match func.params.get(a as usize) {
                Some(p) => self.write_local(out, p.name),
                None => out.push_str("<badref>"),
            },
            Value::Inst(i) => match func.insts.get(i.0 as usize) {
                Some(x) => self.write_local(out, x.name),
                None => out.push_str("<badref>"),
            },
            Value::Global(g) => {
                self.write_sigil(out, '@', self.str(self.globals[g.0 as usize].name))
            }
            Value::Func(g) => self.write_sigil(out, '@', self.str(self.func(g).name)),
            Value::Const(c) => self.write_const(out, c, 0),
            Value::Meta(m) => self.write_md_ref(out, Some(t.md_operands), m),
            Value::Block(b) => match func.blocks.get(b.index()) {
                Some(bd) => self.write_local(out, bd.name),
                None => out.push_str("<badref>"),
            },
            Value::Asm(_) => out.push_str(&self.value_name(f, v)),
        }
    }

    fn write_value_type(&self, out: &mut String, f: FuncId, v: Value) {
        match v {
            Value::Global(g) => match self.globals[g.0 as usize].addrspace {
                0 => out.push_str("ptr"),
                a => {
                    let _ = write!(out, "ptr addrspace({a})");
                }
            },
            Value::Func(_) | Value::Asm(_) => out.push_str("ptr"),
            Value::Meta(_) => out.push_str("metadata"),
            Value::Block(_) => out.push_str("label"),
            Value::Const(c) => self.write_const_type(out, c),
            _ => self.write_type(out, self.value_type(f, v)),
        }
    }

    fn write_typed(&self, out: &mut String, t: &Slots<'_>, f: FuncId, v: Value) {
        self.write_value_type(out, f, v);
        out.push(' ');
        self.write_operand(out, t, f, v);
    }

    fn same_type(&self, f: FuncId, a: Value, b: Value) -> bool {
        // Globals and functions are pointers whose type id the module may not hold.
        let space = |v: Value| match v {
            Value::Global(g) => Some(Some(self.globals[g.0 as usize].addrspace)),
            Value::Func(_) | Value::Asm(_) => Some(Some(0)),
            _ => None,
        };
        match (space(a), space(b)) {
            (None, None) => self.value_type(f, a) == self.value_type(f, b),
            (x, y) => {
                let of = |s: Option<Option<u32>>, v: Value| {
                    s.unwrap_or_else(|| match self.types.get(self.value_type(f, v)) {
                        Type::Ptr(k) => Some(*k),
                        _ => None,
                    })
                };
                let (x, y) = (of(x, a), of(y, b));
                x.is_some() && x == y
            }
        }
    }

    /// (abi, pref) alignment in bytes.
    fn type_align(&self, l: &Layout, ty: TypeId, depth: u32) -> (u64, u64) {
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
        match self.types.get(ty) {
            Type::Int(n) => pick(&l.ints, *n),
            Type::Half | Type::BFloat => pick(&l.floats, 16),
            Type::Float => pick(&l.floats, 32),
            Type::Double => pick(&l.floats, 64),
            Type::X86Fp80 | Type::Fp128 | Type::PpcFp128 => (16, 16),
            Type::Ptr(a) => {
                let e = l
                    .ptrs
                    .iter()
                    .find(|e| e.0 == *a)
                    .or_else(|| l.ptrs.iter().find(|e| e.0 == 0))
                    .copied()
                    .unwrap_or((0, 8, 8));
                (e.1 as u64, e.2 as u64)
            }
            Type::Vector { len, elem, .. } => {
                let bits = self.type_bits(*elem, depth + 1) * *len as u64;
                if let Some(e) = l.vectors.iter().find(|e| e.0 as u64 == bits) {
                    return (e.1 as u64, e.2 as u64);
                }
                let a = pow2_ceil(bits.div_ceil(8));
                (a, a)
            }
            Type::Array { elem, .. } => self.type_align(l, *elem, depth + 1),
            Type::Struct { fields, packed } => {
                let mut a = 1;
                if !packed {
                    for fty in self.types.list(*fields) {
                        a = a.max(self.type_align(l, *fty, depth + 1).0);
                    }
                }
                (a, a.max(l.agg_pref as u64))
            }
            Type::Named(i) => match self.types.named[*i as usize].1 {
                Some(b) => self.type_align(l, b, depth + 1),
                None => (1, 1),
            },
            _ => (1, 1),
        }
    }

    fn type_bits(&self, ty: TypeId, depth: u32) -> u64 {
        match self.types.get(ty) {
            Type::Int(n) => *n as u64,
            Type::Half | Type::BFloat => 16,
            Type::Float => 32,
            Type::Double => 64,
            Type::X86Fp80 => 80,
            Type::Fp128 | Type::PpcFp128 => 128,
            Type::Ptr(_) => 64,
            Type::Vector { len, elem, .. } if depth < 32 => {
                self.type_bits(*elem, depth + 1) * *len as u64
            }
            _ => 0,
        }
    }

    /// Store size in bytes of a scalar or vector type (the default alignment of atomics).
    fn store_size(&self, l: &Layout, ty: TypeId) -> u64 {
        match self.types.get(ty) {
            Type::Ptr(a) => {
                let _ = (l, a);
                8
            }
            _ => self.type_bits(ty, 0).div_ceil(8).max(1),
        }
    }

    /// Writes the instruction as LLVM's `Value::print` does (two leading spaces, no newline) into
    /// `out` (appended).
    pub fn inst_text_into(&self, out: &mut String, f: FuncId, i: InstId) {
        self.write_inst(out, f, i, Numbering::Value, &InstEdit::default());
    }

    /// Like [`Module::inst_text_into`], but with attribute-group and metadata numbers as `opt -S`
    /// prints them in a whole module (numbers accumulate over the functions).
    pub fn inst_text_module_into(&self, out: &mut String, f: FuncId, i: InstId) {
        self.write_inst(out, f, i, Numbering::Module, &InstEdit::default());
    }

    /// Like [`Module::inst_text_into`], but with the source's own attribute-group and metadata
    /// numbers (`#N`, `!N` as written), so the text fits the module's unchanged definitions, and
    /// with a transform's edit of the instruction (see [`InstEdit`]).
    pub(crate) fn inst_text_source_into(
        &self,
        out: &mut String,
        f: FuncId,
        i: InstId,
        edit: &InstEdit<'_>,
    ) {
        self.write_inst(out, f, i, Numbering::Source, edit);
    }

    /// A value operand without its type, with the source's numbering.
    pub(crate) fn operand_source_into(&self, out: &mut String, f: FuncId, v: Value) {
        let empty = FxHashMap::default();
        let tables = self.source_print_tables();
        let t = Slots {
            md_first: &empty,
            md: None,
            call_attr: &[],
            md_operands: &empty,
            kind_rank: &tables.kind_rank,
            layout: &tables.layout,
            source_attrs: true,
            extra_bundle: None,
            retarget: &[],
            phi_merge: None,
            drop_preds: &[],
            extra_fn_attr: None,
        };
        self.write_operand(out, &t, f, v);
    }

    fn write_inst(
        &self,
        out: &mut String,
        f: FuncId,
        i: InstId,
        numbering: Numbering,
        edit: &InstEdit<'_>,
    ) {
        let extra_bundle = edit.extra_bundle;
        let tables = if numbering == Numbering::Source {
            self.source_print_tables()
        } else {
            self.print_tables()
        };
        let fi = f.0 as usize;
        let empty = FxHashMap::default();
        let slots = match numbering {
            Numbering::Value | Numbering::Module => {
                let module = numbering == Numbering::Module;
                Slots {
                    md_first: if module {
                        &tables.md_num_module
                    } else {
                        &tables.md_named
                    },
                    md: if module { None } else { tables.md_num.get(fi) },
                    call_attr: if module {
                        tables.call_attr_module.get(fi)
                    } else {
                        tables.call_attr.get(fi)
                    }
                    .map_or(&[], |v| v.as_slice()),
                    md_operands: &tables.md_num_module,
                    kind_rank: &tables.kind_rank,
                    layout: &tables.layout,
                    source_attrs: false,
                    extra_bundle,
                    retarget: &[],
                    phi_merge: None,
                    drop_preds: &[],
                    extra_fn_attr: None,
                }
            }
            Numbering::Source => Slots {
                md_first: &empty,
                md: None,
                call_attr: &[],
                md_operands: &empty,
                kind_rank: &tables.kind_rank,
                layout: &tables.layout,
                source_attrs: true,
                extra_bundle: edit.extra_bundle,
                retarget: edit.retarget,
                phi_merge: edit.phi_merge,
                drop_preds: edit.drop_preds,
                extra_fn_attr: edit.extra_fn_attr,
            },
        };
        let t = &slots;
        let func = self.func(f);
        let inst = func.inst(i);
        let ops = &func.operands[inst.operands.range()];
        let blocks = &func.block_refs[inst.blocks.range()];
        let aux = &func.aux[inst.aux_list.range()];
        let src = self
            .source
            .as_bytes()
            .get(inst.span.start as usize..inst.span.end as usize)
            .unwrap_or(b"");
        // The source is lexed only for what the reader does not keep (see the module comment).
        let needs_src = inst.flags & flags::FAST_MATH != 0
            || match inst.op {
                Opcode::Call | Opcode::Invoke | Opcode::CallBr => true,
                Opcode::GetElementPtr => inst.flags & flags::INBOUNDS == 0,
                Opcode::Alloca | Opcode::CatchSwitch => true,
                _ => false,
            };
        let toks = if needs_src {
            src_tokens(src)
        } else {
            Vec::new()
        };
        // Words right after the opcode keyword (flags written in the source).
        let op_pos = toks
            .iter()
            .position(|(k, w)| {
                *k == Tok::Ident && (opcode_word(w) || matches!(*w, "tail" | "musttail" | "notail"))
            })
            .unwrap_or(0);
        let fmf = {
            let mut bits = 0;
            for (k, w) in toks.iter().skip(op_pos + 1) {
                if *k != Tok::Ident {
                    break;
                }
                if *w == "call" {
                    continue;
                }
                let b = fmf_bit(w);
                if b == 0 && !matches!(*w, "nuw" | "nsw" | "exact" | "disjoint" | "nneg") {
                    break;
                }
                bits |= b;
            }
            bits
        };
        let src_has = |w: &str| {
            toks.iter()
                .skip(op_pos + 1)
                .take_while(|(k, _)| *k == Tok::Ident)
                .any(|(_, x)| *x == w)
        };
        let write_fmf = |out: &mut String| {
            if fmf == 0x7f {
                out.push_str(" fast");
            } else {
                for (b, name) in FMF.iter().enumerate() {
                    if fmf & (1 << b) != 0 {
                        out.push(' ');
                        out.push_str(name);
                    }
                }
            }
        };
        out.push_str("  ");
        if inst.name != LocalName::None {
            self.write_local(out, inst.name);
            out.push_str(" = ");
        }
        let fl = inst.flags;
        if inst.op == Opcode::Call {
            if fl & flags::TAIL != 0 {
                out.push_str("tail ");
            } else if fl & flags::MUSTTAIL != 0 {
                out.push_str("musttail ");
            } else if fl & flags::NOTAIL != 0 {
                out.push_str("notail ");
            }
        }
        out.push_str(opcode_name(inst.op));
        // The generic operand list: the first operand's type once if all operands share it.
        let generic = |out: &mut String, ops: &[Value], all: bool| {
            let all = all || ops.iter().skip(1).any(|v| !self.same_type(f, ops[0], *v));
            if ops.is_empty() {
                return;
            }
            out.push(' ');
            if !all {
                self.write_value_type(out, f, ops[0]);
                out.push(' ');
            }
            for (k, v) in ops.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                if all {
                    self.write_typed(out, t, f, *v);
                } else {
                    self.write_operand(out, t, f, *v);
                }
            }
        };
        let write_align = |out: &mut String, a: u64| {
            let _ = write!(out, ", align {a}");
        };
        let write_sync = |out: &mut String| {
            if let Some(s) = inst.syncscope {
                out.push_str(" syncscope(\"");
                escape_into(out, self.str(s).as_bytes());
                out.push_str("\")");
            }
        };
        use Opcode::*;
        match inst.op {
            Add | Sub | Mul | Shl | UDiv | SDiv | URem | SRem | LShr | AShr | And | Or | Xor
            | FAdd | FSub | FMul | FDiv | FRem | FNeg => {
                if fl & flags::NUW != 0 {
                    out.push_str(" nuw");
                }
                if fl & flags::NSW != 0 {
                    out.push_str(" nsw");
                }
                if fl & flags::EXACT != 0 {
                    out.push_str(" exact");
                }
                if fl & flags::DISJOINT != 0 {
                    out.push_str(" disjoint");
                }
                write_fmf(out);
                generic(out, ops, false);
            }
            ICmp | FCmp => {
                if inst.op == ICmp {
                    if fl & flags::SAMESIGN != 0 {
                        out.push_str(" samesign");
                    }
                    out.push(' ');
                    out.push_str(IPREDS.get(inst.aux as usize).unwrap_or(&"<pred>"));
                } else {
                    write_fmf(out);
                    out.push(' ');
                    out.push_str(FPREDS.get(inst.aux as usize).unwrap_or(&"<pred>"));
                }
                generic(out, ops, false);
            }
            Trunc | ZExt | SExt | FpTrunc | FpExt | FpToUi | FpToSi | UiToFp | SiToFp
            | PtrToInt | PtrToAddr | IntToPtr | BitCast | AddrSpaceCast => {
                if fl & flags::NNEG != 0 {
                    out.push_str(" nneg");
                }
                if fl & flags::NUW != 0 {
                    out.push_str(" nuw");
                }
                if fl & flags::NSW != 0 {
                    out.push_str(" nsw");
                }
                write_fmf(out);
                generic(out, ops, false);
                out.push_str(" to ");
                self.write_type(out, inst.ty);
            }
            Select => {
                write_fmf(out);
                generic(out, ops, true);
            }
            Freeze | ExtractElement | InsertElement | Resume => generic(out, ops, false),
            ShuffleVector => {
                generic(out, &ops[..ops.len().min(2)], true);
                out.push_str(", ");
                let n = aux.len();
                let _ = write!(out, "<{n} x i32> ");
                if !aux.is_empty() && aux.iter().all(|x| *x == 0) {
                    out.push_str("zeroinitializer");
                } else if aux.iter().all(|x| *x == u64::MAX) {
                    out.push_str("poison");
                } else {
                    out.push('<');
                    for (k, x) in aux.iter().enumerate() {
                        if k > 0 {
                            out.push_str(", ");
                        }
                        if *x == u64::MAX {
                            out.push_str("i32 poison");
                        } else {
                            let _ = write!(out, "i32 {}", *x as u32 as i32);
                        }
                    }
                    out.push('>');
                }
            }
            ExtractValue | InsertValue => {
                generic(out, ops, true);
                for x in aux {
                    let _ = write!(out, ", {x}");
                }
            }
            VaArg => {
                generic(out, ops, false);
                out.push_str(", ");
                self.write_type(out, inst.ty);
            }
            Phi => {
                write_fmf(out);
                out.push(' ');
                self.write_type(out, inst.ty);
                let mut merged_done = false;
                let mut k = 0;
                for (v, b) in ops.iter().zip(blocks) {
                    if t.drop_preds.contains(b) {
                        continue;
                    }
                    if let Some(pm) = &t.phi_merge
                        && pm.preds.contains(b)
                    {
                        if merged_done {
                            continue;
                        }
                        merged_done = true;
                        out.push_str(if k > 0 { ", [ " } else { " [ " });
                        match pm.merged {
                            Some(name) => {
                                out.push('%');
                                out.push_str(name);
                            }
                            None => self.write_operand(out, t, f, *v),
                        }
                        out.push_str(", %");
                        out.push_str(pm.label);
                        out.push_str(" ]");
                        k += 1;
                        continue;
                    }
                    out.push_str(if k > 0 { ", [ " } else { " [ " });
                    self.write_operand(out, t, f, *v);
                    out.push_str(", ");
                    match func.blocks.get(b.index()) {
                        Some(bd) => self.write_local(out, bd.name),
                        None => out.push_str("<badref>"),
                    }
                    out.push_str(" ]");
                    k += 1;
                }
            }
            GetElementPtr => {
                if fl & flags::INBOUNDS != 0 {
                    out.push_str(" inbounds");
                } else if src_has("nusw") {
                    out.push_str(" nusw");
                }
                if fl & flags::NUW != 0 {
                    out.push_str(" nuw");
                }
                out.push(' ');
                self.write_type(out, TypeId(inst.aux));
                out.push(',');
                generic(out, ops, false);
            }
            Alloca => {
                out.push(' ');
                if src_has("inalloca") {
                    out.push_str("inalloca ");
                }
                if src_has("swifterror") {
                    out.push_str("swifterror ");
                }
                let ty = TypeId(inst.aux2);
                self.write_type(out, ty);
                if aux.first() == Some(&1)
                    && let Some(&c) = ops.first()
                {
                    let one_i32 = matches!(c, Value::Const(k)
                        if matches!(self.consts[k.0 as usize].kind, ConstKind::Int { value: 1, .. })
                            && matches!(self.types.get(self.consts[k.0 as usize].ty), Type::Int(32)));
                    if !one_i32 {
                        out.push_str(", ");
                        self.write_typed(out, t, f, c);
                    }
                }
                let a = match aux.get(1) {
                    Some(&a) if a != 0 => a,
                    _ => self.type_align(t.layout, ty, 0).1,
                };
                write_align(out, a);
                if inst.aux != 0 {
                    let _ = write!(out, ", addrspace({})", inst.aux);
                }
            }
            Load => {
                let atomic = inst.ordering != Ordering::NotAtomic;
                if atomic {
                    out.push_str(" atomic");
                }
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                out.push(' ');
                self.write_type(out, inst.ty);
                out.push(',');
                generic(out, ops, false);
                if atomic {
                    write_sync(out);
                    out.push(' ');
                    out.push_str(ordering_text(inst.ordering));
                }
                let a = match aux.first() {
                    Some(&a) => a,
                    None => self.type_align(t.layout, inst.ty, 0).0,
                };
                write_align(out, a);
            }
            Store => {
                let atomic = inst.ordering != Ordering::NotAtomic;
                if atomic {
                    out.push_str(" atomic");
                }
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                generic(out, ops, true);
                if atomic {
                    write_sync(out);
                    out.push(' ');
                    out.push_str(ordering_text(inst.ordering));
                }
                let a = match aux.first() {
                    Some(&a) => a,
                    None => ops.first().map_or(1, |v| {
                        self.type_align(t.layout, self.value_type(f, *v), 0).0
                    }),
                };
                write_align(out, a);
            }
            Fence => {
                write_sync(out);
                out.push(' ');
                out.push_str(ordering_text(inst.ordering));
            }
            CmpXchg => {
                if fl & flags::WEAK != 0 {
                    out.push_str(" weak");
                }
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                generic(out, ops, true);
                write_sync(out);
                out.push(' ');
                out.push_str(ordering_text(inst.ordering));
                out.push(' ');
                out.push_str(ordering_text(ordering_from(
                    aux.first().copied().unwrap_or_default(),
                )));
                let a = match aux.get(1) {
                    Some(&a) => a,
                    None => ops
                        .get(1)
                        .map_or(1, |v| self.store_size(t.layout, self.value_type(f, *v))),
                };
                write_align(out, a);
            }
            AtomicRmw => {
                if fl & flags::VOLATILE != 0 {
                    out.push_str(" volatile");
                }
                out.push(' ');
                out.push_str(RMW.get(inst.aux as usize).unwrap_or(&"<op>"));
                generic(out, ops, true);
                write_sync(out);
                out.push(' ');
                out.push_str(ordering_text(inst.ordering));
                let a = match aux.first() {
                    Some(&a) => a,
                    None => self.store_size(t.layout, inst.ty),
                };
                write_align(out, a);
            }
            Ret => {
                if ops.is_empty() {
                    out.push_str(" void");
                } else {
                    generic(out, ops, true);
                }
            }
            Br => {
                out.push(' ');
                if let Some(&c) = ops.first() {
                    self.write_typed(out, t, f, c);
                    out.push_str(", ");
                }
                for (k, b) in blocks.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_block_ref(out, t, f, *b);
                }
            }
            Switch => {
                out.push(' ');
                if let Some(&c) = ops.first() {
                    self.write_typed(out, t, f, c);
                }
                if let Some(&d) = blocks.first() {
                    out.push_str(", ");
                    self.write_block_ref(out, t, f, d);
                }
                out.push_str(" [");
                for (v, b) in ops.iter().skip(1).zip(blocks.iter().skip(1)) {
                    out.push_str("\n    ");
                    self.write_typed(out, t, f, *v);
                    out.push_str(", ");
                    self.write_block_ref(out, t, f, *b);
                }
                out.push_str("\n  ]");
            }
            IndirectBr => {
                out.push(' ');
                if let Some(&c) = ops.first() {
                    self.write_typed(out, t, f, c);
                }
                out.push_str(", [");
                for (k, b) in blocks.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_block_ref(out, t, f, *b);
                }
                out.push(']');
            }
            Unreachable => {}
            CleanupRet => {
                out.push_str(" from ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                out.push_str(" unwind ");
                match blocks.first() {
                    Some(&b) => self.write_block_ref(out, t, f, b),
                    None => out.push_str("to caller"),
                }
            }
            CatchRet => {
                out.push_str(" from ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                out.push_str(" to ");
                if let Some(&b) = blocks.first() {
                    self.write_block_ref(out, t, f, b);
                }
            }
            CatchSwitch => {
                out.push_str(" within ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                // The reader puts the unwind destination first when there is one.
                let has_unwind = !toks.iter().any(|(k, w)| *k == Tok::Ident && *w == "caller");
                let (unwind, handlers) = if has_unwind && !blocks.is_empty() {
                    (Some(blocks[0]), &blocks[1..])
                } else {
                    (None, blocks)
                };
                out.push_str(" [");
                for (k, b) in handlers.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_block_ref(out, t, f, *b);
                }
                out.push_str("] unwind ");
                match unwind {
                    Some(b) => self.write_block_ref(out, t, f, b),
                    None => out.push_str("to caller"),
                }
            }
            CatchPad | CleanupPad => {
                out.push_str(" within ");
                if let Some(&p) = ops.first() {
                    self.write_operand(out, t, f, p);
                }
                out.push_str(" [");
                for (k, v) in ops.iter().skip(1).enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_typed(out, t, f, *v);
                }
                out.push(']');
            }
            LandingPad => {
                out.push(' ');
                self.write_type(out, inst.ty);
                if inst.aux == 1 {
                    out.push_str("\n          cleanup");
                }
                for (v, kind) in ops.iter().zip(aux) {
                    out.push_str(if *kind == 0 {
                        "\n          catch "
                    } else {
                        "\n          filter "
                    });
                    self.write_typed(out, t, f, *v);
                }
            }
            Call | Invoke | CallBr => self.write_call(out, t, f, i, &toks, op_pos, &write_fmf),
        }
        // Attachments, sorted by kind id.
        let mds = &func.md_attachments[inst.md.range()];
        if !mds.is_empty() {
            let mut sorted: Vec<(u32, usize)> = mds
                .iter()
                .enumerate()
                .map(|(k, (kind, _))| (t.kind_rank.get(kind).copied().unwrap_or(u32::MAX), k))
                .collect();
            sorted.sort_unstable();
            for (_, k) in sorted {
                let (kind, md) = mds[k];
                out.push_str(", ");
                self.write_sigil(out, '!', self.str(kind));
                out.push(' ');
                match t.md_first.get(&md_resolve(self, md).0) {
                    Some(n) => {
                        let _ = write!(out, "!{n}");
                    }
                    None => self.write_md_ref(out, t.md, md),
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_call(
        &self,
        out: &mut String,
        t: &Slots<'_>,
        f: FuncId,
        i: InstId,
        toks: &[(Tok, &str)],
        op_pos: usize,
        write_fmf: &dyn Fn(&mut String),
    ) {
        let func = self.func(f);
        let inst = func.inst(i);
        let Some(call) = func.calls.get(inst.aux as usize) else {
            return;
        };
        let ops = &func.operands[inst.operands.range()];
        let blocks = &func.block_refs[inst.blocks.range()];
        if inst.op == Opcode::Call {
            write_fmf(out);
        }
        if let CallConv::Named(s) = call.cc {
            out.push(' ');
            out.push_str(self.str(s));
        }
        // Return attributes, from the source (the reader does not keep them).
        let mut k = op_pos + 1;
        while k < toks.len() && toks[k].0 == Tok::Ident {
            let w = toks[k].1;
            if w == "call" || fmf_bit(w) != 0 || call_conv_word(w) {
                k += 1;
                if w == "cc" {
                    k += 1;
                }
                continue;
            }
            break;
        }
        let mut asp = None;
        let mut ret_attrs: Vec<(usize, usize)> = Vec::new();
        while k < toks.len() {
            let (kind, w) = toks[k];
            if kind == Tok::Ident && w == "addrspace" {
                // `addrspace(N)` of the callee.
                if let Some((_, n)) = toks.get(k + 2) {
                    asp = Some(*n);
                }
                k += 4;
                continue;
            }
            if kind != Tok::Ident || is_type_word(w) {
                break;
            }
            let start = out.len();
            out.push(' ');
            out.push_str(if w == "nocapture" && !t.source_attrs {
                "captures(none)"
            } else {
                w
            });
            k += 1;
            if toks.get(k).is_some_and(|x| x.0 == Tok::LParen) {
                let mut depth = 0;
                let mut prev_comma = false;
                while k < toks.len() {
                    let (tk, tw) = toks[k];
                    match tk {
                        Tok::LParen => depth += 1,
                        Tok::RParen => depth -= 1,
                        _ => {}
                    }
                    if tk != Tok::LParen && tk != Tok::RParen && tk != Tok::Comma {
                        let prev = toks[k - 1].0;
                        if prev != Tok::LParen && (prev_comma || prev != Tok::Comma) {
                            out.push(' ');
                        }
                    }
                    out.push_str(tw);
                    if tk == Tok::Comma {
                        prev_comma = true;
                    }
                    k += 1;
                    if depth == 0 {
                        break;
                    }
                }
            } else if matches!(w, "align" | "dereferenceable" | "dereferenceable_or_null")
                && toks.get(k).is_some_and(|x| x.0 == Tok::Integer)
            {
                out.push(' ');
                out.push_str(toks[k].1);
                k += 1;
            }
            ret_attrs.push((start, out.len()));
        }
        if ret_attrs.len() > 1 {
            // LLVM prints an attribute set sorted; re-order the texts just written.
            let mut texts: Vec<String> = ret_attrs
                .iter()
                .map(|&(a, b)| out[a..b].to_string())
                .collect();
            texts.sort_by(|a, b| {
                let key = |t: &str| -> String {
                    t.trim_start()
                        .split(['(', ' '])
                        .next()
                        .unwrap_or("")
                        .to_string()
                };
                attr_rank(&key(a)).cmp(&attr_rank(&key(b)))
            });
            out.truncate(ret_attrs[0].0);
            for t in texts {
                out.push_str(&t);
            }
        }
        if let Some(a) = asp
            && a != "0"
        {
            let _ = write!(out, " addrspace({a})");
        }
        out.push(' ');
        let (ret, vararg) = match self.types.get(call.fn_ty) {
            Type::Func { ret, vararg, .. } => (*ret, *vararg),
            _ => (inst.ty, false),
        };
        if vararg {
            self.write_type(out, call.fn_ty);
        } else {
            self.write_type(out, ret);
        }
        out.push(' ');
        self.write_operand(out, t, f, call.callee);
        out.push('(');
        let arg_attrs = &func.arg_attr_lists[call.arg_attrs.range()];
        for (k, v) in ops.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            self.write_value_type(out, f, *v);
            if let Some(r) = arg_attrs.get(k) {
                let attrs = &self.attrs[r.range()];
                if attrs.len() > 1 {
                    let mut sorted: Vec<&Attr> = attrs.iter().collect();
                    sorted.sort_by(|a, b| {
                        attr_rank(self.str(a.key)).cmp(&attr_rank(self.str(b.key)))
                    });
                    for a in sorted {
                        out.push(' ');
                        self.write_attr(out, a, t.source_attrs);
                    }
                } else {
                    for a in attrs {
                        out.push(' ');
                        self.write_attr(out, a, t.source_attrs);
                    }
                }
            }
            out.push(' ');
            self.write_operand(out, t, f, *v);
        }
        out.push(')');
        if let Some(&n) = t.call_attr.get(inst.aux as usize)
            && n != u32::MAX
        {
            let _ = write!(out, " #{n}");
        }
        if t.source_attrs && !call.fn_attrs.is_empty() {
            self.write_source_call_attrs(out, call, toks);
        }
        if let Some(a) = t.extra_fn_attr {
            out.push(' ');
            out.push_str(a);
        }
        let bundles = &func.bundles[call.bundles.range()];
        if !bundles.is_empty() || t.extra_bundle.is_some() {
            out.push_str(" [ ");
            for (k, b) in bundles.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push('"');
                escape_into(out, self.str(b.tag).as_bytes());
                out.push_str("\"(");
                for (j, v) in func.operands[b.operands.range()].iter().enumerate() {
                    if j > 0 {
                        out.push_str(", ");
                    }
                    self.write_typed(out, t, f, *v);
                }
                out.push(')');
            }
            if let Some(extra) = t.extra_bundle {
                if !bundles.is_empty() {
                    out.push_str(", ");
                }
                out.push_str(extra);
            }
            out.push_str(" ]");
        }
        match inst.op {
            Opcode::Invoke => {
                out.push_str("\n          to ");
                if let Some(&b) = blocks.first() {
                    self.write_block_ref(out, t, f, b);
                }
                out.push_str(" unwind ");
                if let Some(&b) = blocks.get(1) {
                    self.write_block_ref(out, t, f, b);
                }
            }
            Opcode::CallBr => {
                out.push_str("\n          to ");
                if let Some(&b) = blocks.first() {
                    self.write_block_ref(out, t, f, b);
                }
                out.push_str(" [");
                for (k, b) in blocks.iter().skip(1).enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write_block_ref(out, t, f, *b);
                }
                out.push(']');
            }
            _ => {}
        }
    }

    /// A call's function attributes as the source wrote them: its `#N` group references, or, when
    /// it has none, the attributes inline (LLVM reads both forms after the argument list).
    fn write_source_call_attrs(&self, out: &mut String, call: &CallInfo, toks: &[(Tok, &str)]) {
        let groups: Vec<&str> = toks
            .iter()
            .filter(|(k, _)| *k == Tok::AttrGrpId)
            .map(|(_, w)| *w)
            .collect();
        if groups.is_empty() {
            for a in &self.attrs[call.fn_attrs.range()] {
                out.push(' ');
                self.write_attr(out, a, true);
            }
        } else {
            for g in groups {
                out.push(' ');
                out.push_str(g);
            }
        }
    }

    /// One attribute; `nocapture` as `captures(none)` (LLVM 21+) unless `as_written` (the source
    /// numbering prints text LLVM 19 must read too, and both read `nocapture`).
    fn write_attr(&self, out: &mut String, a: &Attr, as_written: bool) {
        let key = self.str(a.key);
        if key == "nocapture" && !as_written {
            out.push_str("captures(none)");
            return;
        }
        if !is_keyword_attr(key) {
            out.push('"');
            escape_into(out, key.as_bytes());
            out.push('"');
            if let Some(v) = a.value {
                out.push_str("=\"");
                escape_into(out, self.str(v).as_bytes());
                out.push('"');
            }
            return;
        }
        out.push_str(key);
        if let Some(v) = a.value {
            let v = self.str(v);
            if key == "align" {
                out.push(' ');
                out.push_str(v);
            } else {
                out.push('(');
                push_type_text(out, v);
                out.push(')');
            }
        }
    }
}

/// Where LLVM sorts a parameter or return attribute: its kind class (enum, type, integer, range,
/// string: the order of LLVM's generated `AttrKind` enum) and then its record name.
fn attr_rank(key: &str) -> (u8, &str) {
    let (class, record) = match key {
        "allocalign" => (0, "AllocAlign"),
        "allocptr" => (0, "AllocatedPointer"),
        "dead_on_return" => (0, "DeadOnReturn"),
        "dead_on_unwind" => (0, "DeadOnUnwind"),
        "immarg" => (0, "ImmArg"),
        "inreg" => (0, "InReg"),
        "nest" => (0, "Nest"),
        "noalias" => (0, "NoAlias"),
        "nocapture" => (0, "NoCapture"),
        "noext" => (0, "NoExt"),
        "nofree" => (0, "NoFree"),
        "nonnull" => (0, "NonNull"),
        "noundef" => (0, "NoUndef"),
        "readnone" => (0, "ReadNone"),
        "readonly" => (0, "ReadOnly"),
        "returned" => (0, "Returned"),
        "signext" => (0, "SExt"),
        "swiftasync" => (0, "SwiftAsync"),
        "swifterror" => (0, "SwiftError"),
        "swiftself" => (0, "SwiftSelf"),
        "writable" => (0, "Writable"),
        "writeonly" => (0, "WriteOnly"),
        "zeroext" => (0, "ZExt"),
        "align" => (2, "Alignment"),
        "alignstack" => (2, "StackAlignment"),
        "captures" => (2, "Captures"),
        "dereferenceable" => (2, "Dereferenceable"),
        "dereferenceable_or_null" => (2, "DereferenceableOrNull"),
        "memory" => (2, "Memory"),
        "nofpclass" => (2, "NoFPClass"),
        "byref" => (1, "ByRef"),
        "byval" => (1, "ByVal"),
        "elementtype" => (1, "ElementType"),
        "inalloca" => (1, "InAlloca"),
        "preallocated" => (1, "Preallocated"),
        "sret" => (1, "StructRet"),
        "range" => (3, "Range"),
        "initializes" => (4, "Initializes"),
        _ if is_keyword_attr(key) => (0, key),
        _ => (5, key),
    };
    // `nocapture` reads as `captures(none)` from LLVM 21 on (22 is the reference).
    if key == "nocapture" {
        return (2, "Captures");
    }
    (class, record)
}

/// Appends the text of a type attribute's type (`byval(i32 addrspace(1)*)`), with a typed pointer
/// as a whole read as `ptr` the way LLVM 17+ reads it. Pointers nested in aggregates are left as
/// written (not modelled).
fn push_type_text(out: &mut String, t: &str) {
    let t = t.trim();
    let Some(body) = t.strip_suffix('*') else {
        out.push_str(t);
        return;
    };
    let body = body.trim_end();
    if let Some(open) = body.rfind("addrspace(")
        && body.ends_with(')')
    {
        let n = body[open + "addrspace(".len()..body.len() - 1].trim();
        if n == "0" {
            out.push_str("ptr");
        } else {
            out.push_str("ptr addrspace(");
            out.push_str(n);
            out.push(')');
        }
    } else {
        out.push_str("ptr");
    }
}

fn is_keyword_attr(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c == b'_' || c.is_ascii_digit())
}

fn call_conv_word(w: &str) -> bool {
    w == "cc"
        || w.ends_with("cc")
        || w.ends_with("_kernel")
        || w.ends_with("_func")
        || w.starts_with("amdgpu_")
        || w.starts_with("x86_")
        || w.starts_with("arm_")
        || w.starts_with("aarch64_")
        || w.starts_with("ptx_")
        || w.starts_with("spir_")
        || w.starts_with("preserve_")
        || w.starts_with("cxx_")
        || w.starts_with("swift")
        || w.starts_with("riscv_")
        || w.starts_with("msp430_")
        || w.starts_with("avr_")
        || w.starts_with("win64cc")
        || w.starts_with("anyregcc")
        || w.starts_with("hhvm")
        || w.starts_with("m68k_")
        || matches!(w, "fastcc" | "coldcc" | "ghccc" | "tailcc" | "graalcc")
}

fn opcode_word(w: &str) -> bool {
    matches!(
        w,
        "ret"
            | "br"
            | "switch"
            | "indirectbr"
            | "invoke"
            | "resume"
            | "unreachable"
            | "cleanupret"
            | "catchret"
            | "catchswitch"
            | "callbr"
            | "fneg"
            | "add"
            | "fadd"
            | "sub"
            | "fsub"
            | "mul"
            | "fmul"
            | "udiv"
            | "sdiv"
            | "fdiv"
            | "urem"
            | "srem"
            | "frem"
            | "shl"
            | "lshr"
            | "ashr"
            | "and"
            | "or"
            | "xor"
            | "extractelement"
            | "insertelement"
            | "shufflevector"
            | "extractvalue"
            | "insertvalue"
            | "alloca"
            | "load"
            | "store"
            | "fence"
            | "cmpxchg"
            | "atomicrmw"
            | "getelementptr"
            | "trunc"
            | "zext"
            | "sext"
            | "fptrunc"
            | "fpext"
            | "fptoui"
            | "fptosi"
            | "uitofp"
            | "sitofp"
            | "ptrtoint"
            | "ptrtoaddr"
            | "inttoptr"
            | "bitcast"
            | "addrspacecast"
            | "icmp"
            | "fcmp"
            | "phi"
            | "select"
            | "freeze"
            | "call"
            | "va_arg"
            | "landingpad"
            | "catchpad"
            | "cleanuppad"
    )
}
