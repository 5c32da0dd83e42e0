//! `converge simulate`: run one function for a group of threads and show its dynamic instances, the
//! converged-with relation (maximal for a chosen cycle hierarchy, controlled where tokens are used),
//! the groups of communicating operations, and per static instruction whether converged instances
//! produced equal values. `--all-hierarchies` repeats the run under every distinct hierarchy of the
//! CFG and reports which blocks are m-converged. Rendering: `converge_report::reports::simulate`.

use crate::common::{CliError, Format, FunctionArgs, TargetArg, formats};
use converge_report::reports::simulate as report;
use converge_report::reports::style::counted;
use converge_sim::hierarchy::{Hierarchy, enumerate};
use converge_sim::inputs::{parse_mem, parse_value};
use converge_sim::interp::{self, Options, Program, Run, Target};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// The function to run (may be omitted when the module defines exactly one; a glob must
    /// select exactly one).
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Number of threads in the group.
    #[arg(long, default_value_t = 4)]
    pub threads: u32,
    /// Kernel arguments, comma-separated, in parameter order (integers, floats, `_` for random).
    /// Missing arguments are drawn from `--seed`; they are the same in every thread.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Memory contents, repeatable: `@global=v1,v2,..` (initial contents of a global, elements
    /// of its array type), `#k=[TYPE:]v1,..` or `%name=[TYPE:]v1,..` (pointer parameter k points
    /// at a buffer of exactly these elements; TYPE i8 i16 i32 i64 f32 f64, default i32); `v*N`
    /// repeats. Accesses outside a buffer or a global stop the thread with an error.
    #[arg(long = "mem", value_name = "TARGET=VALUES")]
    pub mem: Vec<String>,
    /// The work-group (x) this group of threads is, for group-id and global-id queries.
    #[arg(long, default_value_t = 0)]
    pub group_id: u32,
    /// The number of work-groups (x), for grid-size queries.
    #[arg(long, default_value_t = 1)]
    pub num_groups: u32,
    /// Seed for missing arguments and for the values of unknown calls and divergent loads.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Split the implementation-defined group of every `anchor` ("Convergent Operation
    /// Semantics", `llvm.experimental.convergence.anchor`) into N parts: thread t is in part
    /// t mod N, and anchor instances are converged only within a part. 1 (the default): the
    /// threads converged at the anchor form one group.
    #[arg(long, default_value_t = 1)]
    pub anchor_groups: u32,
    /// The cycle hierarchy for maximal convergence: `llvm` (default, LLVM's CycleInfo), `reversed`
    /// (each block's successors explored in the other order), or an index into the list that
    /// `--all-hierarchies` prints.
    #[arg(long, default_value = "llvm")]
    pub hierarchy: String,
    /// Run under every distinct cycle hierarchy of the CFG and report the m-converged blocks.
    #[arg(long)]
    pub all_hierarchies: bool,
    /// DFS successor orders tried when enumerating hierarchies (beyond it, orders are sampled with
    /// a fixed seed, so hierarchy indices depend on this value).
    #[arg(long, default_value_t = 20_000)]
    pub enumeration_cap: u64,
    /// Instructions per thread before the thread is stopped.
    #[arg(long, default_value_t = 100_000)]
    pub step_limit: u64,
    /// Target whose id intrinsics and wave size apply: auto (the module's triple),
    /// amdgpu|amdgcn, nvptx|nvptx64, none, or a triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = formats(&[Format::Text, Format::Json, Format::None]))]
    pub format: Format,
}

