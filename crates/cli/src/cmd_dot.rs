use crate::common::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll).
    pub file: PathBuf,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let _module = crate::common::load_module(&args.file)?;
    Err("error: `converge dot` is not implemented yet".to_string())
}
