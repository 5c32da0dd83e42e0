//! The CFG of one function as Graphviz DOT: cycles as nested clusters (labelled with depth, header
//! and entries; irreducible ones marked), headers and entries marked, and with the uniformity
//! result: divergent branches coloured, joins of divergent branches marked, divergent cycle exits
//! and temporal-divergence uses highlighted, plus a legend. Output is deterministic (block, cycle
//! and edge order come from the function), and the cluster nesting is written with an explicit
//! stack, not recursion.

use crate::explain::Analysed;
use converge_graph::{Block, Cycle, Graph};
use converge_ir::InstId;
use converge_uniformity::SsaFunction;
use std::fmt::Write as _;

/// What the DOT picture shows besides the CFG and its cycles.
#[derive(Copy, Clone, Debug, Default)]
pub struct DotOptions {
    /// Colour divergence (the analysis result).
    pub uniformity: bool,
    /// List every instruction in the block boxes (divergent ones marked `*`).
    pub instructions: bool,
}

const DIVERGENT_FILL: &str = "#f7b0a8";
const JOIN_COLOR: &str = "#1f5fbf";
const JOIN_FILL: &str = "#cfe0ff";
const EXIT_COLOR: &str = "#d62728";
const TEMPORAL_COLOR: &str = "#8e44ad";
/// Cluster background by depth (lighter outside).
const CYCLE_FILLS: [&str; 4] = ["#f3f3f3", "#e6e6e6", "#d9d9d9", "#cccccc"];

/// Escapes text for a double-quoted DOT string (labels use `\l` line ends, added by the caller).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// The node id of a block in the DOT output.
pub fn node_id(b: Block) -> String {
    format!("b{}", b.0)
}

/// One `digraph` for the function. [`render_into`] into a `String`.
pub fn render(a: &Analysed<'_>, opts: &DotOptions) -> String {
    let mut out = String::new();
    let _ = render_into(&mut out, a, opts);
    out
}

/// Past this many bytes, [`render_into`] hands its text to its writer.
const SPILL: usize = 1 << 16;

/// Hands `out` to `w` once it holds more than [`SPILL`] bytes.
fn spill(out: &mut String, w: &mut impl std::fmt::Write) -> std::fmt::Result {
    if out.len() > SPILL {
        w.write_str(out)?;
        out.clear();
    }
    Ok(())
}

