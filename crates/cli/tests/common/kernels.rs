//! The OpenCL C kernels of `examples/kernels/` and how the tests compile them with clang 19
//! (shared by `clang_kernels.rs` and the tests of the token transform and the printer).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub const LIMIT: Duration = Duration::from_secs(120);

/// (name, clang flags). `-nogpulib`: no ROCm device library is installed, and the kernels use
/// only builtins. `+ptx70`: the warp `*_sync` builtins need PTX 6.0 or later.
pub const TARGETS: &[(&str, &[&str])] = &[
    (
        "amdgcn-gfx90a",
        &["--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib"],
    ),
    (
        "nvptx64-sm70",
        &[
            "--target=nvptx64-nvidia-cuda",
            "-march=sm_70",
            "-Xclang",
            "-target-feature",
            "-Xclang",
            "+ptx70",
        ],
    ),
];
pub const LEVELS: &[&str] = &["-O0", "-O3"];

pub fn kernels_dir() -> PathBuf {
    converge_gen::reference::repo_root().join("examples/kernels")
}

pub fn sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(kernels_dir())
        .expect("examples/kernels")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    v.sort();
    v
}

/// Compiles one kernel file; the error text on failure.
pub fn compile(
    clang: &Path,
    src: &Path,
    flags: &[&str],
    level: &str,
    out: &Path,
) -> Result<(), String> {
    let mut cmd = Command::new(clang);
    cmd.args(["-x", "cl", "-cl-std=CL2.0"])
        .args(flags)
        .arg(level)
        .args(["-S", "-emit-llvm", "-o"])
        .arg(out)
        .arg(src);
    let o = super::run(cmd, b"", LIMIT);
    if o.success() {
        Ok(())
    } else {
        Err(format!("clang {}: {}", o.describe_end(), o.stderr_str()))
    }
}

/// A compiled kernel module: its path, a label (`file.cl target level`), whether it is NVPTX.
pub type Compiled = (PathBuf, String, bool);

/// Compiles every kernel for every target and level into `build/<dir>/`; returns the modules and
/// the failures. `None` without clang (SKIPPED / CI failure printed).
pub fn compile_all(what: &str, dir: &str) -> Option<(Vec<Compiled>, Vec<String>)> {
    let clang = converge_gen::reference::clang19(what)?;
    let out_dir = converge_gen::reference::repo_root().join("build").join(dir);
    std::fs::create_dir_all(&out_dir).expect("create the kernels' build directory");
    let mut done = Vec::new();
    let mut failures = Vec::new();
    for src in sources() {
        let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        for (tname, flags) in TARGETS {
            for level in LEVELS {
                let ll = out_dir.join(format!("{stem}.{tname}{level}.ll"));
                let label = format!("{stem}.cl {tname} {level}");
                match compile(&clang, &src, flags, level, &ll) {
                    Ok(()) => done.push((ll, label, tname.starts_with("nvptx"))),
                    Err(e) => failures.push(format!("{label}: {e}")),
                }
            }
        }
    }
    Some((done, failures))
}
