//! Colour in the readable reports: what a painted span means ([`Style`]) and whether colour is on
//! ([`Painter`]). The CLI decides (`--color`, `NO_COLOR`, a terminal or not); reports only paint
//! their `text` format, never JSON, LLVM's layouts or DOT.

/// What a painted span means (one colour per meaning, the same in every report).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Style {
    /// An error headline, a divergent value.
    Error,
    /// Something worth a look: an irreducible cycle, a divergent exit.
    Warn,
    /// Headlines.
    Bold,
}

/// Paints text with ANSI colours when `color` is set, leaves it unchanged otherwise.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Painter {
    /// Emit ANSI colour codes; when false [`Painter::paint`] returns its text unchanged.
    pub color: bool,
}

impl Painter {
    /// No colour.
    pub const PLAIN: Painter = Painter { color: false };

    /// `text` wrapped in the ANSI colour of `style` when colour is on.
    pub fn paint(self, style: Style, text: &str) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match style {
            Style::Error => "1;31",
            Style::Warn => "33",
            Style::Bold => "1",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// `n` and `noun`, plural unless `n` is 1 ("1 thread", "2 threads"): the readable reports count
/// this way, never with "(s)". `noun` takes an `s` for its plural.
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
