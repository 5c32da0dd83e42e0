//! Random convergence-control token placements, valid and invalid, in reducible and irreducible CFGs.
//!
//! A function starts from a structured shape (sequences, if-then-else, natural loops nested up to a
//! small depth) with tokens placed the way "Convergent Operation Semantics" (§Inferring Tokens)
//! places them: an `entry` (or an `anchor`) at the top, a `loop` heart at the start of every loop header whose token
//! is the enclosing region's, and convergent calls using the innermost token. Then random mutations
//! break it in the ways the static rules forbid (a token from an outer region used inside a cycle, a
//! second heart, a heart moved out of the header, an extra edge that makes a cycle irreducible or
//! jumps into a loop, a use before its definition, a missing or extra bundle, mixing controlled and
//! uncontrolled convergent calls, a non-convergent function with `entry`, …). Roughly half of the
//! functions stay valid.
//!
//! Every value and block name carries the function's prefix (`f12_…`), so the lines of a verifier
//! report can be attributed to functions when many functions share one module.

use crate::rng::Rng;
use std::fmt::Write;

/// The declarations every generated module needs.
pub const PRELUDE: &str = "\
declare void @f(i1) convergent
declare void @g(i1)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
";

/// Stands for the constant `token none` in a bundle.
const NONE: &str = "<none>";

#[derive(Clone, Debug, PartialEq, Eq)]
enum Op {
    /// `%name = call token @llvm.experimental.convergence.<kind>()` with optional token operands.
    Intr {
        name: String,
        kind: &'static str,
        bundles: Vec<Vec<String>>,
    },
    /// `call void @f()` / `@g()` with bundles.
    Call {
        callee: &'static str,
        bundles: Vec<Vec<String>>,
    },
}

#[derive(Clone, Debug)]
struct Blk {
    ops: Vec<Op>,
    /// Successor block indices (0: return, 1: br, 2: conditional br).
    succs: Vec<usize>,
    /// Innermost loop depth (0 outside loops) and the token in scope at the block's start.
    scope: String,
    is_header: bool,
}

/// One generated function: its `define` text.
#[derive(Clone, Debug)]
pub struct TokenFunction {
    /// The function's name, without `@`.
    pub name: String,
    /// Its `define … { … }` text (declarations in [`PRELUDE`]).
    pub text: String,
    /// The mutations applied (empty: placed as the inference procedure would).
    pub mutations: Vec<&'static str>,
}

struct Builder<'r> {
    rng: &'r mut Rng,
    prefix: String,
    blocks: Vec<Blk>,
    tokens: usize,
    max_blocks: usize,
}

impl Builder<'_> {
    fn new_block(&mut self, scope: &str) -> usize {
        self.blocks.push(Blk {
            ops: Vec::new(),
            succs: Vec::new(),
            scope: scope.to_string(),
            is_header: false,
        });
        self.blocks.len() - 1
    }

    fn fresh(&mut self) -> String {
        self.tokens += 1;
        format!("{}t{}", self.prefix, self.tokens)
    }

    fn convergent_ops(&mut self, b: usize) {
        let scope = self.blocks[b].scope.clone();
        let n = self.rng.below(3);
        for _ in 0..n {
            if self.rng.chance(1, 6) {
                // A nested anchor region: an anchor, then a use of it.
                let t = self.fresh();
                self.blocks[b].ops.push(Op::Intr {
                    name: t.clone(),
                    kind: "anchor",
                    bundles: vec![],
                });
                self.blocks[b].ops.push(Op::Call {
                    callee: "f",
                    bundles: vec![vec![t]],
                });
            } else {
                self.blocks[b].ops.push(Op::Call {
                    callee: "f",
                    bundles: vec![vec![scope.clone()]],
                });
            }
        }
    }

    /// Builds a structured region starting in block `cur`; returns the block where it ends.
    /// `depth` bounds the nesting (the generator's recursion is bounded by it, not by CFG size).
    fn region(&mut self, cur: usize, depth: u32) -> usize {
        let mut cur = cur;
        let parts = 1 + self.rng.below(3);
        for _ in 0..parts {
            if self.blocks.len() >= self.max_blocks || depth == 0 {
                self.convergent_ops(cur);
                continue;
            }
            match self.rng.below(4) {
                0 => self.convergent_ops(cur),
                1 => {
                    // if-then(-else)
                    self.convergent_ops(cur);
                    let scope = self.blocks[cur].scope.clone();
                    let then_b = self.new_block(&scope);
                    let join = self.new_block(&scope);
                    let then_end = self.region(then_b, depth - 1);
                    self.blocks[then_end].succs = vec![join];
                    if self.rng.chance(1, 2) {
                        let else_b = self.new_block(&scope);
                        let else_end = self.region(else_b, depth - 1);
                        self.blocks[else_end].succs = vec![join];
                        self.blocks[cur].succs = vec![then_b, else_b];
                    } else {
                        self.blocks[cur].succs = vec![then_b, join];
                    }
                    cur = join;
                }
                _ => {
                    // A natural loop: header with a heart, a body region, a latch back to the header.
                    let outer = self.blocks[cur].scope.clone();
                    let heart = self.fresh();
                    let header = self.new_block(&heart);
                    self.blocks[header].is_header = true;
                    self.blocks[header].ops.push(Op::Intr {
                        name: heart.clone(),
                        kind: "loop",
                        bundles: vec![vec![outer.clone()]],
                    });
                    self.blocks[cur].succs = vec![header];
                    let body_end = self.region(header, depth - 1);
                    let exit = self.new_block(&outer);
                    // Latch: conditional back edge (order random: decides the DFS, hence headers).
                    if self.rng.chance(1, 2) {
                        self.blocks[body_end].succs = vec![header, exit];
                    } else {
                        self.blocks[body_end].succs = vec![exit, header];
                    }
                    cur = exit;
                }
            }
        }
        cur
    }
}

