//! Inserting convergence control tokens into LLVM text that has none: the seed's "inferring tokens"
//! procedure (Convergent Operation Semantics, §"Inferring tokens"):
//! - an `entry` (in a `convergent` function; otherwise an `anchor`) at the start of the entry block;
//! - a `loop` heart at the start (after the phis) of every cycle header, whose token is the heart of
//!   the parent cycle, or the top token for an outermost cycle;
//! - every convergent call gets a `convergencectrl` bundle with the heart of its innermost cycle, or
//!   the top token outside cycles.
//!
//! The procedure needs reducible cycles (the text first makes every cycle reducible); a function with
//! a convergent call inside an irreducible cycle, an indirect convergent call, or tokens already is
//! left as it is. The result is valid by construction (checked by the tests against LLVM).

use crate::llvm::{LlvmFunction, ModuleFacts};
use crate::{Intrinsic, TokenFunction};
use converge_graph::{Block, CycleInfo};
use converge_ir::{FuncId, Module, Value};

/// What [`insert_tokens`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InsertStats {
    /// Functions that received tokens.
    pub functions: usize,
    /// Functions left unchanged because the procedure does not apply (see the module comment).
    pub skipped: usize,
    pub hearts: usize,
    pub bundles: usize,
}

const NAMES: [(&str, &str); 3] = [
    ("entry", "llvm.experimental.convergence.entry"),
    ("anchor", "llvm.experimental.convergence.anchor"),
    ("loop", "llvm.experimental.convergence.loop"),
];

/// Returns the module text with tokens inserted, and what was done.
pub fn insert_tokens(m: &Module) -> (String, InsertStats) {
    let facts = ModuleFacts::new(m);
    let mut edits: Vec<(u32, String)> = Vec::new();
    let mut stats = InsertStats::default();
    for (fi, f) in m.functions.iter().enumerate() {
        if f.is_declaration || f.blocks.is_empty() {
            continue;
        }
        let fid = FuncId(fi as u32);
        match plan_function(m, &facts, fid) {
            Some((e, hearts, bundles)) => {
                stats.functions += 1;
                stats.hearts += hearts;
                stats.bundles += bundles;
                edits.extend(e);
            }
            None => stats.skipped += 1,
        }
    }
    edits.sort_by_key(|e| e.0);
    let src = &m.source;
    let mut out = String::with_capacity(src.len() + edits.len() * 48 + 256);
    let mut pos = 0usize;
    for (at, text) in &edits {
        out.push_str(&src[pos..*at as usize]);
        out.push_str(text);
        pos = *at as usize;
    }
    out.push_str(&src[pos..]);
    // Declare the intrinsics that are not declared yet.
    for (_, name) in NAMES {
        if !m
            .functions
            .iter()
            .any(|f| m.strings.resolve(f.name) == name)
        {
            out.push_str(&format!("\ndeclare token @{name}()\n"));
        }
    }
    (out, stats)
}

type Plan = (Vec<(u32, String)>, usize, usize);

fn plan_function(m: &Module, facts: &ModuleFacts, fid: FuncId) -> Option<Plan> {
    let f = &m.functions[fid.0 as usize];
    let lf = LlvmFunction::new(m, facts, f);
    let n = f.insts.len() as u32;
    // Already controlled (or malformed): leave it.
    if (0..n).any(|i| lf.intrinsic(i) != Intrinsic::None || lf.control(i) != crate::Control::None) {
        return None;
    }
    let cfg = crate::llvm::function_cfg(f);
    let ci = CycleInfo::new(&cfg);
    let top = "%__cv.top".to_string();
    let mut edits = Vec::new();
    let entry_first = f.insts[f.blocks[0].insts.start as usize].span.start;
    let kind = if lf.function_is_convergent() {
        "entry"
    } else {
        "anchor"
    };
    edits.push((
        entry_first,
        format!("{top} = call token @llvm.experimental.convergence.{kind}()\n  "),
    ));
    // Hearts, parents before children (cycles() lists a parent before its children).
    let mut heart: Vec<Option<String>> = vec![None; ci.len()];
    let mut hearts = 0;
    for c in ci.cycles() {
        if !ci.is_reducible(c) {
            continue;
        }
        let h: Block = ci.header(c);
        let mut p = ci.parent(c);
        let parent_tok = loop {
            match p {
                None => break top.clone(),
                Some(pc) => {
                    if let Some(t) = &heart[pc.index()] {
                        break t.clone();
                    }
                    p = ci.parent(pc);
                }
            }
        };
        let name = format!("%__cv.h{}", h.0);
        let r = f.blocks[h.index()].insts;
        let first_non_phi = (r.start..r.end)
            .find(|&i| f.insts[i as usize].op != converge_ir::Opcode::Phi)
            .unwrap_or(r.end - 1);
        edits.push((
            f.insts[first_non_phi as usize].span.start,
            format!(
                "{name} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token {parent_tok}) ]\n  "
            ),
        ));
        heart[c.index()] = Some(name);
        hearts += 1;
    }
    let mut bundles = 0;
    for i in 0..n {
        if !lf.is_convergent(i) {
            continue;
        }
        let b = f.insts[i as usize].block;
        let tok = match ci.cycle_of(b) {
            None => top.clone(),
            Some(c) => heart[c.index()].clone()?, // irreducible: not applicable
        };
        let at = bundle_position(m, fid, i)?;
        edits.push((at, format!(" [ \"convergencectrl\"(token {tok}) ]")));
        bundles += 1;
    }
    Some((edits, hearts, bundles))
}

/// Where a bundle goes in a direct call's text: after the argument list and any function attributes,
/// before metadata attachments (`, !dbg !3`).
fn bundle_position(m: &Module, fid: FuncId, i: u32) -> Option<u32> {
    let f = &m.functions[fid.0 as usize];
    let inst = &f.insts[i as usize];
    let call = &f.calls[inst.aux as usize];
    let Value::Func(callee) = call.callee else {
        return None;
    };
    let name = m.strings.resolve(m.functions[callee.0 as usize].name);
    let text = m
        .source
        .get(inst.span.start as usize..inst.span.end as usize)?;
    let plain = format!("@{name}(");
    let quoted = format!("@\"{name}\"(");
    let open = text
        .find(&plain)
        .map(|p| p + plain.len())
        .or_else(|| text.find(&quoted).map(|p| p + quoted.len()))?;
    // Match the argument list's parenthesis, skipping quoted strings.
    let bytes = text.as_bytes();
    let (mut depth, mut k, mut in_str) = (1u32, open, false);
    while k < bytes.len() && depth > 0 {
        match bytes[k] {
            b'"' => in_str = !in_str,
            b'(' if !in_str => depth += 1,
            b')' if !in_str => depth -= 1,
            _ => {}
        }
        k += 1;
    }
    if depth != 0 {
        return None;
    }
    // Metadata attachments start at the first top-level ", !" after the arguments.
    let rest = &text[k..];
    let end = rest.find(", !").map_or(text.len(), |p| k + p);
    let end = text[..end].trim_end().len();
    Some(inst.span.start + end as u32)
}
