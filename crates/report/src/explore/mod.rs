//! `converge explore`: one self-contained HTML page that shows a module's functions for people
//! learning the convergence semantics and for bug reports. Per function: the CFG as a picture
//! ([`svg`], laid out by [`layout`] in pure Rust, so no outside program is needed and a
//! thousand-block function is laid out in milliseconds), the source with every value marked uniform
//! or divergent and, on a click, its explanation chain ([`data`], the same reasons as `converge
//! explain`) highlighted on the CFG, the token diagnostics of `converge verify` with their witness
//! paths, and the simulator's table of dynamic instances per thread with converged instances in one
//! column ([`sim`]) under LLVM's and a few other cycle hierarchies. Styles, script and data are
//! inlined: the page needs no network and no server. Why a built-in layout rather than Graphviz:
//! docs/explore.md.

pub mod data;
pub mod layout;
pub mod sim;
pub mod svg;

use crate::explain::{Analysed, Explainer};
use crate::loc::LineIndex;
use crate::render::{Ctx, MAX_JOINS};
use converge_graph::Block;
use converge_ir::{FuncId, Module};
use converge_uniformity::llvm::Target;
use converge_uniformity::{Mode, SsaFunction};
use converge_verify::llvm::{Finding, Flavor, verify_module};
use serde_json::{Value as Json, json};
use std::fmt::Write as _;

pub use sim::SimOptions;

/// What to put on the page.
pub struct ExploreOptions {
    /// The target model whose divergence sources the analysis and the explanations use.
    pub target: Target,
    /// The uniformity analysis the page shows: LLVM's (default) or the precise one.
    pub mode: Mode,
    /// What the simulation panel runs (converge-sim, the oracle).
    pub sim: SimOptions,
}

/// Per function, join candidates are tried over all divergent branches until about this many
/// edge visits are spent (each try is a max-flow over the CFG, O(edges)); beyond it the header
/// says the join marks may be incomplete.
const JOIN_WORK_BUDGET: usize = 4_000_000;
/// Uniform values whose reasons are listed in detail (each may need join searches).
const UNIFORM_BUDGET: usize = 2_000;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// The joins of every divergent branch, within the work budget.
fn joins(a: &Analysed<'_>) -> svg::Marks {
    let n = a.num_blocks();
    let mut join_of: Vec<Vec<Block>> = vec![Vec::new(); n];
    let edges: usize = (0..n as u32)
        .map(|b| converge_graph::Graph::succs(a.lf.cfg(), Block(b)).len())
        .sum();
    let mut budget = (JOIN_WORK_BUDGET / (edges + 1)).max(64);
    let mut truncated = false;
    if a.u.analysed {
        for b in (0..n as u32).map(Block) {
            if !a.is_divergent_branch(b) {
                continue;
            }
            if budget == 0 {
                truncated = true;
                break;
            }
            let tries = budget.min(crate::render::MAX_JOIN_TRIES);
            let (js, t) = a.join_blocks_limited(b, MAX_JOINS, tries);
            budget -= tries;
            truncated |= t;
            for j in js {
                join_of[j.index()].push(b);
            }
        }
    }
    svg::Marks {
        join_of,
        joins_truncated: truncated,
    }
}

fn summary(a: &Analysed<'_>, marks: &svg::Marks) -> String {
    let u = &a.u;
    if !u.analysed {
        return "no branch divergence on this target: every value is uniform".to_string();
    }
    let nd = u.divergent_args.iter().filter(|&&d| d).count()
        + u.divergent_insts.iter().filter(|&&d| d).count();
    let nb = (0..a.num_blocks() as u32)
        .filter(|&b| a.is_divergent_branch(Block(b)))
        .count();
    let irr = (0..a.s.num_cycles() as u32)
        .filter(|&c| !a.s.is_reducible(c))
        .count();
    let mut s = format!(
        "{} blocks, {} cycle{} ({irr} irreducible), {nd} divergent value{}, {nb} divergent branch{}",
        a.num_blocks(),
        a.s.num_cycles(),
        if a.s.num_cycles() == 1 { "" } else { "s" },
        if nd == 1 { "" } else { "s" },
        if nb == 1 { "" } else { "es" }
    );
    if marks.joins_truncated {
        s.push_str(" (join marks limited to a work budget)");
    }
    s
}

/// The picture of one function on its own (`converge dot --svg`): the page's SVG with the page's
/// stylesheet inside, so it needs neither Graphviz nor the page.
pub fn standalone_svg(a: &Analysed<'_>) -> String {
    let marks = joins(a);
    let svg = svg::render(a, &marks, 0);
    let body = svg.find('>').map_or(0, |k| k + 1);
    format!(
        "{}<style>{CSS}</style><rect x=\"-100%\" y=\"-100%\" width=\"300%\" height=\"300%\" fill=\"#fff\"/>{}\n",
        &svg[..body],
        &svg[body..]
    )
}

