//! Names and text as LLVM's printer writes them: value operands (`%x`, `%3`, `@g`, constants), block
//! names as `print<cycles>` shows them, types, and whole instructions (`Value::print`).
//!
//! Instructions are printed from the IR structure like LLVM's `AssemblyWriter` (module `writer`):
//! canonical spacing, `ptr` for typed pointers, decimal/hex floats, attribute groups and metadata
//! renumbered as LLVM's slot tracker numbers them, default alignments filled in, attachments sorted
//! by kind. `Module::inst_text` uses `Value::print`'s numbering (what `print<uniformity>` shows);
//! `Module::inst_text_module_into` uses `opt -S`'s whole-module numbering. Deviations are listed in
//! the `writer` module comment. Numbered values keep their source numbers when the source numbering
//! has gaps (LLVM 20+ renumbers). `Module::inst_source_text` keeps the older normalised-source view.

use crate::lexer::{Lexer, Tok};
use crate::*;

mod float;
mod module;
pub use module::{BodyEdits, NoEdits, Preheader};
mod writer;
use converge_graph::Block;
use float::llvm_decimal;
use std::fmt::Write;

/// What LLVM prints for a reference it cannot name (a value or block without a name or slot, or
/// out of range): the one spelling every printer here uses.
pub(crate) const BADREF: &str = "<badref>";
pub use writer::Tables;

/// Whether a name can be printed without quotes.
fn is_bare_name(s: &str) -> bool {
    !s.is_empty()
        && !s.as_bytes()[0].is_ascii_digit()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_'))
}

/// Appends `s` with LLVM's string escapes (`\XX` for unprintable bytes, `"` and `\`).
pub fn escape_into(out: &mut String, s: &[u8]) {
    for &c in s {
        if (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\' {
            out.push(c as char);
        } else {
            let _ = write!(out, "\\{c:02X}");
        }
    }
}

/// `prefix` + name, quoted when LLVM would quote it.
pub fn sigil_name(prefix: char, name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 3);
    write_sigil_name(&mut out, prefix, name);
    out
}

/// [`sigil_name`] appended to `out`.
pub fn write_sigil_name(out: &mut String, prefix: char, name: &str) {
    out.push(prefix);
    if is_bare_name(name) {
        out.push_str(name);
    } else {
        out.push('"');
        escape_into(out, name.as_bytes());
        out.push('"');
    }
}

impl Module {
    /// A type as LLVM prints it.
    pub fn type_text(&self, t: TypeId) -> String {
        let mut s = String::new();
        self.write_type(&mut s, t);
        s
    }

