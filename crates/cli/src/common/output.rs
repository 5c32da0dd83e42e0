//! The output sink: standard output, or the file of the global `-o FILE` option. The file is
//! created when the option is read (so an unwritable path is a usage error before any work) and
//! every [`emit`] appends to it; a closed pipe on standard output counts as success.

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
