//! The LLVM-text adapter: converge-ir's [`Module`] seen through [`TokenFunction`], dominance and
//! cycles from converge-graph, and the two renderings of a finding: LLVM's verifier text (what
//! `opt -passes=verify` / `llvm-as` print) and converge's own diagnostics.

use crate::Rule;
use crate::core::{Control, CycleSummary, Intrinsic, TokenFunction, Violation};
use crate::structure::GraphStructure;
use converge_graph::{Block, Cfg, Inst, InstRange, UnreachablePreds};
use converge_ir::diag::Diagnostic;
use converge_ir::{
    Attr, ConstKind, FuncId, Function, InstId, LocalName, Module, Range32, Span, Sym, Type, TypeId,
    Value,
};

/// Interned names the adapter compares against (absent names mean "never present").
#[derive(Copy, Clone)]
struct Names {
    convergent: Option<Sym>,
    convergencectrl: Option<Sym>,
}

impl Names {
    fn new(m: &Module) -> Names {
        Names {
            convergent: m.strings.get("convergent"),
            convergencectrl: m.strings.get("convergencectrl"),
        }
    }
}

/// Which convergence-control intrinsic a function is, by name.
fn intrinsic_of_name(name: &str) -> Intrinsic {
    use converge_ir::intrinsics::ConvergenceControl as C;
    match C::of(name) {
        Some(C::Entry) => Intrinsic::Entry,
        Some(C::Anchor) => Intrinsic::Anchor,
        Some(C::Loop) => Intrinsic::Loop,
        None => Intrinsic::None,
    }
}

/// Whether `name` is a convergent target intrinsic (LLVM's intrinsic table, in converge-ir).
pub use converge_ir::intrinsics::is_convergent_intrinsic;

fn has_attr(m: &Module, r: Range32, key: Option<Sym>) -> bool {
    let Some(key) = key else { return false };
    m.attrs[r.range()].iter().any(|a: &Attr| a.key == key)
}

/// One function of a module, as the token rules see it.
pub struct LlvmFunction<'m> {
    m: &'m Module,
    f: &'m Function,
    cfg: Cfg,
    names: Names,
    /// Per callee function: its convergence intrinsic kind and whether it is convergent.
    callee: &'m [(Intrinsic, bool)],
}

/// Per-module facts shared by all functions: each function's intrinsic kind and `convergent`-ness.
pub struct ModuleFacts {
    names: Names,
    callee: Vec<(Intrinsic, bool)>,
}

impl ModuleFacts {
    /// Collects, once per module, each function's convergence intrinsic kind and `convergent`
    /// attribute, so a callee's facts are an index lookup during the per-function checks.
    pub fn new(m: &Module) -> ModuleFacts {
        let names = Names::new(m);
        let callee = m
            .functions
            .iter()
            .map(|f| {
                let name = m.strings.resolve(f.name);
                let k = intrinsic_of_name(name);
                // Intrinsics are convergent as LLVM's table says, whatever their declaration says.
                let conv = k != Intrinsic::None
                    || has_attr(m, f.attrs, names.convergent)
                    || is_convergent_intrinsic(name);
                (k, conv)
            })
            .collect();
        ModuleFacts { names, callee }
    }
}

/// The control-flow graph of a function: converge-ir's one CFG builder ([`Function::cfg`]).
pub fn function_cfg(f: &Function) -> Cfg {
    f.cfg()
}