/// All token names defined by a function's ops, with their block.
fn defs(blocks: &[Blk]) -> Vec<(String, usize)> {
    let mut v = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        for op in &b.ops {
            if let Op::Intr { name, .. } = op {
                v.push((name.clone(), i));
            }
        }
    }
    v
}

/// Generates one function named `@{prefix}fn` (all names start with `prefix`): two thirds are
/// structured placements (about half of them mutated, usually invalid), one third are placements on
/// an arbitrary CFG shape from [`crate::cfg`] (irreducible regions, unreachable blocks, switches, …).
pub fn random_function(rng: &mut Rng, prefix: &str) -> TokenFunction {
    if rng.chance(1, 3) {
        on_random_cfg(rng, prefix)
    } else {
        generate(rng, prefix, true)
    }
}

/// Tokens on a random CFG shape whose cycles the generator does not know: each block gets, at
/// random, nothing, a local anchor region (always valid), convergent calls using the entry token
/// (valid outside cycles), a `loop` heart using the entry token (valid in the header of a reducible
/// top-level cycle), or a use of a random earlier token. Two functions in five get only local anchor
/// regions (valid whatever the cycles).
pub fn on_random_cfg(rng: &mut Rng, prefix: &str) -> TokenFunction {
    use crate::cfg::{CfgParams, Shape, random_cfg, write_terminator_with};
    let shape = *rng.pick(&Shape::ALL);
    let params = CfgParams {
        shape,
        blocks: 3 + rng.below(10),
        max_depth: 3,
        allow_unreachable: true,
        shuffle: false,
    };
    let cfg = random_cfg(rng, &params);
    let name = format!("{prefix}fn");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "define void @{name}({}, i1 %{prefix}c) convergent {{",
        crate::cfg::PARAMS
    );
    let safe = rng.chance(2, 5);
    let entry = format!("{prefix}t0");
    let mut defined = vec![entry.clone()];
    let mut count = 0usize;
    let fresh = |count: &mut usize| {
        *count += 1;
        format!("{prefix}t{count}")
    };
    for b in 0..cfg.succs.len() as u32 {
        let _ = writeln!(s, "{prefix}b{b}:");
        if b == 0 {
            let _ = writeln!(
                s,
                "  %{entry} = call token @llvm.experimental.convergence.entry()"
            );
        }
        // In "safe" functions only local anchor regions, valid in any cycle, reducible or not.
        let pick = if safe { rng.below(6) } else { rng.below(10) };
        match pick {
            0..=3 => {}
            4..=5 => {
                let t = fresh(&mut count);
                let _ = writeln!(
                    s,
                    "  %{t} = call token @llvm.experimental.convergence.anchor()"
                );
                let _ = writeln!(
                    s,
                    "  call void @f(i1 %{prefix}c) [ \"convergencectrl\"(token %{t}) ]"
                );
                defined.push(t);
            }
            6..=7 => {
                let _ = writeln!(
                    s,
                    "  call void @f(i1 %{prefix}c) [ \"convergencectrl\"(token %{entry}) ]"
                );
            }
            8 => {
                let t = fresh(&mut count);
                let _ = writeln!(
                    s,
                    "  %{t} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %{entry}) ]"
                );
                let _ = writeln!(
                    s,
                    "  call void @f(i1 %{prefix}c) [ \"convergencectrl\"(token %{t}) ]"
                );
                defined.push(t);
            }
            _ => {
                let t = rng.pick(&defined).clone();
                let _ = writeln!(
                    s,
                    "  call void @f(i1 %{prefix}c) [ \"convergencectrl\"(token %{t}) ]"
                );
            }
        }
        write_terminator_with(&mut s, &cfg, b, &format!("{prefix}b"));
    }
    s.push_str("}\n");
    TokenFunction {
        name,
        text: s,
        mutations: vec!["random-cfg"],
    }
}

