//! Finding a value or a block of a function by the name the user typed (`%x`, `x`, `%3`, `3`,
//! quoted names), as the IR printer spells them.

use super::reasons::Node;
use converge_graph::Block;
use converge_ir::{FuncId, Module};

/// Finds a value by its printed name (`%x`, `x`, `%3`, `3`).
pub fn find_value(m: &Module, fid: FuncId, name: &str) -> Option<Node> {
    let want = normalize(name);
    let f = m.func(fid);
    (0..f.params.len() as u32)
        .map(Node::Arg)
        .chain((0..f.insts.len() as u32).map(Node::Inst))
        .find(|&n| {
            let named = match n {
                Node::Arg(a) => f.params[a as usize].name != converge_ir::LocalName::None,
                Node::Inst(i) => f.insts[i as usize].name() != converge_ir::LocalName::None,
            };
            named && m.value_name(fid, n.value()) == want
        })
}

/// Finds a block by its name (`%bb`, `bb`, `%2`, `2`).
pub fn find_block(m: &Module, fid: FuncId, name: &str) -> Option<Block> {
    let want = normalize(name);
    (0..m.func(fid).blocks.len() as u32)
        .map(Block)
        .find(|&b| m.block_operand(fid, b) == want)
}

fn normalize(name: &str) -> String {
    let n = name.trim();
    if n.starts_with('%') {
        n.to_string()
    } else {
        let quoted = !n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'))
            || n.starts_with(|c: char| c.is_ascii_digit())
                && !n.chars().all(|c| c.is_ascii_digit());
        if quoted {
            format!("%\"{n}\"")
        } else {
            format!("%{n}")
        }
    }
}
