//! What every subcommand shares, as small helpers a new subcommand adopts by calling them:
//!
//! - [`load_module`]: the input, a path or `-` for standard input, parsed with located errors;
//! - [`output`]: the output sink behind the global `-o FILE` ([`emit`], [`emit_json`]);
//! - [`select`]: `--function NAME` (repeatable, glob, `@name` or `name`) via [`FunctionArgs`];
//! - [`color`]: `--color auto|always|never` and `NO_COLOR` for the readable formats;
//! - [`progress`]: a progress line on standard error for work longer than a couple of seconds;
//! - [`target`]: `--target` with LLVM's names and triples, `-mtriple=`/`-mcpu=` as `opt` spells them;
//! - [`formats`] and [`llvm_version`]: `--format` offering only what a subcommand supports, and
//!   the one `--llvm-version` spelling (alias `--llvm`).

pub mod color;
pub mod output;
pub mod progress;
pub mod select;
pub mod target;

pub use output::{emit, emit_json};
pub use select::FunctionArgs;
pub use target::TargetArg;

use clap::ValueEnum;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use converge_ir::Module;
pub use converge_uniformity::LlvmVersion;
use std::io::Read;
use std::path::Path;

/// An error that ends the process with exit code 2, already rendered for the user.
pub type CliError = String;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Readable, annotated output.
    #[default]
    Text,
    /// What `opt`'s printer pass prints.
    Llvm,
    /// Machine-readable JSON.
    Json,
    /// Analyse only, print nothing.
    None,
}

/// A `--format` value parser offering only `allowed` (in `--help`, completions and the error for
/// anything else), so a subcommand never accepts a format it then rejects.
pub fn formats(allowed: &'static [Format]) -> impl TypedValueParser<Value = Format> {
    let names = allowed
        .iter()
        .map(|f| f.to_possible_value().expect("every format has a name"));
    PossibleValuesParser::new(names.collect::<Vec<_>>())
        .map(|s| Format::from_str(&s, false).expect("offered values are formats"))
}

/// The LLVM a subcommand reproduces: a release (19 or 22), or `main`, LLVM's development
/// branch (22's structure with main's target-model refinements and print orders), as the newest
/// lit tests expect it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LlvmRelease {
    /// A release: 19 (anything below 22) or 22.
    Release(LlvmVersion),
    /// `--llvm-version main`.
    Main,
}

impl LlvmRelease {
    /// The release whose structure and rules are reproduced (`main` builds on 22).
    pub fn version(self) -> LlvmVersion {
        match self {
            LlvmRelease::Release(v) => v,
            LlvmRelease::Main => LlvmVersion::V22,
        }
    }
    /// Whether this is `main`.
    pub fn is_main(self) -> bool {
        self == LlvmRelease::Main
    }
}

/// The `--llvm-version` value parser shared by every subcommand that reproduces an LLVM release:
/// 19 to 22 (22 is the reference; anything below reproduces 19's behaviour), or `main`. The one
/// place the command line turns a release into what the libraries take.
pub fn llvm_version() -> impl TypedValueParser<Value = LlvmRelease> {
    |s: &str| -> Result<LlvmRelease, String> { parse_llvm_release(s) }
}

fn parse_llvm_release(s: &str) -> Result<LlvmRelease, String> {
    match s {
        "main" => Ok(LlvmRelease::Main),
        _ => match s.parse::<u32>() {
            Ok(v) if (19..22).contains(&v) => Ok(LlvmRelease::Release(LlvmVersion::V19)),
            Ok(22) => Ok(LlvmRelease::Release(LlvmVersion::V22)),
            _ => Err(format!("`{s}` is not 19, 20, 21, 22 or main")),
        },
    }
}

/// The `--llvm-version` value parser of the subcommands built on the per-function analysis
/// (`explain`, `dot`, `explore`): a release, 19 to 22 as [`llvm_version`] reads them; `main`
/// (LLVM's development branch) is refused with the subcommands that reproduce it.
pub fn llvm_release() -> impl TypedValueParser<Value = LlvmVersion> {
    |s: &str| -> Result<LlvmVersion, String> {
        match parse_llvm_release(s)? {
            LlvmRelease::Release(v) => Ok(v),
            LlvmRelease::Main => Err(
                "`main` is reproduced by `uniformity`, `cycles` and `verify` only; here: 19, 20, 21 or 22"
                    .to_string(),
            ),
        }
    }
}

/// The name diagnostics give the input: the path, or `<stdin>` for `-`.
pub fn input_name(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads and parses one `.ll` file (`-`: standard input); any failure is rendered with
/// file:line:col and an excerpt. Modules of many megabytes get a progress line (see [`progress`]).
pub fn load_module(path: &Path) -> Result<Module, CliError> {
    let name = input_name(path);
    let bytes = if is_stdin(path) {
        let mut b = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut b)
            .map_err(|e| format!("error: cannot read standard input: {e}"))?;
        b
    } else {
        std::fs::read(path).map_err(|e| format!("error: cannot read {name}: {e}"))?
    };
    let source = String::from_utf8(bytes).map_err(|e| {
        let off = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
        let (l, c) = converge_ir::diag::line_col(&text, off as u32);
        format!("error: {name}:{l}:{c}: the file is not valid UTF-8")
    })?;
    let _p = progress::Progress::start(format!("reading {name} ({} MB)", source.len() >> 20), 0);
    // One thread allowed (`--threads 1` or `RAYON_NUM_THREADS=1`): the reader stays on it too.
    let parallel = (rayon::current_num_threads() <= 1).then_some(false);
    converge_ir::parse_rendered_with(&name, source, parallel)
}
