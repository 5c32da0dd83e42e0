//! Inserting convergence control tokens into functions whose convergent operations are
//! uncontrolled: the procedure of "Convergent Operation Semantics", §"Inferring tokens", which
//! keeps the property that a convergent operation's token comes, through hearts, from the
//! function's `entry`:
//! - an `entry` at the start of the entry block (an `anchor` in a function that is not
//!   `convergent`, where `entry` is not allowed);
//! - a `loop` heart at the start (after the phis) of every cycle header, using the heart of the
//!   parent cycle, or the top token for an outermost cycle;
//! - a `convergencectrl` bundle on every convergent call (direct, indirect, `invoke`, `callbr`,
//!   calls of convergent intrinsics), with the heart of its innermost cycle or the top token.
//!
//! The procedure needs reducible cycles. A natural loop inside an irreducible cycle gets a new
//! preheader block with an `anchor`, and its heart uses that anchor (the blog post "A New Type of
//! Convergence Control Intrinsic?", §"Preheaders to the rescue"): a heart there could not use a
//! token defined outside the irreducible cycle. A convergent operation directly inside an
//! irreducible cycle is refused with a located error naming the cycle ("Convergent Operation
//! Semantics" first makes such cycles reducible; this transform does not split nodes). LLVM 19
//! counts a predecessor that is unreachable from the entry as an extra entry of a cycle (so the
//! cycle would be irreducible for it and its heart invalid); such dead edges into a cycle with a
//! heart are redirected to a new block that ends in `unreachable`.
//!
//! Functions that already use tokens, and functions without convergent operations, are left as
//! they are. The module is printed back by converge-ir's module printer with these edits.

use converge_graph::{Block, Cycle, CycleInfo, Graph, Inst};
use converge_ir::diag::Diagnostic;
use converge_ir::intrinsics::ConvergenceControl;
use converge_ir::print::{BodyEdits, Preheader, sigil_name};
use converge_ir::{FuncId, Function, InstId, LocalName, Module, Opcode};
use converge_verify::llvm::{LlvmFunction, ModuleFacts};
use converge_verify::{Control, Intrinsic, TokenFunction};
use rayon::prelude::*;

/// What the transform should do.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only these functions (the others are left as they are); `None`: every function.
    pub functions: Option<Vec<FuncId>>,
    /// Threads printing the module (0: one per core); the output is the same for any.
    pub threads: usize,
}

/// What the transform did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Functions that received tokens.
    pub functions: usize,
    /// Functions left alone because they already use tokens.
    pub already_controlled: usize,
    /// `loop` hearts inserted.
    pub hearts: usize,
    /// `convergencectrl` bundles added to convergent calls.
    pub bundles: usize,
    /// `anchor`s inserted (at the top of non-convergent functions, and in preheaders).
    pub anchors: usize,
    /// New preheader blocks.
    pub preheaders: usize,
}

/// The transformed module, or why it could not be transformed.
#[derive(Debug)]
pub struct Outcome {
    /// The whole module printed back with tokens, in consecutive pieces (none when `refused` is
    /// not empty); [`Outcome::text`] joins them.
    pub chunks: Vec<String>,
    /// What was inserted.
    pub stats: Stats,
    /// Remarks for the user (functions left alone).
    pub notes: Vec<String>,
    /// Functions the procedure does not apply to, with the located reason.
    pub refused: Vec<Diagnostic>,
}

impl Outcome {
    /// The whole transformed module.
    pub fn text(&self) -> String {
        self.chunks.concat()
    }
}

