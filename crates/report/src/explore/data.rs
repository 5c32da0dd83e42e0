//! What the page knows about one function, as JSON for its script: every value (uniform or
//! divergent, where it is written), for each divergent value its reason and premise (following
//! premises gives exactly `converge explain`'s chain) with the blocks and paths to highlight, the
//! facts that keep a uniform value uniform, and the token diagnostics of `converge verify` with
//! their witness paths. Also the source text of the function as HTML with every value marked.

use super::svg::esc;
use crate::explain::{Analysed, Explainer, Explanation, Node, Reason};
use crate::loc::LineIndex;
use crate::render::Ctx;
use converge_graph::Block;
use converge_verify::llvm::{Finding, diagnostic};
use serde_json::{Value as Json, json};
use std::fmt::Write as _;

/// Node index on the page: arguments first, then instructions.
pub fn vid(a: &Analysed<'_>, n: Node) -> usize {
    match n {
        Node::Arg(x) => x as usize,
        Node::Inst(i) => a.lf.func.params.len() + i as usize,
    }
}

fn blocks_json(bs: &[Block]) -> Json {
    Json::Array(bs.iter().map(|b| json!(b.0)).collect())
}

/// `[kind, text, premise, blocks, paths, cycle]` for one step of a chain.
fn step_json(ctx: &Ctx<'_, '_>, n: Node, r: &Reason) -> Json {
    let a = ctx.a;
    let own: Vec<Block> = a.block_of(n).into_iter().collect();
    let (premise, mut blocks, paths, cycle): (Option<Node>, Vec<Block>, Vec<&[Block]>, i64) =
        match r {
            Reason::Source { .. } => (None, own, vec![], -1),
            Reason::OtherHierarchy { headers, .. } => {
                let mut b = own;
                b.extend(headers.iter().copied());
                (None, b, vec![], -1)
            }
            Reason::PastTokenRegion {
                operand,
                value,
                token,
            } => {
                let mut b = own;
                b.extend(a.block_of(Node::Inst(*operand)));
                b.extend(a.block_of(Node::Inst(*value)));
                b.extend(a.block_of(Node::Inst(*token)));
                (None, b, vec![], -1)
            }
            Reason::Data { operand } | Reason::GroupedByToken { operand, .. } => {
                let mut b = own;
                b.extend(a.block_of(*operand));
                (Some(*operand), b, vec![], -1)
            }
            Reason::Sync {
                branch,
                join,
                paths,
                ..
            } => (
                Some(Node::Inst(a.terminator(*branch))),
                vec![*branch, *join],
                paths.iter().map(|p| p.as_slice()).collect(),
                -1,
            ),
            Reason::Temporal {
                operand,
                cycle,
                branch,
                exit,
                path,
            } => {
                let mut b = own;
                b.extend(a.block_of(Node::Inst(*operand)));
                b.push(*branch);
                b.push(*exit);
                (
                    Some(Node::Inst(a.terminator(*branch))),
                    b,
                    vec![path.as_slice()],
                    *cycle as i64,
                )
            }
            Reason::AssumedCycle {
                cycle,
                branch,
                entries,
                paths,
            } => {
                let mut b = own;
                b.push(*branch);
                b.extend_from_slice(entries);
                (
                    Some(Node::Inst(a.terminator(*branch))),
                    b,
                    paths.iter().map(|p| p.as_slice()).collect(),
                    *cycle as i64,
                )
            }
            Reason::DivergedEntry {
                operand,
                cycle,
                branch,
                join,
                paths,
                ..
            } => {
                let mut b = own;
                b.extend(a.block_of(Node::Inst(*operand)));
                b.push(*branch);
                b.push(*join);
                (
                    Some(Node::Inst(a.terminator(*branch))),
                    b,
                    paths.iter().map(|p| p.as_slice()).collect(),
                    *cycle as i64,
                )
            }
            Reason::LeavesAssumedCycle {
                operand,
                cycle,
                branch,
            }
            | Reason::BranchInAssumedCycle {
                operand,
                cycle,
                branch,
            } => {
                let mut b = own;
                b.extend(a.block_of(Node::Inst(*operand)));
                b.push(*branch);
                (
                    Some(Node::Inst(a.terminator(*branch))),
                    b,
                    vec![],
                    *cycle as i64,
                )
            }
            Reason::ExitPhi {
                cycle,
                exit,
                branch,
                path,
            } => (
                Some(Node::Inst(a.terminator(*branch))),
                vec![*branch, *exit],
                vec![path.as_slice()],
                *cycle as i64,
            ),
            Reason::PastHeartRegion {
                operand,
                value,
                cycle,
                branch,
                exit,
                path,
                ..
            } => {
                let mut b = own;
                b.extend(a.block_of(Node::Inst(*operand)));
                b.extend(a.block_of(Node::Inst(*value)));
                b.push(*branch);
                b.push(*exit);
                (
                    Some(Node::Inst(a.terminator(*branch))),
                    b,
                    vec![path.as_slice()],
                    *cycle as i64,
                )
            }
        };
    blocks.dedup();
    // Temporal divergence names the operand as the value it is about; its chain goes on through
    // the branch (the premise), as `converge explain` prints it.
    json!([
        r.kind(),
        ctx.reason_text(r),
        premise.map_or(-1, |p| vid(a, p) as i64),
        blocks_json(&blocks),
        paths.iter().map(|p| blocks_json(p)).collect::<Vec<_>>(),
        cycle
    ])
}

