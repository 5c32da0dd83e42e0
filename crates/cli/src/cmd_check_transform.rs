//! `converge check-transform BEFORE.ll AFTER.ll`: is AFTER a correct transformation of BEFORE for
//! its convergent operations ("Convergent Operation Semantics", correctness of program
//! transforms)? A thin front end of converge-check. Exit 0 when no execution was found in which
//! AFTER's operations communicate with threads (or compute results) BEFORE could not; 1 for a
//! violation (with a counterexample) or when AFTER breaks the static token rules; 2 for unreadable
//! input, bad usage or functions that cannot be matched.

use crate::common::{CliError, Format, TargetArg, formats};
use converge_check::{Settings, Verdict, check};
use converge_sim::interp::Target;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// The original program (.ll).
    pub before: PathBuf,
    /// The transformed program (.ll).
    pub after: PathBuf,
    /// The function to compare, `NAME`, `@NAME` or a glob matching one function of BEFORE (may be
    /// omitted when one function with a body is in both modules and not called by another); an
    /// unknown name lists BEFORE's closest names.
    #[arg(long, value_name = "NAME")]
    pub function: Option<String>,
    /// Largest number of threads: groups of 2 up to N threads are tried.
    #[arg(long, default_value_t = 4)]
    pub threads: u32,
    /// Seed of the sampled configurations, memory contents and unknown values (reproducible).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Configurations (thread count, arguments) tried at most; all when there are no more.
    #[arg(long, default_value_t = 256)]
    pub max_executions: u64,
    /// Time box in seconds; the output says when it ran out.
    #[arg(long, default_value_t = 20.0)]
    pub time_limit: f64,
    /// DFS successor orders tried when enumerating cycle hierarchies (sampled beyond).
    #[arg(long, default_value_t = 512)]
    pub enumeration_cap: u64,
    /// Compare under LLVM's cycle hierarchy only (default: every hierarchy of BEFORE may explain
    /// AFTER, and every hierarchy of AFTER must be explained: m-convergence).
    #[arg(long)]
    pub llvm_hierarchy_only: bool,
    /// Instructions per thread before it is stopped.
    #[arg(long, default_value_t = 20_000)]
    pub step_limit: u64,
    /// Target whose id intrinsics and wave size apply: auto (the module's triple), amdgpu|amdgcn,
    /// nvptx|nvptx64, none, or a triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    /// Output format (`none` prints nothing).
    #[arg(long, default_value = "text", value_parser = formats(&[Format::Text, Format::Json, Format::None]))]
    pub format: Format,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    if args.threads == 0 || args.threads > 64 {
        return Err(format!(
            "error: --threads must be between 1 and 64 (got {})",
            args.threads
        ));
    }
    if !(args.time_limit.is_finite() && args.time_limit > 0.0) {
        return Err("error: --time-limit must be a positive number of seconds".into());
    }
    let before = crate::common::load_module(&args.before)?;
    let after = crate::common::load_module(&args.after)?;
    let settings = Settings {
        threads: args.threads,
        seed: args.seed,
        time_limit: Duration::from_secs_f64(args.time_limit.min(1e6)),
        max_executions: args.max_executions.max(1),
        enumeration_cap: args.enumeration_cap.max(1),
        step_limit: args.step_limit.max(1),
        target: match args.target {
            TargetArg::Auto => None,
            TargetArg::Amdgpu => Some(Target::Amdgpu),
            TargetArg::Nvptx => Some(Target::Nvptx),
            TargetArg::None => Some(Target::Generic),
        },
        all_hierarchies: !args.llvm_hierarchy_only,
    };
    let function = args
        .function
        .as_deref()
        .map(|p| one_function(&before, p))
        .transpose()?;
    let names = (
        args.before.display().to_string(),
        args.after.display().to_string(),
    );
    let outcome = crate::common::progress::during("comparing executions", || {
        check(
            &before,
            &after,
            function.as_deref(),
            (&names.0, &names.1),
            &settings,
        )
    })
    .map_err(|e| e.0)?;
    match args.format {
        Format::Json => {
            crate::common::emit_json(&converge_report::reports::check_transform::json(&outcome))
        }
        Format::None => {}
        _ => crate::common::emit(&converge_report::reports::check_transform::text_painted(
            &outcome,
            crate::common::color::painter(),
        )),
    }
    Ok(ExitCode::from(match outcome.verdict {
        Verdict::Refines => 0,
        Verdict::Violation => 1,
    }))
}

/// The name of the one defined function of BEFORE that `pattern` selects (`--function` as every
/// subcommand reads it: `name`, `@name` or a glob); an unknown name is the usual error with the
/// closest names, a glob selecting several asks for one.
fn one_function(before: &converge_ir::Module, pattern: &str) -> Result<String, CliError> {
    let fs = crate::common::select::select(before, &[pattern.to_string()])?;
    let names: Vec<String> = fs
        .iter()
        .map(|&f| before.str(before.func(f).name).to_string())
        .collect();
    match names.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "error: --function {pattern} selects {} functions of {} (@{}); check-transform compares one",
            names.len(),
            before.source_name,
            names.join(", @")
        )),
    }
}
