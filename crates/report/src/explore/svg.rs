//! The CFG of one function as inline SVG, laid out by [`super::layout`]: cycles as nested boxes
//! (irreducible ones dashed, labelled with header and entries), headers and entries marked,
//! divergent branches, joins, divergent exits and temporal-divergence uses coloured. Every block
//! and edge carries an id or a `data-` attribute so the page's script can highlight explanation
//! chains and witness paths; colours live in the page's stylesheet, keyed by class.

use super::layout::{Input, Layout, Rect, layout};
use crate::explain::Analysed;
use converge_graph::{Block, Cycle, Graph};
use converge_ir::{InstId, Opcode};
use converge_uniformity::SsaFunction;
use std::fmt::Write as _;

/// Monospace metrics of the picture's text (11px font).
const CHAR_W: f32 = 6.7;
const LINE_H: f32 = 14.0;
const MAX_CHARS: usize = 44;
/// Room on the left for temporal-divergence curves and on the right for back-edge curves.
const SIDE: f32 = 84.0;
const BULGE: f32 = 90.0;

/// What the picture marks besides the structure.
pub struct Marks {
    /// Per block: the divergent branches it is a join of.
    pub join_of: Vec<Vec<Block>>,
    /// Whether the join lists may be incomplete (a work budget was hit).
    pub joins_truncated: bool,
}

/// Escapes text for SVG/HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// Per block: the header of which cycle it is, and of which irreducible cycle an entry.
fn roles(a: &Analysed<'_>, b: Block) -> (Option<u32>, Option<u32>) {
    let s = &a.s;
    let (mut header_of, mut entry_of) = (None, None);
    let mut c = s.cycle_of(b);
    while let Some(x) = c {
        if s.header(x) == b && header_of.is_none() {
            header_of = Some(x);
        } else if entry_of.is_none() && !s.is_reducible(x) && s.entries(x).contains(&b) {
            entry_of = Some(x);
        }
        c = s.parent(x);
    }
    (header_of, entry_of)
}

/// The label lines of a block: its name, its roles, its terminator.
fn block_lines(a: &Analysed<'_>, b: Block, marks: &Marks) -> Vec<(String, &'static str)> {
    let mut lines = vec![(a.block_name(b), "bn")];
    let (h, e) = roles(a, b);
    if let Some(c) = h {
        lines.push((format!("header of cycle {c}"), "tag"));
    }
    if let Some(c) = e {
        lines.push((format!("entry of cycle {c}"), "tag"));
    }
    if !a.s.is_reachable(b) {
        lines.push(("unreachable".to_string(), "tag"));
    }
    if a.u.analysed && a.is_divergent_branch(b) {
        lines.push(("divergent branch".to_string(), "tag"));
    }
    let j = &marks.join_of[b.index()];
    if !j.is_empty() {
        let names: Vec<String> = j.iter().map(|&x| a.block_name(x)).collect();
        lines.push((
            cut(&format!("join of {}", names.join(" ")), MAX_CHARS),
            "tag",
        ));
    }
    let r = a.lf.func.block_range(b);
    if !r.is_empty() {
        let t = a.module().inst_text(a.fid(), InstId(r.end - 1));
        lines.push((cut(t.trim(), MAX_CHARS), "tm"));
    }
    lines
}

fn cycle_label(a: &Analysed<'_>, c: u32) -> String {
    let s = &a.s;
    let mut l = format!(
        "cycle {c} · depth {} · header {}",
        s.depth(c),
        a.block_name(s.header(c))
    );
    if !s.is_reducible(c) {
        let e: Vec<String> = s.entries(c).iter().map(|&b| a.block_name(b)).collect();
        let _ = write!(l, " · IRREDUCIBLE, entries {}", e.join(" "));
    }
    if a.u.analysed && a.u.assumed_divergent.contains(&Cycle(c)) {
        l.push_str(" · assumed divergent");
    }
    if a.u.analysed && a.u.divergent_exit_cycles.contains(&Cycle(c)) {
        l.push_str(" · divergent exit");
    }
    l
}

/// Does the edge u → v leave a cycle with a divergent exit?
fn leaves_divergent_cycle(a: &Analysed<'_>, u: Block, v: Block) -> bool {
    let s = &a.s;
    let mut c = s.cycle_of(u);
    while let Some(y) = c {
        if s.contains(y, v) {
            return false;
        }
        if a.u.divergent_exit_cycles.contains(&Cycle(y)) {
            return true;
        }
        c = s.parent(y);
    }
    false
}

