//! A small interpreter for the `RUN:` lines of LLVM lit tests, enough for LLVM's analysis tests of
//! cycles, uniformity and convergence tokens: it reads the RUN lines (with `\` continuations),
//! splits them shell-style into pipelines, substitutes `%s`, and either
//! - runs them as written with the real LLVM tools (the reference baseline), or
//! - translates the `opt`/`llvm-as` stage to the matching `converge` subcommand and runs the rest
//!   of the pipeline (FileCheck) unchanged.
//!
//! Stream model. `opt`'s printer passes (`print<uniformity>`, `print<cycles>`) and the verifier
//! write to stderr, while `converge` writes its report to stdout; so a translated stage's stdout and
//! stderr both stand for `opt`'s stderr, and `opt`'s stdout is empty (or the module, under `-S`).
//! `2>&1` then decides what reaches the pipe, exactly as it does for `opt`.
//!
//! lit semantics kept: pipelines fail if any stage fails (pipefail), `not` inverts the exit of the
//! command it wraps but a crash stays a failure, `&&` sequences pipelines.

use super::{Outcome, run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// One `RUN:` line after joining `\` continuations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLine {
    /// 1-based line number where the RUN line starts.
    pub line: usize,
    pub text: String,
}

/// Extracts the RUN lines of a test file.
pub fn run_lines(source: &str) -> Vec<RunLine> {
    let mut out: Vec<RunLine> = Vec::new();
    let mut pending: Option<RunLine> = None;
    for (i, l) in source.lines().enumerate() {
        let Some(pos) = l.find("RUN:") else {
            continue;
        };
        // lit requires the keyword not to be glued to a word (`XRUN:` is not a RUN line).
        if pos > 0 {
            let prev = l.as_bytes()[pos - 1];
            if prev.is_ascii_alphanumeric() || prev == b'_' || prev == b'-' {
                continue;
            }
        }
        let body = l[pos + 4..].trim();
        let (body, cont) = match body.strip_suffix('\\') {
            Some(b) => (b.trim_end(), true),
            None => (body, false),
        };
        match &mut pending {
            Some(p) => {
                p.text.push(' ');
                p.text.push_str(body);
            }
            None => {
                pending = Some(RunLine {
                    line: i + 1,
                    text: body.to_string(),
                })
            }
        }
        if !cont {
            out.push(pending.take().expect("pending RUN line"));
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out
}

/// A lexical item of a RUN line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Pipe,
    AndAnd,
}

/// Shell-style splitting: whitespace, single and double quotes, `|` and `&&`.
fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    toks.push(Tok::Word(std::mem::take(&mut cur)));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch) => cur.push(ch),
                            None => return Err("unterminated double quote".into()),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(ch) = chars.next() {
                    cur.push(ch);
                }
            }
            '|' => {
                if in_word {
                    toks.push(Tok::Word(std::mem::take(&mut cur)));
                    in_word = false;
                }
                if chars.peek() == Some(&'|') {
                    return Err("`||` is not supported".into());
                }
                toks.push(Tok::Pipe);
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                if in_word {
                    toks.push(Tok::Word(std::mem::take(&mut cur)));
                    in_word = false;
                }
                toks.push(Tok::AndAnd);
            }
            ';' => return Err("`;` command lists are not supported".into()),
            _ => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        toks.push(Tok::Word(cur));
    }
    Ok(toks)
}

/// Paths that lit substitutes.
#[derive(Debug, Clone)]
pub struct Subst {
    /// `%s`: the test file.
    pub source: PathBuf,
    /// `%t`: a scratch path for this test.
    pub temp: PathBuf,
}