/// Values, explanations and the function summary.
pub fn values_json(ctx: &Ctx<'_, '_>, ex: &Explainer<'_, '_>, uniform_budget: usize) -> Json {
    let a = ctx.a;
    let f = a.lf.func;
    let nodes = (0..f.params.len() as u32)
        .map(Node::Arg)
        .chain((0..f.insts.len() as u32).map(Node::Inst));
    let mut vals = Vec::new();
    let mut why = serde_json::Map::new();
    let mut uni = serde_json::Map::new();
    let mut budget = uniform_budget;
    for n in nodes {
        let div = a.is_divergent(n);
        let b = a.block_of(n).map_or(-1, |b| b.0 as i64);
        vals.push(json!([ctx.node_name(n), ctx.node_loc(n), div as u8, b]));
        let key = vid(a, n).to_string();
        if div {
            match ex.explain(n) {
                Explanation::Divergent(chain) if !chain.is_empty() => {
                    why.insert(key, step_json(ctx, chain[0].node, &chain[0].reason));
                }
                _ => {
                    why.insert(
                        key,
                        json!([
                            "unexplained",
                            "no chain to a source was reconstructed",
                            -1,
                            [],
                            [],
                            -1
                        ]),
                    );
                }
            }
        } else if budget > 0 {
            budget -= 1;
            if let Explanation::Uniform(facts) = ex.explain(n) {
                let t: Vec<String> = facts.iter().map(|x| ctx.uniform_text(x)).collect();
                uni.insert(key, json!(t));
            }
        }
    }
    json!({"vals": vals, "why": why, "uni": uni, "uniTruncated": budget == 0})
}

/// The token diagnostics of one function: line, rendered message, instruction, witness path.
pub fn diags_json(a: &Analysed<'_>, findings: &[&Finding], file: &str) -> Json {
    let m = a.module();
    let f = a.lf.func;
    Json::Array(
        findings
            .iter()
            .map(|fd| {
                let d = diagnostic(m, fd);
                let (line, inst, witness) = match &fd.violation {
                    Some(v) => {
                        let (l, _) = converge_ir::diag::line_col(
                            &m.source,
                            f.inst_span(converge_ir::InstId(v.inst.0)).start,
                        );
                        (
                            l,
                            vid(a, Node::Inst(v.inst.0)) as i64,
                            blocks_json(&v.witness),
                        )
                    }
                    None => {
                        let (l, _) = converge_ir::diag::line_col(&m.source, f.span.start);
                        (l, -1, json!([]))
                    }
                };
                json!({
                    "line": line,
                    "rule": fd.rule.id(),
                    "text": d.render(file, &m.source),
                    "v": inst,
                    "w": witness,
                })
            })
            .collect(),
    )
}

