//! The OpenCL C kernels of `examples/kernels/` compiled with clang 19 (targets, levels and the
//! command from `converge_gen::clang_kernels`), with the tests' time limit and failure reports
//! (shared by `clang_kernels.rs` and the tests of the token transform and the printer).

use std::path::{Path, PathBuf};
use std::time::Duration;

pub const LIMIT: Duration = Duration::from_secs(120);

pub use converge_gen::clang_kernels::{LEVELS, TARGETS, sources};

/// Compiles one kernel file; the error text on failure.
pub fn compile(
    clang: &Path,
    src: &Path,
    flags: &[&str],
    level: &str,
    out: &Path,
) -> Result<(), String> {
    let cmd = converge_gen::clang_kernels::command(clang, src, flags, level, out);
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
