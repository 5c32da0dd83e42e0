//! Real clang kernels run meaningfully in the simulator: OpenCL C compiled by clang 19
//! (`-cl-std=CL2.0`) for AMDGPU and NVPTX at -O0 and -O3 calls the mangled work-item builtins
//! (`_Z12get_local_idj`, `_Z13get_global_idj`, `_Z14get_local_sizej`) and `_Z7barrierj`; with
//! buffers given by `--mem`, each thread gets its own id, reads past a buffer stop the thread, a
//! barrier under a thread-dependent condition is reported, and a barrier-separated exchange
//! through global memory sees the other threads' stores. Expected answers follow from the
//! kernels' source by hand. Skipped without clang (a failure in CI).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

const SOURCE: &str = r#"
kernel void bump(global int *buf) {
    size_t i = get_global_id(0);
    buf[i] = buf[i] + (int)get_local_id(0);
}
kernel void split_barrier(global int *buf) {
    if (get_local_id(0) < 2)
        barrier(CLK_GLOBAL_MEM_FENCE);
    buf[get_local_id(0)] = 1;
}
kernel void uniform_barrier(global int *buf, int n) {
    buf[get_local_id(0)] = n;
    barrier(CLK_GLOBAL_MEM_FENCE);
    int r = buf[(get_local_id(0) + 1) % get_local_size(0)];
    if (r != n) buf[0] = 1 / (r - n);
}
"#;

const TARGETS: &[(&str, &[&str])] = &[
    (
        "amdgcn",
        &["--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib"],
    ),
    ("nvptx", &["--target=nvptx64-nvidia-cuda", "-march=sm_70"]),
];

fn simulate(ll: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(common::converge_bin());
    cmd.arg("simulate").arg(ll).args(args);
    let o = common::run(cmd, b"", LIMIT);
    (o.code, o.stdout_str(), o.stderr_str())
}

#[test]
fn clang_kernels_simulate() {
    let Some(clang) = converge_gen::reference::clang19("clang_kernels_simulate") else {
        return;
    };
    let dir = converge_gen::reference::repo_root().join("build/clang-simulate");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("kernels.cl");
    std::fs::write(&src, SOURCE).unwrap();
    let mut runs = 0;
    for (tname, flags) in TARGETS {
        for level in ["-O0", "-O3"] {
            let ll = dir.join(format!("kernels.{tname}{level}.ll"));
            let mut cmd = Command::new(&clang);
            cmd.args(["-x", "cl", "-cl-std=CL2.0"])
                .args(*flags)
                .arg(level)
                .args(["-S", "-emit-llvm", "-o"])
                .arg(&ll)
                .arg(&src);
            let o = common::run(cmd, b"", LIMIT);
            assert!(o.success(), "clang {tname} {level}: {}", o.stderr_str());
            let label = format!("{tname} {level}");

            // 4 threads over a 3-element buffer: thread 3 (global id 3) reads past it.
            let (code, out, err) = simulate(
                &ll,
                &[
                    "--function",
                    "bump",
                    "--threads",
                    "4",
                    "--mem",
                    "#0=10,20,30",
                ],
            );
            assert_eq!(code, Some(1), "{label}: {out}\n{err}");
            assert!(
                err.contains(
                    "thread 3 stopped: load of 4 bytes at offset 12 of the buffer of \
                     parameter #0 (12 bytes): out of bounds"
                ),
                "{label}: {err}"
            );
            assert_eq!(err.lines().count(), 1, "{label}: {err}");
            // Work-group 1 of 2 with 2 threads: global ids 2 and 3, inside a 4-element buffer.
            let (code, _, err) = simulate(
                &ll,
                &[
                    "--function",
                    "bump",
                    "--threads",
                    "2",
                    "--group-id",
                    "1",
                    "--num-groups",
                    "2",
                    "--mem",
                    "#0=10,20,30,40",
                ],
            );
            assert_eq!(code, Some(0), "{label}: {err}");

            // The barrier under `get_local_id(0) < 2` is reached by threads 0 and 1 only.
            let (code, _, err) = simulate(
                &ll,
                &[
                    "--function",
                    "split_barrier",
                    "--threads",
                    "4",
                    "--mem",
                    "#0=0*4",
                ],
            );
            assert_eq!(code, Some(1), "{label}: {err}");
            assert!(
                err.contains("barrier @_Z7barrierj")
                    && err.contains("reached converged by threads [0 1] only, of 4"),
                "{label}: {err}"
            );

            // Every thread stores n, waits at the barrier, and reads its neighbour's n: no
            // division by zero (r == n), and the barrier is one group of all four threads.
            let (code, out, err) = simulate(
                &ll,
                &[
                    "--function",
                    "uniform_barrier",
                    "--threads",
                    "4",
                    "--mem",
                    "#0=0*4",
                    "--args",
                    "_,7",
                ],
            );
            assert_eq!(code, Some(0), "{label}: {out}\n{err}");
            assert!(
                out.lines()
                    .any(|l| l.contains("(@_Z7barrierj in") && l.ends_with("[0 1 2 3]")),
                "{label}: {out}"
            );
            // Without `--mem`, a pointer argument points at unbounded memory: the kernel runs
            // and the exchange still sees the stores.
            let (code, _, err) = simulate(
                &ll,
                &[
                    "--function",
                    "uniform_barrier",
                    "--threads",
                    "4",
                    "--args",
                    "_,7",
                ],
            );
            assert_eq!(code, Some(0), "{label}: {err}");
            runs += 5;
        }
    }
    println!("clang kernels simulated: {runs} runs");
}