fn substitute(word: &str, s: &Subst) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push_str(&s.source.to_string_lossy()),
            Some('S') => out.push_str(
                &s.source
                    .parent()
                    .unwrap_or(Path::new("."))
                    .to_string_lossy(),
            ),
            Some('t') => out.push_str(&s.temp.to_string_lossy()),
            Some('T') => out.push_str(&s.temp.parent().unwrap_or(Path::new(".")).to_string_lossy()),
            Some('%') => out.push('%'),
            Some(other) => return Err(format!("unsupported lit substitution `%{other}`")),
            None => out.push('%'),
        }
    }
    Ok(out)
}

/// One command of a pipeline with its redirections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stage {
    /// The command after `not` was removed.
    pub argv: Vec<String>,
    /// How many `not` wrappers it had (`not not cmd` is a double negation).
    pub nots: u32,
    pub stdin_file: Option<String>,
    pub stdout_file: Option<String>,
    pub stderr_file: Option<String>,
    pub stderr_to_stdout: bool,
}

/// A pipeline: stages connected by `|`.
pub type Pipeline = Vec<Stage>;

/// Parses a RUN line into `&&`-separated pipelines, with substitutions applied.
pub fn parse(text: &str, subst: &Subst) -> Result<Vec<Pipeline>, String> {
    let toks = lex(text)?;
    let mut pipelines: Vec<Pipeline> = vec![Vec::new()];
    let mut words: Vec<String> = Vec::new();
    let flush = |words: &mut Vec<String>, pipelines: &mut Vec<Pipeline>| -> Result<(), String> {
        if words.is_empty() {
            return Err("empty command in a pipeline".into());
        }
        let stage = make_stage(std::mem::take(words), subst)?;
        pipelines.last_mut().expect("a pipeline").push(stage);
        Ok(())
    };
    for t in toks {
        match t {
            Tok::Word(w) => words.push(w),
            Tok::Pipe => flush(&mut words, &mut pipelines)?,
            Tok::AndAnd => {
                flush(&mut words, &mut pipelines)?;
                pipelines.push(Vec::new());
            }
        }
    }
    flush(&mut words, &mut pipelines)?;
    Ok(pipelines)
}

fn make_stage(words: Vec<String>, subst: &Subst) -> Result<Stage, String> {
    let mut st = Stage::default();
    let mut it = words.into_iter().peekable();
    while let Some(w) = it.next() {
        let target = |rest: &str, it: &mut std::iter::Peekable<std::vec::IntoIter<String>>| {
            if rest.is_empty() {
                it.next()
                    .ok_or_else(|| "redirection without a target".to_string())
            } else {
                Ok(rest.to_string())
            }
        };
        if w == "2>&1" {
            st.stderr_to_stdout = true;
        } else if let Some(rest) = w.strip_prefix("2>") {
            st.stderr_file = Some(substitute(&target(rest, &mut it)?, subst)?);
        } else if let Some(rest) = w.strip_prefix('<') {
            st.stdin_file = Some(substitute(&target(rest, &mut it)?, subst)?);
        } else if let Some(rest) = w.strip_prefix('>') {
            if rest.starts_with('>') || rest.starts_with('&') {
                return Err(format!("unsupported redirection `{w}`"));
            }
            st.stdout_file = Some(substitute(&target(rest, &mut it)?, subst)?);
        } else if st.argv.is_empty() && w == "not" {
            st.nots += 1;
        } else {
            st.argv.push(substitute(&w, subst)?);
        }
    }
    if st.argv.is_empty() {
        return Err("a pipeline stage has no command".into());
    }
    if st.argv[0].starts_with("--") && st.nots > 0 {
        return Err(format!("unsupported `not {}`", st.argv[0]));
    }
    Ok(st)
}

