//! "Invalid IR is an error, not an answer" (issue 15), measured against LLVM's verifier through the
//! command line, live. Valid modules (the examples of `examples/` that LLVM 19 accepts, and random
//! programs of `converge_gen::program` for both targets) are mutated one textual change at a time,
//! and each mutant goes to `opt -passes=verify` of LLVM 19 and 22 and to `converge verify`:
//!
//! - an operand's or result's type changed (`i32` <-> `i64` at one place of one instruction);
//! - two adjacent lines of a block swapped (a use before its definition; a terminator that no
//!   longer ends its block);
//! - a used local replaced by another local of the function (types, dominance);
//! - a phi incoming dropped, or sent to another block (incomings against predecessors);
//! - an instruction moved to the top of another block (dominance across blocks; phis not first);
//! - a block's terminator deleted; a defining line duplicated (a redefinition).
//!
//! `converge verify` rejects a module with exit 2 (invalid IR, `file:line:col` and an excerpt on
//! stderr) or 1 (valid IR breaking the token rules, which `opt -passes=verify` checks too).
//! Asserted: no mutant both LLVMs accept is rejected; every exit 2 is located; the other
//! subcommands (`uniformity`, `cycles`, `stats`) refuse what `verify` refuses as invalid IR, with
//! exit 2; and accept/reject agrees with LLVM 19 and with LLVM 22 on every mutant (measured on
//! 1,500: docs/everyday-use.md). A disagreement is printed per kind with one example before the
//! assertion fails. `CONVERGE_INVALID_IR_CASES` sets the number of mutants (default 300).

mod common;

use converge_gen::program::{Flavor, Options, module};
use converge_gen::reference::{self, run_opt};
use converge_gen::rng::Rng;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn is_label(l: &str) -> bool {
    let head = l.split(';').next().unwrap_or("").trim_end();
    !l.starts_with(' ') && head.ends_with(':') && !head.contains(' ')
}

fn is_inst(l: &str) -> bool {
    l.starts_with("  ") && !l.trim_start().is_empty() && !l.trim_start().starts_with(';')
}

fn is_terminator(l: &str) -> bool {
    let t = l.trim_start();
    let op = t.split(" = ").nth(1).unwrap_or(t);
    [
        "br ",
        "ret",
        "switch ",
        "unreachable",
        "indirectbr ",
        "callbr ",
        "invoke ",
    ]
    .iter()
    .any(|w| op.starts_with(w))
}

fn is_phi(l: &str) -> bool {
    l.contains(" = phi ")
}

/// The lines of the function holding line `k`: (first body line, the closing `}`).
fn function_bounds(lines: &[String], k: usize) -> (usize, usize) {
    let start = (0..=k)
        .rev()
        .find(|&j| lines[j].starts_with("define"))
        .map_or(0, |j| j + 1);
    let end = (k..lines.len())
        .find(|&j| lines[j].starts_with('}'))
        .unwrap_or(lines.len());
    (start, end)
}

/// The block of line `k`: (its first line after the label, one past its last instruction).
fn block_bounds(lines: &[String], k: usize) -> (usize, usize) {
    let (fs, fe) = function_bounds(lines, k);
    let start = (fs..=k)
        .rev()
        .find(|&j| is_label(&lines[j]))
        .map_or(fs, |j| j + 1);
    let end = (k + 1..fe).find(|&j| is_label(&lines[j])).unwrap_or(fe);
    (start, end)
}

/// `%name` tokens of a line (locals; `@` globals are not locals).
fn locals(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let s = i + 1;
            let mut e = s;
            while e < b.len() && (b[e].is_ascii_alphanumeric() || matches!(b[e], b'.' | b'_')) {
                e += 1;
            }
            if e > s {
                v.push(line[s..e].to_string());
            }
            i = e;
        } else {
            i += 1;
        }
    }
    v
}

