//! The output sink: standard output, or the file of the global `-o FILE` option. The file is
//! created when the option is read (so an unwritable path is a usage error before any work) and
//! every [`emit`] appends to it; a closed pipe on standard output counts as success. [`Stream`]
//! writes output piece by piece (through a buffer) for subcommands whose output may not fit in
//! memory.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

static FILE: OnceLock<Mutex<File>> = OnceLock::new();

/// Sends the output of this process to `path` (`-`: standard output, the default).
pub fn init(path: &Path) -> Result<(), String> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    let f =
        File::create(path).map_err(|e| format!("error: cannot create {}: {e}", path.display()))?;
    let _ = FILE.set(Mutex::new(f));
    Ok(())
}

/// Whether output goes to a file (`-o`), not to standard output.
pub fn to_file() -> bool {
    FILE.get().is_some()
}

/// Writes `text` to the output.
pub fn emit(text: &str) {
    if let Some(f) = FILE.get() {
        let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.flush()) {
            eprintln!("error: writing the output file: {e}");
            std::process::exit(2);
        }
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The output as a buffered [`std::fmt::Write`] sink ([`stream`]): text goes out as it is written
/// instead of being assembled first, so memory stays bounded however long the output is. A write
/// error on standard output (a closed pipe: `| head`) closes the stream quietly, as [`emit`]
/// ignores it: every later write fails with [`std::fmt::Error`], so a renderer stops early, and
/// the process still ends with success. A write error on the `-o` file ends the process with
/// status 2, as [`emit`] does.
pub struct Stream {
    out: std::io::BufWriter<Box<dyn Write>>,
    file: bool,
    closed: bool,
}

/// The buffer of a [`Stream`]: large enough that the system call per flush does not matter.
const STREAM_BUFFER: usize = 1 << 18;

/// Opens the output as a [`Stream`].
pub fn stream() -> Stream {
    let (w, file): (Box<dyn Write>, bool) = match FILE.get() {
        Some(f) => {
            let f = f.lock().unwrap_or_else(|e| e.into_inner());
            match f.try_clone() {
                Ok(f) => (Box::new(f), true),
                Err(e) => fail(e),
            }
        }
        None => (Box::new(std::io::stdout()), false),
    };
    Stream {
        out: std::io::BufWriter::with_capacity(STREAM_BUFFER, w),
        file,
        closed: false,
    }
}

fn fail(e: std::io::Error) -> ! {
    eprintln!("error: writing the output file: {e}");
    std::process::exit(2);
}

impl Stream {
    /// Whether standard output was closed (nothing more will be written).
    pub fn closed(&self) -> bool {
        self.closed
    }

    fn failed(&mut self, e: std::io::Error) -> std::fmt::Error {
        if self.file {
            fail(e);
        }
        self.closed = true;
        std::fmt::Error
    }

    /// Writes what is buffered; the stream stays usable.
    pub fn flush(&mut self) {
        if !self.closed
            && let Err(e) = self.out.flush()
        {
            let _ = self.failed(e);
        }
    }
}

impl std::fmt::Write for Stream {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.closed {
            return Err(std::fmt::Error);
        }
        match self.out.write_all(s.as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.failed(e)),
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Writes a JSON document the way every subcommand does
/// ([`converge_report::reports::json_text`]: serde_json's pretty layout, keys in sorted order,
/// a final newline).
pub fn emit_json<T: serde::Serialize + ?Sized>(v: &T) {
    emit(&json_text(v));
}

/// [`emit_json`]'s text.
pub fn json_text<T: serde::Serialize + ?Sized>(v: &T) -> String {
    converge_report::reports::json_text(v)
}
