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
];

/// The family named `name` (one of [`NAMES`]) at about `n` blocks; `rng` only for `manyfuncs`.
pub fn by_name(name: &str, rng: &mut Rng, flavor: Flavor, n: usize) -> Option<String> {
    Some(match name {
        "diamonds" => diamonds_module(flavor, n),
        "exitnest" => exitnest_module(flavor, n),
        "datachain" => datachain_module(flavor, n),
        "tokens" => tokens_module(flavor, n),
        "manyfuncs" => manyfuncs_module(rng, flavor, n),
        "widephi" => widephi_module(flavor, n),
        "latchy" => latchy_module(flavor, n),
        "randnest" => randnest_module(rng, flavor, n),
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
