//! Writes a generated GPU module (see `converge_gen::module`) to a file.
//!
//! `cargo run --release -p converge-gen --example big_module -- OUT.ll [--mb 60] [--target amdgpu|nvptx] [--seed 1]`
//!
//! With `--divergent-cfgs`, the module is `converge_gen::divergent_module`'s instead (thread-id
//! branches over nests, irreducible and multi-exit shapes, on which LLVM's uniformity analysis
//! does real work): `--mb` is then in millions of bytes (38 gives the issue-13 module of about
//! 1,223 functions) and `--fn-kb K` sets the function size (default 31).

use converge_gen::divergent_module::{self, DivergentSpec};
use converge_gen::module::{GpuTarget, ModuleSpec, generate};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut out = None;
    let mut spec = ModuleSpec::default();
    let mut divergent: Option<DivergentSpec> = None;
    let mut mb = None;
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--mb" => mb = Some(val().parse::<usize>().unwrap_or_else(|_| usage("--mb N"))),
            "--divergent-cfgs" => divergent = Some(DivergentSpec::default()),
            "--fn-kb" => {
                let k: usize = val().parse().unwrap_or_else(|_| usage("--fn-kb K"));
                divergent
                    .get_or_insert_with(DivergentSpec::default)
                    .function_bytes = k * 1000;
            }
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
    let text = match divergent {
        Some(mut d) => {
            d.seed = spec.seed;
            if let Some(mb) = mb {
                d.bytes = mb * 1_000_000;
            }
            divergent_module::generate(&d)
        }
        None => {
            if let Some(mb) = mb {
                spec.bytes = mb << 20;
            }
            generate(&spec)
        }
    };
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
        "{msg}\nusage: big_module OUT.ll [--mb 60] [--target amdgpu|nvptx] [--seed 1] [--regions 24]\n       big_module OUT.ll --divergent-cfgs [--mb 38] [--fn-kb 31] [--seed 1]"
    );
    std::process::exit(2)
}
