//! DOT output parses structurally: braces balance outside strings, every block is declared once
//! inside the cluster of its innermost cycle, every cycle is one cluster nested in its parent's,
//! every CFG edge is drawn, and the output is deterministic. Graphviz itself is not needed.

use converge_graph::{Block, Cycle, Graph};
use converge_ir::Module;
use converge_report::dot::{DotOptions, node_id, render};
use converge_report::explain::Analysed;
use converge_uniformity::SsaFunction;
use converge_uniformity::llvm::Target;
use std::collections::HashMap;

/// Splits DOT text into statements with the cluster stack each one is in; checks quoting and
/// brace balance. Returns (statement, enclosing clusters) pairs.
fn statements(dot: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_str = false;
    let mut in_html = 0usize;
    let mut chars = dot.chars().peekable();
    let mut depth = 0i32;
    while let Some(c) = chars.next() {
        if in_str {
            cur.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        if in_html > 0 {
            cur.push(c);
            match c {
                '<' => in_html += 1,
                '>' => in_html -= 1,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.push(c);
            }
            '<' => {
                in_html = 1;
                cur.push(c);
            }
            '{' => {
                depth += 1;
                let head = cur.trim().to_string();
                let name = head
                    .strip_prefix("subgraph ")
                    .map(|n| n.trim_matches('"').to_string())
                    .unwrap_or_else(|| head.clone());
                stack.push(name);
                cur.clear();
            }
            '}' => {
                depth -= 1;
                assert!(depth >= 0, "unbalanced closing brace");
                assert!(cur.trim().is_empty(), "statement without `;`: {cur}");
                stack.pop();
            }
            ';' => {
                out.push((cur.trim().to_string(), stack.clone()));
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    assert!(!in_str, "unterminated string");
    assert_eq!(depth, 0, "unbalanced braces");
    assert!(cur.trim().is_empty(), "trailing text: {cur}");
    out
}

fn check(m: &Module, opts: &DotOptions, what: &str) {
    let t = Target::from_triple(m.triple.as_deref(), None);
    for fid in m.func_ids().filter(|&f| !m.func(f).is_declaration) {
        let a = Analysed::new(m, fid, &t);
        let dot = render(&a, opts);
        assert_eq!(dot, render(&a, opts), "{what}: not deterministic");
        assert!(dot.starts_with("digraph "), "{what}");
        let st = statements(&dot);
        let ci = &a.s.cycles;
        let g = a.lf.cfg();
        // Block declarations.
        let mut declared: HashMap<String, Vec<String>> = HashMap::new();
        let mut edges = 0usize;
        for (s, encl) in &st {
            let head = s.split(['[', ' ']).next().unwrap_or("");
            if s.contains("->") {
                if s.starts_with('b') && !s.contains("(temporal)") {
                    edges += 1;
                }
                continue;
            }
            if head.starts_with('b') && head[1..].chars().all(|c| c.is_ascii_digit()) {
                assert!(
                    declared.insert(head.to_string(), encl.clone()).is_none(),
                    "{what}: {head} declared twice"
                );
            }
        }
        let total: usize = (0..g.num_blocks() as u32)
            .map(|b| g.succs(Block(b)).len())
            .sum();
        assert_eq!(edges, total, "{what}: edge count");
        for b in (0..g.num_blocks() as u32).map(Block) {
            let encl = declared
                .get(&node_id(b))
                .unwrap_or_else(|| panic!("{what}: block {b:?} not declared"));
            // The enclosing clusters are exactly the cycle chain of the block, outermost first.
            let mut chain = Vec::new();
            let mut c = ci.cycle_of(b);
            while let Some(x) = c {
                chain.push(format!("cluster_cycle{}", x.0));
                c = ci.parent(x);
            }
            chain.reverse();
            let clusters: Vec<String> = encl
                .iter()
                .filter(|n| n.starts_with("cluster_cycle"))
                .cloned()
                .collect();
            assert_eq!(clusters, chain, "{what}: {b:?} in the wrong cluster");
        }
        // Every cycle one cluster, labelled with its depth and header.
        for c in (0..ci.len() as u32).map(Cycle) {
            let name = format!("\"cluster_cycle{}\"", c.0);
            assert_eq!(dot.matches(&name).count(), 1, "{what}: cluster of {c:?}");
            let label = format!(
                "cycle {}: depth {}, header {}",
                c.0,
                ci.depth(c),
                a.block_name(ci.header(c))
            );
            assert!(dot.contains(&label), "{what}: label {label}");
            if !ci.is_reducible(c) {
                assert!(
                    dot.contains(&format!("{label}, IRREDUCIBLE, entries")),
                    "{what}"
                );
            }
        }
        if opts.uniformity && a.u.analysed {
            for b in (0..g.num_blocks() as u32).map(Block) {
                if a.is_divergent_branch(b) {
                    let decl = st
                        .iter()
                        .find(|(s, _)| s.starts_with(&format!("{} [", node_id(b))))
                        .unwrap();
                    assert!(decl.0.contains("divergent branch"), "{what}: {b:?}");
                }
            }
            let temporal = dot.matches("(temporal)").count();
            assert!(
                temporal <= a.u.temporal_divergence.len()
                    && (temporal > 0) != a.u.temporal_divergence.is_empty(),
                "{what}: temporal edges"
            );
        }
    }
}

fn data(name: &str) -> Module {
    let p = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&p).unwrap();
    converge_ir::parse(name, text).unwrap()
}

#[test]
fn dot_of_the_examples_is_well_formed() {
    for f in [
        "sync.ll",
        "temporal.ll",
        "irreducible.ll",
        "sources.ll",
        "nested.ll",
    ] {
        let m = data(f);
        for (u, i) in [(false, false), (true, false), (true, true)] {
            let opts = DotOptions {
                uniformity: u,
                instructions: i,
            };
            check(&m, &opts, f);
        }
    }
}

#[test]
fn dot_marks_what_the_examples_show() {
    let m = data("irreducible.ll");
    let fid = m.function_by_name("irr").unwrap();
    let t = Target::from_triple(m.triple.as_deref(), None);
    let a = Analysed::new(&m, fid, &t);
    let dot = render(
        &a,
        &DotOptions {
            uniformity: true,
            instructions: false,
        },
    );
    assert!(dot.contains("IRREDUCIBLE, entries %right %left"), "{dot}");
    assert!(dot.contains("assumed divergent"), "{dot}");
    assert!(dot.contains("[join of %entry]"), "{dot}");
    assert!(dot.contains("divergent exit"), "{dot}");
    assert!(dot.contains("legend"), "{dot}");
    let m = data("temporal.ll");
    let a = Analysed::new(&m, m.function_by_name("loop").unwrap(), &t);
    let dot = render(
        &a,
        &DotOptions {
            uniformity: true,
            instructions: true,
        },
    );
    assert!(dot.contains("%i (temporal)"), "{dot}");
    assert!(dot.contains("* %done = icmp"), "{dot}");
}

#[test]
fn dot_of_random_programs_is_well_formed() {
    use converge_gen::program::{Flavor, Options, module};
    use converge_gen::rng::Rng;
    for flavor in [Flavor::Amdgpu, Flavor::Nvptx] {
        for seed in 0..80u64 {
            let mut rng = Rng::new(0xd07_0000 + seed);
            let mut opts = Options::new(flavor);
            opts.unreachable = seed % 2 == 0;
            opts.extra_edges_percent = if seed % 3 == 0 { 90 } else { 45 };
            let text = module(&mut rng, 3, &opts);
            let m = converge_ir::parse("random.ll", text.clone()).unwrap();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(
                    &m,
                    &DotOptions {
                        uniformity: true,
                        instructions: seed % 2 == 1,
                    },
                    &format!("seed {seed} {flavor:?}"),
                )
            }));
            if let Err(e) = r {
                eprintln!("seed {seed} ({flavor:?}) failed; module:\n{text}");
                std::panic::resume_unwind(e);
            }
        }
    }
}