impl<'m> LlvmFunction<'m> {
    /// The adapter of function `f` of `m`: instruction ids are converge-ir's instruction ids,
    /// blocks its blocks; `facts` must be built from the same module.
    pub fn new(m: &'m Module, facts: &'m ModuleFacts, f: &'m Function) -> LlvmFunction<'m> {
        LlvmFunction {
            m,
            f,
            cfg: function_cfg(f),
            names: facts.names,
            callee: &facts.callee,
        }
    }

    fn callee_fn(&self, i: Inst) -> Option<usize> {
        let inst = &self.f.insts[i.index()];
        if !inst.op.is_call_like() {
            return None;
        }
        match self.f.calls[inst.aux as usize].callee {
            Value::Func(FuncId(id)) => Some(id as usize),
            _ => None,
        }
    }

    fn type_of(&self, v: Value) -> Option<TypeId> {
        match v {
            Value::Arg(n) => self.f.params.get(n as usize).map(|p| p.ty),
            Value::Inst(InstId(i)) => Some(self.f.insts[i as usize].ty),
            Value::Const(c) => Some(self.m.consts[c.0 as usize].ty),
            _ => None,
        }
    }

    fn is_token(&self, v: Value) -> bool {
        self.type_of(v)
            .is_some_and(|t| matches!(self.m.types.types[t.0 as usize], Type::Token))
    }
}

impl TokenFunction for LlvmFunction<'_> {
    type G = Cfg;
    fn graph(&self) -> &Cfg {
        &self.cfg
    }
    fn block_insts(&self, b: Block) -> InstRange {
        let r = self.f.block_range(b);
        InstRange::from(r.start..r.end)
    }
    fn inst_block(&self, i: Inst) -> Block {
        self.f.insts[i.index()].block
    }
    fn intrinsic(&self, i: Inst) -> Intrinsic {
        self.callee_fn(i)
            .map_or(Intrinsic::None, |c| self.callee[c].0)
    }
    fn is_convergent(&self, i: Inst) -> bool {
        let inst = &self.f.insts[i.index()];
        if !inst.op.is_call_like() {
            return false;
        }
        let call = &self.f.calls[inst.aux as usize];
        has_attr(self.m, call.fn_attrs, self.names.convergent)
            || self.callee_fn(i).is_some_and(|c| self.callee[c].1)
    }
    fn control(&self, i: Inst) -> Control {
        let inst = &self.f.insts[i.index()];
        if !inst.op.is_call_like() {
            return Control::None;
        }
        let Some(tag) = self.names.convergencectrl else {
            return Control::None;
        };
        let call = &self.f.calls[inst.aux as usize];
        let mut found = None;
        for b in &self.f.bundles[call.bundles.range()] {
            if b.tag == tag {
                if found.is_some() {
                    return Control::Multiple;
                }
                found = Some(b.operands);
            }
        }
        let Some(ops) = found else {
            return Control::None;
        };
        let ops = &self.f.operands[ops.range()];
        if ops.len() != 1 || !self.is_token(ops[0]) {
            return Control::NotOneToken;
        }
        match ops[0] {
            Value::Inst(InstId(d)) => Control::Token(Some(Inst(d))),
            _ => Control::Token(None),
        }
    }
    fn function_is_convergent(&self) -> bool {
        has_attr(self.m, self.f.attrs, self.names.convergent)
    }
}

/// Which LLVM to reproduce where they differ: LLVM 19's cycle analysis counts an unreachable
/// predecessor as an extra cycle entry (so such a cycle is irreducible and cannot have a heart).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Flavor {
    /// LLVM 22 (the default): predecessors unreachable from the entry are not cycle entries.
    #[default]
    Llvm22,
    /// LLVM 19: a predecessor unreachable from the entry is an extra entry of the cycle it jumps into.
    Llvm19,
}

impl Flavor {
    /// How the cycle analysis treats predecessors unreachable from the entry.
    pub fn unreachable_preds(self) -> UnreachablePreds {
        match self {
            Flavor::Llvm22 => UnreachablePreds::Ignore,
            Flavor::Llvm19 => UnreachablePreds::AreEntries,
        }
    }
}

/// One finding of the module verifier.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The function the finding is in.
    pub func: FuncId,
    /// The rule broken.
    pub rule: Rule,
    /// `None` for function-level rules (X1, X2).
    pub violation: Option<Violation>,
}

/// Verifies every function of `m`; findings in LLVM's order: function by function in module order
/// (declarations included), each function's signature checks, then its visit-phase findings, then
/// its function-level ones. Functions are checked in parallel; the order does not depend on it.
pub fn verify_module(m: &Module, flavor: Flavor) -> Vec<Finding> {
    use rayon::prelude::*;
    let facts = ModuleFacts::new(m);
    let per_fn: Vec<Vec<Finding>> = (0..m.functions.len())
        .into_par_iter()
        .with_min_len(64)
        .map(|fi| {
            let f = &m.functions[fi];
            let id = FuncId(fi as u32);
            let mut out = signature_findings(m, f, id);
            if !f.is_declaration {
                out.extend(verify_function(m, &facts, id, flavor));
            }
            out
        })
        .collect();
    per_fn.into_iter().flatten().collect()
}