/// A function with tokens placed as the inference procedure of "Convergent Operation Semantics"
/// places them (valid).
pub fn valid_function(rng: &mut Rng, prefix: &str) -> TokenFunction {
    generate(rng, prefix, false)
}

fn generate(rng: &mut Rng, prefix: &str, mutate: bool) -> TokenFunction {
    let max_blocks = 3 + rng.below(10);
    let mut b = Builder {
        rng,
        prefix: prefix.to_string(),
        blocks: Vec::new(),
        tokens: 0,
        max_blocks,
    };
    let use_entry = b.rng.chance(3, 4);
    let top = b.fresh();
    let entry = b.new_block(&top);
    b.blocks[entry].ops.push(Op::Intr {
        name: top.clone(),
        kind: if use_entry { "entry" } else { "anchor" },
        bundles: vec![],
    });
    let depth = 1 + b.rng.below(3) as u32;
    let end = b.region(entry, depth);
    b.blocks[end].succs = vec![];
    let mut convergent_fn = true;
    let mut mutations = Vec::new();
    let rounds = if !mutate || b.rng.chance(1, 2) {
        0
    } else {
        1 + b.rng.below(2)
    };
    for _ in 0..rounds {
        let n = b.blocks.len();
        let all_defs = defs(&b.blocks);
        match b.rng.below(14) {
            0 | 1 => {
                // Retarget a branch edge anywhere: irreducible cycles, jumps into loops, new cycles.
                let from = b.rng.below(n);
                if !b.blocks[from].succs.is_empty() && n > 1 {
                    let k = b.rng.below(b.blocks[from].succs.len());
                    // Never to the entry block: LLVM forbids predecessors of the entry block.
                    b.blocks[from].succs[k] = 1 + b.rng.below(n - 1);
                    mutations.push("retarget-edge");
                }
            }
            2 => {
                // Add an edge: a return or a jump becomes a conditional branch.
                let from = b.rng.below(n);
                if b.blocks[from].succs.len() < 2 && n > 1 {
                    let to = 1 + b.rng.below(n - 1);
                    b.blocks[from].succs.push(to);
                    if b.blocks[from].succs.len() == 1 {
                        b.blocks[from].succs.push(to);
                    }
                    mutations.push("add-edge");
                }
            }
            3 | 4 => {
                // Replace a token operand by another token (outer, inner, later, non-dominating).
                let (blk, pos) = pick_bundled(b.rng, &b.blocks);
                if let Some((blk, pos)) = blk.zip(pos) {
                    let t = b.rng.pick(&all_defs).0.clone();
                    set_bundle(&mut b.blocks[blk].ops[pos], vec![vec![t]]);
                    mutations.push("swap-token");
                }
            }
            5 => {
                // A second heart, or a use placed before the heart.
                let headers: Vec<usize> = (0..n).filter(|&i| b.blocks[i].is_header).collect();
                if !headers.is_empty() {
                    let h = *b.rng.pick(&headers);
                    let t = b.rng.pick(&all_defs).0.clone();
                    let at = if b.rng.chance(1, 2) {
                        0
                    } else {
                        b.blocks[h].ops.len()
                    };
                    let op = if b.rng.chance(1, 2) {
                        let name = b.fresh();
                        Op::Intr {
                            name,
                            kind: "loop",
                            bundles: vec![vec![t]],
                        }
                    } else {
                        Op::Call {
                            callee: "f",
                            bundles: vec![vec![t]],
                        }
                    };
                    b.blocks[h].ops.insert(at, op);
                    mutations.push("extra-heart");
                }
            }
            6 => {
                // Move a heart to another block.
                let from = b.rng.below(n);
                let to = b.rng.below(n);
                if let Some(p) = b.blocks[from]
                    .ops
                    .iter()
                    .position(|o| matches!(o, Op::Intr { kind: "loop", .. }))
                {
                    let op = b.blocks[from].ops.remove(p);
                    let at = b.rng.below(b.blocks[to].ops.len() + 1);
                    b.blocks[to].ops.insert(at, op);
                    mutations.push("move-heart");
                }
            }
            7 => {
                // An uncontrolled convergent call (mixing), or a token on a non-convergent call.
                let blk = b.rng.below(n);
                let at = b.rng.below(b.blocks[blk].ops.len() + 1);
                let op = if b.rng.chance(1, 2) {
                    Op::Call {
                        callee: "f",
                        bundles: vec![],
                    }
                } else {
                    let t = b.rng.pick(&all_defs).0.clone();
                    Op::Call {
                        callee: "g",
                        bundles: vec![vec![t]],
                    }
                };
                b.blocks[blk].ops.insert(at, op);
                mutations.push("uncontrolled-or-nonconvergent");
            }
            8 => {
                // Bundle shape: two bundles, two tokens, or none on a heart; a bundle on an anchor.
                let (blk, pos) = pick_bundled(b.rng, &b.blocks);
                let t = b.rng.pick(&all_defs).0.clone();
                if let Some((blk, pos)) = blk.zip(pos) {
                    let nb = match b.rng.below(4) {
                        0 => vec![vec![t.clone()], vec![t]],
                        1 => vec![vec![t.clone(), t]],
                        // A token that no convergence intrinsic produced.
                        2 => vec![vec![NONE.to_string()]],
                        _ => vec![],
                    };
                    set_bundle(&mut b.blocks[blk].ops[pos], nb);
                    mutations.push("bundle-shape");
                }
            }
            9 => {
                // The function is not convergent (entry then breaks D4).
                convergent_fn = false;
                mutations.push("not-convergent");
            }
            10 => {
                // An entry or anchor somewhere else (entry outside the entry block, or after a call).
                let blk = b.rng.below(n);
                let at = b.rng.below(b.blocks[blk].ops.len() + 1);
                let name = b.fresh();
                let kind = if b.rng.chance(1, 2) {
                    "entry"
                } else {
                    "anchor"
                };
                b.blocks[blk].ops.insert(
                    at,
                    Op::Intr {
                        name: name.clone(),
                        kind,
                        bundles: vec![],
                    },
                );
                // Use it somewhere, possibly far away.
                let ub = b.rng.below(n);
                let uat = b.rng.below(b.blocks[ub].ops.len() + 1);
                b.blocks[ub].ops.insert(
                    uat,
                    Op::Call {
                        callee: "f",
                        bundles: vec![vec![name]],
                    },
                );
                mutations.push("extra-entry-or-anchor");
            }
            11 => {
                // A convergent call before a heart in the header.
                let headers: Vec<usize> = (0..n).filter(|&i| b.blocks[i].is_header).collect();
                if !headers.is_empty() {
                    let h = *b.rng.pick(&headers);
                    let scope = b.blocks[h].scope.clone();
                    b.blocks[h].ops.insert(
                        0,
                        Op::Call {
                            callee: "f",
                            bundles: vec![vec![scope]],
                        },
                    );
                    mutations.push("call-before-heart");
                }
            }
            12 => {
                // Use a token from an outer region inside a loop.
                let blk = b.rng.below(n);
                let t = b.rng.pick(&all_defs).0.clone();
                let at = b.rng.below(b.blocks[blk].ops.len() + 1);
                b.blocks[blk].ops.insert(
                    at,
                    Op::Call {
                        callee: "f",
                        bundles: vec![vec![t]],
                    },
                );
                mutations.push("outer-token-use");
            }
            _ => {
                // Interleave two anchors' uses (regions that do not nest).
                let blk = b.rng.below(n);
                let (t1, t2) = (b.fresh(), b.fresh());
                let ops = [
                    Op::Intr {
                        name: t1.clone(),
                        kind: "anchor",
                        bundles: vec![],
                    },
                    Op::Intr {
                        name: t2.clone(),
                        kind: "anchor",
                        bundles: vec![],
                    },
                    Op::Call {
                        callee: "f",
                        bundles: vec![vec![t1]],
                    },
                    Op::Call {
                        callee: "f",
                        bundles: vec![vec![t2]],
                    },
                ];
                let at = b.rng.below(b.blocks[blk].ops.len() + 1);
                for (k, op) in ops.into_iter().enumerate() {
                    b.blocks[blk].ops.insert(at + k, op);
                }
                mutations.push("crossed-anchors");
            }
        }
    }
    let blocks = b.blocks;
    let name = format!("{prefix}fn");
    let text = render(prefix, &name, &blocks, convergent_fn);
    TokenFunction {
        name,
        text,
        mutations,
    }
}

