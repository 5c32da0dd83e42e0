//! Structured kernels full of convergent operations, for checking LLVM's code-moving passes with
//! `converge check-transform`.
//!
//! A kernel `@k(ptr addrspace(1) %out, i32 %n, i32 %m)` threads an accumulator through a random
//! nest of statements: convergent operations (subgroup reductions, broadcasts, ballots, a barrier,
//! and on AMDGPU `llvm.amdgcn.readfirstlane`), if/else on divergent (thread id, data) and uniform
//! (argument) conditions, and loops with runtime trip counts (uniform or per thread), some with a
//! divergent early exit. Every result feeds the accumulator, stored at the end, so no operation is
//! dead. With `tokens`, the kernel is controlled: `entry` at the top, a loop heart in every loop
//! header, anchors at the start of some branches and loop bodies, and every operation carries the
//! innermost token in scope (the static rules hold by construction).

use crate::rng::Rng;
use std::fmt::Write;

/// The target a generated kernel is written for (its triple and intrinsics).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GpuTarget {
    /// `amdgcn-amd-amdhsa`, AMDGPU intrinsics.
    Amdgpu,
    /// `nvptx64-nvidia-cuda`, NVVM intrinsics.
    Nvptx,
}

/// What a generated convergent kernel contains.
#[derive(Clone, Debug)]
pub struct ConvergentOptions {
    /// The target the kernel is written for.
    pub target: GpuTarget,
    /// Controlled convergence (tokens) instead of uncontrolled convergent calls.
    pub tokens: bool,
    /// Statements per sequence at most.
    pub max_stmts: usize,
    /// Nesting depth of ifs and loops at most.
    pub max_depth: u32,
}

impl Default for ConvergentOptions {
    fn default() -> Self {
        ConvergentOptions {
            target: GpuTarget::Amdgpu,
            tokens: false,
            max_stmts: 3,
            max_depth: 2,
        }
    }
}

struct Emit<'a> {
    rng: &'a mut Rng,
    o: &'a ConvergentOptions,
    out: String,
    next: u32,
    /// The block being emitted.
    block: String,
    /// The innermost token in scope (tokens mode).
    tok: String,
    tid: &'static str,
    /// Whether `@helper` (a function of the module without convergent operations) is called.
    helper: bool,
    /// Whether `@cfn` (a convergent function of the module with convergent operations) is called.
    cfn: bool,
}

