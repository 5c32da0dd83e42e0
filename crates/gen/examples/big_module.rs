//! Writes a generated GPU module (see `converge_gen::module`) to a file.
//!
//! `cargo run --release -p converge-gen --example big_module -- OUT.ll [--mb 60] [--target amdgpu|nvptx] [--seed 1]`

use converge_gen::module::{GpuTarget, ModuleSpec, generate};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut out = None;
    let mut spec = ModuleSpec::default();
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--mb" => spec.bytes = val().parse::<usize>().unwrap_or_else(|_| usage("--mb N")) << 20,
            "--seed" => spec.seed = val().parse().unwrap_or_else(|_| usage("--seed N")),
            "--regions" => spec.regions = val().parse().unwrap_or_else(|_| usage("--regions N")),
            "--target" => {
                spec.target = match val().as_str() {
                    "amdgpu" => GpuTarget::Amdgpu,
                    "nvptx" => GpuTarget::Nvptx,
                    _ => usage("--target amdgpu|nvptx"),
                }
            }
            _ if out.is_none() && !a.starts_with('-') => out = Some(a),
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    let Some(out) = out else {
        usage("missing output file")
    };
    let text = generate(&spec);
    if let Err(e) = std::fs::write(&out, &text) {
        eprintln!("cannot write {out}: {e}");
        std::process::exit(2);
    }
    eprintln!(
        "wrote {out}: {} bytes, {} functions",
        text.len(),
        text.matches("\ndefine ").count()
    );
}

fn usage(msg: &str) -> ! {
    eprintln!(
        "{msg}\nusage: big_module OUT.ll [--mb 60] [--target amdgpu|nvptx] [--seed 1] [--regions 24]"
    );
    std::process::exit(2)
}
