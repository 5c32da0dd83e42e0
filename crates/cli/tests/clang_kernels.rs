//! Real compiler output: the OpenCL C kernels of `examples/kernels/` compiled at test time by
//! clang 19 for AMDGPU (gfx90a) and NVPTX (sm_70), at -O0 and -O3, then read by converge.
//!
//! - `converge stats` must read every module (exit 0).
//! - `converge cycles --format llvm` must print what `opt -passes='print<cycles>'` prints.
//! - `converge uniformity --format llvm` must agree with `opt -passes='print<uniformity>'` on the
//!   divergent arguments and the divergent definitions and terminators of every function, compared
//!   by position (function, block, index in the block). NVPTX modules are compared with LLVM 22
//!   when it is installed (it is the reference where 19 and 22 differ), otherwise with LLVM 19;
//!   AMDGPU modules with LLVM 19 (the LLVM 22 build has no AMDGPU target).
//!
//! The compiled modules stay in `build/clang-kernels/` for inspection. Tools are located through
//! `converge_gen::reference` (SKIPPED without them, a failure in CI).

mod common;

use common::kernels::{LEVELS, TARGETS, compile, sources};
use common::printed;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::kernels::LIMIT;

/// The reference `opt`s: LLVM 22 for NVPTX when present (it is the reference where 19 and 22
/// differ), LLVM 19 otherwise and for AMDGPU (the LLVM 22 build has no AMDGPU target).
struct References {
    opt19: Option<PathBuf>,
    opt22: Option<PathBuf>,
}

impl References {
    fn locate(what: &str) -> References {
        References {
            opt19: converge_gen::reference::opt19(what),
            // Without LLVM 22, NVPTX falls back to LLVM 19 (in CI its absence fails here).
            opt22: converge_gen::reference::opt22(&format!("{what} (NVPTX reference)")),
        }
    }
    fn pick(&self, nvptx: bool) -> Option<(&'static str, &Path)> {
        match (&self.opt22, &self.opt19) {
            (Some(o), _) if nvptx => Some(("LLVM 22", o)),
            (_, Some(o)) => Some(("LLVM 19", o)),
            _ => None,
        }
    }
}

enum Compared {
    /// Same divergent sets; the number of functions compared.
    Same(usize),
    NoReference,
    Problem(String),
}

/// Runs `converge uniformity --format llvm` and the reference `print<uniformity>` on one module
/// and compares the divergent arguments, definitions and terminators by position.
fn compare_uniformity(converge: &Path, ll: &Path, nvptx: bool, refs: &References) -> Compared {
    let mut cmd = Command::new(converge);
    cmd.args(["uniformity", "--format", "llvm"]).arg(ll);
    let ours = common::run(cmd, b"", LIMIT);
    if !ours.success() {
        return Compared::Problem(format!(
            "converge uniformity {}: {}",
            ours.describe_end(),
            common::head(&ours.stderr_str(), 8)
        ));
    }
    let Some((ref_name, reference)) = refs.pick(nvptx) else {
        return Compared::NoReference; // opt19() already printed SKIPPED
    };
    let mut cmd = Command::new(reference);
    cmd.args(["-passes=print<uniformity>", "-disable-output"])
        .arg(ll);
    let theirs = common::run(cmd, b"", LIMIT);
    if !theirs.success() {
        return Compared::Problem(format!(
            "{ref_name} opt {}: {}",
            theirs.describe_end(),
            common::head(&theirs.stderr_str(), 8)
        ));
    }
    let a = printed::parse_uniformity(&ours.stdout_str());
    let b = printed::parse_uniformity(&theirs.stderr_str());
    if b.is_empty() {
        return Compared::Problem(format!(
            "no function in {ref_name}'s report:\n{}",
            theirs.stderr_str()
        ));
    }
    let d = printed::diff(&a, &b, ref_name == "LLVM 22");
    if d.is_empty() {
        Compared::Same(b.len())
    } else {
        Compared::Problem(format!(
            "divergent sets differ from {ref_name} ({} differences; module {}):\n  {}",
            d.len(),
            ll.display(),
            d.iter().take(20).cloned().collect::<Vec<_>>().join("\n  ")
        ))
    }
}