impl Emit<'_> {
    fn fresh(&mut self, p: &str) -> String {
        self.next += 1;
        format!("{p}{}", self.next)
    }
    fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "  {s}");
    }
    fn label(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
        self.block = l.to_string();
    }
    fn bundle(&self) -> String {
        if self.o.tokens {
            format!(" [ \"convergencectrl\"(token %{}) ]", self.tok)
        } else {
            String::new()
        }
    }

    /// A convergent operation on `acc`; returns the new accumulator.
    fn op(&mut self, acc: &str) -> String {
        let x = self.fresh("x");
        let c = self.rng.below(7) + 1;
        self.line(&format!("%{x} = add i32 %{acc}, {c}"));
        let v = self.fresh("v");
        let b = self.bundle();
        let n_ops = if self.o.target == GpuTarget::Amdgpu {
            5
        } else {
            4
        };
        match self.rng.below(n_ops) {
            0 => self.line(&format!("%{v} = call i32 @subgroupAdd(i32 %{x}){b}")),
            1 => self.line(&format!(
                "%{v} = call i32 @subgroupBroadcastFirst(i32 %{x}){b}"
            )),
            2 => {
                let p = self.fresh("p");
                let tid = self.tid;
                self.line(&format!("%{p} = icmp ult i32 %{x}, %{tid}"));
                self.line(&format!("%{v} = call i32 @subgroupBallot(i1 %{p}){b}"));
            }
            3 => {
                self.line(&format!("call void @subgroupControlBarrier(){b}"));
                let r = self.fresh("acc");
                self.line(&format!("%{r} = mul i32 %{x}, 3"));
                return r;
            }
            _ => self.line(&format!(
                "%{v} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %{x}){b}"
            )),
        }
        let r = self.fresh("acc");
        self.line(&format!("%{r} = xor i32 %{acc}, %{v}"));
        r
    }

    /// A call of `@helper`, which branches and loops on its argument without convergent operations:
    /// inlining it changes the control flow around the kernel's operations.
    fn call_helper(&mut self, acc: &str) -> String {
        self.helper = true;
        let r = self.fresh("acc");
        self.line(&format!("%{r} = call i32 @helper(i32 %{acc})"));
        r
    }

    /// A call of `@cfn`, a convergent function with a divergent branch around a reduction and a
    /// broadcast after it (with tokens: its own `entry`, the call carrying the token in scope):
    /// what the inliner must keep.
    fn call_cfn(&mut self, acc: &str) -> String {
        self.cfn = true;
        let r = self.fresh("acc");
        let b = self.bundle();
        self.line(&format!("%{r} = call i32 @cfn(i32 %{acc}){b}"));
        r
    }

    /// A condition: divergent (thread id or data) or uniform (arguments).
    fn cond(&mut self, acc: &str) -> String {
        let c = self.fresh("c");
        let k = self.rng.below(4);
        let tid = self.tid;
        match self.rng.below(4) {
            0 => self.line(&format!("%{c} = icmp ult i32 %{tid}, {}", k + 1)),
            1 => {
                let a = self.fresh("t");
                self.line(&format!("%{a} = and i32 %{acc}, 1"));
                self.line(&format!("%{c} = icmp eq i32 %{a}, 0"));
            }
            2 => self.line(&format!("%{c} = icmp sgt i32 %n, {k}")),
            _ => self.line(&format!("%{c} = icmp eq i32 %m, {}", k % 2)),
        }
        c
    }

    fn maybe_anchor(&mut self) -> Option<String> {
        if self.o.tokens && self.rng.chance(1, 3) {
            let a = self.fresh("anchor");
            self.line(&format!(
                "%{a} = call token @llvm.experimental.convergence.anchor()"
            ));
            let old = std::mem::replace(&mut self.tok, a);
            return Some(old);
        }
        None
    }

    fn seq(&mut self, acc: String, depth: u32) -> String {
        let n = 1 + self.rng.below(self.o.max_stmts);
        let mut acc = acc;
        for _ in 0..n {
            acc = if depth >= self.o.max_depth {
                match self.rng.below(4) {
                    0 => self.twin(acc),
                    _ => self.op(&acc),
                }
            } else {
                match self.rng.below(11) {
                    0 | 1 => self.op(&acc),
                    8 => self.call_helper(&acc),
                    9 => self.call_cfn(&acc),
                    2 | 3 => self.if_else(acc, depth),
                    4 => self.twin(acc),
                    5 => self.flag(acc),
                    6 => self.plain_loop(acc),
                    _ => self.lp(acc, depth),
                }
            };
        }
        acc
    }

    fn if_else(&mut self, acc: String, depth: u32) -> String {
        let c = self.cond(&acc);
        let (t, e, j) = (self.fresh("then"), self.fresh("else"), self.fresh("join"));
        let has_else = self.rng.chance(1, 2);
        let from = self.block.clone();
        self.line(&format!(
            "br i1 %{c}, label %{t}, label %{}",
            if has_else { &e } else { &j }
        ));
        self.label(&t);
        let saved = self.maybe_anchor();
        let ta = self.seq(acc.clone(), depth + 1);
        if let Some(s) = saved {
            self.tok = s;
        }
        let tb = self.block.clone();
        self.line(&format!("br label %{j}"));
        let (ea, eb) = if has_else {
            self.label(&e);
            let saved = self.maybe_anchor();
            let ea = self.seq(acc.clone(), depth + 1);
            if let Some(s) = saved {
                self.tok = s;
            }
            let eb = self.block.clone();
            self.line(&format!("br label %{j}"));
            (ea, eb)
        } else {
            (acc.clone(), from)
        };
        self.label(&j);
        let r = self.fresh("acc");
        self.line(&format!(
            "%{r} = phi i32 [ %{ta}, %{tb} ], [ %{ea}, %{eb} ]"
        ));
        r
    }

    /// The same operation on the same operand in both arms of an if/else (the ballot example of the
    /// original convergence-control RFC, the subgroupAdd example of "Convergent Operation
    /// Semantics"): what hoisting and sinking of common instructions looks for.
    fn twin(&mut self, acc: String) -> String {
        let c = self.cond(&acc);
        let (t, e, j) = (self.fresh("then"), self.fresh("else"), self.fresh("join"));
        let x = self.fresh("x");
        self.line(&format!("%{x} = add i32 %{acc}, 1"));
        self.line(&format!("br i1 %{c}, label %{t}, label %{e}"));
        let callee = *self.rng.pick(&["subgroupAdd", "subgroupBroadcastFirst"]);
        let b = self.bundle();
        let (vt, ve) = (self.fresh("v"), self.fresh("v"));
        self.label(&t);
        self.line(&format!("%{vt} = call i32 @{callee}(i32 %{x}){b}"));
        self.line(&format!("br label %{j}"));
        self.label(&e);
        self.line(&format!("%{ve} = call i32 @{callee}(i32 %{x}){b}"));
        self.line(&format!("br label %{j}"));
        self.label(&j);
        let r = self.fresh("acc");
        self.line(&format!("%{r} = phi i32 [ %{vt}, %{t} ], [ %{ve}, %{e} ]"));
        let r2 = self.fresh("acc");
        self.line(&format!("%{r2} = xor i32 %{r}, %{acc}"));
        r2
    }

    /// The original convergence-control RFC's jump-threading shape: a flag set on some paths, then an operation under the flag.
    fn flag(&mut self, acc: String) -> String {
        let c1 = self.cond(&acc);
        let (t1, mid, t2, end) = (
            self.fresh("then"),
            self.fresh("mid"),
            self.fresh("then"),
            self.fresh("end"),
        );
        let from = self.block.clone();
        self.line(&format!("br i1 %{c1}, label %{t1}, label %{mid}"));
        self.label(&t1);
        let c2 = self.cond(&acc);
        self.line(&format!("br label %{mid}"));
        self.label(&mid);
        let f = self.fresh("flag");
        self.line(&format!(
            "%{f} = phi i1 [ true, %{from} ], [ %{c2}, %{t1} ]"
        ));
        self.line(&format!("br i1 %{f}, label %{t2}, label %{end}"));
        self.label(&t2);
        let a2 = self.op(&acc);
        let tb = self.block.clone();
        self.line(&format!("br label %{end}"));
        self.label(&end);
        let r = self.fresh("acc");
        self.line(&format!(
            "%{r} = phi i32 [ %{a2}, %{tb} ], [ %{acc}, %{mid} ]"
        ));
        r
    }

    /// A loop without convergent operations (constant or runtime trip count): unrolling and
    /// rotating it moves code around the operations outside.
    fn plain_loop(&mut self, acc: String) -> String {
        let pre = self.block.clone();
        let bound = if self.rng.chance(1, 2) {
            format!("{}", 2 + self.rng.below(3))
        } else {
            "%n".to_string()
        };
        let (h, exit) = (self.fresh("ploop"), self.fresh("pexit"));
        let (i, inext, a, anext) = (
            self.fresh("i"),
            self.fresh("inext"),
            self.fresh("pacc"),
            self.fresh("pacc"),
        );
        self.line(&format!("br label %{h}"));
        self.label(&h);
        self.line(&format!("%{i} = phi i32 [ 0, %{pre} ], [ %{inext}, %{h} ]"));
        self.line(&format!(
            "%{a} = phi i32 [ %{acc}, %{pre} ], [ %{anext}, %{h} ]"
        ));
        self.line(&format!("%{anext} = add i32 %{a}, %{i}"));
        self.line(&format!("%{inext} = add i32 %{i}, 1"));
        let c = self.fresh("c");
        self.line(&format!("%{c} = icmp slt i32 %{inext}, {bound}"));
        self.line(&format!("br i1 %{c}, label %{h}, label %{exit}"));
        self.label(&exit);
        let r = self.fresh("acc");
        self.line(&format!("%{r} = phi i32 [ %{anext}, %{h} ]"));
        r
    }

    fn lp(&mut self, acc: String, depth: u32) -> String {
        let bound = self.fresh("bound");
        let tid = self.tid;
        match self.rng.below(4) {
            3 => {
                let k = 1 + self.rng.below(4);
                self.line(&format!("%{bound} = add i32 0, {k}"));
            }
            0 => self.line(&format!("%{bound} = and i32 %n, 7")),
            1 => self.line(&format!("%{bound} = and i32 %m, 3")),
            _ => {
                let s = self.fresh("t");
                self.line(&format!("%{s} = add i32 %{tid}, %n"));
                self.line(&format!("%{bound} = and i32 %{s}, 7"));
            }
        }
        let pre = self.block.clone();
        let (h, body, latch, exit) = (
            self.fresh("header"),
            self.fresh("body"),
            self.fresh("latch"),
            self.fresh("exit"),
        );
        let (i, inext, hacc, lacc) = (
            self.fresh("i"),
            self.fresh("inext"),
            self.fresh("hacc"),
            self.fresh("lacc"),
        );
        self.line(&format!("br label %{h}"));
        self.label(&h);
        self.line(&format!(
            "%{i} = phi i32 [ 0, %{pre} ], [ %{inext}, %{latch} ]"
        ));
        self.line(&format!(
            "%{hacc} = phi i32 [ %{acc}, %{pre} ], [ %{lacc}, %{latch} ]"
        ));
        let saved_tok = self.tok.clone();
        if self.o.tokens {
            let hrt = self.fresh("heart");
            let b = self.bundle();
            self.line(&format!(
                "%{hrt} = call token @llvm.experimental.convergence.loop(){b}"
            ));
            self.tok = hrt;
        }
        let c = self.fresh("c");
        self.line(&format!("%{c} = icmp slt i32 %{i}, %{bound}"));
        self.line(&format!("br i1 %{c}, label %{body}, label %{exit}"));
        self.label(&body);
        let saved = self.maybe_anchor();
        let bacc = self.seq(hacc.clone(), depth + 1);
        if let Some(s) = saved {
            self.tok = s;
        }
        // An early, divergent exit in some loops.
        let brk = self.rng.chance(1, 3).then(|| {
            let d = self.fresh("brk");
            self.line(&format!("%{d} = icmp eq i32 %{i}, %{tid}"));
            let from = self.block.clone();
            (d, from)
        });
        if let Some((d, _)) = &brk {
            self.line(&format!("br i1 %{d}, label %{exit}, label %{latch}"));
        } else {
            self.line(&format!("br label %{latch}"));
        }
        self.label(&latch);
        self.line(&format!("%{lacc} = add i32 %{bacc}, 1"));
        self.line(&format!("%{inext} = add i32 %{i}, 1"));
        self.line(&format!("br label %{h}"));
        self.tok = saved_tok;
        self.label(&exit);
        let r = self.fresh("acc");
        match brk {
            Some((_, from)) => self.line(&format!(
                "%{r} = phi i32 [ %{hacc}, %{h} ], [ %{bacc}, %{from} ]"
            )),
            None => self.line(&format!("%{r} = phi i32 [ %{hacc}, %{h} ]")),
        }
        r
    }
}

