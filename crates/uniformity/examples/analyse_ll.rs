//! The per-function entry point on an LLVM textual IR file: reads the module, takes its target
//! from the triple, and prints each defined function's divergent values and branches.
//!
//! `cargo run --release -p converge-uniformity --example analyse_ll -- FILE.ll [19]` (a second
//! argument `19` reproduces LLVM 19 instead of 22).

use converge_uniformity::llvm::Setup;
use converge_uniformity::{LlvmVersion, Mode};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: analyse_ll FILE.ll [19]");
        std::process::exit(2);
    };
    let version = match args.next().as_deref() {
        Some("19") => LlvmVersion::V19,
        _ => LlvmVersion::V22,
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2);
    });
    let module = converge_ir::parse_rendered(&path, text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    // One setup per module: the target (from the triple) as the chosen LLVM release has it.
    let setup = Setup::for_module(&module, None, Mode::Llvm(version));
    for fid in module.func_ids() {
        if module.func(fid).is_declaration {
            continue;
        }
        let a = setup.analyse(&module, fid);
        let u = &a.uniformity;
        println!(
            "@{}: {} divergent instructions, {} divergent branches, {} cycles",
            a.lf.name(),
            u.divergent_insts.iter().filter(|&&d| d).count(),
            u.divergent_terminators.iter().filter(|&&d| d).count(),
            a.structure.cycles.len(),
        );
    }
}
