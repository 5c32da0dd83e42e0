//! `converge verify FILE`: the static rules of convergence control tokens, as LLVM's verifier applies
//! them, with rustc-style diagnostics (`text`), LLVM's own messages (`llvm`, what `opt -passes=verify`
//! and `llvm-as` print) or JSON. Exit 0 valid, 1 invalid, 2 unreadable.

use crate::common::color::{Style, paint};
use crate::common::{CliError, Format, FunctionArgs};
use converge_verify::Rule;
use converge_verify::llvm::{self, Finding, Flavor};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Which LLVM's verifier to reproduce where LLVM versions differ: 22 (the reference) or 19
    /// (a predecessor unreachable from the entry makes a cycle irreducible).
    #[arg(long = "llvm-version", alias = "llvm", value_name = "N", default_value_t = 22, value_parser = crate::common::llvm_version())]
    pub llvm: u32,
    /// Only the findings of these functions (all are still read).
    #[command(flatten)]
    pub functions: FunctionArgs,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let module = crate::common::load_module(&args.file)?;
    let flavor = if args.llvm < 22 {
        Flavor::Llvm19
    } else {
        Flavor::Llvm22
    };
    let selected = args.functions.select(&module)?;
    let mut findings = llvm::verify_module(&module, flavor);
    if args.functions.is_set() {
        let mut keep = vec![false; module.functions.len()];
        for f in &selected {
            keep[f.0 as usize] = true;
        }
        findings.retain(|fd| keep[fd.func.0 as usize]);
    }
    let name = crate::common::input_name(&args.file);
    let out = match args.format {
        Format::None => String::new(),
        Format::Llvm => {
            let mut s = llvm::llvm_report(&module, &findings);
            if !findings.is_empty() {
                s.push_str(&format!(
                    "converge: {name}: error: input module is broken!\n"
                ));
            }
            s
        }
        Format::Json => json_report(&module, &name, &findings),
        Format::Text => text_report(&module, &name, &findings, selected.len()),
    };
    crate::common::emit(&out);
    Ok(ExitCode::from(if findings.is_empty() { 0 } else { 1 }))
}

fn text_report(
    m: &converge_ir::Module,
    name: &str,
    findings: &[Finding],
    defined: usize,
) -> String {
    let mut s = String::new();
    for fd in findings {
        let text = llvm::diagnostic(m, fd).render(name, &m.source);
        // The headline (`error[rule]: …`) painted; the excerpt and notes as rendered.
        match text.split_once('\n') {
            Some((head, rest)) if crate::common::color::enabled() => {
                s.push_str(&paint(Style::Error, head));
                s.push('\n');
                s.push_str(rest);
            }
            _ => s.push_str(&text),
        }
        s.push('\n');
    }
    if findings.is_empty() {
        s.push_str(&format!(
            "{name}: convergence control is valid ({defined} function{} checked)\n",
            if defined == 1 { "" } else { "s" }
        ));
    } else {
        let mut fns: Vec<u32> = findings.iter().map(|f| f.func.0).collect();
        fns.dedup();
        s.push_str(&format!(
            "error: {} violation{} of the convergence-control rules in {} function{}\n",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" },
            fns.len(),
            if fns.len() == 1 { "" } else { "s" }
        ));
    }
    s
}

fn loc(m: &converge_ir::Module, span: converge_ir::Span) -> serde_json::Value {
    let (line, col) = converge_ir::diag::line_col(&m.source, span.start);
    json!({ "line": line, "col": col })
}

fn json_report(m: &converge_ir::Module, name: &str, findings: &[Finding]) -> String {
    let items: Vec<serde_json::Value> = findings
        .iter()
        .map(|fd| {
            let f = &m.functions[fd.func.0 as usize];
            let rule: Rule = fd.rule;
            let mut obj = json!({
                "function": m.strings.resolve(f.name),
                "rule": rule.id(),
                "catalogue": rule.catalogue(),
                "message": rule.sentence(),
                "problem": llvm::problem(m, fd),
                "llvm_message": rule.llvm_message(),
                "llvm_lines": llvm::llvm_lines(m, fd),
            });
            let (line, col) = converge_ir::diag::line_col(&m.source, f.span.start);
            obj["line"] = json!(line);
            obj["col"] = json!(col);
            if let Some(v) = &fd.violation {
                let inst = |i: u32, role: &str| {
                    let mut o = loc(m, f.insts[i as usize].span);
                    o["role"] = json!(role);
                    o["text"] = json!(llvm::inst_text(m, fd.func, i).trim_start());
                    o
                };
                let mut insts = vec![inst(v.inst, "primary")];
                if let Some(r) = v.related {
                    let role = match rule {
                        Rule::OneHeartPerCycle => "first-heart",
                        Rule::EntryFirst | Rule::LoopFirst => "earlier-convergent",
                        Rule::NoMixing => "decided-kind",
                        _ => "definition",
                    };
                    insts.push(inst(r, role));
                } else if rule != Rule::TokenSource
                    && let Some(d) = llvm::token_def(m, fd.func, v.inst)
                {
                    insts.push(inst(d, "definition"));
                }
                let p = loc(m, f.insts[v.inst as usize].span);
                obj["line"] = p["line"].clone();
                obj["col"] = p["col"].clone();
                obj["instructions"] = json!(insts);
                if let Some(c) = &v.cycle {
                    let names = |bs: &[converge_graph::Block]| {
                        bs.iter()
                            .map(|&b| llvm::block_raw_name(m, f, b))
                            .collect::<Vec<_>>()
                    };
                    obj["cycle"] = json!({
                        "depth": c.depth,
                        "entries": names(&c.entries),
                        "blocks": names(&c.others),
                    });
                }
                if !v.witness.is_empty() {
                    obj["witness"] = json!(
                        v.witness
                            .iter()
                            .map(|&b| llvm::block_raw_name(m, f, b))
                            .collect::<Vec<_>>()
                    );
                }
            }
            obj
        })
        .collect();
    let report = json!({
        "file": name,
        "valid": findings.is_empty(),
        "findings": items,
    });
    crate::common::output::json_text(&report)
}