/// Splits an `opt -passes=` pipeline at top-level commas (`a<b,c>,d` is two passes).
pub fn split_passes(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in p.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

/// The `--target`/`--mcpu` flags of converge for an `-mtriple` value.
///
/// `amdgcn-*` and the unversioned `amdgpu-*` select the AMDGPU model; the new-style `amdgpuX.YY-*`
/// triples also name the processor, `gfx` followed by the major and minor digits (`amdgpu7.00` is
/// gfx700, `amdgpu9.08` gfx908, `amdgpu12.00` gfx1200: the rewrite of the corpus README). `nvptx*`
/// selects NVPTX; every other architecture has no divergence.
pub fn target_flags(triple: &str) -> (String, Option<String>) {
    let arch = triple.split('-').next().unwrap_or("");
    if arch == "amdgcn" || arch == "amdgpu" {
        return ("amdgpu".into(), None);
    }
    if let Some(ver) = arch.strip_prefix("amdgpu")
        && let Some((major, minor)) = ver.split_once('.')
        && !major.is_empty()
        && major.bytes().all(|b| b.is_ascii_digit())
        && !minor.is_empty()
        && minor.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return ("amdgpu".into(), Some(format!("gfx{major}{minor}")));
    }
    if arch.starts_with("nvptx") {
        return ("nvptx".into(), None);
    }
    ("none".into(), None)
}

/// The same triple spelled for LLVM 19: `amdgpuX.YY-rest` becomes `amdgcn-rest` plus `-mcpu=gfxXYY`.
pub fn triple_for_llvm19(triple: &str) -> (String, Option<String>) {
    let (arch, rest) = match triple.split_once('-') {
        Some((a, r)) => (a, Some(r)),
        None => (triple, None),
    };
    if !arch.starts_with("amdgpu") {
        return (triple.to_string(), None);
    }
    let (_, cpu) = target_flags(triple);
    let new = match rest {
        Some(r) => format!("amdgcn-{r}"),
        None => "amdgcn".to_string(),
    };
    (new, cpu)
}

/// Which converge subcommand an `opt`/`llvm-as` stage becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Uniformity,
    Cycles,
    Verify,
}

impl Tool {
    pub fn subcommand(self) -> &'static str {
        match self {
            Tool::Uniformity => "uniformity",
            Tool::Cycles => "cycles",
            Tool::Verify => "verify",
        }
    }
}

/// The converge invocations that stand for one `opt`/`llvm-as` stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvergeStage {
    /// Argument lists after the binary, run in order; their outputs are concatenated.
    pub calls: Vec<Vec<String>>,
    /// `opt -S` without `-disable-output`: the module is printed to stdout after the analyses.
    pub echo_module: bool,
    /// The input file.
    pub input: String,
    /// What was dropped or emulated, for the log.
    pub notes: Vec<String>,
}

/// Why a RUN line is not run with converge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// The RUN line tests something converge does not do (a transformation pass).
    OutOfScope(String),
    /// The runner cannot interpret it.
    Unsupported(String),
}

