//! `converge insert-tokens FILE [-o OUT] [--function NAME]`: the module printed back with
//! convergence control tokens inserted into every function whose convergent operations are
//! uncontrolled (converge-transform's `insert_tokens`). Exit 0 with the module on stdout (or in
//! OUT); 1 when a function cannot be transformed (located errors on stderr, no output); 2 for
//! unreadable input or bad usage. Notes (functions left alone) go to stderr.

use crate::common::{CliError, FunctionArgs};
use converge_transform::insert_tokens::{Options, insert_tokens};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// Transform only these functions; the others are printed unchanged.
    #[command(flatten)]
    pub functions: FunctionArgs,
}

/// `output`: the global `-o FILE` (written only when the whole transform succeeds).
pub fn run(args: &Args, output: Option<&std::path::Path>) -> Result<ExitCode, CliError> {
    let module = crate::common::load_module(&args.file)?;
    let name = crate::common::input_name(&args.file);
    let opts = Options {
        functions: if args.functions.is_set() {
            Some(args.functions.select(&module)?)
        } else {
            None
        },
        threads: rayon::current_num_threads(),
    };
    let outcome =
        crate::common::progress::during("inserting tokens", || insert_tokens(&module, &opts))
            .map_err(|e| format!("error: {name}: {e}"))?;
    for note in &outcome.notes {
        eprintln!("note: {name}: {note}");
    }
    if !outcome.refused.is_empty() {
        for d in &outcome.refused {
            eprintln!("{}", d.render(&name, &module.source));
        }
        eprintln!(
            "error: {} function{} cannot be given tokens; nothing written",
            outcome.refused.len(),
            if outcome.refused.len() == 1 { "" } else { "s" }
        );
        return Ok(ExitCode::from(1));
    }
    match output.filter(|p| p.as_os_str() != "-") {
        None => outcome.chunks.iter().for_each(|c| crate::common::emit(c)),
        Some(out) => write_whole(out, &outcome.chunks)?,
    }
    Ok(ExitCode::from(0))
}

/// Writes the pieces to `path` through a temporary file in the same directory, so a failure never
/// leaves a partial output file.
fn write_whole(path: &std::path::Path, chunks: &[String]) -> Result<(), CliError> {
    use std::io::Write;
    let shown = path.display();
    let file_name = path
        .file_name()
        .ok_or_else(|| format!("error: {shown}: not a file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(file_name);
    tmp_name.push(".converge-tmp");
    let tmp = path.with_file_name(tmp_name);
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        for c in chunks {
            f.write_all(c.as_bytes())?;
        }
        f.flush()
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("error: cannot write {shown}: {e}")
    })?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("error: cannot write {shown}: {e}")
    })
}
