//! Hand-made CFGs whose cycle hierarchy, dominators and orders were worked out by hand from the
//! algorithm descriptions (LLVM's DFS explores the last successor first; predecessors come in
//! reverse textual order of the terminators).

mod common;
use common::{cfg, nums};
use converge_graph::{
    Block, Cycle, CycleDfs, CycleInfo, DominatorTree, Graph, PostDominatorTree, UnreachablePreds,
    reverse_post_order,
};

fn print(ci: &CycleInfo) -> String {
    let mut s = String::new();
    ci.print_llvm(&mut s, |b, o| o.push_str(&format!("b{}", b.0)));
    s
}

#[test]
fn self_loop() {
    let g = cfg(&[&[1], &[1, 2], &[]]);
    let ci = CycleInfo::new(&g);
    assert_eq!(print(&ci), "    depth=1: entries(b1)\n");
    let c = Cycle(0);
    assert!(ci.is_reducible(c));
    assert_eq!(nums(&ci.exit_blocks(&g, c)), vec![2]);
    assert_eq!(nums(&ci.exiting_blocks(&g, c)), vec![1]);
    assert_eq!(ci.cycle_predecessor(&g, c), Some(Block(0)));
    assert_eq!(ci.cycle_depth(Block(1)), 1);
    assert_eq!(ci.cycle_depth(Block(2)), 0);
}

#[test]
fn irreducible_header_is_first_reached_by_last_successor_first_dfs() {
    // 0 -> {1, 2}; 1 -> {2, 3}; 2 -> 1. The DFS takes 2 before 1, so 2 is the header.
    let g = cfg(&[&[1, 2], &[2, 3], &[1], &[]]);
    let dfs = CycleDfs::new(&g);
    assert_eq!(nums(dfs.preorder()), vec![0, 2, 1, 3]);
    let ci = CycleInfo::new(&g);
    assert_eq!(print(&ci), "    depth=1: entries(b2 b1)\n");
    assert!(!ci.is_reducible(Cycle(0)));
    assert_eq!(ci.cycle_predecessor(&g, Cycle(0)), None);
}

#[test]
fn nested_loop_blocks_follow_insertion_order() {
    // 0 -> 1 -> 2 -> 3 -> {2, 4}; 4 -> {1, 5}.
    let g = cfg(&[&[1], &[2], &[3], &[2, 4], &[1, 5], &[]]);
    let ci = CycleInfo::new(&g);
    assert_eq!(
        print(&ci),
        "    depth=1: entries(b1) b4 b2 b3\n        depth=2: entries(b2) b3\n"
    );
    let (outer, inner) = (Cycle(0), Cycle(1));
    assert_eq!(ci.parent(inner), Some(outer));
    assert_eq!(ci.children(outer), &[inner]);
    assert_eq!(ci.cycle_of(Block(3)), Some(inner));
    assert_eq!(ci.cycle_of(Block(4)), Some(outer));
    assert!(ci.contains(outer, Block(3)) && !ci.contains(inner, Block(4)));
    assert!(ci.contains_cycle(outer, inner) && !ci.contains_cycle(inner, outer));
    assert_eq!(
        ci.smallest_common_cycle_of_blocks(Block(3), Block(4)),
        Some(outer)
    );
    assert_eq!(ci.smallest_common_cycle_of_blocks(Block(3), Block(5)), None);
    assert_eq!(nums(&ci.exit_blocks(&g, inner)), vec![4]);
    assert_eq!(nums(&ci.exit_blocks(&g, outer)), vec![5]);
    assert_eq!(nums(&ci.exiting_blocks(&g, outer)), vec![4]);
}

#[test]
fn adoption_swap_removes_from_the_top_level_list() {
    // 0 -> 1; 1 -> {2, 3, 4}; 2 -> {2, 1}; 3 -> {3, 5}; 4 -> {4, 5}.
    // Discovery order {2}, {3}, {4}, then {1, 2} adopts {2}: the last top-level cycle ({4}) is
    // swapped into its slot, so the printed order is 4, 3, 1.
    let g = cfg(&[&[1], &[2, 3, 4], &[2, 1], &[3, 5], &[4, 5], &[]]);
    let ci = CycleInfo::new(&g);
    assert_eq!(
        print(&ci),
        "    depth=1: entries(b4)\n    depth=1: entries(b3)\n    depth=1: entries(b1) b2\n        depth=2: entries(b2)\n"
    );
    assert_eq!(ci.num_top_level(), 3);
    assert_eq!(ci.top_level().count(), 3);
}

#[test]
fn unreachable_predecessor_is_an_entry_only_in_llvm19_mode() {
    // 0 -> 1 -> 2 -> {1, 3}; 4 (unreachable) -> 2.
    let g = cfg(&[&[1], &[2], &[1, 3], &[], &[2]]);
    assert_eq!(print(&CycleInfo::new(&g)), "    depth=1: entries(b1) b2\n");
    let old = CycleInfo::with_mode(&g, UnreachablePreds::AreEntries);
    assert_eq!(print(&old), "    depth=1: entries(b1 b2)\n");
    assert_eq!(CycleInfo::new(&g).cycle_of(Block(4)), None);
}

