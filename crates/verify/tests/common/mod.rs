//! Shared plumbing of the verifier's agreement tests: running converge's verifier on module text,
//! reading LLVM's verifier report, and splitting a test file into one module per function.

#![allow(dead_code)] // each test binary uses a different subset

use converge_verify::Rule;
use converge_verify::llvm::{self, Finding, Flavor};
use std::path::Path;

/// Parses `text` and verifies it; panics with the parse diagnostic if the text does not parse.
pub fn converge_findings(text: &str, flavor: Flavor) -> (converge_ir::Module, Vec<Finding>) {
    let m = converge_ir::parse("test.ll", text.to_string()).unwrap_or_else(|d| {
        panic!(
            "converge cannot read the module:\n{}\n--- module ---\n{text}",
            d.render("test.ll", text)
        )
    });
    let f = llvm::verify_module(&m, flavor);
    (m, f)
}

/// One message of LLVM's verifier report with the value lines printed after it.
#[derive(Clone, Debug)]
pub struct LlvmMessage {
    pub message: String,
    pub values: Vec<String>,
}

impl LlvmMessage {
    /// The token rule this message reports, if it is one.
    pub fn rule(&self) -> Option<Rule> {
        Rule::from_llvm_message(&self.message)
    }
}

/// Whether a report line is a dumped value (instruction, block operand, cycle, global) rather than
/// a message.
fn is_value_line(l: &str) -> bool {
    l.starts_with(' ')
        || l.starts_with("depth=")
        || l.starts_with("label ")
        || l.starts_with("ptr ")
        || l.starts_with("token ")
}

/// Splits `opt -passes=verify` stderr into messages; drops the final "input module is broken" line.
pub fn parse_llvm_report(stderr: &str) -> Vec<LlvmMessage> {
    let mut out: Vec<LlvmMessage> = Vec::new();
    for l in stderr.lines() {
        if l.is_empty() || l.contains("input module is broken") {
            continue;
        }
        if is_value_line(l) {
            if let Some(last) = out.last_mut() {
                last.values.push(l.to_string());
            }
        } else {
            out.push(LlvmMessage {
                message: l.to_string(),
                values: Vec::new(),
            });
        }
    }
    out
}

/// Runs `opt -passes=verify` on `text`: whether it accepted, and its report.
pub fn llvm_verify(opt: &Path, text: &str) -> (bool, Vec<LlvmMessage>) {
    let o = converge_gen::reference::run_opt(opt, &["-passes=verify", "-disable-output"], text);
    (o.success, parse_llvm_report(&o.stderr))
}

/// The function index encoded in generated names (`%f12_t3`, `f12_b4`, `@f12_fn`).
pub fn function_index(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    for i in 0..b.len() {
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i] == b'f' && boundary {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < b.len() && b[j] == b'_' {
                return line[i + 1..j].parse().ok();
            }
        }
    }
    None
}

/// A test file split into modules of one function each: (function name, module text). Every module
/// keeps all declarations and attribute groups of the file.
pub fn split_functions(text: &str) -> Vec<(String, String)> {
    let mut shared = String::new();
    let mut fns: Vec<(String, String)> = Vec::new();
    let mut cur: Option<(String, String)> = None;
    for l in text.lines() {
        if let Some((_, body)) = &mut cur {
            body.push_str(l);
            body.push('\n');
            if l.starts_with('}') {
                fns.push(cur.take().unwrap());
            }
            continue;
        }
        if l.starts_with("define ") {
            let name = l
                .split('@')
                .nth(1)
                .and_then(|r| r.split('(').next())
                .unwrap_or("?")
                .to_string();
            cur = Some((name, format!("{l}\n")));
        } else if l.starts_with("declare ")
            || l.starts_with("attributes ")
            || l.starts_with("target ")
            || l.starts_with('!')
        {
            shared.push_str(l);
            shared.push('\n');
        }
    }
    fns.into_iter()
        .map(|(n, body)| (n, format!("{shared}\n{body}")))
        .collect()
}