/// The opcode of an instruction line (`add`, `store`, `icmp`, …).
fn opcode(line: &str) -> String {
    let t = line.trim_start();
    let op = t.split_once(" = ").map_or(t, |(_, r)| r);
    let op = op.strip_prefix("tail ").unwrap_or(op);
    op.split(' ').next().unwrap_or("").to_string()
}

fn defined(line: &str) -> Option<String> {
    let t = line.trim_start();
    let (lhs, _) = t.split_once(" = ")?;
    lhs.strip_prefix('%').map(str::to_string)
}

/// Replaces the `n`-th whole-token occurrence of `from` (`%x`, `i32`) in `line`.
fn replace_token(line: &str, from: &str, to: &str, n: usize) -> Option<String> {
    let word = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_');
    let hits: Vec<usize> = line
        .match_indices(from)
        .map(|(i, _)| i)
        .filter(|&i| {
            let after = line.as_bytes().get(i + from.len()).copied();
            let before = i.checked_sub(1).map(|j| line.as_bytes()[j]);
            !(after.is_some_and(word) || from.starts_with('i') && before.is_some_and(word))
        })
        .collect();
    let at = *hits.get(n % hits.len().max(1))?;
    Some(format!("{}{to}{}", &line[..at], &line[at + from.len()..]))
}

/// One random mutation of `text`: the mutant and its kind (`None` when the kind drawn does not
/// apply to the line drawn).
fn mutate(rng: &mut Rng, text: &str) -> Option<(String, &'static str)> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let insts: Vec<usize> = (0..lines.len())
        .filter(|&k| is_inst(&lines[k]) && function_bounds(&lines, k).1 < lines.len())
        .filter(|&k| (0..k).any(|j| lines[j].starts_with("define")))
        .collect();
    if insts.is_empty() {
        return None;
    }
    let k = *rng.pick(&insts);
    let line = lines[k].clone();
    let kind = match rng.below(9) {
        0 | 1 => {
            // A type at one place: i32 <-> i64.
            let (from, to) = if rng.chance(1, 2) {
                ("i32", "i64")
            } else {
                ("i64", "i32")
            };
            lines[k] = replace_token(&line, from, to, rng.below(4))?;
            "type"
        }
        2 => {
            let next = k + 1;
            let (_, be) = block_bounds(&lines, k);
            if next >= be || !is_inst(&lines[next]) {
                return None;
            }
            lines.swap(k, next);
            if is_terminator(&lines[next]) || is_terminator(&lines[k]) {
                "swap-terminator"
            } else {
                "swap"
            }
        }
        3 => {
            let (fs, fe) = function_bounds(&lines, k);
            let mut defs: Vec<String> = (fs..fe).filter_map(|j| defined(&lines[j])).collect();
            defs.extend(locals(&lines[fs - 1]).into_iter().skip(1));
            let mut used = locals(&line);
            if defined(&line).is_some() {
                used.remove(0);
            }
            used.retain(|u| defs.contains(u));
            if used.is_empty() {
                return None;
            }
            let from = rng.pick(&used).clone();
            let to = rng.pick(&defs).clone();
            if from == to {
                return None;
            }
            let (lhs, rhs) = match line.split_once(" = ") {
                Some((l, r)) => (format!("{l} = "), r.to_string()),
                None => (String::new(), line.clone()),
            };
            lines[k] = format!(
                "{lhs}{}",
                replace_token(&rhs, &format!("%{from}"), &format!("%{to}"), 0)?
            );
            "operand"
        }
        4 | 5 => {
            if !is_phi(&line) {
                return None;
            }
            let open: Vec<usize> = line.match_indices(" [ ").map(|(i, _)| i).collect();
            let j = rng.below(open.len().max(1));
            let s = *open.get(j)?;
            let e = s + line[s..].find(" ]")? + 2;
            if rng.chance(1, 2) {
                if open.len() < 2 {
                    return None;
                }
                // Drop the incoming and its separating comma.
                let (a, b) = if j == 0 { (s, e + 1) } else { (s - 1, e) };
                lines[k] = format!("{}{}", &line[..a], &line[b..]);
                "phi-drop"
            } else {
                let (fs, fe) = function_bounds(&lines, k);
                let labels: Vec<String> = (fs..fe)
                    .filter(|&j| is_label(&lines[j]))
                    .map(|j| lines[j].split(':').next().unwrap().to_string())
                    .collect();
                let inc = &line[s..e];
                let at = inc.rfind('%')?;
                let to = rng.pick(&labels);
                lines[k] = format!("{}{}%{to} ]{}", &line[..s], &inc[..at], &line[e..]);
                "phi-block"
            }
        }
        6 => {
            // Move a non-terminator to the top of another block of the function.
            if is_terminator(&line) {
                return None;
            }
            let (fs, fe) = function_bounds(&lines, k);
            let starts: Vec<usize> = (fs..fe)
                .filter(|&j| is_label(&lines[j]))
                .map(|j| j + 1)
                .collect();
            let to = *rng.pick(&starts);
            let l = lines.remove(k);
            let to = if to > k { to - 1 } else { to };
            lines.insert(to, l);
            "move"
        }
        7 => {
            if !is_terminator(&line) {
                return None;
            }
            lines.remove(k);
            "drop-terminator"
        }
        _ => {
            defined(&line)?;
            lines.insert(k + 1, line.clone());
            "redefine"
        }
    };
    let out = lines.join("\n") + "\n";
    (out != text).then_some((out, kind))
}