#[test]
fn no_cycles() {
    let g = cfg(&[&[1, 2], &[3], &[3], &[]]);
    let ci = CycleInfo::new(&g);
    assert!(ci.is_empty());
    assert_eq!(print(&ci), "");
}

#[test]
fn rpo_explores_first_successor_first() {
    // 0 -> {1, 2}; 1 -> 3; 2 -> 3.
    let g = cfg(&[&[1, 2], &[3], &[3], &[], &[0]]);
    assert_eq!(nums(&reverse_post_order(&g)), vec![0, 2, 1, 3]);
}

#[test]
fn dominators_of_a_diamond_with_a_loop_and_unreachable_code() {
    // 0 -> {1, 2}; 1 -> 3; 2 -> 3; 3 -> {1, 4}; 5 (unreachable) -> 4.
    let g = cfg(&[&[1, 2], &[3], &[3], &[1, 4], &[], &[4]]);
    let dt = DominatorTree::new(&g);
    let idom: Vec<Option<u32>> = (0..6).map(|b| dt.idom(Block(b)).map(|d| d.0)).collect();
    assert_eq!(idom, vec![None, Some(0), Some(0), Some(0), Some(3), None]);
    assert!(dt.dominates(Block(0), Block(4)));
    assert!(dt.dominates(Block(3), Block(4)));
    assert!(!dt.dominates(Block(1), Block(3)));
    assert!(dt.dominates(Block(4), Block(4)) && !dt.properly_dominates(Block(4), Block(4)));
    // LLVM's convention for unreachable blocks.
    assert!(dt.dominates(Block(4), Block(5)));
    assert!(!dt.dominates(Block(5), Block(4)));
    assert_eq!(
        dt.nearest_common_dominator(Block(1), Block(2)),
        Some(Block(0))
    );
    assert_eq!(dt.nearest_common_dominator(Block(1), Block(5)), None);
    assert_eq!(
        dt.children(Block(0)).map(|b| b.0).collect::<Vec<_>>(),
        vec![1, 3, 2]
    );
    assert_eq!(dt.children(Block(5)).count(), 0);
    assert_eq!(nums(dt.preorder()), vec![0, 1, 3, 4, 2]);
    assert_eq!(dt.level(Block(4)), 2);
}

#[test]
fn post_dominators_with_two_exits_and_an_infinite_loop() {
    // 0 -> {1, 2}; 1 -> {3, 4}; 2 -> 3; 3 ret; 4 -> 5; 5 -> 4 (infinite loop).
    let g = cfg(&[&[1, 2], &[3, 4], &[3], &[], &[5], &[4]]);
    let pdt = PostDominatorTree::new(&g);
    assert_eq!(pdt.roots()[0], Block(3));
    assert_eq!(pdt.roots().len(), 2);
    assert_eq!(pdt.ipdom(Block(2)), Some(Block(3)));
    assert_eq!(pdt.ipdom(Block(3)), None);
    // 1 can leave through 3 or loop forever: only the virtual exit post-dominates it.
    assert_eq!(pdt.ipdom(Block(1)), None);
    assert_eq!(pdt.ipdom(Block(0)), None);
    assert!(pdt.post_dominates(Block(3), Block(2)));
    assert!(!pdt.post_dominates(Block(3), Block(1)));
    assert_eq!(g.num_blocks(), 6);
}

#[test]
fn post_dominator_roots_follow_llvm_find_roots() {
    // 0 ret; 1 -> {2, 3}; 2 -> 2; 3 -> 3 (1, 2, 3 never reach an exit). LLVM's forward search
    // from 1 takes successors in descending block order, so it numbers 3 and then 2: 2 is the
    // furthest and the first extra root; 3 stays unreached and becomes the next one. (An earlier
    // version explored the first successor first and picked 3 before 2.)
    let g = cfg(&[&[], &[2, 3], &[2], &[3]]);
    let pdt = PostDominatorTree::new(&g);
    assert_eq!(nums(pdt.roots()), vec![0, 2, 3]);
    assert_eq!(pdt.ipdom(Block(1)), None);

    // A redundant extra root is dropped. 0 ret; 1 -> {2, 3}; 2 -> 4; 3 -> 4; 4 -> 4. From 1 the
    // search numbers 1, 3, 4, then 2: root 2, which reverse-reaches only 1. From 3: root 4. Then
    // 2 reaches the root 4, so 2 is removed.
    let g = cfg(&[&[], &[2, 3], &[4], &[4], &[4]]);
    let pdt = PostDominatorTree::new(&g);
    assert_eq!(nums(pdt.roots()), vec![0, 4]);
    assert_eq!(pdt.ipdom(Block(2)), Some(Block(4)));
    assert_eq!(pdt.ipdom(Block(1)), Some(Block(4)));
}
