//! `converge uniformity`'s text goes out as it is rendered. LLVM's `print<uniformity>` layout lists
//! every block of a cycle on each cycle line, so a nest thousands deep prints far more than it
//! reads (750 MB for 16,000 blocks; a 64,000-block nest used to be killed at 12 GB). The process
//! must keep its memory bounded while printing exactly what the per-function renderers print.
//!
//! One test in this file on purpose: it reads the peak memory of its child processes
//! (`getrusage(RUSAGE_CHILDREN)`), which would mix in the children of any other test of the same
//! binary.

mod common;

use converge_gen::program::{Flavor, module_header, tid_function_with_cfg};
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

/// The peak resident memory, in bytes, of the largest child process waited for so far.
fn children_peak_rss() -> u64 {
    // SAFETY: `getrusage` writes one `rusage` into the zeroed value it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable `rusage`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    assert_eq!(rc, 0, "getrusage failed");
    // Linux reports kilobytes.
    ru.ru_maxrss as u64 * 1024
}

#[test]
fn precise_llvm_layout_of_a_deep_nest_streams_with_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("converge-streaming-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deep-nest.ll");
    let text = deep_nest_module(8000);
    std::fs::write(&path, &text).unwrap();
    let run = |jobs: &str| {
        let out = Command::new(common::converge_bin())
            .args([
                "-j",
                jobs,
                "uniformity",
                "--format",
                "llvm",
                "--mode",
                "precise",
            ])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };

    // Memory first, before any other child: the text is about 120 times the input (100 MB), so a process
    // that assembles it before writing holds at least all of it; streaming holds a buffer.
    let got = run("1");
    let peak = children_peak_rss();
    assert!(
        got.len() > 20 * text.len(),
        "the input no longer makes a long text: {} bytes from {}",
        got.len(),
        text.len()
    );
    assert!(
        peak < got.len() as u64 / 2,
        "peak RSS {peak} bytes while printing {} bytes: the output is held in memory",
        got.len()
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
