//! Text and JSON renderings of explanations and of the per-function divergence summary. Every
//! step carries `file:line:col` of the value it talks about.

use crate::explain::{Analysed, Explainer, Explanation, Node, Reason, Step, UniformFact};
use crate::loc::LineIndex;
use crate::reports::CycleJson;
use crate::reports::explain::{
    BranchJson, DivergentExitJson, ExplanationJson, FunctionExplainJson, JoinJson, ReasonJson,
    StepJson, TemporalExplainJson, UniformJson,
};
use crate::reports::style::{Painter, Style};
use converge_graph::{Block, Cycle};
use converge_ir::InstId;
use converge_uniformity::SsaFunction;
use serde_json::Value as Json;
use std::fmt::Write as _;

/// The summary lists at most this many joins per branch, trying at most this many candidates
/// (each a max-flow over the CFG), so big irreducible regions stay fast.
pub const MAX_JOINS: usize = 16;
/// Candidate joins tried per branch at most (see [`MAX_JOINS`]).
pub const MAX_JOIN_TRIES: usize = 256;
/// The summary lists the divergent exits of at most this many cycles around a branch, the
/// innermost first: in a big irreducible region a branch can sit inside hundreds of nested cycles,
/// and one path per cycle and branch made the summary quadratic in the function's size.
pub const MAX_EXITS: usize = 16;

/// What renderers need besides the analysis: the line index of the module's source.
pub struct Ctx<'a, 'm> {
    /// The analysed function.
    pub a: &'a Analysed<'m>,
    /// Line starts of the module's source, for `file:line:col`.
    pub lines: &'a LineIndex,
}

impl Ctx<'_, '_> {
    fn file(&self) -> &str {
        &self.a.module().source_name
    }
    /// `file:line:col` of a value (an argument: its parameter in the `define` line).
    pub fn node_loc(&self, n: Node) -> String {
        let l = self
            .lines
            .value_loc(self.a.module(), self.a.fid(), n.value());
        format!("{}:{l}", self.file())
    }
    /// `file:line:col` of a block.
    pub fn block_loc(&self, b: Block) -> String {
        let l = self.lines.block_loc(self.a.module(), self.a.fid(), b);
        format!("{}:{l}", self.file())
    }
    /// How a node is called in prose: `%x`, or `the terminator of %bb` / `argument %a`.
    pub fn node_name(&self, n: Node) -> String {
        match n {
            Node::Arg(_) => format!("argument {}", self.a.name(n)),
            Node::Inst(i) if self.a.is_terminator(i) => {
                let b = self.a.lf.func.insts[i as usize].block;
                format!("the terminator of {}", self.a.block_name(b))
            }
            Node::Inst(i) => {
                if self.a.lf.func.insts[i as usize].name() == converge_ir::LocalName::None {
                    format!("`{}`", self.node_text(n))
                } else {
                    self.a.name(n)
                }
            }
        }
    }
    /// The value's text as LLVM prints it (`%x = add i32 %a, 1`, `i32 %a`).
    pub fn node_text(&self, n: Node) -> String {
        let (m, fid) = (self.a.module(), self.a.fid());
        match n {
            Node::Arg(a) => {
                let p = &m.func(fid).params[a as usize];
                format!("{} {}", m.type_text(p.ty), m.value_name(fid, n.value()))
            }
            Node::Inst(i) => m.inst_text(fid, InstId(i)).trim().to_string(),
        }
    }
    fn path_text(&self, p: &[Block]) -> String {
        let v: Vec<String> = p.iter().map(|&b| self.a.block_name(b)).collect();
        v.join(" -> ")
    }
    /// A cycle in prose: `cycle %h (depth N)`, with `irreducible, entries …` when it is.
    pub fn cycle_text(&self, c: u32) -> String {
        let s = &self.a.s;
        let entries: Vec<String> = s.entries(c).iter().map(|&b| self.a.block_name(b)).collect();
        let mut t = format!(
            "cycle {} (depth {}",
            self.a.block_name(s.header(c)),
            s.depth(c)
        );
        if !s.is_reducible(c) {
            let _ = write!(t, ", irreducible, entries {}", entries.join(" "));
        }
        t.push(')');
        t
    }
    /// Cycle `c` in the common JSON shape of a cycle ([`CycleJson`]).
    fn cycle_json(&self, c: u32) -> CycleJson {
        CycleJson::new(self.a.module(), self.a.lf.func, &self.a.s.cycles, Cycle(c))
    }
    fn path_json(&self, p: &[Block]) -> Vec<String> {
        p.iter().map(|&b| self.a.block_name(b)).collect()
    }

