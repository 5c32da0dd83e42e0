//! The tables of "Convergence And Uniformity" (seed 000), reproduced at block level.
//!
//! Each table is written here as the seed prints it: one row per thread, one cell per column, `.`
//! for an empty cell. Instances in one column are converged; instances the seed elides (`...`) are
//! written `X?` and not checked. The CFGs are rebuilt from the seed's figures and thread paths, and
//! the hierarchy is chosen by its set of headers among all DFS choices. Every table is also checked
//! against the definition of maximal convergence (convergence-before), which validates the
//! header-chain characterisation the simulator relies on.

use converge_graph::{Block, Cfg};
use converge_sim::hierarchy::{Hierarchy, enumerate};
use converge_sim::instances::{ConvergenceBefore, check_definition, classify_traces};
use std::collections::BTreeSet;

struct Graph {
    names: Vec<String>,
    cfg: Cfg,
}

/// `"Entry: H; H: B L; ..."`: blocks in order with their successors in branch operand order.
fn graph(spec: &str) -> Graph {
    let mut names = Vec::new();
    let mut succ_names = Vec::new();
    for part in spec.split(';') {
        let (b, s) = part.split_once(':').expect("block: succs");
        names.push(b.trim().to_string());
        succ_names.push(s.split_whitespace().map(str::to_string).collect::<Vec<_>>());
    }
    let id = |n: &str| Block(names.iter().position(|x| x == n).expect(n) as u32);
    let succs: Vec<Vec<Block>> = succ_names
        .iter()
        .map(|s| s.iter().map(|n| id(n)).collect())
        .collect();
    let cfg = Cfg::from_succs(Block(0), names.len(), succs);
    Graph { names, cfg }
}

fn headers(h: &Hierarchy) -> BTreeSet<Block> {
    h.cycles.iter().map(|c| c.header).collect()
}

/// The hierarchy whose headers are exactly `want`.
fn pick(g: &Graph, want: &[&str]) -> Hierarchy {
    let want: BTreeSet<Block> = want
        .iter()
        .map(|n| Block(g.names.iter().position(|x| x == n).unwrap() as u32))
        .collect();
    let e = enumerate(&g.cfg, 10_000);
    assert!(e.exhaustive);
    e.hierarchies
        .into_iter()
        .find(|h| headers(h) == want)
        .unwrap_or_else(|| panic!("no hierarchy with headers {want:?}"))
}

struct Cell {
    block: Block,
    column: usize,
    checked: bool,
}

fn parse_rows(g: &Graph, rows: &[&str]) -> Vec<Vec<Cell>> {
    rows.iter()
        .map(|r| {
            r.split_whitespace()
                .enumerate()
                .filter(|(_, c)| *c != ".")
                .map(|(col, c)| {
                    let checked = !c.ends_with('?');
                    let name = c.trim_end_matches('?');
                    let b = g.names.iter().position(|x| x == name).expect(name);
                    Cell {
                        block: Block(b as u32),
                        column: col,
                        checked,
                    }
                })
                .collect()
        })
        .collect()
}

/// Checks that the simulator's converged-with relation is exactly the table's columns.
fn check_table(g: &Graph, h: &Hierarchy, rows: &[&str]) {
    let cells = parse_rows(g, rows);
    let traces: Vec<Vec<Block>> = cells
        .iter()
        .map(|r| r.iter().map(|c| c.block).collect())
        .collect();
    let (_, cls) = classify_traces(h, &traces);
    check_definition(h, &traces, &cls).expect("characterisation agrees with the definition");
    let mut pairs = 0;
    for (t1, r1) in cells.iter().enumerate() {
        for (t2, r2) in cells.iter().enumerate().skip(t1 + 1) {
            for (i1, c1) in r1.iter().enumerate() {
                for (i2, c2) in r2.iter().enumerate() {
                    if c1.block != c2.block || !c1.checked || !c2.checked {
                        continue;
                    }
                    let table = c1.column == c2.column;
                    let ours = cls[t1][i1] == cls[t2][i2];
                    assert_eq!(
                        table,
                        ours,
                        "{}: thread {} column {} vs thread {} column {}: table says converged={}",
                        g.names[c1.block.index()],
                        t1 + 1,
                        c1.column,
                        t2 + 1,
                        c2.column,
                        table
                    );
                    pairs += 1;
                }
            }
        }
    }
    assert!(pairs > 0, "the table compares something");
}

const NATURAL_LOOP: &str = "Entry: H; H: B L; B: L; L: H Exit; Exit:";

#[test]
fn natural_loop_table() {
    let g = graph(NATURAL_LOOP);
    let h = pick(&g, &["H"]);
    check_table(
        &g,
        &h,
        &[
            "Entry H B L H . L . . . Exit",
            "Entry H . L H B L H B L Exit",
        ],
    );
}

#[test]
fn natural_loop_has_a_single_hierarchy() {
    let g = graph(NATURAL_LOOP);
    assert_eq!(enumerate(&g.cfg, 10_000).hierarchies.len(), 1);
}

/// The CFG of the figures "both-diverged-nested", "divergent-inside", "closed-path" and
/// "divergent-outside": entries P and R of the closed path P -> Q -> R -> S, divergent paths
/// Q -> R -> S and Q -> S.
const CLOSED_PATH: &str = "Entry: P R; P: Q; Q: R S; R: S; S: P Exit; Exit:";

