//! A progress line on standard error for work that takes more than a couple of seconds (reading a
//! large module, analysing thousands of functions, `--all-hierarchies`). It appears only when
//! standard error is a terminal, after [`DELAY`], is redrawn in place, and is erased when the
//! [`Progress`] is dropped: before any output is written, so it never mixes with a report, and
//! never touches standard output (where `--format json|llvm` goes).
//!
//! `CONVERGE_PROGRESS=1` forces it on any standard error (one line per update, for tests and
//! logs) and `CONVERGE_PROGRESS_AFTER_MS` sets the delay.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// Work shorter than this shows no progress line.
pub const DELAY: Duration = Duration::from_secs(2);
const REDRAW: Duration = Duration::from_millis(250);

/// A running progress line; count finished items with [`Progress::inc`].
pub struct Progress {
    done: Arc<AtomicUsize>,
    stop: Option<(Sender<()>, JoinHandle<()>)>,
}

fn mode() -> Option<(bool, Duration)> {
    let forced = std::env::var_os("CONVERGE_PROGRESS").is_some_and(|v| v == "1");
    let tty = std::io::stderr().is_terminal();
    if !forced && !tty {
        return None;
    }
    let delay = std::env::var("CONVERGE_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(DELAY);
    Some((tty && !forced, delay))
}

impl Progress {
    /// Starts a progress line `label` counting up to `total` items (`0`: no count, the label and
    /// the elapsed time only).
    pub fn start(label: impl Into<String>, total: usize) -> Progress {
        let done = Arc::new(AtomicUsize::new(0));
        let Some((in_place, delay)) = mode() else {
            return Progress { done, stop: None };
        };
        let label = label.into();
        let (tx, rx) = channel::<()>();
        let counter = Arc::clone(&done);
        let handle = std::thread::spawn(move || {
            let t0 = std::time::Instant::now();
            // A zero delay (tests) draws at once, so the line appears however short the work.
            if !delay.is_zero() && rx.recv_timeout(delay) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            loop {
                let n = counter.load(Ordering::Relaxed);
                let mut line = format!("converge: {label}");
                if total > 0 {
                    line.push_str(&format!(": {n}/{total}"));
                }
                line.push_str(&format!(" ({:.0} s)", t0.elapsed().as_secs_f64()));
                let mut e = std::io::stderr().lock();
                let _ = if in_place {
                    write!(e, "\r\x1b[2K{line}")
                } else {
                    writeln!(e, "{line}")
                };
                let _ = e.flush();
                if rx.recv_timeout(REDRAW) != Err(RecvTimeoutError::Timeout) {
                    break;
                }
            }
            if in_place {
                let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
            }
        });
        Progress {
            done,
            stop: Some((tx, handle)),
        }
    }

    /// One more item finished (callable from any thread).
    pub fn inc(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs `work` under a progress line `label` without a count (the label and the elapsed time):
/// for one long call whose progress cannot be counted (a token check, a page, a search); the line
/// is erased before `work`'s result is returned, so before any output.
pub fn during<T>(label: impl Into<String>, work: impl FnOnce() -> T) -> T {
    let _p = Progress::start(label, 0);
    work()
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some((tx, h)) = self.stop.take() {
            let _ = tx.send(());
            let _ = h.join();
        }
    }
}