/// The SVG of function number `fi` of the page (ids are prefixed `f{fi}`).
pub fn render(a: &Analysed<'_>, marks: &Marks, fi: usize) -> String {
    let g = a.lf.cfg();
    let n = a.num_blocks();
    let s = &a.s;
    let nc = s.num_cycles();
    let labels: Vec<Vec<(String, &'static str)>> = (0..n as u32)
        .map(|b| block_lines(a, Block(b), marks))
        .collect();
    let clabels: Vec<String> = (0..nc as u32).map(|c| cycle_label(a, c)).collect();
    let inp = Input {
        succs: (0..n as u32)
            .map(|b| g.succs(Block(b)).iter().map(|x| x.0).collect())
            .collect(),
        size: labels
            .iter()
            .map(|ls| {
                let w = ls.iter().map(|l| l.0.chars().count()).max().unwrap_or(1);
                (w as f32 * CHAR_W + 14.0, ls.len() as f32 * LINE_H + 8.0)
            })
            .collect(),
        block_cycle: (0..n as u32).map(|b| s.cycle_of(Block(b))).collect(),
        cycle_parent: (0..nc as u32).map(|c| s.parent(c)).collect(),
        cycle_label: clabels
            .iter()
            .map(|l| (LINE_H + 4.0, l.chars().count() as f32 * CHAR_W))
            .collect(),
        cycle_header: (0..nc as u32).map(|c| s.header(c).0).collect(),
    };
    let l = layout(&inp);
    let mut out = String::with_capacity(n * 400);
    let _ = write!(
        out,
        "<svg class=\"cfg\" id=\"f{fi}-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{x0:.0} 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" data-w=\"{w:.0}\" data-h=\"{h:.0}\">",
        x0 = -SIDE,
        w = l.width + SIDE + BULGE,
        h = l.height
    );
    // Cycles, outer ones first so inner boxes paint on top.
    out.push_str("<g class=\"cycles\">");
    let mut by_depth: Vec<u32> = (0..nc as u32).collect();
    by_depth.sort_by_key(|&c| s.depth(c));
    for c in by_depth {
        let r = &l.cycle[c as usize];
        let mut cls = format!("cyc d{}", s.depth(c).min(4));
        if !s.is_reducible(c) {
            cls.push_str(" irr");
        }
        if a.u.analysed && a.u.assumed_divergent.contains(&Cycle(c)) {
            cls.push_str(" assumed");
        }
        let _ = write!(
            out,
            "<g class=\"{cls}\" id=\"f{fi}c{c}\" data-c=\"{c}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"8\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
            r.x,
            r.y,
            r.w,
            r.h,
            r.x + 8.0,
            r.y + LINE_H,
            esc(&clabels[c as usize])
        );
    }
    out.push_str("</g><g class=\"edges\">");
    for u in (0..n as u32).map(Block) {
        let succs = g.succs(u);
        let cond = succs.len() == 2 && {
            let t = a.terminator(u);
            a.lf.func.insts[t as usize].op == Opcode::Br
        };
        for (k, &v) in succs.iter().enumerate() {
            let mut cls = String::from("e");
            if a.u.analysed && leaves_divergent_cycle(a, u, v) {
                cls.push_str(" dexit");
            }
            let lab = if cond {
                if k == 0 { "T" } else { "F" }
            } else {
                ""
            };
            edge(&mut out, &l, u, v, k, succs.len(), &cls, lab);
        }
    }
    if a.u.analysed {
        temporal_edges(&mut out, a, &l);
    }
    out.push_str("</g><g class=\"blocks\">");
    for (b, r) in l.block.iter().enumerate() {
        let bb = Block(b as u32);
        let mut cls = String::from("blk");
        let (h, e) = roles(a, bb);
        if h.is_some() {
            cls.push_str(" hdr");
        }
        if e.is_some() {
            cls.push_str(" ent");
        }
        if a.u.analysed && a.is_divergent_branch(bb) {
            cls.push_str(" divbr");
        }
        if !marks.join_of[b].is_empty() {
            cls.push_str(" join");
        }
        if !s.is_reachable(bb) {
            cls.push_str(" unreach");
        }
        let _ = write!(
            out,
            "<g class=\"{cls}\" id=\"f{fi}b{b}\" data-b=\"{b}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\"/><text>",
            r.x, r.y, r.w, r.h
        );
        for (k, (t, c)) in labels[b].iter().enumerate() {
            let _ = write!(
                out,
                "<tspan class=\"{c}\" x=\"{:.1}\" y=\"{:.1}\">{}</tspan>",
                r.x + 7.0,
                r.y + 4.0 + LINE_H * (k as f32 + 0.8),
                esc(t)
            );
        }
        out.push_str("</text></g>");
    }
    out.push_str("</g></svg>");
    out
}

/// One CFG edge: downwards from the bottom of u to the top of v, or, when v is not below u
/// (back edges, edges between entries), a curve on the right-hand side.
#[allow(clippy::too_many_arguments)]
fn edge(
    out: &mut String,
    l: &Layout,
    u: Block,
    v: Block,
    k: usize,
    m: usize,
    cls: &str,
    lab: &str,
) {
    let (ru, rv) = (&l.block[u.index()], &l.block[v.index()]);
    let d;
    let (tx, ty, dir);
    if u == v {
        let (x, y) = (ru.x + ru.w, ru.y + ru.h / 2.0);
        d = format!(
            "M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
            x,
            y - 6.0,
            x + 30.0,
            y - 20.0,
            x + 30.0,
            y + 20.0,
            x + 5.0,
            y + 6.0
        );
        (tx, ty, dir) = (x, y + 6.0, (-1.0, -0.4));
    } else if rv.y >= ru.bottom() + 4.0 {
        let x1 = ru.x + ru.w * (k as f32 + 1.0) / (m as f32 + 1.0);
        let y1 = ru.bottom();
        let (x2, y2) = (rv.cx(), rv.y);
        let dy = ((y2 - y1) / 2.0).min(60.0);
        d = format!(
            "M{x1:.1},{y1:.1} C{x1:.1},{:.1} {x2:.1},{:.1} {x2:.1},{:.1}",
            y1 + dy,
            y2 - dy,
            y2 - 7.0
        );
        (tx, ty, dir) = (x2, y2, (0.0, 1.0));
    } else {
        let (x1, y1) = (ru.x + ru.w, ru.y + ru.h * 0.6);
        let (x2, y2) = (rv.x + rv.w, rv.y + rv.h * 0.4);
        let bulge = 24.0 + ((y1 - y2).abs() / 8.0).min(BULGE - 30.0);
        let xr = x1.max(x2) + bulge;
        d = format!(
            "M{x1:.1},{y1:.1} C{xr:.1},{y1:.1} {xr:.1},{y2:.1} {:.1},{y2:.1}",
            x2 + 7.0
        );
        (tx, ty, dir) = (x2, y2, (-1.0, 0.0));
    }
    let _ = write!(
        out,
        "<g class=\"{cls}\" data-e=\"{}-{}\"><path d=\"{d}\"/>{}",
        u.0,
        v.0,
        arrow(tx, ty, dir)
    );
    if !lab.is_empty() {
        let x1 = ru.x + ru.w * (k as f32 + 1.0) / (m as f32 + 1.0);
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\">{lab}</text>",
            x1 + 3.0,
            ru.bottom() + 11.0
        );
    }
    out.push_str("</g>");
}

