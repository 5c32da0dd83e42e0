//! Shapes of GPU code that the earlier families of issue 13 never made (session 20), each one
//! module (AMDGPU or NVPTX) of about `n` blocks whose branches mix the thread id (divergent) with a kernel
//! argument (uniform):
//! - [`diamonds_cfg`]: if-then-else nested `n / 3` deep, each level joining after all inner ones;
//! - [`exitnest_module`]: loops nested `n / 5` deep, each level leaving one and several levels at
//!   once (multi-level `break`), its counter used after the exits (temporal divergence);
//! - [`datachain_module`]: one loop around a chain of switches whose joins hold phis of the
//!   previous join's phis, every other switch on the previous phi (data and control divergence
//!   handed down the whole chain);
//! - [`tokens_module`]: loops nested `n / 5` deep with `entry`, `loop` and `anchor` convergence
//!   tokens and convergent calls, left divergently to several levels;
//! - [`manyfuncs_module`]: about `n / 13` small random functions (per-function costs);
//! - [`widephi_module`]: one loop whose header switches to `n` cases that all join in one block of
//!   phis with `n` incomings, half the cases also falling through to the next one divergently;
//! - [`latchy_module`]: one loop of `n / 2` blocks, each a back edge to the header and a
//!   divergent exit of its own;
//! - [`randnest_cfg`] (session 21): a random nest of loops up to 200 deep, with forward jumps of
//!   up to 30 blocks that leave loops and enter others past their headers (irreducible cycles
//!   nested in loops, thousands of blocks each).

use super::{Flavor, Options, module, module_header, tid_function_with_cfg};
use crate::rng::Rng;
use std::fmt::Write as _;

/// The families of this module, by their `gen_uniformity` names.
pub const NAMES: &[&str] = &[
    "diamonds",
    "exitnest",
    "datachain",
    "tokens",
    "manyfuncs",
    "widephi",
    "latchy",
    "randnest",
    "tempchain",
    "earlyret",
    "interp",
    "switchnest",
    "shiftreg",
    "shuffled-exitnest",
    "shuffled-latchy",
    "shuffled-datachain",
    "shuffled-tempchain",
    "shuffled-earlyret",
    "shuffled-switchnest",
];

/// The family named `name` (one of [`NAMES`], or `shuffled-` and one of them) at about `n`
/// blocks; `rng` only for `manyfuncs`, `randnest`, `interp`, `switchnest` and the shuffle.
pub fn by_name(name: &str, rng: &mut Rng, flavor: Flavor, n: usize) -> Option<String> {
    if let Some(inner) = name.strip_prefix("shuffled-") {
        let text = by_name(inner, rng, flavor, n)?;
        return Some(shuffle_blocks(rng, &text));
    }
    Some(match name {
        "diamonds" => diamonds_module(flavor, n),
        "exitnest" => exitnest_module(flavor, n),
        "datachain" => datachain_module(flavor, n),
        "tokens" => tokens_module(flavor, n),
        "manyfuncs" => manyfuncs_module(rng, flavor, n),
        "widephi" => widephi_module(flavor, n),
        "latchy" => latchy_module(flavor, n),
        "randnest" => randnest_module(rng, flavor, n),
        "tempchain" => tempchain_module(flavor, n),
        "earlyret" => earlyret_module(flavor, n),
        "interp" => interp_module(rng, flavor, n),
        "switchnest" => switchnest_module(rng, flavor, n),
        "shiftreg" => shiftreg_module(flavor, n),
        _ => return None,
    })
}

/// The kernel's head: `@big` with a buffer `%p` and a uniform `i32 %n`, the thread id in `%tid`.
fn kernel_head(out: &mut String, flavor: Flavor, attrs: &str) {
    let (cc, tid) = match flavor {
        Flavor::Nvptx => ("ptx_kernel", "@llvm.nvvm.read.ptx.sreg.tid.x"),
        Flavor::Amdgpu => ("amdgpu_kernel", "@llvm.amdgcn.workitem.id.x"),
    };
    let _ = writeln!(
        out,
        "define {cc} void @big(ptr addrspace(1) %p, i32 %n){attrs} {{\nentry:\n  %tid = call i32 {tid}()"
    );
}

/// If-then-else nested `depth` deep: 0 the entry, level `i` is the branch `c_i = 1 + 3i` to the
/// next level and to its else block `e_i = 2 + 3i`, both joining at `j_i = 3 + 3i`, which goes
/// to `j_{i-1}` (`j_0` to the returning block `1 + 3 depth`); the innermost branch goes to its
/// join directly. The successor order alternates per level. Every path of `c_i` meets again only
/// at `j_i`, after all deeper levels: a join walk per branch is quadratic.
pub fn diamonds_cfg(depth: usize) -> Vec<Vec<u32>> {
    let depth = depth.max(1);
    let n = 2 + 3 * depth;
    let (c, e, j) = (
        |i: usize| (1 + 3 * i) as u32,
        |i: usize| (2 + 3 * i) as u32,
        |i: usize| (3 + 3 * i) as u32,
    );
    let mut s = vec![Vec::new(); n];
    s[0] = vec![1];
    for i in 0..depth {
        let inner = if i + 1 < depth { c(i + 1) } else { j(i) };
        s[c(i) as usize] = if i % 2 == 0 {
            vec![inner, e(i)]
        } else {
            vec![e(i), inner]
        };
        s[e(i) as usize] = vec![j(i)];
        s[j(i) as usize] = vec![if i == 0 { (n - 1) as u32 } else { j(i - 1) }];
    }
    s
}

