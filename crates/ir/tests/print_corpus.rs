//! `inst_text` on the LLVM test corpus as written (not canonicalised first) against
//! `opt -passes='print<uniformity>'`, live: LLVM 19 with the AMDGPU triple for AMDGPU files, LLVM 22
//! for the others (NVPTX, or no target). Every instruction of every function that LLVM prints must
//! appear, in order, as a whole line after the 13-column prefix. Files LLVM rejects are skipped.
//!
//! One difference is tolerated and counted: the name of an overloaded intrinsic, which LLVM
//! re-mangles on reading (`@llvm.amdgcn.readfirstlane(` → `.i32(`; AutoUpgrade, not modelled: it
//! needs LLVM's intrinsic tables, and newer LLVM prints some of these names unsuffixed).

use converge_ir::{InstId, Module};
use std::path::Path;

/// `@llvm.name.suffixes(` → `@llvm.*(`.
fn strip_intrinsic_names(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find("@llvm.") {
        out.push_str(&rest[..k]);
        out.push_str("@llvm.*");
        rest = &rest[k..];
        let end = rest.find(['(', ' ', ',', ')']).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Checks the functions LLVM printed in `out`; returns how many instructions were compared.
fn compare(
    m: &Module,
    out: &str,
    what: &str,
    failures: &mut Vec<String>,
    renamed: &mut usize,
) -> usize {
    let mut text = String::new();
    let mut compared = 0;
    for f in m.func_ids() {
        let func = m.func(f);
        if func.is_declaration {
            continue;
        }
        let header = format!("UniformityInfo for function '{}':\n", m.str(func.name));
        let Some(start) = out.find(&header) else {
            continue;
        };
        let section = &out[start + header.len()..];
        let section = &section[..section
            .find("UniformityInfo for function")
            .unwrap_or(section.len())];
        if section.starts_with("ALL VALUES UNIFORM") {
            continue;
        }
        let mut cursor = 0;
        for i in 0..func.insts.len() {
            text.clear();
            m.inst_text_into(&mut text, f, InstId(i as u32));
            compared += 1;
            let found = ["\n  DIVERGENT: ", "\n             "]
                .iter()
                .filter_map(|p| {
                    let needle = format!("{p}{text}\n");
                    section[cursor..]
                        .find(&needle)
                        .map(|k| cursor + k + needle.len() - 1)
                })
                .min();
            match found {
                Some(end) => cursor = end,
                None => {
                    let t = strip_intrinsic_names(&text);
                    let lines = strip_intrinsic_names(section);
                    if t.contains("@llvm.*")
                        && lines.lines().any(|l| l.get(13..) == Some(t.as_str()))
                    {
                        *renamed += 1;
                    } else {
                        failures.push(format!("{what}: converge printed {text:?}"));
                    }
                }
            }
        }
    }
    compared
}

#[test]
fn corpus_instructions_print_as_llvm_prints_them() {
    let Some(corpus) = converge_gen::reference::corpus("corpus printing") else {
        return;
    };
    let Some(opt19) = converge_gen::reference::opt19("corpus printing (LLVM 19)") else {
        return;
    };
    let Some(opt22) = converge_gen::reference::opt22("corpus printing (LLVM 22)") else {
        return;
    };
    let mut files = Vec::new();
    files.extend(converge_gen::reference::ll_files(
        &corpus.join("test/Analysis/UniformityAnalysis"),
    ));
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut renamed = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let amdgpu = file.components().any(|c| c.as_os_str() == "AMDGPU");
        let (opt, args): (&Path, Vec<&str>) = if amdgpu {
            (
                &opt19,
                vec![
                    "-mtriple=amdgcn-amd-amdhsa",
                    "-passes=print<uniformity>",
                    "-disable-output",
                ],
            )
        } else {
            (&opt22, vec!["-passes=print<uniformity>", "-disable-output"])
        };
        let r = converge_gen::reference::run_opt(opt, &args, &text);
        if !r.success {
            continue;
        }
        let name = file.display().to_string();
        // The module as opt saw it: `-mtriple` sets the triple (and so the default datalayout).
        let src = if amdgpu && !text.contains("target triple") {
            format!("target triple = \"amdgcn-amd-amdhsa\"\n{text}")
        } else {
            text
        };
        let Ok(m) = converge_ir::parse(&name, src) else {
            continue;
        };
        compared += compare(&m, &r.stderr, &name, &mut failures, &mut renamed);
    }
    eprintln!(
        "compared {compared} instructions in {} files ({renamed} differ only in a re-mangled \
         intrinsic name)",
        files.len()
    );
    assert!(compared > 500, "too few instructions compared: {compared}");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
