//! Invalid IR is an error: the reader's well-formedness checks (`wellformed.rs`: operand types,
//! definitions dominating uses, phi incomings matching predecessors, phis first) measured against
//! LLVM's verifier, live. Valid modules (random programs of `converge_gen::program` for both
//! targets, and LLVM corpus files) are mutated one textual change at a time (an instruction's type
//! changed, two instructions swapped, an operand replaced by another local, a phi incoming dropped
//! or redirected), and each mutant is given to `opt -passes=verify` of LLVM 19 and 22 and to the
//! reader.
//!
//! Asserted: the reader never rejects a mutant both LLVMs accept (no false rejection), every
//! unmutated input is read, and accept/reject agrees with LLVM 19 on every mutant (so the reader
//! rejects everything both LLVMs reject; measured on 1,500: docs/everyday-use.md).
//! `CONVERGE_WELLFORMED_CASES` sets the number of mutants (default 240), and
//! `CONVERGE_WELLFORMED_SHOW` prints LLVM's message for each mutant the reader misses.

use converge_gen::program::{Flavor, Options, module};
use converge_gen::reference::{self, run_opt};
use converge_gen::rng::Rng;

fn reads(text: &str) -> bool {
    converge_ir::parse_rendered_with("mutant.ll", text.to_string(), Some(false)).is_ok()
}

/// The local names an instruction line defines or uses, in order.
fn locals(line: &str) -> Vec<&str> {
    let mut v = Vec::new();
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let s = i + 1;
            let mut e = s;
            while e < b.len() && (b[e].is_ascii_alphanumeric() || matches!(b[e], b'.' | b'_')) {
                e += 1;
            }
            if e > s {
                v.push(&line[s..e]);
            }
            i = e;
        } else {
            i += 1;
        }
    }
    v
}

fn is_inst(l: &str) -> bool {
    l.starts_with("  ") && !l.trim_start().starts_with(';')
}

/// One random mutation of `text` (`None` when the chosen kind does not apply).
fn mutate(rng: &mut Rng, text: &str) -> Option<(String, &'static str)> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let insts: Vec<usize> = (0..lines.len()).filter(|&k| is_inst(&lines[k])).collect();
    if insts.is_empty() {
        return None;
    }
    let kind = rng.below(5);
    let k = *rng.pick(&insts);
    let line = lines[k].clone();
    let t = line.trim_start();
    match kind {
        0 => {
            // The type of a binary operator or comparison: i32 <-> i64.
            let (from, to) = if t.contains(" i32 ") {
                (" i32 ", " i64 ")
            } else if t.contains(" i64 ") {
                (" i64 ", " i32 ")
            } else {
                return None;
            };
            let op = t.split(" = ").nth(1)?.split(' ').next()?;
            if !matches!(
                op,
                "add" | "sub" | "mul" | "and" | "or" | "xor" | "icmp" | "select" | "phi" | "shl"
            ) {
                return None;
            }
            lines[k] = line.replacen(from, to, 1);
            Some((lines.join("\n") + "\n", "type"))
        }
        1 => {
            // Swap with the next instruction of the same block (neither a phi nor a terminator).
            let next = k + 1;
            let ok = |s: &str| {
                is_inst(s)
                    && !s.contains(" phi ")
                    && !["br ", "ret", "switch", "unreachable"]
                        .iter()
                        .any(|w| s.trim_start().starts_with(w))
            };
            if next >= lines.len() || !ok(&line) || !ok(&lines[next]) {
                return None;
            }
            lines.swap(k, next);
            Some((lines.join("\n") + "\n", "swap"))
        }
        2 => {
            // Replace a used local by another local of the same function.
            let (start, end) = function_bounds(&lines, k);
            let defs: Vec<String> = (start..end)
                .filter_map(|j| {
                    let s = lines[j].trim_start();
                    s.starts_with('%')
                        .then(|| s[1..].split(' ').next().unwrap().to_string())
                })
                .collect();
            let uses: Vec<&str> = {
                let v = locals(t);
                if t.starts_with('%') {
                    v[1..].to_vec()
                } else {
                    v
                }
            };
            let used: Vec<&str> = uses
                .into_iter()
                .filter(|u| defs.iter().any(|d| d == u))
                .collect();
            if used.is_empty() || defs.is_empty() {
                return None;
            }
            let from = *rng.pick(&used);
            let to = rng.pick(&defs).clone();
            if from == to {
                return None;
            }
            let (lhs, rhs) = match t.split_once(" = ") {
                Some((l, r)) => (format!("  {l} = "), r.to_string()),
                None => ("  ".to_string(), t.to_string()),
            };
            let pat = format!("%{from}");
            let pos = rhs
                .match_indices(&pat)
                .find(|(i, _)| {
                    let after = rhs.as_bytes().get(i + pat.len());
                    !after.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_'))
                })?
                .0;
            let new = format!("{}%{to}{}", &rhs[..pos], &rhs[pos + pat.len()..]);
            lines[k] = format!("{lhs}{new}");
            Some((lines.join("\n") + "\n", "operand"))
        }
        _ => {
            // A phi: drop one incoming (kind 3) or send one to another block (kind 4).
            if !t.contains(" phi ") {
                return None;
            }
            let open: Vec<usize> = line.match_indices(" [").map(|(i, _)| i).collect();
            if open.len() < 2 && kind == 3 {
                return None;
            }
            let j = rng.below(open.len());
            let s = open[j];
            let e = s + line[s..].find(']')? + 1;
            if kind == 3 {
                let mut new = String::new();
                new.push_str(&line[..s]);
                new.push_str(&line[e..]);
                lines[k] = new
                    .replace("],,", "],")
                    .replace(", ,", ",")
                    .trim_end_matches(',')
                    .to_string();
                if lines[k].ends_with(", ") {
                    return None;
                }
                let fixed = lines[k]
                    .replace(" phi i32 , [", " phi i32 [")
                    .replace(" phi i64 , [", " phi i64 [");
                lines[k] = fixed;
                Some((lines.join("\n") + "\n", "phi-drop"))
            } else {
                let (start, end) = function_bounds(&lines, k);
                let labels: Vec<String> = (start..end)
                    .filter_map(|j| {
                        let s = &lines[j];
                        (!s.starts_with(' ') && s.contains(':') && !s.starts_with("define"))
                            .then(|| s.split(':').next().unwrap().to_string())
                    })
                    .collect();
                if labels.is_empty() {
                    return None;
                }
                let to = rng.pick(&labels).clone();
                let inc = &line[s..e];
                let at = inc.rfind('%')?;
                let new_inc = format!("{}%{to} ]", &inc[..at]);
                lines[k] = format!("{}{}{}", &line[..s], new_inc, &line[e..]);
                if lines[k] == line {
                    return None;
                }
                Some((lines.join("\n") + "\n", "phi-block"))
            }
        }
    }
}