/// `diamonds`' module: [`diamonds_cfg`] of about `n` blocks, every branch on the thread id.
pub fn diamonds_module(flavor: Flavor, n: usize) -> String {
    let mut t = module_header(flavor);
    t.push_str(&tid_function_with_cfg(
        flavor,
        "big",
        &diamonds_cfg(n.saturating_sub(2) / 3),
    ));
    t
}

/// Loops nested `n / 5` deep with multi-level exits. Level `i` has a header `h_i` (a counter
/// phi and its increment `%n_i`, then on to `h_{i+1}`; the innermost to `k_i`), the block `k_i`
/// after the inner loop (a switch on the thread id: on to the latch `l_i`, out of loop `i` to
/// `xa_i`, or out of `1 + i % 3` more levels to `xb_i`), the exit blocks `xa_i` and `xb_i` (each
/// uses `%n_i`, defined in the loops it left: temporal divergence) and the latch `l_i` (a phi of
/// the values coming in, then back to `h_i` or out to `k_{i-1}`, on the kernel argument at even
/// levels and on the phi at odd ones). Exits past level 0 go to the returning block.
pub fn exitnest_module(flavor: Flavor, n: usize) -> String {
    let d = (n.saturating_sub(2) / 5).max(1);
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str("  br label %h0\n");
    // Incoming values of each latch (and of the returning block, index d): (value, block).
    let mut incoming: Vec<Vec<(String, String)>> = vec![Vec::new(); d + 1];
    let target = |i: usize, levels: usize| if i >= levels { i - levels } else { d };
    for i in 0..d {
        incoming[i].push((format!("%n{i}"), format!("k{i}")));
        incoming[target(i, 1)].push((format!("%a{i}"), format!("xa{i}")));
        incoming[target(i, 2 + i % 3)].push((format!("%b{i}"), format!("xb{i}")));
    }
    let latch = |i: usize| {
        if i == d {
            "ret".to_string()
        } else {
            format!("l{i}")
        }
    };
    for i in 0..d {
        let pre = if i == 0 {
            "entry".to_string()
        } else {
            format!("h{}", i - 1)
        };
        let next = if i + 1 < d {
            format!("h{}", i + 1)
        } else {
            format!("k{i}")
        };
        let _ = writeln!(
            out,
            "h{i}:\n  %i{i} = phi i32 [ 0, %{pre} ], [ %n{i}, %l{i} ]\n  %n{i} = add i32 %i{i}, 1\n  br label %{next}"
        );
    }
    for i in (0..d).rev() {
        let (a, b) = (latch(target(i, 1)), latch(target(i, 2 + i % 3)));
        let _ = writeln!(
            out,
            "k{i}:\n  switch i32 %tid, label %l{i} [\n    i32 {}, label %xa{i}\n    i32 {}, label %xb{i}\n  ]",
            i % 5,
            5 + i % 7
        );
        let _ = writeln!(
            out,
            "xa{i}:\n  %a{i} = mul i32 %n{i}, 3\n  store i32 %a{i}, ptr addrspace(1) %p, align 4\n  br label %{a}"
        );
        let _ = writeln!(
            out,
            "xb{i}:\n  %b{i} = xor i32 %n{i}, 5\n  store i32 %b{i}, ptr addrspace(1) %p, align 4\n  br label %{b}"
        );
        let phi: Vec<String> = incoming[i]
            .iter()
            .map(|(v, b)| format!("[ {v}, %{b} ]"))
            .collect();
        let cond = if i % 2 == 0 {
            format!("%n{i}, %n")
        } else {
            format!("%m{i}, %n")
        };
        let out_of = if i == 0 {
            "ret".to_string()
        } else {
            format!("k{}", i - 1)
        };
        let _ = writeln!(
            out,
            "l{i}:\n  %m{i} = phi i32 {}\n  %lc{i} = icmp slt i32 {cond}\n  br i1 %lc{i}, label %h{i}, label %{out_of}",
            phi.join(", ")
        );
    }
    let phi: Vec<String> = incoming[d]
        .iter()
        .chain(std::iter::once(&("%n0".to_string(), "l0".to_string())))
        .map(|(v, b)| format!("[ {v}, %{b} ]"))
        .collect();
    let _ = writeln!(
        out,
        "ret:\n  %r = phi i32 {}\n  store i32 %r, ptr addrspace(1) %p, align 4\n  ret void\n}}",
        phi.join(", ")
    );
    out
}

