//! `converge uniformity FILE`: uniform and divergent values of every function (LLVM's
//! `UniformityInfo`), as readable text, `opt`'s `print<uniformity>` layout (LLVM 22), JSON, or
//! nothing (`--format none`, with `--time-passes` for per-phase timings). Functions are analysed in
//! parallel; output is assembled in function order, so it does not depend on the thread count.
//! The analysis is `converge_uniformity::llvm::Setup`, the rendering
//! `converge_report::reports::uniformity`.

use crate::common::{CliError, Format, FunctionArgs, TargetArg};
use crate::mode::ModeArg;
use converge_report::reports::jsonw::ListDocument;
use converge_report::reports::style::counted;
use converge_report::reports::uniformity as report;
use converge_uniformity::llvm::{FunctionAnalysis, PhaseTimes, Rules, Setup};
use converge_uniformity::{LlvmVersion, Mode};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The LLVM textual IR file (.ll); `-` reads standard input.
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Target model: auto (the module's triple), amdgpu|amdgcn, nvptx|nvptx64, none, or a
    /// triple; also `-mtriple=T`.
    #[arg(long, alias = "mtriple", default_value = "auto", value_parser = crate::common::target::parse)]
    pub target: TargetArg,
    #[command(flatten)]
    pub functions: FunctionArgs,
    /// Processor (AMDGPU: decides the wave size, wave32 from gfx10 on); overrides "target-cpu".
    #[arg(long)]
    pub mcpu: Option<String>,
    /// Print per-phase times to stderr.
    #[arg(long = "time-passes", alias = "time")]
    pub time: bool,
    /// Reproduce this LLVM release (22, the reference; or 19, with its join-detection early stop,
    /// unreachable predecessors as cycle entries, no temporal-divergence list and the `ASSSUMED`
    /// spelling).
    #[arg(long, alias = "llvm", value_name = "N", default_value = "22", value_parser = crate::common::llvm_version())]
    pub llvm_version: crate::common::LlvmRelease,
    /// `llvm` reproduces LLVM (bugs included); `precise` is sound by the semantics, with
    /// convergence tokens, and tighter where that is sound (docs/precise-mode.md).
    #[arg(long, value_enum, default_value_t = ModeArg::Llvm)]
    pub mode: ModeArg,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let t0 = Instant::now();
    let module = crate::common::load_module(&args.file)?;
    let t_parse = t0.elapsed();
    let mut setup = Setup::new(
        args.target.model(&module, args.mcpu.as_deref()),
        args.mode.mode(args.llvm_version.version()),
    );
    // `--llvm-version main` in llvm mode: LLVM main's target-model rules and print orders.
    let main = args.llvm_version.is_main() && args.mode == ModeArg::Llvm;
    if main {
        setup = setup.with_rules(Rules::Main);
    }
    let mode = setup.mode();
    let defined = args.functions.select(&module)?;
    let progress = crate::common::progress::Progress::start("uniformity", defined.len());
    let painter = crate::common::color::painter();
    let llvm19 = mode == Mode::Llvm(LlvmVersion::V19);
    let mut times: Vec<Times> = Vec::with_capacity(defined.len());
    let mut t_analyse = Duration::ZERO;
    let mut t_output = Duration::ZERO;
    let text = matches!(args.format, Format::Llvm | Format::Text);
    let json = args.format == Format::Json;
    let mut stream = (text || json).then(crate::common::output::stream);
    if let Some(out) = &mut stream {
        let _ = if json {
            report::write_json_head(out)
        } else {
            out.write_str(report::preamble(mode, args.format == Format::Llvm))
        };
    }
    // Functions go in windows of `WINDOW`, each analysed and rendered in parallel and written in
    // module order, so at most a window's text is held at once. A function whose text would be
    // long (LLVM's layout and the JSON list every block of each cycle listed: quadratic in a
    // deep nest) keeps its analysis and is rendered straight into the output in its turn.
    // Without output (`none`) there is nothing to hold back: one window, so that no window's
    // slowest function keeps the other threads waiting.
    let window_len = if stream.is_some() {
        WINDOW
    } else {
        defined.len().max(1)
    };
    for (w, window) in defined.chunks(window_len).enumerate() {
        let t1 = Instant::now();
        let results: Vec<(Rendered, Times)> = window
            .par_iter()
            .enumerate()
            .map(|(k, &fid)| {
                let (a, phases) = setup.analyse_timed(&module, fid);
                let r = Instant::now();
                let out = match args.format {
                    Format::Llvm | Format::Text | Format::Json => {
                        let hint = match args.format {
                            Format::Llvm => report::llvm_size_hint(&a, llvm19),
                            Format::Json => report::json_size_hint(&a),
                            _ => report::text_size_hint(&a),
                        };
                        if hint > LARGE {
                            Rendered::Later(Box::new(a))
                        } else {
                            Rendered::Text(match args.format {
                                Format::Llvm => report::llvm(&a, llvm19, main),
                                // The function's index in the document decides its separator.
                                Format::Json => json_element(&a, w * window_len + k),
                                _ => report::text(&a, painter),
                            })
                        }
                    }
                    Format::None => Rendered::None,
                };
                progress.inc();
                (
                    out,
                    Times {
                        phases,
                        render: r.elapsed(),
                    },
                )
            })
            .collect();
        t_analyse += t1.elapsed();
        let t2 = Instant::now();
        for (r, mut t) in results {
            match r {
                Rendered::Text(s) => {
                    if let Some(out) = &mut stream {
                        let _ = out.write_str(&s);
                    }
                }
                Rendered::Later(a) => {
                    let r = Instant::now();
                    if let Some(out) = &mut stream {
                        let _ = match args.format {
                            Format::Llvm => report::write_llvm(out, &a, llvm19, main),
                            Format::Json => ListDocument::element(out, times.len())
                                .and_then(|mut w| report::write_json(&mut w, &a)),
                            _ => report::write_text(out, &a, painter),
                        };
                    }
                    t.render += r.elapsed();
                }
                Rendered::None => {}
            }
            times.push(t);
        }
        t_output += t2.elapsed();
        // Standard output was closed (`| head`): nothing more can be shown.
        if stream.as_ref().is_some_and(|s| s.closed()) {
            break;
        }
    }
    drop(progress);
    let t2 = Instant::now();
    if let Some(mut out) = stream {
        if json {
            let _ = report::write_json_tail(&mut out, mode, times.len());
        }
        out.flush();
    }
    t_output += t2.elapsed();
    if args.time {
        let mut sum = Times::default();
        for t in &times {
            sum.phases.cfg += t.phases.cfg;
            sum.phases.structure += t.phases.structure;
            sum.phases.analysis += t.phases.analysis;
            sum.render += t.render;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "time: parse {:.2} ms; {} in {:.2} ms wall on {} (summed: cfg+uses {:.2} ms, dominators+cycles {:.2} ms, uniformity {:.2} ms, render {:.2} ms); output {:.2} ms; total {:.2} ms",
            ms(t_parse),
            counted(times.len() as u64, "function"),
            ms(t_analyse),
            counted(rayon::current_num_threads() as u64, "thread"),
            ms(sum.phases.cfg),
            ms(sum.phases.structure),
            ms(sum.phases.analysis),
            ms(sum.render),
            ms(t_output),
            ms(t0.elapsed()),
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Default, Clone, Copy)]
struct Times {
    phases: PhaseTimes,
    render: Duration,
}

/// Functions per window of parallel work (see `run`).
const WINDOW: usize = 16;

/// Past this many bytes of estimated text, a function is rendered straight into the output.
const LARGE: u64 = 4 << 20;

/// One function's report: its text (readable, llvm or JSON), or its analysis when its text is
/// long and rendered in its turn into the output.
enum Rendered<'m> {
    Text(String),
    Later(Box<FunctionAnalysis<'m>>),
    None,
}

/// The JSON of function number `index` of the document, its separator included.
fn json_element(a: &FunctionAnalysis<'_>, index: usize) -> String {
    let mut w = match ListDocument::element(String::new(), index) {
        Ok(w) => w,
        Err(_) => return String::new(),
    };
    let _ = report::write_json(&mut w, a);
    w.into_inner()
}
