//! Regression tests for simulator bugs found by the oracle.

use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{ArgValue, Options, Program, Target, run};
use converge_sim::report::{Verdict, check_groups, value_uniformity};

/// Oracle seed 7321: running one `Program` under several hierarchies reused header-avoiding
/// reachability computed for the previous hierarchy, and a readfirstlane group was released early.
#[test]
fn reachability_is_recomputed_per_hierarchy() {
    let path = format!(
        "{}/tests/seeds/regress_hierarchy_cache.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let m = converge_ir::parse(&path, std::fs::read_to_string(&path).unwrap()).unwrap();
    let f = m.functions.iter().find(|f| !f.is_declaration).unwrap();
    let prog = Program::new(&m, f, Target::Amdgpu);
    let e = enumerate(&prog.cfg, 256);
    assert_eq!(e.hierarchies.len(), 2);
    let opts = Options {
        threads: 2,
        args: vec![Some(ArgValue::Int(6)), Some(ArgValue::Int(6))],
        seed: 7321,
        step_limit: 4000,
        target: Target::Amdgpu,
    };
    let rfl = f
        .insts
        .iter()
        .position(
            |i| matches!(i.name, converge_ir::LocalName::Named(s) if m.strings.resolve(s) == "v9"),
        )
        .unwrap();
    // Both orders of running the hierarchies.
    for order in [[0usize, 1], [1, 0]] {
        for k in order {
            let r = run(&prog, &e.hierarchies[k], &opts);
            check_groups(&r).unwrap();
            let v = value_uniformity(&r, f.insts.len());
            let (_, verdict) = v.iter().find(|(i, _)| i.0 as usize == rfl).unwrap();
            assert!(
                matches!(verdict, Verdict::Uniform { .. }),
                "hierarchy [{k}]: {verdict:?}"
            );
        }
    }
}
