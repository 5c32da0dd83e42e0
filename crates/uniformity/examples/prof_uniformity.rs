//! Times the phases of the uniformity analysis on one `.ll` file (development aid).
use converge_graph::{CycleInfo, DominatorTree};
use converge_ir::FuncId;
use converge_uniformity::llvm::{LlvmFunction, Target};
use converge_uniformity::{SsaFunction, Structure, analyze};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("file");
    let text = std::fs::read_to_string(&path).unwrap();
    let m = converge_ir::parse(&path, text).unwrap();
    let target = Target::from_triple(m.triple.as_deref(), None);
    let (mut td, mut tc, mut tp, mut ta) = (0.0, 0.0, 0.0, 0.0);
    for (k, f) in m.functions.iter().enumerate() {
        if f.is_declaration {
            continue;
        }
        let lf = LlvmFunction::new(&m, FuncId(k as u32));
        let g = lf.cfg();
        let a = Instant::now();
        let dom = DominatorTree::new(g);
        td += a.elapsed().as_secs_f64();
        let a = Instant::now();
        let cy = CycleInfo::new(g);
        tc += a.elapsed().as_secs_f64();
        let a = Instant::now();
        let s = Structure::from_parts(g, dom, cy);
        tp += a.elapsed().as_secs_f64();
        let a = Instant::now();
        let u = analyze(&lf, &target, &s);
        ta += a.elapsed().as_secs_f64();
        std::hint::black_box(u);
    }
    eprintln!(
        "dom {:.1} ms, cycles {:.1} ms, structure {:.1} ms, analysis {:.1} ms",
        td * 1e3,
        tc * 1e3,
        tp * 1e3,
        ta * 1e3
    );
}
