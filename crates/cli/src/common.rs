//! What every subcommand shares: reading the input, the `--format` and `--target` flags, output.

use clap::ValueEnum;
use converge_ir::Module;
use std::io::Write;

/// An error that ends the process with exit code 2, already rendered for the user.
pub type CliError = String;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Readable, annotated output.
    #[default]
    Text,
    /// What `opt`'s printer pass prints.
    Llvm,
    /// Machine-readable JSON.
    Json,
    /// Analyse only, print nothing.
    None,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum TargetArg {
    /// From the module's target triple.
    #[default]
    Auto,
    Amdgpu,
    Nvptx,
    /// A target without divergence: everything is uniform.
    None,
}

/// Reads and parses one `.ll` file; any failure is rendered with file:line:col and an excerpt.
pub fn load_module(path: &std::path::Path) -> Result<Module, CliError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("error: cannot read {name}: {e}"))?;
    let source = String::from_utf8(bytes).map_err(|e| {
        let off = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
        let (l, c) = converge_ir::diag::line_col(&text, off as u32);
        format!("error: {name}:{l}:{c}: the file is not valid UTF-8")
    })?;
    // One thread allowed (`--threads 1` or `RAYON_NUM_THREADS=1`): the reader stays on it too.
    let parallel = (rayon::current_num_threads() <= 1).then_some(false);
    converge_ir::parse_rendered_with(&name, source, parallel)
}

/// Writes to stdout, treating a closed pipe as success.
pub fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