const HELPER: &str = "
define internal i32 @helper(i32 %x) {
entry:
  %odd = and i32 %x, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %a = phi i32 [ %x, %entry ], [ %a.next, %loop ]
  %a.next = add i32 %a, %i
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 3
  br i1 %more, label %loop, label %done
done:
  %r = phi i32 [ %x, %entry ], [ %a.next, %loop ]
  ret i32 %r
}
";

/// One kernel as LLVM text (`@k`), reproducible from `seed`.
pub fn convergent_kernel(seed: u64, o: &ConvergentOptions) -> String {
    let mut rng = Rng::new(seed);
    let (triple, cc, tid_fn) = match o.target {
        GpuTarget::Amdgpu => (
            "amdgcn-amd-amdhsa",
            "amdgpu_kernel ",
            "llvm.amdgcn.workitem.id.x",
        ),
        GpuTarget::Nvptx => ("nvptx64-nvidia-cuda", "", "llvm.nvvm.read.ptx.sreg.tid.x"),
    };
    let mut e = Emit {
        rng: &mut rng,
        o,
        out: String::new(),
        next: 0,
        block: "entry".into(),
        tok: "entry.tok".into(),
        tid: "tid",
        helper: false,
        cfn: false,
    };
    let _ = writeln!(
        e.out,
        "define {cc}void @k(ptr addrspace(1) %out, i32 %n, i32 %m){} {{",
        if o.tokens { " #1" } else { "" }
    );
    e.label("entry");
    if o.tokens {
        e.line("%entry.tok = call token @llvm.experimental.convergence.entry()");
    }
    e.line(&format!("%tid = call i32 @{tid_fn}()"));
    let acc = e.seq("tid".to_string(), 0);
    e.line("%outp = getelementptr i32, ptr addrspace(1) %out, i32 %tid");
    e.line(&format!("store i32 %{acc}, ptr addrspace(1) %outp"));
    e.line("ret void");
    e.out.push_str("}\n");
    let mut s = format!("target triple = \"{triple}\"\n\n");
    s.push_str(&e.out);
    let _ = write!(
        s,
        "\ndeclare i32 @{tid_fn}()\n\
         declare i32 @subgroupAdd(i32) #0\n\
         declare i32 @subgroupBroadcastFirst(i32) #0\n\
         declare i32 @subgroupBallot(i1) #0\n\
         declare void @subgroupControlBarrier() #2\n"
    );
    if o.target == GpuTarget::Amdgpu {
        s.push_str("declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n");
    }
    if e.helper {
        s.push_str(HELPER);
    }
    if e.cfn {
        let (tok, b) = if o.tokens {
            (
                "  %e = call token @llvm.experimental.convergence.entry()\n",
                " [ \"convergencectrl\"(token %e) ]",
            )
        } else {
            ("", "")
        };
        let _ = write!(
            s,
            "\ndefine internal i32 @cfn(i32 %x) #1 {{\n\
             entry:\n{tok}  %c = icmp ult i32 %x, 7\n  br i1 %c, label %a, label %b\n\
             a:\n  %s = call i32 @subgroupAdd(i32 %x){b}\n  br label %b\n\
             b:\n  %r = phi i32 [ %x, %entry ], [ %s, %a ]\n\
             \x20 %t = call i32 @subgroupBroadcastFirst(i32 %r){b}\n  ret i32 %t\n}}\n"
        );
    }
    if o.tokens {
        s.push_str(
            "declare token @llvm.experimental.convergence.entry()\n\
             declare token @llvm.experimental.convergence.anchor()\n\
             declare token @llvm.experimental.convergence.loop()\n",
        );
    }
    s.push_str(
        "\nattributes #0 = { convergent nounwind willreturn memory(none) }\n\
         attributes #1 = { convergent }\n\
         attributes #2 = { convergent nounwind }\n",
    );
    s
}
