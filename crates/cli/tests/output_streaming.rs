//! `converge uniformity`'s text (and `cycles`', and `dot`'s of one function) goes out as it is
//! rendered. LLVM's `print<uniformity>` layout lists
//! every block of a cycle on each cycle line, so a nest thousands deep prints far more than it
//! reads (750 MB for 16,000 blocks; a 64,000-block nest used to be killed at 12 GB). The process
//! must keep its memory bounded while printing exactly what the per-function renderers print.
//! Peak memory is read with `/usr/bin/time` where present.

mod common;

use converge_gen::program::{Flavor, module_header, tid_function_with_cfg};
use converge_graph::{CycleInfo, UnreachablePreds};
use converge_report::Analysed;
use converge_report::dot::DotOptions;
use converge_report::reports::uniformity as report;
use converge_uniformity::Mode;
use converge_uniformity::llvm::{Setup, Target};
use std::io::Read;
use std::process::{Command, Stdio};

/// A deep nest between two small functions: `nest` of `gen_uniformity`, about `blocks` blocks.
fn deep_nest_module(blocks: usize) -> String {
    let mut t = module_header(Flavor::Amdgpu);
    let small = converge_gen::cfg::nested_loops(3).succs;
    t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "before", &small));
    let nest = converge_gen::cfg::nested_loops((blocks - 2) / 2).succs;
    t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "big", &nest));
    t.push_str(&tid_function_with_cfg(Flavor::Amdgpu, "after", &small));
    t
}

/// `converge ARGS FILE`'s standard output and, when `/usr/bin/time` is there to measure it, its
/// peak resident memory in bytes. Not `getrusage(RUSAGE_CHILDREN)`: Linux charges a child spawned
/// with a shared address space the parent's peak when it executes, and this test holds hundreds of
/// megabytes of expected text.
fn run_measured(args: &[&str], file: &std::path::Path) -> (Vec<u8>, Option<u64>) {
    let time = std::path::Path::new("/usr/bin/time");
    let report = file.with_extension(format!("rss-{}", args.join("-")));
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.args(["-f", "%M", "-o"])
            .arg(&report)
            .arg(common::converge_bin());
        c
    } else {
        Command::new(common::converge_bin())
    };
    let out = cmd.args(args).arg(file).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // GNU time writes kilobytes.
    let peak = std::fs::read_to_string(&report)
        .ok()
        .and_then(|s| s.trim().lines().last()?.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024);
    (out.stdout, peak)
}

/// A process that assembles its text before writing holds at least all of it; streaming holds a
/// buffer. Skipped, saying so, where `/usr/bin/time` is missing.
fn assert_bounded(args: &[&str], printed: usize, peak: Option<u64>) {
    match peak {
        Some(peak) => assert!(
            peak < printed as u64 / 2,
            "{args:?}: peak RSS {peak} bytes while printing {printed} bytes: the output is held in memory"
        ),
        None => eprintln!("{args:?}: peak memory not checked (no /usr/bin/time)"),
    }
}

