//! Reading `print<uniformity>` output (from `opt` or `converge --format llvm`) into comparable facts,
//! and the differential driver shared by the uniformity test binaries.
//!
//! Orders that LLVM takes from hash sets or the worklist are compared as sets: divergent arguments,
//! cycles with a divergent exit, the temporal-divergence triples, and the *maximal* cycles assumed
//! divergent (whether nested cycles are listed too depends on worklist order).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// A cycle as printed: depth, header, entries and blocks (as sets).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CycleFact {
    pub depth: u32,
    pub header: String,
    pub entries: BTreeSet<String>,
    pub blocks: BTreeSet<String>,
}

impl CycleFact {
    pub fn parse(s: &str) -> CycleFact {
        let s = s.trim();
        let (d, rest) = s.split_once(": entries(").unwrap_or(("depth=0", s));
        let depth = d.trim_start_matches("depth=").parse().unwrap_or(0);
        let (ents, blocks) = rest.split_once(')').unwrap_or((rest, ""));
        let ents: Vec<String> = ents.split_whitespace().map(str::to_string).collect();
        let mut all: BTreeSet<String> = blocks.split_whitespace().map(str::to_string).collect();
        all.extend(ents.iter().cloned());
        CycleFact {
            depth,
            header: ents.first().cloned().unwrap_or_default(),
            entries: ents.into_iter().collect(),
            blocks: all,
        }
    }
    fn contains(&self, o: &CycleFact) -> bool {
        o.blocks.is_subset(&self.blocks)
    }
}