#[test]
fn closed_path_cfg_has_exactly_the_two_hierarchies_of_the_seed() {
    let g = graph(CLOSED_PATH);
    let e = enumerate(&g.cfg, 10_000);
    let got: BTreeSet<BTreeSet<Block>> = e.hierarchies.iter().map(headers).collect();
    let p = Block(1);
    let (r, s) = (Block(3), Block(4));
    let want: BTreeSet<BTreeSet<Block>> = [[p].into_iter().collect(), [r, s].into_iter().collect()]
        .into_iter()
        .collect();
    assert_eq!(got, want);
    // With R and S as headers, S's cycle is nested in R's (the child cycle C' of the seed).
    let h = pick(&g, &["R", "S"]);
    assert_eq!(h.relevant_headers(Block(2)), &[r, s]);
    assert_eq!(h.relevant_headers(r), &[r]);
}

#[test]
fn both_diverged_nested_table() {
    let g = graph(CLOSED_PATH);
    let h = pick(&g, &["R", "S"]);
    check_table(
        &g,
        &h,
        &[
            "Entry P Q S P Q R S Exit",
            "Entry P Q . . . R S Exit",
            "Entry . . . . . R S Exit",
        ],
    );
}

#[test]
fn closed_path_with_header_r_table() {
    let g = graph(CLOSED_PATH);
    let h = pick(&g, &["R", "S"]);
    check_table(
        &g,
        &h,
        &[
            "Entry P Q . . . R S P Q? S? Exit",
            "Entry P Q S P Q R S . . . Exit",
        ],
    );
}

#[test]
fn closed_path_without_header_r_table() {
    let g = graph(CLOSED_PATH);
    let h = pick(&g, &["P"]);
    check_table(
        &g,
        &h,
        &["Entry P Q R S P Q R S Exit", "Entry P Q . S P Q R S Exit"],
    );
}

#[test]
fn divergent_outside_with_header_p_table() {
    let g = graph(CLOSED_PATH);
    let h = pick(&g, &["P"]);
    check_table(
        &g,
        &h,
        &[
            "Entry . . . P Q R S P Q . S Exit",
            "Entry . R S P Q . S P Q R S Exit",
        ],
    );
}

#[test]
fn divergent_outside_with_header_r_table() {
    let g = graph(CLOSED_PATH);
    let h = pick(&g, &["R", "S"]);
    check_table(
        &g,
        &h,
        &[
            "Entry . P Q R S P Q S . . . . Exit",
            "Entry . . . R S P Q S P Q? R? S? Exit",
        ],
    );
}

/// "Divergent branch inside a cycle": the same threads diverging at Q re-converge at S in the same
/// iteration when P is the header, but not when R and S are; S is therefore not m-converged, while
/// Entry and Exit are.
#[test]
fn divergent_inside_depends_on_the_hierarchy() {
    let g = graph(CLOSED_PATH);
    let traces: Vec<Vec<Block>> = parse_rows(
        &g,
        &["Entry P Q R S P Q R S Exit", "Entry P Q . S P Q R S Exit"],
    )
    .iter()
    .map(|r| r.iter().map(|c| c.block).collect())
    .collect();
    let s = Block(4);
    let relation = |h: &Hierarchy, b: Block| -> Vec<bool> {
        let (_, cls) = classify_traces(h, &traces);
        let mut out = Vec::new();
        for (i1, &x1) in traces[0].iter().enumerate() {
            for (i2, &x2) in traces[1].iter().enumerate() {
                if x1 == b && x2 == b {
                    out.push(cls[0][i1] == cls[1][i2]);
                }
            }
        }
        out
    };
    let hp = pick(&g, &["P"]);
    let hr = pick(&g, &["R", "S"]);
    // Thread 1's first S (after Q -> R -> S) with thread 2's first S (after Q -> S).
    assert!(relation(&hp, s)[0]);
    assert!(!relation(&hr, s)[0]);
    assert_ne!(relation(&hp, s), relation(&hr, s));
    for b in [Block(0), Block(5)] {
        assert_eq!(relation(&hp, b), relation(&hr, b));
        assert!(relation(&hp, b).iter().all(|&c| c));
    }
}

/// The convergence-before example: with the columns as the converged-with relation, the order
/// includes P -> Q2, Q1 -> R, P -> R and P -> T.
#[test]
fn convergence_before_table() {
    // Classes by column; blocks only matter through the columns here.
    let rows: [&[usize]; 3] = [&[1, 6, 7, 9], &[1, 4, 5, 6, 9], &[1, 3, 4]];
    let cls: Vec<Vec<u32>> = rows
        .iter()
        .map(|r| r.iter().map(|&c| c as u32).collect())
        .collect();
    let cb = ConvergenceBefore::new(&cls);
    let (s2, t) = ((0, 1), (0, 2));
    let (q2, r, s1) = ((1, 1), (1, 2), (1, 3));
    let (p, q1) = ((2, 1), (2, 2));
    assert!(cb.before(p, q2));
    assert!(cb.before(q1, r));
    assert!(cb.before(p, r));
    assert!(cb.before(p, t));
    assert!(cb.before(p, s1) && cb.before(p, s2));
    // Strict: nothing is before itself, and T is not before P.
    assert!(!cb.before(t, p));
    assert!(!cb.before(s1, s2) && !cb.before(s2, s1));
}