    fn write_type(&self, out: &mut String, t: TypeId) {
        match self.types.get(t) {
            Type::Void => out.push_str("void"),
            Type::Int(n) => {
                let _ = write!(out, "i{n}");
            }
            Type::Half => out.push_str("half"),
            Type::BFloat => out.push_str("bfloat"),
            Type::Float => out.push_str("float"),
            Type::Double => out.push_str("double"),
            Type::X86Fp80 => out.push_str("x86_fp80"),
            Type::Fp128 => out.push_str("fp128"),
            Type::PpcFp128 => out.push_str("ppc_fp128"),
            Type::X86Amx => out.push_str("x86_amx"),
            Type::Ptr(0) => out.push_str("ptr"),
            Type::Ptr(a) => {
                let _ = write!(out, "ptr addrspace({a})");
            }
            Type::Label => out.push_str("label"),
            Type::Token => out.push_str("token"),
            Type::Metadata => out.push_str("metadata"),
            Type::Vector {
                len,
                scalable,
                elem,
            } => {
                out.push('<');
                if *scalable {
                    out.push_str("vscale x ");
                }
                let _ = write!(out, "{len} x ");
                self.write_type(out, *elem);
                out.push('>');
            }
            Type::Array { len, elem } => {
                let _ = write!(out, "[{len} x ");
                self.write_type(out, *elem);
                out.push(']');
            }
            Type::Struct { fields, packed } => {
                if *packed {
                    out.push('<');
                }
                if fields.is_empty() {
                    out.push_str("{}");
                } else {
                    out.push_str("{ ");
                    for (i, f) in self.types.list(*fields).iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        self.write_type(out, *f);
                    }
                    out.push_str(" }");
                }
                if *packed {
                    out.push('>');
                }
            }
            Type::Named(i) => {
                let (name, _) = self.types.named[*i as usize];
                let n = self.str(name);
                if n.bytes().all(|c| c.is_ascii_digit()) && !n.is_empty() {
                    let _ = write!(out, "%{n}");
                } else {
                    out.push_str(&sigil_name('%', n));
                }
            }
            Type::Func {
                ret,
                params,
                vararg,
            } => {
                self.write_type(out, *ret);
                out.push_str(" (");
                for (i, p) in self.types.list(*params).iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_type(out, *p);
                }
                if *vararg {
                    if !params.is_empty() {
                        out.push_str(", ");
                    }
                    out.push_str("...");
                }
                out.push(')');
            }
            Type::TargetExt(s) => out.push_str(self.str(*s)),
        }
    }

    fn local_name_text(&self, n: LocalName) -> String {
        match n {
            LocalName::Named(s) => sigil_name('%', self.str(s)),
            LocalName::Slot(k) => format!("%{k}"),
            LocalName::None => BADREF.to_string(),
        }
    }

    /// A block as `print<cycles>` prints it: the raw name, or the slot number of an unnamed block.
    pub fn block_name(&self, f: FuncId, b: Block) -> String {
        self.block_name_in(self.func(f), b)
    }

    /// [`Module::block_name`] for a function at hand.
    pub fn block_name_in(&self, f: &Function, b: Block) -> String {
        let mut s = String::new();
        self.write_block_name(f, b, &mut s);
        s
    }

    /// Appends a block's raw name (no `%`) as LLVM's printers show it: its name, or its slot
    /// number. The one fallback for a block with neither (only built, never read, functions have
    /// them) is LLVM's own `<badref>`: every subcommand and library report names blocks through
    /// here.
    pub fn write_block_name(&self, f: &Function, b: Block, out: &mut String) {
        match f.blocks.get(b.index()).map(|x| x.name()) {
            Some(LocalName::Named(s)) => out.push_str(self.str(s)),
            Some(LocalName::Slot(k)) => {
                let _ = write!(out, "{k}");
            }
            _ => out.push_str(BADREF),
        }
    }

    /// [`Module::block_operand`] appended to `out`, for printers that name many blocks (a cycle
    /// of a deep nest lists thousands).
    pub fn write_block_operand(&self, f: &Function, b: Block, out: &mut String) {
        match f.blocks.get(b.index()).map(|x| x.name()) {
            Some(LocalName::Named(s)) => write_sigil_name(out, '%', self.str(s)),
            Some(LocalName::Slot(k)) => {
                let _ = write!(out, "%{k}");
            }
            _ => out.push_str(BADREF),
        }
    }

    /// A block as an operand: `%name`, `%"quoted name"` or `%3`.
    pub fn block_operand(&self, f: FuncId, b: Block) -> String {
        match self.func(f).blocks.get(b.index()) {
            Some(bd) => self.local_name_text(bd.name()),
            None => BADREF.to_string(),
        }
    }

    /// A value as an operand without its type: `%x`, `%3`, `@g`, `42`, `null`, `!5`, ….
    pub fn value_name(&self, f: FuncId, v: Value) -> String {
        let func = self.func(f);
        match v {
            Value::Arg(a) => match func.params.get(a as usize) {
                Some(p) => self.local_name_text(p.name),
                None => BADREF.to_string(),
            },
            Value::Inst(i) => match func.insts.get(i.0 as usize) {
                Some(x) => self.local_name_text(x.name()),
                None => BADREF.to_string(),
            },
            Value::Block(b) => self.block_operand(f, b),
            Value::Global(g) => sigil_name('@', self.str(self.globals[g.0 as usize].name)),
            Value::Func(g) => sigil_name('@', self.str(self.func(g).name)),
            Value::Const(c) => self.const_text(c),
            Value::Meta(m) => self.md_text(m),
            Value::Asm(a) => {
                let asm = &self.asms[a.0 as usize];
                let mut s = String::from("asm ");
                if asm.side_effect {
                    s.push_str("sideeffect ");
                }
                s.push('"');
                escape_into(&mut s, self.str(asm.asm).as_bytes());
                s.push_str("\", \"");
                escape_into(&mut s, self.str(asm.constraints).as_bytes());
                s.push('"');
                s
            }
        }
    }

    /// A value with its type, as in an operand list: `i32 %x`, `ptr @g`.
    pub fn typed_value_name(&self, f: FuncId, v: Value) -> String {
        format!(
            "{} {}",
            self.type_text(self.value_type(f, v)),
            self.value_name(f, v)
        )
    }

    /// A constant without its type.
    pub fn const_text(&self, c: ConstId) -> String {
        let mut s = String::new();
        self.write_const(&mut s, c, 0);
        s
    }

    /// A constant's type. A global's address as a constant has the global's address space (the
    /// reader shares one `ptr`-typed constant per symbol; `getelementptr (..., ptr addrspace(3)
    /// @lds, ...)` must keep its `addrspace(3)`).
    pub(crate) fn write_const_type(&self, out: &mut String, c: ConstId) {
        let k = &self.consts[c.0 as usize];
        match k.kind {
            ConstKind::Global(g) if (g.0 as usize) < self.globals.len() => {
                match self.globals[g.0 as usize].addrspace {
                    0 => out.push_str("ptr"),
                    a => {
                        let _ = write!(out, "ptr addrspace({a})");
                    }
                }
            }
            _ => self.write_type(out, k.ty),
        }
    }

    fn write_const(&self, out: &mut String, c: ConstId, depth: u32) {
        if depth > 256 {
            out.push_str("...");
            return;
        }
        let k = &self.consts[c.0 as usize];
        match &k.kind {
            ConstKind::Int { value, .. } => match self.types.get(k.ty) {
                Type::Int(1) => out.push_str(if *value & 1 == 1 { "true" } else { "false" }),
                Type::Int(w) if *w < 128 => {
                    let shift = 128 - w;
                    let v = ((*value << shift) as i128) >> shift;
                    let _ = write!(out, "{v}");
                }
                _ => {
                    let _ = write!(out, "{}", *value as i128);
                }
            },
            ConstKind::Float(bits) => {
                let ty = match self.types.get(k.ty) {
                    Type::Vector { elem, .. } => *elem,
                    _ => k.ty,
                };
                match self.types.get(ty) {
                    Type::Double | Type::Float => {
                        let x = if matches!(self.types.get(ty), Type::Float) {
                            f32::from_bits(*bits as u32) as f64
                        } else {
                            f64::from_bits(*bits)
                        };
                        match llvm_decimal(x) {
                            Some(s) => out.push_str(&s),
                            None => {
                                let _ = write!(out, "0x{:016X}", x.to_bits());
                            }
                        }
                    }
                    Type::Half => {
                        let _ = write!(out, "0xH{:04X}", *bits as u16);
                    }
                    Type::BFloat => {
                        let _ = write!(out, "0xR{:04X}", *bits as u16);
                    }
                    Type::X86Fp80 => {
                        let _ = write!(out, "0xK{bits:016X}");
                    }
                    Type::Fp128 => {
                        let _ = write!(out, "0xL{bits:016X}");
                    }
                    _ => {
                        let _ = write!(out, "0xM{bits:016X}");
                    }
                }
            }
            ConstKind::Null => out.push_str("null"),
            ConstKind::Undef => out.push_str("undef"),
            ConstKind::Poison => out.push_str("poison"),
            ConstKind::Zero => out.push_str("zeroinitializer"),
            ConstKind::NoneToken => out.push_str("none"),
            ConstKind::Bytes(r) => {
                out.push_str("c\"");
                escape_into(out, &self.bytes[r.range()]);
                out.push('"');
            }
            ConstKind::Global(g) => {
                out.push_str(&sigil_name('@', self.str(self.globals[g.0 as usize].name)))
            }
            ConstKind::Func(g) => out.push_str(&sigil_name('@', self.str(self.func(*g).name))),
            ConstKind::BlockAddress(f, b) => {
                let _ = write!(
                    out,
                    "blockaddress({}, {})",
                    sigil_name('@', self.str(self.func(*f).name)),
                    self.block_operand(*f, *b)
                );
            }
            ConstKind::Aggregate(r) => {
                let elems = &self.const_lists[r.range()];
                let first = elems.first().map(|e| &self.consts[e.0 as usize]);
                let is_zero = |e: &ConstId| {
                    matches!(
                        self.consts[e.0 as usize].kind,
                        ConstKind::Int { value: 0, .. }
                            | ConstKind::Float(0)
                            | ConstKind::Null
                            | ConstKind::Zero
                    )
                };
                let scalar =
                    |c: &Const| matches!(c.kind, ConstKind::Int { .. } | ConstKind::Float(_));
                let same = |a: &Const, b: &Const| match (&a.kind, &b.kind) {
                    (ConstKind::Int { value: x, .. }, ConstKind::Int { value: y, .. }) => x == y,
                    (ConstKind::Float(x), ConstKind::Float(y)) => x == y,
                    _ => false,
                };
                // LLVM's canonical forms: all-zero aggregates, `splat (...)` vectors (LLVM 20+),
                // `c"..."` for i8 arrays.
                if !elems.is_empty() && elems.iter().all(is_zero) {
                    out.push_str("zeroinitializer");
                    return;
                }
                if let (Type::Vector { .. }, Some(f0)) = (self.types.get(k.ty), first)
                    && scalar(f0)
                    && elems.iter().all(|e| same(&self.consts[e.0 as usize], f0))
                {
                    out.push_str("splat (");
                    self.write_type(out, f0.ty);
                    out.push(' ');
                    self.write_const(out, elems[0], depth + 1);
                    out.push(')');
                    return;
                }
                if let Type::Array { elem, .. } = self.types.get(k.ty)
                    && matches!(self.types.get(*elem), Type::Int(8))
                    && elems
                        .iter()
                        .all(|e| matches!(self.consts[e.0 as usize].kind, ConstKind::Int { .. }))
                {
                    let bytes: Vec<u8> = elems
                        .iter()
                        .map(|e| match self.consts[e.0 as usize].kind {
                            ConstKind::Int { value, .. } => value as u8,
                            _ => 0,
                        })
                        .collect();
                    out.push_str("c\"");
                    escape_into(out, &bytes);
                    out.push('"');
                    return;
                }
                let (open, close) = match self.types.get(k.ty) {
                    Type::Struct { packed: true, .. } => ("<{ ", " }>"),
                    Type::Struct { .. } | Type::Named(_) => ("{ ", " }"),
                    Type::Vector { .. } => ("<", ">"),
                    _ => ("[", "]"),
                };
                out.push_str(open);
                for (i, e) in self.const_lists[r.range()].iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_const_type(out, *e);
                    out.push(' ');
                    self.write_const(out, *e, depth + 1);
                }
                out.push_str(close);
            }
            ConstKind::Expr {
                op,
                operands,
                aux,
                flags: fl,
            } => {
                let name = opcode_name(*op);
                out.push_str(name);
                if fl & flags::INBOUNDS != 0 {
                    out.push_str(" inbounds");
                }
                if fl & flags::NUW != 0 {
                    out.push_str(" nuw");
                }
                if fl & flags::NSW != 0 {
                    out.push_str(" nsw");
                }
                if fl & flags::EXACT != 0 {
                    out.push_str(" exact");
                }
                out.push_str(" (");
                if *op == Opcode::GetElementPtr {
                    self.write_type(out, TypeId(*aux));
                    out.push_str(", ");
                }
                for (i, e) in self.const_lists[operands.range()].iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_const_type(out, *e);
                    out.push(' ');
                    self.write_const(out, *e, depth + 1);
                }
                if op.is_cast() {
                    out.push_str(" to ");
                    self.write_type(out, k.ty);
                }
                out.push(')');
            }
            ConstKind::Other => out.push_str("<constant>"),
        }
    }

    /// Metadata as an operand: `!5` for numbered nodes, inline text otherwise.
    pub fn md_text(&self, m: MdId) -> String {
        let mut s = String::new();
        self.write_md(&mut s, m, 0);
        s
    }

    fn write_md(&self, out: &mut String, m: MdId, depth: u32) {
        if m.0 < self.first_inline_md {
            let _ = write!(out, "!{}", m.0);
            return;
        }
        if depth > 64 {
            out.push_str("!{...}");
            return;
        }
        match &self.metadata[m.0 as usize] {
            Metadata::Tuple(r) => {
                out.push_str("!{");
                for (i, x) in self.md_lists[r.range()].iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_md(out, *x, depth + 1);
                }
                out.push('}');
            }
            Metadata::Special(s) => {
                let _ = write!(out, "!{}(...)", self.str(*s));
            }
            Metadata::String(s) => {
                out.push_str("!\"");
                escape_into(out, self.str(*s).as_bytes());
                out.push('"');
            }
            Metadata::Value(f, v) => {
                let fid = f.unwrap_or(FuncId(0));
                if f.is_none() && matches!(v, Value::Arg(_) | Value::Inst(_)) {
                    out.push_str(BADREF);
                } else if self.functions.is_empty() {
                    match v {
                        Value::Const(c) => {
                            self.write_const_type(out, *c);
                            out.push(' ');
                            self.write_const(out, *c, 0);
                        }
                        Value::Global(g) => {
                            let _ = write!(
                                out,
                                "ptr {}",
                                sigil_name('@', self.str(self.globals[g.0 as usize].name))
                            );
                        }
                        _ => out.push_str("<value>"),
                    }
                } else {
                    out.push_str(&self.typed_value_name(fid, *v));
                }
            }
            Metadata::Node(n) => self.write_md(out, *n, depth + 1),
            Metadata::Null => out.push_str("null"),
        }
    }

    /// An instruction as LLVM's `Value::print` writes it (two leading spaces, no newline), printed
    /// from the IR structure (see [`Module::inst_text_into`] and the `writer` module comment).
    pub fn inst_text(&self, f: FuncId, i: InstId) -> String {
        let mut out = String::with_capacity(64);
        self.inst_text_into(&mut out, f, i);
        out
    }

    /// The instruction's source text with whitespace and comments normalised (the printer before
    /// it printed from the IR structure; kept for diagnostics that want the text as written).
    pub fn inst_source_text(&self, f: FuncId, i: InstId) -> String {
        let func = self.func(f);
        let inst = func.inst(i);
        let span = func.inst_span(i);
        let src = self
            .source
            .as_bytes()
            .get(span.start as usize..span.end as usize)
            .unwrap_or(b"");
        let mut out = String::from("  ");
        let mut lex = Lexer::new(src);
        let mut first = true;
        let mut prev_end = 0usize;
        let mut prev_kind = Tok::Eof;
        // Switch cases go on their own lines.
        let is_switch = inst.op == Opcode::Switch;
        let mut in_cases = false;
        let mut after_label = false;
        let mut start_case = false;
        let mut depth = 0u32;
        loop {
            let t = lex.next();
            if matches!(t.kind, Tok::Eof | Tok::Error) {
                break;
            }
            let text = std::str::from_utf8(&src[t.start as usize..t.end as usize]).unwrap_or("");
            if first {
                if inst.name() != LocalName::None && !matches!(t.kind, Tok::LocalVar | Tok::LocalId)
                {
                    out.push_str(&self.local_name_text(inst.name()));
                    out.push_str(" = ");
                }
                out.push_str(text);
                first = false;
                prev_end = t.end as usize;
                prev_kind = t.kind;
                continue;
            }
            if is_switch && !in_cases && t.kind == Tok::LSquare {
                out.push_str(" [");
                in_cases = true;
                start_case = true;
                prev_end = t.end as usize;
                prev_kind = t.kind;
                continue;
            }
            if in_cases {
                if t.kind == Tok::RSquare {
                    out.push_str("\n  ]");
                    in_cases = false;
                } else {
                    if start_case {
                        out.push_str("\n    ");
                        start_case = false;
                    } else if t.kind != Tok::Comma {
                        out.push(' ');
                    }
                    out.push_str(text);
                    if after_label {
                        // The block name after `label` ends the case.
                        after_label = false;
                        start_case = true;
                    } else if t.kind == Tok::Ident && text == "label" {
                        after_label = true;
                    }
                }
                prev_end = t.end as usize;
                prev_kind = t.kind;
                continue;
            }
            match t.kind {
                Tok::LParen | Tok::LSquare | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RSquare | Tok::RBrace => depth = depth.saturating_sub(1),
                _ => {}
            }
            let gap = t.start as usize > prev_end;
            // LLVM puts the destinations of `invoke`/`callbr` and each landingpad clause on a
            // continuation line indented by ten spaces.
            let breaks = depth == 0
                && t.kind == Tok::Ident
                && match inst.op {
                    Opcode::Invoke | Opcode::CallBr => text == "to",
                    Opcode::LandingPad => matches!(text, "cleanup" | "catch" | "filter"),
                    _ => false,
                };
            if breaks {
                out.push_str("\n          ");
            } else if t.kind != Tok::Comma && (gap || prev_kind == Tok::Comma) {
                out.push(' ');
            }
            out.push_str(text);
            prev_end = t.end as usize;
            prev_kind = t.kind;
        }
        out
    }
}