/// The token rules of one defined function.
pub fn verify_function(
    m: &Module,
    facts: &ModuleFacts,
    id: FuncId,
    flavor: Flavor,
) -> Vec<Finding> {
    let f = &m.functions[id.0 as usize];
    if f.blocks.is_empty() {
        return Vec::new();
    }
    let lf = LlvmFunction::new(m, facts, f);
    let opts = crate::core::Options {
        use_needs_convergent: flavor == Flavor::Llvm19,
    };
    crate::core::verify_function(&lf, opts, || {
        GraphStructure::new(&lf.cfg, flavor.unreachable_preds())
    })
    .into_iter()
    .map(|v| Finding {
        func: id,
        rule: v.rule,
        violation: Some(v),
    })
    .collect()
}

/// X1/X2: a non-intrinsic function returning or taking `token`.
fn signature_findings(m: &Module, f: &Function, id: FuncId) -> Vec<Finding> {
    let name = m.strings.resolve(f.name);
    if name.starts_with("llvm.") {
        return Vec::new();
    }
    let is_token = |t: TypeId| matches!(m.types.types[t.0 as usize], Type::Token);
    let mut out = Vec::new();
    if is_token(f.ret_ty) {
        out.push(Finding {
            func: id,
            rule: Rule::TokenReturnNotIntrinsic,
            violation: None,
        });
    }
    if f.params.iter().any(|p| is_token(p.ty)) {
        out.push(Finding {
            func: id,
            rule: Rule::TokenParamNotIntrinsic,
            violation: None,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Rendering.

/// Whether a local/global name can be printed without quotes (LLVM's rule: `[-a-zA-Z$._0-9]`, not
/// starting with a digit unless all digits).
fn needs_quotes(s: &str) -> bool {
    s.is_empty()
        || !s
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_'))
}

fn sigil_name(sigil: char, s: &str) -> String {
    if needs_quotes(s) {
        format!("{sigil}\"{s}\"")
    } else {
        format!("{sigil}{s}")
    }
}

/// A block's name as `print<cycles>` shows it (raw, no `%`): converge-ir's one block naming.
pub fn block_raw_name(m: &Module, f: &Function, b: Block) -> String {
    m.block_name_in(f, b)
}

/// A block as an operand (`label %B`).
pub fn block_operand(m: &Module, f: &Function, b: Block) -> String {
    format!("label {}", sigil_name('%', &block_raw_name(m, f, b)))
}

/// An instruction as LLVM's printer writes it (two leading spaces), by converge-ir's printer.
pub fn inst_text(m: &Module, f: FuncId, i: Inst) -> String {
    m.inst_text(f, InstId(i.0))
}

fn cycle_text(m: &Module, f: &Function, c: &CycleSummary) -> String {
    let mut s = String::new();
    converge_graph::write_cycle_line(
        &mut s,
        c.depth,
        &c.entries,
        c.others.iter().copied(),
        |b, out| m.write_block_name(f, b, out),
    );
    s
}

/// A token operand that is not an instruction, as LLVM prints a value (`token none`, `token %a`).
fn token_operand_text(m: &Module, fid: FuncId, i: Inst) -> String {
    let f = &m.functions[fid.0 as usize];
    let inst = &f.insts[i.index()];
    let call = &f.calls[inst.aux as usize];
    let tag = m.strings.get("convergencectrl");
    for b in &f.bundles[call.bundles.range()] {
        if Some(b.tag) != tag {
            continue;
        }
        if let Some(&v) = f.operands[b.operands.range()].first() {
            return match v {
                Value::Inst(InstId(d)) => inst_text(m, fid, Inst(d)),
                Value::Arg(n) => match f.params.get(n as usize).map(|p| p.name) {
                    Some(LocalName::Named(s)) => {
                        format!("token {}", sigil_name('%', m.strings.resolve(s)))
                    }
                    Some(LocalName::Slot(k)) => format!("token %{k}"),
                    _ => "token".into(),
                },
                Value::Const(c) => match m.consts[c.0 as usize].kind {
                    ConstKind::NoneToken => "token none".into(),
                    ConstKind::Poison => "token poison".into(),
                    ConstKind::Undef => "token undef".into(),
                    _ => "token <constant>".into(),
                },
                _ => "token <value>".into(),
            };
        }
    }
    "token <value>".into()
}

/// The lines LLVM's verifier prints for one finding: the message, then one line per dumped value.
pub fn llvm_lines(m: &Module, finding: &Finding) -> Vec<String> {
    let f = &m.functions[finding.func.0 as usize];
    let mut lines = vec![finding.rule.llvm_message().to_string()];
    let Some(v) = &finding.violation else {
        lines.push(format!(
            "ptr {}",
            sigil_name('@', m.strings.resolve(f.name))
        ));
        return lines;
    };
    let it = |i: Inst| inst_text(m, finding.func, i);
    match v.rule {
        Rule::TokenSource => {
            lines.push(token_operand_text(m, finding.func, v.inst));
            lines.push(it(v.inst));
        }
        Rule::Dominance | Rule::WellNested => {
            lines.push(it(v.related.unwrap_or(v.inst)));
            lines.push(it(v.inst));
        }
        Rule::CycleUseByHeartOnly => {
            lines.push(it(v.inst));
            if let Some(c) = &v.cycle {
                lines.push(cycle_text(m, f, c));
            }
        }
        Rule::HeartInHeader => {
            lines.push(it(v.inst));
            if let Some(b) = v.block {
                lines.push(block_operand(m, f, b));
            }
            if let Some(c) = &v.cycle {
                lines.push(cycle_text(m, f, c));
            }
        }
        Rule::OneHeartPerCycle => {
            lines.push(it(v.inst));
            if let Some(r) = v.related {
                lines.push(it(r));
            }
            if let Some(c) = &v.cycle {
                lines.push(cycle_text(m, f, c));
            }
        }
        _ => lines.push(it(v.inst)),
    }
    lines
}

/// The whole verifier report as LLVM prints it (without the final "input module is broken" line).
pub fn llvm_report(m: &Module, findings: &[Finding]) -> String {
    let mut s = String::new();
    for fd in findings {
        for l in llvm_lines(m, fd) {
            s.push_str(&l);
            s.push('\n');
        }
    }
    s
}

/// The witness closed path as block names: `B -> C -> B`.
pub fn witness_text(m: &Module, f: &Function, w: &[Block]) -> String {
    let mut names: Vec<String> = w
        .iter()
        .map(|&b| sigil_name('%', &block_raw_name(m, f, b)))
        .collect();
    if let Some(first) = names.first().cloned() {
        names.push(first);
    }
    names.join(" -> ")
}

fn inst_name(m: &Module, f: &Function, i: Inst) -> String {
    match f.insts[i.index()].name() {
        LocalName::Named(s) => sigil_name('%', m.strings.resolve(s)),
        LocalName::Slot(n) => format!("%{n}"),
        LocalName::None => "the call".to_string(),
    }
}

/// What went wrong, in one line naming what was found (the token, the block, the cycle), as a
/// diagnostic headline: the rule it breaks is a note of [`diagnostic`].
pub fn problem(m: &Module, finding: &Finding) -> String {
    let f = &m.functions[finding.func.0 as usize];
    let fname = sigil_name('@', m.strings.resolve(f.name));
    let Some(v) = &finding.violation else {
        return match finding.rule {
            Rule::TokenReturnNotIntrinsic => {
                format!("{fname} returns a token but is not an intrinsic")
            }
            Rule::TokenParamNotIntrinsic => {
                format!("{fname} takes a token parameter but is not an intrinsic")
            }
            r => format!("{} (in {fname})", r.sentence()),
        };
    };
    let block = |i: Inst| sigil_name('%', &block_raw_name(m, f, f.insts[i.index()].block));
    let token = token_def_of(f, m, v.inst)
        .map(|(_, d)| format!("token {}", inst_name(m, f, d)))
        .unwrap_or_else(|| "a token".to_string());
    let header = v
        .cycle
        .as_ref()
        .and_then(|c| c.entries.first())
        .map(|&b| sigil_name('%', &block_raw_name(m, f, b)))
        .unwrap_or_else(|| "?".to_string());
    let what = match finding.rule {
        Rule::BundleOnce => "a call carries more than one \"convergencectrl\" bundle".to_string(),
        Rule::BundleOneToken => {
            "a \"convergencectrl\" bundle does not hold exactly one token".to_string()
        }
        Rule::TokenSource => format!("{token} is not produced by a convergence control intrinsic"),
        Rule::EntryInConvergentFunction => {
            format!("llvm.experimental.convergence.entry in {fname}, which is not convergent")
        }
        Rule::EntryInEntryBlock => format!(
            "llvm.experimental.convergence.entry in {}, not in the entry block",
            block(v.inst)
        ),
        Rule::EntryFirst => format!(
            "llvm.experimental.convergence.entry after another convergent operation in {}",
            block(v.inst)
        ),
        Rule::NoOperandOnEntryOrAnchor => {
            "an entry or anchor intrinsic with a convergencectrl token".to_string()
        }
        Rule::LoopNeedsOperand => {
            "llvm.experimental.convergence.loop without a parent token".to_string()
        }
        Rule::LoopFirst => format!(
            "llvm.experimental.convergence.loop after another convergent operation in {}",
            block(v.inst)
        ),
        Rule::UseByConvergentOnly => format!("{token} is used by a call that is not convergent"),
        Rule::NoMixing => {
            "controlled and uncontrolled convergent operations in one function".to_string()
        }
        Rule::Dominance => format!("{token} is used where its definition does not dominate"),
        Rule::WellNested => format!(
            "{token} is used in {} where it is no longer live: convergence regions do not nest",
            block(v.inst)
        ),
        Rule::CycleUseByHeartOnly => format!(
            "{token} is used inside the cycle headed by {header}, which does not contain its definition"
        ),
        Rule::HeartInHeader => format!(
            "loop heart {} in {}, not in the header of a reducible cycle",
            inst_name(m, f, v.inst),
            block(v.inst)
        ),
        Rule::OneHeartPerCycle => format!("the cycle headed by {header} has two loop hearts"),
        Rule::TokenReturnNotIntrinsic | Rule::TokenParamNotIntrinsic => {
            return problem(
                m,
                &Finding {
                    violation: None,
                    ..finding.clone()
                },
            );
        }
    };
    format!("{what} (in {fname})")
}

/// converge's own diagnostic for a finding: the problem found as headline, every instruction
/// involved with its location, the cycle and a witness closed path for cycle rules, and the rule
/// broken and LLVM's message as notes.
pub fn diagnostic(m: &Module, finding: &Finding) -> Diagnostic {
    let f = &m.functions[finding.func.0 as usize];
    let fname = sigil_name('@', m.strings.resolve(f.name));
    let rule = finding.rule;
    let Some(v) = &finding.violation else {
        return Diagnostic::error(problem(m, finding), f.span)
            .with_code(rule.id())
            .with_note(format!("rule: {}", rule.sentence()))
            .with_note(format!("LLVM: {}", rule.llvm_message()));
    };
    let span = |i: Inst| f.inst_span(InstId(i.0));
    let primary = match rule {
        Rule::BundleOnce | Rule::BundleOneToken => "this call's convergencectrl bundle".to_string(),
        Rule::TokenSource => "this token is not from a convergence intrinsic".to_string(),
        Rule::EntryInConvergentFunction => format!("{fname} is not `convergent`"),
        Rule::EntryInEntryBlock => "this entry is not in the entry block".to_string(),
        Rule::EntryFirst | Rule::LoopFirst => {
            "a convergent operation comes earlier in this block".to_string()
        }
        Rule::NoOperandOnEntryOrAnchor => "this intrinsic has a token operand".to_string(),
        Rule::LoopNeedsOperand => "this loop intrinsic has no token operand".to_string(),
        Rule::UseByConvergentOnly => "this call is not convergent".to_string(),
        Rule::NoMixing => "this convergent operation".to_string(),
        Rule::Dominance => "this use is not dominated by the token's definition".to_string(),
        Rule::WellNested => "the token is no longer live here".to_string(),
        Rule::CycleUseByHeartOnly => {
            "this use is inside a cycle that does not contain the definition".to_string()
        }
        Rule::HeartInHeader => "this heart is not in the header of a reducible cycle".to_string(),
        Rule::OneHeartPerCycle => "a second heart of the cycle".to_string(),
        Rule::TokenReturnNotIntrinsic | Rule::TokenParamNotIntrinsic => String::new(),
    };
    let mut d = Diagnostic::error(problem(m, finding), span(v.inst)).with_code(rule.id());
    d.labels[0].message = primary;
    if let Some(r) = v.related {
        d = d.with_label(span(r), related_role(m, f, rule, r));
    } else if let Some((_, d0)) = token_def_of(f, m, v.inst)
        && !matches!(rule, Rule::TokenSource)
    {
        d = d.with_label(
            span(d0),
            format!("the token {} is defined here", inst_name(m, f, d0)),
        );
    }
    if let Some(c) = &v.cycle {
        d = d.with_note(format!("cycle: {}", cycle_text(m, f, c)));
    }
    if !v.witness.is_empty() {
        d = d.with_note(format!(
            "witness closed path: {}",
            witness_text(m, f, &v.witness)
        ));
    }
    d.with_note(format!("rule: {}", rule.sentence()))
        .with_note(format!("LLVM: {}", rule.llvm_message()))
}

/// What the related instruction of a violation is, in words.
pub fn related_role(m: &Module, f: &Function, rule: Rule, r: Inst) -> String {
    match rule {
        Rule::OneHeartPerCycle => format!("the cycle's first heart {}", inst_name(m, f, r)),
        Rule::EntryFirst | Rule::LoopFirst => "the earlier convergent operation".to_string(),
        Rule::NoMixing => {
            "the first convergent operation, which decided the function's kind".to_string()
        }
        _ => format!("the token {} is defined here", inst_name(m, f, r)),
    }
}

/// The token definition used by instruction `i` of function `f`, if it is an instruction.
pub fn token_def(m: &Module, f: FuncId, i: Inst) -> Option<Inst> {
    token_def_of(&m.functions[f.0 as usize], m, i).map(|(_, d)| d)
}

/// The token definition used by `i`, if it is an instruction.
fn token_def_of(f: &Function, m: &Module, i: Inst) -> Option<(Span, Inst)> {
    let inst = &f.insts[i.index()];
    if !inst.op.is_call_like() {
        return None;
    }
    let tag = m.strings.get("convergencectrl")?;
    let call = &f.calls[inst.aux as usize];
    let b = f.bundles[call.bundles.range()]
        .iter()
        .find(|b| b.tag == tag)?;
    match f.operands[b.operands.range()].first()? {
        Value::Inst(InstId(d)) => Some((f.inst_span(InstId(*d)), Inst(*d))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Options, check_function, check_function_stacks, visit};

    /// [`check_function`]'s tree of live-token stacks answers exactly as LLVM's stack copied per
    /// block ([`check_function_stacks`]): same violations in the same order, on random token
    /// placements (valid and invalid, reducible and irreducible CFGs) and a deep token nest, under
    /// both LLVM releases' cycle entries.
    #[test]
    fn token_tree_gives_the_stack_copies_answers() {
        let mut texts: Vec<String> = (0..60)
            .map(|seed| converge_gen::tokens::random_module(0x7EE_000 + seed, 50).0)
            .collect();
        texts.push(converge_gen::program::shapes::tokens_module(
            converge_gen::program::Flavor::Amdgpu,
            3000,
        ));
        let (mut functions, mut violations, mut not_nested) = (0, 0, 0);
        for text in texts {
            let m = converge_ir::parse("t.ll", text).unwrap();
            let facts = ModuleFacts::new(&m);
            for f in m.functions.iter().filter(|f| !f.blocks.is_empty()) {
                let lf = LlvmFunction::new(&m, &facts, f);
                let visited = visit(&lf, Options::default(), &mut Vec::new());
                if !visited.controlled {
                    continue;
                }
                functions += 1;
                for mode in [UnreachablePreds::Ignore, UnreachablePreds::AreEntries] {
                    let s = GraphStructure::new(&lf.cfg, mode);
                    let (mut tree, mut stacks) = (Vec::new(), Vec::new());
                    check_function(&lf, &s, &visited.uses, &mut tree);
                    check_function_stacks(&lf, &s, &visited.uses, &mut stacks);
                    assert_eq!(tree, stacks, "function {}", m.strings.resolve(f.name));
                    violations += tree.len();
                    not_nested += tree.iter().filter(|v| v.rule == Rule::WellNested).count();
                }
            }
        }
        // The inputs reach the rules that read the stacks.
        assert!(functions > 1000, "{functions} functions");
        assert!(
            violations > 200 && not_nested > 20,
            "{violations} violations, {not_nested} not nested"
        );
    }
}
