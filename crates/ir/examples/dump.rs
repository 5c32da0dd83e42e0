//! Reads a `.ll` file and prints every instruction as `inst_text` renders it, with block names and
//! predecessor lists: a quick way to eyeball the reader against `opt -S`.
//!
//! `cargo run --release -p converge-ir --example dump -- FILE.ll`

use converge_graph::Graph;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: dump FILE.ll");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    let m = match converge_ir::parse(&path, text.clone()) {
        Ok(m) => m,
        Err(d) => {
            eprint!("{}", d.render(&path, &text));
            std::process::exit(2)
        }
    };
    for f in m.func_ids() {
        let func = m.func(f);
        if func.is_declaration {
            continue;
        }
        println!("define @{}", m.str(func.name));
        let cfg = func.cfg();
        for b in 0..func.num_blocks() {
            let b = converge_graph::Block(b as u32);
            let preds: Vec<String> = cfg
                .preds(b)
                .iter()
                .map(|p| m.block_operand(f, *p))
                .collect();
            println!("{}: ; preds = {}", m.block_name(f, b), preds.join(", "));
            for i in func.block_insts(b) {
                println!("{}", m.inst_text(f, i));
            }
        }
    }
}
