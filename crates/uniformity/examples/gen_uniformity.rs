//! Writes the benchmark inputs of `scripts/bench-uniformity.sh` to stdout:
//! - `gen_uniformity module N SEED [EXTRA]`: N random AMDGPU functions of 50-300 blocks, every CFG
//!   shape (EXTRA: percent of extra edges in the random-CFG half, default 45);
//! - `gen_uniformity irreducible BLOCKS SEED`: one AMDGPU function whose CFG is one big irreducible
//!   region (random forward and backward edges over a spanning tree);
//! - `gen_uniformity dag BLOCKS SEED`: one AMDGPU function whose CFG is a forward DAG (jumps of 1-4
//!   blocks) plus back edges from a third of the blocks to random blocks
//!   (`converge_gen::program::dag_back_edges_cfg`): one irreducible region with hundreds of
//!   entries, every branch on the thread id; `dag-dense`, `dag-local` and `dag-sparse` are its
//!   variants (`converge_gen::program::DagParams`: two thirds of the blocks jumping back, back
//!   edges at most 50 blocks long, jumps of 1-2 with one block in ten jumping back);
//! - `gen_uniformity grid BLOCKS SEED`: one AMDGPU function whose CFG is a grid (each cell branches
//!   right and down) with back edges from a tenth of the cells to random earlier blocks
//!   (`converge_gen::program::grid_back_edges_cfg`): a reducible loop around irreducible cycles
//!   nested hundreds deep, every branch on the thread id;
//! - `gen_uniformity chain-SHAPE BLOCKS SEED`: one AMDGPU function of about BLOCKS blocks chained
//!   from random CFGs of one `converge_gen::cfg::Shape` (`reducible`, `irreducible`,
//!   `nestedirreducible`, `selfloops`, `switch`, `noreturn`, `multiexit`, `mixed`), every branch
//!   on the thread id;
//! - `gen_uniformity kernel BLOCKS SEED`: the big-module generator (`converge_gen::module`) cut
//!   after its first kernel (about BLOCKS blocks with the helper before it, a third of its size);
//! - families with one shape repeated, every branch on the thread id (`shape_family`):
//!   `nest` (reducible loops nested BLOCKS/2 deep), `exits` (one loop whose every block has a
//!   divergent exit), `switch` (one switch over BLOCKS targets), `irrloop` (a reducible loop
//!   around one irreducible cycle entered at every block), `selfloops` (a chain of self-loops,
//!   each left divergently), `irrladder` (a chain of two-block irreducible cycles, each entered
//!   from the one before, draining through one chain of exits), `irrladder-up` (the same, its
//!   exit chain in the other direction), `irrladder-loop` (`irrladder` inside a reducible loop),
//!   `irrladder-unreach` (`irrladder-loop` with an unreachable predecessor per level: one
//!   irreducible cycle for LLVM 19).
//!   SEED is ignored;
//! - the shapes of session 20 (`converge_gen::program::shapes`): `diamonds` (if-then-else nested
//!   BLOCKS/3 deep), `exitnest` (loops nested BLOCKS/5 deep with multi-level divergent exits and
//!   values used after them), `datachain` (a loop around a chain of switches whose joins' phis
//!   take the previous join's phis, every other switch on such a phi), `tokens` (`exitnest`'s
//!   nest under `entry`/`loop`/`anchor` convergence tokens with convergent calls), `widephi` (a
//!   loop around a switch into BLOCKS cases joining in one block of phis with BLOCKS incomings),
//!   `latchy` (one loop of BLOCKS/2 blocks, each a back edge and a divergent exit); SEED is
//!   ignored. `manyfuncs` (about BLOCKS/13 random functions of 2-24 blocks, of every shape),
//!   `randnest` (session 21: random loop nests with forward jumps into later loops, irreducible
//!   cycles nested dozens deep; `converge_gen::program::shapes::randnest_cfg`);
//! - the shapes of session 22 (`converge_gen::program::shapes`): `tempchain` (BLOCKS/4 loops in
//!   a row, each leaving on the value that left the one before: a cascade of temporal
//!   divergence), `earlyret` (BLOCKS/4 loops in a row with `break`s and early returns into one
//!   returning block, its phi an incoming per loop), `interp` (an interpreter: a dispatch loop
//!   switching on an opcode loaded at the program counter to about 2 BLOCKS/3 cases that jump
//!   straight to other cases, irreducible cycles with hundreds of entries), `switchnest`
//!   (switches inside loops inside switches, cases falling into each other, most switches on
//!   phis), `shiftreg` (a loop of diamonds whose header phis shift a value down the chain:
//!   divergence enters at the latch and reaches the branches last to first);
//! - `shuffled-FAMILY` for any FAMILY above: its module with every function's blocks after the
//!   entry laid out in a random order (`converge_gen::program::shapes::shuffle_blocks`; SEED
//!   also draws the order). Block indices follow the text, LLVM's orders follow the CFG.

use converge_gen::cfg::{Shape, chain_cfg};
use converge_gen::program::{
    DagParams, Flavor, Options, dag_back_edges_cfg_with, grid_back_edges_cfg, irreducible_module,
    module, module_header, shapes, tid_function_with_cfg,
};
use converge_gen::rng::Rng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("module");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    print!("{}", family(what, n, seed, &args));
}