    /// How token `t` groups threads at an always-uniform operation it controls (rule P6): an
    /// anchor's grouping, inherited by a chain of loop hearts under it, is implementation-defined;
    /// otherwise the token is one of a cycle that does not contain the operation.
    fn token_grouping(&self, t: u32) -> String {
        use converge_uniformity::{Inst, TokenKind};
        let lf = &self.a.lf;
        let mut k = Inst(t);
        let mut steps = 0;
        while lf.token_kind(k) == Some(TokenKind::Loop)
            && let Some(p) = lf.control_token(k)
            && steps < 256
        {
            k = p;
            steps += 1;
        }
        match lf.token_kind(k) {
            Some(TokenKind::Anchor) if k.0 == t => {
                "an anchor, whose group of threads is implementation-defined".to_string()
            }
            Some(TokenKind::Anchor) => format!(
                "a loop heart under the anchor {} (a heart inherits its parent token's grouping), whose group of threads is implementation-defined",
                self.node_name(Node::Inst(k.0))
            ),
            Some(TokenKind::Entry) => "a token defined in a cycle that does not contain the operation, whose groups are the threads that left in the same iteration".to_string(),
            _ => "a token whose grouping cannot be seen through, so it is taken as implementation-defined".to_string(),
        }
    }

    /// One sentence for a reason.
    pub fn reason_text(&self, r: &Reason) -> String {
        let a = self.a;
        match r {
            Reason::Source { rule, detail } => {
                format!("divergence source ({}): {detail}", rule.id())
            }
            Reason::Data { operand } => {
                format!("data dependence on divergent {}", self.node_name(*operand))
            }
            Reason::Sync {
                branch,
                join,
                paths,
                disjoint,
            } => format!(
                "sync dependence: phi at {}, a join of the divergent branch in {} ({}); {}: {} | {}",
                a.block_name(*join),
                a.block_name(*branch),
                self.block_loc(*branch),
                if *disjoint {
                    "disjoint paths"
                } else {
                    "found by the analysis's label propagation, which over-approximates inside irreducible regions (LLVM agrees); no two disjoint paths exist, paths from two successors"
                },
                self.path_text(&paths[0]),
                self.path_text(&paths[1])
            ),
            Reason::Temporal {
                operand,
                cycle,
                branch,
                exit,
                path,
            } => format!(
                "temporal divergence: uses {} defined in {}, outside the cycle; its exit {} is divergent because of the divergent branch in {} ({}; path {}): threads leave in different iterations and see different values",
                self.node_name(Node::Inst(*operand)),
                self.cycle_text(*cycle),
                a.block_name(*exit),
                a.block_name(*branch),
                self.block_loc(*branch),
                self.path_text(path)
            ),
            Reason::AssumedCycle {
                cycle,
                branch,
                entries,
                paths,
            } => {
                let mut t = format!(
                    "defined in {}, assumed divergent: diverged paths from the branch in {} ({})",
                    self.cycle_text(*cycle),
                    a.block_name(*branch),
                    self.block_loc(*branch)
                );
                if !entries.is_empty() {
                    let e: Vec<String> = entries.iter().map(|&b| a.block_name(b)).collect();
                    let _ = write!(t, " enter it at different entries {}", e.join(" and "));
                } else if paths.len() == 2 {
                    let _ = write!(
                        t,
                        " meet inside it at {}, which the branch does not dominate",
                        a.block_name(*paths[0].last().unwrap())
                    );
                } else {
                    t.push_str(" reach it");
                }
                if paths.len() == 2 {
                    let _ = write!(
                        t,
                        "; paths: {} | {}",
                        self.path_text(&paths[0]),
                        self.path_text(&paths[1])
                    );
                }
                t
            }
            Reason::LeavesAssumedCycle {
                operand,
                cycle,
                branch,
            } => format!(
                "temporal divergence (precise mode, rule P2): uses {} defined in {}, outside the cycle; the cycle is assumed divergent because of the divergent branch in {} ({}), so threads run its blocks in dynamic instances that are not converged and leave it at different times",
                self.node_name(Node::Inst(*operand)),
                self.cycle_text(*cycle),
                a.block_name(*branch),
                self.block_loc(*branch)
            ),
            Reason::GroupedByToken { operand, token } => format!(
                "uses divergent {}; the target calls this operation always uniform, but it is controlled by {}, {} (precise mode, rule P6): threads converged at later uses may have computed it in different groups",
                self.node_name(*operand),
                self.node_name(Node::Inst(*token)),
                self.token_grouping(*token)
            ),
            Reason::DivergedEntry {
                operand,
                cycle,
                region,
                branch,
                join,
                paths,
            } => format!(
                "temporal divergence (precise mode, rule P1): uses {} defined in {}, outside the cycle; diverged paths from the branch in {} ({}) meet at {} inside it, in the irreducible {} that they enter divergently, so under this hierarchy (the one the cycles above belong to) threads reach {} in different iterations of the cycle and leave it at different times; paths: {} | {}",
                self.node_name(Node::Inst(*operand)),
                self.cycle_text(*cycle),
                a.block_name(*branch),
                self.block_loc(*branch),
                a.block_name(*join),
                self.cycle_text(*region),
                a.block_name(*join),
                self.path_text(&paths[0]),
                self.path_text(&paths[1])
            ),
            Reason::OtherHierarchy { headers, blocks } => format!(
                "divergent under another cycle hierarchy of this CFG (precise mode, rule P1), the one whose irreducible cycles are {}: each hierarchy gives its own maximal convergence, and precise mode analyses every one (a value is uniform only if it is uniform under all of them); under the hierarchy the cycles above belong to, this value is uniform",
                headers
                    .iter()
                    .zip(blocks)
                    .map(|(&h, bs)| format!(
                        "{{{}: {}}}",
                        a.block_name(h),
                        bs.iter()
                            .map(|&b| a.block_name(b))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Reason::PastTokenRegion {
                operand,
                value,
                token,
            } => format!(
                "past the convergence region of {} (precise mode, rule P6): uses {}, computed from {}, an always-uniform operation controlled by {}, {}; inside the token's region the threads at {} are those of one dynamic instance of the token, so it is uniform there, but this value lies outside the region (the token does not dominate it, or no use of the token can be reached from it without executing the token again; for a loop heart, it is also outside the heart's cycle or its parent token's region, which would keep the threads in one iteration of one parent instance), and here threads of different instances are converged again",
                self.node_name(Node::Inst(*token)),
                self.node_name(Node::Inst(*operand)),
                self.node_name(Node::Inst(*value)),
                self.node_name(Node::Inst(*token)),
                self.token_grouping(*token),
                self.node_name(Node::Inst(*value)),
            ),
            Reason::ExitPhi {
                cycle,
                exit,
                branch,
                path,
            } => format!(
                "phi in {}, an exit of {}, whose incoming values from inside the cycle differ; the cycle has a divergent exit because of the divergent branch in {} ({}; path {}), so threads leave it from different blocks or in different iterations and select different values (precise mode, rule P4)",
                a.block_name(*exit),
                self.cycle_text(*cycle),
                a.block_name(*branch),
                self.block_loc(*branch),
                self.path_text(path)
            ),
            Reason::BranchInAssumedCycle {
                operand,
                cycle,
                branch,
            } => format!(
                "branch on {} computed in {}, which is assumed divergent because of the divergent branch in {} ({}) (precise mode, rule P2): threads run the cycle's blocks in dynamic instances that are not converged, so the value may differ between threads that meet again",
                self.node_name(Node::Inst(*operand)),
                self.cycle_text(*cycle),
                a.block_name(*branch),
                self.block_loc(*branch)
            ),
            Reason::PastHeartRegion {
                operand,
                value,
                heart,
                cycle,
                branch,
                exit,
                path,
            } => format!(
                "past the convergence region of the loop heart {} (precise mode, rule P7): uses {}, computed from {} defined in {}; inside the heart's region only threads that left the cycle in the same iteration are converged, so {} is uniform there, but this value lies outside the region (the heart does not dominate it, or no use of the heart can be reached from it without executing the heart again), and here threads that left in different iterations are converged again (its exit {} is divergent because of the divergent branch in {} ({}; path {}))",
                self.node_name(Node::Inst(*heart)),
                self.node_name(Node::Inst(*operand)),
                self.node_name(Node::Inst(*value)),
                self.cycle_text(*cycle),
                self.node_name(Node::Inst(*operand)),
                a.block_name(*exit),
                a.block_name(*branch),
                self.block_loc(*branch),
                self.path_text(path)
            ),
        }
    }

    fn reason_json(&self, r: &Reason) -> ReasonJson {
        let a = self.a;
        let name = |n: u32| Some(a.name(Node::Inst(n)));
        let loc = |n: u32| Some(self.node_loc(Node::Inst(n)));
        let block = |b: Block| Some(a.block_name(b));
        let blockloc = |b: Block| Some(self.block_loc(b));
        let cycle = |c: u32| Some(self.cycle_json(c));
        let rule = |r: &str| Some(r.to_string());
        let base = ReasonJson {
            kind: r.kind().to_string(),
            message: self.reason_text(r),
            ..ReasonJson::default()
        };
        match r {
            Reason::Source { rule: sr, detail } => ReasonJson {
                rule: Some(sr.id().to_string()),
                detail: Some(detail.clone()),
                ..base
            },
            Reason::Data { operand } => ReasonJson {
                operand: Some(a.name(*operand)),
                operand_location: Some(self.node_loc(*operand)),
                ..base
            },
            Reason::Sync {
                branch,
                join,
                paths,
                disjoint,
            } => ReasonJson {
                disjoint: Some(*disjoint),
                branch: block(*branch),
                branch_location: blockloc(*branch),
                join: block(*join),
                join_location: blockloc(*join),
                paths: Some(vec![self.path_json(&paths[0]), self.path_json(&paths[1])]),
                ..base
            },
            Reason::Temporal {
                operand,
                cycle: c,
                branch,
                exit,
                path,
            } => ReasonJson {
                operand: name(*operand),
                operand_location: loc(*operand),
                cycle: cycle(*c),
                branch: block(*branch),
                branch_location: blockloc(*branch),
                exit: block(*exit),
                path: Some(self.path_json(path)),
                ..base
            },
            Reason::AssumedCycle {
                cycle: c,
                branch,
                entries,
                paths,
            } => ReasonJson {
                cycle: cycle(*c),
                branch: block(*branch),
                branch_location: blockloc(*branch),
                entries: Some(entries.iter().map(|&b| a.block_name(b)).collect()),
                paths: Some(paths.iter().map(|p| self.path_json(p)).collect()),
                ..base
            },
            Reason::LeavesAssumedCycle {
                operand,
                cycle: c,
                branch,
            }
            | Reason::BranchInAssumedCycle {
                operand,
                cycle: c,
                branch,
            } => ReasonJson {
                rule: rule("P2"),
                operand: name(*operand),
                operand_location: loc(*operand),
                cycle: cycle(*c),
                branch: block(*branch),
                branch_location: blockloc(*branch),
                ..base
            },
            Reason::GroupedByToken { operand, token } => ReasonJson {
                rule: rule("P6"),
                operand: Some(a.name(*operand)),
                operand_location: Some(self.node_loc(*operand)),
                token: name(*token),
                token_location: loc(*token),
                ..base
            },
            Reason::DivergedEntry {
                operand,
                cycle: c,
                region,
                branch,
                join,
                paths,
            } => ReasonJson {
                rule: rule("P1"),
                operand: name(*operand),
                operand_location: loc(*operand),
                cycle: cycle(*c),
                region: cycle(*region),
                branch: block(*branch),
                branch_location: blockloc(*branch),
                join: block(*join),
                join_location: blockloc(*join),
                paths: Some(vec![self.path_json(&paths[0]), self.path_json(&paths[1])]),
                ..base
            },
            Reason::OtherHierarchy { headers, .. } => ReasonJson {
                rule: rule("P1"),
                entries: Some(headers.iter().map(|&h| a.block_name(h)).collect()),
                ..base
            },
            Reason::PastTokenRegion {
                operand,
                value,
                token,
            } => ReasonJson {
                rule: rule("P6"),
                operand: name(*operand),
                operand_location: loc(*operand),
                value: name(*value),
                value_location: loc(*value),
                token: name(*token),
                token_location: loc(*token),
                ..base
            },
            Reason::ExitPhi {
                cycle: c,
                exit,
                branch,
                path,
            } => ReasonJson {
                rule: rule("P4"),
                cycle: cycle(*c),
                exit: block(*exit),
                branch: block(*branch),
                branch_location: blockloc(*branch),
                path: Some(self.path_json(path)),
                ..base
            },
            Reason::PastHeartRegion {
                operand,
                value,
                heart,
                cycle: c,
                branch,
                exit,
                path,
            } => ReasonJson {
                rule: rule("P7"),
                operand: name(*operand),
                operand_location: loc(*operand),
                value: name(*value),
                heart: name(*heart),
                heart_location: loc(*heart),
                cycle: cycle(*c),
                branch: block(*branch),
                branch_location: blockloc(*branch),
                exit: block(*exit),
                path: Some(self.path_json(path)),
                ..base
            },
        }
    }

    /// Why a value is uniform, in one sentence.
    pub fn uniform_text(&self, fact: &UniformFact) -> String {
        let a = self.a;
        match fact {
            UniformFact::NotAnalysed => {
                "the target has no branch divergence for this function: every value is uniform"
                    .to_string()
            }
            UniformFact::UniformArgument => {
                "the calling convention passes this argument uniformly (not a divergence source)"
                    .to_string()
            }
            UniformFact::AlwaysUniform => {
                "the target declares this instruction always uniform (override)".to_string()
            }
            UniformFact::NoDivergentOperand { operands } => {
                if operands.is_empty() {
                    "not a divergence source, and no operand is a value of this function"
                        .to_string()
                } else {
                    let v: Vec<String> = operands.iter().map(|&o| a.name(o)).collect();
                    format!(
                        "not a divergence source, and no operand is divergent ({} uniform)",
                        v.join(", ")
                    )
                }
            }
            UniformFact::ConstantPhi { join, branch } => format!(
                "{} is a join of the divergent branch in {}, but every incoming value is the same (ignoring undef and the phi itself), so the phi stays uniform",
                a.block_name(*join),
                a.block_name(*branch)
            ),
            UniformFact::HeaderNotJoin { cycle, branch } => format!(
                "the divergent branch in {} is inside {}, but does not reach this header along two disjoint paths within one iteration (going around again is temporal divergence, not a join)",
                a.block_name(*branch),
                self.cycle_text(*cycle)
            ),
            UniformFact::NotAJoin => "its block is not a join of any divergent branch".to_string(),
            UniformFact::ExitPhiNoCycleValue {
                exit,
                cycle,
                branch,
            } => format!(
                "{} is an exit of {}, which has a divergent exit (the branch in {}); the incoming values differ, but none is defined inside the cycle, and LLVM marks an exit phi only when one is (an LLVM bug: docs/llvm-differences.md entry 2; `--mode precise` calls this phi divergent)",
                a.block_name(*exit),
                self.cycle_text(*cycle),
                a.block_name(*branch)
            ),
            UniformFact::SameOnDivergedPaths { join, branch } => format!(
                "{} is a join of the divergent branch in {}, but the incoming values on the edges that can lie on the diverged paths (from the branch block and the blocks reachable from it) are one value, so the paths do not make the phi differ (precise mode, rule P5)",
                a.block_name(*join),
                a.block_name(*branch)
            ),
            UniformFact::ExitPhiSameFromCycle {
                exit,
                cycle,
                branch,
            } => format!(
                "{} is an exit of {}, which has a divergent exit (the branch in {}), but the incoming values from inside the cycle are one value (undef skipped), so leaving in different iterations does not make the phi differ (precise mode, rule P4)",
                a.block_name(*exit),
                self.cycle_text(*cycle),
                a.block_name(*branch)
            ),
            UniformFact::JoinNotReported { join, branch } => format!(
                "{} is reached on disjoint paths from the divergent branch in {} and the incoming values differ, but the analysis in this mode does not report it as a join of that branch",
                a.block_name(*join),
                a.block_name(*branch)
            ),
            UniformFact::UniformlyTakenExits { cycle, value } => format!(
                "{} is defined in {}, which has a divergent exit, but every path from it to here leaves the cycle through exits all threads take in the same iteration (uniform branches no divergent path inside the cycle reaches), so this use is not temporally divergent (precise mode, rule P10)",
                self.node_name(*value),
                self.cycle_text(*cycle)
            ),
            UniformFact::InHeartRegion {
                cycle,
                value,
                heart,
            } => format!(
                "{} is defined in {}, which has a divergent exit, but this use lies in the convergence region of the loop heart {} in the cycle's header, and every path from the heart to here passes {}: threads converged here left the cycle in the same iteration and read that iteration's value, so this use is not temporally divergent (precise mode, rule P7)",
                self.node_name(*value),
                self.cycle_text(*cycle),
                self.node_name(Node::Inst(*heart)),
                self.node_name(*value)
            ),
            UniformFact::SharesTokenInstance {
                value,
                token,
                in_region,
            } => format!(
                "computed from {}, an always-uniform operation controlled by {}, {}; the threads converged here executed one dynamic instance of {} ({}), so they read the same {} (precise mode, rule P6)",
                self.node_name(Node::Inst(*value)),
                self.node_name(Node::Inst(*token)),
                self.token_grouping(*token),
                self.node_name(Node::Inst(*token)),
                if *in_region {
                    "this point is in its convergence region"
                } else {
                    "this point is past the heart's region but in its cycle and in its parent token's region: one iteration of one parent instance"
                },
                self.node_name(Node::Inst(*value))
            ),
            UniformFact::CycleInvariant { cycle, value } => format!(
                "{} is defined in {}, which has a divergent exit, but it is computed from values defined outside the cycle alone, so it is the same in every iteration and leaving in different iterations does not change it (precise mode, rule P9)",
                self.node_name(*value),
                self.cycle_text(*cycle)
            ),
            UniformFact::TemporalOutside { cycle, users } => {
                let v: Vec<String> = users
                    .iter()
                    .map(|&u| {
                        format!(
                            "{} ({})",
                            self.node_name(Node::Inst(u)),
                            self.node_loc(Node::Inst(u))
                        )
                    })
                    .collect();
                format!(
                    "uniform within each iteration of {}, which has a divergent exit: its uses outside the cycle are temporally divergent: {}",
                    self.cycle_text(*cycle),
                    v.join(", ")
                )
            }
        }
    }

    fn uniform_kind(fact: &UniformFact) -> &'static str {
        match fact {
            UniformFact::NotAnalysed => "no-divergence-on-target",
            UniformFact::UniformArgument => "uniform-argument",
            UniformFact::AlwaysUniform => "always-uniform",
            UniformFact::NoDivergentOperand { .. } => "no-divergent-operand",
            UniformFact::ConstantPhi { .. } => "constant-phi",
            UniformFact::HeaderNotJoin { .. } => "header-not-join",
            UniformFact::ExitPhiNoCycleValue { .. } => "exit-phi-no-cycle-value",
            UniformFact::SameOnDivergedPaths { .. } => "same-on-diverged-paths",
            UniformFact::ExitPhiSameFromCycle { .. } => "exit-phi-same-from-cycle",
            UniformFact::JoinNotReported { .. } => "join-not-reported",
            UniformFact::NotAJoin => "not-a-join",
            UniformFact::TemporalOutside { .. } => "temporal-divergence-outside",
            UniformFact::UniformlyTakenExits { .. } => "uniformly-taken-exits",
            UniformFact::InHeartRegion { .. } => "in-heart-region",
            UniformFact::CycleInvariant { .. } => "cycle-invariant",
            UniformFact::SharesTokenInstance { .. } => "shares-token-instance",
        }
    }

    fn step_json(&self, s: &Step) -> StepJson {
        StepJson {
            value: self.a.name(s.node),
            text: self.node_text(s.node),
            location: self.node_loc(s.node),
            reason: self.reason_json(&s.reason),
        }
    }

    /// `converge explain --value`: text.
    pub fn explanation_text(&self, n: Node, e: &Explanation) -> String {
        self.explanation_text_painted(n, e, Painter::PLAIN)
    }

    /// [`Ctx::explanation_text`] with the verdict coloured by `p` (the CLI's `--color`).
    pub fn explanation_text_painted(&self, n: Node, e: &Explanation, p: Painter) -> String {
        let mut out = format!(
            "{} in @{} ({}): `{}`\n",
            p.paint(Style::Bold, &self.node_name(n)),
            self.a.lf.name(),
            self.node_loc(n),
            self.node_text(n)
        );
        match e {
            Explanation::Divergent(chain) => {
                let _ = writeln!(
                    out,
                    "{}; chain of {} step{} back to a divergence source:",
                    p.paint(Style::Error, "is divergent"),
                    chain.len(),
                    if chain.len() == 1 { "" } else { "s" }
                );
                for (k, s) in chain.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "  {}. {}  {}\n       {}",
                        k + 1,
                        self.node_loc(s.node),
                        self.node_text(s.node),
                        self.reason_text(&s.reason)
                    );
                }
            }
            Explanation::Uniform(facts) => {
                out.push_str(&p.paint(Style::Bold, "is uniform"));
                out.push_str(":\n");
                for f in facts {
                    let _ = writeln!(out, "  - {}", self.uniform_text(f));
                }
            }
            Explanation::Unexplained => {
                out.push_str("is divergent, but no chain to a source was reconstructed (please report this)\n");
            }
        }
        out
    }