fn pick_bundled(rng: &mut Rng, blocks: &[Blk]) -> (Option<usize>, Option<usize>) {
    let mut all = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        for (j, op) in b.ops.iter().enumerate() {
            all.push((i, j, op));
        }
    }
    if all.is_empty() {
        return (None, None);
    }
    let &(i, j, _) = rng.pick(&all);
    (Some(i), Some(j))
}

/// Sets the bundles of `op`, except that an intrinsic never uses its own value (LLVM rejects that
/// as an SSA error, "Only PHI nodes may reference their own value!", which is not a token rule).
fn set_bundle(op: &mut Op, nb: Vec<Vec<String>>) {
    match op {
        Op::Intr { bundles, name, .. } => {
            if !nb.iter().flatten().any(|t| t == name) {
                *bundles = nb;
            }
        }
        Op::Call { bundles, .. } => *bundles = nb,
    }
}

fn render_bundles(out: &mut String, bundles: &[Vec<String>]) {
    if bundles.is_empty() {
        return;
    }
    out.push_str(" [ ");
    for (i, b) in bundles.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str("\"convergencectrl\"(");
        for (k, t) in b.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            if t == NONE {
                out.push_str("token none");
            } else {
                let _ = write!(out, "token %{t}");
            }
        }
        out.push(')');
    }
    out.push_str(" ]");
}