/// The module of family `what` at about `n` blocks (`shuffled-FAMILY`: FAMILY's, blocks shuffled).
fn family(what: &str, n: usize, seed: u64, args: &[String]) -> String {
    if let Some(inner) = what.strip_prefix("shuffled-") {
        let text = family(inner, n, seed, args);
        // The shuffle's own stream, so FAMILY's text is the same as unshuffled.
        let mut rng = Rng::new(seed ^ 0x5eed_5eed);
        return shapes::shuffle_blocks(&mut rng, &text);
    }
    let mut rng = Rng::new(seed);
    let mut opts = Options::new(Flavor::Amdgpu);
    match what {
        "irreducible" => irreducible_module(&mut rng, n),
        _ if let Some(t) = shapes::by_name(what, &mut rng, Flavor::Amdgpu, n) => t,
        "grid" => {
            let succs = grid_back_edges_cfg(&mut rng, n);
            let mut t = module_header(Flavor::Amdgpu);
            t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", &succs));
            t
        }
        "dag" | "dag-dense" | "dag-local" | "dag-sparse" => {
            let params = match what {
                "dag-dense" => DagParams::DENSE,
                "dag-local" => DagParams::LOCAL,
                "dag-sparse" => DagParams::SPARSE,
                _ => DagParams::ISSUE,
            };
            let succs = dag_back_edges_cfg_with(&mut rng, n, params);
            let mut t = module_header(Flavor::Amdgpu);
            t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", &succs));
            t
        }
        "kernel" => {
            // The big-module generator (`big_module`) cut after its first kernel, which has
            // 5 x BLOCKS/16 straight-line, loop and branch regions (and a helper before it, a third
            // of its size): about BLOCKS blocks in all. It adds functions while the text is shorter than `bytes`: the text
            // with the helper alone is the length that stops after the kernel.
            let spec = |bytes| converge_gen::module::ModuleSpec {
                seed,
                target: converge_gen::module::GpuTarget::Amdgpu,
                bytes,
                regions: n * 5 / 16,
            };
            let header = converge_gen::module::generate(&spec(1)).len();
            let helper = converge_gen::module::generate(&spec(header)).len();
            converge_gen::module::generate(&spec(helper))
        }
        "nest" | "exits" | "switch" | "irrloop" | "irrladder" | "irrladder-up"
        | "irrladder-loop" | "irrladder-unreach" | "selfloops" => {
            let mut t = module_header(Flavor::Amdgpu);
            t.push_str(&tid_function_with_cfg(
                Flavor::Amdgpu,
                "big",
                &shape_family(what, n.max(8)),
            ));
            t
        }
        w if w.starts_with("chain-") => {
            let name = &w["chain-".len()..];
            let Some(&shape) = Shape::ALL
                .iter()
                .find(|s| format!("{s:?}").eq_ignore_ascii_case(name))
            else {
                eprintln!("unknown shape {name}");
                std::process::exit(2);
            };
            let cfg = chain_cfg(&mut rng, n, shape);
            let mut t = module_header(Flavor::Amdgpu);
            t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", &cfg.succs));
            t
        }
        _ => {
            opts.min_blocks = 50;
            opts.max_blocks = 300;
            opts.max_insts = 4;
            // Extra forward/backward edges of the random-CFG half, in percent (default 45): more
            // makes more, and more deeply nested, irreducible cycles.
            if let Some(e) = args.get(4).and_then(|s| s.parse().ok()) {
                opts.extra_edges_percent = e;
            }
            module(&mut rng, n, &opts)
        }
    }
}

/// The successor lists of the one-shape families (see the module doc), about `n` blocks.
fn shape_family(what: &str, n: usize) -> Vec<Vec<u32>> {
    let u = |x: usize| x as u32;
    match what {
        "nest" => converge_gen::cfg::nested_loops((n - 2) / 2).succs,
        "exits" => converge_gen::cfg::many_exits_loop((n - 3) / 2).succs,
        "switch" => {
            // 0 switch over 1..=k, each to the join k+1.
            let k = n - 2;
            let mut s = vec![Vec::new(); k + 2];
            s[0] = (1..=k).map(u).collect();
            for t in s.iter_mut().take(k + 1).skip(1) {
                *t = vec![u(k + 1)];
            }
            s
        }
        "irrloop" => converge_gen::cfg::irreducible_loop(n).succs,
        "irrladder" => converge_gen::cfg::irreducible_ladder(n).succs,
        "irrladder-up" => converge_gen::cfg::ladder(n, converge_gen::cfg::Ladder::Up).succs,
        "irrladder-loop" => converge_gen::cfg::ladder(n, converge_gen::cfg::Ladder::Looped).succs,
        "irrladder-unreach" => {
            converge_gen::cfg::ladder(n, converge_gen::cfg::Ladder::LoopedUnreachable).succs
        }
        _ => {
            // selfloops: block i loops on itself or goes on to i + 1.
            let mut s: Vec<Vec<u32>> = (0..n - 1).map(|i| vec![u(i), u(i + 1)]).collect();
            s[0] = vec![1];
            s.push(Vec::new());
            s
        }
    }
}
