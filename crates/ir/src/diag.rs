//! rustc-style diagnostics over a module's source text: `file:line:col`, an excerpt and a caret.

use crate::Span;
use std::fmt::Write;

/// How serious a diagnostic is; printed as `error`, `warning` or `note`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The input is rejected (exit 2 in the CLI for unreadable or invalid IR).
    Error,
    /// Suspicious but accepted.
    Warning,
    /// Information attached to another diagnostic.
    Note,
}

/// One labelled source location of a diagnostic.
#[derive(Clone, Debug)]
pub struct Label {
    /// The bytes the caret line underlines (its start gives `line:col`).
    pub span: Span,
    /// Text printed after the carets (may be empty).
    pub message: String,
}

/// A located message about the source, rendered rustc-style by [`Diagnostic::render`]:
/// `error[code]: message`, `--> file:line:col`, the source line, carets, notes.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// A short stable id (`E-parse`, `token-dominance`, …), printed in brackets.
    pub code: Option<String>,
    /// The headline.
    pub message: String,
    /// The first label is the primary location.
    pub labels: Vec<Label>,
    /// `= note:` lines printed after the excerpts.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span` (the primary label, without text).
    pub fn error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code: None,
            message: message.into(),
            labels: vec![Label {
                span,
                message: String::new(),
            }],
            notes: Vec::new(),
        }
    }

    /// Sets the stable id printed in brackets.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Adds a secondary location with its text.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a `= note:` line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The primary location as (line, column), both 1-based; columns count characters.
    pub fn line_col(&self, source: &str) -> Option<(usize, usize)> {
        self.labels.first().map(|l| line_col(source, l.span.start))
    }

    /// Renders the diagnostic the way rustc does.
    pub fn render(&self, file: &str, source: &str) -> String {
        let mut out = String::new();
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        match &self.code {
            Some(c) => {
                let _ = writeln!(out, "{sev}[{c}]: {}", self.message);
            }
            None => {
                let _ = writeln!(out, "{sev}: {}", self.message);
            }
        }
        for (i, label) in self.labels.iter().enumerate() {
            let (line, col) = line_col(source, label.span.start);
            let arrow = if i == 0 { "-->" } else { ":::" };
            let _ = writeln!(out, "  {arrow} {file}:{line}:{col}");
            let text = line_text(source, label.span.start);
            let gutter = line.to_string().len();
            let _ = writeln!(out, "{:gutter$} |", "");
            let _ = writeln!(out, "{line} | {text}");
            let width = caret_width(
                source,
                label.span,
                text.chars().count() + 1 - col.min(text.chars().count() + 1),
            );
            let _ = writeln!(
                out,
                "{:gutter$} | {:pad$}{} {}",
                "",
                "",
                "^".repeat(width),
                label.message,
                pad = col - 1
            );
        }
        for n in &self.notes {
            let _ = writeln!(out, "  = note: {n}");
        }
        out
    }
}

fn caret_width(source: &str, span: Span, max: usize) -> usize {
    let end = (span.end as usize).min(source.len());
    let start = (span.start as usize).min(end);
    let s = &source[start..end];
    let first_line = s.split('\n').next().unwrap_or("");
    first_line.chars().count().clamp(1, max.max(1))
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: u32) -> (usize, usize) {
    let off = (offset as usize).min(source.len());
    let before = &source.as_bytes()[..off];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = source
        .get(line_start..off)
        .map_or(off - line_start, |s| s.chars().count())
        + 1;
    (line, col)
}

/// The text of the line containing `offset`, without its newline.
pub fn line_text(source: &str, offset: u32) -> &str {
    let off = (offset as usize).min(source.len());
    let start = source.as_bytes()[..off]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let end = source.as_bytes()[off..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(source.len(), |p| off + p);
    source.get(start..end).unwrap_or("").trim_end_matches('\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_and_caret() {
        let src = "define void @f() {\n  bogus\n}\n";
        let d = Diagnostic::error("expected instruction opcode", Span { start: 21, end: 26 });
        let r = d.render("x.ll", src);
        assert!(r.contains("x.ll:2:3"), "{r}");
        assert!(r.contains("  bogus"), "{r}");
        assert!(r.contains("^^^^^"), "{r}");
    }
}
