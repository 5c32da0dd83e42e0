//! `converge`: GPU convergence semantics, computable. Each subcommand lives in its own module and reads
//! one `.ll` file. Exit codes: 0 success, 1 analysed and found invalid, 2 unreadable input or bad usage.

mod cmd_cycles;
mod cmd_dot;
mod cmd_explain;
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
    about = "GPU convergence semantics, computable: cycles, uniformity, convergence tokens, dynamic instances"
)]
struct Cli {
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
    Stats(cmd_stats::Args),
    /// The cycle hierarchy of each function (LLVM's CycleInfo).
    Cycles(cmd_cycles::Args),
    /// Uniform and divergent values of each function (LLVM's UniformityInfo).
    Uniformity(cmd_uniformity::Args),
    /// Check the static rules of convergence control tokens.
    Verify(cmd_verify::Args),
    /// Run a function for a group of threads and show which dynamic instances are converged.
    Simulate(cmd_simulate::Args),
    /// Explain why a value is divergent (or uniform): the chain of reasons back to a source.
    Explain(cmd_explain::Args),
    /// Draw a function's CFG with its cycles and divergence as Graphviz DOT.
    Dot(cmd_dot::Args),
    /// Print the module back with convergence control tokens inserted into uncontrolled code.
    InsertTokens(cmd_insert_tokens::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
    let r = match &cli.cmd {
        Cmd::Stats(a) => cmd_stats::run(a),
        Cmd::Cycles(a) => cmd_cycles::run(a),
        Cmd::Uniformity(a) => cmd_uniformity::run(a),
        Cmd::Verify(a) => cmd_verify::run(a),
        Cmd::Simulate(a) => cmd_simulate::run(a),
        Cmd::Explain(a) => cmd_explain::run(a),
        Cmd::Dot(a) => cmd_dot::run(a),
        Cmd::InsertTokens(a) => cmd_insert_tokens::run(a),
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
