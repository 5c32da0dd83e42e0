//! Choosing what is analysed: `--function` (repeatable, glob, `@name`, close matches for an
//! unknown name) on every subcommand, and one `--llvm-version` and `--time-passes` spelling with
//! the old ones as aliases.

use super::*;

#[test]
fn function_selection_everywhere() {
    let f = scratch("select.ll", NO_TRIPLE);
    let all = ok(&["uniformity", "--target", "amdgpu", &f]);
    let one = ok(&[
        "uniformity",
        "--target",
        "amdgpu",
        "--function",
        "kernel_two",
        &f,
    ]);
    assert!(
        !one.contains("@kernel_one") && one.contains("@kernel_two"),
        "{one}"
    );
    assert!(
        all.ends_with(&one),
        "the selection prints what the whole run prints for it"
    );
    assert_eq!(
        one,
        ok(&[
            "uniformity",
            "--target",
            "amdgpu",
            "--function",
            "@kernel_two",
            &f
        ])
    );
    assert_eq!(
        all,
        ok(&[
            "uniformity",
            "--target",
            "amdgpu",
            "--function",
            "kernel_*",
            &f
        ])
    );
    assert_eq!(
        all,
        ok(&[
            "uniformity",
            "--target",
            "amdgpu",
            "--function",
            "kernel_two",
            "--function",
            "@kernel_one",
            &f
        ]),
        "repeated, in module order"
    );
    for sub in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "explain",
        "dot",
        "simulate",
    ] {
        let o = run(&[sub, "--function", "@kernel_one", &f]);
        assert_eq!(o.code, Some(0), "{sub}: {}", o.stderr_str());
        assert!(
            !o.stdout_str().contains("kernel_two"),
            "{sub} shows only the selected function"
        );
        let o = run(&[sub, "--function", "kernl_one", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        let e = o.stderr_str();
        assert!(
            e.contains("no function @kernl_one") && e.contains("did you mean @kernel_one"),
            "{sub}: {e}"
        );
        let o = run(&[sub, "--function", "only_declared", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        assert!(o.stderr_str().contains("only declared"), "{sub}");
        let o = run(&[sub, "--function", "zz*", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        assert!(o.stderr_str().contains("matches `zz*`"), "{sub}");
    }
    // stats: the totals are those of the selection.
    let s = ok(&["stats", "--format", "json", "--function", "kernel_two", &f]);
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["per_function"].as_array().unwrap().len(), 1);
    assert_eq!(v["blocks"], 3);
    assert_eq!(v["cycles"], 1);
    // simulate needs exactly one.
    let o = run(&["simulate", "--function", "kernel_*", &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("several functions"),
        "{}",
        o.stderr_str()
    );
}

#[test]
fn one_llvm_version_and_timing_spelling() {
    let f = example("divergent-loop.ll");
    for sub in ["uniformity", "cycles", "verify"] {
        let new = ok(&[sub, "--format", "llvm", "--llvm-version", "19", &f]);
        let old = ok(&[sub, "--format", "llvm", "--llvm", "19", &f]);
        assert_eq!(new, old, "{sub}");
        let o = run(&[sub, "--llvm-version", "18", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
    }
    for sub in ["stats", "cycles", "uniformity"] {
        for flag in ["--time-passes", "--time"] {
            let o = run(&[sub, "--format", "none", flag, &f]);
            assert_eq!(o.code, Some(0), "{sub} {flag}");
            assert!(
                o.stderr_str().contains("ms"),
                "{sub} {flag}: {}",
                o.stderr_str()
            );
        }
    }
}

/// `insert-tokens` and `check-transform` take `--function` like the other subcommands (issue 15:
/// `@name` and `name` both work everywhere). Expected answers: the same run with the plain name,
/// and the module's own function names.
#[test]
fn function_selection_in_insert_tokens_and_check_transform() {
    let two = scratch(
        "two-convergent.ll",
        "declare void @sync() convergent\n\
         define void @f() convergent {\n  call void @sync()\n  ret void\n}\n\
         define void @g() convergent {\n  call void @sync()\n  ret void\n}\n",
    );
    let entries = |t: &str| {
        t.matches("call token @llvm.experimental.convergence.entry()")
            .count()
    };
    let plain = ok(&["insert-tokens", "--function", "g", &two]);
    assert_eq!(entries(&plain), 1, "{plain}");
    assert!(plain.contains("define void @f() convergent {\n  call void @sync()\n"));
    assert_eq!(plain, ok(&["insert-tokens", "--function", "@g", &two]));
    // A glob and a repeated flag select both.
    let both = ok(&["insert-tokens", "--function", "[fg]", &two]);
    assert_eq!(entries(&both), 2, "{both}");
    assert_eq!(
        both,
        ok(&["insert-tokens", "--function", "g", "--function", "@f", &two])
    );
    assert_eq!(both, ok(&["insert-tokens", &two]));
    let o = run(&["insert-tokens", "--function", "gg", &two]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("did you mean @g"),
        "{}",
        o.stderr_str()
    );

    let pair = root().join("crates/check/tests/pairs");
    let b = pair.join("sink_entry.before.ll").display().to_string();
    let a = pair.join("sink_entry.after.ll").display().to_string();
    let name = {
        let m = converge_ir::parse(&b, std::fs::read_to_string(&b).unwrap()).unwrap();
        let f = m.func_ids().find(|&f| !m.func(f).is_declaration).unwrap();
        m.str(m.func(f).name).to_string()
    };
    let with = |n: &str| {
        let o = run(&[
            "check-transform",
            "--format",
            "json",
            "--function",
            n,
            &b,
            &a,
        ]);
        let v: serde_json::Value = serde_json::from_str(&o.stdout_str()).unwrap();
        (o.code, v["verdict"].clone(), v["function"].clone())
    };
    let plain = with(&name);
    assert_eq!(plain.2, serde_json::Value::from(name.clone()));
    assert_eq!(plain, with(&format!("@{name}")));
}

/// AMDGPU `callbr` to inline asm: LLVM 19's hooks only looked at `call`, so 19 and 22 differ here
/// (`uniformity_regressions.rs` checks both against `opt` 19 and the corpus rule).
const CALLBR_19_22: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @asm_in(ptr addrspace(1) %out) {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  callbr void asm "", "v,!i"(i32 %x) to label %a [label %b]
a:
  store i32 1, ptr addrspace(1) %out
  ret void
b:
  ret void
}

define amdgpu_kernel void @asm_vgpr(ptr addrspace(1) %out) {
entry:
  %v = callbr i32 asm "v_mov_b32 $0, 1", "=v,!i"() to label %a [label %b]
a:
  ret void
b:
  ret void
}
"#;

/// `--llvm-version` (alias `--llvm`) on every subcommand whose answer depends on the release:
/// `explain`, `dot` and `explore` give the divergence `uniformity` gives for the same release
/// (the expected answer), and the releases differ on this module. `main` is refused where it is
/// not reproduced.
#[test]
fn llvm_version_on_explain_dot_and_explore() {
    let f = scratch("callbr-19-22.ll", CALLBR_19_22);
    // `function @NAME: ..., N divergent terminator(s)` of uniformity; `N divergent branch(es)`
    // of explain's summary and dot's cluster labels.
    let counts = |text: &str, marker: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(marker) && l.contains("@asm_"))
            .map(|l| {
                let at = l.find(marker).unwrap();
                let head = &l[..at];
                head.rsplit(' ').next().unwrap_or_default().to_string()
            })
            .collect()
    };
    let mut per_version = Vec::new();
    for v in ["19", "22"] {
        let u = ok(&["uniformity", "--llvm-version", v, &f]);
        let want = counts(&u, " divergent terminator");
        assert_eq!(want.len(), 2, "{u}");
        for spelling in ["--llvm-version", "--llvm"] {
            let e = ok(&["explain", spelling, v, &f]);
            assert_eq!(counts(&e, " divergent branch"), want, "explain {v}: {e}");
            let d = ok(&["dot", "--uniformity", spelling, v, &f]);
            assert_eq!(counts(&d, " divergent branch"), want, "dot {v}: {d}");
        }
        let page =
            std::env::temp_dir().join(format!("converge-llvm{v}-{}.html", std::process::id()));
        let o = run(&[
            "explore",
            "--llvm-version",
            v,
            "-o",
            page.to_str().unwrap(),
            &f,
        ]);
        assert_eq!(o.code, Some(0), "{}", o.stderr_str());
        per_version.push(want);
    }
    assert_ne!(
        per_version[0], per_version[1],
        "the module tells 19 from 22"
    );
    for sub in ["explain", "dot"] {
        let o = run(&[sub, "--llvm-version", "main", &f]);
        assert_eq!(o.code, Some(2), "{sub}");
        assert!(
            o.stderr_str().contains("`main` is reproduced by"),
            "{}",
            o.stderr_str()
        );
    }
}

/// `check-transform --function` reads its one name like the other subcommands: a glob that
/// selects one function, and an unknown name listing BEFORE's closest names (exit 2).
#[test]
fn check_transform_function_glob_and_close_matches() {
    let f = scratch("select-ct.ll", NO_TRIPLE);
    let named = ok(&["check-transform", "--function", "kernel_two", &f, &f]);
    assert_eq!(
        untimed(named.as_bytes()),
        untimed(ok(&["check-transform", "--function", "kernel_t*", &f, &f]).as_bytes())
    );
    assert!(named.starts_with("@kernel_two: refines"), "{named}");
    let o = run(&["check-transform", "--function", "kernl_two", &f, &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("did you mean @kernel_two"),
        "{}",
        o.stderr_str()
    );
    let o = run(&["check-transform", "--function", "kernel_*", &f, &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("selects 2 functions") && o.stderr_str().contains("@kernel_one"),
        "{}",
        o.stderr_str()
    );
    let o = run(&["check-transform", "--function", "only_declared", &f, &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("only declared"),
        "{}",
        o.stderr_str()
    );
    // `explore` too (nothing written on the error).
    let page = std::env::temp_dir().join(format!("converge-sel-{}.html", std::process::id()));
    let o = run(&[
        "explore",
        "--function",
        "kernl_two",
        "-o",
        page.to_str().unwrap(),
        &f,
    ]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("did you mean @kernel_two"),
        "{}",
        o.stderr_str()
    );
    assert!(!page.exists());
}