/// `converge cycles --format llvm` against `opt -passes='print<cycles>'`, text for text (the
/// cycle hierarchy does not depend on the target; LLVM 22 when present, it is the reference).
fn compare_cycles(converge: &Path, ll: &Path, refs: &References) -> Compared {
    let mut cmd = Command::new(converge);
    cmd.args(["cycles", "--format", "llvm"]).arg(ll);
    let ours = common::run(cmd, b"", LIMIT);
    if !ours.success() {
        return Compared::Problem(format!(
            "converge cycles {}: {}",
            ours.describe_end(),
            common::head(&ours.stderr_str(), 8)
        ));
    }
    let Some((ref_name, reference)) = refs.pick(true) else {
        return Compared::NoReference;
    };
    let mut cmd = Command::new(reference);
    cmd.args(["-passes=print<cycles>", "-disable-output"])
        .arg(ll);
    let theirs = common::run(cmd, b"", LIMIT);
    // LLVM 22 warns that it has no AMDGPU target; the warning is not part of the report.
    let theirs_text: String = theirs
        .stderr_str()
        .lines()
        .filter(|l| !l.contains("WARNING: failed to create target machine"))
        .map(|l| format!("{l}\n"))
        .collect();
    if !theirs.success() {
        return Compared::Problem(format!(
            "{ref_name} opt {}: {theirs_text}",
            theirs.describe_end()
        ));
    }
    let ours_text = ours.stdout_str();
    if ours_text == theirs_text {
        return Compared::Same(0);
    }
    let first = ours_text
        .lines()
        .zip(theirs_text.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(ours_text.lines().count().min(theirs_text.lines().count()));
    Compared::Problem(format!(
        "`converge cycles --format llvm` differs from {ref_name} at line {}: `{}` vs `{}`",
        first + 1,
        ours_text.lines().nth(first).unwrap_or("<end>"),
        theirs_text.lines().nth(first).unwrap_or("<end>")
    ))
}

#[test]
fn clang_kernels() {
    let Some(clang) = converge_gen::reference::clang19("clang_kernels") else {
        return;
    };
    let refs = References::locate("clang_kernels");
    let converge = common::converge_bin();
    let out_dir = converge_gen::reference::repo_root().join("build/clang-kernels");
    std::fs::create_dir_all(&out_dir).expect("create build/clang-kernels");
    let srcs = sources();
    assert!(
        srcs.len() >= 5,
        "expected the kernels of examples/kernels, found {srcs:?}"
    );

    let mut failures: Vec<String> = Vec::new();
    let mut compared = 0usize;
    let mut functions = 0usize;
    let mut cycles_compared = 0usize;
    let mut modules = 0usize;
    for src in &srcs {
        let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        for (tname, flags) in TARGETS {
            for level in LEVELS {
                let ll = out_dir.join(format!("{stem}.{tname}{level}.ll"));
                let label = format!("{stem}.cl {tname} {level}");
                if let Err(e) = compile(&clang, src, flags, level, &ll) {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
                modules += 1;

                let mut cmd = Command::new(&converge);
                cmd.arg("stats").arg(&ll);
                let o = common::run(cmd, b"", LIMIT);
                if !o.success() {
                    failures.push(format!(
                        "{label}: converge stats {}: {}",
                        o.describe_end(),
                        common::head(&o.stderr_str(), 8)
                    ));
                }

                let nvptx = tname.starts_with("nvptx");
                match compare_uniformity(&converge, &ll, nvptx, &refs) {
                    Compared::Same(n) => {
                        compared += 1;
                        functions += n;
                    }
                    Compared::NoReference => {}
                    Compared::Problem(p) => failures.push(format!("{label}: {p}")),
                }
                match compare_cycles(&converge, &ll, &refs) {
                    Compared::Same(_) => cycles_compared += 1,
                    Compared::NoReference => {}
                    Compared::Problem(p) => failures.push(format!("{label}: {p}")),
                }
            }
        }
    }
    println!(
        "clang kernels: {modules} modules compiled from {} files; uniformity compared on {compared} modules ({functions} functions), cycles on {cycles_compared}",
        srcs.len()
    );
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The hand-written `examples/*.ll`: each is what its comment says (valid for LLVM 19 and 22, or,
/// for `tokens-invalid.ll`, rejected by both), converge's verify agrees on validity (exit 0 or 1),
/// and converge's uniformity agrees with the reference on the valid ones.
#[test]
fn example_modules() {
    let refs = References::locate("example_modules");
    let converge = common::converge_bin();
    let dir = converge_gen::reference::repo_root().join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [
        "divergent-loop.ll",
        "nvptx-kernel.ll",
        "tokens-valid.ll",
        "tokens-invalid.ll",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "examples/{want} is missing"
        );
    }
    let mut failures = Vec::new();
    for (f, name) in files.iter().zip(&names) {
        let valid = !name.contains("invalid");
        let text = std::fs::read_to_string(f).expect("read example");
        let nvptx = text.contains("target triple = \"nvptx");
        for (ver, opt) in [("LLVM 19", &refs.opt19), ("LLVM 22", &refs.opt22)] {
            let Some(opt) = opt else { continue };
            let mut cmd = Command::new(opt);
            cmd.args(["-passes=verify", "-disable-output"]).arg(f);
            let o = common::run(cmd, b"", LIMIT);
            if o.success() != valid {
                failures.push(format!(
                    "{name}: {ver} verify {} but the example is meant to be {}: {}",
                    o.describe_end(),
                    if valid { "valid" } else { "invalid" },
                    common::head(&o.stderr_str(), 6)
                ));
            }
        }
        let mut cmd = Command::new(&converge);
        cmd.args(["verify", "--format", "none"]).arg(f);
        let o = common::run(cmd, b"", LIMIT);
        let msg = o.stderr_str();
        if o.code != Some(if valid { 0 } else { 1 }) {
            failures.push(format!(
                "{name}: converge verify {} (want exit {}): {}",
                o.describe_end(),
                if valid { 0 } else { 1 },
                common::head(&msg, 6)
            ));
        }
        if !valid && o.code == Some(1) {
            // The messages themselves, in LLVM's words and order (the reference's last line names
            // the program, so it is left out on both sides).
            let keep = |s: &str| -> Vec<String> {
                s.lines()
                    .filter(|l| !l.contains("input module is broken"))
                    .map(String::from)
                    .collect()
            };
            let mut cmd = Command::new(&converge);
            cmd.args(["verify", "--format", "llvm"]).arg(f);
            let ours = common::run(cmd, b"", LIMIT);
            let ours_text = format!("{}{}", ours.stdout_str(), ours.stderr_str());
            for (ver, opt) in [("LLVM 22", &refs.opt22), ("LLVM 19", &refs.opt19)] {
                let Some(opt) = opt else { continue };
                let mut cmd = Command::new(opt);
                cmd.args(["-passes=verify", "-disable-output"]).arg(f);
                let theirs = common::run(cmd, b"", LIMIT);
                if keep(&ours_text) != keep(&theirs.stderr_str()) {
                    failures.push(format!(
                        "{name}: `converge verify --format llvm` differs from {ver}:\n--- converge\n{}--- {ver}\n{}",
                        ours_text,
                        theirs.stderr_str()
                    ));
                }
                break; // one reference: LLVM 22 when present
            }
        }
        if valid {
            match compare_uniformity(&converge, f, nvptx, &refs) {
                Compared::Same(_) | Compared::NoReference => {}
                Compared::Problem(p) => failures.push(format!("{name}: {p}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn printed_reports_compare_by_position() {
    let a = "UniformityInfo for function 'f':\nDIVERGENT ARGUMENTS:\n  DIVERGENT: i32 %x\n\nBLOCK entry\nDEFINITIONS\n  DIVERGENT:   %a = add i32 %x, 1\n               %b = add i32 1, 2\nTERMINATORS\n  DIVERGENT:   br i1 %c, label %l, label %r\nEND BLOCK\n";
    // The same divergence, printed with a different spelling of the second instruction.
    let b = a.replace("%b = add i32 1, 2", "%b = add nuw i32 1, 2");
    let pa = printed::parse_uniformity(a);
    let pb = printed::parse_uniformity(&b);
    assert_eq!(pa["f"].divergent_arg_names(), vec!["%x".to_string()]);
    assert_eq!(pa["f"].divergent_positions().len(), 2);
    assert!(printed::diff(&pa, &pb, true).is_empty());
    let c = a.replace("               %b = add", "  DIVERGENT:   %b = add");
    let d = printed::diff(&pa, &printed::parse_uniformity(&c), true);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].contains("block entry #1"), "{d:?}");
    // Cycle lists compare as sets of cycles whatever the block print order; 19's spelling counts.
    let head19 = "UniformityInfo for function 'g':\nCYCLES ASSSUMED DIVERGENT:\n  depth=1: entries(A B) C D\nCYCLES WITH DIVERGENT EXIT:\n  depth=1: entries(A B) C D\n\nBLOCK A\nEND BLOCK\n";
    let head22 = "UniformityInfo for function 'g':\nCYCLES ASSUMED DIVERGENT:\n  depth=1: entries(B A) D C\nCYCLES WITH DIVERGENT EXIT:\n  depth=1: entries(A B) C D\n\nTEMPORAL DIVERGENCE LIST:\nValue         :  %v = add i32 %x, 1\nUsed by       :  store i32 %v, ptr %p, align 4\nOutside cycle :depth=1: entries(A B) C D\n\n\nBLOCK A\nEND BLOCK\n";
    assert_eq!(
        printed::value_key("store i32 %v, ptr %p, align 4, !tbaa !8"),
        printed::value_key("store i32 %v, ptr %p, align 4, !tbaa !11")
    );
    assert_eq!(
        printed::value_key("call void @f(i32 %v) #3"),
        "call void @f(i32 %v)"
    );
    assert_eq!(printed::value_key("%v = add i32 %x, 1"), "%v");
    let g19 = printed::parse_uniformity(head19);
    let g22 = printed::parse_uniformity(head22);
    assert_eq!(g22["g"].assumed_divergent.len(), 1);
    assert_eq!(g22["g"].temporal.as_ref().map(|t| t.len()), Some(1));
    assert!(printed::diff(&g22, &g19, false).is_empty());
    let missing_temporal = printed::diff(&g19, &g22, true);
    assert_eq!(missing_temporal.len(), 1, "{missing_temporal:?}");
    let other_cycle = head19.replace(
        "CYCLES WITH DIVERGENT EXIT:\n  depth=1: entries(A B) C D\n",
        "",
    );
    assert_eq!(
        printed::diff(&printed::parse_uniformity(&other_cycle), &g19, false).len(),
        1
    );
    let u = printed::parse_uniformity("UniformityInfo for function 'f':\nALL VALUES UNIFORM\n");
    assert!(u["f"].all_uniform);
    assert!(printed::diff(&pa, &u, true).len() >= 2);
}
