//! Calls (`call`, `invoke`, `callbr`): calling convention, return and parameter attributes in
//! LLVM's order, callee, operand bundles and call-site attribute groups.

use super::*;

impl Module {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_call(
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
        let ops = func.operands(i);
        let blocks = func.inst_blocks(i);
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
    pub(super) fn write_source_call_attrs(
        &self,
        out: &mut String,
        call: &CallInfo,
        toks: &[(Tok, &str)],
    ) {
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
    pub(super) fn write_attr(&self, out: &mut String, a: &Attr, as_written: bool) {
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
pub(super) fn attr_rank(key: &str) -> (u8, &str) {
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
pub(super) fn push_type_text(out: &mut String, t: &str) {
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

pub(super) fn is_keyword_attr(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c == b'_' || c.is_ascii_digit())
}

pub(super) fn call_conv_word(w: &str) -> bool {
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