pub fn run_cmd(args: &Args) -> Result<ExitCode, CliError> {
    if args.threads == 0 || args.threads > 1024 {
        return Err(format!(
            "error: --threads must be between 1 and 1024 (got {})",
            args.threads
        ));
    }
    let m = crate::common::load_module(&args.file)?;
    let f = m.func(args.functions.select_one(&m)?);
    let target = match args.target {
        TargetArg::Auto => Target::from_triple(m.triple.as_deref()),
        TargetArg::Amdgpu => Target::Amdgpu,
        TargetArg::Nvptx => Target::Nvptx,
        TargetArg::None => Target::Generic,
    };
    let argv = parse_args(&args.args)?;
    let mut memory = Vec::new();
    for spec in &args.mem {
        memory.push(parse_mem(spec).map_err(|e| format!("error: --mem: {e}"))?);
    }
    if args.num_groups == 0 || args.group_id >= args.num_groups {
        return Err(format!(
            "error: --group-id must be below --num-groups (got {} of {})",
            args.group_id, args.num_groups
        ));
    }
    if args.anchor_groups == 0 || args.anchor_groups > args.threads {
        return Err(format!(
            "error: --anchor-groups must be between 1 and --threads ({}) (got {})",
            args.threads, args.anchor_groups
        ));
    }
    if argv.len() > f.params.len() {
        return Err(format!(
            "error: --args: {} given, @{} has {}",
            counted(argv.len() as u64, "value"),
            m.strings.resolve(f.name),
            counted(f.params.len() as u64, "parameter")
        ));
    }
    let opts = Options {
        threads: args.threads,
        args: argv,
        seed: args.seed,
        step_limit: args.step_limit,
        target,
        memory,
        group_id: args.group_id,
        num_groups: args.num_groups,
        anchor_parts: interp::anchor_parts(args.threads, args.anchor_groups),
        ..Options::default()
    };
    let prog = Program::new(&m, f, target);
    interp::check_inputs(&prog, &opts).map_err(|e| format!("error: {e}"))?;

    let (hierarchies, exhaustive, chosen) = if args.all_hierarchies {
        let e = enumerate(&prog.cfg, args.enumeration_cap.max(1));
        (e.hierarchies, e.exhaustive, 0)
    } else {
        let h = match args.hierarchy.as_str() {
            "llvm" => Hierarchy::llvm(&prog.cfg),
            "reversed" => Hierarchy::reversed(&prog.cfg),
            s => {
                let k: usize = s.parse().map_err(|_| {
                    format!(
                        "error: --hierarchy: expected `llvm`, `reversed` or an index, got `{s}`"
                    )
                })?;
                let e = enumerate(&prog.cfg, args.enumeration_cap.max(1));
                let n = e.hierarchies.len();
                e.hierarchies.into_iter().nth(k).ok_or_else(|| {
                    format!("error: --hierarchy {k}: the CFG has {n} distinct hierarchies (0..{n})")
                })?
            }
        };
        (vec![h], true, 0)
    };
    let progress = crate::common::progress::Progress::start(
        format!("simulating {} threads", args.threads),
        hierarchies.len(),
    );
    let runs: Vec<Run> = hierarchies
        .iter()
        .map(|h| {
            let r = interp::run(&prog, h, &opts);
            progress.inc();
            r
        })
        .collect();
    drop(progress);
    let setting = report::Setting {
        m: &m,
        f,
        threads: args.threads,
        target: format!("{target:?}").to_lowercase(),
        hierarchies: &hierarchies,
        runs: &runs,
        chosen,
        hierarchy_arg: &args.hierarchy,
        all: args.all_hierarchies,
        exhaustive,
    };
    match args.format {
        Format::Json => crate::common::emit_json(&report::json(&setting)?),
        Format::None => {}
        Format::Text | Format::Llvm => crate::common::emit(&report::text_painted(
            &setting,
            crate::common::color::painter(),
        )?),
    }
    // The run is shown either way, but a thread that stopped on an error or at the step limit,
    // or a barrier not reached by the whole group, means the execution is not a valid complete
    // one: say so on stderr and exit 1 rather than pass it off as a finished simulation.
    let mut failed = false;
    for (k, r) in runs.iter().enumerate() {
        for msg in r.failures() {
            let under = if runs.len() > 1 {
                format!(" (hierarchy [{k}])")
            } else {
                String::new()
            };
            eprintln!("error: {msg}{under}");
            failed = true;
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--args`: integers (decimal or `0x` hex), floats, pointers into `--mem` buffers, as
/// [`converge_sim::inputs::parse_value`] reads them; `_` (or empty) for "draw it from the seed".
pub fn parse_args(
    list: &[String],
) -> Result<Vec<Option<converge_sim::interp::ArgValue>>, CliError> {
    let mut argv = Vec::new();
    for (k, a) in list.iter().enumerate() {
        let a = a.trim();
        argv.push(if a == "_" || a.is_empty() {
            None
        } else {
            Some(parse_value(a).map_err(|e| format!("error: --args: argument {}: {e}", k + 1))?)
        });
    }
    Ok(argv)
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    run_cmd(args)
}