/// Translates the first stage of a pipeline (`opt ...` or `llvm-as ...`) into converge calls.
pub fn translate(stage: &Stage) -> Result<ConvergeStage, Skip> {
    let tool = stage.argv[0].as_str();
    let args = &stage.argv[1..];
    let mut input: Option<String> = None;
    let mut notes = Vec::new();
    match tool {
        "opt" => {
            let mut passes: Vec<String> = Vec::new();
            let mut triple: Option<String> = None;
            let mut mcpu: Option<String> = None;
            let mut disable_output = false;
            let mut emit_text = false;
            let mut i = 0;
            while i < args.len() {
                let a = args[i].as_str();
                // LLVM's option parser accepts both `-x` and `--x`, and `-x=v` or `-x v`.
                let norm = a.strip_prefix("--").map(|s| format!("-{s}"));
                let a = norm.as_deref().unwrap_or(a);
                let mut value = |name: &str| -> Option<Result<String, Skip>> {
                    if let Some(v) = a.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                        return Some(Ok(v.to_string()));
                    }
                    if a == name {
                        i += 1;
                        return Some(args.get(i).cloned().ok_or_else(|| {
                            Skip::Unsupported(format!("`{name}` without a value"))
                        }));
                    }
                    None
                };
                if let Some(v) = value("-passes") {
                    passes.extend(split_passes(&v?));
                } else if let Some(v) = value("-mtriple") {
                    triple = Some(v?);
                } else if let Some(v) = value("-mcpu") {
                    mcpu = Some(v?);
                } else if let Some(v) = value("-o") {
                    let v = v?;
                    if v != "/dev/null" && v != "-" {
                        return Err(Skip::Unsupported(format!("`-o {v}`")));
                    }
                } else if a == "-disable-output" {
                    disable_output = true;
                } else if a == "-S" {
                    emit_text = true;
                } else if a == "-" || !a.starts_with('-') {
                    if input.is_some() {
                        return Err(Skip::Unsupported("more than one input file".into()));
                    }
                    if a != "-" {
                        input = Some(a.to_string());
                    }
                } else {
                    return Err(Skip::Unsupported(format!("opt flag `{a}`")));
                }
                i += 1;
            }
            let mut tools = Vec::new();
            for p in &passes {
                match p.as_str() {
                    "print<uniformity>" => tools.push(Tool::Uniformity),
                    "print<cycles>" => tools.push(Tool::Cycles),
                    "verify<cycles>" => {
                        notes.push("`verify<cycles>` dropped: it prints nothing when the cycle info is consistent".into())
                    }
                    "verify" => {}
                    p if p.starts_with("require<") => {}
                    other => {
                        return Err(Skip::OutOfScope(format!(
                            "transformation pass `{other}` (converge only analyses)"
                        )));
                    }
                }
            }
            if tools.is_empty() {
                // Only the verifier: what `opt -passes=verify` reports.
                tools.push(Tool::Verify);
            }
            let mut target_args = Vec::new();
            if let Some(t) = &triple {
                let (target, cpu) = target_flags(t);
                target_args.push("--target".to_string());
                target_args.push(target);
                // An explicit -mcpu wins over the processor named by the triple, as in opt.
                if let Some(c) = mcpu.clone().or(cpu) {
                    target_args.push("--mcpu".into());
                    target_args.push(c);
                }
            } else if let Some(c) = &mcpu {
                target_args.push("--mcpu".into());
                target_args.push(c.clone());
            }
            let input = input
                .or_else(|| stage.stdin_file.clone())
                .ok_or_else(|| Skip::Unsupported("opt reads no file".into()))?;
            let calls = tools
                .iter()
                .map(|t| {
                    let mut v = vec![t.subcommand().to_string(), "--format".into(), "llvm".into()];
                    if *t != Tool::Verify {
                        v.extend(target_args.iter().cloned());
                    }
                    v.push(input.clone());
                    v
                })
                .collect();
            let echo_module = emit_text && !disable_output;
            if echo_module {
                notes.push(
                    "`-S` module printing emulated: the analyses leave the module unchanged, so the runner \
                     prints the input without its comment lines"
                        .into(),
                );
            }
            Ok(ConvergeStage {
                calls,
                echo_module,
                input,
                notes,
            })
        }
        "llvm-as" => {
            for a in args {
                match a.as_str() {
                    "-disable-output" | "--disable-output" => {}
                    "-o" | "/dev/null" | "-o=/dev/null" | "-" => {}
                    a if a.starts_with('-') => {
                        return Err(Skip::Unsupported(format!("llvm-as flag `{a}`")));
                    }
                    a => input = Some(a.to_string()),
                }
            }
            let input = input
                .or_else(|| stage.stdin_file.clone())
                .ok_or_else(|| Skip::Unsupported("llvm-as reads no file".into()))?;
            notes.push("`llvm-as` (parse + verifier) run as `converge verify`".into());
            Ok(ConvergeStage {
                calls: vec![vec![
                    "verify".into(),
                    "--format".into(),
                    "llvm".into(),
                    input.clone(),
                ]],
                echo_module: false,
                input,
                notes,
            })
        }
        "split-file" => Err(Skip::Unsupported("`split-file` output as input".into())),
        other => Err(Skip::OutOfScope(format!("tool `{other}`"))),
    }
}