/// The planned edits of one function.
#[derive(Default)]
struct Plan {
    /// Lines to print before an instruction (sorted by instruction once planned).
    before: Vec<(u32, String)>,
    /// The bundle to add to a convergent call (in instruction order).
    bundles: Vec<(u32, String)>,
    preheaders: Vec<Preheader>,
    hearts: usize,
    anchors: usize,
    /// The top token is an `entry` (else an `anchor`).
    entry: bool,
    /// Calls convergent only by LLVM's intrinsic table (sorted): they get a `convergent` call-site
    /// attribute, because LLVM 19's table lacks some (`llvm.amdgcn.if`, …) and rejects a bundle on
    /// a call it does not see as convergent, while LLVM 22 requires the bundle.
    mark_convergent: Vec<u32>,
    /// Edges from unreachable blocks redirected to the block `dead_label` (LLVM 19, see above).
    dead: Vec<(Block, Block)>,
    dead_label: String,
}

enum Planned {
    /// No convergent operation: nothing to do.
    Nothing,
    AlreadyControlled,
    Edits(Box<Plan>),
    Refused(Box<Diagnostic>),
}

struct Edits<'p> {
    plans: Vec<Option<&'p Plan>>,
}

impl BodyEdits for Edits<'_> {
    fn before_inst(&self, f: FuncId, i: InstId, out: &mut String) {
        if let Some(Some(p)) = self.plans.get(f.0 as usize)
            && let Ok(k) = p.before.binary_search_by_key(&i.0, |e| e.0)
        {
            out.push_str(&p.before[k].1);
        }
    }
    fn extra_bundle(&self, f: FuncId, i: InstId) -> Option<&str> {
        match self.plans.get(f.0 as usize) {
            Some(Some(p)) => p
                .bundles
                .binary_search_by_key(&i.0, |e| e.0)
                .ok()
                .map(|k| p.bundles[k].1.as_str()),
            _ => None,
        }
    }
    fn extra_fn_attr(&self, f: FuncId, i: InstId) -> Option<&str> {
        match self.plans.get(f.0 as usize) {
            Some(Some(p)) if p.mark_convergent.binary_search(&i.0).is_ok() => Some("convergent"),
            _ => None,
        }
    }
    fn preheaders(&self, f: FuncId) -> &[Preheader] {
        match self.plans.get(f.0 as usize) {
            Some(Some(p)) => &p.preheaders,
            _ => &[],
        }
    }
    fn dead_edges(&self, f: FuncId) -> (&str, &[(Block, Block)]) {
        match self.plans.get(f.0 as usize) {
            Some(Some(p)) => (&p.dead_label, &p.dead),
            _ => ("", &[]),
        }
    }
}

const ENTRY: &str = ConvergenceControl::Entry.name();
const ANCHOR: &str = ConvergenceControl::Anchor.name();
const LOOP: &str = ConvergenceControl::Loop.name();