    /// `converge explain --value --format json`: the explanation of one value (the document
    /// is [`crate::reports::explain::ExplainValueReport`]).
    pub fn explanation(&self, n: Node, e: &Explanation) -> ExplanationJson {
        let (divergent, chain, uniform_because) = match e {
            Explanation::Divergent(chain) => (
                true,
                Some(Some(chain.iter().map(|s| self.step_json(s)).collect())),
                None,
            ),
            Explanation::Uniform(facts) => (
                false,
                None,
                Some(
                    facts
                        .iter()
                        .map(|f| UniformJson {
                            kind: Self::uniform_kind(f).to_string(),
                            message: self.uniform_text(f),
                        })
                        .collect(),
                ),
            ),
            Explanation::Unexplained => (true, Some(None), None),
        };
        ExplanationJson {
            function: self.a.lf.name().to_string(),
            value: self.a.name(n),
            text: self.node_text(n),
            location: self.node_loc(n),
            divergent,
            chain,
            uniform_because,
        }
    }

    /// [`Ctx::explanation`] as a JSON value.
    pub fn explanation_json(&self, n: Node, e: &Explanation) -> Json {
        serde_json::to_value(self.explanation(n, e)).unwrap_or(Json::Null)
    }

    /// The compact form of a chain: `%c <- %tid (thread-id-intrinsic)`.
    fn chain_short(&self, e: &Explanation) -> String {
        match e {
            Explanation::Divergent(chain) => {
                let v: Vec<String> = chain
                    .iter()
                    .map(|s| match &s.reason {
                        Reason::Source { rule, .. } => {
                            format!("{} [source: {}]", self.node_name(s.node), rule.id())
                        }
                        r => format!("{} [{}]", self.node_name(s.node), r.kind()),
                    })
                    .collect();
                v.join(" <- ")
            }
            _ => "(no chain)".to_string(),
        }
    }

