//! Colour for the readable (`text`) formats: `--color auto` (the default) colours only when the
//! output is a terminal and `NO_COLOR` is unset or empty (<https://no-color.org>); `always` and
//! `never` force it. Machine formats (`json`, `llvm`, DOT) are never coloured: callers paint only
//! text output, through [`paint`].

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

/// Whether [`paint`] colours.
pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// What a painted span means (one colour per meaning, the same in every subcommand).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Style {
    /// An error headline, a divergent value.
    Error,
    /// Something worth a look: an irreducible cycle, a divergent exit.
    Warn,
    /// Headlines.
    Bold,
}

/// `text` wrapped in the ANSI colour of `style` when colour is on, unchanged otherwise.
pub fn paint(style: Style, text: &str) -> String {
    if !enabled() {
        return text.to_string();
    }
    let code = match style {
        Style::Error => "1;31",
        Style::Warn => "33",
        Style::Bold => "1",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}