/// Inserts tokens (see the module comment). `Err` for bad usage (a selected function that is
/// not defined in `m`).
pub fn insert_tokens(m: &Module, opts: &Options) -> Result<Outcome, String> {
    let mut selected = vec![opts.functions.is_none(); m.functions.len()];
    for &f in opts.functions.iter().flatten() {
        match selected.get_mut(f.0 as usize) {
            Some(s) if !m.func(f).is_declaration => *s = true,
            _ => return Err(format!("function #{} is not defined in the module", f.0)),
        }
    }
    let facts = ModuleFacts::new(m);
    let planned: Vec<Planned> = (0..m.functions.len())
        .into_par_iter()
        .map(|fi| {
            let f = &m.functions[fi];
            if f.is_declaration || f.blocks.is_empty() || !selected[fi] {
                return Planned::Nothing;
            }
            plan_function(m, &facts, FuncId(fi as u32))
        })
        .collect();
    let mut stats = Stats::default();
    let mut notes = Vec::new();
    let mut refused = Vec::new();
    let (mut uses_entry, mut uses_anchor) = (false, false);
    for (fi, p) in planned.iter().enumerate() {
        let name = sigil_name('@', m.str(m.functions[fi].name));
        match p {
            Planned::Nothing => {}
            Planned::AlreadyControlled => {
                stats.already_controlled += 1;
                notes.push(format!(
                    "{name} already uses convergence control tokens; left as it is"
                ));
            }
            Planned::Refused(d) => refused.push((**d).clone()),
            Planned::Edits(plan) => {
                stats.functions += 1;
                stats.hearts += plan.hearts;
                stats.bundles += plan.bundles.len();
                stats.anchors += plan.anchors;
                stats.preheaders += plan.preheaders.len();
                uses_entry |= plan.entry;
                uses_anchor |= plan.anchors > 0;
            }
        }
    }
    if !refused.is_empty() {
        return Ok(Outcome {
            chunks: Vec::new(),
            stats,
            notes,
            refused,
        });
    }
    let edits = Edits {
        plans: planned
            .iter()
            .map(|p| match p {
                Planned::Edits(plan) => Some(&**plan),
                _ => None,
            })
            .collect(),
    };
    let mut chunks = m.print_module_chunks(&edits, opts.threads);
    let text = chunks.last_mut().expect("at least one piece");
    if stats.functions > 0 {
        // Declare the convergence intrinsics used that the module does not declare yet.
        let needed: [(&str, bool); 3] = [
            (ENTRY, uses_entry),
            (ANCHOR, uses_anchor),
            (LOOP, stats.hearts > 0),
        ];
        let mut missing: Vec<&str> = Vec::new();
        for (name, want) in needed {
            if want && !m.functions.iter().any(|f| m.str(f.name) == name) {
                missing.push(name);
            }
        }
        if !missing.is_empty() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            for name in missing {
                text.push_str("\ndeclare token @");
                text.push_str(name);
                text.push_str("()\n");
            }
        }
    }
    Ok(Outcome {
        chunks,
        stats,
        notes,
        refused,
    })
}

/// Fresh bare local names that do not collide with the function's own. A candidate that the
/// module never interned cannot be a name of the function; only interned ones are looked up.
struct Names<'m> {
    m: &'m Module,
    f: &'m Function,
    taken: Vec<String>,
}

impl<'m> Names<'m> {
    fn new(m: &'m Module, f: &'m Function) -> Names<'m> {
        Names {
            m,
            f,
            taken: Vec::new(),
        }
    }

    fn used(&self, name: &str) -> bool {
        if self.taken.iter().any(|t| t == name) {
            return true;
        }
        let Some(sym) = self.m.strings.get(name) else {
            return false;
        };
        let is = |n: LocalName| n == LocalName::Named(sym);
        self.f.params.iter().any(|p| is(p.name))
            || self.f.blocks.iter().any(|b| is(b.name()))
            || self.f.insts.iter().any(|i| is(i.name()))
    }

    /// `base`, made a bare name, with `.N` appended until it is unused.
    fn fresh(&mut self, base: &str) -> String {
        let mut b: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if b.is_empty() || b.as_bytes()[0].is_ascii_digit() {
            b.insert_str(0, "cv.");
        }
        let mut name = b.clone();
        let mut k = 1;
        while self.used(&name) {
            name = format!("{b}.{k}");
            k += 1;
        }
        self.taken.push(name.clone());
        name
    }
}

fn block_word(m: &Module, f: &Function, b: Block) -> String {
    match f.blocks[b.index()].name() {
        LocalName::Named(s) => m.str(s).to_string(),
        LocalName::Slot(k) => format!("bb{k}"),
        LocalName::None => format!("bb.{}", b.0),
    }
}

fn plan_function(m: &Module, facts: &ModuleFacts, fid: FuncId) -> Planned {
    let f = m.func(fid);
    let lf = LlvmFunction::new(m, facts, f);
    let n = f.insts.len() as u32;
    if (0..n)
        .map(Inst)
        .any(|i| lf.intrinsic(i) != Intrinsic::None || lf.control(i) != Control::None)
    {
        return Planned::AlreadyControlled;
    }
    let conv: Vec<u32> = (0..n).filter(|&i| lf.is_convergent(Inst(i))).collect();
    if conv.is_empty() {
        return Planned::Nothing;
    }
    match plan_with(m, f, fid, &lf, &conv) {
        Ok(p) => Planned::Edits(Box::new(p)),
        Err(d) => Planned::Refused(d),
    }
}