fn function_bounds(lines: &[String], k: usize) -> (usize, usize) {
    let start = (0..=k)
        .rev()
        .find(|&j| lines[j].starts_with("define"))
        .unwrap_or(0);
    let end = (k..lines.len())
        .find(|&j| lines[j] == "}")
        .unwrap_or(lines.len());
    (start, end)
}

#[test]
fn rejects_what_llvm_rejects() {
    let (Some(opt19), Some(opt22)) = (
        reference::opt19("wellformed_vs_opt"),
        reference::opt22("wellformed_vs_opt"),
    ) else {
        return;
    };
    let cases: usize = std::env::var("CONVERGE_WELLFORMED_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(240);
    let verify = |opt: &std::path::Path, text: &str| {
        run_opt(opt, &["-passes=verify", "-disable-output"], text).success
    };
    // Seeds: random programs for both targets, and a few corpus files LLVM 19 accepts.
    let mut seeds: Vec<String> = Vec::new();
    for (k, flavor) in [Flavor::Amdgpu, Flavor::Nvptx].into_iter().enumerate() {
        let mut rng = Rng::new(7 + k as u64);
        let mut o = Options::new(flavor);
        o.unreachable = true;
        for _ in 0..4 {
            seeds.push(module(&mut rng, 3, &o));
        }
    }
    if let Some(c) = reference::corpus("wellformed_vs_opt") {
        for f in reference::ll_files(&c.join("test/Analysis/UniformityAnalysis"))
            .iter()
            .step_by(9)
            .take(12)
        {
            let text = std::fs::read_to_string(f).unwrap();
            if verify(&opt19, &text) {
                seeds.push(text);
            }
        }
    }
    for s in &seeds {
        assert!(reads(s), "a valid module is read:\n{s}");
    }
    let mut rng = Rng::new(2024);
    let (mut n, mut both_reject, mut we_too, mut agree) = (0usize, 0usize, 0usize, 0usize);
    let mut missed: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut tries = 0;
    while n < cases && tries < cases * 50 {
        tries += 1;
        let seed = rng.pick(&seeds).clone();
        let Some((text, kind)) = mutate(&mut rng, &seed) else {
            continue;
        };
        if text == seed {
            continue;
        }
        n += 1;
        let ours = reads(&text);
        let l19 = verify(&opt19, &text);
        let l22 = verify(&opt22, &text);
        if !ours {
            assert!(
                !(l19 && l22),
                "the reader rejects a mutant ({kind}) that LLVM 19 and 22 accept:\n{text}\n{}",
                converge_ir::parse_rendered_with("mutant.ll", text.clone(), Some(false))
                    .err()
                    .unwrap_or_default()
            );
        }
        if ours == l19 {
            agree += 1;
        }
        if !l19 && !l22 {
            both_reject += 1;
            if !ours {
                we_too += 1;
            } else {
                *missed.entry(kind).or_default() += 1;
                if std::env::var_os("CONVERGE_WELLFORMED_SHOW").is_some() {
                    let e = run_opt(&opt19, &["-passes=verify", "-disable-output"], &text).stderr;
                    eprintln!(
                        "missed ({kind}): {}",
                        e.lines().take(3).collect::<Vec<_>>().join(" | ")
                    );
                }
            }
        }
    }
    eprintln!(
        "wellformed_vs_opt: {n} mutants of {} seeds; accept/reject agrees with opt 19 on {agree}; \
         LLVM 19 and 22 both reject {both_reject}, the reader rejects {we_too} of them; missed by kind: {missed:?}",
        seeds.len()
    );
    assert!(n >= cases / 2, "enough mutants ({n})");
    assert!(
        we_too == both_reject && agree == n,
        "the reader rejects everything LLVM 19 and 22 reject ({we_too}/{both_reject}) and agrees \
         with LLVM 19 on every mutant ({agree}/{n}); missed: {missed:?} (CONVERGE_WELLFORMED_SHOW=1 \
         prints LLVM's messages)"
    );
}
