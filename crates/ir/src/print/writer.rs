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

mod call;
mod control;
mod inst;
mod memory;
mod ops;
mod slots;

use crate::layout::DataLayout;
use inst::InstCx;
use slots::*;

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
    layout: DataLayout,
}

const FMF: [&str; 7] = ["reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"];

fn fmf_bit(w: &str) -> u32 {
    if w == "fast" {
        return 0x7f;
    }
    FMF.iter().position(|x| *x == w).map_or(0, |i| 1 << i)
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
    layout: &'a DataLayout,
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
            LocalName::None => out.push_str(crate::print::BADREF),
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
            Some(bd) => self.write_local(out, bd.name()),
            None => out.push_str(crate::print::BADREF),
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
                None => out.push_str(crate::print::BADREF),
            },
            Value::Inst(i) => match func.insts.get(i.0 as usize) {
                Some(x) => self.write_local(out, x.name()),
                None => out.push_str(crate::print::BADREF),
            },
            Value::Global(g) => {
                self.write_sigil(out, '@', self.str(self.globals[g.0 as usize].name))
            }
            Value::Func(g) => self.write_sigil(out, '@', self.str(self.func(g).name)),
            Value::Const(c) => self.write_const(out, c, 0),
            Value::Meta(m) => self.write_md_ref(out, Some(t.md_operands), m),
            Value::Block(b) => match func.blocks.get(b.index()) {
                Some(bd) => self.write_local(out, bd.name()),
                None => out.push_str(crate::print::BADREF),
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