fn refuse(m: &Module, f: &Function, span: converge_ir::Span, msg: String) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::error(
            format!(
                "cannot insert convergence control tokens in {}: {msg}",
                sigil_name('@', m.str(f.name))
            ),
            span,
        )
        .with_code("T-insert"),
    )
}

fn plan_with(
    m: &Module,
    f: &Function,
    fid: FuncId,
    lf: &LlvmFunction<'_>,
    conv: &[u32],
) -> Result<Plan, Box<Diagnostic>> {
    let _ = fid;
    let cfg = lf.graph();
    if !cfg.preds(Block(0)).is_empty() {
        // LLVM rejects such a function ("Entry block to function must not have predecessors!").
        return Err(refuse(
            m,
            f,
            f.block_span(Block(0)),
            "the entry block has predecessors, which LLVM does not allow (and the `entry` token \
             would sit in a cycle)"
                .to_string(),
        ));
    }
    let ci = CycleInfo::new(cfg);
    let nb = f.blocks.len();
    // Reachability from the entry (LLVM 19 counts unreachable predecessors as cycle entries).
    let mut reach = vec![false; nb];
    let mut stack = vec![Block(0)];
    reach[0] = true;
    while let Some(b) = stack.pop() {
        for &s in cfg.succs(b) {
            if !reach[s.index()] {
                reach[s.index()] = true;
                stack.push(s);
            }
        }
    }
    // Cycles that contain a convergent call (at any depth).
    let mut has_conv = vec![false; ci.len()];
    for &i in conv {
        let mut c = ci.cycle_of(f.insts[i as usize].block);
        while let Some(x) = c {
            if has_conv[x.index()] {
                break;
            }
            has_conv[x.index()] = true;
            c = ci.parent(x);
        }
    }
    // A convergent call whose innermost cycle is irreducible: refused.
    for &i in conv {
        if let Some(c) = ci.cycle_of(f.insts[i as usize].block)
            && !ci.is_reducible(c)
        {
            let entries: Vec<String> = ci
                .entries(c)
                .iter()
                .map(|&b| m.block_operand(fid, b))
                .collect();
            return Err(refuse(
                m,
                f,
                f.inst_span(InstId(i)),
                format!(
                    "this convergent call is inside an irreducible cycle (entries {}), and the \
                     procedure of \"Convergent Operation Semantics\" (§Inferring tokens) needs \
                     reducible cycles",
                    entries.join(", ")
                ),
            )
            .with_note(
                "make the cycle reducible first (for example with LLVM's `fix-irreducible` \
                 pass), then insert tokens",
            )
            .into());
        }
    }
    let mut names = Names::new(m, f);
    let mut plan = Plan::default();
    let convergent_fn = lf.function_is_convergent();
    let top = names.fresh(if convergent_fn {
        "cv.entry"
    } else {
        "cv.anchor"
    });
    let entry_first = f.block_range(Block(0)).start;
    plan.before.push((
        entry_first,
        format!(
            "  %{top} = call token @{}()\n",
            if convergent_fn { ENTRY } else { ANCHOR }
        ),
    ));
    plan.entry = convergent_fn;
    if !convergent_fn {
        plan.anchors += 1;
    }
    // Parents before children.
    let mut order: Vec<Cycle> = ci.cycles().collect();
    order.sort_by_key(|&c| ci.depth(c));
    let mut token: Vec<Option<String>> = vec![None; ci.len()];
    for c in order {
        if !ci.is_reducible(c) {
            continue;
        }
        let inside_irreducible = {
            let mut p = ci.parent(c);
            let mut any = false;
            while let Some(x) = p {
                any |= !ci.is_reducible(x);
                p = ci.parent(x);
            }
            any
        };
        if inside_irreducible && !has_conv[c.index()] {
            continue; // no heart needed, and one could not use a token from outside
        }
        let h = ci.header(c);
        let hword = block_word(m, f, h);
        // The token the heart uses: the parent's heart, the top token, or a preheader anchor
        // when the parent is irreducible (the blog post "A New Type of Convergence Control Intrinsic?").
        let parent_irreducible = ci.parent(c).is_some_and(|p| !ci.is_reducible(p));
        let outside_preds: Vec<Block> = {
            let mut v: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| !ci.contains(c, p))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        // LLVM 19 counts a predecessor unreachable from the entry as an extra entry of the cycle,
        // which makes the cycle irreducible for it and its heart invalid: such edges (dead code)
        // go to a new block ending in `unreachable` instead; a preheader takes the header's.
        for &b in ci.blocks(c) {
            for &u in cfg.preds(b) {
                if reach[u.index()] || (b == h && parent_irreducible) || plan.dead.contains(&(u, b))
                {
                    continue;
                }
                let first = (f.block_range(b).start..f.block_range(b).end)
                    .map(|i| f.insts[i as usize].op)
                    .find(|&op| op != Opcode::Phi);
                if matches!(
                    first,
                    Some(
                        Opcode::LandingPad
                            | Opcode::CatchPad
                            | Opcode::CleanupPad
                            | Opcode::CatchSwitch
                    )
                ) {
                    return Err(refuse(
                        m,
                        f,
                        f.block_span(b),
                        format!(
                            "the unreachable block {} unwinds to {} in the cycle headed by {}; \
                             LLVM 19 counts it as an entry of the cycle, and an unwind edge \
                             cannot be redirected",
                            m.block_operand(fid, u),
                            m.block_operand(fid, b),
                            m.block_operand(fid, h)
                        ),
                    ));
                }
                plan.dead.push((u, b));
            }
        }
        let heart_operand = if parent_irreducible {
            None
        } else {
            Some(match ci.parent(c) {
                None => top.clone(),
                Some(p) => token[p.index()]
                    .clone()
                    .expect("a reducible parent with convergent operations has a heart"),
            })
        };
        let needs_preheader = parent_irreducible;
        let heart_token = names.fresh(&format!("cv.loop.{hword}"));
        let operand = if needs_preheader {
            check_preheader_possible(m, f, fid, cfg, h, &outside_preds)?;
            let label = names.fresh(&format!("{hword}.cv.pre"));
            let mut lines = String::new();
            let operand = match heart_operand {
                Some(t) => t,
                None => {
                    let a = names.fresh(&format!("cv.anchor.{hword}"));
                    lines = format!("  %{a} = call token @{ANCHOR}()\n");
                    plan.anchors += 1;
                    a
                }
            };
            let hb = f.block_range(h);
            let phi_names: Vec<String> = (hb.start..hb.end)
                .take_while(|&i| f.insts[i as usize].op == Opcode::Phi)
                .map(|i| {
                    let base = match f.insts[i as usize].name() {
                        LocalName::Named(s) => m.str(s).to_string(),
                        _ => "cv.phi".to_string(),
                    };
                    names.fresh(&format!("{base}.cv.pre"))
                })
                .collect();
            plan.preheaders.push(Preheader {
                header: h,
                label,
                preds: outside_preds.clone(),
                phi_names,
                lines,
            });
            operand
        } else {
            heart_operand.expect("no preheader: the heart uses the parent's token")
        };
        let at = heart_position(m, f, fid, h)?;
        let line = format!(
            "  %{heart_token} = call token @{LOOP}() [ \"convergencectrl\"(token %{operand}) ]\n"
        );
        match plan.before.iter_mut().find(|e| e.0 == at) {
            Some(e) => e.1.push_str(&line),
            None => plan.before.push((at, line)),
        }
        plan.hearts += 1;
        token[c.index()] = Some(heart_token);
    }
    if !plan.dead.is_empty() {
        plan.dead_label = names.fresh("cv.dead");
    }
    let convergent = m.strings.get("convergent");
    let has = |r: converge_ir::Range32| {
        convergent.is_some_and(|k| m.attrs[r.range()].iter().any(|a| a.key == k))
    };
    for &i in conv {
        let call = &f.calls[f.insts[i as usize].aux as usize];
        // LLVM replaces an intrinsic declaration's attributes by its own table's.
        let declared = has(call.fn_attrs)
            || matches!(call.callee, converge_ir::Value::Func(g)
                if has(m.func(g).attrs) && !m.str(m.func(g).name).starts_with("llvm."));
        if !declared {
            plan.mark_convergent.push(i);
        }
    }
    for &i in conv {
        let tok = match ci.cycle_of(f.insts[i as usize].block) {
            None => top.clone(),
            Some(c) => token[c.index()]
                .clone()
                .expect("every cycle around a convergent call has a heart"),
        };
        plan.bundles
            .push((i, format!("\"convergencectrl\"(token %{tok})")));
    }
    plan.before.sort_by_key(|e| e.0);
    Ok(plan)
}

