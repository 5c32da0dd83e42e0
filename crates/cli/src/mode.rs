//! The `--mode` flag shared by `uniformity`, `explain` and `dot`: `llvm` (default, what LLVM
//! computes, `--llvm-version` chooses the release) or `precise` (sound by the semantics, tokens
//! included; docs/precise-mode.md).

use converge_uniformity::{LlvmVersion, Mode};

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ModeArg {
    /// LLVM's answer, bugs included (`--llvm-version` picks the release).
    #[default]
    Llvm,
    /// The answer that is right by the dynamic semantics, tokens included, tighter than LLVM
    /// where that is sound.
    Precise,
}

impl ModeArg {
    /// The analysis mode, with the LLVM release for llvm mode.
    pub fn mode(self, version: LlvmVersion) -> Mode {
        match self {
            ModeArg::Llvm => Mode::Llvm(version),
            ModeArg::Precise => Mode::Precise,
        }
    }
}
