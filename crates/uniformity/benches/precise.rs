//! Precise mode against llvm mode, in process (dominators + cycles + analysis, parse excluded), on
//! the inputs of the `uniformity` benchmark: a module of random AMDGPU functions of 50-300 blocks
//! and single irreducible functions of growing size. Each input runs in both modes (`mode` arg).

use converge_gen::program::{Flavor, Options, irreducible_module, module};
use converge_gen::rng::Rng;
use converge_ir::{FuncId, Module};
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{LlvmVersion, Mode, SsaFunction, Structure, analyze_with};

fn main() {
    divan::main();
}

fn mode(name: &str) -> Mode {
    match name {
        "precise" => Mode::Precise,
        _ => Mode::Llvm(LlvmVersion::V22),
    }
}

fn analyse_all(m: &Module, mode: Mode) -> usize {
    let target = Target::from_triple(m.triple.as_deref(), None);
    let mut divergent = 0;
    for (k, f) in m.functions.iter().enumerate() {
        if f.is_declaration {
            continue;
        }
        let lf = LlvmFunction::new(m, FuncId(k as u32));
        let s = Structure::new(lf.cfg());
        let u = analyze_with(&lf, &target, &s, mode);
        divergent += u.divergent_insts.iter().filter(|&&d| d).count();
    }
    divergent
}

fn parse(text: String) -> Module {
    converge_ir::parse("bench.ll", text).expect("generated module parses")
}

#[divan::bench(args = ["llvm", "precise"], sample_count = 5)]
fn random_module_200_functions(b: divan::Bencher, m_: &str) {
    let mut rng = Rng::new(7);
    let mut opts = Options::new(Flavor::Amdgpu);
    opts.min_blocks = 50;
    opts.max_blocks = 300;
    let m = parse(module(&mut rng, 200, &opts));
    let md = mode(m_);
    b.bench(|| analyse_all(divan::black_box(&m), md));
}

#[divan::bench(consts = [2000, 8000, 32000], args = ["llvm", "precise"], sample_count = 3)]
fn irreducible_function<const BLOCKS: usize>(b: divan::Bencher, m_: &str) {
    let m = parse(irreducible_module(&mut Rng::new(1), BLOCKS));
    let md = mode(m_);
    b.bench(|| analyse_all(divan::black_box(&m), md));
}
