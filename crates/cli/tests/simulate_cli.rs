//! `converge simulate`: the table of "Convergence And Uniformity" in text form, JSON,
//! `--all-hierarchies`, `--hierarchy`, `--args`, the step limit, and usage errors.

mod common;

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn seed(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../sim/tests/seeds")
        .join(name)
}

fn converge(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::converge_bin())
        .args(args)
        .output()
        .expect("run converge");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("converge-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The natural-loop table of "Convergence And Uniformity", as the text output's rows (cells numbered per thread).
#[test]
fn text_table_is_the_seed_table() {
    let f = seed("natural_loop.ll");
    let (code, out, err) = converge(&["simulate", f.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.starts_with("thread "))
        .map(|l| l.split_whitespace().skip(2).collect())
        .collect();
    assert_eq!(
        rows,
        vec![
            "Entry1 H1 B1 L1 H2 . L2 . . . Exit1"
                .split(' ')
                .collect::<Vec<_>>(),
            "Entry1 H1 . L1 H2 B1 L2 H3 B2 L3 Exit1"
                .split(' ')
                .collect::<Vec<_>>(),
        ],
        "{out}"
    );
    assert!(out.contains("divergent  %tid"), "{out}");
}

#[test]
fn json_and_all_hierarchies() {
    let f = seed("closed_path.ll");
    let (code, out, err) = converge(&[
        "simulate",
        f.to_str().unwrap(),
        "--threads",
        "2",
        "--all-hierarchies",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(j["function"], "closed_path");
    let all = &j["all_hierarchies"];
    assert_eq!(all["exhaustive"], true);
    assert_eq!(all["hierarchies"].as_array().unwrap().len(), 2);
    assert_eq!(all["m_converged"], serde_json::json!(["Entry", "Exit"]));
    // Under LLVM's hierarchy (R, S) thread 1's first S is not converged with thread 2's first S.
    let s_classes = |threads: &Value, k: usize| -> Vec<u64> {
        threads[k]["instances"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["block"] == "S")
            .map(|x| x["class"].as_u64().unwrap())
            .collect()
    };
    let t = &j["run"]["threads"];
    assert_ne!(s_classes(t, 0)[0], s_classes(t, 1)[0]);
    // Under the other hierarchy (P), they are.
    let other = &all["runs"][1]["threads"];
    assert_eq!(s_classes(other, 0)[0], s_classes(other, 1)[0]);
}

#[test]
fn hierarchy_flag_selects_a_dfs_order() {
    let f = seed("closed_path.ll");
    let p = f.to_str().unwrap();
    let (c0, llvm, _) = converge(&["simulate", p, "--threads", "2", "--hierarchy", "0"]);
    let (c1, other, _) = converge(&["simulate", p, "--threads", "2", "--hierarchy", "1"]);
    let (c2, rev, _) = converge(&["simulate", p, "--threads", "2", "--hierarchy", "reversed"]);
    assert_eq!((c0, c1, c2), (0, 0, 0));
    assert!(llvm.contains("{R: P Q S} {S: P Q}"), "{llvm}");
    assert!(other.contains("{P: Q R S}"), "{other}");
    assert!(rev.contains("{P: Q R S}"), "{rev}");
    let (code, _, err) = converge(&["simulate", p, "--hierarchy", "7"]);
    assert_eq!(code, 2);
    assert!(err.contains("2 distinct hierarchies"), "{err}");
}

const COUNTED: &str = r#"
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define amdgpu_kernel void @count(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i.next, %h ]
  %i.next = add i32 %i, 1
  %lim = add i32 %n, %tid
  %more = icmp slt i32 %i.next, %lim
  br i1 %more, label %h, label %exit
exit:
  %first = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %i.next)
  %after = add i32 %i.next, 0
  ret void
}

define void @spin() {
entry:
  br label %loop
loop:
  br label %loop
}
"#;

#[test]
fn args_communication_and_temporal_divergence() {
    let f = temp("counted.ll", COUNTED);
    let (code, out, err) = converge(&[
        "simulate",
        f.to_str().unwrap(),
        "--function",
        "count",
        "--threads",
        "3",
        "--args",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("arguments: 2"), "{out}");
    // Inside the loop %i.next is uniform per iteration; at the exit it is temporally divergent.
    assert!(out.contains("uniform    %i.next"), "{out}");
    // readfirstlane at the exit: all three threads converge there (maximal convergence), and
    // thread 0's value (2) is broadcast.
    assert!(
        out.contains("%first (@llvm.amdgcn.readfirstlane.i32 in exit): [0 1 2]"),
        "{out}"
    );
    assert!(out.contains("uniform    %first"), "{out}");
    assert!(
        out.contains("divergent  %after  (thread 0: 2, thread 1: 3)"),
        "{out}"
    );
}

#[test]
fn step_limit_is_reported() {
    let f = temp("spin.ll", COUNTED);
    let (code, out, err) = converge(&[
        "simulate",
        f.to_str().unwrap(),
        "--function",
        "@spin",
        "--threads",
        "2",
        "--step-limit",
        "50",
    ]);
    // An execution cut short is not a complete one: exit 1, and stderr names the thread.
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("thread 0: STOPPED: step limit reached after 50 steps"),
        "{out}"
    );
    assert!(
        err.contains("thread 0 stopped: step limit reached after 50 instructions"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let f = temp("usage.ll", COUNTED);
    let p = f.to_str().unwrap();
    let (code, _, err) = converge(&["simulate", p]);
    assert_eq!(code, 2);
    assert!(err.contains("several functions"), "{err}");
    let (code, _, err) = converge(&["simulate", p, "--function", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no function @nope"), "{err}");
    let (code, _, err) = converge(&["simulate", p, "--function", "count", "--args", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a number"), "{err}");
    let (code, _, err) = converge(&["simulate", p, "--function", "count", "--threads", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--threads"), "{err}");
    let bad = temp(
        "bad.ll",
        "define void @f() {\nentry:\n  br label %nowhere\n}\n",
    );
    let (code, _, err) = converge(&["simulate", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.ll:"), "{err}");
}

/// A thread that stops on an error (here an `indirectbr`, which is not simulated) still gets its
/// table, but the command says so on stderr and exits 1: the result is incomplete.
#[test]
fn a_thread_stopped_by_an_error_is_exit_code_1() {
    let p = temp(
        "indirectbr.ll",
        "define void @f(ptr %t) {\nentry:\n  indirectbr ptr %t, [label %a]\na:\n  ret void\n}\n",
    );
    let (code, out, err) = converge(&["simulate", p.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("thread 0"), "{out}");
    assert!(
        err.contains("error: thread 0 stopped: `indirectbr` is not simulated"),
        "{err}"
    );
    let ok = temp("ret.ll", "define void @f() {\nentry:\n  ret void\n}\n");
    let (code, _, err) = converge(&["simulate", ok.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
}

fn returned(out: &str) -> String {
    out.lines()
        .find_map(|l| l.strip_prefix("returned: "))
        .unwrap_or_default()
        .to_string()
}

/// Integer division by zero is immediate undefined behaviour: the thread that does it stops with
/// an error naming the instruction, the others finish, and the command exits 1.
#[test]
fn division_by_zero_stops_the_thread() {
    let p = temp(
        "div.ll",
        "declare i32 @llvm.amdgcn.workitem.id.x()\n\
         define i32 @f() {\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  \
         %d = sub i32 %t, 2\n  %q = udiv i32 12, %d\n  ret i32 %q\n}\n",
    );
    let (code, out, err) = converge(&["simulate", p.to_str().unwrap(), "--threads", "4"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("thread 2 stopped: division by zero (at %q in @f)"),
        "{err}"
    );
    // 12 / (t - 2) for t = 0, 1, 3 (unsigned: 0 - 2 = 2^32 - 2).
    assert_eq!(returned(&out), "0=0 1=0 3=12", "{out}");
}

/// `--mem` gives a pointer parameter a buffer; reading past it stops the thread with an error.
#[test]
fn buffers_and_out_of_bounds_reads() {
    let p = temp(
        "buf.ll",
        "declare i32 @llvm.amdgcn.workitem.id.x()\n\
         define i32 @f(ptr addrspace(1) %in) {\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  \
         %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n  \
         %x = load i32, ptr addrspace(1) %p\n  ret i32 %x\n}\n",
    );
    let f = p.to_str().unwrap();
    let (code, out, err) = converge(&["simulate", f, "--threads", "3", "--mem", "#0=5,6,7"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(returned(&out), "0=5 1=6 2=7", "{out}");
    let (code, out, err) = converge(&["simulate", f, "--threads", "3", "--mem", "%in=i32:5,6"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains(
            "thread 2 stopped: load of 4 bytes at offset 8 of the buffer of parameter #0 \
             (8 bytes): out of bounds (at %x in @f)"
        ),
        "{err}"
    );
    let (code, _, err) = converge(&["simulate", f, "--mem", "#1=1"]);
    assert_eq!(code, 2);
    assert!(err.contains("parameter #1"), "{err}");
    let (code, _, err) = converge(&["simulate", f, "--mem", "in=1"]);
    assert_eq!(code, 2);
    assert!(err.contains("@global, %param or #N"), "{err}");
}

/// OpenCL work-item builtins (mangled as clang emits them) for work-group 2 of 4, 3 threads each:
/// global id = 2 * 3 + local id; global size 12; the AMDGPU implicit arguments hold the group
/// size at byte 12 and the dispatch packet at byte 4.
#[test]
fn work_item_builtins() {
    let p = temp(
        "ocl.ll",
        "target triple = \"amdgcn-amd-amdhsa\"\n\
         declare i64 @_Z13get_global_idj(i32)\ndeclare i64 @_Z15get_global_sizej(i32)\n\
         declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()\n\
         declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()\n\
         define i64 @f() {\n  %g = call i64 @_Z13get_global_idj(i32 0)\n  \
         %n = call i64 @_Z15get_global_sizej(i32 0)\n  %y = call i64 @_Z13get_global_idj(i32 1)\n  \
         %r = mul i64 %n, 100\n  %s = add i64 %r, %g\n  %s2 = add i64 %s, %y\n  ret i64 %s2\n}\n\
         define i32 @sizes() {\n  %i = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()\n  \
         %p = getelementptr i8, ptr addrspace(4) %i, i64 12\n  %a = load i16, ptr addrspace(4) %p\n  \
         %d = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()\n  \
         %q = getelementptr i8, ptr addrspace(4) %d, i64 4\n  %b = load i16, ptr addrspace(4) %q\n  \
         %a32 = zext i16 %a to i32\n  %b32 = zext i16 %b to i32\n  %m = mul i32 %a32, 10\n  \
         %r = add i32 %m, %b32\n  ret i32 %r\n}\n",
    );
    let f = p.to_str().unwrap();
    let (code, out, err) = converge(&[
        "simulate",
        f,
        "--function",
        "f",
        "--threads",
        "3",
        "--group-id",
        "2",
        "--num-groups",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(returned(&out), "0=1206 1=1207 2=1208", "{out}");
    let (code, out, err) = converge(&["simulate", f, "--function", "sizes", "--threads", "3"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(returned(&out), "0=33 1=33 2=33", "{out}");
    let (code, _, err) = converge(&[
        "simulate",
        f,
        "--function",
        "f",
        "--group-id",
        "4",
        "--num-groups",
        "4",
    ]);
    assert_eq!(code, 2, "{err}");
    for bad in ["0", "4"] {
        let (code, _, err) = converge(&[
            "simulate",
            f,
            "--function",
            "f",
            "--threads",
            "3",
            "--anchor-groups",
            bad,
        ]);
        assert_eq!(code, 2, "--anchor-groups {bad}: {err}");
        assert!(
            err.contains("--anchor-groups must be between 1 and --threads"),
            "{err}"
        );
    }
}

/// `llvm.nvvm.barrier0` is convergent by LLVM's intrinsic table even when its declaration does not
/// say so: the example's barrier is a communicating operation of all four threads.
#[test]
fn intrinsic_convergence_comes_from_llvms_table() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/nvptx-kernel.ll");
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.contains("declare void @llvm.nvvm.barrier0()\n"));
    let (code, out, err) = converge(&["simulate", f.to_str().unwrap(), "--threads", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("(@llvm.nvvm.barrier0 in join): [0 1 2 3]"),
        "{out}"
    );
}

/// A barrier inside a divergent branch is reached converged by only some of the threads: the
/// run reports it and exits 1.
#[test]
fn partial_barrier_is_reported() {
    let p = temp(
        "bar.ll",
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\ndeclare void @llvm.nvvm.barrier0()\n\
         define void @f() {\nentry:\n  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  \
         %c = icmp ult i32 %t, 2\n  br i1 %c, label %a, label %b\n\
         a:\n  call void @llvm.nvvm.barrier0()\n  br label %b\nb:\n  ret void\n}\n",
    );
    let (code, out, err) = converge(&["simulate", p.to_str().unwrap(), "--threads", "4"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("barrier @llvm.nvvm.barrier0 at `call` in @f reached converged by threads [0 1] only, of 4"),
        "{err}"
    );
}