/// An arrowhead with its tip at (x, y) pointing along `dir` (a unit vector).
fn arrow(x: f32, y: f32, dir: (f32, f32)) -> String {
    let (dx, dy) = dir;
    let len = (dx * dx + dy * dy).sqrt().max(1e-3);
    let (dx, dy) = (dx / len, dy / len);
    let (bx, by) = (x - dx * 8.0, y - dy * 8.0);
    let (px, py) = (-dy * 4.0, dx * 4.0);
    format!(
        "<polygon points=\"{x:.1},{y:.1} {:.1},{:.1} {:.1},{:.1}\"/>",
        bx + px,
        by + py,
        bx - px,
        by - py
    )
}

/// One dashed edge per (definition block, user block) of temporal divergence, on the left side.
fn temporal_edges(out: &mut String, a: &Analysed<'_>, l: &Layout) {
    let f = a.lf.func;
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for t in &a.u.temporal_divergence {
        let key = (
            f.insts[t.value.index()].block.0,
            f.insts[t.user.index()].block.0,
        );
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let (ru, rv): (&Rect, &Rect) = (&l.block[key.0 as usize], &l.block[key.1 as usize]);
        let (x1, y1) = (ru.x, ru.y + ru.h / 2.0);
        let (x2, y2) = (rv.x, rv.y + rv.h / 2.0);
        let xl = x1.min(x2) - 30.0 - ((y1 - y2).abs() / 10.0).min(SIDE - 34.0);
        let _ = write!(
            out,
            "<g class=\"e temporal\" data-t=\"{}-{}\"><path d=\"M{x1:.1},{y1:.1} C{xl:.1},{y1:.1} {xl:.1},{y2:.1} {:.1},{y2:.1}\"/>{}</g>",
            key.0,
            key.1,
            x2 - 7.0,
            arrow(x2, y2, (1.0, 0.0))
        );
    }
}