fn render(prefix: &str, name: &str, blocks: &[Blk], convergent: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "define void @{name}(i1 %{prefix}c){} {{",
        if convergent { " convergent" } else { "" }
    );
    for (i, b) in blocks.iter().enumerate() {
        let _ = writeln!(s, "{prefix}b{i}:");
        for op in &b.ops {
            match op {
                Op::Intr {
                    name,
                    kind,
                    bundles,
                } => {
                    let _ = write!(
                        s,
                        "  %{name} = call token @llvm.experimental.convergence.{kind}()"
                    );
                    render_bundles(&mut s, bundles);
                }
                Op::Call { callee, bundles } => {
                    // The argument carries the function's prefix into every printed call.
                    let _ = write!(s, "  call void @{callee}(i1 %{prefix}c)");
                    render_bundles(&mut s, bundles);
                }
            }
            s.push('\n');
        }
        match b.succs.as_slice() {
            [] => s.push_str("  ret void\n"),
            [t] => {
                let _ = writeln!(s, "  br label %{prefix}b{t}");
            }
            [t, e, ..] => {
                let _ = writeln!(
                    s,
                    "  br i1 %{prefix}c, label %{prefix}b{t}, label %{prefix}b{e}"
                );
            }
        }
    }
    s.push_str("}\n");
    s
}

/// A module of `count` random functions (prefixes `f0_`, `f1_`, …) from `seed`.
pub fn random_module(seed: u64, count: usize) -> (String, Vec<TokenFunction>) {
    let mut rng = Rng::new(seed);
    let fns: Vec<TokenFunction> = (0..count)
        .map(|i| random_function(&mut rng, &format!("f{i}_")))
        .collect();
    (module_text(fns.iter().map(|f| f.text.as_str())), fns)
}

/// A module of valid token-using functions of at least `bytes` bytes (for benchmarks): the
/// functions are generated once per 64 and repeated under fresh prefixes, so building a 60 MB module
/// stays cheap.
pub fn big_module(seed: u64, bytes: usize) -> String {
    let mut rng = Rng::new(seed);
    let templates: Vec<TokenFunction> = (0..64)
        .map(|i| valid_function(&mut rng, &format!("T{i}_")))
        .collect();
    let mut s = String::with_capacity(bytes + 4096);
    s.push_str(PRELUDE);
    let mut i = 0usize;
    while s.len() < bytes {
        let t = &templates[i % templates.len()];
        s.push('\n');
        s.push_str(
            &t.text
                .replace(&format!("T{}_", i % templates.len()), &format!("f{i}_")),
        );
        i += 1;
    }
    s
}

/// A module holding the given function texts after the [`PRELUDE`].
pub fn module_text<'a>(fns: impl IntoIterator<Item = &'a str>) -> String {
    let mut s = String::from(PRELUDE);
    for f in fns {
        s.push('\n');
        s.push_str(f);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_prefixed() {
        let (a, fa) = random_module(7, 20);
        let (b, _) = random_module(7, 20);
        assert_eq!(a, b);
        assert_eq!(fa.len(), 20);
        for (i, f) in fa.iter().enumerate() {
            assert!(f.text.starts_with(&format!("define void @f{i}_fn(")));
        }
        // Both untouched and mutated functions occur.
        assert!(fa.iter().any(|f| f.mutations.is_empty()));
        assert!(fa.iter().any(|f| !f.mutations.is_empty()));
    }
}
