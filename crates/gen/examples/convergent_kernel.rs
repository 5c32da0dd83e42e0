//! Prints one generated convergent kernel: `convergent_kernel SEED [nvptx] [tokens]`.
use converge_gen::kernels::{ConvergentOptions, GpuTarget, convergent_kernel};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let seed = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let o = ConvergentOptions {
        target: if a.iter().any(|x| x == "nvptx") {
            GpuTarget::Nvptx
        } else {
            GpuTarget::Amdgpu
        },
        tokens: a.iter().any(|x| x == "tokens"),
        ..ConvergentOptions::default()
    };
    print!("{}", convergent_kernel(seed, &o));
}