    /// Divergent exits a branch causes: for each cycle around it with a divergent exit, the
    /// shortest path from the branch out of the cycle; innermost first, at most [`MAX_EXITS`]
    /// (the flag says whether more cycles with a divergent exit surround the branch).
    ///
    /// One breadth-first search from the branch serves every cycle: its order does not depend
    /// on the target, and the cycles are nested, so the first block found outside a cycle is
    /// found at or after the first block found outside the cycle it contains. The search stops
    /// at the last exit shown (one search per cycle made a deep nest's summary quadratic).
    pub(crate) fn branch_exits(&self, b: Block) -> (Vec<(u32, Vec<Block>)>, bool) {
        let (s, g) = (&self.a.s, self.a.lf.cfg());
        let allowed = |y: Block| y != b;
        self.a.with_bfs(|bfs| {
            let mut out = Vec::new();
            let mut started = false;
            let mut at: Option<Block> = None;
            let mut c = s.cycle_of(b);
            while let Some(x) = c {
                if self.a.has_divergent_exit(x) {
                    if out.len() == MAX_EXITS {
                        return (out, true);
                    }
                    if !started {
                        bfs.start(g, converge_graph::Graph::succs(g, b), &allowed);
                        at = bfs.next(g, &allowed);
                        started = true;
                    }
                    while let Some(y) = at {
                        if !s.contains(x, y) {
                            break;
                        }
                        at = bfs.next(g, &allowed);
                    }
                    if let Some(y) = at {
                        let mut p = bfs.path_to(y);
                        p.insert(0, b);
                        out.push((x, p));
                    }
                }
                c = s.parent(x);
            }
            (out, false)
        })
    }

