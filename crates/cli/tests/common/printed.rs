//! Reads the report of `opt -passes='print<uniformity>'` (and `converge uniformity --format
//! llvm`, which reproduces it) into per-function divergent sets, so two reports can be compared by
//! position (function, block, index in the block) instead of by the exact printed text, which
//! differs between LLVM versions (intrinsic auto-upgrades, attribute spellings).

use std::collections::{BTreeMap, BTreeSet};

/// One value line of a BLOCK section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub divergent: bool,
    pub text: String,
}

/// One function's report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The printed divergent arguments (`i32 %x`).
    pub divergent_args: Vec<String>,
    /// Blocks in print order: name and its definitions followed by its terminators.
    pub blocks: Vec<(String, Vec<Entry>)>,
    /// `ALL VALUES UNIFORM` was printed instead of blocks.
    pub all_uniform: bool,
    /// CYCLES ASSUMED DIVERGENT (19 spells it ASSSUMED), normalized by [`norm_cycle`].
    pub assumed_divergent: BTreeSet<String>,
    /// CYCLES WITH DIVERGENT EXIT, normalized.
    pub divergent_exit: BTreeSet<String>,
    /// TEMPORAL DIVERGENCE LIST (LLVM 22): (value, user, cycle), each by [`value_key`] and
    /// [`norm_cycle`]. `None` when the section was not printed (LLVM 19 has none).
    pub temporal: Option<BTreeSet<(String, String, String)>>,
}

/// A printed cycle (`depth=1: entries(A B) C D`) as depth, sorted entries and sorted other
/// blocks: the print order of blocks differs between LLVM versions, the cycle does not.
pub fn norm_cycle(line: &str) -> String {
    let t = line.trim();
    let (depth, rest) = t.split_once(':').unwrap_or(("", t));
    let rest = rest.trim();
    let (entries, blocks) = match rest
        .strip_prefix("entries(")
        .and_then(|r| r.split_once(')'))
    {
        Some((e, b)) => (e, b),
        None => ("", rest),
    };
    let mut e: Vec<&str> = entries.split_whitespace().collect();
    let mut b: Vec<&str> = blocks.split_whitespace().collect();
    e.sort_unstable();
    b.sort_unstable();
    format!("{depth}: entries({}) {}", e.join(" "), b.join(" "))
}

/// An instruction of the temporal divergence list by its result name (`%x`), or by its text when
/// it has none (a store, a call returning void), without the metadata attachments and attribute
/// group that LLVM versions number differently (`, !tbaa !8`, `#3`).
pub fn value_key(text: &str) -> String {
    let t = text.trim();
    if let Some((name, _)) = t.split_once(" = ")
        && name.starts_with('%')
    {
        return name.to_string();
    }
    let t = t.split(", !").next().unwrap_or(t).trim_end();
    match t.rsplit_once(" #") {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => t.to_string(),
    }
}

impl Report {
    /// (block, index) of every divergent definition or terminator.
    pub fn divergent_positions(&self) -> BTreeMap<(String, usize), String> {
        let mut m = BTreeMap::new();
        for (b, es) in &self.blocks {
            for (i, e) in es.iter().enumerate() {
                if e.divergent {
                    m.insert((b.clone(), i), e.text.clone());
                }
            }
        }
        m
    }
    /// The names (`%x`) of the divergent arguments.
    pub fn divergent_arg_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .divergent_args
            .iter()
            .map(|a| a.rsplit(' ').next().unwrap_or(a).to_string())
            .collect();
        v.sort();
        v
    }
}

