//! Colour for the readable (`text`) formats: `--color auto` (the default) colours only when the
//! output is a terminal and `NO_COLOR` is unset or empty (<https://no-color.org>); `always` and
//! `never` force it. Machine formats (`json`, `llvm`, DOT) are never coloured: callers paint only
//! text output, through [`painter`] (the colours themselves are
//! `converge_report::reports::style`'s).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and NO_COLOR is not set.
    #[default]
    Auto,
    Always,
    Never,
}

static ON: AtomicBool = AtomicBool::new(false);

/// Decides once, at startup, whether readable output is coloured.
pub fn init(choice: ColorChoice, to_file: bool) {
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            !to_file
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    };
    ON.store(on, Ordering::Relaxed);
}

/// Whether [`painter`] colours.
pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

pub use converge_report::reports::style::Painter;

/// The painter for this process's readable output (colour decided by [`init`]).
pub fn painter() -> Painter {
    Painter { color: enabled() }
}