/// One function: its data for the script and its HTML (picture and source).
fn function(
    m: &Module,
    fid: FuncId,
    fi: usize,
    findings: &[&Finding],
    lines: &LineIndex,
    opts: &ExploreOptions,
) -> (Json, String, String) {
    let a = Analysed::new_with(m, fid, &opts.target, opts.mode);
    let ex = Explainer::new(&a);
    let ctx = Ctx { a: &a, lines };
    let marks = joins(&a);
    let picture = svg::render(&a, &marks, fi);
    let mut j = data::values_json(&ctx, &ex, UNIFORM_BUDGET);
    let diags = data::diags_json(&a, findings, &m.source_name);
    let diag_lines: Vec<(u32, usize)> = diags
        .as_array()
        .map(|v| {
            v.iter()
                .enumerate()
                .map(|(k, d)| (d["line"].as_u64().unwrap_or(0) as u32, k))
                .collect()
        })
        .unwrap_or_default();
    let simj = sim::simulate(&a, &opts.sim);
    // Convergent operations: those with communicating groups in any run.
    let nv = a.lf.func.params.len() + a.lf.func.insts.len();
    let mut conv = vec![false; nv];
    for r in simj["runs"].as_array().into_iter().flatten() {
        if let Some(g) = r["groups"].as_object() {
            for k in g.keys() {
                // Calls only: memory accesses are evaluated per converged group too, but are not
                // convergent operations.
                let np = a.lf.func.params.len();
                if let Ok(v) = k.parse::<usize>()
                    && v >= np
                    && v < nv
                    && a.lf.func.insts[v - np].op == converge_ir::Opcode::Call
                {
                    conv[v] = true;
                }
            }
        }
    }
    let source = data::source_html(&a, lines, &diag_lines, &conv);
    j["name"] = json!(a.lf.name());
    j["summary"] = json!(summary(&a, &marks));
    j["blocks"] = json!(
        (0..a.num_blocks() as u32)
            .map(|b| a.block_name(Block(b)))
            .collect::<Vec<_>>()
    );
    j["diags"] = diags;
    j["sim"] = simj;
    let picture = format!("<div class=\"fn\" data-fi=\"{fi}\">{picture}</div>");
    let src = format!("<div class=\"fn\" data-fi=\"{fi}\" id=\"src{fi}\">{source}</div>");
    (j, picture, src)
}

/// The page for the given functions of `m`.
pub fn page(m: &Module, funcs: &[FuncId], opts: &ExploreOptions) -> String {
    let mut out = Vec::new();
    // Writing into a vector cannot fail, and the page is UTF-8 (text and serde_json's JSON).
    let _ = write_page(m, funcs, opts, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`page`] written into `out` as it is made: the data of the script is serialized straight
/// into it (no second copy of the JSON text, no copy of the whole page), so a large page (a deep
/// nest's hierarchies list every block of every cycle: quadratic) needs about the memory of its
/// data once.
pub fn write_page<W: std::io::Write>(
    m: &Module,
    funcs: &[FuncId],
    opts: &ExploreOptions,
    out: &mut W,
) -> std::io::Result<()> {
    let lines = LineIndex::new(&m.source);
    let findings = verify_module(m, Flavor::Llvm22);
    let mut fjson = Vec::new();
    let mut pictures = String::new();
    let mut sources = String::new();
    for (fi, &fid) in funcs.iter().enumerate() {
        let mine: Vec<&Finding> = findings.iter().filter(|f| f.func == fid).collect();
        let (j, p, s) = function(m, fid, fi, &mine, &lines, opts);
        fjson.push(j);
        pictures.push_str(&p);
        sources.push_str(&s);
    }
    let data = json!({
        "file": m.source_name,
        "mode": opts.mode.name(),
        "functions": fjson,
    });
    let title = format!("converge explore: {}", m.source_name);
    let mut head = String::with_capacity(40_000);
    let _ = write!(
        head,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
         <title>{}</title><style>{CSS}</style></head><body>",
        svg::esc(&title)
    );
    let _ = write!(
        head,
        "<header><h1>converge explore</h1><span class=\"meta mono\">{}</span>\
         <span id=\"fnwrap\">function <select id=\"fnsel\"></select></span>\
         <span class=\"meta\">mode {} · target {}</span><span class=\"meta\" id=\"fninfo\"></span></header>",
        svg::esc(&m.source_name),
        opts.mode.name(),
        svg::esc(&target_name(&opts.target)),
    );
    head.push_str("<div id=\"errors\" class=\"err\" hidden></div>\n<main><section class=\"panel\" id=\"left\"><h2>control-flow graph<span class=\"sp\"></span>\
        <button id=\"zout\" title=\"zoom out\">−</button><button id=\"zin\" title=\"zoom in\">+</button><button id=\"zfit\">fit</button><button id=\"z1\">1:1</button></h2><div id=\"cfgbox\">");
    out.write_all(head.as_bytes())?;
    out.write_all(pictures.as_bytes())?;
    drop(pictures);
    let mut mid = String::from("</div>");
    legend(&mut mid);
    mid.push_str("</section><div id=\"right\"><section class=\"panel\"><h2>source (click a value: why is it uniform or divergent?)</h2><div id=\"srcbox\">");
    out.write_all(mid.as_bytes())?;
    out.write_all(sources.as_bytes())?;
    drop(sources);
    out.write_all("</div></section><section class=\"panel\"><h2>explanation</h2><div id=\"detail\"></div></section></div></main>\n".as_bytes())?;
    out.write_all("<section class=\"panel\" id=\"sim\"><h2>simulation: dynamic instances<span id=\"hierwrap\"> · cycle hierarchy <select id=\"hier\"></select></span></h2><div id=\"simbody\"></div></section>\n".as_bytes())?;
    out.write_all(HELP.as_bytes())?;
    out.write_all(b"<script type=\"application/json\" id=\"data\">")?;
    {
        // `</` inside a script element would end it: JSON allows `<\/`.
        let mut w = std::io::BufWriter::with_capacity(
            1 << 16,
            ScriptSafe {
                out: &mut *out,
                lt: false,
            },
        );
        serde_json::to_writer(&mut w, &data).map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut w)?;
    }
    out.write_all(format!("</script>\n<script>{JS}</script>\n</body></html>\n").as_bytes())
}

