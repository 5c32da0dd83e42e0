//! One case of the mutation self-test in detail: which changed values the default check and the
//! deeper search show divergent, under which input set.
//! `cargo run --release -p converge-oracle --example mutant_case -- SEED sync|exits|temporal`
//! (`DT=N`: the deeper search with N threads instead of 64).
use converge_oracle::cases::{Generator, case, spec_of};
use converge_oracle::check::{Mode, RunSpec, check, claims, main_function};
use converge_uniformity::{Ablation, LlvmVersion};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let a = match args.next().as_deref() {
        Some("exits") => Ablation {
            no_divergent_exits: true,
            ..Default::default()
        },
        Some("temporal") => Ablation {
            no_temporal: true,
            ..Default::default()
        },
        _ => Ablation {
            no_sync: true,
            ..Default::default()
        },
    };
    let c = case(seed, Generator::Oracle { blocks: 20 });
    let m = converge_ir::parse("oracle.ll", c.text.clone()).expect("parses");
    let fi = main_function(&m).expect("a function");
    let full = claims(&m, fi, Mode::Llvm(LlvmVersion::V22));
    let mutant = claims(&m, fi, Mode::Ablated(a));
    let changed: Vec<usize> = (0..full.divergent.len())
        .filter(|&i| full.divergent[i] && !mutant.divergent[i])
        .collect();
    let f = &m.functions[fi.0 as usize];
    let name = |i: usize| converge_sim::report::inst_name(&m, f, converge_ir::InstId(i as u32));
    println!(
        "seed {seed}, {} threads; changed: {:?}",
        c.threads,
        changed.iter().map(|&i| name(i)).collect::<Vec<_>>()
    );
    let spec = spec_of(&c);
    let o = check(&m, fi, &mutant, &spec);
    println!(
        "default: {} input sets, {} of {} branches split",
        o.input_sets, o.branches_split, o.branches
    );
    for v in o
        .violations
        .iter()
        .filter(|v| changed.contains(&(v.inst.0 as usize)))
    {
        println!("  default: {v:?}");
    }
    let dt: u32 = std::env::var("DT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut deep = RunSpec::new(dt, c.seed ^ 0x5eed);
    deep.step_limit = c.step_limit;
    deep.inputs = 6;
    deep.small_globals = c.small_globals;
    deep.explore = 24;
    let o = check(&m, fi, &mutant, &deep);
    println!(
        "deep: {} input sets, {} of {} branches split",
        o.input_sets, o.branches_split, o.branches
    );
    for v in o
        .violations
        .iter()
        .filter(|v| changed.contains(&(v.inst.0 as usize)))
    {
        println!(
            "  deep: set {} {v:?}",
            (v.input_seed.wrapping_sub(deep.seed)) / 7919
        );
    }
}