/// The function's source lines as HTML: every argument and instruction wrapped in a clickable
/// span (`data-v`), divergent ones marked, block labels clickable (`data-b`), lines with a token
/// diagnostic marked (`data-d`).
pub fn source_html(
    a: &Analysed<'_>,
    lines: &LineIndex,
    diag_lines: &[(u32, usize)],
    conv: &[bool],
) -> String {
    let m = a.module();
    let f = a.lf.func;
    let src = &m.source;
    let start = f.span.start as usize;
    let end = (f.span.end as usize).clamp(start, src.len());
    // Segments: (start, end, class, attribute).
    let mut segs: Vec<(usize, usize, String)> = Vec::new();
    for (k, p) in f.params.iter().enumerate() {
        let n = Node::Arg(k as u32);
        if p.span.end > p.span.start {
            segs.push((
                p.span.start as usize,
                p.span.end as usize,
                format!(
                    "<span class=\"v {}\" data-v=\"{}\">",
                    if a.is_divergent(n) { "d" } else { "u" },
                    vid(a, n)
                ),
            ));
        }
    }
    for i in 0..f.insts.len() {
        let n = Node::Inst(i as u32);
        let span = f.inst_span(converge_ir::InstId(i as u32));
        if span.end <= span.start {
            continue;
        }
        let term = a.is_terminator(i as u32);
        let mut cls = String::from("v ");
        cls.push_str(if a.is_divergent(n) { "d" } else { "u" });
        if term {
            cls.push_str(" t");
        }
        if conv.get(vid(a, n)).copied().unwrap_or(false) {
            cls.push_str(" conv");
        }
        segs.push((
            span.start as usize,
            span.end as usize,
            format!("<span class=\"{cls}\" data-v=\"{}\">", vid(a, n)),
        ));
    }
    for b in 0..f.blocks.len() {
        let span = f.block_span(Block(b as u32));
        // Only the label itself (`name:`), wherever the block's span ends.
        let s0 = span.start as usize;
        let label_end = src
            .get(s0..)
            .and_then(|t| t.find([':', '\n']))
            .map(|k| s0 + k);
        if let Some(e) = label_end
            && span.end > span.start
            && e > s0
        {
            segs.push((s0, e, format!("<span class=\"lbl\" data-b=\"{b}\">")));
        }
    }
    segs.retain(|s| s.0 >= start && s.1 <= end);
    segs.sort_by_key(|s| (s.0, std::cmp::Reverse(s.1)));
    let first_line = lines.loc(src, start as u32).line;
    let mut out = String::with_capacity((end - start) * 2);
    let mut line_no = first_line;
    let mut pos = start;
    // Move to the start of the line holding the function's first byte.
    let line_start = src[..start].rfind('\n').map_or(0, |p| p + 1);
    if line_start < start {
        pos = line_start;
    }
    let mut si = 0;
    // Open spans end at their segment end or at the end of a line (they are reopened there).
    let mut open: Option<(usize, String)> = None;
    let open_line = |out: &mut String, l: u32| {
        let ds: Vec<String> = diag_lines
            .iter()
            .filter(|d| d.0 == l)
            .map(|d| d.1.to_string())
            .collect();
        if ds.is_empty() {
            let _ = write!(out, "<div class=\"ln\" id=\"L{l}\"><i>{l}</i>");
        } else {
            let _ = write!(
                out,
                "<div class=\"ln dl\" id=\"L{l}\"><i>{l}</i><b class=\"dg\" data-d=\"{}\" title=\"token diagnostic\">⚠</b>",
                ds.join(" ")
            );
        }
    };
    open_line(&mut out, line_no);
    let bytes = src.as_bytes();
    while pos < end {
        if let Some((e, _)) = &open
            && pos >= *e
        {
            out.push_str("</span>");
            open = None;
        }
        if open.is_none() && si < segs.len() && segs[si].0 <= pos {
            let (s0, e, tag) = segs[si].clone();
            si += 1;
            if s0 == pos || e > pos {
                out.push_str(&tag);
                open = Some((e, tag));
            }
            continue;
        }
        // Text up to the next event: newline, segment end, next segment start.
        let mut next = end;
        if let Some((e, _)) = &open {
            next = next.min(*e);
        }
        if si < segs.len() {
            next = next.min(segs[si].0.max(pos + 1));
        }
        let nl = src[pos..next].find('\n').map(|k| pos + k);
        let stop = nl.unwrap_or(next);
        out.push_str(&esc(&src[pos..stop]));
        pos = stop;
        if nl.is_some() && bytes.get(pos) == Some(&b'\n') {
            if open.is_some() {
                out.push_str("</span>");
            }
            out.push_str("</div>");
            line_no += 1;
            pos += 1;
            open_line(&mut out, line_no);
            if let Some((_, tag)) = &open {
                out.push_str(tag);
            }
        }
    }
    if open.is_some() {
        out.push_str("</span>");
    }
    out.push_str("</div>");
    out
}
