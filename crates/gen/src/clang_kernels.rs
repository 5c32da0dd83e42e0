//! The OpenCL C kernels of `examples/kernels/`, compiled by clang 19 for AMDGPU (gfx90a) and NVPTX
//! (sm_70) at -O0 and -O3: real compiler output for the oracle runs and the precision figures
//! (also the kernels of the CLI tests, `crates/cli/tests/common/kernels.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

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
/// The optimisation levels the kernels are compiled at.
pub const LEVELS: &[&str] = &["-O0", "-O3"];

/// The kernel sources, sorted.
pub fn sources() -> Vec<PathBuf> {
    let dir = crate::reference::repo_root().join("examples/kernels");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "cl"));
    v.sort();
    v
}

/// The clang command compiling `src` to textual IR at `out` for one target and level.
pub fn command(clang: &Path, src: &Path, flags: &[&str], level: &str, out: &Path) -> Command {
    let mut cmd = Command::new(clang);
    cmd.args(["-x", "cl", "-cl-std=CL2.0"])
        .args(flags)
        .arg(level)
        .args(["-S", "-emit-llvm", "-o"])
        .arg(out)
        .arg(src);
    cmd
}

/// Compiles every kernel for every target and level into `out_dir`; returns
/// `(label, module path)` per module, label `file target level`, or the first clang error.
pub fn compile_all(clang: &Path, out_dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    std::fs::create_dir_all(out_dir).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for src in sources() {
        let stem = src
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for (target, flags) in TARGETS {
            for level in LEVELS {
                let ll = out_dir.join(format!("{stem}.{target}{level}.ll"));
                let o = command(clang, &src, flags, level, &ll)
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", clang.display()))?;
                if !o.status.success() {
                    return Err(format!(
                        "clang {}: {}",
                        src.display(),
                        String::from_utf8_lossy(&o.stderr)
                    ));
                }
                out.push((format!("{stem} {target} {level}"), ll));
            }
        }
    }
    Ok(out)
}
