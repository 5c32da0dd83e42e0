//! Shared plumbing for the CLI integration tests that run external processes: locating the
//! `converge` binary and running a process with a time limit (a hung analysis must become a test
//! failure with a message, never a hung test suite).

#![allow(dead_code)] // each test binary uses a different subset of these helpers

pub mod kernels;
pub mod lit;
pub mod printed;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The `converge` binary under test: `$CONVERGE_BIN` when set (scripts/test.sh sets it to
/// `<repo>/target/release/converge` after building), otherwise the binary cargo built for this
/// test run (`cargo test --release` builds `target/release/converge` before running the tests).
/// The tests never build it themselves.
pub fn converge_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("CONVERGE_BIN") {
        let p = PathBuf::from(p);
        assert!(
            p.exists(),
            "CONVERGE_BIN={} does not exist; build it first (scripts/test.sh runs `cargo build --release`)",
            p.display()
        );
        return p;
    }
    PathBuf::from(env!("CARGO_BIN_EXE_converge"))
}

/// What one process run produced.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Exit code; `None` when killed by a signal or by the time limit.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    /// The process could not be started (message).
    pub spawn_error: Option<String>,
    pub elapsed: Duration,
}

impl Outcome {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    /// A short description of how the process ended: `exit 1`, `killed by signal`, `timed out`.
    pub fn describe_end(&self) -> String {
        if let Some(e) = &self.spawn_error {
            return format!("could not start: {e}");
        }
        if self.timed_out {
            return format!("timed out after {:.1} s", self.elapsed.as_secs_f64());
        }
        match self.code {
            Some(c) => format!("exit {c}"),
            None => "killed by a signal (crash)".to_string(),
        }
    }
}

fn exit_code(status: ExitStatus) -> Option<i32> {
    status.code()
}

/// Runs `cmd` with `stdin` as its standard input, collecting both output streams, and kills it
/// after `limit`.
pub fn run(mut cmd: Command, stdin: &[u8], limit: Duration) -> Outcome {
    let start = Instant::now();
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                spawn_error: Some(format!("{}: {e}", cmd.get_program().to_string_lossy())),
                ..Outcome::default()
            };
        }
    };
    // Feed and drain on threads: a child that fills a pipe must not deadlock the test.
    let mut child_in = child.stdin.take().expect("piped stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = child_in.write_all(&input);
    });
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(_) => break None,
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            timed_out = true;
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let _ = writer.join();
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Outcome {
        code: if timed_out {
            None
        } else {
            status.and_then(exit_code)
        },
        stdout,
        stderr,
        timed_out,
        spawn_error: None,
        elapsed: start.elapsed(),
    }
}

/// The first `n` lines of `text`, with a marker when more were cut.
pub fn head(text: &str, n: usize) -> String {
    let mut lines = text.lines();
    let mut out: Vec<&str> = lines.by_ref().take(n).collect();
    let rest = lines.count();
    let mut s = String::new();
    for l in out.drain(..) {
        s.push_str(l);
        s.push('\n');
    }
    if rest > 0 {
        s.push_str(&format!("... ({rest} more lines)\n"));
    }
    s
}