/// `opt -S`'s output for a module that the pipeline does not change, approximated by the input
/// without its whole-line comments (FileCheck's own CHECK lines must not be matched against
/// themselves).
pub fn module_echo(source: &str) -> String {
    let mut s = String::new();
    for l in source.lines() {
        if l.trim_start().starts_with(';') {
            continue;
        }
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// The programs the runner may call.
#[derive(Debug, Clone)]
pub struct Tools {
    pub converge: PathBuf,
    pub filecheck: PathBuf,
    /// LLVM 19's `opt` for the baseline run (its directory also provides `llvm-as`).
    pub opt19: Option<PathBuf>,
    /// LLVM 22's `opt` (NVPTX only), likewise.
    pub opt22: Option<PathBuf>,
    pub limit: Duration,
}

/// How a RUN line went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineStatus {
    Pass,
    Fail(String),
    Skipped(Skip),
}

/// One RUN line's result with a log of what was run.
#[derive(Debug, Clone)]
pub struct LineResult {
    pub status: LineStatus,
    pub log: String,
}

/// Which implementation runs the first stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `converge` in place of `opt`/`llvm-as`.
    Converge,
    /// `converge` with `--llvm-version main` on the subcommands that reproduce an LLVM release
    /// (LLVM's development branch: its target-model refinements and print orders).
    ConvergeMain,
    /// `converge` with `--mode precise` on `uniformity` (docs/precise-mode.md).
    ConvergePrecise,
    /// `converge` with `--llvm-version 19` (LLVM 19's behaviour and spellings).
    Converge19,
    /// LLVM 19 as written, with new-style AMDGPU triples rewritten (corpus README).
    Llvm19,
    /// LLVM 19 as above, and its old `CYCLES ASSSUMED DIVERGENT` spelling replaced by the
    /// `ASSUMED` that later LLVMs (and converge) print.
    Llvm19Spelling,
    /// LLVM 22 as written (its build here has no AMDGPU target, so only for other files).
    Llvm22,
}