/// The instruction before which the heart of header `h` goes: the first that is not a phi (nor the
/// block's exception-handling pad, which must come first).
fn heart_position(m: &Module, f: &Function, fid: FuncId, h: Block) -> Result<u32, Box<Diagnostic>> {
    let r = f.block_range(h);
    let mut i = r.start;
    while i < r.end && f.insts[i as usize].op == Opcode::Phi {
        i += 1;
    }
    if i < r.end && matches!(f.insts[i as usize].op, Opcode::LandingPad) {
        i += 1;
    }
    let op = f.insts.get(i as usize).map(|x| x.op);
    if i >= r.end
        || matches!(
            op,
            Some(Opcode::CatchPad | Opcode::CleanupPad | Opcode::CatchSwitch)
        )
    {
        return Err(refuse(
            m,
            f,
            f.block_span(h),
            format!(
                "the cycle header {} is an exception-handling block where a `loop` heart cannot \
                 be placed first",
                m.block_operand(fid, h)
            ),
        ));
    }
    Ok(i)
}

/// A preheader redirects the entering edges; refused where LLVM cannot redirect an edge.
fn check_preheader_possible(
    m: &Module,
    f: &Function,
    fid: FuncId,
    _cfg: &converge_graph::Cfg,
    h: Block,
    preds: &[Block],
) -> Result<(), Box<Diagnostic>> {
    let hb = f.block_range(h);
    let first_non_phi = (hb.start..hb.end)
        .find(|&i| f.insts[i as usize].op != Opcode::Phi)
        .map(|i| f.insts[i as usize].op);
    if matches!(
        first_non_phi,
        Some(Opcode::LandingPad | Opcode::CatchPad | Opcode::CleanupPad | Opcode::CatchSwitch)
    ) {
        return Err(refuse(
            m,
            f,
            f.block_span(h),
            format!(
                "the natural loop headed by {} needs a preheader with an anchor, but its header \
                 is an exception-handling block that is entered by unwind edges",
                m.block_operand(fid, h)
            ),
        ));
    }
    for &p in preds {
        let r = f.block_range(p);
        let t = &f.insts[r.end as usize - 1];
        if matches!(t.op, Opcode::IndirectBr | Opcode::CallBr) {
            return Err(refuse(
                m,
                f,
                f.inst_span(InstId(r.end - 1)),
                format!(
                    "the natural loop headed by {} needs a preheader, but this `{}` enters it \
                     and its edge cannot be redirected",
                    m.block_operand(fid, h),
                    t.op.name()
                ),
            ));
        }
    }
    Ok(())
}