/// Parses a whole report; functions by name.
pub fn parse_uniformity(text: &str) -> BTreeMap<String, Report> {
    let mut out: BTreeMap<String, Report> = BTreeMap::new();
    let mut cur: Option<String> = None;
    let mut in_args = false;
    let mut in_block = false;
    // Which cycle list the `depth=` lines belong to: 1 assumed divergent, 2 divergent exit.
    let mut cycle_list = 0u8;
    let mut pending_value: Option<String> = None;
    let mut pending_user: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("UniformityInfo for function '") {
            let name = rest
                .trim_end_matches(':')
                .trim_end_matches('\'')
                .to_string();
            out.entry(name.clone()).or_default();
            cur = Some(name);
            in_args = false;
            in_block = false;
            continue;
        }
        let Some(f) = cur.as_ref().and_then(|n| out.get_mut(n)) else {
            continue;
        };
        let t = line.trim();
        if t == "ALL VALUES UNIFORM" {
            f.all_uniform = true;
            continue;
        }
        if t == "DIVERGENT ARGUMENTS:" {
            in_args = true;
            cycle_list = 0;
            continue;
        }
        if t == "CYCLES ASSUMED DIVERGENT:" || t == "CYCLES ASSSUMED DIVERGENT:" {
            cycle_list = 1;
            in_args = false;
            continue;
        }
        if t == "CYCLES WITH DIVERGENT EXIT:" {
            cycle_list = 2;
            in_args = false;
            continue;
        }
        if t == "TEMPORAL DIVERGENCE LIST:" {
            f.temporal.get_or_insert_with(BTreeSet::new);
            cycle_list = 0;
            in_args = false;
            continue;
        }
        if !in_block {
            if let Some(v) = t.strip_prefix("Value") {
                pending_value = Some(value_key(v.trim_start().trim_start_matches(':')));
                continue;
            }
            if let Some(u) = t.strip_prefix("Used by") {
                pending_user = Some(value_key(u.trim_start().trim_start_matches(':')));
                continue;
            }
            if let Some(c) = t.strip_prefix("Outside cycle") {
                let c = norm_cycle(c.trim_start().trim_start_matches(':'));
                if let (Some(v), Some(u)) = (pending_value.take(), pending_user.take()) {
                    f.temporal
                        .get_or_insert_with(BTreeSet::new)
                        .insert((v, u, c));
                }
                continue;
            }
            if t.starts_with("depth=") {
                match cycle_list {
                    1 => {
                        f.assumed_divergent.insert(norm_cycle(t));
                    }
                    2 => {
                        f.divergent_exit.insert(norm_cycle(t));
                    }
                    _ => {}
                }
                continue;
            }
            if t.is_empty() {
                cycle_list = 0;
            }
        }
        if let Some(b) = line.strip_prefix("BLOCK ") {
            f.blocks.push((b.trim().to_string(), Vec::new()));
            in_block = true;
            in_args = false;
            cycle_list = 0;
            continue;
        }
        if t == "END BLOCK" {
            in_block = false;
            continue;
        }
        if in_block {
            if t == "DEFINITIONS" || t == "TERMINATORS" || t.is_empty() {
                continue;
            }
            let (divergent, text) = match t.strip_prefix("DIVERGENT:") {
                Some(r) => (true, r.trim().to_string()),
                None => (false, t.to_string()),
            };
            if let Some((_, es)) = f.blocks.last_mut() {
                es.push(Entry { divergent, text });
            }
            continue;
        }
        if in_args {
            match t.strip_prefix("DIVERGENT:") {
                Some(a) => f.divergent_args.push(a.trim().to_string()),
                None => in_args = false,
            }
        }
    }
    out
}

/// Differences between two reports (`a` is converge, `b` the reference), readable, empty when
/// the divergent sets, the cycle lists and (when `temporal`: the reference is LLVM 22, which
/// prints the list whenever it is not empty) the temporal divergence triples agree.
pub fn diff(
    a: &BTreeMap<String, Report>,
    b: &BTreeMap<String, Report>,
    temporal: bool,
) -> Vec<String> {
    let mut d = Vec::new();
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for n in names {
        let (Some(ra), Some(rb)) = (a.get(n), b.get(n)) else {
            d.push(format!(
                "@{n}: reported by {} only",
                if a.contains_key(n) {
                    "converge"
                } else {
                    "the reference"
                }
            ));
            continue;
        };
        if ra.divergent_arg_names() != rb.divergent_arg_names() {
            d.push(format!(
                "@{n}: divergent arguments {:?} vs reference {:?}",
                ra.divergent_arg_names(),
                rb.divergent_arg_names()
            ));
        }
        for (what, x, y) in [
            (
                "cycles assumed divergent",
                &ra.assumed_divergent,
                &rb.assumed_divergent,
            ),
            (
                "cycles with divergent exit",
                &ra.divergent_exit,
                &rb.divergent_exit,
            ),
        ] {
            if x != y {
                d.push(format!("@{n}: {what} {x:?} vs reference {y:?}"));
            }
        }
        if temporal {
            let empty = BTreeSet::new();
            let ta = ra.temporal.as_ref().unwrap_or(&empty);
            let tb = rb.temporal.as_ref().unwrap_or(&empty);
            if ta != tb {
                d.push(format!(
                    "@{n}: temporal divergence {ta:?} vs reference {tb:?}"
                ));
            }
        }
        let pa = ra.divergent_positions();
        let pb = rb.divergent_positions();
        let text_b = |k: &(String, usize)| {
            rb.blocks
                .iter()
                .find(|(bn, _)| *bn == k.0)
                .and_then(|(_, es)| es.get(k.1))
                .map(|e| e.text.clone())
        };
        for (k, t) in &pa {
            if !pb.contains_key(k) {
                d.push(format!(
                    "@{n} block {} #{}: converge DIVERGENT, reference uniform: {}",
                    k.0,
                    k.1,
                    text_b(k).unwrap_or_else(|| t.clone())
                ));
            }
        }
        for (k, t) in &pb {
            if !pa.contains_key(k) {
                d.push(format!(
                    "@{n} block {} #{}: converge uniform, reference DIVERGENT: {t}",
                    k.0, k.1
                ));
            }
        }
    }
    d
}