fn quote(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.is_empty()
                || a.chars()
                    .any(|c| c.is_whitespace() || "'\"<>|&;$*?()".contains(c))
            {
                format!("'{a}'")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first `error:` of FileCheck's report with the check line it points at.
pub fn filecheck_reason(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(p) = l.find("error: ") {
            let loc = l[..p].trim_end_matches(": ").trim_end_matches(':');
            let lineno = loc.rsplit(':').nth(1).unwrap_or("?");
            let msg = l[p + 7..].trim();
            let check = lines.get(i + 1).map(|s| s.trim()).unwrap_or("");
            let loc_desc = if loc.is_empty() {
                String::new()
            } else {
                format!(" (line {lineno})")
            };
            // FileCheck's guess at the line that was meant shows what converge printed instead.
            let mut nearest = String::new();
            for (j, n) in lines.iter().enumerate().skip(i + 1) {
                if n.contains("error: ") {
                    break;
                }
                // A CHECK-NOT names the line it found, a CHECK the nearest candidate.
                let what = if n.contains("note: possible intended match here") {
                    "nearest"
                } else if n.contains("note: found here") {
                    "found"
                } else {
                    continue;
                };
                if let Some(m) = lines.get(j + 1) {
                    nearest = format!("; {what}: `{}`", m.trim());
                }
                break;
            }
            return format!("FileCheck{loc_desc}: {msg}: `{check}`{nearest}");
        }
    }
    match lines.first() {
        Some(l) => format!("FileCheck: {l}"),
        None => "FileCheck failed without a message".into(),
    }
}

fn first_line(s: &str) -> &str {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

/// Runs one pipeline in the given mode.
fn run_pipeline(pipe: &Pipeline, mode: Mode, tools: &Tools, log: &mut String) -> LineStatus {
    let first = &pipe[0];
    // What the first stage sends down the pipe, and whether it succeeded by lit's rules.
    let mut piped: Vec<u8>;
    match mode {
        Mode::Converge | Mode::ConvergeMain | Mode::ConvergePrecise | Mode::Converge19 => {
            let cs = match translate(first) {
                Ok(cs) => cs,
                Err(skip) => return LineStatus::Skipped(skip),
            };
            for n in &cs.notes {
                log.push_str(&format!("  note: {n}\n"));
            }
            let mut opt_stderr: Vec<u8> = Vec::new();
            let mut opt_stdout: Vec<u8> = Vec::new();
            let mut failed: Option<String> = None;
            let mut any_fail_exit = false;
            for call in &cs.calls {
                let mut call = call.clone();
                let extra: &[&str] = match (mode, call[0].as_str()) {
                    (Mode::ConvergeMain, "uniformity" | "cycles" | "verify") => {
                        &["--llvm-version", "main"]
                    }
                    (Mode::ConvergePrecise, "uniformity") => &["--mode", "precise"],
                    (Mode::Converge19, "uniformity" | "cycles" | "verify") => {
                        &["--llvm-version", "19"]
                    }
                    _ => &[],
                };
                // Before the input, the last argument.
                let input = call.pop().expect("an input");
                call.extend(extra.iter().map(|s| s.to_string()));
                call.push(input);
                let call = &call;
                log.push_str(&format!("  $ converge {}\n", quote(call)));
                let mut cmd = Command::new(&tools.converge);
                cmd.args(call);
                let o = run(cmd, b"", tools.limit);
                log.push_str(&format!("    -> {}\n", o.describe_end()));
                log_streams(log, &o);
                opt_stderr.extend_from_slice(&o.stdout);
                opt_stderr.extend_from_slice(&o.stderr);
                let crashed = o.code.is_none();
                let nonzero = o.code != Some(0);
                any_fail_exit |= nonzero;
                if crashed && failed.is_none() {
                    failed = Some(format!("converge {}: {}", call[0], o.describe_end()));
                }
                // Usage errors and unreadable input (exit 2) are failures whatever `not` says:
                // `not` in these tests expects "analysed and found invalid" (exit 1).
                if o.code == Some(2) && failed.is_none() {
                    failed = Some(format!(
                        "converge {} exit 2: {}",
                        call[0],
                        first_line(&o.stderr_str())
                    ));
                }
                if nonzero && first.nots.is_multiple_of(2) && failed.is_none() {
                    failed = Some(format!(
                        "converge {} {}: {}",
                        call[0],
                        o.describe_end(),
                        first_line(&o.stderr_str())
                    ));
                }
            }
            if !first.nots.is_multiple_of(2) && !any_fail_exit && failed.is_none() {
                failed = Some(format!(
                    "expected converge {} to reject the input (`not`), but it exited 0",
                    cs.calls[0][0]
                ));
            }
            if let Some(f) = failed {
                return LineStatus::Fail(f);
            }
            if cs.echo_module {
                let src = std::fs::read_to_string(&cs.input).unwrap_or_default();
                opt_stdout.extend_from_slice(module_echo(&src).as_bytes());
            }
            // opt writes its reports to unbuffered stderr while the passes run and the module
            // to buffered stdout at exit, so under 2>&1 the reports come first.
            piped = Vec::new();
            if first.stderr_to_stdout {
                piped.extend_from_slice(&opt_stderr);
            }
            if first.stdout_file.is_none() {
                piped.extend_from_slice(&opt_stdout);
            }
        }
        Mode::Llvm19 | Mode::Llvm19Spelling | Mode::Llvm22 => {
            let opt = if mode == Mode::Llvm22 {
                &tools.opt22
            } else {
                &tools.opt19
            };
            let Some(opt) = opt else {
                return LineStatus::Skipped(Skip::Unsupported(format!("{mode:?}: no opt")));
            };
            let bin_dir = opt.parent().unwrap_or(Path::new("."));
            let mut argv = first.argv.clone();
            let program = match argv[0].as_str() {
                "opt" => opt.clone(),
                "llvm-as" => bin_dir.join("llvm-as"),
                other => {
                    return LineStatus::Skipped(Skip::Unsupported(format!("tool `{other}`")));
                }
            };
            if argv[0] == "opt" && mode != Mode::Llvm22 {
                argv = rewrite_triples_for_19(&argv);
            }
            log.push_str(&format!("  $ {}\n", quote(&argv)));
            let mut cmd = Command::new(program);
            cmd.args(&argv[1..]);
            let stdin = match &first.stdin_file {
                Some(f) => std::fs::read(f).unwrap_or_default(),
                None => Vec::new(),
            };
            let o = run(cmd, &stdin, tools.limit);
            log.push_str(&format!("    -> {}\n", o.describe_end()));
            let ok = match o.code {
                Some(0) => first.nots.is_multiple_of(2),
                Some(_) => !first.nots.is_multiple_of(2),
                None => false,
            };
            if !ok {
                log_streams(log, &o);
                return LineStatus::Fail(format!(
                    "{} {}: {}",
                    argv[0],
                    o.describe_end(),
                    first_line(&o.stderr_str())
                ));
            }
            // The streams were captured apart; merge them in the order opt writes them (above).
            piped = Vec::new();
            if first.stderr_to_stdout {
                piped.extend_from_slice(&o.stderr);
            }
            if first.stdout_file.is_none() {
                piped.extend_from_slice(&o.stdout);
            }
            if mode == Mode::Llvm19Spelling {
                piped = String::from_utf8_lossy(&piped)
                    .replace("CYCLES ASSSUMED DIVERGENT", "CYCLES ASSUMED DIVERGENT")
                    .into_bytes();
            }
        }
    }
    for st in &pipe[1..] {
        let program = match st.argv[0].as_str() {
            "FileCheck" => tools.filecheck.clone(),
            other => {
                return LineStatus::Skipped(Skip::Unsupported(format!("pipeline tool `{other}`")));
            }
        };
        log.push_str(&format!("  | {}\n", quote(&st.argv)));
        let mut cmd = Command::new(program);
        cmd.args(&st.argv[1..]);
        let o = run(cmd, &piped, tools.limit);
        log.push_str(&format!("    -> {}\n", o.describe_end()));
        let ok = match o.code {
            Some(0) => st.nots.is_multiple_of(2),
            Some(_) => !st.nots.is_multiple_of(2),
            None => false,
        };
        if !ok {
            // Keep FileCheck's report short: the error and the annotated input dump's start.
            log.push_str(&indent(&super::head(&o.stderr_str(), 60)));
            return LineStatus::Fail(filecheck_reason(&o.stderr_str()));
        }
        piped = o.stdout;
    }
    LineStatus::Pass
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("      {l}\n")).collect()
}

fn log_streams(log: &mut String, o: &Outcome) {
    let out = o.stdout_str();
    let err = o.stderr_str();
    if !out.is_empty() {
        log.push_str("    stdout:\n");
        log.push_str(&indent(&super::head(&out, 400)));
    }
    if !err.is_empty() {
        log.push_str("    stderr:\n");
        log.push_str(&indent(&super::head(&err, 40)));
    }
}

/// The `-mtriple`/`-mcpu` options of an `opt` command line, as `-mtriple=X`/`-mcpu=Y`.
pub fn target_options(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].strip_prefix('-').unwrap_or(&argv[i]);
        let a = a.strip_prefix('-').unwrap_or(a);
        for name in ["mtriple", "mcpu"] {
            if let Some(v) = a.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                out.push(format!("-{name}={v}"));
            } else if a == name && i + 1 < argv.len() {
                i += 1;
                out.push(format!("-{name}={}", argv[i]));
            }
        }
        i += 1;
    }
    out
}