/// The opcode's keyword in LLVM's textual IR.
pub fn opcode_name(op: Opcode) -> &'static str {
    use Opcode::*;
    match op {
        Ret => "ret",
        Br => "br",
        Switch => "switch",
        IndirectBr => "indirectbr",
        Invoke => "invoke",
        Resume => "resume",
        Unreachable => "unreachable",
        CleanupRet => "cleanupret",
        CatchRet => "catchret",
        CatchSwitch => "catchswitch",
        CallBr => "callbr",
        FNeg => "fneg",
        Add => "add",
        FAdd => "fadd",
        Sub => "sub",
        FSub => "fsub",
        Mul => "mul",
        FMul => "fmul",
        UDiv => "udiv",
        SDiv => "sdiv",
        FDiv => "fdiv",
        URem => "urem",
        SRem => "srem",
        FRem => "frem",
        Shl => "shl",
        LShr => "lshr",
        AShr => "ashr",
        And => "and",
        Or => "or",
        Xor => "xor",
        ExtractElement => "extractelement",
        InsertElement => "insertelement",
        ShuffleVector => "shufflevector",
        ExtractValue => "extractvalue",
        InsertValue => "insertvalue",
        Alloca => "alloca",
        Load => "load",
        Store => "store",
        Fence => "fence",
        CmpXchg => "cmpxchg",
        AtomicRmw => "atomicrmw",
        GetElementPtr => "getelementptr",
        Trunc => "trunc",
        ZExt => "zext",
        SExt => "sext",
        FpTrunc => "fptrunc",
        FpExt => "fpext",
        FpToUi => "fptoui",
        FpToSi => "fptosi",
        UiToFp => "uitofp",
        SiToFp => "sitofp",
        PtrToInt => "ptrtoint",
        PtrToAddr => "ptrtoaddr",
        IntToPtr => "inttoptr",
        BitCast => "bitcast",
        AddrSpaceCast => "addrspacecast",
        ICmp => "icmp",
        FCmp => "fcmp",
        Phi => "phi",
        Select => "select",
        Freeze => "freeze",
        Call => "call",
        VaArg => "va_arg",
        LandingPad => "landingpad",
        CatchPad => "catchpad",
        CleanupPad => "cleanuppad",
    }
}

impl Opcode {
    /// The opcode's keyword (`add`, `getelementptr`, …).
    pub fn name(self) -> &'static str {
        opcode_name(self)
    }
}
