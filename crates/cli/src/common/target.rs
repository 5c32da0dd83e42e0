//! `--target`: the divergence model, named as LLVM users name targets. Accepted: `auto` (the
//! module's `target triple`), `amdgpu`/`amdgcn`, `nvptx`/`nvptx64`, `none`, or a full triple
//! (`amdgcn-amd-amdhsa`, `nvptx64-nvidia-cuda`; an architecture without divergence, such as
//! `x86_64-pc-linux-gnu`, means `none`, as in LLVM). `opt`'s spellings `-mtriple=T`, `-mtriple T`
//! and `-mcpu=CPU` are rewritten to `--target`/`--mcpu` before parsing ([`llvm_spellings`]).

use converge_ir::Module;
use converge_uniformity::llvm::{Amdgpu, Nvptx, Target};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum TargetArg {
    /// From the module's target triple.
    #[default]
    Auto,
    Amdgpu,
    Nvptx,
    /// A target without divergence: everything is uniform.
    None,
}

/// What `--help` says `--target` accepts.
pub const TARGET_HELP: &str = "auto (the module's triple), amdgpu|amdgcn, nvptx|nvptx64, none, or a triple (amdgcn-amd-amdhsa)";

/// Parses a `--target` value (see the module doc).
pub fn parse(s: &str) -> Result<TargetArg, String> {
    let arch = s.split('-').next().unwrap_or_default().to_ascii_lowercase();
    let known = match arch.as_str() {
        "auto" if !s.contains('-') => Some(TargetArg::Auto),
        "none" if !s.contains('-') => Some(TargetArg::None),
        "amdgpu" | "amdgcn" => Some(TargetArg::Amdgpu),
        "nvptx" | "nvptx64" => Some(TargetArg::Nvptx),
        _ => None,
    };
    match known {
        Some(t) => Ok(t),
        // A full triple of another architecture: LLVM has no branch divergence there.
        None if s.contains('-') && !arch.is_empty() => Ok(TargetArg::None),
        None => Err(format!("unknown target `{s}`; expected {TARGET_HELP}")),
    }
}

impl TargetArg {
    /// The uniformity analysis's target model for `module` (`mcpu` decides AMDGPU's wave size).
    pub fn model(self, module: &Module, mcpu: Option<&str>) -> Target {
        match self {
            TargetArg::Auto => Target::from_triple(module.triple.as_deref(), mcpu),
            TargetArg::Amdgpu => Target::Amdgpu(Amdgpu::new(mcpu)),
            TargetArg::Nvptx => Target::Nvptx(Nvptx::default()),
            TargetArg::None => Target::Uniform,
        }
    }
}

/// `--target`/`-mtriple=` and `--mcpu` on the subcommands whose answer does not depend on the
/// target (`stats`, `cycles`, `verify`): accepted and checked as `opt` accepts `-mtriple=` for any
/// pass, so a command line written for `opt` (or `converge uniformity`) works unchanged; the
/// values change nothing.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TargetIndependent {
    /// Accepted (and checked) as `opt` accepts `-mtriple=T`; the answer does not depend on the
    /// target.
    #[arg(long, alias = "mtriple", value_name = "TARGET", value_parser = parse)]
    pub target: Option<TargetArg>,
    /// Accepted as `opt` accepts `-mcpu=CPU`; the answer does not depend on it.
    #[arg(long, value_name = "CPU")]
    pub mcpu: Option<String>,
}

/// Rewrites `opt`'s single-dash spellings to ours: `-mtriple=T`/`-mtriple T` → `--target=T`,
/// `-mcpu=C`/`-mcpu C` → `--mcpu=C`. Anything else is left alone (and `-` stays standard input).
pub fn llvm_spellings(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    for a in args {
        let Some(s) = a.to_str() else {
            out.push(a);
            continue;
        };
        let mut pair = |flag: &str, ours: &str| -> bool {
            if let Some(v) = s.strip_prefix(flag) {
                if let Some(v) = v.strip_prefix('=') {
                    out.push(format!("{ours}={v}").into());
                    return true;
                }
                if v.is_empty() {
                    out.push(ours.into());
                    return true;
                }
            }
            false
        };
        if pair("-mtriple", "--target") || pair("-mcpu", "--mcpu") {
            continue;
        }
        out.push(a);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{TargetArg, llvm_spellings, parse};

    #[test]
    fn llvm_names() {
        assert_eq!(parse("amdgcn"), Ok(TargetArg::Amdgpu));
        assert_eq!(parse("amdgpu"), Ok(TargetArg::Amdgpu));
        assert_eq!(parse("nvptx64"), Ok(TargetArg::Nvptx));
        assert_eq!(parse("nvptx"), Ok(TargetArg::Nvptx));
        assert_eq!(parse("amdgcn-amd-amdhsa"), Ok(TargetArg::Amdgpu));
        assert_eq!(parse("nvptx64-nvidia-cuda"), Ok(TargetArg::Nvptx));
        assert_eq!(parse("x86_64-pc-linux-gnu"), Ok(TargetArg::None));
        assert_eq!(parse("auto"), Ok(TargetArg::Auto));
        assert!(parse("amdgp").is_err());
        assert!(parse("").is_err());
    }

    #[test]
    fn opt_spellings() {
        let v: Vec<String> = llvm_spellings(
            [
                "converge",
                "uniformity",
                "-mtriple=amdgcn--",
                "-mcpu",
                "gfx90a",
                "-",
                "-o",
                "x",
            ]
            .map(Into::into),
        )
        .into_iter()
        .map(|s| s.into_string().unwrap())
        .collect();
        assert_eq!(
            v,
            [
                "converge",
                "uniformity",
                "--target=amdgcn--",
                "--mcpu",
                "gfx90a",
                "-",
                "-o",
                "x"
            ]
        );
    }
}
