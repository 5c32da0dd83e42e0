//! Precise mode's rule P1 analyses every cycle hierarchy of a function when there are few
//! (`converge_uniformity::precise::hierarchies`), enumerating them by the depth-first traversals
//! that can change a header. The simulator enumerates hierarchies independently, over every
//! successor order of every block (`converge_sim::hierarchy::enumerate`): where both are
//! exhaustive they must find the same number of distinct hierarchies, or precise mode would miss
//! one (and be unsound under it) or invent one.

use converge_gen::program::{Flavor, Options, function_with_cfg, module_header, random_cfg};
use converge_gen::rng::Rng;
use converge_sim::hierarchy::enumerate;
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::precise::{P1Outcome, analyze_precise_outcome};
use converge_uniformity::{SsaFunction, Structure};

#[test]
fn precise_mode_enumerates_every_hierarchy() {
    let (mut compared, mut several) = (0, 0);
    for seed in 1..=120u64 {
        let mut rng = Rng::new(0x41e7_0000 + seed);
        let mut opts = Options::new(Flavor::Amdgpu);
        opts.extra_edges_percent = 40 + (seed % 4) as u32 * 15;
        let succs = random_cfg(&mut rng, 6 + (seed % 9) as usize, &opts);
        let mut text = module_header(Flavor::Amdgpu);
        text.push_str(&function_with_cfg(&mut rng, "f", &opts, &succs));
        let m = converge_ir::parse("t.ll", text.clone()).unwrap();
        let fid =
            converge_ir::FuncId(m.functions.iter().position(|f| !f.is_declaration).unwrap() as u32);
        let lf = LlvmFunction::new(&m, fid);
        let s = Structure::new(lf.cfg());
        let t = Target::from_triple(m.triple.as_deref(), None);
        let (_, outcome) = analyze_precise_outcome(&lf, &t, &s);
        let (P1Outcome::ByHierarchies { hierarchies, .. }
        | P1Outcome::RegionsExact { hierarchies }) = outcome
        else {
            continue;
        };
        let e = enumerate(lf.cfg(), 1 << 12);
        if !e.exhaustive {
            continue;
        }
        assert_eq!(
            hierarchies,
            e.hierarchies.len(),
            "seed {seed}: precise mode found {hierarchies} hierarchies, the simulator {}\n{text}",
            e.hierarchies.len()
        );
        compared += 1;
        several += usize::from(hierarchies > 1);
    }
    eprintln!("{compared} functions compared, {several} with several hierarchies");
    assert!(compared >= 25 && several >= 20, "{compared} / {several}");
}