/// One item of a BLOCK section: divergent flag and the instruction text (whitespace-normalised).
pub type Item = (bool, String);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnFacts {
    pub all_uniform: bool,
    pub args: BTreeSet<String>,
    pub assumed_maximal: BTreeSet<CycleFact>,
    pub exit_cycles: BTreeSet<CycleFact>,
    pub temporal: BTreeSet<(String, String, CycleFact)>,
    /// (block name, definitions, terminator)
    pub blocks: Vec<(String, Vec<Item>, Vec<Item>)>,
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses every `UniformityInfo for function` section, keyed by function name.
pub fn parse(text: &str) -> BTreeMap<String, FnFacts> {
    let mut out = BTreeMap::new();
    let mut cur: Option<(String, FnFacts)> = None;
    let mut section = "";
    let mut assumed: Vec<CycleFact> = Vec::new();
    let mut temporal: Vec<String> = Vec::new();
    let finish = |cur: &mut Option<(String, FnFacts)>,
                  assumed: &mut Vec<CycleFact>,
                  out: &mut BTreeMap<String, FnFacts>| {
        if let Some((name, mut f)) = cur.take() {
            for c in assumed.iter() {
                if !assumed.iter().any(|o| o != c && o.contains(c)) {
                    f.assumed_maximal.insert(c.clone());
                }
            }
            assumed.clear();
            out.insert(name, f);
        }
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("UniformityInfo for function '") {
            finish(&mut cur, &mut assumed, &mut out);
            let name = rest.trim_end_matches("':").to_string();
            cur = Some((name, FnFacts::default()));
            section = "";
            continue;
        }
        let Some((_, f)) = cur.as_mut() else { continue };
        match line {
            "ALL VALUES UNIFORM" => {
                f.all_uniform = true;
                continue;
            }
            "DIVERGENT ARGUMENTS:" => {
                section = "args";
                continue;
            }
            "CYCLES ASSUMED DIVERGENT:" | "CYCLES ASSSUMED DIVERGENT:" => {
                section = "assumed";
                continue;
            }
            "CYCLES WITH DIVERGENT EXIT:" => {
                section = "exits";
                continue;
            }
            "TEMPORAL DIVERGENCE LIST:" => {
                section = "temporal";
                continue;
            }
            "DEFINITIONS" => {
                section = "defs";
                continue;
            }
            "TERMINATORS" => {
                section = "terms";
                continue;
            }
            "END BLOCK" => {
                section = "";
                continue;
            }
            _ => {}
        }
        if let Some(b) = line.strip_prefix("BLOCK ") {
            f.blocks.push((b.to_string(), Vec::new(), Vec::new()));
            continue;
        }
        match section {
            "args" => {
                if let Some(a) = line.strip_prefix("  DIVERGENT: ") {
                    f.args.insert(norm(a));
                }
            }
            "assumed" if !line.is_empty() => assumed.push(CycleFact::parse(line)),
            "exits" if !line.is_empty() => {
                f.exit_cycles.insert(CycleFact::parse(line));
            }
            "temporal" => {
                if let Some(v) = line.strip_prefix("Value         :") {
                    temporal.clear();
                    temporal.push(norm(v));
                } else if let Some(u) = line.strip_prefix("Used by       :") {
                    temporal.push(norm(u));
                } else if let Some(c) = line.strip_prefix("Outside cycle :") {
                    if temporal.len() == 2 {
                        f.temporal.insert((
                            temporal[0].clone(),
                            temporal[1].clone(),
                            CycleFact::parse(c),
                        ));
                    }
                    temporal.clear();
                }
            }
            "defs" | "terms" => {
                let item = if let Some(t) = line.strip_prefix("  DIVERGENT: ") {
                    Some((true, t))
                } else if line.len() > 13 && line.starts_with("             ") {
                    Some((false, &line[13..]))
                } else {
                    None
                };
                let Some(last) = f.blocks.last_mut() else {
                    continue;
                };
                let list = if section == "defs" {
                    &mut last.1
                } else {
                    &mut last.2
                };
                match item {
                    Some((d, t)) => list.push((d, norm(t))),
                    // A continuation line of a multi-line instruction (switch, invoke).
                    None => {
                        if let Some(prev) = list.last_mut() {
                            prev.1.push(' ');
                            prev.1.push_str(&norm(line));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    finish(&mut cur, &mut assumed, &mut out);
    out
}

/// Describes the first difference between two functions' facts, if any. `compare_text` also
/// requires the printed instruction text to agree.
pub fn diff(ours: &FnFacts, theirs: &FnFacts, compare_text: bool) -> Option<String> {
    if ours.args != theirs.args {
        return Some(format!(
            "divergent arguments: ours {:?}, reference {:?}",
            ours.args, theirs.args
        ));
    }
    if ours.assumed_maximal != theirs.assumed_maximal {
        return Some(format!(
            "cycles assumed divergent (maximal): ours {:?}, reference {:?}",
            ours.assumed_maximal, theirs.assumed_maximal
        ));
    }
    if ours.exit_cycles != theirs.exit_cycles {
        return Some(format!(
            "cycles with divergent exit: ours {:?}, reference {:?}",
            ours.exit_cycles, theirs.exit_cycles
        ));
    }
    // LLVM skips the temporal-divergence sweep of an exit cycle that lies inside a cycle already
    // assumed divergent *at that moment*, which depends on worklist and pointer-hash order (opt's
    // own output varies between runs); such triples are not compared.
    let stable =
        |t: &BTreeSet<(String, String, CycleFact)>| -> BTreeSet<(String, String, CycleFact)> {
            t.iter()
                .filter(|(_, _, c)| !theirs.assumed_maximal.iter().any(|a| a.contains(c)))
                .cloned()
                .collect()
        };
    let (ot, tt) = (stable(&ours.temporal), stable(&theirs.temporal));
    if ot != tt {
        let a: Vec<_> = ot.difference(&tt).collect();
        let b: Vec<_> = tt.difference(&ot).collect();
        return Some(format!(
            "temporal divergence: only ours {a:?}; only reference {b:?}"
        ));
    }
    if ours.all_uniform != theirs.all_uniform {
        return Some(format!(
            "ALL VALUES UNIFORM: ours {}, reference {}",
            ours.all_uniform, theirs.all_uniform
        ));
    }
    if ours.blocks.len() != theirs.blocks.len() {
        return Some(format!(
            "{} blocks printed, reference {}",
            ours.blocks.len(),
            theirs.blocks.len()
        ));
    }
    for (a, b) in ours.blocks.iter().zip(&theirs.blocks) {
        if a.0 != b.0 {
            return Some(format!("block {} vs reference {}", a.0, b.0));
        }
        for (what, x, y) in [("definitions", &a.1, &b.1), ("terminators", &a.2, &b.2)] {
            if x.len() != y.len() {
                return Some(format!("block {}: {} {what} vs {}", a.0, x.len(), y.len()));
            }
            for (p, q) in x.iter().zip(y) {
                if p.0 != q.0 || (compare_text && p.1 != q.1) {
                    return Some(format!(
                        "block {}: ours {}{}; reference {}{}",
                        a.0,
                        if p.0 { "DIVERGENT: " } else { "" },
                        p.1,
                        if q.0 { "DIVERGENT: " } else { "" },
                        q.1
                    ));
                }
            }
        }
    }
    None
}

/// The text of `define ... @name(...) { ... }` in a module, for reproducers.
pub fn function_text(module: &str, name: &str) -> String {
    let key = format!("@{name}(");
    let Some(start) = module
        .match_indices("define ")
        .map(|(i, _)| i)
        .find(|&i| module[i..].lines().next().is_some_and(|l| l.contains(&key)))
    else {
        return String::new();
    };
    let end = module[start..]
        .find("\n}\n")
        .map_or(module.len(), |e| start + e + 3);
    module[start..end].to_string()
}

/// Runs a printer command and returns its stdout+stderr.
pub fn run_printer(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run printer");
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "printer failed: {cmd:?}\n{s}");
    s
}

/// Runs `opt -passes=print<uniformity>` on a file.
pub fn opt_uniformity(opt: &Path, file: &Path) -> String {
    run_printer(
        Command::new(opt)
            .arg("-passes=print<uniformity>")
            .arg("-disable-output")
            .arg(file),
    )
}

/// Runs `converge uniformity --format llvm` on a file.
pub fn converge_uniformity(file: &Path, extra: &[&str]) -> String {
    run_printer(
        Command::new(crate::common::converge_bin())
            .arg("uniformity")
            .arg("--format")
            .arg("llvm")
            .args(extra)
            .arg(file),
    )
}
