//! The rules that depend on a function's predecessor edges (the entry block is no branch target;
//! each phi has one incoming entry per predecessor edge of its block, as multisets), checked by
//! the reader at the end of each function body: one pass over the blocks' terminators counts each
//! block's edges and keeps the sources of its first two, then each phi the reader listed is
//! compared with its block's counts (one or two entries directly, longer lists by counting each
//! incoming block's occurrences against the edges its terminator sends to the phi's block). Only
//! `true` is an answer: `false` means "not known here" (a mismatch, a phi after a non-phi, a
//! budget of successor scans spent), and `wellformed`'s own pass, which also names the error,
//! decides. Reading a 38 MB module, that pass's bookkeeping per block (successor ranges, sorted
//! lists of wide blocks, a CFG for long phis) cost about 200 instructions a block (issue 13).
//!
//! Where each terminator's and each phi's block references lie is what the reader recorded as it
//! pushed them ([`Shape`]): the pass reads only the block references, not the instruction records
//! (one 36-byte record a block, in no cache by then).

use crate::ir::Function;
use converge_graph::Block;

/// A block's edge source not recorded (past its edges).
const NONE: u32 = u32::MAX;

/// A phi as the reader pushed it: its block and its incoming blocks, a range of
/// [`Function::block_refs`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct PhiRefs {
    pub(crate) block: u32,
    pub(crate) refs: [u32; 2],
}

/// Where a function's terminators and phis have their block references, recorded by the reader
/// (the tests derive the same from a finished function: `shape_of`).
#[derive(Copy, Clone)]
pub(crate) struct Shape<'a> {
    /// Per block, its terminator's block references (a range of [`Function::block_refs`]).
    pub(crate) terms: &'a [[u32; 2]],
    /// Every phi of the function, in order, each first in its block.
    pub(crate) phis: &'a [PhiRefs],
}

/// The same records derived from a finished function (tests: what the reader must record).
#[cfg(test)]
pub(crate) fn shape_of(f: &Function) -> (Vec<[u32; 2]>, Vec<PhiRefs>) {
    use crate::ir::{InstId, Opcode};
    let terms = (0..f.blocks.len())
        .map(|b| {
            let r = f.block_range(Block(b as u32));
            match r.end.checked_sub(1).filter(|&t| t >= r.start) {
                Some(t) => {
                    let x = f.inst_block_range(InstId(t));
                    [x.start, x.end]
                }
                None => [0, 0],
            }
        })
        .collect();
    let phis = f
        .insts
        .iter()
        .enumerate()
        .filter(|(_, i)| i.op == Opcode::Phi)
        .map(|(k, i)| {
            let x = f.inst_block_range(InstId(k as u32));
            PhiRefs {
                block: i.block.0,
                refs: [x.start, x.end],
            }
        })
        .collect();
    (terms, phis)
}

/// Buffers reused across functions.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Per block: its predecessor edges (with multiplicity), then the blocks its first two come
    /// from.
    preds: Vec<[u32; 3]>,
    /// Per block, its occurrences in the long phi being compared, valid where `seen` holds
    /// `stamp`.
    count: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
}

