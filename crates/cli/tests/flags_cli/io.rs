//! Input and output: `-` reads the module from standard input (clang piped in, live), `-o FILE`
//! writes every report to a file, on every subcommand.

use super::*;

#[test]
fn dash_reads_standard_input() {
    let f = example("divergent-loop.ll");
    let text = std::fs::read(&f).unwrap();
    for sub in [
        "stats",
        "cycles",
        "uniformity",
        "verify",
        "explain",
        "dot",
        "simulate",
    ] {
        let from_file = run(&[sub, &f]);
        let from_stdin = run_in(&[sub, "-"], &text, &[]);
        assert_eq!(from_file.code, from_stdin.code, "{sub}");
        let name = f.as_str();
        assert_eq!(
            from_file.stdout_str().replace(name, "<stdin>"),
            from_stdin.stdout_str(),
            "{sub}"
        );
    }
    // Errors in standard input are located in `<stdin>`.
    let o = run_in(&["stats", "-"], b"define void @f( {\n", &[]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("--> <stdin>:"),
        "{}",
        o.stderr_str()
    );
}

#[test]
fn dash_o_writes_every_report_to_a_file() {
    let f = example("tokens-invalid.ll");
    let dir = std::env::temp_dir().join(format!("converge-flags-o-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, args) in [
        vec!["stats"],
        vec!["stats", "--format", "json"],
        vec!["cycles", "--format", "llvm"],
        vec!["uniformity", "--format", "json"],
        vec!["verify"],
        vec!["explain"],
        vec!["dot", "--uniformity"],
        vec!["simulate", "--function", "mixed"],
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.join(format!("out{k}.txt"));
        let out = out.to_str().unwrap();
        let mut a = args.clone();
        a.push(&f);
        let plain = run(&a);
        let mut b = args.clone();
        b.extend(["-o", out, &f]);
        let to_file = run(&b);
        assert_eq!(plain.code, to_file.code, "{args:?}");
        assert!(to_file.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert_eq!(
            std::fs::read(out).unwrap(),
            plain.stdout,
            "{args:?}: the file holds what stdout would"
        );
    }
    let o = run(&["stats", "-o", "/nonexistent-dir/x.txt", &f]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr_str().contains("cannot create"),
        "{}",
        o.stderr_str()
    );
}

/// `clang ... -S -emit-llvm -o - | converge uniformity -`, live: the pipe gives what the compiled
/// file gives (the input named `<stdin>`), for both targets clang 19 compiles kernels for.
#[test]
fn clang_pipes_into_converge() {
    use std::process::Stdio;
    let Some(clang) = converge_gen::reference::clang19("clang_pipes_into_converge") else {
        return;
    };
    let src = root().join("examples/kernels/loops.cl");
    let dir = root().join("build/cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    for (target, flags) in converge_gen::clang_kernels::TARGETS {
        let ll = dir.join(format!("pipe-{target}.ll"));
        let o = converge_gen::clang_kernels::command(&clang, &src, flags, "-O2", &ll)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let from_file = ok(&["uniformity", ll.to_str().unwrap()]);
        let mut c =
            converge_gen::clang_kernels::command(&clang, &src, flags, "-O2", Path::new("-"));
        let mut producer = c.stdout(Stdio::piped()).spawn().unwrap();
        let piped = Command::new(common::converge_bin())
            .args(["uniformity", "-"])
            .stdin(producer.stdout.take().unwrap())
            .output()
            .unwrap();
        assert!(producer.wait().unwrap().success());
        assert!(
            piped.status.success(),
            "{}",
            String::from_utf8_lossy(&piped.stderr)
        );
        assert_eq!(
            from_file.replace(ll.to_str().unwrap(), "<stdin>"),
            String::from_utf8_lossy(&piped.stdout),
            "{target}"
        );
        assert!(from_file.contains("divergent"), "{from_file}");
    }
}

/// `-` and `-o FILE` on the subcommands that write whole files or read two modules:
/// `insert-tokens` and `check-transform` (BEFORE from standard input).
#[test]
fn dash_and_dash_o_on_insert_tokens_and_check_transform() {
    let f = example("insert-tokens.ll");
    let text = std::fs::read(&f).unwrap();
    let plain = ok(&["insert-tokens", &f]);
    let from_stdin = run_in(&["insert-tokens", "-"], &text, &[]);
    assert_eq!(from_stdin.code, Some(0));
    assert_eq!(from_stdin.stdout_str(), plain);
    let dir = std::env::temp_dir().join(format!("converge-flags-o2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("with-tokens.ll");
    let o = run(&["insert-tokens", "-o", out.to_str().unwrap(), &f]);
    assert_eq!(o.code, Some(0));
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), plain);

    let ct = ok(&["check-transform", "--function", "kernel", &f, &f]);
    let o = run_in(
        &["check-transform", "--function", "kernel", "-", &f],
        &text,
        &[],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr_str());
    assert_eq!(untimed(&o.stdout), untimed(ct.as_bytes()));
    let out = dir.join("ct.txt");
    let o = run(&[
        "check-transform",
        "--function",
        "kernel",
        "-o",
        out.to_str().unwrap(),
        &f,
        &f,
    ]);
    assert_eq!(o.code, Some(0));
    assert!(o.stdout.is_empty());
    assert_eq!(
        untimed(&std::fs::read(&out).unwrap()),
        untimed(ct.as_bytes())
    );
}

/// `converge explore -` without `-o` names the page `stdin.html` (it was `-.html`), in the
/// current directory, and says so.
#[test]
fn explore_from_standard_input_names_its_page() {
    let dir = std::env::temp_dir().join(format!("converge-explore-stdin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read(example("divergent-loop.ll")).unwrap();
    let mut cmd = Command::new(common::converge_bin());
    cmd.args(["explore", "-"]).current_dir(&dir);
    let o = common::run(cmd, &text, LIMIT);
    assert_eq!(o.code, Some(0), "{}", o.stderr_str());
    assert!(
        o.stderr_str().contains("wrote stdin.html"),
        "{}",
        o.stderr_str()
    );
    let page = std::fs::read_to_string(dir.join("stdin.html")).unwrap();
    assert!(page.contains("find_first"));
    assert!(!dir.join("-.html").exists());
}

/// Files of a megabyte and more are mapped rather than read (`common/mapped.rs`): the answers, the
/// located parse errors and the "not valid UTF-8" error are those of the same text read from
/// standard input (which is never mapped).
#[test]
fn large_files_read_as_standard_input_does() {
    let f = example("divergent-loop.ll");
    let mut text = std::fs::read(&f).unwrap();
    let filler = format!("; {}\n", "x".repeat(1000));
    while text.len() < 1_100_000 {
        text.extend_from_slice(filler.as_bytes());
    }
    let dir = std::env::temp_dir().join(format!("converge-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let same = |bytes: &[u8], name: &str, sub: &str| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let p = path.to_str().unwrap();
        let from_file = run(&[sub, p]);
        let from_stdin = run_in(&[sub, "-"], bytes, &[]);
        assert_eq!(from_file.code, from_stdin.code, "{name}");
        assert_eq!(
            from_file.stdout_str().replace(p, "<stdin>"),
            from_stdin.stdout_str(),
            "{name}"
        );
        assert_eq!(
            from_file.stderr_str().replace(p, "<stdin>"),
            from_stdin.stderr_str(),
            "{name}"
        );
        from_file
    };
    let ok = same(&text, "ok.ll", "uniformity");
    assert_eq!(ok.code, Some(0));
    assert!(
        ok.stdout_str().contains("divergent %tid"),
        "{}",
        ok.stdout_str()
    );

    let mut bad = text.clone();
    bad.extend_from_slice(b"define void @g( {\n");
    let o = same(&bad, "bad.ll", "stats");
    assert_eq!(o.code, Some(2));
    // At the end of the file: the line after the last newline.
    let end = bad.iter().filter(|&&b| b == b'\n').count() + 1;
    assert!(
        o.stderr_str().contains(&format!("bad.ll:{end}:1\n")),
        "{}",
        o.stderr_str()
    );

    let mut not_utf8 = text.clone();
    not_utf8.extend_from_slice(b"; \xff\n");
    let o = same(&not_utf8, "not-utf8.ll", "stats");
    assert_eq!(o.code, Some(2));
    let line = not_utf8.iter().filter(|&&b| b == b'\n').count();
    assert!(
        o.stderr_str()
            .contains(&format!(":{line}:3: the file is not valid UTF-8")),
        "{}",
        o.stderr_str()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