/// One loop around a chain of `n / 4` switches: the header `h` (a phi of the value at the end of
/// the chain), then per level `k` the join `j_k` (phis `%p_k`, `%r_k` of the values from its
/// three predecessors `a_{k-1}`, `b_{k-1}`, `c_{k-1}`, which hold the values of `j_{k-1}` and
/// arithmetic on them) switching to `a_k`, `b_k`, `c_k`, on `%p_{k-1}` at even levels and on
/// the kernel argument at odd ones; the last join goes to the latch, which adds the thread id
/// and loops on the kernel argument. Divergence enters at the header and reaches every phi
/// through data and through the switches on the phis.
pub fn datachain_module(flavor: Flavor, n: usize) -> String {
    let m = (n.saturating_sub(4) / 4).max(1);
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str(
        "  br label %head\nhead:\n  %h = phi i32 [ 0, %entry ], [ %last, %latch ]\n  br label %j0\n",
    );
    for k in 0..=m {
        if k == 0 {
            out.push_str("j0:\n  %p0 = add i32 %h, 1\n  %r0 = xor i32 %h, 7\n");
        } else {
            let q = k - 1;
            let _ = writeln!(
                out,
                "j{k}:\n  %p{k} = phi i32 [ %p{q}, %a{q} ], [ %x{q}, %b{q} ], [ %y{q}, %c{q} ]\n  %r{k} = phi i32 [ %r{q}, %a{q} ], [ %x{q}, %b{q} ], [ %p{q}, %c{q} ]"
            );
        }
        if k == m {
            break;
        }
        let on = if k % 2 == 0 {
            format!("%p{k}")
        } else {
            "%n".to_string()
        };
        let _ = writeln!(
            out,
            "  switch i32 {on}, label %a{k} [\n    i32 {}, label %b{k}\n    i32 {}, label %c{k}\n  ]",
            k % 3,
            3 + k % 5
        );
        let _ = writeln!(
            out,
            "a{k}:\n  br label %j{}\nb{k}:\n  %x{k} = add i32 %p{k}, {}\n  br label %j{}\nc{k}:\n  %y{k} = mul i32 %r{k}, %p{k}\n  br label %j{}",
            k + 1,
            k % 11,
            k + 1,
            k + 1
        );
    }
    let _ = writeln!(
        out,
        "  br label %latch\nlatch:\n  %last = add i32 %p{m}, %tid\n  %lc = icmp slt i32 %r{m}, %n\n  br i1 %lc, label %head, label %done\ndone:\n  store i32 %r{m}, ptr addrspace(1) %p, align 4\n  ret void\n}}"
    );
    out
}

/// The declarations [`tokens_module`] adds to the module header.
const TOKEN_DECLS: &str = "declare i32 @conv(i32) convergent\n\
declare token @llvm.experimental.convergence.entry()\n\
declare token @llvm.experimental.convergence.anchor()\n\
declare token @llvm.experimental.convergence.loop()\n\n";

/// Loops nested `n / 5` deep under convergence control: an `entry` token in the entry block;
/// per level `i` the header `h_i` (its `loop` heart on the token of the level above, a
/// convergent call and a `readfirstlane` on it, on NVPTX a second convergent call), on to `h_{i+1}` (the innermost to `m_i`); the
/// block `m_i` after the inner loop (an `anchor`, a convergent call on it, a switch on the
/// thread id to the latch `l_i` and to the exits `xa_i` (one level) and `xb_i` (`1 + i % 3`
/// more)), the exits (a convergent call on the token of the level they reach, at every fourth
/// level's `xa` first one on the token of the loop it left), the latch (back
/// to `h_i` on the kernel argument at even levels and on the loop's convergent call at odd
/// ones).
pub fn tokens_module(flavor: Flavor, n: usize) -> String {
    let d = (n.saturating_sub(2) / 5).max(1);
    // AMDGPU's `readfirstlane` is convergent and always uniform; NVPTX has none.
    let uniform = match flavor {
        Flavor::Amdgpu => "@llvm.amdgcn.readfirstlane.i32",
        Flavor::Nvptx => "@conv",
    };
    let mut out = module_header(flavor);
    out.push_str(TOKEN_DECLS);
    kernel_head(&mut out, flavor, " convergent");
    out.push_str("  %t = call token @llvm.experimental.convergence.entry()\n  br label %h0\n");
    let target = |i: usize, levels: usize| if i >= levels { Some(i - levels) } else { None };
    // The token of level `i`'s loop, or the entry's past the outermost.
    let token = |l: Option<usize>| l.map_or("%t".to_string(), |l| format!("%t{l}"));
    let block = |l: Option<usize>| l.map_or("ret".to_string(), |l| format!("l{l}"));
    let mut preds: Vec<Vec<String>> = vec![Vec::new(); d];
    for i in 0..d {
        preds[i].push(format!("m{i}"));
        for (x, levels) in [("xa", 1), ("xb", 2 + i % 3)] {
            if let Some(l) = target(i, levels) {
                preds[l].push(format!("{x}{i}"));
            }
        }
    }
    for i in 0..d {
        let (pre, up) = if i == 0 {
            ("entry".to_string(), "%t".to_string())
        } else {
            (format!("h{}", i - 1), format!("%t{}", i - 1))
        };
        let next = if i + 1 < d {
            format!("h{}", i + 1)
        } else {
            format!("m{i}")
        };
        let _ = writeln!(
            out,
            "h{i}:\n  %i{i} = phi i32 [ 0, %{pre} ], [ %n{i}, %l{i} ]\n  %t{i} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token {up}) ]\n  %n{i} = add i32 %i{i}, 1\n  %v{i} = call i32 @conv(i32 %n{i}) [ \"convergencectrl\"(token %t{i}) ]\n  %u{i} = call i32 {uniform}(i32 %tid) [ \"convergencectrl\"(token %t{i}) ]\n  br label %{next}"
        );
    }
    for i in (0..d).rev() {
        let _ = writeln!(
            out,
            "m{i}:\n  %a{i} = call token @llvm.experimental.convergence.anchor()\n  %w{i} = call i32 @conv(i32 %u{i}) [ \"convergencectrl\"(token %a{i}) ]\n  switch i32 %tid, label %l{i} [\n    i32 {}, label %xa{i}\n    i32 {}, label %xb{i}\n  ]",
            i % 5,
            5 + i % 7
        );
        for (x, levels) in [("xa", 1), ("xb", 2 + i % 3)] {
            let l = target(i, levels);
            let _ = writeln!(out, "{x}{i}:");
            if x == "xa" && i % 4 == 0 {
                // A use of the token of the loop just left, outside it (before the use of the
                // enclosing loop's token, so that the regions nest): the exit's first use lies
                // in that loop heart's convergence region.
                let _ = writeln!(
                    out,
                    "  %{x}w{i} = call i32 @conv(i32 %n{i}) [ \"convergencectrl\"(token %t{i}) ]"
                );
            }
            let _ = writeln!(
                out,
                "  %{x}v{i} = call i32 @conv(i32 %n{i}) [ \"convergencectrl\"(token {}) ]\n  store i32 %{x}v{i}, ptr addrspace(1) %p, align 4\n  br label %{}",
                token(l),
                block(l)
            );
        }
        let cond = if i % 2 == 0 {
            format!("%n{i}, %n")
        } else {
            format!("%v{i}, %n")
        };
        let out_of = if i == 0 {
            "ret".to_string()
        } else {
            format!("m{}", i - 1)
        };
        let _ = writeln!(
            out,
            "l{i}:\n  %lc{i} = icmp slt i32 {cond}\n  br i1 %lc{i}, label %h{i}, label %{out_of}"
        );
    }
    out.push_str("ret:\n  ret void\n}\n");
    out
}

