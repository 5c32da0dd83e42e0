use crate::common::{CliError, Format};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll).
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let _module = crate::common::load_module(&args.file)?;
    let _ = args.format;
    Err("error: `converge stats` is not implemented yet".to_string())
}
