//! The printer loses nothing: every module the tests use, printed back by converge
//! (`Module::print_module`, what `converge insert-tokens` prints for functions it leaves alone),
//! is the same module for LLVM: `opt -S` of the printed text equals `opt -S` of the original,
//! live, with LLVM 19 for every module and LLVM 22 too for NVPTX and target-less ones (the LLVM 22
//! build has no AMDGPU target).
//!
//! Inputs: `examples/*.ll`, `crates/*/tests/data/**/*.ll`, the LLVM corpus (through
//! `CONVERGE_CORPUS`), the OpenCL kernels of `examples/kernels/` compiled by clang 19 for amdgcn and
//! nvptx at -O0 and -O3, and generated modules (`converge_gen`: random programs, random CFGs, token
//! placements, GPU modules). Modules `opt` rejects are skipped and counted.

mod common;

use converge_gen::reference::{self, run_opt};
use std::path::{Path, PathBuf};

/// One module to check: its label, its text, and whether it targets AMDGPU.
struct Input {
    label: String,
    text: String,
}

fn is_amdgpu(text: &str) -> bool {
    text.contains("target triple = \"amdgcn")
}

fn file_inputs(files: &[PathBuf], out: &mut Vec<Input>) {
    for f in files {
        let text = std::fs::read_to_string(f).expect("read a test module");
        out.push(Input {
            label: f.display().to_string(),
            text,
        });
    }
}

fn generated_inputs(out: &mut Vec<Input>) {
    use converge_gen::{cfg, module, program, rng::Rng, tokens};
    for (seed, flavor) in [
        (1, program::Flavor::Nvptx),
        (2, program::Flavor::Amdgpu),
        (3, program::Flavor::Nvptx),
        (4, program::Flavor::Amdgpu),
    ] {
        let mut rng = Rng::new(seed);
        let mut opts = program::Options::new(flavor);
        opts.unreachable = seed % 2 == 1;
        out.push(Input {
            label: format!("program seed {seed} {flavor:?}"),
            text: program::module(&mut rng, 6, &opts),
        });
    }
    for seed in 0..4u64 {
        let mut rng = Rng::new(100 + seed);
        let shape = cfg::Shape::ALL[seed as usize % cfg::Shape::ALL.len()];
        let c = cfg::random_cfg(&mut rng, &cfg::CfgParams::new(shape, 12));
        out.push(Input {
            label: format!("cfg seed {seed} {shape:?}"),
            text: cfg::to_ll_numbered(&c, "f"),
        });
    }
    for seed in 0..3u64 {
        out.push(Input {
            label: format!("tokens seed {seed}"),
            text: tokens::random_module(seed, 8).0,
        });
    }
    for (seed, target) in [
        (1, module::GpuTarget::Amdgpu),
        (2, module::GpuTarget::Nvptx),
    ] {
        let spec = module::ModuleSpec {
            seed,
            target,
            bytes: 64 << 10,
            regions: 8,
        };
        out.push(Input {
            label: format!("gpu module seed {seed} {target:?}"),
            text: module::generate(&spec),
        });
    }
}

/// `opt -S` of `text`, or the error.
fn opt_s(opt: &Path, text: &str) -> Result<String, String> {
    let r = run_opt(opt, &["-S"], text);
    if r.success {
        Ok(r.stdout)
    } else {
        Err(r.stderr)
    }
}

fn first_difference(a: &str, b: &str) -> String {
    let k = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(a.lines().count().min(b.lines().count()));
    format!(
        "line {}: original `{}` vs printed `{}`",
        k + 1,
        a.lines().nth(k).unwrap_or("<end>"),
        b.lines().nth(k).unwrap_or("<end>")
    )
}