/// About `n / 13` random functions of 2 to 24 blocks (13 on average) of every shape
/// ([`module`]'s defaults), mixed uniform and divergent branches: per-function costs.
pub fn manyfuncs_module(rng: &mut Rng, flavor: Flavor, n: usize) -> String {
    module(rng, (n / 13).max(1), &Options::new(flavor))
}

/// One loop whose header `h` switches on the thread id to `n - 4` cases `c_i` (each defines
/// `%x_i` from the header's counter), all joining in `j`, whose four phis have one incoming per
/// case; even cases also fall through to the next one on the thread id. `j` loops back through
/// the latch (on the kernel argument) and the exit stores one of `j`'s phis.
pub fn widephi_module(flavor: Flavor, n: usize) -> String {
    let k = n.saturating_sub(4).max(2);
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str(
        "  br label %head\nhead:\n  %h = phi i32 [ 0, %entry ], [ %hn, %latch ]\n  switch i32 %tid, label %c0 [",
    );
    for i in 1..k {
        let _ = write!(out, "\n    i32 {i}, label %c{i}");
    }
    out.push_str("\n  ]\n");
    let mut incoming: Vec<usize> = Vec::new();
    for i in 0..k {
        let _ = writeln!(out, "c{i}:\n  %x{i} = add i32 %h, {i}");
        incoming.push(i);
        if i % 2 == 0 && i + 1 < k {
            let _ = writeln!(
                out,
                "  %cc{i} = icmp ult i32 %tid, {}\n  br i1 %cc{i}, label %j, label %c{}",
                i % 9 + 1,
                i + 1
            );
        } else {
            out.push_str("  br label %j\n");
        }
    }
    // One incoming per case: %x_i, a constant, the header's counter, and %x_i or the counter.
    for w in 0..4 {
        let _ = write!(out, "{}  %w{w} = phi i32", if w == 0 { "j:\n" } else { "" });
        for (e, &i) in incoming.iter().enumerate() {
            let sep = if e == 0 { " " } else { ", " };
            let v = match w {
                1 => format!("{}", i % 5),
                2 => "%h".to_string(),
                3 if i % 2 == 1 => "%h".to_string(),
                _ => format!("%x{i}"),
            };
            let _ = write!(out, "{sep}[ {v}, %c{i} ]");
        }
        out.push('\n');
    }
    out.push_str(
        "  %s = add i32 %w0, %w1\n  store i32 %s, ptr addrspace(1) %p, align 4\n  br label %latch\nlatch:\n  %hn = add i32 %h, 1\n  %lc = icmp slt i32 %hn, %n\n  br i1 %lc, label %head, label %exit\nexit:\n  store i32 %w3, ptr addrspace(1) %p, align 4\n  ret void\n}\n",
    );
    out
}

/// One loop of `n / 2 - 2` blocks `b_k` after its header `h` (a counter phi with one incoming
/// per block, its increment `%i1`): each switches to the next block, back to the header and out
/// to its own exit `x_k`, on the thread id at even `k` and on the kernel argument at odd ones
/// (the last block goes back or out). Each exit uses `%i1` (temporal divergence) and goes to the
/// returning block, whose phi has one incoming per exit.
pub fn latchy_module(flavor: Flavor, n: usize) -> String {
    let m = (n.saturating_sub(3) / 2).max(2);
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str("  br label %h\nh:\n  %i = phi i32 [ 0, %entry ]");
    for k in 0..m {
        let _ = write!(out, ", [ %i1, %b{k} ]");
    }
    out.push_str("\n  %i1 = add i32 %i, 1\n  br label %b0\n");
    for k in 0..m {
        let on = if k % 2 == 0 { "%tid" } else { "%n" };
        let _ = writeln!(out, "b{k}:");
        if k + 1 < m {
            let _ = writeln!(
                out,
                "  switch i32 {on}, label %b{} [\n    i32 {}, label %h\n    i32 {}, label %x{k}\n  ]",
                k + 1,
                k % 4,
                4 + k % 6
            );
        } else {
            let _ = writeln!(
                out,
                "  %bc = icmp slt i32 %tid, %i1\n  br i1 %bc, label %h, label %x{k}"
            );
        }
        let _ = writeln!(out, "x{k}:\n  %e{k} = add i32 %i1, {k}\n  br label %ret");
    }
    out.push_str("ret:\n  %r = phi i32");
    for k in 0..m {
        let sep = if k == 0 { " " } else { ", " };
        let _ = write!(out, "{sep}[ %e{k}, %x{k} ]");
    }
    out.push_str("\n  store i32 %r, ptr addrspace(1) %p, align 4\n  ret void\n}\n");
    out
}