/// `-mtriple X`/`-mtriple=X` with a new-style AMDGPU triple becomes `amdgcn` plus `-mcpu=gfxXYY`
/// (unless `-mcpu` is given), which is how LLVM 19 spells it.
pub fn rewrite_triples_for_19(argv: &[String]) -> Vec<String> {
    let has_mcpu = argv
        .iter()
        .any(|a| a.starts_with("-mcpu") || a.starts_with("--mcpu"));
    let mut out = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        let (value, joined) = if let Some(v) = a
            .strip_prefix("-mtriple=")
            .or_else(|| a.strip_prefix("--mtriple="))
        {
            (Some(v.to_string()), true)
        } else if (a == "-mtriple" || a == "--mtriple") && i + 1 < argv.len() {
            i += 1;
            (Some(argv[i].clone()), false)
        } else {
            (None, false)
        };
        match value {
            Some(t) => {
                let (t19, cpu) = triple_for_llvm19(&t);
                if joined {
                    out.push(format!("-mtriple={t19}"));
                } else {
                    out.push("-mtriple".into());
                    out.push(t19);
                }
                if let Some(c) = cpu
                    && !has_mcpu
                {
                    out.push(format!("-mcpu={c}"));
                }
            }
            None => out.push(a.clone()),
        }
        i += 1;
    }
    out
}