/// [`render`] written to `w` as it goes: clusters nest as deep as the cycles and each line is
/// indented by its depth, so a nest thousands deep draws a quadratic amount of text (5 GB for a
/// 64,000-block nest). Stops at the first error of `w` (a closed pipe).
pub fn render_into(
    w: &mut impl std::fmt::Write,
    a: &Analysed<'_>,
    opts: &DotOptions,
) -> std::fmt::Result {
    let (m, fid, f) = (a.module(), a.fid(), a.lf.func);
    let (s, u, g) = (&a.s, &a.u, a.lf.cfg());
    let ci = &s.cycles;
    let nb = a.num_blocks();
    let show_div = opts.uniformity && u.analysed;

    // Joins of divergent branches (block → branches).
    let mut join_of: Vec<Vec<Block>> = vec![Vec::new(); nb];
    let mut divergent_branch = vec![false; nb];
    if show_div {
        for b in (0..nb as u32).map(Block) {
            if a.is_divergent_branch(b) {
                divergent_branch[b.index()] = true;
                // The joins only: the picture shows no paths, so no max-flow per join.
                let (joins, _) = a.join_blocks_limited(
                    b,
                    crate::render::MAX_JOINS,
                    crate::render::MAX_JOIN_TRIES,
                );
                for j in joins {
                    join_of[j.index()].push(b);
                }
            }
        }
    }
    let mut out = String::new();
    let title = format!("@{}", a.lf.name());
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&title));
    let mut glabel = title.clone();
    if opts.uniformity {
        if u.analysed {
            let nd = u.divergent_insts.iter().filter(|&&d| d).count()
                + u.divergent_args.iter().filter(|&&d| d).count();
            let nbr = divergent_branch.iter().filter(|&&d| d).count();
            let _ = write!(
                glabel,
                ": {nd} divergent value{}, {nbr} divergent branch{}",
                if nd == 1 { "" } else { "s" },
                if nbr == 1 { "" } else { "es" }
            );
        } else {
            glabel.push_str(": no branch divergence on this target");
        }
    }
    let _ = writeln!(
        out,
        "  graph [label=\"{}\", labelloc=t, fontname=\"Helvetica\", fontsize=14, newrank=true];",
        escape(&glabel)
    );
    out.push_str(
        "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Courier\", fontsize=10];\n",
    );
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");

    let node_line = |b: Block| -> String {
        let bi = b.index();
        let mut tags: Vec<String> = Vec::new();
        let inner = ci.cycle_of(b);
        let mut header_of = None;
        let mut entry_of = None;
        let mut c = inner;
        while let Some(x) = c {
            if ci.header(x) == b && header_of.is_none() {
                header_of = Some(x);
            } else if ci.is_entry(x, b) && entry_of.is_none() && !ci.is_reducible(x) {
                entry_of = Some(x);
            }
            c = ci.parent(x);
        }
        if let Some(x) = header_of {
            tags.push(format!("header of cycle {}", x.0));
        }
        if let Some(x) = entry_of {
            tags.push(format!("entry of cycle {}", x.0));
        }
        if !s.is_reachable(b) {
            tags.push("unreachable".to_string());
        }
        if divergent_branch[bi] {
            tags.push("divergent branch".to_string());
        }
        if !join_of[bi].is_empty() {
            let v: Vec<String> = join_of[bi].iter().map(|&x| a.block_name(x)).collect();
            tags.push(format!("join of {}", v.join(" ")));
        }
        let mut label = escape(&a.block_name(b));
        label.push_str("\\l");
        for t in &tags {
            let _ = write!(label, "[{}]\\l", escape(t));
        }
        let r = f.block_range(Block(bi as u32));
        let insts: Vec<u32> = if opts.instructions {
            (r.start..r.end).collect()
        } else if !r.is_empty() {
            vec![r.end - 1]
        } else {
            Vec::new()
        };
        for i in insts {
            let text = m.inst_text(fid, InstId(i));
            let term = f.insts[i as usize].op.is_terminator();
            let div = show_div
                && if term {
                    u.divergent_terminators[bi]
                } else {
                    u.divergent_insts[i as usize]
                };
            let _ = write!(
                label,
                "{}{}\\l",
                if div { "* " } else { "  " },
                escape(&truncate(text.trim(), 72))
            );
        }
        let mut attrs = format!("label=\"{label}\"");
        if divergent_branch[bi] {
            let _ = write!(attrs, ", fillcolor=\"{DIVERGENT_FILL}\"");
        } else if !join_of[bi].is_empty() {
            let _ = write!(attrs, ", fillcolor=\"{JOIN_FILL}\"");
        }
        if !join_of[bi].is_empty() {
            let _ = write!(attrs, ", color=\"{JOIN_COLOR}\", peripheries=2");
        }
        if header_of.is_some() || entry_of.is_some() {
            attrs.push_str(", penwidth=2.5");
        }
        if !s.is_reachable(b) {
            attrs.push_str(", style=\"rounded,filled,dashed\", fontcolor=gray40");
        }
        format!("{} [{attrs}];", node_id(b))
    };

    // Blocks grouped by innermost cycle.
    let mut own: Vec<Vec<Block>> = vec![Vec::new(); ci.len()];
    let mut top_blocks = Vec::new();
    for b in (0..nb as u32).map(Block) {
        match ci.cycle_of(b) {
            Some(c) => own[c.index()].push(b),
            None => top_blocks.push(b),
        }
    }
    for &b in &top_blocks {
        let _ = writeln!(out, "  {}", node_line(b));
        spill(&mut out, w)?;
    }
    // Nested clusters, iteratively: (cycle, next child index).
    let tops: Vec<Cycle> = ci.top_level().collect();
    for &t in &tops {
        let mut stack: Vec<(Cycle, usize)> = vec![(t, 0)];
        open_cluster(&mut out, a, t, 1);
        for &b in &own[t.index()] {
            let _ = writeln!(out, "{}{}", indent(2), node_line(b));
            spill(&mut out, w)?;
        }
        while let Some(&mut (c, ref mut k)) = stack.last_mut() {
            let children = ci.children(c);
            if *k < children.len() {
                let ch = children[*k];
                *k += 1;
                let depth = stack.len() + 1;
                open_cluster(&mut out, a, ch, depth);
                for &b in &own[ch.index()] {
                    let _ = writeln!(out, "{}{}", indent(depth + 1), node_line(b));
                    spill(&mut out, w)?;
                }
                stack.push((ch, 0));
            } else {
                stack.pop();
                let _ = writeln!(out, "{}}}", indent(stack.len() + 1));
            }
            spill(&mut out, w)?;
        }
    }

    // Edges, in block and successor order.
    for b in (0..nb as u32).map(Block) {
        let succs = g.succs(b);
        let term = f.block_range(b).end.checked_sub(1);
        let is_cond_br = term.is_some_and(|t| {
            let i = &f.insts[t as usize];
            i.op == converge_ir::Opcode::Br && succs.len() == 2
        });
        for (k, &x) in succs.iter().enumerate() {
            let mut attrs: Vec<String> = Vec::new();
            let mut label = String::new();
            if is_cond_br {
                label.push_str(if k == 0 { "T" } else { "F" });
            }
            if show_div {
                // Exits of the cycles with a divergent exit that this edge leaves.
                let mut c = ci.cycle_of(b);
                let mut leaves_div = false;
                while let Some(y) = c {
                    if ci.contains(y, x) {
                        break;
                    }
                    leaves_div |= u.divergent_exit_cycles.contains(&y);
                    c = ci.parent(y);
                }
                if leaves_div {
                    if !label.is_empty() {
                        label.push(' ');
                    }
                    label.push_str("divergent exit");
                    attrs.push(format!("color=\"{EXIT_COLOR}\""));
                    attrs.push(format!("fontcolor=\"{EXIT_COLOR}\""));
                    attrs.push("penwidth=2.5".to_string());
                }
            }
            if !label.is_empty() {
                attrs.insert(0, format!("label=\"{}\"", escape(&label)));
            }
            let _ = write!(out, "  {} -> {}", node_id(b), node_id(x));
            if !attrs.is_empty() {
                let _ = write!(out, " [{}]", attrs.join(", "));
            }
            out.push_str(";\n");
        }
        spill(&mut out, w)?;
    }
    if show_div {
        // One dashed edge per (definition block, user block), naming every value it carries.
        let mut edges: Vec<((u32, u32), Vec<String>)> = Vec::new();
        for t in &u.temporal_divergence {
            let key = (
                f.insts[t.value.index()].block.0,
                f.insts[t.user.index()].block.0,
            );
            let name = m.value_name(fid, converge_ir::Value::Inst(InstId(t.value.0)));
            match edges.iter_mut().find(|(k, _)| *k == key) {
                Some((_, names)) => {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
                None => edges.push((key, vec![name])),
            }
        }
        for ((from, to), names) in edges {
            let _ = writeln!(
                out,
                "  {} -> {} [label=\"{} (temporal)\", style=dashed, color=\"{TEMPORAL_COLOR}\", fontcolor=\"{TEMPORAL_COLOR}\", constraint=false];",
                node_id(Block(from)),
                node_id(Block(to)),
                escape(&names.join(", "))
            );
        }
    }
    legend(&mut out, opts.uniformity && u.analysed);
    out.push_str("}\n");
    w.write_str(&out)
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

fn open_cluster(out: &mut String, a: &Analysed<'_>, c: Cycle, depth: usize) {
    let ci = &a.s.cycles;
    let entries: Vec<String> = ci.entries(c).iter().map(|&b| a.block_name(b)).collect();
    let reducible = ci.is_reducible(c);
    let mut label = format!(
        "cycle {}: depth {}, header {}",
        c.0,
        ci.depth(c),
        a.block_name(ci.header(c))
    );
    if !reducible {
        let _ = write!(label, ", IRREDUCIBLE, entries {}", entries.join(" "));
    }
    let mut extra = String::new();
    if a.u.analysed && a.u.assumed_divergent.contains(&c) {
        label.push_str(" — assumed divergent");
        extra.push_str(", penwidth=2, color=\"#d62728\"");
    }
    if a.u.analysed && a.u.divergent_exit_cycles.contains(&c) {
        label.push_str(" — divergent exit");
    }
    let fill = CYCLE_FILLS[(ci.depth(c) as usize - 1).min(CYCLE_FILLS.len() - 1)];
    let _ = writeln!(out, "{}subgraph \"cluster_cycle{}\" {{", indent(depth), c.0);
    let _ = writeln!(
        out,
        "{}graph [label=\"{}\", style=\"rounded,filled{}\", fillcolor=\"{fill}\", labeljust=l{extra}];",
        indent(depth + 1),
        escape(&label),
        if reducible { "" } else { ",dashed" },
    );
}

fn legend(out: &mut String, divergence: bool) {
    // One HTML-table node: compact, and it does not disturb the CFG layout.
    let mut rows = String::new();
    rows.push_str("<tr><td colspan=\"2\"><b>legend</b></td></tr>");
    rows.push_str("<tr><td style=\"rounded\" border=\"3\">%bb</td><td align=\"left\">cycle header / entry of an irreducible cycle</td></tr>");
    rows.push_str("<tr><td bgcolor=\"#e6e6e6\" style=\"rounded\">cluster</td><td align=\"left\">cycle (dashed: irreducible), label: depth, header, entries</td></tr>");
    if divergence {
        let _ = write!(
            rows,
            "<tr><td bgcolor=\"{DIVERGENT_FILL}\">%bb</td><td align=\"left\">divergent branch (* marks divergent instructions)</td></tr>\
             <tr><td bgcolor=\"{JOIN_FILL}\" color=\"{JOIN_COLOR}\" border=\"2\">%bb</td><td align=\"left\">join of a divergent branch (at most 16 per branch)</td></tr>\
             <tr><td><font color=\"{EXIT_COLOR}\"><b>——&gt;</b></font></td><td align=\"left\">divergent cycle exit</td></tr>\
             <tr><td><font color=\"{TEMPORAL_COLOR}\">- - -&gt;</font></td><td align=\"left\">temporal divergence: definition in the cycle to its use outside</td></tr>"
        );
    }
    let _ = writeln!(
        out,
        "  legend [shape=none, margin=0, fontname=\"Helvetica\", fontsize=9, label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"2\" cellpadding=\"3\">{rows}</table>>];"
    );
}

/// Several functions' [`render`] outputs as one `digraph` (Graphviz draws only the first graph of
/// a file): each function becomes a cluster titled with its graph label, its node and cluster ids
/// prefixed `f<k>_` so they stay distinct, with one shared legend (the richest one given).
pub fn combine(title: &str, graphs: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(title));
    let _ = writeln!(
        out,
        "  graph [label=\"{}\", labelloc=t, fontname=\"Helvetica\", fontsize=16, newrank=true];",
        escape(title)
    );
    out.push_str(
        "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Courier\", fontsize=10];\n",
    );
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
    let mut legend_line: Option<&str> = None;
    for (k, g) in graphs.iter().enumerate() {
        let prefix = format!("f{k}_");
        let _ = writeln!(out, "  subgraph \"cluster_f{k}\" {{");
        for line in g.lines() {
            let t = line.trim_start();
            if line.starts_with("digraph ")
                || line == "}"
                || t.starts_with("node [")
                || t.starts_with("edge [")
            {
                continue;
            }
            if t.starts_with("legend [") {
                if legend_line.is_none_or(|l| l.len() < line.len()) {
                    legend_line = Some(line);
                }
                continue;
            }
            out.push_str("  ");
            if let Some(rest) = line.strip_prefix("  graph [") {
                // The function's title line becomes the cluster's label.
                let _ = writeln!(
                    out,
                    "  graph [style=rounded, {}",
                    rest.replace(", newrank=true", "")
                );
                continue;
            }
            let indent = &line[..line.len() - t.len()];
            if let Some(c) = t.strip_prefix("subgraph \"cluster_") {
                let _ = writeln!(out, "{indent}subgraph \"cluster_{prefix}{c}");
                continue;
            }
            // `bN [..]` (a node) or `bN -> bM ...` (an edge): only the leading ids are renamed,
            // never label text.
            let id_len = |s: &str| -> usize {
                s.strip_prefix('b')
                    .map_or(0, |r| 1 + r.bytes().take_while(u8::is_ascii_digit).count())
            };
            let n = id_len(t);
            if n > 1 {
                let (id, rest) = t.split_at(n);
                out.push_str(indent);
                out.push_str(&prefix);
                out.push_str(id);
                if let Some(r2) = rest.strip_prefix(" -> ") {
                    let m2 = id_len(r2);
                    let _ = writeln!(out, " -> {prefix}{r2}", r2 = &r2[..m2]);
                    out.pop();
                    out.push_str(&r2[m2..]);
                    out.push('\n');
                } else {
                    out.push_str(rest);
                    out.push('\n');
                }
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("  }\n");
    }
    if let Some(l) = legend_line {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("}\n");
    out
}