/// Random loop nests in one function of `n + 2` blocks, read top to bottom: each block opens a
/// loop (30%: it becomes a header), closes the innermost open one (25%: a divergent latch back
/// to its header, else on to the next block), jumps ahead divergently by 1-30 blocks (20%, when
/// inside a loop: such jumps leave loops and enter later ones past their headers), or falls
/// through; at most 200 loops are open. Forward jumps into a loop body make irreducible cycles
/// that can span thousands of blocks and nest dozens deep. The last block returns.
pub fn randnest_cfg(rng: &mut Rng, n: usize) -> Vec<Vec<u32>> {
    let n = n.max(4);
    let mut succs: Vec<Vec<u32>> = vec![vec![1]];
    let mut open: Vec<u32> = Vec::new();
    for k in 1..=n as u32 {
        let r = rng.below(100);
        let next = k + 1;
        succs.push(if r < 30 && open.len() < 200 {
            open.push(k);
            vec![next]
        } else if r < 55 && !open.is_empty() {
            let h = open.pop().expect("an open loop");
            vec![h, next]
        } else if r < 75 && !open.is_empty() {
            let far = (k + 1 + rng.below(30) as u32).min(n as u32 + 1);
            if far == next {
                vec![next]
            } else {
                vec![next, far]
            }
        } else {
            vec![next]
        });
    }
    succs.push(Vec::new());
    succs
}

/// [`randnest_cfg`] as a module: every branch on the thread id, a phi of per-edge constants at
/// every block with several predecessors.
pub fn randnest_module(rng: &mut Rng, flavor: Flavor, n: usize) -> String {
    let mut t = module_header(flavor);
    t.push_str(&tid_function_with_cfg(flavor, "big", &randnest_cfg(rng, n)));
    t
}

/// A function body being read by [`shuffle_blocks`]: its lines, and its blocks as line ranges.
type Body<'a> = (Vec<&'a str>, Vec<(usize, usize)>);

/// `text` with the blocks of every function body after its first laid out in a random order
/// (the entry block stays first): the same CFG and values, but block indices, which follow the
/// text, no longer follow any order of the CFG (session 22's `shuffled-FAMILY`). A block starts
/// at a line that is not indented and ends with `:`; a body ends at a line starting with `}`.
pub fn shuffle_blocks(rng: &mut Rng, text: &str) -> String {
    let is_label = |l: &str| !l.starts_with([' ', '\t']) && l.trim_end().ends_with(':');
    let mut out = String::with_capacity(text.len());
    // The current function's blocks as ranges of `lines`, and its lines.
    let mut body: Option<Body> = None;
    for line in text.split_inclusive('\n') {
        let Some((lines, blocks)) = &mut body else {
            out.push_str(line);
            if line.starts_with("define ") && line.trim_end().ends_with('{') {
                body = Some((Vec::new(), Vec::new()));
            }
            continue;
        };
        if line.starts_with('}') {
            if let Some(last) = blocks.last_mut() {
                last.1 = lines.len();
            }
            // Lines before the first label belong to the entry block.
            let head = blocks.first().map_or(lines.len(), |b| b.0);
            out.extend(lines[..head].iter().copied());
            let mut order: Vec<usize> = (0..blocks.len()).collect();
            // Fisher-Yates over all but the entry block.
            for i in (2..order.len()).rev() {
                let j = 1 + rng.below(i);
                order.swap(i, j);
            }
            for k in order {
                let (a, b) = blocks[k];
                out.extend(lines[a..b].iter().copied());
            }
            out.push_str(line);
            body = None;
            continue;
        }
        if is_label(line) {
            if let Some(last) = blocks.last_mut() {
                last.1 = lines.len();
            }
            blocks.push((lines.len(), lines.len()));
        }
        lines.push(line);
    }
    out
}

/// What a block of [`cond_function`] branches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// The thread id: divergent.
    Tid,
    /// The kernel argument `%n`: uniform.
    Arg,
    /// The block's own phi (the kernel argument if it has none): divergent only once data or a
    /// join brings divergence to the phi.
    Phi,
}

