//! The simulator on every function of LLVM's own tests (the shared corpus, reached by path): every
//! function runs to completion or to the step limit under every cycle hierarchy without a panic,
//! groups are consistent (`check_groups`), no group is released blindly, and the block instances
//! lay out in columns (convergence-before is a strict partial order, as the seed requires of any
//! converged-with relation).

use converge_sim::hierarchy::enumerate;
use converge_sim::interp::{Options, Program, Target, run};
use converge_sim::report::{check_groups, table};

#[test]
fn every_corpus_function_simulates() {
    let Some(root) = converge_gen::reference::corpus("sim corpus runs") else {
        return;
    };
    let mut files = Vec::new();
    files.extend(converge_gen::reference::ll_files(&root));
    let (mut functions, mut runs) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(m) = converge_ir::parse(&path.display().to_string(), text) else {
            continue;
        };
        let target = Target::from_triple(m.triple.as_deref());
        for f in m.functions.iter().filter(|f| !f.is_declaration) {
            functions += 1;
            let prog = Program::new(&m, f, target);
            let e = enumerate(&prog.cfg, 64);
            let opts = Options {
                threads: 3,
                step_limit: 2000,
                target,
                ..Options::default()
            };
            for (k, h) in e.hierarchies.iter().enumerate() {
                let r = run(&prog, h, &opts);
                runs += 1;
                let what = format!(
                    "{} @{} hierarchy [{k}]",
                    path.display(),
                    m.strings.resolve(f.name)
                );
                check_groups(&r).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(
                    r.notes.iter().all(|n| !n.contains("anyway")),
                    "{what}: {:?}",
                    r.notes
                );
                table(&r).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
        }
    }
    eprintln!(
        "corpus: {} files, {functions} functions, {runs} runs",
        files.len()
    );
    assert!(functions > 100, "only {functions} functions parsed");
}