/// The seeds: every example LLVM 19 accepts, and random programs for both targets.
fn seeds(opt19: &Path) -> Vec<(String, String)> {
    let root = reference::repo_root();
    let mut v = Vec::new();
    for f in reference::ll_files(&root.join("examples")) {
        let text = std::fs::read_to_string(&f).unwrap();
        if run_opt(opt19, &["-passes=verify", "-disable-output"], &text).success {
            v.push((f.display().to_string(), text));
        }
    }
    assert!(v.len() >= 6, "the examples are seeds ({})", v.len());
    for (k, flavor) in [Flavor::Amdgpu, Flavor::Nvptx].into_iter().enumerate() {
        let mut rng = Rng::new(41 + k as u64);
        let mut o = Options::new(flavor);
        o.unreachable = true;
        for s in 0..5 {
            v.push((
                format!("generated {flavor:?} #{s}"),
                module(&mut rng, 3, &o),
            ));
        }
    }
    v
}

fn converge(args: &[&str], file: &Path) -> common::Outcome {
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(args).arg(file);
    common::run(cmd, b"", LIMIT)
}

#[test]
fn invalid_ir_is_refused_as_llvm_refuses_it() {
    let (Some(opt19), Some(opt22)) = (
        reference::opt19("invalid_ir_vs_opt"),
        reference::opt22("invalid_ir_vs_opt"),
    ) else {
        return;
    };
    let cases: usize = std::env::var("CONVERGE_INVALID_IR_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let seeds = seeds(&opt19);
    let dir = reference::repo_root().join("build/invalid-ir");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("mutant-{}.ll", std::process::id()));
    let verify =
        |opt: &Path, text: &str| run_opt(opt, &["-passes=verify", "-disable-output"], text).success;
    // Seeds are valid for both: converge answers, exit 0.
    for (name, text) in &seeds {
        std::fs::write(&file, text).unwrap();
        let o = converge(&["verify", "--format", "none"], &file);
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr_str());
    }
    let mut rng = Rng::new(15);
    let (mut n, mut agree19, mut agree22, mut llvm_rejects, mut we_too) = (0, 0, 0, 0, 0);
    let mut by_kind: BTreeMap<&str, [usize; 2]> = BTreeMap::new();
    // (kind, who rejects, opcode of the first changed line) -> (count, one example: the changed
    // line and the rejecting side's message).
    let mut disagreements: BTreeMap<(&str, &str, String), (usize, String)> = BTreeMap::new();
    let mut tries = 0;
    while n < cases && tries < cases * 40 {
        tries += 1;
        let (_, seed) = rng.pick(&seeds);
        let Some((text, kind)) = mutate(&mut rng, seed) else {
            continue;
        };
        n += 1;
        std::fs::write(&file, &text).unwrap();
        let o = converge(&["verify", "--format", "none"], &file);
        let ours = match o.code {
            Some(0) => true,
            Some(1) | Some(2) => false,
            _ => panic!(
                "{kind}: converge verify ended {}:\n{text}",
                o.describe_end()
            ),
        };
        if o.code == Some(2) {
            // Located: `file:line:col` and an excerpt with a caret line.
            let e = o.stderr_str();
            let loc = format!("{}:", file.display());
            assert!(
                e.contains(&loc) && e.contains(" |"),
                "{kind}: exit 2 without a located excerpt:\n{e}"
            );
            // Every subcommand refuses it the same way (sampled: one mutant in eight).
            if n % 8 == 0 {
                for sub in [
                    &["uniformity"][..],
                    &["cycles"],
                    &["stats", "--format", "json"],
                ] {
                    let s = converge(sub, &file);
                    assert_eq!(
                        s.code,
                        Some(2),
                        "{sub:?} on a mutant ({kind}) verify refuses"
                    );
                    assert!(s.stdout.is_empty(), "{sub:?}: no answer for invalid IR");
                }
            }
        }
        let l19 = verify(&opt19, &text);
        let l22 = verify(&opt22, &text);
        assert!(
            ours || !(l19 && l22),
            "converge refuses a mutant ({kind}) that LLVM 19 and 22 accept:\n{}\n{text}",
            o.stderr_str()
        );
        agree19 += usize::from(ours == l19);
        agree22 += usize::from(ours == l22);
        let e = by_kind.entry(kind).or_default();
        e[0] += 1;
        e[1] += usize::from(ours == l19);
        if !l19 {
            llvm_rejects += 1;
            we_too += usize::from(!ours);
        }
        if ours != l19 {
            let who = if ours {
                "only LLVM 19 rejects"
            } else {
                "only converge rejects"
            };
            let before: Vec<&str> = seed.lines().collect();
            let changed = text
                .lines()
                .enumerate()
                .find(|(i, l)| before.get(*i) != Some(l))
                .map(|(_, l)| l.trim().to_string())
                .unwrap_or_default();
            let d = disagreements
                .entry((kind, who, opcode(&changed)))
                .or_insert_with(|| {
                    let msg = run_opt(&opt19, &["-passes=verify", "-disable-output"], &text).stderr;
                    let msg = msg.lines().next().unwrap_or("").to_string();
                    let why = if ours {
                        msg
                    } else {
                        o.stderr_str().lines().next().unwrap_or("").to_string()
                    };
                    (0, format!("`{changed}` — {why}"))
                });
            d.0 += 1;
        }
    }
    let _ = std::fs::remove_file(&file);
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    eprintln!(
        "invalid_ir_vs_opt: {n} mutants of {} seeds; accept/reject agrees with LLVM 19 on {agree19} ({:.1}%), with LLVM 22 on {agree22} ({:.1}%); LLVM 19 rejects {llvm_rejects}, converge {we_too} of them ({:.1}%)",
        seeds.len(),
        pct(agree19, n),
        pct(agree22, n),
        pct(we_too, llvm_rejects),
    );
    for (k, [t, a]) in &by_kind {
        eprintln!("  {k}: {t} mutants, {a} agree with LLVM 19");
    }
    for ((k, who, op), (c, ex)) in &disagreements {
        eprintln!("  disagreement {k} on `{op}`, {who}: {c}, e.g. {ex}");
    }
    assert!(n >= cases / 2, "enough mutants ({n} of {cases})");
    assert!(
        llvm_rejects * 3 >= n,
        "the mutants are mostly invalid ({llvm_rejects} of {n})"
    );
    assert!(
        agree19 == n && agree22 == n,
        "accept/reject agrees with LLVM 19 ({agree19} of {n}) and 22 ({agree22} of {n}) on every \
         mutant; the disagreements are listed above"
    );
}
