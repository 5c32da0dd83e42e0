//! `converge`: GPU convergence semantics, computable. Each subcommand lives in its own module and reads
//! one `.ll` file (`-`: standard input). Exit codes: 0 success, 1 analysed and found invalid, 2
//! unreadable input or bad usage. Options every subcommand shares (`-o`, `--color`, `-j`) are
//! global; the helpers behind them are in `common`.

mod alloc;
mod cmd_check_transform;
mod cmd_cycles;
mod cmd_dot;
mod cmd_explain;
mod cmd_explore;
mod cmd_insert_tokens;
mod cmd_simulate;
mod cmd_stats;
mod cmd_uniformity;
mod cmd_verify;
mod common;
mod mode;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "converge",
    version,
    about = "GPU convergence semantics, computable: cycles, uniformity, convergence tokens, dynamic instances",
    after_help = "Examples:\n  converge uniformity kernel.ll\n  clang -S -emit-llvm -o - kernel.cl | converge uniformity -mtriple=amdgcn -\n  converge cycles --format llvm --function 'kern*' -o cycles.txt kernel.ll"
)]
struct Cli {
    /// Write the output to FILE instead of standard output.
    #[arg(long = "output", short = 'o', global = true, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// Colour the readable output: auto (only on a terminal, and not when NO_COLOR is set),
    /// always, never.
    #[arg(long, value_enum, global = true, default_value_t = common::color::ColorChoice::Auto)]
    color: common::color::ColorChoice,
    /// Worker threads for reading and analysing (default: one per core; 1 keeps everything on
    /// the main thread). Output is the same for every value.
    #[arg(long, short = 'j', global = true, value_name = "N")]
    jobs: Option<usize>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Functions, blocks, instructions and cycles of a module (the smoke test).
    #[command(
        after_help = "Examples:\n  converge stats kernel.ll\n  converge stats --format json --function 'kern*' kernel.ll"
    )]
    Stats(cmd_stats::Args),
    /// The cycle hierarchy of each function (LLVM's CycleInfo).
    #[command(
        after_help = "Examples:\n  converge cycles kernel.ll\n  converge cycles --format llvm --llvm-version 19 kernel.ll   # as opt 19 -passes='print<cycles>'"
    )]
    Cycles(cmd_cycles::Args),
    /// Uniform and divergent values of each function (LLVM's UniformityInfo).
    #[command(
        after_help = "Examples:\n  converge uniformity kernel.ll\n  converge uniformity --format llvm -mtriple=amdgcn-amd-amdhsa -mcpu=gfx1100 kernel.ll   # as opt -passes='print<uniformity>'"
    )]
    Uniformity(cmd_uniformity::Args),
    /// Check the static rules of convergence control tokens.
    #[command(
        after_help = "Examples:\n  converge verify kernel.ll\n  converge verify --format llvm kernel.ll   # the messages of opt -passes=verify"
    )]
    Verify(cmd_verify::Args),
    /// Run a function for a group of threads and show which dynamic instances are converged.
    #[command(
        after_help = "Examples:\n  converge simulate --function kern --threads 8 --args 5,_ kernel.ll\n  converge simulate --all-hierarchies kernel.ll"
    )]
    Simulate(cmd_simulate::Args),
    /// Explain why a value is divergent (or uniform): the chain of reasons back to a source.
    #[command(
        after_help = "Examples:\n  converge explain --value %found.at examples/divergent-loop.ll\n  converge explain kernel.ll   # every divergent branch with its joins"
    )]
    Explain(cmd_explain::Args),
    /// Is AFTER a correct transformation of BEFORE for its convergent operations?
    #[command(
        after_help = "Examples:\n  opt -S -passes=gvn-sink before.ll -o after.ll && converge check-transform before.ll after.ll\n  converge check-transform --format json --function @k --threads 3 before.ll after.ll"
    )]
    CheckTransform(cmd_check_transform::Args),
    /// Draw a function's CFG with its cycles and divergence as Graphviz DOT.
    #[command(
        after_help = "Examples:\n  converge dot --uniformity --function kern kernel.ll | dot -Tpng -o cfg.png"
    )]
    Dot(cmd_dot::Args),
    /// Print the module back with convergence control tokens inserted into uncontrolled code.
    #[command(
        after_help = "Examples:\n  converge insert-tokens examples/insert-tokens.ll\n  converge insert-tokens --function 'kern*' -o with-tokens.ll kernel.ll && converge verify with-tokens.ll"
    )]
    InsertTokens(cmd_insert_tokens::Args),
    /// Write one self-contained HTML page to explore a module's convergence: CFG, source,
    /// explanations, token diagnostics, tables of dynamic instances.
    #[command(
        after_help = "Examples:\n  converge explore examples/seed-both-diverged.ll --threads 3 -o both.html\n  converge explore --mode precise --function kern -o kern.html kernel.ll"
    )]
    Explore(cmd_explore::Args),
}

#[global_allocator]
static GLOBAL: alloc::Allocator = alloc::Allocator;

fn main() -> ExitCode {
    alloc::configure();
    let argv = common::target::llvm_spellings(std::env::args_os());
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if let Some(n) = cli.jobs {
        if n == 0 {
            eprintln!("error: --jobs must be at least 1");
            return ExitCode::from(2);
        }
        // Only fails if a pool exists already, which cannot happen before this point.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    // `explore` and `insert-tokens` write their file whole at the end (never a partial file on
    // an error), so the sink is not opened for them up front.
    let writes_whole = matches!(cli.cmd, Cmd::Explore(_) | Cmd::InsertTokens(_));
    if let Some(p) = &cli.output
        && !writes_whole
        && let Err(e) = common::output::init(p)
    {
        eprintln!("{e}");
        return ExitCode::from(2);
    }
    common::color::init(cli.color, common::output::to_file());
    let r = match &cli.cmd {
        Cmd::Stats(a) => cmd_stats::run(a),
        Cmd::Cycles(a) => cmd_cycles::run(a),
        Cmd::Uniformity(a) => cmd_uniformity::run(a),
        Cmd::Verify(a) => cmd_verify::run(a),
        Cmd::Simulate(a) => cmd_simulate::run(a),
        Cmd::Explain(a) => cmd_explain::run(a),
        Cmd::Dot(a) => cmd_dot::run(a),
        Cmd::InsertTokens(a) => cmd_insert_tokens::run(a, cli.output.as_deref()),
        Cmd::Explore(a) => cmd_explore::run(a, cli.output.as_deref()),
        Cmd::CheckTransform(a) => cmd_check_transform::run(a),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprint!("{e}");
            if !e.ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(2)
        }
    }
}
