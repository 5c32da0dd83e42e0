//! The header-chain characterisation of maximal convergence (what the simulator computes) against
//! the definition of "Convergence And Uniformity" (via convergence-before), on random CFGs, random
//! thread paths and every cycle hierarchy. Cases: `CONVERGE_CHAR_CASES` (default 3000; 20000 took 3 s).

use converge_gen::cfg::{CfgParams, Shape, random_cfg};
use converge_gen::rng::Rng;
use converge_graph::{Block, Cfg, Graph};
use converge_sim::hierarchy::enumerate;
use converge_sim::instances::{check_definition, classify_traces};

#[test]
fn characterisation_matches_the_definition() {
    let cases: u64 = std::env::var("CONVERGE_CHAR_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut checked = 0;
    for seed in 0..cases {
        let mut rng = Rng::new(seed);
        let shape = *rng.pick(&[
            Shape::Reducible,
            Shape::Irreducible,
            Shape::NestedIrreducible,
            Shape::SelfLoops,
        ]);
        let mut p = CfgParams::new(shape, 3 + rng.below(6));
        p.allow_unreachable = false;
        let g = random_cfg(&mut rng, &p);
        let n = g.succs.len();
        let cfg = Cfg::from_succs(
            Block(0),
            n,
            g.succs.iter().map(|s| s.iter().map(|&b| Block(b))),
        );
        // Random walks from the entry, 2-3 threads, at most 10 blocks each.
        let threads = 2 + rng.below(2);
        let traces: Vec<Vec<Block>> = (0..threads)
            .map(|_| {
                let mut t = vec![Block(0)];
                while t.len() < 10 {
                    let s = cfg.succs(*t.last().unwrap());
                    if s.is_empty() {
                        break;
                    }
                    t.push(s[rng.below(s.len())]);
                }
                t
            })
            .collect();
        for (k, h) in enumerate(&cfg, 512).hierarchies.iter().enumerate() {
            let (_, cls) = classify_traces(h, &traces);
            if let Err(e) = check_definition(h, &traces, &cls) {
                panic!(
                    "seed {seed}, hierarchy [{k}] {:?}: {e}\nsuccs {:?}\ntraces {:?}",
                    h.cycles, g.succs, traces
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= cases);
}