    /// `converge explain` without `--value`: each divergent branch with its joins and divergent
    /// exits, then the cycles assumed divergent and the temporal-divergence list.
    pub fn summary(&self, ex: &Explainer<'_, '_>, json_out: bool) -> (String, FunctionExplainJson) {
        self.summary_painted(ex, json_out, Painter::PLAIN)
    }

    /// [`Ctx::summary`] with headlines, divergent branches, divergent exits, assumed-divergent
    /// cycles and temporal divergence coloured by `p` in the text (the JSON is the same).
    pub fn summary_painted(
        &self,
        ex: &Explainer<'_, '_>,
        json_out: bool,
        p: Painter,
    ) -> (String, FunctionExplainJson) {
        let a = self.a;
        let u = &a.u;
        let nvals = u.divergent_args.iter().filter(|&&d| d).count()
            + u.divergent_insts.iter().filter(|&&d| d).count();
        let branches: Vec<Block> = (0..a.num_blocks() as u32)
            .map(Block)
            .filter(|&b| a.is_divergent_branch(b))
            .collect();
        let mut out = format!(
            "{} ({}): ",
            p.paint(Style::Bold, &format!("function @{}", a.lf.name())),
            self.lines_fn_loc()
        );
        if !u.analysed {
            out.push_str("no branch divergence on this target; every value is uniform\n");
            let j = FunctionExplainJson {
                function: a.lf.name().to_string(),
                analysed: false,
                divergent_values: None,
                divergent_branches: None,
                cycles_assumed_divergent: None,
                temporal_divergence: None,
            };
            return (out, j);
        }
        let _ = writeln!(
            out,
            "{nvals} divergent value{}, {} divergent branch{}",
            if nvals == 1 { "" } else { "s" },
            branches.len(),
            if branches.len() == 1 { "" } else { "es" }
        );
        let mut jb = Vec::new();
        for &b in &branches {
            let term = Node::Inst(a.terminator(b));
            let e = ex.explain(term);
            let (joins, truncated) = a.joins_of_limited(b, MAX_JOINS, MAX_JOIN_TRIES);
            let (exits, exits_truncated) = self.branch_exits(b);
            if !json_out {
                let _ = writeln!(
                    out,
                    "  {} in {} ({}): {}",
                    p.paint(Style::Error, "divergent branch"),
                    a.block_name(b),
                    self.block_loc(b),
                    self.node_text(term)
                );
                let _ = writeln!(out, "    because: {}", self.chain_short(&e));
                if joins.is_empty() && !truncated {
                    out.push_str("    joins: none\n");
                }
                for (j, p) in &joins {
                    let _ = writeln!(
                        out,
                        "    join {} ({}): {} | {}",
                        a.block_name(*j),
                        self.block_loc(*j),
                        self.path_text(&p[0]),
                        self.path_text(&p[1])
                    );
                }
                if truncated {
                    let _ = writeln!(
                        out,
                        "    (more joins may exist: the list stops after {MAX_JOINS} joins or {MAX_JOIN_TRIES} candidates; use --value on a phi for its own reason)"
                    );
                }
                for (c, path) in &exits {
                    let _ = writeln!(
                        out,
                        "    {} of {} at {}: {}",
                        p.paint(Style::Warn, "divergent exit"),
                        self.cycle_text(*c),
                        a.block_name(*path.last().unwrap()),
                        self.path_text(path)
                    );
                }
                if exits_truncated {
                    let _ = writeln!(
                        out,
                        "    (more divergent exits: the list stops after the {MAX_EXITS} innermost cycles; `converge cycles` lists them all)"
                    );
                }
            } else {
                jb.push(BranchJson {
                    block: a.block_name(b),
                    location: self.block_loc(b),
                    text: self.node_text(term),
                    explanation: self.explanation(term, &e),
                    joins_truncated: truncated,
                    joins: joins
                        .iter()
                        .map(|(j, p)| JoinJson {
                            block: a.block_name(*j),
                            location: self.block_loc(*j),
                            paths: vec![self.path_json(&p[0]), self.path_json(&p[1])],
                        })
                        .collect(),
                    divergent_exits_truncated: exits_truncated,
                    divergent_exits: exits
                        .iter()
                        .map(|(c, p)| DivergentExitJson {
                            cycle: self.cycle_json(*c),
                            exit: a.block_name(*p.last().unwrap()),
                            path: self.path_json(p),
                        })
                        .collect(),
                });
            }
        }
        let mut ja = Vec::new();
        for c in u.assumed_divergent.iter().map(|c| c.0) {
            let _ = writeln!(
                out,
                "  {} is {} (entered on diverged paths)",
                self.cycle_text(c),
                p.paint(Style::Warn, "assumed divergent")
            );
            ja.push(self.cycle_json(c));
        }
        let mut jt = Vec::new();
        for t in &u.temporal_divergence {
            let (v, us) = (Node::Inst(t.value.0), Node::Inst(t.user.0));
            let _ = writeln!(
                out,
                "  {}: {} ({}) used by {} ({}) outside {}",
                p.paint(Style::Warn, "temporal divergence"),
                self.node_name(v),
                self.node_loc(v),
                self.node_name(us),
                self.node_loc(us),
                self.cycle_text(t.cycle.0)
            );
            jt.push(TemporalExplainJson {
                value: a.name(v),
                location: self.node_loc(v),
                user: self.node_text(us),
                user_location: self.node_loc(us),
                cycle: self.cycle_json(t.cycle.0),
            });
        }
        let j = FunctionExplainJson {
            function: a.lf.name().to_string(),
            analysed: true,
            divergent_values: Some(nvals),
            divergent_branches: Some(jb),
            cycles_assumed_divergent: Some(ja),
            temporal_divergence: Some(jt),
        };
        (out, j)
    }

    fn lines_fn_loc(&self) -> String {
        let m = self.a.module();
        let l = self.lines.loc(&m.source, self.a.lf.func.span.start);
        format!("{}:{l}", self.file())
    }
}