#[test]
fn printed_modules_are_the_same_module_for_opt() {
    let Some(opt19) = reference::opt19("printer round trip") else {
        return;
    };
    let opt22 = reference::opt22("printer round trip (LLVM 22)");
    let root = reference::repo_root();
    let mut inputs = Vec::new();
    let mut examples: Vec<PathBuf> = reference::ll_files(&root.join("examples"));
    for c in std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
    {
        examples.extend(reference::ll_files(&c.path().join("tests/data")));
    }
    file_inputs(&examples, &mut inputs);
    let local = inputs.len();
    if let Some(corpus) = reference::corpus("printer round trip (corpus)") {
        file_inputs(&reference::ll_files(&corpus), &mut inputs);
    }
    let corpus_n = inputs.len() - local;
    let mut failures = Vec::new();
    if let Some((kernels, errs)) =
        common::kernels::compile_all("printer round trip (clang kernels)", "roundtrip-kernels")
    {
        failures.extend(errs);
        for (ll, label, _) in kernels {
            let text = std::fs::read_to_string(&ll).expect("read a compiled kernel");
            inputs.push(Input { label, text });
        }
        // With debug information too (metadata, `#dbg_` records or `llvm.dbg` calls).
        // Present and of the right version: `compile_all` asked the same helper (cached).
        let Some(clang) = reference::clang19("printer round trip (clang kernels, -g)") else {
            unreachable!("compile_all found clang 19")
        };
        let dir = root.join("build/roundtrip-kernels");
        for src in common::kernels::sources() {
            let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
            for (tname, flags) in common::kernels::TARGETS {
                let mut flags = flags.to_vec();
                flags.push("-g");
                let ll = dir.join(format!("{stem}.{tname}-g.ll"));
                match common::kernels::compile(&clang, &src, &flags, "-O2", &ll) {
                    Ok(()) => inputs.push(Input {
                        label: format!("{stem}.cl {tname} -O2 -g"),
                        text: std::fs::read_to_string(&ll).expect("read a compiled kernel"),
                    }),
                    Err(e) => failures.push(format!("{stem}.cl {tname} -g: {e}")),
                }
            }
        }
    }
    let kernels_n = inputs.len() - local - corpus_n;
    let before_gen = inputs.len();
    generated_inputs(&mut inputs);
    let generated_n = inputs.len() - before_gen;

    let (mut same19, mut same22, mut rejected, mut unread) = (0, 0, 0, 0);
    for input in &inputs {
        let opts: Vec<(&str, &Path)> = match &opt22 {
            Some(o22) if !is_amdgpu(&input.text) => vec![("LLVM 19", &opt19), ("LLVM 22", o22)],
            _ => vec![("LLVM 19", &opt19)],
        };
        let m = match converge_ir::parse(&input.label, input.text.clone()) {
            Ok(m) => m,
            Err(_) => {
                unread += 1;
                continue;
            }
        };
        let printed = m.print_module();
        for (ver, opt) in opts {
            let Ok(want) = opt_s(opt, &input.text) else {
                rejected += 1;
                continue;
            };
            match opt_s(opt, &printed) {
                Err(e) => failures.push(format!(
                    "{}: {ver} rejects the printed module: {}",
                    input.label,
                    e.lines().take(3).collect::<Vec<_>>().join(" | ")
                )),
                Ok(got) if got != want => failures.push(format!(
                    "{}: {ver}: {}",
                    input.label,
                    first_difference(&want, &got)
                )),
                Ok(_) => {
                    if ver == "LLVM 19" {
                        same19 += 1;
                    } else {
                        same22 += 1;
                    }
                }
            }
        }
    }
    println!(
        "round trip: {} modules ({local} examples/test data, {corpus_n} corpus, {kernels_n} clang \
         kernels, {generated_n} generated); same module for LLVM 19: {same19}, LLVM 22: {same22}; \
         rejected by opt: {rejected}; unreadable by converge: {unread}",
        inputs.len()
    );
    assert!(
        failures.is_empty(),
        "{} round-trip failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(same19 >= local, "too few modules compared: {same19}");
}