/// A kernel `@big` on the CFG `succs` (block 0 its entry, blocks without successors return),
/// each branching on what `conds` says. A block with several predecessors has a phi `%v_b`
/// whose incoming from a predecessor that has a phi itself is, on every third edge, that phi
/// (a data chain along the CFG), else a constant.
pub fn cond_function(flavor: Flavor, succs: &[Vec<u32>], conds: &[Cond]) -> String {
    let n = succs.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (b, s) in succs.iter().enumerate() {
        for &t in s {
            preds[t as usize].push(b as u32);
        }
    }
    let has_phi = |b: usize| preds[b].len() > 1 && b != 0;
    let label = |b: usize| {
        if b == 0 {
            "entry".to_string()
        } else {
            format!("b{b}")
        }
    };
    let mut out = String::new();
    kernel_head(&mut out, flavor, "");
    for b in 0..n {
        if b > 0 {
            let _ = writeln!(out, "b{b}:");
        }
        if has_phi(b) {
            let _ = write!(out, "  %v{b} = phi i32");
            for (k, &p) in preds[b].iter().enumerate() {
                let sep = if k == 0 { " " } else { ", " };
                let v = if has_phi(p as usize) && (p as usize + b).is_multiple_of(3) {
                    format!("%v{p}")
                } else {
                    format!("{}", p % 7)
                };
                let _ = write!(out, "{sep}[ {v}, %{} ]", label(p as usize));
            }
            out.push('\n');
        }
        let on = match conds[b] {
            Cond::Tid => "%tid".to_string(),
            Cond::Phi if has_phi(b) => format!("%v{b}"),
            _ => "%n".to_string(),
        };
        let s = &succs[b];
        match s.len() {
            0 => out.push_str("  ret void\n"),
            1 => {
                let _ = writeln!(out, "  br label %{}", label(s[0] as usize));
            }
            2 => {
                let _ = writeln!(
                    out,
                    "  %c{b} = icmp slt i32 {on}, {}\n  br i1 %c{b}, label %{}, label %{}",
                    b % 13,
                    label(s[0] as usize),
                    label(s[1] as usize)
                );
            }
            _ => {
                let _ = write!(out, "  switch i32 {on}, label %{} [", label(s[0] as usize));
                for (k, &t) in s[1..].iter().enumerate() {
                    let _ = write!(out, "\n    i32 {k}, label %{}", label(t as usize));
                }
                out.push_str("\n  ]\n");
            }
        }
    }
    out.push_str("}\n");
    out
}

/// A CFG under construction: successor lists and what each block branches on.
struct Builder {
    succs: Vec<Vec<u32>>,
    conds: Vec<Cond>,
}

impl Builder {
    fn block(&mut self, cond: Cond) -> u32 {
        self.succs.push(Vec::new());
        self.conds.push(cond);
        (self.succs.len() - 1) as u32
    }

    /// A switch of 2-5 cases joining in one block, with `budget` blocks in all: the first and
    /// last cases are loops around a nested region when the budget allows, a case falls into
    /// the next one (on its phi, or the thread id) at even positions. Returns (first block,
    /// last block), the last without successors yet. The switch is on its phi, the thread id
    /// or the argument by depth; the loops' latches on the argument, every fourth depth on the
    /// thread id.
    fn switch_region(&mut self, rng: &mut Rng, budget: usize, depth: usize) -> (u32, u32) {
        let k = 2 + rng.below(4);
        let on = [Cond::Phi, Cond::Tid, Cond::Arg][depth % 3];
        let s = self.block(on);
        let loops: Vec<usize> = if budget >= 16 + 2 * k {
            if k > 2 { vec![0, k - 1] } else { vec![0] }
        } else {
            Vec::new()
        };
        let sub = budget.saturating_sub(2 + 2 * k) / loops.len().max(1);
        // Each case: (its first block, its last block).
        let mut cases = Vec::with_capacity(k);
        for i in 0..k {
            if loops.contains(&i) {
                let h = self.block(Cond::Arg);
                let (first, last) = self.switch_region(rng, sub, depth + 1);
                self.succs[h as usize].push(first);
                let latch_on = if depth % 4 == 3 { Cond::Tid } else { Cond::Arg };
                let l = self.block(latch_on);
                self.succs[last as usize].push(l);
                self.succs[l as usize].push(h);
                cases.push((h, l));
            } else {
                let c = self.block(if i % 2 == 0 { Cond::Phi } else { Cond::Tid });
                cases.push((c, c));
            }
        }
        let m = self.block(Cond::Arg);
        self.succs[s as usize] = cases.iter().map(|c| c.0).collect();
        for i in 0..k {
            let last = cases[i].1 as usize;
            self.succs[last].push(m);
            if i % 2 == 0 && i + 1 < k {
                self.succs[last].push(cases[i + 1].0);
            }
        }
        (s, m)
    }
}

/// Switches inside loops inside switches, about `n` blocks: `Builder::switch_region` from
/// the entry to the returning block; the nest is about log2(n) deep, cases fall into their
/// neighbours, and most switches are on phis (divergent once a join upstream is).
pub fn switchnest_module(rng: &mut Rng, flavor: Flavor, n: usize) -> String {
    let mut b = Builder {
        succs: Vec::new(),
        conds: Vec::new(),
    };
    let entry = b.block(Cond::Arg);
    // (The regions use about half their budget: leaves stop short of it.)
    let (first, last) = b.switch_region(rng, 2 * n.saturating_sub(2).max(4), 0);
    b.succs[entry as usize].push(first);
    let ret = b.block(Cond::Arg);
    b.succs[last as usize].push(ret);
    let mut t = module_header(flavor);
    t.push_str(&cond_function(flavor, &b.succs, &b.conds));
    t
}

