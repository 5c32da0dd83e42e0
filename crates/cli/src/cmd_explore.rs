//! `converge explore FILE`: writes one self-contained HTML page (no network, no server) that shows
//! each function's CFG with its cycles and divergence, the source with every value marked, the
//! explanation chain of a clicked value, the token diagnostics and the simulator's table of
//! dynamic instances. The page is built by `converge_report::explore`; this module only reads the
//! flags and writes the file atomically (a temporary file renamed into place, so a failure never
//! leaves a partial page).

use crate::common::{CliError, FunctionArgs, TargetArg};
use crate::mode::ModeArg;
use converge_report::explore::{ExploreOptions, SimOptions, write_page};
use converge_uniformity::LlvmVersion;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input (the page is then `stdin.html`
    /// unless `-o` names it).
    pub file: PathBuf,
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Which uniformity analysis the page shows: `llvm` (LLVM's answer, `--llvm-version` picks
    /// the release) or `precise` (sound by the semantics; docs/precise-mode.md).
    #[arg(long, value_enum, default_value_t = ModeArg::Llvm)]
    pub mode: ModeArg,
    /// Reproduce this LLVM release in llvm mode (22, the reference; or 19, with its
    /// join-detection early stop and unreachable predecessors as cycle entries).
    #[arg(long, alias = "llvm", value_name = "N", default_value = "22", value_parser = crate::common::llvm_release())]
    pub llvm_version: LlvmVersion,
    /// Threads of the simulation panel.
    #[arg(long, default_value_t = 4)]
    pub threads: u32,
    /// Kernel arguments of the simulation, comma-separated, in parameter order (integers, floats,
    /// `_` for random); the same in every thread.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Seed for missing arguments and for the values of unknown calls and divergent loads.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Instructions per thread before the simulation stops it.
    #[arg(long, default_value_t = 20_000)]
    pub step_limit: u64,
    /// Cycle hierarchies simulated when the CFG is irreducible (LLVM's first).
    #[arg(long, default_value_t = 4)]
    pub hierarchies: usize,
    /// Target model: auto (the module's triple), amdgpu|amdgcn, nvptx|nvptx64, none, or a
    /// triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    /// Processor (AMDGPU: decides the wave size); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
}

/// `output`: the global `-o OUT.html` (default: the input's name with `.html`, `stdin.html` for
/// `-`, in the current directory); the page is written whole at the end.
pub fn run(args: &Args, output: Option<&Path>) -> Result<ExitCode, CliError> {
    if args.threads == 0 || args.threads > 1024 {
        return Err(format!(
            "error: --threads must be between 1 and 1024 (got {})",
            args.threads
        ));
    }
    if args.hierarchies == 0 {
        return Err("error: --hierarchies must be at least 1".to_string());
    }
    let sim_args = crate::cmd_simulate::parse_args(&args.args)?;
    let out = match output {
        Some(p) => p.to_path_buf(),
        None => {
            // Standard input has no name to borrow: not `-.html`, which is awkward to handle.
            let stem = if args.file.as_os_str() == "-" {
                "stdin".to_string()
            } else {
                args.file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "explore".to_string())
            };
            PathBuf::from(format!("{stem}.html"))
        }
    };
    if same_file(&out, &args.file) {
        return Err(format!(
            "error: the output {} is the input file; choose another with -o",
            out.display()
        ));
    }
    let module = crate::common::load_module(&args.file)?;
    let funcs = args.functions.select(&module)?;
    let opts = ExploreOptions {
        target: args.target.model(&module, args.mcpu.as_deref()),
        mode: args.mode.mode(args.llvm_version),
        sim: SimOptions {
            threads: args.threads,
            args: sim_args,
            seed: args.seed,
            step_limit: args.step_limit,
            max_hierarchies: args.hierarchies,
            ..SimOptions::default()
        },
    };
    let bytes = crate::common::progress::during("building the page", || {
        write_atomically(&out, |w| write_page(&module, &funcs, &opts, w))
    })?;
    eprintln!(
        "wrote {} ({} bytes, {} function{})",
        out.display(),
        bytes,
        funcs.len(),
        if funcs.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Writes the page through `write` into a temporary file next to `out` as it is made, and
/// renames the file into place; on any error the temporary file is removed and `out` is left as
/// it was. Returns the bytes written.
fn write_atomically(
    out: &Path,
    write: impl FnOnce(&mut Counted<std::io::BufWriter<std::fs::File>>) -> std::io::Result<()>,
) -> Result<u64, CliError> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .ok_or_else(|| format!("error: {} is not a file name", out.display()))?;
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| -> std::io::Result<u64> {
        let f = std::fs::File::create(&tmp)?;
        let mut w = Counted {
            out: std::io::BufWriter::with_capacity(1 << 20, f),
            bytes: 0,
        };
        write(&mut w)?;
        let f = w.out.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, out)?;
        Ok(w.bytes)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("error: cannot write {}: {e}", out.display())
    })
}

/// A writer that counts the bytes passed through it (the size the command reports).
pub struct Counted<W: Write> {
    out: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
