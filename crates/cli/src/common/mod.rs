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
#[cfg(unix)]
pub mod mapped;
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
    let not_utf8 = |valid_up_to: usize, text: &str| {
        let (l, c) = converge_ir::diag::line_col(text, valid_up_to as u32);
        format!("error: {name}:{l}:{c}: the file is not valid UTF-8")
    };
    let source: converge_ir::Source = if is_stdin(path) {
        let mut b = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut b)
            .map_err(|e| format!("error: cannot read standard input: {e}"))?;
        utf8(b, not_utf8)?.into()
    } else {
        let file =
            std::fs::File::open(path).map_err(|e| format!("error: cannot read {name}: {e}"))?;
        match map_large(&file).map_err(|e| not_utf8(e.0, &e.1))? {
            Some(text) => converge_ir::Source::shared(text),
            // Small files, and any file the system would not map: read as before.
            None => {
                let mut b = Vec::new();
                (&file)
                    .read_to_end(&mut b)
                    .map_err(|e| format!("error: cannot read {name}: {e}"))?;
                utf8(b, not_utf8)?.into()
            }
        }
    };
    let _p = progress::Progress::start(format!("reading {name} ({} MB)", source.len() >> 20), 0);
    // One thread allowed (`--threads 1` or `RAYON_NUM_THREADS=1`): the reader stays on it too.
    let parallel = (rayon::current_num_threads() <= 1).then_some(false);
    converge_ir::parse_rendered_with(&name, source, parallel)
}

/// The bytes as text, or the located "not valid UTF-8" error.
fn utf8(b: Vec<u8>, not_utf8: impl Fn(usize, &str) -> String) -> Result<String, String> {
    String::from_utf8(b).map_err(|e| {
        let off = e.utf8_error().valid_up_to();
        not_utf8(off, &String::from_utf8_lossy(e.as_bytes()))
    })
}

/// The text of a regular file of at least [`mapped::MAP_MIN`] bytes, mapped (see [`mapped`]);
/// `Ok(None)` for other files, platforms, and mappings the system refuses. The error is where the
/// bytes stop being UTF-8, with the text made valid for locating it.
#[cfg(unix)]
fn map_large(file: &std::fs::File) -> Result<Option<SharedText>, (usize, String)> {
    let Some(len) = file
        .metadata()
        .ok()
        .filter(|m| m.is_file() && m.len() >= mapped::MAP_MIN)
        .and_then(|m| usize::try_from(m.len()).ok())
    else {
        return Ok(None);
    };
    match mapped::MappedText::map(file, len) {
        Ok(m) => Ok(m.map(|m| m as SharedText)),
        Err(e) => Err((e.valid_up_to, e.lossy)),
    }
}

#[cfg(not(unix))]
fn map_large(_: &std::fs::File) -> Result<Option<SharedText>, (usize, String)> {
    Ok(None)
}

type SharedText = std::sync::Arc<dyn AsRef<str> + Send + Sync>;

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The mapped path is taken for large regular files only; its text is the file's.
    #[test]
    fn only_large_files_are_mapped() {
        let dir = std::env::temp_dir();
        let write = |name: &str, len: usize| {
            let p = dir.join(format!("converge-map-{}-{name}", std::process::id()));
            std::fs::write(&p, "; x\n".repeat(len / 4)).unwrap();
            p
        };
        let small = write("small", 4096);
        let large = write("large", mapped::MAP_MIN as usize);
        let open = |p: &Path| std::fs::File::open(p).unwrap();
        assert!(matches!(map_large(&open(&small)), Ok(None)));
        let Ok(Some(text)) = map_large(&open(&large)) else {
            panic!("a large file was not mapped")
        };
        assert_eq!((*text).as_ref(), std::fs::read_to_string(&large).unwrap());
        for p in [small, large] {
            std::fs::remove_file(p).unwrap();
        }
    }
}