#[test]
fn deep_nest_text_streams_with_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("converge-streaming-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deep-nest.ll");
    let text = deep_nest_module(8000);
    std::fs::write(&path, &text).unwrap();
    let run = |jobs: &str| {
        let args = [
            "-j",
            jobs,
            "uniformity",
            "--format",
            "llvm",
            "--mode",
            "precise",
        ];
        let (out, peak) = run_measured(&args, &path);
        assert_bounded(&args, out.len(), peak);
        out
    };

    // The text is about 120 times the input (100 MB).
    let got = run("1");
    assert!(
        got.len() > 20 * text.len(),
        "the input no longer makes a long text: {} bytes from {}",
        got.len(),
        text.len()
    );

    // The same bytes as the non-streaming renderer, function by function, in module order (the
    // nest is rendered straight into the output, the small functions through buffers).
    let module = converge_ir::parse("deep-nest.ll", text.clone()).unwrap();
    let setup = Setup::new(
        Target::from_triple(module.triple.as_deref(), None),
        Mode::Precise,
    );
    let mut want = report::preamble(Mode::Precise, true).to_string();
    for fid in module.func_ids() {
        if !module.func(fid).is_declaration {
            want.push_str(&report::llvm(&setup.analyse(&module, fid), false, false));
        }
    }
    assert!(got == want.as_bytes(), "the streamed text differs at -j 1");
    assert!(
        run("2") == want.as_bytes(),
        "the streamed text differs at -j 2"
    );

    // `cycles` (every cycle lists its blocks) and `dot` (clusters indented by depth) grow the same
    // way: each child's text again far exceeds the peak memory of every child so far, and equals
    // the non-streaming renderers' text.
    let big = module
        .func_ids()
        .find(|&f| module.str(module.func(f).name) == "big");
    let big = big.unwrap();
    let mut want = String::new();
    for fid in module.func_ids() {
        let f = module.func(fid);
        if !f.is_declaration {
            let ci = CycleInfo::with_mode(&f.cfg(), UnreachablePreds::Ignore);
            want.push_str(&converge_report::reports::cycles::llvm(
                &module, fid, &ci, false,
            ));
        }
    }
    let mut dot_want = String::new();
    let a = Analysed::new(&module, big, &Target::Uniform);
    let opts = DotOptions {
        uniformity: false,
        instructions: false,
    };
    dot_want.push_str(&converge_report::dot::render(&a, &opts));
    for (args, want) in [
        (&["cycles", "--format", "llvm"][..], &want),
        (&["dot", "--function", "big"][..], &dot_want),
    ] {
        let (out, peak) = run_measured(args, &path);
        assert_bounded(args, out.len(), peak);
        assert!(
            out == want.as_bytes(),
            "{args:?}: the streamed text differs"
        );
    }

    // A reader that stops early (`| head`) ends the run quietly, with success.
    let mut child = Command::new(common::converge_bin())
        .args(["uniformity", "--format", "llvm", "--mode", "precise"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "status {:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(head.starts_with(b"; converge uniformity --mode precise\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `uniformity --format json` and `cycles --format json` list every block of each cycle they
/// name, so a deep nest's JSON is quadratic too (342 MB for an 8,000-block nest in precise mode);
/// it used to be built whole as a `serde_json::Value`, 6.6 times its text (2.27 GB), out of memory
/// at 64,000 blocks. The streamed JSON must be the bytes serde_json prints for the same document
/// (the report structs, built whole here) and the process's peak memory far below its output.
#[test]
fn deep_nest_json_streams_with_bounded_memory() {
    use converge_report::reports::{cycles, json_text};
    let dir = std::env::temp_dir().join(format!("converge-json-streaming-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A quote in the file name: `cycles` prints it, escaped.
    let path = dir.join("deep \"nest\".ll");
    let text = deep_nest_module(4000);
    std::fs::write(&path, &text).unwrap();
    let module = converge_ir::parse("deep-nest.ll", text.clone()).unwrap();
    let defined: Vec<_> = module
        .func_ids()
        .filter(|&f| !module.func(f).is_declaration)
        .collect();

    for mode in [
        Mode::Precise,
        Mode::Llvm(converge_uniformity::LlvmVersion::V22),
    ] {
        let setup = Setup::new(Target::from_triple(module.triple.as_deref(), None), mode);
        let functions = defined
            .iter()
            .map(|&fid| report::json(&setup.analyse(&module, fid)))
            .collect();
        let want = json_text(&report::UniformityReport::new(mode, functions));
        for jobs in ["1", "2"] {
            let args = [
                "-j",
                jobs,
                "uniformity",
                "--format",
                "json",
                "--mode",
                mode.name(),
            ];
            let (out, peak) = run_measured(&args, &path);
            assert!(
                out == want.as_bytes(),
                "{args:?}: the streamed JSON differs"
            );
            if mode == Mode::Precise {
                // About 85 MB from 400 KB.
                assert!(
                    out.len() > 50 * text.len(),
                    "{args:?}: only {} bytes",
                    out.len()
                );
                assert_bounded(&args, out.len(), peak);
            }
        }
    }

    let functions = defined
        .iter()
        .map(|&fid| {
            let cfg = module.func(fid).cfg();
            let ci = CycleInfo::with_mode(&cfg, UnreachablePreds::Ignore);
            cycles::json(&module, fid, &cfg, &ci)
        })
        .collect();
    let want = json_text(&cycles::CyclesReport::new(
        path.display().to_string(),
        functions,
    ));
    for jobs in ["1", "2"] {
        let args = ["-j", jobs, "cycles", "--format", "json"];
        let (out, peak) = run_measured(&args, &path);
        assert!(
            out == want.as_bytes(),
            "{args:?}: the streamed JSON differs"
        );
        assert!(
            out.len() > 50 * text.len(),
            "{args:?}: only {} bytes",
            out.len()
        );
        assert_bounded(&args, out.len(), peak);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