/// Passes JSON text on with a backslash before every `/` that follows a `<` (also across
/// writes): `</` cannot end the script element that holds it.
struct ScriptSafe<'a, W: std::io::Write> {
    out: &'a mut W,
    /// The last byte written was `<`.
    lt: bool,
}

impl<W: std::io::Write> std::io::Write for ScriptSafe<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for (k, &c) in buf.iter().enumerate() {
            let after_lt = if k == 0 { self.lt } else { buf[k - 1] == b'<' };
            if c == b'/' && after_lt {
                self.out.write_all(&buf[start..k])?;
                self.out.write_all(b"\\")?;
                start = k;
            }
        }
        self.out.write_all(&buf[start..])?;
        if let Some(&last) = buf.last() {
            self.lt = last == b'<';
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

fn target_name(t: &Target) -> String {
    match t {
        Target::Amdgpu(_) => "amdgpu".to_string(),
        Target::Nvptx(_) => "nvptx".to_string(),
        Target::Uniform => "none (no divergence)".to_string(),
    }
}

fn legend(out: &mut String) {
    out.push_str(
        "<div id=\"legend\">\
<span><span class=\"sw\" style=\"background:#f3f3f3;border-color:#9a9a9a\"></span>cycle (box; nested boxes are nested cycles)</span>\
<span><span class=\"sw\" style=\"background:#f3f3f3;border:1.6px dashed #6a3d9a\"></span>irreducible cycle</span>\
<span><span class=\"sw\" style=\"border-width:2.6px\"></span>header</span>\
<span><span class=\"sw\" style=\"border:2.6px solid #6a3d9a\"></span>entry of an irreducible cycle</span>\
<span><span class=\"sw\" style=\"background:#f7b0a8\"></span>divergent branch</span>\
<span><span class=\"sw\" style=\"background:#cfe0ff;border:2px solid #1f5fbf\"></span>join of a divergent branch</span>\
<span><span class=\"sw\" style=\"border:0;border-top:3px solid #d62728;height:0\"></span>divergent cycle exit</span>\
<span><span class=\"sw\" style=\"border:0;border-top:2px dashed #8e44ad;height:0\"></span>temporal divergence (definition → use outside the cycle)</span>\
<span><span class=\"sw\" style=\"border:3px solid #d62728;background:#f3f3f3\"></span>cycle assumed divergent</span>\
<span><span class=\"sw\" style=\"border:4px solid #ff8c00\"></span>selected chain</span>\
<span><span class=\"sw\" style=\"border:4px dashed #b35c00\"></span>token witness path</span>\
</div>",
    );
}

const HELP: &str = "<template id=\"helptpl\"><div id=\"help\"><p><b>Click a value</b> in the source (divergent ones are red) to see why it is divergent: the chain of reasons back to a divergence source, drawn on the CFG. \
<b>Click a block</b> (in the picture or its label in the source) to see which columns of the table hold its dynamic instances. \
<b>Click a cell</b> of the table to see which instances are converged (one column). \
Operations with a dashed blue outline are convergent: clicking one lists its communicating sets. \
<b>⚠</b> marks a token diagnostic of <code>converge verify</code>; clicking it draws the witness path.</p></div></template>\n";

#[cfg(test)]
mod tests {
    use super::ScriptSafe;
    use std::io::Write;

    /// The streamed escape is `str::replace("</", "<\\/")` of the whole text, wherever the writes
    /// split it (a `<` ending one write, its `/` starting the next).
    #[test]
    fn script_safe_escapes_as_one_replace_across_writes() {
        let text = "a</b<</c<<//d</</<x/</";
        let whole = text.replace("</", "<\\/");
        for split in 0..=text.len() {
            for second in split..=text.len() {
                let mut out = Vec::new();
                let mut w = ScriptSafe {
                    out: &mut out,
                    lt: false,
                };
                for part in [&text[..split], &text[split..second], &text[second..]] {
                    w.write_all(part.as_bytes()).unwrap();
                }
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    whole,
                    "split at {split}, {second}"
                );
            }
        }
    }
}