/// A chain of `n / 4` loops, each leaving on its counter against the value that left the loop
/// before (the first on the thread id): loop `i` is a header `h_i` (a counter phi, its
/// increment), a latch `b_i` back to `h_i` or out to `x_i`, which uses the counter outside the
/// loop (temporal divergence) and branches on it to the next header directly or through `s_i`.
/// Each loop's exit is divergent only through the temporal divergence of the one before: a
/// cascade thousands of loops long.
pub fn tempchain_module(flavor: Flavor, n: usize) -> String {
    let k = (n.saturating_sub(2) / 4).max(1);
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str("  br label %h0\n");
    for i in 0..k {
        let pre = if i == 0 {
            "[ 0, %entry ]".to_string()
        } else {
            format!("[ 0, %x{} ], [ 1, %s{} ]", i - 1, i - 1)
        };
        let limit = if i == 0 {
            "%tid".to_string()
        } else {
            format!("%xv{}", i - 1)
        };
        let next = if i + 1 < k {
            format!("h{}", i + 1)
        } else {
            "ret".to_string()
        };
        let _ = writeln!(
            out,
            "h{i}:\n  %c{i} = phi i32 {pre}, [ %d{i}, %b{i} ]\n  %d{i} = add i32 %c{i}, 1\n  br label %b{i}\nb{i}:\n  %e{i} = icmp slt i32 %d{i}, {limit}\n  br i1 %e{i}, label %h{i}, label %x{i}\nx{i}:\n  %xv{i} = add i32 %d{i}, {i}\n  %y{i} = icmp slt i32 %xv{i}, %n\n  br i1 %y{i}, label %{next}, label %s{i}\ns{i}:\n  br label %{next}"
        );
    }
    let l = k - 1;
    let _ = writeln!(
        out,
        "ret:\n  %r = phi i32 [ %xv{l}, %x{l} ], [ 0, %s{l} ]\n  store i32 %r, ptr addrspace(1) %p, align 4\n  ret void\n}}"
    );
    out
}

/// `n / 4` loops one after the other, each a header `h_i` (a counter carried over from the loop
/// before), a block `b_i` switching to the latch `l_i`, to an early return (the shared block
/// `ret`) and to a `break` (`x_i`), on the thread id, the argument or the counter by turns; the
/// latch loops on the argument. `ret`'s phi has one incoming per loop (the counter: temporal
/// divergence), so every divergent branch joins there, at the function's end.
pub fn earlyret_module(flavor: Flavor, n: usize) -> String {
    let k = (n.saturating_sub(2) / 4).max(1);
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str("  br label %h0\n");
    for i in 0..k {
        let pre = if i == 0 {
            "[ 0, %entry ]".to_string()
        } else {
            format!("[ %s{}, %x{} ]", i - 1, i - 1)
        };
        let on = match i % 3 {
            0 => "%tid".to_string(),
            1 => "%n".to_string(),
            _ => format!("%c{i}"),
        };
        let next = if i + 1 < k {
            format!("h{}", i + 1)
        } else {
            "ret".to_string()
        };
        let _ = writeln!(
            out,
            "h{i}:\n  %c{i} = phi i32 {pre}, [ %cn{i}, %l{i} ]\n  %cn{i} = add i32 %c{i}, 1\n  br label %b{i}\nb{i}:\n  switch i32 {on}, label %l{i} [\n    i32 {}, label %ret\n    i32 {}, label %x{i}\n  ]\nl{i}:\n  %lc{i} = icmp slt i32 %cn{i}, %n\n  br i1 %lc{i}, label %h{i}, label %x{i}\nx{i}:\n  %s{i} = phi i32 [ %cn{i}, %b{i} ], [ %c{i}, %l{i} ]\n  br label %{next}",
            i % 5,
            5 + i % 7
        );
    }
    out.push_str("ret:\n  %r = phi i32");
    for i in 0..k {
        let _ = write!(out, "{}[ %cn{i}, %b{i} ]", if i == 0 { " " } else { ", " });
    }
    let l = k - 1;
    let _ = writeln!(
        out,
        ", [ %s{l}, %x{l} ]\n  store i32 %r, ptr addrspace(1) %p, align 4\n  ret void\n}}"
    );
    out
}

