//! `converge verify`'s report: the token verifier's findings as rustc-style diagnostics
//! ([`text`]), LLVM's own messages ([`llvm()`], what `opt -passes=verify` prints) or JSON
//! ([`VerifyReport`], schema `converge.verify/1`).

use super::CycleJson;
use super::style::{Painter, Style};
use converge_ir::{Module, Span};
use converge_verify::llvm::{self, Finding};
use converge_verify::{Inst, Rule};
use serde::{Deserialize, Serialize};

/// The JSON document.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct VerifyReport {
    /// `converge.verify/1`.
    pub schema: String,
    /// The input's name (`<stdin>` for standard input).
    pub file: String,
    /// No finding.
    pub valid: bool,
    /// Every broken rule, in module order; empty when `valid`.
    pub findings: Vec<FindingJson>,
}

/// One broken rule.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FindingJson {
    /// The function the rule is broken in, without `@`.
    pub function: String,
    /// Stable rule id (`T-cycle-use`, …; `docs/verify-rules.md`).
    pub rule: String,
    /// The rule's entry in the catalogue of "Convergent Operation Semantics".
    pub catalogue: String,
    /// The rule as a sentence.
    pub message: String,
    /// The problem found, in this module's names.
    pub problem: String,
    /// LLVM's verifier message for the rule.
    pub llvm_message: String,
    /// The lines LLVM's verifier prints after its message (the offending instructions).
    pub llvm_lines: Vec<String>,
    /// Line (from 1) of the offending instruction, or of the function when there is none.
    pub line: usize,
    /// Column (from 1) of the same place as [`FindingJson::line`].
    pub col: usize,
    /// The instructions involved: the offending one (`primary`) first. Absent when the finding
    /// is about the function rather than an instruction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Vec<InstructionRef>>,
    /// The cycle a cycle rule is about (its header is the first entry). Absent for other rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle: Option<CycleJson>,
    /// A path of blocks that shows the violation (cycle rules). Absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<Vec<String>>,
}

/// An instruction of a finding.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct InstructionRef {
    /// `primary`, `definition`, `first-heart`, `earlier-convergent` or `decided-kind`.
    pub role: String,
    /// The instruction as LLVM prints it.
    pub text: String,
    /// Line of the instruction, from 1.
    pub line: usize,
    /// Column of the instruction, from 1.
    pub col: usize,
}

fn line_col(m: &Module, span: Span) -> (usize, usize) {
    converge_ir::diag::line_col(&m.source, span.start)
}

/// The JSON document for `findings` of module `m` read from `file`.
pub fn json(m: &Module, file: &str, findings: &[Finding]) -> VerifyReport {
    let findings: Vec<FindingJson> = findings
        .iter()
        .map(|fd| {
            let f = &m.functions[fd.func.0 as usize];
            let rule: Rule = fd.rule;
            let (mut line, mut col) = line_col(m, f.span);
            let (mut instructions, mut cycle, mut witness) = (None, None, None);
            if let Some(v) = &fd.violation {
                let inst = |i: Inst, role: &str| {
                    let (line, col) = line_col(m, f.inst_span(converge_ir::InstId(i.0)));
                    InstructionRef {
                        role: role.to_string(),
                        text: llvm::inst_text(m, fd.func, i).trim_start().to_string(),
                        line,
                        col,
                    }
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
                (line, col) = line_col(m, f.inst_span(converge_ir::InstId(v.inst.0)));
                instructions = Some(insts);
                if let Some(c) = &v.cycle {
                    let names =
                        |bs: &[converge_graph::Block]| super::block_names(m, f, bs.iter().copied());
                    let mut blocks = names(&c.entries);
                    blocks.extend(names(&c.others));
                    cycle = Some(CycleJson {
                        depth: c.depth,
                        header: c
                            .entries
                            .first()
                            .map(|&h| m.block_name_in(f, h))
                            .unwrap_or_default(),
                        entries: names(&c.entries),
                        blocks,
                    });
                }
                if !v.witness.is_empty() {
                    witness = Some(names_of(m, f, &v.witness));
                }
            }
            FindingJson {
                function: m.str(f.name).to_string(),
                rule: rule.id().to_string(),
                catalogue: rule.catalogue().to_string(),
                message: rule.sentence().to_string(),
                problem: llvm::problem(m, fd),
                llvm_message: rule.llvm_message().to_string(),
                llvm_lines: llvm::llvm_lines(m, fd),
                line,
                col,
                instructions,
                cycle,
                witness,
            }
        })
        .collect();
    VerifyReport {
        schema: super::schema("verify"),
        file: file.to_string(),
        valid: findings.is_empty(),
        findings,
    }
}

fn names_of(m: &Module, f: &converge_ir::Function, bs: &[converge_graph::Block]) -> Vec<String> {
    super::block_names(m, f, bs.iter().copied())
}

/// LLVM's messages, then `input module is broken!` as `opt` ends when there is a finding.
pub fn llvm(m: &Module, file: &str, findings: &[Finding]) -> String {
    let mut s = llvm::llvm_report(m, findings);
    if !findings.is_empty() {
        s.push_str(&format!(
            "converge: {file}: error: input module is broken!\n"
        ));
    }
    s
}

/// Rustc-style diagnostics, then a one-line verdict (`checked` functions were verified).
pub fn text(m: &Module, file: &str, findings: &[Finding], checked: usize, p: Painter) -> String {
    let mut s = String::new();
    for fd in findings {
        let text = llvm::diagnostic(m, fd).render(file, &m.source);
        // The headline (`error[rule]: …`) painted; the excerpt and notes as rendered.
        match text.split_once('\n') {
            Some((head, rest)) if p.color => {
                s.push_str(&p.paint(Style::Error, head));
                s.push('\n');
                s.push_str(rest);
            }
            _ => s.push_str(&text),
        }
        s.push('\n');
    }
    if findings.is_empty() {
        s.push_str(&format!(
            "{file}: convergence control is valid ({checked} function{} checked)\n",
            if checked == 1 { "" } else { "s" }
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