/// Runs one RUN line (all its `&&` pipelines) in `mode`.
pub fn run_line(rl: &RunLine, subst: &Subst, mode: Mode, tools: &Tools) -> LineResult {
    let mut log = format!("RUN (line {}): {}\n", rl.line, rl.text);
    let pipelines = match parse(&rl.text, subst) {
        Ok(p) => p,
        Err(e) => {
            return LineResult {
                status: LineStatus::Skipped(Skip::Unsupported(e)),
                log,
            };
        }
    };
    for p in &pipelines {
        let st = run_pipeline(p, mode, tools, &mut log);
        if st != LineStatus::Pass {
            log.push_str(&format!("  => {st:?}\n"));
            return LineResult { status: st, log };
        }
    }
    log.push_str("  => Pass\n");
    LineResult {
        status: LineStatus::Pass,
        log,
    }
}

/// A whole test file's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail(String),
    OutOfScope(String),
    Unsupported(String),
}

impl Verdict {
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail(_) => "FAIL",
            Verdict::OutOfScope(_) => "OUT-OF-SCOPE",
            Verdict::Unsupported(_) => "UNSUPPORTED",
        }
    }
    pub fn reason(&self) -> &str {
        match self {
            Verdict::Pass => "",
            Verdict::Fail(r) | Verdict::OutOfScope(r) | Verdict::Unsupported(r) => r,
        }
    }
}

/// Combines RUN line results: a failure anywhere fails the file; skipped lines only count when
/// nothing ran.
pub fn verdict(lines: &[(usize, LineStatus)]) -> Verdict {
    let multi = lines.len() > 1;
    let tag = |line: usize, r: &str| {
        if multi {
            format!("RUN@{line}: {r}")
        } else {
            r.to_string()
        }
    };
    if lines.is_empty() {
        return Verdict::Unsupported("no RUN lines".into());
    }
    for (l, s) in lines {
        if let LineStatus::Fail(r) = s {
            return Verdict::Fail(tag(*l, r));
        }
    }
    if lines.iter().any(|(_, s)| *s == LineStatus::Pass) {
        return Verdict::Pass;
    }
    for (l, s) in lines {
        if let LineStatus::Skipped(Skip::Unsupported(r)) = s {
            return Verdict::Unsupported(tag(*l, r));
        }
    }
    match &lines[0].1 {
        LineStatus::Skipped(Skip::OutOfScope(r)) => Verdict::OutOfScope(r.clone()),
        _ => Verdict::Unsupported("nothing ran".into()),
    }
}