/// Whether `f` (every block ending in a terminator, as the reader builds it, whose block
/// references `shape.terms` gives) keeps the entry rule and, if `has_phi`, every phi in
/// `shape.phis` (all of `f`'s phis, each first in its block) has its block's predecessor edges as
/// incoming blocks. `false` where this pass does not know.
pub(crate) fn quick_ok(f: &Function, has_phi: bool, shape: Shape, sc: &mut Scratch) -> bool {
    let n = f.blocks.len();
    if shape.terms.len() != n {
        return false;
    }
    let preds = &mut sc.preds;
    preds.clear();
    preds.resize(n, [0, NONE, NONE]);
    for (b, &[s, e]) in shape.terms.iter().enumerate() {
        let Some(refs) = f.block_refs.get(s as usize..e as usize) else {
            return false;
        };
        for s in refs {
            let Some(e) = preds.get_mut(s.index()) else {
                return false;
            };
            let c = e[0];
            if c < 2 {
                e[1 + c as usize] = b as u32;
            }
            e[0] = c + 1;
        }
    }
    if preds.first().is_some_and(|e| e[0] != 0) {
        return false;
    }
    if !has_phi {
        return true;
    }
    // Successor entries the long phis may scan: a wide block whose targets all have long phis
    // naming it would otherwise be scanned once per phi.
    let mut budget = 8 * f.block_refs.len() + 256;
    for p in shape.phis {
        let Some(&[count, x, y]) = sc.preds.get(p.block as usize) else {
            return false;
        };
        let Some(incoming) = f.block_refs.get(p.refs[0] as usize..p.refs[1] as usize) else {
            return false;
        };
        if incoming.len() != count as usize {
            return false;
        }
        let ok = match incoming {
            [a] => a.0 == x,
            [a, b] => (a.0 == x && b.0 == y) || (a.0 == y && b.0 == x),
            _ => long_ok(f, Block(p.block), incoming, shape.terms, sc, &mut budget),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Whether the multiset `incoming`, as long as block `b`'s predecessor edges, is those edges: each
/// distinct block in it occurs as often as its terminator (block references `terms`) branches to
/// `b` (then the counts add up to the list's length, so no other block branches to `b`). `false`
/// also once `budget` successor entries have been scanned.
#[inline(never)]
fn long_ok(
    f: &Function,
    b: Block,
    incoming: &[Block],
    terms: &[[u32; 2]],
    sc: &mut Scratch,
    budget: &mut usize,
) -> bool {
    let n = f.blocks.len();
    if sc.count.len() < n {
        sc.count.resize(n, 0);
        sc.seen.resize(n, 0);
    }
    sc.stamp = sc.stamp.wrapping_add(1);
    if sc.stamp == 0 {
        sc.seen.fill(0);
        sc.stamp = 1;
    }
    for &x in incoming {
        let x = x.index();
        if x >= n {
            return false;
        }
        if sc.seen[x] != sc.stamp {
            sc.seen[x] = sc.stamp;
            sc.count[x] = 0;
        }
        sc.count[x] += 1;
    }
    for &x in incoming {
        let x = x.index();
        let here = sc.count[x];
        if here == 0 {
            // Compared already.
            continue;
        }
        // `quick_ok` read every terminator's references.
        let [s, e] = terms[x];
        let refs = &f.block_refs[s as usize..e as usize];
        let Some(left) = budget.checked_sub(refs.len()) else {
            return false;
        };
        *budget = left;
        if refs.iter().filter(|&&s| s == b).count() != here as usize {
            return false;
        }
        sc.count[x] = 0;
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::ir::{Function, InstId, Opcode};
    use crate::parser::Parser;
    use converge_gen::rng::Rng;

    /// A function over a random CFG: blocks ending in `ret`, `br`, a conditional `br` or a
    /// `switch` (up to 40 cases, targets repeated, now and then the entry block), and phis that
    /// list their block's predecessor edges in a shuffled order, or a near miss of them (an entry
    /// replaced, dropped, repeated, or one edge's source written for another's); now and then a
    /// phi after a non-phi. Half the functions have none of these faults.
    fn cfg_text(rng: &mut Rng) -> String {
        let n = 2 + rng.below(24);
        // Half the functions without near misses, so that many keep the rules.
        let clean = rng.chance(1, 2);
        let target = |rng: &mut Rng, few: usize| {
            if !clean && rng.chance(1, 40) {
                0
            } else {
                1 + rng.below(few.min(n - 1))
            }
        };
        let mut succs: Vec<Vec<usize>> = Vec::new();
        for _ in 0..n {
            // A small pool of targets makes repeated edges likely.
            let few = if rng.chance(1, 2) { 3 } else { n };
            let s: Vec<usize> = match rng.below(10) {
                0 => Vec::new(),
                1..=3 => vec![target(rng, few)],
                4..=6 => vec![target(rng, few), target(rng, few)],
                _ => {
                    let most = if rng.chance(1, 4) { 40 } else { 4 };
                    let cases = 1 + rng.below(most);
                    (0..=cases).map(|_| target(rng, few)).collect()
                }
            };
            succs.push(s);
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (b, s) in succs.iter().enumerate() {
            for &t in s {
                preds[t].push(b);
            }
        }
        let mut out = String::from("define void @p(i1 %c, i32 %a) {\n");
        for b in 0..n {
            out.push_str(&format!("b{b}:\n"));
            for k in 0..rng.below(3) {
                let mut inc = preds[b].clone();
                for i in (1..inc.len()).rev() {
                    let j = rng.below(i + 1);
                    inc.swap(i, j);
                }
                match if clean { 9 } else { rng.below(10) } {
                    0 if !inc.is_empty() => {
                        let i = rng.below(inc.len());
                        inc[i] = rng.below(n);
                    }
                    1 if !inc.is_empty() => {
                        inc.pop();
                    }
                    2 if !inc.is_empty() => inc.push(inc[0]),
                    3 if inc.len() > 1 => {
                        let (i, j) = (rng.below(inc.len()), rng.below(inc.len()));
                        inc[i] = inc[j];
                    }
                    _ => {}
                }
                if inc.is_empty() {
                    continue;
                }
                if !clean && rng.chance(1, 30) {
                    out.push_str(&format!("  %y{b}.{k} = add i32 %a, 1\n"));
                }
                let entries: Vec<String> = inc.iter().map(|q| format!("[ 0, %b{q} ]")).collect();
                out.push_str(&format!("  %x{b}.{k} = phi i32 {}\n", entries.join(", ")));
            }
            match &succs[b][..] {
                [] => out.push_str("  ret void\n"),
                [t] => out.push_str(&format!("  br label %b{t}\n")),
                [t, u] => out.push_str(&format!("  br i1 %c, label %b{t}, label %b{u}\n")),
                [d, cases @ ..] => {
                    out.push_str(&format!("  switch i32 %a, label %b{d} [\n"));
                    for (v, t) in cases.iter().enumerate() {
                        out.push_str(&format!("    i32 {v}, label %b{t}\n"));
                    }
                    out.push_str("  ]\n");
                }
            }
        }
        out.push_str("}\n");
        out
    }

    /// What `wellformed`'s scan finds: whether `f` has a phi, whether one follows a non-phi of
    /// its block, and its phis in order (what the reader lists).
    fn phis_of(f: &Function) -> (bool, bool, Vec<u32>) {
        let mut misplaced = false;
        let mut phis = Vec::new();
        for (k, i) in f.insts.iter().enumerate() {
            if i.op == Opcode::Phi {
                phis.push(k as u32);
                misplaced |=
                    k > 0 && f.insts[k - 1].block == i.block && f.insts[k - 1].op != Opcode::Phi;
            }
        }
        (!phis.is_empty(), misplaced, phis)
    }

    /// [`super::quick_ok`] says `true` only where the checks' own pass finds no violation
    /// (`wellformed::preds_and_phis`, the unoptimised path), and answers most functions that
    /// keep the rules; and `wellformed::check_module` with the reader's `preds_ok` gives the same
    /// answer (the module accepted, or the same first error) as with the rules checked after the
    /// read (`NO_READ_PREDS`), on random CFGs with phis, switches and near misses.
    #[test]
    fn quick_answers_as_the_checks() {
        use crate::wellformed::NO_READ_PREDS;
        use std::sync::atomic::Ordering::Relaxed;
        let mut rng = Rng::new(0x510e_527f_ade6_82d1);
        let mut sc = super::Scratch::default();
        let mut general = crate::wellformed::Scratch::default();
        let (mut kept, mut answered, mut broken, mut long) = (0, 0, 0, 0);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..6000 {
            let text = cfg_text(&mut rng);
            let Ok((m, wrong, facts)) = Parser::new("t.ll", &text).parse_module_noted() else {
                continue;
            };
            for f in m.functions.iter().filter(|f| !f.is_declaration) {
                let (has_phi, misplaced, phis) = phis_of(f);
                general.cfg_built = false;
                let ok = crate::wellformed::preds_and_phis(f, has_phi, misplaced, &mut general)
                    .is_none();
                let (terms, phi_refs) = super::shape_of(f);
                let shape = super::Shape {
                    terms: &terms,
                    phis: &phi_refs,
                };
                let quick = !misplaced && super::quick_ok(f, has_phi, shape, &mut sc);
                assert!(!quick || ok, "quick accepted a violation\n{text}");
                kept += ok as usize;
                broken += !ok as usize;
                answered += quick as usize;
                long += phis
                    .iter()
                    .filter(|&&k| f.inst_blocks(InstId(k)).len() > 2)
                    .count();
            }
            NO_READ_PREDS.store(true, Relaxed);
            let after = crate::wellformed::check_module(&m, &wrong, &facts, false)
                .map_err(|e| format!("{e:?}"));
            NO_READ_PREDS.store(false, Relaxed);
            let read = crate::wellformed::check_module(&m, &wrong, &facts, false)
                .map_err(|e| format!("{e:?}"));
            assert_eq!(read, after, "\n{text}");
            if read.is_ok() {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
        eprintln!(
            "{kept} functions keep the rules ({answered} answered by the quick pass), {broken} \
             break them; {long} phis of three entries or more; {accepted} accepted, {rejected} \
             rejected"
        );
        assert!(
            answered * 10 >= kept * 9 && broken > 1000 && long > 1000,
            "{answered} of {kept} answered, {broken} broken, {long} long phis"
        );
        assert!(
            accepted > 1000 && rejected > 1000,
            "{accepted} accepted, {rejected} rejected"
        );
    }

    /// A switch of 600 cases reaching 200 blocks three times each, each with a phi naming the
    /// switch's block three times: scanning the switch once per phi would be quadratic, so the
    /// quick pass stops when its budget is spent and the checks' own pass (a binary search in the
    /// sorted cases) decides, accepting it, or rejecting it with one entry missing.
    #[test]
    fn wide_blocks_spend_the_budget() {
        let text = |last: &str| {
            let mut t =
                String::from("define void @w(i32 %a) {\ns:\n  switch i32 %a, label %t0 [\n");
            for v in 1..600 {
                t.push_str(&format!("    i32 {v}, label %t{}\n", v % 200));
            }
            t.push_str("  ]\n");
            for k in 0..200 {
                let entries = if k == 199 {
                    last
                } else {
                    "[ 0, %s ], [ 0, %s ], [ 0, %s ]"
                };
                t.push_str(&format!("t{k}:\n  %p{k} = phi i32 {entries}\n  ret void\n"));
            }
            t + "}\n"
        };
        let full = text("[ 0, %s ], [ 0, %s ], [ 0, %s ]");
        let (m, _, _) = Parser::new("t.ll", &full)
            .parse_module_noted()
            .expect("reads");
        let f = &m.functions[0];
        let (has_phi, _, _) = phis_of(f);
        let (terms, phis) = super::shape_of(f);
        let shape = super::Shape {
            terms: &terms,
            phis: &phis,
        };
        assert!(!super::quick_ok(
            f,
            has_phi,
            shape,
            &mut super::Scratch::default()
        ));
        assert!(crate::parse("t.ll", full).is_ok());
        let short = text("[ 0, %s ], [ 0, %s ]");
        let e = crate::parse("t.ll", short).expect_err("an entry is missing");
        assert_eq!(e.code.as_deref(), Some("E-phi-preds"), "{e:?}");
    }
}