/// An interpreter: a dispatch block `d` (the program counter `%pc`, a phi with one incoming per
/// case, and the opcode loaded at `%p[%pc]`) switching to about `2n / 3` cases, each with a
/// phi of the counters brought in: by turns a case with a small loop of its own (`c_i`, `l_i`,
/// `x_i`), a threaded jump straight to a random case or back to `d`, a plain step (adding the
/// thread id to `%pc` in one case of 32, the argument otherwise), and a computed jump to two
/// random cases or `d`. The cases' direct jumps make irreducible cycles with hundreds of
/// entries inside the dispatch loop; divergence enters in a few cases and reaches every switch
/// through `%pc` and the load from a divergent address.
pub fn interp_module(rng: &mut Rng, flavor: Flavor, n: usize) -> String {
    let k = (n.saturating_sub(3) * 2 / 3).max(4);
    // Direct jumps of case i: distinct targets.
    let mut jumps: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, j) in jumps.iter_mut().enumerate() {
        let want = match i % 4 {
            1 => 1,
            3 => 2,
            _ => 0,
        };
        while j.len() < want {
            let t = rng.below(k);
            if !j.contains(&t) {
                j.push(t);
            }
        }
    }
    // The block each case leaves from (to `d` or to other cases).
    let tail = |i: usize| {
        if i.is_multiple_of(4) {
            format!("x{i}")
        } else {
            format!("c{i}")
        }
    };
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, j) in jumps.iter().enumerate() {
        for &t in j {
            into[t].push(i);
        }
    }
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str("  br label %d\nd:\n  %pc = phi i32 [ 0, %entry ]");
    for i in 0..k {
        let _ = write!(out, ", [ %np{i}, %{} ]", tail(i));
    }
    out.push_str("\n  %a = getelementptr i32, ptr addrspace(1) %p, i32 %pc\n  %op = load i32, ptr addrspace(1) %a, align 4\n  switch i32 %op, label %exit [");
    for i in 0..k {
        let _ = write!(out, "\n    i32 {i}, label %c{i}");
    }
    out.push_str("\n  ]\n");
    for i in 0..k {
        let _ = write!(out, "c{i}:\n  %v{i} = phi i32 [ %pc, %d ]");
        for &f in &into[i] {
            let _ = write!(out, ", [ %np{f}, %{} ]", tail(f));
        }
        out.push('\n');
        match i % 4 {
            0 => {
                let _ = writeln!(
                    out,
                    "  br label %l{i}\nl{i}:\n  %k{i} = phi i32 [ 0, %c{i} ], [ %kn{i}, %l{i} ]\n  %kn{i} = add i32 %k{i}, 1\n  %lc{i} = icmp slt i32 %kn{i}, %op\n  br i1 %lc{i}, label %l{i}, label %x{i}\nx{i}:\n  %np{i} = add i32 %v{i}, %kn{i}\n  br label %d"
                );
            }
            1 => {
                let _ = writeln!(
                    out,
                    "  %np{i} = add i32 %v{i}, 1\n  %jc{i} = icmp eq i32 %op, {}\n  br i1 %jc{i}, label %c{}, label %d",
                    i % 17,
                    jumps[i][0]
                );
            }
            2 => {
                let by = if i % 32 == 2 { "%tid" } else { "%n" };
                let _ = writeln!(out, "  %np{i} = add i32 %v{i}, {by}\n  br label %d");
            }
            _ => {
                let _ = writeln!(
                    out,
                    "  %np{i} = xor i32 %v{i}, 3\n  switch i32 %v{i}, label %d [\n    i32 1, label %c{}\n    i32 2, label %c{}\n  ]",
                    jumps[i][0], jumps[i][1]
                );
            }
        }
    }
    out.push_str("exit:\n  store i32 %pc, ptr addrspace(1) %p, align 4\n  ret void\n}\n");
    out
}

/// One loop around `2n / 5` if-then-else diamonds and selects, the loop carrying a shift
/// register of header phis: `%r_k` takes the value at the end of diamond `k + 1` from the
/// latch, the last one the thread id added there. Diamond `k` (even `k`; odd ones are a select
/// in one block, with a load from `%p[%r_k]`) branches on `%r_k` and joins in `%s_k`. Only the
/// latch brings divergence in; it reaches the branches one by one from the last to the first,
/// through the latch and the header's phis (late divergence, against the text's order).
pub fn shiftreg_module(flavor: Flavor, n: usize) -> String {
    let m = (n.saturating_sub(4) * 2 / 5).max(2);
    let mut out = module_header(flavor);
    kernel_head(&mut out, flavor, "");
    out.push_str("  br label %h\nh:\n  %it = phi i32 [ 0, %entry ], [ %it1, %latch ]\n");
    for k in 0..m {
        let next = if k + 1 < m {
            format!("%s{}", k + 1)
        } else {
            "%z".to_string()
        };
        let _ = writeln!(out, "  %r{k} = phi i32 [ %n, %entry ], [ {next}, %latch ]");
    }
    out.push_str("  br label %c0\n");
    for k in 0..m {
        let next = if k + 1 < m {
            format!("c{}", k + 1)
        } else {
            "latch".to_string()
        };
        let _ = writeln!(
            out,
            "c{k}:\n  %q{k} = icmp slt i32 %r{k}, {}\n  %a{k} = add i32 %r{k}, 1",
            k % 11
        );
        if k % 2 == 0 {
            let _ = writeln!(
                out,
                "  br i1 %q{k}, label %t{k}, label %e{k}\nt{k}:\n  br label %j{k}\ne{k}:\n  %l{k} = xor i32 %r{k}, 5\n  br label %j{k}\nj{k}:\n  %s{k} = phi i32 [ %a{k}, %t{k} ], [ %l{k}, %e{k} ]\n  br label %{next}"
            );
        } else {
            let _ = writeln!(
                out,
                "  %g{k} = getelementptr i32, ptr addrspace(1) %p, i32 %r{k}\n  %l{k} = load i32, ptr addrspace(1) %g{k}, align 4\n  %s{k} = select i1 %q{k}, i32 %a{k}, i32 %l{k}\n  br label %{next}"
            );
        }
    }
    let l = m - 1;
    let _ = writeln!(
        out,
        "latch:\n  %z = add i32 %s0, %tid\n  %it1 = add i32 %it, 1\n  %lc = icmp slt i32 %it1, %n\n  br i1 %lc, label %h, label %exit\nexit:\n  store i32 %s{l}, ptr addrspace(1) %p, align 4\n  ret void\n}}"
    );
    out
}
