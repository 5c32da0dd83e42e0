//! `converge explain FILE`: why a value is divergent (the shortest chain of reasons back to a
//! divergence source, each step with file:line:col) or why it is uniform; without `--value` or
//! `--block`, a per-function summary of the divergent branches with their joins and divergent
//! exits. The explanations are computed from the same analysis result `converge uniformity`
//! prints (the same `--mode` and `--llvm-version`), so they cannot disagree with it.

use crate::common::{CliError, FunctionArgs, TargetArg};
use crate::mode::ModeArg;
use converge_ir::FuncId;
use converge_report::LineIndex;
use converge_report::explain::{Analysed, Explainer, Explanation, Node, find_block, find_value};
use converge_report::render::Ctx;
use converge_report::reports::explain::{ExplainReport, ExplainValueReport};
use converge_uniformity::{LlvmVersion, Mode};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ExplainFormat {
    /// Readable text.
    #[default]
    Text,
    /// Machine-readable JSON.
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// Restricts the search (`--function` is needed with `--value`/`--block` when the name occurs
    /// in several functions).
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Explain this value (`%x`, `x`, `%3`).
    #[arg(long, conflicts_with = "block")]
    pub value: Option<String>,
    /// Explain the terminator (branch) of this block (`%bb`, `bb`).
    #[arg(long)]
    pub block: Option<String>,
    /// Target model: auto (the module's triple), amdgpu|amdgcn, nvptx|nvptx64, none, or a
    /// triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    /// Processor (AMDGPU: decides the wave size); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
    /// `llvm` (LLVM's answer, `--llvm-version` picks the release) or `precise` (sound by the semantics; docs/precise-mode.md).
    #[arg(long, value_enum, default_value_t = ModeArg::Llvm)]
    pub mode: ModeArg,
    /// Reproduce this LLVM release in llvm mode (22, the reference; or 19, with its
    /// join-detection early stop and unreachable predecessors as cycle entries).
    #[arg(long, alias = "llvm", value_name = "N", default_value = "22", value_parser = crate::common::llvm_release())]
    pub llvm_version: LlvmVersion,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    pub format: ExplainFormat,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let module = crate::common::load_module(&args.file)?;
    let target = args.target.model(&module, args.mcpu.as_deref());
    let funcs = args.functions.select(&module)?;
    let lines = LineIndex::new(&module.source);
    let json = args.format == ExplainFormat::Json;

    if args.value.is_some() || args.block.is_some() {
        // Find the function(s) holding the name.
        let mut hits: Vec<(FuncId, Node)> = Vec::new();
        for &f in &funcs {
            let node = if let Some(v) = &args.value {
                find_value(&module, f, v)
            } else {
                let b = args.block.as_deref().unwrap_or_default();
                find_block(&module, f, b)
                    .map(|b| Node::Inst(module.func(f).block_range(b).end.saturating_sub(1)))
            };
            if let Some(n) = node
                && !(matches!(n, Node::Inst(_)) && module.func(f).insts.is_empty())
            {
                hits.push((f, n));
            }
        }
        let what = args
            .value
            .as_deref()
            .map(|v| format!("value {v}"))
            .unwrap_or_else(|| format!("block {}", args.block.as_deref().unwrap_or_default()));
        let (f, n) = match hits.as_slice() {
            [] => {
                return Err(format!(
                    "error: no {what} in {}{}",
                    if args.functions.is_set() {
                        "the selected functions of "
                    } else {
                        "any function of "
                    },
                    module.source_name
                ));
            }
            [one] => *one,
            many => {
                let names: Vec<String> = many
                    .iter()
                    .map(|&(f, _)| format!("@{}", module.str(module.func(f).name)))
                    .collect();
                return Err(format!(
                    "error: {what} occurs in several functions ({}); choose one with --function",
                    names.join(", ")
                ));
            }
        };
        let a = Analysed::new_with(&module, f, &target, args.mode.mode(args.llvm_version));
        let ex = Explainer::new(&a);
        let e = crate::common::progress::during("explaining", || ex.explain(n));
        let ctx = Ctx {
            a: &a,
            lines: &lines,
        };
        // Precise mode backs each divergence it reports with the simulator when it can.
        let witness = match (a.mode, n, &e) {
            (Mode::Precise, Node::Inst(i), Explanation::Divergent(_)) => Some(
                crate::common::progress::during("searching a simulator witness", || {
                    converge_report::witness::find(&module, f, i)
                })
                .map(|w| {
                    let cmd = w.command(
                        &args.file.display().to_string(),
                        module.str(module.func(f).name),
                    );
                    (w, cmd)
                }),
            ),
            _ => None,
        };
        let out = if json {
            crate::common::output::json_text(&ExplainValueReport::new(
                a.mode,
                ctx.explanation(n, &e),
                witness
                    .as_ref()
                    .map(|w| w.as_ref().map(|(w, cmd)| (w, cmd.as_str()))),
            ))
        } else {
            let mut s = if a.mode == Mode::Precise {
                "mode: precise\n".to_string()
            } else {
                String::new()
            };
            s.push_str(&ctx.explanation_text_painted(n, &e, crate::common::color::painter()));
            match &witness {
                Some(Some((w, cmd))) => {
                    s.push_str(&format!(
                        "witness (simulator): converged instances differ, thread {}: {}, thread {}: {}\n  {cmd}\n",
                        w.a.0, w.a.1, w.b.0, w.b.1
                    ));
                }
                Some(None) if !converge_report::witness::searchable(&module, f) => {
                    s.push_str(&format!(
                        "witness: not searched (the function has more than {} instructions)\n",
                        converge_report::witness::MAX_INSTS
                    ))
                }
                Some(None) => s.push_str(
                    "witness: none found within the search bounds (2, 4, 8, 32 threads; 8 inputs; 64 hierarchies)\n",
                ),
                None => {}
            }
            s
        };
        crate::common::emit(&out);
        return Ok(ExitCode::SUCCESS);
    }

    let mut text = String::new();
    let mut objs = Vec::new();
    let progress = crate::common::progress::Progress::start("explaining", funcs.len());
    for &f in &funcs {
        let a = Analysed::new_with(&module, f, &target, args.mode.mode(args.llvm_version));
        let ex = Explainer::new(&a);
        let ctx = Ctx {
            a: &a,
            lines: &lines,
        };
        let (t, j) = ctx.summary_painted(&ex, json, crate::common::color::painter());
        progress.inc();
        if json {
            objs.push(j);
        } else {
            text.push_str(&t);
        }
    }
    drop(progress);
    let mode = args.mode.mode(args.llvm_version);
    if json {
        text = crate::common::output::json_text(&ExplainReport::new(mode, objs));
    }
    if !json && mode == Mode::Precise {
        text.insert_str(0, "mode: precise\n");
    }
    crate::common::emit(&text);
    Ok(ExitCode::SUCCESS)
}
